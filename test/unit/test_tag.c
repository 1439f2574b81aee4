// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tag keyword (userspace/detect/kw/tag.c) through the test pipeline:
 * session tags of packets, seconds and bytes, host tags of the source or
 * the destination, the worker's EVE packet records (types.alert.
 * tagged-packets) read back and decoded, the host table's bound, and the
 * parser's errors.
 */
#include <errno.h>
#include <jansson.h>
#include "detect_helpers.h"
#include "eve_packet.h"

#define REC_MAX 512

/* A packet record read back: its UDP payload and its fields. */
struct pkt_rec {
	char payload[64];
	uint64_t flow_id;
	int linktype;
	char src_ip[64];
};

static struct pkt_rec recs[REC_MAX];

static struct harness *tag_harness(const char *rules, int log)
{
	struct harness *h = harness_rules(rules);

	h->eve = tmpfile();
	cr_assert_not_null(h->eve);
	h->eve_opts.tagged_packets = log;
	return h;
}

/* The packet records written so far, in order. */
static unsigned int read_recs(struct harness *h)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned int n = 0;

	fflush(h->eve);
	rewind(h->eve);
	while (getline(&line, &cap, h->eve) > 0) {
		json_error_t jerr;
		json_t *j = json_loads(line, 0, &jerr);
		const char *b64;
		uint8_t raw[2048];
		uint32_t len, off;

		cr_assert_not_null(j, "not JSON: %s", line);
		if (strcmp(json_string_value(json_object_get(j, "event_type")), "packet")) {
			json_decref(j);
			continue;
		}
		cr_assert_lt(n, REC_MAX);
		b64 = json_string_value(json_object_get(j, "packet"));
		cr_assert_not_null(b64, "%s", line);
		len = mk_base64_decode((const uint8_t *)b64, (uint32_t)strlen(b64), raw,
				       sizeof(raw), NULL);
		/* an IP packet from its header on: IPv4 without options, or IPv6, then UDP */
		cr_assert(len >= 28 && (raw[0] == 0x45 || raw[0] >> 4 == 6), "%s", line);
		off = raw[0] == 0x45 ? 28 : 48;
		cr_assert_geq(len, off, "%s", line);
		snprintf(recs[n].payload, sizeof(recs[n].payload), "%.*s", (int)(len - off),
			 (const char *)raw + off);
		recs[n].flow_id = (uint64_t)json_integer_value(json_object_get(j, "flow_id"));
		recs[n].linktype = (int)json_integer_value(
			json_object_get(json_object_get(j, "packet_info"), "linktype"));
		snprintf(recs[n].src_ip, sizeof(recs[n].src_ip), "%s",
			 json_string_value(json_object_get(j, "src_ip")));
		n++;
		json_decref(j);
	}
	free(line);
	fseek(h->eve, 0, SEEK_END);
	return n;
}

static uint64_t tagged(const struct harness *h)
{
	return mk_detect_thread_counters(h->t)[MK_DETECT_CNT_TAGGED];
}

static void tag_free(struct harness *h)
{
	fclose(h->eve);
	h->eve = NULL;
	harness_free(h);
}

#define S(x) (T0 + (uint64_t)(x)*1000000)

Test(tag, session_packets_exactly_the_next_n_of_the_flow)
{
	struct harness *h = tag_harness(
		"alert udp any any -> any any (content:\"trigger\"; tag:session,3,packets; sid:1;)\n",
		1);
	unsigned int n;

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a0", S(0));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(1));
	udp(h, "10.0.0.3", 1001, "10.0.0.2", 2000, "b1", S(2)); /* another flow */
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a1", S(3));
	udp(h, "10.0.0.2", 2000, "10.0.0.1", 1000, "r1", S(4)); /* the reply counts */
	udp(h, "10.0.0.3", 1001, "10.0.0.2", 2000, "b2", S(5));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a2", S(6));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a3", S(7));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a4", S(8));
	cr_assert_eq(h_count(h, 1), 1);
	n = read_recs(h);
	cr_assert_eq(n, 3, "the 3 packets after the alert, not %u", n);
	cr_assert_str_eq(recs[0].payload, "a1");
	cr_assert_str_eq(recs[1].payload, "r1");
	cr_assert_str_eq(recs[2].payload, "a2");
	cr_assert_eq(recs[0].flow_id, recs[2].flow_id);
	cr_assert_neq(recs[0].flow_id, 0);
	cr_assert_eq(recs[0].linktype, 101);
	cr_assert_eq(tagged(h), 3);
	cr_assert_eq(h->w.cnt[MK_WORKER_PACKET_RECORDS], 3);
	tag_free(h);
}

Test(tag, session_default_is_256_packets_and_a_new_alert_restarts_it)
{
	struct harness *h = tag_harness(
		"alert udp any any -> any any (content:\"trigger\"; tag:session; sid:1;)\n", 1);
	unsigned int i;

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	for (i = 0; i < 300; i++)
		udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "x", S(1) + i);
	cr_assert_eq(read_recs(h), 256);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(2));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "y", S(3));
	cr_assert_eq(read_recs(h), 257);
	cr_assert_str_eq(recs[256].payload, "y");
	tag_free(h);
}

Test(tag, session_seconds)
{
	struct harness *h = tag_harness(
		"alert udp any any -> any any (content:\"trigger\"; tag:session,2,seconds; sid:1;)\n",
		1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(10));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "in1", S(10) + 500000);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "in2", S(11) + 900000);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "out", S(12) + 100000);
	cr_assert_eq(read_recs(h), 2);
	cr_assert_str_eq(recs[0].payload, "in1");
	cr_assert_str_eq(recs[1].payload, "in2");
	tag_free(h);
}

Test(tag, session_bytes_of_the_ip_packets)
{
	/* 28 header bytes + 22 payload: 50 bytes a packet; the one reaching 100 is tagged */
	struct harness *h = tag_harness(
		"alert udp any any -> any any (content:\"trigger\"; tag:session,100,bytes; sid:1;)\n",
		1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "1234567890123456789011", S(1));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "1234567890123456789012", S(2));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "1234567890123456789013", S(3));
	cr_assert_eq(read_recs(h), 2);
	cr_assert_str_eq(recs[1].payload, "1234567890123456789012");
	tag_free(h);
}

Test(tag, host_src_tags_that_host_in_any_flow_both_ways)
{
	struct harness *h = tag_harness("alert udp any any -> any any (content:\"trigger\"; "
					"tag:host,2,packets,src; sid:1;)\n",
					1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.2", 2000, "10.0.0.9", 53, "not-src", S(1)); /* the alert's destination */
	udp(h, "10.0.0.1", 1001, "10.0.0.9", 53, "from", S(2));
	udp(h, "10.0.0.5", 1002, "10.0.0.1", 80, "to", S(3));
	udp(h, "10.0.0.1", 1003, "10.0.0.9", 53, "spent", S(4));
	cr_assert_eq(read_recs(h), 2);
	cr_assert_str_eq(recs[0].payload, "from");
	cr_assert_str_eq(recs[1].payload, "to");
	cr_assert_neq(recs[0].flow_id, recs[1].flow_id, "two flows");
	tag_free(h);
}

Test(tag, host_default_is_the_destination)
{
	struct harness *h = tag_harness(
		"alert udp any any -> any any (content:\"trigger\"; tag:host; sid:1;)\n", 1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.1", 1001, "10.0.0.8", 53, "src-only", S(1));
	udp(h, "10.0.0.7", 1002, "10.0.0.2", 80, "dst", S(2));
	cr_assert_eq(read_recs(h), 1);
	cr_assert_str_eq(recs[0].payload, "dst");
	cr_assert_str_eq(recs[0].src_ip, "10.0.0.7");
	tag_free(h);
}

Test(tag, host_seconds_expire)
{
	struct harness *h = tag_harness("alert udp any any -> any any (content:\"trigger\"; "
					"tag:host,5,seconds,dst; sid:1;)\n",
					1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.3", 1000, "10.0.0.2", 2000, "in", S(4));
	udp(h, "10.0.0.3", 1000, "10.0.0.2", 2000, "out", S(6));
	cr_assert_eq(read_recs(h), 1);
	cr_assert_str_eq(recs[0].payload, "in");
	tag_free(h);
}

Test(tag, host_ipv6)
{
	struct harness *h = tag_harness("alert udp any any -> any any (content:\"trigger\"; "
					"tag:host,1,packets,src; sid:1;)\n",
					1);

	udp(h, "2001:db8::1", 1000, "2001:db8::2", 2000, "trigger", S(0));
	udp(h, "2001:db8::2", 1000, "2001:db8::9", 2000, "no", S(1));
	udp(h, "2001:db8::9", 1000, "2001:db8::1", 2000, "yes", S(2));
	udp(h, "2001:db8::9", 1000, "2001:db8::1", 2000, "spent", S(3));
	cr_assert_eq(read_recs(h), 1);
	cr_assert_str_eq(recs[0].payload, "yes");
	cr_assert_str_eq(recs[0].src_ip, "2001:db8::9");
	tag_free(h);
}

Test(tag, host_from_a_stream_match_is_the_data_direction)
{
	/* the match is on the stream, released by the server's ACK: the data's source is the client */
	struct harness *h = tag_harness(
		"alert tcp any any -> any any (flow:to_server,only_stream; content:\"secret\"; "
		"tag:host,1,packets,src; sid:1;)\n",
		1);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, S(0));
	conv_data(&c, 1, "the secret");
	cr_assert_eq(h_count(h, 1), 1);
	udp(h, "10.0.0.2", 1000, "10.0.0.9", 2000, "server", S(1));
	udp(h, "10.0.0.1", 1000, "10.0.0.9", 2000, "client", S(2));
	cr_assert_eq(read_recs(h), 1);
	cr_assert_str_eq(recs[0].payload, "client");
	tag_free(h);
}

Test(tag, host_tag_counts_a_reused_port_syn_once)
{
	/* the SYN reopening closed ports is seen by the old flow, then by its new one */
	struct harness *h = tag_harness("alert udp any any -> any any (content:\"trigger\"; "
					"tag:host,2,packets,dst; sid:1;)\n",
					0);
	struct conv c;
	struct frame f;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, S(0));
	conv_close(&c);
	udp(h, "10.0.0.5", 1000, "10.0.0.2", 2000, "trigger", S(1));
	cr_assert_eq(tagged(h), 0);
	frame_tcp(&f, "10.0.0.1", 40000, "10.0.0.2", 80, 900000, 0, MK_TCP_SYN, NULL, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, S(2));
	cr_assert_eq(h->w.cnt[MK_WORKER_TCP_REUSE], 1, "the SYN reused the ports");
	frame_tcp(&f, "10.0.0.2", 80, "10.0.0.1", 40000, 700000, 900001, MK_TCP_SYN | MK_TCP_ACK,
		  NULL, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, S(2) + 1000);
	cr_assert_eq(tagged(h), 2, "the SYN once, and the SYN/ACK: %llu",
		     (unsigned long long)tagged(h));
	tag_free(h);
}

Test(tag, noalert_rule_tags_too)
{
	struct harness *h = tag_harness("alert udp any any -> any any (content:\"trigger\"; "
					"noalert; tag:session,1,packets; sid:1;)\n",
					1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "next", S(1));
	cr_assert_eq(h_count(h, 1), 0);
	cr_assert_eq(read_recs(h), 1);
	cr_assert_str_eq(recs[0].payload, "next");
	tag_free(h);
}

Test(tag, not_logged_without_tagged_packets_but_counted)
{
	struct harness *h = tag_harness(
		"alert udp any any -> any any (content:\"trigger\"; tag:session,2,packets; sid:1;)\n",
		0);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a", S(1));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "b", S(2));
	cr_assert_eq(read_recs(h), 0);
	cr_assert_eq(tagged(h), 2);
	cr_assert_eq(h->w.cnt[MK_WORKER_PACKET_RECORDS], 0);
	tag_free(h);
}

Test(tag, no_tag_rule_no_tagged_packets)
{
	struct harness *h =
		tag_harness("alert udp any any -> any any (content:\"trigger\"; sid:1;)\n", 1);

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "trigger", S(0));
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "a", S(1));
	cr_assert_eq(read_recs(h), 0);
	cr_assert_eq(tagged(h), 0);
	cr_assert_eq(h->t->tag_used, 0, "the packet path never looked");
	tag_free(h);
}

Test(tag, host_table_full_is_counted)
{
	struct harness *h = tag_harness("alert udp any any -> any any (content:\"trigger\"; "
					"tag:host,60,seconds,dst; sid:1;)\n",
					0);
	const uint64_t *cnt = mk_detect_thread_counters(h->t);
	char dst[32];
	unsigned int i;

	for (i = 0; i < MK_TAG_HOSTS + 1000; i++) {
		snprintf(dst, sizeof(dst), "10.%u.%u.1", i >> 8 & 255, i & 255);
		udp(h, "192.168.0.1", 1000, dst, 2000, "trigger", S(0) + i);
	}
	cr_assert_eq(cnt[MK_DETECT_CNT_ALERTS], MK_TAG_HOSTS + 1000);
	cr_assert_geq(cnt[MK_DETECT_CNT_TAG_HOSTS_FULL], 1000, "at least the slots past the table");
	cr_assert_eq(h->t->tag_nhosts + cnt[MK_DETECT_CNT_TAG_HOSTS_FULL], MK_TAG_HOSTS + 1000);
	tag_free(h);
}

static void parse_fails(const char *value, const char *want)
{
	char rule[256];
	const char *err = NULL;
	struct mk_rule *r;

	snprintf(rule, sizeof(rule), "alert udp any any -> any any (tag:%s; sid:1;)", value);
	r = rule_parse(rule, &err, NULL);
	cr_assert_null(r, "should fail: %s", rule);
	cr_assert(strstr(err, want), "%s\n  error: %s\n  wanted: %s", rule, err, want);
}

Test(tag, parse_errors_name_the_value)
{
	parse_fails("flow", "'flow' is not session or host");
	parse_fails("session,10", "'session,10': expected session|host");
	parse_fails("session,0,packets", "count '0'");
	parse_fails("session,x,packets", "count 'x'");
	parse_fails("host,10,minutes", "metric 'minutes' is not packets, seconds or bytes");
	parse_fails("session,10,packets,src", "direction 'src': only a host tag");
	parse_fails("host,10,packets,both", "direction 'both' is not src or dst");
	parse_fails("host,10,packets,src,x", "expected session|host");
}

Test(tag, parse_forms)
{
	mk_rule_free(rule_ok("alert udp any any -> any any (tag:session; sid:1;)"));
	mk_rule_free(rule_ok("alert udp any any -> any any (tag:host; sid:1;)"));
	mk_rule_free(rule_ok("alert udp any any -> any any (tag:session,10,bytes; sid:1;)"));
	mk_rule_free(rule_ok("alert udp any any -> any any (tag: host, 3600, seconds, dst; "
			     "tag:session,5,packets; sid:1;)"));
}

Test(tag, packet_record_truncation)
{
	static const uint8_t ip[] = { 0x45, 0,	  0,	29,   0, 1, 0,	0, 64, 17,
				      0,    0,	  10,	0,    0, 1, 10, 0, 0,  2,
				      0x03, 0xe8, 0x07, 0xd0, 0, 9, 0,	0, 'x' };
	struct mk_flow f;
	char buf[4096], small[4096];
	int n, k;

	memset(&f, 0, sizeof(f));
	f.key.family = MK_FAMILY_IPV4;
	f.key.proto = MK_IPPROTO_UDP;
	f.flow_id = 7;
	n = mk_eve_packet(buf, sizeof(buf), NULL, &f, T0, ip, sizeof(ip));
	cr_assert_gt(n, 0);
	cr_assert_leq((size_t)n + 1, mk_eve_packet_maxlen(sizeof(ip)));
	cr_assert(strstr(buf, "\"packet\":\"RQAAHQABAABAEQAACgAAAQoAAAID6AfQAAkAAHg=\""), "%s",
		  buf);
	for (k = 0; k <= n; k++) {
		memset(small, 'Z', sizeof(small));
		cr_assert_eq(mk_eve_packet(small, (size_t)k, NULL, &f, T0, ip, sizeof(ip)), -ENOSPC,
			     "size %d", k);
		cr_assert_eq(small[k], 'Z', "nothing written past %d", k);
	}
	cr_assert_eq(mk_eve_packet(small, (size_t)n + 1, NULL, &f, T0, ip, sizeof(ip)), n);
	cr_assert_str_eq(small, buf);
}
