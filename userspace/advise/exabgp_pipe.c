// SPDX-License-Identifier: GPL-2.0-only
/*
 * meerkat-exabgp-pipe: the program ExaBGP's `process` section runs
 * (docs/outputs-bgp.md). It connects to the unix socket of meerkat's
 * advise-router, copies every "announce ..." and "withdraw ..." line it
 * reads there to its stdout, where ExaBGP takes commands, and reads and
 * drops what ExaBGP writes back (acknowledgements) so ExaBGP never blocks
 * on it.
 *
 * meerkat may start after ExaBGP, restart, or crash: the pipe connects
 * again every second, and meerkat sends every active announcement when it
 * connects. So that a crashed sensor does not leave its blocks in the
 * routers forever, the pipe remembers what it announced and withdraws it
 * when the connection ends (a clean shutdown has withdrawn everything
 * already); --keep leaves the routes in place instead. It exits when
 * ExaBGP closes its stdin.
 *
 * usage: meerkat-exabgp-pipe [--keep] SOCKET
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024
#define ROUTES_MAX (1u << 20)

static char **routes; /* what follows "announce " of every route announced and not withdrawn */
static unsigned int nroutes, caproutes;

static void say(const char *fmt, const char *arg)
{
	fprintf(stderr, "meerkat-exabgp-pipe: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

/* All of @len bytes to stdout; 0, or -1 when ExaBGP is gone. */
static int out(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(STDOUT_FILENO, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static int route_find(const char *r)
{
	unsigned int i;

	for (i = 0; i < nroutes; i++)
		if (!strcmp(routes[i], r))
			return (int)i;
	return -1;
}

static void route_add(const char *r)
{
	char **nr;

	if (route_find(r) >= 0 || nroutes == ROUTES_MAX)
		return;
	if (nroutes == caproutes) {
		caproutes = caproutes ? caproutes * 2 : 64;
		nr = realloc(routes, caproutes * sizeof(*routes));
		if (!nr) {
			caproutes = nroutes;
			return;
		}
		routes = nr;
	}
	routes[nroutes] = strdup(r);
	if (routes[nroutes])
		nroutes++;
}

static void route_del(const char *r)
{
	int i = route_find(r);

	if (i < 0)
		return;
	free(routes[i]);
	routes[i] = routes[--nroutes];
}

/* One line from meerkat (without its newline): forwarded if it is a command. */
static int line(char *s)
{
	size_t len = strlen(s);

	if (!strncmp(s, "announce ", 9))
		route_add(s + 9);
	else if (!strncmp(s, "withdraw ", 9))
		route_del(s + 9);
	else {
		say("ignored a line that is no announce or withdraw: %.80s", s);
		return 0;
	}
	s[len] = '\n';
	return out(s, len + 1);
}

/* The connection ended: withdraw what it announced (unless --keep). */
static int withdraw_all(void)
{
	char buf[LINE_MAX_LEN + 16];
	unsigned int i;
	int n, err = 0;

	for (i = 0; i < nroutes; i++) {
		n = snprintf(buf, sizeof(buf), "withdraw %s\n", routes[i]);
		if (!err && n > 0 && (size_t)n < sizeof(buf))
			err = out(buf, (size_t)n);
		free(routes[i]);
	}
	if (nroutes) {
		snprintf(buf, sizeof(buf), "%u", nroutes);
		say("connection lost: %s route(s) withdrawn", buf);
	}
	nroutes = 0;
	return err;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* stdin (ExaBGP's replies): read and dropped; 0 at EOF (ExaBGP is gone). */
static int drain_stdin(void)
{
	char buf[4096];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n > 0 && memmem(buf, (size_t)n, "error", 5))
		say("%s", "ExaBGP answered error to a command (see its log)");
	return n > 0;
}

int main(int argc, char **argv)
{
	char buf[LINE_MAX_LEN + 2];
	const char *path;
	size_t have = 0;
	int keep = 0, fd = -1, skipping = 0;

	if (argc == 3 && !strcmp(argv[1], "--keep")) {
		keep = 1;
		path = argv[2];
	} else if (argc == 2 && argv[1][0] != '-') {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: meerkat-exabgp-pipe [--keep] SOCKET\n");
		return 2;
	}
	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		say("%s: socket path too long", path);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct pollfd pfds[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
					  { .fd = fd, .events = POLLIN } };

		if (fd < 0) {
			fd = connect_to(path);
			if (fd >= 0) {
				say("connected to %s", path);
				have = 0;
				skipping = 0;
			}
			pfds[1].fd = fd;
		}
		if (poll(pfds, 2, fd < 0 ? 1000 : -1) < 0 && errno != EINTR)
			return 1;
		if (pfds[0].revents && !drain_stdin())
			return 0; /* ExaBGP closed our stdin: it stops or restarts us */
		if (fd < 0 || !pfds[1].revents)
			continue;
		{
			ssize_t n = read(fd, buf + have, LINE_MAX_LEN - have);
			char *nl, *start = buf;

			if (n <= 0) {
				close(fd);
				fd = -1;
				say("%s: connection ended", path);
				if (!keep && withdraw_all())
					return 1;
				continue;
			}
			have += (size_t)n;
			buf[have] = '\0';
			while ((nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
				*nl = '\0';
				if (!skipping && line(start))
					return 1;
				skipping = 0;
				start = nl + 1;
			}
			have -= (size_t)(start - buf);
			memmove(buf, start, have);
			if (have == LINE_MAX_LEN) {
				if (!skipping)
					say("%s", "a line longer than 1024 bytes: dropped");
				have = 0;
				skipping = 1;
			}
		}
	}
}
