/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A single-threaded stand-in for the worker pipeline, for detection tests
 * only: parse (common/parse.h) -> defragment -> flow table -> TCP stream
 * engine -> detection -> alerts (threshold filters applied in order) and
 * flow records, wired the way userspace/offline.c wires its workers. The
 * unit tests feed it frames built in C; mk_detect_pcap feeds it a capture.
 * It is a test tool, not a second pipeline: meerkat -r is the product.
 */
#ifndef MK_DETECT_HARNESS_H
#define MK_DETECT_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "detect.h"
#include "defrag.h"
#include "flow.h"
#include "parse.h"
#include "stream.h"

#define H_ALERTS_MAX 4096

/* What a test reads back of an alert. */
struct h_alert {
	uint32_t sid, gid;
	uint64_t ts_us;
	char src[64], dst[64];
	uint16_t sport, dport;
	uint8_t proto;
	uint8_t stream;
	uint8_t tunnel_type;
	uint16_t vlan;
	uint32_t payload_len;
};

struct harness {
	struct mk_config conf;
	struct mk_parse_cfg pcfg;
	struct mk_flow_table flows;
	struct mk_stream_engine *stream;
	struct mk_defrag *defrag;
	struct mk_detect_engine *eng;	 /* when built with h_init_rules */
	struct mk_detect_master *master; /* when built with h_init_master */
	struct mk_detect_thread *t;
	struct mk_detect_thresh *thresh;
	FILE *eve; /* alert and flow records, or NULL */
	struct mk_eve_alert_opts eve_opts;
	uint64_t last_tick_s;
	uint64_t packets, flows_logged;
	struct h_alert alerts[H_ALERTS_MAX];
	unsigned int nalerts;
	unsigned int verdicts; /* OR of mk_detect_verdict() */
	int err;
};

/* Built from rule text (tests) or from a cfg; 0 or -errno. */
int h_init_rules(struct harness *h, const char *rules);
int h_init_cfg(struct harness *h, const struct mk_detect_cfg *cfg);
/* With a master, so reloads can be exercised. */
int h_init_master(struct harness *h, const struct mk_detect_cfg *cfg);
void h_free(struct harness *h);

/* One frame (Ethernet, or raw IP with @start MK_START_IP). */
void h_frame(struct harness *h, const uint8_t *frame, uint32_t len, int start, uint64_t ts_us);
/* Ends every flow (releases streams, writes flow records). */
void h_finish(struct harness *h);

/* Alerts of @sid so far. */
unsigned int h_count(const struct harness *h, uint32_t sid);

#endif /* MK_DETECT_HARNESS_H */
