/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EVE `tls` records and the `tls` object, with Suricata's field names:
 * subject, issuerdn, serial, fingerprint, sni, version, notbefore,
 * notafter, ja3 {hash, string}, ja3s {hash, string}, ja4. Rendered from a
 * session's facts (applayer/tls/tls.h); absent fields are left out.
 */
#ifndef MK_EVE_TLS_H
#define MK_EVE_TLS_H

#include <stddef.h>
#include <stdint.h>
#include "eve.h"
#include "flow.h"

struct mk_tls_info;

/* A buffer size that always holds mk_eve_tls_object() of @t. */
size_t mk_eve_tls_maxlen(const struct mk_tls_info *t);
/* `"tls":{...}` (no leading comma); its length, or -ENOSPC. */
int mk_eve_tls_object(char *buf, size_t size, const struct mk_tls_info *t);
/* The whole `tls` event; its length, or -ENOSPC. */
int mk_eve_tls(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
	       uint64_t ts_us, const struct mk_tls_info *t);
/* "TLS 1.2", "SSLv3", ...; "UNDETERMINED" for 0 or an unknown value. */
const char *mk_eve_tls_version(uint16_t v);

#endif /* MK_EVE_TLS_H */
