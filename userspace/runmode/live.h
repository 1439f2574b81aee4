/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Live mode: the sensor daemon. Loads and attaches the XDP program on every
 * configured interface, opens one AF_XDP socket per (queue, worker) with one
 * shared UMEM per queue, and runs W worker threads, each polling its sockets
 * and feeding the per-worker pipeline (pipeline/worker.h) with the parse the
 * program wrote in front of every frame. The main thread owns signals, the
 * periodic EVE stats, the control socket and the shutdown:
 *
 *   SIGINT/SIGTERM  detach the program, let the workers drain their rings,
 *                   end every flow, write the final stats, exit 0;
 *   SIGHUP          reopen every output's file (logrotate);
 *   SIGUSR2         reload the configuration and the rules (as `meerkatctl
 *                   reload`, runmode/reload.h): a new engine is built off
 *                   the packet path and swapped in between packets; a
 *                   configuration or rule set that fails keeps the old one.
 */
#ifndef MK_LIVE_H
#define MK_LIVE_H

#include <stdint.h>
#include "config.h"
#include "detect.h"
#include "eve.h"
#include "reload.h"

/*
 * What the live source counts per worker, besides the pipeline's own
 * counters. Every frame taken from a socket (sock_rx) either reaches the
 * pipeline (its worker_rx, on this worker or, for an ICMP error steered to
 * the owner of the flow it quotes, on that one) or ends in user_parse_fail,
 * and is given back to its fill ring exactly once (frames_refilled equals
 * sock_rx once the worker stopped).
 */
#define MK_LIVE_COUNTERS(X)                                                              \
	X(SOCK_RX, "sock_rx", "frames taken from the worker's AF_XDP sockets")           \
	X(SOCK_BYTES, "sock_bytes", "bytes of those frames")                             \
	X(META_MISSING, "meta_missing",                                                  \
	  "frames without the program's metadata: parsed in user space")                 \
	X(META_BAD, "meta_bad",                                                          \
	  "frames whose metadata points outside the frame: parsed in user space")        \
	X(USER_PARSE_FAIL, "user_parse_fail",                                            \
	  "frames without usable metadata the parser refused: dropped")                  \
	X(REFILLED, "frames_refilled", "frames given back to their fill ring")           \
	X(ICMP_STEERED, "icmp_error_steered",                                            \
	  "ICMP errors sent to the worker owning the flow they quote")                   \
	X(ICMP_STEER_FULL, "icmp_error_steer_full",                                      \
	  "ICMP errors kept here: the owner's ring was full")                            \
	X(IPS_FORWARDED, "ips_forwarded",                                                \
	  "inline: frames sent on the peer interface's AF_XDP TX ring")                  \
	X(IPS_TX_FULL, "ips_tx_full",                                                    \
	  "inline: frames lost: no transmit frame or TX ring slot free")                 \
	X(IPS_DROPPED, "ips_dropped", "inline: frames a drop or reject verdict dropped") \
	X(IPS_REJECT_SENT, "ips_reject_sent",                                            \
	  "inline: RST or ICMP unreachable frames a reject rule sent")                   \
	X(IPS_UNPARSABLE_FWD, "ips_unparsable_forwarded",                                \
	  "inline: frames the decoder or parser refused, forwarded (ips.unparsable)")    \
	X(IPS_UNPARSABLE_DROP, "ips_unparsable_dropped",                                 \
	  "inline: frames the decoder or parser refused, dropped (ips.unparsable)")      \
	X(IPS_NO_FLOW_FWD, "ips_no_flow_forwarded",                                      \
	  "inline: frames without flow state (table full), forwarded (ips.unparsable)")  \
	X(IPS_NO_FLOW_DROP, "ips_no_flow_dropped",                                       \
	  "inline: frames without flow state (table full), dropped (ips.unparsable)")

#define MK_LIVE_CNT_ENUM(name, str, doc) MK_LIVE_##name,
enum mk_live_counter { MK_LIVE_COUNTERS(MK_LIVE_CNT_ENUM) MK_LIVE_CNT_MAX };
#undef MK_LIVE_CNT_ENUM

struct mk_live_opts {
	const char *log_dir;   /* eve.json goes here */
	uint32_t seed;	       /* the hash seed (random per start unless given) */
	int checksum;	       /* validate checksums in the pipeline */
	int eve_truncate;      /* start eve.json empty instead of appending */
	struct mk_eve_fmt eve; /* optional EVE fields; in_iface is set here, per interface */
	int stats_stderr;      /* print the final counters on stderr */
	struct mk_detect_master *detect;     /* rules; NULL: no detection */
	struct mk_eve_alert_opts alert_opts; /* payload in alert records */
	struct mk_reload_src reload;	     /* how a reload reads the configuration again */
};

/* Runs until SIGINT/SIGTERM. Returns 0, or -errno when setting up failed (logged). */
int mk_live_run(const struct mk_config *c, const struct mk_live_opts *o);

#endif /* MK_LIVE_H */
