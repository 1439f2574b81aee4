// SPDX-License-Identifier: GPL-2.0-only
/* SMTP: commands, the message's end, reply codes, transactions (smtp.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "app_line.h"
#include "detect.h"
#include "detect_buf.h"
#include "eve_file.h"
#include "smtp.h"

enum { C_CMD, C_DATA, C_BDAT, C_DEAD };

struct mk_smtp_flow {
	struct mk_app_line line[2]; /* [to_client] */
	uint8_t cstate;		    /* the client's: C_* */
	uint8_t sdead;		    /* the server's direction is no longer parsed */
	uint8_t data_bol;	    /* in the message: 0 mid-line, 1 at a line start, 2 "." */
	/*
	 * Replies pair with commands in order (the greeting first): the DATA
	 * command's reply is reply number data_reply; 0 when no DATA waits.
	 */
	uint64_t ncmd, nreply, data_reply;
	uint8_t bdat_last;     /* the BDAT chunk being skipped is the LAST one */
	uint8_t starttls;      /* the client asked for STARTTLS */
	uint64_t bdat_left;    /* bytes of the BDAT chunk still to come */
	char *helo;	       /* the session's, copied into each transaction */
	struct mk_smtp_tx *tx; /* open; NULL between them */
	uint64_t tx_id;	       /* transactions started so far */
};

/* The command at the start of @p; @name in upper case. */
static int cmd_is(const uint8_t *p, uint32_t len, const char *name)
{
	size_t n = strlen(name);

	return len >= n && !strncasecmp((const char *)p, name, n) &&
	       (len == n || p[n] == ' ' || p[n] == '\r' || p[n] == '\n' || p[n] == ':' ||
		name[n - 1] == ':');
}

int mk_smtp_probe_client(const uint8_t *p, uint32_t len)
{
	static const char *const first[] = { "EHLO", "HELO", "MAIL FROM:" };
	unsigned int i, n;
	int more = 0;

	for (i = 0; i < 3; i++) {
		n = (unsigned int)strlen(first[i]);
		if (len > n) {
			if (cmd_is(p, len, first[i]))
				return 1;
		} else if (!strncasecmp((const char *)p, first[i], len)) {
			more = 1;
		}
	}
	return more ? -1 : 0;
}

struct mk_smtp_flow *mk_smtp_flow_new(struct mk_app_thread *a)
{
	(void)a;
	return calloc(1, sizeof(struct mk_smtp_flow));
}

/* A transaction: its facts (first, so a struct mk_smtp_tx * is one of these) and detection's. */
struct smtp_tx {
	struct mk_smtp_tx pub;
	struct mk_detect_tx_state det;
	uint64_t id;	  /* its number in the flow */
	uint8_t progress; /* MK_BUF_SIDE_REQ: the envelope (at DATA, BDAT or the end); RESP: ended */
};

static void tx_free(struct mk_smtp_tx *t)
{
	uint32_t i;

	if (!t)
		return;
	free(t->helo);
	free(t->mail_from);
	for (i = 0; i < t->nrcpt; i++)
		free(t->rcpt_to[i]);
	mk_smtp_mime_free(t->mime);
	mk_detect_tx_state_free(&((struct smtp_tx *)t)->det);
	free(t);
}

/* The transaction reached the parts @bits: detection reads it. */
static void tx_progress(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_tx *t,
			int to_client, uint8_t bits)
{
	struct smtp_tx *w = (struct smtp_tx *)t;

	mk_app_tx_progress(a, f,
			   &(struct mk_detect_tx){ .app_proto = MK_APP_SMTP,
						   .to_client = (uint8_t)to_client,
						   .tx_id = w->id,
						   .tx = t,
						   .state = &w->det },
			   &w->progress, bits);
}

static int str_buf(const char *s, const uint8_t **data, uint32_t *len)
{
	if (!s)
		return 0;
	*data = (const uint8_t *)s;
	*len = (uint32_t)strlen(s);
	return 1;
}

int mk_smtp_tx_buffer(const void *tx, unsigned int id, uint32_t idx, const uint8_t **data,
		      uint32_t *len)
{
	const struct mk_smtp_tx *t = tx;

	switch (id) {
	case MK_BUF_SMTP_HELO:
		return !idx && str_buf(t->helo, data, len);
	case MK_BUF_SMTP_MAIL_FROM:
		return !idx && str_buf(t->mail_from, data, len);
	case MK_BUF_SMTP_RCPT_TO:
		return idx < t->nrcpt && str_buf(t->rcpt_to[idx], data, len);
	case MK_BUF_SMTP_FILE_DATA: {
		const struct mk_smtp_file *file = mk_smtp_mime_file(t->mime, idx);

		if (!file)
			return 0;
		*data = file->data ? file->data : (const uint8_t *)"";
		*len = file->len;
		return 1;
	}
	default:
		return 0;
	}
}

void mk_smtp_flow_free(struct mk_smtp_flow *s)
{
	if (!s)
		return;
	mk_app_line_free(&s->line[0]);
	mk_app_line_free(&s->line[1]);
	tx_free(s->tx);
	free(s->helo);
	free(s);
}

/* Attachments get a sha256 only when fileinfo records show it (it costs more than decoding). */
static int sha256_wanted(const struct mk_app_thread *a)
{
	return a->files_logged && (a->cfg.file_hashes & MK_APP_HASH_SHA256);
}

/* The mail's attachments: a fileinfo record each (without the http object, app_proto smtp). */
static void files_log(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_tx *t)
{
	const struct mk_smtp_file *file;
	struct mk_eve_fileinfo out;
	uint32_t i;

	if (!a->ops || !a->ops->file_log || !a->files_logged)
		return;
	for (i = 0; (file = mk_smtp_mime_file(t->mime, i)); i++) {
		memset(&out, 0, sizeof(out));
		out.app_proto = "smtp";
		out.filename.p = (const uint8_t *)file->name;
		out.filename.len = file->name ? (uint32_t)strlen(file->name) : 0;
		out.tx_id = ((struct smtp_tx *)t)->id;
		out.size = file->size;
		out.gaps = file->gaps;
		out.state = t->complete && file->complete && !file->gaps ? MK_EVE_FILE_CLOSED :
									   MK_EVE_FILE_TRUNCATED;
		memcpy(out.sha256, file->sha256, sizeof(out.sha256));
		a->ops->file_log(a->ctx, f, NULL, &out);
	}
}

/* The open transaction is finished: logged and freed. */
static void tx_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s)
{
	if (!s->tx)
		return;
	if (s->tx->mime)
		mk_smtp_mime_end(s->tx->mime, 0);
	/* the message (REQ_BODY) is complete, or will never be */
	tx_progress(a, f, s->tx, 0, MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY | MK_BUF_SIDE_RESP);
	if (a->ops->smtp_log) {
		a->ops->smtp_log(a->ctx, f, ((struct smtp_tx *)s->tx)->id, s->tx);
		a->cnt[MK_APP_CNT_SMTP_LOGGED]++;
	}
	files_log(a, f, s->tx);
	tx_free(s->tx);
	s->tx = NULL;
}

static struct mk_smtp_tx *tx_open(struct mk_app_thread *a, struct mk_smtp_flow *s)
{
	struct smtp_tx *w;

	if (s->tx)
		return s->tx;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->id = s->tx_id;
	s->tx = &w->pub;
	if (s->helo)
		s->tx->helo = strdup(s->helo);
	s->tx_id++;
	a->cnt[MK_APP_CNT_SMTP_TX]++;
	return s->tx;
}

/* The argument after @skip bytes, spaces trimmed, as a string (NUL bytes end it). */
static char *arg_dup(const uint8_t *p, uint32_t len, uint32_t skip)
{
	char *s;

	if (skip > len)
		skip = len;
	p += skip;
	len -= skip;
	while (len && (*p == ' ' || *p == '\t')) {
		p++;
		len--;
	}
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	s = malloc(len + 1);
	if (!s)
		return NULL;
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

static void client_line(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s,
			const uint8_t *p, uint32_t len)
{
	struct mk_smtp_tx *t;

	s->ncmd++;

	if (cmd_is(p, len, "RSET")) {
		tx_end(a, f, s); /* the mail is abandoned */
		return;
	}
	if (cmd_is(p, len, "MAIL FROM:") && s->tx && s->tx->mail_from)
		tx_end(a, f, s); /* a new mail without RSET */
	t = tx_open(a, s);
	if (!t)
		return;
	if (cmd_is(p, len, "HELO") || cmd_is(p, len, "EHLO")) {
		free(s->helo);
		s->helo = arg_dup(p, len, 4);
		free(t->helo);
		t->helo = s->helo ? strdup(s->helo) : NULL;
	} else if (cmd_is(p, len, "MAIL FROM:")) {
		free(t->mail_from);
		t->mail_from = arg_dup(p, len, 10);
	} else if (cmd_is(p, len, "RCPT TO:")) {
		if (t->nrcpt < MK_SMTP_RCPT_MAX)
			t->rcpt_to[t->nrcpt++] = arg_dup(p, len, 8);
		else
			t->rcpt_more++;
		if (t->nrcpt && !t->rcpt_to[t->nrcpt - 1])
			t->nrcpt--;
	} else if (cmd_is(p, len, "DATA")) {
		tx_progress(a, f, t, 0, MK_BUF_SIDE_REQ); /* the envelope is complete */
		t->data = 1;
		if (!t->mime)
			t->mime = mk_smtp_mime_new(a->cfg.request_body_limit, a->cnt, 1,
						   sha256_wanted(a));
		s->cstate = C_DATA;
		s->data_bol = 1;
		s->data_reply = s->ncmd + 1; /* after the greeting's and the earlier commands' */
	} else if (cmd_is(p, len, "BDAT")) {
		char num[24];
		uint32_t i, n = 0;

		for (i = 5; i < len && n + 1 < sizeof(num) && isdigit(p[i]); i++)
			num[n++] = (char)p[i];
		num[n] = '\0';
		tx_progress(a, f, t, 0, MK_BUF_SIDE_REQ);
		t->data = 1;
		if (!t->mime)
			t->mime = mk_smtp_mime_new(a->cfg.request_body_limit, a->cnt, 0,
						   sha256_wanted(a));
		s->bdat_left = strtoull(num, NULL, 10);
		s->bdat_last = len >= i + 5 && !strncasecmp((const char *)p + i, " LAST", 5);
		s->cstate = C_BDAT;
	} else if (cmd_is(p, len, "STARTTLS")) {
		/* what the client sends next is a TLS handshake */
		s->starttls = 1;
		s->cstate = C_DEAD;
	}
}

/* Message bytes after DATA: returns the bytes up to and with its end (".\r\n"), or all. */
static uint32_t data_bytes(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s,
			   const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		uint8_t c = p[i];

		if (s->data_bol == 2 && c == '\n') {
			s->cstate = C_CMD;
			if (s->tx && s->tx->mime) {
				/* the lone "." line stays unterminated: the decoder drops it */
				mk_smtp_mime_feed(s->tx->mime, p, i);
				mk_smtp_mime_end(s->tx->mime, 0);
			}
			if (s->tx)
				s->tx->complete = 1;
			tx_end(a, f, s);
			return i + 1;
		}
		if (c == '\n')
			s->data_bol = 1;
		else if (s->data_bol == 1 && c == '.')
			s->data_bol = 2;
		else if (!(s->data_bol == 2 && c == '\r'))
			s->data_bol = 0;
	}
	if (s->tx && s->tx->mime)
		mk_smtp_mime_feed(s->tx->mime, p, len);
	return len;
}

static void client_bytes(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s,
			 const uint8_t *p, uint32_t len)
{
	const uint8_t *line;
	uint32_t line_len, take;

	while (len && s->cstate != C_DEAD) {
		if (s->cstate == C_DATA) {
			take = data_bytes(a, f, s, p, len);
		} else if (s->cstate == C_BDAT) {
			take = s->bdat_left < len ? (uint32_t)s->bdat_left : len;
			s->bdat_left -= take;
			if (s->tx && s->tx->mime)
				mk_smtp_mime_feed(s->tx->mime, p, take);
			if (!s->bdat_left) {
				s->cstate = C_CMD;
				if (s->bdat_last) {
					if (s->tx && s->tx->mime)
						mk_smtp_mime_end(s->tx->mime, 1);
					if (s->tx)
						s->tx->complete = 1;
					tx_end(a, f, s);
				}
			}
		} else {
			int r = mk_app_line_next(&s->line[0], &p, &len, &line, &line_len);

			if (r < 0)
				s->cstate = C_DEAD;
			if (r > 0)
				client_line(a, f, s, line, line_len);
			continue;
		}
		p += take;
		len -= take;
	}
}

static void server_bytes(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s,
			 const uint8_t *p, uint32_t len)
{
	const uint8_t *line;
	uint32_t line_len;
	int r;

	while (!s->sdead && (r = mk_app_line_next(&s->line[1], &p, &len, &line, &line_len))) {
		uint16_t code;

		if (r < 0 || line_len < 3 || !isdigit(line[0]) || !isdigit(line[1]) ||
		    !isdigit(line[2]))
			continue;
		code = (uint16_t)((line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0'));
		if (s->tx)
			s->tx->last_code = code;
		if (line_len > 3 && line[3] == '-')
			continue; /* a multi-line reply goes on */
		if (++s->nreply == s->data_reply) {
			/* DATA refused: no message follows, the client's next line is a command */
			if (code != 354 && s->cstate == C_DATA && s->data_bol == 1) {
				s->cstate = C_CMD;
				if (s->tx)
					s->tx->data = 0;
			}
			s->data_reply = 0;
		}
		if (s->starttls && code == 220 && (line_len == 3 || line[3] == ' ')) {
			/* the session goes on in TLS */
			s->sdead = 1;
			a->cnt[MK_APP_CNT_SMTP_STARTTLS]++;
			tx_end(a, f, s);
		}
	}
}

void mk_smtp_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s, int to_client,
		  const uint8_t *data, uint32_t len, int gap)
{
	if (gap) {
		if (to_client && !s->sdead) {
			s->sdead = 1;
			a->cnt[MK_APP_CNT_SMTP_GAP]++;
		} else if (!to_client && s->cstate == C_DATA) {
			/* inside a message the commands resume after its end */
			s->data_bol = 0;
			if (s->tx && s->tx->mime)
				mk_smtp_mime_gap(s->tx->mime);
		} else if (!to_client && s->cstate != C_DEAD) {
			s->cstate = C_DEAD;
			a->cnt[MK_APP_CNT_SMTP_GAP]++;
		}
	}
	if (to_client)
		server_bytes(a, f, s, data, len);
	else
		client_bytes(a, f, s, data, len);
}

void mk_smtp_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_smtp_flow *s)
{
	tx_end(a, f, s);
}
