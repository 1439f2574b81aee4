// SPDX-License-Identifier: GPL-2.0-only
/*
 * The meerkat daemon. Today: offline mode (-r FILE|DIR [BPF filter]).
 * Options are one table filling struct meerkat_params (util/cli.h: given
 * twice or out of range is an error); getopt's table and --help come from it.
 *
 * Exit status: 0 done (a damaged input read up to the damage included,
 * unless --strict-input); 1 an input could not be read, EVE records were
 * lost, or --strict-input and an input was damaged; 2 usage.
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
#include "log.h"
#include "offline.h"

/* Offline runs are reproducible by default; live mode will pick a random seed. */
#define MK_OFFLINE_SEED_DEFAULT 0x6d65726bu

struct meerkat_params {
	const char *read_file;
	const char *iface;
	const char *log_dir;
	const char *config;
	const char *checksum;
	const char *seed;
	const char *dump_streams;
	const char *stats_json;
	uint32_t workers;
	uint32_t cid_seed;
	int no_cid;
	int eve_truncate;
	int strict_input;
	int verbose;
	int version;
	int help;
};

#define P(field) offsetof(struct meerkat_params, field)
static const struct mk_opt opts[] = {
	{ "read", 'r', MK_OPT_STR, P(read_file), "FILE|DIR", "read a pcap/pcapng file, or every file of DIR in name order (offline mode)", 0, 0 },
	{ "interface", 'i', MK_OPT_STR, P(iface), "IFACE", "capture on IFACE (live mode: not yet supported)", 0, 0 },
	{ "log-dir", 'l', MK_OPT_STR, P(log_dir), "DIR", "write eve.json into DIR (created with its parents)", 0, 0 },
	{ "config", 'c', MK_OPT_STR, P(config), "FILE", "configuration file (key: value lines)", 0, 0 },
	{ "checksum", 'k', MK_OPT_STR, P(checksum), "none|all", "checksum validation (default all)", 0, 0 },
	{ "workers", 0, MK_OPT_U32, P(workers), "N", "worker threads (default 1)", 1, MK_MAX_WORKERS },
	{ "seed", 0, MK_OPT_STR, P(seed), "N|random", "hash seed (offline default fixed, for reproducible output)", 0, 0 },
	{ "community-id-seed", 0, MK_OPT_U32, P(cid_seed), "N", "Community ID seed (default 0)", 0, 65535 },
	{ "no-community-id", 0, MK_OPT_FLAG, P(no_cid), NULL, "leave community_id out of EVE records", 0, 0 },
	{ "eve-truncate", 0, MK_OPT_FLAG, P(eve_truncate), NULL, "truncate eve.json instead of appending to it", 0, 0 },
	{ "strict-input", 0, MK_OPT_FLAG, P(strict_input), NULL, "exit 1 when an input is damaged (default 0: what was read is processed)", 0, 0 },
	{ "stats-json", 0, MK_OPT_STR, P(stats_json), "FILE", "write every counter to FILE as JSON", 0, 0 },
	{ "dump-streams", 0, MK_OPT_STR, P(dump_streams), "DIR", "debug: write reassembled TCP streams per flow and direction", 0, 0 },
	{ "verbose", 'v', MK_OPT_COUNT, P(verbose), NULL, "every counter in the summary, info messages (twice: debug)", 0, 0 },
	{ "version", 0, MK_OPT_FLAG, P(version), NULL, "print version and compiled-in engines", 0, 0 },
	{ "help", 'h', MK_OPT_FLAG, P(help), NULL, "this help", 0, 0 },
};
#undef P

static const struct mk_cli cli = {
	.prog = "meerkat",
	.usage = "-r FILE|DIR -l LOGDIR [-c CONFIG] [-k none|all] [--workers N] [--seed N] [-v] [BPF FILTER]",
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

int main(int argc, char **argv)
{
	struct meerkat_params prm = { .workers = 1 };
	struct mk_offline_opts o = { 0 };
	struct mk_offline_stats st;
	struct mk_config conf;
	char *filter = NULL;
	int err, first, code = 0;

	mk_log_init("meerkat");
	mk_config_defaults(&conf);
	first = mk_cli_parse(&cli, argc, argv, &prm);
	if (first < 0) {
		mk_cli_usage(&cli, stderr);
		return 2;
	}
	if (prm.help) {
		mk_cli_usage(&cli, stdout);
		return 0;
	}
	if (prm.version) {
		printf("meerkat %s (engines: %s)\n", MK_VERSION, mk_offline_features());
		return 0;
	}
	o.seed = MK_OFFLINE_SEED_DEFAULT;
	if (prm.seed && strcmp(prm.seed, "random") &&
	    mk_cli_u32("seed", prm.seed, 0, UINT32_MAX, &o.seed))
		return 2;
	if (prm.verbose)
		mk_log_set_level(prm.verbose > 1 ? MK_LOG_DEBUG : MK_LOG_INFO);
	else
		mk_log_set_level(MK_LOG_WARN);
	if (prm.iface) {
		mk_err("-i %s: live capture is not yet supported in this build; use -r FILE", prm.iface);
		return 2;
	}
	if (!prm.read_file || !prm.log_dir) {
		mk_err("offline mode needs -r FILE and -l LOGDIR");
		mk_cli_usage(&cli, stderr);
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
	if (prm.seed && !strcmp(prm.seed, "random") &&
	    getrandom(&o.seed, sizeof(o.seed), 0) != sizeof(o.seed)) {
		mk_err("getrandom: %s", strerror(errno));
		return 1;
	}
	if (first < argc) {
		filter = join_args(argc, argv, first);
		if (!filter) {
			mk_err("%s", strerror(ENOMEM));
			return 1;
		}
	}
	if (prm.config) {
		err = mk_config_load(&conf, prm.config);
		if (err) {
			code = 1;
			goto out;
		}
	}
	o.pcap_path = prm.read_file;
	o.filter = filter;
	o.log_dir = prm.log_dir;
	o.dump_streams = prm.dump_streams;
	o.workers = prm.workers;
	o.progress = isatty(STDERR_FILENO);
	o.eve_truncate = prm.eve_truncate;
	o.eve.community_id = !prm.no_cid;
	o.eve.community_id_seed = (uint16_t)prm.cid_seed;

	err = mk_offline_run(&o, &conf, &st);
	/* a run that got going has counters, whatever ended it */
	if (st.cnt[MK_OFF_FILES] || st.cnt[MK_OFF_FILES_FAILED]) {
		mk_offline_print_summary(stderr, &st, prm.verbose);
		if (prm.stats_json && mk_offline_stats_json(prm.stats_json, &st))
			code = 1;
	}
	if (err || st.cnt[MK_OFF_FILES_FAILED] ||
	    (prm.strict_input && st.cnt[MK_OFF_FILES_DAMAGED]))
		code = 1;
out:
	free(filter);
	mk_config_free(&conf);
	return code;
}
