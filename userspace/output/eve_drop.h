/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The EVE `drop` record (inline mode, docs/eve.md): one per frame a drop or
 * reject rule dropped, shaped as Suricata writes it: the flow's head, then
 * `drop` with the packet's IP and TCP header fields and `reason: "rules"`.
 */
#ifndef MK_EVE_DROP_H
#define MK_EVE_DROP_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "flow.h"
#include "parse.h"

/* The record into @buf (no newline): its length, or -ENOSPC. @ip is the frame's IP header. */
int mk_eve_drop(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		uint64_t ts_us, const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen);

#endif /* MK_EVE_DROP_H */
