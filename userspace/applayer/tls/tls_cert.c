// SPDX-License-Identifier: GPL-2.0-only
/*
 * The server certificate's fields, read with OpenSSL (tls.h), in
 * Suricata's string forms: subject and issuer as "C=US, O=Example, CN=x"
 * (the certificate's order, ", " between attributes, " + " inside a
 * multi-valued one, no escaping), the serial as its DER content octets in
 * uppercase hex joined by ':', the SHA-1 fingerprint of the DER in
 * lowercase hex joined by ':', the validity as "2026-12-04T00:00:00" (UTC)
 * and in seconds (the tls.cert_* date keywords).
 */
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tls.h"

static char *name_string(const X509_NAME *n)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *s = NULL, *data;
	long len;

	if (!b)
		return NULL;
	if (X509_NAME_print_ex(b, n, 0,
			       XN_FLAG_SEP_CPLUS_SPC | XN_FLAG_FN_SN | ASN1_STRFLGS_UTF8_CONVERT) >=
	    0) {
		len = BIO_get_mem_data(b, &data);
		s = malloc((size_t)len + 1);
		if (s) {
			memcpy(s, data, (size_t)len);
			s[len] = '\0';
		}
	}
	BIO_free(b);
	return s;
}

static char *serial_string(const ASN1_INTEGER *i)
{
	unsigned char *der = NULL, *p;
	int n = i2d_ASN1_INTEGER(i, &der), hl, k;
	size_t clen;
	char *s;

	if (n <= 2) {
		OPENSSL_free(der);
		return NULL;
	}
	/* skip the tag and the length octets: the content, with its leading 00 if any */
	hl = der[1] & 0x80 ? 2 + (der[1] & 0x7f) : 2;
	if (hl >= n) {
		OPENSSL_free(der);
		return NULL;
	}
	clen = (size_t)(n - hl);
	p = der + hl;
	s = malloc(3 * clen); /* "AB:CD": 3 per byte, less a ':', plus the NUL */
	if (s)
		for (k = 0; k < (int)clen; k++)
			snprintf(s + (k ? 3 * k - 1 : 0), 4, k ? ":%02X" : "%02X", p[k]);
	OPENSSL_free(der);
	return s;
}

/* @t as "2026-12-04T00:00:00" into @out and in seconds into *@secs; 0, or -1 if unreadable. */
static int time_string(const ASN1_TIME *t, char out[24], int64_t *secs)
{
	struct tm tm;

	out[0] = '\0';
	if (!t || !ASN1_TIME_to_tm(t, &tm))
		return -1;
	strftime(out, 24, "%Y-%m-%dT%H:%M:%S", &tm);
	*secs = (int64_t)timegm(&tm);
	return 0;
}

/* "aa:bb:..." of a SHA-1 digest. */
static void fingerprint(const uint8_t d[SHA1_DIGEST_SIZE], char out[60])
{
	int i;

	for (i = 0; i < SHA1_DIGEST_SIZE; i++)
		snprintf(out + (i ? 3 * i - 1 : 0), 4, i ? ":%02x" : "%02x", d[i]);
}

int mk_tls_cert(const uint8_t *der, uint32_t len, struct mk_tls_info *info)
{
	const unsigned char *p = der;
	uint8_t d[SHA1_DIGEST_SIZE];
	struct sha1_ctx c;
	X509 *x;

	x = d2i_X509(NULL, &p, len);
	if (!x)
		return -1;
	free(info->subject);
	free(info->issuer);
	free(info->serial);
	info->subject = name_string(X509_get_subject_name(x));
	info->issuer = name_string(X509_get_issuer_name(x));
	info->serial = serial_string(X509_get0_serialNumber(x));
	info->has_validity =
		!time_string(X509_get0_notBefore(x), info->notbefore, &info->notbefore_t) &
		!time_string(X509_get0_notAfter(x), info->notafter, &info->notafter_t);
	X509_free(x);
	sha1_init(&c);
	sha1_update(&c, len, der);
	sha1_digest(&c, sizeof(d), d);
	fingerprint(d, info->fingerprint);
	return 0;
}

static void entry_clear(struct mk_tls_cert_entry *e)
{
	free(e->subject);
	free(e->issuer);
	free(e->serial);
	memset(e, 0, sizeof(*e));
}

void mk_tls_thread_free(struct mk_tls_thread *th)
{
	unsigned int i;

	if (!th)
		return;
	for (i = 0; i < MK_TLS_CERT_CACHE; i++)
		entry_clear(&th->certs[i]);
	free(th);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int mk_tls_cert_cached(struct mk_tls_thread *th, const uint8_t *der, uint32_t len,
		       struct mk_tls_info *info, int *cached)
{
	struct mk_tls_cert_entry *e;
	uint8_t d[SHA1_DIGEST_SIZE];
	struct sha1_ctx c;
	int err;

	*cached = 0;
	sha1_init(&c);
	sha1_update(&c, len, der);
	sha1_digest(&c, sizeof(d), d);
	e = &th->certs[(d[0] | (unsigned int)d[1] << 8) % MK_TLS_CERT_CACHE];
	if (e->used && !memcmp(e->sha1, d, sizeof(d))) {
		free(info->subject);
		free(info->issuer);
		free(info->serial);
		info->subject = dup_or_null(e->subject);
		info->issuer = dup_or_null(e->issuer);
		info->serial = dup_or_null(e->serial);
		memcpy(info->notbefore, e->notbefore, sizeof(info->notbefore));
		memcpy(info->notafter, e->notafter, sizeof(info->notafter));
		info->notbefore_t = e->notbefore_t;
		info->notafter_t = e->notafter_t;
		info->has_validity = e->has_validity;
		fingerprint(d, info->fingerprint);
		*cached = 1;
		return 0;
	}
	err = mk_tls_cert(der, len, info);
	if (err)
		return err;
	/* a certificate OpenSSL read: kept (the oldest in its slot gives way) */
	entry_clear(e);
	memcpy(e->sha1, d, sizeof(d));
	e->subject = dup_or_null(info->subject);
	e->issuer = dup_or_null(info->issuer);
	e->serial = dup_or_null(info->serial);
	memcpy(e->notbefore, info->notbefore, sizeof(e->notbefore));
	memcpy(e->notafter, info->notafter, sizeof(e->notafter));
	e->notbefore_t = info->notbefore_t;
	e->notafter_t = info->notafter_t;
	e->has_validity = info->has_validity;
	e->used = 1;
	return 0;
}
