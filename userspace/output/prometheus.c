// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Prometheus text format of the live stats snapshot (prometheus.h):
 * the metric table, the renderer, the coverage walk, and the keys of
 * stats.prometheus.
 *
 * The table is built once, at the first use, from the counter lists: a row
 * per counter, with the list's help text. Counters of the worker pipeline
 * read each worker's own value (workers[].pipeline.GROUP.NAME, labelled
 * worker); their sum over workers is the snapshot's GROUP.NAME, which the
 * row names as its aux so that the coverage walk knows it is exported.
 * Names follow the Prometheus conventions: meerkat_ prefix, _total on
 * counters, seconds and bytes as units.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "applayer.h"
#include "cfg_keys.h"
#include "compat.h"
#include "defrag.h"
#include "detect.h"
#include "flow.h"
#include "live.h"
#include "manager.h"
#include "out_writer.h"
#include "advise.h"
#include "prometheus.h"
#include "stats.h"
#include "stream.h"
#include "worker.h"
#include "xsk.h"

#define ROWS_MAX 512

static struct mk_prom_metric rows[ROWS_MAX];
static unsigned int nrows;
static int table_oom;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/*
 * Numeric leaves of the snapshot no row reads, and why that is right: a
 * label, a copy of an exported value, or a sum or ratio of exported ones.
 */
static const struct {
	const char *path;
	const char *why;
} elsewhere[] = {
	{ "workers[].id", "the worker label" },
	{ "sockets[].queue", "the queue label" },
	{ "sockets[].worker", "the worker label" },
	{ "workers[].pkts", "meerkat_capture_sock_rx_total" },
	{ "workers[].bytes", "meerkat_capture_sock_bytes_total" },
	{ "workers[].flows_created", "meerkat_flow_created_total" },
	{ "capture.kernel_packets", "meerkat_xdp_outcome_total{outcome=\"redirect_xsk\"}" },
	{ "invariant.rx", "meerkat_xdp_rx_total" },
	{ "invariant.outcome_sum", "sum(meerkat_xdp_outcome_total)" },
	{ "invariant.pass_error", "meerkat_xdp_outcome_total{outcome=\"pass_error\"}" },
	{ "invariant.err_sum", "sum(meerkat_xdp_error_total)" },
	{ "bypass.insert_latency.avg_us", "meerkat_bypass_insert_latency_seconds _sum / _count" },
};

/* The defragmenter's list has its meaning in comments: here as help. */
static const struct {
	const char *name;
	const char *help;
} defrag_help[] = {
	{ "frags_in", "fragments offered to the defragmenter" },
	{ "frags_v4", "IPv4 fragments offered" },
	{ "frags_v6", "IPv6 fragments offered" },
	{ "frags_not_fragment", "packets offered that were not fragments" },
	{ "frags_malformed", "fragments dropped alone: truncated or unreadable header" },
	{ "frags_overlap", "fragments overlapping data already held (duplicates too)" },
	{ "dg_reassembled", "datagrams reassembled" },
	{ "dg_overlap_mismatch", "datagrams reassembled whose overlapping copies disagreed" },
	{ "dg_timeout", "datagrams abandoned: defrag timeout" },
	{ "dg_memcap", "datagrams abandoned: memcap reached (oldest evicted)" },
	{ "dg_evicted", "datagrams abandoned: every tracker busy (oldest evicted)" },
	{ "dg_too_many_frags", "datagrams abandoned: more than max-frags fragments" },
	{ "dg_oversize", "datagrams abandoned: larger than the maximum datagram" },
	{ "dg_invalid", "datagrams abandoned: bad length, end conflict or data past the end" },
	{ "dg_overlap", "datagrams abandoned: overlap under the reject policy" },
	{ "dg_nomem", "datagrams abandoned: allocation failed" },
	{ "dg_flushed", "datagrams abandoned: still pending at shutdown" },
};

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0) {
		table_oom = 1;
		return NULL;
	}
	return s;
}

static void row(const char *name, const char *help, enum mk_prom_type type, const char *path,
		const char *labels, const char *aux, double scale)
{
	if (nrows == ROWS_MAX || !name || !path) {
		table_oom = 1;
		return;
	}
	rows[nrows++] = (struct mk_prom_metric){ .name = name,
						 .help = help,
						 .type = type,
						 .path = path,
						 .labels = labels,
						 .aux = aux,
						 .scale = scale ? scale : 1 };
}

/* @name without a leading @strip ("worker_rx" -> "rx" in group worker). */
static const char *stripped(const char *name, const char *strip)
{
	size_t n = strlen(strip);

	return n && !strncmp(name, strip, n) ? name + n : name;
}

/*
 * One counter of a worker's pipeline: meerkat_PREFIX_NAME_total{worker}
 * from workers[].pipeline.GROUP.NAME; the lists mark gauges with "gauge:".
 */
static void pipe_row(const char *prefix, const char *strip, const char *group, const char *name,
		     const char *help)
{
	const char *base = stripped(name, strip);
	int gauge = !strncmp(help, "gauge: ", 7);
	/* gauges of memory are in bytes */
	const char *unit = gauge && strstr(name, "mem_") ? "_bytes" : "";

	row(fmt("meerkat_%s_%s%s", prefix, base, gauge ? unit : "_total"), gauge ? help + 7 : help,
	    gauge ? MK_PROM_GAUGE : MK_PROM_COUNTER, fmt("workers[].pipeline.%s.%s", group, name),
	    NULL, fmt("%s.%s", group, name), 1);
}

static void defrag_row(const char *name)
{
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(defrag_help); i++)
		if (!strcmp(defrag_help[i].name, name))
			break;
	pipe_row("defrag", "", "defrag", name,
		 i < MK_ARRAY_SIZE(defrag_help) ? defrag_help[i].help : "see docs/defrag.md");
}

static void table_pipeline(void)
{
#define X(id, str, doc) pipe_row("capture", "", "capture", str, doc);
	MK_LIVE_COUNTERS(X)
#undef X
#define X(id, str, doc) pipe_row("worker", "worker_", "worker", str, doc);
	MK_WORKER_COUNTERS(X)
#undef X
	pipe_row("worker", "", "worker", "flows_logged", "EVE flow records the worker wrote");
#define X(id, str, doc) pipe_row("flow", "flow_", "flow", str, doc);
	MK_FLOW_COUNTERS(X)
#undef X
	pipe_row("flow", "flow_", "flow", "flow_chain_max",
		 "gauge: the deepest bucket chain of the worker's flow table");
	row("meerkat_worker_cpu", "the CPU the worker is pinned to, -1 when none", MK_PROM_GAUGE,
	    "workers[].cpu", NULL, NULL, 1);
	row("meerkat_flow_active", "flows the worker tracks now", MK_PROM_GAUGE,
	    "workers[].flows_active", NULL, NULL, 1);
#define X(id, str, doc) pipe_row("stream", "", "stream", str, doc);
	MK_STREAM_STATS(X)
#undef X
#define X(dname) defrag_row(#dname);
	MK_DEFRAG_STATS(X)
#undef X
	pipe_row("defrag", "", "defrag", "mem_used", "gauge: memory the defragmenter holds");
	pipe_row("defrag", "", "defrag", "mem_peak", "gauge: the most memory it ever held");
	pipe_row("defrag", "", "defrag", "trackers_used", "gauge: datagrams being reassembled");
#define X(id, str, doc) pipe_row("detect", "", "detect", str, doc);
	MK_DETECT_COUNTERS(X)
#undef X
#define X(id, str, doc) pipe_row("app", "app_", "app_layer", str, doc);
	MK_APP_COUNTERS(X)
#undef X
}

/* The program's INFO counters: the tunnels by type, the rest one metric each. */
static void xdp_info_row(const char *name, const char *doc)
{
	if (!strncmp(name, "tunnel_", 7) && strcmp(name, "tunnel_depth_exceeded"))
		row("meerkat_xdp_tunnel_stripped_total",
		    "tunnels the XDP program stripped, by type", MK_PROM_COUNTER,
		    fmt("xdp.%s", name), fmt("tunnel=\"%s\"", stripped(name, "tunnel_")), NULL, 1);
	else
		row(fmt("meerkat_xdp_%s_total", name), doc, MK_PROM_COUNTER, fmt("xdp.%s", name),
		    NULL, NULL, 1);
}

static void table_xdp(void)
{
	row("meerkat_uptime_seconds", "seconds since the sensor started", MK_PROM_GAUGE, "uptime",
	    NULL, NULL, 1);
#define X(id, str, doc)                                                        \
	row("meerkat_xdp_outcome_total",                                       \
	    "frames by the XDP program's outcome, every frame in exactly one " \
	    "(docs/reference.md)",                                             \
	    MK_PROM_COUNTER, "xdp." str, "outcome=\"" str "\"", NULL, 1);
	MK_STAT_OUTCOMES(X)
#undef X
#define X(id, str, doc)                                                                        \
	row("meerkat_xdp_error_total",                                                         \
	    "frames the XDP program passed as malformed, by reason (sum: outcome pass_error)", \
	    MK_PROM_COUNTER, "xdp." str, fmt("reason=\"%s\"", stripped(str, "err_")), NULL, 1);
	MK_STAT_ERRORS(X)
#undef X
#define X(id, str, doc) xdp_info_row(str, doc);
	MK_STAT_INFO(X)
#undef X
	row("meerkat_xdp_invariant_holds",
	    "1 while the program's accounting holds (rx = sum of outcomes, pass_error = sum of "
	    "errors)",
	    MK_PROM_GAUGE, "invariant.holds", NULL, NULL, 1);
#define X(name, doc)                                                                          \
	row("meerkat_socket_" #name "_total", doc, MK_PROM_COUNTER, "sockets[]." #name, NULL, \
	    NULL, 1);
	MK_XSK_STATS(X)
#undef X
	row("meerkat_capture_kernel_drops_total",
	    "frames lost between the program and the workers (rx_dropped + rx_ring_full of every "
	    "socket)",
	    MK_PROM_COUNTER, "capture.kernel_drops", NULL, NULL, 1);
	row("meerkat_capture_in_flight_frames",
	    "frames redirected to a socket, neither dropped nor counted by a worker yet",
	    MK_PROM_GAUGE, "capture.in_flight", NULL, NULL, 1);
	row("meerkat_capture_link_down_total", "times a capture interface went down",
	    MK_PROM_COUNTER, "capture.link_down", NULL, NULL, 1);
	row("meerkat_capture_link_down_seconds_total",
	    "time the capture interfaces spent down, a gap still open included", MK_PROM_COUNTER,
	    "capture.link_down_ms", NULL, NULL, 1e-3);
}

static void table_bypass(void)
{
#define X(id, str, doc) \
	row("meerkat_bypass_" str "_total", doc, MK_PROM_COUNTER, "bypass." str, NULL, NULL, 1);
	MK_BYPASS_MGR_COUNTERS(X)
#undef X
	row("meerkat_bypass_entries", "flows bypassed in the driver now", MK_PROM_GAUGE,
	    "bypass.entries", NULL, NULL, 1);
	row("meerkat_bypass_table_used", "entries of the manager's table in use", MK_PROM_GAUGE,
	    "bypass.table_used", NULL, NULL, 1);
	row("meerkat_bypass_table_size", "entries the manager's table holds at most", MK_PROM_GAUGE,
	    "bypass.table_size", NULL, NULL, 1);
	row("meerkat_bypass_map_used", "entries of the driver's LRU bypass map in use",
	    MK_PROM_GAUGE, "bypass.map_used", NULL, NULL, 1);
	row("meerkat_bypass_map_size", "entries of the driver's LRU bypass map", MK_PROM_GAUGE,
	    "bypass.map_size", NULL, NULL, 1);
	row("meerkat_bypass_map_limit", "entries the manager fills the LRU bypass map up to",
	    MK_PROM_GAUGE, "bypass.map_limit", NULL, NULL, 1);
	row("meerkat_bypass_queue_max", "the deepest request queue seen", MK_PROM_GAUGE,
	    "bypass.queue_max", NULL, NULL, 1);
	row("meerkat_bypass_walk_max_seconds", "the longest expiry walk", MK_PROM_GAUGE,
	    "bypass.walk_max_us", NULL, NULL, 1e-6);
	row("meerkat_bypass_insert_latency_max_seconds",
	    "the longest time from a worker's request to the driver's entry", MK_PROM_GAUGE,
	    "bypass.insert_latency.max_us", NULL, NULL, 1e-6);
	row("meerkat_bypass_insert_latency_seconds",
	    "time from a worker's bypass request to the driver's entry", MK_PROM_HISTOGRAM,
	    "bypass.insert_latency.histogram", NULL, "bypass.insert_latency.sum_us", 1e-6);
}

static void table_rules_outputs(void)
{
	row("meerkat_rules_generation", "the rule set's generation: 1 at start, +1 per reload",
	    MK_PROM_GAUGE, "rules.generation", NULL, NULL, 1);
	row("meerkat_rules_loaded", "rules in the engine", MK_PROM_GAUGE, "rules.rules_loaded",
	    NULL, NULL, 1);
	row("meerkat_rules_failed", "rules the last build rejected", MK_PROM_GAUGE,
	    "rules.rules_failed", NULL, NULL, 1);
#define X(id, str, doc)                                                                   \
	row("meerkat_rules_failed_by_reason", "rules the last build rejected, by reason", \
	    MK_PROM_GAUGE, "rules.failed_by_reason." str, "reason=\"" str "\"", NULL, 1);
	MK_DETECT_FAIL_REASONS(X)
#undef X
	row("meerkat_rules_files", "rule files read", MK_PROM_GAUGE, "rules.files", NULL, NULL, 1);
	row("meerkat_rules_without_fast_pattern", "rules without a fast pattern (always verified)",
	    MK_PROM_GAUGE, "rules.without_fast_pattern", NULL, NULL, 1);
	row("meerkat_rules_load_seconds", "how long the last build of the rule set took",
	    MK_PROM_GAUGE, "rules.load_time_ms", NULL, NULL, 1e-3);
	row("meerkat_rules_reloads_total", "rule reloads, by result", MK_PROM_COUNTER,
	    "rules.reloads_ok", "result=\"ok\"", NULL, 1);
	row("meerkat_rules_reloads_total", "rule reloads, by result", MK_PROM_COUNTER,
	    "rules.reloads_failed", "result=\"failed\"", NULL, 1);
	row("meerkat_rules_reloading", "1 while a reload builds a new engine", MK_PROM_GAUGE,
	    "rules.reloading", NULL, NULL, 1);
	row("meerkat_eve_written_total", "EVE records written, by output", MK_PROM_COUNTER,
	    "eve.written", "output=\"file\"", NULL, 1);
	row("meerkat_eve_lost_total", "EVE records a failed write dropped, by output",
	    MK_PROM_COUNTER, "eve.lost", "output=\"file\"", NULL, 1);
	/* each EVE output's writer (eve.outputs[], output/out_writer.h) */
#define X(id, str, doc)                                                                           \
	row(MK_OUT_##id == MK_OUT_BUFFERED || MK_OUT_##id == MK_OUT_HIGH_WATER ?                  \
		    "meerkat_eve_output_" str "_bytes" :                                          \
	    MK_OUT_##id == MK_OUT_BYTES ? "meerkat_eve_output_bytes_total" :                      \
					  "meerkat_eve_output_" str "_total",                     \
	    doc,                                                                                  \
	    MK_OUT_##id == MK_OUT_BUFFERED || MK_OUT_##id == MK_OUT_HIGH_WATER ? MK_PROM_GAUGE :  \
										 MK_PROM_COUNTER, \
	    "eve.outputs[]." str, NULL, NULL, 1);
	MK_OUT_COUNTERS(X)
#undef X
	/* the Redis and Kafka transports' own counters (output/out_redis.c, out_kafka.c) */
	row("meerkat_eve_redis_sent_total", "records Redis confirmed", MK_PROM_COUNTER,
	    "eve.outputs[].redis.sent", NULL, NULL, 1);
	row("meerkat_eve_redis_rejected_total", "records Redis answered with an error",
	    MK_PROM_COUNTER, "eve.outputs[].redis.rejected", NULL, NULL, 1);
	row("meerkat_eve_redis_errors_total", "connection or protocol errors", MK_PROM_COUNTER,
	    "eve.outputs[].redis.errors", NULL, NULL, 1);
	row("meerkat_eve_redis_reconnects_total", "connections to Redis made again",
	    MK_PROM_COUNTER, "eve.outputs[].redis.reconnects", NULL, NULL, 1);
	row("meerkat_eve_redis_unheard_total", "published records no subscriber received",
	    MK_PROM_COUNTER, "eve.outputs[].redis.unheard", NULL, NULL, 1);
	row("meerkat_eve_kafka_produced_total", "records handed to librdkafka", MK_PROM_COUNTER,
	    "eve.outputs[].kafka.produced", NULL, NULL, 1);
	row("meerkat_eve_kafka_delivered_total", "records the brokers acknowledged",
	    MK_PROM_COUNTER, "eve.outputs[].kafka.delivered", NULL, NULL, 1);
	row("meerkat_eve_kafka_failed_total", "records whose delivery failed", MK_PROM_COUNTER,
	    "eve.outputs[].kafka.failed", NULL, NULL, 1);
	row("meerkat_eve_kafka_queue_full_total", "sends refused by a full producer queue",
	    MK_PROM_COUNTER, "eve.outputs[].kafka.queue_full", NULL, NULL, 1);
	row("meerkat_eve_kafka_unkeyed_total", "records sent without a partition key",
	    MK_PROM_COUNTER, "eve.outputs[].kafka.unkeyed", NULL, NULL, 1);
	row("meerkat_eve_kafka_restarts_total", "producers replaced after a fatal error",
	    MK_PROM_COUNTER, "eve.outputs[].kafka.restarts", NULL, NULL, 1);
	/* the router advisor (advise/): its counters, active announcements, connected pipes */
#define X(id, str, doc) \
	row("meerkat_advise_" str "_total", doc, MK_PROM_COUNTER, "advise." str, NULL, NULL, 1);
	MK_ADVISE_COUNTERS(X)
#undef X
	row("meerkat_advise_active", "announcements active now", MK_PROM_GAUGE, "advise.active",
	    NULL, NULL, 1);
	row("meerkat_advise_pipes", "meerkat-exabgp-pipe connections open now", MK_PROM_GAUGE,
	    "advise.pipes", NULL, NULL, 1);
	/* the configuration reload (runmode/reload.c) */
	row("meerkat_reload_generation",
	    "the configuration's generation: 1 at start, +1 per reload", MK_PROM_GAUGE,
	    "reload.generation", NULL, NULL, 1);
	row("meerkat_reloads_total", "configuration reloads, by result", MK_PROM_COUNTER,
	    "reload.reloads_ok", "result=\"ok\"", NULL, 1);
	row("meerkat_reloads_total", "configuration reloads, by result", MK_PROM_COUNTER,
	    "reload.reloads_failed", "result=\"failed\"", NULL, 1);
	row("meerkat_reload_last_seconds", "how long the last reload took", MK_PROM_GAUGE,
	    "reload.last_ms", NULL, NULL, 1e-3);
	row("meerkat_reload_swap_stall_max_seconds",
	    "the longest a worker held a packet while taking a new engine", MK_PROM_GAUGE,
	    "reload.swap_stall_max_us", NULL, NULL, 1e-6);
	row("meerkat_prometheus_scrapes_total", "scrapes of /metrics served", MK_PROM_COUNTER,
	    "prometheus.scrapes", NULL, NULL, 1);
	row("meerkat_prometheus_render_seconds_total",
	    "time spent taking snapshots and rendering them for /metrics", MK_PROM_COUNTER,
	    "prometheus.render_ns", NULL, NULL, 1e-9);
	row("meerkat_prometheus_last_render_seconds",
	    "time the last scrape before this one took to snapshot and render", MK_PROM_GAUGE,
	    "prometheus.last_render_ns", NULL, NULL, 1e-9);
}

static void table_build(void)
{
	table_xdp();
	table_pipeline();
	table_bypass();
	table_rules_outputs();
}

const struct mk_prom_metric *mk_prom_metrics(unsigned int *n)
{
	pthread_once(&table_once, table_build);
	*n = table_oom ? 0 : nrows;
	return table_oom ? NULL : rows;
}

/* ---- rendering ------------------------------------------------------------------------- */

static void put(struct mk_prom_buf *b, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void put(struct mk_prom_buf *b, const char *f, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, f);
		n = vsnprintf(b->data ? b->data + b->len : NULL, room, f, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t cap = b->cap ? b->cap * 2 : 16384;
			char *p;

			while (cap - b->len <= (size_t)n)
				cap *= 2;
			p = realloc(b->data, cap);
			if (!p) {
				b->oom = 1;
				return;
			}
			b->data = p;
			b->cap = cap;
		}
	}
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(char *out, size_t len, const char *v)
{
	size_t o = 0;

	for (; *v && o + 3 < len; v++) {
		if (*v == '\\' || *v == '"') {
			out[o++] = '\\';
			out[o++] = *v;
		} else if (*v == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *v;
		}
	}
	out[o] = 0;
}

/* HELP text: backslash and newline escaped. */
static void put_help(struct mk_prom_buf *b, const char *h)
{
	if (!strpbrk(h, "\\\n")) {
		put(b, "%s", h);
		return;
	}
	for (; *h; h++) {
		if (*h == '\\')
			put(b, "\\\\");
		else if (*h == '\n')
			put(b, "\\n");
		else
			put(b, "%c", *h);
	}
}

struct render {
	struct mk_prom_buf *b;
	const char *family; /* the last family given its HELP and TYPE */
	const json_t *root;
};

static const char *const type_names[] = { "counter", "gauge", "histogram" };

static void family_header(struct render *r, const struct mk_prom_metric *m)
{
	if (r->family && !strcmp(r->family, m->name))
		return;
	r->family = m->name;
	put(r->b, "# HELP %s ", m->name);
	put_help(r->b, m->help);
	put(r->b, "\n# TYPE %s %s\n", m->name, type_names[m->type]);
}

static int leaf_number(const json_t *v, double *d, json_int_t *i, int *is_int)
{
	*is_int = 0;
	if (json_is_integer(v)) {
		*i = json_integer_value(v);
		*d = (double)*i;
		*is_int = 1;
	} else if (json_is_real(v)) {
		*d = json_real_value(v);
	} else if (json_is_boolean(v)) {
		*i = json_is_true(v);
		*d = (double)*i;
		*is_int = 1;
	} else {
		return -1;
	}
	return 0;
}

static void put_value(struct mk_prom_buf *b, const json_t *v, double scale)
{
	json_int_t i;
	double d;
	int is_int;

	if (leaf_number(v, &d, &i, &is_int))
		return;
	if (is_int && scale == 1)
		put(b, "%lld\n", (long long)i);
	else
		put(b, "%.9g\n", d * scale);
}

/* "{a,b}" from the array labels and the row's, or "" */
static void join_labels(char *out, size_t len, const char *arr, const char *fixed)
{
	snprintf(out, len, "%s%s%s%s%s", *arr || fixed ? "{" : "", arr, *arr && fixed ? "," : "",
		 fixed ? fixed : "", *arr || fixed ? "}" : "");
}

/* lt_10us -> 1e-05; ge_...: the overflow bucket (+Inf). -1 for a name it cannot read. */
static double bucket_bound(const char *name)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 } };
	char *end;
	double v;
	unsigned int k;

	if (!strncmp(name, "ge_", 3))
		return INFINITY;
	if (strncmp(name, "lt_", 3))
		return -1;
	v = strtod(name + 3, &end);
	if (end == name + 3)
		return -1;
	for (k = 0; k < MK_ARRAY_SIZE(units); k++)
		if (!strcmp(end, units[k].unit))
			return v * units[k].s;
	return -1;
}

static const json_t *at_path(const json_t *node, const char *path)
{
	char seg[64];

	while (node && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(seg))
			return NULL;
		memcpy(seg, path, n);
		seg[n] = 0;
		node = json_object_get(node, seg);
		path += n + (path[n] == '.');
	}
	return node;
}

#define HIST_MAX 32

static void render_histogram(struct render *r, const struct mk_prom_metric *m, const json_t *h,
			     const char *arr)
{
	struct {
		double le;
		json_int_t n;
	} bk[HIST_MAX], t;
	unsigned int nb = 0, i, j;
	const char *key;
	const json_t *v, *sum = m->aux ? at_path(r->root, m->aux) : NULL;
	json_int_t count = 0;
	char lab[256], le[32];

	if (!json_is_object(h))
		return;
	json_object_foreach((json_t *)h, key, v)
	{
		double bound = bucket_bound(key);

		if (bound < 0 || !json_is_integer(v) || nb == HIST_MAX)
			return; /* not a histogram this renderer can state truthfully */
		bk[nb].le = bound;
		bk[nb++].n = json_integer_value(v);
	}
	for (i = 1; i < nb; i++)
		for (j = i; j > 0 && bk[j - 1].le > bk[j].le; j--) {
			t = bk[j];
			bk[j] = bk[j - 1];
			bk[j - 1] = t;
		}
	family_header(r, m);
	for (i = 0; i < nb; i++) {
		count += bk[i].n;
		if (isinf(bk[i].le))
			continue;
		snprintf(le, sizeof(le), "le=\"%.9g\"", bk[i].le);
		join_labels(lab, sizeof(lab), arr, le);
		put(r->b, "%s_bucket%s %lld\n", m->name, lab, (long long)count);
	}
	join_labels(lab, sizeof(lab), arr, "le=\"+Inf\"");
	put(r->b, "%s_bucket%s %lld\n", m->name, lab, (long long)count);
	join_labels(lab, sizeof(lab), arr, NULL);
	if (sum) {
		put(r->b, "%s_sum%s ", m->name, lab);
		put_value(r->b, sum, m->scale);
	}
	put(r->b, "%s_count%s %lld\n", m->name, lab, (long long)count);
}

/* The labels an array's element gives its samples: label name, the element's key. */
static const struct {
	const char *array, *label, *key;
} lab[] = {
	{ "workers", "worker", "id" },	 { "sockets", "interface", "iface" },
	{ "sockets", "queue", "queue" }, { "sockets", "worker", "worker" },
	{ "outputs", "output", "name" },
};

void mk_prom_metric_labels(const struct mk_prom_metric *m, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int k;

	buf[0] = 0;
	for (k = 0; k < MK_ARRAY_SIZE(lab); k++) {
		char arr[32];

		snprintf(arr, sizeof(arr), "%s[].", lab[k].array);
		if (!strncmp(m->path, arr, strlen(arr)) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
					      lab[k].label);
	}
	if (m->labels && o < len)
		o += (size_t)snprintf(buf + o, len - o, "%s%.*s", o ? ", " : "",
				      (int)strcspn(m->labels, "="), m->labels);
	if (m->type == MK_PROM_HISTOGRAM && o < len)
		snprintf(buf + o, len - o, "%sle", o ? ", " : "");
}

/* The labels an array's element gives its samples. */
static void element_labels(const char *array, const json_t *e, char *out, size_t len)
{
	char val[128], esc[256];
	size_t o = strlen(out);
	unsigned int k;

	for (k = 0; k < MK_ARRAY_SIZE(lab); k++) {
		const json_t *v;

		if (strcmp(lab[k].array, array))
			continue;
		v = json_object_get(e, lab[k].key);
		if (json_is_integer(v))
			snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(v));
		else if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else
			continue;
		put_label_value(esc, sizeof(esc), val);
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s=\"%s\"", o ? "," : "",
				      lab[k].label, esc);
		if (o >= len) {
			out[len - 1] = 0;
			return;
		}
	}
}

static void render_at(struct render *r, const struct mk_prom_metric *m, const json_t *node,
		      const char *path, const char *arr)
{
	char seg[64], lab[512];
	size_t n = strcspn(path, ".");
	const json_t *child;

	if (!node || n >= sizeof(seg))
		return;
	memcpy(seg, path, n);
	seg[n] = 0;
	if (n > 2 && !strcmp(seg + n - 2, "[]")) {
		const json_t *a, *e;
		size_t i;

		seg[n - 2] = 0;
		a = json_object_get(node, seg);
		if (!path[n])
			return;
		json_array_foreach((json_t *)a, i, e)
		{
			snprintf(lab, sizeof(lab), "%s", arr);
			element_labels(seg, e, lab, sizeof(lab));
			render_at(r, m, e, path + n + 1, lab);
		}
		return;
	}
	child = json_object_get(node, seg);
	if (path[n]) {
		render_at(r, m, child, path + n + 1, arr);
		return;
	}
	if (!child)
		return;
	if (m->type == MK_PROM_HISTOGRAM) {
		render_histogram(r, m, child, arr);
		return;
	}
	if (!json_is_number(child) && !json_is_boolean(child))
		return;
	family_header(r, m);
	join_labels(lab, sizeof(lab), arr, m->labels);
	put(r->b, "%s%s ", m->name, lab);
	put_value(r->b, child, m->scale);
}

int mk_prom_render(const json_t *snap, struct mk_prom_buf *b)
{
	struct render r = { .b = b, .root = snap };
	const struct mk_prom_metric *t;
	unsigned int n, i;

	t = mk_prom_metrics(&n);
	if (!t)
		b->oom = 1;
	for (i = 0; i < n && !b->oom; i++)
		render_at(&r, &t[i], snap, t[i].path, "");
	if (b->oom) {
		mk_prom_buf_free(b);
		return -ENOMEM;
	}
	return 0;
}

void mk_prom_buf_free(struct mk_prom_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* ---- coverage -------------------------------------------------------------------------- */

static int path_exported(const char *path)
{
	const struct mk_prom_metric *t;
	unsigned int n, i;

	t = mk_prom_metrics(&n);
	for (i = 0; i < n; i++) {
		size_t l = strlen(t[i].path);

		if (!strcmp(t[i].path, path) || (t[i].aux && !strcmp(t[i].aux, path)))
			return 1;
		/* a histogram's buckets */
		if (t[i].type == MK_PROM_HISTOGRAM && !strncmp(t[i].path, path, l) &&
		    path[l] == '.')
			return 1;
	}
	for (i = 0; i < MK_ARRAY_SIZE(elsewhere); i++)
		if (!strcmp(elsewhere[i].path, path))
			return 1;
	return 0;
}

static unsigned int walk(const json_t *node, char *path, size_t len,
			 void (*fn)(const char *path, void *arg), void *arg)
{
	size_t at = strlen(path), i;
	unsigned int missing = 0;
	const char *key;
	const json_t *v;

	if (json_is_object(node)) {
		json_object_foreach((json_t *)node, key, v)
		{
			snprintf(path + at, len - at, "%s%s", at ? "." : "", key);
			missing += walk(v, path, len, fn, arg);
		}
	} else if (json_is_array(node)) {
		snprintf(path + at, len - at, "[]");
		/* every element: a counter may be missing from some */
		json_array_foreach((json_t *)node, i, v)
		{
			missing += walk(v, path, len, fn, arg);
			path[at + 2] = 0;
		}
	} else if ((json_is_number(node) || json_is_boolean(node)) && !path_exported(path)) {
		if (fn)
			fn(path, arg);
		missing++;
	}
	path[at] = 0;
	return missing;
}

/* Reports each path once, however many array elements lack it. */
struct unexported {
	char seen[64][192];
	unsigned int n;
	void (*fn)(const char *path, void *arg);
	void *arg;
};

static void once_each(const char *path, void *arg)
{
	struct unexported *o = arg;
	unsigned int i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->seen[i], path))
			return;
	if (o->n < MK_ARRAY_SIZE(o->seen))
		snprintf(o->seen[o->n++], sizeof(o->seen[0]), "%s", path);
	if (o->fn)
		o->fn(path, o->arg);
}

unsigned int mk_prom_unexported(const json_t *snap, void (*fn)(const char *path, void *arg),
				void *arg)
{
	struct unexported *o = calloc(1, sizeof(*o));
	char path[512] = "";
	unsigned int n;

	if (!o)
		return 1;
	o->fn = fn;
	o->arg = arg;
	walk(snap, path, sizeof(path), once_each, o);
	n = o->n;
	free(o);
	return n;
}

/* ---- stats.prometheus ------------------------------------------------------------------ */

int mk_prom_listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len,
			 const char **why)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port_s;
	unsigned long port;
	char *end;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':') {
			*why = "an IPv6 address is written [ADDR]:PORT";
			return -EINVAL;
		}
		hl = (size_t)(close - s - 1);
		if (hl >= sizeof(host)) {
			*why = "the address is too long";
			return -EINVAL;
		}
		memcpy(host, s + 1, hl);
		host[hl] = 0;
		port_s = close + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			*why = "expected ADDRESS:PORT, [ADDRESS]:PORT or :PORT";
			return -EINVAL;
		}
		hl = (size_t)(colon - s);
		if (hl >= sizeof(host) || memchr(s, ':', hl)) {
			*why = "an IPv6 address is written [ADDR]:PORT";
			return -EINVAL;
		}
		memcpy(host, s, hl);
		host[hl] = 0;
		port_s = colon + 1;
	}
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (!*port_s || *end || errno || port == 0 || port > 65535 || *port_s == '-' ||
	    *port_s == '+' || *port_s == ' ') {
		*why = "the port must be a number in [1, 65535]";
		return -EINVAL;
	}
	if (s[0] == '[' || !host[0]) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		/* ":PORT": every address, IPv6 and IPv4 (the socket is dual-stack) */
		if (host[0] && inet_pton(AF_INET6, host, &a->sin6_addr) != 1) {
			*why = "not an IPv6 address (host names are not resolved)";
			return -EINVAL;
		}
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1) {
			*why = "not an IPv4 address (host names are not resolved)";
			return -EINVAL;
		}
		*len = sizeof(*a);
	}
	return 0;
}

/* stats.prometheus.listen: refused where it stands in the file when it cannot be bound as written */
static int listen_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_prom_cfg *c = base;
	struct sockaddr_storage ss;
	const char *v, *why = NULL;
	socklen_t len;
	int err;

	err = mk_cfg_scalar_nonempty(x, node, path, &v);
	if (err)
		return err;
	if (strlen(v) >= sizeof(c->listen))
		return mk_cfg_error(x, node, path, -ERANGE, "'%.48s...' is longer than %zu bytes",
				    v, sizeof(c->listen) - 1);
	if (mk_prom_listen_parse(v, &ss, &len, &why))
		return mk_cfg_error(x, node, path, -EINVAL, "'%s': %s", v, why);
	snprintf(c->listen, sizeof(c->listen), "%s", v);
	return 0;
}

static void listen_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_prom_cfg *c = base;

	fprintf(out, "%s = %s\n", path, c->listen);
}

#define C struct mk_prom_cfg
static const struct mk_cfg_key prom_keys[] = {
	MK_CFG_BOOL("stats.prometheus.enabled", C, enabled),
	MK_CFG_CUSTOM("stats.prometheus.listen", listen_parse, listen_dump),
};
#undef C

static void prom_defaults(void *base)
{
	struct mk_prom_cfg *c = base;

	c->enabled = 0;
	snprintf(c->listen, sizeof(c->listen), "127.0.0.1:9917");
}

const struct mk_cfg_table mk_prom_cfg_table = {
	.name = "prometheus",
	.keys = prom_keys,
	.nkeys = MK_ARRAY_SIZE(prom_keys),
	.defaults = prom_defaults,
};
