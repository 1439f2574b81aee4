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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "eve.h"
#include "log.h"
#include "offline.h"
#include "parse.h"
#include "pcap_source.h"
#include "pktq.h"
#include "spsc.h"
#include "worker.h"

#define MK_OFF_CNT_NAME(name, str, doc) [MK_OFF_##name] = str,
const char *const mk_off_counter_names[MK_OFF_CNT_MAX] = {
	MK_OFF_READER_COUNTERS(MK_OFF_CNT_NAME)
};
#undef MK_OFF_CNT_NAME

#define PKTQ_SIZE (2u << 20)
#define DGRAM_RING_SLOTS 1024
#define PROGRESS_NS 250000000ull /* 4 updates per second at most */

/*
 * A frame as a worker receives it: the reader's parse (the live path's
 * struct mk_meta, uncapped) and the captured bytes from the inner IP header
 * on, which is what the live worker finds after the delivered Ethernet header.
 */
struct pkt_hdr {
	uint64_t ts_us;
	uint64_t seq;	    /* position in the reader's dispatch order, from 1 */
	uint64_t frag_before; /* seq of the last fragment dispatched before this record */
	uint32_t ip_caplen; /* bytes that follow, from the inner IP header */
	uint32_t pad;
	struct mk_parse parse; /* offsets relative to the parse start */
};

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
	struct mk_worker pipe;	/* the pipeline proper */
	struct mk_pktq q;
	struct mk_eve_buf eve;	/* records of the current epoch */
	uint64_t epoch;		/* ticks seen */
	uint64_t seq;		/* of the record being handled: hand-offs carry it */
	struct mk_spsc *mesh;	     /* n x n rings: mesh[from * n + to] */
	struct pkt_hdr **stash;	     /* per source: next hand-off popped, not yet due */
	struct worker *peers;	     /* all workers, for their progress */
	struct dispatch_state *disp;
	uint64_t drained_frag; /* hand-offs from fragments up to this seq are all in */
	_Alignas(64) _Atomic uint64_t progress; /* own records with seq <= this are done */
	unsigned int nworkers;
	pthread_mutex_t lock;	/* guards the sealed list */
	struct eve_chunk *sealed_head, *sealed_tail;
	_Atomic uint64_t sealed_epoch; /* every record of an epoch below this is sealed */
	int err;
	int started;
};

const char *mk_offline_features(void)
{
	return "defrag stream";
}

/* ---- ordered hand-off -------------------------------------------------- */

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
	struct pkt_hdr *h = malloc(sizeof(*h) + pkt->ip_caplen);

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
	return 0;
}

static void pkt_of(struct mk_pkt *pkt, const struct pkt_hdr *h)
{
	pkt->parse = &h->parse;
	pkt->ip = (const uint8_t *)(h + 1);
	pkt->ip_caplen = h->ip_caplen;
	pkt->ts_us = h->ts_us;
}

static struct pkt_hdr *handoff_next(struct worker *w, unsigned int *src)
{
	struct pkt_hdr *best = NULL;
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

static void set_progress(struct worker *w, uint64_t p)
{
	if (atomic_load_explicit(&w->progress, memory_order_relaxed) != p)
		atomic_store_explicit(&w->progress, p, memory_order_release);
}

/* Handles every hand-off with seq below @limit (peers must be past limit - 1). */
static int handoffs_before(struct worker *w, uint64_t limit)
{
	struct pkt_hdr *h;
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
		while (peers_progress(w) < frag)
			mk_pktq_wait(&spins);
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

/* Past END every peer's hand-offs are in (the wait before END saw to it): take them all. */
static void worker_defrag_finish(struct worker *w)
{
	set_progress(w, UINT64_MAX);
	handoffs_before(w, UINT64_MAX);
}

/* ---- worker ------------------------------------------------------------ */

/* ops.record: kept with its sort key until the epoch is sealed. */
static int worker_record(void *ctx, const struct mk_flow *f, const char *line, size_t len)
{
	struct worker *w = ctx;

	return mk_eve_buf_add(&w->eve, w->epoch, f->start_us, f->flow_id, line, len) ? -ENOMEM : 0;
}

/* ops.alert: like a record, with its threshold key for the writer's filter. */
static int worker_alert(void *ctx, const struct mk_flow *f, const char *line, size_t len,
			const struct mk_detect_thresh_key *key)
{
	struct worker *w = ctx;

	return mk_eve_buf_add_key(&w->eve, w->epoch, f->start_us, f->flow_id, line, len, key,
				  key ? sizeof(*key) : 0) ? -ENOMEM : 0;
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

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct mk_pktq_rec *r;
	unsigned int idle = 0;

	for (;;) {
		r = mk_pktq_peek(&w->q);
		if (!r) {
			if (!worker_idle(w))
				mk_pktq_wait(&idle);
			continue;
		}
		idle = 0;
		/* every record kind starts with its timestamp and seq */
		if (r->kind == MK_PKTQ_PKT)
			worker_before_record(w, ((const struct pkt_hdr *)(r + 1))->seq,
					     ((const struct pkt_hdr *)(r + 1))->frag_before);
		else
			worker_before_record(w, ((const struct tick_rec *)(r + 1))->seq,
					     ((const struct tick_rec *)(r + 1))->frag_before);
		if (r->kind == MK_PKTQ_PKT) {
			const struct pkt_hdr *h = (const void *)(r + 1);
			struct mk_pkt pkt;

			pkt_of(&pkt, h);
			w->seq = h->seq;
			mk_worker_packet(&w->pipe, &pkt);
		} else if (r->kind == MK_PKTQ_TICK) {
			const struct tick_rec *t = (const void *)(r + 1);

			worker_seal_epoch(w);
			mk_worker_tick(&w->pipe, t->now_us);
		} else if (r->kind == MK_PKTQ_END) {
			mk_pktq_release(&w->q, r);
			break;
		}
		mk_pktq_release(&w->q, r);
	}
	worker_defrag_finish(w);
	mk_worker_finish(&w->pipe);
	worker_seal_epoch(w);
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
	fprintf(stderr, "\r\033[Kmeerkat: %llu pkts, %.1f MB, %.0f pkt/s, %.1f MB/s%s",
		(unsigned long long)st->cnt[MK_OFF_READ], (double)st->bytes_read / 1e6,
		(double)st->cnt[MK_OFF_READ] / s, (double)st->bytes_read / 1e6 / s, final ? "\n" : "");
}

/* Makes every record up to @seq visible in every queue, then says so. */
static void flush_all(struct worker *ws, unsigned int n, struct dispatch_state *d, uint64_t seq)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		mk_pktq_flush(&ws[i].q);
	atomic_store_explicit(&d->flushed_seq, seq, memory_order_release);
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
}

/*
 * Writes every epoch that all workers have sealed. Called by the reader after
 * each tick and once at the end; a no-op without output.
 */
static int write_sealed(FILE *out, struct worker *ws, unsigned int n, struct alert_filter *af)
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
		mk_err("eve.json: %s", strerror(-err));
	free(bufs);
	while (got) {
		c = got->next;
		mk_eve_buf_free(&got->buf);
		free(got);
		got = c;
	}
	return err;
}

static FILE *open_eve(const struct mk_offline_opts *o, int *err)
{
	char path[4096];
	FILE *f;

	*err = 0;
	if (!o->log_dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/eve.json", o->log_dir);
	f = fopen(path, "w");
	if (!f) {
		*err = -errno;
		mk_err("%s: %s", path, strerror(-*err));
	}
	return f;
}

int mk_offline_run(const struct mk_offline_opts *o, const struct mk_config *c,
		   struct mk_offline_stats *st)
{
	struct mk_parse_cfg pcfg = c->parse;
	struct mk_pcap_source src;
	struct mk_pcap_frame fr;
	struct mk_parse p;
	struct worker *ws = NULL;
	FILE *eve = NULL;
	struct mk_spsc *mesh = NULL;
	uint8_t itable[MK_ITABLE_SIZE];
	uint64_t t0 = mono_ns(), last_progress, last_tick_s = 0, seq = 0, last_frag = 0;
	struct dispatch_state disp = { 0 };
	struct alert_filter af = { 0 };
	unsigned int i, n = o->workers;
	int err, ret, ended = 0;

	memset(st, 0, sizeof(*st));
	if (!n || n > MK_MAX_WORKERS)
		return -EINVAL;
	if (o->detect && mk_detect_thresh_new(&af.th))
		return -ENOMEM;
	if (o->dump_streams && mkdir(o->dump_streams, 0755) && errno != EEXIST) {
		err = -errno;
		mk_err("%s: %s", o->dump_streams, strerror(-err));
		return err;
	}
	if (o->log_dir && mkdir(o->log_dir, 0755) && errno != EEXIST) {
		err = -errno;
		mk_err("%s: %s", o->log_dir, strerror(-err));
		return err;
	}
	pcfg.seed = o->seed;
	err = mk_pcap_open(&src, o->pcap_path);
	if (err)
		return err;
	eve = open_eve(o, &err);
	if (err)
		goto out_pcap;
	mk_info("%s: link type %s, %u worker(s), seed %#x, features: %s", o->pcap_path,
		mk_pcap_link_name(src.dlt), n, o->seed, mk_offline_features());

	/* round robin, as the live loader fills the XDP itable */
	for (i = 0; i < MK_ITABLE_SIZE; i++)
		itable[i] = (uint8_t)(i % n);

	ws = calloc(n, sizeof(*ws));
	if (!ws) {
		err = -ENOMEM;
		goto out_pcap;
	}
	for (i = 0; i < n; i++)
		pthread_mutex_init(&ws[i].lock, NULL);
	mesh = calloc((size_t)n * n, sizeof(*mesh));
	if (!mesh) {
		err = -ENOMEM;
		goto out_workers;
	}
	for (i = 0; i < n * n; i++) {
		err = mk_spsc_init(&mesh[i], DGRAM_RING_SLOTS, sizeof(void *));
		if (err)
			goto out_workers;
	}
	for (i = 0; i < n; i++) {
		struct mk_worker_cfg wc = {
			.id = i,
			.nworkers = n,
			.itable = itable,
			.seed = o->seed,
			.checksum = o->checksum,
			.log_flows = o->log_dir != NULL,
			.dump_streams = o->dump_streams,
			.conf = c,
			.detect = o->detect,
			.alert_opts = o->alert_opts,
		};

		ws[i].id = i;
		ws[i].nworkers = n;
		ws[i].mesh = mesh;
		ws[i].peers = ws;
		ws[i].disp = &disp;
		ws[i].stash = calloc(n, sizeof(*ws[i].stash));
		if (!ws[i].stash) {
			err = -ENOMEM;
			goto out_workers;
		}
		err = mk_worker_init(&ws[i].pipe, &wc, &worker_ops, &ws[i]);
		if (err)
			goto out_workers;
		if (mk_pktq_init(&ws[i].q, PKTQ_SIZE)) {
			err = -ENOMEM;
			mk_err("worker %u: %s", i, strerror(-err));
			goto out_workers;
		}
	}
	for (i = 0; i < n; i++) {
		err = -pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]);
		if (err) {
			mk_err("worker %u: pthread_create: %s", i, strerror(-err));
			goto out_join;
		}
		ws[i].started = 1;
	}

	t0 = last_progress = mono_ns();
	while ((ret = mk_pcap_next(&src, &fr)) == 1) {
		struct mk_frame frame;
		struct pkt_hdr *h;
		uint32_t off, caplen;
		struct worker *w;

		st->cnt[MK_OFF_READ]++;
		st->bytes_read += fr.caplen;
		if (o->progress && !(st->cnt[MK_OFF_READ] & 1023)) {
			uint64_t now = mono_ns();

			if (now - last_progress >= PROGRESS_NS) {
				last_progress = now;
				progress_line(st, t0, 0);
			}
		}
		if (fr.non_ip) {
			st->cnt[MK_OFF_NON_IP]++;
			continue;
		}
		frame.data = fr.data + fr.l2_len;
		frame.data_end = fr.data + fr.caplen;
		ret = mk_parse_frame(&frame, fr.start, &pcfg, &p);
		if (ret == MK_PARSE_NON_IP) {
			st->cnt[MK_OFF_NON_IP]++;
			continue;
		}
		if (ret == MK_PARSE_ERROR) {
			st->cnt[MK_OFF_PARSE_ERROR]++;
			st->parse_err[p.reason < MK_REASON_MAX ? p.reason : 0]++;
			continue;
		}
		if (c->nbypass && (mk_config_bypassed(c, p.l3.family, p.l3.src) ||
				   mk_config_bypassed(c, p.l3.family, p.l3.dst))) {
			st->cnt[MK_OFF_CIDR_BYPASS]++;
			continue;
		}
		if (fr.ts_us / 1000000 > last_tick_s) {
			last_tick_s = fr.ts_us / 1000000;
			broadcast(ws, n, &disp, MK_PKTQ_TICK, fr.ts_us, ++seq, last_frag);
			err = write_sealed(eve, ws, n, &af);
			if (err)
				break;
		}
		off = fr.l2_len + p.l3.l3_off;
		caplen = fr.caplen - off;
		w = &ws[itable[p.hash % MK_ITABLE_SIZE]];
		/*
		 * Before waiting on a full queue, tell idle workers how far every
		 * queue is visible: a worker may be waiting for their progress
		 * (ordered hand-off), and this queue's owner for that worker.
		 */
		if (mk_pktq_full(&w->q, sizeof(*h) + caplen))
			flush_all(ws, n, &disp, seq);
		h = mk_pktq_reserve(&w->q, MK_PKTQ_PKT, sizeof(*h) + caplen);
		h->ts_us = fr.ts_us;
		h->seq = ++seq;
		h->frag_before = last_frag;
		if (p.flags & MK_META_F_FRAGMENT)
			last_frag = seq;
		h->ip_caplen = caplen;
		h->pad = 0;
		h->parse = p;
		memcpy(h + 1, fr.data + off, caplen);
		mk_pktq_commit(&w->q);
		st->cnt[MK_OFF_DISPATCHED]++;
		if (!(seq & 31))
			flush_all(ws, n, &disp, seq);
	}
	if (!err)
		err = ret < 0 ? ret : 0;
	broadcast(ws, n, &disp, MK_PKTQ_END, 0, ++seq, last_frag);
	ended = 1;
	if (o->progress)
		progress_line(st, t0, 1);

out_join:
	for (i = 0; i < n; i++) {
		if (!ws[i].started)
			continue;
		if (!ended) {
			/* a failed start: the running workers still need their END */
			unsigned int k;

			/* and must not wait for the progress of workers never started */
			for (k = 0; k < n; k++)
				if (!ws[k].started)
					atomic_store(&ws[k].progress, UINT64_MAX);
			atomic_store(&disp.flushed_seq, UINT64_MAX);
			struct tick_rec *t = mk_pktq_reserve(&ws[i].q, MK_PKTQ_END, sizeof(*t));

			t->now_us = 0;
			t->seq = UINT64_MAX;
			t->frag_before = UINT64_MAX - 1;
			mk_pktq_commit(&ws[i].q);
			mk_pktq_flush(&ws[i].q);
		}
		pthread_join(ws[i].thread, NULL);
	}
	st->elapsed_s = (double)(mono_ns() - t0) / 1e9;
	for (i = 0; i < n; i++) {
		mk_worker_stats_add(&st->pipe, &ws[i].pipe);
		st->queue_full_waits += ws[i].q.full_waits;
		if (ws[i].pipe.err && !err)
			err = ws[i].pipe.err;
	}
	if (!err)
		err = write_sealed(eve, ws, n, &af);
out_workers:
	for (i = 0; i < n; i++) {
		struct eve_chunk *ch = ws[i].sealed_head, *nx;

		for (; ch; ch = nx) {
			nx = ch->next;
			mk_eve_buf_free(&ch->buf);
			free(ch);
		}
		mk_worker_free(&ws[i].pipe);
		if (ws[i].stash) {
			unsigned int k;

			for (k = 0; k < n; k++)
				free(ws[i].stash[k]);
			free(ws[i].stash);
		}
		mk_pktq_free(&ws[i].q);
		mk_eve_buf_free(&ws[i].eve);
		pthread_mutex_destroy(&ws[i].lock);
	}
	free(ws);
	if (mesh) {
		for (i = 0; i < n * n; i++) {
			void *left;

			while ((left = mk_spsc_pop_ptr(&mesh[i])))
				free(left);
			mk_spsc_destroy(&mesh[i]);
		}
		free(mesh);
	}
out_pcap:
	if (eve && fclose(eve) && !err) {
		err = -errno;
		mk_err("%s/eve.json: %s", o->log_dir, strerror(-err));
	}
	mk_pcap_close(&src);
	st->alerts_thresholded = af.dropped;
	mk_detect_thresh_free(af.th);
	return err;
}

void mk_offline_print_summary(FILE *out, const struct mk_offline_stats *st)
{
	double s = st->elapsed_s > 0 ? st->elapsed_s : 1e-9;
	uint64_t accounted;
	int i;

	fprintf(out, "meerkat: %llu packets, %llu bytes, %llu flows logged in %.3f s (%.0f pkt/s, %.3f Gbit/s)\n",
		(unsigned long long)st->cnt[MK_OFF_READ], (unsigned long long)st->bytes_read,
		(unsigned long long)st->pipe.flows_logged, st->elapsed_s, (double)st->cnt[MK_OFF_READ] / s,
		(double)st->bytes_read * 8 / s / 1e9);
	for (i = 0; i < MK_OFF_CNT_MAX; i++)
		fprintf(out, "  %-18s %llu\n", mk_off_counter_names[i], (unsigned long long)st->cnt[i]);
	for (i = 1; i < MK_REASON_MAX; i++)
		if (st->parse_err[i])
			fprintf(out, "  %-18s %llu\n", mk_stat_descs[mk_reason_stat(i)].name,
				(unsigned long long)st->parse_err[i]);
	/* not a drop: times the reader waited for a worker's queue */
	fprintf(out, "  %-18s %llu\n", "queue_full_waits", (unsigned long long)st->queue_full_waits);
	mk_worker_stats_print(out, &st->pipe);
	fprintf(out, "  detect.%-18s %llu\n", "thresholded", (unsigned long long)st->alerts_thresholded);
	/* DESIGN 1.5: every frame read ends in exactly one reader or worker outcome */
	accounted = st->cnt[MK_OFF_NON_IP] + st->cnt[MK_OFF_PARSE_ERROR] + st->cnt[MK_OFF_CIDR_BYPASS] +
		    st->cnt[MK_OFF_DISPATCHED];
	if (accounted != st->cnt[MK_OFF_READ] ||
	    st->pipe.cnt[MK_WORKER_RX] != st->cnt[MK_OFF_DISPATCHED] ||
	    !mk_worker_stats_balanced(&st->pipe))
		fprintf(out, "  ACCOUNTING MISMATCH: read %llu, reader outcomes %llu, dispatched %llu, "
			     "worker_rx %llu (or a worker outcome does not add up)\n",
			(unsigned long long)st->cnt[MK_OFF_READ], (unsigned long long)accounted,
			(unsigned long long)st->cnt[MK_OFF_DISPATCHED],
			(unsigned long long)st->pipe.cnt[MK_WORKER_RX]);
}
