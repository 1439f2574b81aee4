// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration reload (reload.h): load, compare, build the rules, apply
 * the CIDR list and the live keys, in that order; any step that fails
 * leaves what runs as it was (the CIDR list is put back when the rules
 * fail after it changed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config_diff.h"
#include "log.h"
#include "reload.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void mk_reload_init(struct mk_reload *r, const struct mk_config *start,
		    const struct mk_reload_src *src, const struct mk_reload_target *target,
		    struct mk_detect_master *detect)
{
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->src = *src;
	r->target = *target;
	r->detect = detect;
	r->generation = 1;
}

void mk_reload_free(struct mk_reload *r)
{
	if (r->cur) {
		mk_config_free(r->cur);
		free(r->cur);
	}
	r->cur = NULL;
}

static void fail(struct mk_reload *r, uint64_t t0, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct mk_reload *r, uint64_t t0, const char *fmt, ...)
{
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(r->last_msg, sizeof(r->last_msg), "%s; the running configuration stays", why);
	r->failed++;
	r->last_ms = now_ms() - t0;
	mk_err("reload refused: %s", r->last_msg);
}

/* Every change between @a and @b (a new array in *@out); -ENOMEM or how many. */
static int changes(const struct mk_config *a, const struct mk_config *b,
		   struct mk_config_change **out)
{
	int n = mk_config_diff(a, b, NULL, 0);

	*out = NULL;
	if (n <= 0)
		return n;
	*out = calloc((size_t)n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	return mk_config_diff(a, b, *out, (unsigned int)n);
}

/* @c's bypass.cidr as the bypass manager's commands take it. */
static json_t *cidr_strings(const struct mk_config *c)
{
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 8];
	json_t *list = json_array();
	unsigned int i;

	for (i = 0; i < c->nbypass; i++) {
		inet_ntop(c->bypass[i].family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET,
			  c->bypass[i].addr, a, sizeof(a));
		snprintf(p, sizeof(p), "%s/%u", a, c->bypass[i].prefix);
		json_array_append_new(list, json_string(p));
	}
	return list;
}

/* The rules part of the reply. */
static void rules_json(json_t *reply, struct mk_detect_master *m)
{
	struct mk_detect_status st;
	json_t *why = json_object();
	int i;

	mk_detect_master_status(m, &st);
	json_object_set_new(reply, "rules_generation", json_integer((json_int_t)st.generation));
	json_object_set_new(reply, "rules_loaded", json_integer(st.load.loaded));
	json_object_set_new(reply, "rules_failed", json_integer(st.load.failed));
	for (i = 0; i < MK_DETECT_FAIL_MAX; i++)
		if (st.load.fail[i])
			json_object_set_new(why, mk_detect_fail_names[i],
					    json_integer(st.load.fail[i]));
	json_object_set_new(reply, "rules_failed_by_reason", why);
	json_object_set_new(reply, "rules_message", json_string(st.last_reload_msg));
}

/* Builds the engine of @c; 0, or -errno with the reason in @why. */
static int rules_reload(struct mk_reload *r, const struct mk_config *c, char *why, size_t len)
{
	struct mk_detect_status st;
	struct mk_detect_cfg dc;
	int err;

	r->src.detect_cfg(r->src.ctx, c, &dc);
	err = mk_detect_reload(r->detect, &dc);
	if (err == -EBUSY) {
		snprintf(why, len, "busy: a rule reload is running");
		return err;
	}
	if (!err)
		err = mk_detect_reload_wait(r->detect);
	if (err) {
		mk_detect_master_status(r->detect, &st);
		snprintf(why, len, "rules: %.380s", st.last_reload_msg);
	}
	return err;
}

json_t *mk_reload_run(struct mk_reload *r)
{
	const struct mk_config *cur = r->cur ? r->cur : r->start;
	struct mk_config_change *vs_start = NULL, *vs_cur = NULL;
	json_t *reply = NULL, *applied, *restart, *cidr = NULL, *before = NULL, *want;
	uint64_t t0 = now_ms();
	struct mk_config *nc = calloc(1, sizeof(*nc));
	int nstart, ncur, i, err;
	char why[400];

	if (!nc) {
		fail(r, t0, "out of memory");
		return NULL;
	}
	mk_info("reload: reading %s", r->src.path ? r->src.path : "the built-in defaults");
	mk_cfg_clear_error();
	mk_config_defaults(nc);
	err = r->src.load(r->src.ctx, nc);
	if (err) {
		fail(r, t0, "%s", mk_cfg_last_error()[0] ? mk_cfg_last_error() : strerror(-err));
		goto out;
	}
	nstart = changes(r->start, nc, &vs_start);
	ncur = changes(cur, nc, &vs_cur);
	if (nstart < 0 || ncur < 0) {
		fail(r, t0, "out of memory");
		goto out;
	}

	/* the CIDR list first, the file's whatever changed at run time; put back if the rules fail */
	before = r->target.cidr_list(r->target.ctx);
	want = cidr_strings(nc);
	cidr = before ? r->target.cidr_set(r->target.ctx, want, why, sizeof(why)) : NULL;
	json_decref(want);
	if (!cidr) {
		fail(r, t0, "%s", before ? why : "bypass.cidr: the list in force is unknown");
		goto out;
	}
	if (r->detect && rules_reload(r, nc, why, sizeof(why))) {
		json_t *back =
			r->target.cidr_set(r->target.ctx, before, r->last_msg, sizeof(r->last_msg));

		if (!back)
			mk_err("reload: the CIDR list could not be put back: %s", r->last_msg);
		json_decref(back);
		fail(r, t0, "%s", why);
		goto out;
	}
	r->target.live(r->target.ctx, nc);

	reply = json_object();
	applied = json_array();
	restart = json_array();
	for (i = 0; i < nstart; i++) {
		if (vs_start[i].how != MK_CFG_RELOAD_RESTART)
			continue;
		json_array_append_new(restart, json_string(vs_start[i].text));
		mk_warn("reload: %s needs a restart; the running value stays", vs_start[i].text);
	}
	if (!r->detect) {
		struct mk_detect_cfg dc;

		r->src.detect_cfg(r->src.ctx, nc, &dc);
		if (dc.nrule_files) {
			json_array_append_new(restart, json_string("rule-files: no rules at start, "
								   "detection is off"));
			mk_warn("reload: rule-files needs a restart (no rules at start)");
		}
	}
	for (i = 0; i < ncur; i++) {
		/* without an engine (no rules at start) the rules keys wait for a restart */
		if (vs_cur[i].how == MK_CFG_RELOAD_RESTART ||
		    (vs_cur[i].how == MK_CFG_RELOAD_RULES && !r->detect))
			continue;
		json_array_append_new(applied, json_string(vs_cur[i].text));
		mk_info("reload: %s", vs_cur[i].text);
	}
	r->generation++;
	r->ok++;
	r->last_ms = now_ms() - t0;
	json_object_set_new(reply, "generation", json_integer((json_int_t)r->generation));
	json_object_set_new(reply, "config", r->src.path ? json_string(r->src.path) : json_null());
	json_object_set_new(reply, "duration_ms", json_integer((json_int_t)r->last_ms));
	if (r->detect)
		rules_json(reply, r->detect);
	json_object_set_new(reply, "applied", applied);
	json_object_set_new(reply, "restart_needed", restart);
	json_object_set_new(reply, "bypass_cidr", cidr);
	cidr = NULL;
	snprintf(r->last_msg, sizeof(r->last_msg),
		 "generation %llu in %llu ms: %zu change(s) applied, %zu need a restart",
		 (unsigned long long)r->generation, (unsigned long long)r->last_ms,
		 json_array_size(applied), json_array_size(restart));
	mk_info("reload: %s", r->last_msg);
	mk_reload_free(r);
	r->cur = nc;
	nc = NULL;
out:
	json_decref(before);
	json_decref(cidr);
	free(vs_start);
	free(vs_cur);
	if (nc) {
		mk_config_free(nc);
		free(nc);
	}
	return reply;
}

json_t *mk_reload_stats_json(const struct mk_reload *r)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:s}", "generation", (json_int_t)r->generation,
			 "reloads_ok", (json_int_t)r->ok, "reloads_failed", (json_int_t)r->failed,
			 "last_ms", (json_int_t)r->last_ms, "last_message", r->last_msg);
}
