/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keys, values and read-only configuration shared by the XDP program's maps
 * (xdp/maps.bpf.h) and the user space that fills and reads them.
 */
#ifndef MK_MAP_TYPES_H
#define MK_MAP_TYPES_H

#include "compat.h"
#include "flow_key.h"

#define MK_ITABLE_SIZE 256 /* indirection table buckets: worker = itable[hash % 256] */
#define MK_MAX_WORKERS 64
#define MK_MAX_QUEUES 64
#define MK_TUNNEL_DEPTH_MAX 3 /* compiled bound; the runtime depth is <= this */
#define MK_TUNNEL_DEPTH_DEFAULT 2

/*
 * Flow bypass counters, per CPU: in mk_bypass_counters (by table slot) and
 * mk_flow_bypass. Per direction of the canonical key, [0] for frames from its
 * lo endpoint to its hi one, [1] for the reverse (MK_META_F_REVERSE): the
 * program cannot know which side is the client, the worker that owns the
 * flow can, and turns them into to-server and to-client counts.
 */
struct mk_bypass_value {
	__u64 packets[2]; /* frames dropped (or forwarded), [0] lo -> hi, [1] hi -> lo */
	__u64 bytes[2];	  /* their bytes on the wire, by the same direction */
	/*
	 * bpf_ktime_get_coarse_ns() of the last packet on this CPU: the
	 * CLOCK_MONOTONIC_COARSE base, tick resolution, which idle expiry
	 * needs; the precise clock cost ~15 ns per bypassed packet.
	 */
	__u64 last_seen_ns;
};
_Static_assert(sizeof(struct mk_bypass_value) == 40, "bypass value layout is shared");

/*
 * Flow bypass table: where the loader puts a bypassed flow first, so that a
 * hit costs the program array reads the verifier inlines instead of a hash
 * map lookup (a helper call, jhash of the key, a bucket walk and a memcmp,
 * every call and return paid twice under the return-stack mitigations). Sets
 * of MK_BYPASS_TABLE_WAYS ways indexed by the seeded flow hash (an attacker
 * cannot aim flows at one set), in an ARRAY (mk_bypass_table, mmap'ed by the
 * loader); the counters of slot set * WAYS + way live in a PERCPU_ARRAY
 * (mk_bypass_counters), so the program updates them without atomics as
 * before. A flow whose set is full goes to mk_flow_bypass (the LRU per-CPU
 * hash), which the program asks after the table. Lookups stay exact: a way
 * matches on its tag and then on the whole key.
 */
#define MK_BYPASS_TABLE_SETS 16384u
#define MK_BYPASS_TABLE_WAYS 4u
#define MK_BYPASS_TABLE_SLOTS (MK_BYPASS_TABLE_SETS * MK_BYPASS_TABLE_WAYS)

struct mk_bypass_way {
	/*
	 * mk_bypass_tag(hash) while the way holds a flow, 0 while it is free.
	 * The loader writes the key first and the tag last (and clears the tag
	 * first), so the program never takes a half-written key for a flow.
	 */
	__u32 tag;
	__u32 pad;
	struct mk_flow_key key;
};
_Static_assert(sizeof(struct mk_bypass_way) == 56, "bypass way layout is shared");

struct mk_bypass_set {
	struct mk_bypass_way way[MK_BYPASS_TABLE_WAYS];
};
_Static_assert(sizeof(struct mk_bypass_set) == 224, "bypass set layout is shared");

MK_INLINE __u32 mk_bypass_set_of(__u32 hash)
{
	return hash & (MK_BYPASS_TABLE_SETS - 1);
}

/* Never 0, which marks a free way. */
MK_INLINE __u32 mk_bypass_tag(__u32 hash)
{
	return hash | 1;
}

/*
 * Prefilters: bitmaps in the program's .bss that user space (the loader)
 * keeps next to a map, so that the common case, no entry, costs a bit test
 * instead of a lookup. A set bit only says "look in the map": the answer is
 * still the map's, so bypass stays exact, and a stale bit (an entry the LRU
 * evicted) costs one lookup. The program consults a bitmap only while
 * mk_prefilter says user space keeps it; a control plane that writes the
 * maps without the bitmaps (bpftool, another loader) simply leaves it off.
 */
#define MK_BYPASS_PREFILTER_BITS (1u << 20) /* indexed by the flow hash: 128 KiB */
#define MK_CIDR_PREFILTER_BITS (1u << 16)   /* IPv6, indexed by address: 8 KiB */

enum mk_prefilter {
	MK_PREFILTER_BYPASS = 1 << 0, /* mk_bypass_bits matches the flow bypass table and map */
	MK_PREFILTER_CIDR = 1 << 1,   /* mk_cidr4_dir and mk_cidr6_bits match the CIDR tries */
};

/* Flow bypass prefilter bit of a flow: its seeded hash, which the program has anyway. */
MK_INLINE __u32 mk_bypass_bit(__u32 hash)
{
	return hash & (MK_BYPASS_PREFILTER_BITS - 1);
}

/*
 * CIDR prefilter bit of an IPv6 address, from its first word (network byte
 * order): the top 32 bits folded to 16, so that the many prefixes under one
 * /16 (2001:db8::/32, ...) do not share a bit.
 */
MK_INLINE __u32 mk_cidr6_bit(__u32 word0)
{
	__u32 w = __builtin_bswap32(word0);

	return (w ^ (w >> 16)) & 0xffff;
}

/*
 * IPv4 CIDR table: the IPv4 CIDR list answered in at most three array reads
 * per address, no trie walk (DIR-16-8-8, after Gupta, Lin and McKeown's
 * DIR-24-8). mk_cidr4_dir (.data.prefilter) has one entry per /16 (index: the top 16
 * bits of the address): MK_CIDR4_NONE when no prefix touches the /16,
 * MK_CIDR4_ALL when a prefix of /16 or shorter covers it, MK_CIDR4_TRIE to
 * ask the LPM trie, else the index of a chunk of mk_cidr4_l2: one entry per
 * /24 of the /16, with the same values, an index there naming a chunk of
 * mk_cidr4_l3: one bit per address of the /24. The LPM trie stays the list
 * user space reads and the fallback: the loader keeps both, gives each /16
 * and /24 that needs one a chunk (there is one for every prefix the trie can
 * hold, so MK_CIDR4_TRIE only appears while freed chunks wait out
 * MK_CIDR4_REUSE_NS), writes a chunk before it links it, and reuses a chunk
 * it unlinked only after MK_CIDR4_REUSE_NS, so the program always follows a
 * whole chain.
 */
#define MK_CIDR4_NONE 0x0000u
#define MK_CIDR4_ALL 0xffffu
#define MK_CIDR4_TRIE 0xfffeu
#define MK_CIDR4_L2_CHUNKS 16384u /* chunk indexes 1..16384; 0 is MK_CIDR4_NONE */
#define MK_CIDR4_L3_CHUNKS 16384u
#define MK_CIDR4_REUSE_NS 100000000ull /* 100 ms: far longer than any program run */

struct mk_cidr4_l2 {
	__u16 e[256]; /* per /24: MK_CIDR4_NONE, _ALL, _TRIE or a chunk of mk_cidr4_l3 */
};
_Static_assert(sizeof(struct mk_cidr4_l2) == 512, "cidr4 l2 layout is shared");

struct mk_cidr4_l3 {
	__u64 bits[4]; /* per address of the /24: bit (a & 63) of word (a >> 6) */
};
_Static_assert(sizeof(struct mk_cidr4_l3) == 32, "cidr4 l3 layout is shared");

/* An entry that names a chunk (as opposed to NONE, ALL or TRIE). */
MK_INLINE int mk_cidr4_is_chunk(__u16 e)
{
	return e != MK_CIDR4_NONE && e != MK_CIDR4_ALL && e != MK_CIDR4_TRIE;
}

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

/*
 * Inline (IPS) mode only (docs/bypass.md): what the program does with a frame
 * it will not hand to a worker because it cannot parse it
 * (ips.unparsable), and with a frame whose worker has no socket, i.e. while
 * the daemon is gone after a crash (ips.failure).
 */
enum mk_ips_policy {
	MK_IPS_FORWARD = 0, /* ips.unparsable: forward; ips.failure: open */
	MK_IPS_DROP = 1,    /* ips.unparsable: drop; ips.failure: closed */
};

/* Flows a drop verdict blocked in the driver (IPS): at most this many, least recently hit go first. */
#define MK_FLOW_DROP_ENTRIES 16384

enum mk_l2tpv3_l2spec {
	MK_L2SPEC_NONE = 0,
	MK_L2SPEC_DEFAULT = 1, /* RFC 3931 default L2-Specific Sublayer, 4 bytes */
};

/*
 * Tunnel decoders, one bit each in mk_parse_cfg.tunnel_off. A decoder that is
 * off leaves its tunnels in place: the frame is a plain flow of the outer
 * protocol, as if the tunnel were unknown.
 */
enum mk_tunnel_kind {
	MK_TUN_GTPU = 1 << 0,	/* GTP-U G-PDU, UDP 2152 */
	MK_TUN_L2TP = 1 << 1,	/* L2TPv2 and L2TPv3 over UDP 1701, L2TPv3 over IP (115) */
	MK_TUN_VXLAN = 1 << 2,	/* VXLAN, UDP destination port vxlan_port */
	MK_TUN_GENEVE = 1 << 3, /* Geneve, UDP destination port geneve_port */
	MK_TUN_GRE = 1 << 4,	/* GRE (47) carrying IPv4, IPv6 or Ethernet (0x6558) */
	MK_TUN_ERSPAN = 1 << 5, /* ERSPAN types I and II (GRE 0x88be) and III (GRE 0x22eb) */
	MK_TUN_IPIP = 1 << 6,	/* IPv4 (4) or IPv6 (41) directly in IPv4 or IPv6 */
};
#define MK_TUN_ALL 0x7f

#ifndef __bpf__
/* Configuration and command-line names of the decoders, in bit order. */
static const char *const mk_tunnel_kind_names[] = {
	"gtpu", "l2tp", "vxlan", "geneve", "gre", "erspan", "ipip",
};
_Static_assert(sizeof(mk_tunnel_kind_names) / sizeof(mk_tunnel_kind_names[0]) == 7,
	       "one name per enum mk_tunnel_kind bit");
#endif

#define MK_VXLAN_PORT_DEFAULT 4789  /* IANA, RFC 7348 */
#define MK_GENEVE_PORT_DEFAULT 6081 /* IANA, RFC 8926 */

enum mk_parse_flags {
	MK_PARSE_F_GENERAL_ONLY = 1 << 0,   /* tests: every frame through the general parser */
	MK_PARSE_F_NO_FAST_TUNNEL = 1 << 1, /* tests, ablation: tunnels past the fast outer level
					     * through the general tunnel level */
};

/*
 * Parser configuration: rodata in the XDP program, a plain struct offline.
 * All zeroes is a working configuration (every decoder on, standard ports,
 * no tunnel stripped), so a new field never silently turns a tunnel off.
 */
struct mk_parse_cfg {
	__u32 seed;
	__u8 tunnel_depth;	/* tunnels stripped at most, <= MK_TUNNEL_DEPTH_MAX */
	__u8 l2tpv3_cookie_len; /* 0, 4 or 8 */
	__u8 l2tpv3_l2spec;	/* enum mk_l2tpv3_l2spec */
	__u8 parse_flags;	/* enum mk_parse_flags */
	__u16 tunnel_off;	/* enum mk_tunnel_kind bits of the decoders turned off */
	__u16 vxlan_port;	/* host byte order; 0 = MK_VXLAN_PORT_DEFAULT */
	__u16 geneve_port;	/* host byte order; 0 = MK_GENEVE_PORT_DEFAULT */
	__u16 pad2;
};
_Static_assert(sizeof(struct mk_parse_cfg) == 16, "parse cfg layout is shared");

#endif /* MK_MAP_TYPES_H */
