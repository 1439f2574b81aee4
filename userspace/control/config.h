/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration file: one `key: value` per line, `#` starts a comment,
 * keys are dotted paths (flow.timeout.tcp.established). Every key is a row of
 * one table in config.c naming its type, bounds and field, so the parser,
 * the error messages and docs/flow.md cannot drift apart. Errors name the
 * file, the line and the key.
 */
#ifndef MK_CONFIG_H
#define MK_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include "capture_cfg.h"
#include "defrag.h"
#include "flow.h"
#include "map_types.h"
#include "stream.h"

struct mk_cidr {
	uint32_t addr[4]; /* network byte order, host bits cleared */
	uint8_t family;	  /* enum mk_family */
	uint8_t prefix;
};

struct mk_config {
	struct mk_capture_cfg capture; /* live mode only */
	struct mk_flow_cfg flow;
	struct mk_parse_cfg parse; /* seed is set by the caller, not the file */
	struct mk_stream_cfg stream;	/* the stream engine's own settings */
	struct mk_defrag_config defrag; /* the defragmenter's own settings */
	struct mk_cidr *bypass;
	unsigned int nbypass;
};

void mk_config_defaults(struct mk_config *c);
/* Returns 0 or -errno; the error is logged with file:line and the key. */
int mk_config_load(struct mk_config *c, const char *path);
/* The same from @len bytes at @buf (not NUL-terminated); @name stands for the path in errors. */
int mk_config_load_buf(struct mk_config *c, const char *buf, size_t len, const char *name);
void mk_config_free(struct mk_config *c);

/* "10.0.0.0/8", "2001:db8::/32", or a bare address (full prefix). 0 or -EINVAL. */
int mk_cidr_parse(const char *s, struct mk_cidr *out);
/* Is @addr (network order, IPv4 in addr[0]) inside one of the bypass prefixes? */
int mk_config_bypassed(const struct mk_config *c, uint8_t family, const uint32_t *addr);

#endif /* MK_CONFIG_H */
