// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metrics endpoint (metrics_http.h): libmicrohttpd with its own polling
 * thread, on a socket bound before the daemon drops its privileges.
 *
 * One thread serves every connection in turn, so scrapes never overlap:
 * the counters of the endpoint itself (scrapes, render time) are this
 * thread's alone, and each scrape takes one snapshot. A scrape costs the
 * snapshot (reading each worker's published counters under its lock, the
 * sockets' XDP_STATISTICS and the program's per-CPU array) plus the text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include "log.h"
#include "metrics_http.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define MAX_CONNECTIONS 16
#define CONNECTION_TIMEOUT_S 10

struct mk_metrics_http {
	int fd; /* ours until the daemon starts, then libmicrohttpd's */
	char listen[MK_PROM_LISTEN_MAX];
	struct MHD_Daemon *d;
	mk_metrics_snapshot_fn snapshot;
	void *ctx;
	/* the endpoint's own counters, touched by its thread only */
	uint64_t scrapes, render_ns, last_render_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int mk_metrics_http_new(struct mk_metrics_http **out, const struct mk_prom_cfg *cfg)
{
	struct mk_metrics_http *m;
	struct sockaddr_storage ss;
	const char *why = NULL;
	socklen_t len;
	int one = 1, zero = 0, err;

	*out = NULL;
	if (mk_prom_listen_parse(cfg->listen, &ss, &len, &why)) {
		mk_err("stats.prometheus.listen: '%s': %s", cfg->listen, why);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	snprintf(m->listen, sizeof(m->listen), "%s", cfg->listen);
	m->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (m->fd < 0) {
		err = -errno;
		goto fail;
	}
	setsockopt(m->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* ":PORT" is every address of both families */
	if (ss.ss_family == AF_INET6)
		setsockopt(m->fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(m->fd, (struct sockaddr *)&ss, len) || listen(m->fd, 64)) {
		err = -errno;
		goto fail;
	}
	*out = m;
	return 0;
fail:
	mk_err("stats.prometheus.listen: cannot listen on %s: %s", cfg->listen, strerror(-err));
	if (m->fd >= 0)
		close(m->fd);
	free(m);
	return err;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status, const char *msg)
{
	return reply(c, status, (char *)msg, strlen(msg), MHD_RESPMEM_PERSISTENT,
		     "text/plain; charset=utf-8");
}

/* One scrape: a snapshot, the endpoint's own counters in it, the text. */
static enum MHD_Result scrape(struct mk_metrics_http *m, struct MHD_Connection *c)
{
	struct mk_prom_buf b = { 0 };
	uint64_t t0 = mono_ns();
	json_t *snap = m->snapshot(m->ctx), *self;
	int err = snap ? 0 : -ENOMEM;

	m->scrapes++;
	self = json_pack("{s:I,s:I,s:I}", "scrapes", (json_int_t)m->scrapes, "render_ns",
			 (json_int_t)m->render_ns, "last_render_ns", (json_int_t)m->last_render_ns);
	if (snap && self)
		json_object_set_new(snap, "prometheus", self);
	else
		json_decref(self);
	if (!err)
		err = mk_prom_render(snap, &b);
	json_decref(snap);
	m->last_render_ns = mono_ns() - t0;
	m->render_ns += m->last_render_ns;
	if (err)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	return reply(c, MHD_HTTP_OK, b.data, b.len, MHD_RESPMEM_MUST_FREE, CONTENT_TYPE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	(void)version;
	(void)upload;
	(void)con_cls;
	/* a request body is refused rather than read */
	if (*upload_len)
		return MHD_NO;
	if (strcmp(url, "/metrics"))
		return text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	return scrape(cls, c);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	mk_dbg("metrics endpoint: %s", msg);
}

int mk_metrics_http_start(struct mk_metrics_http *m, mk_metrics_snapshot_fn fn, void *ctx)
{
	m->snapshot = fn;
	m->ctx = ctx;
	m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG,
				0, NULL, NULL, handle, m, MHD_OPTION_LISTEN_SOCKET,
				(MHD_socket)m->fd, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned int)MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)CONNECTION_TIMEOUT_S, MHD_OPTION_EXTERNAL_LOGGER,
				mhd_log, NULL, MHD_OPTION_END);
	if (!m->d) {
		mk_err("stats.prometheus: cannot start the HTTP server on %s", m->listen);
		return -EIO;
	}
	m->fd = -1; /* libmicrohttpd closes it when it stops */
	mk_info("metrics: GET /metrics on %s", m->listen);
	return 0;
}

void mk_metrics_http_free(struct mk_metrics_http *m)
{
	if (!m)
		return;
	if (m->d)
		MHD_stop_daemon(m->d);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}
