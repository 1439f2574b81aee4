// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bypass manager's queue logic without maps (userspace/bypass/manager.c):
 * requests in, news out, limits, latency, commands, tuples; and the
 * worker's side: triggers and what the manager's news do to a flow.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "manager.h"
#include "worker.h"

static struct mk_flow_key key_of(unsigned int i)
{
	struct mk_flow_key k;
	char buf[128];
	char src[32], sport[16];

	snprintf(src, sizeof(src), "10.0.%u.%u", i >> 8, i & 0xff);
	snprintf(sport, sizeof(sport), "%u", 1024 + i);
	cr_assert_eq(mk_bypass_tuple_parse("tcp", src, sport, "192.0.2.1", "443", &k, buf,
					   sizeof(buf)),
		     0, "%s", buf);
	return k;
}

static struct mk_bypass_mgr *mgr_new(unsigned int max_flows, unsigned int queue,
				     unsigned int workers)
{
	struct mk_bypass_cfg cfg;
	struct mk_flow_cfg fc;
	struct mk_bypass_mgr *m;

	mk_bypass_cfg_defaults(&cfg);
	cfg.max_flows = max_flows;
	cfg.queue_size = queue;
	mk_flow_cfg_defaults(&fc);
	cr_assert_eq(mk_bypass_mgr_new(&m, &cfg, &fc, NULL, 0, workers, NULL, 0), 0);
	return m;
}

Test(bypass, requests_inserted_and_refused_when_full)
{
	struct mk_bypass_mgr *m = mgr_new(3, 16, 2);
	struct mk_worker_bypass_msg news[8];
	struct mk_bypass_mgr_stats st;
	struct mk_flow_key k;
	unsigned int i, n;

	for (i = 0; i < 5; i++) {
		k = key_of(i);
		cr_assert_eq(mk_bypass_mgr_request(m, i % 2, &k, 100 + i), 0);
	}
	mk_bypass_mgr_poll(m, 0);
	mk_bypass_mgr_stats(m, &st);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_REQUESTS], 5);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_INSERTED], 3);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_FAIL_FULL], 2, "bypass.max-flows refuses, counted");
	cr_expect_eq(st.entries, 3);
	/* the refused flows' workers are told, nobody else */
	n = mk_bypass_mgr_news(m, 0, news, 8) + mk_bypass_mgr_news(m, 1, news + 4, 4);
	cr_assert_eq(n, 2, "%u news", n);
	for (i = 0; i < MK_BYPASS_LAT_BUCKETS; i++)
		n += (unsigned int)st.lat_hist[i];
	cr_expect_eq(n, 2 + 3, "every insert in the latency histogram");
	cr_expect_lt(st.lat_max_ns, 1000000000ull);
	mk_bypass_mgr_free(m);
}

Test(bypass, failed_news_names_the_flow)
{
	struct mk_bypass_mgr *m = mgr_new(1, 16, 1);
	struct mk_worker_bypass_msg msg;
	struct mk_flow_key a = key_of(1), b = key_of(2);

	mk_bypass_mgr_request(m, 0, &a, 7);
	mk_bypass_mgr_request(m, 0, &b, 8);
	mk_bypass_mgr_poll(m, 0);
	cr_assert_eq(mk_bypass_mgr_news(m, 0, &msg, 1), 1);
	cr_expect_eq(msg.news, MK_BYPASS_NEWS_FAILED);
	cr_expect_eq(msg.flow_id, 8);
	cr_expect(!memcmp(&msg.key, &b, sizeof(b)));
	mk_bypass_mgr_free(m);
}

Test(bypass, full_queue_refuses)
{
	struct mk_bypass_mgr *m = mgr_new(0, 16, 1);
	struct mk_flow_key k = key_of(1);
	unsigned int i;

	for (i = 0; i < 16; i++)
		cr_assert_eq(mk_bypass_mgr_request(m, 0, &k, i), 0);
	cr_expect_eq(mk_bypass_mgr_request(m, 0, &k, 99), -ENOBUFS, "a full queue refuses");
	cr_expect_eq(mk_bypass_mgr_request(m, 5, &k, 99), -ENOBUFS, "no such worker");
	mk_bypass_mgr_poll(m, 0);
	cr_expect_eq(mk_bypass_mgr_request(m, 0, &k, 99), 0, "room again");
	mk_bypass_mgr_free(m);
}

Test(bypass, repeated_request_keeps_the_entry)
{
	struct mk_bypass_mgr *m = mgr_new(0, 16, 2);
	struct mk_bypass_mgr_stats st;
	struct mk_flow_key k = key_of(3);

	mk_bypass_mgr_request(m, 0, &k, 1);
	mk_bypass_mgr_request(m, 1, &k, 2);
	mk_bypass_mgr_poll(m, 0);
	mk_bypass_mgr_stats(m, &st);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_INSERTED], 1);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_ALREADY], 1);
	cr_expect_eq(st.entries, 1);
	mk_bypass_mgr_free(m);
}

/* A flow table under pressure: the walk expires at the emergency timeout, counted. */
Test(bypass, emergency_expiry)
{
	struct mk_bypass_cfg cfg;
	struct mk_flow_cfg fc;
	struct mk_bypass_mgr *m;
	struct mk_bypass_mgr_stats st;
	struct mk_worker_bypass_msg msg;
	struct mk_flow_key k = key_of(9);
	struct timespec ts = { 0, 30000000 };

	mk_bypass_cfg_defaults(&cfg);
	mk_flow_cfg_defaults(&fc);
	fc.emerg_timeout[MK_FLOW_PROTO_TCP][MK_FLOW_STATE_BYPASSED] = 0;
	cr_assert_eq(mk_bypass_mgr_new(&m, &cfg, &fc, NULL, 0, 2, NULL, 0), 0);
	mk_bypass_mgr_request(m, 1, &k, 5);
	mk_bypass_mgr_poll(m, 0);
	nanosleep(&ts, NULL);
	mk_bypass_mgr_poll(m, 1);
	mk_bypass_mgr_stats(m, &st);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_EXPIRED], 0, "100 s of bypassed timeout");
	mk_bypass_mgr_set_emergency(m, 0, 1);
	mk_bypass_mgr_poll(m, 1);
	mk_bypass_mgr_stats(m, &st);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_EXPIRED], 1);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_EXPIRED_EMERG], 1);
	cr_expect_eq(st.entries, 0);
	cr_assert_eq(mk_bypass_mgr_news(m, 1, &msg, 1), 1, "the owner is told");
	cr_expect_eq(msg.news, MK_BYPASS_NEWS_EXPIRED);
	cr_expect_eq(msg.flow_id, 5);
	mk_bypass_mgr_free(m);
}

Test(bypass, commands_name_the_field)
{
	struct mk_bypass_mgr *m = mgr_new(0, 16, 1);
	const char *why = NULL;
	char buf[256];
	json_t *args, *r;

	args = json_pack("{s:s,s:s,s:s,s:s,s:s}", "proto", "tcp", "src", "10.0.0.1", "sport",
			 "70000", "dst", "10.0.0.2", "dport", "80");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_ADD, args, buf, sizeof(buf), &why);
	cr_expect_null(r);
	cr_expect_str_eq(why, "sport: '70000' is not a port (0-65535)");
	json_object_set_new(args, "sport", json_string("1234"));
	json_object_set_new(args, "dst", json_string("10.0.0.300"));
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_ADD, args, buf, sizeof(buf), &why);
	cr_expect_null(r);
	cr_expect_str_eq(why, "dst: '10.0.0.300' is not an IPv4 or IPv6 address");
	json_object_set_new(args, "dst", json_string("2001:db8::1"));
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_ADD, args, buf, sizeof(buf), &why);
	cr_expect_null(r, "families differ");
	json_object_set_new(args, "dst", json_string("10.0.0.2"));
	json_object_set_new(args, "proto", json_string("tcpx"));
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_ADD, args, buf, sizeof(buf), &why);
	cr_expect_null(r);
	cr_expect(!strncmp(why, "proto: ", 7), "%s", why);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_LIST, NULL, buf, sizeof(buf), &why);
	cr_assert_not_null(r);
	cr_expect_eq(json_integer_value(json_object_get(r, "flows")), 0, "nothing changed");
	json_decref(r);
	json_object_set_new(args, "proto", json_string("6"));
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_ADD, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r, "%s", why);
	json_decref(r);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_ADD, args, buf, sizeof(buf), &why);
	cr_expect_null(r, "added twice");
	/* the reverse tuple is the same flow */
	json_decref(args);
	args = json_pack("{s:s,s:s,s:s,s:s,s:s}", "proto", "tcp", "src", "10.0.0.2", "sport", "80",
			 "dst", "10.0.0.1", "dport", "1234");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_DEL, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r, "%s", why);
	json_decref(r);
	json_decref(args);
	/* prefixes */
	args = json_pack("{s:s}", "prefix", "10.1.0.0/33");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_ADD, args, buf, sizeof(buf), &why);
	cr_expect_null(r);
	cr_expect(!strncmp(why, "prefix: ", 8), "%s", why);
	json_object_set_new(args, "prefix", json_string("10.1.0.0/16"));
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_ADD, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r, "%s", why);
	json_decref(r);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_LIST, NULL, buf, sizeof(buf), &why);
	cr_assert_eq(json_array_size(r), 1);
	cr_expect_str_eq(json_string_value(json_array_get(r, 0)), "10.1.0.0/16");
	json_decref(r);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_DEL, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r);
	json_decref(r);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_DEL, args, buf, sizeof(buf), &why);
	cr_expect_null(r, "not listed any more");
	json_decref(args);
	mk_bypass_mgr_free(m);
}

/* A configuration reload sets the whole list: its difference, in the list's order. */
Test(bypass, cidr_set_applies_the_difference)
{
	struct mk_bypass_mgr *m = mgr_new(0, 64, 1);
	const char *why = NULL;
	char buf[256];
	json_t *args, *r;

	args = json_pack("{s:[s,s,s]}", "prefixes", "10.1.0.0/16", "192.0.2.9", "10.1.2.3/16");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_SET, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r, "%s", why);
	/* the third is the first again once its host bits are cleared */
	cr_expect_eq(json_array_size(json_object_get(r, "added")), 2);
	cr_expect_eq(json_array_size(json_object_get(r, "removed")), 0);
	json_decref(r);
	json_decref(args);
	args = json_pack("{s:[s,s]}", "prefixes", "192.0.2.9/32", "2001:db8::/32");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_SET, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r, "%s", why);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(r, "added"), 0)),
			 "2001:db8::/32");
	cr_expect_eq(json_array_size(json_object_get(r, "added")), 1);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(r, "removed"), 0)),
			 "10.1.0.0/16");
	cr_expect_eq(json_array_size(json_object_get(r, "removed")), 1);
	json_decref(r);
	json_decref(args);
	/* a bad item refuses the whole list: nothing changes */
	args = json_pack("{s:[s,s]}", "prefixes", "10.9.0.0/8", "10.1.0.0/33");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_SET, args, buf, sizeof(buf), &why);
	cr_expect_null(r);
	cr_expect_str_eq(why, "prefixes[1]: '10.1.0.0/33' is not an IPv4 or IPv6 prefix");
	json_decref(args);
	args = json_pack("{s:s}", "prefixes", "10.0.0.0/8");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_SET, args, buf, sizeof(buf), &why);
	cr_expect_null(r);
	cr_expect_str_eq(why, "prefixes: not a list");
	json_decref(args);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_LIST, NULL, buf, sizeof(buf), &why);
	cr_assert_eq(json_array_size(r), 2);
	cr_expect_str_eq(json_string_value(json_array_get(r, 0)), "192.0.2.9/32");
	cr_expect_str_eq(json_string_value(json_array_get(r, 1)), "2001:db8::/32");
	json_decref(r);
	/* and empty */
	args = json_pack("{s:[]}", "prefixes");
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_SET, args, buf, sizeof(buf), &why);
	cr_assert_not_null(r, "%s", why);
	cr_expect_eq(json_array_size(json_object_get(r, "removed")), 2);
	json_decref(r);
	json_decref(args);
	r = mk_bypass_mgr_command(m, MK_BYPASS_OP_CIDR_LIST, NULL, buf, sizeof(buf), &why);
	cr_expect_eq(json_array_size(r), 0);
	json_decref(r);
	mk_bypass_mgr_free(m);
}

/* ---- the worker's side: a flow's capture bypass and the news that end it ---- */

struct rec {
	int flows;
	char last[MK_EVE_LINE_MAX];
	int requests;
	int refuse;
};

static int rec_record(void *ctx, const struct mk_flow *f, uint64_t ts, const char *l, size_t n)
{
	struct rec *r = ctx;

	(void)f;
	(void)ts;
	if (strstr(l, "\"event_type\":\"flow\"")) {
		r->flows++;
		snprintf(r->last, sizeof(r->last), "%.*s", (int)n, l);
	}
	return 0;
}

static int rec_bypass(void *ctx, const struct mk_flow *f)
{
	struct rec *r = ctx;

	(void)f;
	r->requests++;
	return r->refuse ? -ENOBUFS : 0;
}

static const struct mk_worker_ops ops = { .record = rec_record, .bypass = rec_bypass };

/* An UDP packet 10.0.0.1:1000 -> 10.0.0.2:2000 (or back) through the worker. */
static void udp(struct mk_worker *w, int back, uint64_t ts)
{
	uint8_t ip[28 + 4] = { 0x45, 0, 0, 32, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2 };
	struct mk_parse p;
	struct mk_frame fr = { .data = ip, .data_end = ip + sizeof(ip) };
	struct mk_pkt pkt = { .parse = &p, .ip = ip, .ip_caplen = sizeof(ip), .ts_us = ts };

	if (back) {
		ip[15] = 2;
		ip[19] = 1;
	}
	ip[20] = back ? 0x07 : 0x03;
	ip[21] = back ? 0xd0 : 0xe8;
	ip[22] = back ? 0x03 : 0x07;
	ip[23] = back ? 0xe8 : 0xd0;
	ip[25] = 12;
	cr_assert_eq(mk_parse_frame(&fr, MK_START_IP, &w->pcfg, &p), MK_PARSE_IP);
	p.hash = mk_flow_hash(&p.key, w->pcfg.seed);
	mk_worker_packet(w, &pkt);
}

static void worker_up(struct mk_worker *w, struct rec *r, struct mk_bypass_cfg *bc)
{
	static struct mk_parse_cfg pc;
	static struct mk_flow_cfg fc;
	static struct mk_stream_cfg sc;
	static struct mk_defrag_config dc;
	static uint8_t itable[MK_ITABLE_SIZE];
	struct mk_worker_cfg cfg = { .nworkers = 1, .itable = itable, .log_flows = 1 };

	mk_flow_cfg_defaults(&fc);
	mk_stream_cfg_default(&sc);
	mk_defrag_config_default(&dc);
	cfg.parse = &pc;
	cfg.flow = &fc;
	cfg.stream = &sc;
	cfg.defrag = &dc;
	cfg.bypass = bc;
	cr_assert_eq(mk_worker_init(w, &cfg, &ops, r), 0);
}

Test(bypass, worker_size_trigger_capture_then_expiry)
{
	struct mk_bypass_cfg bc;
	struct mk_worker w;
	struct mk_worker_bypass_msg msg = { 0 };
	struct rec r = { 0 };
	struct mk_flow *f;
	int i;

	mk_bypass_cfg_defaults(&bc);
	bc.flow_packets = 4;
	worker_up(&w, &r, &bc);
	for (i = 0; i < 6; i++)
		udp(&w, i & 1, 1000 + (uint64_t)i);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_SIZE], 1);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_CAPTURE], 1);
	cr_expect_eq(r.requests, 1);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_SKIPPED], 2, "the packets after the 4th skipped");
	f = &w.flows.entries[0];
	cr_assert_eq(f->bypass, MK_FLOW_BYPASS_CAPTURE);
	cr_expect_eq(f->state, MK_FLOW_STATE_BYPASSED);
	/* the table's sweep never ends it: only the manager's news do */
	mk_worker_tick(&w, 1000 + 3600ull * 1000000);
	cr_expect_eq(r.flows, 0);
	msg.key = f->key;
	msg.flow_id = f->flow_id;
	msg.news = MK_BYPASS_NEWS_EXPIRED;
	/* driver: 10 packets lo -> hi (10.0.0.1:1000 is the client and lo), 20 back */
	msg.pkts[0] = 10;
	msg.pkts[1] = 20;
	msg.bytes[0] = 600;
	msg.bytes[1] = 1200;
	mk_worker_bypass_news(&w, &msg);
	cr_expect_eq(r.flows, 1);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_EXPIRED], 1);
	cr_expect_not_null(strstr(r.last,
				  "\"bypass\":\"capture\",\"bypassed\":{\"pkts_toserver\":10,"
				  "\"pkts_toclient\":20,\"bytes_toserver\":600,"
				  "\"bytes_toclient\":1200}"),
			   "%s", r.last);
	cr_expect_not_null(strstr(r.last, "\"pkts_toserver\":3,\"pkts_toclient\":3"), "%s", r.last);
	mk_worker_free(&w);
}

Test(bypass, worker_failed_insert_falls_back_to_local)
{
	struct mk_bypass_cfg bc;
	struct mk_worker w;
	struct mk_worker_bypass_msg msg = { 0 };
	struct rec r = { 0 };
	struct mk_flow *f;

	mk_bypass_cfg_defaults(&bc);
	bc.flow_packets = 2;
	worker_up(&w, &r, &bc);
	udp(&w, 0, 1);
	udp(&w, 1, 2);
	f = &w.flows.entries[0];
	cr_assert_eq(f->bypass, MK_FLOW_BYPASS_CAPTURE);
	msg.key = f->key;
	msg.flow_id = f->flow_id + 1; /* another instance: ignored */
	msg.news = MK_BYPASS_NEWS_FAILED;
	mk_worker_bypass_news(&w, &msg);
	cr_expect_eq(f->bypass, MK_FLOW_BYPASS_CAPTURE);
	msg.flow_id = f->flow_id;
	mk_worker_bypass_news(&w, &msg);
	cr_expect_eq(f->bypass, MK_FLOW_BYPASS_LOCAL);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_FALLBACK], 1);
	udp(&w, 0, 3);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_SKIPPED], 1);
	/* a local bypass ends by its timeout */
	mk_worker_tick(&w, 3600ull * 1000000);
	cr_expect_eq(r.flows, 1);
	cr_expect_not_null(strstr(r.last, "\"bypass\":\"local\""), "%s", r.last);
	mk_worker_free(&w);
}

Test(bypass, worker_queue_full_is_local)
{
	struct mk_bypass_cfg bc;
	struct mk_worker w;
	struct rec r = { .refuse = 1 };

	mk_bypass_cfg_defaults(&bc);
	bc.flow_packets = 1;
	worker_up(&w, &r, &bc);
	udp(&w, 0, 1);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_QUEUE_FULL], 1);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_LOCAL], 1);
	cr_expect_eq(w.flows.entries[0].bypass, MK_FLOW_BYPASS_LOCAL);
	mk_worker_free(&w);
}

/* An entry the LRU map dropped before expiry: the record says so, with the last counts seen. */
Test(bypass, worker_evicted_record)
{
	struct mk_bypass_cfg bc;
	struct mk_worker w;
	struct mk_worker_bypass_msg msg = { 0 };
	struct rec r = { 0 };
	struct mk_flow *f;

	mk_bypass_cfg_defaults(&bc);
	bc.flow_packets = 2;
	worker_up(&w, &r, &bc);
	udp(&w, 0, 1);
	udp(&w, 1, 2);
	f = &w.flows.entries[0];
	cr_assert_eq(f->bypass, MK_FLOW_BYPASS_CAPTURE);
	msg.key = f->key;
	msg.flow_id = f->flow_id;
	msg.news = MK_BYPASS_NEWS_EVICTED;
	msg.pkts[1] = 7;
	msg.bytes[1] = 420;
	mk_worker_bypass_news(&w, &msg);
	cr_expect_eq(w.cnt[MK_WORKER_BYPASS_EVICTED], 1);
	cr_expect_eq(r.flows, 1);
	cr_expect_not_null(strstr(r.last,
				  "\"bypass\":\"evicted\",\"bypassed\":{\"pkts_toserver\":0,"
				  "\"pkts_toclient\":7,\"bytes_toserver\":0,"
				  "\"bytes_toclient\":420}"),
			   "%s", r.last);
	cr_expect_not_null(strstr(r.last, "\"state\":\"bypassed\""), "%s", r.last);
	mk_worker_free(&w);
}
