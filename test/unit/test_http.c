// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP glue (userspace/applayer/): recognition, pipelined requests,
 * a chunked gzip response reaching file.data, and truncated or odd input
 * at every split point (never a crash, everything freed).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "applayer.h"
#include "applayer_int.h"
#include "detect.h"
#include "detect_buf.h"
#include "eve_file.h"
#include "eve_http.h"
#include "http.h"

struct seen {
	int ntx_updates, nlogged, nfiles;
	uint8_t req_body[4096];
	uint32_t req_body_len;
	int npartial;		 /* updates with a partial response body */
	uint64_t events[8];	 /* app-layer events by tx_id, as last handed to detection */
	uint32_t partial_len[8]; /* its length each time */
	char urls[8][64];
	int status[8];
	uint8_t body[4096];
	uint32_t body_len;
	struct mk_eve_fileinfo files[8];
	char filenames[8][64];
	char lines[8][4096];
};

static void on_tx(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	struct seen *s = ctx;
	const uint8_t *p;
	uint32_t len;

	(void)f;
	s->ntx_updates++;
	if (tx->tx_id < 8)
		s->events[tx->tx_id] = mk_http_tx_events(tx->tx);
	if ((tx->partial & MK_BUF_SIDE_RESP_BODY) &&
	    mk_http_tx_buffer(tx->tx, MK_BUF_FILE_DATA, 1, &p, &len)) {
		cr_assert(tx->progress & MK_BUF_SIDE_RESP_BODY);
		if (s->npartial < 8)
			s->partial_len[s->npartial] = len;
		s->npartial++;
	}
	/* every buffer of every side: never a crash, whatever the progress */
	for (unsigned int id = 1; id < MK_BUF_COUNT; id++)
		for (int d = 0; d < 2; d++)
			if (mk_http_tx_buffer(tx->tx, id, d, &p, &len) && len)
				cr_assert_not_null(p);
	if ((tx->progress & MK_BUF_SIDE_REQ_BODY) &&
	    mk_http_tx_buffer(tx->tx, MK_BUF_HTTP_REQUEST_BODY, 0, &p, &len) &&
	    len <= sizeof(s->req_body)) {
		memcpy(s->req_body, p, len);
		s->req_body_len = len;
	}
	if ((tx->progress & MK_BUF_SIDE_RESP_BODY) &&
	    mk_http_tx_buffer(tx->tx, MK_BUF_FILE_DATA, 1, &p, &len) && len <= sizeof(s->body)) {
		memcpy(s->body, p, len);
		s->body_len = len;
	}
}

static void on_log(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_eve_http *h)
{
	struct seen *s = ctx;
	char line[4096];

	cr_assert(mk_eve_http(line, sizeof(line), NULL, f, 1, tx_id, h) > 0);
	if (s->nlogged < 8) {
		snprintf(s->urls[s->nlogged], sizeof(s->urls[0]), "%.*s", (int)h->url.len,
			 h->url.p ? (const char *)h->url.p : "");
		s->status[s->nlogged] = h->status;
	}
	s->nlogged++;
}

static void on_file(void *ctx, struct mk_flow *f, const struct mk_eve_http *h,
		    const struct mk_eve_fileinfo *file)
{
	struct seen *s = ctx;
	char line[4096];

	cr_assert(mk_eve_fileinfo(line, sizeof(line), NULL, f, 1, h, file) > 0);
	if (s->nfiles < 8) {
		s->files[s->nfiles] = *file;
		snprintf(s->filenames[s->nfiles], sizeof(s->filenames[0]), "%.*s",
			 (int)file->filename.len,
			 file->filename.p ? (const char *)file->filename.p : "");
		strcpy(s->lines[s->nfiles], line);
	}
	s->nfiles++;
}

static const struct mk_app_ops ops = { .tx = on_tx, .http_log = on_log, .file_log = on_file };

struct run {
	struct mk_app_thread *a;
	struct mk_flow f;
	struct seen s;
};

static void run_new(struct run *r, const struct mk_app_cfg *cfg)
{
	memset(r, 0, sizeof(*r));
	cr_assert_eq(mk_app_thread_new(cfg, &ops, &r->s, &r->a), 0);
	mk_app_set_files_logged(r->a, 1); /* the tests read the fileinfo digests */
	r->f.key.proto = 6;
}

static void run_data(struct run *r, int to_client, const void *p, size_t len)
{
	mk_app_stream(r->a, &r->f, to_client, p, (uint32_t)len, 0, 1000);
	mk_app_packet_end(r->a);
}

static void run_free(struct run *r)
{
	mk_app_flow_end(r->a, &r->f, 2000);
	mk_app_flow_free(r->a, &r->f);
	mk_app_thread_free(r->a);
	cr_assert_null(r->f.app);
}

#define REQ1 "GET /a HTTP/1.1\r\nHost: x.example\r\nUser-Agent: t\r\n\r\n"
#define REQ2 "GET /b?q=1 HTTP/1.1\r\nHost: x.example\r\n\r\n"
#define RESP1 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
#define RESP2 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"

Test(http, pipelined_requests_make_two_transactions)
{
	struct run r;

	run_new(&r, NULL);
	run_data(&r, 0, REQ1 REQ2, strlen(REQ1 REQ2));
	cr_assert_eq(r.f.app_proto, MK_APP_HTTP);
	run_data(&r, 1, RESP1 RESP2, strlen(RESP1 RESP2));
	cr_assert_eq(r.s.nlogged, 2);
	cr_assert_str_eq(r.s.urls[0], "/a");
	cr_assert_str_eq(r.s.urls[1], "/b?q=1");
	cr_assert_eq(r.s.status[0], 200);
	cr_assert_eq(r.s.status[1], 404);
	run_free(&r);
}

Test(http, recognition_ignores_ports_and_refuses_other_bytes)
{
	struct run r;

	run_new(&r, NULL);
	run_data(&r, 0, "SSH-2.0-x\r\n", 11);
	run_data(&r, 1, "SSH-2.0-y\r\n", 11);
	cr_assert_eq(r.f.app_proto, MK_APP_FAILED);
	run_free(&r);
	/* midstream: the response side alone is enough; bytes arrive one at a time */
	run_new(&r, NULL);
	for (size_t i = 0; i < strlen(RESP1); i++)
		run_data(&r, 1, RESP1 + i, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_HTTP);
	run_free(&r);
}

static size_t gzip(const char *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream z = { 0 };

	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	deflateEnd(&z);
	return cap - z.avail_out;
}

Test(http, chunked_gzip_body_reaches_file_data)
{
	static const char text[] = "the quick brown fox jumps over the lazy dog, twice: "
				   "the quick brown fox jumps over the lazy dog";
	uint8_t gz[512], resp[2048];
	size_t n = gzip(text, strlen(text), gz, sizeof(gz)), o, half = n / 2;
	struct run r;

	o = (size_t)snprintf((char *)resp, sizeof(resp),
			     "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
			     "Transfer-Encoding: chunked\r\n\r\n%zx\r\n",
			     half);
	memcpy(resp + o, gz, half);
	o += half;
	o += (size_t)snprintf((char *)resp + o, sizeof(resp) - o, "\r\n%zx\r\n", n - half);
	memcpy(resp + o, gz + half, n - half);
	o += n - half;
	o += (size_t)snprintf((char *)resp + o, sizeof(resp) - o, "\r\n0\r\n\r\n");
	run_new(&r, NULL);
	run_data(&r, 0, REQ1, strlen(REQ1));
	run_data(&r, 1, resp, o);
	cr_assert_eq(r.s.nlogged, 1);
	cr_assert_eq(r.s.body_len, strlen(text));
	cr_assert_eq(memcmp(r.s.body, text, r.s.body_len), 0);
	/* the file: the decompressed bytes, hashed (sha256sum of the text) */
	cr_assert_eq(r.s.nfiles, 1);
	cr_assert_eq(r.s.files[0].size, strlen(text));
	cr_assert_eq(r.s.files[0].state, MK_EVE_FILE_CLOSED);
	cr_assert_str_eq(r.s.filenames[0], "/a");
	cr_assert_str_eq(r.s.files[0].sha256,
			 "ca8cebdc1f5283e62e7ebc47ce1308cbe7a9956b856d8cb699cbebe6209a8b0e");
	cr_assert_str_empty(r.s.files[0].md5);
	run_free(&r);
}

Test(http, fileinfo_names_hashes_and_truncation)
{
	static const char put[] =
		"PUT /up/a.bin HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc";
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Disposition: attachment; "
				   "filename=\"r e.txt\"\r\nContent-Length: 3\r\n\r\nabc";
	struct mk_app_cfg c;
	struct run r;

	mk_app_cfg_default(&c);
	c.file_hashes = MK_APP_HASH_MD5 | MK_APP_HASH_SHA1 | MK_APP_HASH_SHA256;
	run_new(&r, &c);
	run_data(&r, 0, put, strlen(put));
	run_data(&r, 1, resp, strlen(resp));
	cr_assert_eq(r.s.nfiles, 2);
	cr_assert_str_eq(r.s.filenames[0], "/up/a.bin");
	cr_assert_eq(r.s.files[0].to_client, 0);
	cr_assert_str_eq(r.s.filenames[1], "r e.txt");
	cr_assert_eq(r.s.files[1].to_client, 1);
	cr_assert_str_eq(r.s.files[1].md5, "900150983cd24fb0d6963f7d28e17f72");
	cr_assert_str_eq(r.s.files[1].sha1, "a9993e364706816aba3e25717850c26c9cd0d89d");
	cr_assert_str_eq(r.s.files[1].sha256,
			 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	cr_assert(strstr(r.s.lines[1], "\"event_type\":\"fileinfo\""));
	cr_assert(strstr(r.s.lines[1],
			 "\"app_proto\":\"http\",\"fileinfo\":{\"filename\":"
			 "\"r e.txt\",\"sid\":[],\"gaps\":false,\"state\":\"CLOSED\""));
	cr_assert(strstr(r.s.lines[1], "\"stored\":false,\"size\":3,\"tx_id\":0}}"));
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_HTTP_FILES], 2);
	run_free(&r);
	/* the flow ends inside the body: TRUNCATED, counted */
	run_new(&r, NULL);
	run_data(&r, 0, REQ1, strlen(REQ1));
	run_data(&r, 1, resp, strlen(resp) - 1);
	cr_assert_eq(r.s.nfiles, 0);
	mk_app_flow_end(r.a, &r.f, 2000);
	cr_assert_eq(r.s.nfiles, 1);
	cr_assert_eq(r.s.files[0].state, MK_EVE_FILE_TRUNCATED);
	cr_assert_eq(r.s.files[0].size, 2);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_HTTP_FILES_TRUNCATED], 1);
	run_free(&r);
}

/* A 72 KiB response body in 4 KiB pieces: inspected at 40, 56 and 72 KiB before it ends. */
Test(http, response_body_inspected_as_it_arrives)
{
	static char piece[4096];
	char head[128];
	struct run r;
	int i;

	memset(piece, 'z', sizeof(piece));
	run_new(&r, NULL);
	run_data(&r, 0, REQ1, strlen(REQ1));
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n",
		 18 * 4096 + 1);
	run_data(&r, 1, head, strlen(head));
	for (i = 0; i < 18; i++)
		run_data(&r, 1, piece, sizeof(piece));
	cr_assert_eq(r.s.nlogged, 0);
	cr_assert_eq(r.s.npartial, 3);
	cr_assert_eq(r.s.partial_len[0], 40 * 1024);
	cr_assert_eq(r.s.partial_len[1], 56 * 1024);
	cr_assert_eq(r.s.partial_len[2], 72 * 1024);
	run_data(&r, 1, "!", 1);
	cr_assert_eq(r.s.nlogged, 1);
	cr_assert_eq(r.s.npartial, 3, "the complete body is not partial");
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_RESP_BODY_PARTIAL], 3);
	run_free(&r);
}

/*
 * A logged transaction gives its bodies back at once: a flow that stays
 * open (or closed, waiting for its timeout) holds no body of a finished
 * transaction against the HTTP memcap.
 */
Test(http, logged_transactions_give_their_bodies_back)
{
	static char piece[4096];
	char head[128];
	struct run r;
	uint64_t during;
	int i;

	memset(piece, 'z', sizeof(piece));
	run_new(&r, NULL);
	run_data(&r, 0, REQ1, strlen(REQ1));
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", 16 * 4096);
	run_data(&r, 1, head, strlen(head));
	for (i = 0; i < 15; i++)
		run_data(&r, 1, piece, sizeof(piece));
	during = mk_app_http_mem;
	cr_assert_gt(during, 15 * 4096, "the body is held while it arrives: %llu",
		     (unsigned long long)during);
	run_data(&r, 1, piece, sizeof(piece));
	cr_assert_eq(r.s.nlogged, 1);
	cr_assert_lt(mk_app_http_mem, 32 * 1024, "after the log: %llu bytes held",
		     (unsigned long long)mk_app_http_mem);
	run_free(&r);
	cr_assert_eq(mk_app_http_mem, 0);
}

/* gzip and deflate request bodies reach http.request_body decompressed; a bomb is cut, counted. */
Test(http, request_bodies_decompressed_and_bombs_cut)
{
	static const char text[] = "user=admin&pass=hunter2&note=the quick brown fox";
	static uint8_t zeros[4 << 20], out[64 << 10];
	uint8_t gz[512], req[1024];
	size_t n = gzip(text, strlen(text), gz, sizeof(gz)), o;
	const uint64_t *c;
	struct mk_app_cfg cfg;
	struct run r;

	o = (size_t)snprintf((char *)req, sizeof(req),
			     "POST /p HTTP/1.1\r\nHost: h\r\nContent-Encoding: gzip\r\n"
			     "Content-Length: %zu\r\n\r\n",
			     n);
	memcpy(req + o, gz, n);
	run_new(&r, NULL);
	run_data(&r, 0, req, o + n);
	run_data(&r, 1, RESP1, strlen(RESP1));
	cr_assert_eq(r.s.req_body_len, strlen(text));
	cr_assert_eq(memcmp(r.s.req_body, text, r.s.req_body_len), 0);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_REQ_DECOMPRESSED], 1);
	run_free(&r);
	/* off: the bytes as sent */
	mk_app_cfg_default(&cfg);
	cfg.request_decompression = 0;
	run_new(&r, &cfg);
	run_data(&r, 0, req, o + n);
	run_data(&r, 1, RESP1, strlen(RESP1));
	cr_assert_eq(r.s.req_body_len, n);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_REQ_DECOMPRESSED], 0);
	run_free(&r);
	/* 4 MiB of zeros in a few kB: decompression stops at the 1 MiB bomb limit */
	n = gzip((const char *)zeros, sizeof(zeros), out, sizeof(out));
	o = (size_t)snprintf((char *)req, sizeof(req),
			     "POST /bomb HTTP/1.1\r\nHost: h\r\nContent-Encoding: gzip\r\n"
			     "Content-Length: %zu\r\n\r\n",
			     n);
	run_new(&r, NULL);
	run_data(&r, 0, req, o);
	run_data(&r, 0, out, n);
	run_data(&r, 1, RESP1, strlen(RESP1));
	c = mk_app_thread_counters(r.a);
	cr_assert_eq(c[MK_APP_CNT_COMPRESSION_BOMB], 1);
	cr_assert_eq(c[MK_APP_CNT_REQ_DECOMPRESSED], 1);
	run_free(&r);
}

static uint64_t ev_bit(const char *name)
{
	uint8_t side;
	int id = mk_http_event_lookup(name, &side);

	cr_assert_geq(id, 0, "%s", name);
	return 1ull << id;
}

/* libhtp's anomalies become the transaction's events (app-layer-event). */
Test(http, anomalies_are_transaction_events)
{
	static const struct {
		const char *req, *resp, *event;
	} cases[] = {
		{ "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: "
		  "chunked\r\n\r\n0\r\n\r\n",
		  RESP1, "request_smuggling" },
		{ "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n"
		  "12345",
		  RESP1, "duplicate_content_length_field_in_request" },
		{ "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", RESP1,
		  "invalid_transfer_encoding_value_in_request" },
		{ "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", RESP1,
		  "invalid_request_chunk_len" },
		{ "GET /a HTTP/1.1\r\n\r\n", RESP1, "missing_host_header" },
		{ "GET /a HTTP/1.1\r\nHost h\r\n\r\n", RESP1, "request_field_missing_colon" },
		{ "XYZ\r\n\r\n", RESP1, "request_line_invalid" },
		{ REQ1, "HTTP/1.1 200 OK\r\nServer x\r\nContent-Length: 0\r\n\r\n",
		  "response_field_missing_colon" },
		{ REQ1, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		  "invalid_response_chunk_len" },
	};
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		struct run r;

		run_new(&r, NULL);
		run_data(&r, 0, cases[i].req, strlen(cases[i].req));
		run_data(&r, 1, cases[i].resp, strlen(cases[i].resp));
		mk_app_flow_end(r.a, &r.f, 2000);
		cr_assert(r.s.events[0] & ev_bit(cases[i].event), "case %zu: no %s (events %llx)",
			  i, cases[i].event, (unsigned long long)r.s.events[0]);
		run_free(&r);
	}
	/* a clean transaction has none */
	{
		struct run r;

		run_new(&r, NULL);
		run_data(&r, 0, REQ1, strlen(REQ1));
		run_data(&r, 1, RESP1, strlen(RESP1));
		cr_assert_eq(r.s.events[0], 0);
		run_free(&r);
	}
}

Test(http, limits_stop_parsing_and_count)
{
	struct mk_app_cfg c;
	struct run r;

	mk_app_cfg_default(&c);
	c.max_tx = 1;
	run_new(&r, &c);
	run_data(&r, 0, REQ1 REQ2 REQ1, strlen(REQ1 REQ2 REQ1));
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_TX_LIMIT], 1);
	run_free(&r);
	/* a gap inside a request line stops the flow's parsing */
	run_new(&r, NULL);
	run_data(&r, 0, REQ1, 5);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)REQ2, strlen(REQ2), 1, 1000);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_HTTP_GAP], 1);
	run_free(&r);
}

/*
 * A gap of 1, 7 or 25 bytes at every offset of one direction of a
 * three-transaction dialogue (the middle one with a 20-byte body): never a
 * crash; a gap wholly inside the body is skipped (all three logged, the
 * file marked), one between messages resynchronises on the next message
 * line, one in a line or headers stops the flow; every gap is counted once.
 */
static void gap_at_every_offset(int d)
{
	static const char req[] = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
				  "PUT /b HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\n\r\n"
				  "0123456789abcdefghij"
				  "GET /c HTTP/1.1\r\nHost: h\r\n\r\n";
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
				   "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"
				   "0123456789abcdefghij"
				   "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
	static const size_t gaps[] = { 1, 7, 25 };
	const char *m = d ? resp : req, *other = d ? req : resp;
	size_t n = strlen(m), body_end = (size_t)(strstr(m, "ghij") + 4 - m);
	size_t body_start = body_end - 20, s, gi;

	for (gi = 0; gi < MK_ARRAY_SIZE(gaps); gi++) {
		for (s = 0; s + gaps[gi] <= n; s++) {
			size_t g = gaps[gi];
			const uint64_t *c;
			struct run r;
			int i;

			run_new(&r, NULL);
			if (d)
				run_data(&r, 0, other, strlen(other));
			run_data(&r, d, m, s);
			mk_app_stream(r.a, &r.f, d, (const uint8_t *)m + s + g,
				      (uint32_t)(n - s - g), g, 1000);
			mk_app_packet_end(r.a);
			if (!d)
				run_data(&r, 1, other, strlen(other));
			c = mk_app_thread_counters(r.a);
			if (s == 0) {
				/* the gap came first: recognition (requests) or parsing starts
				 * at the next message line */
				cr_assert_eq(c[MK_APP_CNT_HTTP_GAP_RESYNC], d);
				cr_assert_eq(c[MK_APP_CNT_HTTP_GAP], 0);
			} else if (s >= body_start && s + g <= body_end) {
				cr_assert_eq(c[MK_APP_CNT_HTTP_GAP_BODY], 1, "d %d s %zu g %zu", d,
					     s, g);
				cr_assert_eq(c[MK_APP_CNT_HTTP_GAP], 0);
				cr_assert_eq(c[MK_APP_CNT_HTTP_GAP_RESYNC], s + g == body_end,
					     "d %d s %zu g %zu", d, s, g);
				if (s + g < body_end) {
					cr_assert_eq(r.s.nlogged, 3, "d %d s %zu g %zu", d, s, g);
					cr_assert_str_eq(r.s.urls[2], "/c");
				}
				cr_assert(r.s.nfiles >= 1);
				for (i = 0; i < r.s.nfiles && i < 8; i++)
					if (r.s.files[i].tx_id == 1 &&
					    r.s.files[i].to_client == d) {
						cr_assert(r.s.files[i].gaps);
						cr_assert_eq(r.s.files[i].state,
							     MK_EVE_FILE_TRUNCATED);
						cr_assert_str_empty(r.s.files[i].sha256);
					}
			} else {
				cr_assert_eq(c[MK_APP_CNT_HTTP_GAP] + c[MK_APP_CNT_HTTP_GAP_BODY] +
						     c[MK_APP_CNT_HTTP_GAP_RESYNC],
					     /* before "GET " decided, recognition restarts */
					     !d && s < 4 ? 0 :
							   1 + (s >= body_start && s < body_end &&
								s + g > body_end),
					     "d %d s %zu g %zu", d, s, g);
			}
			run_free(&r);
		}
	}
}

Test(http, gap_between_requests_resumes_at_the_next_request_line)
{
	static const char junk[] = "e: x\r\n\r\nmore junk\r\n";
	struct run r;

	run_new(&r, NULL);
	run_data(&r, 0, REQ1, strlen(REQ1));
	/* a lost request, and its last bytes seen after the gap: dropped up to REQ2 */
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)junk, strlen(junk), 40, 1000);
	run_data(&r, 0, REQ2, strlen(REQ2));
	run_data(&r, 1, RESP1 RESP2, strlen(RESP1 RESP2));
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_HTTP_GAP_RESYNC], 1);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_HTTP_GAP_SKIPPED], strlen(junk));
	cr_assert_eq(r.s.nlogged, 2);
	cr_assert_str_eq(r.s.urls[0], "/a");
	cr_assert_str_eq(r.s.urls[1], "/b?q=1");
	run_free(&r);
}

Test(http, gap_in_requests_at_every_offset)
{
	gap_at_every_offset(0);
}

Test(http, gap_in_responses_at_every_offset)
{
	gap_at_every_offset(1);
}

/* Every split point of a dialogue, cut short at every length: no crash, no leak. */
Test(http, truncated_and_odd_input_never_crashes)
{
	static const char *const odd[] = {
		"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\nx",
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"GET /\x00\xff HTTP/9.9\r\n\r\n",
		"CONNECT a:443 HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost:\r\n :folded\r\n\r\n",
	};
	static const char req[] = "POST /p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n"
				  "Content-Length: 4\r\n\r\nbody";
	static const char resp[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
				   "Transfer-Encoding: chunked\r\nContent-Encoding: deflate\r\n\r\n"
				   "5\r\nxxxxx\r\n0\r\n\r\n";
	struct run r;
	size_t cut, i;

	for (cut = 0; cut <= strlen(req); cut++) {
		run_new(&r, NULL);
		run_data(&r, 0, req, cut);
		run_data(&r, 1, resp, strlen(resp) * cut / strlen(req));
		run_data(&r, 0, req + cut, strlen(req) - cut);
		run_free(&r);
	}
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		run_new(&r, NULL);
		run_data(&r, 0, odd[i], strlen(odd[i]) + (i == 2 ? 4 : 0));
		run_data(&r, 1, "HTTP/1.1 200 OK\r\n\r\n", 19);
		run_data(&r, 0, odd[i], strlen(odd[i]));
		run_free(&r);
	}
}
