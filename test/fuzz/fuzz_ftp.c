// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: FTP (userspace/applayer/ftp/: commands, replies, the
 * address parsers, the expected data connections) and its EVE record. The
 * input is a dialogue (fuzz_app.h), then a second flow between the same
 * hosts that may be an expected data connection; the PORT/227 parser also
 * runs on the whole input. Every command handed over renders as a valid
 * ftp record with at most MK_FTP_REPLY_MAX reply lines, every data
 * connection's as a valid ftp_data record.
 */
#include "ftp.h"
#include "fuzz_app.h"

static void on_ftp(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_ftp_tx *t)
{
	(void)ctx;
	(void)tx_id;
	CHECK(t->nreply <= MK_FTP_REPLY_MAX && t->ncode <= t->nreply);
	fuzz_app_json(mk_eve_ftp_object, mk_eve_ftp_maxlen(t), t, f);
}

static void on_ftp_data(void *ctx, struct mk_flow *f, const struct mk_ftp_data_info *d)
{
	(void)ctx;
	CHECK(strlen(d->file) < MK_FTP_FILE_MAX && strlen(d->command) < sizeof(d->command));
	fuzz_app_json(mk_eve_ftp_data_object, MK_EVE_FTP_DATA_MAXLEN, d, f);
}

static const struct mk_app_ops ops = { .ftp_log = on_ftp, .ftp_data_log = on_ftp_data };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mk_flow f;
	uint32_t addr;
	uint16_t port;

	mk_ftp_parse_hostport(data, (uint32_t)size, &addr, &port);
	fuzz_app_dialogue(&ops, &f, data, size);
	return 0;
}
