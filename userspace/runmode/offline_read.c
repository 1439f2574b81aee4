// SPDX-License-Identifier: GPL-2.0-only
/*
 * The offline read stage (offline_read.h): lanes that read and parse the
 * inputs into batches, and the in-order hand-over to the dispatcher.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bell.h"
#include "log.h"
#include "offline_read.h"
#include "pcap_source.h"
#include "worker.h"

/*
 * A batch is handed over when it holds this many bytes of records: large
 * enough that the hand-over costs nothing per frame, small enough that a
 * lane's ring (LANE_SLOTS of them) stays in the caches it shares with the
 * dispatcher.
 */
#define BATCH_BYTES (128u << 10)
#define BATCH_FRAMES 4096 /* frames read per batch at most, dispatched or not */
/*
 * Batches a lane may have in flight: read ahead, being dispatched, or in the
 * workers' queues. 2 MiB per lane, which the workers' queues held before
 * they held references.
 */
#define LANE_SLOTS 16
/*
 * A dispatcher that caught up with its lane sleeps until this many batches
 * are ready (or the lane waits or ends): a wake-up per few batches, not per
 * batch, on the thread that is usually the slowest.
 */
#define WAKE_BATCHES 4

struct lane {
	struct mk_off_read *rd;
	unsigned int id;
	pthread_t thread;
	int started;
	struct mk_off_batch slots[LANE_SLOTS];
	_Alignas(64) _Atomic uint64_t filled; /* batches handed over: the lane's */
	struct mk_bell data_bell;	      /* the dispatcher sleeps here */
	_Atomic uint64_t want;		      /* asleep: ring when filled reaches this */
	_Alignas(64) uint64_t taken;	      /* batches taken: the dispatcher's */
	struct mk_bell space_bell; /* the filler sleeps here: rung when a batch is freed */
	/* the lane's own */
	_Alignas(64) size_t next_file; /* the next of its files to open */
	struct mk_pcap_source src;
	int open;
	uint64_t cpu_ns;     /* the thread's CPU time, when it ended */
	uint64_t slot_waits; /* times its next slot was not free yet */
};

struct mk_off_read {
	struct mk_off_read_cfg cfg;
	char **files;
	size_t nfiles;
	struct lane *lanes;
	unsigned int nlanes;
	int threaded;	  /* lanes are threads; else the dispatcher fills lane 0 */
	_Atomic int stop; /* the dispatcher is done: lanes end */
	size_t cur_file;  /* dispatcher: the file it takes batches of */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void batch_reset(struct mk_off_batch *b)
{
	uint8_t *data = b->data;
	size_t cap = b->cap;

	/* everything from flags up to the records; the error texts are written when used */
	memset(&b->flags, 0,
	       offsetof(struct mk_off_batch, damage_why) - offsetof(struct mk_off_batch, flags));
	b->data = data;
	b->cap = cap;
}

/*
 * Waits until the lane's next slot is free: its frames are all done (the
 * workers gave their references back). @before_wait runs once before
 * sleeping. 0, or -EINTR when the read stage stops.
 */
static int slot_wait(struct lane *l, struct mk_off_batch *b, void (*before_wait)(void *), void *arg)
{
	struct mk_off_read *rd = l->rd;
	unsigned int spins = 0;
	int told = 0;

	if (atomic_load_explicit(&b->refs, memory_order_acquire))
		l->slot_waits++;
	while (atomic_load_explicit(&b->refs, memory_order_acquire)) {
		uint32_t seq;

		if (atomic_load_explicit(&rd->stop, memory_order_relaxed))
			return -EINTR;
		if (++spins < MK_BELL_SPIN) {
			mk_cpu_relax();
			continue;
		}
		if (!told && before_wait) {
			before_wait(arg);
			told = 1;
		}
		seq = mk_bell_arm(&l->space_bell);
		if (atomic_load_explicit(&b->refs, memory_order_seq_cst) &&
		    !atomic_load_explicit(&rd->stop, memory_order_seq_cst))
			mk_bell_sleep(&l->space_bell, seq);
		else
			mk_bell_disarm(&l->space_bell);
	}
	return 0;
}

/* The batch is filled: one reference per frame and one for the dispatcher. */
static void batch_hold(struct mk_off_batch *b)
{
	atomic_store_explicit(&b->refs, 1 + b->nrec, memory_order_relaxed);
}

/* Room for @need more bytes of records; the buffer only grows (one frame past BATCH_BYTES). */
static int batch_room(struct mk_off_batch *b, size_t need)
{
	size_t cap = b->cap ? b->cap : BATCH_BYTES + 4096;
	uint8_t *d;

	if (b->used + need <= b->cap)
		return 0;
	while (cap < b->used + need)
		cap *= 2;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

/*
 * One frame: the XDP program's part (parse, CIDR bypass, steering). A frame
 * for a worker becomes a record; any other is only counted.
 */
static int lane_frame(struct lane *l, struct mk_off_batch *b, const struct mk_pcap_frame *fr)
{
	const struct mk_off_read_cfg *cfg = &l->rd->cfg;
	uint32_t off, caplen, steer;
	struct mk_off_brec *rec;
	struct mk_off_pkt *h;
	struct mk_frame frame;
	struct mk_parse p;
	int ret;

	if (fr->filtered) {
		b->cnt[MK_OFF_FILTERED]++;
		goto counted;
	}
	if (fr->link_error) {
		b->cnt[MK_OFF_LINK_ERROR]++;
		goto counted;
	}
	if (fr->non_ip) {
		b->cnt[MK_OFF_NON_IP]++;
		goto counted;
	}
	frame.data = fr->data + fr->l2_len;
	frame.data_end = fr->data + fr->caplen;
	ret = mk_parse_frame(&frame, fr->start, cfg->pcfg, &p);
	if (ret == MK_PARSE_NON_IP) {
		b->cnt[MK_OFF_NON_IP]++;
		goto counted;
	}
	if (ret == MK_PARSE_ERROR) {
		b->cnt[MK_OFF_PARSE_ERROR]++;
		b->parse_err[p.reason < MK_REASON_MAX ? p.reason : 0]++;
		goto counted;
	}
	if (cfg->c->nbypass && (mk_config_bypassed(cfg->c, p.l3.family, p.l3.src) ||
				mk_config_bypassed(cfg->c, p.l3.family, p.l3.dst))) {
		b->cnt[MK_OFF_CIDR_BYPASS]++;
		goto counted;
	}
	off = fr->l2_len + p.l3.l3_off;
	caplen = fr->caplen - off;
	/* an ICMP error goes where the flow it quotes is (icmp_error.h) */
	steer = p.hash;
	if (p.l3.proto == MK_IPPROTO_ICMP || p.l3.proto == MK_IPPROTO_ICMPV6)
		steer = mk_worker_steer_hash(&p, fr->data + off, caplen, cfg->pcfg->seed);
	if (batch_room(b, mk_off_brec_size(sizeof(*h) + caplen)))
		return -ENOMEM;
	rec = (struct mk_off_brec *)(b->data + b->used);
	rec->len = sizeof(*h) + caplen;
	rec->worker = cfg->itable[steer % MK_ITABLE_SIZE];
	rec->caplen = fr->caplen;
	rec->pad = 0;
	h = (struct mk_off_pkt *)(rec + 1);
	h->ts_us = fr->ts_us;
	h->seq = 0;
	h->frag_before = 0;
	h->ip_caplen = caplen;
	h->ip_wirelen = fr->wirelen > off ? fr->wirelen - off : 0;
	h->parse = p;
	memcpy(h + 1, fr->data + off, caplen);
	b->used += mk_off_brec_size(rec->len);
	b->nrec++;
	return 0;
counted:
	b->cnt[MK_OFF_READ]++;
	b->bytes += fr->caplen;
	return 0;
}

/* The file's end into @b, and the lane moves to its next file. */
static void lane_file_end(struct lane *l, struct mk_off_batch *b)
{
	struct mk_pcap_source *s = &l->src;

	b->flags |= MK_OFF_B_END;
	b->records = s->records;
	b->oversized = s->oversized;
	b->snaplen = s->snaplen;
	b->damaged = s->damaged;
	if (s->damaged) {
		b->damage_record = s->damage_record;
		b->damage_off = s->damage_off;
		snprintf(b->damage_why, sizeof(b->damage_why), "%s", s->damage_why);
	}
	mk_pcap_close(s);
	l->open = 0;
	l->next_file += l->rd->nlanes;
}

/*
 * Fills @b with the next part of the lane's files: an open (or its failure),
 * frames, an end. 1 with a batch, 0 when the lane's files are all read.
 */
static int lane_fill(struct lane *l, struct mk_off_batch *b)
{
	struct mk_off_read *rd = l->rd;
	struct mk_pcap_frame fr;
	unsigned int n;
	int err;

	batch_reset(b);
	if (!l->open) {
		if (l->next_file >= rd->nfiles)
			return 0;
		b->file = (uint32_t)l->next_file;
		err = mk_pcap_open_msg(&l->src, rd->files[l->next_file], rd->cfg.filter, b->msg,
				       sizeof(b->msg));
		if (err) {
			b->flags = MK_OFF_B_FAILED;
			b->err = err;
			l->next_file += rd->nlanes;
			return 1;
		}
		l->open = 1;
		b->flags = MK_OFF_B_OPEN;
		b->dlt = l->src.dlt;
		b->pcapng = l->src.pcapng;
	}
	b->file = (uint32_t)l->next_file;
	for (n = 0; n < BATCH_FRAMES && b->used < BATCH_BYTES; n++) {
		if (mk_pcap_next(&l->src, &fr) != 1) {
			lane_file_end(l, b);
			return 1;
		}
		err = lane_frame(l, b, &fr);
		if (err) {
			/* no memory for a frame: the run stops after what is in the batch */
			b->err = err;
			snprintf(b->msg, sizeof(b->msg), "%s: record %llu: %s",
				 rd->files[l->next_file], (unsigned long long)l->src.records,
				 strerror(-err));
			lane_file_end(l, b);
			return 1;
		}
	}
	return 1;
}

/* The lane is about to wait for a slot: a dispatcher waiting for more batches takes these. */
static void lane_wake(void *arg)
{
	struct lane *l = arg;

	mk_bell_ring(&l->data_bell);
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct mk_off_read *rd = l->rd;
	uint64_t filled = 0;
	char name[16];

	snprintf(name, sizeof(name), "mk-read%u", l->id);
	pthread_setname_np(pthread_self(), name); /* for top -H and profiles */
	while (!atomic_load_explicit(&rd->stop, memory_order_relaxed)) {
		struct mk_off_batch *b = &l->slots[filled % LANE_SLOTS];

		if (slot_wait(l, b, lane_wake, l) || !lane_fill(l, b))
			break;
		batch_hold(b);
		atomic_store_explicit(&l->filled, ++filled, memory_order_release);
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(&l->data_bell.armed, memory_order_relaxed) &&
		    filled >= atomic_load_explicit(&l->want, memory_order_relaxed))
			mk_bell_ring(&l->data_bell);
	}
	/* nothing more from this lane: whatever is ready is all there is */
	mk_bell_ring(&l->data_bell);
	l->cpu_ns = thread_cpu_ns();
	return NULL;
}

int mk_off_read_new(struct mk_off_read **out, const struct mk_off_read_cfg *cfg)
{
	struct mk_off_read *rd;
	unsigned int i, k;
	int err;

	*out = NULL;
	if (!cfg->threads || cfg->threads > MK_OFF_MAX_READER_THREADS)
		return -EINVAL;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd->cfg = *cfg;
	err = mk_pcap_inputs(cfg->path, &rd->files, &rd->nfiles);
	if (err) {
		free(rd);
		return err;
	}
	/* no more lanes than files: a file is read by one thread */
	rd->threaded = cfg->threads > 1;
	rd->nlanes = rd->threaded ? cfg->threads - 1 : 1;
	if (rd->nlanes > rd->nfiles)
		rd->nlanes = (unsigned int)rd->nfiles;
	rd->lanes = calloc(rd->nlanes, sizeof(*rd->lanes));
	if (!rd->lanes) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < rd->nlanes; i++) {
		rd->lanes[i].rd = rd;
		rd->lanes[i].id = i;
		rd->lanes[i].next_file = i;
		for (k = 0; k < LANE_SLOTS; k++)
			rd->lanes[i].slots[k].freed = &rd->lanes[i].space_bell;
	}
	if (!rd->threaded) {
		*out = rd;
		return 0;
	}
	for (i = 0; i < rd->nlanes; i++) {
		err = -pthread_create(&rd->lanes[i].thread, NULL, lane_main, &rd->lanes[i]);
		if (err) {
			mk_err("read thread %u: pthread_create: %s", i, strerror(-err));
			goto fail;
		}
		rd->lanes[i].started = 1;
	}
	*out = rd;
	return 0;
fail:
	if (err == -ENOMEM)
		mk_err("%s: %s", cfg->path, strerror(-err));
	mk_off_read_free(rd, NULL, NULL);
	return err;
}

struct mk_off_batch *mk_off_read_next(struct mk_off_read *rd, void (*before_wait)(void *),
				      void *arg)
{
	struct mk_off_batch *b;
	struct lane *l;
	unsigned int spins = 0;
	int told = 0;

	if (rd->cur_file >= rd->nfiles)
		return NULL;
	l = &rd->lanes[rd->cur_file % rd->nlanes];
	b = &l->slots[l->taken % LANE_SLOTS];
	if (!rd->threaded) {
		/* the dispatcher reads: its next slot must be free of the workers first */
		if (slot_wait(l, b, before_wait, arg) || !lane_fill(l, b))
			return NULL;
		batch_hold(b);
		return b;
	}
	while (atomic_load_explicit(&l->filled, memory_order_acquire) == l->taken) {
		uint32_t seq;

		if (++spins < MK_BELL_SPIN) {
			mk_cpu_relax();
			continue;
		}
		if (!told && before_wait) {
			before_wait(arg);
			told = 1;
		}
		atomic_store_explicit(&l->want, l->taken + WAKE_BATCHES, memory_order_relaxed);
		seq = mk_bell_arm(&l->data_bell);
		if (atomic_load_explicit(&l->filled, memory_order_seq_cst) == l->taken)
			mk_bell_sleep(&l->data_bell, seq);
		else
			mk_bell_disarm(&l->data_bell);
	}
	return b;
}

void mk_off_read_release(struct mk_off_read *rd, struct mk_off_batch *b, uint32_t dispatched)
{
	struct lane *l = &rd->lanes[rd->cur_file % rd->nlanes];

	if (b->flags & (MK_OFF_B_END | MK_OFF_B_FAILED))
		rd->cur_file++;
	l->taken++;
	mk_off_batch_put(b, 1 + (b->nrec - dispatched));
}

const char *mk_off_read_file(const struct mk_off_read *rd, uint32_t file)
{
	return file < rd->nfiles ? rd->files[file] : "?";
}

unsigned int mk_off_read_lanes(const struct mk_off_read *rd)
{
	return rd->threaded ? rd->nlanes : 0;
}

void mk_off_read_free(struct mk_off_read *rd, uint64_t *cpu_ns, uint64_t *slot_waits)
{
	unsigned int i, k;

	if (!rd)
		return;
	atomic_store(&rd->stop, 1);
	for (i = 0; rd->lanes && i < rd->nlanes; i++) {
		struct lane *l = &rd->lanes[i];

		if (l->started) {
			mk_bell_ring(&l->space_bell);
			pthread_join(l->thread, NULL);
			if (cpu_ns)
				*cpu_ns += l->cpu_ns;
		}
		if (slot_waits)
			*slot_waits += l->slot_waits;
		if (l->open)
			mk_pcap_close(&l->src);
		for (k = 0; k < LANE_SLOTS; k++)
			free(l->slots[k].data);
	}
	free(rd->lanes);
	free(rd->files);
	free(rd);
}
