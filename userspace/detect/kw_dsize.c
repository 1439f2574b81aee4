// SPDX-License-Identifier: GPL-2.0-only
/*
 * dsize: the payload size of one packet (never the stream): N, <N, >N,
 * <=N, >=N, !N, and N<>M (exclusive: 100<>200 is 101 to 199). A TCP rule
 * with dsize reads each segment's payload on its own.
 */
#include <stdlib.h>
#include "detect_int.h"

static int setup_dsize(struct mk_rule_build *rb, const char *value)
{
	struct mk_uint *u;

	if (rb->seen_dsize)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	u = malloc(sizeof(*u));
	if (!u)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_uint_parse(value, 65535, u)) {
		free(u);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.40s' is not N, <N, >N, <=N, >=N, !N or N<>M (0-65535)",
				    value);
	}
	rb->seen_dsize = 1;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_dsize, u);
}

static int match_dsize(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	return mc->pi && mk_uint_match(sm->ctx, mc->pi->payload_len);
}

const struct mk_kw mk_kw_dsize = {
	.name = "dsize",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE,
	.setup = setup_dsize,
	.match = match_dsize,
	.free = free,
	.doc = "payload bytes of the packet: N, <N, >N, <=N, >=N, !N, N<>M (exclusive)",
};
