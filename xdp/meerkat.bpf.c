// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkat's XDP program. Per frame: parse (common/parse.h), CIDR and flow
 * bypass, strip tunnels, write struct mk_meta (stamped with the arrival time
 * when the loader asks), and redirect into the AF_XDP
 * socket of the worker that owns the inner flow. Every frame ends in exactly
 * one outcome counter (common/stats.h); malformed frames get a reason counter
 * and XDP_PASS, never XDP_ABORTED.
 *
 * Bypass is decided before decapsulation: in IPS mode a bypassed frame is
 * forwarded to the peer exactly as it arrived, and in IDS mode a drop costs no
 * rewrite.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>
#include "parse.h"
#include "maps.bpf.h"

/*
 * bench restore: the metadata lands in the stripped bytes, then the new
 * Ethernet header; saved and put back in whole words (xdp/bench_drop.bpf.c
 * does the same copies to measure them).
 */
#define MK_BENCH_SAVE_WORDS ((sizeof(struct mk_meta) + MK_ETH_HLEN + 7) / 8)

/* Set between open and load; frozen, so the verifier prunes unused branches. */
const volatile struct mk_parse_cfg mk_cfg = {
	.seed = 0,
	.tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT,
	.l2tpv3_cookie_len = 0,
	.l2tpv3_l2spec = MK_L2SPEC_NONE,
};
/*
 * The flow hash's NH key, mk_hash_key_init(mk_cfg.seed), set by the loader
 * with the seed; the initial value is seed 0's (test/unit/test_hash.c).
 */
const volatile struct mk_hash_key mk_hash_key = {
	.k = { 0x7b1dcdaf, 0xe220a839, 0xa1b965f4, 0x6e789e6a, 0x8009454f, 0x06c45d18, 0x724c81ec,
	       0xf88bb8a8, 0x51a8749b, 0x1b39896a, 0x747ea2ea, 0x53cb9f0c },
};
const volatile __u32 mk_workers = 1;
const volatile __u32 mk_queues = MK_MAX_QUEUES;
const volatile __u32 mk_mode = MK_MODE_IDS;
/* IPS only (enum mk_ips_policy): frames the parser refuses, and frames no socket waits for. */
const volatile __u32 mk_ips_unparsable = MK_IPS_FORWARD;
const volatile __u32 mk_ips_failure = MK_IPS_FORWARD;
/*
 * Stamp every redirected frame with its arrival time (struct mk_meta): the
 * loader turns it on when a worker reads more than one socket and merges
 * them in arrival order. Off, the program makes no clock call.
 */
const volatile __u32 mk_rx_stamp = 0;
/* Benchmarks only: undo decapsulation and metadata so a repeated test run sees the same frame. */
const volatile __u8 mk_bench_restore = 0;

/* Benchmarks only: the bytes the restore puts back (BPF_PROG_RUN runs one frame at a time). */
__u64 mk_bench_save[MK_BENCH_SAVE_WORDS];

/* Number of entries in the CIDR tries, kept by user space: an empty list costs no lookup. */
__u32 mk_cidr_v4_entries = 0;
__u32 mk_cidr_v6_entries = 0;
/* Entries in mk_flow_drop, kept by user space (IPS): none costs no lookup. */
__u32 mk_flow_drop_entries = 0;

/*
 * Prefilters kept by user space (common/map_types.h): which ones, and their
 * bits. The tables live in a section (a map) of their own so that .bss, which
 * xdp-loader users and the testbench edit with bpftool, stays a few words.
 */
__u32 mk_prefilter = 0;
/* always 0: see MK_VERIFIER_FORGET in common/parse_fast_tunnel.h */
volatile __u32 mk_verifier_zero = 0;
__u64 mk_bypass_bits[MK_BYPASS_PREFILTER_BITS / 64] SEC(".data.prefilter");
__u16 mk_cidr4_dir[65536] SEC(
	".data.prefilter"); /* the IPv4 CIDR table's first level, one entry per /16 */
__u64 mk_cidr6_bits[MK_CIDR_PREFILTER_BITS / 64] SEC(".data.prefilter");

/* Runs first in a libxdp dispatcher and lets the chain continue only on XDP_PASS. */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(meerkat_xdp);

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&mk_stats, &idx);

	if (c)
		*c += 1;
}

static __always_inline int outcome(__u32 idx, int verdict)
{
	stat_inc(idx);
	return verdict;
}

static __always_inline int bit_set(const __u64 *bits, __u32 i)
{
	return (bits[i >> 6] >> (i & 63)) & 1;
}

/* Is the IPv6 prefilter bit of address @a set, or is there no prefilter to ask? */
static __always_inline int cidr6_may_match(const __u32 *a)
{
	if (!(mk_prefilter & MK_PREFILTER_CIDR))
		return 1;
	return bit_set(mk_cidr6_bits, mk_cidr6_bit(a[0]) & (MK_CIDR_PREFILTER_BITS - 1));
}

/*
 * Is IPv4 address @addr (network byte order) in the CIDR list? The table
 * (common/map_types.h) answers in at most three array reads, which the
 * verifier inlines; the LPM trie only where the table says MK_CIDR4_TRIE, or
 * when user space does not keep the table (mk_prefilter).
 */
static __always_inline int cidr4_match(__u32 addr)
{
	struct mk_lpm_v4_key k = { .prefixlen = 32 };
	__u32 a = __builtin_bswap32(addr), id;
	const struct mk_cidr4_l2 *l2;
	const struct mk_cidr4_l3 *l3;
	__u16 e;

	if (!(mk_prefilter & MK_PREFILTER_CIDR))
		goto trie;
	e = mk_cidr4_dir[a >> 16];
	if (mk_cidr4_is_chunk(e)) {
		id = e;
		l2 = bpf_map_lookup_elem(&mk_cidr4_l2, &id);
		if (!l2)
			goto trie;
		e = l2->e[(a >> 8) & 0xff];
		if (mk_cidr4_is_chunk(e)) {
			id = e;
			l3 = bpf_map_lookup_elem(&mk_cidr4_l3, &id);
			if (!l3)
				goto trie;
			return (l3->bits[(a >> 6) & 3] >> (a & 63)) & 1;
		}
	}
	if (e != MK_CIDR4_TRIE)
		return e == MK_CIDR4_ALL;
trie:
	__builtin_memcpy(k.addr, &addr, 4);
	return bpf_map_lookup_elem(&mk_cidr_v4, &k) != NULL;
}

static __always_inline int cidr_bypassed(const struct mk_parse *p)
{
	if (p->l3.family == MK_FAMILY_IPV4 && mk_cidr_v4_entries)
		return cidr4_match(p->l3.src[0]) || cidr4_match(p->l3.dst[0]);
	if (p->l3.family == MK_FAMILY_IPV6 && mk_cidr_v6_entries) {
		struct mk_lpm_v6_key k = { .prefixlen = 128 };

		if (cidr6_may_match(p->l3.src)) {
			__builtin_memcpy(k.addr, p->l3.src, 16);
			if (bpf_map_lookup_elem(&mk_cidr_v6, &k))
				return 1;
		}
		if (!cidr6_may_match(p->l3.dst))
			return 0;
		__builtin_memcpy(k.addr, p->l3.dst, 16);
		return bpf_map_lookup_elem(&mk_cidr_v6, &k) != NULL;
	}
	return 0;
}

/* Bypassed traffic: dropped here (IDS) or sent on to the peer untouched (IPS). */
static __always_inline int bypass_verdict(__u32 drop_stat, __u32 fwd_stat)
{
	int ret;

	if (mk_mode != MK_MODE_IPS)
		return outcome(drop_stat, XDP_DROP);
	ret = bpf_redirect_map(&mk_peer, 0, XDP_PASS);
	return outcome(ret == XDP_REDIRECT ? fwd_stat : MK_STAT_PASS_NO_PEER, ret);
}

/*
 * IPS: a frame no worker will see (non-IP, malformed, or no socket because
 * the daemon is gone) goes on to the peer, or is dropped, as configured;
 * IDS: passed to the stack as before. The verifier prunes the other mode.
 */
static __always_inline int uninspected(__u32 pass_stat, __u32 fwd_stat, __u32 drop_stat,
				       __u32 policy)
{
	int ret;

	if (mk_mode != MK_MODE_IPS)
		return outcome(pass_stat, XDP_PASS);
	if (policy == MK_IPS_DROP)
		return outcome(drop_stat, XDP_DROP);
	ret = bpf_redirect_map(&mk_peer, 0, XDP_PASS);
	return outcome(ret == XDP_REDIRECT ? fwd_stat : MK_STAT_PASS_NO_PEER, ret);
}

/* The whole 48-byte key, a word at a time (both sides are 8-byte aligned). */
static __always_inline int key_eq(const struct mk_flow_key *a, const struct mk_flow_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4]) |
		(x[5] ^ y[5])) == 0;
}

/*
 * The counters of a bypassed flow, or NULL: the table's set for its hash
 * (array reads the verifier inlines, no call), then the LRU map that holds
 * the flows whose set was full.
 */
static __always_inline struct mk_bypass_value *bypass_lookup(const struct mk_parse *p)
{
	__u32 set = mk_bypass_set_of(p->hash), tag = mk_bypass_tag(p->hash), w, slot;
	const struct mk_bypass_set *s = bpf_map_lookup_elem(&mk_bypass_table, &set);

	if (s) {
		for (w = 0; w < MK_BYPASS_TABLE_WAYS; w++) {
			if (s->way[w].tag != tag || !key_eq(&s->way[w].key, &p->key))
				continue;
			slot = set * MK_BYPASS_TABLE_WAYS + w;
			return bpf_map_lookup_elem(&mk_bypass_counters, &slot);
		}
	}
	return bpf_map_lookup_elem(&mk_flow_bypass, &p->key);
}

/* Info counters: only for frames that carry tunnels or fragments. */
static __always_inline void count_info(const struct mk_parse *p)
{
	if (p->flags & MK_META_F_FRAGMENT)
		stat_inc(MK_STAT_FRAGMENT);
	if (p->flags & MK_META_F_DEPTH_EXCEEDED)
		stat_inc(MK_STAT_TUNNEL_DEPTH_EXCEEDED);
	if (!p->tunnel_mask)
		return;
	/* the usual case, one tunnel: its counter, no walk over the types */
	stat_inc(mk_tunnel_stat(p->tunnel_type));
	if (p->tunnel_depth > 1) {
		/* one count per further type the frame carried; the two L2TPv3s are one counter */
		__u32 mask = p->tunnel_mask, t;

		if (mask & (1 << MK_TUNNEL_L2TPV3_UDP))
			mask = (mask & ~(1u << MK_TUNNEL_L2TPV3_UDP)) | 1 << MK_TUNNEL_L2TPV3_IP;
		t = p->tunnel_type == MK_TUNNEL_L2TPV3_UDP ? MK_TUNNEL_L2TPV3_IP : p->tunnel_type;
		mask &= ~(1u << t);
		for (t = 1; t < MK_TUNNEL_TYPE_MAX; t++) {
			if (mask & (1u << t))
				stat_inc(mk_tunnel_stat(t));
		}
	}
}

/*
 * Parses the frame into @p: the fast path for plain frames and the first
 * tunnel level, the general parser (a global subprogram) for the rest.
 * Returns enum mk_parse_ret.
 */
static __always_inline int parse_frame(struct xdp_md *ctx, struct mk_parse *p)
{
	const struct mk_parse_cfg *fast_cfg;
	const struct mk_hash_key *hk;
	int fast;

	/*
	 * The fast path reads the configuration in place. The pointer goes
	 * through a barrier: mk_cfg is const volatile with an initializer, and
	 * clang would otherwise fold its fields to the initial values instead of
	 * loading what the loader wrote (the verifier still sees the constants).
	 */
	fast_cfg = (const struct mk_parse_cfg *)&mk_cfg;
	barrier_var(fast_cfg);
	hk = (const struct mk_hash_key *)&mk_hash_key;
	barrier_var(hk);

	fast = MK_FAST_NO;
	if (!(mk_cfg.parse_flags & MK_PARSE_F_GENERAL_ONLY))
		fast = mk_parse_fast(ctx, fast_cfg, hk, p);
	if (fast == MK_FAST_TUNNEL)
		fast = mk_parse_fast_tunnel(ctx, fast_cfg, hk, p);
	if (fast == MK_FAST_FLOW)
		return MK_PARSE_IP;

	/* global subprograms take writable memory only: hand them a stack copy */
	struct mk_parse_cfg cfg = {
		.seed = mk_cfg.seed,
		.tunnel_depth = mk_cfg.tunnel_depth,
		.l2tpv3_cookie_len = mk_cfg.l2tpv3_cookie_len,
		.l2tpv3_l2spec = mk_cfg.l2tpv3_l2spec,
		.tunnel_off = mk_cfg.tunnel_off,
		.vxlan_port = mk_cfg.vxlan_port,
		.geneve_port = mk_cfg.geneve_port,
		.parse_flags = mk_cfg.parse_flags,
	};

	/* a tunnel behind plain outer headers goes on from the fast path's level */
	if (fast == MK_FAST_TUNNEL)
		return mk_parse_levels(ctx, 0, &cfg, hk, p);
	return mk_parse_frame_general(ctx, MK_START_ETH, &cfg, hk, p);
}

/* The flow's bypass entry counts the frame: 1 when the flow is bypassed. */
static __always_inline int flow_bypassed(struct xdp_md *ctx, const struct mk_parse *p)
{
	struct mk_bypass_value *bv;
	__u32 dir = p->flags & MK_META_F_REVERSE; /* the bit is 1: 0 or 1, the counter's index */

	/* most flows are not bypassed: a clear prefilter bit saves the lookups */
	if ((mk_prefilter & MK_PREFILTER_BYPASS) &&
	    !bit_set(mk_bypass_bits, mk_bypass_bit(p->hash)))
		return 0;
	bv = bypass_lookup(p);
	if (!bv)
		return 0;
	/* per-CPU value: no atomics needed; coarse clock: see mk_bypass_value */
	bv->packets[dir] += 1;
	bv->bytes[dir] += ctx->data_end - ctx->data;
	bv->last_seen_ns = bpf_ktime_get_coarse_ns();
	return 1;
}

/* The worker's slot in the XSKMAP: queue * workers + itable[hash]. */
static __always_inline __u32 xsk_slot(const struct mk_parse *p, __u32 queue)
{
	__u32 bucket = p->hash % MK_ITABLE_SIZE, worker = 0, *w;

	w = bpf_map_lookup_elem(&mk_itable, &bucket);
	if (w && *w < mk_workers)
		worker = *w;
	return queue * mk_workers + worker;
}

/*
 * bench_xdp only: saves the bytes that decapsulation and the metadata will
 * overwrite, from @save_off on, so that the same frame can be run again.
 */
static __always_inline int bench_save(const void *data, const void *data_end, __u32 save_off)
{
	const __u64 *o = (const void *)((const __u8 *)data + save_off);
	int i;

	if ((void *)(o + MK_BENCH_SAVE_WORDS) > data_end)
		return -1;
	for (i = 0; i < (int)MK_BENCH_SAVE_WORDS; i++)
		mk_bench_save[i] = o[i];
	return 0;
}

/* bench_xdp only: undoes the metadata and the decapsulation, restores the bytes. */
static __always_inline int bench_restore(struct xdp_md *ctx, __u32 strip, __u32 save_off)
{
	__u64 *o;
	int i;

	bpf_xdp_adjust_meta(ctx, (int)sizeof(struct mk_meta));
	if (!strip)
		return 0;
	if (bpf_xdp_adjust_head(ctx, -(int)strip))
		return -1;
	o = (void *)((__u8 *)(long)ctx->data + save_off);
	if ((void *)(o + MK_BENCH_SAVE_WORDS) > (void *)(long)ctx->data_end)
		return -1;
	for (i = 0; i < (int)MK_BENCH_SAVE_WORDS; i++)
		o[i] = mk_bench_save[i];
	return 0;
}

/*
 * Strips the tunnels in front of the inner IP header and writes a new
 * Ethernet header with the outer MACs there. Returns 0, -1 on a decap
 * failure (counted), -2 when the bench's save failed. *@strip and *@save_off
 * say what to undo for bench_xdp.
 */
static __always_inline int decap(struct xdp_md *ctx, const struct mk_parse *p, __u32 *strip,
				 __u32 *save_off)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 mac_hi, mac_lo, *eth;
	const __u8 *src;
	__u64 macs;

	src = (const __u8 *)data + (p->mac_off & 0xfff);
	if ((void *)(src + 12) > data_end) {
		/* the parser guaranteed it; still, no frame leaves uncounted */
		stat_inc(MK_STAT_ERR_DECAP);
		return -1;
	}
	/* whole-word loads: the MACs survive bpf_xdp_adjust_head in two registers */
	macs = *(const __u64 *)src;
	mac_lo = *(const __u32 *)(src + 8);
	*strip = mk_decap_strip(p) & 0xfff;
	if (mk_bench_restore) {
		/* the bytes the metadata and the new Ethernet header overwrite; with a
		 * short outer header (IP-in-IP: 20 bytes) the metadata lands partly in
		 * the headroom, which is not part of the frame */
		*save_off = *strip > sizeof(struct mk_meta) ? *strip - sizeof(struct mk_meta) : 0;
		/* a scalar offset: the verifier refuses negative constant packet offsets */
		barrier_var(*save_off);
		*save_off &= 0xfff;
		if (bench_save(data, data_end, *save_off))
			return -2;
	}
	if (bpf_xdp_adjust_head(ctx, (int)*strip)) {
		stat_inc(MK_STAT_ERR_DECAP);
		return -1;
	}
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	if ((void *)((__u8 *)eth + MK_ETH_HLEN) > data_end) {
		stat_inc(MK_STAT_ERR_DECAP);
		return -1;
	}
	/* mk_decap_eth(), in words: MACs, then the inner IP's ethertype */
	mac_hi = (__u32)(macs >> 32);
	eth[0] = (__u32)macs;
	eth[1] = mac_hi;
	eth[2] = mac_lo;
	*(__u16 *)&eth[3] = p->l3.family == MK_FAMILY_IPV6 ? __builtin_bswap16(MK_ETH_P_IPV6) :
							     __builtin_bswap16(MK_ETH_P_IPV4);
	return 0;
}

/* struct mk_meta in front of the frame, for the worker (counted when the kernel refuses). */
static __always_inline void write_meta(struct xdp_md *ctx, const struct mk_parse *p)
{
	struct mk_meta *meta;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(struct mk_meta))) {
		stat_inc(MK_STAT_META_FAIL);
		return;
	}
	meta = (void *)(long)ctx->data_meta;
	if ((void *)(meta + 1) <= (void *)(long)ctx->data)
		mk_meta_fill(meta, p, mk_rx_stamp ? mk_meta_stamp_of_ns(bpf_ktime_get_ns()) : 0);
}

SEC("xdp")
int meerkat_xdp(struct xdp_md *ctx)
{
	__u32 strip = 0, save_off = 0, slot;
	struct mk_parse p;
	int ret;

	/* one counter per frame, its outcome: rx is their sum, derived in user space */
	ret = parse_frame(ctx, &p);
	if (ret == MK_PARSE_NON_IP)
		/* a bridge forwards ARP whatever the policy: nothing works without it */
		return uninspected(MK_STAT_PASS_NON_IP, MK_STAT_FWD_NON_IP, MK_STAT_FWD_NON_IP,
				   MK_IPS_FORWARD);
	if (ret != MK_PARSE_IP) {
		stat_inc(mk_reason_stat(p.reason));
		return uninspected(MK_STAT_PASS_ERROR, MK_STAT_FWD_ERROR, MK_STAT_DROP_ERROR,
				   mk_ips_unparsable);
	}
	if ((p.flags & (MK_META_F_FRAGMENT | MK_META_F_DEPTH_EXCEEDED)) || p.tunnel_mask)
		count_info(&p);

	/* IPS: a flow a drop verdict blocked never reaches a worker again */
	if (mk_mode == MK_MODE_IPS && mk_flow_drop_entries &&
	    bpf_map_lookup_elem(&mk_flow_drop, &p.key))
		return outcome(MK_STAT_DROP_FLOW_BLOCKED, XDP_DROP);

	if (cidr_bypassed(&p))
		return bypass_verdict(MK_STAT_DROP_CIDR_BYPASS, MK_STAT_FWD_CIDR_BYPASS);
	if (flow_bypassed(ctx, &p))
		return bypass_verdict(MK_STAT_DROP_FLOW_BYPASS, MK_STAT_FWD_FLOW_BYPASS);

	slot = xsk_slot(&p, ctx->rx_queue_index);
	/*
	 * Redirect first, rewrite after: bpf_redirect_map only records the target
	 * (the kernel acts on it once the program returns XDP_REDIRECT), and its
	 * answer says whether the slot holds a socket, so no separate lookup is
	 * needed to leave the frame untouched when nobody will read it.
	 */
	if (ctx->rx_queue_index >= mk_queues)
		return uninspected(MK_STAT_PASS_NO_SOCKET, MK_STAT_FWD_NO_SOCKET,
				   MK_STAT_DROP_NO_SOCKET, mk_ips_failure);
	ret = bpf_redirect_map(&mk_xsks, slot, XDP_PASS);
	/*
	 * No socket: the daemon is gone (a crash closes its sockets, which
	 * leaves the slots empty); in IPS mode ips.failure decides, so that a
	 * SIGKILL does not cut the link (fail-open) or does (fail-closed).
	 */
	if (ret != XDP_REDIRECT)
		return uninspected(MK_STAT_PASS_NO_SOCKET, MK_STAT_FWD_NO_SOCKET,
				   MK_STAT_DROP_NO_SOCKET, mk_ips_failure);

	/*
	 * IPS: the worker transmits the frame it got, so the frame keeps its
	 * tunnels; without metadata the worker parses it itself (meta_missing).
	 */
	if (mk_mode == MK_MODE_IPS && p.tunnel_depth)
		return outcome(MK_STAT_REDIRECT_XSK, XDP_REDIRECT);
	if (p.tunnel_depth) {
		ret = decap(ctx, &p, &strip, &save_off);
		if (ret == -2)
			return XDP_ABORTED;
		if (ret)
			return outcome(MK_STAT_PASS_ERROR, XDP_PASS);
	}
	write_meta(ctx, &p);
	if (mk_bench_restore && bench_restore(ctx, strip, save_off))
		return XDP_ABORTED;
	return outcome(MK_STAT_REDIRECT_XSK, XDP_REDIRECT);
}

char _license[] SEC("license") = "GPL";
