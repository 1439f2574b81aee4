// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inline (IPS) mode in user space: the reject frames (capture/ips.c) against
 * RFC 793/792/4443 field by field with their checksums, at every truncation
 * of the frame they answer; the interface pairs of -i IN:OUT and `peer:`.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "capture_cfg.h"
#include "config.h"
#include "ips.h"
#include "parse.h"
#include "../lib/pkt_build.h"

#define CLI 0xc6120001u /* 198.18.0.1 */
#define SRV 0xc6120002u

static const uint8_t mac_srv[6] = { 2, 0, 0, 0, 0, 2 }, mac_cli[6] = { 2, 0, 0, 0, 0, 1 };

/* client -> server, seq 1000 ack 5000 PSH|ACK with 100 bytes, or UDP with 100 bytes */
static size_t frame_build(uint8_t *f, uint8_t proto, uint8_t flags)
{
	size_t l4 = proto == MK_IPPROTO_TCP ? 20 : 8, n = 14 + 20 + l4 + 100;
	uint8_t *ip = f + 14, *t = ip + 20;

	memset(f, 0, n);
	memcpy(f, mac_srv, 6);
	memcpy(f + 6, mac_cli, 6);
	pb_put16(f + 12, 0x0800);
	pb_ip4(ip, CLI, SRV, proto, l4 + 100, 7, 0x4000);
	pb_put16(t, 40000);
	pb_put16(t + 2, 8080);
	if (proto == MK_IPPROTO_TCP) {
		pb_put32(t + 4, 1000);
		pb_put32(t + 8, 5000);
		t[12] = 5 << 4;
		t[13] = flags;
		pb_put16(t + 14, 512);
	} else {
		pb_put16(t + 4, (uint16_t)(8 + 100));
	}
	memset(t + l4, 'a', 100);
	return n;
}

static int parse(const uint8_t *f, size_t n, struct mk_parse *p)
{
	struct mk_frame fr = { .data = f, .data_end = f + n };
	struct mk_parse_cfg cfg = { 0 };

	return mk_parse_frame(&fr, MK_START_ETH, &cfg, p);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* IPv4 header and L4 checksums of a built frame verify (sum to zero). */
static void assert_csums(const uint8_t *o, uint32_t n)
{
	const uint8_t *ip = o + 14;
	uint32_t l4len = n - 34;

	cr_assert_eq(pb_csum(0, ip, 20), 0, "IPv4 header checksum");
	if (ip[9] == MK_IPPROTO_ICMP)
		cr_assert_eq(pb_csum(0, ip + 20, l4len), 0, "ICMP checksum");
	else
		cr_assert_eq(pb_csum(pb_pseudo4(rd32(ip + 12), rd32(ip + 16), ip[9], l4len),
				     ip + 20, l4len),
			     0, "TCP checksum");
}

Test(ips_reject, tcp_rst_both_ways)
{
	uint8_t f[256], o[MK_IPS_REJECT_MAX];
	struct mk_parse p;
	size_t n = frame_build(f, MK_IPPROTO_TCP, 0x18);
	uint32_t m;

	cr_assert_eq(parse(f, n, &p), MK_PARSE_IP);
	/* toward the client: from the server, at the sequence the client acknowledged */
	m = mk_ips_reject_build(f, (uint32_t)n, &p, 1, o, sizeof(o));
	cr_assert_eq(m, 54);
	cr_assert_arr_eq(o, mac_cli, 6);
	cr_assert_arr_eq(o + 6, mac_srv, 6);
	cr_assert_eq(rd32(o + 26), SRV);
	cr_assert_eq(rd32(o + 30), CLI);
	cr_assert_eq(rd16(o + 34), 8080);
	cr_assert_eq(rd16(o + 36), 40000);
	cr_assert_eq(rd32(o + 38), 5000);
	cr_assert_eq(rd32(o + 42), 1100);
	cr_assert_eq(o[47], 0x14, "RST|ACK");
	assert_csums(o, m);
	/* onward to the server: where the client's data ended */
	m = mk_ips_reject_build(f, (uint32_t)n, &p, 0, o, sizeof(o));
	cr_assert_eq(m, 54);
	cr_assert_arr_eq(o, mac_srv, 6);
	cr_assert_eq(rd32(o + 26), CLI);
	cr_assert_eq(rd32(o + 38), 1100);
	cr_assert_eq(rd32(o + 42), 5000);
	assert_csums(o, m);
}

Test(ips_reject, never_answers_a_rst)
{
	uint8_t f[256], o[MK_IPS_REJECT_MAX];
	struct mk_parse p;
	size_t n = frame_build(f, MK_IPPROTO_TCP, 0x14);

	cr_assert_eq(parse(f, n, &p), MK_PARSE_IP);
	cr_assert_eq(mk_ips_reject_build(f, (uint32_t)n, &p, 1, o, sizeof(o)), 0);
	cr_assert_eq(mk_ips_reject_build(f, (uint32_t)n, &p, 0, o, sizeof(o)), 0);
}

Test(ips_reject, udp_port_unreachable_to_the_sender)
{
	uint8_t f[256], o[MK_IPS_REJECT_MAX];
	struct mk_parse p;
	size_t n = frame_build(f, MK_IPPROTO_UDP, 0);
	uint32_t m;

	cr_assert_eq(parse(f, n, &p), MK_PARSE_IP);
	m = mk_ips_reject_build(f, (uint32_t)n, &p, 1, o, sizeof(o));
	cr_assert_eq(m, 14 + 20 + 8 + 28);
	cr_assert_eq(o[23], MK_IPPROTO_ICMP);
	cr_assert_eq(rd32(o + 26), SRV);
	cr_assert_eq(rd32(o + 30), CLI);
	cr_assert_eq(o[34], 3);
	cr_assert_eq(o[35], 3);
	cr_assert_arr_eq(o + 42, f + 14, 28, "quotes the IP header and 8 bytes");
	assert_csums(o, m);
	cr_assert_eq(mk_ips_reject_build(f, (uint32_t)n, &p, 0, o, sizeof(o)), 0,
		     "nothing onward for UDP");
}

/* IPv6: the RST's checksum covers the IPv6 pseudo-header; ICMPv6 port unreachable for UDP. */
Test(ips_reject, ipv6)
{
	uint8_t f[256], o[MK_IPS_REJECT_MAX], *ip = f + 14, *t = ip + 40;
	struct mk_parse p;
	uint32_t m, sum, l4len, k;
	int udp;

	for (udp = 0; udp < 2; udp++) {
		size_t l4 = udp ? 8 : 20, n = 14 + 40 + l4 + 10;

		memset(f, 0, sizeof(f));
		memcpy(f, mac_srv, 6);
		memcpy(f + 6, mac_cli, 6);
		pb_put16(f + 12, 0x86dd);
		ip[0] = 0x60;
		pb_put16(ip + 4, (uint16_t)(l4 + 10));
		ip[6] = udp ? MK_IPPROTO_UDP : MK_IPPROTO_TCP;
		ip[7] = 64;
		ip[8] = 0x20, ip[9] = 0x01, ip[10] = 0x0d, ip[11] = 0xb8, ip[23] = 1;
		ip[24] = 0x20, ip[25] = 0x01, ip[26] = 0x0d, ip[27] = 0xb8, ip[39] = 2;
		pb_put16(t, 40000);
		pb_put16(t + 2, 8080);
		if (udp) {
			pb_put16(t + 4, 18);
		} else {
			pb_put32(t + 4, 1000);
			pb_put32(t + 8, 5000);
			t[12] = 5 << 4;
			t[13] = 0x18;
		}
		cr_assert_eq(parse(f, n, &p), MK_PARSE_IP);
		m = mk_ips_reject_build(f, (uint32_t)n, &p, 1, o, sizeof(o));
		cr_assert_gt(m, 54);
		cr_assert_eq(o[14] >> 4, 6);
		cr_assert_eq(o[20], udp ? MK_IPPROTO_ICMPV6 : MK_IPPROTO_TCP);
		cr_assert_arr_eq(o + 22, ip + 24, 16, "from the receiver");
		cr_assert_arr_eq(o + 38, ip + 8, 16, "to the sender");
		l4len = m - 54;
		cr_assert_eq(rd16(o + 18), l4len);
		sum = o[20] + l4len;
		for (k = 0; k < 32; k += 2)
			sum += rd16(o + 22 + k);
		cr_assert_eq(pb_csum(sum, o + 54, l4len), 0,
			     "L4 checksum over the IPv6 pseudo-header");
		if (udp)
			cr_assert_eq(o[54], 1, "ICMPv6 destination unreachable");
		else
			cr_assert_eq(rd32(o + 54 + 8), 1010, "acknowledges the sender's data");
	}
}

/* Every prefix of the frame that still parses gets an answer built in bounds (ASan checks). */
Test(ips_reject, truncation)
{
	uint8_t f[256], o[MK_IPS_REJECT_MAX];
	uint8_t proto[2] = { MK_IPPROTO_TCP, MK_IPPROTO_UDP };
	struct mk_parse p;
	unsigned int k;
	size_t n, cut;

	for (k = 0; k < 2; k++) {
		n = frame_build(f, proto[k], 0x18);
		for (cut = 0; cut <= n; cut++) {
			uint8_t *c = malloc(cut ? cut : 1);

			memcpy(c, f, cut);
			if (parse(c, cut, &p) == MK_PARSE_IP) {
				mk_ips_reject_build(c, (uint32_t)cut, &p, 1, o, sizeof(o));
				mk_ips_reject_build(c, (uint32_t)cut, &p, 0, o, sizeof(o));
			}
			free(c);
		}
	}
}

Test(ips_cfg, interface_pairs)
{
	struct mk_capture_cfg c;
	const char *pair[] = { "eth0:eth1" }, *self[] = { "eth0:eth0" }, *bad[] = { "eth0:a/b" };
	char msg[128];

	mk_capture_cfg_defaults(&c);
	cr_assert_eq(mk_capture_cfg_set_ifaces(&c, pair, 1, msg, sizeof(msg)), 0, "%s", msg);
	cr_assert_eq(c.n_ifaces, 2);
	cr_assert_str_eq(c.ifaces[0].name, "eth0");
	cr_assert_str_eq(c.ifaces[0].peer, "eth1");
	cr_assert_str_eq(c.ifaces[1].name, "eth1");
	cr_assert_str_eq(c.ifaces[1].peer, "eth0");
	cr_assert_neq(mk_capture_cfg_set_ifaces(&c, self, 1, msg, sizeof(msg)), 0);
	cr_assert(strstr(msg, "own peer"), "%s", msg);
	cr_assert_eq(c.n_ifaces, 2, "a refused list changes nothing");
	cr_assert_neq(mk_capture_cfg_set_ifaces(&c, bad, 1, msg, sizeof(msg)), 0);
	cr_assert(strstr(msg, "not an interface name"), "%s", msg);
}

Test(ips_cfg, yaml_peer_and_policies)
{
	static const char ok[] = "capture:\n  ips: yes\n  interfaces:\n"
				 "    - interface: eth0\n      peer: eth1\n      queues: 2\n"
				 "ips:\n  unparsable: drop\n  failure: closed\n";
	static const char two[] =
		"capture:\n  interfaces:\n    - interface: eth0\n      peer: eth1\n"
		"    - interface: eth2\n      peer: eth1\n";
	struct mk_config c;

	mk_config_defaults(&c);
	cr_assert_eq(mk_config_load_buf(&c, ok, sizeof(ok) - 1, "ok.yaml"), 0);
	cr_assert_eq(c.capture.n_ifaces, 2);
	cr_assert_str_eq(c.capture.ifaces[1].name, "eth1");
	cr_assert_eq(c.capture.ifaces[1].queues, 2, "the added peer serves as many queues");
	cr_assert_str_eq(c.capture.ifaces[1].peer, "eth0");
	cr_assert_eq(c.capture.ips, 1);
	cr_assert_eq(c.capture.ips_unparsable, MK_IPS_DROP);
	cr_assert_eq(c.capture.ips_failure, MK_IPS_DROP);
	mk_config_free(&c);
	mk_config_defaults(&c);
	cr_assert_neq(mk_config_load_buf(&c, two, sizeof(two) - 1, "two.yaml"), 0,
		      "an interface has one peer");
	mk_config_free(&c);
}
