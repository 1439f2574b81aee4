/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The transports this build has (out_transport.h): `filetype: redis` and
 * `filetype: kafka` find theirs here by name, at configuration time and
 * when the outputs start. A filetype without a row is refused by name.
 */
#ifndef MK_OUT_REGISTRY_H
#define MK_OUT_REGISTRY_H

#include "out_transport.h"

/* The transport named @name ("redis"), or NULL when this build has none. */
const struct mk_out_transport *mk_out_transport_find(const char *name);

#endif /* MK_OUT_REGISTRY_H */
