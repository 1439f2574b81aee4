/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One EVE output's writer: a bounded buffer of whole records and the one
 * thread that empties it into the output's sink (a regular file, a unix
 * socket, syslog, or a transport: out_transport.h).
 *
 * Producers (the workers, the stats thread) copy whole records in under a
 * short lock and never wait for the sink: when the buffer is full a record
 * is dropped and counted (`dropped`), unless the output asks for
 * backpressure, and then the producer waits for room. The writer thread
 * takes what is buffered in one copy, so the buffer has room again while
 * the sink is slow; a sink that fails or is gone costs its records
 * (`lost`) or keeps them until it comes back (sockets and transports,
 * reconnected with a back-off from 100 ms to 5 s), never the producers'
 * time. At the end the writer drains the buffer: a file completely, a
 * socket or a transport for at most the drain time given, then what is
 * left is counted as lost.
 */
#ifndef MK_OUT_WRITER_H
#define MK_OUT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "output_cfg.h"

/* Per output; every one in the live stats (eve.outputs) and docs/outputs.md. */
#define MK_OUT_COUNTERS(X)                                                                       \
	X(WRITTEN, "written", "records the sink took")                                           \
	X(DROPPED, "dropped", "records refused because the output's buffer was full")            \
	X(LOST, "lost", "records the sink failed to take (write error, gone at the end)")        \
	X(RECONNECTS, "reconnects", "connections made again after a socket or service was lost") \
	X(BYTES, "bytes", "bytes the sink took")                                                 \
	X(BUFFERED, "buffered", "bytes in the buffer now")                                       \
	X(HIGH_WATER, "high_water", "most bytes the buffer ever held")                           \
	X(ROTATIONS, "rotations", "new files started by rotate-interval")

enum mk_out_cnt {
#define X(CNT, NAME, DOC) MK_OUT_##CNT,
	MK_OUT_COUNTERS(X)
#undef X
		MK_OUT_CNT_MAX
};

extern const char *const mk_out_cnt_names[MK_OUT_CNT_MAX];

struct mk_out_writer;

/*
 * A writer for output number @index of the configuration (named
 * "outputs[@index]" in messages). A regular file is opened now (under
 * @log_dir unless absolute; truncated first when @truncate); sockets and
 * transports connect from the thread. @sync: every push waits for room
 * (offline mode). 0 or -errno, logged.
 */
int mk_out_writer_new(struct mk_out_writer **out, const struct mk_eve_cfg *cfg, unsigned int index,
		      const char *log_dir, int truncate, int sync);
/* The same with the transport of a redis or kafka output given (tests, benchmarks). */
struct mk_out_transport;
int mk_out_writer_new_with(struct mk_out_writer **out, const struct mk_eve_cfg *cfg,
			   unsigned int index, const char *log_dir, int truncate, int sync,
			   const struct mk_out_transport *tr);
/* Starts the thread. 0 or -errno. */
int mk_out_writer_start(struct mk_out_writer *w);
/*
 * Appends @len bytes holding @nrecs whole records (each ends in '\n').
 * Returns the number of records dropped (0 when all fit).
 */
uint64_t mk_out_writer_push(struct mk_out_writer *w, const char *buf, size_t len, uint64_t nrecs);
/* The same for records picked one by one: begin, add each, end (one lock). */
void mk_out_writer_lock(struct mk_out_writer *w);
/* One record of @len bytes, '\n' included; 1 when dropped. Between lock and unlock. */
int mk_out_writer_add(struct mk_out_writer *w, const char *rec, size_t len);
void mk_out_writer_unlock(struct mk_out_writer *w);
/* The event types (MK_EVE_TYPE_*) this output takes. */
uint32_t mk_out_writer_types(const struct mk_out_writer *w);
/* SIGHUP: the file is opened again by name (logrotate's create); sockets keep their connection. */
void mk_out_writer_reopen(struct mk_out_writer *w);
/* A snapshot of the counters. */
void mk_out_writer_counts(struct mk_out_writer *w, uint64_t cnt[MK_OUT_CNT_MAX]);
/* name, filetype, target and every counter (a transport's own too) as a JSON object. */
json_t *mk_out_writer_json(struct mk_out_writer *w);
/* Whether everything pushed so far is done with (written, lost). */
int mk_out_writer_idle(struct mk_out_writer *w);
/*
 * Tells the thread to drain and stop (sockets and transports: within
 * @drain_ms), without waiting; mk_out_writer_join() waits. The counters
 * stay readable until the writer is freed.
 */
void mk_out_writer_stop(struct mk_out_writer *w, unsigned int drain_ms);
void mk_out_writer_join(struct mk_out_writer *w);
/* Stops the thread after draining (sockets and transports: at most @drain_ms), closes, frees. */
void mk_out_writer_free(struct mk_out_writer *w, unsigned int drain_ms);

#endif /* MK_OUT_WRITER_H */
