// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkatctl commands answered by the running daemon over its control
 * socket (control/ctlsock.h): ping, status, stats without -i, and the
 * rules: reload and rules (ruleset-stats).
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
	JSON_ROW("the new rule set as one JSON object"),
	HELP_ROW,
};
static const struct daemon_params reload_defaults = { 0 };

/* reload: the daemon rebuilds its rules from the files; the old ones stay on failure. */
static int do_reload(const void *params)
{
	const struct daemon_params *p = params;
	int json = p->json;
	json_t *m;

	m = ctl_ask("reload-rules", NULL);
	if (!m) {
		/* the reason the build failed is in the rule set status */
		m = ctl_ask("ruleset-stats", NULL);
		if (m) {
			fprintf(stderr, "%s\n",
				json_string_value(json_object_get(m, "last_message")));
			json_decref(m);
		}
		return 1;
	}
	return print_answer(m, json);
}

const struct mk_cli_cmd ctl_reload_cmd = MK_CLI_COMMAND(
	CTL_PROG, "reload", reload,
	"reload the rules of the running meerkat (the old ones stay on failure)", "[--json]",
	"Reloads the rule files of the running meerkat (as SIGUSR2), waits for the new\n"
	"rule set and prints it; when the new rules fail to load, the old ones stay\n"
	"and `meerkatctl rules` says why.\n",
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
