// SPDX-License-Identifier: GPL-2.0-only
/*
 * base64_decode[:bytes N][,offset N][,relative] and base64_data, as
 * Suricata's: base64_decode decodes base64 from the current buffer (from
 * its start, or with relative from the end of the previous match, skipping
 * offset bytes, reading at most bytes of it), and the payload keywords after
 * base64_data inspect the decoded bytes. The keywords after base64_data are
 * kept in the base64_decode keyword's own list (rb->b64_list while it is
 * the current buffer); match/payload.c runs them when it reaches
 * base64_decode. Nothing decoded, or the list not matching, is no match; a
 * match ends the buffer's inspection there (Suricata's "terminal" list).
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

/* 1 + the value of each byte of the base64 alphabet, 0 outside it (one load per byte). */
static const uint8_t b64_values[256] = {
	['A'] = 1,  ['B'] = 2,	['C'] = 3,  ['D'] = 4,	['E'] = 5,  ['F'] = 6,	['G'] = 7,
	['H'] = 8,  ['I'] = 9,	['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14,
	['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21,
	['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28,
	['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35,
	['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
	['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49,
	['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
	['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['+'] = 63,
	['/'] = 64
};

/*
 * Four sextets (a '=' is 0 and counts in @pad) to 3 - pad bytes, written
 * only as far as @cap allows.
 */
static uint32_t b64_group(const uint8_t q[4], uint32_t pad, uint8_t *out, uint32_t o, uint32_t cap)
{
	uint8_t b[3];
	uint32_t n = 3 - (pad < 3 ? pad : 3), k;

	b[0] = (uint8_t)(q[0] << 2 | q[1] >> 4);
	b[1] = (uint8_t)(q[1] << 4 | q[2] >> 2);
	b[2] = (uint8_t)(q[2] << 6 | q[3]);
	if (n > cap - o)
		return 0; /* as Suricata: a group that does not fit is not written */
	for (k = 0; k < n; k++)
		out[o + k] = b[k];
	return n;
}

uint32_t mk_base64_decode(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap,
			  uint32_t *used)
{
	uint8_t q[4] = { 0 };
	uint32_t i, nq = 0, pad = 0, o = 0, n, consumed = 0;

	for (i = 0; i < len; i++) {
		int v = b64_values[in[i]] - 1;

		if (v < 0) {
			if (in[i] != '=')
				break; /* RFC 4648: the first byte outside the alphabet ends it */
			pad++;
			v = 0;
		}
		q[nq++] = (uint8_t)v;
		if (nq < 4)
			continue;
		n = b64_group(q, pad, out, o, cap);
		if (!n && pad < 3)
			goto out; /* full */
		o += n;
		consumed += 4;
		nq = 0;
		pad = 0;
		memset(q, 0, sizeof(q));
	}
	if (nq) {
		/* a last partial group: its whole bytes (1 or 2 sextets give one, 3 give two) */
		pad = nq > 1 ? 4 - nq : 2;
		n = b64_group(q, pad, out, o, cap);
		o += n;
		if (n)
			consumed += nq;
	}
out:
	if (used)
		*used = consumed;
	return o;
}

static void b64_free(void *ctx)
{
	struct mk_base64 *b = ctx;
	uint32_t i;

	if (!b)
		return;
	for (i = 0; i < b->data.n; i++)
		if (b->data.sm[i].kw->free)
			b->data.sm[i].kw->free(b->data.sm[i].ctx);
	free(b->data.sm);
	free(b);
}

/* "bytes N", "offset N" or "relative", in any order, separated by commas. */
static int setup_base64_decode(struct mk_rule_build *rb, const char *value)
{
	struct mk_base64 *b = calloc(1, sizeof(*b));
	char *v = strdup(value), *tok, *save = NULL;
	int seen_bytes = 0, seen_off = 0;

	if (!b || !v) {
		free(b);
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	if (rb->b64_list) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "base64_decode after base64_data: one level of decoding only");
		goto err;
	}
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t n;

		tok = mk_strtrim(tok);
		if (!strcmp(tok, "relative")) {
			b->relative = 1;
		} else if (!strncmp(tok, "bytes", 5) && (tok[5] == ' ' || tok[5] == '\t')) {
			if (seen_bytes++ || mk_parse_u32(tok + 6, &n) || n > MK_B64_BYTES_MAX) {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s': bytes is a number 0-%u, given once", tok,
					     MK_B64_BYTES_MAX);
				goto err;
			}
			b->bytes = n;
		} else if (!strncmp(tok, "offset", 6) && (tok[6] == ' ' || tok[6] == '\t')) {
			if (seen_off++ || mk_parse_u32(tok + 7, &n)) {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s': offset is a number 0-4294967295, given once",
					     tok);
				goto err;
			}
			b->offset = n;
		} else {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "unknown option '%.40s' (bytes N, offset N, relative)", tok);
			goto err;
		}
	}
	free(v);
	if (!b->bytes)
		b->bytes = MK_B64_BYTES_MAX; /* Suricata: 0 or none is the maximum */
	if (mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_base64_decode, b))
		return -1; /* add_sm freed it */
	rb->b64 = b;
	return 0;
err:
	free(v);
	free(b);
	return -1;
}

/* The payload keywords that follow inspect the last base64_decode's output. */
static int setup_base64_data(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	if (!rb->b64)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs a base64_decode before it");
	if (rb->sticky_open)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "follows a sticky buffer: it reads the base64_decode of the "
				    "buffer before (put base64_decode in this one)");
	rb->b64_list = &rb->b64->data;
	rb->b64_buf = rb->cur_buf;
	rb->last_content = NULL;
	rb->last_payload = NULL;
	return 0;
}

/* base64_data takes content, pcre, isdataat and the byte keywords (as Suricata's list). */
static int b64_list_check(struct mk_rule_build *rb, const struct mk_sm_list *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		switch (l->sm[i].kw->type) {
		case MK_KWT_CONTENT:
		case MK_KWT_PCRE:
		case MK_KWT_ISDATAAT:
		case MK_KWT_BYTE_TEST:
		case MK_KWT_BYTE_JUMP:
		case MK_KWT_BYTE_EXTRACT:
			break;
		default:
			rb->kw = "base64_data";
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "'%s' cannot inspect the decoded bytes (content, pcre, "
					    "isdataat and byte_* can)",
					    l->sm[i].kw->name);
		}
	}
	return 0;
}

int mk_base64_check(struct mk_rule_build *rb)
{
	uint32_t b, i;

	for (b = 0; b < MK_BUF_COUNT; b++) {
		const struct mk_sm_list *l = &rb->r->bufs[b];

		for (i = 0; i < l->n; i++) {
			if (l->sm[i].kw != &mk_kw_base64_decode)
				continue;
			rb->kw = "base64_decode";
			if (!((const struct mk_base64 *)l->sm[i].ctx)->data.n)
				return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
						    "no base64_data keywords follow it: the rule "
						    "could never match (as in Suricata)");
			/* Suricata's base64_data ends the buffer's inspection: refuse what it skips */
			if (i + 1 < l->n)
				return mk_rule_fail(
					rb, MK_DETECT_FAIL_VALUE,
					"'%s' follows it in %s and would never be "
					"checked (base64_data ends the inspection, as in "
					"Suricata): put it before base64_decode",
					l->sm[i + 1].kw->name, mk_buf_names[b]);
			if (b64_list_check(rb, &((const struct mk_base64 *)l->sm[i].ctx)->data))
				return -1;
			rb->kw = NULL;
		}
	}
	return 0;
}

const struct mk_kw mk_kw_base64_decode = {
	.name = "base64_decode",
	.type = MK_KWT_BASE64,
	.flags = 0,
	.setup = setup_base64_decode,
	.free = b64_free,
	.doc = "[bytes N][, offset N][, relative]: decodes base64 from the buffer for base64_data",
};

const struct mk_kw mk_kw_base64_data = {
	.name = "base64_data",
	.type = MK_KWT_META,
	.flags = MK_KWF_NOVALUE,
	.setup = setup_base64_data,
	.doc = "the payload keywords after it inspect the bytes base64_decode decoded",
};

MK_KW_FAMILY_TABLE(base64, MK_KW_FAMILY_BASE64);
