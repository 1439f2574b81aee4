/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every libFuzzer target here shares: an invariant check that aborts
 * (libFuzzer then keeps the input) and a cursor that reads the fuzzer's bytes
 * as fields, returning 0 once they run out.
 */
#ifndef MK_FUZZ_H
#define MK_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, \
				__LINE__);                                                 \
			abort();                                                           \
		}                                                                          \
	} while (0)

struct cursor {
	const uint8_t *p, *end;
};

static inline uint8_t take8(struct cursor *c)
{
	return c->p < c->end ? *c->p++ : 0;
}

static inline uint16_t take16(struct cursor *c)
{
	uint16_t hi = take8(c);

	return (uint16_t)(hi << 8 | take8(c));
}

static inline uint32_t take32(struct cursor *c)
{
	uint32_t hi = take16(c);

	return hi << 16 | take16(c);
}

#endif /* MK_FUZZ_H */
