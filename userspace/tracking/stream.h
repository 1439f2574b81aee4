/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TCP session tracking and per-direction stream reassembly for one worker.
 *
 * Threading: one struct mk_stream_engine per worker thread; it and every
 * session handed to it are touched only by that thread (shared-nothing, no
 * locks). The engine owns the segment pool and the memory cap; sessions are
 * plain structs embedded in the flow-table entry.
 *
 * Per packet, the worker (after checksum validation and flow lookup) calls
 *
 *	struct mk_tcp_seg seg = { .dir = ..., .seq = ..., ... };
 *	ret = mk_stream_packet(eng, &flow->tcp, &seg, ts_ns);
 *	if (ret == MK_STREAM_REUSE) { end the flow, start a new one, re-feed }
 *
 * and, when the flow ends (timeout, eviction, end of pcap):
 *
 *	mk_stream_flow_end(eng, &flow->tcp);   releases everything still held
 *	mk_tcp_session_free(eng, &flow->tcp);  returns segments, frees records
 *
 * Directions. seg.dir is relative to the flow's first packet, as the flow
 * table knows it (0 = same direction as the first packet). The engine works
 * out client and server from the SYN (or, midstream, from the first packet)
 * and everything it reports (chunks, flags, depth) uses ROLE directions:
 * MK_STREAM_TO_SERVER is data sent by the client. mk_tcp_session_swapped()
 * says when the two differ (first packet seen was sent by the server, e.g. a
 * SYN/ACK whose SYN was missed), so EVE can print src/dst the right way.
 *
 * IDS release rule (as Suricata): in-order data of one direction is released
 * to the data callback once the OTHER side has ACKed it; a hole the other
 * side ACKs past is skipped and counted as a gap; a valid RST releases the
 * in-order data not yet ACKed; everything else (data after a hole) is
 * released by mk_stream_flow_end().
 *
 * The state machine, its names (Suricata's, the half-closed states named from
 * the server's side) and how RST, FIN and SYN are validated against evasion
 * are in docs/stream.md.
 * Each chunk carries its stream offset (bytes since ISN+1; 64-bit, so it does
 * not wrap with the sequence space) and the number of bytes skipped before it.
 */
#ifndef MK_STREAM_H
#define MK_STREAM_H

#include <stdio.h>
#include <linux/types.h>

/* RFC 1982-style comparisons that survive wraparound at 2^32. */
#define SEQ_LT(a, b) ((__s32)((__u32)(a) - (__u32)(b)) < 0)
#define SEQ_LEQ(a, b) ((__s32)((__u32)(a) - (__u32)(b)) <= 0)
#define SEQ_GT(a, b) ((__s32)((__u32)(a) - (__u32)(b)) > 0)
#define SEQ_GEQ(a, b) ((__s32)((__u32)(a) - (__u32)(b)) >= 0)
#define SEQ_EQ(a, b) ((__u32)(a) == (__u32)(b))

/* TCP header flag bits, as in the header's 13th byte. */
#define MK_TCP_FIN 0x01
#define MK_TCP_SYN 0x02
#define MK_TCP_RST 0x04
#define MK_TCP_PSH 0x08
#define MK_TCP_ACK 0x10
#define MK_TCP_URG 0x20
#define MK_TCP_ECE 0x40
#define MK_TCP_CWR 0x80

/* Role directions, used for everything the engine reports. */
#define MK_STREAM_TO_SERVER 0
#define MK_STREAM_TO_CLIENT 1

/* mk_stream_packet() return: TCP port reuse, caller ends the flow and re-feeds. */
#define MK_STREAM_REUSE 1

/* Payload bytes per pooled segment; larger payloads span several. */
#define MK_STREAM_SEG_DATA 2048

enum mk_tcp_state {
	MK_TCP_NONE = 0,
	MK_TCP_SYN_SENT,
	MK_TCP_SYN_RECV,
	MK_TCP_ESTABLISHED,
	MK_TCP_FIN_WAIT1,
	MK_TCP_FIN_WAIT2,
	MK_TCP_TIME_WAIT,
	MK_TCP_CLOSE_WAIT,
	MK_TCP_CLOSING,
	MK_TCP_LAST_ACK,
	MK_TCP_CLOSED,
	MK_TCP_STATE_MAX,
};

/* Which copy of overlapping bytes wins (retransmissions with other data). */
enum mk_overlap_policy {
	MK_OVERLAP_FIRST = 0, /* bytes seen first are kept (BSD, Windows-like) */
	MK_OVERLAP_LAST = 1,  /* bytes seen last overwrite buffered ones */
};

struct mk_stream_cfg {
	__u64 memcap;	     /* bytes of pooled segments per engine; 0 = unlimited */
	__u64 depth;	     /* bytes reassembled per direction; 0 = unlimited */
	__u32 max_ooo_segs;  /* out-of-order segments held per direction; 0 = unlimited */
	__u32 prealloc_segs; /* pool segments allocated up front */
	__u8 midstream;	     /* pick up sessions without a handshake */
	__u8 overlap_policy; /* enum mk_overlap_policy */
	__u8 record;	     /* keep all released data per direction (tests, offline) */
	__u8 inline_mode;    /* IPS: release in-order data on arrival, before its ACK */
	__u8 pad[4];
};

/* One TCP packet as the worker decoded it. */
struct mk_tcp_seg {
	const __u8 *payload;
	__u32 len;
	__u32 seq;
	__u32 ack;
	__u16 window; /* as on the wire, unscaled */
	__u8 flags;   /* MK_TCP_* */
	__u8 dir;     /* 0 = as the flow's first packet, 1 = the reverse */
	__s8 wscale;  /* window scale option on a SYN, -1 when absent */
	__u8 csum_ok; /* caller validated (or was told not to check) the checksum */
	__u8 pad[2];
};

/* A piece of released data, valid only during the callback. */
struct mk_stream_chunk {
	const __u8 *data;
	__u64 offset; /* stream offset of data[0]: bytes since ISN+1 */
	__u64 gap;    /* bytes skipped (never seen) just before this chunk */
	__u32 len;
	__u8 dir; /* MK_STREAM_TO_SERVER / MK_STREAM_TO_CLIENT */
	__u8 pad[3];
};

struct mk_tcp_session;

/*
 * Called from inside mk_stream_packet() / mk_stream_flow_end() on the worker
 * thread. They may read the session (container_of gives the flow) but must
 * not feed, reset or free it; a bypass decision is acted on after return.
 * Under memory pressure a packet of one session may release another
 * session's data (reclaim, docs/stream.md): @ssn is always the data's own.
 */
struct mk_stream_cbs {
	/* released data, in stream order per direction */
	void (*data)(void *user, struct mk_tcp_session *ssn, const struct mk_stream_chunk *chunk);
	/* a direction reached the reassembly depth (called once per direction) */
	void (*depth)(void *user, struct mk_tcp_session *ssn, int dir);
};

/* Counters: one place defines them; enum and names are generated. */
#define MK_STREAM_STATS(X)                                                                    \
	X(SESSIONS, "sessions", "sessions started (handshake or midstream)")                  \
	X(MIDSTREAM, "midstream", "sessions picked up without a SYN")                         \
	X(NO_SESSION, "no_session", "packet ignored: no session and cannot start one")        \
	X(BAD_CSUM, "bad_csum", "packet ignored: bad checksum")                               \
	X(SYN_RETRANS, "syn_retrans", "SYN retransmitted")                                    \
	X(SYN_NEW_ISN, "syn_new_isn",                                                         \
	  "SYN with another ISN before the SYN/ACK: the SYN/ACK picks")                       \
	X(SYN_DATA_DROPPED, "syn_data_dropped",                                               \
	  "SYN data the SYN/ACK did not acknowledge: dropped")                                \
	X(SYN_AFTER_SYNACK, "syn_after_synack",                                               \
	  "SYN after a SYN/ACK picked up midstream: handshake redone")                        \
	X(SYNACK_RETRANS, "synack_retrans", "SYN/ACK retransmitted")                          \
	X(SYNACK_BAD_ACK, "synack_bad_ack", "SYN/ACK ignored: does not ACK the SYN")          \
	X(SIM_OPEN, "simultaneous_open", "sessions opened by two SYNs")                       \
	X(INVALID_STATE, "invalid_state", "packet ignored: not valid in the session state")   \
	X(RST, "rst", "valid RST: session closed")                                            \
	X(RST_DATA, "rst_with_data", "valid RST carrying data")                               \
	X(INVALID_RST, "invalid_rst",                                                         \
	  "RST ignored: not at the expected sequence number, or bad ACK")                     \
	X(RST_RESUMED, "rst_resumed",                                                         \
	  "session resumed: the RST's sender kept sending (not its RST)")                     \
	X(FIN, "fin", "FIN seen")                                                             \
	X(INVALID_FIN, "invalid_fin", "FIN ignored: behind the stream or outside the window") \
	X(AFTER_CLOSE, "pkt_after_close", "packet ignored: session closed")                   \
	X(DATA_AFTER_FIN, "data_after_fin", "data beyond the sender's FIN ignored")           \
	X(ACK_UNSEEN, "ack_unseen", "ACK beyond any data seen (capture loss): clamped")       \
	X(OUT_OF_WINDOW, "out_of_window", "segment ignored: beyond the receiver's window")    \
	X(ZERO_WINDOW, "zero_window_data",                                                    \
	  "data ignored: the receiver's window was zero (zero-window probe)")                 \
	X(RETRANS, "retransmissions", "segment fully seen before (same range)")               \
	X(OVERLAP, "overlaps", "segment overlapping buffered data")                           \
	X(OVERLAP_DIFF, "overlap_diff", "overlap with different data (anomaly)")              \
	X(GAPS, "gaps", "holes skipped (ACKed past or at flow end)")                          \
	X(GAP_BYTES, "gap_bytes", "bytes in skipped holes")                                   \
	X(DEPTH_REACHED, "depth_reached", "directions that reached the reassembly depth")     \
	X(DEPTH_SEGS, "depth_segs", "segments cut or ignored beyond the depth")               \
	X(MEMCAP, "memcap", "segments refused (fully or partly): memory cap")                 \
	X(MEMCAP_BYTES, "memcap_bytes", "payload bytes refused: memory cap")                  \
	X(OOO_LIMIT, "ooo_limit", "segments refused: too many out-of-order segments")         \
	X(NOMEM, "nomem", "segments refused: allocation failed")                              \
	X(RECLAIM_OOO, "reclaim_ooo_segs",                                                    \
	  "memory cap: out-of-order segments of another stream dropped")                      \
	X(RECLAIM_OOO_BYTES, "reclaim_ooo_bytes",                                             \
	  "bytes of those segments (gaps if ever ACKed past)")                                \
	X(RECLAIM_EARLY, "reclaim_early_release",                                             \
	  "memory cap: another stream's in-order data released before its ACK")               \
	X(RECLAIM_EARLY_BYTES, "reclaim_early_bytes", "bytes of that data")                   \
	X(MEM_PEAK, "mem_peak",                                                               \
	  "gauge: most pool bytes ever in use (summed over workers: an upper bound)")         \
	X(REUSE, "port_reuse", "SYN on a closed session: caller told to start a new flow")    \
	X(RELEASED_BYTES, "released_bytes", "bytes released to detection")                    \
	X(RELEASED_CHUNKS, "released_chunks", "chunks released to detection")

#define MK_STREAM_STAT_ENUM(id, name, desc) MK_STREAM_STAT_##id,
enum mk_stream_stat { MK_STREAM_STATS(MK_STREAM_STAT_ENUM) MK_STREAM_STAT_MAX };
#undef MK_STREAM_STAT_ENUM

struct mk_stream_stats {
	__u64 c[MK_STREAM_STAT_MAX];
};

struct mk_stream_seg; /* pooled segment, private to stream.c */

/* One direction of a session: data sent by one side. Fields are private. */
struct mk_tcp_stream {
	struct mk_stream_seg *head, *tail; /* buffered, sorted, non-overlapping */
	__u8 *rec;			   /* record mode: everything released */
	__u64 rec_len, rec_cap;
	__u64 base_off;	   /* stream offset of base_seq */
	__u64 pending_gap; /* gap to report with the next chunk */
	__u32 isn;
	__u32 base_seq; /* first byte not released yet */
	__u32 next_seq; /* end of contiguous data from base_seq */
	__u32 max_end;	/* highest seq + len (+ FIN) sent */
	__u32 peer_ack; /* highest ACK the peer sent for this data */
	__u32 fin_seq;	/* sequence number of the FIN */
	__u32 win;	/* receive window this side advertises (scaled) */
	__u32 nsegs;
	__u32 nooo; /* segments after a hole */
	/* the engine's list of streams holding segments, least recently added to first */
	struct mk_tcp_stream *held_prev, *held_next;
	__u8 flags_seen; /* MK_TCP_* cumulative */
	__u8 wscale;
	__u8 st;	/* MK_STREAM_F_* in stream.c */
	__u8 dir;	/* its index in the session's s[] */
	__u8 bypass_st; /* MK_STREAM_BYPASS_* in stream.c: what stream.bypass needs */
	__u8 pad[3];
	__u32 depth_peer_seq; /* the other direction's next_seq when this one's data reached the depth */
	__u32 pad2;
};

#define MK_TCP_ALT_ISN 3 /* earlier client ISNs kept until the SYN/ACK picks one */

/*
 * Embed in the flow-table entry; init before first use (or after free), free
 * when the flow dies: a session holding segments is linked into its engine.
 */
struct mk_tcp_session {
	struct mk_tcp_stream s[2]; /* indexed by role direction */
	__u64 last_ts_ns;
	__u32 alt_isn[MK_TCP_ALT_ISN]; /* SYNs with other ISNs, before the SYN/ACK */
	__u8 nalt_isn;
	__u8 state;   /* enum mk_tcp_state */
	__u8 swapped; /* client is the sender of seg.dir == 1 */
	__u8 midstream;
	__u8 flags;	    /* MK_SSN_F_* in stream.c */
	__u8 rst_from;	    /* role direction + 1 of the RST that closed the session; 0: none */
	__u8 pre_rst_state; /* the state that RST ended, to resume if it was not real */
	__u8 pad;
};

struct mk_stream_engine;

void mk_stream_cfg_default(struct mk_stream_cfg *cfg);
/* "first" or "last" to enum mk_overlap_policy, or -EINVAL. */
int mk_stream_overlap_policy_parse(const char *name);
/* The `stream:` keys (config/cfg_keys.h). */
struct mk_cfg_table;
extern const struct mk_cfg_table mk_stream_cfg_table;
/* Returns NULL (errno set) on bad config or no memory. */
struct mk_stream_engine *mk_stream_engine_new(const struct mk_stream_cfg *cfg);
/* Sessions must be freed first; their segments belong to the pool. */
void mk_stream_engine_free(struct mk_stream_engine *eng);
void mk_stream_set_callbacks(struct mk_stream_engine *eng, const struct mk_stream_cbs *cbs,
			     void *user);
const struct mk_stream_stats *mk_stream_engine_stats(const struct mk_stream_engine *eng);
/* Pool bytes currently holding buffered segments (what memcap limits). */
__u64 mk_stream_mem_used(const struct mk_stream_engine *eng);

void mk_tcp_session_init(struct mk_tcp_session *ssn);
/* Frees buffered segments and records without releasing them. */
void mk_tcp_session_free(struct mk_stream_engine *eng, struct mk_tcp_session *ssn);
/* free + init: the struct is ready for a new session. */
void mk_tcp_session_reset(struct mk_stream_engine *eng, struct mk_tcp_session *ssn);

/*
 * Fills @seg from a TCP header at @tcp, @len bytes up to the end of the IP
 * payload (not the frame: Ethernet padding is no data): seq, ack, flags,
 * window, window scale option, payload. dir and csum_ok are the caller's.
 * Returns 0, or -EINVAL when the header is truncated or its offset is bad.
 */
int mk_tcp_seg_parse(struct mk_tcp_seg *seg, const __u8 *tcp, __u32 len);

/* 0, MK_STREAM_REUSE, or -EINVAL; ignored packets return 0 and are counted. */
int mk_stream_packet(struct mk_stream_engine *eng, struct mk_tcp_session *ssn,
		     const struct mk_tcp_seg *seg, __u64 ts_ns);
/* Releases everything still buffered, both directions, holes counted as gaps. */
void mk_stream_flow_end(struct mk_stream_engine *eng, struct mk_tcp_session *ssn);

const char *mk_tcp_state_name(int state); /* "established", ... as Suricata's EVE */
int mk_tcp_session_state(const struct mk_tcp_session *ssn);
/* Is @state one where the session is over for the flow (last_ack, time_wait, closed)? */
int mk_tcp_state_closing(int state);
/*
 * The states in which Suricata's stream engine calls its flow established
 * (established up to the first FIN's answer): a session picked up midstream
 * is, from its first packet on.
 */
int mk_tcp_state_established(int state);
int mk_tcp_session_swapped(const struct mk_tcp_session *ssn);
/*
 * Cumulative MK_TCP_* flags of every packet sent in role direction @dir
 * (EVE tcp_flags_ts / tcp_flags_tc); @dir < 0 gives both (EVE tcp_flags).
 */
__u8 mk_tcp_session_flags(const struct mk_tcp_session *ssn, int dir);
/* Formats flags as EVE does: two lowercase hex digits. */
void mk_tcp_flags_hex(__u8 flags, char buf[3]);
int mk_tcp_session_depth_reached(const struct mk_tcp_session *ssn, int dir);
/*
 * Is the session done for inspection (stream.bypass)? The contiguous data of
 * both directions reached the reassembly depth, or that of one did and it
 * has sent data beyond it since while the other direction carried no new
 * payload: a download or an upload that outgrew the depth, whose other side
 * only acknowledges. Contiguous: a segment claiming an offset past the depth
 * out of order does not count (no skipping ahead into bypass).
 */
int mk_tcp_session_bypass_ready(const struct mk_tcp_session *ssn);
/*
 * Stream offset (as struct mk_stream_chunk.offset) of sequence number @seq in
 * role direction @dir, once the session has started: detection uses it to
 * recognise a retransmitted segment's bytes.
 */
__u64 mk_tcp_session_seq_offset(const struct mk_tcp_session *ssn, int dir, __u32 seq);
/* Sequence space used in role direction @dir so far, the SYN included (rule keyword stream_size). */
__u32 mk_tcp_session_stream_size(const struct mk_tcp_session *ssn, int dir);
/*
 * Record mode: all data released so far in @dir, concatenated (gaps left
 * out); NULL before anything was released. Valid until the next call that
 * releases data or frees the session.
 */
const __u8 *mk_tcp_session_data(const struct mk_tcp_session *ssn, int dir, __u64 *len);

const char *mk_stream_stat_name(int id);
const char *mk_stream_stat_desc(int id);
void mk_stream_stats_foreach(const struct mk_stream_engine *eng,
			     void (*fn)(const char *name, __u64 value, void *arg), void *arg);
/* Adds @src into @dst: totals across workers. */
void mk_stream_stats_add(struct mk_stream_stats *dst, const struct mk_stream_stats *src);
void mk_stream_stats_print(const struct mk_stream_engine *eng, FILE *out);

#endif /* MK_STREAM_H */
