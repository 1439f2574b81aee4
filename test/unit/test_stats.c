// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counter table (common/stats.h): every parser reason lands on its own
 * err_ counter, every counter has a name and a meaning, names are unique.
 */
#include <criterion/criterion.h>

#include "helpers.h"

Test(stats, reasons_map_onto_error_counters)
{
	__u32 r;

	cr_expect_eq(mk_reason_stat(1), MK_STAT_ERR_FIRST);
	cr_expect_eq(mk_reason_stat(MK_REASON_MAX - 1), MK_STAT_ERR_LAST);
	for (r = 1; r < MK_REASON_MAX; r++) {
		const char *name = mk_stat_descs[mk_reason_stat(r)].name;

		cr_expect_not_null(name);
		cr_expect(!strncmp(name, "err_", 4), "reason %u maps to %s", r, name);
	}
	cr_expect_eq(mk_reason_stat(MK_REASON_ERR_VLAN_DEPTH), MK_STAT_ERR_VLAN_DEPTH);
	cr_expect_eq(mk_reason_stat(MK_REASON_ERR_DECAP), MK_STAT_ERR_DECAP);
}

Test(stats, names_unique_and_documented)
{
	unsigned int i, j;

	for (i = 0; i < MK_STAT_MAX; i++) {
		cr_assert_not_null(mk_stat_descs[i].name, "counter %u has no name", i);
		cr_expect(mk_stat_descs[i].doc && mk_stat_descs[i].doc[0], "%s: no doc",
			  mk_stat_descs[i].name);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(mk_stat_descs[i].name, mk_stat_descs[j].name);
	}
	cr_expect_leq(MK_STAT_MAX, MK_STAT_SLOTS);
}

/* Every reason a fixture expects is one the parser can give, and vice versa all appear. */
Test(stats, fixtures_cover_reasons)
{
	unsigned int seen = 0, i;

	for (i = 0; i < mk_fixture_count; i++)
		if (mk_fixtures[i].status == MK_PARSE_ERROR) {
			cr_assert(mk_fixtures[i].reason > 0 &&
				  mk_fixtures[i].reason < MK_REASON_MAX);
			seen |= 1u << mk_fixtures[i].reason;
		}
	/* ERR_DECAP is the XDP program's own (bpf_xdp_adjust_head), not the parser's */
	for (i = 1; i < MK_REASON_MAX; i++)
		if (i != MK_REASON_ERR_DECAP)
			cr_expect(seen & (1u << i), "no fixture for %s",
				  mk_stat_descs[mk_reason_stat(i)].name);
}
