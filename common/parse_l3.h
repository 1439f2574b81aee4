/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer 3 of the frame parser: IPv4 (options skipped) and IPv6 (a bounded
 * walk of its extension headers), fragments marked; and the IP version of a
 * header that nothing before it names.
 */
#ifndef MK_PARSE_L3_H
#define MK_PARSE_L3_H

#include "parse_base.h"

MK_INLINE int mk_parse_ipv4(struct mk_frame *f, __u32 *offp, struct mk_l3 *l3, struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = *offp, ihl;
	__u16 frag;

	MK_PULL(h, f, off, 20, MK_REASON_ERR_TRUNC_IPV4);
	ihl = (h[0] & 0x0f) * 4;
	l3->ip_len = mk_rd16(h + 2);
	if ((h[0] >> 4) != 4 || ihl < 20 || l3->ip_len < ihl) {
		p->reason = MK_REASON_ERR_BAD_IPV4;
		return MK_PARSE_ERROR;
	}
	l3->family = MK_FAMILY_IPV4;
	l3->proto = h[9];
	mk_memset(l3->src, 0, sizeof(l3->src));
	mk_memset(l3->dst, 0, sizeof(l3->dst));
	mk_memcpy(&l3->src[0], h + 12, 4);
	mk_memcpy(&l3->dst[0], h + 16, 4);
	frag = mk_rd16(h + 6);
	l3->frag = (frag & 0x1fff) ? MK_FRAG_LATER : (frag & 0x2000) ? MK_FRAG_FIRST : MK_FRAG_NONE;
	l3->truncated = (const void *)(h + l3->ip_len) > MK_FRAME_END(f);
	l3->l3_off = off;
	if (ihl > 20) {
		/* options must be present even though we do not read them */
		MK_ADVANCE(off, ihl);
		MK_PULL(h, f, off, 0, MK_REASON_ERR_TRUNC_IPV4);
	} else {
		MK_ADVANCE(off, 20);
	}
	l3->l4_off = off;
	*offp = off;
	return MK_PARSE_IP;
}

MK_INLINE int mk_parse_ipv6(struct mk_frame *f, __u32 *offp, struct mk_l3 *l3, struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = *offp;
	__u8 nh, frag_nh = 0;
	int i;

	MK_PULL(h, f, off, 40, MK_REASON_ERR_TRUNC_IPV6);
	if ((h[0] >> 4) != 6) {
		p->reason = MK_REASON_ERR_BAD_IPV6;
		return MK_PARSE_ERROR;
	}
	l3->family = MK_FAMILY_IPV6;
	l3->ip_len = (__u32)mk_rd16(h + 4) + 40;
	l3->truncated = (const void *)(h + l3->ip_len) > MK_FRAME_END(f);
	l3->frag = MK_FRAG_NONE;
	nh = h[6];
	mk_memcpy(l3->src, h + 8, 16);
	mk_memcpy(l3->dst, h + 24, 16);
	l3->l3_off = off;
	MK_ADVANCE(off, 40);

	/* Bounded walk of the extension headers that may precede L4. */
	for (i = 0; i < MK_IPV6_EXT_MAX; i++) {
		__u32 len;

		if (nh != 0 && nh != 43 && nh != 60 && nh != 44 && nh != 51)
			break;
		MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_IPV6);
		if (nh == 44) {
			__u16 fo = mk_rd16(h + 2);

			/* offset 0 without M is an atomic fragment (RFC 6946): a whole datagram */
			if (fo & 0xfff8)
				l3->frag = MK_FRAG_LATER;
			else if (fo & 1)
				l3->frag = MK_FRAG_FIRST;
			frag_nh = h[0];
			len = 8;
		} else if (nh == 51) {
			len = ((__u32)h[1] + 2) * 4;
		} else {
			len = ((__u32)h[1] + 1) * 8;
		}
		nh = h[0];
		MK_ADVANCE(off, len);
		MK_PULL(h, f, off, 0, MK_REASON_ERR_TRUNC_IPV6);
		/* behind a later fragment's header is payload, not more headers */
		if (l3->frag == MK_FRAG_LATER)
			break;
	}
	if (l3->frag != MK_FRAG_LATER &&
	    (nh == 0 || nh == 43 || nh == 60 || nh == 44 || nh == 51)) {
		p->reason = MK_REASON_ERR_BAD_IPV6;
		return MK_PARSE_ERROR;
	}
	/*
	 * Every fragment of a datagram must key on the same protocol, and a later
	 * fragment knows only the fragment header's next header: use it for all.
	 */
	l3->proto = l3->frag != MK_FRAG_NONE ? frag_nh : nh;
	l3->l4_off = off;
	*offp = off;
	return MK_PARSE_IP;
}

MK_INLINE int mk_ip_nibble_type(const __u8 *h, __u16 *ethertype)
{
	if ((h[0] >> 4) == 4)
		*ethertype = MK_ETH_P_IPV4;
	else if ((h[0] >> 4) == 6)
		*ethertype = MK_ETH_P_IPV6;
	else
		return 0;
	return 1;
}

#endif /* MK_PARSE_L3_H */
