// SPDX-License-Identifier: GPL-2.0-only
/*
 * The YAML configuration (config/config.c and every module's key table):
 * each registered key through the real loader (a good value changes exactly
 * its own line of the dump; a bad one gives the exact error line), lists and
 * maps, every kind of mistake with its exact message, the reference file
 * against the built-in defaults, the command line over the file, and every
 * prefix of the reference file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "config.h"
#include "out_registry.h"

#define NAME "t.yaml"

/* Loads @len bytes of @text (an exact-size copy) over the defaults; the error line in @msg. */
static int load_n(struct mk_config *c, const char *text, size_t len, char *msg, size_t msglen)
{
	static const char prefix[] = "meerkat: error: ";
	char *buf = malloc(len ? len : 1), *nl;
	FILE *tmp = tmpfile();
	int saved, rc;
	size_t n;

	cr_assert(buf && tmp);
	memcpy(buf, text, len);
	mk_config_defaults(c);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	rc = mk_config_load_buf(c, buf, len, NAME);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	free(buf);
	rewind(tmp);
	n = fread(msg, 1, msglen - 1, tmp);
	msg[n] = '\0';
	fclose(tmp);
	if (!strncmp(msg, prefix, strlen(prefix)))
		memmove(msg, msg + strlen(prefix), strlen(msg + strlen(prefix)) + 1);
	nl = strchr(msg, '\n');
	if (nl) {
		cr_expect_eq(nl[1], '\0', "one error line, got: %s", msg);
		*nl = '\0';
	}
	return rc;
}

static int load(struct mk_config *c, const char *text, char *msg, size_t msglen)
{
	return load_n(c, text, strlen(text), msg, msglen);
}

static char *dump(const struct mk_config *c)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	cr_assert_not_null(f);
	mk_config_dump(f, c);
	fclose(f);
	return s;
}

static void expect_error(const char *text, int err, const char *want)
{
	struct mk_config c;
	char msg[1024];

	cr_expect_eq(load(&c, text, msg, sizeof(msg)), err, "return value for:\n%s", text);
	cr_expect_str_eq(msg, want, "for:\n%s\ngot:  %s\nwant: %s", text, msg, want);
	mk_config_free(&c);
}

static void expect_ok(struct mk_config *c, const char *text)
{
	char msg[1024];

	cr_assert_eq(load(c, text, msg, sizeof(msg)), 0, "for:\n%s\nerror: %s", text, msg);
	cr_assert_str_empty(msg);
}

/* The dump lines of @b that are not in @a (same order, one per line) joined by '\n'. */
static void changed_lines(const char *a, const char *b, char *out, size_t len, unsigned int *n)
{
	const char *pa = a, *pb = b;
	size_t o = 0;

	*n = 0;
	out[0] = '\0';
	while (*pa || *pb) {
		size_t la = strcspn(pa, "\n"), lb = strcspn(pb, "\n");

		if (la != lb || memcmp(pa, pb, la)) {
			o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%.*s",
					      *n ? "\n" : "", (int)lb, pb);
			(*n)++;
		}
		pa += la + (pa[la] == '\n');
		pb += lb + (pb[lb] == '\n');
	}
}

/* ---- each registered key ------------------------------------------------------------------ */

static const char *size_text(uint64_t v, char *buf, size_t len)
{
	if (v && !(v % (1ull << 30)))
		snprintf(buf, len, "%llugb", (unsigned long long)(v >> 30));
	else if (v && !(v % (1ull << 20)))
		snprintf(buf, len, "%llumb", (unsigned long long)(v >> 20));
	else if (v && !(v % 1024))
		snprintf(buf, len, "%llukb", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * YAML that sets @path to @value: nested mappings, and Suricata's list shape
 * for outputs.eve-log.* (an event type's option under its list item, the
 * other types listed after it so that the list stays the default); where
 * the value starts in *line, *col.
 */
static void yaml_for(const char *path, const char *value, char *out, size_t len, unsigned int *line,
		     unsigned int *col)
{
	char parts[8][64], copy[256], *tok, *save;
	unsigned int n = 0, i = 0, indent = 0, ln = 1;
	size_t o = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	for (tok = strtok_r(copy, ".", &save); tok && n < 8; tok = strtok_r(NULL, ".", &save))
		snprintf(parts[n++], sizeof(parts[0]), "%s", tok);
	if (!strncmp(path, "outputs.eve-log.types.", 22) && n == 5) {
		static const char *const types[] = { "alert", "flow", "stats" };

		o += (size_t)snprintf(out + o, len - o,
				      "outputs:\n  - eve-log:\n      types:\n        - %s:\n"
				      "            %s: %s\n",
				      parts[3], parts[4], value);
		for (i = 0; i < MK_ARRAY_SIZE(types); i++)
			if (strcmp(types[i], parts[3]))
				o += (size_t)snprintf(out + o, len - o, "        - %s\n", types[i]);
		*line = 5;
		*col = 12 + (unsigned int)strlen(parts[4]) + 3;
		return;
	}
	if (!strncmp(path, "outputs.eve-log.", 16)) {
		o += (size_t)snprintf(out + o, len - o, "outputs:\n  - eve-log:\n");
		indent = 6;
		ln = 3;
		i = 2;
	}
	for (; i + 1 < n; i++, ln++, indent += 2)
		o += (size_t)snprintf(out + o, len - o, "%*s%s:\n", (int)indent, "", parts[i]);
	snprintf(out + o, len - o, "%*s%s: %s\n", (int)indent, "", parts[n - 1], value);
	*line = ln;
	*col = indent + (unsigned int)strlen(parts[n - 1]) + 3;
}

/* Setting @path to @value loads and changes exactly the key's dump line, to @shown. */
static bool try_set(const char *path, const char *value, const char *shown, const char *defaults)
{
	char text[1024], msg[1024], line[512], diff[1024];
	unsigned int l, col, n;
	struct mk_config c;
	char *d;
	int rc;

	yaml_for(path, value, text, sizeof(text), &l, &col);
	rc = load(&c, text, msg, sizeof(msg));
	if (rc) {
		mk_config_free(&c);
		return false; /* a rule between keys; the caller tries another value */
	}
	d = dump(&c);
	snprintf(line, sizeof(line), "%s = %s", path, shown);
	changed_lines(defaults, d, diff, sizeof(diff), &n);
	if (n == 0)
		cr_expect_not_null(strstr(defaults, line),
				   "%s: '%s' is the default, dump has no '%s'", path, value, line);
	else
		cr_expect_str_eq(diff, line, "%s: '%s' changed other lines", path, value);
	free(d);
	mk_config_free(&c);
	return true;
}

/* @shift: libyaml places a missing value right after the colon, one column early */
static void expect_key_error_at(const char *path, const char *value, int shift, int err,
				const char *what)
{
	char text[1024], want[1024];
	unsigned int l, col;

	yaml_for(path, value, text, sizeof(text), &l, &col);
	snprintf(want, sizeof(want), NAME ":%u:%u: %s: %s", l, col + shift, path, what);
	expect_error(text, err, want);
}

static void expect_key_error(const char *path, const char *value, int err, const char *what)
{
	expect_key_error_at(path, value, 0, err, what);
}

static const char *const custom_keys[] = {
	"vars.address-groups",
	"vars.port-groups",
	"rule-files",
	"outputs",
	"outputs.eve-log.types",
	"outputs.eve-log.rotate-interval",
	"outputs.eve-log.redis",
	"outputs.eve-log.kafka",
	"capture.interfaces",
	"capture.cpu-affinity",
	"bypass.cidr",
	/* test_prometheus.c: prometheus::listen_forms, config_keys */
	"stats.prometheus.listen",
	/* test_advise.c: advise::config_* */
	"advise-router.socket-mode",
	"advise-router.next-hop",
	"advise-router.next-hop-v6",
	"advise-router.communities",
	"advise-router.sids",
	"advise-router.classtypes",
	"advise-router.metadata",
	"advise-router.allow",
	"app-layer.protocols.http.file-hashes",
	/* bits of one field: config::tunnel_decoders */
	"decoder.gtpu.enabled",
	"decoder.l2tp.enabled",
	"decoder.vxlan.enabled",
	"decoder.geneve.enabled",
	"decoder.gre.enabled",
	"decoder.erspan.enabled",
	"decoder.ipip.enabled",
};

Test(config, every_key_takes_its_values_and_refuses_others)
{
	struct mk_config def;
	const struct mk_cfg_key *k;
	char *defaults, value[600], shown[300], want[1000];
	unsigned int i, j, nkeys = 0;

	mk_config_defaults(&def);
	defaults = dump(&def);
	for (i = 0; (k = mk_config_key(i)); i++, nkeys++) {
		uint64_t dv = 0, cand[5];
		bool done = false;

		if (k->type == MK_CFG_CUSTOM) {
			bool known = false;

			for (j = 0; j < MK_ARRAY_SIZE(custom_keys); j++)
				known |= !strcmp(custom_keys[j], k->path);
			cr_expect(known, "%s: a custom key needs its own test below", k->path);
			continue;
		}
		if (k->type == MK_CFG_STRING) {
			cr_assert_eq(mk_config_key_value(&def, i, &dv), -EINVAL);
			cr_expect(try_set(k->path, "/x/y.z", "/x/y.z", defaults), "%s", k->path);
			memset(value, 'a', k->size);
			value[k->size] = '\0';
			memset(shown, 'a', 48);
			strcpy(shown + 48, "...");
			snprintf(want, sizeof(want), "'%s' is longer than %zu bytes", shown,
				 k->size - 1);
			expect_key_error(k->path, value, -ERANGE, want);
			if (k->nonempty)
				expect_key_error(k->path, "\"\"", -EINVAL, "must not be empty");
			else
				cr_expect(try_set(k->path, "\"\"", "\"\"", defaults), "%s",
					  k->path);
			continue;
		}
		cr_assert_eq(mk_config_key_value(&def, i, &dv), 0, "%s", k->path);
		/* the default obeys the key's own rules, and the bounds fit the field */
		cr_expect(k->type == MK_CFG_ENUM || (dv >= k->min && dv <= k->max),
			  "%s: default %llu outside its range", k->path, (unsigned long long)dv);
		cr_expect(!k->valid || k->valid(dv), "%s: default %llu not valid", k->path,
			  (unsigned long long)dv);
		if (k->size < 8)
			cr_expect(k->max < 1ull << (8 * k->size), "%s: max does not fit the field",
				  k->path);
		if (k->type == MK_CFG_SECONDS_NS)
			cr_expect(k->max <= UINT64_MAX / 1000000000ull, "%s", k->path);
		if (k->type == MK_CFG_BOOL) {
			cr_expect(try_set(k->path, dv ? "no" : "yes", dv ? "no" : "yes", defaults));
			cr_expect(try_set(k->path, dv ? "off" : "on", dv ? "no" : "yes", defaults));
			expect_key_error(k->path, "maybe", -EINVAL,
					 "'maybe' is not a boolean (yes/no, true/false, on/off)");
			continue;
		}
		if (k->type == MK_CFG_ENUM) {
			const struct mk_cfg_name *nm, *first;
			size_t o = 0;

			for (nm = k->names; nm->name; nm++) {
				cr_expect(k->size == 4 || nm->value < 1u << (8 * k->size), "%s",
					  k->path);
				for (first = k->names; first->value != nm->value; first++)
					;
				/* a transport this build lacks is refused: config::several_eve_outputs */
				if (strcmp(k->path, "outputs.eve-log.filetype") ||
				    mk_out_transport_find(nm->name) ||
				    (strcmp(nm->name, "redis") && strcmp(nm->name, "kafka")))
					cr_expect(try_set(k->path, nm->name, first->name, defaults),
						  "%s: %s", k->path, nm->name);
				if (first == nm)
					o += (size_t)snprintf(want + o, sizeof(want) - o, "%s %s",
							      o ? "," : "'bogus' is not one of",
							      nm->name);
			}
			expect_key_error(k->path, "bogus", -EINVAL, want);
			continue;
		}
		/* numbers: a value other than the default that the module's rules accept */
		cand[0] = k->max;
		cand[1] = k->min;
		cand[2] = k->min + 1;
		cand[3] = k->min / 2 + k->max / 2;
		cand[4] = k->min ? k->min * 2 : 2;
		for (j = 0; j < 5 && !done; j++) {
			uint64_t v = cand[j];

			if (v == dv || v < k->min || v > k->max || (k->valid && !k->valid(v)))
				continue;
			if (k->type == MK_CFG_SIZE)
				size_text(v, value, sizeof(value));
			else
				snprintf(value, sizeof(value), "%llu", (unsigned long long)v);
			done = try_set(k->path, value, value, defaults);
		}
		cr_expect(done, "%s: no other value loads", k->path);
		/* out of range, not a number, against the extra rule */
		if (k->type == MK_CFG_SIZE) {
			char lo[32], hi[32];

			snprintf(shown, sizeof(shown), "a size in [%s, %s]",
				 size_text(k->min, lo, 32), size_text(k->max, hi, 32));
		} else {
			snprintf(shown, sizeof(shown), "a %sin [%llu, %llu]",
				 k->type == MK_CFG_SECONDS_NS ? "number of seconds " : "number ",
				 (unsigned long long)k->min, (unsigned long long)k->max);
		}
		snprintf(want, sizeof(want), "'lots' is not %s", shown);
		expect_key_error(k->path, "lots", -EINVAL, want);
		snprintf(want, sizeof(want), "'-1' is not %s", shown);
		expect_key_error(k->path, "-1", -EINVAL, want);
		snprintf(want, sizeof(want), "no value; expected %s", shown);
		expect_key_error_at(k->path, "", -1, -EINVAL, want);
		if (k->max < UINT64_MAX) {
			snprintf(value, sizeof(value), "%llu", (unsigned long long)k->max + 1);
			snprintf(want, sizeof(want), "'%s' is not %s", value, shown);
			expect_key_error(k->path, value, -ERANGE, want);
		}
		if (k->min) {
			snprintf(value, sizeof(value), "%llu", (unsigned long long)k->min - 1);
			snprintf(want, sizeof(want), "'%s' is not %s", value, shown);
			expect_key_error(k->path, value, -ERANGE, want);
		}
		for (j = 0; k->valid && j < 5000; j++) {
			if (k->valid(k->min + j))
				continue;
			snprintf(value, sizeof(value), "%llu", (unsigned long long)(k->min + j));
			snprintf(want, sizeof(want), "'%s' must be %s", value, k->must);
			expect_key_error(k->path, value, -EINVAL, want);
			break;
		}
	}
	cr_expect_geq(nkeys, 60, "%u keys registered", nkeys);
	free(defaults);
}

/* ---- the reference file and the defaults ----------------------------------------------- */

Test(config, defaults_are_suricatas)
{
	struct mk_config c;

	mk_config_defaults(&c);
	cr_assert_eq(c.flow.timeout[MK_FLOW_PROTO_TCP][MK_FLOW_STATE_ESTABLISHED], 600);
	cr_assert_eq(c.flow.emerg_timeout[MK_FLOW_PROTO_TCP][MK_FLOW_STATE_NEW], 5);
	cr_assert_eq(c.flow.timeout[MK_FLOW_PROTO_UDP][MK_FLOW_STATE_NEW], 30);
	cr_assert_eq(c.parse.tunnel_depth, MK_TUNNEL_DEPTH_DEFAULT);
	cr_assert_eq(c.stream.midstream, 1, "midstream pickup is on by default");
	cr_assert_str_eq(mk_cfg_var_get(c.rules.address_groups, c.rules.naddress_groups,
					"HOME_NET"),
			 "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]");
	cr_assert_str_eq(mk_cfg_var_get(c.rules.port_groups, c.rules.nport_groups, "HTTP_PORTS"),
			 "80");
	cr_assert_eq(c.output.eve.append, 1);
	cr_assert_eq(c.capture.stats_interval, 10, "stats.interval reaches the capture settings");
}

/*
 * configs/meerkat.yaml lists the built-in defaults. An intentional
 * difference would be a line in this list, and a comment in the file.
 */
Test(config, reference_file_is_the_defaults)
{
	static const char *const differences[] = { NULL };
	const char *path = getenv("MK_CONFIG_REFERENCE");
	struct mk_config def, ref;
	char *a, *b, diff[4096];
	unsigned int n;

	cr_assert_not_null(path, "MK_CONFIG_REFERENCE is set by meson");
	mk_config_defaults(&def);
	mk_config_defaults(&ref);
	cr_assert_eq(mk_config_load(&ref, path), 0);
	a = dump(&def);
	b = dump(&ref);
	changed_lines(a, b, diff, sizeof(diff), &n);
	cr_expect_eq(n, 0, "configs/meerkat.yaml differs from the defaults:\n%s", diff);
	cr_expect_null(differences[0]);
	free(a);
	free(b);
	mk_config_free(&ref);
}

/* mk_config_load reads what mk_config_load_buf reads */
Test(config, file_and_buffer_agree)
{
	static const char text[] =
		"flow:\n  prealloc: 1000 # x\nstream:\n  reassembly:\n    memcap: 2mb\n"
		"bypass:\n  cidr: [\"2001:db8::/32\"]\ndecoder:\n  l2tpv3:\n    cookie-len: 8\n";
	char path[] = "/tmp/test_config.XXXXXX", msg[256];
	struct mk_config c, f;
	char *a, *b;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	cr_assert_eq(load(&c, text, msg, sizeof(msg)), 0, "%s", msg);
	mk_config_defaults(&f);
	cr_assert_eq(mk_config_load(&f, path), 0);
	unlink(path);
	a = dump(&c);
	b = dump(&f);
	cr_expect_str_eq(a, b);
	cr_expect_eq(c.parse.l2tpv3_cookie_len, 8);
	cr_expect_eq(c.nbypass, 1);
	free(a);
	free(b);
	mk_config_free(&c);
	mk_config_free(&f);
	cr_expect_eq(mk_config_load(&f, "/nonexistent/meerkat.yaml"), -ENOENT);
}

/* ---- YAML as Suricata writes it --------------------------------------------------------- */

Test(config, suricata_document_shape)
{
	struct mk_config c;

	expect_ok(&c, "%YAML 1.1\n---\n# comment\n\nflow:\n  prealloc: 1000   # trailing\n");
	cr_expect_eq(c.flow.max_flows, 1000);
	mk_config_free(&c);
	/* empty, comments only, an empty section, a null document */
	expect_ok(&c, "");
	expect_ok(&c, "# nothing\n");
	expect_ok(&c, "---\n");
	expect_ok(&c, "~\n");
	expect_ok(&c, "flow:\n#  prealloc: 5\nstream:\n");
	cr_expect_eq(c.flow.max_flows, 65536);
	/* flow style, quoted numbers, anchors and aliases */
	expect_ok(&c, "flow: {prealloc: \"77\", hash-size: 0x100}\n"
		      "flow-timeouts:\n  tcp: &t {new: 1, established: 2}\n  udp: *t\n");
	cr_expect_eq(c.flow.max_flows, 77);
	cr_expect_eq(c.flow.hash_size, 256);
	cr_expect_eq(c.flow.timeout[MK_FLOW_PROTO_UDP][MK_FLOW_STATE_ESTABLISHED], 2);
	/* a document end marker */
	expect_ok(&c, "flow:\n  prealloc: 9\n...\n");
	cr_expect_eq(c.flow.max_flows, 9);
	mk_config_free(&c);
}

Test(config, sizes_and_booleans)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} sizes[] = {
		{ "4096", 4096 },	  { "2kb", 2048 },
		{ "2KB", 2048 },	  { "3mb", 3u << 20 },
		{ "3 MiB", 3u << 20 },	  { "1gb", 1u << 30 },
		{ "1GiB", 1u << 30 },	  { "5kib", 5120 },
		{ "0x100000", 1u << 20 }, { "17179869183gb", 17179869183ull << 30 },
	};
	static const char *const yes[] = { "yes", "true", "on", "YES", "True", "1" };
	static const char *const no[] = { "no", "false", "off", "NO", "Off", "0" };
	struct mk_config c;
	char text[256];
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(sizes); i++) {
		snprintf(text, sizeof(text), "flow:\n  memcap: %s\n", sizes[i].text);
		expect_ok(&c, text);
		cr_expect_eq(c.flow.memcap, sizes[i].bytes, "%s", sizes[i].text);
	}
	/* a suffix must not wrap the value back into range: (2^34 + 1) << 30 */
	expect_error(
		"flow:\n  memcap: 17179869185gb\n", -ERANGE,
		NAME
		":2:11: flow.memcap: '17179869185gb' is not a size in [0, 18446744073709551615]");
	expect_error(
		"flow:\n  memcap: 99999999999999999999\n", -ERANGE,
		NAME
		":2:11: flow.memcap: '99999999999999999999' is not a size in [0, 18446744073709551615]");
	expect_error("flow:\n  memcap: 1.5gb\n", -EINVAL,
		     NAME ":2:11: flow.memcap: '1.5gb' is not a size in [0, 18446744073709551615]");
	expect_error("flow:\n  memcap: 1tb\n", -EINVAL,
		     NAME ":2:11: flow.memcap: '1tb' is not a size in [0, 18446744073709551615]");
	/* counts take no unit */
	expect_error("flow:\n  prealloc: 1kb\n", -EINVAL,
		     NAME ":2:13: flow.prealloc: '1kb' is not a number in [1, 268435456]");
	for (i = 0; i < MK_ARRAY_SIZE(yes); i++) {
		snprintf(text, sizeof(text), "stream:\n  midstream: %s\ncapture:\n  ips: %s\n",
			 no[i], yes[i]);
		expect_ok(&c, text);
		cr_expect_eq(c.stream.midstream, 0, "%s", no[i]);
		cr_expect_eq(c.capture.ips, 1, "%s", yes[i]);
	}
	/* zero-copy is a three-way choice, but booleans mean what they say */
	expect_ok(&c, "capture:\n  zero-copy: yes\n  attach-mode: skb\n");
	cr_expect_eq(c.capture.zero_copy, MK_ZC_ON);
	cr_expect_eq(c.capture.attach, MK_XDP_ATTACH_GENERIC);
	expect_ok(&c, "capture:\n  zero-copy: off\n");
	cr_expect_eq(c.capture.zero_copy, MK_ZC_OFF);
	/* seconds in the file, nanoseconds in the defragmenter's struct */
	expect_ok(&c, "defrag:\n  timeout: 5\n");
	cr_expect_eq(c.defrag.timeout_ns, 5000000000ull);
}

/* ---- mistakes, one line each ------------------------------------------------------------- */

Test(config, errors_name_file_line_column_and_key)
{
	static const struct {
		const char *text;
		int err;
		const char *want;
	} cases[] = {
		{ "flow:\n  prealloc: 10\nflow-timeouts:\n  tcp:\n    new: lots\n", -EINVAL,
		  NAME ":5:10: flow-timeouts.tcp.new: 'lots' is not a number in [0, 86400]" },
		{ "flow:\n  max-flows: 10\n", -EINVAL, NAME ":2:3: flow.max-flows: unknown key" },
		{ "flows:\n  prealloc: 10\n", -EINVAL, NAME ":1:1: flows: unknown key" },
		{ "flow-timeouts:\n  udp:\n    closed: 5\n", -EINVAL,
		  NAME ":3:5: flow-timeouts.udp.closed: unknown key" },
		/* the old dotted keys are not YAML paths */
		{ "flow.prealloc: 10\n", -EINVAL, NAME ":1:1: flow.prealloc: unknown key" },
		{ "stream:\n  memcap: 64mb\n", -EINVAL, NAME ":2:3: stream.memcap: unknown key" },
		{ "flow:\n  prealloc: 1\n  prealloc: 2\n", -EINVAL,
		  NAME ":3:3: flow.prealloc: given twice (first at 2:3)" },
		{ "flow: 5\n", -EINVAL,
		  NAME ":1:7: flow: expected a mapping of keys, found a value" },
		{ "flow:\n  - prealloc: 5\n", -EINVAL,
		  NAME ":2:3: flow: expected a mapping of keys, found a list" },
		{ "flow:\n  prealloc: [1]\n", -EINVAL,
		  NAME ":2:13: flow.prealloc: expected a single value, found a list" },
		{ "flow:\n  prealloc: {a: 1}\n", -EINVAL,
		  NAME ":2:13: flow.prealloc: expected a single value, found a mapping" },
		{ "- flow\n", -EINVAL,
		  NAME ":1:1: the top level must be a mapping of keys (flow:, ...), found a list" },
		{ "hello\n", -EINVAL,
		  NAME
		  ":1:1: the top level must be a mapping of keys (flow:, ...), found a value" },
		{ "? [a]\n: 1\n", -EINVAL, NAME ":1:3: a key must be a name, found a list" },
		{ "decoder:\n  l2tpv3:\n    cookie-len: 5\n", -EINVAL,
		  NAME ":3:17: decoder.l2tpv3.cookie-len: '5' must be 0, 4 or 8" },
		{ "defrag:\n  policy: linux\n", -EINVAL,
		  NAME ":2:11: defrag.policy: 'linux' is not one of bsd, first, last, reject" },
		{ "capture:\n  rx-ring-size: 1000\n", -EINVAL,
		  NAME ":2:17: capture.rx-ring-size: '1000' must be a power of two" },
		{ "default-log-dir: \"\"\n", -EINVAL,
		  NAME ":1:18: default-log-dir: must not be empty" },
		{ "threshold-file: \"a\\0b\"\n", -EINVAL,
		  NAME ":1:17: threshold-file: the value contains a NUL byte" },
		{ "x: \"\\x01\"\n", -EINVAL, NAME ":1:1: x: unknown key" },
		/* rules between keys, checked after the whole file */
		{ "defrag:\n  trackers: 1000000\n", -EINVAL,
		  NAME
		  ": defrag: trackers (1000000) x max-frags (128) fragment records is more than "
		  "16777216 (20 bytes each, preallocated); max-frags counts fragments per datagram" },
		/* aliases may not loop */
		{ "flow-timeouts: &a\n  tcp: *a\n", -EINVAL,
		  NAME ":2:3: flow-timeouts.tcp.tcp: unknown key" },
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(cases); i++)
		expect_error(cases[i].text, cases[i].err, cases[i].want);
}

Test(config, yaml_syntax_errors_give_libyamls_position)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "flow:\n  prealloc: 1\n bad\n", NAME
		  ":3:2: YAML syntax error: did not find expected key (while parsing a block mapping at 1:1)" },
		{ "flow:\n\tprealloc: 1\n", NAME
		  ":2:1: YAML syntax error: found character that cannot start any token (a tab: indent with spaces)" },
		{ "flow: [1, 2\n", NAME
		  ":2:1: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at 1:7)" },
		{ "a: \"abc\n", NAME
		  ":2:1: YAML syntax error: found unexpected end of stream (while scanning a quoted scalar at 1:4)" },
		{ "a: *nowhere\n", NAME ":1:4: YAML syntax error: found undefined alias" },
		{ "flow:\n  prealloc: 1\n\x01\n",
		  NAME ":3:1: YAML syntax error: control characters are not allowed (byte 0x01)" },
		{ "a: \xc3\x28\n",
		  NAME ":1:5: YAML syntax error: invalid trailing UTF-8 octet (byte 0x28)" },
		{ "flow: {prealloc: 1}\n---\nflow: {}\n",
		  NAME ":3:1: a second YAML document; only one is read" },
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(cases); i++)
		expect_error(cases[i].text, -EINVAL, cases[i].want);
}

/* ---- lists and maps ---------------------------------------------------------------------- */

Test(config, capture_interfaces_and_cpus)
{
	struct mk_config c;

	expect_ok(&c,
		  "capture:\n  interfaces:\n    - interface: eth0\n      queues: 4\n    - eth1\n"
		  "  cpu-affinity: [1, 3-5, \"7\"]\n");
	cr_assert_eq(c.capture.n_ifaces, 2);
	cr_expect_str_eq(c.capture.ifaces[0].name, "eth0");
	cr_expect_eq(c.capture.ifaces[0].queues, 4);
	cr_expect_str_eq(c.capture.ifaces[1].name, "eth1");
	cr_expect_eq(c.capture.ifaces[1].queues, 0);
	cr_assert_eq(c.capture.ncpus, 5);
	cr_expect_eq(c.capture.cpus[0], 1);
	cr_expect_eq(c.capture.cpus[1], 3);
	cr_expect_eq(c.capture.cpus[3], 5);
	cr_expect_eq(c.capture.cpus[4], 7);
	expect_ok(&c, "capture:\n  interfaces: []\n  cpu-affinity:\n");
	cr_expect_eq(c.capture.n_ifaces, 0);
	cr_expect_eq(c.capture.ncpus, 0);
	expect_error("capture:\n  interfaces:\n    - interface: eth0\n      queue: 4\n", -EINVAL,
		     NAME ":4:7: capture.interfaces[0].queue: unknown key");
	expect_error("capture:\n  interfaces:\n    - interface: eth0\n      queues: 65\n", -ERANGE,
		     NAME ":4:15: capture.interfaces[0].queues: '65' is not a number in [0, 64]");
	expect_error("capture:\n  interfaces:\n    - queues: 2\n", -EINVAL,
		     NAME ":3:7: capture.interfaces[0]: no `interface:` name");
	expect_error("capture:\n  interfaces: [eth0, eth0]\n", -EINVAL,
		     NAME ":2:22: capture.interfaces[1]: 'eth0' is listed twice");
	expect_error("capture:\n  interfaces: [a, b, c, d, e]\n", -EINVAL,
		     NAME ":2:28: capture.interfaces[4]: at most 4 interfaces");
	expect_error(
		"capture:\n  interfaces: [averyveryverylongname]\n", -EINVAL,
		NAME
		":2:16: capture.interfaces[0]: 'averyveryverylongname' is not an interface name "
		"(1 to 15 bytes, no '/', ':' or space)");
	expect_error(
		"capture:\n  interfaces: eth0\n", -EINVAL,
		NAME
		":2:15: capture.interfaces: expected a list of interfaces (- interface: eth0), found a value");
	expect_error(
		"capture:\n  cpu-affinity: [1, 5-3]\n", -EINVAL,
		NAME
		":2:21: capture.cpu-affinity[1]: '5-3' is not a CPU number or range (2-5) in [0, 4095]");
	expect_error("capture:\n  cpu-affinity: [0-64]\n", -EINVAL,
		     NAME ":2:18: capture.cpu-affinity[0]: more than 64 CPUs");
}

Test(config, vars_replace_or_add_groups)
{
	struct mk_config c;
	const struct mk_rules_cfg *r = &c.rules;

	expect_ok(
		&c,
		"vars:\n  address-groups:\n    HOME_NET: \"[10.0.0.0/8]\"\n    LAB_NET: 192.0.2.0/24\n"
		"  port-groups:\n    HTTP_PORTS: \"[80,8080]\"\n    ORACLE_PORTS: 1522\n");
	cr_expect_str_eq(mk_cfg_var_get(r->address_groups, r->naddress_groups, "HOME_NET"),
			 "[10.0.0.0/8]");
	cr_expect_str_eq(mk_cfg_var_get(r->address_groups, r->naddress_groups, "LAB_NET"),
			 "192.0.2.0/24");
	cr_expect_str_eq(mk_cfg_var_get(r->address_groups, r->naddress_groups, "EXTERNAL_NET"),
			 "!$HOME_NET", "a group the file does not name keeps its value");
	cr_expect_eq(r->naddress_groups, 16);
	cr_expect_str_eq(mk_cfg_var_get(r->port_groups, r->nport_groups, "HTTP_PORTS"),
			 "[80,8080]");
	cr_expect_str_eq(mk_cfg_var_get(r->port_groups, r->nport_groups, "ORACLE_PORTS"), "1522");
	cr_expect_eq(r->nport_groups, 11);
	mk_config_free(&c);
	cr_expect_eq(c.rules.naddress_groups, 15, "free leaves the defaults");
	expect_error(
		"vars:\n  address-groups:\n    HOME_NET: [10.0.0.0/8]\n", -EINVAL,
		NAME
		":3:15: vars.address-groups.HOME_NET: a YAML list; write the group as a quoted "
		"string, \"[10.0.0.0/8,192.168.0.0/16]\"");
	expect_error("vars:\n  port-groups:\n    HTTP_PORTS:\n", -EINVAL,
		     NAME ":3:16: vars.port-groups.HTTP_PORTS: must not be empty");
	expect_error("vars:\n  port-groups:\n    A: 1\n    A: 2\n", -EINVAL,
		     NAME ":4:5: vars.port-groups.A: given twice (first at 3:5)");
	expect_error(
		"vars:\n  port-groups: [80]\n", -EINVAL,
		NAME
		":2:16: vars.port-groups: expected a mapping of group names to values, found a list");
	expect_error("vars:\n  ip-groups: {}\n", -EINVAL, NAME ":2:3: vars.ip-groups: unknown key");
}

Test(config, rule_files_and_paths)
{
	struct mk_config c;

	expect_ok(&c,
		  "default-rule-path: /etc/rules\nrule-files:\n  - a.rules\n  - /abs/b.rules\n"
		  "classification-file: /x/classification.config\nthreshold-file: /x/t.config\n");
	cr_assert_eq(c.rules.nrule_files, 2);
	cr_expect_str_eq(c.rules.rule_files[0], "a.rules");
	cr_expect_str_eq(c.rules.rule_files[1], "/abs/b.rules");
	cr_expect_str_eq(c.rules.default_rule_path, "/etc/rules");
	cr_expect_str_eq(c.rules.classification_file, "/x/classification.config");
	cr_expect_str_eq(c.rules.threshold_file, "/x/t.config");
	cr_expect_str_eq(c.rules.reference_config_file, "/etc/meerkat/reference.config");
	mk_config_free(&c);
	expect_error("rule-files:\n  - a.rules\n  - \"\"\n", -EINVAL,
		     NAME ":3:5: rule-files[1]: must not be empty");
	expect_error(
		"rule-files: a.rules\n", -EINVAL,
		NAME
		":1:13: rule-files: expected a list of rule files (- local.rules), found a value");
}

Test(config, outputs_in_suricatas_shape)
{
	struct mk_config c;
	char path[600];

	expect_ok(&c,
		  "default-log-dir: /data/log\noutputs:\n  - eve-log:\n      enabled: yes\n"
		  "      filename: alerts.json\n      append: no\n      types:\n        - alert\n"
		  "        - flow:\n        - stats: {}\nstats:\n  enabled: no\n  interval: 30\n");
	cr_expect_str_eq(c.output.log_dir, "/data/log");
	cr_expect_str_eq(c.output.eve.filename, "alerts.json");
	cr_expect_eq(c.output.eve.append, 0);
	cr_expect_eq(c.output.eve.types, MK_EVE_TYPE_ALERT | MK_EVE_TYPE_FLOW | MK_EVE_TYPE_STATS);
	cr_expect_eq(c.output.stats_interval, 30);
	cr_expect_eq(c.capture.stats_interval, 0, "stats.enabled: no stops the stats events");
	cr_assert_eq(mk_output_eve_path(&c.output, path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/data/log/alerts.json");
	expect_ok(&c,
		  "outputs:\n  - eve-log:\n      filename: /abs/eve.json\n      types: [flow]\n");
	cr_assert_eq(mk_output_eve_path(&c.output, path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/abs/eve.json");
	cr_expect_eq(c.output.eve.types, MK_EVE_TYPE_FLOW);
	expect_ok(&c, "outputs:\n  - eve-log:\n      types:\n");
	cr_expect_eq(c.output.eve.types, 0, "an empty list writes no event type");
	expect_error("outputs:\n  - fast:\n      enabled: yes\n", -EINVAL,
		     NAME ":2:5: outputs[0]: 'fast' is not an output meerkat writes (eve-log)");
	expect_error("outputs:\n  - eve-log:\n  - eve-log:\n", -EINVAL,
		     NAME ":3:5: outputs[1].eve-log.filename: 'eve.json' is already outputs[0]'s");
	expect_error(
		"outputs:\n  - eve-log:\n    enabled: yes\n", -EINVAL,
		NAME
		":2:5: outputs[0]: an output is one name with its settings indented below it, as in `- eve-log:`");
	expect_error("outputs:\n  eve-log:\n    enabled: yes\n", -EINVAL,
		     NAME
		     ":2:3: outputs: expected a list of outputs (- eve-log: ...), found a mapping");
	expect_error("outputs:\n  - eve-log:\n      filetype: pipe\n", -EINVAL,
		     NAME
		     ":3:17: outputs.eve-log.filetype: 'pipe' is not one of regular, unix_dgram, "
		     "unix_stream, syslog, redis, kafka");
	expect_error("outputs:\n  - eve-log:\n      types: [alert, smb]\n", -EINVAL,
		     NAME
		     ":3:22: outputs.eve-log.types[1]: 'smb' is not an event type meerkat writes "
		     "(alert, flow, stats, http, files, dns, tls, ssh, smtp, ftp)");
	expect_error("outputs:\n  - eve-log:\n      types: [flow, flow]\n", -EINVAL,
		     NAME ":3:21: outputs.eve-log.types[1]: 'flow' is listed twice");
	/* Suricata's per-type options meerkat does not read are refused, not ignored */
	expect_error(
		"outputs:\n  - eve-log:\n      types:\n        - alert:\n            packet: yes\n",
		-EINVAL, NAME ":5:13: outputs.eve-log.types.alert.packet: unknown key");
	expect_error(
		"outputs:\n  - eve-log:\n      types:\n        - flow:\n            payload: yes\n",
		-EINVAL, NAME ":5:13: outputs.eve-log.types.flow.payload: unknown key");
}

/* Several eve-log outputs (output/output_cfg.c): each its own, rendering options shared. */
Test(config, several_eve_outputs)
{
	struct mk_config c;
	char *d;

	expect_ok(&c, "outputs:\n"
		      "  - eve-log:\n      filename: all.json\n      rotate-interval: 1h\n"
		      "  - eve-log:\n      filetype: unix_stream\n      filename: /run/eve.sock\n"
		      "      types: [alert]\n      buffer-size: 1mb\n      backpressure: yes\n"
		      "  - eve-log:\n      enabled: no\n      filetype: syslog\n"
		      "      facility: local3\n      level: notice\n      identity: ids\n"
		      "      syslog-socket: /tmp/log.sock\n");
	cr_assert_eq(c.output.neve, 3);
	cr_expect_str_eq(c.output.eve.filename, "all.json", "eve is the first enabled output");
	cr_expect_eq(c.output.eves[0].rotate_interval, 3600);
	cr_expect_eq(c.output.eves[1].filetype, MK_EVE_FILETYPE_UNIX_STREAM);
	cr_expect_eq(c.output.eves[1].types, MK_EVE_TYPE_ALERT);
	cr_expect_eq(c.output.eves[1].buffer_size, 1u << 20);
	cr_expect_eq(c.output.eves[1].backpressure, 1);
	cr_expect_eq(c.output.eves[0].buffer_size, MK_EVE_BUFFER_DEFAULT);
	cr_expect_eq(c.output.eves[2].enabled, 0);
	cr_expect_eq(c.output.eves[2].facility, 19);
	cr_expect_eq(c.output.eves[2].level, 5);
	cr_expect_str_eq(c.output.eves[2].identity, "ids");
	cr_expect_str_eq(c.output.eves[2].syslog_socket, "/tmp/log.sock");
	cr_expect_eq(mk_output_types(&c.output),
		     MK_EVE_TYPE_ALERT | MK_EVE_TYPE_FLOW | MK_EVE_TYPE_STATS);
	d = dump(&c);
	cr_expect(strstr(d, "outputs[1].eve-log.filetype = unix_stream\n"), "%s", d);
	cr_expect(strstr(d, "outputs[2].eve-log.facility = local3\n"), "%s", d);
	cr_expect(strstr(d, "outputs[0].eve-log.rotate-interval = 3600s\n"), "%s", d);
	free(d);
	mk_config_free(&c);
	/* the first enabled one renders; a disabled first one does not count */
	expect_ok(&c, "outputs:\n  - eve-log:\n      enabled: no\n"
		      "  - eve-log:\n      filename: b.json\n      community-id: no\n");
	cr_expect_str_eq(c.output.eve.filename, "b.json");
	cr_expect_eq(c.output.eve.community_id, 0);
	mk_config_free(&c);
	expect_ok(&c, "outputs:\n  - eve-log:\n      rotate-interval: minute\n");
	cr_expect_eq(c.output.eve.rotate_interval, 60);
	mk_config_free(&c);

	expect_error("outputs:\n  - eve-log:\n  - eve-log:\n      filename: b.json\n"
		     "      community-id: no\n",
		     -EINVAL,
		     NAME ":3:5: outputs[1].eve-log.community-id: differs from outputs[0]'s: a "
			  "record is rendered once for every output that takes it");
	expect_error("outputs:\n  - eve-log:\n      types: [alert]\n  - eve-log:\n"
		     "      filename: b.json\n      types:\n        - alert: {payload: yes}\n",
		     -EINVAL,
		     NAME ":4:5: outputs[1].eve-log.types.alert: differs from outputs[0]'s: a "
			  "record is rendered once for every output that takes it");
	/* different types, different options: no conflict */
	expect_ok(&c, "outputs:\n  - eve-log:\n      types: [flow]\n  - eve-log:\n"
		      "      filename: b.json\n      types:\n        - alert: {payload: yes}\n");
	cr_expect_eq(c.output.eve.alert_payload, 1, "alert options from the output taking alerts");
	mk_config_free(&c);
	/* tagged-packets (kw/tag.c's packet records) is one of those shared options */
	expect_ok(&c, "outputs:\n  - eve-log:\n      types:\n        - alert:\n"
		      "            tagged-packets: yes\n");
	cr_expect_eq(c.output.eve.alert_tagged_packets, 1);
	mk_config_free(&c);
	expect_error(
		"outputs:\n  - eve-log:\n      types: [alert]\n  - eve-log:\n"
		"      filename: b.json\n      types:\n        - alert: {tagged-packets: yes}\n",
		-EINVAL,
		NAME ":4:5: outputs[1].eve-log.types.alert: differs from outputs[0]'s: a "
		     "record is rendered once for every output that takes it");
	if (!mk_out_transport_find("redis"))
		expect_error("outputs:\n  - eve-log:\n      filetype: redis\n", -EINVAL,
			     NAME
			     ":3:17: outputs[0].eve-log.filetype: 'redis' is not built into this "
			     "meerkat (filetypes: regular, unix_dgram, unix_stream, syslog)");
	expect_error("outputs:\n  - eve-log:\n      redis:\n        server: x\n", -EINVAL,
		     NAME ":3:7: outputs[0]: settings for a transport but filetype is regular");
	expect_error("outputs:\n  - eve-log:\n      rotate-interval: 5x\n", -EINVAL,
		     NAME ":3:24: outputs.eve-log.rotate-interval: '5x' is not an interval (60s, "
			  "10m, 1h, 1d, minute, hour, day; at most 30 days; 0: never)");
	expect_error("outputs:\n  - eve-log:\n      buffer-size: 1kb\n", -ERANGE,
		     NAME ":3:20: outputs.eve-log.buffer-size: '1kb' is not a size in [64kb, 1gb]");
	expect_error("outputs:\n  - eve-log:\n      facility: local9\n", -EINVAL,
		     NAME
		     ":3:17: outputs.eve-log.facility: 'local9' is not one of kern, user, "
		     "mail, daemon, auth, syslog, lpr, news, uucp, cron, authpriv, ftp, local0, "
		     "local1, local2, local3, local4, local5, local6, local7");
	expect_error("outputs:\n"
		     "  - eve-log: {filename: a}\n  - eve-log: {filename: b}\n"
		     "  - eve-log: {filename: c}\n  - eve-log: {filename: d}\n"
		     "  - eve-log: {filename: e}\n  - eve-log: {filename: f}\n"
		     "  - eve-log: {filename: g}\n  - eve-log: {filename: h}\n"
		     "  - eve-log: {filename: i}\n",
		     -EINVAL, NAME ":10:5: outputs[8]: more than 8 eve-log outputs");
}

Test(config, file_hashes)
{
	struct mk_config c;

	expect_ok(&c, "app-layer:\n  protocols:\n    http:\n      file-hashes: [md5, sha256]\n");
	cr_expect_eq(c.app.file_hashes, MK_APP_HASH_MD5 | MK_APP_HASH_SHA256);
	expect_ok(&c, "app-layer:\n  protocols:\n    http:\n      file-hashes: []\n");
	cr_expect_eq(c.app.file_hashes, 0);
	expect_error(
		"app-layer:\n  protocols:\n    http:\n      file-hashes: [crc32]\n", -EINVAL,
		NAME
		":4:21: app-layer.protocols.http.file-hashes[0]: 'crc32' is not a digest meerkat computes (md5, sha1, sha256)");
	expect_error("app-layer:\n  protocols:\n    http:\n      file-hashes: sha1\n", -EINVAL,
		     NAME ":4:20: app-layer.protocols.http.file-hashes: expected a list of digests "
			  "([md5, sha1, sha256]), found a value");
}

Test(config, bypass_cidrs)
{
	struct mk_config c;
	uint32_t a[4] = { 0 };

	expect_ok(
		&c,
		"bypass:\n  cidr:\n    - 192.0.2.0/24\n    - 2001:db8:1::/48\n    - 198.51.100.7\n"
		"    - 10.1.2.3/8\n");
	cr_assert_eq(c.nbypass, 4);
	cr_expect_eq(c.bypass[3].addr[0], htonl(0x0a000000), "host bits cleared");
	inet_pton(AF_INET, "192.0.2.200", a);
	cr_expect(mk_config_bypassed(&c, MK_FAMILY_IPV4, a));
	inet_pton(AF_INET, "192.0.3.1", a);
	cr_expect_not(mk_config_bypassed(&c, MK_FAMILY_IPV4, a));
	inet_pton(AF_INET, "198.51.100.7", a);
	cr_expect(mk_config_bypassed(&c, MK_FAMILY_IPV4, a));
	inet_pton(AF_INET6, "2001:db8:1:ffff::1", a);
	cr_expect(mk_config_bypassed(&c, MK_FAMILY_IPV6, a));
	inet_pton(AF_INET6, "2001:db8:2::1", a);
	cr_expect_not(mk_config_bypassed(&c, MK_FAMILY_IPV6, a));
	mk_config_free(&c);
	cr_expect_eq(c.nbypass, 0);
	expect_error(
		"bypass:\n  cidr: [10.0.0.0/33]\n", -EINVAL,
		NAME
		":2:10: bypass.cidr[0]: '10.0.0.0/33' is not an IPv4 or IPv6 address or prefix");
	expect_error("bypass:\n  cidr: 10.0.0.0/8\n", -EINVAL,
		     NAME ":2:9: bypass.cidr: expected a list of prefixes, found a value");
}

Test(config, bad_cidrs)
{
	struct mk_cidr r;

	cr_assert_neq(mk_cidr_parse("10.0.0.0/33", &r), 0);
	cr_assert_neq(mk_cidr_parse("10.0.0.0/", &r), 0);
	cr_assert_neq(mk_cidr_parse("10.0.0.0/+8", &r), 0);
	cr_assert_neq(mk_cidr_parse("nope/8", &r), 0);
	cr_assert_neq(mk_cidr_parse("2001:db8::/129", &r), 0);
	cr_assert_eq(mk_cidr_parse("::/0", &r), 0);
}

/* ---- the command line over the file ----------------------------------------------------- */

Test(config, command_line_overrides_the_file)
{
	static const char *const ifaces[] = { "eth1", "eth9" };
	struct mk_config_cli cli = {
		.ifaces = ifaces, .n_ifaces = 2, .workers = "3", .log_dir = "/tmp/l"
	};
	char path[] = "/tmp/test_config.XXXXXX";
	static const char text[] = "capture:\n  workers: 8\n  interfaces:\n    - interface: eth1\n"
				   "      queues: 2\n    - eth2\ndefault-log-dir: /var/x\n";
	struct mk_config c;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	cr_assert_eq(mk_config_setup(&c, path, NULL), 0);
	cr_expect_eq(c.capture.workers, 8);
	cr_expect_eq(c.capture.n_ifaces, 2);
	mk_config_free(&c);
	cr_assert_eq(mk_config_setup(&c, path, &cli), 0);
	cr_expect_eq(c.capture.workers, 3);
	cr_assert_eq(c.capture.n_ifaces, 2);
	cr_expect_str_eq(c.capture.ifaces[0].name, "eth1");
	cr_expect_eq(c.capture.ifaces[0].queues, 2, "an interface the file lists keeps its queues");
	cr_expect_str_eq(c.capture.ifaces[1].name, "eth9");
	cr_expect_eq(c.capture.ifaces[1].queues, 0);
	cr_expect_str_eq(c.output.log_dir, "/tmp/l");
	mk_config_free(&c);
	unlink(path);
	/* the file is not needed for the options to apply */
	cr_assert_eq(mk_config_setup(&c, NULL, &cli), 0);
	cr_expect_eq(c.capture.workers, 3);
	mk_config_free(&c);
}

Test(config, command_line_errors)
{
	static const char *const bad_if[] = { "eth0", "a/b" };
	static const char *const dup_if[] = { "eth0", "eth0" };
	struct mk_config_cli cli = { 0 };
	struct mk_config c;

	mk_config_defaults(&c);
	cli.workers = "0";
	cr_expect_eq(mk_config_apply_cli(&c, &cli), -ERANGE);
	cli.workers = "65";
	cr_expect_eq(mk_config_apply_cli(&c, &cli), -ERANGE);
	cli.workers = "two";
	cr_expect_eq(mk_config_apply_cli(&c, &cli), -EINVAL);
	cli.workers = NULL;
	cli.ifaces = bad_if;
	cli.n_ifaces = 2;
	cr_expect_eq(mk_config_apply_cli(&c, &cli), -EINVAL);
	cr_expect_eq(c.capture.n_ifaces, 0, "a refused -i list leaves the file's");
	cli.ifaces = dup_if;
	cr_expect_eq(mk_config_apply_cli(&c, &cli), -EINVAL);
	cli.n_ifaces = 0;
	cli.log_dir = "";
	cr_expect_eq(mk_config_apply_cli(&c, &cli), -EINVAL);
	cr_expect_eq(c.capture.workers, 0, "nothing changed");
}

/* ---- hostile input ----------------------------------------------------------------------- */

/*
 * Truncation: every prefix of the reference file, through the buffer entry
 * point (no NUL terminator, an exact-size copy), loads or fails with one
 * error line; nothing crashes or leaks (the ASan build runs this too).
 */
Test(config, every_prefix_of_the_reference_file)
{
	const char *path = getenv("MK_CONFIG_REFERENCE");
	char *text = NULL, msg[1024];
	struct mk_config c;
	size_t len = 0, n;
	unsigned int ok = 0;
	FILE *f;
	int err;

	cr_assert_not_null(path);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	text = malloc(1 << 16);
	len = fread(text, 1, 1 << 16, f);
	fclose(f);
	cr_assert_gt(len, 1000);
	for (n = 0; n <= len; n++) {
		err = load_n(&c, text, n, msg, sizeof(msg));
		cr_assert(err == 0 || err == -EINVAL || err == -ERANGE, "prefix %zu: %d", n, err);
		cr_assert_eq(!err, !msg[0],
			     "prefix %zu: an error is logged exactly when returned: %s", n, msg);
		ok += !err;
		free(dump(&c)); /* whatever was stored before the error is printable */
		mk_config_free(&c);
	}
	cr_expect_gt(ok, len / 4, "most prefixes of a valid file end at a line and load (%u)", ok);
	free(text);
}

/* Tunnel decoders: on by default at the standard ports; each can be turned off or moved. */
Test(config, tunnel_decoders)
{
	struct mk_config c;
	char msg[512];

	mk_config_defaults(&c);
	cr_assert_eq(c.parse.tunnel_off, 0, "every decoder is on by default");
	cr_assert_eq(c.parse.vxlan_port, MK_VXLAN_PORT_DEFAULT);
	cr_assert_eq(c.parse.geneve_port, MK_GENEVE_PORT_DEFAULT);
	cr_assert_eq(
		load(&c,
		     "decoder:\n  vxlan: {enabled: no, port: 8472}\n  erspan:\n    enabled: false\n"
		     "  ipip: {enabled: off}\n  geneve: {port: 6082}\n  gre: {enabled: yes}\n",
		     msg, sizeof(msg)),
		0, "%s", msg);
	cr_assert_eq(c.parse.tunnel_off, MK_TUN_VXLAN | MK_TUN_ERSPAN | MK_TUN_IPIP);
	cr_assert_eq(c.parse.vxlan_port, 8472);
	cr_assert_eq(c.parse.geneve_port, 6082);
	mk_config_free(&c);
	cr_assert_neq(load(&c, "decoder:\n  gre:\n    enabled: maybe\n", msg, sizeof(msg)), 0);
	cr_assert(strstr(msg, "decoder.gre.enabled") != NULL, "error names the key: %s", msg);
	mk_config_free(&c);
	cr_assert_neq(load(&c, "decoder:\n  vxlan:\n    port: 0\n", msg, sizeof(msg)), 0);
	mk_config_free(&c);
	cr_assert_neq(load(&c, "decoder:\n  geneve:\n    port: 65536\n", msg, sizeof(msg)), 0);
	mk_config_free(&c);
	cr_assert_neq(load(&c, "decoder:\n  vxlan:\n    enable: no\n", msg, sizeof(msg)), 0);
	mk_config_free(&c);
}
