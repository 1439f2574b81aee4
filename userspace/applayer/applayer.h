/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The application layer (docs/applayer.md): fed by the worker with
 * reassembled TCP data (in order per direction, gaps signalled) and UDP
 * payloads; recognises the protocol of a flow from its bytes (the port plays
 * no part), runs that protocol's parser (a folder per protocol: http/) and
 * hands over what it found: transaction updates for detection, finished
 * transactions for the EVE writer. It never reaches back into capture and
 * writes no JSON.
 *
 * Objects: struct mk_app_thread, one per worker (the parsers' settings,
 * counters); struct mk_app_flow, per flow (flow->app), created on the
 * flow's first data and freed with the flow (mk_app_flow_free()).
 *
 * Transactions stay alive until the end of the packet they were finished
 * in (mk_app_packet_end()), so alerts raised on them can still be rendered.
 */
#ifndef MK_APPLAYER_H
#define MK_APPLAYER_H

#include <stdint.h>
#include "cfg_keys.h"
#include "flow.h"

/* What flow->app_proto holds. */
enum mk_app_proto {
	MK_APP_NONE = 0, /* not decided yet (or no data) */
	MK_APP_HTTP,
	MK_APP_DNS,
	MK_APP_TLS,
	MK_APP_SSH,
	MK_APP_SMTP,
	MK_APP_FTP,
	MK_APP_FTP_DATA, /* a data connection an FTP control session announced */
	MK_APP_SMB,
	MK_APP_FAILED, /* both directions seen, no protocol recognised */
	MK_APP_PROTO_MAX
};

/* EVE's name of @proto ("http", "failed"); NULL for MK_APP_NONE. */
const char *mk_app_proto_name(uint8_t proto);

/* The app-layer: keys (docs/configuration.md). */
struct mk_app_cfg {
	uint8_t http_enabled;	      /* app-layer.protocols.http.enabled */
	uint64_t http_memcap;	      /* every flow's HTTP state, all workers, bytes */
	uint64_t http_flow_memcap;    /* one flow's HTTP state, bytes */
	uint32_t max_tx;	      /* open transactions per flow */
	uint64_t request_body_limit;  /* request body bytes kept for inspection */
	uint64_t response_body_limit; /* response body bytes kept for inspection */
	uint8_t dns_udp_enabled;      /* app-layer.protocols.dns.udp.enabled */
	uint8_t dns_tcp_enabled;      /* app-layer.protocols.dns.tcp.enabled */
	uint8_t tls_enabled;	      /* app-layer.protocols.tls.enabled */
	uint8_t tls_encryption;	      /* enum mk_tls_encryption */
	uint8_t ssh_enabled;	      /* app-layer.protocols.ssh.enabled */
	uint8_t smtp_enabled;	      /* app-layer.protocols.smtp.enabled */
	uint8_t ftp_enabled;	      /* app-layer.protocols.ftp.enabled (and ftp-data) */
	uint8_t smb_enabled;	      /* app-layer.protocols.smb.enabled */
	/* progressive body inspection: first at this many bytes, then every window more */
	uint64_t request_body_min_inspect, request_body_window;
	uint64_t response_body_min_inspect, response_body_window;
	uint64_t compression_bomb_limit; /* bytes one compressed body may decompress to */
	uint8_t request_decompression;	 /* gunzip/inflate request bodies as responses */
	uint8_t file_hashes;		 /* MK_APP_HASH_*: app-layer.protocols.http.file-hashes */
};

/* app-layer.protocols.tls.encryption-handling: what becomes of a session once encrypted. */
enum mk_tls_encryption {
	MK_TLS_ENC_DEFAULT =
		0,	   /* TLS keywords and header rules only: no payload, no stream rules */
	MK_TLS_ENC_BYPASS, /* the flow is handed to the bypass decisions (docs/bypass.md) */
	MK_TLS_ENC_FULL,   /* every rule goes on reading its packets and stream */
};

/* The digests of a file's bytes fileinfo records carry. */
#define MK_APP_HASH_MD5 (1u << 0)
#define MK_APP_HASH_SHA1 (1u << 1)
#define MK_APP_HASH_SHA256 (1u << 2)

void mk_app_cfg_default(struct mk_app_cfg *c);
extern const struct mk_cfg_table mk_app_cfg_table;

/* Counters, group app_layer: X(id, name, doc). */
#define MK_APP_COUNTERS(X)                                                                        \
	X(HTTP_FLOWS, "http_flows", "flows recognised as HTTP")                                   \
	X(DETECT_FAILED, "proto_detect_failed",                                                   \
	  "flows with data whose protocol was not recognised")                                    \
	X(HTTP_TX, "http_tx", "HTTP transactions parsed")                                         \
	X(HTTP_LOGGED, "http_logged", "HTTP transactions handed to the EVE writer")               \
	X(HTTP_PARSE_ERROR, "http_parse_error", "HTTP flows no longer parsed: malformed data")    \
	X(HTTP_GAP, "http_gap",                                                                   \
	  "HTTP flows no longer parsed: a gap in a request or response line, headers, "           \
	  "a chunked body or a body of unknown length")                                           \
	X(HTTP_GAP_BODY, "http_gap_body",                                                         \
	  "gaps inside an HTTP body of known length: skipped, the body marked, parsing went on")  \
	X(HTTP_GAP_RESYNC, "http_gap_resync",                                                     \
	  "gaps between HTTP messages: parsing resumed at the next request or response line")     \
	X(HTTP_GAP_SKIPPED, "http_gap_skipped_bytes",                                             \
	  "bytes after a gap dropped before the next request or response line")                   \
	X(HTTP_GAP_RESYNC_LIMIT, "http_gap_resync_limit",                                         \
	  "HTTP flows no longer parsed: no message line within 64 KiB after a gap")               \
	X(HTTP_TUNNEL, "http_tunnel", "HTTP flows no longer parsed: CONNECT or protocol upgrade") \
	X(MEMCAP, "app_memcap", "HTTP flows no longer parsed: app-layer.protocols.http.memcap")   \
	X(FLOW_MEMCAP, "app_flow_memcap",                                                         \
	  "HTTP flows no longer parsed: app-layer.protocols.http.flow-memcap")                    \
	X(TX_LIMIT, "app_tx_limit", "HTTP flows no longer parsed: too many open transactions")    \
	X(REQ_BODY_LIMIT, "request_body_limit", "request bodies cut at request-body-limit")       \
	X(RESP_BODY_LIMIT, "response_body_limit", "response bodies cut at response-body-limit")   \
	X(DNS_FLOWS, "dns_flows", "flows recognised as DNS (UDP or TCP)")                         \
	X(DNS_QUERIES, "dns_queries", "DNS queries decoded")                                      \
	X(DNS_ANSWERS, "dns_answers", "DNS responses decoded")                                    \
	X(DNS_UNPAIRED, "dns_unpaired", "DNS responses whose query was not seen (or given up)")   \
	X(DNS_MALFORMED, "dns_malformed",                                                         \
	  "DNS messages not decoded: short, truncated inside a record, or a bad name")            \
	X(DNS_GAP, "dns_gap", "DNS over TCP directions no longer parsed: a gap in the stream")    \
	X(DNS_LOGGED, "dns_logged", "DNS messages handed to the EVE writer")                      \
	X(DNS_EVENTS, "dns_events", "DNS app-layer events raised (app-layer-event:dns.NAME)")     \
	X(TLS_FLOWS, "tls_flows", "flows recognised as TLS (or SSLv2)")                           \
	X(TLS_ENCRYPTED, "tls_encrypted", "TLS sessions that reached encrypted data")             \
	X(TLS_LOGGED, "tls_logged", "TLS sessions handed to the EVE writer")                      \
	X(TLS_MALFORMED, "tls_malformed",                                                         \
	  "TLS directions no longer parsed (or hellos not decoded): malformed records")           \
	X(TLS_GAP, "tls_gap", "TLS directions no longer parsed: a gap in the stream")             \
	X(TLS_HS_LIMIT, "tls_handshake_limit",                                                    \
	  "TLS directions no longer parsed: a handshake message over 256 KiB")                    \
	X(TLS_BAD_CERT, "tls_bad_cert", "server certificates OpenSSL could not read")             \
	X(TLS_CERT_CACHED, "tls_certs_cached",                                                    \
	  "server certificates read from the worker's cache of the last ones (same SHA-1)")       \
	X(TLS_EVENTS, "tls_events", "TLS app-layer events raised (app-layer-event:tls.NAME)")     \
	X(REQ_BODY_PARTIAL, "request_body_partial_inspections",                                   \
	  "request bodies inspected before they were complete (inspect window)")                  \
	X(RESP_BODY_PARTIAL, "response_body_partial_inspections",                                 \
	  "response bodies inspected before they were complete (inspect window)")                 \
	X(REQ_DECOMPRESSED, "request_bodies_decompressed",                                        \
	  "request bodies with a gzip or deflate Content-Encoding, decompressed")                 \
	X(COMPRESSION_BOMB, "compression_bomb",                                                   \
	  "bodies whose decompression stopped at compression-bomb-limit (or 100 ms)")             \
	X(HTTP_EVENTS, "http_events",                                                             \
	  "HTTP app-layer events from libhtp's messages (app-layer-event)")                       \
	X(HTTP_FILES, "http_files", "HTTP bodies tracked as files (fileinfo)")                    \
	X(HTTP_FILES_TRUNCATED, "http_files_truncated",                                           \
	  "HTTP files that ended before their body did (flow end, gap, parsing stopped)")         \
	X(SSH_FLOWS, "ssh_flows", "flows recognised as SSH")                                      \
	X(SSH_ENCRYPTED, "ssh_encrypted", "SSH sessions whose both sides reached NEWKEYS")        \
	X(SSH_LOGGED, "ssh_logged", "SSH sessions handed to the EVE writer")                      \
	X(SSH_MALFORMED, "ssh_malformed",                                                         \
	  "SSH directions no longer parsed: a bad banner or packet, or a packet over 256 KiB")    \
	X(SSH_GAP, "ssh_gap", "SSH directions no longer parsed: a gap in the stream")             \
	X(SMTP_FLOWS, "smtp_flows", "flows recognised as SMTP")                                   \
	X(SMTP_TX, "smtp_tx", "SMTP transactions (a session's mails, or its commands) parsed")    \
	X(SMTP_LOGGED, "smtp_logged", "SMTP transactions handed to the EVE writer")               \
	X(SMTP_STARTTLS, "smtp_starttls", "SMTP sessions no longer parsed: STARTTLS")             \
	X(SMTP_GAP, "smtp_gap", "SMTP directions no longer parsed: a gap in the stream")          \
	X(SMTP_MIME_FILES, "smtp_mime_files", "SMTP attachments (MIME parts) decoded as files")   \
	X(SMTP_MIME_FILES_OVER, "smtp_mime_files_over",                                           \
	  "SMTP attachments past the 16th of a mail, not kept")                                   \
	X(SMTP_MIME_LIMIT, "smtp_mime_limit",                                                     \
	  "SMTP attachments cut at the mail's limit (request-body-limit)")                        \
	X(SMTP_MIME_HDR_LONG, "smtp_mime_header_long", "MIME headers cut at 1 KiB (unfolded)")    \
	X(SMTP_MIME_DEPTH, "smtp_mime_depth", "MIME multiparts nested over 4 deep, read as one")  \
	X(FTP_FLOWS, "ftp_flows", "flows recognised as FTP control sessions")                     \
	X(FTP_TX, "ftp_tx", "FTP commands (and the server's greeting) parsed")                    \
	X(FTP_LOGGED, "ftp_logged", "FTP commands handed to the EVE writer")                      \
	X(FTP_GAP, "ftp_gap", "FTP directions no longer parsed: a gap in the stream")             \
	X(FTP_TLS, "ftp_auth_tls", "FTP sessions no longer parsed: AUTH TLS accepted")            \
	X(FTP_EXPECT, "ftp_data_expected",                                                        \
	  "data connections announced by PORT, EPRT or a 227/229 reply")                          \
	X(FTP_EXPECT_DROPPED, "ftp_data_expect_dropped",                                          \
	  "announced data connections given up: the table was full (oldest first) or expired")    \
	X(FTP_DATA_FLOWS, "ftp_data_flows", "flows recognised as FTP data connections")           \
	X(FTP_DATA_LOGGED, "ftp_data_logged", "FTP data connections handed to the EVE writer")    \
	X(SMB_FLOWS, "smb_flows", "flows recognised as SMB (NetBIOS session, SMB1, 2 or 3)")

#define MK_APP_CNT_ENUM(id, name, doc) MK_APP_CNT_##id,
enum mk_app_counter { MK_APP_COUNTERS(MK_APP_CNT_ENUM) MK_APP_CNT_MAX };
#undef MK_APP_CNT_ENUM

extern const char *const mk_app_counter_names[MK_APP_CNT_MAX];

struct mk_detect_tx;
struct mk_eve_http;
struct mk_eve_alert_opts;
struct mk_dns_msg;
struct mk_tls_info;
struct mk_ssh_info;
struct mk_smtp_tx;
struct mk_ftp_tx;
struct mk_ftp_data_info;
struct mk_eve_fileinfo;

/* Where the application layer hands over what it found (the worker). */
struct mk_app_ops {
	/* a transaction progressed (detect/detect.h: mk_detect_tx()) */
	void (*tx)(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx);
	/* an HTTP transaction is finished: its EVE facts (output/eve_http.h) */
	void (*http_log)(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_eve_http *h);
	/* a DNS message of transaction @tx_id (applayer/dns/dns_msg.h) */
	void (*dns_log)(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_dns_msg *m);
	/* a TLS session's facts, once encrypted or at the flow's end (applayer/tls/tls.h) */
	void (*tls_log)(void *ctx, struct mk_flow *f, const struct mk_tls_info *t);
	/* an SSH session's facts, once both sides are encrypted or at the flow's end; may be NULL */
	void (*ssh_log)(void *ctx, struct mk_flow *f, const struct mk_ssh_info *s);
	/* an SMTP transaction is finished (applayer/smtp/smtp.h); may be NULL */
	void (*smtp_log)(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_smtp_tx *t);
	/* an FTP command and its replies (applayer/ftp/ftp.h); may be NULL */
	void (*ftp_log)(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_ftp_tx *t);
	/* an ftp-data flow ends: the command and file of its transfer; may be NULL */
	void (*ftp_data_log)(void *ctx, struct mk_flow *f, const struct mk_ftp_data_info *d);
	/* a file (an HTTP body) of a finished transaction (output/eve_file.h); may be NULL */
	void (*file_log)(void *ctx, struct mk_flow *f, const struct mk_eve_http *h,
			 const struct mk_eve_fileinfo *file);
};

struct mk_app_thread;

/* 0 or -errno. @cfg NULL: the defaults. */
int mk_app_thread_new(const struct mk_app_cfg *cfg, const struct mk_app_ops *ops, void *ctx,
		      struct mk_app_thread **out);
void mk_app_thread_free(struct mk_app_thread *a);

/*
 * Reassembled bytes of @f travelling to the client (@to_client) or to the
 * server, in stream order; @gap: that many bytes were lost just before them
 * (0: none).
 */
void mk_app_stream(struct mk_app_thread *a, struct mk_flow *f, int to_client, const uint8_t *data,
		   uint32_t len, uint64_t gap, uint64_t ts_us);
/* A UDP payload of @f. */
void mk_app_udp(struct mk_app_thread *a, struct mk_flow *f, int to_client, const uint8_t *data,
		uint32_t len, uint64_t ts_us);
/* @f ends: its parsers see the end, its open transactions are finished and logged. */
void mk_app_flow_end(struct mk_app_thread *a, struct mk_flow *f, uint64_t ts_us);
/* Frees @f's state (after the alerts of its end were rendered). */
void mk_app_flow_free(struct mk_app_thread *a, struct mk_flow *f);
/* The packet is done: transactions finished during it may be freed. */
void mk_app_packet_end(struct mk_app_thread *a);

const uint64_t *mk_app_thread_counters(const struct mk_app_thread *a);
/*
 * Whether fileinfo records are written (the worker's log_files): files
 * started from now on get their digests (app-layer.protocols.http.file-hashes).
 */
void mk_app_set_files_logged(struct mk_app_thread *a, int on);

/* @f is an FTP session whose latest PORT or EPRT named another address than its client's. */
int mk_app_ftp_bounce(const struct mk_flow *f);

/*
 * The EVE object of transaction @tx of protocol @proto (an alert's) into @o
 * (its http, dns or tls; an HTTP transaction's facts are put in @http): 1,
 * or 0 when it has none.
 */
int mk_app_tx_eve(uint8_t proto, const void *tx, struct mk_eve_http *http,
		  struct mk_eve_alert_opts *o);

#endif /* MK_APPLAYER_H */
