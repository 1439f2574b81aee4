// SPDX-License-Identifier: GPL-2.0-only
/*
 * The meerkat program: offline mode (-r FILE|DIR [BPF filter]), the live
 * sensor (-i IFACE or capture.interfaces, runmode/live.c) and configuration
 * and rule checks (-T). Rules come from the configuration's rule-files, or
 * from -S FILE (repeatable), which replaces them as Suricata's -S does. Options are one table filling struct meerkat_params
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
#include "detect.h"
#include "live.h"
#include "log.h"
#include "offline.h"

/* Offline runs are reproducible by default; live mode picks a random seed. */
#define MK_OFFLINE_SEED_DEFAULT 0x6d65726bu
/* --community-id-seed not given: outputs.eve-log.community-id-seed */
#define CID_SEED_UNSET UINT32_MAX
/* --reader-threads not given: capture.reader-threads */
#define READER_THREADS_UNSET UINT32_MAX
#define MK_MAX_RULE_FILES 64

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
	const char *rule_files[MK_MAX_RULE_FILES];
	int n_rule_files; /* MK_OPT_APPEND: right after its array */
	int strict_rules;
	uint32_t cid_seed;
	uint32_t reader_threads; /* READER_THREADS_UNSET: capture.reader-threads */
	int no_cid;
	int eve_truncate;
	int strict_input;
	int ips;
	int test_config;
	int dump_config;
	int verbose;
	int version;
	int help;
};

_Static_assert(offsetof(struct meerkat_params, n_iface) ==
		       offsetof(struct meerkat_params, iface) +
			       sizeof(((struct meerkat_params *)0)->iface),
	       "MK_OPT_APPEND: the count follows its array");
_Static_assert(offsetof(struct meerkat_params, n_rule_files) ==
		       offsetof(struct meerkat_params, rule_files) +
			       sizeof(((struct meerkat_params *)0)->rule_files),
	       "MK_OPT_APPEND: the count follows its array");

#define P(field) offsetof(struct meerkat_params, field)
static const struct mk_opt opts[] = {
	{ "read", 'r', MK_OPT_STR, P(read_file), "FILE|DIR",
	  "read a pcap/pcapng file, or every file of DIR in name order (offline mode)", 0, 0 },
	{ "interface", 'i', MK_OPT_APPEND, P(iface), "IFACE",
	  "capture live on IFACE, repeatable (overrides capture.interfaces); IN:OUT: an inline pair",
	  0, MK_MAX_IFACES },
	{ "ips", 0, MK_OPT_FLAG, P(ips), NULL,
	  "inline (IPS) mode between the -i IN:OUT pairs (sets capture.ips)", 0, 0 },
	{ "log-dir", 'l', MK_OPT_STR, P(log_dir), "DIR",
	  "write eve.json into DIR, created with its parents (overrides default-log-dir)", 0, 0 },
	{ "config", 'c', MK_OPT_STR, P(config), "FILE",
	  "YAML configuration (docs/configuration.md); options override it", 0, 0 },
	{ "test-config", 'T', MK_OPT_FLAG, P(test_config), NULL,
	  "check the configuration (-c FILE and the options) and load the rules, exit 0 if both are valid",
	  0, 0 },
	{ "rules", 'S', MK_OPT_APPEND, P(rule_files), "FILE",
	  "load rules from FILE, repeatable (replaces rule-files)", 0, MK_MAX_RULE_FILES },
	{ "strict-rules", 0, MK_OPT_FLAG, P(strict_rules), NULL,
	  "a rule that does not load is fatal", 0, 0 },
	{ "dump-config", 0, MK_OPT_FLAG, P(dump_config), NULL,
	  "print every setting (defaults, -c FILE, options) and exit", 0, 0 },
	{ "checksum", 'k', MK_OPT_STR, P(checksum), "none|all", "checksum validation (default all)",
	  0, 0 },
	{ "workers", 0, MK_OPT_STR, P(workers), "N",
	  "worker threads, 1-64 (overrides capture.workers; offline default 1)", 0, 0 },
	{ "reader-threads", 0, MK_OPT_U32, P(reader_threads), "N",
	  "offline: threads reading the input, 1-16, 0 = chosen per run (overrides "
	  "capture.reader-threads)",
	  0, MK_MAX_READER_THREADS },
	{ "seed", 0, MK_OPT_STR, P(seed), "N|random",
	  "hash seed (offline default fixed, for reproducible output; live default random)", 0, 0 },
	{ "community-id-seed", 0, MK_OPT_U32, P(cid_seed), "N",
	  "Community ID seed (overrides outputs.eve-log.community-id-seed)", 0, 65535 },
	{ "no-community-id", 0, MK_OPT_FLAG, P(no_cid), NULL,
	  "leave community_id out of EVE records", 0, 0 },
	{ "eve-truncate", 0, MK_OPT_FLAG, P(eve_truncate), NULL,
	  "truncate eve.json instead of appending to it", 0, 0 },
	{ "strict-input", 0, MK_OPT_FLAG, P(strict_input), NULL,
	  "offline: exit 1 when an input is damaged (default 0: what was read is processed)", 0,
	  0 },
	{ "stats-json", 0, MK_OPT_STR, P(stats_json), "FILE",
	  "offline: write every counter to FILE as JSON", 0, 0 },
	{ "unix-socket", 0, MK_OPT_STR, P(unix_socket), "PATH",
	  "live: control socket for meerkatctl (overrides capture.control-socket; '' = none)", 0,
	  0 },
	{ "dump-streams", 0, MK_OPT_STR, P(dump_streams), "DIR",
	  "debug: write reassembled TCP streams per flow and direction", 0, 0 },
	{ "verbose", 'v', MK_OPT_COUNT, P(verbose), NULL,
	  "every counter in the summary, info messages (twice: debug)", 0, 0 },
	{ "version", 0, MK_OPT_FLAG, P(version), NULL, "print version and compiled-in engines", 0,
	  0 },
	{ "help", 'h', MK_OPT_FLAG, P(help), NULL, "this help", 0, 0 },
};
#undef P

static const struct mk_cli cli_desc = {
	.prog = "meerkat",
	.usage =
		"-r FILE|DIR [-l LOGDIR] [-c CONFIG] [-S RULES ...] [-k none|all] [--workers N] [--reader-threads N] [--seed N] [-v] [BPF FILTER]\n"
		"       meerkat [-i IFACE ...] [-c CONFIG] [-S RULES ...] [-l LOGDIR] [--workers N] [-v]   (live)\n"
		"       meerkat --ips -i IN:OUT [-c CONFIG] [-S RULES ...] [-l LOGDIR]   (live, inline)\n"
		"       meerkat -T [-c CONFIG] [-S RULES ...] [options]   (check the configuration and rules)",
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

/* ---- detection: rule-files or -S, --strict-rules, -T ------------------- */

/*
 * A classification or reference file that cannot be read is not fatal
 * (Suricata goes on without it too): the built-in classes, or any reference
 * type, then stand in. A warning says so when the configuration chose the
 * file; the default path missing is the ordinary case of a sensor without
 * those files and is only an info line. "" means none.
 */
static const char *side_file(const char *path, const char *def, const char *what,
			     const char *instead)
{
	if (!path[0])
		return NULL;
	if (access(path, R_OK)) {
		if (strcmp(path, def))
			mk_warn("%s %s: %s; %s", what, path, strerror(errno), instead);
		else
			mk_info("%s %s: %s; %s", what, path, strerror(errno), instead);
		return NULL;
	}
	return path;
}

/*
 * The engine settings from the configuration's rules section (vars, rule
 * files, side files) with -S over rule-files. A -S file is read as given,
 * not under default-rule-path.
 */
static void detect_cfg_fill(const struct meerkat_params *prm, const struct mk_config *conf,
			    struct mk_detect_cfg *dc)
{
	const struct mk_rules_cfg *r = &conf->rules;

	_Static_assert(sizeof(struct mk_cfg_var) == sizeof(struct mk_detect_var) &&
			       offsetof(struct mk_cfg_var, value) ==
				       offsetof(struct mk_detect_var, value),
		       "a configuration variable is a detection variable");
	mk_detect_cfg_defaults(dc);
	dc->address_vars = (const struct mk_detect_var *)r->address_groups;
	dc->naddress_vars = r->naddress_groups;
	dc->port_vars = (const struct mk_detect_var *)r->port_groups;
	dc->nport_vars = r->nport_groups;
	if (prm->n_rule_files) {
		dc->rule_files = prm->rule_files;
		dc->nrule_files = (unsigned int)prm->n_rule_files;
	} else {
		dc->rule_files = r->rule_files;
		dc->nrule_files = r->nrule_files;
		dc->default_rule_path = r->default_rule_path;
	}
	dc->strict = prm->strict_rules;
	/* inline: drop and reject rules block (offline always alerts) */
	dc->inline_mode = conf->capture.ips && !prm->read_file;
	dc->prefilter_cache = r->prefilter_cache[0] ? r->prefilter_cache : NULL;
	if (!dc->nrule_files)
		return;
	dc->classification_file = side_file(r->classification_file, MK_RULES_CLASSIFICATION_DEFAULT,
					    "classification-file", "using the built-in classes");
	dc->reference_config_file = side_file(r->reference_config_file, MK_RULES_REFERENCE_DEFAULT,
					      "reference-config-file",
					      "any reference type accepted");
	dc->threshold_file = r->threshold_file[0] ? r->threshold_file : NULL;
}

static void refusal_log(const char *text, void *arg)
{
	(void)arg;
	mk_warn("rules: %s", text);
}

static void refusal_print(const char *text, void *arg)
{
	(void)arg;
	printf("rules: %s\n", text);
}

/* After the totals: the refused rules by reason, most frequent first (docs/rules.md). */
static void refusals_show(struct mk_detect_master *m, void (*line)(const char *, void *))
{
	struct mk_detect_engine *e = mk_detect_master_engine(m);

	mk_detect_engine_refusals(e, MK_DETECT_REFUSAL_LINES, line, NULL);
	mk_detect_engine_put(e);
}

/*
 * The rule engine, or none (*m NULL) when there are no rule files. The
 * totals are logged, then the refused rules by reason; an engine that
 * cannot be built is an error.
 */
static int detect_load(const struct meerkat_params *prm, const struct mk_config *conf,
		       struct mk_detect_cfg *dc, struct mk_detect_master **m)
{
	struct mk_detect_status st;
	int err;

	*m = NULL;
	detect_cfg_fill(prm, conf, dc);
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
	refusals_show(*m, refusal_log);
	return 0;
}

/*
 * -T: the configuration is valid (checked by then) and the rules load: exit
 * 1 if the engine cannot be built, a rule fails or a side file has errors
 * (Suricata's -T makes every rule failure fatal too).
 */
static int detect_test(const struct meerkat_params *prm, const struct mk_config *conf)
{
	struct mk_detect_master *m;
	struct mk_detect_status st;
	struct mk_detect_cfg dc;

	if (detect_load(prm, conf, &dc, &m))
		return 1;
	if (!m)
		return 0; /* no rule files: the configuration line says it all */
	mk_detect_master_status(m, &st);
	printf("rules: %s\n", st.last_reload_msg);
	refusals_show(m, refusal_print);
	mk_detect_master_free(m);
	return st.load.failed || st.load.config_errors ? 1 : 0;
}

/* outputs.eve-log.types: - alert: {payload, payload-printable, tagged-packets} */
static struct mk_eve_alert_opts alert_opts(const struct mk_config *conf)
{
	return (struct mk_eve_alert_opts){
		.payload = conf->output.eve.alert_payload,
		.payload_printable = conf->output.eve.alert_payload_printable,
		.tagged_packets = conf->output.eve.alert_tagged_packets,
	};
}

/* What a configuration reload reads again: the same file with the same options over it. */
struct reload_ctx {
	const struct meerkat_params *prm;
	const struct mk_config_cli *cli;
};

static int reload_load(void *ctx, struct mk_config *c)
{
	const struct reload_ctx *x = ctx;
	int err = mk_config_setup(c, x->prm->config, x->cli);

	if (!err && x->prm->reader_threads != READER_THREADS_UNSET)
		c->capture.reader_threads = x->prm->reader_threads;
	return err;
}

static void reload_detect_cfg(void *ctx, const struct mk_config *c, struct mk_detect_cfg *dc)
{
	const struct reload_ctx *x = ctx;

	detect_cfg_fill(x->prm, c, dc);
}

/* Live mode: the options are in @conf already (mk_config_setup). */
static int run_live(const struct meerkat_params *prm, const struct mk_config_cli *cli,
		    const struct mk_config *conf)
{
	struct reload_ctx rx = { .prm = prm, .cli = cli };
	struct mk_live_opts lo = { 0 };
	struct mk_detect_cfg dc;
	int err;

	err = parse_seed(prm->seed, NULL, &lo.seed);
	if (err)
		return err;
	lo.log_dir = conf->output.eve.enabled ? conf->output.log_dir : NULL;
	lo.eve_truncate = !conf->output.eve.append || prm->eve_truncate;
	lo.eve = eve_fmt(prm, conf);
	lo.checksum = !prm->checksum || strcmp(prm->checksum, "none");
	lo.stats_stderr = prm->verbose > 0;
	lo.alert_opts = alert_opts(conf);
	lo.alert_opts.inline_mode = conf->capture.ips;
	mk_log_route_libs();
	err = detect_load(prm, conf, &dc, &lo.detect);
	if (err)
		return err;
	lo.reload = (struct mk_reload_src){ .path = prm->config,
					    .load = reload_load,
					    .detect_cfg = reload_detect_cfg,
					    .ctx = &rx };
	err = mk_live_run(conf, &lo);
	mk_detect_master_free(lo.detect);
	return err;
}

/* Offline mode: every input through the pipeline, then the summary. */
static int run_offline(const struct meerkat_params *prm, const struct mk_config *conf,
		       const char *filter)
{
	static const uint32_t offline_seed = MK_OFFLINE_SEED_DEFAULT;
	struct mk_offline_opts o = { 0 };
	struct mk_offline_stats st;
	struct mk_detect_cfg dc;
	int err, code = 0;

	if (parse_seed(prm->seed, &offline_seed, &o.seed))
		return 2;
	o.pcap_path = prm->read_file;
	o.filter = filter;
	o.log_dir = conf->output.log_dir;
	o.dump_streams = prm->dump_streams;
	/* capture.workers is the live setting; offline runs one worker unless told */
	o.workers = prm->workers ? conf->capture.workers : 1;
	o.reader_threads = conf->capture.reader_threads;
	o.checksum = !prm->checksum || strcmp(prm->checksum, "none");
	o.progress = isatty(STDERR_FILENO);
	o.eve_truncate = prm->eve_truncate;
	o.eve = eve_fmt(prm, conf);
	o.alert_opts = alert_opts(conf);
	if (detect_load(prm, conf, &dc, &o.detect))
		return 1;

	err = mk_offline_run(&o, conf, &st);
	mk_detect_master_free(o.detect);
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
	struct meerkat_params prm = { .cid_seed = CID_SEED_UNSET,
				      .reader_threads = READER_THREADS_UNSET };
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
	cli = (struct mk_config_cli){ .ifaces = prm.iface,
				      .n_ifaces = (unsigned int)prm.n_iface,
				      .workers = prm.workers,
				      .log_dir = prm.log_dir,
				      .ctl_socket = prm.unix_socket };
	if (mk_config_setup(&conf, prm.config, &cli)) {
		code = 1;
		goto out;
	}
	if (prm.reader_threads != READER_THREADS_UNSET)
		conf.capture.reader_threads = prm.reader_threads;
	if (prm.ips)
		conf.capture.ips = 1;
	if (prm.test_config) {
		printf("configuration OK: %s\n", prm.config ? prm.config : "built-in defaults");
		mk_output_print(stdout, &conf.output); /* several outputs: each one */
		code = detect_test(&prm, &conf);
		goto out;
	}
	if (prm.dump_config) {
		mk_config_dump(stdout, &conf);
		goto out;
	}
	/* live with interfaces from -i or the file, offline with -r */
	if (!prm.read_file && conf.capture.n_ifaces) {
		code = run_live(&prm, &cli, &conf) ? 1 : 0;
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
