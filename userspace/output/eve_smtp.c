// SPDX-License-Identifier: GPL-2.0-only
/* EVE `smtp` records, Suricata's layout: helo, mail_from, rcpt_to[] (absent fields left out). */
#include <errno.h>
#include <string.h>
#include "ebuf.h"
#include "eve_app.h"
#include "smtp.h"

static void put_str(struct ebuf *o, int *first, const char *name, const char *v)
{
	if (!v)
		return;
	if (!*first)
		EB_LIT(o, ",");
	*first = 0;
	EB_LIT(o, "\"");
	eb_str(o, name);
	EB_LIT(o, "\":\"");
	eb_json(o, (const uint8_t *)v, strlen(v));
	EB_LIT(o, "\"");
}

size_t mk_eve_smtp_maxlen(const struct mk_smtp_tx *t)
{
	size_t n = 256;
	uint32_t i;

	n += t->helo ? 6 * strlen(t->helo) : 0;
	n += t->mail_from ? 6 * strlen(t->mail_from) : 0;
	for (i = 0; i < t->nrcpt; i++)
		n += 6 * strlen(t->rcpt_to[i]) + 4;
	return n;
}

int mk_eve_smtp_object(char *buf, size_t size, const void *facts)
{
	const struct mk_smtp_tx *t = facts;
	struct ebuf o = { .p = buf, .end = buf + size };
	int first = 1;
	uint32_t i;

	EB_LIT(&o, "\"smtp\":{");
	put_str(&o, &first, "helo", t->helo);
	put_str(&o, &first, "mail_from", t->mail_from);
	if (t->nrcpt) {
		if (!first)
			EB_LIT(&o, ",");
		first = 0;
		EB_LIT(&o, "\"rcpt_to\":[");
		for (i = 0; i < t->nrcpt; i++) {
			if (i)
				EB_LIT(&o, ",");
			EB_LIT(&o, "\"");
			eb_json(&o, (const uint8_t *)t->rcpt_to[i], strlen(t->rcpt_to[i]));
			EB_LIT(&o, "\"");
		}
		EB_LIT(&o, "]");
	}
	EB_LIT(&o, "}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}
