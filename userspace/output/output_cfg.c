// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output keys: `default-log-dir`, `stats`, and `outputs`, a list of
 * one-key mappings as in suricata.yaml of which meerkat writes `eve-log`,
 * as many as MK_EVE_OUTPUTS_MAX of them. Each entry is read in turn into
 * the `eve` slot by the rows "outputs.eve-log.*" and then kept in `eves`.
 * Options of an event type are rows under "outputs.eve-log.types.<type>.":
 * alert's payload, payload-printable and tagged-packets (`- alert: {payload: yes}`), flow's
 * unreplied (`- flow: {unreplied: compact}`). A record is rendered once for
 * every output, so the options that shape it must agree between outputs.
 * The `redis:` and `kafka:` mappings are kept as flat key/value pairs for
 * their transport (out_transport.h), which checks them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfg_keys.h"
#include "compat.h"
#include "out_registry.h"
#include "output_cfg.h"

static void eve_defaults(struct mk_eve_cfg *e);
static int eve_entry_check(struct mk_cfg_ctx *x, int entry, const char *item, struct mk_eve_cfg *e);
static int eve_render_check(struct mk_cfg_ctx *x, struct mk_output_cfg *o, const int *nodes);

static const struct {
	const char *name;
	uint32_t bit;
} eve_types[] = {
	{ "alert", MK_EVE_TYPE_ALERT }, { "flow", MK_EVE_TYPE_FLOW },
	{ "stats", MK_EVE_TYPE_STATS }, { "http", MK_EVE_TYPE_HTTP },
	{ "dns", MK_EVE_TYPE_DNS },	{ "tls", MK_EVE_TYPE_TLS },
	{ "files", MK_EVE_TYPE_FILES }, { "fileinfo", MK_EVE_TYPE_FILES },
	{ "ssh", MK_EVE_TYPE_SSH },	{ "smtp", MK_EVE_TYPE_SMTP },
	{ "ftp", MK_EVE_TYPE_FTP },
};

/*
 * outputs: - eve-log: {...}, one or more; other outputs of Suricata's are
 * refused by name.
 */
static int outputs_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_output_cfg *o = base;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	int nodes[MK_EVE_OUTPUTS_MAX];
	char item[64];
	unsigned int i, n = 0, neve = 0, first = 0;
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a list of outputs (- eve-log: ...), found %s",
				    kind == MK_CFG_NODE_MAPPING ? "a mapping" : "a value");
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i), kn;
		const char *name;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		if (mk_cfg_node_kind(x, it) != MK_CFG_NODE_MAPPING || mk_cfg_node_len(x, it) != 1)
			return mk_cfg_error(
				x, it, item, -EINVAL,
				"an output is one name with its settings indented below it, "
				"as in `- eve-log:`");
		kn = mk_cfg_map_key(x, it, 0);
		err = mk_cfg_scalar(x, kn, item, &name);
		if (err)
			return err;
		if (strcmp(name, "eve-log"))
			return mk_cfg_error(x, kn, item, -EINVAL,
					    "'%.32s' is not an output meerkat writes (eve-log)",
					    name);
		if (neve == MK_EVE_OUTPUTS_MAX)
			return mk_cfg_error(x, kn, item, -EINVAL, "more than %u eve-log outputs",
					    MK_EVE_OUTPUTS_MAX);
		eve_defaults(&o->eve);
		err = mk_cfg_walk(x, mk_cfg_map_value(x, it, 0), "outputs.eve-log");
		if (!err)
			err = eve_entry_check(x, mk_cfg_map_value(x, it, 0), item, &o->eve);
		if (err)
			return err;
		nodes[neve] = kn;
		o->eves[neve++] = o->eve;
	}
	if (!neve) {
		eve_defaults(&o->eve);
		return 0;
	}
	o->neve = neve;
	while (first < neve && !o->eves[first].enabled)
		first++;
	o->eve = o->eves[first < neve ? first : 0];
	return eve_render_check(x, o, nodes);
}

static void outputs_dump(FILE *out, const char *path, const void *base);

/* types: [alert, flow, stats], each a name or a name with options below it */
static int types_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_output_cfg *o = base;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	unsigned int i, t, n = 0;
	uint32_t types = 0;
	char item[96], sub[96];
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(
			x, node, path, -EINVAL,
			"expected a list of event types ([alert, flow, stats, http, dns, tls]), found %s",
			kind == MK_CFG_NODE_MAPPING ? "a mapping" : "a value");
	for (i = 0; i < n; i++) {
		int it = mk_cfg_seq_item(x, node, i), name_node = it, opts = 0;
		const char *name;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		if (mk_cfg_node_kind(x, it) == MK_CFG_NODE_MAPPING) {
			if (mk_cfg_node_len(x, it) != 1)
				return mk_cfg_error(x, it, item, -EINVAL,
						    "an event type is one name, with its options "
						    "indented below it");
			name_node = mk_cfg_map_key(x, it, 0);
			opts = mk_cfg_map_value(x, it, 0);
		}
		err = mk_cfg_scalar(x, name_node, item, &name);
		if (err)
			return err;
		for (t = 0; t < MK_ARRAY_SIZE(eve_types) && strcmp(name, eve_types[t].name); t++)
			;
		if (t == MK_ARRAY_SIZE(eve_types))
			return mk_cfg_error(
				x, name_node, item, -EINVAL,
				"'%.32s' is not an event type meerkat writes (alert, flow, stats, http, "
				"files, dns, tls, ssh, smtp, ftp)",
				name);
		if (types & eve_types[t].bit)
			return mk_cfg_error(x, name_node, item, -EINVAL, "'%s' is listed twice",
					    name);
		types |= eve_types[t].bit;
		snprintf(sub, sizeof(sub), "%s.%s", path, name);
		err = mk_cfg_walk(x, opts, sub);
		if (err)
			return err;
	}
	o->eve.types = types;
	return 0;
}

/* rotate-interval: 60s, 10m, 1h, 1d, minute, hour, day, or a number of seconds (0: never) */
static int rotate_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	static const struct {
		const char *word;
		uint32_t secs;
	} words[] = { { "minute", 60 }, { "hour", 3600 }, { "day", 86400 } };
	struct mk_output_cfg *o = base;
	const char *s, *unit;
	char num[24], shown[MK_CFG_SHOW_MAX + 8];
	uint64_t v, mul = 1;
	unsigned int i;
	size_t n;
	int err = mk_cfg_scalar(x, node, path, &s);

	if (err)
		return err;
	for (i = 0; i < MK_ARRAY_SIZE(words); i++) {
		if (!strcmp(s, words[i].word)) {
			o->eve.rotate_interval = words[i].secs;
			return 0;
		}
	}
	n = strspn(s, "0123456789");
	unit = s + n;
	if (!*unit || !strcmp(unit, "s"))
		mul = 1;
	else if (!strcmp(unit, "m"))
		mul = 60;
	else if (!strcmp(unit, "h"))
		mul = 3600;
	else if (!strcmp(unit, "d"))
		mul = 86400;
	else
		n = 0;
	if (n && n < sizeof(num)) {
		memcpy(num, s, n);
		num[n] = '\0';
		err = mk_cfg_parse_number(num, &v);
	}
	if (!n || n >= sizeof(num) || err || v * mul > 30 * 86400)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "'%s' is not an interval (60s, 10m, 1h, 1d, minute, hour, day; "
				    "at most 30 days; 0: never)",
				    mk_cfg_show(s, shown, sizeof(shown)));
	o->eve.rotate_interval = (uint32_t)(v * mul);
	return 0;
}

static void rotate_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_output_cfg *o = base;

	fprintf(out, "%s = %us\n", path, o->eve.rotate_interval);
}

/*
 * redis: / kafka: a mapping kept as flat pairs for the transport ("server",
 * "pipelining.batch-size"); a list of values becomes one comma-separated
 * value (kafka brokers).
 */
static int kv_add(struct mk_cfg_ctx *x, int node, const char *path, const char *prefix,
		  struct mk_out_kv *kv, uint32_t *nkv)
{
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	char key[MK_CFG_PATH_MAX], sub[MK_CFG_PATH_MAX], where[32];
	struct mk_out_kv *e;
	unsigned int i, n;
	const char *s;
	int err;

	if (kind == MK_CFG_NODE_MAPPING) {
		n = mk_cfg_node_len(x, node);
		for (i = 0; i < n; i++) {
			int kn = mk_cfg_map_key(x, node, i);

			err = mk_cfg_scalar_nonempty(x, kn, path, &s);
			if (err)
				return err;
			snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "", s);
			snprintf(sub, sizeof(sub), "%s.%s", path, s);
			err = kv_add(x, mk_cfg_map_value(x, node, i), sub, key, kv, nkv);
			if (err)
				return err;
		}
		return 0;
	}
	if (!*prefix)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a mapping of settings, found %s",
				    mk_cfg_kind_name(kind));
	if (*nkv == MK_OUT_KV_MAX)
		return mk_cfg_error(x, node, path, -EINVAL, "more than %u settings", MK_OUT_KV_MAX);
	e = &kv[*nkv];
	if (strlen(prefix) >= sizeof(e->key))
		return mk_cfg_error(x, node, path, -EINVAL, "key longer than %zu bytes",
				    sizeof(e->key) - 1);
	for (i = 0; i < *nkv; i++)
		if (!strcmp(kv[i].key, prefix))
			return mk_cfg_error(x, node, path, -EINVAL,
					    "given twice (first at line %u)", kv[i].line);
	strcpy(e->key, prefix);
	e->val[0] = '\0';
	mk_cfg_where(x, node, where, sizeof(where));
	e->line = (unsigned int)strtoul(where, NULL, 10);
	if (kind == MK_CFG_NODE_SEQUENCE) {
		size_t used = 0;

		n = mk_cfg_node_len(x, node);
		for (i = 0; i < n; i++) {
			err = mk_cfg_scalar_nonempty(x, mk_cfg_seq_item(x, node, i), path, &s);
			if (err)
				return err;
			if (used + strlen(s) + 2 > sizeof(e->val))
				return mk_cfg_error(x, node, path, -EINVAL, "longer than %zu bytes",
						    sizeof(e->val) - 1);
			used += (size_t)snprintf(e->val + used, sizeof(e->val) - used, "%s%s",
						 i ? "," : "", s);
		}
	} else {
		err = mk_cfg_scalar(x, node, path, &s);
		if (err)
			return err;
		if (strlen(s) >= sizeof(e->val))
			return mk_cfg_error(x, node, path, -EINVAL, "longer than %zu bytes",
					    sizeof(e->val) - 1);
		strcpy(e->val, s);
	}
	(*nkv)++;
	return 0;
}

static int transport_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_output_cfg *o = base;
	struct mk_out_kv *kv;
	uint32_t n = 0;
	int err;

	if (mk_cfg_node_kind(x, node) == MK_CFG_NODE_NULL ||
	    (mk_cfg_node_kind(x, node) == MK_CFG_NODE_MAPPING && !mk_cfg_node_len(x, node)))
		return 0; /* nothing to hand over */
	if (o->eve.kv)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "one output carries either redis: or kafka:, not both");
	kv = mk_cfg_alloc(x, sizeof(*kv) * MK_OUT_KV_MAX);
	if (!kv)
		return -ENOMEM;
	err = kv_add(x, node, path, "", kv, &n);
	if (err)
		return err;
	o->eve.kv = kv;
	o->eve.nkv = n;
	return 0;
}

static void transport_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_output_cfg *o = base;
	const char *t = strrchr(path, '.') + 1;
	uint32_t i;

	if (strcmp(t, mk_output_filetype_name(o->eve.filetype)))
		return;
	for (i = 0; i < o->eve.nkv; i++) {
		fprintf(out, "%s.%s = ", path, o->eve.kv[i].key);
		mk_cfg_print_str(out, o->eve.kv[i].val);
		fputc('\n', out);
	}
}

static void types_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_output_cfg *o = base;
	unsigned int t, n = 0;

	fprintf(out, "%s = [", path);
	for (t = 0; t < MK_ARRAY_SIZE(eve_types); t++)
		if (o->eve.types & eve_types[t].bit)
			fprintf(out, "%s%s", n++ ? ", " : "", eve_types[t].name);
	fputs("]\n", out);
}

static const struct mk_cfg_name filetype_names[] = {
	{ "regular", MK_EVE_FILETYPE_REGULAR },
	{ "unix_dgram", MK_EVE_FILETYPE_UNIX_DGRAM },
	{ "unix_stream", MK_EVE_FILETYPE_UNIX_STREAM },
	{ "syslog", MK_EVE_FILETYPE_SYSLOG },
	{ "redis", MK_EVE_FILETYPE_REDIS },
	{ "kafka", MK_EVE_FILETYPE_KAFKA },
	{ "file", MK_EVE_FILETYPE_REGULAR },
	{ "unix-dgram", MK_EVE_FILETYPE_UNIX_DGRAM },
	{ "unix-stream", MK_EVE_FILETYPE_UNIX_STREAM },
	{ NULL, 0 },
};

/* syslog facilities and severities, RFC 5424 section 6.2.1 */
static const struct mk_cfg_name facility_names[] = {
	{ "kern", 0 },	    { "user", 1 },    { "mail", 2 },	{ "daemon", 3 },  { "auth", 4 },
	{ "syslog", 5 },    { "lpr", 6 },     { "news", 7 },	{ "uucp", 8 },	  { "cron", 9 },
	{ "authpriv", 10 }, { "ftp", 11 },    { "local0", 16 }, { "local1", 17 }, { "local2", 18 },
	{ "local3", 19 },   { "local4", 20 }, { "local5", 21 }, { "local6", 22 }, { "local7", 23 },
	{ NULL, 0 },
};

static const struct mk_cfg_name level_names[] = {
	{ "emerg", 0 },	   { "alert", 1 },     { "crit", 2 },  { "err", 3 },   { "warning", 4 },
	{ "notice", 5 },   { "info", 6 },      { "debug", 7 }, { "error", 3 }, { "warn", 4 },
	{ "critical", 2 }, { "emergency", 0 }, { NULL, 0 },
};

static const struct mk_cfg_name unreplied_names[] = {
	{ "full", MK_EVE_UNREPLIED_FULL },
	{ "compact", MK_EVE_UNREPLIED_COMPACT },
	{ "none", MK_EVE_UNREPLIED_NONE },
	{ NULL, 0 },
};

#define C struct mk_output_cfg
static const struct mk_cfg_key output_keys[] = {
	MK_CFG_STRING_NONEMPTY("default-log-dir", C, log_dir),
	MK_CFG_BOOL("stats.enabled", C, stats_enabled),
	MK_CFG_UINT("stats.interval", C, stats_interval, 1, 86400),
	/* the list itself; its entries' keys are the rows below */
	MK_CFG_CUSTOM("outputs", outputs_parse, outputs_dump),
	MK_CFG_BOOL("outputs.eve-log.enabled", C, eve.enabled),
	MK_CFG_ENUM("outputs.eve-log.filetype", C, eve.filetype, filetype_names),
	MK_CFG_STRING_NONEMPTY("outputs.eve-log.filename", C, eve.filename),
	MK_CFG_BOOL("outputs.eve-log.append", C, eve.append),
	MK_CFG_BOOL("outputs.eve-log.community-id", C, eve.community_id),
	MK_CFG_UINT("outputs.eve-log.community-id-seed", C, eve.community_id_seed, 0, 65535),
	MK_CFG_CUSTOM("outputs.eve-log.types", types_parse, types_dump),
	MK_CFG_BOOL("outputs.eve-log.types.alert.payload", C, eve.alert_payload),
	MK_CFG_BOOL("outputs.eve-log.types.alert.payload-printable", C,
		    eve.alert_payload_printable),
	MK_CFG_BOOL("outputs.eve-log.types.alert.tagged-packets", C, eve.alert_tagged_packets),
	MK_CFG_ENUM("outputs.eve-log.types.flow.unreplied", C, eve.flow_unreplied, unreplied_names),
	MK_CFG_SIZE("outputs.eve-log.buffer-size", C, eve.buffer_size, 64u << 10, 1ull << 30),
	MK_CFG_BOOL("outputs.eve-log.backpressure", C, eve.backpressure),
	MK_CFG_CUSTOM("outputs.eve-log.rotate-interval", rotate_parse, rotate_dump),
	MK_CFG_ENUM("outputs.eve-log.facility", C, eve.facility, facility_names),
	MK_CFG_ENUM("outputs.eve-log.level", C, eve.level, level_names),
	MK_CFG_STRING_NONEMPTY("outputs.eve-log.identity", C, eve.identity),
	MK_CFG_STRING_NONEMPTY("outputs.eve-log.syslog-socket", C, eve.syslog_socket),
	MK_CFG_CUSTOM("outputs.eve-log.redis", transport_parse, transport_dump),
	MK_CFG_CUSTOM("outputs.eve-log.kafka", transport_parse, transport_dump),
};
#undef C

static void eve_defaults(struct mk_eve_cfg *e)
{
	memset(e, 0, sizeof(*e));
	e->enabled = 1;
	e->filetype = MK_EVE_FILETYPE_REGULAR;
	e->append = 1;
	e->community_id = 1; /* on, unlike Suricata: it joins records with Zeek's */
	e->types = MK_EVE_TYPE_ALERT | MK_EVE_TYPE_FLOW | MK_EVE_TYPE_STATS;
	strcpy(e->filename, "eve.json");
	e->buffer_size = MK_EVE_BUFFER_DEFAULT;
	e->facility = 21; /* local5, as Suricata */
	e->level = 6;	  /* info */
	strcpy(e->identity, "meerkat");
	strcpy(e->syslog_socket, "/dev/log");
}

static void output_defaults(void *base)
{
	struct mk_output_cfg *o = base;

	strcpy(o->log_dir, "/var/log/meerkat");
	o->stats_enabled = 1;
	o->stats_interval = 10;
	eve_defaults(&o->eve);
	o->neve = 1;
	o->eves[0] = o->eve;
}

/* The node of @key in mapping @map, or @map itself when the key is not there. */
static int child_node(struct mk_cfg_ctx *x, int map, const char *key)
{
	unsigned int i, n = mk_cfg_node_len(x, map);
	const char *s;

	if (mk_cfg_node_kind(x, map) != MK_CFG_NODE_MAPPING)
		return map;
	for (i = 0; i < n; i++)
		if (!mk_cfg_scalar(x, mk_cfg_map_key(x, map, i), "", &s) && !strcmp(s, key))
			return mk_cfg_map_value(x, map, i);
	return map;
}

/* One entry, read: its filetype is built in, its transport takes its settings. */
static int eve_entry_check(struct mk_cfg_ctx *x, int entry, const char *item, struct mk_eve_cfg *e)
{
	const char *ft = mk_output_filetype_name(e->filetype);
	const struct mk_out_transport *t;
	char path[96], why[256] = "";

	if (e->filetype != MK_EVE_FILETYPE_REDIS && e->filetype != MK_EVE_FILETYPE_KAFKA) {
		if (e->kv)
			return mk_cfg_error(x, entry, item, -EINVAL,
					    "settings for a transport but filetype is %s", ft);
		return 0;
	}
	snprintf(path, sizeof(path), "%s.eve-log.filetype", item);
	t = mk_out_transport_find(ft);
	if (!t)
		return mk_cfg_error(x, child_node(x, entry, "filetype"), path, -EINVAL,
				    "'%s' is not built into this meerkat (filetypes: regular, "
				    "unix_dgram, unix_stream, syslog)",
				    ft);
	snprintf(path, sizeof(path), "%s.eve-log.%s", item, ft);
	if (t->check(e->kv, e->nkv, why, sizeof(why)))
		return mk_cfg_error(x, child_node(x, entry, ft), path, -EINVAL, "%s",
				    why[0] ? why : "invalid settings");
	return 0;
}

/* The first enabled output that writes @type, or NULL. */
static const struct mk_eve_cfg *first_with(const struct mk_output_cfg *o, uint32_t type,
					   unsigned int *at)
{
	unsigned int i;

	for (i = 0; i < o->neve; i++) {
		if (o->eves[i].enabled && (o->eves[i].types & type)) {
			*at = i;
			return &o->eves[i];
		}
	}
	return NULL;
}

/*
 * A record is rendered once and handed to every output that takes its type:
 * outputs that take the same type must ask for the same record. The options
 * that shape a type's records go into `eve` from the first output taking it.
 */
static int eve_render_check(struct mk_cfg_ctx *x, struct mk_output_cfg *o, const int *nodes)
{
	const struct mk_eve_cfg *a, *b, *al, *fl;
	unsigned int i, first = 0, at_al = 0, at_fl = 0, j;
	char item[48];

	while (first < o->neve && !o->eves[first].enabled)
		first++;
	if (first == o->neve)
		return 0;
	a = &o->eves[first];
	al = first_with(o, MK_EVE_TYPE_ALERT, &at_al);
	fl = first_with(o, MK_EVE_TYPE_FLOW, &at_fl);
	for (i = first + 1; i < o->neve; i++) {
		const char *what = NULL;

		b = &o->eves[i];
		j = first;
		if (!b->enabled)
			continue;
		if (b->community_id != a->community_id)
			what = "community-id";
		else if (b->community_id_seed != a->community_id_seed)
			what = "community-id-seed";
		else if (al && (b->types & MK_EVE_TYPE_ALERT) &&
			 (al->alert_payload != b->alert_payload ||
			  al->alert_payload_printable != b->alert_payload_printable ||
			  al->alert_tagged_packets != b->alert_tagged_packets))
			what = "types.alert", j = at_al;
		else if (fl && (b->types & MK_EVE_TYPE_FLOW) &&
			 fl->flow_unreplied != b->flow_unreplied)
			what = "types.flow.unreplied", j = at_fl;
		if (what) {
			snprintf(item, sizeof(item), "outputs[%u].eve-log.%s", i, what);
			return mk_cfg_error(x, nodes[i], item, -EINVAL,
					    "differs from outputs[%u]'s: a record is rendered once "
					    "for every output that takes it",
					    j);
		}
		for (j = 0; j < i; j++) {
			const struct mk_eve_cfg *c = &o->eves[j];

			if (!c->enabled || c->filetype != b->filetype ||
			    strcmp(c->filename, b->filename) ||
			    (b->filetype != MK_EVE_FILETYPE_REGULAR &&
			     b->filetype != MK_EVE_FILETYPE_UNIX_STREAM &&
			     b->filetype != MK_EVE_FILETYPE_UNIX_DGRAM))
				continue;
			snprintf(item, sizeof(item), "outputs[%u].eve-log.filename", i);
			return mk_cfg_error(x, nodes[i], item, -EINVAL,
					    "'%s' is already outputs[%u]'s", b->filename, j);
		}
	}
	if (al) {
		o->eve.alert_payload = al->alert_payload;
		o->eve.alert_payload_printable = al->alert_payload_printable;
		o->eve.alert_tagged_packets = al->alert_tagged_packets;
	}
	if (fl)
		o->eve.flow_unreplied = fl->flow_unreplied;
	return 0;
}

/* With more than one output, each of them as outputs[i].eve-log.KEY (the rows show the first). */
static void outputs_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_output_cfg *o = base;
	static struct mk_output_cfg one; /* --dump-config runs once, in main() */
	static const char pre[] = "outputs.eve-log.";
	unsigned int i, k;

	if (o->neve < 2)
		return;
	for (i = 0; i < o->neve; i++) {
		one.eve = o->eves[i];
		for (k = 0; k < MK_ARRAY_SIZE(output_keys); k++) {
			const struct mk_cfg_key *r = &output_keys[k];
			char p[MK_CFG_PATH_MAX];

			if (strncmp(r->path, pre, strlen(pre)))
				continue;
			snprintf(p, sizeof(p), "%s[%u].eve-log.%s", path, i, r->path + strlen(pre));
			if (r->type == MK_CFG_CUSTOM) {
				if (r->dump)
					r->dump(out, p, &one);
				continue;
			}
			fprintf(out, "%s = ", p);
			mk_cfg_dump_value(out, r, (const char *)&one + r->off);
			fputc('\n', out);
		}
	}
}

const struct mk_cfg_table mk_output_cfg_table = {
	.name = "output",
	.keys = output_keys,
	.nkeys = MK_ARRAY_SIZE(output_keys),
	.defaults = output_defaults,
};

int mk_output_eve_path(const struct mk_output_cfg *o, char *buf, size_t len)
{
	int n;

	if (o->eve.filename[0] == '/')
		n = snprintf(buf, len, "%s", o->eve.filename);
	else
		n = snprintf(buf, len, "%s/%s", o->log_dir, o->eve.filename);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

uint32_t mk_output_types(const struct mk_output_cfg *o)
{
	uint32_t t = 0;
	unsigned int i;

	for (i = 0; i < o->neve; i++)
		if (o->eves[i].enabled)
			t |= o->eves[i].types;
	return t;
}

int mk_output_enabled(const struct mk_output_cfg *o)
{
	unsigned int i;

	for (i = 0; i < o->neve; i++)
		if (o->eves[i].enabled)
			return 1;
	return 0;
}

const char *mk_output_filetype_name(unsigned int filetype)
{
	const struct mk_cfg_name *n;

	for (n = filetype_names; n->name; n++)
		if (n->value == filetype)
			return n->name;
	return "?";
}

void mk_output_print(FILE *out, const struct mk_output_cfg *o)
{
	const struct mk_cfg_name *f = facility_names, *l = level_names;
	unsigned int i, t, n;

	if (o->neve < 2)
		return;
	for (i = 0; i < o->neve; i++) {
		const struct mk_eve_cfg *e = &o->eves[i];

		fprintf(out, "  outputs[%u]: %s ", i, mk_output_filetype_name(e->filetype));
		if (e->filetype == MK_EVE_FILETYPE_SYSLOG) {
			for (f = facility_names; f->name && f->value != e->facility; f++)
				;
			for (l = level_names; l->name && l->value != e->level; l++)
				;
			fprintf(out, "%s %s.%s", e->syslog_socket, f->name ? f->name : "?",
				l->name ? l->name : "?");
		} else if (e->filetype == MK_EVE_FILETYPE_REDIS ||
			   e->filetype == MK_EVE_FILETYPE_KAFKA) {
			fprintf(out, "(%u settings)", e->nkv);
		} else if (e->filename[0] == '/') {
			fputs(e->filename, out);
		} else {
			fprintf(out, "%s/%s", o->log_dir, e->filename);
		}
		fputs(", types [", out);
		for (t = 0, n = 0; t < MK_ARRAY_SIZE(eve_types); t++)
			if (e->types & eve_types[t].bit)
				fprintf(out, "%s%s", n++ ? ", " : "", eve_types[t].name);
		fprintf(out, "], %s when its %llu-byte buffer is full%s\n",
			e->backpressure ? "waits" : "drops", (unsigned long long)e->buffer_size,
			e->enabled ? "" : " (disabled)");
	}
}
