// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: SSH (userspace/applayer/ssh/) and its EVE record. The
 * input is a dialogue (fuzz_app.h); the HASSH decoder also runs on the
 * whole input, both ways. Every session handed over renders as a valid
 * ssh record.
 */
#include "fuzz_app.h"
#include "ssh.h"

static void on_ssh(void *ctx, struct mk_flow *f, const struct mk_ssh_info *s)
{
	(void)ctx;
	CHECK(!s->client.hassh || strlen(s->client.hassh_hash) == 32);
	fuzz_app_json(mk_eve_ssh_object, mk_eve_ssh_maxlen(s), s, f);
}

static const struct mk_app_ops ops = { .ssh_log = on_ssh };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mk_flow f;
	char *h;

	h = mk_ssh_hassh(data, (uint32_t)size, 0);
	free(h);
	h = mk_ssh_hassh(data, (uint32_t)size, 1);
	free(h);
	fuzz_app_dialogue(&ops, &f, data, size);
	return 0;
}
