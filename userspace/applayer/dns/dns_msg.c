// SPDX-License-Identifier: GPL-2.0-only
/* One DNS message decoded (dns_msg.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "dns_msg.h"

struct cur {
	const uint8_t *p;
	size_t len, off;
	uint8_t fault; /* enum mk_dns_fault of a bad name */
};

static int get16(struct cur *c, uint16_t *v)
{
	if (c->len - c->off < 2)
		return -1;
	*v = (uint16_t)(c->p[c->off] << 8 | c->p[c->off + 1]);
	c->off += 2;
	return 0;
}

static int get32(struct cur *c, uint32_t *v)
{
	const uint8_t *p = c->p + c->off;

	if (c->len - c->off < 4)
		return -1;
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	c->off += 4;
	return 0;
}

/*
 * The name at @c->off into @out (NUL-terminated, "<root>" for the root);
 * @c->off moves past its wire form in place (a pointer counts 2 bytes).
 * MK_DNS_OK, MK_DNS_TRUNCATED or MK_DNS_BAD_NAME.
 */
static int get_name(struct cur *c, char *out, uint16_t *out_len)
{
	size_t pos = c->off, end = 0, n = 0, wire = 0;
	unsigned int jumps = 0;
	int jumped = 0;

	for (;;) {
		uint8_t l;

		if (pos >= c->len)
			return MK_DNS_TRUNCATED;
		l = c->p[pos];
		if ((l & 0xc0) == 0xc0) {
			size_t to;

			if (pos + 1 >= c->len)
				return MK_DNS_TRUNCATED;
			to = (size_t)(l & 0x3f) << 8 | c->p[pos + 1];
			/* only backwards, and not forever: no loop can form */
			if (to >= pos || ++jumps > MK_DNS_JUMPS_MAX) {
				c->fault = MK_DNS_FAULT_LOOP;
				return MK_DNS_BAD_NAME;
			}
			if (!jumped)
				end = pos + 2;
			jumped = 1;
			pos = to;
			continue;
		}
		if (l & 0xc0) { /* the 01 and 10 label types are obsolete */
			c->fault = MK_DNS_FAULT_LABEL;
			return MK_DNS_BAD_NAME;
		}
		wire += (size_t)l + 1;
		if (wire > 255) {
			c->fault = MK_DNS_FAULT_NAME_LONG;
			return MK_DNS_BAD_NAME;
		}
		if (!l) {
			pos++;
			break;
		}
		if (pos + 1 + l > c->len)
			return MK_DNS_TRUNCATED;
		if (n) /* wire <= 255 keeps n + 1 + l under MK_DNS_NAME_MAX */
			out[n++] = '.';
		memcpy(out + n, c->p + pos + 1, l);
		n += l;
		pos += (size_t)l + 1;
	}
	if (!n) {
		strcpy(out, "<root>");
		n = 6;
	}
	out[n] = '\0';
	if (out_len)
		*out_len = (uint16_t)n;
	c->off = jumped ? end : pos;
	return MK_DNS_OK;
}

/* rdata of @r (@rdlen bytes at @c->off) in presentation form; @c->off ends after it. */
static int get_rdata(struct cur *c, struct mk_dns_rr *r, uint16_t rdlen)
{
	struct cur d = { c->p, c->off + rdlen, c->off, 0 };
	size_t i, n;
	int err = MK_DNS_OK;

	r->kind = MK_DNS_RDATA_TEXT;
	switch (r->type) {
	case 1: /* A */
		if (rdlen != 4)
			goto none;
		inet_ntop(AF_INET, c->p + c->off, r->data, sizeof(r->data));
		break;
	case 28: /* AAAA */
		if (rdlen != 16)
			goto none;
		inet_ntop(AF_INET6, c->p + c->off, r->data, sizeof(r->data));
		break;
	case 2:	 /* NS */
	case 5:	 /* CNAME */
	case 12: /* PTR */
	case 39: /* DNAME */
		err = get_name(&d, r->data, NULL);
		break;
	case 15: /* MX: the exchange */
		d.off += 2;
		err = d.off > d.len ? MK_DNS_TRUNCATED : get_name(&d, r->data, NULL);
		break;
	case 16: /* TXT: the strings, one after the other */
		for (i = 0, n = 0; i < rdlen;) {
			size_t l = c->p[c->off + i];

			if (i + 1 + l > rdlen)
				return MK_DNS_TRUNCATED;
			if (n + l >= sizeof(r->data))
				l = sizeof(r->data) - 1 - n;
			memcpy(r->data + n, c->p + c->off + i + 1, l);
			n += l;
			i += (size_t)c->p[c->off + i] + 1;
		}
		r->data[n] = '\0';
		break;
	case 6: /* SOA */
		r->kind = MK_DNS_RDATA_SOA;
		err = get_name(&d, r->data, NULL);
		if (!err)
			err = get_name(&d, r->soa.rname, NULL);
		if (!err && (get32(&d, &r->soa.serial) || get32(&d, &r->soa.refresh) ||
			     get32(&d, &r->soa.retry) || get32(&d, &r->soa.expire) ||
			     get32(&d, &r->soa.minimum)))
			err = MK_DNS_TRUNCATED;
		break;
	case 33: /* SRV */
		r->kind = MK_DNS_RDATA_SRV;
		if (get16(&d, &r->srv.priority) || get16(&d, &r->srv.weight) ||
		    get16(&d, &r->srv.port))
			err = MK_DNS_TRUNCATED;
		else
			err = get_name(&d, r->data, NULL);
		break;
	default:
none:
		r->kind = MK_DNS_RDATA_NONE;
		r->data[0] = '\0';
	}
	if (err) {
		c->fault = d.fault;
		return err;
	}
	r->data_len = (uint16_t)strlen(r->data);
	c->off += rdlen;
	return MK_DNS_OK;
}

/* One resource record into @r (or only past it when @r is NULL). */
static int get_rr(struct cur *c, struct mk_dns_rr *r)
{
	struct mk_dns_rr skip;
	uint16_t rdlen;
	int err;

	if (!r)
		r = &skip;
	err = get_name(c, r->name, NULL);
	if (err)
		return err;
	if (get16(c, &r->type) || get16(c, &r->rclass) || get32(c, &r->ttl) || get16(c, &rdlen) ||
	    c->len - c->off < rdlen)
		return MK_DNS_TRUNCATED;
	if (r == &skip) {
		c->off += rdlen;
		return MK_DNS_OK;
	}
	return get_rdata(c, r, rdlen);
}

/* A fault in section @sec: recorded in @m, @err returned. */
static int fault(struct mk_dns_msg *m, const struct cur *c, int sec, int err)
{
	m->fault = err == MK_DNS_BAD_NAME && c->fault ? c->fault : MK_DNS_FAULT_SHORT;
	m->fault_section = (uint8_t)sec;
	return err;
}

int mk_dns_decode(const uint8_t *p, size_t len, struct mk_dns_msg *m)
{
	struct cur c = { p, len, 0, 0 };
	unsigned int i;
	int err;

	m->nq = m->nan = m->nns = 0;
	m->fault = MK_DNS_FAULT_NONE;
	m->fault_section = 0;
	if (len < MK_DNS_HDR_LEN) {
		m->fault = MK_DNS_FAULT_SHORT;
		return MK_DNS_SHORT_HEADER;
	}
	get16(&c, &m->id);
	get16(&c, &m->flags);
	get16(&c, &m->qdcount);
	get16(&c, &m->ancount);
	get16(&c, &m->nscount);
	get16(&c, &m->arcount);
	for (i = 0; i < m->qdcount; i++) {
		struct mk_dns_question q, *qp = i < MK_DNS_Q_MAX ? &m->q[m->nq] : &q;

		err = get_name(&c, qp->name, &qp->name_len);
		if (!err && (get16(&c, &qp->type) || get16(&c, &qp->qclass)))
			err = MK_DNS_TRUNCATED;
		if (err)
			return fault(m, &c, MK_DNS_SEC_QUESTION, err);
		if (qp != &q)
			m->nq++;
	}
	for (i = 0; i < m->ancount; i++) {
		err = get_rr(&c, i < MK_DNS_RR_MAX ? &m->an[m->nan] : NULL);
		if (err)
			return fault(m, &c, MK_DNS_SEC_ANSWER, err);
		if (i < MK_DNS_RR_MAX)
			m->nan++;
	}
	for (i = 0; i < m->nscount; i++) {
		err = get_rr(&c, i < MK_DNS_AUTH_MAX ? &m->ns[m->nns] : NULL);
		if (err)
			return fault(m, &c, MK_DNS_SEC_AUTHORITY, err);
		if (i < MK_DNS_AUTH_MAX)
			m->nns++;
	}
	for (i = 0; i < m->arcount; i++) {
		err = get_rr(&c, NULL);
		if (err)
			return fault(m, &c, MK_DNS_SEC_ADDITIONAL, err);
	}
	return c.off == len ? MK_DNS_OK : MK_DNS_TRAILING;
}

const char *mk_dns_type_name(uint16_t type)
{
	switch (type) {
	case 1:
		return "A";
	case 2:
		return "NS";
	case 5:
		return "CNAME";
	case 6:
		return "SOA";
	case 12:
		return "PTR";
	case 13:
		return "HINFO";
	case 15:
		return "MX";
	case 16:
		return "TXT";
	case 28:
		return "AAAA";
	case 33:
		return "SRV";
	case 35:
		return "NAPTR";
	case 39:
		return "DNAME";
	case 41:
		return "OPT";
	case 43:
		return "DS";
	case 46:
		return "RRSIG";
	case 47:
		return "NSEC";
	case 48:
		return "DNSKEY";
	case 50:
		return "NSEC3";
	case 64:
		return "SVCB";
	case 65:
		return "HTTPS";
	case 99:
		return "SPF";
	case 252:
		return "AXFR";
	case 255:
		return "ANY";
	case 257:
		return "CAA";
	default:
		return NULL;
	}
}

const char *mk_dns_rcode_name(uint8_t rcode)
{
	static const char *const names[] = { "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN",
					     "NOTIMP",	"REFUSED", "YXDOMAIN", "YXRRSET",
					     "NXRRSET", "NOTAUTH", "NOTZONE" };

	return rcode < sizeof(names) / sizeof(names[0]) ? names[rcode] : NULL;
}
