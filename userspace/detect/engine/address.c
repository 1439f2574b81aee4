// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rule addresses and ports: any, IPv4/IPv6 addresses, CIDR (or dotted mask),
 * ranges a-b, lists [..] that nest, negation, and $VARIABLES from the
 * configuration's address-groups and port-groups (which may reference each
 * other). An expression becomes a set of sorted, merged ranges per family,
 * so a packet is matched with a binary search.
 *
 * Negation, as Suricata behaves: a list's negated entries are subtracted
 * from its positive ones; a list with only negated entries starts from every
 * address of the families those entries name. So !10.0.0.0/8 matches every
 * IPv4 address outside 10/8 and no IPv6 address, and [!10.0.0.0/8,
 * !2001:db8::/32] matches both families outside those networks.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

#define VAR_DEPTH_MAX 16

struct aset {
	struct mk_range4 *v4;
	struct mk_range6 *v6;
	uint32_t n4, n6, cap4, cap6;
	uint8_t m4, m6; /* family named (for negation) */
};

struct pset {
	struct mk_port_range *r;
	uint32_t n, cap;
};

struct aparse {
	const struct mk_detect_cfg *cfg;
	const char *s; /* cursor */
	char *err;
	size_t errlen;
	int depth;
	int ports;
};

__attribute__((format(printf, 2, 3))) static int fail(struct aparse *ap, const char *fmt, ...)
{
	va_list va;

	if (ap->err && !ap->err[0]) {
		va_start(va, fmt);
		vsnprintf(ap->err, ap->errlen, fmt, va);
		va_end(va);
	}
	return -1;
}

static int push4(struct aset *a, uint32_t lo, uint32_t hi)
{
	if (a->n4 == a->cap4) {
		uint32_t cap = a->cap4 ? a->cap4 * 2 : 4;
		struct mk_range4 *n = realloc(a->v4, cap * sizeof(*n));

		if (!n)
			return -1;
		a->v4 = n;
		a->cap4 = cap;
	}
	a->v4[a->n4].lo = lo;
	a->v4[a->n4++].hi = hi;
	return 0;
}

static int push6(struct aset *a, const uint8_t *lo, const uint8_t *hi)
{
	if (a->n6 == a->cap6) {
		uint32_t cap = a->cap6 ? a->cap6 * 2 : 4;
		struct mk_range6 *n = realloc(a->v6, cap * sizeof(*n));

		if (!n)
			return -1;
		a->v6 = n;
		a->cap6 = cap;
	}
	memcpy(a->v6[a->n6].lo, lo, 16);
	memcpy(a->v6[a->n6++].hi, hi, 16);
	return 0;
}

static void aset_free(struct aset *a)
{
	free(a->v4);
	free(a->v6);
	memset(a, 0, sizeof(*a));
}

static int cmp4(const void *x, const void *y)
{
	const struct mk_range4 *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int cmp6(const void *x, const void *y)
{
	return memcmp(((const struct mk_range6 *)x)->lo, ((const struct mk_range6 *)y)->lo, 16);
}

/* 128-bit helpers on network-order byte arrays. */
static void inc6(uint8_t *a)
{
	int i;

	for (i = 15; i >= 0; i--)
		if (++a[i])
			break;
}

static void dec6(uint8_t *a)
{
	int i;

	for (i = 15; i >= 0; i--)
		if (a[i]--)
			break;
}

static int is_max6(const uint8_t *a)
{
	int i;

	for (i = 0; i < 16; i++)
		if (a[i] != 0xff)
			return 0;
	return 1;
}

static int is_zero6(const uint8_t *a)
{
	int i;

	for (i = 0; i < 16; i++)
		if (a[i])
			return 0;
	return 1;
}

/* Sorts and merges overlapping or adjacent ranges. */
static void normalize(struct aset *a)
{
	uint32_t i, k;

	if (a->n4) {
		qsort(a->v4, a->n4, sizeof(*a->v4), cmp4);
		for (i = 1, k = 0; i < a->n4; i++) {
			if (a->v4[k].hi == UINT32_MAX || a->v4[i].lo <= a->v4[k].hi + 1) {
				if (a->v4[i].hi > a->v4[k].hi)
					a->v4[k].hi = a->v4[i].hi;
			} else {
				a->v4[++k] = a->v4[i];
			}
		}
		a->n4 = k + 1;
	}
	if (a->n6) {
		qsort(a->v6, a->n6, sizeof(*a->v6), cmp6);
		for (i = 1, k = 0; i < a->n6; i++) {
			uint8_t next[16];

			memcpy(next, a->v6[k].hi, 16);
			inc6(next);
			if (is_max6(a->v6[k].hi) || memcmp(a->v6[i].lo, next, 16) <= 0) {
				if (memcmp(a->v6[i].hi, a->v6[k].hi, 16) > 0)
					memcpy(a->v6[k].hi, a->v6[i].hi, 16);
			} else {
				a->v6[++k] = a->v6[i];
			}
		}
		a->n6 = k + 1;
	}
}

static int aset_union(struct aset *dst, const struct aset *src)
{
	uint32_t i;

	for (i = 0; i < src->n4; i++)
		if (push4(dst, src->v4[i].lo, src->v4[i].hi))
			return -1;
	for (i = 0; i < src->n6; i++)
		if (push6(dst, src->v6[i].lo, src->v6[i].hi))
			return -1;
	dst->m4 |= src->m4;
	dst->m6 |= src->m6;
	normalize(dst);
	return 0;
}

/* dst = a - b (both normalized). */
static int aset_subtract(struct aset *dst, const struct aset *a, const struct aset *b)
{
	uint32_t i, j;

	for (i = 0; i < a->n4; i++) {
		uint64_t lo = a->v4[i].lo, hi = a->v4[i].hi;

		for (j = 0; j < b->n4 && lo <= hi; j++) {
			uint64_t blo = b->v4[j].lo, bhi = b->v4[j].hi;

			if (bhi < lo || blo > hi)
				continue;
			if (blo > lo && push4(dst, (uint32_t)lo, (uint32_t)(blo - 1)))
				return -1;
			lo = bhi + 1;
		}
		if (lo <= hi && push4(dst, (uint32_t)lo, (uint32_t)hi))
			return -1;
	}
	for (i = 0; i < a->n6; i++) {
		uint8_t lo[16], hi[16];
		int done = 0;

		memcpy(lo, a->v6[i].lo, 16);
		memcpy(hi, a->v6[i].hi, 16);
		for (j = 0; j < b->n6 && !done; j++) {
			const uint8_t *blo = b->v6[j].lo, *bhi = b->v6[j].hi;

			if (memcmp(bhi, lo, 16) < 0 || memcmp(blo, hi, 16) > 0)
				continue;
			if (memcmp(blo, lo, 16) > 0) {
				uint8_t e[16];

				memcpy(e, blo, 16);
				dec6(e);
				if (push6(dst, lo, e))
					return -1;
			}
			if (memcmp(bhi, hi, 16) >= 0) {
				done = 1;
			} else {
				memcpy(lo, bhi, 16);
				inc6(lo);
			}
		}
		if (!done && push6(dst, lo, hi))
			return -1;
	}
	dst->m4 = a->m4;
	dst->m6 = a->m6;
	normalize(dst);
	return 0;
}

static int universe(struct aset *a, int v4, int v6)
{
	static const uint8_t z[16] = { 0 };
	uint8_t f[16];

	memset(f, 0xff, 16);
	if (v4 && push4(a, 0, UINT32_MAX))
		return -1;
	if (v6 && push6(a, z, f))
		return -1;
	a->m4 |= !!v4;
	a->m6 |= !!v6;
	return 0;
}

static void skip_ws(struct aparse *ap)
{
	while (*ap->s == ' ' || *ap->s == '\t')
		ap->s++;
}

static const char *var_value(const struct mk_detect_cfg *cfg, int ports, const char *name,
			     size_t len)
{
	const struct mk_detect_var *v;
	unsigned int n, i;

	if (!cfg)
		return NULL;
	v = ports ? cfg->port_vars : cfg->address_vars;
	n = ports ? cfg->nport_vars : cfg->naddress_vars;
	for (i = 0; i < n; i++)
		if (v[i].name && strlen(v[i].name) == len && !strncmp(v[i].name, name, len))
			return v[i].value;
	return NULL;
}

static int parse_list_a(struct aparse *ap, struct aset *out, char close);

/* One address: a.b.c.d[/n|/mask], v6[/n], a-b. */
static int parse_ip(struct aparse *ap, struct aset *out)
{
	char tok[128], lo_s[64], hi_s[64];
	const char *start = ap->s;
	size_t n = 0;
	char *slash, *dash;

	while (*ap->s && !strchr(",] \t", *ap->s) && n < sizeof(tok) - 1)
		tok[n++] = *ap->s++;
	tok[n] = '\0';
	if (!n)
		return fail(ap, "empty address in '%s'", start);
	if (*ap->s && !strchr(",] \t", *ap->s))
		return fail(ap, "address too long: '%.40s'", start);

	slash = strchr(tok, '/');
	dash = strchr(tok, '-');
	if (dash && !slash) {
		/* range a-b, same family */
		struct in6_addr a6, b6;
		struct in_addr a4, b4;

		*dash = '\0';
		snprintf(lo_s, sizeof(lo_s), "%s", tok);
		snprintf(hi_s, sizeof(hi_s), "%s", dash + 1);
		if (inet_pton(AF_INET, lo_s, &a4) == 1 && inet_pton(AF_INET, hi_s, &b4) == 1) {
			uint32_t l = ntohl(a4.s_addr), h = ntohl(b4.s_addr);

			if (l > h)
				return fail(ap, "address range '%s-%s' is reversed", lo_s, hi_s);
			out->m4 = 1;
			return push4(out, l, h);
		}
		if (inet_pton(AF_INET6, lo_s, &a6) == 1 && inet_pton(AF_INET6, hi_s, &b6) == 1) {
			if (memcmp(&a6, &b6, 16) > 0)
				return fail(ap, "address range '%s-%s' is reversed", lo_s, hi_s);
			out->m6 = 1;
			return push6(out, (uint8_t *)&a6, (uint8_t *)&b6);
		}
		return fail(ap, "bad address range '%s-%s'", lo_s, hi_s);
	}
	if (slash)
		*slash = '\0';
	{
		struct in_addr a4, m4;
		struct in6_addr a6;
		char *end;
		long pfx;

		if (inet_pton(AF_INET, tok, &a4) == 1) {
			uint32_t a = ntohl(a4.s_addr), mask = UINT32_MAX;

			if (slash) {
				if (strchr(slash + 1, '.')) {
					if (inet_pton(AF_INET, slash + 1, &m4) != 1)
						return fail(ap, "bad netmask '%s'", slash + 1);
					mask = ntohl(m4.s_addr);
					/* contiguous masks only */
					if (mask && (~mask & (~mask + 1)))
						return fail(ap, "netmask '%s' is not contiguous",
							    slash + 1);
				} else {
					errno = 0;
					pfx = strtol(slash + 1, &end, 10);
					if (errno || *end || end == slash + 1 || pfx < 0 ||
					    pfx > 32)
						return fail(ap, "bad IPv4 prefix length '/%s'",
							    slash + 1);
					mask = pfx ? UINT32_MAX << (32 - pfx) : 0;
				}
			}
			out->m4 = 1;
			return push4(out, a & mask, (a & mask) | ~mask);
		}
		if (inet_pton(AF_INET6, tok, &a6) == 1) {
			uint8_t lo[16], hi[16];
			int i;

			pfx = 128;
			if (slash) {
				errno = 0;
				pfx = strtol(slash + 1, &end, 10);
				if (errno || *end || end == slash + 1 || pfx < 0 || pfx > 128)
					return fail(ap, "bad IPv6 prefix length '/%s'", slash + 1);
			}
			for (i = 0; i < 16; i++) {
				int bits = (int)pfx - i * 8;
				uint8_t m = bits >= 8 ? 0xff :
					    bits <= 0 ? 0 :
							(uint8_t)(0xff << (8 - bits));

				lo[i] = a6.s6_addr[i] & m;
				hi[i] = lo[i] | (uint8_t)~m;
			}
			out->m6 = 1;
			return push6(out, lo, hi);
		}
	}
	return fail(ap, "'%s' is not an address", tok);
}

/* Leading '!'s: *@negated says whether there is an odd number of them. */
static void parse_negation(struct aparse *ap, int *negated)
{
	skip_ws(ap);
	*negated = 0;
	while (*ap->s == '!') {
		*negated = !*negated;
		ap->s++;
		skip_ws(ap);
	}
}

/*
 * The "$NAME" at ap->s: @sub parses its value one level deeper (a port
 * variable when @port). -1 with the error when it is not defined or nests
 * too deep.
 */
static int parse_var(struct aparse *ap, int port, struct aparse *sub)
{
	const char *what = port ? "port" : "address", *name = ++ap->s, *val;
	size_t len = 0;

	while (isalnum((unsigned char)name[len]) || name[len] == '_' || name[len] == '-')
		len++;
	if (!len)
		return fail(ap, "'$' without a variable name");
	ap->s = name + len;
	val = var_value(ap->cfg, port, name, len);
	if (!val)
		return fail(ap, "%s variable $%.*s is not defined", what, (int)len, name);
	if (ap->depth >= VAR_DEPTH_MAX)
		return fail(ap, "%s variable $%.*s: too deep (a loop?)", what, (int)len, name);
	*sub = *ap;
	sub->s = val;
	sub->depth = ap->depth + 1;
	return 0;
}

/* An element: [!] (any | $VAR | [list] | address). */
static int parse_elem_a(struct aparse *ap, struct aset *out, int *negated)
{
	parse_negation(ap, negated);
	if (*ap->s == '[') {
		ap->s++;
		return parse_list_a(ap, out, ']');
	}
	if (*ap->s == '$') {
		struct aparse sub;

		if (parse_var(ap, 0, &sub) || parse_list_a(&sub, out, '\0'))
			return -1;
		return 0;
	}
	if (!strncasecmp(ap->s, "any", 3) && (!ap->s[3] || strchr(",] \t", ap->s[3]))) {
		ap->s += 3;
		if (*negated)
			return fail(ap, "'!any' matches nothing");
		return universe(out, 1, 1);
	}
	return parse_ip(ap, out);
}

/*
 * A comma-separated list up to @close ('\0' at top level, where one element
 * without brackets is a list of one).
 */
static int parse_list_a(struct aparse *ap, struct aset *out, char close)
{
	struct aset pos = { 0 }, neg = { 0 }, tmp = { 0 };
	int npos = 0, nneg = 0, ret = -1;

	for (;;) {
		int negated;

		memset(&tmp, 0, sizeof(tmp));
		if (parse_elem_a(ap, &tmp, &negated))
			goto out;
		normalize(&tmp);
		if (negated) {
			nneg++;
			if (aset_union(&neg, &tmp))
				goto nomem;
		} else {
			npos++;
			if (aset_union(&pos, &tmp))
				goto nomem;
		}
		aset_free(&tmp);
		skip_ws(ap);
		if (*ap->s == ',') {
			ap->s++;
			continue;
		}
		if (*ap->s == close) {
			if (close)
				ap->s++;
			break;
		}
		if (!*ap->s) {
			fail(ap, "missing ']'");
			goto out;
		}
		fail(ap, "unexpected '%c' in address list", *ap->s);
		goto out;
	}
	if (!npos && universe(&pos, neg.m4, neg.m6))
		goto nomem;
	if (aset_subtract(out, &pos, &neg))
		goto nomem;
	out->m4 |= pos.m4 | neg.m4;
	out->m6 |= pos.m6 | neg.m6;
	ret = 0;
	goto out;
nomem:
	fail(ap, "out of memory");
out:
	aset_free(&tmp);
	aset_free(&pos);
	aset_free(&neg);
	return ret;
}

int mk_addr_parse(const struct mk_detect_cfg *cfg, const char *s, struct mk_addr_set *out,
		  char *err, size_t errlen)
{
	struct aparse ap = { .cfg = cfg, .s = s, .err = err, .errlen = errlen };
	struct aset a = { 0 };

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (parse_list_a(&ap, &a, '\0')) {
		aset_free(&a);
		return -1;
	}
	if (!a.n4 && !a.n6) {
		aset_free(&a);
		return fail(&ap, "address '%s' matches nothing", s);
	}
	out->any = a.n4 == 1 && a.v4[0].lo == 0 && a.v4[0].hi == UINT32_MAX && a.n6 == 1 &&
		   is_zero6(a.v6[0].lo) && is_max6(a.v6[0].hi);
	out->v4 = a.v4;
	out->n4 = a.n4;
	out->v6 = a.v6;
	out->n6 = a.n6;
	return 0;
}

void mk_addr_set_free(struct mk_addr_set *a)
{
	free(a->v4);
	free(a->v6);
	memset(a, 0, sizeof(*a));
}

bool mk_addr_match(const struct mk_addr_set *a, uint8_t family, const uint32_t *addr)
{
	uint32_t lo = 0, hi;

	if (a->any)
		return true;
	if (family == MK_FAMILY_IPV4) {
		uint32_t v = ntohl(addr[0]);

		hi = a->n4;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (a->v4[mid].hi < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < a->n4 && a->v4[lo].lo <= v;
	}
	if (family == MK_FAMILY_IPV6) {
		const uint8_t *v = (const uint8_t *)addr;

		hi = a->n6;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (memcmp(a->v6[mid].hi, v, 16) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < a->n6 && memcmp(a->v6[lo].lo, v, 16) <= 0;
	}
	return false;
}

/* ---- ports ------------------------------------------------------------------ */

static int pushp(struct pset *p, uint32_t lo, uint32_t hi)
{
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 4;
		struct mk_port_range *n = realloc(p->r, cap * sizeof(*n));

		if (!n)
			return -1;
		p->r = n;
		p->cap = cap;
	}
	p->r[p->n].lo = (uint16_t)lo;
	p->r[p->n++].hi = (uint16_t)hi;
	return 0;
}

static int cmpp(const void *x, const void *y)
{
	const struct mk_port_range *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static void normp(struct pset *p)
{
	uint32_t i, k;

	if (!p->n)
		return;
	qsort(p->r, p->n, sizeof(*p->r), cmpp);
	for (i = 1, k = 0; i < p->n; i++) {
		if ((uint32_t)p->r[i].lo <= (uint32_t)p->r[k].hi + 1) {
			if (p->r[i].hi > p->r[k].hi)
				p->r[k].hi = p->r[i].hi;
		} else {
			p->r[++k] = p->r[i];
		}
	}
	p->n = k + 1;
}

static int parse_list_p(struct aparse *ap, struct pset *out, char close);

static int parse_num_port(struct aparse *ap, uint32_t *v)
{
	uint32_t n = 0;
	int digits = 0;

	while (isdigit((unsigned char)*ap->s)) {
		n = n * 10 + (uint32_t)(*ap->s++ - '0');
		if (n > 65535)
			return fail(ap, "port above 65535");
		digits++;
	}
	if (!digits)
		return fail(ap, "'%.20s' is not a port", ap->s);
	*v = n;
	return 0;
}

static int parse_elem_p(struct aparse *ap, struct pset *out, int *negated)
{
	uint32_t lo, hi;

	parse_negation(ap, negated);
	if (*ap->s == '[') {
		ap->s++;
		return parse_list_p(ap, out, ']');
	}
	if (*ap->s == '$') {
		struct aparse sub;

		if (parse_var(ap, 1, &sub))
			return -1;
		return parse_list_p(&sub, out, '\0');
	}
	if (!strncasecmp(ap->s, "any", 3) && (!ap->s[3] || strchr(",] \t", ap->s[3]))) {
		ap->s += 3;
		if (*negated)
			return fail(ap, "'!any' matches nothing");
		return pushp(out, 0, 65535);
	}
	if (*ap->s == ':') {
		ap->s++;
		if (parse_num_port(ap, &hi))
			return -1;
		return pushp(out, 0, hi);
	}
	if (parse_num_port(ap, &lo))
		return -1;
	hi = lo;
	if (*ap->s == ':') {
		ap->s++;
		if (isdigit((unsigned char)*ap->s)) {
			if (parse_num_port(ap, &hi))
				return -1;
		} else {
			hi = 65535;
		}
		if (lo > hi)
			return fail(ap, "port range %u:%u is reversed", lo, hi);
	}
	return pushp(out, lo, hi);
}

static int parse_list_p(struct aparse *ap, struct pset *out, char close)
{
	struct pset pos = { 0 }, neg = { 0 };
	int npos = 0, ret = -1;
	uint32_t i, j;

	for (;;) {
		struct pset tmp = { 0 };
		int negated;

		if (parse_elem_p(ap, &tmp, &negated)) {
			free(tmp.r);
			goto out;
		}
		for (i = 0; i < tmp.n; i++)
			if (pushp(negated ? &neg : &pos, tmp.r[i].lo, tmp.r[i].hi)) {
				free(tmp.r);
				fail(ap, "out of memory");
				goto out;
			}
		npos += !negated;
		free(tmp.r);
		skip_ws(ap);
		if (*ap->s == ',') {
			ap->s++;
			continue;
		}
		if (*ap->s == close) {
			if (close)
				ap->s++;
			break;
		}
		if (!*ap->s) {
			fail(ap, "missing ']'");
			goto out;
		}
		fail(ap, "unexpected '%c' in port list", *ap->s);
		goto out;
	}
	if (!npos && pushp(&pos, 0, 65535))
		goto out;
	normp(&pos);
	normp(&neg);
	for (i = 0; i < pos.n; i++) {
		uint32_t lo = pos.r[i].lo, hi = pos.r[i].hi;

		for (j = 0; j < neg.n && lo <= hi; j++) {
			if (neg.r[j].hi < lo || neg.r[j].lo > hi)
				continue;
			if (neg.r[j].lo > lo && pushp(out, lo, neg.r[j].lo - 1u))
				goto out;
			lo = (uint32_t)neg.r[j].hi + 1;
		}
		if (lo <= hi && pushp(out, lo, hi))
			goto out;
	}
	normp(out);
	ret = 0;
out:
	free(pos.r);
	free(neg.r);
	return ret;
}

int mk_port_parse(const struct mk_detect_cfg *cfg, const char *s, struct mk_port_set *out,
		  char *err, size_t errlen)
{
	struct aparse ap = { .cfg = cfg, .s = s, .err = err, .errlen = errlen, .ports = 1 };
	struct pset p = { 0 };

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (parse_list_p(&ap, &p, '\0')) {
		free(p.r);
		return -1;
	}
	if (!p.n) {
		free(p.r);
		return fail(&ap, "port '%s' matches nothing", s);
	}
	out->r = p.r;
	out->n = p.n;
	out->any = p.n == 1 && p.r[0].lo == 0 && p.r[0].hi == 65535;
	return 0;
}

void mk_port_set_free(struct mk_port_set *p)
{
	free(p->r);
	memset(p, 0, sizeof(*p));
}

bool mk_port_match(const struct mk_port_set *p, uint16_t port)
{
	uint32_t lo = 0, hi = p->n;

	if (p->any)
		return true;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (p->r[mid].hi < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->r[lo].lo <= port;
}
