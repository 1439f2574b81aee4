// SPDX-License-Identifier: GPL-2.0-only
/*
 * DNS's detection buffers (dns.h): what a rule's dns.* buffers read of one
 * transaction's message, as Suricata builds them: names in presentation
 * form without the trailing dot, the root as an empty name.
 */
#include <string.h>
#include "detect_buf.h"
#include "dns.h"
#include "dns_msg.h"

static int name_buf(const char *name, const uint8_t **data, uint32_t *len)
{
	*data = (const uint8_t *)name;
	*len = strcmp(name, "<root>") ? (uint32_t)strlen(name) : 0;
	return 1;
}

int mk_dns_tx_buffer(const void *tx, unsigned int id, uint32_t idx, int to_client,
		     const uint8_t **data, uint32_t *len)
{
	const struct mk_dns_tx *t = tx;
	const struct mk_dns_msg *m = t->m;

	switch (id) {
	case MK_BUF_DNS_QUERY:
		/* the questions: of the query, or echoed by its response */
		return idx < m->nq && name_buf(m->q[idx].name, data, len);
	case MK_BUF_DNS_QUERIES_RRNAME:
		/* the questions of the message of the rule's direction */
		return !!to_client == t->to_client && idx < m->nq &&
		       name_buf(m->q[idx].name, data, len);
	case MK_BUF_DNS_ANSWER_NAME:
		return t->to_client && idx < m->nan && name_buf(m->an[idx].name, data, len);
	default:
		return 0;
	}
}
