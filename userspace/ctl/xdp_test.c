// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkatctl xdp-test: runs every frame of a pcap through the meerkat XDP
 * program with BPF_PROG_RUN (no interface is attached) and reports what the
 * program did: per-frame verdict and metadata, totals, its counters, and
 * whether the accounting invariant (DESIGN 1.5) holds.
 *
 * The program only decapsulates and redirects when the worker's XSKMAP slot
 * holds a socket, so real AF_XDP sockets are bound to lo, queue 0, in copy
 * mode without libxdp's default program; BPF_PROG_RUN reports queue 0 and
 * never delivers into them.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define PCAP_DONT_INCLUDE_PCAP_BPF_H /* its struct bpf_insn clashes with linux/bpf.h */
#include <pcap/pcap.h>
#include <pcap/dlt.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include "meta.h"
#include "stats.h"
#include "ctl.h"
#include "loader.h"
#include "log.h"

#define XT_FRAME_MAX 65536
/* room in front of the output for the metadata the program prepends */
#define XT_OUT_MAX (XT_FRAME_MAX + 256)

struct xt_cfg {
	const char *in;
	const char *out;
	bool quiet;
	bool verbose;
	bool no_xsk;
	struct mk_loader_opts lopts;
};

struct xt_totals {
	__u64 frames;
	__u64 verdicts[XDP_REDIRECT + 2]; /* last slot: unknown verdicts */
	__u64 with_meta;
	__u64 frame_errors; /* frames whose counter delta broke the invariant */
};

static const char *const verdict_names[] = {
	"ABORTED", "DROP", "PASS", "TX", "REDIRECT", "UNKNOWN",
};

static const char *const tunnel_names[] = {
	"none",	 "gtpu",   "l2tpv2", "l2tpv3-ip", "l2tpv3-udp",
	"vxlan", "geneve", "gre",    "erspan",	  "ipip",
};

#define XT_STR(x) #x
#define XT_XSTR(x) XT_STR(x)
#define XT_NO_TUNNEL_MAX 16

/* The command line, as given; xt_cfg_from() checks it and makes the loader's options. */
struct xdp_test_params {
	const char *in;
	const char *out;
	uint32_t seed;
	uint32_t workers;
	uint32_t tunnel_depth;
	uint32_t l2tpv3_cookie;
	const char *l2tpv3_l2spec;
	const char *no_tunnel[XT_NO_TUNNEL_MAX];
	int n_no_tunnel;      /* MK_OPT_APPEND: right after its array */
	uint32_t vxlan_port;  /* 0: the program's default */
	uint32_t geneve_port; /* 0: the program's default */
	int ips;
	int no_xsk;
	int quiet;
	int verbose;
	int help;
};

_Static_assert(offsetof(struct xdp_test_params, n_no_tunnel) ==
		       offsetof(struct xdp_test_params, no_tunnel) +
			       sizeof(((struct xdp_test_params *)0)->no_tunnel),
	       "MK_OPT_APPEND: the count follows its array");

static const struct xdp_test_params xdp_test_defaults = {
	.workers = 1,
	.tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT,
	.l2tpv3_l2spec = "none",
};

#define P(field) offsetof(struct xdp_test_params, field)
static const struct mk_opt xdp_test_opts[] = {
	{ "read", 'r', MK_OPT_STR, P(in), "FILE", "pcap to run (Ethernet link type)", 0, 0 },
	{ "write", 'w', MK_OPT_STR, P(out), "FILE",
	  "write the frames as the program left them (decapsulated)", 0, 0 },
	{ "seed", 0, MK_OPT_U32, P(seed), "N", "hash seed (default 0, so results are reproducible)",
	  0, UINT32_MAX },
	{ "workers", 0, MK_OPT_U32, P(workers), "N",
	  "workers, 1.." XT_XSTR(MK_MAX_WORKERS) " (default 1)", 1, MK_MAX_WORKERS },
	{ "tunnel-depth", 0, MK_OPT_U32, P(tunnel_depth), "N",
	  "tunnels stripped at most, 0.." XT_XSTR(MK_TUNNEL_DEPTH_MAX) " (default " XT_XSTR(
		  MK_TUNNEL_DEPTH_DEFAULT) ")",
	  0, MK_TUNNEL_DEPTH_MAX },
	{ "l2tpv3-cookie", 0, MK_OPT_U32, P(l2tpv3_cookie), "N",
	  "L2TPv3 cookie length: 0, 4 or 8 (default 0)", 0, 8 },
	{ "l2tpv3-l2spec", 0, MK_OPT_STR, P(l2tpv3_l2spec), "S",
	  "L2TPv3 L2-specific sublayer: none or default (default none)", 0, 0 },
	{ "no-tunnel", 0, MK_OPT_APPEND, P(no_tunnel), "NAME",
	  "turn a tunnel decoder off (repeatable): gtpu, l2tp,\n"
	  "vxlan, geneve, gre, erspan, ipip (default: all on)",
	  0, XT_NO_TUNNEL_MAX },
	{ "vxlan-port", 0, MK_OPT_U32, P(vxlan_port), "N",
	  "VXLAN UDP destination port (default " XT_XSTR(MK_VXLAN_PORT_DEFAULT) ")", 1, 65535 },
	{ "geneve-port", 0, MK_OPT_U32, P(geneve_port), "N",
	  "Geneve UDP destination port (default " XT_XSTR(MK_GENEVE_PORT_DEFAULT) ")", 1, 65535 },
	{ "ips", 0, MK_OPT_FLAG, P(ips), NULL,
	  "IPS mode: bypassed flows go to the peer, not dropped", 0, 0 },
	{ "no-xsk", 0, MK_OPT_FLAG, P(no_xsk), NULL,
	  "leave the socket slots empty (shows PASS_NO_SOCKET)", 0, 0 },
	{ "quiet", 'q', MK_OPT_FLAG, P(quiet), NULL, "totals only", 0, 0 },
	{ "verbose", 'v', MK_OPT_FLAG, P(verbose), NULL,
	  "per-frame lines with the counters each frame moved", 0, 0 },
	{ "help", 'h', MK_OPT_HELP, P(help), NULL, "this text", 0, 0 },
};
#undef P

/* What the table cannot check, and the loader's options from the rest. */
static int xt_cfg_from(const struct xdp_test_params *p, struct xt_cfg *cfg)
{
	int i;
	__u32 v;

	if (!p->in) {
		mk_err("xdp-test: -r IN.pcap is required");
		return -EINVAL;
	}
	cfg->in = p->in;
	cfg->out = p->out;
	cfg->quiet = p->quiet;
	cfg->verbose = p->verbose;
	cfg->no_xsk = p->no_xsk;
	mk_loader_opts_default(&cfg->lopts);
	cfg->lopts.seed = p->seed;
	cfg->lopts.workers = p->workers;
	cfg->lopts.tunnel_depth = (__u8)p->tunnel_depth;
	if (p->l2tpv3_cookie != 0 && p->l2tpv3_cookie != 4 && p->l2tpv3_cookie != 8) {
		mk_err("xdp-test: --l2tpv3-cookie must be 0, 4 or 8");
		return -EINVAL;
	}
	cfg->lopts.l2tpv3_cookie_len = (__u8)p->l2tpv3_cookie;
	if (!strcmp(p->l2tpv3_l2spec, "none")) {
		cfg->lopts.l2tpv3_l2spec = MK_L2SPEC_NONE;
	} else if (!strcmp(p->l2tpv3_l2spec, "default")) {
		cfg->lopts.l2tpv3_l2spec = MK_L2SPEC_DEFAULT;
	} else {
		mk_err("xdp-test: --l2tpv3-l2spec must be none or default, not '%s'",
		       p->l2tpv3_l2spec);
		return -EINVAL;
	}
	for (i = 0; i < p->n_no_tunnel; i++) {
		for (v = 0; v < MK_ARRAY_SIZE(mk_tunnel_kind_names); v++)
			if (!strcmp(p->no_tunnel[i], mk_tunnel_kind_names[v]))
				break;
		if (v == MK_ARRAY_SIZE(mk_tunnel_kind_names)) {
			mk_err("xdp-test: --no-tunnel: unknown tunnel '%s'", p->no_tunnel[i]);
			return -EINVAL;
		}
		cfg->lopts.tunnel_off |= 1u << v;
	}
	cfg->lopts.vxlan_port = (__u16)p->vxlan_port;
	cfg->lopts.geneve_port = (__u16)p->geneve_port;
	if (p->ips)
		cfg->lopts.mode = MK_MODE_IPS;
	if (mk_log_get_level() >= MK_LOG_DEBUG)
		cfg->verbose = true;
	return 0;
}

/* The worker is the loader's round-robin indirection table's: the program no longer writes it. */
static void print_meta(const struct mk_meta *m, __u32 workers)
{
	__u8 type = mk_meta_tunnel_type(m);

	printf(" worker=%u hash=0x%08x l3=%u l4=%u flags=0x%02x",
	       (m->hash % MK_ITABLE_SIZE) % workers, m->hash, mk_meta_l3_off(m), m->l4_off,
	       m->flags);
	if (mk_meta_vlan(m, 0) || mk_meta_vlan(m, 1))
		printf(" vlan=%u/%u", mk_meta_vlan(m, 0), mk_meta_vlan(m, 1));
	if (type)
		printf(" tunnel=%s id=0x%x ctx=0x%08x",
		       type < MK_ARRAY_SIZE(tunnel_names) ? tunnel_names[type] : "?", m->tunnel_id,
		       m->tunnel_ctx);
}

/* Counters one frame moved; returns 0 when they obey the invariant. */
static int frame_deltas(const __u64 *before, const __u64 *after, bool print)
{
	__u64 delta[MK_STAT_MAX];
	struct mk_stat_sums s;
	int i;

	for (i = 0; i < MK_STAT_MAX; i++) {
		delta[i] = after[i] - before[i];
		if (print && delta[i] && i != MK_STAT_RX)
			printf(" +%s", mk_stat_descs[i].name);
	}
	s = mk_stat_sum(delta);
	if (delta[MK_STAT_RX] != 1 || s.outcomes != 1 || s.errors > 1)
		return -1;
	return mk_stat_invariant_holds(delta) ? 0 : -1;
}

/* Prints the counters and checks rx == outcomes and pass_error == reasons. */
static int report_counters(const __u64 *stats)
{
	struct mk_stat_sums sums = mk_stat_sum(stats);
	__u64 outcomes = sums.outcomes, reasons = sums.errors;
	int i, ok;

	printf("\ncounters:\n");
	for (i = 0; i < MK_STAT_MAX; i++) {
		if (stats[i])
			printf("  %-22s %10llu  %s\n", mk_stat_descs[i].name,
			       (unsigned long long)stats[i], mk_stat_descs[i].doc);
	}
	ok = mk_stat_invariant_holds(stats);
	printf("\naccounting: rx %llu %s sum of outcomes %llu; pass_error %llu %s sum of reasons "
	       "%llu: %s\n",
	       (unsigned long long)stats[MK_STAT_RX],
	       stats[MK_STAT_RX] == outcomes ? "==" : "!=", (unsigned long long)outcomes,
	       (unsigned long long)stats[MK_STAT_PASS_ERROR],
	       stats[MK_STAT_PASS_ERROR] == reasons ? "==" : "!=", (unsigned long long)reasons,
	       ok ? "invariant holds" : "INVARIANT BROKEN");
	return ok ? 0 : -1;
}

static int run_frames(struct xt_cfg *cfg, struct mk_loader *l, pcap_t *in, pcap_dumper_t *dump,
		      struct xt_totals *t)
{
	static __u8 out[XT_OUT_MAX];
	__u64 before[MK_STAT_MAX], after[MK_STAT_MAX];
	bool per_frame = !cfg->quiet, check_frame = per_frame || cfg->verbose;
	struct pcap_pkthdr *hdr;
	const __u8 *frame;
	int prog_fd = mk_loader_prog_fd(l);
	int ret, err;

	if (check_frame && (err = mk_loader_stats_read(l, before)))
		return err;
	while ((ret = pcap_next_ex(in, &hdr, &frame)) == 1) {
		struct xdp_md ctx_in = { .data_end = hdr->caplen };
		struct xdp_md ctx_out = { 0 };
		LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = frame, .data_size_in = hdr->caplen,
			    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx_in,
			    .ctx_size_in = sizeof(ctx_in), .ctx_out = &ctx_out,
			    .ctx_size_out = sizeof(ctx_out), .repeat = 1);
		struct mk_meta meta;
		bool has_meta;
		__u32 v;

		t->frames++;
		if (hdr->caplen > XT_FRAME_MAX) {
			mk_err("xdp-test: %s: frame %llu is %u bytes, more than %d", cfg->in,
			       (unsigned long long)t->frames, hdr->caplen, XT_FRAME_MAX);
			return -EMSGSIZE;
		}
		if (bpf_prog_test_run_opts(prog_fd, &topts)) {
			err = -errno;
			mk_err("xdp-test: BPF_PROG_RUN failed on frame %llu (%u bytes): %s",
			       (unsigned long long)t->frames, hdr->caplen, strerror(-err));
			return err;
		}
		v = topts.retval <= XDP_REDIRECT ? topts.retval : XDP_REDIRECT + 1;
		t->verdicts[v]++;
		has_meta = ctx_out.data == sizeof(meta) && topts.data_size_out >= sizeof(meta);
		if (has_meta) {
			memcpy(&meta, out, sizeof(meta));
			has_meta = mk_meta_magic(&meta) == MK_META_MAGIC;
			t->with_meta += has_meta;
		}
		if (per_frame) {
			printf("%6llu len=%-5u %-8s", (unsigned long long)t->frames, hdr->caplen,
			       verdict_names[v]);
			if (has_meta)
				print_meta(&meta, cfg->lopts.workers);
		}
		if (check_frame) {
			if ((err = mk_loader_stats_read(l, after)))
				return err;
			if (frame_deltas(before, after, per_frame)) {
				t->frame_errors++;
				if (per_frame)
					printf("  <- counters break the invariant");
			}
			memcpy(before, after, sizeof(before));
		}
		if (per_frame)
			printf("\n");
		if (dump) {
			struct pcap_pkthdr oh = *hdr;

			/* the frame as left: from data to data_end, metadata excluded */
			oh.caplen = ctx_out.data_end - ctx_out.data;
			oh.len = hdr->len - (hdr->caplen - oh.caplen);
			pcap_dump((u_char *)dump, &oh, out + ctx_out.data);
		}
	}
	if (ret == -1) {
		mk_err("xdp-test: %s: %s", cfg->in, pcap_geterr(in));
		return -EIO;
	}
	return 0;
}

static int do_xdp_test(const void *params)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct xt_cfg cfg = { 0 };
	struct mk_loader loader = { 0 };
	struct mk_xsk_set xsks = { 0 };
	struct xt_totals t = { 0 };
	__u64 stats[MK_STAT_MAX];
	pcap_dumper_t *dump = NULL;
	pcap_t *in = NULL, *dead = NULL;
	int err, rc = 1, i;

	if (xt_cfg_from(params, &cfg))
		return -EINVAL;
	in = pcap_open_offline(cfg.in, errbuf);
	if (!in) {
		mk_err("xdp-test: cannot open %s: %s", cfg.in, errbuf);
		return 1;
	}
	if (pcap_datalink(in) != DLT_EN10MB) {
		mk_err("xdp-test: %s: link type %s, only Ethernet is supported", cfg.in,
		       pcap_datalink_val_to_name(pcap_datalink(in)) ?: "?");
		goto out;
	}
	if (cfg.out) {
		dead = pcap_open_dead(DLT_EN10MB, XT_FRAME_MAX);
		if (!dead) {
			mk_err("xdp-test: cannot create a pcap handle for %s", cfg.out);
			goto out;
		}
		dump = pcap_dump_open(dead, cfg.out);
		if (!dump) {
			mk_err("xdp-test: cannot write %s: %s", cfg.out, pcap_geterr(dead));
			goto out;
		}
	}

	/*
	 * A private network namespace gives us a lo of our own: only one UMEM
	 * may be bound to a (device, queue), and we must not take the host's.
	 */
	if (!cfg.no_xsk && unshare(CLONE_NEWNET))
		mk_warn("xdp-test: no private network namespace (%s): binding to the host's lo",
			strerror(errno));
	/* BPF_PROG_RUN reports rx queue 0: one queue is all the slots needed */
	cfg.lopts.queues = 1;
	if (mk_loader_open(&loader, &cfg.lopts))
		goto out;
	if (!cfg.no_xsk && mk_xsk_set_create(&xsks, &loader, "lo", 0))
		goto out;

	err = run_frames(&cfg, &loader, in, dump, &t);
	if (err)
		goto out;
	if (mk_loader_stats_read(&loader, stats))
		goto out;

	printf("\n%llu frames, seed 0x%08x, %u worker(s), tunnel depth %u%s%s\nverdicts:",
	       (unsigned long long)t.frames, cfg.lopts.seed, cfg.lopts.workers,
	       cfg.lopts.tunnel_depth, cfg.lopts.mode == MK_MODE_IPS ? ", IPS" : ", IDS",
	       cfg.no_xsk ? ", no sockets" : "");
	for (i = 0; i <= XDP_REDIRECT + 1; i++) {
		if (t.verdicts[i])
			printf(" %s %llu", verdict_names[i], (unsigned long long)t.verdicts[i]);
	}
	printf("\nwith metadata: %llu\n", (unsigned long long)t.with_meta);
	rc = report_counters(stats) ? 1 : 0;
	if (t.frame_errors) {
		printf("%llu frame(s) moved the counters other than rx +1 and exactly one outcome\n",
		       (unsigned long long)t.frame_errors);
		rc = 1;
	}
	if (cfg.out)
		printf("wrote %s\n", cfg.out);
out:
	if (dump)
		pcap_dump_close(dump);
	if (dead)
		pcap_close(dead);
	mk_xsk_set_destroy(&xsks);
	mk_loader_close(&loader);
	pcap_close(in);
	return rc;
}

const struct mk_cli_cmd ctl_xdp_test_cmd = MK_CLI_COMMAND(
	CTL_PROG, "xdp-test", xdp_test, "run the XDP program over a pcap with BPF_PROG_RUN",
	"-r IN.pcap [OPTIONS]",
	"Runs every frame of IN.pcap through the meerkat XDP program with BPF_PROG_RUN\n"
	"(nothing is attached to any interface) and prints each frame's verdict and\n"
	"metadata, the totals, the program's counters, and whether every frame ended in\n"
	"exactly one outcome counter. AF_XDP sockets bound to lo (copy mode) fill the\n"
	"workers' slots, so IP frames are decapsulated and redirected as on a NIC queue 0.\n",
	"Exit status: 0 when the accounting invariant held, 1 when it did not or on error,\n"
	"2 on bad usage. Needs root (CAP_BPF, CAP_NET_ADMIN, CAP_NET_RAW).\n");
