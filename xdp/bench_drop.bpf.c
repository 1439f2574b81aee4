// SPDX-License-Identifier: GPL-2.0-only
/*
 * Baselines for test/bench/bench_xdp: the cheapest XDP program there is, and
 * the cost of the bench restore measured on its own.
 *
 * BPF_PROG_RUN does not reset the frame between repeats, so meerkat runs in
 * the bench with mk_bench_restore: after its work it undoes its rewrite
 * (bpf_xdp_adjust_meta back; for a tunnel also bpf_xdp_adjust_head back and
 * the overwritten bytes, saved before, copied back). bench_restore does
 * the same helper calls in pairs (each rewrite and its undo: the same kernel
 * path with opposite offsets) and, with bench_copy, the same save and copy
 * back, so the restore's share of meerkat's time can be computed and
 * subtracted (test/bench/bench_xdp.c, docs/performance.md).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* struct mk_meta + the rebuilt Ethernet header, rounded up to whole words: copied a word at a time */
#define RESTORE_WORDS 6

/* Set by the bench before each run: what meerkat strips from the frame. */
__u32 bench_strip = 0;
__u32 bench_save_off = 0;
__u8 bench_copy = 0;

SEC("xdp")
int bench_drop(struct xdp_md *ctx __attribute__((unused)))
{
	return XDP_DROP;
}

SEC("xdp")
int bench_restore(struct xdp_md *ctx)
{
	__u32 strip = bench_strip & 0xfff, save_off = bench_save_off & 0xfff;
	__u64 orig[RESTORE_WORDS], *o;
	int i;

	if (strip) {
		if (bench_copy) {
			o = (void *)((__u8 *)(long)ctx->data + save_off);
			if ((void *)(o + RESTORE_WORDS) > (void *)(long)ctx->data_end)
				return XDP_ABORTED;
			for (i = 0; i < RESTORE_WORDS; i++)
				orig[i] = o[i];
		}
		if (bpf_xdp_adjust_head(ctx, (int)strip))
			return XDP_ABORTED;
	}
	if (bpf_xdp_adjust_meta(ctx, -32) || bpf_xdp_adjust_meta(ctx, 32))
		return XDP_ABORTED;
	if (strip) {
		if (bpf_xdp_adjust_head(ctx, -(int)strip))
			return XDP_ABORTED;
		if (bench_copy) {
			o = (void *)((__u8 *)(long)ctx->data + save_off);
			if ((void *)(o + RESTORE_WORDS) > (void *)(long)ctx->data_end)
				return XDP_ABORTED;
			for (i = 0; i < RESTORE_WORDS; i++)
				o[i] = orig[i];
		}
	}
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
