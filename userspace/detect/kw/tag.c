// SPDX-License-Identifier: GPL-2.0-only
/*
 * tag: Suricata's tagging. A rule with tag:session[,count,metric] or
 * tag:host[,count,metric[,src|dst]] marks, when it matches (a post-match
 * action, as flowbits set), the packets that follow: those of its flow, or
 * those to and from one of its addresses. Detection only says a packet is
 * tagged (MK_DETECT_V_TAGGED, counted); the pipeline logs it as an EVE
 * `packet` record (docs/rules.md, docs/eve.md).
 *
 * Session tags live in the flow's detection state, one per flow (a later
 * tag replaces it). Host tags live in a table per worker, bounded
 * (MK_TAG_HOSTS slots, a short probe; a full neighbourhood refuses the tag,
 * counted in tag_hosts_full), allocated on the first host tag: a host's
 * flows on other workers are not tagged. Until a rule tags, the packet path
 * pays one test of t->tag_used.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

#define TAG_DEFAULT_COUNT 256 /* Suricata's default: 256 packets */
#define TAG_PROBE 16u

enum { TAG_SESSION = 0, TAG_HOST };

struct tag_spec {
	uint8_t scope;	/* TAG_SESSION, TAG_HOST */
	uint8_t metric; /* enum mk_tag_metric */
	uint8_t src;	/* host: the source's address (else the destination's) */
	uint32_t count;
};

struct mk_tag_host {
	uint8_t used, family, metric;
	uint32_t addr[4];
	uint64_t left;
	uint64_t until_us;
};

static int setup_tag(struct mk_rule_build *rb, const char *value)
{
	static const char *const metrics[] = { "packets", "seconds", "bytes" };
	char *v = strdup(value), *args[5], *tok, *save = NULL;
	struct tag_spec *ts = calloc(1, sizeof(*ts));
	unsigned int n = 0, i;

	if (!v || !ts) {
		free(v);
		free(ts);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	for (tok = strtok_r(v, ",", &save); tok && n < 5; tok = strtok_r(NULL, ",", &save))
		args[n++] = mk_strtrim(tok);
	if (n == 0 || n == 2 || n > 4) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.60s': expected session|host[, count, packets|seconds|bytes[, "
			     "src|dst]]",
			     value);
		goto err;
	}
	if (!strcmp(args[0], "session")) {
		ts->scope = TAG_SESSION;
	} else if (!strcmp(args[0], "host")) {
		ts->scope = TAG_HOST;
	} else {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.30s' is not session or host", args[0]);
		goto err;
	}
	ts->count = TAG_DEFAULT_COUNT;
	ts->metric = MK_TAG_PACKETS;
	if (n >= 3) {
		if (mk_parse_u32(args[1], &ts->count) || ts->count == 0) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "count '%.30s' is not a number from 1 to 4294967295", args[1]);
			goto err;
		}
		for (i = 0; i < MK_ARRAY_SIZE(metrics) && strcmp(args[2], metrics[i]); i++)
			;
		if (i == MK_ARRAY_SIZE(metrics)) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "metric '%.30s' is not packets, seconds or bytes", args[2]);
			goto err;
		}
		ts->metric = (uint8_t)(MK_TAG_PACKETS + i);
	}
	if (n == 4) {
		if (ts->scope != TAG_HOST) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "direction '%.30s': only a host tag takes src or dst",
				     args[3]);
			goto err;
		}
		if (!strcmp(args[3], "src")) {
			ts->src = 1;
		} else if (strcmp(args[3], "dst")) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "direction '%.30s' is not src or dst", args[3]);
			goto err;
		}
	}
	free(v);
	return mk_rule_add_sm(rb, MK_LIST_POST, &mk_kw_tag, ts);
err:
	free(v);
	free(ts);
	return -1;
}

/* Starts a tag's budget at @now: packets or bytes left, or the time it ends. */
static void tag_start(uint8_t metric, uint32_t count, uint64_t now, uint64_t *left,
		      uint64_t *until_us)
{
	*left = count;
	*until_us = metric == MK_TAG_SECONDS ? now + (uint64_t)count * 1000000 :
					       now + MK_TAG_HOST_MAX_US;
}

/* Whether a packet of @len bytes at @now is covered; uses the budget. 0 once it is spent. */
static int tag_take(uint8_t metric, uint64_t *left, uint64_t until_us, uint64_t now, uint32_t len)
{
	if (metric == MK_TAG_SECONDS)
		return now <= until_us;
	if (!*left)
		return 0;
	if (metric == MK_TAG_PACKETS)
		(*left)--;
	else
		*left -= len < *left ? len :
				       *left; /* the packet that crosses the limit is tagged */
	return 1;
}

static uint32_t host_hash(uint8_t family, const uint32_t *a)
{
	uint32_t h = family * 0x9e3779b1u;
	unsigned int i;

	for (i = 0; i < 4; i++)
		h = (h ^ a[i]) * 0x85ebca6bu;
	return h ^ h >> 16;
}

/* The slot of @addr, or NULL; expired slots on the way are freed, *@free_slot the first free. */
static struct mk_tag_host *host_find(struct mk_detect_thread *t, uint8_t family,
				     const uint32_t *addr, uint64_t now,
				     struct mk_tag_host **free_slot)
{
	uint32_t h = host_hash(family, addr), i;

	if (free_slot)
		*free_slot = NULL;
	for (i = 0; i < TAG_PROBE; i++) {
		struct mk_tag_host *s = &t->tag_hosts[(h + i) & (MK_TAG_HOSTS - 1)];

		if (s->used && s->until_us < now) {
			s->used = 0;
			t->tag_nhosts--;
		}
		if (s->used && s->family == family && !memcmp(s->addr, addr, sizeof(s->addr)))
			return s;
		if (!s->used && free_slot && !*free_slot)
			*free_slot = s;
	}
	return NULL;
}

static void tag_host(const struct mk_match_ctx *mc, const struct tag_spec *ts, uint64_t now)
{
	struct mk_detect_thread *t = mc->t;
	const struct mk_flow *f = mc->flow;
	struct mk_tag_host *s, *free_slot;
	uint32_t addr[4];
	uint8_t family;

	if (mc->pi) {
		family = mc->pi->family;
		memcpy(addr, ts->src ? mc->pi->src : mc->pi->dst, sizeof(addr));
	} else if (f) {
		/* stream data: the direction it flowed in */
		const uint32_t *cli = f->client_hi ? f->key.addr_hi : f->key.addr_lo;
		const uint32_t *srv = f->client_hi ? f->key.addr_lo : f->key.addr_hi;
		int from_server = mc->to_client;

		family = f->key.family;
		memcpy(addr, (ts->src ? !from_server : from_server) ? cli : srv, sizeof(addr));
	} else {
		return;
	}
	if (!t->tag_hosts) {
		t->tag_hosts = calloc(MK_TAG_HOSTS, sizeof(*t->tag_hosts));
		if (!t->tag_hosts) {
			t->cnt[MK_DETECT_CNT_TAG_HOSTS_FULL]++;
			return;
		}
	}
	s = host_find(t, family, addr, now, &free_slot);
	if (!s) {
		s = free_slot;
		if (!s) {
			t->cnt[MK_DETECT_CNT_TAG_HOSTS_FULL]++;
			return;
		}
		t->tag_nhosts++;
	}
	s->used = 1;
	s->family = family;
	memcpy(s->addr, addr, sizeof(s->addr));
	s->metric = ts->metric;
	tag_start(ts->metric, ts->count, now, &s->left, &s->until_us);
}

/* Post-match action: starts (or restarts) the tag. */
static int match_tag(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct tag_spec *ts = sm->ctx;
	uint64_t now = mc->t->pkt.ts_us;
	struct mk_detect_flow *fs;

	if (ts->scope == TAG_HOST) {
		tag_host(mc, ts, now);
	} else {
		fs = mk_detect_flow_state(mc);
		if (!fs)
			return 1; /* no flow: nothing follows */
		fs->tag_metric = ts->metric;
		tag_start(ts->metric, ts->count, now, &fs->tag_left, &fs->tag_until_us);
	}
	mc->t->tag_used = 1;
	return 1;
}

/* One host's tag against the packet; frees the slot when its budget is spent. */
static int host_covers(struct mk_detect_thread *t, uint8_t family, const uint32_t *addr,
		       uint64_t now, uint32_t len)
{
	struct mk_tag_host *s = host_find(t, family, addr, now, NULL);
	int hit;

	if (!s)
		return 0;
	hit = tag_take(s->metric, &s->left, s->until_us, now, len);
	if (!hit || (s->metric != MK_TAG_SECONDS && !s->left)) {
		s->used = 0;
		t->tag_nhosts--;
	}
	return hit;
}

void mk_tag_packet(struct mk_detect_thread *t)
{
	const struct mk_detect_pkt *pkt = &t->pkt;
	const struct mk_parse *p = pkt->parse;
	struct mk_detect_flow *fs = pkt->flow ? pkt->flow->detect : NULL;
	uint64_t now = pkt->ts_us;
	uint32_t len = pkt->ip_caplen;
	int hit = 0, host = 0, again, counted;

	if (!p)
		return; /* a flow end, not a packet */
	/*
	 * The same packet again (TCP port reuse: a second begin, for its new flow):
	 * the same parse, the same bytes, the same time (a batch shares its time).
	 */
	again = p == t->tag_last_parse && pkt->ip == t->tag_last_ip && now == t->tag_last_ts;
	if (fs && fs->tag_metric) {
		hit = tag_take(fs->tag_metric, &fs->tag_left, fs->tag_until_us, now, len);
		if (!hit || (fs->tag_metric != MK_TAG_SECONDS && !fs->tag_left))
			fs->tag_metric = 0;
	}
	if (again) {
		host = t->tag_last_hit & 1; /* the host tags counted it already */
	} else if (t->tag_nhosts) {
		/* both ends: each host's tag counts the packet */
		host = host_covers(t, p->l3.family, p->l3.src, now, len);
		host |= host_covers(t, p->l3.family, p->l3.dst, now, len);
	}
	hit |= host;
	counted = again && (t->tag_last_hit & 2);
	if (hit) {
		t->verdict |= MK_DETECT_V_TAGGED;
		if (!counted)
			t->cnt[MK_DETECT_CNT_TAGGED]++;
	}
	t->tag_last_parse = p;
	t->tag_last_ip = pkt->ip;
	t->tag_last_ts = now;
	t->tag_last_hit = (uint8_t)(host | (hit || counted ? 2 : 0));
}

void mk_tag_thread_free(struct mk_detect_thread *t)
{
	free(t->tag_hosts);
	t->tag_hosts = NULL;
	t->tag_nhosts = 0;
}

MK_KW_DEFINE(tag, MK_KWT_POST, MK_KWF_STREAM_OK, setup_tag, match_tag,
	     "session|host[, count, packets|seconds|bytes[, src|dst]]");

MK_KW_FAMILY_TABLE(tag, MK_KW_FAMILY_TAG);
