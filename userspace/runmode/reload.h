/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live sensor's configuration reload (docs/operations.md, Reload):
 * `meerkatctl reload` and SIGUSR2 read the YAML file the sensor started
 * with again, with the same command-line options over it, and
 *
 *   1. a file that does not load (YAML error, unknown key, bad value) is
 *      refused with FILE:LINE:COLUMN: KEY: reason; nothing changes;
 *   2. the keys are compared (config/config_diff.h): restart keys that
 *      differ from the running values are listed in the reply and the log
 *      ("capture.workers: 2 -> 4") and keep their running value;
 *   3. a new detection engine is built off the packet path from the rule
 *      files, variables and side files; rules that fail are skipped and
 *      counted as at start; a build that fails refuses the reload;
 *   4. the CIDR bypass list becomes the file's: the difference with the list
 *      in force (which `meerkatctl bypass cidr add/del` may have changed)
 *      goes to the driver's maps;
 *   5. the live keys go to the workers, which take them between packets.
 *
 * Everything runs on the daemon's main thread, one reload at a time (a
 * second request waits for the first); capture and the workers go on.
 */
#ifndef MK_RELOAD_H
#define MK_RELOAD_H

#include <stdint.h>
#include <jansson.h>
#include "config.h"
#include "detect.h"

/* How the program reads its configuration: the file and the options over it (meerkat.c). */
struct mk_reload_src {
	const char *path; /* the -c file, NULL: the built-in defaults */
	/* the configuration as at start: defaults, @path, the options; 0 or -errno (logged) */
	int (*load)(void *ctx, struct mk_config *c);
	/* the detection settings of @c (strings stay @c's or the caller's) */
	void (*detect_cfg)(void *ctx, const struct mk_config *c, struct mk_detect_cfg *dc);
	void *ctx;
};

/* What the run mode applies (live.c): the CIDR list and the workers' settings. */
struct mk_reload_target {
	/* the CIDR list in force, an array of "prefix/len" strings (a new reference), or NULL */
	json_t *(*cidr_list)(void *ctx);
	/* @prefixes becomes the list: the answer ({added, removed}) or NULL + @why */
	json_t *(*cidr_set)(void *ctx, json_t *prefixes, char *why, size_t len);
	/* the live keys of @c to the workers and the main loop */
	void (*live)(void *ctx, const struct mk_config *c);
	void *ctx;
};

struct mk_reload {
	const struct mk_config *start; /* what runs: the restart keys keep these values */
	struct mk_config *cur;	       /* the last configuration applied; NULL: start */
	struct mk_reload_src src;
	struct mk_reload_target target;
	struct mk_detect_master *detect; /* NULL: started without rules */
	uint64_t generation;		 /* 1 at start, +1 per reload applied */
	uint64_t ok, failed;
	uint64_t last_ms; /* how long the last reload took */
	char last_msg[512];
};

void mk_reload_init(struct mk_reload *r, const struct mk_config *start,
		    const struct mk_reload_src *src, const struct mk_reload_target *target,
		    struct mk_detect_master *detect);
void mk_reload_free(struct mk_reload *r);
/*
 * One reload. Returns the reply (a new reference): generation, rules
 * loaded and failed, the changes applied, restart_needed, the CIDR list's
 * difference; or NULL with the reason in r->last_msg. Logs either way.
 */
json_t *mk_reload_run(struct mk_reload *r);
/* The counters as the stats show them ("reload": {...}). */
json_t *mk_reload_stats_json(const struct mk_reload *r);

#endif /* MK_RELOAD_H */
