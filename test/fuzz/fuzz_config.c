// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the configuration file parser (userspace/control/config.c):
 * the input is a whole file's contents, read through mk_config_load_buf
 * (fmemopen, the same line parser as mk_config_load). It must never crash;
 * an error is a negative errno, logged, and never leaves a bound broken; on
 * success every numeric key is inside its documented range and the bypass
 * list is usable. mk_config_free must release everything (LeakSanitizer).
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
	struct mk_config c;
	unsigned int i;
	char *buf;
	int err;

	/* exact-size copy: the parser must not read past the file's end */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	mk_config_defaults(&c);
	err = mk_config_load_buf(&c, buf, size, "fuzz.conf");
	free(buf);
	CHECK(err == 0 || err == -EINVAL || err == -ERANGE || err == -EDOM || err == -ENOMEM ||
	      err == -EIO);

	/* every value stays inside the table's bounds, whether or not a later line failed */
	CHECK(c.flow.max_flows >= 1 && c.flow.max_flows <= 1u << 28);
	CHECK(c.flow.hash_size >= 1 && c.flow.hash_size <= 1u << 30);
	CHECK(c.flow.emergency_recovery >= 1 && c.flow.emergency_recovery <= 100);
	CHECK(c.parse.tunnel_depth <= MK_TUNNEL_DEPTH_MAX);
	CHECK(c.parse.l2tpv3_cookie_len == 0 || c.parse.l2tpv3_cookie_len == 4 ||
	      c.parse.l2tpv3_cookie_len == 8);
	CHECK(c.stream.memcap >= 1 << 20);
	CHECK(c.stream.midstream <= 1);
	CHECK(c.defrag.memcap >= 1 << 16);
	CHECK(c.defrag.max_frags >= 1 && c.defrag.max_frags <= 65535);
	CHECK(c.defrag.max_trackers >= 1 && c.defrag.max_trackers <= 1u << 20);
	CHECK(c.defrag.timeout_ns >= 1000000000ull && c.defrag.timeout_ns <= 3600 * 1000000000ull);
	CHECK(c.defrag.policy < MK_DEFRAG_POLICY_MAX);
	CHECK(c.stream.overlap_policy <= MK_OVERLAP_LAST);
	CHECK(c.stream.max_ooo_segs <= 1u << 24);
	CHECK(!c.nbypass == !c.bypass);
	for (i = 0; i < c.nbypass; i++) {
		CHECK(c.bypass[i].family == MK_FAMILY_IPV4 || c.bypass[i].family == MK_FAMILY_IPV6);
		CHECK(c.bypass[i].prefix <= (c.bypass[i].family == MK_FAMILY_IPV4 ? 32 : 128));
	}
	mk_config_bypassed(&c, MK_FAMILY_IPV4, v4);
	mk_config_bypassed(&c, MK_FAMILY_IPV6, v6);
	mk_config_free(&c);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* errors are the expected outcome of most inputs; keep only them */
	mk_log_set_level(MK_LOG_ERROR);
	return 0;
}
