// SPDX-License-Identifier: GPL-2.0-only
/*
 * bsize, the transforms, the HTTP pcre flags and the HTTP buffers added
 * with them (docs/rules.md "Buffer size and transforms"): each transform on
 * bytes (edges: empty, bad escapes, digests against known vectors), the
 * parse errors with their messages, and rules that fire on an HTTP
 * conversation through the whole worker (libhtp, transactions, detect)
 * exactly where they should.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect_helpers.h"

/* ---- transforms on bytes ------------------------------------------------------------ */

/* @in through the transforms of @rule's http.uri; the result as a string. */
static const char *xform(const char *rule, const void *in, uint32_t len, uint32_t *olen)
{
	static uint8_t out[256];
	struct mk_rule *r = rule_ok(rule);
	uint8_t *buf = NULL;
	uint32_t cap = 0, n = 0;

	cr_assert_not_null(r->xf, "%s has no transforms", rule);
	cr_assert_not_null(r->xf[MK_BUF_HTTP_URI]);
	cr_assert_eq(mk_xform_apply(r->xf[MK_BUF_HTTP_URI], in, len, &buf, &cap, &n), 0);
	cr_assert_lt(n, sizeof(out));
	memcpy(out, buf, n);
	out[n] = '\0';
	free(buf);
	mk_rule_free(r);
	if (olen)
		*olen = n;
	return (const char *)out;
}

/* A rule with transforms @xf on http.uri. */
static const char *R_DYN(const char *xf)
{
	static char rule_buf[512];

	snprintf(rule_buf, sizeof(rule_buf),
		 "alert http any any -> any any (http.uri; %s content:\"1\"; sid:1;)", xf);
	return rule_buf;
}

static void xform_eq(const char *xf, const char *in, const char *want)
{
	uint32_t n;
	const char *got = xform(R_DYN(xf), in, (uint32_t)strlen(in), &n);

	cr_assert_eq(n, strlen(want), "%s on '%s': '%s', want '%s'", xf, in, got, want);
	cr_assert_eq(memcmp(got, want, n), 0, "%s on '%s': '%s', want '%s'", xf, in, got, want);
}

Test(transform, each_on_bytes)
{
	xform_eq("dotprefix;", "example.com", ".example.com");
	xform_eq("dotprefix;", "", "");
	xform_eq("to_lowercase;", "AbC/%2F", "abc/%2f");
	xform_eq("to_uppercase;", "AbC/x", "ABC/X");
	xform_eq("strip_whitespace;", " a \t b\r\n c ", "abc");
	xform_eq("compress_whitespace;", "a  \t b\r\n\r\nc ", "a b\rc ");
	xform_eq("url_decode;", "Suricata%20is+%27%61wesome%21%27%25%30%30%ZZ%4",
		 "Suricata is 'awesome!'%00%ZZ%4");
	xform_eq("url_decode;", "%", "%");
	xform_eq("url_decode;", "%4", "%4");
	xform_eq("url_decode;", "%41", "A");
	xform_eq("url_decode;", "", "");
	xform_eq("header_lowercase;", "Host: A.B\r\nUser-Agent: X:Y\r\n",
		 "host: A.B\r\nuser-agent: X:Y\r\n");
	xform_eq("strip_pseudo_headers;", ":method: GET\r\nhost: a\r\n:path: /\r\nx: :y\r\n",
		 "host: a\r\nx: :y\r\n");
	xform_eq("xor:\"0102\";", "\x41\x41\x41", "\x40\x43\x40");
	/* in order: lowercase then prefix, and the reverse gives the same here */
	xform_eq("to_lowercase; dotprefix;", "A.COM", ".a.com");
	xform_eq("strip_whitespace; url_decode;", "%2 0", " ");
}

Test(transform, digests_match_known_vectors)
{
	static const uint8_t md5_abc[16] = { 0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0,
					     0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f, 0x72 };
	static const uint8_t sha1_abc[20] = { 0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81,
					      0x6a, 0xba, 0x3e, 0x25, 0x71, 0x78, 0x50,
					      0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d };
	static const uint8_t sha256_empty[32] = { 0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
						  0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
						  0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
						  0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55 };
	const char *got;
	uint32_t n;

	got = xform(R_DYN("to_md5;"), "abc", 3, &n);
	cr_assert(n == 16 && !memcmp(got, md5_abc, 16));
	got = xform(R_DYN("to_sha1;"), "abc", 3, &n);
	cr_assert(n == 20 && !memcmp(got, sha1_abc, 20));
	got = xform(R_DYN("to_sha256;"), "", 0, &n);
	cr_assert(n == 32 && !memcmp(got, sha256_empty, 32));
	/* a transform after a digest reads the digest */
	got = xform(R_DYN("to_md5; to_md5;"), "abc", 3, &n);
	cr_assert(n == 16 && memcmp(got, md5_abc, 16));
}

/* ---- parse errors -------------------------------------------------------------------- */

static const struct {
	const char *rule, *text;
} rejects[] = {
	{ "alert http any any -> any any (content:\"a\"; bsize:1; sid:1;)",
	  "keyword 'bsize': needs a sticky buffer" },
	{ "alert http any any -> any any (http.uri; bsize:abc; sid:1;)",
	  "keyword 'bsize': 'abc' is not N, <N" },
	{ "alert http any any -> any any (http.uri; bsize:<0; sid:1;)", "is not N, <N" },
	{ "alert http any any -> any any (http.uri; bsize:5<>6; sid:1;)", "is not N, <N" },
	{ "alert http any any -> any any (http.uri; bsize:&0xf=1; sid:1;)", "is not N, <N" },
	{ "alert http any any -> any any (http.uri; bsize:15; bsize:27; sid:1;)",
	  "the bsize values of http.uri exclude each other" },
	{ "alert http any any -> any any (http.uri; bsize:>20; bsize:<10; sid:1;)",
	  "exclude each other" },
	{ "alert http any any -> any any (http.user_agent; content:\"123456789012\"; bsize:8; "
	  "sid:1;)",
	  "keyword 'bsize': can't match: the contents of http.user_agent need 12 bytes, more than "
	  "bsize 8" },
	{ "alert http any any -> any any (http.uri; bsize:2<>5; content:\"abcdef\"; sid:1;)",
	  "more than the bsize range 2<>5" },
	{ "alert http any any -> any any (http.uri; content:\"ab\"; content:\"cd\"; distance:2; "
	  "bsize:5; sid:1;)",
	  "need 6 bytes" },
	{ "alert http any any -> any any (http.uri; content:\"ab\"; offset:4; bsize:5; sid:1;)",
	  "need 6 bytes" },
	{ "alert http any any -> any any (to_lowercase; http.uri; content:\"a\"; sid:1;)",
	  "keyword 'to_lowercase': transforms must directly follow a sticky buffer" },
	{ "alert http any any -> any any (http.uri; content:\"a\"; to_lowercase; sid:1;)",
	  "transforms must directly follow a sticky buffer" },
	{ "alert http any any -> any any (content:\"a\"; dotprefix; sid:1;)",
	  "transforms must directly follow a sticky buffer" },
	{ "alert http any any -> any any (http.uri; to_lowercase; content:\"Foo\"; sid:1;)",
	  "keyword 'content': content \"Foo\" can never match after the to_lowercase transform of "
	  "http.uri" },
	/* as Suricata: the bytes are checked, nocase or not */
	{ "alert http any any -> any any (http.uri; to_lowercase; content:\"Foo\"; nocase; sid:1;)",
	  "to_lowercase transform" },
	{ "alert http any any -> any any (http.uri; to_uppercase; content:\"Foo\"; sid:1;)",
	  "to_uppercase transform" },
	{ "alert http any any -> any any (http.uri; strip_whitespace; content:\"a b\"; sid:1;)",
	  "strip_whitespace transform" },
	{ "alert http any any -> any any (http.uri; compress_whitespace; content:\"a  b\"; "
	  "sid:1;)",
	  "compress_whitespace transform" },
	{ "alert http any any -> any any (http.uri; to_lowercase; content:\"a\"; http.host; "
	  "content:\"b\"; http.uri; content:\"c\"; sid:1;)",
	  "http.uri is used again with other transforms" },
	{ "alert http any any -> any any (http.uri; to_lowercase; content:\"a\"; content:\"b\"; "
	  "http_uri; sid:1;)",
	  "" }, /* already in http.uri: accepted, see below */
	{ "alert http any any -> any any (xor; http.uri; sid:1;)", "keyword 'xor': needs a value" },
	{ "alert http any any -> any any (http.uri; xor:\"0g\"; content:\"a\"; sid:1;)",
	  "the key must be hex digits ('0g' is not)" },
	{ "alert http any any -> any any (http.uri; xor:\"012\"; content:\"a\"; sid:1;)",
	  "even number of hex digits" },
	{ "alert http any any -> any any (http.uri; xor:0102; content:\"a\"; sid:1;)",
	  "the key must be hex digits in double quotes" },
	{ "alert http any any -> any any (http.uri; dotprefix; dotprefix; dotprefix; dotprefix; "
	  "dotprefix; dotprefix; dotprefix; dotprefix; dotprefix; content:\"a\"; sid:1;)",
	  "more than 8 transforms on one buffer" },
	{ "alert http any any -> any any (http.host; pcre:\"/x/U\"; sid:1;)",
	  "keyword 'pcre': a buffer flag (http.uri) with the sticky buffer http.host still set" },
	{ "alert http any any -> any any (pcre:\"/x/UH\"; sid:1;)",
	  "flag 'H' selects http.header, another flag already selected http.uri" },
	{ "alert http any any -> any any (pcre:\"/x/K\"; sid:1;)", "flag 'K' (raw cookie)" },
	{ "alert dns any any -> any any (pcre:\"/x/U\"; sid:1;)",
	  "a keyword of http in a rule of another application protocol (dns)" },
};

Test(transform, parse_errors_name_the_keyword)
{
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(rejects); i++) {
		const char *err;
		struct mk_rule *r = rule_parse(rejects[i].rule, &err, NULL);

		if (!*rejects[i].text) {
			cr_assert_not_null(r, "should load: %s\n  error: %s", rejects[i].rule, err);
			mk_rule_free(r);
			continue;
		}
		cr_assert_null(r, "should be rejected: %s", rejects[i].rule);
		cr_assert(strstr(err, rejects[i].text), "rule: %s\n  error: '%s'\n  expected: '%s'",
			  rejects[i].rule, err, rejects[i].text);
	}
}

Test(transform, accepted_forms)
{
	static const char *const ok[] = {
		"alert http any any -> any any (http.uri; bsize:0; sid:1;)",
		"alert http any any -> any any (http.uri; bsize:>5; bsize:<10; sid:1;)",
		"alert http any any -> any any (http.uri; content:\"abc\"; bsize:3; sid:1;)",
		"alert http any any -> any any (http.uri; bsize:!3; bsize:>=1; bsize:<=9; sid:1;)",
		"alert http any any -> any any (http.uri; content:!\"abcdef\"; within:6; bsize:3; "
		"sid:1;)",
		"alert http any any -> any any (http.uri; to_lowercase; to_md5; "
		"content:\"|AB CD|\"; sid:1;)",
		"alert http any any -> any any (http.host; pcre:\"/x/W\"; sid:1;)",
		"alert http any any -> any any (file.data; pcre:\"/x/Q\"; sid:1;)",
		"alert http any any -> any any (pcre:\"/x/Ui\"; pcre:\"/y/H\"; pcre:\"/z/V\"; "
		"sid:1;)",
		"alert http any any -> any any (http.uri; dotprefix; content:\".a\"; http.uri; "
		"dotprefix; content:\"b\"; sid:1;)",
		"alert http any any -> any any (http.start; content:\"GET\"; http.accept_enc; "
		"content:\"gzip\"; http.accept_lang; content:\"en\"; http.connection; "
		"content:\"close\"; sid:1;)",
		"alert tcp any any -> any any (content:\"a\"; pcre:\"/x/U\"; sid:1;)",
		"alert http any any -> any any (http_start; content:\"x\"; http_accept_enc; "
		"content:\"x\"; http_accept_lang; content:\"x\"; http_connection; content:\"x\"; "
		"sid:1;)",
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(ok); i++)
		mk_rule_free(rule_ok(ok[i]));
}

/* ---- rules on an HTTP conversation ------------------------------------------------------- */

#define REQ                                                                                      \
	"GET /Index.PHP?a=%41b+c HTTP/1.1\r\nHost: Www.Example.COM\r\n"                          \
	"User-Agent: Mozilla/5.0 (kw-test)\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\n" \
	"Accept-Language: en-US\r\nConnection: keep-alive\r\nReferer:\r\n"                       \
	"Cookie: session=abc123\r\n\r\n"
#define RESP                                                                                    \
	"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 13\r\n" \
	"Connection: close\r\n\r\nhello \t world"

#define H "alert http any any -> any any (msg:\"t\"; "
static const struct {
	uint32_t sid;
	int fires;
	const char *rule;
} cases[] = {
	{ 1, 1, H "http.user_agent; bsize:21; sid:1;)" },
	{ 2, 0, H "http.user_agent; bsize:20; sid:2;)" },
	{ 3, 1, H "http.uri.raw; to_lowercase; content:\"/index.php\"; startswith; sid:3;)" },
	{ 4, 0, H "http.uri.raw; content:\"/index.php\"; sid:4;)" },
	{ 5, 1, H "http.uri.raw; url_decode; content:\"a=Ab c\"; endswith; sid:5;)" },
	{ 6, 0, H "http.uri.raw; content:\"a=Ab c\"; sid:6;)" },
	{ 7, 1, H "http.host; dotprefix; content:\".example.com\"; endswith; sid:7;)" },
	{ 8, 0, H "http.host; dotprefix; content:\".ample.com\"; endswith; sid:8;)" },
	{ 9, 1,
	  H "http.start; content:\"GET /Index.PHP\"; startswith; content:\"Accept-Encoding: "
	    "gzip\"; content:\"|0d 0a 0d 0a|\"; endswith; sid:9;)" },
	{ 10, 1, H "http.accept_enc; content:\"deflate\"; sid:10;)" },
	{ 11, 1, H "http.accept_lang; bsize:5; content:\"en-US\"; sid:11;)" },
	{ 12, 1, H "http.connection; content:\"keep-alive\"; sid:12;)" },
	{ 13, 1, H "flow:to_client; http.connection; content:\"close\"; sid:13;)" },
	{ 14, 0, H "http.connection; content:\"close\"; sid:14;)" },
	{ 15, 1, H "pcre:\"/^\\/index\\.php/U\"; pcre:!\"/Index/U\"; sid:15;)" },
	{ 16, 1, H "pcre:\"/kw-test/V\"; sid:16;)" },
	{ 17, 1, H "pcre:\"/session=abc/C\"; sid:17;)" },
	{ 18, 0, H "pcre:\"/nginx/H\"; sid:18;)" },
	{ 19, 1, H "file.data; compress_whitespace; content:\"hello world\"; sid:19;)" },
	{ 20, 1, H "file.data; strip_whitespace; content:\"helloworld\"; bsize:10; sid:20;)" },
	{ 21, 1,
	  H "http.uri.raw; to_sha256; content:\"|6D AF 04 7A C7 6D D0 72 BF D3 EF A5 45 EB EB 7F "
	    "2F A8 88 93 F7 C3 E3 29 C8 21 28 3C F3 B2 28 51|\"; bsize:32; sid:21;)" },
	{ 22, 0, H "http.uri.raw; to_md5; content:\"|00 01 02 03|\"; sid:22;)" },
	{ 23, 1, H "http.header; header_lowercase; content:\"user-agent: Mozilla\"; sid:23;)" },
	{ 24, 1, H "pcre:\"/^200$/S\"; sid:24;)" },
	{ 25, 1, H "pcre:\"/^OK/Y\"; sid:25;)" },
	{ 26, 1, H "http.host; pcre:\"/example/W\"; sid:26;)" },
	{ 27, 1, H "http.uri.raw; xor:\"01\"; content:\".Hoedy\"; startswith; sid:27;)" },
	{ 28, 0, H "http.cookie; bsize:0; sid:28;)" },
	{ 29, 1, H "http.referer; bsize:0; sid:29;)" },
	{ 30, 0, H "http.uri; bsize:>100; sid:30;)" },
	{ 31, 1, H "pcre:\"/^GET$/M\"; pcre:\"/Www\\.Example/Z\"; pcre:\"/%41b/I\"; sid:31;)" },
	{ 32, 1, H "flow:to_client; pcre:\"/^Server: nginx/mD\"; sid:32;)" },
	{ 33, 1, H "flow:to_client; file.data; pcre:\"/hello/Q\"; sid:33;)" },
	{ 34, 0, H "http.accept_lang; bsize:<5; sid:34;)" },
	/* payload keywords in an HTTP rule: the stream of the rule's direction */
	{ 35, 1, H "content:\"|0d 0a 0d 0a|\"; http.method; content:\"GET\"; sid:35;)" },
	{ 36, 0, H "content:\"nosuchthing\"; http.method; content:\"GET\"; sid:36;)" },
	{ 37, 1, H "flow:to_client; content:\"hello\"; http.stat_code; content:\"200\"; sid:37;)" },
	{ 38, 0, H "flow:to_server; content:\"hello\"; http.method; content:\"GET\"; sid:38;)" },
	{ 39, 1,
	  H "content:\"Cookie: session=\"; depth:400; http.uri; content:\"/index\"; sid:39;)" },
	{ 40, 1,
	  H
	  "http.uri; content:\"/index\"; pkt_data; content:\"Cookie: session=\"; pcre:\"/kw-test/V\"; "
	  "sid:40;)" },
	{ 41, 0, H "http.uri; content:\"/index\"; pkt_data; content:\"hello\"; sid:41;)" },
};

static void conversation(struct harness *h)
{
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "192.0.2.9", 80, T0);
	conv_data(&c, 1, REQ);
	conv_data(&c, 0, RESP);
	conv_close(&c);
	h_finish(h);
}

Test(transform, rules_fire_exactly_where_expected)
{
	char *rules = calloc(1, 16384);
	struct harness h;
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		strcat(rules, cases[i].rule);
		strcat(rules, "\n");
	}
	cr_assert_eq(h_init_rules(&h, rules), 0);
	cr_assert_eq(h.eng->stats.failed, 0, "every rule loads");
	conversation(&h);
	for (i = 0; i < MK_ARRAY_SIZE(cases); i++)
		cr_expect_eq(h_count(&h, cases[i].sid), (unsigned int)cases[i].fires,
			     "sid %u: %u alerts, expected %d: %s", cases[i].sid,
			     h_count(&h, cases[i].sid), cases[i].fires, cases[i].rule);
	/*
	 * one derived buffer per (buffer, direction, chain): sids 7 and 8 share
	 * dotprefix on http.host; 3, 5, 7, 19, 20, 21, 22, 23, 27 are nine chains
	 */
	cr_expect_eq(h.t->cnt[MK_DETECT_CNT_XFORM_BUILT], 9, "built %llu",
		     (unsigned long long)h.t->cnt[MK_DETECT_CNT_XFORM_BUILT]);
	h_free(&h);
	free(rules);
}

/* fast_pattern (plain, only, a chop) on a content of every buffer; with and without transforms. */
Test(transform, fast_pattern_on_every_buffer)
{
	static const char *const forms[] = { "fast_pattern;", "fast_pattern:only;",
					     "fast_pattern:0,1;" };
	char rule[256];
	unsigned int id, k;

	for (id = 1; id < MK_BUF_COUNT; id++) {
		for (k = 0; k < MK_ARRAY_SIZE(forms); k++) {
			const char *proto = mk_app_proto_name(mk_buf_protos[id]);

			snprintf(rule, sizeof(rule),
				 "alert %s any any -> any any (%s; content:\"ab\"; %s sid:1;)",
				 proto, mk_buf_names[id], forms[k]);
			mk_rule_free(rule_ok(rule));
			snprintf(
				rule, sizeof(rule),
				"alert %s any any -> any any (%s; to_lowercase; content:\"ab\"; %s "
				"bsize:>1; sid:1;)",
				proto, mk_buf_names[id], forms[k]);
			mk_rule_free(rule_ok(rule));
		}
	}
}

/*
 * The transaction prefilter (engine/tx_prefilter.c) changes which rules are
 * verified, never which fire: the same conversation with and without it
 * raises the same alerts, with fewer rules verified.
 */
Test(transform, tx_prefilter_verifies_fewer_and_loses_nothing)
{
	char *rules = calloc(1, 16384);
	struct harness h[2];
	uint64_t cand[2];
	unsigned int i, m;

	for (i = 0; i < MK_ARRAY_SIZE(cases); i++) {
		strcat(rules, cases[i].rule);
		strcat(rules, "\n");
	}
	for (m = 0; m < 2; m++) {
		struct mk_detect_cfg cfg = { .rules_text = rules,
					     .rules_text_name = "test.rules",
					     .no_prefilter = (int)m };

		cr_assert_eq(h_init_cfg(&h[m], &cfg), 0);
		conversation(&h[m]);
		cand[m] = h[m].t->cnt[MK_DETECT_CNT_CANDIDATES];
	}
	if (mk_prefilter_available()) {
		cr_assert_gt(h[0].eng->ntxpf, 0);
		cr_expect_lt(cand[0], cand[1], "verified %llu with the prefilter, %llu without",
			     (unsigned long long)cand[0], (unsigned long long)cand[1]);
	}
	for (i = 0; i < MK_ARRAY_SIZE(cases); i++)
		cr_expect_eq(h_count(&h[0], cases[i].sid), h_count(&h[1], cases[i].sid),
			     "sid %u differs with the prefilter", cases[i].sid);
	h_free(&h[0]);
	h_free(&h[1]);
	free(rules);
}

/* A later error of the rule is not blamed on a bsize that was fine. */
Test(transform, later_errors_name_their_own_keyword)
{
	const char *err;
	struct mk_rule *r = rule_parse(
		"alert udp any any -> any any (http.uri; content:\"a\"; bsize:>0; sid:1;)", &err,
		NULL);

	cr_assert_null(r);
	cr_assert_str_eq(err, "http keywords need a rule of protocol http, tcp or ip", "got '%s'",
			 err);
}

/*
 * Payload keywords of an HTTP rule read the rule direction's stream window
 * and the chunk that made the transaction progress: a content spanning the
 * header block and a body sent in a later segment is found, whether the
 * engine has other stream rules or not (such a rule keeps the windows).
 */
Test(transform, stream_payload_spans_the_window_and_the_chunk)
{
	static const char *const mix =
		"alert http any any -> any any (flow:to_server; content:\"|0d 0a 0d 0a|user=admin\"; "
		"http.method; content:\"POST\"; http.request_body; content:\"pass=\"; sid:1;)\n";
	static const char *const stream_rule =
		"alert tcp any any -> any any (content:\"never-in-this-traffic\"; sid:2;)\n";
	unsigned int m;

	for (m = 0; m < 2; m++) {
		char rules[1024];
		struct harness h;
		struct conv c;

		snprintf(rules, sizeof(rules), "%s%s", mix, m ? stream_rule : "");
		cr_assert_eq(h_init_rules(&h, rules), 0);
		conv_open(&c, &h, "10.0.0.1", 40001, "192.0.2.9", 80, T0);
		conv_data(&c, 1,
			  "POST /login HTTP/1.1\r\nHost: a.example\r\nContent-Length: 22\r\n\r\n");
		conv_data(&c, 1, "user=admin&pass=hunter");
		conv_data(&c, 0, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
		conv_close(&c);
		h_finish(&h);
		cr_expect_eq(h_count(&h, 1), 1, "with%s a stream rule: %u alerts", m ? "" : "out",
			     h_count(&h, 1));
		h_free(&h);
	}
}

/*
 * Progressive body inspection scans each new part of a body once (the
 * transaction prefilter keeps what it scanned and found): markers that
 * straddle the end of one partial inspection, or lie before it, are still
 * found, with and without the prefilter, once each.
 */
Test(transform, progressive_body_scans_straddle_their_ends)
{
	static const char *const rules =
		"alert http any any -> any any (flow:to_client; file.data; "
		"content:\"STRADDLE-ONE\"; sid:1;)\n"
		"alert http any any -> any any (flow:to_client; file.data; "
		"content:\"STRADDLE-TWO\"; sid:2;)\n"
		"alert http any any -> any any (flow:to_client; file.data; content:\"EARLY-MARK\"; "
		"content:\"STRADDLE-TWO\"; distance:0; sid:3;)\n"
		"alert http any any -> any any (flow:to_client; file.data; content:\"NOT-THERE\"; "
		"sid:4;)\n";
	enum { BODY = 90000, SEG = 1000 };
	char *body = malloc(BODY + 1), seg[SEG + 1], hdr[128];
	struct harness h[2];
	unsigned int m, sid;

	cr_assert_not_null(body);
	memset(body, 'b', BODY);
	body[BODY] = '\0';
	memcpy(body + 100, "EARLY-MARK", 10);
	/* the first partial inspection is at the segment that reaches 40 KB (41000), the next 16 KB on */
	memcpy(body + 40995, "STRADDLE-ONE", 12);
	memcpy(body + 57995, "STRADDLE-TWO", 12);
	snprintf(hdr, sizeof(hdr), "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", BODY);
	for (m = 0; m < 2; m++) {
		struct mk_detect_cfg cfg = { .rules_text = rules,
					     .rules_text_name = "test.rules",
					     .no_prefilter = (int)m };
		struct conv c;
		unsigned int off;

		cr_assert_eq(h_init_cfg(&h[m], &cfg), 0);
		conv_open(&c, &h[m], "10.0.0.1", 40000, "192.0.2.9", 80, T0);
		conv_data(&c, 1, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
		conv_data(&c, 0, hdr);
		for (off = 0; off < BODY; off += SEG) {
			memcpy(seg, body + off, SEG);
			seg[SEG] = '\0';
			conv_data(&c, 0, seg);
		}
		conv_close(&c);
		h_finish(&h[m]);
	}
	for (sid = 1; sid <= 4; sid++) {
		cr_expect_eq(h_count(&h[0], sid), sid == 4 ? 0u : 1u, "sid %u: %u alerts", sid,
			     h_count(&h[0], sid));
		cr_expect_eq(h_count(&h[0], sid), h_count(&h[1], sid),
			     "sid %u differs with the prefilter", sid);
	}
	h_free(&h[0]);
	h_free(&h[1]);
	free(body);
}
