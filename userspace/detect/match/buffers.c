// SPDX-License-Identifier: GPL-2.0-only
/*
 * The named buffers' getters and the one loop that inspects a rule's
 * buffers (detect_buf.h).
 */
#include <string.h>
#include "detect_int.h"

/* The packet's payload, or the stream window the caller set in the context. */
static int buf_payload(const struct mk_match_ctx *mc, struct mk_buf *out)
{
	*out = mc->payload;
	return 1;
}

const mk_buf_get_fn mk_buf_getters[MK_BUF_COUNT] = {
	[MK_BUF_PAYLOAD] = buf_payload,
};

#define MK_BUF_NAME(id, name) [MK_BUF_##id] = name,
const char *const mk_buf_names[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_NAME) };
#undef MK_BUF_NAME

int mk_buffers_inspect(const struct mk_match_ctx *mc, const struct mk_rule *r,
		       uint32_t *payload_end)
{
	struct mk_insp in;
	struct mk_buf b;
	uint32_t id;

	for (id = 0; id < MK_BUF_COUNT; id++) {
		if (!(r->buf_mask & 1u << id))
			continue;
		if (!mk_buf_getters[id](mc, &b))
			return 0;
		memset(&in, 0, sizeof(in));
		in.t = mc->t;
		in.buf = b.data;
		in.len = b.len;
		in.abs_base = b.abs_base;
		in.min_end = b.min_end;
		in.buf_id = id;
		if (!mk_payload_inspect(&in, r))
			return 0;
		if (id == MK_BUF_PAYLOAD && payload_end)
			*payload_end = in.match_end;
	}
	return 1;
}
