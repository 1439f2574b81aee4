// SPDX-License-Identifier: GPL-2.0-only
/*
 * The `advise-router:` keys (advise_cfg.h, docs/outputs-bgp.md): a table of
 * scalars, and four lists read here: sids, classtypes, metadata selectors
 * ("key value") and the allow list of prefixes that are never announced.
 * Next hops and communities are checked as ExaBGP will read them. The
 * cross-key check refuses an enabled advisor that selects nothing.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advise_cfg.h"
#include "cfg_keys.h"
#include "compat.h"
#include "config.h"

#define SHOW_MAX MK_CFG_SHOW_MAX

/* The list at @node: its length in *@n (0 for no value), or an error naming @what. */
static int list_len(struct mk_cfg_ctx *x, int node, const char *path, const char *what,
		    unsigned int *n)
{
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);

	*n = 0;
	if (kind == MK_CFG_NODE_SEQUENCE)
		*n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL, "expected a list of %s, found %s", what,
				    mk_cfg_kind_name(kind));
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int sids_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_advise_cfg *c = base;
	char item[MK_CFG_PATH_MAX];
	uint32_t *sids = NULL;
	unsigned int i, n;
	uint64_t v;
	int err = list_len(x, node, path, "rule sids ([2100498, 9000001])", &n);

	if (err)
		return err;
	if (n) {
		sids = mk_cfg_alloc(x, n * sizeof(*sids));
		if (!sids)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_uint(x, mk_cfg_seq_item(x, node, i), item, 1, UINT32_MAX, &v);
		if (err)
			return err;
		sids[i] = (uint32_t)v;
	}
	if (n)
		qsort(sids, n, sizeof(*sids), cmp_u32);
	c->sids = sids;
	c->nsids = n;
	return 0;
}

static void sids_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_advise_cfg *c = base;
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < c->nsids; i++)
		fprintf(out, "%s%u", i ? ", " : "", c->sids[i]);
	fputs("]\n", out);
}

static int classtypes_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_advise_cfg *c = base;
	char item[MK_CFG_PATH_MAX];
	const char **names = NULL, *s;
	unsigned int i, n;
	int err = list_len(x, node, path, "classtype names ([trojan-activity])", &n);

	if (err)
		return err;
	if (n) {
		names = mk_cfg_alloc(x, n * sizeof(*names));
		if (!names)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar_nonempty(x, mk_cfg_seq_item(x, node, i), item, &s);
		if (err)
			return err;
		names[i] = mk_cfg_strdup(x, s);
		if (!names[i])
			return -ENOMEM;
	}
	c->classtypes = names;
	c->nclasstypes = n;
	return 0;
}

static void classtypes_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_advise_cfg *c = base;
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < c->nclasstypes; i++) {
		fputs(i ? ", " : "", out);
		mk_cfg_print_str(out, c->classtypes[i]);
	}
	fputs("]\n", out);
}

/* metadata: ["block yes", ...]: the rule's `metadata: block yes` entry, key and value */
static int meta_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_advise_cfg *c = base;
	char item[MK_CFG_PATH_MAX], shown[SHOW_MAX + 8];
	struct mk_advise_meta *meta = NULL;
	unsigned int i, n;
	const char *s;
	int err = list_len(x, node, path, "\"key value\" pairs ([\"block yes\"])", &n);

	if (err)
		return err;
	if (n) {
		meta = mk_cfg_alloc(x, n * sizeof(*meta));
		if (!meta)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i);
		char *k, *v;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar_nonempty(x, it, item, &s);
		if (err)
			return err;
		k = mk_cfg_strdup(x, s);
		if (!k)
			return -ENOMEM;
		v = strchr(k, ' ');
		if (!v || v == k || !v[1] || strchr(v + 1, ' '))
			return mk_cfg_error(x, it, item, -EINVAL,
					    "'%s' is not a metadata key and value (\"block yes\")",
					    mk_cfg_show(s, shown, sizeof(shown)));
		*v++ = '\0';
		meta[i].key = k;
		meta[i].value = v;
	}
	c->meta = meta;
	c->nmeta = n;
	return 0;
}

static void meta_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_advise_cfg *c = base;
	char buf[2 * MK_ADVISE_TEXT_MAX];
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < c->nmeta; i++) {
		snprintf(buf, sizeof(buf), "%s %s", c->meta[i].key, c->meta[i].value);
		fputs(i ? ", " : "", out);
		mk_cfg_print_str(out, buf);
	}
	fputs("]\n", out);
}

static int allow_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_advise_cfg *c = base;
	struct mk_cidr *list = NULL;
	int err = mk_cfg_cidr_list(x, node, path, &list, &c->nallow);

	c->allow = list;
	return err;
}

static void allow_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_advise_cfg *c = base;

	mk_cfg_cidr_list_dump(out, path, c->allow, c->nallow);
}

/* socket-mode: octal permission bits, as chmod takes them (0660) */
static int mode_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_advise_cfg *c = base;
	char shown[SHOW_MAX + 8], *end;
	unsigned long v;
	const char *s;
	int err = mk_cfg_scalar_nonempty(x, node, path, &s);

	if (err)
		return err;
	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || *end || !isdigit((unsigned char)*s) || v > 0777)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "'%s' is not an octal file mode in 0..0777 (0660)",
				    mk_cfg_show(s, shown, sizeof(shown)));
	c->socket_mode = (uint32_t)v;
	return 0;
}

static void mode_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_advise_cfg *c = base;

	fprintf(out, "%s = 0%o\n", path, c->socket_mode);
}

/* next-hop, next-hop-v6: an address of the family */
static int next_hop_parse(struct mk_cfg_ctx *x, int node, const char *path, char *field, int af)
{
	char shown[SHOW_MAX + 8];
	uint8_t a[16];
	const char *s;
	int err = mk_cfg_scalar_nonempty(x, node, path, &s);

	if (err)
		return err;
	if (strlen(s) >= MK_ADVISE_TEXT_MAX || inet_pton(af, s, a) != 1)
		return mk_cfg_error(x, node, path, -EINVAL, "'%s' is not an %s address",
				    mk_cfg_show(s, shown, sizeof(shown)),
				    af == AF_INET ? "IPv4" : "IPv6");
	/* as ExaBGP will read it back: the canonical text */
	inet_ntop(af, a, field, MK_ADVISE_TEXT_MAX);
	return 0;
}

static int nh4_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	return next_hop_parse(x, node, path, ((struct mk_advise_cfg *)base)->next_hop, AF_INET);
}

static int nh6_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	return next_hop_parse(x, node, path, ((struct mk_advise_cfg *)base)->next_hop_v6, AF_INET6);
}

static void nh4_dump(FILE *out, const char *path, const void *base)
{
	fprintf(out, "%s = %s\n", path, ((const struct mk_advise_cfg *)base)->next_hop);
}

static void nh6_dump(FILE *out, const char *path, const void *base)
{
	fprintf(out, "%s = ", path);
	mk_cfg_print_str(out, ((const struct mk_advise_cfg *)base)->next_hop_v6);
	fputc('\n', out);
}

/* A community as ExaBGP writes it: ASN:VALUE (each 0..65535) or a well-known name. */
static int community_ok(const char *s)
{
	const char *colon = strchr(s, ':');
	unsigned long a, b;
	char *end;

	if (!strcmp(s, "no-export") || !strcmp(s, "no-advertise") || !strcmp(s, "blackhole"))
		return 1;
	if (!colon || !isdigit((unsigned char)s[0]) || !isdigit((unsigned char)colon[1]))
		return 0;
	errno = 0;
	a = strtoul(s, &end, 10);
	if (errno || end != colon || a > 65535)
		return 0;
	b = strtoul(colon + 1, &end, 10);
	return !errno && !*end && b <= 65535;
}

/* communities: ["65535:666", no-export]: kept as ExaBGP's list text, "65535:666 no-export" */
static int communities_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_advise_cfg *c = base;
	char item[MK_CFG_PATH_MAX], shown[SHOW_MAX + 8], text[MK_ADVISE_TEXT_MAX] = "";
	unsigned int i, n;
	size_t used = 0;
	const char *s;
	int err = list_len(x, node, path, "communities ([\"65535:666\", no-export])", &n);

	if (err)
		return err;
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i), w;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar_nonempty(x, it, item, &s);
		if (err)
			return err;
		if (!community_ok(s))
			return mk_cfg_error(x, it, item, -EINVAL,
					    "'%s' is not a community (ASN:VALUE, each 0..65535, "
					    "or no-export, no-advertise, blackhole)",
					    mk_cfg_show(s, shown, sizeof(shown)));
		w = snprintf(text + used, sizeof(text) - used, "%s%s", i ? " " : "", s);
		if (w < 0 || (size_t)w >= sizeof(text) - used)
			return mk_cfg_error(x, it, item, -EINVAL,
					    "too many communities (%zu bytes of text at most)",
					    sizeof(text) - 1);
		used += (size_t)w;
	}
	strcpy(c->communities, text);
	return 0;
}

static void communities_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_advise_cfg *c = base;
	char buf[MK_ADVISE_TEXT_MAX], *tok, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", c->communities);
	fprintf(out, "%s = [", path);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		fprintf(out, "%s\"%s\"", n++ ? ", " : "", tok);
	fputs("]\n", out);
}

static const struct mk_cfg_name mode_names[] = {
	{ "blackhole", MK_ADVISE_BLACKHOLE },
	{ "flowspec", MK_ADVISE_FLOWSPEC },
	{ NULL, 0 },
};

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

#define C struct mk_advise_cfg
static const struct mk_cfg_key advise_keys[] = {
	MK_CFG_BOOL("advise-router.enabled", C, enabled),
	MK_CFG_ENUM("advise-router.mode", C, mode, mode_names),
	MK_CFG_STRING_NONEMPTY("advise-router.socket", C, socket),
	MK_CFG_CUSTOM("advise-router.socket-mode", mode_parse, mode_dump),
	MK_CFG_STRING("advise-router.socket-group", C, socket_group),
	MK_CFG_CUSTOM("advise-router.next-hop", nh4_parse, nh4_dump),
	MK_CFG_CUSTOM("advise-router.next-hop-v6", nh6_parse, nh6_dump),
	MK_CFG_CUSTOM("advise-router.communities", communities_parse, communities_dump),
	MK_CFG_UINT("advise-router.ttl", C, ttl, 1, 7 * 86400),
	MK_CFG_UINT("advise-router.max-active", C, max_active, 1, 1u << 20),
	MK_CFG_UINT_IF("advise-router.queue-size", C, queue_size, 16, 1u << 20, is_pow2,
		       "a power of two"),
	MK_CFG_CUSTOM("advise-router.sids", sids_parse, sids_dump),
	MK_CFG_CUSTOM("advise-router.classtypes", classtypes_parse, classtypes_dump),
	MK_CFG_CUSTOM("advise-router.metadata", meta_parse, meta_dump),
	MK_CFG_CUSTOM("advise-router.allow", allow_parse, allow_dump),
};
#undef C

/* Rules marked for it in their text: `metadata: block yes`. */
static const struct mk_advise_meta default_meta[] = { { "block", "yes" } };

static void advise_defaults(void *base)
{
	struct mk_advise_cfg *c = base;

	c->mode = MK_ADVISE_BLACKHOLE;
	c->ttl = 600;
	c->max_active = 1000;
	c->queue_size = 1024;
	c->socket_mode = 0660;
	strcpy(c->socket, "/run/meerkat-exabgp/exabgp.sock");
	strcpy(c->next_hop, "192.0.2.1");    /* RFC 5635's discard next hop, TEST-NET-1 */
	strcpy(c->next_hop_v6, "100::1");    /* RFC 6666's discard prefix */
	strcpy(c->communities, "65535:666"); /* RFC 7999 BLACKHOLE */
	c->meta = default_meta;
	c->nmeta = MK_ARRAY_SIZE(default_meta);
}

static int advise_check(const void *base, char *msg, size_t len)
{
	const struct mk_advise_cfg *c = base;
	if (c->enabled && !c->nsids && !c->nclasstypes && !c->nmeta) {
		snprintf(msg, len,
			 "advise-router: enabled but selects no alert: give sids, classtypes "
			 "or metadata");
		return -EINVAL;
	}
	return 0;
}

const struct mk_cfg_table mk_advise_cfg_table = {
	.name = "advise-router",
	.keys = advise_keys,
	.nkeys = MK_ARRAY_SIZE(advise_keys),
	.defaults = advise_defaults,
	.check = advise_check,
};
