// SPDX-License-Identifier: GPL-2.0-only
/*
 * asn1: bitstring_overflow, double_overflow, oversize_length N,
 * absolute_offset N, relative_offset N (commas or spaces between them), as
 * Suricata's: the packet payload from the chosen position (the start by
 * default) is read as a series of BER objects, and the rule matches when
 * one of them, or an object nested in one, fails a requested check:
 *
 *   oversize_length N   its length is more than N
 *   bitstring_overflow  a primitive BIT STRING whose unused-bits count is
 *                       more than its length in bits
 *   double_overflow     a primitive REAL in decimal form longer than 256
 *                       bytes (an old MSASN1 overflow)
 *
 * The walker never reads outside the buffer: every length is checked
 * against what remains of the buffer and of the enclosing object. As
 * Suricata's (der-parser), an object that does not parse (truncated,
 * nested deeper than 30, malformed) is dropped with everything after it,
 * and more than 30 objects at the top is no match at all.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

/* Universal tags the checks look at or the parser validates. */
enum {
	TAG_EOC = 0,
	TAG_BOOLEAN = 1,
	TAG_INTEGER = 2,
	TAG_BIT_STRING = 3,
	TAG_NULL = 5,
	TAG_OID = 6,
	TAG_REAL = 9,
	TAG_ENUMERATED = 10,
	TAG_SEQUENCE = 16,
	TAG_SET = 17,
};

struct ber_hdr {
	uint8_t cls, constructed, indefinite;
	uint32_t tag;
	uint32_t hlen; /* identifier and length octets */
	uint64_t len;  /* content length (definite) */
};

/* Reads the identifier and length at buf[pos, end). 0, or -1 when malformed or truncated. */
static int ber_header(const uint8_t *buf, uint32_t pos, uint32_t end, struct ber_hdr *h)
{
	uint32_t p = pos, k, n;
	uint8_t b;

	if (p >= end)
		return -1;
	b = buf[p++];
	h->cls = b >> 6;
	h->constructed = !!(b & 0x20);
	h->tag = b & 0x1f;
	if (h->tag == 0x1f) {
		/* high tag number: base 128, at most 28 bits */
		h->tag = 0;
		for (k = 0;; k++) {
			if (p >= end || k == 4)
				return -1;
			b = buf[p++];
			h->tag = h->tag << 7 | (b & 0x7f);
			if (!(b & 0x80))
				break;
		}
	}
	if (p >= end)
		return -1;
	b = buf[p++];
	h->indefinite = 0;
	if (b < 0x80) {
		h->len = b;
	} else if (b == 0x80) {
		if (!h->constructed)
			return -1; /* indefinite length is for constructed encodings only */
		h->indefinite = 1;
		h->len = 0;
	} else {
		n = b & 0x7f;
		if (b == 0xff || n > 8)
			return -1;
		h->len = 0;
		for (k = 0; k < n; k++) {
			if (p >= end)
				return -1;
			h->len = h->len << 8 | buf[p++];
		}
	}
	h->hlen = p - pos;
	if (!h->indefinite && h->len > end - p)
		return -1; /* longer than what is left */
	return 0;
}

/* Content rules of the universal types (what der-parser refuses). */
static int ber_valid(const struct ber_hdr *h)
{
	if (h->cls != 0)
		return 1;
	switch (h->tag) {
	case TAG_SEQUENCE:
	case TAG_SET:
		return h->constructed;
	case TAG_BOOLEAN:
		return !h->constructed && h->len == 1;
	case TAG_NULL:
		return !h->constructed && h->len == 0;
	case TAG_INTEGER:
	case TAG_ENUMERATED:
	case TAG_OID:
		return !h->constructed && h->len > 0;
	case TAG_REAL:
		return !h->constructed;
	case TAG_BIT_STRING:
		return h->constructed || h->len > 0;
	default:
		return 1;
	}
}

/*
 * Parses the object at buf[pos, end), @depth levels deep (1 at the top);
 * returns its end, or -1. The content of an indefinite-length object ends
 * with an end-of-contents (00 00), which is part of it.
 */
static int64_t ber_parse(const uint8_t *buf, uint32_t pos, uint32_t end, unsigned int depth)
{
	struct ber_hdr h;
	uint32_t p, cend;
	int64_t e;

	if (depth > MK_ASN1_MAX_FRAMES || ber_header(buf, pos, end, &h) || !ber_valid(&h))
		return -1;
	p = pos + h.hlen;
	if (!h.constructed)
		return (int64_t)p + (int64_t)h.len;
	if (!h.indefinite) {
		cend = p + (uint32_t)h.len;
		while (p < cend) {
			e = ber_parse(buf, p, cend, depth + 1);
			if (e < 0)
				return -1;
			p = (uint32_t)e;
		}
		return cend;
	}
	for (;;) {
		if (end - p >= 2 && buf[p] == 0 && buf[p + 1] == 0)
			return (int64_t)p + 2;
		e = ber_parse(buf, p, end, depth + 1);
		if (e < 0)
			return -1;
		p = (uint32_t)e;
	}
}

/*
 * The checks of @a on the object at buf[pos, end) (parsed without error)
 * and the objects inside it, in order. Returns 1 at the first that holds.
 */
static int ber_check(const struct mk_asn1 *a, const uint8_t *buf, uint32_t pos, uint32_t end,
		     uint32_t *next)
{
	struct ber_hdr h;
	uint32_t p, cend;
	uint64_t len;

	if (ber_header(buf, pos, end, &h))
		return 0; /* not reached: parsed before */
	p = pos + h.hlen;
	len = h.len;
	if (h.indefinite) {
		int64_t e = ber_parse(buf, pos, end, 1);

		if (e < 0)
			return 0;
		len = (uint64_t)e - p - 2; /* the content, without its end-of-contents */
	}
	if ((a->flags & MK_ASN1_OVERSIZE) && len > a->oversize_length)
		return 1;
	if (h.cls == 0 && !h.constructed && len > 0) {
		if ((a->flags & MK_ASN1_BITSTRING_OVERFLOW) && h.tag == TAG_BIT_STRING &&
		    buf[p] > len * 8)
			return 1;
		if ((a->flags & MK_ASN1_DOUBLE_OVERFLOW) && h.tag == TAG_REAL && !(buf[p] & 0xc0) &&
		    len > 256)
			return 1;
	}
	cend = p + (uint32_t)len;
	*next = h.indefinite ? cend + 2 : cend;
	if (!h.constructed)
		return 0;
	while (p < cend) {
		uint32_t n = cend;

		if (ber_check(a, buf, p, cend, &n))
			return 1;
		if (n <= p)
			return 0;
		p = n;
	}
	return 0;
}

int mk_asn1_match(const struct mk_asn1 *a, const uint8_t *buf, uint32_t len, uint32_t start)
{
	uint32_t ends[MK_ASN1_MAX_FRAMES], n = 0, pos = start, i, prev, next;
	int64_t e;

	/* as Suricata: parse the objects first; more than 30 is no match at all */
	while (pos < len) {
		if (n == MK_ASN1_MAX_FRAMES)
			return 0;
		e = ber_parse(buf, pos, len, 1);
		if (e < 0)
			break;
		ends[n++] = (uint32_t)e;
		pos = (uint32_t)e;
	}
	for (i = 0, prev = start; i < n; prev = ends[i++])
		if (ber_check(a, buf, prev, ends[i], &next))
			return 1;
	return 0;
}

/* Reads a number after the option's name: "name N". */
static int opt_number(const char **s, const char *name, int64_t lo, int64_t hi, int64_t *out)
{
	const char *p = *s + strlen(name);
	char *end;
	long long v;

	if (*p != ' ' && *p != '\t')
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!(*p == '-' && p[1] >= '0' && p[1] <= '9') && !(*p >= '0' && *p <= '9'))
		return -1;
	v = strtoll(p, &end, 10);
	if (v < lo || v > hi || end - p > 12)
		return -1;
	*out = v;
	*s = end;
	return 0;
}

static int setup_asn1(struct mk_rule_build *rb, const char *value)
{
	static const struct {
		const char *name;
		uint32_t flag;
		int64_t lo, hi;
	} opts[] = {
		{ "bitstring_overflow", MK_ASN1_BITSTRING_OVERFLOW, 0, 0 },
		{ "double_overflow", MK_ASN1_DOUBLE_OVERFLOW, 0, 0 },
		{ "oversize_length", MK_ASN1_OVERSIZE, 0, UINT32_MAX },
		{ "absolute_offset", MK_ASN1_ABSOLUTE, 0, 65535 },
		{ "relative_offset", MK_ASN1_RELATIVE, -65535, 65535 },
	};
	struct mk_asn1 *a = calloc(1, sizeof(*a));
	const char *s = value;
	unsigned int k;
	int64_t v;

	if (!a)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			break;
		for (k = 0; k < MK_ARRAY_SIZE(opts); k++)
			if (!strncmp(s, opts[k].name, strlen(opts[k].name)))
				break;
		if (k == MK_ARRAY_SIZE(opts)) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "unknown option '%.40s' (bitstring_overflow, double_overflow, "
				     "oversize_length N, absolute_offset N, relative_offset N)",
				     s);
			goto err;
		}
		if (opts[k].hi) {
			if (opt_number(&s, opts[k].name, opts[k].lo, opts[k].hi, &v)) {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s': %s needs a number %lld-%lld", s,
					     opts[k].name, (long long)opts[k].lo,
					     (long long)opts[k].hi);
				goto err;
			}
			if (opts[k].flag == MK_ASN1_OVERSIZE)
				a->oversize_length = (uint32_t)v;
			else if (opts[k].flag == MK_ASN1_ABSOLUTE)
				a->absolute_offset = (uint16_t)v;
			else
				a->relative_offset = (int32_t)v;
		} else {
			s += strlen(opts[k].name);
		}
		a->flags |= opts[k].flag;
		/* one separator: spaces, or a comma with spaces around it */
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (*s == ',') {
			s++;
			while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
				s++;
			if (!*s || *s == ',') {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "empty option after ','");
				goto err;
			}
		} else if (*s && s[-1] != ' ' && s[-1] != '\t' && s[-1] != '\n' && s[-1] != '\r') {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "'%.40s': missing ',' or space before it", s);
			goto err;
		}
	}
	if (!(a->flags &
	      (MK_ASN1_BITSTRING_OVERFLOW | MK_ASN1_DOUBLE_OVERFLOW | MK_ASN1_OVERSIZE))) {
		mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"needs a check: bitstring_overflow, double_overflow or oversize_length N");
		goto err;
	}
	/* Suricata reads the packet's payload only: TCP rules read segments */
	rb->r->flags |= MK_RF_PKT_KW;
	return mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_asn1, a);
err:
	free(a);
	return -1;
}

MK_KW_DEFINE(asn1, MK_KWT_ASN1, 0, setup_asn1, NULL,
	     "bitstring_overflow, double_overflow, oversize_length N, absolute_offset N, "
	     "relative_offset N: BER checks on the payload");

MK_KW_FAMILY_TABLE(asn1, MK_KW_FAMILY_ASN1);
