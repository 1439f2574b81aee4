/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keys, values and read-only configuration shared by the XDP program's maps
 * (xdp/maps.bpf.h) and the user space that fills and reads them.
 */
#ifndef MK_MAP_TYPES_H
#define MK_MAP_TYPES_H

#include "compat.h"

#define MK_ITABLE_SIZE 256  /* indirection table buckets: worker = itable[hash % 256] */
#define MK_MAX_WORKERS 64
#define MK_MAX_QUEUES 64
#define MK_TUNNEL_DEPTH_MAX 3 /* compiled bound; the runtime depth is <= this */
#define MK_TUNNEL_DEPTH_DEFAULT 2

/* Flow bypass map value (LRU_PERCPU_HASH keyed by struct mk_flow_key). */
struct mk_bypass_value {
	__u64 packets;
	__u64 bytes;
	/*
	 * bpf_ktime_get_coarse_ns() of the last packet on this CPU: the
	 * CLOCK_MONOTONIC_COARSE base, tick resolution, which idle expiry
	 * needs; the precise clock cost ~15 ns per bypassed packet.
	 */
	__u64 last_seen_ns;
};
_Static_assert(sizeof(struct mk_bypass_value) == 24, "bypass value layout is shared");

/* CIDR bypass LPM trie keys; prefixlen counts bits of addr. */
struct mk_lpm_v4_key {
	__u32 prefixlen;
	__u8 addr[4];
};
_Static_assert(sizeof(struct mk_lpm_v4_key) == 8, "lpm v4 key layout is shared");

struct mk_lpm_v6_key {
	__u32 prefixlen;
	__u8 addr[16];
};
_Static_assert(sizeof(struct mk_lpm_v6_key) == 20, "lpm v6 key layout is shared");

enum mk_mode {
	MK_MODE_IDS = 0, /* bypassed traffic is dropped in the driver */
	MK_MODE_IPS = 1, /* bypassed traffic is sent to the peer interface (DEVMAP slot 0) */
};

enum mk_l2tpv3_l2spec {
	MK_L2SPEC_NONE = 0,
	MK_L2SPEC_DEFAULT = 1, /* RFC 3931 default L2-Specific Sublayer, 4 bytes */
};

/* Parser configuration: rodata in the XDP program, a plain struct offline. */
struct mk_parse_cfg {
	__u32 seed;
	__u8 tunnel_depth;	/* tunnels stripped at most, <= MK_TUNNEL_DEPTH_MAX */
	__u8 l2tpv3_cookie_len; /* 0, 4 or 8 */
	__u8 l2tpv3_l2spec;	/* enum mk_l2tpv3_l2spec */
	__u8 pad;
};
_Static_assert(sizeof(struct mk_parse_cfg) == 8, "parse cfg layout is shared");

#endif /* MK_MAP_TYPES_H */
