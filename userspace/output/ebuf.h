/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * output/'s bounded appenders for EVE records (eve.c, eve_http.c). Records
 * are written with these rather than snprintf: a flow record is ~30 fields,
 * and under a flood of short flows formatting them was most of the cost of
 * a flow (docs/security.md). Every appender checks room first and marks the
 * buffer overflowed instead of writing past its end; the caller turns that
 * into -ENOSPC once.
 */
#ifndef MK_OUTPUT_EBUF_H
#define MK_OUTPUT_EBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "json.h"

struct ebuf {
	char *p, *end;
	int overflow;
};

static inline void eb_mem(struct ebuf *b, const char *s, size_t n)
{
	if ((size_t)(b->end - b->p) < n) {
		b->overflow = 1;
		b->p = b->end;
		return;
	}
	memcpy(b->p, s, n);
	b->p += n;
}

/* A string literal, its length known at compile time. */
#define EB_LIT(b, lit) eb_mem((b), (lit), sizeof(lit) - 1)

static inline void eb_str(struct ebuf *b, const char *s)
{
	eb_mem(b, s, strlen(s));
}

/* "00" to "99": two digits per division. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline void eb_u64(struct ebuf *b, uint64_t v)
{
	char tmp[20], *p = tmp + sizeof(tmp);

	while (v >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	eb_mem(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* @len bytes of untrusted @s as the inside of a JSON string (mk_json_escape()). */
static inline void eb_json(struct ebuf *b, const uint8_t *s, size_t len)
{
	int n = mk_json_escape(b->p, (size_t)(b->end - b->p), s, len);

	if (n < 0) {
		b->overflow = 1;
		b->p = b->end;
		return;
	}
	b->p += n;
}

#endif /* MK_OUTPUT_EBUF_H */
