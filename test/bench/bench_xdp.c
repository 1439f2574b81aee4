// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_xdp: nanoseconds per frame of the meerkat XDP program under
 * BPF_PROG_RUN, next to the cheapest XDP program there is (xdp/bench_drop)
 * measured in the same run on the same frames, so figures from different
 * machines compare as ratios.
 *
 * BPF_PROG_RUN does not reset the frame between repeats, so meerkat is loaded
 * with mk_bench_restore=1: it undoes its decapsulation and metadata before
 * returning. The figures include that restore and are an upper bound on the
 * real per-frame cost. Sockets are bound to lo in a private network
 * namespace so that the program takes its full path (decap, metadata,
 * redirect); test runs never deliver into them.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench_drop.skel.h"
#include "frames.h"
#include "loader.h"
#include "log.h"
#include "parse.h"

#define BENCH_REPEAT_DEFAULT 2000000u
#define BENCH_ROUNDS_DEFAULT 5u

enum bench_kind { K_PLAIN, K_TUNNEL };

struct bench_case {
	const char *name;
	enum bench_kind kind;
	bool bypass;
	__u32 want_verdict;
	struct frame f;
	double base_ns;
	double mk_ns;
};

static const char *const verdict_names[] = {"ABORTED", "DROP", "PASS", "TX", "REDIRECT"};

static const __u8 mac_a[6] = {0x02, 0, 0, 0, 0, 0x0a}, mac_b[6] = {0x02, 0, 0, 0, 0, 0x0b};
static const __u8 v4_a[4] = {10, 0, 0, 1}, v4_b[4] = {10, 0, 0, 2};
static const __u8 v4_oa[4] = {192, 0, 2, 1}, v4_ob[4] = {192, 0, 2, 2};
static const __u8 v6_a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const __u8 v6_b[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
/* a small request's worth of payload: the parser never reads it */
static const char payload[64] = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";

static void build_ipv4_tcp(struct frame *f)
{
	frame_ipv4(f, v4_a, v4_b, 6);
	frame_tcp(f, 40000, 80);
	frame_bytes(f, payload, sizeof(payload));
}

static void build_cases(struct bench_case *c)
{
	struct frame *f;

	c[0] =
	    (struct bench_case){.name = "ipv4_tcp", .kind = K_PLAIN, .want_verdict = XDP_REDIRECT};
	f = &c[0].f;
	frame_init(f);
	frame_eth(f, mac_b, mac_a, 0x0800);
	build_ipv4_tcp(f);

	c[1] =
	    (struct bench_case){.name = "ipv6_tcp", .kind = K_PLAIN, .want_verdict = XDP_REDIRECT};
	f = &c[1].f;
	frame_init(f);
	frame_eth(f, mac_b, mac_a, 0x86dd);
	frame_ipv6(f, v6_a, v6_b, 6);
	frame_tcp(f, 40000, 443);
	frame_bytes(f, payload, sizeof(payload));

	c[2] = (struct bench_case){
	    .name = "gtpu_ipv4_tcp", .kind = K_TUNNEL, .want_verdict = XDP_REDIRECT};
	f = &c[2].f;
	frame_init(f);
	frame_eth(f, mac_b, mac_a, 0x0800);
	frame_ipv4(f, v4_oa, v4_ob, 17);
	frame_udp(f, 2152, 2152);
	frame_gtpu(f, 0x1234);
	build_ipv4_tcp(f);

	c[3] = (struct bench_case){
	    .name = "l2tpv2_ipv4_tcp", .kind = K_TUNNEL, .want_verdict = XDP_REDIRECT};
	f = &c[3].f;
	frame_init(f);
	frame_eth(f, mac_b, mac_a, 0x0800);
	frame_ipv4(f, v4_oa, v4_ob, 17);
	frame_udp(f, 1701, 1701);
	frame_l2tpv2_ppp(f, 5, 7, 0x0021);
	build_ipv4_tcp(f);

	c[4] = (struct bench_case){
	    .name = "flow_bypass_hit", .kind = K_PLAIN, .bypass = true, .want_verdict = XDP_DROP};
	f = &c[4].f;
	frame_init(f);
	frame_eth(f, mac_b, mac_a, 0x0800);
	build_ipv4_tcp(f);

	for (int i = 0; i < 5; i++)
		frame_finish(&c[i].f);
}

/* One BPF_PROG_RUN of @repeat iterations; returns the kernel's mean ns per run. */
static int time_run(int prog_fd, const struct frame *f, __u32 repeat, __u32 *verdict, double *ns)
{
	struct xdp_md ctx_in = {.data_end = f->len};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = f->len,
		    .ctx_in = &ctx_in, .ctx_size_in = sizeof(ctx_in), .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	*verdict = o.retval;
	*ns = o.duration; /* the kernel reports ns per iteration */
	return 0;
}

/* With the restore, one run must leave the frame exactly as it came. */
static int check_restore(int prog_fd, const struct bench_case *c)
{
	__u8 out[FRAME_MAX + 64];
	struct xdp_md ctx_in = {.data_end = c->f.len}, ctx_out = {0};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = c->f.b, .data_size_in = c->f.len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx_in,
		    .ctx_size_in = sizeof(ctx_in), .ctx_out = &ctx_out,
		    .ctx_size_out = sizeof(ctx_out), .repeat = 1);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	if (o.retval != c->want_verdict) {
		mk_err("bench: %s: verdict %u, expected %s", c->name, o.retval,
		       verdict_names[c->want_verdict]);
		return -EPROTO;
	}
	if (ctx_out.data != 0 || ctx_out.data_end != c->f.len || memcmp(out, c->f.b, c->f.len)) {
		mk_err("bench: %s: the frame was not restored (meta %u, %u of %u bytes); figures "
		       "would be wrong",
		       c->name, ctx_out.data, ctx_out.data_end, c->f.len);
		for (__u32 i = 0; i < c->f.len && i < ctx_out.data_end; i++)
			if (out[i] != c->f.b[i])
				mk_err("  byte %u: %02x, want %02x", i, out[i], c->f.b[i]);
		return -EPROTO;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "Usage: bench_xdp [--repeat N] [--rounds N]\n"
	    "\n"
	    "Nanoseconds per frame of the meerkat XDP program under BPF_PROG_RUN next to\n"
	    "xdp/bench_drop (return XDP_DROP) on the same frames. Each figure is the median of\n"
	    "ROUNDS runs of N repeats (defaults %u and %u). Needs root.\n",
	    BENCH_ROUNDS_DEFAULT, BENCH_REPEAT_DEFAULT);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"repeat", required_argument, NULL, 'n'},
	    {"rounds", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct bench_case cases[5];
	__u32 repeat = BENCH_REPEAT_DEFAULT, rounds = BENCH_ROUNDS_DEFAULT, i, k, verdict;
	struct bench_drop_bpf *base = NULL;
	struct mk_loader_opts lopts;
	struct mk_loader l = {0};
	struct mk_xsk_set xsks = {0};
	double *samples_b = NULL, *samples_m = NULL;
	int c, err, rc = 1, base_fd, mk_fd;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			repeat = (__u32)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = (__u32)strtoul(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!repeat || !rounds) {
		usage(stderr);
		return 2;
	}
	mk_log_route_libs();
	if (geteuid() != 0) {
		mk_err("bench: needs root (BPF_PROG_RUN, AF_XDP sockets)");
		return 1;
	}
	/* only one UMEM per (device, queue): use a lo nobody else binds to */
	if (unshare(CLONE_NEWNET)) {
		mk_err("bench: unshare(CLONE_NEWNET): %s", strerror(errno));
		return 1;
	}
	build_cases(cases);
	samples_b = calloc(rounds, sizeof(double));
	samples_m = calloc(rounds, sizeof(double));
	if (!samples_b || !samples_m)
		goto out;

	base = bench_drop_bpf__open_and_load();
	if (!base) {
		mk_err("bench: cannot load bench_drop: %s", strerror(errno));
		goto out;
	}
	mk_loader_opts_default(&lopts);
	lopts.seed = 0x5eed1234;
	lopts.bench_restore = true;
	if (mk_loader_open(&l, &lopts) || mk_xsk_set_create(&xsks, &l, "lo", 0))
		goto out;
	base_fd = bpf_program__fd(base->progs.bench_drop);
	mk_fd = mk_loader_prog_fd(&l);

	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		struct bench_case *bc = &cases[i];

		if (bc->bypass) {
			struct mk_parse_cfg cfg = {.seed = lopts.seed,
						   .tunnel_depth = lopts.tunnel_depth};
			struct mk_frame f = {bc->f.b, bc->f.b + bc->f.len};
			struct mk_parse p;

			if (mk_parse_frame(&f, MK_START_ETH, &cfg, &p) != MK_PARSE_IP ||
			    mk_loader_bypass_add(&l, &p.key))
				goto out;
		}
		err = check_restore(mk_fd, bc);
		if (err)
			goto out;
		/* baseline and meerkat alternate so drift hits both alike */
		for (k = 0; k < rounds; k++) {
			err = time_run(base_fd, &bc->f, repeat, &verdict, &samples_b[k]);
			if (!err)
				err = time_run(mk_fd, &bc->f, repeat, &verdict, &samples_m[k]);
			if (err) {
				mk_err("bench: %s: BPF_PROG_RUN: %s", bc->name, strerror(-err));
				goto out;
			}
		}
		qsort(samples_b, rounds, sizeof(double), cmp_double);
		qsort(samples_m, rounds, sizeof(double), cmp_double);
		bc->base_ns = samples_b[rounds / 2];
		bc->mk_ns = samples_m[rounds / 2];
	}

	printf("meerkat XDP program under BPF_PROG_RUN, median of %u runs x %u repeats\n"
	       "baseline: xdp/bench_drop (return XDP_DROP) on the same frame, same run\n"
	       "figures include mk_bench_restore (undoing decap + metadata each repeat):\n"
	       "they are an upper bound on the per-frame cost\n\n",
	       rounds, repeat);
	printf("%-16s %5s %-8s %11s %11s %7s %6s %s\n", "frame", "bytes", "verdict", "baseline ns",
	       "meerkat ns", "ratio", "target", "result");
	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		const struct bench_case *bc = &cases[i];
		double ratio = bc->mk_ns / (bc->base_ns > 0 ? bc->base_ns : 1);
		double target = bc->kind == K_TUNNEL ? 6.0 : 4.0;

		printf("%-16s %5u %-8s %11.1f %11.1f %6.2fx %5.0fx %s\n", bc->name, bc->f.len,
		       verdict_names[bc->want_verdict], bc->base_ns, bc->mk_ns, ratio, target,
		       ratio <= target ? "PASS" : "MISS");
	}
	rc = 0;
out:
	mk_xsk_set_destroy(&xsks);
	mk_loader_close(&l);
	bench_drop_bpf__destroy(base);
	free(samples_b);
	free(samples_m);
	return rc;
}
