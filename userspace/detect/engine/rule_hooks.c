// SPDX-License-Identifier: GPL-2.0-only
/*
 * What consumers of alerts see of a rule (detect.h): its facts, and the
 * rule hooks through which one computes something once per rule at build
 * time (the EVE writer renders a rule's static part).
 */
#include <errno.h>
#include <stdlib.h>
#include "detect_int.h"

#define RULE_HOOKS_MAX 4

static mk_detect_rule_hook_fn rule_hooks[RULE_HOOKS_MAX];
static unsigned int nrule_hooks;

int mk_detect_rule_hook_add(mk_detect_rule_hook_fn fn)
{
	unsigned int i;

	for (i = 0; i < nrule_hooks; i++)
		if (rule_hooks[i] == fn)
			return 0;
	if (nrule_hooks == RULE_HOOKS_MAX)
		return -ENOSPC;
	rule_hooks[nrule_hooks++] = fn;
	return 0;
}

int mk_detect_rule_hooks_run(struct mk_rule *r)
{
	unsigned int i;
	int err;

	for (i = 0; i < nrule_hooks; i++) {
		err = rule_hooks[i](r);
		if (err)
			return err;
	}
	return 0;
}

void mk_detect_rule_set_render(struct mk_rule *r, char *buf, uint32_t len)
{
	free(r->eve);
	r->eve = buf;
	r->eve_len = len;
}

void mk_detect_rule_info(const struct mk_rule *r, struct mk_detect_rule_info *out)
{
	*out = (struct mk_detect_rule_info){
		.gid = r->gid,
		.sid = r->sid,
		.rev = r->rev,
		.severity = r->priority,
		.msg = r->msg ? r->msg : "",
		.category = r->cls ? r->cls->desc : "",
		.classtype = r->cls ? r->cls->name : "",
		.meta = r->meta,
		.nmeta = r->nmeta,
		.target = r->flags & MK_RF_TARGET_SRC ? MK_TARGET_SRC :
			  r->flags & MK_RF_TARGET_DST ? MK_TARGET_DST :
							MK_TARGET_NONE,
		.render = r->eve,
		.render_len = r->eve ? r->eve_len : 0,
	};
}
