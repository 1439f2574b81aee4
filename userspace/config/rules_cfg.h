/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the detection engine reads from the configuration, as suricata.yaml
 * names it: `vars` (address-groups and port-groups), `default-rule-path`,
 * `rule-files`, `classification-file`, `reference-config-file`,
 * `threshold-file`. Kept as plain strings: the detection engine parses and
 * resolves them (a group referencing other groups, a rule file relative to
 * default-rule-path), this module only checks that each is a non-empty string.
 *
 * The built-in groups are Suricata's; a group the file names replaces the
 * built-in one of that name, the others stay. A `rule-files` list in the file
 * replaces the (empty) built-in list.
 */
#ifndef MK_RULES_CFG_H
#define MK_RULES_CFG_H

#define MK_RULES_PATH_MAX 256
/* The side files' default paths: a run that sets neither finds them missing quietly. */
#define MK_RULES_CLASSIFICATION_DEFAULT "/etc/meerkat/classification.config"
#define MK_RULES_REFERENCE_DEFAULT "/etc/meerkat/reference.config"

/* One variable: name without '$' -> value ("[10.0.0.0/8,!10.1.0.0/16]", "80", ...). */
struct mk_cfg_var {
	const char *name;
	const char *value;
};

struct mk_rules_cfg {
	const struct mk_cfg_var *address_groups; /* vars.address-groups */
	unsigned int naddress_groups;
	const struct mk_cfg_var *port_groups; /* vars.port-groups */
	unsigned int nport_groups;
	const char *const *rule_files; /* rule-files: a name without '/' is under */
	unsigned int nrule_files;      /* default-rule-path */
	char default_rule_path[MK_RULES_PATH_MAX];
	char classification_file[MK_RULES_PATH_MAX];
	char reference_config_file[MK_RULES_PATH_MAX];
	char threshold_file[MK_RULES_PATH_MAX];	 /* "" = none */
	char prefilter_cache[MK_RULES_PATH_MAX]; /* detect.prefilter-cache; "" = none */
};

struct mk_cfg_table;
extern const struct mk_cfg_table mk_rules_cfg_table;

/* The value of group @name in @vars (n entries), or NULL. */
const char *mk_cfg_var_get(const struct mk_cfg_var *vars, unsigned int n, const char *name);

#endif /* MK_RULES_CFG_H */
