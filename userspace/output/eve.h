/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE JSON in Suricata's shape, so Filebeat/Logstash/Splunk pipelines built
 * for Suricata ingest meerkat unchanged. Records are formatted by hand into a
 * caller's buffer: the fields are numbers, addresses and fixed words, none
 * needs escaping, and this runs once per flow on the workers.
 *
 * Workers do not write the file: each keeps its records with a sort key
 * (epoch, log time, start time, flow_id) in a struct mk_eve_buf, and the
 * owner merges them in that order, so the output does not depend on the
 * number of workers.
 * The epoch is the number of time ticks the worker had seen when the flow
 * ended (see offline.c).
 */
#ifndef MK_EVE_H
#define MK_EVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "eve_alert.h" /* alert records: the pipeline renders them with the others */
#include "eve_sink.h"
#include "flow.h"

#define MK_EVE_TS_LEN 32
#define MK_EVE_LINE_MAX 2048

/* 2026-12-03T03:45:00.123456+0000 (UTC, Suricata's layout) into buf[MK_EVE_TS_LEN]. */
void mk_eve_ts(char *buf, uint64_t ts_us);

/*
 * The optional fields of every record (docs/eve.md), from the configuration's
 * outputs.eve-log (output_cfg.h) and the command line, plus what only the
 * run mode knows (in_iface).
 */
struct mk_eve_fmt {
	int community_id;	    /* add `community_id` (Community ID v1) */
	uint16_t community_id_seed; /* its seed; 0 by default, as Suricata and Zeek */
	const char *in_iface;	    /* `in_iface`: the capture interface (live mode); NULL: none */
};

/*
 * One `flow` event, no newline, logged at @ts_us (EVE `timestamp`; the
 * flow's own times are flow.start and flow.end). @cfg may be NULL (no
 * optional fields). Returns its length or -ENOSPC.
 */
/*
 * The head every record about flow @f starts with: `{"timestamp":...,
 * "event_type":@event_type, ..., "proto":...` as the client sent, no closing
 * brace. Its length, or -ENOSPC.
 */
int mk_eve_head(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		uint64_t ts_us, const char *event_type);
int mk_eve_flow(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		enum mk_flow_reason reason, uint64_t ts_us);

/*
 * The compact `flow` event for flows that never got an answer (the
 * outputs.eve-log.types.flow.unreplied setting, docs/eve.md): the same
 * fields less pkts_toclient, bytes_toclient, age, community_id and the tcp
 * object but for tcp_flags. Same return as mk_eve_flow().
 */
int mk_eve_flow_compact(char *buf, size_t size, const struct mk_eve_fmt *cfg,
			const struct mk_flow *f, enum mk_flow_reason reason, uint64_t ts_us);

/* The `tunnel` object's `type`: gtpu, l2tpv2, l2tpv3, vxlan, geneve, gre, erspan, ipip. */
const char *mk_eve_tunnel_name(uint8_t type);

#define MK_EVE_TUNNEL_MAX 192
/*
 * `"tunnel":{...}` (no leading comma) for the innermost tunnel: type, outer
 * addresses (@family, @src, @dst; left out unless @family is IPv4 or IPv6:
 * live capture does not carry outer IPv6 addresses), its id under its own name (GTP-U `teid`,
 * L2TPv2 `tunnel_id` and `session_id`, L2TPv3 and ERSPAN `session_id`,
 * VXLAN and Geneve `vni`, GRE `key`, none for IP-in-IP) and the depth, as
 * flow and alert records write it. Returns its length or -ENOSPC.
 */
int mk_eve_tunnel(char *buf, size_t size, uint8_t type, uint32_t id, uint8_t depth, uint8_t family,
		  const uint32_t *src, const uint32_t *dst);

/* EVE `proto`: the IANA keyword ("TCP", "IPv6-ICMP", "GRE", ...) or the number in @tmp. */
const char *mk_eve_proto_name(uint8_t proto, char *tmp, size_t size);

struct mk_eve_rec {
	uint64_t epoch;
	uint64_t ts_us;
	uint64_t start_us;
	uint64_t flow_id;
	uint64_t off; /* of the line in the arena */
	uint32_t len;
	uint32_t key_len; /* a filter key follows the line in the arena (alerts) */
};

/* A worker's records, in the order they ended. */
struct mk_eve_buf {
	struct mk_eve_rec *recs;
	size_t nrecs, cap_recs;
	char *arena;
	size_t used, cap;
};

int mk_eve_buf_add(struct mk_eve_buf *b, uint64_t epoch, uint64_t ts_us, uint64_t start_us,
		   uint64_t flow_id, const char *line, size_t len);
/* The same with an opaque @key the writer's filter sees (an alert's threshold key). */
int mk_eve_buf_add_key(struct mk_eve_buf *b, uint64_t epoch, uint64_t ts_us, uint64_t start_us,
		       uint64_t flow_id, const char *line, size_t len, const void *key,
		       size_t key_len);
void mk_eve_buf_free(struct mk_eve_buf *b);

/*
 * eve.json for one writer (offline's reader): records are buffered and
 * handed to the EVE sink (eve_sink.h, live mode's file) a megabyte at a time.
 * A failed write is logged with the file's name and the real errno (a full
 * disk says "No space left on device"), every record it carried is counted
 * in sink.lost, and writing goes on, so that records after the disk
 * recovers land.
 */
struct mk_outputs;
struct mk_eve_file {
	struct mk_eve_sink sink; /* sink.written, sink.lost: records */
	struct mk_outputs *outs; /* instead of the sink: several outputs (outputs.h) */
	char *buf;
	size_t len, cap;
	size_t buf_recs; /* records in buf */
	int err;	 /* first write error, -errno */
	int open;
};

/* Appends to @path, or truncates it first. 0 or -errno (logged, naming the file). */
int mk_eve_file_open(struct mk_eve_file *f, const char *path, int truncate);
/* The same, handing every megabyte to @outs (which the caller stops and frees) instead. */
int mk_eve_file_open_outputs(struct mk_eve_file *f, struct mk_outputs *outs);
/* One record (no newline). */
void mk_eve_file_write(struct mk_eve_file *f, const char *line, size_t len);
/* 0 or the -errno of this flush. */
int mk_eve_file_flush(struct mk_eve_file *f);
/* Flushes and closes; returns the first write error of the file's life, or 0. */
int mk_eve_file_close(struct mk_eve_file *f);

/*
 * Writes the records of @n buffers to @out sorted by (epoch, timestamp,
 * start, flow_id), one line each. Returns 0 or -ENOMEM; write errors are
 * the file's (out->err, out->lost).
 */
int mk_eve_merge_write(struct mk_eve_file *out, struct mk_eve_buf *bufs, unsigned int n);
/*
 * The same, asking @keep (in output order) about every record that carries
 * a key; a record it returns 0 for is not written. Stateful alert filters
 * (threshold, detection_filter) run here so their result does not depend on
 * the number of workers.
 */
typedef int (*mk_eve_keep_fn)(void *ctx, const void *key, size_t key_len);
int mk_eve_merge_write_filter(struct mk_eve_file *out, struct mk_eve_buf *bufs, unsigned int n,
			      mk_eve_keep_fn keep, void *ctx);

#endif /* MK_EVE_H */
