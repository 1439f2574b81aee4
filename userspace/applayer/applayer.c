// SPDX-License-Identifier: GPL-2.0-only
/*
 * The application layer's entry points (applayer.h): protocol recognition
 * from the first bytes of each direction, whatever the ports, then the
 * protocol's parser; its keys and counters.
 *
 * Recognition: each direction's first bytes (from its first chunk, so a
 * flow picked up midstream is recognised when a message starts its data)
 * are held until they decide: a request method followed by a space towards
 * the server, "HTTP/" towards the client. One direction recognised is
 * enough; both refusing (or MK_APP_PROBE_MAX bytes without a decision)
 * is MK_APP_FAILED. The held bytes then go to the parser, the request
 * side first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "applayer_int.h"
#include "http/http.h"

_Atomic uint64_t mk_app_http_mem;

#define MK_APP_CNT_NAME(id, name, doc) [MK_APP_CNT_##id] = name,
const char *const mk_app_counter_names[MK_APP_CNT_MAX] = { MK_APP_COUNTERS(MK_APP_CNT_NAME) };
#undef MK_APP_CNT_NAME

const char *mk_app_proto_name(uint8_t proto)
{
	switch (proto) {
	case MK_APP_HTTP:
		return "http";
	case MK_APP_FAILED:
		return "failed";
	default:
		return NULL;
	}
}

/* ---- configuration ------------------------------------------------------------------ */

void mk_app_cfg_default(struct mk_app_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->http_enabled = 1;
	c->http_memcap = 64ull << 20;
	c->http_flow_memcap = 1ull << 20;
	c->max_tx = 512;
	c->request_body_limit = 100ull << 10;
	c->response_body_limit = 100ull << 10;
	c->request_body_min_inspect = 32ull << 10;
	c->request_body_window = 4ull << 10;
	c->response_body_min_inspect = 40ull << 10;
	c->response_body_window = 16ull << 10;
	c->compression_bomb_limit = 1ull << 20;
	c->request_decompression = 1;
	c->file_hashes = MK_APP_HASH_SHA256;
}

static void app_cfg_defaults_any(void *base)
{
	mk_app_cfg_default(base);
}

static const struct {
	const char *name;
	uint8_t bit;
} hash_names[] = {
	{ "md5", MK_APP_HASH_MD5 },
	{ "sha1", MK_APP_HASH_SHA1 },
	{ "sha256", MK_APP_HASH_SHA256 },
};

/* file-hashes: [md5, sha1, sha256], any of them (an empty list: none) */
static int hashes_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_app_cfg *c = base;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	unsigned int i, h, n = 0;
	char item[96];
	uint8_t bits = 0;
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a list of digests ([md5, sha1, sha256]), found %s",
				    mk_cfg_kind_name(kind));
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i);
		const char *name;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar(x, it, item, &name);
		if (err)
			return err;
		for (h = 0; h < MK_ARRAY_SIZE(hash_names) && strcmp(name, hash_names[h].name); h++)
			;
		if (h == MK_ARRAY_SIZE(hash_names))
			return mk_cfg_error(
				x, it, item, -EINVAL,
				"'%.32s' is not a digest meerkat computes (md5, sha1, sha256)",
				name);
		bits |= hash_names[h].bit;
	}
	c->file_hashes = bits;
	return 0;
}

static void hashes_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_app_cfg *c = base;
	unsigned int h, n = 0;

	fprintf(out, "%s = [", path);
	for (h = 0; h < MK_ARRAY_SIZE(hash_names); h++)
		if (c->file_hashes & hash_names[h].bit)
			fprintf(out, "%s%s", n++ ? ", " : "", hash_names[h].name);
	fputs("]\n", out);
}

#define C struct mk_app_cfg
#define LIBHTP "app-layer.protocols.http.libhtp.default-config."
static const struct mk_cfg_key app_keys[] = {
	MK_CFG_BOOL("app-layer.protocols.http.enabled", C, http_enabled),
	MK_CFG_SIZE("app-layer.protocols.http.memcap", C, http_memcap, 1u << 20, UINT64_MAX),
	MK_CFG_SIZE("app-layer.protocols.http.flow-memcap", C, http_flow_memcap, 64u << 10,
		    UINT64_MAX),
	MK_CFG_UINT(LIBHTP "max-tx", C, max_tx, 1, 1u << 20),
	MK_CFG_SIZE(LIBHTP "request-body-limit", C, request_body_limit, 0, 1u << 30),
	MK_CFG_SIZE(LIBHTP "response-body-limit", C, response_body_limit, 0, 1u << 30),
	MK_CFG_SIZE(LIBHTP "compression-bomb-limit", C, compression_bomb_limit, 1u << 10, 1u << 30),
	MK_CFG_BOOL(LIBHTP "request-decompression", C, request_decompression),
	MK_CFG_SIZE(LIBHTP "request-body-minimal-inspect-size", C, request_body_min_inspect, 0,
		    1u << 30),
	MK_CFG_SIZE(LIBHTP "request-body-inspect-window", C, request_body_window, 0, 1u << 30),
	MK_CFG_SIZE(LIBHTP "response-body-minimal-inspect-size", C, response_body_min_inspect, 0,
		    1u << 30),
	MK_CFG_SIZE(LIBHTP "response-body-inspect-window", C, response_body_window, 0, 1u << 30),
	MK_CFG_CUSTOM("app-layer.protocols.http.file-hashes", hashes_parse, hashes_dump),
};
#undef LIBHTP
#undef C

static int app_cfg_check(const void *base, char *msg, size_t len)
{
	const struct mk_app_cfg *c = base;

	if (c->http_flow_memcap > c->http_memcap) {
		snprintf(msg, len,
			 "app-layer.protocols.http.flow-memcap is larger than "
			 "app-layer.protocols.http.memcap");
		return -EINVAL;
	}
	return 0;
}

const struct mk_cfg_table mk_app_cfg_table = {
	.name = "app-layer",
	.keys = app_keys,
	.nkeys = MK_ARRAY_SIZE(app_keys),
	.defaults = app_cfg_defaults_any,
	.check = app_cfg_check,
};

/* ---- thread ------------------------------------------------------------------------- */

int mk_app_thread_new(const struct mk_app_cfg *cfg, const struct mk_app_ops *ops, void *ctx,
		      struct mk_app_thread **out)
{
	struct mk_app_thread *a = calloc(1, sizeof(*a));
	int err;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	if (cfg)
		a->cfg = *cfg;
	else
		mk_app_cfg_default(&a->cfg);
	a->ops = ops;
	a->ctx = ctx;
	err = mk_http_thread_new(a);
	if (err) {
		free(a);
		return err;
	}
	*out = a;
	return 0;
}

void mk_app_thread_free(struct mk_app_thread *a)
{
	if (!a)
		return;
	mk_http_thread_free(a);
	free(a);
}

const uint64_t *mk_app_thread_counters(const struct mk_app_thread *a)
{
	return a->cnt;
}

void mk_app_packet_end(struct mk_app_thread *a)
{
	a->epoch++;
}

/* ---- recognition -------------------------------------------------------------------- */

static void probe_release(struct mk_app_flow *af)
{
	free(af->probe[0].buf);
	free(af->probe[1].buf);
	af->probe[0].buf = af->probe[1].buf = NULL;
	af->probe[0].len = af->probe[1].len = 0;
}

/* Holds @data in its direction's probe and says what it looks like; returns the bytes held. */
static uint32_t probe_add(struct mk_app_thread *a, struct mk_app_probe *pr, int to_client,
			  const uint8_t *data, uint32_t len)
{
	uint32_t take = MK_APP_PROBE_MAX - pr->len;
	uint8_t *n;
	int v;

	if (pr->verdict)
		return 0;
	if (take > len)
		take = len;
	if (take) {
		n = realloc(pr->buf, pr->len + take);
		if (!n) {
			pr->verdict = 2;
			return 0;
		}
		memcpy(n + pr->len, data, take);
		pr->buf = n;
		pr->len += take;
	}
	v = !a->cfg.http_enabled ? 0 :
	    to_client		 ? mk_http_probe_response(pr->buf, pr->len) :
				   mk_http_probe_request(pr->buf, pr->len);
	if (v < 0 && pr->len >= MK_APP_PROBE_MAX)
		v = 0;
	pr->verdict = v < 0 ? 0 : v ? 1 : 2;
	return take;
}

static struct mk_app_flow *app_flow(struct mk_flow *f)
{
	if (!f->app)
		f->app = calloc(1, sizeof(*f->app));
	return f->app;
}

void mk_app_stream(struct mk_app_thread *a, struct mk_flow *f, int to_client, const uint8_t *data,
		   uint32_t len, uint64_t gap, uint64_t ts_us)
{
	struct mk_app_flow *af;
	uint32_t held;
	int d;

	if (!len && !gap)
		return;
	if (f->app_proto == MK_APP_FAILED)
		return;
	af = app_flow(f);
	if (!af)
		return;
	if (f->app_proto == MK_APP_HTTP) {
		if (af->http)
			mk_http_data(a, f, af->http, to_client, data, len, gap, ts_us);
		return;
	}
	to_client = !!to_client;
	if (gap) {
		/* the bytes held lead nowhere: start again with what follows the gap */
		free(af->probe[to_client].buf);
		af->probe[to_client] = (struct mk_app_probe){ 0 };
	}
	if (!len)
		return;
	held = probe_add(a, &af->probe[to_client], to_client, data, len);
	if (af->probe[0].verdict != 1 && af->probe[1].verdict != 1) {
		if (af->probe[0].verdict == 2 && af->probe[1].verdict == 2) {
			f->app_proto = MK_APP_FAILED;
			a->cnt[MK_APP_CNT_DETECT_FAILED]++;
			probe_release(af);
		}
		return;
	}
	f->app_proto = MK_APP_HTTP;
	a->cnt[MK_APP_CNT_HTTP_FLOWS]++;
	af->http = mk_http_flow_new(a, f);
	/* what was held, the request side first, and what of this call was not */
	for (d = 0; d < 2 && af->http; d++) {
		if (af->probe[d].len)
			mk_http_data(a, f, af->http, d, af->probe[d].buf, af->probe[d].len, 0,
				     ts_us);
		if (d == to_client && held < len && af->http)
			mk_http_data(a, f, af->http, d, data + held, len - held, 0, ts_us);
	}
	probe_release(af);
}

void mk_app_udp(struct mk_app_thread *a, struct mk_flow *f, int to_client, const uint8_t *data,
		uint32_t len, uint64_t ts_us)
{
	/* no UDP protocol is parsed yet: nothing to recognise */
	(void)a;
	(void)f;
	(void)to_client;
	(void)data;
	(void)len;
	(void)ts_us;
}

void mk_app_flow_end(struct mk_app_thread *a, struct mk_flow *f, uint64_t ts_us)
{
	struct mk_app_flow *af = f->app;

	if (!af)
		return;
	if (af->http)
		mk_http_flow_end(a, f, af->http, ts_us);
	else if (f->app_proto == MK_APP_NONE && (af->probe[0].len || af->probe[1].len) &&
		 af->probe[0].verdict != 1 && af->probe[1].verdict != 1) {
		/* data, and nothing recognised by the end */
		f->app_proto = MK_APP_FAILED;
		a->cnt[MK_APP_CNT_DETECT_FAILED]++;
	}
}

void mk_app_flow_free(struct mk_app_thread *a, struct mk_flow *f)
{
	struct mk_app_flow *af = f->app;

	if (!af)
		return;
	probe_release(af);
	if (af->http)
		mk_http_flow_free(a, af->http);
	free(af);
	f->app = NULL;
}

int mk_app_tx_eve(uint8_t proto, const void *tx, struct mk_eve_http *out)
{
	if (proto != MK_APP_HTTP || !tx)
		return 0;
	mk_http_tx_eve(tx, out);
	return 1;
}
