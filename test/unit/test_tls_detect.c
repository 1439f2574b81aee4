// SPDX-License-Identifier: GPL-2.0-only
/*
 * TLS transaction rules through the worker (kw/tls.c,
 * applayer/tls/tls_detect.c) and encryption-handling: the ClientHello's
 * and ServerHello's buffers are read once per session; once the session is
 * encrypted, payload and stream rules stop reading it under `default` (as
 * Suricata's), and go on under `full`.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "applayer.h"
#include "detect_helpers.h"

struct rec {
	uint8_t b[1024];
	uint32_t len;
};

static void put8(struct rec *r, uint8_t v)
{
	r->b[r->len++] = v;
}

static void put16(struct rec *r, uint16_t v)
{
	put8(r, (uint8_t)(v >> 8));
	put8(r, (uint8_t)v);
}

/* A handshake record holding one message of @type whose body is @body. */
static void handshake(struct rec *r, uint8_t type, const struct rec *body)
{
	r->len = 0;
	put8(r, 22);
	put16(r, 0x0303);
	put16(r, (uint16_t)(4 + body->len));
	put8(r, type);
	put8(r, 0);
	put16(r, (uint16_t)body->len);
	memcpy(r->b + r->len, body->b, body->len);
	r->len += body->len;
}

static void client_hello(struct rec *r, const char *sni)
{
	struct rec h = { .len = 0 };
	uint16_t sl = (uint16_t)strlen(sni);
	int i;

	put16(&h, 0x0303);
	for (i = 0; i < 32; i++)
		put8(&h, (uint8_t)i);
	put8(&h, 0); /* no session id */
	put16(&h, 4);
	put16(&h, 0xc02b);
	put16(&h, 0xc02f);
	put8(&h, 1);
	put8(&h, 0);
	put16(&h, (uint16_t)(9 + sl)); /* extensions: server_name */
	put16(&h, 0);
	put16(&h, (uint16_t)(5 + sl));
	put16(&h, (uint16_t)(3 + sl));
	put8(&h, 0);
	put16(&h, sl);
	memcpy(h.b + h.len, sni, sl);
	h.len += sl;
	handshake(r, 1, &h);
}

static void server_hello(struct rec *r)
{
	struct rec h = { .len = 0 };
	int i;

	put16(&h, 0x0303);
	for (i = 0; i < 32; i++)
		put8(&h, (uint8_t)(100 + i));
	put8(&h, 0);
	put16(&h, 0xc02f);
	put8(&h, 0);
	put16(&h, 0);
	handshake(r, 2, &h);
}

/* An application data record carrying @text. */
static void app_data(struct rec *r, const char *text)
{
	uint16_t n = (uint16_t)strlen(text);

	r->len = 0;
	put8(r, 23);
	put16(r, 0x0303);
	put16(r, n);
	memcpy(r->b + r->len, text, n);
	r->len += n;
}

static void send_rec(struct conv *c, int from_client, const struct rec *r)
{
	if (from_client) {
		conv_send(c, 1, MK_TCP_PSH | MK_TCP_ACK, c->cseq, c->sseq, r->b, r->len);
		c->cseq += r->len;
		conv_send(c, 0, MK_TCP_ACK, c->sseq, c->cseq, NULL, 0);
	} else {
		conv_send(c, 0, MK_TCP_PSH | MK_TCP_ACK, c->sseq, c->cseq, r->b, r->len);
		c->sseq += r->len;
		conv_send(c, 1, MK_TCP_ACK, c->cseq, c->sseq, NULL, 0);
	}
}

static const char rules[] =
	"alert tls any any -> any any (tls.sni; content:\"enc.example\"; bsize:11; sid:1;)\n"
	"alert tls any any -> any any (ja3.hash; bsize:32; ja3.string; content:\"771,49195-49199,\"; "
	"startswith; sid:2;)\n"
	"alert tls any any -> any any (ja3s.string; content:\"771,49199,\"; sid:3;)\n"
	"alert tcp any any -> any any (msg:\"raw payload\"; content:\"SECRET-MARK\"; sid:4;)\n"
	"alert tls any any -> any any (flow:to_client; content:\"SECRET-MARK\"; sid:5;)\n"
	"alert tls any any -> any any (tls.sni; content:\"other.example\"; sid:6;)\n"
	"alert dns any any -> any any (dns.query; content:\"enc\"; sid:7;)\n";

static void session(struct harness *h)
{
	struct conv c;
	struct rec r;

	conv_open(&c, h, "10.0.0.1", 40000, "192.0.2.9", 443, T0);
	client_hello(&r, "enc.example");
	send_rec(&c, 1, &r);
	server_hello(&r);
	send_rec(&c, 0, &r);
	app_data(&r, "....SECRET-MARK....");
	send_rec(&c, 0, &r);
	app_data(&r, "..more SECRET-MARK..");
	send_rec(&c, 0, &r);
	conv_close(&c);
	h_finish(h);
}

static void run(int mode, unsigned int *counts, uint64_t *skipped)
{
	struct mk_detect_cfg cfg = { .rules_text = rules, .rules_text_name = "test.rules" };
	struct mk_app_cfg app;
	struct harness h;
	unsigned int sid;

	mk_app_cfg_default(&app);
	app.tls_encryption = (uint8_t)mode;
	cr_assert_eq(h_init_app(&h, &cfg, &app), 0);
	cr_assert_eq(h.eng->stats.failed, 0, "every rule loads");
	session(&h);
	for (sid = 1; sid <= 7; sid++)
		counts[sid] = h_count(&h, sid);
	*skipped = h.t->cnt[MK_DETECT_CNT_ENCRYPTED_SKIPPED];
	h_free(&h);
}

Test(tls_detect, hello_buffers_and_encryption_handling)
{
	unsigned int def[8], full[8], sid;
	uint64_t skipped_def, skipped_full;

	run(MK_TLS_ENC_DEFAULT, def, &skipped_def);
	run(MK_TLS_ENC_FULL, full, &skipped_full);
	for (sid = 1; sid <= 3; sid++) {
		cr_expect_eq(def[sid], 1, "sid %u: %u alerts under default", sid, def[sid]);
		cr_expect_eq(full[sid], 1, "sid %u: %u alerts under full", sid, full[sid]);
	}
	/* the encrypted records: never read under default, read under full */
	cr_expect_eq(def[4], 0, "raw payload rule under default: %u", def[4]);
	cr_expect_eq(def[5], 0, "tls payload rule under default: %u", def[5]);
	cr_expect_gt(full[4], 0, "raw payload rule under full: %u", full[4]);
	cr_expect_gt(full[5], 0, "tls payload rule under full: %u", full[5]);
	cr_expect_gt(skipped_def, 0);
	cr_expect_eq(skipped_full, 0);
	cr_expect_eq(def[6] + def[7] + full[6] + full[7], 0, "no other name, no DNS rule");
}
