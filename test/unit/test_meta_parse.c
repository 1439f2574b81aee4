// SPDX-License-Identifier: GPL-2.0-only
/*
 * The live worker's view of a frame: for every fixture, parse it as the XDP
 * program does, write the metadata, strip the tunnels, then rebuild the parse
 * from the metadata and the delivered bytes (common/meta_parse.h). Key, hash,
 * addresses, ports, offsets, flags and tunnel context must equal the
 * program's own parse; that is what lets a worker trust the metadata. Also:
 * every truncation of a delivered frame and a zeroed or lying metadata block
 * are refused, never read past the end.
 */
#include <criterion/criterion.h>

#include "helpers.h"
#include "meta_parse.h"

struct delivered {
	__u8 *buf; /* exact allocation of the delivered frame */
	__u32 len;
	struct mk_meta meta;
	struct mk_parse p; /* the program's parse */
};

/* Runs fixture @fx through the program's steps; 0 when it is not redirected as IP. */
static int deliver(const struct mk_fixture *fx, struct delivered *d)
{
	struct mk_parse_cfg cfg = fixture_cfg(fx, MK_FIXTURE_SEED);
	__u8 *frame = exact_copy(fx->frame, fx->len);
	__u32 off;

	if (parse_buf(frame, fx->len, MK_START_ETH, &cfg, &d->p) != MK_PARSE_IP) {
		free(frame);
		return 0;
	}
	memset(&d->meta, 0, sizeof(d->meta));
	mk_meta_fill(&d->meta, &d->p, 0);
	off = mk_decap_apply(frame, &d->p);
	d->len = fx->len - off;
	d->buf = exact_copy(frame + off, d->len);
	free(frame);
	return 1;
}

Test(meta_parse, every_fixture_gives_the_programs_parse)
{
	unsigned int i, n = 0;

	for (i = 0; i < mk_fixture_count; i++) {
		const struct mk_fixture *fx = &mk_fixtures[i];
		__u32 strip;
		struct delivered d;
		struct mk_parse q;

		if (!deliver(fx, &d))
			continue;
		n++;
		strip = mk_decap_strip(&d.p);
		cr_assert_eq(mk_parse_from_meta(&q, &d.meta, d.buf, d.len), MK_META_OK, "%s",
			     fx->name);
		cr_expect_eq(memcmp(&q.key, &d.p.key, sizeof(q.key)), 0, "%s: key", fx->name);
		cr_expect_eq(q.hash, d.p.hash, "%s: hash", fx->name);
		cr_expect_eq(q.l3.family, d.p.l3.family, "%s: family", fx->name);
		cr_expect_eq(q.l3.proto, d.p.l3.proto, "%s: proto", fx->name);
		cr_expect_eq(memcmp(q.l3.src, d.p.l3.src, 16), 0, "%s: src", fx->name);
		cr_expect_eq(memcmp(q.l3.dst, d.p.l3.dst, 16), 0, "%s: dst", fx->name);
		cr_expect_eq(q.l3.sport, d.p.l3.sport, "%s: sport", fx->name);
		cr_expect_eq(q.l3.dport, d.p.l3.dport, "%s: dport", fx->name);
		cr_expect_eq(q.l3.ip_len, d.p.l3.ip_len, "%s: ip_len", fx->name);
		cr_expect_eq(q.l3.frag, d.p.l3.frag, "%s: frag", fx->name);
		cr_expect_eq(q.l3.truncated, d.p.l3.truncated, "%s: truncated", fx->name);
		cr_expect_eq(q.l3.l3_off, d.p.l3.l3_off - strip, "%s: l3_off", fx->name);
		cr_expect_eq(q.l3.l4_off, d.p.l3.l4_off ? d.p.l3.l4_off - strip : 0, "%s: l4_off",
			     fx->name);
		cr_expect_eq(q.flags, d.p.flags, "%s: flags 0x%x, want 0x%x", fx->name, q.flags,
			     d.p.flags);
		cr_expect_eq(q.vlan[0], d.p.vlan[0], "%s: vlan", fx->name);
		cr_expect_eq(q.vlan[1], d.p.vlan[1], "%s: vlan", fx->name);
		cr_expect_eq(q.tunnel_ctx, d.p.tunnel_ctx, "%s: tunnel ctx", fx->name);
		cr_expect_eq(q.tunnel_type, d.p.tunnel_type, "%s: tunnel type", fx->name);
		cr_expect_eq(q.tunnel_id, d.p.tunnel_id, "%s: tunnel id", fx->name);
		cr_expect_eq(!!q.tunnel_depth, !!d.p.tunnel_depth, "%s: tunnel", fx->name);
		if (d.p.tunnel_depth && d.p.outer_family == MK_FAMILY_IPV4) {
			cr_expect_eq(q.outer_family, MK_FAMILY_IPV4, "%s", fx->name);
			cr_expect_eq(q.outer_src[0], d.p.outer_src[0], "%s: outer src", fx->name);
			cr_expect_eq(q.outer_dst[0], d.p.outer_dst[0], "%s: outer dst", fx->name);
		}
		free(d.buf);
	}
	cr_assert_gt(n, 50, "only %u fixtures are IP flows", n);
}

Test(meta_parse, truncated_frames_are_refused_not_overread)
{
	unsigned int i;

	for (i = 0; i < mk_fixture_count; i++) {
		struct delivered d;
		struct mk_parse q;
		__u32 cut;

		if (!deliver(&mk_fixtures[i], &d))
			continue;
		/* exact allocations of every shorter length: ASan catches any overread */
		for (cut = 0; cut < d.len; cut++) {
			__u8 *b = exact_copy(d.buf, cut);
			int ret = mk_parse_from_meta(&q, &d.meta, b, cut);

			cr_assert(ret == MK_META_OK || ret == MK_META_BAD_OFFSET, "%s cut %u: %d",
				  mk_fixtures[i].name, cut, ret);
			free(b);
		}
		free(d.buf);
	}
}

Test(meta_parse, missing_or_lying_metadata)
{
	const struct mk_fixture *fx = fixture_by_name("ipv4_tcp");
	struct delivered d;
	struct mk_meta m;
	struct mk_parse q;

	cr_assert_not_null(fx);
	cr_assert(deliver(fx, &d));
	memset(&m, 0, sizeof(m));
	cr_expect_eq(mk_parse_from_meta(&q, &m, d.buf, d.len), MK_META_NONE);
	m = d.meta;
	m.type_magic &= 0x0f; /* what a worker leaves behind: the magic cleared */
	cr_expect_eq(mk_parse_from_meta(&q, &m, d.buf, d.len), MK_META_NONE);
	m = d.meta;
	m.vlan_l3 = (m.vlan_l3 & 0xffffff) | 250u << 24; /* L3 offset 250 */
	cr_expect_eq(mk_parse_from_meta(&q, &m, d.buf, d.len), MK_META_BAD_OFFSET);
	m = d.meta;
	m.l4_off = (__u16)(d.len + 1);
	cr_expect_eq(mk_parse_from_meta(&q, &m, d.buf, d.len), MK_META_BAD_OFFSET);
	m = d.meta;
	m.l4_off = 2; /* before the IP header */
	cr_expect_eq(mk_parse_from_meta(&q, &m, d.buf, d.len), MK_META_BAD_OFFSET);
	free(d.buf);
}
