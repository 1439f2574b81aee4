// SPDX-License-Identifier: GPL-2.0-only
/*
 * base64_decode/base64_data (kw/base64.c), asn1 (kw/asn1.c) and flowint
 * (kw/flowvars.c): the decoder and the BER walker on their own, with
 * Suricata's test vectors and every truncation of them; rule parsing and
 * its errors; payload inspection on exact-size buffers (payload and a
 * sticky buffer); packets through the test pipeline.
 */
#include "detect_helpers.h"

#define R(opts) "alert udp any any -> any any (" opts " sid:1;)"

/* ---- the base64 decoder --------------------------------------------------------------------- */

/* Decodes @s (an exact-size copy) with room for @cap bytes; the output in @out. */
static uint32_t dec(const char *s, uint32_t cap, char *out, uint32_t *used)
{
	uint32_t len = (uint32_t)strlen(s), n;
	uint8_t *in = malloc(len ? len : 1), *o = malloc(cap ? cap : 1);

	cr_assert(in && o);
	memcpy(in, s, len);
	n = mk_base64_decode(in, len, o, cap, used);
	cr_assert_leq(n, cap);
	memcpy(out, o, n);
	out[n] = '\0';
	free(in);
	free(o);
	return n;
}

Test(base64, rfc4648_vectors)
{
	static const char *const v[][2] = {
		{ "", "" },
		{ "Zg==", "f" },
		{ "Zm8=", "fo" },
		{ "Zm9v", "foo" },
		{ "Zm9vYg==", "foob" },
		{ "Zm9vYmE=", "fooba" },
		{ "Zm9vYmFy", "foobar" },
		{ "SGVsbG8gV29ybGQ=", "Hello World" },
	};
	char out[64];
	uint32_t i, used;

	for (i = 0; i < MK_ARRAY_SIZE(v); i++) {
		cr_assert_eq(dec(v[i][0], 64, out, &used), strlen(v[i][1]), "%s", v[i][0]);
		cr_assert_str_eq(out, v[i][1]);
		cr_assert_eq(used, strlen(v[i][0]));
	}
}

Test(base64, stops_at_the_first_byte_outside_the_alphabet)
{
	char out[64];
	uint32_t used;

	/* RFC 4648 (Suricata's mode): whitespace ends the text too */
	cr_assert_eq(dec("SGVs bG8gV29ybGQ=", 64, out, &used), 3);
	cr_assert_str_eq(out, "Hel");
	cr_assert_eq(used, 4);
	cr_assert_eq(dec("Zm9v$YmFy", 64, out, &used), 3);
	cr_assert_str_eq(out, "foo");
	cr_assert_eq(dec("!Zm9v", 64, out, &used), 0, "nothing before the stop");
	cr_assert_eq(used, 0);
	/* a last partial group gives its whole bytes: 3 sextets two, 2 or 1 one */
	cr_assert_eq(dec("SGVsbG8gV29ybGQ", 64, out, &used), 11);
	cr_assert_str_eq(out, "Hello World");
	cr_assert_eq(used, 15);
	cr_assert_eq(dec("Zm9vYg", 64, out, NULL), 4);
	cr_assert_str_eq(out, "foob");
	cr_assert_eq(dec("Zm9vY", 64, out, NULL), 4, "one sextet: one byte, as Suricata");
	cr_assert_eq(dec("Zm9v====", 64, out, NULL), 3, "a group of padding gives nothing");
}

Test(base64, output_bounded_by_its_room)
{
	char out[64];

	cr_assert_eq(dec("Zm9vYmFy", 3, out, NULL), 3);
	cr_assert_str_eq(out, "foo");
	cr_assert_eq(dec("Zm9vYmFy", 5, out, NULL), 3, "a group that does not fit is not cut");
	cr_assert_eq(dec("Zm9vYmFy", 0, out, NULL), 0);
	cr_assert_eq(dec("Zm9vYg", 3, out, NULL), 3, "nor a last partial one");
}

Test(base64, every_truncation)
{
	const char *s = "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==";
	const char *plain = "The quick brown fox jumps over the lazy dog";
	char buf[128], out[128];
	uint32_t n, k, got;

	for (n = 0; n <= strlen(s); n++) {
		memcpy(buf, s, n);
		buf[n] = '\0';
		got = dec(buf, sizeof(out) - 1, out, NULL);
		/* whole groups give their 3 bytes; a partial one its whole bytes */
		k = n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 ? 1 : 0);
		if (n == strlen(s))
			k = (uint32_t)strlen(plain); /* the "==" of the last group */
		/* "Zw=" (59): a partial group of 3 gives 2 bytes whatever its '=' (Suricata's) */
		cr_assert_eq(got, k, "prefix %u", n);
		cr_assert(!memcmp(out, plain, n / 4 * 3 < 43 ? n / 4 * 3 : 43), "prefix %u", n);
	}
}

/* ---- base64_decode / base64_data: parsing ---------------------------------------------------- */

static void rule_err(const char *rule, const char *want)
{
	const char *err;
	struct mk_rule *r = rule_parse(rule, &err, NULL);

	cr_assert_null(r, "should fail: %s", rule);
	cr_assert(strstr(err, want), "%s\n  error: %s\n  wanted: %s", rule, err, want);
}

Test(base64, parse)
{
	struct mk_rule *r = rule_ok(R("base64_decode:bytes 10, offset 2, relative; base64_data; "
				      "content:\"x\";"));
	const struct mk_base64 *b = r->pmatch[0].ctx;

	cr_assert_eq(r->npmatch, 1);
	cr_assert_eq(b->bytes, 10);
	cr_assert_eq(b->offset, 2);
	cr_assert(b->relative);
	cr_assert_eq(b->data.n, 1, "the content reads the decoded bytes");
	mk_rule_free(r);

	r = rule_ok(R("content:\"a\"; base64_decode; base64_data; content:\"b\"; nocase; "
		      "content:\"c\"; distance:0; pcre:\"/d/R\"; isdataat:1,relative; "
		      "byte_test:1,=,0x41,0,relative;"));
	b = r->pmatch[1].ctx;
	cr_assert_eq(r->npmatch, 2);
	cr_assert_eq(b->bytes, MK_B64_BYTES_MAX, "no bytes: Suricata's maximum");
	cr_assert_eq(b->data.n, 5);
	cr_assert(((struct mk_content *)b->data.sm[0].ctx)->flags & MK_CF_NOCASE);
	cr_assert(((struct mk_content *)b->data.sm[0].ctx)->flags & MK_CF_RELATIVE_NEXT,
		  "relative chains are linked in the decoded list too");
	cr_assert(r->fp && r->fp->len == 1 && r->fp->pat[0] == 'a',
		  "decoded contents are no fast pattern");
	mk_rule_free(r);

	/* a sticky buffer after base64_data ends its list */
	r = rule_ok("alert http any any -> any any (http.uri; content:\"q=\"; "
		    "base64_decode:relative; base64_data; content:\"admin\"; "
		    "http.user_agent; content:\"curl\"; sid:1;)");
	cr_assert_eq(r->bufs[MK_BUF_HTTP_URI].n, 2);
	cr_assert_eq(r->bufs[MK_BUF_HTTP_USER_AGENT].n, 1);
	mk_rule_free(r);
}

Test(base64, parse_errors)
{
	rule_err(R("base64_decode:bytes x; base64_data; content:\"a\";"),
		 "keyword 'base64_decode': 'bytes x'");
	rule_err(R("base64_decode:bytes 65536; base64_data; content:\"a\";"), "'bytes 65536'");
	rule_err(R("base64_decode:bytes 1, bytes 2; base64_data; content:\"a\";"), "given once");
	rule_err(R("base64_decode:offst 2; base64_data; content:\"a\";"),
		 "unknown option 'offst 2'");
	rule_err(R("base64_decode:relatve; base64_data; content:\"a\";"), "'relatve'");
	rule_err(R("base64_decode:offset -1; base64_data; content:\"a\";"), "'offset -1'");
	rule_err(R("base64_data; content:\"a\";"),
		 "keyword 'base64_data': needs a base64_decode before it");
	rule_err(R("base64_data:1; content:\"a\";"), "takes no value");
	rule_err("alert http any any -> any any (http.uri; base64_decode; http.host; base64_data; "
		 "content:\"a\"; sid:1;)",
		 "keyword 'base64_data': follows a sticky buffer");
	rule_err(R("content:\"a\"; base64_decode;"), "no base64_data keywords follow it");
	rule_err(R("base64_decode; base64_data;"), "no base64_data keywords follow it");
	rule_err(R("base64_decode; base64_data; content:\"a\"; base64_decode; base64_data; "
		   "content:\"b\";"),
		 "one level of decoding");
	rule_err(R("base64_decode; content:\"z\"; base64_data; content:\"a\";"),
		 "'content' follows it in payload and would never be checked");
	rule_err("alert http any any -> any any (http.uri; base64_decode; base64_data; "
		 "content:\"a\"; bsize:3; sid:1;)",
		 "keyword 'base64_data': 'bsize' cannot inspect the decoded bytes");
	rule_err(R("base64_decode; base64_data; asn1:bitstring_overflow;"),
		 "'asn1' cannot inspect the decoded bytes");
	rule_err(R("base64_decode; base64_data; content:\"a\"; pkt_data; content:\"z\";"),
		 "'content' follows it");
}

/* ---- base64: matching ------------------------------------------------------------------------ */

Test(base64, decodes_and_matches)
{
	/* Suricata's tests: the offset, relative to a content, nothing when out of range */
	const char *p = "aaaaaaaaSGVsbG8gV29ybGQ=";

	cr_assert(payload_match(R("base64_decode:offset 8; base64_data; content:\"Hello World\";"),
				p));
	cr_assert(payload_match(R("base64_decode; base64_data; content:\"Hello World\"; "
				  "offset:6;"),
				p),
		  "from the start: 'aaaaaaaa' is base64 too (6 bytes)");
	cr_assert(!payload_match(R("base64_decode; base64_data; content:\"Hello\";"),
				 "aaaaaaaSGVsbG8gV29ybGQ="),
		  "7 bytes before: the groups are out of step");
	cr_assert(payload_match(R("content:\"aaaaaaaa\"; base64_decode:relative; base64_data; "
				  "content:\"Hello World\"; startswith;"),
				p));
	cr_assert(payload_match(R("content:\"aaaa\"; base64_decode:relative, offset 4; "
				  "base64_data; content:\"Hello\"; depth:5;"),
				p));
	cr_assert(!payload_match(R("base64_decode:bytes 16, offset 32; base64_data; "
				   "content:!\"x\";"),
				 "SGVsbG8gV29ybGQ="),
		  "an offset past the end decodes nothing: no match, even negated");
	cr_assert(!payload_match(R("base64_decode; base64_data; content:!\"x\";"), "!!!!"),
		  "nothing decoded: no match");
	cr_assert(payload_match(R("base64_decode; base64_data; content:!\"x\";"), "Zm9v"));
	/* bytes limits the encoded bytes read */
	cr_assert(payload_match(R("base64_decode:offset 8, bytes 7; base64_data; "
				  "content:\"Hello\"; endswith;"),
				p));
	cr_assert(!payload_match(R("base64_decode:offset 8, bytes 6; base64_data; "
				   "content:\"Hello\";"),
				 p));
	/* every payload keyword on the decoded bytes */
	cr_assert(payload_match(R("base64_decode:offset 8; base64_data; content:\"World\"; "
				  "offset:6; pcre:\"/^ ?$/R\"; isdataat:!1,relative; "
				  "byte_test:1,=,0x48,0;"),
				p));
	cr_assert(!payload_match(R("base64_decode:offset 8; base64_data; content:\"World\"; "
				   "depth:10;"),
				 p));
	cr_assert(!payload_match(R("base64_decode:offset 8; base64_data; byte_extract:1,1,v; "
				   "content:\"o\"; offset:v;"),
				 p),
		  "'e' = 101: no 'o' after 101");
}

/* Runs @rule's list of buffer @id on @s (exact-size copy). */
static int buf_match(const char *rule, uint32_t id, const char *s)
{
	struct mk_rule *r = rule_ok(rule);
	uint32_t len = (uint32_t)strlen(s);
	uint8_t *copy = malloc(len ? len : 1);
	struct mk_insp in = { 0 };
	int m;

	memcpy(copy, s, len);
	in.t = test_thread();
	in.buf = copy;
	in.len = len;
	in.buf_id = id;
	m = mk_payload_inspect(&in, r);
	free(copy);
	mk_rule_free(r);
	return m;
}

Test(base64, in_a_sticky_buffer)
{
	const char *rule = "alert http any any -> any any (http.uri; content:\"q=\"; "
			   "base64_decode:relative; base64_data; content:\"admin\"; sid:1;)";

	/* "admin:secret" */
	cr_assert(buf_match(rule, MK_BUF_HTTP_URI, "/login?q=YWRtaW46c2VjcmV0&x=1"));
	cr_assert(!buf_match(rule, MK_BUF_HTTP_URI, "/login?q=Z3Vlc3Q6c2VjcmV0&x=1"));
	cr_assert(!buf_match(rule, MK_BUF_HTTP_URI, "/login?p=YWRtaW46c2VjcmV0"));
}

Test(base64, every_truncation_of_the_payload)
{
	const char *full = "GET /?d=YWRtaW46c2VjcmV0IGFuZCBtb3Jl HTTP/1.0";
	const char *rule = R("content:\"?d=\"; base64_decode:relative; base64_data; "
			     "content:\"secret\";");
	char buf[128];
	size_t n;

	for (n = 0; n <= strlen(full); n++) {
		memcpy(buf, full, n);
		buf[n] = '\0';
		/* "admin:secret" needs 16 encoded bytes after "?d=" (at 5) */
		cr_assert_eq(payload_match_at(rule, buf, n, 0, 0), n >= 24, "prefix %zu", n);
	}
}

Test(base64, through_the_pipeline)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (msg:\"b64\"; content:\"auth=\"; "
		"base64_decode:relative, bytes 64; base64_data; content:\"root\"; sid:1;)\n");

	udp(h, "10.0.0.1", 1000, "10.0.0.2", 53, "x auth=cm9vdDpwYXNz y", T0);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 53, "x auth=dXNlcjpwYXNz y", T0 + 1);
	udp(h, "10.0.0.1", 1000, "10.0.0.2", 53, "x auth=", T0 + 2);
	cr_assert_eq(h_count(h, 1), 1, "only root:pass");
	harness_free(h);
}

Test(base64, in_http_transactions)
{
	/* HTTP buffers through libhtp: the URI's parameter, a header's Basic credentials */
	struct harness *h = harness_rules(
		"alert http any any -> any any (http.uri; content:\"q=\"; base64_decode:relative; "
		"base64_data; content:\"admin\"; startswith; sid:1;)\n"
		"alert http any any -> any any (http.header; content:\"Authorization: Basic \"; "
		"base64_decode:relative; base64_data; content:\":hunter2\"; sid:2;)\n"
		"alert http any any -> any any (http.header; content:\"Authorization: Basic \"; "
		"base64_decode:relative, bytes 8; base64_data; content:\":hunter2\"; sid:3;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40002, "192.0.2.9", 80, T0);
	conv_data(&c, 1,
		  "GET /login?q=YWRtaW46c2VjcmV0 HTTP/1.1\r\nHost: a.example\r\n"
		  "Authorization: Basic cm9vdDpodW50ZXIy\r\n\r\n");
	conv_data(&c, 0, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	conv_data(&c, 1, "GET /login?q=Z3Vlc3Q6c2VjcmV0 HTTP/1.1\r\nHost: a.example\r\n\r\n");
	conv_data(&c, 0, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
	conv_close(&c);
	h_finish(h);
	cr_assert_eq(h_count(h, 1), 1, "admin:secret, not guest:secret");
	cr_assert_eq(h_count(h, 2), 1, "root:hunter2");
	cr_assert_eq(h_count(h, 3), 0, "8 characters decode to 'root:h' only");
	harness_free(h);
}

Test(base64, on_a_tcp_stream_split_across_segments)
{
	struct harness *h = harness_rules(
		"alert tcp any any -> any 80 (msg:\"b64\"; flow:to_server; content:\"auth=\"; "
		"base64_decode:relative; base64_data; content:\"root:pass\"; sid:1;)\n");
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, T0);
	conv_data(&c, 1, "GET /?auth=cm9vdD");
	conv_data(&c, 1, "pwYXNz HTTP/1.0\r\n\r\n");
	conv_data(&c, 0, "HTTP/1.0 200 OK\r\n\r\n");
	conv_data(&c, 1, "GET /?other=1 HTTP/1.0\r\n\r\n");
	conv_close(&c);
	cr_assert_eq(h_count(h, 1), 1, "once, when the second segment completes the text");
	harness_free(h);
}

/* ---- asn1 ----------------------------------------------------------------------------------- */

/* X.690 appendix A.3 (Suricata's test object): 0x60 0x81 0x85, 133 bytes of content. */
static const uint8_t A3[] = "\x60\x81\x85\x61\x10\x1A\x04"
			    "John\x1A\x01"
			    "P\x1A\x05"
			    "Smith\xA0\x0A\x1A\x08"
			    "Director\x42\x01\x33\xA1\x0A\x43\x08"
			    "19710917\xA2\x12\x61\x10\x1A\x04"
			    "Mary\x1A\x01"
			    "T\x1A\x05"
			    "Smith\xA3\x42\x31\x1F\x61\x11\x1A\x05"
			    "Ralph\x1A\x01"
			    "T\x1A\x05"
			    "Smith\xA0\x0A\x43\x08"
			    "19571111\x31\x1F\x61\x11\x1A\x05"
			    "Susan\x1A\x01"
			    "B\x1A\x05"
			    "Jones\xA0\x0A\x43\x08"
			    "19590717";

static struct mk_asn1 asn1_of(const char *opts)
{
	char rule[256];
	struct mk_rule *r;
	struct mk_asn1 a;

	snprintf(rule, sizeof(rule), R("asn1:%s;"), opts);
	r = rule_ok(rule);
	cr_assert_eq(r->pmatch[0].kw, &mk_kw_asn1);
	a = *(struct mk_asn1 *)r->pmatch[0].ctx;
	mk_rule_free(r);
	return a;
}

/* mk_asn1_match on an exact-size copy of buf[0, len). */
static int asn1_on(const char *opts, const uint8_t *buf, uint32_t len)
{
	struct mk_asn1 a = asn1_of(opts);
	uint8_t *copy = malloc(len ? len : 1);
	int m;

	memcpy(copy, buf, len);
	m = mk_asn1_match(&a, copy, len, 0);
	free(copy);
	return m;
}

Test(asn1, suricata_vectors)
{
	uint8_t dbl[261];

	cr_assert_eq(sizeof(A3) - 1, 136);
	cr_assert(asn1_on("oversize_length 132 absolute_offset 0", A3, 136));
	cr_assert(!asn1_on("oversize_length 133 absolute_offset 0", A3, 136));
	cr_assert(asn1_on("bitstring_overflow, absolute_offset 0", (const uint8_t *)"\x03\x01\xff",
			  3));
	cr_assert(!asn1_on("bitstring_overflow, absolute_offset 0", (const uint8_t *)"\x03\x01\x07",
			   3));
	memset(dbl, 5, sizeof(dbl));
	dbl[0] = 0x09; /* REAL, primitive */
	dbl[1] = 0x82;
	dbl[2] = 0x01;
	dbl[3] = 0x01; /* 257 */
	cr_assert(asn1_on("double_overflow, absolute_offset 0", dbl, 261));
	dbl[3] = 0x00; /* 256 */
	cr_assert(!asn1_on("double_overflow, absolute_offset 0", dbl, 260));
	dbl[4] = 0x40; /* binary form: not the decimal overflow */
	dbl[3] = 0x01;
	cr_assert(!asn1_on("double_overflow", dbl, 261));
}

Test(asn1, every_truncation_reads_in_bounds)
{
	uint32_t n;

	/* a truncated object does not parse: nothing is checked (ASan: no overread) */
	for (n = 0; n < 136; n++)
		cr_assert(!asn1_on("oversize_length 0", A3, n), "prefix %u", n);
	cr_assert(asn1_on("oversize_length 0", A3, 136));
	/* an object that parses is checked even if the next one is truncated */
	{
		uint8_t b[8] = { 0x03, 0x01, 0xff, 0x30, 0x05, 0x02, 0x01 };

		for (n = 3; n <= 7; n++)
			cr_assert(asn1_on("bitstring_overflow", b, n), "len %u", n);
		for (n = 0; n < 3; n++)
			cr_assert(!asn1_on("bitstring_overflow", b, n), "len %u", n);
	}
}

Test(asn1, nested_indefinite_and_malformed)
{
	uint8_t b[200];
	uint32_t i, n;

	/* found inside a SEQUENCE, and inside an indefinite-length one */
	cr_assert(asn1_on("bitstring_overflow", (const uint8_t *)"\x30\x03\x03\x01\xff", 5));
	cr_assert(
		asn1_on("bitstring_overflow", (const uint8_t *)"\x30\x80\x03\x01\xff\x00\x00", 7));
	cr_assert(!asn1_on("bitstring_overflow", (const uint8_t *)"\x30\x80\x03\x01\xff", 5),
		  "no end-of-contents: does not parse");
	cr_assert(!asn1_on("bitstring_overflow", (const uint8_t *)"\x30\x04\x03\x01\xff", 5),
		  "longer than the buffer");
	cr_assert(!asn1_on("bitstring_overflow", (const uint8_t *)"\x30\x02\x03\x01\xff", 5),
		  "a child longer than its parent");
	cr_assert(!asn1_on("bitstring_overflow", (const uint8_t *)"\x03\x80\x03\x01\xff", 5),
		  "indefinite length on a primitive");
	cr_assert(!asn1_on("oversize_length 0",
			   (const uint8_t *)"\x04\x89\x00\x00\x00\x00\x00\x00\x00\x00\x01", 11),
		  "9 length octets");
	cr_assert(!asn1_on("oversize_length 0", (const uint8_t *)"\x04\xff", 2));
	cr_assert(!asn1_on("oversize_length 0", (const uint8_t *)"\x1f\xff\xff\xff\xff\x7f\x00", 7),
		  "a tag number of more than 28 bits");
	cr_assert(asn1_on("oversize_length 0", (const uint8_t *)"\x1f\x81\x01\x01\x00", 5),
		  "a high tag number");
	cr_assert(!asn1_on("oversize_length 0", (const uint8_t *)"\x01\x02\x00\x00", 4),
		  "a BOOLEAN of two bytes does not parse");
	cr_assert(asn1_on("oversize_length 0", (const uint8_t *)"\x30\x80\x04\x01\x41\x00\x00", 7),
		  "an indefinite length counts its content");
	cr_assert(
		!asn1_on("oversize_length 3", (const uint8_t *)"\x30\x80\x04\x01\x41\x00\x00", 7));

	/* nesting: 29 SEQUENCEs around the BIT STRING (30 levels) parse, 30 do not */
	for (n = 29; n <= 30; n++) {
		uint32_t o = 0, inner = 3;

		for (i = 0; i < n; i++) {
			b[o++] = 0x30;
			b[o++] = (uint8_t)(inner + 2 * (n - 1 - i));
		}
		b[o++] = 0x03;
		b[o++] = 0x01;
		b[o++] = 0xff;
		cr_assert_eq(asn1_on("bitstring_overflow", b, o), n == 29, "%u levels", n + 1);
	}
	/* at most 30 objects: 29 NULLs and the BIT STRING match, 30 NULLs first do not */
	for (n = 29; n <= 30; n++) {
		uint32_t o = 0;

		for (i = 0; i < n; i++) {
			b[o++] = 0x05;
			b[o++] = 0x00;
		}
		b[o++] = 0x03;
		b[o++] = 0x01;
		b[o++] = 0xff;
		cr_assert_eq(asn1_on("bitstring_overflow", b, o), n == 29, "%u objects", n + 1);
	}
}

Test(asn1, positions)
{
	const char *bs = "XXXX\x03\x01\xff";
	char buf[16];

	memcpy(buf, bs, 8);
	cr_assert(!payload_match_at(R("asn1:bitstring_overflow;"), buf, 7, 0, 0),
		  "from the start: 'XX' is no BER");
	cr_assert(payload_match_at(R("asn1:bitstring_overflow, absolute_offset 4;"), buf, 7, 0, 0));
	cr_assert(!payload_match_at(R("asn1:bitstring_overflow, absolute_offset 7;"), buf, 7, 0, 0),
		  "at the end: nothing");
	cr_assert(payload_match_at(
		R("content:\"XXXX\"; asn1:bitstring_overflow, relative_offset 0;"), buf, 7, 0, 0));
	cr_assert(payload_match_at(R("content:\"XXX\"; depth:3; asn1:bitstring_overflow, "
				     "relative_offset 1;"),
				   buf, 7, 0, 0));
	cr_assert(payload_match_at(R("content:\"XX\"; asn1:relative_offset 2 bitstring_overflow;"),
				   buf, 7, 0, 0));
	cr_assert(!payload_match_at(R("content:\"XXXX\"; asn1:bitstring_overflow, "
				      "relative_offset -5;"),
				    buf, 7, 0, 0),
		  "before the buffer");
	cr_assert(payload_match_at(R("asn1:bitstring_overflow, absolute_offset 4, "
				     "relative_offset 100;"),
				   buf, 7, 0, 0),
		  "absolute_offset wins, as Suricata");
}

Test(asn1, parse)
{
	struct mk_asn1 a = asn1_of("oversize_length 1024 absolute_offset 10, bitstring_overflow");
	struct mk_rule *r;

	cr_assert_eq(a.flags, MK_ASN1_OVERSIZE | MK_ASN1_ABSOLUTE | MK_ASN1_BITSTRING_OVERFLOW);
	cr_assert_eq(a.oversize_length, 1024);
	cr_assert_eq(a.absolute_offset, 10);
	a = asn1_of("double_overflow, oversize_length 4294967295 relative_offset -65535");
	cr_assert_eq(a.oversize_length, 4294967295u);
	cr_assert_eq(a.relative_offset, -65535);
	a = asn1_of("oversize_length 0, absolute_offset 65535, relative_offset 65535");
	cr_assert_eq(a.absolute_offset, 65535);

	r = rule_ok("alert tcp any any -> any any (content:\"x\"; asn1:oversize_length 9; sid:1;)");
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_PKT, "the packet's payload, as Suricata");
	mk_rule_free(r);
}

Test(asn1, parse_errors)
{
	rule_err(R("asn1:oversize_length;"), "keyword 'asn1': 'oversize_length': oversize_length "
					     "needs a number");
	rule_err(R("asn1:oversize_length -1;"), "needs a number 0-4294967295");
	rule_err(R("asn1:oversize_length 4294967296;"), "needs a number");
	rule_err(R("asn1:oversize_length 10x;"), "missing ',' or space");
	rule_err(R("asn1:absolute_offset 65536, bitstring_overflow;"), "needs a number 0-65535");
	rule_err(R("asn1:relative_offset -65536, bitstring_overflow;"),
		 "needs a number -65535-65535");
	rule_err(R("asn1:bitstring_overflowabsolute_offset 1;"), "missing ',' or space");
	rule_err(R("asn1:oversize_length 1024,,;"), "empty option after ','");
	rule_err(R("asn1:oversize_length 1024, some_other_param 360;"),
		 "unknown option 'some_other_param 360'");
	rule_err(R("asn1:absolute_offset 0;"), "needs a check");
	rule_err(R("asn1;"), "needs a value");
	rule_err("alert tcp-stream any any -> any any (asn1:bitstring_overflow; sid:1;)",
		 "packet keywords");
}

Test(asn1, through_the_pipeline)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any 161 (msg:\"asn1\"; asn1:oversize_length 100; sid:1;)\n");
	char big[160], ok[16] = "\x30\x03\x02\x01\x01";

	memset(big, 'A', sizeof(big));
	big[0] = 0x04;
	big[1] = 0x81;
	big[2] = 150;
	{
		struct frame f;

		frame_udp(&f, "10.0.0.1", 1000, "10.0.0.2", 161, big, 153, 64, 0);
		h_frame(h, f.b, f.len, MK_START_ETH, T0);
		frame_udp(&f, "10.0.0.1", 1000, "10.0.0.2", 161, ok, 5, 64, 0);
		h_frame(h, f.b, f.len, MK_START_ETH, T0 + 1);
		frame_udp(&f, "10.0.0.1", 1000, "10.0.0.2", 161, big, 100, 64, 0);
		h_frame(h, f.b, f.len, MK_START_ETH, T0 + 2);
	}
	cr_assert_eq(h_count(h, 1), 1, "the 150-byte OCTET STRING only (not its truncation)");
	harness_free(h);
}

/* ---- flowint -------------------------------------------------------------------------------- */

static void flow_pkts(struct harness *h, const char *const *data, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		udp(h, "10.0.0.1", 7000, "10.0.0.2", 22, data[i], T0 + i);
}

Test(flowint, changes_after_the_whole_rule_matched)
{
	/* Suricata: =, + and - are post-match; a comparison in the same rule sees the old value */
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"a\"; flowint:n,+,1; flowint:n,>,0; sid:1;)\n"
		"alert udp any any -> any any (content:\"b\"; flowint:m,+,1; noalert; sid:2;)\n"
		"alert udp any any -> any any (content:\"b\"; flowint:m,+,1; flowint:m,==,1; "
		"sid:3;)\n"
		"alert udp any any -> any any (content:\"c\"; flowint:k,+,1; ttl:1; sid:4;)\n"
		"alert udp any any -> any any (content:\"c\"; flowint:k,isset; sid:5;)\n");
	static const char *const p[] = { "a", "a", "b", "b", "c", "c" };

	flow_pkts(h, p, MK_ARRAY_SIZE(p));
	cr_assert_eq(h_count(h, 1), 0, "n is never set: the rule never matches, never adds");
	cr_assert_eq(h_count(h, 3), 1, "first b: m=1 by sid 2, then 2 by sid 3 after its match");
	cr_assert_eq(h_count(h, 5), 0, "sid 4 failed on ttl: k was not created");
	harness_free(h);
}

Test(flowint, unset_variables)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"sub\"; flowint:m,-,1; noalert; sid:1;)\n"
		"alert udp any any -> any any (content:\"sub\"; flowint:m,isnotset; sid:2;)\n"
		"alert udp any any -> any any (content:\"set\"; flowint:x,=,1; flowint:z,=,nothere; "
		"noalert; sid:3;)\n"
		"alert udp any any -> any any (content:\"cmp\"; flowint:x,>,nothere; sid:4;)\n"
		"alert udp any any -> any any (content:\"cmp\"; flowint:z,==,0; sid:5;)\n"
		"alert udp any any -> any any (content:\"cmp\"; flowint:nothere,<,5; sid:6;)\n"
		"alert udp any any -> any any (content:\"cmp\"; flowint:nothere,notset; sid:7;)\n");
	static const char *const p[] = { "sub", "sub", "set", "cmp" };

	flow_pkts(h, p, MK_ARRAY_SIZE(p));
	cr_assert_eq(h_count(h, 2), 2, "'-' on an unset variable leaves it unset");
	cr_assert_eq(h_count(h, 4), 1, "an unset variable as the value counts as 0");
	cr_assert_eq(h_count(h, 5), 1, "'=' from an unset variable sets 0");
	cr_assert_eq(h_count(h, 6), 0, "a comparison needs its variable set");
	cr_assert_eq(h_count(h, 7), 1);
	harness_free(h);
}

Test(flowint, operators_and_wrap_around)
{
	struct harness *h = harness_rules(
		"alert udp any any -> any any (content:\"max\"; flowint:w,=,4294967295; "
		"flowint:v,=,7; noalert; sid:1;)\n"
		"alert udp any any -> any any (content:\"inc\"; flowint:w,+1; flowint:v,-,v; "
		"noalert; sid:2;)\n"
		"alert udp any any -> any any (content:\"chk\"; flowint:w,==,0; sid:3;)\n"
		"alert udp any any -> any any (content:\"chk\"; flowint:v,<=,0; flowint:v,>=,0; "
		"flowint:v,!=,1; flowint:v,<,1; sid:4;)\n"
		"alert udp any any -> any any (content:\"dec\"; flowint:w,-,1; noalert; sid:5;)\n"
		"alert udp any any -> any any (content:\"wrp\"; flowint:w,==,4294967295; sid:6;)\n"
		"alert udp any any -> any any (content:\"chk\"; flowint:w,==,v; flowint:w,>=,v; "
		"sid:7;)\n");
	static const char *const p[] = { "max", "inc", "chk", "dec", "wrp" };

	flow_pkts(h, p, MK_ARRAY_SIZE(p));
	cr_assert_eq(h_count(h, 3), 1, "4294967295 + 1 wraps to 0");
	cr_assert_eq(h_count(h, 4), 1, "v - v = 0");
	cr_assert_eq(h_count(h, 6), 1, "0 - 1 wraps to 4294967295");
	cr_assert_eq(h_count(h, 7), 1, "compared with another flowint");
	harness_free(h);
}

Test(flowint, counts_every_packet)
{
	/* a rule with only flowint:+ is no address-only rule (those see a flow's first packets) */
	struct harness *h =
		harness_rules("alert udp any any -> any any (flowint:pk,+,1; noalert; sid:1;)\n"
			      "alert udp any any -> any any (flowint:pk,==,3; sid:2;)\n");
	static const char *const p[] = { "1", "2", "3", "4" };
	struct mk_rule *r = rule_ok(R("flowint:pk,+,1; noalert;"));

	cr_assert(!(r->flags & MK_RF_IPONLY));
	mk_rule_free(r);
	flow_pkts(h, p, MK_ARRAY_SIZE(p));
	cr_assert_eq(h_count(h, 2), 1, "the third packet");
	harness_free(h);
}

Test(flowint, parse)
{
	struct mk_rule *r = rule_ok(R("flowint:cnt,+1;"));

	cr_assert_eq(r->npost, 1, "+ is a post-match action");
	cr_assert_eq(r->nmatch, 0);
	mk_rule_free(r);
	r = rule_ok(R("flowint: a.b/c_1 , >= , other; flowint:cnt,isnotset; flowint:cnt,>5;"));
	cr_assert_eq(r->nmatch, 3);
	cr_assert_eq(r->npost, 0);
	mk_rule_free(r);
	rule_err(R("flowint:cnt,=,4294967296;"),
		 "keyword 'flowint': '4294967296' is not a number 0-4294967295");
	rule_err(R("flowint:1abc,=,1;"), "'1abc' is not a flowint name");
	rule_err(R("flowint:cnt,=,-1;"), "'-1' is not a number nor a flowint name");
	rule_err(R("flowint:cnt,isset,3;"), "isset and notset take no value");
	rule_err(R("flowint:cnt,>;"), "'>' needs one");
	rule_err(R("flowint:cnt,~,1;"), "unknown operator '~'");
	rule_err(R("flowint:cnt,issetx;"), "unknown operator 'issetx'");
	rule_err(R("flowint:cnt,+1,2;"), "unknown operator '+1'");
	rule_err(R("flowint:cnt;"), "expected 'name, operator[, value]'");
}
