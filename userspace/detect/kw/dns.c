// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DNS keywords: sticky buffers read from one DNS transaction (a query
 * and its response; applayer/dns/dns_detect.c builds them). dns.query and
 * dns.queries.rrname are multi-buffers: one instance per question, the
 * rule's list matches when one instance does, as Suricata's.
 */
#include <string.h>
#include "applayer.h"
#include "detect_int.h"

static const struct {
	const char *name;
	uint8_t buf;
} kw_bufs[] = {
	{ "dns.query", MK_BUF_DNS_QUERY },
	{ "dns_query", MK_BUF_DNS_QUERY },
	{ "dns.queries.rrname", MK_BUF_DNS_QUERIES_RRNAME },
	{ "dns.answer.name", MK_BUF_DNS_ANSWER_NAME },
};

static int setup_sticky(struct mk_rule_build *rb, const char *value)
{
	size_t i;

	(void)value;
	for (i = 0; i < MK_ARRAY_SIZE(kw_bufs); i++)
		if (!strcmp(kw_bufs[i].name, rb->cur_kw->name))
			return mk_kw_sticky(rb, kw_bufs[i].buf);
	return -1;
}

#define STICKY(id, kwname, doc_)                                   \
	const struct mk_kw mk_kw_##id = { .name = kwname,          \
					  .type = MK_KWT_META,     \
					  .flags = MK_KWF_NOVALUE, \
					  .setup = setup_sticky,   \
					  .doc = "sticky buffer: " doc_ }

STICKY(sb_dns_query, "dns.query",
       "each question's name of a DNS query, dot-separated, without the trailing dot");
STICKY(sb_dns_query_, "dns_query", "dns.query");
STICKY(sb_dns_queries_rrname, "dns.queries.rrname",
       "each question's name, of the query (or of the response in to_client rules)");
STICKY(sb_dns_answer_name, "dns.answer.name", "each answer record's owner name of a response");

MK_KW_FAMILY_TABLE(dns, MK_KW_FAMILY_DNS);
