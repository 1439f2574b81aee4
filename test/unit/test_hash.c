// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seeded flow hash: symmetric for both directions of 100,000 random IPv4
 * and 100,000 random IPv6 flows (as keys, and as frames through the parser),
 * dependent on the seed, and spread evenly over the 256 indirection buckets.
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
	static const __u8 protos[] = {MK_IPPROTO_TCP, MK_IPPROTO_UDP, MK_IPPROTO_SCTP};
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
	struct mk_parse_cfg cfg = {.seed = 0xc0ffee, .tunnel_depth = 2};
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
	__u32 buckets[MK_ITABLE_SIZE] = {0};
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

/* Each field of the key takes part in the hash. */
Test(hash, every_field_counts)
{
	struct mk_flow_key k, m;
	__u32 h;
	unsigned int i;

	memset(&k, 0, sizeof(k));
	k.family = MK_FAMILY_IPV4;
	k.proto = MK_IPPROTO_TCP;
	h = mk_flow_hash(&k, 9);
	for (i = 0; i < offsetof(struct mk_flow_key, pad); i++) {
		m = k;
		((__u8 *)&m)[i] ^= 0x10;
		cr_expect_neq(mk_flow_hash(&m, 9), h, "byte %u of the key is ignored", i);
	}
}
