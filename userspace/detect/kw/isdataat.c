// SPDX-License-Identifier: GPL-2.0-only
/*
 * isdataat:[!]N[,relative][,rawbytes]: is there a byte at offset N of the
 * buffer (absolute), or are there N more bytes after the previous match
 * (relative)? N may be a byte_extract variable. Checked by match/payload.c.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

static int setup_isdataat(struct mk_rule_build *rb, const char *value)
{
	struct mk_isdataat *d = calloc(1, sizeof(*d));
	char *v = strdup(value), *tok, *save = NULL;
	int first = 1;

	if (!d || !v) {
		free(d);
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = mk_strtrim(tok);
		if (first) {
			uint32_t n;
			int slot;

			first = 0;
			if (*tok == '!') {
				d->negated = 1;
				tok = mk_strtrim(tok + 1);
			}
			if (!mk_parse_u32(tok, &n) && n <= 65535) {
				d->n = n;
				continue;
			}
			slot = mk_rule_bytevar(rb, tok);
			if (slot < 0) {
				mk_rule_fail(
					rb, MK_DETECT_FAIL_VALUE,
					"'%.40s' is not a number 0-65535 nor a byte_extract variable",
					tok);
				goto err;
			}
			d->n = (uint32_t)slot;
			d->var = 1;
		} else if (!strcmp(tok, "relative")) {
			d->relative = 1;
		} else if (strcmp(tok, "rawbytes")) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown option '%.40s'", tok);
			goto err;
		}
	}
	if (first) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs a value");
		goto err;
	}
	free(v);
	return mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_isdataat, d);
err:
	free(v);
	free(d);
	return -1;
}

MK_KW_DEFINE(isdataat, MK_KWT_ISDATAAT, 0, setup_isdataat, NULL,
	     "[!]N[,relative]: data exists at offset N, or N bytes after the previous match");

MK_KW_FAMILY_TABLE(isdataat, MK_KW_FAMILY_ISDATAAT);
