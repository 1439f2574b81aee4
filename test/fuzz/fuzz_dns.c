// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: DNS (userspace/applayer/dns/) and its EVE records. The
 * first byte picks UDP or TCP and the ports (53 or not); then records of
 * [direction+gap byte][length byte][bytes], fed as UDP payloads or as
 * reassembled TCP chunks. Every message handed over renders as an EVE dns
 * record that must be valid JSON within the size mk_eve_dns_maxlen
 * promises; the decoder is also run alone on the whole input. Every
 * transaction handed to detection renders as an alert's dns object (query
 * records, the answer) that must be valid JSON within its promised size.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect.h"
#include "dns.h"
#include "dns_msg.h"
#include "eve_dns.h"
#include "fuzz.h"

static void on_dns(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_dns_msg *m)
{
	size_t need = mk_eve_dns_maxlen(m) + 2048;
	char *line = malloc(need);
	json_error_t jerr;
	unsigned int q;
	json_t *j;
	int n;

	(void)ctx;
	if (!line)
		return;
	for (q = 0; q < (m->nq ? m->nq : 1u); q++) {
		n = mk_eve_dns(line, need, NULL, f, 1, m, q, tx_id);
		CHECK(n > 0 && (size_t)n < need);
		j = json_loadb(line, (size_t)n, 0, &jerr);
		CHECK(j != NULL);
		json_decref(j);
	}
	free(line);
}

static void on_tx(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	const struct mk_dns_tx *t = tx->tx;
	json_error_t jerr;
	size_t need;
	char *obj;
	json_t *j;
	int n;

	(void)ctx;
	(void)f;
	if (tx->app_proto != MK_APP_DNS)
		return; /* the input made an HTTP flow */
	need = mk_eve_dns_alert_maxlen(t->m) + 2;
	obj = malloc(need);
	CHECK(t->events < 1u << MK_DNS_EV_MAX);
	if (!obj)
		return;
	obj[0] = '{';
	n = mk_eve_dns_alert_object(obj + 1, need - 2, t->m, t->tx_id);
	CHECK(n > 0 && (size_t)n < need - 2);
	obj[n + 1] = '}';
	j = json_loadb(obj, (size_t)n + 2, 0, &jerr);
	CHECK(j != NULL);
	json_decref(j);
	free(obj);
}

static const struct mk_app_ops ops = { .dns_log = on_dns, .tx = on_tx };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mk_dns_msg m;
	struct cursor c = { data, data + size };
	struct mk_app_thread *a;
	struct mk_flow f;
	uint8_t mode;

	mk_dns_decode(data, size, &m);
	if (mk_app_thread_new(NULL, &ops, NULL, &a))
		return 0;
	mode = take8(&c);
	memset(&f, 0, sizeof(f));
	f.key.proto = mode & 1 ? 6 : 17;
	f.key.port_lo = htons(40000);
	f.key.port_hi = htons(mode & 2 ? 53 : 5353);
	while (c.p < c.end) {
		uint8_t how = take8(&c);
		uint32_t len = take8(&c);

		if (len > (uint32_t)(c.end - c.p))
			len = (uint32_t)(c.end - c.p);
		if (f.key.proto == 6)
			mk_app_stream(a, &f, how & 1, c.p, len, (how & 0x80) && (how & 0x40), 1000);
		else
			mk_app_udp(a, &f, how & 1, c.p, len, 1000);
		c.p += len;
		mk_app_packet_end(a);
	}
	mk_app_flow_end(a, &f, 2000);
	mk_app_flow_free(a, &f);
	mk_app_thread_free(a);
	return 0;
}
