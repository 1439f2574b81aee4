/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named buffers: what a rule's payload keywords (content, pcre, isdataat,
 * byte_test/jump/extract) read.
 *
 * A rule keeps one keyword list per buffer (struct mk_rule bufs[], indexed
 * by enum mk_buf_id) and a mask of the buffers it uses. Keywords join the
 * list of the rule's current buffer (rb->cur_buf, MK_BUF_PAYLOAD at the
 * start); a sticky-buffer keyword (http.uri, ...) only switches it. At run
 * time the matcher walks the buffers the rule uses, fetches each through
 * its getter (mk_buf_getters[]) and inspects that buffer with that list;
 * every list must match. A new buffer (an application layer's http.uri) is
 * an id in MK_BUFFERS, a getter and the keyword that selects it; the
 * matcher does not change.
 *
 * payload is the packet's payload or, on stream data, the reassembled
 * window; the prefilter indexes it. The HTTP buffers are read from one
 * HTTP transaction (applayer/http/http_detect.c): a rule using them is
 * inspected per transaction, never on packets or stream windows, and @side
 * says which part of the transaction the buffer needs (MK_BUF_SIDE_*).
 */
#ifndef MK_DETECT_BUF_H
#define MK_DETECT_BUF_H

#include <stdint.h>

/* What of a transaction a buffer needs before a rule reading it is inspected. */
#define MK_BUF_SIDE_REQ 0x1	  /* request line and headers */
#define MK_BUF_SIDE_REQ_BODY 0x2  /* the whole request (its body) */
#define MK_BUF_SIDE_RESP 0x4	  /* response line and headers */
#define MK_BUF_SIDE_RESP_BODY 0x8 /* the whole response (its body) */
/*
 * The other side in a rule of the other direction: http.header and its
 * kin read the response's headers in a flow:to_client rule, file.data reads
 * the request body in a flow:to_server rule (as Suricata's).
 */
#define MK_BUF_SIDE_FLIP 0x10

/* X(id, name, side): every buffer; side 0: not a transaction's. */
#define MK_BUFFERS(X)                                                                 \
	X(PAYLOAD, "payload", 0)                                                      \
	X(HTTP_URI, "http.uri", MK_BUF_SIDE_REQ)                                      \
	X(HTTP_URI_RAW, "http.uri.raw", MK_BUF_SIDE_REQ)                              \
	X(HTTP_METHOD, "http.method", MK_BUF_SIDE_REQ)                                \
	X(HTTP_PROTOCOL, "http.protocol", MK_BUF_SIDE_REQ)                            \
	X(HTTP_REQUEST_LINE, "http.request_line", MK_BUF_SIDE_REQ)                    \
	X(HTTP_START, "http.start", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP)               \
	X(HTTP_HOST, "http.host", MK_BUF_SIDE_REQ)                                    \
	X(HTTP_HOST_RAW, "http.host.raw", MK_BUF_SIDE_REQ)                            \
	X(HTTP_USER_AGENT, "http.user_agent", MK_BUF_SIDE_REQ)                        \
	X(HTTP_HEADER, "http.header", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP)             \
	X(HTTP_HEADER_RAW, "http.header.raw", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP)     \
	X(HTTP_HEADER_NAMES, "http.header_names", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP) \
	X(HTTP_COOKIE, "http.cookie", MK_BUF_SIDE_REQ)                                \
	X(HTTP_REFERER, "http.referer", MK_BUF_SIDE_REQ)                              \
	X(HTTP_ACCEPT, "http.accept", MK_BUF_SIDE_REQ)                                \
	X(HTTP_ACCEPT_ENC, "http.accept_enc", MK_BUF_SIDE_REQ)                        \
	X(HTTP_ACCEPT_LANG, "http.accept_lang", MK_BUF_SIDE_REQ)                      \
	X(HTTP_CONNECTION, "http.connection", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP)     \
	X(HTTP_CONTENT_TYPE, "http.content_type", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP) \
	X(HTTP_CONTENT_LEN, "http.content_len", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP)   \
	X(HTTP_REQUEST_BODY, "http.request_body", MK_BUF_SIDE_REQ_BODY)               \
	X(HTTP_STAT_CODE, "http.stat_code", MK_BUF_SIDE_RESP)                         \
	X(HTTP_STAT_MSG, "http.stat_msg", MK_BUF_SIDE_RESP)                           \
	X(HTTP_RESPONSE_LINE, "http.response_line", MK_BUF_SIDE_RESP)                 \
	X(HTTP_SERVER, "http.server", MK_BUF_SIDE_RESP)                               \
	X(HTTP_LOCATION, "http.location", MK_BUF_SIDE_RESP)                           \
	X(HTTP_RESPONSE_BODY, "http.response_body", MK_BUF_SIDE_RESP_BODY)            \
	X(FILE_DATA, "file.data", MK_BUF_SIDE_RESP_BODY | MK_BUF_SIDE_FLIP)

#define MK_BUF_ENUM(id, name, side) MK_BUF_##id,
enum mk_buf_id { MK_BUFFERS(MK_BUF_ENUM) MK_BUF_COUNT };
#undef MK_BUF_ENUM

_Static_assert(MK_BUF_COUNT <= 32, "a rule's buffer mask is 32 bits");

struct mk_sm;
struct mk_match_ctx;

/* A rule's keywords for one buffer, in rule order. */
struct mk_sm_list {
	struct mk_sm *sm;
	uint32_t n, cap;
};

/* A buffer as a getter hands it over. */
struct mk_buf {
	const uint8_t *data;
	uint32_t len;
	uint32_t min_end;  /* a match must end after this offset (stream windows); 0: none */
	uint64_t abs_base; /* stream offset of data[0]; 0 for packets */
};

/* Fills @out with the buffer for @mc; 0 when the packet or stream has none. */
typedef int (*mk_buf_get_fn)(const struct mk_match_ctx *mc, struct mk_buf *out);

extern const mk_buf_get_fn mk_buf_getters[MK_BUF_COUNT];
extern const char *const mk_buf_names[MK_BUF_COUNT];
extern const uint8_t mk_buf_sides[MK_BUF_COUNT];

/* The buffers a transaction rule may read: every one but payload. */
#define MK_BUF_APP_MASK (~(uint32_t)(1u << MK_BUF_PAYLOAD) & ((1u << MK_BUF_COUNT) - 1))

#endif /* MK_DETECT_BUF_H */
