/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's control socket: a unix stream socket (mode 0600) speaking JSON
 * lines, documented in docs/operations.md so other tools can use it.
 *
 *   request:  {"command": "stats", "arguments": {...}}\n
 *   response: {"return": "OK", "message": <any JSON>}\n
 *         or  {"return": "NOK", "message": "why"}\n
 *
 * Commands are a table that modules register into (name, help, handler), as
 * Suricata's unix-manager does; `help` lists them. The server runs inside
 * the owner's poll loop: it hands out the file descriptors to watch and
 * handles whatever is ready. Handlers run on that thread.
 */
#ifndef MK_CTLSOCK_H
#define MK_CTLSOCK_H

#include <poll.h>
#include <jansson.h>

#define MK_CTL_DEFAULT_SOCKET "/run/meerkat/meerkat.sock"
#define MK_CTL_MAX_CLIENTS 8
#define MK_CTL_MAX_COMMANDS 32
#define MK_CTL_LINE_MAX 65536

/*
 * Returns the message of an OK response (a new reference), or NULL with
 * *why pointing at a static explanation for the NOK response.
 */
typedef json_t *(*mk_ctl_handler)(void *ctx, json_t *args, const char **why);

struct mk_ctl_command {
	const char *name;
	const char *help;
	mk_ctl_handler fn;
	void *ctx;
};

struct mk_ctl_client {
	int fd;
	size_t len;
	char *buf; /* MK_CTL_LINE_MAX bytes of a request being read */
};

struct mk_ctl_server {
	int fd;
	char path[108];
	struct mk_ctl_command cmds[MK_CTL_MAX_COMMANDS];
	unsigned int ncmds;
	struct mk_ctl_client clients[MK_CTL_MAX_CLIENTS];
};

/* Binds @path (a stale socket file from a dead daemon is replaced). 0 or -errno (logged). */
int mk_ctl_server_open(struct mk_ctl_server *s, const char *path);
void mk_ctl_server_close(struct mk_ctl_server *s);
int mk_ctl_register(struct mk_ctl_server *s, const char *name, const char *help, mk_ctl_handler fn,
		    void *ctx);
/* Fills up to @max pollfds (listening socket + clients); returns how many. */
unsigned int mk_ctl_server_pollfds(const struct mk_ctl_server *s, struct pollfd *pfds,
				   unsigned int max);
/* Handles every ready fd among @pfds (as filled above, after poll()). */
void mk_ctl_server_handle(struct mk_ctl_server *s, const struct pollfd *pfds, unsigned int n);

/*
 * Client side (meerkatctl): sends one command and returns the parsed
 * response (a new reference) or NULL with the reason logged.
 */
json_t *mk_ctl_request(const char *path, const char *command, json_t *args);

#endif /* MK_CTLSOCK_H */
