/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the HTTP folder: a flow's parser state and our side of each
 * libhtp transaction, shared by the glue (http.c) and the detection
 * buffers (http_detect.c).
 */
#ifndef MK_HTTP_INT_H
#define MK_HTTP_INT_H

#include <stdint.h>
#include <htp/htp.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include "detect.h"
#include "detect_buf.h"
#include "eve_http.h"
#include "http.h"

struct mk_http_body {
	uint8_t *buf;
	uint32_t len, cap;
	uint8_t cut;	    /* the limit was reached */
	uint8_t ready;	    /* enough new bytes for a progressive inspection */
	uint32_t inspected; /* bytes when it was last inspected progressively */
};

/* A body seen as a file (fileinfo): its size and digests, over every byte (no limit). */
struct mk_http_file {
	struct md5_ctx md5;
	struct sha1_ctx sha1;
	struct sha256_ctx sha256;
	uint64_t size;
	uint8_t gaps;	/* bytes of it were lost */
	uint8_t hashes; /* MK_APP_HASH_* computed over it: none unless fileinfo is logged */
};

struct mk_http_tx {
	htp_tx_t *htx;
	struct mk_http_flow *flow;
	uint64_t id;
	uint64_t mem;	  /* bytes counted for it */
	uint8_t progress; /* MK_BUF_SIDE_* last handed to detection */
	uint8_t logged;	  /* handed to the EVE writer */
	uint64_t logged_epoch;
	struct mk_http_body body[2]; /* [0] request, [1] response (decompressed) */
	/* buffers built for detection, by id and side ([1]: the response's) */
	uint8_t *cache[MK_BUF_COUNT][2];
	uint32_t cache_len[MK_BUF_COUNT][2];
	uint8_t cached[MK_BUF_COUNT][2];
	struct mk_detect_tx_state dstate;
	struct mk_http_file *file[2]; /* [0] request (PUT), [1] response; NULL: none */
	uint8_t unfinished[2];
	uint64_t events;
	/* from libhtp's messages, one bit per enum mk_http_event */ /* the side was incomplete when the flow ended */
};

struct mk_http_flow {
	struct mk_app_thread *a;
	struct mk_flow *flow;
	htp_connp_t *connp;
	uint64_t mem;
	size_t first; /* transactions before this index are freed */
	uint32_t live;
	uint8_t stopped;
	int stop_reason;  /* a limit hit inside a callback: enum mk_app_counter, 0 none */
	uint8_t *pend[2]; /* bytes libhtp did not take yet, per direction */
	uint32_t pend_len[2];
	/* after a gap between messages: bytes dropped so far looking for the next one */
	uint8_t resync[2];
	uint32_t resync_skipped[2];
};

/* The event libhtp's message @msg reports, its direction in *dir (-1: either); -1: none. */
int mk_http_event_of_message(const char *msg, int *dir);

#endif /* MK_HTTP_INT_H */
