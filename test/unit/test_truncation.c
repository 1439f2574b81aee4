// SPDX-License-Identifier: GPL-2.0-only
/*
 * Truncation: every fixture cut at every length 0..len, parsed from a heap
 * buffer of exactly that size (ASan in CI catches any read past it), from
 * the Ethernet header and from the IP header, under several configurations.
 * The parser must return an error with a reason, non-IP, or a result whose
 * offsets and key are sane; decapsulation must stay inside the buffer.
 */
#include <criterion/criterion.h>

#include "helpers.h"

static void check_result(const struct mk_fixture *fx, __u32 len, int start,
			 const struct mk_parse_cfg *cfg, const __u8 *bytes)
{
	struct mk_parse p;
	struct mk_meta m;
	__u8 *buf = exact_copy(bytes, len);
	int ret = parse_buf(buf, len, start, cfg, &p);

	switch (ret) {
	case MK_PARSE_ERROR:
		cr_assert(p.reason > MK_REASON_NONE && p.reason < MK_REASON_MAX,
			  "%s[%u] start %d: error with reason %u", fx->name, len, start, p.reason);
		break;
	case MK_PARSE_NON_IP:
		cr_assert_eq(p.reason, 0, "%s[%u]: non-IP with a reason", fx->name, len);
		break;
	case MK_PARSE_IP: {
		__u32 l3min = p.l3.family == MK_FAMILY_IPV4 ? 20 : 40, strip, out;

		cr_assert(p.l3.family == MK_FAMILY_IPV4 || p.l3.family == MK_FAMILY_IPV6);
		cr_assert_eq(p.reason, 0);
		cr_assert_leq(p.l3.l3_off + l3min, len, "%s[%u]: L3 header past the end", fx->name,
			      len);
		if (p.l3.l4_off) {
			cr_assert_geq(p.l3.l4_off, p.l3.l3_off + l3min);
			cr_assert_leq(p.l3.l4_off, len, "%s[%u]: l4_off %u past the end", fx->name,
				      len, p.l3.l4_off);
		}
		cr_assert_leq(p.tunnel_depth, cfg->tunnel_depth);
		cr_assert_eq(!!(p.flags & MK_META_F_TUNNEL), p.tunnel_depth > 0);
		cr_assert_eq(!!(p.flags & MK_META_F_TRUNCATED), p.l3.l3_off + p.l3.ip_len > len,
			     "%s[%u]: TRUNCATED flag", fx->name, len);
		cr_assert_leq(mk_endpoint_cmp(p.key.addr_lo, p.key.port_lo, p.key.addr_hi,
					      p.key.port_hi),
			      0);
		cr_assert_eq(p.hash, mk_flow_hash(&p.key, cfg->seed));
		mk_meta_fill(&m, &p, 0);
		strip = mk_decap_strip(&p);
		if (p.tunnel_depth) {
			cr_assert_geq(p.l3.l3_off, MK_ETH_HLEN + strip - strip);
			cr_assert_leq(p.mac_off + 12u, len);
			cr_assert_eq(mk_meta_l3_off(&m), MK_ETH_HLEN);
		}
		out = mk_decap_apply(buf, &p);
		cr_assert_eq(out, strip);
		cr_assert_leq(out + MK_ETH_HLEN, len);
		break;
	}
	default:
		cr_assert_fail("%s[%u]: status %d", fx->name, len, ret);
	}
	free(buf);
}

static const struct mk_parse_cfg cfgs[] = {
	{ .seed = 1, .tunnel_depth = 0 },
	{ .seed = 2, .tunnel_depth = 1, .l2tpv3_cookie_len = 4 },
	{ .seed = 3, .tunnel_depth = 2, .l2tpv3_cookie_len = 8, .l2tpv3_l2spec = MK_L2SPEC_DEFAULT },
	{ .seed = 4, .tunnel_depth = MK_TUNNEL_DEPTH_MAX, .l2tpv3_l2spec = MK_L2SPEC_DEFAULT },
	/* decoders off and ports moved: the same bytes are plain flows or other tunnels */
	{ .seed = 7,
	  .tunnel_depth = MK_TUNNEL_DEPTH_MAX,
	  .tunnel_off = MK_TUN_GRE | MK_TUN_IPIP,
	  .vxlan_port = 2152,
	  .geneve_port = 1701 },
};

Test(truncation, every_fixture_every_length, .timeout = 300)
{
	unsigned int i, c;
	__u32 len;

	for (i = 0; i < mk_fixture_count; i++) {
		const struct mk_fixture *fx = &mk_fixtures[i];
		struct mk_parse_cfg own = fixture_cfg(fx, 5);

		for (len = 0; len <= fx->len; len++) {
			check_result(fx, len, MK_START_ETH, &own, fx->frame);
			for (c = 0; c < MK_ARRAY_SIZE(cfgs); c++)
				check_result(fx, len, MK_START_ETH, &cfgs[c], fx->frame);
			if (len >= MK_ETH_HLEN)
				check_result(fx, len - MK_ETH_HLEN, MK_START_IP, &own,
					     fx->frame + MK_ETH_HLEN);
		}
	}
}

/*
 * A frame cut after its innermost L4 header parses to the same flow as the
 * whole frame: truncation only ever adds the TRUNCATED flag from there on.
 */
Test(truncation, headers_complete_same_flow)
{
	unsigned int i;

	for (i = 0; i < mk_fixture_count; i++) {
		const struct mk_fixture *fx = &mk_fixtures[i];
		struct mk_parse_cfg cfg = fixture_cfg(fx, 6);
		struct mk_parse full, cut;
		__u32 end, strip;
		int ret;

		if (fx->status != MK_PARSE_IP || !fx->l4_off)
			continue;
		cr_assert_eq(parse_buf(fx->frame, fx->len, MK_START_ETH, &cfg, &full), MK_PARSE_IP);
		strip = fx->len - fx->out_len;
		/* 20 covers every L4 header the parser reads */
		end = strip + fx->l4_off + 20;
		if (end >= fx->len)
			continue;
		ret = parse_buf(fx->frame, end, MK_START_ETH, &cfg, &cut);
		/*
		 * a flow whose payload may be a tunnel header has the parser read past
		 * its L4 header (to tell an Ethernet or control payload from a tunnel it
		 * strips): cut there, the tunnel is broken
		 */
		if (ret == MK_PARSE_ERROR && cut.reason == MK_REASON_ERR_TRUNC_TUNNEL &&
		    mk_may_be_tunnel(&full.l3, &cfg))
			continue;
		cr_assert_eq(ret, MK_PARSE_IP, "%s", fx->name);
		cr_expect_eq(cut.hash, full.hash, "%s: cut at %u changes the flow", fx->name, end);
		/* padding after the IP packet is not part of it */
		if (full.l3.l3_off + full.l3.ip_len > end)
			cr_expect(cut.flags & MK_META_F_TRUNCATED, "%s", fx->name);
		/* a tunnel beyond the depth is not parsed to its end, so it may go unnoticed */
		cr_expect_eq(cut.flags & ~(MK_META_F_TRUNCATED | MK_META_F_DEPTH_EXCEEDED),
			     full.flags & ~(MK_META_F_TRUNCATED | MK_META_F_DEPTH_EXCEEDED), "%s",
			     fx->name);
	}
}
