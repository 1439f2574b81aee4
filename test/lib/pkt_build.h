/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Building IPv4 packets byte by byte, for the generators of test captures
 * (test/bench, test/attack): big-endian stores, the Internet checksum, an
 * IPv4 header and the TCP/UDP pseudo-header sum. Header-only; every
 * generator writes its own L4 headers and pcap records around these.
 */
#ifndef MK_TEST_PKT_BUILD_H
#define MK_TEST_PKT_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void pb_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void pb_put32(uint8_t *p, uint32_t v)
{
	pb_put16(p, (uint16_t)(v >> 16));
	pb_put16(p + 2, (uint16_t)v);
}

/* Little-endian, as pcap record headers are written on this host's format. */
static inline void pb_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The Internet checksum of @len bytes at @p, starting from the partial @sum. */
static inline uint16_t pb_csum(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* An IPv4 header without options at @p (TTL 64, checksum set); returns its length, 20. */
static inline size_t pb_ip4(uint8_t *p, uint32_t src, uint32_t dst, uint8_t proto, size_t payload,
			    uint16_t id, uint16_t frag)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	pb_put16(p + 2, (uint16_t)(20 + payload));
	pb_put16(p + 4, id);
	pb_put16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
	pb_put32(p + 12, src);
	pb_put32(p + 16, dst);
	pb_put16(p + 10, pb_csum(0, p, 20));
	return 20;
}

/* The TCP/UDP pseudo-header's partial sum for pb_csum(). */
static inline uint32_t pb_pseudo4(uint32_t src, uint32_t dst, uint8_t proto, size_t len)
{
	return (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) + proto + (uint32_t)len;
}

/* xorshift64*: the capture generators' reproducible random numbers. */
static inline uint32_t pb_xorshift(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (uint32_t)((*state * 0x2545f4914f6cdd1dull) >> 32);
}

#endif /* MK_TEST_PKT_BUILD_H */
