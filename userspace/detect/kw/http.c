// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP keywords: sticky buffers (http.uri, ... file.data: the payload
 * keywords after them read that buffer of a transaction), the legacy
 * content modifiers (http_uri, ...: move the content before them into the
 * buffer), uricontent and urilen. The buffers are detect_buf.h's; their
 * getters are the HTTP folder's (applayer/http/http_detect.c). A rule that
 * uses one is inspected on HTTP transactions (rule_parse.c decides which
 * side it waits for).
 */
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect_int.h"
#include "http.h"

/* Keyword name -> buffer: sticky buffers (and their legacy spellings) and modifiers. */
static const struct {
	const char *name;
	uint8_t buf;
} kw_bufs[] = {
	{ "http.uri", MK_BUF_HTTP_URI },
	{ "http.uri.raw", MK_BUF_HTTP_URI_RAW },
	{ "http.method", MK_BUF_HTTP_METHOD },
	{ "http.protocol", MK_BUF_HTTP_PROTOCOL },
	{ "http_protocol", MK_BUF_HTTP_PROTOCOL },
	{ "http.request_line", MK_BUF_HTTP_REQUEST_LINE },
	{ "http_request_line", MK_BUF_HTTP_REQUEST_LINE },
	{ "http.start", MK_BUF_HTTP_START },
	{ "http_start", MK_BUF_HTTP_START },
	{ "http.host", MK_BUF_HTTP_HOST },
	{ "http.host.raw", MK_BUF_HTTP_HOST_RAW },
	{ "http.user_agent", MK_BUF_HTTP_USER_AGENT },
	{ "http.header", MK_BUF_HTTP_HEADER },
	{ "http.header.raw", MK_BUF_HTTP_HEADER_RAW },
	{ "http.header_names", MK_BUF_HTTP_HEADER_NAMES },
	{ "http_header_names", MK_BUF_HTTP_HEADER_NAMES },
	{ "http.cookie", MK_BUF_HTTP_COOKIE },
	{ "http.referer", MK_BUF_HTTP_REFERER },
	{ "http_referer", MK_BUF_HTTP_REFERER },
	{ "http.accept", MK_BUF_HTTP_ACCEPT },
	{ "http_accept", MK_BUF_HTTP_ACCEPT },
	{ "http.accept_enc", MK_BUF_HTTP_ACCEPT_ENC },
	{ "http_accept_enc", MK_BUF_HTTP_ACCEPT_ENC },
	{ "http.accept_lang", MK_BUF_HTTP_ACCEPT_LANG },
	{ "http_accept_lang", MK_BUF_HTTP_ACCEPT_LANG },
	{ "http.connection", MK_BUF_HTTP_CONNECTION },
	{ "http_connection", MK_BUF_HTTP_CONNECTION },
	{ "http.content_type", MK_BUF_HTTP_CONTENT_TYPE },
	{ "http_content_type", MK_BUF_HTTP_CONTENT_TYPE },
	{ "http.content_len", MK_BUF_HTTP_CONTENT_LEN },
	{ "http_content_len", MK_BUF_HTTP_CONTENT_LEN },
	{ "http.request_body", MK_BUF_HTTP_REQUEST_BODY },
	{ "http.stat_code", MK_BUF_HTTP_STAT_CODE },
	{ "http.stat_msg", MK_BUF_HTTP_STAT_MSG },
	{ "http.response_line", MK_BUF_HTTP_RESPONSE_LINE },
	{ "http_response_line", MK_BUF_HTTP_RESPONSE_LINE },
	{ "http.server", MK_BUF_HTTP_SERVER },
	{ "http.location", MK_BUF_HTTP_LOCATION },
	{ "http.response_body", MK_BUF_HTTP_RESPONSE_BODY },
	{ "file.data", MK_BUF_FILE_DATA },
	{ "file_data", MK_BUF_FILE_DATA },
	/* legacy content modifiers */
	{ "http_uri", MK_BUF_HTTP_URI },
	{ "http_raw_uri", MK_BUF_HTTP_URI_RAW },
	{ "http_method", MK_BUF_HTTP_METHOD },
	{ "http_header", MK_BUF_HTTP_HEADER },
	{ "http_raw_header", MK_BUF_HTTP_HEADER_RAW },
	{ "http_cookie", MK_BUF_HTTP_COOKIE },
	{ "http_user_agent", MK_BUF_HTTP_USER_AGENT },
	{ "http_host", MK_BUF_HTTP_HOST },
	{ "http_raw_host", MK_BUF_HTTP_HOST_RAW },
	{ "http_client_body", MK_BUF_HTTP_REQUEST_BODY },
	{ "http_server_body", MK_BUF_HTTP_RESPONSE_BODY },
	{ "http_stat_code", MK_BUF_HTTP_STAT_CODE },
	{ "http_stat_msg", MK_BUF_HTTP_STAT_MSG },
};

static int kw_buf(const struct mk_rule_build *rb)
{
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(kw_bufs); i++)
		if (!strcmp(kw_bufs[i].name, rb->cur_kw->name))
			return kw_bufs[i].buf;
	return -1;
}

int mk_kw_http_rule(struct mk_rule_build *rb)
{
	return mk_kw_app_rule(rb, MK_APP_HTTP);
}

/* A legacy modifier: the content just before it moves into the buffer. */
static int setup_modifier(struct mk_rule_build *rb, const char *value)
{
	struct mk_rule *r = rb->r;
	struct mk_content *c = rb->last_content;
	int id = kw_buf(rb);
	uint32_t b, i;

	(void)value;
	if (id < 0 || mk_kw_http_rule(rb))
		return -1;
	if (!c)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs a preceding content");
	if (r->xf && r->xf[id] && rb->cur_buf != id)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "%s has transforms in this rule: use the sticky buffer",
				    mk_buf_names[id]);
	for (b = 0; b < MK_BUF_COUNT; b++) {
		struct mk_sm_list *l = &r->bufs[b];

		for (i = 0; i < l->n; i++) {
			uint8_t save;

			if (l->sm[i].ctx != c)
				continue;
			if (b == (uint32_t)id)
				return 0; /* already there (a sticky buffer before it) */
			if (b != MK_BUF_PAYLOAD)
				return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
						    "the content is already in buffer %s",
						    mk_buf_names[b]);
			memmove(&l->sm[i], &l->sm[i + 1], (l->n - i - 1) * sizeof(*l->sm));
			l->n--;
			if (!l->n)
				r->buf_mask &= ~MK_BUF_BIT(b);
			save = rb->cur_buf;
			rb->cur_buf = (uint8_t)id;
			if (mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_content, c)) {
				rb->cur_buf = save;
				return -1;
			}
			rb->cur_buf = save;
			return 0;
		}
	}
	return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs a preceding content");
}

/* uricontent:"...": a content in http.uri. */
static int setup_uricontent(struct mk_rule_build *rb, const char *value)
{
	uint8_t save = rb->cur_buf;
	int err;

	if (mk_kw_http_rule(rb))
		return -1;
	rb->cur_buf = MK_BUF_HTTP_URI;
	err = mk_kw_content.setup(rb, value);
	rb->cur_buf = save;
	return err;
}

struct urilen {
	struct mk_uint u;
	uint8_t raw;
};

/* urilen:N|<N|>N|N<>M[,norm|,raw]: the URI's length. */
static int setup_urilen(struct mk_rule_build *rb, const char *value)
{
	struct urilen *ul = calloc(1, sizeof(*ul));
	char *v = strdup(value), *comma;

	if (!ul || !v) {
		free(ul);
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	comma = strchr(v, ',');
	if (comma) {
		*comma = '\0';
		if (!strcmp(mk_strtrim(comma + 1), "raw"))
			ul->raw = 1;
		else if (strcmp(mk_strtrim(comma + 1), "norm")) {
			free(ul);
			free(v);
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "expected norm or raw after ','");
		}
	}
	if (mk_uint_parse(mk_strtrim(v), 65535, &ul->u)) {
		free(ul);
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not a length", value);
	}
	free(v);
	if (mk_kw_http_rule(rb)) {
		free(ul);
		return -1;
	}
	rb->r->app_need |= MK_BUF_SIDE_REQ;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_urilen, ul);
}

static int match_urilen(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct urilen *ul = sm->ctx;
	int64_t n;

	if (!mc->app_tx || mc->app_proto != MK_APP_HTTP)
		return 0;
	n = mk_http_tx_urilen(mc->app_tx, ul->raw);
	return n >= 0 && mk_uint_match(&ul->u, (uint64_t)n);
}

#define MODIFIER(id, doc_)                                         \
	const struct mk_kw mk_kw_##id = { .name = #id,             \
					  .type = MK_KWT_MODIFIER, \
					  .flags = MK_KWF_NOVALUE, \
					  .setup = setup_modifier, \
					  .doc = "content modifier: " doc_ }

MK_KW_STICKY(sb_http_uri, "http.uri", MK_BUF_HTTP_URI,
	     "the normalized request URI (path decoded, ?query)");
MK_KW_STICKY(sb_http_uri_raw, "http.uri.raw", MK_BUF_HTTP_URI_RAW, "the request URI as sent");
MK_KW_STICKY(sb_http_method, "http.method", MK_BUF_HTTP_METHOD, "the request method");
MK_KW_STICKY(sb_http_protocol, "http.protocol", MK_BUF_HTTP_PROTOCOL,
	     "the request's protocol (HTTP/1.1)");
MK_KW_STICKY(sb_http_protocol_, "http_protocol", MK_BUF_HTTP_PROTOCOL, "http.protocol");
MK_KW_STICKY(sb_http_request_line, "http.request_line", MK_BUF_HTTP_REQUEST_LINE,
	     "the request line");
MK_KW_STICKY(sb_http_request_line_, "http_request_line", MK_BUF_HTTP_REQUEST_LINE,
	     "http.request_line");
MK_KW_STICKY(sb_http_start, "http.start", MK_BUF_HTTP_START,
	     "the request line and headers as 'Name: value\\r\\n' lines and the blank line (the "
	     "response's in to_client rules)");
MK_KW_STICKY(sb_http_start_, "http_start", MK_BUF_HTTP_START, "http.start");
MK_KW_STICKY(sb_http_host, "http.host", MK_BUF_HTTP_HOST,
	     "the host name, lowercased, without port");
MK_KW_STICKY(sb_http_host_raw, "http.host.raw", MK_BUF_HTTP_HOST_RAW,
	     "the Host header (or URI host) as sent");
MK_KW_STICKY(sb_http_user_agent, "http.user_agent", MK_BUF_HTTP_USER_AGENT,
	     "the User-Agent header's value");
MK_KW_STICKY(sb_http_header, "http.header", MK_BUF_HTTP_HEADER,
	     "the headers, 'Name: value\\r\\n' each, without cookies (the response's in "
	     "to_client rules)");
MK_KW_STICKY(sb_http_header_raw, "http.header.raw", MK_BUF_HTTP_HEADER_RAW,
	     "the headers with cookies, and the blank line");
MK_KW_STICKY(sb_http_header_names, "http.header_names", MK_BUF_HTTP_HEADER_NAMES,
	     "'\\r\\nName\\r\\n...\\r\\n\\r\\n'");
MK_KW_STICKY(sb_http_header_names_, "http_header_names", MK_BUF_HTTP_HEADER_NAMES,
	     "http.header_names");
MK_KW_STICKY(sb_http_cookie, "http.cookie", MK_BUF_HTTP_COOKIE,
	     "the Cookie header (Set-Cookie in to_client rules)");
MK_KW_STICKY(sb_http_referer, "http.referer", MK_BUF_HTTP_REFERER, "the Referer header");
MK_KW_STICKY(sb_http_referer_, "http_referer", MK_BUF_HTTP_REFERER, "http.referer");
MK_KW_STICKY(sb_http_accept, "http.accept", MK_BUF_HTTP_ACCEPT, "the Accept header");
MK_KW_STICKY(sb_http_accept_, "http_accept", MK_BUF_HTTP_ACCEPT, "http.accept");
MK_KW_STICKY(sb_http_accept_enc, "http.accept_enc", MK_BUF_HTTP_ACCEPT_ENC,
	     "the Accept-Encoding header");
MK_KW_STICKY(sb_http_accept_enc_, "http_accept_enc", MK_BUF_HTTP_ACCEPT_ENC, "http.accept_enc");
MK_KW_STICKY(sb_http_accept_lang, "http.accept_lang", MK_BUF_HTTP_ACCEPT_LANG,
	     "the Accept-Language header");
MK_KW_STICKY(sb_http_accept_lang_, "http_accept_lang", MK_BUF_HTTP_ACCEPT_LANG, "http.accept_lang");
MK_KW_STICKY(sb_http_connection, "http.connection", MK_BUF_HTTP_CONNECTION,
	     "the Connection header (the response's in to_client rules)");
MK_KW_STICKY(sb_http_connection_, "http_connection", MK_BUF_HTTP_CONNECTION, "http.connection");
MK_KW_STICKY(sb_http_content_type, "http.content_type", MK_BUF_HTTP_CONTENT_TYPE,
	     "the Content-Type header of the side");
MK_KW_STICKY(sb_http_content_type_, "http_content_type", MK_BUF_HTTP_CONTENT_TYPE,
	     "http.content_type");
MK_KW_STICKY(sb_http_content_len, "http.content_len", MK_BUF_HTTP_CONTENT_LEN,
	     "the Content-Length header of the side");
MK_KW_STICKY(sb_http_content_len_, "http_content_len", MK_BUF_HTTP_CONTENT_LEN, "http.content_len");
MK_KW_STICKY(sb_http_request_body, "http.request_body", MK_BUF_HTTP_REQUEST_BODY,
	     "the request body, dechunked");
MK_KW_STICKY(sb_http_stat_code, "http.stat_code", MK_BUF_HTTP_STAT_CODE,
	     "the response status code");
MK_KW_STICKY(sb_http_stat_msg, "http.stat_msg", MK_BUF_HTTP_STAT_MSG, "the response reason phrase");
MK_KW_STICKY(sb_http_response_line, "http.response_line", MK_BUF_HTTP_RESPONSE_LINE,
	     "the response line");
MK_KW_STICKY(sb_http_response_line_, "http_response_line", MK_BUF_HTTP_RESPONSE_LINE,
	     "http.response_line");
MK_KW_STICKY(sb_http_server, "http.server", MK_BUF_HTTP_SERVER, "the Server header");
MK_KW_STICKY(sb_http_location, "http.location", MK_BUF_HTTP_LOCATION, "the Location header");
MK_KW_STICKY(sb_http_response_body, "http.response_body", MK_BUF_HTTP_RESPONSE_BODY,
	     "the response body, dechunked and decompressed");
MK_KW_STICKY(sb_file_data, "file.data", MK_BUF_FILE_DATA,
	     "the response body, dechunked and decompressed (the request body in to_server rules)");
MK_KW_STICKY(sb_file_data_, "file_data", MK_BUF_FILE_DATA, "file.data");

MODIFIER(http_uri, "the content is in http.uri");
MODIFIER(http_raw_uri, "the content is in http.uri.raw");
MODIFIER(http_method, "the content is in http.method");
MODIFIER(http_header, "the content is in http.header");
MODIFIER(http_raw_header, "the content is in http.header.raw");
MODIFIER(http_cookie, "the content is in http.cookie");
MODIFIER(http_user_agent, "the content is in http.user_agent");
MODIFIER(http_host, "the content is in http.host");
MODIFIER(http_raw_host, "the content is in http.host.raw");
MODIFIER(http_client_body, "the content is in http.request_body");
MODIFIER(http_server_body, "the content is in http.response_body");
MODIFIER(http_stat_code, "the content is in http.stat_code");
MODIFIER(http_stat_msg, "the content is in http.stat_msg");

const struct mk_kw mk_kw_uricontent = { .name = "uricontent",
					.type = MK_KWT_CONTENT,
					.flags = MK_KWF_VALUE,
					.setup = setup_uricontent,
					.doc = "content in http.uri (legacy)" };

MK_KW_DEFINE(urilen, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_urilen, match_urilen,
	     "length of http.uri: N, <N, >N, N<>M; ',raw': of http.uri.raw");

MK_KW_FAMILY_TABLE(http, MK_KW_FAMILY_HTTP);
