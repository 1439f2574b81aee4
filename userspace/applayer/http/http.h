/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * HTTP/1.x through libhtp (docs/applayer.md): one connection parser per
 * flow; requests and responses matched into transactions (keep-alive,
 * pipelining, 100-continue), bodies dechunked and, for responses,
 * decompressed (gzip, deflate) by libhtp; CONNECT and upgrades stop the
 * parsing. Transactions are handed over as they progress (detection) and
 * when finished (EVE), then freed.
 */
#ifndef MK_HTTP_H
#define MK_HTTP_H

#include <stdint.h>
#include "applayer_int.h"

struct mk_eve_http;

/* The to-server bytes start like a request (1), cannot (0), or need more bytes (-1). */
int mk_http_probe_request(const uint8_t *p, uint32_t len);
/* The to-client bytes start like a response ("HTTP/"): 1, 0 or -1. */
int mk_http_probe_response(const uint8_t *p, uint32_t len);

int mk_http_thread_new(struct mk_app_thread *a);
void mk_http_thread_free(struct mk_app_thread *a);

/* NULL when out of memory or over the memcap (counted). */
struct mk_http_flow *mk_http_flow_new(struct mk_app_thread *a, struct mk_flow *f);
/* @gap: bytes lost just before @data (docs/applayer.md: parsing resumes when it is safe). */
void mk_http_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_http_flow *h, int to_client,
		  const uint8_t *data, uint32_t len, uint64_t gap, uint64_t ts_us);
void mk_http_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_http_flow *h,
		      uint64_t ts_us);
void mk_http_flow_free(struct mk_app_thread *a, struct mk_http_flow *h);

/* Detection's buffer @id (enum mk_buf_id) of transaction @tx; 0 when it has none. */
int mk_http_tx_buffer(const void *tx, unsigned int id, int to_client, const uint8_t **data,
		      uint32_t *len);
/* The EVE facts of transaction @tx. */
void mk_http_tx_eve(const void *tx, struct mk_eve_http *out);
/* urilen: the length of the normalized (or @raw) URI of @tx; -1 when there is none. */
int64_t mk_http_tx_urilen(const void *tx, int raw);

#endif /* MK_HTTP_H */
