/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline (pcap) mode: the live pipeline fed from a file. A reader thread
 * parses each frame with common/parse.h exactly as the XDP program does
 * (decapsulation, seeded hash, CIDR bypass), picks the worker through the
 * 256-bucket indirection table, and queues the frame to that worker; each
 * worker thread runs the per-worker pipeline (pipeline/worker.h) on its own
 * state.
 */
#ifndef MK_OFFLINE_H
#define MK_OFFLINE_H

#include <stdint.h>
#include "config.h"
#include "stats.h"
#include "worker.h"

/* Reader-side outcomes: every frame read ends in exactly one. */
#define MK_OFF_READER_COUNTERS(X)                                                                  \
	X(READ, "read", "frames read from the file")                                               \
	X(NON_IP, "non_ip", "non-IP frames (ARP, LLDP, ...), not tracked")                         \
	X(PARSE_ERROR, "parse_error", "malformed or truncated frames (see err_* below)")           \
	X(CIDR_BYPASS, "cidr_bypass", "inner address in the CIDR bypass list: no flow")            \
	X(DISPATCHED, "dispatched", "frames queued to a worker")

#define MK_OFF_CNT_ENUM(name, str, doc) MK_OFF_##name,
enum mk_off_counter {
	MK_OFF_READER_COUNTERS(MK_OFF_CNT_ENUM)
	MK_OFF_CNT_MAX
};
#undef MK_OFF_CNT_ENUM

struct mk_offline_opts {
	const char *pcap_path;
	const char *log_dir;	  /* eve.json goes here; NULL: no output (benchmark) */
	const char *dump_streams; /* reassembled streams per flow and direction, or NULL */
	unsigned int workers;
	uint32_t seed;
	int checksum;		/* validate IPv4/TCP/UDP/ICMP checksums */
	int progress;		/* progress line on stderr (<= 4 updates/s) */
	struct mk_detect_master *detect;     /* rules; NULL: no detection */
	struct mk_eve_alert_opts alert_opts; /* payload in alert records */
};

struct mk_offline_stats {
	uint64_t cnt[MK_OFF_CNT_MAX];	   /* the reader's */
	uint64_t parse_err[MK_REASON_MAX]; /* by enum mk_drop_reason */
	uint64_t bytes_read;
	uint64_t queue_full_waits;
	double elapsed_s;
	struct mk_worker_stats pipe; /* summed over workers */
	uint64_t alerts_thresholded; /* alert records threshold/detection_filter/rate_filter removed */
};

extern const char *const mk_off_counter_names[MK_OFF_CNT_MAX];

/* Runs the whole file through the pipeline. Returns 0 or -errno. */
int mk_offline_run(const struct mk_offline_opts *o, const struct mk_config *c,
		   struct mk_offline_stats *st);
/* Human summary of a run on @out. */
void mk_offline_print_summary(FILE *out, const struct mk_offline_stats *st);
/* Which optional engines are compiled in ("defrag stream" or "") */
const char *mk_offline_features(void);

#endif /* MK_OFFLINE_H */
