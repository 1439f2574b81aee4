// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `decoder:` keys: struct mk_parse_cfg, which the XDP program reads as
 * rodata and the offline reader passes to common/parse.h. A new setting is
 * one row here, one line in decoder_defaults(), and one in
 * docs/configuration.md and configs/meerkat.yaml (a test checks that both
 * list every key). Tunnel decoders are switched by decoder.NAME.enabled, a
 * bit of tunnel_off each (docs/tunnels.md).
 */
#include <errno.h>
#include <string.h>
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

/*
 * decoder.NAME.enabled: one bit of tunnel_off each (enum mk_tunnel_kind, in
 * the order of mk_tunnel_kind_names), so that an all-zero struct mk_parse_cfg
 * means every decoder on; the bit is found from NAME in the key's path.
 */
static int tunnel_bit(const char *path)
{
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(mk_tunnel_kind_names); i++) {
		size_t n = strlen(mk_tunnel_kind_names[i]);

		if (!strncmp(path + sizeof("decoder.") - 1, mk_tunnel_kind_names[i], n) &&
		    !strcmp(path + sizeof("decoder.") - 1 + n, ".enabled"))
			return 1 << i;
	}
	return 0;
}

static int tunnel_enabled_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	static const char *const yes[] = { "yes", "true", "on", "1" }, *const no[] = { "no",
										       "false",
										       "off", "0" };
	struct mk_parse_cfg *p = base;
	int bit = tunnel_bit(path);
	const char *s;
	unsigned int i;
	int err;

	err = mk_cfg_scalar(x, node, path, &s);
	if (err)
		return err;
	for (i = 0; i < MK_ARRAY_SIZE(yes); i++) {
		if (!strcmp(s, yes[i])) {
			p->tunnel_off &= (__u16)~bit;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			p->tunnel_off |= (__u16)bit;
			return 0;
		}
	}
	return mk_cfg_error(x, node, path, -EINVAL,
			    "'%s' is not a boolean (yes/no, true/false, on/off)", s);
}

static void tunnel_enabled_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_parse_cfg *p = base;

	fprintf(out, "%s = %s\n", path, (p->tunnel_off & tunnel_bit(path)) ? "no" : "yes");
}

#define ENABLED(name) \
	MK_CFG_CUSTOM("decoder." name ".enabled", tunnel_enabled_parse, tunnel_enabled_dump)
#define P struct mk_parse_cfg
static const struct mk_cfg_key decoder_keys[] = {
	MK_CFG_UINT("decoder.tunnel-depth", P, tunnel_depth, 0, MK_TUNNEL_DEPTH_MAX),
	MK_CFG_UINT_IF("decoder.l2tpv3.cookie-len", P, l2tpv3_cookie_len, 0, 8, cookie_len_ok,
		       "0, 4 or 8"),
	MK_CFG_ENUM("decoder.l2tpv3.l2spec", P, l2tpv3_l2spec, l2spec_names),
	ENABLED("gtpu"),
	ENABLED("l2tp"),
	ENABLED("vxlan"),
	MK_CFG_UINT("decoder.vxlan.port", P, vxlan_port, 1, 65535),
	ENABLED("geneve"),
	MK_CFG_UINT("decoder.geneve.port", P, geneve_port, 1, 65535),
	ENABLED("gre"),
	ENABLED("erspan"),
	ENABLED("ipip"),
};
#undef P
#undef ENABLED

static void decoder_defaults(void *base)
{
	struct mk_parse_cfg *p = base;

	p->tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT;
	p->l2tpv3_cookie_len = 0;
	p->l2tpv3_l2spec = MK_L2SPEC_NONE;
	p->tunnel_off = 0; /* every decoder on, as Suricata's are */
	p->vxlan_port = MK_VXLAN_PORT_DEFAULT;
	p->geneve_port = MK_GENEVE_PORT_DEFAULT;
}

const struct mk_cfg_table mk_decoder_cfg_table = {
	.name = "decoder",
	.keys = decoder_keys,
	.nkeys = MK_ARRAY_SIZE(decoder_keys),
	.defaults = decoder_defaults,
};
