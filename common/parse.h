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

#define MK_IPPROTO_ICMP 1
#define MK_IPPROTO_TCP 6
#define MK_IPPROTO_UDP 17
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
	__u8 family;  /* enum mk_family */
	__u8 proto;
	__u8 frag; /* enum mk_frag_state */
	__u8 truncated;
};

struct mk_parse {
	struct mk_flow_key key;
	struct mk_l3 l3;  /* innermost IP level: the flow */
	__u32 hash;
	__u32 tunnel_ctx; /* same as key.tunnel_ctx */
	__u32 tunnel_id;  /* innermost tunnel: TEID, L2TPv3 session, L2TPv2 tunnel<<16|session */
	__u32 outer_src[4]; /* innermost tunnel's outer addresses, as on the wire */
	__u32 outer_dst[4];
	__u16 vlan[2];	   /* VLAN ids of the outermost Ethernet header */
	__u16 flags;	   /* enum mk_meta_flags */
	__u16 mac_off;	   /* innermost Ethernet header: source of the delivered MACs */
	__u8 tunnel_type;  /* innermost tunnel stripped */
	__u8 tunnel_depth; /* number of tunnels stripped */
	__u8 tunnel_mask;  /* bit (1 << type) for every tunnel type stripped */
	__u8 outer_family; /* family of outer_src/outer_dst */
	__u8 reason;	   /* enum mk_drop_reason when MK_PARSE_ERROR */
	__u8 pad;
};

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
#define MK_PULL(h, f, off, len, why)                                                       \
	do {                                                                                       \
		h = (const __u8 *)MK_FRAME_DATA(f) + (off);                                        \
		if ((const void *)(h + (len)) > MK_FRAME_END(f)) {                                 \
			p->reason = (why);                                                         \
			return MK_PARSE_ERROR;                                                     \
		}                                                                                  \
	} while (0)

#define MK_ADVANCE(off, n)                                                                         \
	do {                                                                                       \
		(off) += (n);                                                                      \
		if ((off) > MK_PARSE_MAX_OFF) {                                                    \
			p->reason = MK_REASON_ERR_HDR_TOO_LONG;                                    \
			return MK_PARSE_ERROR;                                                     \
		}                                                                                  \
	} while (0)

/*
 * Ethernet and up to two 802.1Q/802.1ad tags at *off. Leaves *off at the L3
 * header and returns its ethertype, or MK_PARSE_ERROR's negative in *status.
 * VLAN ids are recorded only when @vlan is non-NULL (the outermost header).
 */
MK_INLINE int mk_parse_eth(struct mk_frame *f, __u32 *offp, __u16 *ethertype,
			   __u16 *vlan, struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = *offp;
	__u16 type;
	int i;

	MK_PULL(h, f, off, MK_ETH_HLEN, MK_REASON_ERR_TRUNC_ETH);
	type = mk_rd16(h + 12);
	MK_ADVANCE(off, MK_ETH_HLEN);
	for (i = 0; i < MK_VLAN_MAX; i++) {
		if (type != MK_ETH_P_8021Q && type != MK_ETH_P_8021AD)
			break;
		MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_VLAN);
		if (vlan)
			vlan[i] = mk_rd16(h) & 0x0fff;
		type = mk_rd16(h + 2);
		MK_ADVANCE(off, 4);
	}
	if (type == MK_ETH_P_8021Q || type == MK_ETH_P_8021AD) {
		p->reason = MK_REASON_ERR_VLAN_DEPTH;
		return MK_PARSE_ERROR;
	}
	*offp = off;
	*ethertype = type;
	return MK_PARSE_IP;
}

MK_INLINE int mk_parse_ipv4(struct mk_frame *f, __u32 *offp, struct mk_l3 *l3,
			    struct mk_parse *p)
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

MK_INLINE int mk_parse_ipv6(struct mk_frame *f, __u32 *offp, struct mk_l3 *l3,
			    struct mk_parse *p)
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
		/* no ports, but keep l4_off: mk_parse_tunnel looks for L2TPv3 there */
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

/*
 * The same for the inner levels of a tunnel: a global subprogram in BPF, so
 * the verifier checks it once rather than once per path through the tunnel
 * loop. The outermost level calls mk_parse_ip_level() inline instead: a plain
 * frame then pays no call, and calls are what cost most on CPUs with return
 * stack mitigations (docs/performance.md).
 */
MK_SUBPROG int mk_parse_ip(struct mk_frame *f, __u32 off, __u32 ethertype, struct mk_l3 *l3,
			   struct mk_parse *p)
{
	if (!l3 || !p)
		return MK_PARSE_ERROR;
	return mk_parse_ip_level(f, off, ethertype, l3, p);
}

/* What a tunnel header at the current level leads to. */
struct mk_tunnel_hop {
	__u32 inner_off;  /* first byte of the inner IP packet */
	__u32 mac_off;	  /* inner Ethernet header (L2TPv3), else 0 */
	__u32 tunnel_id;
	__u16 ethertype;  /* of the inner IP packet */
	__u8 type;	  /* enum mk_tunnel_type, NONE when this level is not a tunnel */
	__u8 inner_eth;	  /* inner packet starts with Ethernet (L2TPv3) */
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

/* GTP-U v1 G-PDU (TS 29.281) at off: flags, type, length, TEID, optional fields, extensions. */
MK_INLINE int mk_parse_gtpu(struct mk_frame *f, __u32 off,
			    struct mk_tunnel_hop *t, struct mk_parse *p)
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
MK_INLINE int mk_parse_l2tpv2(struct mk_frame *f, __u32 off,
			      struct mk_tunnel_hop *t, struct mk_parse *p)
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
 * L2TPv3 (RFC 3931) data session with an Ethernet pseudowire: at off is the
 * session id (over IP) or the 8-byte UDP header variant (udp != 0).
 */
MK_INLINE int mk_parse_l2tpv3(struct mk_frame *f, __u32 off, int udp,
			      const struct mk_parse_cfg *cfg, struct mk_tunnel_hop *t,
			      struct mk_parse *p)
{
	const __u8 *h;
	__u32 session;
	__u16 type;
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
	t->mac_off = off;
	ret = mk_parse_eth(f, &off, &type, NULL, p);
	if (ret != MK_PARSE_IP) {
		/* a short pseudowire payload is a broken tunnel, not a broken frame */
		if (p->reason == MK_REASON_ERR_TRUNC_ETH || p->reason == MK_REASON_ERR_TRUNC_VLAN)
			p->reason = MK_REASON_ERR_TRUNC_TUNNEL;
		return ret;
	}
	if (type != MK_ETH_P_IPV4 && type != MK_ETH_P_IPV6)
		return MK_PARSE_IP; /* ARP and friends inside the pseudowire */
	t->ethertype = type;
	t->tunnel_id = session;
	t->type = udp ? MK_TUNNEL_L2TPV3_UDP : MK_TUNNEL_L2TPV3_IP;
	t->inner_eth = 1;
	t->inner_off = off; /* the inner IP header; mac_off is set by the caller */
	return MK_PARSE_IP;
}

/* Is the current level a tunnel we strip? t->type stays NONE when it is not. */
MK_SUBPROG int mk_parse_tunnel(struct mk_frame *f, const struct mk_l3 *l3,
			       const struct mk_parse_cfg *cfg, struct mk_tunnel_hop *t,
			       struct mk_parse *p)
{
	const __u8 *h;

	if (!l3 || !cfg || !t || !p)
		return MK_PARSE_ERROR;

	t->type = MK_TUNNEL_NONE;
	t->inner_eth = 0;
	if (l3->frag != MK_FRAG_NONE || !l3->l4_off)
		return MK_PARSE_IP;
	if (l3->l4_off > MK_PARSE_MAX_OFF) {
		p->reason = MK_REASON_ERR_HDR_TOO_LONG;
		return MK_PARSE_ERROR;
	}
	if (l3->proto == MK_IPPROTO_L2TP)
		return mk_parse_l2tpv3(f, l3->l4_off, 0, cfg, t, p);
	if (l3->proto != MK_IPPROTO_UDP)
		return MK_PARSE_IP;
	if (l3->dport == __builtin_bswap16(MK_GTPU_PORT) || l3->sport == __builtin_bswap16(MK_GTPU_PORT))
		return mk_parse_gtpu(f, l3->l4_off + 8, t, p);
	if (l3->dport == __builtin_bswap16(MK_L2TP_PORT) || l3->sport == __builtin_bswap16(MK_L2TP_PORT)) {
		MK_PULL(h, f, l3->l4_off + 8, 2, MK_REASON_ERR_TRUNC_TUNNEL);
		if ((h[1] & 0x0f) == 2)
			return mk_parse_l2tpv2(f, l3->l4_off + 8, t, p);
		if ((h[1] & 0x0f) == 3)
			return mk_parse_l2tpv3(f, l3->l4_off + 8, 1, cfg, t, p);
	}
	return MK_PARSE_IP;
}

/*
 * Could the current level be a tunnel mk_parse_tunnel() strips? Asked inline
 * first because most frames are not tunnels, and in BPF mk_parse_tunnel() is
 * a subprogram whose call and return cost more than the whole test (returns
 * are expensive under the kernel's return-stack mitigations).
 */
MK_INLINE int mk_may_be_tunnel(const struct mk_l3 *l3)
{
	if (l3->frag != MK_FRAG_NONE || !l3->l4_off)
		return 0;
	if (l3->proto == MK_IPPROTO_L2TP || l3->l4_off > MK_PARSE_MAX_OFF)
		return 1;
	if (l3->proto != MK_IPPROTO_UDP)
		return 0;
	return l3->dport == __builtin_bswap16(MK_GTPU_PORT) ||
	       l3->sport == __builtin_bswap16(MK_GTPU_PORT) ||
	       l3->dport == __builtin_bswap16(MK_L2TP_PORT) ||
	       l3->sport == __builtin_bswap16(MK_L2TP_PORT);
}

/*
 * Parses one frame: returns enum mk_parse_status and fills @p. On
 * MK_PARSE_IP, p->key is canonical, p->hash seeded, and the offsets point
 * into the frame as received (before decapsulation).
 */
MK_INLINE int mk_parse_frame(struct mk_frame *f, int start,
			     const struct mk_parse_cfg *cfg, struct mk_parse *p)
{
	struct mk_tunnel_hop t;
	const __u8 *h;
	__u32 off = 0;
	__u16 ethertype;
	int ret, level;

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

	for (level = 0; level < MK_TUNNEL_DEPTH_MAX + 1 && mk_may_be_tunnel(&p->l3); level++) {
		ret = mk_parse_tunnel(f, &p->l3, cfg, &t, p);
		if (ret != MK_PARSE_IP) {
			if (level < cfg->tunnel_depth)
				return ret;
			/* a tunnel we would not strip anyway cannot make the frame malformed */
			p->reason = MK_REASON_NONE;
			break;
		}
		if (t.type == MK_TUNNEL_NONE)
			break;
		if (level >= cfg->tunnel_depth) {
			p->flags |= MK_META_F_DEPTH_EXCEEDED;
			break;
		}
		p->tunnel_ctx = mk_tunnel_ctx(p->tunnel_ctx, t.type, p->l3.src, p->l3.dst);
		mk_memcpy(p->outer_src, p->l3.src, sizeof(p->outer_src));
		mk_memcpy(p->outer_dst, p->l3.dst, sizeof(p->outer_dst));
		p->outer_family = p->l3.family;
		p->tunnel_id = t.tunnel_id;
		p->tunnel_type = t.type;
		p->tunnel_mask |= 1 << t.type;
		p->tunnel_depth++;
		if (t.inner_eth)
			p->mac_off = (__u16)t.mac_off;
		ret = mk_parse_ip(f, t.inner_off, t.ethertype, &p->l3, p);
		if (ret != MK_PARSE_IP)
			return ret;
	}
	if (p->l3.frag != MK_FRAG_NONE)
		p->flags |= MK_META_F_FRAGMENT | (p->l3.frag == MK_FRAG_FIRST ? MK_META_F_FIRST_FRAG : 0);
	if (p->tunnel_depth)
		p->flags |= MK_META_F_TUNNEL;
	if (p->l3.truncated)
		p->flags |= MK_META_F_TRUNCATED;
	if (p->l3.family == MK_FAMILY_IPV6)
		p->flags |= MK_META_F_IPV6;

	if (mk_flow_key_set_endpoints(&p->key, p->l3.src, p->l3.sport, p->l3.dst, p->l3.dport))
		p->flags |= MK_META_F_REVERSE;
	p->key.vlan[0] = p->vlan[0];
	p->key.vlan[1] = p->vlan[1];
	p->key.tunnel_ctx = p->tunnel_ctx;
	p->key.proto = p->l3.proto;
	p->key.family = p->l3.family;
	p->hash = mk_flow_hash(&p->key, cfg->seed);
	return MK_PARSE_IP;
}

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

/* The metadata for a parsed frame, with offsets as they are after decapsulation. */
MK_INLINE void mk_meta_fill(struct mk_meta *m, const struct mk_parse *p, __u32 worker)
{
	__u32 strip = mk_decap_strip(p);

	m->hash = p->hash;
	m->tunnel_ctx = p->tunnel_ctx;
	m->tunnel_id = p->tunnel_id;
	m->flags = (__u8)p->flags;
	m->proto = p->l3.proto;
	if (p->outer_family == MK_FAMILY_IPV6) {
		m->outer_src = mk_fold_addr(p->outer_src);
		m->outer_dst = mk_fold_addr(p->outer_dst);
		m->flags |= MK_META_F_OUTER_V6;
	} else {
		m->outer_src = p->outer_src[0];
		m->outer_dst = p->outer_dst[0];
	}
	m->vlan[0] = p->vlan[0];
	m->vlan[1] = p->vlan[1];
	m->l3_off = (__u8)(p->l3.l3_off - strip);
	m->l4_off = p->l3.l4_off ? (__u16)(p->l3.l4_off - strip) : 0;
	m->worker = (__u8)worker;
	m->tunnel_type = p->tunnel_type;
	m->magic = MK_META_MAGIC;
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
