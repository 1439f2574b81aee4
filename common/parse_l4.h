/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer 4 of the frame parser: the ports (or the ICMP echo identifier) the
 * flow key takes, and one whole IP level, L3 then L4, as the outermost level
 * and every tunnel's inner level are parsed.
 */
#ifndef MK_PARSE_L4_H
#define MK_PARSE_L4_H

#include "parse_l3.h"

/* Ports (or the ICMP echo identifier) of the L4 header at l3->l4_off. */
/* @off is the L4 offset the IP parser left in a register, with its bound known. */
MK_INLINE int mk_parse_l4(struct mk_frame *f, __u32 off, struct mk_l3 *l3, struct mk_parse *p)
{
	const __u8 *h;

	l3->sport = 0;
	l3->dport = 0;
	if (l3->frag != MK_FRAG_NONE) {
		/* fragments hash on the address pair; only the first has an L4 header */
		if (l3->frag == MK_FRAG_LATER)
			l3->l4_off = 0;
		return MK_PARSE_IP;
	}
	switch (l3->proto) {
	case MK_IPPROTO_TCP:
		MK_PULL(h, f, off, 20, MK_REASON_ERR_TRUNC_L4);
		if ((h[12] >> 4) < 5) {
			p->reason = MK_REASON_ERR_BAD_L4;
			return MK_PARSE_ERROR;
		}
		break;
	case MK_IPPROTO_UDP:
		MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_L4);
		break;
	case MK_IPPROTO_SCTP:
		MK_PULL(h, f, off, 12, MK_REASON_ERR_TRUNC_L4);
		break;
	case MK_IPPROTO_L2TP:
	case MK_IPPROTO_GRE:
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		/* no ports, but keep l4_off: the tunnel header (or inner IP header) is there */
		return MK_PARSE_IP;
	case MK_IPPROTO_ICMP:
	case MK_IPPROTO_ICMPV6:
		MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_L4);
		/* echo request/reply: both sides carry the identifier */
		if (h[0] == 8 || h[0] == 0 || h[0] == 128 || h[0] == 129) {
			MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_L4);
			l3->sport = mk_raw16(h + 4);
			l3->dport = l3->sport;
		}
		return MK_PARSE_IP;
	default:
		l3->l4_off = 0;
		return MK_PARSE_IP;
	}
	l3->sport = mk_raw16(h);
	l3->dport = mk_raw16(h + 2);
	return MK_PARSE_IP;
}

/* One IP level (header, extension headers, L4 ports) at @off. */
MK_INLINE int mk_parse_ip_level(struct mk_frame *f, __u32 off, __u32 ethertype, struct mk_l3 *l3,
				struct mk_parse *p)
{
	int ret;

	if (off > MK_PARSE_MAX_OFF) {
		p->reason = MK_REASON_ERR_HDR_TOO_LONG;
		return MK_PARSE_ERROR;
	}
	if (ethertype == MK_ETH_P_IPV4)
		ret = mk_parse_ipv4(f, &off, l3, p);
	else
		ret = mk_parse_ipv6(f, &off, l3, p);
	if (ret != MK_PARSE_IP)
		return ret;
	return mk_parse_l4(f, off, l3, p);
}

#endif /* MK_PARSE_L4_H */
