/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Privileges of the live sensor (docs/security.md). Loading and attaching
 * the XDP program, creating the maps and the AF_XDP sockets need root's
 * capabilities; once that is done the daemon parses attacker-controlled
 * frames for days with almost none of them. mk_privs_drop() keeps only
 * what the rest of the run needs, with libcap-ng, before the worker threads
 * exist (capabilities are per thread; threads inherit the creator's), and
 * sets no_new_privs.
 */
#ifndef MK_PRIVS_H
#define MK_PRIVS_H

/*
 * Keeps CAP_NET_ADMIN and CAP_SYS_ADMIN (detaching the program at exit:
 * rtnetlink, and libxdp looks the attached program up by id) in the
 * permitted and effective sets; clears every other capability, the
 * inheritable and ambient sets and the bounding set. 0 or -errno (logged as
 * a warning: the sensor runs on, with what it had).
 */
int mk_privs_drop(void);

/* The effective capabilities as text ("cap_net_admin, cap_sys_admin"), for logs and tests. */
const char *mk_privs_describe(void);

#endif /* MK_PRIVS_H */
