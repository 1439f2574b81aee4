/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Link state of the capture interfaces, from rtnetlink. While an interface
 * is down (administratively, or without carrier) its driver delivers no
 * frames: capture pauses, and resumes by itself when the link comes back,
 * since the XDP program and the AF_XDP sockets stay bound. meerkat cannot
 * count frames it never saw, so it counts the gap instead: how many times
 * each link went down and for how long, and logs both edges. The live
 * sensor's main thread polls mk_link_watch_fd() and owns this state.
 */
#ifndef MK_LINK_H
#define MK_LINK_H

#include <net/if.h>
#include <stdint.h>

#define MK_LINK_MAX 8

struct mk_link_state {
	int ifindex;
	char name[IF_NAMESIZE];
	int up;		   /* IFF_UP and IFF_RUNNING */
	uint64_t downs;	   /* times it went down */
	uint64_t down_ns;  /* time spent down, finished gaps */
	uint64_t since_ns; /* CLOCK_MONOTONIC when it went down, while down */
};

struct mk_link_watch {
	int fd;
	unsigned int n;
	struct mk_link_state links[MK_LINK_MAX];
};

/* Subscribes to link events. 0 or -errno (logged). */
int mk_link_watch_open(struct mk_link_watch *w);
/* Watches @ifindex from now on; its current state is read at once. 0 or -errno. */
int mk_link_watch_add(struct mk_link_watch *w, int ifindex, const char *name);
/* The socket to poll for POLLIN. */
int mk_link_watch_fd(const struct mk_link_watch *w);
/* Reads what is pending: counts and logs every down and up edge. */
void mk_link_watch_handle(struct mk_link_watch *w);
/* Summed over the links: times down, and milliseconds down (a gap still open included). */
void mk_link_watch_totals(const struct mk_link_watch *w, uint64_t *downs, uint64_t *down_ms);
void mk_link_watch_close(struct mk_link_watch *w);

#endif /* MK_LINK_H */
