// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offline pipeline benchmark. Writes a mixed capture in C (scapy would take
 * minutes): mostly TCP sessions with payload, some segments out of order, a
 * few percent GTP-U tunnelled sessions, UDP, and fragmented UDP datagrams,
 * 256 sessions interleaved. Then, in the same run, times a plain libpcap
 * loop that only reads the file and the full offline pipeline (1 worker by
 * default, EVE written), and prints both rates and their ratio.
 *
 * usage: bench_offline [--packets N] [--workers N] [--runs N] [--keep FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include "config.h"
#include "log.h"
#include "offline.h"
#include "../lib/pkt_build.h"

#define MAX_FRAME 1600
#define SESSION_MAX_PKTS 64
#define ACTIVE 256

struct frame {
	uint16_t len;
	uint8_t data[MAX_FRAME];
};

struct session {
	struct frame *pkts;
	int n, next;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	return pb_xorshift(&rng_state);
}

/* An IPv4 TCP or UDP packet (L4 header + payload) at p; returns its length. */
static size_t l4pkt(uint8_t *p, uint32_t src, uint32_t dst, int tcp, uint16_t sport, uint16_t dport,
		    uint32_t seq, uint32_t ack, uint8_t flags, size_t plen)
{
	size_t hl = tcp ? 20 : 8, i;
	uint8_t *l4 = p + 20;

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
	for (i = 0; i < plen; i++)
		l4[hl + i] = (uint8_t)(i * 7 + seq);
	pb_put16(l4 + (tcp ? 16 : 6),
		 pb_csum(pb_pseudo4(src, dst, tcp ? 6 : 17, hl + plen), l4, hl + plen));
	pb_ip4(p, src, dst, tcp ? 6 : 17, hl + plen, (uint16_t)rnd(), 0);
	return 20 + hl + plen;
}

static void eth(uint8_t *p)
{
	static const uint8_t hdr[14] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00 };

	memcpy(p, hdr, 14);
}

static struct frame *emit(struct session *s)
{
	struct frame *f = &s->pkts[s->n++];

	eth(f->data);
	return f;
}

/* The inner packet at f->data + 14 wrapped in IPv4/UDP/GTP-U. */
static void gtp_wrap(struct frame *f, size_t inner, uint32_t teid, int up)
{
	uint8_t tmp[MAX_FRAME], *o = f->data + 14;
	uint32_t a = 0xc0a80101, b = 0xc0a80102;

	memcpy(tmp, f->data + 14, inner);
	memcpy(o + 36, tmp, inner);
	pb_ip4(o, up ? a : b, up ? b : a, 17, 8 + 8 + inner, (uint16_t)rnd(), 0);
	pb_put16(o + 20, 2152);
	pb_put16(o + 22, 2152);
	pb_put16(o + 24, (uint16_t)(16 + inner));
	pb_put16(o + 26, 0);
	o[28] = 0x30;
	o[29] = 0xff;
	pb_put16(o + 30, (uint16_t)inner);
	pb_put32(o + 32, teid);
	f->len = (uint16_t)(14 + 36 + inner);
}

static void tcp_session(struct session *s, uint32_t cli, uint32_t srv, uint16_t sport, int tunnel)
{
	uint32_t cseq = rnd(), sseq = rnd(), teid = rnd();
	int nseg = 6 + (int)(rnd() % 12), i, ooo = rnd() % 20 == 0;
	struct frame *f;

#define PKT(up, fl, sq, ak, pl)                                                           \
	do {                                                                              \
		size_t l_;                                                                \
		f = emit(s);                                                              \
		l_ = (up) ? l4pkt(f->data + 14, cli, srv, 1, sport, 80, sq, ak, fl, pl) : \
			    l4pkt(f->data + 14, srv, cli, 1, 80, sport, sq, ak, fl, pl);  \
		f->len = (uint16_t)(14 + l_);                                             \
		if (tunnel)                                                               \
			gtp_wrap(f, l_, (up) ? teid : teid + 1, up);                      \
	} while (0)

	PKT(1, 0x02, cseq, 0, 0);
	PKT(0, 0x12, sseq, cseq + 1, 0);
	PKT(1, 0x10, cseq + 1, sseq + 1, 0);
	cseq++;
	sseq++;
	PKT(1, 0x18, cseq, sseq, 200);
	cseq += 200;
	for (i = 0; i < nseg; i++) {
		size_t pl = 100 + rnd() % (tunnel ? 1300 : 1361);

		PKT(0, 0x10, sseq, cseq, pl);
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

/* One 3000-byte UDP datagram in three fragments. */
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
	uint32_t cli = 0x0a000000 | (serial & 0xffff), srv = 0x0a100000 | (rnd() & 0xff);
	uint16_t sport = (uint16_t)(1024 + (serial >> 4) % 60000);
	uint32_t kind = rnd() % 100;

	s->n = 0;
	s->next = 0;
	if (kind < 85)
		tcp_session(s, cli, srv, sport, 0);
	else if (kind < 90)
		tcp_session(s, cli, srv, sport, 1);
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

/* CPU seconds of all threads: a figure the machine's other load does not inflate much. */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The baseline: libpcap reads every frame and we touch its first byte. */
static double read_only(const char *path, uint64_t *pkts)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	volatile uint8_t sink = 0;
	double t0 = now_s();
	pcap_t *p = pcap_open_offline(path, err);

	if (!p) {
		fprintf(stderr, "%s: %s\n", path, err);
		return -1;
	}
	*pkts = 0;
	while (pcap_next_ex(p, &h, &data) == 1) {
		sink ^= data[0];
		(*pkts)++;
	}
	pcap_close(p);
	(void)sink;
	return now_s() - t0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "packets", required_argument, NULL, 'n' },
		{ "workers", required_argument, NULL, 'w' },
		{ "runs", required_argument, NULL, 'R' },
		{ "keep", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	char tmpl[] = "/tmp/bench_offline.XXXXXX", logdir[] = "/tmp/bench_offline_log.XXXXXX";
	const char *path = tmpl;
	const char *keep = NULL;
	uint64_t npkts = 300000, bytes, rpkts = 0;
	unsigned int workers = 1, runs = 3, r;
	double best_read = 1e30, best_pipe = 1e30, cpu_read = 1e30, cpu_pipe = 1e30, c0;
	struct mk_offline_stats st;
	struct mk_offline_opts o = { 0 };
	struct mk_config conf;
	int c, fd, err;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			npkts = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			workers = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'R':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'k':
			keep = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [--packets N] [--workers N] [--runs N] [--keep FILE]\n",
				argv[0]);
			return 2;
		}
	}
	if (!runs)
		runs = 1;
	mk_log_set_level(MK_LOG_WARN);
	if (keep) {
		path = keep;
	} else {
		fd = mkstemp(tmpl);
		if (fd < 0) {
			perror("mkstemp");
			return 1;
		}
		close(fd);
	}
	if (!mkdtemp(logdir)) {
		perror("mkdtemp");
		return 1;
	}
	{
		double t0 = now_s();

		err = write_capture(path, npkts, &bytes);
		if (err) {
			fprintf(stderr, "writing %s: %s\n", path, strerror(-err));
			return 1;
		}
		printf("capture: %llu packets, %.1f MB, mean %.0f B/frame, written in %.2f s (%s)\n",
		       (unsigned long long)npkts, (double)bytes / 1e6,
		       (double)bytes / (double)npkts, now_s() - t0, path);
	}
	mk_config_defaults(&conf);
	conf.output.eve.append = 0; /* each run writes the same eve.json afresh */
	o.pcap_path = path;
	o.log_dir = logdir;
	o.workers = workers;
	o.seed = 1;
	o.checksum = 1;
	o.eve_truncate = 1;	 /* each run rewrites eve.json */
	o.eve.community_id = 1;	 /* meerkat's default */
	read_only(path, &rpkts); /* warm the page cache */
	for (r = 0; r < runs; r++) {
		double t;

		c0 = cpu_s();
		t = read_only(path, &rpkts);
		c0 = cpu_s() - c0;
		if (t < best_read)
			best_read = t;
		if (c0 < cpu_read)
			cpu_read = c0;
		c0 = cpu_s();
		t = now_s();
		err = mk_offline_run(&o, &conf, &st);
		t = now_s() - t;
		c0 = cpu_s() - c0;
		if (c0 < cpu_pipe)
			cpu_pipe = c0;
		if (err) {
			fprintf(stderr, "pipeline: %s\n", strerror(-err));
			return 1;
		}
		if (t < best_pipe)
			best_pipe = t;
	}
	printf("read-only libpcap loop: %.3f s, %.2f Mpkt/s, %.2f Gbit/s\n", best_read,
	       (double)rpkts / best_read / 1e6, (double)bytes * 8 / best_read / 1e9);
	printf("pipeline (%u worker%s):   %.3f s, %.2f Mpkt/s, %.2f Gbit/s, %llu flows\n", workers,
	       workers > 1 ? "s" : "", best_pipe, (double)npkts / best_pipe / 1e6,
	       (double)bytes * 8 / best_pipe / 1e9, (unsigned long long)st.pipe.flows_logged);
	printf("ratio pipeline/read-only: %.2fx wall-clock (target <= 3x), best of %u runs\n",
	       best_pipe / best_read, runs);
	printf("cpu time, all threads: read-only %.3f s, pipeline %.3f s (%.0f ns/pkt vs %.0f ns/pkt, %.2fx)\n",
	       cpu_read, cpu_pipe, cpu_read / (double)npkts * 1e9, cpu_pipe / (double)npkts * 1e9,
	       cpu_pipe / cpu_read);
	mk_offline_print_summary(stdout, &st, 1);
	if (!keep)
		unlink(path);
	{
		char eve[sizeof(logdir) + 16];

		snprintf(eve, sizeof(eve), "%s/eve.json", logdir);
		unlink(eve);
		rmdir(logdir);
	}
	mk_config_free(&conf);
	return 0;
}
