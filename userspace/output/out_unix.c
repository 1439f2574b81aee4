// SPDX-License-Identifier: GPL-2.0-only
/* The socket sinks: unix_stream, unix_dgram, syslog (out_unix.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "out_unix.h"

int mk_out_sock_init(struct mk_out_sock *s, const char *path, int stream, int syslog,
		     unsigned int pri, const char *ident)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->stream = stream;
	s->syslog = syslog;
	s->pri = pri;
	snprintf(s->ident, sizeof(s->ident), "%s", ident ? ident : "meerkat");
	if (gethostname(s->host, sizeof(s->host)) || !s->host[0])
		strcpy(s->host, "-");
	s->host[sizeof(s->host) - 1] = '\0';
	s->pid = (int)getpid();
	if (strlen(path) >= sizeof(s->path))
		return -ENAMETOOLONG;
	strcpy(s->path, path);
	return 0;
}

int mk_out_sock_connect(struct mk_out_sock *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	mk_out_sock_close(s);
	fd = socket(AF_UNIX, (s->stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, s->path, sizeof(s->path));
	/* a unix stream connect completes at once or fails (a full backlog: EAGAIN) */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	s->fd = fd;
	s->part = 0;
	return 0;
}

void mk_out_sock_close(struct mk_out_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

size_t mk_syslog_header(char *buf, size_t len, unsigned int pri, uint64_t ts_us, const char *host,
			const char *ident, int pid)
{
	time_t t = (time_t)(ts_us / 1000000);
	struct tm tm;
	int n;

	gmtime_r(&t, &tm);
	n = snprintf(buf, len, "<%u>1 %04d-%02d-%02dT%02d:%02d:%02d.%06uZ %s %s %d - - ", pri,
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     (unsigned int)(ts_us % 1000000), host, ident, pid);
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

/* Whether @fd can take more within @timeout_ms; a hang-up is an error. */
static int wait_out(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int r = poll(&pfd, 1, timeout_ms);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r && (pfd.revents & (POLLERR | POLLHUP)) && !(pfd.revents & POLLOUT))
		return -EPIPE;
	return r;
}

static int gone(int err)
{
	return err == -EPIPE || err == -ECONNRESET || err == -ECONNREFUSED || err == -ENOTCONN ||
	       err == -ENOENT || err == -EBADF;
}

/* Lines to a stream socket, as many as it takes; a record cut by a lost reader is lost. */
static int send_stream(struct mk_out_sock *s, const char *buf, size_t len,
		       struct mk_out_progress *p, int timeout_ms)
{
	while (p->done < len) {
		const char *from = buf + p->done, *nl;
		ssize_t n = send(s->fd, from, len - p->done, MSG_NOSIGNAL | MSG_DONTWAIT);
		int err;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			err = wait_out(s->fd, timeout_ms);
			if (err > 0)
				continue;
			if (!err)
				return 0; /* full for the whole wait: the writer decides */
			n = -1;
			errno = -err;
		}
		if (n <= 0) {
			err = n < 0 ? -errno : -EPIPE;
			if (s->part) {
				/* the reader got half a record: the rest of it is worth nothing */
				nl = memchr(from, '\n', len - p->done);
				p->done = nl ? (size_t)(nl + 1 - buf) : len;
				p->lost++;
				s->part = 0;
			}
			mk_out_sock_close(s);
			return gone(err) ? err : -EPIPE;
		}
		p->bytes += (size_t)n;
		/* count the records this send completed */
		for (const char *q = from, *end = from + n; q < end; q++) {
			nl = memchr(q, '\n', (size_t)(end - q));
			if (!nl) {
				s->part += (size_t)(end - q);
				break;
			}
			p->sent++;
			s->part = 0;
			q = nl;
		}
		p->done += (size_t)n;
	}
	return 0;
}

#define DGRAM_BATCH 64

/*
 * One datagram per record, without its newline; syslog puts its header in
 * front. Up to DGRAM_BATCH of them per sendmmsg().
 */
static int send_dgram(struct mk_out_sock *s, const char *buf, size_t len, struct mk_out_progress *p,
		      int timeout_ms)
{
	struct mmsghdr mm[DGRAM_BATCH];
	struct iovec iov[DGRAM_BATCH][2];
	size_t rlen[DGRAM_BATCH], hlen = 0;
	char hdr[256];
	int i, k, n, err;

	if (s->syslog) /* one time for the batch: they were rendered together */
		hlen = mk_syslog_header(hdr, sizeof(hdr), s->pri, now_us(), s->host, s->ident,
					s->pid);
	while (p->done < len) {
		size_t at = p->done;

		for (n = 0; n < DGRAM_BATCH && at < len; n++) {
			const char *rec = buf + at, *nl = memchr(rec, '\n', len - at);

			rlen[n] = nl ? (size_t)(nl - rec) : len - at;
			k = 0;
			if (s->syslog)
				iov[n][k++] = (struct iovec){ .iov_base = hdr, .iov_len = hlen };
			iov[n][k++] = (struct iovec){ .iov_base = (void *)rec, .iov_len = rlen[n] };
			mm[n] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[n],
							       .msg_iovlen = k } };
			at += rlen[n] + (nl ? 1 : 0);
		}
		k = sendmmsg(s->fd, mm, (unsigned int)n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			err = wait_out(s->fd, timeout_ms);
			if (err > 0)
				continue;
			if (!err)
				return 0;
			k = -1;
			errno = -err;
		}
		if (k < 0 && (errno == EMSGSIZE || errno == ENOBUFS)) {
			/* the first record can never go: lose it, not the ones after it */
			p->lost++;
			p->done += rlen[0] + (p->done + rlen[0] < len ? 1 : 0);
			continue;
		}
		if (k < 0) {
			err = -errno;
			mk_out_sock_close(s);
			return gone(err) ? err : -EPIPE;
		}
		for (i = 0; i < k; i++) {
			p->sent++;
			p->bytes += mm[i].msg_len;
			p->done += rlen[i] + (p->done + rlen[i] < len ? 1 : 0);
		}
	}
	return 0;
}

int mk_out_sock_send(struct mk_out_sock *s, const char *buf, size_t len, struct mk_out_progress *p,
		     int timeout_ms)
{
	if (s->fd < 0)
		return -ENOTCONN;
	return s->stream ? send_stream(s, buf, len, p, timeout_ms) :
			   send_dgram(s, buf, len, p, timeout_ms);
}
