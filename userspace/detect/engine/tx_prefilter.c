// SPDX-License-Identifier: GPL-2.0-only
/*
 * The transaction rules' prefilter: each transaction rule is anchored by one
 * positive content of its protocol's buffers (its fast_pattern, else its longest
 * such content) in the database of that buffer, read in the rule's
 * direction through the buffer's transforms. mk_detect_tx() scans each
 * database's buffer of the transaction once (the derived bytes when the
 * buffer has transforms, as the rule's keywords read them) and verifies a
 * rule with an anchor only when its anchor was found: every positive
 * content must be in its buffer for the rule to match. Rules without such
 * a content (only negated contents, pcre, bsize, payload keywords) are
 * verified on every transaction, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

/* The side of the transaction buffer @id needs when read in direction @to_client. */
static uint8_t buf_side(uint32_t id, int to_client)
{
	uint8_t side = mk_buf_sides[id] & MK_BUF_SIDE_MASK;

	if (!(mk_buf_sides[id] & MK_BUF_SIDE_FLIP))
		return side;
	if (side == MK_BUF_SIDE_REQ)
		return to_client ? MK_BUF_SIDE_RESP : MK_BUF_SIDE_REQ;
	if (side == MK_BUF_SIDE_RESP_BODY)
		return to_client ? MK_BUF_SIDE_RESP_BODY : MK_BUF_SIDE_REQ_BODY;
	return side;
}

/* The rule's anchor among its HTTP buffers' contents: the fast pattern, else the longest. */
static const struct mk_content *tx_anchor(const struct mk_rule *r, uint32_t *buf)
{
	const struct mk_content *best = NULL;
	uint32_t id, i;

	for (id = 1; id < MK_BUF_COUNT; id++) {
		const struct mk_sm_list *l = &r->bufs[id];

		for (i = 0; i < l->n; i++) {
			const struct mk_content *c = l->sm[i].ctx;

			if (l->sm[i].kw->type != MK_KWT_CONTENT || (c->flags & MK_CF_NEGATED))
				continue;
			if (c->flags & MK_CF_FAST_PATTERN) {
				*buf = id;
				return c;
			}
			if (!best || c->len > best->len) {
				best = c;
				*buf = id;
			}
		}
	}
	return best;
}

static int same_chain(const struct mk_xform_chain *a, const struct mk_xform_chain *b)
{
	if (!a || !b)
		return a == b;
	return a->n == b->n && !memcmp(a->x, b->x, a->n * sizeof(a->x[0]));
}

int mk_tx_prefilter_build(struct mk_detect_engine *e)
{
	uint32_t i, k, id = 0;
	int err;

	if (!mk_prefilter_available())
		return 0;
	for (i = 0; i < e->app_rules.n; i++) {
		struct mk_rule *r = e->rules[e->app_rules.rules[i]];
		const struct mk_content *c = tx_anchor(r, &id);
		const struct mk_xform_chain *xf;
		struct mk_tx_pf *s = NULL;

		r->tx_pf = 0;
		if (!c)
			continue;
		xf = r->xf ? r->xf[id] : NULL;
		for (k = 0; k < e->ntxpf; k++)
			if (e->txpf[k].id == id && e->txpf[k].to_client == r->app_to_client &&
			    same_chain(e->txpf[k].xf, xf))
				break;
		if (k == e->ntxpf) {
			s = realloc(e->txpf, (e->ntxpf + 1) * sizeof(*s));
			if (!s)
				return -ENOMEM;
			e->txpf = s;
			s = &e->txpf[e->ntxpf];
			memset(s, 0, sizeof(*s));
			s->id = (uint8_t)id;
			s->to_client = r->app_to_client;
			s->side = buf_side(id, r->app_to_client);
			s->xf = xf;
			s->g = mk_detect_group_new(e);
			if (!s->g)
				return -ENOMEM;
			e->ntxpf++;
		}
		/* the prefilter indexes a rule by anchor[0] (its fast pattern's chop too) */
		r->anchor[0] = c;
		if (c->flags & MK_CF_FAST_PATTERN)
			r->fp = (struct mk_content *)c;
		if (mk_rule_list_add(&e->txpf[k].g->all, e->app_rules.rules[i]))
			return -ENOMEM;
		r->tx_pf = k + 1;
	}
	for (k = 0; k < e->ntxpf; k++) {
		struct mk_group *g = e->txpf[k].g;

		/* the slot's rules as bits, for the scan's "is it wanted" test */
		e->txpf[k].rules = calloc(e->app_rules.n / 64 + 1, sizeof(uint64_t));
		if (!e->txpf[k].rules)
			return -ENOMEM;
		for (i = 0; i < g->all.n; i++) {
			uint32_t a = e->rules[g->all.rules[i]]->app_idx;

			e->txpf[k].rules[a / 64] |= 1ull << (a % 64);
		}
		err = mk_prefilter_build(g, e->rules, 0, &e->stats);
		if (err)
			return err;
		/* rules the database could not take are verified every time */
		for (i = 0; i < g->nopf.n; i++)
			e->rules[g->nopf.rules[i]]->tx_pf = 0;
		if (!g->pf)
			for (i = 0; i < g->all.n; i++)
				e->rules[g->all.rules[i]]->tx_pf = 0;
	}
	return 0;
}
