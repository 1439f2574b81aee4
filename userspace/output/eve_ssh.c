// SPDX-License-Identifier: GPL-2.0-only
/*
 * EVE `ssh` records, Suricata's layout: client and server, each with
 * proto_version, software_version and hassh {hash, string} (the server's
 * HASSH server); a side not seen is left out.
 */
#include <errno.h>
#include <string.h>
#include "ebuf.h"
#include "eve_app.h"
#include "ssh.h"

static void side(struct ebuf *o, const char *name, const struct mk_ssh_side *s, int *first)
{
	if (!s->has_banner && !s->hassh)
		return;
	if (!*first)
		EB_LIT(o, ",");
	*first = 0;
	EB_LIT(o, "\"");
	eb_str(o, name);
	EB_LIT(o, "\":{");
	if (s->has_banner) {
		EB_LIT(o, "\"proto_version\":\"");
		eb_json(o, (const uint8_t *)s->proto_version, strlen(s->proto_version));
		EB_LIT(o, "\",\"software_version\":\"");
		eb_json(o, (const uint8_t *)s->software_version, strlen(s->software_version));
		EB_LIT(o, "\"");
	}
	if (s->hassh) {
		if (s->has_banner)
			EB_LIT(o, ",");
		EB_LIT(o, "\"hassh\":{\"hash\":\"");
		eb_str(o, s->hassh_hash);
		EB_LIT(o, "\",\"string\":\"");
		eb_json(o, (const uint8_t *)s->hassh, strlen(s->hassh));
		EB_LIT(o, "\"}");
	}
	EB_LIT(o, "}");
}

size_t mk_eve_ssh_maxlen(const struct mk_ssh_info *s)
{
	size_t n = 512 + 6 * (strlen(s->client.proto_version) + strlen(s->client.software_version) +
			      strlen(s->server.proto_version) + strlen(s->server.software_version));

	if (s->client.hassh)
		n += 6 * strlen(s->client.hassh);
	if (s->server.hassh)
		n += 6 * strlen(s->server.hassh);
	return n;
}

int mk_eve_ssh_object(char *buf, size_t size, const void *facts)
{
	const struct mk_ssh_info *s = facts;
	struct ebuf o = { .p = buf, .end = buf + size };
	int first = 1;

	EB_LIT(&o, "\"ssh\":{");
	side(&o, "client", &s->client, &first);
	side(&o, "server", &s->server, &first);
	EB_LIT(&o, "}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}
