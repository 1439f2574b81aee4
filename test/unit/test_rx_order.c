// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live worker's merge of its RX rings (userspace/runmode/rx_order.h):
 * the oldest head goes first; its ring goes on while older than every other
 * head; a ring that looked empty holds the others for the window; a ring
 * that may hold more stops everything until it is looked at again. Then a
 * simulation: frames of random flows stamped in order, spread over rings,
 * arriving in each ring late by less than the window, come out in stamp order.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "rx_order.h"

#define FRAME(a)                                      \
	{                                             \
		.age = (a), .state = MK_RX_HEAD_FRAME \
	}
#define EMPTY                             \
	{                                 \
		.state = MK_RX_HEAD_EMPTY \
	}
#define UNKNOWN                             \
	{                                   \
		.state = MK_RX_HEAD_UNKNOWN \
	}

Test(rx_order, oldest_head_first_and_its_run)
{
	struct mk_rx_head h[3] = { FRAME(10), FRAME(40), FRAME(25) };
	uint32_t limit = 0, wait = 0;

	cr_assert_eq(mk_rx_order_next(h, 3, 5, &limit, &wait), 1);
	cr_assert_eq(limit, 25, "ring 1 goes on while older than ring 2's head");
}

Test(rx_order, ties_go_to_the_lower_ring)
{
	struct mk_rx_head h[2] = { FRAME(7), FRAME(7) };
	uint32_t limit = 0, wait = 0;

	cr_assert_eq(mk_rx_order_next(h, 2, 0, &limit, &wait), 0);
	cr_assert_eq(limit, 7);
}

Test(rx_order, an_empty_ring_holds_young_frames)
{
	struct mk_rx_head h[2] = { EMPTY, FRAME(3) };
	uint32_t limit = 0, wait = 0;

	cr_assert_eq(mk_rx_order_next(h, 2, 10, &limit, &wait), MK_RX_ORDER_HOLD);
	cr_assert_eq(wait, 7);
	h[1].age = 10;
	cr_assert_eq(mk_rx_order_next(h, 2, 10, &limit, &wait), 1);
	cr_assert_eq(limit, 10, "the run stops at frames younger than the window");
	/* window 0 (draining): nothing waits */
	h[1].age = 0;
	cr_assert_eq(mk_rx_order_next(h, 2, 0, &limit, &wait), 1);
}

Test(rx_order, unstamped_frames_go_now)
{
	struct mk_rx_head h[2] = { EMPTY, FRAME(MK_RX_AGE_NOW) };
	uint32_t limit = 0, wait = 0;

	cr_assert_eq(mk_rx_order_next(h, 2, 1000, &limit, &wait), 1);
}

Test(rx_order, none_and_look)
{
	struct mk_rx_head e[2] = { EMPTY, EMPTY }, u[2] = { FRAME(100), UNKNOWN };
	uint32_t limit = 0, wait = 0;

	cr_assert_eq(mk_rx_order_next(e, 2, 10, &limit, &wait), MK_RX_ORDER_NONE);
	cr_assert_eq(mk_rx_order_next(u, 2, 10, &limit, &wait), MK_RX_ORDER_LOOK);
}

/*
 * Frames 0..N-1 stamped at increasing times on random rings; frame i shows
 * in its ring up to `lag` ticks after its stamp (lag < window), rings stay in
 * order. A worker looks at the rings at random moments and takes what the
 * merge lets go, as live.c does: the output must be 0..N-1.
 */
#define SIM_RINGS 4
#define SIM_FRAMES 20000

Test(rx_order, simulated_rings_come_out_in_stamp_order)
{
	static uint32_t stamp[SIM_FRAMES], shows[SIM_FRAMES];
	static unsigned int ring_of[SIM_FRAMES], ring[SIM_RINGS][SIM_FRAMES];
	unsigned int len[SIM_RINGS] = { 0 }, head[SIM_RINGS] = { 0 }, seen[SIM_RINGS];
	uint32_t window = 40, t = 0, now, next_out = 0;
	unsigned int i, r;

	srand(7);
	for (i = 0; i < SIM_FRAMES; i++) {
		t += 1 + (uint32_t)(rand() % 6); /* distinct stamps: ties have no order */
		stamp[i] = t;
		/* a ring shows frames in order: never before its previous frame */
		r = (unsigned int)rand() % SIM_RINGS;
		shows[i] = t + (uint32_t)(rand() % (int)window);
		if (len[r] && shows[ring[r][len[r] - 1]] > shows[i])
			shows[i] = shows[ring[r][len[r] - 1]];
		ring_of[i] = r;
		ring[r][len[r]++] = i;
	}
	for (now = 0; next_out < SIM_FRAMES; now += (uint32_t)(rand() % 30)) {
		struct mk_rx_head h[SIM_RINGS];
		uint32_t limit, wait;
		int k;

		/* the look: what each ring shows at `now` */
		for (r = 0; r < SIM_RINGS; r++) {
			seen[r] = head[r];
			while (seen[r] < len[r] && shows[ring[r][seen[r]]] <= now)
				seen[r]++;
		}
		for (r = 0; r < SIM_RINGS; r++) {
			h[r].state = head[r] < seen[r] ? MK_RX_HEAD_FRAME : MK_RX_HEAD_EMPTY;
			h[r].age = head[r] < seen[r] ? now - stamp[ring[r][head[r]]] : 0;
		}
		while ((k = mk_rx_order_next(h, SIM_RINGS, window, &limit, &wait)) >= 0) {
			do {
				cr_assert_eq(ring[k][head[k]], next_out,
					     "frame %u out of ring %d, expected %u (ring %u)",
					     ring[k][head[k]], k, next_out, ring_of[next_out]);
				next_out++;
				head[k]++;
				h[k].state = head[k] < seen[k] ? MK_RX_HEAD_FRAME :
								 MK_RX_HEAD_EMPTY;
				h[k].age = head[k] < seen[k] ? now - stamp[ring[k][head[k]]] : 0;
			} while (h[k].state == MK_RX_HEAD_FRAME && h[k].age >= limit);
		}
		cr_assert(k == MK_RX_ORDER_NONE || k == MK_RX_ORDER_HOLD);
	}
}
