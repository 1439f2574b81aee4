/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One command-line library for every meerkat program: a program describes
 * its options once, as a table of struct mk_opt filling fields of its own
 * params struct, and gets getopt_long's tables, strict value checks and
 * --help from it. Rules that hold in every program: an option given twice
 * is an error (only MK_OPT_COUNT options such as -v, and MK_OPT_APPEND lists
 * such as -i IFACE, repeat), numbers are
 * plain decimal (or 0x hex) within their bounds, never negative, never
 * wrapped.
 *
 * A program with subcommands (meerkatctl) gives each command its own table,
 * params struct and defaults (struct mk_cli_cmd, MK_CLI_COMMAND);
 * mk_cli_dispatch() finds the command, parses its options and answers its
 * --help from the same table, so help text and parsing cannot drift.
 */
#ifndef MK_CLI_H
#define MK_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum mk_opt_type {
	MK_OPT_STR,    /* const char * */
	MK_OPT_U32,    /* uint32_t in [min, max] */
	MK_OPT_FLAG,   /* int set to 1; once */
	MK_OPT_COUNT,  /* int incremented each time (-v -v) */
	MK_OPT_APPEND, /* repeatable: const char *[max], then its int count right after it */
	MK_OPT_HELP,   /* int set to 1 (--help); mk_cli_dispatch then prints the usage */
};

struct mk_opt {
	const char *name; /* long name, without -- */
	int short_name;	  /* 0: long only */
	enum mk_opt_type type;
	size_t off; /* offsetof(the program's params struct, field) */
	const char *metavar;
	const char *help;
	uint32_t min, max; /* MK_OPT_U32: bounds; MK_OPT_APPEND: max is the array's size */
};

struct mk_cli {
	const char *prog;  /* for messages and usage */
	const char *usage; /* one line after "usage: " */
	const struct mk_opt *opts;
	unsigned int nopts;
	int stop_at_positional; /* first non-option ends the options (a subcommand follows) */
	const char *doc;	/* optional: what it does, between the usage line and the options */
	const char *epilog;	/* optional: after the options (exit status, notes) */
};

/*
 * A subcommand: its options fill a copy of @defaults (@params_size bytes)
 * and @run gets it. @run returns the exit status, or -EINVAL after logging a
 * usage error the table cannot express (a missing option, a bad
 * combination): the dispatcher then prints the command's usage and exits 2.
 */
/* The words after a command's options, for a command that takes some (max_args). */
struct mk_cli_args {
	int argc;
	char **argv;
};

struct mk_cli_cmd {
	const char *name;
	const char *summary; /* one line in the program's list of commands */
	struct mk_cli cli;   /* .prog is "PROGRAM COMMAND" */
	const void *defaults;
	size_t params_size;
	int (*run)(const void *params);
	/* words allowed after the options (0: none), put in the struct mk_cli_args at args_off */
	unsigned int max_args;
	size_t args_off;
};

/*
 * One command, by convention: the command "NAME" runs do_FUNC(const void
 * *params) with its option table FUNC_opts filling a copy of FUNC_defaults
 * (its params struct); USAGE is the line after "usage: PROG NAME", DOC and
 * EPILOG go around the options (NULL: none).
 */
#define MK_CLI_COMMAND(prog_name, cmd_name, func, summary_text, usage_line, doc_text, epilog_text) \
	{                                                                                          \
		.name = cmd_name, .summary = summary_text,                                         \
		.cli = { .prog = prog_name " " cmd_name,                                           \
			 .usage = usage_line,                                                      \
			 .opts = func##_opts,                                                      \
			 .nopts = sizeof(func##_opts) / sizeof(func##_opts[0]),                    \
			 .doc = doc_text,                                                          \
			 .epilog = epilog_text },                                                  \
		.defaults = &func##_defaults, .params_size = sizeof(func##_defaults),              \
		.run = do_##func,                                                                  \
	}

/* The same for a command taking up to @nargs words, put in @params' struct mk_cli_args field @field. */
#define MK_CLI_COMMAND_ARGS(prog_name, cmd_name, func, summary_text, usage_line, doc_text, \
			    epilog_text, nargs, field)                                     \
	{                                                                                  \
		.name = cmd_name, .summary = summary_text,                                 \
		.cli = { .prog = prog_name " " cmd_name,                                   \
			 .usage = usage_line,                                              \
			 .opts = func##_opts,                                              \
			 .nopts = sizeof(func##_opts) / sizeof(func##_opts[0]),            \
			 .doc = doc_text,                                                  \
			 .epilog = epilog_text },                                          \
		.defaults = &func##_defaults, .params_size = sizeof(func##_defaults),      \
		.run = do_##func, .max_args = (nargs),                                     \
		.args_off = offsetof(__typeof__(func##_defaults), field),                  \
	}

/*
 * Parses @argv into @params. Returns the index of the first positional
 * argument (argc when there is none), or -EINVAL after logging why.
 */
int mk_cli_parse(const struct mk_cli *cli, int argc, char **argv, void *params);

/* --help text: the usage line, the doc, one line per option, the epilog. */
void mk_cli_usage(const struct mk_cli *cli, FILE *out);

/* A program's --help with commands: its usage, then one line per command. */
void mk_cli_usage_cmds(const struct mk_cli *prog, const struct mk_cli_cmd *const *cmds,
		       unsigned int ncmds, FILE *out);

/*
 * Runs the command argv[0] names with argv[1..] as its options: they fill a
 * copy of the command's defaults, and --help prints its usage. Returns the
 * command's exit status; 0 after --help; 2 after logging why for an unknown
 * command (then @prog's usage), a bad option, an extra argument or a usage
 * error of the command's own (then the command's usage), all on stderr; 1
 * when memory runs out.
 */
int mk_cli_dispatch(const struct mk_cli *prog, const struct mk_cli_cmd *const *cmds,
		    unsigned int ncmds, int argc, char **argv);

/*
 * Strict unsigned number for option --@name: decimal or 0x hex, no sign, no
 * blanks, within [min, max]. 0, or -EINVAL after logging why.
 */
int mk_cli_u32(const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *out);

#endif /* MK_CLI_H */
