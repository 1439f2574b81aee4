// SPDX-License-Identifier: GPL-2.0-only
/*
 * The configuration: which modules' key tables make up struct mk_config
 * and where their structs lie in it, the defaults, the file (read by
 * cfg_yaml.c), the command line on top, the modules' cross-key checks, and
 * --dump-config. The bypass list has no module of its own yet and lives
 * here.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "bypass_cfg.h"
#include "config.h"
#include "decoder_cfg.h"
#include "log.h"

#define FILE_MAX (16u << 20) /* the message below says 16 MiB */
#define SHOW_MAX MK_CFG_SHOW_MAX
#define KB 1024ull

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
static const struct mk_cfg_module modules[] = {
	{ &mk_rules_cfg_table, offsetof(struct mk_config, rules) },
	{ &mk_output_cfg_table, offsetof(struct mk_config, output) },
	{ &mk_prom_cfg_table, offsetof(struct mk_config, prometheus) },
	{ &mk_capture_cfg_table, offsetof(struct mk_config, capture) },
	{ &mk_decoder_cfg_table, offsetof(struct mk_config, parse) },
	{ &mk_flow_cfg_table, offsetof(struct mk_config, flow) },
	{ &mk_stream_cfg_table, offsetof(struct mk_config, stream) },
	{ &mk_defrag_cfg_table, offsetof(struct mk_config, defrag) },
	{ &mk_bypass_cfg_table, offsetof(struct mk_config, bypass_cfg) },
	{ &mk_app_cfg_table, offsetof(struct mk_config, app) },
	{ &bypass_table, 0 },
	{ &mk_advise_cfg_table, offsetof(struct mk_config, advise) },
};

/* ---- bypass.cidr -------------------------------------------------------------------------- */

int mk_cfg_cidr_list(struct mk_cfg_ctx *x, int node, const char *path, struct mk_cidr **out,
		     unsigned int *nout)
{
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	char item[MK_CFG_PATH_MAX], shown[SHOW_MAX + 8];
	struct mk_cidr *list = NULL;
	unsigned int i, n = 0;
	const char *s;
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL, "expected a list of prefixes, found %s",
				    mk_cfg_kind_name(kind));
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
					    mk_cfg_show(s, shown, sizeof(shown)));
	}
	*out = list;
	*nout = n;
	return 0;
}

void mk_cfg_cidr_list_dump(FILE *out, const char *path, const struct mk_cidr *list, unsigned int n)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < n; i++) {
		const struct mk_cidr *r = &list[i];

		inet_ntop(r->family == MK_FAMILY_IPV4 ? AF_INET : AF_INET6, r->addr, a, sizeof(a));
		fprintf(out, "%s%s/%u", i ? ", " : "", a, r->prefix);
	}
	fputs("]\n", out);
}

static int bypass_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_config *c = base;

	return mk_cfg_cidr_list(x, node, path, &c->bypass, &c->nbypass);
}

static void bypass_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_config *c = base;

	mk_cfg_cidr_list_dump(out, path, c->bypass, c->nbypass);
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
			uint32_t mask = bits >= 32 ? 0xffffffffu :
					bits	   ? ~(0xffffffffu >> bits) :
						     0;

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
	mk_cfg_mem_free(&c->mem);
	/* what pointed into the freed memory goes back to the defaults */
	mk_config_defaults(c);
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
			mk_cfg_log_line(line);
			return err;
		}
	}
	return 0;
}

int mk_config_load_buf(struct mk_config *c, const char *buf, size_t len, const char *name)
{
	int err = mk_cfg_load(modules, MK_ARRAY_SIZE(modules), c, &c->mem, buf, len, name);

	if (!err)
		err = run_checks(c, name);
	derive(c);
	return err;
}

/* An error about the file as a whole, logged as the walker's are (mk_cfg_last_error()). */
static void file_error(const char *path, const char *what)
{
	char line[512];

	snprintf(line, sizeof(line), "%s: %s", path, what);
	mk_cfg_log_line(line);
}

int mk_config_load(struct mk_config *c, const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f) {
		err = -errno;
		file_error(path, strerror(-err));
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
				file_error(path, "larger than 16 MiB; not a configuration file?");
				goto out;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				file_error(path, "out of memory");
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
			file_error(path, "read error");
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
		err = mk_cfg_parse_number(cli->workers, &v);
		if (!err && (v < 1 || v > MK_MAX_WORKERS))
			err = -ERANGE;
		if (err) {
			mk_err("--workers: '%s' is not a number in [1, %d]",
			       mk_cfg_show(cli->workers, shown, sizeof(shown)), MK_MAX_WORKERS);
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
			       mk_cfg_show(cli->log_dir, shown, sizeof(shown)),
			       sizeof(c->output.log_dir) - 1);
			return -EINVAL;
		}
		strcpy(c->output.log_dir, cli->log_dir);
	}
	if (cli->ctl_socket) {
		if (strlen(cli->ctl_socket) >= sizeof(c->capture.ctl_socket)) {
			mk_err("--unix-socket: '%s' is longer than %zu bytes",
			       mk_cfg_show(cli->ctl_socket, shown, sizeof(shown)),
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
		*v = mk_cfg_field_get((const char *)c + modules[m].off + k->off, k->size);
		if (k->type == MK_CFG_SECONDS_NS)
			*v /= 1000000000ull;
		return 0;
	}
	return -ENOENT;
}

/* One key as mk_config_dump() prints it. */
static void key_dump(FILE *out, const struct mk_config *c, unsigned int m, unsigned int i)
{
	const struct mk_cfg_key *k = &modules[m].table->keys[i];
	const char *base = (const char *)c + modules[m].off;

	if (k->type == MK_CFG_CUSTOM) {
		if (k->dump)
			k->dump(out, k->path, base);
		return;
	}
	fprintf(out, "%s = ", k->path);
	mk_cfg_dump_value(out, k, base + k->off);
	fputc('\n', out);
}

int mk_config_key_dump(FILE *out, const struct mk_config *c, unsigned int i)
{
	unsigned int m;

	for (m = 0; m < MK_ARRAY_SIZE(modules); m++) {
		if (i < modules[m].table->nkeys) {
			key_dump(out, c, m, i);
			return 0;
		}
		i -= modules[m].table->nkeys;
	}
	return -ENOENT;
}

void mk_config_dump(FILE *out, const struct mk_config *c)
{
	unsigned int m, i;

	for (m = 0; m < MK_ARRAY_SIZE(modules); m++)
		for (i = 0; i < modules[m].table->nkeys; i++)
			key_dump(out, c, m, i);
}
