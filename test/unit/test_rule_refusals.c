// SPDX-License-Identifier: GPL-2.0-only
/*
 * The refused rules grouped by reason (userspace/detect/engine/refusals.c):
 * a reason keeps the keyword or protocol and drops sids and values; an
 * engine built from rules refused for a few reasons lists them most
 * frequent first with their counts; the list is bounded ("N refused for M
 * more reasons"); a table full of distinct reasons still counts every rule;
 * a flowbit that rules check and none sets is named in a warning; rules that
 * could never match (a response buffer with flow:to_server, app-layer-protocol
 * against the rule's own protocol) are refused.
 */
#include <unistd.h>
#include "detect_helpers.h"
#include "log.h"

TestSuite(refusals);

static void reason_is(const char *err, const char *want)
{
	char out[MK_RULE_ERR_LEN + 64];

	mk_refusal_reason(err, out, sizeof(out));
	cr_assert_str_eq(out, want, "'%s' -> '%s'", err, out);
}

Test(refusals, reason_drops_values_keeps_names)
{
	reason_is("protocol 'smb' not supported (app-layer protocols are not inspected)",
		  "protocol 'smb' not supported (app-layer protocols are not inspected)");
	reason_is("keyword 'ja3.hash': not supported (x)", "keyword 'ja3.hash': not supported (x)");
	reason_is("keyword 'depth': 70000 is outside [1, 65535]",
		  "keyword 'depth': N is outside [1, 65535]");
	reason_is("destination port: port above 65535", "destination port: port above 65535");
	reason_is("keyword 'flowbits': more than 16 names",
		  "keyword 'flowbits': more than 16 names");
	reason_is("source address: missing ']'", "source address: missing ']'");
	reason_is("source address: '!any' matches nothing",
		  "source address: '...' matches nothing");
	reason_is("keyword 'content': bad value '|zz|'", "keyword 'content': bad value '...'");
	reason_is("keyword 'pcre': \"/a(b/\" does not compile at 3",
		  "keyword 'pcre': \"...\" does not compile at N");
	reason_is("source address: 10.0.0.0/33 is not a network",
		  "source address: N/N is not a network");
	reason_is("keyword 'http2.header': x", "keyword 'http2.header': x");
	reason_is("keyword 'x': value 'cut sh", "keyword 'x': value '...");
	reason_is("keyword 'x': 3des and s3", "keyword 'x': 3des and s3");
	reason_is("", "");
}

Test(refusals, reason_output_bounded)
{
	char out[8];

	memset(out, 'z', sizeof(out));
	mk_refusal_reason("keyword 'abcdefgh': x", out, sizeof(out));
	cr_assert_str_eq(out, "keyword");
	mk_refusal_reason("'abcdef'", out, 3);
	cr_assert_str_eq(out, "'.");
}

struct lines {
	char text[32][512];
	unsigned int n;
};

static void collect(const char *text, void *arg)
{
	struct lines *l = arg;

	cr_assert_lt(l->n, 32);
	snprintf(l->text[l->n++], sizeof(l->text[0]), "%s", text);
}

static struct mk_detect_engine *build_quiet(const char *rules)
{
	struct mk_detect_cfg cfg = { .rules_text = rules };
	struct mk_detect_engine *e;

	cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), 0);
	return e;
}

static struct mk_detect_engine *build(const char *rules)
{
	mk_log_set_level(MK_LOG_ERROR - 1);
	return build_quiet(rules);
}

Test(refusals, engine_groups_by_reason_most_frequent_first)
{
	struct mk_detect_engine *e =
		build("alert dnp3 any any -> any any (msg:\"a\"; sid:1;)\n"
		      "alert dnp3 any any -> any any (msg:\"b\"; sid:2;)\n"
		      "alert dnp3 any any -> any any (msg:\"c\"; sid:3;)\n"
		      "alert tcp any any -> any any (content:\"x\"; depth:70000; sid:4;)\n"
		      "alert tcp any any -> any any (content:\"y\"; depth:99999; sid:5;)\n"
		      "alert tcp any any -> any any (iprep:src,x,>,1; sid:6;)\n"
		      "alert tcp any any -> any any (content:\"ok\"; sid:7;)\n"
		      "alert tcp any any -> any any (content:\"ok\"; sid:7;)\n");
	struct lines l = { .n = 0 };

	cr_assert_eq(mk_detect_engine_stats(e)->failed, 7);
	cr_assert_eq(mk_detect_engine_refusals(e, 20, collect, &l), 4);
	cr_assert_eq(l.n, 4);
	cr_assert(!strncmp(l.text[0], "3 refused: protocol 'dnp3' not supported", 40), "%s",
		  l.text[0]);
	cr_assert_str_eq(l.text[1], "2 refused: keyword 'depth': N is outside [1, 65535]");
	/* ties in the order of their text */
	cr_assert_str_eq(l.text[2], "1 refused: duplicate sid: ignored");
	cr_assert_str_eq(l.text[3], "1 refused: keyword 'iprep': not supported (IP reputation: "
				    "not supported)");
	l.n = 0;
	cr_assert_eq(mk_detect_engine_refusals(e, 2, collect, &l), 3);
	cr_assert_str_eq(l.text[2], "2 refused for 2 more reasons");
	mk_detect_engine_put(e);

	e = build("alert tcp any any -> any any (content:\"ok\"; sid:1;)\n");
	l.n = 0;
	cr_assert_eq(mk_detect_engine_refusals(e, 20, collect, &l), 0, "nothing refused, no line");
	mk_detect_engine_put(e);
}

Test(refusals, table_full_still_counts_every_rule)
{
	struct mk_refusals t = { 0 };
	struct lines l = { .n = 0 };
	char err[64];
	uint32_t i;

	/* distinct reasons past the table: keyword names differ */
	for (i = 0; i < MK_REFUSALS_MAX + 10; i++) {
		snprintf(err, sizeof(err), "keyword 'k%u': unknown keyword", i);
		cr_assert_eq(mk_refusals_add(&t, err), 0);
	}
	cr_assert_eq(mk_refusals_add(&t, "keyword 'k0': unknown keyword"), 0);
	mk_refusals_sort(&t);
	cr_assert_eq(t.rules, MK_REFUSALS_MAX + 11);
	cr_assert_eq(t.n, MK_REFUSALS_MAX);
	cr_assert_eq(t.other, 10);
	cr_assert_str_eq(t.v[0].why, "keyword 'k0': unknown keyword");
	cr_assert_eq(t.v[0].n, 2);
	cr_assert_eq(mk_refusals_lines(&t, 1, collect, &l), 2);
	cr_assert_str_eq(l.text[1], "1033 refused for at least 1024 more reasons", "%s", l.text[1]);
	mk_refusals_free(&t);
}

/* The warnings an engine build writes (stderr), read back. */
static char *build_log(const char *rules)
{
	char path[] = "/tmp/mk_refusals_log.XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(2);
	struct mk_detect_engine *e;
	FILE *f;
	long n;

	cr_assert(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	mk_log_set_level(MK_LOG_WARN);
	e = build_quiet(rules);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	mk_detect_engine_put(e);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	unlink(path);
	return text;
}

Test(refusals, flowbit_checked_never_set_is_named)
{
	char *log = build_log(
		"alert tcp any any -> any any (content:\"a\"; flowbits:isset,nobody; sid:1;)\n"
		"alert tcp any any -> any any (content:\"b\"; flowbits:isset,nobody; sid:2;)\n"
		"alert tcp any any -> any any (content:\"c\"; flowbits:set,someone; noalert; sid:3;)\n"
		"alert tcp any any -> any any (content:\"d\"; flowbits:isset,someone; sid:4;)\n"
		"alert tcp any any -> any any (content:\"e\"; flowbits:toggle,flip; sid:5;)\n"
		"alert tcp any any -> any any (content:\"f\"; flowbits:isset,flip; sid:6;)\n"
		"alert tcp any any -> any any (content:\"g\"; flowbits:isnotset,never; sid:7;)\n"
		"alert tcp any any -> any any (content:\"h\"; flowbits:isset,someone|other; sid:8;)\n"
		"alert tcp any any -> any any (content:\"i\"; flowbits:isset,someone&gone; sid:9;)\n");

	cr_assert(strstr(log, "sid 1: flowbit 'nobody' is checked but no rule sets it: 2 rule(s) "
			      "cannot fire"),
		  "%s", log);
	cr_assert(strstr(log, "sid 9: flowbit 'gone' is checked but no rule sets it: 1 rule(s)"),
		  "%s", log);
	cr_assert_null(strstr(log, "'someone'"), "set by sid 3: %s", log);
	cr_assert_null(strstr(log, "'flip'"), "toggled by sid 5: %s", log);
	cr_assert_null(strstr(log, "'never'"), "isnotset can fire: %s", log);
	cr_assert_null(strstr(log, "'other'"), "any of several, one of them set: %s", log);
	free(log);
}

Test(refusals, rules_that_cannot_fire_counted_in_the_summary)
{
	struct mk_detect_engine *e = build(
		"alert tcp any any -> any any (content:\"a\"; flowbits:isset,nobody; sid:1;)\n"
		"alert tcp any any -> any any (content:\"b\"; flowbits:isset,nobody; "
		"flowbits:isset,gone; sid:2;)\n"
		"alert tcp any any -> any any (content:\"c\"; flowbits:set,x; sid:3;)\n"
		"alert tcp any any -> any any (content:\"d\"; flowbits:isset,x; sid:4;)\n"
		"alert dnp3 any any -> any any (sid:5;)\n");
	struct lines l = { .n = 0 };

	cr_assert_eq(mk_detect_engine_refusals(e, 20, collect, &l), 2);
	cr_assert(!strncmp(l.text[0], "1 refused: protocol 'dnp3'", 26), "%s", l.text[0]);
	cr_assert_str_eq(l.text[1],
			 "2 loaded but cannot fire: a flowbit they check is set by no rule");
	mk_detect_engine_put(e);
}

/*
 * A response buffer in a flow:to_server rule: the rule would be inspected on
 * responses and its flow keyword would fail there, so it could never fire
 * (checked by hand on an HTTP conversation): refused, as Suricata does.
 */
Test(refusals, response_buffer_in_to_server_rule)
{
	static const char *const refused[] = {
		"alert http any any -> any any (flow:established,to_server; http.stat_code; "
		"content:\"200\"; sid:1;)",
		"alert http any any -> any any (flow:to_server; http.uri; content:\"/x\"; "
		"http.server; content:\"y\"; sid:2;)",
		"alert http any any -> any any (flow:from_client; http.response_body; content:\"x\"; "
		"sid:3;)",
		"alert tls any any -> any any (flow:to_server; ja3s.hash; content:\"abc\"; sid:4;)",
	};
	static const char *const loaded[] = {
		"alert http any any -> any any (flow:to_client; http.stat_code; content:\"200\"; "
		"sid:5;)",
		"alert http any any -> any any (flow:established; http.stat_code; content:\"200\"; "
		"sid:6;)",
		/* file.data follows the rule's direction: the request body here */
		"alert http any any -> any any (flow:to_server; file.data; content:\"x\"; sid:7;)",
		"alert http any any -> any any (flow:to_server; http.uri; content:\"/x\"; sid:8;)",
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(refused); i++) {
		const char *err;
		int reason;
		struct mk_rule *r = rule_parse(refused[i], &err, &reason);

		cr_assert_null(r, "should be refused: %s", refused[i]);
		cr_assert(strstr(err, "a response buffer in a flow:to_server rule: it could never "
				      "match"),
			  "%s: %s", refused[i], err);
		cr_assert_eq(reason, MK_DETECT_FAIL_VALUE);
	}
	for (i = 0; i < MK_ARRAY_SIZE(loaded); i++)
		mk_rule_free(rule_ok(loaded[i]));
}

/* app-layer-protocol against the rule's own protocol: never true, refused */
Test(refusals, app_layer_protocol_against_the_rules_own)
{
	static const char *const refused[] = {
		"alert dns any any -> any any (app-layer-protocol:tls; dns.query; content:\"x\"; "
		"sid:1;)",
		"alert tls any any -> any any (app-layer-protocol:!tls; sid:2;)",
		"alert tcp any any -> any any (tls.sni; content:\"x\"; app-layer-protocol:http; "
		"sid:3;)",
		"alert http any any -> any any (app-layer-protocol:failed; sid:4;)",
	};
	static const char *const loaded[] = {
		"alert http any any -> any any (app-layer-protocol:http; content:\"x\"; sid:5;)",
		"alert http any any -> any any (app-layer-protocol:http1; sid:6;)",
		"alert tls any any -> any any (app-layer-protocol:!http; sid:7;)",
		"alert tcp any any -> any any (app-layer-protocol:failed; sid:8;)",
		"alert tcp any any -> any any (app-layer-protocol:!dns; content:\"x\"; sid:9;)",
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(refused); i++) {
		const char *err;
		int reason;
		struct mk_rule *r = rule_parse(refused[i], &err, &reason);

		cr_assert_null(r, "should be refused: %s", refused[i]);
		cr_assert(strstr(err, "keyword 'app-layer-protocol': ") &&
				  strstr(err, ": it could never match"),
			  "%s: %s", refused[i], err);
		cr_assert_eq(reason, MK_DETECT_FAIL_VALUE);
	}
	for (i = 0; i < MK_ARRAY_SIZE(loaded); i++)
		mk_rule_free(rule_ok(loaded[i]));
}
