// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attack traffic for the state-exhaustion tests (docs/security.md): writes
 * a pcap of one flood aimed at one of meerkat's state tables, with three
 * real sessions carrying known triggers mixed in at the start, the middle
 * and the end, and a JSON file saying what a correct sensor reports about
 * them. In C because a million-flow capture takes scapy many minutes and
 * this a second.
 *
 *   syn   half-open TCP flows from spoofed sources: one SYN each, no reply
 *   frag  incomplete datagrams, 8-byte fragments never finished, teardrop
 *         pairs, overlapping datagrams, datagrams reaching past 64 KiB
 *   seg   sessions whose out-of-order segments never fill their first hole
 *   hash  flows that all fall into one flow-table bucket and one worker,
 *         computed with the seed, table size and worker count given
 *   http  two HTTP connections that never end: one pipelines requests the
 *         server never answers, one sends a header section that never ends
 *
 * The real sessions are HTTP exchanges from 198.51.100.0/24 to 192.0.2.80:80.
 * "start" opens and sends its request before the flood and answers and
 * closes after it, so it has to survive the whole flood in the tables;
 * "middle" and "end" run whole inside it. In `frag` every request is sent
 * in three IPv4 fragments. Timestamps advance by 1/pps seconds per frame.
 *
 * usage: gen_attack MODE -o FILE.pcap [-e EXPECT.json] [--count N] [--pps N]
 *                   [--seed S --workers W --hash-size H --prealloc P]  (hash)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flow.h"
#include "hash.h"
#include "../lib/pkt_build.h"

#define MAX_FRAME 1600
#define T0_US 1796269500000000ull /* 2026-12-03T03:45:00Z, as the other tests */
#define SERVER 0xc0000250u	  /* 192.0.2.80 */
#define CLIENTS 0xc6336400u	  /* 198.51.100.0 */
#define NSESS 3

struct gen {
	FILE *f;
	uint64_t ns;	  /* packet time, ns after T0 */
	uint64_t step_ns; /* 1e9 / pps */
	uint64_t frames, bytes;
};

/* One Ethernet frame around @ip at the current packet time, then time moves on. */
static void emit(struct gen *g, const uint8_t *ip, size_t len)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00 };
	uint64_t us = T0_US + g->ns / 1000;
	uint8_t rec[16];

	pb_le32(rec, (uint32_t)(us / 1000000));
	pb_le32(rec + 4, (uint32_t)(us % 1000000));
	pb_le32(rec + 8, (uint32_t)(14 + len));
	pb_le32(rec + 12, (uint32_t)(14 + len));
	fwrite(rec, 1, 16, g->f);
	fwrite(eth, 1, 14, g->f);
	fwrite(ip, 1, len, g->f);
	g->frames++;
	g->bytes += 14 + len;
	g->ns += g->step_ns;
}

/*
 * An IPv4 TCP segment into @p, with a window scale option when @wscale >= 0
 * (SYNs only); returns its IP length.
 */
static size_t tcp4_ws(uint8_t *p, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
		      uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win, int wscale,
		      const void *data, size_t len)
{
	uint8_t *l4 = p + 20;
	size_t hl = wscale >= 0 ? 24 : 20;

	memset(l4, 0, hl);
	pb_put16(l4, sport);
	pb_put16(l4 + 2, dport);
	pb_put32(l4 + 4, seq);
	pb_put32(l4 + 8, ack);
	l4[12] = (uint8_t)((hl / 4) << 4);
	l4[13] = flags;
	pb_put16(l4 + 14, win);
	if (wscale >= 0) {
		l4[20] = 1; /* NOP, then kind 3 length 3 */
		l4[21] = 3;
		l4[22] = 3;
		l4[23] = (uint8_t)wscale;
	}
	if (len)
		memcpy(l4 + hl, data, len);
	pb_put16(l4 + 16, pb_csum(pb_pseudo4(src, dst, 6, hl + len), l4, hl + len));
	pb_ip4(p, src, dst, 6, hl + len, (uint16_t)(seq ^ sport), 0);
	return 20 + hl + len;
}

static size_t tcp4(uint8_t *p, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
		   uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win, const void *data,
		   size_t len)
{
	return tcp4_ws(p, src, dst, sport, dport, seq, ack, flags, win, -1, data, len);
}

/* An IPv4 UDP datagram into @p; returns its IP length. */
static size_t udp4(uint8_t *p, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
		   const void *data, size_t len, uint16_t id)
{
	uint8_t *l4 = p + 20;

	pb_put16(l4, sport);
	pb_put16(l4 + 2, dport);
	pb_put16(l4 + 4, (uint16_t)(8 + len));
	pb_put16(l4 + 6, 0);
	memcpy(l4 + 8, data, len);
	pb_put16(l4 + 6, pb_csum(pb_pseudo4(src, dst, 17, 8 + len), l4, 8 + len));
	pb_ip4(p, src, dst, 17, 8 + len, id, 0);
	return 28 + len;
}

/* Sends bytes [off, off + len) of the IP payload of datagram @dg as one fragment. */
static void fragment(struct gen *g, const uint8_t *dg, size_t off, size_t len, int more)
{
	uint8_t f[MAX_FRAME];
	uint32_t src, dst;

	memcpy(&src, dg + 12, 4);
	memcpy(&dst, dg + 16, 4);
	pb_ip4(f, ntohl(src), ntohl(dst), dg[9], len, (uint16_t)(dg[4] << 8 | dg[5]),
	       (uint16_t)((more ? 0x2000 : 0) | (off / 8)));
	memcpy(f + 20, dg + 20 + off, len);
	emit(g, f, 20 + len);
}

/* ---- the real sessions --------------------------------------------------- */

struct session {
	const char *name;
	uint32_t cli;
	uint16_t sport;
	uint32_t cseq, sseq; /* next sequence numbers */
	int step;
	int fragment_request; /* the request travels in three IPv4 fragments */
	char request[1400], response[512];
	size_t reqlen, resplen;
	unsigned int pkts[2];
};

static void session_init(struct session *s, const char *name, int idx, int frag)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->cli = CLIENTS + 1 + (uint32_t)idx;
	s->sport = (uint16_t)(40000 + idx);
	s->cseq = 0x10000000u * (uint32_t)(idx + 1);
	s->sseq = 0x80000000u + 0x1000000u * (uint32_t)idx;
	s->fragment_request = frag;
	/* long enough to need three fragments of 8-byte multiples */
	s->reqlen =
		(size_t)snprintf(s->request, sizeof(s->request),
				 "GET /meerkat-attack-trigger-%s HTTP/1.1\r\nHost: 192.0.2.80\r\n"
				 "User-Agent: gen_attack\r\nX-Pad: %0900d\r\n\r\n",
				 name, 0);
	s->resplen = (size_t)snprintf(s->response, sizeof(s->response),
				      "HTTP/1.1 200 OK\r\nContent-Length: 31\r\n\r\n"
				      "meerkat-attack-response-%-7s",
				      name);
}

static void session_pkt(struct gen *g, struct session *s, int up, uint8_t flags, const void *data,
			size_t len)
{
	uint8_t ip[MAX_FRAME + 1500];
	size_t n;

	if (up) {
		n = tcp4(ip, s->cli, SERVER, s->sport, 80, s->cseq, flags & 0x10 ? s->sseq : 0,
			 flags, 64240, data, len);
		s->cseq += (uint32_t)len + !!(flags & 0x03);
	} else {
		n = tcp4(ip, SERVER, s->cli, 80, s->sport, s->sseq, s->cseq, flags, 65160, data,
			 len);
		s->sseq += (uint32_t)len + !!(flags & 0x03);
	}
	s->pkts[!up]++;
	if (up && s->fragment_request && len > 600) {
		size_t l4 = n - 20, a = 256, b = 512;

		fragment(g, ip, 0, a, 1);
		fragment(g, ip, a, b - a, 1);
		fragment(g, ip, b, l4 - b, 0);
		return;
	}
	emit(g, ip, n);
}

/*
 * The session's packets from its step on until step @until: SYN, SYN/ACK,
 * ACK, request, ACK, response, ACK, FIN, FIN/ACK, ACK.
 */
static void session_run(struct gen *g, struct session *s, int until)
{
	for (; s->step < until; s->step++) {
		switch (s->step) {
		case 0:
			session_pkt(g, s, 1, 0x02, NULL, 0);
			break;
		case 1:
			session_pkt(g, s, 0, 0x12, NULL, 0);
			break;
		case 2:
			session_pkt(g, s, 1, 0x10, NULL, 0);
			break;
		case 3:
			session_pkt(g, s, 1, 0x18, s->request, s->reqlen);
			break;
		case 4:
			session_pkt(g, s, 0, 0x10, NULL, 0);
			break;
		case 5:
			session_pkt(g, s, 0, 0x18, s->response, s->resplen);
			break;
		case 6:
			session_pkt(g, s, 1, 0x10, NULL, 0);
			break;
		case 7:
			session_pkt(g, s, 1, 0x11, NULL, 0);
			break;
		case 8:
			session_pkt(g, s, 0, 0x11, NULL, 0);
			break;
		case 9:
			session_pkt(g, s, 1, 0x10, NULL, 0);
			break;
		}
	}
}

#define SESSION_STEPS 10

/* ---- floods --------------------------------------------------------------- */

/*
 * Distinct spoofed sources: 10.0.0.0/8 addresses from a bijection of the
 * item number (an odd multiplier modulo 2^24), so no two items share one.
 */
static uint32_t spoofed(uint64_t i)
{
	return 0x0a000000u | (uint32_t)((i * 2654435761u) & 0xffffff);
}

static void flood_syn(struct gen *g, uint64_t i)
{
	uint8_t ip[64];
	uint32_t h = (uint32_t)(i * 0x9e3779b9u);

	emit(g, ip,
	     tcp4(ip, spoofed(i), SERVER, (uint16_t)(1024 + h % 64000), 80, h, 0, 0x02, 64240, NULL,
		  0));
}

/* Five kinds in turn, each from its own source, with its own id. */
static void flood_frag(struct gen *g, uint64_t i)
{
	uint8_t dg[70000], pay[1480];
	uint32_t src = spoofed(i);
	uint16_t id = (uint16_t)(i ^ (i >> 16));
	size_t k, n;

	memset(pay, 'A' + (int)(i % 26), sizeof(pay));
	switch (i % 5) {
	case 0: /* incomplete: the first of three fragments only */
		n = udp4(dg, src, SERVER, 5353, 53, pay, 1472, id);
		fragment(g, dg, 0, 1480, 1);
		break;
	case 1: /* tiny: twelve 8-byte fragments, the last one never sent */
		n = udp4(dg, src, SERVER, 5353, 53, pay, 96, id);
		for (k = 0; k < 12; k++)
			fragment(g, dg, k * 8, 8, 1);
		break;
	case 2: /* teardrop: the final fragment ends inside the first one */
		n = udp4(dg, src, SERVER, 5353, 53, pay, 40, id);
		fragment(g, dg, 0, 48, 1);
		fragment(g, dg, 24, 8, 0);
		break;
	case 3: /* overlapping, conflicting, complete */
		n = udp4(dg, src, SERVER, 5353, 53, pay, 56, id);
		fragment(g, dg, 0, 32, 1);
		memset(dg + 20 + 16, 'Z', 16);
		fragment(g, dg, 16, 48, 0);
		break;
	default: /* ping of death: offsets reaching past 65535 */
		memset(dg, 0, 20 + 8 + 1480);
		n = udp4(dg, src, SERVER, 5353, 53, pay, 1472, id);
		fragment(g, dg, 0, 1480, 1);
		/* the last fragment's bytes, so that every run writes the same capture */
		memset(dg + 20 + 65528 - 1480, 'P', 1480);
		fragment(g, dg, 65528 - 1480, 1480, 0);
		break;
	}
	(void)n;
}

/* seg: @nsess sessions opened first, then each sends segments after a 1-byte hole. */
struct segflood {
	uint64_t nsess;
	uint32_t *next; /* per session: next sequence number to send */
};

static uint32_t seg_client(uint64_t s)
{
	return spoofed(s);
}

static void seg_handshake(struct gen *g, uint64_t s)
{
	uint8_t ip[64];
	uint32_t c = seg_client(s), cisn = (uint32_t)(s * 7919), sisn = (uint32_t)(s * 104729);
	uint16_t sp = (uint16_t)(2000 + s % 60000);

	/* both ends spoofed, window scale 14: a 1 GiB window, so the window bounds nothing */
	emit(g, ip, tcp4_ws(ip, c, SERVER, sp, 80, cisn, 0, 0x02, 65535, 14, NULL, 0));
	emit(g, ip, tcp4_ws(ip, SERVER, c, 80, sp, sisn, cisn + 1, 0x12, 65535, 14, NULL, 0));
	emit(g, ip, tcp4(ip, c, SERVER, sp, 80, cisn + 1, sisn + 1, 0x10, 65535, NULL, 0));
	/* the window of a SYN is never scaled: the server's next segment opens it */
	emit(g, ip, tcp4(ip, SERVER, c, 80, sp, sisn + 1, cisn + 1, 0x10, 65535, NULL, 0));
}

static void seg_segment(struct gen *g, struct segflood *sf, uint64_t s)
{
	uint8_t ip[MAX_FRAME], pay[1000];
	uint32_t c = seg_client(s), cisn = (uint32_t)(s * 7919), sisn = (uint32_t)(s * 104729);
	uint16_t sp = (uint16_t)(2000 + s % 60000);

	if (!sf->next[s])
		sf->next[s] = cisn + 2; /* byte cisn + 1 never comes */
	memset(pay, 'a' + (int)(s % 26), sizeof(pay));
	emit(g, ip,
	     tcp4(ip, c, SERVER, sp, 80, sf->next[s], sisn + 1, 0x18, 65535, pay, sizeof(pay)));
	sf->next[s] += sizeof(pay);
}

/*
 * http: two connections from spoofed clients, each segment of theirs ACKed
 * by the server, which never answers: "pipe" carries back-to-back GET
 * requests (about 28 per segment), "hdrs" one request line and then header
 * lines without end.
 */
struct httpflood {
	uint32_t seq[2]; /* next client sequence number of pipe, hdrs */
	uint64_t req;	 /* requests written so far */
};

#define HTTP_CISN 0x11110000u
#define HTTP_SISN 0x22220000u

static void http_handshake(struct gen *g, struct httpflood *hf, int c)
{
	uint8_t ip[64];
	uint32_t cli = spoofed((uint64_t)c + 1);
	uint16_t sp = (uint16_t)(3000 + c);

	emit(g, ip, tcp4(ip, cli, SERVER, sp, 80, HTTP_CISN, 0, 0x02, 64240, NULL, 0));
	emit(g, ip, tcp4(ip, SERVER, cli, 80, sp, HTTP_SISN, HTTP_CISN + 1, 0x12, 65160, NULL, 0));
	emit(g, ip,
	     tcp4(ip, cli, SERVER, sp, 80, HTTP_CISN + 1, HTTP_SISN + 1, 0x10, 64240, NULL, 0));
	hf->seq[c] = HTTP_CISN + 1;
}

static void http_segment(struct gen *g, struct httpflood *hf, uint64_t i)
{
	uint8_t ip[MAX_FRAME];
	char pay[1024];
	int c = (int)(i & 1), n = 0;
	uint32_t cli = spoofed((uint64_t)c + 1);
	uint16_t sp = (uint16_t)(3000 + c);

	if (c == 0) {
		while (n < 960)
			n += snprintf(pay + n, sizeof(pay) - (size_t)n,
				      "GET /p%llu HTTP/1.1\r\nH: x\r\n\r\n",
				      (unsigned long long)hf->req++);
	} else {
		if (i == 1)
			n = snprintf(pay, sizeof(pay), "GET /never-ending HTTP/1.1\r\n");
		while (n < 960)
			n += snprintf(pay + n, sizeof(pay) - (size_t)n, "X-H%llu: vvvvvvvv\r\n",
				      (unsigned long long)i);
	}
	emit(g, ip,
	     tcp4(ip, cli, SERVER, sp, 80, hf->seq[c], HTTP_SISN + 1, 0x18, 64240, pay, (size_t)n));
	hf->seq[c] += (uint32_t)n;
	emit(g, ip, tcp4(ip, SERVER, cli, 80, sp, HTTP_SISN + 1, hf->seq[c], 0x10, 65160, NULL, 0));
}

/* hash: the flows found so far and the search position. */
struct hashflood {
	uint32_t seed, workers, bits;
	uint32_t bucket, worker; /* the target */
	uint64_t tried;
};

static uint32_t bucket_bits(uint32_t hash_size)
{
	uint32_t nb = 1, bits = 0;

	while (nb < hash_size && bits < 31) {
		nb <<= 1;
		bits++;
	}
	return bits ? bits : 1;
}

/* Next spoofed (source, port) whose flow lands in the target bucket and worker. */
static void hash_next(struct hashflood *hf, uint32_t *src, uint16_t *sport)
{
	for (;;) {
		uint64_t i = hf->tried++;
		/*
		 * 1024 ports per address: 2^34 distinct candidates, where 64 ports
		 * repeated tuples after 2^30 (four fifths of the way into 10,000 flows
		 * for a 65536-bucket table and two workers)
		 */
		uint32_t s = spoofed(i >> 10), a[4] = { htonl(s) }, b[4] = { htonl(SERVER) };
		uint16_t p = (uint16_t)(1024 + (i & 1023));
		struct mk_flow_key k;
		uint32_t h;

		memset(&k, 0, sizeof(k));
		mk_flow_key_set_endpoints(&k, a, htons(p), b, htons(80));
		k.proto = 6;
		k.family = MK_FAMILY_IPV4;
		h = mk_flow_hash(&k, hf->seed);
		if (mk_flow_bucket(h, 32 - hf->bits) == hf->bucket &&
		    (h % MK_ITABLE_SIZE) % hf->workers == hf->worker) {
			*src = s;
			*sport = p;
			return;
		}
	}
}

/* ---- output -------------------------------------------------------------- */

static void write_expect(FILE *e, const char *mode, uint64_t count, const struct gen *g,
			 const struct session *ss, const struct hashflood *hf, uint64_t requests)
{
	int i;

	fprintf(e,
		"{\n \"mode\": \"%s\",\n \"flood_items\": %llu,\n \"frames\": %llu,\n"
		" \"bytes\": %llu,\n \"duration_us\": %llu,\n",
		mode, (unsigned long long)count, (unsigned long long)g->frames,
		(unsigned long long)g->bytes, (unsigned long long)(g->ns / 1000));
	if (hf)
		fprintf(e,
			" \"hash\": {\"seed\": %u, \"workers\": %u, \"bucket\": %u, "
			"\"worker\": %u, \"tried\": %llu},\n",
			hf->seed, hf->workers, hf->bucket, hf->worker,
			(unsigned long long)hf->tried);
	if (requests)
		fprintf(e, " \"pipelined_requests\": %llu,\n", (unsigned long long)requests);
	fprintf(e, " \"sessions\": [\n");
	for (i = 0; i < NSESS; i++) {
		const struct session *s = &ss[i];
		struct in_addr a = { htonl(s->cli) };

		fprintf(e,
			"  {\"name\": \"%s\", \"src_ip\": \"%s\", \"src_port\": %u, "
			"\"dest_ip\": \"192.0.2.80\", \"dest_port\": 80, "
			"\"pkts_toserver\": %u, \"pkts_toclient\": %u, "
			"\"trigger\": \"meerkat-attack-trigger-%s\", "
			"\"response\": \"meerkat-attack-response-%s\"}%s\n",
			s->name, inet_ntoa(a), s->sport, s->pkts[0], s->pkts[1], s->name, s->name,
			i < NSESS - 1 ? "," : "");
	}
	fprintf(e, " ]\n}\n");
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: gen_attack syn|frag|seg|hash -o FILE.pcap [-e EXPECT.json] [--count N]\n"
		"       [--pps N] [--seed S] [--workers W] [--hash-size H]\n"
		"  syn   --count half-open flows (default 1000000)\n"
		"  frag  --count flood datagrams (default 100000)\n"
		"  seg   --count flood segments over --sessions sessions (default 200000 over 64)\n"
		"  hash  --count flows in one bucket of a --hash-size table (default 2000,\n"
		"        65536) and on one of --workers workers, for hash seed --seed\n"
		"  http  --count segments of pipelined requests and of endless headers\n"
		"        (default 20000)\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "expect", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'n' },
		{ "pps", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "workers", required_argument, NULL, 'w' },
		{ "hash-size", required_argument, NULL, 'H' },
		{ "sessions", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *expect = NULL, *mode;
	uint64_t count = 0, pps = 1000000, nsess = 64, i, mid;
	struct hashflood hf = { .seed = 0x6d65726bu, .workers = 1 };
	uint32_t hash_size = 65536;
	struct session ss[NSESS];
	struct segflood sf = { 0 };
	struct httpflood htf = { 0 };
	struct gen g = { 0 };
	uint8_t hdr[24];
	FILE *e;
	int c, frag;

	while ((c = getopt_long(argc, argv, "o:e:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'e':
			expect = optarg;
			break;
		case 'n':
			count = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			pps = strtoull(optarg, NULL, 0);
			break;
		case 's':
			hf.seed = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			hf.workers = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'H':
			hash_size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'S':
			nsess = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !out || !pps || !nsess || !hf.workers || !hash_size) {
		usage(stderr);
		return 2;
	}
	mode = argv[optind];
	if (strcmp(mode, "syn") && strcmp(mode, "frag") && strcmp(mode, "seg") &&
	    strcmp(mode, "hash") && strcmp(mode, "http")) {
		usage(stderr);
		return 2;
	}
	if (!count)
		count = !strcmp(mode, "syn")  ? 1000000 :
			!strcmp(mode, "frag") ? 100000 :
			!strcmp(mode, "seg")  ? 200000 :
			!strcmp(mode, "http") ? 20000 :
						2000;
	g.step_ns = 1000000000ull / pps;
	g.f = fopen(out, "wb");
	if (!g.f) {
		perror(out);
		return 1;
	}
	setvbuf(g.f, NULL, _IOFBF, 1 << 20);
	pb_le32(hdr, 0xa1b2c3d4u);
	hdr[4] = 2, hdr[5] = 0, hdr[6] = 4, hdr[7] = 0;
	memset(hdr + 8, 0, 8);
	pb_le32(hdr + 16, 65535);
	pb_le32(hdr + 20, 1); /* Ethernet */
	fwrite(hdr, 1, 24, g.f);

	frag = !strcmp(mode, "frag");
	session_init(&ss[0], "start", 0, frag);
	session_init(&ss[1], "middle", 1, frag);
	session_init(&ss[2], "end", 2, frag);
	if (!strcmp(mode, "hash")) {
		hf.bits = bucket_bits(hash_size);
		hf.bucket = 0;
		hf.worker = 0;
	}
	if (!strcmp(mode, "seg")) {
		sf.nsess = nsess;
		sf.next = calloc(nsess, sizeof(*sf.next));
		if (!sf.next)
			return 1;
		for (i = 0; i < nsess; i++)
			seg_handshake(&g, i);
	}
	if (!strcmp(mode, "http")) {
		http_handshake(&g, &htf, 0);
		http_handshake(&g, &htf, 1);
	}
	/* "start" opens and asks before the flood, answers and closes after it */
	session_run(&g, &ss[0], 4);
	mid = count / 2;
	for (i = 0; i < count; i++) {
		if (i == mid)
			session_run(&g, &ss[1], SESSION_STEPS);
		if (!strcmp(mode, "syn")) {
			flood_syn(&g, i);
		} else if (frag) {
			flood_frag(&g, i);
		} else if (!strcmp(mode, "seg")) {
			seg_segment(&g, &sf, i % nsess);
		} else if (!strcmp(mode, "http")) {
			http_segment(&g, &htf, i);
		} else {
			uint8_t ip[64];
			uint32_t src;
			uint16_t sp;

			hash_next(&hf, &src, &sp);
			emit(&g, ip,
			     tcp4(ip, src, SERVER, sp, 80, (uint32_t)i, 0, 0x02, 64240, NULL, 0));
		}
	}
	session_run(&g, &ss[2], SESSION_STEPS);
	session_run(&g, &ss[0], SESSION_STEPS);
	free(sf.next);
	if (fclose(g.f)) {
		perror(out);
		return 1;
	}
	if (expect) {
		e = fopen(expect, "w");
		if (!e) {
			perror(expect);
			return 1;
		}
		write_expect(e, mode, count, &g, ss, !strcmp(mode, "hash") ? &hf : NULL, htf.req);
		if (fclose(e)) {
			perror(expect);
			return 1;
		}
	}
	return 0;
}
