/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A private redis-server for the transport test and benchmark: started in
 * a scratch directory with a unix socket and a TCP port on 127.0.0.1 chosen
 * by the kernel, an append-only file synced before every reply (so what a
 * reply confirmed survives SIGKILL and a restart), no RDB snapshots.
 * Stopped and its directory removed by redis_server_cleanup(), which the
 * programs also run from atexit and their signal handlers. SIGPIPE is left
 * alone: the transport must not let a dead server's socket end its process.
 */
#ifndef MK_TEST_REDIS_SERVER_H
#define MK_TEST_REDIS_SERVER_H

#include <arpa/inet.h>
#include <errno.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct redis_server {
	char dir[64];
	char sock[128];
	unsigned int port;
	pid_t pid;
};

static struct redis_server *redis_server_current;

/* A port the kernel has free on 127.0.0.1 now (a small race, as any test server). */
static unsigned int redis_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned int port = 0;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &al))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static bool redis_server_ping(const struct redis_server *s)
{
	struct timeval tv = { 0, 200000 };
	redisContext *c = redisConnectUnixWithTimeout(s->sock, tv);
	redisReply *r = NULL;
	bool ok = false;

	if (c && !c->err)
		r = redisCommand(c, "PING");
	ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG");
	if (r)
		freeReplyObject(r);
	if (c)
		redisFree(c);
	return ok;
}

/* Starts (or restarts, same directory and port) the server; 0 or -errno. */
static int redis_server_start(struct redis_server *s)
{
	char port[16], log[160];
	int i;

	snprintf(port, sizeof(port), "%u", s->port);
	snprintf(log, sizeof(log), "%s/redis.log", s->dir);
	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
		       "--unixsocket", s->sock, "--unixsocketperm", "700", "--dir", s->dir,
		       "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		       "--daemonize", "no", "--logfile", log, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100; i++) {
		int st;

		if (redis_server_ping(s))
			return 0;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			return -ECHILD;
		}
		usleep(50000);
	}
	return -ETIMEDOUT;
}

static void redis_server_kill(struct redis_server *s, int sig)
{
	if (s->pid <= 0)
		return;
	kill(s->pid, sig);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

static int redis_server_new(struct redis_server *s)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->dir, "/tmp/meerkat-redis.XXXXXX");
	if (!mkdtemp(s->dir))
		return -errno;
	snprintf(s->sock, sizeof(s->sock), "%s/redis.sock", s->dir);
	s->port = redis_free_port();
	redis_server_current = s;
	return s->port ? redis_server_start(s) : -EADDRNOTAVAIL;
}

static void redis_server_cleanup(void)
{
	struct redis_server *s = redis_server_current;
	char cmd[128];

	if (!s)
		return;
	redis_server_current = NULL;
	redis_server_kill(s, SIGKILL);
	if (s->dir[0] && strncmp(s->dir, "/tmp/meerkat-redis.", 19) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", s->dir);
	}
}

static void redis_server_on_signal(int sig)
{
	redis_server_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Whether redis-server is on the PATH. */
static bool redis_server_available(void)
{
	return system("command -v redis-server >/dev/null 2>&1") == 0;
}

static void redis_server_install_cleanup(void)
{
	atexit(redis_server_cleanup);
	signal(SIGINT, redis_server_on_signal);
	signal(SIGTERM, redis_server_on_signal);
}

#endif /* MK_TEST_REDIS_SERVER_H */
