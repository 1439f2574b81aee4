// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fragment rule (DESIGN 1.2): every fragment of a datagram, first or
 * later, hashes like the key of its address pair and protocol with ports 0,
 * so one worker sees the whole datagram whichever way the NIC spread it.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "helpers.h"

#define SEED 0xf4a9u

static __u32 pair_hash(const __u32 *s, const __u32 *d, __u8 proto, __u8 family)
{
	struct mk_flow_key k;

	memset(&k, 0, sizeof(k));
	mk_flow_key_set_endpoints(&k, s, 0, d, 0);
	k.proto = proto;
	k.family = family;
	return mk_flow_hash(&k, SEED);
}

/*
 * One fragment of a UDP datagram: offset in 8-byte units, more = MF/M. The
 * first fragment carries the UDP header with real ports.
 */
static __u32 frag_v4(__u8 *f, const __u32 *s, const __u32 *d, __u16 id, __u16 off, int more)
{
	memset(f, 0, 128);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = 0;
	f[17] = 20 + 64;
	f[18] = (__u8)(id >> 8);
	f[19] = (__u8)id;
	f[20] = (__u8)(((more ? 0x2000 : 0) | off) >> 8);
	f[21] = (__u8)off;
	f[23] = MK_IPPROTO_UDP;
	memcpy(f + 26, s, 4);
	memcpy(f + 30, d, 4);
	f[34] = 0x1f; /* ports 8000 -> 9000 in the first fragment, data in the others */
	f[35] = 0x40;
	f[36] = 0x23;
	f[37] = 0x28;
	return 14 + 20 + 64;
}

static __u32 frag_v6(__u8 *f, const __u32 *s, const __u32 *d, __u32 id, __u16 off, int more)
{
	memset(f, 0, 160);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[19] = 8 + 64;
	f[20] = 44;
	memcpy(f + 22, s, 16);
	memcpy(f + 38, d, 16);
	f[54] = MK_IPPROTO_UDP;
	f[56] = (__u8)((off << 3) >> 8);
	f[57] = (__u8)((off << 3) | (more ? 1 : 0));
	memcpy(f + 58, &id, 4);
	f[62] = 0x1f;
	f[63] = 0x40;
	f[64] = 0x23;
	f[65] = 0x28;
	return 14 + 40 + 8 + 64;
}

static void datagrams(int family)
{
	struct mk_parse_cfg cfg = { .seed = SEED, .tunnel_depth = 2 };
	__u64 rs = 0xabcdef + family;
	__u8 f[160];
	int i, j;

	for (i = 0; i < 20000; i++) {
		__u32 s[4] = { 0 }, d[4] = { 0 }, want, len;
		int n = family == MK_FAMILY_IPV4 ? 1 : 4, rev = i & 1;

		for (j = 0; j < n; j++) {
			s[j] = (__u32)rng_next(&rs);
			d[j] = (__u32)rng_next(&rs);
		}
		want = pair_hash(s, d, MK_IPPROTO_UDP, (__u8)family);
		/* first, middle and last fragment, in one direction or the other */
		for (j = 0; j < 3; j++) {
			__u16 off = (__u16)(j * 8);
			int more = j < 2;
			struct mk_parse p;

			if (family == MK_FAMILY_IPV4)
				len = frag_v4(f, rev ? d : s, rev ? s : d, (__u16)i, off, more);
			else
				len = frag_v6(f, rev ? d : s, rev ? s : d, (__u32)i, off, more);
			cr_assert_eq(parse_buf(f, len, MK_START_ETH, &cfg, &p), MK_PARSE_IP);
			cr_assert(p.flags & MK_META_F_FRAGMENT, "datagram %d fragment %d", i, j);
			cr_assert_eq(!!(p.flags & MK_META_F_FIRST_FRAG), j == 0);
			cr_assert_eq(p.key.port_lo, 0);
			cr_assert_eq(p.key.port_hi, 0);
			cr_assert_eq(p.key.proto, MK_IPPROTO_UDP);
			cr_assert_eq(p.hash, want, "datagram %d fragment %d: hash 0x%x, want 0x%x",
				     i, j, p.hash, want);
			if (j)
				cr_assert_eq(p.l3.l4_off, 0, "a later fragment has no L4 header");
			else
				cr_assert_neq(p.l3.l4_off, 0,
					      "the first fragment has its L4 header");
		}
		/* the same datagram unfragmented keys on its ports */
		if (family == MK_FAMILY_IPV4) {
			struct mk_parse p;

			len = frag_v4(f, s, d, 1, 0, 0);
			cr_assert_eq(parse_buf(f, len, MK_START_ETH, &cfg, &p), MK_PARSE_IP);
			cr_assert_eq(p.flags & MK_META_F_FRAGMENT, 0);
			cr_assert_neq(p.key.port_lo, 0);
		}
	}
}

Test(fragment, ipv4_same_hash)
{
	datagrams(MK_FAMILY_IPV4);
}

Test(fragment, ipv6_same_hash)
{
	datagrams(MK_FAMILY_IPV6);
}

/* The generated fragment series, both directions, with the generator's hash. */
Test(fragment, fixture_series)
{
	static const char *const series[][7] = {
		{ "ipv4_frag_udp_first0", "ipv4_frag_udp_later1", "ipv4_frag_udp_later2",
		  "ipv4_frag_udp_first0_rev", "ipv4_frag_udp_later1_rev",
		  "ipv4_frag_udp_later2_rev", "ipv4_frag_udp_last" },
		{ "ipv4_frag_tcp_first0", "ipv4_frag_tcp_later1", "ipv4_frag_tcp_later2",
		  "ipv4_frag_tcp_first0_rev", "ipv4_frag_tcp_later1_rev",
		  "ipv4_frag_tcp_later2_rev", NULL },
		{ "ipv6_frag_udp_first0", "ipv6_frag_udp_later1", "ipv6_frag_udp_later2",
		  "ipv6_frag_udp_first0_rev", "ipv6_frag_udp_later1_rev",
		  "ipv6_frag_udp_later2_rev", NULL },
		{ "ipv6_frag_ext_udp_0", "ipv6_frag_ext_udp_1", NULL },
		{ "ipv6_frag_dstopts_0", "ipv6_frag_dstopts_1", NULL },
	};
	unsigned int i, j;

	for (i = 0; i < MK_ARRAY_SIZE(series); i++) {
		__u32 h = 0;

		for (j = 0; j < 7 && series[i][j]; j++) {
			const struct mk_fixture *fx = fixture_by_name(series[i][j]);
			struct mk_parse_cfg cfg;
			struct mk_parse p;
			__u32 s[4], d[4];

			cr_assert_not_null(fx, "%s", series[i][j]);
			cfg = fixture_cfg(fx, MK_FIXTURE_SEED);
			cr_assert_eq(parse_buf(fx->frame, fx->len, MK_START_ETH, &cfg, &p),
				     MK_PARSE_IP);
			cr_expect(p.flags & MK_META_F_FRAGMENT, "%s", fx->name);
			if (!j)
				h = p.hash;
			cr_expect_eq(p.hash, h, "%s hashes apart from %s", fx->name, series[i][0]);
			addr_words(s, fx->src);
			addr_words(d, fx->dst);
			memset(&p.key, 0, sizeof(p.key));
			mk_flow_key_set_endpoints(&p.key, s, 0, d, 0);
			p.key.proto = fx->proto;
			p.key.family = fx->family;
			cr_expect_eq(mk_flow_hash(&p.key, MK_FIXTURE_SEED), h,
				     "%s: not the hash of the address pair", fx->name);
		}
	}
}
