// SPDX-License-Identifier: GPL-2.0-only
/*
 * Packet and stream keywords through the test pipeline (frames built in C,
 * flow table and stream engine as the worker runs them): flags, flow state
 * and direction, dsize, ttl, ip_proto, sameip, ICMP keywords, address-only
 * rules, flowbits and flowint across packets and rules, and the stream
 * semantics: split, out-of-order and retransmitted segments, depth checked
 * both per segment and on the stream, pcre anchors, decoys.
 */
#include "detect_helpers.h"

Test(packet, tcp_flags_exact_and_modifiers)
{
	struct harness *h = harness_rules("alert tcp any any -> any any (flags:S; sid:1;)\n"
					  "alert tcp any any -> any any (flags:SA; sid:2;)\n"
					  "alert tcp any any -> any any (flags:F+; sid:3;)\n"
					  "alert tcp any any -> any any (flags:R+; sid:4;)\n"
					  "alert tcp any any -> any any (flags:*SF; sid:5;)\n"
					  "alert tcp any any -> any any (flags:!A; sid:6;)\n"
					  "alert tcp any any -> any any (flags:S,CE; sid:7;)\n"
					  "alert tcp any any -> any any (flags:0; sid:8;)\n");

	tcp(h, "10.0.0.1", 1, "10.0.0.2", 2, MK_TCP_SYN, T0);
	tcp(h, "10.0.0.1", 3, "10.0.0.2", 4, MK_TCP_SYN | MK_TCP_ACK, T0 + 1);
	tcp(h, "10.0.0.1", 5, "10.0.0.2", 6, MK_TCP_FIN | MK_TCP_ACK, T0 + 2);
	tcp(h, "10.0.0.1", 7, "10.0.0.2", 8, MK_TCP_RST | MK_TCP_ACK, T0 + 3);
	tcp(h, "10.0.0.1", 9, "10.0.0.2", 10, MK_TCP_SYN | MK_TCP_ECE | MK_TCP_CWR, T0 + 4);
	tcp(h, "10.0.0.1", 11, "10.0.0.2", 12, 0, T0 + 5);
	cr_assert_eq(h_count(h, 1), 1, "flags:S is exact: not the SYN/ACK, not SYN+ECE+CWR");
	cr_assert_eq(h_count(h, 2), 1, "flags:SA on the SYN/ACK only");
	cr_assert_eq(h_count(h, 3), 1, "F+ allows the ACK");
	cr_assert_eq(h_count(h, 4), 1, "R+ allows the ACK");
	cr_assert_eq(h_count(h, 5), 4, "*SF: SYN, SYN/ACK, FIN/ACK, SYN+ECE+CWR: any of S or F");
	cr_assert_eq(h_count(h, 6), 3, "!A: SYN, SYN+ECE+CWR, null");
	cr_assert_eq(h_count(h, 7), 2, "S with C and E ignored");
	cr_assert_eq(h_count(h, 8), 1, "0: no flags");
	harness_free(h);
}

Test(packet, unanswered_syn_stateless)
{
	struct harness *h =
		harness_rules("alert tcp any any -> any any (flow:stateless; flags:S; sid:1;)\n"
			      "alert tcp any any -> any any (flow:established; flags:S; sid:2;)\n");
	int i;

	for (i = 0; i < 5; i++)
		tcp(h, "10.0.0.1", (uint16_t)(40000 + i), "10.0.0.2", 22, MK_TCP_SYN,
		    T0 + (uint64_t)i);
	cr_assert_eq(h_count(h, 1), 5);
	cr_assert_eq(h_count(h, 2), 0);
	harness_free(h);
}

Test(packet, udp_established_after_first_reply)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (flow:established; content:\"x\"; sid:1;)\n"
		"alert udp any any -> any any (flow:not_established; content:\"x\"; sid:2;)\n"
		"alert udp any any -> any any (flow:to_server; content:\"x\"; sid:3;)\n"
		"alert udp any any -> any any (flow:from_server; content:\"x\"; sid:4;)\n");

	udp(h, "10.0.0.1", 5000, "10.0.0.2", 53, "x1", T0);
	udp(h, "10.0.0.1", 5000, "10.0.0.2", 53, "x2", T0 + 10);
	udp(h, "10.0.0.2", 53, "10.0.0.1", 5000, "x3", T0 + 20);
	udp(h, "10.0.0.1", 5000, "10.0.0.2", 53, "x4", T0 + 30);
	cr_assert_eq(h_count(h, 1), 2, "the reply and what follows");
	cr_assert_eq(h_count(h, 2), 2, "the datagrams before the first reply");
	cr_assert_eq(h_count(h, 3), 3);
	cr_assert_eq(h_count(h, 4), 1);
	harness_free(h);
}

Test(packet, tcp_established_from_synack)
{
	struct harness *h =
		harness_rules("alert tcp any any -> any any (flow:established; sid:1;)\n"
			      "alert tcp any any -> any any (flow:not_established; sid:2;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, T0);
	cr_assert_eq(h_count(h, 2), 1, "only the SYN");
	cr_assert_eq(h_count(h, 1), 2, "the SYN/ACK already, and the ACK");
	harness_free(h);
}

Test(packet, dsize_boundaries)
{
	struct harness *h = harness_rules("alert udp any any -> any any (dsize:>1000; sid:1;)\n"
					  "alert udp any any -> any any (dsize:100<>200; sid:2;)\n"
					  "alert udp any any -> any any (dsize:<=3; sid:3;)\n"
					  "alert udp any any -> any any (dsize:!0; sid:4;)\n");
	uint32_t sizes[] = { 0, 3, 4, 100, 101, 199, 200, 1000, 1001 }, i;

	for (i = 0; i < MK_ARRAY_SIZE(sizes); i++)
		udp_n(h, sizes[i], T0 + i);
	cr_assert_eq(h_count(h, 1), 1, ">1000 is 1001 or more");
	cr_assert_eq(h_count(h, 2), 2, "100<>200 excludes both ends");
	cr_assert_eq(h_count(h, 3), 2);
	cr_assert_eq(h_count(h, 4), 8);
	harness_free(h);
}

/*
 * A rule's dsize upper bound bounds its anchor in a packet (the group's scan
 * stops there when every rule is bounded): a marker ending on the last byte
 * dsize allows is found; one byte more and dsize fails anyway.
 */
Test(packet, dsize_bounds_the_packet_scan)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (dsize:<=20; content:\"ENDMARK\"; sid:1;)\n"
		"alert udp any any -> any any (dsize:10<>30; content:\"TAILMARK\"; sid:2;)\n"
		"alert udp any any -> any any (dsize:<9; content:\"SHORTMK\"; sid:3;)\n");

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "0123456789012ENDMARK", T0); /* 20 bytes */
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "01234567890123ENDMARK", T0 + 1);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "012345678901234567890TAILMARK", T0 + 2);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "0123456789012345678901TAILMARK", T0 + 3);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "0SHORTMK", T0 + 4);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 2000, "01SHORTMK", T0 + 5);
	cr_assert_eq(h_count(h, 1), 1, "dsize:<=20: %u", h_count(h, 1));
	cr_assert_eq(h_count(h, 2), 1, "dsize:10<>30: %u", h_count(h, 2));
	cr_assert_eq(h_count(h, 3), 1, "dsize:<9: %u", h_count(h, 3));
	harness_free(h);
}

Test(packet, ip_header_keywords)
{
	struct harness *h = harness_rules("alert udp any any -> any any (ttl:<10; sid:1;)\n"
					  "alert udp any any -> any any (ttl:64; sid:2;)\n"
					  "alert ip any any -> any any (ip_proto:17; sid:3;)\n"
					  "alert ip any any -> any any (ip_proto:!udp; sid:4;)\n"
					  "alert ip any any -> any any (sameip; sid:5;)\n");
	struct frame f;

	frame_udp(&f, "10.0.0.1", 1, "10.0.0.2", 2, "a", 1, 5, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0);
	frame_udp(&f, "10.0.0.1", 3, "10.0.0.2", 4, "a", 1, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 1);
	frame_udp(&f, "10.0.0.9", 3, "10.0.0.9", 4, "a", 1, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 2);
	tcp(h, "10.0.0.1", 1, "10.0.0.2", 2, MK_TCP_SYN, T0 + 3);
	cr_assert_eq(h_count(h, 1), 1);
	cr_assert_eq(h_count(h, 2), 2, "the TCP SYN has TTL 64 too but the rule is udp");
	cr_assert_eq(h_count(h, 3), 3);
	cr_assert_eq(h_count(h, 4), 1);
	cr_assert_eq(h_count(h, 5), 1);
	harness_free(h);
}

Test(packet, icmp_v4_and_v6)
{
	struct harness *h =
		harness_rules("alert icmp any any -> any any (itype:8; sid:1;)\n"
			      "alert icmp any any -> any any (itype:128; sid:2;)\n"
			      "alert icmpv6 any any -> any any (itype:8; sid:3;)\n"
			      "alert icmp any any -> any any (icmp_id:77; icmp_seq:2; sid:4;)\n"
			      "alert icmp any any -> any any (itype:3; icode:>1; sid:5;)\n");
	struct frame f;
	uint16_t s;

	for (s = 1; s <= 3; s++) {
		frame_icmp(&f, "10.0.0.1", "10.0.0.9", 8, 0, 77, s, "ping", 4);
		h_frame(h, f.b, f.len, MK_START_ETH, T0 + s);
	}
	frame_icmp(&f, "2001:db8::1", "2001:db8::9", 128, 0, 5, 1, "ping", 4);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 10);
	frame_icmp(&f, "10.0.0.1", "10.0.0.9", 3, 1, 0, 0, "", 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 11);
	frame_icmp(&f, "10.0.0.1", "10.0.0.9", 3, 3, 0, 0, "", 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 12);
	cr_assert_eq(h_count(h, 1), 3);
	cr_assert_eq(h_count(h, 2), 1, "icmp rules match ICMPv6 with its own type values");
	cr_assert_eq(h_count(h, 3), 0, "icmpv6 rules do not match ICMPv4");
	cr_assert_eq(h_count(h, 4), 1);
	cr_assert_eq(h_count(h, 5), 1);
	cr_assert_str_eq(h->alerts[0].src, "10.0.0.1");
	cr_assert_eq(h->alerts[0].sport, 0, "ICMP alerts carry no ports");
	harness_free(h);
}

/* A flow record's community_id, read from the worker's EVE output (the last flow record). */
static char *flow_community_id(const char *eve, char *out, size_t size)
{
	const char *p = strstr(eve, "\"event_type\":\"flow\""), *c;

	cr_assert_not_null(p, "no flow record in %s", eve);
	c = strstr(p, "\"community_id\":\"");
	cr_assert_not_null(c, "no community_id in %s", p);
	c += strlen("\"community_id\":\"");
	snprintf(out, size, "%.*s", (int)strcspn(c, "\""), c);
	return out;
}

Test(packet, icmp_error_alert_has_the_quoted_flows_community_id)
{
	struct harness *h = harness_rules(
		"alert icmp any any -> any any (msg:\"unreachable\"; itype:3; sid:1;)\n"
		"alert udp any any -> any any (content:\"knock\"; sid:2;)\n");
	struct frame d, e;
	char *out = NULL, cid[40];
	size_t outlen = 0;

	h->eve_opts.community_id = 1;
	h->eve = open_memstream(&out, &outlen);
	/* a datagram, then the port unreachable quoting its IP header and UDP header */
	frame_udp(&d, "10.0.0.1", 1800, "10.0.0.2", 1818, "knock", 5, 64, 0);
	h_frame(h, d.b, d.len, MK_START_ETH, T0);
	frame_icmp(&e, "10.0.0.2", "10.0.0.1", 3, 3, 0, 0, d.b + 14, 28);
	h_frame(h, e.b, e.len, MK_START_ETH, T0 + 1);
	h_finish(h);
	fclose(h->eve);
	h->eve = NULL;
	cr_assert_eq(h_count(h, 1), 1);
	cr_assert_eq(h_count(h, 2), 1);
	flow_community_id(out, cid, sizeof(cid));
	cr_assert_str_eq(h->alerts[0].community_id, cid, "the datagram's alert");
	cr_assert_str_eq(h->alerts[1].community_id, cid,
			 "the ICMP error's alert has the UDP flow's community_id");
	cr_assert_str_eq(h->alerts[1].proto, "ICMP", "it is still about the ICMP packet");
	cr_assert_str_eq(h->alerts[1].src, "10.0.0.2");
	cr_assert_null(strstr(strstr(out, "\"event_type\":\"flow\""), "\"proto\":\"ICMP\""),
		       "no flow of its own");
	free(out);
	harness_free(h);
}

Test(packet, address_only_rules_first_packet_each_direction)
{
	struct harness *h = harness_rules("alert ip any any -> any any (msg:\"any\"; sid:1;)\n"
					  "alert ip 10.0.0.1 any -> 10.0.0.2 any (sid:2;)\n"
					  "alert ip 10.0.0.1 any <> 10.0.0.2 any (sid:3;)\n"
					  "alert udp any any -> any any (sid:4;)\n");
	int i;

	for (i = 0; i < 3; i++) {
		udp(h, "10.0.0.1", 5000, "10.0.0.2", 53, "q", T0 + (uint64_t)i * 10);
		udp(h, "10.0.0.2", 53, "10.0.0.1", 5000, "r", T0 + (uint64_t)i * 10 + 5);
	}
	cr_assert_eq(h_count(h, 1), 2, "once per flow direction");
	cr_assert_eq(h_count(h, 2), 1, "-> only the matching direction");
	cr_assert_eq(h_count(h, 3), 2, "<> fires separately in each direction");
	cr_assert_eq(h_count(h, 4), 2, "udp with any ports is address-only too");
	harness_free(h);
}

Test(packet, negated_ipv4_does_not_match_ipv6)
{
	struct harness *h =
		harness_rules("alert udp !10.0.0.0/8 any -> any any (content:\"x\"; sid:1;)\n"
			      "alert udp [10.0.0.0/8,2001:db8::/32,!10.9.0.0/16] any -> any any "
			      "(content:\"x\"; sid:2;)\n");
	struct frame f;

	frame_udp(&f, "2001:db9::1", 1, "2001:db9::2", 2, "x", 1, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0);
	frame_udp(&f, "11.0.0.1", 1, "11.0.0.2", 2, "x", 1, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 1);
	frame_udp(&f, "2001:db8::1", 1, "2001:db9::2", 2, "x", 1, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 2);
	frame_udp(&f, "10.9.1.1", 1, "11.0.0.2", 2, "x", 1, 64, 0);
	h_frame(h, f.b, f.len, MK_START_ETH, T0 + 3);
	cr_assert_eq(h_count(h, 1), 1, "only the IPv4 packet outside 10/8");
	cr_assert_eq(h_count(h, 2), 1, "IPv6 in the list; 10.9/16 taken out");
	harness_free(h);
}

/*
 * The IP-only index against the rules' own header match: random address-only
 * rules (single addresses, CIDRs, ranges, lists with negations, any, $VARs,
 * IPv4 and IPv6, -> and <>) and random one-packet flows; every rule must fire
 * exactly on the packets its addresses hold, whether it was keyed by its
 * source, its destination, or left on the wide list.
 */
static uint32_t io_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)*s;
}

static void io_addr_set(uint64_t *s, char *out, size_t size)
{
	switch (io_rnd(s) % 9) {
	case 0:
		snprintf(out, size, "any");
		break;
	case 1:
		snprintf(out, size, "10.0.%u.%u", io_rnd(s) % 4, io_rnd(s) % 8);
		break;
	case 2:
		snprintf(out, size, "10.0.%u.0/30", io_rnd(s) % 4);
		break;
	case 3:
		snprintf(out, size, "[10.0.0.0/22,!10.0.%u.0/24]", io_rnd(s) % 4);
		break;
	case 4:
		snprintf(out, size, "![10.0.%u.0/24,2001:db8::/126]", io_rnd(s) % 4);
		break;
	case 5:
		snprintf(out, size, "[2001:db8::%x,10.0.1.%u]", io_rnd(s) % 8, io_rnd(s) % 8);
		break;
	case 6:
		snprintf(out, size, "$EXTERNAL_NET");
		break;
	case 7:
		snprintf(out, size, "[10.0.2.0/24,!10.0.2.4,2001:db8::/125]");
		break;
	default:
		snprintf(out, size, "!10.0.%u.%u", io_rnd(s) % 4, io_rnd(s) % 8);
		break;
	}
}

static void io_packet_addr(uint64_t *s, char *out, size_t size)
{
	if (io_rnd(s) % 4 == 0)
		snprintf(out, size, "2001:db8::%x", io_rnd(s) % 12);
	else if (io_rnd(s) % 8 == 0)
		snprintf(out, size, "11.%u.0.1", io_rnd(s) % 4);
	else
		snprintf(out, size, "10.0.%u.%u", io_rnd(s) % 5, io_rnd(s) % 10);
}

Test(packet, ip_only_index_equals_header_match)
{
	/* rounds of packets, each with a fresh harness: it keeps H_ALERTS_MAX alerts */
	enum { NRULES = 150, NROUNDS = 12, NPKTS = 100 };
	static char text[NRULES * 128];
	struct mk_rule *rules[NRULES];
	uint64_t seed = 0x9e3779b97f4a7c15ull, checked = 0;
	size_t off = 0;
	int i, k, round;

	for (i = 0; i < NRULES; i++) {
		char a[64], b[64], line[160];

		io_addr_set(&seed, a, sizeof(a));
		io_addr_set(&seed, b, sizeof(b));
		snprintf(line, sizeof(line), "alert ip %s any %s %s any (sid:%d;)\n", a,
			 io_rnd(&seed) % 3 ? "->" : "<>", b, i + 1);
		rules[i] = rule_ok(line);
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s", line);
	}
	for (round = 0; round < NROUNDS; round++) {
		struct harness *h = harness_rules(text);
		uint32_t expect[NRULES] = { 0 }, total = 0;

		for (k = 0; k < NPKTS; k++) {
			char src[64], dst[64];
			struct frame f;
			uint32_t sa[4], da[4];
			int v6;

			do {
				io_packet_addr(&seed, src, sizeof(src));
				io_packet_addr(&seed, dst, sizeof(dst));
			} while (!strchr(src, ':') != !strchr(dst, ':'));
			v6 = strchr(src, ':') != NULL;
			/* a new flow each time (ports), so each packet is its flow's first */
			frame_udp(&f, src, (uint16_t)(1024 + k), dst, 53, "x", 1, 64, 0);
			h_frame(h, f.b, f.len, MK_START_ETH, T0 + (uint64_t)k);
			memset(sa, 0, sizeof(sa));
			memset(da, 0, sizeof(da));
			inet_pton(v6 ? AF_INET6 : AF_INET, src, sa);
			inet_pton(v6 ? AF_INET6 : AF_INET, dst, da);
			for (i = 0; i < NRULES; i++)
				expect[i] += mk_rule_header_match(
					rules[i], v6 ? MK_FAMILY_IPV6 : MK_FAMILY_IPV4, sa, da,
					(uint16_t)(1024 + k), 53, 1);
		}
		for (i = 0; i < NRULES; i++) {
			total += expect[i];
			cr_expect_eq(h_count(h, (uint32_t)i + 1), expect[i],
				     "round %d, sid %d: %u alerts, %u expected", round, i + 1,
				     h_count(h, (uint32_t)i + 1), expect[i]);
		}
		cr_assert_lt(total, H_ALERTS_MAX, "the harness keeps every alert");
		checked += total;
		harness_free(h);
	}
	cr_assert_gt(checked, 10000, "enough matches to mean something: %llu",
		     (unsigned long long)checked);
	for (i = 0; i < NRULES; i++)
		mk_rule_free(rules[i]);
}

Test(packet, vlan_alert_carries_the_tag)
{
	struct harness *h =
		harness_rules("alert udp any any -> any any (content:\"tagged\"; sid:1;)\n");
	struct frame f;

	frame_udp(&f, "10.0.0.1", 1, "10.0.0.2", 2, "tagged", 6, 64, 100);
	h_frame(h, f.b, f.len, MK_START_ETH, T0);
	cr_assert_eq(h_count(h, 1), 1);
	cr_assert_eq(h->alerts[0].vlan, 100);
	harness_free(h);
}

Test(packet, flowbits_across_packets_and_rule_order)
{
	/* the checker comes first in the file; ordering puts the setter first */
	struct harness *h = harness_rules(
		"alert udp any any -> any any (msg:\"seen login and later cmd\"; flowbits:isset,login; "
		"content:\"cmd\"; sid:2;)\n"
		"alert udp any any -> any any (flowbits:set,login; flowbits:noalert; "
		"content:\"login\"; sid:1;)\n"
		"alert udp any any -> any any (flowbits:isnotset,login; content:\"cmd\"; sid:3;)\n"
		"alert udp any any -> any any (flowbits:isset,a|login; content:\"cmd\"; sid:4;)\n"
		"alert udp any any -> any any (flowbits:isset,a&login; content:\"cmd\"; sid:5;)\n"
		"alert udp any any -> any any (flowbits:unset,login; content:\"logout\"; noalert; "
		"sid:6;)\n");

	udp(h, "10.0.0.1", 7000, "10.0.0.2", 23, "cmd", T0);
	udp(h, "10.0.0.3", 7000, "10.0.0.2", 23, "login cmd", T0 + 1);
	udp(h, "10.0.0.1", 7000, "10.0.0.2", 23, "login", T0 + 2);
	udp(h, "10.0.0.1", 7000, "10.0.0.2", 23, "cmd", T0 + 3);
	udp(h, "10.0.0.1", 7000, "10.0.0.2", 23, "logout", T0 + 4);
	udp(h, "10.0.0.1", 7000, "10.0.0.2", 23, "cmd", T0 + 5);
	cr_assert_eq(h_count(h, 1), 0, "noalert");
	cr_assert_eq(h_count(h, 6), 0, "noalert keyword");
	cr_assert_eq(h_count(h, 2), 2, "set earlier on the same packet counts; not before login");
	cr_assert_eq(h_count(h, 3), 2, "the first and the last cmd of the first flow");
	cr_assert_eq(h_count(h, 4), 2);
	cr_assert_eq(h_count(h, 5), 0);
	harness_free(h);
}

Test(packet, flowint_counts)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"try\"; flowint:tries,+,1; noalert; sid:1;)\n"
		"alert udp any any -> any any (content:\"try\"; flowint:tries,>,2; sid:2;)\n"
		"alert udp any any -> any any (content:\"reset\"; flowint:tries,=,0; noalert; sid:3;)\n"
		"alert udp any any -> any any (content:\"try\"; flowint:tries,notset; sid:4;)\n");
	int i;

	for (i = 0; i < 4; i++)
		udp(h, "10.0.0.1", 7000, "10.0.0.2", 22, "try", T0 + (uint64_t)i);
	udp(h, "10.0.0.1", 7000, "10.0.0.2", 22, "reset", T0 + 10);
	udp(h, "10.0.0.1", 7000, "10.0.0.2", 22, "try", T0 + 11);
	cr_assert_eq(h_count(h, 2), 2, "the 3rd and 4th try");
	cr_assert_eq(h_count(h, 4), 0, "setters run first: the var is set on the first packet");
	harness_free(h);
}

/* ---- streams ------------------------------------------------------------------------------ */

static const char *STREAM_RULES =
	"alert tcp any any -> any 80 (msg:\"split\"; content:\"MALWARE-SIGNATURE\"; sid:1;)\n"
	"alert tcp any any -> any 80 (msg:\"GET at start\"; content:\"GET\"; depth:3; sid:2;)\n"
	"alert tcp any 80 -> any any (msg:\"server\"; flow:to_client; content:\"secret-data\"; "
	"sid:3;)\n"
	"alert tcp any any -> any 80 (msg:\"case decoy\"; content:\"malware-signature\"; sid:4;)\n"
	"alert tcp any any -> any 80 (msg:\"outside depth\"; content:\"SIGNATURE\"; depth:9; sid:5;)\n"
	"alert tcp any any -> any 8080 (msg:\"wrong port\"; content:\"MALWARE\"; sid:6;)\n"
	"alert tcp any any -> any 80 (msg:\"two parts\"; content:\"PART-ONE\"; content:\"PART-TWO\"; "
	"distance:0; sid:7;)\n"
	"alert tcp any any -> any 80 (msg:\"anchored\"; pcre:\"/^GET \\/index/\"; sid:8;)\n"
	"alert tcp any any -> any 80 (msg:\"to_client decoy\"; flow:to_client; content:\"GET\"; "
	"sid:9;)\n";

Test(stream, pattern_split_across_segments)
{
	struct harness *h = harness_rules(STREAM_RULES);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, T0);
	conv_data(&c, 1, "GET /index MALWARE-SIG");
	conv_data(&c, 1, "NATURE PART-ONE xx");
	conv_data(&c, 1, "yy PART-TWO");
	conv_data(&c, 0, "HTTP/1.1 200 OK secret-");
	conv_data(&c, 0, "data");
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 1), 1, "found across two segments, once");
	cr_assert_eq(h_count(h, 2), 1, "depth: segment and stream agree, one alert");
	cr_assert_eq(h_count(h, 3), 1);
	cr_assert_eq(h_count(h, 4), 0, "content is case-sensitive");
	cr_assert_eq(h_count(h, 5), 0, "outside depth");
	cr_assert_eq(h_count(h, 6), 0, "wrong port");
	cr_assert_eq(h_count(h, 7), 1, "parts in different chunks");
	cr_assert_eq(h_count(h, 8), 1, "^ anchors at the stream start");
	cr_assert_eq(h_count(h, 9), 0, "wrong direction");
	{
		unsigned int i;

		for (i = 0; i < h->nalerts; i++) {
			if (h->alerts[i].sid == 3) {
				cr_assert_str_eq(h->alerts[i].src, "10.0.0.2",
						 "the sender of the matched bytes");
				cr_assert_eq(h->alerts[i].sport, 80);
				cr_assert(h->alerts[i].stream);
			}
			if (h->alerts[i].sid == 1) {
				cr_assert_str_eq(h->alerts[i].src, "10.0.0.1");
				cr_assert_eq(h->alerts[i].dport, 80);
			}
		}
	}
	harness_free(h);
}

Test(stream, out_of_order_and_retransmitted)
{
	struct harness *h = harness_rules(STREAM_RULES);
	const char *a = "GET /x MALWARE-", *b = "SIGNATURE and ", *d = "more MALWARE-SIGNATURE";
	uint32_t s0, la = (uint32_t)strlen(a), lb = (uint32_t)strlen(b), ld = (uint32_t)strlen(d);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40001, "10.0.0.2", 80, T0);
	s0 = c.cseq;
	/* second segment first, then the first, the first again, then the third twice */
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, s0 + la, c.sseq, b, lb);
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, s0, c.sseq, a, la);
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, s0, c.sseq, a, la);
	conv_send(&c, 0, MK_TCP_ACK, c.sseq, s0 + la + lb, NULL, 0);
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, s0 + la + lb, c.sseq, d, ld);
	conv_send(&c, 0, MK_TCP_ACK, c.sseq, s0 + la + lb + ld, NULL, 0);
	/* a retransmission of data already acknowledged and inspected */
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, s0 + la + lb, c.sseq, d, ld);
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, s0, c.sseq, a, la);
	c.cseq = s0 + la + lb + ld;
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 1), 2, "one per occurrence; copies do not alert again");
	cr_assert_eq(h_count(h, 2), 1, "the GET segment seen three times alerts once");
	harness_free(h);
}

/* @n bytes of filler that holds none of the test patterns, as one chunk. */
static void conv_filler(struct conv *c, int from_client, uint32_t n)
{
	char buf[1500];

	memset(buf, '.', sizeof(buf));
	while (n) {
		uint32_t k = n < 1400 ? n : 1400;

		buf[k] = '\0';
		conv_data(c, from_client, buf);
		buf[k] = '.';
		n -= k;
	}
}

Test(stream, relative_parts_further_apart_than_the_window)
{
	struct harness *h = harness_rules(
		"alert tcp any any -> any 80 (msg:\"4 KiB apart\"; content:\"FIRST-PART-XYZ\"; "
		"content:\"second\"; distance:0; sid:20;)\n"
		"alert tcp any any -> any 80 (msg:\"within\"; content:\"FIRST-PART-XYZ\"; "
		"content:\"second\"; distance:0; within:100; sid:21;)\n"
		"alert tcp any any -> any 80 (msg:\"beyond the reach\"; content:\"FIRST-PART-ABC\"; "
		"content:\"third\"; distance:0; sid:22;)\n"
		"alert tcp any any -> any 80 (msg:\"the earlier part far back\"; content:\"early\"; "
		"content:\"LATE-AND-RARE-PART\"; distance:0; sid:23;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40010, "10.0.0.2", 80, T0);
	conv_data(&c, 1, "early, then FIRST-PART-XYZ");
	conv_filler(&c, 1, 4200);
	conv_data(&c, 1, "the second part");
	conv_data(&c, 1, "FIRST-PART-ABC");
	conv_filler(&c, 1, 20000);
	conv_data(&c, 1, "a third part, LATE-AND-RARE-PART");
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 20), 1, "the anchor's window is kept while the rule waits");
	cr_assert_eq(h_count(h, 21), 0, "within still counts");
	cr_assert_eq(h_count(h, 22), 0, "more than stream_reach (16 KiB) after the anchor");
	cr_assert_eq(h_count(h, 23), 0,
		     "a part before the anchor further back than stream_window (1 KiB)");
	harness_free(h);
}

Test(stream, longer_windows_within_the_worker_budget)
{
	struct mk_detect_cfg cfg = test_cfg;
	struct harness *h = calloc(1, sizeof(*h));
	struct conv a, b;

	/* room for one flow's longer window (its buffer and a copy), not two */
	cfg.stream_reach_budget = 14 << 10;
	cfg.rules_text = "alert tcp any any -> any 80 (content:\"FIRST-PART-XYZ\"; "
			 "content:\"second\"; distance:0; sid:20;)\n";
	cr_assert_eq(h_init_cfg(h, &cfg), 0);
	conv_open(&a, h, "10.0.0.1", 40020, "10.0.0.2", 80, T0);
	conv_open(&b, h, "10.0.0.3", 40021, "10.0.0.2", 80, T0 + 100);
	conv_data(&a, 1, "FIRST-PART-XYZ");
	conv_data(&b, 1, "FIRST-PART-XYZ");
	conv_filler(&a, 1, 4200);
	conv_filler(&b, 1, 4200);
	conv_data(&a, 1, "the second part");
	conv_data(&b, 1, "the second part");
	h_finish(h);
	cr_assert_eq(h_count(h, 20), 1, "the first flow keeps its window, the second stays plain");
	cr_assert_str_eq(h->alerts[0].src, "10.0.0.1");
	cr_assert(mk_detect_thread_counters(h->t)[MK_DETECT_CNT_REACH_LIMITED] > 0);
	harness_free(h);
}

Test(stream, released_at_flow_end)
{
	struct harness *h = harness_rules(STREAM_RULES);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40002, "10.0.0.2", 80, T0);
	/* never acknowledged: released when the flow ends */
	conv_send(&c, 1, MK_TCP_PSH | MK_TCP_ACK, c.cseq, c.sseq, "xx MALWARE-SIGNATURE", 20);
	cr_assert_eq(h_count(h, 1), 0);
	h_finish(h);
	cr_assert_eq(h_count(h, 1), 1);
	harness_free(h);
}

Test(stream, depth_rule_reads_each_segment_too)
{
	struct harness *h = harness_rules(STREAM_RULES);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40003, "10.0.0.2", 80, T0);
	conv_data(&c, 1, "GET /a HTTP/1.1\r\n\r\n");
	conv_data(&c, 1, "GET /b HTTP/1.1\r\n\r\n");
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 2), 2, "the second GET starts a segment, not the stream");
	cr_assert_eq(h_count(h, 8), 0, "/^GET \\/index/ neither");
	harness_free(h);
}

Test(stream, pass_rule_passes_the_flow)
{
	struct harness *h =
		harness_rules("pass tcp any any -> any 80 (content:\"trusted\"; sid:10;)\n"
			      "alert tcp any any -> any 80 (content:\"evil\"; sid:11;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40004, "10.0.0.2", 80, T0);
	conv_data(&c, 1, "trusted evil");
	conv_data(&c, 1, "more evil");
	conv_close(&c);
	conv_open(&c, h, "10.0.0.1", 40005, "10.0.0.2", 80, T0 + 5000000);
	conv_data(&c, 1, "evil");
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 10), 0, "pass matches are not logged");
	cr_assert_eq(h_count(h, 11), 1, "only the other flow");
	cr_assert(h->verdicts & MK_DETECT_V_PASS);
	harness_free(h);
}
