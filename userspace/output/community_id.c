// SPDX-License-Identifier: GPL-2.0-only
/*
 * Community ID v1 (community_id.h). The hash input, all in network order:
 * seed (2 bytes), source address, destination address (4 or 16 bytes each),
 * protocol (1), a zero byte, then for TCP, UDP, SCTP, ICMP and ICMPv6 the
 * source and destination port (2 each). The endpoints are ordered so that
 * the lower (address, port) comes first, which makes both directions give
 * the same ID, except for ICMP messages without a counterpart type (one-way:
 * kept as sent). ICMP "ports" are the type and, for types that have a
 * request/response counterpart, that counterpart type; else the code.
 */
#include <arpa/inet.h>
#include <string.h>
#include <nettle/base64.h>
#include <nettle/sha1.h>
#include "community_id.h"
#include "parse.h"

/* The counterpart of an ICMP type, or -1 when the message is one-way. */
static int icmp4_counterpart(uint8_t type)
{
	switch (type) {
	case 8: /* echo request / reply */
		return 0;
	case 0:
		return 8;
	case 13: /* timestamp */
		return 14;
	case 14:
		return 13;
	case 15: /* information */
		return 16;
	case 16:
		return 15;
	case 10: /* router solicitation: its advertisement is not paired back */
		return 9;
	case 17: /* address mask */
		return 18;
	case 18:
		return 17;
	default:
		return -1;
	}
}

static int icmp6_counterpart(uint8_t type)
{
	switch (type) {
	case 128: /* echo request / reply */
		return 129;
	case 129:
		return 128;
	case 133: /* router solicitation / advertisement */
		return 134;
	case 134:
		return 133;
	case 135: /* neighbor solicitation / advertisement */
		return 136;
	case 136:
		return 135;
	case 130: /* multicast listener query / report */
		return 131;
	case 131:
		return 130;
	case 139: /* node information query / response */
		return 140;
	case 140:
		return 139;
	case 144: /* home agent address discovery request / reply */
		return 145;
	case 145:
		return 144;
	default:
		return -1;
	}
}

static int has_ports(uint8_t proto)
{
	return proto == MK_IPPROTO_TCP || proto == MK_IPPROTO_UDP || proto == MK_IPPROTO_SCTP ||
	       proto == MK_IPPROTO_ICMP || proto == MK_IPPROTO_ICMPV6;
}

void mk_community_id(char out[MK_COMMUNITY_ID_LEN], uint16_t seed, uint8_t family,
		     const uint32_t *src, const uint32_t *dst, uint8_t proto, uint16_t sport,
		     uint16_t dport)
{
	size_t alen = family == MK_FAMILY_IPV6 ? 16 : 4;
	uint8_t digest[SHA1_DIGEST_SIZE], head[4];
	struct sha1_ctx ctx;
	int one_way = 0, swap;
	uint16_t ports[2];
	int c;

	if (proto == MK_IPPROTO_ICMP || proto == MK_IPPROTO_ICMPV6) {
		c = proto == MK_IPPROTO_ICMP ? icmp4_counterpart((uint8_t)sport) :
					       icmp6_counterpart((uint8_t)sport);
		if (c < 0)
			one_way = 1;
		else
			dport = (uint16_t)c;
	}
	/* (address, port) order; addresses compare as byte strings */
	c = memcmp(src, dst, alen);
	swap = !one_way && (c > 0 || (c == 0 && sport > dport));

	head[0] = (uint8_t)(seed >> 8);
	head[1] = (uint8_t)seed;
	sha1_init(&ctx);
	sha1_update(&ctx, 2, head);
	sha1_update(&ctx, alen, (const uint8_t *)(swap ? dst : src));
	sha1_update(&ctx, alen, (const uint8_t *)(swap ? src : dst));
	head[0] = proto;
	head[1] = 0;
	sha1_update(&ctx, 2, head);
	if (has_ports(proto)) {
		ports[0] = htons(swap ? dport : sport);
		ports[1] = htons(swap ? sport : dport);
		sha1_update(&ctx, sizeof(ports), (const uint8_t *)ports);
	}
	sha1_digest(&ctx, sizeof(digest), digest);
	out[0] = '1';
	out[1] = ':';
	base64_encode_raw((char *)out + 2, sizeof(digest), digest);
	out[2 + BASE64_ENCODE_RAW_LENGTH(SHA1_DIGEST_SIZE)] = '\0';
}

void mk_community_id_flow(char out[MK_COMMUNITY_ID_LEN], uint16_t seed, const struct mk_flow *f)
{
	const struct mk_flow_key *k = &f->key;
	const uint32_t *src = f->client_hi ? k->addr_hi : k->addr_lo;
	const uint32_t *dst = f->client_hi ? k->addr_lo : k->addr_hi;
	uint16_t sport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
	uint16_t dport = ntohs(f->client_hi ? k->port_lo : k->port_hi);

	if (k->proto == MK_IPPROTO_ICMP || k->proto == MK_IPPROTO_ICMPV6) {
		sport = f->icmp_type;
		dport = f->icmp_code;
	}
	mk_community_id(out, seed, k->family, src, dst, k->proto, sport, dport);
}
