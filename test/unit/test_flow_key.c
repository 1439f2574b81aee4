// SPDX-License-Identifier: GPL-2.0-only
/*
 * Key canonicalisation and the direction bit: the "lo" endpoint is the one
 * whose address words (as loaded by the host) and then port (as a number)
 * compare lower; the bit is set when the packet travels hi -> lo.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>

#include "helpers.h"

static void v4(__u32 a[4], const char *s)
{
	memset(a, 0, 16);
	cr_assert_eq(inet_pton(AF_INET, s, a), 1);
}

static void v6(__u32 a[4], const char *s)
{
	cr_assert_eq(inet_pton(AF_INET6, s, a), 1);
}

static int set(struct mk_flow_key *k, const __u32 *s, __u16 sp, const __u32 *d, __u16 dp)
{
	memset(k, 0, sizeof(*k));
	return mk_flow_key_set_endpoints(k, s, htons(sp), d, htons(dp));
}

Test(flow_key, lower_endpoint_first)
{
	struct mk_flow_key k, r;
	__u32 a[4], b[4];

	v4(a, "10.0.0.1");
	v4(b, "10.0.0.2");
	cr_expect_eq(set(&k, a, 40000, b, 443), 0);
	cr_expect_arr_eq(k.addr_lo, a, 16);
	cr_expect_arr_eq(k.addr_hi, b, 16);
	cr_expect_eq(k.port_lo, htons(40000));
	cr_expect_eq(k.port_hi, htons(443));
	cr_expect_eq(set(&r, b, 443, a, 40000), 1);
	cr_expect_arr_eq(&k, &r, sizeof(k));
}

Test(flow_key, ports_compare_as_numbers)
{
	struct mk_flow_key k;
	__u32 a[4];

	/* 1 < 256 as numbers; their network-order bytes on a little-endian host say the opposite */
	v4(a, "192.0.2.1");
	cr_expect_eq(set(&k, a, 256, a, 1), 1);
	cr_expect_eq(k.port_lo, htons(1));
	cr_expect_eq(k.port_hi, htons(256));
	cr_expect_eq(set(&k, a, 1, a, 256), 0);
	cr_expect_eq(k.port_lo, htons(1));
}

Test(flow_key, same_endpoint_is_not_reversed)
{
	struct mk_flow_key k;
	__u32 a[4];

	v6(a, "2001:db8::1");
	cr_expect_eq(set(&k, a, 7, a, 7), 0);
	cr_expect_arr_eq(k.addr_lo, k.addr_hi, 16);
}

Test(flow_key, address_decides_before_port)
{
	struct mk_flow_key k;
	__u32 a[4], b[4];

	v6(a, "2001:db8::1");
	v6(b, "2001:db8::2");
	cr_expect_eq(set(&k, b, 1, a, 65535), 1);
	cr_expect_arr_eq(k.addr_lo, a, 16);
	cr_expect_eq(k.port_lo, htons(65535));
}

Test(flow_key, words_compare_as_loaded)
{
	struct mk_flow_key k;
	__u32 a[4], b[4];

	/*
	 * The order is that of the host's 32-bit loads, the same in BPF and user
	 * space on one machine; it need not be the numeric order of addresses.
	 */
	v4(a, "10.0.0.2");
	v4(b, "11.0.0.1");
	cr_expect_eq(set(&k, a, 1, b, 1), a[0] > b[0]);
	cr_expect_eq(k.addr_lo[0], a[0] < b[0] ? a[0] : b[0]);
	/* only the last word differs */
	v6(a, "2001:db8::1:0");
	v6(b, "2001:db8::1");
	cr_expect_eq(set(&k, a, 1, b, 1), a[3] > b[3]);
}

/* Random endpoint pairs: swapping source and destination gives the same key and flips the bit. */
Test(flow_key, swap_property)
{
	__u64 s = 0x9e3779b97f4a7c15ull;
	int i, j;

	for (i = 0; i < 200000; i++) {
		struct mk_flow_key k, r;
		__u32 a[4] = { 0 }, b[4] = { 0 };
		__u16 ap = (__u16)rng_next(&s), bp = (__u16)rng_next(&s);
		int n = (i & 1) ? 4 : 1, ra, rb;

		for (j = 0; j < n; j++) {
			a[j] = (__u32)rng_next(&s);
			/* often share a prefix, sometimes the whole address */
			b[j] = (rng_next(&s) & 3) ? a[j] : (__u32)rng_next(&s);
		}
		if (!(i % 7))
			bp = ap;
		ra = set(&k, a, ap, b, bp);
		rb = set(&r, b, bp, a, ap);
		cr_assert_arr_eq(&k, &r, sizeof(k), "iteration %d", i);
		if (memcmp(a, b, 16) || ap != bp)
			cr_assert_eq(ra, !rb, "iteration %d", i);
		else
			cr_assert(!ra && !rb);
		cr_assert_leq(mk_endpoint_cmp(k.addr_lo, k.port_lo, k.addr_hi, k.port_hi), 0);
	}
}

/* The tunnel context orders the outer pair too, and depends on the tunnel type. */
Test(flow_key, tunnel_ctx_symmetric)
{
	__u32 a[4], b[4];

	v4(a, "192.0.2.1");
	v4(b, "198.51.100.1");
	cr_expect_eq(mk_tunnel_ctx(0, MK_TUNNEL_GTPU, MK_FAMILY_IPV4, a, b),
		     mk_tunnel_ctx(0, MK_TUNNEL_GTPU, MK_FAMILY_IPV4, b, a));
	cr_expect_neq(mk_tunnel_ctx(0, MK_TUNNEL_GTPU, MK_FAMILY_IPV4, a, b),
		      mk_tunnel_ctx(0, MK_TUNNEL_L2TPV2, MK_FAMILY_IPV4, a, b));
	cr_expect_neq(mk_tunnel_ctx(0, MK_TUNNEL_GTPU, MK_FAMILY_IPV4, a, b), 0);
	cr_expect_neq(mk_tunnel_ctx(5, MK_TUNNEL_GTPU, MK_FAMILY_IPV4, a, b),
		      mk_tunnel_ctx(0, MK_TUNNEL_GTPU, MK_FAMILY_IPV4, a, b));
}
