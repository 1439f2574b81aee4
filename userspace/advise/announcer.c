// SPDX-License-Identifier: GPL-2.0-only
/*
 * The announcer thread (announcer.h): the workers' rings, the table of
 * active announcements, the unix socket and its pipes, the stats.
 */
#include <errno.h>
#include <grp.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "announcer.h"
#include "config.h"
#include "log.h"
#include "spsc.h"

#define MAX_PIPES 4		/* ExaBGP instances reading at once (e.g. two route servers) */
#define PIPE_BUF_MAX (1u << 20) /* commands a pipe may be behind before it is closed */
#define TICK_MS 50		/* how often the rings are drained */
#define STOP_FLUSH_MS 2000	/* what the pipes get to take the withdrawals at stop */
#define RING_BURST 64

struct pipe_conn {
	int fd; /* -1: free */
	char *buf;
	size_t len, cap;
};

/* What one worker counts; its own cache line, written only by it. */
struct worker_cnt {
	_Alignas(MK_CACHELINE) _Atomic uint64_t selected;
	_Atomic uint64_t dropped;
};

struct mk_advisor {
	const struct mk_advise_cfg *cfg;
	struct mk_advise_table table;
	pthread_mutex_t lock; /* the table, its counters, the pipes */
	struct mk_spsc *rings;
	struct worker_cnt *wcnt;
	unsigned int nworkers;
	int lfd;
	int bound; /* the socket file is ours: removed at the end */
	struct pipe_conn pipes[MAX_PIPES];
	struct mk_cidr *own;
	unsigned int nown;
	void (*record)(void *ctx, const char *line, size_t len);
	void *record_ctx;
	pthread_t thread;
	int started;
	_Atomic int stop;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- pipes ------------------------------------------------------------------------ */

static void pipe_close(struct mk_advisor *a, struct pipe_conn *p, const char *why)
{
	if (p->fd < 0)
		return;
	if (why)
		mk_warn("advise-router: %s: pipe closed: %s", a->cfg->socket, why);
	close(p->fd);
	p->fd = -1;
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

/* Queues @len bytes for pipe @p; a pipe too far behind is closed (it resyncs on return). */
static void pipe_append(struct mk_advisor *a, struct pipe_conn *p, const char *s, size_t len)
{
	if (p->len + len > PIPE_BUF_MAX) {
		a->table.cnt[MK_ADVISE_WRITE_ERRORS]++;
		pipe_close(a, p, "stalled: more than 1 MiB of commands not taken");
		return;
	}
	if (p->len + len > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *nb;

		while (cap < p->len + len)
			cap *= 2;
		nb = realloc(p->buf, cap);
		if (!nb) {
			a->table.cnt[MK_ADVISE_WRITE_ERRORS]++;
			pipe_close(a, p, "out of memory");
			return;
		}
		p->buf = nb;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, s, len);
	p->len += len;
}

static void pipe_flush(struct mk_advisor *a, struct pipe_conn *p)
{
	while (p->fd >= 0 && p->len) {
		ssize_t n = send(p->fd, p->buf, p->len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			a->table.cnt[MK_ADVISE_WRITE_ERRORS]++;
			pipe_close(a, p, n < 0 ? strerror(errno) : "closed");
			return;
		}
		memmove(p->buf, p->buf + n, p->len - (size_t)n);
		p->len -= (size_t)n;
	}
}

/* table.out.command: to every pipe; counted when none is there to take it. */
static void out_command(void *ctx, const char *line, size_t len)
{
	struct mk_advisor *a = ctx;
	unsigned int i, n = 0;

	for (i = 0; i < MAX_PIPES; i++) {
		if (a->pipes[i].fd < 0)
			continue;
		pipe_append(a, &a->pipes[i], line, len);
		n++;
	}
	if (!n)
		a->table.cnt[MK_ADVISE_UNDELIVERED]++;
}

static void out_record(void *ctx, const char *line, size_t len)
{
	struct mk_advisor *a = ctx;

	a->record(a->record_ctx, line, len);
}

static void resync_one(void *arg, const char *line, size_t len)
{
	struct pipe_conn *p = arg;

	/* a pipe being filled for the first time: pipe_append's checks are not needed */
	if (p->fd < 0 || p->len + len > PIPE_BUF_MAX)
		return;
	if (p->len + len > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		char *nb;

		while (cap < p->len + len)
			cap *= 2;
		nb = realloc(p->buf, cap);
		if (!nb)
			return;
		p->buf = nb;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, line, len);
	p->len += len;
}

static void pipe_accept(struct mk_advisor *a)
{
	unsigned int i;
	int fd = accept4(a->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (i = 0; i < MAX_PIPES && a->pipes[i].fd >= 0; i++)
		;
	if (i == MAX_PIPES) {
		mk_warn("advise-router: %s: %u pipes connected already; one more refused",
			a->cfg->socket, MAX_PIPES);
		close(fd);
		return;
	}
	a->pipes[i].fd = fd;
	a->table.cnt[MK_ADVISE_CONNECTIONS]++;
	/* a new pipe (or ExaBGP restarted) learns every active announcement first */
	mk_advise_foreach_active(&a->table, resync_one, &a->pipes[i]);
	mk_info("advise-router: %s: pipe connected, %u active announcement(s) sent", a->cfg->socket,
		a->table.active);
}

/* What a pipe says (ExaBGP's acknowledgements) is not needed: read and dropped. */
static void pipe_read(struct mk_advisor *a, struct pipe_conn *p)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		;
	if (n == 0)
		pipe_close(a, p, "the reader went away");
	else if (errno != EAGAIN && errno != EINTR)
		pipe_close(a, p, strerror(errno));
}

/* ---- the thread ------------------------------------------------------------------- */

static void drain_rings(struct mk_advisor *a)
{
	struct mk_advise_req reqs[RING_BURST];
	uint64_t now_ns = mono_ns(), now_us = real_us();
	unsigned int w, i, n;

	for (w = 0; w < a->nworkers; w++)
		while ((n = mk_spsc_pop_burst(&a->rings[w], reqs, RING_BURST)))
			for (i = 0; i < n; i++)
				mk_advise_offer(&a->table, &reqs[i], now_ns, now_us);
}

static void *advisor_main(void *arg)
{
	struct mk_advisor *a = arg;
	struct pollfd pfds[1 + MAX_PIPES];
	uint64_t next_expiry = mono_ns() + 1000000000ull, deadline;
	unsigned int i, n;

	while (!atomic_load_explicit(&a->stop, memory_order_acquire)) {
		n = 0;
		pfds[n++] = (struct pollfd){ .fd = a->lfd, .events = POLLIN };
		for (i = 0; i < MAX_PIPES; i++)
			pfds[n++] = (struct pollfd){
				.fd = a->pipes[i].fd,
				.events = (short)(POLLIN | (a->pipes[i].len ? POLLOUT : 0))
			};
		if (poll(pfds, n, TICK_MS) < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&a->lock);
		for (i = 0; i < MAX_PIPES; i++)
			if (pfds[1 + i].fd >= 0 && (pfds[1 + i].revents & (POLLIN | POLLHUP)))
				pipe_read(a, &a->pipes[i]);
		if (pfds[0].revents & POLLIN)
			pipe_accept(a);
		drain_rings(a);
		if (mono_ns() >= next_expiry) {
			mk_advise_expire(&a->table, mono_ns(), real_us());
			next_expiry = mono_ns() + 1000000000ull;
		}
		for (i = 0; i < MAX_PIPES; i++)
			pipe_flush(a, &a->pipes[i]);
		pthread_mutex_unlock(&a->lock);
	}

	/* shutdown: every announcement is withdrawn, and the pipes get a moment to take it */
	pthread_mutex_lock(&a->lock);
	n = mk_advise_withdraw_all(&a->table, real_us());
	deadline = mono_ns() + STOP_FLUSH_MS * 1000000ull;
	for (;;) {
		unsigned int pending = 0;

		for (i = 0; i < MAX_PIPES; i++) {
			pipe_flush(a, &a->pipes[i]);
			pfds[i] = (struct pollfd){ .fd = a->pipes[i].len ? a->pipes[i].fd : -1,
						   .events = POLLOUT };
			pending += pfds[i].fd >= 0;
		}
		if (!pending || mono_ns() >= deadline)
			break;
		poll(pfds, MAX_PIPES, 50);
	}
	pthread_mutex_unlock(&a->lock);
	if (n)
		mk_info("advise-router: %u announcement(s) withdrawn at shutdown", n);
	return NULL;
}

/* ---- set-up ----------------------------------------------------------------------- */

/* The sensor's addresses (its namespace's), never announced. */
static int own_addresses(struct mk_advisor *a)
{
	struct ifaddrs *ifs, *i;
	unsigned int n = 0;

	if (getifaddrs(&ifs))
		return -errno;
	for (i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr &&
		    (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6))
			n++;
	a->own = calloc(n ? n : 1, sizeof(*a->own));
	if (!a->own) {
		freeifaddrs(ifs);
		return -ENOMEM;
	}
	for (i = ifs; i; i = i->ifa_next) {
		struct mk_cidr *c = &a->own[a->nown];

		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			memcpy(c->addr, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
			c->family = MK_FAMILY_IPV4;
			c->prefix = 32;
			a->nown++;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			memcpy(c->addr, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
			c->family = MK_FAMILY_IPV6;
			c->prefix = 128;
			a->nown++;
		}
	}
	freeifaddrs(ifs);
	return 0;
}

static int socket_open(struct mk_advisor *a)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = a->cfg->socket;
	char dir[sizeof(sa.sun_path)], *slash;
	gid_t gid = (gid_t)-1;
	struct stat st;
	int err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		mk_err("advise-router.socket: '%s' is longer than %zu bytes", path,
		       sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	/* its directory (/run/meerkat) may not exist yet after a reboot */
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			err = -errno;
			mk_err("advise-router.socket: cannot create %s: %s", dir, strerror(-err));
			return err;
		}
	}
	/* a socket left by a previous run goes; a live one or anything else is not ours */
	if (!lstat(path, &st)) {
		int probe;

		if (!S_ISSOCK(st.st_mode)) {
			mk_err("advise-router.socket: %s exists and is not a socket", path);
			return -EEXIST;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			mk_err("advise-router.socket: %s is in use by another process (a second "
			       "meerkat?)",
			       path);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		unlink(path);
	}
	if (a->cfg->socket_group[0]) {
		struct group *g = getgrnam(a->cfg->socket_group);

		if (!g) {
			mk_err("advise-router.socket-group: no group '%s'", a->cfg->socket_group);
			return -ENOENT;
		}
		gid = g->gr_gid;
	}
	a->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->lfd >= 0 && !bind(a->lfd, (struct sockaddr *)&sa, sizeof(sa)))
		a->bound = 1;
	if (!a->bound || chmod(path, a->cfg->socket_mode) ||
	    (gid != (gid_t)-1 && chown(path, -1, gid)) || listen(a->lfd, MAX_PIPES)) {
		err = -errno;
		mk_err("advise-router.socket: %s: %s", path, strerror(-err));
		return err;
	}
	return 0;
}

int mk_advisor_new(struct mk_advisor **out, const struct mk_advise_cfg *cfg, unsigned int nworkers,
		   void (*record)(void *ctx, const char *line, size_t len), void *ctx)
{
	struct mk_advise_out o = { .command = out_command, .record = out_record };
	struct mk_advisor *a = calloc(1, sizeof(*a));
	unsigned int i;
	int err;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->cfg = cfg;
	a->lfd = -1;
	a->record = record;
	a->record_ctx = ctx;
	a->nworkers = nworkers;
	pthread_mutex_init(&a->lock, NULL);
	for (i = 0; i < MAX_PIPES; i++)
		a->pipes[i].fd = -1;
	a->rings = calloc(nworkers, sizeof(*a->rings));
	a->wcnt = aligned_alloc(MK_CACHELINE, nworkers * sizeof(*a->wcnt));
	err = a->rings && a->wcnt ? 0 : -ENOMEM;
	if (a->wcnt)
		memset(a->wcnt, 0, nworkers * sizeof(*a->wcnt));
	for (i = 0; !err && i < nworkers; i++)
		err = mk_spsc_init(&a->rings[i], cfg->queue_size, sizeof(struct mk_advise_req));
	if (!err)
		err = own_addresses(a);
	o.ctx = a;
	if (!err)
		err = mk_advise_table_init(&a->table, cfg, a->own, a->nown, &o);
	if (err) {
		mk_err("advise-router: %s", strerror(-err));
		goto err_free;
	}
	err = socket_open(a);
	if (err)
		goto err_free;
	*out = a;
	return 0;

err_free:
	mk_advisor_free(a);
	return err;
}

int mk_advisor_start(struct mk_advisor *a)
{
	int err = -pthread_create(&a->thread, NULL, advisor_main, a);

	if (err) {
		mk_err("advise-router: announcer thread: %s", strerror(-err));
		return err;
	}
	a->started = 1;
	mk_info("advise-router: %s announcements for %us at most %u, pipes connect to %s",
		a->cfg->mode == MK_ADVISE_FLOWSPEC ? "flowspec" : "blackhole", a->cfg->ttl,
		a->cfg->max_active, a->cfg->socket);
	return 0;
}

void mk_advisor_alert(struct mk_advisor *a, unsigned int worker, const struct mk_detect_alert *al)
{
	struct mk_detect_rule_info ri;
	struct mk_advise_req r;
	struct worker_cnt *c = &a->wcnt[worker];

	if (!al->rule)
		return;
	mk_detect_rule_info(al->rule, &ri);
	if (!mk_advise_select(a->cfg, &ri))
		return;
	/* one writer per slot: a plain increment, published for the stats reader */
	atomic_store_explicit(&c->selected,
			      atomic_load_explicit(&c->selected, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	mk_advise_req_fill(&r, al, &ri);
	if (mk_spsc_push(&a->rings[worker], &r))
		atomic_store_explicit(&c->dropped,
				      atomic_load_explicit(&c->dropped, memory_order_relaxed) + 1,
				      memory_order_relaxed);
}

void mk_advisor_stop(struct mk_advisor *a)
{
	if (!a || !a->started)
		return;
	atomic_store_explicit(&a->stop, 1, memory_order_release);
	pthread_join(a->thread, NULL);
	a->started = 0;
}

void mk_advisor_free(struct mk_advisor *a)
{
	unsigned int i;

	if (!a)
		return;
	mk_advisor_stop(a);
	for (i = 0; i < MAX_PIPES; i++)
		pipe_close(a, &a->pipes[i], NULL);
	if (a->lfd >= 0)
		close(a->lfd);
	if (a->bound)
		unlink(a->cfg->socket);
	for (i = 0; a->rings && i < a->nworkers; i++)
		mk_spsc_destroy(&a->rings[i]);
	free(a->rings);
	free(a->wcnt);
	mk_advise_table_free(&a->table);
	free(a->own);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

json_t *mk_advisor_stats_json(struct mk_advisor *a)
{
	uint64_t cnt[MK_ADVISE_CNT_MAX];
	json_t *o = json_object();
	unsigned int k, w, active, pipes = 0;

	pthread_mutex_lock(&a->lock);
	memcpy(cnt, a->table.cnt, sizeof(cnt));
	active = a->table.active;
	for (k = 0; k < MAX_PIPES; k++)
		pipes += a->pipes[k].fd >= 0;
	pthread_mutex_unlock(&a->lock);
	for (w = 0; w < a->nworkers; w++) {
		cnt[MK_ADVISE_SELECTED] +=
			atomic_load_explicit(&a->wcnt[w].selected, memory_order_relaxed);
		cnt[MK_ADVISE_QUEUE_DROPPED] +=
			atomic_load_explicit(&a->wcnt[w].dropped, memory_order_relaxed);
	}
	for (k = 0; k < MK_ADVISE_CNT_MAX; k++)
		json_object_set_new(o, mk_advise_counter_names[k],
				    json_integer((json_int_t)cnt[k]));
	json_object_set_new(o, "active", json_integer(active));
	json_object_set_new(o, "pipes", json_integer(pipes));
	return o;
}
