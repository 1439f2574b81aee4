// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seeded flow hash: symmetric for both directions of 100,000 random IPv4
 * and 100,000 random IPv6 flows (as keys, and as frames through the parser),
 * dependent on the seed, spread evenly over the 256 indirection buckets, and
 * not floodable: flows crafted to collide under one seed spread under another,
 * both flows found colliding by chance and flows built to collide with the
 * knowledge of one seed's key. The definition (NH keyed by splitmix64 of the
 * seed, fmix64) is pinned by a known answer and rewritten here from its
 * formula; the fixtures pin it once more against the Python generator.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "helpers.h"

#define N_FLOWS 100000

struct tuple {
	__u32 src[4], dst[4];
	__u16 sport, dport; /* network order */
	__u8 proto, family;
};

static void random_tuple(__u64 *s, int family, struct tuple *t)
{
	static const __u8 protos[] = { MK_IPPROTO_TCP, MK_IPPROTO_UDP, MK_IPPROTO_SCTP };
	int i, n = family == MK_FAMILY_IPV4 ? 1 : 4;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		t->src[i] = (__u32)rng_next(s);
		t->dst[i] = (rng_next(s) & 1) ? t->src[i] : (__u32)rng_next(s);
	}
	t->sport = (__u16)rng_next(s);
	t->dport = (__u16)rng_next(s);
	t->proto = protos[rng_next(s) % 3];
	t->family = (__u8)family;
}

static void tuple_key(const struct tuple *t, int reverse, struct mk_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	if (reverse)
		mk_flow_key_set_endpoints(k, t->dst, t->dport, t->src, t->sport);
	else
		mk_flow_key_set_endpoints(k, t->src, t->sport, t->dst, t->dport);
	k->proto = t->proto;
	k->family = t->family;
}

/* Ethernet + IPv4/IPv6 + the first 8 bytes of a TCP/UDP/SCTP header (TCP: 20). */
static __u32 build_frame(__u8 *f, const struct tuple *t, int reverse)
{
	const __u32 *s = reverse ? t->dst : t->src, *d = reverse ? t->src : t->dst;
	__u16 sp = reverse ? t->dport : t->sport, dp = reverse ? t->sport : t->dport;
	__u32 l3 = 14, l4, len;

	memset(f, 0, 128);
	if (t->family == MK_FAMILY_IPV4) {
		f[12] = 0x08;
		f[14] = 0x45;
		f[14 + 9] = t->proto;
		memcpy(f + 14 + 12, s, 4);
		memcpy(f + 14 + 16, d, 4);
		l4 = l3 + 20;
	} else {
		f[12] = 0x86;
		f[13] = 0xdd;
		f[14] = 0x60;
		f[14 + 6] = t->proto;
		memcpy(f + 14 + 8, s, 16);
		memcpy(f + 14 + 24, d, 16);
		l4 = l3 + 40;
	}
	memcpy(f + l4, &sp, 2);
	memcpy(f + l4 + 2, &dp, 2);
	f[l4 + 12] = 0x50; /* TCP data offset 5 */
	len = l4 + 20;
	if (t->family == MK_FAMILY_IPV4) {
		f[16] = (__u8)((len - l3) >> 8);
		f[17] = (__u8)(len - l3);
	} else {
		f[18] = (__u8)((len - l4) >> 8);
		f[19] = (__u8)(len - l4);
	}
	return len;
}

static void symmetry(int family)
{
	struct mk_parse_cfg cfg = { .seed = 0xc0ffee, .tunnel_depth = 2 };
	__u64 s = family * 0x1234567ull + 1;
	__u8 fa[128], fb[128];
	int i;

	for (i = 0; i < N_FLOWS; i++) {
		struct mk_flow_key k, r;
		struct mk_parse pa, pb;
		struct tuple t;
		__u32 la, lb;

		random_tuple(&s, family, &t);
		tuple_key(&t, 0, &k);
		tuple_key(&t, 1, &r);
		cr_assert_eq(mk_flow_hash(&k, cfg.seed), mk_flow_hash(&r, cfg.seed), "flow %d", i);

		la = build_frame(fa, &t, 0);
		lb = build_frame(fb, &t, 1);
		cr_assert_eq(parse_buf(fa, la, MK_START_ETH, &cfg, &pa), MK_PARSE_IP, "flow %d", i);
		cr_assert_eq(parse_buf(fb, lb, MK_START_ETH, &cfg, &pb), MK_PARSE_IP, "flow %d", i);
		cr_assert_eq(pa.hash, pb.hash, "flow %d: frame hashes differ", i);
		cr_assert_eq(pa.hash, mk_flow_hash(&k, cfg.seed), "flow %d: frame and key differ",
			     i);
		/* raw IP start gives the same flow */
		cr_assert_eq(parse_buf(fa + 14, la - 14, MK_START_IP, &cfg, &pb), MK_PARSE_IP);
		cr_assert_eq(pa.hash, pb.hash, "flow %d: raw IP hash differs", i);
	}
}

Test(hash, symmetric_ipv4, .timeout = 120)
{
	symmetry(MK_FAMILY_IPV4);
}

Test(hash, symmetric_ipv6, .timeout = 120)
{
	symmetry(MK_FAMILY_IPV6);
}

Test(hash, seed_changes_hash)
{
	__u64 s = 42;
	int i, same = 0;

	for (i = 0; i < 10000; i++) {
		struct mk_flow_key k;
		struct tuple t;

		random_tuple(&s, (i & 1) ? MK_FAMILY_IPV6 : MK_FAMILY_IPV4, &t);
		tuple_key(&t, 0, &k);
		same += mk_flow_hash(&k, 1) == mk_flow_hash(&k, 2);
		same += mk_flow_hash(&k, 0xdeadbeef) == mk_flow_hash(&k, 0xdeadbeee);
	}
	/* a 32-bit collision now and then is fine; a seed that does nothing is not */
	cr_expect_leq(same, 2, "%d of 20000 hashes ignore the seed", same);
}

/*
 * Buckets of hash % 256 over 100,000 flows: Pearson's chi-square with 255
 * degrees of freedom has mean 255 and sd ~22.6; 400 is > 6 sd out.
 */
static void spread(int family, int sequential)
{
	__u32 buckets[MK_ITABLE_SIZE] = { 0 };
	double expect = (double)N_FLOWS / MK_ITABLE_SIZE, chi = 0;
	__u32 min = ~0u, max = 0;
	__u64 s = 7;
	int i;

	for (i = 0; i < N_FLOWS; i++) {
		struct mk_flow_key k;
		struct tuple t;

		random_tuple(&s, family, &t);
		if (sequential) {
			/* what a scanner or a NAT pool looks like: one host, counting ports */
			memset(t.src, 0, sizeof(t.src));
			memset(t.dst, 0, sizeof(t.dst));
			t.src[0] = htonl(0x0a000001);
			t.dst[0] = htonl(0xc0000201 + (i >> 16));
			t.sport = htons((__u16)i);
			t.dport = htons(80);
			t.family = MK_FAMILY_IPV4;
		}
		tuple_key(&t, 0, &k);
		buckets[mk_flow_hash(&k, 0x5eed) % MK_ITABLE_SIZE]++;
	}
	for (i = 0; i < MK_ITABLE_SIZE; i++) {
		double d = buckets[i] - expect;

		chi += d * d / expect;
		min = buckets[i] < min ? buckets[i] : min;
		max = buckets[i] > max ? buckets[i] : max;
	}
	cr_log_info("family %d sequential %d: chi2 %.1f min %u max %u", family, sequential, chi,
		    min, max);
	cr_expect_lt(chi, 400.0, "chi-square %.1f", chi);
	cr_expect_gt(min, (__u32)(expect * 0.7), "emptiest bucket %u", min);
	cr_expect_lt(max, (__u32)(expect * 1.3), "fullest bucket %u", max);
}

Test(hash, spread_ipv4)
{
	spread(MK_FAMILY_IPV4, 0);
}

Test(hash, spread_ipv6)
{
	spread(MK_FAMILY_IPV6, 0);
}

Test(hash, spread_sequential_ports)
{
	spread(MK_FAMILY_IPV4, 1);
}

/* Each field of the key that can be set takes part in the hash. */
Test(hash, every_field_counts)
{
	struct mk_flow_key k, m;
	__u32 h;
	unsigned int i, family;

	for (family = MK_FAMILY_IPV4; family <= MK_FAMILY_IPV6; family += 2) {
		memset(&k, 0, sizeof(k));
		k.family = (__u8)family;
		k.proto = MK_IPPROTO_TCP;
		h = mk_flow_hash(&k, 9);
		for (i = 0; i < offsetof(struct mk_flow_key, pad); i++) {
			/* an IPv4 key's address words 1-3 are zero by construction */
			if (family == MK_FAMILY_IPV4 && i % 16 >= 4 && i < 32)
				continue;
			m = k;
			((__u8 *)&m)[i] ^= 0x10;
			cr_expect_neq(mk_flow_hash(&m, 9), h,
				      "IPv%u: byte %u of the key is ignored", family, i);
		}
	}
}

/* splitmix64 from 0 starts 0xe220a8397b1dcdaf (the published sequence): the key expansion. */
Test(hash, key_expansion_known_answer)
{
	struct mk_hash_key hk;

	mk_hash_key_init(&hk, 0);
	cr_expect_eq(hk.k[0], 0x7b1dcdafu);
	cr_expect_eq(hk.k[1], 0xe220a839u);
	cr_expect_eq(hk.k[2], 0xa1b965f4u);
	cr_expect_eq(hk.k[3], 0x6e789e6au);
	mk_hash_key_init(&hk, 1);
	cr_expect_neq(hk.k[0], 0x7b1dcdafu, "the seed does not enter the key");
	/* the per-thread cache gives the expansion of the seed asked for, whichever slot */
	cr_expect_eq(mk_hash_key_of(0)->k[11], 0x53cb9f0cu);
	cr_expect_eq(mk_hash_key_of(1)->k[0], hk.k[0]);
	cr_expect_eq(mk_hash_key_of(2)->k[0] == hk.k[0], 0);
	cr_expect_eq(mk_hash_key_of(0)->k[11], 0x53cb9f0cu);
}

/* NH, written out: sum of ((w[2i] + k[2i]) mod 2^32) * ((w[2i+1] + k[2i+1]) mod 2^32), fmix64. */
static __u32 nh_reference(const __u32 *w, unsigned int n, __u32 seed)
{
	struct mk_hash_key hk;
	__u64 x = 0;
	unsigned int i;

	mk_hash_key_init(&hk, seed);
	for (i = 0; i < n; i += 2)
		x += (__u64)(__u32)(w[i] + hk.k[i]) * (__u64)(__u32)(w[i + 1] + hk.k[i + 1]);
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (__u32)x;
}

/* An IPv4 flow hashes over its 6 set words: what the program and offline mode both compute. */
Test(hash, ipv4_hashes_set_words)
{
	struct mk_flow_key k;
	__u32 w[12], v[6];

	memset(&k, 0, sizeof(k));
	k.addr_lo[0] = 0x0100000a;
	k.addr_hi[0] = 0x0200000a;
	k.port_lo = htons(40000);
	k.port_hi = htons(443);
	k.vlan[0] = 100;
	k.tunnel_ctx = 0x12345679;
	k.proto = MK_IPPROTO_TCP;
	k.family = MK_FAMILY_IPV4;
	memcpy(w, &k, sizeof(w));
	v[0] = w[0], v[1] = w[4], v[2] = w[8], v[3] = w[9], v[4] = w[10], v[5] = w[11];
	cr_expect_eq(mk_flow_hash(&k, 77), nh_reference(v, 6, 77));
	cr_expect_eq(mk_flow_hash(&k, 77),
		     mk_flow_hash_v4_words(v[0], v[1], v[2], v[3], v[4], v[5], mk_hash_key_of(77)));
	k.family = MK_FAMILY_IPV6;
	memcpy(w, &k, sizeof(w));
	cr_expect_eq(mk_flow_hash(&k, 77), nh_reference(w, 12, 77));
}

/*
 * Hash flooding: an attacker who could aim flows at one worker (one of the
 * 256 indirection buckets), one bypass prefilter bit or one 32-bit hash
 * would overload it. Flows made to collide under one random seed must spread
 * again under another: the seed is secret, so collisions found offline are
 * useless against a sensor.
 */
static int cmp_u64(const void *x, const void *y)
{
	__u64 a = *(const __u64 *)x, b = *(const __u64 *)y;

	return (a > b) - (a < b);
}

static void flood(int family)
{
	/* 400,000 random flows, and the ones that share bucket 0 under seed a */
	static __u32 bucket_b[MK_ITABLE_SIZE];
	static struct mk_flow_key keys[400000], hit[4000];
	static __u64 by_hash[400000];
	__u64 s = 0xf100d + family;
	__u32 a = (__u32)rng_next(&s), b = (__u32)rng_next(&s), n = 0, i, full_a = 0, both = 0;
	double expect, chi = 0;

	memset(bucket_b, 0, sizeof(bucket_b));
	for (i = 0; i < MK_ARRAY_SIZE(keys); i++) {
		struct tuple t;

		random_tuple(&s, family, &t);
		tuple_key(&t, 0, &keys[i]);
		if (mk_flow_hash(&keys[i], a) % MK_ITABLE_SIZE == 0 && n < MK_ARRAY_SIZE(hit))
			hit[n++] = keys[i];
	}
	cr_assert_gt(n, 1000u, "only %u flows in bucket 0 under seed a", n);
	/* under seed b the crafted set covers every bucket about evenly */
	for (i = 0; i < n; i++)
		bucket_b[mk_flow_hash(&hit[i], b) % MK_ITABLE_SIZE]++;
	expect = (double)n / MK_ITABLE_SIZE;
	for (i = 0; i < MK_ITABLE_SIZE; i++)
		chi += (bucket_b[i] - expect) * (bucket_b[i] - expect) / expect;
	cr_log_info("IPv%d: %u flows in one bucket under seed a; chi2 %.1f under seed b", family, n,
		    chi);
	cr_expect_lt(chi, 400.0,
		     "IPv%d: seed b keeps %u flows of one seed-a bucket together "
		     "(chi-square %.1f)",
		     family, n, chi);

	/* full 32-bit collisions under seed a (~18 expected among 400,000) are not under b */
	for (i = 0; i < MK_ARRAY_SIZE(keys); i++)
		by_hash[i] = ((__u64)mk_flow_hash(&keys[i], a) << 32) | i;
	qsort(by_hash, MK_ARRAY_SIZE(keys), sizeof(by_hash[0]), cmp_u64);
	for (i = 1; i < MK_ARRAY_SIZE(keys); i++) {
		const struct mk_flow_key *x = &keys[by_hash[i - 1] & 0xffffffff];
		const struct mk_flow_key *y = &keys[by_hash[i] & 0xffffffff];

		if (by_hash[i] >> 32 != by_hash[i - 1] >> 32 || !memcmp(x, y, sizeof(*x)))
			continue;
		full_a++;
		both += mk_flow_hash(x, b) == mk_flow_hash(y, b);
	}
	cr_log_info("IPv%d: %u full collisions under seed a, %u of them under seed b", family,
		    full_a, both);
	cr_expect_gt(full_a, 0u, "IPv%d: no 32-bit collision to check", family);
	cr_expect_eq(both, 0u, "IPv%d: %u pairs collide under both seeds", family, both);
}

Test(hash, flood_ipv4, .timeout = 120)
{
	flood(MK_FAMILY_IPV4);
}

Test(hash, flood_ipv6, .timeout = 120)
{
	flood(MK_FAMILY_IPV6);
}

/*
 * Collisions built with the knowledge of seed a's key, the attack a keyed
 * hash must survive: NH's pair (x + ka)(y + kb) is a product of two 32-bit
 * factors, so swapping them (x' = (y + kb) - ka, y' = (x + ka) - kb) gives
 * another pair with the same product. Every such pair collides in full under
 * seed a; under seed b the pairs must collide no more often than chance, and
 * one crafted 64-flow multicollision must spread over the buckets.
 */
static void crafted(int family)
{
	struct mk_hash_key ka;
	__u64 s = 0xc4af7ed + family;
	__u32 a = (__u32)rng_next(&s), b = (__u32)rng_next(&s), i, j, both = 0, buckets = 0;
	__u8 seen[MK_ITABLE_SIZE] = { 0 };
	struct mk_flow_key multi[64];

	mk_hash_key_init(&ka, a);
	for (i = 0; i < 20000; i++) {
		struct mk_flow_key x, y;
		struct tuple t;
		__u32 fx, fy;

		random_tuple(&s, family, &t);
		tuple_key(&t, 0, &x);
		y = x;
		/* the address pair is the attacker's to choose: words 0 and 4 form NH's first pair
		 * for IPv4 (0 and 1 for IPv6, whose second address word takes key word 1) */
		if (family == MK_FAMILY_IPV4) {
			fx = x.addr_lo[0] + ka.k[0];
			fy = x.addr_hi[0] + ka.k[1];
			y.addr_lo[0] = fy - ka.k[0];
			y.addr_hi[0] = fx - ka.k[1];
		} else {
			fx = x.addr_lo[0] + ka.k[0];
			fy = x.addr_lo[1] + ka.k[1];
			y.addr_lo[0] = fy - ka.k[0];
			y.addr_lo[1] = fx - ka.k[1];
		}
		if (!memcmp(&x, &y, sizeof(x)))
			continue;
		cr_assert_eq(mk_flow_hash(&x, a), mk_flow_hash(&y, a), "pair %u not built right",
			     i);
		both += mk_flow_hash(&x, b) == mk_flow_hash(&y, b);
	}
	cr_log_info("IPv%d: 20000 pairs built to collide under seed a, %u collide under seed b",
		    family, both);
	cr_expect_leq(both, 1u, "IPv%d: %u of 20000 crafted pairs collide under seed b too", family,
		      both);

	if (family != MK_FAMILY_IPV6)
		return;
	/*
	 * 64 IPv6 flows with one hash under seed a: in each of the first three
	 * NH pairs (address words) the factors are (r0 << 16) << t and
	 * (r1 << 16) >> t, whose product does not depend on t = 0..3.
	 */
	for (i = 0; i < 64; i++) {
		__u64 s0 = 0x5a5a;
		__u32 w[12];
		struct tuple t;

		random_tuple(&s0, MK_FAMILY_IPV6, &t);
		tuple_key(&t, 0, &multi[i]);
		memcpy(w, &multi[i], sizeof(w));
		for (j = 0; j < 3; j++) {
			__u32 sh = (i >> (2 * j)) & 3, r0 = (0x0123 + j * 0x111) << 16,
			      r1 = (0x0456 + j * 0x222) << 16;

			w[2 * j] = (r0 << sh) - ka.k[2 * j];
			w[2 * j + 1] = (r1 >> sh) - ka.k[2 * j + 1];
		}
		memcpy(&multi[i], w, sizeof(w));
	}
	for (i = 1; i < 64; i++)
		cr_assert_eq(mk_flow_hash(&multi[i], a), mk_flow_hash(&multi[0], a),
			     "multicollision member %u not built right", i);
	for (i = 0; i < 64; i++) {
		__u32 bk = mk_flow_hash(&multi[i], b) % MK_ITABLE_SIZE;

		buckets += !seen[bk];
		seen[bk] = 1;
	}
	/* 64 flows thrown at random into 256 buckets fill about 56; one bucket is the attack */
	cr_log_info("a 64-flow multicollision under seed a fills %u buckets under seed b", buckets);
	cr_expect_geq(buckets, 45u, "a multicollision under seed a fills only %u buckets under b",
		      buckets);
}

Test(hash, crafted_collisions_ipv4)
{
	crafted(MK_FAMILY_IPV4);
}

Test(hash, crafted_collisions_ipv6)
{
	crafted(MK_FAMILY_IPV6);
}
