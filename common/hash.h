/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The seeded flow hash of the canonical flow key, and the tunnel context.
 *
 * Flow hash: NH (the compression function of UMAC, RFC 4418) over the words
 * of the key that can be set (6 for IPv4, whose address words 1-3 are zero by
 * construction; all 12 for IPv6), then a 64-bit finaliser. NH adds a key word
 * to each message word (mod 2^32) and sums the 64-bit products of the pairs:
 * one multiply per two words, no rotations (which BPF lacks), so it costs the
 * XDP program a fraction of jhash2. For a random key, two different messages
 * of one length collide with probability at most 2^-32, whatever the
 * messages: collisions cannot be found without the key. The key is expanded
 * from the 32-bit seed (chosen at random when the sensor starts) by
 * splitmix64, by the loader into the program's read-only data and here, once
 * per seed, for user space; test/unit/test_hash.c checks that flows made to
 * collide under one seed spread under another, and the spread over buckets.
 * The key is already symmetric, so the hash is too.
 */
#ifndef MK_HASH_H
#define MK_HASH_H

#include "compat.h"
#include "flow_key.h"

/* Bob Jenkins' lookup3, as the kernel's jhash2: user space's own tables. */
#define MK_JHASH_INITVAL 0xdeadbeefu

MK_INLINE __u32 mk_rol32(__u32 w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

#define MK_JHASH_MIX(a, b, c)         \
	do {                          \
		a -= c;               \
		a ^= mk_rol32(c, 4);  \
		c += b;               \
		b -= a;               \
		b ^= mk_rol32(a, 6);  \
		a += c;               \
		c -= b;               \
		c ^= mk_rol32(b, 8);  \
		b += a;               \
		a -= c;               \
		a ^= mk_rol32(c, 16); \
		c += b;               \
		b -= a;               \
		b ^= mk_rol32(a, 19); \
		a += c;               \
		c -= b;               \
		c ^= mk_rol32(b, 4);  \
		b += a;               \
	} while (0)

#define MK_JHASH_FINAL(a, b, c)       \
	do {                          \
		c ^= b;               \
		c -= mk_rol32(b, 14); \
		a ^= c;               \
		a -= mk_rol32(c, 11); \
		b ^= a;               \
		b -= mk_rol32(a, 25); \
		c ^= b;               \
		c -= mk_rol32(b, 16); \
		a ^= c;               \
		a -= mk_rol32(c, 4);  \
		b ^= a;               \
		b -= mk_rol32(a, 14); \
		c ^= b;               \
		c -= mk_rol32(b, 24); \
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

/* The NH key: one word per key word hashed (12 for IPv6; IPv4 uses the first 6). */
#define MK_HASH_KEY_WORDS 12

struct mk_hash_key {
	__u32 k[MK_HASH_KEY_WORDS];
};
_Static_assert(sizeof(struct mk_hash_key) == 48, "hash key layout is shared with BPF");

/* splitmix64 (Steele, Lea, Flood 2014): the NH key of @seed, 64 bits at a time. */
MK_INLINE void mk_hash_key_init(struct mk_hash_key *hk, __u32 seed)
{
	__u64 x = seed, z;
	int i;

	for (i = 0; i < MK_HASH_KEY_WORDS / 2; i++) {
		x += 0x9e3779b97f4a7c15ull;
		z = x;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		hk->k[2 * i] = (__u32)z;
		hk->k[2 * i + 1] = (__u32)(z >> 32);
	}
}

/* One NH pair: (a + ka mod 2^32) * (b + kb mod 2^32), a 64-bit product. */
MK_INLINE __u64 mk_nh_pair(__u32 a, __u32 b, __u32 ka, __u32 kb)
{
	return (__u64)(__u32)(a + ka) * (__u32)(b + kb);
}

/* MurmurHash3's fmix64: every bit of the NH sum reaches every bit of the hash. */
MK_INLINE __u32 mk_hash_final(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (__u32)x;
}

/*
 * Key words as they lie in memory (two 16-bit fields, or two bytes and the
 * zero padding), built in registers: the XDP program then hashes without
 * reading back the key it stored field by field, which on x86 stalls each
 * word load that spans narrower stores (store-to-load forwarding fails).
 */
MK_INLINE __u32 mk_key_word16(__u16 first, __u16 second)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u32)first | (__u32)second << 16;
#else
	return (__u32)first << 16 | (__u32)second;
#endif
}

MK_INLINE __u32 mk_key_word8(__u8 first, __u8 second)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u32)first | (__u32)second << 8;
#else
	return (__u32)first << 24 | (__u32)second << 16;
#endif
}

/*
 * The hash of an IPv4 key from its six words (addr_lo[0], addr_hi[0], ports,
 * VLANs, tunnel context, protocol and family), so the XDP fast path can hash
 * from registers.
 */
MK_INLINE __u32 mk_flow_hash_v4_words(__u32 lo, __u32 hi, __u32 ports, __u32 vlans, __u32 ctx,
				      __u32 proto_family, const struct mk_hash_key *hk)
{
	return mk_hash_final(mk_nh_pair(lo, hi, hk->k[0], hk->k[1]) +
			     mk_nh_pair(ports, vlans, hk->k[2], hk->k[3]) +
			     mk_nh_pair(ctx, proto_family, hk->k[4], hk->k[5]));
}

/* ... and of an IPv6 key from its twelve words, for the same reason. */
MK_INLINE __u32 mk_flow_hash_v6_words(__u32 lo0, __u32 lo1, __u32 lo2, __u32 lo3, __u32 hi0,
				      __u32 hi1, __u32 hi2, __u32 hi3, __u32 ports, __u32 vlans,
				      __u32 ctx, __u32 proto_family, const struct mk_hash_key *hk)
{
	return mk_hash_final(mk_nh_pair(lo0, lo1, hk->k[0], hk->k[1]) +
			     mk_nh_pair(lo2, lo3, hk->k[2], hk->k[3]) +
			     mk_nh_pair(hi0, hi1, hk->k[4], hk->k[5]) +
			     mk_nh_pair(hi2, hi3, hk->k[6], hk->k[7]) +
			     mk_nh_pair(ports, vlans, hk->k[8], hk->k[9]) +
			     mk_nh_pair(ctx, proto_family, hk->k[10], hk->k[11]));
}

/*
 * The flow hash of a key from its parts: the address words of the lo and hi
 * endpoints, the ports, VLANs, tunnel context and protocol/family words, and
 * the family (an IPv4 key hashes over its six words that can be set).
 */
MK_INLINE __u32 mk_flow_hash_from(const __u32 *lo, const __u32 *hi, __u32 ports, __u32 vlans,
				  __u32 ctx, __u32 proto_family, __u8 family,
				  const struct mk_hash_key *hk)
{
	if (family == MK_FAMILY_IPV4)
		return mk_flow_hash_v4_words(lo[0], hi[0], ports, vlans, ctx, proto_family, hk);
	return mk_flow_hash_v6_words(lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3], ports,
				     vlans, ctx, proto_family, hk);
}

/* The flow hash of @key under the NH key @hk (what the XDP program computes). */
MK_INLINE __u32 mk_flow_hash_keyed(const struct mk_flow_key *key, const struct mk_hash_key *hk)
{
	__u32 w[sizeof(*key) / 4];

	/*
	 * Copy, never cast: reading the __u16/__u8 fields through a __u32
	 * pointer breaks strict aliasing, and gcc -O2 then hashed the key as it
	 * was before its ports, VLANs and protocol were stored.
	 */
	mk_memcpy(w, key, sizeof(w));
	return mk_flow_hash_from(&w[0], &w[4], w[8], w[9], w[10], w[11], key->family, hk);
}

#ifndef __bpf__
/*
 * The NH key of @seed, expanded once per thread and seed: a thread keeps the
 * last two seeds it used (the flow table hashes under seed and ~seed).
 */
static inline const struct mk_hash_key *mk_hash_key_of(__u32 seed)
{
	static __thread struct {
		struct mk_hash_key hk;
		__u32 seed;
		__u8 valid;
	} cache[2];
	static __thread unsigned int next;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (cache[i].valid && cache[i].seed == seed)
			return &cache[i].hk;
	}
	i = next;
	next ^= 1;
	mk_hash_key_init(&cache[i].hk, seed);
	cache[i].seed = seed;
	cache[i].valid = 1;
	return &cache[i].hk;
}

/* The seeded flow hash, as the XDP program computes it with the key of @seed. */
static inline __u32 mk_flow_hash(const struct mk_flow_key *key, __u32 seed)
{
	return mk_flow_hash_keyed(key, mk_hash_key_of(seed));
}
#endif

/*
 * Tunnel context: the tunnel type and the *ordered* outer address pair,
 * chained over nested tunnels (@prev), over the address words that can be
 * set (one each for IPv4). TEIDs, session ids, VNIs and keys differ per
 * direction or say nothing about the path, and never enter it.
 *
 * Not keyed (it is part of the key the seeded flow hash covers) and not
 * jhash: its 21 emulated rotations were one dependent chain in front of the
 * flow hash on every tunnel frame. An IPv4 pair packs into 64 bits as
 * (lo << 32 | hi) and is XOR-ed with a multiple of (@prev * 31 + type), so
 * within one tunnel type and chain no two pairs meet before fmix64 (a
 * bijection); IPv6 folds its four 64-bit words by XOR and multiply.
 */
#define MK_CTX_MUL 0x9e3779b97f4a7c15ull

MK_INLINE __u64 mk_ctx_pair(__u32 first, __u32 second)
{
	return (__u64)first << 32 | second;
}

MK_INLINE __u32 mk_tunnel_ctx(__u32 prev, __u32 type, __u32 family, const __u32 *a, const __u32 *b)
{
	int swap = mk_endpoint_cmp(a, 0, b, 0) > 0;
	const __u32 *lo = swap ? b : a, *hi = swap ? a : b;
	__u64 x = (__u64)(prev * 31 + type) * MK_CTX_MUL;

	if (family == MK_FAMILY_IPV4)
		return mk_hash_final(x ^ mk_ctx_pair(lo[0], hi[0])) | 1; /* never 0: "no tunnel" */
	x = (x ^ mk_ctx_pair(lo[0], lo[1])) * MK_CTX_MUL;
	x = (x ^ mk_ctx_pair(lo[2], lo[3])) * MK_CTX_MUL;
	x = (x ^ mk_ctx_pair(hi[0], hi[1])) * MK_CTX_MUL;
	x = (x ^ mk_ctx_pair(hi[2], hi[3])) * MK_CTX_MUL;
	return mk_hash_final(x) | 1;
}

#endif /* MK_HASH_H */
