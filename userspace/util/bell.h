/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A doorbell: lets a thread that found nothing to do sleep in the kernel
 * (futex) instead of spinning or yielding, and lets whoever makes work for it
 * wake it for the price of one load when it is awake.
 *
 * Waiter:  spin a little on its condition; then mk_bell_arm(), re-check the
 *          condition, and mk_bell_sleep() only if it still holds (the bell
 *          was armed before the re-check, so a ring in between is not lost).
 * Ringer:  publish the work (a release store), then mk_bell_ring().
 *
 * Arming and ringing are sequentially consistent (Dekker's pattern): either
 * the ringer sees the waiter armed, or the waiter's re-check sees the work.
 * The sleep has a timeout all the same (MK_BELL_TIMEOUT_NS), so a ringer that
 * was forgotten costs latency, never a hang.
 */
#ifndef MK_BELL_H
#define MK_BELL_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MK_BELL_TIMEOUT_NS 20000000L /* 20 ms */
#define MK_BELL_SPIN 256	     /* PAUSE rounds before a waiter sleeps */

struct mk_bell {
	_Atomic uint32_t seq;	/* futex word: bumped by every ring that found a sleeper */
	_Atomic uint32_t armed; /* a waiter is about to sleep or sleeps */
	uint64_t sleeps;	/* waiter: times it slept (stats) */
};

/* A short busy wait: the other side is usually just behind. */
static inline void mk_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Returns the sequence to pass to mk_bell_sleep(). */
static inline uint32_t mk_bell_arm(struct mk_bell *b)
{
	atomic_store_explicit(&b->armed, 1, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&b->seq, memory_order_seq_cst);
}

/* Sleeps until a ring after mk_bell_arm() (or the timeout), then disarms. */
static inline void mk_bell_sleep(struct mk_bell *b, uint32_t seq)
{
	struct timespec ts = { 0, MK_BELL_TIMEOUT_NS };

	b->sleeps++;
	syscall(SYS_futex, &b->seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
	atomic_store_explicit(&b->armed, 0, memory_order_relaxed);
}

/* The condition held after all: disarm without sleeping. */
static inline void mk_bell_disarm(struct mk_bell *b)
{
	atomic_store_explicit(&b->armed, 0, memory_order_relaxed);
}

/* Wakes the waiter if it is armed; one load otherwise. */
static inline void mk_bell_ring(struct mk_bell *b)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&b->armed, memory_order_relaxed))
		return;
	atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
	syscall(SYS_futex, &b->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif /* MK_BELL_H */
