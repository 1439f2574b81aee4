// SPDX-License-Identifier: GPL-2.0-only
/* The shared command-line parser (cli.h): a table of options to getopt_long. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "log.h"

#define MK_CLI_MAX_OPTS 64

int mk_cli_u32(const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull would take "-1" as 2^64 - 1 and skip leading blanks */
	if (!s || !isdigit((unsigned char)s[0]))
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = (uint32_t)v;
	return 0;
bad:
	mk_err("--%s: '%s' is not a number in [%u, %u]", name, s ?: "", min, max);
	return -EINVAL;
}

int mk_cli_parse(const struct mk_cli *cli, int argc, char **argv, void *params)
{
	struct option lopts[MK_CLI_MAX_OPTS + 1];
	char shorts[2 * MK_CLI_MAX_OPTS + 2], *sp = shorts;
	unsigned char seen[MK_CLI_MAX_OPTS] = { 0 };
	unsigned int i;
	int c;

	if (cli->nopts > MK_CLI_MAX_OPTS)
		return -EINVAL;
	memset(lopts, 0, sizeof(lopts));
	if (cli->stop_at_positional)
		*sp++ = '+';
	*sp++ = ':'; /* a missing argument returns ':', so we say which option */
	for (i = 0; i < cli->nopts; i++) {
		const struct mk_opt *o = &cli->opts[i];
		int arg = o->type == MK_OPT_STR || o->type == MK_OPT_U32 ||
			  o->type == MK_OPT_APPEND;

		lopts[i].name = o->name;
		lopts[i].has_arg = arg ? required_argument : no_argument;
		lopts[i].val = o->short_name ? o->short_name : 256 + (int)i;
		if (o->short_name) {
			*sp++ = (char)o->short_name;
			if (arg)
				*sp++ = ':';
		}
	}
	*sp = '\0';
	opterr = 0;
	optind = 0; /* glibc: a full reset, in case getopt ran before */
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		const struct mk_opt *o = NULL;
		char *base = params;

		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];

			const char *why = c == ':' ? "needs an argument" : "unknown option";

			if (optopt && optopt < 256)
				mk_err("-%c: %s", optopt, why);
			else
				mk_err("%s: %s", what, why);
			return -EINVAL;
		}
		for (i = 0; i < cli->nopts; i++)
			if (lopts[i].val == c)
				o = &cli->opts[i];
		if (!o)
			return -EINVAL;
		i = (unsigned int)(o - cli->opts);
		if (seen[i] && o->type != MK_OPT_COUNT && o->type != MK_OPT_APPEND) {
			mk_err("--%s given twice", o->name);
			return -EINVAL;
		}
		seen[i] = 1;
		switch (o->type) {
		case MK_OPT_STR:
			*(const char **)(base + o->off) = optarg;
			break;
		case MK_OPT_U32:
			if (mk_cli_u32(o->name, optarg, o->min, o->max,
				       (uint32_t *)(base + o->off)))
				return -EINVAL;
			break;
		case MK_OPT_FLAG:
			*(int *)(base + o->off) = 1;
			break;
		case MK_OPT_COUNT:
			(*(int *)(base + o->off))++;
			break;
		case MK_OPT_APPEND: {
			const char **arr = (const char **)(base + o->off);
			int *n = (int *)(arr + o->max);

			if (*n >= (int)o->max) {
				mk_err("--%s: at most %u", o->name, o->max);
				return -EINVAL;
			}
			arr[(*n)++] = optarg;
			break;
		}
		}
	}
	return optind;
}

void mk_cli_usage(const struct mk_cli *cli, FILE *out)
{
	unsigned int i;

	fprintf(out, "usage: %s %s\n\n", cli->prog, cli->usage);
	for (i = 0; i < cli->nopts; i++) {
		const struct mk_opt *o = &cli->opts[i];
		char left[48];

		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->short_name ? "-" : "",
			 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
			 o->metavar ? " " : "", o->metavar ?: "");
		fprintf(out, "  %-32s %s\n", left, o->help);
	}
}
