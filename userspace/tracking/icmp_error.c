// SPDX-License-Identifier: GPL-2.0-only
/* The flow an ICMP error quotes (icmp_error.h), keyed as common/parse.h keys packets. */
#include <string.h>
#include "icmp_error.h"

#define ICMP_HLEN 8
#define IPV6_EXT_MAX 8

/* RFC 792 / 1812: unreachable, source quench, redirect, time exceeded, parameter problem. */
static int icmp4_error_type(uint8_t t)
{
	return t == 3 || t == 4 || t == 5 || t == 11 || t == 12;
}

/* RFC 4443: unreachable, packet too big, time exceeded, parameter problem. */
static int icmp6_error_type(uint8_t t)
{
	return t >= 1 && t <= 4;
}

static int is_echo(uint8_t proto, uint8_t t)
{
	return proto == MK_IPPROTO_ICMP ? (t == 8 || t == 0) : (t == 128 || t == 129);
}

static uint32_t l4_start(const struct mk_parse *p)
{
	return (uint32_t)(p->l3.l4_off - p->l3.l3_off);
}

int mk_icmp_is_error(const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen)
{
	uint32_t l4;

	if (!p->l3.l4_off || p->l3.frag != MK_FRAG_NONE)
		return 0;
	l4 = l4_start(p);
	if (l4 >= ip_caplen)
		return 0;
	if (p->l3.proto == MK_IPPROTO_ICMP)
		return p->l3.family == MK_FAMILY_IPV4 && icmp4_error_type(ip[l4]);
	if (p->l3.proto == MK_IPPROTO_ICMPV6)
		return p->l3.family == MK_FAMILY_IPV6 && icmp6_error_type(ip[l4]);
	return 0;
}

/* The quoted IPv6 header's extension headers, as the parser walks them. */
static int quote_ipv6_l4(const uint8_t *ip, uint32_t end, uint32_t *off, uint8_t *proto)
{
	uint8_t nh = ip[*off + 6];
	uint32_t o = *off + 40;
	int i;

	for (i = 0; i < IPV6_EXT_MAX; i++) {
		const uint8_t *h = ip + o;
		uint32_t len;

		if (nh != 0 && nh != 43 && nh != 60 && nh != 44 && nh != 51)
			break;
		if (o + 8 > end)
			return 0;
		if (nh == 44) {
			if (((uint32_t)h[2] << 8 | h[3]) & 0xfff8)
				return 0; /* a later fragment: no ports */
			len = 8;
		} else if (nh == 51) {
			len = ((uint32_t)h[1] + 2) * 4;
		} else {
			len = ((uint32_t)h[1] + 1) * 8;
		}
		nh = h[0];
		o += len;
	}
	if (nh == 0 || nh == 43 || nh == 60 || nh == 44 || nh == 51)
		return 0;
	*off = o;
	*proto = nh;
	return 1;
}

int mk_icmp_error_quote(const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen,
			uint32_t seed, struct mk_icmp_quote *q)
{
	uint32_t src[4] = { 0 }, dst[4] = { 0 }, off, l4, end;
	uint16_t sport = 0, dport = 0;
	uint8_t proto;
	const uint8_t *h;

	if (!mk_icmp_is_error(p, ip, ip_caplen))
		return 0;
	/* the quote ends with the ICMP message: Ethernet padding is not part of it */
	end = p->l3.ip_len < ip_caplen ? p->l3.ip_len : ip_caplen;
	off = l4_start(p) + ICMP_HLEN;
	if (p->l3.family == MK_FAMILY_IPV4) {
		uint32_t ihl;

		if (off + 20 > end)
			return 0;
		h = ip + off;
		ihl = (uint32_t)(h[0] & 0x0f) * 4;
		if ((h[0] >> 4) != 4 || ihl < 20 || (mk_rd16(h + 6) & 0x1fff))
			return 0;
		proto = h[9];
		memcpy(&src[0], h + 12, 4);
		memcpy(&dst[0], h + 16, 4);
		l4 = off + ihl;
	} else {
		if (off + 40 > end)
			return 0;
		h = ip + off;
		if ((h[0] >> 4) != 6)
			return 0;
		memcpy(src, h + 8, 16);
		memcpy(dst, h + 24, 16);
		l4 = off;
		if (!quote_ipv6_l4(ip, end, &l4, &proto))
			return 0;
	}
	h = ip + l4;
	switch (proto) {
	case MK_IPPROTO_TCP:
	case MK_IPPROTO_UDP:
	case MK_IPPROTO_SCTP:
		if (l4 + 4 > end)
			return 0;
		sport = mk_raw16(h);
		dport = mk_raw16(h + 2);
		break;
	case MK_IPPROTO_ICMP:
	case MK_IPPROTO_ICMPV6:
		if ((proto == MK_IPPROTO_ICMP) != (p->l3.family == MK_FAMILY_IPV4) || l4 + 1 > end)
			return 0;
		if (proto == MK_IPPROTO_ICMP ? icmp4_error_type(h[0]) : icmp6_error_type(h[0]))
			return 0; /* no error is about an error (RFC 1122, RFC 4443) */
		if (is_echo(proto, h[0])) {
			if (l4 + 8 > end)
				return 0;
			sport = dport = mk_raw16(h + 4);
		}
		break;
	default:
		break; /* keyed on addresses and protocol, as the parser keys them */
	}
	memset(q, 0, sizeof(*q));
	q->from_hi = (uint8_t)mk_flow_key_set_endpoints(&q->key, src, sport, dst, dport);
	q->key.vlan[0] = p->vlan[0];
	q->key.vlan[1] = p->vlan[1];
	q->key.tunnel_ctx = p->tunnel_ctx;
	q->key.proto = proto;
	q->key.family = p->l3.family;
	q->hash = mk_flow_hash(&q->key, seed);
	return 1;
}
