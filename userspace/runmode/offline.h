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

/*
 * The reader's counters. Every frame read ends in exactly one of filtered,
 * non_ip, link_error, parse_error, cidr_bypass, dispatched (MK_OFF_OUTCOMES);
 * the others describe the input files.
 */
#define MK_OFF_READER_COUNTERS(X)                                                                  \
	X(READ, "read", "frames read from the input files")                                        \
	X(FILTERED, "filtered", "frames the BPF filter rejected")                                  \
	X(NON_IP, "non_ip", "non-IP frames (ARP, LLDP, PPP LCP, ...), not tracked")                \
	X(LINK_ERROR, "link_error", "frames shorter than their link-layer header")                 \
	X(PARSE_ERROR, "parse_error", "malformed or truncated frames (see err_* below)")           \
	X(CIDR_BYPASS, "cidr_bypass", "inner address in the CIDR bypass list: no flow")            \
	X(DISPATCHED, "dispatched", "frames queued to a worker")                                   \
	X(FILES, "files", "input files read (in full or up to damage)")                            \
	X(FILES_FAILED, "files_failed", "input files that could not be read at all (logged)")      \
	X(FILES_DAMAGED, "files_damaged", "input files whose reading stopped at a damaged record") \
	X(OVERSIZED, "oversized_records", "records longer than their file's snap length, cut to it")

/* The outcomes of a frame read, in summary order. */
#define MK_OFF_OUTCOMES(X) \
	X(FILTERED) X(NON_IP) X(LINK_ERROR) X(PARSE_ERROR) X(CIDR_BYPASS) X(DISPATCHED)

#define MK_OFF_CNT_ENUM(name, str, doc) MK_OFF_##name,
enum mk_off_counter { MK_OFF_READER_COUNTERS(MK_OFF_CNT_ENUM) MK_OFF_CNT_MAX };
#undef MK_OFF_CNT_ENUM

struct mk_offline_opts {
	const char *pcap_path;	  /* a capture, or a directory of them read in name order */
	const char *filter;	  /* BPF expression (libpcap), or NULL */
	const char *log_dir;	  /* eve.json goes here; NULL: no output (benchmark) */
	const char *dump_streams; /* reassembled streams per flow and direction, or NULL */
	unsigned int workers;
	unsigned int reader_threads; /* 1..MK_OFF_MAX_READER_THREADS; 0: the default */
	uint32_t seed;
	int checksum;			     /* validate IPv4/TCP/UDP/ICMP checksums */
	int progress;			     /* progress line on stderr (<= 4 updates/s) */
	int eve_truncate;		     /* truncate eve.json (default: append) */
	struct mk_eve_fmt eve;		     /* optional EVE fields (community_id) */
	struct mk_detect_master *detect;     /* rules; NULL: no detection */
	struct mk_eve_alert_opts alert_opts; /* payload in alert records */
};

struct mk_offline_stats {
	uint64_t cnt[MK_OFF_CNT_MAX];	   /* the reader's */
	uint64_t parse_err[MK_REASON_MAX]; /* by enum mk_drop_reason */
	uint64_t bytes_read;
	uint64_t queue_full_waits; /* the reader waited: a full queue, or its next batch in use */
	uint64_t eve_written, eve_lost; /* records; lost: to write errors (eve.json) */
	double elapsed_s;
	/*
	 * CPU time of the threads: the reader's (the dispatcher) includes the EVE
	 * write (eve_write); read: the read threads' (0 without them)
	 */
	uint64_t reader_cpu_ns, read_cpu_ns, workers_cpu_ns, eve_write_cpu_ns;
	unsigned int reader_threads; /* the dispatcher's included */
	unsigned int nworkers;
	uint64_t worker_rx[MK_MAX_WORKERS], worker_flows[MK_MAX_WORKERS]; /* each worker's share */
	struct mk_worker_stats pipe;					  /* summed over workers */
	int detect;							  /* rules were loaded */
	uint64_t alerts_thresholded; /* alert records threshold/detection_filter/rate_filter removed */
	/* the first damaged input (files_damaged counts them all) */
	char damage_path[4096];
	uint64_t damage_record, damage_off;
	char damage_why[256];
};

extern const char *const mk_off_counter_names[MK_OFF_CNT_MAX];

/*
 * Runs every input through the pipeline. Returns 0 or -errno: an input that
 * cannot be read is logged and counted (files_failed) and the others run; a
 * damaged one is read up to the damage (files_damaged); EVE write errors are
 * logged and counted (eve_lost) and make the run return that -errno
 * at the end; only setup errors and a filter that does not compile stop it.
 */
int mk_offline_run(const struct mk_offline_opts *o, const struct mk_config *c,
		   struct mk_offline_stats *st);
/* Every frame read has exactly one reader outcome and every worker equation holds. */
int mk_offline_balanced(const struct mk_offline_stats *st);
/* Human summary on @out: outcome totals and the accounting line; @verbose: every counter. */
void mk_offline_print_summary(FILE *out, const struct mk_offline_stats *st, int verbose);
/* Every counter as one JSON object into @path (jansson). 0 or -errno (logged). */
int mk_offline_stats_json(const char *path, const struct mk_offline_stats *st);
/* The reader threads a run uses: @asked (1..16), or for 0 the default for @workers. */
unsigned int mk_offline_reader_threads(unsigned int asked, unsigned int workers);
/* Which optional engines are compiled in ("defrag stream" or "") */
const char *mk_offline_features(void);

#endif /* MK_OFFLINE_H */
