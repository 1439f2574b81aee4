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
};

/*
 * Parses @argv into @params. Returns the index of the first positional
 * argument (argc when there is none), or -EINVAL after logging why.
 */
int mk_cli_parse(const struct mk_cli *cli, int argc, char **argv, void *params);

/* --help text: the usage line and one line per option. */
void mk_cli_usage(const struct mk_cli *cli, FILE *out);

/*
 * Strict unsigned number for option --@name: decimal or 0x hex, no sign, no
 * blanks, within [min, max]. 0, or -EINVAL after logging why.
 */
int mk_cli_u32(const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *out);

#endif /* MK_CLI_H */
