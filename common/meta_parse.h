/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User space only: the parse result of a frame the XDP program delivered,
 * rebuilt from the struct mk_meta in front of it. This is the inverse of
 * mk_meta_fill() (parse.h) and lives next to it in common/ so that a change
 * of the metadata layout meets both. The worker trusts the metadata: it reads
 * the addresses and ports at the offsets the program found (through the same
 * mk_parse_l4() as the program) and takes hash, protocol, direction, VLANs
 * and tunnel context as given; it never walks the headers again.
 *
 * What the 32-byte metadata cannot carry: outer IPv6 addresses travel as a
 * 32-bit fold (outer_family stays MK_FAMILY_NONE, outer_src[0]/outer_dst[0]
 * hold the folds), and the tunnel depth is 1 whenever a tunnel was stripped.
 */
#ifndef MK_META_PARSE_H
#define MK_META_PARSE_H

#ifdef __bpf__
#error "meta_parse.h is for user space"
#endif

#include "parse.h"

enum mk_meta_check {
	MK_META_OK = 0,
	MK_META_NONE,	    /* no metadata: magic missing (the program could not write it) */
	MK_META_BAD_OFFSET, /* offsets or IP header outside the frame */
};

/*
 * Fills @p from @m and the delivered frame (@len bytes at @frame, starting
 * with the Ethernet header). Returns enum mk_meta_check; on anything but
 * MK_META_OK, @p must not be used.
 */
static inline int mk_parse_from_meta(struct mk_parse *p, const struct mk_meta *m, const __u8 *frame,
				     __u32 len)
{
	struct mk_frame f = { .data = frame, .data_end = frame + len };
	struct mk_l3 *l3 = &p->l3;
	const __u8 *ip;
	__u32 l3_off = mk_meta_l3_off(m);

	if (mk_meta_magic(m) != MK_META_MAGIC)
		return MK_META_NONE;
	mk_memset(p, 0, sizeof(*p));
	ip = frame + l3_off;
	if (m->flags & MK_META_F_IPV6) {
		if (l3_off + 40 > len)
			return MK_META_BAD_OFFSET;
		l3->family = MK_FAMILY_IPV6;
		l3->ip_len = (__u32)mk_rd16(ip + 4) + 40;
		mk_memcpy(l3->src, ip + 8, 16);
		mk_memcpy(l3->dst, ip + 24, 16);
	} else {
		if (l3_off + 20 > len)
			return MK_META_BAD_OFFSET;
		l3->family = MK_FAMILY_IPV4;
		l3->ip_len = mk_rd16(ip + 2);
		mk_memcpy(&l3->src[0], ip + 12, 4);
		mk_memcpy(&l3->dst[0], ip + 16, 4);
	}
	l3->proto = mk_meta_proto(m);
	l3->l3_off = (__u16)l3_off;
	l3->l4_off = m->l4_off;
	l3->truncated = !!(m->flags & MK_META_F_TRUNCATED);
	if (m->flags & MK_META_F_FRAGMENT)
		l3->frag = (m->flags & MK_META_F_FIRST_FRAG) ? MK_FRAG_FIRST : MK_FRAG_LATER;
	if (l3->l4_off) {
		if (l3->l4_off < l3_off || l3->l4_off > len)
			return MK_META_BAD_OFFSET;
		/* the program read these very bytes: this cannot fail on its frames */
		if (mk_parse_l4(&f, l3->l4_off, l3, p) != MK_PARSE_IP)
			return MK_META_BAD_OFFSET;
	}
	p->flags = m->flags & ~MK_META_F_OUTER_V6;
	p->vlan[0] = mk_meta_vlan(m, 0);
	p->vlan[1] = mk_meta_vlan(m, 1);
	p->hash = m->hash;
	p->tunnel_ctx = m->tunnel_ctx;
	if (m->flags & MK_META_F_TUNNEL) {
		p->tunnel_id = m->tunnel_id;
		p->tunnel_type = mk_meta_tunnel_type(m);
		p->tunnel_depth = 1;
		p->tunnel_mask = (__u16)(1u << p->tunnel_type);
		p->outer_family = (m->flags & MK_META_F_OUTER_V6) ? MK_FAMILY_NONE : MK_FAMILY_IPV4;
		p->outer_src[0] = m->outer_src;
		p->outer_dst[0] = m->outer_dst;
	}
	mk_flow_key_set_endpoints(&p->key, l3->src, l3->sport, l3->dst, l3->dport);
	p->key.vlan[0] = p->vlan[0];
	p->key.vlan[1] = p->vlan[1];
	p->key.tunnel_ctx = p->tunnel_ctx;
	p->key.proto = l3->proto;
	p->key.family = l3->family;
	return MK_META_OK;
}

#endif /* MK_META_PARSE_H */
