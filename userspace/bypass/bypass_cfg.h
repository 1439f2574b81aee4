/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bypass settings (docs/bypass.md): when a worker stops inspecting a
 * flow (the triggers, read by the pipeline) and how the bypass manager runs
 * (queues, expiry walk, entry limit). Suricata's names where it has the
 * setting: `stream.bypass`. The CIDR list (`bypass.cidr`) is config.c's.
 */
#ifndef MK_BYPASS_CFG_H
#define MK_BYPASS_CFG_H

#include <stdint.h>

struct mk_bypass_cfg {
	uint64_t flow_bytes;	  /* flow.bypass-bytes: both directions, 0 = off */
	uint64_t flow_packets;	  /* flow.bypass-packets: both directions, 0 = off */
	uint32_t expiry_interval; /* bypass.expiry-interval: seconds between expiry walks */
	uint32_t queue_size;	  /* bypass.queue-size: requests per worker queue (power of two) */
	uint32_t max_flows; /* bypass.max-flows: driver entries at most; 0 = what the maps hold */
	uint8_t stream_bypass; /* stream.bypass: depth reached both ways bypasses */
	uint8_t pass_bypass;   /* detect.pass-bypass: a pass rule's match bypasses */
	uint8_t pad[2];
};

/* stream.bypass on, the rest off; expiry every 2 s, 4096 requests per worker. */
void mk_bypass_cfg_defaults(struct mk_bypass_cfg *c);

struct mk_cfg_table;
extern const struct mk_cfg_table mk_bypass_cfg_table;

#endif /* MK_BYPASS_CFG_H */
