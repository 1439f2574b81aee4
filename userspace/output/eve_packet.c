// SPDX-License-Identifier: GPL-2.0-only
/* The EVE packet record of tagged packets (eve_packet.h). */
#include <errno.h>
#include "ebuf.h"
#include "eve_packet.h"

static void eb_base64(struct ebuf *b, const uint8_t *p, uint32_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];
	uint32_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		q[0] = tab[v >> 18];
		q[1] = tab[(v >> 12) & 63];
		q[2] = tab[(v >> 6) & 63];
		q[3] = tab[v & 63];
		eb_mem(b, q, 4);
	}
	if (n - i == 1) {
		q[0] = tab[p[i] >> 2];
		q[1] = tab[(p[i] & 3) << 4];
		q[2] = q[3] = '=';
		eb_mem(b, q, 4);
	} else if (n - i == 2) {
		q[0] = tab[p[i] >> 2];
		q[1] = tab[(p[i] & 3) << 4 | p[i + 1] >> 4];
		q[2] = tab[(p[i + 1] & 15) << 2];
		q[3] = '=';
		eb_mem(b, q, 4);
	}
}

size_t mk_eve_packet_maxlen(uint32_t ip_caplen)
{
	return MK_EVE_LINE_MAX + ((size_t)ip_caplen + 2) / 3 * 4;
}

int mk_eve_packet(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		  uint64_t ts_us, const uint8_t *ip, uint32_t ip_caplen)
{
	struct ebuf b;
	int n = mk_eve_head(buf, size, cfg, f, ts_us, "packet");

	if (n < 0)
		return n;
	if ((size_t)n >= size)
		return -ENOSPC; /* no room for the NUL: the head filled the buffer */
	b = (struct ebuf){ .p = buf + n, .end = buf + size - 1 }; /* and the NUL */
	EB_LIT(&b, ",\"packet\":\"");
	eb_base64(&b, ip, ip_caplen);
	EB_LIT(&b, "\",\"packet_info\":{\"linktype\":");
	eb_u64(&b, MK_EVE_LINKTYPE_RAW);
	EB_LIT(&b, "}}");
	if (b.overflow)
		return -ENOSPC;
	*b.p = '\0';
	return (int)(b.p - buf);
}
