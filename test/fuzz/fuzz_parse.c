// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the frame parser (common/parse.h): every input is
 * parsed from an exact-size heap copy, from the Ethernet header and from the
 * IP header, under several configurations; on success the result must obey
 * the invariants the XDP program and the workers rely on, and
 * mk_decap_apply must stay inside the frame; the fast paths (plain frames,
 * the first tunnel level) must give what the general parser gives, to the
 * byte. Any violation aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "fuzz.h"

static const struct mk_parse_cfg cfgs[] = {
	{ .seed = 0, .tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT },
	{ .seed = 0x5eed, .tunnel_depth = 0 },
	{ .seed = 1, .tunnel_depth = 1, .l2tpv3_cookie_len = 4 },
	{ .seed = 2,
	  .tunnel_depth = MK_TUNNEL_DEPTH_MAX,
	  .l2tpv3_cookie_len = 8,
	  .l2tpv3_l2spec = MK_L2SPEC_DEFAULT },
	{ .seed = 3,
	  .tunnel_depth = MK_TUNNEL_DEPTH_MAX,
	  .tunnel_off = MK_TUN_GRE | MK_TUN_IPIP | MK_TUN_GTPU,
	  .vxlan_port = 1701,
	  .geneve_port = 8472 },
};

/* The key built from the other direction must be the same bytes and hash. */
static void check_symmetric(const struct mk_parse *p, __u32 seed)
{
	struct mk_flow_key r = p->key;
	int rev;

	rev = mk_flow_key_set_endpoints(&r, p->key.addr_hi, p->key.port_hi, p->key.addr_lo,
					p->key.port_lo);
	CHECK(!memcmp(&r, &p->key, sizeof(r)));
	CHECK(mk_flow_hash(&r, seed) == p->hash);
	/* from hi to lo is "reverse" unless both ends are the same */
	CHECK(rev ||
	      !mk_endpoint_cmp(p->key.addr_lo, p->key.port_lo, p->key.addr_hi, p->key.port_hi));
	CHECK(mk_endpoint_cmp(p->key.addr_lo, p->key.port_lo, p->key.addr_hi, p->key.port_hi) <= 0);
}

static void one(const uint8_t *data, size_t size, int start, const struct mk_parse_cfg *cfg)
{
	struct mk_frame f;
	struct mk_parse p;
	struct mk_meta m;
	__u32 strip, out, l3min;
	__u8 *buf = malloc(size ? size : 1);
	int ret;

	if (!buf)
		return;
	memcpy(buf, data, size);
	f.data = buf;
	f.data_end = buf + size;
	ret = mk_parse_frame(&f, start, cfg, &p);
	if (ret == MK_PARSE_ERROR) {
		CHECK(p.reason > MK_REASON_NONE && p.reason < MK_REASON_MAX);
		goto out;
	}
	CHECK(p.reason == MK_REASON_NONE);
	if (ret == MK_PARSE_NON_IP)
		goto out;
	CHECK(ret == MK_PARSE_IP);

	CHECK(p.l3.family == MK_FAMILY_IPV4 || p.l3.family == MK_FAMILY_IPV6);
	CHECK(p.key.family == p.l3.family);
	l3min = p.l3.family == MK_FAMILY_IPV4 ? 20 : 40;
	CHECK(p.l3.l3_off + l3min <= size);
	CHECK(p.l3.l3_off <= MK_PARSE_MAX_OFF);
	if (p.l3.l4_off) {
		CHECK(p.l3.l4_off >= p.l3.l3_off + l3min);
		CHECK(p.l3.l4_off <= size);
	}
	if (p.flags & MK_META_F_FRAGMENT)
		CHECK(!p.key.port_lo && !p.key.port_hi);
	CHECK(p.tunnel_depth <= cfg->tunnel_depth);
	CHECK(!!(p.flags & MK_META_F_TUNNEL) == (p.tunnel_depth > 0));
	CHECK(!!(p.flags & MK_META_F_IPV6) == (p.l3.family == MK_FAMILY_IPV6));
	CHECK(!!(p.flags & MK_META_F_TRUNCATED) == (p.l3.l3_off + p.l3.ip_len > size));
	CHECK(p.key.tunnel_ctx == p.tunnel_ctx);
	CHECK(!p.tunnel_depth == !p.tunnel_ctx);
	CHECK(p.hash == mk_flow_hash(&p.key, cfg->seed));
	check_symmetric(&p, cfg->seed);

	mk_meta_fill(&m, &p, 1);
	CHECK(mk_meta_proto(&m) == p.l3.proto && mk_meta_stamp(&m) == 1);
	strip = mk_decap_strip(&p);
	if (p.tunnel_depth) {
		/* the delivered frame starts with the innermost MACs and the inner IP header */
		CHECK(p.mac_off + 12u <= size);
		CHECK(p.l3.l3_off >= MK_ETH_HLEN);
		CHECK(mk_meta_l3_off(&m) == MK_ETH_HLEN);
	} else {
		CHECK(strip == 0);
		CHECK(mk_meta_l3_off(&m) == p.l3.l3_off);
	}
	CHECK(!p.l3.l4_off || m.l4_off + strip == p.l3.l4_off);
	out = mk_decap_apply(buf, &p);
	CHECK(out == strip);
	CHECK(out + MK_ETH_HLEN <= size || !p.tunnel_depth);
	if (p.tunnel_depth) {
		/* the delivered ethertype names the inner family, the IP header follows unchanged
		 */
		CHECK(buf[out + 12] == (p.l3.family == MK_FAMILY_IPV6 ? 0x86 : 0x08));
		CHECK(!memcmp(buf + out + MK_ETH_HLEN, data + p.l3.l3_off, l3min));
	}
out:
	free(buf);
}

/*
 * An untagged Ethernet frame whose ethertype matches its IP version nibble
 * parses, from its IP header on, to the same flow 14 bytes earlier.
 */
static void check_start_ip_twin(const uint8_t *data, size_t size, const struct mk_parse_cfg *cfg)
{
	struct mk_parse pe, pi;
	struct mk_frame f;
	__u16 type;

	if (size < MK_ETH_HLEN + 1)
		return;
	type = mk_rd16(data + 12);
	if (!(type == MK_ETH_P_IPV4 && data[14] >> 4 == 4) &&
	    !(type == MK_ETH_P_IPV6 && data[14] >> 4 == 6))
		return;
	f.data = data;
	f.data_end = data + size;
	if (mk_parse_frame(&f, MK_START_ETH, cfg, &pe) != MK_PARSE_IP)
		return;
	f.data = data + MK_ETH_HLEN;
	CHECK(mk_parse_frame(&f, MK_START_IP, cfg, &pi) == MK_PARSE_IP);
	CHECK(pi.hash == pe.hash);
	CHECK(pi.flags == pe.flags);
	CHECK(pi.l3.l3_off + MK_ETH_HLEN == pe.l3.l3_off);
	CHECK(pi.tunnel_depth == pe.tunnel_depth);
}

/* The fast paths, with and without the fast tunnel level, against the general parser alone. */
static void check_fast_same_as_general(const uint8_t *data, size_t size,
				       const struct mk_parse_cfg *cfg)
{
	struct mk_parse_cfg gen = *cfg, lvl = *cfg;
	struct mk_parse pf, pl, pg;
	struct mk_frame f;
	int rf, rl, rg;

	f.data = data;
	f.data_end = data + size;
	gen.parse_flags |= MK_PARSE_F_GENERAL_ONLY;
	lvl.parse_flags |= MK_PARSE_F_NO_FAST_TUNNEL;
	memset(&pf, 0xa5, sizeof(pf));
	memset(&pl, 0x5a, sizeof(pl));
	rf = mk_parse_frame(&f, MK_START_ETH, cfg, &pf);
	rl = mk_parse_frame(&f, MK_START_ETH, &lvl, &pl);
	rg = mk_parse_frame(&f, MK_START_ETH, &gen, &pg);
	CHECK(rf == rg && rl == rg);
	if (rg == MK_PARSE_IP) {
		CHECK(!memcmp(&pf, &pg, sizeof(pg)));
		CHECK(!memcmp(&pl, &pg, sizeof(pg)));
	} else if (rg == MK_PARSE_ERROR) {
		CHECK(pf.reason == pg.reason && pl.reason == pg.reason);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(cfgs); i++) {
		one(data, size, MK_START_ETH, &cfgs[i]);
		one(data, size, MK_START_IP, &cfgs[i]);
		check_start_ip_twin(data, size, &cfgs[i]);
		check_fast_same_as_general(data, size, &cfgs[i]);
	}
	return 0;
}
