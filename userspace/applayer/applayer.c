// SPDX-License-Identifier: GPL-2.0-only
/*
 * The application layer's entry points (applayer.h): protocol recognition
 * from the first bytes of each direction, whatever the ports, then the
 * protocol's parser; its keys and counters.
 *
 * Recognition: each direction's first bytes (from its first chunk, so a
 * flow picked up midstream is recognised when a message starts its data)
 * are held until they decide: a request method followed by a space towards
 * the server, "HTTP/" towards the client; a DNS message after its 2-byte
 * length (mk_dns_probe(): a sane header when a port is 53, else the whole
 * message must decode). One direction recognised is enough; both refusing
 * (or MK_APP_PROBE_MAX bytes without a decision) is MK_APP_FAILED. The
 * held bytes then go to the parser, the request side first.
 *
 * SSH: "SSH-" either way; SMB: a NetBIOS session message with an SMB
 * header either way; SMTP and FTP servers both greet with "220", so the
 * client's first command decides (ssh/, smtp/, ftp/, smb/). A TCP flow
 * between the endpoints an FTP session announced is ftp-data, whatever
 * its bytes (ftp/ftp.h).
 *
 * UDP: a flow's first payload decides, in either direction: DNS, or
 * MK_APP_FAILED.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "applayer_int.h"
#include "detect.h"
#include "eve_alert.h"
#include "dns/dns.h"
#include "ftp/ftp.h"
#include "http/http.h"
#include "smb/smb.h"
#include "smtp/smtp.h"
#include "ssh/ssh.h"
#include "tls/tls.h"

_Atomic uint64_t mk_app_http_mem;

#define MK_APP_CNT_NAME(id, name, doc) [MK_APP_CNT_##id] = name,
const char *const mk_app_counter_names[MK_APP_CNT_MAX] = { MK_APP_COUNTERS(MK_APP_CNT_NAME) };
#undef MK_APP_CNT_NAME

const char *mk_app_proto_name(uint8_t proto)
{
	switch (proto) {
	case MK_APP_HTTP:
		return "http";
	case MK_APP_DNS:
		return "dns";
	case MK_APP_TLS:
		return "tls";
	case MK_APP_SSH:
		return "ssh";
	case MK_APP_SMTP:
		return "smtp";
	case MK_APP_FTP:
		return "ftp";
	case MK_APP_FTP_DATA:
		return "ftp-data";
	case MK_APP_SMB:
		return "smb";
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
	c->dns_udp_enabled = 1;
	c->dns_tcp_enabled = 1;
	c->tls_enabled = 1;
	c->ssh_enabled = 1;
	c->smtp_enabled = 1;
	c->ftp_enabled = 1;
	c->smb_enabled = 1;
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

static const struct mk_cfg_name tls_encryption_names[] = {
	{ "default", MK_TLS_ENC_DEFAULT },
	{ "bypass", MK_TLS_ENC_BYPASS },
	{ "full", MK_TLS_ENC_FULL },
	{ NULL, 0 },
};

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
	MK_CFG_BOOL("app-layer.protocols.dns.udp.enabled", C, dns_udp_enabled),
	MK_CFG_BOOL("app-layer.protocols.dns.tcp.enabled", C, dns_tcp_enabled),
	MK_CFG_BOOL("app-layer.protocols.tls.enabled", C, tls_enabled),
	MK_CFG_ENUM("app-layer.protocols.tls.encryption-handling", C, tls_encryption,
		    tls_encryption_names),
	MK_CFG_BOOL("app-layer.protocols.ssh.enabled", C, ssh_enabled),
	MK_CFG_BOOL("app-layer.protocols.smtp.enabled", C, smtp_enabled),
	MK_CFG_BOOL("app-layer.protocols.ftp.enabled", C, ftp_enabled),
	MK_CFG_BOOL("app-layer.protocols.smb.enabled", C, smb_enabled),
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
	if (!err) {
		err = mk_dns_thread_new(a);
		if (err)
			mk_http_thread_free(a);
	}
	if (!err) {
		a->tls = calloc(1, sizeof(*a->tls));
		a->ftp_expect = calloc(1, sizeof(*a->ftp_expect));
		if (!a->tls || !a->ftp_expect) {
			free(a->tls);
			free(a->ftp_expect);
			mk_dns_thread_free(a);
			mk_http_thread_free(a);
			err = -ENOMEM;
		}
	}
	if (err) {
		free(a);
		return err;
	}
	*out = a;
	return 0;
}

void mk_app_tx_progress(struct mk_app_thread *a, struct mk_flow *f, struct mk_detect_tx *dt,
			uint8_t *progress, uint8_t bits)
{
	if ((*progress | bits) == *progress)
		return;
	*progress |= bits;
	if (!a->ops->tx)
		return;
	dt->progress = *progress;
	a->ops->tx(a->ctx, f, dt);
}

void mk_app_thread_free(struct mk_app_thread *a)
{
	if (!a)
		return;
	mk_http_thread_free(a);
	mk_dns_thread_free(a);
	mk_tls_thread_free(a->tls);
	free(a->ftp_expect);
	free(a);
}

const uint64_t *mk_app_thread_counters(const struct mk_app_thread *a)
{
	return a->cnt;
}

void mk_app_set_files_logged(struct mk_app_thread *a, int on)
{
	a->files_logged = !!on;
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

/* Either port of @f is @port. */
static int port_is(const struct mk_flow *f, uint16_t port)
{
	return f->key.port_lo == htons(port) || f->key.port_hi == htons(port);
}

/*
 * What the held bytes of a direction look like: the protocol, 0 for none,
 * -1 for need more bytes.
 */
static int probe_protocols(struct mk_app_thread *a, const struct mk_flow *f,
			   const struct mk_app_probe *pr, int to_client)
{
	int more = 0, v;

	if (a->cfg.http_enabled) {
		v = to_client ? mk_http_probe_response(pr->buf, pr->len) :
				mk_http_probe_request(pr->buf, pr->len);
		if (v > 0)
			return MK_APP_HTTP;
		more |= v < 0;
	}
	if (a->cfg.tls_enabled) {
		v = mk_tls_probe(pr->buf, pr->len, to_client);
		if (v > 0)
			return MK_APP_TLS;
		more |= v < 0;
	}
	if (a->cfg.ssh_enabled) {
		v = mk_ssh_probe(pr->buf, pr->len);
		if (v > 0)
			return MK_APP_SSH;
		more |= v < 0;
	}
	if (a->cfg.smb_enabled) {
		v = mk_smb_probe(pr->buf, pr->len);
		if (v > 0)
			return MK_APP_SMB;
		more |= v < 0;
	}
	if (!to_client && a->cfg.smtp_enabled) {
		v = mk_smtp_probe_client(pr->buf, pr->len);
		if (v > 0)
			return MK_APP_SMTP;
		more |= v < 0;
	}
	if (!to_client && a->cfg.ftp_enabled) {
		v = mk_ftp_probe_client(pr->buf, pr->len);
		if (v > 0)
			return MK_APP_FTP;
		more |= v < 0;
	}
	if (to_client && (a->cfg.smtp_enabled || a->cfg.ftp_enabled))
		more |= mk_ftp_smtp_probe_server(pr->buf, pr->len) < 0; /* the client decides */
	if (a->cfg.dns_tcp_enabled) {
		v = mk_dns_probe(a, pr->buf, pr->len, 1, port_is(f, 53));
		if (v > 0)
			return MK_APP_DNS;
		more |= v < 0;
	}
	return more ? -1 : 0;
}

/* Holds @data in its direction's probe and says what it looks like; returns the bytes held. */
static uint32_t probe_add(struct mk_app_thread *a, const struct mk_flow *f, struct mk_app_probe *pr,
			  int to_client, const uint8_t *data, uint32_t len)
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
	v = probe_protocols(a, f, pr, to_client);
	if (v < 0 && pr->len >= MK_APP_PROBE_MAX)
		v = 0;
	pr->verdict = v < 0 ? 0 : v ? 1 : 2;
	pr->proto = v > 0 ? (uint8_t)v : 0;
	return take;
}

/* Bytes of direction @d to the flow's parser, once recognised. */
static void app_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_app_flow *af, int d,
		     const uint8_t *data, uint32_t len, uint64_t ts_us)
{
	if (af->http)
		mk_http_data(a, f, af->http, d, data, len, 0, ts_us);
	else if (af->dns)
		mk_dns_tcp(a, f, af->dns, d, data, len, 0);
	else if (af->tls)
		mk_tls_data(a, f, af->tls, d, data, len, 0);
	else if (af->ssh)
		mk_ssh_data(a, f, af->ssh, d, data, len, 0);
	else if (af->smtp)
		mk_smtp_data(a, f, af->smtp, d, data, len, 0);
	else if (af->ftp)
		mk_ftp_data(a, f, af->ftp, d, data, len, 0);
}

/* The parser of a protocol recognised on @f, created; counted. */
static void app_parser_new(struct mk_app_thread *a, struct mk_flow *f, struct mk_app_flow *af)
{
	switch (f->app_proto) {
	case MK_APP_DNS:
		a->cnt[MK_APP_CNT_DNS_FLOWS]++;
		af->dns = mk_dns_flow_new(a);
		break;
	case MK_APP_TLS:
		a->cnt[MK_APP_CNT_TLS_FLOWS]++;
		af->tls = mk_tls_flow_new(a);
		break;
	case MK_APP_SSH:
		a->cnt[MK_APP_CNT_SSH_FLOWS]++;
		af->ssh = mk_ssh_flow_new(a);
		break;
	case MK_APP_SMTP:
		a->cnt[MK_APP_CNT_SMTP_FLOWS]++;
		af->smtp = mk_smtp_flow_new(a);
		break;
	case MK_APP_FTP:
		a->cnt[MK_APP_CNT_FTP_FLOWS]++;
		af->ftp = mk_ftp_flow_new(a);
		break;
	case MK_APP_SMB:
		a->cnt[MK_APP_CNT_SMB_FLOWS]++;
		break;
	default:
		a->cnt[MK_APP_CNT_HTTP_FLOWS]++;
		af->http = mk_http_flow_new(a, f);
		break;
	}
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
	int d, i, first;

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
	if (f->app_proto == MK_APP_DNS) {
		if (af->dns)
			mk_dns_tcp(a, f, af->dns, to_client, data, len, gap != 0);
		return;
	}
	if (f->app_proto == MK_APP_TLS) {
		if (af->tls)
			mk_tls_data(a, f, af->tls, to_client, data, len, gap != 0);
		return;
	}
	if (f->app_proto != MK_APP_NONE) {
		if (af->ssh)
			mk_ssh_data(a, f, af->ssh, to_client, data, len, gap != 0);
		else if (af->smtp)
			mk_smtp_data(a, f, af->smtp, to_client, data, len, gap != 0);
		else if (af->ftp)
			mk_ftp_data(a, f, af->ftp, to_client, data, len, gap != 0);
		return; /* smb, ftp-data: recognised, not parsed */
	}
	if (a->cfg.ftp_enabled && mk_ftp_expect_match(a, a->ftp_expect, f, ts_us,
						      &af->ftp_data_slot, &af->ftp_data_gen)) {
		/* a data connection an FTP session announced */
		f->app_proto = MK_APP_FTP_DATA;
		af->ftp_data = 1;
		a->cnt[MK_APP_CNT_FTP_DATA_FLOWS]++;
		probe_release(af);
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
	held = probe_add(a, f, &af->probe[to_client], to_client, data, len);
	if (af->probe[0].verdict != 1 && af->probe[1].verdict != 1) {
		if (af->probe[0].verdict == 2 && af->probe[1].verdict == 2) {
			f->app_proto = MK_APP_FAILED;
			a->cnt[MK_APP_CNT_DETECT_FAILED]++;
			probe_release(af);
		}
		return;
	}
	f->app_proto = af->probe[to_client].verdict == 1 ? af->probe[to_client].proto :
							   af->probe[!to_client].proto;
	app_parser_new(a, f, af);
	/*
	 * what was held, the request side first (the server's for SMTP and FTP,
	 * whose greeting came first), and what of this call was not
	 */
	first = f->app_proto == MK_APP_SMTP || f->app_proto == MK_APP_FTP;
	for (i = 0; i < 2 && (af->http || af->dns || af->tls || af->ssh || af->smtp || af->ftp);
	     i++) {
		d = i ^ first;
		if (af->probe[d].len)
			app_data(a, f, af, d, af->probe[d].buf, af->probe[d].len, ts_us);
		if (d == to_client && held < len)
			app_data(a, f, af, d, data + held, len - held, ts_us);
	}
	probe_release(af);
}

void mk_app_udp(struct mk_app_thread *a, struct mk_flow *f, int to_client, const uint8_t *data,
		uint32_t len, uint64_t ts_us)
{
	struct mk_app_flow *af;

	(void)ts_us;
	if (!len || f->app_proto == MK_APP_FAILED)
		return;
	if (f->app_proto == MK_APP_NONE) {
		if (!a->cfg.dns_udp_enabled || mk_dns_probe(a, data, len, 0, port_is(f, 53)) <= 0) {
			f->app_proto = MK_APP_FAILED;
			a->cnt[MK_APP_CNT_DETECT_FAILED]++;
			return;
		}
		af = app_flow(f);
		if (!af)
			return;
		f->app_proto = MK_APP_DNS;
		a->cnt[MK_APP_CNT_DNS_FLOWS]++;
		af->dns = mk_dns_flow_new(a);
	}
	af = f->app;
	if (af && af->dns)
		mk_dns_udp(a, f, af->dns, to_client, data, len);
}

void mk_app_flow_end(struct mk_app_thread *a, struct mk_flow *f, uint64_t ts_us)
{
	struct mk_app_flow *af = f->app;

	if (!af)
		return;
	if (af->http)
		mk_http_flow_end(a, f, af->http, ts_us);
	else if (af->tls)
		mk_tls_flow_end(a, f, af->tls);
	else if (af->ssh)
		mk_ssh_flow_end(a, f, af->ssh);
	else if (af->smtp)
		mk_smtp_flow_end(a, f, af->smtp);
	else if (af->ftp)
		mk_ftp_flow_end(a, f, af->ftp);
	else if (af->ftp_data) {
		mk_ftp_data_end(a, f, af->ftp_data_slot, af->ftp_data_gen, 1);
		af->ftp_data = 0;
	} else if (f->app_proto == MK_APP_NONE && (af->probe[0].len || af->probe[1].len) &&
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
	mk_dns_flow_free(af->dns);
	mk_tls_flow_free(af->tls);
	mk_ssh_flow_free(af->ssh);
	mk_smtp_flow_free(af->smtp);
	mk_ftp_flow_free(af->ftp);
	if (af->ftp_data)
		mk_ftp_data_end(a, f, af->ftp_data_slot, af->ftp_data_gen, 0);
	free(af);
	f->app = NULL;
}

int mk_app_tx_eve(uint8_t proto, const void *tx, struct mk_eve_http *http,
		  struct mk_eve_alert_opts *o)
{
	if (!tx)
		return 0;
	switch (proto) {
	case MK_APP_HTTP:
		mk_http_tx_eve(tx, http);
		o->http = http;
		return 1;
	case MK_APP_DNS:
		o->dns =
			tx; /* its message lives until the packet's end: alerts are rendered then */
		return 1;
	case MK_APP_TLS:
		o->tls = tx; /* the session's facts, the flow's */
		return 1;
	default:
		return 0;
	}
}

int mk_app_ftp_bounce(const struct mk_flow *f)
{
	return f->app_proto == MK_APP_FTP && f->app && mk_ftp_flow_bounce(f->app->ftp);
}
