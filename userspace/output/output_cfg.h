/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output settings, as suricata.yaml names them: `default-log-dir` (the -l
 * option overrides it), the global `stats` section and the `eve-log` entry
 * of `outputs`. Filled by the configuration (config/config.c); the run
 * modes open EVE with mk_output_eve_path() and write the event types listed.
 */
#ifndef MK_OUTPUT_CFG_H
#define MK_OUTPUT_CFG_H

#include <stddef.h>
#include <stdint.h>

#define MK_OUTPUT_PATH_MAX 256

/* outputs.eve-log.filetype: only a regular file today (Suricata also has syslog, unix sockets,
 * redis). */
enum mk_eve_filetype {
	MK_EVE_FILETYPE_REGULAR = 0,
};

/* outputs.eve-log.types, one bit per event type */
#define MK_EVE_TYPE_ALERT (1u << 0)
#define MK_EVE_TYPE_FLOW (1u << 1)
#define MK_EVE_TYPE_STATS (1u << 2)
#define MK_EVE_TYPE_HTTP (1u << 3)
#define MK_EVE_TYPE_FILES (1u << 4) /* fileinfo records */

/*
 * outputs.eve-log.types.flow.unreplied: what becomes of the flow record of
 * a flow whose packets all went one way (a SYN flood's, a scan's,
 * backscatter). Counted either way (docs/eve.md).
 */
enum mk_eve_unreplied {
	MK_EVE_UNREPLIED_FULL = 0, /* the usual record */
	MK_EVE_UNREPLIED_COMPACT,  /* mk_eve_flow_compact(): fewer fields */
	MK_EVE_UNREPLIED_NONE,	   /* not logged */
};

struct mk_eve_cfg {
	uint8_t enabled;
	uint8_t filetype;	    /* enum mk_eve_filetype */
	uint8_t append;		    /* append to an existing file (yes) or truncate it (no) */
	uint8_t community_id;	    /* community_id on records (Community ID v1), docs/eve.md */
	uint16_t community_id_seed; /* its seed */
	uint32_t types;		    /* MK_EVE_TYPE_* */
	uint8_t flow_unreplied;	    /* enum mk_eve_unreplied */
	uint8_t alert_payload;	    /* types: - alert: {payload: yes}: base64 payload */
	uint8_t alert_payload_printable;   /* ... payload-printable: yes */
	char filename[MK_OUTPUT_PATH_MAX]; /* relative to log_dir unless it starts with '/' */
};

struct mk_output_cfg {
	char log_dir[MK_OUTPUT_PATH_MAX]; /* default-log-dir; -l DIR */
	uint8_t stats_enabled;		  /* stats.enabled */
	uint32_t stats_interval;	  /* stats.interval: seconds between stats events */
	struct mk_eve_cfg eve;		  /* outputs: - eve-log */
};

struct mk_cfg_table;
extern const struct mk_cfg_table mk_output_cfg_table;

/* The EVE file's path (log_dir/filename, or filename when absolute). 0 or -ENAMETOOLONG. */
int mk_output_eve_path(const struct mk_output_cfg *o, char *buf, size_t len);

#endif /* MK_OUTPUT_CFG_H */
