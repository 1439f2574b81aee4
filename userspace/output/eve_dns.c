// SPDX-License-Identifier: GPL-2.0-only
/* EVE `dns` records (eve_dns.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "dns_msg.h"
#include "ebuf.h"
#include "eve_dns.h"

static void put_str(struct ebuf *o, const char *name, const char *v)
{
	EB_LIT(o, ",\"");
	eb_str(o, name);
	EB_LIT(o, "\":\"");
	eb_json(o, (const uint8_t *)v, strlen(v));
	EB_LIT(o, "\"");
}

static void put_u64(struct ebuf *o, const char *name, uint64_t v)
{
	EB_LIT(o, ",\"");
	eb_str(o, name);
	EB_LIT(o, "\":");
	eb_u64(o, v);
}

static void put_type(struct ebuf *o, const char *name, uint16_t type)
{
	const char *t = mk_dns_type_name(type);
	char num[8];

	if (!t) {
		snprintf(num, sizeof(num), "%u", type);
		t = num;
	}
	put_str(o, name, t);
}

/* One record of answers or authorities: {"rrname":...,"rrtype":...,"ttl":...,rdata} */
static void put_rr(struct ebuf *o, const struct mk_dns_rr *r)
{
	EB_LIT(o, "{\"rrname\":\"");
	eb_json(o, (const uint8_t *)r->name, strlen(r->name));
	EB_LIT(o, "\"");
	put_type(o, "rrtype", r->type);
	put_u64(o, "ttl", r->ttl);
	switch (r->kind) {
	case MK_DNS_RDATA_TEXT:
		put_str(o, "rdata", r->data);
		break;
	case MK_DNS_RDATA_SOA:
		EB_LIT(o, ",\"soa\":{\"mname\":\"");
		eb_json(o, (const uint8_t *)r->data, r->data_len);
		EB_LIT(o, "\"");
		put_str(o, "rname", r->soa.rname);
		put_u64(o, "serial", r->soa.serial);
		put_u64(o, "refresh", r->soa.refresh);
		put_u64(o, "retry", r->soa.retry);
		put_u64(o, "expire", r->soa.expire);
		put_u64(o, "minimum", r->soa.minimum);
		EB_LIT(o, "}");
		break;
	case MK_DNS_RDATA_SRV:
		EB_LIT(o, ",\"srv\":{\"priority\":");
		eb_u64(o, r->srv.priority);
		put_u64(o, "weight", r->srv.weight);
		put_u64(o, "port", r->srv.port);
		put_str(o, "name", r->data);
		EB_LIT(o, "}");
		break;
	default:
		break;
	}
	EB_LIT(o, "}");
}

static void put_rrs(struct ebuf *o, const char *name, const struct mk_dns_rr *rr, unsigned int n)
{
	unsigned int i;

	if (!n)
		return;
	EB_LIT(o, ",\"");
	eb_str(o, name);
	EB_LIT(o, "\":[");
	for (i = 0; i < n; i++) {
		if (i)
			EB_LIT(o, ",");
		put_rr(o, &rr[i]);
	}
	EB_LIT(o, "]");
}

/* "grouped":{"A":["1.2.3.4",...],"CNAME":[...]}: the text rdata of the answers by type. */
static void put_grouped(struct ebuf *o, const struct mk_dns_msg *m)
{
	unsigned int i, j, any = 0;

	for (i = 0; i < m->nan; i++) {
		const struct mk_dns_rr *r = &m->an[i];
		int seen = 0;

		if (r->kind != MK_DNS_RDATA_TEXT)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = m->an[j].kind == MK_DNS_RDATA_TEXT && m->an[j].type == r->type;
		if (seen)
			continue; /* its type's list is written */
		eb_str(o, any++ ? "," : ",\"grouped\":{");
		EB_LIT(o, "\"");
		if (mk_dns_type_name(r->type))
			eb_str(o, mk_dns_type_name(r->type));
		else
			eb_u64(o, r->type);
		EB_LIT(o, "\":[");
		for (j = i; j < m->nan; j++) {
			if (m->an[j].kind != MK_DNS_RDATA_TEXT || m->an[j].type != r->type)
				continue;
			eb_str(o, j == i ? "\"" : ",\"");
			eb_json(o, (const uint8_t *)m->an[j].data, m->an[j].data_len);
			EB_LIT(o, "\"");
		}
		EB_LIT(o, "]");
	}
	if (any)
		EB_LIT(o, "}");
}

/* A record's escaped text at worst (\u00XX: six bytes per byte) and its numbers. */
static size_t rr_maxlen(const struct mk_dns_rr *r)
{
	size_t n = strlen(r->name) + r->data_len;

	if (r->kind == MK_DNS_RDATA_SOA)
		n += strlen(r->soa.rname);
	return 6 * n + 256;
}

size_t mk_eve_dns_maxlen(const struct mk_dns_msg *m)
{
	size_t n = 6 * MK_DNS_NAME_MAX + 512;
	unsigned int i;

	/* answers twice: in "answers" and in "grouped" */
	for (i = 0; i < m->nan; i++)
		n += 2 * rr_maxlen(&m->an[i]);
	for (i = 0; i < m->nns; i++)
		n += rr_maxlen(&m->ns[i]);
	return n;
}

/* A query record of question @q: {"type":"query","id":...,"rrname":...,...} */
static void query_record(struct ebuf *o, const struct mk_dns_msg *m, unsigned int q, uint64_t tx_id)
{
	EB_LIT(o, "{\"type\":\"query\"");
	put_u64(o, "id", m->id);
	if (q < m->nq) {
		put_str(o, "rrname", m->q[q].name);
		put_type(o, "rrtype", m->q[q].type);
	}
	put_u64(o, "tx_id", tx_id);
	put_u64(o, "opcode", MK_DNS_OPCODE(m->flags));
	EB_LIT(o, "}");
}

/* The answer record of response @m: {"version":2,"type":"answer",...} */
static void answer_record(struct ebuf *o, const struct mk_dns_msg *m)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} flags[] = { { MK_DNS_QR, "qr" }, { MK_DNS_AA, "aa" }, { MK_DNS_TC, "tc" },
		      { MK_DNS_RD, "rd" }, { MK_DNS_RA, "ra" }, { MK_DNS_Z, "z" } };
	const char *rcode;
	char tmp[8];
	unsigned int i;

	EB_LIT(o, "{\"version\":2,\"type\":\"answer\"");
	put_u64(o, "id", m->id);
	snprintf(tmp, sizeof(tmp), "%04x", m->flags);
	put_str(o, "flags", tmp);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (m->flags & flags[i].bit) {
			EB_LIT(o, ",\"");
			eb_str(o, flags[i].name);
			EB_LIT(o, "\":true");
		}
	put_u64(o, "opcode", MK_DNS_OPCODE(m->flags));
	if (m->nq) {
		put_str(o, "rrname", m->q[0].name);
		put_type(o, "rrtype", m->q[0].type);
	}
	rcode = mk_dns_rcode_name(MK_DNS_RCODE(m->flags));
	if (!rcode) {
		snprintf(tmp, sizeof(tmp), "%u", MK_DNS_RCODE(m->flags));
		rcode = tmp;
	}
	put_str(o, "rcode", rcode);
	put_rrs(o, "answers", m->an, m->nan);
	put_grouped(o, m);
	put_rrs(o, "authorities", m->ns, m->nns);
	EB_LIT(o, "}");
}

int mk_eve_dns_object(char *buf, size_t size, const struct mk_dns_msg *m, unsigned int q,
		      uint64_t tx_id)
{
	struct ebuf o = { .p = buf, .end = buf + size };

	EB_LIT(&o, "\"dns\":");
	if (m->flags & MK_DNS_QR)
		answer_record(&o, m);
	else
		query_record(&o, m, q, tx_id);
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}

size_t mk_eve_dns_alert_maxlen(const struct mk_dns_msg *m)
{
	return mk_eve_dns_maxlen(m) + (size_t)m->nq * (6 * MK_DNS_NAME_MAX + 128);
}

int mk_eve_dns_alert_object(char *buf, size_t size, const struct mk_dns_msg *m, uint64_t tx_id)
{
	struct ebuf o = { .p = buf, .end = buf + size };
	unsigned int q;

	/* a response echoes its query's id, opcode and questions: the query records too */
	EB_LIT(&o, "\"dns\":{\"query\":[");
	for (q = 0; q < m->nq; q++) {
		if (q)
			EB_LIT(&o, ",");
		query_record(&o, m, q, tx_id);
	}
	EB_LIT(&o, "]");
	if (m->flags & MK_DNS_QR) {
		EB_LIT(&o, ",\"answer\":");
		answer_record(&o, m);
	}
	EB_LIT(&o, "}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}

int mk_eve_dns(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
	       uint64_t ts_us, const struct mk_dns_msg *m, unsigned int q, uint64_t tx_id)
{
	int n, k;

	if (size < 3)
		return -ENOSPC;
	size--; /* the terminating NUL */
	n = mk_eve_head(buf, size, cfg, f, ts_us, "dns");
	if (n < 0)
		return n;
	if ((size_t)n + 1 > size)
		return -ENOSPC;
	buf[n++] = ',';
	k = mk_eve_dns_object(buf + n, size - (size_t)n, m, q, tx_id);
	if (k < 0)
		return k;
	n += k;
	if ((size_t)n + 1 > size)
		return -ENOSPC;
	buf[n++] = '}';
	buf[n] = '\0';
	return n;
}
