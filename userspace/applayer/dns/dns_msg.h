/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One DNS message decoded (RFC 1035): the header, the questions, and the
 * answer and authority records with their data in presentation form, for
 * the EVE `dns` record and detection. A pure function of the bytes: no
 * allocation, no state; the flow glue (dns.c) pairs queries and answers.
 *
 * Names are decompressed with every pointer required to point before the
 * label that holds it (so no loop is possible) and at most
 * MK_DNS_JUMPS_MAX jumps, and stop at 255 bytes of wire form, as RFC 1035
 * limits them. Their labels are joined with '.' as the bytes are (no
 * escaping here: the EVE writer escapes), the root is "<root>".
 */
#ifndef MK_DNS_MSG_H
#define MK_DNS_MSG_H

#include <stddef.h>
#include <stdint.h>

#define MK_DNS_HDR_LEN 12
#define MK_DNS_NAME_MAX 256 /* a name in presentation form, with its NUL */
#define MK_DNS_DATA_MAX 256 /* rdata in presentation form, with its NUL (TXT is cut there) */
#define MK_DNS_JUMPS_MAX 32
#define MK_DNS_Q_MAX 4	   /* questions kept of a message */
#define MK_DNS_RR_MAX 128  /* answers kept of a message */
#define MK_DNS_AUTH_MAX 16 /* authority records kept */

/* Header flags (the 16 bits after the id). */
#define MK_DNS_QR 0x8000
#define MK_DNS_AA 0x0400
#define MK_DNS_TC 0x0200
#define MK_DNS_RD 0x0100
#define MK_DNS_RA 0x0080
#define MK_DNS_Z 0x0040
#define MK_DNS_AD 0x0020
#define MK_DNS_CD 0x0010
#define MK_DNS_OPCODE(flags) (((flags) >> 11) & 0xf)
#define MK_DNS_RCODE(flags) ((flags)&0xf)

enum mk_dns_rdata_kind {
	MK_DNS_RDATA_NONE = 0, /* not rendered (an unknown type): the record without rdata */
	MK_DNS_RDATA_TEXT,     /* data holds it (address, name, text) */
	MK_DNS_RDATA_SOA,      /* data holds mname, soa the numbers and rname */
	MK_DNS_RDATA_SRV,      /* data holds the target, srv the numbers */
};

struct mk_dns_soa {
	char rname[MK_DNS_NAME_MAX];
	uint32_t serial, refresh, retry, expire, minimum;
};

struct mk_dns_rr {
	char name[MK_DNS_NAME_MAX];
	uint16_t type, rclass;
	uint32_t ttl;
	uint8_t kind; /* enum mk_dns_rdata_kind */
	char data[MK_DNS_DATA_MAX];
	uint16_t data_len;
	union {
		struct mk_dns_soa soa;
		struct {
			uint16_t priority, weight, port;
		} srv;
	};
};

struct mk_dns_question {
	char name[MK_DNS_NAME_MAX];
	uint16_t name_len; /* bytes before the NUL */
	uint16_t type, qclass;
};

/* Why decoding stopped (struct mk_dns_msg fault), for the app-layer events. */
enum mk_dns_fault {
	MK_DNS_FAULT_NONE = 0,
	MK_DNS_FAULT_SHORT,	/* the message ends inside a record (or the header) */
	MK_DNS_FAULT_LOOP,	/* a name's pointer does not point back, or too many jumps */
	MK_DNS_FAULT_NAME_LONG, /* a name over 255 bytes */
	MK_DNS_FAULT_LABEL,	/* a label of an obsolete type */
};

/* The sections, where decoding stopped (struct mk_dns_msg fault_section). */
enum { MK_DNS_SEC_QUESTION = 0, MK_DNS_SEC_ANSWER, MK_DNS_SEC_AUTHORITY, MK_DNS_SEC_ADDITIONAL };

struct mk_dns_msg {
	uint16_t id, flags;
	uint8_t fault;				     /* enum mk_dns_fault */
	uint8_t fault_section;			     /* MK_DNS_SEC_*, with a fault */
	uint16_t qdcount, ancount, nscount, arcount; /* as the header says */
	uint16_t nq, nan, nns;			     /* kept below */
	struct mk_dns_question q[MK_DNS_Q_MAX];
	struct mk_dns_rr an[MK_DNS_RR_MAX];
	struct mk_dns_rr ns[MK_DNS_AUTH_MAX];
};

/* How a message decoded. */
enum mk_dns_result {
	MK_DNS_OK = 0,	     /* every record the header counts, and nothing after them */
	MK_DNS_TRAILING,     /* every record, then bytes that belong to none (kept: OK otherwise) */
	MK_DNS_TRUNCATED,    /* the message ends inside a record: what came before is kept */
	MK_DNS_BAD_NAME,     /* a name loops, jumps forward, is too long or has a bad label */
	MK_DNS_SHORT_HEADER, /* fewer than 12 bytes: nothing is kept */
};

/*
 * Decodes the message @p of @len bytes into @m (the additional section is
 * counted, not decoded). Returns an enum mk_dns_result; on anything but
 * MK_DNS_SHORT_HEADER the header and the records before the fault are in @m.
 */
int mk_dns_decode(const uint8_t *p, size_t len, struct mk_dns_msg *m);

/* "A", "AAAA", "CNAME", ...; NULL for a type without a name here. */
const char *mk_dns_type_name(uint16_t type);
/* "NOERROR", "NXDOMAIN", ...; NULL for a code without a name here. */
const char *mk_dns_rcode_name(uint8_t rcode);

#endif /* MK_DNS_MSG_H */
