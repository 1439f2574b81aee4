/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a configuration reload may change (docs/operations.md, Reload): every
 * key is one of three kinds, by its path, and two configurations are
 * compared key by key through their --dump-config lines.
 *
 *   restart  read once at start (interfaces, workers, rings, table sizes,
 *            memcaps that size tables, outputs' files): a reload reports
 *            the change ("capture.workers: 2 -> 4") and keeps the value;
 *   rules    what the detection engine is built from: a reload builds a
 *            new engine from it whatever changed;
 *   live     read where it is used (timeouts, bypass triggers, the CIDR
 *            bypass list, stats interval, EVE types): a reload applies it.
 *
 * A key not named in config_diff.c's table is a restart key, so that a key
 * added later is reported rather than silently ignored.
 */
#ifndef MK_CONFIG_DIFF_H
#define MK_CONFIG_DIFF_H

#include "config.h"

enum mk_cfg_reload {
	MK_CFG_RELOAD_RESTART = 0,
	MK_CFG_RELOAD_RULES,
	MK_CFG_RELOAD_LIVE,
};

/* The kind of key @path (a registered key's path). */
enum mk_cfg_reload mk_config_key_reload(const char *path);
/* "restart", "rules", "live" */
const char *mk_cfg_reload_name(enum mk_cfg_reload how);

#define MK_CONFIG_CHANGE_TEXT 200

struct mk_config_change {
	const char *path; /* the registered key */
	enum mk_cfg_reload how;
	char text[MK_CONFIG_CHANGE_TEXT]; /* "capture.workers: 2 -> 4" */
};

/*
 * The keys whose values differ between @old and @new, in registration
 * order, into @out (at most @max of them). Returns how many differ (more
 * than @max when the array is short), or -ENOMEM.
 */
int mk_config_diff(const struct mk_config *old, const struct mk_config *new,
		   struct mk_config_change *out, unsigned int max);

#endif /* MK_CONFIG_DIFF_H */
