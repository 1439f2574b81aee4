// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keywords that describe a rule rather than match: msg, sid, rev, gid,
 * classtype, priority, reference, metadata, target, and the two that act on
 * a match without matching themselves: noalert and bypass.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

static int setup_msg(struct mk_rule_build *rb, const char *value)
{
	char *v = strdup(value), *s;

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (rb->seen_msg) {
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "msg given twice");
	}
	s = mk_unquote(v, 1);
	if (!s) {
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
				    "value must be in double quotes " MK_QUOTE_HINT);
	}
	rb->r->msg = strdup(s);
	free(v);
	rb->seen_msg = 1;
	return rb->r->msg ? 0 : mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
}

static int setup_u32(struct mk_rule_build *rb, const char *value, uint32_t *out, int *seen,
		     uint32_t min)
{
	uint32_t v;

	if (*seen)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	if (mk_parse_u32(value, &v) || v < min)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not a number%s", value,
				    min ? " above 0" : "");
	*out = v;
	*seen = 1;
	return 0;
}

static int setup_sid(struct mk_rule_build *rb, const char *value)
{
	return setup_u32(rb, value, &rb->r->sid, &rb->seen_sid, 1);
}

static int setup_rev(struct mk_rule_build *rb, const char *value)
{
	return setup_u32(rb, value, &rb->r->rev, &rb->seen_rev, 0);
}

static int setup_gid(struct mk_rule_build *rb, const char *value)
{
	return setup_u32(rb, value, &rb->r->gid, &rb->seen_gid, 1);
}

static int setup_classtype(struct mk_rule_build *rb, const char *value)
{
	const struct mk_parse_env *env = rb->env;
	uint32_t i;

	if (rb->seen_classtype)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	for (i = 0; i < env->nclasses; i++) {
		if (!strcmp(env->classes[i].name, value)) {
			rb->r->cls = &env->classes[i];
			rb->seen_classtype = 1;
			return 0;
		}
	}
	return mk_rule_fail(rb, MK_DETECT_FAIL_CLASSTYPE, "'%.60s' is not in classification.config",
			    value);
}

static int setup_priority(struct mk_rule_build *rb, const char *value)
{
	uint32_t v;

	if (rb->seen_priority)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	if (mk_parse_u32(value, &v) || v < 1 || v > 255)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%.40s' is not a priority 1-255",
				    value);
	rb->r->priority = (int)v;
	rb->seen_priority = 1;
	return 0;
}

static int add_kv(struct mk_rule_build *rb, struct mk_kv **arr, uint32_t *n, const char *k,
		  size_t klen, const char *v)
{
	struct mk_kv *a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	*arr = a;
	a[*n].key = strndup(k, klen);
	a[*n].value = strdup(v);
	if (!a[*n].key || !a[*n].value) {
		free(a[*n].key);
		free(a[*n].value);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	(*n)++;
	return 0;
}

/* reference:type,value; the type must be in reference.config when one was loaded. */
static int setup_reference(struct mk_rule_build *rb, const char *value)
{
	const struct mk_parse_env *env = rb->env;
	const char *comma = strchr(value, ',');
	char type[64];
	size_t tl;
	uint32_t i;

	if (!comma)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'type,value'");
	tl = (size_t)(comma - value);
	while (tl && value[tl - 1] == ' ')
		tl--;
	if (!tl || tl >= sizeof(type))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected 'type,value'");
	memcpy(type, value, tl);
	type[tl] = '\0';
	comma++;
	while (*comma == ' ')
		comma++;
	if (!*comma)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "reference '%s' has no value", type);
	if (env->have_ref_config) {
		for (i = 0; i < env->nref_types; i++)
			if (!strcasecmp(env->ref_types[i], type))
				break;
		if (i == env->nref_types)
			return mk_rule_fail(rb, MK_DETECT_FAIL_REFERENCE,
					    "type '%s' is not in reference.config", type);
	}
	return add_kv(rb, &rb->r->refs, &rb->r->nrefs, type, tl, comma);
}

/* metadata:key value, key value ...; a value may hold spaces. */
static int setup_metadata(struct mk_rule_build *rb, const char *value)
{
	char *v = strdup(value), *item, *save = NULL;

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	for (item = strtok_r(v, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *kv = mk_strtrim(item), *sp = kv;

		if (!*kv)
			continue;
		while (*sp && *sp != ' ' && *sp != '\t')
			sp++;
		if (add_kv(rb, &rb->r->meta, &rb->r->nmeta, kv, (size_t)(sp - kv),
			   mk_strtrim(sp))) {
			free(v);
			return -1;
		}
	}
	free(v);
	return 0;
}

static int setup_target(struct mk_rule_build *rb, const char *value)
{
	if (rb->seen_target)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	rb->seen_target = 1;
	if (!strcmp(value, "src_ip"))
		rb->r->flags |= MK_RF_TARGET_SRC;
	else if (!strcmp(value, "dest_ip"))
		rb->r->flags |= MK_RF_TARGET_DST;
	else
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected src_ip or dest_ip");
	return 0;
}

static int setup_noalert(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	rb->r->flags |= MK_RF_NOALERT;
	return 0;
}

static int setup_bypass(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	rb->r->flags |= MK_RF_BYPASS;
	return 0;
}

#define META(n, fn, fl, d)                        \
	const struct mk_kw mk_kw_##fn = {         \
		.name = n,                        \
		.type = MK_KWT_META,              \
		.flags = (fl) | MK_KWF_IPONLY_OK, \
		.setup = setup_##fn,              \
		.doc = d,                         \
	}

META("msg", msg, MK_KWF_VALUE, "alert text, in double quotes");
META("sid", sid, MK_KWF_VALUE, "signature id (required, > 0)");
META("rev", rev, MK_KWF_VALUE, "revision");
META("gid", gid, MK_KWF_VALUE, "generator id (default 1)");
META("classtype", classtype, MK_KWF_VALUE,
     "class from classification.config: category and default priority");
META("priority", priority, MK_KWF_VALUE, "1 (highest) to 255; EVE severity");
META("reference", reference, MK_KWF_VALUE, "type,value; type from reference.config");
META("metadata", metadata, MK_KWF_VALUE, "key value pairs, comma separated; printed in EVE");
META("target", target, MK_KWF_VALUE,
     "src_ip or dest_ip: which side is the target (EVE source/target)");
META("noalert", noalert, MK_KWF_NOVALUE, "match without alerting (flowbits setters)");
META("bypass", bypass, MK_KWF_NOVALUE, "on match, mark the flow for bypass");

MK_KW_FAMILY_TABLE(meta, MK_KW_FAMILY_META);
