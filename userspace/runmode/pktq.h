/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reader -> worker queue: a bounded single-producer single-consumer byte ring
 * of variable-size records (a frame's reference, a tick, the end; the frames
 * themselves stay in the read stage's batches, offline_read.h). It blocks
 * when full instead of dropping (a pcap run must see every frame), which is
 * why it is not userspace/util/spsc.h: that ring drops when full, which is
 * right for the datagram handoff between workers.
 *
 * Indexes run free (never wrapped) and are masked on use; each side caches the
 * other's index and rereads it only when the ring looks full or empty, so the
 * shared cache lines move once per batch, not once per packet.
 */
#ifndef MK_PKTQ_H
#define MK_PKTQ_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bell.h"

#define MK_PKTQ_ALIGN 8

enum mk_pktq_kind {
	MK_PKTQ_WRAP = 0, /* rest of the ring is unused: continue at offset 0 */
	MK_PKTQ_PKT,	  /* a frame: where it is (struct mk_off_ref) */
	MK_PKTQ_TICK,	  /* packet time advanced: sweep timeouts */
	MK_PKTQ_END,
};

struct mk_pktq_rec {
	uint32_t kind;
	uint32_t len; /* payload bytes after this header */
};

#define MK_PKTQ_BATCH 32 /* records per tail publication */

struct mk_pktq {
	_Alignas(64) _Atomic uint64_t tail; /* written by the producer */
	_Alignas(64) uint64_t tail_local;   /* producer: end of the records written */
	uint64_t head_cache;
	uint32_t pending;		    /* producer: records not yet published */
	_Alignas(64) _Atomic uint64_t head; /* written by the consumer */
	uint64_t tail_cache;
	uint64_t unpublished; /* consumer: bytes consumed since the last head store */
	_Alignas(64) uint8_t *ring;
	uint64_t size; /* power of two */
	uint64_t full_waits;
	struct mk_bell data_bell;  /* the consumer sleeps here: rung when tail moves */
	struct mk_bell space_bell; /* the producer sleeps here: rung when head moves */
};

/*
 * Waiting on the other side: spin with PAUSE for a few microseconds first (the
 * other side is usually just behind), then sleep on the bell (util/bell.h),
 * so that a waiting thread uses no CPU.
 */
static inline int mk_pktq_init(struct mk_pktq *q, uint64_t size)
{
	memset(q, 0, sizeof(*q));
	q->ring = aligned_alloc(64, size);
	if (!q->ring)
		return -1;
	q->size = size;
	return 0;
}

static inline void mk_pktq_free(struct mk_pktq *q)
{
	free(q->ring);
	q->ring = NULL;
}

static inline uint64_t mk_pktq_reclen(uint32_t len)
{
	return (sizeof(struct mk_pktq_rec) + len + MK_PKTQ_ALIGN - 1) &
	       ~(uint64_t)(MK_PKTQ_ALIGN - 1);
}

/* Would reserving @len payload bytes wait for the consumer right now? */
static inline int mk_pktq_full(struct mk_pktq *q, uint32_t len)
{
	uint64_t need = mk_pktq_reclen(len), tail = q->tail_local;
	uint64_t pos = tail & (q->size - 1);
	uint64_t pad = pos + need > q->size ? q->size - pos : 0;

	if (tail + pad + need - q->head_cache <= q->size)
		return 0;
	q->head_cache = atomic_load_explicit(&q->head, memory_order_acquire);
	return tail + pad + need - q->head_cache > q->size;
}

/* Reserves room for a record of @len payload bytes; blocks while full. */
static inline void *mk_pktq_reserve(struct mk_pktq *q, uint32_t kind, uint32_t len)
{
	uint64_t need = mk_pktq_reclen(len);
	uint64_t tail = q->tail_local;
	uint64_t pos = tail & (q->size - 1);
	uint64_t pad = pos + need > q->size ? q->size - pos : 0;
	struct mk_pktq_rec *r;
	unsigned int spins = 0;
	uint32_t seq;

	while (tail + pad + need - q->head_cache > q->size) {
		q->head_cache = atomic_load_explicit(&q->head, memory_order_acquire);
		if (tail + pad + need - q->head_cache > q->size) {
			if (!spins) {
				q->full_waits++;
				/* the consumer must see everything before we wait for it */
				atomic_store_explicit(&q->tail, tail, memory_order_release);
				q->pending = 0;
				mk_bell_ring(&q->data_bell);
			}
			if (++spins < MK_BELL_SPIN) {
				mk_cpu_relax();
				continue;
			}
			seq = mk_bell_arm(&q->space_bell);
			q->head_cache = atomic_load_explicit(&q->head, memory_order_seq_cst);
			if (tail + pad + need - q->head_cache > q->size)
				mk_bell_sleep(&q->space_bell, seq);
			else
				mk_bell_disarm(&q->space_bell);
		}
	}
	if (pad) {
		((struct mk_pktq_rec *)(q->ring + pos))->kind = MK_PKTQ_WRAP;
		tail += pad;
		q->tail_local = tail;
		pos = 0;
	}
	r = (struct mk_pktq_rec *)(q->ring + pos);
	r->kind = kind;
	r->len = len;
	return r + 1;
}

/* Makes every committed record visible to the consumer, without waking it. */
static inline void mk_pktq_publish(struct mk_pktq *q)
{
	atomic_store_explicit(&q->tail, q->tail_local, memory_order_release);
	q->pending = 0;
}

/*
 * A sleeping consumer is woken when this much is waiting for it (or at a
 * tick, the end, or when the producer waits): one wake-up per batch, not one
 * per publication, is what keeps an idle worker's CPU near zero. 4 KiB is
 * about 170 frame references, some 75 KB of frames.
 */
#define MK_PKTQ_WAKE_BYTES (4u << 10)

/* Wakes a sleeping consumer if a batch worth the wake-up is waiting. */
static inline void mk_pktq_nudge(struct mk_pktq *q)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&q->data_bell.armed, memory_order_relaxed))
		return;
	if (q->tail_local - atomic_load_explicit(&q->head, memory_order_acquire) >=
	    MK_PKTQ_WAKE_BYTES)
		mk_bell_ring(&q->data_bell);
}

/* Makes every committed record visible to the consumer, and wakes it. */
static inline void mk_pktq_flush(struct mk_pktq *q)
{
	mk_pktq_publish(q);
	mk_bell_ring(&q->data_bell);
}

/*
 * Ends the reserved record. Records are published in batches, so the
 * consumer's cache line holding tail moves once per MK_PKTQ_BATCH records;
 * call mk_pktq_flush() where latency matters (ticks, the end).
 */
static inline void mk_pktq_commit(struct mk_pktq *q)
{
	struct mk_pktq_rec *r = (struct mk_pktq_rec *)(q->ring + (q->tail_local & (q->size - 1)));

	q->tail_local += mk_pktq_reclen(r->len);
	if (++q->pending >= MK_PKTQ_BATCH)
		mk_pktq_flush(q);
}

/* The next record, or NULL when the ring is empty (does not block). */
static inline struct mk_pktq_rec *mk_pktq_peek(struct mk_pktq *q)
{
	uint64_t head = atomic_load_explicit(&q->head, memory_order_relaxed) + q->unpublished;
	struct mk_pktq_rec *r;

	for (;;) {
		if (head == q->tail_cache) {
			/* publish what we consumed before waiting: the producer may be full */
			if (q->unpublished) {
				atomic_store_explicit(&q->head, head, memory_order_release);
				q->unpublished = 0;
				mk_bell_ring(&q->space_bell);
			}
			q->tail_cache = atomic_load_explicit(&q->tail, memory_order_acquire);
			if (head == q->tail_cache)
				return NULL;
		}
		r = (struct mk_pktq_rec *)(q->ring + (head & (q->size - 1)));
		if (r->kind != MK_PKTQ_WRAP)
			return r;
		q->unpublished += q->size - (head & (q->size - 1));
		head += q->size - (head & (q->size - 1));
	}
}

static inline void mk_pktq_release(struct mk_pktq *q, struct mk_pktq_rec *r)
{
	q->unpublished += mk_pktq_reclen(r->len);
	/* hand space back in chunks: one shared store per ~64 KiB */
	if (q->unpublished >= 65536) {
		atomic_store_explicit(&q->head,
				      atomic_load_explicit(&q->head, memory_order_relaxed) +
					      q->unpublished,
				      memory_order_release);
		q->unpublished = 0;
		mk_bell_ring(&q->space_bell);
	}
}

#endif /* MK_PKTQ_H */
