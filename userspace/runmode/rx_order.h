/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Arrival order across a worker's RX rings (docs/architecture.md, "Arrival
 * order"). A live worker reads one socket per NIC queue; the frames of one
 * flow may come through several of them (asymmetric RSS, tunnels whose outer
 * headers differ per direction, a veth sender moving between CPUs). Each ring
 * is in arrival order on its own, so the worker merges the rings by the
 * arrival stamp the XDP program writes (struct mk_meta): it takes the oldest
 * head first, and holds it while a ring that looked empty could still deliver
 * an older frame, at most `window` ticks after the frame was stamped (the
 * time from the program's stamp to the frame being visible in its ring).
 *
 * This file is only the decision, on the ages of the ring heads, so that it
 * can be tested without sockets; runmode/live.c feeds it.
 */
#ifndef MK_RX_ORDER_H
#define MK_RX_ORDER_H

#include <stdint.h>

/* A head without a stamp (no metadata): it goes first, as it is. */
#define MK_RX_AGE_NOW UINT32_MAX

enum mk_rx_head_state {
	MK_RX_HEAD_FRAME = 0, /* a frame waits at the head; age is set */
	MK_RX_HEAD_EMPTY,     /* the ring was empty when last looked at */
	MK_RX_HEAD_UNKNOWN,   /* what we took of the ring is gone, it may hold more: look again */
};

struct mk_rx_head {
	uint32_t age;  /* ticks since the head frame was stamped (mk_meta_stamp_age) */
	uint8_t state; /* enum mk_rx_head_state */
};

enum mk_rx_order_verdict {
	MK_RX_ORDER_NONE = -1, /* no frame anywhere */
	MK_RX_ORDER_HOLD = -2, /* frames wait, the oldest for another *wait ticks */
	MK_RX_ORDER_LOOK = -3, /* a ring must be looked at again before anything goes */
};

/*
 * Which ring's head goes next among @n. Returns its index and sets *@limit:
 * that ring's following frames may go on while their age is >= *@limit
 * (older than every other head, and than the window while a ring is empty).
 * Otherwise returns an enum mk_rx_order_verdict; for MK_RX_ORDER_HOLD, *@wait
 * is the number of ticks until the oldest frame may go.
 */
static inline int mk_rx_order_next(const struct mk_rx_head *h, unsigned int n, uint32_t window,
				   uint32_t *limit, uint32_t *wait)
{
	uint32_t oldest = 0, second = 0;
	int best = MK_RX_ORDER_NONE, empty = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (h[i].state == MK_RX_HEAD_UNKNOWN)
			return MK_RX_ORDER_LOOK;
		if (h[i].state == MK_RX_HEAD_EMPTY) {
			empty = 1;
			continue;
		}
		/* ties go to the lower index: the earlier socket, as without the merge */
		if (best < 0 || h[i].age > oldest) {
			if (best >= 0)
				second = oldest;
			oldest = h[i].age;
			best = (int)i;
		} else if (h[i].age > second) {
			second = h[i].age;
		}
	}
	if (best < 0)
		return MK_RX_ORDER_NONE;
	if (empty && second < window)
		second = window;
	if (oldest < second) {
		*wait = second - oldest;
		return MK_RX_ORDER_HOLD;
	}
	*limit = second;
	return best;
}

#endif /* MK_RX_ORDER_H */
