/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE `dns` records in Suricata's version 2 layout: a query record per
 * question (type "query") and an answer record per response (type
 * "answer", with flags, rcode, the detailed answers, the answers grouped
 * by type, and the authorities). Rendered from one decoded message
 * (applayer/dns/dns_msg.h), names and text escaped.
 */
#ifndef MK_EVE_DNS_H
#define MK_EVE_DNS_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "flow.h"

struct mk_dns_msg;

/* A buffer size that always holds one record of @m. */
size_t mk_eve_dns_maxlen(const struct mk_dns_msg *m);
/*
 * `"dns":{...}` (no leading comma) of message @m, transaction @tx_id; for a
 * query, of its question @q. Its length, or -ENOSPC.
 */
int mk_eve_dns_object(char *buf, size_t size, const struct mk_dns_msg *m, unsigned int q,
		      uint64_t tx_id);
/*
 * The `dns` object of an alert on transaction @tx_id whose message is @m,
 * as Suricata's (version 2): `"dns":{"query":[...]}` with a query record
 * per question, and for a response `"answer":{...}` too (its questions are
 * its query's). Its length, or -ENOSPC.
 */
int mk_eve_dns_alert_object(char *buf, size_t size, const struct mk_dns_msg *m, uint64_t tx_id);
/* A buffer size that always holds mk_eve_dns_alert_object() of @m. */
size_t mk_eve_dns_alert_maxlen(const struct mk_dns_msg *m);
/* The whole `dns` event; its length, or -ENOSPC. */
int mk_eve_dns(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
	       uint64_t ts_us, const struct mk_dns_msg *m, unsigned int q, uint64_t tx_id);

#endif /* MK_EVE_DNS_H */
