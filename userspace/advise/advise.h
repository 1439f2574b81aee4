/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The router advisor's logic (docs/outputs-bgp.md), without threads or
 * sockets so that unit tests drive it with their own clock:
 *
 *  - selection, on the worker: is this alert's rule chosen by
 *    advise-router.sids, .classtypes or .metadata; and the request a worker
 *    queues for the announcer (struct mk_advise_req, by value);
 *  - the table of active announcements, on the announcer: a request for an
 *    address (blackhole) or 5-tuple (flowspec) already announced extends
 *    its time to live; a new one is refused when the address is on the
 *    allow list, is one of the sensor's own or is no unicast host address
 *    (loopback, multicast, link-local, unspecified, broadcast), or when
 *    max-active announcements are up; else it is announced. Expiry and
 *    shutdown withdraw.
 *
 * Every announcement, withdrawal and refusal is handed to two callbacks:
 * the ExaBGP command ("announce route 198.51.100.7/32 next-hop 192.0.2.1
 * community [65535:666]\n") and the EVE record (event_type "bgp_advise",
 * one line ending in '\n').
 *
 * The offender is the alert's source, unless the rule says the source is
 * the target (`target:src_ip`), in which case it is the destination.
 */
#ifndef MK_ADVISE_H
#define MK_ADVISE_H

#include <stddef.h>
#include <stdint.h>
#include "advise_cfg.h"
#include "detect.h"

/*
 * The counters of the advisor (EVE stats "advise", meerkatctl stats),
 * X(id, name, doc). selected and queue_dropped are the workers'.
 */
#define MK_ADVISE_COUNTERS(X)                                                                  \
	X(SELECTED, "selected", "alerts chosen by advise-router.sids, classtypes or metadata") \
	X(QUEUE_DROPPED, "queue_dropped",                                                      \
	  "chosen alerts lost: the worker's queue to the announcer was full")                  \
	X(ANNOUNCED, "announced", "announcements made (a blackhole route or a flowspec rule)") \
	X(EXTENDED, "extended", "alerts that renewed an active announcement's time to live")   \
	X(WITHDRAWN, "withdrawn", "announcements withdrawn (time to live over, or shutdown)")  \
	X(REFUSED_ALLOWLIST, "refused_allowlist",                                              \
	  "alerts not announced: the address is allowed, the sensor's own, or not a unicast "  \
	  "host address")                                                                      \
	X(REFUSED_LIMIT, "refused_limit",                                                      \
	  "alerts not announced: advise-router.max-active announcements were up")              \
	X(WRITE_ERRORS, "write_errors",                                                        \
	  "pipe connections closed on a failed or stalled write (the pipe resyncs on return)") \
	X(UNDELIVERED, "undelivered",                                                          \
	  "commands made while no pipe was connected (the active ones go out on connect)")     \
	X(CONNECTIONS, "connections", "pipe connections accepted (meerkat-exabgp-pipe)")

#define MK_ADVISE_CNT_ENUM(id, name, doc) MK_ADVISE_##id,
enum mk_advise_counter { MK_ADVISE_COUNTERS(MK_ADVISE_CNT_ENUM) MK_ADVISE_CNT_MAX };
#undef MK_ADVISE_CNT_ENUM

extern const char *const mk_advise_counter_names[MK_ADVISE_CNT_MAX];

/* A chosen alert, as a worker queues it (plain values, no pointers). */
struct mk_advise_req {
	uint32_t src[4], dst[4]; /* the alert's, network order, IPv4 in [0] */
	uint64_t ts_us;		 /* the alert's time */
	uint64_t flow_id;
	uint32_t gid, sid;
	uint16_t sport, dport; /* host order */
	uint8_t family;	       /* enum mk_family */
	uint8_t proto;
	uint8_t has_ports;
	uint8_t offender_dst; /* target:src_ip: the destination is the offender */
};

/* Is the alert's rule chosen? @ri as mk_detect_rule_info() gives it. */
int mk_advise_select(const struct mk_advise_cfg *c, const struct mk_detect_rule_info *ri);
/* The request for alert @a of the rule @ri. */
void mk_advise_req_fill(struct mk_advise_req *r, const struct mk_detect_alert *a,
			const struct mk_detect_rule_info *ri);

enum mk_advise_result {
	MK_ADVISE_RES_ANNOUNCED = 0,
	MK_ADVISE_RES_EXTENDED,
	MK_ADVISE_RES_REFUSED_ALLOW,   /* advise-router.allow */
	MK_ADVISE_RES_REFUSED_OWN,     /* one of the sensor's addresses */
	MK_ADVISE_RES_REFUSED_SPECIAL, /* not a unicast host address */
	MK_ADVISE_RES_REFUSED_LIMIT,   /* max-active reached */
	MK_ADVISE_RES_ERROR,	       /* out of memory (counted nowhere else) */
};

/* Where the table's words go; @line ends in '\n'. */
struct mk_advise_out {
	void (*command)(void *ctx, const char *line, size_t len); /* to ExaBGP */
	void (*record)(void *ctx, const char *line, size_t len);  /* to EVE */
	void *ctx;
};

struct mk_advise_entry;

struct mk_advise_table {
	const struct mk_advise_cfg *cfg;
	struct mk_advise_out out;
	struct mk_advise_entry *ents; /* [cfg->max_active] */
	uint32_t *buckets;	      /* entry index + 1, 0 = none */
	uint32_t nbuckets;	      /* a power of two */
	uint32_t free_head;	      /* index + 1 of the first free entry */
	uint32_t active;
	const struct mk_cidr *own; /* the sensor's addresses */
	unsigned int nown;
	uint64_t cnt[MK_ADVISE_CNT_MAX];
};

/* @own (the sensor's addresses, may be NULL) must outlive the table. 0 or -ENOMEM. */
int mk_advise_table_init(struct mk_advise_table *t, const struct mk_advise_cfg *cfg,
			 const struct mk_cidr *own, unsigned int nown,
			 const struct mk_advise_out *out);
void mk_advise_table_free(struct mk_advise_table *t);

/* One request at monotonic time @now_ns, wall clock @now_us (records). */
enum mk_advise_result mk_advise_offer(struct mk_advise_table *t, const struct mk_advise_req *r,
				      uint64_t now_ns, uint64_t now_us);
/* Withdraws what expired at @now_ns; returns how many. */
unsigned int mk_advise_expire(struct mk_advise_table *t, uint64_t now_ns, uint64_t now_us);
/* Withdraws everything (shutdown); returns how many. */
unsigned int mk_advise_withdraw_all(struct mk_advise_table *t, uint64_t now_us);
/* Every active announcement's command, as a pipe that just connected needs them. */
void mk_advise_foreach_active(const struct mk_advise_table *t,
			      void (*fn)(void *arg, const char *line, size_t len), void *arg);

/*
 * The route of @r as ExaBGP's API writes it after "announce " or
 * "withdraw ": "route A/32 next-hop N community [C]" or "flow route { ... }".
 * Returns its length, or -ENOSPC.
 */
int mk_advise_route(const struct mk_advise_cfg *c, const struct mk_advise_req *r, char *buf,
		    size_t len);

#endif /* MK_ADVISE_H */
