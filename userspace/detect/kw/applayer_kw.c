// SPDX-License-Identifier: GPL-2.0-only
/*
 * The application layer's keywords (docs/rules.md):
 *
 * app-layer-protocol:[!]NAME[,MODE] — the protocol the application layer
 * recognised for the flow: http, dns, tls, ssh, smtp, ftp, ftp-data, smb,
 * failed (data, nothing recognised) or unknown (not decided yet).
 * Suricata's modes (to_server, to_client,
 * either, direction, final, original) are accepted: a flow has one
 * protocol here, so they all read it. A negation matches once the
 * protocol is decided and differs.
 *
 * app-layer-event:PROTO.NAME — an anomaly the protocol's parser reported
 * on the transaction: http (libhtp's, applayer/http/http.h MK_HTTP_EVENTS;
 * the rule waits for the part the event belongs to), dns (of the message
 * read, applayer/dns/dns.h MK_DNS_EVENTS) or tls (of the session,
 * applayer/tls/tls.h MK_TLS_EVENTS; the rule waits for the client's
 * handshake to be over). It makes the rule a transaction rule of PROTO.
 *
 * ftpbounce — the FTP session's latest PORT or EPRT named another address
 * than its client's (applayer/ftp/ftp.h); makes the rule an ftp one. In a
 * transaction rule (ftp.command, no payload keywords), that command did.
 */
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect_int.h"
#include "dns.h"
#include "ftp.h"
#include "http.h"
#include "tls.h"

/* ---- the rule's protocol, sticky buffers ----------------------------------------------- */

int mk_kw_app_rule(struct mk_rule_build *rb, uint8_t proto)
{
	if (rb->r->app_proto && rb->r->app_proto != proto)
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"a keyword of %s in a rule of another application protocol (%s)",
			mk_app_proto_name(proto), mk_app_proto_name(rb->r->app_proto));
	rb->r->app_proto = proto;
	return 0;
}

int mk_kw_sticky(struct mk_rule_build *rb, unsigned int id)
{
	if (mk_kw_app_rule(rb, mk_buf_protos[id]))
		return -1;
	rb->cur_buf = (uint8_t)id;
	rb->last_content = NULL;
	rb->last_payload = NULL;
	/* transforms may follow, up to the first payload keyword (rule_parse.c) */
	rb->sticky_open = 1;
	memset(&rb->xf, 0, sizeof(rb->xf));
	return 0;
}

int mk_kw_sticky_setup(struct mk_rule_build *rb, const char *value)
{
	unsigned int id = rb->cur_kw->sticky - 1u;

	(void)value;
	if (!rb->cur_kw->sticky)
		return -1;
	/* file.data in an smtp rule: the mail's attachments, not an HTTP body */
	if (id == MK_BUF_FILE_DATA && rb->r->app_proto == MK_APP_SMTP)
		id = MK_BUF_SMTP_FILE_DATA;
	return mk_kw_sticky(rb, id);
}

/* ---- app-layer-protocol ----------------------------------------------------------------- */

struct alproto {
	uint8_t proto; /* enum mk_app_proto; MK_APP_NONE: unknown */
	uint8_t neg;
};

static const struct {
	const char *name;
	uint8_t proto;
} protos[] = {
	{ "http", MK_APP_HTTP },     { "http1", MK_APP_HTTP },	      { "dns", MK_APP_DNS },
	{ "tls", MK_APP_TLS },	     { "ssh", MK_APP_SSH },	      { "smtp", MK_APP_SMTP },
	{ "ftp", MK_APP_FTP },	     { "ftp-data", MK_APP_FTP_DATA }, { "smb", MK_APP_SMB },
	{ "failed", MK_APP_FAILED }, { "unknown", MK_APP_NONE },
};

static const char *const modes[] = { "to_server", "to_client", "either",
				     "direction", "final",     "original" };

static int setup_app_layer_protocol(struct mk_rule_build *rb, const char *value)
{
	char *v = strdup(value), *name, *mode;
	struct alproto *ap;
	size_t i;
	int neg;

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	mode = strchr(v, ',');
	if (mode) {
		*mode++ = '\0';
		mode = mk_strtrim(mode);
		for (i = 0; i < MK_ARRAY_SIZE(modes) && strcmp(mode, modes[i]); i++)
			;
		if (i == MK_ARRAY_SIZE(modes)) {
			mk_rule_fail(
				rb, MK_DETECT_FAIL_VALUE,
				"'%.40s' is not a mode (to_server, to_client, either, direction, "
				"final, original)",
				mode);
			free(v);
			return -1;
		}
	}
	name = mk_strtrim(v);
	neg = name[0] == '!';
	if (neg)
		name = mk_strtrim(name + 1);
	for (i = 0; i < MK_ARRAY_SIZE(protos) && strcasecmp(name, protos[i].name); i++)
		;
	if (i == MK_ARRAY_SIZE(protos)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "'%.40s' is not a protocol meerkat recognises (http, dns, tls, ssh, "
			     "smtp, ftp, ftp-data, smb, failed, unknown)",
			     name);
		free(v);
		return -1;
	}
	free(v);
	/* against the rule's protocol (its header, or a buffer before): never true */
	if (rb->r->app_proto &&
	    (neg ? protos[i].proto == rb->r->app_proto : protos[i].proto != rb->r->app_proto))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "%s%s in a rule of protocol %s: it could never match",
				    neg ? "!" : "", protos[i].name,
				    mk_app_proto_name(rb->r->app_proto));
	ap = malloc(sizeof(*ap));
	if (!ap)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	ap->proto = protos[i].proto;
	ap->neg = (uint8_t)neg;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_app_layer_protocol, ap);
}

static int match_app_layer_protocol(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct alproto *ap = sm->ctx;
	uint8_t cur = mc->flow ? mc->flow->app_proto : MK_APP_NONE;

	if (!ap->neg)
		return cur == ap->proto;
	return cur != MK_APP_NONE && cur != ap->proto;
}

const struct mk_kw mk_kw_app_layer_protocol = {
	.name = "app-layer-protocol",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE | MK_KWF_STREAM_OK,
	.setup = setup_app_layer_protocol,
	.match = match_app_layer_protocol,
	.free = free,
	.doc = "the flow's application protocol: [!]http|dns|tls|ssh|smtp|ftp|ftp-data|smb|failed|"
	       "unknown[,mode]",
};

/* ---- app-layer-event -------------------------------------------------------------------- */

struct app_event {
	uint8_t proto; /* enum mk_app_proto */
	uint8_t id;    /* the protocol's event */
};

static int setup_app_layer_event(struct mk_rule_build *rb, const char *value)
{
	const char *name = value;
	struct app_event *ev;
	uint8_t side = 0, proto;
	int id;

	while (*name == ' ')
		name++;
	if (!strncmp(name, "http.", 5)) {
		proto = MK_APP_HTTP;
		id = mk_http_event_lookup(name + 5, &side);
	} else if (!strncmp(name, "dns.", 4)) {
		proto = MK_APP_DNS;
		id = mk_dns_event_lookup(name + 4);
	} else if (!strncmp(name, "tls.", 4)) {
		proto = MK_APP_TLS;
		id = mk_tls_event_lookup(name + 4);
		/* the session's events so far: read once the client's handshake is over */
		side = MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY;
	} else {
		return mk_rule_fail(rb, MK_DETECT_FAIL_KEYWORD,
				    "'%.40s': only HTTP, DNS and TLS events (http.NAME, dns.NAME, "
				    "tls.NAME) are raised",
				    name);
	}
	if (id < 0)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.60s' is not an event meerkat raises (docs/applayer.md)",
				    name);
	if (mk_kw_app_rule(rb, proto))
		return -1;
	ev = malloc(sizeof(*ev));
	if (!ev)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	ev->proto = proto;
	ev->id = (uint8_t)id;
	rb->r->app_need |= side;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_app_layer_event, ev);
}

static int match_app_layer_event(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct app_event *ev = sm->ctx;

	if (!mc->app_tx || mc->app_proto != ev->proto)
		return 0;
	switch (ev->proto) {
	case MK_APP_HTTP:
		return mk_http_tx_events(mc->app_tx) >> ev->id & 1;
	case MK_APP_DNS:
		return ((const struct mk_dns_tx *)mc->app_tx)->events >> ev->id & 1;
	default:
		return ((const struct mk_tls_info *)mc->app_tx)->events >> ev->id & 1;
	}
}

const struct mk_kw mk_kw_app_layer_event = {
	.name = "app-layer-event",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE | MK_KWF_STREAM_OK,
	.setup = setup_app_layer_event,
	.match = match_app_layer_event,
	.free = free,
	.doc = "an anomaly a parser reported on the transaction: http.NAME, dns.NAME, tls.NAME",
};

/* ---- ftpbounce -------------------------------------------------------------------------- */

static int setup_ftpbounce(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	if (rb->r->app_proto && rb->r->app_proto != MK_APP_FTP)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "ftpbounce in a rule of another application protocol");
	rb->r->app_proto = MK_APP_FTP;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_ftpbounce, NULL);
}

static int match_ftpbounce(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	(void)sm;
	/* a transaction rule: that command's; on the stream: the flow's latest PORT/EPRT */
	if (mc->app_tx && mc->app_proto == MK_APP_FTP)
		return ((const struct mk_ftp_tx *)mc->app_tx)->bounce;
	return mc->flow && mk_app_ftp_bounce(mc->flow);
}

const struct mk_kw mk_kw_ftpbounce = {
	.name = "ftpbounce",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_NOVALUE | MK_KWF_STREAM_OK,
	.setup = setup_ftpbounce,
	.match = match_ftpbounce,
	.doc = "the FTP session's latest PORT or EPRT named another address than its client's",
};

MK_KW_FAMILY_TABLE(applayer, MK_KW_FAMILY_APPLAYER);
