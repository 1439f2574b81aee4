// SPDX-License-Identifier: GPL-2.0-only
/*
 * A mail's MIME decoder (mime.h). The bytes become lines (a body line longer
 * than MK_SMTP_MIME_LINE_MAX in pieces); a line is a boundary of an open
 * multipart, a header (of the message or of a part) or a body line, which
 * is decoded into the part's file when the part is an attachment.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nettle/sha2.h>
#include "applayer.h"
#include "mime.h"

enum { ENC_PLAIN, ENC_BASE64, ENC_QP };

#define BOUNDARY_MAX 128 /* RFC 2046 allows 70 */

struct mk_smtp_mime {
	uint64_t *cnt;
	uint64_t limit, kept; /* decoded bytes kept over all files, and the limit */
	uint8_t unstuff;
	uint8_t sha256;	       /* files get their digest */
	struct sha256_ctx sha; /* of the open file */
	uint8_t line[MK_SMTP_MIME_LINE_MAX];
	uint32_t line_len;
	uint8_t mid_line;  /* line[] continues a line already handed over in part */
	uint8_t drop_line; /* up to the next line break: the rest of a line a gap cut */
	uint8_t in_headers;
	char hdr[MK_SMTP_MIME_HDR_MAX]; /* the header being unfolded */
	uint32_t hdr_len;
	uint8_t hdr_long; /* counted */
	/* the current part's headers */
	uint8_t enc, attach, multi;
	char name[MK_SMTP_MIME_NAME_MAX];
	char boundary[BOUNDARY_MAX + 1];
	/* its body */
	int file; /* index in files; -1: not kept */
	uint8_t b64[4], nb64;
	uint8_t crlf_pending; /* the line break before the next line (not before a boundary) */
	char bound[MK_SMTP_MIME_DEPTH][BOUNDARY_MAX + 1];
	uint32_t nbound;
	struct mk_smtp_file files[MK_SMTP_MIME_FILES];
	uint32_t nfiles;
};

static void part_reset(struct mk_smtp_mime *m)
{
	m->enc = ENC_PLAIN;
	m->attach = 0;
	m->multi = 0;
	m->name[0] = '\0';
	m->boundary[0] = '\0';
	m->file = -1;
	m->nb64 = 0;
	m->crlf_pending = 0;
	m->hdr_len = 0;
}

struct mk_smtp_mime *mk_smtp_mime_new(uint64_t limit, uint64_t *cnt, int unstuff, int sha256)
{
	struct mk_smtp_mime *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->limit = limit;
	m->cnt = cnt;
	m->unstuff = (uint8_t) !!unstuff;
	m->sha256 = (uint8_t) !!sha256;
	m->in_headers = 1; /* the message's */
	part_reset(m);
	return m;
}

void mk_smtp_mime_free(struct mk_smtp_mime *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].name);
		free(m->files[i].data);
	}
	free(m);
}

uint32_t mk_smtp_mime_nfiles(const struct mk_smtp_mime *m)
{
	return m ? m->nfiles : 0;
}

const struct mk_smtp_file *mk_smtp_mime_file(const struct mk_smtp_mime *m, uint32_t idx)
{
	return m && idx < m->nfiles ? &m->files[idx] : NULL;
}

/* Decoded bytes of the current part's file: kept up to the mail's limit. */
static void file_add(struct mk_smtp_mime *m, const uint8_t *p, uint32_t n)
{
	struct mk_smtp_file *f;
	uint64_t room;
	uint32_t take, cap;
	uint8_t *d;

	if (m->file < 0 || !n)
		return;
	f = &m->files[m->file];
	f->size += n;
	if (m->sha256)
		sha256_update(&m->sha, n, p);
	room = m->limit - m->kept;
	take = n > room ? (uint32_t)room : n;
	if (take < n && !f->truncated) {
		f->truncated = 1;
		m->cnt[MK_APP_CNT_SMTP_MIME_LIMIT]++;
	}
	if (!take)
		return;
	if (f->len + take > f->cap) {
		cap = f->cap ? f->cap : 1024;
		while (cap < f->len + take)
			cap *= 2;
		d = realloc(f->data, cap);
		if (!d) {
			f->truncated = 1;
			return;
		}
		f->data = d;
		f->cap = cap;
	}
	memcpy(f->data + f->len, p, take);
	f->len += take;
	m->kept += take;
}

/* The value of parameter @key ("boundary") in a header's value, into @out. */
static int param_get(const char *v, const char *key, char *out, size_t outsz)
{
	size_t klen = strlen(key), n = 0;
	int quoted = 0;

	for (; *v; v++) {
		if (*v == '"') {
			quoted = !quoted;
			continue;
		}
		if (quoted || *v != ';')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		if (strncasecmp(v, key, klen))
			continue;
		v += klen;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v == '"') {
			for (v++; *v && *v != '"'; v++) {
				if (*v == '\\' && v[1])
					v++;
				if (n + 1 < outsz)
					out[n++] = *v;
			}
		} else {
			for (; *v && *v != ';' && *v != ' ' && *v != '\t'; v++)
				if (n + 1 < outsz)
					out[n++] = *v;
		}
		out[n] = '\0';
		return n > 0;
	}
	return 0;
}

/* A complete (unfolded) header of the message or a part. */
static void header_end(struct mk_smtp_mime *m)
{
	char *v;

	if (!m->hdr_len)
		return;
	m->hdr[m->hdr_len] = '\0';
	m->hdr_len = 0;
	v = strchr(m->hdr, ':');
	if (!v)
		return;
	*v++ = '\0';
	while (*v == ' ' || *v == '\t')
		v++;
	if (!strcasecmp(m->hdr, "Content-Type")) {
		if (!strncasecmp(v, "multipart/", 10))
			m->multi = 1;
		param_get(v, "boundary", m->boundary, sizeof(m->boundary));
		if (!m->name[0])
			param_get(v, "name", m->name, sizeof(m->name));
	} else if (!strcasecmp(m->hdr, "Content-Transfer-Encoding")) {
		if (!strncasecmp(v, "base64", 6))
			m->enc = ENC_BASE64;
		else if (!strncasecmp(v, "quoted-printable", 16))
			m->enc = ENC_QP;
	} else if (!strcasecmp(m->hdr, "Content-Disposition")) {
		if (!strncasecmp(v, "attachment", 10))
			m->attach = 1;
		param_get(v, "filename", m->name, sizeof(m->name));
	}
}

/* A header line (@cont: a continuation, or the rest of a cut line). */
static void header_line(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len)
{
	uint32_t room = MK_SMTP_MIME_HDR_MAX - 1 - m->hdr_len;

	if (len > room) {
		if (!m->hdr_long)
			m->cnt[MK_APP_CNT_SMTP_MIME_HDR_LONG]++;
		m->hdr_long = 1;
		len = room;
	}
	memcpy(m->hdr + m->hdr_len, p, len);
	m->hdr_len += len;
}

/* The headers ended: the part's body begins. */
static void body_start(struct mk_smtp_mime *m)
{
	struct mk_smtp_file *f;

	m->in_headers = 0;
	if (m->multi && m->boundary[0]) {
		if (m->nbound < MK_SMTP_MIME_DEPTH) {
			memcpy(m->bound[m->nbound++], m->boundary, sizeof(m->boundary));
			return; /* its preamble is not kept */
		}
		m->cnt[MK_APP_CNT_SMTP_MIME_DEPTH]++;
	}
	if (!m->attach && !m->name[0])
		return;
	if (m->nfiles == MK_SMTP_MIME_FILES) {
		m->cnt[MK_APP_CNT_SMTP_MIME_FILES_OVER]++;
		return;
	}
	f = &m->files[m->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = m->name[0] ? strdup(m->name) : NULL;
	m->file = (int)m->nfiles++;
	if (m->sha256)
		sha256_init(&m->sha);
	m->cnt[MK_APP_CNT_SMTP_MIME_FILES]++;
}

/* The current part ends (a boundary, the mail's end). */
static void part_end(struct mk_smtp_mime *m)
{
	if (m->in_headers)
		header_end(m);
	if (m->file >= 0) {
		struct mk_smtp_file *f = &m->files[m->file];
		uint8_t dg[SHA256_DIGEST_SIZE];
		unsigned int i;

		f->complete = 1;
		if (m->sha256 && !f->gaps) {
			sha256_digest(&m->sha, sizeof(dg), dg);
			for (i = 0; i < sizeof(dg); i++)
				snprintf(f->sha256 + 2 * i, 3, "%02x", dg[i]);
		}
	}
	part_reset(m);
}

/* A line starting with "--": 1 if it is a boundary of an open multipart. */
static int boundary_line(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len)
{
	uint32_t i, blen;

	for (i = m->nbound; i-- > 0;) {
		blen = (uint32_t)strlen(m->bound[i]);
		if (len < 2 + blen || memcmp(p + 2, m->bound[i], blen))
			continue;
		part_end(m);
		if (len >= 4 + blen && p[2 + blen] == '-' && p[3 + blen] == '-') {
			/* the multipart's end: its epilogue is not kept */
			m->nbound = i;
			m->in_headers = 0;
		} else {
			m->nbound = i + 1;
			m->in_headers = 1;
		}
		return 1;
	}
	return 0;
}

static int b64_value(uint8_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Base64 text, its quanta carried across lines; "=" ends one early. */
static void base64_line(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len)
{
	uint8_t out[MK_SMTP_MIME_LINE_MAX];
	uint32_t i, n = 0;
	int v;

	for (i = 0; i < len; i++) {
		if (p[i] == '=') {
			if (m->nb64 >= 2)
				out[n++] = (uint8_t)(m->b64[0] << 2 | m->b64[1] >> 4);
			if (m->nb64 == 3)
				out[n++] = (uint8_t)(m->b64[1] << 4 | m->b64[2] >> 2);
			m->nb64 = 0;
			continue;
		}
		v = b64_value(p[i]);
		if (v < 0)
			continue; /* spaces, and what is not base64 */
		m->b64[m->nb64++] = (uint8_t)v;
		if (m->nb64 == 4) {
			out[n++] = (uint8_t)(m->b64[0] << 2 | m->b64[1] >> 4);
			out[n++] = (uint8_t)(m->b64[1] << 4 | m->b64[2] >> 2);
			out[n++] = (uint8_t)(m->b64[2] << 6 | m->b64[3]);
			m->nb64 = 0;
		}
	}
	file_add(m, out, n);
}

static int hex_value(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (uint8_t)tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A quoted-printable line (@eol: it ends here): "=XX" a byte, "=" at its end a soft break. */
static void qp_line(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len, int eol)
{
	uint8_t out[MK_SMTP_MIME_LINE_MAX];
	uint32_t i, n = 0;
	int hi, lo, soft = 0;

	if (eol)
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
	for (i = 0; i < len; i++) {
		if (p[i] != '=') {
			out[n++] = p[i];
			continue;
		}
		if (i + 1 == len) {
			soft = 1;
			break;
		}
		hi = i + 2 < len ? hex_value(p[i + 1]) : -1;
		lo = i + 2 < len ? hex_value(p[i + 2]) : -1;
		if (hi < 0 || lo < 0) {
			out[n++] = '='; /* not an escape: as it is */
			continue;
		}
		out[n++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	file_add(m, out, n);
	m->crlf_pending = (uint8_t)(eol && !soft);
}

/* A line or a piece of one (@bol: its start, @eol: its end), without its line break. */
static void line(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len, int bol, int eol)
{
	if (bol && m->unstuff && len && p[0] == '.') {
		p++;
		len--;
	}
	if (bol && len >= 2 && p[0] == '-' && p[1] == '-' && boundary_line(m, p, len))
		return;
	if (m->in_headers) {
		if (bol && !len) {
			header_end(m);
			body_start(m);
		} else if (!bol || p[0] == ' ' || p[0] == '\t') {
			header_line(m, p, len); /* unfolded: the line break goes */
		} else {
			header_end(m);
			m->hdr_long = 0;
			header_line(m, p, len);
		}
		return;
	}
	if (m->file < 0)
		return;
	if (m->crlf_pending && m->enc != ENC_BASE64)
		file_add(m, (const uint8_t *)"\r\n", 2);
	m->crlf_pending = 0;
	if (m->enc == ENC_BASE64)
		base64_line(m, p, len);
	else if (m->enc == ENC_QP)
		qp_line(m, p, len, eol);
	else {
		file_add(m, p, len);
		m->crlf_pending = (uint8_t)eol;
	}
}

void mk_smtp_mime_feed(struct mk_smtp_mime *m, const uint8_t *p, uint32_t len)
{
	const uint8_t *nl;
	uint32_t n, take;

	while (len) {
		if (m->line_len == MK_SMTP_MIME_LINE_MAX && m->drop_line) {
			m->line_len = 0;
		} else if (m->line_len == MK_SMTP_MIME_LINE_MAX) {
			/* keep a trailing CR for the next piece: it may end the line */
			n = m->line[m->line_len - 1] == '\r' ? m->line_len - 1 : m->line_len;
			line(m, m->line, n, !m->mid_line, 0);
			memmove(m->line, m->line + n, m->line_len - n);
			m->line_len -= n;
			m->mid_line = 1;
		}
		nl = memchr(p, '\n', len);
		take = nl ? (uint32_t)(nl - p) : len;
		if (take > MK_SMTP_MIME_LINE_MAX - m->line_len) {
			take = MK_SMTP_MIME_LINE_MAX - m->line_len;
			nl = NULL; /* the line goes on past what fits */
		}
		memcpy(m->line + m->line_len, p, take);
		m->line_len += take;
		p += take;
		len -= take;
		if (!nl)
			continue;
		n = m->line_len;
		if (n && m->line[n - 1] == '\r')
			n--;
		if (!m->drop_line)
			line(m, m->line, n, !m->mid_line, 1);
		m->line_len = 0;
		m->mid_line = 0;
		m->drop_line = 0;
		p++; /* the '\n' */
		len--;
	}
}

void mk_smtp_mime_gap(struct mk_smtp_mime *m)
{
	/* what follows up to the next line break is the rest of a line lost in part */
	m->line_len = 0;
	m->mid_line = 0;
	m->drop_line = 1;
	if (m->file >= 0)
		m->files[m->file].gaps = 1;
}

void mk_smtp_mime_end(struct mk_smtp_mime *m, int flush)
{
	if (flush && m->line_len && !m->drop_line)
		line(m, m->line, m->line_len, !m->mid_line, 1);
	m->line_len = 0;
	part_end(m);
	m->nbound = 0;
}
