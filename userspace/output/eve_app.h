/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE records of the application protocols without transactions in
 * detection (ssh, smtp, ftp): each renders its object (eve_ssh.c,
 * eve_smtp.c, eve_ftp.c) and mk_eve_app_record() wraps it in the record:
 * the flow's head, `"tx_id"` when the protocol has transactions, the
 * object.
 */
#ifndef MK_EVE_APP_H
#define MK_EVE_APP_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "flow.h"

struct mk_ssh_info;
struct mk_smtp_tx;
struct mk_ftp_tx;

/* Renders an object (`"name":{...}`, no leading comma): its length, or -ENOSPC. */
typedef int (*mk_eve_app_object_fn)(char *buf, size_t size, const void *facts);

/*
 * The whole record of type @event_type; @tx_id < 0: none. Its length, or
 * -ENOSPC.
 */
int mk_eve_app_record(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		      uint64_t ts_us, const char *event_type, int64_t tx_id,
		      mk_eve_app_object_fn object, const void *facts);

/* `"ssh":{"client":{...},"server":{...}}` as Suricata's; a buffer size that always holds it. */
int mk_eve_ssh_object(char *buf, size_t size, const void *ssh_info);
size_t mk_eve_ssh_maxlen(const struct mk_ssh_info *s);
/* `"smtp":{"helo":...,"mail_from":...,"rcpt_to":[...]}` as Suricata's. */
int mk_eve_smtp_object(char *buf, size_t size, const void *smtp_tx);
size_t mk_eve_smtp_maxlen(const struct mk_smtp_tx *t);
/* `"ftp":{"command":...,"command_data":...,"reply":[...],"completion_code":[...],...}`. */
int mk_eve_ftp_object(char *buf, size_t size, const void *ftp_tx);
size_t mk_eve_ftp_maxlen(const struct mk_ftp_tx *t);
/* `"ftp_data":{"filename":...,"command":...}` (struct mk_ftp_data_info), as Suricata's. */
int mk_eve_ftp_data_object(char *buf, size_t size, const void *ftp_data_info);
#define MK_EVE_FTP_DATA_MAXLEN (6 * 256 + 128)

#endif /* MK_EVE_APP_H */
