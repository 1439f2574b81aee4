// SPDX-License-Identifier: GPL-2.0-only
/*
 * The keyword registry: the families' registration tables (each defined in
 * its kw/<family>.c), the keywords users are likely to try that are not supported and
 * why, and the counter and failure-reason names. docs/rules.md lists the
 * same keywords; a test checks both stay in step.
 */
#include <string.h>
#include "detect_int.h"

#define FAMILY_PTR(fam, list) &mk_kw_family_##fam,
const struct mk_kw_family *const mk_kw_families[] = { MK_KW_FAMILIES(FAMILY_PTR) };
#undef FAMILY_PTR
const unsigned int mk_nkw_families = MK_ARRAY_SIZE(mk_kw_families);

/* Every keyword in one list, family by family (docs, tests). */
#define FAMILY_KWS(fam, list) list(MK_KW_PTR_)
const struct mk_kw *const mk_keywords[] = { MK_KW_FAMILIES(FAMILY_KWS) };
#undef FAMILY_KWS
const unsigned int mk_nkeywords = MK_ARRAY_SIZE(mk_keywords);

#define APP "app-layer keyword of a protocol or buffer meerkat does not inspect"
#define XFORM "buffer transform: not supported"

const struct mk_unsupported_kw mk_unsupported_keywords[] = {
	/* sticky buffers and legacy content modifiers of the app-layer */
	{ "http_raw_cookie",
	  "no raw cookie buffer (as Suricata): use http.cookie or http.header.raw" },
	{ "dce_iface", APP },
	{ "dce_opnum", APP },
	{ "dce_stub_data", APP },
	{ "app-layer-state", APP },
	{ "filename", APP },
	{ "fileext", APP },
	{ "filemagic", APP },
	{ "filestore", APP },
	{ "filesize", APP },
	{ "filemd5", APP },
	{ "filesha1", APP },
	{ "filesha256", APP },
	{ "ftpdata_command", APP },
	{ "krb5_msg_type", APP },
	{ "nfs_procedure", APP },
	{ "modbus", APP },
	{ "dnp3_func", APP },
	{ "dnp3_obj", APP },
	{ "enip_command", APP },
	{ "cip_service", APP },
	{ "tls.store", APP },
	/* detection features outside the subset */
	{ "hostbits", "host variables: not supported (use flowbits)" },
	{ "iprep", "IP reputation: not supported" },
	{ "geoip", "GeoIP: not supported" },
	{ "dataset", "datasets: not supported" },
	{ "datarep", "datasets: not supported" },
	{ "lua", "Lua scripts: not supported" },
	{ "luajit", "Lua scripts: not supported" },
	{ "byte_math", "not supported (byte_test, byte_jump and byte_extract are)" },
	{ "replace", "payload rewriting: not supported" },
	{ "fragbits", "IP fragment flags: fragments are reassembled before inspection" },
	{ "fragoffset", "IP fragment offset: fragments are reassembled before inspection" },
	{ "id", "IP id: not supported" },
	{ "ipopts", "IP options: not supported" },
	{ "tos", "IP TOS: not supported" },
	{ "seq", "TCP sequence number: not supported" },
	{ "ack", "TCP acknowledgment number: not supported" },
	{ "window", "TCP window: not supported" },
	{ "tcp.mss", "TCP MSS: not supported" },
	{ "tcp.hdr", "header buffers: not supported" },
	{ "udp.hdr", "header buffers: not supported" },
	{ "ipv4.hdr", "header buffers: not supported" },
	{ "ipv6.hdr", "header buffers: not supported" },
	{ "icmpv4.hdr", "header buffers: not supported" },
	{ "icmpv6.hdr", "header buffers: not supported" },
	{ "entropy", "not supported" },
	{ "absent", "app-layer buffers: not supported" },
	{ "prefilter", "explicit prefilter choice: not supported (fast_pattern is)" },
	{ "config", "not supported" },
	{ "requires", "not supported" },
	{ "decode-event", "decoder events: not supported" },
	{ "stream-event", "stream events: not supported" },
	{ "engine-event", "engine events: not supported" },
	{ "pcrexform", XFORM },
	{ "from_base64", XFORM },
};
const unsigned int mk_nunsupported_keywords = MK_ARRAY_SIZE(mk_unsupported_keywords);

/* Name prefixes of the app-layer's sticky buffers and keywords. */
static const char *const app_prefixes[] = {
	"http.",      "http2.",	  "dns.",   "tls.",   "ssh.",  "smb.",	 "krb5.",      "sip.",
	"dhcp.",      "snmp.",	  "mqtt.",  "rfb.",   "quic.", "ike.",	 "ja3",	       "ja4",
	"file.",      "ftp.",	  "smtp.",  "email.", "ldap.", "pgsql.", "websocket.", "nfs.",
	"dcerpc.",    "dnp3",	  "modbus", "enip",   "cip",   "rdp.",	 "sip_",       "tftp.",
	"bittorrent", "template", "frame",  "tls_",   "ssl_",  "http_",	 "dns_",       "ssh_",
	"dce_",	      "krb5_",	  "snmp_",  "ike_",
};

const struct mk_kw *mk_kw_lookup(const char *name)
{
	unsigned int i, k;

	for (i = 0; i < mk_nkw_families; i++)
		for (k = 0; k < mk_kw_families[i]->n; k++)
			if (!strcmp(mk_kw_families[i]->kws[k]->name, name))
				return mk_kw_families[i]->kws[k];
	return NULL;
}

const struct mk_unsupported_kw *mk_kw_unsupported(const char *name)
{
	static const struct mk_unsupported_kw app = { NULL, APP };
	unsigned int i;

	for (i = 0; i < mk_nunsupported_keywords; i++)
		if (!strcmp(mk_unsupported_keywords[i].name, name))
			return &mk_unsupported_keywords[i];
	/* a keyword that is supported is never "unsupported" by its prefix */
	if (mk_kw_lookup(name))
		return NULL;
	for (i = 0; i < MK_ARRAY_SIZE(app_prefixes); i++)
		if (!strncmp(name, app_prefixes[i], strlen(app_prefixes[i])))
			return &app;
	return NULL;
}

#define MK_NAME(id, name, doc) name,
const char *const mk_detect_fail_names[MK_DETECT_FAIL_MAX] = { MK_DETECT_FAIL_REASONS(MK_NAME) };
const char *const mk_detect_counter_names[MK_DETECT_CNT_MAX] = { MK_DETECT_COUNTERS(MK_NAME) };
#undef MK_NAME
