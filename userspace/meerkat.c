// SPDX-License-Identifier: GPL-2.0-only
/*
 * The meerkat program: offline mode (-r FILE) and the live sensor (-i IFACE,
 * runmode/live.c). Options are one table filling struct meerkat_params;
 * getopt's table and --help come from it.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "config.h"
#include "ctlsock.h"
#include "detect.h"
#include "live.h"
#include "log.h"
#include "offline.h"

/* Offline runs are reproducible by default; live mode will pick a random seed. */
#define MK_OFFLINE_SEED_DEFAULT 0x6d65726bu

#define MK_DEFAULT_LOG_DIR "/var/log/meerkat"
#define MK_MAX_RULE_FILES 64

struct meerkat_params {
	const char *read_file;
	const char *iface[MK_MAX_IFACES];
	int n_iface;
	const char *log_dir;
	const char *config;
	const char *checksum;
	const char *seed;
	const char *dump_streams;
	const char *unix_socket;
	const char *rule_files[MK_MAX_RULE_FILES];
	int n_rule_files;
	int strict_rules;
	int test_mode;
	unsigned long workers;
	int verbose;
	int version;
	int help;
};

enum opt_type {
	OPT_STR,
	OPT_ULONG,
	OPT_COUNT, /* flag, each use adds one */
	OPT_APPEND, /* repeatable string: an array (append_max()), its count right after */
};

struct opt_desc {
	const char *name;
	int short_name; /* 0: long only */
	enum opt_type type;
	size_t off;
	const char *metavar;
	const char *help;
};

#define P(field) offsetof(struct meerkat_params, field)
static const struct opt_desc opts[] = {
	{ "read", 'r', OPT_STR, P(read_file), "FILE", "read a pcap or pcapng file (offline mode)" },
	{ "interface", 'i', OPT_APPEND, P(iface), "IFACE", "capture live on IFACE (repeatable)" },
	{ "log-dir", 'l', OPT_STR, P(log_dir), "DIR", "write eve.json into DIR" },
	{ "config", 'c', OPT_STR, P(config), "FILE", "configuration file (key: value lines)" },
	{ "checksum", 'k', OPT_STR, P(checksum), "none|all", "checksum validation (default all)" },
	{ "workers", 0, OPT_ULONG, P(workers), "N", "worker threads (offline default 1; live: capture.workers, else one per CPU)" },
	{ "seed", 0, OPT_STR, P(seed), "N|random", "hash seed (offline default fixed, for reproducible output; live default random)" },
	{ "unix-socket", 0, OPT_STR, P(unix_socket), "PATH", "live: control socket for meerkatctl (default " MK_CTL_DEFAULT_SOCKET "; '' = none)" },
	{ "rules", 'S', OPT_APPEND, P(rule_files), "FILE", "load rules from FILE (repeatable)" },
	{ "strict-rules", 0, OPT_COUNT, P(strict_rules), NULL, "a rule that does not load is fatal" },
	{ "test", 'T', OPT_COUNT, P(test_mode), NULL, "test the configuration and rules, then exit (non-zero on errors)" },
	{ "dump-streams", 0, OPT_STR, P(dump_streams), "DIR", "debug: write reassembled TCP streams per flow and direction" },
	{ "verbose", 'v', OPT_COUNT, P(verbose), NULL, "more log output (twice for debug)" },
	{ "version", 0, OPT_COUNT, P(version), NULL, "print version and compiled-in engines" },
	{ "help", 'h', OPT_COUNT, P(help), NULL, "this help" },
};

/* The size of an OPT_APPEND array. */
static int append_max(size_t off)
{
	return off == P(rule_files) ? MK_MAX_RULE_FILES : MK_MAX_IFACES;
}

static void usage(FILE *out)
{
	unsigned int i;

	fprintf(out, "usage: meerkat -r FILE -l LOGDIR [-S RULES]... [-c CONFIG] [-k none|all] [--workers N] [--seed N] [-v]\n"
		     "       meerkat -T [-S RULES]... [-c CONFIG]\n"
		     "       meerkat -i IFACE [-i IFACE ...] [-c CONFIG] [-l LOGDIR] [--workers N] [-v]\n\n");
	for (i = 0; i < MK_ARRAY_SIZE(opts); i++) {
		char left[48];

		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", opts[i].short_name ? "-" : "",
			 opts[i].short_name ? opts[i].short_name : ' ', opts[i].short_name ? ", " : "  ",
			 opts[i].name, opts[i].metavar ? " " : "", opts[i].metavar ?: "");
		fprintf(out, "  %-32s %s\n", left, opts[i].help);
	}
}

static int parse_args(int argc, char **argv, struct meerkat_params *prm)
{
	struct option lopts[MK_ARRAY_SIZE(opts) + 1];
	char shorts[2 * MK_ARRAY_SIZE(opts) + 1], *sp = shorts;
	unsigned int i;
	int c, idx;

	memset(lopts, 0, sizeof(lopts));
	for (i = 0; i < MK_ARRAY_SIZE(opts); i++) {
		lopts[i].name = opts[i].name;
		lopts[i].has_arg = opts[i].type == OPT_COUNT ? no_argument : required_argument;
		lopts[i].val = opts[i].short_name ? opts[i].short_name : 256 + (int)i;
		if (opts[i].short_name) {
			*sp++ = (char)opts[i].short_name;
			if (opts[i].type != OPT_COUNT)
				*sp++ = ':';
		}
	}
	*sp = '\0';
	while ((c = getopt_long(argc, argv, shorts, lopts, &idx)) != -1) {
		const struct opt_desc *o = NULL;
		char *base = (char *)prm, *end;

		for (i = 0; i < MK_ARRAY_SIZE(opts); i++)
			if (lopts[i].val == c)
				o = &opts[i];
		if (!o)
			return -EINVAL; /* getopt printed why */
		switch (o->type) {
		case OPT_STR:
			*(const char **)(base + o->off) = optarg;
			break;
		case OPT_ULONG:
			errno = 0;
			*(unsigned long *)(base + o->off) = strtoul(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				mk_err("--%s: '%s' is not a number", o->name, optarg);
				return -EINVAL;
			}
			break;
		case OPT_COUNT:
			(*(int *)(base + o->off))++;
			break;
		case OPT_APPEND: {
			const char **arr = (const char **)(base + o->off);
			int max = append_max(o->off), *n = (int *)(arr + max);

			if (*n == max) {
				mk_err("--%s: at most %d", o->name, max);
				return -EINVAL;
			}
			arr[(*n)++] = optarg;
			break;
		}
		}
	}
	if (optind < argc) {
		mk_err("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

_Static_assert(offsetof(struct meerkat_params, n_iface) ==
		       offsetof(struct meerkat_params, iface) + sizeof(((struct meerkat_params *)0)->iface),
	       "OPT_APPEND: the count follows its array");
_Static_assert(offsetof(struct meerkat_params, n_rule_files) ==
		       offsetof(struct meerkat_params, rule_files) +
			       sizeof(((struct meerkat_params *)0)->rule_files),
	       "OPT_APPEND: the count follows its array");

/* ---- detection: -S, --strict-rules, -T ---------------------------------- */

/*
 * The rule engine from -S files with Suricata's default variables and the
 * built-in classes (until the configuration file names its own). Without
 * rule files there is no engine and no detection. The totals are logged.
 */
static int detect_load(const struct meerkat_params *prm, struct mk_detect_cfg *dc,
		       struct mk_detect_master **m)
{
	struct mk_detect_status st;
	int err;

	*m = NULL;
	mk_detect_cfg_defaults(dc);
	dc->rule_files = prm->rule_files;
	dc->nrule_files = (unsigned int)prm->n_rule_files;
	dc->strict = prm->strict_rules;
	if (!dc->nrule_files)
		return 0;
	err = mk_detect_master_new(dc, m);
	if (err) {
		mk_err("rules: not loaded (%s)", strerror(-err));
		return err;
	}
	mk_detect_master_status(*m, &st);
	if (st.load.failed)
		mk_warn("rules: %s", st.last_reload_msg);
	else
		mk_info("rules: %s", st.last_reload_msg);
	return 0;
}

/* -T: configuration and rules load, or the exit status says why not. */
static int detect_test(const struct meerkat_params *prm, struct mk_config *conf)
{
	struct mk_detect_master *m;
	struct mk_detect_status st;
	struct mk_detect_cfg dc;
	int err;

	if (prm->config && mk_config_load(conf, prm->config))
		return 1;
	err = detect_load(prm, &dc, &m);
	if (err)
		return 1;
	if (!m) {
		printf("configuration OK, no rule files given\n");
		return 0;
	}
	mk_detect_master_status(m, &st);
	printf("rules: %s\n", st.last_reload_msg);
	mk_detect_master_free(m);
	return st.load.failed || st.load.config_errors ? 1 : 0;
}

static int parse_seed(const char *s, uint32_t *seed)
{
	char *end;

	if (!s || !strcmp(s, "random")) {
		if (getrandom(seed, sizeof(*seed), 0) != sizeof(*seed)) {
			mk_err("getrandom: %s", strerror(errno));
			return -errno;
		}
		return 0;
	}
	errno = 0;
	*seed = (uint32_t)strtoul(s, &end, 0);
	if (errno || *end || end == s) {
		mk_err("--seed: '%s' is not a number or 'random'", s);
		return -EINVAL;
	}
	return 0;
}

/* Live mode: the command line overrides the configuration's capture section. */
static int run_live(const struct meerkat_params *prm, struct mk_config *conf)
{
	struct mk_live_opts lo = { 0 };
	struct mk_detect_cfg dc;
	int i, err;

	if (prm->read_file) {
		mk_err("-r and -i exclude each other");
		return -EINVAL;
	}
	if (prm->n_iface) {
		conf->capture.n_ifaces = 0;
		for (i = 0; i < prm->n_iface; i++) {
			struct mk_iface_cfg *ic = &conf->capture.ifaces[conf->capture.n_ifaces++];

			memset(ic, 0, sizeof(*ic));
			if (strlen(prm->iface[i]) >= sizeof(ic->name)) {
				mk_err("-i %s: interface name too long", prm->iface[i]);
				return -EINVAL;
			}
			strcpy(ic->name, prm->iface[i]);
		}
	}
	if (prm->workers)
		conf->capture.workers = (uint32_t)prm->workers;
	if (prm->unix_socket) {
		if (strlen(prm->unix_socket) >= sizeof(conf->capture.ctl_socket)) {
			mk_err("--unix-socket: path longer than %zu bytes",
			       sizeof(conf->capture.ctl_socket) - 1);
			return -EINVAL;
		}
		strcpy(conf->capture.ctl_socket, prm->unix_socket);
	}
	err = parse_seed(prm->seed, &lo.seed);
	if (err)
		return err;
	lo.log_dir = prm->log_dir ? prm->log_dir : MK_DEFAULT_LOG_DIR;
	lo.checksum = !prm->checksum || strcmp(prm->checksum, "none");
	lo.stats_stderr = prm->verbose > 0;
	mk_log_route_libs();
	err = detect_load(prm, &dc, &lo.detect);
	if (err)
		return err;
	lo.detect_cfg = &dc;
	err = mk_live_run(conf, &lo);
	mk_detect_master_free(lo.detect);
	return err;
}

int main(int argc, char **argv)
{
	struct meerkat_params prm = { .workers = 0 };
	struct mk_offline_opts o = { 0 };
	struct mk_offline_stats st;
	struct mk_detect_cfg dc;
	struct mk_config conf;
	int err;

	mk_config_defaults(&conf);
	if (parse_args(argc, argv, &prm)) {
		usage(stderr);
		return 2;
	}
	if (prm.help) {
		usage(stdout);
		return 0;
	}
	if (prm.version) {
		printf("meerkat %s (engines: %s)\n", MK_VERSION, mk_offline_features());
		return 0;
	}
	if (prm.verbose)
		mk_log_set_level(prm.verbose > 1 ? MK_LOG_DEBUG : MK_LOG_INFO);
	else
		mk_log_set_level(MK_LOG_WARN);
	if (prm.workers > MK_MAX_WORKERS) {
		mk_err("--workers: %lu is outside [1, %d]", prm.workers, MK_MAX_WORKERS);
		return 2;
	}
	if (prm.checksum && strcmp(prm.checksum, "none") && strcmp(prm.checksum, "all")) {
		mk_err("-k: '%s' is not one of none, all", prm.checksum);
		return 2;
	}
	if (prm.test_mode) {
		err = detect_test(&prm, &conf);
		mk_config_free(&conf);
		return err;
	}
	if (prm.n_iface) {
		if (prm.config && mk_config_load(&conf, prm.config)) {
			mk_config_free(&conf);
			return 1;
		}
		err = run_live(&prm, &conf);
		mk_config_free(&conf);
		return err ? 1 : 0;
	}
	if (!prm.workers)
		prm.workers = 1;
	if (!prm.read_file || !prm.log_dir) {
		mk_err("offline mode needs -r FILE and -l LOGDIR");
		usage(stderr);
		return 2;
	}
	if (prm.workers < 1 || prm.workers > MK_MAX_WORKERS) {
		mk_err("--workers: %lu is outside [1, %d]", prm.workers, MK_MAX_WORKERS);
		return 2;
	}
	o.checksum = 1;
	if (prm.checksum) {
		if (!strcmp(prm.checksum, "none"))
			o.checksum = 0;
		else if (strcmp(prm.checksum, "all")) {
			mk_err("-k: '%s' is not one of none, all", prm.checksum);
			return 2;
		}
	}
	o.seed = MK_OFFLINE_SEED_DEFAULT;
	if (prm.seed && parse_seed(prm.seed, &o.seed))
		return 2;
	if (prm.config) {
		err = mk_config_load(&conf, prm.config);
		if (err)
			goto out;
	}
	err = detect_load(&prm, &dc, &o.detect);
	if (err)
		goto out;
	o.pcap_path = prm.read_file;
	o.log_dir = prm.log_dir;
	o.dump_streams = prm.dump_streams;
	o.workers = (unsigned int)prm.workers;
	o.progress = isatty(STDERR_FILENO);

	err = mk_offline_run(&o, &conf, &st);
	if (!err)
		mk_offline_print_summary(stderr, &st);
out:
	mk_detect_master_free(o.detect);
	mk_config_free(&conf);
	return err ? 1 : 0;
}
