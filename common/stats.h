/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters of the XDP program: one per-CPU array indexed by enum mk_stat.
 * The list below is the only place a counter is defined; the enum and the
 * user-space name table are both generated from it. Files that change with it:
 * xdp/meerkat.bpf.c (who increments), userspace/ctl/stats.c (printing),
 * docs/reference.md (meaning), test/bpf/ (expected deltas).
 *
 * Accounting invariant (DESIGN 1.5): every frame increments MK_STAT_RX and
 * exactly one OUTCOME counter. A frame with outcome PASS_ERROR also increments
 * exactly one ERR_ reason counter. INFO counters describe frames further
 * (tunnels stripped, fragments) and do not take part in the equation.
 */
#ifndef MK_STATS_H
#define MK_STATS_H

#include "compat.h"

#define MK_STAT_OUTCOMES(X)                                                                        \
	X(PASS_NON_IP, "pass_non_ip", "non-IP frame (ARP, LLDP, ...) passed to the stack")         \
	X(PASS_ERROR, "pass_error", "malformed or truncated frame passed to the stack")            \
	X(PASS_NO_SOCKET, "pass_no_socket", "no AF_XDP socket in the worker's slot: passed")        \
	X(DROP_CIDR_BYPASS, "drop_cidr_bypass", "address in the CIDR bypass list: dropped (IDS)")  \
	X(DROP_FLOW_BYPASS, "drop_flow_bypass", "flow in the flow bypass map: dropped (IDS)")      \
	X(FWD_CIDR_BYPASS, "fwd_cidr_bypass", "address in the CIDR bypass list: sent to peer (IPS)") \
	X(FWD_FLOW_BYPASS, "fwd_flow_bypass", "flow in the flow bypass map: sent to peer (IPS)")   \
	X(PASS_NO_PEER, "pass_no_peer", "IPS bypass but no peer interface in the DEVMAP: passed")  \
	X(REDIRECT_XSK, "redirect_xsk", "redirected to the worker's AF_XDP socket")

#define MK_STAT_ERRORS(X)                                                                          \
	X(ERR_TRUNC_ETH, "err_trunc_eth", "frame shorter than an Ethernet header")                 \
	X(ERR_TRUNC_VLAN, "err_trunc_vlan", "truncated 802.1Q/802.1ad tag")                        \
	X(ERR_VLAN_DEPTH, "err_vlan_depth", "more than 2 VLAN tags")                               \
	X(ERR_TRUNC_IPV4, "err_trunc_ipv4", "truncated IPv4 header or options")                    \
	X(ERR_BAD_IPV4, "err_bad_ipv4", "IPv4 version, IHL or total length invalid")               \
	X(ERR_TRUNC_IPV6, "err_trunc_ipv6", "truncated IPv6 header or extension header")           \
	X(ERR_BAD_IPV6, "err_bad_ipv6", "IPv6 version invalid or too many extension headers")      \
	X(ERR_TRUNC_L4, "err_trunc_l4", "truncated TCP/UDP/ICMP/SCTP header")                      \
	X(ERR_BAD_L4, "err_bad_l4", "TCP data offset below 5")                                     \
	X(ERR_TRUNC_TUNNEL, "err_trunc_tunnel", "truncated GTP-U/L2TP/PPP header")                 \
	X(ERR_BAD_TUNNEL, "err_bad_tunnel", "tunnel header invalid (inner not IP, ext walk too long)") \
	X(ERR_HDR_TOO_LONG, "err_hdr_too_long", "headers extend past the parser's offset limit")   \
	X(ERR_DECAP, "err_decap", "bpf_xdp_adjust_head failed while stripping a tunnel")

#define MK_STAT_INFO(X)                                                                            \
	X(RX, "rx", "frames seen by the program")                                                 \
	X(TUNNEL_GTPU, "tunnel_gtpu", "GTP-U tunnels stripped")                                    \
	X(TUNNEL_L2TPV2, "tunnel_l2tpv2", "L2TPv2 tunnels stripped")                               \
	X(TUNNEL_L2TPV3, "tunnel_l2tpv3", "L2TPv3 tunnels stripped")                               \
	X(TUNNEL_DEPTH_EXCEEDED, "tunnel_depth_exceeded", "tunnel deeper than the configured depth left in place") \
	X(FRAGMENT, "fragment", "IP fragments (hashed on the address pair)")                      \
	X(META_FAIL, "meta_fail", "bpf_xdp_adjust_meta failed: frame delivered without metadata") \
	X(BYPASS_LRU_INSERT, "bypass_lru_insert", "reserved: bypass entries inserted by XDP (none today)")

#define MK_STAT_ENUM(name, str, doc) MK_STAT_##name,
enum mk_stat {
	MK_STAT_OUTCOMES(MK_STAT_ENUM)
	MK_STAT_ERRORS(MK_STAT_ENUM)
	MK_STAT_INFO(MK_STAT_ENUM)
	MK_STAT_MAX
};
#undef MK_STAT_ENUM

#define MK_STAT_OUTCOME_FIRST MK_STAT_PASS_NON_IP
#define MK_STAT_OUTCOME_LAST MK_STAT_REDIRECT_XSK
#define MK_STAT_ERR_FIRST MK_STAT_ERR_TRUNC_ETH
#define MK_STAT_ERR_LAST MK_STAT_ERR_DECAP

/*
 * Why the parser gave up on a frame. Values map 1:1 onto the ERR_ counters:
 * stat index = MK_STAT_ERR_FIRST + reason - 1.
 */
#define MK_REASON_ENUM(name, str, doc) MK_REASON_##name,
enum mk_drop_reason {
	MK_REASON_NONE = 0,
	MK_STAT_ERRORS(MK_REASON_ENUM)
	MK_REASON_MAX
};
#undef MK_REASON_ENUM

MK_INLINE __u32 mk_reason_stat(__u32 reason)
{
	return MK_STAT_ERR_FIRST + reason - 1;
}

_Static_assert(MK_STAT_MAX <= 64, "stats array has 64 slots");
#define MK_STAT_SLOTS 64

#ifndef __bpf__
/* Name and one-line meaning of every counter, indexed by enum mk_stat. */
struct mk_stat_desc {
	const char *name;
	const char *doc;
};
#define MK_STAT_DESC(name, str, doc) [MK_STAT_##name] = { str, doc },
static const struct mk_stat_desc mk_stat_descs[MK_STAT_MAX] = {
	MK_STAT_OUTCOMES(MK_STAT_DESC)
	MK_STAT_ERRORS(MK_STAT_DESC)
	MK_STAT_INFO(MK_STAT_DESC)
};
#undef MK_STAT_DESC

/*
 * The two sums of the accounting invariant over a counter snapshot (or over
 * the deltas one frame caused): it holds when rx == outcomes and
 * pass_error == errors.
 */
struct mk_stat_sums {
	__u64 outcomes;
	__u64 errors;
};

static inline struct mk_stat_sums mk_stat_sum(const __u64 *v)
{
	struct mk_stat_sums s = { 0, 0 };
	int k;

	for (k = MK_STAT_OUTCOME_FIRST; k <= MK_STAT_OUTCOME_LAST; k++)
		s.outcomes += v[k];
	for (k = MK_STAT_ERR_FIRST; k <= MK_STAT_ERR_LAST; k++)
		s.errors += v[k];
	return s;
}

static inline int mk_stat_invariant_holds(const __u64 *v)
{
	struct mk_stat_sums s = mk_stat_sum(v);

	return v[MK_STAT_RX] == s.outcomes && v[MK_STAT_PASS_ERROR] == s.errors;
}
#endif

#endif /* MK_STATS_H */
