// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IP-only engine: address-only rules (MK_RF_IPONLY: no payload, no
 * per-packet keyword, as Suricata's IP-only rules) indexed by address, so that
 * the first packet of each flow direction finds the rules its addresses can
 * match in two binary searches, whatever the number of rules and addresses
 * they list (the IP reputation lists put hundreds of addresses in each rule).
 *
 * Each rule is keyed by the narrower of its two address sets (its source or
 * its destination, negations already applied by address.c): per family, a
 * table keyed by packet source and one keyed by packet destination cut the
 * address space into segments where the set of rules covering it does not
 * change, each with its rules in ascending rule order. A bidirectional rule
 * (<>) is keyed in both tables. A rule whose narrower side still covers more
 * than 1/256 of its family (any, !$HOME_NET, 0.0.0.0/1, ...) would repeat in
 * most segments: it is on the family's wide list instead, checked on every
 * lookup. A lookup is a superset: the caller still runs the rule's header
 * match (both sides, ports, protocol) on each candidate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "detect_int.h"

/* An address of either family as a 128-bit number (IPv4: the low 32 bits). */
struct k128 {
	uint64_t hi, lo;
};

struct io_ent {
	uint32_t rule;
	uint32_t mask; /* MK_IPONLY_BIT(class, to_client) the rule may match in */
};

/* Rules keyed by one side's addresses, for one family. */
struct io_table {
	struct k128 *start; /* segment starts, ascending: segment i is [start[i], start[i + 1]) */
	uint32_t *off;	    /* nseg + 1: segment i's rules are ent[off[i], off[i + 1]) */
	struct io_ent *ent;
	uint32_t nseg;
};

struct mk_iponly {
	struct io_table tab[2][2]; /* [IPv4, IPv6][keyed by packet source, destination] */
	struct io_ent *wide[2];	   /* per family */
	uint32_t nwide[2];
	size_t mem;
};

/* A range to index: [lo, hi] of one rule. */
struct trip {
	struct k128 lo, hi;
	struct io_ent e;
};

struct trips {
	struct trip *v;
	size_t n, cap;
};

static int k_cmp(const struct k128 *a, const struct k128 *b)
{
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static struct k128 k_next(struct k128 a)
{
	if (++a.lo == 0)
		a.hi++;
	return a;
}

static int k_is_max(const struct k128 *a, int v6)
{
	return v6 ? a->hi == UINT64_MAX && a->lo == UINT64_MAX : a->lo == UINT32_MAX;
}

static struct k128 k_of6(const uint8_t *b)
{
	struct k128 k = { 0, 0 };
	int i;

	for (i = 0; i < 8; i++) {
		k.hi = k.hi << 8 | b[i];
		k.lo = k.lo << 8 | b[i + 8];
	}
	return k;
}

/* The packet address @addr (network order) of @family as a key. */
static struct k128 k_of_addr(uint8_t family, const uint32_t *addr)
{
	struct k128 k = { 0, 0 };

	if (family == MK_FAMILY_IPV4)
		k.lo = ntohl(addr[0]);
	else
		k = k_of6((const uint8_t *)addr);
	return k;
}

/* Addresses of family @v6 that @a holds, as a fraction of the family: 0 = none. */
static long double coverage(const struct mk_addr_set *a, int v6)
{
	long double sum = 0;
	uint32_t i;

	if (a->any)
		return 1;
	if (!v6) {
		for (i = 0; i < a->n4; i++)
			sum += (long double)a->v4[i].hi - a->v4[i].lo + 1;
		return sum / 4294967296.0L;
	}
	for (i = 0; i < a->n6; i++) {
		struct k128 lo = k_of6(a->v6[i].lo), hi = k_of6(a->v6[i].hi);

		sum += ((long double)hi.hi - lo.hi) * 18446744073709551616.0L +
		       ((long double)hi.lo - lo.lo) + 1;
	}
	return sum / 340282366920938463463374607431768211456.0L;
}

static int trips_push(struct trips *t, struct k128 lo, struct k128 hi, struct io_ent e)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct trip *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct trip){ lo, hi, e };
	return 0;
}

/* Every range of @a in family @v6 for rule entry @e. */
static int trips_add_set(struct trips *t, const struct mk_addr_set *a, int v6, struct io_ent e)
{
	struct k128 lo, hi;
	uint32_t i;
	int err = 0;

	if (a->any) {
		lo = (struct k128){ 0, 0 };
		hi = v6 ? (struct k128){ UINT64_MAX, UINT64_MAX } : (struct k128){ 0, UINT32_MAX };
		return trips_push(t, lo, hi, e);
	}
	for (i = 0; !v6 && i < a->n4 && !err; i++)
		err = trips_push(t, (struct k128){ 0, a->v4[i].lo },
				 (struct k128){ 0, a->v4[i].hi }, e);
	for (i = 0; v6 && i < a->n6 && !err; i++)
		err = trips_push(t, k_of6(a->v6[i].lo), k_of6(a->v6[i].hi), e);
	return err;
}

static int trip_lo_cmp(const void *x, const void *y)
{
	return k_cmp(&((const struct trip *)x)->lo, &((const struct trip *)y)->lo);
}

static int kcmp_q(const void *x, const void *y)
{
	return k_cmp(x, y);
}

static int ent_cmp(const void *x, const void *y)
{
	uint32_t a = ((const struct io_ent *)x)->rule, b = ((const struct io_ent *)y)->rule;

	return a < b ? -1 : a > b;
}

/* Cuts the ranges of @t into segments with their rules (sweep over the boundaries). */
static int table_build(struct io_table *tab, struct trips *t, int v6, size_t *mem)
{
	struct k128 *b = NULL;
	struct trip **act = NULL;
	size_t nb = 0, i, j, next = 0, nact = 0, nent = 0, cap = 0;
	int err = -ENOMEM;

	if (!t->n)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), trip_lo_cmp);
	b = malloc(2 * t->n * sizeof(*b));
	act = malloc(t->n * sizeof(*act));
	if (!b || !act)
		goto out;
	for (i = 0; i < t->n; i++) {
		b[nb++] = t->v[i].lo;
		if (!k_is_max(&t->v[i].hi, v6))
			b[nb++] = k_next(t->v[i].hi);
	}
	qsort(b, nb, sizeof(*b), kcmp_q);
	for (i = 0, j = 0; i < nb; i++)
		if (!j || k_cmp(&b[j - 1], &b[i]))
			b[j++] = b[i];
	nb = j;
	tab->off = malloc((nb + 1) * sizeof(*tab->off));
	if (!tab->off)
		goto out;
	for (i = 0; i < nb; i++) {
		/* ranges ending before this boundary leave; those starting at it join */
		for (j = 0; j < nact;) {
			if (k_cmp(&act[j]->hi, &b[i]) < 0)
				act[j] = act[--nact];
			else
				j++;
		}
		while (next < t->n && !k_cmp(&t->v[next].lo, &b[i]))
			act[nact++] = &t->v[next++];
		tab->off[i] = (uint32_t)nent;
		if (nent + nact > cap) {
			struct io_ent *v;

			cap = (nent + nact) * 2 + 64;
			v = realloc(tab->ent, cap * sizeof(*v));
			if (!v)
				goto out;
			tab->ent = v;
		}
		for (j = 0; j < nact; j++)
			tab->ent[nent++] = act[j]->e;
		qsort(tab->ent + tab->off[i], nact, sizeof(*tab->ent), ent_cmp);
	}
	tab->off[nb] = (uint32_t)nent;
	tab->start = b;
	tab->nseg = (uint32_t)nb;
	b = NULL;
	*mem += nb * (sizeof(*tab->start) + sizeof(*tab->off)) + nent * sizeof(*tab->ent);
	err = 0;
out:
	free(b);
	free(act);
	return err;
}

/* The family's entry for one rule: keyed, wide, or not at all (no address of the family). */
static int index_rule(struct mk_iponly *io, struct trips tr[2][2], const struct mk_iponly_rule *ir,
		      int v6)
{
	const struct mk_rule *r = ir->r;
	long double cs = coverage(&r->src, v6), cd = coverage(&r->dst, v6);
	struct io_ent e = { ir->num, ir->mask };
	const struct mk_addr_set *key;
	int side, err;

	if (!cs || !cd)
		return 0;
	side = cd < cs; /* 0: keyed by the rule's source, 1: by its destination */
	key = side ? &r->dst : &r->src;
	if ((side ? cd : cs) > 1.0L / 256) {
		struct io_ent *w = realloc(io->wide[v6], (io->nwide[v6] + 1) * sizeof(*w));

		if (!w)
			return -ENOMEM;
		w[io->nwide[v6]++] = e;
		io->wide[v6] = w;
		return 0;
	}
	err = trips_add_set(&tr[v6][side], key, v6, e);
	/* the other direction of <>: the same addresses seen as the packet's other side */
	if (!err && (r->flags & MK_RF_BIDIR))
		err = trips_add_set(&tr[v6][!side], key, v6, e);
	return err;
}

int mk_iponly_build(const struct mk_iponly_rule *rules, uint32_t n, struct mk_iponly **out)
{
	struct trips tr[2][2];
	struct mk_iponly *io;
	uint32_t i;
	int f, s, err = 0;

	*out = NULL;
	if (!n)
		return 0;
	io = calloc(1, sizeof(*io));
	if (!io)
		return -ENOMEM;
	memset(tr, 0, sizeof(tr));
	for (i = 0; i < n && !err; i++)
		for (f = 0; f < 2 && !err; f++)
			err = index_rule(io, tr, &rules[i], f);
	for (f = 0; f < 2 && !err; f++) {
		/* rules were taken in ascending order: the wide lists are sorted */
		io->mem += io->nwide[f] * sizeof(struct io_ent);
		for (s = 0; s < 2 && !err; s++)
			err = table_build(&io->tab[f][s], &tr[f][s], f, &io->mem);
	}
	for (f = 0; f < 2; f++)
		for (s = 0; s < 2; s++)
			free(tr[f][s].v);
	if (err) {
		mk_iponly_free(io);
		return err;
	}
	*out = io;
	return 0;
}

void mk_iponly_free(struct mk_iponly *io)
{
	int f, s;

	if (!io)
		return;
	for (f = 0; f < 2; f++) {
		free(io->wide[f]);
		for (s = 0; s < 2; s++) {
			free(io->tab[f][s].start);
			free(io->tab[f][s].off);
			free(io->tab[f][s].ent);
		}
	}
	free(io);
}

size_t mk_iponly_mem(const struct mk_iponly *io)
{
	return io ? io->mem : 0;
}

static void table_lookup(const struct io_table *tab, struct k128 k, uint32_t bit,
			 void (*add)(void *, uint32_t), void *arg)
{
	uint32_t lo = 0, hi = tab->nseg, i;

	/* the last segment starting at or below k */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (k_cmp(&tab->start[mid], &k) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	for (i = tab->off[lo - 1]; i < tab->off[lo]; i++)
		if (tab->ent[i].mask & bit)
			add(arg, tab->ent[i].rule);
}

void mk_iponly_lookup(const struct mk_iponly *io, uint8_t family, const uint32_t *src,
		      const uint32_t *dst, uint32_t bit, void (*add)(void *, uint32_t), void *arg)
{
	int v6 = family == MK_FAMILY_IPV6;
	uint32_t i;

	if (!io || (family != MK_FAMILY_IPV4 && !v6))
		return;
	table_lookup(&io->tab[v6][0], k_of_addr(family, src), bit, add, arg);
	table_lookup(&io->tab[v6][1], k_of_addr(family, dst), bit, add, arg);
	for (i = 0; i < io->nwide[v6]; i++)
		if (io->wide[v6][i].mask & bit)
			add(arg, io->wide[v6][i].rule);
}
