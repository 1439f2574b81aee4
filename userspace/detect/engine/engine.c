// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine builder (the holder and reload are in reload.c).
 *
 * Build: configuration files, then every rule file (one rule per line,
 * '\' continues a line, '#' comments), each rule parsed on its own so one
 * bad rule costs only itself; duplicates of a gid:sid keep the higher rev.
 * Rules are then ordered as Suricata orders them (action: pass, drop,
 * reject, alert; rules that set flowbits/flowint before rules that read
 * them; priority; file order), each rule's prefilter anchors chosen
 * (prefilter.c), the rules grouped, and each group's anchors compiled into
 * one Hyperscan database:
 *
 *   packet groups:  [protocol class][direction] -> a group per busy server
 *                   port, one for the other ports; each with the any-port
 *                   rules too
 *   stream groups:  [direction of the data]     -> the same, TCP stream rules
 *
 * The server port is the destination towards the server and the source
 * back, as Suricata keys its groups, so a packet (or a stream chunk) meets
 * exactly one group: one scan, and rules for other protocols, directions
 * and ports are never looked at. The engine is immutable afterwards.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "applayer.h"
#include "detect_int.h"
#include "log.h"

_Static_assert(MK_APP_PROTO_MAX <= 16, "struct mk_detect_load_stats app_tx_proto");

#define PORT_GROUPS_DEFAULT 16
#define STREAM_WINDOW_DEFAULT 1024
#define STREAM_REACH_DEFAULT 16384
#define REACH_BUDGET_DEFAULT (64ull << 20)
#define STREAM_HEAD_CAP 4096

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct build {
	struct mk_detect_engine *e;
	const struct mk_detect_cfg *cfg;
	struct mk_rule **rules;
	uint32_t n, cap;
	char *why; /* first fatal error, for the reload status */
	size_t whylen;
};

__attribute__((format(printf, 2, 3))) static void set_why(struct build *b, const char *fmt, ...)
{
	va_list ap;

	if (!b->why || b->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(b->why, b->whylen, fmt, ap);
	va_end(ap);
}

/* ---- rule files ------------------------------------------------------------------- */

static int rule_cmp_sid(const void *x, const void *y)
{
	const struct mk_sid_entry *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

struct sid_hash {
	uint64_t *keys; /* gid << 32 | sid, 0 = empty */
	uint32_t *idx;
	uint32_t cap, n;
};

static int sid_hash_find(struct sid_hash *h, uint64_t key, uint32_t *idx)
{
	uint32_t k;

	if (!h->cap)
		return 0;
	for (k = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (h->cap - 1); h->keys[k];
	     k = (k + 1) & (h->cap - 1))
		if (h->keys[k] == key) {
			*idx = h->idx[k];
			return 1;
		}
	return 0;
}

static int sid_hash_put(struct sid_hash *h, uint64_t key, uint32_t idx)
{
	uint32_t k, i;

	if ((h->n + 1) * 2 > h->cap) {
		struct sid_hash n = { 0 };

		n.cap = h->cap ? h->cap * 2 : 1024;
		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.idx = calloc(n.cap, sizeof(*n.idx));
		if (!n.keys || !n.idx) {
			free(n.keys);
			free(n.idx);
			return -ENOMEM;
		}
		for (i = 0; i < h->cap; i++)
			if (h->keys[i])
				sid_hash_put(&n, h->keys[i], h->idx[i]);
		free(h->keys);
		free(h->idx);
		*h = n;
	}
	for (k = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (h->cap - 1); h->keys[k];
	     k = (k + 1) & (h->cap - 1))
		if (h->keys[k] == key) {
			h->idx[k] = idx;
			return 0;
		}
	h->keys[k] = key;
	h->idx[k] = idx;
	h->n++;
	return 0;
}

/* A rule refused: counted by reason and, without its values, in the summary (refusals.c). */
static void refuse(struct build *b, int reason, const char *why)
{
	b->e->stats.failed++;
	b->e->stats.fail[reason]++;
	mk_refusals_add(&b->e->refusals, why);
}

static int add_rule_text(struct build *b, struct sid_hash *sh, const char *text, const char *file,
			 uint32_t line)
{
	struct mk_rule *r;
	char err[MK_RULE_ERR_LEN + 64];
	int reason;
	uint32_t sid, dup;
	uint64_t key;

	if (mk_rule_parse(&b->e->env, text, file, line, &r, err, sizeof(err), &reason, &sid)) {
		if (sid)
			mk_err("%s:%u: sid %u: %s", file, line, sid, err);
		else
			mk_err("%s:%u: %s", file, line, err);
		refuse(b, reason, err);
		return 0;
	}
	key = (uint64_t)r->gid << 32 | r->sid;
	if (sid_hash_find(sh, key, &dup)) {
		struct mk_rule *old = b->rules[dup];

		if (r->rev > old->rev) {
			refuse(b, MK_DETECT_FAIL_DUPLICATE,
			       "duplicate sid: a later rule with a higher rev replaces it");
			mk_err("%s:%u: sid %u: duplicate of %s:%u (rev %u): this rev %u replaces it",
			       file, line, r->sid, old->file, old->line, old->rev, r->rev);
			b->rules[dup] = r;
			mk_rule_free(old);
		} else {
			refuse(b, MK_DETECT_FAIL_DUPLICATE, "duplicate sid: ignored");
			mk_err("%s:%u: sid %u: duplicate of %s:%u: ignored", file, line, r->sid,
			       old->file, old->line);
			mk_rule_free(r);
		}
		return 0;
	}
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		struct mk_rule **n = realloc(b->rules, cap * sizeof(*n));

		if (!n) {
			mk_rule_free(r);
			return -ENOMEM;
		}
		b->rules = n;
		b->cap = cap;
	}
	if (sid_hash_put(sh, key, b->n)) {
		mk_rule_free(r);
		return -ENOMEM;
	}
	b->rules[b->n++] = r;
	return 0;
}

/* Feeds every complete rule of a stream of lines to add_rule_text. */
static int load_lines(struct build *b, struct sid_hash *sh, FILE *f, const char *name)
{
	char *line = NULL, *acc = NULL;
	size_t cap = 0, alen = 0;
	uint32_t no = 0, start = 0;
	ssize_t n;
	int err = 0;

	while ((n = getline(&line, &cap, f)) > 0) {
		char *s = line;
		size_t l;
		int cont;

		no++;
		if (memchr(line, '\0', (size_t)n)) {
			mk_err("%s:%u: NUL byte in the line: ignored", name, no);
			refuse(b, MK_DETECT_FAIL_SYNTAX, "NUL byte in the line");
			continue;
		}
		l = strlen(s);
		while (l && (s[l - 1] == '\n' || s[l - 1] == '\r'))
			s[--l] = '\0';
		cont = l && s[l - 1] == '\\';
		if (cont)
			s[--l] = '\0';
		if (!alen) {
			const char *t = s + strspn(s, " \t");

			if (!*t || *t == '#')
				continue;
			start = no;
		}
		{
			char *na = realloc(acc, alen + l + 1);

			if (!na) {
				err = -ENOMEM;
				break;
			}
			acc = na;
			memcpy(acc + alen, s, l);
			alen += l;
			acc[alen] = '\0';
		}
		if (cont)
			continue;
		err = add_rule_text(b, sh, mk_strtrim(acc), name, start);
		alen = 0;
		if (err)
			break;
	}
	if (!err && alen)
		err = add_rule_text(b, sh, mk_strtrim(acc), name, start);
	free(line);
	free(acc);
	return err;
}

static int load_file(struct build *b, struct sid_hash *sh, const char *file)
{
	char path[4096];
	FILE *f;
	int err;

	if (!strchr(file, '/') && b->cfg->default_rule_path)
		snprintf(path, sizeof(path), "%s/%s", b->cfg->default_rule_path, file);
	else
		snprintf(path, sizeof(path), "%s", file);
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		mk_err("%s: %s", path, strerror(-err));
		set_why(b, "%s: %s", path, strerror(-err));
		return err;
	}
	b->e->stats.files++;
	err = load_lines(b, sh, f, path);
	fclose(f);
	return err;
}

/* ---- ordering ------------------------------------------------------------------------ */

static int action_rank(uint8_t a)
{
	return a == MK_ACTION_PASS ? 0 : a == MK_ACTION_DROP ? 1 : a == MK_ACTION_REJECT ? 2 : 3;
}

static int flowvar_rank(uint32_t f)
{
	int set = !!(f & MK_RF_FLOWVAR_SET), get = !!(f & MK_RF_FLOWVAR_GET);

	return set && !get ? 0 : set && get ? 1 : get ? 2 : 3;
}

static int rule_order(const void *x, const void *y)
{
	const struct mk_rule *a = *(struct mk_rule *const *)x, *b = *(struct mk_rule *const *)y;
	int d;

	d = action_rank(a->action) - action_rank(b->action);
	if (d)
		return d;
	d = flowvar_rank(a->flags) - flowvar_rank(b->flags);
	if (d)
		return d;
	d = a->priority - b->priority;
	if (d)
		return d;
	/* file order: the num assigned while loading */
	return a->num < b->num ? -1 : a->num > b->num;
}

/* ---- groups ------------------------------------------------------------------------------ */

struct mk_group *mk_detect_group_new(struct mk_detect_engine *e)
{
	struct mk_group *g = calloc(1, sizeof(*g)), **n;

	if (!g)
		return NULL;
	n = realloc(e->groups, (e->ngroups + 1) * sizeof(*n));
	if (!n) {
		free(g);
		return NULL;
	}
	e->groups = n;
	g->id = e->ngroups;
	e->groups[e->ngroups++] = g;
	return g;
}

/*
 * The server ports a rule can match in direction @to_client (its key): the
 * destination ports towards the server, the source ports towards the
 * client; both for <>. Returns 1 when that is any port.
 */
static int rule_ports(const struct mk_rule *r, int to_client, const struct mk_port_set **a,
		      const struct mk_port_set **b)
{
	*a = to_client ? &r->sp : &r->dp;
	*b = (r->flags & MK_RF_BIDIR) ? (to_client ? &r->dp : &r->sp) : NULL;
	return (*a)->any || (*b && (*b)->any);
}

static uint64_t ports_count(const struct mk_port_set *p)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; p && i < p->n; i++)
		n += (uint64_t)p->r[i].hi - p->r[i].lo + 1;
	return n;
}

struct port_count {
	uint16_t port;
	uint32_t n;
};

static int pc_cmp(const void *x, const void *y)
{
	const struct port_count *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

static int u16_cmp(const void *x, const void *y)
{
	return (int)*(const uint16_t *)x - (int)*(const uint16_t *)y;
}

/* The ports most rules name get groups of their own: rules naming few ports vote. */
static int pick_ports(struct mk_detect_engine *e, struct mk_group_set *gs, const uint32_t *sel,
		      uint32_t nsel, int to_client, uint32_t max_groups)
{
	struct port_count *pc = NULL;
	uint16_t *votes = NULL;
	uint32_t nv = 0, cap = 0, np = 0, nany = 0, i, k;

	for (i = 0; i < nsel; i++) {
		const struct mk_rule *r = e->rules[sel[i]];
		const struct mk_port_set *a, *b, *set[2];
		uint32_t s2, p;

		if (rule_ports(r, to_client, &a, &b)) {
			nany++;
			continue;
		}
		if (ports_count(a) + ports_count(b) > 64)
			continue;
		set[0] = a;
		set[1] = b;
		for (s2 = 0; s2 < 2; s2++)
			for (k = 0; set[s2] && k < set[s2]->n; k++)
				for (p = set[s2]->r[k].lo; p <= set[s2]->r[k].hi; p++) {
					if (nv == cap) {
						uint16_t *nw;

						cap = cap ? cap * 2 : 256;
						nw = realloc(votes, cap * sizeof(*nw));
						if (!nw)
							goto fail;
						votes = nw;
					}
					votes[nv++] = (uint16_t)p;
				}
	}
	if (nv)
		qsort(votes, nv, sizeof(*votes), u16_cmp);
	pc = calloc(nv ? nv : 1, sizeof(*pc));
	if (!pc)
		goto fail;
	for (i = 0; i < nv; i++) {
		if (np && pc[np - 1].port == votes[i])
			pc[np - 1].n++;
		else
			pc[np++] = (struct port_count){ votes[i], 1 };
	}
	qsort(pc, np, sizeof(*pc), pc_cmp);
	/*
	 * Each group holds the any-port rules too and costs their compile
	 * again: a port gets a group when 1 in 200 rules of the set name it
	 * (4 at least), most named first, while the copies of the any-port
	 * rules stay below the set's size; the rest share the other group.
	 */
	while (np && pc[np - 1].n < (nsel / 200 > 4 ? nsel / 200 : 4))
		np--;
	if (np > max_groups)
		np = max_groups;
	if (nany && np > nsel / nany)
		np = nsel / nany;
	gs->nports = np;
	gs->ports = calloc(np ? np : 1, sizeof(*gs->ports));
	gs->port_groups = calloc(np ? np : 1, sizeof(*gs->port_groups));
	if (!gs->ports || !gs->port_groups)
		goto fail;
	for (i = 0; i < np; i++)
		gs->ports[i] = pc[i].port;
	qsort(gs->ports, np, sizeof(*gs->ports), u16_cmp);
	free(votes);
	free(pc);
	return 0;
fail:
	free(votes);
	free(pc);
	return -ENOMEM;
}

/*
 * Builds one group set from the rules in @sel (rule numbers, ascending):
 * with @ported, a group per chosen server port with its rules and the
 * any-port rules, and the other group with the any-port rules and those of
 * the remaining ports; without, one group. Each group gets its database.
 */
static int build_set(struct mk_detect_engine *e, struct mk_group_set *gs, const uint32_t *sel,
		     uint32_t nsel, int ported, int to_client, int pkt, uint32_t max_groups)
{
	uint32_t i, k;
	int err;

	if (ported) {
		err = pick_ports(e, gs, sel, nsel, to_client, max_groups);
		if (err)
			return err;
		for (i = 0; i < gs->nports; i++) {
			gs->port_groups[i] = mk_detect_group_new(e);
			if (!gs->port_groups[i])
				return -ENOMEM;
		}
	}
	gs->other = mk_detect_group_new(e);
	if (!gs->other)
		return -ENOMEM;
	for (i = 0; i < nsel; i++) {
		const struct mk_rule *r = e->rules[sel[i]];
		const struct mk_port_set *a = NULL, *b = NULL;
		uint64_t covered = 0;
		int any = !ported || rule_ports(r, to_client, &a, &b);

		for (k = 0; k < gs->nports; k++) {
			if (!any && !mk_port_match(a, gs->ports[k]) &&
			    !(b && mk_port_match(b, gs->ports[k])))
				continue;
			covered++;
			if (mk_rule_list_add(&gs->port_groups[k]->all, sel[i]))
				return -ENOMEM;
		}
		/* any port, or ports without a group of their own */
		if ((any || ports_count(a) + ports_count(b) > covered) &&
		    mk_rule_list_add(&gs->other->all, sel[i]))
			return -ENOMEM;
	}
	for (i = 0; i <= gs->nports; i++) {
		struct mk_group *g = i < gs->nports ? gs->port_groups[i] : gs->other;
		struct mk_content a;

		for (k = 0; k < g->all.n; k++) {
			mk_prefilter_anchor(e->rules[g->all.rules[k]], pkt, &a);
			if (a.len > g->anchor_maxlen)
				g->anchor_maxlen = a.len;
		}
	}
	/* without the prefilter every rule of a group is verified: nothing to compile */
	if (e->no_prefilter)
		return 0;
	for (i = 0; i < gs->nports; i++) {
		err = mk_prefilter_build(gs->port_groups[i], e->rules, pkt, &e->stats);
		if (err)
			return err;
	}
	return mk_prefilter_build(gs->other, e->rules, pkt, &e->stats);
}

static bool rule_in_class(const struct mk_rule *r, int pc)
{
	switch (r->proto) {
	case MK_RP_IP:
		/* ports in an ip rule: only packets that have ports */
		return (r->sp.any && r->dp.any) || pc == MK_PC_TCP || pc == MK_PC_UDP;
	case MK_RP_TCP:
	case MK_RP_TCP_PKT:
	case MK_RP_TCP_STREAM:
		return pc == MK_PC_TCP;
	case MK_RP_UDP:
		return pc == MK_PC_UDP;
	default:
		return pc == MK_PC_ICMP;
	}
}

static bool rule_in_dir(const struct mk_rule *r, int to_client)
{
	if (r->flow & MK_FLOW_F_TO_SERVER)
		return !to_client;
	if (r->flow & MK_FLOW_F_TO_CLIENT)
		return to_client;
	return true;
}

static int build_groups(struct mk_detect_engine *e, uint32_t max_groups)
{
	uint32_t *sel = malloc((e->nrules ? e->nrules : 1) * sizeof(*sel)), n, i;
	int pc, d, err = 0;

	if (!sel)
		return -ENOMEM;
	for (pc = 0; pc < MK_PC_MAX && !err; pc++) {
		for (d = 0; d < 2 && !err; d++) {
			for (i = 0, n = 0; i < e->nrules; i++) {
				const struct mk_rule *r = e->rules[i];

				if (!rule_in_class(r, pc) || !rule_in_dir(r, d))
					continue;
				/* transaction rules (DNS ones over UDP too): mk_detect_tx() only */
				if (r->flags & MK_RF_APP_TX)
					continue;
				if (pc == MK_PC_TCP && !(r->inspect_tcp & MK_INSPECT_PKT))
					continue;
				/* address-only rules: the IP-only index (build_iponly) */
				if (r->flags & MK_RF_IPONLY)
					continue;
				sel[n++] = i;
			}
			err = build_set(e, &e->pkt[pc][d], sel, n,
					pc == MK_PC_TCP || pc == MK_PC_UDP, d, 1, max_groups);
		}
	}
	for (d = 0; d < 2 && !err; d++) {
		for (i = 0, n = 0; i < e->nrules; i++) {
			const struct mk_rule *r = e->rules[i];

			/* HTTP rules with payload keywords read the windows too (mk_detect_tx()) */
			if ((r->flags & MK_RF_APP_TX) &&
			    (r->buf_mask & MK_BUF_BIT(MK_BUF_PAYLOAD))) {
				e->has_stream = 1;
				if (r->abs_extent > e->stream_head)
					e->stream_head = r->abs_extent;
			}
			if (!rule_in_class(r, MK_PC_TCP) || !rule_in_dir(r, d) ||
			    !(r->inspect_tcp & MK_INSPECT_STREAM))
				continue;
			sel[n++] = i;
			e->has_stream = 1;
			if (r->abs_extent > e->stream_head)
				e->stream_head = r->abs_extent;
		}
		err = build_set(e, &e->stream[d], sel, n, 1, d, 0, max_groups);
	}
	free(sel);
	if (e->stream_head > STREAM_HEAD_CAP)
		e->stream_head = STREAM_HEAD_CAP;
	e->win_small = 256;
	while (e->win_small < e->stream_window || e->win_small < e->stream_head)
		e->win_small *= 2;
	return err;
}

/*
 * The address-only rules, indexed by address (engine/iponly.c), each with the
 * classes and directions its protocol and flow keywords allow, as the packet
 * groups would have held it.
 */
static int build_iponly(struct mk_detect_engine *e)
{
	struct mk_iponly_rule *v = malloc((e->nrules ? e->nrules : 1) * sizeof(*v));
	uint32_t i, n = 0;
	int pc, d, err;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < e->nrules; i++) {
		const struct mk_rule *r = e->rules[i];
		uint32_t mask = 0;

		if (!(r->flags & MK_RF_IPONLY))
			continue;
		for (pc = 0; pc < MK_PC_MAX; pc++)
			for (d = 0; d < 2; d++)
				if (rule_in_class(r, pc) && rule_in_dir(r, d) &&
				    (pc != MK_PC_TCP || (r->inspect_tcp & MK_INSPECT_PKT)))
					mask |= MK_IPONLY_BIT(pc, d);
		if (mask)
			v[n++] = (struct mk_iponly_rule){ r, i, mask };
	}
	err = mk_iponly_build(v, n, &e->iponly);
	free(v);
	return err;
}

/* ---- threshold.config --------------------------------------------------------------- */

static int apply_tcfg(struct mk_detect_engine *e)
{
	uint32_t i, k;

	for (k = 0; k < e->ntcfg; k++) {
		struct mk_tcfg_entry *t = &e->tcfg[k];
		int hit = 0;

		for (i = 0; i < e->nrules; i++) {
			struct mk_rule *r = e->rules[i];

			if ((t->gid && t->gid != r->gid) || (t->sid && t->sid != r->sid))
				continue;
			hit = 1;
			if (t->kind == 0) {
				struct mk_suppress *s = calloc(1, sizeof(*s));

				if (!s)
					return -ENOMEM;
				s->track = t->track;
				/* the entry owns the addresses; the list entry borrows them */
				s->addrs = t->addrs;
				s->next = r->suppress;
				r->suppress = s;
			} else if (t->kind == 1) {
				/* threshold.config replaces the rule's own threshold */
				r->cfg_thresh = t->spec;
				r->cfg_thresh_set = 1;
			} else {
				r->rate = t->spec;
			}
		}
		if (!hit)
			mk_warn("threshold.config: gen_id %u, sig_id %u matches no loaded rule",
				t->gid, t->sid);
	}
	return 0;
}

/* ---- engine -------------------------------------------------------------------------- */

static void group_free(struct mk_group *g)
{
	mk_prefilter_free(g->pf);
	free(g->all.rules);
	free(g->nopf.rules);
	free(g);
}

static void set_free(struct mk_group_set *gs)
{
	free(gs->ports);
	free(gs->port_groups);
}

static void engine_free(struct mk_detect_engine *e)
{
	uint32_t i;
	int pc, d;

	for (i = 0; i < e->nrules; i++) {
		struct mk_suppress *s = e->rules[i]->suppress, *n;

		for (; s; s = n) {
			n = s->next;
			free(s);
		}
		mk_rule_free(e->rules[i]);
	}
	free(e->rules);
	for (i = 0; i < e->ngroups; i++)
		group_free(e->groups[i]);
	free(e->groups);
	for (i = 0; i < e->ntxpf; i++)
		free(e->txpf[i].rules);
	free(e->txpf);
	for (pc = 0; pc < MK_PC_MAX; pc++)
		for (d = 0; d < 2; d++)
			set_free(&e->pkt[pc][d]);
	for (d = 0; d < 2; d++)
		set_free(&e->stream[d]);
	for (i = 0; i < e->ntcfg; i++)
		mk_addr_set_free(&e->tcfg[i].addrs);
	free(e->tcfg);
	free(e->sids);
	mk_iponly_free(e->iponly);
	free(e->app_rules.rules);
	free(e->app_anchored);
	for (i = 0; i < e->napp_need; i++)
		free(e->app_need[i]);
	mk_parse_env_free(&e->env);
	mk_refusals_free(&e->refusals);
	free(e);
}

static bool rule_has_pcre(const struct mk_rule *r)
{
	uint32_t b, k;

	for (b = 0; b < MK_BUF_COUNT; b++)
		for (k = 0; k < r->bufs[b].n; k++)
			if (r->bufs[b].sm[k].kw->type == MK_KWT_PCRE)
				return true;
	return false;
}

/* A new engine with @cfg's settings, keeping @prev's flow variable ids. */
static int engine_new(const struct mk_detect_cfg *cfg, const struct mk_detect_engine *prev,
		      struct mk_detect_engine **out)
{
	struct mk_detect_engine *e = calloc(1, sizeof(*e));

	*out = e;
	if (!e)
		return -ENOMEM;
	atomic_init(&e->refcnt, 1);
	e->env.cfg = cfg;
	e->inline_mode = cfg->inline_mode;
	e->no_prefilter = cfg->no_prefilter;
	e->stream_window = cfg->stream_window ? cfg->stream_window : STREAM_WINDOW_DEFAULT;
	e->stream_reach = cfg->stream_reach ? cfg->stream_reach : STREAM_REACH_DEFAULT;
	if (e->stream_reach < e->stream_window)
		e->stream_reach = e->stream_window;
	e->reach_budget = cfg->stream_reach_budget ? cfg->stream_reach_budget :
						     REACH_BUDGET_DEFAULT;
	if (prev && (mk_varnames_copy(&e->env.flowbits, &prev->env.flowbits) ||
		     mk_varnames_copy(&e->env.flowints, &prev->env.flowints)))
		return -ENOMEM;
	return 0;
}

/* classification.config and reference.config, before the rules that name them. */
static int load_rule_config(struct build *b)
{
	const struct mk_detect_cfg *cfg = b->cfg;
	struct mk_detect_engine *e = b->e;
	int err;

	err = mk_load_classification(cfg->classification_file, &e->env, &e->stats.config_errors);
	if (err) {
		set_why(b, "%s: %s",
			cfg->classification_file ? cfg->classification_file : "classes",
			strerror(-err));
		return err;
	}
	if (cfg->reference_config_file) {
		err = mk_load_reference_config(cfg->reference_config_file, &e->env,
					       &e->stats.config_errors);
		if (err) {
			set_why(b, "%s: %s", cfg->reference_config_file, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The rule files, then the rules given as text; strict mode fails on any bad rule. */
static int load_rules(struct build *b, struct sid_hash *sh)
{
	const struct mk_detect_cfg *cfg = b->cfg;
	uint32_t i;
	int err;

	for (i = 0; i < cfg->nrule_files; i++) {
		err = load_file(b, sh, cfg->rule_files[i]);
		if (err)
			return err;
	}
	if (cfg->rules_text) {
		FILE *f = fmemopen((void *)cfg->rules_text, strlen(cfg->rules_text), "r");

		if (!f) {
			err = strlen(cfg->rules_text) ? -errno : 0;
		} else {
			err = load_lines(b, sh, f,
					 cfg->rules_text_name ? cfg->rules_text_name : "rules");
			fclose(f);
		}
		if (err)
			return err;
	}
	if (cfg->strict && b->e->stats.failed) {
		mk_err("--strict-rules: %u rule(s) failed to load", b->e->stats.failed);
		set_why(b, "%u rule(s) failed to load (strict)", b->e->stats.failed);
		return -EINVAL;
	}
	return 0;
}

static int load_threshold_config(struct build *b)
{
	const struct mk_detect_cfg *cfg = b->cfg;
	struct mk_detect_engine *e = b->e;
	int err;

	if (!cfg->threshold_file)
		return 0;
	err = mk_load_threshold_config(cfg->threshold_file, cfg, &e->tcfg, &e->ntcfg,
				       &e->stats.config_errors);
	if (err)
		set_why(b, "%s: %s", cfg->threshold_file, strerror(-err));
	return err;
}

/* The rules in Suricata's order (file order first, then rule_order) move into the engine. */
static void order_rules(struct build *b)
{
	struct mk_detect_engine *e = b->e;
	uint32_t i;

	for (i = 0; i < b->n; i++)
		b->rules[i]->num = i;
	if (b->n)
		qsort(b->rules, b->n, sizeof(*b->rules), rule_order);
	e->rules = b->rules;
	e->nrules = b->n;
	b->rules = NULL;
}

static void count_rule(struct mk_detect_engine *e, const struct mk_rule *r)
{
	if (r->flags & MK_RF_APP_TX) {
		e->stats.app_tx++;
		if (r->app_proto < MK_ARRAY_SIZE(e->stats.app_tx_proto))
			e->stats.app_tx_proto[r->app_proto]++;
		return;
	}
	if ((r->flags & MK_RF_PAYLOAD) && !r->fp)
		e->stats.no_fast_pattern++;
	if (!(r->flags & MK_RF_PAYLOAD))
		e->stats.no_payload++;
	if (r->flags & MK_RF_IPONLY) {
		e->stats.ip_only++;
		e->has_iponly = 1;
	}
	if ((r->flags & MK_RF_PAYLOAD) && (r->inspect_tcp & MK_INSPECT_STREAM) &&
	    rule_in_class(r, MK_PC_TCP))
		e->stats.stream++;
	if (rule_has_pcre(r))
		e->stats.pcre++;
}

/* Numbers the ordered rules, indexes them by gid:sid, counts them, runs the rule hooks. */
static int index_rules(struct mk_detect_engine *e)
{
	uint32_t i;
	int err;

	e->sids = calloc(e->nrules ? e->nrules : 1, sizeof(*e->sids));
	if (!e->sids)
		return -ENOMEM;
	for (i = 0; i < e->nrules; i++) {
		struct mk_rule *r = e->rules[i];

		r->num = i;
		e->sids[i].key = (uint64_t)r->gid << 32 | r->sid;
		e->sids[i].rule = i;
		count_rule(e, r);
		/* transaction rules: one list (their prefilter: engine/tx_prefilter.c) */
		if (r->flags & MK_RF_APP_TX) {
			r->app_idx = e->app_rules.n;
			if (mk_rule_list_add(&e->app_rules, i))
				return -ENOMEM;
		}
		err = mk_detect_rule_hooks_run(r);
		if (err)
			return err;
	}
	if (e->nrules)
		qsort(e->sids, e->nrules, sizeof(*e->sids), rule_cmp_sid);
	return 0;
}

/* threshold.config onto the rules, then prefilter anchors, groups and their databases. */
/* The transaction rules as bitmaps (struct mk_detect_engine: app_anchored, app_need). */
static int build_app_bits(struct mk_detect_engine *e)
{
	uint32_t i, k, words = e->app_rules.n / 64 + 1;

	e->app_words = words;
	e->app_anchored = calloc(words, sizeof(uint64_t));
	if (!e->app_anchored)
		return -ENOMEM;
	for (i = 0; i < e->app_rules.n; i++) {
		const struct mk_rule *r = e->rules[e->app_rules.rules[i]];

		if (r->tx_pf)
			e->app_anchored[i / 64] |= 1ull << (i % 64);
		for (k = 0; k < e->napp_need && (e->app_need_val[k] != r->app_need ||
						 e->app_need_proto[k] != r->app_proto);
		     k++)
			;
		if (k == e->napp_need) {
			if (k == MK_APP_NEED_CLASSES)
				return -E2BIG; /* the side bits have far fewer combinations */
			e->app_need[k] = calloc(words, sizeof(uint64_t));
			if (!e->app_need[k])
				return -ENOMEM;
			e->app_need_val[k] = r->app_need;
			e->app_need_proto[k] = r->app_proto;
			e->napp_need++;
		}
		e->app_need[k][i / 64] |= 1ull << (i % 64);
	}
	return 0;
}

static int build_matching(struct build *b)
{
	struct mk_detect_engine *e = b->e;
	uint32_t max_groups = b->cfg->port_groups ? b->cfg->port_groups : PORT_GROUPS_DEFAULT;
	int err;

	err = apply_tcfg(e);
	if (!err)
		err = mk_prefilter_anchors(e->rules, e->nrules);
	if (!err)
		err = build_groups(e, max_groups);
	if (!err)
		err = build_iponly(e);
	if (!err && !e->no_prefilter)
		err = mk_tx_prefilter_build(e);
	if (!err)
		err = mk_prefilter_compile(e->groups, e->ngroups, b->cfg->prefilter_cache,
					   &e->stats);
	if (!err)
		err = build_app_bits(e);
	if (err)
		set_why(b, "building the rule groups: %s", strerror(-err));
	return err;
}

int mk_detect_engine_build_why(const struct mk_detect_cfg *cfg, const struct mk_detect_engine *prev,
			       struct mk_detect_engine **out, char *why, size_t whylen)
{
	struct build b = { .cfg = cfg, .why = why, .whylen = whylen };
	struct sid_hash sh = { 0 };
	double t0 = mono_s();
	uint32_t i;
	int err;

	*out = NULL;
	if (why && whylen)
		why[0] = '\0';
	err = engine_new(cfg, prev, &b.e);
	if (!b.e)
		return err;
	if (!err)
		err = load_rule_config(&b);
	if (!err)
		err = load_rules(&b, &sh);
	if (!err)
		err = load_threshold_config(&b);
	if (!err) {
		order_rules(&b);
		err = index_rules(b.e);
	}
	if (!err)
		err = build_matching(&b);
	free(sh.keys);
	free(sh.idx);
	if (err)
		goto fail;
	mk_refusals_sort(&b.e->refusals);
	mk_detect_check_flowbits(b.e);
	b.e->stats.loaded = b.e->nrules;
	b.e->stats.load_s = mono_s() - t0;
	b.e->stats.generation = prev ? prev->stats.generation + 1 : 1;
	b.e->env.cfg = NULL; /* the caller's; not kept */
	*out = b.e;
	return 0;
fail:
	set_why(&b, "%s", strerror(-err));
	for (i = 0; i < b.n && b.rules; i++)
		mk_rule_free(b.rules[i]);
	free(b.rules);
	engine_free(b.e);
	return err;
}

int mk_detect_engine_build(const struct mk_detect_cfg *cfg, const struct mk_detect_engine *prev,
			   struct mk_detect_engine **out)
{
	return mk_detect_engine_build_why(cfg, prev, out, NULL, 0);
}

struct mk_detect_engine *mk_detect_engine_get(struct mk_detect_engine *e)
{
	atomic_fetch_add_explicit(&e->refcnt, 1, memory_order_relaxed);
	return e;
}

void mk_detect_engine_put(struct mk_detect_engine *e)
{
	if (e && atomic_fetch_sub_explicit(&e->refcnt, 1, memory_order_acq_rel) == 1)
		engine_free(e);
}

const struct mk_detect_load_stats *mk_detect_engine_stats(const struct mk_detect_engine *e)
{
	return &e->stats;
}

uint32_t mk_detect_engine_nrules(const struct mk_detect_engine *e)
{
	return e->nrules;
}

const struct mk_rule *mk_detect_engine_rule(const struct mk_detect_engine *e, uint32_t gid,
					    uint32_t sid)
{
	uint64_t key = (uint64_t)gid << 32 | sid;
	uint32_t lo = 0, hi = e->nrules;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (e->sids[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->nrules && e->sids[lo].key == key ? e->rules[e->sids[lo].rule] : NULL;
}

void mk_detect_engine_summary(const struct mk_detect_engine *e, char *buf, size_t size)
{
	const struct mk_detect_load_stats *s = &e->stats;
	size_t n;
	int i, first = 1;

	n = (size_t)snprintf(buf, size, "%u rules loaded from %u file(s), %u failed", s->loaded,
			     s->files, s->failed);
	for (i = 0; i < MK_DETECT_FAIL_MAX && n < size; i++) {
		if (!s->fail[i])
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s %u", first ? " (" : ", ",
				      mk_detect_fail_names[i], s->fail[i]);
		first = 0;
	}
	if (!first && n < size)
		n += (size_t)snprintf(buf + n, size - n, ")");
	if (n < size)
		n += (size_t)snprintf(
			buf + n, size - n,
			"; %u without fast pattern, %u header-only (%u address-only), "
			"%u stream, %u pcre; %u prefilter databases",
			s->no_fast_pattern, s->no_payload, s->ip_only, s->stream, s->pcre,
			s->prefilter_dbs);
	if (s->prefilter_cached && n < size)
		n += (size_t)snprintf(buf + n, size - n, " (%u from the cache)",
				      s->prefilter_cached);
	if (s->app_tx && n < size) {
		n += (size_t)snprintf(buf + n, size - n, "; %u transaction rules", s->app_tx);
		first = 1;
		for (i = 0; i < (int)MK_ARRAY_SIZE(s->app_tx_proto) && n < size; i++) {
			if (!s->app_tx_proto[i])
				continue;
			n += (size_t)snprintf(buf + n, size - n, "%s%s %u", first ? " (" : ", ",
					      mk_app_proto_name((uint8_t)i), s->app_tx_proto[i]);
			first = 0;
		}
		if (!first && n < size)
			n += (size_t)snprintf(buf + n, size - n, ")");
	}
	if (n < size)
		snprintf(buf + n, size - n, ", %u patterns; %.3f s; generation %llu", s->patterns,
			 s->load_s, (unsigned long long)s->generation);
}
