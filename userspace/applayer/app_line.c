// SPDX-License-Identifier: GPL-2.0-only
/* Lines of a text protocol out of a TCP direction's chunks (app_line.h). */
#include <stdlib.h>
#include <string.h>
#include "app_line.h"

static int hold(struct mk_app_line *l, const uint8_t *p, uint32_t n)
{
	uint32_t room;

	if (!l->buf) {
		l->buf = malloc(MK_APP_LINE_MAX);
		if (!l->buf)
			return -1;
	}
	room = MK_APP_LINE_MAX - l->len;
	if (n > room) {
		n = room;
		l->cut = 1;
	}
	memcpy(l->buf + l->len, p, n);
	l->len += n;
	return 0;
}

int mk_app_line_next(struct mk_app_line *l, const uint8_t **p, uint32_t *len, const uint8_t **line,
		     uint32_t *line_len)
{
	const uint8_t *nl = *len ? memchr(*p, '\n', *len) : NULL;
	uint32_t n;

	if (!nl) {
		if (*len && hold(l, *p, *len))
			return -1;
		*p += *len;
		*len = 0;
		return 0;
	}
	n = (uint32_t)(nl - *p);
	if (!l->len && !l->cut) {
		/* the whole line is in this chunk: no copy */
		*line = *p;
		*line_len = n;
	} else {
		if (hold(l, *p, n))
			return -1;
		*line = l->buf;
		*line_len = l->len;
		l->len = 0;
		l->cut = 0;
	}
	*p += n + 1;
	*len -= n + 1;
	if (*line_len && (*line)[*line_len - 1] == '\r')
		(*line_len)--;
	return 1;
}

void mk_app_line_reset(struct mk_app_line *l)
{
	l->len = 0;
	l->cut = 0;
}

void mk_app_line_free(struct mk_app_line *l)
{
	free(l->buf);
	l->buf = NULL;
	l->len = 0;
	l->cut = 0;
}
