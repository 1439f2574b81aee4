// SPDX-License-Identifier: GPL-2.0-only
/*
 * The traffic generator of the live capture benchmark (bench_live.py):
 *
 *   bench_gen IFACE PCAP COUNT [PPS]
 *
 * loads every frame of PCAP into memory, then sends COUNT frames (cycling
 * through them) on IFACE from an AF_PACKET socket with PACKET_QDISC_BYPASS,
 * 32 per sendmmsg() (at PPS frames a second when given, else as fast as it
 * can), and prints one line:
 *
 *   sent N seconds S cpu_ns C softirq_ns Q
 *
 * C is this thread's CPU time while sending, Q the CPU time of the sending
 * CPU's ksoftirqd over the same interval. On a veth pair the receiving
 * side's kernel work (the XDP program and the copy into an AF_XDP UMEM, or
 * AF_PACKET's copy into its ring) runs in softirq on the sending CPU: in
 * this thread's context when it re-enables bottom halves (and is then part
 * of C: this kernel has no separate IRQ time accounting), or in ksoftirqd
 * when there is too much of it. So (C + Q) / N is the sending CPU's cost
 * per frame, receive path included, whatever else the machine runs. Pin it
 * with taskset.
 */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>
#include <pcap/pcap.h>

#define BATCH 32

struct frames {
	struct iovec *iov;
	size_t n, cap;
};

static int load(const char *path, struct frames *f)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p = pcap_open_offline(path, err);

	if (!p) {
		fprintf(stderr, "bench_gen: %s: %s\n", path, err);
		return -1;
	}
	while (pcap_next_ex(p, &h, &data) == 1) {
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 4096;
			f->iov = realloc(f->iov, f->cap * sizeof(*f->iov));
			if (!f->iov)
				return -1;
		}
		f->iov[f->n].iov_base = malloc(h->caplen);
		if (!f->iov[f->n].iov_base)
			return -1;
		memcpy(f->iov[f->n].iov_base, data, h->caplen);
		f->iov[f->n].iov_len = h->caplen;
		f->n++;
	}
	pcap_close(p);
	return f->n ? 0 : -1;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of ksoftirqd/@cpu in ns (its schedstat), 0 if not found. */
static uint64_t ksoftirqd_ns(int cpu)
{
	char want[32], path[300], comm[32];
	unsigned long long ns = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");
	FILE *f;

	snprintf(want, sizeof(want), "ksoftirqd/%d\n", cpu);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f) || strcmp(comm, want)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/schedstat", de->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%llu", &ns) != 1)
				ns = 0;
			fclose(f);
		}
		break;
	}
	if (d)
		closedir(d);
	return ns;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct mmsghdr msgs[BATCH];
	struct frames f = { 0 };
	unsigned long long count, sent = 0, pps = 0, next = 0;
	uint64_t t0, c0, q0, gap_ns = 0, due;
	int fd, one = 1, cpu, i;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: bench_gen IFACE PCAP COUNT [PPS]\n");
		return 2;
	}
	count = strtoull(argv[3], NULL, 0);
	if (argc == 5)
		pps = strtoull(argv[4], NULL, 0);
	if (load(argv[2], &f))
		return 1;
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	if (fd < 0 || !sll.sll_ifindex ||
	    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "bench_gen: AF_PACKET on %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	memset(msgs, 0, sizeof(msgs));
	if (pps)
		gap_ns = 1000000000ull * BATCH / pps;
	cpu = sched_getcpu();
	q0 = ksoftirqd_ns(cpu);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	due = t0;
	while (sent < count) {
		unsigned int n = count - sent < BATCH ? (unsigned int)(count - sent) : BATCH;
		int r;

		for (i = 0; i < (int)n; i++) {
			msgs[i].msg_hdr.msg_iov = &f.iov[next];
			msgs[i].msg_hdr.msg_iovlen = 1;
			next = next + 1 == f.n ? 0 : next + 1;
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
				next = (next + f.n - n % f.n) % f.n; /* resend the same frames */
				continue;
			}
			perror("bench_gen: sendmmsg");
			return 1;
		}
		/* a short send leaves the rest of the batch for the next round */
		next = (next + f.n - (n - (unsigned int)r) % f.n) % f.n;
		sent += (unsigned long long)r;
		if (pps) {
			struct timespec ts;

			due += gap_ns * (uint64_t)r / BATCH;
			ts.tv_sec = (time_t)(due / 1000000000ull);
			ts.tv_nsec = (long)(due % 1000000000ull);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	t0 = now_ns(CLOCK_MONOTONIC) - t0;
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	q0 = ksoftirqd_ns(cpu) - q0;
	printf("sent %llu seconds %.6f cpu_ns %llu softirq_ns %llu\n", sent, (double)t0 / 1e9,
	       (unsigned long long)c0, (unsigned long long)q0);
	return 0;
}
