// SPDX-License-Identifier: GPL-2.0-only
/* The transports of this build (out_registry.h): one row each. */
#include <stddef.h>
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
