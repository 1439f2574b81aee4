// SPDX-License-Identifier: GPL-2.0-only
/* Flow table: direction accounting, timeouts per state, emergency mode, eviction. */
#include <errno.h>
#include <stdio.h>
#include <criterion/criterion.h>
#include "flow.h"
#include "flow_helpers.h"

struct ended {
	struct mk_flow f[16];
	enum mk_flow_reason reason[16];
	uint64_t ts[16];
	int n;
};

static void on_end(void *ctx, struct mk_flow *f, enum mk_flow_reason r, uint64_t ts_us)
{
	struct ended *e = ctx;

	if (e->n < 16) {
		e->f[e->n] = *f;
		e->reason[e->n] = r;
		e->ts[e->n] = ts_us;
	}
	e->n++;
}

static struct mk_flow_table t;
static struct ended ended;

static void setup_n(uint32_t max)
{
	struct mk_flow_cfg cfg;

	mk_flow_cfg_defaults(&cfg);
	cfg.max_flows = max;
	cfg.hash_size = 64;
	memset(&ended, 0, sizeof(ended));
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, on_end, &ended), 0);
}

static void setup(void)
{
	setup_n(1024);
}

static void teardown(void)
{
	mk_flow_table_free(&t);
}

static struct mk_flow *pkt(const char *src, uint16_t sp, const char *dst, uint16_t dp,
			   uint8_t proto, uint64_t ts, uint32_t len, uint8_t flags, int *to_client)
{
	struct mk_parse p = test_parse(src, sp, dst, dp, proto);
	struct mk_flow_pkt fp = { .ts_us = ts, .len = len, .tcp_flags = flags };
	int tc;

	return mk_flow_handle(&t, &p, &fp, to_client ? to_client : &tc);
}

TestSuite(flow, .init = setup, .fini = teardown);

Test(flow, direction_accounting_client_low_and_high)
{
	/* client 10.0.0.1 is the key's lo side; client 10.0.0.9 its hi side */
	const char *clients[] = { "10.0.0.1", "10.0.0.9" };
	int i, tc;

	for (i = 0; i < 2; i++) {
		struct mk_flow *f;

		f = pkt(clients[i], 1000, "10.0.0.5", 53, MK_IPPROTO_UDP, TEST_T0, 100, 0, &tc);
		cr_assert_eq(tc, 0);
		pkt(clients[i], 1000, "10.0.0.5", 53, MK_IPPROTO_UDP, TEST_T0 + 1, 60, 0, &tc);
		f = pkt("10.0.0.5", 53, clients[i], 1000, MK_IPPROTO_UDP, TEST_T0 + 2, 300, 0, &tc);
		cr_assert_eq(tc, 1);
		cr_assert_eq(f->pkts[0], 2);
		cr_assert_eq(f->pkts[1], 1);
		cr_assert_eq(f->bytes[0], 160);
		cr_assert_eq(f->bytes[1], 300);
		cr_assert_eq(f->client_hi, i == 1);
		cr_assert_eq(f->state, MK_FLOW_STATE_ESTABLISHED);
		cr_assert_eq(f->start_us, TEST_T0);
		cr_assert_eq(f->last_us, TEST_T0 + 2);
	}
	cr_assert_eq(t.cnt[MK_FLOW_CNT_CREATED], 2);
	cr_assert_eq(mk_flow_table_active(&t), 2);
}

Test(flow, syn_ack_first_makes_receiver_the_client)
{
	int tc;
	struct mk_flow *f = pkt("10.0.0.2", 80, "10.0.0.1", 40000, MK_IPPROTO_TCP, TEST_T0, 60,
				MK_TCP_SYN | MK_TCP_ACK, &tc);

	cr_assert_eq(tc, 1, "the SYN-ACK travels to the client");
	cr_assert_eq(f->pkts[1], 1);
	f = pkt("10.0.0.1", 40000, "10.0.0.2", 80, MK_IPPROTO_TCP, TEST_T0 + 1, 60, MK_TCP_ACK,
		&tc);
	cr_assert_eq(tc, 0);
	cr_assert_eq(f->tcp_flags[0], MK_TCP_ACK);
	cr_assert_eq(f->tcp_flags[1], MK_TCP_SYN | MK_TCP_ACK);
}

Test(flow, udp_new_timeout_is_30s_established_300s)
{
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0, 50, 0, NULL);
	mk_flow_table_tick(&t, TEST_T0 + 30 * SEC);
	cr_assert_eq(ended.n, 0, "30 s is not past the new timeout");
	mk_flow_table_tick(&t, TEST_T0 + 30 * SEC + 1);
	cr_assert_eq(ended.n, 1);
	cr_assert_eq(ended.reason[0], MK_FLOW_END_TIMEOUT);

	pkt("10.0.0.1", 3, "10.0.0.2", 4, MK_IPPROTO_UDP, TEST_T0 + 40 * SEC, 50, 0, NULL);
	pkt("10.0.0.2", 4, "10.0.0.1", 3, MK_IPPROTO_UDP, TEST_T0 + 41 * SEC, 50, 0, NULL);
	mk_flow_table_tick(&t, TEST_T0 + 41 * SEC + 299 * SEC);
	cr_assert_eq(ended.n, 1, "established UDP lives 300 s");
	mk_flow_table_tick(&t, TEST_T0 + 41 * SEC + 301 * SEC);
	cr_assert_eq(ended.n, 2);
	cr_assert_eq(ended.f[1].state, MK_FLOW_STATE_ESTABLISHED);
}

Test(flow, tcp_states_and_closed_timeout)
{
	struct mk_flow *f;

	f = pkt("10.0.0.1", 40000, "10.0.0.2", 80, MK_IPPROTO_TCP, TEST_T0, 60, MK_TCP_SYN, NULL);
	cr_assert_eq(f->state, MK_FLOW_STATE_NEW);
	pkt("10.0.0.2", 80, "10.0.0.1", 40000, MK_IPPROTO_TCP, TEST_T0 + 1, 60,
	    MK_TCP_SYN | MK_TCP_ACK, NULL);
	f = pkt("10.0.0.1", 40000, "10.0.0.2", 80, MK_IPPROTO_TCP, TEST_T0 + 2, 60, MK_TCP_ACK,
		NULL);
	cr_assert_eq(f->state, MK_FLOW_STATE_ESTABLISHED);
	/* established TCP: 600 s */
	mk_flow_table_tick(&t, TEST_T0 + 2 + 599 * SEC);
	cr_assert_eq(ended.n, 0);
	pkt("10.0.0.1", 40000, "10.0.0.2", 80, MK_IPPROTO_TCP, TEST_T0 + 600 * SEC, 60,
	    MK_TCP_FIN | MK_TCP_ACK, NULL);
	f = pkt("10.0.0.2", 80, "10.0.0.1", 40000, MK_IPPROTO_TCP, TEST_T0 + 600 * SEC + 1, 60,
		MK_TCP_FIN | MK_TCP_ACK, NULL);
	cr_assert_eq(f->state, MK_FLOW_STATE_CLOSED);
	mk_flow_table_tick(&t, TEST_T0 + 600 * SEC + 1 + 60 * SEC);
	cr_assert_eq(ended.n, 0, "closed TCP waits 60 s");
	mk_flow_table_tick(&t, TEST_T0 + 600 * SEC + 2 + 60 * SEC);
	cr_assert_eq(ended.n, 1);
	cr_assert_str_eq(mk_flow_state_name(&ended.f[0]), "closed");
	cr_assert_eq(ended.f[0].pkts[0], 3);
	cr_assert_eq(ended.f[0].pkts[1], 2);
}

Test(flow, tcp_new_timeout_60s_and_rst_closes)
{
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_TCP, TEST_T0, 60, MK_TCP_SYN, NULL);
	mk_flow_table_tick(&t, TEST_T0 + 60 * SEC);
	cr_assert_eq(ended.n, 0);
	mk_flow_table_tick(&t, TEST_T0 + 61 * SEC);
	cr_assert_eq(ended.n, 1);

	cr_assert_eq(pkt("10.0.0.1", 3, "10.0.0.2", 4, MK_IPPROTO_TCP, TEST_T0 + 70 * SEC, 60,
			 MK_TCP_RST, NULL)
			     ->state,
		     MK_FLOW_STATE_CLOSED);
}

Test(flow, icmp_and_default_timeouts)
{
	pkt("10.0.0.1", 7, "10.0.0.2", 7, MK_IPPROTO_ICMP, TEST_T0, 60, 0, NULL);
	pkt("10.0.0.1", 0, "10.0.0.2", 0, 47 /* GRE */, TEST_T0, 60, 0, NULL);
	mk_flow_table_tick(&t, TEST_T0 + 31 * SEC);
	cr_assert_eq(ended.n, 2);
}

Test(flow, expired_flow_is_replaced_on_lookup)
{
	struct mk_flow *f;

	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0, 50, 0, NULL);
	f = pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0 + 100 * SEC, 70, 0, NULL);
	cr_assert_eq(ended.n, 1);
	cr_assert_eq(ended.reason[0], MK_FLOW_END_TIMEOUT);
	cr_assert_eq(ended.ts[0], TEST_T0 + 100 * SEC, "logged when the late packet came");
	cr_assert_eq(ended.f[0].bytes[0], 50);
	cr_assert_eq(f->bytes[0], 70);
	cr_assert_eq(f->start_us, TEST_T0 + 100 * SEC);
	cr_assert_neq(f->flow_id, ended.f[0].flow_id, "a new instance gets a new id");
	cr_assert_eq(t.cnt[MK_FLOW_CNT_CREATED], 2);
}

Test(flow, new_syn_on_closed_tcp_flow_starts_a_new_one)
{
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_TCP, TEST_T0, 60, MK_TCP_SYN, NULL);
	pkt("10.0.0.2", 2, "10.0.0.1", 1, MK_IPPROTO_TCP, TEST_T0 + 1, 60, MK_TCP_RST | MK_TCP_ACK,
	    NULL);
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_TCP, TEST_T0 + 2, 60, MK_TCP_SYN, NULL);
	cr_assert_eq(ended.n, 1);
	cr_assert_eq(ended.reason[0], MK_FLOW_END_TCP_REUSE);
	cr_assert_str_eq(mk_flow_reason_name(ended.reason[0]), "tcp_reuse");
	cr_assert_eq(ended.ts[0], TEST_T0 + 2, "logged at the SYN that reused the ports");
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_TCP_REUSE], 1);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_TIMEOUT], 0);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_CREATED], 2);
}

Test(flow, all_eight_tcp_flag_bits_kept)
{
	struct mk_flow *f;

	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_TCP, TEST_T0, 60,
	    MK_TCP_SYN | MK_TCP_ECE | MK_TCP_CWR, NULL);
	f = pkt("10.0.0.2", 2, "10.0.0.1", 1, MK_IPPROTO_TCP, TEST_T0 + 1, 60,
		MK_TCP_SYN | MK_TCP_ACK | MK_TCP_ECE, NULL);
	cr_assert_eq(f->tcp_flags[0], 0xc2);
	cr_assert_eq(f->tcp_flags[1], 0x52);
}

Test(flow, timeout_logged_at_the_sweep_and_shutdown_at_the_clock)
{
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0, 50, 0, NULL);
	pkt("10.0.0.1", 3, "10.0.0.2", 4, MK_IPPROTO_UDP, TEST_T0 + 20 * SEC, 50, 0, NULL);
	mk_flow_table_tick(&t, TEST_T0 + 31 * SEC);
	cr_assert_eq(ended.n, 1);
	cr_assert_eq(ended.ts[0], TEST_T0 + 31 * SEC);
	mk_flow_table_advance(&t, TEST_T0 + 40 * SEC);
	mk_flow_table_advance(&t, TEST_T0 + 35 * SEC); /* never back */
	mk_flow_table_flush(&t);
	cr_assert_eq(ended.n, 2);
	cr_assert_eq(ended.ts[1], TEST_T0 + 40 * SEC);
}

Test(flow, lookup_and_related_packets)
{
	struct mk_parse p = test_parse("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP);
	struct mk_flow_pkt icmp = { .ts_us = TEST_T0 + 5, .len = 70 };
	struct mk_flow *f, *g;

	cr_assert_null(mk_flow_lookup(&t, &p.key, p.hash));
	f = pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0, 50, 0, NULL);
	g = mk_flow_lookup(&t, &p.key, p.hash);
	cr_assert_eq(f, g);
	mk_flow_account_related(&t, f, &icmp, 1);
	cr_assert_eq(f->pkts[1], 1);
	cr_assert_eq(f->bytes[1], 70);
	cr_assert_eq(f->last_us, TEST_T0 + 5);
	cr_assert_eq(f->state, MK_FLOW_STATE_NEW, "an ICMP error is not an answer");
	cr_assert_eq(t.cnt[MK_FLOW_CNT_CREATED], 1);
}

Test(flow, flush_ends_everything_as_shutdown)
{
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0, 50, 0, NULL);
	pkt("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_TCP, TEST_T0, 50, MK_TCP_SYN, NULL);
	mk_flow_table_flush(&t);
	cr_assert_eq(ended.n, 2);
	cr_assert_eq(ended.reason[0], MK_FLOW_END_SHUTDOWN);
	cr_assert_eq(ended.reason[1], MK_FLOW_END_SHUTDOWN);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_SHUTDOWN], 2);
	cr_assert_eq(mk_flow_table_active(&t), 0);
}

Test(flow, flow_id_depends_on_key_seed_start_only)
{
	struct mk_parse a = test_parse("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP);
	struct mk_parse b = test_parse("10.0.0.2", 2, "10.0.0.1", 1, MK_IPPROTO_UDP);

	cr_assert_eq(mk_flow_id(&a.key, 1, TEST_T0), mk_flow_id(&b.key, 1, TEST_T0));
	cr_assert_neq(mk_flow_id(&a.key, 1, TEST_T0), mk_flow_id(&a.key, 2, TEST_T0));
	cr_assert_neq(mk_flow_id(&a.key, 1, TEST_T0), mk_flow_id(&a.key, 1, TEST_T0 + 1));
	cr_assert_eq(mk_flow_id(&a.key, 1, TEST_T0) >> 51, 0, "51 bits, exact as a double");
}

Test(flow, emergency_evicts_oldest_when_nothing_expires)
{
	char ip[32];
	int i;

	mk_flow_table_free(&t);
	setup_n(4);
	for (i = 0; i < 4; i++) {
		snprintf(ip, sizeof(ip), "10.0.1.%d", i + 1);
		pkt(ip, 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0 + (uint64_t)i, 50, 0, NULL);
	}
	cr_assert_eq(t.nfree, 0);
	pkt("10.0.1.99", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0 + 10, 50, 0, NULL);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_EMERGENCY], 1);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_FORCED], 1);
	cr_assert_eq(ended.n, 1);
	cr_assert_eq(ended.reason[0], MK_FLOW_END_FORCED);
	cr_assert_eq(ended.f[0].start_us, TEST_T0, "the oldest flow goes");
	cr_assert(t.emergency, "still below the 30 %% recovery level");
	/* a second allocation while in emergency is not a second entry into it */
	pkt("10.0.1.98", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0 + 11, 50, 0, NULL);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_EMERGENCY], 1);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_FORCED], 2);
}

Test(flow, emergency_uses_shorter_timeouts_then_recovers)
{
	char ip[32];
	int i;

	mk_flow_table_free(&t);
	setup_n(4);
	for (i = 0; i < 4; i++) {
		snprintf(ip, sizeof(ip), "10.0.1.%d", i + 1);
		pkt(ip, 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0, 50, 0, NULL);
	}
	/* 11 s later: under normal timeouts (30 s) nothing expires, emergency new is 10 s */
	pkt("10.0.1.99", 1, "10.0.0.2", 2, MK_IPPROTO_UDP, TEST_T0 + 11 * SEC, 50, 0, NULL);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_EMERGENCY], 1);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_FORCED], 0);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_TIMEOUT], 4);
	cr_assert_not(t.emergency, "3 of 4 entries free: recovered");
}

Test(flow, memcap_lowers_the_entry_limit)
{
	struct mk_flow_cfg cfg;

	mk_flow_table_free(&t);
	mk_flow_cfg_defaults(&cfg);
	cfg.memcap = 10 * sizeof(struct mk_flow) + 5;
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, on_end, &ended), 0);
	cr_assert_eq(t.cfg.max_flows, 10);
	cr_assert_eq(t.nfree, 10);
	mk_flow_table_free(&t);
	cfg.memcap = 1;
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, on_end, &ended), -EINVAL);
	setup();
}

/* A SYN from @ip:@sp to 10.0.0.2:80 whose packet hash is forced to @hash. */
static struct mk_flow *syn_hashed(const char *ip, uint16_t sp, uint32_t hash, uint64_t ts)
{
	struct mk_parse p = test_parse(ip, sp, "10.0.0.2", 80, MK_IPPROTO_TCP);
	struct mk_flow_pkt fp = { .ts_us = ts, .len = 54, .tcp_flags = MK_TCP_SYN };
	int tc;

	p.hash = hash;
	return mk_flow_handle(&t, &p, &fp, &tc);
}

Test(flow, full_table_evicts_unanswered_flows_before_sessions)
{
	char ip[32];
	int i;

	mk_flow_table_free(&t);
	setup_n(8);
	/* two answered UDP exchanges, the oldest flows of the table */
	pkt("10.0.9.1", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0, 60, 0, NULL);
	pkt("10.0.0.2", 53, "10.0.9.1", 1, MK_IPPROTO_UDP, TEST_T0 + 1, 60, 0, NULL);
	pkt("10.0.9.2", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0 + 2, 60, 0, NULL);
	pkt("10.0.0.2", 53, "10.0.9.2", 1, MK_IPPROTO_UDP, TEST_T0 + 3, 60, 0, NULL);
	/* then a flood of one-way SYNs, far more than the table holds */
	for (i = 0; i < 100; i++) {
		snprintf(ip, sizeof(ip), "10.1.%d.%d", i / 200, i % 200 + 1);
		pkt(ip, 1234, "10.0.0.2", 80, MK_IPPROTO_TCP, TEST_T0 + 10 + (uint64_t)i, 54,
		    MK_TCP_SYN, NULL);
	}
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_FORCED], 100 - 6);
	for (i = 0; i < 16; i++)
		cr_assert_eq(ended.f[i].state, MK_FLOW_STATE_NEW, "only flood flows were evicted");
	/* the two exchanges are still the same flows, with their packets */
	cr_assert_eq(pkt("10.0.9.1", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0 + 200, 60, 0, NULL)
			     ->pkts[0],
		     2);
	cr_assert_eq(pkt("10.0.9.2", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0 + 201, 60, 0, NULL)
			     ->pkts[0],
		     2);
	/* with nothing but answered flows left, the least recently seen goes */
	mk_flow_table_free(&t);
	setup_n(2);
	pkt("10.0.9.1", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0, 60, 0, NULL);
	pkt("10.0.0.2", 53, "10.0.9.1", 1, MK_IPPROTO_UDP, TEST_T0 + 1, 60, 0, NULL);
	pkt("10.0.9.2", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0 + 2, 60, 0, NULL);
	pkt("10.0.0.2", 53, "10.0.9.2", 1, MK_IPPROTO_UDP, TEST_T0 + 3, 60, 0, NULL);
	pkt("10.0.9.3", 1, "10.0.0.2", 53, MK_IPPROTO_UDP, TEST_T0 + 4, 60, 0, NULL);
	cr_assert_eq(ended.n, 1);
	cr_assert_eq(ended.f[0].start_us, TEST_T0);
}

Test(flow, bucket_chain_is_capped_and_evicts_unanswered_first)
{
	struct mk_flow_cfg cfg;
	struct mk_flow *f;
	char ip[32];
	int i;

	mk_flow_table_free(&t);
	mk_flow_cfg_defaults(&cfg);
	cfg.max_flows = 1024;
	cfg.hash_size = 1024;
	cfg.max_chain = 8;
	memset(&ended, 0, sizeof(ended));
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, on_end, &ended), 0);
	/* an established session in the bucket every flow below collides into */
	f = syn_hashed("10.0.9.1", 1, 0xabcd1234, TEST_T0);
	{
		struct mk_parse p = test_parse("10.0.0.2", 80, "10.0.9.1", 1, MK_IPPROTO_TCP);
		struct mk_flow_pkt fp = { .ts_us = TEST_T0 + 1,
					  .len = 54,
					  .tcp_flags = MK_TCP_SYN | MK_TCP_ACK };
		int tc;

		p.hash = 0xabcd1234;
		cr_assert_eq(mk_flow_handle(&t, &p, &fp, &tc), f);
		fp.tcp_flags = MK_TCP_ACK;
		p = test_parse("10.0.9.1", 1, "10.0.0.2", 80, MK_IPPROTO_TCP);
		p.hash = 0xabcd1234;
		fp.ts_us = TEST_T0 + 2;
		cr_assert_eq(mk_flow_handle(&t, &p, &fp, &tc), f);
	}
	cr_assert_eq(f->state, MK_FLOW_STATE_ESTABLISHED);
	/* 200 crafted collisions: the chain never grows past 8, the session stays */
	for (i = 0; i < 200; i++) {
		snprintf(ip, sizeof(ip), "10.1.%d.%d", i / 200, i % 200 + 1);
		syn_hashed(ip, 4321, 0xabcd1234, TEST_T0 + 10 + (uint64_t)i);
	}
	cr_assert_eq(t.chain_max, 8, "no lookup walked more than max_chain entries");
	cr_assert_eq(t.cnt[MK_FLOW_CNT_CHAIN_EVICT], 200 - 7);
	cr_assert_eq(t.cnt[MK_FLOW_CNT_END_FORCED], 200 - 7);
	cr_assert_eq(mk_flow_table_active(&t), 8);
	cr_assert_eq(mk_flow_lookup(&t, &f->key, 0xabcd1234), f, "the answered flow was kept");
	for (i = 0; i < 16; i++)
		cr_assert_eq(ended.f[i].state, MK_FLOW_STATE_NEW);
	/* the oldest of the crafted ones went first: the last seven remain */
	cr_assert_eq(ended.f[0].start_us, TEST_T0 + 10);
}

Test(flow, bucket_chain_cap_automatic_value)
{
	struct mk_flow_cfg cfg;

	mk_flow_table_free(&t);
	mk_flow_cfg_defaults(&cfg);
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, NULL, NULL), 0);
	cr_assert_eq(t.max_chain, 32, "65536 flows in 65536 buckets: at least 32");
	mk_flow_table_free(&t);
	cfg.hash_size = 1024;
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, NULL, NULL), 0);
	cr_assert_eq(t.max_chain, 256, "64 flows per bucket on average: four times that");
}
