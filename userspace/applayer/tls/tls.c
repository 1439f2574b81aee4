// SPDX-License-Identifier: GPL-2.0-only
/* TLS over TCP: records, handshake messages, the session's facts (tls.h). */
#include <stdlib.h>
#include <string.h>
#include "detect.h"
#include "detect_buf.h"
#include "tls.h"

#define REC_HDR 5u
#define REC_MAX (16384u + 2048u) /* TLSCiphertext's bound */
#define HS_MAX (256u << 10)	 /* a handshake message (a certificate chain) held at most */

enum { CT_CCS = 20, CT_ALERT = 21, CT_HANDSHAKE = 22, CT_APPDATA = 23, CT_HEARTBEAT = 24 };
enum {
	HS_CLIENT_HELLO = 1,
	HS_SERVER_HELLO = 2,
	HS_CERTIFICATE = 11,
	HS_SERVER_HELLO_DONE = 14,
};

/*
 * The handshake types RFC 5246, RFC 8446 and their extensions define, 1 <<
 * type: 0-5 (hello_request to end_of_early_data), 8, 11-16, 20-25.
 */
#define HS_KNOWN (0x0000003fu | 1u << 8 | 0x0001f800u | 0x03f00000u)

struct tls_dir {
	uint8_t hdr[REC_HDR];
	uint8_t hdr_len;   /* bytes of the current record's header so far */
	uint32_t rec_left; /* bytes of the current record's body still to come */
	uint8_t *hs;	   /* handshake bytes not yet a whole message */
	uint32_t hs_len;
	uint8_t ccs;  /* ChangeCipherSpec sent: its handshake records are encrypted */
	uint8_t dead; /* malformed or a gap: not parsed any more */
};

struct mk_tls_flow {
	struct tls_dir dir[2]; /* [to_client] */
	struct mk_tls_info info;
	uint8_t hello[2];  /* ClientHello, ServerHello seen */
	uint8_t encrypted; /* application data seen: nothing more is parsed */
	uint8_t logged;
	/*
	 * MK_BUF_SIDE_*: ClientHello (REQ), ServerHello (RESP), the rest of the
	 * server's handshake (RESP_BODY: certificates, key exchange), the
	 * client's second flight (REQ_BODY: its key exchange)
	 */
	uint8_t progress;
	struct mk_detect_tx_state det;
};

int mk_tls_probe(const uint8_t *p, uint32_t len, int to_client)
{
	if (len < 1)
		return -1;
	if (!to_client && (p[0] & 0x80)) {
		/* SSLv2: a 2-byte length, CLIENT-HELLO, version 2 or 3.0/3.1 */
		if (len < 5)
			return -1;
		return p[2] == 1 && ((p[3] == 0 && p[4] == 2) || (p[3] == 3 && p[4] <= 3));
	}
	if (p[0] != CT_HANDSHAKE)
		return 0;
	if (len < 2)
		return -1;
	if (p[1] != 3)
		return 0;
	if (len < 3)
		return -1;
	if (p[2] > 4)
		return 0;
	if (len < 6)
		return -1;
	return p[5] == (to_client ? HS_SERVER_HELLO : HS_CLIENT_HELLO);
}

struct mk_tls_flow *mk_tls_flow_new(struct mk_app_thread *a)
{
	struct mk_tls_flow *t = calloc(1, sizeof(*t));

	if (!t)
		a->cnt[MK_APP_CNT_TLS_MALFORMED]++;
	return t;
}

void mk_tls_flow_free(struct mk_tls_flow *t)
{
	if (!t)
		return;
	free(t->dir[0].hs);
	free(t->dir[1].hs);
	free(t->info.ja3);
	free(t->info.ja3s);
	free(t->info.subject);
	free(t->info.issuer);
	free(t->info.serial);
	free(t->info.certs);
	mk_detect_tx_state_free(&t->det);
	free(t);
}

/*
 * The session (its one transaction) reached the parts @bits (MK_BUF_SIDE_*:
 * ClientHello REQ, ServerHello RESP, the server's certificates RESP_BODY,
 * done when they came or cannot come any more): detection reads it.
 */
static void progress(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t,
		     int to_client, uint8_t bits)
{
	mk_app_tx_progress(a, f,
			   &(struct mk_detect_tx){ .app_proto = MK_APP_TLS,
						   .to_client = (uint8_t)to_client,
						   .tx = &t->info,
						   .state = &t->det },
			   &t->progress, bits);
}

static void log_session(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t)
{
	if (t->logged)
		return;
	t->logged = 1;
	if (a->ops->tls_log) {
		a->ops->tls_log(a->ctx, f, &t->info);
		a->cnt[MK_APP_CNT_TLS_LOGGED]++;
	}
}

static const char *const ev_names[MK_TLS_EV_MAX] = {
#define MK_TLS_EV_NAME(id, name) name,
	MK_TLS_EVENTS(MK_TLS_EV_NAME)
#undef MK_TLS_EV_NAME
};

int mk_tls_event_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < MK_TLS_EV_MAX; i++)
		if (!strcmp(ev_names[i], name))
			return (int)i;
	return -1;
}

const char *mk_tls_event_name(unsigned int id)
{
	return id < MK_TLS_EV_MAX ? ev_names[id] : NULL;
}

static void event(struct mk_app_thread *a, struct mk_tls_flow *t, unsigned int ev)
{
	if (t->info.events & 1u << ev)
		return;
	t->info.events |= 1u << ev;
	a->cnt[MK_APP_CNT_TLS_EVENTS]++;
}

/* The direction is not parsed any more: its parts are as complete as they will be. */
static void dir_dead(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t,
		     int to_client, int counter)
{
	struct tls_dir *d = &t->dir[to_client];

	if (d->dead)
		return;
	d->dead = 1;
	a->cnt[counter]++;
	free(d->hs);
	d->hs = NULL;
	d->hs_len = 0;
	progress(a, f, t, to_client,
		 to_client ? MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY :
			     MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY);
}

static char *dup_ja3(const struct mk_tls_hello *h, int server, char hash[33])
{
	char *s = malloc(MK_TLS_JA3_MAX);
	char *r;

	if (!s)
		return NULL;
	mk_tls_ja3(h, server, s, MK_TLS_JA3_MAX);
	mk_tls_md5_hex(s, hash);
	r = realloc(s, strlen(s) + 1);
	return r ? r : s;
}

/* Certificate (TLS <= 1.2): a 3-byte list length, then 3-byte length + DER per certificate. */
static void certificates(struct mk_app_thread *a, struct mk_tls_flow *t, const uint8_t *p,
			 uint32_t len)
{
	struct mk_tls_info *info = &t->info;
	uint32_t total, off = 3, n;
	int cached = 0;

	if (len < 3)
		return;
	/* the DER of each, for tls.certs: one copy of the message, offsets into it */
	free(info->certs);
	info->certs = malloc(len);
	info->ncerts = 0;
	total = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	if (total > len - 3) {
		event(a, t, MK_TLS_EV_CERTIFICATE_INVALID_LENGTH);
		event(a, t, MK_TLS_EV_INVALID_CERTIFICATE);
		total = len - 3;
	}
	while (off + 3 <= total + 3) {
		n = (uint32_t)p[off] << 16 | (uint32_t)p[off + 1] << 8 | p[off + 2];
		off += 3;
		if (n > total + 3 - off) {
			event(a, t, MK_TLS_EV_CERTIFICATE_INVALID_LENGTH);
			event(a, t, MK_TLS_EV_INVALID_CERTIFICATE);
			break;
		}
		if (!t->info.chain && mk_tls_cert_cached(a->tls, p + off, n, &t->info, &cached)) {
			a->cnt[MK_APP_CNT_TLS_BAD_CERT]++;
			event(a, t, MK_TLS_EV_CERTIFICATE_INVALID_DER);
			event(a, t, MK_TLS_EV_INVALID_CERTIFICATE);
		}
		if (cached)
			a->cnt[MK_APP_CNT_TLS_CERT_CACHED]++;
		cached = 0;
		t->info.chain++;
		if (info->certs && info->ncerts < MK_TLS_CERTS_MAX) {
			uint32_t at = info->ncerts ? info->cert_off[info->ncerts] : 0;

			memcpy(info->certs + at, p + off, n);
			info->cert_off[info->ncerts] = at;
			info->cert_off[++info->ncerts] = at + n;
		}
		off += n;
	}
}

static void handshake(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t,
		      int to_client, uint8_t type, const uint8_t *body, uint32_t len)
{
	struct mk_tls_hello *h = &a->tls->hello;

	t->info.hs_seen[to_client] |= type < 31 && (HS_KNOWN >> type & 1) ? 1u << type :
									    MK_TLS_HS_UNKNOWN;
	if (type == HS_CLIENT_HELLO && !to_client && !t->hello[0]) {
		if (mk_tls_client_hello(body, len, h)) {
			a->cnt[MK_APP_CNT_TLS_MALFORMED]++;
			event(a, t, MK_TLS_EV_INVALID_HANDSHAKE_MESSAGE);
			progress(a, f, t, 0,
				 MK_BUF_SIDE_REQ); /* the hello is as read as it will be */
			return;
		}
		t->hello[0] = 1;
		if (h->sni_faults & MK_TLS_SNI_MULTIPLE)
			event(a, t, MK_TLS_EV_MULTIPLE_SNI);
		if (h->sni_faults & MK_TLS_SNI_TYPE)
			event(a, t, MK_TLS_EV_INVALID_SNI_TYPE);
		if (h->sni_faults & MK_TLS_SNI_LENGTH)
			event(a, t, MK_TLS_EV_INVALID_SNI_LENGTH);
		t->info.has_sni = h->has_sni;
		t->info.client_version = h->max_version;
		memcpy(t->info.sni, h->sni, (size_t)h->sni_len + 1);
		t->info.ja3 = dup_ja3(h, 0, t->info.ja3_hash);
		mk_tls_ja4(h, t->info.ja4);
		progress(a, f, t, 0, MK_BUF_SIDE_REQ);
	} else if (type == HS_SERVER_HELLO && to_client && !t->hello[1]) {
		if (mk_tls_server_hello(body, len, h)) {
			a->cnt[MK_APP_CNT_TLS_MALFORMED]++;
			event(a, t, MK_TLS_EV_INVALID_HANDSHAKE_MESSAGE);
			progress(a, f, t, 1, MK_BUF_SIDE_RESP);
			return;
		}
		t->hello[1] = 1;
		t->info.version = h->chosen_version;
		t->info.ja3s = dup_ja3(h, 1, t->info.ja3s_hash);
		progress(a, f, t, 1, MK_BUF_SIDE_RESP);
		/* TLS 1.3: everything after the ServerHello is encrypted (its certificates too) */
		if (h->chosen_version == 0x0304) {
			t->dir[0].ccs = t->dir[1].ccs = 1;
			progress(a, f, t, 1, MK_BUF_SIDE_RESP_BODY);
			progress(a, f, t, 0, MK_BUF_SIDE_REQ_BODY);
		}
	} else if (type == HS_CERTIFICATE && to_client && !t->info.chain) {
		certificates(a, t, body, len);
	} else if (type == HS_SERVER_HELLO_DONE && to_client) {
		/* the server's flight is over (its certificates and key exchange came, or none) */
		progress(a, f, t, 1, MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY);
	}
}

/* Handshake bytes of a record: whole messages are decoded, the rest held. */
static void handshake_bytes(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t,
			    int to_client, const uint8_t *p, uint32_t len)
{
	struct tls_dir *d = &t->dir[to_client];
	const uint8_t *q;
	uint32_t have, mlen;
	uint8_t *n;

	if (d->hs_len) {
		if (d->hs_len + len > HS_MAX + 4) {
			dir_dead(a, f, t, to_client, MK_APP_CNT_TLS_HS_LIMIT);
			return;
		}
		n = realloc(d->hs, d->hs_len + len);
		if (!n) {
			dir_dead(a, f, t, to_client, MK_APP_CNT_TLS_HS_LIMIT);
			return;
		}
		memcpy(n + d->hs_len, p, len);
		d->hs = n;
		d->hs_len += len;
		q = d->hs;
		have = d->hs_len;
	} else {
		q = p;
		have = len;
	}
	while (have >= 4) {
		mlen = (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
		if (mlen > HS_MAX) {
			event(a, t, MK_TLS_EV_HANDSHAKE_INVALID_LENGTH);
			dir_dead(a, f, t, to_client, MK_APP_CNT_TLS_HS_LIMIT);
			return;
		}
		if (have < 4 + mlen)
			break;
		handshake(a, f, t, to_client, q[0], q + 4, mlen);
		q += 4 + mlen;
		have -= 4 + mlen;
	}
	/* keep what is left (a message cut by the record or the segment) */
	if (have && q != d->hs) {
		n = malloc(have);
		if (!n) {
			dir_dead(a, f, t, to_client, MK_APP_CNT_TLS_HS_LIMIT);
			return;
		}
		memcpy(n, q, have);
		free(d->hs);
		d->hs = n;
	} else if (!have) {
		free(d->hs);
		d->hs = NULL;
	}
	d->hs_len = have;
}

/*
 * A heartbeat in the clear (RFC 6520), read when its record's first bytes
 * come together: its type must be a request or a response, and its
 * payload with the 16 bytes of padding must fit the record (Heartbleed asks
 * for more than it sends). An encrypted one is not read.
 */
static void heartbeat(struct mk_app_thread *a, struct mk_tls_flow *t, const struct tls_dir *d,
		      const uint8_t *p, uint32_t len)
{
	uint32_t rec = (uint32_t)d->hdr[3] << 8 | d->hdr[4];

	if (d->ccs || d->rec_left != rec || len < 3)
		return;
	if (p[0] != 1 && p[0] != 2)
		event(a, t, MK_TLS_EV_INVALID_HEARTBEAT);
	else if (3 + ((uint32_t)p[1] << 8 | p[2]) + 16 > rec)
		event(a, t, MK_TLS_EV_OVERFLOW_HEARTBEAT);
}

/* @len bytes of the current record's body. */
static void record_body(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t,
			int to_client, const uint8_t *p, uint32_t len)
{
	struct tls_dir *d = &t->dir[to_client];

	switch (d->hdr[0]) {
	case CT_HANDSHAKE:
		if (!d->ccs)
			handshake_bytes(a, f, t, to_client, p, len);
		break;
	case CT_CCS:
		d->ccs = 1;
		if (to_client && (t->progress & MK_BUF_SIDE_RESP))
			progress(a, f, t, 1, MK_BUF_SIDE_RESP_BODY);
		/* the client's flight (its key exchange) is over */
		if (!to_client && (t->progress & MK_BUF_SIDE_REQ))
			progress(a, f, t, 0, MK_BUF_SIDE_REQ_BODY);
		break;
	case CT_ALERT:
		/*
		 * an alert in the clear (2 bytes: an encrypted one has its tag too),
		 * whatever the keys: a TLS 1.3 client may send one after the ServerHello;
		 * none is seen once the session is encrypted (nothing is parsed then)
		 */
		if ((d->hdr[3] << 8 | d->hdr[4]) == 2)
			event(a, t, MK_TLS_EV_ERROR_MESSAGE);
		break;
	case CT_HEARTBEAT:
		event(a, t, MK_TLS_EV_HEARTBEAT);
		heartbeat(a, t, d, p, len);
		break;
	case CT_APPDATA:
		if (!t->encrypted) {
			t->encrypted = 1;
			a->cnt[MK_APP_CNT_TLS_ENCRYPTED]++;
			/* the handshake is over: what the server sent is all there is */
			if (t->progress & MK_BUF_SIDE_RESP)
				progress(a, f, t, to_client, MK_BUF_SIDE_RESP_BODY);
			if (t->progress & MK_BUF_SIDE_REQ)
				progress(a, f, t, to_client, MK_BUF_SIDE_REQ_BODY);
			log_session(a, f, t);
			if (a->cfg.tls_encryption == MK_TLS_ENC_BYPASS)
				f->app_bypass = 1;
			else if (a->cfg.tls_encryption == MK_TLS_ENC_DEFAULT)
				f->app_encrypted = 1;
		}
		break;
	default:
		break;
	}
}

void mk_tls_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t, int to_client,
		 const uint8_t *data, uint32_t len, int gap)
{
	struct tls_dir *d = &t->dir[!!to_client];

	to_client = !!to_client;
	if (gap)
		dir_dead(a, f, t, to_client, MK_APP_CNT_TLS_GAP);
	if (d->dead || t->encrypted)
		return;
	if (!to_client && !t->hello[0] && !d->hdr_len && !d->rec_left && len >= 5 &&
	    (data[0] & 0x80) && data[2] == 1) {
		/* an SSLv2 ClientHello: recognised, not parsed */
		t->info.sslv2 = 1;
		t->info.version = 0x0002;
		t->info.client_version = 0x0002;
		t->info.hs_seen[0] |= 1u << HS_CLIENT_HELLO;
		t->hello[0] = 1;
		d->dead = 1;
		progress(a, f, t, 0, MK_BUF_SIDE_REQ);
		return;
	}
	while (len && !d->dead && !t->encrypted) {
		uint32_t take;

		if (d->hdr_len < REC_HDR) {
			take = REC_HDR - d->hdr_len < len ? REC_HDR - d->hdr_len : len;
			memcpy(d->hdr + d->hdr_len, data, take);
			d->hdr_len += (uint8_t)take;
			data += take;
			len -= take;
			if (d->hdr_len < REC_HDR)
				return;
			d->rec_left = (uint32_t)d->hdr[3] << 8 | d->hdr[4];
			if (d->hdr[0] < CT_CCS || d->hdr[0] > CT_HEARTBEAT)
				event(a, t, MK_TLS_EV_INVALID_RECORD_TYPE);
			else if (d->hdr[1] != 3)
				event(a, t, MK_TLS_EV_INVALID_RECORD_VERSION);
			else if (d->rec_left > REC_MAX)
				event(a, t, MK_TLS_EV_INVALID_RECORD_LENGTH);
			if (d->hdr[0] < CT_CCS || d->hdr[0] > CT_HEARTBEAT || d->hdr[1] != 3 ||
			    d->rec_left > REC_MAX) {
				dir_dead(a, f, t, to_client, MK_APP_CNT_TLS_MALFORMED);
				return;
			}
			if (!d->rec_left) {
				d->hdr_len = 0;
				continue;
			}
		}
		take = d->rec_left < len ? d->rec_left : len;
		record_body(a, f, t, to_client, data, take);
		data += take;
		len -= take;
		d->rec_left -= take;
		if (!d->rec_left)
			d->hdr_len = 0;
	}
}

void mk_tls_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_tls_flow *t)
{
	/* every part is as complete as it will be */
	progress(a, f, t, 1, MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY);
	progress(a, f, t, 0, MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY);
	if (t->hello[0] || t->hello[1])
		log_session(a, f, t);
}
