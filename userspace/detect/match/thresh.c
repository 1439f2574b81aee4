// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stateful alert filters, applied where alerts are merged in output order:
 * threshold (limit, threshold, both), detection_filter and rate_filter, per
 * source, destination, address pair or rule, over windows of packet time.
 * The counting follows Suricata's (detect-engine-threshold.c):
 *  - limit: the first count alerts of a window;
 *  - threshold: every count-th match of a window;
 *  - both: once per window, at the count-th match;
 *  - detection_filter: every match after the count-th of a window;
 *  - rate_filter: after count matches of a window, new_action for timeout s;
 *  - backoff (by_flow only): at the count-th match, then count * multiplier,
 *    count * multiplier^2, ..., with no window;
 *  - detection_filter unique_on: every match once more than count distinct
 *    source or destination ports came in the window (a bitmap of the 65536
 *    ports per entry, as Suricata's).
 * A window starts at the first match and lasts `seconds`. by_flow entries
 * are keyed by flow id; an alert without a flow passes no by_flow filter (as
 * Suricata's, which keeps them in the flow).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

struct th_entry {
	uint32_t gid, sid;
	uint32_t a[4], b[4];
	uint8_t spec; /* index in the key */
	uint8_t used;
	uint64_t tv1;	     /* window start, us (backoff: last match) */
	uint64_t timeout_at; /* rate_filter: new action until, us */
	uint32_t count;
	uint32_t next;	    /* backoff: the count that alerts next */
	uint32_t ndistinct; /* unique_on: distinct ports of the window */
	uint8_t *ports;	    /* unique_on: 65536-bit set of the window's ports, or NULL */
};

#define PORTS_BYTES (65536 / 8)

struct mk_detect_thresh {
	struct th_entry *t;
	uint32_t cap, n;
	uint64_t now;
};

int mk_detect_thresh_new(struct mk_detect_thresh **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void mk_detect_thresh_free(struct mk_detect_thresh *th)
{
	uint32_t i;

	if (!th)
		return;
	for (i = 0; i < th->cap; i++)
		if (th->t[i].used)
			free(th->t[i].ports);
	free(th->t);
	free(th);
}

int mk_detect_alert_thresh_key(const struct mk_detect_alert *a, struct mk_detect_thresh_key *k)
{
	const struct mk_rule *r = a->rule;
	const struct mk_thresh_spec *t;

	memset(k, 0, sizeof(*k));
	if (!r)
		return 0;
	t = r->cfg_thresh_set ? &r->cfg_thresh : &r->thresh;
	if (t->type != MK_THRESH_NONE)
		k->spec[k->nspec++] = *t;
	if (r->rate.type == MK_THRESH_RATE)
		k->spec[k->nspec++] = r->rate;
	if (!k->nspec)
		return 0;
	k->gid = r->gid;
	k->sid = r->sid;
	k->family = a->family;
	k->flow_id = a->flow_id;
	if (a->has_ports) {
		k->sport = a->sport;
		k->dport = a->dport;
	}
	memcpy(k->src, a->src, sizeof(k->src));
	memcpy(k->dst, a->dst, sizeof(k->dst));
	k->ts_us = a->ts_us;
	return 1;
}

static uint32_t th_hash(const struct th_entry *e)
{
	uint32_t h = 2166136261u, i;
	const uint32_t *w = &e->gid;

	/* gid, sid, a[4], b[4] are consecutive */
	for (i = 0; i < 10; i++)
		h = (h ^ w[i]) * 16777619u;
	return (h ^ e->spec) * 16777619u;
}

static int th_same(const struct th_entry *x, const struct th_entry *y)
{
	return x->gid == y->gid && x->sid == y->sid && x->spec == y->spec &&
	       !memcmp(x->a, y->a, sizeof(x->a)) && !memcmp(x->b, y->b, sizeof(x->b));
}

static int grow(struct mk_detect_thresh *th)
{
	uint32_t cap = th->cap ? th->cap * 2 : 256, i, k;
	struct th_entry *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; i < th->cap; i++) {
		if (!th->t[i].used)
			continue;
		for (k = th_hash(&th->t[i]) & (cap - 1); n[k].used; k = (k + 1) & (cap - 1))
			;
		n[k] = th->t[i];
	}
	free(th->t);
	th->t = n;
	th->cap = cap;
	return 0;
}

/* Drops entries whose window and timeout are over (a rebuild without them). */
static void expire(struct mk_detect_thresh *th, uint64_t horizon_us)
{
	struct th_entry *old = th->t;
	uint32_t cap = th->cap, i, k;

	th->t = calloc(cap, sizeof(*th->t));
	if (!th->t) {
		th->t = old;
		return;
	}
	th->n = 0;
	for (i = 0; i < cap; i++) {
		if (!old[i].used)
			continue;
		if (old[i].tv1 + horizon_us < th->now && old[i].timeout_at < th->now) {
			free(old[i].ports);
			continue;
		}
		for (k = th_hash(&old[i]) & (cap - 1); th->t[k].used; k = (k + 1) & (cap - 1))
			;
		th->t[k] = old[i];
		th->n++;
	}
	free(old);
}

static struct th_entry *lookup(struct mk_detect_thresh *th, const struct th_entry *key,
			       int *created)
{
	uint32_t k;

	*created = 0;
	if ((th->n + 1) * 2 > th->cap) {
		/* windows longer than an hour are not expected; entries idle that long go */
		if (th->cap >= 4096)
			expire(th, 3600ull * 1000000);
		if ((th->n + 1) * 2 > th->cap && grow(th))
			return NULL;
	}
	for (k = th_hash(key) & (th->cap - 1); th->t[k].used; k = (k + 1) & (th->cap - 1))
		if (th_same(&th->t[k], key))
			return &th->t[k];
	th->t[k] = *key;
	th->t[k].used = 1;
	th->n++;
	*created = 1;
	return &th->t[k];
}

/* type backoff: alerts at count, count * multiplier, ... (no window). */
static int backoff(struct th_entry *e, const struct mk_thresh_spec *s, int created, uint64_t ts)
{
	e->tv1 = ts; /* idle entries expire an hour after their last match */
	if (created) {
		e->count = 0;
		e->next = s->count;
	}
	if (e->count == UINT32_MAX)
		return 0;
	if (++e->count != e->next)
		return 0;
	e->next = (uint64_t)e->next * s->multiplier > UINT32_MAX ? UINT32_MAX :
								   e->next * s->multiplier;
	return 1;
}

/*
 * detection_filter unique_on: every match alerts once more than count
 * distinct ports came in the window. Without memory for the set, plain
 * counting of matches (as Suricata's fallback).
 */
static int distinct(struct th_entry *e, const struct mk_thresh_spec *s, uint16_t port)
{
	uint8_t bit = (uint8_t)(1u << (port & 7));

	if (!e->ports)
		e->ports = calloc(1, PORTS_BYTES);
	if (!e->ports)
		return e->count > s->count;
	if (!(e->ports[port >> 3] & bit)) {
		e->ports[port >> 3] |= bit;
		e->ndistinct++;
	}
	return e->ndistinct > s->count;
}

int mk_detect_thresh_filter(struct mk_detect_thresh *th, const struct mk_detect_thresh_key *k,
			    enum mk_detect_action *action)
{
	uint32_t i;
	int keep = 1;

	if (k->ts_us > th->now)
		th->now = k->ts_us;
	for (i = 0; i < k->nspec && i < 2; i++) {
		const struct mk_thresh_spec *s = &k->spec[i];
		struct th_entry key, *e;
		uint64_t win = (uint64_t)s->seconds * 1000000;
		int created, within;

		memset(&key, 0, sizeof(key));
		key.gid = k->gid;
		key.sid = k->sid;
		key.spec = (uint8_t)i;
		switch (s->track) {
		case MK_TRACK_SRC:
			memcpy(key.a, k->src, sizeof(key.a));
			break;
		case MK_TRACK_DST:
			memcpy(key.a, k->dst, sizeof(key.a));
			break;
		case MK_TRACK_BOTH:
			memcpy(key.a, k->src, sizeof(key.a));
			memcpy(key.b, k->dst, sizeof(key.b));
			break;
		case MK_TRACK_FLOW:
			if (!k->flow_id) {
				keep = 0;
				continue;
			}
			key.a[0] = (uint32_t)k->flow_id;
			key.a[1] = (uint32_t)(k->flow_id >> 32);
			break;
		default:
			break;
		}
		e = lookup(th, &key, &created);
		if (!e)
			continue; /* out of memory: let the alert through */
		if (s->type == MK_THRESH_BACKOFF) {
			keep &= backoff(e, s, created, k->ts_us);
			continue;
		}
		within = !created && k->ts_us >= e->tv1 && k->ts_us - e->tv1 < win;
		if (created || !within) {
			e->tv1 = k->ts_us;
			e->count = 1;
			e->ndistinct = 0;
			if (e->ports)
				memset(e->ports, 0, PORTS_BYTES);
		} else {
			e->count++;
		}
		if (s->unique_on) {
			keep &= distinct(e, s,
					 s->unique_on == MK_UNIQUE_SRC_PORT ? k->sport : k->dport);
			continue;
		}
		switch (s->type) {
		case MK_THRESH_LIMIT:
			keep &= e->count <= s->count;
			break;
		case MK_THRESH_THRESHOLD:
			if (e->count >= s->count) {
				e->count = 0;
			} else {
				keep = 0;
			}
			break;
		case MK_THRESH_BOTH:
			keep &= e->count == s->count;
			break;
		case MK_THRESH_DETECTION:
			keep &= e->count > s->count;
			break;
		case MK_THRESH_RATE:
			if (e->count > s->count)
				e->timeout_at = k->ts_us + (uint64_t)s->timeout * 1000000;
			if (e->timeout_at && k->ts_us < e->timeout_at) {
				if (s->new_action == MK_ACTION_PASS)
					keep = 0;
				if (action)
					*action = (enum mk_detect_action)s->new_action;
			}
			break;
		default:
			break;
		}
	}
	return keep;
}
