/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus exposition of the live sensor's counters (text format
 * 0.0.4, docs/operations.md#prometheus).
 *
 * The input is the JSON snapshot `meerkatctl stats` shows (runmode/live.c),
 * with each worker's own pipeline counters under workers[].pipeline and the
 * endpoint's own counters under `prometheus`. One table says which metric
 * reads which leaf: its name, help, type, fixed labels and where in the
 * snapshot it is. Paths are dotted keys; `workers[]` and `sockets[]` walk an
 * array and label every sample with the element's worker, or interface,
 * queue and worker. The rows of the counter lists (X-macros: pipeline,
 * flow, stream, detect, application layer, bypass manager, XDP program,
 * sockets) are built from those lists, so their help is the list's own
 * text and a counter added there is exported without an edit here.
 *
 * mk_prom_unexported() walks a snapshot and names every numeric leaf no row
 * reads: the unit test and the live test run it on real snapshots so that
 * no counter is forgotten.
 *
 * Also here: the module's keys, stats.prometheus.enabled and .listen.
 */
#ifndef MK_PROMETHEUS_H
#define MK_PROMETHEUS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <jansson.h>

#define MK_PROM_LISTEN_MAX 64

/* stats.prometheus */
struct mk_prom_cfg {
	uint8_t enabled;
	char listen[MK_PROM_LISTEN_MAX]; /* "127.0.0.1:9917", "[::1]:9917", ":9917" */
};

struct mk_cfg_table;
extern const struct mk_cfg_table mk_prom_cfg_table;

/*
 * "A.B.C.D:PORT", "[IPv6]:PORT" or ":PORT" (every address, IPv6 and IPv4)
 * into @ss. 0, or -EINVAL with the reason in @why.
 */
int mk_prom_listen_parse(const char *s, struct sockaddr_storage *ss, socklen_t *len,
			 const char **why);

enum mk_prom_type {
	MK_PROM_COUNTER,
	MK_PROM_GAUGE,
	MK_PROM_HISTOGRAM, /* path: {bucket: count} named lt_<n><unit> / ge_...; aux: the sum */
};

struct mk_prom_metric {
	const char *name; /* counters end in _total */
	const char *help;
	enum mk_prom_type type;
	const char *path;   /* the leaf it reads */
	const char *labels; /* fixed labels (`outcome="redirect_xsk"`), or NULL */
	const char *aux;    /* another leaf with the same meaning (a total over workers,
			       a copy), or a histogram's sum; NULL when none */
	double scale;	    /* the leaf's unit to the metric's (1e-3: ms to seconds) */
};

/* The table, in rendering order; a family's rows are consecutive. */
const struct mk_prom_metric *mk_prom_metrics(unsigned int *n);

/* The label names of @m's samples ("interface, queue, worker"), "" when none. */
void mk_prom_metric_labels(const struct mk_prom_metric *m, char *buf, size_t len);

struct mk_prom_buf {
	char *data;
	size_t len, cap;
	int oom;
};

/* Appends @snap's metrics to @b. 0, or -ENOMEM (@b is then released). */
int mk_prom_render(const json_t *snap, struct mk_prom_buf *b);
void mk_prom_buf_free(struct mk_prom_buf *b);

/*
 * Calls @fn (when not NULL) with the path of every numeric leaf of @snap no
 * metric reads (arrays as `name[]`); returns how many there were.
 */
unsigned int mk_prom_unexported(const json_t *snap, void (*fn)(const char *path, void *arg),
				void *arg);

#endif /* MK_PROMETHEUS_H */
