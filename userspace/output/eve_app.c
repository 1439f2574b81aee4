// SPDX-License-Identifier: GPL-2.0-only
/* The record around an application protocol's object (eve_app.h). */
#include <errno.h>
#include "ebuf.h"
#include "eve_app.h"

int mk_eve_app_record(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		      uint64_t ts_us, const char *event_type, int64_t tx_id,
		      mk_eve_app_object_fn object, const void *facts)
{
	struct ebuf o;
	int n, k;

	if (size < 3)
		return -ENOSPC;
	size--; /* the terminating NUL */
	n = mk_eve_head(buf, size, cfg, f, ts_us, event_type);
	if (n < 0)
		return n;
	o = (struct ebuf){ .p = buf + n, .end = buf + size };
	if (tx_id >= 0) {
		EB_LIT(&o, ",\"tx_id\":");
		eb_u64(&o, (uint64_t)tx_id);
	}
	EB_LIT(&o, ",");
	if (o.overflow)
		return -ENOSPC;
	k = object(o.p, (size_t)(o.end - o.p), facts);
	if (k < 0)
		return k;
	o.p += k;
	EB_LIT(&o, "}");
	if (o.overflow)
		return -ENOSPC;
	*o.p = '\0';
	return (int)(o.p - buf);
}
