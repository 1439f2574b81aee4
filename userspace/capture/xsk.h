/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AF_XDP capture objects, in two layers (docs/architecture.md, "Q x W"):
 *
 *  - struct mk_xsk_umem, one per (interface, queue): the frame area, the
 *    UMEM, and its fill and completion rings, which the queue's W sockets
 *    share (XDP_SHARED_UMEM on one queue shares them in the kernel too).
 *    Workers give frames back to the fill ring in one short critical section
 *    per receive batch; frames the ring has no room for wait in a stack
 *    under the same lock.
 *  - struct mk_xsk_sock, one per (queue, worker): the socket and its RX
 *    ring. Only its worker reads it; the program redirects into it through
 *    XSKMAP slot queue * W + worker.
 *
 * Every frame is in exactly one place: the fill ring, the kernel, an RX
 * ring, a worker's hands, or the stack. A worker gives back every frame it
 * took, on every path; its counters (frames received, frames refilled) show
 * it.
 *
 * Sockets are created with XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD: meerkat
 * attaches its own program (loader.c) and fills the XSKMAP itself.
 */
#ifndef MK_XSK_H
#define MK_XSK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>
#include "capture_cfg.h"

struct mk_xsk_umem {
	struct xsk_ring_prod fill; /* guarded by lock */
	struct xsk_ring_cons comp;
	struct xsk_umem *umem;
	void *area;
	uint64_t area_size;
	uint32_t frame_size;
	uint32_t frame_count;
	pthread_spinlock_t lock;
	uint64_t *stack; /* frames waiting for room in the fill ring */
	uint32_t nstack;
	uint32_t queue;
	int ifindex;
	bool zero_copy;	  /* decided when the first socket was bound */
	bool need_wakeup; /* XDP_USE_NEED_WAKEUP was accepted */
	int nsocks;
	char ifname[IF_NAMESIZE];
	/*
	 * Inline mode: frames kept apart for transmission (after the
	 * frame_count receive frames), free ones on txfree under lock; the
	 * completion ring gives them back.
	 */
	uint64_t *txfree;
	uint32_t ntxfree;
	uint32_t tx_frames;
};

struct mk_xsk_sock {
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx; /* inline mode only: one producer, the socket's worker */
	struct xsk_socket *xsk;
	struct mk_xsk_umem *umem;
	uint32_t tx_pending; /* descriptors submitted since the last kick */
	int fd;
};

/* Socket counters (struct xdp_statistics), as meerkat names them in EVE stats. */
#define MK_XSK_STATS(X)                                                                    \
	X(rx_dropped, "frames dropped: no fill-ring buffer, or other socket-side reasons") \
	X(rx_invalid_descs, "invalid descriptors the kernel skipped")                      \
	X(rx_ring_full, "frames dropped: the socket's RX ring was full")                   \
	X(rx_fill_ring_empty_descs, "times the kernel found the fill ring empty")

/*
 * Creates the UMEM of (@ifname, @queue) with its rings and fills the fill
 * ring. Sockets are added with mk_xsk_sock_create(); the first one decides
 * zero-copy per cfg->zero_copy. 0 or -errno (logged).
 */
int mk_xsk_umem_create(struct mk_xsk_umem *u, const char *ifname, uint32_t queue,
		       const struct mk_capture_cfg *cfg);
/* After every socket on it is destroyed. */
void mk_xsk_umem_destroy(struct mk_xsk_umem *u);

int mk_xsk_sock_create(struct mk_xsk_sock *s, struct mk_xsk_umem *u,
		       const struct mk_capture_cfg *cfg);
void mk_xsk_sock_destroy(struct mk_xsk_sock *s);

/* Gives @n frames (base addresses) back: one lock round per call. */
void mk_xsk_umem_refill(struct mk_xsk_umem *u, const uint64_t *addrs, uint32_t n);

/*
 * Inline mode (cfg->ips): a copy of @len bytes at @data goes on the socket's
 * TX ring, in one of its UMEM's transmit frames (veth and copy mode cannot
 * share a frame between two UMEMs: one copy). 0, -ENOBUFS when no transmit
 * frame or ring slot is free (the caller counts the frame as lost), or
 * -EMSGSIZE. The frame leaves at the next mk_xsk_tx_kick().
 */
int mk_xsk_tx_copy(struct mk_xsk_sock *s, const void *data, uint32_t len);
/* Has the kernel send what mk_xsk_tx_copy() queued (copy mode sends in bursts of 32). */
void mk_xsk_tx_kick(struct mk_xsk_sock *s);

/* XDP_STATISTICS of the socket. 0 or -errno. */
int mk_xsk_sock_stats(const struct mk_xsk_sock *s, struct xdp_statistics *st);
/* Drives the kernel when the fill ring asks for a wakeup (need_wakeup) or busy polling is on. */
void mk_xsk_sock_kick(const struct mk_xsk_sock *s);

static inline uint64_t mk_xsk_frame_base(const struct mk_xsk_umem *u, uint64_t addr)
{
	return addr & ~((uint64_t)u->frame_size - 1);
}

/* The number of RX queues of @ifname (sysfs), or -errno. */
int mk_iface_rx_queues(const char *ifname);

#endif /* MK_XSK_H */
