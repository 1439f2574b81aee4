// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP/1.x parser glue (http.h): libhtp underneath, one connection
 * parser per flow, the transactions it makes wrapped in struct mk_http_tx
 * (the bodies kept for inspection, detection's memory of them).
 *
 * After each call into libhtp the new and progressed transactions are
 * handed to detection; one whose request and response are complete is
 * handed to the EVE writer and freed at the end of a later packet. libhtp
 * may stop consuming one direction until the other catches up
 * (HTP_STREAM_DATA_OTHER): the rest is held and fed again after the other
 * direction's next bytes. A gap, a parse error, a tunnel (CONNECT, upgrade)
 * and the limits (memcap, flow-memcap, max-tx) stop the parsing of the
 * flow; what was parsed is still inspected and logged.
 *
 * Memory is counted as meerkat holds it: a fixed share per flow and per
 * transaction for libhtp's own state, the bodies kept, the held bytes and
 * the buffers built for detection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <htp/htp.h>
#include "detect.h"
#include "detect_buf.h"
#include "eve_file.h"
#include "http.h"
#include "http_int.h"

#define FLOW_BASE_MEM 8192u /* libhtp's connection parser, our flow state */
#define TX_BASE_MEM 1024u   /* libhtp's transaction and its headers, roughly */

struct mk_http_thread {
	htp_cfg_t *cfg;
};

/* ---- recognition ---------------------------------------------------------------------- */

static const char *const methods[] = {
	"GET ",	    "POST ",  "HEAD ",	"PUT ",	     "DELETE ",	   "OPTIONS ",
	"CONNECT ", "PATCH ", "TRACE ", "PROPFIND ", "PROPPATCH ", "MKCOL ",
	"COPY ",    "MOVE ",  "LOCK ",	"UNLOCK ",   "SEARCH ",
};

static int prefix_probe(const uint8_t *p, uint32_t len, const char *want)
{
	uint32_t n = (uint32_t)strlen(want);

	if (len < n)
		return memcmp(p, want, len) ? 0 : -1;
	return !memcmp(p, want, n);
}

int mk_http_probe_request(const uint8_t *p, uint32_t len)
{
	int more = 0;
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(methods); i++) {
		int v = prefix_probe(p, len, methods[i]);

		if (v > 0)
			return 1;
		if (v < 0)
			more = 1;
	}
	return more ? -1 : 0;
}

int mk_http_probe_response(const uint8_t *p, uint32_t len)
{
	return prefix_probe(p, len, "HTTP/");
}

/* ---- memory ---------------------------------------------------------------------------- */

/* Takes @n bytes for @h; 0, or -1 with the flow marked to stop (counted by the caller). */
static int mem_take(struct mk_http_flow *h, uint64_t n)
{
	const struct mk_app_cfg *c = &h->a->cfg;

	if (h->mem + n > c->http_flow_memcap) {
		if (!h->stop_reason)
			h->stop_reason = MK_APP_CNT_FLOW_MEMCAP;
		return -1;
	}
	if (atomic_fetch_add(&mk_app_http_mem, n) + n > c->http_memcap) {
		atomic_fetch_sub(&mk_app_http_mem, n);
		if (!h->stop_reason)
			h->stop_reason = MK_APP_CNT_MEMCAP;
		return -1;
	}
	h->mem += n;
	return 0;
}

static void mem_give(struct mk_http_flow *h, uint64_t n)
{
	h->mem -= n;
	atomic_fetch_sub(&mk_app_http_mem, n);
}

/* ---- transactions ---------------------------------------------------------------------- */

static void tx_free(struct mk_http_flow *h, struct mk_http_tx *t)
{
	unsigned int i, d;

	for (i = 0; i < MK_BUF_COUNT; i++)
		for (d = 0; d < 2; d++)
			free(t->cache[i][d]);
	free(t->body[0].buf);
	free(t->body[1].buf);
	free(t->file[0]);
	free(t->file[1]);
	mk_detect_tx_state_free(&t->dstate);
	mem_give(h, t->mem);
	h->live--;
	free(t);
}

/*
 * A logged transaction's bodies: only detection read them, and it is done
 * with the transaction; the rest (its EVE facts) stays until tx_gc(), for
 * alerts of this packet. Without this a closed flow would hold its last
 * bodies (up to the body limits) until it times out.
 */
static void tx_shed_bodies(struct mk_http_flow *h, struct mk_http_tx *t)
{
	unsigned int d;

	for (d = 0; d < 2; d++) {
		struct mk_http_body *b = &t->body[d];

		free(b->buf);
		mem_give(h, b->cap);
		t->mem -= b->cap;
		b->buf = NULL;
		b->len = b->cap = 0;
	}
}

/* Our side of libhtp's transaction @tx, made on first sight; NULL when the flow stops. */
static struct mk_http_tx *tx_get(struct mk_http_flow *h, htp_tx_t *tx)
{
	struct mk_http_tx *t = htp_tx_get_user_data(tx);

	if (t || h->stop_reason)
		return t;
	if (h->live >= h->a->cfg.max_tx) {
		h->stop_reason = MK_APP_CNT_TX_LIMIT;
		return NULL;
	}
	if (mem_take(h, TX_BASE_MEM))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		mem_give(h, TX_BASE_MEM);
		return NULL;
	}
	t->mem = TX_BASE_MEM;
	t->htx = tx;
	t->flow = h;
	t->id = tx->index;
	h->live++;
	h->a->cnt[MK_APP_CNT_HTTP_TX]++;
	htp_tx_set_user_data(tx, t);
	return t;
}

/* ---- files (fileinfo) ------------------------------------------------------------------- */

/* Bodies that are files, as Suricata's: every response body, PUT request bodies. */
static int is_file(const htp_tx_t *tx, int to_client)
{
	return to_client || tx->request_method_number == HTP_M_PUT;
}

/* Hashes @len bytes (@p NULL: a gap) of side @d of @t into its file, made on first sight. */
static void file_add(struct mk_http_flow *h, struct mk_http_tx *t, int d, const uint8_t *p,
		     size_t len)
{
	struct mk_http_file *f = t->file[d];

	if (!f) {
		if (mem_take(h, sizeof(*f)))
			return;
		f = calloc(1, sizeof(*f));
		if (!f) {
			mem_give(h, sizeof(*f));
			return;
		}
		t->mem += sizeof(*f);
		md5_init(&f->md5);
		sha1_init(&f->sha1);
		sha256_init(&f->sha256);
		/* digests cost more than the parsing: only for records that show them */
		f->hashes = h->a->files_logged ? h->a->cfg.file_hashes : 0;
		t->file[d] = f;
		h->a->cnt[MK_APP_CNT_HTTP_FILES]++;
	}
	f->size += len;
	if (!p) {
		f->gaps = 1;
		return;
	}
	if (f->hashes & MK_APP_HASH_MD5)
		md5_update(&f->md5, len, p);
	if (f->hashes & MK_APP_HASH_SHA1)
		sha1_update(&f->sha1, len, p);
	if (f->hashes & MK_APP_HASH_SHA256)
		sha256_update(&f->sha256, len, p);
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Content-Disposition's filename parameter (quoted or not) in @out; 0 when there is none. */
static int disposition_filename(const htp_table_t *hdrs, struct mk_eve_str *out)
{
	const htp_header_t *hd = hdrs ? htp_table_get_c(hdrs, "content-disposition") : NULL;
	const uint8_t *p, *end, *s;
	size_t i, n;

	if (!hd || !hd->value)
		return 0;
	p = bstr_ptr(hd->value);
	n = bstr_len(hd->value);
	for (i = 0; i + 9 <= n; i++) {
		if (strncasecmp((const char *)p + i, "filename=", 9) ||
		    (i && p[i - 1] != ' ' && p[i - 1] != ';' && p[i - 1] != '\t'))
			continue;
		s = p + i + 9;
		end = p + n;
		if (s < end && *s == '"') {
			const uint8_t *q = memchr(s + 1, '"', (size_t)(end - s - 1));

			out->p = s + 1;
			out->len = (uint32_t)((q ? q : end) - s - 1);
		} else {
			const uint8_t *q = memchr(s, ';', (size_t)(end - s));

			out->p = s;
			out->len = (uint32_t)((q ? q : end) - s);
		}
		return out->len > 0;
	}
	return 0;
}

/* The fileinfo records of @t's files (the transaction is finished). */
static void files_log(struct mk_app_thread *a, struct mk_http_flow *h, struct mk_http_tx *t,
		      const struct mk_eve_http *ev)
{
	const htp_tx_t *tx = t->htx;
	int d;

	for (d = 0; d < 2; d++) {
		struct mk_http_file *f = t->file[d];
		struct mk_eve_fileinfo out = { .tx_id = t->id, .to_client = (uint8_t)d };
		uint8_t dg[SHA256_DIGEST_SIZE];
		int done;

		if (!f)
			continue;
		done = !t->unfinished[d] && (d ? tx->response_progress >= HTP_RESPONSE_COMPLETE :
						 tx->request_progress >= HTP_REQUEST_COMPLETE);
		out.size = f->size;
		out.gaps = f->gaps;
		out.state = done && !f->gaps ? MK_EVE_FILE_CLOSED : MK_EVE_FILE_TRUNCATED;
		if (out.state != MK_EVE_FILE_CLOSED)
			a->cnt[MK_APP_CNT_HTTP_FILES_TRUNCATED]++;
		if (!disposition_filename(d ? tx->response_headers : tx->request_headers,
					  &out.filename) &&
		    tx->parsed_uri && tx->parsed_uri->path) {
			out.filename.p = bstr_ptr(tx->parsed_uri->path);
			out.filename.len = (uint32_t)bstr_len(tx->parsed_uri->path);
		}
		/* digests of what was seen only: none over a file with holes */
		if (!f->gaps && (f->hashes & MK_APP_HASH_MD5)) {
			md5_digest(&f->md5, MD5_DIGEST_SIZE, dg);
			hex(out.md5, dg, MD5_DIGEST_SIZE);
		}
		if (!f->gaps && (f->hashes & MK_APP_HASH_SHA1)) {
			sha1_digest(&f->sha1, SHA1_DIGEST_SIZE, dg);
			hex(out.sha1, dg, SHA1_DIGEST_SIZE);
		}
		if (!f->gaps && (f->hashes & MK_APP_HASH_SHA256)) {
			sha256_digest(&f->sha256, SHA256_DIGEST_SIZE, dg);
			hex(out.sha256, dg, SHA256_DIGEST_SIZE);
		}
		if (a->ops && a->ops->file_log)
			a->ops->file_log(a->ctx, h->flow, ev, &out);
	}
}

/* Keeps body bytes for inspection, up to the direction's limit; files see them all. */
static int on_body(htp_tx_data_t *d, int to_client)
{
	struct mk_http_flow *h = htp_connp_get_user_data(d->tx->connp);
	struct mk_http_tx *t;
	struct mk_http_body *b;
	uint64_t limit;
	uint32_t take, cap;
	uint8_t *n;

	if (!h || !d->len)
		return HTP_OK;
	t = tx_get(h, d->tx);
	if (!t)
		return HTP_OK;
	if (is_file(d->tx, to_client))
		file_add(h, t, to_client, d->data, d->len);
	if (!d->data)
		return HTP_OK; /* a gap: nothing to inspect */
	b = &t->body[to_client];
	limit = to_client ? h->a->cfg.response_body_limit : h->a->cfg.request_body_limit;
	if (b->cut)
		return HTP_OK;
	take = d->len > limit - b->len ? (uint32_t)(limit - b->len) : (uint32_t)d->len;
	if (take < d->len) {
		b->cut = 1;
		h->a->cnt[to_client ? MK_APP_CNT_RESP_BODY_LIMIT : MK_APP_CNT_REQ_BODY_LIMIT]++;
	}
	if (!take)
		return HTP_OK;
	if (b->len + take > b->cap) {
		cap = b->cap ? b->cap : 1024;
		while (cap < b->len + take)
			cap *= 2;
		if (cap > limit)
			cap = (uint32_t)limit;
		if (mem_take(h, cap - b->cap))
			return HTP_OK;
		n = realloc(b->buf, cap);
		if (!n) {
			mem_give(h, cap - b->cap);
			return HTP_OK;
		}
		t->mem += cap - b->cap;
		b->buf = n;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, d->data, take);
	b->len += take;
	/* progressive inspection: at the minimal size, then every window more */
	if (b->len >= (to_client ? h->a->cfg.response_body_min_inspect :
				   h->a->cfg.request_body_min_inspect) &&
	    (!b->inspected || b->len - b->inspected >= (to_client ? h->a->cfg.response_body_window :
								    h->a->cfg.request_body_window)))
		b->ready = 1;
	return HTP_OK;
}

static int on_req_body(htp_tx_data_t *d)
{
	return on_body(d, 0);
}

static int on_resp_body(htp_tx_data_t *d)
{
	return on_body(d, 1);
}

/* The transaction of direction @dir libhtp is parsing (-1: the request's if any). */
static htp_tx_t *current_tx(htp_connp_t *connp, int dir)
{
	htp_conn_t *conn = htp_connp_get_connection(connp);
	htp_tx_t *tx = dir == 1 ? htp_connp_get_out_tx(connp) : htp_connp_get_in_tx(connp);
	size_t n;

	if (!tx && dir < 0)
		tx = htp_connp_get_out_tx(connp);
	if (!tx && conn && conn->transactions && (n = htp_list_size(conn->transactions)))
		tx = htp_list_get(conn->transactions, n - 1);
	return tx;
}

/* libhtp's messages: counted, and kept as events of the transaction they are about. */
static int on_log(htp_log_t *l)
{
	struct mk_http_flow *h = l->connp ? htp_connp_get_user_data(l->connp) : NULL;
	struct mk_http_tx *t;
	htp_tx_t *tx;
	int ev, dir;

	if (!h || !l->msg)
		return HTP_OK;
	if (!strncmp(l->msg, "Compression bomb", 16))
		h->a->cnt[MK_APP_CNT_COMPRESSION_BOMB]++;
	ev = mk_http_event_of_message(l->msg, &dir);
	if (ev < 0)
		return HTP_OK;
	tx = l->tx ? l->tx : current_tx(l->connp, dir);
	if (ev == MK_HTTP_EV_REQ_HEADER_REPEAT && tx && tx == htp_connp_get_out_tx(l->connp) &&
	    tx != htp_connp_get_in_tx(l->connp))
		ev = MK_HTTP_EV_RESP_HEADER_REPEAT;
	t = tx ? tx_get(h, tx) : NULL;
	if (t && !(t->events & 1ull << ev)) {
		t->events |= 1ull << ev;
		h->a->cnt[MK_APP_CNT_HTTP_EVENTS]++;
	}
	return HTP_OK;
}

/* Request headers done: a compressed body is decompressed (counted once). */
static int on_req_headers(htp_tx_t *tx)
{
	struct mk_http_flow *h = htp_connp_get_user_data(tx->connp);

	if (h && h->a->cfg.request_decompression &&
	    (tx->request_content_encoding == HTP_COMPRESSION_GZIP ||
	     tx->request_content_encoding == HTP_COMPRESSION_DEFLATE))
		h->a->cnt[MK_APP_CNT_REQ_DECOMPRESSED]++;
	return HTP_OK;
}

/* What of @tx is complete, as detection counts it (MK_BUF_SIDE_*). */
static uint8_t tx_progress(const htp_tx_t *tx, const struct mk_http_tx *t, int force)
{
	uint8_t p = 0;

	if (force)
		return MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY | MK_BUF_SIDE_RESP |
		       MK_BUF_SIDE_RESP_BODY;
	if (tx->request_progress > HTP_REQUEST_HEADERS)
		p |= MK_BUF_SIDE_REQ;
	if (tx->request_progress >= HTP_REQUEST_COMPLETE || (t && t->body[0].cut))
		p |= MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY;
	if (tx->response_progress > HTP_RESPONSE_HEADERS)
		p |= MK_BUF_SIDE_RESP;
	if (tx->response_progress >= HTP_RESPONSE_COMPLETE || (t && t->body[1].cut))
		p |= MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY;
	return p;
}

#define ALL_SIDES \
	(MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY | MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY)

/* Hands progressed transactions to detection and finished ones to the EVE writer. */
static void tx_poll(struct mk_app_thread *a, struct mk_http_flow *h, int to_client, int force)
{
	htp_conn_t *conn = htp_connp_get_connection(h->connp);
	size_t i, n;

	if (!conn || !conn->transactions)
		return;
	n = htp_list_size(conn->transactions);
	for (i = h->first; i < n; i++) {
		htp_tx_t *tx = htp_list_get(conn->transactions, i);
		struct mk_http_tx *t;
		uint8_t p, partial;
		int d;

		if (!tx)
			continue;
		t = tx_get(h, tx);
		if (!t || t->logged)
			continue;
		p = tx_progress(tx, t, force);
		/* bodies not complete yet with enough new bytes: inspected as they are */
		partial = 0;
		if (t->body[0].ready && !(p & MK_BUF_SIDE_REQ_BODY))
			partial |= MK_BUF_SIDE_REQ_BODY;
		if (t->body[1].ready && !(p & MK_BUF_SIDE_RESP_BODY))
			partial |= MK_BUF_SIDE_RESP_BODY;
		/* the request line at least: a response alone is finished by the flow's end */
		if ((p != t->progress || partial) && (p & MK_BUF_SIDE_REQ || force)) {
			struct mk_detect_tx dt = {
				.app_proto = MK_APP_HTTP,
				.progress = p | partial,
				.partial = partial,
				.to_client = (uint8_t)to_client,
				.tx_id = t->id,
				.tx = t,
				.state = &t->dstate,
			};

			t->progress = p;
			for (d = 0; d < 2; d++)
				if (t->body[d].ready) {
					t->body[d].ready = 0;
					t->body[d].inspected = t->body[d].len;
					if (partial &
					    (d ? MK_BUF_SIDE_RESP_BODY : MK_BUF_SIDE_REQ_BODY))
						a->cnt[d ? MK_APP_CNT_RESP_BODY_PARTIAL :
							   MK_APP_CNT_REQ_BODY_PARTIAL]++;
				}
			if (a->ops && a->ops->tx)
				a->ops->tx(a->ctx, h->flow, &dt);
		}
		/* logged when done, not when a body reached its limit: files see every byte */
		if (p == ALL_SIDES && (force || (tx->request_progress >= HTP_REQUEST_COMPLETE &&
						 tx->response_progress >= HTP_RESPONSE_COMPLETE))) {
			struct mk_eve_http ev;

			t->logged = 1;
			t->logged_epoch = a->epoch;
			/* a request line cut by a gap or the flow's end: nothing to log */
			if (!tx->request_line && !tx->response_line) {
				tx_shed_bodies(h, t);
				continue;
			}
			a->cnt[MK_APP_CNT_HTTP_LOGGED]++;
			mk_http_tx_eve(t, &ev);
			if (a->ops && a->ops->http_log)
				a->ops->http_log(a->ctx, h->flow, t->id, &ev);
			files_log(a, h, t, &ev);
			tx_shed_bodies(h, t);
		}
	}
}

/* Frees the transactions logged before this packet (alerts of this one may name them). */
static void tx_gc(struct mk_app_thread *a, struct mk_http_flow *h)
{
	htp_conn_t *conn = htp_connp_get_connection(h->connp);
	size_t i, n;

	if (!conn || !conn->transactions)
		return;
	n = htp_list_size(conn->transactions);
	for (i = h->first; i < n; i++) {
		htp_tx_t *tx = htp_list_get(conn->transactions, i);
		struct mk_http_tx *t;

		if (!tx) {
			if (i == h->first)
				h->first++;
			continue;
		}
		t = htp_tx_get_user_data(tx);
		if (!t || !t->logged || t->logged_epoch >= a->epoch)
			break; /* in order: later ones are not older */
		if (htp_tx_destroy(tx) != HTP_OK)
			break;
		tx_free(h, t);
		if (i == h->first)
			h->first++;
	}
}

/* ---- the connection --------------------------------------------------------------------- */

int mk_http_thread_new(struct mk_app_thread *a)
{
	struct mk_http_thread *ht = calloc(1, sizeof(*ht));
	htp_cfg_t *cfg;

	if (!ht)
		return -ENOMEM;
	cfg = htp_config_create();
	if (!cfg) {
		free(ht);
		return -ENOMEM;
	}
	htp_config_set_server_personality(cfg, HTP_SERVER_IDS);
	htp_config_register_request_body_data(cfg, on_req_body);
	htp_config_register_request_headers(cfg, on_req_headers);
	htp_config_register_response_body_data(cfg, on_resp_body);
	htp_config_set_response_decompression(cfg, 1);
	htp_config_set_request_decompression(cfg, a->cfg.request_decompression);
	htp_config_set_lzma_memlimit(cfg, 1u << 20);
	htp_config_set_compression_bomb_limit(cfg, (size_t)a->cfg.compression_bomb_limit);
	htp_config_register_log(cfg, on_log);
	htp_config_set_tx_auto_destroy(cfg, 0);
	ht->cfg = cfg;
	a->http = ht;
	return 0;
}

void mk_http_thread_free(struct mk_app_thread *a)
{
	if (!a->http)
		return;
	htp_config_destroy(a->http->cfg);
	free(a->http);
	a->http = NULL;
}

static void tv_of(uint64_t ts_us, struct timeval *tv)
{
	tv->tv_sec = (time_t)(ts_us / 1000000);
	tv->tv_usec = (suseconds_t)(ts_us % 1000000);
}

struct mk_http_flow *mk_http_flow_new(struct mk_app_thread *a, struct mk_flow *f)
{
	struct mk_http_flow *h = calloc(1, sizeof(*h));
	struct timeval tv = { 0 };

	if (!h)
		return NULL;
	h->a = a;
	h->flow = f;
	if (mem_take(h, FLOW_BASE_MEM)) {
		a->cnt[h->stop_reason]++;
		free(h);
		return NULL;
	}
	h->connp = htp_connp_create(a->http->cfg);
	if (!h->connp) {
		mem_give(h, FLOW_BASE_MEM);
		free(h);
		return NULL;
	}
	tv_of(f->start_us, &tv);
	htp_connp_open(h->connp, NULL, 0, NULL, 0, &tv);
	htp_connp_set_user_data(h->connp, h);
	return h;
}

static void stop(struct mk_http_flow *h, int reason)
{
	if (h->stopped)
		return;
	h->stopped = 1;
	h->a->cnt[reason]++;
}

/* Keeps @len bytes of direction @d for later (libhtp waits for the other side). */
static void hold(struct mk_http_flow *h, int d, const uint8_t *p, uint32_t len)
{
	uint8_t *n;

	if (!len)
		return;
	if (mem_take(h, len))
		return;
	n = malloc(len);
	if (!n) {
		mem_give(h, len);
		return;
	}
	memcpy(n, p, len);
	h->pend[d] = n;
	h->pend_len[d] = len;
}

static void drop_held(struct mk_http_flow *h, int d)
{
	if (!h->pend[d])
		return;
	mem_give(h, h->pend_len[d]);
	free(h->pend[d]);
	h->pend[d] = NULL;
	h->pend_len[d] = 0;
}

/* One call into libhtp; what it did not take is held. */
static void feed(struct mk_http_flow *h, int d, const uint8_t *p, uint32_t len,
		 const struct timeval *tv)
{
	size_t used;
	int rc;

	rc = d ? htp_connp_res_data(h->connp, tv, p, len) :
		 htp_connp_req_data(h->connp, tv, p, len);
	switch (rc) {
	case HTP_STREAM_ERROR:
		stop(h, MK_APP_CNT_HTTP_PARSE_ERROR);
		break;
	case HTP_STREAM_TUNNEL:
		stop(h, MK_APP_CNT_HTTP_TUNNEL);
		break;
	case HTP_STREAM_DATA_OTHER:
		if (!p) {
			stop(h, MK_APP_CNT_HTTP_GAP); /* a gap cannot be held */
			break;
		}
		used = d ? htp_connp_res_data_consumed(h->connp) :
			   htp_connp_req_data_consumed(h->connp);
		if (used < len)
			hold(h, d, p + used, (uint32_t)(len - used));
		break;
	default:
		break;
	}
}

/* ---- gaps ------------------------------------------------------------------------------- */

#define RESYNC_MAX (64u << 10) /* bytes dropped after a gap before giving up */

/*
 * A gap of @gap bytes in direction @d. Inside a body of known length
 * (identity coding, Content-Length) libhtp skips it and the body is marked
 * (its file has gaps); past the body's end, or between messages, the
 * direction resynchronises: bytes are dropped until a line that starts a
 * request (or a response). Anywhere else (a request or status line,
 * headers, a chunked body, a body that ends with the connection, bytes
 * held for the other side) the framing is lost: the flow stops.
 */
static void gap_handle(struct mk_http_flow *h, int d, uint64_t gap, const struct timeval *tv)
{
	htp_tx_t *tx = d ? htp_connp_get_out_tx(h->connp) : htp_connp_get_in_tx(h->connp);
	int64_t cl, seen;
	int progress, coding;

	if (h->pend[d]) {
		stop(h, MK_APP_CNT_HTTP_GAP);
		return;
	}
	if (h->resync[d]) {
		return; /* still looking for a message: the gap changes nothing */
	}
	progress = !tx ? 0 : d ? (int)tx->response_progress : (int)tx->request_progress;
	if (!tx || progress == 0) {
		/* between messages: libhtp holds nothing */
		h->resync[d] = 1;
		h->a->cnt[MK_APP_CNT_HTTP_GAP_RESYNC]++;
		return;
	}
	coding = d ? tx->response_transfer_coding : tx->request_transfer_coding;
	cl = d ? tx->response_content_length : tx->request_content_length;
	seen = d ? tx->response_message_len : tx->request_message_len;
	if (progress != (d ? HTP_RESPONSE_BODY : HTP_REQUEST_BODY) ||
	    coding != HTP_CODING_IDENTITY || cl < 0 || seen >= cl) {
		/* (a body at its end: libhtp may hold the start of the next line) */
		stop(h, MK_APP_CNT_HTTP_GAP);
		return;
	}
	h->a->cnt[MK_APP_CNT_HTTP_GAP_BODY]++;
	if ((uint64_t)(cl - seen) > gap) {
		feed(h, d, NULL, (uint32_t)(gap > UINT32_MAX ? UINT32_MAX : gap), tv);
		return;
	}
	/* the body ends inside the gap: what follows it starts somewhere unknown */
	feed(h, d, NULL, (uint32_t)(cl - seen), tv);
	if (!h->stopped) {
		h->resync[d] = 1;
		h->a->cnt[MK_APP_CNT_HTTP_GAP_RESYNC]++;
	}
}

/* Where in @p a line starts that starts a message of direction @d; -1: none. */
static int64_t message_start(int d, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (i && p[i - 1] != '\n')
			continue;
		if ((d ? mk_http_probe_response(p + i, len - i) :
			 mk_http_probe_request(p + i, len - i)) == 1)
			return i;
	}
	return -1;
}

/* Drops bytes until a message starts; the offset to parse from, or -1 (all dropped). */
static int64_t resync(struct mk_http_flow *h, int d, const uint8_t *p, uint32_t len)
{
	int64_t at = message_start(d, p, len);
	uint32_t drop = at < 0 ? len : (uint32_t)at;

	h->a->cnt[MK_APP_CNT_HTTP_GAP_SKIPPED] += drop;
	h->resync_skipped[d] += drop;
	if (at >= 0) {
		h->resync[d] = 0;
		h->resync_skipped[d] = 0;
		return at;
	}
	if (h->resync_skipped[d] > RESYNC_MAX)
		stop(h, MK_APP_CNT_HTTP_GAP_RESYNC_LIMIT);
	return -1;
}

void mk_http_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_http_flow *h, int to_client,
		  const uint8_t *data, uint32_t len, uint64_t gap, uint64_t ts_us)
{
	struct timeval tv;
	int d = !!to_client;

	(void)f;
	tx_gc(a, h);
	if (h->stopped)
		return;
	tv_of(ts_us, &tv);
	if (gap) {
		gap_handle(h, d, gap, &tv);
		tx_poll(a, h, d, 0);
		if (h->stopped)
			return;
	}
	if (h->resync[d] && len) {
		int64_t at = resync(h, d, data, len);

		if (at < 0)
			return;
		data += at;
		len -= (uint32_t)at;
	}
	if (!len)
		return;
	if (h->pend[d]) {
		/* behind what libhtp did not take yet */
		uint8_t *n;
		uint32_t old = h->pend_len[d];

		if (mem_take(h, len) == 0) {
			n = realloc(h->pend[d], old + len);
			if (n) {
				memcpy(n + old, data, len);
				h->pend[d] = n;
				h->pend_len[d] = old + len;
			} else {
				mem_give(h, len);
			}
		}
	} else {
		feed(h, d, data, len, &tv);
	}
	/* the other side may have waited for these bytes */
	if (!h->stopped && h->pend[!d]) {
		uint8_t *p = h->pend[!d];
		uint32_t n = h->pend_len[!d];

		h->pend[!d] = NULL;
		h->pend_len[!d] = 0;
		feed(h, !d, p, n, &tv);
		mem_give(h, n);
		free(p);
	}
	if (!h->stopped && h->pend[d] && !h->pend[!d]) {
		uint8_t *p = h->pend[d];
		uint32_t n = h->pend_len[d];

		h->pend[d] = NULL;
		h->pend_len[d] = 0;
		feed(h, d, p, n, &tv);
		mem_give(h, n);
		free(p);
	}
	tx_poll(a, h, d, 0);
	if (h->stop_reason)
		stop(h, h->stop_reason);
}

/* Before libhtp closes the connection (which completes what is open): what was not done. */
static void mark_unfinished(struct mk_http_flow *h)
{
	htp_conn_t *conn = htp_connp_get_connection(h->connp);
	size_t i, n;

	if (!conn || !conn->transactions)
		return;
	n = htp_list_size(conn->transactions);
	for (i = h->first; i < n; i++) {
		htp_tx_t *tx = htp_list_get(conn->transactions, i);
		struct mk_http_tx *t = tx ? htp_tx_get_user_data(tx) : NULL;

		if (!t)
			continue;
		t->unfinished[0] = tx->request_progress < HTP_REQUEST_COMPLETE;
		t->unfinished[1] = tx->response_progress < HTP_RESPONSE_COMPLETE;
	}
}

void mk_http_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_http_flow *h,
		      uint64_t ts_us)
{
	struct timeval tv;

	(void)f;
	tx_gc(a, h);
	tv_of(ts_us, &tv);
	mark_unfinished(h);
	if (!h->stopped)
		htp_connp_close(h->connp, &tv);
	tx_poll(a, h, 1, 1);
}

void mk_http_flow_free(struct mk_app_thread *a, struct mk_http_flow *h)
{
	htp_conn_t *conn = htp_connp_get_connection(h->connp);
	size_t i, n;

	(void)a;
	if (conn && conn->transactions) {
		n = htp_list_size(conn->transactions);
		for (i = 0; i < n; i++) {
			htp_tx_t *tx = htp_list_get(conn->transactions, i);
			struct mk_http_tx *t = tx ? htp_tx_get_user_data(tx) : NULL;

			if (t) {
				htp_tx_set_user_data(tx, NULL);
				tx_free(h, t);
			}
		}
	}
	htp_connp_destroy_all(h->connp);
	drop_held(h, 0);
	drop_held(h, 1);
	mem_give(h, h->mem);
	free(h);
}
