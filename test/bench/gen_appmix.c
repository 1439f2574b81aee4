// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes the application-mix workload of the detection benchmark
 * (bench_rules.sh): interleaved HTTP, TLS and DNS sessions, in C because
 * scapy would take minutes for 500 MB. Every session is well formed: TCP
 * handshakes, in-order segments of at most 1448 bytes, acknowledgements,
 * FIN exchanges; HTTP requests with the headers browsers send and responses
 * with bodies; TLS 1.2 ClientHello (SNI), ServerHello, a real certificate,
 * ServerHelloDone and application data records; DNS queries and answers in wire format. Clients
 * are in 10.0.0.0/8, servers in 198.18.0.0/15 (the benchmarking range), so
 * address-only rules are looked up on every packet and none of them fire.
 * The output is reproducible: same arguments, same bytes.
 *
 * usage: gen_appmix [--mbytes N] FILE.pcap     (default 500)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include "../lib/pkt_build.h"

#define MAX_FRAME 1514
#define MSS 1448
#define ACTIVE 256

struct frame {
	uint16_t len;
	uint8_t data[MAX_FRAME];
};

/* One session's frames, written out one at a time as sessions interleave. */
struct session {
	struct frame *pkts;
	unsigned int n, next, cap;
	uint32_t cli, srv;
	uint16_t sport, dport;
	uint32_t cseq, sseq;
};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	return pb_xorshift(&rng_state);
}

static struct frame *emit(struct session *s)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00 };
	struct frame *f;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->pkts = realloc(s->pkts, s->cap * sizeof(*s->pkts));
		if (!s->pkts) {
			perror("gen_appmix");
			abort();
		}
	}
	f = &s->pkts[s->n++];
	memcpy(f->data, eth, sizeof(eth));
	return f;
}

/* An IPv4 TCP (tcp = 1) or UDP segment of the session, client to server when @up. */
static void segment(struct session *s, int tcp, int up, uint8_t flags, const uint8_t *pl,
		    size_t plen)
{
	struct frame *f = emit(s);
	uint32_t src = up ? s->cli : s->srv, dst = up ? s->srv : s->cli;
	size_t hl = tcp ? 20 : 8;
	uint8_t *l4 = f->data + 34;

	memset(l4, 0, hl);
	pb_put16(l4, up ? s->sport : s->dport);
	pb_put16(l4 + 2, up ? s->dport : s->sport);
	if (tcp) {
		pb_put32(l4 + 4, up ? s->cseq : s->sseq);
		pb_put32(l4 + 8, flags & 0x10 ? (up ? s->sseq : s->cseq) : 0);
		l4[12] = 5 << 4;
		l4[13] = flags;
		pb_put16(l4 + 14, 64240);
	} else {
		pb_put16(l4 + 4, (uint16_t)(8 + plen));
	}
	if (plen)
		memcpy(l4 + hl, pl, plen);
	pb_put16(l4 + (tcp ? 16 : 6),
		 pb_csum(pb_pseudo4(src, dst, tcp ? 6 : 17, hl + plen), l4, hl + plen));
	pb_ip4(f->data + 14, src, dst, tcp ? 6 : 17, hl + plen, (uint16_t)rnd(), 0);
	f->len = (uint16_t)(34 + hl + plen);
	if (tcp) {
		uint32_t adv = (uint32_t)plen + (flags & 0x03 ? 1 : 0); /* SYN, FIN */

		if (up)
			s->cseq += adv;
		else
			s->sseq += adv;
	}
}

/* @len bytes of one direction's stream in MSS segments, acknowledged every other one. */
static void stream(struct session *s, int up, const uint8_t *data, size_t len)
{
	size_t off = 0;
	unsigned int k = 0;

	while (off < len) {
		size_t n = len - off > MSS ? MSS : len - off;

		segment(s, 1, up, 0x18, data + off, n);
		off += n;
		if (++k % 2 == 0 || off == len)
			segment(s, 1, !up, 0x10, NULL, 0);
	}
}

static void handshake(struct session *s)
{
	segment(s, 1, 1, 0x02, NULL, 0);
	segment(s, 1, 0, 0x12, NULL, 0);
	segment(s, 1, 1, 0x10, NULL, 0);
}

static void teardown(struct session *s)
{
	segment(s, 1, 1, 0x11, NULL, 0);
	segment(s, 1, 0, 0x11, NULL, 0);
	segment(s, 1, 1, 0x10, NULL, 0);
}

static uint8_t body[256 << 10];

static void fill_body(void)
{
	static const char words[] =
		"the quick brown fox jumps over the lazy dog <div class=\"item\"> "
		"function(e){return e} 0123456789 {\"id\":42,\"name\":\"x\"} ";
	size_t i;

	for (i = 0; i < sizeof(body); i++)
		body[i] = (uint8_t)words[(i * 7 + i / 97) % (sizeof(words) - 1)];
}

static const char *const hosts[] = { "www.example.com",	   "cdn.example.net", "api.example.org",
				     "static.example.com", "img.example.net", "news.example.org" };
static const char *const agents[] = {
	"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
	"Chrome/119.0.0.0 Safari/537.36",
	"curl/7.88.1",
};
static const char *const paths[] = { "/",
				     "/index.html",
				     "/static/app.js",
				     "/api/v1/items?id=",
				     "/images/logo.png",
				     "/search?q=weather+report&page=" };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void http_session(struct session *s)
{
	char req[1024], hdr[512];
	size_t blen = 2000 + rnd() % 120000;
	int n, k, reqs = 1 + (int)(rnd() % 3);

	s->dport = 80;
	handshake(s);
	for (k = 0; k < reqs; k++) {
		n = snprintf(req, sizeof(req),
			     "GET %s%u HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n"
			     "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n"
			     "Accept-Language: en-US,en;q=0.5\r\nAccept-Encoding: gzip, deflate\r\n"
			     "Cookie: session=%08x%08x\r\nConnection: keep-alive\r\n\r\n",
			     paths[rnd() % NELEM(paths)], rnd() % 10000,
			     hosts[rnd() % NELEM(hosts)], agents[rnd() % NELEM(agents)], rnd(),
			     rnd());
		stream(s, 1, (const uint8_t *)req, (size_t)n);
		n = snprintf(hdr, sizeof(hdr),
			     "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Fri, 04 Dec 2026 "
			     "18:00:00 GMT\r\nContent-Type: text/html\r\nContent-Length: %zu\r\n"
			     "Connection: keep-alive\r\n\r\n",
			     blen);
		stream(s, 0, (const uint8_t *)hdr, (size_t)n);
		stream(s, 0, body + rnd() % 1024, blen);
	}
	teardown(s);
}

/*
 * The server's certificate: self-signed, ECDSA P-256, CN=bench.meerkat.test
 * (made once with openssl req -x509; fixed so the output is reproducible).
 */
static const uint8_t cert_der[] = {
	0x30, 0x82, 0x01, 0xe1, 0x30, 0x82, 0x01, 0x87, 0xa0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x14,
	0x3f, 0x53, 0x54, 0x1a, 0x12, 0x98, 0x16, 0x0a, 0x5b, 0x14, 0x93, 0x1c, 0x78, 0x2f, 0x20,
	0xf9, 0xd3, 0x0b, 0x9e, 0x87, 0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04,
	0x03, 0x02, 0x30, 0x46, 0x31, 0x0b, 0x30, 0x09, 0x06, 0x03, 0x55, 0x04, 0x06, 0x13, 0x02,
	0x58, 0x58, 0x31, 0x1a, 0x30, 0x18, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x0c, 0x11, 0x6d, 0x65,
	0x65, 0x72, 0x6b, 0x61, 0x74, 0x20, 0x62, 0x65, 0x6e, 0x63, 0x68, 0x6d, 0x61, 0x72, 0x6b,
	0x31, 0x1b, 0x30, 0x19, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x12, 0x62, 0x65, 0x6e, 0x63,
	0x68, 0x2e, 0x6d, 0x65, 0x65, 0x72, 0x6b, 0x61, 0x74, 0x2e, 0x74, 0x65, 0x73, 0x74, 0x30,
	0x1e, 0x17, 0x0d, 0x32, 0x36, 0x31, 0x32, 0x30, 0x34, 0x32, 0x33, 0x32, 0x33, 0x34, 0x33,
	0x5a, 0x17, 0x0d, 0x33, 0x36, 0x31, 0x32, 0x30, 0x31, 0x32, 0x33, 0x32, 0x33, 0x34, 0x33,
	0x5a, 0x30, 0x46, 0x31, 0x0b, 0x30, 0x09, 0x06, 0x03, 0x55, 0x04, 0x06, 0x13, 0x02, 0x58,
	0x58, 0x31, 0x1a, 0x30, 0x18, 0x06, 0x03, 0x55, 0x04, 0x0a, 0x0c, 0x11, 0x6d, 0x65, 0x65,
	0x72, 0x6b, 0x61, 0x74, 0x20, 0x62, 0x65, 0x6e, 0x63, 0x68, 0x6d, 0x61, 0x72, 0x6b, 0x31,
	0x1b, 0x30, 0x19, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0c, 0x12, 0x62, 0x65, 0x6e, 0x63, 0x68,
	0x2e, 0x6d, 0x65, 0x65, 0x72, 0x6b, 0x61, 0x74, 0x2e, 0x74, 0x65, 0x73, 0x74, 0x30, 0x59,
	0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86,
	0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04, 0x50, 0x4c, 0xf4, 0x3a, 0xdf,
	0xf1, 0x2f, 0x9e, 0x6b, 0xcd, 0x9b, 0x64, 0xda, 0x3f, 0xe7, 0x4e, 0x15, 0x65, 0xd0, 0x70,
	0xcf, 0xa4, 0x59, 0xa6, 0x5a, 0x2d, 0xe1, 0xe8, 0x81, 0x56, 0x3c, 0x79, 0x6a, 0x69, 0x78,
	0x7c, 0x48, 0xb7, 0x1d, 0x80, 0xcb, 0x1c, 0xa5, 0xf3, 0xaf, 0xe0, 0xf8, 0x57, 0xc2, 0xd4,
	0xe7, 0x05, 0xdf, 0xe9, 0x41, 0x7b, 0x49, 0x2c, 0xc3, 0x9e, 0x77, 0xba, 0x03, 0x81, 0xa3,
	0x53, 0x30, 0x51, 0x30, 0x1d, 0x06, 0x03, 0x55, 0x1d, 0x0e, 0x04, 0x16, 0x04, 0x14, 0xc2,
	0x40, 0x82, 0x21, 0xee, 0xc1, 0xe2, 0xe2, 0x30, 0x3c, 0xd2, 0x9b, 0x87, 0x02, 0xf8, 0x93,
	0x52, 0x8c, 0x0a, 0x8e, 0x30, 0x1f, 0x06, 0x03, 0x55, 0x1d, 0x23, 0x04, 0x18, 0x30, 0x16,
	0x80, 0x14, 0xc2, 0x40, 0x82, 0x21, 0xee, 0xc1, 0xe2, 0xe2, 0x30, 0x3c, 0xd2, 0x9b, 0x87,
	0x02, 0xf8, 0x93, 0x52, 0x8c, 0x0a, 0x8e, 0x30, 0x0f, 0x06, 0x03, 0x55, 0x1d, 0x13, 0x01,
	0x01, 0xff, 0x04, 0x05, 0x30, 0x03, 0x01, 0x01, 0xff, 0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86,
	0x48, 0xce, 0x3d, 0x04, 0x03, 0x02, 0x03, 0x48, 0x00, 0x30, 0x45, 0x02, 0x21, 0x00, 0x9b,
	0x58, 0x0a, 0x98, 0x08, 0x19, 0x3a, 0x06, 0x19, 0x51, 0xa7, 0xc4, 0x2e, 0x1d, 0x8f, 0x12,
	0x8a, 0x45, 0xe9, 0xc2, 0xfc, 0x67, 0xbd, 0x36, 0xb8, 0x91, 0x2d, 0x44, 0x3c, 0x77, 0xda,
	0x36, 0x02, 0x20, 0x64, 0x96, 0x2d, 0x7f, 0x1e, 0x77, 0x22, 0xa9, 0xb1, 0xa3, 0xa3, 0xeb,
	0x19, 0x2b, 0xd7, 0x1e, 0x07, 0x93, 0x52, 0xc7, 0x1d, 0xa0, 0xc4, 0x76, 0xbb, 0xea, 0x26,
	0xcc, 0x60, 0x09, 0x86, 0x9f,
};

/* A TLS record header (content type, TLS 1.2, length) at p. */
static size_t tls_record(uint8_t *p, uint8_t type, size_t len)
{
	p[0] = type;
	p[1] = 3;
	p[2] = 3;
	pb_put16(p + 3, (uint16_t)len);
	return 5;
}

static void tls_session(struct session *s)
{
	uint8_t buf[16384 + 64];
	const char *sni = hosts[rnd() % NELEM(hosts)];
	size_t sl = strlen(sni), hl, off, i, total = 20000 + rnd() % 200000;

	s->dport = 443;
	handshake(s);
	/* ClientHello: version, random, session id, 16 suites, null compression, SNI */
	hl = 2 + 32 + 1 + 32 + 2 + 32 + 2 + 2 + (9 + sl);
	off = tls_record(buf, 22, 4 + hl);
	buf[off++] = 1;
	buf[off++] = 0;
	pb_put16(buf + off, (uint16_t)hl);
	off += 2;
	buf[off++] = 3;
	buf[off++] = 3;
	for (i = 0; i < 32; i++)
		buf[off++] = (uint8_t)rnd();
	buf[off++] = 32;
	for (i = 0; i < 32; i++)
		buf[off++] = (uint8_t)rnd();
	pb_put16(buf + off, 32);
	off += 2;
	for (i = 0; i < 16; i++, off += 2)
		pb_put16(buf + off, (uint16_t)(0xc02b + i));
	buf[off++] = 1;
	buf[off++] = 0;
	pb_put16(buf + off, (uint16_t)(9 + sl));
	off += 2;
	pb_put16(buf + off, 0); /* server_name */
	pb_put16(buf + off + 2, (uint16_t)(5 + sl));
	pb_put16(buf + off + 4, (uint16_t)(3 + sl));
	buf[off + 6] = 0;
	pb_put16(buf + off + 7, (uint16_t)sl);
	memcpy(buf + off + 9, sni, sl);
	off += 9 + sl;
	stream(s, 1, buf, off);
	/* ServerHello (TLS 1.2, the first suite offered), Certificate, ServerHelloDone */
	hl = 2 + 32 + 1 + 32 + 2 + 1 + 2;
	off = tls_record(buf, 22, (4 + hl) + (4 + 3 + 3 + sizeof(cert_der)) + 4);
	buf[off++] = 2;
	buf[off++] = 0;
	pb_put16(buf + off, (uint16_t)hl);
	off += 2;
	buf[off++] = 3;
	buf[off++] = 3;
	for (i = 0; i < 32; i++)
		buf[off++] = (uint8_t)rnd();
	buf[off++] = 32;
	for (i = 0; i < 32; i++)
		buf[off++] = (uint8_t)rnd();
	pb_put16(buf + off, 0xc02b);
	off += 2;
	buf[off++] = 0;
	pb_put16(buf + off, 0); /* no extensions */
	off += 2;
	buf[off++] = 11;
	buf[off++] = 0;
	pb_put16(buf + off, (uint16_t)(3 + 3 + sizeof(cert_der)));
	off += 2;
	buf[off++] = 0;
	pb_put16(buf + off, (uint16_t)(3 + sizeof(cert_der)));
	off += 2;
	buf[off++] = 0;
	pb_put16(buf + off, (uint16_t)sizeof(cert_der));
	off += 2;
	memcpy(buf + off, cert_der, sizeof(cert_der));
	off += sizeof(cert_der);
	buf[off++] = 14;
	buf[off++] = 0;
	buf[off++] = 0;
	buf[off++] = 0;
	stream(s, 0, buf, off);
	/* application data both ways, mostly server to client */
	while (total) {
		size_t n = total > 16384 ? 16384 : total;
		int up = rnd() % 8 == 0;

		off = tls_record(buf, 23, n);
		for (i = 0; i < n; i++)
			buf[off + i] = (uint8_t)rnd();
		stream(s, up, buf, off + n);
		total -= n;
	}
	teardown(s);
}

/* A DNS name in wire format at p; returns its length. */
static size_t dns_name(uint8_t *p, const char *name)
{
	size_t o = 0;

	while (*name) {
		const char *dot = strchr(name, '.');
		size_t l = dot ? (size_t)(dot - name) : strlen(name);

		p[o++] = (uint8_t)l;
		memcpy(p + o, name, l);
		o += l;
		name += l + (dot ? 1 : 0);
	}
	p[o++] = 0;
	return o;
}

static void dns_session(struct session *s)
{
	uint8_t q[512], a[512];
	const char *name = hosts[rnd() % NELEM(hosts)];
	uint16_t id = (uint16_t)rnd(), type = rnd() % 2 ? 1 : 28;
	size_t ql, al, n, i, answers = 1 + rnd() % 4;

	s->dport = 53;
	memset(q, 0, 12);
	pb_put16(q, id);
	pb_put16(q + 2, 0x0100);
	pb_put16(q + 4, 1);
	ql = 12 + dns_name(q + 12, name);
	pb_put16(q + ql, type);
	pb_put16(q + ql + 2, 1);
	ql += 4;
	segment(s, 0, 1, 0, q, ql);
	memcpy(a, q, ql);
	pb_put16(a + 2, 0x8180);
	pb_put16(a + 6, (uint16_t)answers);
	al = ql;
	for (i = 0; i < answers; i++) {
		n = type == 1 ? 4 : 16;
		pb_put16(a + al, 0xc00c); /* the question's name */
		pb_put16(a + al + 2, type);
		pb_put16(a + al + 4, 1);
		pb_put32(a + al + 6, 300);
		pb_put16(a + al + 10, (uint16_t)n);
		al += 12;
		while (n--)
			a[al++] = (uint8_t)rnd();
	}
	segment(s, 0, 0, 0, a, al);
}

static void new_session(struct session *s, uint32_t serial)
{
	uint32_t kind = rnd() % 100;

	s->n = s->next = 0;
	s->cli = 0x0a000000 | (serial & 0xffffff);
	s->srv = 0xc6120000 | (rnd() & 0x1ffff);
	s->sport = (uint16_t)(1024 + rnd() % 60000);
	s->cseq = rnd();
	s->sseq = rnd();
	if (kind < 45)
		http_session(s);
	else if (kind < 70)
		tls_session(s);
	else
		dns_session(s);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "mbytes", required_argument, NULL, 'm' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	uint64_t target = 500ull << 20, bytes = 0, pkts = 0, ts = 1796400000ull * 1000000;
	struct session *act;
	pcap_dumper_t *d;
	pcap_t *dead;
	uint32_t serial = 0;
	int c, k;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'm') {
			target = strtoull(optarg, NULL, 10) << 20;
		} else {
			fprintf(stderr, "usage: %s [--mbytes N] FILE.pcap\n", argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc || !target) {
		fprintf(stderr, "usage: %s [--mbytes N] FILE.pcap\n", argv[0]);
		return 2;
	}
	fill_body();
	act = calloc(ACTIVE, sizeof(*act));
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	if (!act || !dead)
		return 1;
	d = pcap_dump_open(dead, argv[optind]);
	if (!d) {
		fprintf(stderr, "%s: %s\n", argv[optind], pcap_geterr(dead));
		return 1;
	}
	for (k = 0; k < ACTIVE; k++)
		new_session(&act[k], serial++);
	while (bytes < target) {
		struct session *s = &act[rnd() % ACTIVE];
		struct frame *f = &s->pkts[s->next++];
		struct pcap_pkthdr h = { .caplen = f->len, .len = f->len };

		ts += 2 + rnd() % 6;
		h.ts.tv_sec = (time_t)(ts / 1000000);
		h.ts.tv_usec = (suseconds_t)(ts % 1000000);
		pcap_dump((u_char *)d, &h, f->data);
		bytes += f->len;
		pkts++;
		if (s->next == s->n)
			new_session(s, serial++);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	for (k = 0; k < ACTIVE; k++)
		free(act[k].pkts);
	free(act);
	printf("gen_appmix: %s: %llu packets, %llu bytes, %u sessions started\n", argv[optind],
	       (unsigned long long)pkts, (unsigned long long)bytes, serial);
	return 0;
}
