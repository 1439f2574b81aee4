/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bypass manager (docs/bypass.md): the one writer of the driver's flow
 * bypass maps (table and LRU map of every interface's program) and of its
 * CIDR lists once the daemon runs.
 *
 *   workers --request ring (SPSC, one per worker)--> manager thread
 *   manager --news ring (SPSC, one per worker)--> the worker owning the flow
 *   control thread --one command at a time (mutex, condition)--> manager
 *
 * A worker that decides to bypass a flow pushes {key, flow_id, time} and
 * rings the manager's bell: no syscall on the packet path. The manager
 * inserts the canonical key into every interface's maps (a split tap sees
 * each direction on another one), never over a live entry: the table's set,
 * else the LRU map while it has room; a refused insert goes back to the
 * worker (news FAILED) and the flow is bypassed locally, counted by reason.
 * Every bypass.expiry-interval seconds it walks the maps, sums the per-CPU
 * counters, deletes entries idle past flow-timeouts.<proto>.bypassed (the
 * emergency value while a worker's flow table is in emergency) and sends
 * the owning worker the driver's counts (EXPIRED); an entry it did not
 * delete that the walk no longer finds was evicted from the LRU map
 * (EVICTED, counted). Entries it finds and does not know (pinned maps from
 * the previous run) it adopts and expires the same way.
 *
 * The thread sleeps on its bell (futex, 20 ms at most) between requests;
 * it never spins. Without a thread (tests), mk_bypass_mgr_poll() runs one
 * round of its loop.
 */
#ifndef MK_BYPASS_MANAGER_H
#define MK_BYPASS_MANAGER_H

#include <stdint.h>
#include <jansson.h>
#include "bypass_cfg.h"
#include "config.h"
#include "flow.h"
#include "flow_key.h"
#include "worker.h"

struct mk_loader;
struct mk_bypass_mgr;

/* Request-to-insert latency histogram: upper bounds in microseconds, the last open. */
#define MK_BYPASS_LAT_BUCKETS 6
extern const char *const mk_bypass_lat_names[MK_BYPASS_LAT_BUCKETS];

#define MK_BYPASS_MGR_COUNTERS(X)                                                                  \
	X(REQUESTS, "requests", "capture bypass requests taken from the workers' queues")          \
	X(INSERTED, "inserted", "flows inserted into the driver's maps")                           \
	X(INSERTED_MAP, "inserted_map", "of which into the LRU map (their table set was full)")    \
	X(ALREADY, "already", "requests for a flow already in the maps (it keeps its entry)")      \
	X(FAIL_FULL, "fail_full", "inserts refused: bypass.max-flows entries reached")             \
	X(FAIL_MAP_FULL, "fail_map_full",                                                          \
	  "inserts refused: table set full and the LRU map at its limit (no silent eviction)")     \
	X(FAIL_ERROR, "fail_error", "inserts the kernel refused (logged)")                         \
	X(EXPIRED, "expired", "entries idle past flow-timeouts.<proto>.bypassed, deleted")         \
	X(EXPIRED_EMERG, "expired_emergency",                                                      \
	  "of which at the emergency timeout (a worker's flow table under pressure)")              \
	X(EVICTED, "evicted", "entries gone from the LRU map before expiry (kernel eviction)")     \
	X(ADOPTED, "adopted", "entries found in the maps and not inserted by this run (pinned)")   \
	X(CMD_ADDED, "cmd_added", "flows added by meerkatctl bypass add")                          \
	X(CMD_DELETED, "cmd_deleted", "flows deleted by meerkatctl bypass del")                    \
	X(NEWS_DEFERRED, "news_deferred", "news held back a while: a worker's news ring was full") \
	X(WALKS, "walks", "expiry walks")                                                          \
	X(WAKEUPS, "wakeups", "times the manager woke up")                                         \
	X(DROPS, "drops", "IPS: flows a drop verdict blocked in the driver (map mk_flow_drop)")    \
	X(DROP_FAIL, "drop_fail",                                                                  \
	  "IPS: drop verdicts the kernel refused to put in the map (logged)")                      \
	X(DROP_ENDED, "drop_ended", "IPS: blocked flows that ended in their worker: out of the map")

#define MK_BYPASS_MGR_CNT_ENUM(name, str, doc) MK_BYPASS_MGR_##name,
enum mk_bypass_mgr_counter { MK_BYPASS_MGR_COUNTERS(MK_BYPASS_MGR_CNT_ENUM) MK_BYPASS_MGR_CNT_MAX };
#undef MK_BYPASS_MGR_CNT_ENUM

extern const char *const mk_bypass_mgr_counter_names[MK_BYPASS_MGR_CNT_MAX];

/* What the stats show, a snapshot the manager publishes. */
struct mk_bypass_mgr_stats {
	uint64_t cnt[MK_BYPASS_MGR_CNT_MAX];
	uint64_t lat_hist[MK_BYPASS_LAT_BUCKETS];
	uint64_t lat_max_ns;
	uint64_t lat_sum_ns;
	uint64_t walk_max_us; /* longest expiry walk */
	uint64_t entries;     /* flows the manager tracks */
	uint64_t table_used;  /* ways of the bypass table in use (first interface) */
	uint64_t table_size;  /* ways in all */
	uint64_t map_used;    /* entries of the LRU map (first interface) */
	uint64_t map_size;    /* its max_entries */
	uint64_t map_limit;   /* entries the manager puts in the map at most */
	uint32_t queue_max;   /* deepest request queue seen */
};

/*
 * @loaders: one per interface (none: every insert succeeds, for tests);
 * @cfg, @flow: the bypass keys and the flow timeouts; @cidr, @ncidr: the
 * start state of the CIDR list (the loaders already hold it). 0 or -errno.
 */
int mk_bypass_mgr_new(struct mk_bypass_mgr **out, const struct mk_bypass_cfg *cfg,
		      const struct mk_flow_cfg *flow, struct mk_loader *const *loaders,
		      unsigned int nloaders, unsigned int nworkers, const struct mk_cidr *cidr,
		      unsigned int ncidr);
/* Adopts what the maps hold (pinned) and starts the thread. */
int mk_bypass_mgr_start(struct mk_bypass_mgr *m);
/*
 * Shutdown, first half (the programs are detached): the driver's counts of
 * every owned flow go to its worker (news FINAL), then mk_bypass_mgr_final_done().
 */
void mk_bypass_mgr_finish(struct mk_bypass_mgr *m);
int mk_bypass_mgr_final_done(struct mk_bypass_mgr *m);
/* Stops and joins the thread (after the workers). */
void mk_bypass_mgr_stop(struct mk_bypass_mgr *m);
void mk_bypass_mgr_free(struct mk_bypass_mgr *m);

/* One round of the loop: requests, a command, deferred news, a walk when @walk. */
void mk_bypass_mgr_poll(struct mk_bypass_mgr *m, int walk);

/* Worker @worker's side: 0, or -ENOBUFS when its queue is full. No syscall but the bell. */
int mk_bypass_mgr_request(struct mk_bypass_mgr *m, unsigned int worker,
			  const struct mk_flow_key *key, uint64_t flow_id);
/*
 * IPS: block @key in every interface's driver (a drop verdict), or, with
 * @block 0, unblock it (its flow ended in the worker, so that a later
 * session on the same 5-tuple is inspected afresh); the same queue as the
 * bypass requests. 0, or -ENOBUFS when it is full.
 */
int mk_bypass_mgr_request_drop(struct mk_bypass_mgr *m, unsigned int worker,
			       const struct mk_flow_key *key, int block);
/* Worker @worker's news, up to @max; returns how many. */
unsigned int mk_bypass_mgr_news(struct mk_bypass_mgr *m, unsigned int worker,
				struct mk_worker_bypass_msg *out, unsigned int max);
/* Worker @worker's flow table is (not) in emergency mode: expiry uses the emergency timeouts. */
void mk_bypass_mgr_set_emergency(struct mk_bypass_mgr *m, unsigned int worker, int on);

void mk_bypass_mgr_stats(struct mk_bypass_mgr *m, struct mk_bypass_mgr_stats *out);
/* The stats as the EVE stats event's "bypass" object. */
json_t *mk_bypass_mgr_stats_json(struct mk_bypass_mgr *m);

/*
 * Control commands, run by the manager thread (the maps' one writer); the
 * caller (control thread) waits for the answer. @args as the control socket
 * got them. Returns the answer (new reference) or NULL with *@why set to a
 * message naming the field at fault (in @buf, @len bytes); nothing changes then.
 */
enum mk_bypass_op {
	MK_BYPASS_OP_LIST = 0,
	MK_BYPASS_OP_ADD,
	MK_BYPASS_OP_DEL,
	MK_BYPASS_OP_CIDR_LIST,
	MK_BYPASS_OP_CIDR_ADD,
	MK_BYPASS_OP_CIDR_DEL,
	MK_BYPASS_OP_CIDR_SET, /* {"prefixes": [...]}: the whole list (reload); the difference */
};
json_t *mk_bypass_mgr_command(struct mk_bypass_mgr *m, enum mk_bypass_op op, json_t *args,
			      char *buf, size_t len, const char **why);

/*
 * The canonical key of a 5-tuple given as text ("tcp" or a number, an IPv4
 * or IPv6 address, a port): 0, or -EINVAL with "FIELD: what is wrong" in @buf.
 */
int mk_bypass_tuple_parse(const char *proto, const char *src, const char *sport, const char *dst,
			  const char *dport, struct mk_flow_key *key, char *buf, size_t len);

#endif /* MK_BYPASS_MANAGER_H */
