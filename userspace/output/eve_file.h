/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE `fileinfo` records (docs/eve.md): a file the application layer saw
 * go by (an HTTP body), with its transaction's `http` object, as Suricata
 * writes them. The record is told from the file's direction: for a
 * downloaded file src_ip is the server.
 */
#ifndef MK_EVE_FILE_H
#define MK_EVE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "eve_http.h"
#include "flow.h"

enum mk_eve_fileinfo_state {
	MK_EVE_FILE_CLOSED = 0, /* the body ended where its framing said */
	MK_EVE_FILE_TRUNCATED,	/* the flow or its parsing ended first, or a gap hid bytes */
};

struct mk_eve_fileinfo {
	const char *app_proto;	    /* NULL: "http" (with the http object); "smtp": without */
	struct mk_eve_str filename; /* the URI path or Content-Disposition's filename */
	uint64_t tx_id;
	uint64_t size;	   /* bytes of the file (dechunked, decompressed) */
	uint8_t to_client; /* a response body (1) or a request body (0) */
	uint8_t state;	   /* enum mk_eve_fileinfo_state */
	uint8_t gaps;	   /* bytes of it were never seen */
	/* lowercase hex digests, "" when not computed */
	char md5[33], sha1[41], sha256[65];
};

/* A buffer size that always holds mk_eve_fileinfo() of @h (NULL: none) and @file. */
size_t mk_eve_fileinfo_maxlen(const struct mk_eve_http *h, const struct mk_eve_fileinfo *file);
/* The whole `fileinfo` event of @file of flow @f; its length, or -ENOSPC. */
int mk_eve_fileinfo(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		    uint64_t ts_us, const struct mk_eve_http *h,
		    const struct mk_eve_fileinfo *file);

#endif /* MK_EVE_FILE_H */
