// SPDX-License-Identifier: GPL-2.0-only
/*
 * xdp_verifier_stats: loads the meerkat XDP program under the parser
 * configurations that make the verifier work hardest (every tunnel decoder
 * on, each tunnel depth, the bench restore) and prints, per configuration,
 * the instructions the verifier processed (its limit is 1,000,000 per
 * program), the translated and the JIT-compiled size. Fails when a
 * configuration does not load or leaves less headroom than MIN_HEADROOM, so
 * a parser change that approaches the limit shows up in CI, not on a sensor.
 * `-v` prints the verifier's log of a failed load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "loader.h"
#include "log.h"

#define VERIFIER_LIMIT 1000000u
/* at least this share of the limit stays free for the tunnels still to come */
#define MIN_HEADROOM_PCT 40u

struct vcase {
	const char *name;
	__u8 depth;
	__u16 tunnel_off;
	bool bench_restore;
};

static const struct vcase cases[] = {
	{ "default (depth 2, every tunnel)", MK_TUNNEL_DEPTH_DEFAULT, 0, false },
	{ "depth 0", 0, 0, false },
	{ "depth 1", 1, 0, false },
	{ "depth 3 (maximum)", MK_TUNNEL_DEPTH_MAX, 0, false },
	{ "depth 3, only GTP-U and L2TP", MK_TUNNEL_DEPTH_MAX,
	  MK_TUN_ALL & ~(MK_TUN_GTPU | MK_TUN_L2TP), false },
	{ "depth 3, bench restore", MK_TUNNEL_DEPTH_MAX, 0, true },
};

int main(int argc, char **argv)
{
	unsigned int i, failed = 0;
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");

	if (geteuid() != 0) {
		printf("skipped: loading a BPF program needs root (CAP_BPF)\n");
		return 77;
	}
	mk_log_set_level(verbose ? MK_LOG_DEBUG : MK_LOG_ERROR);
	mk_log_route_libs();
	printf("%-34s %14s %9s %9s %8s\n", "configuration", "verified insns", "xlated B", "JIT B",
	       "headroom");
	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		const struct vcase *c = &cases[i];
		struct mk_loader_opts o;
		struct mk_loader l;
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int err;

		mk_loader_opts_default(&o);
		o.tunnel_depth = c->depth;
		o.tunnel_off = c->tunnel_off;
		o.bench_restore = c->bench_restore;
		err = mk_loader_open(&l, &o);
		if (err) {
			printf("%-34s %14s (%s)%s\n", c->name, "NOT LOADED", strerror(-err),
			       verbose ? "" : "; -v shows the verifier log");
			failed++;
			continue;
		}
		memset(&info, 0, sizeof(info));
		err = bpf_obj_get_info_by_fd(mk_loader_prog_fd(&l), &info, &len) ? -errno : 0;
		mk_loader_close(&l);
		if (err) {
			printf("%-34s cannot read program info: %s\n", c->name, strerror(-err));
			failed++;
			continue;
		}
		printf("%-34s %14u %9u %9u %7.1f%%\n", c->name, info.verified_insns,
		       info.xlated_prog_len, info.jited_prog_len,
		       100.0 * (VERIFIER_LIMIT - info.verified_insns) / VERIFIER_LIMIT);
		if (info.verified_insns > VERIFIER_LIMIT / 100 * (100 - MIN_HEADROOM_PCT)) {
			printf("  less than %u%% of the verifier's limit left\n", MIN_HEADROOM_PCT);
			failed++;
		}
	}
	return failed ? 1 : 0;
}
