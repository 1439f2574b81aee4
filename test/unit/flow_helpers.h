/* SPDX-License-Identifier: GPL-2.0-only */
/* Builds parse results by hand for the flow and EVE tests. */
#ifndef MK_TEST_FLOW_HELPERS_H
#define MK_TEST_FLOW_HELPERS_H

#include <arpa/inet.h>
#include <string.h>
#include "flow.h"

#define TEST_SEED 0x1234u
#define TEST_T0 1796269500000000ull /* 2026-12-03T03:45:00Z */
#define SEC 1000000ull

/* A packet src:sport -> dst:dport (host order), as mk_parse_frame would describe it. */
static inline struct mk_parse test_parse(const char *src, uint16_t sport, const char *dst,
					 uint16_t dport, uint8_t proto)
{
	struct mk_parse p;
	uint32_t s[4] = { 0 }, d[4] = { 0 };
	int v6 = strchr(src, ':') != NULL;

	memset(&p, 0, sizeof(p));
	inet_pton(v6 ? AF_INET6 : AF_INET, src, s);
	inet_pton(v6 ? AF_INET6 : AF_INET, dst, d);
	if (mk_flow_key_set_endpoints(&p.key, s, htons(sport), d, htons(dport)))
		p.flags |= MK_META_F_REVERSE;
	p.key.proto = proto;
	p.key.family = v6 ? MK_FAMILY_IPV6 : MK_FAMILY_IPV4;
	memcpy(p.l3.src, s, 16);
	memcpy(p.l3.dst, d, 16);
	p.l3.proto = proto;
	p.l3.family = p.key.family;
	p.hash = mk_flow_hash(&p.key, TEST_SEED);
	return p;
}

#endif
