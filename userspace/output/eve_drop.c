// SPDX-License-Identifier: GPL-2.0-only
/* The EVE drop record (eve_drop.h). */
#include <errno.h>
#include "ebuf.h"
#include "eve_drop.h"

static void eb_bool(struct ebuf *b, const char *key, int v)
{
	EB_LIT(b, ",\"");
	eb_str(b, key);
	if (v)
		EB_LIT(b, "\":true");
	else
		EB_LIT(b, "\":false");
}

static void eb_num(struct ebuf *b, const char *key, uint64_t v)
{
	EB_LIT(b, ",\"");
	eb_str(b, key);
	EB_LIT(b, "\":");
	eb_u64(b, v);
}

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t rd32(const uint8_t *p)
{
	return rd16(p) << 16 | rd16(p + 2);
}

int mk_eve_drop(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		uint64_t ts_us, const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen)
{
	uint32_t l4 = p->l3.l4_off ? (uint32_t)(p->l3.l4_off - p->l3.l3_off) : 0;
	int v6 = p->l3.family == MK_FAMILY_IPV6;
	struct ebuf b;
	int n = mk_eve_head(buf, size, cfg, f, ts_us, "drop");

	if (n < 0)
		return n;
	b = (struct ebuf){ .p = buf + n, .end = buf + size - 1 }; /* and the NUL */
	EB_LIT(&b, ",\"drop\":{\"len\":");
	eb_u64(&b, p->l3.ip_len);
	if (!v6 && ip_caplen >= 20) {
		eb_num(&b, "tos", ip[1]);
		eb_num(&b, "ttl", ip[8]);
		eb_num(&b, "ipid", rd16(ip + 4));
	} else if (v6 && ip_caplen >= 40) {
		eb_num(&b, "tc", (rd16(ip) >> 4) & 0xff);
		eb_num(&b, "hoplimit", ip[7]);
		eb_num(&b, "flowlbl", rd32(ip) & 0xfffff);
	}
	if (p->l3.proto == MK_IPPROTO_TCP && l4 && ip_caplen >= l4 + 20) {
		const uint8_t *t = ip + l4;

		eb_num(&b, "tcpseq", rd32(t + 4));
		eb_num(&b, "tcpack", rd32(t + 8));
		eb_num(&b, "tcpwin", rd16(t + 14));
		eb_bool(&b, "syn", t[13] & 0x02);
		eb_bool(&b, "ack", t[13] & 0x10);
		eb_bool(&b, "psh", t[13] & 0x08);
		eb_bool(&b, "rst", t[13] & 0x04);
		eb_bool(&b, "urg", t[13] & 0x20);
		eb_bool(&b, "fin", t[13] & 0x01);
		eb_num(&b, "tcpres", t[12] & 0x0f);
		eb_num(&b, "tcpurgp", rd16(t + 18));
	} else if (p->l3.proto == MK_IPPROTO_UDP && l4 && ip_caplen >= l4 + 8) {
		eb_num(&b, "udplen", rd16(ip + l4 + 4));
	}
	EB_LIT(&b, ",\"reason\":\"rules\"}}");
	if (b.overflow)
		return -ENOSPC;
	*b.p = '\0';
	return (int)(b.p - buf);
}
