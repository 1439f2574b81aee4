// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLS keywords: sticky buffers read from a TLS session (its one
 * transaction; applayer/tls/tls_detect.c): the ClientHello's SNI and
 * JA3/JA4, the ServerHello's JA3S, the server's certificates (tls.certs: a
 * multi-buffer, each certificate's DER) and the first certificate's fields
 * in the EVE record's string forms.
 *
 * And the match keywords on the session's facts: tls.version and
 * ssl_version (the version the server chose, or in a to_server rule the
 * highest the client offered, as Suricata reads the client's side),
 * tls.cert_notbefore/notafter (dates compared), tls.cert_expired and
 * tls.cert_valid (against the packet's time), ssl_state (the handshake
 * messages seen by the time the rule is inspected). Each makes the rule a
 * TLS transaction rule waiting for the part that holds its fact.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "applayer.h"
#include "detect_int.h"
#include "kw/app_kw.h"
#include "tls.h"

MK_KW_STICKY(sb_tls_sni, "tls.sni", MK_BUF_TLS_SNI, "the ClientHello's server name (SNI)");
MK_KW_STICKY(sb_tls_sni_, "tls_sni", MK_BUF_TLS_SNI, "tls.sni");
MK_KW_STICKY(sb_tls_certs, "tls.certs", MK_BUF_TLS_CERTS, "each certificate the server sent, DER");
MK_KW_STICKY(sb_tls_cert_subject, "tls.cert_subject", MK_BUF_TLS_CERT_SUBJECT,
	     "the server certificate's subject, \"C=US, O=Example, CN=x\"");
MK_KW_STICKY(sb_tls_cert_subject_, "tls_cert_subject", MK_BUF_TLS_CERT_SUBJECT, "tls.cert_subject");
MK_KW_STICKY(sb_tls_cert_issuer, "tls.cert_issuer", MK_BUF_TLS_CERT_ISSUER,
	     "the server certificate's issuer");
MK_KW_STICKY(sb_tls_cert_issuer_, "tls_cert_issuer", MK_BUF_TLS_CERT_ISSUER, "tls.cert_issuer");
MK_KW_STICKY(sb_tls_cert_serial, "tls.cert_serial", MK_BUF_TLS_CERT_SERIAL,
	     "the server certificate's serial, \"0A:1B:...\" (uppercase hex)");
MK_KW_STICKY(sb_tls_cert_serial_, "tls_cert_serial", MK_BUF_TLS_CERT_SERIAL, "tls.cert_serial");
MK_KW_STICKY(sb_tls_cert_fingerprint, "tls.cert_fingerprint", MK_BUF_TLS_CERT_FINGERPRINT,
	     "SHA-1 of the server certificate, \"aa:bb:...\" (lowercase hex)");
MK_KW_STICKY(sb_tls_cert_fingerprint_, "tls_cert_fingerprint", MK_BUF_TLS_CERT_FINGERPRINT,
	     "tls.cert_fingerprint");
MK_KW_STICKY(sb_ja3_hash, "ja3.hash", MK_BUF_JA3_HASH,
	     "MD5 of the ClientHello's JA3 string, 32 hex digits");
MK_KW_STICKY(sb_ja3_hash_, "ja3_hash", MK_BUF_JA3_HASH, "ja3.hash");
MK_KW_STICKY(sb_ja3_string, "ja3.string", MK_BUF_JA3_STRING,
	     "the ClientHello's JA3 string (GREASE removed)");
MK_KW_STICKY(sb_ja3_string_, "ja3_string", MK_BUF_JA3_STRING, "ja3.string");
MK_KW_STICKY(sb_ja3s_hash, "ja3s.hash", MK_BUF_JA3S_HASH, "MD5 of the ServerHello's JA3S string");
MK_KW_STICKY(sb_ja3s_string, "ja3s.string", MK_BUF_JA3S_STRING, "the ServerHello's JA3S string");
MK_KW_STICKY(sb_ja4_hash, "ja4.hash", MK_BUF_JA4_HASH, "the ClientHello's JA4 fingerprint (FoxIO)");

/* ---- the match keywords ------------------------------------------------------------ */

/* The rule is a TLS transaction rule waiting for the parts @need (MK_BUF_SIDE_*). */
static int tls_rule(struct mk_rule_build *rb, uint8_t need)
{
	if (mk_kw_app_rule(rb, MK_APP_TLS))
		return -1;
	rb->r->app_need |= need;
	return 0;
}

static const struct mk_tls_info *tls_tx(const struct mk_match_ctx *mc)
{
	return mc->app_tx && mc->app_proto == MK_APP_TLS ? mc->app_tx : NULL;
}

/*
 * Which version a version keyword reads: in a rule already to_server (its
 * flow keyword before this one) the client's offer, read on the
 * ClientHello; otherwise the server's choice, read on the ServerHello.
 */
static int version_side(struct mk_rule_build *rb, uint8_t *client)
{
	*client = !!(rb->r->flow & MK_FLOW_F_TO_SERVER);
	return tls_rule(rb, *client ? MK_BUF_SIDE_REQ : MK_BUF_SIDE_RESP);
}

static uint16_t session_version(const struct mk_tls_info *t, uint8_t client)
{
	return client ? t->client_version : t->version;
}

struct tls_version {
	uint16_t v;
	uint8_t client;
};

static const struct {
	const char *name;
	uint16_t v;
} version_names[] = {
	{ "1.0", 0x0301 }, { "1.1", 0x0302 },	{ "1.2", 0x0303 },
	{ "1.3", 0x0304 }, { "sslv3", 0x0300 },
};

int mk_kw_tls_version_parse(const char *value, uint16_t *out)
{
	char *end;
	unsigned long v;
	size_t i, n;

	while (*value == ' ')
		value++;
	n = strlen(value);
	while (n && value[n - 1] == ' ')
		n--;
	for (i = 0; i < MK_ARRAY_SIZE(version_names); i++)
		if (n == strlen(version_names[i].name) &&
		    !strncmp(value, version_names[i].name, n)) {
			*out = version_names[i].v;
			return 0;
		}
	if (strncmp(value, "0x", 2) || n <= 2)
		return -1;
	v = strtoul(value + 2, &end, 16);
	if ((size_t)(end - value) != n || v > 0xffff || !v)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static int setup_tls_version(struct mk_rule_build *rb, const char *value)
{
	struct tls_version *tv = malloc(sizeof(*tv));

	if (!tv)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_kw_tls_version_parse(value, &tv->v)) {
		free(tv);
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"'%.40s' is not a TLS version (1.0, 1.1, 1.2, 1.3, sslv3, 0xNNNN)", value);
	}
	if (version_side(rb, &tv->client)) {
		free(tv);
		return -1;
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_tls_version, tv);
}

static int match_tls_version(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct tls_version *tv = sm->ctx;
	const struct mk_tls_info *t = tls_tx(mc);

	return t && session_version(t, tv->client) == tv->v;
}

/* A match keyword's descriptor (the dates, the validity and their older names). */
#define MATCH_KW(id, kwname, flags_, setup_, match_, free_, doc_) \
	const struct mk_kw mk_kw_##id = { .name = kwname,         \
					  .type = MK_KWT_MATCH,   \
					  .flags = flags_,        \
					  .setup = setup_,        \
					  .match = match_,        \
					  .free = free_,          \
					  .doc = doc_ }

const struct mk_kw mk_kw_tls_version = {
	.name = "tls.version",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE | MK_KWF_STREAM_OK,
	.setup = setup_tls_version,
	.match = match_tls_version,
	.free = free,
	.doc = "the version the server chose (to_server: the client's highest offer): "
	       "1.0|1.1|1.2|1.3|sslv3|0xNNNN",
};

/* ssl_version: a list of versions, each may be negated. */
static const struct {
	const char *name;
	uint16_t v;
} ssl_versions[] = {
	{ "sslv2", 0x0002 },  { "sslv3", 0x0300 },  { "tls1.0", 0x0301 },
	{ "tls1.1", 0x0302 }, { "tls1.2", 0x0303 }, { "tls1.3", 0x0304 },
};

int mk_kw_ssl_version_parse(const char *value, struct mk_ssl_version *out)
{
	char *v = strdup(value), *tok, *save = NULL;
	size_t i;
	int neg;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -1;
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = mk_strtrim(tok);
		neg = *tok == '!';
		if (neg)
			tok = mk_strtrim(tok + 1);
		for (i = 0; i < MK_ARRAY_SIZE(ssl_versions) && strcmp(tok, ssl_versions[i].name);
		     i++)
			;
		if (i == MK_ARRAY_SIZE(ssl_versions)) {
			free(v);
			return -1;
		}
		if (neg)
			out->neg |= (uint8_t)(1u << i);
		else
			out->pos |= (uint8_t)(1u << i);
	}
	free(v);
	return out->pos || out->neg ? 0 : -1;
}

int mk_kw_ssl_version_match(const struct mk_ssl_version *sv, uint16_t version)
{
	size_t i;

	for (i = 0; i < MK_ARRAY_SIZE(ssl_versions) && ssl_versions[i].v != version; i++)
		;
	if (i == MK_ARRAY_SIZE(ssl_versions))
		return 0; /* not a version the keyword names */
	if (sv->neg >> i & 1)
		return 0;
	return !sv->pos || (sv->pos >> i & 1);
}

static int setup_ssl_version(struct mk_rule_build *rb, const char *value)
{
	struct mk_ssl_version *sv = malloc(sizeof(*sv));

	if (!sv)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_kw_ssl_version_parse(value, sv)) {
		free(sv);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.60s' is not a list of [!]sslv2|sslv3|tls1.0|tls1.1|tls1.2|"
				    "tls1.3",
				    value);
	}
	if (version_side(rb, &sv->client)) {
		free(sv);
		return -1;
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_ssl_version, sv);
}

static int match_ssl_version(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_ssl_version *sv = sm->ctx;
	const struct mk_tls_info *t = tls_tx(mc);

	return t && mk_kw_ssl_version_match(sv, session_version(t, sv->client));
}

const struct mk_kw mk_kw_ssl_version = {
	.name = "ssl_version",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE | MK_KWF_STREAM_OK,
	.setup = setup_ssl_version,
	.match = match_ssl_version,
	.free = free,
	.doc = "the session's version is one of the list (to_server: the client's offer): "
	       "[!]sslv2|sslv3|tls1.0|tls1.1|tls1.2|tls1.3, comma-separated",
};

/* ---- certificate dates ---------------------------------------------------------------- */

/* "YYYY[-MM[-DD[THH[:MM[:SS]]]]]" (UTC) or seconds since the epoch (more than 4 digits). */
static int parse_date(const char *s, int64_t *out)
{
	static const char *const fmts[] = { "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H",
					    "%Y-%m-%d",		 "%Y-%m",	   "%Y" };
	struct tm tm;
	const char *end;
	size_t i, n = strspn(s, "0123456789");

	if (n < 4)
		return -1; /* a year has four digits */
	if (n == strlen(s) && n > 4) {
		char *e;
		unsigned long long v = strtoull(s, &e, 10);

		if (*e || v > (1ull << 40))
			return -1;
		*out = (int64_t)v;
		return 0;
	}
	for (i = 0; i < MK_ARRAY_SIZE(fmts); i++) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_mday = 1;
		end = strptime(s, fmts[i], &tm);
		if (end && !*end) {
			*out = (int64_t)timegm(&tm);
			return 0;
		}
	}
	return -1;
}

int mk_kw_tls_date_parse(const char *value, struct mk_tls_date *out)
{
	char *v = strdup(value), *p, *r;
	int err = -1;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -1;
	p = mk_strtrim(v);
	if (*p == '<' || *p == '>') {
		out->mode = *p == '<' ? MK_TLS_DATE_LT : MK_TLS_DATE_GT;
		err = parse_date(mk_strtrim(p + 1), &out->a);
	} else if ((r = strstr(p, "<>"))) {
		*r = '\0';
		out->mode = MK_TLS_DATE_RANGE;
		err = parse_date(mk_strtrim(p), &out->a) ||
		      parse_date(mk_strtrim(r + 2), &out->b) || out->a > out->b;
	} else {
		out->mode = MK_TLS_DATE_EQ;
		err = parse_date(p, &out->a);
	}
	free(v);
	return err ? -1 : 0;
}

int mk_kw_tls_date_match(const struct mk_tls_date *d, int64_t t)
{
	switch (d->mode) {
	case MK_TLS_DATE_LT:
		return t < d->a;
	case MK_TLS_DATE_GT:
		return t > d->a;
	case MK_TLS_DATE_RANGE:
		return t >= d->a && t <= d->b;
	default:
		return t == d->a;
	}
}

/* The certificate's fields are read on its part: the server's flight. */
#define CERT_NEED (MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY)

static int setup_date(struct mk_rule_build *rb, const char *value)
{
	struct mk_tls_date *d = malloc(sizeof(*d));

	if (!d)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_kw_tls_date_parse(value, d)) {
		free(d);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.60s' is not a date comparison ([<|>]DATE or DATE<>DATE, "
				    "DATE: YYYY[-MM[-DD[THH[:MM[:SS]]]]] or seconds)",
				    value);
	}
	if (tls_rule(rb, CERT_NEED)) {
		free(d);
		return -1;
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, rb->cur_kw, d);
}

static int match_notbefore(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_tls_info *t = tls_tx(mc);

	return t && t->has_validity && mk_kw_tls_date_match(sm->ctx, t->notbefore_t);
}

static int match_notafter(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_tls_info *t = tls_tx(mc);

	return t && t->has_validity && mk_kw_tls_date_match(sm->ctx, t->notafter_t);
}

MATCH_KW(tls_cert_notbefore, "tls.cert_notbefore", MK_KWF_VALUE | MK_KWF_STREAM_OK, setup_date,
	 match_notbefore, free,
	 "the server certificate's notBefore: [<|>]DATE or DATE<>DATE (inclusive)");

MATCH_KW(tls_cert_notafter, "tls.cert_notafter", MK_KWF_VALUE | MK_KWF_STREAM_OK, setup_date,
	 match_notafter, free,
	 "the server certificate's notAfter: [<|>]DATE or DATE<>DATE (inclusive)");

/* Suricata's first names for them */
MATCH_KW(tls_cert_notbefore_, "tls_cert_notbefore", MK_KWF_VALUE | MK_KWF_STREAM_OK, setup_date,
	 match_notbefore, free, "tls.cert_notbefore");

MATCH_KW(tls_cert_notafter_, "tls_cert_notafter", MK_KWF_VALUE | MK_KWF_STREAM_OK, setup_date,
	 match_notafter, free, "tls.cert_notafter");

static int setup_validity(struct mk_rule_build *rb, const char *value)
{
	(void)value;
	if (tls_rule(rb, CERT_NEED))
		return -1;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, rb->cur_kw, NULL);
}

/* The packet's time in seconds. */
static int64_t now_secs(const struct mk_match_ctx *mc)
{
	return (int64_t)(mc->t->pkt.ts_us / 1000000);
}

static int match_expired(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_tls_info *t = tls_tx(mc);

	(void)sm;
	return t && t->has_validity && t->notafter_t < now_secs(mc);
}

static int match_valid(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_tls_info *t = tls_tx(mc);
	int64_t now = now_secs(mc);

	(void)sm;
	return t && t->has_validity && t->notbefore_t <= now && now <= t->notafter_t;
}

MATCH_KW(tls_cert_expired, "tls.cert_expired", MK_KWF_NOVALUE | MK_KWF_STREAM_OK, setup_validity,
	 match_expired, NULL, "the server certificate's notAfter is before the packet's time");

MATCH_KW(tls_cert_valid, "tls.cert_valid", MK_KWF_NOVALUE | MK_KWF_STREAM_OK, setup_validity,
	 match_valid, NULL,
	 "the packet's time is within the server certificate's notBefore and notAfter");

MATCH_KW(tls_cert_expired_, "tls_cert_expired", MK_KWF_NOVALUE | MK_KWF_STREAM_OK, setup_validity,
	 match_expired, NULL, "tls.cert_expired");

MATCH_KW(tls_cert_valid_, "tls_cert_valid", MK_KWF_NOVALUE | MK_KWF_STREAM_OK, setup_validity,
	 match_valid, NULL, "tls.cert_valid");

/* ---- ssl_state ---------------------------------------------------------------------------- */

/* The states, the side that sends the message, its type, the parts that tell whether it came. */
static const struct {
	const char *name;
	uint8_t to_client;
	uint32_t bit;
	uint8_t need;
} ssl_states[] = {
	{ "client_hello", 0, 1u << 1, MK_BUF_SIDE_REQ },
	{ "server_hello", 1, 1u << 2, MK_BUF_SIDE_RESP },
	{ "client_keyx", 0, 1u << 16, MK_BUF_SIDE_REQ | MK_BUF_SIDE_REQ_BODY },
	{ "server_keyx", 1, 1u << 12, MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY },
	{ "unknown", 2, MK_TLS_HS_UNKNOWN, MK_BUF_SIDE_REQ },
};

int mk_kw_ssl_state_parse(const char *value, struct mk_ssl_state *out, uint8_t *need)
{
	char *v = strdup(value), *tok, *save = NULL;
	size_t i;
	int neg;

	memset(out, 0, sizeof(*out));
	*need = 0;
	if (!v)
		return -1;
	for (tok = strtok_r(v, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		tok = mk_strtrim(tok);
		neg = *tok == '!';
		if (neg)
			tok = mk_strtrim(tok + 1);
		for (i = 0; i < MK_ARRAY_SIZE(ssl_states) && strcmp(tok, ssl_states[i].name); i++)
			;
		if (i == MK_ARRAY_SIZE(ssl_states)) {
			free(v);
			return -1;
		}
		if (neg)
			out->neg |= (uint8_t)(1u << i);
		else
			out->pos |= (uint8_t)(1u << i);
		*need |= ssl_states[i].need;
	}
	free(v);
	return out->pos || out->neg ? 0 : -1;
}

int mk_kw_ssl_state_match(const struct mk_ssl_state *ss, const uint32_t hs_seen[2])
{
	size_t i;
	int seen;

	/* as Suricata's: one of the states holds (a negated one: its message did not come) */
	for (i = 0; i < MK_ARRAY_SIZE(ssl_states); i++) {
		if (!((ss->pos | ss->neg) >> i & 1))
			continue;
		if (ssl_states[i].to_client == 2)
			seen = !!((hs_seen[0] | hs_seen[1]) & ssl_states[i].bit);
		else
			seen = !!(hs_seen[ssl_states[i].to_client] & ssl_states[i].bit);
		if (seen == !(ss->neg >> i & 1))
			return 1;
	}
	return 0;
}

static int setup_ssl_state(struct mk_rule_build *rb, const char *value)
{
	struct mk_ssl_state *ss = malloc(sizeof(*ss));
	uint8_t need;

	if (!ss)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (mk_kw_ssl_state_parse(value, ss, &need)) {
		free(ss);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "'%.60s' is not a list of [!]client_hello|server_hello|"
				    "client_keyx|server_keyx|unknown",
				    value);
	}
	if (tls_rule(rb, need)) {
		free(ss);
		return -1;
	}
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_ssl_state, ss);
}

static int match_ssl_state(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct mk_tls_info *t = tls_tx(mc);

	return t && mk_kw_ssl_state_match(sm->ctx, t->hs_seen);
}

const struct mk_kw mk_kw_ssl_state = {
	.name = "ssl_state",
	.type = MK_KWT_MATCH,
	.flags = MK_KWF_VALUE | MK_KWF_STREAM_OK,
	.setup = setup_ssl_state,
	.match = match_ssl_state,
	.free = free,
	.doc = "handshake messages seen: [!]client_hello|server_hello|client_keyx|server_keyx|"
	       "unknown, '|' for or",
};

MK_KW_FAMILY_TABLE(tls, MK_KW_FAMILY_TLS);
