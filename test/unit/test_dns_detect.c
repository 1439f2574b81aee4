// SPDX-License-Identifier: GPL-2.0-only
/*
 * DNS transaction rules through the worker (detect_buf.h, kw/dns.c,
 * applayer/dns/dns_detect.c): multi-buffers match on any question or
 * answer, a query and its response are one transaction (a query rule fires
 * once), response buffers wait for the response, DNS over TCP reads the
 * same buffers, and rules of other protocols never see DNS transactions.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "detect_helpers.h"

struct msg {
	uint8_t b[512];
	uint32_t len;
};

static void put16(struct msg *m, uint16_t v)
{
	m->b[m->len++] = (uint8_t)(v >> 8);
	m->b[m->len++] = (uint8_t)v;
}

static void put_name(struct msg *m, const char *name)
{
	const char *p = name, *dot;

	while (*p) {
		dot = strchr(p, '.');
		if (!dot)
			dot = p + strlen(p);
		m->b[m->len++] = (uint8_t)(dot - p);
		memcpy(m->b + m->len, p, (size_t)(dot - p));
		m->len += (uint32_t)(dot - p);
		p = *dot ? dot + 1 : dot;
	}
	m->b[m->len++] = 0;
}

/* A message: @nq questions (type A), then, for a response, one A answer per name of @an. */
static void build(struct msg *m, uint16_t id, int response, const char *const *q, int nq,
		  const char *const *an, int nan)
{
	int i;

	m->len = 0;
	put16(m, id);
	put16(m, response ? 0x8180 : 0x0100);
	put16(m, (uint16_t)nq);
	put16(m, (uint16_t)nan);
	put16(m, 0);
	put16(m, 0);
	for (i = 0; i < nq; i++) {
		put_name(m, q[i]);
		put16(m, 1);
		put16(m, 1);
	}
	for (i = 0; i < nan; i++) {
		put_name(m, an[i]);
		put16(m, 1);
		put16(m, 1);
		put16(m, 0);
		put16(m, 60);
		put16(m, 4);
		memcpy(m->b + m->len, "\xc0\x00\x02\x01", 4);
		m->len += 4;
	}
}

static void dns_udp(struct harness *h, const struct msg *m, int response, uint64_t ts)
{
	struct frame f;

	if (response)
		frame_udp(&f, "192.0.2.53", 53, "10.0.0.1", 33333, m->b, m->len, 64, 0);
	else
		frame_udp(&f, "10.0.0.1", 33333, "192.0.2.53", 53, m->b, m->len, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts);
}

static const struct {
	uint32_t sid;
	int fires;
	const char *rule;
} cases[] = {
	/* the second question of the query matches: a multi-buffer */
	{ 1, 1, "alert dns any any -> any any (dns.query; content:\"two.example\"; sid:1;)" },
	{ 2, 1,
	  "alert dns any any -> any any (dns_query; content:\"ONE.EXAMPLE\"; nocase; bsize:11; "
	  "sid:2;)" },
	/* both names in one instance: never (each instance is read alone) */
	{ 3, 0,
	  "alert dns any any -> any any (dns.query; content:\"one\"; content:\"two\"; sid:3;)" },
	{ 4, 1,
	  "alert dns any any -> any any (dns.answer.name; content:\"cdn.example\"; endswith; "
	  "sid:4;)" },
	/* query and answer of one transaction combine */
	{ 5, 1,
	  "alert dns any any -> any any (dns.query; content:\"two\"; dns.answer.name; "
	  "content:\"cdn\"; sid:5;)" },
	{ 6, 1,
	  "alert dns any any -> any any (flow:to_client; dns.queries.rrname; "
	  "content:\"one.example\"; sid:6;)" },
	{ 7, 1,
	  "alert udp any any -> any 53 (dns.query; dotprefix; content:\".example\"; endswith; "
	  "sid:7;)" },
	/* a payload rule of the dns protocol reads the datagram */
	{ 8, 2, "alert dns any any -> any any (content:\"|03|two\"; sid:8;)" },
	/* other protocols' rules do not see DNS */
	{ 9, 0, "alert tls any any -> any any (tls.sni; content:\"two\"; sid:9;)" },
	{ 10, 0, "alert http any any -> any any (http.host; content:\"two\"; sid:10;)" },
	{ 11, 0, "alert dns any any -> any any (dns.query; content:\"three\"; sid:11;)" },
};

static char *all_rules(void)
{
	char *rules = calloc(1, 8192);
	unsigned int i;

	cr_assert_not_null(rules);
	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		strcat(rules, cases[i].rule);
		strcat(rules, "\n");
	}
	return rules;
}

static const char *const qs[] = { "one.example", "two.example" };
static const char *const ans[] = { "one.example", "edge.cdn.example" };

Test(dns_detect, udp_rules_fire_exactly_where_expected)
{
	char *rules = all_rules();
	struct harness h;
	struct msg m;
	unsigned int i;

	cr_assert_eq(h_init_rules(&h, rules), 0);
	cr_assert_eq(h.eng->stats.failed, 0, "every rule loads");
	build(&m, 0x1234, 0, qs, 2, NULL, 0);
	dns_udp(&h, &m, 0, T0);
	build(&m, 0x1234, 1, qs, 2, ans, 2);
	dns_udp(&h, &m, 1, T0 + 1000);
	h_finish(&h);
	for (i = 0; i < MK_ARRAY_SIZE(cases); i++)
		cr_expect_eq(h_count(&h, cases[i].sid), (unsigned int)cases[i].fires,
			     "sid %u: %u alerts, expected %d: %s", cases[i].sid,
			     h_count(&h, cases[i].sid), cases[i].fires, cases[i].rule);
	h_free(&h);
	free(rules);
}

/* Over TCP: length-prefixed messages, the query split over two segments. */
Test(dns_detect, tcp_reads_the_same_buffers)
{
	struct harness h;
	struct conv c;
	struct msg q, r;
	char buf[600];

	cr_assert_eq(h_init_rules(&h, "alert dns any any -> any any (dns.query; "
				      "content:\"two.example\"; sid:1;)\n"
				      "alert dns any any -> any any (dns.answer.name; "
				      "content:\"edge.cdn\"; sid:2;)\n"),
		     0);
	build(&q, 7, 0, qs, 2, NULL, 0);
	build(&r, 7, 1, qs, 2, ans, 2);
	conv_open(&c, &h, "10.0.0.1", 40000, "192.0.2.53", 53, T0);
	/* the query's length prefix and first 10 bytes, then the rest */
	buf[0] = (char)(q.len >> 8);
	buf[1] = (char)q.len;
	memcpy(buf + 2, q.b, 10);
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, c.cseq, c.sseq, buf, 12);
	c.cseq += 12;
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, c.cseq, c.sseq, q.b + 10, q.len - 10);
	c.cseq += q.len - 10;
	conv_send(&c, 0, MK_TCP_ACK, c.sseq, c.cseq, NULL, 0);
	buf[0] = (char)(r.len >> 8);
	buf[1] = (char)r.len;
	memcpy(buf + 2, r.b, r.len);
	conv_send(&c, 0, MK_TCP_PSH | MK_TCP_ACK, c.sseq, c.cseq, buf, r.len + 2);
	c.sseq += r.len + 2;
	conv_send(&c, 1, MK_TCP_ACK, c.cseq, c.sseq, NULL, 0);
	conv_close(&c);
	h_finish(&h);
	cr_expect_eq(h_count(&h, 1), 1, "dns.query over TCP: %u", h_count(&h, 1));
	cr_expect_eq(h_count(&h, 2), 1, "dns.answer.name over TCP: %u", h_count(&h, 2));
	h_free(&h);
}

/* A response whose query was never seen is read on its own (its questions too). */
Test(dns_detect, unpaired_response)
{
	struct harness h;
	struct msg m;

	cr_assert_eq(h_init_rules(&h, "alert dns any any -> any any (dns.answer.name; "
				      "content:\"edge\"; sid:1;)\n"),
		     0);
	build(&m, 99, 1, qs, 1, ans + 1, 1);
	dns_udp(&h, &m, 1, T0);
	h_finish(&h);
	cr_expect_eq(h_count(&h, 1), 1);
	h_free(&h);
}
