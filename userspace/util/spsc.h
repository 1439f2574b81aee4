/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Single-producer single-consumer lock-free ring of fixed-size records.
 *
 * Why: a datagram reassembled by worker A may belong to a 5-tuple that
 * worker B owns (fragments hash on the address pair only, DESIGN 1.2). A
 * hands it over through a ring only A writes and only B reads, so no lock
 * and no shared write: with W workers there are W x W rings, one per ordered
 * pair (from, to) (struct mk_spsc_mesh); worker B polls its W incoming rings
 * between batches. A full ring is not waited on: the producer gets -ENOBUFS
 * and counts a drop, the data path never blocks on a slow peer.
 *
 * Indices run freely over 32 bits and are masked on use (capacity is a power
 * of two); head is written only by the producer and tail only by the
 * consumer, each on its own cache line, and each side keeps a private copy
 * of the other's index so it touches the shared line only when the ring
 * looks full (or empty). Release on publish, acquire on observe.
 */
#ifndef MK_SPSC_H
#define MK_SPSC_H

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#define MK_CACHELINE 64

struct mk_spsc {
	/* producer's line */
	_Alignas(MK_CACHELINE) _Atomic __u32 head;
	__u32 tail_cache;
	/* consumer's line */
	_Alignas(MK_CACHELINE) _Atomic __u32 tail;
	__u32 head_cache;
	/* read-only after init */
	_Alignas(MK_CACHELINE) __u32 mask;
	__u32 rec_size;
	unsigned char *slots;
};

/* @capacity: power of two >= 2; @rec_size: bytes per record (sizeof(void *) for pointers). */
static inline int mk_spsc_init(struct mk_spsc *r, __u32 capacity, __u32 rec_size)
{
	if (capacity < 2 || capacity > (1u << 30) || (capacity & (capacity - 1)) || !rec_size)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->slots = calloc(capacity, rec_size);
	if (!r->slots)
		return -ENOMEM;
	r->mask = capacity - 1;
	r->rec_size = rec_size;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	return 0;
}

static inline void mk_spsc_destroy(struct mk_spsc *r)
{
	free(r->slots);
	r->slots = NULL;
}

static inline __u32 mk_spsc_capacity(const struct mk_spsc *r)
{
	return r->mask + 1;
}

/* Producer: pushes up to @n records from @recs; returns how many went in (0 when full). */
static inline __u32 mk_spsc_push_burst(struct mk_spsc *r, const void *recs, __u32 n)
{
	__u32 head = atomic_load_explicit(&r->head, memory_order_relaxed);
	__u32 room = r->mask + 1 - (head - r->tail_cache);
	__u32 i, idx, first;

	if (room < n) {
		r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
		room = r->mask + 1 - (head - r->tail_cache);
	}
	if (n > room)
		n = room;
	if (!n)
		return 0;
	/* at most two memcpy: up to the end of the array, then from its start */
	idx = head & r->mask;
	first = r->mask + 1 - idx;
	if (first > n)
		first = n;
	memcpy(r->slots + (size_t)idx * r->rec_size, recs, (size_t)first * r->rec_size);
	i = n - first;
	if (i)
		memcpy(r->slots, (const unsigned char *)recs + (size_t)first * r->rec_size,
		       (size_t)i * r->rec_size);
	atomic_store_explicit(&r->head, head + n, memory_order_release);
	return n;
}

/* Consumer: pops up to @max records into @recs; returns how many (0 when empty). */
static inline __u32 mk_spsc_pop_burst(struct mk_spsc *r, void *recs, __u32 max)
{
	__u32 tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	__u32 avail = r->head_cache - tail;
	__u32 idx, first, n;

	if (avail < max) {
		r->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
		avail = r->head_cache - tail;
	}
	n = avail < max ? avail : max;
	if (!n)
		return 0;
	idx = tail & r->mask;
	first = r->mask + 1 - idx;
	if (first > n)
		first = n;
	memcpy(recs, r->slots + (size_t)idx * r->rec_size, (size_t)first * r->rec_size);
	if (n > first)
		memcpy((unsigned char *)recs + (size_t)first * r->rec_size, r->slots,
		       (size_t)(n - first) * r->rec_size);
	atomic_store_explicit(&r->tail, tail + n, memory_order_release);
	return n;
}

/* Producer: 0, or -ENOBUFS when full (the caller counts the drop). */
static inline int mk_spsc_push(struct mk_spsc *r, const void *rec)
{
	return mk_spsc_push_burst(r, rec, 1) ? 0 : -ENOBUFS;
}

/* Consumer: 0, or -EAGAIN when empty. */
static inline int mk_spsc_pop(struct mk_spsc *r, void *rec)
{
	return mk_spsc_pop_burst(r, rec, 1) ? 0 : -EAGAIN;
}

/* Pointer rings (rec_size == sizeof(void *)): hand over ownership of @p. */
static inline int mk_spsc_push_ptr(struct mk_spsc *r, void *p)
{
	return mk_spsc_push(r, &p);
}

static inline void *mk_spsc_pop_ptr(struct mk_spsc *r)
{
	void *p;

	return mk_spsc_pop(r, &p) ? NULL : p;
}

/* Either side, approximate while the other side runs. */
static inline __u32 mk_spsc_count(struct mk_spsc *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) -
	       atomic_load_explicit(&r->tail, memory_order_acquire);
}

/*
 * W x W rings: ring (from, to) carries records from worker @from to worker
 * @to. Worker w produces on rings (w, *) and consumes rings (*, w), so every
 * ring keeps exactly one producer and one consumer. Ring (w, w) exists but a
 * worker that owns its own datagram just processes it.
 */
struct mk_spsc_mesh {
	struct mk_spsc *rings; /* cache-line aligned: the rings' alignment holds */
	__u32 workers;
};

static inline void mk_spsc_mesh_destroy(struct mk_spsc_mesh *m)
{
	__u32 i;

	if (!m->rings)
		return;
	for (i = 0; i < m->workers * m->workers; i++)
		mk_spsc_destroy(&m->rings[i]);
	free(m->rings);
	m->rings = NULL;
}

static inline int mk_spsc_mesh_init(struct mk_spsc_mesh *m, __u32 workers, __u32 capacity,
				    __u32 rec_size)
{
	size_t bytes = (size_t)workers * workers * sizeof(struct mk_spsc);
	__u32 i;
	int err;

	memset(m, 0, sizeof(*m));
	if (!workers || workers > 1024)
		return -EINVAL;
	m->rings = aligned_alloc(MK_CACHELINE, bytes);
	if (!m->rings)
		return -ENOMEM;
	memset(m->rings, 0, bytes);
	m->workers = workers;
	for (i = 0; i < workers * workers; i++) {
		err = mk_spsc_init(&m->rings[i], capacity, rec_size);
		if (err)
			goto err_destroy;
	}
	return 0;

err_destroy:
	mk_spsc_mesh_destroy(m);
	return err;
}

static inline struct mk_spsc *mk_spsc_mesh_ring(struct mk_spsc_mesh *m, __u32 from, __u32 to)
{
	return &m->rings[(size_t)from * m->workers + to];
}

#endif /* MK_SPSC_H */
