// SPDX-License-Identifier: GPL-2.0-only
/* The transports of this build (out_registry.h): one row each. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "out_registry.h"

static const struct mk_out_transport *const transports[] = {
	&mk_out_redis,
	&mk_out_kafka,
	NULL,
};

const struct mk_out_transport *mk_out_transport_find(const char *name)
{
	const struct mk_out_transport *const *t;

	for (t = transports; *t; t++)
		if (!strcmp((*t)->name, name))
			return *t;
	return NULL;
}

int mk_out_kv_error(const struct mk_out_kv *kv, char *why, size_t len, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (kv->line)
		snprintf(why, len, "%s: %s (line %u)", kv->key, msg, kv->line);
	else
		snprintf(why, len, "%s: %s", kv->key, msg);
	return -EINVAL;
}
