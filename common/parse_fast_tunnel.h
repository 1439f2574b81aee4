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
	const __u8 *d = (const __u8 *)MK_FRAME_DATA(f), *h, *ip;
	__u32 off = p->l3.l4_off, inner = 0, mac = 0, id = 0, ctx, osrc[4], odst[4], family;
	__u32 version = 0; /* the inner IP version the tunnel announces; 0: GTP-U, by the nibble */
	__u32 hlen;
	__u16 vlan, proto;
	__u8 type;
	int kind;

	off = MK_VERIFIER_FORGET(off);
	if (!cfg->tunnel_depth || (cfg->parse_flags & MK_PARSE_F_NO_FAST_TUNNEL) ||
	    off > MK_PARSE_MAX_OFF)
		return MK_FAST_TUNNEL;
	h = d + off;
	switch (p->l3.proto) {
	case MK_IPPROTO_UDP:
		/* the ports decide in mk_udp_ports_kind()'s order */
		switch (mk_udp_tunnel_kind(&p->l3, cfg)) {
		case MK_TUN_GTPU:
			/* version 1, GTP, no optional fields; G-PDU */
			if ((const void *)(h + 16 + 1) > MK_FRAME_END(f) || h[8] != 0x30 ||
			    h[9] != 0xff)
				return MK_FAST_TUNNEL;
			id = mk_rd32(h + 12);
			inner = off + 16;
			type = MK_TUNNEL_GTPU;
			break;
		case MK_TUN_L2TP:
			/* L2TPv2 data, no L, S or O fields; PPP ff 03, a 2-byte protocol */
			if ((const void *)(h + 18 + 1) > MK_FRAME_END(f) || (h[8] & 0xcb) ||
			    (h[9] & 0x0f) != 2 || h[14] != 0xff || h[15] != 0x03 || h[16] ||
			    (h[17] != 0x21 && h[17] != 0x57))
				return MK_FAST_TUNNEL;
			version = h[17] == 0x21 ? 4 : 6;
			id = mk_rd32(h + 10);
			inner = off + 18;
			type = MK_TUNNEL_L2TPV2;
			break;
		case MK_TUN_VXLAN:
			if ((const void *)(h + 16) > MK_FRAME_END(f) || !(h[8] & 0x08))
				return MK_FAST_TUNNEL;
			id = mk_rd32(h + 12) >> 8;
			mac = off + 16;
			type = MK_TUNNEL_VXLAN;
			break;
		case MK_TUN_GENEVE:
			/* version 0, options skipped by their length */
			if ((const void *)(h + 16) > MK_FRAME_END(f) || (h[8] >> 6))
				return MK_FAST_TUNNEL;
			proto = mk_load16(h + 10);
			id = mk_rd32(h + 12) >> 8;
			inner = off + 16 + (h[8] & 0x3f) * 4;
			type = MK_TUNNEL_GENEVE;
			if (proto == __builtin_bswap16(MK_ETH_P_TEB)) {
				mac = inner;
				inner = 0;
			} else if (proto == __builtin_bswap16(MK_ETH_P_IPV4)) {
				version = 4;
			} else if (proto == __builtin_bswap16(MK_ETH_P_IPV6)) {
				version = 6;
			} else {
				return MK_FAST_TUNNEL;
			}
			break;
		default:
			return MK_FAST_TUNNEL;
		}
		break;
	case MK_IPPROTO_L2TP:
		/* L2TPv3 over IP: a data session, the configured cookie and sublayer */
		if ((const void *)(h + 4) > MK_FRAME_END(f))
			return MK_FAST_TUNNEL;
		id = mk_rd32(h);
		if (!id)
			return MK_FAST_TUNNEL;
		mac = off + 4 + (cfg->l2tpv3_cookie_len & 0x0c) +
		      (cfg->l2tpv3_l2spec == MK_L2SPEC_DEFAULT ? 4 : 0);
		type = MK_TUNNEL_L2TPV3_IP;
		break;
	case MK_IPPROTO_GRE:
		if ((const void *)(h + 4) > MK_FRAME_END(f))
			return MK_FAST_TUNNEL;
		proto = mk_load16(h + 2);
		if (proto == __builtin_bswap16(MK_ETH_P_ERSPAN) ||
		    proto == __builtin_bswap16(MK_ETH_P_ERSPAN3)) {
			/*
			 * ERSPAN II or III: GRE with a sequence number only (II
			 * has one by definition), the version the type names,
			 * type III framing Ethernet (FT 0), its platform
			 * subheader skipped when O is set, as mk_parse_erspan()
			 */
			if ((const void *)(h + 20) > MK_FRAME_END(f) || h[0] != 0x10 || h[1] ||
			    !mk_tunnel_on(cfg, MK_TUN_ERSPAN))
				return MK_FAST_TUNNEL;
			id = mk_rd16(h + 10) & 0x3ff;
			type = MK_TUNNEL_ERSPAN;
			if (proto == __builtin_bswap16(MK_ETH_P_ERSPAN)) {
				if ((h[8] >> 4) != 1)
					return MK_FAST_TUNNEL;
				mac = off + 16;
			} else {
				if ((h[8] >> 4) != 2 || (h[18] & 0x7c))
					return MK_FAST_TUNNEL;
				mac = off + ((h[19] & 1) ? 28 : 20);
			}
			break;
		}
		/* version 0, no checksum or routing; maybe a key (the tunnel id), a sequence number */
		if ((h[0] & ~0x30) || h[1] || !mk_tunnel_on(cfg, MK_TUN_GRE))
			return MK_FAST_TUNNEL;
		hlen = 4;
		if (h[0] & 0x20) {
			if ((const void *)(h + 8) > MK_FRAME_END(f))
				return MK_FAST_TUNNEL;
			id = mk_rd32(h + 4);
			hlen = 8;
		}
		if (h[0] & 0x10)
			hlen += 4;
		type = MK_TUNNEL_GRE;
		if (proto == __builtin_bswap16(MK_ETH_P_TEB))
			mac = off + hlen;
		else if (proto == __builtin_bswap16(MK_ETH_P_IPV4))
			version = 4;
		else if (proto == __builtin_bswap16(MK_ETH_P_IPV6))
			version = 6;
		else
			return MK_FAST_TUNNEL;
		if (!mac)
			inner = off + hlen;
		break;
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		/* the protocol number names the inner header, as an ethertype would */
		version = p->l3.proto == MK_IPPROTO_IPIP ? 4 : 6;
		inner = off;
		type = MK_TUNNEL_IPIP;
		break;
	default:
		return MK_FAST_TUNNEL;
	}
	if (mac) {
		if (mac > MK_PARSE_MAX_OFF)
			return MK_FAST_TUNNEL;
		inner = mk_fast_inner_eth(f, mac, &version);
	}
	inner = MK_VERIFIER_FORGET(inner);
	mac = MK_VERIFIER_FORGET(mac);
	type = (__u8)MK_VERIFIER_FORGET(type);
	version = MK_VERIFIER_FORGET(version);
	if (!inner || inner > MK_PARSE_MAX_OFF || mac > MK_PARSE_MAX_OFF ||
	    type >= MK_TUNNEL_TYPE_MAX)
		return MK_FAST_TUNNEL;
	ip = d + inner;
	if ((const void *)(ip + 1) > MK_FRAME_END(f))
		return MK_FAST_TUNNEL;
	/*
	 * The inner version must be the one the tunnel announced: the general
	 * parser calls any other a malformed frame, and reports it.
	 */
	if (version && (ip[0] >> 4) != version)
		return MK_FAST_TUNNEL;
	/* mk_tunnel_level() on the outer level in @p, before the inner level overwrites it */
	family = p->l3.family;
	ctx = mk_tunnel_ctx(p->tunnel_ctx, type, family, p->l3.src, p->l3.dst);
	mk_memcpy(osrc, p->l3.src, sizeof(osrc));
	mk_memcpy(odst, p->l3.dst, sizeof(odst));
	vlan = p->vlan[0];
	if ((ip[0] >> 4) == 4)
		kind = mk_parse_fast_v4(f, cfg, hk, p, ip, inner, vlan, ctx);
	else if ((ip[0] >> 4) == 6)
		kind = mk_parse_fast_v6(f, cfg, hk, p, ip, inner, vlan, ctx);
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
	p->tunnel_ctx = ctx;
	mk_memcpy(p->outer_src, osrc, sizeof(osrc));
	mk_memcpy(p->outer_dst, odst, sizeof(odst));
	p->outer_family = (__u8)family;
	p->tunnel_id = id;
	p->tunnel_type = type;
	p->tunnel_mask = 1 << type;
	p->tunnel_depth = 1;
	p->mac_off = (__u16)mac;
	p->flags |= MK_META_F_TUNNEL;
	return MK_FAST_FLOW;
}

#endif /* MK_PARSE_FAST_TUNNEL_H */
