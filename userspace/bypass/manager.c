// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bypass manager (manager.h): the thread that owns the driver's bypass
 * maps. Its own table of the flows it put there (key -> owner, counters)
 * is private to the thread; workers and the control thread reach it only
 * through rings and one command slot.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include "bell.h"
#include "hash.h"
#include "loader.h"
#include "log.h"
#include "manager.h"
#include "spsc.h"

#define MK_BYPASS_MGR_CNT_NAME(name, str, doc) [MK_BYPASS_MGR_##name] = str,
const char *const mk_bypass_mgr_counter_names[MK_BYPASS_MGR_CNT_MAX] = { MK_BYPASS_MGR_COUNTERS(
	MK_BYPASS_MGR_CNT_NAME) };
#undef MK_BYPASS_MGR_CNT_NAME

static const uint64_t lat_bound_ns[MK_BYPASS_LAT_BUCKETS - 1] = { 10000, 100000, 1000000, 10000000,
								  100000000 };
const char *const mk_bypass_lat_names[MK_BYPASS_LAT_BUCKETS] = {
	"lt_10us", "lt_100us", "lt_1ms", "lt_10ms", "lt_100ms", "ge_100ms",
};

#define BUCKETS (1u << 16) /* the manager's own table; chains are short below 1M flows */
#define REQ_BURST 64
#define LIST_MAX 1000		   /* flows `bypass list` shows at most */
#define DEFER_RETRY_NS 10000000ull /* 10 ms: news a full ring held back */

/* A request from a worker. */
struct mgr_req {
	struct mk_flow_key key;
	uint64_t flow_id;
	uint64_t t_ns; /* CLOCK_MONOTONIC when queued */
	uint64_t drop; /* IPS: 1 block the flow in the driver, 2 unblock (mk_bypass_mgr_request_drop) */
};

/* A flow in the driver's maps. */
struct mgr_entry {
	struct mgr_entry *next;
	struct mk_flow_key key;
	uint64_t flow_id;
	int worker; /* owner; -1: none (command, adopted) */
	uint8_t in_map;
	uint32_t seen;		    /* walk generation that last found it */
	uint64_t added_ns;	    /* CLOCK_MONOTONIC_COARSE, as the program's last_seen */
	uint64_t pkts[2], bytes[2]; /* summed over interfaces, [0] lo -> hi */
	uint64_t last_seen_ns;
	uint64_t w_pkts[2], w_bytes[2], w_last; /* this walk's sums */
};

/* News a worker's ring could not take yet. */
struct mgr_news {
	struct mgr_news *next;
	unsigned int worker;
	struct mk_worker_bypass_msg msg;
};

struct mk_bypass_mgr {
	struct mk_bypass_cfg cfg;
	struct mk_flow_cfg flow;
	struct mk_loader **loaders;
	unsigned int nloaders;
	unsigned int nworkers;
	struct mk_spsc *req;  /* [nworkers] */
	struct mk_spsc *news; /* [nworkers] */
	_Atomic int *emergency;
	struct mk_bell bell;
	pthread_t thread;
	int started;
	_Atomic int stop;
	_Atomic int finishing;
	_Atomic int final_done;
	uint64_t next_walk_ns;

	/* the thread's own */
	struct mgr_entry **buckets;
	uint64_t nentries, nmap;
	uint32_t map_limit, max_flows, gen;
	struct mgr_news *deferred, **deferred_tail;
	struct mk_cidr *cidr;
	unsigned int ncidr, cidr_cap;
	struct mk_bypass_mgr_stats st; /* the thread's counters, published below */

	/* published stats */
	pthread_mutex_t stats_lock;
	struct mk_bypass_mgr_stats pub;

	/* the control thread's one command */
	pthread_mutex_t cmd_lock;
	pthread_cond_t cmd_cond;
	_Atomic int cmd_pending;
	int cmd_done;
	enum mk_bypass_op cmd_op;
	json_t *cmd_args, *cmd_result;
	char *cmd_buf;
	size_t cmd_len;
	const char *cmd_why;
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the manager's table ---------------------------------------------------------------- */

static uint32_t bucket_of(const struct mk_flow_key *key)
{
	return mk_flow_hash(key, 0x6d6b6270) & (BUCKETS - 1);
}

static struct mgr_entry *entry_find(struct mk_bypass_mgr *m, const struct mk_flow_key *key)
{
	struct mgr_entry *e;

	for (e = m->buckets[bucket_of(key)]; e; e = e->next)
		if (!memcmp(&e->key, key, sizeof(*key)))
			return e;
	return NULL;
}

static struct mgr_entry *entry_add(struct mk_bypass_mgr *m, const struct mk_flow_key *key)
{
	struct mgr_entry *e = calloc(1, sizeof(*e));
	uint32_t b = bucket_of(key);

	if (!e)
		return NULL;
	e->key = *key;
	e->worker = -1;
	e->added_ns = now_ns(CLOCK_MONOTONIC_COARSE);
	e->seen = m->gen;
	e->next = m->buckets[b];
	m->buckets[b] = e;
	m->nentries++;
	return e;
}

static void entry_remove(struct mk_bypass_mgr *m, struct mgr_entry *e)
{
	struct mgr_entry **pp = &m->buckets[bucket_of(&e->key)];

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	m->nentries--;
	if (e->in_map)
		m->nmap--;
	free(e);
}

/* ---- news to the workers ------------------------------------------------------------------ */

static void news_send(struct mk_bypass_mgr *m, unsigned int worker,
		      const struct mk_worker_bypass_msg *msg)
{
	struct mgr_news *n;

	if (worker >= m->nworkers)
		return;
	/* behind deferred news the order holds only if this one waits too */
	if (!m->deferred && !mk_spsc_push(&m->news[worker], msg))
		return;
	n = malloc(sizeof(*n));
	if (!n) {
		mk_warn("bypass manager: news for worker %u lost (no memory)", worker);
		return;
	}
	n->next = NULL;
	n->worker = worker;
	n->msg = *msg;
	*m->deferred_tail = n;
	m->deferred_tail = &n->next;
	m->st.cnt[MK_BYPASS_MGR_NEWS_DEFERRED]++;
}

static void news_flush(struct mk_bypass_mgr *m)
{
	struct mgr_news *n;

	while ((n = m->deferred) && !mk_spsc_push(&m->news[n->worker], &n->msg)) {
		m->deferred = n->next;
		free(n);
	}
	if (!m->deferred)
		m->deferred_tail = &m->deferred;
}

static void news_of(const struct mgr_entry *e, enum mk_worker_bypass_news what,
		    struct mk_worker_bypass_msg *msg)
{
	uint64_t mono = now_ns(CLOCK_MONOTONIC_COARSE), real = now_ns(CLOCK_REALTIME);

	memset(msg, 0, sizeof(*msg));
	msg->key = e->key;
	msg->flow_id = e->flow_id;
	msg->news = (uint8_t)what;
	memcpy(msg->pkts, e->pkts, sizeof(msg->pkts));
	memcpy(msg->bytes, e->bytes, sizeof(msg->bytes));
	if (e->last_seen_ns && e->last_seen_ns <= mono)
		msg->last_us = (real - (mono - e->last_seen_ns)) / 1000;
}

static void news_entry(struct mk_bypass_mgr *m, const struct mgr_entry *e,
		       enum mk_worker_bypass_news what)
{
	struct mk_worker_bypass_msg msg;

	if (e->worker < 0)
		return;
	news_of(e, what, &msg);
	news_send(m, (unsigned int)e->worker, &msg);
}

/* ---- the maps ----------------------------------------------------------------------------- */

/*
 * Puts @key into every interface's maps; on a refusal takes it out of those
 * that took it. 0, or the counter of the reason.
 */
static int maps_insert(struct mk_bypass_mgr *m, const struct mk_flow_key *key, bool *in_map)
{
	bool allow_map = m->nmap < m->map_limit, im = false;
	unsigned int i, j;
	int err;

	*in_map = false;
	if (m->max_flows && m->nentries >= m->max_flows)
		return MK_BYPASS_MGR_FAIL_FULL;
	for (i = 0; i < m->nloaders; i++) {
		err = mk_loader_bypass_insert(m->loaders[i], key, allow_map, &im);
		*in_map |= im;
		if (err == -EEXIST)
			err = 0; /* there already (pinned, or another run's): it stays */
		if (err) {
			for (j = 0; j < i; j++)
				mk_loader_bypass_del(m->loaders[j], key);
			return err == -ENOSPC ? MK_BYPASS_MGR_FAIL_MAP_FULL :
						MK_BYPASS_MGR_FAIL_ERROR;
		}
	}
	return 0;
}

static void maps_delete(struct mk_bypass_mgr *m, const struct mk_flow_key *key)
{
	unsigned int i;

	for (i = 0; i < m->nloaders; i++)
		mk_loader_bypass_del(m->loaders[i], key); /* -ENOENT: evicted meanwhile */
}

/* The driver's counts of @e now, summed over the interfaces; 0 when no interface has it. */
static int maps_read(struct mk_bypass_mgr *m, struct mgr_entry *e)
{
	struct mk_bypass_value v;
	unsigned int i, found = 0;

	memset(e->pkts, 0, sizeof(e->pkts));
	memset(e->bytes, 0, sizeof(e->bytes));
	for (i = 0; i < m->nloaders; i++) {
		if (mk_loader_bypass_read(m->loaders[i], &e->key, &v))
			continue;
		found++;
		e->pkts[0] += v.packets[0];
		e->pkts[1] += v.packets[1];
		e->bytes[0] += v.bytes[0];
		e->bytes[1] += v.bytes[1];
		if (v.last_seen_ns > e->last_seen_ns)
			e->last_seen_ns = v.last_seen_ns;
	}
	return found || !m->nloaders;
}

/* ---- requests ----------------------------------------------------------------------------- */

static void latency(struct mk_bypass_mgr *m, uint64_t t_ns)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), d = now > t_ns ? now - t_ns : 0;
	unsigned int b = 0;

	while (b < MK_BYPASS_LAT_BUCKETS - 1 && d >= lat_bound_ns[b])
		b++;
	m->st.lat_hist[b]++;
	m->st.lat_sum_ns += d;
	if (d > m->st.lat_max_ns)
		m->st.lat_max_ns = d;
}

/* IPS: a drop verdict's flow into every interface's drop map, or out when the flow ended. */
static void request_drop(struct mk_bypass_mgr *m, const struct mgr_req *r)
{
	unsigned int i;
	int err = 0;

	if (r->drop == 2) {
		for (i = 0; i < m->nloaders; i++)
			mk_loader_drop_del(m->loaders[i], &r->key);
		m->st.cnt[MK_BYPASS_MGR_DROP_ENDED]++;
		return;
	}
	for (i = 0; i < m->nloaders; i++)
		err |= mk_loader_drop_add(m->loaders[i], &r->key);
	m->st.cnt[err ? MK_BYPASS_MGR_DROP_FAIL : MK_BYPASS_MGR_DROPS]++;
	latency(m, r->t_ns);
}

static void request(struct mk_bypass_mgr *m, unsigned int worker, const struct mgr_req *r)
{
	struct mk_worker_bypass_msg msg;
	struct mgr_entry *e;
	bool in_map;
	int why;

	if (r->drop) {
		request_drop(m, r);
		return;
	}
	m->st.cnt[MK_BYPASS_MGR_REQUESTS]++;
	e = entry_find(m, &r->key);
	if (e) {
		/* added by command, adopted, or a worker's earlier flow: this flow owns it now */
		m->st.cnt[MK_BYPASS_MGR_ALREADY]++;
		e->worker = (int)worker;
		e->flow_id = r->flow_id;
		latency(m, r->t_ns);
		return;
	}
	why = maps_insert(m, &r->key, &in_map);
	if (!why) {
		e = entry_add(m, &r->key);
		if (!e) {
			maps_delete(m, &r->key);
			why = MK_BYPASS_MGR_FAIL_ERROR;
		}
	}
	if (why) {
		m->st.cnt[why]++;
		memset(&msg, 0, sizeof(msg));
		msg.key = r->key;
		msg.flow_id = r->flow_id;
		msg.news = MK_BYPASS_NEWS_FAILED;
		news_send(m, worker, &msg);
		return;
	}
	latency(m, r->t_ns);
	e->worker = (int)worker;
	e->flow_id = r->flow_id;
	e->in_map = in_map;
	m->nmap += in_map;
	m->st.cnt[MK_BYPASS_MGR_INSERTED]++;
	m->st.cnt[MK_BYPASS_MGR_INSERTED_MAP] += in_map;
}

static void requests(struct mk_bypass_mgr *m)
{
	struct mgr_req r[REQ_BURST];
	unsigned int w, i, n;

	for (w = 0; w < m->nworkers; w++) {
		uint32_t depth = mk_spsc_count(&m->req[w]);

		if (depth > m->st.queue_max)
			m->st.queue_max = depth;
		while ((n = mk_spsc_pop_burst(&m->req[w], r, REQ_BURST)))
			for (i = 0; i < n; i++)
				request(m, w, &r[i]);
	}
}

/* ---- the expiry walk ---------------------------------------------------------------------- */

static int walk_one(const struct mk_flow_key *key, const struct mk_bypass_value *sum, void *ctx)
{
	struct mk_bypass_mgr *m = ctx;
	struct mgr_entry *e = entry_find(m, key);

	if (!e) {
		/* not ours: a pinned map's entry from the previous run; expired as ours */
		e = entry_add(m, key);
		if (!e)
			return 0;
		m->st.cnt[MK_BYPASS_MGR_ADOPTED]++;
		e->seen = m->gen - 1;
	}
	if (e->seen != m->gen) {
		e->seen = m->gen;
		memset(e->w_pkts, 0, sizeof(e->w_pkts));
		memset(e->w_bytes, 0, sizeof(e->w_bytes));
		e->w_last = 0;
	}
	e->w_pkts[0] += sum->packets[0];
	e->w_pkts[1] += sum->packets[1];
	e->w_bytes[0] += sum->bytes[0];
	e->w_bytes[1] += sum->bytes[1];
	if (sum->last_seen_ns > e->w_last)
		e->w_last = sum->last_seen_ns;
	return 0;
}

static int any_emergency(struct mk_bypass_mgr *m)
{
	unsigned int w;

	for (w = 0; w < m->nworkers; w++)
		if (atomic_load_explicit(&m->emergency[w], memory_order_relaxed))
			return 1;
	return 0;
}

static uint64_t timeout_ns(const struct mk_bypass_mgr *m, const struct mgr_entry *e, int emerg)
{
	int p = e->key.proto == MK_IPPROTO_TCP ? MK_FLOW_PROTO_TCP :
		e->key.proto == MK_IPPROTO_UDP ? MK_FLOW_PROTO_UDP :
		e->key.proto == MK_IPPROTO_ICMP || e->key.proto == MK_IPPROTO_ICMPV6 ?
						 MK_FLOW_PROTO_ICMP :
						 MK_FLOW_PROTO_DEFAULT;

	return (uint64_t)(emerg ? m->flow.emerg_timeout :
				  m->flow.timeout)[p][MK_FLOW_STATE_BYPASSED] *
	       1000000000ull;
}

static void walk(struct mk_bypass_mgr *m)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC), now, idle, d;
	int emerg = any_emergency(m), evicted = 0;
	struct mgr_entry *e, *next;
	unsigned int i, b;

	m->gen++;
	m->st.cnt[MK_BYPASS_MGR_WALKS]++;
	for (i = 0; i < m->nloaders; i++)
		if (mk_loader_bypass_walk(m->loaders[i], walk_one, m))
			mk_warn("bypass manager: the expiry walk of interface %u stopped early", i);
	now = now_ns(CLOCK_MONOTONIC_COARSE);
	for (b = 0; b < BUCKETS; b++) {
		for (e = m->buckets[b]; e; e = next) {
			next = e->next;
			if (m->nloaders && e->seen != m->gen) {
				/* we did not delete it and the walk did not find it: the LRU evicted it */
				m->st.cnt[MK_BYPASS_MGR_EVICTED]++;
				evicted = 1;
				news_entry(m, e, MK_BYPASS_NEWS_EVICTED);
				entry_remove(m, e);
				continue;
			}
			if (m->nloaders) {
				memcpy(e->pkts, e->w_pkts, sizeof(e->pkts));
				memcpy(e->bytes, e->w_bytes, sizeof(e->bytes));
				if (e->w_last > e->last_seen_ns)
					e->last_seen_ns = e->w_last;
			}
			idle = e->last_seen_ns > e->added_ns ? e->last_seen_ns : e->added_ns;
			idle = now > idle ? now - idle : 0;
			if (idle <= timeout_ns(m, e, emerg))
				continue;
			if (emerg && idle <= timeout_ns(m, e, 0))
				m->st.cnt[MK_BYPASS_MGR_EXPIRED_EMERG]++;
			m->st.cnt[MK_BYPASS_MGR_EXPIRED]++;
			maps_delete(m, &e->key);
			news_entry(m, e, MK_BYPASS_NEWS_EXPIRED);
			entry_remove(m, e);
		}
	}
	/* an evicted entry leaves its prefilter bit set: one lookup per frame until rebuilt */
	for (i = 0; evicted && i < m->nloaders; i++)
		mk_loader_bypass_prefilter_rebuild(m->loaders[i]);
	d = (now_ns(CLOCK_MONOTONIC) - t0) / 1000;
	if (d > m->st.walk_max_us)
		m->st.walk_max_us = d;
}

/* ---- control commands --------------------------------------------------------------------- */

static const char *arg_str(json_t *args, const char *name)
{
	return json_string_value(json_object_get(args, name));
}

static int tuple_of(json_t *args, struct mk_flow_key *key, char *buf, size_t len)
{
	return mk_bypass_tuple_parse(arg_str(args, "proto"), arg_str(args, "src"),
				     arg_str(args, "sport"), arg_str(args, "dst"),
				     arg_str(args, "dport"), key, buf, len);
}

static json_t *flow_json(const struct mgr_entry *e)
{
	char lo[INET6_ADDRSTRLEN], hi[INET6_ADDRSTRLEN];
	int af = e->key.family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET;

	inet_ntop(af, e->key.addr_lo, lo, sizeof(lo));
	inet_ntop(af, e->key.addr_hi, hi, sizeof(hi));
	return json_pack("{s:i,s:s,s:i,s:s,s:i,s:i,s:s,s:I,s:I,s:I,s:I}", "proto", e->key.proto,
			 "src", lo, "sport", ntohs(e->key.port_lo), "dst", hi, "dport",
			 ntohs(e->key.port_hi), "vlan", e->key.vlan[0], "owner",
			 e->worker < 0 ? "command" : "worker", "pkts_lo_to_hi",
			 (json_int_t)e->pkts[0], "pkts_hi_to_lo", (json_int_t)e->pkts[1],
			 "bytes_lo_to_hi", (json_int_t)e->bytes[0], "bytes_hi_to_lo",
			 (json_int_t)e->bytes[1]);
}

static json_t *cmd_list(struct mk_bypass_mgr *m)
{
	json_t *a = json_array();
	struct mgr_entry *e;
	unsigned int b, n = 0;

	for (b = 0; b < BUCKETS && n < LIST_MAX; b++)
		for (e = m->buckets[b]; e && n < LIST_MAX; e = e->next, n++) {
			maps_read(m, e);
			json_array_append_new(a, flow_json(e));
		}
	return json_pack("{s:I,s:o}", "flows", (json_int_t)m->nentries, "list", a);
}

static json_t *cmd_add(struct mk_bypass_mgr *m, json_t *args, char *buf, size_t len,
		       const char **why)
{
	struct mk_flow_key key;
	struct mgr_entry *e;
	bool in_map;
	int r;

	if (tuple_of(args, &key, buf, len)) {
		*why = buf;
		return NULL;
	}
	if (entry_find(m, &key)) {
		*why = "flow: bypassed already";
		return NULL;
	}
	r = maps_insert(m, &key, &in_map);
	if (r || !(e = entry_add(m, &key))) {
		if (!r)
			maps_delete(m, &key);
		snprintf(buf, len, "flow: not inserted (%s)",
			 r ? mk_bypass_mgr_counter_names[r] : "no memory");
		*why = buf;
		return NULL;
	}
	e->in_map = in_map;
	m->nmap += in_map;
	m->st.cnt[MK_BYPASS_MGR_CMD_ADDED]++;
	return flow_json(e);
}

static json_t *cmd_del(struct mk_bypass_mgr *m, json_t *args, char *buf, size_t len,
		       const char **why)
{
	struct mk_flow_key key;
	struct mgr_entry *e;
	json_t *r;

	if (tuple_of(args, &key, buf, len)) {
		*why = buf;
		return NULL;
	}
	e = entry_find(m, &key);
	if (!e) {
		*why = "flow: not bypassed";
		return NULL;
	}
	maps_read(m, e);
	maps_delete(m, &key);
	news_entry(m, e, MK_BYPASS_NEWS_DELETED);
	r = flow_json(e);
	entry_remove(m, e);
	m->st.cnt[MK_BYPASS_MGR_CMD_DELETED]++;
	return r;
}

static json_t *cidr_json(const struct mk_cidr *c)
{
	char a[INET6_ADDRSTRLEN], s[INET6_ADDRSTRLEN + 8];

	inet_ntop(c->family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, c->addr, a, sizeof(a));
	snprintf(s, sizeof(s), "%s/%u", a, c->prefix);
	return json_string(s);
}

static int cidr_find(const struct mk_bypass_mgr *m, const struct mk_cidr *c)
{
	unsigned int i;

	for (i = 0; i < m->ncidr; i++)
		if (m->cidr[i].family == c->family && m->cidr[i].prefix == c->prefix &&
		    !memcmp(m->cidr[i].addr, c->addr, sizeof(c->addr)))
			return (int)i;
	return -1;
}

static json_t *cmd_cidr(struct mk_bypass_mgr *m, enum mk_bypass_op op, json_t *args, char *buf,
			size_t len, const char **why)
{
	const char *s = arg_str(args, "prefix");
	struct mk_cidr c;
	unsigned int i;
	int at, err = 0;
	json_t *a;

	if (op == MK_BYPASS_OP_CIDR_LIST) {
		a = json_array();
		for (i = 0; i < m->ncidr; i++)
			json_array_append_new(a, cidr_json(&m->cidr[i]));
		return a;
	}
	if (!s || mk_cidr_parse(s, &c)) {
		snprintf(buf, len, "prefix: '%.48s' is not an IPv4 or IPv6 address or prefix",
			 s ? s : "");
		*why = buf;
		return NULL;
	}
	at = cidr_find(m, &c);
	if (op == MK_BYPASS_OP_CIDR_ADD && at >= 0) {
		*why = "prefix: listed already";
		return NULL;
	}
	if (op == MK_BYPASS_OP_CIDR_DEL && at < 0) {
		*why = "prefix: not listed";
		return NULL;
	}
	if (op == MK_BYPASS_OP_CIDR_ADD && m->ncidr == m->cidr_cap) {
		unsigned int cap = m->cidr_cap ? m->cidr_cap * 2 : 16;
		struct mk_cidr *n = realloc(m->cidr, cap * sizeof(*n));

		if (!n) {
			*why = "prefix: no memory";
			return NULL;
		}
		m->cidr = n;
		m->cidr_cap = cap;
	}
	for (i = 0; i < m->nloaders && !err; i++) {
		int af = c.family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET;

		err = op == MK_BYPASS_OP_CIDR_ADD ?
			      mk_loader_cidr_add(m->loaders[i], af, c.addr, c.prefix) :
			      mk_loader_cidr_del(m->loaders[i], af, c.addr, c.prefix);
	}
	if (err) {
		snprintf(buf, len, "prefix: the kernel refused it: %s", strerror(-err));
		*why = buf;
		return NULL;
	}
	if (op == MK_BYPASS_OP_CIDR_ADD)
		m->cidr[m->ncidr++] = c;
	else
		m->cidr[at] = m->cidr[--m->ncidr];
	return cidr_json(&c);
}

/* @c into every interface's CIDR map (@add) or out of it; 0 or the first -errno. */
static int cidr_apply(struct mk_bypass_mgr *m, const struct mk_cidr *c, int add)
{
	int af = c->family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, err = 0, e;
	unsigned int i;

	for (i = 0; i < m->nloaders; i++) {
		e = add ? mk_loader_cidr_add(m->loaders[i], af, c->addr, c->prefix) :
			  mk_loader_cidr_del(m->loaders[i], af, c->addr, c->prefix);
		if (e && !err)
			err = e;
		if (e && add)
			break;
	}
	return err;
}

static int cidr_in(const struct mk_cidr *list, unsigned int n, const struct mk_cidr *c)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (list[i].family == c->family && list[i].prefix == c->prefix &&
		    !memcmp(list[i].addr, c->addr, sizeof(c->addr)))
			return 1;
	return 0;
}

/*
 * The whole list becomes args.prefixes (a configuration reload): the
 * difference goes to the maps, additions first, so that a prefix in both
 * lists never leaves them. An addition the kernel refuses undoes the ones
 * before it and nothing changes.
 */
static json_t *cmd_cidr_set(struct mk_bypass_mgr *m, json_t *args, char *buf, size_t len,
			    const char **why)
{
	json_t *list = json_object_get(args, "prefixes"), *added, *removed, *it;
	struct mk_cidr *want;
	unsigned int n = 0, i, done;
	size_t k;
	int err;

	if (!json_is_array(list)) {
		*why = "prefixes: not a list";
		return NULL;
	}
	want = calloc(json_array_size(list) + 1, sizeof(*want));
	if (!want)
		return NULL;
	json_array_foreach(list, k, it)
	{
		const char *s = json_string_value(it);
		struct mk_cidr c;

		if (!s || mk_cidr_parse(s, &c)) {
			snprintf(buf, len, "prefixes[%zu]: '%.48s' is not an IPv4 or IPv6 prefix",
				 k, s ? s : "");
			*why = buf;
			free(want);
			return NULL;
		}
		if (!cidr_in(want, n, &c))
			want[n++] = c;
	}
	for (i = 0; i < n; i++) {
		if (cidr_in(m->cidr, m->ncidr, &want[i]))
			continue;
		err = cidr_apply(m, &want[i], 1);
		if (!err)
			continue;
		/* undo the additions so far: the list in force stays as it was */
		for (done = 0; done <= i; done++)
			if (!cidr_in(m->cidr, m->ncidr, &want[done]))
				cidr_apply(m, &want[done], 0);
		snprintf(buf, len, "bypass.cidr: the kernel refused %.60s: %s",
			 json_string_value(json_array_get(list, i)) ?: "?", strerror(-err));
		*why = buf;
		free(want);
		return NULL;
	}
	added = json_array();
	removed = json_array();
	for (i = 0; i < n; i++)
		if (!cidr_in(m->cidr, m->ncidr, &want[i]))
			json_array_append_new(added, cidr_json(&want[i]));
	for (i = 0; i < m->ncidr; i++) {
		if (cidr_in(want, n, &m->cidr[i]))
			continue;
		err = cidr_apply(m, &m->cidr[i], 0);
		if (err)
			mk_warn("bypass.cidr: removing a prefix: %s", strerror(-err));
		json_array_append_new(removed, cidr_json(&m->cidr[i]));
	}
	free(m->cidr);
	m->cidr = want;
	m->ncidr = n;
	m->cidr_cap = (unsigned int)json_array_size(list) + 1;
	return json_pack("{s:o,s:o}", "added", added, "removed", removed);
}

static void command(struct mk_bypass_mgr *m)
{
	json_t *r = NULL;

	if (!atomic_load_explicit(&m->cmd_pending, memory_order_acquire))
		return;
	pthread_mutex_lock(&m->cmd_lock);
	m->cmd_why = NULL;
	switch (m->cmd_op) {
	case MK_BYPASS_OP_LIST:
		r = cmd_list(m);
		break;
	case MK_BYPASS_OP_ADD:
		r = cmd_add(m, m->cmd_args, m->cmd_buf, m->cmd_len, &m->cmd_why);
		break;
	case MK_BYPASS_OP_DEL:
		r = cmd_del(m, m->cmd_args, m->cmd_buf, m->cmd_len, &m->cmd_why);
		break;
	case MK_BYPASS_OP_CIDR_SET:
		r = cmd_cidr_set(m, m->cmd_args, m->cmd_buf, m->cmd_len, &m->cmd_why);
		break;
	default:
		r = cmd_cidr(m, m->cmd_op, m->cmd_args, m->cmd_buf, m->cmd_len, &m->cmd_why);
		break;
	}
	m->cmd_result = r;
	m->cmd_done = 1;
	atomic_store_explicit(&m->cmd_pending, 0, memory_order_release);
	pthread_cond_signal(&m->cmd_cond);
	pthread_mutex_unlock(&m->cmd_lock);
}

json_t *mk_bypass_mgr_command(struct mk_bypass_mgr *m, enum mk_bypass_op op, json_t *args,
			      char *buf, size_t len, const char **why)
{
	json_t *r;

	pthread_mutex_lock(&m->cmd_lock);
	m->cmd_op = op;
	m->cmd_args = args;
	m->cmd_buf = buf;
	m->cmd_len = len;
	m->cmd_done = 0;
	m->cmd_result = NULL;
	atomic_store_explicit(&m->cmd_pending, 1, memory_order_release);
	mk_bell_ring(&m->bell);
	if (!m->started) {
		/* no thread (tests): the caller's thread is the manager's */
		pthread_mutex_unlock(&m->cmd_lock);
		command(m);
		pthread_mutex_lock(&m->cmd_lock);
	}
	/*
	 * No timeout: the arguments and the buffer are the caller's until the
	 * manager is done, and it takes the command at its next wake-up, a
	 * request batch or a walk away.
	 */
	while (!m->cmd_done)
		pthread_cond_wait(&m->cmd_cond, &m->cmd_lock);
	r = m->cmd_result;
	*why = m->cmd_why;
	pthread_mutex_unlock(&m->cmd_lock);
	if (!r && !*why)
		*why = "no memory";
	return r;
}

/* ---- the thread --------------------------------------------------------------------------- */

/* @fill: scan the table for its fill level too (a walk's worth of reads: with the walks). */
static void publish(struct mk_bypass_mgr *m, int fill)
{
	m->st.entries = m->nentries;
	m->st.map_limit = m->map_limit;
	if (m->nloaders && fill) {
		m->st.table_used = mk_loader_bypass_table_used(m->loaders[0]);
		m->st.map_size = mk_loader_bypass_map_size(m->loaders[0]);
		m->st.table_size = MK_BYPASS_TABLE_SLOTS;
	}
	m->st.map_used = m->nmap;
	pthread_mutex_lock(&m->stats_lock);
	m->pub = m->st;
	pthread_mutex_unlock(&m->stats_lock);
}

/* Shutdown: the driver's counts of every owned flow to its worker; the entries stay (pinned). */
static void final_news(struct mk_bypass_mgr *m)
{
	struct mgr_entry *e;
	unsigned int b, tries;

	requests(m);
	for (b = 0; b < BUCKETS; b++)
		for (e = m->buckets[b]; e; e = e->next)
			if (e->worker >= 0 && maps_read(m, e))
				news_entry(m, e, MK_BYPASS_NEWS_FINAL);
	/* the workers are draining their rings and read their news meanwhile */
	for (tries = 0; m->deferred && tries < 200; tries++) {
		struct timespec ts = { 0, 10000000 };

		news_flush(m);
		if (m->deferred)
			nanosleep(&ts, NULL);
	}
	atomic_store_explicit(&m->final_done, 1, memory_order_release);
}

static int has_work(struct mk_bypass_mgr *m)
{
	unsigned int w;

	if (atomic_load_explicit(&m->cmd_pending, memory_order_acquire) ||
	    atomic_load_explicit(&m->stop, memory_order_acquire) ||
	    (atomic_load_explicit(&m->finishing, memory_order_acquire) &&
	     !atomic_load_explicit(&m->final_done, memory_order_acquire)))
		return 1;
	for (w = 0; w < m->nworkers; w++)
		if (mk_spsc_count(&m->req[w]))
			return 1;
	return 0;
}

void mk_bypass_mgr_poll(struct mk_bypass_mgr *m, int do_walk)
{
	news_flush(m);
	requests(m);
	command(m);
	if (do_walk)
		walk(m);
	publish(m, do_walk);
}

/*
 * mk_bell_sleep() with the manager's own timeout: idle, it wakes for the
 * next walk only (every bypass.expiry-interval), not every 20 ms.
 */
static void mgr_sleep(struct mk_bypass_mgr *m, uint32_t seq, uint64_t ns)
{
	struct timespec ts;

	if (ns > 1000000000ull * 3600)
		ns = 1000000000ull * 3600;
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	m->bell.sleeps++;
	syscall(SYS_futex, &m->bell.seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
	atomic_store_explicit(&m->bell.armed, 0, memory_order_relaxed);
}

static void *mgr_main(void *arg)
{
	struct mk_bypass_mgr *m = arg;
	uint64_t interval = (uint64_t)m->cfg.expiry_interval * 1000000000ull, now;

	m->next_walk_ns = now_ns(CLOCK_MONOTONIC) + interval;
	while (!atomic_load_explicit(&m->stop, memory_order_acquire)) {
		uint32_t seq;

		m->st.cnt[MK_BYPASS_MGR_WAKEUPS]++;
		now = now_ns(CLOCK_MONOTONIC);
		mk_bypass_mgr_poll(m, now >= m->next_walk_ns);
		if (now >= m->next_walk_ns)
			m->next_walk_ns = now + interval;
		if (atomic_load_explicit(&m->finishing, memory_order_acquire) &&
		    !atomic_load_explicit(&m->final_done, memory_order_acquire))
			final_news(m);
		/* arm, re-check, sleep (bell.h) until a ring, the next walk or a retry of news */
		seq = mk_bell_arm(&m->bell);
		if (has_work(m))
			mk_bell_disarm(&m->bell);
		else
			mgr_sleep(m, seq, m->deferred ? DEFER_RETRY_NS : m->next_walk_ns - now);
	}
	news_flush(m);
	publish(m, 1);
	return NULL;
}

/* ---- life cycle --------------------------------------------------------------------------- */

int mk_bypass_mgr_new(struct mk_bypass_mgr **out, const struct mk_bypass_cfg *cfg,
		      const struct mk_flow_cfg *flow, struct mk_loader *const *loaders,
		      unsigned int nloaders, unsigned int nworkers, const struct mk_cidr *cidr,
		      unsigned int ncidr)
{
	struct mk_bypass_mgr *m = calloc(1, sizeof(*m));
	uint32_t cap = 0, msz;
	unsigned int i;
	int err = -ENOMEM;

	if (!m)
		return -ENOMEM;
	m->cfg = *cfg;
	m->flow = *flow;
	m->nworkers = nworkers;
	m->nloaders = nloaders;
	m->deferred_tail = &m->deferred;
	pthread_mutex_init(&m->stats_lock, NULL);
	pthread_mutex_init(&m->cmd_lock, NULL);
	pthread_cond_init(&m->cmd_cond, NULL);
	m->loaders = calloc(nloaders ? nloaders : 1, sizeof(*m->loaders));
	m->req = calloc(nworkers, sizeof(*m->req));
	m->news = calloc(nworkers, sizeof(*m->news));
	m->emergency = calloc(nworkers, sizeof(*m->emergency));
	m->buckets = calloc(BUCKETS, sizeof(*m->buckets));
	if (!m->loaders || !m->req || !m->news || !m->emergency || !m->buckets)
		goto fail;
	for (i = 0; i < nworkers; i++) {
		/* the news ring has room for every answer to a full request ring, twice */
		err = mk_spsc_init(&m->req[i], cfg->queue_size, sizeof(struct mgr_req));
		if (!err)
			err = mk_spsc_init(&m->news[i], cfg->queue_size * 2,
					   sizeof(struct mk_worker_bypass_msg));
		if (err)
			goto fail;
	}
	/*
	 * The LRU map: an insert into a full one evicts some other flow, which
	 * then comes back to its worker for inspection; the manager stops at
	 * 7/8 of it and bypasses further flows locally instead.
	 */
	m->map_limit = UINT32_MAX;
	for (i = 0; i < nloaders; i++) {
		m->loaders[i] = loaders[i];
		msz = mk_loader_bypass_map_size(loaders[i]);
		if (msz - msz / 8 < m->map_limit)
			m->map_limit = msz - msz / 8;
		cap = MK_BYPASS_TABLE_SLOTS + m->map_limit;
	}
	m->max_flows = cfg->max_flows;
	if (nloaders && (!m->max_flows || m->max_flows > cap))
		m->max_flows = cap;
	if (ncidr) {
		m->cidr = malloc(ncidr * sizeof(*m->cidr));
		if (!m->cidr)
			goto fail;
		memcpy(m->cidr, cidr, ncidr * sizeof(*cidr));
		m->ncidr = m->cidr_cap = ncidr;
	}
	*out = m;
	return 0;
fail:
	mk_bypass_mgr_free(m);
	return err ? err : -ENOMEM;
}

int mk_bypass_mgr_start(struct mk_bypass_mgr *m)
{
	int err;

	/* what a pinned map kept from the previous run: adopted, expired as ours */
	walk(m);
	if (m->st.cnt[MK_BYPASS_MGR_ADOPTED])
		mk_info("bypass: %llu flows from the pinned maps picked up",
			(unsigned long long)m->st.cnt[MK_BYPASS_MGR_ADOPTED]);
	publish(m, 1);
	err = -pthread_create(&m->thread, NULL, mgr_main, m);
	if (err) {
		mk_err("bypass manager: %s", strerror(-err));
		return err;
	}
	m->started = 1;
	return 0;
}

void mk_bypass_mgr_finish(struct mk_bypass_mgr *m)
{
	atomic_store_explicit(&m->finishing, 1, memory_order_release);
	mk_bell_ring(&m->bell);
	if (!m->started)
		final_news(m);
}

int mk_bypass_mgr_final_done(struct mk_bypass_mgr *m)
{
	return atomic_load_explicit(&m->final_done, memory_order_acquire);
}

void mk_bypass_mgr_stop(struct mk_bypass_mgr *m)
{
	if (!m->started)
		return;
	atomic_store_explicit(&m->stop, 1, memory_order_release);
	atomic_fetch_add_explicit(&m->bell.seq, 1, memory_order_seq_cst);
	mk_bell_ring(&m->bell);
	pthread_join(m->thread, NULL);
	m->started = 0;
}

void mk_bypass_mgr_free(struct mk_bypass_mgr *m)
{
	struct mgr_entry *e, *next;
	struct mgr_news *n;
	unsigned int i;

	if (!m)
		return;
	mk_bypass_mgr_stop(m);
	for (i = 0; m->buckets && i < BUCKETS; i++)
		for (e = m->buckets[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	while ((n = m->deferred)) {
		m->deferred = n->next;
		free(n);
	}
	for (i = 0; i < m->nworkers; i++) {
		if (m->req)
			mk_spsc_destroy(&m->req[i]);
		if (m->news)
			mk_spsc_destroy(&m->news[i]);
	}
	free(m->buckets);
	free(m->req);
	free(m->news);
	free(m->emergency);
	free(m->loaders);
	free(m->cidr);
	pthread_mutex_destroy(&m->stats_lock);
	pthread_mutex_destroy(&m->cmd_lock);
	pthread_cond_destroy(&m->cmd_cond);
	free(m);
}

/* ---- the workers' side -------------------------------------------------------------------- */

int mk_bypass_mgr_request(struct mk_bypass_mgr *m, unsigned int worker,
			  const struct mk_flow_key *key, uint64_t flow_id)
{
	struct mgr_req r = { .key = *key, .flow_id = flow_id, .t_ns = now_ns(CLOCK_MONOTONIC) };

	if (worker >= m->nworkers || mk_spsc_push(&m->req[worker], &r))
		return -ENOBUFS;
	mk_bell_ring(&m->bell);
	return 0;
}

int mk_bypass_mgr_request_drop(struct mk_bypass_mgr *m, unsigned int worker,
			       const struct mk_flow_key *key, int block)
{
	struct mgr_req r = { .key = *key, .t_ns = now_ns(CLOCK_MONOTONIC), .drop = block ? 1 : 2 };

	if (worker >= m->nworkers || mk_spsc_push(&m->req[worker], &r))
		return -ENOBUFS;
	mk_bell_ring(&m->bell);
	return 0;
}

unsigned int mk_bypass_mgr_news(struct mk_bypass_mgr *m, unsigned int worker,
				struct mk_worker_bypass_msg *out, unsigned int max)
{
	return worker < m->nworkers ? mk_spsc_pop_burst(&m->news[worker], out, max) : 0;
}

void mk_bypass_mgr_set_emergency(struct mk_bypass_mgr *m, unsigned int worker, int on)
{
	if (worker < m->nworkers)
		atomic_store_explicit(&m->emergency[worker], !!on, memory_order_relaxed);
}

void mk_bypass_mgr_stats(struct mk_bypass_mgr *m, struct mk_bypass_mgr_stats *out)
{
	pthread_mutex_lock(&m->stats_lock);
	*out = m->pub;
	pthread_mutex_unlock(&m->stats_lock);
}

json_t *mk_bypass_mgr_stats_json(struct mk_bypass_mgr *m)
{
	struct mk_bypass_mgr_stats s;
	json_t *o = json_object(), *h = json_object(), *lat = json_object();
	unsigned int i;

	mk_bypass_mgr_stats(m, &s);
	for (i = 0; i < MK_BYPASS_MGR_CNT_MAX; i++)
		json_object_set_new(o, mk_bypass_mgr_counter_names[i],
				    json_integer((json_int_t)s.cnt[i]));
#define SET(k, v) json_object_set_new(o, k, json_integer((json_int_t)(v)))
	SET("entries", s.entries);
	SET("table_used", s.table_used);
	SET("table_size", s.table_size);
	SET("map_used", s.map_used);
	SET("map_size", s.map_size);
	SET("map_limit", s.map_limit);
	SET("queue_max", s.queue_max);
	SET("walk_max_us", s.walk_max_us);
#undef SET
	for (i = 0; i < MK_BYPASS_LAT_BUCKETS; i++)
		json_object_set_new(h, mk_bypass_lat_names[i],
				    json_integer((json_int_t)s.lat_hist[i]));
	json_object_set_new(lat, "max_us", json_integer((json_int_t)(s.lat_max_ns / 1000)));
	json_object_set_new(lat, "sum_us", json_integer((json_int_t)(s.lat_sum_ns / 1000)));
	json_object_set_new(
		lat, "avg_us",
		json_integer(
			(json_int_t)(s.cnt[MK_BYPASS_MGR_INSERTED] + s.cnt[MK_BYPASS_MGR_ALREADY] ?
					     s.lat_sum_ns / 1000 /
						     (s.cnt[MK_BYPASS_MGR_INSERTED] +
						      s.cnt[MK_BYPASS_MGR_ALREADY]) :
					     0)));
	json_object_set_new(lat, "histogram", h);
	json_object_set_new(o, "insert_latency", lat);
	return o;
}

/* ---- tuples ------------------------------------------------------------------------------- */

static int port_of(const char *s, const char *field, uint16_t *out, char *buf, size_t len)
{
	char *end;
	unsigned long v;

	if (!s || !*s) {
		snprintf(buf, len, "%s: missing", field);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v > 65535 || *s == '-' || *s == '+' || *s == ' ') {
		snprintf(buf, len, "%s: '%.32s' is not a port (0-65535)", field, s);
		return -EINVAL;
	}
	*out = htons((uint16_t)v);
	return 0;
}

static int addr_of(const char *s, const char *field, uint32_t *a, int *family, char *buf,
		   size_t len)
{
	memset(a, 0, 16);
	if (s && inet_pton(AF_INET, s, a) == 1) {
		*family = MK_FAMILY_IPV4;
		return 0;
	}
	if (s && inet_pton(AF_INET6, s, a) == 1) {
		*family = MK_FAMILY_IPV6;
		return 0;
	}
	snprintf(buf, len, "%s: '%.48s' is not an IPv4 or IPv6 address", field, s ? s : "");
	return -EINVAL;
}

int mk_bypass_tuple_parse(const char *proto, const char *src, const char *sport, const char *dst,
			  const char *dport, struct mk_flow_key *key, char *buf, size_t len)
{
	static const struct {
		const char *name;
		uint8_t num;
	} protos[] = { { "tcp", MK_IPPROTO_TCP },
		       { "udp", MK_IPPROTO_UDP },
		       { "icmp", MK_IPPROTO_ICMP },
		       { "icmpv6", MK_IPPROTO_ICMPV6 },
		       { "sctp", MK_IPPROTO_SCTP } };
	uint32_t s[4], d[4];
	uint16_t sp, dp;
	int fs, fd, p = -1;
	unsigned int i;
	char *end;

	for (i = 0; proto && i < MK_ARRAY_SIZE(protos); i++)
		if (!strcasecmp(proto, protos[i].name))
			p = protos[i].num;
	if (p < 0 && proto && *proto >= '0' && *proto <= '9') {
		unsigned long v = strtoul(proto, &end, 10);

		if (!*end && v <= 255)
			p = (int)v;
	}
	if (p < 0) {
		snprintf(buf, len, "proto: '%.16s' is not tcp, udp, icmp, icmpv6, sctp or 0-255",
			 proto ? proto : "");
		return -EINVAL;
	}
	if (addr_of(src, "src", s, &fs, buf, len) || port_of(sport, "sport", &sp, buf, len) ||
	    addr_of(dst, "dst", d, &fd, buf, len) || port_of(dport, "dport", &dp, buf, len))
		return -EINVAL;
	if (fs != fd) {
		snprintf(buf, len, "dst: '%.48s' is not of src's address family", dst);
		return -EINVAL;
	}
	memset(key, 0, sizeof(*key));
	key->proto = (uint8_t)p;
	key->family = (uint8_t)fs;
	mk_flow_key_set_endpoints(key, s, sp, d, dp);
	return 0;
}
