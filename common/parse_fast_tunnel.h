/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fast tunnel level: the usual shape of each tunnel header the general
 * parser strips, around a fast-path packet, in a straight line and without
 * the call the general tunnel level costs in BPF.
 */
#ifndef MK_PARSE_FAST_TUNNEL_H
#define MK_PARSE_FAST_TUNNEL_H

#include "parse_fast.h"

/*
 * The untagged Ethernet header a fast-path tunnel carries at @off, with IPv4
 * or IPv6 behind it: the inner IP level's offset and in @version the IP
 * version its type announces, or 0 (any other shape is left to the general
 * parser).
 */
MK_INLINE __u32 mk_fast_inner_eth(struct mk_frame *f, __u32 off, __u32 *version)
{
	const __u8 *e = (const __u8 *)MK_FRAME_DATA(f) + off;
	__u16 type;

	if ((const void *)(e + MK_ETH_HLEN + 1) > MK_FRAME_END(f))
		return 0;
	type = mk_load16(e + 12);
	if (type == __builtin_bswap16(MK_ETH_P_IPV4))
		*version = 4;
	else if (type == __builtin_bswap16(MK_ETH_P_IPV6))
		*version = 6;
	else
		return 0;
	return off + MK_ETH_HLEN;
}

#ifdef __bpf__
/*
 * Zero, but a zero the verifier cannot know: a word of the program's .bss.
 * XOR-ed into the values that differ between the tunnel shapes, so that the
 * verifier walks the inner level and the rest of the program once, not once
 * per tunnel shape, outer family and VLAN tag (a load and an XOR at run
 * time). Not OR: the verifier keeps the bits a constant ORs in as known, so
 * each tunnel type and inner version stayed a state of its own (one more walk
 * of the rest of the program per type); after an XOR with an unknown word no
 * bit is known.
 */
extern volatile __u32 mk_verifier_zero;
#define MK_VERIFIER_FORGET(x) ((x) ^ mk_verifier_zero)
#else
#define MK_VERIFIER_FORGET(x) (x)
#endif

/*
 * The first tunnel header as the fast tunnel level reads it: what the steps
 * below find, one field at a time, and the inner level then takes.
 */
struct mk_fast_hop {
	__u32 inner;   /* the inner IP header; 0 while not known */
	__u32 mac;     /* the inner Ethernet header when the tunnel carries one, else 0 */
	__u32 id;      /* the tunnel id, as struct mk_parse's */
	__u32 version; /* the inner IP version the tunnel announces; 0: GTP-U, by the nibble */
	__u8 type;     /* enum mk_tunnel_type */
};

/*
 * Each step below reads one tunnel header's usual shape at @off (@h is the
 * frame at @off: the UDP header for the UDP tunnels) into @t and returns 1,
 * or returns 0 for any other shape: the tunnel level then goes the general
 * way (MK_FAST_TUNNEL).
 */

/* GTP-U: version 1, GTP, no optional fields; G-PDU. */
MK_INLINE int mk_fast_gtpu(struct mk_frame *f, const __u8 *h, __u32 off, struct mk_fast_hop *t)
{
	if ((const void *)(h + 16 + 1) > MK_FRAME_END(f) || h[8] != 0x30 || h[9] != 0xff)
		return 0;
	t->id = mk_rd32(h + 12);
	t->inner = off + 16;
	t->type = MK_TUNNEL_GTPU;
	return 1;
}

/* L2TPv2 data, no L, S or O fields; PPP ff 03, a 2-byte protocol. */
MK_INLINE int mk_fast_l2tpv2(struct mk_frame *f, const __u8 *h, __u32 off, struct mk_fast_hop *t)
{
	if ((const void *)(h + 18 + 1) > MK_FRAME_END(f) || (h[8] & 0xcb) || (h[9] & 0x0f) != 2 ||
	    h[14] != 0xff || h[15] != 0x03 || h[16] || (h[17] != 0x21 && h[17] != 0x57))
		return 0;
	t->version = h[17] == 0x21 ? 4 : 6;
	t->id = mk_rd32(h + 10);
	t->inner = off + 18;
	t->type = MK_TUNNEL_L2TPV2;
	return 1;
}

/* VXLAN with a valid VNI, then Ethernet. */
MK_INLINE int mk_fast_vxlan(struct mk_frame *f, const __u8 *h, __u32 off, struct mk_fast_hop *t)
{
	if ((const void *)(h + 16) > MK_FRAME_END(f) || !(h[8] & 0x08))
		return 0;
	t->id = mk_rd32(h + 12) >> 8;
	t->mac = off + 16;
	t->type = MK_TUNNEL_VXLAN;
	return 1;
}

/* Geneve version 0, options skipped by their length, then Ethernet, IPv4 or IPv6. */
MK_INLINE int mk_fast_geneve(struct mk_frame *f, const __u8 *h, __u32 off, struct mk_fast_hop *t)
{
	__u16 proto;

	if ((const void *)(h + 16) > MK_FRAME_END(f) || (h[8] >> 6))
		return 0;
	proto = mk_load16(h + 10);
	t->id = mk_rd32(h + 12) >> 8;
	t->inner = off + 16 + (h[8] & 0x3f) * 4;
	t->type = MK_TUNNEL_GENEVE;
	if (proto == __builtin_bswap16(MK_ETH_P_TEB)) {
		t->mac = t->inner;
		t->inner = 0;
	} else if (proto == __builtin_bswap16(MK_ETH_P_IPV4)) {
		t->version = 4;
	} else if (proto == __builtin_bswap16(MK_ETH_P_IPV6)) {
		t->version = 6;
	} else {
		return 0;
	}
	return 1;
}

/* The UDP tunnels: the ports decide, in mk_udp_ports_kind()'s order. */
MK_INLINE int mk_fast_udp_tunnel(struct mk_frame *f, const struct mk_parse_cfg *cfg,
				 const struct mk_parse *p, const __u8 *h, __u32 off,
				 struct mk_fast_hop *t)
{
	switch (mk_udp_tunnel_kind(&p->l3, cfg)) {
	case MK_TUN_GTPU:
		return mk_fast_gtpu(f, h, off, t);
	case MK_TUN_L2TP:
		return mk_fast_l2tpv2(f, h, off, t);
	case MK_TUN_VXLAN:
		return mk_fast_vxlan(f, h, off, t);
	case MK_TUN_GENEVE:
		return mk_fast_geneve(f, h, off, t);
	default:
		return 0;
	}
}

/* L2TPv3 over IP: a data session, the configured cookie and sublayer, then Ethernet. */
MK_INLINE int mk_fast_l2tpv3_ip(struct mk_frame *f, const struct mk_parse_cfg *cfg, const __u8 *h,
				__u32 off, struct mk_fast_hop *t)
{
	if ((const void *)(h + 4) > MK_FRAME_END(f))
		return 0;
	t->id = mk_rd32(h);
	if (!t->id)
		return 0;
	t->mac = off + 4 + (cfg->l2tpv3_cookie_len & 0x0c) +
		 (cfg->l2tpv3_l2spec == MK_L2SPEC_DEFAULT ? 4 : 0);
	t->type = MK_TUNNEL_L2TPV3_IP;
	return 1;
}

/*
 * ERSPAN II or III (GRE @proto): GRE with a sequence number only (II has one
 * by definition), the version the type names, type III framing Ethernet (FT
 * 0), its platform subheader skipped when O is set, as mk_parse_erspan().
 */
MK_INLINE int mk_fast_erspan(struct mk_frame *f, const struct mk_parse_cfg *cfg, const __u8 *h,
			     __u32 off, __u16 proto, struct mk_fast_hop *t)
{
	if ((const void *)(h + 20) > MK_FRAME_END(f) || h[0] != 0x10 || h[1] ||
	    !mk_tunnel_on(cfg, MK_TUN_ERSPAN))
		return 0;
	t->id = mk_rd16(h + 10) & 0x3ff;
	t->type = MK_TUNNEL_ERSPAN;
	if (proto == __builtin_bswap16(MK_ETH_P_ERSPAN)) {
		if ((h[8] >> 4) != 1)
			return 0;
		t->mac = off + 16;
	} else {
		if ((h[8] >> 4) != 2 || (h[18] & 0x7c))
			return 0;
		t->mac = off + ((h[19] & 1) ? 28 : 20);
	}
	return 1;
}

/*
 * GRE version 0 without checksum or routing, maybe with a key (the tunnel
 * id) and a sequence number, carrying Ethernet, IPv4 or IPv6; or ERSPAN.
 */
MK_INLINE int mk_fast_gre(struct mk_frame *f, const struct mk_parse_cfg *cfg, const __u8 *h,
			  __u32 off, struct mk_fast_hop *t)
{
	__u32 hlen;
	__u16 proto;

	if ((const void *)(h + 4) > MK_FRAME_END(f))
		return 0;
	proto = mk_load16(h + 2);
	if (proto == __builtin_bswap16(MK_ETH_P_ERSPAN) ||
	    proto == __builtin_bswap16(MK_ETH_P_ERSPAN3))
		return mk_fast_erspan(f, cfg, h, off, proto, t);
	if ((h[0] & ~0x30) || h[1] || !mk_tunnel_on(cfg, MK_TUN_GRE))
		return 0;
	hlen = 4;
	if (h[0] & 0x20) {
		if ((const void *)(h + 8) > MK_FRAME_END(f))
			return 0;
		t->id = mk_rd32(h + 4);
		hlen = 8;
	}
	if (h[0] & 0x10)
		hlen += 4;
	t->type = MK_TUNNEL_GRE;
	if (proto == __builtin_bswap16(MK_ETH_P_TEB))
		t->mac = off + hlen;
	else if (proto == __builtin_bswap16(MK_ETH_P_IPV4))
		t->version = 4;
	else if (proto == __builtin_bswap16(MK_ETH_P_IPV6))
		t->version = 6;
	else
		return 0;
	if (!t->mac)
		t->inner = off + hlen;
	return 1;
}

/* The tunnel header of the outer level in @p, by its protocol. */
MK_INLINE int mk_fast_tunnel_header(struct mk_frame *f, const struct mk_parse_cfg *cfg,
				    const struct mk_parse *p, const __u8 *h, __u32 off,
				    struct mk_fast_hop *t)
{
	switch (p->l3.proto) {
	case MK_IPPROTO_UDP:
		return mk_fast_udp_tunnel(f, cfg, p, h, off, t);
	case MK_IPPROTO_L2TP:
		return mk_fast_l2tpv3_ip(f, cfg, h, off, t);
	case MK_IPPROTO_GRE:
		return mk_fast_gre(f, cfg, h, off, t);
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		/* the protocol number names the inner header, as an ethertype would */
		t->version = p->l3.proto == MK_IPPROTO_IPIP ? 4 : 6;
		t->inner = off;
		t->type = MK_TUNNEL_IPIP;
		return 1;
	default:
		return 0;
	}
}

/*
 * Where the inner IP header starts (t->inner, behind the inner Ethernet
 * header when there is one), with what differs between the tunnel shapes
 * forgotten by the verifier from here on; 1 when that header is there and of
 * the version the tunnel announced (the general parser calls any other a
 * malformed frame, and reports it), else 0.
 */
MK_INLINE int mk_fast_tunnel_inner_ip(struct mk_frame *f, struct mk_fast_hop *t)
{
	const __u8 *ip;

	if (t->mac) {
		if (t->mac > MK_PARSE_MAX_OFF)
			return 0;
		t->inner = mk_fast_inner_eth(f, t->mac, &t->version);
	}
	t->inner = MK_VERIFIER_FORGET(t->inner);
	t->mac = MK_VERIFIER_FORGET(t->mac);
	t->type = (__u8)MK_VERIFIER_FORGET(t->type);
	t->version = MK_VERIFIER_FORGET(t->version);
	if (!t->inner || t->inner > MK_PARSE_MAX_OFF || t->mac > MK_PARSE_MAX_OFF ||
	    t->type >= MK_TUNNEL_TYPE_MAX)
		return 0;
	ip = (const __u8 *)MK_FRAME_DATA(f) + t->inner;
	if ((const void *)(ip + 1) > MK_FRAME_END(f))
		return 0;
	if (t->version && (ip[0] >> 4) != t->version)
		return 0;
	return 1;
}

/* The tunnel in @p, as mk_tunnel_level() records it, once the inner level is a flow. */
MK_INLINE void mk_fast_tunnel_record(struct mk_parse *p, const struct mk_fast_hop *t, __u32 ctx,
				     const __u32 osrc[4], const __u32 odst[4], __u32 family)
{
	p->tunnel_ctx = ctx;
	mk_memcpy(p->outer_src, osrc, sizeof(p->outer_src));
	mk_memcpy(p->outer_dst, odst, sizeof(p->outer_dst));
	p->outer_family = (__u8)family;
	p->tunnel_id = t->id;
	p->tunnel_type = t->type;
	p->tunnel_mask = 1 << t->type;
	p->tunnel_depth = 1;
	p->mac_off = (__u16)t->mac;
	p->flags |= MK_META_F_TUNNEL;
}

/*
 * The inner level at @ip through the fast path, with the tunnel context of
 * @t and the outer level in @p, which it overwrites; the enum
 * mk_parse_fast_tunnel() returns.
 */
MK_INLINE int mk_fast_tunnel_inner_level(struct mk_frame *f, const struct mk_parse_cfg *cfg,
					 const struct mk_hash_key *hk, struct mk_parse *p,
					 const __u8 *ip, const struct mk_fast_hop *t, __u32 osrc[4],
					 __u32 odst[4])
{
	__u32 ctx, family;
	__u16 vlan;
	int kind;

	/* mk_tunnel_level() on the outer level in @p, before the inner level overwrites it */
	family = p->l3.family;
	ctx = mk_tunnel_ctx(p->tunnel_ctx, t->type, family, p->l3.src, p->l3.dst);
	mk_memcpy(osrc, p->l3.src, sizeof(p->l3.src));
	mk_memcpy(odst, p->l3.dst, sizeof(p->l3.dst));
	vlan = p->vlan[0];
	if ((ip[0] >> 4) == 4)
		kind = mk_parse_fast_v4(f, cfg, hk, p, ip, t->inner, vlan, ctx);
	else if ((ip[0] >> 4) == 6)
		kind = mk_parse_fast_v6(f, cfg, hk, p, ip, t->inner, vlan, ctx);
	else
		return MK_FAST_TUNNEL;
	if (kind == MK_FAST_NO)
		return MK_FAST_TUNNEL;
	/*
	 * A tunnel in the tunnel (rare) starts over in the general parser: @p
	 * now holds the inner level, and going on from it here would make the
	 * verifier walk the deeper levels once more for every fast tunnel shape.
	 */
	if (kind == MK_FAST_TUNNEL)
		return MK_FAST_NO;
	mk_fast_tunnel_record(p, t, ctx, osrc, odst, family);
	return MK_FAST_FLOW;
}

/*
 * The fast path through a first tunnel level, after mk_parse_fast() said
 * MK_FAST_TUNNEL: the usual shape of each tunnel header (GTP-U G-PDU without
 * optional fields; L2TPv2 data without length, sequence or offset fields,
 * PPP with address and control; L2TPv3 over IP; VXLAN; Geneve; GRE without
 * checksum or routing, with or without key and sequence number; ERSPAN II
 * and III over GRE with a sequence number; IP-in-IP) carrying a fast-path
 * packet, untagged Ethernet around it where the tunnel carries Ethernet, in a
 * straight line, without the call the tunnel level costs in BPF (a global
 * subprogram). Returns MK_FAST_FLOW with @p as the general parser leaves it,
 * MK_FAST_NO when the inner level may be a tunnel too (the general parser
 * starts over), or MK_FAST_TUNNEL with @p untouched for every other shape
 * (go on from level 0).
 */
MK_INLINE int mk_parse_fast_tunnel(struct mk_frame *f, const struct mk_parse_cfg *cfg,
				   const struct mk_hash_key *hk, struct mk_parse *p)
{
	const __u8 *d = (const __u8 *)MK_FRAME_DATA(f);
	struct mk_fast_hop t = { 0 };
	/*
	 * The outer addresses are kept here, not in the inner level's step: held
	 * for the whole level, their stack slots are not shared with other
	 * values, which the verifier would otherwise walk as more states (31,000
	 * more instructions when they lived in mk_fast_tunnel_inner_level()).
	 */
	__u32 osrc[4], odst[4];
	__u32 off = p->l3.l4_off;

	off = MK_VERIFIER_FORGET(off);
	if (!cfg->tunnel_depth || (cfg->parse_flags & MK_PARSE_F_NO_FAST_TUNNEL) ||
	    off > MK_PARSE_MAX_OFF)
		return MK_FAST_TUNNEL;
	if (!mk_fast_tunnel_header(f, cfg, p, d + off, off, &t) || !mk_fast_tunnel_inner_ip(f, &t))
		return MK_FAST_TUNNEL;
	return mk_fast_tunnel_inner_level(f, cfg, hk, p, d + t.inner, &t, osrc, odst);
}

#endif /* MK_PARSE_FAST_TUNNEL_H */
