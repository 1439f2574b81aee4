// SPDX-License-Identifier: GPL-2.0-only
/*
 * EVE `ftp` records, Suricata's layout: command, command_data, reply[]
 * (each line without its code), completion_code[], dynamic_port, mode
 * (passive, active), reply_received (yes, no); and `ftp_data` records
 * (filename, command) of the data connections.
 */
#include <errno.h>
#include <string.h>
#include "ebuf.h"
#include "eve_app.h"
#include "ftp.h"

size_t mk_eve_ftp_maxlen(const struct mk_ftp_tx *t)
{
	size_t n = 512 + 8 * MK_FTP_REPLY_MAX;
	uint32_t i;

	n += t->command_data ? 6 * strlen(t->command_data) : 0;
	for (i = 0; i < t->nreply; i++)
		n += 6 * strlen(t->reply[i]) + 4;
	return n;
}

int mk_eve_ftp_object(char *buf, size_t size, const void *facts)
{
	const struct mk_ftp_tx *t = facts;
	struct ebuf o = { .p = buf, .end = buf + size };
	uint32_t i;

	EB_LIT(&o, "\"ftp\":{");
	if (t->command[0]) {
		EB_LIT(&o, "\"command\":\"");
		eb_json(&o, (const uint8_t *)t->command, strlen(t->command));
		EB_LIT(&o, "\",");
	}
	if (t->command_data) {
		EB_LIT(&o, "\"command_data\":\"");
		eb_json(&o, (const uint8_t *)t->command_data, strlen(t->command_data));
		EB_LIT(&o, "\",");
	}
	if (t->nreply) {
		EB_LIT(&o, "\"reply\":[");
		for (i = 0; i < t->nreply; i++) {
			if (i)
				EB_LIT(&o, ",");
			EB_LIT(&o, "\"");
			eb_json(&o, (const uint8_t *)t->reply[i], strlen(t->reply[i]));
			EB_LIT(&o, "\"");
		}
		EB_LIT(&o, "],");
	}
	if (t->ncode) {
		EB_LIT(&o, "\"completion_code\":[");
		for (i = 0; i < t->ncode; i++) {
			if (i)
				EB_LIT(&o, ",");
			EB_LIT(&o, "\"");
			eb_str(&o, t->code[i]);
			EB_LIT(&o, "\"");
		}
		EB_LIT(&o, "],");
	}
	if (t->dynamic_port) {
		EB_LIT(&o, "\"dynamic_port\":");
		eb_u64(&o, t->dynamic_port);
		EB_LIT(&o, ",");
	}
	if (t->mode == MK_FTP_MODE_PASSIVE)
		EB_LIT(&o, "\"mode\":\"passive\",");
	else if (t->mode == MK_FTP_MODE_ACTIVE)
		EB_LIT(&o, "\"mode\":\"active\",");
	if (t->reply_received)
		EB_LIT(&o, "\"reply_received\":\"yes\"}");
	else
		EB_LIT(&o, "\"reply_received\":\"no\"}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}

int mk_eve_ftp_data_object(char *buf, size_t size, const void *facts)
{
	const struct mk_ftp_data_info *d = facts;
	struct ebuf o = { .p = buf, .end = buf + size };

	_Static_assert(MK_EVE_FTP_DATA_MAXLEN >= 6 * MK_FTP_FILE_MAX + 64, "room for the name");
	EB_LIT(&o, "\"ftp_data\":{");
	if (d->file[0]) {
		EB_LIT(&o, "\"filename\":\"");
		eb_json(&o, (const uint8_t *)d->file, strlen(d->file));
		EB_LIT(&o, "\"");
		if (d->command[0])
			EB_LIT(&o, ",");
	}
	if (d->command[0]) {
		EB_LIT(&o, "\"command\":\"");
		eb_str(&o, d->command);
		EB_LIT(&o, "\"");
	}
	EB_LIT(&o, "}");
	return o.overflow ? -ENOSPC : (int)(o.p - buf);
}
