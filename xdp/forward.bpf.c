// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fail-open forwarder (docs/bypass.md, "Fail-open and fail-closed"): what
 * an inline sensor leaves attached to both interfaces of a pair while meerkat
 * is not running, so that traffic keeps flowing uninspected. Every frame goes
 * to the peer of the interface it arrived on, as the DEVMAP_HASH says
 * (ingress ifindex -> peer ifindex); a frame of an interface without a peer
 * is passed to the stack. Nothing is parsed, counted or pinned: the attached
 * program holds its map, and detaching it frees both.
 *
 * The same program is the benchmark's plain XDP_REDIRECT forwarder
 * (test/bench/bench_ips.sh), the ceiling of the inline path.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} mk_fwd_peer SEC(".maps");

SEC("xdp")
int meerkat_fwd(struct xdp_md *ctx)
{
	return bpf_redirect_map(&mk_fwd_peer, ctx->ingress_ifindex, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
