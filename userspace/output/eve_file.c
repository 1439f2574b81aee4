// SPDX-License-Identifier: GPL-2.0-only
/*
 * EVE `fileinfo` records (eve_file.h), in Suricata's order: the head (told
 * from the file's direction), the transaction's `http` object (none for an
 * SMTP attachment), app_proto,
 * then fileinfo: filename, sid, gaps, state, md5, sha1, sha256, stored,
 * size, tx_id. Files are never stored: stored is false, sid empty.
 */
#include <errno.h>
#include <string.h>
#include "ebuf.h"
#include "eve_file.h"

size_t mk_eve_fileinfo_maxlen(const struct mk_eve_http *h, const struct mk_eve_fileinfo *file)
{
	return (h ? mk_eve_http_maxlen(h) : 0) + 6 * (size_t)file->filename.len + MK_EVE_LINE_MAX +
	       512;
}

static void put_hash(struct ebuf *o, const char *name, const char *hex)
{
	if (!hex[0])
		return;
	EB_LIT(o, ",\"");
	eb_str(o, name);
	EB_LIT(o, "\":\"");
	eb_str(o, hex);
	EB_LIT(o, "\"");
}

int mk_eve_fileinfo(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		    uint64_t ts_us, const struct mk_eve_http *h, const struct mk_eve_fileinfo *file)
{
	struct mk_flow dir = *f;
	struct ebuf o;
	int n, m;

	if (!size)
		return -ENOSPC;
	size--; /* the terminating NUL */
	/* src is the file's sender: the server for a response body */
	if (file->to_client)
		dir.client_hi = !f->client_hi;
	n = mk_eve_head(buf, size, cfg, &dir, ts_us, "fileinfo");
	if (n < 0)
		return n;
	o = (struct ebuf){ .p = buf + n, .end = buf + size };
	if (h) {
		EB_LIT(&o, ",");
		if (o.overflow)
			return -ENOSPC;
		m = mk_eve_http_object(o.p, (size_t)(o.end - o.p), h);
		if (m < 0)
			return m;
		o.p += m;
	}
	EB_LIT(&o, ",\"app_proto\":\"");
	eb_str(&o, file->app_proto ? file->app_proto : "http");
	EB_LIT(&o, "\",\"fileinfo\":{\"filename\":\"");
	if (file->filename.p)
		eb_json(&o, file->filename.p, file->filename.len);
	EB_LIT(&o, "\",\"sid\":[],\"gaps\":");
	if (file->gaps)
		EB_LIT(&o, "true");
	else
		EB_LIT(&o, "false");
	if (file->state == MK_EVE_FILE_CLOSED)
		EB_LIT(&o, ",\"state\":\"CLOSED\"");
	else
		EB_LIT(&o, ",\"state\":\"TRUNCATED\"");
	put_hash(&o, "md5", file->md5);
	put_hash(&o, "sha1", file->sha1);
	put_hash(&o, "sha256", file->sha256);
	EB_LIT(&o, ",\"stored\":false,\"size\":");
	eb_u64(&o, file->size);
	EB_LIT(&o, ",\"tx_id\":");
	eb_u64(&o, file->tx_id);
	EB_LIT(&o, "}}");
	if (o.overflow)
		return -ENOSPC;
	*o.p = '\0';
	return (int)(o.p - buf);
}
