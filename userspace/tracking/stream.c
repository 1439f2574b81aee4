// SPDX-License-Identifier: GPL-2.0-only
/*
 * TCP session tracking and per-direction reassembly (see stream.h for the
 * contract). Buffered data lives in fixed-size segments from a per-engine
 * pool: steady state does no malloc, and the memory cap is a count of pool
 * segments in use. Each direction keeps a sorted list of non-overlapping
 * segments covering [base_seq, ...); the overlap policy decides whose bytes
 * win when a new segment covers buffered ones.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_keys.h"
#include "compat.h"
#include "stream.h"

/* Data further ahead than this is not TCP we can track (RFC 7323 max window). */
#define MK_MAX_AHEAD (1U << 30)
#define MK_DEFAULT_WIN 65535U
#define MK_WSCALE_MAX 14

/* Stream flags (struct mk_tcp_stream.st). */
#define MK_STREAM_F_ISN 0x01	/* isn, base_seq, next_seq are set */
#define MK_STREAM_F_ACKED 0x02	/* peer_ack is set */
#define MK_STREAM_F_FIN 0x04	/* fin_seq is set */
#define MK_STREAM_F_DEPTH 0x08	/* reassembly depth reached */
#define MK_STREAM_F_WIN 0x10	/* win is set */
#define MK_STREAM_F_WSCALE 0x20 /* sent the window scale option */
#define MK_STREAM_F_HELD 0x40	/* in the engine's list of streams holding segments */

/* struct mk_tcp_stream.bypass_st */
#define MK_STREAM_BYPASS_DONE 0x01 /* contiguous data reached the depth */
#define MK_STREAM_BYPASS_PAST 0x02 /* and data beyond it came since */

/* Session flags (struct mk_tcp_session.flags). */
#define MK_SSN_F_WSCALE 0x01	  /* both sides sent window scale: windows are scaled */
#define MK_SSN_F_NO_WINCHECK 0x02 /* picked up midstream: scale unknown, no window check */
#define MK_SSN_F_SIMOPEN 0x04
#define MK_SSN_F_SYNACK_FIRST 0x08 /* picked up from a SYN/ACK: its SYN may still come */

struct mk_stream_seg {
	struct mk_stream_seg *next, *prev;
	__u32 seq;
	__u32 len;
	__u32 off; /* first unreleased byte in data[] */
	__u8 ooo;  /* after a hole when inserted: counts in nooo */
	__u8 data[MK_STREAM_SEG_DATA];
};

struct mk_stream_engine {
	struct mk_stream_cfg cfg;
	struct mk_stream_cbs cbs;
	void *user;
	struct mk_stream_seg *free_list;
	__u64 mem_used;
	/* streams holding segments, least recently added to first (reclaim order) */
	struct mk_tcp_stream *held_head, *held_tail;
	struct mk_stream_stats stats;
};

#define STAT_INC(eng, id) ((eng)->stats.c[MK_STREAM_STAT_##id]++)
#define STAT_ADD(eng, id, n) ((eng)->stats.c[MK_STREAM_STAT_##id] += (n))

#define MK_STREAM_STAT_NAME(id, name, desc) name,
static const char *const stat_names[] = { MK_STREAM_STATS(MK_STREAM_STAT_NAME) };
#undef MK_STREAM_STAT_NAME
#define MK_STREAM_STAT_DESC(id, name, desc) desc,
static const char *const stat_descs[] = { MK_STREAM_STATS(MK_STREAM_STAT_DESC) };
#undef MK_STREAM_STAT_DESC

/* Suricata's strings, so EVE tcp.state reads the same. */
static const char *const state_names[MK_TCP_STATE_MAX] = {
	[MK_TCP_NONE] = "none",		  [MK_TCP_SYN_SENT] = "syn_sent",
	[MK_TCP_SYN_RECV] = "syn_recv",	  [MK_TCP_ESTABLISHED] = "established",
	[MK_TCP_FIN_WAIT1] = "fin_wait1", [MK_TCP_FIN_WAIT2] = "fin_wait2",
	[MK_TCP_TIME_WAIT] = "time_wait", [MK_TCP_CLOSE_WAIT] = "close_wait",
	[MK_TCP_CLOSING] = "closing",	  [MK_TCP_LAST_ACK] = "last_ack",
	[MK_TCP_CLOSED] = "closed",
};

void mk_stream_cfg_default(struct mk_stream_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->memcap = 64ULL << 20;
	cfg->depth = 1ULL << 20;
	cfg->max_ooo_segs = 1024;
	cfg->prealloc_segs = 256;
	cfg->midstream = 1;
	cfg->overlap_policy = MK_OVERLAP_FIRST;
}

static struct mk_stream_seg *seg_get(struct mk_stream_engine *eng)
{
	struct mk_stream_seg *sg;

	if (eng->cfg.memcap && eng->mem_used + sizeof(*sg) > eng->cfg.memcap)
		return NULL;
	sg = eng->free_list;
	if (sg)
		eng->free_list = sg->next;
	else
		sg = malloc(sizeof(*sg));
	if (sg) {
		eng->mem_used += sizeof(*sg);
		if (eng->mem_used > eng->stats.c[MK_STREAM_STAT_MEM_PEAK])
			eng->stats.c[MK_STREAM_STAT_MEM_PEAK] = eng->mem_used;
	}
	return sg;
}

static void seg_put(struct mk_stream_engine *eng, struct mk_stream_seg *sg)
{
	sg->next = eng->free_list;
	eng->free_list = sg;
	eng->mem_used -= sizeof(*sg);
}

static void held_unlink(struct mk_stream_engine *eng, struct mk_tcp_stream *st)
{
	if (!(st->st & MK_STREAM_F_HELD))
		return;
	if (st->held_prev)
		st->held_prev->held_next = st->held_next;
	else
		eng->held_head = st->held_next;
	if (st->held_next)
		st->held_next->held_prev = st->held_prev;
	else
		eng->held_tail = st->held_prev;
	st->held_prev = st->held_next = NULL;
	st->st &= (__u8)~MK_STREAM_F_HELD;
}

/* After data was added to @st: to the tail of the list while it holds segments. */
static void held_touch(struct mk_stream_engine *eng, struct mk_tcp_stream *st)
{
	held_unlink(eng, st);
	if (!st->nsegs)
		return;
	st->held_prev = eng->held_tail;
	if (eng->held_tail)
		eng->held_tail->held_next = st;
	else
		eng->held_head = st;
	eng->held_tail = st;
	st->st |= MK_STREAM_F_HELD;
}

static void stream_drop_segs(struct mk_stream_engine *eng, struct mk_tcp_stream *st)
{
	struct mk_stream_seg *sg, *next;

	for (sg = st->head; sg; sg = next) {
		next = sg->next;
		seg_put(eng, sg);
	}
	st->head = st->tail = NULL;
	st->nsegs = st->nooo = 0;
	held_unlink(eng, st);
}

struct mk_stream_engine *mk_stream_engine_new(const struct mk_stream_cfg *cfg)
{
	struct mk_stream_engine *eng;
	struct mk_stream_seg *sg;
	__u32 i;

	if (!cfg || cfg->overlap_policy > MK_OVERLAP_LAST) {
		errno = EINVAL;
		return NULL;
	}
	eng = calloc(1, sizeof(*eng));
	if (!eng)
		return NULL;
	eng->cfg = *cfg;
	for (i = 0; i < cfg->prealloc_segs; i++) {
		sg = malloc(sizeof(*sg));
		if (!sg)
			goto err;
		sg->next = eng->free_list;
		eng->free_list = sg;
	}
	return eng;
err:
	mk_stream_engine_free(eng);
	errno = ENOMEM;
	return NULL;
}

void mk_stream_engine_free(struct mk_stream_engine *eng)
{
	struct mk_stream_seg *sg;

	if (!eng)
		return;
	while ((sg = eng->free_list)) {
		eng->free_list = sg->next;
		free(sg);
	}
	free(eng);
}

void mk_stream_set_callbacks(struct mk_stream_engine *eng, const struct mk_stream_cbs *cbs,
			     void *user)
{
	if (cbs)
		eng->cbs = *cbs;
	else
		memset(&eng->cbs, 0, sizeof(eng->cbs));
	eng->user = user;
}

const struct mk_stream_stats *mk_stream_engine_stats(const struct mk_stream_engine *eng)
{
	return &eng->stats;
}

__u64 mk_stream_mem_used(const struct mk_stream_engine *eng)
{
	return eng->mem_used;
}

void mk_tcp_session_init(struct mk_tcp_session *ssn)
{
	memset(ssn, 0, sizeof(*ssn));
	ssn->s[1].dir = 1;
}

void mk_tcp_session_free(struct mk_stream_engine *eng, struct mk_tcp_session *ssn)
{
	int d;

	for (d = 0; d < 2; d++) {
		struct mk_tcp_stream *st = &ssn->s[d];

		stream_drop_segs(eng, st);
		free(st->rec);
		st->rec = NULL;
		st->rec_len = st->rec_cap = 0;
	}
}

void mk_tcp_session_reset(struct mk_stream_engine *eng, struct mk_tcp_session *ssn)
{
	mk_tcp_session_free(eng, ssn);
	mk_tcp_session_init(ssn);
}

static void seg_unlink(struct mk_tcp_stream *st, struct mk_stream_seg *sg)
{
	if (sg->prev)
		sg->prev->next = sg->next;
	else
		st->head = sg->next;
	if (sg->next)
		sg->next->prev = sg->prev;
	else
		st->tail = sg->prev;
	st->nsegs--;
	if (sg->ooo)
		st->nooo--;
}

static void record_append(struct mk_stream_engine *eng, struct mk_tcp_stream *st, const __u8 *data,
			  __u32 len)
{
	__u64 cap = st->rec_cap ? st->rec_cap : 4096;
	__u8 *p;

	if (st->rec_len + len > st->rec_cap) {
		while (cap < st->rec_len + len)
			cap *= 2;
		p = realloc(st->rec, cap);
		if (!p) {
			STAT_INC(eng, NOMEM);
			return;
		}
		st->rec = p;
		st->rec_cap = cap;
	}
	memcpy(st->rec + st->rec_len, data, len);
	st->rec_len += len;
}

/* Hands [base_seq, base_seq + len) to detection and moves the base past it. */
static void deliver(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
		    const __u8 *data, __u32 len)
{
	struct mk_tcp_stream *st = &ssn->s[dir];
	struct mk_stream_chunk chunk = {
		.data = data,
		.offset = st->base_off,
		.gap = st->pending_gap,
		.len = len,
		.dir = (__u8)dir,
	};

	st->pending_gap = 0;
	if (eng->cbs.data)
		eng->cbs.data(eng->user, ssn, &chunk);
	if (eng->cfg.record)
		record_append(eng, st, data, len);
	STAT_INC(eng, RELEASED_CHUNKS);
	STAT_ADD(eng, RELEASED_BYTES, len);
	st->base_off += len;
	st->base_seq += len;
}

/* Extends next_seq over segments that became contiguous. */
static void advance_next(struct mk_tcp_stream *st, struct mk_stream_seg *from)
{
	struct mk_stream_seg *sg;

	if (SEQ_LT(st->next_seq, st->base_seq))
		st->next_seq = st->base_seq;
	for (sg = from ? from : st->head; sg; sg = sg->next) {
		if (SEQ_GT(sg->seq, st->next_seq))
			break;
		if (SEQ_GT(sg->seq + sg->len, st->next_seq))
			st->next_seq = sg->seq + sg->len;
		if (sg->ooo) {
			sg->ooo = 0;
			st->nooo--;
		}
	}
}

/*
 * Releases data of direction @dir below @upto, skipping holes that @upto
 * passes (the receiver has them, we never will); @all releases everything.
 */
static void stream_release(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
			   __u32 upto, int all)
{
	struct mk_tcp_stream *st = &ssn->s[dir];
	struct mk_stream_seg *sg;
	int skipped = 0;
	__u32 n;

	while ((sg = st->head)) {
		if (SEQ_GT(sg->seq, st->base_seq)) {
			__u32 gap = sg->seq - st->base_seq;

			if (!all && SEQ_LT(upto, sg->seq))
				break;
			STAT_INC(eng, GAPS);
			STAT_ADD(eng, GAP_BYTES, gap);
			st->pending_gap += gap;
			st->base_off += gap;
			st->base_seq = sg->seq;
			skipped = 1;
		}
		if (all) {
			n = sg->len;
		} else {
			if (!SEQ_GT(upto, st->base_seq))
				break;
			n = upto - st->base_seq;
			if (n > sg->len)
				n = sg->len;
		}
		deliver(eng, ssn, dir, sg->data + sg->off, n);
		sg->seq += n;
		sg->off += n;
		sg->len -= n;
		if (sg->len)
			break;
		seg_unlink(st, sg);
		seg_put(eng, sg);
	}
	if (skipped || SEQ_LT(st->next_seq, st->base_seq))
		advance_next(st, NULL);
	if (!st->nsegs)
		held_unlink(eng, st);
}

static struct mk_tcp_session *session_of(struct mk_tcp_stream *st)
{
	return (struct mk_tcp_session *)((char *)(st - st->dir) -
					 offsetof(struct mk_tcp_session, s));
}

/*
 * The memory cap is reached while in-order data of @cur waits for a pool
 * segment. An attacker can fill the pool with data that never becomes
 * deliverable (segments after a hole never filled, or in-order data never
 * ACKed), so that the sessions that matter find no room and their bytes
 * become gaps. Instead, the stream least recently added to gives memory
 * back: first its out-of-order segments are dropped (their bytes become a
 * gap if the receiver ever ACKs past them: we will never see them), else
 * its in-order data is released to detection now rather than at its ACK
 * (inspected a little early: a later retransmission with other bytes is an
 * overlap with released data, which cannot change). Returns 1 when a
 * segment was freed.
 */
static int stream_reclaim(struct mk_stream_engine *eng, struct mk_tcp_stream *cur)
{
	struct mk_tcp_stream *v;
	struct mk_stream_seg *sg, *prev;
	__u64 before = eng->mem_used;

	for (v = eng->held_head; v && v == cur; v = v->held_next)
		;
	if (!v)
		return 0;
	if (v->nooo) {
		/* from the tail: every segment after the first hole is out of order */
		for (sg = v->tail; sg && sg->ooo; sg = prev) {
			prev = sg->prev;
			STAT_INC(eng, RECLAIM_OOO);
			STAT_ADD(eng, RECLAIM_OOO_BYTES, sg->len);
			seg_unlink(v, sg);
			seg_put(eng, sg);
		}
		if (!v->nsegs)
			held_unlink(eng, v);
		else
			held_touch(eng, v); /* what is left is in order: reclaimed later, if ever */
	} else {
		STAT_INC(eng, RECLAIM_EARLY);
		STAT_ADD(eng, RECLAIM_EARLY_BYTES, v->next_seq - v->base_seq);
		stream_release(eng, session_of(v), v->dir, v->next_seq, 0);
		held_unlink(eng, v);
	}
	return eng->mem_used < before;
}

static void depth_mark(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir)
{
	struct mk_tcp_stream *st = &ssn->s[dir];

	if (st->st & MK_STREAM_F_DEPTH)
		return;
	st->st |= MK_STREAM_F_DEPTH;
	STAT_INC(eng, DEPTH_REACHED);
	if (eng->cbs.depth)
		eng->cbs.depth(eng->user, ssn, dir);
}

/* stream.bypass: has this direction's contiguous data reached the depth now? */
static void bypass_note(const struct mk_stream_engine *eng, struct mk_tcp_session *ssn,
			struct mk_tcp_stream *st)
{
	if ((st->bypass_st & MK_STREAM_BYPASS_DONE) ||
	    st->base_off + (__u32)(st->next_seq - st->base_seq) < eng->cfg.depth)
		return;
	st->bypass_st |= MK_STREAM_BYPASS_DONE;
	st->depth_peer_seq = ssn->s[!st->dir].next_seq;
}

/* Holds a new segment [seq, seq + len) at or after base_seq, within the window. */
static void stream_insert(struct mk_stream_engine *eng, struct mk_tcp_stream *st, __u32 seq,
			  const __u8 *data, __u32 len)
{
	struct mk_stream_seg *prev, *cur, *sg;
	__u32 end = seq + len, pos = seq, covered = 0, n, room;
	int diff = 0, ooo;

	/* Common case first: walk back from the tail, in-order data stops at once. */
	prev = st->tail;
	while (prev && SEQ_GT(prev->seq + prev->len, seq))
		prev = prev->prev;
	cur = prev ? prev->next : st->head;

	while (SEQ_LT(pos, end)) {
		if (cur && SEQ_LEQ(cur->seq, pos)) {
			__u32 cend = cur->seq + cur->len;
			__u8 *old = cur->data + cur->off + (pos - cur->seq);
			const __u8 *new = data + (pos - seq);

			n = (SEQ_LT(cend, end) ? cend : end) - pos;
			if (memcmp(old, new, n)) {
				diff = 1;
				if (eng->cfg.overlap_policy == MK_OVERLAP_LAST)
					memcpy(old, new, n);
			}
			covered += n;
			pos += n;
			prev = cur;
			cur = cur->next;
			continue;
		}
		/* a hole in the buffer: new bytes up to the next segment */
		n = (cur && SEQ_LT(cur->seq, end) ? cur->seq : end) - pos;
		room = prev ? MK_STREAM_SEG_DATA - prev->off - prev->len : 0;
		if (room && SEQ_EQ(prev->seq + prev->len, pos)) {
			/* small segments share a pool segment: append to the one before */
			if (n > room)
				n = room;
			memcpy(prev->data + prev->off + prev->len, data + (pos - seq), n);
			prev->len += n;
			if (SEQ_EQ(pos, st->next_seq))
				advance_next(st, prev);
			pos += n;
			continue;
		}
		if (n > MK_STREAM_SEG_DATA)
			n = MK_STREAM_SEG_DATA;
		ooo = SEQ_GT(pos, st->next_seq);
		if (ooo && eng->cfg.max_ooo_segs && st->nooo >= eng->cfg.max_ooo_segs) {
			STAT_INC(eng, OOO_LIMIT);
			break;
		}
		sg = seg_get(eng);
		/* only for in-order data: out-of-order data may never be deliverable */
		while (!sg && !ooo && eng->cfg.memcap && stream_reclaim(eng, st))
			sg = seg_get(eng);
		if (!sg) {
			if (eng->cfg.memcap && eng->mem_used + sizeof(*sg) > eng->cfg.memcap) {
				STAT_INC(eng, MEMCAP);
				STAT_ADD(eng, MEMCAP_BYTES, end - pos);
			} else {
				STAT_INC(eng, NOMEM);
			}
			break;
		}
		sg->seq = pos;
		sg->len = n;
		sg->off = 0;
		sg->ooo = (__u8)ooo;
		memcpy(sg->data, data + (pos - seq), n);
		sg->prev = prev;
		sg->next = cur;
		if (prev)
			prev->next = sg;
		else
			st->head = sg;
		if (cur)
			cur->prev = sg;
		else
			st->tail = sg;
		st->nsegs++;
		st->nooo += (__u32)ooo;
		if (SEQ_EQ(pos, st->next_seq))
			advance_next(st, sg);
		pos += n;
		prev = sg;
	}
	if (covered == len)
		STAT_INC(eng, RETRANS);
	else if (covered)
		STAT_INC(eng, OVERLAP);
	if (diff)
		STAT_INC(eng, OVERLAP_DIFF);
	if (pos != seq)
		held_touch(eng, st);
}

/*
 * Would the receiver accept [seq, seq + len) of direction @dir, which starts
 * at or after base_seq? Bounded by its last ACK plus its window, and always
 * by 2^30 bytes so that every held sequence number compares sanely.
 */
static int in_window(const struct mk_tcp_session *ssn, int dir, __u32 seq, __u32 len)
{
	const struct mk_tcp_stream *st = &ssn->s[dir], *peer = &ssn->s[!dir];
	__u32 rcv_nxt;

	if (SEQ_GT(seq + len, st->base_seq + MK_MAX_AHEAD))
		return 0;
	if ((ssn->flags & MK_SSN_F_NO_WINCHECK) || !(peer->st & MK_STREAM_F_WIN))
		return 1;
	rcv_nxt = (st->st & MK_STREAM_F_ACKED) ? st->peer_ack : st->next_seq;
	return SEQ_LEQ(seq, rcv_nxt + peer->win);
}

/*
 * Has the receiver of @dir's data closed its window? Its stack then drops
 * any data, a zero-window probe's byte included (Linux: TCPZeroWindowDrop),
 * and the sender sends it again once the window opens: what the receiver
 * reads is that later copy, which may differ from the probe's.
 */
static int window_closed(const struct mk_tcp_session *ssn, int dir)
{
	const struct mk_tcp_stream *peer = &ssn->s[!dir];

	return !(ssn->flags & MK_SSN_F_NO_WINCHECK) && (peer->st & MK_STREAM_F_WIN) && !peer->win;
}

/*
 * Payload of one packet of direction @dir: FIN, old data, window and depth
 * checks. Returns -ERANGE when the segment lies outside what the receiver
 * would accept, so that it does not move the sequence space either.
 */
static int stream_data(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir, __u32 seq,
		       const __u8 *data, __u32 len)
{
	struct mk_tcp_stream *st = &ssn->s[dir];
	__u64 off;
	__u32 d;

	if (!len)
		return 0;
	if (len > MK_MAX_AHEAD) {
		STAT_INC(eng, OUT_OF_WINDOW);
		return -ERANGE;
	}
	if (st->st & MK_STREAM_F_FIN) {
		if (SEQ_GEQ(seq, st->fin_seq)) {
			STAT_INC(eng, DATA_AFTER_FIN);
			return 0;
		}
		if (SEQ_GT(seq + len, st->fin_seq)) {
			STAT_INC(eng, DATA_AFTER_FIN);
			len = st->fin_seq - seq;
		}
	}
	if (SEQ_LEQ(seq + len, st->base_seq)) {
		/* all of it was released already: nothing left to compare against */
		STAT_INC(eng, RETRANS);
		return 0;
	}
	if (SEQ_LT(seq, st->base_seq)) {
		d = st->base_seq - seq;
		STAT_INC(eng, OVERLAP);
		seq += d;
		data += d;
		len -= d;
	}
	if (!in_window(ssn, dir, seq, len)) {
		STAT_INC(eng, OUT_OF_WINDOW);
		return -ERANGE;
	}
	if (window_closed(ssn, dir)) {
		STAT_INC(eng, ZERO_WINDOW);
		return -ERANGE;
	}
	if (eng->cfg.depth) {
		off = st->base_off + (seq - st->base_seq);
		if (off >= eng->cfg.depth) {
			STAT_INC(eng, DEPTH_SEGS);
			if (st->bypass_st & MK_STREAM_BYPASS_DONE)
				st->bypass_st |= MK_STREAM_BYPASS_PAST;
			depth_mark(eng, ssn, dir);
			return 0;
		}
		if (off + len > eng->cfg.depth) {
			STAT_INC(eng, DEPTH_SEGS);
			len = (__u32)(eng->cfg.depth - off);
		}
		stream_insert(eng, st, seq, data, len);
		if (off + len >= eng->cfg.depth)
			depth_mark(eng, ssn, dir);
		bypass_note(eng, ssn, st);
		return 0;
	}
	stream_insert(eng, st, seq, data, len);
	return 0;
}

/* First packet of a side we had no sequence numbers for: it starts at seq. */
static void side_pickup(struct mk_tcp_stream *st, __u32 seq)
{
	st->isn = seq - 1;
	st->base_seq = st->next_seq = st->max_end = seq;
	st->st |= MK_STREAM_F_ISN;
}

static void side_syn(struct mk_tcp_stream *st, const struct mk_tcp_seg *seg)
{
	side_pickup(st, seg->seq + 1);
	st->win = seg->window; /* never scaled on a SYN */
	st->st |= MK_STREAM_F_WIN;
	if (seg->wscale >= 0) {
		st->st |= MK_STREAM_F_WSCALE;
		st->wscale = seg->wscale > MK_WSCALE_MAX ? MK_WSCALE_MAX : (__u8)seg->wscale;
	} else {
		st->st &= (__u8)~MK_STREAM_F_WSCALE;
		st->wscale = 0;
	}
}

/* Does @ack acknowledge the SYN of @st and nothing it has not sent? */
static int ack_of_syn(const struct mk_tcp_stream *st, __u32 ack)
{
	return SEQ_GEQ(ack, st->isn + 1) && SEQ_LEQ(ack, st->max_end);
}

static void track_max_end(struct mk_tcp_stream *st, __u32 end)
{
	if (SEQ_GT(end, st->max_end))
		st->max_end = end;
}

/* Data on a SYN (TCP Fast Open) starts after the SYN's sequence number. */
static void syn_data(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
		     const struct mk_tcp_seg *seg)
{
	if (seg->len && !stream_data(eng, ssn, dir, seg->seq + 1, seg->payload, seg->len))
		track_max_end(&ssn->s[dir], seg->seq + 1 + seg->len);
}

static void ssn_wscale(struct mk_tcp_session *ssn)
{
	if ((ssn->s[0].st & MK_STREAM_F_WSCALE) && (ssn->s[1].st & MK_STREAM_F_WSCALE))
		ssn->flags |= MK_SSN_F_WSCALE;
	else
		ssn->s[0].wscale = ssn->s[1].wscale = 0;
}

static void ssn_close(struct mk_stream_engine *eng, struct mk_tcp_session *ssn)
{
	ssn->state = MK_TCP_CLOSED;
	stream_release(eng, ssn, 0, 0, 1);
	stream_release(eng, ssn, 1, 0, 1);
}

/*
 * A valid RST from @dir closes the session, remembering the state it ended:
 * if its sender goes on sending, the RST was not its own (a spoofed RST that
 * the real endpoints never saw) and the session resumes, as Suricata does.
 * Until then the in-order data of both directions is released, but nothing
 * past a hole: the missing bytes may still come if the session resumes.
 */
static void ssn_close_rst(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir)
{
	ssn->pre_rst_state = ssn->state;
	ssn->rst_from = (__u8)(dir + 1);
	ssn->state = MK_TCP_CLOSED;
	stream_release(eng, ssn, 0, ssn->s[0].next_seq, 0);
	stream_release(eng, ssn, 1, ssn->s[1].next_seq, 0);
}

/*
 * RFC 5961 3.2: a stack accepts a RST only at exactly the sequence number it
 * expects next; one merely in the window draws a challenge ACK. A passive
 * observer knows that number up to what is in flight: from the receiver's
 * last ACK (or the sender's in-order data) to the highest byte sent. An ACK
 * on the RST must not acknowledge bytes the receiver never sent.
 */
static int rst_valid(const struct mk_tcp_session *ssn, int dir, const struct mk_tcp_seg *seg)
{
	const struct mk_tcp_stream *st = &ssn->s[dir], *peer = &ssn->s[!dir];
	__u32 lo = st->next_seq, hi = st->max_end;

	if ((st->st & MK_STREAM_F_ACKED) && SEQ_LT(st->peer_ack, lo))
		lo = st->peer_ack;
	if (SEQ_LT(seg->seq, lo) || SEQ_GT(seg->seq, hi))
		return 0;
	if ((seg->flags & MK_TCP_ACK) && (peer->st & MK_STREAM_F_ISN) &&
	    SEQ_GT(seg->ack, peer->max_end))
		return 0;
	return 1;
}

static int handle_rst(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
		      const struct mk_tcp_seg *seg)
{
	if (!rst_valid(ssn, dir, seg)) {
		STAT_INC(eng, INVALID_RST);
		return 0;
	}
	STAT_INC(eng, RST);
	if (seg->len) {
		/* inspected like Suricata does, though most stacks discard it */
		STAT_INC(eng, RST_DATA);
		stream_data(eng, ssn, dir, seg->seq, seg->payload, seg->len);
	}
	ssn_close_rst(eng, ssn, dir);
	return 0;
}

static int fin_acked(const struct mk_tcp_stream *st)
{
	return (st->st & MK_STREAM_F_FIN) && (st->st & MK_STREAM_F_ACKED) &&
	       SEQ_GT(st->peer_ack, st->fin_seq);
}

/*
 * RFC 793 closing states with Suricata's names, which are the SERVER's: a
 * FIN from the client puts the server in close_wait, one from the server
 * puts it in fin_wait1 (docs/stream.md has the whole machine).
 */
static void update_close_state(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
			       __u8 flags)
{
	const struct mk_tcp_stream *c = &ssn->s[MK_STREAM_TO_SERVER],
				   *s = &ssn->s[MK_STREAM_TO_CLIENT];
	int fin = flags & MK_TCP_FIN;

	switch (ssn->state) {
	case MK_TCP_ESTABLISHED:
		if (fin)
			ssn->state = dir == MK_STREAM_TO_SERVER ? MK_TCP_CLOSE_WAIT :
								  MK_TCP_FIN_WAIT1;
		break;
	case MK_TCP_FIN_WAIT1:
		/* the server sent its FIN: the client acknowledges it, or closes too */
		if (dir != MK_STREAM_TO_SERVER)
			break;
		if (fin)
			ssn->state = fin_acked(s) ? MK_TCP_TIME_WAIT : MK_TCP_CLOSING;
		else if (fin_acked(s))
			ssn->state = MK_TCP_FIN_WAIT2;
		break;
	case MK_TCP_FIN_WAIT2:
		if (dir == MK_STREAM_TO_SERVER && fin)
			ssn->state = MK_TCP_TIME_WAIT;
		break;
	case MK_TCP_CLOSE_WAIT:
		/* the client sent its FIN: the server's closes the other half */
		if (dir == MK_STREAM_TO_CLIENT && fin)
			ssn->state = MK_TCP_LAST_ACK;
		break;
	case MK_TCP_CLOSING:
		if (fin_acked(c) && fin_acked(s))
			ssn->state = MK_TCP_TIME_WAIT;
		break;
	default:
		break;
	}
	if ((ssn->state == MK_TCP_TIME_WAIT || ssn->state == MK_TCP_LAST_ACK) && fin_acked(c) &&
	    fin_acked(s))
		ssn_close(eng, ssn);
}

/* ACK of @dir's packet acknowledges the peer's data: release what it covers. */
static void handle_ack(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir, __u32 ack)
{
	struct mk_tcp_stream *peer = &ssn->s[!dir];

	if (!(peer->st & MK_STREAM_F_ISN))
		side_pickup(peer, ack);
	if (SEQ_GT(ack, peer->max_end)) {
		/* acks bytes we never saw (capture loss): the holes are what we can skip */
		STAT_INC(eng, ACK_UNSEEN);
		ack = peer->max_end;
	}
	if (!(peer->st & MK_STREAM_F_ACKED) || SEQ_GT(ack, peer->peer_ack)) {
		peer->peer_ack = ack;
		peer->st |= MK_STREAM_F_ACKED;
	}
	stream_release(eng, ssn, !dir, peer->peer_ack, 0);
}

/* Established and closing states: data, FIN, ACK. */
static int handle_established(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
			      const struct mk_tcp_seg *seg)
{
	struct mk_tcp_stream *st = &ssn->s[dir];
	__u32 end;

	if (seg->flags & MK_TCP_SYN) {
		if (dir == MK_STREAM_TO_CLIENT && (seg->flags & MK_TCP_ACK) &&
		    SEQ_EQ(seg->seq, st->isn))
			STAT_INC(eng, SYNACK_RETRANS);
		else if (dir == MK_STREAM_TO_SERVER && !(seg->flags & MK_TCP_ACK) &&
			 SEQ_EQ(seg->seq, st->isn))
			STAT_INC(eng, SYN_RETRANS);
		else
			STAT_INC(eng, INVALID_STATE);
		return 0;
	}
	if (!(st->st & MK_STREAM_F_ISN))
		side_pickup(st, seg->seq);
	if (seg->flags & MK_TCP_RST)
		return handle_rst(eng, ssn, dir, seg);

	st->win = (__u32)seg->window << ((ssn->flags & MK_SSN_F_WSCALE) ? st->wscale : 0);
	st->st |= MK_STREAM_F_WIN;
	if (stream_data(eng, ssn, dir, seg->seq, seg->payload, seg->len))
		return 0;
	/*
	 * Inline (as Suricata's stream.inline): in-order data is inspected as
	 * it arrives, so that a drop verdict on it stops the segment that
	 * completes a match before it is forwarded; waiting for the receiver's
	 * ACK would be too late.
	 */
	if (eng->cfg.inline_mode && seg->len)
		stream_release(eng, ssn, dir, st->next_seq, 0);
	end = seg->seq + seg->len;
	if ((seg->flags & MK_TCP_FIN) && !(st->st & MK_STREAM_F_FIN)) {
		/*
		 * A stray FIN must not cut the stream short (data after it is
		 * ignored): no sender puts its FIN before bytes it already sent,
		 * nor beyond what the receiver's window allows (Suricata's
		 * FIN_INVALID_SEQ).
		 */
		if (SEQ_LT(end, st->max_end) || !in_window(ssn, dir, end, 0)) {
			STAT_INC(eng, INVALID_FIN);
			return 0;
		}
		STAT_INC(eng, FIN);
		st->fin_seq = end;
		st->st |= MK_STREAM_F_FIN;
	}
	if ((seg->flags & MK_TCP_FIN) && SEQ_EQ(end, st->fin_seq))
		end++;
	if (SEQ_LEQ(end, st->base_seq + MK_MAX_AHEAD))
		track_max_end(st, end);
	if (seg->flags & MK_TCP_ACK)
		handle_ack(eng, ssn, dir, seg->ack);
	update_close_state(eng, ssn, dir, seg->flags);
	return 0;
}

static int handle_none(struct mk_stream_engine *eng, struct mk_tcp_session *ssn,
		       const struct mk_tcp_seg *seg)
{
	__u8 f = seg->flags;
	struct mk_tcp_stream *c = &ssn->s[MK_STREAM_TO_SERVER], *s = &ssn->s[MK_STREAM_TO_CLIENT];

	if (f & MK_TCP_RST) {
		STAT_INC(eng, NO_SESSION);
		return 0;
	}
	if ((f & (MK_TCP_SYN | MK_TCP_ACK)) == MK_TCP_SYN) {
		ssn->swapped = seg->dir;
		side_syn(c, seg);
		ssn->state = MK_TCP_SYN_SENT;
		STAT_INC(eng, SESSIONS);
		syn_data(eng, ssn, MK_STREAM_TO_SERVER, seg);
		return 0;
	}
	if (!eng->cfg.midstream) {
		STAT_INC(eng, NO_SESSION);
		return 0;
	}
	STAT_INC(eng, SESSIONS);
	STAT_INC(eng, MIDSTREAM);
	ssn->midstream = 1;
	/* the window scale of at least one side is unknown */
	ssn->flags |= MK_SSN_F_NO_WINCHECK;
	if (f & MK_TCP_SYN) {
		/* SYN/ACK whose SYN we missed (or that came first): its sender is the server */
		ssn->swapped = !seg->dir;
		ssn->flags |= MK_SSN_F_SYNACK_FIRST;
		side_syn(s, seg);
		side_pickup(c, seg->ack);
		c->peer_ack = seg->ack;
		c->st |= MK_STREAM_F_ACKED;
		ssn->state = MK_TCP_SYN_RECV;
		return 0;
	}
	/* anything else: its sender is taken as the client */
	ssn->swapped = seg->dir;
	side_pickup(c, seg->seq);
	ssn->state = MK_TCP_ESTABLISHED;
	return handle_established(eng, ssn, MK_STREAM_TO_SERVER, seg);
}

/* An earlier client ISN, kept until the SYN/ACK says which SYN it answers. */
static void syn_keep_isn(struct mk_tcp_session *ssn, __u32 isn)
{
	__u8 i;

	for (i = 0; i < ssn->nalt_isn; i++)
		if (SEQ_EQ(ssn->alt_isn[i], isn))
			return;
	if (ssn->nalt_isn < MK_TCP_ALT_ISN) {
		ssn->alt_isn[ssn->nalt_isn++] = isn;
		return;
	}
	/* full: the oldest stays (the first SYN is likeliest the real one), the newest goes */
	ssn->alt_isn[MK_TCP_ALT_ISN - 1] = isn;
}

/* The SYN/ACK acknowledges an earlier ISN: the client's side starts from that one. */
static int syn_pick_isn(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, __u32 ack)
{
	struct mk_tcp_stream *c = &ssn->s[MK_STREAM_TO_SERVER];
	__u8 i;

	for (i = 0; i < ssn->nalt_isn; i++) {
		if (!SEQ_EQ(ack, ssn->alt_isn[i] + 1))
			continue;
		stream_drop_segs(eng, c);
		c->isn = ssn->alt_isn[i];
		c->base_seq = c->next_seq = c->max_end = c->isn + 1;
		return 1;
	}
	return 0;
}

static int handle_syn_sent(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
			   const struct mk_tcp_seg *seg)
{
	struct mk_tcp_stream *c = &ssn->s[MK_STREAM_TO_SERVER], *s = &ssn->s[MK_STREAM_TO_CLIENT];
	__u8 f = seg->flags;

	if (dir == MK_STREAM_TO_SERVER) {
		if ((f & (MK_TCP_SYN | MK_TCP_ACK)) == MK_TCP_SYN) {
			if (SEQ_EQ(seg->seq, c->isn)) {
				STAT_INC(eng, SYN_RETRANS);
			} else {
				/*
				 * Another ISN: the client restarted its connect, or
				 * someone else sent a SYN. Both are kept, and the
				 * SYN/ACK says which one the server answered.
				 */
				STAT_INC(eng, SYN_NEW_ISN);
				syn_keep_isn(ssn, c->isn);
				stream_drop_segs(eng, c);
				side_syn(c, seg);
			}
			syn_data(eng, ssn, MK_STREAM_TO_SERVER, seg);
			return 0;
		}
		if (f & MK_TCP_RST)
			return handle_rst(eng, ssn, dir, seg);
		STAT_INC(eng, INVALID_STATE);
		return 0;
	}
	if (f & MK_TCP_RST) {
		/*
		 * RFC 793: a RST answering a SYN acknowledges it, and having no
		 * ACK to take its sequence number from, carries 0.
		 */
		if (!(f & MK_TCP_ACK) || !ack_of_syn(c, seg->ack) || seg->seq) {
			STAT_INC(eng, INVALID_RST);
			return 0;
		}
		STAT_INC(eng, RST);
		ssn_close_rst(eng, ssn, dir);
		return 0;
	}
	if ((f & (MK_TCP_SYN | MK_TCP_ACK)) == (MK_TCP_SYN | MK_TCP_ACK)) {
		if (!ack_of_syn(c, seg->ack) && !syn_pick_isn(eng, ssn, seg->ack)) {
			STAT_INC(eng, SYNACK_BAD_ACK);
			return 0;
		}
		ssn->nalt_isn = 0;
		if (SEQ_EQ(seg->ack, c->isn + 1) && SEQ_GT(c->max_end, c->isn + 1)) {
			/*
			 * The server took the SYN but not its data (no Fast Open
			 * cookie): the client sends it again after the handshake,
			 * maybe otherwise. The first copy is not what the server saw.
			 */
			STAT_INC(eng, SYN_DATA_DROPPED);
			stream_drop_segs(eng, c);
			c->next_seq = c->max_end = c->isn + 1;
		}
		side_syn(s, seg);
		c->peer_ack = seg->ack;
		c->st |= MK_STREAM_F_ACKED;
		ssn_wscale(ssn);
		ssn->state = MK_TCP_SYN_RECV;
		/* Fast Open data the SYN/ACK accepted */
		stream_release(eng, ssn, MK_STREAM_TO_SERVER, c->peer_ack, 0);
		return 0;
	}
	if (f & MK_TCP_SYN) {
		/* simultaneous open: both sides sent a SYN */
		side_syn(s, seg);
		ssn_wscale(ssn);
		ssn->flags |= MK_SSN_F_SIMOPEN;
		STAT_INC(eng, SIM_OPEN);
		ssn->state = MK_TCP_SYN_RECV;
		return 0;
	}
	STAT_INC(eng, INVALID_STATE);
	return 0;
}

/*
 * The client's SYN after a SYN/ACK that started the session midstream. If
 * the SYN/ACK answered this SYN, they were only reordered: the SYN fills in
 * the client's side (window, scale) and the handshake is whole. If not, the
 * SYN/ACK answered nothing we saw (spoofed, or an older attempt): the session
 * starts again from this SYN, as if the SYN/ACK had never come.
 */
static int syn_after_synack(struct mk_stream_engine *eng, struct mk_tcp_session *ssn,
			    const struct mk_tcp_seg *seg)
{
	struct mk_tcp_stream *c = &ssn->s[MK_STREAM_TO_SERVER];
	__u8 swapped = ssn->swapped;

	STAT_INC(eng, SYN_AFTER_SYNACK);
	if (SEQ_EQ(seg->seq, c->isn) && !c->head) {
		side_syn(c, seg);
		ssn->flags &= (__u8) ~(MK_SSN_F_SYNACK_FIRST | MK_SSN_F_NO_WINCHECK);
		ssn->midstream = 0;
		ssn_wscale(ssn);
		return 0;
	}
	/*
	 * Data already went to detection at its stream offsets: starting over
	 * would hand out offset 0 again. The session is past a handshake to
	 * replay; this SYN answers nothing and is left out.
	 */
	if (ssn->s[MK_STREAM_TO_SERVER].base_off || ssn->s[MK_STREAM_TO_CLIENT].base_off ||
	    ssn->s[MK_STREAM_TO_SERVER].pending_gap || ssn->s[MK_STREAM_TO_CLIENT].pending_gap) {
		STAT_INC(eng, INVALID_STATE);
		return 0;
	}
	mk_tcp_session_reset(eng, ssn);
	ssn->swapped = swapped;
	side_syn(c, seg);
	ssn->state = MK_TCP_SYN_SENT;
	syn_data(eng, ssn, MK_STREAM_TO_SERVER, seg);
	return 0;
}

static int handle_syn_recv(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
			   const struct mk_tcp_seg *seg)
{
	struct mk_tcp_stream *st = &ssn->s[dir], *peer = &ssn->s[!dir];
	__u8 f = seg->flags;

	if ((f & (MK_TCP_SYN | MK_TCP_ACK)) == MK_TCP_SYN && dir == MK_STREAM_TO_SERVER &&
	    (ssn->flags & MK_SSN_F_SYNACK_FIRST))
		return syn_after_synack(eng, ssn, seg);
	if (f & MK_TCP_SYN) {
		if (!SEQ_EQ(seg->seq, st->isn) || !(st->st & MK_STREAM_F_ISN)) {
			STAT_INC(eng, INVALID_STATE);
			return 0;
		}
		if (!(f & MK_TCP_ACK)) {
			STAT_INC(eng, SYN_RETRANS);
			return 0;
		}
		if (!ack_of_syn(peer, seg->ack)) {
			STAT_INC(eng, SYNACK_BAD_ACK);
			return 0;
		}
		if (peer->st & MK_STREAM_F_ACKED) {
			STAT_INC(eng, SYNACK_RETRANS);
		} else {
			/* simultaneous open: the second SYN/ACK */
			peer->peer_ack = seg->ack;
			peer->st |= MK_STREAM_F_ACKED;
		}
		if ((ssn->flags & MK_SSN_F_SIMOPEN) && (st->st & MK_STREAM_F_ACKED) &&
		    (peer->st & MK_STREAM_F_ACKED))
			ssn->state = MK_TCP_ESTABLISHED;
		return 0;
	}
	if (f & MK_TCP_RST) {
		if (!(st->st & MK_STREAM_F_ISN))
			side_pickup(st, seg->seq);
		return handle_rst(eng, ssn, dir, seg);
	}
	/* any ACK that acknowledges the other side's SYN completes the handshake */
	if (!(f & MK_TCP_ACK) || !(peer->st & MK_STREAM_F_ISN) ||
	    !SEQ_GEQ(seg->ack, peer->isn + 1) || SEQ_GT(seg->ack, peer->max_end)) {
		STAT_INC(eng, INVALID_STATE);
		return 0;
	}
	ssn->state = MK_TCP_ESTABLISHED;
	return handle_established(eng, ssn, dir, seg);
}

static __u32 rd32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | ((__u32)p[1] << 16) | ((__u32)p[2] << 8) | p[3];
}

int mk_tcp_seg_parse(struct mk_tcp_seg *seg, const __u8 *tcp, __u32 len)
{
	__u32 hlen, i;

	if (!seg || !tcp || len < 20)
		return -EINVAL;
	hlen = (__u32)(tcp[12] >> 4) * 4;
	if (hlen < 20 || hlen > len)
		return -EINVAL;
	seg->seq = rd32(tcp + 4);
	seg->ack = rd32(tcp + 8);
	seg->flags = tcp[13];
	seg->window = (__u16)((tcp[14] << 8) | tcp[15]);
	seg->wscale = -1;
	seg->payload = len > hlen ? tcp + hlen : NULL;
	seg->len = len - hlen;
	/* options: only window scale matters here, and only on a SYN */
	for (i = 20; i < hlen;) {
		__u8 kind = tcp[i];

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hlen || tcp[i + 1] < 2 || i + tcp[i + 1] > hlen)
			break; /* malformed options: ignore the rest, keep the segment */
		if (kind == 3 && tcp[i + 1] == 3 && (seg->flags & MK_TCP_SYN))
			seg->wscale =
				(__s8)(tcp[i + 2] > MK_WSCALE_MAX ? MK_WSCALE_MAX : tcp[i + 2]);
		i += tcp[i + 1];
	}
	return 0;
}

/* Both sides closed (Suricata: TcpSessionReuseDoneEnough): a new SYN is a new session. */
static int reuse_state(int state)
{
	return state == MK_TCP_CLOSE_WAIT || state == MK_TCP_LAST_ACK || state == MK_TCP_CLOSING ||
	       state == MK_TCP_TIME_WAIT || state == MK_TCP_CLOSED;
}

static int ssn_dispatch(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, int dir,
			const struct mk_tcp_seg *seg)
{
	switch (ssn->state) {
	case MK_TCP_SYN_SENT:
		return handle_syn_sent(eng, ssn, dir, seg);
	case MK_TCP_SYN_RECV:
		return handle_syn_recv(eng, ssn, dir, seg);
	case MK_TCP_CLOSED:
		STAT_INC(eng, AFTER_CLOSE);
		return 0;
	default:
		return handle_established(eng, ssn, dir, seg);
	}
}

int mk_stream_packet(struct mk_stream_engine *eng, struct mk_tcp_session *ssn,
		     const struct mk_tcp_seg *seg, __u64 ts_ns)
{
	int dir, ret;

	if (!eng || !ssn || !seg || seg->dir > 1 || (seg->len && !seg->payload))
		return -EINVAL;
	if (!seg->csum_ok) {
		STAT_INC(eng, BAD_CSUM);
		return 0;
	}
	ssn->last_ts_ns = ts_ns;
	dir = seg->dir ^ ssn->swapped;
	/* a new connection on the same ports, from either side, once both have closed */
	if (reuse_state(ssn->state) && (seg->flags & (MK_TCP_SYN | MK_TCP_ACK)) == MK_TCP_SYN &&
	    !SEQ_EQ(seg->seq, ssn->s[dir].isn)) {
		STAT_INC(eng, REUSE);
		return MK_STREAM_REUSE;
	}
	if (ssn->state == MK_TCP_CLOSED && ssn->rst_from == dir + 1 && !(seg->flags & MK_TCP_RST)) {
		/* the RST's sender goes on as if it had sent none: it did not */
		STAT_INC(eng, RST_RESUMED);
		ssn->state = ssn->pre_rst_state;
		ssn->rst_from = 0;
	}
	if (ssn->state == MK_TCP_NONE) {
		ret = handle_none(eng, ssn, seg);
		/* roles are known now */
		dir = seg->dir ^ ssn->swapped;
	} else {
		ret = ssn_dispatch(eng, ssn, dir, seg);
	}
	/* EVE's tcp_flags_ts/tc: every packet of the session, as Suricata counts them */
	if (ssn->state != MK_TCP_NONE)
		ssn->s[dir].flags_seen |= seg->flags;
	return ret;
}

void mk_stream_flow_end(struct mk_stream_engine *eng, struct mk_tcp_session *ssn)
{
	stream_release(eng, ssn, MK_STREAM_TO_SERVER, 0, 1);
	stream_release(eng, ssn, MK_STREAM_TO_CLIENT, 0, 1);
}

int mk_stream_overlap_policy_parse(const char *name)
{
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "first"))
		return MK_OVERLAP_FIRST;
	if (!strcmp(name, "last"))
		return MK_OVERLAP_LAST;
	return -EINVAL;
}

const char *mk_tcp_state_name(int state)
{
	if (state < 0 || state >= MK_TCP_STATE_MAX)
		return "unknown";
	return state_names[state];
}

int mk_tcp_session_state(const struct mk_tcp_session *ssn)
{
	return ssn->state;
}

int mk_tcp_state_closing(int state)
{
	return state == MK_TCP_LAST_ACK || state == MK_TCP_TIME_WAIT || state == MK_TCP_CLOSED;
}

int mk_tcp_state_established(int state)
{
	return state == MK_TCP_ESTABLISHED || state == MK_TCP_FIN_WAIT1 ||
	       state == MK_TCP_FIN_WAIT2 || state == MK_TCP_CLOSING || state == MK_TCP_CLOSE_WAIT;
}

int mk_tcp_session_swapped(const struct mk_tcp_session *ssn)
{
	return ssn->swapped;
}

__u8 mk_tcp_session_flags(const struct mk_tcp_session *ssn, int dir)
{
	if (dir < 0)
		return ssn->s[0].flags_seen | ssn->s[1].flags_seen;
	return ssn->s[dir & 1].flags_seen;
}

void mk_tcp_flags_hex(__u8 flags, char buf[3])
{
	static const char hex[] = "0123456789abcdef";

	buf[0] = hex[flags >> 4];
	buf[1] = hex[flags & 0xf];
	buf[2] = '\0';
}

__u64 mk_tcp_session_seq_offset(const struct mk_tcp_session *ssn, int dir, __u32 seq)
{
	const struct mk_tcp_stream *st = &ssn->s[dir & 1];
	__s64 off = (__s64)st->base_off + (__s32)(seq - st->base_seq);

	return off < 0 ? 0 : (__u64)off;
}

__u32 mk_tcp_session_stream_size(const struct mk_tcp_session *ssn, int dir)
{
	const struct mk_tcp_stream *st = &ssn->s[dir & 1];

	return st->next_seq - st->isn;
}

int mk_tcp_session_depth_reached(const struct mk_tcp_session *ssn, int dir)
{
	return !!(ssn->s[dir & 1].st & MK_STREAM_F_DEPTH);
}

int mk_tcp_session_bypass_ready(const struct mk_tcp_session *ssn)
{
	int d;

	if (ssn->s[0].bypass_st & ssn->s[1].bypass_st & MK_STREAM_BYPASS_DONE)
		return 1;
	for (d = 0; d < 2; d++) {
		const struct mk_tcp_stream *st = &ssn->s[d];

		if ((st->bypass_st & MK_STREAM_BYPASS_PAST) &&
		    ssn->s[!d].next_seq == st->depth_peer_seq)
			return 1;
	}
	return 0;
}

const __u8 *mk_tcp_session_data(const struct mk_tcp_session *ssn, int dir, __u64 *len)
{
	const struct mk_tcp_stream *st = &ssn->s[dir & 1];

	if (len)
		*len = st->rec_len;
	return st->rec;
}

const char *mk_stream_stat_name(int id)
{
	return id >= 0 && id < MK_STREAM_STAT_MAX ? stat_names[id] : NULL;
}

const char *mk_stream_stat_desc(int id)
{
	return id >= 0 && id < MK_STREAM_STAT_MAX ? stat_descs[id] : NULL;
}

void mk_stream_stats_foreach(const struct mk_stream_engine *eng,
			     void (*fn)(const char *name, __u64 value, void *arg), void *arg)
{
	int i;

	for (i = 0; i < MK_STREAM_STAT_MAX; i++)
		fn(stat_names[i], eng->stats.c[i], arg);
}

void mk_stream_stats_add(struct mk_stream_stats *dst, const struct mk_stream_stats *src)
{
	int i;

	for (i = 0; i < MK_STREAM_STAT_MAX; i++)
		dst->c[i] += src->c[i];
}

static void print_one(const char *name, __u64 value, void *arg)
{
	fprintf(arg, "stream.%s %llu\n", name, (unsigned long long)value);
}

void mk_stream_stats_print(const struct mk_stream_engine *eng, FILE *out)
{
	mk_stream_stats_foreach(eng, print_one, out);
}

/*
 * The stream engine's keys. Suricata's names where it has the setting:
 * `stream.reassembly.memcap` bounds segment memory here as there (Suricata's
 * `stream.memcap` bounds session state, which lives in flow entries here).
 */
static const struct mk_cfg_name overlap_names[] = {
	{ "first", MK_OVERLAP_FIRST },
	{ "last", MK_OVERLAP_LAST },
	{ NULL, 0 },
};

static void stream_cfg_defaults_any(void *base)
{
	mk_stream_cfg_default(base);
}

#define C struct mk_stream_cfg
static const struct mk_cfg_key stream_keys[] = {
	MK_CFG_BOOL("stream.midstream", C, midstream),
	MK_CFG_SIZE("stream.reassembly.memcap", C, memcap, 1u << 20, UINT64_MAX),
	MK_CFG_SIZE("stream.reassembly.depth", C, depth, 0, UINT32_MAX),
	MK_CFG_UINT("stream.reassembly.segment-prealloc", C, prealloc_segs, 0, 1u << 20),
	MK_CFG_ENUM("stream.reassembly.overlap-policy", C, overlap_policy, overlap_names),
	MK_CFG_UINT("stream.reassembly.max-ooo-segs", C, max_ooo_segs, 0, 1u << 24),
};
#undef C

const struct mk_cfg_table mk_stream_cfg_table = {
	.name = "stream",
	.keys = stream_keys,
	.nkeys = MK_ARRAY_SIZE(stream_keys),
	.defaults = stream_cfg_defaults_any,
};
