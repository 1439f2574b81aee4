/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named buffers: what a rule's payload keywords (content, pcre, isdataat,
 * byte_test/jump/extract) read.
 *
 * A rule keeps one keyword list per buffer (struct mk_rule bufs[], indexed
 * by enum mk_buf_id) and a mask of the buffers it uses. Keywords join the
 * list of the rule's current buffer (rb->cur_buf, MK_BUF_PAYLOAD at the
 * start); a sticky-buffer keyword (http.uri, ...) only switches it. At run
 * time the matcher walks the buffers the rule uses, fetches each through
 * its getter (mk_buf_getters[]) and inspects that buffer with that list;
 * every list must match. A new buffer (an application layer's http.uri) is
 * an id in MK_BUFFERS, a getter and the keyword that selects it; the
 * matcher does not change.
 *
 * Today one buffer: payload, the packet's payload or, on stream data, the
 * reassembled window. The prefilter indexes the payload buffer.
 */
#ifndef MK_DETECT_BUF_H
#define MK_DETECT_BUF_H

#include <stdint.h>

/* X(id, name): every buffer. */
#define MK_BUFFERS(X) X(PAYLOAD, "payload")

#define MK_BUF_ENUM(id, name) MK_BUF_##id,
enum mk_buf_id { MK_BUFFERS(MK_BUF_ENUM) MK_BUF_COUNT };
#undef MK_BUF_ENUM

_Static_assert(MK_BUF_COUNT <= 32, "a rule's buffer mask is 32 bits");

struct mk_sm;
struct mk_match_ctx;

/* A rule's keywords for one buffer, in rule order. */
struct mk_sm_list {
	struct mk_sm *sm;
	uint32_t n, cap;
};

/* A buffer as a getter hands it over. */
struct mk_buf {
	const uint8_t *data;
	uint32_t len;
	uint32_t min_end;  /* a match must end after this offset (stream windows); 0: none */
	uint64_t abs_base; /* stream offset of data[0]; 0 for packets */
};

/* Fills @out with the buffer for @mc; 0 when the packet or stream has none. */
typedef int (*mk_buf_get_fn)(const struct mk_match_ctx *mc, struct mk_buf *out);

extern const mk_buf_get_fn mk_buf_getters[MK_BUF_COUNT];
extern const char *const mk_buf_names[MK_BUF_COUNT];

#endif /* MK_DETECT_BUF_H */
