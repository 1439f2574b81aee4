/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every EVE output of the configuration (`outputs: - eve-log:` entries) as
 * one object the run modes hand records to. A record is rendered once, by
 * the pipeline; mk_outputs_write() gives it to every output whose `types`
 * hold its event type, each through its own bounded buffer and writer
 * thread (out_writer.h), so that no sink ever holds up the packet path.
 * Live mode: records beyond a full buffer are dropped and counted per
 * output. Offline mode (@sync): every output waits for room, so each gets
 * every record, byte for byte, in the file's order.
 */
#ifndef MK_OUTPUTS_H
#define MK_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "output_cfg.h"
#include "out_writer.h"

#define MK_OUTPUTS_DRAIN_MS 2000 /* at the end, a socket or a service gets this long */

struct mk_outputs;

/*
 * Opens every enabled output of @cfg (files under @log_dir, made when
 * missing; truncated when @truncate). 0 or -errno, logged naming the
 * output. Sockets and services connect from the writer threads.
 */
int mk_outputs_new(struct mk_outputs **out, const struct mk_output_cfg *cfg, const char *log_dir,
		   int truncate, int sync);
/*
 * Starts the writer threads (live mode: after the capabilities are
 * dropped, so that the threads hold none). 0 or -errno, logged.
 */
int mk_outputs_start(struct mk_outputs *o);
/* How many outputs are open. */
unsigned int mk_outputs_count(const struct mk_outputs *o);
/* Records: @len bytes of @nrecs whole lines, each ending in '\n'. */
void mk_outputs_write(struct mk_outputs *o, const char *lines, size_t len, uint64_t nrecs);
/*
 * Waits until every output has done with what it was given (written or
 * lost), at most @timeout_ms: the final stats then count every record
 * before them. 0 or -ETIMEDOUT (a slow socket).
 */
int mk_outputs_flush(struct mk_outputs *o, unsigned int timeout_ms);
/* SIGHUP: files are opened again by name. */
void mk_outputs_reopen(struct mk_outputs *o);
/* The first output's written and lost records (the `eve` stats of old). */
void mk_outputs_first_counts(struct mk_outputs *o, uint64_t *written, uint64_t *lost);
/* Every output's counters, in configuration order. */
json_t *mk_outputs_json(struct mk_outputs *o);
/*
 * One line per output on @out ("meerkat: output outputs[1] unix_stream
 * PATH: written N, dropped N, lost N, reconnects N, bytes N"), when there
 * are several or one dropped, lost or reconnected: after mk_outputs_stop(),
 * the final counts.
 */
void mk_outputs_print(struct mk_outputs *o, FILE *out);
/* Drains every buffer and stops the threads; the counters stay. */
void mk_outputs_stop(struct mk_outputs *o);
/* Drains every buffer (sockets and services: at most MK_OUTPUTS_DRAIN_MS), stops, frees. */
void mk_outputs_free(struct mk_outputs *o);
/* The MK_EVE_TYPE_* bit of a rendered record, from its "event_type"; 0 when unknown. */
uint32_t mk_outputs_event_type(const char *rec, size_t len);

#endif /* MK_OUTPUTS_H */
