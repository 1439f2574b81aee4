// SPDX-License-Identifier: GPL-2.0-only
/*
 * The prefilter: each rule group's literal patterns in one Hyperscan
 * database (block mode, one report per pattern and scan). Every positive
 * content of a rule goes in, not only its fast pattern: a rule is verified
 * with its full option chain only when the scan saw all of them (up to
 * eight, and none shorter than MK_PF_MIN_LEN besides the fast pattern;
 * the rest are left to verification), since each must be somewhere
 * in the buffer for the rule to match. A rule whose fast pattern is common
 * but whose other contents are rare thus costs a table update, not a
 * search. Identical patterns of different rules are one Hyperscan pattern;
 * each maps to (rule, content bit) entries.
 *
 * Without Hyperscan (built without it, or a CPU without SSSE3) there is no
 * prefilter: every rule of a group is verified on every packet. Correct,
 * much slower; the load summary counts those rules as without fast pattern.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef MK_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif
#include "detect_int.h"
#include "log.h"

struct pf_pat {
	const uint8_t *bytes;
	uint32_t len;
	uint8_t nocase;
	uint32_t hash;
	uint32_t nrules, cap;
	uint32_t *rules;
};

struct mk_pf_db {
#ifdef MK_HAVE_HYPERSCAN
	hs_database_t *db;
#endif
	uint32_t npat;
	uint32_t *off;	 /* entries of pattern p: rules[off[p] .. off[p + 1]) */
	uint32_t *rules; /* rule number << 3 | content bit */
	uint32_t maxlen;
};

int mk_prefilter_available(void)
{
#ifdef MK_HAVE_HYPERSCAN
	static int ok = -1;

	if (ok < 0)
		ok = hs_valid_platform() == HS_SUCCESS;
	return ok;
#else
	return 0;
#endif
}

static uint32_t pat_hash(const uint8_t *p, uint32_t n, int nocase)
{
	uint32_t h = 2166136261u ^ (uint32_t)nocase, i;

	for (i = 0; i < n; i++)
		h = (h ^ (nocase ? (uint8_t)tolower(p[i]) : p[i])) * 16777619u;
	return h;
}

static int pat_eq(const struct pf_pat *a, const uint8_t *p, uint32_t n, int nocase)
{
	uint32_t i;

	if (a->len != n || a->nocase != nocase)
		return 0;
	if (!nocase)
		return !memcmp(a->bytes, p, n);
	for (i = 0; i < n; i++)
		if (tolower(a->bytes[i]) != tolower(p[i]))
			return 0;
	return 1;
}

void mk_prefilter_free(struct mk_pf_db *pf)
{
	if (!pf)
		return;
#ifdef MK_HAVE_HYPERSCAN
	hs_free_database(pf->db);
#endif
	free(pf->off);
	free(pf->rules);
	free(pf);
}

/* The bytes of a rule's fast pattern (chopped when asked). */
static void fp_bytes(const struct mk_content *c, const uint8_t **p, uint32_t *n)
{
	if (c->flags & MK_CF_FP_CHOP) {
		*p = c->pat + c->fp_off;
		*n = c->fp_len;
	} else {
		*p = c->pat;
		*n = c->len;
	}
}

static int list_add(struct mk_rule_list *l, uint32_t v)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		uint32_t *n = realloc(l->rules, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->rules = n;
		l->cap = cap;
	}
	l->rules[l->n++] = v;
	return 0;
}

#ifdef MK_HAVE_HYPERSCAN
static int compile_hs(struct mk_pf_db *pf, struct pf_pat *pats)
{
	const char **expr = calloc(pf->npat, sizeof(*expr));
	unsigned int *flags = calloc(pf->npat, sizeof(*flags)),
		     *ids = calloc(pf->npat, sizeof(*ids));
	size_t *lens = calloc(pf->npat, sizeof(*lens));
	hs_compile_error_t *cerr = NULL;
	hs_platform_info_t plat;
	uint32_t i;
	int err = 0;

	if (!expr || !flags || !ids || !lens) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pf->npat; i++) {
		expr[i] = (const char *)pats[i].bytes;
		lens[i] = pats[i].len;
		ids[i] = i;
		flags[i] = HS_FLAG_SINGLEMATCH | (pats[i].nocase ? HS_FLAG_CASELESS : 0);
	}
	/* tuned for this CPU: the database is built where it runs */
	if (hs_populate_platform(&plat) != HS_SUCCESS)
		memset(&plat, 0, sizeof(plat));
	if (hs_compile_lit_multi(expr, flags, ids, lens, pf->npat, HS_MODE_BLOCK, &plat, &pf->db,
				 &cerr) != HS_SUCCESS) {
		mk_err("prefilter: Hyperscan: %s", cerr ? cerr->message : "compile failed");
		hs_free_compile_error(cerr);
		err = -EINVAL;
	}
out:
	free(expr);
	free(flags);
	free(ids);
	free(lens);
	return err;
}
#endif

int mk_prefilter_build(struct mk_group *g, struct mk_rule *const *rules, int stream,
		       struct mk_detect_load_stats *st)
{
	struct pf_pat *pats = NULL;
	uint32_t *slots = NULL, nslots, npat = 0, cap = 0, i, k, total = 0;
	struct mk_pf_db *pf = NULL;
	int err = -ENOMEM;

	(void)stream;
	g->pf = NULL;
	g->nopf.n = 0;
	nslots = 16;
	while (nslots < g->all.n * 2)
		nslots *= 2;
	slots = calloc(nslots, sizeof(*slots)); /* pattern index + 1 */
	if (!slots)
		goto out;
	for (i = 0; i < g->all.n; i++) {
		const struct mk_rule *r = rules[g->all.rules[i]];
		uint32_t k, bit = 0;

		if (!r->fp || !mk_prefilter_available()) {
			if (list_add(&g->nopf, g->all.rules[i]))
				goto out;
			continue;
		}
		for (k = 0; k < r->npmatch && bit < MK_PF_CONTENTS_MAX; k++) {
			const struct mk_content *c = r->pmatch[k].ctx;
			const uint8_t *p;
			uint32_t n, h, sl;
			int nocase;

			if (r->pmatch[k].kw->type != MK_KWT_CONTENT || (c->flags & MK_CF_NEGATED))
				continue;
			/* short contents match everywhere: checking them costs more than it saves
			 */
			if (c != r->fp && c->len < MK_PF_MIN_LEN)
				continue;
			if (c == r->fp)
				fp_bytes(c, &p, &n);
			else {
				p = c->pat;
				n = c->len;
			}
			nocase = !!(c->flags & MK_CF_NOCASE);
			h = pat_hash(p, n, nocase);
			for (sl = h & (nslots - 1); slots[sl]; sl = (sl + 1) & (nslots - 1))
				if (pats[slots[sl] - 1].hash == h &&
				    pat_eq(&pats[slots[sl] - 1], p, n, nocase))
					break;
			if (!slots[sl]) {
				if (npat == cap) {
					uint32_t cc = cap ? cap * 2 : 64;
					struct pf_pat *np = realloc(pats, cc * sizeof(*np));

					if (!np)
						goto out;
					pats = np;
					cap = cc;
				}
				if (npat * 2 >= nslots) {
					/* rehash: the slot table is sized for one pattern per rule
					 */
					uint32_t ns = nslots * 2, q, z;
					uint32_t *nsl = calloc(ns, sizeof(*nsl));

					if (!nsl)
						goto out;
					for (q = 0; q < npat; q++) {
						for (z = pats[q].hash & (ns - 1); nsl[z];
						     z = (z + 1) & (ns - 1))
							;
						nsl[z] = q + 1;
					}
					free(slots);
					slots = nsl;
					nslots = ns;
					for (sl = h & (nslots - 1); slots[sl];
					     sl = (sl + 1) & (nslots - 1))
						;
				}
				memset(&pats[npat], 0, sizeof(pats[npat]));
				pats[npat].bytes = p;
				pats[npat].len = n;
				pats[npat].nocase = (uint8_t)nocase;
				pats[npat].hash = h;
				slots[sl] = ++npat;
			}
			{
				struct pf_pat *pp = &pats[slots[sl] - 1];

				if (pp->nrules == pp->cap) {
					uint32_t cc = pp->cap ? pp->cap * 2 : 2;
					uint32_t *nr = realloc(pp->rules, cc * sizeof(*nr));

					if (!nr)
						goto out;
					pp->rules = nr;
					pp->cap = cc;
				}
				pp->rules[pp->nrules++] = g->all.rules[i] << 3 | bit;
				total++;
			}
			bit++;
		}
	}
	if (!npat) {
		err = 0;
		goto out;
	}
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		goto out;
	pf->npat = npat;
	pf->off = malloc((npat + 1) * sizeof(*pf->off));
	pf->rules = malloc((total ? total : 1) * sizeof(*pf->rules));
	if (!pf->off || !pf->rules)
		goto out;
	for (i = 0, k = 0; i < npat; i++) {
		pf->off[i] = k;
		memcpy(pf->rules + k, pats[i].rules, pats[i].nrules * sizeof(*pf->rules));
		k += pats[i].nrules;
		if (pats[i].len > pf->maxlen)
			pf->maxlen = pats[i].len;
	}
	pf->off[npat] = k;
#ifdef MK_HAVE_HYPERSCAN
	err = compile_hs(pf, pats);
	if (err)
		goto out;
	{
		size_t sz = 0;

		hs_database_size(pf->db, &sz);
		st->prefilter_bytes += sz;
	}
#else
	err = -ENOTSUP;
	goto out;
#endif
	st->prefilter_dbs++;
	st->patterns += npat;
	g->pf = pf;
	pf = NULL;
	err = 0;
out:
	for (i = 0; i < npat; i++)
		free(pats[i].rules);
	free(pats);
	free(slots);
	mk_prefilter_free(pf);
	return err;
}

int mk_prefilter_scratch(const struct mk_pf_db *pf, void **scratch)
{
#ifdef MK_HAVE_HYPERSCAN
	if (!pf || !pf->db)
		return 0;
	return hs_alloc_scratch(pf->db, (hs_scratch_t **)scratch) == HS_SUCCESS ? 0 : -ENOMEM;
#else
	(void)pf;
	(void)scratch;
	return 0;
#endif
}

void mk_prefilter_scratch_free(void *scratch)
{
#ifdef MK_HAVE_HYPERSCAN
	hs_free_scratch(scratch);
#else
	(void)scratch;
#endif
}

#ifdef MK_HAVE_HYPERSCAN
struct scan_ctx {
	mk_pf_hit_fn hit;
	void *ctx;
};

static int on_match(unsigned int id, unsigned long long from, unsigned long long to,
		    unsigned int flags, void *arg)
{
	struct scan_ctx *sc = arg;

	(void)from;
	(void)to;
	(void)flags;
	sc->hit(sc->ctx, id);
	return 0;
}
#endif

int mk_prefilter_scan(const struct mk_pf_db *pf, void *scratch, const uint8_t *buf,
		      uint32_t len, mk_pf_hit_fn hit, void *ctx)
{
#ifdef MK_HAVE_HYPERSCAN
	struct scan_ctx sc = {hit, ctx};

	if (!pf || !len)
		return 0;
	return hs_scan(pf->db, (const char *)buf, len, 0, scratch, on_match, &sc) == HS_SUCCESS
		   ? 0
		   : -EIO;
#else
	(void)pf;
	(void)scratch;
	(void)buf;
	(void)len;
	(void)hit;
	(void)ctx;
	return 0;
#endif
}

const uint32_t *mk_prefilter_rules(const struct mk_pf_db *pf, uint32_t pattern, uint32_t *n)
{
	*n = pf->off[pattern + 1] - pf->off[pattern];
	return pf->rules + pf->off[pattern];
}

uint32_t mk_prefilter_maxlen(const struct mk_pf_db *pf)
{
	return pf ? pf->maxlen : 0;
}
