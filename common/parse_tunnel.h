/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The general parser's tunnel decoders (GTP-U, L2TPv2, L2TPv3, VXLAN,
 * Geneve, GRE and ERSPAN, IP-in-IP) and the tunnel level: one tunnel
 * stripped, recorded in the parse result, and its inner IP level parsed.
 */
#ifndef MK_PARSE_TUNNEL_H
#define MK_PARSE_TUNNEL_H

#include "hash.h"
#include "parse_l2.h"
#include "parse_l4.h"

/* What a tunnel header at the current level leads to. */
struct mk_tunnel_hop {
	__u32 inner_off; /* first byte of the inner IP packet */
	__u32 mac_off;	 /* inner Ethernet header, when inner_eth */
	__u32 tunnel_id;
	__u16 ethertype; /* of the inner IP packet */
	__u8 type;	 /* enum mk_tunnel_type, NONE when this level is not a tunnel */
	__u8 inner_eth;	 /* the tunnel carries Ethernet: mac_off is its header */
};

MK_INLINE int mk_tunnel_on(const struct mk_parse_cfg *cfg, __u32 kind)
{
	return !(cfg->tunnel_off & kind);
}

/*
 * The UDP tunnel the ports of @l3 announce, as an enum mk_tunnel_kind bit, or
 * 0. Destination ports decide first: a VXLAN or Geneve sender picks its
 * source port for entropy, and may pick 2152 or 1701.
 */
MK_INLINE __u32 mk_udp_ports_kind(__u16 sport_be, __u16 dport_be, const struct mk_parse_cfg *cfg)
{
	__u16 vxlan = cfg->vxlan_port ? cfg->vxlan_port : MK_VXLAN_PORT_DEFAULT;
	__u16 geneve = cfg->geneve_port ? cfg->geneve_port : MK_GENEVE_PORT_DEFAULT;
	__u16 dport = __builtin_bswap16(dport_be), sport = __builtin_bswap16(sport_be);
	__u32 kind = 0;

	if (dport == MK_GTPU_PORT)
		kind = MK_TUN_GTPU;
	else if (dport == MK_L2TP_PORT)
		kind = MK_TUN_L2TP;
	else if (dport == vxlan)
		kind = MK_TUN_VXLAN;
	else if (dport == geneve)
		kind = MK_TUN_GENEVE;
	else if (sport == MK_GTPU_PORT)
		kind = MK_TUN_GTPU;
	else if (sport == MK_L2TP_PORT)
		kind = MK_TUN_L2TP;
	return kind & ~(__u32)cfg->tunnel_off;
}

MK_INLINE __u32 mk_udp_tunnel_kind(const struct mk_l3 *l3, const struct mk_parse_cfg *cfg)
{
	return mk_udp_ports_kind(l3->sport, l3->dport, cfg);
}

/* GTP-U v1 G-PDU (TS 29.281) at off: flags, type, length, TEID, optional fields, extensions. */
MK_INLINE int mk_parse_gtpu(struct mk_frame *f, __u32 off, struct mk_tunnel_hop *t,
			    struct mk_parse *p)
{
	const __u8 *h;
	__u8 next = 0;
	int i;

	MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_TUNNEL);
	/* version 1, protocol type GTP, message G-PDU; anything else is plain UDP */
	if ((h[0] >> 5) != 1 || !(h[0] & 0x10) || h[1] != 0xff)
		return MK_PARSE_IP;
	t->tunnel_id = mk_rd32(h + 4);
	if (h[0] & 0x07) {
		MK_PULL(h, f, off, 12, MK_REASON_ERR_TRUNC_TUNNEL);
		next = (h[0] & 0x04) ? h[11] : 0;
		MK_ADVANCE(off, 12);
	} else {
		MK_ADVANCE(off, 8);
	}
	for (i = 0; i < MK_GTP_EXT_MAX && next; i++) {
		__u32 len;

		MK_PULL(h, f, off, 1, MK_REASON_ERR_TRUNC_TUNNEL);
		len = (__u32)h[0] * 4;
		if (!len) {
			p->reason = MK_REASON_ERR_BAD_TUNNEL;
			return MK_PARSE_ERROR;
		}
		MK_ADVANCE(off, len);
		MK_PULL(h, f, off - 1, 1, MK_REASON_ERR_TRUNC_TUNNEL);
		next = h[0];
	}
	if (next) {
		p->reason = MK_REASON_ERR_BAD_TUNNEL;
		return MK_PARSE_ERROR;
	}
	MK_PULL(h, f, off, 1, MK_REASON_ERR_TRUNC_TUNNEL);
	if (!mk_ip_nibble_type(h, &t->ethertype))
		return MK_PARSE_IP; /* e.g. an Ethernet PDU session: not stripped */
	t->inner_off = off;
	t->type = MK_TUNNEL_GTPU;
	return MK_PARSE_IP;
}

/* L2TPv2 data message (RFC 2661) carrying PPP with IPv4 or IPv6. */
MK_INLINE int mk_parse_l2tpv2(struct mk_frame *f, __u32 off, struct mk_tunnel_hop *t,
			      struct mk_parse *p)
{
	const __u8 *h;
	__u8 flags;
	__u16 proto;

	MK_PULL(h, f, off, 2, MK_REASON_ERR_TRUNC_TUNNEL);
	flags = h[0];
	if (flags & 0x80)
		return MK_PARSE_IP; /* control message: stays plain UDP */
	MK_ADVANCE(off, (flags & 0x40) ? 4 : 2);
	MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_TUNNEL);
	t->tunnel_id = mk_rd32(h); /* tunnel id << 16 | session id */
	MK_ADVANCE(off, 4);
	if (flags & 0x08)
		MK_ADVANCE(off, 4); /* Ns, Nr */
	if (flags & 0x02) {
		__u32 pad;

		MK_PULL(h, f, off, 2, MK_REASON_ERR_TRUNC_TUNNEL);
		pad = mk_rd16(h);
		if (pad > MK_L2TP_OFFSET_MAX) {
			p->reason = MK_REASON_ERR_BAD_TUNNEL;
			return MK_PARSE_ERROR;
		}
		MK_ADVANCE(off, 2 + pad);
	}
	/* PPP: optional address/control 0xff03, then a 1- or 2-byte protocol */
	MK_PULL(h, f, off, 2, MK_REASON_ERR_TRUNC_TUNNEL);
	if (h[0] == 0xff && h[1] == 0x03)
		MK_ADVANCE(off, 2);
	MK_PULL(h, f, off, 1, MK_REASON_ERR_TRUNC_TUNNEL);
	if (h[0] & 1) {
		proto = h[0];
		MK_ADVANCE(off, 1);
	} else {
		MK_PULL(h, f, off, 2, MK_REASON_ERR_TRUNC_TUNNEL);
		proto = mk_rd16(h);
		MK_ADVANCE(off, 2);
	}
	if (proto == 0x21)
		t->ethertype = MK_ETH_P_IPV4;
	else if (proto == 0x57)
		t->ethertype = MK_ETH_P_IPV6;
	else
		return MK_PARSE_IP; /* LCP, IPCP, ...: PPP control, not stripped */
	t->inner_off = off;
	t->type = MK_TUNNEL_L2TPV2;
	return MK_PARSE_IP;
}

/*
 * The Ethernet frame a tunnel carries (L2TPv3 pseudowire, VXLAN, Geneve and
 * GRE bridging, ERSPAN), VLAN tags and all. Sets t->inner_eth only when it
 * holds IPv4 or IPv6: anything else (ARP, ...) leaves the tunnel in place.
 */
MK_INLINE int mk_parse_tunnel_eth(struct mk_frame *f, __u32 off, struct mk_tunnel_hop *t,
				  struct mk_parse *p)
{
	__u16 type;
	int ret;

	t->mac_off = off;
	ret = mk_parse_eth(f, &off, &type, NULL, p);
	if (ret != MK_PARSE_IP) {
		/* a short inner frame is a broken tunnel, not a broken frame */
		if (p->reason == MK_REASON_ERR_TRUNC_ETH || p->reason == MK_REASON_ERR_TRUNC_VLAN)
			p->reason = MK_REASON_ERR_TRUNC_TUNNEL;
		return ret;
	}
	if (type != MK_ETH_P_IPV4 && type != MK_ETH_P_IPV6)
		return MK_PARSE_IP;
	t->ethertype = type;
	t->inner_eth = 1;
	t->inner_off = off;
	return MK_PARSE_IP;
}

/*
 * L2TPv3 (RFC 3931) data session with an Ethernet pseudowire: at off is the
 * session id (over IP) or the 8-byte UDP header variant (udp != 0).
 */
MK_INLINE int mk_parse_l2tpv3(struct mk_frame *f, __u32 off, int udp,
			      const struct mk_parse_cfg *cfg, struct mk_tunnel_hop *t,
			      struct mk_parse *p)
{
	const __u8 *h;
	__u32 session;
	int ret;

	if (udp) {
		MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_TUNNEL);
		if (h[0] & 0x80)
			return MK_PARSE_IP; /* control message */
		session = mk_rd32(h + 4);
		MK_ADVANCE(off, 8);
	} else {
		MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_TUNNEL);
		session = mk_rd32(h);
		MK_ADVANCE(off, 4);
	}
	if (!session)
		return MK_PARSE_IP; /* session 0 is a control message */
	MK_ADVANCE(off, cfg->l2tpv3_cookie_len & 0x0c);
	if (cfg->l2tpv3_l2spec == MK_L2SPEC_DEFAULT)
		MK_ADVANCE(off, 4);
	ret = mk_parse_tunnel_eth(f, off, t, p);
	if (ret != MK_PARSE_IP || !t->inner_eth)
		return ret;
	t->tunnel_id = session;
	t->type = udp ? MK_TUNNEL_L2TPV3_UDP : MK_TUNNEL_L2TPV3_IP;
	return MK_PARSE_IP;
}

/* VXLAN (RFC 7348): 8 bytes, I flag, 24-bit VNI, then Ethernet. */
MK_INLINE int mk_parse_vxlan(struct mk_frame *f, __u32 off, struct mk_tunnel_hop *t,
			     struct mk_parse *p)
{
	const __u8 *h;
	__u32 vni;
	int ret;

	MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_TUNNEL);
	if (!(h[0] & 0x08))
		return MK_PARSE_IP; /* no valid VNI: not a VXLAN frame we can name */
	vni = mk_rd32(h + 4) >> 8;
	MK_ADVANCE(off, 8);
	ret = mk_parse_tunnel_eth(f, off, t, p);
	if (ret != MK_PARSE_IP || !t->inner_eth)
		return ret;
	t->tunnel_id = vni;
	t->type = MK_TUNNEL_VXLAN;
	return MK_PARSE_IP;
}

/*
 * Geneve (RFC 8926): version 0, options skipped by their total length, then
 * Ethernet (0x6558) or IPv4/IPv6 by protocol type.
 */
MK_INLINE int mk_parse_geneve(struct mk_frame *f, __u32 off, struct mk_tunnel_hop *t,
			      struct mk_parse *p)
{
	const __u8 *h;
	__u32 vni, opt_len;
	__u16 proto;
	int ret;

	MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_TUNNEL);
	if (h[0] >> 6)
		return MK_PARSE_IP; /* a version we do not know */
	opt_len = (__u32)(h[0] & 0x3f) * 4;
	proto = mk_rd16(h + 2);
	vni = mk_rd32(h + 4) >> 8;
	MK_ADVANCE(off, 8);
	if (opt_len) {
		MK_ADVANCE(off, opt_len);
		MK_PULL(h, f, off, 0, MK_REASON_ERR_TRUNC_TUNNEL);
	}
	if (proto == MK_ETH_P_TEB) {
		ret = mk_parse_tunnel_eth(f, off, t, p);
		if (ret != MK_PARSE_IP || !t->inner_eth)
			return ret;
	} else if (proto == MK_ETH_P_IPV4 || proto == MK_ETH_P_IPV6) {
		t->ethertype = proto;
		t->inner_off = off;
	} else {
		return MK_PARSE_IP;
	}
	t->tunnel_id = vni;
	t->type = MK_TUNNEL_GENEVE;
	return MK_PARSE_IP;
}

/*
 * ERSPAN type II (8-byte header, version 1) or III (12 bytes, version 2, plus
 * an 8-byte platform subheader when O is set) at off; type I has no header
 * (type1 != 0). All three carry the mirrored Ethernet frame; type III may say
 * (frame type 2) that it carries an IP packet instead.
 */
MK_INLINE int mk_parse_erspan(struct mk_frame *f, __u32 off, __u16 proto, int type1,
			      struct mk_tunnel_hop *t, struct mk_parse *p)
{
	const __u8 *h;
	__u32 session = 0;
	__u16 w;
	int ret;

	if (proto == MK_ETH_P_ERSPAN3) {
		MK_PULL(h, f, off, 12, MK_REASON_ERR_TRUNC_TUNNEL);
		if ((h[0] >> 4) != 2)
			return MK_PARSE_IP;
		session = mk_rd16(h + 2) & 0x3ff;
		w = mk_rd16(h + 10); /* SGT, then P, FT(5), HW ID(6), D, Gra(2), O */
		MK_ADVANCE(off, (w & 1) ? 20 : 12);
		if (((w >> 10) & 0x1f) == 2) {
			MK_PULL(h, f, off, 1, MK_REASON_ERR_TRUNC_TUNNEL);
			if (!mk_ip_nibble_type(h, &t->ethertype))
				return MK_PARSE_IP;
			t->inner_off = off;
			goto out;
		}
		if ((w >> 10) & 0x1f)
			return MK_PARSE_IP; /* a frame type we do not know */
	} else if (!type1) {
		MK_PULL(h, f, off, 8, MK_REASON_ERR_TRUNC_TUNNEL);
		if ((h[0] >> 4) != 1)
			return MK_PARSE_IP;
		session = mk_rd16(h + 2) & 0x3ff;
		MK_ADVANCE(off, 8);
	}
	ret = mk_parse_tunnel_eth(f, off, t, p);
	if (ret != MK_PARSE_IP || !t->inner_eth)
		return ret;
out:
	t->tunnel_id = session;
	t->type = MK_TUNNEL_ERSPAN;
	return MK_PARSE_IP;
}

/*
 * GRE version 0 (RFC 2784, key and sequence number from RFC 2890) at off,
 * carrying IPv4, IPv6, Ethernet (0x6558) or ERSPAN. Source-routed GRE
 * (RFC 1701 R bit) and enhanced GRE (version 1, PPTP) are left in place.
 */
MK_INLINE int mk_parse_gre(struct mk_frame *f, __u32 off, const struct mk_parse_cfg *cfg,
			   struct mk_tunnel_hop *t, struct mk_parse *p)
{
	const __u8 *h;
	__u32 key = 0, hlen = 4;
	__u16 flags, proto;
	int ret;

	MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_TUNNEL);
	flags = mk_rd16(h);
	proto = mk_rd16(h + 2);
	if (flags & 0x4007)
		return MK_PARSE_IP;
	if (flags & 0x8000)
		hlen += 4; /* checksum and reserved1 */
	if (flags & 0x2000) {
		MK_PULL(h, f, off + hlen, 4, MK_REASON_ERR_TRUNC_TUNNEL);
		key = mk_rd32(h);
		hlen += 4;
	}
	if (flags & 0x1000)
		hlen += 4; /* sequence number */
	MK_ADVANCE(off, hlen);
	MK_PULL(h, f, off, 0, MK_REASON_ERR_TRUNC_TUNNEL);

	if (proto == MK_ETH_P_ERSPAN || proto == MK_ETH_P_ERSPAN3) {
		if (!mk_tunnel_on(cfg, MK_TUN_ERSPAN))
			return MK_PARSE_IP;
		/* type I is GRE without a sequence number, type II has one */
		return mk_parse_erspan(f, off, proto, !(flags & 0x1000), t, p);
	}
	if (!mk_tunnel_on(cfg, MK_TUN_GRE))
		return MK_PARSE_IP;
	if (proto == MK_ETH_P_TEB) {
		ret = mk_parse_tunnel_eth(f, off, t, p);
		if (ret != MK_PARSE_IP || !t->inner_eth)
			return ret;
	} else if (proto == MK_ETH_P_IPV4 || proto == MK_ETH_P_IPV6) {
		t->ethertype = proto;
		t->inner_off = off;
	} else {
		return MK_PARSE_IP; /* keepalives, WCCP, ...: a plain GRE flow */
	}
	t->tunnel_id = key;
	t->type = MK_TUNNEL_GRE;
	return MK_PARSE_IP;
}

/* Is the current level a tunnel we strip? t->type stays NONE when it is not. */
MK_INLINE int mk_parse_tunnel(struct mk_frame *f, const struct mk_l3 *l3,
			      const struct mk_parse_cfg *cfg, struct mk_tunnel_hop *t,
			      struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = l3->l4_off, kind;

	t->type = MK_TUNNEL_NONE;
	t->inner_eth = 0;
	t->tunnel_id = 0;
	if (l3->frag != MK_FRAG_NONE || !off)
		return MK_PARSE_IP;
	if (off > MK_PARSE_MAX_OFF) {
		p->reason = MK_REASON_ERR_HDR_TOO_LONG;
		return MK_PARSE_ERROR;
	}
	switch (l3->proto) {
	case MK_IPPROTO_UDP:
		break;
	case MK_IPPROTO_L2TP:
		if (!mk_tunnel_on(cfg, MK_TUN_L2TP))
			return MK_PARSE_IP;
		return mk_parse_l2tpv3(f, off, 0, cfg, t, p);
	case MK_IPPROTO_GRE:
		return mk_parse_gre(f, off, cfg, t, p);
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		if (!mk_tunnel_on(cfg, MK_TUN_IPIP))
			return MK_PARSE_IP;
		/* the protocol number names the inner header, as an ethertype would */
		t->ethertype = l3->proto == MK_IPPROTO_IPIP ? MK_ETH_P_IPV4 : MK_ETH_P_IPV6;
		t->inner_off = off;
		t->type = MK_TUNNEL_IPIP;
		return MK_PARSE_IP;
	default:
		return MK_PARSE_IP;
	}
	kind = mk_udp_tunnel_kind(l3, cfg);
	if (!kind)
		return MK_PARSE_IP;
	MK_ADVANCE(off, 8);
	switch (kind) {
	case MK_TUN_GTPU:
		return mk_parse_gtpu(f, off, t, p);
	case MK_TUN_L2TP:
		MK_PULL(h, f, off, 2, MK_REASON_ERR_TRUNC_TUNNEL);
		if ((h[1] & 0x0f) == 2)
			return mk_parse_l2tpv2(f, off, t, p);
		if ((h[1] & 0x0f) == 3)
			return mk_parse_l2tpv3(f, off, 1, cfg, t, p);
		return MK_PARSE_IP;
	case MK_TUN_VXLAN:
		return mk_parse_vxlan(f, off, t, p);
	case MK_TUN_GENEVE:
		return mk_parse_geneve(f, off, t, p);
	default:
		return MK_PARSE_IP;
	}
}

/*
 * Could the current level be a tunnel mk_parse_tunnel() strips? Asked inline
 * first because most frames are not tunnels, and in BPF the tunnel level is a
 * subprogram whose call and return cost more than the whole test (returns are
 * expensive under the kernel's return-stack mitigations).
 */
MK_INLINE int mk_may_be_tunnel(const struct mk_l3 *l3, const struct mk_parse_cfg *cfg)
{
	if (l3->frag != MK_FRAG_NONE || !l3->l4_off)
		return 0;
	if (l3->l4_off > MK_PARSE_MAX_OFF)
		return 1;
	switch (l3->proto) {
	case MK_IPPROTO_UDP:
		return mk_udp_tunnel_kind(l3, cfg) != 0;
	case MK_IPPROTO_L2TP:
		return mk_tunnel_on(cfg, MK_TUN_L2TP);
	case MK_IPPROTO_GRE:
		return (cfg->tunnel_off & (MK_TUN_GRE | MK_TUN_ERSPAN)) !=
		       (MK_TUN_GRE | MK_TUN_ERSPAN);
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		return mk_tunnel_on(cfg, MK_TUN_IPIP);
	default:
		return 0;
	}
}

enum mk_level_status {
	MK_LEVEL_LAST = 0,  /* p->l3 is the innermost level: the flow */
	MK_LEVEL_NEXT = 1,  /* a tunnel was stripped: p->l3 is its inner level, look again */
	MK_LEVEL_ERROR = 2, /* malformed: p->reason says why */
};

/*
 * One tunnel level: when p->l3 is a tunnel we strip and the configured depth
 * allows one more, records it in @p (context, id, outer addresses) and parses
 * the inner IP level into p->l3. A tunnel beyond the depth is only flagged,
 * and cannot make the frame malformed.
 */
MK_INLINE int mk_tunnel_level(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			      struct mk_parse *p)
{
	struct mk_tunnel_hop t;
	int ret;

	ret = mk_parse_tunnel(f, &p->l3, cfg, &t, p);
	if (ret != MK_PARSE_IP) {
		if (p->tunnel_depth < cfg->tunnel_depth)
			return MK_LEVEL_ERROR;
		p->reason = MK_REASON_NONE;
		return MK_LEVEL_LAST;
	}
	if (t.type == MK_TUNNEL_NONE)
		return MK_LEVEL_LAST;
	if (p->tunnel_depth >= cfg->tunnel_depth) {
		p->flags |= MK_META_F_DEPTH_EXCEEDED;
		return MK_LEVEL_LAST;
	}
	p->tunnel_ctx = mk_tunnel_ctx(p->tunnel_ctx, t.type, p->l3.family, p->l3.src, p->l3.dst);
	mk_memcpy(p->outer_src, p->l3.src, sizeof(p->outer_src));
	mk_memcpy(p->outer_dst, p->l3.dst, sizeof(p->outer_dst));
	p->outer_family = p->l3.family;
	p->tunnel_id = t.tunnel_id;
	p->tunnel_type = t.type;
	p->tunnel_mask |= 1 << t.type;
	p->tunnel_depth++;
	if (t.inner_eth)
		p->mac_off = (__u16)t.mac_off;
	ret = mk_parse_ip_level(f, t.inner_off, t.ethertype, &p->l3, p);
	return ret == MK_PARSE_IP ? MK_LEVEL_NEXT : MK_LEVEL_ERROR;
}

/*
 * The same as a global subprogram in BPF, for the second and deeper levels:
 * the verifier checks it once, not once per path through the level before.
 */
MK_SUBPROG int mk_parse_tunnel_level(struct mk_frame *f, const struct mk_parse_cfg *cfg,
				     struct mk_parse *p)
{
	if (!cfg || !p)
		return MK_LEVEL_ERROR;
	return mk_tunnel_level(f, cfg, p);
}

#endif /* MK_PARSE_TUNNEL_H */
