/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What fuzz_ssh, fuzz_smtp and fuzz_ftp share: the dialogue driver (records
 * [how][length][bytes] fed as reassembled TCP chunks of one flow, as
 * fuzz_tls: how bit 0 the direction, bits 6 and 7 together a gap) and the
 * check that every record handed over renders as valid JSON within the
 * size its maxlen function promises (output/eve_app.h).
 */
#ifndef MK_FUZZ_APP_H
#define MK_FUZZ_APP_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "eve_app.h"
#include "fuzz.h"

static inline void fuzz_app_json(mk_eve_app_object_fn object, size_t maxlen, const void *facts,
				 struct mk_flow *f)
{
	size_t need = maxlen + 2048;
	char *line = malloc(need);
	json_error_t jerr;
	json_t *j;
	int n;

	if (!line)
		return;
	n = mk_eve_app_record(line, need, NULL, f, 1, "x", 1, object, facts);
	CHECK(n > 0 && (size_t)n < need);
	j = json_loadb(line, (size_t)n, 0, &jerr);
	CHECK(j != NULL);
	json_decref(j);
	free(line);
}

/* Feeds the dialogue to one flow @f of a new app thread (port 2121, any protocol). */
static inline void fuzz_app_dialogue(const struct mk_app_ops *ops, struct mk_flow *f,
				     const uint8_t *data, size_t size)
{
	struct cursor c = { data, data + size };
	struct mk_app_thread *a;
	struct mk_flow d;

	if (mk_app_thread_new(NULL, ops, NULL, &a))
		return;
	memset(f, 0, sizeof(*f));
	f->key.proto = 6;
	f->key.family = MK_FAMILY_IPV4;
	f->key.addr_lo[0] = 0x0100000a;
	f->key.addr_hi[0] = 0x0200000a;
	f->key.port_lo = 0x409c;
	f->key.port_hi = 0x4908;
	f->last_us = 1000;
	while (c.p < c.end) {
		uint8_t how = take8(&c);
		uint32_t len = take8(&c);

		if (len > (uint32_t)(c.end - c.p))
			len = (uint32_t)(c.end - c.p);
		mk_app_stream(a, f, how & 1, c.p, len, (how & 0x80) && (how & 0x40), 1000);
		c.p += len;
		mk_app_packet_end(a);
	}
	/* a second flow between the same hosts: an expected FTP data connection or not */
	d = *f;
	d.app = NULL;
	d.app_proto = MK_APP_NONE;
	d.key.port_hi = (uint16_t)(size * 2654435761u);
	mk_app_stream(a, &d, 0, data, size > 64 ? 64 : (uint32_t)size, 0, 2000);
	mk_app_flow_end(a, &d, 3000);
	mk_app_flow_free(a, &d);
	mk_app_flow_end(a, f, 3000);
	mk_app_flow_free(a, f);
	CHECK(f->app == NULL);
	mk_app_thread_free(a);
}

#endif /* MK_FUZZ_APP_H */
