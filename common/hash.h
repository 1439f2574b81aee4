/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Seeded hash of the canonical flow key (Bob Jenkins' lookup3, as the
 * kernel's jhash2) over only the words of the key that can be set: 6 for an
 * IPv4 key (whose address words 1-3 are zero by construction), all 12 for
 * IPv6. The key is already symmetric, so the hash is too; the seed is chosen
 * at random when the sensor starts and handed to the XDP program as read-only
 * data, so nobody outside can aim flows at one worker (test/unit/test_hash.c
 * checks that flows made to collide under one seed do not under another).
 */
#ifndef MK_HASH_H
#define MK_HASH_H

#include "compat.h"
#include "flow_key.h"

#define MK_JHASH_INITVAL 0xdeadbeefu

MK_INLINE __u32 mk_rol32(__u32 w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

#define MK_JHASH_MIX(a, b, c)                                                                      \
	do {                                                                                       \
		a -= c; a ^= mk_rol32(c, 4);  c += b;                                              \
		b -= a; b ^= mk_rol32(a, 6);  a += c;                                              \
		c -= b; c ^= mk_rol32(b, 8);  b += a;                                              \
		a -= c; a ^= mk_rol32(c, 16); c += b;                                              \
		b -= a; b ^= mk_rol32(a, 19); a += c;                                              \
		c -= b; c ^= mk_rol32(b, 4);  b += a;                                              \
	} while (0)

#define MK_JHASH_FINAL(a, b, c)                                                                    \
	do {                                                                                       \
		c ^= b; c -= mk_rol32(b, 14);                                                      \
		a ^= c; a -= mk_rol32(c, 11);                                                      \
		b ^= a; b -= mk_rol32(a, 25);                                                      \
		c ^= b; c -= mk_rol32(b, 16);                                                      \
		a ^= c; a -= mk_rol32(c, 4);                                                       \
		b ^= a; b -= mk_rol32(a, 14);                                                      \
		c ^= b; c -= mk_rol32(b, 24);                                                      \
	} while (0)

/* jhash2 over a whole number of 32-bit words, 1 <= n; n is a constant at every call. */
MK_INLINE __u32 mk_jhash_words(const __u32 *k, __u32 n, __u32 initval)
{
	__u32 a, b, c;

	a = b = c = MK_JHASH_INITVAL + (n << 2) + initval;
	while (n > 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		MK_JHASH_MIX(a, b, c);
		n -= 3;
		k += 3;
	}
	switch (n) {
	case 3:
		c += k[2];
		/* fallthrough */
	case 2:
		b += k[1];
		/* fallthrough */
	case 1:
		a += k[0];
		MK_JHASH_FINAL(a, b, c);
		break;
	default:
		break;
	}
	return c;
}

MK_INLINE __u32 mk_flow_hash(const struct mk_flow_key *key, __u32 seed)
{
	__u32 w[sizeof(*key) / 4];

	/*
	 * Copy, never cast: reading the __u16/__u8 fields through a __u32
	 * pointer breaks strict aliasing, and gcc -O2 then hashed the key as it
	 * was before its ports, VLANs and protocol were stored.
	 */
	mk_memcpy(w, key, sizeof(w));
	if (key->family == MK_FAMILY_IPV4) {
		/* addr_lo[0], addr_hi[0], ports, VLANs, tunnel context, protocol and family */
		__u32 v[6] = {w[0], w[4], w[8], w[9], w[10], w[11]};

		return mk_jhash_words(v, 6, seed);
	}
	return mk_jhash_words(w, sizeof(w) / 4, seed);
}

/*
 * Tunnel context: the tunnel type and the *ordered* outer address pair,
 * chained over nested tunnels (@prev), hashed over the address words that
 * can be set (one each for IPv4). TEIDs, session ids, VNIs and keys differ
 * per direction or say nothing about the path, and never enter it.
 */
MK_INLINE __u32 mk_tunnel_ctx(__u32 prev, __u32 type, __u32 family, const __u32 *a,
			      const __u32 *b)
{
	__u32 w[8];
	int swap = mk_endpoint_cmp(a, 0, b, 0) > 0;
	int i;

	if (family == MK_FAMILY_IPV4) {
		w[0] = swap ? b[0] : a[0];
		w[1] = swap ? a[0] : b[0];
		return mk_jhash_words(w, 2, prev * 31 + type) | 1; /* never 0: "no tunnel" */
	}
	for (i = 0; i < 4; i++) {
		w[i] = swap ? b[i] : a[i];
		w[i + 4] = swap ? a[i] : b[i];
	}
	return mk_jhash_words(w, 8, prev * 31 + type) | 1;
}

#endif /* MK_HASH_H */
