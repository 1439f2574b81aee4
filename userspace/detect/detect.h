/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Signature detection: the Suricata rule language (packet and stream subset,
 * docs/rules.md), Hyperscan prefilter, PCRE2, alerts.
 *
 * Objects and who owns them:
 *  - struct mk_detect_cfg: plain settings filled by whoever reads the
 *    configuration (variables, rule files, config file paths). Strings are
 *    the filler's; the engine copies what it keeps.
 *  - struct mk_detect_engine: built from a cfg, immutable afterwards, shared
 *    read-only by every worker, reference counted.
 *  - struct mk_detect_master: holds the current engine; reload builds a new
 *    one on a background thread and swaps it in; a failed build keeps the
 *    old engine and says why. Each swap bumps the generation.
 *  - struct mk_detect_thread: one per worker: scratch space, the engine it
 *    currently uses (it adopts a new one only between packets), the alerts
 *    of the packet in progress, counters.
 *  - per-flow state hangs off struct mk_flow (field `detect`); the worker
 *    releases it with mk_detect_flow_free() when the flow ends.
 *
 * Per packet, on the worker, after defragmentation and flow lookup:
 *
 *	mk_detect_begin(t, &pkt);      packet context; adopts a reloaded engine
 *	mk_detect_packet(t);           packet rules
 *	... feed TCP to the stream engine; its data callback calls
 *	mk_detect_stream_app(t, flow, chunk);  before the application layer
 *	    sees the chunk: the HTTP rules with payload keywords read it
 *	mk_detect_stream(t, flow, chunk);
 *	n = mk_detect_end(t, &alerts); this packet's alerts, in output order
 *
 * Stream data released outside of a packet (flow timeout, end of capture)
 * is inspected the same way with pkt.parse == NULL and pkt.ts_us the time
 * the pipeline assigns to the flow end.
 *
 * Nothing here orders records or reads the wall clock: stateful alert
 * filters (threshold, detection_filter, rate_filter) run where alerts are
 * merged in output order (mk_detect_thresh_filter()), so offline output does
 * not depend on the number of workers.
 */
#ifndef MK_DETECT_H
#define MK_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "flow.h"
#include "parse.h"
#include "stream.h"

/* One `vars:` entry: name without '$' -> value ("[10.0.0.0/8,!10.1.0.0/16]", "80", ...). */
struct mk_detect_var {
	const char *name;
	const char *value;
};

struct mk_detect_cfg {
	const struct mk_detect_var *address_vars; /* vars.address-groups */
	unsigned int naddress_vars;
	const struct mk_detect_var *port_vars; /* vars.port-groups */
	unsigned int nport_vars;
	/*
	 * Rule files: a name without '/' is taken relative to default_rule_path
	 * (as Suricata's rule-files with default-rule-path). `-S FILE` replaces
	 * the configuration's list (as Suricata's -S), which is the caller's call.
	 */
	const char *const *rule_files;
	unsigned int nrule_files;
	const char *default_rule_path;
	const char *classification_file;   /* NULL: no classtypes (classtype then fails) */
	const char *reference_config_file; /* NULL: no reference types (any type accepted) */
	const char *threshold_file;	   /* NULL: none */
	/* Rules given as text, after the files (tests, fuzzing); name used in errors. */
	const char *rules_text;
	const char *rules_text_name;
	int strict;		/* --strict-rules: any rule that fails fails the build */
	int inline_mode;	/* IPS: drop/reject drop; otherwise they alert */
	uint32_t stream_window; /* stream bytes kept for matches across chunks; 0: 1024 */
	/*
	 * Stream bytes a window may keep while a rule's anchor is in it, so its
	 * later parts may come that much later; 0: 16384 (docs/rules.md).
	 */
	uint32_t stream_reach;
	/* a worker's buffers for such longer windows, in bytes; 0: 64 MiB */
	uint64_t stream_reach_budget;
	uint32_t port_groups; /* dedicated prefilter port groups per protocol/direction; 0: 16 */
	const char *prefilter_cache; /* compiled prefilter databases kept here; NULL or "": none */
	int no_prefilter;	     /* evaluate every rule (tests; the results must not change) */
};

/*
 * Suricata's default variables (HOME_NET, EXTERNAL_NET, HTTP_PORTS, ...) and
 * nothing else; whoever reads the configuration replaces what it defines.
 */
void mk_detect_cfg_defaults(struct mk_detect_cfg *c);

/* Why rules were rejected: one counter each in the load summary. */
#define MK_DETECT_FAIL_REASONS(X)                                                         \
	X(SYNTAX, "syntax", "malformed rule text")                                        \
	X(KEYWORD, "unsupported_keyword", "keyword not supported (app-layer and others)") \
	X(PROTOCOL, "unsupported_protocol", "rule protocol not supported")                \
	X(VALUE, "bad_value", "keyword value invalid")                                    \
	X(ADDRESS, "bad_address", "address or port invalid, or variable undefined")       \
	X(CLASSTYPE, "unknown_classtype", "classtype not in classification.config")       \
	X(REFERENCE, "unknown_reference", "reference type not in reference.config")       \
	X(DUPLICATE, "duplicate_sid", "gid:sid already loaded (the first one is kept)")   \
	X(PCRE, "pcre", "regular expression does not compile")

#define MK_DETECT_FAIL_ENUM(id, name, doc) MK_DETECT_FAIL_##id,
enum mk_detect_fail { MK_DETECT_FAIL_REASONS(MK_DETECT_FAIL_ENUM) MK_DETECT_FAIL_MAX };
#undef MK_DETECT_FAIL_ENUM

extern const char *const mk_detect_fail_names[MK_DETECT_FAIL_MAX];

/* What a build loaded; also shown by the stats and -T. */
struct mk_detect_load_stats {
	uint32_t files;	 /* rule files read */
	uint32_t loaded; /* rules in the engine */
	uint32_t failed; /* rules rejected */
	uint32_t fail[MK_DETECT_FAIL_MAX];
	uint32_t no_fast_pattern;  /* payload rules checked without the prefilter */
	uint32_t no_payload;	   /* header-only rules (checked without the prefilter) */
	uint32_t ip_only;	   /* address-only rules: first packet of each flow direction */
	uint32_t stream;	   /* rules inspecting reassembled TCP streams */
	uint32_t pcre;		   /* rules with pcre */
	uint32_t app_tx;	   /* rules inspected on application transactions */
	uint32_t app_tx_proto[16]; /* of them, by protocol (enum mk_app_proto) */
	uint32_t prefilter_dbs;	   /* Hyperscan databases */
	uint32_t patterns;	   /* distinct prefilter patterns, summed over databases */
	uint32_t config_errors;	   /* classification/reference/threshold lines rejected */
	uint64_t prefilter_bytes;
	uint32_t prefilter_cached; /* databases read from the prefilter cache */
	double load_s;		   /* wall-clock seconds to parse and build */
	uint64_t generation;	   /* 1 for the first engine, +1 per successful reload */
};

/* ---- engine --------------------------------------------------------------- */

struct mk_detect_engine;

/*
 * Builds an engine. @prev (may be NULL) is the engine being replaced: flow
 * variable ids are kept so live flows keep their flowbits across a reload.
 * Rule errors are logged (one line each) and counted; the build fails with
 * -EINVAL when a configuration file cannot be read, when cfg->strict and a
 * rule failed, or -ENOMEM. An engine with zero rules is valid.
 */
int mk_detect_engine_build(const struct mk_detect_cfg *cfg, const struct mk_detect_engine *prev,
			   struct mk_detect_engine **out);
struct mk_detect_engine *mk_detect_engine_get(struct mk_detect_engine *e);
void mk_detect_engine_put(struct mk_detect_engine *e);
const struct mk_detect_load_stats *mk_detect_engine_stats(const struct mk_detect_engine *e);
/* One-line summary: "N rules loaded, M failed (syntax 1, ...), ..." */
void mk_detect_engine_summary(const struct mk_detect_engine *e, char *buf, size_t size);
/*
 * The refused rules grouped by reason (the keyword or protocol and why,
 * without sids or values), most frequent first: @line gets "N refused: WHY"
 * for at most @max reasons, then "N refused for M more reasons", then "N
 * loaded but cannot fire: ..." (rules checking a flowbit no rule sets).
 * Returns the number of lines.
 */
unsigned int mk_detect_engine_refusals(const struct mk_detect_engine *e, unsigned int max,
				       void (*line)(const char *text, void *arg), void *arg);
/* How many reason lines meerkat -T and the load log print at most. */
#define MK_DETECT_REFUSAL_LINES 20
/* The rule with @gid:@sid, or NULL (tests, tools). */
const struct mk_rule *mk_detect_engine_rule(const struct mk_detect_engine *e, uint32_t gid,
					    uint32_t sid);
uint32_t mk_detect_engine_nrules(const struct mk_detect_engine *e);

/* ---- master: current engine and reload ------------------------------------ */

struct mk_detect_master;

/* Builds the first engine synchronously. 0 or -errno (then *out is NULL). */
int mk_detect_master_new(const struct mk_detect_cfg *cfg, struct mk_detect_master **out);
/* Waits for a reload in progress, then frees; workers must be gone. */
void mk_detect_master_free(struct mk_detect_master *m);
/*
 * Starts building a new engine from @cfg (deep-copied) on a background
 * thread; on success it becomes current, on failure the old one stays.
 * -EBUSY while a reload is running. Returns at once.
 */
int mk_detect_reload(struct mk_detect_master *m, const struct mk_detect_cfg *cfg);
/* Waits for the reload in progress (if any); returns its result (0 or -errno). */
int mk_detect_reload_wait(struct mk_detect_master *m);

struct mk_detect_status {
	uint64_t generation;
	uint32_t reloads_ok, reloads_failed;
	int reloading;
	int last_reload_err;		  /* 0 or -errno of the last finished reload */
	char last_reload_msg[512];	  /* why it failed, or its summary */
	struct mk_detect_load_stats load; /* of the current engine */
};

void mk_detect_master_status(struct mk_detect_master *m, struct mk_detect_status *st);
/* A reference to the current engine; release with mk_detect_engine_put(). */
struct mk_detect_engine *mk_detect_master_engine(struct mk_detect_master *m);
/*
 * A replaced engine is kept by the master until every worker has adopted
 * its successor, then freed by this call (the daemon's main thread calls it
 * now and then), so that no worker frees an engine on its packet path.
 * Returns how many replaced engines still wait for a worker.
 */
unsigned int mk_detect_master_reap(struct mk_detect_master *m);

/* ---- per-worker runtime --------------------------------------------------- */

/* Worker counters: X(id, name, doc). */
#define MK_DETECT_COUNTERS(X)                                                                      \
	X(PACKETS, "packets", "packets inspected")                                                 \
	X(CHUNKS, "stream_chunks", "reassembled stream chunks inspected")                          \
	X(STREAM_BYTES, "stream_bytes", "reassembled stream bytes inspected")                      \
	X(PREFILTER_SCANS, "prefilter_scans", "prefilter (Hyperscan) scans")                       \
	X(CANDIDATES, "candidates", "rules verified after the prefilter")                          \
	X(MATCHES, "matches", "rule matches (before noalert, suppress)")                           \
	X(ALERTS, "alerts", "alerts raised")                                                       \
	X(SUPPRESSED, "suppressed", "alerts removed by suppress")                                  \
	X(ALERTS_DROPPED, "alert_overflow", "alerts lost: too many in one packet")                 \
	X(PASSED, "pass", "packets a pass rule stopped")                                           \
	X(DROPS, "drop", "packets a drop/reject rule dropped (inline only)")                       \
	X(PCRE_LIMIT, "pcre_limit", "pcre matches stopped by the match limit")                     \
	X(RELOADS, "engine_swaps", "times this worker adopted a new engine")                       \
	X(STREAM_RESET, "stream_gap", "stream windows restarted after a gap")                      \
	X(ARMED_DROPPED, "armed_overflow", "rules disarmed early: too many anchors in one window") \
	X(REACH_LIMITED, "reach_limited",                                                          \
	  "windows kept plain for an armed rule: worker budget full")                              \
	X(XFORM_BUILT, "xform_buffers",                                                            \
	  "transformed buffers built (once per transaction inspection)")                           \
	X(XBITS_FULL, "xbits_full", "xbits not set: the host table (65,536 slots) was full there") \
	X(TAGGED, "tagged_packets", "packets an earlier match's tag keyword covered")              \
	X(TAG_HOSTS_FULL, "tag_hosts_full",                                                        \
	  "host tags not set: the worker's tag host table (4,096 slots) was full there")           \
	X(ENCRYPTED_SKIPPED, "encrypted_skipped",                                                  \
	  "packets and stream chunks of encrypted sessions whose payload was not inspected "       \
	  "(app-layer.protocols.tls.encryption-handling: default)")

#define MK_DETECT_CNT_ENUM(id, name, doc) MK_DETECT_CNT_##id,
enum mk_detect_counter { MK_DETECT_COUNTERS(MK_DETECT_CNT_ENUM) MK_DETECT_CNT_MAX };
#undef MK_DETECT_CNT_ENUM

extern const char *const mk_detect_counter_names[MK_DETECT_CNT_MAX];

struct mk_detect_thread;

/* What the pipeline knows about the packet being handled. */
struct mk_detect_pkt {
	const struct mk_parse *parse; /* inner parse; NULL: no packet (flow end) */
	const uint8_t *ip;	      /* inner IP header (after defragmentation) */
	uint32_t ip_caplen;	      /* captured bytes from @ip on */
	uint64_t ts_us;
	struct mk_flow *flow; /* after mk_flow_handle(); NULL: not tracked */
	int to_client;	      /* as mk_flow_handle() said */
	/*
	 * The flow was established before this packet by its TCP session
	 * (mk_tcp_state_established): with both directions seen, what
	 * flow:established asks, as Suricata's flow state.
	 */
	int flow_established;
};

enum mk_detect_action {
	MK_ACTION_ALERT = 0,
	MK_ACTION_PASS,
	MK_ACTION_DROP,
	MK_ACTION_REJECT,
	MK_ACTION_MAX
};

/* An alert, valid until the next mk_detect_begin() of the same thread. */
struct mk_detect_alert {
	const struct mk_rule *rule;
	uint64_t ts_us;
	uint64_t flow_id;
	uint64_t flow_start_us;
	uint64_t pkts[2], bytes[2]; /* the flow's, when the alert was raised */
	uint32_t flow_seq;	    /* per-flow alert number: a stable tie-break */
	uint32_t src[4], dst[4];    /* network order, IPv4 in [0] */
	uint16_t sport, dport;	    /* host order */
	uint8_t family, proto;
	uint8_t has_ports;
	uint8_t stream;	 /* matched the reassembled stream */
	uint8_t blocked; /* inline drop/reject: the packet is dropped */
	uint8_t icmp_type, icmp_code, has_icmp;
	uint16_t vlan[2];
	/* innermost tunnel of the packet, as the flow record prints it */
	uint8_t tunnel_type, tunnel_depth, outer_family;
	uint32_t tunnel_id;
	uint32_t outer_src[4], outer_dst[4];
	const uint8_t *payload; /* packet payload, or the inspected stream bytes */
	uint32_t payload_len;
	/*
	 * The flow's tuple, client to server (ICMP: its first packet's type and
	 * code), when the alert has a flow: its community_id is the flow's, as
	 * Suricata's, also for an ICMP error raised on the flow it quotes.
	 */
	uint8_t has_flow_tuple, flow_family, flow_proto;
	uint16_t flow_sport, flow_dport;
	uint32_t flow_src[4], flow_dst[4];
	/* raised on an application transaction (mk_detect_tx()): which one */
	uint8_t has_tx, app_proto;
	uint64_t tx_id;
	const void *app_tx; /* valid until the end of the packet (applayer.h) */
};

/* The alert's rule: gid and sid. */
void mk_detect_alert_ids(const struct mk_detect_alert *a, uint32_t *gid, uint32_t *sid);

/* Packet verdict flags (mk_detect_verdict). */
#define MK_DETECT_V_DROP 0x1   /* inline: drop this packet (and the flow) */
#define MK_DETECT_V_PASS 0x2   /* a pass rule matched: no more inspection of this flow */
#define MK_DETECT_V_BYPASS 0x4 /* a rule with `bypass` matched: the flow is marked */
#define MK_DETECT_V_REJECT 0x8 /* inline: the drop came from a reject rule: reset the session */
#define MK_DETECT_V_REJECT_SRC 0x10 /* ... toward the packet's source (rejectsrc, reject) */
#define MK_DETECT_V_REJECT_DST 0x20 /* ... toward its destination (rejectdst, reject) */
#define MK_DETECT_V_TAGGED 0x40	    /* an earlier match's tag covers this packet (kw/tag.c) */

int mk_detect_thread_new(struct mk_detect_master *m, struct mk_detect_thread **out);
/* A thread bound to one fixed engine (tests, benchmarks); takes a reference. */
int mk_detect_thread_new_engine(struct mk_detect_engine *e, struct mk_detect_thread **out);
void mk_detect_thread_free(struct mk_detect_thread *t);

void mk_detect_begin(struct mk_detect_thread *t, const struct mk_detect_pkt *pkt);
void mk_detect_packet(struct mk_detect_thread *t);
void mk_detect_stream(struct mk_detect_thread *t, struct mk_flow *f,
		      const struct mk_stream_chunk *chunk);
/*
 * The chunk the application layer is about to parse: transaction rules
 * with payload keywords (mk_detect_tx()) read it after the stream window
 * of its direction, until mk_detect_stream() on it.
 */
void mk_detect_stream_app(struct mk_detect_thread *t, struct mk_flow *f,
			  const struct mk_stream_chunk *chunk);
unsigned int mk_detect_end(struct mk_detect_thread *t, const struct mk_detect_alert **alerts);
unsigned int mk_detect_verdict(const struct mk_detect_thread *t);
/* Releases the flow's detection state (flowbits, stream windows). */
void mk_detect_flow_free(struct mk_detect_thread *t, struct mk_flow *f);

const uint64_t *mk_detect_thread_counters(const struct mk_detect_thread *t);
/* The longest time one packet waited while the thread adopted a reloaded engine. */
uint64_t mk_detect_thread_swap_max_ns(const struct mk_detect_thread *t);
/* Generation of the engine the thread uses now. */
uint64_t mk_detect_thread_generation(const struct mk_detect_thread *t);

/* ---- application-layer transactions ------------------------------------------ */

/*
 * Which rules a transaction was inspected with (one bit per transaction
 * rule), kept by the application layer with the transaction; zeroed by its
 * owner, released with mk_detect_tx_state_free(). A reloaded engine starts
 * over (its rules are numbered anew).
 */
struct mk_detect_tx_state {
	uint64_t gen;
	uint64_t *done;
	uint32_t nwords;
	/*
	 * Progressive body inspection: the rules whose anchor the body scans
	 * found so far (one bit per transaction rule) and, per prefilter slot,
	 * the body bytes already scanned, so each new part of a body is scanned
	 * once (match/buffers.c).
	 */
	uint64_t *cand;
	uint32_t *scanned;
	uint32_t nscanned;
};

void mk_detect_tx_state_free(struct mk_detect_tx_state *s);

/* A transaction that progressed, as the application layer hands it over. */
struct mk_detect_tx {
	uint8_t app_proto; /* enum mk_app_proto */
	uint8_t progress;  /* MK_BUF_SIDE_* (detect_buf.h) parts it has complete */
	/*
	 * Of @progress, the body parts (MK_BUF_SIDE_*_BODY) handed over before
	 * they are complete (progressive body inspection, docs/applayer.md): a
	 * rule that needs one is inspected on what is there and, unless it
	 * matched, again on a later call.
	 */
	uint8_t partial;
	uint8_t to_client; /* the direction whose data made it progress */
	uint64_t tx_id;	   /* its number in the flow, from 0 */
	const void *tx;	   /* the protocol's transaction: its buffer getters read it */
	struct mk_detect_tx_state *state;
};

/*
 * Inspects the flow's transaction rules of @tx's protocol whose buffers
 * @tx now has, each once per transaction (between mk_detect_begin() and
 * mk_detect_end(), as stream data).
 */
void mk_detect_tx(struct mk_detect_thread *t, struct mk_flow *f, const struct mk_detect_tx *tx);

/* ---- ordered alert filters: threshold, detection_filter, rate_filter ------- */

/*
 * What a stateful filter needs of an alert, by value, so the pipeline can
 * keep it next to a formatted record until it merges records in order.
 */
struct mk_detect_thresh_key {
	uint32_t gid, sid;
	uint32_t src[4], dst[4];
	uint64_t ts_us;
	uint64_t flow_id; /* track by_flow; 0: the alert has no flow */
	uint16_t sport, dport;
	uint8_t family;
	uint8_t nspec;
	uint8_t pad[2];
	struct mk_thresh_spec {
		uint8_t type;  /* MK_THRESH_* in detect_int.h */
		uint8_t track; /* MK_TRACK_* */
		uint8_t new_action;
		uint8_t unique_on; /* detection_filter: MK_UNIQUE_* (distinct ports) */
		uint32_t count;
		uint32_t seconds;
		uint32_t timeout;
		uint32_t multiplier; /* type backoff */
	} spec[2];
};

struct mk_detect_thresh;

/* Fills @k; returns 0 when the alert's rule has no stateful filter (always kept). */
int mk_detect_alert_thresh_key(const struct mk_detect_alert *a, struct mk_detect_thresh_key *k);
int mk_detect_thresh_new(struct mk_detect_thresh **out);
void mk_detect_thresh_free(struct mk_detect_thresh *th);
/*
 * Applies the filters to one alert; call in output order. Returns 1 to keep
 * the alert, 0 to drop it. *@action (may be NULL) receives a rate_filter's
 * new action, else stays as it was.
 */
int mk_detect_thresh_filter(struct mk_detect_thresh *th, const struct mk_detect_thresh_key *k,
			    enum mk_detect_action *action);

/* ---- what consumers of alerts read of a rule -------------------------------- */

/* A metadata entry of a rule (`metadata: key value`). */
struct mk_kv {
	char *key, *value;
};

enum mk_detect_target { MK_TARGET_NONE = 0, MK_TARGET_SRC, MK_TARGET_DST };

/*
 * The facts of an alert's rule, for whoever renders alerts (output/): plain
 * values, valid as long as the rule's engine.
 */
struct mk_detect_rule_info {
	uint32_t gid, sid, rev;
	int severity;		  /* the rule's priority, or its classtype's, or 3 */
	const char *msg;	  /* "" when none */
	const char *category;	  /* the classtype's description, "" when none */
	const char *classtype;	  /* the classtype's name, "" when none */
	const struct mk_kv *meta; /* in rule order */
	uint32_t nmeta;
	uint8_t target;	    /* enum mk_detect_target */
	const char *render; /* what the rule hook stored (mk_detect_rule_set_render), or NULL */
	uint32_t render_len;
};

void mk_detect_rule_info(const struct mk_rule *r, struct mk_detect_rule_info *out);

/*
 * Rule hooks: a consumer that computes something once per rule (the EVE
 * writer renders a rule's static part) registers a hook; every engine build
 * calls each hook on each loaded rule, and a failing hook (-errno) fails the
 * build. Registration happens before the first build (at program start).
 */
typedef int (*mk_detect_rule_hook_fn)(struct mk_rule *r);

/* 0, or -ENOSPC when the (small) table is full. */
int mk_detect_rule_hook_add(mk_detect_rule_hook_fn fn);
/* The rule keeps @buf (malloc'ed, @len bytes) and frees it with itself. */
void mk_detect_rule_set_render(struct mk_rule *r, char *buf, uint32_t len);

#endif /* MK_DETECT_H */
