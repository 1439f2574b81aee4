// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which keys a reload applies, and the difference between two
 * configurations (config_diff.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config_diff.h"

/*
 * Keys a reload takes, by path: an entry ending in '.' covers every key
 * below it. Everything else is read once at start. The bypass manager keeps
 * its own copy of the bypassed timeouts, so those stay restart keys.
 */
static const struct {
	const char *path;
	enum mk_cfg_reload how;
} reload_keys[] = {
	{ "vars.", MK_CFG_RELOAD_RULES },
	{ "default-rule-path", MK_CFG_RELOAD_RULES },
	{ "rule-files", MK_CFG_RELOAD_RULES },
	{ "classification-file", MK_CFG_RELOAD_RULES },
	{ "reference-config-file", MK_CFG_RELOAD_RULES },
	{ "threshold-file", MK_CFG_RELOAD_RULES },
	{ "detect.prefilter-cache", MK_CFG_RELOAD_RULES },
	{ "stats.enabled", MK_CFG_RELOAD_LIVE },
	{ "stats.interval", MK_CFG_RELOAD_LIVE },
	{ "outputs.eve-log.types", MK_CFG_RELOAD_LIVE },
	{ "outputs.eve-log.types.", MK_CFG_RELOAD_LIVE },
	{ "flow-timeouts.", MK_CFG_RELOAD_LIVE },
	{ "flow.emergency-recovery", MK_CFG_RELOAD_LIVE },
	{ "flow.bypass-bytes", MK_CFG_RELOAD_LIVE },
	{ "flow.bypass-packets", MK_CFG_RELOAD_LIVE },
	{ "stream.bypass", MK_CFG_RELOAD_LIVE },
	{ "detect.pass-bypass", MK_CFG_RELOAD_LIVE },
	{ "bypass.cidr", MK_CFG_RELOAD_LIVE },
};

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

enum mk_cfg_reload mk_config_key_reload(const char *path)
{
	unsigned int i;

	if (!strncmp(path, "flow-timeouts.", 14) && ends_with(path, "bypassed"))
		return MK_CFG_RELOAD_RESTART;
	for (i = 0; i < sizeof(reload_keys) / sizeof(reload_keys[0]); i++) {
		const char *k = reload_keys[i].path;
		size_t n = strlen(k);

		if (k[n - 1] == '.' ? !strncmp(path, k, n) : !strcmp(path, k))
			return reload_keys[i].how;
	}
	return MK_CFG_RELOAD_RESTART;
}

const char *mk_cfg_reload_name(enum mk_cfg_reload how)
{
	switch (how) {
	case MK_CFG_RELOAD_RULES:
		return "rules";
	case MK_CFG_RELOAD_LIVE:
		return "live";
	default:
		return "restart";
	}
}

/* Key @i of @c as its dump lines, NUL-terminated; NULL when out of memory. */
static char *key_text(const struct mk_config *c, unsigned int i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	mk_config_key_dump(f, c, i);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The line of @s starting at @p, without its newline, in @out. */
static const char *line_at(const char *p, char *out, size_t len)
{
	size_t n = strcspn(p, "\n");

	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/*
 * "key: old -> new" from the first line that differs between @a and @b
 * (dump lines "name = value"; a group has one line per name).
 */
static void describe(const char *path, const char *a, const char *b, char *out, size_t len)
{
	char la[MK_CONFIG_CHANGE_TEXT], lb[MK_CONFIG_CHANGE_TEXT];
	const char *va, *vb;

	while (*a && *b) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");

		if (na != nb || memcmp(a, b, na))
			break;
		a += na + (a[na] == '\n');
		b += nb + (b[nb] == '\n');
	}
	line_at(a, la, sizeof(la));
	line_at(b, lb, sizeof(lb));
	va = strstr(la, " = ");
	vb = strstr(lb, " = ");
	if (va && vb && va - la == vb - lb && !memcmp(la, lb, (size_t)(va - la))) {
		la[va - la] = '\0';
		snprintf(out, len, "%.80s: %.55s -> %.55s", la, va + 3, vb + 3);
	} else if (va && !*lb) {
		la[va - la] = '\0';
		snprintf(out, len, "%.80s: %.80s -> (none)", la, va + 3);
	} else if (vb && !*la) {
		lb[vb - lb] = '\0';
		snprintf(out, len, "%.80s: (none) -> %.80s", lb, vb + 3);
	} else {
		snprintf(out, len, "%.80s: changed", path);
	}
}

int mk_config_diff(const struct mk_config *old, const struct mk_config *new,
		   struct mk_config_change *out, unsigned int max)
{
	const struct mk_cfg_key *k;
	unsigned int i, n = 0;

	for (i = 0; (k = mk_config_key(i)); i++) {
		char *a = key_text(old, i), *b = key_text(new, i);
		int same = a && b && !strcmp(a, b);

		if (!a || !b) {
			free(a);
			free(b);
			return -ENOMEM;
		}
		if (!same && n < max) {
			out[n].path = k->path;
			out[n].how = mk_config_key_reload(k->path);
			describe(k->path, a, b, out[n].text, sizeof(out[n].text));
		}
		n += !same;
		free(a);
		free(b);
	}
	return (int)n;
}
