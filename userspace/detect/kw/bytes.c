// SPDX-License-Identifier: GPL-2.0-only
/*
 * The byte keywords: byte_test (compare a number read from the payload),
 * byte_jump (move the cursor by a number read from the payload) and
 * byte_extract (store it in a variable for later keywords). Numbers are
 * read big or little endian (1-8 bytes) or as text (string,dec|hex|oct,
 * up to 23 characters). Evaluated by match/payload.c, which owns the cursor.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

#define ARGS_MAX 16

static int split_args(char *v, char **args)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(v, ",", &save); tok && n < ARGS_MAX; tok = strtok_r(NULL, ",", &save))
		args[n++] = mk_strtrim(tok);
	return tok ? -1 : n;
}

/* @zero_ok: byte_jump reads no bytes with 0 (as Suricata: "byte_jump:0,0,from_end"). */
static int parse_nbytes(struct mk_rule_build *rb, const char *s, struct mk_byte *b, int zero_ok)
{
	uint32_t n;

	if (mk_parse_u32(s, &n) || (!n && !zero_ok) || n > 23)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "byte count '%.20s' is not %s-23", s,
				    zero_ok ? "0" : "1");
	b->nbytes = (uint8_t)n;
	return 0;
}

static int parse_offset(struct mk_rule_build *rb, const char *s, struct mk_byte *b)
{
	int32_t v;
	int slot;

	if (!mk_parse_i32(s, &v)) {
		if (v < -65535 || v > 65535)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "offset %d is outside [-65535, 65535]", v);
		b->offset = v;
		return 0;
	}
	slot = mk_rule_bytevar(rb, s);
	if (slot < 0)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "offset '%.40s' is not a number nor a byte_extract variable",
				    s);
	b->offset = slot;
	b->flags |= MK_BF_OFFSET_VAR;
	return 0;
}

static int parse_number(const char *s, uint64_t *out)
{
	char *end;

	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	*out = strtoull(s, &end, 0);
	return *end ? -1 : 0;
}

/* Options shared by the three keywords; returns 1 when @a was one of them. */
static int common_opt(struct mk_rule_build *rb, struct mk_byte *b, const char *a, int jump,
		      int extract)
{
	uint64_t v;

	if (!strcmp(a, "relative"))
		b->flags |= MK_BF_RELATIVE;
	else if (!strcmp(a, "big"))
		b->flags &= ~MK_BF_LITTLE;
	else if (!strcmp(a, "little"))
		b->flags |= MK_BF_LITTLE;
	else if (!strcmp(a, "string"))
		b->flags |= MK_BF_STRING;
	else if (!strcmp(a, "dec"))
		b->base = 10;
	else if (!strcmp(a, "hex"))
		b->base = 16;
	else if (!strcmp(a, "oct"))
		b->base = 8;
	else if (!strcmp(a, "dce"))
		return mk_rule_fail(rb, MK_DETECT_FAIL_KEYWORD,
				    "'dce' needs the DCERPC parser: not supported (app-layer)");
	else if (!strncmp(a, "bitmask", 7) && !extract) {
		if (parse_number(a + 7, &v) || !v || v > UINT32_MAX)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "bad bitmask '%.40s'", a);
		b->flags |= MK_BF_BITMASK;
		b->bitmask = (uint32_t)v;
		b->bitmask_shift = (uint8_t)__builtin_ctz(b->bitmask);
	} else if (!strncmp(a, "multiplier", 10) && (jump || extract)) {
		if (parse_number(a + 10, &v) || !v || v > 65535)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "bad multiplier '%.40s'", a);
		b->multiplier = (uint32_t)v;
	} else if (!strcmp(a, "align") && jump) {
		b->flags |= MK_BF_ALIGN;
	} else if (!strncmp(a, "align", 5) && extract) {
		if (parse_number(a + 5, &v) || (v != 2 && v != 4))
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "align must be 2 or 4");
		b->align = (uint8_t)v;
	} else if (!strcmp(a, "from_beginning") && jump) {
		b->flags |= MK_BF_FROM_BEGINNING;
	} else if (!strcmp(a, "from_end") && jump) {
		b->flags |= MK_BF_FROM_END;
	} else if (!strncmp(a, "post_offset", 11) && jump) {
		int32_t po;

		if (mk_parse_i32(a + 11, &po) || po < -65535 || po > 65535)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "bad post_offset '%.40s'", a);
		b->post_offset = po;
	} else {
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown option '%.40s'", a);
	}
	return 1;
}

static int check_common(struct mk_rule_build *rb, struct mk_byte *b)
{
	if (b->base && !(b->flags & MK_BF_STRING))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "dec/hex/oct need 'string'");
	if (b->flags & MK_BF_STRING) {
		if (!b->base)
			b->base = 10;
		if (b->flags & MK_BF_LITTLE)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "'string' cannot be little endian");
		if (!b->nbytes)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "'string' needs at least one byte to read");
	} else if (b->nbytes > 8) {
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "cannot read more than 8 bytes without 'string'");
	}
	if ((b->flags & MK_BF_FROM_BEGINNING) && (b->flags & MK_BF_FROM_END))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "from_beginning and from_end exclude each other");
	if (!b->multiplier)
		b->multiplier = 1;
	return 0;
}

static int setup_byte_test(struct mk_rule_build *rb, const char *value)
{
	struct mk_byte *b = calloc(1, sizeof(*b));
	char *v = strdup(value), *args[ARGS_MAX], *op;
	int n, i, slot;

	if (!b || !v)
		goto nomem;
	n = split_args(v, args);
	if (n < 4) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "expected 'bytes, operator, value, offset[, ...]'");
		goto err;
	}
	if (parse_nbytes(rb, args[0], b, 0))
		goto err;
	op = args[1];
	if (*op == '!') {
		b->flags |= MK_BF_NEGATED;
		op = mk_strtrim(op + 1);
	}
	if (!strcmp(op, "<"))
		b->op = MK_BOP_LT;
	else if (!strcmp(op, ">"))
		b->op = MK_BOP_GT;
	else if (!strcmp(op, "=") || (!*op && (b->flags & MK_BF_NEGATED)))
		b->op = MK_BOP_EQ;
	else if (!strcmp(op, "<="))
		b->op = MK_BOP_LE;
	else if (!strcmp(op, ">="))
		b->op = MK_BOP_GE;
	else if (!strcmp(op, "&"))
		b->op = MK_BOP_AND;
	else if (!strcmp(op, "^"))
		b->op = MK_BOP_XOR;
	else {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown operator '%.10s'", args[1]);
		goto err;
	}
	if (parse_number(args[2], &b->value)) {
		slot = mk_rule_bytevar(rb, args[2]);
		if (slot < 0) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "value '%.40s' is not a number nor a byte_extract variable",
				     args[2]);
			goto err;
		}
		b->value = (uint64_t)slot;
		b->flags |= MK_BF_VALUE_VAR;
	}
	if (parse_offset(rb, args[3], b))
		goto err;
	for (i = 4; i < n; i++)
		if (common_opt(rb, b, args[i], 0, 0) < 0)
			goto err;
	if (check_common(rb, b))
		goto err;
	free(v);
	return mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_byte_test, b);
nomem:
	mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
err:
	free(v);
	free(b);
	return -1;
}

static int setup_byte_jump(struct mk_rule_build *rb, const char *value)
{
	struct mk_byte *b = calloc(1, sizeof(*b));
	char *v = strdup(value), *args[ARGS_MAX];
	int n, i;

	if (!b || !v)
		goto nomem;
	n = split_args(v, args);
	if (n < 2) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'bytes, offset[, ...]'");
		goto err;
	}
	if (parse_nbytes(rb, args[0], b, 1) || parse_offset(rb, args[1], b))
		goto err;
	for (i = 2; i < n; i++)
		if (common_opt(rb, b, args[i], 1, 0) < 0)
			goto err;
	if (check_common(rb, b))
		goto err;
	free(v);
	return mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_byte_jump, b);
nomem:
	mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
err:
	free(v);
	free(b);
	return -1;
}

static int setup_byte_extract(struct mk_rule_build *rb, const char *value)
{
	struct mk_byte *b = calloc(1, sizeof(*b));
	char *v = strdup(value), *args[ARGS_MAX], *name;
	int n, i;

	if (!b || !v)
		goto nomem;
	n = split_args(v, args);
	if (n < 3) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'bytes, offset, name[, ...]'");
		goto err;
	}
	if (parse_nbytes(rb, args[0], b, 0))
		goto err;
	if (mk_parse_i32(args[1], &b->offset) || b->offset < -65535 || b->offset > 65535) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "offset '%.20s' is not a number in [-65535, 65535]", args[1]);
		goto err;
	}
	name = args[2];
	if (!*name || strlen(name) >= sizeof(rb->bytevar_names[0]) ||
	    !(isalpha((unsigned char)*name) || *name == '_')) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not a variable name", name);
		goto err;
	}
	if (mk_rule_bytevar(rb, name) >= 0) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "variable '%s' defined twice", name);
		goto err;
	}
	if (rb->nbytevars >= MK_BYTEVARS_MAX) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "more than %d byte_extract variables",
			     MK_BYTEVARS_MAX);
		goto err;
	}
	for (i = 3; i < n; i++)
		if (common_opt(rb, b, args[i], 0, 1) < 0)
			goto err;
	if (check_common(rb, b))
		goto err;
	snprintf(rb->bytevar_names[rb->nbytevars], sizeof(rb->bytevar_names[0]), "%s", name);
	b->var = (uint8_t)rb->nbytevars++;
	free(v);
	return mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_byte_extract, b);
nomem:
	mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
err:
	free(v);
	free(b);
	return -1;
}

int mk_byte_read(const struct mk_byte *b, const uint8_t *p, uint32_t avail, uint64_t *val,
		 uint32_t *used)
{
	uint64_t v = 0;
	uint32_t i;

	if (avail < b->nbytes)
		return -1;
	if (b->flags & MK_BF_STRING) {
		uint32_t digits = 0;

		for (i = 0; i < b->nbytes; i++) {
			int d, c = p[i];

			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (b->base == 16 && isxdigit(c))
				d = tolower(c) - 'a' + 10;
			else
				break;
			if (d >= b->base)
				break;
			if (v > (UINT64_MAX - (uint64_t)d) / b->base)
				return -1; /* overflow */
			v = v * b->base + (uint64_t)d;
			digits++;
		}
		if (!digits)
			return -1;
	} else if (b->flags & MK_BF_LITTLE) {
		for (i = b->nbytes; i > 0; i--)
			v = v << 8 | p[i - 1];
	} else {
		for (i = 0; i < b->nbytes; i++)
			v = v << 8 | p[i];
	}
	if (b->flags & MK_BF_BITMASK)
		v = (v & b->bitmask) >> b->bitmask_shift;
	*val = v;
	*used = b->nbytes;
	return 0;
}

MK_KW_DEFINE(byte_test, MK_KWT_BYTE_TEST, 0, setup_byte_test, NULL,
	     "bytes, [!]op, value, offset[, relative, big|little, string, dec|hex|oct, bitmask N]");

MK_KW_DEFINE(
	byte_jump, MK_KWT_BYTE_JUMP, 0, setup_byte_jump, NULL,
	"bytes (0-8, or 1-23 with string), offset[, relative, multiplier N, align, from_beginning, from_end, post_offset "
	"N, big|little, string, dec|hex|oct, bitmask N]");

MK_KW_DEFINE(
	byte_extract, MK_KWT_BYTE_EXTRACT, 0, setup_byte_extract, NULL,
	"bytes, offset, name[, relative, multiplier N, align 2|4, big|little, string, dec|hex|oct]");

MK_KW_FAMILY_TABLE(bytes, MK_KW_FAMILY_BYTES);
