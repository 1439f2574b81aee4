// SPDX-License-Identifier: GPL-2.0-only
/*
 * DNS (userspace/applayer/dns/): the message decoder (compression, loops,
 * pointers forward, names past 255 bytes, every record type rendered),
 * truncation at every byte, recognition over UDP and TCP with and without
 * port 53, TCP messages split at every point and several per segment,
 * query/answer pairing, and the EVE record.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "dns_msg.h"
#include "eve_dns.h"

/* ---- building messages ---- */

struct msg {
	uint8_t b[1024];
	size_t n;
};

static void put16(struct msg *m, uint16_t v)
{
	m->b[m->n++] = (uint8_t)(v >> 8);
	m->b[m->n++] = (uint8_t)v;
}

static void put32(struct msg *m, uint32_t v)
{
	put16(m, (uint16_t)(v >> 16));
	put16(m, (uint16_t)v);
}

/* "www.example.com" in wire form */
static void put_name(struct msg *m, const char *name)
{
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);

		m->b[m->n++] = (uint8_t)l;
		memcpy(m->b + m->n, name, l);
		m->n += l;
		name += l + (dot != NULL);
	}
	m->b[m->n++] = 0;
}

static void header(struct msg *m, uint16_t id, uint16_t flags, uint16_t qd, uint16_t an,
		   uint16_t ns, uint16_t ar)
{
	m->n = 0;
	put16(m, id);
	put16(m, flags);
	put16(m, qd);
	put16(m, an);
	put16(m, ns);
	put16(m, ar);
}

/* A query for www.example.com A (id 0x1234, RD) */
static void query(struct msg *m)
{
	header(m, 0x1234, 0x0100, 1, 0, 0, 0);
	put_name(m, "www.example.com");
	put16(m, 1);
	put16(m, 1);
}

/* Its answer: a CNAME through a pointer, two A, an AAAA, an MX, a TXT; an SOA authority */
static void answer(struct msg *m)
{
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

	header(m, 0x1234, 0x8180, 1, 6, 1, 0);
	put_name(m, "www.example.com"); /* at 12 */
	put16(m, 1);
	put16(m, 1);
	put16(m, 0xc00c); /* www.example.com */
	put16(m, 5);
	put16(m, 1);
	put32(m, 300);
	put16(m, 6);
	m->b[m->n++] = 3;
	memcpy(m->b + m->n, "web", 3);
	m->n += 3;
	put16(m, 0xc010); /* example.com */
	for (int i = 0; i < 2; i++) {
		put16(m, 0xc010);
		put16(m, 1);
		put16(m, 1);
		put32(m, 60);
		put16(m, 4);
		put32(m, 0xc0000201u + (uint32_t)i);
	}
	put16(m, 0xc010);
	put16(m, 28);
	put16(m, 1);
	put32(m, 60);
	put16(m, 16);
	memcpy(m->b + m->n, v6, 16);
	m->n += 16;
	put16(m, 0xc010);
	put16(m, 15);
	put16(m, 1);
	put32(m, 60);
	put16(m, 2 + 7);
	put16(m, 10);
	m->b[m->n++] = 4;
	memcpy(m->b + m->n, "mail", 4);
	m->n += 4;
	put16(m, 0xc010);
	put16(m, 0xc010);
	put16(m, 16);
	put16(m, 1);
	put32(m, 60);
	put16(m, 12);
	m->b[m->n++] = 5;
	memcpy(m->b + m->n, "hello", 5);
	m->n += 5;
	m->b[m->n++] = 5;
	memcpy(m->b + m->n, "world", 5);
	m->n += 5;
	put16(m, 0xc010);
	put16(m, 6);
	put16(m, 1);
	put32(m, 900);
	put16(m, 5 + 2 + 20);
	m->b[m->n++] = 2;
	memcpy(m->b + m->n, "ns", 2);
	m->n += 2;
	put16(m, 0xc010);
	put16(m, 0xc010);
	put32(m, 7);
	put32(m, 3600);
	put32(m, 600);
	put32(m, 86400);
	put32(m, 300);
}

static struct mk_dns_msg dm;

Test(dns, decodes_every_record_type)
{
	struct msg m;

	answer(&m);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_OK);
	cr_assert_eq(dm.id, 0x1234);
	cr_assert_eq(dm.nq, 1);
	cr_assert_str_eq(dm.q[0].name, "www.example.com");
	cr_assert_eq(dm.nan, 6);
	cr_assert_str_eq(dm.an[0].data, "web.example.com");
	cr_assert_str_eq(dm.an[1].name, "example.com");
	cr_assert_str_eq(dm.an[1].data, "192.0.2.1");
	cr_assert_str_eq(dm.an[2].data, "192.0.2.2");
	cr_assert_str_eq(dm.an[3].data, "2001:db8::1");
	cr_assert_str_eq(dm.an[4].data, "mail.example.com");
	cr_assert_str_eq(dm.an[5].data, "helloworld");
	cr_assert_eq(dm.nns, 1);
	cr_assert_eq(dm.ns[0].kind, MK_DNS_RDATA_SOA);
	cr_assert_str_eq(dm.ns[0].data, "ns.example.com");
	cr_assert_str_eq(dm.ns[0].soa.rname, "example.com");
	cr_assert_eq(dm.ns[0].soa.serial, 7);
	cr_assert_eq(dm.ns[0].soa.minimum, 300);
}

Test(dns, truncation_at_every_byte_never_reads_past_the_end)
{
	struct msg m;

	answer(&m);
	for (size_t n = 0; n < m.n; n++) {
		/* a copy of exactly n bytes: ASan sees any read past it */
		uint8_t *p = malloc(n ? n : 1);
		int r;

		memcpy(p, m.b, n);
		r = mk_dns_decode(p, n, &dm);
		cr_assert(r == (n < MK_DNS_HDR_LEN ? MK_DNS_SHORT_HEADER : MK_DNS_TRUNCATED),
			  "%zu bytes: %d", n, r);
		free(p);
	}
	m.b[m.n++] = 0;
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_TRAILING);
}

Test(dns, names_that_loop_jump_forward_or_grow_too_long_are_refused)
{
	struct msg m;

	/* a pointer to itself */
	header(&m, 1, 0, 1, 0, 0, 0);
	put16(&m, 0xc00c);
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_BAD_NAME);
	/* forward */
	header(&m, 1, 0, 1, 0, 0, 0);
	put16(&m, 0xc010);
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_BAD_NAME);
	/* two pointers between two labels, back and forth: the jump limit ends it */
	header(&m, 1, 0, 1, 0, 0, 0);
	m.b[m.n++] = 1;
	m.b[m.n++] = 'a'; /* 12: "a" then a pointer at 14 to 12 */
	put16(&m, 0xc00c);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_BAD_NAME);
	/* 5 labels of 63 bytes: 320 bytes of wire form */
	header(&m, 1, 0, 1, 0, 0, 0);
	for (int i = 0; i < 5; i++) {
		m.b[m.n++] = 63;
		memset(m.b + m.n, 'x', 63);
		m.n += 63;
	}
	m.b[m.n++] = 0;
	put16(&m, 1);
	put16(&m, 1);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_BAD_NAME);
	/* the obsolete label types */
	header(&m, 1, 0, 1, 0, 0, 0);
	m.b[m.n++] = 0x41;
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_BAD_NAME);
	/* the root */
	header(&m, 1, 0, 1, 0, 0, 0);
	m.b[m.n++] = 0;
	put16(&m, 2);
	put16(&m, 1);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_OK);
	cr_assert_str_eq(dm.q[0].name, "<root>");
}

/* ---- the flow glue ---- */

struct seen {
	int n, answers;
	uint64_t tx[16];
	char names[16][64];
};

static void on_dns(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_dns_msg *m)
{
	struct seen *s = ctx;
	char *line = malloc(mk_eve_dns_maxlen(m) + 2048);
	int n = mk_eve_dns(line, mk_eve_dns_maxlen(m) + 2048, NULL, f, 1, m, 0, tx_id);

	cr_assert(n > 0);
	cr_assert_eq(line[n - 1], '}');
	free(line);
	if (s->n < 16) {
		s->tx[s->n] = tx_id;
		snprintf(s->names[s->n], sizeof(s->names[0]), "%.63s", m->nq ? m->q[0].name : "");
	}
	s->n++;
	s->answers += !!(m->flags & MK_DNS_QR);
}

static const struct mk_app_ops ops = { .dns_log = on_dns };

struct run {
	struct mk_app_thread *a;
	struct mk_flow f;
	struct seen s;
};

static void run_new(struct run *r, uint8_t proto, uint16_t port)
{
	memset(r, 0, sizeof(*r));
	cr_assert_eq(mk_app_thread_new(NULL, &ops, &r->s, &r->a), 0);
	r->f.key.proto = proto;
	r->f.key.port_lo = htons(40000);
	r->f.key.port_hi = htons(port);
}

static void run_free(struct run *r)
{
	mk_app_flow_end(r->a, &r->f, 2000);
	mk_app_flow_free(r->a, &r->f);
	mk_app_thread_free(r->a);
	cr_assert_null(r->f.app);
}

Test(dns, udp_pairs_queries_and_answers_by_id)
{
	struct run r;
	struct msg q, a;

	query(&q);
	answer(&a);
	run_new(&r, 17, 53);
	mk_app_udp(r.a, &r.f, 0, q.b, (uint32_t)q.n, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_DNS);
	q.b[1] = 0x35; /* a second query, id 0x1235 */
	mk_app_udp(r.a, &r.f, 0, q.b, (uint32_t)q.n, 2);
	mk_app_udp(r.a, &r.f, 1, a.b, (uint32_t)a.n, 3); /* answers 0x1234 */
	cr_assert_eq(r.s.n, 3);
	cr_assert_eq(r.s.tx[0], 0);
	cr_assert_eq(r.s.tx[1], 1);
	cr_assert_eq(r.s.tx[2], 0);
	cr_assert_str_eq(r.s.names[2], "www.example.com");
	run_free(&r);
}

Test(dns, recognition_without_port_53_needs_a_whole_message)
{
	struct run r;
	struct msg q;

	query(&q);
	run_new(&r, 17, 5353);
	mk_app_udp(r.a, &r.f, 0, q.b, (uint32_t)q.n, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_DNS);
	run_free(&r);
	/* cut short: on port 53 a sane header is enough, elsewhere it is not DNS */
	run_new(&r, 17, 5353);
	mk_app_udp(r.a, &r.f, 0, q.b, (uint32_t)q.n - 3, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_FAILED);
	run_free(&r);
	run_new(&r, 17, 53);
	mk_app_udp(r.a, &r.f, 0, q.b, (uint32_t)q.n - 3, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_DNS);
	cr_assert_eq(r.s.n, 0); /* recognised, but not a message to log */
	run_free(&r);
	/* not DNS at all */
	run_new(&r, 17, 53);
	mk_app_udp(r.a, &r.f, 0, (const uint8_t *)"SSH-2.0-hello, world\r\n", 22, 1);
	cr_assert_eq(r.f.app_proto, MK_APP_FAILED);
	run_free(&r);
}

/* Two queries and an answer, length-prefixed, as one TCP direction's bytes. */
static size_t tcp_stream(uint8_t *out, struct msg *q, struct msg *a)
{
	size_t n = 0;

	out[n++] = (uint8_t)(q->n >> 8);
	out[n++] = (uint8_t)q->n;
	memcpy(out + n, q->b, q->n);
	n += q->n;
	out[n++] = (uint8_t)(a->n >> 8);
	out[n++] = (uint8_t)a->n;
	memcpy(out + n, a->b, a->n);
	n += a->n;
	return n;
}

Test(dns, tcp_messages_split_at_every_point_or_sharing_a_segment)
{
	uint8_t s[2048];
	struct msg q, a;
	struct run r;
	size_t n, cut;

	query(&q);
	answer(&a);
	/* a query then an "answer"-shaped message in one direction: two messages */
	n = tcp_stream(s, &q, &a);
	for (int port = 0; port < 2; port++)
		for (cut = 0; cut <= n; cut++) {
			run_new(&r, 6, port ? 53 : 5353);
			mk_app_stream(r.a, &r.f, 0, s, (uint32_t)cut, 0, 1);
			mk_app_stream(r.a, &r.f, 0, s + cut, (uint32_t)(n - cut), 0, 2);
			cr_assert_eq(r.f.app_proto, MK_APP_DNS, "port %d cut %zu", port, cut);
			cr_assert_eq(r.s.n, 2, "port %d cut %zu: %d messages", port, cut, r.s.n);
			cr_assert_eq(r.s.answers, 1);
			run_free(&r);
		}
	/* one byte at a time */
	run_new(&r, 6, 53);
	for (cut = 0; cut < n; cut++)
		mk_app_stream(r.a, &r.f, 0, s + cut, 1, 0, 1);
	cr_assert_eq(r.s.n, 2);
	run_free(&r);
	/* a gap ends the direction: counted, nothing after it decoded */
	run_new(&r, 6, 53);
	mk_app_stream(r.a, &r.f, 0, s, (uint32_t)(2 + q.n + 5), 0, 1);
	mk_app_stream(r.a, &r.f, 0, s + 2 + q.n + 10, (uint32_t)(n - 2 - q.n - 10), 1, 2);
	cr_assert_eq(r.s.n, 1);
	cr_assert_eq(mk_app_thread_counters(r.a)[MK_APP_CNT_DNS_GAP], 1);
	run_free(&r);
}

Test(dns, eve_records_have_suricatas_layout)
{
	struct msg m;
	char buf[8192];
	int n;

	answer(&m);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_OK);
	n = mk_eve_dns_object(buf, sizeof(buf), &dm, 0, 3);
	cr_assert(n > 0);
	buf[n] = '\0';
	cr_assert(strstr(buf,
			 "\"dns\":{\"version\":2,\"type\":\"answer\",\"id\":4660,"
			 "\"flags\":\"8180\",\"qr\":true,\"rd\":true,\"ra\":true,\"opcode\":0,"
			 "\"rrname\":\"www.example.com\",\"rrtype\":\"A\",\"rcode\":\"NOERROR\""),
		  "%s", buf);
	cr_assert(strstr(buf, "\"grouped\":{\"CNAME\":[\"web.example.com\"],"
			      "\"A\":[\"192.0.2.1\",\"192.0.2.2\"],\"AAAA\":[\"2001:db8::1\"],"
			      "\"MX\":[\"mail.example.com\"],\"TXT\":[\"helloworld\"]}"),
		  "%s", buf);
	cr_assert(strstr(buf, "\"authorities\":[{\"rrname\":\"example.com\",\"rrtype\":\"SOA\","
			      "\"ttl\":900,\"soa\":{\"mname\":\"ns.example.com\","
			      "\"rname\":\"example.com\",\"serial\":7,"),
		  "%s", buf);
	/* too small a buffer: -ENOSPC, never a write past it */
	for (size_t sz = 0; sz < (size_t)n; sz += 7)
		cr_assert(mk_eve_dns_object(buf, sz, &dm, 0, 3) < 0);
	query(&m);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_OK);
	n = mk_eve_dns_object(buf, sizeof(buf), &dm, 0, 3);
	buf[n] = '\0';
	cr_assert_str_eq(buf,
			 "\"dns\":{\"type\":\"query\",\"id\":4660,\"rrname\":\"www.example.com\","
			 "\"rrtype\":\"A\",\"tx_id\":3,\"opcode\":0}");
}

Test(dns, alert_object_has_the_query_records_and_the_answer)
{
	struct msg m;
	char buf[8192];
	int n;

	query(&m);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_OK);
	n = mk_eve_dns_alert_object(buf, sizeof(buf), &dm, 5);
	cr_assert(n > 0 && (size_t)n < mk_eve_dns_alert_maxlen(&dm));
	buf[n] = '\0';
	cr_assert_str_eq(buf, "\"dns\":{\"query\":[{\"type\":\"query\",\"id\":4660,"
			      "\"rrname\":\"www.example.com\",\"rrtype\":\"A\",\"tx_id\":5,"
			      "\"opcode\":0}]}");
	answer(&m);
	cr_assert_eq(mk_dns_decode(m.b, m.n, &dm), MK_DNS_OK);
	n = mk_eve_dns_alert_object(buf, sizeof(buf), &dm, 5);
	cr_assert(n > 0 && (size_t)n < mk_eve_dns_alert_maxlen(&dm));
	buf[n] = '\0';
	cr_assert(strstr(buf, "\"dns\":{\"query\":[{\"type\":\"query\",\"id\":4660,"
			      "\"rrname\":\"www.example.com\",\"rrtype\":\"A\",\"tx_id\":5,"
			      "\"opcode\":0}],\"answer\":{\"version\":2,\"type\":\"answer\","
			      "\"id\":4660,"),
		  "%s", buf);
	cr_assert(strstr(buf, "\"grouped\":{\"CNAME\":[\"web.example.com\"],"), "%s", buf);
	cr_assert_eq(buf[n - 1], '}');
	cr_assert_eq(buf[n - 2], '}');
	for (size_t sz = 0; sz < (size_t)n; sz += 5)
		cr_assert(mk_eve_dns_alert_object(buf, sz, &dm, 5) < 0);
}
