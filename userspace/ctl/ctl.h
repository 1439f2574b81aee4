/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * meerkatctl subcommands. Each lives in its own file as one struct
 * mk_cli_cmd (util/cli.h: its option table, params struct, defaults and
 * generated --help); meerkatctl.c lists them and mk_cli_dispatch() runs the
 * one named. A command returns the process exit status.
 */
#ifndef MK_CTL_H
#define MK_CTL_H

#include "cli.h"

#define CTL_PROG "meerkatctl"

extern const struct mk_cli_cmd ctl_xdp_test_cmd; /* ctl/xdp_test.c */
extern const struct mk_cli_cmd ctl_stats_cmd;	 /* ctl/xdp_stats.c; without -i: the daemon's */
extern const struct mk_cli_cmd ctl_ping_cmd;	 /* ctl/daemon.c */
extern const struct mk_cli_cmd ctl_status_cmd;	 /* ctl/daemon.c */
extern const struct mk_cli_cmd ctl_reload_cmd;	 /* ctl/daemon.c */
extern const struct mk_cli_cmd ctl_rules_cmd;	 /* ctl/daemon.c */
extern const struct mk_cli_cmd ctl_bypass_cmd;	 /* ctl/bypass.c */

/* stats without -i: every counter of the running daemon, as JSON when @json. */
int ctl_daemon_stats(int json); /* ctl/daemon.c */

/*
 * Sends @command with @args (stolen; NULL: none) to the daemon; prints the
 * reason of a refusal. The answer's message (new reference), or NULL.
 */
struct json_t;
struct json_t *ctl_ask(const char *command, struct json_t *args); /* ctl/daemon.c */

/* The daemon's control socket (-s); default MK_CTL_DEFAULT_SOCKET. */
extern const char *ctl_socket_path;

#endif /* MK_CTL_H */
