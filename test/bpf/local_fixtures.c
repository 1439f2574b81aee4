// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stand-in for the generated fixture table (test/fixtures/gen_fixtures.py),
 * linked only while that table is not in the tree, so the BPF tests have
 * frames to run. Same contract: every expected value below follows from how
 * the frame was built, never from running meerkat's parser. Lengths are
 * written as sums of header sizes and checked when the frames are built.
 */
#include <assert.h>
#include <string.h>
#include "fixture.h"
#include "frames.h"
#include "meta.h"
#include "parse.h"

enum {
	FX_IPV4_TCP,
	FX_IPV4_TCP_REV,
	FX_IPV6_UDP,
	FX_IPV6_UDP_REV,
	FX_GTPU,
	FX_GTPU_REV,
	FX_L2TPV2,
	FX_VLAN_ICMP,
	FX_ARP,
	FX_TRUNC_IPV4,
	FX_COUNT
};

static struct frame in[FX_COUNT], out[FX_COUNT];

/* one fixture per block reads better than the formatter's layout */
/* clang-format off */
#define A4(a, b, c, d) { a, b, c, d }
#define A6(last) { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last }

#define MAC_A { 0x02, 0, 0, 0, 0, 0x0a }
#define MAC_B { 0x02, 0, 0, 0, 0, 0x0b }

#define FX_COMMON(i, n) .name = n, .frame = in[i].b, .out = out[i].b, .tunnel_depth = 2

const struct mk_fixture mk_fixtures[] = {
	[FX_IPV4_TCP] = { FX_COMMON(FX_IPV4_TCP, "local_ipv4_tcp"),
		.len = 14 + 20 + 20 + 5, .out_len = 14 + 20 + 20 + 5,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 34,
		.family = 4, .proto = 6, .src = A4(10, 0, 0, 1), .dst = A4(10, 0, 0, 2),
		.sport = 40000, .dport = 80, .reverse = "local_ipv4_tcp_rev" },
	[FX_IPV4_TCP_REV] = { FX_COMMON(FX_IPV4_TCP_REV, "local_ipv4_tcp_rev"),
		.len = 14 + 20 + 20 + 7, .out_len = 14 + 20 + 20 + 7,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 34, .flags = MK_META_F_REVERSE,
		.family = 4, .proto = 6, .src = A4(10, 0, 0, 2), .dst = A4(10, 0, 0, 1),
		.sport = 80, .dport = 40000, .reverse = "local_ipv4_tcp" },
	[FX_IPV6_UDP] = { FX_COMMON(FX_IPV6_UDP, "local_ipv6_udp"),
		.len = 14 + 40 + 8 + 3, .out_len = 14 + 40 + 8 + 3,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 54, .flags = MK_META_F_IPV6,
		.family = 6, .proto = 17, .src = A6(1), .dst = A6(2),
		.sport = 5353, .dport = 53, .reverse = "local_ipv6_udp_rev" },
	[FX_IPV6_UDP_REV] = { FX_COMMON(FX_IPV6_UDP_REV, "local_ipv6_udp_rev"),
		.len = 14 + 40 + 8 + 3, .out_len = 14 + 40 + 8 + 3,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 54,
		.flags = MK_META_F_IPV6 | MK_META_F_REVERSE,
		.family = 6, .proto = 17, .src = A6(2), .dst = A6(1),
		.sport = 53, .dport = 5353, .reverse = "local_ipv6_udp" },
	[FX_GTPU] = { FX_COMMON(FX_GTPU, "local_gtpu_ipv4_tcp"),
		.len = 14 + 20 + 8 + 8 + 20 + 20 + 4, .out_len = 14 + 20 + 20 + 4,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 34, .flags = MK_META_F_TUNNEL,
		.tunnel_type = MK_TUNNEL_GTPU, .tunnel_depth_stripped = 1, .tunnel_id = 0x1234,
		.family = 4, .proto = 6, .src = A4(10, 1, 0, 1), .dst = A4(10, 1, 0, 2),
		.sport = 1000, .dport = 2000, .outer_family = 4,
		.outer_src = A4(192, 0, 2, 1), .outer_dst = A4(192, 0, 2, 2),
		.reverse = "local_gtpu_ipv4_tcp_rev" },
	[FX_GTPU_REV] = { FX_COMMON(FX_GTPU_REV, "local_gtpu_ipv4_tcp_rev"),
		.len = 14 + 20 + 8 + 8 + 20 + 20 + 4, .out_len = 14 + 20 + 20 + 4,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 34,
		.flags = MK_META_F_TUNNEL | MK_META_F_REVERSE,
		.tunnel_type = MK_TUNNEL_GTPU, .tunnel_depth_stripped = 1, .tunnel_id = 0x5678,
		.family = 4, .proto = 6, .src = A4(10, 1, 0, 2), .dst = A4(10, 1, 0, 1),
		.sport = 2000, .dport = 1000, .outer_family = 4,
		.outer_src = A4(192, 0, 2, 2), .outer_dst = A4(192, 0, 2, 1),
		.reverse = "local_gtpu_ipv4_tcp" },
	[FX_L2TPV2] = { FX_COMMON(FX_L2TPV2, "local_l2tpv2_ipv4_udp"),
		.len = 14 + 20 + 8 + 10 + 20 + 8 + 2, .out_len = 14 + 20 + 8 + 2,
		.status = MK_PARSE_IP, .l3_off = 14, .l4_off = 34, .flags = MK_META_F_TUNNEL,
		.tunnel_type = MK_TUNNEL_L2TPV2, .tunnel_depth_stripped = 1,
		.tunnel_id = (5u << 16) | 7,
		.family = 4, .proto = 17, .src = A4(10, 2, 0, 1), .dst = A4(10, 2, 0, 2),
		.sport = 9, .dport = 10, .outer_family = 4,
		.outer_src = A4(198, 51, 100, 1), .outer_dst = A4(198, 51, 100, 2) },
	[FX_VLAN_ICMP] = { FX_COMMON(FX_VLAN_ICMP, "local_vlan_icmp_echo"),
		.len = 14 + 4 + 20 + 8, .out_len = 14 + 4 + 20 + 8,
		.status = MK_PARSE_IP, .l3_off = 18, .l4_off = 38, .vlan = { 10, 0 },
		.family = 4, .proto = 1, .src = A4(10, 3, 0, 1), .dst = A4(10, 3, 0, 2),
		.sport = 0x42, .dport = 0x42 },
	[FX_ARP] = { FX_COMMON(FX_ARP, "local_arp"),
		.len = 14 + 28, .out_len = 14 + 28, .status = MK_PARSE_NON_IP },
	[FX_TRUNC_IPV4] = { FX_COMMON(FX_TRUNC_IPV4, "local_trunc_ipv4"),
		.len = 14 + 16, .out_len = 14 + 16,
		.status = MK_PARSE_ERROR, .reason = MK_REASON_ERR_TRUNC_IPV4 },
};
const unsigned int mk_fixture_count = FX_COUNT;
/* clang-format on */

static void build_ip_flow(struct frame *f, const struct mk_fixture *fx, const char *payload)
{
	if (fx->family == 4)
		frame_ipv4(f, fx->src, fx->dst, fx->proto);
	else
		frame_ipv6(f, fx->src, fx->dst, fx->proto);
	if (fx->proto == 6)
		frame_tcp(f, fx->sport, fx->dport);
	else if (fx->proto == 17)
		frame_udp(f, fx->sport, fx->dport);
	else
		frame_icmp_echo(f, fx->sport);
	frame_bytes(f, payload, (__u32)strlen(payload));
}

/* The outer frame and the frame the program must deliver, built side by side. */
static void build(unsigned int i, const char *payload)
{
	static const __u8 mac_a[6] = MAC_A, mac_b[6] = MAC_B;
	const struct mk_fixture *fx = &mk_fixtures[i];
	struct frame *f = &in[i], *o = &out[i];
	__u16 inner_type = fx->family == 6 ? 0x86dd : 0x0800;

	frame_init(f);
	frame_init(o);
	switch (i) {
	case FX_GTPU:
	case FX_GTPU_REV:
	case FX_L2TPV2:
		frame_eth(f, mac_b, mac_a, 0x0800);
		frame_ipv4(f, fx->outer_src, fx->outer_dst, 17);
		if (i == FX_L2TPV2) {
			frame_udp(f, 1701, 1701);
			frame_l2tpv2_ppp(f, 5, 7, 0x0021);
		} else {
			frame_udp(f, 2152, 2152);
			frame_gtpu(f, fx->tunnel_id);
		}
		build_ip_flow(f, fx, payload);
		/* delivered: the outer MACs and the inner packet */
		frame_eth(o, mac_b, mac_a, inner_type);
		build_ip_flow(o, fx, payload);
		break;
	case FX_VLAN_ICMP:
		frame_eth(f, mac_b, mac_a, 0x8100);
		frame_vlan(f, 0x8100, 10, 0x0800);
		build_ip_flow(f, fx, payload);
		break;
	case FX_ARP: {
		static const __u8 arp[28] = {0,	 1, 8, 0, 6, 4, 0, 1, 0x02, 0, 0,  0, 0, 0x0a,
					     10, 0, 0, 1, 0, 0, 0, 0, 0,    0, 10, 0, 0, 2};
		static const __u8 bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

		frame_eth(f, bcast, mac_a, 0x0806);
		frame_bytes(f, arp, sizeof(arp));
		break;
	}
	case FX_TRUNC_IPV4: {
		static const __u8 src[4] = A4(10, 0, 0, 1), dst[4] = A4(10, 0, 0, 2);

		frame_eth(f, mac_b, mac_a, 0x0800);
		frame_ipv4(f, src, dst, 6);
		frame_finish(f);
		f->len -= 4; /* cut inside the IPv4 header */
		break;
	}
	default:
		frame_eth(f, mac_b, mac_a, inner_type);
		build_ip_flow(f, fx, payload);
		break;
	}
	frame_finish(f);
	frame_finish(o);
	if (!o->len)
		*o = *f; /* passed or plain frames are delivered as they came */
	assert(f->len == fx->len);
	assert(o->len == fx->out_len);
}

__attribute__((constructor)) static void local_fixtures_build(void)
{
	build(FX_IPV4_TCP, "hello");
	build(FX_IPV4_TCP_REV, "welcome");
	build(FX_IPV6_UDP, "abc");
	build(FX_IPV6_UDP_REV, "xyz");
	build(FX_GTPU, "data");
	build(FX_GTPU_REV, "back");
	build(FX_L2TPV2, "pp");
	build(FX_VLAN_ICMP, "");
	build(FX_ARP, "");
	build(FX_TRUNC_IPV4, "");
}
