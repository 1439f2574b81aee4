// SPDX-License-Identifier: GPL-2.0-only
/*
 * TLS's detection buffers (tls.h): what a rule's tls.* and ja3/ja4 buffers
 * read of a session, in the EVE record's forms (the JA3 and JA3S hashes as
 * 32 lowercase hex digits, the certificate's fields as tls_cert.c writes
 * them); tls.certs is each certificate's DER.
 */
#include <string.h>
#include "detect_buf.h"
#include "tls.h"

static int str_buf(const char *s, const uint8_t **data, uint32_t *len)
{
	if (!s || !*s)
		return 0;
	*data = (const uint8_t *)s;
	*len = (uint32_t)strlen(s);
	return 1;
}

int mk_tls_tx_buffer(const void *tx, unsigned int id, uint32_t idx, const uint8_t **data,
		     uint32_t *len)
{
	const struct mk_tls_info *t = tx;

	if (idx && id != MK_BUF_TLS_CERTS)
		return 0;
	switch (id) {
	case MK_BUF_TLS_SNI:
		return t->has_sni && str_buf(t->sni, data, len);
	case MK_BUF_JA3_HASH:
		return t->ja3 && str_buf(t->ja3_hash, data, len);
	case MK_BUF_JA3_STRING:
		return str_buf(t->ja3, data, len);
	case MK_BUF_JA4_HASH:
		return str_buf(t->ja4, data, len);
	case MK_BUF_JA3S_HASH:
		return t->ja3s && str_buf(t->ja3s_hash, data, len);
	case MK_BUF_JA3S_STRING:
		return str_buf(t->ja3s, data, len);
	case MK_BUF_TLS_CERTS:
		if (!t->certs || idx >= t->ncerts)
			return 0;
		*data = t->certs + t->cert_off[idx];
		*len = t->cert_off[idx + 1] - t->cert_off[idx];
		return 1;
	case MK_BUF_TLS_CERT_SUBJECT:
		return str_buf(t->subject, data, len);
	case MK_BUF_TLS_CERT_ISSUER:
		return str_buf(t->issuer, data, len);
	case MK_BUF_TLS_CERT_SERIAL:
		return str_buf(t->serial, data, len);
	case MK_BUF_TLS_CERT_FINGERPRINT:
		return t->subject && str_buf(t->fingerprint, data, len);
	default:
		return 0;
	}
}
