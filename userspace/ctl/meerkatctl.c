// SPDX-License-Identifier: GPL-2.0-only
/* meerkatctl: the operator's tool. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>
#include "ctl.h"
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
	{ "stats", ctl_stats, "every counter of the running meerkat; with -i IFACE, the XDP program's" },
	{ "reload", ctl_reload, "reload the rules of the running meerkat (the old ones stay on failure)" },
	{ "rules", ctl_rules, "rules loaded and failed, generation, load time, reloads" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: meerkatctl [-v] [-s SOCKET] COMMAND [OPTIONS]\n\n"
		     "  -s SOCKET  the daemon's control socket (default %s)\n\nCommands:\n",
		ctl_socket_path);
	for (i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++)
		fprintf(out, "  %-10s %s\n", ctl_cmds[i].name, ctl_cmds[i].help);
	fprintf(out, "\n'meerkatctl COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	mk_log_route_libs();
	while (argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "-s"))) {
		if (!strcmp(argv[1], "-s")) {
			if (argc < 3) {
				mk_err("-s needs a socket path");
				return 2;
			}
			ctl_socket_path = argv[2];
			argv++;
			argc--;
		} else {
			mk_log_set_level(mk_log_get_level() + 1);
		}
		argv++;
		argc--;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(ctl_cmds) / sizeof(ctl_cmds[0]); i++) {
		if (!strcmp(argv[1], ctl_cmds[i].name))
			return ctl_cmds[i].run(argc - 1, argv + 1);
	}
	mk_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
