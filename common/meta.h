/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metadata the XDP program writes in front of every frame it redirects
 * (bpf_xdp_adjust_meta). AF_XDP copies it into the UMEM headroom immediately
 * before the packet, so a worker finds it at (packet - sizeof(struct mk_meta)).
 *
 * The kernel caps XDP metadata at 32 bytes (xdp_metalen_invalid()), so this
 * struct is exactly 32 bytes: outer IPv4 addresses are carried whole, outer
 * IPv6 addresses as a 32-bit fold (MK_META_F_OUTER_V6); offline mode, which
 * is not bound by the cap, sees full outer addresses in struct mk_parse. To
 * fit the arrival stamp (24 bits) the narrow fields share words: VLAN ids
 * are 12 bits each, next to the L3 offset; the protocol sits above the stamp;
 * tunnel type and magic are a nibble each. Read them through the accessors
 * below; the worker knows its own id, so the program does not write it.
 */
#ifndef MK_META_H
#define MK_META_H

#include "compat.h"

#define MK_META_MAGIC 0xa /* 4 bits: see type_magic */

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
	__u32 vlan_l3; /* VLAN ids as received, outermost in bits 0-11, next in 12-23; L3 offset in 24-31 */
	__u32 stamp_proto; /* bits 0-23: arrival, 256 ns ticks (0: not stamped); 24-31: inner L4 protocol */
	__u16 l4_off;	 /* L4 header offset in the delivered frame; 0 = none */
	__u8 flags;	 /* enum mk_meta_flags */
	__u8 type_magic; /* bits 0-3: enum mk_tunnel_type stripped; 4-7: MK_META_MAGIC */
};
_Static_assert(MK_META_F_IPV6 <= 0x80, "struct mk_meta has 8 bits of flags");
_Static_assert(MK_TUNNEL_TYPE_MAX <= 16, "struct mk_meta has 4 bits of tunnel type");
_Static_assert(MK_META_MAGIC <= 0xf && MK_META_MAGIC != 0, "struct mk_meta has 4 bits of magic");
_Static_assert(sizeof(struct mk_meta) == 32, "XDP metadata is capped at 32 bytes");

/*
 * The arrival stamp: CLOCK_MONOTONIC (bpf_ktime_get_ns) in ticks of 256 ns,
 * its low 24 bits, so it wraps every 4.29 s. Only ages and differences of
 * stamps mean something (mk_meta_stamp_age()); a worker compares frames
 * that wait in its rings, never seconds apart.
 */
#define MK_META_STAMP_SHIFT 8
#define MK_META_STAMP_MASK 0xffffffu

static __always_inline __u32 mk_meta_stamp_of_ns(__u64 ns)
{
	return (__u32)(ns >> MK_META_STAMP_SHIFT) & MK_META_STAMP_MASK;
}

/* Ticks from @stamp to @now (both mk_meta_stamp_of_ns() values), modulo the wrap. */
static __always_inline __u32 mk_meta_stamp_age(__u32 now, __u32 stamp)
{
	return (now - stamp) & MK_META_STAMP_MASK;
}

static __always_inline __u16 mk_meta_vlan(const struct mk_meta *m, int i)
{
	return (__u16)((m->vlan_l3 >> (i ? 12 : 0)) & 0xfff);
}

static __always_inline __u8 mk_meta_l3_off(const struct mk_meta *m)
{
	return (__u8)(m->vlan_l3 >> 24);
}

static __always_inline __u32 mk_meta_stamp(const struct mk_meta *m)
{
	return m->stamp_proto & MK_META_STAMP_MASK;
}

static __always_inline __u8 mk_meta_proto(const struct mk_meta *m)
{
	return (__u8)(m->stamp_proto >> 24);
}

static __always_inline __u8 mk_meta_tunnel_type(const struct mk_meta *m)
{
	return m->type_magic & 0xf;
}

static __always_inline __u8 mk_meta_magic(const struct mk_meta *m)
{
	return m->type_magic >> 4;
}

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
