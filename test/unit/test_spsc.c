// SPDX-License-Identifier: GPL-2.0-only
/* The single-producer single-consumer ring: semantics, then two real threads. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "spsc.h"

struct rec12 {
	__u32 a, b, c;
};

Test(unit, spsc_init_rejects)
{
	struct mk_spsc r;

	cr_assert_eq(mk_spsc_init(&r, 0, 8), -EINVAL);
	cr_assert_eq(mk_spsc_init(&r, 1, 8), -EINVAL);
	cr_assert_eq(mk_spsc_init(&r, 6, 8), -EINVAL);
	cr_assert_eq(mk_spsc_init(&r, 8, 0), -EINVAL);
}

Test(unit, spsc_full_empty)
{
	struct mk_spsc r;
	struct rec12 x;
	__u32 i;

	cr_assert_eq(mk_spsc_init(&r, 4, sizeof(x)), 0);
	cr_assert_eq(mk_spsc_pop(&r, &x), -EAGAIN);
	for (i = 0; i < 4; i++) {
		x = (struct rec12){ i, i * 2, i * 3 };
		cr_assert_eq(mk_spsc_push(&r, &x), 0);
	}
	cr_assert_eq(mk_spsc_count(&r), 4);
	cr_assert_eq(mk_spsc_push(&r, &x), -ENOBUFS, "full ring refuses");
	for (i = 0; i < 4; i++) {
		cr_assert_eq(mk_spsc_pop(&r, &x), 0);
		cr_assert(x.a == i && x.b == i * 2 && x.c == i * 3);
	}
	cr_assert_eq(mk_spsc_pop(&r, &x), -EAGAIN, "empty ring refuses");
	mk_spsc_destroy(&r);
}

Test(unit, spsc_burst_wraps)
{
	struct mk_spsc r;
	__u64 in[7], out[7], next_in = 0, next_out = 0;
	__u32 round, i, n;

	cr_assert_eq(mk_spsc_init(&r, 8, sizeof(__u64)), 0);
	for (round = 0; round < 1000; round++) {
		for (i = 0; i < 7; i++)
			in[i] = next_in + i;
		n = mk_spsc_push_burst(&r, in, 1 + round % 7);
		next_in += n;
		n = mk_spsc_pop_burst(&r, out, 1 + (round * 3) % 7);
		for (i = 0; i < n; i++)
			cr_assert_eq(out[i], next_out++);
	}
	/* a burst larger than the room is cut to the room */
	while (mk_spsc_pop_burst(&r, out, 7))
		;
	for (i = 0; i < 7; i++)
		in[i] = i;
	cr_assert_eq(mk_spsc_push_burst(&r, in, 7), 7);
	cr_assert_eq(mk_spsc_push_burst(&r, in, 7), 1);
	cr_assert_eq(mk_spsc_push_burst(&r, in, 7), 0);
	mk_spsc_destroy(&r);
}

Test(unit, spsc_pointers_and_mesh)
{
	struct mk_spsc_mesh m;
	int a = 1, b = 2;
	__u32 from, to;

	cr_assert_eq(mk_spsc_mesh_init(&m, 3, 16, sizeof(void *)), 0);
	for (from = 0; from < 3; from++)
		for (to = 0; to < 3; to++)
			cr_assert_eq((uintptr_t)mk_spsc_mesh_ring(&m, from, to) % MK_CACHELINE, 0);
	cr_assert_eq(mk_spsc_push_ptr(mk_spsc_mesh_ring(&m, 0, 2), &a), 0);
	cr_assert_eq(mk_spsc_push_ptr(mk_spsc_mesh_ring(&m, 2, 0), &b), 0);
	cr_assert_null(mk_spsc_pop_ptr(mk_spsc_mesh_ring(&m, 0, 1)));
	cr_assert_eq(mk_spsc_pop_ptr(mk_spsc_mesh_ring(&m, 0, 2)), &a);
	cr_assert_eq(mk_spsc_pop_ptr(mk_spsc_mesh_ring(&m, 2, 0)), &b);
	mk_spsc_mesh_destroy(&m);
}

#define ITEMS 1000000u

struct two_threads {
	struct mk_spsc ring;
	__u64 full; /* producer found the ring full: what the caller counts as drops */
};

static void *producer(void *arg)
{
	struct two_threads *tt = arg;
	__u64 batch[32];
	__u64 next = 0;

	while (next < ITEMS) {
		__u32 want = 1 + (__u32)(next % 32), i, n;

		if (want > ITEMS - next)
			want = (__u32)(ITEMS - next);
		for (i = 0; i < want; i++)
			batch[i] = next + i;
		n = mk_spsc_push_burst(&tt->ring, batch, want);
		if (!n)
			tt->full++;
		next += n;
	}
	return NULL;
}

Test(unit, spsc_two_threads, .timeout = 60)
{
	static struct two_threads tt;
	__u64 batch[17], expect = 0;
	pthread_t th;

	cr_assert_eq(mk_spsc_init(&tt.ring, 256, sizeof(__u64)), 0);
	cr_assert_eq(pthread_create(&th, NULL, producer, &tt), 0);
	while (expect < ITEMS) {
		__u32 n = mk_spsc_pop_burst(&tt.ring, batch, 1 + (__u32)(expect % 17)), i;

		for (i = 0; i < n; i++)
			cr_assert_eq(batch[i], expect++, "order or loss at %llu",
				     (unsigned long long)expect);
	}
	pthread_join(th, NULL);
	cr_assert_eq(mk_spsc_count(&tt.ring), 0);
	mk_spsc_destroy(&tt.ring);
}
