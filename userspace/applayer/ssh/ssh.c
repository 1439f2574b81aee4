// SPDX-License-Identifier: GPL-2.0-only
/* SSH: banners, binary packets up to NEWKEYS, HASSH (ssh.h). */
#include <stdlib.h>
#include <string.h>
#include "detect.h"
#include "detect_buf.h"
#include "ssh.h"
#include "tls_hello.h"

#define BANNER_MAX 512u		  /* a banner line held at most (RFC 4253: 255) */
#define PRE_BANNER_MAX (8u << 10) /* other lines a server may send before its banner */
#define PKT_MAX (256u << 10)	  /* a packet's length; more is not SSH */
#define KEXINIT_MAX (64u << 10)	  /* a KEXINIT held at most */

enum { MSG_KEXINIT = 20, MSG_NEWKEYS = 21 };
enum { ST_BANNER, ST_PKT_HDR, ST_PKT_BODY, ST_ENCRYPTED, ST_DEAD };

struct ssh_dir {
	uint8_t state;
	uint8_t line[BANNER_MAX];
	uint32_t line_len;
	uint32_t pre_banner; /* bytes of lines before the banner */
	uint8_t hdr[6];	     /* packet_length, padding_length, message type */
	uint8_t hdr_len;
	uint32_t pkt_left; /* bytes of the current packet after hdr still to come */
	uint8_t *kex;	   /* the KEXINIT being held (from its message type) */
	uint32_t kex_len, kex_want;
};

struct mk_ssh_flow {
	struct ssh_dir dir[2]; /* [to_client] */
	struct mk_ssh_info info;
	uint8_t logged;
	uint8_t progress; /* MK_BUF_SIDE_*: banners (REQ, RESP), KEXINITs (REQ_BODY, RESP_BODY) */
	struct mk_detect_tx_state det;
};

/*
 * The session (its one transaction) reached the parts @bits: a side's
 * banner, its KEXINIT (or the point where it can no longer come):
 * detection reads it.
 */
static void progress(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s,
		     int to_client, uint8_t bits)
{
	mk_app_tx_progress(a, f,
			   &(struct mk_detect_tx){ .app_proto = MK_APP_SSH,
						   .to_client = (uint8_t)to_client,
						   .tx = &s->info,
						   .state = &s->det },
			   &s->progress, bits);
}

/* Both parts of a side: what did not come will not. */
#define SIDE_ALL(to_client)                                                  \
	((to_client) ? (uint8_t)(MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY) : \
		       (uint8_t)(MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY))

int mk_ssh_probe(const uint8_t *p, uint32_t len)
{
	uint32_t n = len < 4 ? len : 4;

	if (memcmp(p, "SSH-", n))
		return 0;
	return len < 4 ? -1 : 1;
}

struct mk_ssh_flow *mk_ssh_flow_new(struct mk_app_thread *a)
{
	struct mk_ssh_flow *s = calloc(1, sizeof(*s));

	if (!s)
		a->cnt[MK_APP_CNT_SSH_MALFORMED]++;
	return s;
}

void mk_ssh_flow_free(struct mk_ssh_flow *s)
{
	if (!s)
		return;
	free(s->dir[0].kex);
	free(s->dir[1].kex);
	free(s->info.client.hassh);
	free(s->info.server.hassh);
	mk_detect_tx_state_free(&s->det);
	free(s);
}

static void log_session(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s)
{
	if (s->logged)
		return;
	s->logged = 1;
	if (a->ops->ssh_log) {
		a->ops->ssh_log(a->ctx, f, &s->info);
		a->cnt[MK_APP_CNT_SSH_LOGGED]++;
	}
}

static void dir_dead(struct mk_app_thread *a, struct ssh_dir *d, int counter)
{
	if (d->state == ST_DEAD)
		return;
	d->state = ST_DEAD;
	a->cnt[counter]++;
	free(d->kex);
	d->kex = NULL;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* name-list: a 4-byte length and the names; 0, or -1 past the end. */
static int name_list(const uint8_t *p, uint32_t len, uint32_t *off, const uint8_t **s, uint32_t *n)
{
	if (len - *off < 4)
		return -1;
	*n = be32(p + *off);
	*off += 4;
	if (*n > len - *off)
		return -1;
	*s = p + *off;
	*off += *n;
	return 0;
}

char *mk_ssh_hassh(const uint8_t *p, uint32_t len, int server)
{
	const uint8_t *l[10];
	uint32_t n[10], off = 17, i, total = 0;
	/* kex; enc c2s|s2c; mac c2s|s2c; cmp c2s|s2c */
	const unsigned int pick[4] = { 0, server ? 3u : 2u, server ? 5u : 4u, server ? 7u : 6u };
	char *out, *o;

	if (len < 17 || p[0] != MSG_KEXINIT)
		return NULL; /* type and the 16-byte cookie */
	for (i = 0; i < 10; i++)
		if (name_list(p, len, &off, &l[i], &n[i]))
			return NULL;
	for (i = 0; i < 4; i++)
		total += n[pick[i]] + 1;
	out = malloc(total);
	if (!out)
		return NULL;
	for (o = out, i = 0; i < 4; i++) {
		memcpy(o, l[pick[i]], n[pick[i]]);
		o += n[pick[i]];
		*o++ = i < 3 ? ';' : '\0';
	}
	/* names are printable ASCII; anything else is not kept as is */
	for (o = out; *o; o++)
		if ((unsigned char)*o < 0x20 || (unsigned char)*o > 0x7e)
			*o = '?';
	return out;
}

/* "SSH-protoversion-softwareversion[ comments]" without its line end; 0, or -1 if not one. */
static int banner(struct mk_ssh_side *side, const uint8_t *p, uint32_t len)
{
	const uint8_t *dash, *end;
	uint32_t n;

	if (len < 4 || memcmp(p, "SSH-", 4))
		return -1;
	p += 4;
	len -= 4;
	dash = memchr(p, '-', len);
	if (!dash)
		return -1;
	n = (uint32_t)(dash - p);
	if (!n || n >= MK_SSH_VERSION_MAX)
		return -1;
	memcpy(side->proto_version, p, n);
	side->proto_version[n] = '\0';
	p = dash + 1;
	len -= n + 1;
	for (end = p; end < p + len && *end != ' ' && *end != '\r' && *end != '\n'; end++)
		;
	n = (uint32_t)(end - p);
	if (n >= MK_SSH_VERSION_MAX)
		n = MK_SSH_VERSION_MAX - 1;
	memcpy(side->software_version, p, n);
	side->software_version[n] = '\0';
	side->has_banner = 1;
	return 0;
}

/* Banner bytes: lines until the one starting with "SSH-"; returns the bytes taken. */
static uint32_t banner_bytes(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s,
			     int to_client, const uint8_t *data, uint32_t len)
{
	struct ssh_dir *d = &s->dir[to_client];
	struct mk_ssh_side *side = to_client ? &s->info.server : &s->info.client;
	const uint8_t *nl = memchr(data, '\n', len);
	uint32_t take = nl ? (uint32_t)(nl - data) + 1 : len;

	if (d->line_len + take > BANNER_MAX) {
		dir_dead(a, d, MK_APP_CNT_SSH_MALFORMED);
		return len;
	}
	memcpy(d->line + d->line_len, data, take);
	d->line_len += take;
	if (!nl)
		return take;
	if (d->line_len >= 4 && !memcmp(d->line, "SSH-", 4)) {
		if (banner(side, d->line, d->line_len))
			dir_dead(a, d, MK_APP_CNT_SSH_MALFORMED);
		else
			d->state = ST_PKT_HDR;
		progress(a, f, s, to_client,
			 d->state == ST_DEAD ? SIDE_ALL(to_client) :
			 to_client	     ? MK_BUF_SIDE_RESP :
					       MK_BUF_SIDE_REQ);
	} else {
		/* RFC 4253 4.2: a server may send other lines first */
		d->pre_banner += d->line_len;
		if (!to_client || d->pre_banner > PRE_BANNER_MAX)
			dir_dead(a, d, MK_APP_CNT_SSH_MALFORMED);
	}
	d->line_len = 0;
	return take;
}

static void packet_start(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s,
			 int to_client)
{
	struct ssh_dir *d = &s->dir[to_client];
	uint32_t plen = be32(d->hdr);

	/* packet_length covers padding_length, the payload and the padding (>= 4) */
	if (plen < 6 || plen > PKT_MAX || d->hdr[4] < 4 || d->hdr[4] > plen - 2) {
		dir_dead(a, d, MK_APP_CNT_SSH_MALFORMED);
		return;
	}
	d->pkt_left = plen - 2;
	d->state = ST_PKT_BODY;
	if (d->hdr[5] == MSG_NEWKEYS) {
		/* what follows the packet is encrypted */
		d->state = ST_ENCRYPTED;
		progress(a, f, s, to_client, SIDE_ALL(to_client));
		if (s->dir[!to_client].state == ST_ENCRYPTED) {
			a->cnt[MK_APP_CNT_SSH_ENCRYPTED]++;
			log_session(a, f, s);
		}
		return;
	}
	if (d->hdr[5] == MSG_KEXINIT &&
	    !(to_client ? s->info.server.hassh : s->info.client.hassh) &&
	    plen - d->hdr[4] - 1 <= KEXINIT_MAX) {
		d->kex_want = plen - d->hdr[4] - 1; /* the payload, from its type */
		if (d->kex_want < 17) {
			/* not even the cookie: no HASSH from this side */
			a->cnt[MK_APP_CNT_SSH_MALFORMED]++;
			progress(a, f, s, to_client, SIDE_ALL(to_client));
			return;
		}
		free(d->kex);
		d->kex = malloc(d->kex_want);
		if (!d->kex) {
			dir_dead(a, d, MK_APP_CNT_SSH_MALFORMED);
			return;
		}
		d->kex[0] = MSG_KEXINIT;
		d->kex_len = 1;
	}
}

static void kexinit_done(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s,
			 int to_client)
{
	struct ssh_dir *d = &s->dir[to_client];
	struct mk_ssh_side *side = to_client ? &s->info.server : &s->info.client;

	side->hassh = mk_ssh_hassh(d->kex, d->kex_len, to_client);
	if (side->hassh)
		mk_tls_md5_hex(side->hassh, side->hassh_hash);
	else
		a->cnt[MK_APP_CNT_SSH_MALFORMED]++;
	free(d->kex);
	d->kex = NULL;
	progress(a, f, s, to_client, SIDE_ALL(to_client));
}

void mk_ssh_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s, int to_client,
		 const uint8_t *data, uint32_t len, int gap)
{
	struct ssh_dir *d;
	uint32_t take;

	to_client = !!to_client;
	d = &s->dir[to_client];
	if (gap && d->state != ST_ENCRYPTED)
		dir_dead(a, d, MK_APP_CNT_SSH_GAP);
	while (len && d->state != ST_DEAD && d->state != ST_ENCRYPTED) {
		switch (d->state) {
		case ST_BANNER:
			take = banner_bytes(a, f, s, to_client, data, len);
			break;
		case ST_PKT_HDR:
			take = sizeof(d->hdr) - d->hdr_len < len ? sizeof(d->hdr) - d->hdr_len :
								   len;
			memcpy(d->hdr + d->hdr_len, data, take);
			d->hdr_len += (uint8_t)take;
			if (d->hdr_len == sizeof(d->hdr)) {
				d->hdr_len = 0;
				packet_start(a, f, s, to_client);
			}
			break;
		default: /* ST_PKT_BODY */
			take = d->pkt_left < len ? d->pkt_left : len;
			if (d->kex && d->kex_len < d->kex_want) {
				uint32_t k = d->kex_want - d->kex_len < take ?
						     d->kex_want - d->kex_len :
						     take;

				memcpy(d->kex + d->kex_len, data, k);
				d->kex_len += k;
				if (d->kex_len == d->kex_want)
					kexinit_done(a, f, s, to_client);
			}
			d->pkt_left -= take;
			if (!d->pkt_left)
				d->state = ST_PKT_HDR;
			break;
		}
		data += take;
		len -= take;
	}
	if (d->state == ST_DEAD) /* what did not come will not */
		progress(a, f, s, to_client, SIDE_ALL(to_client));
}

void mk_ssh_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s)
{
	progress(a, f, s, 1, SIDE_ALL(0) | SIDE_ALL(1));
	if (s->info.client.has_banner || s->info.server.has_banner)
		log_session(a, f, s);
}
