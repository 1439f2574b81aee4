/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The EVE `packet` record (docs/eve.md): a packet a rule's tag keyword
 * covered, logged when outputs.eve-log.types.alert has tagged-packets: yes,
 * shaped as Suricata writes it: the flow's head, then `packet` (the bytes,
 * base64) and `packet_info.linktype`. meerkat logs the (inner) IP packet,
 * so the link type is 101 (LINKTYPE_RAW).
 */
#ifndef MK_EVE_PACKET_H
#define MK_EVE_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "flow.h"

#define MK_EVE_LINKTYPE_RAW 101

/* A buffer size that always holds the record of a packet of @ip_caplen bytes. */
size_t mk_eve_packet_maxlen(uint32_t ip_caplen);
/* The record into @buf (no newline): its length, or -ENOSPC. @ip: the IP header. */
int mk_eve_packet(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		  uint64_t ts_us, const uint8_t *ip, uint32_t ip_caplen);

#endif /* MK_EVE_PACKET_H */
