// SPDX-License-Identifier: GPL-2.0-only
/* EVE `tls` records (eve_tls.h). */
#include <errno.h>
#include <string.h>
#include "ebuf.h"
#include "eve_tls.h"
#include "tls.h"

const char *mk_eve_tls_version(uint16_t v)
{
	switch (v) {
	case 0x0002:
		return "SSLv2";
	case 0x0300:
		return "SSLv3";
	case 0x0301:
		return "TLS 1.0";
	case 0x0302:
		return "TLS 1.1";
	case 0x0303:
		return "TLS 1.2";
	case 0x0304:
		return "TLS 1.3";
	default:
		return "UNDETERMINED";
	}
}

static void put_str(struct ebuf *o, int *first, const char *name, const char *v)
{
	if (!v || !*v)
		return;
	if (!*first)
		EB_LIT(o, ",");
	*first = 0;
	EB_LIT(o, "\"");
	eb_str(o, name);
	EB_LIT(o, "\":\"");
	eb_json(o, (const uint8_t *)v, strlen(v));
	EB_LIT(o, "\"");
}

static void put_fp(struct ebuf *o, const char *name, const char *hash, const char *str)
{
	if (!str)
		return;
	EB_LIT(o, ",\"");
	eb_str(o, name);
	EB_LIT(o, "\":{\"hash\":\"");
	eb_str(o, hash);
	EB_LIT(o, "\",\"string\":\"");
	eb_json(o, (const uint8_t *)str, strlen(str));
	EB_LIT(o, "\"}");
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

size_t mk_eve_tls_maxlen(const struct mk_tls_info *t)
{
	return 6 * (slen(t->subject) + slen(t->issuer) + slen(t->serial) + slen(t->sni) +
		    slen(t->ja3) + slen(t->ja3s)) +
	       512;
}

int mk_eve_tls_object(char *buf, size_t size, const struct mk_tls_info *t)
{
	struct ebuf o = { .p = buf, .end = buf + size };
	int first = 1;

	EB_LIT(&o, "\"tls\":{");
	put_str(&o, &first, "subject", t->subject);
	put_str(&o, &first, "issuerdn", t->issuer);
	put_str(&o, &first, "serial", t->serial);
	put_str(&o, &first, "fingerprint", t->fingerprint);
	if (t->has_sni)
		put_str(&o, &first, "sni", t->sni);
	put_str(&o, &first, "version", mk_eve_tls_version(t->version));
	put_str(&o, &first, "notbefore", t->notbefore);
	put_str(&o, &first, "notafter", t->notafter);
	put_fp(&o, "ja3", t->ja3_hash, t->ja3);
	put_fp(&o, "ja3s", t->ja3s_hash, t->ja3s);
	if (t->ja4[0]) {
		EB_LIT(&o, ",\"ja4\":\"");
		eb_str(&o, t->ja4);
		EB_LIT(&o, "\"");
	}
	EB_LIT(&o, "}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}

int mk_eve_tls(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
	       uint64_t ts_us, const struct mk_tls_info *t)
{
	int n, k;

	if (size < 3)
		return -ENOSPC;
	size--; /* the terminating NUL */
	n = mk_eve_head(buf, size, cfg, f, ts_us, "tls");
	if (n < 0)
		return n;
	if ((size_t)n + 1 > size)
		return -ENOSPC;
	buf[n++] = ',';
	k = mk_eve_tls_object(buf + n, size - (size_t)n, t);
	if (k < 0)
		return k;
	n += k;
	if ((size_t)n + 1 > size)
		return -ENOSPC;
	buf[n++] = '}';
	buf[n] = '\0';
	return n;
}
