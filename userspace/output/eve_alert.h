/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE `alert` records: detection hands over a match (struct mk_detect_alert,
 * facts only: rule, flow, packet, action) and this renders it. The static,
 * escaped part of each rule's alert object is rendered once per rule, when
 * an engine is built, through a detection rule hook.
 */
#ifndef MK_EVE_ALERT_H
#define MK_EVE_ALERT_H

#include <stddef.h>
#include <stdint.h>

struct mk_detect_alert;
struct mk_rule;
struct mk_eve_http;
struct mk_dns_tx;
struct mk_tls_info;

struct mk_eve_alert_opts {
	const char *in_iface; /* live capture interface, NULL offline */
	int payload;	      /* "payload": base64 of the payload */
	int payload_printable;
	int tagged_packets;	    /* tagged packets as EVE `packet` records (worker) */
	int inline_mode;	    /* action "blocked" is possible */
	int community_id;	    /* "community_id" of the flow (else the packet's tuple), v1 */
	uint16_t community_id_seed; /* its seed */
	/* per alert, set by the caller: the flow's application protocol and transaction */
	const char *app_proto;		/* "app_proto", NULL: none */
	const struct mk_eve_http *http; /* the `http` object of the alert's transaction, or NULL */
	const struct mk_dns_tx *dns;	/* ... the `dns` object's DNS transaction, or NULL */
	const struct mk_tls_info *tls;	/* ... the `tls` object's TLS session, or NULL */
};

#define MK_EVE_ALERT_MAX 16384

/*
 * One `alert` event, no newline: returns its length or -ENOSPC. Every string
 * that comes from a rule or a packet is escaped, so the line is valid JSON.
 */
int mk_eve_alert(char *buf, size_t size, const struct mk_detect_alert *a,
		 const struct mk_eve_alert_opts *o);

/* A buffer size that always holds mk_eve_alert() of @a with @o. */
size_t mk_eve_alert_maxlen(const struct mk_detect_alert *a, const struct mk_eve_alert_opts *o);

/*
 * Renders the static, escaped part of @r's alert object and gives it to the
 * rule; the rule hook every engine build runs (registered at start). 0 or -ENOMEM.
 */
int mk_eve_rule_prepare(struct mk_rule *r);

#endif /* MK_EVE_ALERT_H */
