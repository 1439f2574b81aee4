/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Lines of a text protocol (SMTP, FTP) out of a TCP direction's chunks: a
 * line may span chunks, so its first part is held (at most MK_APP_LINE_MAX
 * bytes; the rest of a longer line is dropped and the line marked cut).
 * A line ends at LF; a CR before it is removed.
 */
#ifndef MK_APP_LINE_H
#define MK_APP_LINE_H

#include <stdint.h>

#define MK_APP_LINE_MAX 4096u

struct mk_app_line {
	uint8_t *buf; /* the line so far (MK_APP_LINE_MAX bytes once allocated) */
	uint32_t len;
	uint8_t cut; /* longer than MK_APP_LINE_MAX: only its start is kept */
};

/*
 * Takes bytes from *@p (*@len left) up to the end of a line: 1 and the line
 * in *@line, *@line_len (valid until the next call), *@p and *@len past its
 * LF; 0 when every byte was taken and the line is not finished (held); -1
 * out of memory.
 */
int mk_app_line_next(struct mk_app_line *l, const uint8_t **p, uint32_t *len, const uint8_t **line,
		     uint32_t *line_len);
void mk_app_line_reset(struct mk_app_line *l);
void mk_app_line_free(struct mk_app_line *l);

#endif /* MK_APP_LINE_H */
