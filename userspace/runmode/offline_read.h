/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The offline read stage: the inputs of -r FILE|DIR as a sequence of batches
 * of frames already parsed as the XDP program parses them (link header,
 * decapsulation, seeded hash, CIDR bypass, steering), in input order. The
 * dispatcher (offline.c) numbers the frames and copies each into its
 * worker's queue; it never parses.
 *
 * Threads (docs/flow.md, "Reader threads"): with 1, the dispatcher fills
 * each batch itself when it needs one. With N > 1, N - 1 read threads
 * ("lanes") read and parse ahead: file i goes to lane i % (N - 1), which
 * reads its files in turn, so a directory's files are read in parallel and a
 * single file is read and parsed on one thread while another dispatches.
 * Each lane hands batches over through a ring of a few slots (bounded
 * read-ahead); the dispatcher takes them file by file, lane after lane, so
 * the order is the input order whatever the thread count. Waits spin
 * briefly, then sleep on a bell (util/bell.h).
 *
 * Zero copy: a frame is copied once, from libpcap's buffer into the batch.
 * The dispatcher writes its sequence numbers in place and queues a reference
 * to it (struct mk_off_ref); the worker reads it there. A batch therefore
 * lives until every worker is done with its frames: it holds one reference
 * per frame and one for the dispatcher, workers give theirs back in runs
 * (mk_off_batch_put), and the last one hands the slot back to its lane.
 *
 * Accounting: a batch carries the counters of the frames that were read but
 * not dispatched (filtered, non-IP, errors, CIDR bypass); the dispatcher adds
 * them, and counts each dispatched frame itself, when it takes the batch. A
 * frame read ahead but never taken (the run stopped) is in no counter.
 */
#ifndef MK_OFFLINE_READ_H
#define MK_OFFLINE_READ_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "bell.h"
#include "config.h"
#include "offline.h"
#include "parse.h"

#define MK_OFF_MAX_READER_THREADS MK_MAX_READER_THREADS

/*
 * A frame as a worker receives it: the reader's parse (the live path's
 * struct mk_meta, uncapped) and the captured bytes from the inner IP header
 * on, which is what the live worker finds after the delivered Ethernet header.
 */
struct mk_off_pkt {
	uint64_t ts_us;
	uint64_t seq;	       /* position in the dispatch order, from 1: the dispatcher's */
	uint64_t frag_before;  /* seq of the last fragment dispatched before it: the dispatcher's */
	uint32_t ip_caplen;    /* bytes that follow, from the inner IP header */
	uint32_t ip_wirelen;   /* bytes on the wire from the inner IP header */
	struct mk_parse parse; /* offsets relative to the parse start */
};

/* A frame in a batch: this header, then the struct mk_off_pkt and its bytes (len in all). */
struct mk_off_brec {
	uint32_t len;	 /* bytes that follow: sizeof(struct mk_off_pkt) + ip_caplen */
	uint32_t worker; /* itable[steering hash % 256] */
	uint32_t caplen; /* the frame as captured, for bytes_read */
	uint32_t pad;
};

#define MK_OFF_BREC_ALIGN 8

static inline size_t mk_off_brec_size(uint32_t len)
{
	return (sizeof(struct mk_off_brec) + len + MK_OFF_BREC_ALIGN - 1) &
	       ~(size_t)(MK_OFF_BREC_ALIGN - 1);
}

/* A frame in a worker's queue (MK_PKTQ_PKT): where it is, and whose reference it holds. */
struct mk_off_ref {
	struct mk_off_pkt *pkt;
	struct mk_off_batch *batch;
};

enum mk_off_batch_flag {
	MK_OFF_B_OPEN = 1,   /* the file's first batch: it opened (dlt, pcapng) */
	MK_OFF_B_FAILED = 2, /* the file could not be opened (err, msg): nothing else in it */
	MK_OFF_B_END = 4,    /* the file's last batch: its end (oversized, damage) */
};

/* Part of one input file. */
struct mk_off_batch {
	_Atomic uint32_t refs; /* 0: the slot is free; else frames not done + the dispatcher's */
	struct mk_bell *freed; /* rung when refs drops to 0: the lane (or dispatcher) waits */
	uint32_t flags;	       /* enum mk_off_batch_flag */
	uint32_t file;	       /* index in the input list */
	int err;	       /* MK_OFF_B_FAILED: -errno; -EBADMSG: the filter does not compile */
	int dlt, pcapng;
	/* frames read and not dispatched, with their outcome; and their bytes */
	uint64_t cnt[MK_OFF_CNT_MAX];
	uint64_t parse_err[MK_REASON_MAX];
	uint64_t bytes;
	/* the frames to dispatch: nrec struct mk_off_brec records in data[0, used) */
	uint32_t nrec;
	size_t used, cap;
	uint8_t *data;
	/* MK_OFF_B_END: the file as struct mk_pcap_source left it */
	uint64_t records, oversized;
	uint32_t snaplen;
	int damaged;
	uint64_t damage_record, damage_off;
	char damage_why[256];
	char msg[4096 + 512]; /* MK_OFF_B_FAILED: the error, naming the file */
};

struct mk_off_read_cfg {
	const char *path;   /* -r FILE|DIR */
	const char *filter; /* BPF expression, or NULL */
	const struct mk_config *c;
	const struct mk_parse_cfg *pcfg; /* with the run's seed */
	const uint8_t *itable;		 /* MK_ITABLE_SIZE buckets -> worker */
	unsigned int threads; /* 1..MK_OFF_MAX_READER_THREADS: the dispatcher's included */
};

struct mk_off_read;

/* Lists the inputs (mk_pcap_inputs) and starts the read threads. 0 or -errno (logged). */
int mk_off_read_new(struct mk_off_read **out, const struct mk_off_read_cfg *cfg);
/*
 * The next batch in input order, NULL when every input is read. Blocks until
 * a lane has it; @before_wait(@arg) runs once before the thread sleeps.
 */
struct mk_off_batch *mk_off_read_next(struct mk_off_read *rd, void (*before_wait)(void *),
				      void *arg);
/*
 * The dispatcher is done with the batch mk_off_read_next() returned, having
 * queued @dispatched of its frames (all, unless the run stops): it drops its
 * own reference and those of the frames it did not queue.
 */
void mk_off_read_release(struct mk_off_read *rd, struct mk_off_batch *b, uint32_t dispatched);

/* Gives back @n frame references to @b; the last one frees its slot. */
static inline void mk_off_batch_put(struct mk_off_batch *b, uint32_t n)
{
	/* read before: once the count is 0 the slot is the lane's again */
	struct mk_bell *freed = b->freed;

	if (n && atomic_fetch_sub_explicit(&b->refs, n, memory_order_acq_rel) == n)
		mk_bell_ring(freed);
}
const char *mk_off_read_file(const struct mk_off_read *rd, uint32_t file);
/* Read threads actually started (0 when the dispatcher reads itself). */
unsigned int mk_off_read_lanes(const struct mk_off_read *rd);
/*
 * Stops and joins the read threads, adds their CPU time to @cpu_ns and the
 * times a slot was still held to @slot_waits (either may be NULL), and frees
 * the batches: after the workers are done with them.
 */
void mk_off_read_free(struct mk_off_read *rd, uint64_t *cpu_ns, uint64_t *slot_waits);

#endif /* MK_OFFLINE_READ_H */
