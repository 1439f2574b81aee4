// SPDX-License-Identifier: GPL-2.0-only
/*
 * Small text and value helpers shared by the keyword files: trimming,
 * integers, quoted strings with the rule language's escapes, Suricata's
 * unsigned comparison syntax (dsize, ttl, itype, icode, stream_size), and
 * the flow-variable name tables (flowbits, flowint) whose ids survive a
 * reload.
 */
#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

char *mk_strtrim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

int mk_parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int mk_parse_i32(const char *s, int32_t *out)
{
	long long v;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s) && !(*s == '-' && isdigit((unsigned char)s[1])))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end || v > INT32_MAX || v < INT32_MIN)
		return -1;
	*out = (int32_t)v;
	return 0;
}

bool mk_quoted(const char *s)
{
	size_t n = strlen(s), bs = 0;

	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return false;
	while (n - 1 - bs > 1 && s[n - 2 - bs] == '\\')
		bs++;
	return !(bs & 1);
}

char *mk_unquote(char *s, int unescape)
{
	size_t n = strlen(s);
	char *r, *w;

	if (!mk_quoted(s))
		return NULL;
	s[n - 1] = '\0';
	for (r = w = s + 1; *r; r++) {
		if (*r == '\\' && r[1]) {
			if (!unescape)
				*w++ = *r;
			r++;
		} else if (*r == '"') {
			return NULL; /* an unescaped quote inside */
		}
		*w++ = *r;
	}
	*w = '\0';
	return s + 1;
}

/* Case-insensitive unit suffix as Suricata 8's integers: kb/kib, mb/mib, gb/gib. */
static uint64_t parse_unit(const char **p)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = { { "kib", 1ull << 10 }, { "kb", 1ull << 10 },  { "mib", 1ull << 20 },
		      { "mb", 1ull << 20 },  { "gib", 1ull << 30 }, { "gb", 1ull << 30 } };
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(units); i++) {
		size_t n = strlen(units[i].name);

		if (!strncasecmp(*p, units[i].name, n)) {
			*p += n;
			return units[i].mult;
		}
	}
	return 1;
}

/* A value: decimal (with an optional unit) or 0x hex, at most @max. */
static int parse_u64(const char **p, uint64_t max, uint64_t *v)
{
	const char *s = *p;
	uint64_t n = 0, mult;

	while (*s == ' ')
		s++;
	if (s[0] == '0' && s[1] == 'x') {
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -1;
		while (isxdigit((unsigned char)*s)) {
			unsigned int d = isdigit((unsigned char)*s) ?
						 (unsigned int)(*s - '0') :
						 (unsigned int)(tolower(*s) - 'a' + 10);

			if (n > (max - d) / 16)
				return -1;
			n = n * 16 + d;
			s++;
		}
	} else {
		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s)) {
			if (n > (max - (uint64_t)(*s - '0')) / 10)
				return -1;
			n = n * 10 + (uint64_t)(*s++ - '0');
		}
		mult = parse_unit(&s);
		if (mult > 1 && n) {
			if (n > max / mult)
				return -1;
			n *= mult;
		}
	}
	while (*s == ' ')
		s++;
	*p = s;
	*v = n;
	return 0;
}

/* &mask=value or &mask!=value (Suricata 8); the value must fit in the mask. */
static int parse_bitmask(const char *p, uint64_t max, struct mk_uint *out)
{
	if (parse_u64(&p, max, &out->a))
		return -1;
	if (p[0] == '!' && p[1] == '=') {
		out->mode = MK_U_NOTBITMASK;
		p += 2;
	} else if (p[0] == '=') {
		out->mode = MK_U_BITMASK;
		p++;
	} else {
		return -1;
	}
	if (parse_u64(&p, max, &out->b) || *p)
		return -1;
	return (out->b & out->a) == out->b ? 0 : -1; /* otherwise it could never match */
}

int mk_uint_parse(const char *s, uint64_t max, struct mk_uint *out)
{
	const char *p = s;
	int neg = 0;

	memset(out, 0, sizeof(*out));
	while (*p == ' ')
		p++;
	if (*p == '&')
		return parse_bitmask(p + 1, max, out);
	if (*p == '!' && p[1] != '=') {
		neg = 1;
		p++;
	}
	if (!strncmp(p, "<=", 2) || !strncmp(p, ">=", 2) || !strncmp(p, "!=", 2)) {
		out->mode = p[0] == '<' ? MK_U_LE : p[0] == '>' ? MK_U_GE : MK_U_NE;
		p += 2;
	} else if (*p == '<' || *p == '>' || *p == '=') {
		out->mode = *p == '<' ? MK_U_LT : *p == '>' ? MK_U_GT : MK_U_EQ;
		p++;
	} else {
		out->mode = MK_U_EQ;
	}
	if (parse_u64(&p, max, &out->a))
		return -1;
	if (out->mode == MK_U_EQ && (!strncmp(p, "<>", 2) || *p == '-')) {
		p += *p == '-' ? 1 : 2;
		if (parse_u64(&p, max, &out->b))
			return -1;
		/* exclusive on both ends: a range with nothing inside is a mistake */
		if (out->a >= out->b || out->b - out->a < 2)
			return -1;
		out->mode = neg ? MK_U_NOTRANGE : MK_U_RANGE;
		neg = 0;
	}
	if (*p)
		return -1;
	/* as Suricata: comparisons that never or always hold are mistakes */
	if ((out->mode == MK_U_LT || out->mode == MK_U_GE) && out->a == 0)
		return -1;
	if ((out->mode == MK_U_GT || out->mode == MK_U_LE) && out->a == max)
		return -1;
	if (neg) {
		if (out->mode != MK_U_EQ)
			return -1;
		out->mode = MK_U_NE;
	}
	return 0;
}

bool mk_uint_match(const struct mk_uint *u, uint64_t v)
{
	switch (u->mode) {
	case MK_U_EQ:
		return v == u->a;
	case MK_U_LT:
		return v < u->a;
	case MK_U_GT:
		return v > u->a;
	case MK_U_LE:
		return v <= u->a;
	case MK_U_GE:
		return v >= u->a;
	case MK_U_NE:
		return v != u->a;
	case MK_U_RANGE:
		return v > u->a && v < u->b;
	case MK_U_NOTRANGE:
		return v <= u->a || v >= u->b;
	case MK_U_BITMASK:
		return (v & u->a) == u->b;
	case MK_U_NOTBITMASK:
		return (v & u->a) != u->b;
	}
	return false;
}

/* ---- flow variable names --------------------------------------------------- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int rehash(struct mk_varnames *v, uint32_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h)), i;

	if (!h)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		uint32_t k = name_hash(v->names[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(v->hash);
	v->hash = h;
	v->hcap = cap;
	return 0;
}

int mk_varnames_id(struct mk_varnames *v, const char *name, uint32_t *id)
{
	uint32_t k;

	if (v->hcap) {
		for (k = name_hash(name) & (v->hcap - 1); v->hash[k]; k = (k + 1) & (v->hcap - 1)) {
			if (!strcmp(v->names[v->hash[k] - 1], name)) {
				*id = v->hash[k] - 1;
				return 0;
			}
		}
	}
	if (v->n == v->cap) {
		uint32_t cap = v->cap ? v->cap * 2 : 16;
		char **n = realloc(v->names, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		v->names = n;
		v->cap = cap;
	}
	v->names[v->n] = strdup(name);
	if (!v->names[v->n])
		return -ENOMEM;
	v->n++;
	if (v->n * 2 > v->hcap) {
		if (rehash(v, v->hcap ? v->hcap * 2 : 64)) {
			free(v->names[--v->n]);
			return -ENOMEM;
		}
	} else {
		for (k = name_hash(name) & (v->hcap - 1); v->hash[k]; k = (k + 1) & (v->hcap - 1))
			;
		v->hash[k] = v->n;
	}
	*id = v->n - 1;
	return 0;
}

int mk_varnames_copy(struct mk_varnames *dst, const struct mk_varnames *src)
{
	uint32_t i, id;

	for (i = 0; i < src->n; i++)
		if (mk_varnames_id(dst, src->names[i], &id))
			return -ENOMEM;
	return 0;
}

void mk_varnames_free(struct mk_varnames *v)
{
	uint32_t i;

	for (i = 0; i < v->n; i++)
		free(v->names[i]);
	free(v->names);
	free(v->hash);
	memset(v, 0, sizeof(*v));
}

/* ---- rule lists ---------------------------------------------------------------- */

int mk_rule_list_add(struct mk_rule_list *l, uint32_t v)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		uint32_t *n = realloc(l->rules, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->rules = n;
		l->cap = cap;
	}
	l->rules[l->n++] = v;
	return 0;
}
