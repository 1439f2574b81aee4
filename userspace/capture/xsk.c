// SPDX-License-Identifier: GPL-2.0-only
/*
 * AF_XDP UMEMs and sockets (xsk.h). Set-up and tear-down only, plus the
 * batched refill; the receive loop is the live run mode's (runmode/live.c).
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "log.h"
#include "xsk.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int mk_iface_rx_queues(const char *ifname)
{
	char path[128];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "rx-", 3))
			n++;
	closedir(d);
	return n ? n : -ENODEV;
}

int mk_xsk_umem_create(struct mk_xsk_umem *u, const char *ifname, uint32_t queue,
		       const struct mk_capture_cfg *cfg)
{
	struct xsk_umem_config ucfg = {
		.fill_size = cfg->fill_size,
		.comp_size = cfg->comp_size,
		.frame_size = cfg->frame_size,
		.frame_headroom = 0,
		.flags = 0,
	};
	uint32_t i, n, idx;
	int err;

	memset(u, 0, sizeof(*u));
	snprintf(u->ifname, sizeof(u->ifname), "%s", ifname);
	u->queue = queue;
	u->frame_size = cfg->frame_size;
	u->frame_count = cfg->frame_count;
	if ((cfg->frame_size != 2048 && cfg->frame_size != 4096) || !cfg->frame_count ||
	    !is_pow2(cfg->fill_size) || !is_pow2(cfg->comp_size)) {
		mk_err("%s queue %u: frame size must be 2048 or 4096 and ring sizes powers of two",
		       ifname, queue);
		return -EINVAL;
	}
	u->ifindex = (int)if_nametoindex(ifname);
	if (!u->ifindex) {
		err = -errno;
		mk_err("%s: %s", ifname, strerror(-err));
		return err;
	}
	pthread_spin_init(&u->lock, PTHREAD_PROCESS_PRIVATE);
	/* inline: as many transmit frames as the completion ring can give back */
	u->tx_frames = cfg->ips ? cfg->comp_size : 0;
	u->area_size = (uint64_t)cfg->frame_size * (cfg->frame_count + u->tx_frames);
	u->area = mmap(NULL, u->area_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	if (u->area == MAP_FAILED) {
		err = -errno;
		u->area = NULL;
		mk_err("%s queue %u: cannot map %llu bytes of UMEM: %s", ifname, queue,
		       (unsigned long long)u->area_size, strerror(-err));
		goto fail;
	}
	u->stack = calloc(cfg->frame_count, sizeof(*u->stack));
	if (!u->stack) {
		err = -ENOMEM;
		goto fail;
	}
	err = xsk_umem__create(&u->umem, u->area, u->area_size, &u->fill, &u->comp, &ucfg);
	if (err) {
		mk_err("%s queue %u: cannot create UMEM: %s%s", ifname, queue, strerror(-err),
		       err == -ENOMEM || err == -EPERM ? " (locked-memory limit? try ulimit -l)" :
							 "");
		u->umem = NULL;
		goto fail;
	}
	/* every frame starts in the fill ring, or on the stack when it is smaller */
	n = cfg->frame_count < cfg->fill_size ? cfg->frame_count : cfg->fill_size;
	if (xsk_ring_prod__reserve(&u->fill, n, &idx) != n) {
		err = -ENOSPC;
		mk_err("%s queue %u: cannot prime the fill ring", ifname, queue);
		goto fail;
	}
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&u->fill, idx + i) = (uint64_t)i * cfg->frame_size;
	xsk_ring_prod__submit(&u->fill, n);
	for (; i < cfg->frame_count; i++)
		u->stack[u->nstack++] = (uint64_t)i * cfg->frame_size;
	if (u->tx_frames) {
		u->txfree = calloc(u->tx_frames, sizeof(*u->txfree));
		if (!u->txfree) {
			err = -ENOMEM;
			goto fail;
		}
		for (i = 0; i < u->tx_frames; i++)
			u->txfree[u->ntxfree++] =
				(uint64_t)(cfg->frame_count + i) * cfg->frame_size;
	}
	return 0;
fail:
	mk_xsk_umem_destroy(u);
	return err;
}

void mk_xsk_umem_destroy(struct mk_xsk_umem *u)
{
	if (u->umem)
		xsk_umem__delete(u->umem);
	if (u->area)
		munmap(u->area, u->area_size);
	free(u->stack);
	free(u->txfree);
	if (u->area || u->stack)
		pthread_spin_destroy(&u->lock);
	memset(u, 0, sizeof(*u));
}

static void set_busy_poll(const struct mk_xsk_sock *s, const struct mk_capture_cfg *cfg)
{
	int one = 1, usecs = (int)cfg->busy_poll_usecs, budget = (int)cfg->busy_poll_budget;

	if (setsockopt(s->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)))
		mk_warn("%s queue %u: busy polling not available: %s", s->umem->ifname,
			s->umem->queue, strerror(errno));
}

/* Binds one socket; the first one on a UMEM carries the bind flags. */
static int sock_bind(struct mk_xsk_sock *s, struct mk_xsk_umem *u, const struct mk_capture_cfg *cfg,
		     uint16_t bind_flags)
{
	struct xsk_socket_config xcfg = {
		.rx_size = cfg->rx_size,
		.tx_size = cfg->ips ? cfg->comp_size : 0,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = bind_flags,
	};

	return xsk_socket__create_shared(&s->xsk, u->ifname, u->queue, u->umem, &s->rx,
					 cfg->ips ? &s->tx : NULL, &u->fill, &u->comp, &xcfg);
}

int mk_xsk_sock_create(struct mk_xsk_sock *s, struct mk_xsk_umem *u,
		       const struct mk_capture_cfg *cfg)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->umem = u;
	if (!is_pow2(cfg->rx_size)) {
		mk_err("%s queue %u: RX ring size %u is not a power of two", u->ifname, u->queue,
		       cfg->rx_size);
		return -EINVAL;
	}
	if (u->nsocks) {
		/* shared sockets inherit the first one's mode */
		err = sock_bind(s, u, cfg, 0);
	} else if (cfg->zero_copy == MK_ZC_OFF) {
		err = sock_bind(s, u, cfg, XDP_COPY | XDP_USE_NEED_WAKEUP);
	} else {
		err = sock_bind(s, u, cfg, XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP);
		if (!err) {
			u->zero_copy = true;
		} else if (cfg->zero_copy == MK_ZC_AUTO) {
			/* the run mode says it once per interface; the reason per queue is detail */
			mk_dbg("%s queue %u: zero-copy refused (%s), using copy mode", u->ifname,
			       u->queue, strerror(-err));
			err = sock_bind(s, u, cfg, XDP_COPY | XDP_USE_NEED_WAKEUP);
		}
	}
	if (err) {
		mk_err("%s queue %u: cannot create AF_XDP socket%s: %s", u->ifname, u->queue,
		       cfg->zero_copy == MK_ZC_ON && !u->nsocks ? " in zero-copy mode" : "",
		       strerror(-err));
		s->xsk = NULL;
		return err;
	}
	if (!u->nsocks)
		u->need_wakeup = true;
	u->nsocks++;
	s->fd = xsk_socket__fd(s->xsk);
	if (cfg->busy_poll)
		set_busy_poll(s, cfg);
	return 0;
}

void mk_xsk_sock_destroy(struct mk_xsk_sock *s)
{
	if (s->xsk) {
		xsk_socket__delete(s->xsk);
		s->umem->nsocks--;
	}
	memset(s, 0, sizeof(*s));
}

void mk_xsk_umem_refill(struct mk_xsk_umem *u, const uint64_t *addrs, uint32_t n)
{
	uint32_t idx, room, i, k;

	pthread_spin_lock(&u->lock);
	/* frames already waiting go first, so none waits forever */
	room = xsk_prod_nb_free(&u->fill, u->nstack + n);
	k = room < u->nstack ? room : u->nstack;
	if (k && xsk_ring_prod__reserve(&u->fill, k, &idx) == k) {
		for (i = 0; i < k; i++)
			*xsk_ring_prod__fill_addr(&u->fill, idx + i) = u->stack[--u->nstack];
		xsk_ring_prod__submit(&u->fill, k);
		room -= k;
	}
	k = room < n ? room : n;
	if (k && xsk_ring_prod__reserve(&u->fill, k, &idx) == k) {
		for (i = 0; i < k; i++)
			*xsk_ring_prod__fill_addr(&u->fill, idx + i) = addrs[i];
		xsk_ring_prod__submit(&u->fill, k);
	} else {
		k = 0;
	}
	for (i = k; i < n; i++)
		u->stack[u->nstack++] = addrs[i];
	pthread_spin_unlock(&u->lock);
}

/* Transmit frames the kernel is done with back on the free list; under u->lock. */
static void tx_reap(struct mk_xsk_umem *u)
{
	uint32_t idx, n, i;

	n = xsk_ring_cons__peek(&u->comp, u->tx_frames, &idx);
	for (i = 0; i < n; i++) {
		uint64_t a = *xsk_ring_cons__comp_addr(&u->comp, idx + i);

		if (u->ntxfree < u->tx_frames)
			u->txfree[u->ntxfree++] = mk_xsk_frame_base(u, a);
	}
	if (n)
		xsk_ring_cons__release(&u->comp, n);
}

int mk_xsk_tx_copy(struct mk_xsk_sock *s, const void *data, uint32_t len)
{
	struct mk_xsk_umem *u = s->umem;
	struct xdp_desc *d;
	uint64_t addr;
	uint32_t idx;

	if (len > u->frame_size)
		return -EMSGSIZE;
	if (xsk_ring_prod__reserve(&s->tx, 1, &idx) != 1) {
		mk_xsk_tx_kick(s);
		if (xsk_ring_prod__reserve(&s->tx, 1, &idx) != 1)
			return -ENOBUFS;
	}
	pthread_spin_lock(&u->lock);
	if (!u->ntxfree)
		tx_reap(u);
	addr = u->ntxfree ? u->txfree[--u->ntxfree] : UINT64_MAX;
	pthread_spin_unlock(&u->lock);
	if (addr == UINT64_MAX) {
		/* the slot stays reserved: cancel it */
		s->tx.cached_prod--;
		return -ENOBUFS;
	}
	memcpy(xsk_umem__get_data(u->area, addr), data, len);
	d = xsk_ring_prod__tx_desc(&s->tx, idx);
	d->addr = addr;
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&s->tx, 1);
	s->tx_pending++;
	return 0;
}

void mk_xsk_tx_kick(struct mk_xsk_sock *s)
{
	unsigned int tries;

	if (!s->tx_pending)
		return;
	/* copy mode sends at most 32 frames per call: repeat until the ring is empty */
	for (tries = 0; tries < 256; tries++) {
		if (sendto(s->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
		    errno != EBUSY && errno != ENOBUFS)
			break;
		if (xsk_prod_nb_free(&s->tx, s->tx.size) == s->tx.size)
			break;
	}
	s->tx_pending = 0;
	pthread_spin_lock(&s->umem->lock);
	tx_reap(s->umem);
	pthread_spin_unlock(&s->umem->lock);
}

int mk_xsk_sock_stats(const struct mk_xsk_sock *s, struct xdp_statistics *st)
{
	socklen_t len = sizeof(*st);

	memset(st, 0, sizeof(*st));
	if (getsockopt(s->fd, SOL_XDP, XDP_STATISTICS, st, &len))
		return -errno;
	return 0;
}

void mk_xsk_sock_kick(const struct mk_xsk_sock *s)
{
	/* a non-blocking receive makes the kernel look at the fill ring again */
	recvfrom(s->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}
