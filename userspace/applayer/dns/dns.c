// SPDX-License-Identifier: GPL-2.0-only
/* DNS over UDP and TCP: the flow glue (dns.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "detect.h"
#include "detect_buf.h"
#include "dns.h"
#include "dns_msg.h"

/* Queries waiting for their answer, per flow; the oldest gives way. */
#define PENDING_MAX 16
/* A TCP message is at most 65535 bytes, after its 2-byte length. */
#define TCP_MSG_MAX (2 + 65535)
/* Messages of one packet kept decoded for its alerts; later ones reuse the last. */
#define PACKET_MSGS_MAX 16

struct mk_dns_thread {
	/* the messages of the current packet (120 KB each: not on the stack), decoded into */
	struct mk_dns_msg *msgs[PACKET_MSGS_MAX];
	unsigned int nmsgs;
	uint64_t epoch; /* the packet (struct mk_app_thread epoch) they belong to */
	struct mk_dns_tx dtx[PACKET_MSGS_MAX];
	struct mk_dns_msg probe; /* a probe's decoding: kept for nothing */
};

struct dns_pending {
	uint16_t id;
	uint64_t tx;
	struct mk_detect_tx_state det; /* the rules the query was inspected with */
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

/* Where the next message of the current packet is decoded; NULL when out of memory. */
static struct mk_dns_msg *msg_slot(struct mk_app_thread *a, unsigned int *slot)
{
	struct mk_dns_thread *t = a->dns;
	unsigned int i;

	if (t->epoch != a->epoch) {
		t->epoch = a->epoch;
		t->nmsgs = 0;
	}
	i = t->nmsgs < PACKET_MSGS_MAX ? t->nmsgs : PACKET_MSGS_MAX - 1;
	if (!t->msgs[i]) {
		t->msgs[i] = malloc(sizeof(*t->msgs[i]));
		if (!t->msgs[i])
			return NULL;
	}
	if (t->nmsgs < PACKET_MSGS_MAX)
		t->nmsgs++;
	*slot = i;
	return t->msgs[i];
}

int mk_dns_probe(struct mk_app_thread *a, const uint8_t *p, uint32_t len, int tcp, int port_hint)
{
	struct mk_dns_msg *m = &a->dns->probe;
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
	unsigned int i;

	if (a->dns)
		for (i = 0; i < PACKET_MSGS_MAX; i++)
			free(a->dns->msgs[i]);
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
	unsigned int i;

	if (!d)
		return;
	for (i = 0; i < d->npending; i++)
		mk_detect_tx_state_free(&d->pending[i].det);
	free(d->tcp[0].buf);
	free(d->tcp[1].buf);
	free(d);
}

/*
 * The transaction a message belongs to: a query opens one, its answer (same
 * id) closes it. @det: the transaction's detection state, moved out of the
 * pending list for an answer (the caller frees it), or left in it for a query.
 */
static uint64_t tx_of(struct mk_app_thread *a, struct mk_dns_flow *d, const struct mk_dns_msg *m,
		      struct mk_detect_tx_state *det, struct mk_detect_tx_state **state)
{
	unsigned int i;
	uint64_t tx;

	memset(det, 0, sizeof(*det));
	*state = det;
	if (m->flags & MK_DNS_QR) {
		for (i = 0; i < d->npending; i++)
			if (d->pending[i].id == m->id) {
				tx = d->pending[i].tx;
				*det = d->pending[i].det;
				d->pending[i] = d->pending[--d->npending];
				return tx;
			}
		a->cnt[MK_APP_CNT_DNS_UNPAIRED]++;
		return d->next_tx++;
	}
	tx = d->next_tx++;
	if (d->npending == PENDING_MAX) {
		/* the oldest query never got its answer */
		mk_detect_tx_state_free(&d->pending[0].det);
		memmove(d->pending, d->pending + 1, sizeof(d->pending[0]) * (PENDING_MAX - 1));
		d->npending--;
	}
	d->pending[d->npending] = (struct dns_pending){ .id = m->id, .tx = tx };
	*state = &d->pending[d->npending++].det;
	return tx;
}

static const char *const ev_names[MK_DNS_EV_MAX] = {
#define MK_DNS_EV_NAME(id, name) name,
	MK_DNS_EVENTS(MK_DNS_EV_NAME)
#undef MK_DNS_EV_NAME
};

int mk_dns_event_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < MK_DNS_EV_MAX; i++)
		if (!strcmp(ev_names[i], name))
			return (int)i;
	return -1;
}

const char *mk_dns_event_name(unsigned int id)
{
	return id < MK_DNS_EV_MAX ? ev_names[id] : NULL;
}

uint32_t mk_dns_msg_events(const struct mk_dns_msg *m, int decoded, int to_client)
{
	uint32_t ev = 0;

	if (m->fault == MK_DNS_FAULT_LOOP)
		ev |= 1u << MK_DNS_EV_INFINITE_LOOP;
	else if (m->fault == MK_DNS_FAULT_NAME_LONG)
		ev |= 1u << MK_DNS_EV_NAME_TOO_LONG;
	if (m->fault && decoded)
		ev |= 1u
		      << (m->fault_section == MK_DNS_SEC_AUTHORITY ? MK_DNS_EV_INVALID_AUTHORITIES :
								     MK_DNS_EV_INVALID_ADDITIONALS);
	else if (m->fault)
		ev |= 1u << MK_DNS_EV_MALFORMED_DATA;
	if (!to_client && (m->flags & MK_DNS_QR))
		ev |= 1u << MK_DNS_EV_NOT_A_REQUEST;
	if (to_client && !(m->flags & MK_DNS_QR))
		ev |= 1u << MK_DNS_EV_NOT_A_RESPONSE;
	if (m->flags & MK_DNS_Z)
		ev |= 1u << MK_DNS_EV_Z_FLAG_SET;
	if (MK_DNS_OPCODE(m->flags) >= 7)
		ev |= 1u << MK_DNS_EV_INVALID_OPCODE;
	return ev;
}

/* Events and their counter. */
static uint32_t events(struct mk_app_thread *a, const struct mk_dns_msg *m, int decoded,
		       int to_client)
{
	uint32_t ev = mk_dns_msg_events(m, decoded, to_client);

	a->cnt[MK_APP_CNT_DNS_EVENTS] += (uint64_t)__builtin_popcount(ev);
	return ev;
}

/* Detection reads the message @dt; @state NULL: a transaction of its own (a malformed message). */
static void to_detect(struct mk_app_thread *a, struct mk_flow *f, int to_client,
		      struct mk_dns_tx *dt, struct mk_detect_tx_state *state)
{
	struct mk_detect_tx_state own = { 0 };
	/* a response holds its questions too: rules on both parts are read on it */
	struct mk_detect_tx t = {
		.app_proto = MK_APP_DNS,
		.progress = dt->to_client || to_client ? MK_BUF_SIDE_REQ | MK_BUF_SIDE_RESP :
							 MK_BUF_SIDE_REQ,
		.to_client = dt->to_client,
		.tx_id = dt->tx_id,
		.tx = dt,
		.state = state ? state : &own,
	};

	if (!a->ops->tx)
		return;
	a->ops->tx(a->ctx, f, &t);
	mk_detect_tx_state_free(&own);
}

static void message(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d,
		    int to_client, const uint8_t *p, uint32_t len)
{
	struct mk_detect_tx_state det, *state;
	struct mk_dns_tx *dt;
	struct mk_dns_msg *m;
	unsigned int slot;
	uint64_t tx;
	int r;

	m = msg_slot(a, &slot);
	if (!m) {
		a->cnt[MK_APP_CNT_DNS_MALFORMED]++;
		return;
	}
	r = mk_dns_decode(p, len, m);
	dt = &a->dns->dtx[slot];
	/* a fault past the answers (Suricata's invalid_authorities/additionals): the rest is good */
	if (r != MK_DNS_OK && r != MK_DNS_TRAILING &&
	    (r == MK_DNS_SHORT_HEADER || m->fault_section < MK_DNS_SEC_AUTHORITY)) {
		a->cnt[MK_APP_CNT_DNS_MALFORMED]++;
		/* a transaction of its own with the events, no records (as Suricata's) */
		m->nq = m->nan = m->nns = 0;
		*dt = (struct mk_dns_tx){ .m = m, .tx_id = d->next_tx++ };
		if (r == MK_DNS_SHORT_HEADER) {
			/* not even a header to read */
			m->id = m->flags = 0;
			dt->events = 1u << MK_DNS_EV_MALFORMED_DATA;
			a->cnt[MK_APP_CNT_DNS_EVENTS]++;
		} else {
			dt->to_client = !!(m->flags & MK_DNS_QR);
			dt->events = events(a, m, 0, to_client);
		}
		to_detect(a, f, to_client, dt, NULL);
		return;
	}
	a->cnt[m->flags & MK_DNS_QR ? MK_APP_CNT_DNS_ANSWERS : MK_APP_CNT_DNS_QUERIES]++;
	tx = tx_of(a, d, m, &det, &state);
	*dt = (struct mk_dns_tx){ .m = m,
				  .tx_id = tx,
				  .to_client = !!(m->flags & MK_DNS_QR),
				  .events = events(a, m, 1, to_client) };
	to_detect(a, f, to_client, dt, state);
	if (state == &det)
		mk_detect_tx_state_free(&det);
	if (a->ops->dns_log) {
		a->ops->dns_log(a->ctx, f, tx, m);
		a->cnt[MK_APP_CNT_DNS_LOGGED]++;
	}
}

void mk_dns_udp(struct mk_app_thread *a, struct mk_flow *f, struct mk_dns_flow *d, int to_client,
		const uint8_t *data, uint32_t len)
{
	message(a, f, d, !!to_client, data, len);
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
				message(a, f, d, !!to_client, data + 2, need - 2);
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
			message(a, f, d, !!to_client, t->buf + 2, t->len - 2);
			/* split messages are rare: hold no 64 KB between them */
			free(t->buf);
			t->buf = NULL;
			t->len = 0;
		}
	}
}
