// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Prometheus rendering (output/prometheus.c) on fixed snapshots: exact
 * samples (labels, units, histogram), the text format line by line, HELP
 * and TYPE once per family and before its samples, label values escaped;
 * every counter of every counter list exported (a snapshot built from the
 * lists themselves, as live mode builds its stats); a leaf no metric reads
 * named; stats.prometheus.listen parsed, refused, and cut at every length.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include "applayer.h"
#include "config.h"
#include "detect.h"
#include "live.h"
#include "manager.h"
#include "prometheus.h"
#include "stats.h"
#include "worker.h"
#include "xsk.h"

static char *render(const char *json)
{
	json_error_t e;
	json_t *snap = json_loads(json, 0, &e);
	struct mk_prom_buf b = { 0 };
	char *out;

	cr_assert(snap, "bad fixture: %s", e.text);
	cr_assert_eq(mk_prom_render(snap, &b), 0);
	json_decref(snap);
	out = strndup(b.data ? b.data : "", b.len);
	mk_prom_buf_free(&b);
	return out;
}

static void has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return;
		p++;
	}
	cr_assert_fail("no line '%s' in:\n%s", line, text);
}

static const char *fixture =
	"{\"uptime\": 7,"
	" \"xdp\": {\"rx\": 12, \"redirect_xsk\": 10, \"pass_non_ip\": 2, \"err_trunc_eth\": 0,"
	"          \"tunnel_gtpu\": 3, \"fragment\": 1},"
	" \"invariant\": {\"rx\": 12, \"outcome_sum\": 12, \"pass_error\": 0, \"err_sum\": 0,"
	"                \"holds\": true},"
	" \"sockets\": [{\"iface\": \"a\\\"b\\\\c\\nd\", \"queue\": 1, \"worker\": 0,"
	"               \"rx_dropped\": 4}],"
	" \"workers\": [{\"id\": 0, \"cpu\": 3, \"pkts\": 6, \"bytes\": 600, \"flows_active\": 2,"
	"               \"flows_created\": 5,"
	"               \"pipeline\": {\"capture\": {\"sock_rx\": 6}, \"detect\": {\"alerts\": 2},"
	"                              \"stream\": {\"mem_peak\": 4096}}},"
	"             {\"id\": 1, \"cpu\": 4, \"pkts\": 4, \"bytes\": 400, \"flows_active\": 0,"
	"               \"flows_created\": 1,"
	"               \"pipeline\": {\"capture\": {\"sock_rx\": 4}, \"detect\": {\"alerts\": 1}}}],"
	" \"capture\": {\"sock_rx\": 10, \"kernel_drops\": 4, \"link_down_ms\": 1500},"
	" \"detect\": {\"alerts\": 3},"
	" \"bypass\": {\"inserted\": 3, \"insert_latency\": {\"max_us\": 250, \"avg_us\": 100,"
	"            \"sum_us\": 300, \"histogram\": {\"lt_10us\": 0, \"lt_100us\": 2,"
	"            \"lt_1ms\": 1, \"ge_100ms\": 0}}},"
	" \"rules\": {\"reloads_ok\": 2, \"reloads_failed\": 1, \"reloading\": false,"
	"           \"load_time_ms\": 250, \"failed_by_reason\": {\"pcre\": 1}},"
	" \"eve\": {\"written\": 42, \"lost\": 0},"
	" \"prometheus\": {\"scrapes\": 3, \"render_ns\": 1500000, \"last_render_ns\": 500000}}";

Test(prometheus, samples)
{
	char *t = render(fixture);

	has_line(t, "meerkat_uptime_seconds 7");
	has_line(t, "meerkat_xdp_rx_total 12");
	has_line(t, "meerkat_xdp_outcome_total{outcome=\"redirect_xsk\"} 10");
	has_line(t, "meerkat_xdp_outcome_total{outcome=\"pass_non_ip\"} 2");
	has_line(t, "meerkat_xdp_error_total{reason=\"trunc_eth\"} 0");
	has_line(t, "meerkat_xdp_tunnel_stripped_total{tunnel=\"gtpu\"} 3");
	has_line(t, "meerkat_xdp_fragment_total 1");
	has_line(t, "meerkat_xdp_invariant_holds 1");
	/* the interface name escaped: backslash, quote, newline */
	has_line(t, "meerkat_socket_rx_dropped_total{interface=\"a\\\"b\\\\c\\nd\",queue=\"1\","
		    "worker=\"0\"} 4");
	has_line(t, "meerkat_capture_sock_rx_total{worker=\"0\"} 6");
	has_line(t, "meerkat_capture_sock_rx_total{worker=\"1\"} 4");
	has_line(t, "meerkat_detect_alerts_total{worker=\"0\"} 2");
	has_line(t, "meerkat_detect_alerts_total{worker=\"1\"} 1");
	has_line(t, "meerkat_flow_active{worker=\"0\"} 2");
	has_line(t, "meerkat_stream_mem_peak_bytes{worker=\"0\"} 4096");
	has_line(t, "# TYPE meerkat_stream_mem_peak_bytes gauge");
	has_line(t, "meerkat_capture_kernel_drops_total 4");
	has_line(t, "meerkat_capture_link_down_seconds_total 1.5");
	has_line(t, "meerkat_bypass_inserted_total 3");
	has_line(t, "meerkat_bypass_insert_latency_max_seconds 0.00025");
	/* buckets cumulative, +Inf the count, the sum in seconds */
	has_line(t, "# TYPE meerkat_bypass_insert_latency_seconds histogram");
	has_line(t, "meerkat_bypass_insert_latency_seconds_bucket{le=\"1e-05\"} 0");
	has_line(t, "meerkat_bypass_insert_latency_seconds_bucket{le=\"0.0001\"} 2");
	has_line(t, "meerkat_bypass_insert_latency_seconds_bucket{le=\"0.001\"} 3");
	has_line(t, "meerkat_bypass_insert_latency_seconds_bucket{le=\"+Inf\"} 3");
	has_line(t, "meerkat_bypass_insert_latency_seconds_sum 0.0003");
	has_line(t, "meerkat_bypass_insert_latency_seconds_count 3");
	has_line(t, "meerkat_rules_reloads_total{result=\"ok\"} 2");
	has_line(t, "meerkat_rules_reloads_total{result=\"failed\"} 1");
	has_line(t, "meerkat_rules_reloading 0");
	has_line(t, "meerkat_rules_load_seconds 0.25");
	has_line(t, "meerkat_rules_failed_by_reason{reason=\"pcre\"} 1");
	has_line(t, "meerkat_eve_written_total{output=\"file\"} 42");
	has_line(t, "meerkat_prometheus_scrapes_total 3");
	has_line(t, "meerkat_prometheus_render_seconds_total 0.0015");
	/* what the snapshot lacks is not invented */
	cr_assert_null(strstr(t, "meerkat_capture_link_down_total"));
	cr_assert_null(strstr(t, "meerkat_bypass_entries"));
	free(t);
}

/*
 * Every line is a comment (HELP or TYPE) or a sample NAME{LABELS} VALUE;
 * a family has one HELP and one TYPE, both before its first sample, and its
 * samples are not split by another family.
 */
Test(prometheus, format)
{
	char *t = render(fixture), *save = NULL, *line, fam[128] = "", done[256][128];
	regex_t sample, help, type;
	unsigned int ndone = 0, i;
	int have_help = 0, have_type = 0;

	cr_assert_eq(regcomp(&sample,
			     "^([a-z_][a-z0-9_]*)(\\{[a-z_]+=\"([^\"\\\\\n]|\\\\.)*\""
			     "(,[a-z_]+=\"([^\"\\\\\n]|\\\\.)*\")*\\})? [-+0-9.eE]+$",
			     REG_EXTENDED),
		     0);
	cr_assert_eq(regcomp(&help, "^# HELP ([a-z_][a-z0-9_]*) [^\n]+$", REG_EXTENDED), 0);
	cr_assert_eq(regcomp(&type, "^# TYPE ([a-z_][a-z0-9_]*) (counter|gauge|histogram)$",
			     REG_EXTENDED),
		     0);
	cr_assert(t[0] && t[strlen(t) - 1] == '\n');
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		regmatch_t m[2];
		char name[128];

		if (!regexec(&help, line, 2, m, 0)) {
			snprintf(name, sizeof(name), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
				 line + m[1].rm_so);
			for (i = 0; i < ndone; i++)
				cr_assert_str_neq(done[i], name, "HELP of %s twice", name);
			cr_assert_str_neq(fam, name, "HELP of %s twice", name);
			if (fam[0])
				snprintf(done[ndone++], sizeof(done[0]), "%s", fam);
			snprintf(fam, sizeof(fam), "%s", name);
			have_help = 1;
			have_type = 0;
			continue;
		}
		if (!regexec(&type, line, 2, m, 0)) {
			cr_assert(have_help && !have_type, "TYPE without HELP, or twice: %s", line);
			cr_assert(!strncmp(line + m[1].rm_so, fam, strlen(fam)));
			have_type = 1;
			continue;
		}
		cr_assert_eq(regexec(&sample, line, 2, m, 0), 0, "not a sample line: '%s'", line);
		snprintf(name, sizeof(name), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
			 line + m[1].rm_so);
		cr_assert(have_type, "sample before its TYPE: %s", line);
		/* a histogram's samples carry suffixes */
		cr_assert(!strcmp(name, fam) || (!strncmp(name, fam, strlen(fam)) &&
						 (!strcmp(name + strlen(fam), "_bucket") ||
						  !strcmp(name + strlen(fam), "_sum") ||
						  !strcmp(name + strlen(fam), "_count"))),
			  "sample %s under family %s", name, fam);
	}
	regfree(&sample);
	regfree(&help);
	regfree(&type);
	free(t);
}

/* Is @part one of the _-separated words of @name? */
static int has_part(const char *name, const char *part)
{
	size_t n = strlen(part);
	const char *p = name;

	while ((p = strstr(p, part))) {
		if ((p == name || p[-1] == '_') && (p[n] == '_' || !p[n]))
			return 1;
		p++;
	}
	return 0;
}

/* The table's own rules: counters end in _total, nothing else does; every row has help. */
Test(prometheus, table)
{
	const struct mk_prom_metric *t;
	unsigned int n, i;

	t = mk_prom_metrics(&n);
	cr_assert(t && n > 200, "%u rows", n);
	for (i = 0; i < n; i++) {
		size_t l = strlen(t[i].name);
		int total = l > 6 && !strcmp(t[i].name + l - 6, "_total");

		cr_assert(!strncmp(t[i].name, "meerkat_", 8), "%s", t[i].name);
		cr_assert_eq(total, t[i].type == MK_PROM_COUNTER, "%s", t[i].name);
		cr_assert(t[i].help && t[i].help[0], "%s has no help", t[i].name);
		cr_assert(!has_part(t[i].name, "ms") && !has_part(t[i].name, "us"),
			  "%s: not in seconds", t[i].name);
		cr_assert_str_neq(t[i].help, "see docs/defrag.md", "%s: no help of its own",
				  t[i].name);
	}
}

static void add_pipe(const char *group, const char *name, uint64_t value, void *arg)
{
	json_t *root = arg, *g = json_object_get(root, group);

	(void)value;
	if (!g) {
		g = json_object();
		json_object_set_new(root, group, g);
	}
	json_object_set_new(g, name, json_integer(1));
}

static void collect(const char *path, void *arg)
{
	strncat(arg, path, 4000 - strlen(arg));
	strncat(arg, " ", 4000 - strlen(arg));
}

/*
 * A snapshot built from the counter lists themselves, as live mode builds
 * its stats (mk_worker_stats_foreach, the program's, the sockets', the
 * live source's, the bypass manager's, the rule loader's): every leaf is
 * exported, so a counter added to a list cannot be forgotten here.
 */
Test(prometheus, every_listed_counter_exported)
{
	struct mk_worker_stats ws = { 0 };
	json_t *root = json_object(), *w = json_object(), *pipe = json_object();
	json_t *cap = json_object(), *xdp = json_object(), *sock = json_object(),
	       *byp = json_object(), *fail = json_object();
	char missing[4000] = "";
	unsigned int k;

	mk_worker_stats_foreach(&ws, add_pipe, root);
	mk_worker_stats_foreach(&ws, add_pipe, pipe);
#define X(id, str, doc) json_object_set_new(cap, str, json_integer(1));
	MK_LIVE_COUNTERS(X)
#undef X
	json_object_set_new(root, "capture", json_deep_copy(cap));
	json_object_set_new(pipe, "capture", cap);
	json_object_set_new(w, "pipeline", pipe);
	json_object_set_new(w, "id", json_integer(0));
	json_object_set_new(root, "workers", json_pack("[o]", w));
	for (k = 0; k < MK_STAT_MAX; k++)
		json_object_set_new(xdp, mk_stat_descs[k].name, json_integer(1));
	json_object_set_new(root, "xdp", xdp);
#define X(name, doc) json_object_set_new(sock, #name, json_integer(1));
	MK_XSK_STATS(X)
#undef X
	json_object_set_new(root, "sockets", json_pack("[o]", sock));
#define X(id, str, doc) json_object_set_new(byp, str, json_integer(1));
	MK_BYPASS_MGR_COUNTERS(X)
#undef X
	json_object_set_new(root, "bypass", byp);
	for (k = 0; k < MK_DETECT_FAIL_MAX; k++)
		json_object_set_new(fail, mk_detect_fail_names[k], json_integer(1));
	json_object_set_new(root, "rules", json_pack("{s:o}", "failed_by_reason", fail));

	cr_assert_eq(mk_prom_unexported(root, collect, missing), 0, "not exported: %s", missing);
	json_decref(root);
}

Test(prometheus, unexported_leaf_named)
{
	json_t *snap =
		json_loads("{\"worker\": {\"worker_rx\": 1, \"brand_new\": 2},"
			   " \"workers\": [{\"id\": 0, \"odd\": 1}, {\"id\": 1, \"odd\": 2}],"
			   " \"name\": \"strings are not counters\"}",
			   0, NULL);
	char missing[4000] = "";

	cr_assert_eq(mk_prom_unexported(snap, collect, missing), 2, "%s", missing);
	cr_assert_str_eq(missing, "worker.brand_new workers[].odd ");
	json_decref(snap);
}

static int parse(const char *s, int *family, unsigned int *port)
{
	struct sockaddr_storage ss;
	const char *why = NULL;
	socklen_t len;
	int err = mk_prom_listen_parse(s, &ss, &len, &why);

	if (err) {
		cr_assert(why && why[0]);
		return err;
	}
	*family = ss.ss_family;
	*port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
						((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

Test(prometheus, listen_forms)
{
	static const char *const bad[] = {
		"",
		":",
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:0",
		":65536",
		"1.2.3.4:-1",
		"1.2.3.4:+80",
		"1.2.3.4:80x",
		"[::1]9917",
		"[::1",
		"[::1]:",
		"::1:9917",
		"localhost:9917",
		"1.2.3:9917",
		"[1.2.3.4]:1",
		"1.2.3.4: 80",
		"[::1]:99999999999999999999",
	};
	int fam;
	unsigned int port, i;

	cr_assert_eq(parse("127.0.0.1:9917", &fam, &port), 0);
	cr_assert(fam == AF_INET && port == 9917);
	cr_assert_eq(parse("[::1]:9917", &fam, &port), 0);
	cr_assert(fam == AF_INET6 && port == 9917);
	cr_assert_eq(parse(":9917", &fam, &port), 0);
	cr_assert(fam == AF_INET6 && port == 9917);
	cr_assert_eq(parse("0.0.0.0:65535", &fam, &port), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i], &fam, &port), -EINVAL, "'%s' accepted", bad[i]);
}

/* Every prefix of valid and hostile addresses: parsed or refused, never past the end. */
Test(prometheus, listen_truncated)
{
	static const char *const full[] = { "[2001:db8::1]:9917", "192.168.100.200:65535",
					    ":9917" };
	unsigned int i;
	size_t n;
	int fam;
	unsigned int port;

	for (i = 0; i < sizeof(full) / sizeof(full[0]); i++)
		for (n = 0; n <= strlen(full[i]); n++) {
			char *s = strndup(full[i], n); /* exact size: ASan sees an overread */
			int err = parse(s, &fam, &port);

			cr_assert(err == 0 || err == -EINVAL);
			free(s);
		}
}

Test(prometheus, config_keys)
{
	struct mk_config c;
	static const char good[] = "stats:\n  prometheus:\n    enabled: yes\n"
				   "    listen: \"[::1]:9100\"\n";
	static const char bad[] = "stats:\n  prometheus:\n    listen: \"localhost\"\n";

	mk_config_defaults(&c);
	cr_assert_eq(c.prometheus.enabled, 0);
	cr_assert_str_eq(c.prometheus.listen, "127.0.0.1:9917");
	cr_assert_eq(mk_config_load_buf(&c, good, strlen(good), "t.yaml"), 0);
	cr_assert_eq(c.prometheus.enabled, 1);
	cr_assert_str_eq(c.prometheus.listen, "[::1]:9100");
	mk_config_free(&c);
	mk_config_defaults(&c);
	cr_assert_eq(mk_config_load_buf(&c, bad, strlen(bad), "t.yaml"), -EINVAL);
	mk_config_free(&c);
}
