// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLS keywords: sticky buffers read from a TLS session (its one
 * transaction; applayer/tls/tls_detect.c): the ClientHello's SNI and
 * JA3/JA4, the ServerHello's JA3S, the server's certificates (tls.certs: a
 * multi-buffer, each certificate's DER) and the first certificate's fields
 * in the EVE record's string forms.
 */
#include <string.h>
#include "applayer.h"
#include "detect_int.h"

static const struct {
	const char *name;
	uint8_t buf;
} kw_bufs[] = {
	{ "tls.sni", MK_BUF_TLS_SNI },
	{ "tls_sni", MK_BUF_TLS_SNI },
	{ "tls.certs", MK_BUF_TLS_CERTS },
	{ "tls.cert_subject", MK_BUF_TLS_CERT_SUBJECT },
	{ "tls_cert_subject", MK_BUF_TLS_CERT_SUBJECT },
	{ "tls.cert_issuer", MK_BUF_TLS_CERT_ISSUER },
	{ "tls_cert_issuer", MK_BUF_TLS_CERT_ISSUER },
	{ "tls.cert_serial", MK_BUF_TLS_CERT_SERIAL },
	{ "tls_cert_serial", MK_BUF_TLS_CERT_SERIAL },
	{ "tls.cert_fingerprint", MK_BUF_TLS_CERT_FINGERPRINT },
	{ "tls_cert_fingerprint", MK_BUF_TLS_CERT_FINGERPRINT },
	{ "ja3.hash", MK_BUF_JA3_HASH },
	{ "ja3_hash", MK_BUF_JA3_HASH },
	{ "ja3.string", MK_BUF_JA3_STRING },
	{ "ja3_string", MK_BUF_JA3_STRING },
	{ "ja3s.hash", MK_BUF_JA3S_HASH },
	{ "ja3s.string", MK_BUF_JA3S_STRING },
	{ "ja4.hash", MK_BUF_JA4_HASH },
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

STICKY(sb_tls_sni, "tls.sni", "the ClientHello's server name (SNI)");
STICKY(sb_tls_sni_, "tls_sni", "tls.sni");
STICKY(sb_tls_certs, "tls.certs", "each certificate the server sent, DER");
STICKY(sb_tls_cert_subject, "tls.cert_subject",
       "the server certificate's subject, \"C=US, O=Example, CN=x\"");
STICKY(sb_tls_cert_subject_, "tls_cert_subject", "tls.cert_subject");
STICKY(sb_tls_cert_issuer, "tls.cert_issuer", "the server certificate's issuer");
STICKY(sb_tls_cert_issuer_, "tls_cert_issuer", "tls.cert_issuer");
STICKY(sb_tls_cert_serial, "tls.cert_serial",
       "the server certificate's serial, \"0A:1B:...\" (uppercase hex)");
STICKY(sb_tls_cert_serial_, "tls_cert_serial", "tls.cert_serial");
STICKY(sb_tls_cert_fingerprint, "tls.cert_fingerprint",
       "SHA-1 of the server certificate, \"aa:bb:...\" (lowercase hex)");
STICKY(sb_tls_cert_fingerprint_, "tls_cert_fingerprint", "tls.cert_fingerprint");
STICKY(sb_ja3_hash, "ja3.hash", "MD5 of the ClientHello's JA3 string, 32 hex digits");
STICKY(sb_ja3_hash_, "ja3_hash", "ja3.hash");
STICKY(sb_ja3_string, "ja3.string", "the ClientHello's JA3 string (GREASE removed)");
STICKY(sb_ja3_string_, "ja3_string", "ja3.string");
STICKY(sb_ja3s_hash, "ja3s.hash", "MD5 of the ServerHello's JA3S string");
STICKY(sb_ja3s_string, "ja3s.string", "the ServerHello's JA3S string");
STICKY(sb_ja4_hash, "ja4.hash", "the ClientHello's JA4 fingerprint (FoxIO)");

MK_KW_FAMILY_TABLE(tls, MK_KW_FAMILY_TLS);
