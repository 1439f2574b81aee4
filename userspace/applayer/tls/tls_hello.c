// SPDX-License-Identifier: GPL-2.0-only
/* TLS hellos and their fingerprints (tls_hello.h). */
#include <nettle/md5.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tls_hello.h"

struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint32_t take(struct cur *c, unsigned int n)
{
	uint32_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	while (n--)
		v = v << 8 | *c->p++;
	return v;
}

/* A sub-cursor over the next @n bytes of @c. */
static struct cur sub(struct cur *c, size_t n)
{
	struct cur s = { c->p, c->p, 1 };

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return s;
	}
	s.end = c->p + n;
	s.bad = 0;
	c->p += n;
	return s;
}

static void list16(struct cur *c, uint16_t *out, uint16_t *n)
{
	*n = 0;
	while (!c->bad && c->p < c->end) {
		uint16_t v = (uint16_t)take(c, 2);

		if (!c->bad && *n < MK_TLS_LIST_MAX)
			out[(*n)++] = v;
	}
}

/* server_name: the first host_name */
static void ext_sni(struct cur e, struct mk_tls_hello *h)
{
	struct cur l = sub(&e, take(&e, 2));

	if (l.bad || e.p != e.end)
		h->sni_faults |= MK_TLS_SNI_LENGTH;
	while (!l.bad && l.p < l.end) {
		uint8_t type = (uint8_t)take(&l, 1);
		struct cur name = sub(&l, take(&l, 2));
		size_t n = (size_t)(name.end - name.p);

		if (l.bad || name.bad) {
			h->sni_faults |= MK_TLS_SNI_LENGTH;
			return;
		}
		if (type != 0)
			h->sni_faults |= MK_TLS_SNI_TYPE;
		if (type == 0 && !h->has_sni) {
			if (n >= sizeof(h->sni))
				n = sizeof(h->sni) - 1;
			memcpy(h->sni, name.p, n);
			h->sni[n] = '\0';
			h->sni_len = (uint16_t)n;
			h->has_sni = 1;
		}
	}
}

/* application_layer_protocol_negotiation: the first protocol */
static void ext_alpn(struct cur e, struct mk_tls_hello *h)
{
	struct cur l = sub(&e, take(&e, 2));
	struct cur p = sub(&l, take(&l, 1));
	size_t n = (size_t)(p.end - p.p);

	if (l.bad || p.bad)
		return;
	if (n >= sizeof(h->alpn))
		n = sizeof(h->alpn) - 1;
	memcpy(h->alpn, p.p, n);
	h->alpn[n] = '\0';
	h->alpn_len = (uint16_t)n;
	h->has_alpn = 1;
}

static void extensions(struct cur *c, struct mk_tls_hello *h, int server)
{
	struct cur all;

	h->nexts = 0;
	if (c->p == c->end)
		return; /* no extensions at all (SSLv3, old clients) */
	all = sub(c, take(c, 2));
	while (!all.bad && all.p < all.end) {
		uint16_t type = (uint16_t)take(&all, 2);
		struct cur e = sub(&all, take(&all, 2));
		struct cur l;

		if (all.bad)
			break;
		if (h->nexts < MK_TLS_LIST_MAX)
			h->exts[h->nexts++] = type;
		switch (type) {
		case 0:
			if (server)
				break;
			if (h->sni_seen)
				h->sni_faults |= MK_TLS_SNI_MULTIPLE;
			h->sni_seen = 1;
			ext_sni(e, h);
			break;
		case 10: /* supported_groups */
			l = sub(&e, take(&e, 2));
			list16(&l, h->groups, &h->ngroups);
			break;
		case 11: /* ec_point_formats */
			l = sub(&e, take(&e, 1));
			h->nformats = 0;
			while (!l.bad && l.p < l.end && h->nformats < MK_TLS_LIST_MAX)
				h->formats[h->nformats++] = (uint8_t)take(&l, 1);
			break;
		case 13: /* signature_algorithms */
			l = sub(&e, take(&e, 2));
			list16(&l, h->sigalgs, &h->nsigalgs);
			break;
		case 16:
			ext_alpn(e, h);
			break;
		case 43: /* supported_versions: a list from the client, one value from the server */
			if (server) {
				h->chosen_version = (uint16_t)take(&e, 2);
				break;
			}
			l = sub(&e, take(&e, 1));
			while (!l.bad && l.p < l.end) {
				uint16_t v = (uint16_t)take(&l, 2);

				if (!l.bad && !mk_tls_grease(v) && v > h->max_version)
					h->max_version = v;
			}
			break;
		default:
			break;
		}
	}
	if (all.bad)
		c->bad = 1;
}

int mk_tls_client_hello(const uint8_t *body, size_t len, struct mk_tls_hello *h)
{
	struct cur c = { body, body + len, 0 }, l;

	memset(h, 0, sizeof(*h));
	h->version = (uint16_t)take(&c, 2);
	take(&c, 32);		  /* random */
	sub(&c, take(&c, 1));	  /* session id */
	l = sub(&c, take(&c, 2)); /* cipher suites */
	list16(&l, h->ciphers, &h->nciphers);
	sub(&c, take(&c, 1)); /* compression methods */
	if (c.bad)
		return -1;
	h->max_version = 0;
	extensions(&c, h, 0);
	if (!h->max_version)
		h->max_version = h->version;
	return c.bad ? -1 : 0;
}

int mk_tls_server_hello(const uint8_t *body, size_t len, struct mk_tls_hello *h)
{
	struct cur c = { body, body + len, 0 };

	memset(h, 0, sizeof(*h));
	h->version = (uint16_t)take(&c, 2);
	take(&c, 32);
	sub(&c, take(&c, 1));
	h->ciphers[0] = (uint16_t)take(&c, 2);
	h->nciphers = 1;
	take(&c, 1); /* compression */
	if (c.bad)
		return -1;
	extensions(&c, h, 1);
	if (!h->chosen_version)
		h->chosen_version = h->version;
	h->max_version = h->chosen_version;
	return c.bad ? -1 : 0;
}

/* ---- fingerprints ---- */

struct sb {
	char *p;
	size_t len, size;
};

static void sb_printf(struct sb *s, const char *fmt, unsigned int v)
{
	int n;

	if (s->len >= s->size)
		return;
	n = snprintf(s->p + s->len, s->size - s->len, fmt, v);
	s->len = n < 0 ? s->size : s->len + (size_t)n > s->size ? s->size : s->len + (size_t)n;
}

static void sb_str(struct sb *s, const char *str)
{
	size_t n = strlen(str);

	if (s->len + n >= s->size) {
		s->len = s->size;
		return;
	}
	memcpy(s->p + s->len, str, n + 1);
	s->len += n;
}

/* Values of a list in decimal, '-' between them, GREASE left out. */
static void ja3_list(struct sb *s, const uint16_t *v, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (!mk_tls_grease(v[i]))
			sb_printf(s, k++ ? "-%u" : "%u", v[i]);
}

void mk_tls_ja3(const struct mk_tls_hello *h, int server, char *out, size_t size)
{
	struct sb s = { out, 0, size };
	unsigned int i;

	out[0] = '\0';
	sb_printf(&s, "%u,", h->version);
	ja3_list(&s, h->ciphers, h->nciphers);
	sb_str(&s, ",");
	ja3_list(&s, h->exts, h->nexts);
	if (!server) {
		sb_str(&s, ",");
		ja3_list(&s, h->groups, h->ngroups);
		sb_str(&s, ",");
		for (i = 0; i < h->nformats; i++)
			sb_printf(&s, i ? "-%u" : "%u", h->formats[i]);
	}
	if (s.len >= size)
		out[size - 1] = '\0';
}

void mk_tls_md5_hex(const char *s, char hex[33])
{
	uint8_t d[MD5_DIGEST_SIZE];
	struct md5_ctx c;
	int i;

	md5_init(&c);
	md5_update(&c, strlen(s), (const uint8_t *)s);
	md5_digest(&c, sizeof(d), d);
	for (i = 0; i < MD5_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static int cmp16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* The first 12 hex digits of SHA-256 of @s; "000000000000" for an empty list. */
static void sha12(const char *s, size_t len, char out[13])
{
	uint8_t d[SHA256_DIGEST_SIZE];
	struct sha256_ctx c;
	int i;

	if (!len) {
		memcpy(out, "000000000000", 13);
		return;
	}
	sha256_init(&c);
	sha256_update(&c, len, (const uint8_t *)s);
	sha256_digest(&c, sizeof(d), d);
	for (i = 0; i < 6; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* "0a0b,..." of @v sorted, without GREASE and without @skip values; returns the count kept. */
static unsigned int hex_sorted(const uint16_t *v, unsigned int n, const uint16_t *skip,
			       unsigned int nskip, struct sb *s)
{
	uint16_t tmp[MK_TLS_LIST_MAX];
	unsigned int i, j, k = 0;

	for (i = 0; i < n; i++) {
		int drop = mk_tls_grease(v[i]);

		for (j = 0; j < nskip; j++)
			drop |= v[i] == skip[j];
		if (!drop)
			tmp[k++] = v[i];
	}
	qsort(tmp, k, sizeof(tmp[0]), cmp16);
	for (i = 0; i < k; i++)
		sb_printf(s, i ? ",%04x" : "%04x", tmp[i]);
	return k;
}

static const char *ja4_version(uint16_t v)
{
	switch (v) {
	case 0x0304:
		return "13";
	case 0x0303:
		return "12";
	case 0x0302:
		return "11";
	case 0x0301:
		return "10";
	case 0x0300:
		return "s3";
	case 0x0002:
		return "s2";
	case 0xfeff:
		return "d1";
	case 0xfefd:
		return "d2";
	case 0xfefc:
		return "d3";
	default:
		return "00";
	}
}

static int alnum(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

void mk_tls_ja4(const struct mk_tls_hello *h, char out[MK_TLS_JA4_LEN])
{
	static const uint16_t sni_alpn[] = { 0x0000, 0x0010 };
	char buf[MK_TLS_LIST_MAX * 5 * 2 + 2], b[13], c[13], alpn[3] = "00";
	struct sb s = { buf, 0, sizeof(buf) };
	unsigned int i, nc = 0, ne = 0, k;

	for (i = 0; i < h->nciphers; i++)
		nc += !mk_tls_grease(h->ciphers[i]);
	for (i = 0; i < h->nexts; i++)
		ne += !mk_tls_grease(h->exts[i]);
	if (h->has_alpn && h->alpn_len) {
		uint8_t f = (uint8_t)h->alpn[0], l = (uint8_t)h->alpn[h->alpn_len - 1];

		if (alnum(f) && alnum(l)) {
			alpn[0] = (char)f;
			alpn[1] = (char)l;
		} else {
			/* the first and last characters of the value's hex form */
			static const char hx[] = "0123456789abcdef";

			alpn[0] = hx[f >> 4];
			alpn[1] = hx[l & 0xf];
		}
	}
	hex_sorted(h->ciphers, h->nciphers, NULL, 0, &s);
	sha12(buf, s.len, b);
	s.len = 0;
	buf[0] = '\0';
	k = hex_sorted(h->exts, h->nexts, sni_alpn, 2, &s);
	if (k && h->nsigalgs) {
		unsigned int j = 0;

		sb_str(&s, "_");
		for (i = 0; i < h->nsigalgs; i++)
			if (!mk_tls_grease(h->sigalgs[i]))
				sb_printf(&s, j++ ? ",%04x" : "%04x", h->sigalgs[i]);
	}
	sha12(buf, k ? s.len : 0, c);
	snprintf(out, MK_TLS_JA4_LEN, "t%s%c%02u%02u%s_%s_%s", ja4_version(h->max_version),
		 h->has_sni ? 'd' : 'i', nc > 99 ? 99 : nc, ne > 99 ? 99 : ne, alpn, b, c);
}
