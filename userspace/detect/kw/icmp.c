// SPDX-License-Identifier: GPL-2.0-only
/*
 * ICMP keywords: itype and icode (Suricata's comparison syntax), icmp_id and
 * icmp_seq (echo request/reply only). They read ICMPv4 or ICMPv6, whichever
 * the packet carries: an `icmp` rule matches both, with that protocol's own
 * type and code values.
 */
#include <stdlib.h>
#include "detect_int.h"

MK_KW_UINT(itype, mk_kw_uint_setup, icmp_type, 255, 0, MK_PI_FLAG(has_icmp),
	   "ICMP type: N, <N, >N, <=N, >=N, !N, N<>M");
MK_KW_UINT(icode, mk_kw_uint_setup, icmp_code, 255, 0, MK_PI_FLAG(has_icmp),
	   "ICMP code: N, <N, >N, <=N, >=N, !N, N<>M");
MK_KW_UINT(icmp_id, mk_kw_uint_setup, icmp_id, 65535, 1, MK_PI_FLAG(icmp_echo),
	   "ICMP echo identifier");
MK_KW_UINT(icmp_seq, mk_kw_uint_setup, icmp_seq, 65535, 1, MK_PI_FLAG(icmp_echo),
	   "ICMP echo sequence number");

MK_KW_FAMILY_TABLE(icmp, MK_KW_FAMILY_ICMP);
