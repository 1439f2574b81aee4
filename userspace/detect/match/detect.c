// SPDX-License-Identifier: GPL-2.0-only
/*
 * Detection at run time, on a worker: packets and reassembled TCP streams
 * against the current engine, alerts collected per packet.
 *
 * Packets: the one rule group of the packet's protocol class, direction
 * and server port; the prefilter scans the payload once (no further than
 * the group's furthest depth) and yields the rules whose anchor it found,
 * which are verified in rule order together with the group's rules without
 * fast pattern. Address-only rules are verified on the first packet of
 * each flow direction only (Suricata's IP-only).
 *
 * Streams: each released chunk is scanned once (with the longest anchor's
 * length before it, for patterns that straddle chunks) and inspected
 * together with a per-direction window of earlier bytes: the last
 * stream_window bytes (while the stream is short, everything from its first
 * byte, for depth/offset/^) and, while a rule is armed (its anchor was
 * seen), everything since the window its anchor was found in, up to
 * stream_reach bytes, so the rule's later parts can still meet it. Armed
 * rules are verified on every chunk until their anchor leaves the window.
 * A match must end in the new bytes, so the same data never alerts twice
 * for a rule and direction. A gap in the stream starts a new window.
 *
 * TCP rules with depth/offset also read each segment on its own; both
 * ways of finding the same bytes give one alert (a small per-flow memory of
 * rule, direction and stream offset), and so does a retransmitted segment.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "detect_int.h"

int mk_detect_prep_new(const struct mk_detect_engine *e, struct mk_detect_prep *p)
{
	uint32_t i, words;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < e->ngroups; i++)
		if (mk_prefilter_scratch(e->groups[i]->pf, &p->scratch)) {
			mk_detect_prep_free(p);
			return -ENOMEM;
		}
	/* one bit per rule, then one summary bit per word of them */
	words = e->nrules / 64 + 1;
	p->words = words;
	p->bits = calloc(words + words / 64 + 1, sizeof(*p->bits));
	p->cand = malloc((e->nrules + 1) * sizeof(*p->cand));
	if (!p->bits || !p->cand) {
		mk_detect_prep_free(p);
		return -ENOMEM;
	}
	return 0;
}

void mk_detect_prep_free(struct mk_detect_prep *p)
{
	mk_prefilter_scratch_free(p->scratch);
	free(p->bits);
	free(p->cand);
	memset(p, 0, sizeof(*p));
}

/*
 * The thread takes engine @e (its reference) with what it needs to use it:
 * prepared by the reload when the master has it for @gen, else made here.
 */
static int thread_adopt(struct mk_detect_thread *t, struct mk_detect_engine *e, uint64_t gen)
{
	struct mk_detect_prep p;

	if ((!t->m || mk_detect_master_take_prep(t->m, gen, &p)) && mk_detect_prep_new(e, &p))
		return -ENOMEM;
	mk_prefilter_scratch_free(t->scratch);
	free(t->cand_bits);
	free(t->cand);
	mk_detect_engine_put(t->eng);
	t->scratch = p.scratch;
	t->cand_bits = p.bits;
	t->cand_sum = p.bits + p.words;
	t->cand = p.cand;
	t->ncand = 0;
	t->eng = e;
	t->gen = gen;
	return 0;
}

static int thread_alloc(struct mk_detect_thread **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

int mk_detect_thread_new(struct mk_detect_master *m, struct mk_detect_thread **out)
{
	struct mk_detect_engine *e;
	int err = thread_alloc(out);

	if (err)
		return err;
	(*out)->m = m;
	e = mk_detect_master_engine(m);
	err = thread_adopt(*out, e, e->stats.generation);
	if (err) {
		mk_detect_engine_put(e);
		free(*out);
		*out = NULL;
		return err;
	}
	mk_detect_master_threads(m, 1);
	return 0;
}

int mk_detect_thread_new_engine(struct mk_detect_engine *e, struct mk_detect_thread **out)
{
	int err = thread_alloc(out);

	if (err)
		return err;
	err = thread_adopt(*out, mk_detect_engine_get(e), e->stats.generation);
	if (err) {
		mk_detect_engine_put(e);
		free(*out);
		*out = NULL;
	}
	return err;
}

void mk_detect_thread_free(struct mk_detect_thread *t)
{
	if (!t)
		return;
	if (t->m)
		mk_detect_master_threads(t->m, -1);
	mk_prefilter_scratch_free(t->scratch);
	mk_pcre_thread_free(t);
	mk_xform_cache_free(t);
	mk_tag_thread_free(t);
	free(t->txcand);
	free(t->txwant);
	free(t->cand_bits);
	free(t->cand);
	free(t->arena);
	free(t->sbuf);
	mk_detect_engine_put(t->eng);
	free(t);
}

const uint64_t *mk_detect_thread_counters(const struct mk_detect_thread *t)
{
	return t->cnt;
}

uint64_t mk_detect_thread_swap_max_ns(const struct mk_detect_thread *t)
{
	return t->swap_max_ns;
}

uint64_t mk_detect_thread_generation(const struct mk_detect_thread *t)
{
	return t->gen;
}

/* ---- flow state -------------------------------------------------------------------- */

struct mk_detect_flow *mk_detect_flow_state(const struct mk_match_ctx *mc)
{
	struct mk_detect_flow *fs;

	if (!mc->flow)
		return NULL;
	if (mc->flow->detect)
		return mc->flow->detect;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	mc->flow->detect = fs;
	return fs;
}

void mk_detect_flow_free(struct mk_detect_thread *t, struct mk_flow *f)
{
	struct mk_detect_flow *fs = f->detect;

	if (!fs)
		return;
	t->large_bytes -= fs->win[0].large + fs->win[1].large;
	free(fs->win[0].buf);
	free(fs->win[1].buf);
	free(fs->win[0].armed);
	free(fs->win[1].armed);
	free(fs->bits);
	free(fs->ints);
	free(fs);
	f->detect = NULL;
}

/* ---- packet decoding ------------------------------------------------------------------- */

static void decode(struct mk_detect_thread *t)
{
	const struct mk_detect_pkt *pkt = &t->pkt;
	const struct mk_parse *p = pkt->parse;
	struct mk_pkt_info *pi = &t->pi;
	uint32_t end, l4, avail;
	const uint8_t *h;

	memset(pi, 0, sizeof(*pi));
	pi->p = p;
	pi->family = p->l3.family;
	pi->proto = p->l3.proto;
	memcpy(pi->src, p->l3.src, sizeof(pi->src));
	memcpy(pi->dst, p->l3.dst, sizeof(pi->dst));
	if (pkt->ip_caplen >= 9)
		pi->ttl = pi->family == MK_FAMILY_IPV6 ? pkt->ip[7] : pkt->ip[8];
	end = p->l3.ip_len < pkt->ip_caplen ? p->l3.ip_len : pkt->ip_caplen;
	if (p->l3.proto == MK_IPPROTO_TCP || p->l3.proto == MK_IPPROTO_UDP ||
	    p->l3.proto == MK_IPPROTO_SCTP) {
		pi->has_ports = 1;
		pi->sport = ntohs(p->l3.sport);
		pi->dport = ntohs(p->l3.dport);
	}
	if (!p->l3.l4_off || p->l3.l4_off < p->l3.l3_off)
		return;
	l4 = (uint32_t)(p->l3.l4_off - p->l3.l3_off);
	if (l4 >= end)
		return;
	h = pkt->ip + l4;
	avail = end - l4;
	switch (p->l3.proto) {
	case MK_IPPROTO_TCP:
		if (avail >= 20) {
			uint32_t hl = (uint32_t)(h[12] >> 4) * 4;

			pi->is_tcp_seg = 1;
			pi->tcp_flags = h[13];
			pi->tcp_seq = mk_rd32(h + 4);
			if (hl >= 20 && hl <= avail) {
				pi->payload = h + hl;
				pi->payload_len = avail - hl;
			}
		}
		break;
	case MK_IPPROTO_UDP:
		if (avail >= 8) {
			pi->payload = h + 8;
			pi->payload_len = avail - 8;
		}
		break;
	case MK_IPPROTO_ICMP:
	case MK_IPPROTO_ICMPV6:
		if (avail >= 4) {
			pi->has_icmp = 1;
			pi->icmp_type = h[0];
			pi->icmp_code = h[1];
		}
		if (avail >= 8) {
			uint8_t ty = h[0];

			pi->icmp_echo = ty == 8 || ty == 0 || ty == 128 || ty == 129;
			pi->icmp_id = mk_rd16(h + 4);
			pi->icmp_seq = mk_rd16(h + 6);
			pi->payload = h + 8;
			pi->payload_len = avail - 8;
		}
		break;
	default:
		break;
	}
}

/* ---- candidates ------------------------------------------------------------------------ */

/*
 * Candidates gather in a bitmap of rule numbers with a summary bit per 64 of
 * them, so that cand_order() lists them in rule order by walking the bits
 * that are set: no sorting, a cost that grows with the candidates, not with
 * the ruleset (a summary word covers 4,096 rules).
 */
static inline void cand_add(struct mk_detect_thread *t, uint32_t rule)
{
	uint64_t bit = 1ull << (rule & 63), *w = &t->cand_bits[rule >> 6];

	if (*w & bit)
		return;
	if (!*w)
		t->cand_sum[rule >> 12] |= 1ull << ((rule >> 6) & 63);
	*w |= bit;
	t->ncand++;
}

/* Lists the candidates in rule order in t->cand and clears the bitmap. */
static void cand_order(struct mk_detect_thread *t)
{
	uint32_t s, n = 0, nsum = t->eng->nrules / 4096 + 1;

	for (s = 0; s < nsum && n < t->ncand; s++) {
		uint64_t sum = t->cand_sum[s];

		t->cand_sum[s] = 0;
		while (sum) {
			uint32_t wi = s * 64 + (uint32_t)__builtin_ctzll(sum);
			uint64_t w = t->cand_bits[wi];

			sum &= sum - 1;
			t->cand_bits[wi] = 0;
			while (w) {
				t->cand[n++] = wi * 64 + (uint32_t)__builtin_ctzll(w);
				w &= w - 1;
			}
		}
	}
}

static void cand_reset(struct mk_detect_thread *t)
{
	t->ncand = 0;
}

/* mk_iponly_lookup()'s callback. */
static void iponly_hit(void *arg, uint32_t rule)
{
	cand_add(arg, rule);
}

static void arm_rule(struct mk_detect_thread *t, struct mk_stream_win *w, uint32_t rule);

/* A pattern the scan reported (once per scan: the database says SINGLEMATCH). */
static void on_hit(void *arg, uint32_t pattern)
{
	struct mk_detect_thread *t = arg;
	const struct mk_pf_db *pf = t->cur_pf;
	uint32_t i;

	for (i = pf->off[pattern]; i < pf->off[pattern + 1]; i++) {
		cand_add(t, pf->rules[i]);
		if (t->cur_win)
			arm_rule(t, t->cur_win, pf->rules[i]);
	}
}

/*
 * A rule verified without the prefilter: in a stream window it is armed as
 * the prefilter would arm it, when its anchor is in buf[0, len), so the
 * window keeps the same bytes either way.
 */
static void cand_add_plain(struct mk_detect_thread *t, uint32_t rule, const uint8_t *buf,
			   uint32_t len, struct mk_stream_win *w)
{
	struct mk_content a;

	cand_add(t, rule);
	if (!w || !t->eng->rules[rule]->anchor[0])
		return;
	mk_prefilter_anchor(t->eng->rules[rule], 0, &a);
	if (mk_content_find(&a, buf, 0, len) >= 0)
		arm_rule(t, w, rule);
}

/*
 * Candidates of group @g for buf[0, len): the rules without fast pattern,
 * and the rules whose anchor the prefilter found; those are also armed in
 * stream window @w when not NULL.
 */
static void group_candidates(struct mk_detect_thread *t, const struct mk_group *g,
			     const uint8_t *buf, uint32_t len, struct mk_stream_win *w)
{
	uint32_t i;

	if (!g)
		return;
	if (t->eng->no_prefilter) {
		for (i = 0; i < g->all.n; i++)
			cand_add_plain(t, g->all.rules[i], buf, len, w);
		return;
	}
	for (i = 0; i < g->nopf.n; i++)
		cand_add_plain(t, g->nopf.rules[i], buf, len, w);
	if (!g->pf || !len)
		return;
	t->cur_pf = g->pf;
	t->cur_win = w;
	t->cnt[MK_DETECT_CNT_PREFILTER_SCANS]++;
	mk_prefilter_scan(g->pf, t->scratch, buf, len, on_hit, t);
}

/* The group of server port @port: its own, or the other ports' group. */
static const struct mk_group *port_group(const struct mk_group_set *gs, uint16_t port)
{
	uint32_t lo = 0, hi = gs->nports;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (gs->ports[mid] < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < gs->nports && gs->ports[lo] == port ? gs->port_groups[lo] : gs->other;
}

/* ---- rule evaluation --------------------------------------------------------------------- */

static bool header_dir(const struct mk_rule *r, uint8_t family, const uint32_t *src,
		       const uint32_t *dst, uint16_t sport, uint16_t dport, int has_ports)
{
	if (!mk_addr_match(&r->src, family, src) || !mk_addr_match(&r->dst, family, dst))
		return false;
	if (!has_ports)
		return r->sp.any && r->dp.any;
	return mk_port_match(&r->sp, sport) && mk_port_match(&r->dp, dport);
}

bool mk_rule_header_match(const struct mk_rule *r, uint8_t family, const uint32_t *src,
			  const uint32_t *dst, uint16_t sport, uint16_t dport, int has_ports)
{
	if (header_dir(r, family, src, dst, sport, dport, has_ports))
		return true;
	return (r->flags & MK_RF_BIDIR) && header_dir(r, family, dst, src, dport, sport, has_ports);
}

/* Runs r->match[from, to); 1 when all match. */
static int run_match(const struct mk_match_ctx *mc, const struct mk_rule *r, uint32_t from,
		     uint32_t to)
{
	uint32_t i;

	for (i = from; i < to; i++)
		if (!r->match[i].kw->match(mc, &r->match[i]))
			return 0;
	return 1;
}

/* Where the match list must pause for the payload: before the first flowint change. */
static uint32_t match_split(const struct mk_rule *r)
{
	uint32_t i;

	for (i = 0; i < r->nmatch; i++)
		if (r->match[i].kw == &mk_kw_flowint && (r->flags & MK_RF_FLOWVAR_SET))
			return i;
	return r->nmatch;
}

static bool suppressed(const struct mk_rule *r, uint8_t family, const uint32_t *src,
		       const uint32_t *dst)
{
	const struct mk_suppress *s;

	for (s = r->suppress; s; s = s->next) {
		switch (s->track) {
		case MK_TRACK_RULE:
			return true;
		case MK_TRACK_SRC:
			if (mk_addr_match(&s->addrs, family, src))
				return true;
			break;
		case MK_TRACK_DST:
			if (mk_addr_match(&s->addrs, family, dst))
				return true;
			break;
		default:
			if (mk_addr_match(&s->addrs, family, src) ||
			    mk_addr_match(&s->addrs, family, dst))
				return true;
		}
	}
	return false;
}

/* A segment alert or an absolute stream match already reported for these bytes? */
static bool dedup_seen(struct mk_detect_flow *fs, uint32_t rule, int dir, uint64_t end, int add)
{
	uint32_t i;

	for (i = 0; i < MK_DEDUP_SLOTS; i++)
		if (fs->dedup[i].used && fs->dedup[i].rule == rule && fs->dedup[i].dir == dir &&
		    fs->dedup[i].seq_end == (uint32_t)end)
			return true;
	if (add) {
		struct mk_seg_alert *s = &fs->dedup[fs->dedup_next++ % MK_DEDUP_SLOTS];

		s->rule = rule;
		s->dir = (uint8_t)dir;
		s->used = 1;
		s->seq_end = (uint32_t)end;
	}
	return false;
}

static void arena_copy(struct mk_detect_thread *t, struct mk_detect_alert *a, const uint8_t *p,
		       uint32_t len)
{
	if (len > 65535)
		len = 65535;
	if (!len) {
		a->payload_len = 0;
		return;
	}
	if (t->arena_used + len > t->arena_cap) {
		size_t cap = t->arena_cap ? t->arena_cap : 4096;
		uint8_t *n;

		while (cap < t->arena_used + len)
			cap *= 2;
		n = realloc(t->arena, cap);
		if (!n) {
			a->payload_len = 0;
			return;
		}
		t->arena = n;
		t->arena_cap = cap;
	}
	memcpy(t->arena + t->arena_used, p, len);
	/* an offset until mk_detect_end(): the arena may move */
	t->alert_off[a - t->alerts] = (uint32_t)t->arena_used;
	a->payload_len = len;
	t->arena_used += len;
}

struct alert_src {
	uint8_t family, proto, has_ports, stream;
	const uint32_t *src, *dst;
	uint16_t sport, dport;
	const uint8_t *payload;
	uint32_t payload_len;
	int to_client;
};

/* The flow's tuple as its record's community_id reads it (output/). */
static void flow_tuple(struct mk_detect_alert *a, const struct mk_flow *f)
{
	const struct mk_flow_key *k = &f->key;

	a->has_flow_tuple = 1;
	a->flow_family = k->family;
	a->flow_proto = k->proto;
	memcpy(a->flow_src, f->client_hi ? k->addr_hi : k->addr_lo, sizeof(a->flow_src));
	memcpy(a->flow_dst, f->client_hi ? k->addr_lo : k->addr_hi, sizeof(a->flow_dst));
	if (k->proto == MK_IPPROTO_ICMP || k->proto == MK_IPPROTO_ICMPV6) {
		a->flow_sport = f->icmp_type;
		a->flow_dport = f->icmp_code;
	} else {
		a->flow_sport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
		a->flow_dport = ntohs(f->client_hi ? k->port_lo : k->port_hi);
	}
}

static void add_alert(struct mk_detect_thread *t, const struct mk_rule *r,
		      const struct mk_match_ctx *mc, const struct alert_src *as)
{
	const struct mk_parse *p = t->pkt.parse;
	struct mk_flow *f = mc->flow;
	struct mk_detect_alert *a;
	struct mk_detect_flow *fs;

	if (t->nalerts == MK_ALERTS_MAX) {
		t->cnt[MK_DETECT_CNT_ALERTS_DROPPED]++;
		return;
	}
	a = &t->alerts[t->nalerts++];
	memset(a, 0, sizeof(*a));
	a->rule = r;
	a->ts_us = t->pkt.ts_us;
	a->family = as->family;
	a->proto = as->proto;
	memcpy(a->src, as->src, sizeof(a->src));
	memcpy(a->dst, as->dst, sizeof(a->dst));
	a->sport = as->sport;
	a->dport = as->dport;
	a->has_ports = as->has_ports;
	a->stream = as->stream;
	a->blocked = t->eng->inline_mode &&
		     (r->action == MK_ACTION_DROP || r->action == MK_ACTION_REJECT);
	if (!as->stream && t->pi.has_icmp) {
		a->has_icmp = 1;
		a->icmp_type = t->pi.icmp_type;
		a->icmp_code = t->pi.icmp_code;
	}
	if (f) {
		a->flow_id = f->flow_id;
		a->flow_start_us = f->start_us;
		memcpy(a->pkts, f->pkts, sizeof(a->pkts));
		memcpy(a->bytes, f->bytes, sizeof(a->bytes));
		fs = mk_detect_flow_state(mc);
		if (fs)
			a->flow_seq = fs->alert_seq++;
		f->alerted = 1;
		flow_tuple(a, f);
	}
	if (p && !as->stream) {
		a->vlan[0] = p->vlan[0];
		a->vlan[1] = p->vlan[1];
		if (p->tunnel_depth) {
			a->tunnel_type = p->tunnel_type;
			a->tunnel_depth = p->tunnel_depth;
			a->tunnel_id = p->tunnel_id;
			a->outer_family = p->outer_family;
			memcpy(a->outer_src, p->outer_src, sizeof(a->outer_src));
			memcpy(a->outer_dst, p->outer_dst, sizeof(a->outer_dst));
		}
	} else if (f) {
		a->vlan[0] = f->vlan[0];
		a->vlan[1] = f->vlan[1];
		if (f->tunnel_depth) {
			a->tunnel_type = f->tunnel_type;
			a->tunnel_depth = f->tunnel_depth;
			a->tunnel_id = f->tunnel_id;
			a->outer_family = f->outer_family;
			memcpy(a->outer_src, as->to_client ? f->outer_server : f->outer_client, 16);
			memcpy(a->outer_dst, as->to_client ? f->outer_client : f->outer_server, 16);
		}
	}
	arena_copy(t, a, as->payload, as->payload_len);
	t->cnt[MK_DETECT_CNT_ALERTS]++;
}

/* What follows a full match: post-match actions, pass/drop/bypass, suppress, the alert. */
static void on_match(struct mk_detect_thread *t, const struct mk_rule *r,
		     const struct mk_match_ctx *mc, const struct alert_src *as, int dedup_dir,
		     uint64_t dedup_end)
{
	struct mk_detect_flow *fs;
	uint32_t i;

	t->cnt[MK_DETECT_CNT_MATCHES]++;
	if (dedup_dir >= 0) {
		fs = mk_detect_flow_state(mc);
		/* the same bytes already alerted for this rule: retransmission or both paths */
		if (fs && dedup_seen(fs, r->num, dedup_dir, dedup_end, 1))
			return;
	}
	for (i = 0; i < r->npost; i++)
		r->post[i].kw->match(mc, &r->post[i]);
	if (r->action == MK_ACTION_PASS) {
		t->verdict |= MK_DETECT_V_PASS;
		t->stop = 1;
		t->nalerts = 0;
		t->cnt[MK_DETECT_CNT_PASSED]++;
		fs = mk_detect_flow_state(mc);
		if (fs)
			fs->passed = 1;
		return;
	}
	if (r->flags & MK_RF_BYPASS) {
		t->verdict |= MK_DETECT_V_BYPASS;
		if (mc->flow)
			mc->flow->bypassed = 1;
	}
	if (r->flags & MK_RF_NOALERT)
		return;
	if (r->suppress && suppressed(r, as->family, as->src, as->dst)) {
		t->cnt[MK_DETECT_CNT_SUPPRESSED]++;
		return;
	}
	if (t->eng->inline_mode && (r->action == MK_ACTION_DROP || r->action == MK_ACTION_REJECT)) {
		t->verdict |= MK_DETECT_V_DROP;
		if (r->action == MK_ACTION_REJECT)
			t->verdict |= MK_DETECT_V_REJECT |
				      (r->flags & MK_RF_REJECT_SRC ? MK_DETECT_V_REJECT_SRC : 0) |
				      (r->flags & MK_RF_REJECT_DST ? MK_DETECT_V_REJECT_DST : 0);
		t->stop = 1;
		t->cnt[MK_DETECT_CNT_DROPS]++;
		fs = mk_detect_flow_state(mc);
		if (fs)
			fs->dropped = 1;
	}
	add_alert(t, r, mc, as);
}

static bool proto_ok(const struct mk_rule *r, uint8_t proto)
{
	if (r->proto == MK_RP_ICMPV6)
		return proto == MK_IPPROTO_ICMPV6;
	if (r->proto == MK_RP_ICMP)
		return proto == MK_IPPROTO_ICMP || proto == MK_IPPROTO_ICMPV6;
	return true;
}

/* ---- per packet ----------------------------------------------------------------------------- */

void mk_detect_begin(struct mk_detect_thread *t, const struct mk_detect_pkt *pkt)
{
	if (t->m && mk_detect_master_generation(t->m) != t->gen) {
		struct mk_detect_engine *e = mk_detect_master_engine(t->m);
		struct timespec a, b;
		uint64_t ns;

		/* what the swap costs this packet: the new scratch (the old engine is freed elsewhere) */
		clock_gettime(CLOCK_MONOTONIC, &a);
		/* out of memory: keep the old engine and try again next packet */
		if (thread_adopt(t, e, e->stats.generation))
			mk_detect_engine_put(e);
		else
			t->cnt[MK_DETECT_CNT_RELOADS]++;
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec -
		     (uint64_t)a.tv_nsec;
		if (ns > t->swap_max_ns)
			t->swap_max_ns = ns;
	}
	t->pkt = *pkt;
	t->nalerts = 0;
	t->arena_used = 0;
	t->verdict = 0;
	t->stop = 0;
	t->have_pi = 0;
	if (t->tag_used)
		mk_tag_packet(t); /* before this packet's own matches: they tag the next ones */
}

static bool flow_stopped(const struct mk_flow *f)
{
	const struct mk_detect_flow *fs = f ? f->detect : NULL;

	return fs && (fs->passed || fs->dropped);
}

void mk_detect_packet(struct mk_detect_thread *t)
{
	const struct mk_detect_engine *e = t->eng;
	struct mk_flow *f = t->pkt.flow;
	const struct mk_group_set *gs;
	const struct mk_group *g;
	struct mk_pkt_info *pi = &t->pi;
	struct mk_match_ctx mc;
	int pc, dir, first;
	uint32_t i, scan;

	if (!t->pkt.parse || t->stop || flow_stopped(f) || !e->nrules)
		return;
	decode(t);
	t->have_pi = 1;
	t->cnt[MK_DETECT_CNT_PACKETS]++;
	dir = f ? t->pkt.to_client : 0;
	pc = pi->proto == MK_IPPROTO_TCP				      ? MK_PC_TCP :
	     pi->proto == MK_IPPROTO_UDP				      ? MK_PC_UDP :
	     (pi->proto == MK_IPPROTO_ICMP || pi->proto == MK_IPPROTO_ICMPV6) ? MK_PC_ICMP :
										MK_PC_OTHER;
	gs = &e->pkt[pc][dir];
	/* one group: the server's port, the destination towards it, the source back */
	g = pi->has_ports ? port_group(gs, dir ? pi->sport : pi->dport) : gs->other;
	scan = pi->payload_len;
	if (g->scan_bound && g->scan_bound < scan)
		scan = g->scan_bound; /* every anchor lies within depth: no further */
	/* an encrypted session (TLS encryption-handling: default): no payload rule reads it */
	if (f && f->app_encrypted && pi->payload_len) {
		scan = 0;
		t->cnt[MK_DETECT_CNT_ENCRYPTED_SKIPPED]++;
	}
	group_candidates(t, g, pi->payload, scan, NULL);
	/* address-only rules: on the first packet of each direction, as Suricata's */
	first = !f || f->pkts[dir] == 1;
	if (first && e->iponly)
		mk_iponly_lookup(e->iponly, pi->family, pi->src, pi->dst, MK_IPONLY_BIT(pc, dir),
				 iponly_hit, t);
	if (!t->ncand)
		return;
	cand_order(t);
	t->cnt[MK_DETECT_CNT_CANDIDATES] += t->ncand;
	memset(&mc, 0, sizeof(mc));
	mc.t = t;
	mc.pi = pi;
	mc.flow = f;
	mc.fs = f ? f->detect : NULL;
	mc.to_client = dir;
	mc.payload = (struct mk_buf){ .data = pi->payload, .len = pi->payload_len };
	for (i = 0; i < t->ncand && !t->stop; i++) {
		const struct mk_rule *r = e->rules[t->cand[i]];
		struct alert_src as;
		uint32_t split;
		int dedup_dir = -1;
		uint64_t dedup_end = 0;

		if (!proto_ok(r, pi->proto) ||
		    (r->app_proto && (!f || f->app_proto != r->app_proto)) ||
		    (f && f->app_encrypted && (r->flags & MK_RF_PAYLOAD) && pi->payload_len) ||
		    !mk_rule_header_match(r, pi->family, pi->src, pi->dst, pi->sport, pi->dport,
					  pi->has_ports))
			continue;
		split = match_split(r);
		if (!run_match(&mc, r, 0, split))
			continue;
		if (r->buf_mask) {
			uint32_t end = 0;

			if (!mk_buffers_inspect(&mc, r, &end))
				continue;
			/* TCP payload: remember the bytes (retransmissions, stream path) */
			if (pc == MK_PC_TCP && f && pi->is_tcp_seg &&
			    f->proto_class == MK_FLOW_PROTO_TCP) {
				int role = dir ^ f->first_to_client ^
					   mk_tcp_session_swapped(&f->tcp);

				dedup_dir = dir;
				dedup_end =
					mk_tcp_session_seq_offset(&f->tcp, role, pi->tcp_seq + end);
			}
		}
		if (!run_match(&mc, r, split, r->nmatch))
			continue;
		as = (struct alert_src){
			.family = pi->family,
			.proto = pi->proto,
			.has_ports = pi->has_ports,
			.src = pi->src,
			.dst = pi->dst,
			.sport = pi->sport,
			.dport = pi->dport,
			.payload = pi->payload,
			.payload_len = pi->payload_len,
			.to_client = dir,
		};
		on_match(t, r, &mc, &as, dedup_dir, dedup_end);
	}
	cand_reset(t);
}

/* ---- stream windows ------------------------------------------------------------------------ */

/* Grows a buffer to @need bytes (rounded up). 0 or -ENOMEM. */
static int buf_reserve(uint8_t **buf, uint32_t *cap, uint32_t need)
{
	uint32_t c = *cap ? *cap : 256;
	uint8_t *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*buf, c);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = c;
	return 0;
}

/*
 * A window's buffer holds @keep bytes, grown or (back from an armed rule's
 * reach) shrunk; a buffer beyond the plain window's size counts in the
 * worker's large_bytes. 0 or -ENOMEM.
 */
static int win_size(struct mk_detect_thread *t, struct mk_stream_win *w, uint32_t keep)
{
	const struct mk_detect_engine *e = t->eng;
	uint8_t *n;

	if (keep <= e->win_small && w->cap > e->win_small) {
		n = realloc(w->buf, e->win_small);
		if (n) {
			w->buf = n;
			w->cap = e->win_small;
		}
	} else if (buf_reserve(&w->buf, &w->cap, keep)) {
		return -ENOMEM;
	}
	t->large_bytes -= w->large;
	w->large = w->cap > e->win_small ? w->cap : 0;
	t->large_bytes += w->large;
	return 0;
}

/*
 * What the next chunk is inspected with: the head of the stream while it is
 * short (absolute keywords), else the last stream_window bytes, and while a
 * rule is armed everything since the window its anchor was found in, up to
 * stream_reach bytes, as long as the worker's large windows stay within
 * its budget (reach_budget). @data is the window and its new chunk, @len bytes from
 * stream offset w->base. Rules whose anchor is trimmed away disarm.
 */
static void win_keep(struct mk_detect_thread *t, struct mk_stream_win *w, const uint8_t *data,
		     uint32_t len)
{
	const struct mk_detect_engine *e = t->eng;
	uint64_t end = w->base + len, from, plain;
	uint32_t keep, i, n = 0;

	plain = end - (len < e->stream_window ? len : e->stream_window);
	if (w->base == 0 && len <= e->stream_head)
		plain = 0;
	from = plain;
	for (i = 0; i < w->narmed; i++)
		if (w->armed[i].from < from)
			from = w->armed[i].from;
	if (end - from > e->stream_reach)
		from = end - e->stream_reach;
	if (from < w->base)
		from = w->base;
	if (from < plain && end - from > e->win_small &&
	    t->large_bytes - w->large + 2 * (end - from) > e->reach_budget) {
		/* the worker holds enough large windows: this one stays plain */
		from = plain;
		t->cnt[MK_DETECT_CNT_REACH_LIMITED]++;
	}
	keep = (uint32_t)(end - from);
	if (win_size(t, w, keep)) {
		/* out of memory: the next chunk starts a window of its own */
		w->started = 0;
		w->len = 0;
		w->narmed = 0;
		return;
	}
	memmove(w->buf, data + len - keep, keep);
	w->base = from;
	w->len = keep;
	for (i = 0; i < w->narmed; i++)
		if (w->armed[i].until > w->base)
			w->armed[n++] = w->armed[i];
	w->narmed = n;
}

/* ---- armed rules: anchors seen in a direction's window ------------------------------------ */

/*
 * Arms @rule in window @w until the end of its bytes (the list is sorted by
 * rule; MK_ARMED_MAX entries at most).
 */
static void arm_rule(struct mk_detect_thread *t, struct mk_stream_win *w, uint32_t rule)
{
	uint64_t until = t->arm_until;
	uint32_t lo = 0, hi = w->narmed, i, old;

	/* a rule that is its anchor alone matched or not where the anchor is */
	if (t->eng->rules[rule]->bufs[MK_BUF_PAYLOAD].n < 2)
		return;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (w->armed[mid].rule < rule)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->narmed && w->armed[lo].rule == rule) {
		/* the latest occurrence of the anchor is the one kept */
		w->armed[lo].until = until;
		w->armed[lo].from = w->base;
		return;
	}
	if (w->narmed == MK_ARMED_MAX) {
		/* full: the entry whose anchor is oldest goes (counted) */
		for (i = 1, old = 0; i < w->narmed; i++)
			if (w->armed[i].until < w->armed[old].until)
				old = i;
		memmove(w->armed + old, w->armed + old + 1,
			(w->narmed - old - 1) * sizeof(*w->armed));
		w->narmed--;
		if (old < lo)
			lo--;
		t->cnt[MK_DETECT_CNT_ARMED_DROPPED]++;
	}
	if (w->narmed == w->caparmed) {
		uint32_t cap = w->caparmed ? w->caparmed * 2 : 8;
		struct mk_armed *n = realloc(w->armed, cap * sizeof(*n));

		if (!n)
			return; /* out of memory: the rule is only not armed */
		w->armed = n;
		w->caparmed = cap;
	}
	memmove(w->armed + lo + 1, w->armed + lo, (w->narmed - lo) * sizeof(*w->armed));
	w->armed[lo] = (struct mk_armed){ rule, until, w->base };
	w->narmed++;
}

/* ---- per stream chunk -------------------------------------------------------------------- */

/*
 * A released chunk: appended to its direction's window, the new bytes (and
 * the longest pattern's length before them) scanned once. The candidates
 * are the rules whose anchor the scan found and the rules armed by an
 * anchor in an earlier chunk that is still in the window; they are verified
 * on the whole window, a match counting only when it ends in the new bytes.
 */
void mk_detect_stream(struct mk_detect_thread *t, struct mk_flow *f,
		      const struct mk_stream_chunk *c)
{
	const struct mk_detect_engine *e = t->eng;
	const struct mk_flow_key *k = &f->key;
	struct mk_match_ctx mc = { .t = t, .flow = f, .stream = 1 };
	struct mk_detect_flow *fs;
	struct mk_stream_win *w;
	const struct mk_group *g;
	const uint32_t *cli, *srv, *src, *dst;
	uint16_t cport, srv_port;
	uint32_t new_start, len, from, i;
	uint8_t *buf;
	int dir;

	t->app_chunk = NULL; /* the application layer is done with it */
	if (!e->has_stream || !c->len || t->stop || flow_stopped(f))
		return;
	if (f->app_encrypted) {
		t->cnt[MK_DETECT_CNT_ENCRYPTED_SKIPPED]++;
		return;
	}
	fs = mk_detect_flow_state(&mc);
	if (!fs)
		return;
	dir = (c->dir ^ f->first_to_client ^ mk_tcp_session_swapped(&f->tcp)) & 1;
	w = &fs->win[dir];
	if (!w->started || c->gap || c->offset != w->base + w->len) {
		if (w->started)
			t->cnt[MK_DETECT_CNT_STREAM_RESET]++;
		w->started = 1;
		w->base = c->offset;
		w->len = 0;
		w->narmed = 0;
	}
	if (w->gen != t->gen) {
		w->narmed = 0; /* rule numbers of another engine */
		w->gen = t->gen;
	}
	/* the window and the chunk, contiguous in the worker's buffer */
	new_start = w->len;
	len = w->len + c->len;
	if (buf_reserve(&t->sbuf, &t->sbuf_cap, len))
		return;
	buf = t->sbuf;
	if (w->len) /* a window not started yet has no buffer */
		memcpy(buf, w->buf, w->len);
	memcpy(buf + new_start, c->data, c->len);
	t->cnt[MK_DETECT_CNT_CHUNKS]++;
	t->cnt[MK_DETECT_CNT_STREAM_BYTES] += c->len;

	/* the sender of these bytes is the source */
	cli = f->client_hi ? k->addr_hi : k->addr_lo;
	srv = f->client_hi ? k->addr_lo : k->addr_hi;
	cport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
	srv_port = ntohs(f->client_hi ? k->port_lo : k->port_hi);
	src = dir ? srv : cli;
	dst = dir ? cli : srv;

	g = port_group(&e->stream[dir], srv_port);
	/* the new bytes, and enough before them for a pattern that straddles */
	from = g->anchor_maxlen && new_start > g->anchor_maxlen - 1 ?
		       new_start - (g->anchor_maxlen - 1) :
		       0;
	/* anchors seen before: the rest of the rule may be in these bytes */
	for (i = 0; i < w->narmed; i++)
		cand_add(t, w->armed[i].rule);
	t->arm_until = w->base + len;
	group_candidates(t, g, buf + from, len - from, w);
	if (t->ncand) {
		cand_order(t);
		t->cnt[MK_DETECT_CNT_CANDIDATES] += t->ncand;
		mc.fs = fs;
		mc.to_client = dir;
		mc.payload = (struct mk_buf){
			.data = buf, .len = len, .min_end = new_start, .abs_base = w->base
		};
		for (i = 0; i < t->ncand && !t->stop; i++) {
			const struct mk_rule *r = e->rules[t->cand[i]];
			struct alert_src as;
			uint32_t end = 0;
			int dd = -1;

			if ((r->app_proto && f->app_proto != r->app_proto) ||
			    !mk_rule_header_match(r, k->family, src, dst, dir ? srv_port : cport,
						  dir ? cport : srv_port, 1))
				continue;
			if (!run_match(&mc, r, 0, match_split(r)))
				continue;
			if (!mk_buffers_inspect(&mc, r, &end))
				continue;
			if (!run_match(&mc, r, match_split(r), r->nmatch))
				continue;
			if (r->inspect_tcp & MK_INSPECT_PKT)
				dd = dir; /* also read per segment: one alert for the same bytes */
			as = (struct alert_src){
				.family = k->family,
				.proto = MK_IPPROTO_TCP,
				.has_ports = 1,
				.stream = 1,
				.src = src,
				.dst = dst,
				.sport = dir ? srv_port : cport,
				.dport = dir ? cport : srv_port,
				.payload = buf,
				.payload_len = len,
				.to_client = dir,
			};
			on_match(t, r, &mc, &as, dd, w->base + end);
		}
		cand_reset(t);
	}
	win_keep(t, w, buf, len);
}

/* ---- per application transaction ---------------------------------------------------------- */

void mk_detect_stream_app(struct mk_detect_thread *t, struct mk_flow *f,
			  const struct mk_stream_chunk *c)
{
	t->app_chunk = c;
	t->app_chunk_flow = f;
	t->app_chunk_dir = (c->dir ^ f->first_to_client ^ mk_tcp_session_swapped(&f->tcp)) & 1;
}

/*
 * The payload buffer of a transaction rule in direction @dir: the stream
 * window of that direction and, when the application layer is parsing a
 * chunk of it, that chunk after it (the bytes that made the transaction
 * progress). Empty when neither is there.
 */
static struct mk_buf tx_payload(struct mk_detect_thread *t, const struct mk_flow *f, int dir)
{
	const struct mk_detect_flow *fs = f->detect;
	const struct mk_stream_win *w = fs ? &fs->win[dir] : NULL;
	const struct mk_stream_chunk *c =
		t->app_chunk && t->app_chunk_flow == f && t->app_chunk_dir == dir ? t->app_chunk :
										    NULL;
	uint32_t wl = w && w->started ? w->len : 0;
	uint64_t base = w ? w->base : 0;

	/* a chunk that does not continue the window stands alone */
	if (c && (c->gap || c->offset != base + wl)) {
		wl = 0;
		base = c->offset;
	}
	if (!c && !wl)
		return (struct mk_buf){ 0 };
	if (!c)
		return (struct mk_buf){ .data = w->buf, .len = wl, .abs_base = base };
	if (!wl)
		return (struct mk_buf){ .data = c->data, .len = c->len, .abs_base = c->offset };
	if (buf_reserve(&t->sbuf, &t->sbuf_cap, wl + c->len))
		return (struct mk_buf){ 0 };
	memcpy(t->sbuf, w->buf, wl);
	memcpy(t->sbuf + wl, c->data, c->len);
	return (struct mk_buf){ .data = t->sbuf, .len = wl + c->len, .abs_base = base };
}

void mk_detect_tx_state_free(struct mk_detect_tx_state *s)
{
	free(s->done);
	free(s->cand);
	free(s->scanned);
	s->done = s->cand = NULL;
	s->scanned = NULL;
	s->nwords = s->nscanned = 0;
}

/*
 * The transaction rules whose parts @tx now has, in rule order, each once
 * per transaction: the header in the rule's direction, its flow keywords,
 * every buffer read from the transaction. A rule anchored in a transaction
 * prefilter (engine/tx_prefilter.c) is verified only when the scan of its
 * buffer found its anchor.
 */
/* Endpoints of a transaction's flow, client first. */
struct tx_ends {
	const uint32_t *cli, *srv;
	uint16_t cport, sport;
};

/* Transaction rule @i on transaction @tx (its parts are there, not done yet). */
static void tx_rule(struct mk_detect_thread *t, struct mk_flow *f, const struct mk_detect_tx *tx,
		    struct mk_match_ctx *mc, uint32_t i, int pf, const struct tx_ends *ends)
{
	const struct mk_detect_engine *e = t->eng;
	const struct mk_rule *r = e->rules[e->app_rules.rules[i]];
	struct mk_detect_tx_state *st = tx->state;
	unsigned int before = t->nalerts;
	int dir = r->app_to_client;
	struct alert_src as = {
		.family = f->key.family,
		.proto = f->key.proto,
		.has_ports = 1,
		.stream = f->key.proto == MK_IPPROTO_TCP,
		.src = dir ? ends->srv : ends->cli,
		.dst = dir ? ends->cli : ends->srv,
		.sport = dir ? ends->sport : ends->cport,
		.dport = dir ? ends->cport : ends->sport,
		.to_client = dir,
	};

	if (r->app_proto != tx->app_proto || (st->done[i / 64] & 1ull << (i % 64)) ||
	    (tx->progress & r->app_need) != r->app_need)
		return;
	/* `alert udp` and `alert tcp` DNS rules: the transaction's transport too */
	if ((r->proto == MK_RP_UDP && f->key.proto != MK_IPPROTO_UDP) ||
	    (r->proto == MK_RP_TCP && f->key.proto != MK_IPPROTO_TCP))
		return;
	/* on a partial body: done only if it matches (below) */
	if (!(tx->partial & r->app_need))
		st->done[i / 64] |= 1ull << (i % 64);
	if (pf && r->tx_pf && !(t->txcand[i / 64] & 1ull << (i % 64)))
		return; /* its anchor is not in the transaction */
	t->cnt[MK_DETECT_CNT_CANDIDATES]++;
	if (!mk_rule_header_match(r, as.family, as.src, as.dst, as.sport, as.dport, 1))
		return;
	mc->fs = f->detect;
	mc->to_client = dir;
	mc->payload = (struct mk_buf){ 0 };
	if (r->buf_mask & MK_BUF_BIT(MK_BUF_PAYLOAD))
		mc->payload = tx_payload(t, f, dir);
	if (!run_match(mc, r, 0, match_split(r)) || !mk_buffers_inspect(mc, r, NULL) ||
	    !run_match(mc, r, match_split(r), r->nmatch))
		return;
	st->done[i / 64] |= 1ull << (i % 64);
	on_match(t, r, mc, &as, -1, 0);
	if (t->nalerts > before) {
		struct mk_detect_alert *a = &t->alerts[t->nalerts - 1];

		a->has_tx = 1;
		a->app_proto = tx->app_proto;
		a->tx_id = tx->tx_id;
		a->app_tx = tx->tx;
	}
}

void mk_detect_tx(struct mk_detect_thread *t, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	const struct mk_detect_engine *e = t->eng;
	const struct mk_flow_key *k = &f->key;
	struct mk_detect_tx_state *st = tx->state;
	struct mk_match_ctx mc = {
		.t = t, .flow = f, .stream = 1, .app_tx = tx->tx, .app_proto = tx->app_proto
	};
	struct tx_ends ends;
	uint32_t i, c, w, sat_cls = 0, whole_cls = 0, words = e->app_rules.n / 64 + 1;
	int pf = 0;

	if (!e->app_rules.n || t->stop || flow_stopped(f))
		return;
	mk_xform_cache_reset(t); /* buffers derived from another transaction */
	if (st->gen != t->gen || st->nwords < words) {
		uint64_t *d = calloc(words, sizeof(*d)), *c = calloc(words, sizeof(*c));
		uint32_t *sc = calloc(e->ntxpf + 1, sizeof(*sc));

		if (!d || !c || !sc) {
			free(d);
			free(c);
			free(sc);
			return;
		}
		mk_detect_tx_state_free(st);
		st->done = d;
		st->cand = c;
		st->scanned = sc;
		st->nwords = words;
		st->nscanned = e->ntxpf;
		st->gen = t->gen;
	}
	/* which sets of needed parts the transaction has, and which of them are whole */
	for (c = 0; c < e->napp_need; c++) {
		uint8_t need = e->app_need_val[c];

		if (e->app_need_proto[c] != tx->app_proto)
			continue; /* another protocol's rules */
		if ((tx->progress & need) == need)
			sat_cls |= 1u << c;
		if ((tx->progress & need) == need && !(tx->partial & need))
			whole_cls |= 1u << c;
	}
	/* the prefilter: which anchored rules' anchors the transaction's buffers hold */
	if (e->ntxpf && t->txcand_words < words) {
		uint64_t *c = realloc(t->txcand, words * sizeof(*c));
		uint64_t *wn = c ? realloc(t->txwant, words * sizeof(*wn)) : NULL;

		if (c)
			t->txcand = c;
		if (wn) {
			t->txwant = wn;
			t->txcand_words = words;
		}
	}
	if (e->ntxpf && t->txcand_words >= words) {
		/* the rules that could be inspected now: only their buffers are scanned */
		for (w = 0; w < words; w++) {
			uint64_t sat = 0;

			for (c = 0; c < e->napp_need && w < e->app_words; c++)
				if (sat_cls & 1u << c)
					sat |= e->app_need[c][w];
			t->txwant[w] = sat & ~st->done[w];
		}
		memset(t->txcand, 0, words * sizeof(*t->txcand));
		pf = mk_tx_prefilter_scan(&mc, tx->progress, st, t->txwant, t->txcand);
	}
	ends.cli = f->client_hi ? k->addr_hi : k->addr_lo;
	ends.srv = f->client_hi ? k->addr_lo : k->addr_hi;
	ends.cport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
	ends.sport = ntohs(f->client_hi ? k->port_lo : k->port_hi);
	for (w = 0; w < words && w < e->app_words && !t->stop; w++) {
		uint64_t sat = 0, whole = 0, todo, skip;

		for (c = 0; c < e->napp_need; c++) {
			if (sat_cls & 1u << c)
				sat |= e->app_need[c][w];
			if (whole_cls & 1u << c)
				whole |= e->app_need[c][w];
		}
		todo = sat & ~st->done[w];
		if (pf) {
			/* anchored rules whose anchor the transaction lacks: done when their parts are whole */
			skip = todo & e->app_anchored[w] & ~t->txcand[w];
			st->done[w] |= skip & whole;
			todo &= ~skip;
		}
		for (; todo && !t->stop; todo &= todo - 1) {
			i = w * 64 + (uint32_t)__builtin_ctzll(todo);
			tx_rule(t, f, tx, &mc, i, pf, &ends);
		}
	}
}

unsigned int mk_detect_end(struct mk_detect_thread *t, const struct mk_detect_alert **alerts)
{
	unsigned int i;

	for (i = 0; i < t->nalerts; i++)
		t->alerts[i].payload = t->alerts[i].payload_len ? t->arena + t->alert_off[i] : NULL;
	*alerts = t->alerts;
	return t->nalerts;
}

unsigned int mk_detect_verdict(const struct mk_detect_thread *t)
{
	return t->verdict;
}

void mk_detect_alert_ids(const struct mk_detect_alert *a, uint32_t *gid, uint32_t *sid)
{
	*gid = a->rule ? a->rule->gid : 0;
	*sid = a->rule ? a->rule->sid : 0;
}
