// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the sticky-buffer transforms (userspace/detect/kw/
 * transform.c): the input picks a chain of up to 8 transforms (and an xor
 * key), the rest is the buffer. The chain never crashes nor reads or writes
 * out of bounds, gives the same bytes twice, and keeps each transform's
 * promise on its own: a digest has its size, dotprefix adds one byte to a
 * non-empty buffer, the others never grow it, to_lowercase leaves no upper
 * case letter, strip_whitespace no whitespace, compress_whitespace no two
 * whitespace bytes in a row.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The promise of transform @op from @in_len bytes to out[0, n). */
static void check_one(uint8_t op, uint32_t in_len, const uint8_t *out, uint32_t n)
{
	uint32_t i;

	switch (op) {
	case MK_XF_MD5:
		CHECK(n == 16);
		return;
	case MK_XF_SHA1:
		CHECK(n == 20);
		return;
	case MK_XF_SHA256:
		CHECK(n == 32);
		return;
	case MK_XF_DOTPREFIX:
		CHECK(n == (in_len ? in_len + 1 : 0));
		CHECK(!n || out[0] == '.');
		return;
	default:
		CHECK(n <= in_len);
		break;
	}
	for (i = 0; i < n; i++) {
		if (op == MK_XF_TO_LOWER)
			CHECK(!isupper(out[i]));
		if (op == MK_XF_TO_UPPER)
			CHECK(!islower(out[i]));
		if (op == MK_XF_STRIP_WS)
			CHECK(!isspace(out[i]));
		if (op == MK_XF_COMPRESS_WS && i + 1 < n)
			CHECK(!(isspace(out[i]) && isspace(out[i + 1])));
	}
	if (op == MK_XF_TO_LOWER || op == MK_XF_TO_UPPER || op == MK_XF_HEADER_LOWER ||
	    op == MK_XF_XOR)
		CHECK(n == in_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor cur = { data, data + size };
	struct mk_xform_chain c;
	uint8_t *a = NULL, *b = NULL, *step = NULL, *mid = NULL;
	uint32_t acap = 0, bcap = 0, scap = 0, alen = 0, blen = 0, slen, plen, i, k;
	const uint8_t *prev;

	if (size > 1 << 16)
		return 0;
	memset(&c, 0, sizeof(c));
	c.n = take8(&cur) % (MK_XFORM_MAX + 1);
	for (i = 0; i < c.n; i++) {
		c.x[i].op = (uint8_t)(take8(&cur) % MK_XF_XOR + 1);
		if (c.x[i].op == MK_XF_XOR) {
			c.x[i].klen = (uint8_t)(take8(&cur) % MK_XOR_KEY_MAX + 1);
			for (k = 0; k < c.x[i].klen; k++)
				c.x[i].key[k] = take8(&cur);
		}
	}
	/* the rest is the buffer; exact-size copy so that ASan sees overreads */
	plen = (uint32_t)(cur.end - cur.p);
	{
		uint8_t *in = malloc(plen ? plen : 1);

		if (!in)
			return 0;
		memcpy(in, cur.p, plen);
		if (!mk_xform_apply(&c, in, plen, &a, &acap, &alen) &&
		    !mk_xform_apply(&c, in, plen, &b, &bcap, &blen)) {
			CHECK(alen == blen && (!alen || !memcmp(a, b, alen)));
			/* each transform alone, on the previous one's output */
			prev = in;
			slen = plen;
			for (i = 0; i < c.n; i++) {
				struct mk_xform_chain one = { .n = 1 };
				uint8_t *tmp = malloc(slen ? slen : 1);
				uint32_t n;

				if (!tmp)
					break;
				memcpy(tmp, prev, slen);
				one.x[0] = c.x[i];
				if (mk_xform_apply(&one, tmp, slen, &step, &scap, &n)) {
					free(tmp);
					break;
				}
				check_one(c.x[i].op, slen, step, n);
				free(tmp);
				if (i + 1 == c.n)
					CHECK(n == alen && (!n || !memcmp(step, a, n)));
				/* the next one reads this output: keep a copy */
				tmp = realloc(mid, n ? n : 1);
				if (!tmp)
					break;
				mid = tmp;
				memcpy(mid, step, n);
				prev = mid;
				slen = n;
			}
		}
		free(in);
	}
	free(a);
	free(b);
	free(step);
	free(mid);
	return 0;
}
