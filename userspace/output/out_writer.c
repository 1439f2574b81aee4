// SPDX-License-Identifier: GPL-2.0-only
/* One EVE output's buffer, thread and sink (out_writer.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "eve_sink.h"
#include "log.h"
#include "out_registry.h"
#include "out_unix.h"
#include "out_writer.h"

#define BATCH_MAX (256u << 10) /* bytes the thread takes from the buffer at once */
#define TICK_MS 100	       /* the thread wakes this often: rotation, polls, back-off */
#define SEND_WAIT_MS 200       /* a socket send waits this long for room, then re-checks */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define IOV_MAX_RECS 1024

#define X(e, n, d) [MK_OUT_##e] = n,
const char *const mk_out_cnt_names[MK_OUT_CNT_MAX] = { MK_OUT_COUNTERS(X) };
#undef X

struct mk_out_writer {
	struct mk_eve_cfg cfg;
	unsigned int index;
	int sync;
	char name[32];	       /* "outputs[1]" */
	char target[PATH_MAX]; /* the file or socket; the transport's name */

	/* the buffer, under lock */
	pthread_mutex_t lock;
	pthread_cond_t more; /* records were added, or stop/reopen */
	pthread_cond_t room; /* the thread took records (backpressure waits on it) */
	char *ring;
	size_t cap, head, used; /* head: where the oldest byte is */
	int stop, reopen;
	int down; /* the sink is unreachable now (a socket, a service) */
	int busy; /* the thread holds records taken from the buffer, not yet done */
	uint64_t cnt[MK_OUT_CNT_MAX];

	pthread_t thread;
	int started;

	/* the thread's own */
	char *batch;
	size_t batch_cap, batch_len, batch_off;
	uint64_t batch_recs;
	struct mk_eve_sink file;
	int file_open;
	char pattern[PATH_MAX]; /* the filename with strftime fields, for rotation */
	uint64_t next_rotate_s;
	struct mk_out_sock sock;
	const struct mk_out_transport *tr;
	void *tr_priv;
	struct iovec *iov;
	int connected_once;
	int last_err; /* logged once per change */
	uint64_t retry_at_ms;
	unsigned int backoff_ms;
	uint64_t last_poll_ms;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000;
}

static int is_socket_kind(const struct mk_out_writer *w)
{
	return w->cfg.filetype != MK_EVE_FILETYPE_REGULAR;
}

/* ---- the regular file, with rotate-interval ---------------------------------------------- */

/* The file's path now: the pattern with its strftime fields filled in (local time). */
static void file_path(struct mk_out_writer *w, time_t now, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&now, &tm);
	if (!strchr(w->pattern, '%') || !strftime(buf, len, w->pattern, &tm))
		snprintf(buf, len, "%s", w->pattern);
}

static void file_rotate(struct mk_out_writer *w, time_t now)
{
	char path[PATH_MAX], base[PATH_MAX + 24], old[PATH_MAX + 32];
	struct stat sb;
	struct tm tm;
	unsigned int i;

	if (strchr(w->pattern, '%')) {
		/* a new name from the pattern; if it cannot be opened, the old file again */
		file_path(w, now, path, sizeof(path));
		if (!strcmp(path, w->file.path))
			return;
		snprintf(old, sizeof(old), "%s", w->file.path);
		mk_eve_sink_close(&w->file);
		if (mk_eve_sink_open(&w->file, path, false)) {
			if (mk_eve_sink_open(&w->file, old, false))
				w->file_open = 0; /* both logged; records are lost, counted */
			return;
		}
		pthread_mutex_lock(&w->lock);
		snprintf(w->target, sizeof(w->target), "%s", path);
		pthread_mutex_unlock(&w->lock);
	} else {
		/* one name: the finished file gets the time as a suffix (-N if taken) */
		localtime_r(&now, &tm);
		snprintf(base, sizeof(base), "%s.", w->file.path);
		strftime(base + strlen(base), sizeof(base) - strlen(base), "%Y%m%d-%H%M%S", &tm);
		snprintf(old, sizeof(old), "%s", base);
		for (i = 1; !stat(old, &sb) && i < 100; i++)
			snprintf(old, sizeof(old), "%s-%u", base, i);
		if (rename(w->file.path, old)) {
			mk_err("%s: %s: cannot rotate to %s: %s", w->name, w->file.path, old,
			       strerror(errno));
			return;
		}
		if (mk_eve_sink_reopen(&w->file))
			return;
	}
	pthread_mutex_lock(&w->lock);
	w->cnt[MK_OUT_ROTATIONS]++;
	pthread_mutex_unlock(&w->lock);
}

static int file_open(struct mk_out_writer *w, const char *log_dir, int truncate)
{
	char path[PATH_MAX];
	int n;

	if (w->cfg.filename[0] == '/' || !log_dir)
		n = snprintf(w->pattern, sizeof(w->pattern), "%s", w->cfg.filename);
	else
		n = snprintf(w->pattern, sizeof(w->pattern), "%s/%s", log_dir, w->cfg.filename);
	if (n < 0 || n >= (int)sizeof(w->pattern)) {
		mk_err("%s: %s: %s", w->name, w->cfg.filename, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	file_path(w, time(NULL), path, sizeof(path));
	snprintf(w->target, sizeof(w->target), "%s", path);
	if (mk_eve_sink_open(&w->file, path, truncate))
		return -EIO; /* logged by the sink */
	w->file_open = 1;
	if (w->cfg.rotate_interval)
		w->next_rotate_s = ((uint64_t)time(NULL) / w->cfg.rotate_interval + 1) *
				   w->cfg.rotate_interval;
	return 0;
}

/* ---- the sinks, as the thread drives them ------------------------------------------------- */

static void count(struct mk_out_writer *w, uint64_t sent, uint64_t lost, uint64_t bytes)
{
	pthread_mutex_lock(&w->lock);
	w->cnt[MK_OUT_WRITTEN] += sent;
	w->cnt[MK_OUT_LOST] += lost;
	w->cnt[MK_OUT_BYTES] += bytes;
	pthread_mutex_unlock(&w->lock);
}

static void set_down(struct mk_out_writer *w, int down)
{
	pthread_mutex_lock(&w->lock);
	if (w->down != down) {
		w->down = down;
		pthread_cond_broadcast(&w->room);
	}
	pthread_mutex_unlock(&w->lock);
}

static void report(struct mk_out_writer *w, int err)
{
	set_down(w, err != 0);
	if (err && err != w->last_err)
		mk_warn("%s: %s %s: %s; records wait in its buffer (%llu bytes), then are dropped "
			"and counted",
			w->name, mk_output_filetype_name(w->cfg.filetype), w->target,
			strerror(-err), (unsigned long long)w->cfg.buffer_size);
	else if (!err && w->last_err)
		mk_info("%s: %s connected again", w->name, w->target);
	w->last_err = err;
}

/* A connection, when the back-off allows one. 0 when connected. */
static int sink_connect(struct mk_out_writer *w)
{
	char why[256] = "";
	int err = 0;

	if (w->cfg.filetype == MK_EVE_FILETYPE_REDIS || w->cfg.filetype == MK_EVE_FILETYPE_KAFKA) {
		if (mono_ms() < w->retry_at_ms)
			return -ENOTCONN; /* in its back-off */
		if (w->tr_priv)
			return 0;
		w->tr_priv = w->tr->create(w->cfg.kv, w->cfg.nkv, why, sizeof(why));
		if (!w->tr_priv) {
			if (w->last_err != -EINVAL)
				mk_err("%s: %s: %s", w->name, w->tr->name, why);
			w->last_err = -EINVAL;
			set_down(w, 1);
			w->retry_at_ms = mono_ms() + w->backoff_ms;
			w->backoff_ms = w->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS :
									     w->backoff_ms * 2;
			return -EINVAL;
		}
		return 0;
	}
	if (w->sock.fd >= 0)
		return 0;
	if (mono_ms() < w->retry_at_ms)
		return -ENOTCONN; /* in its back-off */
	err = mk_out_sock_connect(&w->sock);
	report(w, err);
	if (err) {
		w->retry_at_ms = mono_ms() + w->backoff_ms;
		w->backoff_ms = w->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS :
								     w->backoff_ms * 2;
		return err;
	}
	w->backoff_ms = BACKOFF_MIN_MS;
	if (w->connected_once) {
		pthread_mutex_lock(&w->lock);
		w->cnt[MK_OUT_RECONNECTS]++;
		pthread_mutex_unlock(&w->lock);
	}
	w->connected_once = 1;
	return 0;
}

/* Records of the batch to a transport, in order, up to IOV_MAX_RECS a call. */
static int send_transport(struct mk_out_writer *w)
{
	const char *p = w->batch + w->batch_off, *end = w->batch + w->batch_len, *nl;
	size_t n = 0, i;
	uint64_t bytes = 0;
	int r;

	while (p < end && n < IOV_MAX_RECS) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		w->iov[n++] = (struct iovec){ .iov_base = (void *)p, .iov_len = (size_t)(nl - p) };
		p = nl + 1;
	}
	r = w->tr->send(w->tr_priv, w->iov, n);
	if (!r)
		return -ENOBUFS; /* nothing taken, no error: again after a tick */
	if (r < 0) {
		report(w, r);
		w->retry_at_ms = mono_ms() + w->backoff_ms;
		w->backoff_ms = w->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS :
								     w->backoff_ms * 2;
		return r;
	}
	if (r > 0 && w->last_err) {
		report(w, 0);
		pthread_mutex_lock(&w->lock);
		w->cnt[MK_OUT_RECONNECTS]++;
		pthread_mutex_unlock(&w->lock);
	}
	w->backoff_ms = BACKOFF_MIN_MS;
	for (i = 0; i < (size_t)r && i < n; i++) {
		bytes += w->iov[i].iov_len + 1;
		w->batch_off += w->iov[i].iov_len + 1;
	}
	if (w->batch_off > w->batch_len)
		w->batch_off = w->batch_len;
	count(w, (uint64_t)r, 0, bytes);
	return (size_t)r < n ? -EAGAIN : 0;
}

/*
 * Sends what is left of the batch. 0 when it is done, -EAGAIN when the sink
 * took only part of it for now, another -errno when the sink is gone.
 */
static int sink_send(struct mk_out_writer *w)
{
	struct mk_out_progress p = { 0 };
	int err;

	if (w->cfg.filetype == MK_EVE_FILETYPE_REGULAR) {
		/* a failed write is the sink's to log; its records are lost */
		err = mk_eve_sink_write(&w->file, w->batch + w->batch_off,
					w->batch_len - w->batch_off, w->batch_recs);
		if (err)
			count(w, 0, w->batch_recs, 0);
		else
			count(w, w->batch_recs, 0, w->batch_len - w->batch_off);
		w->batch_off = w->batch_len;
		return 0;
	}
	err = sink_connect(w);
	if (err)
		return err;
	if (w->tr)
		return send_transport(w);
	err = mk_out_sock_send(&w->sock, w->batch + w->batch_off, w->batch_len - w->batch_off, &p,
			       SEND_WAIT_MS);
	w->batch_off += p.done;
	count(w, p.sent, p.lost, p.bytes);
	if (err) {
		report(w, err);
		w->retry_at_ms = mono_ms() + w->backoff_ms;
		return err;
	}
	return w->batch_off < w->batch_len ? -EAGAIN : 0;
}

/* ---- the buffer ---------------------------------------------------------------------------- */

static void ring_put(struct mk_out_writer *w, const char *buf, size_t len)
{
	size_t at = (w->head + w->used) % w->cap, first = w->cap - at;

	if (first > len)
		first = len;
	memcpy(w->ring + at, buf, first);
	memcpy(w->ring, buf + first, len - first);
	w->used += len;
	if (w->used > w->cnt[MK_OUT_HIGH_WATER])
		w->cnt[MK_OUT_HIGH_WATER] = w->used;
}

/* Room for @len bytes: waits for it with backpressure; 0 when the record is to be dropped. */
static int ring_room(struct mk_out_writer *w, size_t len)
{
	if (len > w->cap)
		return 0;
	while (w->cap - w->used < len) {
		if (!(w->sync || w->cfg.backpressure) || w->stop || !w->started)
			return 0;
		/* offline: a sink that is down drops (counted) instead of holding up the run */
		if (w->down && !w->cfg.backpressure)
			return 0;
		pthread_cond_signal(&w->more);
		pthread_cond_wait(&w->room, &w->lock);
	}
	return 1;
}

uint64_t mk_out_writer_push(struct mk_out_writer *w, const char *buf, size_t len, uint64_t nrecs)
{
	const char *p = buf, *end = buf + len, *nl;
	uint64_t dropped = 0;

	if (!len)
		return 0;
	pthread_mutex_lock(&w->lock);
	if (ring_room(w, len)) {
		ring_put(w, buf, len);
	} else {
		/* record by record: what fits goes in, the rest is dropped */
		for (; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				nl = end - 1;
			if (ring_room(w, (size_t)(nl + 1 - p)))
				ring_put(w, p, (size_t)(nl + 1 - p));
			else
				dropped++;
		}
		w->cnt[MK_OUT_DROPPED] += dropped;
	}
	(void)nrecs;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
	return dropped;
}

void mk_out_writer_lock(struct mk_out_writer *w)
{
	pthread_mutex_lock(&w->lock);
}

int mk_out_writer_add(struct mk_out_writer *w, const char *rec, size_t len)
{
	if (!ring_room(w, len)) {
		w->cnt[MK_OUT_DROPPED]++;
		return 1;
	}
	ring_put(w, rec, len);
	return 0;
}

void mk_out_writer_unlock(struct mk_out_writer *w)
{
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
}

/* Under lock: moves whole records (up to BATCH_MAX bytes, or one bigger record) into the batch. */
static void take_batch(struct mk_out_writer *w)
{
	size_t n = w->used < BATCH_MAX ? w->used : BATCH_MAX, first, i;
	uint64_t recs = 0;

	if (n > w->batch_cap)
		n = w->batch_cap;
	first = w->cap - w->head;
	if (first > n)
		first = n;
	memcpy(w->batch, w->ring + w->head, first);
	memcpy(w->batch + first, w->ring, n - first);
	/* whole records only: back to the last newline, or on to the end of a long record */
	while (n && w->batch[n - 1] != '\n')
		n--;
	if (!n) {
		/* one record longer than the batch: never, the batch is as big as the buffer */
		n = w->used < w->batch_cap ? w->used : w->batch_cap;
	}
	for (i = 0; i < n; i++)
		recs += w->batch[i] == '\n';
	w->head = (w->head + n) % w->cap;
	w->used -= n;
	w->batch_len = n;
	w->batch_off = 0;
	w->batch_recs = recs;
	w->busy = 1;
	pthread_cond_broadcast(&w->room);
}

/* ---- the thread ---------------------------------------------------------------------------- */

static void ticks(struct mk_out_writer *w)
{
	uint64_t now = mono_ms();
	time_t t;

	if (w->cfg.filetype == MK_EVE_FILETYPE_REGULAR && w->cfg.rotate_interval) {
		t = time(NULL);
		if ((uint64_t)t >= w->next_rotate_s) {
			file_rotate(w, t);
			w->next_rotate_s =
				((uint64_t)t / w->cfg.rotate_interval + 1) * w->cfg.rotate_interval;
		}
	}
	if (w->tr && w->tr_priv && w->tr->poll && now - w->last_poll_ms >= TICK_MS) {
		w->last_poll_ms = now;
		w->tr->poll(w->tr_priv);
	}
}

/* What a stop leaves behind after the drain time: lost, and said so. */
static void give_up(struct mk_out_writer *w)
{
	uint64_t recs = 0;
	size_t i;

	for (i = w->batch_off; i < w->batch_len; i++)
		recs += w->batch[i] == '\n';
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->used; i++)
		recs += w->ring[(w->head + i) % w->cap] == '\n';
	w->used = 0;
	w->cnt[MK_OUT_LOST] += recs;
	pthread_mutex_unlock(&w->lock);
	w->batch_len = w->batch_off = 0;
	if (recs)
		mk_warn("%s: %s: %llu records not delivered at the end (counted as lost)", w->name,
			w->target, (unsigned long long)recs);
}

static void *writer_main(void *arg)
{
	struct mk_out_writer *w = arg;
	uint64_t deadline = 0;
	struct timespec ts;
	sigset_t all;
	int stop, reopen, err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		pthread_mutex_lock(&w->lock);
		if (w->batch_off >= w->batch_len && !w->used && !w->stop && !w->reopen) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += TICK_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&w->more, &w->lock, &ts);
		}
		if (w->batch_off >= w->batch_len && w->used)
			take_batch(w);
		stop = w->stop;
		reopen = w->reopen;
		w->reopen = 0;
		pthread_mutex_unlock(&w->lock);

		if (stop && !deadline)
			deadline = mono_ms() + (uint64_t)(stop > 1 ? stop : 1);
		if (reopen && w->file_open) {
			if (!mk_eve_sink_reopen(&w->file))
				mk_info("%s: %s reopened", w->name, w->file.path);
		}
		ticks(w);
		if (w->batch_off < w->batch_len) {
			err = sink_send(w);
			if (err && err != -EAGAIN && !stop) {
				/* gone: wait for the back-off, waking for stop */
				pthread_mutex_lock(&w->lock);
				if (!w->stop) {
					clock_gettime(CLOCK_REALTIME, &ts);
					ts.tv_nsec += TICK_MS * 1000000L;
					if (ts.tv_nsec >= 1000000000L) {
						ts.tv_sec++;
						ts.tv_nsec -= 1000000000L;
					}
					pthread_cond_timedwait(&w->more, &w->lock, &ts);
				}
				pthread_mutex_unlock(&w->lock);
			} else if (err && stop) {
				usleep(10000);
			}
			if (w->batch_off >= w->batch_len) {
				pthread_mutex_lock(&w->lock);
				w->busy = 0;
				pthread_mutex_unlock(&w->lock);
			}
		}
		if (stop) {
			int empty;

			pthread_mutex_lock(&w->lock);
			empty = !w->used && w->batch_off >= w->batch_len;
			pthread_mutex_unlock(&w->lock);
			if (empty)
				break;
			if (is_socket_kind(w) && mono_ms() >= deadline) {
				give_up(w);
				break;
			}
		}
	}
	return NULL;
}

/* ---- life ---------------------------------------------------------------------------------- */

int mk_out_writer_new(struct mk_out_writer **out, const struct mk_eve_cfg *cfg, unsigned int index,
		      const char *log_dir, int truncate, int sync)
{
	return mk_out_writer_new_with(
		out, cfg, index, log_dir, truncate, sync,
		mk_out_transport_find(mk_output_filetype_name(cfg->filetype)));
}

int mk_out_writer_new_with(struct mk_out_writer **out, const struct mk_eve_cfg *cfg,
			   unsigned int index, const char *log_dir, int truncate, int sync,
			   const struct mk_out_transport *tr)
{
	struct mk_out_writer *w = calloc(1, sizeof(*w));
	int err = -ENOMEM;
	char path[PATH_MAX];

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->cfg = *cfg;
	w->index = index;
	w->sync = sync;
	w->sock.fd = -1;
	w->backoff_ms = BACKOFF_MIN_MS;
	snprintf(w->name, sizeof(w->name), "outputs[%u]", index);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	w->cap = cfg->buffer_size ? cfg->buffer_size : MK_EVE_BUFFER_DEFAULT;
	w->batch_cap = w->cap;
	w->ring = malloc(w->cap);
	w->batch = malloc(w->batch_cap);
	w->iov = calloc(IOV_MAX_RECS, sizeof(*w->iov));
	if (!w->ring || !w->batch || !w->iov) {
		mk_err("%s: no memory for a %zu-byte buffer", w->name, w->cap);
		goto fail;
	}
	switch (cfg->filetype) {
	case MK_EVE_FILETYPE_REGULAR:
		err = file_open(w, log_dir, truncate || !cfg->append);
		break;
	case MK_EVE_FILETYPE_UNIX_DGRAM:
	case MK_EVE_FILETYPE_UNIX_STREAM:
		if (cfg->filename[0] == '/' || !log_dir)
			snprintf(path, sizeof(path), "%s", cfg->filename);
		else
			snprintf(path, sizeof(path), "%s/%s", log_dir, cfg->filename);
		snprintf(w->target, sizeof(w->target), "%s", path);
		err = mk_out_sock_init(&w->sock, path, cfg->filetype == MK_EVE_FILETYPE_UNIX_STREAM,
				       0, 0, NULL);
		break;
	case MK_EVE_FILETYPE_SYSLOG:
		snprintf(w->target, sizeof(w->target), "%s", cfg->syslog_socket);
		err = mk_out_sock_init(&w->sock, cfg->syslog_socket, 0, 1,
				       (unsigned int)cfg->facility * 8u + cfg->level,
				       cfg->identity);
		break;
	default:
		w->tr = tr;
		snprintf(w->target, sizeof(w->target), "%s",
			 mk_output_filetype_name(cfg->filetype));
		err = w->tr ? 0 : -EOPNOTSUPP;
	}
	if (err) {
		if (err != -EIO)
			mk_err("%s: %s %s: %s", w->name, mk_output_filetype_name(cfg->filetype),
			       w->target, strerror(-err));
		goto fail;
	}
	*out = w;
	return 0;
fail:
	mk_out_writer_free(w, 0);
	return err;
}

int mk_out_writer_start(struct mk_out_writer *w)
{
	int err = pthread_create(&w->thread, NULL, writer_main, w);

	if (err) {
		mk_err("%s: cannot start its thread: %s", w->name, strerror(err));
		return -err;
	}
	pthread_mutex_lock(&w->lock);
	w->started = 1;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

uint32_t mk_out_writer_types(const struct mk_out_writer *w)
{
	return w->cfg.types;
}

void mk_out_writer_reopen(struct mk_out_writer *w)
{
	pthread_mutex_lock(&w->lock);
	w->reopen = 1;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
}

void mk_out_writer_counts(struct mk_out_writer *w, uint64_t cnt[MK_OUT_CNT_MAX])
{
	pthread_mutex_lock(&w->lock);
	memcpy(cnt, w->cnt, sizeof(w->cnt));
	cnt[MK_OUT_BUFFERED] = w->used;
	pthread_mutex_unlock(&w->lock);
}

json_t *mk_out_writer_json(struct mk_out_writer *w)
{
	uint64_t cnt[MK_OUT_CNT_MAX];
	json_t *o = json_pack("{s:s,s:s,s:s}", "name", w->name, "filetype",
			      mk_output_filetype_name(w->cfg.filetype), "target", w->target);
	unsigned int k;

	mk_out_writer_counts(w, cnt);
	for (k = 0; k < MK_OUT_CNT_MAX; k++)
		json_object_set_new(o, mk_out_cnt_names[k], json_integer((json_int_t)cnt[k]));
	/*
	 * the transport's own counters, under its name ("redis": {...}): its
	 * thread may be sending, it locks what it shares
	 */
	if (w->tr && w->tr->stats && w->tr_priv) {
		json_t *t = json_object();

		w->tr->stats(w->tr_priv, t);
		json_object_set_new(o, w->tr->name, t);
	}
	return o;
}

int mk_out_writer_idle(struct mk_out_writer *w)
{
	int idle;

	pthread_mutex_lock(&w->lock);
	idle = !w->used && !w->busy;
	pthread_mutex_unlock(&w->lock);
	return idle;
}

void mk_out_writer_stop(struct mk_out_writer *w, unsigned int drain_ms)
{
	if (!w || !w->started)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = drain_ms ? (int)drain_ms : 1;
	pthread_cond_broadcast(&w->more);
	pthread_cond_broadcast(&w->room);
	pthread_mutex_unlock(&w->lock);
}

void mk_out_writer_join(struct mk_out_writer *w)
{
	if (!w || !w->started)
		return;
	pthread_join(w->thread, NULL);
	pthread_mutex_lock(&w->lock);
	w->started = 0;
	pthread_mutex_unlock(&w->lock);
}

void mk_out_writer_free(struct mk_out_writer *w, unsigned int drain_ms)
{
	if (!w)
		return;
	mk_out_writer_stop(w, drain_ms);
	mk_out_writer_join(w);
	if (w->tr && w->tr_priv)
		w->tr->destroy(w->tr_priv, drain_ms);
	mk_out_sock_close(&w->sock);
	if (w->file_open)
		mk_eve_sink_close(&w->file);
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->more);
	pthread_mutex_destroy(&w->lock);
	free(w->iov);
	free(w->batch);
	free(w->ring);
	free(w);
}
