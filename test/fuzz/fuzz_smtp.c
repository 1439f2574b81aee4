// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: SMTP (userspace/applayer/smtp/, applayer/app_line.c)
 * and its EVE record. The input is a dialogue (fuzz_app.h). Every
 * transaction handed over renders as a valid smtp record and keeps at most
 * MK_SMTP_RCPT_MAX recipients.
 */
#include "fuzz_app.h"
#include "smtp.h"

static void on_smtp(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_smtp_tx *t)
{
	(void)ctx;
	(void)tx_id;
	CHECK(t->nrcpt <= MK_SMTP_RCPT_MAX);
	fuzz_app_json(mk_eve_smtp_object, mk_eve_smtp_maxlen(t), t, f);
}

static const struct mk_app_ops ops = { .smtp_log = on_smtp };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mk_flow f;

	fuzz_app_dialogue(&ops, &f, data, size);
	return 0;
}
