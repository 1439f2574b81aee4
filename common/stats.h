/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters of the XDP program: one per-CPU array indexed by enum mk_stat.
 * The list below is the only place a counter is defined; the enum and the
 * user-space name table are both generated from it. Files that change with it:
 * xdp/meerkat.bpf.c (who increments), userspace/ctl/xdp_stats.c (printing),
 * docs/reference.md (meaning), test/bpf/ (expected deltas).
 *
 * Accounting invariant (DESIGN 1.5): every frame increments exactly one
 * OUTCOME counter, and nothing else on the common path: one counter update
 * per frame. MK_STAT_RX is not written by the program; user space derives it
 * as the sum of the outcomes (mk_stat_derive). A frame with outcome
 * PASS_ERROR (IPS: FWD_ERROR or DROP_ERROR) also increments exactly one ERR_
 * reason counter. INFO counters
 * describe frames further (tunnels stripped, fragments) and do not take part
 * in the equation.
 */
#ifndef MK_STATS_H
#define MK_STATS_H

#include "compat.h"
#include "meta.h"

#define MK_STAT_OUTCOMES(X)                                                                       \
	X(PASS_NON_IP, "pass_non_ip", "non-IP frame (ARP, LLDP, ...) passed to the stack")        \
	X(PASS_ERROR, "pass_error", "malformed or truncated frame passed to the stack")           \
	X(PASS_NO_SOCKET, "pass_no_socket", "no AF_XDP socket in the worker's slot: passed")      \
	X(DROP_CIDR_BYPASS, "drop_cidr_bypass", "address in the CIDR bypass list: dropped (IDS)") \
	X(DROP_FLOW_BYPASS, "drop_flow_bypass", "flow in the flow bypass map: dropped (IDS)")     \
	X(FWD_CIDR_BYPASS, "fwd_cidr_bypass",                                                     \
	  "address in the CIDR bypass list: sent to peer (IPS)")                                  \
	X(FWD_FLOW_BYPASS, "fwd_flow_bypass", "flow in the flow bypass map: sent to peer (IPS)")  \
	X(PASS_NO_PEER, "pass_no_peer", "IPS bypass but no peer interface in the DEVMAP: passed") \
	X(REDIRECT_XSK, "redirect_xsk", "redirected to the worker's AF_XDP socket")               \
	X(FWD_NON_IP, "fwd_non_ip", "non-IP frame (ARP, LLDP, ...) sent to the peer (IPS)")       \
	X(FWD_ERROR, "fwd_error",                                                                 \
	  "malformed frame sent to the peer (IPS, ips.unparsable: forward)")                      \
	X(DROP_ERROR, "drop_error", "malformed frame dropped (IPS, ips.unparsable: drop)")        \
	X(FWD_NO_SOCKET, "fwd_no_socket",                                                         \
	  "no AF_XDP socket (daemon gone): sent to the peer (IPS, ips.failure: open)")            \
	X(DROP_NO_SOCKET, "drop_no_socket",                                                       \
	  "no AF_XDP socket (daemon gone): dropped (IPS, ips.failure: closed)")                   \
	X(DROP_FLOW_BLOCKED, "drop_flow_blocked",                                                 \
	  "flow in the drop map (a drop verdict): dropped (IPS)")

#define MK_STAT_ERRORS(X)                                                                                   \
	X(ERR_TRUNC_ETH, "err_trunc_eth", "frame shorter than an Ethernet header")                          \
	X(ERR_TRUNC_VLAN, "err_trunc_vlan", "truncated VLAN tag (0x8100, 0x88a8 or 0x9100)")                \
	X(ERR_VLAN_DEPTH, "err_vlan_depth", "more than 2 VLAN tags in one Ethernet header")                 \
	X(ERR_TRUNC_IPV4, "err_trunc_ipv4", "truncated IPv4 header or options")                             \
	X(ERR_BAD_IPV4, "err_bad_ipv4", "IPv4 version, IHL or total length invalid")                        \
	X(ERR_TRUNC_IPV6, "err_trunc_ipv6", "truncated IPv6 header or extension header")                    \
	X(ERR_BAD_IPV6, "err_bad_ipv6", "IPv6 version invalid or too many extension headers")               \
	X(ERR_TRUNC_L4, "err_trunc_l4", "truncated TCP/UDP/ICMP/SCTP header")                               \
	X(ERR_BAD_L4, "err_bad_l4", "TCP data offset below 5")                                              \
	X(ERR_TRUNC_TUNNEL, "err_trunc_tunnel",                                                             \
	  "truncated tunnel header (GTP-U, L2TP/PPP, VXLAN, Geneve, GRE, ERSPAN) or inner Ethernet header") \
	X(ERR_BAD_TUNNEL, "err_bad_tunnel",                                                                 \
	  "tunnel header invalid (GTP-U extension walk, L2TP offset)")                                      \
	X(ERR_HDR_TOO_LONG, "err_hdr_too_long", "headers extend past the parser's offset limit")            \
	X(ERR_DECAP, "err_decap", "bpf_xdp_adjust_head failed while stripping a tunnel")

#define MK_STAT_INFO(X)                                                                           \
	X(RX, "rx", "frames seen by the program (derived: the sum of the outcome counters)")      \
	X(TUNNEL_GTPU, "tunnel_gtpu", "GTP-U tunnels stripped")                                   \
	X(TUNNEL_L2TPV2, "tunnel_l2tpv2", "L2TPv2 tunnels stripped")                              \
	X(TUNNEL_L2TPV3, "tunnel_l2tpv3", "L2TPv3 tunnels stripped")                              \
	X(TUNNEL_VXLAN, "tunnel_vxlan", "VXLAN tunnels stripped")                                 \
	X(TUNNEL_GENEVE, "tunnel_geneve", "Geneve tunnels stripped")                              \
	X(TUNNEL_GRE, "tunnel_gre", "GRE tunnels stripped (IP or Ethernet inside)")               \
	X(TUNNEL_ERSPAN, "tunnel_erspan", "ERSPAN (type I, II or III) tunnels stripped")          \
	X(TUNNEL_IPIP, "tunnel_ipip", "IP-in-IP tunnels stripped (4in4, 6in4, 4in6, 6in6)")       \
	X(TUNNEL_DEPTH_EXCEEDED, "tunnel_depth_exceeded",                                         \
	  "tunnel deeper than the configured depth left in place")                                \
	X(FRAGMENT, "fragment", "IP fragments (hashed on the address pair)")                      \
	X(META_FAIL, "meta_fail", "bpf_xdp_adjust_meta failed: frame delivered without metadata") \
	X(BYPASS_LRU_INSERT, "bypass_lru_insert",                                                 \
	  "reserved: bypass entries inserted by XDP (none today)")

#define MK_STAT_ENUM(name, str, doc) MK_STAT_##name,
enum mk_stat {
	MK_STAT_OUTCOMES(MK_STAT_ENUM) MK_STAT_ERRORS(MK_STAT_ENUM) MK_STAT_INFO(MK_STAT_ENUM)
		MK_STAT_MAX
};
#undef MK_STAT_ENUM

#define MK_STAT_OUTCOME_FIRST MK_STAT_PASS_NON_IP
#define MK_STAT_OUTCOME_LAST MK_STAT_DROP_FLOW_BLOCKED
#define MK_STAT_ERR_FIRST MK_STAT_ERR_TRUNC_ETH
#define MK_STAT_ERR_LAST MK_STAT_ERR_DECAP

/*
 * Why the parser gave up on a frame. Values map 1:1 onto the ERR_ counters:
 * stat index = MK_STAT_ERR_FIRST + reason - 1.
 */
#define MK_REASON_ENUM(name, str, doc) MK_REASON_##name,
enum mk_drop_reason { MK_REASON_NONE = 0, MK_STAT_ERRORS(MK_REASON_ENUM) MK_REASON_MAX };
#undef MK_REASON_ENUM

MK_INLINE __u32 mk_reason_stat(__u32 reason)
{
	return MK_STAT_ERR_FIRST + reason - 1;
}

/* The counter of a tunnel type (enum mk_tunnel_type); both L2TPv3 variants share one. */
MK_INLINE __u32 mk_tunnel_stat(__u32 type)
{
	switch (type) {
	case MK_TUNNEL_GTPU:
		return MK_STAT_TUNNEL_GTPU;
	case MK_TUNNEL_L2TPV2:
		return MK_STAT_TUNNEL_L2TPV2;
	case MK_TUNNEL_L2TPV3_IP:
	case MK_TUNNEL_L2TPV3_UDP:
		return MK_STAT_TUNNEL_L2TPV3;
	case MK_TUNNEL_VXLAN:
		return MK_STAT_TUNNEL_VXLAN;
	case MK_TUNNEL_GENEVE:
		return MK_STAT_TUNNEL_GENEVE;
	case MK_TUNNEL_GRE:
		return MK_STAT_TUNNEL_GRE;
	case MK_TUNNEL_ERSPAN:
		return MK_STAT_TUNNEL_ERSPAN;
	default:
		return MK_STAT_TUNNEL_IPIP;
	}
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
static const struct mk_stat_desc mk_stat_descs[MK_STAT_MAX] = { MK_STAT_OUTCOMES(
	MK_STAT_DESC) MK_STAT_ERRORS(MK_STAT_DESC) MK_STAT_INFO(MK_STAT_DESC) };
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

/*
 * Fills in what the program does not count itself, from a snapshot of the
 * map (summed over CPUs): rx. Every reader calls it once per snapshot.
 */
static inline void mk_stat_derive(__u64 *v)
{
	v[MK_STAT_RX] = mk_stat_sum(v).outcomes;
}

/* Frames with an error outcome: passed (IDS), or forwarded or dropped by ips.unparsable. */
static inline __u64 mk_stat_error_frames(const __u64 *v)
{
	return v[MK_STAT_PASS_ERROR] + v[MK_STAT_FWD_ERROR] + v[MK_STAT_DROP_ERROR];
}

static inline int mk_stat_invariant_holds(const __u64 *v)
{
	struct mk_stat_sums s = mk_stat_sum(v);

	return v[MK_STAT_RX] == s.outcomes && mk_stat_error_frames(v) == s.errors;
}
#endif

#endif /* MK_STATS_H */
