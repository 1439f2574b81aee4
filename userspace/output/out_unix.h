/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The socket sinks of an EVE output: `unix_stream` (records as lines on a
 * stream socket), `unix_dgram` (one record per datagram, no newline) and
 * `syslog` (one RFC 5424 message per record, on the local datagram socket,
 * /dev/log by default). Each connects to a socket some other program
 * listens on; when it is gone the writer (out_writer.h) connects again
 * later. Sends wait at most @timeout_ms so that the writer can stop.
 */
#ifndef MK_OUT_UNIX_H
#define MK_OUT_UNIX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

struct mk_out_sock {
	int fd;		  /* -1 while not connected */
	int stream;	  /* SOCK_STREAM, else SOCK_DGRAM */
	int syslog;	  /* an RFC 5424 header in front of every record */
	size_t part;	  /* stream: bytes of the current record already sent */
	unsigned int pri; /* syslog: facility * 8 + severity */
	char ident[64];
	char host[64];
	int pid;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* What a send did, in records and bytes of the buffer given. */
struct mk_out_progress {
	size_t done;	/* bytes of the buffer finished with (sent or lost) */
	uint64_t sent;	/* records delivered */
	uint64_t lost;	/* records given up (cut by a lost connection, too big) */
	uint64_t bytes; /* bytes the socket took */
};

/* Fills @s for @path (too long: -ENAMETOOLONG); no connection yet. */
int mk_out_sock_init(struct mk_out_sock *s, const char *path, int stream, int syslog,
		     unsigned int pri, const char *ident);
/* Connects. 0 or -errno (the listener is not there: -ENOENT, -ECONNREFUSED). */
int mk_out_sock_connect(struct mk_out_sock *s);
void mk_out_sock_close(struct mk_out_sock *s);
/*
 * Sends whole records ('\n'-terminated lines) from @buf, adding what it did
 * to @p. Returns 0 when all were done or @timeout_ms passed with the socket
 * full, or -errno when the reader is gone (the socket is closed; connect again).
 */
int mk_out_sock_send(struct mk_out_sock *s, const char *buf, size_t len, struct mk_out_progress *p,
		     int timeout_ms);
/*
 * An RFC 5424 header: "<PRI>1 TIMESTAMP HOST APP PROCID - - " (the message,
 * the record, follows). Its length (at most @len - 1), the time in UTC.
 */
size_t mk_syslog_header(char *buf, size_t len, unsigned int pri, uint64_t ts_us, const char *host,
			const char *ident, int pid);

#endif /* MK_OUT_UNIX_H */
