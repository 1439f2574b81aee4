/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-worker flow table: shared-nothing, preallocated entries, keyed by the
 * canonical struct mk_flow_key and bucketed by the packet's seeded hash.
 * Time is the packets' time (pcap or NIC timestamps), never the wall clock,
 * so offline runs are reproducible. Ended flows are handed to a callback
 * (EVE writer, stream release) before their entry is reused.
 */
#ifndef MK_FLOW_H
#define MK_FLOW_H

#include <stdint.h>
#include "parse.h"

#include "stream.h"

struct mk_detect_flow;
struct mk_app_flow;

enum mk_flow_proto {
	MK_FLOW_PROTO_TCP = 0,
	MK_FLOW_PROTO_UDP,
	MK_FLOW_PROTO_ICMP,
	MK_FLOW_PROTO_DEFAULT,
	MK_FLOW_PROTO_MAX
};

enum mk_flow_state {
	MK_FLOW_STATE_NEW = 0,
	MK_FLOW_STATE_ESTABLISHED,
	MK_FLOW_STATE_CLOSED,
	/*
	 * Bypassed in the driver (capture bypass): the flow waits for the bypass
	 * manager to say its entry expired, with the driver's counters; the
	 * table's sweep never ends it (its timeout, flow-timeouts.*.bypassed,
	 * is the manager's idle timeout for the entry).
	 */
	MK_FLOW_STATE_BYPASSED,
	MK_FLOW_STATE_MAX
};

/* Where a flow's bypass started (EVE flow.bypass). */
enum mk_flow_bypass {
	MK_FLOW_BYPASS_NONE = 0,
	MK_FLOW_BYPASS_LOCAL,	/* the worker skips its packets before stream and detect */
	MK_FLOW_BYPASS_CAPTURE, /* in the driver's bypass maps: the program drops its frames */
};

/* Why a flow was bypassed (the worker's bypass_* counters). */
enum mk_flow_bypass_why {
	MK_FLOW_BYPASS_WHY_DEPTH = 0, /* reassembly depth reached both ways (stream.bypass) */
	MK_FLOW_BYPASS_WHY_SIZE,      /* flow.bypass-bytes or flow.bypass-packets */
	MK_FLOW_BYPASS_WHY_RULE,      /* a rule with `bypass` matched */
	MK_FLOW_BYPASS_WHY_PASS,      /* a pass rule matched (detect.pass-bypass) */
	MK_FLOW_BYPASS_WHY_ENCRYPTED, /* TLS encrypted (app-layer.protocols.tls.encryption-handling) */
	MK_FLOW_BYPASS_WHY_MAX
};

/* How a capture bypass ended, before the flow's record. */
enum mk_flow_bypass_end {
	MK_FLOW_BYPASS_END_NONE = 0,
	MK_FLOW_BYPASS_END_EXPIRED, /* idle past its timeout: the manager deleted the entry */
	MK_FLOW_BYPASS_END_EVICTED, /* gone from the LRU map before expiry: counters incomplete */
	MK_FLOW_BYPASS_END_DELETED, /* meerkatctl bypass del */
};

/* Why a flow ended: EVE flow.reason, Suricata's words. */
enum mk_flow_reason {
	MK_FLOW_END_TIMEOUT = 0,
	MK_FLOW_END_FORCED,    /* evicted: emergency mode could not free an entry */
	MK_FLOW_END_SHUTDOWN,  /* still open when the capture ended */
	MK_FLOW_END_TCP_REUSE, /* a new SYN reused the ports of a finished TCP session */
};

#define MK_TCP_FIN 0x01
#define MK_TCP_SYN 0x02
#define MK_TCP_RST 0x04
#define MK_TCP_PSH 0x08
#define MK_TCP_ACK 0x10

/* Flow-table settings; timeouts in seconds. The configuration's `flow:` and `flow-timeouts:`. */
struct mk_flow_cfg {
	uint32_t max_flows;	     /* preallocated entries per worker */
	uint64_t memcap;	     /* bytes of entries per worker; lowers max_flows; 0 = none */
	uint32_t hash_size;	     /* buckets per worker; rounded up to a power of two */
	uint32_t emergency_recovery; /* leave emergency mode when this % of entries is free */
	uint32_t max_chain;	     /* flows per bucket; 0: automatic (see flow.c) */
	uint32_t timeout[MK_FLOW_PROTO_MAX][MK_FLOW_STATE_MAX];
	uint32_t emerg_timeout[MK_FLOW_PROTO_MAX][MK_FLOW_STATE_MAX];
};

/* Suricata's defaults (suricata.yaml flow-timeouts). */
void mk_flow_cfg_defaults(struct mk_flow_cfg *cfg);
/* The `flow:` and `flow-timeouts:` keys (config/cfg_keys.h). */
struct mk_cfg_table;
extern const struct mk_cfg_table mk_flow_cfg_table;

struct mk_flow_list {
	uint32_t head, tail; /* entry indexes; MK_FLOW_NIL when empty */
};

#define MK_FLOW_NIL UINT32_MAX

struct mk_flow {
	struct mk_flow_key key;
	uint32_t lru_prev, lru_next; /* in its (proto, state) timeout list, oldest first */
	uint64_t flow_id;
	uint64_t start_us, last_us;
	uint64_t pkts[2]; /* [0] to server, [1] to client */
	uint64_t bytes[2];
	uint8_t client_hi;	 /* the initiator is the key's hi endpoint */
	uint8_t first_to_client; /* the first packet travelled server -> client (SYN-ACK first) */
	uint8_t proto_class;	 /* enum mk_flow_proto */
	uint8_t state;		 /* enum mk_flow_state */
	uint8_t tcp_flags[2];	 /* union of flags seen per direction, all eight bits */
	uint8_t fin_seen;	 /* bit per direction */
	uint8_t rst_seen;
	uint8_t alerted;
	uint8_t bypassed; /* marked for bypass: EVE flow.state "bypassed" */
	uint8_t in_use;
	uint8_t bypass;	    /* enum mk_flow_bypass */
	uint8_t bypass_why; /* enum mk_flow_bypass_why */
	uint8_t bypass_end; /* enum mk_flow_bypass_end */
	uint8_t ips_drop;   /* inline: a drop (1) or reject (2) verdict blocked the flow */
	/* what the driver counted while the flow was capture-bypassed: [0] to server, [1] to client */
	uint64_t bypass_pkts[2];
	uint64_t bypass_bytes[2];
	uint8_t app_proto;  /* enum mk_app_proto (applayer/applayer.h) */
	uint8_t app_bypass; /* the application layer asks for bypass (an encrypted session) */
	/*
	 * The session is encrypted and the application layer asks that its raw
	 * payload no longer be inspected (TLS encryption-handling: default):
	 * payload and stream rules skip it, transaction and header rules do not.
	 */
	uint8_t app_encrypted;
	/* innermost tunnel, oriented client -> server */
	uint8_t tunnel_type; /* enum mk_tunnel_type */
	uint8_t tunnel_depth;
	uint8_t outer_family;
	uint32_t tunnel_id;
	uint32_t outer_client[4], outer_server[4];
	uint16_t vlan[2];
	uint8_t icmp_type, icmp_code; /* of the first packet */
	/* before the last packet was accounted, for mk_flow_unaccount() */
	uint8_t undo_tcp_flags;
	uint64_t undo_last_us;
	struct mk_tcp_session tcp;     /* owned by the stream engine */
	struct mk_detect_flow *detect; /* detection state (detect/), freed with the flow */
	struct mk_app_flow *app; /* application layer state (applayer/), freed with the flow */
};

#define MK_FLOW_COUNTERS(X)                                                                    \
	X(CREATED, "flow_created", "flows created")                                            \
	X(END_TIMEOUT, "flow_end_timeout", "flows ended by timeout")                           \
	X(END_FORCED, "flow_end_forced", "flows evicted while the table was full")             \
	X(END_SHUTDOWN, "flow_end_shutdown", "flows still open at shutdown")                   \
	X(END_TCP_REUSE, "flow_end_tcp_reuse", "TCP flows ended by a new SYN on their ports")  \
	X(EMERGENCY, "flow_emergency", "times the table entered emergency mode")               \
	X(CHAIN_EVICT, "flow_chain_evict", "flows evicted because their hash bucket was full") \
	X(ALLOC_FAIL, "flow_alloc_fail", "packets dropped: no flow entry could be freed")      \
	X(TIME_REWIND, "flow_time_rewind", "packets older than their flow's last packet")

#define MK_FLOW_CNT_ENUM(name, str, doc) MK_FLOW_CNT_##name,
enum mk_flow_counter { MK_FLOW_COUNTERS(MK_FLOW_CNT_ENUM) MK_FLOW_CNT_MAX };
#undef MK_FLOW_CNT_ENUM

extern const char *const mk_flow_counter_names[MK_FLOW_CNT_MAX];

/*
 * Called before the entry is reused; may release state the flow owns (stream
 * session). @ts_us is packet time when the flow ended: the packet that ended
 * it (port reuse, a late packet after the timeout, eviction), the tick that
 * swept it, or the table's clock at the final flush; never before its last
 * packet. EVE's `timestamp`.
 */
typedef void (*mk_flow_end_fn)(void *ctx, struct mk_flow *f, enum mk_flow_reason reason,
			       uint64_t ts_us);

/*
 * What a bucket-chain walk needs of an entry, kept apart from the entries:
 * a lookup that misses (every new flow) and the unlink of an ended flow
 * touch this small array instead of an entry's cache lines each. @next is
 * the bucket chain, or the free list for a free entry.
 */
struct mk_flow_link {
	uint32_t hash;
	uint32_t next;
};

struct mk_flow_table {
	struct mk_flow_cfg cfg;
	struct mk_flow *entries;
	struct mk_flow_link *links; /* parallel to entries */
	uint32_t *buckets;
	uint32_t max_chain;    /* cfg.max_chain, or the automatic value */
	uint32_t chain_max;    /* deepest chain seen: a gauge, not in cnt[] */
	uint32_t bucket_shift; /* 32 - log2(buckets) */
	uint32_t free_head;    /* entries ended and free again */
	uint32_t never_used;   /* entries from here on were never handed out */
	uint32_t nfree;
	uint32_t seed;
	int emergency;
	int emergency_logged;
	/*
	 * A stream engine decides when a TCP flow is closed and when a new SYN
	 * reuses its ports (mk_flow_set_state, mk_flow_unaccount): the table
	 * then only moves TCP flows from new to established on its own, so a
	 * RST or FIN the engine refuses (spoofed, out of the window) neither
	 * shortens the flow's timeout nor lets a SYN split it.
	 */
	int stream_owns_tcp;
	uint64_t now_us; /* the latest time the table was told about */
	struct mk_flow_list lists[MK_FLOW_PROTO_MAX][MK_FLOW_STATE_MAX];
	mk_flow_end_fn end_fn;
	void *end_ctx;
	uint64_t cnt[MK_FLOW_CNT_MAX];
};

/* What the flow table needs from one packet besides its parse. */
struct mk_flow_pkt {
	uint64_t ts_us;
	uint32_t len; /* bytes accounted to the flow (see docs/flow.md) */
	uint8_t tcp_flags;
	uint8_t icmp_type, icmp_code;
};

/*
 * The bucket of packet hash @hash in a table of 2^(32 - @shift) buckets. The
 * low bits of the hash already chose the worker (hash % 256 -> itable), so
 * they are nearly constant inside one table; a multiplicative remix takes the
 * top bits instead. Public for the hash-flooding test, which aims flows at
 * one bucket.
 */
static inline uint32_t mk_flow_bucket(uint32_t hash, uint32_t shift)
{
	return (hash * 0x9e3779b1u) >> shift;
}

/*
 * Starts loading the bucket @hash falls into: under a flood of new flows the
 * bucket is a cache miss, which then overlaps the work before the lookup.
 */
static inline void mk_flow_prefetch(const struct mk_flow_table *t, uint32_t hash)
{
	__builtin_prefetch(&t->buckets[mk_flow_bucket(hash, t->bucket_shift)]);
}

int mk_flow_table_init(struct mk_flow_table *t, const struct mk_flow_cfg *cfg, uint32_t seed,
		       mk_flow_end_fn end_fn, void *end_ctx);
void mk_flow_table_free(struct mk_flow_table *t);

/*
 * Finds or creates the flow of @p and accounts @pkt to it. *@to_client says
 * which way the packet went. Returns NULL only when no entry could be freed
 * (counted as MK_FLOW_CNT_ALLOC_FAIL).
 */
struct mk_flow *mk_flow_handle(struct mk_flow_table *t, const struct mk_parse *p,
			       const struct mk_flow_pkt *pkt, int *to_client);

/* Ends @f at @ts_us (e.g. the stream engine saw TCP port reuse the table did not). */
void mk_flow_table_end(struct mk_flow_table *t, struct mk_flow *f, enum mk_flow_reason reason,
		       uint64_t ts_us);

/* The flow of @key (hash @hash), or NULL; never creates one. */
struct mk_flow *mk_flow_lookup(struct mk_flow_table *t, const struct mk_flow_key *key,
			       uint32_t hash);

/*
 * Accounts a packet about @f that is not one of its own (an ICMP error
 * quoting it): packets, bytes and last-seen time in direction @to_client,
 * no TCP flags, no state change.
 */
void mk_flow_account_related(struct mk_flow_table *t, struct mk_flow *f,
			     const struct mk_flow_pkt *pkt, int to_client);

/* Moves @f to state @s (its timeout list with it). */
void mk_flow_set_state(struct mk_flow_table *t, struct mk_flow *f, enum mk_flow_state s);

/* Takes back the packet mk_flow_handle() just accounted to @f (it belongs to a new flow). */
void mk_flow_unaccount(struct mk_flow_table *t, struct mk_flow *f, const struct mk_flow_pkt *pkt,
		       int to_client);

/* Moves the table's clock to @now_us (never back) without sweeping. */
void mk_flow_table_advance(struct mk_flow_table *t, uint64_t now_us);

/* Advances the table's clock and ends every flow whose timeout has passed. */
void mk_flow_table_tick(struct mk_flow_table *t, uint64_t now_us);

/* Ends every flow still open (reason shutdown, at the table's clock), oldest first per list. */
void mk_flow_table_flush(struct mk_flow_table *t);

/* Number of flows currently tracked. */
uint32_t mk_flow_table_active(const struct mk_flow_table *t);

/*
 * Deterministic id of a flow instance: from key, seed and start time only;
 * 51 bits, as Suricata masks its flow_id, so that JSON readers that parse
 * numbers as doubles (jq, JavaScript, Kibana) keep it exact.
 */
uint64_t mk_flow_id(const struct mk_flow_key *key, uint32_t seed, uint64_t start_us);

const char *mk_flow_state_name(const struct mk_flow *f);
const char *mk_flow_reason_name(enum mk_flow_reason r);

#endif /* MK_FLOW_H */
