// SPDX-License-Identifier: GPL-2.0-only
/*
 * IP header keywords: ttl (IPv4 TTL or IPv6 hop limit, Suricata's
 * comparison syntax), ip_proto (number or name, with !, < and >) and sameip
 * (source address equals destination address).
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

static const struct {
	const char *name;
	uint8_t num;
} proto_names[] = {
	{ "hopopt", 0 },      { "icmp", 1 },	   { "igmp", 2 },	{ "ipip", 4 },
	{ "tcp", 6 },	      { "egp", 8 },	   { "udp", 17 },	{ "ipv6", 41 },
	{ "ipv6-route", 43 }, { "ipv6-frag", 44 }, { "rsvp", 46 },	{ "gre", 47 },
	{ "esp", 50 },	      { "ah", 51 },	   { "ipv6-icmp", 58 }, { "icmpv6", 58 },
	{ "ipv6-nonxt", 59 }, { "ipv6-opts", 60 }, { "eigrp", 88 },	{ "ospf", 89 },
	{ "pim", 103 },	      { "vrrp", 112 },	   { "l2tp", 115 },	{ "sctp", 132 },
};

static int setup_ip_proto(struct mk_rule_build *rb, const char *value)
{
	struct mk_uint *u = calloc(1, sizeof(*u));
	const char *v = value;
	uint32_t n;
	unsigned int i;

	if (!u)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	u->mode = MK_U_EQ;
	if (*v == '!' || *v == '<' || *v == '>') {
		u->mode = *v == '!' ? MK_U_NE : *v == '<' ? MK_U_LT : MK_U_GT;
		v++;
	}
	while (*v == ' ')
		v++;
	if (!mk_parse_u32(v, &n) && n <= 255) {
		u->a = n;
	} else {
		for (i = 0; i < MK_ARRAY_SIZE(proto_names); i++)
			if (!strcasecmp(v, proto_names[i].name))
				break;
		if (i == MK_ARRAY_SIZE(proto_names) || u->mode == MK_U_LT || u->mode == MK_U_GT) {
			free(u);
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "'%.40s' is not a protocol number or name", value);
		}
		u->a = proto_names[i].num;
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_ip_proto, u);
}

static int setup_sameip(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_sameip, NULL);
}

static int match_sameip(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	(void)sm;
	return mc->pi && !memcmp(mc->pi->src, mc->pi->dst, sizeof(mc->pi->src));
}

MK_KW_UINT(ttl, mk_kw_uint_setup, ttl, 255, 0, -1,
	   "IPv4 TTL / IPv6 hop limit: N, <N, >N, <=N, >=N, !N, N<>M");
MK_KW_UINT(ip_proto, setup_ip_proto, proto, 255, 0, -1,
	   "IP protocol (inner, after decapsulation): [!|<|>]number or name");

const struct mk_kw mk_kw_sameip = {
	.name = "sameip",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_NOVALUE,
	.setup = setup_sameip,
	.match = match_sameip,
	.doc = "source address equals destination address",
};

MK_KW_FAMILY_TABLE(ipheader, MK_KW_FAMILY_IPHEADER);
