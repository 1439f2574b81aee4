/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the application layer: the per-worker and per-flow state the
 * protocol folders share with applayer.c. Nothing outside applayer/ uses it.
 */
#ifndef MK_APPLAYER_INT_H
#define MK_APPLAYER_INT_H

#include <stdatomic.h>
#include "applayer.h"

/* Bytes a direction may hold before its protocol is known. */
#define MK_APP_PROBE_MAX 4096

struct mk_http_flow;
struct mk_http_thread;
struct mk_dns_flow;
struct mk_dns_thread;
struct mk_tls_flow;
struct mk_tls_thread;
struct mk_ssh_flow;
struct mk_smtp_flow;
struct mk_ftp_flow;
struct mk_ftp_expect;

struct mk_app_thread {
	struct mk_app_cfg cfg;
	const struct mk_app_ops *ops;
	void *ctx;
	uint64_t epoch; /* packets ended so far (mk_app_packet_end) */
	struct mk_http_thread *http;
	struct mk_dns_thread *dns;
	struct mk_tls_thread *tls;
	struct mk_ftp_expect *ftp_expect; /* data connections FTP sessions announced (ftp/ftp.h) */
	uint8_t files_logged; /* fileinfo records are written: HTTP files get their digests */
	uint64_t cnt[MK_APP_CNT_MAX];
};

/* Bytes seen in a direction before the protocol was decided. */
struct mk_app_probe {
	uint8_t *buf;
	uint32_t len;
	uint8_t verdict; /* 0: need more, 1: match, 2: no match */
	uint8_t proto;	 /* the match: enum mk_app_proto */
};

struct mk_app_flow {
	struct mk_app_probe probe[2]; /* [to_client] */
	struct mk_http_flow *http;
	struct mk_dns_flow *dns;
	struct mk_tls_flow *tls;
	struct mk_ssh_flow *ssh;
	struct mk_smtp_flow *smtp;
	struct mk_ftp_flow *ftp;
	uint8_t ftp_data; /* an ftp-data flow: its table entry (ftp/ftp.h) follows */
	uint32_t ftp_data_slot, ftp_data_gen;
};

struct mk_detect_tx;

/*
 * A transaction reached the parts @bits (MK_BUF_SIDE_*; *@progress holds
 * those it had): when one is new, *@progress gains it and detection reads
 * the transaction @dt describes (its progress set here).
 */
void mk_app_tx_progress(struct mk_app_thread *a, struct mk_flow *f, struct mk_detect_tx *dt,
			uint8_t *progress, uint8_t bits);

/* Memory of every flow's HTTP state, all workers (app-layer.protocols.http.memcap). */
extern _Atomic uint64_t mk_app_http_mem;

#endif /* MK_APPLAYER_INT_H */
