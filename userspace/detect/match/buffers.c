// SPDX-License-Identifier: GPL-2.0-only
/*
 * The named buffers' getters and the one loop that inspects a rule's
 * buffers (detect_buf.h).
 */
#include <string.h>
#include "detect_int.h"
#include "http.h"

/*
 * payload: the packet's payload, or the stream window the caller set in
 * the context. The others: the transaction's, through the protocol's
 * getter (applayer/http/http_detect.c).
 */
static int buf_get(const struct mk_match_ctx *mc, unsigned int id, struct mk_buf *out)
{
	if (id == MK_BUF_PAYLOAD) {
		*out = mc->payload;
		return 1;
	}
	memset(out, 0, sizeof(*out));
	return mc->app_tx &&
	       mk_http_tx_buffer(mc->app_tx, id, mc->to_client, &out->data, &out->len);
}

#define MK_BUF_TX_GETTER(id, name, side)                                          \
	static int buf_tx_##id(const struct mk_match_ctx *mc, struct mk_buf *out) \
	{                                                                         \
		return buf_get(mc, MK_BUF_##id, out);                             \
	}
MK_BUFFERS(MK_BUF_TX_GETTER)
#undef MK_BUF_TX_GETTER

#define MK_BUF_GETTER(id, name, side) [MK_BUF_##id] = buf_tx_##id,
const mk_buf_get_fn mk_buf_getters[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_GETTER) };
#undef MK_BUF_GETTER

#define MK_BUF_NAME(id, name, side) [MK_BUF_##id] = name,
const char *const mk_buf_names[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_NAME) };
#undef MK_BUF_NAME

#define MK_BUF_SIDE(id, name, side) [MK_BUF_##id] = (side),
const uint8_t mk_buf_sides[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_SIDE) };
#undef MK_BUF_SIDE

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
