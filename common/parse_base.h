/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every layer of the frame parser (common/parse.h) shares: the protocol
 * constants, the frame, the parse result, and the cursor with its checked
 * reads.
 *
 * Reading rules, so the BPF verifier can follow along:
 *  - the cursor is a scalar offset, checked against MK_PARSE_MAX_OFF after
 *    every variable-length skip, so it always has a known upper bound;
 *  - every read goes through MK_PULL with a constant length, which compares
 *    (data + off + len) with the end of the frame first;
 *  - every loop has a compile-time bound.
 */
#ifndef MK_PARSE_BASE_H
#define MK_PARSE_BASE_H

#include "compat.h"
#include "flow_key.h"
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

#endif /* MK_PARSE_BASE_H */
