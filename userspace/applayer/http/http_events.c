// SPDX-License-Identifier: GPL-2.0-only
/*
 * HTTP app-layer events (http.h: MK_HTTP_EVENTS): what libhtp says of a
 * transaction, as Suricata names it where Suricata has a name. Two
 * sources: libhtp's log messages (matched by their fixed text; libhtp
 * 0.5 gives them no code nor transaction, http.c attributes them) and
 * the transaction's flags, read when a rule asks.
 */
#include <string.h>
#include "http_int.h"

#define EV_NAME(id, name, side) [MK_HTTP_EV_##id] = name,
static const char *const ev_names[MK_HTTP_EV_MAX] = { MK_HTTP_EVENTS(EV_NAME) };
#undef EV_NAME
#define EV_SIDE(id, name, side) [MK_HTTP_EV_##id] = side,
static const uint8_t ev_sides[MK_HTTP_EV_MAX] = { MK_HTTP_EVENTS(EV_SIDE) };
#undef EV_SIDE

int mk_http_event_lookup(const char *name, uint8_t *side)
{
	unsigned int i;

	for (i = 0; i < MK_HTTP_EV_MAX; i++)
		if (!strcmp(ev_names[i], name)) {
			*side = ev_sides[i];
			return (int)i;
		}
	return -1;
}

const char *mk_http_event_name(unsigned int id)
{
	return id < MK_HTTP_EV_MAX ? ev_names[id] : NULL;
}

/* libhtp's messages: a prefix, the event, the direction it is about (-1: the one parsing). */
static const struct {
	const char *prefix;
	uint8_t ev;
	int8_t dir;
} messages[] = {
	{ "Request chunk encoding: Invalid chunk length", MK_HTTP_EV_REQ_CHUNK_LEN, 0 },
	{ "Response chunk encoding: Invalid chunk length", MK_HTTP_EV_RESP_CHUNK_LEN, 1 },
	{ "Request field invalid: colon missing", MK_HTTP_EV_REQ_MISSING_COLON, 0 },
	{ "Response field invalid: missing colon", MK_HTTP_EV_RESP_MISSING_COLON, 1 },
	{ "Request field invalid", MK_HTTP_EV_REQ_HEADER_INVALID, 0 },
	{ "Response field invalid", MK_HTTP_EV_RESP_HEADER_INVALID, 1 },
	{ "Request header name is not a token", MK_HTTP_EV_REQ_HEADER_INVALID, 0 },
	{ "Response header name is not a token", MK_HTTP_EV_RESP_HEADER_INVALID, 1 },
	{ "Response header value contains null", MK_HTTP_EV_RESP_HEADER_INVALID, 1 },
	{ "Invalid request field folding", MK_HTTP_EV_REQ_FOLDING, 0 },
	{ "Invalid response field folding", MK_HTTP_EV_RESP_FOLDING, 1 },
	{ "Request field length exceeds folded maximum", MK_HTTP_EV_REQ_FIELD_LONG, 0 },
	{ "Request buffer over the limit", MK_HTTP_EV_REQ_FIELD_LONG, 0 },
	{ "Response field length exceeds folded maximum", MK_HTTP_EV_RESP_FIELD_LONG, 1 },
	{ "Response the buffer limit", MK_HTTP_EV_RESP_FIELD_LONG, 1 },
	{ "Too many request headers", MK_HTTP_EV_REQ_TOO_MANY_HEADERS, 0 },
	{ "Too many response headers", MK_HTTP_EV_RESP_TOO_MANY_HEADERS, 1 },
	{ "Ambiguous request C-L value", MK_HTTP_EV_DUP_CL_REQ, 0 },
	{ "Ambiguous response C-L value", MK_HTTP_EV_DUP_CL_RESP, 1 },
	{ "Invalid C-L field in response", MK_HTTP_EV_INVALID_CL_RESP, 1 },
	{ "Request line: leading whitespace", MK_HTTP_EV_REQ_LINE_LEADING_WS, 0 },
	{ "Request line: URI contains non-compliant delimiter", MK_HTTP_EV_URI_DELIM, 0 },
	{ "Request line: non-compliant delimiter between Method and URI", MK_HTTP_EV_METHOD_DELIM,
	  0 },
	{ "Request line: missing protocol", MK_HTTP_EV_REQ_LINE_NO_PROTOCOL, 0 },
	{ "Request line: unknown method", MK_HTTP_EV_REQ_LINE_INVALID, 0 },
	{ "Request line incomplete", MK_HTTP_EV_REQ_LINE_INCOMPLETE, 0 },
	{ "Unexpected request body", MK_HTTP_EV_REQ_BODY_UNEXPECTED, 0 },
	{ "Invalid response line: invalid protocol", MK_HTTP_EV_RESP_INVALID_PROTOCOL, 1 },
	{ "Invalid response line: invalid response status", MK_HTTP_EV_RESP_INVALID_STATUS, 1 },
	{ "Chunked transfer-encoding on HTTP/0.9 or HTTP/1.0", MK_HTTP_EV_CHUNKED_OLD_PROTO, 1 },
	{ "Transfer-encoding has abnormal chunked value", MK_HTTP_EV_ABNORMAL_TE, 1 },
	{ "Unable to match response to request", MK_HTTP_EV_UNMATCHED_RESPONSE, 1 },
	{ "Too many response content encoding layers", MK_HTTP_EV_TOO_MANY_LAYERS, 1 },
	{ "Compression bomb", MK_HTTP_EV_COMPRESSION_BOMB, -1 },
	{ "LZMA decompressor: memory limit reached", MK_HTTP_EV_LZMA_MEMLIMIT, 1 },
	{ "Repetition for header", MK_HTTP_EV_REQ_HEADER_REPEAT, -1 },
};

int mk_http_event_of_message(const char *msg, int *dir)
{
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(messages); i++)
		if (!strncmp(msg, messages[i].prefix, strlen(messages[i].prefix))) {
			*dir = messages[i].dir;
			return messages[i].ev;
		}
	return -1;
}

/* The transaction's flags libhtp sets without a message. */
static const struct {
	uint64_t flag;
	uint8_t ev;
} flags[] = {
	{ HTP_REQUEST_SMUGGLING, MK_HTTP_EV_REQUEST_SMUGGLING },
	{ HTP_REQUEST_INVALID_T_E, MK_HTTP_EV_INVALID_TE_REQ },
	{ HTP_REQUEST_INVALID_C_L, MK_HTTP_EV_INVALID_CL_REQ },
	{ HTP_HOST_MISSING, MK_HTTP_EV_MISSING_HOST },
	{ HTP_HOST_AMBIGUOUS, MK_HTTP_EV_HOST_AMBIGUOUS },
	{ HTP_HOSTU_INVALID, MK_HTTP_EV_URI_HOST_INVALID },
	{ HTP_HOSTH_INVALID, MK_HTTP_EV_HEADER_HOST_INVALID },
	{ HTP_HEADERS_TOO_MANY, MK_HTTP_EV_REQ_TOO_MANY_HEADERS },
};

uint64_t mk_http_tx_events(const void *txp)
{
	const struct mk_http_tx *t = txp;
	uint64_t ev = t->events;
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(flags); i++)
		if (t->htx->flags & flags[i].flag)
			ev |= 1ull << flags[i].ev;
	return ev;
}
