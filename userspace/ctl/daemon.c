// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkatctl commands answered by the running daemon over its control
 * socket (control/ctlsock.h): ping, status, stats without -i, and the
 * configuration and rules: reload (docs/operations.md, Reload) and rules
 * (ruleset-stats).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "ctl.h"
#include "ctlsock.h"
#include "log.h"

const char *ctl_socket_path = MK_CTL_DEFAULT_SOCKET;

json_t *ctl_ask(const char *command, json_t *args)
{
	json_t *res = mk_ctl_request(ctl_socket_path, command, args), *msg;
	const char *ret;

	json_decref(args);
	if (!res)
		return NULL;
	ret = json_string_value(json_object_get(res, "return"));
	msg = json_object_get(res, "message");
	if (!ret || strcmp(ret, "OK") || !msg) {
		mk_err("%s: %s", command,
		       json_is_string(msg) ? json_string_value(msg) : "malformed answer");
		json_decref(res);
		return NULL;
	}
	json_incref(msg);
	json_decref(res);
	return msg;
}

static int dump_json(json_t *v)
{
	int err = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	putchar('\n');
	return err ? 1 : 0;
}

/* The daemon commands' options: --json, --help. */
struct daemon_params {
	int json;
	int help;
};

#define P(field) offsetof(struct daemon_params, field)
#define JSON_ROW(help)                                              \
	{                                                           \
		"json", 'j', MK_OPT_FLAG, P(json), NULL, help, 0, 0 \
	}
#define HELP_ROW                                                           \
	{                                                                  \
		"help", 'h', MK_OPT_HELP, P(help), NULL, "this help", 0, 0 \
	}

static const struct mk_opt ping_opts[] = {
	JSON_ROW("accepted as by the other commands; the answer is one word"),
	HELP_ROW,
};
static const struct daemon_params ping_defaults = { 0 };

static int do_ping(const void *params)
{
	json_t *m;

	(void)params;
	m = ctl_ask("ping", NULL);
	if (!m)
		return 1;
	printf("%s\n", json_string_value(m));
	json_decref(m);
	return 0;
}

const struct mk_cli_cmd ctl_ping_cmd = MK_CLI_COMMAND(
	CTL_PROG, "ping", ping, "ask the running meerkat for a pong", "[--json]", NULL, NULL);

static const struct mk_opt status_opts[] = {
	JSON_ROW("the daemon's answer as one JSON object"),
	HELP_ROW,
};
static const struct daemon_params status_defaults = { 0 };

static int do_status(const void *params)
{
	const struct daemon_params *p = params;
	int json = p->json, ret = 0;
	json_t *m, *ifc;
	size_t i;

	m = ctl_ask("status", NULL);
	if (!m)
		return 1;
	if (json) {
		ret = dump_json(m);
	} else {
		printf("meerkat %s, pid %lld, up %lld s, %lld worker(s)\n",
		       json_string_value(json_object_get(m, "version")),
		       json_integer_value(json_object_get(m, "pid")),
		       json_integer_value(json_object_get(m, "uptime")),
		       json_integer_value(json_object_get(m, "workers")));
		json_array_foreach(json_object_get(m, "interfaces"), i, ifc)
		{
			json_t *modes = json_object_get(ifc, "socket_mode");

			printf("  %-16s ifindex %lld, %s XDP, program id %lld, %lld queue(s), %s sockets\n",
			       json_string_value(json_object_get(ifc, "name")),
			       json_integer_value(json_object_get(ifc, "ifindex")),
			       json_string_value(json_object_get(ifc, "xdp_mode")),
			       json_integer_value(json_object_get(ifc, "prog_id")),
			       json_integer_value(json_object_get(ifc, "queues")),
			       json_string_value(json_array_get(modes, 0)) ?: "?");
		}
	}
	json_decref(m);
	return ret;
}

const struct mk_cli_cmd ctl_status_cmd = MK_CLI_COMMAND(
	CTL_PROG, "status", status, "interfaces, XDP mode, program ids, queues, workers, uptime",
	"[--json]",
	"Interfaces, XDP mode, program ids, queues, socket mode, workers and uptime of\n"
	"the running meerkat.\n",
	NULL);

/* group.name value, one line per number, arrays by index. */
static void print_flat(const char *prefix, json_t *v)
{
	char name[256];
	const char *k;
	json_t *c;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, c)
		{
			snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", k);
			print_flat(name, c);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, c)
		{
			snprintf(name, sizeof(name), "%s[%zu]", prefix, i);
			print_flat(name, c);
		}
	} else if (json_is_integer(v)) {
		printf("%-48s %lld\n", prefix, json_integer_value(v));
	} else if (json_is_string(v)) {
		printf("%-48s %s\n", prefix, json_string_value(v));
	} else if (json_is_boolean(v)) {
		printf("%-48s %s\n", prefix, json_is_true(v) ? "true" : "false");
	}
}

/* Prints the daemon's answer @m, as JSON or as flat key/value lines, and releases it. */
static int print_answer(json_t *m, int json)
{
	int ret = json ? dump_json(m) : (print_flat("", m), 0);

	json_decref(m);
	return ret;
}

int ctl_daemon_stats(int json)
{
	json_t *m;

	m = ctl_ask("stats", NULL);
	return m ? print_answer(m, json) : 1;
}

static const struct mk_opt reload_opts[] = {
	JSON_ROW("the daemon's answer as one JSON object"),
	HELP_ROW,
};
static const struct daemon_params reload_defaults = { 0 };

static void print_list(const char *title, json_t *a)
{
	json_t *v;
	size_t i;

	if (!json_array_size(a))
		return;
	printf("  %s:\n", title);
	json_array_foreach(a, i, v) printf("    %s\n", json_string_value(v) ?: "?");
}

/* reload: the daemon reads its configuration and rules again; on failure they stay. */
static int do_reload(const void *params)
{
	const struct daemon_params *p = params;
	json_t *m, *c;

	/* a refused reload: ctl_ask prints the daemon's reason (FILE:LINE: KEY: what) */
	m = ctl_ask("reload", NULL);
	if (!m)
		return 1;
	if (p->json)
		return print_answer(m, 1);
	printf("reload: generation %lld in %lld ms",
	       json_integer_value(json_object_get(m, "generation")),
	       json_integer_value(json_object_get(m, "duration_ms")));
	if (json_object_get(m, "rules_loaded"))
		printf(", %lld rules loaded, %lld failed",
		       json_integer_value(json_object_get(m, "rules_loaded")),
		       json_integer_value(json_object_get(m, "rules_failed")));
	putchar('\n');
	print_list("applied", json_object_get(m, "applied"));
	print_list("restart needed (the running value stays)",
		   json_object_get(m, "restart_needed"));
	c = json_object_get(m, "bypass_cidr");
	if (c) {
		print_list("bypass.cidr added", json_object_get(c, "added"));
		print_list("bypass.cidr removed", json_object_get(c, "removed"));
	}
	json_decref(m);
	return 0;
}

const struct mk_cli_cmd ctl_reload_cmd = MK_CLI_COMMAND(
	CTL_PROG, "reload", reload,
	"reload the configuration and rules of the running meerkat (the old ones stay on failure)",
	"[--json]",
	"Makes the running meerkat read its configuration file and rule files again\n"
	"(as SIGUSR2) and prints the outcome: the new generation, the rules loaded and\n"
	"failed, the settings applied, the ones that need a restart, and the CIDR\n"
	"bypass list's changes. A configuration or rule set that fails is refused with\n"
	"the file, line and reason, and the running one stays (exit 1).\n",
	NULL);

static const struct mk_opt rules_opts[] = {
	JSON_ROW("the rule set as one JSON object"),
	HELP_ROW,
};
static const struct daemon_params rules_defaults = { 0 };

static int do_rules(const void *params)
{
	const struct daemon_params *p = params;
	json_t *m;

	m = ctl_ask("ruleset-stats", NULL);
	return m ? print_answer(m, p->json) : 1;
}

const struct mk_cli_cmd ctl_rules_cmd =
	MK_CLI_COMMAND(CTL_PROG, "rules", rules,
		       "rules loaded and failed, generation, load time, reloads", "[--json]",
		       "The running meerkat's rule set: rules loaded and failed (by reason),\n"
		       "generation, load time, reloads and the last reload's message.\n",
		       NULL);
