// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the application layer's HTTP glue (userspace/applayer/).
 * The input is a dialogue: records of [direction+gap byte][length byte][bytes]
 * fed as reassembled chunks; every buffer of every progressed transaction is
 * read, every finished one rendered as an EVE http record, and the flow is
 * ended and freed. Invariants: buffers are readable as long as they say,
 * records are valid lengths.
 */
#include <string.h>
#include "applayer.h"
#include "detect.h"
#include "detect_buf.h"
#include "eve_file.h"
#include "eve_http.h"
#include "fuzz.h"
#include "http.h"

static void on_tx(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	volatile uint8_t sink = 0;
	const uint8_t *p;
	uint32_t len, i;

	(void)ctx;
	(void)f;
	/* an input may make flows of other protocols too: their transactions are not HTTP's */
	if (tx->app_proto != MK_APP_HTTP)
		return;
	for (unsigned int id = 1; id < MK_BUF_COUNT; id++)
		for (int d = 0; d < 2; d++)
			if (mk_buf_protos[id] == MK_APP_HTTP &&
			    mk_http_tx_buffer(tx->tx, id, d, &p, &len))
				for (i = 0; i < len; i++)
					sink ^= p[i];
	(void)sink;
}

static void on_log(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_eve_http *h)
{
	static char line[1 << 16];
	size_t need = mk_eve_http_maxlen(h) + 2048;
	int n;

	(void)ctx;
	if (need > sizeof(line))
		return;
	n = mk_eve_http(line, need, NULL, f, 1, tx_id, h);
	CHECK(n > 0 && (size_t)n < need);
}

static void on_file(void *ctx, struct mk_flow *f, const struct mk_eve_http *h,
		    const struct mk_eve_fileinfo *file)
{
	char line[8192];
	size_t need = mk_eve_fileinfo_maxlen(h, file);
	int n;

	(void)ctx;
	if (need > sizeof(line))
		return;
	n = mk_eve_fileinfo(line, need, NULL, f, 1, h, file);
	CHECK(n > 0 && (size_t)n < need);
}

static const struct mk_app_ops ops = { .tx = on_tx, .http_log = on_log, .file_log = on_file };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, data + size };
	struct mk_app_thread *a;
	struct mk_app_cfg cfg;
	struct mk_flow f;

	mk_app_cfg_default(&cfg);
	cfg.request_body_limit = 512;
	cfg.response_body_limit = 512;
	cfg.max_tx = 16;
	if (mk_app_thread_new(&cfg, &ops, NULL, &a))
		return 0;
	mk_app_set_files_logged(a, 1);
	memset(&f, 0, sizeof(f));
	f.key.proto = 6;
	while (c.p < c.end) {
		uint8_t how = take8(&c);
		uint32_t len = take8(&c);

		if (len > (uint32_t)(c.end - c.p))
			len = (uint32_t)(c.end - c.p);
		/* bits 6-7 set: a gap before the chunk, of 1 to 16 bytes (bits 2-5) */
		mk_app_stream(a, &f, how & 1, c.p, len,
			      (how & 0xc0) == 0xc0 ? 1u + ((how >> 2) & 15) : 0, 1000);
		c.p += len;
		if (how & 2)
			mk_app_packet_end(a);
	}
	mk_app_flow_end(a, &f, 2000);
	mk_app_flow_free(a, &f);
	mk_app_thread_free(a);
	return 0;
}
