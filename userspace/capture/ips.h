/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inline (IPS) mode helpers (docs/bypass.md, "Inline (IPS) mode"):
 *
 *  - the reject frames: a TCP RST toward either end of the session a reject
 *    rule blocked, or an ICMP (ICMPv6) port unreachable toward the sender of
 *    a UDP datagram, built from the frame that matched;
 *  - the fail-open forwarder (xdp/forward.bpf.c): attached to both
 *    interfaces of every pair when the daemon stops with ips.failure: open,
 *    removed at the next start.
 */
#ifndef MK_IPS_H
#define MK_IPS_H

#include <stddef.h>
#include <stdint.h>
#include "parse.h"

#define MK_IPS_REJECT_MAX 256 /* bytes a reject frame needs at most */

/*
 * The reject frame for @frame (@len bytes, parsed as @p, no tunnel) into
 * @out: TCP: a RST toward the sender (@to_src) or toward the receiver; UDP
 * (and anything else): ICMP port unreachable toward the sender only.
 * Returns its length, or 0 when there is none to send (a tunnelled frame, a
 * RST, no reply toward the receiver for UDP).
 */
uint32_t mk_ips_reject_build(const uint8_t *frame, uint32_t len, const struct mk_parse *p,
			     int to_src, uint8_t *out, size_t cap);

/*
 * Attaches the forwarder to @a and @b (native XDP unless @skb_mode), each
 * forwarding to the other. With @old_a, @old_b (program fds, -1: none) it
 * replaces those programs atomically (XDP_FLAGS_REPLACE): no frame meets an
 * interface without a program. What was attached stays after this process
 * ends. Returns a bit per interface attached (1: @a, 2: @b); an interface
 * that failed is logged.
 */
int mk_ips_forwarder_attach(int a, int b, int skb_mode, int old_a, int old_b);

#endif /* MK_IPS_H */
