/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Community ID flow hash, version 1 (corelight/community-id-spec): a string
 * such as "1:wCb3OG7yAFWelaUydu0D+125CLM=" that Zeek, Suricata and other
 * tools compute the same way for the same flow, so their records can be
 * joined. SHA-1 over the seed, the ordered endpoints, the protocol and the
 * ports (ICMP: type and a port-like code, see the .c), base64-encoded.
 * Used for EVE flow records; the detection engine calls it for alerts.
 */
#ifndef MK_COMMUNITY_ID_H
#define MK_COMMUNITY_ID_H

#include <stdint.h>
#include "flow.h"

/* "1:" + 28 base64 characters + NUL */
#define MK_COMMUNITY_ID_LEN 31

/*
 * Of one packet or flow tuple: addresses as on the wire (IPv4 in word 0),
 * ports in host order; for ICMP and ICMPv6 @sport is the type and @dport the
 * code. @family is enum mk_family. Writes the NUL-terminated string.
 */
void mk_community_id(char out[MK_COMMUNITY_ID_LEN], uint16_t seed, uint8_t family,
		     const uint32_t *src, const uint32_t *dst, uint8_t proto, uint16_t sport,
		     uint16_t dport);

/* Of a flow record: client to server, ICMP with the type and code of its first packet. */
void mk_community_id_flow(char out[MK_COMMUNITY_ID_LEN], uint16_t seed, const struct mk_flow *f);

#endif /* MK_COMMUNITY_ID_H */
