// SPDX-License-Identifier: GPL-2.0-only
/* The shared command-line parser (cli.h): a table of options to getopt_long, and commands. */
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
		case MK_OPT_HELP:
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

/* @text with every line after the first indented by @indent columns. */
static void print_indented(FILE *out, const char *text, int indent)
{
	const char *nl;

	while ((nl = strchr(text, '\n')) && nl[1]) {
		fprintf(out, "%.*s\n%*s", (int)(nl - text), text, indent, "");
		text = nl + 1;
	}
	fprintf(out, "%s", text);
}

void mk_cli_usage(const struct mk_cli *cli, FILE *out)
{
	unsigned int i;

	fprintf(out, "usage: %s %s\n\n", cli->prog, cli->usage);
	if (cli->doc)
		fprintf(out, "%s\n", cli->doc);
	for (i = 0; i < cli->nopts; i++) {
		const struct mk_opt *o = &cli->opts[i];
		char left[48];

		/* long-only options line up with the long names after "-x, " */
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->metavar ? " " : "", o->metavar ?: "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->metavar ? " " : "",
				 o->metavar ?: "");
		fprintf(out, "  %-32s ", left);
		print_indented(out, o->help, 2 + 32 + 1);
		fputc('\n', out);
	}
	if (cli->epilog)
		fprintf(out, "\n%s", cli->epilog);
}

void mk_cli_usage_cmds(const struct mk_cli *prog, const struct mk_cli_cmd *const *cmds,
		       unsigned int ncmds, FILE *out)
{
	unsigned int i;

	mk_cli_usage(prog, out);
	fprintf(out, "\nCommands:\n");
	for (i = 0; i < ncmds; i++)
		fprintf(out, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(out, "\n'%s COMMAND --help' describes each command.\n", prog->prog);
}

/* Did the options ask for --help (an MK_OPT_HELP row set)? */
static int wants_help(const struct mk_cli *cli, const void *params)
{
	unsigned int i;

	for (i = 0; i < cli->nopts; i++)
		if (cli->opts[i].type == MK_OPT_HELP &&
		    *(const int *)((const char *)params + cli->opts[i].off))
			return 1;
	return 0;
}

int mk_cli_dispatch(const struct mk_cli *prog, const struct mk_cli_cmd *const *cmds,
		    unsigned int ncmds, int argc, char **argv)
{
	const struct mk_cli_cmd *cmd = NULL;
	unsigned int i;
	void *params;
	int first, ret;

	for (i = 0; i < ncmds && !cmd; i++)
		if (!strcmp(argv[0], cmds[i]->name))
			cmd = cmds[i];
	if (!cmd) {
		mk_err("unknown command '%s'", argv[0]);
		mk_cli_usage_cmds(prog, cmds, ncmds, stderr);
		return 2;
	}
	params = malloc(cmd->params_size);
	if (!params) {
		mk_err("%s: %s", cmd->name, strerror(ENOMEM));
		return 1;
	}
	memcpy(params, cmd->defaults, cmd->params_size);
	first = mk_cli_parse(&cmd->cli, argc, argv, params);
	if (first >= 0 && wants_help(&cmd->cli, params)) {
		mk_cli_usage(&cmd->cli, stdout);
		ret = 0;
		goto out;
	}
	if (first >= 0 && cmd->max_args) {
		struct mk_cli_args *a = (struct mk_cli_args *)((char *)params + cmd->args_off);

		a->argc = argc - first;
		a->argv = argv + first;
		if ((unsigned int)a->argc > cmd->max_args) {
			mk_err("%s: unexpected argument '%s'", cmd->name,
			       argv[first + (int)cmd->max_args]);
			first = -EINVAL;
		}
	} else if (first >= 0 && first < argc) {
		mk_err("%s: unexpected argument '%s'", cmd->name, argv[first]);
		first = -EINVAL;
	}
	ret = first < 0 ? -EINVAL : cmd->run(params);
	if (ret == -EINVAL) {
		mk_cli_usage(&cmd->cli, stderr);
		ret = 2;
	}
out:
	free(params);
	return ret;
}
