// SPDX-License-Identifier: GPL-2.0-only
/* Baseline for test/bench: the cheapest XDP program there is. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int bench_drop(struct xdp_md *ctx __attribute__((unused)))
{
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
