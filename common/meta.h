/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metadata the XDP program writes in front of every frame it redirects
 * (bpf_xdp_adjust_meta). AF_XDP copies it into the UMEM headroom immediately
 * before the packet, so a worker finds it at (packet - sizeof(struct mk_meta)).
 *
 * The kernel caps XDP metadata at 32 bytes (xdp_metalen_invalid()), so this
 * struct is exactly 32 bytes: outer IPv4 addresses are carried whole, outer
 * IPv6 addresses as a 32-bit fold (MK_META_F_OUTER_V6); offline mode, which
 * is not bound by the cap, sees full outer addresses in struct mk_parse.
 */
#ifndef MK_META_H
#define MK_META_H

#include "compat.h"

#define MK_META_MAGIC 0xa5

enum mk_meta_flags {
	MK_META_F_REVERSE = 1 << 0,   /* packet travels from the key's hi side to its lo side */
	MK_META_F_FRAGMENT = 1 << 1,  /* IP fragment: hash is over the address pair only */
	MK_META_F_TUNNEL = 1 << 2,    /* at least one tunnel was stripped */
	MK_META_F_TRUNCATED = 1 << 3, /* frame shorter than its IP header says */
	MK_META_F_OUTER_V6 = 1 << 4,  /* outer_src/outer_dst are folds of IPv6 addresses */
	MK_META_F_DEPTH_EXCEEDED = 1 << 5, /* a further tunnel was left in place */
	MK_META_F_FIRST_FRAG = 1 << 6,	   /* fragment with offset 0: L4 header present */
	MK_META_F_IPV6 = 1 << 7,	   /* inner packet is IPv6 */
};

enum mk_tunnel_type {
	MK_TUNNEL_NONE = 0,
	MK_TUNNEL_GTPU = 1,	  /* tunnel_id: TEID */
	MK_TUNNEL_L2TPV2 = 2,	  /* tunnel_id: tunnel id << 16 | session id */
	MK_TUNNEL_L2TPV3_IP = 3,  /* tunnel_id: session id */
	MK_TUNNEL_L2TPV3_UDP = 4, /* tunnel_id: session id */
	MK_TUNNEL_VXLAN = 5,	  /* tunnel_id: VNI */
	MK_TUNNEL_GENEVE = 6,	  /* tunnel_id: VNI */
	MK_TUNNEL_GRE = 7,	  /* IP or Ethernet (TEB) in GRE; tunnel_id: key, 0 without */
	MK_TUNNEL_ERSPAN = 8,	  /* types I, II, III; tunnel_id: session id (type I: 0) */
	MK_TUNNEL_IPIP = 9,	  /* 4in4, 6in4, 4in6, 6in6; tunnel_id: 0 */
	MK_TUNNEL_TYPE_MAX = 10,
};

struct mk_meta {
	__u32 hash;	  /* seeded symmetric hash of the inner flow */
	__u32 tunnel_ctx; /* mk_flow_key.tunnel_ctx */
	__u32 tunnel_id; /* innermost tunnel's id, per enum mk_tunnel_type (TEID, session, VNI, key) */
	__u32 outer_src; /* innermost tunnel's outer source (IPv4) or its fold (IPv6) */
	__u32 outer_dst;
	__u16 vlan[2]; /* VLAN ids of the frame as received, outermost first */
	__u16 l4_off;  /* L4 header offset in the delivered frame; 0 = none */
	__u8 flags;    /* enum mk_meta_flags */
	__u8 proto;    /* inner L4 protocol (the key's): workers need not walk IPv6 ext headers */
	__u8 l3_off;   /* L3 header offset in the delivered frame */
	__u8 worker;   /* worker chosen by the indirection table */
	__u8 tunnel_type; /* enum mk_tunnel_type of the innermost tunnel stripped */
	__u8 magic;	  /* MK_META_MAGIC: the program did write this struct */
};
_Static_assert(MK_META_F_IPV6 <= 0x80, "struct mk_meta has 8 bits of flags");
_Static_assert(sizeof(struct mk_meta) == 32, "XDP metadata is capped at 32 bytes");

#ifndef __bpf__
/* Short lower-case name of a tunnel type, as the tools and EVE print it. */
static inline const char *mk_tunnel_name(__u8 type)
{
	static const char *const names[MK_TUNNEL_TYPE_MAX] = {
		[MK_TUNNEL_NONE] = "none",	   [MK_TUNNEL_GTPU] = "gtpu",
		[MK_TUNNEL_L2TPV2] = "l2tpv2",	   [MK_TUNNEL_L2TPV3_IP] = "l2tpv3",
		[MK_TUNNEL_L2TPV3_UDP] = "l2tpv3", [MK_TUNNEL_VXLAN] = "vxlan",
		[MK_TUNNEL_GENEVE] = "geneve",	   [MK_TUNNEL_GRE] = "gre",
		[MK_TUNNEL_ERSPAN] = "erspan",	   [MK_TUNNEL_IPIP] = "ipip",
	};

	return type < MK_TUNNEL_TYPE_MAX ? names[type] : "unknown";
}
#endif

#endif /* MK_META_H */
