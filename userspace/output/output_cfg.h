/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output settings, as suricata.yaml names them: `default-log-dir` (the -l
 * option overrides it), the global `stats` section and the `eve-log`
 * entries of `outputs` (several at once, each with its own sink and event
 * types: docs/outputs.md). Filled by the configuration (config/config.c);
 * the run modes hand them to output/outputs.h.
 */
#ifndef MK_OUTPUT_CFG_H
#define MK_OUTPUT_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
struct mk_out_kv;

#define MK_OUTPUT_PATH_MAX 256

/* outputs.eve-log.filetype, as Suricata names them */
enum mk_eve_filetype {
	MK_EVE_FILETYPE_REGULAR = 0,
	MK_EVE_FILETYPE_UNIX_DGRAM,  /* one record per datagram to a listening socket */
	MK_EVE_FILETYPE_UNIX_STREAM, /* lines to a listening stream socket */
	MK_EVE_FILETYPE_SYSLOG,	     /* RFC 5424 messages to the local syslog socket */
	MK_EVE_FILETYPE_REDIS,	     /* through a transport (out_transport.h) */
	MK_EVE_FILETYPE_KAFKA,
};

#define MK_EVE_OUTPUTS_MAX 8 /* eve-log entries in `outputs` */
#define MK_EVE_BUFFER_DEFAULT (8u << 20)

/* outputs.eve-log.types, one bit per event type */
#define MK_EVE_TYPE_ALERT (1u << 0)
#define MK_EVE_TYPE_FLOW (1u << 1)
#define MK_EVE_TYPE_STATS (1u << 2)
#define MK_EVE_TYPE_HTTP (1u << 3)
#define MK_EVE_TYPE_DNS (1u << 4)
#define MK_EVE_TYPE_TLS (1u << 5)
#define MK_EVE_TYPE_FILES (1u << 6) /* fileinfo records */
#define MK_EVE_TYPE_SSH (1u << 7)
#define MK_EVE_TYPE_SMTP (1u << 8)
#define MK_EVE_TYPE_FTP (1u << 9)

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
	uint8_t alert_tagged_packets;	   /* ... tagged-packets: yes: EVE packet records */
	char filename[MK_OUTPUT_PATH_MAX]; /* relative to log_dir unless it starts with '/' */
	uint8_t backpressure;	  /* a full buffer makes producers wait instead of dropping */
	uint8_t facility;	  /* syslog: LOG_LOCAL5 >> 3 and so on (0..23) */
	uint8_t level;		  /* syslog: severity 0 (emerg) .. 7 (debug) */
	uint32_t rotate_interval; /* regular: seconds between new files; 0: never */
	uint64_t buffer_size;	  /* bytes of records waiting for the writer thread */
	char identity[64];	  /* syslog APP-NAME */
	char syslog_socket[MK_OUTPUT_PATH_MAX]; /* syslog: the local socket (/dev/log) */
	const struct mk_out_kv *kv;		/* redis:/kafka: settings, flattened */
	uint32_t nkv;
};

struct mk_output_cfg {
	char log_dir[MK_OUTPUT_PATH_MAX]; /* default-log-dir; -l DIR */
	uint8_t stats_enabled;		  /* stats.enabled */
	uint32_t stats_interval;	  /* stats.interval: seconds between stats events */
	/*
	 * The first enabled `- eve-log` (the first entry when none is): its
	 * options decide how records are rendered, for every output. The rows
	 * of the key table write here while an entry is read.
	 */
	struct mk_eve_cfg eve;
	unsigned int neve; /* entries in eves (1 when `outputs` lists none) */
	struct mk_eve_cfg eves[MK_EVE_OUTPUTS_MAX];
};

struct mk_cfg_table;
extern const struct mk_cfg_table mk_output_cfg_table;

/* The EVE file's path (log_dir/filename, or filename when absolute). 0 or -ENAMETOOLONG. */
int mk_output_eve_path(const struct mk_output_cfg *o, char *buf, size_t len);
/* The event types (MK_EVE_TYPE_*) some enabled output writes: what the workers render. */
uint32_t mk_output_types(const struct mk_output_cfg *o);
/* Whether any output is enabled. */
int mk_output_enabled(const struct mk_output_cfg *o);
/* With several outputs, one line each (meerkat -T): "  outputs[1]: unix_stream PATH, types [...]...". */
void mk_output_print(FILE *out, const struct mk_output_cfg *o);
/* The name of a filetype ("unix_stream"). */
const char *mk_output_filetype_name(unsigned int filetype);

#endif /* MK_OUTPUT_CFG_H */
