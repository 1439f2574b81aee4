// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: SMTP (userspace/applayer/smtp/, applayer/app_line.c)
 * and its EVE record. The input is a dialogue (fuzz_app.h). Every
 * transaction handed over renders as a valid smtp record and keeps at most
 * MK_SMTP_RCPT_MAX recipients; its MIME files (mime.c) keep no more than
 * their size and the mail's limit, and every kept byte is read.
 */
#include "fuzz_app.h"
#include "smtp.h"

static void on_smtp(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_smtp_tx *t)
{
	const struct mk_smtp_file *file;
	uint64_t kept = 0;
	uint32_t i, j;
	volatile uint8_t x = 0; /* every kept byte read: the sanitizer sees a bad one */

	(void)ctx;
	(void)tx_id;
	CHECK(t->nrcpt <= MK_SMTP_RCPT_MAX);
	CHECK(mk_smtp_mime_nfiles(t->mime) <= MK_SMTP_MIME_FILES);
	for (i = 0; (file = mk_smtp_mime_file(t->mime, i)); i++) {
		CHECK(file->len <= file->size && file->len <= file->cap);
		CHECK(!file->name || strlen(file->name) < MK_SMTP_MIME_NAME_MAX);
		for (j = 0; j < file->len; j++)
			x ^= file->data[j];
		kept += file->len;
	}
	CHECK(kept <= 100u << 10); /* the default request-body-limit */
	fuzz_app_json(mk_eve_smtp_object, mk_eve_smtp_maxlen(t), t, f);
}

static const struct mk_app_ops ops = { .smtp_log = on_smtp };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mk_flow f;

	fuzz_app_dialogue(&ops, &f, data, size);
	return 0;
}
