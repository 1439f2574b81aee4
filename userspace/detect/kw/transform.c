// SPDX-License-Identifier: GPL-2.0-only
/*
 * bsize and the transforms of a sticky buffer, as Suricata's.
 *
 * bsize compares the length of the current sticky buffer (after its
 * transforms) with a number; it joins the buffer's keyword list and is
 * checked before the list is walked (match/buffers.c). The transforms
 * (dotprefix, to_lowercase, ..., xor) follow a sticky buffer directly and
 * turn it into a derived buffer, in the order given; the keywords after
 * them read the derived bytes. The rule keeps one chain per buffer
 * (struct mk_rule xf[]); the worker builds each derived buffer once per
 * transaction inspection and shares it between the rules with the same
 * chain (match/buffers.c). Hashes use nettle.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include "detect_int.h"

/* ---- bsize ------------------------------------------------------------------------ */

/* bsize:N|<N|>N|<=N|>=N|!N|N<>M: the length of the current sticky buffer. */
static int setup_bsize(struct mk_rule_build *rb, const char *value)
{
	struct mk_bsize *b;

	if (rb->cur_buf == MK_BUF_PAYLOAD)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "needs a sticky buffer before it (http.uri, http.host, ...)");
	b = calloc(1, sizeof(*b));
	if (!b)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_uint_parse(value, UINT32_MAX, &b->u) || b->u.mode == MK_U_BITMASK ||
	    b->u.mode == MK_U_NOTBITMASK) {
		free(b);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.40s' is not N, <N, >N, <=N, >=N, !N or N<>M (0-4294967295)",
				    value);
	}
	return mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_bsize, b);
}

const struct mk_kw mk_kw_bsize = {
	.name = "bsize",
	.type = MK_KWT_BSIZE,
	.flags = MK_KWF_VALUE,
	.setup = setup_bsize,
	.free = free,
	.doc = "length of the current sticky buffer (after its transforms): N, <N, >N, <=N, "
	       ">=N, !N, N<>M (exclusive)",
};

/* pkt_data: the payload keywords after it read the payload (packet or stream) again. */
static int setup_pkt_data(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	rb->cur_buf = MK_BUF_PAYLOAD;
	rb->sticky_open = 0;
	rb->last_content = NULL;
	rb->last_payload = NULL;
	return 0;
}

const struct mk_kw mk_kw_pkt_data = {
	.name = "pkt_data",
	.type = MK_KWT_META,
	.flags = MK_KWF_NOVALUE,
	.setup = setup_pkt_data,
	.doc = "the keywords after it read the payload again (after a sticky buffer)",
};

/* ---- transforms: setup ---------------------------------------------------------------- */

static const struct {
	const char *name;
	uint8_t op;
} xf_names[] = {
	{ "dotprefix", MK_XF_DOTPREFIX },
	{ "to_lowercase", MK_XF_TO_LOWER },
	{ "to_uppercase", MK_XF_TO_UPPER },
	{ "strip_whitespace", MK_XF_STRIP_WS },
	{ "compress_whitespace", MK_XF_COMPRESS_WS },
	{ "url_decode", MK_XF_URL_DECODE },
	{ "header_lowercase", MK_XF_HEADER_LOWER },
	{ "strip_pseudo_headers", MK_XF_STRIP_PSEUDO },
	{ "to_md5", MK_XF_MD5 },
	{ "to_sha1", MK_XF_SHA1 },
	{ "to_sha256", MK_XF_SHA256 },
	{ "xor", MK_XF_XOR },
};

static const char *xf_name(uint8_t op)
{
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(xf_names); i++)
		if (xf_names[i].op == op)
			return xf_names[i].name;
	return "?";
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* xor:"0d0ac8ff": the key in hex, in double quotes. */
static int xor_key(struct mk_rule_build *rb, const char *value, struct mk_xform *x)
{
	size_t n = strlen(value), i;

	if (n < 2 || !mk_quoted(value))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "the key must be hex digits in double quotes");
	value++;
	n -= 2;
	if (!n || n % 2)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "the key's length must be an even number of hex digits");
	if (n / 2 > MK_XOR_KEY_MAX)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "the key is longer than %d bytes",
				    MK_XOR_KEY_MAX);
	for (i = 0; i < n; i += 2) {
		int hi = hexval((unsigned char)value[i]), lo = hexval((unsigned char)value[i + 1]);

		if (hi < 0 || lo < 0)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "the key must be hex digits ('%c%c' is not)", value[i],
					    value[i + 1]);
		x->key[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	x->klen = (uint8_t)(n / 2);
	return 0;
}

static int setup_xform(struct mk_rule_build *rb, const char *value)
{
	struct mk_xform *x;
	size_t i;

	if (!rb->sticky_open || rb->cur_buf == MK_BUF_PAYLOAD)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "transforms must directly follow a sticky buffer");
	if (rb->xf.n == MK_XFORM_MAX)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "more than %d transforms on one buffer", MK_XFORM_MAX);
	x = &rb->xf.x[rb->xf.n];
	memset(x, 0, sizeof(*x));
	for (i = 0; i < MK_ARRAY_SIZE(xf_names); i++)
		if (!strcmp(xf_names[i].name, rb->cur_kw->name))
			x->op = xf_names[i].op;
	if (x->op == MK_XF_XOR && xor_key(rb, value, x))
		return -1;
	rb->xf.n++;
	return 0;
}

#define XFORM(n, flags_, doc_)                                 \
	const struct mk_kw mk_kw_##n = { .name = #n,           \
					 .type = MK_KWT_META,  \
					 .flags = (flags_),    \
					 .setup = setup_xform, \
					 .doc = "transform: " doc_ }

XFORM(dotprefix, MK_KWF_NOVALUE, "prepends '.' (an empty buffer stays empty)");
XFORM(to_lowercase, MK_KWF_NOVALUE, "ASCII letters to lower case");
XFORM(to_uppercase, MK_KWF_NOVALUE, "ASCII letters to upper case");
XFORM(strip_whitespace, MK_KWF_NOVALUE, "removes every whitespace byte");
XFORM(compress_whitespace, MK_KWF_NOVALUE, "keeps the first byte of each whitespace run");
XFORM(url_decode, MK_KWF_NOVALUE, "decodes %XX and '+'; bad or cut escapes stay as they are");
XFORM(header_lowercase, MK_KWF_NOVALUE, "lowercases each line's header name (up to ':')");
XFORM(strip_pseudo_headers, MK_KWF_NOVALUE, "removes the lines that start with ':'");
XFORM(to_md5, MK_KWF_NOVALUE, "the MD5 digest (16 bytes)");
XFORM(to_sha1, MK_KWF_NOVALUE, "the SHA-1 digest (20 bytes)");
XFORM(to_sha256, MK_KWF_NOVALUE, "the SHA-256 digest (32 bytes)");
XFORM(xor, MK_KWF_VALUE, "XOR with a repeated key: \"hex\" (1-32 bytes)");

MK_KW_FAMILY_TABLE(transform, MK_KW_FAMILY_TRANSFORM);

/* ---- transforms: the bytes ---------------------------------------------------------------- */

static int reserve(uint8_t **buf, uint32_t *cap, uint32_t need)
{
	uint32_t c = *cap ? *cap : 64;
	uint8_t *p;

	if (need <= *cap && *buf)
		return 0;
	if (need > 1u << 31)
		return -ENOMEM; /* no buffer is this large; c would overflow */
	while (c < need)
		c *= 2;
	p = realloc(*buf, c);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}

/* One transform from in[0, len) to out (at least len + 1 or 32 bytes); returns the length. */
static uint32_t xform_one(const struct mk_xform *x, const uint8_t *in, uint32_t len, uint8_t *out)
{
	uint32_t i, o = 0;
	int in_name = 1, bol = 1, skip = 0;

	switch (x->op) {
	case MK_XF_DOTPREFIX:
		if (!len)
			return 0;
		out[0] = '.';
		memcpy(out + 1, in, len);
		return len + 1;
	case MK_XF_TO_LOWER:
	case MK_XF_TO_UPPER:
		for (i = 0; i < len; i++)
			out[i] = x->op == MK_XF_TO_LOWER ? (uint8_t)tolower(in[i]) :
							   (uint8_t)toupper(in[i]);
		return len;
	case MK_XF_STRIP_WS:
		for (i = 0; i < len; i++)
			if (!isspace(in[i]))
				out[o++] = in[i];
		return o;
	case MK_XF_COMPRESS_WS:
		/* as Suricata: the first byte of a run stays, the rest of the run goes */
		for (i = 0; i < len; i++) {
			out[o++] = in[i];
			if (isspace(in[i]))
				while (i + 1 < len && isspace(in[i + 1]))
					i++;
		}
		return o;
	case MK_XF_URL_DECODE:
		for (i = 0; i < len; i++) {
			if (in[i] == '%' && i + 2 < len && isxdigit(in[i + 1]) &&
			    isxdigit(in[i + 2])) {
				out[o++] = (uint8_t)(hexval(in[i + 1]) << 4 | hexval(in[i + 2]));
				i += 2;
			} else {
				out[o++] = in[i] == '+' ? ' ' : in[i];
			}
		}
		return o;
	case MK_XF_HEADER_LOWER:
		for (i = 0; i < len; i++) {
			if (in_name && in[i] == ':')
				in_name = 0;
			out[i] = in_name ? (uint8_t)tolower(in[i]) : in[i];
			if (in[i] == '\n')
				in_name = 1;
		}
		return len;
	case MK_XF_STRIP_PSEUDO:
		for (i = 0; i < len; i++) {
			if (bol)
				skip = in[i] == ':';
			if (!skip)
				out[o++] = in[i];
			bol = in[i] == '\n';
		}
		return o;
	case MK_XF_MD5: {
		struct md5_ctx c;

		md5_init(&c);
		md5_update(&c, len, in);
		md5_digest(&c, MD5_DIGEST_SIZE, out);
		return MD5_DIGEST_SIZE;
	}
	case MK_XF_SHA1: {
		struct sha1_ctx c;

		sha1_init(&c);
		sha1_update(&c, len, in);
		sha1_digest(&c, SHA1_DIGEST_SIZE, out);
		return SHA1_DIGEST_SIZE;
	}
	case MK_XF_SHA256: {
		struct sha256_ctx c;

		sha256_init(&c);
		sha256_update(&c, len, in);
		sha256_digest(&c, SHA256_DIGEST_SIZE, out);
		return SHA256_DIGEST_SIZE;
	}
	case MK_XF_XOR:
		for (i = 0; i < len; i++)
			out[i] = in[i] ^ x->key[i % x->klen];
		return len;
	default:
		memcpy(out, in, len);
		return len;
	}
}

int mk_xform_apply(const struct mk_xform_chain *c, const uint8_t *in, uint32_t len, uint8_t **buf,
		   uint32_t *cap, uint32_t *olen)
{
	const uint8_t *src;
	uint8_t *tmp = NULL;
	uint32_t tcap = 0, i, n = len, need;

	for (i = 0; i < c->n; i++) {
		/* the output never exceeds the input plus one, or a digest */
		if (n >= 1u << 31) {
			free(tmp);
			return -ENOMEM;
		}
		need = (n + 1 > SHA256_DIGEST_SIZE ? n + 1 : SHA256_DIGEST_SIZE);
		if (i == 0) {
			src = in;
		} else {
			/* the previous output moves to tmp, the next one goes to *buf */
			if (reserve(&tmp, &tcap, n ? n : 1)) {
				free(tmp);
				return -ENOMEM;
			}
			memcpy(tmp, *buf, n);
			src = tmp;
		}
		if (reserve(buf, cap, need)) {
			free(tmp);
			return -ENOMEM;
		}
		n = xform_one(&c->x[i], src, n, *buf);
	}
	free(tmp);
	if (!c->n) {
		if (reserve(buf, cap, len ? len : 1))
			return -ENOMEM;
		memcpy(*buf, in, len);
	}
	*olen = n;
	return 0;
}

const char *mk_xform_content_check(const struct mk_xform_chain *c, const uint8_t *pat, uint32_t len)
{
	uint32_t i, k;

	/* the transforms after the last one whose output is opaque (a digest, xor) */
	for (k = c->n; k > 0; k--) {
		const struct mk_xform *x = &c->x[k - 1];

		if (x->op == MK_XF_MD5 || x->op == MK_XF_SHA1 || x->op == MK_XF_SHA256 ||
		    x->op == MK_XF_XOR)
			break;
		for (i = 0; i < len; i++) {
			if ((x->op == MK_XF_TO_LOWER && isupper(pat[i])) ||
			    (x->op == MK_XF_TO_UPPER && islower(pat[i])) ||
			    (x->op == MK_XF_STRIP_WS && isspace(pat[i])) ||
			    (x->op == MK_XF_COMPRESS_WS && isspace(pat[i]) && i + 1 < len &&
			     isspace(pat[i + 1])))
				return xf_name(x->op);
		}
	}
	return NULL;
}
