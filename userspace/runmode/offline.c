// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline mode. The reader thread plays the XDP program's part: parse,
 * decapsulate, hash, CIDR bypass, w = itable[hash % 256]. Workers play the
 * AF_XDP workers' part on a shared-nothing flow table each.
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

#include "defrag.h"
#include "spsc.h"

#define MK_OFF_CNT_NAME(name, str, doc) [MK_OFF_##name] = str,
const char *const mk_off_counter_names[MK_OFF_CNT_MAX] = {
	MK_OFF_READER_COUNTERS(MK_OFF_CNT_NAME) MK_OFF_WORKER_COUNTERS(MK_OFF_CNT_NAME)
};
#undef MK_OFF_CNT_NAME

#define PKTQ_SIZE (2u << 20)
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
	struct mk_pktq q;
	struct mk_flow_table flows;
	struct mk_eve_buf eve;	/* records of the current epoch */
	uint64_t epoch;		/* ticks seen */
	struct mk_stream_engine *stream;
	struct mk_defrag *defrag;
	struct mk_spsc *mesh;	     /* n x n rings: mesh[from * n + to] */
	struct pkt_hdr **stash;	     /* per source: next hand-off popped, not yet due */
	struct worker *peers;	     /* all workers, for their progress */
	struct dispatch_state *disp;
	uint64_t drained_frag; /* hand-offs from fragments up to this seq are all in */
	_Alignas(64) _Atomic uint64_t progress; /* own records with seq <= this are done */
	struct mk_parse_cfg pcfg;
	const uint8_t *itable;
	unsigned int nworkers;
	uint64_t flows_logged;
	pthread_mutex_t lock;	/* guards the sealed list */
	struct eve_chunk *sealed_head, *sealed_tail;
	_Atomic uint64_t sealed_epoch; /* every record of an epoch below this is sealed */
	const struct mk_config *conf;
	const struct mk_offline_opts *opts;
	uint64_t cnt[MK_OFF_CNT_MAX];
	int err;
	int started;
};

const char *mk_offline_features(void)
{
	return "defrag stream";
}

/* ---- checksums -------------------------------------------------------- */

/*
 * One's-complement sum, 64 bits at a time with end-around carry (RFC 1071:
 * the sum is byte-order independent, so words are summed as loaded and the
 * result swapped once). Checksums are the worker's biggest per-byte cost,
 * hence not the 16-bit textbook loop.
 */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint64_t acc = 0, q;
	uint32_t w;
	uint16_t h;

	while (len >= 8) {
		memcpy(&q, p, 8);
		acc += q;
		acc += acc < q; /* end-around carry */
		p += 8;
		len -= 8;
	}
	acc = (acc & 0xffffffffu) + (acc >> 32);
	if (len >= 4) {
		memcpy(&w, p, 4);
		acc += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		acc += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		h = 0;
		memcpy(&h, p, 1);
		acc += h;
	}
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	/* back to network order to combine with the caller's host-order sum */
	return sum + (uint32_t)__builtin_bswap16((uint16_t)acc);
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t pseudo_sum(const struct mk_l3 *l3, uint32_t l4len)
{
	uint32_t sum = 0;
	int n = l3->family == MK_FAMILY_IPV6 ? 16 : 4;

	sum = csum_add(sum, (const uint8_t *)l3->src, n);
	sum = csum_add(sum, (const uint8_t *)l3->dst, n);
	return sum + l3->proto + (l4len & 0xffff) + (l4len >> 16);
}

/*
 * Validates what can be validated: not on fragments (no whole L4) nor on
 * frames cut by the snap length. Returns 1 when a bad TCP checksum means the
 * segment must not be reassembled.
 */
static int worker_checksums(struct worker *w, const struct mk_parse *p, const uint8_t *ip,
			    uint32_t caplen)
{
	const struct mk_l3 *l3 = &p->l3;
	uint32_t ihl, l4len;
	const uint8_t *l4;

	if (l3->truncated || caplen < l3->ip_len)
		return 0;
	/* the parser checked 20 <= IHL * 4 <= total length for IPv4 */
	if (l3->family == MK_FAMILY_IPV4 &&
	    csum_fold(csum_add(0, ip, (ip[0] & 0x0fu) * 4u)) != 0xffff)
		w->cnt[MK_OFF_CSUM_BAD_IPV4]++;
	if (!l3->l4_off || l3->frag != MK_FRAG_NONE)
		return 0;
	/* IPv6 extension headers may claim more than the payload length */
	ihl = (uint32_t)(l3->l4_off - l3->l3_off);
	if (ihl > l3->ip_len)
		return 0;
	l4 = ip + ihl;
	l4len = l3->ip_len - ihl;
	switch (l3->proto) {
	case MK_IPPROTO_TCP:
		if (csum_fold(csum_add(pseudo_sum(l3, l4len), l4, l4len)) != 0xffff) {
			w->cnt[MK_OFF_CSUM_BAD_TCP]++;
			return 1;
		}
		break;
	case MK_IPPROTO_UDP:
		/* IPv4 UDP checksum 0 means "none" */
		if (l4len >= 8 && (l4[6] | l4[7]) == 0 && l3->family == MK_FAMILY_IPV4)
			break;
		if (csum_fold(csum_add(pseudo_sum(l3, l4len), l4, l4len)) != 0xffff)
			w->cnt[MK_OFF_CSUM_BAD_UDP]++;
		break;
	case MK_IPPROTO_ICMP:
		if (csum_fold(csum_add(0, l4, l4len)) != 0xffff)
			w->cnt[MK_OFF_CSUM_BAD_ICMP]++;
		break;
	case MK_IPPROTO_ICMPV6:
		if (csum_fold(csum_add(pseudo_sum(l3, l4len), l4, l4len)) != 0xffff)
			w->cnt[MK_OFF_CSUM_BAD_ICMP]++;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- defragmenter and stream engine (compiled in when present) -------- */

static void worker_packet(struct worker *w, const struct pkt_hdr *h, const uint8_t *ip, int is_frame);

/*
 * Defrag seam. A fragment reaches the worker owning its address-pair hash;
 * the worker's defragmenter holds it. A completed datagram is parsed again
 * from its IP header (the fragment's VLAN and tunnel context carried over),
 * and goes to the worker owning its 5-tuple: handled here, or handed over on
 * the SPSC ring to that worker. Fragments are not flow packets; the datagram
 * is, once.
 */
#define DGRAM_RING_SLOTS 1024

static int worker_defrag_init(struct worker *w)
{
	struct mk_defrag_config cfg = w->conf->defrag;

	cfg.seed = w->opts->seed;
	return mk_defrag_create(&cfg, &w->defrag);
}

static void worker_datagram(struct worker *w, const struct pkt_hdr *fh, const struct mk_defrag_datagram *dg)
{
	const struct mk_parse *fp = &fh->parse;
	struct pkt_hdr *h = malloc(sizeof(*h) + dg->len);
	struct mk_frame frame;
	struct mk_parse *p;
	unsigned int to;

	if (!h) {
		w->cnt[MK_OFF_DGRAM_BAD]++;
		return;
	}
	memcpy(h + 1, dg->data, dg->len);
	frame.data = h + 1;
	frame.data_end = (const uint8_t *)(h + 1) + dg->len;
	p = &h->parse;
	if (mk_parse_frame(&frame, MK_START_IP, &w->pcfg, p) != MK_PARSE_IP || (p->flags & MK_META_F_FRAGMENT)) {
		w->cnt[MK_OFF_DGRAM_BAD]++;
		free(h);
		return;
	}
	/* the datagram's identity includes what was stripped around its fragments */
	p->vlan[0] = p->key.vlan[0] = fp->vlan[0];
	p->vlan[1] = p->key.vlan[1] = fp->vlan[1];
	if (fp->tunnel_depth && !p->tunnel_depth) {
		p->tunnel_ctx = p->key.tunnel_ctx = fp->tunnel_ctx;
		p->tunnel_id = fp->tunnel_id;
		p->tunnel_type = fp->tunnel_type;
		p->tunnel_depth = fp->tunnel_depth;
		p->tunnel_mask = fp->tunnel_mask;
		p->outer_family = fp->outer_family;
		memcpy(p->outer_src, fp->outer_src, sizeof(p->outer_src));
		memcpy(p->outer_dst, fp->outer_dst, sizeof(p->outer_dst));
		p->flags |= MK_META_F_TUNNEL;
	}
	p->hash = mk_flow_hash(&p->key, w->pcfg.seed);
	h->ts_us = dg->ts_ns / 1000;
	h->seq = fh->seq; /* handled where the completing fragment was */
	h->ip_caplen = dg->len;
	h->pad = 0;
	to = w->itable[p->hash % MK_ITABLE_SIZE];
	if (to == w->id) {
		worker_packet(w, h, (const uint8_t *)(h + 1), 0);
		free(h);
		return;
	}
	if (mk_spsc_push_ptr(&w->mesh[w->id * w->nworkers + to], h)) {
		w->cnt[MK_OFF_DGRAM_HANDOFF_DROP]++;
		free(h);
		return;
	}
	w->cnt[MK_OFF_DGRAM_HANDOFF]++;
}

static void worker_defrag(struct worker *w, const struct pkt_hdr *h, const uint8_t *ip)
{
	struct mk_defrag_outer outer = {
		.vlan = { h->parse.vlan[0], h->parse.vlan[1] },
		.tunnel_ctx = h->parse.tunnel_ctx,
	};
	struct mk_defrag_datagram dg;
	int ret = mk_defrag_input(w->defrag, ip, h->ip_caplen, h->ts_us * 1000, &outer, &dg);

	if (ret < 0) {
		w->cnt[MK_OFF_FRAG_DROPPED]++;
		return;
	}
	w->cnt[MK_OFF_FRAG_HELD]++;
	if (ret != MK_DEFRAG_DONE)
		return;
	w->cnt[MK_OFF_DGRAM]++;
	worker_datagram(w, h, &dg);
	mk_defrag_datagram_free(&dg);
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
		w->stash[src] = NULL;
		worker_packet(w, h, (const uint8_t *)(h + 1), 0);
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

static void worker_defrag_tick(struct worker *w, uint64_t now_us)
{
	mk_defrag_expire(w->defrag, now_us * 1000);
}

/* Past END every peer's hand-offs are in (the wait before END saw to it): take them all. */
static void worker_defrag_finish(struct worker *w)
{
	set_progress(w, UINT64_MAX);
	handoffs_before(w, UINT64_MAX);
}

/*
 * --dump-streams: the stream engine's data callback lands here with the
 * stream offset of each released chunk; pwrite() at that offset makes the
 * file the reassembled byte stream whatever the release order. Files are
 * DIR/<flow_id>.toserver and DIR/<flow_id>.toclient. Debug only: one
 * open/close per chunk.
 */
static __attribute__((unused)) void worker_stream_data(struct worker *w, const struct mk_flow *f,
							int to_client, uint64_t offset,
							const uint8_t *data, uint32_t len)
{
	char path[4096];
	int fd;

	if (!w->opts->dump_streams || !len)
		return;
	snprintf(path, sizeof(path), "%s/%llu.%s", w->opts->dump_streams,
		 (unsigned long long)f->flow_id, to_client ? "toclient" : "toserver");
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || pwrite(fd, data, len, (off_t)offset) != (ssize_t)len)
		w->err = -errno;
	if (fd >= 0)
		close(fd);
}

/*
 * Stream seam: TCP segments go to this worker's stream engine with the flow's
 * embedded session. seg.dir is relative to the flow's first packet, as the
 * engine wants; a bad checksum is passed as csum_ok = 0 so the segment is
 * tracked but never reassembled. Released data comes back through
 * stream_cb_data (--dump-streams); depth reached both ways marks the flow
 * bypassed (local bypass; capture bypass is the live path's job).
 */
static void stream_cb_data(void *user, struct mk_tcp_session *ssn, const struct mk_stream_chunk *c)
{
	struct mk_flow *f = (struct mk_flow *)((char *)ssn - offsetof(struct mk_flow, tcp));

	worker_stream_data(user, f, c->dir == MK_STREAM_TO_CLIENT, c->offset, c->data, c->len);
}

static void stream_cb_depth(void *user, struct mk_tcp_session *ssn, int dir)
{
	(void)user;
	(void)dir;
	if (mk_tcp_session_depth_reached(ssn, MK_STREAM_TO_SERVER) &&
	    mk_tcp_session_depth_reached(ssn, MK_STREAM_TO_CLIENT))
		((struct mk_flow *)((char *)ssn - offsetof(struct mk_flow, tcp)))->bypassed = 1;
}

static int worker_stream_init(struct worker *w)
{
	static const struct mk_stream_cbs cbs = { .data = stream_cb_data, .depth = stream_cb_depth };
	w->stream = mk_stream_engine_new(&w->conf->stream);
	if (!w->stream)
		return -errno ?: -ENOMEM;
	mk_stream_set_callbacks(w->stream, &cbs, w);
	return 0;
}

static int worker_stream(struct worker *w, struct mk_flow *f, int to_client, const uint8_t *ip,
			 uint32_t caplen, const struct mk_parse *p, int bad_csum, uint64_t ts_us)
{
	uint32_t l4 = (uint32_t)(p->l3.l4_off - p->l3.l3_off);
	uint32_t end = p->l3.ip_len < caplen ? p->l3.ip_len : caplen;
	struct mk_tcp_seg seg;
	int ret;

	if (f->pkts[0] + f->pkts[1] == 1)
		mk_tcp_session_init(&f->tcp);
	if (end <= l4 || mk_tcp_seg_parse(&seg, ip + l4, end - l4)) {
		w->cnt[MK_OFF_TCP_MALFORMED]++;
		return 0;
	}
	seg.dir = (uint8_t)(to_client ^ f->first_to_client);
	seg.csum_ok = !bad_csum;
	ret = mk_stream_packet(w->stream, &f->tcp, &seg, ts_us * 1000);
	return ret == MK_STREAM_REUSE;
}

static void worker_stream_end(struct worker *w, struct mk_flow *f)
{
	if (f->proto_class != MK_FLOW_PROTO_TCP)
		return;
	mk_stream_flow_end(w->stream, &f->tcp);
	mk_tcp_session_free(w->stream, &f->tcp);
}

/* ---- worker ------------------------------------------------------------ */

static void worker_flow_end(void *ctx, struct mk_flow *f, enum mk_flow_reason reason)
{
	struct worker *w = ctx;
	char line[MK_EVE_LINE_MAX];
	int n;

	worker_stream_end(w, f);
	if (!w->opts->log_dir)
		return;
	n = mk_eve_flow(line, sizeof(line), f, reason);
	if (n < 0 || mk_eve_buf_add(&w->eve, w->epoch, f->start_us, f->flow_id, line, (size_t)n))
		w->err = -ENOMEM;
	else
		w->flows_logged++;
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

static void worker_packet(struct worker *w, const struct pkt_hdr *h, const uint8_t *ip, int is_frame)
{
	const struct mk_parse *p = &h->parse;
	uint32_t l4 = p->l3.l4_off ? (uint32_t)(p->l3.l4_off - p->l3.l3_off) : 0;
	struct mk_flow_pkt fp = { .ts_us = h->ts_us, .len = MK_ETH_HLEN + h->ip_caplen };
	struct mk_flow *f;
	int bad = 0, to_client;

	if (p->flags & MK_META_F_FRAGMENT) {
		worker_defrag(w, h, ip);
		return;
	}
	if (w->opts->checksum)
		bad = worker_checksums(w, p, ip, h->ip_caplen);
	/* the parser checked the L4 header bytes are there */
	if (l4 && p->l3.proto == MK_IPPROTO_TCP)
		fp.tcp_flags = ip[l4 + 13] & 0x3f;
	else if (l4 && (p->l3.proto == MK_IPPROTO_ICMP || p->l3.proto == MK_IPPROTO_ICMPV6)) {
		fp.icmp_type = ip[l4];
		fp.icmp_code = ip[l4 + 1];
	}
	f = mk_flow_handle(&w->flows, p, &fp, &to_client);
	if (!f) {
		w->cnt[is_frame ? MK_OFF_NO_FLOW : MK_OFF_DGRAM_NO_FLOW]++;
		return;
	}
	w->cnt[is_frame ? MK_OFF_FLOW_PKT : MK_OFF_DGRAM_FLOW]++;
	if (p->l3.proto != MK_IPPROTO_TCP || !l4)
		return;
	if (worker_stream(w, f, to_client, ip, h->ip_caplen, p, bad, h->ts_us)) {
		/*
		 * TCP port reuse the flow table's own rule (a SYN on a closed
		 * flow) did not catch: this packet opens a new flow.
		 */
		w->cnt[MK_OFF_TCP_REUSE]++;
		f->pkts[to_client]--;
		f->bytes[to_client] -= fp.len;
		mk_flow_table_end(&w->flows, f, MK_FLOW_END_TIMEOUT);
		f = mk_flow_handle(&w->flows, p, &fp, &to_client);
		if (f)
			worker_stream(w, f, to_client, ip, h->ip_caplen, p, bad, h->ts_us);
	}
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

			w->cnt[MK_OFF_RX]++;
			worker_packet(w, h, (const uint8_t *)(h + 1), 1);
		} else if (r->kind == MK_PKTQ_TICK) {
			const struct tick_rec *t = (const void *)(r + 1);

			worker_seal_epoch(w);
			mk_flow_table_tick(&w->flows, t->now_us);
			worker_defrag_tick(w, t->now_us);
		} else if (r->kind == MK_PKTQ_END) {
			mk_pktq_release(&w->q, r);
			break;
		}
		mk_pktq_release(&w->q, r);
	}
	worker_defrag_finish(w);
	mk_flow_table_flush(&w->flows);
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
static int write_sealed(FILE *out, struct worker *ws, unsigned int n)
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
		err = mk_eve_merge_write(out, bufs, nb);
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
	unsigned int i, n = o->workers;
	int err, ret, ended = 0;

	memset(st, 0, sizeof(*st));
	if (!n || n > MK_MAX_WORKERS)
		return -EINVAL;
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
		ws[i].id = i;
		ws[i].conf = c;
		ws[i].opts = o;
		ws[i].pcfg = pcfg;
		ws[i].itable = itable;
		ws[i].nworkers = n;
		ws[i].mesh = mesh;
		ws[i].peers = ws;
		ws[i].disp = &disp;
		ws[i].stash = calloc(n, sizeof(*ws[i].stash));
		if (!ws[i].stash) {
			err = -ENOMEM;
			goto out_workers;
		}
		err = mk_flow_table_init(&ws[i].flows, &c->flow, o->seed, worker_flow_end, &ws[i]);
		if (!err && mk_pktq_init(&ws[i].q, PKTQ_SIZE))
			err = -ENOMEM;
		if (!err)
			err = worker_stream_init(&ws[i]);
		if (!err)
			err = worker_defrag_init(&ws[i]);
		if (err) {
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
			err = write_sealed(eve, ws, n);
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
		int k;

		for (k = MK_OFF_RX; k < MK_OFF_CNT_MAX; k++)
			st->cnt[k] += ws[i].cnt[k];
		for (k = 0; k < MK_FLOW_CNT_MAX; k++)
			st->flow_cnt[k] += ws[i].flows.cnt[k];
		st->flows_logged += ws[i].flows_logged;
		mk_stream_stats_add(&st->stream, mk_stream_engine_stats(ws[i].stream));
		{
			struct mk_defrag_stats ds;

			mk_defrag_get_stats(ws[i].defrag, &ds);
			mk_defrag_stats_add(&st->defrag, &ds);
		}
		st->queue_full_waits += ws[i].q.full_waits;
		if (ws[i].err && !err)
			err = ws[i].err;
	}
	if (!err)
		err = write_sealed(eve, ws, n);
out_workers:
	for (i = 0; i < n; i++) {
		struct eve_chunk *ch = ws[i].sealed_head, *nx;

		for (; ch; ch = nx) {
			nx = ch->next;
			mk_eve_buf_free(&ch->buf);
			free(ch);
		}
		mk_flow_table_free(&ws[i].flows);
		if (ws[i].stream)
			mk_stream_engine_free(ws[i].stream);
		if (ws[i].defrag)
			mk_defrag_destroy(ws[i].defrag);
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
	return err;
}

void mk_offline_print_summary(FILE *out, const struct mk_offline_stats *st)
{
	double s = st->elapsed_s > 0 ? st->elapsed_s : 1e-9;
	uint64_t accounted;
	int i;

	fprintf(out, "meerkat: %llu packets, %llu bytes, %llu flows logged in %.3f s (%.0f pkt/s, %.3f Gbit/s)\n",
		(unsigned long long)st->cnt[MK_OFF_READ], (unsigned long long)st->bytes_read,
		(unsigned long long)st->flows_logged, st->elapsed_s, (double)st->cnt[MK_OFF_READ] / s,
		(double)st->bytes_read * 8 / s / 1e9);
	for (i = 0; i < MK_OFF_CNT_MAX; i++)
		fprintf(out, "  %-18s %llu\n", mk_off_counter_names[i], (unsigned long long)st->cnt[i]);
	for (i = 1; i < MK_REASON_MAX; i++)
		if (st->parse_err[i])
			fprintf(out, "  %-18s %llu\n", mk_stat_descs[mk_reason_stat(i)].name,
				(unsigned long long)st->parse_err[i]);
	for (i = 0; i < MK_FLOW_CNT_MAX; i++)
		fprintf(out, "  %-18s %llu\n", mk_flow_counter_names[i], (unsigned long long)st->flow_cnt[i]);
	/* not a drop: times the reader waited for a worker's queue */
	fprintf(out, "  %-18s %llu\n", "queue_full_waits", (unsigned long long)st->queue_full_waits);
	for (i = 0; i < MK_STREAM_STAT_MAX; i++)
		fprintf(out, "  stream.%-18s %llu\n", mk_stream_stat_name(i), (unsigned long long)st->stream.c[i]);
	mk_defrag_stats_print(&st->defrag, out);
	/* DESIGN 1.5: every frame ends in exactly one counter */
	accounted = st->cnt[MK_OFF_NON_IP] + st->cnt[MK_OFF_PARSE_ERROR] + st->cnt[MK_OFF_CIDR_BYPASS] +
		    st->cnt[MK_OFF_FLOW_PKT] + st->cnt[MK_OFF_FRAG_HELD] +
		    st->cnt[MK_OFF_FRAG_DROPPED] + st->cnt[MK_OFF_NO_FLOW];
	/* and every reassembled datagram ends in one datagram outcome */
	if (st->cnt[MK_OFF_DGRAM] != st->cnt[MK_OFF_DGRAM_FLOW] + st->cnt[MK_OFF_DGRAM_NO_FLOW] +
					     st->cnt[MK_OFF_DGRAM_BAD] + st->cnt[MK_OFF_DGRAM_HANDOFF_DROP])
		fprintf(out, "  ACCOUNTING MISMATCH: %llu datagrams reassembled, %llu accounted\n",
			(unsigned long long)st->cnt[MK_OFF_DGRAM],
			(unsigned long long)(st->cnt[MK_OFF_DGRAM_FLOW] + st->cnt[MK_OFF_DGRAM_NO_FLOW] +
					     st->cnt[MK_OFF_DGRAM_BAD] + st->cnt[MK_OFF_DGRAM_HANDOFF_DROP]));
	if (accounted != st->cnt[MK_OFF_READ] || st->cnt[MK_OFF_RX] != st->cnt[MK_OFF_DISPATCHED])
		fprintf(out, "  ACCOUNTING MISMATCH: read %llu, accounted %llu\n",
			(unsigned long long)st->cnt[MK_OFF_READ], (unsigned long long)accounted);
}
