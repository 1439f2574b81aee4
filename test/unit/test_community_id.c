// SPDX-License-Identifier: GPL-2.0-only
/*
 * Community ID v1 (userspace/output/community_id.c) against the published
 * test vectors of the specification (corelight/community-id-spec,
 * baseline/README.md tables and baseline_deflt.json / baseline_seed1.json):
 * TCP, UDP, SCTP, ICMP, ICMPv6 (two-way and one-way types), a port-less
 * protocol (RSVP), IPv4 and IPv6, seeds 0 and 1, both directions of each
 * flow. For ICMP the "ports" are the type and the code.
 */
#include <arpa/inet.h>
#include <string.h>
#include <criterion/criterion.h>
#include "community_id.h"
#include "flow_helpers.h"

struct vector {
	uint16_t seed;
	uint8_t proto;
	const char *src, *dst;
	uint16_t sport, dport;
	const char *want;
};

static const struct vector vectors[] = {
	{ 0, 6, "1.2.3.4", "5.6.7.8", 1122, 3344, "1:wCb3OG7yAFWelaUydu0D+125CLM=" },
	{ 1, 6, "1.2.3.4", "5.6.7.8", 1122, 3344, "1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=" },
	{ 0, 6, "5.6.7.8", "1.2.3.4", 3344, 1122, "1:wCb3OG7yAFWelaUydu0D+125CLM=" },
	{ 1, 6, "5.6.7.8", "1.2.3.4", 3344, 1122, "1:HhA1B+6CoLbiKPEs5nhNYN4XWfk=" },
	{ 0, 17, "1.2.3.4", "5.6.7.8", 1122, 3344, "1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=" },
	{ 1, 17, "1.2.3.4", "5.6.7.8", 1122, 3344, "1:OShq+iKDAMVouh/4bMxB9Sz4amw=" },
	{ 0, 17, "5.6.7.8", "1.2.3.4", 3344, 1122, "1:0Mu9InQx6z4ZiCZM/7HXi2WMhOg=" },
	{ 1, 17, "5.6.7.8", "1.2.3.4", 3344, 1122, "1:OShq+iKDAMVouh/4bMxB9Sz4amw=" },
	{ 0, 132, "1.2.3.4", "5.6.7.8", 1122, 3344, "1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=" },
	{ 1, 132, "1.2.3.4", "5.6.7.8", 1122, 3344, "1:uitchpn5MMGAQKBJh7bIr/bAr7s=" },
	{ 0, 132, "5.6.7.8", "1.2.3.4", 3344, 1122, "1:EKt4MsxuyaE6mL+hmrEkQ9csDD8=" },
	{ 1, 132, "5.6.7.8", "1.2.3.4", 3344, 1122, "1:uitchpn5MMGAQKBJh7bIr/bAr7s=" },
	{ 0, 1, "1.2.3.4", "5.6.7.8", 8, 0, "1:crodRHL2FEsHjbv3UkRrfbs4bZ0=" },
	{ 1, 1, "1.2.3.4", "5.6.7.8", 8, 0, "1:9pr4ZGTICiuZoIh90RRYE2RyXpU=" },
	{ 0, 1, "5.6.7.8", "1.2.3.4", 0, 0, "1:crodRHL2FEsHjbv3UkRrfbs4bZ0=" },
	{ 1, 1, "5.6.7.8", "1.2.3.4", 0, 0, "1:9pr4ZGTICiuZoIh90RRYE2RyXpU=" },
	{ 0, 1, "1.2.3.4", "5.6.7.8", 11, 0, "1:f/YiSyWqczrTgfUCZlBUnvHRcPk=" },
	{ 1, 1, "1.2.3.4", "5.6.7.8", 11, 0, "1:1DD7cWGC/Yg91YGsQeni8du3pIA=" },
	{ 0, 58, "fe80:0001:0203:0405:0607:0809:0a0b:0c0d",
	  "fe80:1011:1213:1415:1617:1819:1a1b:1c1d", 128, 0, "1:0bf7hyMJUwt3fMED7z8LIfRpBeo=" },
	{ 1, 58, "fe80:0001:0203:0405:0607:0809:0a0b:0c0d",
	  "fe80:1011:1213:1415:1617:1819:1a1b:1c1d", 128, 0, "1:IO27GQzPuCtNnwFvjWALMHu5tJE=" },
	{ 0, 58, "fe80:1011:1213:1415:1617:1819:1a1b:1c1d",
	  "fe80:0001:0203:0405:0607:0809:0a0b:0c0d", 129, 0, "1:0bf7hyMJUwt3fMED7z8LIfRpBeo=" },
	{ 1, 58, "fe80:1011:1213:1415:1617:1819:1a1b:1c1d",
	  "fe80:0001:0203:0405:0607:0809:0a0b:0c0d", 129, 0, "1:IO27GQzPuCtNnwFvjWALMHu5tJE=" },
	{ 0, 58, "fe80:0001:0203:0405:0607:0809:0a0b:0c0d",
	  "fe80:1011:1213:1415:1617:1819:1a1b:1c1d", 146, 0, "1:fYC8+pz24E+EhANP1EZhpX0Dw10=" },
	{ 1, 58, "fe80:0001:0203:0405:0607:0809:0a0b:0c0d",
	  "fe80:1011:1213:1415:1617:1819:1a1b:1c1d", 146, 0, "1:Cv4IKJe56BNkF0MBW2YxQ3Nwc3s=" },
	{ 0, 46, "1.2.3.4", "5.6.7.8", 0, 0, "1:ikv3kmf89luf73WPz1jOs49S768=" },
	{ 1, 46, "1.2.3.4", "5.6.7.8", 0, 0, "1:/buhqeOmaRCopOZFy9HnoJd5XW8=" },
	{ 0, 46, "5.6.7.8", "1.2.3.4", 0, 0, "1:ikv3kmf89luf73WPz1jOs49S768=" },
	{ 1, 46, "5.6.7.8", "1.2.3.4", 0, 0, "1:/buhqeOmaRCopOZFy9HnoJd5XW8=" },
	{ 0, 46, "fe80:0001:0203:0405:0607:0809:0a0b:0c0d",
	  "fe80:1011:1213:1415:1617:1819:1a1b:1c1d", 0, 0, "1:wQ/2mwrnXP4lmJcHdGL5ePjR+e0=" },
	{ 1, 46, "fe80:0001:0203:0405:0607:0809:0a0b:0c0d",
	  "fe80:1011:1213:1415:1617:1819:1a1b:1c1d", 0, 0, "1:j6EyyfBzL4vWKHFXgUqb5Az3OxM=" },
	{ 0, 46, "fe80:1011:1213:1415:1617:1819:1a1b:1c1d",
	  "fe80:0001:0203:0405:0607:0809:0a0b:0c0d", 0, 0, "1:wQ/2mwrnXP4lmJcHdGL5ePjR+e0=" },
	{ 1, 46, "fe80:1011:1213:1415:1617:1819:1a1b:1c1d",
	  "fe80:0001:0203:0405:0607:0809:0a0b:0c0d", 0, 0, "1:j6EyyfBzL4vWKHFXgUqb5Az3OxM=" },
	{ 0, 58, "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea", 135, 136,
	  "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=" },
	{ 0, 58, "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da", 136, 135,
	  "1:dGHyGvjMfljg6Bppwm3bg0LO8TY=" },
	{ 0, 58, "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da", 135, 136,
	  "1:zavyT/cezQr1fmImYCwYnMXbgck=" },
	{ 0, 58, "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea", 136, 135,
	  "1:zavyT/cezQr1fmImYCwYnMXbgck=" },
	{ 0, 58, "3ffe:501:1800:2345::2", "3ffe:507:0:1:200:86ff:fe05:80da", 3, 0,
	  "1:2ObVBgIn28oZvibYZhZMBgh7WdQ=" },
	{ 0, 58, "3ffe:501:410:0:2c0:dfff:fe47:33e", "3ffe:507:0:1:200:86ff:fe05:80da", 1, 4,
	  "1:hLZd0XGWojozrvxqE0dWB1iM6R0=" },
	{ 0, 58, "3ffe:507:0:1:200:86ff:fe05:80da", "3ffe:501:0:1001::2", 128, 129,
	  "1:+TW+HtLHvV1xnGhV1lv7XoJrqQg=" },
	{ 0, 58, "3ffe:501:0:1001::2", "3ffe:507:0:1:200:86ff:fe05:80da", 129, 128,
	  "1:+TW+HtLHvV1xnGhV1lv7XoJrqQg=" },
	{ 0, 58, "fe80::200:86ff:fe05:80da", "ff02::2", 133, 134,
	  "1:hO+sN4H+MG5MY/8hIrXPqc4ZQz0=" },
	{ 0, 58, "fe80::260:97ff:fe07:69ea", "ff02::1", 134, 133,
	  "1:pkvHqCL88/tg1k4cPigmZXUtL00=" },
	{ 0, 1, "192.168.0.89", "192.168.0.1", 8, 0, "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=" },
	{ 0, 1, "192.168.0.1", "192.168.0.89", 0, 8, "1:X0snYXpgwiv9TZtqg64sgzUn6Dk=" },
	{ 0, 1, "10.0.0.1", "10.0.0.2", 11, 0, "1:YHxtAirCG//0OzkcVAukqKQN9xM=" },
	{ 0, 6, "2001:470:e5bf:dead:4957:2174:e82c:4887", "2607:f8b0:400c:c03::1a", 63943, 25,
	  "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=" },
	{ 0, 6, "2607:f8b0:400c:c03::1a", "2001:470:e5bf:dead:4957:2174:e82c:4887", 25, 63943,
	  "1:/qFaeAR+gFe1KYjMzVDsMv+wgU4=" },
	{ 0, 132, "192.168.170.8", "192.168.170.56", 7, 7, "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=" },
	{ 0, 132, "192.168.170.56", "192.168.170.8", 7, 7, "1:MP2EtRCAUIZvTw6MxJHLV7N7JDs=" },
	{ 0, 6, "128.232.110.120", "66.35.250.204", 34855, 80, "1:LQU9qZlK+B5F3KDmev6m5PMibrg=" },
	{ 0, 6, "66.35.250.204", "128.232.110.120", 80, 34855, "1:LQU9qZlK+B5F3KDmev6m5PMibrg=" },
	{ 0, 17, "192.168.1.52", "8.8.8.8", 54585, 53, "1:d/FP5EW3wiY1vCndhwleRRKHowQ=" },
	{ 0, 17, "8.8.8.8", "192.168.1.52", 53, 54585, "1:d/FP5EW3wiY1vCndhwleRRKHowQ=" },
	{ 0, 46, "10.1.12.1", "10.1.12.2", 0, 0, "1:KHlLkgoJW7ifUTyTSgyVfkFHzKw=" },
	{ 0, 46, "10.1.12.2", "10.1.12.1", 0, 0, "1:KHlLkgoJW7ifUTyTSgyVfkFHzKw=" },
	{ 1, 58, "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea", 135, 136,
	  "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=" },
	{ 1, 58, "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da", 136, 135,
	  "1:kHa1FhMYIT6Ym2Vm2AOtoOARDzY=" },
	{ 1, 58, "fe80::260:97ff:fe07:69ea", "fe80::200:86ff:fe05:80da", 135, 136,
	  "1:2hSqmsDZ2kdcY9kbiUzOEBic0iM=" },
	{ 1, 58, "fe80::200:86ff:fe05:80da", "fe80::260:97ff:fe07:69ea", 136, 135,
	  "1:2hSqmsDZ2kdcY9kbiUzOEBic0iM=" },
	{ 1, 58, "3ffe:501:1800:2345::2", "3ffe:507:0:1:200:86ff:fe05:80da", 3, 0,
	  "1:lVEtCZpYu84Xqaa++3lXFyuu2n4=" },
	{ 1, 58, "3ffe:501:410:0:2c0:dfff:fe47:33e", "3ffe:507:0:1:200:86ff:fe05:80da", 1, 4,
	  "1:W8MHwXpWzpoSTD+cGcaJr4u0ys8=" },
	{ 1, 58, "3ffe:507:0:1:200:86ff:fe05:80da", "3ffe:501:0:1001::2", 128, 129,
	  "1:GfZxjAkDk2MkegpBYHV6tadtFXQ=" },
	{ 1, 58, "3ffe:501:0:1001::2", "3ffe:507:0:1:200:86ff:fe05:80da", 129, 128,
	  "1:GfZxjAkDk2MkegpBYHV6tadtFXQ=" },
	{ 1, 58, "fe80::200:86ff:fe05:80da", "ff02::2", 133, 134,
	  "1:L7Ka0ZMYu+J3bL4ulW2PrqyXNo8=" },
	{ 1, 58, "fe80::260:97ff:fe07:69ea", "ff02::1", 134, 133,
	  "1:K/ee5UCqAMAQXDorP5nSa2CGLjc=" },
	{ 1, 1, "192.168.0.89", "192.168.0.1", 8, 0, "1:03g6IloqVBdcZlPyX8r0hgoE7kA=" },
	{ 1, 1, "192.168.0.1", "192.168.0.89", 0, 8, "1:03g6IloqVBdcZlPyX8r0hgoE7kA=" },
	{ 1, 1, "10.0.0.1", "10.0.0.2", 11, 0, "1:XjUibYHaafLQ3pxQeiMI8g25q20=" },
	{ 1, 6, "2001:470:e5bf:dead:4957:2174:e82c:4887", "2607:f8b0:400c:c03::1a", 63943, 25,
	  "1:eJYTW6AOzFLlSUoESovMjnu7rMw=" },
	{ 1, 6, "2607:f8b0:400c:c03::1a", "2001:470:e5bf:dead:4957:2174:e82c:4887", 25, 63943,
	  "1:eJYTW6AOzFLlSUoESovMjnu7rMw=" },
	{ 1, 132, "192.168.170.8", "192.168.170.56", 7, 7, "1:5w3ZRjeKBzqT3zsaEECDGjUbYeg=" },
	{ 1, 132, "192.168.170.56", "192.168.170.8", 7, 7, "1:5w3ZRjeKBzqT3zsaEECDGjUbYeg=" },
	{ 1, 6, "128.232.110.120", "66.35.250.204", 34855, 80, "1:3V71V58M3Ksw/yuFALMcW0LAHvc=" },
	{ 1, 6, "66.35.250.204", "128.232.110.120", 80, 34855, "1:3V71V58M3Ksw/yuFALMcW0LAHvc=" },
	{ 1, 17, "192.168.1.52", "8.8.8.8", 54585, 53, "1:Q9We8WO3piVF8yEQBNJF4uiSVrI=" },
	{ 1, 17, "8.8.8.8", "192.168.1.52", 53, 54585, "1:Q9We8WO3piVF8yEQBNJF4uiSVrI=" },
	{ 1, 46, "10.1.12.1", "10.1.12.2", 0, 0, "1:rYir8gphR31noO9iDRQmF/BteEI=" },
	{ 1, 46, "10.1.12.2", "10.1.12.1", 0, 0, "1:rYir8gphR31noO9iDRQmF/BteEI=" },
};

static uint8_t addr(const char *s, uint32_t a[4])
{
	memset(a, 0, 16);
	if (inet_pton(AF_INET, s, a) == 1)
		return MK_FAMILY_IPV4;
	cr_assert_eq(inet_pton(AF_INET6, s, a), 1, "%s", s);
	return MK_FAMILY_IPV6;
}

Test(community_id, spec_vectors)
{
	char got[MK_COMMUNITY_ID_LEN];
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		uint32_t s[4], d[4];
		uint8_t fam = addr(v->src, s);

		cr_assert_eq(addr(v->dst, d), fam);
		mk_community_id(got, v->seed, fam, s, d, v->proto, v->sport, v->dport);
		cr_expect_str_eq(got, v->want, "vector %u: proto %u %s:%u -> %s:%u seed %u", i,
				 v->proto, v->src, v->sport, v->dst, v->dport, v->seed);
	}
	cr_assert_eq(MK_ARRAY_SIZE(vectors), 78);
}

/* A flow record's ID is its client -> server tuple's, whichever side the key puts first. */
Test(community_id, of_a_flow)
{
	struct mk_flow_table t;
	struct mk_flow_cfg cfg;
	struct mk_parse c = test_parse("5.6.7.8", 3344, "1.2.3.4", 1122, MK_IPPROTO_TCP);
	struct mk_parse e = test_parse("1.2.3.4", 8, "5.6.7.8", 8, MK_IPPROTO_ICMP);
	struct mk_flow_pkt fp = { .ts_us = TEST_T0, .len = 60, .tcp_flags = MK_TCP_SYN };
	char got[MK_COMMUNITY_ID_LEN];
	struct mk_flow *f;
	int tc;

	mk_flow_cfg_defaults(&cfg);
	cfg.max_flows = 8;
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, NULL, NULL), 0);
	f = mk_flow_handle(&t, &c, &fp, &tc);
	mk_community_id_flow(got, 0, f);
	cr_assert_str_eq(got, "1:wCb3OG7yAFWelaUydu0D+125CLM=");
	fp.tcp_flags = 0;
	fp.icmp_type = 8; /* echo request from 1.2.3.4, as the spec's table */
	f = mk_flow_handle(&t, &e, &fp, &tc);
	mk_community_id_flow(got, 0, f);
	cr_assert_str_eq(got, "1:crodRHL2FEsHjbv3UkRrfbs4bZ0=");
	mk_flow_table_free(&t);
}
