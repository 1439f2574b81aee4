// SPDX-License-Identifier: GPL-2.0-only
/* The bypass keys (bypass_cfg.h), their defaults and bounds. */
#include <string.h>
#include "bypass_cfg.h"
#include "cfg_keys.h"
#include "compat.h"

void mk_bypass_cfg_defaults(struct mk_bypass_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->stream_bypass = 1;
	c->expiry_interval = 2;
	c->queue_size = 4096;
}

static void defaults_any(void *base)
{
	mk_bypass_cfg_defaults(base);
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#define C struct mk_bypass_cfg
static const struct mk_cfg_key bypass_keys[] = {
	MK_CFG_BOOL("stream.bypass", C, stream_bypass),
	MK_CFG_SIZE("flow.bypass-bytes", C, flow_bytes, 0, UINT64_MAX),
	MK_CFG_UINT("flow.bypass-packets", C, flow_packets, 0, UINT64_MAX),
	MK_CFG_BOOL("detect.pass-bypass", C, pass_bypass),
	MK_CFG_UINT("bypass.expiry-interval", C, expiry_interval, 1, 3600),
	MK_CFG_UINT_IF("bypass.queue-size", C, queue_size, 16, 1u << 20, pow2, "a power of two"),
	MK_CFG_UINT("bypass.max-flows", C, max_flows, 0, 1u << 24),
};
#undef C

const struct mk_cfg_table mk_bypass_cfg_table = {
	.name = "bypass",
	.keys = bypass_keys,
	.nkeys = MK_ARRAY_SIZE(bypass_keys),
	.defaults = defaults_any,
};
