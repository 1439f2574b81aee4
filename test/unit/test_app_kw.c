// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLS and DNS match keywords (detect/kw/tls.c, kw/dns.c): every value
 * parser on good and bad values (a rule's error names the value), every
 * matcher at its edges, and the DNS ones on real DNS messages through the
 * test pipeline (a query and its response over UDP, paired into one
 * transaction). The TLS ones on real sessions: test/tls/tls_e2e.sh.
 */
#include "detect_helpers.h"
#include "kw/app_kw.h"
#include "dns.h"
#include "tls.h"

static const char *reject_text(const char *rule)
{
	const char *err;
	int reason;
	struct mk_rule *r = rule_parse(rule, &err, &reason);

	cr_assert_null(r, "should be rejected: %s", rule);
	return err;
}

/* ---- tls.version ------------------------------------------------------------------- */

Test(app_kw, tls_version_values)
{
	static const struct {
		const char *s;
		uint16_t v;
	} ok[] = {
		{ "1.0", 0x0301 },   { "1.1", 0x0302 },	   { "1.2", 0x0303 },	{ " 1.3 ", 0x0304 },
		{ "sslv3", 0x0300 }, { "0x7f1c", 0x7f1c }, { "0x303", 0x0303 },
	};
	static const char *const bad[] = { "",	      "1.4",   "1",   "tls1.2", "0x",
					   "0x10000", "0x12g", "0x0", "1.2x" };
	uint16_t v;
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(ok); i++) {
		cr_assert_eq(mk_kw_tls_version_parse(ok[i].s, &v), 0, "%s", ok[i].s);
		cr_assert_eq(v, ok[i].v, "%s: %#x", ok[i].s, v);
	}
	for (i = 0; i < MK_ARRAY_SIZE(bad); i++)
		cr_assert_neq(mk_kw_tls_version_parse(bad[i], &v), 0, "'%s' accepted", bad[i]);
	cr_assert(strstr(reject_text("alert tls any any -> any any (tls.version:1.4; sid:1;)"),
			 "'1.4' is not a TLS version"));
}

Test(app_kw, version_keywords_make_tls_rules_reading_the_right_part)
{
	struct mk_rule *r = rule_ok("alert tls any any -> any any (tls.version:1.2; sid:1;)");

	cr_assert_eq(r->app_proto, MK_APP_TLS);
	cr_assert(r->flags & MK_RF_APP_TX);
	cr_assert_eq(r->app_need, MK_BUF_SIDE_RESP, "the server's choice: the ServerHello");
	mk_rule_free(r);
	r = rule_ok("alert tcp any any -> any any (flow:to_server; ssl_version:tls1.0; sid:1;)");
	cr_assert_eq(r->app_need, MK_BUF_SIDE_REQ, "to_server: the client's offer");
	cr_assert_eq(r->app_to_client, 0);
	mk_rule_free(r);
	cr_assert(strstr(reject_text("alert http any any -> any any (tls.version:1.2; sid:1;)"),
			 "a keyword of tls in a rule of another application protocol (http)"));
	cr_assert(strstr(reject_text("alert udp any any -> any any (ssl_version:sslv3; sid:1;)"),
			 "tls keywords need a rule of protocol tls, tcp or ip"));
}

/* ---- ssl_version --------------------------------------------------------------------- */

Test(app_kw, ssl_version_lists_and_negation)
{
	struct mk_ssl_version sv;

	cr_assert_eq(mk_kw_ssl_version_parse("sslv2", &sv), 0);
	cr_assert(mk_kw_ssl_version_match(&sv, 0x0002));
	cr_assert_not(mk_kw_ssl_version_match(&sv, 0x0300));
	cr_assert_eq(mk_kw_ssl_version_parse("tls1.2, tls1.3", &sv), 0);
	cr_assert(mk_kw_ssl_version_match(&sv, 0x0303));
	cr_assert(mk_kw_ssl_version_match(&sv, 0x0304));
	cr_assert_not(mk_kw_ssl_version_match(&sv, 0x0301));
	cr_assert_not(mk_kw_ssl_version_match(&sv, 0), "no ServerHello: no version");
	cr_assert_eq(mk_kw_ssl_version_parse("!sslv3", &sv), 0);
	cr_assert_not(mk_kw_ssl_version_match(&sv, 0x0300));
	cr_assert(mk_kw_ssl_version_match(&sv, 0x0303));
	cr_assert_not(mk_kw_ssl_version_match(&sv, 0x7f1c), "a version the keyword does not name");
	cr_assert_eq(mk_kw_ssl_version_parse("tls1.2,!tls1.2", &sv), 0);
	cr_assert_not(mk_kw_ssl_version_match(&sv, 0x0303), "negation wins");
	cr_assert_neq(mk_kw_ssl_version_parse("tls1.4", &sv), 0);
	cr_assert_neq(mk_kw_ssl_version_parse("", &sv), 0);
	cr_assert_neq(mk_kw_ssl_version_parse(",", &sv), 0);
	cr_assert_neq(mk_kw_ssl_version_parse("!", &sv), 0);
	cr_assert(strstr(reject_text("alert tls any any -> any any (ssl_version:tls13; sid:1;)"),
			 "'tls13' is not a list of [!]sslv2"));
}

/* ---- tls.cert_notbefore / notafter ------------------------------------------------------- */

Test(app_kw, certificate_date_forms)
{
	static const struct {
		const char *s;
		uint8_t mode;
		int64_t a, b;
	} ok[] = {
		{ "2015-10-22T23:59:59", MK_TLS_DATE_EQ, 1445558399, 0 },
		{ "<2015-10-22T23:59", MK_TLS_DATE_LT, 1445558340, 0 },
		{ "> 2015-10-22T23", MK_TLS_DATE_GT, 1445554800, 0 },
		{ "2015-10-22", MK_TLS_DATE_EQ, 1445472000, 0 },
		{ "2015-10", MK_TLS_DATE_EQ, 1443657600, 0 },
		{ "2015", MK_TLS_DATE_EQ, 1420070400, 0 },
		{ "1445852105", MK_TLS_DATE_EQ, 1445852105, 0 },
		{ "2000-10-22<>2020-05-15", MK_TLS_DATE_RANGE, 972172800, 1589500800 },
	};
	static const char *const bad[] = { "",	     "<",	   "2015-13-01",    "2015-10-22T25",
					   "15-10",  "2015/10/22", "2020<>2000",    "2015-10-22x",
					   ">>2015", "<>2015",	   "2015-10-22T23:" };
	struct mk_tls_date d;
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(ok); i++) {
		cr_assert_eq(mk_kw_tls_date_parse(ok[i].s, &d), 0, "%s", ok[i].s);
		cr_assert_eq(d.mode, ok[i].mode, "%s", ok[i].s);
		cr_assert_eq(d.a, ok[i].a, "%s: %lld", ok[i].s, (long long)d.a);
		if (ok[i].mode == MK_TLS_DATE_RANGE)
			cr_assert_eq(d.b, ok[i].b, "%s: %lld", ok[i].s, (long long)d.b);
	}
	for (i = 0; i < MK_ARRAY_SIZE(bad); i++)
		cr_assert_neq(mk_kw_tls_date_parse(bad[i], &d), 0, "'%s' accepted", bad[i]);
	cr_assert(strstr(reject_text("alert tls any any -> any any (tls.cert_notafter:2015-13; "
				     "sid:1;)"),
			 "'2015-13' is not a date comparison"));
}

Test(app_kw, certificate_date_comparisons_at_their_edges)
{
	struct mk_tls_date d;

	cr_assert_eq(mk_kw_tls_date_parse("2015", &d), 0);
	cr_assert(mk_kw_tls_date_match(&d, 1420070400));
	cr_assert_not(mk_kw_tls_date_match(&d, 1420070401));
	cr_assert_eq(mk_kw_tls_date_parse("<2015", &d), 0);
	cr_assert(mk_kw_tls_date_match(&d, 1420070399));
	cr_assert_not(mk_kw_tls_date_match(&d, 1420070400));
	cr_assert_eq(mk_kw_tls_date_parse(">2015", &d), 0);
	cr_assert(mk_kw_tls_date_match(&d, 1420070401));
	cr_assert_not(mk_kw_tls_date_match(&d, 1420070400));
	cr_assert_eq(mk_kw_tls_date_parse("100000<>200000", &d), 0, "seconds: more than 4 digits");
	cr_assert(mk_kw_tls_date_match(&d, 100000), "inclusive");
	cr_assert(mk_kw_tls_date_match(&d, 200000), "inclusive");
	cr_assert_not(mk_kw_tls_date_match(&d, 99999));
	cr_assert_not(mk_kw_tls_date_match(&d, 200001));
	cr_assert_eq(mk_kw_tls_date_parse("1000", &d), 0);
	cr_assert_eq(d.a, -30610224000LL, "four digits: the year 1000");
}

Test(app_kw, certificate_keywords_wait_for_the_servers_flight)
{
	struct mk_rule *r = rule_ok("alert tls any any -> any any (tls.cert_expired; sid:1;)");

	cr_assert_eq(r->app_need, MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY);
	cr_assert_eq(r->app_to_client, 1);
	mk_rule_free(r);
	r = rule_ok(
		"alert tls any any -> any any (tls.cert_valid; tls.cert_notbefore:<2030; sid:1;)");
	cr_assert_eq(r->nmatch, 2);
	mk_rule_free(r);
	cr_assert(strstr(reject_text("alert tls any any -> any any (tls.cert_valid:yes; sid:1;)"),
			 "tls.cert_valid"));
}

/* ---- ssl_state ------------------------------------------------------------------------- */

#define HS(t) (1u << (t))

Test(app_kw, ssl_state_or_and_negation_as_suricata)
{
	struct mk_ssl_state ss;
	uint32_t ch_only[2] = { HS(1), 0 };
	uint32_t full[2] = { HS(1) | HS(16), HS(2) | HS(11) | HS(12) | HS(14) };
	uint32_t resumed[2] = { HS(1), HS(2) };
	uint32_t odd[2] = { HS(1), HS(2) | MK_TLS_HS_UNKNOWN };
	uint8_t need;

	cr_assert_eq(mk_kw_ssl_state_parse("client_hello", &ss, &need), 0);
	cr_assert_eq(need, MK_BUF_SIDE_REQ);
	cr_assert(mk_kw_ssl_state_match(&ss, ch_only));
	cr_assert_eq(mk_kw_ssl_state_parse("server_hello", &ss, &need), 0);
	cr_assert_eq(need, MK_BUF_SIDE_RESP);
	cr_assert_not(mk_kw_ssl_state_match(&ss, ch_only));
	cr_assert(mk_kw_ssl_state_match(&ss, resumed));
	cr_assert_eq(mk_kw_ssl_state_parse("client_keyx", &ss, &need), 0);
	cr_assert_eq(need, MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY);
	cr_assert(mk_kw_ssl_state_match(&ss, full));
	cr_assert_not(mk_kw_ssl_state_match(&ss, resumed));
	cr_assert_eq(mk_kw_ssl_state_parse("server_keyx | client_keyx", &ss, &need), 0);
	cr_assert_eq(need, MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY | MK_BUF_SIDE_RESP |
				   MK_BUF_SIDE_RESP_BODY);
	cr_assert(mk_kw_ssl_state_match(&ss, full));
	cr_assert_not(mk_kw_ssl_state_match(&ss, resumed));
	cr_assert_eq(mk_kw_ssl_state_parse("!server_keyx", &ss, &need), 0);
	cr_assert(mk_kw_ssl_state_match(&ss, resumed));
	cr_assert_not(mk_kw_ssl_state_match(&ss, full));
	/* an or of literals: client_hello holds, so the negated one does not matter */
	cr_assert_eq(mk_kw_ssl_state_parse("client_hello|!server_hello", &ss, &need), 0);
	cr_assert(mk_kw_ssl_state_match(&ss, resumed));
	cr_assert_eq(mk_kw_ssl_state_parse("unknown", &ss, &need), 0);
	cr_assert(mk_kw_ssl_state_match(&ss, odd));
	cr_assert_not(mk_kw_ssl_state_match(&ss, full));
	/* a server message is the server's: the same type from the client is not it */
	{
		uint32_t swapped[2] = { HS(2) | HS(12), HS(1) | HS(16) };

		cr_assert_eq(mk_kw_ssl_state_parse("server_hello|server_keyx|client_keyx", &ss,
						   &need),
			     0);
		cr_assert_not(mk_kw_ssl_state_match(&ss, swapped));
	}
	cr_assert_neq(mk_kw_ssl_state_parse("client_hello,server_hello", &ss, &need), 0);
	cr_assert_neq(mk_kw_ssl_state_parse("", &ss, &need), 0);
	cr_assert_neq(mk_kw_ssl_state_parse("|", &ss, &need), 0);
	cr_assert(strstr(reject_text("alert tls any any -> any any (ssl_state:hello; sid:1;)"),
			 "'hello' is not a list of [!]client_hello"));
}

/* ---- DNS ---------------------------------------------------------------------------------- */

Test(app_kw, dns_values)
{
	struct mk_uint u;

	cr_assert_eq(mk_kw_dns_rrtype_parse("AAAA", &u), 0);
	cr_assert(mk_uint_match(&u, 28));
	cr_assert_eq(mk_kw_dns_rrtype_parse("mx", &u), 0, "names in any case");
	cr_assert(mk_uint_match(&u, 15));
	cr_assert_eq(mk_kw_dns_rrtype_parse("!A", &u), 0);
	cr_assert_not(mk_uint_match(&u, 1));
	cr_assert(mk_uint_match(&u, 28));
	cr_assert_eq(mk_kw_dns_rrtype_parse("65535", &u), 0);
	cr_assert_eq(mk_kw_dns_rrtype_parse(">255", &u), 0);
	cr_assert(mk_uint_match(&u, 257));
	cr_assert_neq(mk_kw_dns_rrtype_parse("65536", &u), 0);
	cr_assert_neq(mk_kw_dns_rrtype_parse("BOGUS", &u), 0);
	cr_assert_neq(mk_kw_dns_rrtype_parse("", &u), 0);
	cr_assert_eq(mk_kw_dns_rcode_parse("nxdomain", &u), 0);
	cr_assert(mk_uint_match(&u, 3));
	cr_assert_eq(mk_kw_dns_rcode_parse("!NOERROR", &u), 0);
	cr_assert(mk_uint_match(&u, 5));
	cr_assert_not(mk_uint_match(&u, 0));
	cr_assert_eq(mk_kw_dns_rcode_parse("1-4", &u), 0, "exclusive: 2, 3");
	cr_assert(mk_uint_match(&u, 3));
	cr_assert_not(mk_uint_match(&u, 1));
	cr_assert_neq(mk_kw_dns_rcode_parse("16", &u), 0);
	cr_assert(strstr(reject_text("alert dns any any -> any any (dns.opcode:16; sid:1;)"),
			 "'16' is not an opcode"));
	cr_assert(strstr(reject_text("alert dns any any -> any any (dns.rrtype:AAA; sid:1;)"),
			 "'AAA' is not a record type"));
	cr_assert(strstr(reject_text("alert dns any any -> any any (dns.rcode:NXDOM; sid:1;)"),
			 "'NXDOM' is not an rcode"));
	cr_assert(strstr(reject_text("alert tls any any -> any any (dns.rcode:0; sid:1;)"),
			 "a keyword of dns in a rule of another application protocol (tls)"));
}

/* A DNS message: header, one question @name of @type, and with @rcode >= 0 one A answer. */
static uint32_t dns_msg(uint8_t *b, uint16_t id, int response, int opcode, int rcode,
			const char *name, uint16_t type)
{
	uint32_t n = 12, l;
	const char *p = name, *dot;

	memset(b, 0, 12);
	b[0] = (uint8_t)(id >> 8);
	b[1] = (uint8_t)id;
	b[2] = (uint8_t)((response ? 0x80 : 0) | opcode << 3 | 1);
	b[3] = (uint8_t)(response ? 0x80 | rcode : 0);
	b[5] = 1;
	b[7] = response && !rcode ? 1 : 0;
	for (; *p; p = *dot ? dot + 1 : dot) {
		dot = strchr(p, '.');
		if (!dot)
			dot = p + strlen(p);
		l = (uint32_t)(dot - p);
		b[n++] = (uint8_t)l;
		memcpy(b + n, p, l);
		n += l;
	}
	b[n++] = 0;
	b[n++] = (uint8_t)(type >> 8);
	b[n++] = (uint8_t)type;
	b[n++] = 0;
	b[n++] = 1;
	if (response && !rcode) {
		static const uint8_t an[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 9, 8, 7 };

		memcpy(b + n, an, sizeof(an));
		n += sizeof(an);
	}
	return n;
}

/* A query and its response over UDP between 10.0.0.1:5000 and 10.0.0.53:53. */
static void dns_exchange(struct harness *h, uint16_t id, int opcode, int rcode, const char *name,
			 uint16_t type, uint64_t ts)
{
	uint8_t b[512];
	struct frame f;
	uint32_t n;

	n = dns_msg(b, id, 0, opcode, 0, name, type);
	frame_udp(&f, "10.0.0.1", 5000, "10.0.0.53", 53, b, n, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts);
	n = dns_msg(b, id, 1, opcode, rcode, name, type);
	frame_udp(&f, "10.0.0.53", 53, "10.0.0.1", 5000, b, n, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts + 1000);
}

Test(app_kw, dns_keywords_on_queries_and_responses)
{
	struct harness *h = harness_rules(
		"alert dns any any -> any any (dns.opcode:0; sid:1;)\n"
		"alert dns any any -> any any (dns.opcode:!0; sid:2;)\n"
		"alert dns any any -> any any (dns.opcode:4; flow:to_client; sid:3;)\n"
		"alert dns any any -> any any (dns.rcode:NXDOMAIN; sid:4;)\n"
		"alert dns any any -> any any (dns.rcode:0; sid:5;)\n"
		"alert dns any any -> any any (dns.rrtype:AAAA; sid:6;)\n"
		"alert dns any any -> any any (dns.rrtype:A; flow:to_client; sid:7;)\n"
		"alert dns any any -> any any (dns.rrtype:A; dns.query; content:\"b.test\"; "
		"endswith; sid:8;)\n"
		"alert dns any any -> any any (dns.rrtype:!A; dns.opcode:0; sid:9;)\n"
		"alert tcp any any -> any any (dns.opcode:0; sid:10;)\n"
		"alert udp any any -> any any (dns.opcode:0; sid:11;)\n");

	dns_exchange(h, 1, 0, 0, "a.test", 1, T0);
	dns_exchange(h, 2, 0, 3, "b.test", 1, T0 + 10000);
	dns_exchange(h, 3, 0, 0, "a.test", 28, T0 + 20000);
	dns_exchange(h, 4, 4, 0, "a.test", 6, T0 + 30000); /* a NOTIFY */
	cr_assert_eq(h_count(h, 1), 3, "three standard queries");
	cr_assert_eq(h_count(h, 2), 1, "the NOTIFY");
	cr_assert_eq(h_count(h, 3), 1, "the NOTIFY's response");
	cr_assert_eq(h_count(h, 4), 1, "b.test: NXDOMAIN");
	cr_assert_eq(h_count(h, 5), 3);
	cr_assert_eq(h_count(h, 6), 1);
	cr_assert_eq(h_count(h, 7), 2, "the responses to the A questions");
	cr_assert_eq(h_count(h, 8), 1);
	cr_assert_eq(h_count(h, 9), 1, "the AAAA query");
	cr_assert_eq(h_count(h, 10), 0, "DNS over UDP is not an alert tcp rule's");
	cr_assert_eq(h_count(h, 11), 3);
	harness_free(h);
}

/* ---- app-layer-event:dns.* and tls.* ------------------------------------------------------ */

static void udp_bytes(struct harness *h, int to_server, const uint8_t *b, uint32_t n, uint64_t ts)
{
	struct frame f;

	if (to_server)
		frame_udp(&f, "10.0.0.1", 5000, "10.0.0.53", 53, b, n, 64, 0);
	else
		frame_udp(&f, "10.0.0.53", 53, "10.0.0.1", 5000, b, n, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts);
}

Test(app_kw, dns_events_on_malformed_and_odd_messages)
{
	struct harness *h = harness_rules(
		"alert dns any any -> any any (app-layer-event:dns.z_flag_set; sid:1;)\n"
		"alert dns any any -> any any (flow:to_client; app-layer-event:dns.not_a_response; "
		"sid:2;)\n"
		"alert dns any any -> any any (flow:to_server; app-layer-event:dns.not_a_request; "
		"sid:3;)\n"
		"alert dns any any -> any any (app-layer-event:dns.malformed_data; sid:4;)\n"
		"alert dns any any -> any any (app-layer-event:dns.infinite_loop; sid:5;)\n"
		"alert dns any any -> any any (app-layer-event:dns.invalid_opcode; sid:6;)\n"
		"alert dns any any -> any any (app-layer-event:dns.malformed_data; dns.query; "
		"content:\"a\"; sid:7;)\n"
		"alert dns any any -> any any (flow:to_client; "
		"app-layer-event:dns.invalid_authorities; sid:8;)\n");
	uint8_t b[512];
	uint32_t n;
	uint64_t ts = T0;

	dns_exchange(h, 1, 0, 0, "a.test", 1, ts); /* a clean exchange first: the flow is DNS */
	n = dns_msg(b, 2, 0, 0, 0, "a.test", 1);
	b[3] |= 0x40; /* Z */
	udp_bytes(h, 1, b, n, ts += 10000);
	n = dns_msg(b, 3, 0, 0, 0, "a.test", 1); /* a query towards the client */
	udp_bytes(h, 0, b, n, ts += 10000);
	n = dns_msg(b, 4, 1, 0, 0, "a.test", 1); /* a response towards the server */
	udp_bytes(h, 1, b, n, ts += 10000);
	n = dns_msg(b, 5, 0, 0, 0, "a.test", 1);
	udp_bytes(h, 1, b, n - 3, ts += 10000); /* cut inside the question */
	udp_bytes(h, 1, b, 7, ts += 10000);	/* shorter than a header */
	n = dns_msg(b, 6, 0, 0, 0, "a.test", 1);
	b[12] = 0xc0; /* the question's name points at itself */
	b[13] = 12;
	udp_bytes(h, 1, b, n, ts += 10000);
	n = dns_msg(b, 7, 0, 9, 0, "a.test", 1); /* opcode 9 */
	udp_bytes(h, 1, b, n, ts += 10000);
	n = dns_msg(b, 8, 1, 0, 0, "a.test", 1); /* a response whose authority is cut */
	b[9] = 1;
	b[n++] = 0;
	b[n++] = 0;
	udp_bytes(h, 0, b, n, ts += 10000);
	cr_assert_eq(h_count(h, 1), 1);
	cr_assert_eq(h_count(h, 2), 1);
	cr_assert_eq(h_count(h, 3), 1);
	cr_assert_eq(h_count(h, 4), 3, "cut, short, the loop");
	cr_assert_eq(h_count(h, 5), 1);
	cr_assert_eq(h_count(h, 6), 1);
	cr_assert_eq(h_count(h, 7), 0, "a malformed message has no records");
	cr_assert_eq(h_count(h, 8), 1);
	harness_free(h);
	cr_assert_eq(mk_dns_event_lookup("z_flag_set"), MK_DNS_EV_Z_FLAG_SET);
	cr_assert_eq(mk_dns_event_lookup("flooded"), -1);
}

Test(app_kw, app_layer_event_names_and_protocols)
{
	struct mk_rule *r =
		rule_ok("alert tls any any -> any any (app-layer-event:tls.invalid_record_type; "
			"sid:1;)");

	cr_assert_eq(r->app_proto, MK_APP_TLS);
	cr_assert_eq(r->app_need, MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY);
	mk_rule_free(r);
	r = rule_ok("alert tls any any -> any any (flow:to_server; "
		    "app-layer-event:tls.error_message_encountered; sid:1;)");
	cr_assert_eq(r->app_to_client, 0);
	mk_rule_free(r);
	r = rule_ok("alert dns any any -> any any (app-layer-event:dns.not_a_request; sid:1;)");
	cr_assert_eq(r->app_proto, MK_APP_DNS);
	mk_rule_free(r);
	cr_assert(strstr(reject_text("alert dns any any -> any any (app-layer-event:dns.flooded; "
				     "sid:1;)"),
			 "'dns.flooded' is not an event meerkat raises"));
	cr_assert(
		strstr(reject_text("alert tls any any -> any any (app-layer-event:dns.z_flag_set; "
				   "sid:1;)"),
		       "a keyword of dns in a rule of another application protocol (tls)"));
	cr_assert(strstr(reject_text("alert tcp any any -> any any (app-layer-event:smtp.x; "
				     "sid:1;)"),
			 "only HTTP, DNS and TLS events"));
}
