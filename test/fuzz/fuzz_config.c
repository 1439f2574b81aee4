// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the configuration loader (userspace/config/config.c,
 * libyaml, and every module's key table): the input is a whole YAML file,
 * read through mk_config_load_buf from an exact-size copy. It must never
 * crash; an error is -EINVAL, -ERANGE or -ENOMEM; whether or not the load
 * failed, every number, boolean and enum key holds a value its own row
 * accepts (checked generically over all registered keys), the lists are
 * usable, and the dump prints. mk_config_free releases everything
 * (LeakSanitizer).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t v4[4] = { 0x0100000a }, v6[4] = { 0xb80d0120, 0, 0, 0x01000000 };
	const struct mk_cfg_key *k;
	struct mk_config c;
	unsigned int i;
	FILE *null;
	char *buf;
	int err;

	/* exact-size copy: the loader must not read past the file's end */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	mk_config_defaults(&c);
	err = mk_config_load_buf(&c, buf, size, "fuzz.yaml");
	free(buf);
	CHECK(err == 0 || err == -EINVAL || err == -ERANGE || err == -ENOMEM);

	for (i = 0; (k = mk_config_key(i)); i++) {
		const struct mk_cfg_name *nm;
		uint64_t v;

		if (mk_config_key_value(&c, i, &v))
			continue; /* strings and lists, below */
		if (k->type == MK_CFG_ENUM) {
			for (nm = k->names; nm->name && nm->value != v; nm++)
				;
			CHECK(nm->name != NULL);
			continue;
		}
		CHECK(v >= k->min && v <= k->max);
		CHECK(!k->valid || k->valid(v));
	}
	CHECK(!c.nbypass == !c.bypass);
	for (i = 0; i < c.nbypass; i++) {
		CHECK(c.bypass[i].family == MK_FAMILY_IPV4 || c.bypass[i].family == MK_FAMILY_IPV6);
		CHECK(c.bypass[i].prefix <= (c.bypass[i].family == MK_FAMILY_IPV4 ? 32 : 128));
	}
	mk_config_bypassed(&c, MK_FAMILY_IPV4, v4);
	mk_config_bypassed(&c, MK_FAMILY_IPV6, v6);
	CHECK(c.capture.n_ifaces <= MK_MAX_IFACES && c.capture.ncpus <= MK_MAX_WORKERS);
	for (i = 0; i < c.capture.n_ifaces; i++)
		CHECK(c.capture.ifaces[i].name[0] &&
		      strlen(c.capture.ifaces[i].name) < IF_NAMESIZE);
	for (i = 0; i < c.rules.naddress_groups; i++)
		CHECK(c.rules.address_groups[i].name[0] && c.rules.address_groups[i].value[0]);
	for (i = 0; i < c.rules.nport_groups; i++)
		CHECK(c.rules.port_groups[i].name[0] && c.rules.port_groups[i].value[0]);
	for (i = 0; i < c.rules.nrule_files; i++)
		CHECK(c.rules.rule_files[i][0]);
	CHECK(c.output.log_dir[0] && c.output.eve.filename[0]);
	CHECK(c.capture.stats_interval == (c.output.stats_enabled ? c.output.stats_interval : 0));
	/* whatever was stored before an error prints */
	null = fopen("/dev/null", "w");
	if (null) {
		mk_config_dump(null, &c);
		fclose(null);
	}
	mk_config_free(&c);
	CHECK(!c.mem && !c.nbypass);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* errors are the expected outcome of most inputs; keep only them (their text is exercised too) */
	mk_log_set_level(MK_LOG_ERROR);
	return 0;
}
