// SPDX-License-Identifier: GPL-2.0-only
/*
 * ICMP keywords: itype and icode (Suricata's comparison syntax), icmp_id and
 * icmp_seq (echo request/reply only). They read ICMPv4 or ICMPv6, whichever
 * the packet carries: an `icmp` rule matches both, with that protocol's own
 * type and code values.
 */
#include <stdlib.h>
#include "detect_int.h"

static int setup_u8(struct mk_rule_build *rb, const char *value, const struct mk_kw *kw)
{
	struct mk_uint *u = malloc(sizeof(*u));

	if (!u)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_uint_parse(value, 255, u)) {
		free(u);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.40s' is not N, <N, >N, <=N, >=N, !N or N<>M (0-255)",
				    value);
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, kw, u);
}

static int setup_itype(struct mk_rule_build *rb, const char *value)
{
	return setup_u8(rb, value, &mk_kw_itype);
}

static int setup_icode(struct mk_rule_build *rb, const char *value)
{
	return setup_u8(rb, value, &mk_kw_icode);
}

static int match_itype(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	return mc->pi && mc->pi->has_icmp && mk_uint_match(sm->ctx, mc->pi->icmp_type);
}

static int match_icode(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	return mc->pi && mc->pi->has_icmp && mk_uint_match(sm->ctx, mc->pi->icmp_code);
}

static int setup_u16(struct mk_rule_build *rb, const char *value, const struct mk_kw *kw)
{
	uint32_t *v = malloc(sizeof(*v));

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_parse_u32(value, v) || *v > 65535) {
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not a number 0-65535",
				    value);
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, kw, v);
}

static int setup_icmp_id(struct mk_rule_build *rb, const char *value)
{
	return setup_u16(rb, value, &mk_kw_icmp_id);
}

static int setup_icmp_seq(struct mk_rule_build *rb, const char *value)
{
	return setup_u16(rb, value, &mk_kw_icmp_seq);
}

static int match_icmp_id(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	return mc->pi && mc->pi->icmp_echo && mc->pi->icmp_id == *(const uint32_t *)sm->ctx;
}

static int match_icmp_seq(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	return mc->pi && mc->pi->icmp_echo && mc->pi->icmp_seq == *(const uint32_t *)sm->ctx;
}

const struct mk_kw mk_kw_itype = {
	.name = "itype",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE,
	.setup = setup_itype,
	.match = match_itype,
	.free = free,
	.doc = "ICMP type: N, <N, >N, <=N, >=N, !N, N<>M",
};

const struct mk_kw mk_kw_icode = {
	.name = "icode",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE,
	.setup = setup_icode,
	.match = match_icode,
	.free = free,
	.doc = "ICMP code: N, <N, >N, <=N, >=N, !N, N<>M",
};

const struct mk_kw mk_kw_icmp_id = {
	.name = "icmp_id",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE,
	.setup = setup_icmp_id,
	.match = match_icmp_id,
	.free = free,
	.doc = "ICMP echo identifier",
};

const struct mk_kw mk_kw_icmp_seq = {
	.name = "icmp_seq",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE,
	.setup = setup_icmp_seq,
	.match = match_icmp_seq,
	.free = free,
	.doc = "ICMP echo sequence number",
};
