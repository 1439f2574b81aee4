// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: TLS (userspace/applayer/tls/) and its EVE record. The
 * input is a dialogue: records of [direction+gap byte][length byte][bytes]
 * fed as reassembled TCP chunks (recognition first, so inputs that do not
 * start like TLS stop early); the hello decoders also run on the whole
 * input. Every session handed over renders as an EVE tls record that must
 * be valid JSON within the size mk_eve_tls_maxlen promises; so does the
 * session as detection sees it at each step (an alert's tls object).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect.h"
#include "eve_tls.h"
#include "fuzz.h"
#include "tls.h"
#include "tls_hello.h"

static void on_tls(void *ctx, struct mk_flow *f, const struct mk_tls_info *t)
{
	size_t need = mk_eve_tls_maxlen(t) + 2048;
	char *line = malloc(need);
	json_error_t jerr;
	json_t *j;
	int n;

	(void)ctx;
	if (!line)
		return;
	n = mk_eve_tls(line, need, NULL, f, 1, t);
	CHECK(n > 0 && (size_t)n < need);
	j = json_loadb(line, (size_t)n, 0, &jerr);
	CHECK(j != NULL);
	json_decref(j);
	free(line);
}

static void on_tx(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	const struct mk_tls_info *t = tx->tx;
	json_error_t jerr;
	size_t need;
	char *obj;
	json_t *j;
	int n;

	(void)ctx;
	(void)f;
	if (tx->app_proto != MK_APP_TLS)
		return; /* the input made an HTTP flow */
	need = mk_eve_tls_maxlen(t);
	obj = malloc(need + 2);
	CHECK(t->events < 1u << MK_TLS_EV_MAX);
	CHECK(!t->has_validity || t->notbefore[0]);
	if (!obj)
		return;
	obj[0] = '{';
	n = mk_eve_tls_object(obj + 1, need, t);
	CHECK(n > 0 && (size_t)n < need);
	obj[n + 1] = '}';
	j = json_loadb(obj, (size_t)n + 2, 0, &jerr);
	CHECK(j != NULL);
	json_decref(j);
	free(obj);
}

static const struct mk_app_ops ops = { .tls_log = on_tls, .tx = on_tx };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mk_tls_hello h;
	struct cursor c = { data, data + size };
	char ja[MK_TLS_JA3_MAX], ja4[MK_TLS_JA4_LEN];
	struct mk_app_thread *a;
	struct mk_flow f;

	if (!mk_tls_client_hello(data, size, &h)) {
		mk_tls_ja3(&h, 0, ja, sizeof(ja));
		mk_tls_ja4(&h, ja4);
	}
	if (!mk_tls_server_hello(data, size, &h))
		mk_tls_ja3(&h, 1, ja, sizeof(ja));
	if (mk_app_thread_new(NULL, &ops, NULL, &a))
		return 0;
	memset(&f, 0, sizeof(f));
	f.key.proto = 6;
	while (c.p < c.end) {
		uint8_t how = take8(&c);
		uint32_t len = take8(&c);

		if (len > (uint32_t)(c.end - c.p))
			len = (uint32_t)(c.end - c.p);
		mk_app_stream(a, &f, how & 1, c.p, len, (how & 0x80) && (how & 0x40), 1000);
		c.p += len;
		mk_app_packet_end(a);
	}
	mk_app_flow_end(a, &f, 2000);
	mk_app_flow_free(a, &f);
	mk_app_thread_free(a);
	return 0;
}
