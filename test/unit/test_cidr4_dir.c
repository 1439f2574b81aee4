// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IPv4 CIDR table (userspace/capture/cidr4_dir.c) against a brute-force
 * answer: random prefix lists, clustered so that prefixes nest and share
 * /16s and /24s, added and deleted in random order, and after every step the
 * table's answer for addresses around them equals "some prefix of the list
 * covers it". Chunks that run out leave their /16 to the trie (exact through
 * the trie), come back once freed chunks have waited out the reuse delay,
 * and a chunk is never handed out again before that.
 */
#include <stdlib.h>
#include <criterion/criterion.h>
#include "cidr4_dir.h"

struct pfx {
	__u32 addr, len;
};

static __u64 fake_now;

static __u64 fake_clock(void)
{
	return fake_now;
}

struct tables {
	__u16 *l1;
	struct mk_cidr4_l2 *l2;
	struct mk_cidr4_l3 *l3;
	struct mk_cidr4_dir d;
};

static void tables_up(struct tables *t)
{
	t->l1 = calloc(MK_CIDR4_DIR_ENTRIES, sizeof(*t->l1));
	t->l2 = calloc(MK_CIDR4_L2_CHUNKS + 1, sizeof(*t->l2));
	t->l3 = calloc(MK_CIDR4_L3_CHUNKS + 1, sizeof(*t->l3));
	cr_assert(t->l1 && t->l2 && t->l3);
	cr_assert_eq(mk_cidr4_dir_init(&t->d, t->l1, t->l2, t->l3), 0);
	t->d.now_ns = fake_clock;
	fake_now = 1000000000ull;
}

static void tables_down(struct tables *t)
{
	mk_cidr4_dir_free(&t->d);
	free(t->l1);
	free(t->l2);
	free(t->l3);
}

static __u64 rng(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static __u32 mask(__u32 len)
{
	return len ? ~0u << (32 - len) : 0;
}

static int brute(const struct pfx *p, __u32 n, __u32 a)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		if (((a ^ p[i].addr) & mask(p[i].len)) == 0)
			return 1;
	}
	return 0;
}

/* An address near the list: inside or next to a random prefix, or anywhere. */
static __u32 probe(__u64 *s, const struct pfx *p, __u32 n)
{
	__u32 r = (__u32)rng(s);

	if (!n || r % 8 == 0)
		return (__u32)rng(s);
	return p[r % n].addr ^ ((__u32)rng(s) & ((1u << (r % 12)) - 1));
}

static void check(const struct tables *t, const struct pfx *p, __u32 n, __u64 *s, __u32 probes)
{
	__u32 i;

	for (i = 0; i < probes; i++) {
		__u32 a = probe(s, p, n);
		int got = mk_cidr4_dir_match(&t->d, a);

		cr_assert_neq(got, -1, "%08x left to the trie with chunks to spare", a);
		cr_assert_eq(got, brute(p, n, a), "%08x: table says %d, %u prefixes", a, got, n);
	}
}

static int has(const struct pfx *p, __u32 n, struct pfx x)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		if (p[i].len == x.len && p[i].addr == x.addr)
			return 1;
	}
	return 0;
}

Test(cidr4_dir, random_lists_match_brute_force, .timeout = 120)
{
	static struct pfx p[3000];
	struct tables t;
	__u64 s = 0xc1d4;
	__u32 n = 0, step, base[8];

	tables_up(&t);
	for (step = 0; step < 8; step++)
		base[step] = (__u32)rng(&s);
	for (step = 0; step < 6000; step++) {
		struct pfx x;
		__u32 r = (__u32)rng(&s);

		if (n && (r % 3 == 0 || n == MK_ARRAY_SIZE(p))) {
			__u32 k = (r >> 8) % n;

			cr_assert_eq(mk_cidr4_dir_del(&t.d, p[k].addr, p[k].len), 0);
			p[k] = p[--n];
		} else {
			/* clustered around a few bases so prefixes nest, share /16s and /24s */
			x.len = (r >> 4) % 8 == 0 ? (r >> 8) % 17 : 17 + (r >> 8) % 16;
			x.addr = (base[(r >> 12) & 7] ^ ((__u32)rng(&s) & 0x0003ffff)) &
				 mask(x.len);
			if (has(p, n, x))
				continue;
			cr_assert_eq(mk_cidr4_dir_add(&t.d, x.addr, x.len), 0);
			p[n++] = x;
		}
		fake_now += 1000000;
		if (step % 50 == 0)
			check(&t, p, n, &s, 400);
	}
	check(&t, p, n, &s, 20000);
	while (n) {
		cr_assert_eq(mk_cidr4_dir_del(&t.d, p[n - 1].addr, p[n - 1].len), 0);
		n--;
	}
	for (step = 0; step < MK_CIDR4_DIR_ENTRIES; step++)
		cr_assert_eq(t.l1[step], MK_CIDR4_NONE, "/16 %u still used with an empty list",
			     step);
	tables_down(&t);
}

/* Host bits past the length are ignored, as the LPM trie ignores them. */
Test(cidr4_dir, host_bits_ignored)
{
	struct tables t;

	tables_up(&t);
	cr_assert_eq(mk_cidr4_dir_add(&t.d, 0x0a000105, 24), 0);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x0a0001ff), 1);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x0a000201), 0);
	cr_assert_eq(mk_cidr4_dir_del(&t.d, 0x0a000100, 24), 0);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x0a0001ff), 0);
	cr_assert_eq(mk_cidr4_dir_add(&t.d, 0, 0), 0);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0xdeadbeef), 1);
	cr_assert_eq(mk_cidr4_dir_del(&t.d, 0, 0), 0);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0xdeadbeef), 0);
	tables_down(&t);
}

/*
 * Every level-2 chunk in use or waiting out the reuse delay: a /16 that
 * needs one is left to the trie (-1, never a wrong answer), and gets a chunk
 * when it changes again after the delay; no chunk comes back early.
 */
Test(cidr4_dir, chunks_run_out_and_come_back, .timeout = 120)
{
	struct tables t;
	__u32 i, h;

	tables_up(&t);
	/* churn: every chunk handed out once and freed, all within the delay */
	for (i = 0; i < MK_CIDR4_L2_CHUNKS; i++) {
		h = i % 2048;
		cr_assert_eq(mk_cidr4_dir_add(&t.d, h << 16 | 0x0100, 24), 0);
		cr_assert(mk_cidr4_is_chunk(t.l1[h]));
		cr_assert_eq(mk_cidr4_dir_del(&t.d, h << 16 | 0x0100, 24), 0);
		cr_assert_eq(t.l1[h], MK_CIDR4_NONE);
	}
	cr_assert_eq(mk_cidr4_dir_add(&t.d, 0x7f000100, 24), 0);
	cr_assert_eq(t.l1[0x7f00], MK_CIDR4_TRIE, "a chunk was reused before the delay");
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x7f000105), -1);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x7f010105), 0);
	fake_now += MK_CIDR4_REUSE_NS - 1;
	cr_assert_eq(mk_cidr4_dir_add(&t.d, 0x7f000200, 24), 0);
	cr_assert_eq(t.l1[0x7f00], MK_CIDR4_TRIE, "a chunk was reused 1 ns early");
	fake_now += 1;
	cr_assert_eq(mk_cidr4_dir_add(&t.d, 0x7f000300, 24), 0);
	cr_assert(mk_cidr4_is_chunk(t.l1[0x7f00]), "no chunk after the delay");
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x7f000105), 1);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x7f000205), 1);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x7f000305), 1);
	cr_assert_eq(mk_cidr4_dir_match(&t.d, 0x7f000405), 0);
	tables_down(&t);
}
