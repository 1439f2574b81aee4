// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the asn1 keyword's BER walker (userspace/detect/
 * kw/asn1.c): the first byte picks the checks and the start, the next four
 * an oversize_length, the rest is the buffer, in an exact-size copy. The
 * walker never reads outside it (ASan), gives the same answer twice, and is
 * monotonic in oversize_length: what matches with N matches with N - 1 and
 * with 0, and nothing matches with 4294967295 alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor cur = { data, data + size };
	uint8_t sel = take8(&cur);
	struct mk_asn1 a = { 0 }, b;
	uint32_t len, start;
	uint8_t *buf;
	int m;

	a.flags = sel & (MK_ASN1_BITSTRING_OVERFLOW | MK_ASN1_DOUBLE_OVERFLOW | MK_ASN1_OVERSIZE);
	a.oversize_length = take32(&cur);
	len = (uint32_t)(cur.end - cur.p);
	if (len > 1 << 17)
		return 0;
	buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	memcpy(buf, cur.p, len);
	start = len ? (uint32_t)(sel >> 5) % len : 0;
	m = mk_asn1_match(&a, buf, len, start);
	CHECK(m == mk_asn1_match(&a, buf, len, start));
	if (m && (a.flags & MK_ASN1_OVERSIZE) && a.oversize_length) {
		b = a;
		b.oversize_length--;
		CHECK(mk_asn1_match(&b, buf, len, start));
		b.oversize_length = 0;
		CHECK(mk_asn1_match(&b, buf, len, start));
	}
	b = (struct mk_asn1){ .flags = MK_ASN1_OVERSIZE, .oversize_length = UINT32_MAX };
	CHECK(!mk_asn1_match(&b, buf, len, start));
	free(buf);
	return 0;
}
