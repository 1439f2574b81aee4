// SPDX-License-Identifier: GPL-2.0-only
/*
 * HTTP's detection buffers and EVE facts (http.h): what a rule's http.*
 * buffers read of one transaction, as Suricata builds them, and what the
 * `http` record and an alert's `http` object show of it.
 *
 * Buffers that are not a libhtp field as is (the normalized URI, the
 * header blocks, the header names) are built on first use and kept with
 * the transaction; they are asked for only once their side is complete.
 */
#include <stdlib.h>
#include <string.h>
#include "http_int.h"

static int from_bstr(const bstr *b, const uint8_t **data, uint32_t *len)
{
	if (!b)
		return 0;
	*data = bstr_ptr(b);
	*len = (uint32_t)bstr_len(b);
	return 1;
}

static const htp_header_t *header(const htp_table_t *t, const char *name)
{
	return t ? htp_table_get_c(t, name) : NULL;
}

static int header_value(const htp_table_t *t, const char *name, const uint8_t **data, uint32_t *len)
{
	const htp_header_t *h = header(t, name);

	return h ? from_bstr(h->value, data, len) : 0;
}

/* A growing byte string for built buffers. */
struct sbuf {
	uint8_t *p;
	uint32_t len, cap;
	int oom;
};

static void sb_add(struct sbuf *s, const void *p, size_t n)
{
	uint32_t cap;
	uint8_t *q;

	if (s->oom || !n)
		return;
	if (s->len + n > s->cap) {
		cap = s->cap ? s->cap : 256;
		while (cap < s->len + n)
			cap *= 2;
		q = realloc(s->p, cap);
		if (!q) {
			s->oom = 1;
			return;
		}
		s->p = q;
		s->cap = cap;
	}
	memcpy(s->p + s->len, p, n);
	s->len += (uint32_t)n;
}

static void sb_bstr(struct sbuf *s, const bstr *b)
{
	if (b)
		sb_add(s, bstr_ptr(b), bstr_len(b));
}

static int is_cookie(const bstr *name)
{
	return name &&
	       (!bstr_cmp_c_nocase(name, "cookie") || !bstr_cmp_c_nocase(name, "set-cookie"));
}

/* Builds buffer @id of side @d into @s. */
static void build(const htp_tx_t *tx, unsigned int id, int d, struct sbuf *s)
{
	const htp_table_t *hdrs = d ? tx->response_headers : tx->request_headers;
	size_t i, n = hdrs ? htp_table_size(hdrs) : 0;

	switch (id) {
	case MK_BUF_HTTP_URI:
		if (tx->parsed_uri && tx->parsed_uri->path) {
			sb_bstr(s, tx->parsed_uri->path);
			if (tx->parsed_uri->query) {
				sb_add(s, "?", 1);
				sb_bstr(s, tx->parsed_uri->query);
			}
		} else {
			sb_bstr(s, tx->request_uri);
		}
		break;
	case MK_BUF_HTTP_START:
	case MK_BUF_HTTP_HEADER:
	case MK_BUF_HTTP_HEADER_RAW:
		/* the start: the request (response) line first, as Suricata's */
		if (id == MK_BUF_HTTP_START) {
			sb_bstr(s, d ? tx->response_line : tx->request_line);
			sb_add(s, "\r\n", 2);
		}
		/* "Name: value\r\n" each; the normalized one without cookies, as Suricata's */
		for (i = 0; i < n; i++) {
			const htp_header_t *h = htp_table_get_index(hdrs, i, NULL);

			if (!h || (id == MK_BUF_HTTP_HEADER && is_cookie(h->name)))
				continue;
			sb_bstr(s, h->name);
			sb_add(s, ": ", 2);
			sb_bstr(s, h->value);
			sb_add(s, "\r\n", 2);
		}
		if (id != MK_BUF_HTTP_HEADER)
			sb_add(s, "\r\n", 2);
		break;
	case MK_BUF_HTTP_HEADER_NAMES:
		/* "\r\nName1\r\nName2\r\n\r\n", as Suricata's */
		sb_add(s, "\r\n", 2);
		for (i = 0; i < n; i++) {
			const htp_header_t *h = htp_table_get_index(hdrs, i, NULL);

			if (!h)
				continue;
			sb_bstr(s, h->name);
			sb_add(s, "\r\n", 2);
		}
		sb_add(s, "\r\n", 2);
		break;
	default:
		break;
	}
}

static int cached(struct mk_http_tx *t, unsigned int id, int d, const uint8_t **data, uint32_t *len)
{
	struct sbuf s = { 0 };

	if (!t->cached[id][d]) {
		build(t->htx, id, d, &s);
		if (s.oom) {
			free(s.p);
			return 0;
		}
		t->cache[id][d] = s.p;
		t->cache_len[id][d] = s.len;
		t->cached[id][d] = 1;
	}
	*data = t->cache[id][d] ? t->cache[id][d] : (const uint8_t *)"";
	*len = t->cache_len[id][d];
	return 1;
}

static int body(const struct mk_http_tx *t, int d, const uint8_t **data, uint32_t *len)
{
	const struct mk_http_body *b = &t->body[d];

	*data = b->buf ? b->buf : (const uint8_t *)"";
	*len = b->len;
	return 1;
}

int mk_http_tx_buffer(const void *txp, unsigned int id, int to_client, const uint8_t **data,
		      uint32_t *len)
{
	/* the transaction belongs to this worker: its cache may be filled here */
	struct mk_http_tx *t = (struct mk_http_tx *)txp;
	const htp_tx_t *tx = t->htx;
	int d = !!to_client;

	switch (id) {
	case MK_BUF_HTTP_URI:
		if (!tx->request_uri)
			return 0;
		return cached(t, id, 0, data, len);
	case MK_BUF_HTTP_URI_RAW:
		return from_bstr(tx->request_uri, data, len);
	case MK_BUF_HTTP_METHOD:
		return from_bstr(tx->request_method, data, len);
	case MK_BUF_HTTP_PROTOCOL:
		return from_bstr(d ? tx->response_protocol : tx->request_protocol, data, len);
	case MK_BUF_HTTP_REQUEST_LINE:
		return from_bstr(tx->request_line, data, len);
	case MK_BUF_HTTP_HOST:
		if (tx->request_hostname)
			return from_bstr(tx->request_hostname, data, len);
		return header_value(tx->request_headers, "host", data, len);
	case MK_BUF_HTTP_HOST_RAW:
		if (tx->parsed_uri_raw && tx->parsed_uri_raw->hostname)
			return from_bstr(tx->parsed_uri_raw->hostname, data, len);
		return header_value(tx->request_headers, "host", data, len);
	case MK_BUF_HTTP_USER_AGENT:
		return header_value(tx->request_headers, "user-agent", data, len);
	case MK_BUF_HTTP_COOKIE:
		return header_value(d ? tx->response_headers : tx->request_headers,
				    d ? "set-cookie" : "cookie", data, len);
	case MK_BUF_HTTP_REFERER:
		return header_value(tx->request_headers, "referer", data, len);
	case MK_BUF_HTTP_ACCEPT:
		return header_value(tx->request_headers, "accept", data, len);
	case MK_BUF_HTTP_ACCEPT_ENC:
		return header_value(tx->request_headers, "accept-encoding", data, len);
	case MK_BUF_HTTP_ACCEPT_LANG:
		return header_value(tx->request_headers, "accept-language", data, len);
	case MK_BUF_HTTP_CONNECTION:
		return header_value(d ? tx->response_headers : tx->request_headers, "connection",
				    data, len);
	case MK_BUF_HTTP_CONTENT_TYPE:
		return header_value(d ? tx->response_headers : tx->request_headers, "content-type",
				    data, len);
	case MK_BUF_HTTP_CONTENT_LEN:
		return header_value(d ? tx->response_headers : tx->request_headers,
				    "content-length", data, len);
	case MK_BUF_HTTP_START:
		if (!(d ? tx->response_line : tx->request_line))
			return 0;
		/* fall through */
	case MK_BUF_HTTP_HEADER:
	case MK_BUF_HTTP_HEADER_RAW:
	case MK_BUF_HTTP_HEADER_NAMES:
		if (!(d ? tx->response_headers : tx->request_headers))
			return 0;
		return cached(t, id, d, data, len);
	case MK_BUF_HTTP_REQUEST_BODY:
		return body(t, 0, data, len);
	case MK_BUF_HTTP_STAT_CODE:
		return from_bstr(tx->response_status, data, len);
	case MK_BUF_HTTP_STAT_MSG:
		return from_bstr(tx->response_message, data, len);
	case MK_BUF_HTTP_RESPONSE_LINE:
		return from_bstr(tx->response_line, data, len);
	case MK_BUF_HTTP_SERVER:
		return header_value(tx->response_headers, "server", data, len);
	case MK_BUF_HTTP_LOCATION:
		return header_value(tx->response_headers, "location", data, len);
	case MK_BUF_HTTP_RESPONSE_BODY:
		return body(t, 1, data, len);
	case MK_BUF_FILE_DATA:
		return body(t, d, data, len);
	default:
		return 0;
	}
}

int64_t mk_http_tx_urilen(const void *txp, int raw)
{
	const uint8_t *p;
	uint32_t len;

	if (!mk_http_tx_buffer(txp, raw ? MK_BUF_HTTP_URI_RAW : MK_BUF_HTTP_URI, 0, &p, &len))
		return -1;
	return len;
}

static void eve_str(struct mk_eve_str *out, const bstr *b)
{
	out->p = b ? bstr_ptr(b) : NULL;
	out->len = b ? (uint32_t)bstr_len(b) : 0;
}

static void eve_header(struct mk_eve_str *out, const htp_table_t *t, const char *name)
{
	const htp_header_t *h = header(t, name);

	eve_str(out, h ? h->value : NULL);
}

void mk_http_tx_eve(const void *txp, struct mk_eve_http *ev)
{
	const struct mk_http_tx *t = txp;
	const htp_tx_t *tx = t->htx;
	uint32_t i;

	memset(ev, 0, sizeof(*ev));
	eve_str(&ev->hostname, tx->request_hostname);
	eve_str(&ev->url, tx->request_uri);
	eve_header(&ev->user_agent, tx->request_headers, "user-agent");
	eve_header(&ev->content_type, tx->response_headers, "content-type");
	/* as Suricata: the media type, without its parameters */
	for (i = 0; ev->content_type.p && i < ev->content_type.len; i++)
		if (ev->content_type.p[i] == ';') {
			ev->content_type.len = i;
			break;
		}
	eve_header(&ev->referer, tx->request_headers, "referer");
	eve_str(&ev->method, tx->request_method);
	eve_str(&ev->protocol, tx->request_protocol);
	eve_header(&ev->redirect, tx->response_headers, "location");
	if (tx->response_status && tx->response_status_number > 0)
		ev->status = tx->response_status_number;
	ev->length = tx->response_message_len > 0 ? (uint64_t)tx->response_message_len : 0;
}
