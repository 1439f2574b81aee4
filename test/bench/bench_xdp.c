// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_xdp: nanoseconds per frame of the meerkat XDP program under
 * BPF_PROG_RUN, next to the cheapest XDP program there is (xdp/bench_drop)
 * measured in the same run on the same frames, so figures from different
 * machines compare as ratios.
 *
 * BPF_PROG_RUN does not reset the frame between repeats, so meerkat is loaded
 * with mk_bench_restore=1: it undoes its decapsulation and metadata before
 * returning. That restore is not part of the program's cost: it is measured
 * on its own in the same rounds (xdp/bench_drop.bpf.c, bench_restore: the
 * same helper calls and copies) and subtracted. The table shows the raw
 * figure, the restore and the net figure; the ratio is net over baseline.
 *
 * Sockets are bound to lo in a private network namespace so that the program
 * takes its full path (decap, metadata, redirect); test runs never deliver
 * into them. The CIDR rows run with 10,000 IPv4 prefixes loaded: a hit, a miss in
 * /16s no prefix touches (the common case), a miss next to a prefix (the worst:
 * both addresses in a /24 that holds a /32). The flow bypass rows: a hit in
 * the bypass table, and one in the LRU map behind it (the flow's set full).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench_drop.skel.h"
#include "frames.h"
#include "loader.h"
#include "log.h"
#include "parse.h"
#include "meerkat.skel.h" /* the .bss prefilter switch the ablation turns */

#define BENCH_REPEAT_DEFAULT 1000000u
#define BENCH_ROUNDS_DEFAULT 11u
#define CALIBRATE_RUNS 21u
#define CIDR_PREFIXES 10000u

enum bench_kind {
	K_PLAIN,      /* miss path to the socket: issue 7 target 3.0x */
	K_TUNNEL,     /* GTP-U, L2TPv2, L2TPv3: 5.0x */
	K_NEW_TUNNEL, /* VXLAN, Geneve, GRE, ERSPAN, IP-in-IP: 5.5x */
	K_BYPASS,     /* flow bypass hit: 3.0x */
	K_CIDR,	      /* 10,000 CIDR prefixes loaded: 4.0x */
	K_BYPASS_MAP, /* flow bypass hit in the LRU map (the flow's table set full): no target */
};

static const double kind_target[] = { 3.0, 5.0, 5.5, 3.0, 4.0, 0 };

struct bench_case {
	const char *name;
	enum bench_kind kind;
	__u32 want_verdict;
	bool cidr_hit; /* K_CIDR: the frame's source is in a prefix */
	enum { MISS_NONE, MISS_UNCOVERED, MISS_NEAR } cidr_miss;
	struct frame f;
	__u32 strip; /* bytes meerkat strips (0: plain, or not rewritten) */
	struct mk_flow_key fill[MK_BYPASS_TABLE_WAYS]; /* K_BYPASS_MAP: the set's other flows */
	bool rewritten;
	/* medians over the rounds, and the spread of the ratio */
	double base_ns, raw_ns, restore_ns, net_ns, ratio, ratio_min, ratio_max;
};

static const char *const verdict_names[] = { "ABORTED", "DROP", "PASS", "TX", "REDIRECT" };

static const __u8 mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a }, mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const __u8 mac_c[6] = { 0x02, 0, 0, 0, 0, 0x0c }, mac_d[6] = { 0x02, 0, 0, 0, 0, 0x0d };
static const __u8 v4_a[4] = { 10, 0, 0, 1 }, v4_b[4] = { 10, 0, 0, 2 };
static const __u8 v4_oa[4] = { 192, 0, 2, 1 }, v4_ob[4] = { 192, 0, 2, 2 };
static const __u8 v6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const __u8 v6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
/* a small request's worth of payload: the parser never reads it */
static const char payload[64] = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";

static void inner_ipv4_tcp(struct frame *f)
{
	frame_ipv4(f, v4_a, v4_b, 6);
	frame_tcp(f, 40000, 80);
	frame_bytes(f, payload, sizeof(payload));
}

/* Outer Ethernet + IPv4 (protocol @proto) from 192.0.2.1 to 192.0.2.2. */
static void outer_ipv4(struct frame *f, __u8 proto)
{
	frame_init(f);
	frame_eth(f, mac_b, mac_a, 0x0800);
	frame_ipv4(f, v4_oa, v4_ob, proto);
}

static void inner_eth_ipv4_tcp(struct frame *f)
{
	frame_eth(f, mac_d, mac_c, 0x0800);
	inner_ipv4_tcp(f);
}

static unsigned int build_cases(struct bench_case *c)
{
	unsigned int n = 0;
	struct frame *f;

#define CASE(nm, k, v)                                                                          \
	(c[n] = (struct bench_case){ .name = nm, .kind = k, .want_verdict = v }, f = &c[n++].f, \
	 frame_init(f))
	CASE("ipv4_tcp", K_PLAIN, XDP_REDIRECT);
	frame_eth(f, mac_b, mac_a, 0x0800);
	inner_ipv4_tcp(f);

	CASE("ipv6_tcp", K_PLAIN, XDP_REDIRECT);
	frame_eth(f, mac_b, mac_a, 0x86dd);
	frame_ipv6(f, v6_a, v6_b, 6);
	frame_tcp(f, 40000, 443);
	frame_bytes(f, payload, sizeof(payload));

	CASE("vlan_ipv4_tcp", K_PLAIN, XDP_REDIRECT);
	frame_eth(f, mac_b, mac_a, 0x8100);
	frame_vlan(f, 0x8100, 100, 0x0800);
	inner_ipv4_tcp(f);

	CASE("gtpu_ipv4_tcp", K_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 17);
	frame_udp(f, 2152, 2152);
	frame_gtpu(f, 0x1234);
	inner_ipv4_tcp(f);

	CASE("l2tpv2_ipv4_tcp", K_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 17);
	frame_udp(f, 1701, 1701);
	frame_l2tpv2_ppp(f, 5, 7, 0x0021);
	inner_ipv4_tcp(f);

	CASE("l2tpv3_ipv4_tcp", K_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 115);
	frame_l2tpv3_ip(f, 0x10001);
	inner_eth_ipv4_tcp(f);

	CASE("vxlan_ipv4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 17);
	frame_udp(f, 49152, 4789);
	frame_vxlan(f, 5001);
	inner_eth_ipv4_tcp(f);

	CASE("geneve_ipv4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 17);
	frame_udp(f, 50000, 6081);
	frame_geneve(f, 0x123, 0x6558, 8);
	inner_eth_ipv4_tcp(f);

	CASE("gre_ipv4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 47);
	frame_gre(f, 0x0800, true, 42, false);
	inner_ipv4_tcp(f);

	CASE("gre_teb_ipv4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 47);
	frame_gre(f, 0x6558, false, 0, false);
	inner_eth_ipv4_tcp(f);

	CASE("erspan2_ipv4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 47);
	frame_gre(f, 0x88be, false, 0, true);
	frame_erspan2(f, 100);
	inner_eth_ipv4_tcp(f);

	CASE("erspan3_ipv4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 47);
	frame_gre(f, 0x22eb, false, 0, true);
	frame_erspan3(f, 100);
	inner_eth_ipv4_tcp(f);

	CASE("ipip_4in4_tcp", K_NEW_TUNNEL, XDP_REDIRECT);
	outer_ipv4(f, 4);
	inner_ipv4_tcp(f);

	CASE("flow_bypass_hit", K_BYPASS, XDP_DROP);
	frame_eth(f, mac_b, mac_a, 0x0800);
	inner_ipv4_tcp(f);

	/* the same flow behind four others of its table set: it lands in the LRU map */
	CASE("flow_bypass_map", K_BYPASS_MAP, XDP_DROP);
	frame_eth(f, mac_b, mac_a, 0x0800);
	inner_ipv4_tcp(f);

	/* addresses in /16s no prefix touches: the table's first level answers */
	CASE("cidr10k_miss", K_CIDR, XDP_REDIRECT);
	c[n - 1].cidr_miss = MISS_UNCOVERED;
	frame_eth(f, mac_b, mac_a, 0x0800);
	inner_ipv4_tcp(f);

	/* both addresses share a /24 with a /32: three table reads each, the worst case */
	CASE("cidr10k_miss_near", K_CIDR, XDP_REDIRECT);
	c[n - 1].cidr_miss = MISS_NEAR;
	frame_eth(f, mac_b, mac_a, 0x0800);
	inner_ipv4_tcp(f);

	CASE("cidr10k_hit", K_CIDR, XDP_DROP);
	c[n - 1].cidr_hit = true;
	frame_eth(f, mac_b, mac_a, 0x0800);
	inner_ipv4_tcp(f);
#undef CASE

	for (unsigned int i = 0; i < n; i++)
		frame_finish(&c[i].f);
	return n;
}

/*
 * The CPU time this thread spent in one BPF_PROG_RUN of @repeat iterations,
 * less the call's fixed cost (call_overhead_ns), per iteration. Not the
 * kernel's own figure: that one is whole nanoseconds (a 27.9 ns baseline
 * reads 27, 3 % of a ratio) and wall time, so on a virtual machine it counts
 * what the host takes from the vCPU; the thread's CPU time (paravirtual steal
 * accounting) does not. For @repeat > 1 the kernel swaps the program into the
 * XDP dispatcher before and out after (~0.25 ms of CPU per call, 0.25 ns per
 * iteration at a million): calibrate() measures it and it is subtracted.
 */
static double call_overhead_ns;
static bool kernel_clock; /* --kernel-clock: the kernel's own figure, for comparison */

static double cpu_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int time_run(int prog_fd, const struct frame *f, __u32 repeat, __u32 *verdict, double *ns)
{
	struct xdp_md ctx_in = { .data_end = f->len };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->b, .data_size_in = f->len,
		    .ctx_in = &ctx_in, .ctx_size_in = sizeof(ctx_in), .repeat = repeat);
	double t0 = cpu_now_ns(), t1;

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	t1 = cpu_now_ns();
	*verdict = o.retval;
	*ns = kernel_clock ? o.duration : (t1 - t0 - call_overhead_ns) / repeat;
	return 0;
}

/* With the restore, one run must leave the frame exactly as it came. */
static int check_restore(int prog_fd, const struct bench_case *c, __u32 want)
{
	__u8 out[FRAME_MAX + 64];
	struct xdp_md ctx_in = { .data_end = c->f.len }, ctx_out = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = c->f.b, .data_size_in = c->f.len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx_in,
		    .ctx_size_in = sizeof(ctx_in), .ctx_out = &ctx_out,
		    .ctx_size_out = sizeof(ctx_out), .repeat = 1);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	if (o.retval != want) {
		mk_err("bench: %s: verdict %u, expected %s", c->name, o.retval,
		       verdict_names[want]);
		return -EPROTO;
	}
	if (ctx_out.data != 0 || ctx_out.data_end != c->f.len || memcmp(out, c->f.b, c->f.len)) {
		mk_err("bench: %s: the frame was not restored (meta %u, %u of %u bytes); figures "
		       "would be wrong",
		       c->name, ctx_out.data, ctx_out.data_end, c->f.len);
		return -EPROTO;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * call_overhead_ns: the median CPU time of a two-iteration run of the
 * baseline (the dispatcher swap and the frame's setup, two 30 ns iterations
 * left in: 0.06 ns per iteration of a million).
 */
static int calibrate(int base_fd, const struct frame *f)
{
	double t[CALIBRATE_RUNS];
	__u32 verdict, i;
	int err;

	call_overhead_ns = 0;
	for (i = 0; i < CALIBRATE_RUNS; i++) {
		err = time_run(base_fd, f, 2, &verdict, &t[i]);
		if (err)
			return err;
		t[i] *= 2;
	}
	call_overhead_ns = median(t, CALIBRATE_RUNS);
	return 0;
}

/* 10,000 IPv4 prefixes: random ones of 16..28 bits outside 10/8 (where the frames live), and @hit/32. */
static int load_cidrs(struct mk_loader *l, const __u8 hit[4], bool add_hit)
{
	__u64 s = 0x9e3779b97f4a7c15ull;
	unsigned int i;
	int err;

	for (i = 0; i < CIDR_PREFIXES - add_hit; i++) {
		__u8 a[4];
		__u32 r;

		s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
		r = (__u32)((s * 0x2545f4914f6cdd1dull) >> 32);
		memcpy(a, &r, 4);
		if (a[0] == 10)
			a[0] = 11;
		err = mk_loader_cidr_add(l, AF_INET, a, 16 + r % 13);
		if (err)
			return err;
	}
	return add_hit ? mk_loader_cidr_add(l, AF_INET, hit, 32) : 0;
}

static void print_prog_info(const char *what, int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	printf("%s: %u instructions processed by the verifier, %u bytes xlated, %u bytes JIT\n",
	       what, info.verified_insns, info.xlated_prog_len, info.jited_prog_len);
}

/* A loaded meerkat with the default configuration, for its verifier figures only. */
static void print_production_info(const struct mk_loader_opts *bench)
{
	struct mk_loader_opts o = *bench;
	struct mk_loader l;

	o.bench_restore = false;
	if (mk_loader_open(&l, &o))
		return;
	print_prog_info("meerkat_xdp as deployed", mk_loader_prog_fd(&l));
	mk_loader_close(&l);
}

struct samples {
	double *base, *raw, *rst, *net, *ratio;
};

struct result {
	double base_ns, raw_ns, restore_ns, net_ns, ratio, ratio_min, ratio_max;
};

/*
 * @rounds rounds of: baseline, meerkat (@mk_fd), and for a rewritten frame the
 * restore measured on its own (bench_restore without and with the copies);
 * baseline, meerkat and the restore alternate so drift hits all alike.
 */
static int measure(struct bench_drop_bpf *base, int mk_fd, const struct bench_case *bc,
		   __u32 repeat, __u32 rounds, struct samples *sm, struct result *res)
{
	int base_fd = bpf_program__fd(base->progs.bench_drop);
	int rst_fd = bpf_program__fd(base->progs.bench_restore);
	__u32 k, verdict;
	double p0, p1;
	int err;

	base->bss->bench_strip = bc->strip;
	base->bss->bench_save_off = bc->strip > 32 ? bc->strip - 32 : 0;
	err = check_restore(mk_fd, bc, bc->want_verdict);
	if (!err && bc->rewritten)
		err = check_restore(rst_fd, bc, XDP_DROP);
	if (err)
		return err;
	for (k = 0; k < rounds; k++) {
		err = time_run(base_fd, &bc->f, repeat, &verdict, &sm->base[k]);
		if (!err)
			err = time_run(mk_fd, &bc->f, repeat, &verdict, &sm->raw[k]);
		p0 = p1 = sm->base[k];
		if (!err && bc->rewritten) {
			base->bss->bench_copy = 0;
			err = time_run(rst_fd, &bc->f, repeat, &verdict, &p0);
			p1 = p0;
			if (!err && bc->strip) {
				base->bss->bench_copy = 1;
				err = time_run(rst_fd, &bc->f, repeat, &verdict, &p1);
			}
		}
		if (err) {
			mk_err("bench: %s: BPF_PROG_RUN: %s", bc->name, strerror(-err));
			return err;
		}
		/* half the helper pairs (the undo of each pair), all of the copies */
		sm->rst[k] = (p0 - sm->base[k]) / 2 + (p1 - p0);
		if (sm->rst[k] < 0)
			sm->rst[k] = 0;
		sm->net[k] = sm->raw[k] - sm->rst[k];
		sm->ratio[k] = sm->net[k] / (sm->base[k] > 0 ? sm->base[k] : 1);
	}
	res->base_ns = median(sm->base, rounds);
	res->raw_ns = median(sm->raw, rounds);
	res->restore_ns = median(sm->rst, rounds);
	res->net_ns = median(sm->net, rounds);
	res->ratio = median(sm->ratio, rounds);
	res->ratio_min = sm->ratio[0];
	res->ratio_max = sm->ratio[rounds - 1];
	return 0;
}

/* Flows of @key's bypass table set under @seed (other ports), as many as it has ways. */
static void set_fillers(const struct mk_flow_key *key, __u32 seed, struct mk_flow_key *out)
{
	__u32 set = mk_bypass_set_of(mk_flow_hash(key, seed)), i, n = 0;

	for (i = 1; n < MK_BYPASS_TABLE_WAYS; i++) {
		out[n] = *key;
		out[n].port_lo = (__u16)(i * 2654435761u);
		out[n].port_hi = (__u16)((i * 2654435761u) >> 16);
		if (mk_bypass_set_of(mk_flow_hash(&out[n], seed)) == set &&
		    memcmp(&out[n], key, sizeof(*key)))
			n++;
	}
}

/* The flow bypass entry of a K_BYPASS or K_BYPASS_MAP case, added or deleted. */
static int bypass_entry(struct mk_loader *l, const struct bench_case *bc,
			const struct mk_flow_key *key, bool add)
{
	unsigned int i;
	int err = 0;

	if (bc->kind != K_BYPASS && bc->kind != K_BYPASS_MAP)
		return 0;
	for (i = 0; bc->kind == K_BYPASS_MAP && i < MK_BYPASS_TABLE_WAYS && !err; i++)
		err = add ? mk_loader_bypass_add(l, &bc->fill[i]) :
			    mk_loader_bypass_del(l, &bc->fill[i]);
	if (!err)
		err = add ? mk_loader_bypass_add(l, key) : mk_loader_bypass_del(l, key);
	return err;
}

/* Puts the case's state in place (bypass entry, CIDR list) and works out what meerkat strips. */
static int prepare(struct mk_loader *l, struct bench_case *bc, const struct mk_parse_cfg *cfg,
		   bool *cidr_loaded, struct mk_parse *p)
{
	struct mk_frame fr = { bc->f.b, bc->f.b + bc->f.len };

	if (mk_parse_frame(&fr, MK_START_ETH, cfg, p) != MK_PARSE_IP) {
		mk_err("bench: %s does not parse", bc->name);
		return -EINVAL;
	}
	if (bc->kind == K_BYPASS_MAP)
		set_fillers(&p->key, cfg->seed, bc->fill);
	if (bypass_entry(l, bc, &p->key, true))
		return -EIO;
	if (bc->kind == K_CIDR && !*cidr_loaded) {
		if (load_cidrs(l, (const __u8 *)p->l3.src, true))
			return -EIO;
		*cidr_loaded = true;
	}
	if (bc->cidr_miss == MISS_NEAR) {
		/* 10.0.0.3 -> 10.0.0.2: the /16 of both holds the /32 of 10.0.0.1 */
		bc->f.b[14 + 12 + 3] = 3;
	} else if (bc->cidr_miss == MISS_UNCOVERED) {
		/* 10.1.0.1 -> 10.1.0.2: no prefix in 10.1/16 */
		bc->f.b[14 + 12 + 1] = 1;
		bc->f.b[14 + 16 + 1] = 1;
	}
	if (bc->cidr_miss && mk_parse_frame(&fr, MK_START_ETH, cfg, p) != MK_PARSE_IP)
		return -EINVAL;
	bc->rewritten = bc->want_verdict == XDP_REDIRECT;
	bc->strip = bc->rewritten ? mk_decap_strip(p) : 0;
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bench_xdp [--repeat N] [--rounds N] [--ablation] [--only FRAME]\n"
		"                 [--kernel-clock] [--rx-stamp]\n"
		"\n"
		"Nanoseconds per frame of the meerkat XDP program under BPF_PROG_RUN next to\n"
		"xdp/bench_drop (return XDP_DROP) on the same frames, with the bench restore\n"
		"measured on its own and subtracted: the thread's CPU time per repeat, less the\n"
		"run's fixed cost (measured at start), or with --kernel-clock the kernel's own\n"
		"figure (wall time, whole ns). Each figure is the median of ROUNDS runs of N\n"
		"repeats (defaults %u and %u); the spread is the lowest and highest ratio of a\n"
		"round. --ablation also measures the program without its fast path, without its\n"
		"prefilters, and (tunnel rows) without its fast tunnel level, in the same run;\n"
		"--only runs one row (for a profiler); --rx-stamp loads the program with its\n"
		"arrival stamp on (mk_rx_stamp: a clock read per redirected frame), as the\n"
		"daemon does when a worker reads more than one socket. Run it on a quiet CPU\n"
		"(taskset -c 1).\n"
		"Needs root.\n",
		BENCH_ROUNDS_DEFAULT, BENCH_REPEAT_DEFAULT);
}

/* A second program for the ablation: @general_only or @no_fast_tunnel, the same sockets. */
static int load_variant(const struct mk_loader_opts *o, const struct mk_xsk_set *xsks,
			struct mk_loader *l, bool general_only, bool no_fast_tunnel)
{
	struct mk_loader_opts g = *o;
	unsigned int w;
	int err;

	g.general_only = general_only;
	g.no_fast_tunnel = no_fast_tunnel;
	err = mk_loader_open(l, &g);
	for (w = 0; !err && w < xsks->count; w++)
		err = mk_loader_set_xsk(l, w, xsk_socket__fd(xsks->xsks[w]));
	return err;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "repeat", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "ablation", no_argument, NULL, 'a' },
		{ "kernel-clock", no_argument, NULL, 'k' },
		{ "only", required_argument, NULL, 'o' },
		{ "rx-stamp", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct bench_case cases[32];
	static struct result ablation[32][5];
	__u32 repeat = BENCH_REPEAT_DEFAULT, rounds = BENCH_ROUNDS_DEFAULT, i, n, v;
	struct bench_drop_bpf *base = NULL;
	struct mk_loader_opts lopts;
	struct mk_loader l = { 0 }, lg = { 0 }, lt = { 0 };
	struct mk_xsk_set xsks = { 0 };
	struct samples sm = { 0 };
	int c, rc = 1, mk_fd;
	bool cidr_loaded = false, all_met = true, do_ablation = false, rx_stamp = false;
	const char *only = NULL;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			repeat = (__u32)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = (__u32)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			do_ablation = true;
			break;
		case 'k':
			kernel_clock = true;
			break;
		case 'o':
			only = optarg;
			break;
		case 's':
			rx_stamp = true;
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
	n = build_cases(cases);
	sm.base = calloc(rounds, sizeof(double));
	sm.raw = calloc(rounds, sizeof(double));
	sm.rst = calloc(rounds, sizeof(double));
	sm.net = calloc(rounds, sizeof(double));
	sm.ratio = calloc(rounds, sizeof(double));
	if (!sm.base || !sm.raw || !sm.rst || !sm.net || !sm.ratio)
		goto out;

	base = bench_drop_bpf__open_and_load();
	if (!base) {
		mk_err("bench: cannot load bench_drop: %s", strerror(errno));
		goto out;
	}
	mk_loader_opts_default(&lopts);
	lopts.seed = 0x5eed1234;
	lopts.bench_restore = true;
	lopts.rx_stamp = rx_stamp;
	if (mk_loader_open(&l, &lopts) || mk_xsk_set_create(&xsks, &l, "lo", 0))
		goto out;
	if (do_ablation && (load_variant(&lopts, &xsks, &lg, true, false) ||
			    load_variant(&lopts, &xsks, &lt, false, true)))
		goto out;
	mk_fd = mk_loader_prog_fd(&l);
	if (n && calibrate(bpf_program__fd(base->progs.bench_drop), &cases[0].f))
		goto out;

	for (i = 0; i < n; i++) {
		struct bench_case *bc = &cases[i];
		struct mk_parse_cfg cfg = { .seed = lopts.seed,
					    .tunnel_depth = lopts.tunnel_depth };
		struct result res;
		struct mk_parse p;

		if (only && strcmp(only, bc->name)) {
			bc->name = NULL;
			continue;
		}
		if (prepare(&l, bc, &cfg, &cidr_loaded, &p) ||
		    measure(base, mk_fd, bc, repeat, rounds, &sm, &res))
			goto out;
		bc->base_ns = res.base_ns;
		bc->raw_ns = res.raw_ns;
		bc->restore_ns = res.restore_ns;
		bc->net_ns = res.net_ns;
		bc->ratio = res.ratio;
		bc->ratio_min = res.ratio_min;
		bc->ratio_max = res.ratio_max;
		if (do_ablation) {
			/*
			 * 0: as deployed, 1: no fast path, 2: no prefilters (and no IPv4
			 * CIDR table: the trie answers), 3: neither. The CIDR list is
			 * loaded into the first program only: its rows get 0 and 2.
			 */
			ablation[i][0] = res;
			if (bypass_entry(&lg, bc, &p.key, true))
				goto out;
			for (v = 1; v < 4; v++) {
				if (bc->kind == K_CIDR && (v & 1)) {
					ablation[i][v].net_ns = NAN;
					continue;
				}
				l.skel->bss->mk_prefilter =
					v >= 2 ? 0 : MK_PREFILTER_BYPASS | MK_PREFILTER_CIDR;
				lg.skel->bss->mk_prefilter = l.skel->bss->mk_prefilter;
				if (measure(base, v & 1 ? mk_loader_prog_fd(&lg) : mk_fd, bc,
					    repeat, rounds, &sm, &ablation[i][v]))
					goto out;
			}
			l.skel->bss->mk_prefilter = MK_PREFILTER_BYPASS | MK_PREFILTER_CIDR;
			lg.skel->bss->mk_prefilter = l.skel->bss->mk_prefilter;
			if (bypass_entry(&lg, bc, &p.key, false))
				goto out;
			/* 4: the fast outer level, then the general tunnel level (tunnel rows) */
			ablation[i][4].net_ns = NAN;
			if ((bc->kind == K_TUNNEL || bc->kind == K_NEW_TUNNEL) &&
			    measure(base, mk_loader_prog_fd(&lt), bc, repeat, rounds, &sm,
				    &ablation[i][4]))
				goto out;
		}
		if (bypass_entry(&l, bc, &p.key, false))
			goto out;
	}

	printf("meerkat XDP program under BPF_PROG_RUN, median of %u rounds x %u repeats%s\n",
	       rounds, repeat, rx_stamp ? ", arrival stamp on" : "");
	if (kernel_clock)
		printf("ns: the kernel's figure (bpf_test_run_opts.duration: wall time, whole ns)\n");
	else
		printf("ns: the thread's CPU time per iteration, less the call's fixed cost (%.0f us,\n"
		       "measured: the dispatcher swap BPF_PROG_RUN makes around a repeated run)\n",
		       call_overhead_ns / 1000);
	printf("baseline: xdp/bench_drop (return XDP_DROP) on the same frame, same rounds\n"
	       "raw: meerkat with mk_bench_restore; restore: the bench restore measured on its\n"
	       "own (bench_restore); net = raw - restore; ratio = net / baseline (spread: lowest\n"
	       "and highest round); CIDR rows with %u IPv4 prefixes loaded\n",
	       CIDR_PREFIXES);
	print_prog_info("meerkat_xdp as benchmarked (with the restore)", mk_fd);
	print_production_info(&lopts);
	printf("\n%-17s %5s %-8s %8s %8s %8s %8s %7s %13s %6s %s\n", "frame", "bytes", "verdict",
	       "base ns", "raw ns", "restore", "net ns", "ratio", "spread", "target", "result");
	for (i = 0; i < n; i++) {
		const struct bench_case *bc = &cases[i];
		double target = kind_target[bc->kind];
		bool met = !target || bc->ratio <= target;
		const char *res_s;
		char tgt[16];

		if (!bc->name)
			continue;
		all_met &= met;
		snprintf(tgt, sizeof(tgt), target ? "%.1fx" : "-", target);
		res_s = !target ? "info" : met ? "PASS" : "MISS";
		printf("%-17s %5u %-8s %8.1f %8.1f %8.1f %8.1f %6.2fx %5.2f-%5.2fx %6s %s\n",
		       bc->name, bc->f.len, verdict_names[bc->want_verdict], bc->base_ns,
		       bc->raw_ns, bc->restore_ns, bc->net_ns, bc->ratio, bc->ratio_min,
		       bc->ratio_max, tgt, res_s);
	}
	printf("\n%s\n", all_met ? "every target met" : "some targets missed");
	if (do_ablation) {
		printf("\nablation, same run: net ns (ratio) as deployed, without the fast path, "
		       "without the prefilters\n(and the IPv4 CIDR table), without both, without "
		       "the fast tunnel level only\n%-17s %16s %16s %16s %16s %16s\n",
		       "frame", "deployed", "no fast path", "no prefilters", "neither",
		       "no fast tunnel");
		for (i = 0; i < n; i++) {
			if (!cases[i].name)
				continue;
			printf("%-17s", cases[i].name);
			for (v = 0; v < 5; v++) {
				if (isnan(ablation[i][v].net_ns))
					printf("   %16s", "n/a");
				else
					printf("   %6.1f (%4.2fx)", ablation[i][v].net_ns,
					       ablation[i][v].ratio);
			}
			printf("\n");
		}
	}
	rc = 0;
out:
	mk_loader_close(&lt);
	mk_loader_close(&lg);
	mk_xsk_set_destroy(&xsks);
	mk_loader_close(&l);
	bench_drop_bpf__destroy(base);
	free(sm.base);
	free(sm.raw);
	free(sm.rst);
	free(sm.net);
	free(sm.ratio);
	return rc;
}
