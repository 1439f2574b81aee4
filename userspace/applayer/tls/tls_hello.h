/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TLS ClientHello and ServerHello bodies decoded (RFC 8446 4.1.2, 4.1.3;
 * RFC 5246 7.4.1), and the fingerprints made of them: JA3 and JA3S
 * (Salesforce: decimal values joined, GREASE values removed, MD5) and JA4
 * (FoxIO's specification: the a_b_c form over TCP). Pure functions of the
 * bytes; the flow glue is tls.c.
 */
#ifndef MK_TLS_HELLO_H
#define MK_TLS_HELLO_H

#include <stddef.h>
#include <stdint.h>

#define MK_TLS_LIST_MAX 128 /* ciphers, extensions, groups... kept of a hello */
#define MK_TLS_SNI_MAX 256
#define MK_TLS_ALPN_MAX 64

struct mk_tls_hello {
	uint16_t version;	 /* legacy_version of the hello */
	uint16_t chosen_version; /* ServerHello: supported_versions' selection, else version */
	uint16_t max_version; /* ClientHello: highest of supported_versions (no GREASE), else version */
	uint16_t ciphers[MK_TLS_LIST_MAX], nciphers; /* ServerHello: the one chosen */
	uint16_t exts[MK_TLS_LIST_MAX], nexts;	     /* in order, GREASE included */
	uint16_t groups[MK_TLS_LIST_MAX], ngroups;
	uint8_t formats[MK_TLS_LIST_MAX];
	uint16_t nformats;
	uint16_t sigalgs[MK_TLS_LIST_MAX], nsigalgs;
	char sni[MK_TLS_SNI_MAX]; /* the first host_name, NUL-terminated */
	uint16_t sni_len;
	uint8_t has_sni;
	char alpn[MK_TLS_ALPN_MAX]; /* the first protocol offered (chosen, in a ServerHello) */
	uint16_t alpn_len;
	uint8_t has_alpn;
	uint8_t sni_seen;   /* ClientHello: a server_name extension came */
	uint8_t sni_faults; /* ... and MK_TLS_SNI_* of them */
};

/* sni_faults (the session's tls.multiple_sni_extensions, invalid_sni_type, invalid_sni_length) */
#define MK_TLS_SNI_MULTIPLE 0x01 /* more than one server_name extension */
#define MK_TLS_SNI_TYPE 0x02	 /* a name of a type other than host_name */
#define MK_TLS_SNI_LENGTH 0x04	 /* the name list or a name runs past its extension */

/* 0 when @body (a handshake message's body, @len bytes) decodes; -1 when it is malformed. */
int mk_tls_client_hello(const uint8_t *body, size_t len, struct mk_tls_hello *h);
int mk_tls_server_hello(const uint8_t *body, size_t len, struct mk_tls_hello *h);

/* RFC 8701's reserved values (0x?a?a with both bytes equal). */
static inline int mk_tls_grease(uint16_t v)
{
	return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff);
}

#define MK_TLS_JA3_MAX 4096
#define MK_TLS_JA4_LEN 40 /* t13d1516h2_8daaf6152771_e5627efa2ab1 (36) and its NUL */

/* The JA3 string of a ClientHello, or JA3S of a ServerHello, into @out (cut at @size). */
void mk_tls_ja3(const struct mk_tls_hello *h, int server, char *out, size_t size);
/* The lowercase hex MD5 of @s into @hex (33 bytes). */
void mk_tls_md5_hex(const char *s, char hex[33]);
/* JA4 of a ClientHello carried over TCP into @out[MK_TLS_JA4_LEN]. */
void mk_tls_ja4(const struct mk_tls_hello *h, char out[MK_TLS_JA4_LEN]);

#endif /* MK_TLS_HELLO_H */
