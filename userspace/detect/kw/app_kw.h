/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The value parsers and matchers of the TLS and DNS match keywords
 * (kw/tls.c, kw/dns.c), pure functions exported for the unit tests. Each
 * parser returns 0, or -1 when the value is not of the keyword's syntax.
 */
#ifndef MK_KW_APP_KW_H
#define MK_KW_APP_KW_H

#include <stdint.h>
#include "detect_int.h"

/* tls.version: 1.0|1.1|1.2|1.3|sslv3|0xNNNN into the wire version. */
int mk_kw_tls_version_parse(const char *value, uint16_t *out);

/* ssl_version: bit i of pos/neg is sslv2, sslv3, tls1.0, tls1.1, tls1.2, tls1.3. */
struct mk_ssl_version {
	uint8_t pos, neg;
	uint8_t client; /* reads the client's offer (a to_server rule) */
};

int mk_kw_ssl_version_parse(const char *value, struct mk_ssl_version *out);
int mk_kw_ssl_version_match(const struct mk_ssl_version *sv, uint16_t version);

/* tls.cert_notbefore, tls.cert_notafter: seconds since the epoch compared. */
enum { MK_TLS_DATE_EQ = 0, MK_TLS_DATE_LT, MK_TLS_DATE_GT, MK_TLS_DATE_RANGE };

struct mk_tls_date {
	uint8_t mode;
	int64_t a, b; /* b: the range's end (inclusive) */
};

int mk_kw_tls_date_parse(const char *value, struct mk_tls_date *out);
int mk_kw_tls_date_match(const struct mk_tls_date *d, int64_t t);

/* ssl_state: bit i of pos/neg is client_hello, server_hello, client_keyx, server_keyx, unknown. */
struct mk_ssl_state {
	uint8_t pos, neg;
};

/* @need: the parts (MK_BUF_SIDE_*) that tell whether the messages named came. */
int mk_kw_ssl_state_parse(const char *value, struct mk_ssl_state *out, uint8_t *need);
/* @hs_seen: struct mk_tls_info's, the handshake types each side sent. */
int mk_kw_ssl_state_match(const struct mk_ssl_state *ss, const uint32_t hs_seen[2]);

/* dns.rrtype: a type's number or its name (A, AAAA, ...), with the integer forms. */
int mk_kw_dns_rrtype_parse(const char *value, struct mk_uint *out);
/* dns.rcode: a number up to 15 or its name (NOERROR, NXDOMAIN, ...), with the integer forms. */
int mk_kw_dns_rcode_parse(const char *value, struct mk_uint *out);

#endif /* MK_KW_APP_KW_H */
