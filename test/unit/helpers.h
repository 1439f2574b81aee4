/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the unit tests: parse a frame from a heap buffer of exactly its
 * length (so ASan sees any read past the end), look fixtures up by name, and
 * build the canonical key a fixture expects from its own fields.
 */
#ifndef MK_TEST_HELPERS_H
#define MK_TEST_HELPERS_H

#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "parse.h"
#include "fixture.h"

static inline struct mk_parse_cfg fixture_cfg(const struct mk_fixture *fx, __u32 seed)
{
	struct mk_parse_cfg cfg = {
		.seed = seed,
		.tunnel_depth = fx->tunnel_depth,
		.l2tpv3_cookie_len = fx->l2tpv3_cookie_len,
		.l2tpv3_l2spec = fx->l2tpv3_l2spec,
		.tunnel_off = fx->tunnel_off,
		.vxlan_port = fx->vxlan_port,
		.geneve_port = fx->geneve_port,
	};
	return cfg;
}

/* Copies @len bytes of @bytes into a fresh allocation of that exact size. */
static inline __u8 *exact_copy(const __u8 *bytes, __u32 len)
{
	__u8 *buf = malloc(len ? len : 1);

	cr_assert_not_null(buf);
	if (len)
		memcpy(buf, bytes, len);
	return buf;
}

static inline int parse_buf(const __u8 *buf, __u32 len, int start, const struct mk_parse_cfg *cfg,
			    struct mk_parse *p)
{
	struct mk_frame f = { .data = buf, .data_end = buf + len };

	return mk_parse_frame(&f, start, cfg, p);
}

static inline const struct mk_fixture *fixture_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < mk_fixture_count; i++)
		if (!strcmp(mk_fixtures[i].name, name))
			return &mk_fixtures[i];
	return NULL;
}

static inline void addr_words(__u32 w[4], const __u8 a[16])
{
	memcpy(w, a, 16);
}

/*
 * The key a fixture expects, from its fields alone: which side is "lo" is
 * the generator's verdict (MK_META_F_REVERSE in flags), not ours.
 */
static inline void fixture_key(const struct mk_fixture *fx, struct mk_flow_key *k)
{
	int rev = !!(fx->flags & MK_META_F_REVERSE);
	__u16 sport = htobe16(fx->sport), dport = htobe16(fx->dport);

	memset(k, 0, sizeof(*k));
	memcpy(k->addr_lo, rev ? fx->dst : fx->src, 16);
	memcpy(k->addr_hi, rev ? fx->src : fx->dst, 16);
	k->port_lo = rev ? dport : sport;
	k->port_hi = rev ? sport : dport;
	k->vlan[0] = fx->vlan[0];
	k->vlan[1] = fx->vlan[1];
	k->tunnel_ctx = fx->tunnel_ctx;
	k->proto = fx->proto;
	k->family = fx->family;
}

/* Deterministic PRNG (xorshift64*), so failures reproduce. */
static inline __u64 rng_next(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

#endif /* MK_TEST_HELPERS_H */
