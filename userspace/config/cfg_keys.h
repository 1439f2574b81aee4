/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a module declares its configuration keys (docs/configuration.md).
 *
 * Each module that has settings owns one struct for them (struct
 * mk_flow_cfg, struct mk_stream_cfg, ...) and one struct mk_cfg_table: its
 * keys as full paths from the top of the YAML file ("flow.hash-size",
 * "flow-timeouts.tcp.new"), each naming its type, bounds and field, plus the
 * module's defaults and cross-key checks. config/config.c registers the
 * tables; config/cfg_yaml.c walks the YAML tree and finds a key's row by
 * its path; a key without a row is an error. Adding a setting is one row in
 * its module.
 *
 * Rows are matched by path: a row "decoder.vxlan.enabled" makes `decoder`
 * and `decoder.vxlan` mappings of the file, so nested sections need no
 * declaration of their own.
 *
 * Keys whose value is a list or a map (interfaces, rule files, variables,
 * outputs) use MK_CFG_CUSTOM and read the YAML node through the small API at
 * the end of this file; libyaml stays inside cfg_yaml.c.
 */
#ifndef MK_CFG_KEYS_H
#define MK_CFG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum mk_cfg_type {
	MK_CFG_UINT,	   /* unsigned integer (decimal or 0x hex) in [min, max] */
	MK_CFG_SIZE,	   /* bytes: 64mb, 1gb, 512kb, 4KiB, or a plain number */
	MK_CFG_SECONDS_NS, /* seconds in the file, nanoseconds in the field */
	MK_CFG_BOOL,	   /* yes/no, true/false, on/off, 1/0 */
	MK_CFG_ENUM,	   /* one of .names */
	MK_CFG_STRING,	   /* into a char array; "" (or no value) allowed unless .nonempty */
	MK_CFG_CUSTOM,	   /* the module reads the node: .parse and .dump */
};

/* An enum's spellings; the first one with a value is how it is printed. */
struct mk_cfg_name {
	const char *name;
	unsigned int value;
};

struct mk_cfg_ctx;

struct mk_cfg_key {
	const char *path; /* "flow.hash-size": the full key path */
	enum mk_cfg_type type;
	size_t off;	   /* of the field in the module's struct */
	size_t size;	   /* of the field: integers 1, 2, 4 or 8; strings their array */
	uint64_t min, max; /* numbers: inclusive bounds (seconds for SECONDS_NS) */
	const struct mk_cfg_name *names; /* MK_CFG_ENUM: terminated by a NULL name */
	bool nonempty;			 /* MK_CFG_STRING */
	/* Numbers: an extra rule inside [min, max] and how the error states it. */
	bool (*valid)(uint64_t v);
	const char *must; /* "0, 4 or 8" -> "'5' must be 0, 4 or 8" */
	/*
	 * MK_CFG_CUSTOM: reads @node into the module's struct at @base; returns
	 * 0 or the -errno of mk_cfg_error(). @path is the key, for messages.
	 * dump prints the value as --dump-config shows it ("path = value\n").
	 */
	int (*parse)(struct mk_cfg_ctx *x, int node, const char *path, void *base);
	void (*dump)(FILE *out, const char *path, const void *base);
};

struct mk_cfg_table {
	const char *name; /* the module, in messages */
	const struct mk_cfg_key *keys;
	unsigned int nkeys;
	/* Sets every field of the module's struct to its default (the struct is zeroed first). */
	void (*defaults)(void *base);
	/*
	 * Optional: rules between keys, run after the whole file is read. On a
	 * violation: -EINVAL and a message naming the keys in @msg.
	 */
	int (*check)(const void *base, char *msg, size_t len);
};

#define MK_CFG_FIELD(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define MK_CFG_UINT(p, T, f, lo, hi)                                                           \
	{                                                                                      \
		.path = (p), .type = MK_CFG_UINT, MK_CFG_FIELD(T, f), .min = (lo), .max = (hi) \
	}
#define MK_CFG_SIZE(p, T, f, lo, hi)                                                           \
	{                                                                                      \
		.path = (p), .type = MK_CFG_SIZE, MK_CFG_FIELD(T, f), .min = (lo), .max = (hi) \
	}
#define MK_CFG_SECONDS_NS(p, T, f, lo, hi)                                               \
	{                                                                                \
		.path = (p), .type = MK_CFG_SECONDS_NS, MK_CFG_FIELD(T, f), .min = (lo), \
		.max = (hi)                                                              \
	}
#define MK_CFG_BOOL(p, T, f)                                                   \
	{                                                                      \
		.path = (p), .type = MK_CFG_BOOL, MK_CFG_FIELD(T, f), .max = 1 \
	}
#define MK_CFG_ENUM(p, T, f, n)                                                    \
	{                                                                          \
		.path = (p), .type = MK_CFG_ENUM, MK_CFG_FIELD(T, f), .names = (n) \
	}
#define MK_CFG_STRING(p, T, f)                                         \
	{                                                              \
		.path = (p), .type = MK_CFG_STRING, MK_CFG_FIELD(T, f) \
	}
#define MK_CFG_STRING_NONEMPTY(p, T, f)                                                  \
	{                                                                                \
		.path = (p), .type = MK_CFG_STRING, MK_CFG_FIELD(T, f), .nonempty = true \
	}
/* a number with an extra rule: MK_CFG_UINT_IF("x", T, f, 0, 8, is_pow2, "a power of two") */
#define MK_CFG_UINT_IF(p, T, f, lo, hi, ok, text)                                               \
	{                                                                                       \
		.path = (p), .type = MK_CFG_UINT, MK_CFG_FIELD(T, f), .min = (lo), .max = (hi), \
		.valid = (ok), .must = (text)                                                   \
	}
#define MK_CFG_CUSTOM(p, parse_fn, dump_fn)                                                \
	{                                                                                  \
		.path = (p), .type = MK_CFG_CUSTOM, .parse = (parse_fn), .dump = (dump_fn) \
	}

/* ---- for MK_CFG_CUSTOM parsers ----------------------------------------------------------- */

enum mk_cfg_kind {
	MK_CFG_NODE_NULL, /* `key:` with no value, `~` or `null` */
	MK_CFG_NODE_SCALAR,
	MK_CFG_NODE_SEQUENCE,
	MK_CFG_NODE_MAPPING,
};

enum mk_cfg_kind mk_cfg_node_kind(const struct mk_cfg_ctx *x, int node);
/* A sequence's items or a mapping's pairs. */
unsigned int mk_cfg_node_len(const struct mk_cfg_ctx *x, int node);
int mk_cfg_seq_item(const struct mk_cfg_ctx *x, int node, unsigned int i);
int mk_cfg_map_key(const struct mk_cfg_ctx *x, int node, unsigned int i);
int mk_cfg_map_value(const struct mk_cfg_ctx *x, int node, unsigned int i);

/*
 * Logs "FILE:LINE:COLUMN: PATH: message" at @node (one line, whatever the
 * arguments hold) and returns @err, so that a parser ends with
 * `return mk_cfg_error(x, node, path, -EINVAL, "...")`.
 */
int mk_cfg_error(struct mk_cfg_ctx *x, int node, const char *path, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A scalar's text (NUL-terminated, none inside) in *out, or an error naming @path. */
int mk_cfg_scalar(struct mk_cfg_ctx *x, int node, const char *path, const char **out);
/* The same, not empty (a group name, a rule file). */
int mk_cfg_scalar_nonempty(struct mk_cfg_ctx *x, int node, const char *path, const char **out);
/* An unsigned number in [min, max], with the error text of MK_CFG_UINT. */
int mk_cfg_uint(struct mk_cfg_ctx *x, int node, const char *path, uint64_t min, uint64_t max,
		uint64_t *out);
/* A mapping (or no value) whose keys are rows under @path, as the loader walks any section. */
int mk_cfg_walk(struct mk_cfg_ctx *x, int node, const char *path);
/* Where in the file @node starts, "12:5", for "first given at" messages. */
const char *mk_cfg_where(const struct mk_cfg_ctx *x, int node, char *buf, size_t len);
/*
 * Memory that lives as long as the configuration being loaded (released by
 * mk_config_free): lists and copies of strings. NULL with an error logged
 * (-ENOMEM) when out of memory.
 */
void *mk_cfg_alloc(struct mk_cfg_ctx *x, size_t size);
char *mk_cfg_strdup(struct mk_cfg_ctx *x, const char *s);

/* For dump functions: @s as --dump-config prints a string (quoted when it must be). */
void mk_cfg_print_str(FILE *out, const char *s);
/* A node's kind as messages name it ("a mapping"). */
const char *mk_cfg_kind_name(enum mk_cfg_kind k);

/* ---- for the registry of tables (config/config.c) ------------------------------------- */

#define MK_CFG_PATH_MAX 256 /* longest key path; longer ones match no row anyway */
#define MK_CFG_SHOW_MAX 48  /* bytes of a value quoted in a message */

/* A module's table and where its struct lies in the structure being loaded. */
struct mk_cfg_module {
	const struct mk_cfg_table *table;
	size_t off;
};

/*
 * Loads the YAML document of @len bytes at @buf (@name in messages) into the
 * modules' structs at @base + off; lists and strings go into memory chained
 * at *@mem (mk_cfg_mem_free). 0, or -errno with the error logged as one line.
 */
int mk_cfg_load(const struct mk_cfg_module *mods, unsigned int nmods, void *base, void **mem,
		const char *buf, size_t len, const char *name);
void mk_cfg_mem_free(void **mem);
/* Logs @line as one error line: control bytes from the file become '?'. */
void mk_cfg_log_line(char *line);
/*
 * The last line mk_cfg_log_line() logged on the calling thread ("" after
 * mk_cfg_clear_error()): a configuration reload quotes it in its reply.
 */
const char *mk_cfg_last_error(void);
void mk_cfg_clear_error(void);
/* @s as a message quotes it: at most MK_CFG_SHOW_MAX bytes, control bytes as '?'. */
const char *mk_cfg_show(const char *s, char *buf, size_t len);
/* Decimal, or hex with 0x; -EINVAL or -ERANGE. */
int mk_cfg_parse_number(const char *s, uint64_t *out);
/* An integer field of 1, 2, 4 or 8 bytes. */
uint64_t mk_cfg_field_get(const void *field, size_t size);
/* The value of a key that is not MK_CFG_CUSTOM, as --dump-config prints it. */
void mk_cfg_dump_value(FILE *out, const struct mk_cfg_key *k, const char *field);

#endif /* MK_CFG_KEYS_H */
