// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DNS keywords: sticky buffers read from one DNS transaction (a query
 * and its response; applayer/dns/dns_detect.c builds them). dns.query and
 * dns.queries.rrname are multi-buffers: one instance per question, the
 * rule's list matches when one instance does, as Suricata's.
 *
 * And the match keywords on the message's header and questions, in
 * Suricata's integer syntax (N, !N, N-M, <N, >N, ...): dns.opcode,
 * dns.rcode (of the response: a to_client rule) and dns.rrtype (the
 * questions' types: one matching is enough). They read the message of the
 * rule's direction, as Suricata's.
 */
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include "applayer.h"
#include "detect_int.h"
#include "dns.h"
#include "dns_msg.h"
#include "kw/app_kw.h"

MK_KW_STICKY(sb_dns_query, "dns.query", MK_BUF_DNS_QUERY,
	     "each question's name of a DNS query, dot-separated, without the trailing dot");
MK_KW_STICKY(sb_dns_query_, "dns_query", MK_BUF_DNS_QUERY, "dns.query");
MK_KW_STICKY(sb_dns_queries_rrname, "dns.queries.rrname", MK_BUF_DNS_QUERIES_RRNAME,
	     "each question's name, of the query (or of the response in to_client rules)");
MK_KW_STICKY(sb_dns_answer_name, "dns.answer.name", MK_BUF_DNS_ANSWER_NAME,
	     "each answer record's owner name of a response");

/* ---- the match keywords ------------------------------------------------------------ */

/* A name instead of the number, then the integer forms up to @max. */
static int uint_or_name(const char *value, uint64_t max, const char *(*name)(uint16_t),
			struct mk_uint *out)
{
	const char *p = value;
	char buf[64];
	unsigned int v;
	size_t n;
	int neg;

	if (!mk_uint_parse(value, max, out))
		return 0;
	while (*p == ' ')
		p++;
	neg = *p == '!';
	if (neg)
		p++;
	n = strlen(p);
	while (n && p[n - 1] == ' ')
		n--;
	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	for (v = 0; v <= max; v++) {
		const char *s = name((uint16_t)v);

		if (s && !strcasecmp(s, buf)) {
			out->mode = neg ? MK_U_NE : MK_U_EQ;
			out->a = v;
			out->b = 0;
			return 0;
		}
	}
	return -1;
}

static const char *rcode_name(uint16_t v)
{
	return v <= 0xff ? mk_dns_rcode_name((uint8_t)v) : NULL;
}

int mk_kw_dns_rrtype_parse(const char *value, struct mk_uint *out)
{
	return uint_or_name(value, 65535, mk_dns_type_name, out);
}

int mk_kw_dns_rcode_parse(const char *value, struct mk_uint *out)
{
	return uint_or_name(value, 15, rcode_name, out);
}

enum { DNS_OPCODE, DNS_RCODE, DNS_RRTYPE };

struct dns_uint {
	struct mk_uint u;
	uint8_t what; /* DNS_* */
};

static int setup_dns_uint(struct mk_rule_build *rb, const char *value)
{
	const char *kw = rb->cur_kw->name;
	struct dns_uint *d = malloc(sizeof(*d));
	int err;

	if (!d)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (!strcmp(kw, "dns.opcode")) {
		d->what = DNS_OPCODE;
		err = mk_uint_parse(value, 15, &d->u);
	} else if (!strcmp(kw, "dns.rcode")) {
		d->what = DNS_RCODE;
		err = mk_kw_dns_rcode_parse(value, &d->u);
	} else {
		d->what = DNS_RRTYPE;
		err = mk_kw_dns_rrtype_parse(value, &d->u);
	}
	if (err) {
		free(d);
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not %s", value,
			!strcmp(kw, "dns.opcode") ? "an opcode (0-15, !N, N-M, <N, >N)" :
			!strcmp(kw, "dns.rcode")  ? "an rcode (0-15 or NOERROR, NXDOMAIN, ...)" :
						    "a record type (0-65535 or A, AAAA, ...)");
	}
	if (mk_kw_app_rule(rb, MK_APP_DNS)) {
		free(d);
		return -1;
	}
	/* an rcode is the response's */
	if (d->what == DNS_RCODE)
		rb->r->app_need |= MK_BUF_SIDE_RESP;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, rb->cur_kw, d);
}

static int match_dns_uint(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct dns_uint *d = sm->ctx;
	const struct mk_dns_tx *t;
	const struct mk_dns_msg *m;
	unsigned int i;

	if (!mc->app_tx || mc->app_proto != MK_APP_DNS)
		return 0;
	t = mc->app_tx;
	m = t->m;
	/* the message of the rule's direction: a query has no rcode to read */
	if (!!mc->to_client != t->to_client)
		return 0;
	switch (d->what) {
	case DNS_OPCODE:
		return mk_uint_match(&d->u, MK_DNS_OPCODE(m->flags));
	case DNS_RCODE:
		return mk_uint_match(&d->u, MK_DNS_RCODE(m->flags));
	default:
		for (i = 0; i < m->nq; i++)
			if (mk_uint_match(&d->u, m->q[i].type))
				return 1;
		return 0;
	}
}

#define DNS_UINT(id, kwname, doc_)                                                  \
	const struct mk_kw mk_kw_##id = { .name = kwname,                           \
					  .type = MK_KWT_MATCH,                     \
					  .flags = MK_KWF_VALUE | MK_KWF_STREAM_OK, \
					  .setup = setup_dns_uint,                  \
					  .match = match_dns_uint,                  \
					  .free = free,                             \
					  .doc = doc_ }

DNS_UINT(dns_opcode, "dns.opcode",
	 "the header's opcode of the message of the rule's direction: [!]N, N-M, <N, >N, ...");
DNS_UINT(dns_rcode, "dns.rcode",
	 "the response's rcode (a to_client rule): a number 0-15 or NOERROR, NXDOMAIN, ...; "
	 "[!], N-M, <N, >N");
DNS_UINT(dns_rrtype, "dns.rrtype",
	 "one question's type of the message of the rule's direction: a number or A, AAAA, ...; "
	 "[!], N-M, <N, >N");

MK_KW_FAMILY_TABLE(dns, MK_KW_FAMILY_DNS);
