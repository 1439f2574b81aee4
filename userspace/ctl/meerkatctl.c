// SPDX-License-Identifier: GPL-2.0-only
/* meerkatctl: the operator's tool. Its options, then one command from the table below. */
#include <stddef.h>
#include <stdio.h>
#include "cli.h"
#include "compat.h"
#include "ctl.h"
#include "ctlsock.h"
#include "log.h"

static const struct mk_cli_cmd *const ctl_cmds[] = {
	&ctl_xdp_test_cmd, &ctl_ping_cmd,  &ctl_status_cmd, &ctl_stats_cmd,
	&ctl_reload_cmd,   &ctl_rules_cmd, &ctl_bypass_cmd,
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
	{ "help", 'h', MK_OPT_HELP, P(help), NULL, "this help", 0, 0 },
};
#undef P

static const struct mk_cli ctl_cli = {
	.prog = CTL_PROG,
	.usage = "[-v] [-s SOCKET] COMMAND [OPTIONS]",
	.opts = ctl_opts,
	.nopts = MK_ARRAY_SIZE(ctl_opts),
	.stop_at_positional = 1, /* options after COMMAND are the command's */
};

int main(int argc, char **argv)
{
	struct ctl_params prm = { 0 };
	int first;

	mk_log_init(CTL_PROG);
	mk_log_route_libs();
	first = mk_cli_parse(&ctl_cli, argc, argv, &prm);
	if (first < 0) {
		mk_cli_usage_cmds(&ctl_cli, ctl_cmds, MK_ARRAY_SIZE(ctl_cmds), stderr);
		return 2;
	}
	if (prm.help) {
		mk_cli_usage_cmds(&ctl_cli, ctl_cmds, MK_ARRAY_SIZE(ctl_cmds), stdout);
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
		mk_err("a command is needed");
		mk_cli_usage_cmds(&ctl_cli, ctl_cmds, MK_ARRAY_SIZE(ctl_cmds), stderr);
		return 2;
	}
	return mk_cli_dispatch(&ctl_cli, ctl_cmds, MK_ARRAY_SIZE(ctl_cmds), argc - first,
			       argv + first);
}
