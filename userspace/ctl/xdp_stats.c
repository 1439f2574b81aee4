// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkatctl stats: prints the counters of the meerkat XDP program attached to
 * an interface, and checks the accounting invariant (DESIGN 1.5).
 *
 * The program is found through libxdp, so it does not matter who attached it
 * (meerkat, xdp-loader) nor whether it runs alone or inside a libxdp
 * dispatcher: we take the program named meerkat_xdp, walk its map ids to the
 * map named mk_stats and sum the per-CPU slots. Nothing is pinned, nothing is
 * written: this is safe to run on a live sensor.
 */
#include <errno.h>
#include <stddef.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include <xdp/libxdp.h>
#include "ctl.h"
#include "log.h"
#include "stats.h"

#define MK_PROG_NAME "meerkat_xdp"
#define MK_STATS_MAP_NAME "mk_stats"
/* Counters are read while traffic flows: an error frame in flight has its reason, not yet pass_error. */
#define STATS_SETTLE_TRIES 5
#define STATS_SETTLE_USEC 100000

struct stats_cfg {
	const char *ifname;
	int json;
	int check;
	int help;
};

/* One snapshot of the counters, summed over every possible CPU. */
struct stats_snapshot {
	__u32 prog_id;
	__u32 map_id;
	int ncpus;
	const char *mode;
	__u64 val[MK_STAT_MAX];
	__u64 outcome_sum;
	__u64 err_sum;
};

static const char *attach_mode_name(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return "native";
	case XDP_MODE_SKB:
		return "skb";
	case XDP_MODE_HW:
		return "hw";
	default:
		return "unknown";
	}
}

/*
 * Finds meerkat_xdp among the programs on @ifindex. Returns its fd (a dup, owned
 * by the caller) or -errno; *mode names the attach mode.
 */
static int find_meerkat_prog(const char *ifname, int ifindex, const char **mode)
{
	struct xdp_multiprog *mp;
	struct xdp_program *prog = NULL, *found = NULL;
	char names[512] = "";
	size_t used = 0;
	int err, fd;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err == -ENOENT || (!err && !mp)) {
		mk_err("no XDP program on %s", ifname);
		return -ENOENT;
	}
	if (err) {
		mk_err("cannot query the XDP programs of %s: %s", ifname, strerror(-err));
		return err;
	}

	if (xdp_multiprog__is_legacy(mp)) {
		struct xdp_program *cand[2] = { xdp_multiprog__main_prog(mp),
						xdp_multiprog__hw_prog(mp) };
		size_t i;

		for (i = 0; i < MK_ARRAY_SIZE(cand); i++) {
			if (!cand[i])
				continue;
			if (used < sizeof(names))
				used += snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", xdp_program__name(cand[i]));
			if (!found && !strcmp(xdp_program__name(cand[i]), MK_PROG_NAME)) {
				found = cand[i];
				*mode = i ? "hw" : attach_mode_name(xdp_multiprog__attach_mode(mp));
			}
		}
	} else {
		while ((prog = xdp_multiprog__next_prog(prog, mp))) {
			if (used < sizeof(names))
				used += snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", xdp_program__name(prog));
			if (!found && !strcmp(xdp_program__name(prog), MK_PROG_NAME)) {
				found = prog;
				*mode = attach_mode_name(xdp_multiprog__attach_mode(mp));
			}
		}
	}
	if (!found) {
		mk_err("no meerkat program among: %s (on %s)", used ? names : "(none)", ifname);
		xdp_multiprog__close(mp);
		return -ENOENT;
	}
	fd = dup(xdp_program__fd(found));
	err = fd < 0 ? -errno : 0;
	xdp_multiprog__close(mp);
	if (err)
		mk_err("cannot use the meerkat program on %s: %s", ifname, strerror(-err));
	return err ? err : fd;
}

/* Walks the program's maps to the one named mk_stats. Returns its fd or -errno. */
static int find_stats_map(int prog_fd, __u32 *prog_id, __u32 *map_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), nr, i, *ids = NULL;
	int err, fd = -ENOENT;

	err = bpf_obj_get_info_by_fd(prog_fd, &info, &len);
	if (err)
		return -errno;
	*prog_id = info.id;
	nr = info.nr_map_ids;
	if (!nr)
		return -ENOENT;
	ids = calloc(nr, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = nr;
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
		fd = -errno;
		goto out;
	}
	if (info.nr_map_ids < nr)
		nr = info.nr_map_ids;
	for (i = 0; i < nr; i++) {
		struct bpf_map_info minfo = {};
		__u32 mlen = sizeof(minfo);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &minfo, &mlen) &&
		    !strcmp(minfo.name, MK_STATS_MAP_NAME) &&
		    minfo.type == BPF_MAP_TYPE_PERCPU_ARRAY && minfo.value_size == sizeof(__u64) &&
		    minfo.max_entries >= MK_STAT_MAX) {
			*map_id = ids[i];
			fd = mfd;
			break;
		}
		close(mfd);
	}
out:
	free(ids);
	return fd;
}

static int read_snapshot(int map_fd, struct stats_snapshot *s)
{
	__u64 *percpu;
	struct mk_stat_sums sums;
	__u32 k;
	int c;

	percpu = calloc(s->ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (k = 0; k < MK_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(map_fd, &k, percpu)) {
			int err = -errno;

			free(percpu);
			return err;
		}
		s->val[k] = 0;
		for (c = 0; c < s->ncpus; c++)
			s->val[k] += percpu[c];
	}
	free(percpu);
	mk_stat_derive(s->val);
	sums = mk_stat_sum(s->val);
	s->outcome_sum = sums.outcomes;
	s->err_sum = sums.errors;
	return 0;
}

static int invariant_holds(const struct stats_snapshot *s)
{
	return mk_stat_invariant_holds(s->val);
}

static const char *stat_class(__u32 k)
{
	if (k <= MK_STAT_OUTCOME_LAST) /* outcomes come first in the enum */
		return "outcome";
	if (k >= MK_STAT_ERR_FIRST && k <= MK_STAT_ERR_LAST)
		return "error";
	return "info";
}

static void print_text(const struct stats_cfg *cfg, const struct stats_snapshot *s)
{
	const char *last = NULL;
	__u32 k;
	int ok_rx = s->val[MK_STAT_RX] == s->outcome_sum;
	int ok_err = mk_stat_error_frames(s->val) == s->err_sum;

	printf("%s on %s: prog id %u, %s mode, map %s id %u, %d possible CPUs\n", MK_PROG_NAME,
	       cfg->ifname, s->prog_id, s->mode, MK_STATS_MAP_NAME, s->map_id, s->ncpus);
	for (k = 0; k < MK_STAT_MAX; k++) {
		const char *cls = stat_class(k);

		if (!last || strcmp(cls, last)) {
			printf("%s counters:\n", cls);
			last = cls;
		}
		printf("  %-22s %20llu  %s\n", mk_stat_descs[k].name, (unsigned long long)s->val[k],
		       mk_stat_descs[k].doc);
	}
	printf("invariant: rx %llu %s sum(outcomes) %llu; pass_error %llu %s sum(err_*) %llu: %s\n",
	       (unsigned long long)s->val[MK_STAT_RX],
	       ok_rx ? "==" : "!=", (unsigned long long)s->outcome_sum,
	       (unsigned long long)s->val[MK_STAT_PASS_ERROR],
	       ok_err ? "==" : "!=", (unsigned long long)s->err_sum,
	       ok_rx && ok_err ? "holds" : "VIOLATED");
}

static int print_json(const struct stats_cfg *cfg, const struct stats_snapshot *s)
{
	json_t *root, *counters;
	__u32 k;
	int err;

	counters = json_object();
	for (k = 0; k < MK_STAT_MAX; k++)
		json_object_set_new(counters, mk_stat_descs[k].name,
				    json_integer((json_int_t)s->val[k]));
	root = json_pack("{s:s, s:s, s:I, s:s, s:I, s:i, s:o, s:{s:I, s:I, s:I, s:I, s:b}}",
			 "interface", cfg->ifname, "program", MK_PROG_NAME, "prog_id",
			 (json_int_t)s->prog_id, "mode", s->mode, "map_id", (json_int_t)s->map_id,
			 "possible_cpus", s->ncpus, "counters", counters, "invariant", "rx",
			 (json_int_t)s->val[MK_STAT_RX], "outcome_sum", (json_int_t)s->outcome_sum,
			 "pass_error", (json_int_t)s->val[MK_STAT_PASS_ERROR], "err_sum",
			 (json_int_t)s->err_sum, "holds", invariant_holds(s));
	if (!root) {
		mk_err("cannot build the JSON output");
		return -ENOMEM;
	}
	err = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
	return err ? -EIO : 0;
}

/* The program's counters on cfg->ifname, read directly. */
static int xdp_stats(const struct stats_cfg *cfg)
{
	struct stats_snapshot snap = { .mode = "unknown" };
	int ifindex, prog_fd = -1, map_fd = -1, ret, err, i;

	ret = 1;
	ifindex = if_nametoindex(cfg->ifname);
	if (!ifindex) {
		mk_err("no interface %s in this network namespace: %s", cfg->ifname,
		       strerror(errno));
		return 1;
	}
	snap.ncpus = libbpf_num_possible_cpus();
	if (snap.ncpus <= 0) {
		mk_err("cannot count the possible CPUs: %s", strerror(-snap.ncpus));
		return 1;
	}

	prog_fd = find_meerkat_prog(cfg->ifname, ifindex, &snap.mode);
	if (prog_fd < 0)
		return 1;
	map_fd = find_stats_map(prog_fd, &snap.prog_id, &snap.map_id);
	if (map_fd < 0) {
		mk_err("program %s on %s has no usable %s map: %s", MK_PROG_NAME, cfg->ifname,
		       MK_STATS_MAP_NAME, strerror(-map_fd));
		goto out;
	}

	for (i = 0; i < STATS_SETTLE_TRIES; i++) {
		err = read_snapshot(map_fd, &snap);
		if (err) {
			mk_err("cannot read map %s (id %u): %s", MK_STATS_MAP_NAME, snap.map_id,
			       strerror(-err));
			goto out;
		}
		if (invariant_holds(&snap))
			break;
		usleep(STATS_SETTLE_USEC);
	}

	err = cfg->json ? print_json(cfg, &snap) : (print_text(cfg, &snap), 0);
	if (err)
		goto out;
	ret = 0;
	if (cfg->check && !invariant_holds(&snap)) {
		mk_err("accounting invariant violated on %s", cfg->ifname);
		ret = 3;
	}
out:
	if (map_fd >= 0)
		close(map_fd);
	close(prog_fd);
	return ret;
}

#define P(field) offsetof(struct stats_cfg, field)
static const struct mk_opt stats_opts[] = {
	{ "interface", 'i', MK_OPT_STR, P(ifname), "IFACE",
	  "interface the program is attached to (none: the daemon's counters)", 0, 0 },
	{ "json", 'j', MK_OPT_FLAG, P(json), NULL, "one JSON object instead of the table", 0, 0 },
	{ "check", 'c', MK_OPT_FLAG, P(check), NULL,
	  "exit 3 when the invariant does not hold (needs -i)", 0, 0 },
	{ "help", 'h', MK_OPT_HELP, P(help), NULL, "this help", 0, 0 },
};
#undef P

static const struct stats_cfg stats_defaults = { 0 };

/* With -i the program's counters, without it the running daemon's. */
static int do_stats(const void *params)
{
	const struct stats_cfg *cfg = params;

	if (cfg->ifname)
		return xdp_stats(cfg);
	if (cfg->check) {
		mk_err("stats: -i IFACE is required");
		return -EINVAL;
	}
	return ctl_daemon_stats(cfg->json);
}

const struct mk_cli_cmd ctl_stats_cmd = MK_CLI_COMMAND(
	CTL_PROG, "stats", stats,
	"every counter of the running meerkat; with -i IFACE, the XDP program's",
	"-i IFACE [--json] [--check]\n"
	"       meerkatctl stats [--json]   (the running daemon's counters)",
	"Without -i: every counter of the running meerkat, as in its EVE stats event.\n"
	"\n"
	"With -i: every counter of the meerkat XDP program (meerkat_xdp) attached to\n"
	"IFACE, summed over all CPUs, and the accounting invariant:\n"
	"  rx         == sum of the outcome counters (every frame ends in one; the\n"
	"                program counts only outcomes, rx is their sum)\n"
	"  pass_error == sum of the err_* counters (every error has one reason)\n"
	"Compare rx with the interface's own receive counter (ip -s link) to see\n"
	"that no frame went uncounted.\n"
	"Works whether meerkat or xdp-loader attached the program, alone or behind\n"
	"a libxdp dispatcher. Run it in the interface's network namespace\n"
	"(ip netns exec NS meerkatctl stats -i IFACE).\n",
	"Exit status: 0 ok, 1 error (no program, no permission), 2 usage,\n"
	"3 invariant violated (with --check).\n");
