// SPDX-License-Identifier: GPL-2.0-only
/*
 * The router advisor's logic (advise.h): selection, the active table with
 * its hash of keys, the refusals, expiry, the ExaBGP commands and the EVE
 * `bgp_advise` records. No thread, no socket, no clock of its own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "advise.h"
#include "compat.h"
#include "config.h"
#include "eve.h"

#define ROUTE_MAX 320

#define MK_ADVISE_CNT_NAME(id, name, doc) [MK_ADVISE_##id] = name,
const char *const mk_advise_counter_names[MK_ADVISE_CNT_MAX] = { MK_ADVISE_COUNTERS(
	MK_ADVISE_CNT_NAME) };
#undef MK_ADVISE_CNT_NAME

/* What identifies an announcement: the offender (blackhole), or the oriented 5-tuple. */
struct advise_key {
	uint32_t src[4], dst[4]; /* offender, victim (flowspec only) */
	uint16_t sport, dport;	 /* flowspec only */
	uint8_t family, proto;	 /* proto: flowspec only */
	uint8_t has_ports;
	uint8_t pad;
};

struct mk_advise_entry {
	struct advise_key key;
	struct mk_advise_req req; /* the alert that made it */
	uint64_t expires_ns;
	uint32_t next; /* chain: index + 1 */
	uint8_t used;
	char route[ROUTE_MAX]; /* what follows "announce " and "withdraw " */
};

/* ---- selection, on the worker --------------------------------------------------- */

int mk_advise_select(const struct mk_advise_cfg *c, const struct mk_detect_rule_info *ri)
{
	unsigned int i, j, lo = 0, hi = c->nsids;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (c->sids[mid] == ri->sid)
			return 1;
		if (c->sids[mid] < ri->sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (ri->classtype && ri->classtype[0])
		for (i = 0; i < c->nclasstypes; i++)
			if (!strcmp(c->classtypes[i], ri->classtype))
				return 1;
	for (i = 0; i < c->nmeta; i++)
		for (j = 0; j < ri->nmeta; j++)
			if (ri->meta[j].key && ri->meta[j].value &&
			    !strcmp(ri->meta[j].key, c->meta[i].key) &&
			    !strcmp(ri->meta[j].value, c->meta[i].value))
				return 1;
	return 0;
}

void mk_advise_req_fill(struct mk_advise_req *r, const struct mk_detect_alert *a,
			const struct mk_detect_rule_info *ri)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->src, a->src, sizeof(r->src));
	memcpy(r->dst, a->dst, sizeof(r->dst));
	r->ts_us = a->ts_us;
	r->flow_id = a->flow_id;
	r->gid = ri->gid;
	r->sid = ri->sid;
	r->sport = a->sport;
	r->dport = a->dport;
	r->family = a->family;
	r->proto = a->proto;
	r->has_ports = a->has_ports;
	r->offender_dst = ri->target == MK_TARGET_SRC;
}

/* ---- addresses ------------------------------------------------------------------- */

static void key_of(const struct mk_advise_cfg *c, const struct mk_advise_req *r,
		   struct advise_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = r->family;
	memcpy(k->src, r->offender_dst ? r->dst : r->src, sizeof(k->src));
	if (c->mode != MK_ADVISE_FLOWSPEC)
		return;
	memcpy(k->dst, r->offender_dst ? r->src : r->dst, sizeof(k->dst));
	k->proto = r->proto;
	k->has_ports = r->has_ports;
	if (r->has_ports) {
		k->sport = r->offender_dst ? r->dport : r->sport;
		k->dport = r->offender_dst ? r->sport : r->dport;
	}
}

static int in_prefix(const struct mk_cidr *p, uint8_t family, const uint32_t *a)
{
	unsigned int i;

	if (p->family != family)
		return 0;
	for (i = 0; i < 4; i++) {
		uint32_t bits = p->prefix > i * 32 ? (uint32_t)(p->prefix - i * 32) : 0;
		uint32_t mask = bits >= 32 ? 0xffffffffu : bits ? ~(0xffffffffu >> bits) : 0;

		if ((a[i] & htonl(mask)) != p->addr[i])
			return 0;
	}
	return 1;
}

static int in_list(const struct mk_cidr *l, unsigned int n, uint8_t family, const uint32_t *a)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (in_prefix(&l[i], family, a))
			return 1;
	return 0;
}

/* Not a unicast host address: never worth a route (and often a spoofed source). */
static int special_address(uint8_t family, const uint32_t *a)
{
	uint32_t w0 = ntohl(a[0]);

	if (family == MK_FAMILY_IPV4)
		return (w0 >> 24) == 0 || (w0 >> 24) == 127 || (w0 >> 16) == 0xa9fe ||
		       (w0 >> 28) >= 0xe;
	if (family != MK_FAMILY_IPV6)
		return 1;
	if (!a[0] && !a[1] && !a[2] && (!a[3] || ntohl(a[3]) == 1))
		return 1; /* :: and ::1 */
	if (!a[0] && !a[1] && ntohl(a[2]) == 0xffff)
		return 1; /* IPv4-mapped */
	return (w0 >> 24) == 0xff || (w0 >> 22) == (0xfe80u >> 6);
}

static const char *addr_str(uint8_t family, const uint32_t *a, char *buf, size_t len)
{
	if (!inet_ntop(family == MK_FAMILY_IPV4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- the ExaBGP route text ------------------------------------------------------- */

static int route_of(const struct mk_advise_cfg *c, const struct advise_key *k, char *buf,
		    size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], proto[32] = "", ports[48] = "";
	unsigned int plen = k->family == MK_FAMILY_IPV4 ? 32 : 128;
	const char *field;
	int n;

	addr_str(k->family, k->src, a, sizeof(a));
	if (c->mode != MK_ADVISE_FLOWSPEC) {
		n = snprintf(buf, len, "route %s/%u next-hop %s%s%s%s", a, plen,
			     k->family == MK_FAMILY_IPV4 ? c->next_hop : c->next_hop_v6,
			     c->communities[0] ? " community [" : "", c->communities,
			     c->communities[0] ? "]" : "");
		return n < 0 || (size_t)n >= len ? -ENOSPC : n;
	}
	addr_str(k->family, k->dst, b, sizeof(b));
	/* IPv6 flowspec names the protocol next-header (RFC 8956) */
	field = k->family == MK_FAMILY_IPV4 ? "protocol" : "next-header";
	if (k->proto == 6 || k->proto == 17)
		snprintf(proto, sizeof(proto), " %s %s;", field, k->proto == 6 ? "tcp" : "udp");
	else if (k->proto == 1 && k->family == MK_FAMILY_IPV4)
		snprintf(proto, sizeof(proto), " protocol icmp;");
	else
		snprintf(proto, sizeof(proto), " %s =%u;", field, k->proto);
	if (k->has_ports)
		snprintf(ports, sizeof(ports), " source-port =%u; destination-port =%u;", k->sport,
			 k->dport);
	n = snprintf(buf, len,
		     "flow route { match { source %s/%u; destination %s/%u;%s%s } then { discard; "
		     "} }",
		     a, plen, b, plen, proto, ports);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

int mk_advise_route(const struct mk_advise_cfg *c, const struct mk_advise_req *r, char *buf,
		    size_t len)
{
	struct advise_key k;

	key_of(c, r, &k);
	return route_of(c, &k, buf, len);
}

/* ---- output ---------------------------------------------------------------------- */

static void emit_command(struct mk_advise_table *t, const char *verb, const char *route)
{
	char line[ROUTE_MAX + 16];
	int n = snprintf(line, sizeof(line), "%s %s\n", verb, route);

	if (n > 0 && (size_t)n < sizeof(line))
		t->out.command(t->out.ctx, line, (size_t)n);
}

/* The `bgp_advise` EVE record: the alert's tuple, then what was done and why. */
static void emit_record(struct mk_advise_table *t, const struct mk_advise_req *r,
			const struct advise_key *k, const char *action, const char *reason,
			const char *route, uint64_t now_us)
{
	char ts[MK_EVE_TS_LEN], s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], o[INET6_ADDRSTRLEN];
	char cmd[ROUTE_MAX + 16], pfx[INET6_ADDRSTRLEN + 8], tmp[16], *text;
	json_t *ev, *adv;
	size_t len;

	mk_eve_ts(ts, now_us);
	addr_str(r->family, r->src, s, sizeof(s));
	addr_str(r->family, r->dst, d, sizeof(d));
	addr_str(k->family, k->src, o, sizeof(o));
	snprintf(pfx, sizeof(pfx), "%s/%u", o, k->family == MK_FAMILY_IPV4 ? 32 : 128);
	ev = json_pack("{s:s,s:s}", "timestamp", ts, "event_type", "bgp_advise");
	if (!ev)
		return;
	if (r->flow_id)
		json_object_set_new(ev, "flow_id",
				    json_integer((json_int_t)(r->flow_id & 0x7fffffffffffffffull)));
	json_object_set_new(ev, "src_ip", json_string(s));
	if (r->has_ports)
		json_object_set_new(ev, "src_port", json_integer(r->sport));
	json_object_set_new(ev, "dest_ip", json_string(d));
	if (r->has_ports)
		json_object_set_new(ev, "dest_port", json_integer(r->dport));
	json_object_set_new(ev, "proto",
			    json_string(mk_eve_proto_name(r->proto, tmp, sizeof(tmp))));
	adv = json_pack("{s:s,s:s,s:s,s:s,s:s}", "action", action, "reason", reason, "mode",
			t->cfg->mode == MK_ADVISE_FLOWSPEC ? "flowspec" : "blackhole", "address", o,
			"prefix", pfx);
	if (adv) {
		if (route) {
			snprintf(cmd, sizeof(cmd), "%s %s",
				 strcmp(action, "withdraw") ? "announce" : "withdraw", route);
			json_object_set_new(adv, "command", json_string(cmd));
		}
		if (!strcmp(action, "announce"))
			json_object_set_new(adv, "ttl", json_integer(t->cfg->ttl));
		json_object_set_new(adv, "active", json_integer(t->active));
		json_object_set_new(adv, "alert",
				    json_pack("{s:I,s:I}", "gid", (json_int_t)r->gid,
					      "signature_id", (json_int_t)r->sid));
		json_object_set_new(ev, "bgp_advise", adv);
	}
	text = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(ev);
	if (!text)
		return;
	len = strlen(text);
	text[len] = '\n'; /* json_dumps leaves room: its NUL */
	t->out.record(t->out.ctx, text, len + 1);
	free(text);
}

/* ---- the table ------------------------------------------------------------------- */

static uint32_t key_hash(const struct advise_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

int mk_advise_table_init(struct mk_advise_table *t, const struct mk_advise_cfg *cfg,
			 const struct mk_cidr *own, unsigned int nown,
			 const struct mk_advise_out *out)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	t->cfg = cfg;
	t->out = *out;
	t->own = own;
	t->nown = nown;
	t->nbuckets = 16;
	while (t->nbuckets < 2 * cfg->max_active)
		t->nbuckets <<= 1;
	t->ents = calloc(cfg->max_active, sizeof(*t->ents));
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	if (!t->ents || !t->buckets) {
		mk_advise_table_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < cfg->max_active; i++)
		t->ents[i].next = i + 1 < cfg->max_active ? i + 2 : 0;
	t->free_head = 1;
	return 0;
}

void mk_advise_table_free(struct mk_advise_table *t)
{
	free(t->ents);
	free(t->buckets);
	t->ents = NULL;
	t->buckets = NULL;
}

static struct mk_advise_entry *table_find(struct mk_advise_table *t, const struct advise_key *k)
{
	uint32_t i = t->buckets[key_hash(k) & (t->nbuckets - 1)];

	while (i) {
		struct mk_advise_entry *e = &t->ents[i - 1];

		if (!memcmp(&e->key, k, sizeof(*k)))
			return e;
		i = e->next;
	}
	return NULL;
}

static void table_remove(struct mk_advise_table *t, struct mk_advise_entry *e)
{
	uint32_t idx = (uint32_t)(e - t->ents) + 1,
		 *p = &t->buckets[key_hash(&e->key) & (t->nbuckets - 1)];

	while (*p && *p != idx)
		p = &t->ents[*p - 1].next;
	if (*p)
		*p = e->next;
	e->used = 0;
	e->next = t->free_head;
	t->free_head = idx;
	t->active--;
}

enum mk_advise_result mk_advise_offer(struct mk_advise_table *t, const struct mk_advise_req *r,
				      uint64_t now_ns, uint64_t now_us)
{
	const struct mk_advise_cfg *c = t->cfg;
	struct mk_advise_entry *e;
	struct advise_key k;
	uint32_t idx, b;
	const char *why = NULL;
	enum mk_advise_result res = MK_ADVISE_RES_ANNOUNCED;

	key_of(c, r, &k);
	e = table_find(t, &k);
	if (e) {
		e->expires_ns = now_ns + (uint64_t)c->ttl * 1000000000ull;
		t->cnt[MK_ADVISE_EXTENDED]++;
		return MK_ADVISE_RES_EXTENDED;
	}
	if (special_address(k.family, k.src)) {
		why = "special_address";
		res = MK_ADVISE_RES_REFUSED_SPECIAL;
	} else if (in_list(t->own, t->nown, k.family, k.src)) {
		why = "own_address";
		res = MK_ADVISE_RES_REFUSED_OWN;
	} else if (in_list(c->allow, c->nallow, k.family, k.src)) {
		why = "allowlist";
		res = MK_ADVISE_RES_REFUSED_ALLOW;
	} else if (!t->free_head) {
		why = "limit";
		res = MK_ADVISE_RES_REFUSED_LIMIT;
	}
	if (why) {
		t->cnt[res == MK_ADVISE_RES_REFUSED_LIMIT ? MK_ADVISE_REFUSED_LIMIT :
							    MK_ADVISE_REFUSED_ALLOWLIST]++;
		emit_record(t, r, &k, "refused", why, NULL, now_us);
		return res;
	}
	idx = t->free_head;
	e = &t->ents[idx - 1];
	if (route_of(c, &k, e->route, sizeof(e->route)) < 0)
		return MK_ADVISE_RES_ERROR; /* cannot happen: ROUTE_MAX holds the longest */
	t->free_head = e->next;
	e->key = k;
	e->req = *r;
	e->used = 1;
	e->expires_ns = now_ns + (uint64_t)c->ttl * 1000000000ull;
	b = key_hash(&k) & (t->nbuckets - 1);
	e->next = t->buckets[b];
	t->buckets[b] = idx;
	t->active++;
	t->cnt[MK_ADVISE_ANNOUNCED]++;
	emit_command(t, "announce", e->route);
	emit_record(t, r, &k, "announce", "alert", e->route, now_us);
	return MK_ADVISE_RES_ANNOUNCED;
}

static void withdraw(struct mk_advise_table *t, struct mk_advise_entry *e, const char *reason,
		     uint64_t now_us)
{
	struct mk_advise_req r = e->req;
	struct advise_key k = e->key;
	char route[ROUTE_MAX];

	memcpy(route, e->route, sizeof(route));
	table_remove(t, e);
	t->cnt[MK_ADVISE_WITHDRAWN]++;
	emit_command(t, "withdraw", route);
	emit_record(t, &r, &k, "withdraw", reason, route, now_us);
}

unsigned int mk_advise_expire(struct mk_advise_table *t, uint64_t now_ns, uint64_t now_us)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < t->cfg->max_active && t->active; i++) {
		struct mk_advise_entry *e = &t->ents[i];

		if (e->used && e->expires_ns <= now_ns) {
			withdraw(t, e, "expired", now_us);
			n++;
		}
	}
	return n;
}

unsigned int mk_advise_withdraw_all(struct mk_advise_table *t, uint64_t now_us)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < t->cfg->max_active && t->active; i++) {
		if (t->ents[i].used) {
			withdraw(t, &t->ents[i], "shutdown", now_us);
			n++;
		}
	}
	return n;
}

void mk_advise_foreach_active(const struct mk_advise_table *t,
			      void (*fn)(void *arg, const char *line, size_t len), void *arg)
{
	char line[ROUTE_MAX + 16];
	uint32_t i;
	int n;

	for (i = 0; i < t->cfg->max_active; i++) {
		if (!t->ents[i].used)
			continue;
		n = snprintf(line, sizeof(line), "announce %s\n", t->ents[i].route);
		if (n > 0 && (size_t)n < sizeof(line))
			fn(arg, line, (size_t)n);
	}
}
