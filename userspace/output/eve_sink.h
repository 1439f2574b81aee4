/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where live EVE records go: one file, appended to, shared by every worker.
 * Workers batch their lines and hand a batch over in one locked write, so
 * the file sees whole lines only. A failed write (a full disk, say) is
 * reported with the real errno and the file's name, once per errno change,
 * and its records are counted as lost; what part of the batch the disk took
 * is cut off again, so the file still holds whole lines; capture and
 * counting go on, and output resumes when writes succeed again. mk_eve_sink_reopen() is for
 * SIGHUP (logrotate moved the file away).
 */
#ifndef MK_EVE_SINK_H
#define MK_EVE_SINK_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mk_eve_sink {
	pthread_mutex_t lock;
	char path[PATH_MAX];
	int fd;
	int last_err;	  /* errno of the last failed write, 0 after a good one */
	int partial;	  /* a failed write left half a line that could not be cut */
	uint64_t written; /* records */
	uint64_t lost;	  /* records a failed write dropped */
	uint64_t reopened;
};

/* Opens (creates) @path for appending, or truncates it first. 0 or -errno (logged). */
int mk_eve_sink_open(struct mk_eve_sink *s, const char *path, bool truncate);
/* Writes @len bytes holding @nrecs whole lines. 0 or -errno (counted, logged once). */
int mk_eve_sink_write(struct mk_eve_sink *s, const char *buf, size_t len, uint64_t nrecs);
/* The same for @iovcnt pieces (the pieces are updated on a short write). */
struct iovec;
int mk_eve_sink_writev(struct mk_eve_sink *s, struct iovec *iov, int iovcnt, uint64_t nrecs);
/* Closes and opens the path again (SIGHUP). 0 or -errno (logged; the old file stays in use). */
int mk_eve_sink_reopen(struct mk_eve_sink *s);
void mk_eve_sink_close(struct mk_eve_sink *s);
/* Snapshot of the counters. */
void mk_eve_sink_counts(struct mk_eve_sink *s, uint64_t *written, uint64_t *lost);

#endif /* MK_EVE_SINK_H */
