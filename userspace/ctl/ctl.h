/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * meerkatctl subcommands. Each lives in its own file and receives argv with
 * argv[0] set to the subcommand name; it returns the process exit code.
 */
#ifndef MK_CTL_H
#define MK_CTL_H

int ctl_xdp_test(int argc, char **argv);     /* ctl/xdp_test.c */
int ctl_stats(int argc, char **argv);	     /* ctl/xdp_stats.c; without -i: ctl_daemon_stats */
int ctl_ping(int argc, char **argv);	     /* ctl/daemon.c */
int ctl_status(int argc, char **argv);	     /* ctl/daemon.c */
int ctl_daemon_stats(int argc, char **argv); /* ctl/daemon.c */
int ctl_reload(int argc, char **argv);	     /* ctl/daemon.c */
int ctl_rules(int argc, char **argv);	     /* ctl/daemon.c */

/* The daemon's control socket (-s); default MK_CTL_DEFAULT_SOCKET. */
extern const char *ctl_socket_path;

#endif /* MK_CTL_H */
