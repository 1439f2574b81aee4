/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TLS over TCP (docs/applayer.md): the record layer of each direction,
 * handshake messages reassembled across records and segments, the
 * ClientHello and ServerHello decoded (tls_hello.h: SNI, ALPN, versions,
 * JA3, JA3S, JA4), the server's certificate read with OpenSSL (TLS 1.2 and
 * earlier; TLS 1.3 sends it encrypted). Once either side sends encrypted
 * data the session is encrypted: nothing more is parsed, the session's EVE
 * `tls` record is handed over (or at the flow's end if that comes first).
 * An SSLv2 ClientHello is recognised and logged as such, not parsed.
 */
#ifndef MK_TLS_H
#define MK_TLS_H

#include <stdint.h>
#include "applayer_int.h"
#include "tls_hello.h"

/* Certificates of the server's chain kept for tls.certs. */
#define MK_TLS_CERTS_MAX 16

/* hs_seen: a handshake type outside RFC 8446's and RFC 5246's lists (Suricata's "unknown"). */
#define MK_TLS_HS_UNKNOWN (1u << 31)

/* What the EVE `tls` record (and detection) reads of a session. */
struct mk_tls_info {
	uint16_t version; /* the server's choice; 0: no ServerHello (UNDETERMINED) */
	uint8_t sslv2;	  /* an SSLv2 ClientHello */
	uint8_t has_sni;
	uint16_t client_version; /* the ClientHello's highest offer (supported_versions); SSLv2: 2 */
	/* handshake message types each side sent ([to_client]): 1 << type, MK_TLS_HS_UNKNOWN */
	uint32_t hs_seen[2];
	char sni[MK_TLS_SNI_MAX];
	char *ja3, *ja3s; /* the strings; NULL without the hello */
	char ja3_hash[33], ja3s_hash[33];
	char ja4[MK_TLS_JA4_LEN]; /* "" without a ClientHello */
	/* the server's certificate (the first of the chain); NULL without one */
	char *subject, *issuer, *serial;
	char fingerprint[60]; /* SHA-1 of the DER, "aa:bb:..." */
	char notbefore[24], notafter[24];
	int64_t notbefore_t, notafter_t; /* the same, seconds since the epoch (UTC) */
	uint8_t has_validity;		 /* ... both read */
	uint32_t chain;			 /* certificates the server sent */
	/* their DER (tls.certs), the first MK_TLS_CERTS_MAX of them: cert i is certs[off[i], off[i+1]) */
	uint8_t *certs;
	uint32_t cert_off[MK_TLS_CERTS_MAX + 1];
	uint32_t ncerts;
	uint32_t events; /* app-layer events raised, 1 << enum mk_tls_event */
};

/*
 * TLS app-layer events (app-layer-event:tls.NAME; docs/applayer.md),
 * Suricata's names, raised on the session: E(id, name) (E, not X: the
 * counter check reads X lists as counters).
 */
#define MK_TLS_EVENTS(E)                                            \
	E(INVALID_RECORD_TYPE, "invalid_record_type")               \
	E(INVALID_RECORD_VERSION, "invalid_record_version")         \
	E(INVALID_RECORD_LENGTH, "invalid_record_length")           \
	E(INVALID_HANDSHAKE_MESSAGE, "invalid_handshake_message")   \
	E(HANDSHAKE_INVALID_LENGTH, "handshake_invalid_length")     \
	E(INVALID_CERTIFICATE, "invalid_certificate")               \
	E(CERTIFICATE_INVALID_LENGTH, "certificate_invalid_length") \
	E(CERTIFICATE_INVALID_DER, "certificate_invalid_der")       \
	E(MULTIPLE_SNI, "multiple_sni_extensions")                  \
	E(INVALID_SNI_TYPE, "invalid_sni_type")                     \
	E(INVALID_SNI_LENGTH, "invalid_sni_length")                 \
	E(HEARTBEAT, "heartbeat_message")                           \
	E(OVERFLOW_HEARTBEAT, "overflow_heartbeat_message")         \
	E(INVALID_HEARTBEAT, "invalid_heartbeat_message")           \
	E(ERROR_MESSAGE, "error_message_encountered")

#define MK_TLS_EV_ENUM(id, name) MK_TLS_EV_##id,
enum mk_tls_event { MK_TLS_EVENTS(MK_TLS_EV_ENUM) MK_TLS_EV_MAX };
#undef MK_TLS_EV_ENUM

/* The event named @name (without "tls."), or -1. */
int mk_tls_event_lookup(const char *name);
const char *mk_tls_event_name(unsigned int id);

/*
 * Instance @idx of TLS buffer @id (detect_buf.h) of session @tx (its struct
 * mk_tls_info: a session is one transaction): 1 and @data/@len set, or 0.
 */
int mk_tls_tx_buffer(const void *tx, unsigned int id, uint32_t idx, const uint8_t **data,
		     uint32_t *len);

/* A worker's scratch: the hello being decoded (3 KB, not on the stack). */
/*
 * A server certificate already read, by the SHA-1 of its DER: servers send
 * the same certificate session after session, and OpenSSL's reading of one
 * costs a few hundred microseconds.
 */
struct mk_tls_cert_entry {
	uint8_t sha1[20];
	uint8_t used, has_validity;
	char *subject, *issuer, *serial;
	char notbefore[24], notafter[24];
	int64_t notbefore_t, notafter_t;
};

#define MK_TLS_CERT_CACHE 64 /* entries per worker, direct-mapped */

struct mk_tls_thread {
	struct mk_tls_hello hello;
	struct mk_tls_cert_entry certs[MK_TLS_CERT_CACHE];
};

/* Frees the worker's TLS scratch and its certificate cache (NULL: nothing). */
void mk_tls_thread_free(struct mk_tls_thread *th);

/*
 * Whether @p (@len bytes, the start of a TCP direction) is TLS: 1 yes, 0
 * no, -1 need more. A handshake record with a ClientHello towards the
 * server, a ServerHello towards the client, or an SSLv2 ClientHello.
 */
int mk_tls_probe(const uint8_t *p, uint32_t len, int to_client);

/* NULL when out of memory (counted). */
struct mk_tls_flow *mk_tls_flow_new(struct mk_app_thread *a);
void mk_tls_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t, int to_client,
		 const uint8_t *data, uint32_t len, int gap);
/* The flow ends: the session is logged if it was not yet. */
void mk_tls_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t);
void mk_tls_flow_free(struct mk_tls_flow *t);

/* The certificate @der (@len bytes) into @info's certificate fields. 0, or -1 if unreadable. */
int mk_tls_cert(const uint8_t *der, uint32_t len, struct mk_tls_info *info);
/* The same through the worker's cache (@cached: set to 1 when it answered). */
int mk_tls_cert_cached(struct mk_tls_thread *th, const uint8_t *der, uint32_t len,
		       struct mk_tls_info *info, int *cached);

#endif /* MK_TLS_H */
