// SPDX-License-Identifier: GPL-2.0-only
/*
 * SSH, SMTP, FTP, ftp-data and SMB (userspace/applayer/ssh/, smtp/, ftp/,
 * smb/): recognition (SMTP against FTP by the client's command), a session
 * of each split at every byte into two chunks gives the same records, a
 * KEXINIT and banners cut at every length are refused without reading past
 * them, HASSH of a known KEXINIT, the expected data connections (matched
 * once, the table bounded, expiry; IPv6 with EPRT and EPSV), ftpbounce, the
 * PORT/EPRT/EPSV parsers on truncated input, and the EVE records' JSON.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "eve_app.h"
#include "ftp.h"
#include "smb.h"
#include "smtp.h"
#include "ssh.h"

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	put(b, x, 4);
}

static void name_list(struct buf *b, const char *s)
{
	put32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s));
}

/* A KEXINIT payload (type, cookie, the ten lists, first_kex_follows, reserved). */
static void kexinit(struct buf *b, int server)
{
	static const uint8_t cookie[16] = { 1, 2, 3 };

	b->b[b->n++] = 20;
	put(b, cookie, 16);
	name_list(b,
		  server ? "curve25519-sha256" : "curve25519-sha256,diffie-hellman-group14-sha256");
	name_list(b, "ssh-ed25519");
	name_list(b,
		  server ? "chacha20-poly1305@openssh.com" : "aes128-ctr,aes256-gcm@openssh.com");
	name_list(b, server ? "chacha20-poly1305@openssh.com" : "aes256-ctr");
	name_list(b, server ? "hmac-sha1" : "hmac-sha2-256");
	name_list(b, server ? "umac-64@openssh.com" : "hmac-sha1");
	name_list(b, server ? "none" : "none");
	name_list(b, server ? "none,zlib@openssh.com" : "zlib");
	name_list(b, "");
	name_list(b, "");
	b->b[b->n++] = 0;
	put32(b, 0);
}

/* A binary packet around @payload: length, padding length, payload, padding. */
static void packet(struct buf *out, const uint8_t *payload, size_t n)
{
	static const uint8_t pad[8] = { 0 };
	uint8_t padlen = (uint8_t)(8 - (n + 5) % 8);

	if (padlen < 4)
		padlen += 8;
	put32(out, (uint32_t)(n + padlen + 1));
	out->b[out->n++] = padlen;
	put(out, payload, n);
	put(out, pad, padlen > 8 ? 8 : padlen);
	if (padlen > 8)
		put(out, pad, padlen - 8u);
}

static void ssh_session(struct buf *c, struct buf *s)
{
	static const uint8_t newkeys = 21;
	struct buf k = { .n = 0 };

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	put(c, "SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", 32);
	kexinit(&k, 0);
	packet(c, k.b, k.n);
	packet(c, &newkeys, 1);
	put(c, "\x99\x98 encrypted", 12);
	put(s, "a line before the banner\r\nSSH-1.99-srv_1.0\r\n", 44);
	k.n = 0;
	kexinit(&k, 1);
	packet(s, k.b, k.n);
	packet(s, &newkeys, 1);
	put(s, "\x00\x00\x00\x00 encrypted", 14);
}

struct seen {
	int ssh, smtp, ftp;
	char client_sw[MK_SSH_VERSION_MAX], server_proto[MK_SSH_VERSION_MAX];
	char hassh[33], hassh_server[33];
	char hassh_str[256];
	char log[4096]; /* the smtp and ftp records' objects, one line each */
};

static void check_json(int (*object)(char *, size_t, const void *), size_t maxlen,
		       const void *facts, struct seen *s)
{
	char *line = malloc(maxlen + 2048);
	struct mk_flow f;
	json_error_t jerr;
	json_t *j;
	int n;

	memset(&f, 0, sizeof(f));
	f.key.proto = 6;
	f.key.family = MK_FAMILY_IPV4;
	cr_assert_not_null(line);
	n = mk_eve_app_record(line, maxlen + 2048, NULL, &f, 1, "x", 3, object, facts);
	cr_assert_gt(n, 0);
	j = json_loadb(line, (size_t)n, 0, &jerr);
	cr_assert_not_null(j, "%s: %s", line, jerr.text);
	json_decref(j);
	if (s && strlen(s->log) + (size_t)n + 2 < sizeof(s->log)) {
		strcat(s->log, strstr(line, "\"tx_id\""));
		strcat(s->log, "\n");
	}
	free(line);
}

static void on_ssh(void *ctx, struct mk_flow *f, const struct mk_ssh_info *i)
{
	struct seen *s = ctx;

	(void)f;
	s->ssh++;
	snprintf(s->client_sw, sizeof(s->client_sw), "%s", i->client.software_version);
	snprintf(s->server_proto, sizeof(s->server_proto), "%s", i->server.proto_version);
	snprintf(s->hassh, sizeof(s->hassh), "%s", i->client.hassh ? i->client.hassh_hash : "");
	snprintf(s->hassh_server, sizeof(s->hassh_server), "%s",
		 i->server.hassh ? i->server.hassh_hash : "");
	snprintf(s->hassh_str, sizeof(s->hassh_str), "%s", i->client.hassh ? i->client.hassh : "");
	check_json(mk_eve_ssh_object, mk_eve_ssh_maxlen(i), i, NULL);
}

static void on_smtp(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_smtp_tx *t)
{
	struct seen *s = ctx;

	(void)f;
	(void)tx_id;
	s->smtp++;
	check_json(mk_eve_smtp_object, mk_eve_smtp_maxlen(t), t, s);
}

static void on_ftp(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_ftp_tx *t)
{
	struct seen *s = ctx;

	(void)f;
	(void)tx_id;
	s->ftp++;
	check_json(mk_eve_ftp_object, mk_eve_ftp_maxlen(t), t, s);
}

static void on_ftp_data(void *ctx, struct mk_flow *f, const struct mk_ftp_data_info *d)
{
	struct seen *s = ctx;

	(void)f;
	check_json(mk_eve_ftp_data_object, MK_EVE_FTP_DATA_MAXLEN, d, s);
}

static const struct mk_app_ops ops = { .ssh_log = on_ssh,
				       .smtp_log = on_smtp,
				       .ftp_log = on_ftp,
				       .ftp_data_log = on_ftp_data };

struct run {
	struct mk_app_thread *a;
	struct mk_flow f;
	struct seen s;
};

/* client 10.0.0.1:40000 (the key's lo endpoint) -> server 10.0.0.2:@sport */
static void flow_init(struct mk_flow *f, uint16_t cport, uint16_t sport)
{
	memset(f, 0, sizeof(*f));
	f->key.proto = 6;
	f->key.family = MK_FAMILY_IPV4;
	f->key.addr_lo[0] = htonl(0x0a000001);
	f->key.addr_hi[0] = htonl(0x0a000002);
	f->key.port_lo = htons(cport);
	f->key.port_hi = htons(sport);
	f->last_us = 1000;
}

static void run_new(struct run *r)
{
	memset(r, 0, sizeof(*r));
	cr_assert_eq(mk_app_thread_new(NULL, &ops, &r->s, &r->a), 0);
	flow_init(&r->f, 40000, 2121);
}

static void run_end(struct run *r)
{
	mk_app_flow_end(r->a, &r->f, 2000);
	mk_app_flow_free(r->a, &r->f);
	cr_assert_null(r->f.app);
	flow_init(&r->f, 40000, 2121); /* a new flow for what follows */
}

static void run_free(struct run *r)
{
	run_end(r);
	mk_app_thread_free(r->a);
}

#define CNT(r, id) (mk_app_thread_counters((r)->a)[MK_APP_CNT_##id])

/* ---- SSH ------------------------------------------------------------------------------ */

Test(proto, ssh_session_split_at_every_byte)
{
	struct buf c, s;
	struct run r;
	size_t cut;

	ssh_session(&c, &s);
	for (cut = 0; cut <= c.n; cut++) {
		size_t sc = cut < s.n ? cut : s.n;

		run_new(&r);
		mk_app_stream(r.a, &r.f, 1, s.b, (uint32_t)sc, 0, 1);
		mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)cut, 0, 1);
		mk_app_stream(r.a, &r.f, 1, s.b + sc, (uint32_t)(s.n - sc), 0, 1);
		mk_app_stream(r.a, &r.f, 0, c.b + cut, (uint32_t)(c.n - cut), 0, 2);
		cr_assert_eq(r.f.app_proto, MK_APP_SSH, "cut %zu", cut);
		cr_assert_eq(r.s.ssh, 1, "cut %zu: logged %d times (%d %d %d)", cut, r.s.ssh,
			     (int)CNT(&r, SSH_ENCRYPTED), (int)CNT(&r, SSH_MALFORMED),
			     (int)CNT(&r, SSH_GAP));
		cr_assert_eq(CNT(&r, SSH_ENCRYPTED), 1, "cut %zu", cut);
		cr_assert_eq(CNT(&r, SSH_MALFORMED), 0, "cut %zu", cut);
		cr_assert_str_eq(r.s.client_sw, "OpenSSH_9.2p1");
		cr_assert_str_eq(r.s.server_proto, "1.99");
		/* md5 of the string below (python3 hashlib) */
		cr_assert_str_eq(r.s.hassh_str,
				 "curve25519-sha256,diffie-hellman-group14-sha256;"
				 "aes128-ctr,aes256-gcm@openssh.com;hmac-sha2-256;none");
		cr_assert_str_eq(r.s.hassh, "b21aaabfc9d2e45bafeef69aa7e7fada");
		cr_assert_str_eq(r.s.hassh_server, "32dbce02d2224fe545b488ddccef5746");
		run_free(&r);
	}
}

Test(proto, ssh_kexinit_and_banner_cut_at_every_length)
{
	struct buf k = { .n = 0 };
	struct run r;
	size_t n;
	char *h;

	kexinit(&k, 0);
	for (n = 0; n < k.n - 5; n++) /* the last list ends 5 bytes before the end */
		cr_assert_null(mk_ssh_hassh(k.b, (uint32_t)n, 0), "length %zu", n);
	h = mk_ssh_hassh(k.b, (uint32_t)k.n, 0);
	cr_assert_not_null(h);
	free(h);
	/* a list length past the end */
	k.b[17] = 0xff;
	cr_assert_null(mk_ssh_hassh(k.b, (uint32_t)k.n, 0));
	/* banners: "SSH-" decides, a line without '-' after the version is refused */
	cr_assert_eq(mk_ssh_probe((const uint8_t *)"SS", 2), -1);
	cr_assert_eq(mk_ssh_probe((const uint8_t *)"SSH-", 4), 1);
	cr_assert_eq(mk_ssh_probe((const uint8_t *)"SSX-", 4), 0);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"SSH-2.0\r\n", 9, 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_SSH);
	cr_assert_eq(CNT(&r, SSH_MALFORMED), 1);
	run_end(&r);
	/* a banner that never ends is refused at 512 bytes, a huge packet length too */
	{
		uint8_t big[700];

		memset(big, 'a', sizeof(big));
		memcpy(big, "SSH-2.0-", 8);
		mk_app_stream(r.a, &r.f, 0, big, sizeof(big), 0, 1);
		cr_assert_eq(CNT(&r, SSH_MALFORMED), 2);
		run_end(&r);
		mk_app_stream(r.a, &r.f, 1,
			      (const uint8_t *)"SSH-2.0-x\r\n\x7f\xff\xff\xff\x04\x14", 17, 0, 1);
		cr_assert_eq(CNT(&r, SSH_MALFORMED), 3);
		/* a gap ends the direction */
		mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"SSH-2.0-y\r\n", 11, 0, 1);
		mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"xx", 2, 100, 1);
		cr_assert_eq(CNT(&r, SSH_GAP), 1);
	}
	run_free(&r);
	cr_assert_eq(r.s.ssh, 1); /* the session with a banner is logged at its end */
}

/* ---- SMTP ----------------------------------------------------------------------------- */

static const char smtp_c[] = "EHLO client.example\r\n"
			     "MAIL FROM:<a@example.org> SIZE=20\r\n"
			     "RCPT TO:<b@example.org>\r\n"
			     "RCPT TO: <c@example.org>\r\n"
			     "DATA\r\n"
			     "Subject: x\r\n\r\nbody\r\n..leading dot\r\n.\r\n"
			     "MAIL FROM:<d@example.org>\r\n"
			     "RCPT TO:<e@example.org>\r\n"
			     "BDAT 10 LAST\r\n0123456789"
			     "QUIT\r\n";
static const char smtp_s[] = "220 mail.example ESMTP\r\n250-mail.example\r\n250 SIZE\r\n";

Test(proto, smtp_session_split_at_every_byte)
{
	static const char want[] =
		"\"tx_id\":3,\"smtp\":{\"helo\":\"client.example\",\"mail_from\":\"<a@example.org> "
		"SIZE=20\",\"rcpt_to\":[\"<b@example.org>\",\"<c@example.org>\"]}}\n"
		"\"tx_id\":3,\"smtp\":{\"helo\":\"client.example\",\"mail_from\":\"<d@example.org>\","
		"\"rcpt_to\":[\"<e@example.org>\"]}}\n"
		"\"tx_id\":3,\"smtp\":{\"helo\":\"client.example\"}}\n";
	size_t cut, n = strlen(smtp_c);
	struct run r;

	for (cut = 0; cut <= n; cut++) {
		run_new(&r);
		mk_app_stream(r.a, &r.f, 1, (const uint8_t *)smtp_s, 20, 0, 1);
		mk_app_stream(r.a, &r.f, 0, (const uint8_t *)smtp_c, (uint32_t)cut, 0, 1);
		mk_app_stream(r.a, &r.f, 1, (const uint8_t *)smtp_s + 20,
			      (uint32_t)(strlen(smtp_s) - 20), 0, 1);
		mk_app_stream(r.a, &r.f, 0, (const uint8_t *)smtp_c + cut, (uint32_t)(n - cut), 0,
			      2);
		cr_assert_eq(r.f.app_proto, cut >= 5 || cut == 0 ? MK_APP_SMTP : MK_APP_SMTP,
			     "cut %zu", cut);
		run_end(&r);
		cr_assert_str_eq(r.s.log, want, "cut %zu:\n%s", cut, r.s.log);
		mk_app_thread_free(r.a);
	}
}

Test(proto, smtp_starttls_and_gaps)
{
	struct run r;

	run_new(&r);
	mk_app_stream(r.a, &r.f, 1, (const uint8_t *)"220 x\r\n", 7, 0, 1);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"EHLO a\r\nSTARTTLS\r\n", 18, 0, 1);
	mk_app_stream(r.a, &r.f, 1, (const uint8_t *)"220 go ahead\r\n", 14, 0, 1);
	cr_assert_eq(CNT(&r, SMTP_STARTTLS), 1);
	cr_assert_eq(r.s.smtp, 1);
	/* TLS bytes after it are not read as commands */
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"MAIL FROM:<x>\r\n", 15, 0, 1);
	run_end(&r);
	cr_assert_eq(r.s.smtp, 1);
	cr_assert_eq(CNT(&r, SMTP_TX), 1);
	/* a gap inside a message: commands resume after its end */
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"HELO b\r\nMAIL FROM:<y>\r\nDATA\r\nab", 31, 0,
		      1);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"cd\r\n.\r\nRSET\r\n", 13, 500, 1);
	cr_assert_eq(r.s.smtp, 2);
	cr_assert_eq(CNT(&r, SMTP_GAP), 0);
	/* a gap among commands ends the client's side */
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"x\r\n", 3, 5, 1);
	cr_assert_eq(CNT(&r, SMTP_GAP), 1);
	run_free(&r);
}

/* ---- FTP, ftp-data -------------------------------------------------------------------- */

Test(proto, smtp_or_ftp_by_the_clients_command)
{
	struct run r;

	cr_assert_eq(mk_smtp_probe_client((const uint8_t *)"EH", 2), -1);
	cr_assert_eq(mk_smtp_probe_client((const uint8_t *)"ehlo x", 6), 1);
	cr_assert_eq(mk_smtp_probe_client((const uint8_t *)"EHLOX", 5), 0);
	cr_assert_eq(mk_ftp_probe_client((const uint8_t *)"US", 2), -1);
	cr_assert_eq(mk_ftp_probe_client((const uint8_t *)"USER x", 6), 1);
	cr_assert_eq(mk_ftp_probe_client((const uint8_t *)"FEAT", 4), -1);
	cr_assert_eq(mk_ftp_probe_client((const uint8_t *)"FEAT\r\n", 6), 1);
	cr_assert_eq(mk_ftp_probe_client((const uint8_t *)"EHLO x", 6), 0);
	cr_assert_eq(mk_ftp_smtp_probe_server((const uint8_t *)"22", 2), -1);
	cr_assert_eq(mk_ftp_smtp_probe_server((const uint8_t *)"220-", 4), -1);
	cr_assert_eq(mk_ftp_smtp_probe_server((const uint8_t *)"2200", 4), 0);
	/* the greeting waits; the client's command decides */
	run_new(&r);
	mk_app_stream(r.a, &r.f, 1, (const uint8_t *)"220 hello\r\n", 11, 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_NONE);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"USER anonymous\r\n", 16, 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_FTP);
	run_end(&r);
	cr_assert_eq(r.s.ftp, 2); /* the greeting, USER without a reply */
	cr_assert(strstr(r.s.log, "\"reply\":[\"hello\"],\"completion_code\":[\"220\"]"), "%s",
		  r.s.log);
	mk_app_stream(r.a, &r.f, 1, (const uint8_t *)"220 hello\r\n", 11, 0, 1);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"HELO x\r\n", 8, 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_SMTP);
	run_end(&r);
	/* a server that says something else than 220 first, and a client neither speaks */
	mk_app_stream(r.a, &r.f, 1, (const uint8_t *)"* OK IMAP\r\n", 11, 0, 1);
	mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"a1 LOGIN\r\n", 10, 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_FAILED);
	run_free(&r);
}

static const char ftp_c[] = "USER anonymous\r\nPASS x\r\nPASV\r\nRETR a.txt\r\n"
			    "EPSV\r\nPORT 10,0,0,1,200,10\r\nPORT 10,9,9,9,0,21\r\nQUIT\r\n";
static const char ftp_s[] = "220-welcome\r\n to the test\r\n220 ready\r\n331 pass\r\n230 in\r\n"
			    "227 Entering Passive Mode (10,0,0,2,195,80).\r\n"
			    "150 opening\r\n226 done\r\n229 Extended (|||50001|)\r\n"
			    "200 ok\r\n500 no bounce\r\n221 bye\r\n";

Test(proto, ftp_session_split_at_every_byte)
{
	/* the greeting (38 bytes) comes first; replies follow the commands they answer */
	size_t cut, n = strlen(ftp_c), m = strlen(ftp_s) - 38;
	const uint8_t *c = (const uint8_t *)ftp_c, *s = (const uint8_t *)ftp_s;
	struct run r;

	for (cut = 0; cut <= m; cut++) {
		size_t cc = cut < n ? cut : n, g = cut % 38;

		run_new(&r);
		mk_app_stream(r.a, &r.f, 1, s, (uint32_t)g, 0, 1);
		mk_app_stream(r.a, &r.f, 1, s + g, (uint32_t)(38 - g), 0, 1);
		mk_app_stream(r.a, &r.f, 0, c, (uint32_t)cc, 0, 1);
		mk_app_stream(r.a, &r.f, 0, c + cc, (uint32_t)(n - cc), 0, 1);
		mk_app_stream(r.a, &r.f, 1, s + 38, (uint32_t)cut, 0, 2);
		mk_app_stream(r.a, &r.f, 1, s + 38 + cut, (uint32_t)(m - cut), 0, 2);
		cr_assert_eq(r.f.app_proto, MK_APP_FTP, "cut %zu", cut);
		cr_assert_eq(CNT(&r, FTP_EXPECT), 3, "cut %zu", cut);
		cr_assert(mk_app_ftp_bounce(&r.f), "cut %zu", cut);
		run_end(&r);
		cr_assert_eq(r.s.ftp, 9, "cut %zu: %d", cut, r.s.ftp);
		cr_assert(strstr(r.s.log, "\"reply\":[\"welcome\",\" to the test\",\"ready\"],"
					  "\"completion_code\":[\"220\",\"220\"]"),
			  "cut %zu:\n%s", cut, r.s.log);
		cr_assert(strstr(r.s.log, "\"command\":\"PASV\",\"reply\":[\"Entering Passive Mode "
					  "(10,0,0,2,195,80).\"],\"completion_code\":[\"227\"],"
					  "\"dynamic_port\":50000,\"mode\":\"passive\""),
			  "cut %zu:\n%s", cut, r.s.log);
		cr_assert(strstr(r.s.log, "\"command\":\"RETR\",\"command_data\":\"a.txt\","
					  "\"reply\":[\"opening\",\"done\"],"
					  "\"completion_code\":[\"150\",\"226\"]"),
			  "cut %zu:\n%s", cut, r.s.log);
		cr_assert(strstr(r.s.log, "\"dynamic_port\":50001,\"mode\":\"passive\""));
		cr_assert(strstr(r.s.log, "\"dynamic_port\":51210,\"mode\":\"active\""));
		mk_app_thread_free(r.a);
	}
}

Test(proto, ftp_data_connections_are_expected_once)
{
	struct mk_flow d;
	struct run r;
	int i;

	/* the session in the order of the wire: each reply after its command */
	static const char *const wire[] = {
		"220 ready\r\n",
		"USER anonymous\r\n",
		"331 pass\r\n",
		"PASS x\r\n",
		"230 in\r\n",
		"PASV\r\n",
		"227 Entering Passive Mode (10,0,0,2,195,80).\r\n",
		"RETR a.txt\r\n",
		"150 opening\r\n226 done\r\n",
		"EPSV\r\n",
		"229 Extended (|||50001|)\r\n",
		"PORT 10,0,0,1,200,10\r\n",
		"200 ok\r\n",
	};
	unsigned int w;

	run_new(&r);
	for (w = 0; w < MK_ARRAY_SIZE(wire); w++)
		mk_app_stream(r.a, &r.f, wire[w][0] >= '0' && wire[w][0] <= '9',
			      (const uint8_t *)wire[w], (uint32_t)strlen(wire[w]), 0, 1);
	/* passive: client 10.0.0.1 -> server 10.0.0.2:50000 */
	flow_init(&d, 41000, 50000);
	mk_app_stream(r.a, &d, 1, (const uint8_t *)"\x00\x01 file", 7, 0, 1);
	cr_assert_eq(d.app_proto, MK_APP_FTP_DATA);
	r.s.log[0] = '\0';
	mk_app_flow_end(r.a, &d, 2000);
	mk_app_flow_free(r.a, &d);
	/* the RETR after the PASV names it */
	cr_assert_str_eq(
		r.s.log,
		"\"tx_id\":3,\"ftp_data\":{\"filename\":\"a.txt\",\"command\":\"RETR\"}}\n", "%s",
		r.s.log);
	cr_assert_eq(CNT(&r, FTP_DATA_LOGGED), 1);
	/* used up */
	flow_init(&d, 41001, 50000);
	mk_app_stream(r.a, &d, 0, (const uint8_t *)"\x00\x01 file", 7, 0, 1);
	cr_assert_neq(d.app_proto, MK_APP_FTP_DATA);
	mk_app_flow_free(r.a, &d);
	/* active: the server 10.0.0.2 connects to the client 10.0.0.1:51210 (the key's lo) */
	flow_init(&d, 51210, 20);
	d.client_hi = 1;
	mk_app_stream(r.a, &d, 0, (const uint8_t *)"up", 2, 0, 1);
	cr_assert_eq(d.app_proto, MK_APP_FTP_DATA);
	mk_app_flow_free(r.a, &d);
	cr_assert_eq(CNT(&r, FTP_DATA_FLOWS), 2);
	/* expired: the EPSV port, 61 s later */
	flow_init(&d, 41002, 50001);
	mk_app_stream(r.a, &d, 0, (const uint8_t *)"x", 1, 0, 1000 + 61000000ull);
	cr_assert_neq(d.app_proto, MK_APP_FTP_DATA);
	mk_app_flow_free(r.a, &d);
	/* the table is bounded: the oldest gives way */
	for (i = 0; i < MK_FTP_EXPECT_MAX + 10; i++)
		mk_app_stream(r.a, &r.f, 0, (const uint8_t *)"PORT 10,0,0,1,100,1\r\n", 21, 0, 1);
	cr_assert_geq(CNT(&r, FTP_EXPECT_DROPPED), 10);
	run_free(&r);
}

Test(proto, ftp_address_parsers_on_truncated_input)
{
	static const char hp[] = "227 Entering Passive Mode (192,168,1,2,4,1)";
	uint32_t addr;
	uint16_t port;
	size_t n;

	for (n = 0; n < strlen(hp) - 1; n++)
		cr_assert_eq(mk_ftp_parse_hostport((const uint8_t *)hp, (uint32_t)n, &addr, &port),
			     -1, "length %zu", n);
	cr_assert_eq(mk_ftp_parse_hostport((const uint8_t *)hp, (uint32_t)strlen(hp), &addr, &port),
		     0);
	cr_assert_eq(ntohl(addr), 0xc0a80102);
	cr_assert_eq(port, 1025);
	cr_assert_eq(mk_ftp_parse_hostport((const uint8_t *)"1,2,3,400,5,6", 13, &addr, &port), -1);
	/* EPRT and EPSV cut anywhere: no event claims a port */
	{
		static const char cmd[] = "EPRT |1|10.0.0.1|6275|\r\nEPSV\r\n";
		static const char rep[] = "220 x\r\n200 ok\r\n229 ok (|||6276|)\r\n";
		struct run r;

		for (n = 0; n <= strlen(cmd); n++) {
			run_new(&r);
			mk_app_stream(r.a, &r.f, 1, (const uint8_t *)rep, (uint32_t)strlen(rep), 0,
				      1);
			mk_app_stream(r.a, &r.f, 0, (const uint8_t *)cmd, (uint32_t)n, 0, 1);
			cr_assert_eq(CNT(&r, FTP_EXPECT),
				     n >= 24 ? 2 :
				     n >= 5  ? 1 :
					       0,
				     "cut %zu", n);
			cr_assert(!mk_app_ftp_bounce(&r.f));
			run_free(&r);
		}
	}
}

/* ---- SMB ------------------------------------------------------------------------------ */

Test(proto, smb_recognition)
{
	static const uint8_t smb2[] = { 0, 0, 0, 0x44, 0xfe, 'S', 'M', 'B', 64, 0 };
	static const uint8_t smb1[] = { 0, 0, 0, 0x2f, 0xff, 'S', 'M', 'B', 0x72 };
	struct run r;
	size_t n;

	for (n = 0; n < 8; n++)
		cr_assert_eq(mk_smb_probe(smb2, (uint32_t)n), n && n < 8 ? -1 : -1, "length %zu",
			     n);
	cr_assert_eq(mk_smb_probe(smb2, sizeof(smb2)), 1);
	cr_assert_eq(mk_smb_probe(smb1, sizeof(smb1)), 1);
	cr_assert_eq(mk_smb_probe((const uint8_t *)"\x00\x00\x00\x05\xfeSMB", 8), 0); /* short */
	cr_assert_eq(mk_smb_probe((const uint8_t *)"\x00\x00\x00\x45\xfeSMX", 8), 0);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 1, smb2, sizeof(smb2), 0, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_SMB);
	cr_assert_eq(CNT(&r, SMB_FLOWS), 1);
	run_free(&r);
}

Test(proto, ftp_over_ipv6_eprt_and_epsv)
{
	static const char *const wire[] = { "220 ready\r\n",
					    "EPSV\r\n",
					    "229 Entering Extended Passive Mode (|||50001|)\r\n",
					    "EPRT |2|2001:db8::1|6275|\r\n",
					    "200 ok\r\n",
					    "EPRT |2|2001:db8::99|6276|\r\n",
					    "500 no\r\n" };
	struct mk_flow d;
	struct run r;
	unsigned int w;

	run_new(&r);
	r.f.key.family = MK_FAMILY_IPV6;
	memset(r.f.key.addr_lo, 0, 16);
	memset(r.f.key.addr_hi, 0, 16);
	r.f.key.addr_lo[0] = r.f.key.addr_hi[0] = htonl(0x20010db8);
	r.f.key.addr_lo[3] = htonl(1);
	r.f.key.addr_hi[3] = htonl(2);
	for (w = 0; w < MK_ARRAY_SIZE(wire); w++) {
		mk_app_stream(r.a, &r.f, wire[w][0] >= '0' && wire[w][0] <= '9',
			      (const uint8_t *)wire[w], (uint32_t)strlen(wire[w]), 0, 1);
		if (w == 3)
			cr_assert(!mk_app_ftp_bounce(&r.f), "EPRT to the client itself");
	}
	cr_assert_eq(r.f.app_proto, MK_APP_FTP);
	cr_assert(mk_app_ftp_bounce(&r.f), "EPRT to another address");
	cr_assert_eq(CNT(&r, FTP_EXPECT), 2);
	/* passive: 2001:db8::1 -> 2001:db8::2 port 50001 */
	d = r.f;
	d.app = NULL;
	d.app_proto = MK_APP_NONE;
	d.key.port_lo = htons(41000);
	d.key.port_hi = htons(50001);
	mk_app_stream(r.a, &d, 0, (const uint8_t *)"LIST", 4, 0, 1);
	cr_assert_eq(d.app_proto, MK_APP_FTP_DATA);
	mk_app_flow_end(r.a, &d, 2000);
	mk_app_flow_free(r.a, &d);
	/* active: the server connects to 2001:db8::1 port 6275 */
	d = r.f;
	d.app = NULL;
	d.app_proto = MK_APP_NONE;
	d.key.port_lo = htons(6275);
	d.key.port_hi = htons(20);
	d.client_hi = 1;
	mk_app_stream(r.a, &d, 1, (const uint8_t *)"data", 4, 0, 1);
	cr_assert_eq(d.app_proto, MK_APP_FTP_DATA);
	mk_app_flow_end(r.a, &d, 2000);
	mk_app_flow_free(r.a, &d);
	cr_assert_eq(CNT(&r, FTP_DATA_FLOWS), 2);
	run_free(&r);
}

Test(proto, smtp_data_refused_then_commands)
{
	static const char *const wire[] = {
		"220 mx\r\n",
		"EHLO a\r\nMAIL FROM:<a@x>\r\nRCPT TO:<b@x>\r\nDATA\r\n", /* pipelined */
		"250-mx\r\n250 PIPELINING\r\n250 ok\r\n250 ok\r\n554 no valid recipients\r\n",
		"RSET\r\n",
		"250 ok\r\n",
		"MAIL FROM:<c@x>\r\n",
		"250 ok\r\n",
	};
	struct run r;
	unsigned int w;

	run_new(&r);
	for (w = 0; w < MK_ARRAY_SIZE(wire); w++)
		mk_app_stream(r.a, &r.f, wire[w][0] >= '0' && wire[w][0] <= '9',
			      (const uint8_t *)wire[w], (uint32_t)strlen(wire[w]), 0, 1);
	run_end(&r);
	cr_assert_str_eq(r.s.log,
			 "\"tx_id\":3,\"smtp\":{\"helo\":\"a\",\"mail_from\":\"<a@x>\","
			 "\"rcpt_to\":[\"<b@x>\"]}}\n"
			 "\"tx_id\":3,\"smtp\":{\"helo\":\"a\",\"mail_from\":\"<c@x>\"}}\n",
			 "%s", r.s.log);
	mk_app_thread_free(r.a);
}

Test(proto, ssh_kexinit_without_its_cookie)
{
	/* a KEXINIT of one byte (its type): counted, nothing held; the whole one after it counts */
	static const uint8_t short_kex[] = { 0, 0, 0, 12, 10, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct buf k = { .n = 0 }, c = { .n = 0 };
	struct run r;

	put(&c, "SSH-2.0-x\r\n", 11);
	put(&c, short_kex, sizeof(short_kex));
	kexinit(&k, 0);
	packet(&c, k.b, k.n);
	run_new(&r);
	mk_app_stream(r.a, &r.f, 0, c.b, (uint32_t)c.n, 0, 1);
	cr_assert_eq(CNT(&r, SSH_MALFORMED), 1);
	run_free(&r);
	cr_assert_eq(r.s.ssh, 1);
	cr_assert_str_eq(r.s.hassh, "b21aaabfc9d2e45bafeef69aa7e7fada");
}
