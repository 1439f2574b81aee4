// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keyword forms at their edges, one test per documented form (docs/rules.md
 * says where meerkat differs): dsize and the integer forms it shares with
 * ttl, itype and friends; threshold and detection_filter tracked by flow,
 * backoff and unique_on; negated addresses in address-only rules; flow
 * state on sessions picked up midstream (both settings) and on UDP; flowbits
 * set and checked across the segments of a TCP dialogue. Frames go through
 * the test pipeline (test/detect/detect_harness.c).
 */
#include "detect_helpers.h"

static const char *reject_text(const char *rule)
{
	const char *err;
	int reason;
	struct mk_rule *r = rule_parse(rule, &err, &reason);

	cr_assert_null(r, "should be rejected: %s", rule);
	return err;
}

/* ---- dsize ------------------------------------------------------------------------- */

static const uint32_t dsizes[] = { 0, 1, 3, 4, 5, 100, 101, 199, 200, 1024, 1025 };

/* Alerts of a one-rule dsize harness over dsizes[]. */
static unsigned int dsize_hits(const char *expr)
{
	char rule[256];
	struct harness *h;
	unsigned int i, n;

	snprintf(rule, sizeof(rule), "alert udp any any -> any any (dsize:%s; sid:1;)\n", expr);
	h = harness_rules(rule);
	for (i = 0; i < MK_ARRAY_SIZE(dsizes); i++)
		udp_n(h, dsizes[i], T0 + i);
	n = h_count(h, 1);
	harness_free(h);
	return n;
}

Test(corners, dsize_equal)
{
	cr_assert_eq(dsize_hits("4"), 1);
	cr_assert_eq(dsize_hits("=4"), 1);
	cr_assert_eq(dsize_hits("0"), 1, "an empty payload has dsize 0");
	cr_assert_eq(dsize_hits("0x64"), 1, "hex: 100");
	cr_assert_eq(dsize_hits("1kb"), 1, "unit: 1024");
}

Test(corners, dsize_less_greater)
{
	cr_assert_eq(dsize_hits("<4"), 3, "0, 1, 3");
	cr_assert_eq(dsize_hits("<=4"), 4, "0, 1, 3, 4");
	cr_assert_eq(dsize_hits(">200"), 2, "1024, 1025");
	cr_assert_eq(dsize_hits(">=200"), 3, "200, 1024, 1025");
	cr_assert_eq(dsize_hits("> 1024"), 1, "spaces around the operator");
}

Test(corners, dsize_negated)
{
	cr_assert_eq(dsize_hits("!4"), MK_ARRAY_SIZE(dsizes) - 1);
	cr_assert_eq(dsize_hits("!=4"), MK_ARRAY_SIZE(dsizes) - 1);
	cr_assert_eq(dsize_hits("!0"), MK_ARRAY_SIZE(dsizes) - 1);
}

Test(corners, dsize_ranges_are_exclusive)
{
	cr_assert_eq(dsize_hits("100<>200"), 2, "101 and 199, not 100 nor 200");
	cr_assert_eq(dsize_hits("100-200"), 2, "N-M is the same range");
	cr_assert_eq(dsize_hits("!100-200"), MK_ARRAY_SIZE(dsizes) - 2, "outside: 100, 200 in");
	cr_assert_eq(dsize_hits("!100<>200"), MK_ARRAY_SIZE(dsizes) - 2);
	cr_assert_eq(dsize_hits("3<>5"), 1, "just 4");
}

Test(corners, dsize_bitmask)
{
	/* 0x400 set: 1024, 1025 */
	cr_assert_eq(dsize_hits("&0x400=0x400"), 2);
	cr_assert_eq(dsize_hits("&0x400!=0x400"), MK_ARRAY_SIZE(dsizes) - 2);
	/* low bit set: 1, 3, 5, 101, 199, 1025 */
	cr_assert_eq(dsize_hits("&1=1"), 6);
}

Test(corners, dsize_refusals)
{
	const char *bad[] = { "<0",    ">65535", "<=65535", ">=0", "4<>5", "5<>4",
			      "65536", "&1=2",	 "!<4",	    "4<>", "abc",  "64kb" };
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(bad); i++) {
		char rule[128];

		snprintf(rule, sizeof(rule), "alert udp any any -> any any (dsize:%s; sid:1;)",
			 bad[i]);
		cr_assert(strstr(reject_text(rule), "keyword 'dsize'"), "%s", bad[i]);
	}
	cr_assert(strstr(reject_text("alert udp any any -> any any (dsize:1; dsize:2; sid:1;)"),
			 "given twice"));
}

/* dsize is the packet's payload: a TCP rule with it reads segments, not the stream. */
Test(corners, dsize_applies_to_packets_not_the_stream)
{
	struct harness *h = harness_rules(
		"alert tcp any any -> any any (dsize:4; content:\"abcd\"; sid:1;)\n"
		"alert tcp any any -> any any (dsize:>4; content:\"abcdef\"; sid:2;)\n"
		"alert tcp any any -> any any (content:\"abcdef\"; sid:3;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, T0);
	conv_data(&c, 1, "abcd");
	conv_data(&c, 1, "ef");
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 1), 1, "the 4-byte segment");
	cr_assert_eq(h_count(h, 2), 0, "no segment holds abcdef");
	cr_assert_eq(h_count(h, 3), 1, "the stream does");
	harness_free(h);
}

/* ---- address-only rules with negated addresses -------------------------------------- */

static void udp_dialogue(struct harness *h, const char *cli, const char *srv, uint64_t ts)
{
	int i;

	for (i = 0; i < 3; i++) {
		udp(h, cli, 5000, srv, 53, "q", ts + (uint64_t)i * 10);
		udp(h, srv, 53, cli, 5000, "r", ts + (uint64_t)i * 10 + 5);
	}
}

Test(corners, iponly_negated_addresses_both_families)
{
	struct harness *h = harness_rules(
		"alert ip !$HOME_NET any -> $HOME_NET any (sid:10;)\n"
		"alert ip $HOME_NET any -> !$HOME_NET any (sid:11;)\n"
		"alert ip ![10.0.0.1,10.0.0.2] any -> any any (sid:12;)\n"
		"alert ip [10.1.0.0/16,!10.1.2.0/24] any -> any any (sid:13;)\n"
		"alert ip any any -> [10.1.0.0/16,!10.1.2.0/24] any (sid:14;)\n"
		"alert ip [2001:db8::/32,!2001:db8:1::/48] any -> !$HOME_NET any (sid:15;)\n"
		"alert ip ![2001:db8::1,2001:db8::2] any -> any any (sid:16;)\n");
	struct mk_rule *r = rule_ok("alert ip [2001:db8::/32,!2001:db8:1::/48] any -> "
				    "!$HOME_NET any (sid:15;)");

	cr_assert(r->flags & MK_RF_IPONLY, "address-only: looked up by address");
	mk_rule_free(r);
	udp_dialogue(h, "10.1.1.5", "8.8.8.8", T0);
	udp_dialogue(h, "10.1.2.7", "10.0.0.1", T0 + 1000);
	udp_dialogue(h, "2001:db8:2::5", "2001:4860::8888", T0 + 2000);
	udp_dialogue(h, "2001:db8:1::9", "2001:4860::1", T0 + 3000);
	udp_dialogue(h, "2001:db8::1", "2001:db8::2", T0 + 4000);
	cr_assert_eq(h_count(h, 10), 3, "replies from outside, v4 and v6, once per flow");
	cr_assert_eq(h_count(h, 11), 3, "requests to outside, v4 and v6");
	cr_assert_eq(h_count(h, 12), 3,
		     "both directions of the first flow, the request of the second; an IPv4 "
		     "negation says nothing of IPv6");
	cr_assert_eq(h_count(h, 13), 1, "10.1.1.5 only: 10.1.2.0/24 is cut out");
	cr_assert_eq(h_count(h, 14), 1, "to 10.1.1.5 only");
	cr_assert_eq(h_count(h, 15), 1, "2001:db8:2::5 out; 2001:db8:1::/48 is cut out");
	cr_assert_eq(h_count(h, 16), 4, "both directions of the two flows to 2001:4860::");
	harness_free(h);
}

/* ---- threshold and detection_filter: by_flow, backoff, unique_on ---------------------- */

/* @n datagrams "x" on each of two flows from the same source. */
static void two_flows(struct harness *h, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		udp(h, "10.0.0.1", 6000, "10.0.0.2", 53, "x", T0 + (uint64_t)i * 1000);
		udp(h, "10.0.0.1", 6001, "10.0.0.2", 53, "x", T0 + (uint64_t)i * 1000 + 500);
	}
}

Test(corners, threshold_track_by_flow)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"x\"; threshold:type limit, track by_flow, "
		"count 2, seconds 60; sid:1;)\n"
		"alert udp any any -> any any (content:\"x\"; threshold:type limit, track by_src, "
		"count 2, seconds 60; sid:2;)\n"
		"alert udp any any -> any any (content:\"x\"; threshold:type threshold, track "
		"by_flow, count 2, seconds 60; sid:3;)\n"
		"alert udp any any -> any any (content:\"x\"; threshold:type both, track by_flow, "
		"count 3, seconds 60; sid:4;)\n");

	two_flows(h, 5);
	cr_assert_eq(h_count(h, 1), 4, "two per flow");
	cr_assert_eq(h_count(h, 2), 2, "two for the source");
	cr_assert_eq(h_count(h, 3), 4, "the 2nd and 4th match of each flow");
	cr_assert_eq(h_count(h, 4), 2, "once per flow, at its 3rd match");
	harness_free(h);
}

Test(corners, detection_filter_track_by_flow)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"x\"; detection_filter:track by_flow, "
		"count 2, seconds 60; sid:1;)\n"
		"alert udp any any -> any any (content:\"x\"; detection_filter:track by_src, "
		"count 2, seconds 60; sid:2;)\n");

	two_flows(h, 5);
	cr_assert_eq(h_count(h, 1), 6, "from the 3rd match of each flow on");
	cr_assert_eq(h_count(h, 2), 8, "from the source's 3rd match on");
	harness_free(h);
}

Test(corners, threshold_backoff_by_flow)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"x\"; threshold:type backoff, track "
		"by_flow, count 1, multiplier 2; sid:1;)\n"
		"alert udp any any -> any any (content:\"x\"; threshold:type backoff, track "
		"by_flow, count 5, multiplier 5; sid:2;)\n");
	int i;

	for (i = 0; i < 30; i++)
		udp(h, "10.0.0.1", 6000, "10.0.0.2", 53, "x", T0 + (uint64_t)i * 1000);
	cr_assert_eq(h_count(h, 1), 5, "matches 1, 2, 4, 8, 16");
	cr_assert_eq(h_count(h, 2), 2, "matches 5, 25");
	harness_free(h);
}

Test(corners, detection_filter_unique_on_dst_port)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"x\"; detection_filter:track by_src, "
		"count 2, seconds 60, unique_on dst_port; sid:1;)\n");
	uint16_t ports[] = { 80, 80, 81, 81, 82, 80 };
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(ports); i++)
		udp(h, "10.0.0.1", 6000, "10.0.0.2", ports[i], "x", T0 + i * 1000);
	cr_assert_eq(h_count(h, 1), 2, "the third distinct port, and every match after it");
	/* a new window counts again */
	for (i = 0; i < 3; i++)
		udp(h, "10.0.0.1", 6000, "10.0.0.2", (uint16_t)(83 + i), "x",
		    T0 + 61000000 + i * 1000);
	cr_assert_eq(h_count(h, 1), 3);
	harness_free(h);
}

Test(corners, detection_filter_unique_on_src_port)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"x\"; detection_filter:track by_dst, "
		"count 1, seconds 60, unique_on src_port; sid:1;)\n");

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 53, "x", T0);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 53, "x", T0 + 1000);
	cr_assert_eq(h_count(h, 1), 0, "one source port, twice");
	udp(h, "10.0.0.3", 1001, "10.0.0.2", 53, "x", T0 + 2000);
	cr_assert_eq(h_count(h, 1), 1, "a second source port to the same destination");
	harness_free(h);
}

Test(corners, threshold_forms_refused)
{
	static const struct {
		const char *opt, *text;
	} bad[] = {
		{ "threshold:type backoff, track by_src, count 1, multiplier 2;",
		  "type backoff needs track by_flow" },
		{ "threshold:type backoff, track by_flow, count 1, seconds 60;",
		  "needs track by_flow, count and multiplier (no seconds)" },
		{ "threshold:type limit, track by_flow, count 1, seconds 60, multiplier 2;",
		  "multiplier is for type backoff" },
		{ "threshold:type limit, track by_flow, count 1, seconds 60, unique_on dst_port;",
		  "unexpected 'unique_on'" },
		{ "detection_filter:track by_src, count 1, seconds 60, unique_on proto;",
		  "bad value 'proto' for 'unique_on'" },
		{ "detection_filter:track by_flow, count 0, seconds 60;", "bad value '0'" },
	};
	unsigned int i;
	char rule[256];

	for (i = 0; i < MK_ARRAY_SIZE(bad); i++) {
		snprintf(rule, sizeof(rule), "alert udp any any -> any any (%s sid:1;)",
			 bad[i].opt);
		cr_assert(strstr(reject_text(rule), bad[i].text), "%s: %s", bad[i].opt,
			  reject_text(rule));
	}
	cr_assert(strstr(reject_text("alert ip any any -> any any (detection_filter:track by_dst, "
				     "count 2, seconds 60, unique_on dst_port; sid:1;)"),
			 "unique_on needs a protocol with ports"));
}

/* ---- flow state: midstream pickup (both settings) and UDP ---------------------------- */

#define FLOW_RULES                                                            \
	"alert tcp any any -> any any (flow:established; sid:1;)\n"           \
	"alert tcp any any -> any any (flow:not_established; sid:2;)\n"       \
	"alert tcp any any -> any any (flow:established,to_server; sid:3;)\n" \
	"alert tcp any any -> any any (flow:to_server; sid:4;)\n"             \
	"alert tcp any any -> any any (flow:to_client; sid:5;)\n"             \
	"alert tcp any any -> any any (flow:established,to_client; sid:6;)\n" \
	"alert tcp any any -> any any (flow:established; content:\"data\"; sid:7;)\n"

static struct harness *harness_midstream(int midstream)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct mk_detect_cfg cfg = test_cfg;

	cr_assert_not_null(h);
	cfg.rules_text = FLOW_RULES;
	cfg.rules_text_name = "test.rules";
	cr_assert_eq(h_init_midstream(h, &cfg, midstream), 0);
	cr_assert_eq(mk_detect_engine_stats(h->eng)->failed, 0);
	return h;
}

/* Three data segments from the client only: no handshake, no reply (one side seen). */
static void one_sided(struct harness *h)
{
	struct conv c = { .h = h,
			  .cli = "10.0.0.1",
			  .srv = "10.0.0.2",
			  .cport = 40000,
			  .sport = 80,
			  .ts = T0,
			  .cseq = 1000,
			  .sseq = 5000 };
	int i;

	for (i = 0; i < 3; i++) {
		conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, c.cseq, c.sseq, "data", 4);
		c.cseq += 4;
	}
}

/* Client data, server data, client ACK: no handshake, both sides seen. */
static void dialogue_midstream(struct harness *h)
{
	struct conv c = { .h = h,
			  .cli = "10.0.0.1",
			  .srv = "10.0.0.2",
			  .cport = 40001,
			  .sport = 80,
			  .ts = T0,
			  .cseq = 1000,
			  .sseq = 5000 };

	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, c.cseq, c.sseq, "data", 4);
	c.cseq += 4;
	conv_send(&c, 0, MK_TCP_PSH | MK_TCP_ACK, c.sseq, c.cseq, "data", 4);
	c.sseq += 4;
	conv_send(&c, 1, MK_TCP_ACK, c.cseq, c.sseq, NULL, 0);
}

Test(corners, flow_midstream_on_one_sided)
{
	struct harness *h = harness_midstream(1);

	one_sided(h);
	cr_assert_eq(h_count(h, 2), 1, "the packet that picked the session up");
	cr_assert_eq(h_count(h, 1), 2, "the session is established from then on");
	cr_assert_eq(h_count(h, 3), 2);
	cr_assert_eq(h_count(h, 4), 3, "to_server: the first packet's direction");
	cr_assert_eq(h_count(h, 5), 0);
	harness_free(h);
}

Test(corners, flow_midstream_off_one_sided)
{
	struct harness *h = harness_midstream(0);

	one_sided(h);
	cr_assert_eq(h_count(h, 1), 0, "no session and no reply: never established");
	cr_assert_eq(h_count(h, 2), 3);
	cr_assert_eq(h_count(h, 4), 3, "to_server all the same");
	cr_assert_eq(h_count(h, 7), 0);
	harness_free(h);
}

Test(corners, flow_midstream_on_dialogue)
{
	struct harness *h = harness_midstream(1);

	dialogue_midstream(h);
	cr_assert_eq(h_count(h, 2), 1, "the first packet");
	cr_assert_eq(h_count(h, 1), 2);
	cr_assert_eq(h_count(h, 3), 1, "the client's ACK");
	cr_assert_eq(h_count(h, 5), 1, "the server's data");
	cr_assert_eq(h_count(h, 6), 1);
	harness_free(h);
}

Test(corners, flow_midstream_off_dialogue)
{
	struct harness *h = harness_midstream(0);

	dialogue_midstream(h);
	cr_assert_eq(h_count(h, 2), 1, "the first packet: one side seen");
	cr_assert_eq(h_count(h, 1), 2, "from the reply on: both sides seen");
	cr_assert_eq(h_count(h, 3), 1);
	cr_assert_eq(h_count(h, 4), 2);
	cr_assert_eq(h_count(h, 6), 1);
	/* a difference (docs/rules.md): Suricata reads the packet when there is no stream */
	cr_assert_eq(h_count(h, 7), 0, "a stream rule: no session, no stream to read");
	harness_free(h);
}

Test(corners, flow_handshake_either_setting)
{
	int midstream;

	for (midstream = 0; midstream <= 1; midstream++) {
		struct harness *h = harness_midstream(midstream);
		struct conv c;

		conv_open(&c, h, "10.0.0.1", 40002, "10.0.0.2", 80, T0);
		conv_data(&c, 1, "data");
		cr_assert_eq(h_count(h, 2), 1, "only the SYN (midstream %d)", midstream);
		cr_assert_eq(h_count(h, 1), 4, "SYN/ACK, ACK, data, its ACK (midstream %d)",
			     midstream);
		harness_free(h);
	}
}

Test(corners, flow_udp_established_and_direction)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (flow:established,to_server; sid:1;)\n"
		"alert udp any any -> any any (flow:established,to_client; sid:2;)\n"
		"alert udp any any -> any any (flow:not_established,to_server; sid:3;)\n"
		"alert udp any any -> any any (flow:to_client; sid:4;)\n");

	/* the first datagram goes to port 5353 from 53: to_server is its direction */
	udp(h, "10.0.0.2", 53, "10.0.0.1", 5353, "a", T0);
	udp(h, "10.0.0.2", 53, "10.0.0.1", 5353, "b", T0 + 10);
	udp(h, "10.0.0.1", 5353, "10.0.0.2", 53, "c", T0 + 20);
	udp(h, "10.0.0.2", 53, "10.0.0.1", 5353, "d", T0 + 30);
	cr_assert_eq(h_count(h, 3), 2, "before any reply");
	cr_assert_eq(h_count(h, 2), 1, "the reply: both directions seen");
	cr_assert_eq(h_count(h, 1), 1, "the first direction, after the reply");
	cr_assert_eq(h_count(h, 4), 1);
	harness_free(h);
}

/* ---- flowbits across the stream segments of a dialogue -------------------------------- */

Test(corners, flowbits_across_stream_segments)
{
	struct harness *h = harness_rules(
		"alert tcp any any -> any any (flow:to_server; content:\"LOGIN\"; "
		"flowbits:set,auth; flowbits:noalert; sid:1;)\n"
		"alert tcp any any -> any any (flow:to_client; content:\"WELCOME\"; "
		"flowbits:isset,auth; sid:2;)\n"
		"alert tcp any any -> any any (flow:to_client; content:\"WELCOME\"; "
		"flowbits:isnotset,auth; sid:3;)\n"
		"alert tcp any any -> any any (flow:to_server; content:\"CMD\"; "
		"flowbits:isset,auth; sid:4;)\n"
		"alert tcp any any -> any any (flow:to_server; content:\"LOGOUT\"; "
		"flowbits:unset,auth; noalert; sid:5;)\n"
		"alert tcp any any -> any any (flow:to_server; content:\"TOGGLE\"; "
		"flowbits:toggle,tg; noalert; sid:6;)\n"
		"alert tcp any any -> any any (content:\"PING\"; flowbits:isset,tg; sid:7;)\n"
		"alert tcp any any -> any any (content:\"PING\"; flowbits:isnotset,tg; sid:8;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40010, "10.0.0.2", 110, T0);
	conv_data(&c, 1, "LOGIN bob\r\n");
	conv_data(&c, 0, "WELCOME bob\r\n");
	conv_data(&c, 1, "CMD ls\r\n");
	conv_data(&c, 1, "LOGOUT\r\n");
	conv_data(&c, 1, "CMD rm\r\n");
	conv_data(&c, 1, "TOGGLE\r\n");
	conv_data(&c, 1, "PING\r\n");
	conv_data(&c, 1, "TOGGLE\r\n");
	conv_data(&c, 1, "PING\r\n");
	conv_close(&c);

	conv_open(&c, h, "10.0.0.1", 40011, "10.0.0.2", 110, T0 + 5000000);
	conv_data(&c, 1, "HELLO\r\n");
	conv_data(&c, 0, "WELCOME\r\n");
	conv_data(&c, 1, "CMD ls\r\n");
	conv_data(&c, 1, "PING\r\n");
	conv_close(&c);
	h_finish(h);

	cr_assert_eq(h_count(h, 1) + h_count(h, 5) + h_count(h, 6), 0, "noalert");
	cr_assert_eq(h_count(h, 2), 1, "the response sees the bit the request set");
	cr_assert_eq(h_count(h, 3), 1, "the second flow never logged in");
	cr_assert_eq(h_count(h, 4), 1, "a later segment of the same direction; not after unset");
	cr_assert_eq(h_count(h, 7), 1, "after the first toggle");
	cr_assert_eq(h_count(h, 8), 2, "after the second toggle, and on the second flow");
	harness_free(h);
}

/* ---- xbits: a host's bit seen by its other flows, until it expires ------------------- */

Test(corners, xbits_by_host_across_flows_and_expiry)
{
	struct harness *h =
		harness_rules("alert udp any any -> any any (content:\"MARK\"; "
			      "xbits:set,seen,track ip_src,expire 10; noalert; sid:1;)\n"
			      "alert udp any any -> any any (content:\"PROBE\"; "
			      "xbits:isset,seen,track ip_src; sid:2;)\n"
			      "alert udp any any -> any any (content:\"PROBE\"; "
			      "xbits:isnotset,seen,track ip_src; sid:3;)\n"
			      "alert udp any any -> any any (content:\"BACK\"; "
			      "xbits:isset,seen,track ip_dst; sid:4;)\n"
			      "alert udp any any -> any any (content:\"JOIN\"; "
			      "xbits:set,p,track ip_pair; noalert; sid:5;)\n"
			      "alert udp any any -> any any (content:\"ASKPAIR\"; "
			      "xbits:isset,p,track ip_pair; sid:6;)\n");

	/* 10.0.0.1 marked on one flow; its other flows see it, other hosts do not */
	udp(h, "10.0.0.1", 1000, "10.0.0.9", 53, "MARK", T0);
	udp(h, "10.0.0.1", 1001, "10.0.0.8", 53, "PROBE", T0 + 1000000);
	udp(h, "10.0.0.2", 1002, "10.0.0.8", 53, "PROBE", T0 + 2000000);
	/* the marked host as destination: track ip_dst */
	udp(h, "10.0.0.7", 1003, "10.0.0.1", 53, "BACK", T0 + 3000000);
	/* expire 10: gone 11 s after the mark */
	udp(h, "10.0.0.1", 1004, "10.0.0.8", 53, "PROBE", T0 + 11000000);
	/* a pair, in either direction, and not another pair */
	udp(h, "10.0.0.3", 1005, "10.0.0.4", 53, "JOIN", T0 + 12000000);
	udp(h, "10.0.0.4", 1006, "10.0.0.3", 53, "ASKPAIR", T0 + 12500000);
	udp(h, "10.0.0.4", 1007, "10.0.0.5", 53, "ASKPAIR", T0 + 12600000);
	h_finish(h);

	cr_assert_eq(h_count(h, 1) + h_count(h, 5), 0, "noalert");
	cr_assert_eq(h_count(h, 2), 1, "another flow of the marked source");
	cr_assert_eq(h_count(h, 3), 2, "another source, and after the expiry");
	cr_assert_eq(h_count(h, 4), 1, "the marked host as destination");
	cr_assert_eq(h_count(h, 6), 1, "the pair both ways, not another pair");
	harness_free(h);
}

Test(corners, xbits_parse_errors)
{
	const char *err;
	int reason;

	cr_assert_null(
		rule_parse("alert udp any any -> any any (xbits:set,x; sid:1;)", &err, &reason));
	cr_assert_null(rule_parse(
		"alert udp any any -> any any (xbits:set,x,track ip_host; sid:1;)", &err, &reason));
	cr_assert(strstr(err, "ip_src"), "%s", err);
	cr_assert_null(rule_parse(
		"alert udp any any -> any any (xbits:set,x,track ip_src,expire 0; sid:1;)", &err,
		&reason));
	cr_assert_null(rule_parse(
		"alert udp any any -> any any (xbits:flip,x,track ip_src; sid:1;)", &err, &reason));
}
