// SPDX-License-Identifier: GPL-2.0-only
/*
 * Detection benchmark. Writes a mixed capture in C (text-like HTTP sessions
 * of realistic sizes with some out-of-order segments, DNS-like UDP, TCP to
 * other ports, fragmented UDP datagrams) and rule sets of 100, 5,000 and
 * 30,000 generated rules (content lengths 4-24 bytes, a port spread like a
 * public rule set's, 5% with pcre, some nocase, depth, flow and second
 * contents). Then, in the same run:
 *   - the offline pipeline, 1 worker, with no rules, 100 and 5,000 rules:
 *     packets/s, Gbit/s, and each rate's ratio to the no-rules rate, by
 *     wall clock (what `meerkat -r` takes, reader thread included);
 *   - the same pipeline stages on one thread (test/detect/detect_harness.c),
 *     by CPU time: the worker's own cost, which other load on the machine
 *     inflates much less than wall-clock time;
 *   - the time to build an engine from 5,000 and 30,000 rules.
 *
 * usage: bench_detect [--packets N] [--runs N] [--keep DIR] [--stream-window N] [--binary]
 *   --binary: every payload random bytes (TLS, compressed content): the
 *   prefilter's best case; the default mixes text headers and pages in.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include "config.h"
#include "detect.h"
#include "detect_harness.h"
#include "log.h"
#include "offline.h"
#include "pcap_source.h"
#include "../lib/pkt_build.h"

#define MAX_FRAME 1600
#define SESSION_MAX_PKTS 64
#define ACTIVE 256

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	return pb_xorshift(&rng_state);
}

/* Words of web and DNS traffic: payloads are made of them, rules look for some. */
static const char *const words[] = {
	"GET",
	"POST",
	"HTTP/1.1",
	"Host:",
	"User-Agent:",
	"Mozilla/5.0",
	"Accept:",
	"text/html",
	"application/json",
	"Content-Length:",
	"Content-Type:",
	"Cookie:",
	"session",
	"login",
	"admin",
	"index.php",
	"api",
	"v1",
	"user",
	"password",
	"token",
	"Authorization:",
	"Bearer",
	"gzip",
	"deflate",
	"keep-alive",
	"Connection:",
	"close",
	"Referer:",
	"https://",
	"www",
	"example",
	"com",
	"org",
	"search",
	"query",
	"q=",
	"id=",
	"page",
	"static",
	"images",
	"logo.png",
	"style.css",
	"app.js",
	"jquery",
	"min.js",
	"font",
	"woff2",
	"cache",
	"no-cache",
	"max-age",
	"Set-Cookie:",
	"path=/",
	"HttpOnly",
	"Secure",
	"Server:",
	"nginx",
	"Apache",
	"200",
	"OK",
	"404",
	"Not",
	"Found",
	"301",
	"Moved",
	"Location:",
	"charset=utf-8",
	"Date:",
	"Mon",
	"Dec",
	"2026",
	"GMT",
	"ETag:",
	"Vary:",
	"Accept-Encoding",
	"X-Forwarded-For:",
	"upload",
	"download",
	"file",
	"data",
	"json",
	"xml",
	"html",
	"body",
	"head",
	"title",
	"div",
	"span",
	"class",
	"script",
	"function",
	"return",
	"var",
	"window",
	"document",
	"cmd",
	"exec",
	"shell",
	"select",
	"from",
	"where",
	"union",
	"config",
	"backup",
	"wp-admin",
	"phpmyadmin",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* The next payload is random bytes rather than text (see tcp_session); --binary: all are. */
static int fill_binary, all_binary;

struct frame {
	uint16_t len;
	uint8_t data[MAX_FRAME];
};

struct session {
	struct frame *pkts;
	int n, next;
};

/* Text made of words, CRLF now and then, a few binary bytes. */
static void fill_text(uint8_t *p, size_t n)
{
	size_t o = 0;

	/* what fills most segments on the wire: compressed or encrypted bytes */
	if (fill_binary || all_binary) {
		for (o = 0; o < n; o++)
			p[o] = (uint8_t)rnd();
		return;
	}
	while (o < n) {
		const char *w = words[rnd() % NWORDS];
		size_t l = strlen(w);

		if (rnd() % 16 == 0) {
			p[o++] = (uint8_t)rnd();
			continue;
		}
		if (l > n - o)
			l = n - o;
		memcpy(p + o, w, l);
		o += l;
		if (o < n)
			p[o++] = rnd() % 6 ? ' ' : '\n';
	}
}

static size_t l4pkt(uint8_t *p, uint32_t src, uint32_t dst, int tcp, uint16_t sport, uint16_t dport,
		    uint32_t seq, uint32_t ack, uint8_t flags, size_t plen)
{
	size_t hl = tcp ? 20 : 8;
	uint8_t *l4 = p + 20;
	uint32_t ps;

	memset(l4, 0, hl);
	pb_put16(l4, sport);
	pb_put16(l4 + 2, dport);
	if (tcp) {
		pb_put32(l4 + 4, seq);
		pb_put32(l4 + 8, ack);
		l4[12] = 5 << 4;
		l4[13] = flags;
		pb_put16(l4 + 14, 65535);
	} else {
		pb_put16(l4 + 4, (uint16_t)(8 + plen));
	}
	fill_text(l4 + hl, plen);
	ps = (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff) + (tcp ? 6u : 17u) +
	     (uint32_t)(hl + plen);
	pb_put16(l4 + (tcp ? 16 : 6), pb_csum(ps, l4, hl + plen));
	pb_ip4(p, src, dst, tcp ? 6 : 17, hl + plen, (uint16_t)rnd(), 0);
	return 20 + hl + plen;
}

static struct frame *emit(struct session *s)
{
	static const uint8_t hdr[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00 };
	struct frame *f = &s->pkts[s->n++];

	memcpy(f->data, hdr, 14);
	return f;
}

static void tcp_session(struct session *s, uint32_t cli, uint32_t srv, uint16_t sport,
			uint16_t dport)
{
	uint32_t cseq = rnd(), sseq = rnd();
	int nseg = 6 + (int)(rnd() % 12), i, ooo = rnd() % 20 == 0;
	size_t req = 200 + rnd() % 400;
	struct frame *f;

#define PKT(up, fl, sq, ak, pl)                                                                 \
	do {                                                                                    \
		f = emit(s);                                                                    \
		f->len = (uint16_t)(14 + ((up) ? l4pkt(f->data + 14, cli, srv, 1, sport, dport, \
						       sq, ak, fl, pl) :                        \
						 l4pkt(f->data + 14, srv, cli, 1, dport, sport, \
						       sq, ak, fl, pl)));                       \
	} while (0)

	PKT(1, 0x02, cseq, 0, 0);
	PKT(0, 0x12, sseq, cseq + 1, 0);
	PKT(1, 0x10, cseq + 1, sseq + 1, 0);
	cseq++;
	sseq++;
	/* TLS on 443: random bytes both ways; HTTP: text headers, a body mostly binary */
	fill_binary = dport == 443;
	PKT(1, 0x18, cseq, sseq, req);
	cseq += (uint32_t)req;
	for (i = 0; i < nseg; i++) {
		size_t pl = 100 + rnd() % 1361;

		fill_binary = dport == 443 || (i > 0 && rnd() % 10 < 7);
		PKT(0, 0x10, sseq, cseq, pl);
		fill_binary = 0;
		sseq += (uint32_t)pl;
		if (i & 1)
			PKT(1, 0x10, cseq, sseq, 0);
	}
	if (ooo && s->n > 6) {
		struct frame t = s->pkts[4];

		s->pkts[4] = s->pkts[5];
		s->pkts[5] = t;
	}
	PKT(1, 0x11, cseq, sseq, 0);
	PKT(0, 0x11, sseq, cseq + 1, 0);
	PKT(1, 0x10, cseq + 1, sseq + 1, 0);
#undef PKT
}

static void udp_session(struct session *s, uint32_t cli, uint32_t srv, uint16_t sport)
{
	int n = 2 + (int)(rnd() % 3), i;

	for (i = 0; i < n; i++) {
		struct frame *f = emit(s);
		int up = !(i & 1);

		f->len = (uint16_t)(14 + l4pkt(f->data + 14, up ? cli : srv, up ? srv : cli, 0,
					       up ? sport : 53, up ? 53 : sport, 0, 0, 0,
					       40 + rnd() % 400));
	}
}

static void frag_session(struct session *s, uint32_t cli, uint32_t srv, uint16_t sport)
{
	uint8_t dg[3100];
	size_t len = l4pkt(dg, cli, srv, 0, sport, 4789, 0, 0, 0, 3000 - 8), off = 20;
	uint16_t id = (uint16_t)rnd();

	while (off < len) {
		size_t chunk = len - off > 1480 ? 1480 : len - off;
		int more = off + chunk < len;
		struct frame *f = emit(s);

		pb_ip4(f->data + 14, cli, srv, 17, chunk, id,
		       (uint16_t)((more ? 0x2000 : 0) | ((off - 20) / 8)));
		memcpy(f->data + 34, dg + off, chunk);
		f->len = (uint16_t)(34 + chunk);
		off += chunk;
	}
}

static void new_session(struct session *s, uint32_t serial)
{
	static const uint16_t other_ports[] = { 443, 8080, 25, 110, 143, 21, 22, 3306, 445, 8443 };
	uint32_t cli = 0x0a000000 | (serial & 0xffff), srv = 0xc6120000 | (rnd() & 0xff);
	uint16_t sport = (uint16_t)(1024 + (serial >> 4) % 60000);
	uint32_t kind = rnd() % 100;

	s->n = 0;
	s->next = 0;
	if (kind < 75)
		tcp_session(s, cli, srv, sport, 80);
	else if (kind < 90)
		tcp_session(s, cli, srv, sport, other_ports[rnd() % 10]);
	else if (kind < 97)
		udp_session(s, cli, srv, sport);
	else
		frag_session(s, cli, srv, sport);
}

static int write_capture(const char *path, uint64_t npkts, uint64_t *bytes)
{
	struct session *act = calloc(ACTIVE, sizeof(*act));
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;
	uint64_t i, ts = 1796269500ull * 1000000;
	uint32_t serial = 0;
	int k;

	if (!act || !dead)
		return -ENOMEM;
	d = pcap_dump_open(dead, path);
	if (!d) {
		fprintf(stderr, "%s: %s\n", path, pcap_geterr(dead));
		return -EIO;
	}
	for (k = 0; k < ACTIVE; k++) {
		act[k].pkts = malloc(SESSION_MAX_PKTS * sizeof(struct frame));
		if (!act[k].pkts)
			return -ENOMEM;
		new_session(&act[k], serial++);
	}
	*bytes = 0;
	for (i = 0; i < npkts; i++) {
		struct session *s = &act[rnd() % ACTIVE];
		struct frame *f = &s->pkts[s->next++];
		struct pcap_pkthdr h = { .caplen = f->len, .len = f->len };

		ts += 5 + rnd() % 10;
		h.ts.tv_sec = (time_t)(ts / 1000000);
		h.ts.tv_usec = (suseconds_t)(ts % 1000000);
		pcap_dump((u_char *)d, &h, f->data);
		*bytes += f->len;
		if (s->next == s->n)
			new_session(s, serial++);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	for (k = 0; k < ACTIVE; k++)
		free(act[k].pkts);
	free(act);
	return 0;
}

/* ---- rules ---------------------------------------------------------------------------- */

/*
 * A content of 4-20 bytes: traffic-like words joined by punctuation, then a
 * short tag, so it is rarely present (as a real rule's pattern in benign
 * traffic) while its prefix words are common; sometimes a hex byte.
 */
static void content_text(char *out, size_t size)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t want = 4 + rnd() % 17, o = 0, tag = 2 + rnd() % 4, i;

	while (o + tag < want && o + 24 < size) {
		const char *w = words[rnd() % NWORDS];
		size_t l = strlen(w);

		if (o + l > want - tag)
			l = want - tag - o;
		memcpy(out + o, w, l);
		o += l;
		if (o + tag < want)
			out[o++] = "_-./=:"[rnd() % 6];
	}
	if (rnd() % 8 == 0) {
		o += (size_t)snprintf(out + o, size - o, "|%02x|", rnd() & 0xff);
		tag = tag > 1 ? tag - 1 : 1;
	}
	for (i = 0; i < tag; i++)
		out[o++] = alnum[rnd() % (sizeof(alnum) - 1)];
	out[o] = '\0';
}

/*
 * The server ports of a rule, as a public rule set spreads them: mostly
 * bound to a service's port, web first; some any.
 */
static void port_spec(char *out, size_t size, int udp)
{
	static const uint16_t tcp_services[] = { 21,   22,   23,   25,	 110,  139,  143,  445,
						 1433, 3306, 3389, 5432, 5900, 6379, 8443, 9200 };
	static const uint16_t udp_services[] = { 69, 123, 137, 161, 500, 1900, 5060, 11211 };
	uint32_t r = rnd() % 100;

	if (udp) {
		if (r < 60)
			snprintf(out, size, "53");
		else if (r < 90)
			snprintf(out, size, "%u", udp_services[rnd() % 8]);
		else
			snprintf(out, size, "any");
		return;
	}
	if (r < 45)
		snprintf(out, size, "$HTTP_PORTS");
	else if (r < 55)
		snprintf(out, size, "443");
	else if (r < 65)
		snprintf(out, size, "any");
	else if (r < 90)
		snprintf(out, size, "%u", tcp_services[rnd() % 16]);
	else if (r < 95)
		snprintf(out, size, "[%u,%u]", 1024 + rnd() % 60000, 1024 + rnd() % 60000);
	else
		snprintf(out, size, "%u", 1024 + rnd() % 64000);
}

/*
 * Rules as a public rule set writes them (docs/performance.md, Detection):
 * 90 % TCP, most with flow:established and a direction; contents of 4-20
 * bytes, a third with a second content, some nocase or depth, 15 % with a
 * common word marked fast_pattern (a poor choice the prefilter must
 * survive); 5 % with a pcre next to their content. One rule in 1,000 looks
 * for a phrase of the traffic's vocabulary, so alerts happen, rarely.
 */
static int write_rules(const char *path, unsigned int n)
{
	FILE *f = fopen(path, "w");
	unsigned int i;

	if (!f)
		return -errno;
	rng_state = 0x1234567 + n;
	for (i = 0; i < n; i++) {
		char c1[160], c2[160], ports[64], extra[256] = "";
		int udp = rnd() % 10 == 0, len = 0, dir = (int)(rnd() % 100);
		int to_client = !udp && dir >= 55 && dir < 90;

		content_text(c1, sizeof(c1));
		port_spec(ports, sizeof(ports), udp);
		if (!udp && dir < 90)
			len += snprintf(extra + len, sizeof(extra) - (size_t)len,
					"flow:established,%s; ",
					to_client ? "to_client" : "to_server");
		if (i % 1000 == 7) {
			/* a phrase of the traffic: two words, as the text writes them */
			snprintf(c1, sizeof(c1), "%s %s", words[rnd() % NWORDS],
				 words[rnd() % NWORDS]);
		} else if (rnd() % 100 < 15) {
			/* a common fast pattern (5 bytes or more) whose verification then fails */
			const char *w;

			do
				w = words[rnd() % NWORDS];
			while (strlen(w) < 5);
			len += snprintf(extra + len, sizeof(extra) - (size_t)len,
					"content:\"%s\"; fast_pattern; ", w);
		}
		len += snprintf(extra + len, sizeof(extra) - (size_t)len, "content:\"%s\"; ", c1);
		if (rnd() % 5 == 0)
			len += snprintf(extra + len, sizeof(extra) - (size_t)len, "nocase; ");
		if (rnd() % 6 == 0)
			len += snprintf(extra + len, sizeof(extra) - (size_t)len, "depth:%u; ",
					(unsigned int)strlen(c1) + 100);
		if (rnd() % 3 == 0) {
			content_text(c2, sizeof(c2));
			len += snprintf(extra + len, sizeof(extra) - (size_t)len,
					"content:\"%s\"; distance:0; ", c2);
		}
		if (i % 20 == 0) /* 5% with pcre, after their content */
			len += snprintf(extra + len, sizeof(extra) - (size_t)len,
					"pcre:\"/%s[=:]\\s*[a-z0-9]{2,16}/%s\"; ",
					rnd() % 2 ? "id" : "user", rnd() % 2 ? "Ri" : "i");
		if (to_client)
			fprintf(f,
				"alert tcp $EXTERNAL_NET %s -> $HOME_NET any (msg:\"BENCH rule %u\"; %s"
				"classtype:misc-activity; sid:%u; rev:1;)\n",
				ports, i, extra, 1000000 + i);
		else
			fprintf(f,
				"alert %s $HOME_NET any -> $EXTERNAL_NET %s (msg:\"BENCH rule %u\"; %s"
				"classtype:misc-activity; sid:%u; rev:1;)\n",
				udp ? "udp" : "tcp", ports, i, extra, 1000000 + i);
	}
	return fclose(f) ? -errno : 0;
}

/* ---- measurement ------------------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint32_t stream_window; /* --stream-window; 0: the engine's default */

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct mk_detect_cfg rule_cfg(const char **file)
{
	struct mk_detect_cfg c;

	mk_detect_cfg_defaults(&c);
	c.rule_files = file;
	c.nrule_files = 1;
	c.stream_window = stream_window;
	return c;
}

/* The pipeline's stages on this thread only; CPU seconds, or < 0 on error. */
static double one_thread(const char *pcap, const char *rules)
{
	struct mk_detect_cfg dc;
	struct mk_pcap_source src;
	struct mk_pcap_frame fr;
	struct harness *h = calloc(1, sizeof(*h));
	const char *f = rules;
	double t0;

	mk_detect_cfg_defaults(&dc);
	dc.rule_files = &f;
	dc.nrule_files = rules ? 1 : 0;
	dc.stream_window = stream_window;
	if (!h || h_init_cfg(h, &dc) || mk_pcap_open(&src, pcap, NULL)) {
		if (h)
			h_free(h);
		free(h);
		return -1;
	}
	h->no_collect = 1;
	h_set_checksum(h, 1); /* as the pipeline above */
	t0 = cpu_s();
	while (mk_pcap_next(&src, &fr) == 1)
		if (!fr.non_ip && !fr.link_error)
			h_frame(h, fr.data + fr.l2_len, fr.caplen - fr.l2_len, fr.start, fr.ts_us);
	h_finish(h);
	t0 = cpu_s() - t0;
	mk_pcap_close(&src);
	h_free(h);
	free(h);
	return t0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "packets", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'R' },
		{ "keep", required_argument, NULL, 'k' },
		{ "stream-window", required_argument, NULL, 'w' },
		{ "binary", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	static const unsigned int sets[] = { 0, 100, 5000 }, loads[] = { 5000, 30000 };
	char dir[] = "/tmp/bench_detect.XXXXXX", pcap[256], rules[3][256], logdir[300];
	const char *keep = NULL, *base;
	uint64_t npkts = 300000, bytes;
	unsigned int runs = 3, r, s;
	double best[3] = { 1e30, 1e30, 1e30 }, cpu[3] = { 1e30, 1e30, 1e30 };
	uint64_t alerts[3] = { 0 };
	struct mk_offline_stats st;
	struct mk_config conf;
	int c, err;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			npkts = strtoull(optarg, NULL, 0);
			break;
		case 'R':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'k':
			keep = optarg;
			break;
		case 'w':
			stream_window = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			all_binary = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [--packets N] [--runs N] [--keep DIR] [--stream-window "
				"N] [--binary]\n",
				argv[0]);
			return 2;
		}
	}
	if (!runs)
		runs = 1;
	mk_log_set_level(MK_LOG_WARN);
	if (keep) {
		mkdir(keep, 0755);
		base = keep;
	} else {
		base = mkdtemp(dir);
		if (!base) {
			perror("mkdtemp");
			return 1;
		}
	}
	snprintf(pcap, sizeof(pcap), "%s/mixed.pcap", base);
	snprintf(logdir, sizeof(logdir), "%s/log", base);
	{
		double t0 = now_s();

		err = write_capture(pcap, npkts, &bytes);
		if (err) {
			fprintf(stderr, "%s: %s\n", pcap, strerror(-err));
			return 1;
		}
		printf("capture: %llu packets, %.1f MB, mean %.0f B/frame, written in %.2f s\n",
		       (unsigned long long)npkts, (double)bytes / 1e6,
		       (double)bytes / (double)npkts, now_s() - t0);
	}

	/* load time */
	for (s = 0; s < 2; s++) {
		struct mk_detect_engine *e;
		struct mk_detect_cfg dc;
		const char *f = rules[0];
		double t0;

		snprintf(rules[0], sizeof(rules[0]), "%s/load%u.rules", base, loads[s]);
		if (write_rules(rules[0], loads[s]))
			return 1;
		dc = rule_cfg(&f);
		t0 = now_s();
		err = mk_detect_engine_build(&dc, NULL, &e);
		if (err) {
			fprintf(stderr, "engine: %s\n", strerror(-err));
			return 1;
		}
		{
			char sum[512];

			mk_detect_engine_summary(e, sum, sizeof(sum));
			printf("load %5u rules: %.3f s (%s)\n", loads[s], now_s() - t0, sum);
		}
		mk_detect_engine_put(e);
	}

	mk_config_defaults(&conf);
	for (s = 0; s < 3; s++) {
		snprintf(rules[s], sizeof(rules[s]), "%s/set%u.rules", base, sets[s]);
		if (sets[s] && write_rules(rules[s], sets[s]))
			return 1;
	}
	/* interleaved runs: drift on a shared machine hits every set alike */
	for (r = 0; r < runs; r++) {
		for (s = 0; s < 3; s++) {
			struct mk_offline_opts o = { .pcap_path = pcap,
						     .log_dir = logdir,
						     .workers = 1,
						     .seed = 1,
						     .checksum = 1,
						     .eve_truncate = 1 };
			const char *f = rules[s];
			struct mk_detect_cfg dc = rule_cfg(&f);
			double t;

			if (sets[s] && mk_detect_master_new(&dc, &o.detect))
				return 1;
			t = now_s();
			err = mk_offline_run(&o, &conf, &st);
			t = now_s() - t;
			mk_detect_master_free(o.detect);
			if (err) {
				fprintf(stderr, "pipeline: %s\n", strerror(-err));
				return 1;
			}
			if (t < best[s])
				best[s] = t;
			alerts[s] = st.pipe.detect[MK_DETECT_CNT_ALERTS];
			t = one_thread(pcap, sets[s] ? rules[s] : NULL);
			if (t < 0)
				return 1;
			if (t < cpu[s])
				cpu[s] = t;
		}
	}
	printf("offline pipeline, 1 worker, best of %u runs:\n", runs);
	for (s = 0; s < 3; s++)
		printf("  %5u rules: %.3f s, %.2f Mpkt/s, %.2f Gbit/s, %5.1f%% of no rules, %llu "
		       "alerts\n",
		       sets[s], best[s], (double)npkts / best[s] / 1e6,
		       (double)bytes * 8 / best[s] / 1e9, 100 * best[0] / best[s],
		       (unsigned long long)alerts[s]);
	printf("the same stages on one thread, CPU time, best of %u runs:\n", runs);
	for (s = 0; s < 3; s++)
		printf("  %5u rules: %.3f s, %.2f Mpkt/s, %.2f Gbit/s, %5.1f%% of no rules\n",
		       sets[s], cpu[s], (double)npkts / cpu[s] / 1e6,
		       (double)bytes * 8 / cpu[s] / 1e9, 100 * cpu[0] / cpu[s]);
	printf("targets, 5,000 rules: >= 40%% of no rules: wall %s, cpu %s; >= 1 Gbit/s: wall %s, "
	       "cpu %s\n",
	       best[0] / best[2] >= 0.4 ? "PASS" : "MISS", cpu[0] / cpu[2] >= 0.4 ? "PASS" : "MISS",
	       (double)bytes * 8 / best[2] / 1e9 >= 1 ? "PASS" : "MISS",
	       (double)bytes * 8 / cpu[2] / 1e9 >= 1 ? "PASS" : "MISS");
	if (!keep) {
		char p[512];

		for (s = 0; s < 3; s++)
			unlink(rules[s]);
		snprintf(p, sizeof(p), "%s/load5000.rules", base);
		unlink(p);
		snprintf(p, sizeof(p), "%s/load30000.rules", base);
		unlink(p);
		snprintf(p, sizeof(p), "%s/eve.json", logdir);
		unlink(p);
		rmdir(logdir);
		unlink(pcap);
		rmdir(base);
	}
	mk_config_free(&conf);
	return 0;
}
