/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-worker pipeline (pipeline/worker.h) on the calling thread, for
 * detection tests, the test driver and the benchmark: frames are parsed
 * with common/parse.h as the offline reader parses them and handed to one
 * mk_worker; its alert records pass the threshold filters in order (as the
 * offline writer applies them) and are kept as struct h_alert (read back
 * from the EVE line) and, optionally, written with the flow records to a
 * file. Nothing of the pipeline is re-implemented here: defragmentation,
 * flow, stream and detection are the worker's.
 */
#ifndef MK_DETECT_HARNESS_H
#define MK_DETECT_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include "config.h"
#include "detect.h"
#include "parse.h"
#include "worker.h"

#define H_ALERTS_MAX 4096

/* What a test reads back of an alert: fields of its EVE record. */
struct h_alert {
	uint32_t sid, gid;
	char src[64], dst[64];
	uint16_t sport, dport; /* 0 when the record has none (ICMP) */
	char proto[16];
	uint8_t stream;
	char tunnel[16]; /* tunnel.type, "" without */
	uint16_t vlan;
	char community_id[40]; /* "" without */
	uint32_t payload_len;  /* decoded "payload", with eve_opts.payload */
};

struct harness {
	struct mk_config conf;
	struct mk_parse_cfg pcfg;
	struct mk_worker w;
	int worker_up;
	struct mk_detect_master *master;
	struct mk_detect_engine *eng; /* the first engine (its load stats) */
	struct mk_detect_thread *t;   /* the worker's */
	struct mk_detect_thresh *thresh;
	FILE *eve; /* alert and flow records, or NULL */
	/* the worker's alert options (in_iface, payload, ...), may change between frames */
	struct mk_eve_alert_opts eve_opts;
	int no_collect; /* benchmark: do not read alerts back */
	uint64_t last_tick_s, last_ts_us;
	uint64_t packets, alert_records;
	struct h_alert alerts[H_ALERTS_MAX];
	unsigned int nalerts;
	unsigned int verdicts; /* OR of mk_detect_verdict() after each frame */
	int err;
};

/* Built from rule text (tests) or from a cfg; 0 or -errno. */
int h_init_rules(struct harness *h, const char *rules);
int h_init_cfg(struct harness *h, const struct mk_detect_cfg *cfg);
/* The same; the master is the worker's either way (reload tests use h->master). */
int h_init_master(struct harness *h, const struct mk_detect_cfg *cfg);
/* As h_init_master with the stream engine in inline mode (capture.ips; cfg->inline_mode is the engine's). */
int h_init_inline(struct harness *h, const struct mk_detect_cfg *cfg);
/* As h_init_cfg with stream.midstream set (0 or 1) instead of the default. */
int h_init_midstream(struct harness *h, const struct mk_detect_cfg *cfg, int midstream);
/* As h_init_cfg with the application layer's settings @app (NULL: the defaults). */
int h_init_app(struct harness *h, const struct mk_detect_cfg *cfg, const struct mk_app_cfg *app);
void h_free(struct harness *h);

/* Checksums validated as meerkat -r does by default (frames built by tests have none: off). */
void h_set_checksum(struct harness *h, int on);
/* One frame (Ethernet, or raw IP with @start MK_START_IP). */
void h_frame(struct harness *h, const uint8_t *frame, uint32_t len, int start, uint64_t ts_us);
/* Ends every flow (releases streams, writes flow records). */
void h_finish(struct harness *h);

/* Alerts of @sid so far. */
unsigned int h_count(const struct harness *h, uint32_t sid);
/* Flow records written so far. */
uint64_t h_flows_logged(const struct harness *h);

#endif /* MK_DETECT_HARNESS_H */
