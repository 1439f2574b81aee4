// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkatctl commands answered by the running daemon over its control
 * socket (control/ctlsock.h): ping, status, stats without -i, and the
 * rules: reload and rules (ruleset-stats).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "ctl.h"
#include "ctlsock.h"
#include "log.h"

const char *ctl_socket_path = MK_CTL_DEFAULT_SOCKET;

/* Sends @command; prints the NOK reason. Returns the message (new reference) or NULL. */
static json_t *ask(const char *command)
{
	json_t *res = mk_ctl_request(ctl_socket_path, command, NULL), *msg;
	const char *ret;

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

static int want_json(int argc, char **argv, const char *usage)
{
	int i, json = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("%s", usage);
			return 2;
		} else {
			mk_err("%s: unexpected argument '%s'", argv[0], argv[i]);
			fprintf(stderr, "%s", usage);
			return -1;
		}
	}
	return json;
}

static int dump_json(json_t *v)
{
	int err = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	putchar('\n');
	return err ? 1 : 0;
}

int ctl_ping(int argc, char **argv)
{
	json_t *m;

	if (want_json(argc, argv, "Usage: meerkatctl [-s SOCKET] ping\n") < 0)
		return 2;
	m = ask("ping");
	if (!m)
		return 1;
	printf("%s\n", json_string_value(m));
	json_decref(m);
	return 0;
}

int ctl_status(int argc, char **argv)
{
	static const char usage[] = "Usage: meerkatctl [-s SOCKET] status [--json]\n\n"
				    "Interfaces, XDP mode, program ids, queues, socket mode, "
				    "workers and uptime of the running meerkat.\n";
	int json = want_json(argc, argv, usage), ret = 0;
	json_t *m, *ifc;
	size_t i;

	if (json < 0 || json == 2)
		return json < 0 ? 2 : 0;
	m = ask("status");
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

int ctl_daemon_stats(int argc, char **argv)
{
	static const char usage[] = "Usage: meerkatctl [-s SOCKET] stats [--json]\n\n"
				    "Every counter of the running meerkat, as in its EVE stats "
				    "event.\n(meerkatctl stats -i IFACE reads the XDP program's "
				    "counters directly.)\n";
	int json = want_json(argc, argv, usage);
	json_t *m;

	if (json < 0 || json == 2)
		return json < 0 ? 2 : 0;
	m = ask("stats");
	return m ? print_answer(m, json) : 1;
}

/* reload: the daemon rebuilds its rules from the files; the old ones stay on failure. */
int ctl_reload(int argc, char **argv)
{
	static const char usage[] =
		"Usage: meerkatctl [-s SOCKET] reload [--json]\n\n"
		"Reloads the rule files of the running meerkat (as SIGUSR2), "
		"waits for the new\nrule set and prints it; when the new rules "
		"fail to load, the old ones stay\nand `meerkatctl rules` says why.\n";
	int json = want_json(argc, argv, usage);
	json_t *m;

	if (json < 0 || json == 2)
		return json < 0 ? 2 : 0;
	m = ask("reload-rules");
	if (!m) {
		/* the reason the build failed is in the rule set status */
		m = ask("ruleset-stats");
		if (m) {
			fprintf(stderr, "%s\n",
				json_string_value(json_object_get(m, "last_message")));
			json_decref(m);
		}
		return 1;
	}
	return print_answer(m, json);
}

int ctl_rules(int argc, char **argv)
{
	static const char usage[] =
		"Usage: meerkatctl [-s SOCKET] rules [--json]\n\n"
		"The running meerkat's rule set: rules loaded and failed (by "
		"reason), generation,\nload time, reloads and the last reload's "
		"message.\n";
	int json = want_json(argc, argv, usage);
	json_t *m;

	if (json < 0 || json == 2)
		return json < 0 ? 2 : 0;
	m = ask("ruleset-stats");
	return m ? print_answer(m, json) : 1;
}
