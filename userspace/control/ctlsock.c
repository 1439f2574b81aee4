// SPDX-License-Identifier: GPL-2.0-only
/* The control socket (ctlsock.h): server side in the daemon, client side for meerkatctl. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "ctlsock.h"
#include "log.h"

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/* Is a daemon answering on @path? Then it is not ours to replace. */
static int socket_alive(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), alive;

	if (fd < 0)
		return 0;
	alive = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	return alive;
}

static json_t *cmd_help(void *ctx, json_t *args, const char **why)
{
	struct mk_ctl_server *s = ctx;
	json_t *o = json_object();
	unsigned int i;

	(void)args;
	(void)why;
	for (i = 0; i < s->ncmds; i++)
		json_object_set_new(o, s->cmds[i].name, json_string(s->cmds[i].help));
	return o;
}

int mk_ctl_server_open(struct mk_ctl_server *s, const char *path)
{
	struct sockaddr_un sa;
	char dir[108], *slash;
	mode_t old;
	int err, i;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	for (i = 0; i < MK_CTL_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	err = fill_addr(&sa, path);
	if (err) {
		mk_err("%s: control socket path too long", path);
		return err;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			err = -errno;
			mk_err("%s: %s", dir, strerror(-err));
			return err;
		}
	}
	if (socket_alive(&sa)) {
		mk_err("%s: another meerkat is running (its control socket answers)", path);
		return -EADDRINUSE;
	}
	unlink(path); /* a stale socket file from a run that died */
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0) {
		err = -errno;
		mk_err("control socket: %s", strerror(-err));
		return err;
	}
	old = umask(0177); /* the socket file is created 0600: root only */
	err = bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (!err && listen(s->fd, MK_CTL_MAX_CLIENTS))
		err = -errno;
	if (err) {
		mk_err("%s: %s", path, strerror(-err));
		close(s->fd);
		s->fd = -1;
		return err;
	}
	mk_ctl_register(s, "help", "list the commands", cmd_help, s);
	return 0;
}

static void client_close(struct mk_ctl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
	c->len = 0;
}

void mk_ctl_server_close(struct mk_ctl_server *s)
{
	int i;

	for (i = 0; i < MK_CTL_MAX_CLIENTS; i++)
		client_close(&s->clients[i]);
	if (s->fd >= 0) {
		close(s->fd);
		unlink(s->path);
	}
	s->fd = -1;
}

int mk_ctl_register(struct mk_ctl_server *s, const char *name, const char *help, mk_ctl_handler fn,
		    void *ctx)
{
	if (s->ncmds == MK_CTL_MAX_COMMANDS)
		return -ENOSPC;
	s->cmds[s->ncmds++] = (struct mk_ctl_command){ name, help, fn, ctx };
	return 0;
}

unsigned int mk_ctl_server_pollfds(const struct mk_ctl_server *s, struct pollfd *pfds,
				   unsigned int max)
{
	unsigned int n = 0;
	int i;

	if (s->fd < 0 || !max)
		return 0;
	pfds[n++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	for (i = 0; i < MK_CTL_MAX_CLIENTS && n < max; i++)
		if (s->clients[i].fd >= 0)
			pfds[n++] = (struct pollfd){ .fd = s->clients[i].fd, .events = POLLIN };
	return n;
}

static void reply(int fd, int ok, json_t *msg)
{
	json_t *r = json_pack("{s:s,s:o}", "return", ok ? "OK" : "NOK", "message", msg);
	char *text = r ? json_dumps(r, JSON_COMPACT) : NULL;
	size_t len, done = 0;

	if (text) {
		len = strlen(text);
		text[len] = '\n'; /* json_dumps left room for the NUL we replace */
		while (done <= len) {
			ssize_t n = send(fd, text + done, len + 1 - done, MSG_NOSIGNAL);

			if (n <= 0)
				break;
			done += (size_t)n;
		}
	}
	free(text);
	json_decref(r);
}

static void handle_line(struct mk_ctl_server *s, int fd, const char *line)
{
	json_error_t jerr;
	json_t *req = json_loads(line, JSON_REJECT_DUPLICATES, &jerr), *args, *res;
	const char *name, *why = "failed";
	unsigned int i;

	if (!req || !json_is_object(req) || !json_is_string(json_object_get(req, "command"))) {
		reply(fd, 0,
		      json_string("request must be a JSON object with a \"command\" string"));
		json_decref(req);
		return;
	}
	name = json_string_value(json_object_get(req, "command"));
	args = json_object_get(req, "arguments");
	for (i = 0; i < s->ncmds; i++) {
		if (strcmp(s->cmds[i].name, name))
			continue;
		res = s->cmds[i].fn(s->cmds[i].ctx, args, &why);
		if (res)
			reply(fd, 1, res);
		else
			reply(fd, 0, json_string(why));
		json_decref(req);
		return;
	}
	{
		char msg[160];

		snprintf(msg, sizeof(msg), "unknown command '%.100s' (try help)", name);
		reply(fd, 0, json_string(msg));
	}
	json_decref(req);
}

static void client_read(struct mk_ctl_server *s, struct mk_ctl_client *c)
{
	ssize_t n = recv(c->fd, c->buf + c->len, MK_CTL_LINE_MAX - 1 - c->len, MSG_DONTWAIT);
	char *nl;

	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	while ((nl = memchr(c->buf, '\n', c->len))) {
		size_t used = (size_t)(nl - c->buf) + 1;

		*nl = '\0';
		handle_line(s, c->fd, c->buf);
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		c->buf[c->len] = '\0';
	}
	if (c->len == MK_CTL_LINE_MAX - 1) {
		reply(c->fd, 0, json_string("request longer than 64 KiB"));
		client_close(c);
	}
}

void mk_ctl_server_handle(struct mk_ctl_server *s, const struct pollfd *pfds, unsigned int n)
{
	unsigned int i;
	int k;

	for (i = 0; i < n; i++) {
		if (!pfds[i].revents)
			continue;
		if (pfds[i].fd == s->fd) {
			int fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd < 0)
				continue;
			for (k = 0; k < MK_CTL_MAX_CLIENTS && s->clients[k].fd >= 0; k++)
				;
			if (k == MK_CTL_MAX_CLIENTS ||
			    !(s->clients[k].buf = malloc(MK_CTL_LINE_MAX))) {
				reply(fd, 0, json_string("too many control clients"));
				close(fd);
				continue;
			}
			s->clients[k].fd = fd;
			s->clients[k].len = 0;
			continue;
		}
		for (k = 0; k < MK_CTL_MAX_CLIENTS; k++)
			if (s->clients[k].fd == pfds[i].fd)
				client_read(s, &s->clients[k]);
	}
}

json_t *mk_ctl_request(const char *path, const char *command, json_t *args)
{
	json_t *req = json_pack("{s:s}", "command", command), *res = NULL;
	struct sockaddr_un sa;
	json_error_t jerr;
	char *text = NULL, *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = -1;

	if (args)
		json_object_set(req, "arguments", args);
	if (fill_addr(&sa, path)) {
		mk_err("%s: path too long", path);
		goto out;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		mk_err("%s: %s (is meerkat running? -s names another socket)", path,
		       strerror(errno));
		goto out;
	}
	text = json_dumps(req, JSON_COMPACT);
	if (!text || dprintf(fd, "%s\n", text) < 0) {
		mk_err("%s: %s", path, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb)
				goto out;
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(buf + len - n, '\n', (size_t)n))
			break;
	}
	if (!len) {
		mk_err("%s: no answer", path);
		goto out;
	}
	buf[len] = '\0';
	res = json_loads(buf, JSON_DISABLE_EOF_CHECK, &jerr);
	if (!res)
		mk_err("%s: unreadable answer: %s", path, jerr.text);
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(buf);
	json_decref(req);
	return res;
}
