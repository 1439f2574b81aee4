// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the rule language (userspace/detect): the input is a
 * rule file's text, built into an engine exactly as meerkat loads -S files
 * (every line a rule, '\' continuations, comments), with variables that
 * nest. It must never crash or leak; the build fails only for memory; every
 * rule that loaded has a sid, a precomputed EVE fragment that is valid JSON,
 * and survives payload inspection of the input's own bytes (so hostile
 * depth/offset/byte_jump values meet real buffers) and an EVE alert record.
 * Every buffer list of the rule (http.uri, ...) is inspected on the input
 * too, through the buffer's transforms (dotprefix, url_decode, to_sha256,
 * xor, ...) when it has them, with bsize checked on the result. The
 * refused rules' summary by reason accounts for each of them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "detect_int.h"
#include "eve_alert.h"
#include "log.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const struct mk_detect_var avars[] = {
	{ "HOME_NET", "[10.0.0.0/8,2001:db8::/32,!10.1.0.0/16]" },
	{ "EXTERNAL_NET", "!$HOME_NET" },
	{ "SELF", "$SELF" },
};
static const struct mk_detect_var pvars[] = {
	{ "HTTP_PORTS", "[80,8080:8090]" },
	{ "ALL", "[$HTTP_PORTS,!81,1:]" },
};

#define RULES_CHECKED 16

static void refusal_line(const char *text, void *arg)
{
	(void)arg;
	CHECK(strlen(text) < MK_RULE_ERR_LEN + 64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mk_detect_cfg cfg = {
		.address_vars = avars,
		.naddress_vars = MK_ARRAY_SIZE(avars),
		.port_vars = pvars,
		.nport_vars = MK_ARRAY_SIZE(pvars),
		.rules_text_name = "fuzz.rules",
	};
	struct mk_detect_engine *e;
	struct mk_detect_thread *t;
	char *text, line[MK_EVE_ALERT_MAX];
	uint8_t *xbuf = NULL;
	uint32_t i, b, xcap = 0, xlen;
	int err;

	if (size > 1 << 16)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	cfg.rules_text = text;
	/* Hyperscan compiles cost milliseconds: one input in 16 builds the prefilter */
	cfg.no_prefilter = (size & 15) != 0;
	err = mk_detect_engine_build(&cfg, NULL, &e);
	CHECK(err == 0 || err == -ENOMEM);
	if (err) {
		free(text);
		return 0;
	}
	CHECK(e->stats.loaded == e->nrules);
	/* the summary by reason accounts for every refused rule, in bounded lines */
	{
		uint32_t k, sum = e->refusals.other;

		for (k = 0; k < e->refusals.n; k++)
			sum += e->refusals.v[k].n;
		CHECK(sum == e->stats.failed && e->refusals.rules == e->stats.failed);
		CHECK(e->refusals.dead <= e->nrules);
		CHECK(mk_detect_engine_refusals(e, MK_DETECT_REFUSAL_LINES, refusal_line, NULL) <=
		      MK_DETECT_REFUSAL_LINES + 2);
	}
	CHECK(mk_detect_thread_new_engine(e, &t) == 0);
	for (i = 0; i < e->nrules && i < RULES_CHECKED; i++) {
		const struct mk_rule *r = e->rules[i];
		struct mk_detect_alert a = { .rule = r,
					     .family = MK_FAMILY_IPV4,
					     .proto = 6,
					     .payload = data,
					     .payload_len = (uint32_t)size };
		struct mk_insp in = { .t = t, .buf = data, .len = (uint32_t)size };
		char obj[8192];
		json_t *j;
		int n;

		CHECK(r->sid > 0 && r->gid > 0);
		CHECK(r->eve && r->eve_len == strlen(r->eve));
		CHECK(mk_detect_engine_rule(e, r->gid, r->sid) == r);
		if (r->eve_len + 3 < sizeof(obj)) {
			snprintf(obj, sizeof(obj), "{%s}", r->eve);
			j = json_loads(obj, JSON_ALLOW_NUL, NULL);
			CHECK(j != NULL);
			json_decref(j);
		}
		/* the rule against the input's own bytes, as a packet and as a stream window */
		mk_payload_inspect(&in, r);
		in.abs_base = size & 0xff;
		in.min_end = (uint32_t)(size / 2);
		mk_payload_inspect(&in, r);
		/* each named buffer's list on the input, transformed as the rule says */
		for (b = 1; b < MK_BUF_COUNT; b++) {
			struct mk_insp bi = {
				.t = t, .buf = data, .len = (uint32_t)size, .buf_id = b
			};

			if (!(r->buf_mask & MK_BUF_BIT(b)))
				continue;
			if (r->xf && r->xf[b]) {
				if (mk_xform_apply(r->xf[b], data, (uint32_t)size, &xbuf, &xcap,
						   &xlen))
					continue;
				/* no transform grows a buffer by more than its '.' */
				CHECK(xlen <= size + r->xf[b]->n || xlen <= 32u * r->xf[b]->n);
				bi.buf = xbuf;
				bi.len = xlen;
			}
			mk_payload_inspect(&bi, r);
		}
		a.payload_len = size > 4096 ? 4096 : (uint32_t)size;
		if (mk_eve_alert_maxlen(&a, NULL) <= sizeof(line)) {
			n = mk_eve_alert(line, sizeof(line), &a, NULL);
			CHECK(n > 0);
			j = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, NULL);
			CHECK(j != NULL);
			json_decref(j);
		}
	}
	free(xbuf);
	mk_detect_thread_free(t);
	mk_detect_engine_put(e);
	free(text);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* rule errors are the expected outcome of most inputs: keep them quiet */
	mk_log_set_level(MK_LOG_ERROR - 1);
	return 0;
}
