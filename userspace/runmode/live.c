// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live mode (live.h): the XDP program and AF_XDP sockets as the source, the
 * per-worker pipeline as the consumer, and the daemon around them.
 *
 * Set-up order, each step undone in reverse by one cleanup path:
 *   EVE file -> per interface: load the program (seed, rodata, XSKMAP sized
 *   Q x W, optional pinned bypass map), CIDR bypass list -> per queue: UMEM,
 *   then one socket per worker in XSKMAP slot q * W + w -> attach (stale
 *   meerkat programs replaced, native or generic) -> workers -> control
 *   socket. Sockets exist before the program runs, so the first frames
 *   already find them.
 *
 * A worker polls its sockets in turn (or, reading more than one, merges them
 * by the program's arrival stamp: rx_order.h), takes up to `batch`
 * descriptors from each, rebuilds the parse from the metadata in front of
 * every frame (common/meta_parse.h), runs the pipeline, clears the metadata's magic (a
 * recycled frame must not show a stale one), and gives the whole batch back
 * to the queue's fill ring in one critical section. Idle, it sleeps in
 * poll() on its sockets. Once a second it advances its pipeline's clock,
 * flushes its EVE lines and publishes a snapshot of its counters for the
 * stats, so no other thread ever reads its live state.
 *
 * Shutdown: detach the programs (no new frames), tell the workers, which
 * empty their rings until two passes find nothing, end every flow and
 * stop; then the final stats and the accounting check:
 *   frames the program redirected = frames workers took + socket drops.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "announcer.h"
#include "ctlsock.h"
#include "eve.h"
#include "eve_sink.h"
#include "outputs.h"
#include "icmp_error.h"
#include "ips.h"
#include "link.h"
#include "live.h"
#include "loader.h"
#include "log.h"
#include "manager.h"
#include "meta_parse.h"
#include "metrics_http.h"
#include "privs.h"
#include "rx_order.h"
#include "spsc.h"
#include "stats.h"
#include "worker.h"
#include "xsk.h"

#define MK_LIVE_CNT_NAME(name, str, doc) [MK_LIVE_##name] = str,
static const char *const live_counter_names[MK_LIVE_CNT_MAX] = { MK_LIVE_COUNTERS(
	MK_LIVE_CNT_NAME) };
#undef MK_LIVE_CNT_NAME

#define EVE_FLUSH_BYTES (64u << 10)
#define HANDOFF_SLOTS 1024
#define IDLE_POLL_MS 100
/*
 * Waking up costs far more than a frame (some 20 us on a 2-vCPU VM, against
 * well under 1 us of pipeline per frame), so a worker that has emptied its
 * rings sleeps a moment before the next pass instead of waking in poll() for
 * every frame, as AF_PACKET's TPACKET_V3 block timeout does. The pause
 * adapts: it halves when more than a quarter of an RX ring piled up during
 * it and doubles when less than an eighth did, between 50 us and 5 ms. A
 * worker that still finds a full batch never pauses.
 */
#define RX_PAUSE_MIN_NS 50000u
#define RX_PAUSE_MAX_NS 5000000u
#define RX_PAUSE_START_NS 1000000u

struct live;

/*
 * The workers' settings a reload changes (struct mk_worker_reload), by
 * value: a worker that sees a new generation copies them under the lock
 * between two batches, so no packet sees half of them.
 */
struct live_wset {
	pthread_mutex_t lock;
	_Atomic uint64_t gen; /* 0: nothing reloaded yet */
	struct mk_flow_cfg flow;
	struct mk_bypass_cfg bypass;
	struct mk_worker_reload r;
};

/*
 * A worker's view of one socket's RX ring when it merges its rings in
 * arrival order (rx_order.h): descriptors peeked and not yet released, and
 * how many of them the pipeline has taken.
 */
struct live_rx {
	uint32_t idx;  /* the first peeked descriptor not released yet */
	uint32_t n;    /* peeked from idx on */
	uint32_t done; /* taken by the pipeline, from idx on */
	uint8_t full;  /* the last look stopped at a batch: the ring may hold more */
};

struct live_sock {
	struct mk_xsk_sock xs;
	unsigned int iface, queue;
	struct mk_xsk_sock *peer; /* inline: the same worker's socket on the peer interface */
};

struct live_iface {
	char name[IF_NAMESIZE];
	int ifindex;
	uint32_t queues;
	struct mk_loader loader;
	int loaded;
	struct mk_xsk_umem *umems; /* [queues] */
	struct live_sock *socks;   /* [queues * W]: slot q * W + w */
	int attached;		   /* meerkat's program ran here (inline: fail-open may follow) */
};

/*
 * A packet on its way to the worker that owns it: a reassembled datagram
 * (its 5-tuple's owner), or an ICMP error frame (the owner of the flow it
 * quotes; the program steered it by its own hash).
 */
struct handoff {
	struct mk_parse parse;
	uint64_t ts_us;
	uint32_t len;
	uint8_t is_frame; /* a frame from a socket, not a datagram */
	uint8_t data[];
};

struct live_snap {
	uint64_t cnt[MK_LIVE_CNT_MAX];
	struct mk_worker_stats pipe;
	uint32_t flows_active;
	uint64_t swap_max_ns; /* the longest wait of a packet for a reloaded engine */
};

struct live_worker {
	pthread_t thread;
	unsigned int id;
	int cpu;
	int started;
	struct live *lv;
	struct mk_worker pipe;
	struct live_sock **socks;
	unsigned int nsocks;
	struct pollfd *pfds;
	uint64_t *addrs;	  /* one batch of frame addresses to give back */
	struct live_rx *rx;	  /* [nsocks], when the rings are merged in arrival order */
	struct mk_rx_head *heads; /* [nsocks] */
	uint32_t window;	  /* capture.reorder-window-us in stamp ticks */
	uint64_t cnt[MK_LIVE_CNT_MAX];
	char *eve; /* lines not yet written */
	size_t eve_len;
	uint64_t eve_recs;
	uint64_t last_tick_us;
	uint32_t pause_ns;    /* the adaptive pause after an emptied pass */
	uint32_t since_pause; /* frames taken since the last pause */
	uint64_t wset_gen;    /* the reloaded settings this worker took (struct live_wset) */
	pthread_mutex_t snap_lock;
	struct live_snap snap;
	int alert_kept; /* the last alert passed the filters (live_alert), for live_advise */
};

struct live {
	const struct mk_config *conf;
	const struct mk_live_opts *opts;
	struct mk_capture_cfg cap;	 /* with workers and queues resolved */
	struct mk_stream_cfg stream_cfg; /* the configuration's, inline_mode from capture.ips */
	struct live_iface ifaces[MK_MAX_IFACES];
	unsigned int nifaces;
	struct live_worker *ws;
	unsigned int nworkers;
	struct mk_spsc *mesh; /* n x n: mesh[from * n + to] */
	uint8_t itable[MK_ITABLE_SIZE];
	struct mk_outputs *outs; /* every EVE output, each with its writer thread */
	int eve_open;
	struct mk_ctl_server ctl;
	int ctl_open;
	struct mk_link_watch links; /* link down/up of the interfaces: the capture gaps */
	int links_open;
	struct mk_metrics_http *metrics; /* stats.prometheus; NULL when off */
	pthread_mutex_t stats_lock;	 /* the metrics thread's snapshot against link events */
	_Atomic int stop;
	uint64_t start_mono_ns;
	pthread_mutex_t thresh_lock; /* the alert filters see every worker's alerts */
	struct mk_detect_thresh *thresh;
	struct mk_bypass_mgr *bypass; /* the one writer of the bypass maps */
	struct mk_advisor *advise;    /* advise-router: the announcer, or NULL */
	char ctl_why[256];	      /* a control command's NOK message */
	sigset_t old_sigmask;	      /* the caller's, restored at the end */
	struct mk_reload reload;      /* the configuration reload (reload.h) */
	uint32_t eve_types;	      /* outputs.eve-log.types in force (a reload changes it) */
	struct live_wset wset;
};

static uint64_t now_real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the pipeline's callbacks ------------------------------------------- */

static int handoff_push(struct live_worker *w, unsigned int to, const struct mk_pkt *pkt,
			int is_frame)
{
	struct handoff *h = malloc(sizeof(*h) + pkt->ip_caplen);

	if (!h)
		return -ENOMEM;
	h->parse = *pkt->parse;
	h->ts_us = pkt->ts_us;
	h->len = pkt->ip_caplen;
	h->is_frame = (uint8_t)is_frame;
	memcpy(h->data, pkt->ip, pkt->ip_caplen);
	if (mk_spsc_push_ptr(&w->lv->mesh[w->id * w->lv->nworkers + to], h)) {
		free(h);
		return -ENOBUFS;
	}
	return 0;
}

static int live_handoff(void *ctx, unsigned int to, const struct mk_pkt *pkt)
{
	return handoff_push(ctx, to, pkt, 0);
}

static void worker_eve_flush(struct live_worker *w)
{
	if (!w->eve_len)
		return;
	/* into each output's buffer: a full one drops and counts, never waits */
	mk_outputs_write(w->lv->outs, w->eve, w->eve_len, w->eve_recs);
	w->eve_len = 0;
	w->eve_recs = 0;
}

static int live_record(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
		       size_t len)
{
	struct live_worker *w = ctx;

	(void)f;
	(void)ts_us; /* lines go out in the order flows end */
	if (w->eve_len + len + 1 > EVE_FLUSH_BYTES + MK_EVE_LINE_MAX)
		worker_eve_flush(w);
	memcpy(w->eve + w->eve_len, line, len);
	w->eve[w->eve_len + len] = '\n';
	w->eve_len += len + 1;
	w->eve_recs++;
	if (w->eve_len >= EVE_FLUSH_BYTES)
		worker_eve_flush(w);
	return 0;
}

/*
 * ops.alert: threshold, detection_filter and rate_filter count across
 * workers, in the order alerts arrive (live output has no global order).
 */
static int live_alert(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
		      size_t len, const struct mk_detect_thresh_key *key)
{
	struct live_worker *w = ctx;
	int keep = 1;

	if (key && w->lv->thresh) {
		pthread_mutex_lock(&w->lv->thresh_lock);
		keep = mk_detect_thresh_filter(w->lv->thresh, key, NULL);
		pthread_mutex_unlock(&w->lv->thresh_lock);
	}
	w->alert_kept = keep;
	return keep ? live_record(ctx, f, ts_us, line, len) : 0;
}

/* ops.advise: a kept alert the advise-router selects goes on this worker's queue. */
static void live_advise(void *ctx, const struct mk_detect_alert *a)
{
	struct live_worker *w = ctx;

	if (w->alert_kept && w->lv->advise)
		mk_advisor_alert(w->lv->advise, w->id, a);
}

/* The announcer's bgp_advise records (a line each, its newline included), to every output. */
static void advise_record(void *ctx, const char *line, size_t len)
{
	struct live *lv = ctx;

	if (lv->eve_open)
		mk_outputs_write(lv->outs, line, len, 1);
}

/* ops.bypass: a request on this worker's queue to the bypass manager, no syscall. */
static int live_bypass(void *ctx, const struct mk_flow *f)
{
	struct live_worker *w = ctx;

	return mk_bypass_mgr_request(w->lv->bypass, w->id, &f->key, f->flow_id);
}

/* ops.block (inline): the flow into (or out of) the driver's drop maps, through the manager. */
static int live_block(void *ctx, const struct mk_flow *f, int on)
{
	struct live_worker *w = ctx;

	return mk_bypass_mgr_request_drop(w->lv->bypass, w->id, &f->key, on);
}

static const struct mk_worker_ops live_ops = {
	.handoff = live_handoff,
	.record = live_record,
	.alert = live_alert,
	.bypass = live_bypass,
	.advise = live_advise,
	.block = live_block,
};

/* ---- worker ------------------------------------------------------------- */

/*
 * Inline: a reject verdict's frames, for TCP a RST toward the sender (on
 * the interface the frame came in by) and one onward (on the peer), as the
 * rule asked (reject, rejectboth: both; rejectsrc, rejectdst: one); an
 * ICMP port unreachable toward the sender otherwise.
 */
static void ips_reject(struct live_worker *w, struct live_sock *ls, const struct mk_parse *p,
		       const uint8_t *frame, uint32_t len)
{
	uint8_t out[MK_IPS_REJECT_MAX];
	uint32_t n;
	int dir;

	for (dir = 1; dir >= 0; dir--) {
		if (!(w->pipe.reject_dirs & (dir ? 1 : 2)))
			continue;
		n = mk_ips_reject_build(frame, len, p, dir, out, sizeof(out));
		if (!n)
			continue;
		if (mk_xsk_tx_copy(dir ? &ls->xs : ls->peer, out, n))
			w->cnt[MK_LIVE_IPS_TX_FULL]++;
		else
			w->cnt[MK_LIVE_IPS_REJECT_SENT]++;
	}
}

/*
 * Inline: what the pipeline decided about the frame (enum
 * mk_worker_verdict): on to the peer interface, dropped, or rejected;
 * frames nobody could inspect as ips.unparsable says.
 */
static void ips_verdict(struct live_worker *w, struct live_sock *ls, const struct mk_parse *p,
			const uint8_t *frame, uint32_t len, int verdict)
{
	int drop = w->lv->cap.ips_unparsable == MK_IPS_DROP;

	switch (verdict) {
	case MK_VERDICT_REJECT:
		ips_reject(w, ls, p, frame, len);
		/* fall through */
	case MK_VERDICT_DROP:
		w->cnt[MK_LIVE_IPS_DROPPED]++;
		return;
	case MK_VERDICT_UNPARSABLE:
		w->cnt[drop ? MK_LIVE_IPS_UNPARSABLE_DROP : MK_LIVE_IPS_UNPARSABLE_FWD]++;
		break;
	case MK_VERDICT_NO_FLOW:
		w->cnt[drop ? MK_LIVE_IPS_NO_FLOW_DROP : MK_LIVE_IPS_NO_FLOW_FWD]++;
		break;
	default:
		drop = 0;
		break;
	}
	if (drop)
		return;
	if (mk_xsk_tx_copy(ls->peer, frame, len))
		w->cnt[MK_LIVE_IPS_TX_FULL]++;
	else
		w->cnt[MK_LIVE_IPS_FORWARDED]++;
}

static void worker_frame(struct live_worker *w, struct live_sock *ls, const struct mk_meta *m,
			 const uint8_t *frame, uint32_t len, uint64_t ts_us)
{
	struct mk_parse p;
	struct mk_pkt pkt;
	int r = m ? mk_parse_from_meta(&p, m, frame, len) : MK_META_NONE;

	w->cnt[MK_LIVE_SOCK_RX]++;
	w->cnt[MK_LIVE_SOCK_BYTES] += len;
	if (r != MK_META_OK) {
		struct mk_frame f = { .data = frame, .data_end = frame + len };

		/* counted, then parsed here: never trusted, never lost silently */
		w->cnt[r == MK_META_NONE ? MK_LIVE_META_MISSING : MK_LIVE_META_BAD]++;
		if (mk_parse_frame(&f, MK_START_ETH, &w->pipe.pcfg, &p) != MK_PARSE_IP) {
			w->cnt[MK_LIVE_USER_PARSE_FAIL]++;
			if (ls->peer)
				ips_verdict(w, ls, &p, frame, len, MK_VERDICT_UNPARSABLE);
			return;
		}
	}
	pkt = (struct mk_pkt){ .parse = &p,
			       .ip = frame + p.l3.l3_off,
			       .ip_caplen = len - p.l3.l3_off,
			       .ts_us = ts_us };
	/*
	 * The program steers an ICMP error by its own hash; the flow it quotes
	 * may live on another worker: send it there. A full ring keeps it here,
	 * where it forms a flow of its own (counted by the pipeline).
	 */
	if (w->lv->nworkers > 1 &&
	    (p.l3.proto == MK_IPPROTO_ICMP || p.l3.proto == MK_IPPROTO_ICMPV6) &&
	    mk_icmp_is_error(&p, pkt.ip, pkt.ip_caplen)) {
		unsigned int to = w->lv->itable[mk_worker_steer_hash(&p, pkt.ip, pkt.ip_caplen,
								     w->pipe.pcfg.seed) %
						MK_ITABLE_SIZE];

		if (to != w->id) {
			if (!handoff_push(w, to, &pkt, 1)) {
				w->cnt[MK_LIVE_ICMP_STEERED]++;
				/* inline: inspected by its owner, forwarded now */
				if (ls->peer)
					ips_verdict(w, ls, &p, frame, len, MK_VERDICT_FORWARD);
				return;
			}
			w->cnt[MK_LIVE_ICMP_STEER_FULL]++;
		}
	}
	mk_worker_packet(&w->pipe, &pkt);
	if (ls->peer)
		ips_verdict(w, ls, &p, frame, len, w->pipe.verdict);
}

/* One batch from one socket; returns the number of frames taken. */
static uint32_t worker_rx(struct live_worker *w, struct live_sock *ls)
{
	struct mk_xsk_sock *s = &ls->xs;
	struct mk_xsk_umem *u = s->umem;
	uint32_t idx, i, n;
	uint64_t ts_us;

	n = xsk_ring_cons__peek(&s->rx, w->lv->cap.batch, &idx);
	if (!n) {
		if (w->lv->cap.busy_poll || xsk_ring_prod__needs_wakeup(&u->fill))
			mk_xsk_sock_kick(s);
		return 0;
	}
	/* AF_XDP frames carry no timestamp: one clock read per batch */
	ts_us = now_real_us();
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&s->rx, idx + i);
		uint64_t base = mk_xsk_frame_base(u, d->addr);
		uint8_t *frame = xsk_umem__get_data(u->area, d->addr);
		struct mk_meta *m = NULL;

		if (d->addr - base >= sizeof(*m) && d->len <= u->frame_size - (d->addr - base))
			m = (struct mk_meta *)(frame - sizeof(*m));
		worker_frame(w, ls, m, frame, d->len, ts_us);
		if (m)
			m->type_magic = 0;
		w->addrs[i] = base;
	}
	xsk_ring_cons__release(&s->rx, n);
	mk_xsk_umem_refill(u, w->addrs, n);
	w->cnt[MK_LIVE_REFILLED] += n;
	return n;
}

/* ---- arrival order across the worker's rings (rx_order.h) ---- */

static uint32_t now_stamp(void)
{
	return mk_meta_stamp_of_ns(now_mono_ns());
}

/* The metadata in front of a received frame, or NULL when the headroom cannot hold it. */
static struct mk_meta *rx_meta(const struct mk_xsk_umem *u, const struct xdp_desc *d)
{
	uint64_t base = mk_xsk_frame_base(u, d->addr);

	if (d->addr - base < sizeof(struct mk_meta) || d->len > u->frame_size - (d->addr - base))
		return NULL;
	return (struct mk_meta *)((uint8_t *)xsk_umem__get_data(u->area, d->addr) -
				  sizeof(struct mk_meta));
}

/* Tops the ring's peeked descriptors up to a batch; a short answer means it is empty. */
static void rx_look(struct live_worker *w, struct live_sock *ls, struct live_rx *rx)
{
	struct mk_xsk_sock *s = &ls->xs;
	uint32_t want = w->lv->cap.batch - rx->n, got, idx;

	/* the peek answers from its cached producer first: ask again until it reads the ring's */
	while (want && (got = xsk_ring_cons__peek(&s->rx, want, &idx))) {
		if (!rx->n)
			rx->idx = idx;
		rx->n += got;
		want -= got;
	}
	rx->full = !want;
	if (!rx->n && (w->lv->cap.busy_poll || xsk_ring_prod__needs_wakeup(&s->umem->fill)))
		mk_xsk_sock_kick(s);
}

static void rx_head(struct live_worker *w, unsigned int i, uint32_t now)
{
	struct live_rx *rx = &w->rx[i];
	struct mk_xsk_sock *s = &w->socks[i]->xs;
	const struct mk_meta *m;

	if (rx->done == rx->n) {
		w->heads[i].state = rx->full ? MK_RX_HEAD_UNKNOWN : MK_RX_HEAD_EMPTY;
		return;
	}
	m = rx_meta(s->umem, xsk_ring_cons__rx_desc(&s->rx, rx->idx + rx->done));
	w->heads[i].state = MK_RX_HEAD_FRAME;
	w->heads[i].age = m && mk_meta_magic(m) == MK_META_MAGIC ?
				  mk_meta_stamp_age(now, mk_meta_stamp(m)) :
				  MK_RX_AGE_NOW;
}

/* The frame at the head of ring @i to the pipeline. */
static void rx_take(struct live_worker *w, unsigned int i, uint64_t ts_us)
{
	struct live_rx *rx = &w->rx[i];
	struct mk_xsk_sock *s = &w->socks[i]->xs;
	const struct xdp_desc *d = xsk_ring_cons__rx_desc(&s->rx, rx->idx + rx->done);
	struct mk_meta *m = rx_meta(s->umem, d);

	worker_frame(w, w->socks[i], m, xsk_umem__get_data(s->umem->area, d->addr), d->len, ts_us);
	if (m)
		m->type_magic = 0;
	rx->done++;
}

/* Releases what the pipeline took from ring @i and gives the frames back in one refill. */
static void rx_release(struct live_worker *w, unsigned int i)
{
	struct live_rx *rx = &w->rx[i];
	struct mk_xsk_sock *s = &w->socks[i]->xs;
	uint32_t k;

	if (!rx->done)
		return;
	for (k = 0; k < rx->done; k++)
		w->addrs[k] = mk_xsk_frame_base(s->umem,
						xsk_ring_cons__rx_desc(&s->rx, rx->idx + k)->addr);
	xsk_ring_cons__release(&s->rx, rx->done);
	mk_xsk_umem_refill(s->umem, w->addrs, rx->done);
	w->cnt[MK_LIVE_REFILLED] += rx->done;
	rx->idx += rx->done;
	rx->n -= rx->done;
	rx->done = 0;
}

/*
 * One pass over every ring in arrival order: look at each, then take the
 * oldest head while rx_order.h lets it go. Returns the frames taken; *full
 * when a ring had a whole batch, *hold_ns when frames wait for the window.
 * Draining, the window is 0: the rings hold all there is.
 */
static uint32_t worker_rx_ordered(struct live_worker *w, int draining, int *full, uint64_t *hold_ns)
{
	uint32_t window = draining ? 0 : w->window, now, limit = 0, wait = 0, got = 0;
	uint64_t ts_us;
	unsigned int i;
	int k;

	*full = 0;
	*hold_ns = 0;
	for (i = 0; i < w->nsocks; i++) {
		rx_look(w, w->socks[i], &w->rx[i]);
		*full |= w->rx[i].full;
	}
	/* after the looks: every frame seen was stamped before now */
	now = now_stamp();
	ts_us = now_real_us();
	for (i = 0; i < w->nsocks; i++)
		rx_head(w, i, now);
	while ((k = mk_rx_order_next(w->heads, w->nsocks, window, &limit, &wait)) >= 0) {
		do {
			rx_take(w, (unsigned int)k, ts_us);
			got++;
			rx_head(w, (unsigned int)k, now);
		} while (w->heads[k].state == MK_RX_HEAD_FRAME && w->heads[k].age >= limit);
	}
	if (k == MK_RX_ORDER_HOLD)
		*hold_ns = (uint64_t)wait << MK_META_STAMP_SHIFT;
	for (i = 0; i < w->nsocks; i++)
		rx_release(w, i);
	return got;
}

/*
 * Merging needs more than one ring and a window; the loader stamps frames
 * under the same condition (rx_stamp_wanted()). 0, or -ENOMEM.
 */
static int worker_order_init(struct live_worker *w)
{
	uint64_t ticks =
		((uint64_t)w->lv->cap.reorder_window_us * 1000 + (1u << MK_META_STAMP_SHIFT) - 1) >>
		MK_META_STAMP_SHIFT;

	if (w->nsocks < 2 || !ticks)
		return 0;
	w->rx = calloc(w->nsocks, sizeof(*w->rx));
	w->heads = calloc(w->nsocks, sizeof(*w->heads));
	if (!w->rx || !w->heads) {
		free(w->rx);
		free(w->heads);
		w->rx = NULL;
		w->heads = NULL;
		return -ENOMEM;
	}
	w->window = (uint32_t)ticks;
	return 0;
}

static void worker_handoffs(struct live_worker *w)
{
	struct live *lv = w->lv;
	unsigned int from;
	struct handoff *h;

	for (from = 0; from < lv->nworkers; from++) {
		if (from == w->id)
			continue;
		while ((h = mk_spsc_pop_ptr(&lv->mesh[from * lv->nworkers + w->id]))) {
			struct mk_pkt pkt = { .parse = &h->parse,
					      .ip = h->data,
					      .ip_caplen = h->len,
					      .ts_us = h->ts_us };

			if (h->is_frame)
				mk_worker_packet(&w->pipe, &pkt);
			else
				mk_worker_datagram(&w->pipe, &pkt);
			free(h);
		}
	}
}

/* What the bypass manager says about this worker's flows: failed inserts, expired entries. */
static void worker_bypass_news(struct live_worker *w)
{
	struct mk_worker_bypass_msg msg[32];
	unsigned int n, i;

	while ((n = mk_bypass_mgr_news(w->lv->bypass, w->id, msg, 32)))
		for (i = 0; i < n; i++)
			mk_worker_bypass_news(&w->pipe, &msg[i]);
}

/* Between batches: settings a reload changed (one atomic load when nothing did). */
static void worker_reloaded(struct live_worker *w)
{
	struct live_wset *ws = &w->lv->wset;
	uint64_t gen = atomic_load_explicit(&ws->gen, memory_order_acquire);

	if (gen == w->wset_gen)
		return;
	pthread_mutex_lock(&ws->lock);
	w->wset_gen = atomic_load_explicit(&ws->gen, memory_order_relaxed);
	mk_worker_reconfigure(&w->pipe, &ws->r);
	pthread_mutex_unlock(&ws->lock);
}

static void worker_publish(struct live_worker *w)
{
	pthread_mutex_lock(&w->snap_lock);
	memcpy(w->snap.cnt, w->cnt, sizeof(w->cnt));
	w->snap.swap_max_ns = w->pipe.detect ? mk_detect_thread_swap_max_ns(w->pipe.detect) : 0;
	memset(&w->snap.pipe, 0, sizeof(w->snap.pipe));
	mk_worker_stats_add(&w->snap.pipe, &w->pipe);
	w->snap.flows_active = mk_flow_table_active(&w->pipe.flows);
	pthread_mutex_unlock(&w->snap_lock);
}

static void worker_second(struct live_worker *w, uint64_t now_us)
{
	w->last_tick_us = now_us;
	mk_worker_tick(&w->pipe, now_us);
	/* a flow table under pressure asks for the bypass entries' emergency timeouts */
	mk_bypass_mgr_set_emergency(w->lv->bypass, w->id, w->pipe.flows.emergency);
	worker_eve_flush(w);
	worker_publish(w);
}

static void worker_pin(struct live_worker *w)
{
	cpu_set_t set;

	if (w->cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		mk_warn("worker %u: cannot pin to CPU %d", w->id, w->cpu);
}

/* The rings are empty for now: let frames gather (RX_PAUSE_*). */
static void worker_pause(struct live_worker *w)
{
	uint32_t ring = w->lv->cap.rx_size;
	struct timespec ts = { 0, 0 };

	if (w->since_pause > ring / 4 && w->pause_ns > RX_PAUSE_MIN_NS)
		w->pause_ns /= 2;
	else if (w->since_pause < ring / 8 && w->pause_ns < RX_PAUSE_MAX_NS)
		w->pause_ns *= 2;
	if (w->pause_ns < RX_PAUSE_MIN_NS)
		w->pause_ns = RX_PAUSE_MIN_NS;
	if (w->pause_ns > RX_PAUSE_MAX_NS)
		w->pause_ns = RX_PAUSE_MAX_NS;
	w->since_pause = 0;
	ts.tv_nsec = w->pause_ns;
	nanosleep(&ts, NULL);
}

static void *worker_main(void *arg)
{
	struct live_worker *w = arg;
	unsigned int i, empty_passes = 0;
	int draining = 0;

	worker_pin(w);
	if (worker_order_init(w))
		mk_warn("worker %u: no memory to merge its rings: arrival order not kept", w->id);
	w->last_tick_us = now_real_us();
	w->pause_ns = RX_PAUSE_START_NS;
	for (;;) {
		uint32_t got = 0, n;
		int full = 0;
		uint64_t now, hold_ns = 0;

		if (w->rx) {
			got = worker_rx_ordered(w, draining, &full, &hold_ns);
		} else {
			for (i = 0; i < w->nsocks; i++) {
				n = worker_rx(w, w->socks[i]);
				full |= n == w->lv->cap.batch;
				got += n;
			}
		}
		/* inline: what the pass queued for transmission leaves now */
		if (w->lv->cap.ips)
			for (i = 0; i < w->nsocks; i++)
				mk_xsk_tx_kick(&w->socks[i]->xs);
		worker_handoffs(w);
		worker_bypass_news(w);
		worker_reloaded(w);
		now = now_real_us();
		if (now - w->last_tick_us >= 1000000)
			worker_second(w, now);
		if (got) {
			empty_passes = 0;
			w->since_pause += got;
			/* inline: a frame waiting in the ring is a frame delayed on the link */
			if (!full && !draining && !w->lv->cap.ips)
				worker_pause(w);
			continue;
		}
		w->since_pause = 0;
		if (hold_ns) {
			/* frames wait for the window: a short sleep, not poll(), which sees them */
			struct timespec ts = { 0, (long)hold_ns };

			nanosleep(&ts, NULL);
			continue;
		}
		if (!draining && atomic_load_explicit(&w->lv->stop, memory_order_acquire)) {
			/* the programs are detached: what is in the rings is all there is */
			draining = 1;
			empty_passes = 0;
		}
		/* the driver's counts of the flows it bypassed come before the flows end */
		if (draining && ++empty_passes >= 2 && mk_bypass_mgr_final_done(w->lv->bypass))
			break;
		poll(w->pfds, w->nsocks, draining ? 10 : IDLE_POLL_MS);
	}
	worker_handoffs(w);
	worker_bypass_news(w);
	mk_worker_finish(&w->pipe);
	worker_eve_flush(w);
	worker_publish(w);
	free(w->rx);
	free(w->heads);
	return NULL;
}

/* ---- statistics --------------------------------------------------------- */

struct live_totals {
	__u64 xdp[MK_STAT_MAX];
	struct xdp_statistics sock;
	uint64_t live[MK_LIVE_CNT_MAX];
	struct mk_worker_stats pipe;
};

static void json_set_u64(json_t *o, const char *k, uint64_t v)
{
	json_object_set_new(o, k, json_integer((json_int_t)v));
}

static void add_pipe_counter(const char *group, const char *name, uint64_t value, void *arg)
{
	json_t *root = arg, *g = json_object_get(root, group);

	if (!g) {
		g = json_object();
		json_object_set_new(root, group, g);
	}
	json_set_u64(g, name, value);
}

/*
 * The `stats` object of the EVE stats event and of `meerkatctl stats`:
 * uptime, the programs' counters, each socket's XDP_STATISTICS, each
 * worker's share, the pipeline's counters, EVE output, and the capture
 * accounting. @t receives the totals for the caller's checks.
 */
static json_t *ruleset_json(struct mk_detect_master *m);

static json_t *live_stats(struct live *lv, struct live_totals *t)
{
	json_t *root = json_object(), *xdp = json_object(), *socks = json_array(),
	       *workers = json_array(), *cap = json_object(), *eve = json_object(), *o;
	__u64 v[MK_STAT_MAX];
	struct mk_stat_sums sums;
	uint64_t written, lost, drops, swap_max_ns = 0;
	unsigned int i, q, w, k;

	memset(t, 0, sizeof(*t));
	json_set_u64(root, "uptime", (now_mono_ns() - lv->start_mono_ns) / 1000000000ull);
	/*
	 * Read in the order frames travel backwards: the workers' snapshots,
	 * then the sockets, then the program. Counters only grow, so frames
	 * counted downstream are always among those counted upstream and
	 * in_flight cannot go negative.
	 */
	for (w = 0; w < lv->nworkers; w++) {
		struct live_worker *lw = &lv->ws[w];
		struct live_snap s;

		pthread_mutex_lock(&lw->snap_lock);
		s = lw->snap;
		pthread_mutex_unlock(&lw->snap_lock);
		o = json_pack("{s:i,s:i}", "id", (int)w, "cpu", lw->cpu);
		json_set_u64(o, "pkts", s.cnt[MK_LIVE_SOCK_RX]);
		json_set_u64(o, "bytes", s.cnt[MK_LIVE_SOCK_BYTES]);
		json_set_u64(o, "flows_active", s.flows_active);
		json_set_u64(o, "flows_created", s.pipe.flow_cnt[MK_FLOW_CNT_CREATED]);
		json_array_append_new(workers, o);
		if (s.swap_max_ns > swap_max_ns)
			swap_max_ns = s.swap_max_ns;
		for (k = 0; k < MK_LIVE_CNT_MAX; k++)
			t->live[k] += s.cnt[k];
		for (k = 0; k < MK_WORKER_CNT_MAX; k++)
			t->pipe.cnt[k] += s.pipe.cnt[k];
		for (k = 0; k < MK_DETECT_CNT_MAX; k++)
			t->pipe.detect[k] += s.pipe.detect[k];
		for (k = 0; k < MK_APP_CNT_MAX; k++)
			t->pipe.app[k] += s.pipe.app[k];
		for (k = 0; k < MK_FLOW_CNT_MAX; k++)
			t->pipe.flow_cnt[k] += s.pipe.flow_cnt[k];
		t->pipe.flows_logged += s.pipe.flows_logged;
		if (s.pipe.flow_chain_max > t->pipe.flow_chain_max)
			t->pipe.flow_chain_max = s.pipe.flow_chain_max;
		mk_stream_stats_add(&t->pipe.stream, &s.pipe.stream);
		mk_defrag_stats_add(&t->pipe.defrag, &s.pipe.defrag);
	}
	json_object_set_new(root, "workers", workers);

	for (i = 0; i < lv->nifaces; i++) {
		struct live_iface *ifc = &lv->ifaces[i];

		if (!ifc->loaded)
			continue;
		for (q = 0; q < ifc->queues; q++) {
			for (w = 0; w < lv->nworkers; w++) {
				struct live_sock *ls = &ifc->socks[q * lv->nworkers + w];
				struct xdp_statistics st;

				if (!ls->xs.xsk || mk_xsk_sock_stats(&ls->xs, &st))
					continue;
				o = json_pack("{s:s,s:i,s:i}", "iface", ifc->name, "queue", (int)q,
					      "worker", (int)w);
#define X(name, doc)                     \
	json_set_u64(o, #name, st.name); \
	t->sock.name += st.name;
				MK_XSK_STATS(X)
#undef X
				json_array_append_new(socks, o);
			}
		}
		if (mk_loader_stats_read(&ifc->loader, v))
			continue;
		for (k = 0; k < MK_STAT_MAX; k++)
			t->xdp[k] += v[k];
	}
	for (k = 0; k < MK_STAT_MAX; k++)
		json_set_u64(xdp, mk_stat_descs[k].name, t->xdp[k]);
	json_object_set_new(root, "xdp", xdp);
	json_object_set_new(root, "sockets", socks);

	for (k = 0; k < MK_LIVE_CNT_MAX; k++)
		json_set_u64(cap, live_counter_names[k], t->live[k]);
	drops = t->sock.rx_dropped + t->sock.rx_ring_full;
	json_set_u64(cap, "kernel_packets", t->xdp[MK_STAT_REDIRECT_XSK]);
	json_set_u64(cap, "kernel_drops", drops);
	/* redirected, neither dropped nor taken yet (in the rings, or taken since the last snapshot) */
	json_set_u64(cap, "in_flight",
		     t->xdp[MK_STAT_REDIRECT_XSK] - t->live[MK_LIVE_SOCK_RX] - drops);
	if (lv->links_open) {
		uint64_t downs, down_ms;

		mk_link_watch_totals(&lv->links, &downs, &down_ms);
		json_set_u64(cap, "link_down", downs);
		json_set_u64(cap, "link_down_ms", down_ms);
	}
	json_object_set_new(root, "capture", cap);
	sums = mk_stat_sum(t->xdp);
	json_object_set_new(root, "invariant",
			    json_pack("{s:I,s:I,s:I,s:I,s:b}", "rx", (json_int_t)t->xdp[MK_STAT_RX],
				      "outcome_sum", (json_int_t)sums.outcomes, "pass_error",
				      (json_int_t)t->xdp[MK_STAT_PASS_ERROR], "err_sum",
				      (json_int_t)sums.errors, "holds",
				      mk_stat_invariant_holds(t->xdp)));

	mk_worker_stats_foreach(&t->pipe, add_pipe_counter, root);
	if (lv->bypass)
		json_object_set_new(root, "bypass", mk_bypass_mgr_stats_json(lv->bypass));
	if (lv->opts->detect)
		json_object_set_new(root, "rules", ruleset_json(lv->opts->detect));
	o = mk_reload_stats_json(&lv->reload);
	json_set_u64(o, "swap_stall_max_us", swap_max_ns / 1000);
	json_object_set_new(root, "reload", o);
	if (lv->advise)
		json_object_set_new(root, "advise", mk_advisor_stats_json(lv->advise));
	if (lv->eve_open) {
		/* the first output's, as before several outputs; each one's in `outputs` */
		mk_outputs_first_counts(lv->outs, &written, &lost);
		json_set_u64(eve, "written", written);
		json_set_u64(eve, "lost", lost);
		json_object_set_new(eve, "outputs", mk_outputs_json(lv->outs));
	}
	json_object_set_new(root, "eve", eve);
	return root;
}

static void live_stats_event(struct live *lv)
{
	char ts[MK_EVE_TS_LEN], *text;
	struct live_totals t;
	json_t *ev;
	size_t len;

	if (!lv->eve_open || !(lv->eve_types & MK_EVE_TYPE_STATS))
		return;
	mk_eve_ts(ts, now_real_us());
	ev = json_pack("{s:s,s:s,s:o}", "timestamp", ts, "event_type", "stats", "stats",
		       live_stats(lv, &t));
	text = json_dumps(ev, JSON_COMPACT);
	if (text) {
		len = strlen(text);
		text[len] = '\n';
		mk_outputs_write(lv->outs, text, len + 1, 1);
	}
	free(text);
	json_decref(ev);
}

/*
 * The metrics endpoint's snapshot, taken on its thread at each scrape: the
 * stats `meerkatctl stats` shows, and each worker's own counters under
 * workers[].pipeline (capture, worker, flow, stream, defrag, detect,
 * app_layer), which Prometheus labels by worker.
 */
static json_t *live_metrics_snapshot(void *ctx)
{
	struct live *lv = ctx;
	struct live_totals t;
	json_t *st, *ws;
	unsigned int w, k;

	pthread_mutex_lock(&lv->stats_lock);
	st = live_stats(lv, &t);
	pthread_mutex_unlock(&lv->stats_lock);
	ws = json_object_get(st, "workers");
	for (w = 0; w < lv->nworkers; w++) {
		json_t *p = json_object(), *cap = json_object();
		struct live_snap s;

		pthread_mutex_lock(&lv->ws[w].snap_lock);
		s = lv->ws[w].snap;
		pthread_mutex_unlock(&lv->ws[w].snap_lock);
		for (k = 0; k < MK_LIVE_CNT_MAX; k++)
			json_set_u64(cap, live_counter_names[k], s.cnt[k]);
		json_object_set_new(p, "capture", cap);
		mk_worker_stats_foreach(&s.pipe, add_pipe_counter, p);
		json_object_set_new(json_array_get(ws, w), "pipeline", p);
	}
	return st;
}

/* ---- control commands --------------------------------------------------- */

static json_t *cmd_ping(void *ctx, json_t *args, const char **why)
{
	(void)ctx;
	(void)args;
	(void)why;
	return json_string("pong");
}

static json_t *cmd_stats(void *ctx, json_t *args, const char **why)
{
	struct live_totals t;

	(void)args;
	(void)why;
	return live_stats(ctx, &t);
}

static json_t *cmd_status(void *ctx, json_t *args, const char **why)
{
	struct live *lv = ctx;
	json_t *r = json_object(), *ifs = json_array();
	unsigned int i, q;

	(void)args;
	(void)why;
	for (i = 0; i < lv->nifaces; i++) {
		struct live_iface *ifc = &lv->ifaces[i];
		json_t *zc = json_array();

		for (q = 0; q < ifc->queues; q++)
			json_array_append_new(
				zc, json_string(ifc->umems[q].zero_copy ? "zero-copy" : "copy"));
		json_array_append_new(ifs,
				      json_pack("{s:s,s:i,s:s,s:I,s:i,s:o}", "name", ifc->name,
						"ifindex", ifc->ifindex, "xdp_mode",
						mk_loader_attach_mode_name(&ifc->loader), "prog_id",
						(json_int_t)mk_loader_prog_id(&ifc->loader),
						"queues", (int)ifc->queues, "socket_mode", zc));
	}
	json_object_set_new(r, "interfaces", ifs);
	json_set_u64(r, "workers", lv->nworkers);
	json_set_u64(r, "uptime", (now_mono_ns() - lv->start_mono_ns) / 1000000000ull);
	json_object_set_new(r, "pid", json_integer(getpid()));
	json_object_set_new(r, "version", json_string(MK_VERSION));
	return r;
}

/* ---- rules: reload and rule set counters -------------------------------- */

static json_t *ruleset_json(struct mk_detect_master *m)
{
	struct mk_detect_status st;
	json_t *r = json_object(), *fail = json_object();
	int i;

	mk_detect_master_status(m, &st);
	json_set_u64(r, "generation", st.generation);
	json_set_u64(r, "rules_loaded", st.load.loaded);
	json_set_u64(r, "rules_failed", st.load.failed);
	for (i = 0; i < MK_DETECT_FAIL_MAX; i++)
		json_set_u64(fail, mk_detect_fail_names[i], st.load.fail[i]);
	json_object_set_new(r, "failed_by_reason", fail);
	json_set_u64(r, "files", st.load.files);
	json_set_u64(r, "without_fast_pattern", st.load.no_fast_pattern);
	json_set_u64(r, "load_time_ms", (uint64_t)(st.load.load_s * 1000));
	json_set_u64(r, "reloads_ok", st.reloads_ok);
	json_set_u64(r, "reloads_failed", st.reloads_failed);
	json_object_set_new(r, "reloading", json_boolean(st.reloading));
	json_object_set_new(r, "last_message", json_string(st.last_reload_msg));
	return r;
}

static json_t *cmd_ruleset_stats(void *ctx, json_t *args, const char **why)
{
	struct live *lv = ctx;

	(void)args;
	if (!lv->opts->detect) {
		*why = "no rules loaded (start with -S FILE)";
		return NULL;
	}
	return ruleset_json(lv->opts->detect);
}

/*
 * The configuration and the rules again (reload.h). Blocks this (the main)
 * thread until the new engine is built, so reloads never overlap; capture
 * goes on.
 */
static json_t *cmd_reload(void *ctx, json_t *args, const char **why)
{
	struct live *lv = ctx;
	json_t *r;

	(void)args;
	r = mk_reload_run(&lv->reload);
	if (!r) {
		/* the reload's own buffer: valid until the next reload, on this thread */
		*why = lv->reload.last_msg;
	}
	return r;
}

/* reload.h's target: the CIDR list through the bypass manager, the maps' one writer. */
static json_t *reload_cidr_set(void *ctx, json_t *prefixes, char *why, size_t len)
{
	struct live *lv = ctx;
	json_t *args = json_pack("{s:O}", "prefixes", prefixes), *r;
	const char *w = NULL;

	r = mk_bypass_mgr_command(lv->bypass, MK_BYPASS_OP_CIDR_SET, args, why, len, &w);
	json_decref(args);
	if (!r && w != why)
		snprintf(why, len, "%s", w ? w : "bypass.cidr: not applied");
	return r;
}

static json_t *reload_cidr_list(void *ctx)
{
	struct live *lv = ctx;
	const char *w = NULL;

	return mk_bypass_mgr_command(lv->bypass, MK_BYPASS_OP_CIDR_LIST, NULL, lv->ctl_why,
				     sizeof(lv->ctl_why), &w);
}

/* reload.h's target: the workers' settings (taken between batches) and the stats timer. */
static void live_settings(struct live *lv, const struct mk_config *c)
{
	struct live_wset *ws = &lv->wset;
	uint32_t types = mk_output_types(&c->output);

	pthread_mutex_lock(&ws->lock);
	ws->flow = c->flow;
	ws->bypass = c->bypass_cfg;
	ws->r = (struct mk_worker_reload){
		.flow = &ws->flow,
		.bypass = &ws->bypass,
		.log_flows = (types & MK_EVE_TYPE_FLOW) != 0,
		.log_alerts = (types & MK_EVE_TYPE_ALERT) != 0,
		.log_http = (types & MK_EVE_TYPE_HTTP) != 0,
		.log_dns = (types & MK_EVE_TYPE_DNS) != 0,
		.log_tls = (types & MK_EVE_TYPE_TLS) != 0,
		.log_files = (types & MK_EVE_TYPE_FILES) != 0,
		.log_app_types = types & (MK_EVE_TYPE_SSH | MK_EVE_TYPE_SMTP | MK_EVE_TYPE_FTP),
		.unreplied = c->output.eve.flow_unreplied,
		.payload = c->output.eve.alert_payload,
		.payload_printable = c->output.eve.alert_payload_printable,
		.tagged_packets = c->output.eve.alert_tagged_packets,
	};
	atomic_fetch_add_explicit(&ws->gen, 1, memory_order_release);
	pthread_mutex_unlock(&ws->lock);
	lv->eve_types = types;
	lv->cap.stats_interval = c->capture.stats_interval;
}

static void reload_live(void *ctx, const struct mk_config *c)
{
	live_settings(ctx, c);
}

/* ---- bypass: commands for the manager, the maps' one writer ------------- */

static json_t *bypass_cmd(struct live *lv, enum mk_bypass_op op, json_t *args, const char **why)
{
	return mk_bypass_mgr_command(lv->bypass, op, args, lv->ctl_why, sizeof(lv->ctl_why), why);
}

static json_t *cmd_bypass_list(void *ctx, json_t *args, const char **why)
{
	return bypass_cmd(ctx, MK_BYPASS_OP_LIST, args, why);
}

static json_t *cmd_bypass_add(void *ctx, json_t *args, const char **why)
{
	return bypass_cmd(ctx, MK_BYPASS_OP_ADD, args, why);
}

static json_t *cmd_bypass_del(void *ctx, json_t *args, const char **why)
{
	return bypass_cmd(ctx, MK_BYPASS_OP_DEL, args, why);
}

static json_t *cmd_bypass_cidr_list(void *ctx, json_t *args, const char **why)
{
	return bypass_cmd(ctx, MK_BYPASS_OP_CIDR_LIST, args, why);
}

static json_t *cmd_bypass_cidr_add(void *ctx, json_t *args, const char **why)
{
	return bypass_cmd(ctx, MK_BYPASS_OP_CIDR_ADD, args, why);
}

static json_t *cmd_bypass_cidr_del(void *ctx, json_t *args, const char **why)
{
	return bypass_cmd(ctx, MK_BYPASS_OP_CIDR_DEL, args, why);
}

/* The bypass manager over every interface's maps; started with the workers. */
static int bypass_create(struct live *lv)
{
	struct mk_loader *loaders[MK_MAX_IFACES];
	unsigned int i;

	for (i = 0; i < lv->nifaces; i++)
		loaders[i] = &lv->ifaces[i].loader;
	return mk_bypass_mgr_new(&lv->bypass, &lv->conf->bypass_cfg, &lv->conf->flow, loaders,
				 lv->nifaces, lv->nworkers, lv->conf->bypass, lv->conf->nbypass);
}

/* ---- set-up and tear-down ----------------------------------------------- */

/* Workers and their CPUs: the configuration's list, else the CPUs we may run on. */
static int resolve_workers(struct live *lv)
{
	struct mk_capture_cfg *cap = &lv->cap;
	int allowed[CPU_SETSIZE], nallowed = 0, i;
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				allowed[nallowed++] = i;
	if (!cap->workers)
		cap->workers = nallowed ? (uint32_t)nallowed : 1;
	if (cap->workers > MK_MAX_WORKERS) {
		mk_err("capture.workers: %u is more than %d", cap->workers, MK_MAX_WORKERS);
		return -EINVAL;
	}
	lv->nworkers = cap->workers;
	lv->ws = calloc(lv->nworkers, sizeof(*lv->ws));
	if (!lv->ws)
		return -ENOMEM;
	for (i = 0; i < (int)lv->nworkers; i++) {
		lv->ws[i].id = (unsigned int)i;
		lv->ws[i].lv = lv;
		if (cap->ncpus)
			lv->ws[i].cpu = cap->cpus[i % cap->ncpus];
		else
			lv->ws[i].cpu = nallowed ? allowed[i % nallowed] : -1;
		pthread_mutex_init(&lv->ws[i].snap_lock, NULL);
	}
	return 0;
}

static int iface_open(struct live *lv, struct live_iface *ifc, const struct mk_iface_cfg *ic)
{
	const struct mk_config *c = lv->conf;
	struct mk_loader_opts lo;
	char pin[PATH_MAX];
	unsigned int i;
	int n, err;

	snprintf(ifc->name, sizeof(ifc->name), "%s", ic->name);
	ifc->ifindex = (int)if_nametoindex(ic->name);
	if (!ifc->ifindex) {
		err = -errno;
		mk_err("%s: no such interface", ic->name);
		return err ? err : -ENODEV;
	}
	n = mk_iface_rx_queues(ic->name);
	if (n < 0) {
		mk_err("%s: cannot count its RX queues: %s", ic->name, strerror(-n));
		return n;
	}
	ifc->queues = ic->queues ? ic->queues : (uint32_t)n;
	if (ifc->queues > (uint32_t)n || ifc->queues > MK_MAX_QUEUES) {
		mk_err("%s: %u queues configured, the interface has %d (at most %d)", ic->name,
		       ifc->queues, n, MK_MAX_QUEUES);
		return -EINVAL;
	}
	mk_loader_opts_default(&lo);
	lo.seed = lv->opts->seed;
	lo.workers = lv->nworkers;
	lo.queues = ifc->queues;
	lo.tunnel_depth = c->parse.tunnel_depth;
	lo.l2tpv3_cookie_len = c->parse.l2tpv3_cookie_len;
	lo.l2tpv3_l2spec = c->parse.l2tpv3_l2spec;
	lo.tunnel_off = c->parse.tunnel_off;
	lo.vxlan_port = c->parse.vxlan_port;
	lo.geneve_port = c->parse.geneve_port;
	if (lv->cap.ips) {
		lo.mode = MK_MODE_IPS;
		lo.ips_unparsable = lv->cap.ips_unparsable;
		lo.ips_failure = lv->cap.ips_failure;
	}
	/* workers merge their rings by the stamp when they read more than one (worker_order_init) */
	lo.rx_stamp = lv->cap.reorder_window_us && (lv->cap.n_ifaces > 1 || ifc->queues > 1);
	if (lv->cap.pin_dir[0]) {
		snprintf(pin, sizeof(pin), "%s/%s", lv->cap.pin_dir, ic->name);
		if (mkdir(lv->cap.pin_dir, 0700) && errno != EEXIST) {
			err = -errno;
			mk_err("%s: %s", lv->cap.pin_dir, strerror(-err));
			return err;
		}
		lo.pin_dir = pin;
	}
	err = mk_loader_open(&ifc->loader, &lo);
	if (err)
		return err;
	ifc->loaded = 1;
	/* inline: bypassed flows and what nobody inspects go to the peer in the driver */
	if (ic->peer[0]) {
		int peer = (int)if_nametoindex(ic->peer);

		if (!peer) {
			mk_err("%s: peer %s: no such interface", ic->name, ic->peer);
			return -ENODEV;
		}
		err = mk_loader_set_peer(&ifc->loader, peer);
		if (err)
			return err;
	}
	for (i = 0; i < c->nbypass; i++) {
		const struct mk_cidr *b = &c->bypass[i];

		err = mk_loader_cidr_add(&ifc->loader,
					 b->family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, b->addr,
					 b->prefix);
		if (err)
			return err;
	}
	ifc->umems = calloc(ifc->queues, sizeof(*ifc->umems));
	ifc->socks = calloc((size_t)ifc->queues * lv->nworkers, sizeof(*ifc->socks));
	if (!ifc->umems || !ifc->socks)
		return -ENOMEM;
	return 0;
}

static int iface_sockets(struct live *lv, unsigned int idx)
{
	struct live_iface *ifc = &lv->ifaces[idx];
	unsigned int q, w;
	int err;

	for (q = 0; q < ifc->queues; q++) {
		err = mk_xsk_umem_create(&ifc->umems[q], ifc->name, q, &lv->cap);
		if (err)
			return err;
		for (w = 0; w < lv->nworkers; w++) {
			struct live_sock *ls = &ifc->socks[q * lv->nworkers + w];

			ls->iface = idx;
			ls->queue = q;
			err = mk_xsk_sock_create(&ls->xs, &ifc->umems[q], &lv->cap);
			if (err)
				return err;
			err = mk_loader_set_xsk(&ifc->loader, q * lv->nworkers + w, ls->xs.fd);
			if (err)
				return err;
		}
		if (!ifc->umems[q].zero_copy && lv->cap.zero_copy == MK_ZC_AUTO && q == 0)
			mk_info("%s: copy mode (the driver has no zero-copy AF_XDP)", ifc->name);
	}
	return 0;
}

static void iface_close(struct live *lv, struct live_iface *ifc)
{
	unsigned int q, w;

	if (ifc->loaded)
		mk_loader_detach(&ifc->loader);
	if (ifc->socks)
		for (q = 0; q < ifc->queues; q++)
			for (w = 0; w < lv->nworkers; w++)
				mk_xsk_sock_destroy(&ifc->socks[q * lv->nworkers + w].xs);
	if (ifc->umems)
		for (q = 0; q < ifc->queues; q++)
			mk_xsk_umem_destroy(&ifc->umems[q]);
	free(ifc->socks);
	free(ifc->umems);
	if (ifc->loaded)
		mk_loader_close(&ifc->loader);
	memset(ifc, 0, sizeof(*ifc));
}

static int workers_create(struct live *lv)
{
	unsigned int w, i, q, n = lv->nworkers;
	int err;

	/* inline: the stream engine inspects data as it arrives (docs/bypass.md) */
	lv->stream_cfg = lv->conf->stream;
	lv->stream_cfg.inline_mode = lv->cap.ips;
	for (i = 0; i < MK_ITABLE_SIZE; i++)
		lv->itable[i] = (uint8_t)(i % n);
	lv->mesh = calloc((size_t)n * n, sizeof(*lv->mesh));
	if (!lv->mesh)
		return -ENOMEM;
	for (i = 0; i < n * n; i++) {
		err = mk_spsc_init(&lv->mesh[i], HANDOFF_SLOTS, sizeof(void *));
		if (err)
			return err;
	}
	for (w = 0; w < n; w++) {
		struct live_worker *lw = &lv->ws[w];
		struct mk_worker_cfg wc = {
			.id = w,
			.nworkers = n,
			.itable = lv->itable,
			.seed = lv->opts->seed,
			.checksum = lv->opts->checksum,
			.log_flows = (mk_output_types(&lv->conf->output) & MK_EVE_TYPE_FLOW) != 0,
			.log_alerts = (mk_output_types(&lv->conf->output) & MK_EVE_TYPE_ALERT) != 0,
			.log_http = (mk_output_types(&lv->conf->output) & MK_EVE_TYPE_HTTP) != 0,
			.log_dns = (mk_output_types(&lv->conf->output) & MK_EVE_TYPE_DNS) != 0,
			.log_tls = (mk_output_types(&lv->conf->output) & MK_EVE_TYPE_TLS) != 0,
			.log_files = (mk_output_types(&lv->conf->output) & MK_EVE_TYPE_FILES) != 0,
			.log_app_types = mk_output_types(&lv->conf->output) &
					 (MK_EVE_TYPE_SSH | MK_EVE_TYPE_SMTP | MK_EVE_TYPE_FTP),
			.app = &lv->conf->app,
			.eve = lv->opts->eve,
			.parse = &lv->conf->parse,
			.flow = &lv->conf->flow,
			.stream = &lv->stream_cfg,
			.defrag = &lv->conf->defrag,
			.unreplied = lv->conf->output.eve.flow_unreplied,
			.detect = lv->opts->detect,
			.bypass = &lv->conf->bypass_cfg,
			.alert_opts = lv->opts->alert_opts,
		};
		unsigned int nsocks = 0;

		/* in_iface: a worker serves every interface; named when there is one */
		if (lv->nifaces == 1)
			wc.eve.in_iface = lv->ifaces[0].name;
		for (i = 0; i < lv->nifaces; i++)
			nsocks += lv->ifaces[i].queues;
		lw->socks = calloc(nsocks, sizeof(*lw->socks));
		lw->pfds = calloc(nsocks, sizeof(*lw->pfds));
		lw->addrs = calloc(lv->cap.batch, sizeof(*lw->addrs));
		lw->eve = malloc(EVE_FLUSH_BYTES + MK_EVE_LINE_MAX);
		if (!lw->socks || !lw->pfds || !lw->addrs || !lw->eve)
			return -ENOMEM;
		for (i = 0; i < lv->nifaces; i++) {
			for (q = 0; q < lv->ifaces[i].queues; q++) {
				struct live_sock *ls = &lv->ifaces[i].socks[q * n + w];

				lw->socks[lw->nsocks] = ls;
				lw->pfds[lw->nsocks] =
					(struct pollfd){ .fd = ls->xs.fd, .events = POLLIN };
				lw->nsocks++;
			}
		}
		err = mk_worker_init(&lw->pipe, &wc, &live_ops, lw);
		if (err)
			return err;
	}
	return 0;
}

static void workers_free(struct live *lv)
{
	unsigned int w, i;
	struct handoff *h;

	for (w = 0; lv->ws && w < lv->nworkers; w++) {
		struct live_worker *lw = &lv->ws[w];

		mk_worker_free(&lw->pipe);
		free(lw->socks);
		free(lw->pfds);
		free(lw->addrs);
		free(lw->eve);
		pthread_mutex_destroy(&lw->snap_lock);
	}
	if (lv->mesh) {
		for (i = 0; i < lv->nworkers * lv->nworkers; i++) {
			while ((h = mk_spsc_pop_ptr(&lv->mesh[i])))
				free(h);
			mk_spsc_destroy(&lv->mesh[i]);
		}
	}
	free(lv->mesh);
	free(lv->ws);
}

/* Every enabled output (output/outputs.h); their threads start after the privileges drop. */
static int open_eve(struct live *lv)
{
	int err;

	if (!lv->opts->log_dir)
		return 0;
	err = mk_outputs_new(&lv->outs, &lv->conf->output, lv->opts->log_dir,
			     lv->opts->eve_truncate, 0);
	if (!err)
		lv->eve_open = 1;
	return err;
}

/* The accounting line; returns 1 when the capture equation holds. */
static int print_accounting(FILE *out, const struct live_totals *t)
{
	uint64_t drops = t->sock.rx_dropped + t->sock.rx_ring_full;
	uint64_t redirected = t->xdp[MK_STAT_REDIRECT_XSK], got = t->live[MK_LIVE_SOCK_RX];
	int ok = redirected == got + drops && t->live[MK_LIVE_REFILLED] == got &&
		 got == t->pipe.cnt[MK_WORKER_RX] + t->live[MK_LIVE_USER_PARSE_FAIL] &&
		 mk_stat_invariant_holds(t->xdp) && mk_worker_stats_balanced(&t->pipe);

	fprintf(out,
		"meerkat: accounting %s: program saw %llu, redirected %llu = workers took %llu + "
		"socket drops %llu; refilled %llu; pipeline received %llu\n",
		ok ? "ok" : "MISMATCH", (unsigned long long)t->xdp[MK_STAT_RX],
		(unsigned long long)redirected, (unsigned long long)got, (unsigned long long)drops,
		(unsigned long long)t->live[MK_LIVE_REFILLED],
		(unsigned long long)t->pipe.cnt[MK_WORKER_RX]);
	return ok;
}

static void print_final(struct live *lv)
{
	struct live_totals t;
	json_t *st = live_stats(lv, &t);
	unsigned int k;

	if (lv->opts->stats_stderr) {
		for (k = 0; k < MK_STAT_MAX; k++)
			if (t.xdp[k])
				fprintf(stderr, "  xdp.%-24s %llu\n", mk_stat_descs[k].name,
					(unsigned long long)t.xdp[k]);
		for (k = 0; k < MK_LIVE_CNT_MAX; k++)
			fprintf(stderr, "  %-28s %llu\n", live_counter_names[k],
				(unsigned long long)t.live[k]);
		mk_worker_stats_print(stderr, &t.pipe);
	}
	print_accounting(stderr, &t);
	json_decref(st);
}

/* The main thread's loop: signals, the stats timer, the control socket. */
static void main_loop(struct live *lv)
{
	struct pollfd pfds[3 + 1 + MK_CTL_MAX_CLIENTS];
	struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
	uint32_t seconds = 0;
	sigset_t set;
	int sfd, tfd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd >= 0)
		timerfd_settime(tfd, 0, &its, NULL);
	for (;;) {
		unsigned int n = 0, nctl;
		struct signalfd_siginfo si;
		uint64_t ticks;

		pfds[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfds[n++] = (struct pollfd){ .fd = tfd, .events = POLLIN };
		/* -1 when not watching links: poll() ignores it */
		pfds[n++] =
			(struct pollfd){ .fd = lv->links_open ? mk_link_watch_fd(&lv->links) : -1,
					 .events = POLLIN };
		nctl = lv->ctl_open ?
			       mk_ctl_server_pollfds(&lv->ctl, pfds + n, 1 + MK_CTL_MAX_CLIENTS) :
			       0;
		if (poll(pfds, n + nctl, -1) < 0 && errno != EINTR)
			break;
		if (pfds[0].revents && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
				mk_info("signal %u: stopping", si.ssi_signo);
				break;
			}
			if (si.ssi_signo == SIGHUP && lv->eve_open)
				mk_outputs_reopen(lv->outs); /* each writer logs its file */
			if (si.ssi_signo == SIGUSR2)
				json_decref(mk_reload_run(&lv->reload)); /* logs its outcome */
		}
		if (pfds[1].revents && read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks)) {
			seconds += (uint32_t)ticks;
			/* engines replaced by a reload, once every worker took the new one */
			if (lv->opts->detect)
				mk_detect_master_reap(lv->opts->detect);
			if (lv->cap.stats_interval && seconds >= lv->cap.stats_interval) {
				seconds = 0;
				live_stats_event(lv);
			}
		}
		if (pfds[2].revents) {
			pthread_mutex_lock(&lv->stats_lock);
			mk_link_watch_handle(&lv->links);
			pthread_mutex_unlock(&lv->stats_lock);
		}
		if (nctl)
			mk_ctl_server_handle(&lv->ctl, pfds + n, nctl);
	}
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
}

/* ---- the run: steps in order, one cleanup path -------------------------- */

static void live_init(struct live *lv, const struct mk_config *c, const struct mk_live_opts *o)
{
	sigset_t set;

	/* workers and the control socket must not take the daemon's signals */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, &lv->old_sigmask);
	lv->conf = c;
	lv->opts = o;
	lv->cap = c->capture;
	lv->start_mono_ns = now_mono_ns();
	pthread_mutex_init(&lv->thresh_lock, NULL);
	pthread_mutex_init(&lv->stats_lock, NULL);
	pthread_mutex_init(&lv->wset.lock, NULL);
	lv->eve_types = mk_output_types(&c->output);
	mk_reload_init(&lv->reload, c, &o->reload,
		       &(struct mk_reload_target){ .cidr_list = reload_cidr_list,
						   .cidr_set = reload_cidr_set,
						   .live = reload_live,
						   .ctx = lv },
		       o->detect);
}

/* What live capture cannot run with, refused before anything is created. */
static int check_capture_cfg(const struct mk_capture_cfg *cap)
{
	unsigned int i;

	if (!cap->n_ifaces) {
		mk_err("live mode needs an interface (-i IFACE or capture.interfaces)");
		return -EINVAL;
	}
	for (i = 0; i < cap->n_ifaces; i++) {
		if (cap->ips && !cap->ifaces[i].peer[0]) {
			mk_err("capture.ips: interface %s has no peer (-i IN:OUT, or `peer:` in "
			       "capture.interfaces)",
			       cap->ifaces[i].name);
			return -EINVAL;
		}
		if (!cap->ips && cap->ifaces[i].peer[0]) {
			mk_err("capture.interfaces: %s:%s is an inline pair: set capture.ips (--ips)",
			       cap->ifaces[i].name, cap->ifaces[i].peer);
			return -EINVAL;
		}
	}
	if (!cap->batch || cap->batch > cap->rx_size) {
		mk_err("capture.batch-size: %u must be in [1, capture.rx-ring-size %u]", cap->batch,
		       cap->rx_size);
		return -EINVAL;
	}
	return 0;
}

/*
 * Inline: each socket's transmit side, the same worker's socket on the
 * peer interface (same queue, or the queue it maps to when the peer has
 * fewer): one producer per TX ring, no lock.
 */
static void ips_link_peers(struct live *lv)
{
	unsigned int i, j, q, w;

	for (i = 0; i < lv->nifaces; i++) {
		struct live_iface *ifc = &lv->ifaces[i], *pr = NULL;

		for (j = 0; j < lv->nifaces; j++)
			if (!strcmp(lv->ifaces[j].name, lv->cap.ifaces[i].peer))
				pr = &lv->ifaces[j];
		for (q = 0; pr && q < ifc->queues; q++)
			for (w = 0; w < lv->nworkers; w++)
				ifc->socks[q * lv->nworkers + w].peer =
					&pr->socks[(q % pr->queues) * lv->nworkers + w].xs;
	}
}

/* The workers' CPUs, eve.json, each interface's program and sockets, the workers' state. */
static int live_setup(struct live *lv)
{
	unsigned int i;
	int err;

	err = resolve_workers(lv);
	if (err)
		return err;
	err = open_eve(lv);
	if (err)
		return err;
	for (i = 0; i < lv->cap.n_ifaces; i++) {
		lv->nifaces = i + 1;
		err = iface_open(lv, &lv->ifaces[i], &lv->cap.ifaces[i]);
		if (!err)
			err = iface_sockets(lv, i);
		if (err)
			return err;
	}
	if (lv->cap.ips)
		ips_link_peers(lv);
	err = workers_create(lv);
	if (!err)
		err = bypass_create(lv);
	/* bound now, as root and before anything is attached; served once privileges are dropped */
	if (!err && lv->conf->prometheus.enabled)
		err = mk_metrics_http_new(&lv->metrics, &lv->conf->prometheus);
	/* its socket before the privileges go */
	if (!err && lv->conf->advise.enabled)
		err = mk_advisor_new(&lv->advise, &lv->conf->advise, lv->nworkers, advise_record,
				     lv);
	return err;
}

/* The program onto every interface, then the link watch. */
static int live_attach(struct live *lv)
{
	unsigned int i;
	int err;

	for (i = 0; i < lv->nifaces; i++) {
		struct live_iface *ifc = &lv->ifaces[i];

		err = mk_loader_attach_live(&ifc->loader, ifc->ifindex,
					    lv->cap.attach == MK_XDP_ATTACH_GENERIC,
					    lv->cap.attach == MK_XDP_ATTACH_AUTO);
		if (err)
			return err;
		ifc->attached = 1;
	}
	/*
	 * Without it capture still runs; only the gaps go uncounted. After the
	 * attach, so that a refused attach is the one error the operator reads.
	 */
	if (!mk_link_watch_open(&lv->links)) {
		lv->links_open = 1;
		for (i = 0; i < lv->nifaces; i++)
			mk_link_watch_add(&lv->links, lv->ifaces[i].ifindex, lv->ifaces[i].name);
	}
	return 0;
}

static int workers_start(struct live *lv)
{
	unsigned int i;
	int err;

	for (i = 0; i < lv->nworkers; i++) {
		err = -pthread_create(&lv->ws[i].thread, NULL, worker_main, &lv->ws[i]);
		if (err) {
			mk_err("worker %u: %s", i, strerror(-err));
			return err;
		}
		lv->ws[i].started = 1;
	}
	return 0;
}

/* capture.control-socket, when set, with its commands. */
static int control_socket_open(struct live *lv)
{
	int err;

	if (!lv->cap.ctl_socket[0])
		return 0;
	err = mk_ctl_server_open(&lv->ctl, lv->cap.ctl_socket);
	if (err)
		return err;
	lv->ctl_open = 1;
	mk_ctl_register(&lv->ctl, "ping", "answers pong", cmd_ping, lv);
	mk_ctl_register(&lv->ctl, "status",
			"interfaces, XDP mode, program ids, queues, "
			"workers, socket mode, uptime",
			cmd_status, lv);
	mk_ctl_register(&lv->ctl, "stats", "every counter, as in the EVE stats event", cmd_stats,
			lv);
	mk_ctl_register(&lv->ctl, "reload",
			"read the configuration file and the rules again; the running ones stay "
			"if they fail",
			cmd_reload, lv);
	mk_ctl_register(&lv->ctl, "reload-rules", "the same as reload", cmd_reload, lv);
	mk_ctl_register(&lv->ctl, "ruleset-stats",
			"rules loaded and failed, generation, "
			"load time, reloads",
			cmd_ruleset_stats, lv);
	mk_ctl_register(&lv->ctl, "bypass-list", "flows bypassed in the driver, with its counters",
			cmd_bypass_list, lv);
	mk_ctl_register(&lv->ctl, "bypass-add",
			"bypass one flow in the driver: proto, src, sport, dst, dport",
			cmd_bypass_add, lv);
	mk_ctl_register(&lv->ctl, "bypass-del",
			"end one flow's driver bypass: proto, src, sport, dst, dport",
			cmd_bypass_del, lv);
	mk_ctl_register(&lv->ctl, "bypass-cidr-list", "the CIDR bypass list", cmd_bypass_cidr_list,
			lv);
	mk_ctl_register(&lv->ctl, "bypass-cidr-add", "add a prefix to the CIDR bypass list",
			cmd_bypass_cidr_add, lv);
	mk_ctl_register(&lv->ctl, "bypass-cidr-del", "remove a prefix from the CIDR bypass list",
			cmd_bypass_cidr_del, lv);
	return 0;
}

static void live_announce(struct live *lv)
{
	unsigned int i;

	for (i = 0; i < lv->nifaces; i++)
		mk_info("%s: %u queue(s) x %u worker(s), %s XDP, program id %u, %s sockets, seed %#x",
			lv->ifaces[i].name, lv->ifaces[i].queues, lv->nworkers,
			mk_loader_attach_mode_name(&lv->ifaces[i].loader),
			mk_loader_prog_id(&lv->ifaces[i].loader),
			lv->ifaces[i].umems[0].zero_copy ? "zero-copy" : "copy-mode",
			lv->opts->seed);
	fprintf(stderr, "meerkat: capturing on");
	for (i = 0; i < lv->nifaces; i++)
		fprintf(stderr, " %s", lv->ifaces[i].name);
	fprintf(stderr, " with %u worker(s); SIGTERM stops\n", lv->nworkers);
}

/*
 * Inline, ips.failure: open: the forwarder on both interfaces of every pair
 * (capture/ips.h), in the place of meerkat's program, atomically, so that
 * the link carries traffic while meerkat is not running; the workers still
 * forward what their rings hold. The next start replaces it the same way.
 * A pair whose programs were not both attached gets none.
 */
static void ips_fail_open(struct live *lv)
{
	unsigned int i, j;
	int done;

	for (i = 0; i < lv->nifaces; i++) {
		for (j = i + 1; j < lv->nifaces; j++) {
			struct live_iface *a = &lv->ifaces[i], *b = &lv->ifaces[j];

			if (strcmp(b->name, lv->cap.ifaces[i].peer) || !a->attached ||
			    !b->attached || !a->loader.xdp_prog || !b->loader.xdp_prog)
				continue;
			done = mk_ips_forwarder_attach(
				a->ifindex, b->ifindex,
				!strcmp(mk_loader_attach_mode_name(&a->loader), "generic"),
				mk_loader_prog_fd(&a->loader), mk_loader_prog_fd(&b->loader));
			if (done & 1)
				mk_loader_forget_attach(&a->loader);
			if (done & 2)
				mk_loader_forget_attach(&b->loader);
			if (done == 3)
				mk_info("%s <-> %s: fail-open forwarder attached", a->name,
					b->name);
		}
	}
}

/* No new frames, then the workers drain what the rings hold; control and link watch end. */
static void live_stop(struct live *lv)
{
	unsigned int i;

	if (lv->cap.ips && lv->cap.ips_failure == MK_IPS_FORWARD)
		ips_fail_open(lv);
	/* no scrape reads what is torn down from here on */
	mk_metrics_http_free(lv->metrics);
	lv->metrics = NULL;
	for (i = 0; i < lv->nifaces; i++)
		if (lv->ifaces[i].loaded)
			mk_loader_detach(&lv->ifaces[i].loader);
	/* the driver's counts of the bypassed flows go to their workers before the flows end */
	if (lv->bypass)
		mk_bypass_mgr_finish(lv->bypass);
	atomic_store_explicit(&lv->stop, 1, memory_order_release);
	for (i = 0; lv->ws && i < lv->nworkers; i++)
		if (lv->ws[i].started)
			pthread_join(lv->ws[i].thread, NULL);
	if (lv->bypass)
		mk_bypass_mgr_stop(lv->bypass);
	/* no more alerts: every announcement is withdrawn */
	mk_advisor_stop(lv->advise);
	if (lv->ctl_open)
		mk_ctl_server_close(&lv->ctl);
	if (lv->links_open)
		mk_link_watch_close(&lv->links);
}

/* The interfaces (program, sockets, UMEMs), the workers' state, eve.json. */
static void live_close(struct live *lv)
{
	unsigned int i;

	mk_metrics_http_free(lv->metrics); /* a setup that failed after the bind */
	lv->metrics = NULL;
	mk_bypass_mgr_free(lv->bypass);
	lv->bypass = NULL;
	mk_advisor_free(lv->advise);
	lv->advise = NULL;
	for (i = 0; i < lv->nifaces; i++)
		iface_close(lv, &lv->ifaces[i]);
	workers_free(lv);
	/* drains every output's buffer: the final stats event is in them */
	mk_outputs_stop(lv->outs);
	mk_outputs_print(lv->outs, stderr);
	mk_outputs_free(lv->outs);
	lv->outs = NULL;
	lv->eve_open = 0;
}

static void live_free(struct live *lv)
{
	pthread_sigmask(SIG_SETMASK, &lv->old_sigmask, NULL);
	mk_detect_thresh_free(lv->thresh);
	pthread_mutex_destroy(&lv->thresh_lock);
	pthread_mutex_destroy(&lv->stats_lock);
	mk_reload_free(&lv->reload);
	pthread_mutex_destroy(&lv->wset.lock);
	free(lv);
}

int mk_live_run(const struct mk_config *c, const struct mk_live_opts *o)
{
	struct live *lv = calloc(1, sizeof(*lv));
	int err;

	if (!lv)
		return -ENOMEM;
	live_init(lv, c, o);
	if (o->detect && mk_detect_thresh_new(&lv->thresh)) {
		err = -ENOMEM;
		goto out_free;
	}
	err = check_capture_cfg(&lv->cap);
	if (err)
		goto out_free;
	err = live_setup(lv);
	if (err)
		goto out_close;
	err = live_attach(lv);
	if (err)
		goto out_stop;
	/*
	 * Everything that needs root's capabilities is done: from here on the
	 * daemon parses attacker-controlled frames, so it keeps only what the
	 * exit needs, before the worker threads exist to inherit the rest.
	 */
	mk_privs_drop();
	err = mk_outputs_start(lv->outs);
	if (!err)
		err = mk_bypass_mgr_start(lv->bypass);
	if (!err && lv->advise)
		err = mk_advisor_start(lv->advise);
	if (!err)
		err = workers_start(lv);
	if (err)
		goto out_stop;
	err = control_socket_open(lv);
	if (!err && lv->metrics)
		err = mk_metrics_http_start(lv->metrics, live_metrics_snapshot, lv);
	if (err)
		goto out_stop;
	live_announce(lv);

	main_loop(lv);

out_stop:
	live_stop(lv);
	/* a run that got this far without an error has every interface attached */
	if (!err) {
		/* the final stats count every record before them (bounded: a socket may stall) */
		mk_outputs_flush(lv->outs, MK_OUTPUTS_DRAIN_MS);
		live_stats_event(lv);
		print_final(lv);
	}
out_close:
	live_close(lv);
out_free:
	live_free(lv);
	return err;
}
