// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output keys: `default-log-dir`, `stats`, and `outputs`, a list of
 * one-key mappings as in suricata.yaml of which meerkat writes `eve-log`.
 * Options of an event type are rows under "outputs.eve-log.types.<type>.":
 * alert's payload and payload-printable (`- alert: {payload: yes}`), flow's
 * unreplied (`- flow: {unreplied: compact}`).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cfg_keys.h"
#include "compat.h"
#include "output_cfg.h"

static const struct {
	const char *name;
	uint32_t bit;
} eve_types[] = {
	{ "alert", MK_EVE_TYPE_ALERT }, { "flow", MK_EVE_TYPE_FLOW },
	{ "stats", MK_EVE_TYPE_STATS }, { "http", MK_EVE_TYPE_HTTP },
	{ "files", MK_EVE_TYPE_FILES }, { "fileinfo", MK_EVE_TYPE_FILES },
};

/* outputs: - eve-log: {...}; other outputs of Suricata's are refused by name. */
static int outputs_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	char item[64], where[32];
	unsigned int i, n = 0;
	int eve_at = 0, err;

	(void)base;
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
		if (eve_at)
			return mk_cfg_error(x, kn, "outputs.eve-log", -EINVAL,
					    "given twice (first at %s)",
					    mk_cfg_where(x, eve_at, where, sizeof(where)));
		eve_at = kn;
		err = mk_cfg_walk(x, mk_cfg_map_value(x, it, 0), "outputs.eve-log");
		if (err)
			return err;
	}
	return 0;
}

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
			"expected a list of event types ([alert, flow, stats, http]), found %s",
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
				"'%.32s' is not an event type meerkat writes (alert, flow, stats)",
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
	{ NULL, 0 },
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
	MK_CFG_CUSTOM("outputs", outputs_parse, NULL),
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
	MK_CFG_ENUM("outputs.eve-log.types.flow.unreplied", C, eve.flow_unreplied, unreplied_names),
};
#undef C

static void output_defaults(void *base)
{
	struct mk_output_cfg *o = base;

	strcpy(o->log_dir, "/var/log/meerkat");
	o->stats_enabled = 1;
	o->stats_interval = 10;
	o->eve.enabled = 1;
	o->eve.filetype = MK_EVE_FILETYPE_REGULAR;
	o->eve.append = 1;
	o->eve.community_id = 1; /* on, unlike Suricata: it joins records with Zeek's */
	o->eve.types = MK_EVE_TYPE_ALERT | MK_EVE_TYPE_FLOW | MK_EVE_TYPE_STATS;
	strcpy(o->eve.filename, "eve.json");
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
