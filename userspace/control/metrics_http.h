/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus endpoint of the live sensor (stats.prometheus): an HTTP
 * server (libmicrohttpd, one thread of its own) answering GET /metrics with
 * output/prometheus.h's rendering of a fresh snapshot, 404 elsewhere. It
 * never touches the packet path: each scrape asks the run mode for the
 * snapshot `meerkatctl stats` shows.
 *
 * Two steps, so that the daemon can bind as root before it drops its
 * privileges and start the thread after (a thread keeps the capabilities it
 * was created with): mk_metrics_http_new() binds and listens, and names the
 * key and the address when it cannot; mk_metrics_http_start() starts
 * serving. mk_metrics_http_free() stops the thread and closes the socket.
 */
#ifndef MK_METRICS_HTTP_H
#define MK_METRICS_HTTP_H

#include <jansson.h>
#include "prometheus.h"

struct mk_metrics_http;

/* A new snapshot, owned by the caller; NULL when out of memory. Called from the server's thread. */
typedef json_t *(*mk_metrics_snapshot_fn)(void *ctx);

/* Binds @cfg->listen. 0 or -errno (logged, naming stats.prometheus.listen and the address). */
int mk_metrics_http_new(struct mk_metrics_http **out, const struct mk_prom_cfg *cfg);
/* Serves /metrics from @fn's snapshots. 0 or -errno (logged). */
int mk_metrics_http_start(struct mk_metrics_http *m, mk_metrics_snapshot_fn fn, void *ctx);
/* Stops serving (no snapshot is taken after it returns) and frees; NULL is fine. */
void mk_metrics_http_free(struct mk_metrics_http *m);

#endif /* MK_METRICS_HTTP_H */
