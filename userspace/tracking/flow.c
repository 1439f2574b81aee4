// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flow table. Every tracked flow sits in exactly one of twelve lists,
 * one per (protocol class, state); a list shares one timeout, and a packet
 * moves its flow to the tail, so each list is ordered by last-seen time and
 * a sweep only looks at list heads: O(expired), never a full table walk.
 *
 * Under attack (docs/security.md): a bucket chain never holds more than
 * max_chain flows, so crafted collisions cannot make a lookup walk an
 * attacker-lengthened chain; and a full table gives up flows that never got
 * an answer before the ones that did, so a flood of half-open flows pushes
 * out its own kind, not the sessions in progress.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfg_keys.h"
#include "flow.h"
#include "log.h"

#define MK_FLOW_CNT_NAME(name, str, doc) [MK_FLOW_CNT_##name] = str,
const char *const mk_flow_counter_names[MK_FLOW_CNT_MAX] = { MK_FLOW_COUNTERS(MK_FLOW_CNT_NAME) };
#undef MK_FLOW_CNT_NAME

#define US_PER_S 1000000ull
#define MK_FLOW_ID_MASK 0x0007ffffffffffffull

void mk_flow_cfg_defaults(struct mk_flow_cfg *cfg)
{
	static const uint32_t norm[MK_FLOW_PROTO_MAX][MK_FLOW_STATE_MAX] = {
		[MK_FLOW_PROTO_TCP] = { 60, 600, 60, 100 },
		[MK_FLOW_PROTO_UDP] = { 30, 300, 0, 100 },
		[MK_FLOW_PROTO_ICMP] = { 30, 300, 0, 100 },
		[MK_FLOW_PROTO_DEFAULT] = { 30, 300, 0, 100 },
	};
	static const uint32_t emerg[MK_FLOW_PROTO_MAX][MK_FLOW_STATE_MAX] = {
		[MK_FLOW_PROTO_TCP] = { 5, 100, 10, 50 },
		[MK_FLOW_PROTO_UDP] = { 10, 100, 0, 50 },
		[MK_FLOW_PROTO_ICMP] = { 10, 100, 0, 50 },
		[MK_FLOW_PROTO_DEFAULT] = { 10, 100, 0, 50 },
	};

	memset(cfg, 0, sizeof(*cfg));
	cfg->max_flows = 65536;
	cfg->hash_size = 65536;
	cfg->emergency_recovery = 30;
	memcpy(cfg->timeout, norm, sizeof(norm));
	memcpy(cfg->emerg_timeout, emerg, sizeof(emerg));
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser: every input bit reaches every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t mk_flow_id(const struct mk_flow_key *key, uint32_t seed, uint64_t start_us)
{
	uint64_t h = ((uint64_t)mk_flow_hash(key, seed) << 32) | mk_flow_hash(key, ~seed);

	/* 51 bits, as Suricata's: exact in a double (2^53) */
	return mix64(h ^ mix64(start_us)) & MK_FLOW_ID_MASK;
}

static enum mk_flow_proto proto_class(uint8_t proto)
{
	switch (proto) {
	case MK_IPPROTO_TCP:
		return MK_FLOW_PROTO_TCP;
	case MK_IPPROTO_UDP:
		return MK_FLOW_PROTO_UDP;
	case MK_IPPROTO_ICMP:
	case MK_IPPROTO_ICMPV6:
		return MK_FLOW_PROTO_ICMP;
	default:
		return MK_FLOW_PROTO_DEFAULT;
	}
}

int mk_flow_table_init(struct mk_flow_table *t, const struct mk_flow_cfg *cfg, uint32_t seed,
		       mk_flow_end_fn end_fn, void *end_ctx)
{
	uint32_t nb = 1, bits = 0;
	int p, s;

	if (!cfg->max_flows || cfg->max_flows >= MK_FLOW_NIL)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	/* the memory cap is an entry limit in disguise: entries are preallocated */
	if (cfg->memcap && cfg->memcap / sizeof(struct mk_flow) < t->cfg.max_flows)
		t->cfg.max_flows = (uint32_t)(cfg->memcap / sizeof(struct mk_flow));
	if (!t->cfg.max_flows)
		return -EINVAL;
	cfg = &t->cfg;
	while (nb < cfg->hash_size && bits < 31) {
		nb <<= 1;
		bits++;
	}
	if (!bits) {
		nb = 2;
		bits = 1;
	}
	t->bucket_shift = 32 - bits;
	/*
	 * Chains average max_flows / buckets entries; a random hash puts at
	 * most a few times that in one bucket, so the automatic cap (four times
	 * the average, at least 32) only ever cuts chains an attacker made.
	 */
	t->max_chain = cfg->max_chain;
	if (!t->max_chain) {
		uint64_t avg = ((uint64_t)cfg->max_flows + nb - 1) / nb;

		t->max_chain = avg * 4 > 32 ? (uint32_t)(avg * 4) : 32;
	}
	t->entries = calloc(cfg->max_flows, sizeof(*t->entries));
	t->links = calloc(cfg->max_flows, sizeof(*t->links));
	t->buckets = malloc((size_t)nb * sizeof(*t->buckets));
	if (!t->entries || !t->links || !t->buckets) {
		free(t->entries);
		free(t->links);
		free(t->buckets);
		return -ENOMEM;
	}
	memset(t->buckets, 0xff, (size_t)nb * sizeof(*t->buckets));
	/*
	 * Entries never used are handed out from never_used upward before the
	 * free list: calloc'd pages are then first touched by the packet that
	 * needs them, not all at start (13 MB of page clearing per worker).
	 */
	t->free_head = MK_FLOW_NIL;
	t->never_used = 0;
	t->nfree = cfg->max_flows;
	for (p = 0; p < MK_FLOW_PROTO_MAX; p++)
		for (s = 0; s < MK_FLOW_STATE_MAX; s++)
			t->lists[p][s].head = t->lists[p][s].tail = MK_FLOW_NIL;
	t->seed = seed;
	t->end_fn = end_fn;
	t->end_ctx = end_ctx;
	return 0;
}

void mk_flow_table_free(struct mk_flow_table *t)
{
	free(t->entries);
	free(t->links);
	free(t->buckets);
	t->entries = NULL;
	t->links = NULL;
	t->buckets = NULL;
}

static uint32_t bucket_of(const struct mk_flow_table *t, uint32_t hash)
{
	return mk_flow_bucket(hash, t->bucket_shift);
}

static struct mk_flow_list *list_of(struct mk_flow_table *t, const struct mk_flow *f)
{
	return &t->lists[f->proto_class][f->state];
}

static void list_unlink(struct mk_flow_table *t, struct mk_flow *f)
{
	struct mk_flow_list *l = list_of(t, f);

	if (f->lru_prev != MK_FLOW_NIL)
		t->entries[f->lru_prev].lru_next = f->lru_next;
	else
		l->head = f->lru_next;
	if (f->lru_next != MK_FLOW_NIL)
		t->entries[f->lru_next].lru_prev = f->lru_prev;
	else
		l->tail = f->lru_prev;
}

static void list_append(struct mk_flow_table *t, struct mk_flow *f)
{
	struct mk_flow_list *l = list_of(t, f);
	uint32_t idx = (uint32_t)(f - t->entries);

	f->lru_next = MK_FLOW_NIL;
	f->lru_prev = l->tail;
	if (l->tail != MK_FLOW_NIL)
		t->entries[l->tail].lru_next = idx;
	else
		l->head = idx;
	l->tail = idx;
}

static uint64_t timeout_us(const struct mk_flow_table *t, const struct mk_flow *f)
{
	const uint32_t(*to)[MK_FLOW_STATE_MAX] = t->emergency ? t->cfg.emerg_timeout :
								t->cfg.timeout;

	return (uint64_t)to[f->proto_class][f->state] * US_PER_S;
}

/* A flow bypassed in the driver ends when the bypass manager says so, not here. */
static int flow_expired(const struct mk_flow_table *t, const struct mk_flow *f, uint64_t now)
{
	return f->state != MK_FLOW_STATE_BYPASSED && now > f->last_us + timeout_us(t, f);
}

static void flow_end(struct mk_flow_table *t, struct mk_flow *f, enum mk_flow_reason reason,
		     uint64_t ts_us)
{
	static const enum mk_flow_counter cnt_of[] = {
		[MK_FLOW_END_TIMEOUT] = MK_FLOW_CNT_END_TIMEOUT,
		[MK_FLOW_END_FORCED] = MK_FLOW_CNT_END_FORCED,
		[MK_FLOW_END_SHUTDOWN] = MK_FLOW_CNT_END_SHUTDOWN,
		[MK_FLOW_END_TCP_REUSE] = MK_FLOW_CNT_END_TCP_REUSE,
	};
	uint32_t idx = (uint32_t)(f - t->entries);
	uint32_t *pp = &t->buckets[bucket_of(t, t->links[idx].hash)];

	/* the unlink below misses the cache for an evicted flow: load while the record is made */
	__builtin_prefetch(pp, 1);
	/* a packet older than the flow's last one may end it: the record is not older */
	if (ts_us < f->last_us)
		ts_us = f->last_us;
	if (t->end_fn)
		t->end_fn(t->end_ctx, f, reason, ts_us);
	t->cnt[cnt_of[reason]]++;
	while (*pp != idx)
		pp = &t->links[*pp].next;
	*pp = t->links[idx].next;
	list_unlink(t, f);
	f->in_use = 0;
	t->links[idx].next = t->free_head;
	t->free_head = idx;
	t->nfree++;
}

static uint32_t chain_len(const struct mk_flow_table *t, uint32_t b)
{
	uint32_t idx, n = 0;

	for (idx = t->buckets[b]; idx != MK_FLOW_NIL; idx = t->links[idx].next)
		n++;
	return n;
}

static void sweep(struct mk_flow_table *t, uint64_t now)
{
	int p, s;

	for (p = 0; p < MK_FLOW_PROTO_MAX; p++) {
		for (s = 0; s < MK_FLOW_STATE_MAX; s++) {
			struct mk_flow_list *l = &t->lists[p][s];

			while (l->head != MK_FLOW_NIL && flow_expired(t, &t->entries[l->head], now))
				flow_end(t, &t->entries[l->head], MK_FLOW_END_TIMEOUT, now);
		}
	}
	if (t->emergency &&
	    (uint64_t)t->nfree * 100 >= (uint64_t)t->cfg.max_flows * t->cfg.emergency_recovery)
		t->emergency = 0;
}

void mk_flow_table_tick(struct mk_flow_table *t, uint64_t now_us)
{
	if (now_us > t->now_us)
		t->now_us = now_us;
	sweep(t, t->now_us);
}

/* The least recently seen flow in state @s over every protocol, or NULL. */
static struct mk_flow *oldest_in_state(struct mk_flow_table *t, int s)
{
	struct mk_flow *best = NULL;
	int p;

	for (p = 0; p < MK_FLOW_PROTO_MAX; p++) {
		uint32_t h = t->lists[p][s].head;

		if (h != MK_FLOW_NIL && (!best || t->entries[h].last_us < best->last_us))
			best = &t->entries[h];
	}
	return best;
}

/*
 * The eviction victim of a full table: the least recently seen flow that
 * never got an answer (state new: a SYN flood's, a scan's), else the least
 * recently seen closed one (its session is over), else the least recently
 * seen established one. Oldest-of-all alone would hand a flood of half-open flows
 * every established session that is idle for as long as the flood takes to
 * fill the table.
 */
static struct mk_flow *eviction_victim(struct mk_flow_table *t)
{
	struct mk_flow *f = oldest_in_state(t, MK_FLOW_STATE_NEW);

	if (!f)
		f = oldest_in_state(t, MK_FLOW_STATE_CLOSED);
	if (!f)
		f = oldest_in_state(t, MK_FLOW_STATE_ESTABLISHED);
	return f;
}

static struct mk_flow *flow_alloc(struct mk_flow_table *t, uint64_t now)
{
	struct mk_flow *f;

	if (!t->nfree) {
		/* emergency: shorter timeouts first, then evict the oldest */
		if (!t->emergency) {
			t->emergency = 1;
			t->cnt[MK_FLOW_CNT_EMERGENCY]++;
			if (!t->emergency_logged) {
				t->emergency_logged = 1;
				mk_warn("flow table full (%u entries): emergency mode, shorter timeouts",
					t->cfg.max_flows);
			}
		}
		sweep(t, now);
		if (!t->nfree) {
			f = eviction_victim(t);
			if (!f) {
				t->cnt[MK_FLOW_CNT_ALLOC_FAIL]++;
				return NULL;
			}
			flow_end(t, f, MK_FLOW_END_FORCED, now);
		}
	}
	if (t->free_head != MK_FLOW_NIL) {
		f = &t->entries[t->free_head];
		t->free_head = t->links[t->free_head].next;
	} else {
		f = &t->entries[t->never_used++];
	}
	t->nfree--;
	return f;
}

static void flow_init(struct mk_flow_table *t, struct mk_flow *f, const struct mk_parse *p,
		      const struct mk_flow_pkt *pkt)
{
	int from_hi = !!(p->flags & MK_META_F_REVERSE);
	int from_server = 0;

	memset(f, 0, sizeof(*f));
	f->key = p->key;
	f->flow_id = mk_flow_id(&p->key, t->seed, pkt->ts_us);
	f->start_us = f->last_us = pkt->ts_us;
	f->proto_class = proto_class(p->key.proto);
	f->state = MK_FLOW_STATE_NEW;
	/* a SYN-ACK first (SYN lost or before the capture): the receiver initiated */
	if (p->key.proto == MK_IPPROTO_TCP &&
	    (pkt->tcp_flags & (MK_TCP_SYN | MK_TCP_ACK)) == (MK_TCP_SYN | MK_TCP_ACK))
		from_server = 1;
	f->client_hi = from_server ? !from_hi : from_hi;
	f->first_to_client = (uint8_t)from_server;
	f->vlan[0] = p->vlan[0];
	f->vlan[1] = p->vlan[1];
	f->icmp_type = pkt->icmp_type;
	f->icmp_code = pkt->icmp_code;
	if (p->tunnel_depth) {
		f->tunnel_type = p->tunnel_type;
		f->tunnel_depth = p->tunnel_depth;
		f->tunnel_id = p->tunnel_id;
		f->outer_family = p->outer_family;
		memcpy(from_server ? f->outer_server : f->outer_client, p->outer_src, 16);
		memcpy(from_server ? f->outer_client : f->outer_server, p->outer_dst, 16);
	}
	f->in_use = 1;
}

static void flow_set_state(struct mk_flow_table *t, struct mk_flow *f, enum mk_flow_state s)
{
	list_unlink(t, f);
	f->state = s;
	list_append(t, f);
}

static void flow_account(struct mk_flow_table *t, struct mk_flow *f, const struct mk_flow_pkt *pkt,
			 int dir)
{
	enum mk_flow_state s = f->state;

	f->undo_last_us = f->last_us;
	f->undo_tcp_flags = f->tcp_flags[dir];
	f->pkts[dir]++;
	f->bytes[dir] += pkt->len;
	if (pkt->ts_us >= f->last_us)
		f->last_us = pkt->ts_us;
	else
		t->cnt[MK_FLOW_CNT_TIME_REWIND]++;

	if (f->proto_class == MK_FLOW_PROTO_TCP) {
		f->tcp_flags[dir] |= pkt->tcp_flags;
		if (pkt->tcp_flags & MK_TCP_FIN)
			f->fin_seen |= 1 << dir;
		if (pkt->tcp_flags & MK_TCP_RST)
			f->rst_seen |= 1 << dir;
		if ((f->rst_seen || f->fin_seen == 3) && !t->stream_owns_tcp)
			s = MK_FLOW_STATE_CLOSED;
		else if (s == MK_FLOW_STATE_NEW && f->pkts[0] && f->pkts[1] &&
			 (f->tcp_flags[1] & MK_TCP_SYN) && (f->tcp_flags[0] & MK_TCP_ACK))
			s = MK_FLOW_STATE_ESTABLISHED;
		else if (s == MK_FLOW_STATE_NEW && f->pkts[0] && f->pkts[1] &&
			 !(f->tcp_flags[0] & MK_TCP_SYN))
			s = MK_FLOW_STATE_ESTABLISHED; /* picked up midstream */
	} else if (s == MK_FLOW_STATE_NEW && f->pkts[0] && f->pkts[1]) {
		s = MK_FLOW_STATE_ESTABLISHED;
	}
	if (s != f->state) {
		flow_set_state(t, f, s);
	} else if (f->lru_next != MK_FLOW_NIL) {
		list_unlink(t, f);
		list_append(t, f);
	}
}

/*
 * A bucket at its max_chain flows takes a new one only after giving one up:
 * the least recently seen that never got an answer, else the least recently
 * seen, a flow bypassed in the driver (which sees no packets here) last. Crafted collisions then evict their own kind first, and a lookup
 * never walks more than max_chain entries.
 */
static void chain_evict(struct mk_flow_table *t, uint32_t b, uint64_t now)
{
	struct mk_flow *victim = NULL, *c;
	int victim_new = 0;
	uint32_t idx;

	for (idx = t->buckets[b]; idx != MK_FLOW_NIL; idx = t->links[idx].next) {
		int is_new;

		c = &t->entries[idx];
		/* new first, a flow waiting for its driver counts (bypassed) last */
		is_new = c->state == MK_FLOW_STATE_NEW	    ? 2 :
			 c->state == MK_FLOW_STATE_BYPASSED ? 0 :
							      1;
		if (!victim || is_new > victim_new ||
		    (is_new == victim_new && c->last_us < victim->last_us)) {
			victim = c;
			victim_new = is_new;
		}
	}
	t->cnt[MK_FLOW_CNT_CHAIN_EVICT]++;
	flow_end(t, victim, MK_FLOW_END_FORCED, now);
}

struct mk_flow *mk_flow_handle(struct mk_flow_table *t, const struct mk_parse *p,
			       const struct mk_flow_pkt *pkt, int *to_client)
{
	uint32_t b = bucket_of(t, p->hash), idx, depth = 0;
	struct mk_flow *f = NULL;
	int from_hi = !!(p->flags & MK_META_F_REVERSE);

	if (pkt->ts_us > t->now_us)
		t->now_us = pkt->ts_us;
	for (idx = t->buckets[b]; idx != MK_FLOW_NIL; idx = t->links[idx].next) {
		struct mk_flow *c;

		depth++;
		if (t->links[idx].hash != p->hash)
			continue;
		c = &t->entries[idx];
		if (!memcmp(&c->key, &p->key, sizeof(c->key))) {
			f = c;
			break;
		}
	}
	if (depth > t->chain_max)
		t->chain_max = depth;
	if (f) {
		/*
		 * Decided from this flow's own timestamps only, so the outcome
		 * does not depend on which other flows share the worker.
		 */
		if (flow_expired(t, f, pkt->ts_us)) {
			flow_end(t, f, MK_FLOW_END_TIMEOUT, pkt->ts_us);
			f = NULL;
		} else if (f->state == MK_FLOW_STATE_CLOSED &&
			   f->proto_class == MK_FLOW_PROTO_TCP && !t->stream_owns_tcp &&
			   (pkt->tcp_flags & (MK_TCP_SYN | MK_TCP_ACK)) == MK_TCP_SYN) {
			/* a new SYN on a closed TCP flow starts a new session (port reuse) */
			flow_end(t, f, MK_FLOW_END_TCP_REUSE, pkt->ts_us);
			f = NULL;
		}
	}
	if (!f) {
		/* the flow that expired above may have been the one chain entry too many */
		if (depth >= t->max_chain && chain_len(t, b) >= t->max_chain)
			chain_evict(t, b, pkt->ts_us);
		f = flow_alloc(t, pkt->ts_us);
		if (!f)
			return NULL;
		idx = (uint32_t)(f - t->entries);
		flow_init(t, f, p, pkt);
		t->links[idx].hash = p->hash;
		t->links[idx].next = t->buckets[b];
		t->buckets[b] = idx;
		list_append(t, f);
		t->cnt[MK_FLOW_CNT_CREATED]++;
	}
	*to_client = from_hi != f->client_hi;
	flow_account(t, f, pkt, *to_client);
	return f;
}

void mk_flow_table_end(struct mk_flow_table *t, struct mk_flow *f, enum mk_flow_reason reason,
		       uint64_t ts_us)
{
	flow_end(t, f, reason, ts_us);
}

struct mk_flow *mk_flow_lookup(struct mk_flow_table *t, const struct mk_flow_key *key,
			       uint32_t hash)
{
	uint32_t idx;

	for (idx = t->buckets[bucket_of(t, hash)]; idx != MK_FLOW_NIL; idx = t->links[idx].next) {
		struct mk_flow *c = &t->entries[idx];

		if (t->links[idx].hash == hash && !memcmp(&c->key, key, sizeof(*key)))
			return c;
	}
	return NULL;
}

void mk_flow_account_related(struct mk_flow_table *t, struct mk_flow *f,
			     const struct mk_flow_pkt *pkt, int to_client)
{
	if (pkt->ts_us > t->now_us)
		t->now_us = pkt->ts_us;
	f->pkts[to_client]++;
	f->bytes[to_client] += pkt->len;
	if (pkt->ts_us >= f->last_us)
		f->last_us = pkt->ts_us;
	else
		t->cnt[MK_FLOW_CNT_TIME_REWIND]++;
	/* seen now: to the tail of its timeout list */
	if (f->lru_next != MK_FLOW_NIL) {
		list_unlink(t, f);
		list_append(t, f);
	}
}

void mk_flow_set_state(struct mk_flow_table *t, struct mk_flow *f, enum mk_flow_state s)
{
	if (s != f->state)
		flow_set_state(t, f, s);
}

void mk_flow_unaccount(struct mk_flow_table *t, struct mk_flow *f, const struct mk_flow_pkt *pkt,
		       int to_client)
{
	(void)t;
	f->pkts[to_client]--;
	f->bytes[to_client] -= pkt->len;
	f->last_us = f->undo_last_us;
	f->tcp_flags[to_client] = f->undo_tcp_flags;
}

void mk_flow_table_advance(struct mk_flow_table *t, uint64_t now_us)
{
	if (now_us > t->now_us)
		t->now_us = now_us;
}

void mk_flow_table_flush(struct mk_flow_table *t)
{
	int p, s;

	for (p = 0; p < MK_FLOW_PROTO_MAX; p++)
		for (s = 0; s < MK_FLOW_STATE_MAX; s++)
			while (t->lists[p][s].head != MK_FLOW_NIL)
				flow_end(t, &t->entries[t->lists[p][s].head], MK_FLOW_END_SHUTDOWN,
					 t->now_us);
}

uint32_t mk_flow_table_active(const struct mk_flow_table *t)
{
	return t->cfg.max_flows - t->nfree;
}

const char *mk_flow_state_name(const struct mk_flow *f)
{
	static const char *const names[] = { "new", "established", "closed", "bypassed" };

	if (f->bypassed)
		return "bypassed";
	return names[f->state];
}

const char *mk_flow_reason_name(enum mk_flow_reason r)
{
	static const char *const names[] = { "timeout", "forced", "shutdown", "tcp_reuse" };

	return names[r];
}

/*
 * The flow table's keys: `flow:` and `flow-timeouts:` with suricata.yaml's
 * names (docs/configuration.md). The `bypassed` timeouts are how long a
 * flow bypassed in the driver may stay idle there before the bypass manager
 * expires its entry (docs/bypass.md).
 */
static int flow_cfg_check(const void *base, char *msg, size_t len)
{
	const struct mk_flow_cfg *c = base;

	/* the memory cap is an entry limit: one entry must fit */
	if (c->memcap && c->memcap < sizeof(struct mk_flow)) {
		snprintf(
			msg, len,
			"flow.memcap: %llu bytes hold no flow entry (one takes %zu); 0 means no limit",
			(unsigned long long)c->memcap, sizeof(struct mk_flow));
		return -EINVAL;
	}
	return 0;
}

static void flow_cfg_defaults_any(void *base)
{
	mk_flow_cfg_defaults(base);
}

#define C struct mk_flow_cfg
#define TIMEOUT(cls, proto, state, name) \
	MK_CFG_UINT("flow-timeouts." cls "." name, C, timeout[proto][state], 0, 86400)
#define EMERG_TIMEOUT(cls, proto, state, name)                                                  \
	MK_CFG_UINT("flow-timeouts." cls ".emergency-" name, C, emerg_timeout[proto][state], 0, \
		    86400)
/* new, established and bypassed for every class; only TCP flows reach `closed` */
#define TIMEOUTS(cls, proto)                                                         \
	TIMEOUT(cls, proto, MK_FLOW_STATE_NEW, "new"),                               \
		TIMEOUT(cls, proto, MK_FLOW_STATE_ESTABLISHED, "established"),       \
		TIMEOUT(cls, proto, MK_FLOW_STATE_BYPASSED, "bypassed"),             \
		EMERG_TIMEOUT(cls, proto, MK_FLOW_STATE_NEW, "new"),                 \
		EMERG_TIMEOUT(cls, proto, MK_FLOW_STATE_ESTABLISHED, "established"), \
		EMERG_TIMEOUT(cls, proto, MK_FLOW_STATE_BYPASSED, "bypassed")
static const struct mk_cfg_key flow_keys[] = {
	MK_CFG_SIZE("flow.memcap", C, memcap, 0, UINT64_MAX),
	MK_CFG_UINT("flow.hash-size", C, hash_size, 1, 1u << 30),
	MK_CFG_UINT("flow.prealloc", C, max_flows, 1, 1u << 28),
	MK_CFG_UINT("flow.emergency-recovery", C, emergency_recovery, 1, 100),
	MK_CFG_UINT("flow.max-chain", C, max_chain, 0, 1u << 28),
	TIMEOUTS("default", MK_FLOW_PROTO_DEFAULT),
	TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_NEW, "new"),
	TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_ESTABLISHED, "established"),
	TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_CLOSED, "closed"),
	TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_BYPASSED, "bypassed"),
	EMERG_TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_NEW, "new"),
	EMERG_TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_ESTABLISHED, "established"),
	EMERG_TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_CLOSED, "closed"),
	EMERG_TIMEOUT("tcp", MK_FLOW_PROTO_TCP, MK_FLOW_STATE_BYPASSED, "bypassed"),
	TIMEOUTS("udp", MK_FLOW_PROTO_UDP),
	TIMEOUTS("icmp", MK_FLOW_PROTO_ICMP),
};
#undef TIMEOUTS
#undef EMERG_TIMEOUT
#undef TIMEOUT
#undef C

const struct mk_cfg_table mk_flow_cfg_table = {
	.name = "flow",
	.keys = flow_keys,
	.nkeys = MK_ARRAY_SIZE(flow_keys),
	.defaults = flow_cfg_defaults_any,
	.check = flow_cfg_check,
};
