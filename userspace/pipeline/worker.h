/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-worker pipeline, whatever the source: checksum policy -> defrag
 * (a datagram goes to the worker owning its 5-tuple) -> flow table -> TCP
 * stream engine -> flow end -> EVE records. Offline mode feeds it frames the
 * reader parsed with common/parse.h; live mode feeds it frames an AF_XDP
 * socket received, with the parse rebuilt from the program's struct mk_meta.
 * Either way the worker trusts the parse and never parses the frame again.
 *
 * Detection (detect/detect.h), when the run mode gives a rule engine, runs on
 * every packet after the stream engine and on every chunk the stream engine
 * releases; alerts become EVE records through ops.alert.
 *
 * Nothing here knows about threads, queues, files or sockets: the run mode
 * that owns the workers gives each one two callbacks (struct mk_worker_ops):
 * where a reassembled datagram owned by another worker goes, and where a
 * finished EVE record goes. Time is the packets' time; the run mode calls
 * mk_worker_tick() when it advances and mk_worker_finish() at the end.
 */
#ifndef MK_WORKER_H
#define MK_WORKER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "bypass_cfg.h"
#include "applayer.h"
#include "defrag.h"
#include "detect.h"
#include "eve.h"
#include "flow.h"
#include "output_cfg.h"
#include "parse.h"
#include "stream.h"

/*
 * What happened to each frame a worker received, plus what was noticed on the
 * way. A received frame ends in exactly one of flow_pkt, frag_held,
 * frag_dropped, no_flow or decode_error; a reassembled datagram in exactly
 * one of dgram_flow, dgram_no_flow, dgram_bad or dgram_handoff_drop (or it
 * is handed off and ends at its owner as a dgram_flow, dgram_no_flow or
 * dgram_bad there). An ICMP error counts where its quoted flow took it
 * (flow_pkt, dgram_flow), and once more as icmp_error_quoted or
 * icmp_error_own_flow.
 */
#define MK_WORKER_COUNTERS(X)                                                                      \
	X(RX, "worker_rx", "frames a worker took from its queue or socket")                        \
	X(FLOW_PKT, "flow_pkt", "frames accounted to a flow")                                      \
	X(FRAG_HELD, "frag_held", "IP fragments taken by the defragmenter")                        \
	X(FRAG_DROPPED, "frag_dropped",                                                            \
	  "IP fragments the defragmenter refused (see its counters)")                              \
	X(NO_FLOW, "no_flow", "frames dropped: flow table full and nothing evictable")             \
	X(DECODE_ERROR, "decode_error", "frames the decoder rejected, not tracked (see decode_*)") \
	X(DECODE_IP_LEN, "decode_ip_len",                                                          \
	  "IP length beyond the frame on the wire (or IPv6 extension headers beyond it)")          \
	X(DECODE_UDP_LEN, "decode_udp_len", "UDP length beyond the IP payload, or below 8")        \
	X(DECODE_TCP_HLEN, "decode_tcp_hlen", "TCP header longer than the segment")                \
	X(DECODE_L4_SHORT, "decode_l4_short",                                                      \
	  "IP payload shorter than its TCP, UDP, SCTP or ICMP header")                             \
	X(ICMP_ERR_QUOTED, "icmp_error_quoted", "ICMP errors accounted to the flow they quote")    \
	X(ICMP_ERR_OWN, "icmp_error_own_flow",                                                     \
	  "ICMP errors whose quoted flow is not tracked here: a flow of their own")                \
	X(DGRAM, "dgram_reassembled", "datagrams the defragmenter completed")                      \
	X(DGRAM_FLOW, "dgram_flow", "reassembled datagrams accounted to a flow")                   \
	X(DGRAM_NO_FLOW, "dgram_no_flow", "reassembled datagrams dropped: flow table full")        \
	X(DGRAM_BAD, "dgram_bad", "reassembled datagrams the parser or the decoder rejected")      \
	X(DGRAM_HANDOFF, "dgram_handoff",                                                          \
	  "reassembled datagrams sent to the worker owning their 5-tuple")                         \
	X(DGRAM_HANDOFF_DROP, "dgram_handoff_drop",                                                \
	  "reassembled datagrams dropped: peer's ring full")                                       \
	X(CSUM_BAD_IPV4, "csum_bad_ipv4", "IPv4 header checksum wrong (frame still tracked)")      \
	X(CSUM_BAD_TCP, "csum_bad_tcp", "TCP checksum wrong: not reassembled")                     \
	X(CSUM_BAD_UDP, "csum_bad_udp", "UDP checksum wrong (frame still tracked)")                \
	X(CSUM_BAD_ICMP, "csum_bad_icmp", "ICMP checksum wrong (frame still tracked)")             \
	X(TCP_MALFORMED, "tcp_malformed", "TCP header the stream engine could not read")           \
	X(TCP_REUSE, "tcp_port_reuse",                                                             \
	  "stream engine saw a new session on a closed one: new flow")                             \
	X(EVE_LOST, "eve_lost", "EVE records that could not be formatted or stored")               \
	X(FLOW_UNREPLIED, "flow_unreplied", "flows ended with packets one way only (no reply)")    \
	X(FLOW_UNREPLIED_COMPACT, "flow_unreplied_compact",                                        \
	  "their flow records logged compactly (outputs.eve-log.types.flow.unreplied)")            \
	X(FLOW_UNREPLIED_UNLOGGED, "flow_unreplied_unlogged",                                      \
	  "their flow records not logged (outputs.eve-log.types.flow.unreplied: none)")            \
	X(BYPASS_DEPTH, "bypass_depth",                                                            \
	  "flows bypassed: reassembly depth reached (stream.bypass)")                              \
	X(BYPASS_SIZE, "bypass_size", "flows bypassed: flow.bypass-bytes or flow.bypass-packets")  \
	X(BYPASS_RULE, "bypass_rule", "flows bypassed: a rule with bypass matched")                \
	X(BYPASS_PASS, "bypass_pass", "flows bypassed: a pass rule matched (detect.pass-bypass)")  \
	X(BYPASS_ENCRYPTED, "bypass_encrypted",                                                    \
	  "flows bypassed: TLS encrypted (app-layer.protocols.tls.encryption-handling: bypass)")   \
	X(BYPASS_CAPTURE, "bypass_capture", "bypassed flows handed to the bypass manager")         \
	X(BYPASS_LOCAL, "bypass_local", "bypassed flows skipped here only (no driver bypass)")     \
	X(BYPASS_QUEUE_FULL, "bypass_queue_full",                                                  \
	  "capture bypass requests refused: the manager's queue was full (local bypass)")          \
	X(BYPASS_FALLBACK, "bypass_fallback",                                                      \
	  "capture bypasses the manager could not insert: local bypass instead")                   \
	X(BYPASS_SKIPPED, "bypass_skipped",                                                        \
	  "packets of bypassed flows accounted and skipped before stream and detect")              \
	X(BYPASS_DGRAM, "bypass_dgram",                                                            \
	  "reassembled datagrams of bypassed flows dropped uninspected (their fragments count in " \
	  "frag_held)")                                                                            \
	X(BYPASS_EXPIRED, "bypass_expired",                                                        \
	  "capture-bypassed flows ended: their driver entry expired")                              \
	X(BYPASS_EVICTED, "bypass_evicted",                                                        \
	  "capture-bypassed flows ended: their driver entry was evicted (counts incomplete)")      \
	X(BYPASS_DELETED, "bypass_deleted",                                                        \
	  "capture-bypassed flows ended: entry deleted by command")                                \
	X(IPS_BLOCKED, "ips_blocked", "inline: flows a drop or reject rule blocked")               \
	X(IPS_BLOCKED_PKT, "ips_blocked_pkt",                                                      \
	  "inline: frames of blocked flows dropped here (before the driver's entry took over)")    \
	X(PACKET_RECORDS, "packet_records",                                                        \
	  "EVE packet records of tagged packets (outputs.eve-log.types.alert.tagged-packets)")

#define MK_WORKER_CNT_ENUM(name, str, doc) MK_WORKER_##name,
enum mk_worker_counter { MK_WORKER_COUNTERS(MK_WORKER_CNT_ENUM) MK_WORKER_CNT_MAX };
#undef MK_WORKER_CNT_ENUM

extern const char *const mk_worker_counter_names[MK_WORKER_CNT_MAX];

/*
 * Inline (IPS) mode: what becomes of the frame mk_worker_packet() just took,
 * in struct mk_worker.verdict. The run mode transmits FORWARD frames on the
 * peer interface and applies ips.unparsable to UNPARSABLE and NO_FLOW ones.
 */
enum mk_worker_verdict {
	MK_VERDICT_FORWARD = 0,
	MK_VERDICT_DROP,       /* a drop rule matched this frame or, earlier, its flow */
	MK_VERDICT_REJECT,     /* as DROP, and the session is reset (RST, ICMP unreachable) */
	MK_VERDICT_UNPARSABLE, /* the decoder refused the frame */
	MK_VERDICT_NO_FLOW,    /* no flow state: the flow table was full */
};

/* One frame (or reassembled datagram) as the pipeline takes it. */
struct mk_pkt {
	const struct mk_parse *parse; /* the inner level: key, hash, l3, tunnel, VLANs */
	const uint8_t *ip;	      /* the inner IP header; parse offsets are relative
					 to parse->l3.l3_off bytes before it */
	uint32_t ip_caplen;	      /* bytes captured from ip on */
	uint32_t ip_wirelen;	      /* bytes on the wire from ip on; 0: ip_caplen (nothing
					 was cut by a snap length, as in live mode) */
	uint64_t ts_us;
};

struct mk_worker;

struct mk_worker_ops {
	/*
	 * A reassembled datagram whose 5-tuple worker @to owns: copy what is
	 * needed and return 0, or return -errno when it cannot be taken (counted
	 * as dgram_handoff_drop). NULL: a single worker, never called.
	 */
	int (*handoff)(void *ctx, unsigned int to, const struct mk_pkt *pkt);
	/*
	 * A finished EVE record (one line, no newline) about flow @f, logged at
	 * packet time @ts_us (its `timestamp`). 0 or -errno.
	 */
	int (*record)(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
		      size_t len);
	/*
	 * An EVE alert record about flow @f, raised at @ts_us. @key is not NULL
	 * when the alert's rule has a stateful filter (threshold,
	 * detection_filter, rate_filter): the run mode passes it to
	 * mk_detect_thresh_filter() where it puts records in output order, and
	 * drops the record when told. NULL: alerts go to record() unfiltered.
	 */
	int (*alert)(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
		     size_t len, const struct mk_detect_thresh_key *key);
	/*
	 * Capture bypass of flow @f (its key and flow_id): queue a request to
	 * the bypass manager and return 0, or -errno when it cannot be queued
	 * (the flow is then bypassed locally). Never a syscall on this path.
	 * NULL (offline, no driver): every bypass is local.
	 */
	int (*bypass)(void *ctx, const struct mk_flow *f);
	/*
	 * Alert @a, right after alert() took it (0): the router advisor's
	 * selection and queue (advise/announcer.h). Never a syscall.
	 * NULL: no advice (offline).
	 */
	void (*advise)(void *ctx, const struct mk_detect_alert *a);
	/*
	 * Inline: flow @f is blocked (a drop verdict, @on 1): have the driver
	 * drop its frames from now on; @on 0: the blocked flow ended here, the
	 * driver forgets it. Never a syscall on this path. NULL: the worker
	 * drops them itself (counted as ips_blocked_pkt).
	 */
	int (*block)(void *ctx, const struct mk_flow *f, int on);
};

/* What the bypass manager tells the worker that owns a capture-bypassed flow. */
enum mk_worker_bypass_news {
	MK_BYPASS_NEWS_FAILED = 0, /* not inserted: bypass the flow locally */
	MK_BYPASS_NEWS_EXPIRED,	   /* entry idle past its timeout and deleted: end the flow */
	MK_BYPASS_NEWS_EVICTED,	   /* entry gone from the LRU map: end the flow */
	MK_BYPASS_NEWS_DELETED,	   /* entry deleted by command: end the flow */
	MK_BYPASS_NEWS_FINAL,	   /* shutdown: the driver's counts so far; the flow stays */
};

struct mk_worker_bypass_msg {
	struct mk_flow_key key;
	uint64_t flow_id;
	uint64_t pkts[2], bytes[2]; /* the driver's, [0] key lo -> hi, [1] hi -> lo */
	uint64_t last_us;	    /* the driver's last packet, wall clock; 0: none */
	uint8_t news;		    /* enum mk_worker_bypass_news */
	uint8_t pad[7];
};

struct mk_worker_cfg {
	unsigned int id; /* this worker, < nworkers */
	unsigned int nworkers;
	const uint8_t *itable;	  /* MK_ITABLE_SIZE buckets -> worker, as the program's */
	uint32_t seed;		  /* the hash seed the frames were parsed with */
	int checksum;		  /* validate IPv4/TCP/UDP/ICMP checksums */
	int log_flows;		  /* format an EVE flow record when a flow ends */
	int log_alerts;		  /* format EVE alert records (the flow is marked alerted anyway) */
	int log_http;		  /* format EVE http records (outputs.eve-log.types: http) */
	int log_dns;		  /* format EVE dns records (outputs.eve-log.types: dns) */
	int log_tls;		  /* format EVE tls records (outputs.eve-log.types: tls) */
	int log_files;		  /* format EVE fileinfo records (types: files) */
	uint32_t log_app_types;	  /* MK_EVE_TYPE_SSH, _SMTP, _FTP: those records are formatted */
	const char *dump_streams; /* debug: reassembled streams per flow into this dir */
	struct mk_eve_fmt eve;	  /* optional EVE fields: community_id, in_iface */
	/* the stages' settings, from the configuration (config/config.h) */
	const struct mk_parse_cfg *parse;
	const struct mk_flow_cfg *flow;
	const struct mk_stream_cfg *stream;
	const struct mk_defrag_config *defrag;
	int unreplied; /* enum mk_eve_unreplied: outputs.eve-log.types.flow.unreplied */
	struct mk_detect_master *detect;    /* rules; NULL: no detection */
	const struct mk_bypass_cfg *bypass; /* bypass triggers; NULL: the defaults */
	const struct mk_app_cfg *app;	    /* app-layer: settings; NULL: the defaults */
	/*
	 * Alert records: payload options from outputs.eve-log.types.alert;
	 * in_iface and community_id are taken from @eve by mk_worker_init().
	 */
	struct mk_eve_alert_opts alert_opts;
};

struct mk_worker {
	struct mk_worker_cfg cfg;
	struct mk_bypass_cfg bcfg; /* cfg.bypass or the defaults */
	struct mk_parse_cfg pcfg;  /* to parse reassembled datagrams as the reader did */
	struct mk_flow_table flows;
	struct mk_stream_engine *stream;
	struct mk_defrag *defrag;
	const struct mk_worker_ops *ops;
	void *ops_ctx;
	struct mk_detect_thread *detect; /* NULL without rules */
	struct mk_app_thread *app;	 /* the application layer */
	struct mk_flow *detect_flow;	 /* the flow of the packet or flow end being inspected */
	char *alert_line;
	size_t alert_cap;
	uint64_t cnt[MK_WORKER_CNT_MAX];
	uint64_t flows_logged;
	int unreplied;	     /* enum mk_eve_unreplied, from outputs.eve-log.types.flow.unreplied */
	int err;	     /* first error of a callback or of --dump-streams */
	uint8_t verdict;     /* enum mk_worker_verdict of the last frame (inline mode) */
	uint8_t reject_dirs; /* MK_VERDICT_REJECT: 1 reset the frame's source, 2 its destination */
};

/* Everything the workers counted, summed. */
struct mk_worker_stats {
	uint64_t cnt[MK_WORKER_CNT_MAX];
	uint64_t flow_cnt[MK_FLOW_CNT_MAX];
	uint64_t flow_chain_max; /* deepest bucket chain of any worker's table */
	uint64_t flows_logged;
	struct mk_stream_stats stream;
	struct mk_defrag_stats defrag;
	uint64_t detect[MK_DETECT_CNT_MAX];
	uint64_t app[MK_APP_CNT_MAX];
};

/* 0 or -errno (logged, naming the worker). mk_worker_free() undoes a failed init too. */
int mk_worker_init(struct mk_worker *w, const struct mk_worker_cfg *cfg,
		   const struct mk_worker_ops *ops, void *ops_ctx);
void mk_worker_free(struct mk_worker *w);

/*
 * Settings a configuration reload changes in a running worker (the "live"
 * keys of config/config_diff.h that the pipeline reads). The run mode calls
 * mk_worker_reconfigure() on the worker's thread, between packets.
 */
struct mk_worker_reload {
	const struct mk_flow_cfg *flow;	    /* timeouts, emergency-recovery */
	const struct mk_bypass_cfg *bypass; /* bypass triggers */
	int log_flows, log_alerts, log_http, log_dns, log_tls, log_files;
	uint32_t log_app_types;		/* MK_EVE_TYPE_SSH, _SMTP, _FTP */
	int unreplied;			/* enum mk_eve_unreplied */
	int payload, payload_printable; /* outputs.eve-log.types.alert */
	int tagged_packets;		/* ... tagged-packets */
};

void mk_worker_reconfigure(struct mk_worker *w, const struct mk_worker_reload *r);

/* A frame from the source. */
void mk_worker_packet(struct mk_worker *w, const struct mk_pkt *pkt);
/* A reassembled datagram another worker handed over (see ops.handoff). */
void mk_worker_datagram(struct mk_worker *w, const struct mk_pkt *pkt);
/* News from the bypass manager about one of this worker's flows (ignored if the flow is gone). */
void mk_worker_bypass_news(struct mk_worker *w, const struct mk_worker_bypass_msg *m);
/* Packet time advanced to @now_us: end timed-out flows, expire fragments. */
void mk_worker_tick(struct mk_worker *w, uint64_t now_us);
/*
 * Packet time is @now_us (the source's last), without ending anything: the
 * time mk_worker_finish() logs its records at, the same for every worker.
 */
void mk_worker_advance(struct mk_worker *w, uint64_t now_us);
/* The source is done: end every flow (reason shutdown). */
void mk_worker_finish(struct mk_worker *w);

/*
 * The hash that decides which worker a packet belongs to: the parse's,
 * except for an ICMP error, which belongs with the flow it quotes
 * (icmp_error.h). A source that steers packets to workers itself (offline's
 * reader) uses this.
 */
uint32_t mk_worker_steer_hash(const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen,
			      uint32_t seed);

void mk_worker_stats_add(struct mk_worker_stats *sum, const struct mk_worker *w);
/* The accounting equations above; 1 when they hold. */
int mk_worker_stats_balanced(const struct mk_worker_stats *st);
/* Every counter as "  name value" lines. */
void mk_worker_stats_print(FILE *out, const struct mk_worker_stats *st);
/* Every counter by name (workers, flows, stream, defrag), for stats outputs. */
void mk_worker_stats_foreach(const struct mk_worker_stats *st,
			     void (*fn)(const char *group, const char *name, uint64_t value,
					void *arg),
			     void *arg);

#endif /* MK_WORKER_H */
