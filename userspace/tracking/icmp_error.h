/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ICMP errors and the flow they quote. An ICMP or ICMPv6 error (destination
 * unreachable, time exceeded, parameter problem, packet too big, source
 * quench, redirect) carries the head of the packet that caused it; as
 * Suricata does, the error is accounted to that packet's flow rather than
 * forming a flow of its own. This file finds the quoted flow's canonical
 * key and hash exactly as common/parse.h keys a packet, so that the worker
 * can look it up and the source can send the error to the worker owning
 * it (docs/flow.md, "ICMP errors").
 */
#ifndef MK_ICMP_ERROR_H
#define MK_ICMP_ERROR_H

#include <stdint.h>
#include "parse.h"

struct mk_icmp_quote {
	struct mk_flow_key key; /* the quoted packet's flow, with the error's VLANs and tunnel */
	uint32_t hash;		/* mk_flow_hash(&key, seed) */
	uint8_t from_hi;	/* the quoted packet travelled from the key's hi endpoint */
};

/* Is @p (already parsed) an ICMP/ICMPv6 error type? Cheap: protocol and type only. */
int mk_icmp_is_error(const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen);

/*
 * Fills @q with the flow quoted by the ICMP error @p whose inner IP header
 * is at @ip (@ip_caplen bytes captured). Returns 1, or 0 when @p is not an
 * error or its quote is unusable: truncated before the ports, a later
 * fragment, an error quoting an error, another address family.
 */
int mk_icmp_error_quote(const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen,
			uint32_t seed, struct mk_icmp_quote *q);

#endif /* MK_ICMP_ERROR_H */
