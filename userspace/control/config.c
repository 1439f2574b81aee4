// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration loader. libyaml reads the whole file into a document;
 * the walk below matches every key path against the rows the modules
 * registered (cfg_keys.h) and stores typed, range-checked values into their
 * structs inside struct mk_config. The first problem stops the load with
 * one error line: FILE:LINE:COLUMN: KEY.PATH: what is wrong. Values stored
 * before the error stay; each of them was checked.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "config.h"
#include "decoder_cfg.h"
#include "log.h"

#define PATH_MAX_LEN 256  /* longest key path; longer ones match no row anyway */
#define DEPTH_MAX 16	  /* the deepest row is 4 levels; aliases may not loop */
#define FILE_MAX (16u << 20)
#define SHOW_MAX 48	  /* bytes of a value quoted in a message */
#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)

struct mk_cfg_ctx {
	yaml_document_t doc;
	const char *name; /* the file, in messages */
	struct mk_config *c;
	unsigned int depth;
};

/* ---- the bypass list: no module of its own yet ---------------------------------------------- */

static int bypass_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base);
static void bypass_dump(FILE *out, const char *path, const void *base);

static const struct mk_cfg_key bypass_keys[] = {
	MK_CFG_CUSTOM("bypass.cidr", bypass_parse, bypass_dump),
};

static const struct mk_cfg_table bypass_table = {
	.name = "bypass",
	.keys = bypass_keys,
	.nkeys = MK_ARRAY_SIZE(bypass_keys),
};

/* Every module with settings and where its struct lives; the order is --dump-config's. */
static const struct module {
	const struct mk_cfg_table *table;
	size_t off;
} modules[] = {
	{ &mk_rules_cfg_table, offsetof(struct mk_config, rules) },
	{ &mk_output_cfg_table, offsetof(struct mk_config, output) },
	{ &mk_capture_cfg_table, offsetof(struct mk_config, capture) },
	{ &mk_decoder_cfg_table, offsetof(struct mk_config, parse) },
	{ &mk_flow_cfg_table, offsetof(struct mk_config, flow) },
	{ &mk_stream_cfg_table, offsetof(struct mk_config, stream) },
	{ &mk_defrag_cfg_table, offsetof(struct mk_config, defrag) },
	{ &bypass_table, 0 },
};

/* ---- memory that lives as long as the configuration -------------------------------------- */

struct mem_block {
	struct mem_block *next;
	max_align_t data[];
};

static void *config_alloc(struct mk_config *c, size_t size)
{
	struct mem_block *b;

	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = c->mem;
	c->mem = b;
	return b->data;
}

/* ---- messages ----------------------------------------------------------------------------- */

/* @s as a message quotes it: at most SHOW_MAX bytes, control bytes as '?'. */
static const char *show(const char *s, char *buf, size_t len)
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

/* Logs one line: control bytes from the file must not break it into several. */
static void log_line(char *line)
{
	char *p;

	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	mk_err("%s", line);
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
	log_line(line);
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

static const char *kind_name(enum mk_cfg_kind k)
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
				    kind_name(k));
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
	void *p = config_alloc(x->c, size);

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

static int parse_number(const char *s, uint64_t *out)
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
	} units[] = { { "kb", 10 }, { "kib", 10 }, { "mb", 20 }, { "mib", 20 },
		      { "gb", 30 }, { "gib", 30 } };
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

static uint64_t field_get(const void *field, size_t size)
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
					    show(s, shown, sizeof(shown)), k->size - 1);
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
		err = parse_number(s, &v);
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
				    show(s, shown, sizeof(shown)), expected(k, want, sizeof(want)));
	if (k->valid && !k->valid(v))
		return mk_cfg_error(x, node, path, -EINVAL, "'%s' must be %s",
				    show(s, shown, sizeof(shown)), k->must);
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
static const struct mk_cfg_key *find_key(const char *path, size_t *off, bool *section)
{
	size_t n = strlen(path);
	unsigned int m, i;

	*section = false;
	for (m = 0; m < MK_ARRAY_SIZE(modules); m++) {
		const struct mk_cfg_table *t = modules[m].table;

		for (i = 0; i < t->nkeys; i++) {
			const char *p = t->keys[i].path;

			if (!strcmp(p, path)) {
				*off = modules[m].off;
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
				    kind_name(kind));
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
					   kind_name(mk_cfg_node_kind(x, kn)));
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
			row = find_key(child, &off, &section);
		if (row)
			err = set_value(x, row, (char *)x->c + off, vn, child);
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
	err = parse_number(s, out);
	if (!err && (*out < min || *out > max))
		err = -ERANGE;
	if (err)
		return mk_cfg_error(x, node, path, err, "'%s' is not %s",
				    show(s, shown, sizeof(shown)),
				    expected(&k, want, sizeof(want)));
	return 0;
}

/* ---- bypass.cidr -------------------------------------------------------------------------- */

static int bypass_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_config *c = base;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	char item[PATH_MAX_LEN], shown[SHOW_MAX + 8];
	struct mk_cidr *list = NULL;
	unsigned int i, n = 0;
	const char *s;
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL, "expected a list of prefixes, found %s",
				    kind_name(kind));
	if (n) {
		list = mk_cfg_alloc(x, n * sizeof(*list));
		if (!list)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i);

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar_nonempty(x, it, item, &s);
		if (err)
			return err;
		if (mk_cidr_parse(s, &list[i]))
			return mk_cfg_error(x, it, item, -EINVAL,
					    "'%s' is not an IPv4 or IPv6 address or prefix",
					    show(s, shown, sizeof(shown)));
	}
	c->bypass = list;
	c->nbypass = n;
	return 0;
}

static void bypass_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_config *c = base;
	char a[INET6_ADDRSTRLEN];
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < c->nbypass; i++) {
		const struct mk_cidr *r = &c->bypass[i];

		inet_ntop(r->family == MK_FAMILY_IPV4 ? AF_INET : AF_INET6, r->addr, a, sizeof(a));
		fprintf(out, "%s%s/%u", i ? ", " : "", a, r->prefix);
	}
	fputs("]\n", out);
}

int mk_cidr_parse(const char *s, struct mk_cidr *out)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long prefix;
	unsigned int i, maxbits;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	memset(out, 0, sizeof(*out));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, out->addr) == 1) {
		out->family = MK_FAMILY_IPV4;
		maxbits = 32;
	} else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
		out->family = MK_FAMILY_IPV6;
		maxbits = 128;
	} else {
		return -EINVAL;
	}
	prefix = maxbits;
	if (slash) {
		if (!isdigit((unsigned char)*slash))
			return -EINVAL;
		errno = 0;
		prefix = strtoul(slash, &end, 10);
		if (errno || *end || prefix > maxbits)
			return -EINVAL;
	}
	out->prefix = (uint8_t)prefix;
	/* clear host bits so matching is a masked compare */
	for (i = 0; i < 4; i++) {
		uint32_t bits = prefix > i * 32 ? (uint32_t)(prefix - i * 32) : 0;
		uint32_t mask = bits >= 32 ? 0xffffffffu : bits ? ~(0xffffffffu >> bits) : 0;

		out->addr[i] &= htonl(mask);
	}
	return 0;
}

int mk_config_bypassed(const struct mk_config *c, uint8_t family, const uint32_t *addr)
{
	unsigned int n, i;

	for (n = 0; n < c->nbypass; n++) {
		const struct mk_cidr *r = &c->bypass[n];
		int hit = r->family == family;

		for (i = 0; hit && i < 4; i++) {
			uint32_t bits = r->prefix > i * 32 ? (uint32_t)(r->prefix - i * 32) : 0;
			uint32_t mask = bits >= 32 ? 0xffffffffu
					: bits	   ? ~(0xffffffffu >> bits)
						   : 0;

			hit = (addr[i] & htonl(mask)) == r->addr[i];
		}
		if (hit)
			return 1;
	}
	return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */

/* Settings one key sets for another module: the daemon's stats timer. */
static void derive(struct mk_config *c)
{
	c->capture.stats_interval = c->output.stats_enabled ? c->output.stats_interval : 0;
}

void mk_config_defaults(struct mk_config *c)
{
	unsigned int m;

	memset(c, 0, sizeof(*c));
	for (m = 0; m < MK_ARRAY_SIZE(modules); m++)
		if (modules[m].table->defaults)
			modules[m].table->defaults((char *)c + modules[m].off);
	derive(c);
}

void mk_config_free(struct mk_config *c)
{
	struct mem_block *b = c->mem, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	/* what pointed into the freed memory goes back to the defaults */
	mk_config_defaults(c);
}

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
	log_line(msg);
	return -EINVAL;
}

static int run_checks(struct mk_config *c, const char *name)
{
	char msg[256], line[512];
	unsigned int m;
	int err;

	for (m = 0; m < MK_ARRAY_SIZE(modules); m++) {
		if (!modules[m].table->check)
			continue;
		err = modules[m].table->check((char *)c + modules[m].off, msg, sizeof(msg));
		if (err) {
			snprintf(line, sizeof(line), "%s: %s", name, msg);
			log_line(line);
			return err;
		}
	}
	return 0;
}

int mk_config_load_buf(struct mk_config *c, const char *buf, size_t len, const char *name)
{
	struct mk_cfg_ctx x = { .name = name, .c = c };
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
				   kind_name(mk_cfg_node_kind(&x, 1)));
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
				log_line(msg);
				err = -EINVAL;
			}
			yaml_document_delete(&next);
		}
	}
	yaml_document_delete(&x.doc);
	if (!err)
		err = run_checks(c, name);
	derive(c);
out_parser:
	yaml_parser_delete(&p);
	return err;
}

int mk_config_load(struct mk_config *c, const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f) {
		err = -errno;
		mk_err("%s: %s", path, strerror(-err));
		return err;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			cap = cap ? cap * 2 : 64 * KB;
			if (cap > FILE_MAX + 1)
				cap = FILE_MAX + 1;
			if (len == cap) {
				err = -EFBIG;
				mk_err("%s: larger than %u MiB; not a configuration file?", path,
				       FILE_MAX >> 20);
				goto out;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				mk_err("%s: out of memory", path);
				goto out;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n)
			continue;
		if (ferror(f)) {
			err = -EIO;
			mk_err("%s: read error", path);
			goto out;
		}
		break;
	}
	err = mk_config_load_buf(c, buf ? buf : "", len, path);
out:
	free(buf);
	fclose(f);
	return err;
}

/* ---- the command line over the file ------------------------------------------------------- */

int mk_config_apply_cli(struct mk_config *c, const struct mk_config_cli *cli)
{
	char msg[256], shown[SHOW_MAX + 8];
	uint64_t v;
	int err;

	if (!cli)
		return 0;
	if (cli->workers) {
		err = parse_number(cli->workers, &v);
		if (!err && (v < 1 || v > MK_MAX_WORKERS))
			err = -ERANGE;
		if (err) {
			mk_err("--workers: '%s' is not a number in [1, %d]",
			       show(cli->workers, shown, sizeof(shown)), MK_MAX_WORKERS);
			return err;
		}
		c->capture.workers = (uint32_t)v;
	}
	if (cli->n_ifaces) {
		err = mk_capture_cfg_set_ifaces(&c->capture, cli->ifaces, cli->n_ifaces, msg,
						sizeof(msg));
		if (err) {
			mk_err("-i: %s", msg);
			return err;
		}
	}
	if (cli->log_dir) {
		if (!*cli->log_dir || strlen(cli->log_dir) >= sizeof(c->output.log_dir)) {
			mk_err("-l: '%s' is not a directory name of 1 to %zu bytes",
			       show(cli->log_dir, shown, sizeof(shown)),
			       sizeof(c->output.log_dir) - 1);
			return -EINVAL;
		}
		strcpy(c->output.log_dir, cli->log_dir);
	}
	if (cli->ctl_socket) {
		if (strlen(cli->ctl_socket) >= sizeof(c->capture.ctl_socket)) {
			mk_err("--unix-socket: '%s' is longer than %zu bytes",
			       show(cli->ctl_socket, shown, sizeof(shown)),
			       sizeof(c->capture.ctl_socket) - 1);
			return -EINVAL;
		}
		strcpy(c->capture.ctl_socket, cli->ctl_socket);
	}
	derive(c);
	return 0;
}

int mk_config_setup(struct mk_config *c, const char *path, const struct mk_config_cli *cli)
{
	int err;

	mk_config_defaults(c);
	if (path) {
		err = mk_config_load(c, path);
		if (err)
			return err;
	}
	return mk_config_apply_cli(c, cli);
}

/* ---- what is configured ------------------------------------------------------------------- */

const struct mk_cfg_key *mk_config_key(unsigned int i)
{
	unsigned int m;

	for (m = 0; m < MK_ARRAY_SIZE(modules); m++) {
		if (i < modules[m].table->nkeys)
			return &modules[m].table->keys[i];
		i -= modules[m].table->nkeys;
	}
	return NULL;
}

int mk_config_key_value(const struct mk_config *c, unsigned int i, uint64_t *v)
{
	unsigned int m;

	for (m = 0; m < MK_ARRAY_SIZE(modules); m++) {
		const struct mk_cfg_key *k;

		if (i >= modules[m].table->nkeys) {
			i -= modules[m].table->nkeys;
			continue;
		}
		k = &modules[m].table->keys[i];
		if (k->type == MK_CFG_STRING || k->type == MK_CFG_CUSTOM)
			return -EINVAL;
		*v = field_get((const char *)c + modules[m].off + k->off, k->size);
		if (k->type == MK_CFG_SECONDS_NS)
			*v /= 1000000000ull;
		return 0;
	}
	return -ENOENT;
}

static void dump_value(FILE *out, const struct mk_cfg_key *k, const char *field)
{
	uint64_t v = k->type == MK_CFG_STRING ? 0 : field_get(field, k->size);
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

void mk_config_dump(FILE *out, const struct mk_config *c)
{
	unsigned int m, i;

	for (m = 0; m < MK_ARRAY_SIZE(modules); m++) {
		const struct mk_cfg_table *t = modules[m].table;
		const char *base = (const char *)c + modules[m].off;

		for (i = 0; i < t->nkeys; i++) {
			const struct mk_cfg_key *k = &t->keys[i];

			if (k->type == MK_CFG_CUSTOM) {
				if (k->dump)
					k->dump(out, k->path, base);
				continue;
			}
			fprintf(out, "%s = ", k->path);
			dump_value(out, k, base + k->off);
			fputc('\n', out);
		}
	}
}
