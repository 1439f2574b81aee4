// SPDX-License-Identifier: GPL-2.0-only
/*
 * Numeric packet keywords (MK_KW_UINT in detect_int.h): dsize, ttl,
 * ip_proto, itype, icode, icmp_id, icmp_seq each name a field of struct
 * mk_pkt_info, its width, its largest value and the flag that says it is
 * there; this one setup and one match serve them all.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

int mk_kw_uint_setup(struct mk_rule_build *rb, const char *value)
{
	const struct mk_kw *kw = rb->cur_kw;
	const struct mk_kw_uint *d = kw->uint;
	struct mk_uint *u = calloc(1, sizeof(*u));
	uint32_t n;

	if (!u)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (d->plain) {
		if (mk_parse_u32(value, &n) || n > d->max) {
			free(u);
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "'%.40s' is not a number 0-%llu", value,
					    (unsigned long long)d->max);
		}
		u->mode = MK_U_EQ;
		u->a = n;
	} else if (mk_uint_parse(value, d->max, u)) {
		free(u);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.40s' is not N, <N, >N, <=N, >=N, !N, N<>M, N-M, !N-M or "
				    "&M=N (0-%llu)",
				    value, (unsigned long long)d->max);
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, kw, u);
}

int mk_kw_uint_match(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_kw_uint *d = sm->kw->uint;
	const uint8_t *p;
	uint32_t v32;
	uint16_t v16;
	uint64_t v;

	if (!mc->pi)
		return 0;
	p = (const uint8_t *)mc->pi;
	if (d->guard >= 0 && !p[d->guard])
		return 0;
	switch (d->width) {
	case 1:
		v = p[d->off];
		break;
	case 2:
		memcpy(&v16, p + d->off, sizeof(v16));
		v = v16;
		break;
	default:
		memcpy(&v32, p + d->off, sizeof(v32));
		v = v32;
		break;
	}
	return mk_uint_match(sm->ctx, v);
}
