// SPDX-License-Identifier: GPL-2.0-only
/* FTP control sessions, the expected data connections, ftpbounce (ftp.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "app_line.h"
#include "detect.h"
#include "detect_buf.h"
#include "ftp.h"

#define OPEN_MAX 32 /* commands waiting for their reply; the oldest is logged without */

struct mk_ftp_flow {
	struct mk_app_line line[2]; /* [to_client] */
	uint8_t dead[2];
	struct mk_ftp_tx *open[OPEN_MAX]; /* in order; [0] is the one being answered */
	uint32_t nopen;
	uint64_t tx_id;	  /* transactions started so far */
	char multi[4];	  /* the code of a multi-line reply in progress; "" if none */
	uint8_t auth_tls; /* AUTH TLS/SSL asked: a 234 ends the parsing */
	uint8_t replied;  /* the server sent a reply line */
	uint8_t has_exp;  /* exp_slot, exp_gen: the latest data connection announced */
	uint32_t exp_slot, exp_gen;
	uint8_t bounce; /* the latest PORT/EPRT's */
};

static int starts(const uint8_t *p, uint32_t len, const char *s)
{
	size_t n = strlen(s);

	return len >= n && !strncasecmp((const char *)p, s, n);
}

int mk_ftp_probe_client(const uint8_t *p, uint32_t len)
{
	static const char *const first[] = { "USER ", "AUTH TLS", "AUTH SSL", "FEAT",  "SYST",
					     "OPTS ", "PASS ",	  "PWD",      "TYPE ", "PASV",
					     "EPSV",  "PORT ",	  "EPRT ",    "LIST",  "CWD " };
	unsigned int i;
	int more = 0;

	for (i = 0; i < MK_ARRAY_SIZE(first); i++) {
		size_t n = strlen(first[i]);

		if (len >= n) {
			if (starts(p, len, first[i]) &&
			    (first[i][n - 1] == ' ' || len == n || p[n] == '\r' || p[n] == '\n' ||
			     p[n] == ' '))
				return len == n && first[i][n - 1] != ' ' ? -1 : 1;
		} else if (!strncasecmp((const char *)p, first[i], len)) {
			more = 1;
		}
	}
	return more ? -1 : 0;
}

int mk_ftp_smtp_probe_server(const uint8_t *p, uint32_t len)
{
	static const char g[] = "220";
	uint32_t n = len < 3 ? len : 3;

	if (memcmp(p, g, n))
		return 0;
	if (len < 4)
		return -1;
	return p[3] == ' ' || p[3] == '-' ? -1 : 0;
}

struct mk_ftp_flow *mk_ftp_flow_new(struct mk_app_thread *a)
{
	(void)a;
	return calloc(1, sizeof(struct mk_ftp_flow));
}

/* A command: its facts (first, so a struct mk_ftp_tx * is one of these) and detection's. */
struct ftp_tx {
	struct mk_ftp_tx pub;
	struct mk_detect_tx_state det;
	uint64_t id;	  /* its number in the flow */
	uint8_t progress; /* MK_BUF_SIDE_REQ: the command line; RESP: its final reply */
};

static void tx_free(struct mk_ftp_tx *t)
{
	uint32_t i;

	if (!t)
		return;
	free(t->command_data);
	for (i = 0; i < t->nreply; i++)
		free(t->reply[i]);
	mk_detect_tx_state_free(&((struct ftp_tx *)t)->det);
	free(t);
}

/* The command reached the parts @bits: detection reads it. */
static void tx_progress(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_tx *t,
			int to_client, uint8_t bits)
{
	struct ftp_tx *w = (struct ftp_tx *)t;

	mk_app_tx_progress(a, f,
			   &(struct mk_detect_tx){ .app_proto = MK_APP_FTP,
						   .to_client = (uint8_t)to_client,
						   .tx_id = w->id,
						   .tx = t,
						   .state = &w->det },
			   &w->progress, bits);
}

int mk_ftp_tx_buffer(const void *tx, unsigned int id, const uint8_t **data, uint32_t *len)
{
	const struct mk_ftp_tx *t = tx;

	switch (id) {
	case MK_BUF_FTP_COMMAND:
		if (!t->command[0])
			return 0;
		*data = (const uint8_t *)t->command;
		*len = (uint32_t)strlen(t->command);
		return 1;
	case MK_BUF_FTP_COMMAND_DATA:
		if (!t->command_data)
			return 0;
		*data = (const uint8_t *)t->command_data;
		*len = (uint32_t)strlen(t->command_data);
		return 1;
	default:
		return 0;
	}
}

void mk_ftp_flow_free(struct mk_ftp_flow *s)
{
	uint32_t i;

	if (!s)
		return;
	mk_app_line_free(&s->line[0]);
	mk_app_line_free(&s->line[1]);
	for (i = 0; i < s->nopen; i++)
		tx_free(s->open[i]);
	free(s);
}

int mk_ftp_flow_bounce(const struct mk_ftp_flow *s)
{
	return s && s->bounce;
}

/* The oldest open command is finished: logged, freed. */
static void tx_done(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s)
{
	struct mk_ftp_tx *t = s->open[0];

	if (!s->nopen)
		return;
	tx_progress(a, f, t, 1, MK_BUF_SIDE_REQ | MK_BUF_SIDE_RESP);
	if (a->ops->ftp_log) {
		a->ops->ftp_log(a->ctx, f, ((struct ftp_tx *)t)->id, t);
		a->cnt[MK_APP_CNT_FTP_LOGGED]++;
	}
	tx_free(t);
	memmove(s->open, s->open + 1, (s->nopen - 1) * sizeof(s->open[0]));
	s->nopen--;
}

static struct mk_ftp_tx *tx_new(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s)
{
	struct ftp_tx *w;
	struct mk_ftp_tx *t;

	if (s->nopen == OPEN_MAX)
		tx_done(a, f, s);
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->id = s->tx_id;
	t = &w->pub;
	s->open[s->nopen++] = t;
	s->tx_id++;
	a->cnt[MK_APP_CNT_FTP_TX]++;
	return t;
}

/* ---- expected data connections ------------------------------------------------------------ */

static void endpoint(const struct mk_flow *f, int server, uint32_t out[4])
{
	/* client_hi: the initiator is the key's hi endpoint */
	const uint32_t *a = (server ^ f->client_hi) ? f->key.addr_hi : f->key.addr_lo;

	memcpy(out, a, 16);
}

static void expect_add(struct mk_app_thread *a, struct mk_ftp_flow *s, const struct mk_flow *f,
		       int active, uint16_t port)
{
	struct mk_ftp_expect *x = a->ftp_expect;
	struct mk_ftp_expect_entry *e;

	if (!x || !port)
		return;
	e = &x->e[x->next];
	if (e->in_use) {
		a->cnt[MK_APP_CNT_FTP_EXPECT_DROPPED]++;
		x->n--;
	}
	memset(e, 0, sizeof(*e));
	/* passive: the client connects to the server; active: the server to the client */
	endpoint(f, !active, e->srv);
	endpoint(f, active, e->cli);
	e->port = htons(port);
	e->family = f->key.family;
	e->in_use = 1;
	e->gen = ++x->gen;
	e->expires_us = f->last_us + MK_FTP_EXPECT_US;
	s->has_exp = 1;
	s->exp_slot = x->next;
	s->exp_gen = e->gen;
	x->n++;
	x->next = (x->next + 1) % MK_FTP_EXPECT_MAX;
	a->cnt[MK_APP_CNT_FTP_EXPECT]++;
}

int mk_ftp_expect_match(struct mk_app_thread *a, struct mk_ftp_expect *x, const struct mk_flow *f,
			uint64_t now_us, uint32_t *slot, uint32_t *gen)
{
	const struct mk_flow_key *k = &f->key;
	uint32_t i;

	if (!x || !x->n || k->proto != 6)
		return 0;
	for (i = 0; i < MK_FTP_EXPECT_MAX; i++) {
		struct mk_ftp_expect_entry *e = &x->e[i];
		int lo;

		if (e->in_use != 1 || e->family != k->family)
			continue;
		if (now_us > e->expires_us) {
			e->in_use = 0;
			x->n--;
			a->cnt[MK_APP_CNT_FTP_EXPECT_DROPPED]++;
			continue;
		}
		lo = !memcmp(k->addr_lo, e->srv, 16) && k->port_lo == e->port &&
		     !memcmp(k->addr_hi, e->cli, 16);
		if (lo || (!memcmp(k->addr_hi, e->srv, 16) && k->port_hi == e->port &&
			   !memcmp(k->addr_lo, e->cli, 16))) {
			e->in_use = 2;
			*slot = i;
			*gen = e->gen;
			return 1;
		}
	}
	return 0;
}

void mk_ftp_data_end(struct mk_app_thread *a, struct mk_flow *f, uint32_t slot, uint32_t gen,
		     int log)
{
	struct mk_ftp_expect *x = a->ftp_expect;
	struct mk_ftp_expect_entry *e;

	if (!x || slot >= MK_FTP_EXPECT_MAX)
		return;
	e = &x->e[slot];
	if (e->in_use != 2 || e->gen != gen)
		return; /* the slot was taken by a newer announcement */
	if (log && a->ops->ftp_data_log) {
		a->ops->ftp_data_log(a->ctx, f, &e->info);
		a->cnt[MK_APP_CNT_FTP_DATA_LOGGED]++;
	}
	e->in_use = 0;
	x->n--;
}

/* A transfer command: the data connection announced last carries its file. */
static void expect_command(struct mk_app_thread *a, struct mk_ftp_flow *s,
			   const struct mk_ftp_tx *t)
{
	static const char *const xfer[] = { "RETR", "STOR", "APPE", "STOU", "LIST", "NLST", "MLSD" };
	struct mk_ftp_expect_entry *e;
	unsigned int i;

	if (!s->has_exp || !a->ftp_expect)
		return;
	for (i = 0; i < MK_ARRAY_SIZE(xfer) && strcmp(t->command, xfer[i]); i++)
		;
	e = &a->ftp_expect->e[s->exp_slot];
	if (i == MK_ARRAY_SIZE(xfer) || !e->in_use || e->gen != s->exp_gen || e->info.command[0])
		return;
	memcpy(e->info.command, t->command, strlen(xfer[i]) + 1);
	if (t->command_data && i < 4)
		snprintf(e->info.file, sizeof(e->info.file), "%s", t->command_data);
}

/* ---- commands and replies ----------------------------------------------------------------- */

/* Six comma-separated numbers at @p[i]: 0, or -1. */
static int hostport_at(const uint8_t *p, uint32_t len, uint32_t i, uint32_t *addr, uint16_t *port)
{
	unsigned int v[6], n = 0;
	uint8_t b[4];

	while (n < 6 && i < len && isdigit(p[i])) {
		unsigned int x = 0;

		while (i < len && isdigit(p[i]) && x <= 255)
			x = x * 10 + (unsigned int)(p[i++] - '0');
		if (x > 255)
			return -1;
		v[n++] = x;
		if (n < 6) {
			if (i >= len || p[i] != ',')
				return -1;
			i++;
		}
	}
	if (n != 6)
		return -1;
	for (i = 0; i < 4; i++)
		b[i] = (uint8_t)v[i];
	memcpy(addr, b, 4);
	*port = (uint16_t)(v[4] << 8 | v[5]);
	return 0;
}

int mk_ftp_parse_hostport(const uint8_t *p, uint32_t len, uint32_t *addr, uint16_t *port)
{
	uint32_t i;

	/* the first run of digits that starts six numbers ("227 ... (h1,...,p2)") */
	for (i = 0; i < len; i++)
		if (isdigit(p[i]) && (!i || !isdigit(p[i - 1])) &&
		    !hostport_at(p, len, i, addr, port))
			return 0;
	return -1;
}

/* EPRT |af|addr|port| into @addr (16 bytes) and @port; the family, or 0 if malformed. */
static int parse_eprt(const uint8_t *p, uint32_t len, uint32_t addr[4], uint16_t *port)
{
	char s[64];
	const uint8_t *f[4];
	uint32_t n = 0, i;
	unsigned long v;
	char d;

	if (!len)
		return 0;
	d = (char)p[0];
	for (i = 0; i < len && n < 4; i++)
		if (p[i] == (uint8_t)d)
			f[n++] = p + i;
	if (n < 4 || f[2] - f[1] - 1 <= 0 || f[2] - f[1] - 1 >= (long)sizeof(s) ||
	    f[3] - f[2] - 1 <= 0 || f[3] - f[2] - 1 > 5)
		return 0;
	memcpy(s, f[2] + 1, (size_t)(f[3] - f[2] - 1));
	s[f[3] - f[2] - 1] = '\0';
	for (i = 0; s[i]; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	v = strtoul(s, NULL, 10);
	if (!v || v > 65535)
		return 0;
	*port = (uint16_t)v;
	memcpy(s, f[1] + 1, (size_t)(f[2] - f[1] - 1));
	s[f[2] - f[1] - 1] = '\0';
	memset(addr, 0, 16);
	if (f[0][1] == '1' && f[1] - f[0] == 2 && inet_pton(AF_INET, s, addr) == 1)
		return 4;
	if (f[0][1] == '2' && f[1] - f[0] == 2 && inet_pton(AF_INET6, s, addr) == 1)
		return 6;
	return 0;
}

/* 229 ... (|||port|): the port, or 0. */
static uint16_t parse_epsv(const uint8_t *p, uint32_t len)
{
	const uint8_t *o = memchr(p, '(', len);
	uint32_t i, v = 0;
	uint8_t d;

	if (!o || (uint32_t)(p + len - o) < 6)
		return 0;
	i = (uint32_t)(o - p) + 1;
	d = p[i];
	if (p[i + 1] != d || p[i + 2] != d)
		return 0;
	for (i += 3; i < len && isdigit(p[i]) && v <= 65535; i++)
		v = v * 10 + (uint32_t)(p[i] - '0');
	return i < len && p[i] == d && v && v <= 65535 ? (uint16_t)v : 0;
}

static char *dup_text(const uint8_t *p, uint32_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

static void client_line(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s,
			const uint8_t *p, uint32_t len)
{
	struct mk_ftp_tx *t;
	uint32_t n = 0, arg, addr[4], client[4];
	uint16_t port;

	if (!len)
		return;
	t = tx_new(a, f, s);
	if (!t)
		return;
	while (n < len && p[n] != ' ' && n + 1 < sizeof(t->command)) {
		t->command[n] = (char)toupper(p[n]);
		if ((unsigned char)t->command[n] < 0x20 || (unsigned char)t->command[n] > 0x7e)
			t->command[n] = '?';
		n++;
	}
	t->command[n] = '\0';
	for (arg = n; arg < len && p[arg] != ' '; arg++)
		;
	while (arg < len && p[arg] == ' ')
		arg++;
	if (arg < len)
		t->command_data = dup_text(p + arg, len - arg);
	endpoint(f, 0, client);
	if (!strcmp(t->command, "PORT") && f->key.family == MK_FAMILY_IPV4 &&
	    !mk_ftp_parse_hostport(p + arg, len - arg, addr, &port)) {
		t->mode = MK_FTP_MODE_ACTIVE;
		t->dynamic_port = port;
		t->bounce = s->bounce = addr[0] != client[0];
		if (!t->bounce) /* a bounce's data connection goes to another host */
			expect_add(a, s, f, 1, port);
	} else if (!strcmp(t->command, "EPRT")) {
		int fam = parse_eprt(p + arg, len - arg, addr, &port);

		if (fam) {
			t->mode = MK_FTP_MODE_ACTIVE;
			t->dynamic_port = port;
			t->bounce = s->bounce = fam != f->key.family ||
						memcmp(addr, client, fam == 4 ? 4 : 16);
			if (!t->bounce)
				expect_add(a, s, f, 1, port);
		}
	} else if (!strcmp(t->command, "AUTH") && t->command_data &&
		   (!strncasecmp(t->command_data, "TLS", 3) ||
		    !strncasecmp(t->command_data, "SSL", 3))) {
		s->auth_tls = 1;
	} else {
		expect_command(a, s, t);
	}
	tx_progress(a, f, t, 0, MK_BUF_SIDE_REQ);
}

/* A reply line for the command being answered (or the greeting). */
static void server_line(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s,
			const uint8_t *p, uint32_t len)
{
	int has_code = len >= 3 && isdigit(p[0]) && isdigit(p[1]) && isdigit(p[2]) &&
		       (len == 3 || p[3] == ' ' || p[3] == '-');
	int final = 0, code = has_code ? (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0') : 0;
	struct mk_ftp_tx *t;
	uint32_t addr;
	uint16_t port;

	if (s->multi[0]) {
		/* a multi-line reply ends at its code followed by a space */
		if (has_code && !memcmp(p, s->multi, 3) && (len == 3 || p[3] == ' ')) {
			s->multi[0] = '\0';
			final = code >= 200;
		} else {
			has_code = 0;
		}
	} else if (has_code && len > 3 && p[3] == '-') {
		memcpy(s->multi, p, 3);
		s->multi[3] = '\0';
	} else if (has_code) {
		final = code >= 200;
	} else {
		return; /* not a reply */
	}
	if (!s->replied && (code == 220 || code == 120) && s->nopen) {
		/* the greeting, parsed after commands that were sent after it */
		t = tx_new(a, f, s);
		if (!t)
			return;
		memmove(s->open + 1, s->open, (s->nopen - 1) * sizeof(s->open[0]));
		s->open[0] = t;
	} else {
		t = s->nopen ? s->open[0] : tx_new(a, f, s); /* the greeting has no command */
		if (!t)
			return;
	}
	s->replied = 1;
	t->reply_received = 1;
	if (t->nreply < MK_FTP_REPLY_MAX) {
		uint32_t skip = has_code ? (len > 3 ? 4 : 3) : 0;

		t->reply[t->nreply] = dup_text(p + skip, len - skip);
		if (t->reply[t->nreply])
			t->nreply++;
		if (has_code) {
			memcpy(t->code[t->ncode], p, 3);
			t->code[t->ncode++][3] = '\0';
		}
	}
	if (code == 227 && !mk_ftp_parse_hostport(p + 4, len > 4 ? len - 4 : 0, &addr, &port)) {
		t->mode = MK_FTP_MODE_PASSIVE;
		t->dynamic_port = port;
		expect_add(a, s, f, 0, port);
	} else if (code == 229 && (port = parse_epsv(p, len))) {
		t->mode = MK_FTP_MODE_PASSIVE;
		t->dynamic_port = port;
		expect_add(a, s, f, 0, port);
	}
	if (!final || s->multi[0])
		return;
	if (code == 234 && s->auth_tls) {
		/* the session goes on in TLS */
		s->dead[0] = s->dead[1] = 1;
		a->cnt[MK_APP_CNT_FTP_TLS]++;
	}
	tx_done(a, f, s);
}

void mk_ftp_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s, int to_client,
		 const uint8_t *data, uint32_t len, int gap)
{
	const uint8_t *line;
	uint32_t line_len;
	int d = !!to_client, r;

	if (gap && !s->dead[d]) {
		s->dead[d] = 1;
		a->cnt[MK_APP_CNT_FTP_GAP]++;
	}
	while (!s->dead[d] && (r = mk_app_line_next(&s->line[d], &data, &len, &line, &line_len))) {
		if (r < 0) {
			s->dead[d] = 1;
			break;
		}
		if (d)
			server_line(a, f, s, line, line_len);
		else
			client_line(a, f, s, line, line_len);
	}
}

void mk_ftp_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s)
{
	while (s->nopen)
		tx_done(a, f, s);
}
