// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's holder and reload.
 *
 * Holder (struct mk_detect_master): the current engine behind a mutex and a
 * generation counter. A reload builds on its own thread and swaps under the
 * mutex; workers compare the generation (one atomic load per packet) and
 * adopt the new engine between packets, dropping their reference to the
 * old one, which is freed when the last worker lets go (RCU by reference
 * counting). A failed build leaves the current engine in place.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"
#include "log.h"

/* ---- master -------------------------------------------------------------------------- */

/* A deep copy of a cfg: reload keeps it while the caller's strings may go away. */
struct cfg_copy {
	struct mk_detect_cfg cfg;
	struct mk_detect_var *avars, *pvars;
	char **files;
};

static char *sdup(const char *s, int *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = 1;
	return d;
}

static void cfg_copy_free(struct cfg_copy *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->cfg.naddress_vars; i++) {
		free((char *)c->avars[i].name);
		free((char *)c->avars[i].value);
	}
	for (i = 0; i < c->cfg.nport_vars; i++) {
		free((char *)c->pvars[i].name);
		free((char *)c->pvars[i].value);
	}
	for (i = 0; i < c->cfg.nrule_files; i++)
		free(c->files[i]);
	free(c->avars);
	free(c->pvars);
	free(c->files);
	free((char *)c->cfg.default_rule_path);
	free((char *)c->cfg.classification_file);
	free((char *)c->cfg.reference_config_file);
	free((char *)c->cfg.threshold_file);
	free((char *)c->cfg.rules_text);
	free((char *)c->cfg.rules_text_name);
	free(c);
}

static struct cfg_copy *cfg_copy(const struct mk_detect_cfg *src)
{
	struct cfg_copy *c = calloc(1, sizeof(*c));
	unsigned int i;
	int fail = 0;

	if (!c)
		return NULL;
	c->cfg = *src;
	c->avars = calloc(src->naddress_vars + 1, sizeof(*c->avars));
	c->pvars = calloc(src->nport_vars + 1, sizeof(*c->pvars));
	c->files = calloc(src->nrule_files + 1, sizeof(*c->files));
	if (!c->avars || !c->pvars || !c->files) {
		c->cfg.naddress_vars = c->cfg.nport_vars = c->cfg.nrule_files = 0;
		cfg_copy_free(c);
		return NULL;
	}
	for (i = 0; i < src->naddress_vars; i++) {
		c->avars[i].name = sdup(src->address_vars[i].name, &fail);
		c->avars[i].value = sdup(src->address_vars[i].value, &fail);
	}
	for (i = 0; i < src->nport_vars; i++) {
		c->pvars[i].name = sdup(src->port_vars[i].name, &fail);
		c->pvars[i].value = sdup(src->port_vars[i].value, &fail);
	}
	for (i = 0; i < src->nrule_files; i++)
		c->files[i] = sdup(src->rule_files[i], &fail);
	c->cfg.address_vars = c->avars;
	c->cfg.port_vars = c->pvars;
	c->cfg.rule_files = (const char *const *)c->files;
	c->cfg.default_rule_path = sdup(src->default_rule_path, &fail);
	c->cfg.classification_file = sdup(src->classification_file, &fail);
	c->cfg.reference_config_file = sdup(src->reference_config_file, &fail);
	c->cfg.threshold_file = sdup(src->threshold_file, &fail);
	c->cfg.rules_text = sdup(src->rules_text, &fail);
	c->cfg.rules_text_name = sdup(src->rules_text_name, &fail);
	if (fail) {
		cfg_copy_free(c);
		return NULL;
	}
	return c;
}

#define MASTER_RETIRED_MAX 8

struct mk_detect_master {
	pthread_mutex_t lock;
	struct mk_detect_engine *cur;
	_Atomic uint64_t gen;
	pthread_t thread;
	int thread_live; /* started and not joined */
	int reloading;
	int last_err;
	uint32_t reloads_ok, reloads_failed;
	char last_msg[512];
	struct cfg_copy *pending;
	/* per-thread sets for the current generation, made by the reload (mk_detect_prep) */
	struct mk_detect_prep *prep;
	unsigned int nprep;
	uint64_t prep_gen;
	unsigned int nthreads;
	/* replaced engines some worker may still use (mk_detect_master_reap) */
	struct mk_detect_engine *retired[MASTER_RETIRED_MAX];
	unsigned int nretired;
};

static void refusal_log(const char *text, void *arg)
{
	(void)arg;
	mk_warn("rule reload: %s", text);
}

int mk_detect_master_new(const struct mk_detect_cfg *cfg, struct mk_detect_master **out)
{
	struct mk_detect_master *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	err = mk_detect_engine_build_why(cfg, NULL, &m->cur, m->last_msg, sizeof(m->last_msg));
	if (err) {
		free(m);
		return err;
	}
	pthread_mutex_init(&m->lock, NULL);
	atomic_init(&m->gen, m->cur->stats.generation);
	mk_detect_engine_summary(m->cur, m->last_msg, sizeof(m->last_msg));
	*out = m;
	return 0;
}

/*
 * A reload must not take detection away by accident (docs/security.md): a
 * rule file cut short or overwritten while an update was writing it shows
 * as rules that no longer parse, or as no rule at all, and without
 * --strict-rules that engine would build. Unsupported keywords are not such
 * a sign (an update of a Suricata rule set brings new ones, skipped as at
 * start), so only these two refuse an engine that built. Returns 0 or
 * -EINVAL with @why.
 */
static int reload_refused(const struct mk_detect_engine *prev, const struct mk_detect_engine *e,
			  char *why, size_t len)
{
	const struct mk_detect_load_stats *o = mk_detect_engine_stats(prev);
	const struct mk_detect_load_stats *n = mk_detect_engine_stats(e);

	if (o->loaded && !n->loaded && n->failed) {
		snprintf(why, len,
			 "the rule files load no rule now (%u failed, see above), the "
			 "rules in force %u",
			 n->failed, o->loaded);
		return -EINVAL;
	}
	if (n->fail[MK_DETECT_FAIL_SYNTAX] > o->fail[MK_DETECT_FAIL_SYNTAX]) {
		snprintf(why, len,
			 "%u rule(s) do not parse (%u in the rules in force, see above): "
			 "a rule file damaged or cut short?",
			 n->fail[MK_DETECT_FAIL_SYNTAX], o->fail[MK_DETECT_FAIL_SYNTAX]);
		return -EINVAL;
	}
	return 0;
}

/* The sets of the previous generation nobody took; under the lock. */
static void prep_drop(struct mk_detect_master *m)
{
	unsigned int i;

	for (i = 0; i < m->nprep; i++)
		mk_detect_prep_free(&m->prep[i]);
	free(m->prep);
	m->prep = NULL;
	m->nprep = 0;
}

/* One set per thread of @m for engine @e; as many as memory allows (the rest make their own). */
static struct mk_detect_prep *prep_make(struct mk_detect_master *m,
					const struct mk_detect_engine *e, unsigned int *n)
{
	struct mk_detect_prep *p;
	unsigned int want;

	pthread_mutex_lock(&m->lock);
	want = m->nthreads;
	pthread_mutex_unlock(&m->lock);
	*n = 0;
	p = want ? calloc(want, sizeof(*p)) : NULL;
	if (!p)
		return NULL;
	while (*n < want && !mk_detect_prep_new(e, &p[*n]))
		(*n)++;
	return p;
}

int mk_detect_master_take_prep(struct mk_detect_master *m, uint64_t gen, struct mk_detect_prep *p)
{
	int err = -ENOENT;

	pthread_mutex_lock(&m->lock);
	if (m->prep_gen == gen && m->nprep) {
		*p = m->prep[--m->nprep];
		err = 0;
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}

void mk_detect_master_threads(struct mk_detect_master *m, int delta)
{
	pthread_mutex_lock(&m->lock);
	m->nthreads += (unsigned int)delta;
	pthread_mutex_unlock(&m->lock);
}

static void *reload_main(void *arg)
{
	struct mk_detect_master *m = arg;
	struct mk_detect_engine *prev, *e = NULL, *old = NULL;
	struct mk_detect_prep *preps = NULL;
	unsigned int nprep = 0;
	char why[256];
	int err;

	pthread_mutex_lock(&m->lock);
	prev = mk_detect_engine_get(m->cur);
	pthread_mutex_unlock(&m->lock);
	err = mk_detect_engine_build_why(&m->pending->cfg, prev, &e, why, sizeof(why));
	if (!err) {
		err = reload_refused(prev, e, why, sizeof(why));
		if (err) {
			mk_detect_engine_put(e);
			e = NULL;
		}
	}
	mk_detect_engine_put(prev);
	/* each worker's scratch space for the new engine, made here and not on its packet path */
	if (!err)
		preps = prep_make(m, e, &nprep);

	pthread_mutex_lock(&m->lock);
	if (!err) {
		prep_drop(m);
		m->prep = preps;
		m->nprep = nprep;
		m->prep_gen = atomic_load(&m->gen) + 1;
		/* kept until the workers let go; with no room, the last worker frees it */
		if (m->nretired < MASTER_RETIRED_MAX)
			m->retired[m->nretired++] = m->cur;
		else
			old = m->cur;
		e->stats.generation = atomic_load(&m->gen) + 1;
		m->cur = e;
		atomic_store_explicit(&m->gen, e->stats.generation, memory_order_release);
		m->reloads_ok++;
		mk_detect_engine_summary(e, m->last_msg, sizeof(m->last_msg));
		mk_info("rule reload: %s", m->last_msg);
		mk_detect_engine_refusals(e, MK_DETECT_REFUSAL_LINES, refusal_log, NULL);
	} else {
		m->reloads_failed++;
		snprintf(m->last_msg, sizeof(m->last_msg), "reload failed, old rules kept: %.200s",
			 why[0] ? why : strerror(-err));
		mk_err("%s", m->last_msg);
	}
	m->last_err = err;
	m->reloading = 0;
	pthread_mutex_unlock(&m->lock);
	mk_detect_engine_put(old);
	return NULL;
}

int mk_detect_reload(struct mk_detect_master *m, const struct mk_detect_cfg *cfg)
{
	int err;

	pthread_mutex_lock(&m->lock);
	if (m->reloading) {
		pthread_mutex_unlock(&m->lock);
		return -EBUSY;
	}
	if (m->thread_live) {
		/* finished (reloading is 0): reap it before starting the next */
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->thread, NULL);
		pthread_mutex_lock(&m->lock);
		m->thread_live = 0;
	}
	cfg_copy_free(m->pending);
	m->pending = cfg_copy(cfg);
	if (!m->pending) {
		pthread_mutex_unlock(&m->lock);
		return -ENOMEM;
	}
	m->reloading = 1;
	err = -pthread_create(&m->thread, NULL, reload_main, m);
	if (err)
		m->reloading = 0;
	else
		m->thread_live = 1;
	pthread_mutex_unlock(&m->lock);
	return err;
}

int mk_detect_reload_wait(struct mk_detect_master *m)
{
	int live, err;

	pthread_mutex_lock(&m->lock);
	live = m->thread_live;
	m->thread_live = 0;
	pthread_mutex_unlock(&m->lock);
	if (live)
		pthread_join(m->thread, NULL);
	pthread_mutex_lock(&m->lock);
	err = m->last_err;
	pthread_mutex_unlock(&m->lock);
	return err;
}

void mk_detect_master_status(struct mk_detect_master *m, struct mk_detect_status *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&m->lock);
	st->generation = atomic_load(&m->gen);
	st->reloads_ok = m->reloads_ok;
	st->reloads_failed = m->reloads_failed;
	st->reloading = m->reloading;
	st->last_reload_err = m->last_err;
	snprintf(st->last_reload_msg, sizeof(st->last_reload_msg), "%s", m->last_msg);
	st->load = m->cur->stats;
	pthread_mutex_unlock(&m->lock);
}

struct mk_detect_engine *mk_detect_master_engine(struct mk_detect_master *m)
{
	struct mk_detect_engine *e;

	pthread_mutex_lock(&m->lock);
	e = mk_detect_engine_get(m->cur);
	pthread_mutex_unlock(&m->lock);
	return e;
}

uint64_t mk_detect_master_generation(struct mk_detect_master *m)
{
	return atomic_load_explicit(&m->gen, memory_order_acquire);
}

unsigned int mk_detect_master_reap(struct mk_detect_master *m)
{
	struct mk_detect_engine *done[MASTER_RETIRED_MAX];
	unsigned int i, n = 0, kept = 0, left;

	pthread_mutex_lock(&m->lock);
	for (i = 0; i < m->nretired; i++) {
		/* only the master's reference is left: no worker can take a new one */
		if (atomic_load_explicit(&m->retired[i]->refcnt, memory_order_acquire) == 1)
			done[n++] = m->retired[i];
		else
			m->retired[kept++] = m->retired[i];
	}
	m->nretired = left = kept;
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++)
		mk_detect_engine_put(done[i]);
	return left;
}

void mk_detect_master_free(struct mk_detect_master *m)
{
	unsigned int i;

	if (!m)
		return;
	mk_detect_reload_wait(m);
	for (i = 0; i < m->nretired; i++)
		mk_detect_engine_put(m->retired[i]);
	prep_drop(m);
	mk_detect_engine_put(m->cur);
	cfg_copy_free(m->pending);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
