/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * meerkatctl subcommands. Each lives in its own file and receives argv with
 * argv[0] set to the subcommand name; it returns the process exit code.
 */
#ifndef MK_CTL_H
#define MK_CTL_H

int ctl_xdp_test(int argc, char **argv); /* userspace/ctl/xdp_test.c */
int ctl_stats(int argc, char **argv);	 /* userspace/ctl/stats.c */

#endif /* MK_CTL_H */
