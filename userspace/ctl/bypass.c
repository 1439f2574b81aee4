// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkatctl bypass: the running daemon's driver bypass, through its control
 * socket to the bypass manager (docs/bypass.md): the flows in the maps with
 * their counters, one flow added or deleted by 5-tuple, the CIDR list.
 * The daemon checks every field and names the one at fault.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "ctl.h"
#include "ctlsock.h"
#include "log.h"

struct bypass_params {
	int json;
	int help;
	struct mk_cli_args args;
};

#define P(field) offsetof(struct bypass_params, field)
static const struct mk_opt bypass_opts[] = {
	{ "json", 'j', MK_OPT_FLAG, P(json), NULL, "the daemon's answer as JSON", 0, 0 },
	{ "help", 'h', MK_OPT_HELP, P(help), NULL, "this help", 0, 0 },
};
#undef P
static const struct bypass_params bypass_defaults = { 0 };

static const char *const tuple_fields[] = { "proto", "src", "sport", "dst", "dport" };

static void print_flow(json_t *f)
{
	printf("%-4lld %s:%lld <-> %s:%lld  vlan %lld  %s  pkts %lld/%lld  bytes %lld/%lld\n",
	       json_integer_value(json_object_get(f, "proto")),
	       json_string_value(json_object_get(f, "src")),
	       json_integer_value(json_object_get(f, "sport")),
	       json_string_value(json_object_get(f, "dst")),
	       json_integer_value(json_object_get(f, "dport")),
	       json_integer_value(json_object_get(f, "vlan")),
	       json_string_value(json_object_get(f, "owner")),
	       json_integer_value(json_object_get(f, "pkts_lo_to_hi")),
	       json_integer_value(json_object_get(f, "pkts_hi_to_lo")),
	       json_integer_value(json_object_get(f, "bytes_lo_to_hi")),
	       json_integer_value(json_object_get(f, "bytes_hi_to_lo")));
}

static int print_answer(json_t *m, int json, int what)
{
	json_t *v;
	size_t i;

	if (json) {
		json_dumpf(m, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else if (what == 'l') {
		printf("%lld flow(s) bypassed in the driver\n",
		       json_integer_value(json_object_get(m, "flows")));
		json_array_foreach(json_object_get(m, "list"), i, v) print_flow(v);
	} else if (what == 'f') {
		print_flow(m);
	} else if (json_is_array(m)) {
		json_array_foreach(m, i, v) printf("%s\n", json_string_value(v));
	} else {
		printf("%s\n", json_string_value(m));
	}
	json_decref(m);
	return 0;
}

static int do_bypass(const void *params)
{
	const struct bypass_params *p = params;
	int argc = p->args.argc, i, cidr;
	char **argv = p->args.argv, cmd[32];
	const char *op;
	json_t *args, *m;

	if (argc < 1) {
		mk_err("bypass: list, add, del or cidr is needed");
		return -EINVAL;
	}
	cidr = !strcmp(argv[0], "cidr");
	if (cidr) {
		argc--;
		argv++;
	}
	op = argc ? argv[0] : "";
	if (strcmp(op, "list") && strcmp(op, "add") && strcmp(op, "del")) {
		mk_err("bypass%s: '%s' is not list, add or del", cidr ? " cidr" : "", op);
		return -EINVAL;
	}
	if (argc != (!strcmp(op, "list") ? 1 : cidr ? 2 : 6)) {
		mk_err("bypass%s %s: %s", cidr ? " cidr" : "", op,
		       !strcmp(op, "list") ? "takes no argument" :
		       cidr		   ? "takes one PREFIX" :
					     "takes PROTO SRC SPORT DST DPORT");
		return -EINVAL;
	}
	args = json_object();
	if (cidr && argc == 2)
		json_object_set_new(args, "prefix", json_string(argv[1]));
	for (i = 1; !cidr && i < argc; i++)
		json_object_set_new(args, tuple_fields[i - 1], json_string(argv[i]));
	snprintf(cmd, sizeof(cmd), "bypass-%s%s", cidr ? "cidr-" : "", op);
	m = ctl_ask(cmd, args);
	if (!m)
		return 1;
	return print_answer(m, p->json, cidr ? 'c' : !strcmp(op, "list") ? 'l' : 'f');
}

const struct mk_cli_cmd ctl_bypass_cmd = MK_CLI_COMMAND_ARGS(
	CTL_PROG, "bypass", bypass, "flows and prefixes bypassed in the driver: list, add, del",
	"[--json] list | add|del PROTO SRC SPORT DST DPORT | cidr list | cidr add|del PREFIX",
	"The running meerkat's driver bypass (docs/bypass.md), through its bypass manager:\n"
	"  list                               flows in the bypass maps, with the driver's\n"
	"                                     counters (lo->hi / hi->lo of the flow key)\n"
	"  add PROTO SRC SPORT DST DPORT      bypass one flow (both directions) in the driver\n"
	"  del PROTO SRC SPORT DST DPORT      end it; its counts go to its flow record\n"
	"  cidr list | add PREFIX | del PREFIX  the CIDR bypass list\n"
	"PROTO is tcp, udp, icmp, icmpv6, sctp or a number. A malformed field is refused,\n"
	"naming it, and nothing changes.\n",
	NULL, 7, args);
