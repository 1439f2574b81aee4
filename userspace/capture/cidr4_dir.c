// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IPv4 CIDR table (cidr4_dir.h). Every add or delete recomputes the one
 * /16 it touches (or the 2^(16-len) /16s a short prefix covers) from the
 * prefixes user space keeps, and writes only the entries that change, in
 * place: each entry and each 64-bit word of bits is one atomic store, so the
 * program sees every address answered by the old list or the new one. A /16
 * or /24 that needs a chunk it did not have gets a fresh one, written in
 * full before the store that links it; a chunk that is unlinked waits
 * MK_CIDR4_REUSE_NS before it is handed out again, so a program run that
 * read the old link never reads someone else's chunk.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cidr4_dir.h"

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static int pool_init(struct mk_cidr4_pool *p, __u32 cap)
{
	memset(p, 0, sizeof(*p));
	p->cap = cap;
	p->next = 1;
	p->ids = calloc(cap, sizeof(*p->ids));
	p->when = calloc(cap, sizeof(*p->when));
	return p->ids && p->when ? 0 : -ENOMEM;
}

static void pool_free(struct mk_cidr4_pool *p)
{
	free(p->ids);
	free(p->when);
	memset(p, 0, sizeof(*p));
}

/* A chunk index, or 0 when none is free yet. */
static __u32 pool_get(struct mk_cidr4_pool *p, __u64 now)
{
	__u32 id;

	if (p->next <= p->cap)
		return p->next++;
	if (!p->count || now - p->when[p->head] < MK_CIDR4_REUSE_NS)
		return 0;
	id = p->ids[p->head];
	p->head = (p->head + 1) % p->cap;
	p->count--;
	return id;
}

static void pool_put(struct mk_cidr4_pool *p, __u32 id, __u64 now)
{
	__u32 tail = (p->head + p->count) % p->cap;

	p->ids[tail] = id;
	p->when[tail] = now;
	p->count++;
}

static void store16(__u16 *e, __u16 v)
{
	__atomic_store_n(e, v, __ATOMIC_RELEASE);
}

int mk_cidr4_dir_init(struct mk_cidr4_dir *d, __u16 *l1, struct mk_cidr4_l2 *l2,
		      struct mk_cidr4_l3 *l3)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->l1 = l1;
	d->l2 = l2;
	d->l3 = l3;
	d->now_ns = mono_ns;
	memset(l1, 0, MK_CIDR4_DIR_ENTRIES * sizeof(*l1));
	d->short_refs = calloc(MK_CIDR4_DIR_ENTRIES, sizeof(*d->short_refs));
	d->in = calloc(MK_CIDR4_DIR_ENTRIES, sizeof(*d->in));
	err = d->short_refs && d->in ? 0 : -ENOMEM;
	if (!err)
		err = pool_init(&d->l2_pool, MK_CIDR4_L2_CHUNKS);
	if (!err)
		err = pool_init(&d->l3_pool, MK_CIDR4_L3_CHUNKS);
	if (err)
		mk_cidr4_dir_free(d);
	return err;
}

void mk_cidr4_dir_free(struct mk_cidr4_dir *d)
{
	__u32 i;

	for (i = 0; d->in && i < MK_CIDR4_DIR_ENTRIES; i++)
		free(d->in[i].v);
	free(d->in);
	free(d->short_refs);
	pool_free(&d->l2_pool);
	pool_free(&d->l3_pool);
	memset(d, 0, sizeof(*d));
}

static void l3_unlink(struct mk_cidr4_dir *d, __u16 *e, __u16 v, __u64 now)
{
	__u16 old = *e;

	store16(e, v);
	if (mk_cidr4_is_chunk(old))
		pool_put(&d->l3_pool, old, now);
}

/* One /24 entry @e of a level-2 chunk: NONE, ALL, or the address bits @bits. */
static void l2_set(struct mk_cidr4_dir *d, __u16 *e, int all, const __u64 *bits, __u64 now)
{
	struct mk_cidr4_l3 *l3;
	__u32 id, w;

	if (all || !(bits[0] | bits[1] | bits[2] | bits[3])) {
		l3_unlink(d, e, all ? MK_CIDR4_ALL : MK_CIDR4_NONE, now);
		return;
	}
	if (mk_cidr4_is_chunk(*e)) {
		l3 = &d->l3[*e];
		for (w = 0; w < 4; w++) {
			if (l3->bits[w] != bits[w])
				__atomic_store_n(&l3->bits[w], bits[w], __ATOMIC_RELEASE);
		}
		return;
	}
	id = pool_get(&d->l3_pool, now);
	if (!id) {
		store16(e, MK_CIDR4_TRIE);
		return;
	}
	memcpy(d->l3[id].bits, bits, sizeof(d->l3[id].bits));
	store16(e, (__u16)id);
}

/* Recomputes /16 @h from the prefixes that touch it. */
static void refresh(struct mk_cidr4_dir *d, __u32 h)
{
	__u64 bits[256][4];
	__u8 all[256];
	const struct mk_cidr4_vec *v = &d->in[h];
	__u64 now = d->now_ns();
	__u16 *e1 = &d->l1[h], old = *e1;
	__u32 i, j, id;
	bool fresh = false;

	if (d->short_refs[h] || !v->n) {
		store16(e1, d->short_refs[h] ? MK_CIDR4_ALL : MK_CIDR4_NONE);
		if (mk_cidr4_is_chunk(old)) {
			/* unlinked whole: a run that read the old link still finds it intact */
			for (j = 0; j < 256; j++) {
				if (mk_cidr4_is_chunk(d->l2[old].e[j]))
					pool_put(&d->l3_pool, d->l2[old].e[j], now);
			}
			pool_put(&d->l2_pool, old, now);
		}
		return;
	}
	memset(all, 0, sizeof(all));
	memset(bits, 0, sizeof(bits));
	for (i = 0; i < v->n; i++) {
		__u32 len = v->v[i] & 0xff, lo = v->v[i] >> 8;

		if (len <= 24) {
			__u32 n = 1u << (24 - len), first = (lo >> 8) & ~(n - 1);

			memset(all + first, 1, n);
		} else {
			__u32 n = 1u << (32 - len), a = lo & 0xff & ~(n - 1), k;

			for (k = a; k < a + n; k++)
				bits[lo >> 8][k >> 6] |= 1ull << (k & 63);
		}
	}
	id = old;
	if (!mk_cidr4_is_chunk(old)) {
		id = pool_get(&d->l2_pool, now);
		if (!id) {
			store16(e1, MK_CIDR4_TRIE);
			return;
		}
		/* not linked yet: nobody reads it, start it empty */
		memset(&d->l2[id], 0, sizeof(d->l2[id]));
		fresh = true;
	}
	for (j = 0; j < 256; j++)
		l2_set(d, &d->l2[id].e[j], all[j], bits[j], now);
	if (fresh)
		store16(e1, (__u16)id);
}

static __u32 mask(__u32 len)
{
	return len ? ~0u << (32 - len) : 0;
}

static int vec_add(struct mk_cidr4_vec *v, __u32 x)
{
	if (v->n == v->cap) {
		__u32 cap = v->cap ? v->cap * 2 : 4;
		__u32 *n = realloc(v->v, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

static void vec_del(struct mk_cidr4_vec *v, __u32 x)
{
	__u32 i;

	for (i = 0; i < v->n; i++) {
		if (v->v[i] == x) {
			v->v[i] = v->v[--v->n];
			return;
		}
	}
}

static int update(struct mk_cidr4_dir *d, __u32 addr, __u32 len, int delta)
{
	__u32 h, first, n;
	int err;

	if (len > 32)
		return -EINVAL;
	addr &= mask(len);
	if (len > 16) {
		h = addr >> 16;
		if (delta > 0) {
			err = vec_add(&d->in[h], (addr & 0xffff) << 8 | len);
			if (err)
				return err;
		} else {
			vec_del(&d->in[h], (addr & 0xffff) << 8 | len);
		}
		refresh(d, h);
		return 0;
	}
	n = 1u << (16 - len);
	first = addr >> 16;
	for (h = first; h < first + n; h++) {
		if (delta > 0) {
			if (d->short_refs[h]++)
				continue; /* already covered: nothing changes */
		} else if (!d->short_refs[h] || --d->short_refs[h]) {
			continue;
		}
		refresh(d, h);
	}
	return 0;
}

int mk_cidr4_dir_add(struct mk_cidr4_dir *d, __u32 addr, __u32 len)
{
	return update(d, addr, len, +1);
}

int mk_cidr4_dir_del(struct mk_cidr4_dir *d, __u32 addr, __u32 len)
{
	return update(d, addr, len, -1);
}

int mk_cidr4_dir_match(const struct mk_cidr4_dir *d, __u32 addr)
{
	__u16 e = d->l1[addr >> 16];

	if (mk_cidr4_is_chunk(e))
		e = d->l2[e].e[(addr >> 8) & 0xff];
	if (mk_cidr4_is_chunk(e))
		return (int)((d->l3[e].bits[(addr >> 6) & 3] >> (addr & 63)) & 1);
	return e == MK_CIDR4_ALL ? 1 : e == MK_CIDR4_TRIE ? -1 : 0;
}
