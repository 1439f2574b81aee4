// SPDX-License-Identifier: GPL-2.0-only
/*
 * dsize: the payload size of one packet (never the stream), in Suricata's
 * integer forms: N (=N), <N, >N, <=N, >=N, !N (!=N), N<>M or N-M (exclusive:
 * 100<>200 is 101 to 199), !N-M (outside), &M=N and &M!=N (bitmask); values
 * in decimal, 0x hex, or with a kb/mb/gb unit. A TCP rule with dsize reads
 * each segment's payload on its own, as Suricata's packet rules.
 */
#include <stdlib.h>
#include "detect_int.h"

static int setup_dsize(struct mk_rule_build *rb, const char *value)
{
	if (rb->seen_dsize)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	if (mk_kw_uint_setup(rb, value))
		return -1;
	rb->seen_dsize = 1;
	return 0;
}

MK_KW_UINT(dsize, setup_dsize, payload_len, 65535, 0, -1,
	   "payload bytes of the packet: N, <N, >N, <=N, >=N, !N, N<>M or N-M (exclusive), "
	   "!N-M, &M=N");

MK_KW_FAMILY_TABLE(dsize, MK_KW_FAMILY_DSIZE);
