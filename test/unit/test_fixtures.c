// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every generated fixture through the user-space build of common/parse.h:
 * status, reason, flags, tunnel, offsets after decapsulation, VLANs, the
 * canonical key, the seeded hash (against the generator's own NH) and
 * the delivered bytes of mk_decap_apply.
 */
#include <endian.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "helpers.h"

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

ParameterizedTestParameters(fixtures, parse)
{
	unsigned int *idx = cr_malloc(sizeof(*idx) * mk_fixture_count);
	unsigned int i;

	for (i = 0; i < mk_fixture_count; i++)
		idx[i] = i;
	return cr_make_param_array(unsigned int, idx, mk_fixture_count, free_params);
}

ParameterizedTest(unsigned int *idx, fixtures, parse)
{
	const struct mk_fixture *fx = &mk_fixtures[*idx];
	struct mk_parse_cfg cfg = fixture_cfg(fx, MK_FIXTURE_SEED);
	struct mk_flow_key want;
	struct mk_meta m;
	struct mk_parse p;
	__u32 out_off;
	__u8 *buf;
	int ret;

	cr_log_info("fixture %s", fx->name);
	buf = exact_copy(fx->frame, fx->len);
	ret = parse_buf(buf, fx->len, MK_START_ETH, &cfg, &p);
	cr_assert_eq(ret, fx->status, "%s: status %d, want %d (reason %u)", fx->name, ret,
		     fx->status, p.reason);
	if (ret == MK_PARSE_ERROR) {
		cr_expect_eq(p.reason, fx->reason, "%s: reason %s, want %s", fx->name,
			     mk_stat_descs[mk_reason_stat(p.reason)].name,
			     mk_stat_descs[mk_reason_stat(fx->reason)].name);
		goto out;
	}
	if (ret != MK_PARSE_IP)
		goto out;

	memset(&m, 0, sizeof(m));
	mk_meta_fill(&m, &p, 0x123456);
	cr_expect_eq(m.flags, fx->flags, "%s: flags 0x%x, want 0x%x", fx->name, m.flags, fx->flags);
	cr_expect_eq(mk_meta_tunnel_type(&m), fx->tunnel_type, "%s: tunnel type %u, want %u",
		     fx->name, mk_meta_tunnel_type(&m), fx->tunnel_type);
	cr_expect_eq(p.tunnel_depth, fx->tunnel_depth_stripped, "%s: %u tunnels stripped, want %u",
		     fx->name, p.tunnel_depth, fx->tunnel_depth_stripped);
	cr_expect_eq(m.tunnel_id, fx->tunnel_id, "%s: tunnel id 0x%x, want 0x%x", fx->name,
		     m.tunnel_id, fx->tunnel_id);
	cr_expect_eq(mk_meta_l3_off(&m), fx->l3_off, "%s: l3_off %u, want %u", fx->name,
		     mk_meta_l3_off(&m), fx->l3_off);
	cr_expect_eq(m.l4_off, fx->l4_off, "%s: l4_off %u, want %u", fx->name, m.l4_off,
		     fx->l4_off);
	cr_expect_eq(mk_meta_vlan(&m, 0), fx->vlan[0], "%s: vlan[0]", fx->name);
	cr_expect_eq(mk_meta_vlan(&m, 1), fx->vlan[1], "%s: vlan[1]", fx->name);
	cr_expect_eq(mk_meta_magic(&m), MK_META_MAGIC);
	cr_expect_eq(mk_meta_stamp(&m), 0x123456);
	cr_expect_eq(mk_meta_proto(&m), fx->proto, "%s: proto %u, want %u", fx->name,
		     mk_meta_proto(&m), fx->proto);
	cr_expect_eq(m.hash, fx->hash, "%s: hash 0x%08x, want 0x%08x (generator's NH)", fx->name,
		     m.hash, fx->hash);
	cr_expect_eq(p.tunnel_ctx, fx->tunnel_ctx, "%s: tunnel ctx 0x%08x, want 0x%08x", fx->name,
		     p.tunnel_ctx, fx->tunnel_ctx);

	/* the flow as sent, before canonicalisation */
	cr_expect_eq(p.l3.family, fx->family, "%s: family", fx->name);
	cr_expect_eq(p.key.proto, fx->proto, "%s: proto %u, want %u", fx->name, p.key.proto,
		     fx->proto);
	cr_expect_arr_eq(p.l3.src, fx->src, 16, "%s: src", fx->name);
	cr_expect_arr_eq(p.l3.dst, fx->dst, 16, "%s: dst", fx->name);
	cr_expect_eq(be16toh(p.l3.sport), fx->sport, "%s: sport %u, want %u", fx->name,
		     be16toh(p.l3.sport), fx->sport);
	cr_expect_eq(be16toh(p.l3.dport), fx->dport, "%s: dport %u, want %u", fx->name,
		     be16toh(p.l3.dport), fx->dport);

	fixture_key(fx, &want);
	cr_expect_arr_eq(&p.key, &want, sizeof(want), "%s: canonical key differs", fx->name);
	cr_expect_eq(mk_flow_hash(&want, MK_FIXTURE_SEED), fx->hash,
		     "%s: C hash of the expected key differs from the generator's", fx->name);

	/* outer context of the innermost tunnel */
	cr_expect_eq(p.outer_family, fx->outer_family, "%s: outer family", fx->name);
	cr_expect_arr_eq(p.outer_src, fx->outer_src, 16, "%s: outer src", fx->name);
	cr_expect_arr_eq(p.outer_dst, fx->outer_dst, 16, "%s: outer dst", fx->name);
	if (fx->outer_family == MK_FAMILY_IPV4) {
		cr_expect_arr_eq(&m.outer_src, fx->outer_src, 4, "%s: meta outer src", fx->name);
		cr_expect_arr_eq(&m.outer_dst, fx->outer_dst, 4, "%s: meta outer dst", fx->name);
	} else if (fx->outer_family == MK_FAMILY_IPV6) {
		__u32 a[4], b[4];

		addr_words(a, fx->outer_src);
		addr_words(b, fx->outer_dst);
		cr_expect_eq(m.outer_src, a[0] ^ a[1] ^ a[2] ^ a[3], "%s: outer src fold",
			     fx->name);
		cr_expect_eq(m.outer_dst, b[0] ^ b[1] ^ b[2] ^ b[3], "%s: outer dst fold",
			     fx->name);
	}

	/* the delivered frame, byte for byte */
	out_off = mk_decap_apply(buf, &p);
	cr_assert_leq(out_off, fx->len);
	cr_expect_eq(fx->len - out_off, fx->out_len, "%s: delivered %u bytes, want %u", fx->name,
		     fx->len - out_off, fx->out_len);
	if (fx->len - out_off == fx->out_len)
		cr_expect_arr_eq(buf + out_off, fx->out, fx->out_len, "%s: delivered bytes differ",
				 fx->name);
out:
	free(buf);
}

/* A fixture and its reverse twin: same key and hash, opposite direction bit. */
ParameterizedTestParameters(fixtures, reverse_twin)
{
	unsigned int *idx = cr_malloc(sizeof(*idx) * mk_fixture_count);
	unsigned int i, n = 0;

	for (i = 0; i < mk_fixture_count; i++)
		if (mk_fixtures[i].reverse)
			idx[n++] = i;
	return cr_make_param_array(unsigned int, idx, n, free_params);
}

ParameterizedTest(unsigned int *idx, fixtures, reverse_twin)
{
	const struct mk_fixture *fx = &mk_fixtures[*idx], *tw = fixture_by_name(fx->reverse);
	struct mk_parse_cfg cfg = fixture_cfg(fx, 0x1234567);
	struct mk_parse a, b;
	__u8 *ba, *bb;

	cr_assert_not_null(tw, "%s: twin %s missing", fx->name, fx->reverse);
	cr_assert_str_eq(tw->reverse, fx->name);
	ba = exact_copy(fx->frame, fx->len);
	bb = exact_copy(tw->frame, tw->len);
	cr_assert_eq(parse_buf(ba, fx->len, MK_START_ETH, &cfg, &a), MK_PARSE_IP, "%s", fx->name);
	cr_assert_eq(parse_buf(bb, tw->len, MK_START_ETH, &cfg, &b), MK_PARSE_IP, "%s", tw->name);
	cr_expect_arr_eq(&a.key, &b.key, sizeof(a.key), "%s/%s: keys differ", fx->name, tw->name);
	cr_expect_eq(a.hash, b.hash, "%s/%s: hashes differ", fx->name, tw->name);
	cr_expect_eq(a.tunnel_ctx, b.tunnel_ctx);
	/* the direction bit flips, unless both endpoints are the same (then it is 0 twice) */
	if (memcmp(a.key.addr_lo, a.key.addr_hi, 16) || a.key.port_lo != a.key.port_hi)
		cr_expect_neq(a.flags & MK_META_F_REVERSE, b.flags & MK_META_F_REVERSE,
			      "%s/%s: direction bit does not flip", fx->name, tw->name);
	free(ba);
	free(bb);
}

/* The fixture set itself covers what the brief asks for. */
Test(fixtures, coverage)
{
	static const char *const must[] = {
		"ipv4_tcp",
		"ipv4_udp",
		"ipv4_icmp_echo",
		"ipv4_sctp",
		"ipv6_tcp",
		"ipv6_udp",
		"ipv6_icmp_echo",
		"ipv6_sctp",
		"ipv4_options_tcp",
		"ipv6_hbh_udp",
		"ipv6_routing_tcp",
		"ipv6_dstopts_udp",
		"ipv6_ah_tcp",
		"ipv6_frag_udp_first0",
		"vlan_tcp",
		"qinq_udp",
		"vlan_9100_tcp",
		"vlan_88a8_udp",
		"qinq_9100_udp",
		"qinq_88a8_9100_tcp",
		"l2tpv3_ip_inner_qinq_88a8",
		"l2tpv3_udp_inner_vlan_9100",
		"vlan_9100_arp",
		"vlan_depth3",
		"vlan_depth3_9100",
		"ipv4_frag_udp_first0",
		"ipv4_frag_udp_later1",
		"gtpu_min_udp",
		"gtpu_seq_tcp",
		"gtpu_npdu_tcp",
		"gtpu_ext1_tcp",
		"gtpu_ext2_udp",
		"gtpu_inner_v6",
		"gtpu_outer_v6",
		"gtpu_in_gtpu",
		"gtpu_in_gtpu_depth1",
		"gtpu_echo_request",
		"gtpu_end_marker",
		"gtpu_non_ip",
		"l2tpv2_tcp",
		"l2tpv2_len_udp",
		"l2tpv2_seq_tcp",
		"l2tpv2_offset_udp",
		"l2tpv2_no_acf_tcp",
		"l2tpv2_pfc_tcp",
		"l2tpv2_ipv6",
		"l2tpv2_control",
		"l2tpv2_ppp_lcp",
		"l2tpv3_ip_tcp",
		"l2tpv3_ip_cookie4_udp",
		"l2tpv3_ip_cookie8_tcp",
		"l2tpv3_ip_l2spec_udp",
		"l2tpv3_udp_tcp",
		"l2tpv3_ip_control",
		"arp",
		"lldp",
		"ipv4_ihl4",
		"ipv4_totlen_lt_ihl",
		"tcp_doff4",
		"ipv6_bad_version",
		"ipv6_too_many_ext",
		"gtpu_trunc_ext",
		"vxlan_tcp",
		"vxlan_udp_mirror",
		"vxlan_inner_qinq_9100_udp",
		"vxlan_outer_v6",
		"vxlan_off",
		"vxlan_trunc_inner_eth",
		"geneve_eth_tcp",
		"geneve_opts_udp",
		"geneve_max_opts_tcp",
		"geneve_ipv4_tcp",
		"geneve_ipv6",
		"geneve_trunc_opts",
		"gre_ipv4_tcp",
		"gre_key_udp",
		"gre_seq_ipv6",
		"gre_csum_key_seq_tcp",
		"gre_teb_tcp",
		"gre_teb_key_vlan_udp",
		"gre_v1_pptp",
		"gre_trunc_key",
		"erspan1_tcp",
		"erspan2_tcp",
		"erspan2_qinq_88a8_ipv6",
		"erspan3_tcp",
		"erspan3_subheader_udp",
		"erspan3_ip_tcp",
		"ipip_4in4_tcp",
		"ipip_6in4_udp",
		"ipip_4in6_udp",
		"ipip_6in6_udp",
		"erspan2_gtpu_tcp",
		"gre_vxlan_tcp",
		"ipip_gre_vxlan_depth2",
		"ipip_gre_vxlan_depth3",
		"ipip4_depth3_exceeded",
		"gtpu_off",
		"l2tpv2_off",
	};
	unsigned int i, twins = 0;

	for (i = 0; i < MK_ARRAY_SIZE(must); i++)
		cr_expect_not_null(fixture_by_name(must[i]), "fixture %s missing", must[i]);
	for (i = 0; i < mk_fixture_count; i++) {
		twins += mk_fixtures[i].reverse != NULL;
		cr_expect(mk_fixtures[i].status != MK_PARSE_ERROR || mk_fixtures[i].reason,
			  "%s: error without a reason", mk_fixtures[i].name);
	}
	cr_expect_geq(mk_fixture_count, 150u);
	cr_expect_geq(twins, 80u);
}

/*
 * The fast path and the general parser give the same result, to the byte,
 * for every fixture: the whole parse with the fast path (plain flows end
 * there, and so do plain flows in one plain tunnel; other tunnels go on from
 * the fast outer level), the same without the fast tunnel level, and the
 * general parser alone. The fast path takes the plain fixtures, and the fast
 * tunnel level at least one of every tunnel type it knows.
 */
Test(fixtures, fast_path_same_as_general)
{
	static const char *const plain[] = {
		"ipv4_tcp",	   "ipv4_udp_rev",
		"ipv6_tcp",	   "ipv6_udp",
		"vlan_tcp",	   "vlan_9100_tcp_rev",
		"vlan_88a8_udp",   "ipv4_tcp_truncated_payload",
		"ipv4_udp_padded",
	};
	unsigned int i, flows = 0, tunnels = 0, fast_tunnels = 0, t;
	unsigned int per_type[MK_TUNNEL_TYPE_MAX] = { 0 };
	static const __u8 fast_types[] = {
		MK_TUNNEL_GTPU,	  MK_TUNNEL_L2TPV2, MK_TUNNEL_L2TPV3_IP, MK_TUNNEL_VXLAN,
		MK_TUNNEL_GENEVE, MK_TUNNEL_GRE,    MK_TUNNEL_ERSPAN,	 MK_TUNNEL_IPIP,
	};

	for (i = 0; i < MK_ARRAY_SIZE(plain); i++) {
		const struct mk_fixture *fx = fixture_by_name(plain[i]);
		struct mk_parse_cfg cfg = fixture_cfg(fx, 1);
		struct mk_parse p;
		struct mk_frame f = { .data = fx->frame, .data_end = fx->frame + fx->len };

		cr_expect_eq(mk_parse_fast(&f, &cfg, mk_hash_key_of(cfg.seed), &p), MK_FAST_FLOW,
			     "%s: not taken by the fast path", plain[i]);
	}
	for (i = 0; i < mk_fixture_count; i++) {
		const struct mk_fixture *fx = &mk_fixtures[i];
		struct mk_parse_cfg cfg = fixture_cfg(fx, MK_FIXTURE_SEED), gen = cfg, lvl = cfg;
		struct mk_parse pf, pg, pl, tmp;
		struct mk_frame f;
		__u8 *buf = exact_copy(fx->frame, fx->len);
		int rf, rg, rl, fast;

		gen.parse_flags = MK_PARSE_F_GENERAL_ONLY;
		lvl.parse_flags = MK_PARSE_F_NO_FAST_TUNNEL;
		f.data = buf;
		f.data_end = buf + fx->len;
		rg = mk_parse_frame(&f, MK_START_ETH, &gen, &pg);
		cr_expect_eq(rg, fx->status, "%s: general parser status %d, want %d", fx->name, rg,
			     fx->status);
		memset(&pf, 0xa5, sizeof(pf));
		rf = mk_parse_frame(&f, MK_START_ETH, &cfg, &pf);
		cr_expect_eq(rf, rg, "%s: status %d with the fast path, %d without", fx->name, rf,
			     rg);
		if (rf == MK_PARSE_IP && rg == MK_PARSE_IP)
			cr_expect_arr_eq(&pf, &pg, sizeof(pf),
					 "%s: fast path and general parser "
					 "differ",
					 fx->name);
		else if (rf == MK_PARSE_ERROR && rg == MK_PARSE_ERROR)
			cr_expect_eq(pf.reason, pg.reason,
				     "%s: reason %u with the fast path, %u "
				     "without",
				     fx->name, pf.reason, pg.reason);
		memset(&pl, 0x5a, sizeof(pl));
		rl = mk_parse_frame(&f, MK_START_ETH, &lvl, &pl);
		cr_expect_eq(rl, rg,
			     "%s: status %d without the fast tunnel level, %d without "
			     "any fast path",
			     fx->name, rl, rg);
		if (rl == MK_PARSE_IP && rg == MK_PARSE_IP)
			cr_expect_arr_eq(&pl, &pg, sizeof(pl),
					 "%s: fast outer level and general "
					 "parser differ",
					 fx->name);
		else if (rl == MK_PARSE_ERROR && rg == MK_PARSE_ERROR)
			cr_expect_eq(pl.reason, pg.reason,
				     "%s: reason %u without the fast tunnel "
				     "level, %u without any fast path",
				     fx->name, pl.reason, pg.reason);
		fast = fx->len >= MK_ETH_HLEN ?
			       mk_parse_fast(&f, &cfg, mk_hash_key_of(cfg.seed), &tmp) :
			       MK_FAST_NO;
		flows += fast == MK_FAST_FLOW;
		tunnels += fast == MK_FAST_TUNNEL;
		if (fast == MK_FAST_TUNNEL &&
		    mk_parse_fast_tunnel(&f, &cfg, mk_hash_key_of(cfg.seed), &tmp) ==
			    MK_FAST_FLOW) {
			fast_tunnels++;
			per_type[tmp.tunnel_type % MK_TUNNEL_TYPE_MAX]++;
		}
		free(buf);
	}
	cr_log_info("the fast path took %u of %u fixtures, and the outer level of %u more, "
		    "%u of them through the fast tunnel level",
		    flows, mk_fixture_count, tunnels, fast_tunnels);
	/* the plain TCP/UDP pairs, VLAN-tagged or not, IPv4 and IPv6; most tunnels */
	cr_expect_geq(flows, 30u, "the fast path took only %u fixtures", flows);
	cr_expect_geq(tunnels, 100u, "the fast path took only %u outer levels", tunnels);
	for (t = 0; t < MK_ARRAY_SIZE(fast_types); t++)
		cr_expect_gt(per_type[fast_types[t]], 0u,
			     "the fast tunnel level took no %s fixture",
			     mk_tunnel_name(fast_types[t]));
}
