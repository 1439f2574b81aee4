// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration reload's comparison (config/config_diff.c): which keys a
 * reload applies, rebuilds the rules for, or reports as needing a restart;
 * the changes between two loaded configurations with their "key: old ->
 * new" texts; and the last error line a refused reload quotes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "config_diff.h"

static void load(struct mk_config *c, const char *text)
{
	mk_config_defaults(c);
	cr_assert_eq(mk_config_load_buf(c, text, strlen(text), "t.yaml"), 0, "%s", text);
}

Test(config_diff, kinds_by_path)
{
	static const struct {
		const char *path;
		enum mk_cfg_reload how;
	} cases[] = {
		{ "capture.workers", MK_CFG_RELOAD_RESTART },
		{ "capture.interfaces", MK_CFG_RELOAD_RESTART },
		{ "flow.hash-size", MK_CFG_RELOAD_RESTART },
		{ "flow.memcap", MK_CFG_RELOAD_RESTART },
		{ "outputs.eve-log.filename", MK_CFG_RELOAD_RESTART },
		{ "flow-timeouts.udp.new", MK_CFG_RELOAD_LIVE },
		{ "flow-timeouts.tcp.emergency-closed", MK_CFG_RELOAD_LIVE },
		{ "flow-timeouts.tcp.bypassed", MK_CFG_RELOAD_RESTART },
		{ "flow-timeouts.default.emergency-bypassed", MK_CFG_RELOAD_RESTART },
		{ "flow.bypass-bytes", MK_CFG_RELOAD_LIVE },
		{ "stream.bypass", MK_CFG_RELOAD_LIVE },
		{ "stream.reassembly.depth", MK_CFG_RELOAD_RESTART },
		{ "stats.interval", MK_CFG_RELOAD_LIVE },
		{ "outputs.eve-log.types", MK_CFG_RELOAD_LIVE },
		{ "outputs.eve-log.types.alert.payload", MK_CFG_RELOAD_LIVE },
		{ "bypass.cidr", MK_CFG_RELOAD_LIVE },
		{ "bypass.max-flows", MK_CFG_RELOAD_RESTART },
		{ "vars.address-groups", MK_CFG_RELOAD_RULES },
		{ "rule-files", MK_CFG_RELOAD_RULES },
		{ "threshold-file", MK_CFG_RELOAD_RULES },
		/* a key this table does not know is reported, never ignored */
		{ "some.future-key", MK_CFG_RELOAD_RESTART },
		{ "rule-files-extra", MK_CFG_RELOAD_RESTART },
		{ "", MK_CFG_RELOAD_RESTART },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(mk_config_key_reload(cases[i].path), cases[i].how, "%s: %s, want %s",
			     cases[i].path, mk_cfg_reload_name(mk_config_key_reload(cases[i].path)),
			     mk_cfg_reload_name(cases[i].how));
}

/* Every registered key compares equal to itself; the rules and live keys exist. */
Test(config_diff, every_key)
{
	const struct mk_cfg_key *k;
	unsigned int i, rules = 0, live = 0;
	struct mk_config c;

	mk_config_defaults(&c);
	cr_assert_eq(mk_config_diff(&c, &c, NULL, 0), 0);
	for (i = 0; (k = mk_config_key(i)); i++) {
		rules += mk_config_key_reload(k->path) == MK_CFG_RELOAD_RULES;
		live += mk_config_key_reload(k->path) == MK_CFG_RELOAD_LIVE;
	}
	/* vars (2), default-rule-path, rule-files, 3 side files, prefilter cache */
	cr_expect_eq(rules, 8);
	cr_expect_gt(live, 20);
}

Test(config_diff, restart_key_text)
{
	struct mk_config a, b;
	struct mk_config_change ch[4];
	int n;

	load(&a, "capture:\n  workers: 2\n");
	load(&b, "capture:\n  workers: 4\n");
	n = mk_config_diff(&a, &b, ch, 4);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(ch[0].path, "capture.workers");
	cr_expect_eq(ch[0].how, MK_CFG_RELOAD_RESTART);
	cr_expect_str_eq(ch[0].text, "capture.workers: 2 -> 4");
	mk_config_free(&a);
	mk_config_free(&b);
}

Test(config_diff, several_in_order_short_array)
{
	struct mk_config a, b;
	struct mk_config_change ch[2];
	int n;

	load(&a, "flow-timeouts:\n  udp:\n    new: 30\nflow:\n  hash-size: 4096\n");
	load(&b, "flow-timeouts:\n  udp:\n    new: 10\nflow:\n  hash-size: 8192\n"
		 "bypass:\n  cidr: [10.9.0.0/16]\n");
	n = mk_config_diff(&a, &b, ch, 2);
	/* three differ; the array holds the first two, in registration order */
	cr_assert_eq(n, 3);
	cr_expect_str_eq(ch[0].text, "flow.hash-size: 4096 -> 8192");
	cr_expect_eq(ch[0].how, MK_CFG_RELOAD_RESTART);
	cr_expect_str_eq(ch[1].text, "flow-timeouts.udp.new: 30 -> 10");
	cr_expect_eq(ch[1].how, MK_CFG_RELOAD_LIVE);
	mk_config_free(&a);
	mk_config_free(&b);
}

Test(config_diff, lists_and_groups)
{
	struct mk_config a, b;
	struct mk_config_change ch[4];
	int n;

	load(&a, "vars:\n  address-groups:\n    HOME_NET: \"[10.0.0.0/8]\"\n");
	load(&b, "vars:\n  address-groups:\n    HOME_NET: \"[10.1.0.0/16]\"\n"
		 "bypass:\n  cidr:\n    - 192.0.2.7\n    - 2001:db8::/32\n");
	n = mk_config_diff(&a, &b, ch, 4);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(ch[0].path, "vars.address-groups");
	cr_expect_eq(ch[0].how, MK_CFG_RELOAD_RULES);
	cr_expect_str_eq(ch[0].text,
			 "vars.address-groups.HOME_NET: \"[10.0.0.0/8]\" -> \"[10.1.0.0/16]\"");
	cr_expect_str_eq(ch[1].text, "bypass.cidr: [] -> [192.0.2.7/32, 2001:db8::/32]");
	cr_expect_eq(ch[1].how, MK_CFG_RELOAD_LIVE);
	/* and back: the other way round */
	n = mk_config_diff(&b, &a, ch, 4);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(ch[1].text, "bypass.cidr: [192.0.2.7/32, 2001:db8::/32] -> []");
	mk_config_free(&a);
	mk_config_free(&b);
}

/* A group added to the built-in ones: a line more on one side. */
Test(config_diff, group_added)
{
	struct mk_config a, b;
	struct mk_config_change ch[2];

	load(&a, "");
	load(&b, "vars:\n  port-groups:\n    MY_PORTS: \"8080\"\n");
	cr_assert_eq(mk_config_diff(&a, &b, ch, 2), 1);
	cr_expect_str_eq(ch[0].text, "vars.port-groups.MY_PORTS: (none) -> 8080");
	mk_config_free(&a);
	mk_config_free(&b);
}

/* A refused file leaves its error line for the reload's reply. */
Test(config_diff, last_error_line)
{
	static const char *const bad[][2] = {
		{ "capture:\n  workers: [\n", "t.yaml:3:1: " },
		{ "flow:\n  no-such-key: 1\n", "t.yaml:2:3: flow.no-such-key: " },
		{ "capture:\n  workers: 9999\n", "t.yaml:2:12: capture.workers: " },
	};
	struct mk_config c;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mk_cfg_clear_error();
		cr_expect_str_empty(mk_cfg_last_error());
		mk_config_defaults(&c);
		cr_expect_neq(mk_config_load_buf(&c, bad[i][0], strlen(bad[i][0]), "t.yaml"), 0);
		cr_expect(!strncmp(mk_cfg_last_error(), bad[i][1], strlen(bad[i][1])),
			  "case %u: '%s' does not start with '%s'", i, mk_cfg_last_error(),
			  bad[i][1]);
		mk_config_free(&c);
	}
	mk_cfg_clear_error();
	mk_config_defaults(&c);
	cr_expect_neq(mk_config_load(&c, "/nonexistent/meerkat.yaml"), 0);
	cr_expect_str_eq(mk_cfg_last_error(),
			 "/nonexistent/meerkat.yaml: No such file or directory");
}
