// SPDX-License-Identifier: GPL-2.0-only
/*
 * EVE `http` records and the `http` object of alerts (eve_http.h), in
 * Suricata's field order: hostname, url, http_user_agent,
 * http_content_type, http_refer, http_method, protocol, status, redirect,
 * length. Absent fields are left out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "eve_http.h"
#include "ebuf.h"

/* "name":"value" with the value escaped; nothing when the field is absent. */
static void put_field(struct ebuf *o, int *first, const char *name, const struct mk_eve_str *v)
{
	if (!v->p)
		return;
	if (!*first)
		EB_LIT(o, ",");
	*first = 0;
	EB_LIT(o, "\"");
	eb_str(o, name);
	EB_LIT(o, "\":\"");
	eb_json(o, v->p, v->len);
	EB_LIT(o, "\"");
}

static void put_num(struct ebuf *o, int *first, const char *name, uint64_t v)
{
	if (!*first)
		EB_LIT(o, ",");
	*first = 0;
	EB_LIT(o, "\"");
	eb_str(o, name);
	EB_LIT(o, "\":");
	eb_u64(o, v);
}

size_t mk_eve_http_maxlen(const struct mk_eve_http *h)
{
	/* \u00XX: six bytes per input byte at worst */
	return 6 * ((size_t)h->hostname.len + h->url.len + h->user_agent.len + h->content_type.len +
		    h->referer.len + h->method.len + h->protocol.len + h->redirect.len) +
	       512;
}

int mk_eve_http_object(char *buf, size_t size, const struct mk_eve_http *h)
{
	struct ebuf o = { .p = buf, .end = buf + size };
	int first = 1;

	EB_LIT(&o, "\"http\":{");
	put_field(&o, &first, "hostname", &h->hostname);
	put_field(&o, &first, "url", &h->url);
	put_field(&o, &first, "http_user_agent", &h->user_agent);
	put_field(&o, &first, "http_content_type", &h->content_type);
	put_field(&o, &first, "http_refer", &h->referer);
	put_field(&o, &first, "http_method", &h->method);
	put_field(&o, &first, "protocol", &h->protocol);
	if (h->status)
		put_num(&o, &first, "status", (uint64_t)h->status);
	put_field(&o, &first, "redirect", &h->redirect);
	put_num(&o, &first, "length", h->length);
	EB_LIT(&o, "}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}

int mk_eve_http(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		uint64_t ts_us, uint64_t tx_id, const struct mk_eve_http *h)
{
	char tmp[48];
	int n, m, t;

	if (!size)
		return -ENOSPC;
	size--; /* the terminating NUL */
	n = mk_eve_head(buf, size, cfg, f, ts_us, "http");
	if (n < 0)
		return n;
	t = snprintf(tmp, sizeof(tmp), ",\"tx_id\":%llu,", (unsigned long long)tx_id);
	if ((size_t)n + (size_t)t > size)
		return -ENOSPC;
	memcpy(buf + n, tmp, (size_t)t);
	n += t;
	m = mk_eve_http_object(buf + n, size - (size_t)n, h);
	if (m < 0)
		return m;
	n += m;
	if ((size_t)n + 1 > size)
		return -ENOSPC;
	buf[n++] = '}';
	buf[n] = '\0';
	return n;
}
