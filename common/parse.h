/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The frame parser, tunnel decapsulation plan, key builder and metadata
 * filler: plain C with a bounds check before every header read, compiled into
 * the XDP program and into user space. Offline mode therefore decapsulates and
 * hashes exactly as the driver does, and test/ proves both give the same bytes.
 *
 * Reading rules, so the BPF verifier can follow along:
 *  - the cursor is a scalar offset, checked against MK_PARSE_MAX_OFF after
 *    every variable-length skip, so it always has a known upper bound;
 *  - every read goes through MK_PULL with a constant length, which compares
 *    (data + off + len) with the end of the frame first;
 *  - every loop has a compile-time bound.
 */
#ifndef MK_PARSE_H
#define MK_PARSE_H

#include "compat.h"
#include "flow_key.h"
#include "hash.h"
#include "map_types.h"
#include "meta.h"
#include "stats.h"

#define MK_ETH_HLEN 14
#define MK_ETH_P_IPV4 0x0800
#define MK_ETH_P_IPV6 0x86dd
#define MK_ETH_P_8021Q 0x8100
#define MK_ETH_P_8021AD 0x88a8
#define MK_ETH_P_QINQ1 0x9100 /* pre-802.1ad QinQ outer tag, still sent by some switches */

#define MK_ETH_P_TEB 0x6558	/* transparent Ethernet bridging (GRE, Geneve) */
#define MK_ETH_P_ERSPAN 0x88be	/* ERSPAN types I and II over GRE */
#define MK_ETH_P_ERSPAN3 0x22eb /* ERSPAN type III over GRE */

#define MK_IPPROTO_ICMP 1
#define MK_IPPROTO_IPIP 4
#define MK_IPPROTO_TCP 6
#define MK_IPPROTO_UDP 17
#define MK_IPPROTO_IPV6 41
#define MK_IPPROTO_GRE 47
#define MK_IPPROTO_ICMPV6 58
#define MK_IPPROTO_SCTP 132
#define MK_IPPROTO_L2TP 115

#define MK_GTPU_PORT 2152
#define MK_L2TP_PORT 1701

#define MK_VLAN_MAX 2
#define MK_IPV6_EXT_MAX 8
#define MK_GTP_EXT_MAX 4
#define MK_L2TP_OFFSET_MAX 256
/* No header of a frame we parse starts beyond this offset. */
#define MK_PARSE_MAX_OFF 2048

/*
 * The frame being parsed. In BPF it is the program context, so that the
 * per-level parsers can be global subprograms, each verified once instead of
 * once per path through the tunnel loop; in user space it is a plain buffer.
 */
#ifdef __bpf__
#define mk_frame xdp_md
#define MK_FRAME_DATA(f) ((const void *)(long)(f)->data)
#define MK_FRAME_END(f) ((const void *)(long)(f)->data_end)
#define MK_SUBPROG __attribute__((noinline))
#else
struct mk_frame {
	const void *data;
	const void *data_end;
};
#define MK_FRAME_DATA(f) ((f)->data)
#define MK_FRAME_END(f) ((f)->data_end)
#define MK_SUBPROG static inline
#endif

enum mk_parse_status {
	MK_PARSE_IP = 0,     /* an IP flow: key, hash and offsets are valid */
	MK_PARSE_NON_IP = 1, /* not IP at the outermost level (ARP, LLDP, ...) */
	MK_PARSE_ERROR = 2,  /* malformed or truncated: reason says why */
};

enum mk_parse_start {
	MK_START_ETH = 0, /* frame starts with an Ethernet header */
	MK_START_IP = 1,  /* frame starts with an IPv4 or IPv6 header (raw IP) */
};

enum mk_frag_state {
	MK_FRAG_NONE = 0,
	MK_FRAG_FIRST = 1, /* offset 0, more fragments follow: L4 header present */
	MK_FRAG_LATER = 2, /* offset > 0: no L4 header */
};

/* One IP level (outer or inner): what the key and the tunnel check need. */
struct mk_l3 {
	__u32 src[4];
	__u32 dst[4];
	__u32 ip_len; /* total length the IP header claims; IPv6: up to 65535 + 40 */
	__u16 l3_off;
	__u16 l4_off; /* 0 when there is no L4 header to read (later fragment, unknown proto) */
	__u16 sport;  /* network byte order, as on the wire */
	__u16 dport;
	__u8 family; /* enum mk_family */
	__u8 proto;
	__u8 frag; /* enum mk_frag_state */
	__u8 truncated;
};

struct mk_parse {
	struct mk_flow_key key;
	struct mk_l3 l3; /* innermost IP level: the flow */
	__u32 hash;
	__u32 tunnel_ctx;   /* same as key.tunnel_ctx */
	__u32 tunnel_id;    /* innermost tunnel: TEID, L2TPv3 session, L2TPv2 tunnel<<16|session */
	__u32 outer_src[4]; /* innermost tunnel's outer addresses, as on the wire */
	__u32 outer_dst[4];
	__u16 vlan[2];	   /* VLAN ids of the outermost Ethernet header */
	__u16 flags;	   /* enum mk_meta_flags */
	__u16 mac_off;	   /* innermost Ethernet header: source of the delivered MACs */
	__u16 tunnel_mask; /* bit (1 << type) for every tunnel type stripped */
	__u8 tunnel_type;  /* innermost tunnel stripped */
	__u8 tunnel_depth; /* number of tunnels stripped */
	__u8 outer_family; /* family of outer_src/outer_dst */
	__u8 reason;	   /* enum mk_drop_reason when MK_PARSE_ERROR */
	__u8 pad[2];
} __attribute__((aligned(8))); /* zeroed a word at a time */

MK_INLINE __u16 mk_rd16(const __u8 *p)
{
	return (__u16)((p[0] << 8) | p[1]);
}

MK_INLINE __u32 mk_rd32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
}

/* Raw 16-bit load, network byte order kept: what the key stores. */
MK_INLINE __u16 mk_raw16(const __u8 *p)
{
	__u16 v;

	mk_memcpy(&v, p, 2);
	return v;
}

/*
 * h = frame data + off, after checking that len bytes are there; on failure the
 * enclosing function sets @reason and returns MK_PARSE_ERROR.
 */
#define MK_PULL(h, f, off, len, why)                               \
	do {                                                       \
		h = (const __u8 *)MK_FRAME_DATA(f) + (off);        \
		if ((const void *)(h + (len)) > MK_FRAME_END(f)) { \
			p->reason = (why);                         \
			return MK_PARSE_ERROR;                     \
		}                                                  \
	} while (0)

#define MK_ADVANCE(off, n)                                      \
	do {                                                    \
		(off) += (n);                                   \
		if ((off) > MK_PARSE_MAX_OFF) {                 \
			p->reason = MK_REASON_ERR_HDR_TOO_LONG; \
			return MK_PARSE_ERROR;                  \
		}                                               \
	} while (0)

/* The VLAN tag types Suricata decodes, accepted wherever a tag may appear. */
MK_INLINE int mk_is_vlan_tpid(__u16 type)
{
	return type == MK_ETH_P_8021Q || type == MK_ETH_P_8021AD || type == MK_ETH_P_QINQ1;
}

/*
 * Ethernet and up to two 802.1Q/802.1ad/0x9100 tags at *off, in any order.
 * Leaves *off at the L3 header and returns its ethertype in *ethertype.
 * VLAN ids are recorded only when @vlan is non-NULL (the outermost header).
 */
MK_INLINE int mk_parse_eth(struct mk_frame *f, __u32 *offp, __u16 *ethertype, __u16 *vlan,
			   struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = *offp;
	__u16 type;
	int i;

	MK_PULL(h, f, off, MK_ETH_HLEN, MK_REASON_ERR_TRUNC_ETH);
	type = mk_rd16(h + 12);
	MK_ADVANCE(off, MK_ETH_HLEN);
	for (i = 0; i < MK_VLAN_MAX; i++) {
		if (!mk_is_vlan_tpid(type))
			break;
		MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_VLAN);
		if (vlan)
			vlan[i] = mk_rd16(h) & 0x0fff;
		type = mk_rd16(h + 2);
		MK_ADVANCE(off, 4);
	}
	if (mk_is_vlan_tpid(type)) {
		p->reason = MK_REASON_ERR_VLAN_DEPTH;
		return MK_PARSE_ERROR;
	}
	*offp = off;
	*ethertype = type;
	return MK_PARSE_IP;
}

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

/* What a tunnel header at the current level leads to. */
struct mk_tunnel_hop {
	__u32 inner_off; /* first byte of the inner IP packet */
	__u32 mac_off;	 /* inner Ethernet header, when inner_eth */
	__u32 tunnel_id;
	__u16 ethertype; /* of the inner IP packet */
	__u8 type;	 /* enum mk_tunnel_type, NONE when this level is not a tunnel */
	__u8 inner_eth;	 /* the tunnel carries Ethernet: mac_off is its header */
};

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

/*
 * Flags, canonical key and hash of the innermost level, once p->l3 and the
 * tunnels are known; @hk is the NH key of the configured seed.
 */
MK_INLINE void mk_parse_finish(const struct mk_hash_key *hk, struct mk_parse *p)
{
	int rev;

	if (p->l3.frag != MK_FRAG_NONE)
		p->flags |= MK_META_F_FRAGMENT |
			    (p->l3.frag == MK_FRAG_FIRST ? MK_META_F_FIRST_FRAG : 0);
	if (p->tunnel_depth)
		p->flags |= MK_META_F_TUNNEL;
	if (p->l3.truncated)
		p->flags |= MK_META_F_TRUNCATED;
	if (p->l3.family == MK_FAMILY_IPV6)
		p->flags |= MK_META_F_IPV6;

	rev = mk_flow_key_set_endpoints(&p->key, p->l3.src, p->l3.sport, p->l3.dst, p->l3.dport);
	if (rev)
		p->flags |= MK_META_F_REVERSE;
	p->key.vlan[0] = p->vlan[0];
	p->key.vlan[1] = p->vlan[1];
	p->key.tunnel_ctx = p->tunnel_ctx;
	p->key.proto = p->l3.proto;
	p->key.family = p->l3.family;
	/* from the parts, not the key just stored (mk_key_word16) */
	p->hash = mk_flow_hash_from(rev ? p->l3.dst : p->l3.src, rev ? p->l3.src : p->l3.dst,
				    rev ? mk_key_word16(p->l3.dport, p->l3.sport) :
					  mk_key_word16(p->l3.sport, p->l3.dport),
				    mk_key_word16(p->vlan[0], p->vlan[1]), p->tunnel_ctx,
				    mk_key_word8(p->l3.proto, p->l3.family), p->l3.family, hk);
}

/* A 32-bit load at any alignment: one load in BPF (the JIT allows it), memcpy in C. */
MK_INLINE __u32 mk_load32(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u32 *)p;
#else
	__u32 v;

	memcpy(&v, p, 4);
	return v;
#endif
}

MK_INLINE __u64 mk_load64(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u64 *)p;
#else
	__u64 v;

	memcpy(&v, p, 8);
	return v;
#endif
}

MK_INLINE __u16 mk_load16(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u16 *)p;
#else
	__u16 v;

	memcpy(&v, p, 2);
	return v;
#endif
}

/* A 64-bit word of the parse result, stored whole (struct mk_parse is 8-byte aligned). */
typedef __u64 __attribute__((may_alias, aligned(8))) mk_word64;

/* Two 32-bit key words as one 64-bit word, @first at the lower address. */
MK_INLINE __u64 mk_key_dword(__u32 first, __u32 second)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u64)second << 32 | first;
#else
	return (__u64)first << 32 | second;
#endif
}

/* ... and back: the 32-bit words of a 64-bit load, in memory order. */
MK_INLINE __u32 mk_dw_first(__u64 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u32)x;
#else
	return (__u32)(x >> 32);
#endif
}

MK_INLINE __u32 mk_dw_second(__u64 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u32)(x >> 32);
#else
	return (__u32)x;
#endif
}

/* Is the address half @a above @b by mk_endpoint_cmp() (its first word, then its second)? */
MK_INLINE int mk_dw_above(__u64 a, __u64 b)
{
	return mk_dw_first(a) != mk_dw_first(b) ? mk_dw_first(a) > mk_dw_first(b) :
						  mk_dw_second(a) > mk_dw_second(b);
}

/*
 * The fast path's common tail: the level's fields as the general parser
 * leaves them for a plain IP level (mk_parse_ip_level), and the rest of @p
 * zeroed, except what the fast path writes whole: the key (mk_fast_key_tail()
 * and the address words; MK_FAST_TUNNEL zeroes it) and the level's addresses.
 * The outermost level zeroes (@ctx 0); an inner level finds @p zeroed by the
 * level around it, which wrote nothing the inner level does not overwrite
 * and the tunnel level does not set after it (mk_parse_fast_tunnel()).
 */
MK_INLINE void mk_fast_fill_l3(struct mk_parse *p, __u32 ip_len, __u32 l3_off, __u32 l4_off,
			       __u32 ports, __u8 proto, __u8 family, __u16 vlan, int truncated,
			       __u32 ctx)
{
	_Static_assert(__builtin_offsetof(struct mk_parse, l3) == sizeof(struct mk_flow_key) &&
			       __builtin_offsetof(struct mk_l3, ip_len) == 32,
		       "the key, then the level's addresses, lead struct mk_parse");
	if (!ctx)
		mk_memset(&p->l3.ip_len, 0, sizeof(*p) - sizeof(p->key) - 32);
	p->l3.ip_len = ip_len;
	p->l3.l3_off = (__u16)l3_off;
	p->l3.l4_off = (__u16)l4_off;
	p->l3.sport = (__u16)ports;
	p->l3.dport = (__u16)(ports >> 16);
	p->l3.family = family;
	p->l3.proto = proto;
	p->l3.truncated = (__u8)truncated;
	p->vlan[0] = vlan;
}

/*
 * The key's last two 64-bit words (ports, VLANs; tunnel context, protocol
 * and family), stored whole from the words the hash takes: a word load of
 * the key (the bypass table's compare, the hash map's jhash) then reads one
 * store, where field-by-field stores would make it wait (x86 forwards a store
 * to a load only when one store covers the load).
 */
MK_INLINE void mk_fast_key_tail(struct mk_parse *p, __u32 ports, __u32 vlans, __u32 ctx,
				__u32 proto_family)
{
	mk_word64 *k = (mk_word64 *)&p->key;

	k[4] = mk_key_dword(ports, vlans);
	k[5] = mk_key_dword(ctx, proto_family);
}

enum mk_fast_status {
	MK_FAST_NO = 0,	    /* not a fast-path frame: the general parser takes it */
	MK_FAST_FLOW = 1,   /* a plain flow: @p is complete */
	MK_FAST_TUNNEL = 2, /* a plain outer level that may be a tunnel: @p holds that level */
};

/* What the L4 header of a fast-path frame is (enum mk_fast_status), and its ports. */
MK_INLINE int mk_fast_l4(struct mk_frame *f, const __u8 *l4, __u8 proto,
			 const struct mk_parse_cfg *cfg, __u32 *ports)
{
	*ports = 0;
	switch (proto) {
	case MK_IPPROTO_TCP:
		if ((const void *)(l4 + 20) > MK_FRAME_END(f) || (l4[12] >> 4) < 5)
			return MK_FAST_NO;
		*ports = mk_load32(l4);
		return MK_FAST_FLOW;
	case MK_IPPROTO_UDP:
		if ((const void *)(l4 + 8) > MK_FRAME_END(f))
			return MK_FAST_NO;
		*ports = mk_load32(l4);
		/* as loaded: network byte order kept, as the key stores ports */
		return mk_udp_ports_kind((__u16)*ports, (__u16)(*ports >> 16), cfg) ?
			       MK_FAST_TUNNEL :
			       MK_FAST_FLOW;
	case MK_IPPROTO_L2TP:
		return mk_tunnel_on(cfg, MK_TUN_L2TP) ? MK_FAST_TUNNEL : MK_FAST_NO;
	case MK_IPPROTO_GRE:
		return (cfg->tunnel_off & (MK_TUN_GRE | MK_TUN_ERSPAN)) !=
				       (MK_TUN_GRE | MK_TUN_ERSPAN) ?
			       MK_FAST_TUNNEL :
			       MK_FAST_NO;
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		return mk_tunnel_on(cfg, MK_TUN_IPIP) ? MK_FAST_TUNNEL : MK_FAST_NO;
	default:
		return MK_FAST_NO;
	}
}

/*
 * One plain IPv4 level at @ip (@l3_off into the frame); @vlan and the tunnel
 * context @ctx of the levels around it (0: none, the outermost level) go into
 * the key.
 */
MK_INLINE int mk_parse_fast_v4(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			       const struct mk_hash_key *hk, struct mk_parse *p, const __u8 *ip,
			       __u32 l3_off, __u16 vlan, __u32 ctx)
{
	__u32 ip_len, ports, src, dst, lo, hi, vlans, pf;
	__u16 sport, dport;
	int rev, kind, truncated;
	mk_word64 *k;

	if ((const void *)(ip + 20 + 8) > MK_FRAME_END(f))
		return MK_FAST_NO;
	/* version 4, no options, neither a fragment nor more to come */
	if (ip[0] != 0x45 || (mk_load16(ip + 6) & __builtin_bswap16(0x3fff)))
		return MK_FAST_NO;
	ip_len = mk_rd16(ip + 2);
	if (ip_len < 20)
		return MK_FAST_NO;
	kind = mk_fast_l4(f, ip + 20, ip[9], cfg, &ports);
	if (kind == MK_FAST_NO)
		return MK_FAST_NO;
	src = mk_load32(ip + 12);
	dst = mk_load32(ip + 16);
	truncated = (const void *)(ip + ip_len) > MK_FRAME_END(f);
	mk_fast_fill_l3(p, ip_len, l3_off, l3_off + 20, ports, ip[9], MK_FAMILY_IPV4, vlan,
			truncated, ctx);
	k = (mk_word64 *)p->l3.src;
	k[0] = mk_key_dword(src, 0);
	k[1] = 0;
	k[2] = mk_key_dword(dst, 0);
	k[3] = 0;
	if (kind == MK_FAST_TUNNEL) {
		mk_memset(&p->key, 0, sizeof(p->key));
		return kind;
	}

	sport = (__u16)ports;
	dport = (__u16)(ports >> 16);
	/* mk_flow_key_set_endpoints() for one address word */
	rev = src > dst || (src == dst && __builtin_bswap16(sport) > __builtin_bswap16(dport));
	lo = rev ? dst : src;
	hi = rev ? src : dst;
	p->flags = (truncated ? MK_META_F_TRUNCATED : 0) | (rev ? MK_META_F_REVERSE : 0);
	if (rev)
		ports = mk_key_word16(dport, sport);
	k = (mk_word64 *)&p->key;
	k[0] = mk_key_dword(lo, 0);
	k[1] = 0;
	k[2] = mk_key_dword(hi, 0);
	k[3] = 0;
	vlans = mk_key_word16(vlan, 0);
	pf = mk_key_word8(ip[9], MK_FAMILY_IPV4);
	mk_fast_key_tail(p, ports, vlans, ctx, pf);
	p->hash = mk_flow_hash_v4_words(lo, hi, ports, vlans, ctx, pf, hk);
	return MK_FAST_FLOW;
}

MK_INLINE int mk_parse_fast_v6(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			       const struct mk_hash_key *hk, struct mk_parse *p, const __u8 *ip,
			       __u32 l3_off, __u16 vlan, __u32 ctx)
{
	__u32 ip_len, ports, vlans, pf;
	__u64 s01, s23, d01, d23, t;
	int kind, truncated, rev;
	mk_word64 *k;
	__u8 proto;

	if ((const void *)(ip + 40 + 8) > MK_FRAME_END(f) || (ip[0] >> 4) != 6)
		return MK_FAST_NO;
	proto = ip[6];
	kind = mk_fast_l4(f, ip + 40, proto, cfg, &ports);
	if (kind == MK_FAST_NO)
		return MK_FAST_NO;
	ip_len = (__u32)mk_rd16(ip + 4) + 40;
	truncated = (const void *)(ip + ip_len) > MK_FRAME_END(f);
	mk_fast_fill_l3(p, ip_len, l3_off, l3_off + 40, ports, proto, MK_FAMILY_IPV6, vlan,
			truncated, ctx);
	/*
	 * The addresses as four 64-bit words: half the registers of eight
	 * 32-bit words, which BPF's ten could not hold with the rest (the
	 * compiler spilled them to the stack and read them back).
	 */
	s01 = mk_load64(ip + 8);
	s23 = mk_load64(ip + 16);
	d01 = mk_load64(ip + 24);
	d23 = mk_load64(ip + 32);
	k = (mk_word64 *)p->l3.src;
	k[0] = s01;
	k[1] = s23;
	k[2] = d01;
	k[3] = d23;
	if (kind == MK_FAST_TUNNEL) {
		mk_memset(&p->key, 0, sizeof(p->key));
		return kind;
	}

	/*
	 * mk_flow_key_set_endpoints(): the first address word that differs
	 * decides, then the ports (as numbers); the lo side goes to s, the hi
	 * side to d.
	 */
	if (s01 != d01)
		rev = mk_dw_above(s01, d01);
	else if (s23 != d23)
		rev = mk_dw_above(s23, d23);
	else
		rev = __builtin_bswap16((__u16)ports) > __builtin_bswap16((__u16)(ports >> 16));
	if (rev) {
		t = s01, s01 = d01, d01 = t;
		t = s23, s23 = d23, d23 = t;
		ports = ports >> 16 | ports << 16;
	}
	p->flags = MK_META_F_IPV6 | (truncated ? MK_META_F_TRUNCATED : 0) |
		   (rev ? MK_META_F_REVERSE : 0);
	k = (mk_word64 *)&p->key;
	k[0] = s01;
	k[1] = s23;
	k[2] = d01;
	k[3] = d23;
	vlans = mk_key_word16(vlan, 0);
	pf = mk_key_word8(proto, MK_FAMILY_IPV6);
	mk_fast_key_tail(p, ports, vlans, ctx, pf);
	p->hash = mk_flow_hash_v6_words(mk_dw_first(s01), mk_dw_second(s01), mk_dw_first(s23),
					mk_dw_second(s23), mk_dw_first(d01), mk_dw_second(d01),
					mk_dw_first(d23), mk_dw_second(d23), ports, vlans, ctx, pf,
					hk);
	return MK_FAST_FLOW;
}

/*
 * The fast path: the frames most links carry (untagged or single-tagged
 * Ethernet, IPv4 without options or IPv6 without extension headers, not a
 * fragment, TCP or UDP on ports that are not a tunnel's) in a straight line
 * per family, with whole-word loads and every check made before @p is
 * written. Returns MK_FAST_FLOW with @p filled exactly as the general parser
 * fills it (test/unit and test/bpf compare both on every fixture). The same
 * outer headers around a tunnel (UDP on a tunnel port, GRE, IP-in-IP, L2TPv3)
 * give MK_FAST_TUNNEL with that level in @p, as the general parser has it
 * before its first tunnel level, so the tunnel levels go on from there.
 * Anything else is MK_FAST_NO: the general parser takes the frame from the
 * start.
 */
MK_INLINE int mk_parse_fast(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			    const struct mk_hash_key *hk, struct mk_parse *p)
{
	const __u8 *d = (const __u8 *)MK_FRAME_DATA(f);
	__u32 l3_off = MK_ETH_HLEN;
	__u16 type, vlan = 0;

	if ((const void *)(d + MK_ETH_HLEN + 4) > MK_FRAME_END(f))
		return MK_FAST_NO;
	type = mk_load16(d + 12);
	if (type == __builtin_bswap16(MK_ETH_P_8021Q) ||
	    type == __builtin_bswap16(MK_ETH_P_8021AD) ||
	    type == __builtin_bswap16(MK_ETH_P_QINQ1)) {
		vlan = mk_rd16(d + 14) & 0x0fff;
		type = mk_load16(d + 16);
		l3_off = MK_ETH_HLEN + 4;
	}
	if (type == __builtin_bswap16(MK_ETH_P_IPV4))
		return mk_parse_fast_v4(f, cfg, hk, p, d + l3_off, l3_off, vlan, 0);
	if (type == __builtin_bswap16(MK_ETH_P_IPV6))
		return mk_parse_fast_v6(f, cfg, hk, p, d + l3_off, l3_off, vlan, 0);
	return MK_FAST_NO;
}

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

/*
 * The general parser: every frame the fast path does not take, from the
 * start, up to and including the first tunnel level; mk_parse_frame() does
 * the deeper levels and the key. In BPF a global subprogram, so the verifier
 * checks it once and the rest of the program once after it, instead of once
 * per path through it: a frame off the fast path pays one call, and a frame
 * with one tunnel no more. Deeper levels are one call each, made by the
 * program itself so that no chain of calls exceeds the 512-byte stack.
 */
MK_SUBPROG int mk_parse_general(struct mk_frame *f, int start, const struct mk_parse_cfg *cfg,
				struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = 0;
	__u16 ethertype;
	int ret;

	if (!cfg || !p)
		return MK_PARSE_ERROR;
	mk_memset(p, 0, sizeof(*p));
	if (start == MK_START_ETH) {
		ret = mk_parse_eth(f, &off, &ethertype, p->vlan, p);
		if (ret != MK_PARSE_IP)
			return ret;
		if (ethertype != MK_ETH_P_IPV4 && ethertype != MK_ETH_P_IPV6)
			return MK_PARSE_NON_IP;
	} else {
		MK_PULL(h, f, off, 1, MK_REASON_ERR_TRUNC_IPV4);
		if (!mk_ip_nibble_type(h, &ethertype))
			return MK_PARSE_NON_IP;
	}
	ret = mk_parse_ip_level(f, off, ethertype, &p->l3, p);
	if (ret != MK_PARSE_IP)
		return ret;

	if (mk_may_be_tunnel(&p->l3, cfg) && mk_tunnel_level(f, cfg, p) == MK_LEVEL_ERROR)
		return MK_PARSE_ERROR;
	return MK_PARSE_IP;
}

/*
 * The tunnel levels from @level on (one call each), then the key. The depth
 * limit holds across any mix of tunnel types: one level per pass, for as
 * long as the level before was stripped.
 */
MK_INLINE int mk_parse_levels(struct mk_frame *f, __u32 first, const struct mk_parse_cfg *cfg,
			      const struct mk_hash_key *hk, struct mk_parse *p)
{
	__u32 level;
	int ret;

	for (level = first; level < MK_TUNNEL_DEPTH_MAX + 1 && p->tunnel_depth == level &&
			    mk_may_be_tunnel(&p->l3, cfg);
	     level++) {
		ret = mk_parse_tunnel_level(f, cfg, p);
		if (ret == MK_LEVEL_ERROR)
			return MK_PARSE_ERROR;
		if (ret != MK_LEVEL_NEXT)
			break;
	}
	mk_parse_finish(hk, p);
	return MK_PARSE_IP;
}

/* Everything but the fast path: the general parser, deeper tunnel levels, the key. */
MK_INLINE int mk_parse_frame_general(struct mk_frame *f, int start, const struct mk_parse_cfg *cfg,
				     const struct mk_hash_key *hk, struct mk_parse *p)
{
	int ret;

	ret = mk_parse_general(f, start, cfg, p);
	if (ret != MK_PARSE_IP)
		return ret;
	return mk_parse_levels(f, 1, cfg, hk, p);
}

#ifndef __bpf__
/*
 * Parses one frame: returns enum mk_parse_status and fills @p. On
 * MK_PARSE_IP, p->key is canonical, p->hash seeded, and the offsets point
 * into the frame as received (before decapsulation). Ethernet frames try
 * the fast path first. (The XDP program makes the same calls with the NH
 * key the loader expanded into its read-only data.)
 */
static inline int mk_parse_frame(struct mk_frame *f, int start, const struct mk_parse_cfg *cfg,
				 struct mk_parse *p)
{
	const struct mk_hash_key *hk = mk_hash_key_of(cfg->seed);
	int fast = MK_FAST_NO;

	if (start == MK_START_ETH && !(cfg->parse_flags & MK_PARSE_F_GENERAL_ONLY))
		fast = mk_parse_fast(f, cfg, hk, p);
	if (fast == MK_FAST_TUNNEL)
		fast = mk_parse_fast_tunnel(f, cfg, hk, p);
	if (fast == MK_FAST_FLOW)
		return MK_PARSE_IP;
	if (fast == MK_FAST_TUNNEL)
		return mk_parse_levels(f, 0, cfg, hk, p);
	return mk_parse_frame_general(f, start, cfg, hk, p);
}
#endif

/* Bytes to strip so the frame starts with an Ethernet header and the inner IP packet. */
MK_INLINE __u32 mk_decap_strip(const struct mk_parse *p)
{
	return p->tunnel_depth ? (__u32)p->l3.l3_off - MK_ETH_HLEN : 0;
}

/* Ethernet header of the decapsulated frame: the innermost MACs and the inner IP type. */
MK_INLINE void mk_decap_eth(__u8 hdr[MK_ETH_HLEN], const __u8 macs[12], const struct mk_parse *p)
{
	mk_memcpy(hdr, macs, 12);
	hdr[12] = p->l3.family == MK_FAMILY_IPV6 ? 0x86 : 0x08;
	hdr[13] = p->l3.family == MK_FAMILY_IPV6 ? 0xdd : 0x00;
}

MK_INLINE __u32 mk_fold_addr(const __u32 *a)
{
	return a[0] ^ a[1] ^ a[2] ^ a[3];
}

/*
 * The metadata for a parsed frame, with offsets as they are after
 * decapsulation; @stamp is mk_meta_stamp_of_ns() of the arrival, 0 unstamped.
 */
MK_INLINE void mk_meta_fill(struct mk_meta *m, const struct mk_parse *p, __u32 stamp)
{
	__u32 strip = mk_decap_strip(p);
	__u32 l3_off = p->l3.l3_off - strip;

	m->hash = p->hash;
	m->tunnel_ctx = p->tunnel_ctx;
	m->tunnel_id = p->tunnel_id;
	m->flags = (__u8)p->flags;
	if (p->outer_family == MK_FAMILY_IPV6) {
		m->outer_src = mk_fold_addr(p->outer_src);
		m->outer_dst = mk_fold_addr(p->outer_dst);
		m->flags |= MK_META_F_OUTER_V6;
	} else {
		m->outer_src = p->outer_src[0];
		m->outer_dst = p->outer_dst[0];
	}
	/* whole words, built in registers: one store each */
	m->vlan_l3 = ((__u32)p->vlan[0] & 0xfff) | ((__u32)p->vlan[1] & 0xfff) << 12 |
		     (l3_off & 0xff) << 24;
	m->stamp_proto = (stamp & MK_META_STAMP_MASK) | (__u32)p->l3.proto << 24;
	m->l4_off = p->l3.l4_off ? (__u16)(p->l3.l4_off - strip) : 0;
	m->type_magic = (__u8)((p->tunnel_type & 0xf) | MK_META_MAGIC << 4);
}

#ifndef __bpf__
/*
 * User-space twin of the program's decapsulation: rewrites @frame in place
 * so that it starts, at the returned offset, with an Ethernet header and the
 * inner IP packet, exactly the bytes the XDP program delivers. Returns the
 * offset of the delivered frame inside @frame (0 when nothing is stripped).
 * Only for frames parsed from MK_START_ETH: a raw IP frame has no MACs to
 * copy (offline mode works from the parsed offsets and never calls this).
 */
static inline __u32 mk_decap_apply(__u8 *frame, const struct mk_parse *p)
{
	__u32 strip = mk_decap_strip(p);
	__u8 macs[12];

	if (!strip)
		return 0;
	memcpy(macs, frame + p->mac_off, sizeof(macs));
	mk_decap_eth(frame + strip, macs, p);
	return strip;
}
#endif

#endif /* MK_PARSE_H */
