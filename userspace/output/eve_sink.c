// SPDX-License-Identifier: GPL-2.0-only
/* The live EVE file (eve_sink.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "eve_sink.h"
#include "log.h"

static int open_path(const char *path, bool truncate)
{
	return open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND), 0640);
}

int mk_eve_sink_open(struct mk_eve_sink *s, const char *path, bool truncate)
{
	int err;

	memset(s, 0, sizeof(*s));
	if (snprintf(s->path, sizeof(s->path), "%s", path) >= (int)sizeof(s->path)) {
		mk_err("%s: path too long", path);
		return -ENAMETOOLONG;
	}
	s->fd = open_path(path, truncate);
	if (s->fd < 0) {
		err = -errno;
		mk_err("%s: %s", path, strerror(-err));
		return err;
	}
	if (truncate) {
		/* later opens (SIGHUP) append to what this run wrote */
		close(s->fd);
		s->fd = open_path(path, false);
		if (s->fd < 0) {
			err = -errno;
			mk_err("%s: %s", path, strerror(-err));
			return err;
		}
	}
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

int mk_eve_sink_write(struct mk_eve_sink *s, const char *buf, size_t len, uint64_t nrecs)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return mk_eve_sink_writev(s, &iov, 1, nrecs);
}

int mk_eve_sink_writev(struct mk_eve_sink *s, struct iovec *iov, int iovcnt, uint64_t nrecs)
{
	size_t done = 0;
	off_t start;
	int err = 0;

	pthread_mutex_lock(&s->lock);
	/* where this batch starts: a failed write is cut back to here */
	start = lseek(s->fd, 0, SEEK_END);
	if (s->partial) {
		/* an earlier failure left half a line: end it, or the next record joins it */
		if (write(s->fd, "\n", 1) == 1) {
			s->partial = 0;
			start++;
		}
	}
	while (iovcnt) {
		ssize_t n = writev(s->fd, iov, iovcnt);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
		/* a short write: go on from the first byte not written */
		while (iovcnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	if (err) {
		/*
		 * The disk took part of the batch (ENOSPC mid-write): cut it back
		 * so that the file keeps whole lines, JSON readers do not stop at
		 * a broken one, and the batch is lost whole, as it is counted.
		 */
		if (done && (start < 0 || ftruncate(s->fd, start)))
			s->partial = 1;
		s->lost += nrecs;
		if (s->last_err != -err)
			mk_err("%s: %s: EVE records are being lost (counted in eve.lost)", s->path,
			       strerror(-err));
		s->last_err = -err;
	} else {
		if (s->last_err)
			mk_warn("%s: writes succeed again after %llu lost records", s->path,
				(unsigned long long)s->lost);
		s->last_err = 0;
		s->written += nrecs;
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

int mk_eve_sink_reopen(struct mk_eve_sink *s)
{
	int fd, err = 0;

	pthread_mutex_lock(&s->lock);
	fd = open_path(s->path, false);
	if (fd < 0) {
		err = -errno;
		mk_err("%s: cannot reopen: %s (still writing to the old file)", s->path,
		       strerror(-err));
	} else {
		close(s->fd);
		s->fd = fd;
		s->reopened++;
	}
	pthread_mutex_unlock(&s->lock);
	return err;
}

void mk_eve_sink_close(struct mk_eve_sink *s)
{
	if (s->fd > 0) {
		if (close(s->fd))
			mk_err("%s: %s", s->path, strerror(errno));
		pthread_mutex_destroy(&s->lock);
	}
	s->fd = -1;
}

void mk_eve_sink_counts(struct mk_eve_sink *s, uint64_t *written, uint64_t *lost)
{
	pthread_mutex_lock(&s->lock);
	*written = s->written;
	*lost = s->lost;
	pthread_mutex_unlock(&s->lock);
}
