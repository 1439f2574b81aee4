/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * HTTP/1.x through libhtp (docs/applayer.md): one connection parser per
 * flow; requests and responses matched into transactions (keep-alive,
 * pipelining, 100-continue), bodies dechunked and, for responses,
 * decompressed (gzip, deflate) by libhtp; CONNECT and upgrades stop the
 * parsing. Transactions are handed over as they progress (detection) and
 * when finished (EVE), then freed.
 */
#ifndef MK_HTTP_H
#define MK_HTTP_H

#include <stdint.h>
#include "applayer_int.h"
#include "detect_buf.h"

struct mk_eve_http;

/* The to-server bytes start like a request (1), cannot (0), or need more bytes (-1). */
int mk_http_probe_request(const uint8_t *p, uint32_t len);
/* The to-client bytes start like a response ("HTTP/"): 1, 0 or -1. */
int mk_http_probe_response(const uint8_t *p, uint32_t len);

int mk_http_thread_new(struct mk_app_thread *a);
void mk_http_thread_free(struct mk_app_thread *a);

/* NULL when out of memory or over the memcap (counted). */
struct mk_http_flow *mk_http_flow_new(struct mk_app_thread *a, struct mk_flow *f);
/* @gap: bytes lost just before @data (docs/applayer.md: parsing resumes when it is safe). */
void mk_http_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_http_flow *h, int to_client,
		  const uint8_t *data, uint32_t len, uint64_t gap, uint64_t ts_us);
void mk_http_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_http_flow *h,
		      uint64_t ts_us);
void mk_http_flow_free(struct mk_app_thread *a, struct mk_http_flow *h);

/*
 * HTTP app-layer events (app-layer-event:http.NAME; docs/rules.md): libhtp's
 * anomalies of a transaction, from its messages and its flags. E(id, name,
 * side): side is the part (MK_BUF_SIDE_*) after which the event is known (E,
 * not X: the counter check reads X lists as counters).
 */
#define MK_HTTP_EVENTS(E)                                                                \
	E(REQUEST_SMUGGLING, "request_smuggling", MK_BUF_SIDE_REQ)                       \
	E(INVALID_TE_REQ, "invalid_transfer_encoding_value_in_request", MK_BUF_SIDE_REQ) \
	E(INVALID_CL_REQ, "invalid_content_length_field_in_request", MK_BUF_SIDE_REQ)    \
	E(DUP_CL_REQ, "duplicate_content_length_field_in_request", MK_BUF_SIDE_REQ)      \
	E(MISSING_HOST, "missing_host_header", MK_BUF_SIDE_REQ)                          \
	E(HOST_AMBIGUOUS, "host_header_ambiguous", MK_BUF_SIDE_REQ)                      \
	E(URI_HOST_INVALID, "request_uri_host_invalid", MK_BUF_SIDE_REQ)                 \
	E(HEADER_HOST_INVALID, "request_header_host_invalid", MK_BUF_SIDE_REQ)           \
	E(REQ_LINE_INVALID, "request_line_invalid", MK_BUF_SIDE_REQ)                     \
	E(REQ_LINE_INCOMPLETE, "request_line_incomplete", MK_BUF_SIDE_REQ)               \
	E(REQ_LINE_LEADING_WS, "request_line_leading_whitespace", MK_BUF_SIDE_REQ)       \
	E(REQ_LINE_NO_PROTOCOL, "request_line_missing_protocol", MK_BUF_SIDE_REQ)        \
	E(URI_DELIM, "uri_delim_non_compliant", MK_BUF_SIDE_REQ)                         \
	E(METHOD_DELIM, "method_delim_non_compliant", MK_BUF_SIDE_REQ)                   \
	E(REQ_MISSING_COLON, "request_field_missing_colon", MK_BUF_SIDE_REQ)             \
	E(REQ_HEADER_INVALID, "request_header_invalid", MK_BUF_SIDE_REQ)                 \
	E(REQ_FOLDING, "invalid_request_field_folding", MK_BUF_SIDE_REQ)                 \
	E(REQ_FIELD_LONG, "request_field_too_long", MK_BUF_SIDE_REQ)                     \
	E(REQ_TOO_MANY_HEADERS, "request_too_many_headers", MK_BUF_SIDE_REQ)             \
	E(REQ_HEADER_REPEAT, "request_header_repetition", MK_BUF_SIDE_REQ)               \
	E(REQ_CHUNK_LEN, "invalid_request_chunk_len", MK_BUF_SIDE_REQ_BODY)              \
	E(REQ_BODY_UNEXPECTED, "request_body_unexpected", MK_BUF_SIDE_REQ_BODY)          \
	E(RESP_INVALID_PROTOCOL, "response_invalid_protocol", MK_BUF_SIDE_RESP)          \
	E(RESP_INVALID_STATUS, "response_invalid_status", MK_BUF_SIDE_RESP)              \
	E(RESP_MISSING_COLON, "response_field_missing_colon", MK_BUF_SIDE_RESP)          \
	E(RESP_HEADER_INVALID, "response_header_invalid", MK_BUF_SIDE_RESP)              \
	E(RESP_FOLDING, "invalid_response_field_folding", MK_BUF_SIDE_RESP)              \
	E(RESP_FIELD_LONG, "response_field_too_long", MK_BUF_SIDE_RESP)                  \
	E(RESP_TOO_MANY_HEADERS, "response_too_many_headers", MK_BUF_SIDE_RESP)          \
	E(RESP_HEADER_REPEAT, "response_header_repetition", MK_BUF_SIDE_RESP)            \
	E(DUP_CL_RESP, "duplicate_content_length_field_in_response", MK_BUF_SIDE_RESP)   \
	E(INVALID_CL_RESP, "invalid_content_length_field_in_response", MK_BUF_SIDE_RESP) \
	E(CHUNKED_OLD_PROTO, "response_chunked_old_proto", MK_BUF_SIDE_RESP)             \
	E(ABNORMAL_TE, "response_abnormal_transfer_encoding", MK_BUF_SIDE_RESP)          \
	E(UNMATCHED_RESPONSE, "unable_to_match_response_to_request", MK_BUF_SIDE_RESP)   \
	E(RESP_CHUNK_LEN, "invalid_response_chunk_len", MK_BUF_SIDE_RESP_BODY)           \
	E(TOO_MANY_LAYERS, "too_many_encoding_layers", MK_BUF_SIDE_RESP_BODY)            \
	E(COMPRESSION_BOMB, "compression_bomb", MK_BUF_SIDE_RESP_BODY)                   \
	E(LZMA_MEMLIMIT, "lzma_memlimit_reached", MK_BUF_SIDE_RESP_BODY)

#define MK_HTTP_EV_ENUM(id, name, side) MK_HTTP_EV_##id,
enum mk_http_event { MK_HTTP_EVENTS(MK_HTTP_EV_ENUM) MK_HTTP_EV_MAX };
#undef MK_HTTP_EV_ENUM

/* The event named @name (without "http."), its side in *side; -1 when there is none. */
int mk_http_event_lookup(const char *name, uint8_t *side);
const char *mk_http_event_name(unsigned int id);
/* The events of transaction @tx, one bit per enum mk_http_event. */
uint64_t mk_http_tx_events(const void *tx);

/* Detection's buffer @id (enum mk_buf_id) of transaction @tx; 0 when it has none. */
int mk_http_tx_buffer(const void *tx, unsigned int id, int to_client, const uint8_t **data,
		      uint32_t *len);
/* The EVE facts of transaction @tx. */
void mk_http_tx_eve(const void *tx, struct mk_eve_http *out);
/* urilen: the length of the normalized (or @raw) URI of @tx; -1 when there is none. */
int64_t mk_http_tx_urilen(const void *tx, int raw);

#endif /* MK_HTTP_H */
