// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flow variables: flowbits (set, unset, toggle, isset, isnotset, noalert)
 * and flowint (=, +, - and the comparisons ==, !=, <, >, <=, >=, isset,
 * notset). Names map to ids that stay the same across a reload (the engine
 * builder copies the previous engine's names), so a live flow keeps its
 * bits. Setting flowbits happens after the whole rule matched (Suricata's
 * post-match); flowint arithmetic happens where it stands in the rule, so a
 * later comparison in the same rule sees the new value, as in Suricata.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

#define FB_NAMES_MAX 16

enum { FB_SET, FB_UNSET, FB_TOGGLE, FB_ISSET, FB_ISNOTSET };

struct flowbits {
	uint8_t op;
	uint8_t any; /* '|': any of the names; else all */
	uint8_t n;
	uint32_t ids[FB_NAMES_MAX];
};

static int setup_flowbits(struct mk_rule_build *rb, const char *value)
{
	static const char *const ops[] = { "set", "unset", "toggle", "isset", "isnotset" };
	char *v = strdup(value), *comma, *name, *p;
	struct flowbits *fb = NULL;
	unsigned int i;
	int or = 0, and = 0;

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	comma = strchr(v, ',');
	if (comma)
		*comma = '\0';
	p = mk_strtrim(v);
	if (!strcmp(p, "noalert")) {
		free(v);
		if (comma)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "noalert takes no name");
		rb->r->flags |= MK_RF_NOALERT;
		return 0;
	}
	for (i = 0; i < MK_ARRAY_SIZE(ops); i++)
		if (!strcmp(p, ops[i]))
			break;
	if (i == MK_ARRAY_SIZE(ops)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.20s' is not set, unset, toggle, isset, isnotset or noalert", p);
		goto err;
	}
	if (!comma) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%s' needs a name", ops[i]);
		goto err;
	}
	fb = calloc(1, sizeof(*fb));
	if (!fb) {
		mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
		goto err;
	}
	fb->op = (uint8_t)i;
	name = mk_strtrim(comma + 1);
	or = !!strchr(name, '|');
	and = !!strchr(name, '&');
	if (or &&and) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'|' and '&' cannot be mixed");
		goto err;
	}
	if (or &&fb->op != FB_ISSET && fb->op != FB_ISNOTSET) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'|' only with isset or isnotset");
		goto err;
	}
	fb->any = (uint8_t) or ;
	for (p = strtok(name, "|&"); p; p = strtok(NULL, "|&")) {
		char *nm = mk_strtrim(p);
		char *e;

		if (!*nm) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "empty flowbit name");
			goto err;
		}
		for (e = nm; *e; e++)
			if (*e == ' ' || *e == ',' || *e == '"') {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s' is not a flowbit name", nm);
				goto err;
			}
		if (fb->n == FB_NAMES_MAX) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "more than %d names", FB_NAMES_MAX);
			goto err;
		}
		if (mk_varnames_id(&rb->env->flowbits, nm, &fb->ids[fb->n++])) {
			mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
			goto err;
		}
	}
	free(v);
	if (fb->op <= FB_TOGGLE) {
		rb->r->flags |= MK_RF_FLOWVAR_SET;
		return mk_rule_add_sm(rb, MK_LIST_POST, &mk_kw_flowbits, fb);
	}
	rb->r->flags |= MK_RF_FLOWVAR_GET;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_flowbits, fb);
err:
	free(v);
	free(fb);
	return -1;
}

bool mk_flowbit_isset(const struct mk_detect_flow *fs, uint32_t id)
{
	return fs && id / 32 < fs->nbits && (fs->bits[id / 32] >> (id % 32) & 1);
}

int mk_flowbit_set(struct mk_detect_flow *fs, uint32_t id, int op)
{
	uint32_t w = id / 32, bit = 1u << (id % 32);

	if (w >= fs->nbits) {
		uint32_t n = w + 1;
		uint32_t *b;

		if (op == FB_UNSET)
			return 0;
		b = realloc(fs->bits, n * sizeof(*b));
		if (!b)
			return -1;
		memset(b + fs->nbits, 0, (n - fs->nbits) * sizeof(*b));
		fs->bits = b;
		fs->nbits = n;
	}
	if (op == FB_SET)
		fs->bits[w] |= bit;
	else if (op == FB_UNSET)
		fs->bits[w] &= ~bit;
	else
		fs->bits[w] ^= bit;
	return 0;
}

static int match_flowbits(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct flowbits *fb = sm->ctx;
	struct mk_detect_flow *fs;
	unsigned int i, set = 0;

	if (fb->op <= FB_TOGGLE) {
		/* post-match action */
		fs = mk_detect_flow_state(mc);
		if (!fs)
			return 0;
		for (i = 0; i < fb->n; i++)
			mk_flowbit_set(fs, fb->ids[i], fb->op);
		return 1;
	}
	fs = mc->flow ? mc->flow->detect : NULL;
	if (!mc->flow)
		return 0;
	for (i = 0; i < fb->n; i++)
		set += mk_flowbit_isset(fs, fb->ids[i]);
	if (fb->op == FB_ISSET)
		return fb->any ? set > 0 : set == fb->n;
	/* isnotset: any of them not set with '|', none of them set otherwise */
	return fb->any ? set < fb->n : set == 0;
}

/* ---- flowint ------------------------------------------------------------------- */

enum { FI_ASSIGN, FI_ADD, FI_SUB, FI_EQ, FI_NE, FI_LT, FI_GT, FI_LE, FI_GE, FI_ISSET, FI_NOTSET };

struct flowint {
	uint32_t id;
	uint8_t op;
	uint8_t value_is_var;
	uint32_t value; /* number, or the id of another flowint */
};

static int setup_flowint(struct mk_rule_build *rb, const char *value)
{
	static const struct {
		const char *s;
		uint8_t op;
	} ops[] = {
		{ "=", FI_ASSIGN },    { "+", FI_ADD },		{ "-", FI_SUB },
		{ "==", FI_EQ },       { "!=", FI_NE },		{ "<", FI_LT },
		{ ">", FI_GT },	       { "<=", FI_LE },		{ ">=", FI_GE },
		{ "isset", FI_ISSET }, { "notset", FI_NOTSET }, { "isnotset", FI_NOTSET },
	};
	char *v = strdup(value), *args[4], *tok, *save = NULL;
	struct flowint *fi = calloc(1, sizeof(*fi));
	unsigned int n = 0, i;

	if (!v || !fi)
		goto nomem;
	for (tok = strtok_r(v, ",", &save); tok && n < 4; tok = strtok_r(NULL, ",", &save))
		args[n++] = mk_strtrim(tok);
	if (n < 2 || n > 3 || tok) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'name, operator[, value]'");
		goto err;
	}
	for (i = 0; i < MK_ARRAY_SIZE(ops); i++)
		if (!strcmp(args[1], ops[i].s))
			break;
	if (i == MK_ARRAY_SIZE(ops)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown operator '%.10s'", args[1]);
		goto err;
	}
	fi->op = ops[i].op;
	if ((fi->op == FI_ISSET || fi->op == FI_NOTSET) != (n == 2)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "isset and notset take no value, the others need one");
		goto err;
	}
	if (!*args[0]) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "empty name");
		goto err;
	}
	if (mk_varnames_id(&rb->env->flowints, args[0], &fi->id))
		goto nomem;
	if (n == 3) {
		if (mk_parse_u32(args[2], &fi->value)) {
			if (!*args[2] || strchr(args[2], ' ')) {
				mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					     "'%.40s' is not a number nor a flowint", args[2]);
				goto err;
			}
			if (mk_varnames_id(&rb->env->flowints, args[2], &fi->value))
				goto nomem;
			fi->value_is_var = 1;
		}
	}
	free(v);
	rb->r->flags |= fi->op <= FI_SUB ? MK_RF_FLOWVAR_SET : MK_RF_FLOWVAR_GET;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_flowint, fi);
nomem:
	mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
err:
	free(v);
	free(fi);
	return -1;
}

struct mk_flowint *mk_flowint_get(struct mk_detect_flow *fs, uint32_t id, int create)
{
	uint32_t i;

	if (!fs)
		return NULL;
	for (i = 0; i < fs->nints; i++)
		if (fs->ints[i].id == id)
			return &fs->ints[i];
	if (!create)
		return NULL;
	if (fs->nints == fs->capints) {
		uint32_t cap = fs->capints ? fs->capints * 2 : 4;
		struct mk_flowint *n = realloc(fs->ints, cap * sizeof(*n));

		if (!n)
			return NULL;
		fs->ints = n;
		fs->capints = cap;
	}
	fs->ints[fs->nints].id = id;
	fs->ints[fs->nints].value = 0;
	return &fs->ints[fs->nints++];
}

static int match_flowint(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct flowint *fi = sm->ctx;
	struct mk_detect_flow *fs;
	struct mk_flowint *var, *other;
	uint32_t val = fi->value;

	if (!mc->flow)
		return 0;
	if (fi->op <= FI_SUB) {
		fs = mk_detect_flow_state(mc);
		if (fi->value_is_var) {
			other = mk_flowint_get(fs, fi->value, 0);
			if (!other)
				return 0; /* Suricata: an unset source variable does not match */
			val = other->value;
		}
		var = mk_flowint_get(fs, fi->id, 1);
		if (!var)
			return 0;
		if (fi->op == FI_ASSIGN)
			var->value = val;
		else if (fi->op == FI_ADD)
			var->value += val;
		else
			var->value -= val;
		return 1;
	}
	fs = mc->flow->detect;
	var = mk_flowint_get(fs, fi->id, 0);
	if (fi->op == FI_ISSET)
		return var != NULL;
	if (fi->op == FI_NOTSET)
		return var == NULL;
	if (!var)
		return 0;
	if (fi->value_is_var) {
		other = mk_flowint_get(fs, fi->value, 0);
		if (!other)
			return 0;
		val = other->value;
	}
	switch (fi->op) {
	case FI_EQ:
		return var->value == val;
	case FI_NE:
		return var->value != val;
	case FI_LT:
		return var->value < val;
	case FI_GT:
		return var->value > val;
	case FI_LE:
		return var->value <= val;
	case FI_GE:
		return var->value >= val;
	}
	return 0;
}

MK_KW_DEFINE(flowbits, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_flowbits, match_flowbits,
	     "set|unset|toggle|isset|isnotset,name (a|b: any, a&b: all), or noalert");

MK_KW_DEFINE(
	flowint, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_flowint, match_flowint,
	"name, =|+|-|==|!=|<|>|<=|>= value (a number or another flowint), or name, isset|notset");

MK_KW_FAMILY_TABLE(flowvars, MK_KW_FAMILY_FLOWVARS);
