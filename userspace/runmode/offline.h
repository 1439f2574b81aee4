/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Offline (pcap) mode: the live pipeline fed from a file. A reader thread
 * parses each frame with common/parse.h exactly as the XDP program does
 * (decapsulation, seeded hash, CIDR bypass), picks the worker through the
 * 256-bucket indirection table, and queues the frame to that worker; each
 * worker runs decode -> defrag -> flow -> stream -> output on its own state.
 */
#ifndef MK_OFFLINE_H
#define MK_OFFLINE_H

#include <stdint.h>
#include "config.h"
#include "flow.h"
#include "stats.h"
#include "stream.h"
#include "defrag.h"

/* Reader-side outcomes: every frame read ends in exactly one. */
#define MK_OFF_READER_COUNTERS(X)                                                                  \
	X(READ, "read", "frames read from the file")                                               \
	X(NON_IP, "non_ip", "non-IP frames (ARP, LLDP, ...), not tracked")                         \
	X(PARSE_ERROR, "parse_error", "malformed or truncated frames (see err_* below)")           \
	X(CIDR_BYPASS, "cidr_bypass", "inner address in the CIDR bypass list: no flow")            \
	X(DISPATCHED, "dispatched", "frames queued to a worker")

/* Worker-side outcomes of a dispatched frame, plus what was noticed on the way. */
#define MK_OFF_WORKER_COUNTERS(X)                                                                  \
	X(RX, "worker_rx", "frames a worker took from its queue")                                  \
	X(FLOW_PKT, "flow_pkt", "frames accounted to a flow")                                       \
	X(FRAG_HELD, "frag_held", "IP fragments taken by the defragmenter")                        \
	X(FRAG_DROPPED, "frag_dropped", "IP fragments the defragmenter refused (see its counters)") \
	X(NO_FLOW, "no_flow", "frames dropped: flow table full and nothing evictable")             \
	X(DGRAM, "dgram_reassembled", "datagrams the defragmenter completed")                      \
	X(DGRAM_FLOW, "dgram_flow", "reassembled datagrams accounted to a flow")                   \
	X(DGRAM_NO_FLOW, "dgram_no_flow", "reassembled datagrams dropped: flow table full")        \
	X(DGRAM_BAD, "dgram_bad", "reassembled datagrams the parser rejected")                      \
	X(DGRAM_HANDOFF, "dgram_handoff", "reassembled datagrams sent to the worker owning their 5-tuple") \
	X(DGRAM_HANDOFF_DROP, "dgram_handoff_drop", "reassembled datagrams dropped: peer's ring full") \
	X(CSUM_BAD_IPV4, "csum_bad_ipv4", "IPv4 header checksum wrong (frame still tracked)")      \
	X(CSUM_BAD_TCP, "csum_bad_tcp", "TCP checksum wrong: not reassembled")                     \
	X(CSUM_BAD_UDP, "csum_bad_udp", "UDP checksum wrong (frame still tracked)")                \
	X(CSUM_BAD_ICMP, "csum_bad_icmp", "ICMP checksum wrong (frame still tracked)")           \
	X(TCP_MALFORMED, "tcp_malformed", "TCP header the stream engine could not read")           \
	X(TCP_REUSE, "tcp_port_reuse", "stream engine saw a new session on a closed one: new flow")

#define MK_OFF_CNT_ENUM(name, str, doc) MK_OFF_##name,
enum mk_off_counter {
	MK_OFF_READER_COUNTERS(MK_OFF_CNT_ENUM)
	MK_OFF_WORKER_COUNTERS(MK_OFF_CNT_ENUM)
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
};

struct mk_offline_stats {
	uint64_t cnt[MK_OFF_CNT_MAX];
	uint64_t parse_err[MK_REASON_MAX]; /* by enum mk_drop_reason */
	uint64_t flow_cnt[MK_FLOW_CNT_MAX];
	uint64_t bytes_read;
	uint64_t flows_logged;
	uint64_t queue_full_waits;
	double elapsed_s;
	struct mk_stream_stats stream; /* summed over workers */
	struct mk_defrag_stats defrag;
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
