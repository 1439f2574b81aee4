/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration: a YAML file shaped like suricata.yaml
 * (configs/meerkat.yaml is the reference, docs/configuration.md lists every
 * key), read with libyaml into struct mk_config, then the command-line
 * options on top.
 *
 * Each module owns its settings struct and a table of its keys
 * (config/cfg_keys.h); config.c registers the tables, walks the YAML tree
 * and reports the first error as one line: FILE:LINE:COLUMN: KEY.PATH:
 * what is wrong. A configuration is the built-in defaults, then the file,
 * then the command line: mk_config_setup() is that rule, in one place.
 */
#ifndef MK_CONFIG_H
#define MK_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "advise_cfg.h"
#include "bypass_cfg.h"
#include "applayer.h"
#include "capture_cfg.h"
#include "cfg_keys.h"
#include "defrag.h"
#include "flow.h"
#include "map_types.h"
#include "output_cfg.h"
#include "prometheus.h"
#include "rules_cfg.h"
#include "stream.h"

struct mk_cidr {
	uint32_t addr[4]; /* network byte order, host bits cleared */
	uint8_t family;	  /* enum mk_family */
	uint8_t prefix;
};

struct mk_config {
	struct mk_capture_cfg capture;	/* capture:, live mode only */
	struct mk_flow_cfg flow;	/* flow:, flow-timeouts: */
	struct mk_parse_cfg parse;	/* decoder:; seed is set by the caller, not the file */
	struct mk_stream_cfg stream;	/* stream: (the stream engine's own settings) */
	struct mk_defrag_config defrag; /* defrag: (the defragmenter's own settings) */
	struct mk_app_cfg app;		/* app-layer: */
	struct mk_output_cfg output;	/* default-log-dir:, stats:, outputs: */
	struct mk_prom_cfg prometheus;	/* stats.prometheus: the metrics endpoint (live) */
	struct mk_rules_cfg rules;	/* vars:, default-rule-path:, rule-files:, ... */
	struct mk_bypass_cfg
		bypass_cfg; /* stream.bypass, flow.bypass-*, detect.pass-bypass, bypass.* */
	struct mk_advise_cfg advise; /* advise-router: (advise/) */
	struct mk_cidr *bypass;	     /* bypass.cidr */
	unsigned int nbypass;
	void *mem; /* what the file's lists and strings live in; mk_config_free releases it */
};

/* Command-line options that override the file (NULL / 0: not given). */
struct mk_config_cli {
	const char *const *ifaces; /* -i, repeatable: replaces capture.interfaces */
	unsigned int n_ifaces;
	const char *workers;	/* --workers N: capture.workers, [1, MK_MAX_WORKERS] */
	const char *log_dir;	/* -l DIR: default-log-dir */
	const char *ctl_socket; /* --unix-socket PATH: capture.control-socket ("" = none) */
};

void mk_config_defaults(struct mk_config *c);
/* Returns 0 or -errno; the error is logged as FILE:LINE:COLUMN: KEY: what. */
int mk_config_load(struct mk_config *c, const char *path);
/* The same from @len bytes at @buf (not NUL-terminated); @name stands for the path in errors. */
int mk_config_load_buf(struct mk_config *c, const char *buf, size_t len, const char *name);
/* The options over what is in @c; errors name the option. 0 or -errno. */
int mk_config_apply_cli(struct mk_config *c, const struct mk_config_cli *cli);
/*
 * The precedence rule: defaults, then the file at @path (none if NULL), then
 * @cli (may be NULL). On error @c still needs mk_config_free().
 */
int mk_config_setup(struct mk_config *c, const char *path, const struct mk_config_cli *cli);
void mk_config_free(struct mk_config *c);

/*
 * Every setting, one "key.path = value" line each, in registration order
 * (meerkat --dump-config). Two configurations are equal when their dumps are.
 */
void mk_config_dump(FILE *out, const struct mk_config *c);
/* Key @i's line(s) of mk_config_dump(); -ENOENT past the last key. */
int mk_config_key_dump(FILE *out, const struct mk_config *c, unsigned int i);
/* The @i-th registered key (tests, docs), NULL past the last. */
const struct mk_cfg_key *mk_config_key(unsigned int i);
/*
 * The value of number, boolean and enum key @i in @c (seconds for
 * MK_CFG_SECONDS_NS); -EINVAL for strings and custom keys, -ENOENT past the last.
 */
int mk_config_key_value(const struct mk_config *c, unsigned int i, uint64_t *v);

/* "10.0.0.0/8", "2001:db8::/32", or a bare address (full prefix). 0 or -EINVAL. */
int mk_cidr_parse(const char *s, struct mk_cidr *out);

struct mk_cfg_ctx;
/*
 * A YAML list of addresses and prefixes at @node (bypass.cidr,
 * advise-router.allow) into @out (allocated with the configuration), the
 * item at fault named on error. 0 or the -errno of mk_cfg_error().
 */
int mk_cfg_cidr_list(struct mk_cfg_ctx *x, int node, const char *path, struct mk_cidr **out,
		     unsigned int *n);
/* "path = [10.0.0.0/8, 2001:db8::/32]" as --dump-config shows such a list. */
void mk_cfg_cidr_list_dump(FILE *out, const char *path, const struct mk_cidr *list, unsigned int n);
/* Is @addr (network order, IPv4 in addr[0]) inside one of the bypass prefixes? */
int mk_config_bypassed(const struct mk_config *c, uint8_t family, const uint32_t *addr);

#endif /* MK_CONFIG_H */
