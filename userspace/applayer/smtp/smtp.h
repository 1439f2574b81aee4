/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMTP over TCP (docs/applayer.md): the client's commands line by line
 * (HELO/EHLO, MAIL FROM, RCPT TO, DATA and the message up to its lone ".",
 * BDAT chunks, RSET, STARTTLS) and the server's reply codes. A transaction
 * is a mail (MAIL FROM to the end of its data, or RSET), or the session's
 * commands when no mail was sent; each is handed to the EVE writer when it
 * ends (or at the flow's end). STARTTLS accepted (220) ends the parsing.
 * The message goes through the MIME decoder (mime.h): its attachments are
 * file.data's instances and fileinfo records.
 */
#ifndef MK_SMTP_H
#define MK_SMTP_H

#include <stdint.h>
#include "applayer_int.h"
#include "mime.h"

#define MK_SMTP_RCPT_MAX 64 /* recipients kept per mail; more are counted */

/* What the EVE `smtp` record shows of a transaction. */
struct mk_smtp_tx {
	char *helo;	 /* HELO/EHLO's argument; NULL if none */
	char *mail_from; /* MAIL FROM's argument, with its <> */
	char *rcpt_to[MK_SMTP_RCPT_MAX];
	uint32_t nrcpt;		   /* kept in rcpt_to */
	uint32_t rcpt_more;	   /* recipients past MK_SMTP_RCPT_MAX */
	uint8_t data;		   /* a message (DATA or BDAT) was sent */
	uint8_t complete;	   /* its data ended ("." or BDAT LAST) */
	uint16_t last_code;	   /* the server's last reply code */
	struct mk_smtp_mime *mime; /* the message's MIME structure and files; NULL before DATA */
};

/*
 * The first command a client sends, which tells SMTP from FTP (both
 * servers greet with "220"): 1 an SMTP one (EHLO, HELO, MAIL FROM), 0 not,
 * -1 need more.
 */
int mk_smtp_probe_client(const uint8_t *p, uint32_t len);

struct mk_smtp_flow *mk_smtp_flow_new(struct mk_app_thread *a);
void mk_smtp_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s, int to_client,
		  const uint8_t *data, uint32_t len, int gap);
/* The flow ends: the open transaction is logged. */
void mk_smtp_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s);
void mk_smtp_flow_free(struct mk_smtp_flow *s);
/*
 * Buffer @id (detect_buf.h: MK_BUF_SMTP_*) of a transaction (@tx: its
 * struct mk_smtp_tx), instance @idx of smtp.rcpt_to and of file.data (the
 * attachments' decoded bytes): 1 and the bytes, or 0.
 */
int mk_smtp_tx_buffer(const void *tx, unsigned int id, uint32_t idx, const uint8_t **data,
		      uint32_t *len);

#endif /* MK_SMTP_H */
