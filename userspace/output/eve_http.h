/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE `http` records and the `http` object of alerts: the HTTP parser
 * (applayer/http/) hands over the facts of a transaction, as bytes, and
 * this renders and escapes them, with Suricata's field names.
 */
#ifndef MK_EVE_HTTP_H
#define MK_EVE_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "flow.h"

/* A field: @len bytes at @p; p == NULL: absent. */
struct mk_eve_str {
	const uint8_t *p;
	uint32_t len;
};

struct mk_eve_http {
	struct mk_eve_str hostname, url, user_agent, content_type, referer, method, protocol,
		redirect;
	int status;	 /* 0: no response */
	uint64_t length; /* response body bytes (after dechunking, before decompression) */
};

/* A buffer size that always holds mk_eve_http_object() of @h. */
size_t mk_eve_http_maxlen(const struct mk_eve_http *h);
/* `"http":{...}` (no leading comma); its length, or -ENOSPC. */
int mk_eve_http_object(char *buf, size_t size, const struct mk_eve_http *h);
/* The whole `http` event of transaction @tx_id of flow @f; its length, or -ENOSPC. */
int mk_eve_http(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		uint64_t ts_us, uint64_t tx_id, const struct mk_eve_http *h);

#endif /* MK_EVE_HTTP_H */
