// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why rules were refused, grouped: each rule's error line (file:line, sid,
 * keyword and why) is logged as it fails; the load also keeps a table of
 * the reasons without sids or values ("keyword 'x': not supported (...)",
 * "protocol 'smb' not supported (...)", "keyword 'depth': value N ...") and
 * how many rules each refused, so `meerkat -T` and the load log can end with
 * one line per reason, most frequent first (docs/rules.md, "Loading rules").
 *
 * A reason keeps the quoted name after "keyword " or "protocol " (and quoted
 * syntax such as ']') and replaces every other quoted text with '...' and
 * every number with N, except meerkat's limits ("above 65535", "[1, 65535]"),
 * so that rules refused for the same thing share a line. The table is bounded:
 * past MK_REFUSALS_MAX distinct reasons the rest are counted together.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"
#include "log.h"

static int ends_with(const char *s, size_t n, const char *w)
{
	size_t l = strlen(w);

	return n >= l && !memcmp(s + n - l, w, l);
}

/* Quoted syntax (']', '$', ';;') rather than a value: no letter or digit. */
static int punct_only(const char *s, const char *end)
{
	if (s == end)
		return 0;
	for (; s < end; s++)
		if (isalnum((unsigned char)*s))
			return 0;
	return 1;
}

/* A limit of meerkat's ("above 65535", "more than 16"), not a rule's value. */
static int limit_before(const char *out, size_t n)
{
	static const char *const words[] = { "above ", "below ", "than ", "most ", "least " };
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(words); i++)
		if (ends_with(out, n, words[i]))
			return 1;
	return 0;
}

void mk_refusal_reason(const char *err, char *out, size_t size)
{
	size_t n = 0;
	const char *p = err;
	unsigned int brackets = 0; /* inside [...]: limits, "outside [1, 65535]" */

	if (!size)
		return;
#define PUT(c)                          \
	do {                            \
		if (n + 1 < size)       \
			out[n++] = (c); \
	} while (0)
	while (*p) {
		unsigned char c = (unsigned char)*p;

		if (c == '[')
			brackets++;
		else if (c == ']' && brackets)
			brackets--;
		if (c == '\'' || c == '"') {
			const char *q = strchr(p + 1, (char)c);
			int subject = ends_with(out, n, "keyword ") ||
				      ends_with(out, n, "protocol ") || (q && punct_only(p + 1, q));

			if (!q) {
				/* a value cut short: its rest is a value too */
				PUT((char)c);
				PUT('.');
				PUT('.');
				PUT('.');
				break;
			}
			if (subject) {
				for (; p <= q; p++)
					PUT(*p);
			} else {
				PUT((char)c);
				PUT('.');
				PUT('.');
				PUT('.');
				PUT((char)c);
				p = q + 1;
			}
			continue;
		}
		if (isdigit(c) &&
		    !(n && (isalnum((unsigned char)out[n - 1]) || out[n - 1] == '_')) &&
		    !brackets && !limit_before(out, n)) {
			/* a number (or a dotted one: 1.2, 10.0.0.0): N */
			while (isdigit((unsigned char)*p) ||
			       (*p == '.' && isdigit((unsigned char)p[1])))
				p++;
			if (isalpha((unsigned char)*p) || *p == '_') {
				/* part of a name (3des): as written */
				const char *s = p;

				while (s > err && (isdigit((unsigned char)s[-1]) || s[-1] == '.'))
					s--;
				for (; s < p; s++)
					PUT(*s);
				continue;
			}
			PUT('N');
			continue;
		}
		PUT((char)c);
		p++;
	}
#undef PUT
	out[n] = '\0';
}

int mk_refusals_add(struct mk_refusals *t, const char *err)
{
	char why[MK_RULE_ERR_LEN + 64];
	uint32_t i;

	mk_refusal_reason(err, why, sizeof(why));
	t->rules++;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].why, why)) {
			t->v[i].n++;
			return 0;
		}
	if (t->n == MK_REFUSALS_MAX) {
		t->other++;
		return 0;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct mk_refusal *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].why = strdup(why);
	if (!t->v[t->n].why)
		goto nomem;
	t->v[t->n++].n = 1;
	return 0;
nomem:
	t->other++; /* still counted; only its reason is lost */
	return -ENOMEM;
}

static int refusal_cmp(const void *x, const void *y)
{
	const struct mk_refusal *a = x, *b = y;

	if (a->n != b->n)
		return a->n < b->n ? 1 : -1;
	return strcmp(a->why, b->why);
}

void mk_refusals_sort(struct mk_refusals *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), refusal_cmp);
}

void mk_refusals_free(struct mk_refusals *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].why);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

unsigned int mk_refusals_lines(const struct mk_refusals *t, unsigned int max,
			       void (*line)(const char *text, void *arg), void *arg)
{
	char buf[MK_RULE_ERR_LEN + 64];
	uint32_t i, more, more_rules = t->other;
	unsigned int lines = 0;

	for (i = 0; i < t->n && i < max; i++, lines++) {
		snprintf(buf, sizeof(buf), "%u refused: %s", t->v[i].n, t->v[i].why);
		line(buf, arg);
	}
	more = t->n - i;
	for (; i < t->n; i++)
		more_rules += t->v[i].n;
	if (more || t->other) {
		/* reasons past the table count as one more at least */
		more += t->other ? 1 : 0;
		snprintf(buf, sizeof(buf), "%u refused for %s%u more reason%s", more_rules,
			 t->other ? "at least " : "", more, more == 1 ? "" : "s");
		line(buf, arg);
		lines++;
	}
	if (t->dead) {
		snprintf(buf, sizeof(buf),
			 "%u loaded but cannot fire: a flowbit they check is set by no rule",
			 t->dead);
		line(buf, arg);
		lines++;
	}
	return lines;
}

unsigned int mk_detect_engine_refusals(const struct mk_detect_engine *e, unsigned int max,
				       void (*line)(const char *text, void *arg), void *arg)
{
	return mk_refusals_lines(&e->refusals, max, line, arg);
}

/*
 * A rule checking a flowbit (isset) that no loaded rule sets can never fire
 * (Suricata warns the same way): typically the setter is disabled in the
 * rule set or was refused. One warning per flowbit, naming the first such rule.
 */
struct fb_scan {
	uint64_t *set;
	uint32_t *checked;
	uint32_t *first; /* rule index + 1 */
	uint32_t n, rule;
	int pass, dead; /* the rule being visited checks a flowbit none sets */
};

static void fb_visit(uint32_t id, int checks, void *arg)
{
	struct fb_scan *s = arg;

	if (id >= s->n)
		return;
	if (s->pass == 0 && !checks)
		s->set[id / 64] |= 1ull << (id % 64);
	if (s->pass == 1 && checks && !(s->set[id / 64] & 1ull << (id % 64))) {
		if (!s->checked[id]++)
			s->first[id] = s->rule + 1;
		s->dead = 1;
	}
}

int mk_detect_check_flowbits(struct mk_detect_engine *e)
{
	struct fb_scan s = { .n = e->env.flowbits.n };
	uint32_t i;

	if (!s.n)
		return 0;
	s.set = calloc((s.n + 63) / 64, sizeof(*s.set));
	s.checked = calloc(s.n, sizeof(*s.checked));
	s.first = calloc(s.n, sizeof(*s.first));
	if (!s.set || !s.checked || !s.first) {
		free(s.set);
		free(s.checked);
		free(s.first);
		return -ENOMEM;
	}
	for (s.pass = 0; s.pass < 2; s.pass++)
		for (s.rule = 0; s.rule < e->nrules; s.rule++) {
			s.dead = 0;
			mk_flowbits_of_rule(e->rules[s.rule], fb_visit, &s);
			e->refusals.dead += (uint32_t)s.dead;
		}
	for (i = 0; i < s.n; i++) {
		const struct mk_rule *r;

		if (!s.checked[i])
			continue;
		r = e->rules[s.first[i] - 1];
		mk_warn("%s:%u: sid %u: flowbit '%s' is checked but no rule sets it: %u rule(s) "
			"cannot fire",
			r->file, r->line, r->sid, e->env.flowbits.names[i], s.checked[i]);
	}
	free(s.set);
	free(s.checked);
	free(s.first);
	return 0;
}
