// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two baseline receivers of the live capture benchmark (bench_live.py):
 *
 *   bench_rx xsk IFACE       a bare AF_XDP receiver: libxdp's default
 *                            program (redirect by RX queue, no parsing),
 *                            one copy-mode socket on queue 0 with
 *                            need_wakeup, 32768 frames of 2 KB, an RX ring
 *                            of 16384, batches of 64, every frame given
 *                            back at once, and meerkat's receive loop: an
 *                            emptied ring means an adaptive pause before
 *                            the next pass (runmode/live.c, RX_PAUSE_*);
 *                            no pipeline.
 *   bench_rx afpacket IFACE  an AF_PACKET reader: TPACKET_V3, 64 blocks of
 *                            1 MiB, block timeout 10 ms (Suricata's default),
 *                            every frame's first byte touched.
 *
 * Both sleep in poll() when idle, so their CPU time is the cost of the
 * frames, and both run until SIGINT/SIGTERM, then print one line:
 *   received N dropped D
 * (D: XDP_STATISTICS rx_dropped + rx_ring_full, or PACKET_STATISTICS
 * tp_drops). SIGSTOP/SIGCONT are how the benchmark fills their rings.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

/* 64 MB of ring memory for either receiver, as bench_live.py gives meerkat */
#define BATCH 64
#define XSK_FRAME 2048
#define XSK_FRAMES 32768
#define XSK_RING 16384
#define AFP_BLOCK (1u << 20)
#define AFP_BLOCKS 64
#define AFP_FRAME 2048
/* meerkat's adaptive pause after an emptied pass (runmode/live.c, RX_PAUSE_*) */
#define RX_PAUSE_MIN_NS 50000u
#define RX_PAUSE_MAX_NS 5000000u

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int run_xsk(const char *ifname)
{
	struct xsk_umem_config ucfg = {
		.fill_size = XSK_FRAMES,
		.comp_size = 2048,
		.frame_size = XSK_FRAME,
		.frame_headroom = 0,
	};
	struct xsk_socket_config scfg = {
		.rx_size = XSK_RING,
		.tx_size = 0,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp, rx;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xdp_statistics st;
	socklen_t len = sizeof(st);
	unsigned long long got = 0;
	uint32_t pause_ns = 1000000, since_pause = 0;
	volatile unsigned char sink = 0;
	size_t size = (size_t)XSK_FRAMES * XSK_FRAME;
	void *area;
	uint32_t idx, i;
	int err;

	area = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	err = xsk_umem__create(&umem, area, size, &fill, &comp, &ucfg);
	if (!err)
		err = xsk_socket__create(&xsk, ifname, 0, umem, &rx, NULL, &scfg);
	if (err) {
		fprintf(stderr, "bench_rx: AF_XDP socket on %s: %s\n", ifname, strerror(-err));
		return 1;
	}
	if (xsk_ring_prod__reserve(&fill, XSK_FRAMES, &idx) != XSK_FRAMES)
		return 1;
	for (i = 0; i < XSK_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&fill, idx + i) = (uint64_t)i * XSK_FRAME;
	xsk_ring_prod__submit(&fill, XSK_FRAMES);
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		struct pollfd pfd = { .fd = xsk_socket__fd(xsk), .events = POLLIN };
		uint32_t n = xsk_ring_cons__peek(&rx, BATCH, &idx), fidx;

		if (!n) {
			since_pause = 0;
			if (xsk_ring_prod__needs_wakeup(&fill))
				recvfrom(pfd.fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			poll(&pfd, 1, 100);
			continue;
		}
		/* the fill ring is as big as the UMEM's share: room is always there */
		while (xsk_ring_prod__reserve(&fill, n, &fidx) != n)
			;
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rx, idx + i);

			sink ^= *(unsigned char *)xsk_umem__get_data(area, d->addr);
			*xsk_ring_prod__fill_addr(&fill, fidx + i) = d->addr &
								     ~((uint64_t)XSK_FRAME - 1);
		}
		xsk_ring_prod__submit(&fill, n);
		xsk_ring_cons__release(&rx, n);
		got += n;
		since_pause += n;
		if (n < BATCH) {
			struct timespec ts = { 0, 0 };

			if (since_pause > XSK_RING / 4 && pause_ns > RX_PAUSE_MIN_NS)
				pause_ns /= 2;
			else if (since_pause < XSK_RING / 8 && pause_ns < RX_PAUSE_MAX_NS)
				pause_ns *= 2;
			pause_ns = pause_ns < RX_PAUSE_MIN_NS ? RX_PAUSE_MIN_NS :
				   pause_ns > RX_PAUSE_MAX_NS ? RX_PAUSE_MAX_NS :
								pause_ns;
			since_pause = 0;
			ts.tv_nsec = pause_ns;
			nanosleep(&ts, NULL);
		}
	}
	memset(&st, 0, sizeof(st));
	getsockopt(xsk_socket__fd(xsk), SOL_XDP, XDP_STATISTICS, &st, &len);
	printf("received %llu dropped %llu\n", got,
	       (unsigned long long)(st.rx_dropped + st.rx_ring_full));
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	munmap(area, size);
	(void)sink;
	return 0;
}

static int run_afpacket(const char *ifname)
{
	struct tpacket_req3 req = {
		.tp_block_size = AFP_BLOCK,
		.tp_block_nr = AFP_BLOCKS,
		.tp_frame_size = AFP_FRAME,
		.tp_frame_nr = AFP_BLOCK / AFP_FRAME * AFP_BLOCKS,
		.tp_retire_blk_tov = 10,
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);
	unsigned long long got = 0, drops = 0;
	volatile unsigned char sink = 0;
	int fd, v = TPACKET_V3;
	unsigned int b = 0;
	uint8_t *ring;

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd < 0 || !sll.sll_ifindex ||
	    setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req))) {
		fprintf(stderr, "bench_rx: AF_PACKET on %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	ring = mmap(NULL, (size_t)AFP_BLOCK * AFP_BLOCKS, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_LOCKED, fd, 0);
	if (ring == MAP_FAILED || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "bench_rx: AF_PACKET ring on %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		struct tpacket_block_desc *bd = (void *)(ring + (size_t)b * AFP_BLOCK);
		struct tpacket3_hdr *h;
		unsigned int i, n;

		if (!(bd->hdr.bh1.block_status & TP_STATUS_USER)) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLERR };

			poll(&pfd, 1, 100);
			continue;
		}
		n = bd->hdr.bh1.num_pkts;
		h = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
		for (i = 0; i < n; i++) {
			sink ^= *((uint8_t *)h + h->tp_mac);
			h = (void *)((uint8_t *)h + h->tp_next_offset);
		}
		got += n;
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		b = (b + 1) % AFP_BLOCKS;
	}
	if (!getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		drops = st.tp_drops;
	printf("received %llu dropped %llu\n", got, drops);
	munmap(ring, (size_t)AFP_BLOCK * AFP_BLOCKS);
	close(fd);
	(void)sink;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (argc != 3 || (strcmp(argv[1], "xsk") && strcmp(argv[1], "afpacket"))) {
		fprintf(stderr, "usage: bench_rx xsk|afpacket IFACE\n");
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return strcmp(argv[1], "xsk") ? run_afpacket(argv[2]) : run_xsk(argv[2]);
}
