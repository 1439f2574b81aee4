// SPDX-License-Identifier: GPL-2.0-only
/*
 * The prefilter: each rule group's literal patterns in one Hyperscan
 * database (block mode, one report per pattern and scan).
 *
 * A rule is in its groups' databases by one content only, its anchor:
 * among its positive contents (the fast pattern and up to seven more, none
 * shorter than MK_PF_MIN_LEN besides the fast pattern), the one the fewest
 * rules of the whole set use, the longest of those, the fast pattern on a
 * tie. A string many rules look for (`User-Agent:`, `GET `, a common word)
 * is one traffic holds too, so it makes a poor filter; a rule's rarest part
 * makes a good one, and each content the database holds costs every scan
 * (Hyperscan confirms each occurrence), whether it selects a rule or not.
 * Every content must be in the buffer for the rule to match, so a scan that
 * does not report the anchor rules the rule out, whichever content
 * `fast_pattern` named. Rules sharing an anchor share its pattern.
 *
 * Packet groups prefer an anchor with depth (or startswith): when every
 * rule's anchor lies within the first N bytes of the payload (its depth,
 * or the rule's dsize upper bound: a longer packet fails the rule anyway),
 * a packet's scan stops there (scan_bound).
 *
 * Without Hyperscan (built without it, or a CPU without SSSE3) there is no
 * prefilter: every rule of a group is verified on every packet. Correct,
 * much slower; the load summary counts those rules as without fast pattern.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef MK_HAVE_HYPERSCAN
#include <hs/hs.h>
#include <nettle/sha2.h>
#endif
#include "detect_int.h"
#include "log.h"

struct pf_pat {
	const uint8_t *bytes;
	uint32_t len;
	uint8_t nocase;
	uint32_t hash;
	uint32_t refs; /* set: rules using it; group: rules it anchors */
	uint32_t last; /* the last rule that counted (a rule counts once) */
};

/* Distinct patterns, by bytes and case: open addressing over pattern index + 1. */
struct pf_table {
	struct pf_pat *pats;
	uint32_t npat, cap;
	uint32_t *slots;
	uint32_t nslots;
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

static void table_free(struct pf_table *t)
{
	free(t->pats);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* The index of a pattern, added when new; -ENOMEM. */
static int64_t table_id(struct pf_table *t, const uint8_t *p, uint32_t n, int nocase)
{
	uint32_t h = pat_hash(p, n, nocase), sl, mask, q, z;

	if ((t->npat + 1) * 2 > t->nslots) {
		uint32_t ns = t->nslots ? t->nslots * 2 : 256;
		uint32_t *nsl = calloc(ns, sizeof(*nsl));

		if (!nsl)
			return -ENOMEM;
		for (q = 0; q < t->npat; q++) {
			for (z = t->pats[q].hash & (ns - 1); nsl[z]; z = (z + 1) & (ns - 1))
				;
			nsl[z] = q + 1;
		}
		free(t->slots);
		t->slots = nsl;
		t->nslots = ns;
	}
	mask = t->nslots - 1;
	for (sl = h & mask; t->slots[sl]; sl = (sl + 1) & mask)
		if (t->pats[t->slots[sl] - 1].hash == h &&
		    pat_eq(&t->pats[t->slots[sl] - 1], p, n, nocase))
			return t->slots[sl] - 1;
	if (t->npat == t->cap) {
		uint32_t cc = t->cap ? t->cap * 2 : 64;
		struct pf_pat *np = realloc(t->pats, cc * sizeof(*np));

		if (!np)
			return -ENOMEM;
		t->pats = np;
		t->cap = cc;
	}
	t->pats[t->npat] = (struct pf_pat){
		.bytes = p, .len = n, .nocase = (uint8_t)nocase, .hash = h, .last = UINT32_MAX
	};
	t->slots[sl] = t->npat + 1;
	return t->npat++;
}

/* A group's patterns between mk_prefilter_build() and mk_prefilter_compile(). */
struct mk_pf_pending {
	const char **expr; /* the rules' content bytes: the engine keeps them */
	unsigned int *flags, *ids;
	size_t *lens;
};

static void pending_free(struct mk_pf_pending *pd)
{
	if (!pd)
		return;
	free(pd->expr);
	free(pd->flags);
	free(pd->ids);
	free(pd->lens);
	free(pd);
}

void mk_prefilter_free(struct mk_pf_db *pf)
{
	if (!pf)
		return;
#ifdef MK_HAVE_HYPERSCAN
	hs_free_database(pf->db);
#endif
	pending_free(pf->pending);
	free(pf->off);
	free(pf->rules);
	free(pf);
}

/* The bytes of a content as the prefilter looks for them (a fast pattern's chop). */
static void pat_bytes(const struct mk_rule *r, const struct mk_content *c, const uint8_t **p,
		      uint32_t *n)
{
	if (c == r->fp && (c->flags & MK_CF_FP_CHOP)) {
		*p = c->pat + c->fp_off;
		*n = c->fp_len;
	} else {
		*p = c->pat;
		*n = c->len;
	}
}

/* A positive content the prefilter may take, short ones only as the fast pattern. */
static bool indexable(const struct mk_rule *r, const struct mk_content *c)
{
	return !(c->flags & MK_CF_NEGATED) && (c == r->fp || c->len >= MK_PF_MIN_LEN);
}

/*
 * Where a content must lie in a packet's payload: the end of its
 * offset/depth window, or 0 when it may be anywhere (relative, a variable).
 */
static uint32_t content_bound(const struct mk_content *c)
{
	if (c->flags & (MK_CF_DISTANCE | MK_CF_WITHIN | MK_CF_DEPTH_VAR | MK_CF_OFFSET_VAR))
		return 0;
	if (c->flags & MK_CF_STARTSWITH)
		return c->len;
	if (c->flags & MK_CF_DEPTH)
		return (uint32_t)c->offset + (uint32_t)c->depth;
	return 0;
}

/*
 * The most payload bytes a packet may have for @r's dsize to hold (a
 * packet rule), 0 when dsize gives no such bound: an anchor ending past it
 * is in a packet the rule rejects anyway, so a scan may stop there.
 */
static uint32_t dsize_max(const struct mk_rule *r)
{
	const struct mk_uint *u;
	uint64_t max;
	uint32_t i;

	for (i = 0; i < r->nmatch; i++) {
		if (r->match[i].kw != &mk_kw_dsize)
			continue;
		u = r->match[i].ctx;
		switch (u->mode) {
		case MK_U_EQ:
		case MK_U_LE:
			max = u->a;
			break;
		case MK_U_LT:
			max = u->a ? u->a - 1 : 0;
			break;
		case MK_U_RANGE: /* exclusive */
			max = u->b ? u->b - 1 : 0;
			break;
		default:
			return 0;
		}
		/* dsize:0 (or <1): no anchor can match; one byte's scan says so */
		return max ? (uint32_t)(max > 65535 ? 65535 : max) : 1;
	}
	return 0;
}

/* The bound of @r's anchor @c in a packet: its depth, or the rule's dsize; 0: none. */
static uint32_t anchor_bound(const struct mk_rule *r, const struct mk_content *c)
{
	uint32_t b = content_bound(c), d = dsize_max(r);

	return d && (!b || d < b) ? d : b;
}

/* Calls @fn for each content of @r the prefilter may take: the fast pattern first, 8 at most. */
static int each_indexable(const struct mk_rule *r,
			  int (*fn)(void *ctx, const struct mk_rule *r, const struct mk_content *c),
			  void *ctx)
{
	const struct mk_sm_list *pl = &r->bufs[MK_BUF_PAYLOAD];
	uint32_t k, n = 1;
	int err;

	if (!r->fp)
		return 0;
	err = fn(ctx, r, r->fp);
	/* the payload buffer's contents: the one buffer the prefilter indexes */
	for (k = 0; !err && k < pl->n && n < MK_PF_CONTENTS_MAX; k++) {
		const struct mk_content *c = pl->sm[k].ctx;

		if (pl->sm[k].kw->type != MK_KWT_CONTENT || c == r->fp || !indexable(r, c))
			continue;
		err = fn(ctx, r, c);
		n++;
	}
	return err;
}

struct count_ctx {
	struct pf_table *t;
	uint32_t rule;
};

static int count_one(void *arg, const struct mk_rule *r, const struct mk_content *c)
{
	struct count_ctx *cc = arg;
	const uint8_t *p;
	uint32_t n;
	int64_t id;

	pat_bytes(r, c, &p, &n);
	id = table_id(cc->t, p, n, !!(c->flags & MK_CF_NOCASE));
	if (id < 0)
		return (int)id;
	if (cc->t->pats[id].last != cc->rule) {
		cc->t->pats[id].last = cc->rule;
		cc->t->pats[id].refs++;
	}
	return 0;
}

struct pick_ctx {
	struct pf_table *t;
	int pkt;
	const struct mk_content *best;
	uint32_t best_refs, best_len, best_bound;
};

static int pick_one(void *arg, const struct mk_rule *r, const struct mk_content *c)
{
	struct pick_ctx *pc = arg;
	const uint8_t *p;
	uint32_t n, refs, bound = content_bound(c);
	int64_t id;

	pat_bytes(r, c, &p, &n);
	id = table_id(pc->t, p, n, !!(c->flags & MK_CF_NOCASE));
	if (id < 0)
		return (int)id;
	refs = pc->t->pats[id].refs;
	/* the fast pattern comes first: a later content must be strictly better */
	if (pc->best) {
		if (pc->pkt && !bound != !pc->best_bound) {
			if (!bound)
				return 0;
		} else if (refs != pc->best_refs) {
			if (refs > pc->best_refs)
				return 0;
		} else if (n <= pc->best_len) {
			return 0;
		}
	}
	pc->best = c;
	pc->best_refs = refs;
	pc->best_len = n;
	pc->best_bound = bound;
	return 0;
}

int mk_prefilter_anchors(struct mk_rule *const *rules, uint32_t nrules)
{
	struct pf_table t = { 0 };
	uint32_t i;
	int err = 0;

	for (i = 0; i < nrules && !err; i++) {
		struct count_ctx cc = { &t, i };

		err = each_indexable(rules[i], count_one, &cc);
	}
	for (i = 0; i < nrules && !err; i++) {
		struct pick_ctx pc = { .t = &t, .pkt = 0 };

		err = each_indexable(rules[i], pick_one, &pc);
		rules[i]->anchor[0] = pc.best;
		pc = (struct pick_ctx){ .t = &t, .pkt = 1 };
		if (!err)
			err = each_indexable(rules[i], pick_one, &pc);
		rules[i]->anchor[1] = pc.best;
	}
	table_free(&t);
	return err;
}

void mk_prefilter_anchor(const struct mk_rule *r, int pkt, struct mk_content *out)
{
	const struct mk_content *c = r->anchor[!!pkt];

	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	out->flags = c->flags & MK_CF_NOCASE;
	out->pat = c->pat;
	out->low = c->low;
	out->len = c->len;
	if (c == r->fp && (c->flags & MK_CF_FP_CHOP)) {
		out->pat += c->fp_off;
		if (out->low)
			out->low += c->fp_off;
		out->len = c->fp_len;
	}
}

/* Keeps the group's patterns for mk_prefilter_compile(). */
static int pending_new(struct mk_pf_db *pf, const struct pf_pat *pats)
{
	struct mk_pf_pending *pd = calloc(1, sizeof(*pd));
	uint32_t i;

	if (!pd)
		return -ENOMEM;
	pd->expr = calloc(pf->npat, sizeof(*pd->expr));
	pd->flags = calloc(pf->npat, sizeof(*pd->flags));
	pd->ids = calloc(pf->npat, sizeof(*pd->ids));
	pd->lens = calloc(pf->npat, sizeof(*pd->lens));
	if (!pd->expr || !pd->flags || !pd->ids || !pd->lens) {
		pending_free(pd);
		return -ENOMEM;
	}
	for (i = 0; i < pf->npat; i++) {
		pd->expr[i] = (const char *)pats[i].bytes;
		pd->lens[i] = pats[i].len;
		pd->ids[i] = i;
#ifdef MK_HAVE_HYPERSCAN
		pd->flags[i] = HS_FLAG_SINGLEMATCH | (pats[i].nocase ? HS_FLAG_CASELESS : 0);
#endif
	}
	pf->pending = pd;
	return 0;
}

int mk_prefilter_build(struct mk_group *g, struct mk_rule *const *rules, int pkt,
		       struct mk_detect_load_stats *st)
{
	struct pf_table t = { 0 };
	uint32_t *ids = NULL, i, k, bound = 0;
	struct mk_pf_db *pf = NULL;
	int unbounded = 0, err = -ENOMEM;

	g->pf = NULL;
	g->nopf.n = 0;
	g->scan_bound = 0;
	ids = calloc(g->all.n + 1, sizeof(*ids)); /* rule i's pattern + 1; 0: not indexed */
	if (!ids)
		goto out;
	for (i = 0; i < g->all.n; i++) {
		const struct mk_rule *r = rules[g->all.rules[i]];
		const struct mk_content *c = r->anchor[!!pkt];
		const uint8_t *p;
		uint32_t n;
		int64_t id;

		if (!c || !mk_prefilter_available()) {
			if (mk_rule_list_add(&g->nopf, g->all.rules[i]))
				goto out;
			continue;
		}
		pat_bytes(r, c, &p, &n);
		id = table_id(&t, p, n, !!(c->flags & MK_CF_NOCASE));
		if (id < 0)
			goto out;
		t.pats[id].refs++;
		ids[i] = (uint32_t)id + 1;
		if (!anchor_bound(r, c))
			unbounded = 1;
		else if (anchor_bound(r, c) > bound)
			bound = anchor_bound(r, c);
	}
	if (!t.npat) {
		err = 0;
		goto out;
	}
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		goto out;
	pf->npat = t.npat;
	pf->off = calloc(t.npat + 1, sizeof(*pf->off));
	pf->rules = calloc(g->all.n, sizeof(*pf->rules));
	if (!pf->off || !pf->rules)
		goto out;
	for (i = 0, k = 0; i < t.npat; i++) {
		pf->off[i] = k;
		k += t.pats[i].refs;
		t.pats[i].refs = 0; /* now the fill position */
		if (t.pats[i].len > pf->maxlen)
			pf->maxlen = t.pats[i].len;
	}
	pf->off[t.npat] = k;
	/* `all` is ascending, so each pattern's rules are too */
	for (i = 0; i < g->all.n; i++)
		if (ids[i]) {
			struct pf_pat *pp = &t.pats[ids[i] - 1];

			pf->rules[pf->off[ids[i] - 1] + pp->refs++] = g->all.rules[i];
		}
	if (pkt && !unbounded)
		g->scan_bound = bound;
#ifndef MK_HAVE_HYPERSCAN
	err = -ENOTSUP;
	goto out;
#endif
	err = pending_new(pf, t.pats);
	if (err)
		goto out;
	st->prefilter_dbs++;
	st->patterns += t.npat;
	g->pf = pf;
	pf = NULL;
	err = 0;
out:
	table_free(&t);
	free(ids);
	mk_prefilter_free(pf);
	return err;
}

/* ---- compiling: several databases at a time, through the cache ---------------------------- */

#ifdef MK_HAVE_HYPERSCAN
#define PF_CACHE_TAG "meerkat prefilter cache 1"
#define PF_THREADS_MAX 8

struct compile_job {
	struct mk_group *const *groups;
	uint32_t n;
	_Atomic uint32_t next;
	const char *cache_dir; /* NULL: none */
	hs_platform_info_t plat;
	_Atomic int err;
	_Atomic uint32_t cached;
};

/*
 * The cache file of a database: SHA-256 of everything the compiled bytes
 * depend on (Hyperscan's version, the CPU it is tuned for, every pattern
 * with its flags and id, in order), so a stale file is never used.
 */
static void cache_path(const struct compile_job *j, const struct mk_pf_pending *pd, uint32_t npat,
		       char *out, size_t size)
{
	struct sha256_ctx c;
	uint8_t d[SHA256_DIGEST_SIZE];
	uint32_t i;
	int k, n;

	sha256_init(&c);
	sha256_update(&c, sizeof(PF_CACHE_TAG), (const uint8_t *)PF_CACHE_TAG);
	sha256_update(&c, strlen(hs_version()), (const uint8_t *)hs_version());
	sha256_update(&c, sizeof(j->plat), (const uint8_t *)&j->plat);
	sha256_update(&c, sizeof(npat), (const uint8_t *)&npat);
	for (i = 0; i < npat; i++) {
		uint64_t len = pd->lens[i];

		sha256_update(&c, sizeof(pd->flags[i]), (const uint8_t *)&pd->flags[i]);
		sha256_update(&c, sizeof(pd->ids[i]), (const uint8_t *)&pd->ids[i]);
		sha256_update(&c, sizeof(len), (const uint8_t *)&len);
		sha256_update(&c, pd->lens[i], (const uint8_t *)pd->expr[i]);
	}
	sha256_digest(&c, sizeof(d), d);
	n = snprintf(out, size, "%s/", j->cache_dir);
	for (k = 0; k < 16 && n > 0 && (size_t)n + 3 < size; k++)
		n += snprintf(out + n, size - (size_t)n, "%02x", d[k]);
	if (n > 0 && (size_t)n + 4 < size)
		snprintf(out + n, size - (size_t)n, ".hs");
}

/* The database in @path, or NULL (absent, unreadable, or not a database). */
static hs_database_t *cache_read(const char *path)
{
	hs_database_t *db = NULL;
	struct stat sb;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || sb.st_size <= 0 || sb.st_size > (64 << 20)) {
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)sb.st_size);
	if (buf && read(fd, buf, (size_t)sb.st_size) == sb.st_size &&
	    hs_deserialize_database(buf, (size_t)sb.st_size, &db) != HS_SUCCESS)
		db = NULL;
	free(buf);
	close(fd);
	return db;
}

/* Writes @db to @path through a temporary file and a rename: readers see all or nothing. */
static void cache_write(const char *path, const hs_database_t *db)
{
	char tmp[PATH_MAX + 32], *bytes = NULL;
	size_t len = 0;
	ssize_t w = -1;
	int fd;

	if (hs_serialize_database(db, &bytes, &len) != HS_SUCCESS)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%ld.%lx.tmp", path, (long)getpid(),
		 (unsigned long)pthread_self());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0) {
		w = write(fd, bytes, len);
		if (close(fd) || w != (ssize_t)len || rename(tmp, path))
			unlink(tmp);
	}
	free(bytes);
}

static int compile_one(struct compile_job *j, struct mk_pf_db *pf)
{
	struct mk_pf_pending *pd = pf->pending;
	hs_compile_error_t *cerr = NULL;
	hs_database_t *db = NULL;
	char path[PATH_MAX];
	int hit = 0;

	if (j->cache_dir) {
		cache_path(j, pd, pf->npat, path, sizeof(path));
		db = cache_read(path);
		hit = db != NULL;
		if (hit)
			atomic_fetch_add(&j->cached, 1);
	}
	if (!db && hs_compile_lit_multi(pd->expr, pd->flags, pd->ids, pd->lens, pf->npat,
					HS_MODE_BLOCK, &j->plat, &db, &cerr) != HS_SUCCESS) {
		mk_err("prefilter: Hyperscan: %s", cerr ? cerr->message : "compile failed");
		hs_free_compile_error(cerr);
		return -EINVAL;
	}
	if (j->cache_dir && !hit)
		cache_write(path, db);
	pf->db = db;
	pending_free(pd);
	pf->pending = NULL;
	return 0;
}

static void *compile_thread(void *arg)
{
	struct compile_job *j = arg;
	uint32_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < j->n) {
		struct mk_pf_db *pf = j->groups[i]->pf;
		int err;

		if (!pf || !pf->pending || atomic_load(&j->err))
			continue;
		err = compile_one(j, pf);
		if (err)
			atomic_store(&j->err, err);
	}
	return NULL;
}

/* Threads for @n databases: the CPUs meerkat may use, at most PF_THREADS_MAX. */
static uint32_t compile_threads(uint32_t n)
{
	cpu_set_t set;
	uint32_t cpus = 1;

	if (!sched_getaffinity(0, sizeof(set), &set))
		cpus = (uint32_t)CPU_COUNT(&set);
	if (cpus > PF_THREADS_MAX)
		cpus = PF_THREADS_MAX;
	return cpus < n ? cpus : n;
}

/* The cache directory, created if need be; NULL (with a warning) when it cannot be used. */
static const char *cache_dir_ready(const char *dir)
{
	char tmp[PATH_MAX], *p;

	if (!dir || !dir[0])
		return NULL;
	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return NULL;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			break;
		*p = '/';
	}
	if ((mkdir(tmp, 0755) && errno != EEXIST) || access(dir, W_OK | X_OK)) {
		mk_warn("detect.prefilter-cache %s: %s: compiling without the cache", dir,
			strerror(errno));
		return NULL;
	}
	return dir;
}
#endif

int mk_prefilter_compile(struct mk_group *const *groups, uint32_t n, const char *cache_dir,
			 struct mk_detect_load_stats *st)
{
#ifdef MK_HAVE_HYPERSCAN
	struct compile_job j = { .groups = groups,
				 .n = n,
				 .cache_dir = cache_dir_ready(cache_dir) };
	pthread_t th[PF_THREADS_MAX];
	uint32_t nth = compile_threads(n), started = 0, i;

	/* tuned for this CPU: the database is built where it runs */
	if (hs_populate_platform(&j.plat) != HS_SUCCESS)
		memset(&j.plat, 0, sizeof(j.plat));
	for (i = 1; i < nth; i++)
		if (!pthread_create(&th[started], NULL, compile_thread, &j))
			started++;
	compile_thread(&j); /* this thread too; alone when no thread could start */
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&j.err))
		return atomic_load(&j.err);
	for (i = 0; i < n; i++) {
		size_t sz = 0;

		if (groups[i]->pf && groups[i]->pf->db && !hs_database_size(groups[i]->pf->db, &sz))
			st->prefilter_bytes += sz;
	}
	st->prefilter_cached += atomic_load(&j.cached);
	return 0;
#else
	(void)groups;
	(void)n;
	(void)cache_dir;
	(void)st;
	return 0;
#endif
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

int mk_prefilter_scan(const struct mk_pf_db *pf, void *scratch, const uint8_t *buf, uint32_t len,
		      mk_pf_hit_fn hit, void *ctx)
{
#ifdef MK_HAVE_HYPERSCAN
	struct scan_ctx sc = { hit, ctx };

	if (!pf || !len)
		return 0;
	return hs_scan(pf->db, (const char *)buf, len, 0, scratch, on_match, &sc) == HS_SUCCESS ?
		       0 :
		       -EIO;
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
