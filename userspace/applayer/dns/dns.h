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
};

/*
 * Instance @idx of DNS buffer @id (detect_buf.h) of transaction @tx read in
 * direction @to_client: 1 and @data/@len set, or 0 when there is none.
 */
int mk_dns_tx_buffer(const void *tx, unsigned int id, uint32_t idx, int to_client,
		     const uint8_t **data, uint32_t *len);

#endif /* MK_DNS_H */
