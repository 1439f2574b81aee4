// SPDX-License-Identifier: GPL-2.0-only
/*
 * The detection keys (rules_cfg.h): variables, rule files and the rule
 * engine's side files, kept as strings for the detection engine.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cfg_keys.h"
#include "compat.h"
#include "rules_cfg.h"

/* suricata.yaml's groups, so that published rule sets load without a configuration */
static const struct mk_cfg_var default_address_groups[] = {
	{ "HOME_NET", "[192.168.0.0/16,10.0.0.0/8,172.16.0.0/12]" },
	{ "EXTERNAL_NET", "!$HOME_NET" },
	{ "HTTP_SERVERS", "$HOME_NET" },
	{ "SMTP_SERVERS", "$HOME_NET" },
	{ "SQL_SERVERS", "$HOME_NET" },
	{ "DNS_SERVERS", "$HOME_NET" },
	{ "TELNET_SERVERS", "$HOME_NET" },
	{ "AIM_SERVERS", "$EXTERNAL_NET" },
	{ "DC_SERVERS", "$HOME_NET" },
	{ "DNP3_SERVER", "$HOME_NET" },
	{ "DNP3_CLIENT", "$HOME_NET" },
	{ "MODBUS_CLIENT", "$HOME_NET" },
	{ "MODBUS_SERVER", "$HOME_NET" },
	{ "ENIP_CLIENT", "$HOME_NET" },
	{ "ENIP_SERVER", "$HOME_NET" },
};

static const struct mk_cfg_var default_port_groups[] = {
	{ "HTTP_PORTS", "80" },
	{ "SHELLCODE_PORTS", "!80" },
	{ "ORACLE_PORTS", "1521" },
	{ "SSH_PORTS", "22" },
	{ "DNP3_PORTS", "20000" },
	{ "MODBUS_PORTS", "502" },
	{ "FILE_DATA_PORTS", "[$HTTP_PORTS,110,143]" },
	{ "FTP_PORTS", "21" },
	{ "GENEVE_PORTS", "6081" },
	{ "VXLAN_PORTS", "4789" },
	{ "TEREDO_PORTS", "3544" },
};

const char *mk_cfg_var_get(const struct mk_cfg_var *vars, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(vars[i].name, name))
			return vars[i].value;
	return NULL;
}

/*
 * A group mapping: each name given replaces the group of that name or adds
 * one; the groups it does not name keep their values.
 */
static int groups_parse(struct mk_cfg_ctx *x, int node, const char *path,
			const struct mk_cfg_var **vars, unsigned int *nvars)
{
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	unsigned int i, j, n, total;
	struct mk_cfg_var *res;
	char key[160], where[32];
	int err;

	if (kind == MK_CFG_NODE_NULL)
		return 0;
	if (kind != MK_CFG_NODE_MAPPING)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a mapping of group names to values, found %s",
				    kind == MK_CFG_NODE_SEQUENCE ? "a list" : "a value");
	n = mk_cfg_node_len(x, node);
	res = mk_cfg_alloc(x, ((size_t)*nvars + n) * sizeof(*res));
	if (!res)
		return -ENOMEM;
	memcpy(res, *vars, *nvars * sizeof(*res));
	total = *nvars;
	for (i = 0; i < n; i++) {
		int kn = mk_cfg_map_key(x, node, i), vn = mk_cfg_map_value(x, node, i);
		const char *name, *value;

		err = mk_cfg_scalar_nonempty(x, kn, path, &name);
		if (err)
			return err;
		snprintf(key, sizeof(key), "%s.%.64s", path, name);
		for (j = 0; j < i; j++) {
			const char *prev;
			int pn = mk_cfg_map_key(x, node, j);

			if (!mk_cfg_scalar(x, pn, path, &prev) && !strcmp(prev, name))
				return mk_cfg_error(x, kn, key, -EINVAL,
						    "given twice (first at %s)",
						    mk_cfg_where(x, pn, where, sizeof(where)));
		}
		if (mk_cfg_node_kind(x, vn) == MK_CFG_NODE_SEQUENCE)
			return mk_cfg_error(x, vn, key, -EINVAL,
					    "a YAML list; write the group as a quoted string, "
					    "\"[10.0.0.0/8,192.168.0.0/16]\"");
		err = mk_cfg_scalar_nonempty(x, vn, key, &value);
		if (err)
			return err;
		name = mk_cfg_strdup(x, name);
		value = mk_cfg_strdup(x, value);
		if (!name || !value)
			return -ENOMEM;
		for (j = 0; j < total && strcmp(res[j].name, name); j++)
			;
		res[j].name = name;
		res[j].value = value;
		if (j == total)
			total++;
	}
	*vars = res;
	*nvars = total;
	return 0;
}

static int address_groups_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_rules_cfg *r = base;

	return groups_parse(x, node, path, &r->address_groups, &r->naddress_groups);
}

static int port_groups_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_rules_cfg *r = base;

	return groups_parse(x, node, path, &r->port_groups, &r->nport_groups);
}

static void groups_dump(FILE *out, const char *path, const struct mk_cfg_var *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fprintf(out, "%s.%s = ", path, v[i].name);
		mk_cfg_print_str(out, v[i].value);
		fputc('\n', out);
	}
}

static void address_groups_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_rules_cfg *r = base;

	groups_dump(out, path, r->address_groups, r->naddress_groups);
}

static void port_groups_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_rules_cfg *r = base;

	groups_dump(out, path, r->port_groups, r->nport_groups);
}

/* rule-files: a list of file names; it replaces the built-in (empty) list */
static int rule_files_parse(struct mk_cfg_ctx *x, int node, const char *path, void *base)
{
	struct mk_rules_cfg *r = base;
	enum mk_cfg_kind kind = mk_cfg_node_kind(x, node);
	unsigned int i, n = 0;
	const char **files = NULL;
	char item[64];
	int err;

	if (kind == MK_CFG_NODE_SEQUENCE)
		n = mk_cfg_node_len(x, node);
	else if (kind != MK_CFG_NODE_NULL)
		return mk_cfg_error(x, node, path, -EINVAL,
				    "expected a list of rule files (- local.rules), found %s",
				    kind == MK_CFG_NODE_MAPPING ? "a mapping" : "a value");
	if (n) {
		files = mk_cfg_alloc(x, n * sizeof(*files));
		if (!files)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const char *s;

		snprintf(item, sizeof(item), "%s[%u]", path, i);
		err = mk_cfg_scalar_nonempty(x, mk_cfg_seq_item(x, node, i), item, &s);
		if (err)
			return err;
		files[i] = mk_cfg_strdup(x, s);
		if (!files[i])
			return -ENOMEM;
	}
	r->rule_files = files;
	r->nrule_files = n;
	return 0;
}

static void rule_files_dump(FILE *out, const char *path, const void *base)
{
	const struct mk_rules_cfg *r = base;
	unsigned int i;

	fprintf(out, "%s = [", path);
	for (i = 0; i < r->nrule_files; i++) {
		fputs(i ? ", " : "", out);
		mk_cfg_print_str(out, r->rule_files[i]);
	}
	fputs("]\n", out);
}

#define C struct mk_rules_cfg
static const struct mk_cfg_key rules_keys[] = {
	MK_CFG_CUSTOM("vars.address-groups", address_groups_parse, address_groups_dump),
	MK_CFG_CUSTOM("vars.port-groups", port_groups_parse, port_groups_dump),
	MK_CFG_STRING_NONEMPTY("default-rule-path", C, default_rule_path),
	MK_CFG_CUSTOM("rule-files", rule_files_parse, rule_files_dump),
	MK_CFG_STRING("classification-file", C, classification_file),
	MK_CFG_STRING("reference-config-file", C, reference_config_file),
	MK_CFG_STRING("threshold-file", C, threshold_file),
	MK_CFG_STRING("detect.prefilter-cache", C, prefilter_cache),
};
#undef C

static void rules_defaults(void *base)
{
	struct mk_rules_cfg *r = base;

	r->address_groups = default_address_groups;
	r->naddress_groups = MK_ARRAY_SIZE(default_address_groups);
	r->port_groups = default_port_groups;
	r->nport_groups = MK_ARRAY_SIZE(default_port_groups);
	strcpy(r->default_rule_path, "/var/lib/meerkat/rules");
	strcpy(r->classification_file, MK_RULES_CLASSIFICATION_DEFAULT);
	strcpy(r->reference_config_file, MK_RULES_REFERENCE_DEFAULT);
}

const struct mk_cfg_table mk_rules_cfg_table = {
	.name = "rules",
	.keys = rules_keys,
	.nkeys = MK_ARRAY_SIZE(rules_keys),
	.defaults = rules_defaults,
};
