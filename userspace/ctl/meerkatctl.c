// SPDX-License-Identifier: GPL-2.0-only
/* meerkatctl: the operator's tool. Dispatches to one file per subcommand. */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "ctl.h"
#include "ctlsock.h"
#include "log.h"

struct ctl_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct ctl_cmd ctl_cmds[] = {
	{ "xdp-test", ctl_xdp_test, "run the XDP program over a pcap with BPF_PROG_RUN" },
	{ "ping", ctl_ping, "ask the running meerkat for a pong" },
	{ "status", ctl_status, "interfaces, XDP mode, program ids, queues, workers, uptime" },
	{ "stats", ctl_stats,
	  "every counter of the running meerkat; with -i IFACE, the XDP program's" },
	{ "reload", ctl_reload,
	  "reload the rules of the running meerkat (the old ones stay on failure)" },
	{ "rules", ctl_rules, "rules loaded and failed, generation, load time, reloads" },
};

struct ctl_params {
	const char *socket;
	int verbose;
	int version;
	int help;
};

#define P(field) offsetof(struct ctl_params, field)
static const struct mk_opt ctl_opts[] = {
	{ "socket", 's', MK_OPT_STR, P(socket), "SOCKET",
	  "the daemon's control socket (default " MK_CTL_DEFAULT_SOCKET ")", 0, 0 },
	{ "verbose", 'v', MK_OPT_COUNT, P(verbose), NULL, "more log output (twice for debug)", 0,
	  0 },
	{ "version", 0, MK_OPT_FLAG, P(version), NULL, "print the version", 0, 0 },
	{ "help", 'h', MK_OPT_FLAG, P(help), NULL, "this help", 0, 0 },
};
#undef P

static const struct mk_cli ctl_cli = {
	.prog = "meerkatctl",
	.usage = "[-v] [-s SOCKET] COMMAND [OPTIONS]",
	.opts = ctl_opts,
	.nopts = sizeof(ctl_opts) / sizeof(ctl_opts[0]),
	.stop_at_positional = 1, /* options after COMMAND are the command's */
};

static void usage(FILE *out)
{
	size_t i;

	mk_cli_usage(&ctl_cli, out);
	fprintf(out, "\nCommands:\n");
	for (i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++)
		fprintf(out, "  %-10s %s\n", ctl_cmds[i].name, ctl_cmds[i].help);
	fprintf(out, "\n'meerkatctl COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	struct ctl_params prm = { 0 };
	int first;
	size_t i;

	mk_log_init("meerkatctl");
	mk_log_route_libs();
	first = mk_cli_parse(&ctl_cli, argc, argv, &prm);
	if (first < 0) {
		usage(stderr);
		return 2;
	}
	if (prm.help) {
		usage(stdout);
		return 0;
	}
	if (prm.version) {
		printf("meerkatctl %s\n", MK_VERSION);
		return 0;
	}
	mk_log_set_level((enum mk_log_level)(MK_LOG_INFO + prm.verbose));
	if (prm.socket)
		ctl_socket_path = prm.socket;
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++) {
		if (strcmp(argv[first], ctl_cmds[i].name))
			continue;
		/* the command parses its own options from its argv[1]: reset getopt */
		optind = 0;
		opterr = 1;
		return ctl_cmds[i].run(argc - first, argv + first);
	}
	mk_err("unknown command '%s'", argv[first]);
	usage(stderr);
	return 2;
}
