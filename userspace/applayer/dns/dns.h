/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * DNS over UDP and TCP (docs/applayer.md): each message decoded
 * (dns_msg.h); a query opens a transaction, the response with its id
 * closes it (tx_id as Suricata numbers them); each message handed to the
 * EVE writer as it comes (a `dns` record of type query or answer). Over TCP
 * the messages are length-prefixed (RFC 1035 4.2.2): several in a segment,
 * one across segments, each held until whole; a gap ends the direction's
 * parsing (the next length prefix cannot be found again), counted.
 */
#ifndef MK_DNS_H
#define MK_DNS_H

#include <stdint.h>
#include "applayer_int.h"

/*
 * Whether @p (@len bytes, one UDP payload or, @tcp, the start of a TCP
 * direction) is DNS: 1 yes, 0 no, -1 need more bytes (TCP only). Without
 * @port_hint (neither port is 53) the message must decode whole and look
 * like a query or answer a resolver sends; with it, a sane header is enough.
 */
int mk_dns_probe(struct mk_app_thread *a, const uint8_t *p, uint32_t len, int tcp, int port_hint);

int mk_dns_thread_new(struct mk_app_thread *a);
void mk_dns_thread_free(struct mk_app_thread *a);

/* NULL when out of memory (counted). */
struct mk_dns_flow *mk_dns_flow_new(struct mk_app_thread *a);
/* One UDP payload. */
void mk_dns_udp(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d, int to_client,
		const uint8_t *data, uint32_t len);
/* Reassembled TCP bytes of one direction; @gap: bytes were lost before them. */
void mk_dns_tcp(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d, int to_client,
		const uint8_t *data, uint32_t len, int gap);
void mk_dns_flow_free(struct mk_dns_flow *d);

struct mk_dns_msg;

/*
 * A DNS transaction as detection sees it (struct mk_detect_tx.tx): the
 * message that made it progress, a query or its response. Valid until the
 * end of the packet it came in (alerts render it then).
 */
struct mk_dns_tx {
	const struct mk_dns_msg *m;
	uint64_t tx_id;
	uint8_t to_client; /* @m is a response */
	uint32_t events;   /* the message's app-layer events, 1 << enum mk_dns_event */
};

/*
 * DNS app-layer events (app-layer-event:dns.NAME; docs/applayer.md),
 * Suricata's names, raised on one message: E(id, name) (E, not X: the
 * counter check reads X lists as counters).
 */
#define MK_DNS_EVENTS(E)                              \
	E(MALFORMED_DATA, "malformed_data")           \
	E(NOT_A_REQUEST, "not_a_request")             \
	E(NOT_A_RESPONSE, "not_a_response")           \
	E(Z_FLAG_SET, "z_flag_set")                   \
	E(INVALID_OPCODE, "invalid_opcode")           \
	E(NAME_TOO_LONG, "name_too_long")             \
	E(INFINITE_LOOP, "infinite_loop")             \
	E(INVALID_AUTHORITIES, "invalid_authorities") \
	E(INVALID_ADDITIONALS, "invalid_additionals")

#define MK_DNS_EV_ENUM(id, name) MK_DNS_EV_##id,
enum mk_dns_event { MK_DNS_EVENTS(MK_DNS_EV_ENUM) MK_DNS_EV_MAX };
#undef MK_DNS_EV_ENUM

/* The event named @name (without "dns."), or -1. */
int mk_dns_event_lookup(const char *name);
const char *mk_dns_event_name(unsigned int id);
/* The events of message @m that arrived towards the client (@to_client) or the server. */
uint32_t mk_dns_msg_events(const struct mk_dns_msg *m, int decoded, int to_client);

/*
 * Instance @idx of DNS buffer @id (detect_buf.h) of transaction @tx read in
 * direction @to_client: 1 and @data/@len set, or 0 when there is none.
 */
int mk_dns_tx_buffer(const void *tx, unsigned int id, uint32_t idx, int to_client,
		     const uint8_t **data, uint32_t *len);

#endif /* MK_DNS_H */
