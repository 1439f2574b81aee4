// SPDX-License-Identifier: GPL-2.0-only
/*
 * The YAML side of the configuration: libyaml reads the whole file into a
 * document; the walk below matches every key path against the rows of the
 * tables it is given (cfg_keys.h) and stores typed, range-checked values
 * into the structs those tables describe. The first problem stops the load
 * with one error line: FILE:LINE:COLUMN: KEY.PATH: what is wrong. Values
 * stored before the error stay; each of them was checked.
 *
 * It knows no module: config/config.c says which tables make up struct
 * mk_config and where their structs lie in it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "cfg_keys.h"
#include "compat.h"
#include "log.h"

#define PATH_MAX_LEN MK_CFG_PATH_MAX
#define DEPTH_MAX 16 /* the deepest row is 4 levels; aliases may not loop */
#define SHOW_MAX MK_CFG_SHOW_MAX
#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)

struct mk_cfg_ctx {
	yaml_document_t doc;
	const char *name; /* the file, in messages */
	const struct mk_cfg_module *mods;
	unsigned int nmods;
	char *base; /* what the modules' offsets count from */
	void **mem; /* the chain mk_cfg_alloc() adds to */
	unsigned int depth;
};

/* ---- memory that lives as long as the configuration -------------------------------------- */

struct mem_block {
	struct mem_block *next;
	max_align_t data[];
};

static void *chain_alloc(void **mem, size_t size)
{
	struct mem_block *b;

	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = *mem;
	*mem = b;
	return b->data;
}

void mk_cfg_mem_free(void **mem)
{
	struct mem_block *b = *mem, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	*mem = NULL;
}

/* ---- messages ----------------------------------------------------------------------------- */

/* @s as a message quotes it: at most SHOW_MAX bytes, control bytes as '?'. */
const char *mk_cfg_show(const char *s, char *buf, size_t len)
{
	size_t i, n = strlen(s);

	if (n > SHOW_MAX)
		n = SHOW_MAX;
	if (n > len - 4)
		n = len - 4;
	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	strcpy(buf + i, s[n] ? "..." : "");
	return buf;
}

/* The last line mk_cfg_log_line() logged on this thread: a reload's reply quotes it. */
static _Thread_local char last_error[512];

/* Logs one line: control bytes from the file must not break it into several. */
void mk_cfg_log_line(char *line)
{
	char *p;

	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	snprintf(last_error, sizeof(last_error), "%s", line);
	mk_err("%s", line);
}

const char *mk_cfg_last_error(void)
{
	return last_error;
}

void mk_cfg_clear_error(void)
{
	last_error[0] = '\0';
}

static yaml_node_t *node_at(const struct mk_cfg_ctx *x, int id)
{
	return id > 0 ? yaml_document_get_node((yaml_document_t *)&x->doc, id) : NULL;
}

const char *mk_cfg_where(const struct mk_cfg_ctx *x, int node, char *buf, size_t len)
{
	yaml_node_t *n = node_at(x, node);

	if (n)
		snprintf(buf, len, "%zu:%zu", n->start_mark.line + 1, n->start_mark.column + 1);
	else
		snprintf(buf, len, "?");
	return buf;
}

int mk_cfg_error(struct mk_cfg_ctx *x, int node, const char *path, int err, const char *fmt, ...)
{
	char msg[512], line[1024], where[48] = "";
	yaml_node_t *n = node_at(x, node);
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		strcpy(msg, "?");
	va_end(ap);
	if (n)
		snprintf(where, sizeof(where), ":%zu:%zu", n->start_mark.line + 1,
			 n->start_mark.column + 1);
	if (path && *path)
		snprintf(line, sizeof(line), "%s%s: %s: %s", x->name, where, path, msg);
	else
		snprintf(line, sizeof(line), "%s%s: %s", x->name, where, msg);
	mk_cfg_log_line(line);
	return err;
}

/* ---- nodes -------------------------------------------------------------------------------- */

static bool is_null_word(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

enum mk_cfg_kind mk_cfg_node_kind(const struct mk_cfg_ctx *x, int node)
{
	yaml_node_t *n = node_at(x, node);

	if (!n)
		return MK_CFG_NODE_NULL;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    is_null_word((const char *)n->data.scalar.value))
			return MK_CFG_NODE_NULL;
		return MK_CFG_NODE_SCALAR;
	case YAML_SEQUENCE_NODE:
		return MK_CFG_NODE_SEQUENCE;
	case YAML_MAPPING_NODE:
		return MK_CFG_NODE_MAPPING;
	default:
		return MK_CFG_NODE_NULL;
	}
}

const char *mk_cfg_kind_name(enum mk_cfg_kind k)
{
	switch (k) {
	case MK_CFG_NODE_SCALAR:
		return "a value";
	case MK_CFG_NODE_SEQUENCE:
		return "a list";
	case MK_CFG_NODE_MAPPING:
		return "a mapping";
	default:
		return "nothing";
	}
}

unsigned int mk_cfg_node_len(const struct mk_cfg_ctx *x, int node)
{
	yaml_node_t *n = node_at(x, node);

	if (n && n->type == YAML_SEQUENCE_NODE)
		return (unsigned int)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (n && n->type == YAML_MAPPING_NODE)
		return (unsigned int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	return 0;
}

int mk_cfg_seq_item(const struct mk_cfg_ctx *x, int node, unsigned int i)
{
	return node_at(x, node)->data.sequence.items.start[i];
}

int mk_cfg_map_key(const struct mk_cfg_ctx *x, int node, unsigned int i)
{
	return node_at(x, node)->data.mapping.pairs.start[i].key;
}

int mk_cfg_map_value(const struct mk_cfg_ctx *x, int node, unsigned int i)
{
	return node_at(x, node)->data.mapping.pairs.start[i].value;
}

int mk_cfg_scalar(struct mk_cfg_ctx *x, int node, const char *path, const char **out)
{
	enum mk_cfg_kind k = mk_cfg_node_kind(x, node);
	yaml_node_t *n = node_at(x, node);

	if (k == MK_CFG_NODE_NULL) {
		*out = "";
		return 0;
	}
	if (k != MK_CFG_NODE_SCALAR)
		return mk_cfg_error(x, node, path, -EINVAL, "expected a single value, found %s",
				    mk_cfg_kind_name(k));
	/* "\0" is valid YAML; a C string cannot carry it */
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return mk_cfg_error(x, node, path, -EINVAL, "the value contains a NUL byte");
	*out = (const char *)n->data.scalar.value;
	return 0;
}

int mk_cfg_scalar_nonempty(struct mk_cfg_ctx *x, int node, const char *path, const char **out)
{
	int err = mk_cfg_scalar(x, node, path, out);

	if (!err && !**out)
		err = mk_cfg_error(x, node, path, -EINVAL, "must not be empty");
	return err;
}

void *mk_cfg_alloc(struct mk_cfg_ctx *x, size_t size)
{
	void *p = chain_alloc(x->mem, size);

	if (!p)
		mk_cfg_error(x, 0, NULL, -ENOMEM, "out of memory");
	return p;
}

char *mk_cfg_strdup(struct mk_cfg_ctx *x, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = mk_cfg_alloc(x, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void mk_cfg_print_str(FILE *out, const char *s)
{
	const char *p;
	bool plain = *s && !isspace((unsigned char)*s);

	for (p = s; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("_./-+@", *p);
	if (plain) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", (unsigned char)*p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* ---- scalar values ------------------------------------------------------------------------ */

/* Decimal, or hex with 0x. -EINVAL if not a number, -ERANGE if past 64 bits. */
static int parse_u64(const char *s, const char **end, uint64_t *out)
{
	unsigned int base = 10, d;
	uint64_t v = 0;
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p)))
		return -EINVAL;
	for (; *p; p++) {
		if (isdigit((unsigned char)*p))
			d = (unsigned int)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*end = p;
	*out = v;
	return 0;
}

int mk_cfg_parse_number(const char *s, uint64_t *out)
{
	const char *end;
	int err = parse_u64(s, &end, out);

	return err ? err : *end ? -EINVAL : 0;
}

/* A byte count: "4096", "64mb", "1 GiB" (Suricata's units; all powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		unsigned int shift;
	} units[] = { { "kb", 10 },  { "kib", 10 }, { "mb", 20 },
		      { "mib", 20 }, { "gb", 30 },  { "gib", 30 } };
	const char *end;
	unsigned int i;
	uint64_t v;
	int err = parse_u64(s, &end, &v);

	if (err)
		return err;
	while (*end == ' ')
		end++;
	if (!*end) {
		*out = v;
		return 0;
	}
	for (i = 0; i < MK_ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		/* a suffix must not wrap the value back into range */
		if (v > UINT64_MAX >> units[i].shift)
			return -ERANGE;
		*out = v << units[i].shift;
		return 0;
	}
	return -EINVAL;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* 64mb, 1gb, 512kb when exact, else the byte count */
static const char *size_str(uint64_t v, char *buf, size_t len)
{
	if (v && !(v % GB))
		snprintf(buf, len, "%llugb", (unsigned long long)(v / GB));
	else if (v && !(v % MB))
		snprintf(buf, len, "%llumb", (unsigned long long)(v / MB));
	else if (v && !(v % KB))
		snprintf(buf, len, "%llukb", (unsigned long long)(v / KB));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void field_set(void *field, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(field, &u8, 1);
		break;
	case 2:
		memcpy(field, &u16, 2);
		break;
	case 4:
		memcpy(field, &u32, 4);
		break;
	default:
		memcpy(field, &v, 8);
	}
}

uint64_t mk_cfg_field_get(const void *field, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, field, 1);
		return u8;
	case 2:
		memcpy(&u16, field, 2);
		return u16;
	case 4:
		memcpy(&u32, field, 4);
		return u32;
	default:
		memcpy(&u64, field, 8);
		return u64;
	}
}

/* What a key takes, as the error messages say it: "a number in [0, 86400]". */
static const char *expected(const struct mk_cfg_key *k, char *buf, size_t len)
{
	char lo[32], hi[32];
	size_t n;
	const struct mk_cfg_name *nm;

	switch (k->type) {
	case MK_CFG_UINT:
		snprintf(buf, len, "a number in [%llu, %llu]", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		break;
	case MK_CFG_SIZE:
		snprintf(buf, len, "a size in [%s, %s]", size_str(k->min, lo, sizeof(lo)),
			 size_str(k->max, hi, sizeof(hi)));
		break;
	case MK_CFG_SECONDS_NS:
		snprintf(buf, len, "a number of seconds in [%llu, %llu]",
			 (unsigned long long)k->min, (unsigned long long)k->max);
		break;
	case MK_CFG_BOOL:
		snprintf(buf, len, "a boolean (yes/no, true/false, on/off)");
		break;
	case MK_CFG_ENUM:
		n = (size_t)snprintf(buf, len, "one of");
		for (nm = k->names; nm->name && n < len; nm++) {
			/* aliases (a value named before) are accepted, not advertised */
			const struct mk_cfg_name *first = k->names;

			while (first->value != nm->value)
				first++;
			if (first == nm)
				n += (size_t)snprintf(buf + n, len - n, "%s %s",
						      nm == k->names ? "" : ",", nm->name);
		}
		break;
	default:
		snprintf(buf, len, "a value");
	}
	return buf;
}

static int set_value(struct mk_cfg_ctx *x, const struct mk_cfg_key *k, char *base, int node,
		     const char *path)
{
	char *field = base + k->off, want[160], shown[SHOW_MAX + 8];
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	const struct mk_cfg_name *nm;
	const char *s;
	uint64_t v = 0;
	bool b = false;
	int err;

	if (k->type == MK_CFG_CUSTOM)
		return k->parse(x, node, path, base);
	err = mk_cfg_scalar(x, node, path, &s);
	if (err)
		return err;
	if (k->type == MK_CFG_STRING) {
		if (strlen(s) >= k->size)
			return mk_cfg_error(x, node, path, -ERANGE, "'%s' is longer than %zu bytes",
					    mk_cfg_show(s, shown, sizeof(shown)), k->size - 1);
		if (k->nonempty && !*s)
			return mk_cfg_error(x, node, path, -EINVAL, "must not be empty");
		strcpy(field, s);
		return 0;
	}
	if (kind == MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL, "no value; expected %s",
				    expected(k, want, sizeof(want)));
	switch (k->type) {
	case MK_CFG_UINT:
	case MK_CFG_SECONDS_NS:
		err = mk_cfg_parse_number(s, &v);
		break;
	case MK_CFG_SIZE:
		err = parse_size(s, &v);
		break;
	case MK_CFG_BOOL:
		err = parse_bool(s, &b);
		v = b;
		break;
	case MK_CFG_ENUM:
		err = -EINVAL;
		for (nm = k->names; nm->name; nm++) {
			if (!strcasecmp(s, nm->name)) {
				v = nm->value;
				err = 0;
				break;
			}
		}
		break;
	default:
		err = -EINVAL;
	}
	/* an enum's names are its range */
	if (!err && k->type != MK_CFG_ENUM && (v < k->min || v > k->max))
		err = -ERANGE;
	if (err)
		return mk_cfg_error(x, node, path, err, "'%s' is not %s",
				    mk_cfg_show(s, shown, sizeof(shown)),
				    expected(k, want, sizeof(want)));
	if (k->valid && !k->valid(v))
		return mk_cfg_error(x, node, path, -EINVAL, "'%s' must be %s",
				    mk_cfg_show(s, shown, sizeof(shown)), k->must);
	if (k->type == MK_CFG_SECONDS_NS)
		v *= 1000000000ull; /* max <= 2^64 / 1e9 by the tables */
	field_set(field, k->size, v);
	return 0;
}

/* ---- the walk ----------------------------------------------------------------------------- */

/*
 * The row for @path, with the offset of its module's struct; or NULL, and
 * *section set when rows exist under @path (it is a mapping of the file).
 */
static const struct mk_cfg_key *find_key(const struct mk_cfg_ctx *x, const char *path, size_t *off,
					 bool *section)
{
	size_t n = strlen(path);
	unsigned int m, i;

	*section = false;
	for (m = 0; m < x->nmods; m++) {
		const struct mk_cfg_table *t = x->mods[m].table;

		for (i = 0; i < t->nkeys; i++) {
			const char *p = t->keys[i].path;

			if (!strcmp(p, path)) {
				*off = x->mods[m].off;
				return &t->keys[i];
			}
			if (!strncmp(p, path, n) && p[n] == '.')
				*section = true;
		}
	}
	return NULL;
}

static bool same_scalar(const yaml_node_t *a, const yaml_node_t *b)
{
	return a->type == YAML_SCALAR_NODE && b->type == YAML_SCALAR_NODE &&
	       a->data.scalar.length == b->data.scalar.length &&
	       !memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length);
}

int mk_cfg_walk(struct mk_cfg_ctx *x, int node, const char *path)
{
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	char child[PATH_MAX_LEN], where[32];
	unsigned int i, j, n;
	int err = 0;

	if (kind == MK_CFG_NODE_NULL)
		return 0; /* a section with every key commented out */
	if (kind != MK_CFG_NODE_MAPPING)
		return mk_cfg_error(x, node, path, -EINVAL, "expected a mapping of keys, found %s",
				    mk_cfg_kind_name(kind));
	if (x->depth >= DEPTH_MAX)
		return mk_cfg_error(x, node, path, -EINVAL, "nested too deeply");
	x->depth++;
	n = mk_cfg_node_len(x, node);
	for (i = 0; i < n && !err; i++) {
		int kn = mk_cfg_map_key(x, node, i), vn = mk_cfg_map_value(x, node, i);
		const struct mk_cfg_key *row = NULL;
		bool section = false;
		const char *key;
		size_t off = 0;

		if (mk_cfg_node_kind(x, kn) != MK_CFG_NODE_SCALAR) {
			err = mk_cfg_error(x, kn, path, -EINVAL, "a key must be a name, found %s",
					   mk_cfg_kind_name(mk_cfg_node_kind(x, kn)));
			break;
		}
		err = mk_cfg_scalar(x, kn, path, &key);
		if (err)
			break;
		snprintf(child, sizeof(child), "%s%s%s", path, *path ? "." : "", key);
		for (j = 0; j < i; j++) {
			int prev = mk_cfg_map_key(x, node, j);

			if (!same_scalar(node_at(x, prev), node_at(x, kn)))
				continue;
			err = mk_cfg_error(x, kn, child, -EINVAL, "given twice (first at %s)",
					   mk_cfg_where(x, prev, where, sizeof(where)));
			break;
		}
		if (err)
			break;
		/* "flow.memcap" as one key would otherwise find the row */
		if (!strchr(key, '.') && strlen(path) + strlen(key) + 2 < sizeof(child))
			row = find_key(x, child, &off, &section);
		if (row)
			err = set_value(x, row, x->base + off, vn, child);
		else if (section)
			err = mk_cfg_walk(x, vn, child);
		else
			err = mk_cfg_error(x, kn, child, -EINVAL, "unknown key");
	}
	x->depth--;
	return err;
}

int mk_cfg_uint(struct mk_cfg_ctx *x, int node, const char *path, uint64_t min, uint64_t max,
		uint64_t *out)
{
	const struct mk_cfg_key k = { .type = MK_CFG_UINT, .min = min, .max = max };
	char want[96], shown[SHOW_MAX + 8];
	const char *s;
	int err = mk_cfg_scalar(x, node, path, &s);

	if (err)
		return err;
	if (mk_cfg_node_kind(x, node) == MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL, "no value; expected %s",
				    expected(&k, want, sizeof(want)));
	err = mk_cfg_parse_number(s, out);
	if (!err && (*out < min || *out > max))
		err = -ERANGE;
	if (err)
		return mk_cfg_error(x, node, path, err, "'%s' is not %s",
				    mk_cfg_show(s, shown, sizeof(shown)),
				    expected(&k, want, sizeof(want)));
	return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */

/* libyaml's own words and position; reader errors only know a byte offset. */
static int syntax_error(struct mk_cfg_ctx *x, yaml_parser_t *p, const char *buf, size_t len)
{
	size_t line = 0, col = 0, i;
	char msg[512], ctx[160] = "";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		mk_err("%s: out of memory", x->name);
		return -ENOMEM;
	case YAML_READER_ERROR:
		for (i = 0; i < p->problem_offset && i < len; i++) {
			col++;
			if (buf[i] == '\n') {
				line++;
				col = 0;
			}
		}
		if (p->problem_value != -1)
			snprintf(ctx, sizeof(ctx), " (byte 0x%02x)",
				 (unsigned int)p->problem_value & 0xff);
		snprintf(msg, sizeof(msg), "%s:%zu:%zu: YAML syntax error: %s%s", x->name, line + 1,
			 col + 1, p->problem ? p->problem : "unreadable input", ctx);
		break;
	default:
		if (p->problem_mark.index < len && buf[p->problem_mark.index] == '\t' &&
		    !(p->problem && strstr(p->problem, "tab")))
			snprintf(ctx, sizeof(ctx), " (a tab: indent with spaces)");
		else if (p->context)
			snprintf(ctx, sizeof(ctx), " (%s at %zu:%zu)", p->context,
				 p->context_mark.line + 1, p->context_mark.column + 1);
		snprintf(msg, sizeof(msg), "%s:%zu:%zu: YAML syntax error: %s%s", x->name,
			 p->problem_mark.line + 1, p->problem_mark.column + 1,
			 p->problem ? p->problem : "invalid YAML", ctx);
	}
	mk_cfg_log_line(msg);
	return -EINVAL;
}

int mk_cfg_load(const struct mk_cfg_module *mods, unsigned int nmods, void *base, void **mem,
		const char *buf, size_t len, const char *name)
{
	struct mk_cfg_ctx x = {
		.name = name,
		.mods = mods,
		.nmods = nmods,
		.base = base,
		.mem = mem,
	};
	yaml_document_t next;
	yaml_parser_t p;
	yaml_node_t *root;
	int err = 0;

	if (!yaml_parser_initialize(&p)) {
		mk_err("%s: out of memory", name);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&p, &x.doc)) {
		err = syntax_error(&x, &p, buf, len);
		goto out_parser;
	}
	root = yaml_document_get_root_node(&x.doc);
	/* the root is node 1; an empty file or document sets nothing */
	if (root && mk_cfg_node_kind(&x, 1) != MK_CFG_NODE_NULL &&
	    mk_cfg_node_kind(&x, 1) != MK_CFG_NODE_MAPPING)
		err = mk_cfg_error(&x, 1, NULL, -EINVAL,
				   "the top level must be a mapping of keys (flow:, ...), found %s",
				   mk_cfg_kind_name(mk_cfg_node_kind(&x, 1)));
	else if (root)
		err = mk_cfg_walk(&x, 1, "");
	if (!err) {
		/* a stray second document would otherwise be ignored in silence */
		if (!yaml_parser_load(&p, &next)) {
			err = syntax_error(&x, &p, buf, len);
		} else {
			root = yaml_document_get_root_node(&next);
			if (root) {
				char msg[512];

				snprintf(msg, sizeof(msg),
					 "%s:%zu:%zu: a second YAML document; only one is read",
					 name, root->start_mark.line + 1,
					 root->start_mark.column + 1);
				mk_cfg_log_line(msg);
				err = -EINVAL;
			}
			yaml_document_delete(&next);
		}
	}
	yaml_document_delete(&x.doc);
out_parser:
	yaml_parser_delete(&p);
	return err;
}

/* ---- printing ----------------------------------------------------------------------------- */

void mk_cfg_dump_value(FILE *out, const struct mk_cfg_key *k, const char *field)
{
	uint64_t v = k->type == MK_CFG_STRING ? 0 : mk_cfg_field_get(field, k->size);
	const struct mk_cfg_name *nm;
	char buf[32];

	switch (k->type) {
	case MK_CFG_UINT:
		fprintf(out, "%llu", (unsigned long long)v);
		break;
	case MK_CFG_SIZE:
		fputs(size_str(v, buf, sizeof(buf)), out);
		break;
	case MK_CFG_SECONDS_NS:
		fprintf(out, "%llu", (unsigned long long)(v / 1000000000ull));
		break;
	case MK_CFG_BOOL:
		fputs(v ? "yes" : "no", out);
		break;
	case MK_CFG_ENUM:
		for (nm = k->names; nm->name && nm->value != v; nm++)
			;
		if (nm->name)
			fputs(nm->name, out);
		else
			fprintf(out, "%llu", (unsigned long long)v);
		break;
	case MK_CFG_STRING:
		mk_cfg_print_str(out, field);
		break;
	default:
		break;
	}
}
