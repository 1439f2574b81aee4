// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `decoder:` keys: struct mk_parse_cfg, which the XDP program reads as
 * rodata and the offline reader passes to common/parse.h. A new tunnel
 * switch is one row here, e.g.
 *	MK_CFG_BOOL("decoder.vxlan.enabled", P, vxlan_enabled),
 *	MK_CFG_UINT("decoder.vxlan.port", P, vxlan_port, 1, 65535),
 * and one line in decoder_defaults(), and one in docs/configuration.md and
 * configs/meerkat.yaml (a test checks that both list every key).
 */
#include "cfg_keys.h"
#include "decoder_cfg.h"
#include "map_types.h"

/* the parser skips the cookie as 0, 4 or 8 bytes (RFC 3931) */
static bool cookie_len_ok(uint64_t v)
{
	return v == 0 || v == 4 || v == 8;
}

static const struct mk_cfg_name l2spec_names[] = {
	{ "none", MK_L2SPEC_NONE },
	{ "default", MK_L2SPEC_DEFAULT },
	{ NULL, 0 },
};

#define P struct mk_parse_cfg
static const struct mk_cfg_key decoder_keys[] = {
	MK_CFG_UINT("decoder.tunnel-depth", P, tunnel_depth, 0, MK_TUNNEL_DEPTH_MAX),
	MK_CFG_UINT_IF("decoder.l2tpv3.cookie-len", P, l2tpv3_cookie_len, 0, 8, cookie_len_ok,
		       "0, 4 or 8"),
	MK_CFG_ENUM("decoder.l2tpv3.l2spec", P, l2tpv3_l2spec, l2spec_names),
};
#undef P

static void decoder_defaults(void *base)
{
	struct mk_parse_cfg *p = base;

	p->tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT;
	p->l2tpv3_cookie_len = 0;
	p->l2tpv3_l2spec = MK_L2SPEC_NONE;
}

const struct mk_cfg_table mk_decoder_cfg_table = {
	.name = "decoder",
	.keys = decoder_keys,
	.nkeys = MK_ARRAY_SIZE(decoder_keys),
	.defaults = decoder_defaults,
};
