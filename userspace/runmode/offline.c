// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline mode. The reader thread plays the XDP program's part: parse,
 * decapsulate, hash, CIDR bypass, w = itable[hash % 256]. Each worker thread
 * runs the per-worker pipeline (pipeline/worker.c, the same code as live
 * mode) on a shared-nothing flow table. What is offline-specific lives here:
 * the pcap reader's dispatch, the queues, and the deterministic record order.
 *
 * Determinism: a worker's decisions depend only on its packets and on TICK
 * records, which the reader broadcasts to every worker in file order whenever
 * packet time enters a new second; a flow's packets and the ticks therefore
 * interleave the same way whatever the worker count.
 *
 * Output: a flow ends in "epoch" k when the worker has seen k ticks, and that
 * number is the same whatever the worker count. On each tick a worker seals
 * its records of the epoch just finished into a chunk; the reader writes every
 * epoch all workers have sealed, sorted by (epoch, start, flow_id), where
 * flow_id comes from key + seed + start time, never from a counter. eve.json
 * thus grows during the run and memory holds about one second of flow ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "eve.h"
#include "outputs.h"
#include "log.h"
#include "offline.h"
#include "offline_read.h"
#include "parse.h"
#include "pcap_source.h"
#include "pktq.h"
#include "spsc.h"
#include "worker.h"

#define MK_OFF_CNT_NAME(name, str, doc) [MK_OFF_##name] = str,
const char *const mk_off_counter_names[MK_OFF_CNT_MAX] = { MK_OFF_READER_COUNTERS(
	MK_OFF_CNT_NAME) };
#undef MK_OFF_CNT_NAME

#define PKTQ_SIZE (2u << 20)
#define DGRAM_RING_SLOTS 1024
#define PROGRESS_NS 250000000ull /* 4 updates per second at most */

/* TICK and END records. */
struct tick_rec {
	uint64_t now_us;
	uint64_t seq;
	uint64_t frag_before;
};

/* What the reader has made visible in every queue (ordered hand-off, below). */
struct dispatch_state {
	_Alignas(64) _Atomic uint64_t flushed_seq;
};

/* One epoch of one worker's EVE records, handed to the writer. */
struct eve_chunk {
	struct mk_eve_buf buf;
	uint64_t epoch;
	struct eve_chunk *next;
};

struct worker {
	pthread_t thread;
	unsigned int id;
	struct mk_worker pipe; /* the pipeline proper */
	struct mk_pktq q;
	struct mk_eve_buf eve;	   /* records of the current epoch */
	uint64_t epoch;		   /* ticks seen */
	uint64_t seq;		   /* of the record being handled: hand-offs carry it */
	struct mk_spsc *mesh;	   /* n x n rings: mesh[from * n + to] */
	struct mk_off_pkt **stash; /* per source: next hand-off popped, not yet due */
	struct worker *peers;	   /* all workers, for their progress */
	struct dispatch_state *disp;
	uint64_t drained_frag; /* hand-offs from fragments up to this seq are all in */
	_Alignas(64) _Atomic uint64_t progress; /* own records with seq <= this are done */
	_Atomic uint64_t wait_for; /* asleep: wake me when a peer's progress reaches this */
	unsigned int nworkers;
	pthread_mutex_t lock; /* guards the sealed list */
	struct eve_chunk *sealed_head, *sealed_tail;
	_Atomic uint64_t sealed_epoch; /* every record of an epoch below this is sealed */
	/* frames of the reader's batch @held done and not yet given back (offline_read.h) */
	struct mk_off_batch *held;
	uint32_t held_refs;
	int err;
	int started;
	uint64_t cpu_ns; /* the thread's CPU time, when it ended */
};

const char *mk_offline_features(void)
{
	return "defrag stream";
}

/*
 * The default: a lane for each CPU the workers and the dispatcher leave, up
 * to 4; none (the dispatcher reads) when they leave none. On 2 busy CPUs
 * a lane costs up to a fifth more CPU time and saves no wall time
 * (docs/performance.md, section 5).
 */
#define DEFAULT_MAX_LANES 4

unsigned int mk_offline_reader_threads(unsigned int asked, unsigned int workers)
{
	cpu_set_t set;
	long ncpu, lanes;

	if (asked)
		return asked;
	if (!sched_getaffinity(0, sizeof(set), &set))
		ncpu = CPU_COUNT(&set);
	else
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	lanes = ncpu - (long)workers - 1;
	if (lanes < 0)
		lanes = 0;
	if (lanes > DEFAULT_MAX_LANES)
		lanes = DEFAULT_MAX_LANES;
	return 1 + (unsigned int)lanes;
}

/* ---- ordered hand-off -------------------------------------------------- */

/*
 * Gives the references of the frames done back to their batch, which is
 * freed when every worker has: once per run of frames from one batch, and
 * before the worker waits, so that a lane never waits on a worker that waits.
 */
static void worker_put_refs(struct worker *w)
{
	if (w->held_refs)
		mk_off_batch_put(w->held, w->held_refs);
	w->held = NULL;
	w->held_refs = 0;
}

/*
 * Ordered hand-off. A datagram completed by worker A while it handled record
 * seq f must reach its owner B exactly between B's records f and f + 1, as it
 * does with one worker, or flow starts, timeouts and epochs could differ with
 * the worker count. So every record and hand-off carries the reader's
 * sequence number and the seq of the last fragment dispatched before it;
 * each worker publishes `progress` (all its own records up to it are done).
 * Hand-offs only come from fragments, so before B handles record x it waits
 * until every peer's progress reaches the last fragment before x (then all
 * hand-offs below x are in its rings) and handles those first, in seq order.
 * An idle worker's progress is the reader's flushed_seq, so nobody waits on
 * an idle peer.
 */
/* ops.handoff: a copy travels on the SPSC ring to its owner, stamped with our seq. */
static int worker_handoff(void *ctx, unsigned int to, const struct mk_pkt *pkt)
{
	struct worker *w = ctx;
	struct mk_off_pkt *h = malloc(sizeof(*h) + pkt->ip_caplen);

	if (!h)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	h->ts_us = pkt->ts_us;
	h->seq = w->seq; /* handled where the completing fragment was */
	h->ip_caplen = pkt->ip_caplen;
	h->parse = *pkt->parse;
	memcpy(h + 1, pkt->ip, pkt->ip_caplen);
	if (mk_spsc_push_ptr(&w->mesh[w->id * w->nworkers + to], h)) {
		free(h);
		return -ENOBUFS;
	}
	mk_bell_ring(&w->peers[to].q.data_bell);
	return 0;
}

static void pkt_of(struct mk_pkt *pkt, const struct mk_off_pkt *h)
{
	pkt->parse = &h->parse;
	pkt->ip = (const uint8_t *)(h + 1);
	pkt->ip_caplen = h->ip_caplen;
	pkt->ip_wirelen = 0; /* a datagram: all of it is there */
	pkt->ts_us = h->ts_us;
}

static struct mk_off_pkt *handoff_next(struct worker *w, unsigned int *src)
{
	struct mk_off_pkt *best = NULL;
	unsigned int from;

	for (from = 0; from < w->nworkers; from++) {
		if (from == w->id)
			continue;
		if (!w->stash[from])
			w->stash[from] = mk_spsc_pop_ptr(&w->mesh[from * w->nworkers + w->id]);
		if (w->stash[from] && (!best || w->stash[from]->seq < best->seq)) {
			best = w->stash[from];
			*src = from;
		}
	}
	return best;
}

static uint64_t peers_progress(struct worker *w)
{
	uint64_t low = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < w->nworkers; i++) {
		uint64_t p;

		if (i == w->id)
			continue;
		p = atomic_load_explicit(&w->peers[i].progress, memory_order_acquire);
		if (p < low)
			low = p;
	}
	return low;
}

/* Publishes @p and wakes the peers that sleep until it. */
static void set_progress(struct worker *w, uint64_t p)
{
	unsigned int i;

	if (atomic_load_explicit(&w->progress, memory_order_relaxed) == p)
		return;
	atomic_store_explicit(&w->progress, p, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	for (i = 0; i < w->nworkers; i++) {
		struct worker *peer = &w->peers[i];

		if (i != w->id &&
		    atomic_load_explicit(&peer->q.data_bell.armed, memory_order_relaxed) &&
		    atomic_load_explicit(&peer->wait_for, memory_order_relaxed) <= p)
			mk_bell_ring(&peer->q.data_bell);
	}
}

/* Wakes every sleeping peer: an idle one then publishes the reader's progress as its own. */
static void ring_peers(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nworkers; i++)
		if (i != w->id)
			mk_bell_ring(&w->peers[i].q.data_bell);
}

static int peers_past_wait(struct worker *w)
{
	return peers_progress(w) >= atomic_load_explicit(&w->wait_for, memory_order_relaxed);
}

/*
 * Sleeps on the worker's bell until a peer's progress reaches @wait_for, a
 * hand-off or records arrive, or @ready(w) would hold; the caller re-checks.
 */
static void worker_sleep(struct worker *w, uint64_t wait_for, int (*ready)(struct worker *))
{
	uint32_t bell;

	atomic_store_explicit(&w->wait_for, wait_for, memory_order_relaxed);
	bell = mk_bell_arm(&w->q.data_bell);
	if (ready(w))
		mk_bell_disarm(&w->q.data_bell);
	else
		mk_bell_sleep(&w->q.data_bell, bell);
}

/* Handles every hand-off with seq below @limit (peers must be past limit - 1). */
static int handoffs_before(struct worker *w, uint64_t limit)
{
	struct mk_off_pkt *h;
	unsigned int src = 0;
	int got = 0;

	while ((h = handoff_next(w, &src)) && h->seq < limit) {
		struct mk_pkt pkt;

		w->stash[src] = NULL;
		pkt_of(&pkt, h);
		mk_worker_datagram(&w->pipe, &pkt);
		free(h);
		got = 1;
	}
	return got;
}

/*
 * Before an own record (seq @seq, last fragment dispatched before it
 * @frag): hand-offs only come from fragments, so wait only until every peer
 * is past the last fragment, then take the hand-offs that are due. With
 * fragments a few percent of the traffic this rarely waits.
 */
static void worker_before_record(struct worker *w, uint64_t seq, uint64_t frag)
{
	unsigned int spins = 0, i;

	if (w->nworkers < 2)
		return;
	set_progress(w, seq - 1);
	if (frag > w->drained_frag) {
		if (peers_progress(w) < frag)
			worker_put_refs(w);
		while (peers_progress(w) < frag) {
			if (++spins < MK_BELL_SPIN) {
				mk_cpu_relax();
				continue;
			}
			/* an idle peer sleeps on a stale progress: wake it to publish */
			ring_peers(w);
			worker_sleep(w, frag, peers_past_wait);
		}
		w->drained_frag = frag;
		handoffs_before(w, seq);
		return;
	}
	for (i = 0; i < w->nworkers; i++) {
		if (w->stash[i] && w->stash[i]->seq < seq) {
			handoffs_before(w, seq);
			return;
		}
	}
}

/* Own queue empty: publish progress, handle hand-offs that are due. */
static int worker_idle(struct worker *w)
{
	uint64_t flushed, low;

	if (w->nworkers < 2)
		return 0;
	flushed = atomic_load_explicit(&w->disp->flushed_seq, memory_order_acquire);
	if (mk_pktq_peek(&w->q))
		return 1;
	/* everything up to flushed was visible and is done */
	set_progress(w, flushed);
	low = peers_progress(w);
	return handoffs_before(w, (flushed < low ? flushed : low) + 1);
}

static int worker_has_work(struct worker *w)
{
	return mk_pktq_peek(&w->q) || worker_idle(w);
}

/* The progress peers must reach before the earliest hand-off waiting here is due. */
static uint64_t earliest_handoff(struct worker *w)
{
	unsigned int src;
	struct mk_off_pkt *h = handoff_next(w, &src);

	return h ? h->seq : UINT64_MAX;
}

/* Past END every peer's hand-offs are in (the wait before END saw to it): take them all. */
static void worker_defrag_finish(struct worker *w)
{
	set_progress(w, UINT64_MAX);
	handoffs_before(w, UINT64_MAX);
}

/* ---- worker ------------------------------------------------------------ */

/* ops.record: kept with its sort key until the epoch is sealed. */
static int worker_record(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
			 size_t len)
{
	struct worker *w = ctx;

	return mk_eve_buf_add(&w->eve, w->epoch, ts_us, f->start_us, f->flow_id, line, len) ?
		       -ENOMEM :
		       0;
}

/* ops.alert: like a record, with its threshold key for the writer's filter. */
static int worker_alert(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
			size_t len, const struct mk_detect_thresh_key *key)
{
	struct worker *w = ctx;

	return mk_eve_buf_add_key(&w->eve, w->epoch, ts_us, f->start_us, f->flow_id, line, len, key,
				  key ? sizeof(*key) : 0) ?
		       -ENOMEM :
		       0;
}

static const struct mk_worker_ops worker_ops = {
	.handoff = worker_handoff,
	.record = worker_record,
	.alert = worker_alert,
};

/* The writer's alert filters: thresholds counted in output order. */
struct alert_filter {
	struct mk_detect_thresh *th;
	uint64_t dropped;
};

static int keep_alert(void *ctx, const void *key, size_t len)
{
	struct alert_filter *af = ctx;
	struct mk_detect_thresh_key k;

	if (len != sizeof(k))
		return 1;
	memcpy(&k, key, sizeof(k)); /* the arena keeps it unaligned */
	if (mk_detect_thresh_filter(af->th, &k, NULL))
		return 1;
	af->dropped++;
	return 0;
}

/* Hands the current epoch's records to the writer and starts the next epoch. */
static void worker_seal_epoch(struct worker *w)
{
	if (w->eve.nrecs) {
		struct eve_chunk *c = calloc(1, sizeof(*c));

		if (!c) {
			w->err = -ENOMEM;
			return;
		}
		c->buf = w->eve;
		c->epoch = w->epoch;
		memset(&w->eve, 0, sizeof(w->eve));
		pthread_mutex_lock(&w->lock);
		if (w->sealed_tail)
			w->sealed_tail->next = c;
		else
			w->sealed_head = c;
		w->sealed_tail = c;
		pthread_mutex_unlock(&w->lock);
	}
	atomic_store_explicit(&w->sealed_epoch, w->epoch + 1, memory_order_release);
	w->epoch++;
}

/* CPU time of the calling thread (docs/security.md reports it per flood). */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct tick_rec *t;
	struct mk_pktq_rec *r;
	unsigned int idle = 0;
	char name[16];

	snprintf(name, sizeof(name), "mk-worker%u", w->id);
	pthread_setname_np(pthread_self(), name); /* for top -H and profiles */
	for (;;) {
		r = mk_pktq_peek(&w->q);
		if (!r) {
			worker_put_refs(w);
			if (worker_idle(w))
				continue;
			if (++idle < MK_BELL_SPIN) {
				mk_cpu_relax();
				continue;
			}
			/* nothing to do: sleep until the reader or a peer rings */
			worker_sleep(w, earliest_handoff(w), worker_has_work);
			continue;
		}
		idle = 0;
		if (r->kind == MK_PKTQ_PKT) {
			const struct mk_off_ref *ref = (const void *)(r + 1);
			const struct mk_off_pkt *h = ref->pkt;
			struct mk_pkt pkt;

			worker_before_record(w, h->seq, h->frag_before);
			pkt_of(&pkt, h);
			pkt.ip_wirelen = h->ip_wirelen;
			w->seq = h->seq;
			mk_worker_packet(&w->pipe, &pkt);
			/* the frame is done: its reference goes back with the others of its batch */
			if (ref->batch != w->held) {
				worker_put_refs(w);
				w->held = ref->batch;
			}
			w->held_refs++;
			mk_pktq_release(&w->q, r);
			continue;
		}
		/* TICK and END: their time, seq and last fragment */
		t = (const struct tick_rec *)(r + 1);
		worker_before_record(w, t->seq, t->frag_before);
		if (r->kind == MK_PKTQ_END) {
			/* the input's last packet time: shutdown records are logged at it */
			mk_worker_advance(&w->pipe, t->now_us);
			mk_pktq_release(&w->q, r);
			break;
		}
		worker_seal_epoch(w);
		mk_worker_tick(&w->pipe, t->now_us);
		mk_pktq_release(&w->q, r);
	}
	worker_put_refs(w);
	worker_defrag_finish(w);
	mk_worker_finish(&w->pipe);
	worker_seal_epoch(w);
	w->cpu_ns = thread_cpu_ns();
	return NULL;
}

/* ---- reader ------------------------------------------------------------ */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void progress_line(const struct mk_offline_stats *st, uint64_t t0, int final)
{
	double s = (double)(mono_ns() - t0) / 1e9;

	if (s <= 0)
		s = 1e-9;
	fprintf(stderr, "\r\033[K%s: %llu pkts, %.1f MB, %.0f pkt/s, %.1f MB/s%s", mk_log_prog(),
		(unsigned long long)st->cnt[MK_OFF_READ], (double)st->bytes_read / 1e6,
		(double)st->cnt[MK_OFF_READ] / s, (double)st->bytes_read / 1e6 / s,
		final ? "\n" : "");
}

/* Makes every record up to @seq visible in every queue, then says so. */
static void flush_all(struct worker *ws, unsigned int n, struct dispatch_state *d, uint64_t seq)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		mk_pktq_publish(&ws[i].q);
	atomic_store_explicit(&d->flushed_seq, seq, memory_order_release);
	/* after flushed_seq: an idle worker woken here must find it */
	for (i = 0; i < n; i++)
		mk_pktq_nudge(&ws[i].q);
}

static void broadcast(struct worker *ws, unsigned int n, struct dispatch_state *d, uint32_t kind,
		      uint64_t now, uint64_t seq, uint64_t frag_before)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct tick_rec *t;

		/* never wait on a full queue with records peers cannot account for */
		if (mk_pktq_full(&ws[i].q, sizeof(*t)))
			flush_all(ws, n, d, seq - 1);
		t = mk_pktq_reserve(&ws[i].q, kind, sizeof(*t));

		t->now_us = now;
		t->seq = seq;
		t->frag_before = frag_before;
		mk_pktq_commit(&ws[i].q);
	}
	flush_all(ws, n, d, seq);
	/* ticks and the end are worth a wake-up of their own */
	for (i = 0; i < n; i++)
		mk_bell_ring(&ws[i].q.data_bell);
}

/*
 * Writes every epoch that all workers have sealed. Called by the reader after
 * each tick and once at the end; a no-op without output.
 */
static int write_sealed(struct mk_eve_file *out, struct worker *ws, unsigned int n,
			struct alert_filter *af)
{
	struct eve_chunk *got = NULL, **tail = &got, *c;
	struct mk_eve_buf *bufs;
	uint64_t upto = UINT64_MAX;
	unsigned int i, nb = 0;
	int err = 0;

	if (!out)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t e = atomic_load_explicit(&ws[i].sealed_epoch, memory_order_acquire);

		if (e < upto)
			upto = e;
	}
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&ws[i].lock);
		while (ws[i].sealed_head && ws[i].sealed_head->epoch < upto) {
			c = ws[i].sealed_head;
			ws[i].sealed_head = c->next;
			if (!ws[i].sealed_head)
				ws[i].sealed_tail = NULL;
			c->next = NULL;
			*tail = c;
			tail = &c->next;
			nb++;
		}
		pthread_mutex_unlock(&ws[i].lock);
	}
	if (!nb)
		return 0;
	bufs = calloc(nb, sizeof(*bufs));
	if (!bufs)
		err = -ENOMEM;
	for (i = 0, c = got; c; c = c->next)
		if (bufs)
			bufs[i++] = c->buf;
	if (bufs)
		err = mk_eve_merge_write_filter(out, bufs, nb, af->th ? keep_alert : NULL, af);
	if (err)
		mk_err("%s: %s", out->sink.path, strerror(-err));
	free(bufs);
	while (got) {
		c = got->next;
		mk_eve_buf_free(&got->buf);
		free(got);
		got = c;
	}
	return err;
}

/*
 * mkdir -p: every missing directory of @path is created; the error names the
 * component that could not be.
 */
static int make_dirs(const char *path)
{
	char buf[4096], *p;
	struct stat sb;
	int err;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		mk_err("%s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	for (p = buf + 1;; p++) {
		if (*p && *p != '/')
			continue;
		if (p[-1] != '/') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST) {
				err = -errno;
				mk_err("cannot create directory %s: %s", buf, strerror(-err));
				return err;
			}
			if (stat(buf, &sb) || !S_ISDIR(sb.st_mode)) {
				mk_err("%s: exists and is not a directory", buf);
				return -ENOTDIR;
			}
			*p = c;
		}
		if (!*p)
			break;
	}
	return 0;
}

/*
 * outputs.eve-log: the file under the log directory (made with its parents)
 * unless its name is absolute, appended to unless append: no or --eve-truncate.
 */
static int open_eve(const struct mk_offline_opts *o, const struct mk_config *c,
		    struct mk_eve_file *f)
{
	const struct mk_eve_cfg *eve = &c->output.eve;
	char path[4096];
	int err, n;

	err = make_dirs(o->log_dir);
	if (err)
		return err;
	if (eve->filename[0] == '/')
		n = snprintf(path, sizeof(path), "%s", eve->filename);
	else
		n = snprintf(path, sizeof(path), "%s/%s", o->log_dir, eve->filename);
	if (n < 0 || n >= (int)sizeof(path)) {
		mk_err("%s: %s", o->log_dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return mk_eve_file_open(f, path, o->eve_truncate || !eve->append);
}

/*
 * The dispatcher: takes the read stage's batches in input order
 * (offline_read.h), numbers the frames, broadcasts the ticks, copies each
 * frame into its worker's queue and writes the sealed epochs. What it keeps
 * across the inputs of one run: they are one stream.
 */
struct reader {
	const struct mk_offline_opts *o;
	const struct mk_config *c;
	struct mk_offline_stats *st;
	struct mk_parse_cfg pcfg;
	struct worker *ws;
	unsigned int n;
	struct dispatch_state *disp;
	struct mk_eve_file *eve; /* NULL: no output */
	struct alert_filter *af;
	const uint8_t *itable;
	struct mk_off_read *rd;
	uint64_t seq, last_frag, last_tick_s, max_ts_us;
	uint64_t t0, last_progress;
};

/* One frame of batch @b into its worker's queue, after the tick it may start. */
static int reader_dispatch(struct reader *r, struct mk_off_batch *b, struct mk_off_brec *rec)
{
	struct mk_off_pkt *h = (struct mk_off_pkt *)(rec + 1);
	struct mk_offline_stats *st = r->st;
	struct worker *w = &r->ws[rec->worker];
	struct mk_off_ref *ref;
	int err;

	if (h->ts_us > r->max_ts_us)
		r->max_ts_us = h->ts_us;
	if (h->ts_us / 1000000 > r->last_tick_s) {
		uint64_t t0;

		r->last_tick_s = h->ts_us / 1000000;
		broadcast(r->ws, r->n, r->disp, MK_PKTQ_TICK, h->ts_us, ++r->seq, r->last_frag);
		t0 = thread_cpu_ns();
		err = write_sealed(r->eve, r->ws, r->n, r->af);
		st->eve_write_cpu_ns += thread_cpu_ns() - t0;
		if (err)
			return err;
	}
	/*
	 * Before waiting on a full queue, tell idle workers how far every
	 * queue is visible: a worker may be waiting for their progress
	 * (ordered hand-off), and this queue's owner for that worker.
	 */
	if (mk_pktq_full(&w->q, sizeof(*ref)))
		flush_all(r->ws, r->n, r->disp, r->seq);
	/* the frame stays in the batch: numbered in place, queued by reference */
	h->seq = ++r->seq;
	h->frag_before = r->last_frag;
	if (h->parse.flags & MK_META_F_FRAGMENT)
		r->last_frag = r->seq;
	ref = mk_pktq_reserve(&w->q, MK_PKTQ_PKT, sizeof(*ref));
	ref->pkt = h;
	ref->batch = b;
	mk_pktq_commit(&w->q);
	st->cnt[MK_OFF_READ]++;
	st->cnt[MK_OFF_DISPATCHED]++;
	st->bytes_read += rec->caplen;
	if (!(r->seq & 31))
		flush_all(r->ws, r->n, r->disp, r->seq);
	return 0;
}

/*
 * The dispatcher waits for the read stage: every record it queued must be
 * visible first, and sleeping workers awake to take them (the read stage may
 * be waiting for them to give batches back).
 */
static void reader_before_wait(void *arg)
{
	struct reader *r = arg;
	unsigned int i;

	flush_all(r->ws, r->n, r->disp, r->seq);
	for (i = 0; i < r->n; i++)
		mk_bell_ring(&r->ws[i].q.data_bell);
}

/* A file's end: what was cut, where it was damaged (the first damage into the stats). */
static void reader_file_end(struct reader *r, const struct mk_off_batch *b)
{
	struct mk_offline_stats *st = r->st;
	const char *path = mk_off_read_file(r->rd, b->file);

	if (b->oversized) {
		st->cnt[MK_OFF_OVERSIZED] += b->oversized;
		mk_warn("%s: %llu record(s) longer than the snap length %u, cut to it", path,
			(unsigned long long)b->oversized, b->snaplen);
	}
	if (!b->damaged)
		return;
	if (r->o->progress)
		fputc('\n', stderr);
	mk_warn("%s: damaged at record %llu, byte offset %llu: %s; reading stopped there, "
		"%llu record(s) read before it",
		path, (unsigned long long)b->damage_record, (unsigned long long)b->damage_off,
		b->damage_why, (unsigned long long)b->records);
	if (!st->cnt[MK_OFF_FILES_DAMAGED]) {
		snprintf(st->damage_path, sizeof(st->damage_path), "%s", path);
		snprintf(st->damage_why, sizeof(st->damage_why), "%s", b->damage_why);
		st->damage_record = b->damage_record;
		st->damage_off = b->damage_off;
	}
	st->cnt[MK_OFF_FILES_DAMAGED]++;
}

/*
 * One batch: its file's open, its counters, its frames, its file's end.
 * @dispatched: the frames queued (all of them unless it fails).
 */
static int reader_batch(struct reader *r, struct mk_off_batch *b, uint32_t *dispatched)
{
	struct mk_offline_stats *st = r->st;
	size_t off;
	unsigned int i;
	int err = 0;

	*dispatched = 0;
	if (b->flags & MK_OFF_B_FAILED) {
		mk_err("%s", b->msg);
		/* a filter that does not compile: nothing would be what was asked */
		if (b->err == -EBADMSG)
			return b->err;
		st->cnt[MK_OFF_FILES_FAILED]++;
		return 0;
	}
	if (b->flags & MK_OFF_B_OPEN) {
		st->cnt[MK_OFF_FILES]++;
		mk_info("%s: link type %s%s", mk_off_read_file(r->rd, b->file),
			mk_pcap_link_name(b->dlt), b->pcapng ? ", pcapng" : "");
	}
	for (i = 0; i < MK_OFF_CNT_MAX; i++)
		st->cnt[i] += b->cnt[i];
	for (i = 0; i < MK_REASON_MAX; i++)
		st->parse_err[i] += b->parse_err[i];
	st->bytes_read += b->bytes;
	for (off = 0; off < b->used && !err; (*dispatched)++) {
		struct mk_off_brec *rec = (struct mk_off_brec *)(b->data + off);

		err = reader_dispatch(r, b, rec);
		if (err)
			break;
		off += mk_off_brec_size(rec->len);
	}
	if (b->flags & MK_OFF_B_END)
		reader_file_end(r, b);
	if (!err && b->err) {
		mk_err("%s", b->msg);
		err = b->err;
	}
	if (r->o->progress) {
		uint64_t now = mono_ns();

		if (now - r->last_progress >= PROGRESS_NS) {
			r->last_progress = now;
			progress_line(st, r->t0, 0);
		}
	}
	return err;
}

/* Every input in turn, as one stream. */
static int reader_inputs(struct reader *r)
{
	struct mk_off_batch *b;
	uint32_t dispatched;
	int err = 0;

	while (!err && (b = mk_off_read_next(r->rd, reader_before_wait, r))) {
		err = reader_batch(r, b, &dispatched);
		mk_off_read_release(r->rd, b, dispatched);
	}
	return err;
}

/* ---- the run: set-up, workers, reading, tear-down ----------------------- */

/* One run, from set-up to tear-down (mk_offline_run and its steps). */
struct offline_run {
	const struct mk_offline_opts *o;
	const struct mk_config *c;
	struct mk_offline_stats *st;
	struct mk_eve_file evef;
	struct mk_eve_file *eve; /* &evef, or NULL: no output */
	struct mk_outputs *outs; /* more than one output, or not one file: evef feeds them */
	struct worker *ws;
	struct mk_spsc *mesh; /* n x n hand-off rings */
	unsigned int n;
	uint8_t itable[MK_ITABLE_SIZE];
	struct dispatch_state disp;
	struct alert_filter af;
	struct reader r;
	int ended; /* END was broadcast: every input was read */
	uint64_t cpu0;
};

/* More than one enabled output, or one that is not a file: through output/outputs.h. */
static int several_outputs(const struct mk_config *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->output.neve; i++)
		n += c->output.eves[i].enabled;
	return n > 1 || c->output.eve.filetype != MK_EVE_FILETYPE_REGULAR;
}

/* Checks the options, makes the directories, opens eve.json, fills the itable. */
static int run_setup(struct offline_run *run)
{
	const struct mk_offline_opts *o = run->o;
	const struct mk_config *c = run->c;
	unsigned int i;
	int err;

	memset(run->st, 0, sizeof(*run->st));
	run->st->detect = o->detect != NULL;
	run->r.t0 = mono_ns();
	if (!run->n || run->n > MK_MAX_WORKERS || o->reader_threads > MK_OFF_MAX_READER_THREADS)
		return -EINVAL;
	if (o->dump_streams) {
		err = make_dirs(o->dump_streams);
		if (err)
			return err;
	}
	run->r.pcfg = c->parse;
	run->r.pcfg.seed = o->seed;
	if (o->log_dir && c->output.eve.enabled && !several_outputs(c)) {
		err = open_eve(o, c, &run->evef);
		if (err)
			return err;
		run->eve = &run->evef;
	} else if (o->log_dir && c->output.eve.enabled) {
		/* every output waits for room: each gets every record, in this order */
		err = make_dirs(o->log_dir);
		if (!err)
			err = mk_outputs_new(&run->outs, &c->output, o->log_dir, o->eve_truncate,
					     1);
		if (!err)
			err = mk_outputs_start(run->outs);
		if (!err)
			err = mk_eve_file_open_outputs(&run->evef, run->outs);
		if (err)
			return err;
		run->eve = &run->evef;
	}
	run->r.eve = run->eve;
	mk_info("%s: %u worker(s), seed %#x, features: %s", o->pcap_path, run->n, o->seed,
		mk_offline_features());

	/* round robin, as the live loader fills the XDP itable */
	for (i = 0; i < MK_ITABLE_SIZE; i++)
		run->itable[i] = (uint8_t)(i % run->n);
	return 0;
}

/* The alert filter and the worker array; the array's locks are ready to destroy. */
static int workers_alloc(struct offline_run *run)
{
	unsigned int i;

	if (run->o->detect && mk_detect_thresh_new(&run->af.th))
		return -ENOMEM;
	run->ws = calloc(run->n, sizeof(*run->ws));
	if (!run->ws)
		return -ENOMEM;
	run->r.ws = run->ws;
	run->r.n = run->n;
	for (i = 0; i < run->n; i++)
		pthread_mutex_init(&run->ws[i].lock, NULL);
	return 0;
}

/* The hand-off rings, then each worker's pipeline and queue. */
static int workers_init(struct offline_run *run)
{
	const struct mk_offline_opts *o = run->o;
	const struct mk_config *c = run->c;
	unsigned int i, n = run->n;
	int err;

	run->mesh = calloc((size_t)n * n, sizeof(*run->mesh));
	if (!run->mesh)
		return -ENOMEM;
	for (i = 0; i < n * n; i++) {
		err = mk_spsc_init(&run->mesh[i], DGRAM_RING_SLOTS, sizeof(void *));
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		struct worker *w = &run->ws[i];
		struct mk_worker_cfg wc = {
			.id = i,
			.nworkers = n,
			.itable = run->itable,
			.seed = o->seed,
			.checksum = o->checksum,
			.log_flows = run->eve && (mk_output_types(&c->output) & MK_EVE_TYPE_FLOW),
			.log_alerts = run->eve && (mk_output_types(&c->output) & MK_EVE_TYPE_ALERT),
			.log_http = run->eve && (mk_output_types(&c->output) & MK_EVE_TYPE_HTTP),
			.log_dns = run->eve && (mk_output_types(&c->output) & MK_EVE_TYPE_DNS),
			.log_tls = run->eve && (mk_output_types(&c->output) & MK_EVE_TYPE_TLS),
			.log_files = run->eve && (mk_output_types(&c->output) & MK_EVE_TYPE_FILES),
			.log_app_types = run->eve ? mk_output_types(&c->output) &
							    (MK_EVE_TYPE_SSH | MK_EVE_TYPE_SMTP |
							     MK_EVE_TYPE_FTP) :
						    0,
			.app = &c->app,
			.dump_streams = o->dump_streams,
			.eve = o->eve,
			.parse = &c->parse,
			.flow = &c->flow,
			.stream = &c->stream,
			.defrag = &c->defrag,
			.unreplied = c->output.eve.flow_unreplied,
			.detect = o->detect,
			.bypass = &c->bypass_cfg,
			.alert_opts = o->alert_opts,
		};

		w->id = i;
		w->nworkers = n;
		w->mesh = run->mesh;
		w->peers = run->ws;
		w->disp = &run->disp;
		w->stash = calloc(n, sizeof(*w->stash));
		if (!w->stash)
			return -ENOMEM;
		err = mk_worker_init(&w->pipe, &wc, &worker_ops, w);
		if (err)
			return err;
		if (mk_pktq_init(&w->q, PKTQ_SIZE)) {
			err = -ENOMEM;
			mk_err("worker %u: %s", i, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int workers_start(struct offline_run *run)
{
	unsigned int i;
	int err;

	for (i = 0; i < run->n; i++) {
		err = -pthread_create(&run->ws[i].thread, NULL, worker_main, &run->ws[i]);
		if (err) {
			mk_err("worker %u: pthread_create: %s", i, strerror(-err));
			return err;
		}
		run->ws[i].started = 1;
	}
	return 0;
}

/* Reads every input, then ENDs every worker: what was read is processed and logged. */
static int run_read(struct offline_run *run)
{
	struct reader *r = &run->r;
	struct mk_off_read_cfg rc = {
		.path = run->o->pcap_path,
		.filter = run->o->filter,
		.c = run->c,
		.pcfg = &r->pcfg,
		.itable = run->itable,
		.threads = mk_offline_reader_threads(run->o->reader_threads, run->n),
	};
	int err;

	r->t0 = r->last_progress = mono_ns();
	err = mk_off_read_new(&r->rd, &rc);
	if (!err) {
		/* the dispatcher and the read threads a run of these inputs can use */
		run->st->reader_threads = 1 + mk_off_read_lanes(r->rd);
		mk_info("%s: %u reader thread(s)", run->o->pcap_path, run->st->reader_threads);
		err = reader_inputs(r);
	}
	/* whatever stopped the reading, what was read is processed and logged */
	broadcast(run->ws, run->n, &run->disp, MK_PKTQ_END, r->max_ts_us, ++r->seq, r->last_frag);
	run->ended = 1;
	if (run->o->progress)
		progress_line(run->st, r->t0, 1);
	return err;
}

/* A failed start: a running worker still needs its END, without waiting for anyone. */
static void worker_abort(struct offline_run *run, struct worker *w)
{
	struct tick_rec *t;
	unsigned int k;

	/* and must not wait for the progress of workers never started */
	for (k = 0; k < run->n; k++)
		if (!run->ws[k].started)
			atomic_store(&run->ws[k].progress, UINT64_MAX);
	atomic_store(&run->disp.flushed_seq, UINT64_MAX);
	t = mk_pktq_reserve(&w->q, MK_PKTQ_END, sizeof(*t));
	t->now_us = 0;
	t->seq = UINT64_MAX;
	t->frag_before = UINT64_MAX - 1;
	mk_pktq_commit(&w->q);
	mk_pktq_flush(&w->q);
}

static void workers_join(struct offline_run *run)
{
	unsigned int i;

	for (i = 0; i < run->n; i++) {
		if (!run->ws[i].started)
			continue;
		if (!run->ended)
			worker_abort(run, &run->ws[i]);
		pthread_join(run->ws[i].thread, NULL);
	}
}

/* The workers' counters into the run's stats, and the last epochs to eve.json. */
static int run_collect(struct offline_run *run, int err)
{
	struct mk_offline_stats *st = run->st;
	struct worker *ws = run->ws;
	unsigned int i, n = run->n;

	st->elapsed_s = (double)(mono_ns() - run->r.t0) / 1e9;
	for (i = 0; i < n; i++) {
		mk_worker_stats_add(&st->pipe, &ws[i].pipe);
		st->queue_full_waits += ws[i].q.full_waits;
		if (ws[i].pipe.err && !err)
			err = ws[i].pipe.err;
	}
	if (run->ended) {
		uint64_t t0 = thread_cpu_ns();
		int werr = write_sealed(run->eve, ws, n, &run->af);

		st->eve_write_cpu_ns += thread_cpu_ns() - t0;
		if (!err)
			err = werr;
	}
	st->reader_cpu_ns = thread_cpu_ns() - run->cpu0;
	st->nworkers = n;
	for (i = 0; i < n; i++) {
		st->workers_cpu_ns += ws[i].cpu_ns;
		st->worker_rx[i] = ws[i].pipe.cnt[MK_WORKER_RX];
		st->worker_flows[i] = ws[i].pipe.flows.cnt[MK_FLOW_CNT_CREATED];
	}
	return err;
}

static void worker_free(struct worker *w, unsigned int n)
{
	struct eve_chunk *ch = w->sealed_head, *nx;
	unsigned int k;

	for (; ch; ch = nx) {
		nx = ch->next;
		mk_eve_buf_free(&ch->buf);
		free(ch);
	}
	mk_worker_free(&w->pipe);
	if (w->stash) {
		for (k = 0; k < n; k++)
			free(w->stash[k]);
		free(w->stash);
	}
	mk_pktq_free(&w->q);
	mk_eve_buf_free(&w->eve);
	pthread_mutex_destroy(&w->lock);
}

static void workers_free(struct offline_run *run)
{
	unsigned int i;

	for (i = 0; i < run->n; i++)
		worker_free(&run->ws[i], run->n);
	free(run->ws);
	if (run->mesh) {
		for (i = 0; i < run->n * run->n; i++) {
			void *left;

			while ((left = mk_spsc_pop_ptr(&run->mesh[i])))
				free(left);
			mk_spsc_destroy(&run->mesh[i]);
		}
		free(run->mesh);
	}
}

/* Each output's counters, one info line each. */
static void log_outputs(struct mk_outputs *outs)
{
	json_t *a = mk_outputs_json(outs), *v;
	size_t i;

	json_array_foreach(a, i, v)
	{
		char *text = json_dumps(v, JSON_COMPACT);

		if (text)
			mk_info("EVE output %s", text);
		free(text);
	}
	json_decref(a);
}

/* Closes eve.json (its counts into the stats) and frees the alert filter. */
static int run_close_output(struct offline_run *run, int err)
{
	struct mk_offline_stats *st = run->st;

	if (run->eve && run->outs) {
		mk_eve_file_close(run->eve);
		mk_outputs_stop(run->outs);
		/* the first output's, as with one; each one's is logged */
		mk_outputs_first_counts(run->outs, &st->eve_written, &st->eve_lost);
		if (!err && st->eve_lost)
			err = -EIO;
		log_outputs(run->outs);
		mk_outputs_free(run->outs);
		run->outs = NULL;
	} else if (run->eve) {
		int werr = mk_eve_file_close(run->eve);

		st->eve_written = run->eve->sink.written;
		st->eve_lost = run->eve->sink.lost;
		if (!err)
			err = werr;
	}
	st->alerts_thresholded = run->af.dropped;
	mk_detect_thresh_free(run->af.th);
	return err;
}

int mk_offline_run(const struct mk_offline_opts *o, const struct mk_config *c,
		   struct mk_offline_stats *st)
{
	struct offline_run run = { .o = o, .c = c, .st = st, .n = o->workers };
	int err;

	run.cpu0 = thread_cpu_ns();
	run.r = (struct reader){
		.o = o, .c = c, .st = st, .disp = &run.disp, .itable = run.itable, .af = &run.af
	};
	err = run_setup(&run);
	if (err)
		return err;
	err = workers_alloc(&run);
	if (err)
		goto out_output;
	err = workers_init(&run);
	if (err)
		goto out_workers;
	err = workers_start(&run);
	if (err)
		goto out_join;
	err = run_read(&run);
out_join:
	workers_join(&run);
	/* the workers are done with the batches: the read stage can go */
	mk_off_read_free(run.r.rd, &st->read_cpu_ns, &st->queue_full_waits);
	err = run_collect(&run, err);
out_workers:
	workers_free(&run);
out_output:
	return run_close_output(&run, err);
}

/* ---- summary and statistics --------------------------------------------- */

static uint64_t reader_outcomes(const struct mk_offline_stats *st)
{
	uint64_t sum = 0;

#define MK_OFF_SUM(name) sum += st->cnt[MK_OFF_##name];
	MK_OFF_OUTCOMES(MK_OFF_SUM)
#undef MK_OFF_SUM
	return sum;
}

static uint64_t worker_outcomes(const struct mk_offline_stats *st)
{
	const uint64_t *c = st->pipe.cnt;

	return c[MK_WORKER_FLOW_PKT] + c[MK_WORKER_FRAG_HELD] + c[MK_WORKER_FRAG_DROPPED] +
	       c[MK_WORKER_NO_FLOW] + c[MK_WORKER_DECODE_ERROR];
}

int mk_offline_balanced(const struct mk_offline_stats *st)
{
	/* DESIGN 1.5: every frame read ends in exactly one reader or worker outcome */
	return reader_outcomes(st) == st->cnt[MK_OFF_READ] &&
	       st->pipe.cnt[MK_WORKER_RX] == st->cnt[MK_OFF_DISPATCHED] &&
	       mk_worker_stats_balanced(&st->pipe);
}

void mk_offline_print_summary(FILE *out, const struct mk_offline_stats *st, int verbose)
{
	double s = st->elapsed_s > 0 ? st->elapsed_s : 1e-9;
	const char *prog = mk_log_prog();
	int i;

	fprintf(out,
		"%s: %llu packets, %llu bytes, %llu flows logged in %.3f s (%.0f pkt/s, %.3f Gbit/s)\n",
		prog, (unsigned long long)st->cnt[MK_OFF_READ], (unsigned long long)st->bytes_read,
		(unsigned long long)st->pipe.flows_logged, st->elapsed_s,
		(double)st->cnt[MK_OFF_READ] / s, (double)st->bytes_read * 8 / s / 1e9);
	fprintf(out, "%s: outcomes:", prog);
#define MK_OFF_PRINT(name)                                             \
	fprintf(out, " %s %llu,", mk_off_counter_names[MK_OFF_##name], \
		(unsigned long long)st->cnt[MK_OFF_##name]);
	MK_OFF_OUTCOMES(MK_OFF_PRINT)
#undef MK_OFF_PRINT
	fprintf(out,
		" then flow_pkt %llu, frag_held %llu, frag_dropped %llu, decode_error %llu, "
		"no_flow %llu\n",
		(unsigned long long)st->pipe.cnt[MK_WORKER_FLOW_PKT],
		(unsigned long long)st->pipe.cnt[MK_WORKER_FRAG_HELD],
		(unsigned long long)st->pipe.cnt[MK_WORKER_FRAG_DROPPED],
		(unsigned long long)st->pipe.cnt[MK_WORKER_DECODE_ERROR],
		(unsigned long long)st->pipe.cnt[MK_WORKER_NO_FLOW]);
	fprintf(out,
		"%s: accounting: %s: read %llu, reader outcomes %llu, dispatched %llu, "
		"worker_rx %llu, worker outcomes %llu\n",
		prog, mk_offline_balanced(st) ? "ok" : "MISMATCH",
		(unsigned long long)st->cnt[MK_OFF_READ], (unsigned long long)reader_outcomes(st),
		(unsigned long long)st->cnt[MK_OFF_DISPATCHED],
		(unsigned long long)st->pipe.cnt[MK_WORKER_RX],
		(unsigned long long)worker_outcomes(st));
	if (st->cnt[MK_OFF_FILES_DAMAGED])
		fprintf(out, "%s: input damaged: %s: record %llu at byte offset %llu: %s%s\n", prog,
			st->damage_path, (unsigned long long)st->damage_record,
			(unsigned long long)st->damage_off, st->damage_why,
			st->cnt[MK_OFF_FILES_DAMAGED] > 1 ? " (and more files, see above)" : "");
	if (st->cnt[MK_OFF_FILES_FAILED])
		fprintf(out, "%s: input unreadable: %llu file(s), see above\n", prog,
			(unsigned long long)st->cnt[MK_OFF_FILES_FAILED]);
	if (st->detect)
		fprintf(out,
			"%s: detection: %llu alerts raised, %llu removed by threshold filters\n",
			prog, (unsigned long long)st->pipe.detect[MK_DETECT_CNT_ALERTS],
			(unsigned long long)st->alerts_thresholded);
	if (st->eve_lost || st->pipe.cnt[MK_WORKER_EVE_LOST])
		fprintf(out,
			"%s: EVE records lost: %llu to write errors (eve.lost), %llu to formatting\n",
			prog, (unsigned long long)st->eve_lost,
			(unsigned long long)st->pipe.cnt[MK_WORKER_EVE_LOST]);
	if (!verbose)
		return;
	for (i = 0; i < MK_OFF_CNT_MAX; i++)
		fprintf(out, "  %-18s %llu\n", mk_off_counter_names[i],
			(unsigned long long)st->cnt[i]);
	for (i = 1; i < MK_REASON_MAX; i++)
		if (st->parse_err[i])
			fprintf(out, "  %-18s %llu\n", mk_stat_descs[mk_reason_stat(i)].name,
				(unsigned long long)st->parse_err[i]);
	/* not a drop: times the reader waited for a worker's queue or a batch still in use */
	fprintf(out, "  %-18s %llu\n", "queue_full_waits",
		(unsigned long long)st->queue_full_waits);
	mk_worker_stats_print(out, &st->pipe);
	fprintf(out, "  detect.%-18s %llu\n", "thresholded",
		(unsigned long long)st->alerts_thresholded);
	fprintf(out, "  eve.%-18s %llu\n  eve.%-18s %llu\n", "written",
		(unsigned long long)st->eve_written, "lost", (unsigned long long)st->eve_lost);
}

static void json_put(const char *group, const char *name, uint64_t value, void *arg)
{
	json_t *root = arg, *g = json_object_get(root, group);

	if (!g) {
		g = json_object();
		json_object_set_new(root, group, g);
	}
	json_object_set_new(g, name, json_integer((json_int_t)value));
}

/*
 * The process's peak resident memory (VmHWM), for the flood figures of
 * docs/security.md; getrusage's ru_maxrss would also count the memory of
 * the process that exec'd us. 0 when /proc is not there.
 */
static unsigned long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long kb = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int mk_offline_stats_json(const char *path, const struct mk_offline_stats *st)
{
	json_t *root = json_object(), *damage, *workers;
	int i, err = 0;

	if (!root)
		return -ENOMEM;
	json_object_set_new(root, "elapsed_s", json_real(st->elapsed_s));
	json_object_set_new(root, "peak_rss_kb", json_integer((json_int_t)peak_rss_kb()));
	json_object_set_new(root, "bytes_read", json_integer((json_int_t)st->bytes_read));
	json_object_set_new(root, "queue_full_waits",
			    json_integer((json_int_t)st->queue_full_waits));
	json_object_set_new(root, "balanced", json_boolean(mk_offline_balanced(st)));
	/* CPU seconds per thread: the reader includes the EVE write, and its waits for workers */
	json_object_set_new(root, "cpu",
			    json_pack("{s:f, s:f, s:f, s:f}", "reader_s",
				      (double)st->reader_cpu_ns / 1e9, "read_threads_s",
				      (double)st->read_cpu_ns / 1e9, "workers_s",
				      (double)st->workers_cpu_ns / 1e9, "eve_write_s",
				      (double)st->eve_write_cpu_ns / 1e9));
	json_object_set_new(root, "reader_threads", json_integer(st->reader_threads));
	/* each worker's share (hash flooding shows here: docs/security.md) */
	workers = json_array();
	for (i = 0; i < (int)st->nworkers; i++)
		json_array_append_new(workers, json_pack("{s:i, s:I, s:I}", "id", i, "rx",
							 (json_int_t)st->worker_rx[i], "flows",
							 (json_int_t)st->worker_flows[i]));
	json_object_set_new(root, "workers", workers);
	for (i = 0; i < MK_OFF_CNT_MAX; i++)
		json_put("reader", mk_off_counter_names[i], st->cnt[i], root);
	/* every reason, zero or not, so that readers see a fixed shape */
	for (i = 1; i < MK_REASON_MAX; i++)
		json_put("parse_errors", mk_stat_descs[mk_reason_stat(i)].name, st->parse_err[i],
			 root);
	mk_worker_stats_foreach(&st->pipe, json_put, root);
	json_put("detect", "thresholded", st->alerts_thresholded, root);
	/* as live mode's stats: eve.written, eve.lost */
	json_put("eve", "written", st->eve_written, root);
	json_put("eve", "lost", st->eve_lost, root);
	if (st->cnt[MK_OFF_FILES_DAMAGED]) {
		damage = json_pack("{s:s, s:I, s:I, s:s}", "file", st->damage_path, "record",
				   (json_int_t)st->damage_record, "offset",
				   (json_int_t)st->damage_off, "error", st->damage_why);
		json_object_set_new(root, "input_damaged", damage);
	}
	if (json_dump_file(root, path, JSON_INDENT(1) | JSON_SORT_KEYS)) {
		err = -(errno ?: EIO);
		mk_err("%s: %s", path, strerror(-err));
	}
	json_decref(root);
	return err;
}
