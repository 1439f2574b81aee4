// SPDX-License-Identifier: GPL-2.0-only
/* Link state of the capture interfaces (link.h). */
#include <errno.h>
#include <stdio.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "link.h"
#include "log.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int flags_up(unsigned int flags)
{
	return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

int mk_link_watch_open(struct mk_link_watch *w)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int err;

	memset(w, 0, sizeof(*w));
	w->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (w->fd < 0 || bind(w->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		mk_err("link state: rtnetlink: %s", strerror(-err));
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
		return err;
	}
	return 0;
}

static void link_set(struct mk_link_state *l, int up)
{
	uint64_t now = mono_ns();

	if (up == l->up)
		return;
	l->up = up;
	if (!up) {
		l->downs++;
		l->since_ns = now;
		mk_warn("%s: link down: capture paused until it is back (counted in link_down)",
			l->name);
		return;
	}
	l->down_ns += now - l->since_ns;
	mk_info("%s: link up again after %.3f s: capture resumes", l->name,
		(double)(now - l->since_ns) / 1e9);
	l->since_ns = 0;
}

/* The link's state as the kernel has it now: 1 up, 0 down, or -errno. */
static int link_read(const struct mk_link_state *l)
{
	struct ifreq ifr;
	int fd, err = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", l->name);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err ? err : flags_up((unsigned short)ifr.ifr_flags);
}

int mk_link_watch_add(struct mk_link_watch *w, int ifindex, const char *name)
{
	struct mk_link_state *l;
	int up;

	if (w->n == MK_LINK_MAX)
		return -ENOSPC;
	l = &w->links[w->n];
	memset(l, 0, sizeof(*l));
	l->ifindex = ifindex;
	snprintf(l->name, sizeof(l->name), "%s", name);
	up = link_read(l);
	if (up < 0) {
		mk_err("%s: link state: %s", name, strerror(-up));
		return up;
	}
	/* down from the start: the first gap starts now */
	l->up = 1;
	link_set(l, up);
	w->n++;
	return 0;
}

int mk_link_watch_fd(const struct mk_link_watch *w)
{
	return w->fd;
}

void mk_link_watch_handle(struct mk_link_watch *w)
{
	char buf[8192] __attribute__((aligned(4)));
	ssize_t len;

	while ((len = recv(w->fd, buf, sizeof(buf), 0)) > 0) {
		struct nlmsghdr *nh;

		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)len);
		     nh = NLMSG_NEXT(nh, len)) {
			struct ifinfomsg *ifi = NLMSG_DATA(nh);
			unsigned int i;

			if ((nh->nlmsg_type != RTM_NEWLINK && nh->nlmsg_type != RTM_DELLINK) ||
			    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
				continue;
			for (i = 0; i < w->n; i++)
				if (w->links[i].ifindex == ifi->ifi_index)
					link_set(&w->links[i], nh->nlmsg_type == RTM_NEWLINK &&
								       flags_up(ifi->ifi_flags));
		}
	}
	if (len < 0 && errno == ENOBUFS) {
		/* events were lost: ask for the state instead */
		unsigned int i;

		for (i = 0; i < w->n; i++) {
			int up = link_read(&w->links[i]);

			if (up >= 0)
				link_set(&w->links[i], up);
		}
	}
}

void mk_link_watch_totals(const struct mk_link_watch *w, uint64_t *downs, uint64_t *down_ms)
{
	uint64_t now = mono_ns(), ns = 0;
	unsigned int i;

	*downs = 0;
	for (i = 0; i < w->n; i++) {
		*downs += w->links[i].downs;
		ns += w->links[i].down_ns;
		if (!w->links[i].up)
			ns += now - w->links[i].since_ns;
	}
	*down_ms = ns / 1000000;
}

void mk_link_watch_close(struct mk_link_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
