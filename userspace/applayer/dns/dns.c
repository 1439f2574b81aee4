// SPDX-License-Identifier: GPL-2.0-only
/* DNS over UDP and TCP: the flow glue (dns.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dns.h"
#include "dns_msg.h"

/* Queries waiting for their answer, per flow; the oldest gives way. */
#define PENDING_MAX 16
/* A TCP message is at most 65535 bytes, after its 2-byte length. */
#define TCP_MSG_MAX (2 + 65535)

struct mk_dns_thread {
	struct mk_dns_msg msg; /* the message being decoded (120 KB: not on the stack) */
};

struct dns_pending {
	uint16_t id;
	uint64_t tx;
};

struct dns_tcp_dir {
	uint8_t *buf; /* a message's bytes so far, its length prefix first */
	uint32_t len;
	uint8_t dead; /* a gap: the length prefixes are lost */
};

struct mk_dns_flow {
	uint64_t next_tx;
	struct dns_pending pending[PENDING_MAX];
	unsigned int npending;
	struct dns_tcp_dir tcp[2]; /* [to_client] */
};

/* Header fields of a would-be message, checked as far as @len bytes of it go: 0 refuses. */
static int header_sane(const uint8_t *p, uint32_t len)
{
	uint16_t flags, qd;

	if (len < 4)
		return 1;
	flags = (uint16_t)(p[2] << 8 | p[3]);
	/* opcodes in use: query, iquery, status, notify, update */
	if (MK_DNS_OPCODE(flags) > 5 || MK_DNS_OPCODE(flags) == 3)
		return 0;
	if (len < 6)
		return 1;
	qd = (uint16_t)(p[4] << 8 | p[5]);
	if (qd > 16 || (!(flags & MK_DNS_QR) && !qd))
		return 0;
	if (len < MK_DNS_HDR_LEN)
		return 1;
	return (uint32_t)(p[6] << 8 | p[7]) + (uint32_t)(p[8] << 8 | p[9]) +
		       (uint32_t)(p[10] << 8 | p[11]) <=
	       1024;
}

int mk_dns_probe(struct mk_app_thread *a, const uint8_t *p, uint32_t len, int tcp, int port_hint)
{
	struct mk_dns_msg *m = &a->dns->msg;
	uint32_t mlen = len;

	if (tcp) {
		if (len < 2)
			return -1;
		mlen = (uint32_t)p[0] << 8 | p[1];
		if (mlen < MK_DNS_HDR_LEN)
			return 0;
		p += 2;
		len -= 2;
		if (len > mlen)
			len = mlen;
	}
	if (!header_sane(p, len))
		return 0;
	if (len < MK_DNS_HDR_LEN)
		return tcp ? -1 : 0;
	if (port_hint)
		return 1;
	if (len < mlen)
		return -1;
	/* no port to go by: the message must decode whole, one question as resolvers ask */
	return mk_dns_decode(p, len, m) == MK_DNS_OK && m->qdcount == 1;
}

int mk_dns_thread_new(struct mk_app_thread *a)
{
	a->dns = calloc(1, sizeof(*a->dns));
	return a->dns ? 0 : -ENOMEM;
}

void mk_dns_thread_free(struct mk_app_thread *a)
{
	free(a->dns);
	a->dns = NULL;
}

struct mk_dns_flow *mk_dns_flow_new(struct mk_app_thread *a)
{
	struct mk_dns_flow *d = calloc(1, sizeof(*d));

	if (!d)
		a->cnt[MK_APP_CNT_DNS_MALFORMED]++;
	return d;
}

void mk_dns_flow_free(struct mk_dns_flow *d)
{
	if (!d)
		return;
	free(d->tcp[0].buf);
	free(d->tcp[1].buf);
	free(d);
}

/* The transaction a message belongs to: a query opens one, its answer (same id) closes it. */
static uint64_t tx_of(struct mk_app_thread *a, struct mk_dns_flow *d, const struct mk_dns_msg *m)
{
	unsigned int i;
	uint64_t tx;

	if (m->flags & MK_DNS_QR) {
		for (i = 0; i < d->npending; i++)
			if (d->pending[i].id == m->id) {
				tx = d->pending[i].tx;
				d->pending[i] = d->pending[--d->npending];
				return tx;
			}
		a->cnt[MK_APP_CNT_DNS_UNPAIRED]++;
		return d->next_tx++;
	}
	tx = d->next_tx++;
	if (d->npending == PENDING_MAX) {
		/* the oldest query never got its answer */
		memmove(d->pending, d->pending + 1, sizeof(d->pending[0]) * (PENDING_MAX - 1));
		d->npending--;
	}
	d->pending[d->npending++] = (struct dns_pending){ .id = m->id, .tx = tx };
	return tx;
}

static void message(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d,
		    const uint8_t *p, uint32_t len)
{
	struct mk_dns_msg *m = &a->dns->msg;
	int r = mk_dns_decode(p, len, m);
	uint64_t tx;

	if (r != MK_DNS_OK && r != MK_DNS_TRAILING) {
		a->cnt[MK_APP_CNT_DNS_MALFORMED]++;
		return;
	}
	a->cnt[m->flags & MK_DNS_QR ? MK_APP_CNT_DNS_ANSWERS : MK_APP_CNT_DNS_QUERIES]++;
	tx = tx_of(a, d, m);
	if (a->ops->dns_log) {
		a->ops->dns_log(a->ctx, f, tx, m);
		a->cnt[MK_APP_CNT_DNS_LOGGED]++;
	}
}

void mk_dns_udp(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d, int to_client,
		const uint8_t *data, uint32_t len)
{
	(void)to_client;
	message(a, f, d, data, len);
}

void mk_dns_tcp(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d, int to_client,
		const uint8_t *data, uint32_t len, int gap)
{
	struct dns_tcp_dir *t = &d->tcp[!!to_client];

	if (gap && !t->dead) {
		t->dead = 1;
		a->cnt[MK_APP_CNT_DNS_GAP]++;
	}
	if (t->dead)
		return;
	while (len) {
		uint32_t need, take;

		if (!t->len && len >= 2) {
			/* a whole message in place: no copy */
			need = 2 + ((uint32_t)data[0] << 8 | data[1]);
			if (len >= need) {
				message(a, f, d, data + 2, need - 2);
				data += need;
				len -= need;
				continue;
			}
		}
		if (!t->buf) {
			t->buf = malloc(TCP_MSG_MAX);
			if (!t->buf) {
				t->dead = 1;
				a->cnt[MK_APP_CNT_DNS_MALFORMED]++;
				return;
			}
		}
		need = t->len < 2 ? 2 : 2 + ((uint32_t)t->buf[0] << 8 | t->buf[1]);
		take = need - t->len < len ? need - t->len : len;
		memcpy(t->buf + t->len, data, take);
		t->len += take;
		data += take;
		len -= take;
		if (t->len >= 2 && t->len == 2 + ((uint32_t)t->buf[0] << 8 | t->buf[1])) {
			message(a, f, d, t->buf + 2, t->len - 2);
			/* split messages are rare: hold no 64 KB between them */
			free(t->buf);
			t->buf = NULL;
			t->len = 0;
		}
	}
}
