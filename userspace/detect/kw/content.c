// SPDX-License-Identifier: GPL-2.0-only
/*
 * content and the modifiers of the content before them: nocase, depth,
 * offset, distance, within, startswith, endswith, fast_pattern (with only
 * and chop), rawbytes. The search itself (mk_content_find) is used by the
 * payload inspection engine (match/payload.c).
 *
 * Value syntax as Suricata: content:[!]"text|41 42|text"; inside the quotes
 * '\' escapes only ';', '"', '\' and ':'; hex bytes go between '|'.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

#define MOD_MAX 65535

static void content_free(void *ctx)
{
	struct mk_content *c = ctx;

	if (!c)
		return;
	free(c->pat);
	free(c->low);
	free(c);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes the text between the quotes into @out (at most strlen(s) bytes). */
static int decode(struct mk_rule_build *rb, const char *s, uint8_t *out, uint32_t *len)
{
	uint32_t n = 0;
	int hex = 0, nib = -1;

	for (; *s; s++) {
		if (hex) {
			int v;

			if (*s == '|') {
				if (nib >= 0)
					return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
							    "odd number of hex digits between '|'");
				hex = 0;
				continue;
			}
			if (*s == ' ' || *s == '\t')
				continue;
			v = hexval((unsigned char)*s);
			if (v < 0)
				return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
						    "'%c' is not a hex digit", *s);
			if (nib < 0) {
				nib = v;
			} else {
				out[n++] = (uint8_t)(nib << 4 | v);
				nib = -1;
			}
			continue;
		}
		if (*s == '|') {
			hex = 1;
			continue;
		}
		if (*s == '\\') {
			s++;
			if (*s != ';' && *s != '"' && *s != '\\' && *s != ':')
				return mk_rule_fail(
					rb, MK_DETECT_FAIL_VALUE,
					"'\\%c' is not an escape (only \\; \\\" \\\\ \\:)",
					*s ? *s : ' ');
		} else if (*s == '"') {
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "unescaped '\"' inside the content");
		}
		out[n++] = (uint8_t)*s;
	}
	if (hex)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "unterminated hex section ('|' missing)");
	*len = n;
	return 0;
}

static int setup_content(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c;
	const char *v = value;
	char *q;
	size_t n;
	uint32_t i;

	c = calloc(1, sizeof(*c));
	if (!c)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	while (*v == ' ')
		v++;
	if (*v == '!') {
		c->flags |= MK_CF_NEGATED;
		v++;
		while (*v == ' ')
			v++;
	}
	n = strlen(v);
	if (!mk_quoted(v)) {
		content_free(c);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
				    "value must be in double quotes " MK_QUOTE_HINT);
	}
	q = strndup(v + 1, n - 2);
	c->pat = malloc(n);
	c->low = malloc(n);
	if (!q || !c->pat || !c->low) {
		free(q);
		content_free(c);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	if (decode(rb, q, c->pat, &c->len)) {
		free(q);
		content_free(c);
		return -1;
	}
	free(q);
	if (!c->len) {
		content_free(c);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "empty content");
	}
	if (c->len > MOD_MAX) {
		content_free(c);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "content longer than 65535 bytes");
	}
	for (i = 0; i < c->len; i++)
		c->low[i] = (uint8_t)tolower(c->pat[i]);
	if (mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_content, c))
		return -1;
	rb->last_content = c;
	return 0;
}

/* ---- modifiers ---------------------------------------------------------------- */

static struct mk_content *last(struct mk_rule_build *rb)
{
	if (!rb->last_content)
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs a preceding content");
	return rb->last_content;
}

/* A number in [lo, hi] or a byte_extract variable name (returns its slot, *is_var = 1). */
static int num_or_var(struct mk_rule_build *rb, const char *value, int32_t lo, int32_t hi,
		      int32_t *out, int *is_var)
{
	int32_t v;
	int slot;

	*is_var = 0;
	if (!mk_parse_i32(value, &v)) {
		if (v < lo || v > hi)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "%d is outside [%d, %d]", v,
					    lo, hi);
		*out = v;
		return 0;
	}
	slot = mk_rule_bytevar(rb, value);
	if (slot < 0)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.40s' is not a number nor a byte_extract variable", value);
	*out = slot;
	*is_var = 1;
	return 0;
}

static int setup_nocase(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);

	(void)value;
	if (!c)
		return -1;
	if (c->flags & MK_CF_NOCASE)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	c->flags |= MK_CF_NOCASE;
	return 0;
}

#define CF_REL (MK_CF_DISTANCE | MK_CF_WITHIN)
#define CF_ABS (MK_CF_DEPTH | MK_CF_OFFSET)

static int setup_depth(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);
	int var;

	if (!c)
		return -1;
	if (c->flags & MK_CF_DEPTH)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	if (c->flags & (CF_REL | MK_CF_STARTSWITH))
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"cannot be combined with distance, within or startswith on one content");
	if (num_or_var(rb, value, 1, MOD_MAX, &c->depth, &var))
		return -1;
	if (!var && (uint32_t)c->depth < c->len)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "depth %d is smaller than the content (%u bytes)", c->depth,
				    c->len);
	c->flags |= MK_CF_DEPTH | (var ? MK_CF_DEPTH_VAR : 0);
	return 0;
}

static int setup_offset(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);
	int var;

	if (!c)
		return -1;
	if (c->flags & MK_CF_OFFSET)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	if (c->flags & (CF_REL | MK_CF_STARTSWITH))
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"cannot be combined with distance, within or startswith on one content");
	if (num_or_var(rb, value, 0, MOD_MAX, &c->offset, &var))
		return -1;
	c->flags |= MK_CF_OFFSET | (var ? MK_CF_OFFSET_VAR : 0);
	return 0;
}

static int setup_distance(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);
	int var;

	if (!c)
		return -1;
	if (c->flags & MK_CF_DISTANCE)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	if (c->flags & (CF_ABS | MK_CF_STARTSWITH))
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"cannot be combined with depth, offset or startswith on one content");
	if (num_or_var(rb, value, -MOD_MAX, MOD_MAX, &c->distance, &var))
		return -1;
	c->flags |= MK_CF_DISTANCE | (var ? MK_CF_DISTANCE_VAR : 0);
	return 0;
}

static int setup_within(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);
	int var;

	if (!c)
		return -1;
	if (c->flags & MK_CF_WITHIN)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	if (c->flags & (CF_ABS | MK_CF_STARTSWITH))
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"cannot be combined with depth, offset or startswith on one content");
	if (num_or_var(rb, value, 1, MOD_MAX, &c->within, &var))
		return -1;
	if (!var && (uint32_t)c->within < c->len)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "within %d is smaller than the content (%u bytes)", c->within,
				    c->len);
	c->flags |= MK_CF_WITHIN | (var ? MK_CF_WITHIN_VAR : 0);
	return 0;
}

static int setup_startswith(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);

	(void)value;
	if (!c)
		return -1;
	if (c->flags & MK_CF_STARTSWITH)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	if (c->flags & (CF_ABS | CF_REL))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "cannot be combined with depth, offset, distance or within");
	c->flags |= MK_CF_STARTSWITH;
	return 0;
}

static int setup_endswith(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);

	(void)value;
	if (!c)
		return -1;
	if (c->flags & MK_CF_ENDSWITH)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice for one content");
	c->flags |= MK_CF_ENDSWITH;
	return 0;
}

static int setup_rawbytes(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);

	(void)value;
	if (!c)
		return -1;
	c->flags |= MK_CF_RAWBYTES; /* the raw payload is the only buffer */
	return 0;
}

static int setup_fast_pattern(struct mk_rule_build *rb, const char *value)
{
	struct mk_content *c = last(rb);
	uint32_t off, len;
	char *comma;
	char buf[64];

	if (!c)
		return -1;
	if (rb->seen_fast_pattern)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "only one content of a rule can be the fast pattern");
	if (c->flags & MK_CF_NEGATED)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "a negated content cannot be the fast pattern");
	rb->seen_fast_pattern = 1;
	c->flags |= MK_CF_FAST_PATTERN;
	if (!*value)
		return 0;
	if (!strcmp(value, "only")) {
		c->flags |= MK_CF_FP_ONLY;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", value);
	comma = strchr(buf, ',');
	if (!comma)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "expected nothing, 'only' or 'offset,length'");
	*comma = '\0';
	if (mk_parse_u32(buf, &off) || mk_parse_u32(comma + 1, &len) || !len)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'offset,length' numbers");
	if ((uint64_t)off + len > c->len)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "chop %u,%u goes past the content's %u bytes", off, len,
				    c->len);
	c->fp_off = (uint16_t)off;
	c->fp_len = (uint16_t)len;
	c->flags |= MK_CF_FP_CHOP;
	return 0;
}

/* ---- search --------------------------------------------------------------------- */

static uint8_t lower_tab[256];

__attribute__((constructor)) static void init_lower(void)
{
	int i;

	for (i = 0; i < 256; i++)
		lower_tab[i] = (uint8_t)tolower(i);
}

int64_t mk_content_find(const struct mk_content *c, const uint8_t *buf, uint32_t start,
			uint32_t end)
{
	const uint8_t *p, *e;
	uint32_t n = c->len;

	if (end < start || end - start < n)
		return -1;
	if (!(c->flags & MK_CF_NOCASE)) {
		p = memmem(buf + start, end - start, c->pat, n);
		return p ? p - buf : -1;
	}
	e = buf + end - n;
	for (p = buf + start; p <= e; p++) {
		uint32_t i;

		if (lower_tab[*p] != c->low[0])
			continue;
		for (i = 1; i < n && lower_tab[p[i]] == c->low[i]; i++)
			;
		if (i == n)
			return p - buf;
	}
	return -1;
}

const struct mk_kw mk_kw_content = {
	.name = "content",
	.type = MK_KWT_CONTENT,
	.flags = MK_KWF_VALUE,
	.setup = setup_content,
	.free = content_free,
	.doc = "bytes to find: [!]\"text|hex|\"",
};

#define MOD(n, fn, fl, d)                 \
	const struct mk_kw mk_kw_##fn = { \
		.name = n,                \
		.type = MK_KWT_MODIFIER,  \
		.flags = (fl),            \
		.setup = setup_##fn,      \
		.doc = d,                 \
	}

MOD("nocase", nocase, MK_KWF_NOVALUE, "the previous content ignores ASCII case");
MOD("depth", depth, MK_KWF_VALUE, "the previous content ends at most N bytes after its offset");
MOD("offset", offset, MK_KWF_VALUE, "the previous content starts at least N bytes into the buffer");
MOD("distance", distance, MK_KWF_VALUE,
    "the previous content starts at least N bytes after the match before it (N may be negative)");
MOD("within", within, MK_KWF_VALUE,
    "the previous content ends at most distance+N bytes after the match before it");
MOD("startswith", startswith, MK_KWF_NOVALUE, "the previous content is at the start of the buffer");
MOD("endswith", endswith, MK_KWF_NOVALUE, "the previous content ends at the end of the buffer");
MOD("fast_pattern", fast_pattern, 0,
    "use the previous content for the prefilter (only, offset,length chop)");
MOD("rawbytes", rawbytes, MK_KWF_NOVALUE,
    "accepted, no effect: the raw payload is the only buffer");

MK_KW_FAMILY_TABLE(content, MK_KW_FAMILY_CONTENT);
