/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the detection unit tests: a parse environment with variables,
 * classification and reference types; rule parsing that returns the rule or
 * the error text; payload inspection of one rule on one buffer; frames
 * built in C (Ethernet, optional VLAN, IPv4/IPv6, TCP/UDP/ICMP) and TCP
 * conversations fed through the test pipeline (test/detect/detect_harness.c).
 */
#ifndef MK_DETECT_HELPERS_H
#define MK_DETECT_HELPERS_H

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "detect_harness.h"
#include "detect_int.h"
#include "../lib/pkt_build.h"

static const struct mk_detect_var test_avars[] = {
	{ "HOME_NET", "[10.0.0.0/8,192.168.0.0/16,2001:db8::/32]" },
	{ "EXTERNAL_NET", "!$HOME_NET" },
	{ "DNS_SERVERS", "$HOME_NET" },
	{ "V4_HOME", "10.0.0.0/8" },
	{ "LOOP_A", "$LOOP_B" },
	{ "LOOP_B", "$LOOP_A" },
};
static const struct mk_detect_var test_pvars[] = {
	{ "HTTP_PORTS", "[80,8080]" },
	{ "WEB_PORTS", "[$HTTP_PORTS,443]" },
	{ "HIGH", "1024:" },
};

static struct mk_class test_classes[] = {
	{ (char *)"trojan-activity", (char *)"A Network Trojan was detected", 1 },
	{ (char *)"misc-activity", (char *)"Misc activity", 3 },
	{ (char *)"attempted-recon", (char *)"Attempted Information Leak", 2 },
};
static char *test_refs[] = { (char *)"url", (char *)"cve", (char *)"bugtraq" };

static struct mk_detect_cfg test_cfg = {
	.address_vars = test_avars,
	.naddress_vars = MK_ARRAY_SIZE(test_avars),
	.port_vars = test_pvars,
	.nport_vars = MK_ARRAY_SIZE(test_pvars),
};

static inline void test_env(struct mk_parse_env *env)
{
	memset(env, 0, sizeof(*env));
	env->cfg = &test_cfg;
	env->classes = test_classes;
	env->nclasses = MK_ARRAY_SIZE(test_classes);
	env->ref_types = test_refs;
	env->nref_types = MK_ARRAY_SIZE(test_refs);
	env->have_ref_config = 1;
}

static inline void test_env_free(struct mk_parse_env *env)
{
	mk_varnames_free(&env->flowbits);
	mk_varnames_free(&env->flowints);
}

/* Parses @text; NULL with *err (static buffer) on failure. */
static inline struct mk_rule *rule_parse(const char *text, const char **err, int *reason)
{
	static char ebuf[512];
	static struct mk_parse_env env;
	static int env_ready;
	struct mk_rule *r = NULL;
	uint32_t sid;
	int rs = 0;

	if (!env_ready) {
		test_env(&env);
		env_ready = 1;
	}
	ebuf[0] = '\0';
	if (mk_rule_parse(&env, text, "t.rules", 7, &r, ebuf, sizeof(ebuf), &rs, &sid))
		r = NULL;
	if (err)
		*err = ebuf;
	if (reason)
		*reason = rs;
	return r;
}

static inline struct mk_rule *rule_ok(const char *text)
{
	const char *err;
	struct mk_rule *r = rule_parse(text, &err, NULL);

	cr_assert_not_null(r, "rule should parse: %s\n  error: %s", text, err);
	return r;
}

/* A worker context for payload inspection (pcre needs its match data). */
static inline struct mk_detect_thread *test_thread(void)
{
	static struct mk_detect_engine *e;
	static struct mk_detect_thread *t;
	struct mk_detect_cfg cfg = { 0 };

	if (!t) {
		cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), 0);
		cr_assert_eq(mk_detect_thread_new_engine(e, &t), 0);
	}
	return t;
}

/* Does @rule's payload part match @buf (a packet payload)? */
static inline int payload_match_at(const char *rule, const void *buf, size_t len, uint64_t base,
				   uint32_t min_end)
{
	struct mk_rule *r = rule_ok(rule);
	uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees overreads */
	struct mk_insp in = { 0 };
	int m;

	memcpy(copy, buf, len);
	in.t = test_thread();
	in.buf = copy;
	in.len = (uint32_t)len;
	in.abs_base = base;
	in.min_end = min_end;
	m = mk_payload_inspect(&in, r);
	free(copy);
	mk_rule_free(r);
	return m;
}

static inline int payload_match(const char *rule, const char *s)
{
	return payload_match_at(rule, s, strlen(s), 0, 0);
}

/* ---- frames ------------------------------------------------------------------------ */

struct frame {
	uint8_t b[4096];
	uint32_t len;
};

/* Ethernet (+ VLAN), IP header for @l4len bytes of @proto; returns the L4 offset. */
static inline uint32_t frame_ip(struct frame *f, const char *src, const char *dst, uint8_t proto,
				uint32_t l4len, uint8_t ttl, uint16_t vlan)
{
	uint32_t o = 12;
	int v6 = strchr(src, ':') != NULL;

	memset(f->b, 0, 64);
	f->b[0] = 2;
	f->b[6] = 2;
	if (vlan) {
		pb_put16(f->b + o, 0x8100);
		pb_put16(f->b + o + 2, vlan);
		o += 4;
	}
	pb_put16(f->b + o, v6 ? 0x86dd : 0x0800);
	o += 2;
	if (v6) {
		uint8_t *ip = f->b + o;

		memset(ip, 0, 40);
		ip[0] = 0x60;
		pb_put16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = ttl;
		inet_pton(AF_INET6, src, ip + 8);
		inet_pton(AF_INET6, dst, ip + 24);
		o += 40;
	} else {
		uint8_t *ip = f->b + o;

		memset(ip, 0, 20);
		ip[0] = 0x45;
		pb_put16(ip + 2, (uint16_t)(20 + l4len));
		ip[8] = ttl;
		ip[9] = proto;
		inet_pton(AF_INET, src, ip + 12);
		inet_pton(AF_INET, dst, ip + 16);
		o += 20;
	}
	f->len = o + l4len;
	return o;
}

static inline void frame_tcp(struct frame *f, const char *src, uint16_t sport, const char *dst,
			     uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
			     const void *data, uint32_t len)
{
	uint32_t o = frame_ip(f, src, dst, 6, 20 + len, 64, 0);
	uint8_t *t = f->b + o;

	memset(t, 0, 20);
	pb_put16(t, sport);
	pb_put16(t + 2, dport);
	pb_put32(t + 4, seq);
	pb_put32(t + 8, ack);
	t[12] = 5 << 4;
	t[13] = flags;
	pb_put16(t + 14, 65535);
	if (len)
		memcpy(t + 20, data, len);
}

static inline void frame_udp(struct frame *f, const char *src, uint16_t sport, const char *dst,
			     uint16_t dport, const void *data, uint32_t len, uint8_t ttl,
			     uint16_t vlan)
{
	uint32_t o = frame_ip(f, src, dst, 17, 8 + len, ttl, vlan);
	uint8_t *u = f->b + o;

	pb_put16(u, sport);
	pb_put16(u + 2, dport);
	pb_put16(u + 4, (uint16_t)(8 + len));
	pb_put16(u + 6, 0);
	if (len)
		memcpy(u + 8, data, len);
}

static inline void frame_icmp(struct frame *f, const char *src, const char *dst, uint8_t type,
			      uint8_t code, uint16_t id, uint16_t seq, const void *data,
			      uint32_t len)
{
	int v6 = strchr(src, ':') != NULL;
	uint32_t o = frame_ip(f, src, dst, v6 ? 58 : 1, 8 + len, 64, 0);
	uint8_t *c = f->b + o;

	c[0] = type;
	c[1] = code;
	pb_put16(c + 2, 0);
	pb_put16(c + 4, id);
	pb_put16(c + 6, seq);
	if (len)
		memcpy(c + 8, data, len);
}

/* ---- TCP conversations through the test pipeline -------------------------------------- */

struct conv {
	struct harness *h;
	const char *cli, *srv;
	uint16_t cport, sport;
	uint32_t cseq, sseq; /* next sequence numbers */
	uint64_t ts;
};

static inline void conv_send(struct conv *c, int from_client, uint8_t flags, uint32_t seq,
			     uint32_t ack, const void *data, uint32_t len)
{
	struct frame f;

	if (from_client)
		frame_tcp(&f, c->cli, c->cport, c->srv, c->sport, seq, ack, flags, data, len);
	else
		frame_tcp(&f, c->srv, c->sport, c->cli, c->cport, seq, ack, flags, data, len);
	c->ts += 1000;
	h_frame(c->h, f.b, f.len, MK_START_ETH, c->ts);
}

static inline void conv_open(struct conv *c, struct harness *h, const char *cli, uint16_t cport,
			     const char *srv, uint16_t sport, uint64_t ts)
{
	memset(c, 0, sizeof(*c));
	c->h = h;
	c->cli = cli;
	c->srv = srv;
	c->cport = cport;
	c->sport = sport;
	c->ts = ts;
	c->cseq = 1000;
	c->sseq = 5000;
	conv_send(c, 1, MK_TCP_SYN, c->cseq, 0, NULL, 0);
	conv_send(c, 0, MK_TCP_SYN | MK_TCP_ACK, c->sseq, c->cseq + 1, NULL, 0);
	c->cseq++;
	c->sseq++;
	conv_send(c, 1, MK_TCP_ACK, c->cseq, c->sseq, NULL, 0);
}

/* Data from one side, then the other side's ACK (which releases it to detection). */
static inline void conv_data(struct conv *c, int from_client, const char *data)
{
	uint32_t n = (uint32_t)strlen(data);

	if (from_client) {
		conv_send(c, 1, MK_TCP_PSH | MK_TCP_ACK, c->cseq, c->sseq, data, n);
		c->cseq += n;
		conv_send(c, 0, MK_TCP_ACK, c->sseq, c->cseq, NULL, 0);
	} else {
		conv_send(c, 0, MK_TCP_PSH | MK_TCP_ACK, c->sseq, c->cseq, data, n);
		c->sseq += n;
		conv_send(c, 1, MK_TCP_ACK, c->cseq, c->sseq, NULL, 0);
	}
}

static inline void conv_close(struct conv *c)
{
	conv_send(c, 1, MK_TCP_FIN | MK_TCP_ACK, c->cseq, c->sseq, NULL, 0);
	conv_send(c, 0, MK_TCP_FIN | MK_TCP_ACK, c->sseq, c->cseq + 1, NULL, 0);
	conv_send(c, 1, MK_TCP_ACK, c->cseq + 1, c->sseq + 1, NULL, 0);
}

/* The tests' clock: a fixed start, microseconds. */
static const uint64_t T0 = 1796269500ull * 1000000;

/* One UDP packet with @data through harness @h at @ts. */
static inline void udp(struct harness *h, const char *src, uint16_t sp, const char *dst,
		       uint16_t dp, const char *data, uint64_t ts)
{
	struct frame f;

	frame_udp(&f, src, sp, dst, dp, data, (uint32_t)strlen(data), 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts);
}

/* One UDP packet of @n payload bytes, 10.0.0.1:1000 -> 10.0.0.2:2000. */
static inline void udp_n(struct harness *h, uint32_t n, uint64_t ts)
{
	static char buf[2000];
	struct frame f;

	memset(buf, 'u', sizeof(buf));
	frame_udp(&f, "10.0.0.1", 1000, "10.0.0.2", 2000, buf, n, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts);
}

/* One TCP segment without payload with @flags. */
static inline void tcp(struct harness *h, const char *src, uint16_t sp, const char *dst,
		       uint16_t dp, uint8_t flags, uint64_t ts)
{
	struct frame f;

	frame_tcp(&f, src, sp, dst, dp, 100, 0, flags, NULL, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, ts);
}

static inline struct harness *harness_rules(const char *rules)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct mk_detect_cfg cfg = test_cfg;

	cr_assert_not_null(h);
	cfg.rules_text = rules;
	cfg.rules_text_name = "test.rules";
	cr_assert_eq(h_init_cfg(h, &cfg), 0, "rules do not load:\n%s", rules);
	cr_assert_eq(mk_detect_engine_stats(h->eng)->failed, 0, "a rule failed:\n%s", rules);
	return h;
}

static inline void harness_free(struct harness *h)
{
	h_free(h);
	free(h);
}

#endif /* MK_DETECT_HELPERS_H */
