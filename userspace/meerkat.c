// SPDX-License-Identifier: GPL-2.0-only
/*
 * The meerkat program: offline mode (-r FILE|DIR [BPF filter]), the live
 * sensor (-i IFACE or capture.interfaces, runmode/live.c) and configuration
 * checks (-T). Options are one table filling struct meerkat_params
 * (util/cli.h: given twice or out of range is an error); getopt's table and
 * --help come from it. The configuration is the file, then the options over
 * it (mk_config_setup() is that rule, for every mode).
 *
 * Offline exit status: 0 done (a damaged input read up to the damage
 * included, unless --strict-input); 1 an input could not be read, EVE
 * records were lost, the configuration is wrong, or --strict-input and an
 * input was damaged; 2 usage.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "cli.h"
#include "config.h"
#include "live.h"
#include "log.h"
#include "offline.h"

/* Offline runs are reproducible by default; live mode picks a random seed. */
#define MK_OFFLINE_SEED_DEFAULT 0x6d65726bu
/* --community-id-seed not given: outputs.eve-log.community-id-seed */
#define CID_SEED_UNSET UINT32_MAX

struct meerkat_params {
	const char *read_file;
	const char *iface[MK_MAX_IFACES];
	int n_iface; /* MK_OPT_APPEND: right after its array */
	const char *log_dir;
	const char *config;
	const char *checksum;
	const char *seed;
	const char *dump_streams;
	const char *unix_socket;
	const char *workers; /* checked by the configuration, after the file */
	const char *stats_json;
	uint32_t cid_seed;
	int no_cid;
	int eve_truncate;
	int strict_input;
	int test_config;
	int dump_config;
	int verbose;
	int version;
	int help;
};

_Static_assert(offsetof(struct meerkat_params, n_iface) ==
		       offsetof(struct meerkat_params, iface) + sizeof(((struct meerkat_params *)0)->iface),
	       "MK_OPT_APPEND: the count follows its array");

#define P(field) offsetof(struct meerkat_params, field)
static const struct mk_opt opts[] = {
	{ "read", 'r', MK_OPT_STR, P(read_file), "FILE|DIR", "read a pcap/pcapng file, or every file of DIR in name order (offline mode)", 0, 0 },
	{ "interface", 'i', MK_OPT_APPEND, P(iface), "IFACE", "capture live on IFACE, repeatable (overrides capture.interfaces)", 0, MK_MAX_IFACES },
	{ "log-dir", 'l', MK_OPT_STR, P(log_dir), "DIR", "write eve.json into DIR, created with its parents (overrides default-log-dir)", 0, 0 },
	{ "config", 'c', MK_OPT_STR, P(config), "FILE", "YAML configuration (docs/configuration.md); options override it", 0, 0 },
	{ "test-config", 'T', MK_OPT_FLAG, P(test_config), NULL, "check the configuration (-c FILE and the options), exit 0 if valid", 0, 0 },
	{ "dump-config", 0, MK_OPT_FLAG, P(dump_config), NULL, "print every setting (defaults, -c FILE, options) and exit", 0, 0 },
	{ "checksum", 'k', MK_OPT_STR, P(checksum), "none|all", "checksum validation (default all)", 0, 0 },
	{ "workers", 0, MK_OPT_STR, P(workers), "N", "worker threads, 1-64 (overrides capture.workers; offline default 1)", 0, 0 },
	{ "seed", 0, MK_OPT_STR, P(seed), "N|random", "hash seed (offline default fixed, for reproducible output; live default random)", 0, 0 },
	{ "community-id-seed", 0, MK_OPT_U32, P(cid_seed), "N", "Community ID seed (overrides outputs.eve-log.community-id-seed)", 0, 65535 },
	{ "no-community-id", 0, MK_OPT_FLAG, P(no_cid), NULL, "leave community_id out of EVE records", 0, 0 },
	{ "eve-truncate", 0, MK_OPT_FLAG, P(eve_truncate), NULL, "truncate eve.json instead of appending to it", 0, 0 },
	{ "strict-input", 0, MK_OPT_FLAG, P(strict_input), NULL, "offline: exit 1 when an input is damaged (default 0: what was read is processed)", 0, 0 },
	{ "stats-json", 0, MK_OPT_STR, P(stats_json), "FILE", "offline: write every counter to FILE as JSON", 0, 0 },
	{ "unix-socket", 0, MK_OPT_STR, P(unix_socket), "PATH", "live: control socket for meerkatctl (overrides capture.control-socket; '' = none)", 0, 0 },
	{ "dump-streams", 0, MK_OPT_STR, P(dump_streams), "DIR", "debug: write reassembled TCP streams per flow and direction", 0, 0 },
	{ "verbose", 'v', MK_OPT_COUNT, P(verbose), NULL, "every counter in the summary, info messages (twice: debug)", 0, 0 },
	{ "version", 0, MK_OPT_FLAG, P(version), NULL, "print version and compiled-in engines", 0, 0 },
	{ "help", 'h', MK_OPT_FLAG, P(help), NULL, "this help", 0, 0 },
};
#undef P

static const struct mk_cli cli_desc = {
	.prog = "meerkat",
	.usage = "-r FILE|DIR [-l LOGDIR] [-c CONFIG] [-k none|all] [--workers N] [--seed N] [-v] [BPF FILTER]\n"
		 "       meerkat [-i IFACE ...] [-c CONFIG] [-l LOGDIR] [--workers N] [-v]   (live)\n"
		 "       meerkat -T [-c CONFIG] [options]   (check the configuration)",
	.opts = opts,
	.nopts = MK_ARRAY_SIZE(opts),
};

/* The words after the options, joined as tcpdump joins them. */
static char *join_args(int argc, char **argv, int first)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = first; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = first; i < argc; i++) {
		if (i > first)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* --seed: a number, "random", or nothing (@dflt, or random when @dflt is NULL). */
static int parse_seed(const char *s, const uint32_t *dflt, uint32_t *seed)
{
	if (!s && dflt) {
		*seed = *dflt;
		return 0;
	}
	if (!s || !strcmp(s, "random")) {
		if (getrandom(seed, sizeof(*seed), 0) != sizeof(*seed)) {
			mk_err("getrandom: %s", strerror(errno));
			return -errno;
		}
		return 0;
	}
	return mk_cli_u32("seed", s, 0, UINT32_MAX, seed);
}

/* The optional EVE fields: outputs.eve-log, then the options over it. */
static struct mk_eve_fmt eve_fmt(const struct meerkat_params *prm, const struct mk_config *conf)
{
	struct mk_eve_fmt f = {
		.community_id = conf->output.eve.community_id && !prm->no_cid,
		.community_id_seed = conf->output.eve.community_id_seed,
	};

	if (prm->cid_seed != CID_SEED_UNSET)
		f.community_id_seed = (uint16_t)prm->cid_seed;
	return f;
}

/* Live mode: the options are in @conf already (mk_config_setup). */
static int run_live(const struct meerkat_params *prm, const struct mk_config *conf)
{
	struct mk_live_opts lo = { 0 };
	int err;

	err = parse_seed(prm->seed, NULL, &lo.seed);
	if (err)
		return err;
	lo.log_dir = conf->output.eve.enabled ? conf->output.log_dir : NULL;
	lo.eve_truncate = !conf->output.eve.append || prm->eve_truncate;
	lo.eve = eve_fmt(prm, conf);
	lo.checksum = !prm->checksum || strcmp(prm->checksum, "none");
	lo.stats_stderr = prm->verbose > 0;
	mk_log_route_libs();
	return mk_live_run(conf, &lo);
}

/* Offline mode: every input through the pipeline, then the summary. */
static int run_offline(const struct meerkat_params *prm, const struct mk_config *conf,
		       const char *filter)
{
	static const uint32_t offline_seed = MK_OFFLINE_SEED_DEFAULT;
	struct mk_offline_opts o = { 0 };
	struct mk_offline_stats st;
	int err, code = 0;

	if (parse_seed(prm->seed, &offline_seed, &o.seed))
		return 2;
	o.pcap_path = prm->read_file;
	o.filter = filter;
	o.log_dir = conf->output.log_dir;
	o.dump_streams = prm->dump_streams;
	/* capture.workers is the live setting; offline runs one worker unless told */
	o.workers = prm->workers ? conf->capture.workers : 1;
	o.checksum = !prm->checksum || strcmp(prm->checksum, "none");
	o.progress = isatty(STDERR_FILENO);
	o.eve_truncate = prm->eve_truncate;
	o.eve = eve_fmt(prm, conf);

	err = mk_offline_run(&o, conf, &st);
	/* a run that got going has counters, whatever ended it */
	if (st.cnt[MK_OFF_FILES] || st.cnt[MK_OFF_FILES_FAILED]) {
		mk_offline_print_summary(stderr, &st, prm->verbose);
		if (prm->stats_json && mk_offline_stats_json(prm->stats_json, &st))
			code = 1;
	}
	if (err || st.cnt[MK_OFF_FILES_FAILED] ||
	    (prm->strict_input && st.cnt[MK_OFF_FILES_DAMAGED]))
		code = 1;
	return code;
}

int main(int argc, char **argv)
{
	struct meerkat_params prm = { .cid_seed = CID_SEED_UNSET };
	struct mk_config_cli cli;
	struct mk_config conf;
	char *filter = NULL;
	uint32_t seed;
	int first, code = 0;

	mk_log_init("meerkat");
	mk_config_defaults(&conf);
	first = mk_cli_parse(&cli_desc, argc, argv, &prm);
	if (first < 0) {
		mk_cli_usage(&cli_desc, stderr);
		return 2;
	}
	if (prm.help) {
		mk_cli_usage(&cli_desc, stdout);
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
	if (prm.checksum && strcmp(prm.checksum, "none") && strcmp(prm.checksum, "all")) {
		mk_err("-k: '%s' is not one of none, all", prm.checksum);
		return 2;
	}
	/* a bad seed is a usage error in either mode, before anything starts */
	if (prm.seed && strcmp(prm.seed, "random") &&
	    mk_cli_u32("seed", prm.seed, 0, UINT32_MAX, &seed))
		return 2;
	if (prm.read_file && prm.n_iface) {
		mk_err("-r and -i exclude each other");
		return 2;
	}
	if (first < argc && !prm.read_file) {
		mk_err("unexpected argument '%s' (a BPF filter is for -r)", argv[first]);
		return 2;
	}
	cli = (struct mk_config_cli){ .ifaces = prm.iface, .n_ifaces = (unsigned int)prm.n_iface,
				      .workers = prm.workers, .log_dir = prm.log_dir,
				      .ctl_socket = prm.unix_socket };
	if (mk_config_setup(&conf, prm.config, &cli)) {
		code = 1;
		goto out;
	}
	if (prm.test_config) {
		printf("configuration OK: %s\n", prm.config ? prm.config : "built-in defaults");
		goto out;
	}
	if (prm.dump_config) {
		mk_config_dump(stdout, &conf);
		goto out;
	}
	/* live with interfaces from -i or the file, offline with -r */
	if (!prm.read_file && conf.capture.n_ifaces) {
		code = run_live(&prm, &conf) ? 1 : 0;
		goto out;
	}
	if (!prm.read_file) {
		mk_err("nothing to capture: -r FILE, or -i IFACE (or capture.interfaces) for live mode");
		mk_cli_usage(&cli_desc, stderr);
		code = 2;
		goto out;
	}
	if (first < argc) {
		filter = join_args(argc, argv, first);
		if (!filter) {
			mk_err("%s", strerror(ENOMEM));
			code = 1;
			goto out;
		}
	}
	code = run_offline(&prm, &conf, filter);
out:
	free(filter);
	mk_config_free(&conf);
	return code;
}
