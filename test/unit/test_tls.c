// SPDX-License-Identifier: GPL-2.0-only
/*
 * TLS (userspace/applayer/tls/): the JA4 example of FoxIO's specification
 * (t13d1516h2_8daaf6152771_e5627efa2ab1), JA3 without GREASE, hellos cut at
 * every byte, records and handshake messages split at every point of a
 * session, recognition (TLS both ways, SSLv2, not TLS), the encrypted
 * switch, and the EVE record.
 */
#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect.h"
#include "detect_buf.h"
#include "eve_tls.h"
#include "tls.h"
#include "tls_hello.h"

struct buf {
	uint8_t b[2048];
	size_t n;
};

static void u8(struct buf *b, unsigned int v)
{
	b->b[b->n++] = (uint8_t)v;
}

static void u16(struct buf *b, unsigned int v)
{
	u8(b, v >> 8);
	u8(b, v);
}

static void u24(struct buf *b, unsigned int v)
{
	u8(b, v >> 16);
	u16(b, v & 0xffff);
}

static void bytes(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

/* The hello of the JA4 specification's example, in a Chrome-like order, with GREASE. */
static void client_hello_body(struct buf *b)
{
	static const uint16_t ciphers[] = { 0x0a0a, 0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f,
					    0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc013, 0xc014,
					    0x009c, 0x009d, 0x002f, 0x0035 };
	static const uint16_t sigalgs[] = { 0x0403, 0x0804, 0x0401, 0x0503,
					    0x0805, 0x0501, 0x0806, 0x0601 };
	uint8_t zero[32] = { 0 };
	size_t ext_len_at, l;
	unsigned int i;

	u16(b, 0x0303);
	bytes(b, zero, 32);
	u8(b, 0);
	u16(b, sizeof(ciphers));
	for (i = 0; i < sizeof(ciphers) / 2; i++)
		u16(b, ciphers[i]);
	u8(b, 1);
	u8(b, 0);
	ext_len_at = b->n;
	u16(b, 0);
	u16(b, 0x1a1a); /* GREASE */
	u16(b, 0);
	u16(b, 0x0000); /* SNI */
	u16(b, 2 + 1 + 2 + 11);
	u16(b, 1 + 2 + 11);
	u8(b, 0);
	u16(b, 11);
	bytes(b, "example.com", 11);
	u16(b, 0x0017);
	u16(b, 0);
	u16(b, 0xff01);
	u16(b, 1);
	u8(b, 0);
	u16(b, 0x000a); /* groups */
	u16(b, 8);
	u16(b, 6);
	u16(b, 0x2a2a);
	u16(b, 0x001d);
	u16(b, 0x0017);
	u16(b, 0x000b); /* point formats */
	u16(b, 2);
	u8(b, 1);
	u8(b, 0);
	u16(b, 0x0023);
	u16(b, 0);
	u16(b, 0x0010); /* ALPN h2, http/1.1 */
	u16(b, 2 + 3 + 9);
	u16(b, 3 + 9);
	u8(b, 2);
	bytes(b, "h2", 2);
	u8(b, 8);
	bytes(b, "http/1.1", 8);
	u16(b, 0x0005);
	u16(b, 5);
	u8(b, 1);
	u16(b, 0);
	u16(b, 0);
	u16(b, 0x000d); /* signature algorithms */
	u16(b, 2 + sizeof(sigalgs));
	u16(b, sizeof(sigalgs));
	for (i = 0; i < sizeof(sigalgs) / 2; i++)
		u16(b, sigalgs[i]);
	u16(b, 0x0012);
	u16(b, 0);
	u16(b, 0x0033);
	u16(b, 0);
	u16(b, 0x002d);
	u16(b, 2);
	u8(b, 1);
	u8(b, 1);
	u16(b, 0x002b); /* supported versions: GREASE, 1.3, 1.2 */
	u16(b, 7);
	u8(b, 6);
	u16(b, 0x3a3a);
	u16(b, 0x0304);
	u16(b, 0x0303);
	u16(b, 0x001b);
	u16(b, 3);
	u8(b, 2);
	u16(b, 2);
	u16(b, 0x4469);
	u16(b, 0);
	u16(b, 0x0015); /* padding */
	u16(b, 4);
	u16(b, 0);
	u16(b, 0);
	u16(b, 0x4a4a); /* GREASE */
	u16(b, 1);
	u8(b, 0);
	l = b->n - ext_len_at - 2;
	b->b[ext_len_at] = (uint8_t)(l >> 8);
	b->b[ext_len_at + 1] = (uint8_t)l;
}

static struct mk_tls_hello h;

Test(tls, ja4_of_the_specifications_example)
{
	char ja4[MK_TLS_JA4_LEN];
	struct buf b = { .n = 0 };

	client_hello_body(&b);
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	cr_assert_str_eq(h.sni, "example.com");
	cr_assert_str_eq(h.alpn, "h2");
	cr_assert_eq(h.max_version, 0x0304);
	mk_tls_ja4(&h, ja4);
	cr_assert_str_eq(ja4, "t13d1516h2_8daaf6152771_e5627efa2ab1");
}

Test(tls, ja3_leaves_grease_out)
{
	char ja3[MK_TLS_JA3_MAX], md5[33];
	struct buf b = { .n = 0 };

	client_hello_body(&b);
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	mk_tls_ja3(&h, 0, ja3, sizeof(ja3));
	cr_assert_str_eq(ja3, "771,4865-4866-4867-49195-49199-49196-49200-52393-52392-49171-49172-"
			      "156-157-47-53,0-23-65281-10-11-35-16-5-13-18-51-45-43-27-17513-21,"
			      "29-23,0");
	mk_tls_md5_hex("", md5);
	cr_assert_str_eq(md5, "d41d8cd98f00b204e9800998ecf8427e");
}

Test(tls, hellos_cut_at_every_byte_are_refused_without_reading_past)
{
	struct buf b = { .n = 0 };
	size_t n;

	client_hello_body(&b);
	/* cut inside the fixed part or an extension: refused; at an extension boundary: taken */
	for (n = 0; n < b.n; n++) {
		uint8_t *p = malloc(n ? n : 1);

		memcpy(p, b.b, n);
		mk_tls_client_hello(p, n, &h);
		mk_tls_server_hello(p, n, &h);
		free(p);
	}
	cr_assert_eq(mk_tls_client_hello(b.b, 10, &h), -1);
}

/* ---- the flow ---- */

struct seen {
	int n;
	char ja4[MK_TLS_JA4_LEN];
	char sni[MK_TLS_SNI_MAX];
	uint16_t version;
	int sslv2;
	/* what detection was last handed: the session's parts and facts */
	uint8_t progress;
	uint32_t events, hs_seen[2];
	uint16_t client_version;
};

static void on_tx(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	struct seen *s = ctx;
	const struct mk_tls_info *t = tx->tx;

	(void)f;
	cr_assert_eq(tx->app_proto, MK_APP_TLS);
	s->progress = tx->progress;
	s->events = t->events;
	s->hs_seen[0] = t->hs_seen[0];
	s->hs_seen[1] = t->hs_seen[1];
	s->client_version = t->client_version;
}

static void on_tls(void *ctx, struct mk_flow *f, const struct mk_tls_info *t)
{
	struct seen *s = ctx;
	size_t need = mk_eve_tls_maxlen(t) + 2048;
	char *line = malloc(need);

	cr_assert(mk_eve_tls(line, need, NULL, f, 1, t) > 0);
	free(line);
	s->n++;
	memcpy(s->ja4, t->ja4, sizeof(s->ja4));
	memcpy(s->sni, t->sni, sizeof(s->sni));
	s->version = t->version;
	s->sslv2 = t->sslv2;
}

static const struct mk_app_ops ops = { .tls_log = on_tls, .tx = on_tx };

/* A record of @type around @body. */
static void record(struct buf *out, uint8_t type, const uint8_t *body, size_t n)
{
	u8(out, type);
	u16(out, 0x0303);
	u16(out, (unsigned int)n);
	bytes(out, body, n);
}

/* Client: the hello cut over two records; server: ServerHello (TLS 1.2), then CCS, then data. */
static void session(struct buf *c, struct buf *s)
{
	struct buf hs = { .n = 0 }, body = { .n = 0 }, sh = { .n = 0 };
	uint8_t zero[32] = { 0 }, ccs = 1, app[20] = { 0 };

	client_hello_body(&body);
	u8(&hs, 1);
	u24(&hs, (unsigned int)body.n);
	bytes(&hs, body.b, body.n);
	c->n = 0;
	record(c, 22, hs.b, 40);
	record(c, 22, hs.b + 40, hs.n - 40);
	u16(&sh, 0x0303);
	bytes(&sh, zero, 32);
	u8(&sh, 0);
	u16(&sh, 0xc02f);
	u8(&sh, 0);
	u16(&sh, 5);
	u16(&sh, 0xff01);
	u16(&sh, 1);
	u8(&sh, 0);
	hs.n = 0;
	u8(&hs, 2);
	u24(&hs, (unsigned int)sh.n);
	bytes(&hs, sh.b, sh.n);
	s->n = 0;
	record(s, 22, hs.b, hs.n);
	record(s, 20, &ccs, 1);
	record(s, 23, app, sizeof(app));
}

struct run {
	struct mk_app_thread *a;
	struct mk_flow f;
	struct seen s;
};

static void run_new(struct run *r)
{
	memset(r, 0, sizeof(*r));
	cr_assert_eq(mk_app_thread_new(NULL, &ops, &r->s, &r->a), 0);
	r->f.key.proto = 6;
}

static void run_free(struct run *r)
{
	mk_app_flow_end(r->a, &r->f, 2000);
	mk_app_flow_free(r->a, &r->f);
	mk_app_thread_free(r->a);
	cr_assert_null(r->f.app);
}

Test(tls, a_session_split_at_every_point_is_decoded_and_logged_once)
{
	struct buf c, s;
	struct run r;
	size_t cut;

	session(&c, &s);
	for (cut = 0; cut <= c.n; cut += 3) {
		run_new(&r);
		mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)cut, 0, 1);
		mk_app_stream(r.a, &r.f, 0, c.b + cut, (uint32_t)(c.n - cut), 0, 2);
		mk_app_stream(r.a, &r.f, 1, s.b, (uint32_t)(s.n / 2), 0, 3);
		mk_app_stream(r.a, &r.f, 1, s.b + s.n / 2, (uint32_t)(s.n - s.n / 2), 0, 4);
		cr_assert_eq(r.f.app_proto, MK_APP_TLS, "cut %zu", cut);
		cr_assert_eq(r.s.n, 1, "cut %zu: logged %d times", cut, r.s.n);
		cr_assert_str_eq(r.s.ja4, "t13d1516h2_8daaf6152771_e5627efa2ab1", "cut %zu", cut);
		cr_assert_str_eq(r.s.sni, "example.com");
		cr_assert_eq(r.s.version, 0x0303);
		cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_TLS_ENCRYPTED], 1);
		run_free(&r);
	}
}

Test(tls, recognition)
{
	static const uint8_t v2[] = { 0x80, 0x2e, 0x01, 0x00, 0x02, 0x00, 0x15 };
	struct buf c, s;
	struct run r;

	session(&c, &s);
	cr_assert_eq(mk_tls_probe(c.b, 5, 0), -1);
	cr_assert_eq(mk_tls_probe(c.b, 6, 0), 1);
	cr_assert_eq(mk_tls_probe(c.b, 6, 1), 0); /* a ClientHello towards the client */
	cr_assert_eq(mk_tls_probe(s.b, 6, 1), 1);
	cr_assert_eq(mk_tls_probe((const uint8_t *)"GET / ", 6, 0), 0);
	cr_assert_eq(mk_tls_probe(v2, sizeof(v2), 0), 1);
	/* SSLv2: logged at the end as such */
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, v2, sizeof(v2), 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_TLS);
	run_free(&r);
	cr_assert_eq(r.s.n, 1);
	cr_assert(r.s.sslv2);
	/* a record that is not TLS after the hello: the direction stops, counted */
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)c.n, 0, 1);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"\x99\x03\x03\x00\x01x", 6, 0, 2);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_TLS_MALFORMED], 1);
	run_free(&r);
}

Test(tls, handshake_types_versions_and_parts_reach_detection)
{
	static const uint8_t ccs[] = { 20, 3, 3, 0, 1, 1 };
	struct buf c, s;
	struct run r;

	session(&c, &s);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)c.n, 0, 1);
	cr_assert_eq(r.s.progress, MK_BUF_SIDE_REQ);
	cr_assert_eq(r.s.hs_seen[0], 1u << 1, "the ClientHello");
	cr_assert_eq(r.s.client_version, 0x0304, "its supported_versions' highest");
	/* the server's hello, its CCS: the server's flight is over */
	mk_app_stream(r.a, &r.f, 1, s.b, (uint32_t)(s.n - 25), 0, 2);
	cr_assert_eq(r.s.hs_seen[1], 1u << 2);
	cr_assert_eq(r.s.progress, MK_BUF_SIDE_REQ | MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY);
	/* the client's CCS: its second flight is over */
	mk_app_stream(r.a, &r.f, 0, ccs, sizeof(ccs), 0, 3);
	cr_assert_eq(r.s.progress, MK_BUF_SIDE_REQ | MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY |
					   MK_BUF_SIDE_REQ_BODY);
	cr_assert_eq(r.s.events, 0);
	run_free(&r);
}

/* After the ClientHello, the client sends @extra: the events then. */
static uint32_t client_events(const uint8_t *extra, size_t n)
{
	struct buf c, s;
	struct run r;
	uint32_t ev;

	session(&c, &s);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)c.n, 0, 1);
	mk_app_stream(r.a, &r.f, 0, extra, (uint32_t)n, 0, 2);
	run_free(&r);
	ev = r.s.events;
	cr_assert_eq(r.s.progress & (MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY),
		     MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY, "inspected by the end at the latest");
	return ev;
}

/* The server answers with @msg (a handshake message of @type) in a record. */
static uint32_t server_events(uint8_t type, const uint8_t *msg, size_t n)
{
	struct buf c, s, hs = { .n = 0 }, rec = { .n = 0 };
	struct run r;

	session(&c, &s);
	u8(&hs, type);
	u24(&hs, (unsigned int)n);
	bytes(&hs, msg, n);
	record(&rec, 22, hs.b, hs.n);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)c.n, 0, 1);
	mk_app_stream(r.a, &r.f, 1, s.b, (uint32_t)(s.n - 31), 0, 2); /* the ServerHello */
	mk_app_stream(r.a, &r.f, 1, rec.b, (uint32_t)rec.n, 0, 3);
	run_free(&r);
	return r.s.events;
}

#define EV(e) (1u << MK_TLS_EV_##e)

Test(tls, events_of_malformed_records_and_messages)
{
	static const uint8_t bad_type[] = { 0x99, 3, 3, 0, 1, 0 };
	static const uint8_t bad_version[] = { 22, 2, 0, 0, 1, 0 };
	static const uint8_t bad_length[] = { 23, 3, 3, 0xff, 0xff, 0 };
	/* a request for its 2 bytes with its 16 of padding; Heartbleed's asks for 16 KiB */
	static const uint8_t heartbeat[] = { 24, 3, 3, 0, 21, 1, 0, 2, 'h', 'i', 0, 0, 0,
					     0,	 0, 0, 0, 0,  0, 0, 0, 0,   0,	 0, 0, 0 };
	static const uint8_t heartbleed[] = { 24, 3, 3, 0, 3, 1, 0x40, 0 };
	static const uint8_t heartbeat_odd[] = { 24, 3, 3, 0, 3, 7, 0, 0 };
	static const uint8_t alert[] = { 21, 3, 3, 0, 2, 2, 40 };
	static const uint8_t bad_hello[] = { 22, 3, 3, 0, 6, 2, 0, 0, 2, 3, 3 };
	static const uint8_t huge_msg[] = { 22, 3, 3, 0, 4, 11, 0x7f, 0, 0 };
	/* a list longer than the message; a certificate longer than the list; junk DER */
	static const uint8_t cert_list_long[] = { 0, 0, 9, 0, 0, 1, 0x30 };
	static const uint8_t cert_long[] = { 0, 0, 4, 0, 0, 9, 0x30 };
	static const uint8_t cert_junk[] = { 0, 0, 5, 0, 0, 2, 0x30, 0x99 };
	static const uint8_t cert_ok_len[] = { 0, 0, 0 };

	cr_assert_eq(client_events(bad_type, sizeof(bad_type)), EV(INVALID_RECORD_TYPE));
	cr_assert_eq(client_events(bad_version, sizeof(bad_version)), EV(INVALID_RECORD_VERSION));
	cr_assert_eq(client_events(bad_length, sizeof(bad_length)), EV(INVALID_RECORD_LENGTH));
	cr_assert_eq(client_events(heartbeat, sizeof(heartbeat)), EV(HEARTBEAT));
	cr_assert_eq(client_events(heartbleed, sizeof(heartbleed)),
		     EV(HEARTBEAT) | EV(OVERFLOW_HEARTBEAT));
	cr_assert_eq(client_events(heartbeat_odd, sizeof(heartbeat_odd)),
		     EV(HEARTBEAT) | EV(INVALID_HEARTBEAT));
	cr_assert_eq(client_events(alert, sizeof(alert)), EV(ERROR_MESSAGE));
	cr_assert_eq(server_events(2, bad_hello + 9, 2), 0, "a second ServerHello is ignored");
	cr_assert_eq(client_events(huge_msg, sizeof(huge_msg)), EV(HANDSHAKE_INVALID_LENGTH));
	cr_assert_eq(server_events(11, cert_list_long, sizeof(cert_list_long)),
		     EV(CERTIFICATE_INVALID_LENGTH) | EV(INVALID_CERTIFICATE) |
			     EV(CERTIFICATE_INVALID_DER),
		     "the list cut to the message: its one byte is no certificate");
	cr_assert_eq(server_events(11, cert_long, sizeof(cert_long)),
		     EV(CERTIFICATE_INVALID_LENGTH) | EV(INVALID_CERTIFICATE));
	cr_assert_eq(server_events(11, cert_junk, sizeof(cert_junk)),
		     EV(CERTIFICATE_INVALID_DER) | EV(INVALID_CERTIFICATE));
	cr_assert_eq(server_events(11, cert_ok_len, sizeof(cert_ok_len)), 0, "no certificate");
	cr_assert_eq(mk_tls_event_lookup("invalid_record_type"), MK_TLS_EV_INVALID_RECORD_TYPE);
	cr_assert_eq(mk_tls_event_lookup("certificate_invalid_der"),
		     MK_TLS_EV_CERTIFICATE_INVALID_DER);
	cr_assert_eq(mk_tls_event_lookup("nope"), -1);
	cr_assert_str_eq(mk_tls_event_name(MK_TLS_EV_HEARTBEAT), "heartbeat_message");
}

Test(tls, a_server_hello_that_does_not_decode_raises_its_event)
{
	static const uint8_t sh[] = { 3, 3, 0 };
	struct buf c, hs = { .n = 0 }, rec = { .n = 0 }, s;
	struct run r;

	session(&c, &s);
	u8(&hs, 2);
	u24(&hs, sizeof(sh));
	bytes(&hs, sh, sizeof(sh));
	record(&rec, 22, hs.b, hs.n);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)c.n, 0, 1);
	mk_app_stream(r.a, &r.f, 1, rec.b, (uint32_t)rec.n, 0, 2);
	cr_assert_eq(r.s.events, EV(INVALID_HANDSHAKE_MESSAGE));
	cr_assert(r.s.progress & MK_BUF_SIDE_RESP, "the hello is as read as it will be");
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_TLS_EVENTS], 1);
	run_free(&r);
}

/* A minimal ClientHello whose extensions are @ext (@n bytes, type and length included). */
static void hello_with(struct buf *b, const uint8_t *ext, size_t n)
{
	uint8_t zero[32] = { 0 };

	b->n = 0;
	u16(b, 0x0303);
	bytes(b, zero, 32);
	u8(b, 0);
	u16(b, 2);
	u16(b, 0x1301);
	u8(b, 1);
	u8(b, 0);
	u16(b, (unsigned int)n);
	bytes(b, ext, n);
}

Test(tls, server_name_faults)
{
	/* one good name; a name of type 1; two extensions; a name past its list */
	static const uint8_t good[] = { 0, 0, 0, 8, 0, 6, 0, 0, 3, 'a', '.', 'b' };
	static const uint8_t type1[] = { 0, 0, 0, 8, 0, 6, 1, 0, 3, 'a', '.', 'b' };
	static const uint8_t twice[] = { 0, 0, 0, 8, 0, 6, 0, 0, 3, 'a', '.', 'b',
					 0, 0, 0, 8, 0, 6, 0, 0, 3, 'c', '.', 'd' };
	static const uint8_t past[] = { 0, 0, 0, 8, 0, 6, 0, 0, 9, 'a', '.', 'b' };
	static const uint8_t trailing[] = { 0, 0, 0, 9, 0, 6, 0, 0, 3, 'a', '.', 'b', 0 };
	static struct mk_tls_hello h;
	struct buf b;

	hello_with(&b, good, sizeof(good));
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	cr_assert_eq(h.sni_faults, 0);
	cr_assert_str_eq(h.sni, "a.b");
	hello_with(&b, type1, sizeof(type1));
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	cr_assert_eq(h.sni_faults, MK_TLS_SNI_TYPE);
	cr_assert_not(h.has_sni);
	hello_with(&b, twice, sizeof(twice));
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	cr_assert_eq(h.sni_faults, MK_TLS_SNI_MULTIPLE);
	cr_assert_str_eq(h.sni, "a.b", "the first");
	hello_with(&b, past, sizeof(past));
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	cr_assert_eq(h.sni_faults, MK_TLS_SNI_LENGTH);
	hello_with(&b, trailing, sizeof(trailing));
	cr_assert_eq(mk_tls_client_hello(b.b, b.n, &h), 0);
	cr_assert_eq(h.sni_faults, MK_TLS_SNI_LENGTH);
	cr_assert_eq(mk_tls_event_lookup("multiple_sni_extensions"), MK_TLS_EV_MULTIPLE_SNI);
}

/* A self-signed certificate made here (DER in *der, its length returned). */
static int make_cert(const char *cn, long serial, unsigned char **der)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	int n;

	cr_assert(k && x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509_set_pubkey(x, k);
	cr_assert(X509_sign(x, k, EVP_sha256()) > 0);
	*der = NULL;
	n = i2d_X509(x, der);
	X509_free(x);
	EVP_PKEY_free(k);
	return n;
}

static void info_free(struct mk_tls_info *i)
{
	free(i->subject);
	free(i->issuer);
	free(i->serial);
}

/* The worker's certificate cache answers with what OpenSSL read, by SHA-1, per slot. */
Test(tls, certificate_cache_gives_what_openssl_read)
{
	struct mk_tls_thread *th = calloc(1, sizeof(*th));
	struct mk_tls_info a = { 0 }, b = { 0 }, c = { 0 };
	unsigned char *d1, *d2;
	int n1 = make_cert("one.example", 0x1234, &d1), n2 = make_cert("two.example", 7, &d2);
	int cached;

	cr_assert_not_null(th);
	cr_assert_eq(mk_tls_cert_cached(th, d1, (uint32_t)n1, &a, &cached), 0);
	cr_assert_eq(cached, 0, "the first time: read by OpenSSL");
	cr_assert_eq(mk_tls_cert_cached(th, d1, (uint32_t)n1, &b, &cached), 0);
	cr_assert_eq(cached, 1, "the same DER again: from the cache");
	cr_assert_str_eq(a.subject, "CN=one.example");
	cr_assert_str_eq(b.subject, a.subject);
	cr_assert_str_eq(b.issuer, a.issuer);
	cr_assert_str_eq(b.serial, "12:34");
	cr_assert_str_eq(b.fingerprint, a.fingerprint);
	cr_assert_str_eq(b.notafter, a.notafter);
	cr_assert_eq(b.notafter_t, a.notafter_t);
	cr_assert_eq(b.has_validity, 1);
	cr_assert_eq(mk_tls_cert_cached(th, d2, (uint32_t)n2, &c, &cached), 0);
	cr_assert_eq(cached, 0, "another certificate is read");
	cr_assert_str_eq(c.subject, "CN=two.example");
	cr_assert_str_neq(c.fingerprint, a.fingerprint);
	/* a DER that is not a certificate: refused, never cached */
	d1[n1 / 2] ^= 0xff;
	cr_assert_eq(mk_tls_cert_cached(th, d1, 10, &c, &cached), -1);
	cr_assert_eq(mk_tls_cert_cached(th, d1, 10, &c, &cached), -1);
	info_free(&a);
	info_free(&b);
	info_free(&c);
	OPENSSL_free(d1);
	OPENSSL_free(d2);
	mk_tls_thread_free(th);
}
