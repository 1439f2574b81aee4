// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine as a whole (userspace/detect/engine/engine.c and friends): rule files
 * (continuation lines, comments, duplicates, strict mode, the load summary),
 * classification/reference/threshold.config, rule order, the prefilter
 * against plain evaluation on random rules and payloads, reload (swap
 * between packets, a failed build keeps the old rules, generation, flowbits
 * kept), the ordered alert filters, and EVE alert records (valid JSON for
 * hostile strings, Suricata's fields).
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <unistd.h>
#include "detect_helpers.h"
#include "json.h"
#include "log.h"

static char *tmp_file(const char *content)
{
	char *path = strdup("/tmp/mk_detect_test.XXXXXX");
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	return path;
}

static const char *CLASSES =
	"# comment\n"
	"config classification: trojan-activity,A Network Trojan was detected,1\n"
	"config classification: misc-activity,Misc activity,3\n"
	"config classification: broken line\n";
static const char *REFS =
	"config reference: url http://\nconfig reference: cve http://cve.mitre.org/\n";

TestSuite(engine, .init = NULL);

Test(engine, files_continuations_duplicates_summary)
{
	char *classes = tmp_file(CLASSES), *refs = tmp_file(REFS);
	char *rules = tmp_file(
		"# a comment, then a rule over three lines\n"
		"alert tcp any any -> any 80 (msg:\"multi\"; \\\n"
		"    content:\"abc\"; \\\n"
		"    classtype:trojan-activity; sid:1; rev:1;)\n"
		"\n"
		"# alert tcp any any -> any any (msg:\"disabled\"; sid:99;)\n"
		"alert tcp any any -> any any (msg:\"dup lower\"; sid:1; rev:0;)\n"
		"alert tcp any any -> any any (msg:\"dup higher\"; content:\"x\"; sid:2; rev:1;)\n"
		"alert tcp any any -> any any (msg:\"dup higher\"; content:\"y\"; sid:2; rev:5;)\n"
		"alert tcp any any -> any any (http.request_header; content:\"/x\"; sid:3;)\n"
		"alert tcp any any -> any any (msg:\"bad\" sid:4;)\n"
		"alert udp any any -> any any (content:!\"x\"; sid:5;)\n"
		"alert ip any any -> any any (sid:6;)\n"
		"alert tcp any any -> any any (pcre:\"/x/\"; reference:cve,1; sid:7;)\n"
		"alert tcp any any -> any any (reference:nope,1; sid:8;)\n");
	const char *files[] = { rules };
	struct mk_detect_cfg cfg = { .rule_files = files,
				     .nrule_files = 1,
				     .classification_file = classes,
				     .reference_config_file = refs };
	const struct mk_detect_load_stats *st;
	struct mk_detect_engine *e;
	const struct mk_rule *r;
	char sum[512];

	mk_log_set_level(MK_LOG_ERROR - 1);
	cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), 0);
	st = mk_detect_engine_stats(e);
	cr_assert_eq(st->files, 1);
	cr_assert_eq(st->loaded, 5, "1, 2 (rev 5), 5, 6, 7: got %u", st->loaded);
	cr_assert_eq(st->failed, 5);
	cr_assert_eq(st->fail[MK_DETECT_FAIL_DUPLICATE], 2);
	cr_assert_eq(st->fail[MK_DETECT_FAIL_KEYWORD], 1);
	cr_assert_eq(st->fail[MK_DETECT_FAIL_SYNTAX], 1);
	cr_assert_eq(st->fail[MK_DETECT_FAIL_REFERENCE], 1);
	cr_assert_eq(st->config_errors, 1, "the broken classification line");
	cr_assert_eq(st->no_fast_pattern, 2, "sid 5 (only a negated content) and 7 (only a pcre)");
	cr_assert_eq(st->ip_only, 1);
	cr_assert_eq(st->pcre, 1);
	r = mk_detect_engine_rule(e, 1, 1);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->msg, "multi");
	cr_assert_eq(r->line, 2, "the line where the rule starts");
	cr_assert_str_eq(r->cls->desc, "A Network Trojan was detected");
	r = mk_detect_engine_rule(e, 1, 2);
	cr_assert_eq(r->rev, 5, "the higher rev replaces the lower one");
	cr_assert_null(mk_detect_engine_rule(e, 1, 99));
	mk_detect_engine_summary(e, sum, sizeof(sum));
	cr_assert(
		strstr(sum,
		       "5 rules loaded from 1 file(s), 5 failed (syntax 1, unsupported_keyword 1, "
		       "unknown_reference 1, duplicate_sid 2)"),
		"%s", sum);
	mk_detect_engine_put(e);

	cfg.strict = 1;
	cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), -EINVAL,
		     "--strict-rules: any failure is fatal");
	cfg.strict = 0;
	{
		const char *missing[] = { "/nonexistent/x.rules" };

		cfg.rule_files = missing;
		cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), -ENOENT);
	}
	unlink(classes);
	unlink(rules);
	unlink(refs);
	free(classes);
	free(rules);
	free(refs);
}

Test(engine, default_rule_path_and_rules_text)
{
	char dir[] = "/tmp/mk_rules_XXXXXX", path[64];
	const char *files[] = { "local.rules" };
	struct mk_detect_cfg cfg = {
		.rule_files = files,
		.nrule_files = 1,
		.default_rule_path = dir,
		.rules_text = "alert udp any any -> any any (content:\"b\"; sid:2;)"
	};
	struct mk_detect_engine *e;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/local.rules", dir);
	f = fopen(path, "w");
	fputs("alert udp any any -> any any (content:\"a\"; sid:1;)", f); /* no final newline */
	fclose(f);
	cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), 0);
	cr_assert_eq(mk_detect_engine_nrules(e), 2);
	mk_detect_engine_put(e);
	unlink(path);
	rmdir(dir);
}

Test(engine, rule_order_action_then_priority)
{
	struct mk_detect_cfg cfg = {
		.rules_text = "alert udp any any -> any any (priority:3; sid:1;)\n"
			      "alert udp any any -> any any (priority:1; sid:2;)\n"
			      "drop udp any any -> any any (sid:3;)\n"
			      "reject udp any any -> any any (sid:4;)\n"
			      "pass udp any any -> any any (sid:5;)\n"
			      "alert udp any any -> any any (priority:1; sid:6;)\n",
	};
	static const uint32_t want[] = { 5, 3, 4, 2, 6, 1 };
	struct mk_detect_engine *e;
	unsigned int i;

	cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &e), 0);
	for (i = 0; i < MK_ARRAY_SIZE(want); i++)
		cr_assert_eq(e->rules[i]->sid, want[i], "position %u: sid %u, want %u", i,
			     e->rules[i]->sid, want[i]);
	mk_detect_engine_put(e);
}

Test(engine, drop_and_reject_act_inline_only)
{
	struct mk_detect_cfg cfg = test_cfg;
	struct harness h;
	char *out = NULL;
	size_t outlen = 0;

	cfg.rules_text = "drop udp any any -> any any (content:\"bad\"; sid:1;)\n"
			 "alert udp any any -> any any (content:\"bad\"; sid:2;)\n";
	cr_assert_eq(h_init_cfg(&h, &cfg), 0);
	h.eve = open_memstream(&out, &outlen);
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "bad", T0);
	fclose(h.eve);
	h.eve = NULL;
	cr_assert_eq(h.nalerts, 2, "IDS: drop alerts, then the rest still runs");
	cr_assert(!(h.verdicts & MK_DETECT_V_DROP));
	cr_assert(strstr(out, "\"action\":\"allowed\""));
	cr_assert_null(strstr(out, "blocked"));
	free(out);
	h_free(&h);

	cfg.inline_mode = 1;
	cr_assert_eq(h_init_cfg(&h, &cfg), 0);
	h.eve_opts.inline_mode = 1;
	out = NULL;
	h.eve = open_memstream(&out, &outlen);
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "bad", T0);
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "bad", T0 + 1);
	fclose(h.eve);
	h.eve = NULL;
	cr_assert_eq(h.nalerts, 1, "inline: the drop stops the packet and the flow");
	cr_assert(h.verdicts & MK_DETECT_V_DROP);
	cr_assert(strstr(out, "\"action\":\"blocked\""));
	free(out);
	h_free(&h);
}

Test(engine, threshold_config_suppress_and_override)
{
	char *tc = tmp_file(
		"suppress gen_id 1, sig_id 1, track by_src, ip [10.0.0.1,10.0.0.3]\n"
		"suppress gen_id 1, sig_id 2\n"
		"threshold gen_id 1, sig_id 3, type limit, track by_dst, count 2, seconds 60\n"
		"event_filter gen_id 0, sig_id 4, type both, track by_src, count 3, seconds 60\n"
		"rate_filter gen_id 1, sig_id 5, track by_rule, count 2, seconds 60, "
		"new_action pass, timeout 10\n"
		"suppress gen_id 1, sig_id 6, track by_src\n"
		"bogus line\n");
	struct mk_detect_cfg cfg = test_cfg;
	struct harness h;
	int i;

	cfg.threshold_file = tc;
	cfg.rules_text = "alert udp any any -> any any (content:\"a\"; sid:1;)\n"
			 "alert udp any any -> any any (content:\"a\"; sid:2;)\n"
			 "alert udp any any -> any any (content:\"a\"; sid:3; "
			 "threshold:type limit,track by_src,count 100,seconds 1;)\n"
			 "alert udp any any -> any any (content:\"a\"; sid:4;)\n"
			 "alert udp any any -> any any (content:\"a\"; sid:5;)\n";
	cr_assert_eq(h_init_cfg(&h, &cfg), 0);
	cr_assert_eq(mk_detect_engine_stats(h.eng)->config_errors, 2, "two bad lines, logged");
	for (i = 0; i < 6; i++)
		udp(&h, i & 1 ? "10.0.0.2" : "10.0.0.1", 1, "10.0.0.9", 2, "a",
		    T0 + (uint64_t)i * 1000000);
	cr_assert_eq(h_count(&h, 1), 3, "suppressed for 10.0.0.1 as source");
	cr_assert_eq(h_count(&h, 2), 0, "suppressed for everyone");
	cr_assert_eq(h_count(&h, 3), 2, "threshold.config replaces the rule's threshold");
	cr_assert_eq(h_count(&h, 4), 2, "both: once per source, at its 3rd match (gen_id 0: any)");
	cr_assert_eq(h_count(&h, 5), 2, "rate_filter pass after 2 in the window");
	h_free(&h);
	unlink(tc);
	free(tc);
}

Test(engine, threshold_filter_types)
{
	struct mk_detect_thresh *th;
	struct mk_detect_thresh_key k = { .gid = 1, .sid = 9, .family = MK_FAMILY_IPV4, .nspec = 1 };
	static const struct {
		uint8_t type, track;
		uint32_t count, seconds;
		const char *want; /* per match, 1 s apart, one source then another */
	} t[] = {
		{ MK_THRESH_LIMIT, MK_TRACK_SRC, 2, 10, "1100000011" },
		{ MK_THRESH_THRESHOLD, MK_TRACK_SRC, 3, 10, "0010010000" },
		{ MK_THRESH_BOTH, MK_TRACK_SRC, 3, 10, "0010000000" },
		{ MK_THRESH_DETECTION, MK_TRACK_SRC, 3, 10, "0001111100" },
		{ MK_THRESH_LIMIT, MK_TRACK_RULE, 2, 10, "1100000000" },
		{ MK_THRESH_LIMIT, MK_TRACK_SRC, 1, 3, "1001001010" },
	};
	unsigned int i, j;

	for (i = 0; i < MK_ARRAY_SIZE(t); i++) {
		cr_assert_eq(mk_detect_thresh_new(&th), 0);
		k.spec[0] = (struct mk_thresh_spec){ .type = t[i].type,
						     .track = t[i].track,
						     .count = t[i].count,
						     .seconds = t[i].seconds };
		for (j = 0; j < 10; j++) {
			/* the last two matches come from another source */
			k.src[0] = j < 8 ? 1 : 2;
			k.ts_us = T0 + (uint64_t)j * 1000000;
			cr_assert_eq(mk_detect_thresh_filter(th, &k, NULL), t[i].want[j] - '0',
				     "case %u match %u: want %c", i, j, t[i].want[j]);
		}
		mk_detect_thresh_free(th);
	}
}

/* ---- prefilter agreement ---------------------------------------------------------------- */

static uint64_t rng = 0x1234567;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void word(char *out, int len)
{
	int i;

	for (i = 0; i < len; i++)
		out[i] = (char)('a' + rnd(4));
	out[len] = '\0';
}

static void run_random(struct mk_detect_cfg *cfg, unsigned int *counts, unsigned int nrules)
{
	struct harness h;
	char payload[64];
	unsigned int i;

	cr_assert_eq(h_init_cfg(&h, cfg), 0);
	cr_assert_eq(mk_detect_engine_stats(h.eng)->failed, 0);
	rng = 42;
	for (i = 0; i < 3000; i++) {
		struct frame f;

		word(payload, 8 + (int)rnd(40));
		if (rnd(2))
			frame_udp(&f, "10.0.0.1", (uint16_t)(1000 + rnd(3)), "10.0.0.2",
				  (uint16_t)(50 + rnd(6)), payload, (uint32_t)strlen(payload), 64,
				  0);
		else
			frame_tcp(&f, "10.0.0.1", (uint16_t)(1000 + rnd(3)), "10.0.0.2",
				  (uint16_t)(50 + rnd(6)), i * 100, 0, MK_TCP_SYN, payload,
				  (uint32_t)strlen(payload));
		h_frame(&h, f.b, f.len, MK_START_ETH, T0 + i);
	}
	for (i = 0; i < nrules; i++)
		counts[i] = h_count(&h, i + 1);
	h_free(&h);
}

/* @n random content rules (words of a few letters, ports, negations, nocase) into @text. */
static void random_rules(char *text, size_t size, unsigned int n)
{
	size_t o = 0;
	unsigned int i;

	rng = 7;
	for (i = 0; i < n; i++) {
		char w1[8], w2[8], extra[64] = "", port[8] = "any";
		const char *proto = rnd(2) ? "udp" : "tcp-pkt";

		word(w1, 3 + (int)rnd(3));
		word(w2, 2 + (int)rnd(2));
		if (rnd(3))
			snprintf(port, sizeof(port), "%u", 50 + rnd(7));
		switch (rnd(4)) {
		case 0:
			snprintf(extra, sizeof(extra), "content:\"%s\"; distance:0; ", w2);
			break;
		case 1:
			snprintf(extra, sizeof(extra), "content:!\"%s\"; ", w2);
			break;
		case 2:
			snprintf(extra, sizeof(extra), "content:\"%s\"; ", w2);
			break;
		default:
			break;
		}
		o += (size_t)snprintf(text + o, size - o,
				      "alert %s any any -> any %s (content:\"%s\"; %s%ssid:%u;)\n",
				      proto, port, w1, rnd(3) ? "" : "nocase; ", extra, i + 1);
	}
}

Test(engine, prefilter_agrees_with_plain_evaluation)
{
	enum { N = 300 };
	static char text[N * 160];
	unsigned int with[N], without[N], i, total = 0;
	struct mk_detect_cfg cfg = { .rules_text = text, .port_groups = 3 };

	random_rules(text, sizeof(text), N);
	run_random(&cfg, with, N);
	cfg.no_prefilter = 1;
	run_random(&cfg, without, N);
	for (i = 0; i < N; i++) {
		cr_assert_eq(with[i], without[i],
			     "sid %u: %u alerts with the prefilter, %u without", i + 1, with[i],
			     without[i]);
		total += with[i];
	}
	cr_assert(total > 100, "the random rules should fire (%u)", total);
}

/* Databases of an engine built from @cfg, and how many came from the cache. */
static uint32_t cached_dbs(const struct mk_detect_cfg *cfg, uint32_t *dbs)
{
	struct mk_detect_engine *e;
	uint32_t cached;

	cr_assert_eq(mk_detect_engine_build(cfg, NULL, &e), 0);
	*dbs = mk_detect_engine_stats(e)->prefilter_dbs;
	cached = mk_detect_engine_stats(e)->prefilter_cached;
	mk_detect_engine_put(e);
	return cached;
}

/* Replaces every cache file in @dir with a few bytes that are not a database. */
static unsigned int spoil_cache(const char *dir)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		char path[512];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "w");
		cr_assert_not_null(f);
		fputs("not a database", f);
		fclose(f);
		n++;
	}
	closedir(d);
	return n;
}

Test(engine, prefilter_cache_read_back_rebuilt_when_damaged)
{
	enum { N = 300 };
	static char text[N * 160];
	char dir[] = "/tmp/mk_pfcache_XXXXXX", cmd[64];
	unsigned int first[N], again[N], spoiled[N], i;
	struct mk_detect_cfg cfg = { .rules_text = text, .port_groups = 3 };
	uint32_t dbs;

	if (!mk_prefilter_available())
		cr_skip_test("no Hyperscan on this CPU: no databases to cache");
	cr_assert_not_null(mkdtemp(dir));
	random_rules(text, sizeof(text), N);
	cfg.prefilter_cache = dir;
	cr_assert_eq(cached_dbs(&cfg, &dbs), 0, "an empty cache has nothing");
	cr_assert_gt(dbs, 1);
	run_random(&cfg, first, N);
	cr_assert_eq(cached_dbs(&cfg, &dbs), dbs, "every database is read back");
	run_random(&cfg, again, N);
	cr_assert_eq(spoil_cache(dir), dbs, "one file per database");
	cr_assert_eq(cached_dbs(&cfg, &dbs), 0, "a damaged file is not a database");
	run_random(&cfg, spoiled, N);
	cr_assert_eq(cached_dbs(&cfg, &dbs), dbs, "and was written anew");
	for (i = 0; i < N; i++) {
		cr_assert_eq(again[i], first[i], "sid %u: from the cache", i + 1);
		cr_assert_eq(spoiled[i], first[i], "sid %u: rebuilt", i + 1);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Random conversations on port 80, both ways, chunks of 1-400 bytes, through the stream. */
static void run_random_streams(struct mk_detect_cfg *cfg, unsigned int *counts, unsigned int nrules)
{
	struct harness h;
	char data[512];
	unsigned int i, k;

	cr_assert_eq(h_init_cfg(&h, cfg), 0);
	cr_assert_eq(mk_detect_engine_stats(h.eng)->failed, 0);
	rng = 99;
	for (i = 0; i < 12; i++) {
		struct conv c;
		char cli[32];

		snprintf(cli, sizeof(cli), "10.0.0.%u", i + 1);
		conv_open(&c, &h, cli, (uint16_t)(40000 + i), "10.0.1.1", 80,
			  T0 + (uint64_t)i * 100000);
		for (k = 0; k < 40; k++) {
			uint32_t n = 1 + rnd(400), j;

			for (j = 0; j < n; j++)
				data[j] = rnd(8) ? (char)('a' + rnd(4)) : (char)('A' + rnd(4));
			data[n] = '\0';
			conv_data(&c, (int)rnd(2), data);
		}
		conv_close(&c);
	}
	h_finish(&h);
	for (i = 0; i < nrules; i++)
		counts[i] = h_count(&h, i + 1);
	h_free(&h);
}

Test(engine, stream_prefilter_agrees_with_plain_evaluation)
{
	enum { N = 200 };
	static char text[N * 200];
	unsigned int with[N], without[N], i, total = 0;
	/* small windows: trims, armed windows and their reach all happen in a few KiB */
	struct mk_detect_cfg cfg = { .rules_text = text, .stream_window = 64, .stream_reach = 700 };
	size_t o = 0;

	rng = 11;
	for (i = 0; i < N; i++) {
		char w1[8], w2[8], w3[8], extra[96] = "";

		word(w1, 3 + (int)rnd(4));
		word(w2, 3 + (int)rnd(3));
		word(w3, 2 + (int)rnd(3));
		switch (rnd(5)) {
		case 0:
			snprintf(extra, sizeof(extra), "content:\"%s\"; distance:%u; ", w2,
				 rnd(300));
			break;
		case 1:
			snprintf(extra, sizeof(extra), "content:\"%s\"; distance:0; within:%u; ",
				 w2, (unsigned int)strlen(w2) + rnd(200));
			break;
		case 2:
			snprintf(extra, sizeof(extra), "content:\"%s\"; content:\"%s\"; ", w2, w3);
			break;
		case 3:
			snprintf(extra, sizeof(extra), "content:!\"%s\"; ", w2);
			break;
		default:
			snprintf(extra, sizeof(extra), "pcre:\"/%s.{0,40}%s/R\"; ", w2, w3);
			break;
		}
		o += (size_t)snprintf(
			text + o, sizeof(text) - o,
			"alert tcp any any -> any 80 (content:\"%s\"; %s%s%ssid:%u;)\n", w1,
			rnd(3) ? "" : "nocase; ", extra, rnd(4) ? "" : "flow:to_client; ", i + 1);
	}
	run_random_streams(&cfg, with, N);
	cfg.no_prefilter = 1;
	run_random_streams(&cfg, without, N);
	for (i = 0; i < N; i++) {
		cr_assert_eq(with[i], without[i],
			     "sid %u: %u alerts with the prefilter, %u without", i + 1, with[i],
			     without[i]);
		total += with[i];
	}
	cr_assert(total > 200, "the random rules should fire (%u)", total);
}

/* ---- reload ------------------------------------------------------------------------------ */

Test(engine, reload_swaps_between_packets_and_keeps_old_on_failure)
{
	const char *missing[] = { "/nonexistent/dir/none.rules" };
	struct mk_detect_cfg cfg = test_cfg;
	struct mk_detect_status st;
	struct harness h;

	mk_log_set_level(MK_LOG_ERROR - 1);
	cfg.rules_text = "alert udp any any -> any any (content:\"one\"; sid:1;)\n"
			 "alert udp any any -> any any (content:\"login\"; flowbits:set,auth; "
			 "noalert; sid:9;)\n";
	cr_assert_eq(h_init_master(&h, &cfg), 0);
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "one login", T0);
	cr_assert_eq(h_count(&h, 1), 1);
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 1);

	/* a new rule set; the flow's flowbit survives the swap */
	cfg.rules_text =
		"alert udp any any -> any any (content:\"two\"; flowbits:isset,auth; sid:2;)\n";
	cr_assert_eq(mk_detect_reload(h.master, &cfg), 0);
	cr_assert_eq(mk_detect_reload_wait(h.master), 0);
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 2);
	cr_assert_eq(st.reloads_ok, 1);
	cr_assert_eq(st.load.loaded, 1);
	cr_assert_eq(mk_detect_thread_generation(h.t), 1,
		     "the worker adopts only at its next packet");
	cr_assert_eq(mk_detect_master_reap(h.master), 1, "the worker still uses the old engine");
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "one two", T0 + 1);
	cr_assert_eq(mk_detect_thread_generation(h.t), 2);
	/* the worker let go of it without freeing it; the harness's own reference next */
	cr_assert_eq(mk_detect_master_reap(h.master), 1);
	mk_detect_engine_put(h.eng);
	h.eng = mk_detect_master_engine(h.master);
	cr_assert_eq(mk_detect_master_reap(h.master), 0, "freed by the master's call");
	cr_assert_eq(h_count(&h, 1), 1, "the old rule is gone");
	cr_assert_eq(h_count(&h, 2), 1, "the new rule sees the flowbit set under the old engine");

	/* a build that fails keeps the current engine and says why */
	cfg.rule_files = missing;
	cfg.nrule_files = 1;
	cr_assert_eq(mk_detect_reload(h.master, &cfg), 0);
	cr_assert_eq(mk_detect_reload_wait(h.master), -ENOENT);
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 2);
	cr_assert_eq(st.reloads_failed, 1);
	cr_assert(strstr(st.last_reload_msg, "old rules kept"), "%s", st.last_reload_msg);
	cr_assert(strstr(st.last_reload_msg, "none.rules"), "%s", st.last_reload_msg);
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "two", T0 + 2);
	cr_assert_eq(h_count(&h, 2), 2, "still the generation-2 rules");

	/*
	 * not strict, but the files got damaged (docs/security.md): rules that
	 * no longer parse, or no rule at all, keep the rules in force
	 */
	cfg.nrule_files = 0;
	cfg.rules_text =
		"alert udp any any -> any any (content:\"two\"; flowbits:isset,auth; sid:2;)\n"
		"alert udp any any -> any any (content:\"tw";
	cr_assert_eq(mk_detect_reload(h.master, &cfg), 0);
	cr_assert_eq(mk_detect_reload_wait(h.master), -EINVAL, "a rule cut short");
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 2);
	cr_assert(strstr(st.last_reload_msg, "do not parse"), "%s", st.last_reload_msg);
	cfg.rules_text = "this is not a rule\n";
	cr_assert_eq(mk_detect_reload(h.master, &cfg), 0);
	cr_assert_eq(mk_detect_reload_wait(h.master), -EINVAL, "nothing loads any more");
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 2);
	cr_assert_eq(st.reloads_failed, 3);
	udp(&h, "10.0.0.1", 1, "10.0.0.2", 2, "two", T0 + 3);
	cr_assert_eq(h_count(&h, 2), 3, "still the generation-2 rules");
	/* an unsupported keyword is no damage: skipped as at start, the reload goes on */
	cfg.rules_text =
		"alert udp any any -> any any (content:\"two\"; flowbits:isset,auth; sid:2;)\n"
		"alert nfs any any -> any any (content:\"x\"; sid:5;)\n";
	cr_assert_eq(mk_detect_reload(h.master, &cfg), 0);
	cr_assert_eq(mk_detect_reload_wait(h.master), 0);
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 3);

	/* strict: one bad rule fails the reload */
	cfg.nrule_files = 0;
	cfg.strict = 1;
	cfg.rules_text =
		"alert udp any any -> any any (content:\"x\"; sid:3;)\nalert udp any any (sid:4;)\n";
	cr_assert_eq(mk_detect_reload(h.master, &cfg), 0);
	cr_assert_eq(mk_detect_reload_wait(h.master), -EINVAL);
	mk_detect_master_status(h.master, &st);
	cr_assert_eq(st.generation, 3);
	h_free(&h);
}

Test(engine, reload_while_reloading_is_busy)
{
	enum { N = 3000 };
	static char text[N * 90];
	struct mk_detect_cfg cfg = { .rules_text = "alert udp any any -> any any (sid:1;)" };
	struct mk_detect_master *m;
	size_t o = 0;
	unsigned int i;
	int busy = 0;

	cr_assert_eq(mk_detect_master_new(&cfg, &m), 0);
	for (i = 0; i < N; i++)
		o += (size_t)snprintf(
			text + o, sizeof(text) - o,
			"alert tcp any any -> any %u (content:\"pattern-%u\"; sid:%u;)\n", i % 1000,
			i * 7919, i + 1);
	cfg.rules_text = text;
	cr_assert_eq(mk_detect_reload(m, &cfg), 0);
	busy = mk_detect_reload(m, &cfg) == -EBUSY;
	cr_assert_eq(mk_detect_reload_wait(m), 0);
	cr_assert(busy, "a second reload while the first builds is refused");
	mk_detect_master_free(m);
}

/* ---- EVE alert records ------------------------------------------------------------------- */

static json_t *parse_line(const char *s, size_t n)
{
	json_error_t err;
	json_t *j = json_loadb(s, n, JSON_ALLOW_NUL, &err);

	cr_assert_not_null(j, "not JSON (%s): %.*s", err.text, (int)n, s);
	return j;
}

Test(eve_alert, suricata_fields)
{
	struct mk_detect_cfg cfg = test_cfg;
	struct harness h;
	char *out = NULL;
	size_t outlen = 0;
	json_t *j, *a, *fl;
	char *classes = tmp_file(CLASSES);
	struct frame f;

	cfg.classification_file = classes;
	cfg.rules_text =
		"alert udp any any -> any 53 (msg:\"dns \\\"x\\\"\"; content:\"q\"; "
		"classtype:trojan-activity; metadata:tag one, tag two, who me; target:dest_ip; "
		"sid:7; rev:3;)\n";
	cr_assert_eq(h_init_cfg(&h, &cfg), 0);
	h.eve_opts = (struct mk_eve_alert_opts){ .in_iface = "eth\"0",
						 .payload = 1,
						 .payload_printable = 1 };
	h.eve = open_memstream(&out, &outlen);
	frame_udp(&f, "10.0.0.1", 5353, "10.0.0.9", 53, "q\x01\"\\", 4, 64, 42);
	h_frame(&h, f.b, f.len, MK_START_ETH, T0 + 123456);
	h_finish(&h);
	fclose(h.eve);
	h.eve = NULL;
	j = parse_line(out, strcspn(out, "\n"));
	cr_assert_str_eq(json_string_value(json_object_get(j, "event_type")), "alert");
	cr_assert_str_eq(json_string_value(json_object_get(j, "timestamp")),
			 "2026-12-03T03:45:00.123456+0000");
	cr_assert_str_eq(json_string_value(json_object_get(j, "in_iface")), "eth\"0");
	cr_assert(json_integer_value(json_object_get(j, "flow_id")) != 0);
	cr_assert_str_eq(json_string_value(json_object_get(j, "src_ip")), "10.0.0.1");
	cr_assert_eq(json_integer_value(json_object_get(j, "src_port")), 5353);
	cr_assert_str_eq(json_string_value(json_object_get(j, "dest_ip")), "10.0.0.9");
	cr_assert_eq(json_integer_value(json_object_get(j, "dest_port")), 53);
	cr_assert_str_eq(json_string_value(json_object_get(j, "proto")), "UDP");
	cr_assert_eq(json_integer_value(json_array_get(json_object_get(j, "vlan"), 0)), 42);
	a = json_object_get(j, "alert");
	cr_assert_str_eq(json_string_value(json_object_get(a, "action")), "allowed");
	cr_assert_eq(json_integer_value(json_object_get(a, "gid")), 1);
	cr_assert_eq(json_integer_value(json_object_get(a, "signature_id")), 7);
	cr_assert_eq(json_integer_value(json_object_get(a, "rev")), 3);
	cr_assert_str_eq(json_string_value(json_object_get(a, "signature")), "dns \"x\"");
	cr_assert_str_eq(json_string_value(json_object_get(a, "category")),
			 "A Network Trojan was detected");
	cr_assert_eq(json_integer_value(json_object_get(a, "severity")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_object_get(a, "metadata"), "tag"), 1)),
			 "two");
	cr_assert_eq(json_array_size(json_object_get(json_object_get(a, "metadata"), "who")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(a, "target"), "ip")),
			 "10.0.0.9");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(a, "source"), "ip")),
			 "10.0.0.1");
	fl = json_object_get(j, "flow");
	cr_assert_eq(json_integer_value(json_object_get(fl, "pkts_toserver")), 1);
	cr_assert_str_eq(json_string_value(json_object_get(fl, "start")),
			 "2026-12-03T03:45:00.123456+0000");
	cr_assert_str_eq(json_string_value(json_object_get(j, "payload")), "cQEiXA==");
	cr_assert_str_eq(json_string_value(json_object_get(j, "payload_printable")), "q.\"\\");
	cr_assert_eq(json_integer_value(json_object_get(j, "stream")), 0);
	json_decref(j);
	/* the flow record says it alerted */
	j = parse_line(strchr(out, '\n') + 1, strlen(strchr(out, '\n') + 1));
	cr_assert_str_eq(json_string_value(json_object_get(j, "event_type")), "flow");
	cr_assert(json_is_true(json_object_get(json_object_get(j, "flow"), "alerted")));
	json_decref(j);
	free(out);
	h_free(&h);
	unlink(classes);
	free(classes);
}

Test(eve_alert, hostile_strings_stay_valid_json)
{
	static const char *const msgs[] = {
		"quote \\\" backslash \\\\ tab\t ctl \x01\x1f del \x7f",
		"utf8 \xc3\xa9\xe2\x82\xac\xf0\x9f\x90\xb1 ok",
		"bad utf8 \xc3 \xe2\x82 \xf0\x9f\x90 \xff \xc0\xaf \xed\xa0\x80",
		"</script>{\\\"a\\\":1}",
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(msgs); i++) {
		struct mk_detect_cfg cfg = test_cfg;
		struct harness h;
		char rules[512], *out = NULL;
		size_t outlen = 0;
		struct frame f;
		json_t *j;

		snprintf(rules, sizeof(rules),
			 "alert udp any any -> any any (msg:\"%s\"; metadata:k \"%s\"; "
			 "content:\"x\"; sid:1;)",
			 msgs[i], msgs[i]);
		cfg.rules_text = rules;
		cr_assert_eq(h_init_cfg(&h, &cfg), 0, "%s", rules);
		h.eve_opts.payload_printable = 1;
		h.eve_opts.payload = 1;
		h.eve = open_memstream(&out, &outlen);
		frame_udp(&f, "10.0.0.1", 1, "10.0.0.2", 2, "x\0\xff\"\\\n", 6, 64, 0);
		h_frame(&h, f.b, f.len, MK_START_ETH, T0);
		fclose(h.eve);
		h.eve = NULL;
		cr_assert_eq(h.nalerts, 1, "%s", rules);
		j = parse_line(out, strcspn(out, "\n"));
		cr_assert_not_null(json_string_value(
			json_object_get(json_object_get(j, "alert"), "signature")));
		json_decref(j);
		free(out);
		h_free(&h);
	}
}

Test(eve_alert, escape_function)
{
	char buf[64];
	int n;

	n = mk_json_escape(buf, sizeof(buf), (const uint8_t *)"a\"b\\c\n\x01\xc3\xa9\xff", 10);
	cr_assert_eq(n, (int)strlen("a\\\"b\\\\c\\n\\u0001\xc3\xa9\\u00ff"));
	cr_assert(!memcmp(buf, "a\\\"b\\\\c\\n\\u0001\xc3\xa9\\u00ff", (size_t)n));
	cr_assert_eq(mk_json_escape(buf, 3, (const uint8_t *)"\x01", 1), -ENOSPC);
}

/* ---- the shipped files and the reference page agree with the code ------------------------ */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

Test(engine, docs_list_every_keyword)
{
	const char *root = getenv("MK_SOURCE_ROOT");
	char path[512], name[80];
	char *doc;
	unsigned int i;

	cr_assert_not_null(root, "MK_SOURCE_ROOT is set by meson");
	snprintf(path, sizeof(path), "%s/docs/rules.md", root);
	doc = slurp(path);
	for (i = 0; i < mk_nkeywords; i++) {
		snprintf(name, sizeof(name), "`%s`", mk_keywords[i]->name);
		cr_assert_not_null(strstr(doc, name), "docs/rules.md does not describe %s", name);
	}
	for (i = 0; i < mk_nunsupported_keywords; i++) {
		snprintf(name, sizeof(name), "`%s`", mk_unsupported_keywords[i].name);
		cr_assert_not_null(strstr(doc, name), "docs/rules.md does not list unsupported %s",
				   name);
	}
	for (i = 0; i < MK_DETECT_FAIL_MAX; i++) {
		snprintf(name, sizeof(name), "`%s`", mk_detect_fail_names[i]);
		cr_assert_not_null(strstr(doc, name), "docs/rules.md does not name reason %s",
				   name);
	}
	for (i = 0; i < MK_DETECT_CNT_MAX; i++) {
		snprintf(name, sizeof(name), "| `%s` |", mk_detect_counter_names[i]);
		cr_assert_not_null(strstr(doc, name), "docs/rules.md does not list counter %s",
				   name);
	}
	free(doc);
}

Test(engine, shipped_classification_is_the_built_in_one)
{
	const char *root = getenv("MK_SOURCE_ROOT");
	struct mk_parse_env a = { 0 }, b = { 0 };
	char path[512];
	uint32_t ea = 0, eb = 0, i;

	snprintf(path, sizeof(path), "%s/configs/classification.config", root);
	cr_assert_eq(mk_load_classification(path, &a, &ea), 0);
	cr_assert_eq(mk_load_classification(NULL, &b, &eb), 0);
	cr_assert_eq(ea + eb, 0);
	cr_assert_eq(a.nclasses, b.nclasses);
	cr_assert(a.nclasses >= 40);
	for (i = 0; i < a.nclasses; i++) {
		cr_assert_str_eq(a.classes[i].name, b.classes[i].name);
		cr_assert_str_eq(a.classes[i].desc, b.classes[i].desc);
		cr_assert_eq(a.classes[i].priority, b.classes[i].priority);
	}
	snprintf(path, sizeof(path), "%s/configs/reference.config", root);
	cr_assert_eq(mk_load_reference_config(path, &a, &ea), 0);
	cr_assert_eq(ea, 0);
	snprintf(path, sizeof(path), "%s/configs/threshold.config", root);
	{
		struct mk_tcfg_entry *e = NULL;
		uint32_t n = 0;

		cr_assert_eq(mk_load_threshold_config(path, &test_cfg, &e, &n, &ea), 0);
		cr_assert_eq(n, 0, "the shipped threshold.config filters nothing");
		cr_assert_eq(ea, 0);
		free(e);
	}
	mk_parse_env_free(&a);
	mk_parse_env_free(&b);
}
