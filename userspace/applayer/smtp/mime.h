/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MIME structure of a mail (docs/applayer.md): the message's and each
 * part's headers (continuation lines unfolded), multipart boundaries (nested
 * up to MK_SMTP_MIME_DEPTH), base64 and quoted-printable bodies decoded
 * (7bit, 8bit, binary as they are). Every attachment (Content-Disposition
 * attachment, or a filename or name parameter) is a file whose decoded
 * bytes are kept up to the mail's limit. The SMTP parser feeds the message
 * as it arrives, split anywhere; lines are bounded, and every cut is
 * counted.
 */
#ifndef MK_SMTP_MIME_H
#define MK_SMTP_MIME_H

#include <stdint.h>

#define MK_SMTP_MIME_FILES 16	   /* attachments kept per mail; more are counted */
#define MK_SMTP_MIME_DEPTH 4	   /* boundaries open at once: nested multiparts */
#define MK_SMTP_MIME_LINE_MAX 4096 /* a longer body line is decoded in pieces */
#define MK_SMTP_MIME_HDR_MAX 1024  /* an unfolded header's bytes kept; the rest counted */
#define MK_SMTP_MIME_NAME_MAX 256  /* a file name's bytes kept */

/* An attachment. */
struct mk_smtp_file {
	char *name;	   /* its filename (or name) parameter; NULL if none */
	uint8_t *data;	   /* its decoded bytes, up to the mail's limit */
	uint32_t len, cap; /* in data, and its room */
	uint64_t size;	   /* decoded in all */
	uint8_t truncated; /* data holds less than size */
	uint8_t complete;  /* its part ended (a boundary, or the mail's end) */
	uint8_t gaps;	   /* bytes of it were lost (a gap in the stream) */
	char sha256[65]; /* of all its decoded bytes, lowercase hex; "" when not computed or gaps */
};

struct mk_smtp_mime;

/*
 * A mail's decoder: @limit decoded bytes kept over all its files; @cnt the
 * app-layer counters (MK_APP_CNT_SMTP_MIME_*); @unstuff: lines starting
 * with "." lose it (DATA; not BDAT); @sha256: each file's digest is
 * computed (for fileinfo records). NULL if out of memory.
 */
struct mk_smtp_mime *mk_smtp_mime_new(uint64_t limit, uint64_t *cnt, int unstuff, int sha256);
/* Message bytes, split anywhere. */
void mk_smtp_mime_feed(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len);
/*
 * Bytes of the message were lost: the line they cut is dropped, the open
 * file has gaps (and no digest).
 */
void mk_smtp_mime_gap(struct mk_smtp_mime *m);
/* The message ended; @flush: an unterminated last line is part of it (else dropped). */
void mk_smtp_mime_end(struct mk_smtp_mime *m, int flush);
/* Attachment @idx: NULL past the last one. */
const struct mk_smtp_file *mk_smtp_mime_file(const struct mk_smtp_mime *m, uint32_t idx);
uint32_t mk_smtp_mime_nfiles(const struct mk_smtp_mime *m);
void mk_smtp_mime_free(struct mk_smtp_mime *m);

#endif /* MK_SMTP_MIME_H */
