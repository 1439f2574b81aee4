// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rule language's configuration files, in Suricata's formats:
 *  - classification.config: config classification: name,description,priority
 *  - reference.config:      config reference: type url
 *  - threshold.config:      suppress / threshold / event_filter / rate_filter
 *    gen_id G, sig_id S, ... (0 means any).
 * A line that does not parse is logged with file:line and counted; the file
 * still loads. A file that cannot be opened fails the engine build.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"
#include "log.h"

typedef int (*line_fn)(char *line, void *arg, char *err, size_t errlen);

static int each_line(const char *path, line_fn fn, void *arg, uint32_t *errors)
{
	char *line = NULL, err[256];
	size_t cap = 0;
	uint32_t no = 0;
	FILE *f;

	if (path)
		f = fopen(path, "r");
	else
		f = fmemopen((void *)mk_detect_builtin_classification,
			     strlen(mk_detect_builtin_classification), "r");
	if (!f) {
		int e = errno;

		mk_err("%s: %s", path ? path : "built-in classes", strerror(e));
		return -e;
	}
	if (!path)
		path = "built-in classification";
	while (getline(&line, &cap, f) > 0) {
		char *s = mk_strtrim(line);

		no++;
		if (!*s || *s == '#')
			continue;
		err[0] = '\0';
		if (fn(s, arg, err, sizeof(err))) {
			mk_warn("%s:%u: %s", path, no, err[0] ? err : "line not understood");
			(*errors)++;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

static int class_line(char *s, void *arg, char *err, size_t errlen)
{
	struct mk_parse_env *env = arg;
	char *name, *desc, *prio, *c1, *c2;
	struct mk_class *n;
	uint32_t p, i;

	if (strncmp(s, "config classification:", 22)) {
		snprintf(err, errlen,
			 "expected 'config classification: name,description,priority'");
		return -1;
	}
	name = s + 22;
	c1 = strchr(name, ',');
	c2 = c1 ? strrchr(c1 + 1, ',') : NULL;
	if (!c1 || !c2) {
		snprintf(err, errlen, "expected 'name,description,priority'");
		return -1;
	}
	*c1 = *c2 = '\0';
	name = mk_strtrim(name);
	desc = mk_strtrim(c1 + 1);
	prio = mk_strtrim(c2 + 1);
	if (!*name || mk_parse_u32(prio, &p) || p < 1 || p > 255) {
		snprintf(err, errlen, "bad name or priority");
		return -1;
	}
	for (i = 0; i < env->nclasses; i++)
		if (!strcmp(env->classes[i].name, name)) {
			/* a later definition wins, as in Suricata */
			free(env->classes[i].desc);
			env->classes[i].desc = strdup(desc);
			env->classes[i].priority = (int)p;
			return env->classes[i].desc ? 0 : -1;
		}
	n = realloc(env->classes, (env->nclasses + 1) * sizeof(*n));
	if (!n)
		return -1;
	env->classes = n;
	n[env->nclasses].name = strdup(name);
	n[env->nclasses].desc = strdup(desc);
	n[env->nclasses].priority = (int)p;
	if (!n[env->nclasses].name || !n[env->nclasses].desc) {
		free(n[env->nclasses].name);
		free(n[env->nclasses].desc);
		return -1;
	}
	env->nclasses++;
	return 0;
}

int mk_load_classification(const char *path, struct mk_parse_env *env, uint32_t *errors)
{
	return each_line(path, class_line, env, errors);
}

static int ref_line(char *s, void *arg, char *err, size_t errlen)
{
	struct mk_parse_env *env = arg;
	char *type, *sp, **n;

	if (strncmp(s, "config reference:", 17)) {
		snprintf(err, errlen, "expected 'config reference: type url'");
		return -1;
	}
	type = mk_strtrim(s + 17);
	sp = type;
	while (*sp && *sp != ' ' && *sp != '\t')
		sp++;
	*sp = '\0';
	if (!*type) {
		snprintf(err, errlen, "missing type");
		return -1;
	}
	n = realloc(env->ref_types, (env->nref_types + 1) * sizeof(*n));
	if (!n)
		return -1;
	env->ref_types = n;
	n[env->nref_types] = strdup(type);
	if (!n[env->nref_types])
		return -1;
	env->nref_types++;
	return 0;
}

int mk_load_reference_config(const char *path, struct mk_parse_env *env, uint32_t *errors)
{
	env->have_ref_config = 1;
	return each_line(path, ref_line, env, errors);
}

/* ---- threshold.config ------------------------------------------------------------ */

/* Splits at commas outside brackets. */
static int split_top(char *s, char **out, int max)
{
	int n = 0, depth = 0;
	char *start = s;

	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth)
			depth--;
		else if (*s == ',' && !depth) {
			*s = '\0';
			if (n == max)
				return -1;
			out[n++] = mk_strtrim(start);
			start = s + 1;
		}
	}
	if (n == max)
		return -1;
	out[n++] = mk_strtrim(start);
	return n;
}

int mk_threshold_line(const char *line, const struct mk_detect_cfg *cfg, struct mk_tcfg_entry *e,
		      char *err, size_t errlen)
{
	char *s = strdup(line), *body, *parts[16], rest[512];
	int n, i, have_gid = 0, have_sid = 0;
	size_t used = 0;

	memset(e, 0, sizeof(*e));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	body = s;
	while (*body && *body != ' ' && *body != '\t')
		body++;
	if (*body)
		*body++ = '\0';
	if (!strcmp(s, "suppress"))
		e->kind = 0;
	else if (!strcmp(s, "threshold") || !strcmp(s, "event_filter"))
		e->kind = 1;
	else if (!strcmp(s, "rate_filter"))
		e->kind = 2;
	else {
		snprintf(err, errlen,
			 "'%.30s' is not suppress, threshold, event_filter or rate_filter", s);
		goto err;
	}
	n = split_top(body, parts, 16);
	if (n < 0) {
		snprintf(err, errlen, "too many options");
		goto err;
	}
	rest[0] = '\0';
	e->track = MK_TRACK_RULE;
	for (i = 0; i < n; i++) {
		char *k = parts[i], *v = k;
		uint32_t num;

		while (*v && *v != ' ' && *v != '\t')
			v++;
		if (*v)
			*v++ = '\0';
		v = mk_strtrim(v);
		if (!strcmp(k, "gen_id") && !have_gid) {
			if (mk_parse_u32(v, &num))
				goto bad;
			e->gid = num;
			have_gid = 1;
		} else if (!strcmp(k, "sig_id") && !have_sid) {
			if (mk_parse_u32(v, &num))
				goto bad;
			e->sid = num;
			have_sid = 1;
		} else if (e->kind == 0 && !strcmp(k, "track")) {
			if (!strcmp(v, "by_src"))
				e->track = MK_TRACK_SRC;
			else if (!strcmp(v, "by_dst"))
				e->track = MK_TRACK_DST;
			else if (!strcmp(v, "by_either"))
				e->track = MK_TRACK_EITHER;
			else
				goto bad;
		} else if (e->kind == 0 && !strcmp(k, "ip") && !e->has_addrs) {
			char aerr[160];

			if (mk_addr_parse(cfg, v, &e->addrs, aerr, sizeof(aerr))) {
				snprintf(err, errlen, "ip: %s", aerr);
				goto err;
			}
			e->has_addrs = 1;
		} else if (e->kind) {
			/* the rest goes to the shared threshold option parser */
			used += (size_t)snprintf(rest + used, sizeof(rest) - used, "%s%s %s",
						 used ? "," : "", k, v);
			if (used >= sizeof(rest))
				goto bad;
		} else {
			snprintf(err, errlen, "unexpected '%.30s'", k);
			goto err;
		}
		continue;
bad:
		snprintf(err, errlen, "bad value '%.40s' for '%.20s'", v, k);
		goto err;
	}
	if (!have_gid || !have_sid) {
		snprintf(err, errlen, "needs gen_id and sig_id");
		goto err;
	}
	if (e->kind == 0 && (e->track == MK_TRACK_RULE) != !e->has_addrs) {
		snprintf(err, errlen, "suppress with 'track' needs 'ip' and the other way round");
		goto err;
	}
	if (e->kind && mk_thresh_parse(rest, e->kind == 1 ? 0 : 2, &e->spec, err, errlen))
		goto err;
	free(s);
	return 0;
err:
	mk_addr_set_free(&e->addrs);
	free(s);
	return -1;
}

struct tcfg_load {
	const struct mk_detect_cfg *cfg;
	struct mk_tcfg_entry *e;
	uint32_t n;
};

static int tcfg_line(char *s, void *arg, char *err, size_t errlen)
{
	struct tcfg_load *l = arg;
	struct mk_tcfg_entry e, *n;

	if (mk_threshold_line(s, l->cfg, &e, err, errlen))
		return -1;
	n = realloc(l->e, (l->n + 1) * sizeof(*n));
	if (!n) {
		mk_addr_set_free(&e.addrs);
		return -1;
	}
	l->e = n;
	n[l->n++] = e;
	return 0;
}

int mk_load_threshold_config(const char *path, const struct mk_detect_cfg *cfg,
			     struct mk_tcfg_entry **out, uint32_t *n, uint32_t *errors)
{
	struct tcfg_load l = { .cfg = cfg };
	int err = each_line(path, tcfg_line, &l, errors);

	*out = l.e;
	*n = l.n;
	return err;
}

void mk_parse_env_free(struct mk_parse_env *env)
{
	uint32_t i;

	for (i = 0; i < env->nclasses; i++) {
		free(env->classes[i].name);
		free(env->classes[i].desc);
	}
	free(env->classes);
	for (i = 0; i < env->nref_types; i++)
		free(env->ref_types[i]);
	free(env->ref_types);
	mk_varnames_free(&env->flowbits);
	mk_varnames_free(&env->flowints);
	memset(env, 0, sizeof(*env));
}
