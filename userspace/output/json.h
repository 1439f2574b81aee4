/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * JSON text helpers shared by the EVE writers. Output owns JSON escaping:
 * nothing upstream of output/ writes JSON.
 */
#ifndef MK_JSON_H
#define MK_JSON_H

#include <stddef.h>
#include <stdint.h>

/*
 * Appends @len bytes as a JSON string body (no quotes); returns bytes written
 * or -ENOSPC. Quotes, backslashes and control characters are escaped, valid
 * UTF-8 passes, and any other byte becomes \u00XX (its Latin-1 code point,
 * as Suricata prints), so the result is valid JSON whatever the input holds.
 */
int mk_json_escape(char *out, size_t size, const uint8_t *s, size_t len);

#endif /* MK_JSON_H */
