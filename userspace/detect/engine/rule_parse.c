// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rule parser: `action proto src sport dir dst dport (options)` into a
 * struct mk_rule. The header is split here; each option goes to its
 * keyword's setup function (kw/register.c lists them), then the rule is
 * checked as a whole: sid present, relative chains linked, fast pattern
 * chosen, protocol and keywords compatible, and how TCP payload is read
 * (packet, stream or both) decided.
 *
 * Options end at the first ';' not escaped with '\', quotes or not, as in
 * Suricata: msg:"a;b" is an error, msg:"a\;b" is fine.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect_int.h"

int mk_rule_fail(struct mk_rule_build *rb, int reason, const char *fmt, ...)
{
	va_list va;

	if (!rb->err[0]) {
		va_start(va, fmt);
		vsnprintf(rb->err, sizeof(rb->err), fmt, va);
		va_end(va);
		rb->reason = reason;
	}
	return -1;
}

/*
 * The first payload keyword after a sticky buffer fixes that buffer's
 * transforms: a buffer selected again must come with the same ones (one
 * chain per buffer and rule).
 */
static int commit_xforms(struct mk_rule_build *rb)
{
	struct mk_rule *r = rb->r;
	const struct mk_xform_chain *old = r->xf ? r->xf[rb->cur_buf] : NULL;
	struct mk_xform_chain *c;

	rb->sticky_open = 0;
	if (r->bufs[rb->cur_buf].n) {
		if ((old ? old->n : 0) != rb->xf.n ||
		    (old && memcmp(old->x, rb->xf.x, old->n * sizeof(old->x[0]))))
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "%s is used again with other transforms: not supported "
					    "(one transform chain per buffer and rule)",
					    mk_buf_names[rb->cur_buf]);
		return 0;
	}
	if (!rb->xf.n)
		return 0;
	if (!r->xf) {
		r->xf = calloc(MK_BUF_COUNT, sizeof(*r->xf));
		if (!r->xf)
			return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	c = malloc(sizeof(*c));
	if (!c)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	*c = rb->xf;
	r->xf[rb->cur_buf] = c;
	return 0;
}

int mk_rule_add_sm(struct mk_rule_build *rb, int list, const struct mk_kw *kw, void *ctx)
{
	struct mk_rule *r = rb->r;
	/* after base64_data, the payload keywords of that buffer read the decoded bytes */
	struct mk_sm_list *buf = rb->b64_list && rb->b64_buf == rb->cur_buf ? rb->b64_list :
									      &r->bufs[rb->cur_buf];
	struct mk_sm **arr = list == MK_LIST_PMATCH ? &buf->sm :
			     list == MK_LIST_MATCH  ? &r->match :
						      &r->post;
	uint32_t *n = list == MK_LIST_PMATCH ? &buf->n :
		      list == MK_LIST_MATCH  ? &r->nmatch :
					       &r->npost;
	uint32_t *cap = list == MK_LIST_PMATCH ? &buf->cap :
			list == MK_LIST_MATCH  ? &rb->cap_m :
						 &rb->cap_post;

	if (list == MK_LIST_PMATCH && rb->sticky_open && commit_xforms(rb)) {
		if (kw->free)
			kw->free(ctx);
		return -1;
	}
	if (*n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 4;
		struct mk_sm *a = realloc(*arr, c * sizeof(*a));

		if (!a) {
			if (kw->free)
				kw->free(ctx);
			return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
		}
		*arr = a;
		*cap = c;
	}
	(*arr)[*n].kw = kw;
	(*arr)[*n].ctx = ctx;
	(*n)++;
	if (list == MK_LIST_PMATCH && buf == &r->bufs[rb->cur_buf])
		r->buf_mask |= MK_BUF_BIT(rb->cur_buf);
	return 0;
}

int mk_rule_bytevar(const struct mk_rule_build *rb, const char *name)
{
	uint32_t i;

	for (i = 0; i < rb->nbytevars; i++)
		if (!strcmp(rb->bytevar_names[i], name))
			return (int)i;
	return -1;
}

static void free_list(struct mk_sm *l, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (l[i].kw->free)
			l[i].kw->free(l[i].ctx);
	free(l);
}

void mk_rule_free(struct mk_rule *r)
{
	uint32_t i;

	if (!r)
		return;
	mk_addr_set_free(&r->src);
	mk_addr_set_free(&r->dst);
	mk_port_set_free(&r->sp);
	mk_port_set_free(&r->dp);
	free(r->msg);
	for (i = 0; i < r->nrefs; i++) {
		free(r->refs[i].key);
		free(r->refs[i].value);
	}
	free(r->refs);
	for (i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
	for (i = 0; i < MK_BUF_COUNT; i++) {
		free_list(r->bufs[i].sm, r->bufs[i].n);
		if (r->xf)
			free(r->xf[i]);
	}
	free(r->xf);
	free_list(r->match, r->nmatch);
	free_list(r->post, r->npost);
	free(r->file);
	free(r->eve);
	free(r);
}

/* ---- header ------------------------------------------------------------------ */

/* reject resets both ends (docs/bypass.md, "Verdicts"); the variants one or both */
static const struct {
	const char *name;
	uint8_t action;
	uint32_t flags;
} actions[] = {
	{ "alert", MK_ACTION_ALERT, 0 },
	{ "pass", MK_ACTION_PASS, 0 },
	{ "drop", MK_ACTION_DROP, 0 },
	{ "reject", MK_ACTION_REJECT, MK_RF_REJECT_SRC | MK_RF_REJECT_DST },
	{ "rejectsrc", MK_ACTION_REJECT, MK_RF_REJECT_SRC },
	{ "rejectdst", MK_ACTION_REJECT, MK_RF_REJECT_DST },
	{ "rejectboth", MK_ACTION_REJECT, MK_RF_REJECT_SRC | MK_RF_REJECT_DST },
};

static const struct {
	const char *name;
	uint8_t proto;
} protos[] = {
	{ "ip", MK_RP_IP },
	{ "pkthdr", MK_RP_IP },
	{ "tcp", MK_RP_TCP },
	{ "udp", MK_RP_UDP },
	{ "icmp", MK_RP_ICMP },
	{ "icmpv4", MK_RP_ICMP },
	{ "icmpv6", MK_RP_ICMPV6 },
	{ "tcp-pkt", MK_RP_TCP_PKT },
	{ "tcp-stream", MK_RP_TCP_STREAM },
};

/*
 * Application protocols of the rule header: the flows the application
 * layer recognised as that protocol, over the transport given (ip: UDP
 * and TCP).
 */
static const struct {
	const char *name;
	uint8_t app_proto; /* enum mk_app_proto */
	const char *transport;
} header_apps[] = {
	{ "http", MK_APP_HTTP, "tcp" },
	{ "http1", MK_APP_HTTP, "tcp" },
	{ "tls", MK_APP_TLS, "tcp" },
	{ "ssl", MK_APP_TLS, "tcp" },
	{ "dns", MK_APP_DNS, "ip" },
	{ "ssh", MK_APP_SSH, "tcp" },
	{ "smtp", MK_APP_SMTP, "tcp" },
	{ "ftp", MK_APP_FTP, "tcp" },
	{ "ftp-data", MK_APP_FTP_DATA, "tcp" },
	{ "smb", MK_APP_SMB, "tcp" },
};

/* Protocols whose rules may be transaction rules; the others' read the stream or packets. */
static int app_has_tx(uint8_t app_proto)
{
	return app_proto == MK_APP_HTTP || app_proto == MK_APP_DNS || app_proto == MK_APP_TLS ||
	       app_proto == MK_APP_SSH || app_proto == MK_APP_FTP || app_proto == MK_APP_SMTP;
}

/* Protocols Suricata knows that this subset does not inspect. */
static const char *const app_protos[] = {
	"http2",    "dcerpc",
	"nfs",	    "imap",
	"pop3",	    "dnp3",
	"modbus",   "enip",
	"cip",	    "ikev2",
	"ike",	    "krb5",
	"dhcp",	    "snmp",
	"sip",	    "rfb",
	"mqtt",	    "rdp",
	"ntp",	    "tftp",
	"quic",	    "pgsql",
	"telnet",   "websocket",
	"ldap",	    "bittorrent-dht",
	"template", "sctp",
	"ipv4",	    "ipv6",
	"ip4",	    "ip6",
	"udp-pkt",  "doh2",
	"pop",	    "smtps",
	"https",
};

/* Next header token; brackets may hold spaces. Returns its length, 0 at the end. */
static size_t next_token(const char **p, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;
	int depth = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	while (*s && (depth || (*s != ' ' && *s != '\t' && *s != '('))) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth)
			depth--;
		if (n + 1 < size)
			out[n] = *s;
		n++;
		s++;
	}
	if (n >= size)
		n = size - 1;
	out[n] = '\0';
	*p = s;
	return n;
}

static int parse_header(struct mk_rule_build *rb, const char **p)
{
	struct mk_rule *r = rb->r;
	char tok[7][1024], err[200];
	unsigned int i, k;

	for (i = 0; i < 7; i++) {
		if (!next_token(p, tok[i], sizeof(tok[i])))
			return mk_rule_fail(
				rb, MK_DETECT_FAIL_SYNTAX,
				"rule header is incomplete (action proto src sport -> dst dport)");
	}
	for (k = 0; k < MK_ARRAY_SIZE(actions); k++)
		if (!strcmp(tok[0], actions[k].name))
			break;
	if (k == MK_ARRAY_SIZE(actions))
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
				    "action '%.40s' is not one of alert, pass, drop, reject",
				    tok[0]);
	r->action = actions[k].action;
	r->flags |= actions[k].flags;
	for (k = 0; k < MK_ARRAY_SIZE(header_apps); k++)
		if (!strcasecmp(tok[1], header_apps[k].name)) {
			r->app_proto = header_apps[k].app_proto;
			snprintf(tok[1], sizeof(tok[1]), "%s", header_apps[k].transport);
			break;
		}
	for (k = 0; k < MK_ARRAY_SIZE(protos); k++)
		if (!strcasecmp(tok[1], protos[k].name))
			break;
	if (k == MK_ARRAY_SIZE(protos)) {
		for (i = 0; i < MK_ARRAY_SIZE(app_protos); i++)
			if (!strcasecmp(tok[1], app_protos[i]))
				return mk_rule_fail(rb, MK_DETECT_FAIL_PROTOCOL,
						    "protocol '%s' not supported (app-layer "
						    "protocols are not inspected)",
						    tok[1]);
		return mk_rule_fail(rb, MK_DETECT_FAIL_PROTOCOL, "unknown protocol '%.40s'",
				    tok[1]);
	}
	r->proto = protos[k].proto;
	if (mk_addr_parse(rb->env->cfg, tok[2], &r->src, err, sizeof(err)))
		return mk_rule_fail(rb, MK_DETECT_FAIL_ADDRESS, "source address: %s", err);
	if (mk_port_parse(rb->env->cfg, tok[3], &r->sp, err, sizeof(err)))
		return mk_rule_fail(rb, MK_DETECT_FAIL_ADDRESS, "source port: %s", err);
	if (!strcmp(tok[4], "<>"))
		r->flags |= MK_RF_BIDIR;
	else if (strcmp(tok[4], "->"))
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
				    "direction '%.10s' is not '->' or '<>'", tok[4]);
	if (mk_addr_parse(rb->env->cfg, tok[5], &r->dst, err, sizeof(err)))
		return mk_rule_fail(rb, MK_DETECT_FAIL_ADDRESS, "destination address: %s", err);
	if (mk_port_parse(rb->env->cfg, tok[6], &r->dp, err, sizeof(err)))
		return mk_rule_fail(rb, MK_DETECT_FAIL_ADDRESS, "destination port: %s", err);
	return 0;
}

/* ---- options ------------------------------------------------------------------ */

static int setup_option(struct mk_rule_build *rb, char *opt)
{
	const struct mk_unsupported_kw *u;
	const struct mk_kw *kw;
	char *name = opt, *val = NULL, *colon, *e;

	/* keyword names never contain ':' or a quote; the value may */
	colon = strchr(opt, ':');
	if (colon) {
		*colon = '\0';
		val = mk_strtrim(colon + 1);
	}
	name = mk_strtrim(name);
	for (e = name; *e; e++)
		if (!isalnum((unsigned char)*e) && !strchr("_.-", *e))
			return mk_rule_fail(
				rb, MK_DETECT_FAIL_SYNTAX,
				"'%.60s' is not a keyword (unbalanced quote or missing ';'?)",
				name);
	if (!*name)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "empty option (';;')");
	rb->kw = name;
	kw = mk_kw_lookup(name);
	if (!kw) {
		u = mk_kw_unsupported(name);
		if (u)
			return mk_rule_fail(rb, MK_DETECT_FAIL_KEYWORD, "not supported (%s)",
					    u->why);
		return mk_rule_fail(rb, MK_DETECT_FAIL_KEYWORD, "unknown keyword");
	}
	rb->cur_kw = kw;
	if ((kw->flags & MK_KWF_NOVALUE) && val && *val)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "takes no value");
	if ((kw->flags & MK_KWF_VALUE) && (!val || !*val))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs a value");
	if (kw->setup(rb, val ? val : "")) {
		if (!rb->err[0])
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "bad value '%.60s'", val ? val : "");
		return -1;
	}
	/* a sticky buffer or pkt_data ends base64_data's list */
	if (rb->b64_list && (rb->sticky_open || kw == &mk_kw_pkt_data))
		rb->b64_list = NULL;
	return 0;
}

/* Splits the option text at unescaped ';' and sets each option up. */
static int parse_options(struct mk_rule_build *rb, char *s)
{
	char *start = s, *p;

	for (p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p != ';')
			continue;
		*p = '\0';
		if (setup_option(rb, start))
			return -1;
		start = p + 1;
	}
	if (*mk_strtrim(start)) {
		/* text after the last ';': a missing ';' or a ';' inside a value */
		if (strchr(start, '"'))
			return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
					    "unterminated option '%.60s' (a ';' inside a value "
					    "must be escaped as '\\;')",
					    mk_strtrim(start));
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
				    "option '%.60s' is not terminated by ';'", mk_strtrim(start));
	}
	return 0;
}

/* ---- whole-rule checks ---------------------------------------------------------- */

static bool sm_relative(const struct mk_sm *sm)
{
	switch (sm->kw->type) {
	case MK_KWT_CONTENT:
		return !!(((const struct mk_content *)sm->ctx)->flags &
			  (MK_CF_DISTANCE | MK_CF_WITHIN));
	case MK_KWT_PCRE:
		return !!(((const struct mk_pcre *)sm->ctx)->flags & MK_PF_RELATIVE);
	case MK_KWT_ISDATAAT:
		return ((const struct mk_isdataat *)sm->ctx)->relative;
	case MK_KWT_BYTE_TEST:
	case MK_KWT_BYTE_JUMP:
	case MK_KWT_BYTE_EXTRACT:
		return !!(((const struct mk_byte *)sm->ctx)->flags & MK_BF_RELATIVE);
	default:
		return false;
	}
}

static uint32_t abs_extent(const struct mk_sm *sm)
{
	const struct mk_content *c;
	const struct mk_byte *b;

	switch (sm->kw->type) {
	case MK_KWT_CONTENT:
		c = sm->ctx;
		if (c->flags & (MK_CF_DEPTH_VAR | MK_CF_OFFSET_VAR))
			return MK_STREAM_HEAD_MAX;
		if (c->flags & MK_CF_STARTSWITH)
			return c->len;
		if (c->flags & MK_CF_DEPTH)
			return (uint32_t)c->offset + (uint32_t)c->depth;
		if (c->flags & MK_CF_OFFSET)
			return MK_STREAM_HEAD_MAX;
		return 0;
	case MK_KWT_PCRE:
		return (((const struct mk_pcre *)sm->ctx)->flags &
			(MK_PF_ANCHORED | MK_PF_RELATIVE)) == MK_PF_ANCHORED ?
			       MK_STREAM_HEAD_MAX :
			       0;
	case MK_KWT_ISDATAAT:
		if (((const struct mk_isdataat *)sm->ctx)->relative)
			return 0;
		return ((const struct mk_isdataat *)sm->ctx)->var ?
			       MK_STREAM_HEAD_MAX :
			       ((const struct mk_isdataat *)sm->ctx)->n + 1;
	case MK_KWT_BYTE_TEST:
	case MK_KWT_BYTE_JUMP:
	case MK_KWT_BYTE_EXTRACT:
		b = sm->ctx;
		if (b->flags & (MK_BF_RELATIVE))
			return 0;
		if (b->flags & MK_BF_OFFSET_VAR)
			return MK_STREAM_HEAD_MAX;
		return b->offset < 0 ? 0 : (uint32_t)b->offset + b->nbytes;
	default:
		return 0;
	}
}

/* The fast pattern: the one marked fast_pattern, else the longest positive content. */
static void fast_pattern_candidate(struct mk_content **best, struct mk_content *c)
{
	if (c->flags & MK_CF_FAST_PATTERN)
		*best = c;
	else if (!(*best && ((*best)->flags & MK_CF_FAST_PATTERN)) &&
		 (!*best || c->len > (*best)->len))
		*best = c;
}

/*
 * One buffer's list: marks relative chains and positive keywords; with
 * @best (the payload buffer, which the prefilter indexes), picks the fast
 * pattern and the stream bytes absolute keywords need (*@ext).
 */
static void finalize_buffer(struct mk_rule *r, const struct mk_sm_list *l, struct mk_content **best,
			    uint32_t *ext)
{
	uint32_t i;

	/* relative chains: a keyword relative to its predecessor marks it */
	for (i = 0; i < l->n; i++) {
		struct mk_sm *sm = &l->sm[i];

		if (i + 1 < l->n && sm_relative(&l->sm[i + 1])) {
			if (sm->kw->type == MK_KWT_CONTENT)
				((struct mk_content *)sm->ctx)->flags |= MK_CF_RELATIVE_NEXT;
			else if (sm->kw->type == MK_KWT_PCRE)
				((struct mk_pcre *)sm->ctx)->flags |= MK_PF_RELATIVE_NEXT;
		}
		if (sm->kw->type == MK_KWT_CONTENT) {
			struct mk_content *c = sm->ctx;

			if (!(c->flags & MK_CF_NEGATED)) {
				r->flags |= MK_RF_POSITIVE;
				if (best)
					fast_pattern_candidate(best, c);
			}
			if (c->flags & (MK_CF_DEPTH | MK_CF_OFFSET | MK_CF_STARTSWITH))
				r->flags |= MK_RF_ABS_CONTENT;
		} else if (sm->kw->type == MK_KWT_PCRE &&
			   !(((struct mk_pcre *)sm->ctx)->flags & MK_PF_NEGATED)) {
			r->flags |= MK_RF_POSITIVE;
		}
		if (best && abs_extent(sm) > *ext)
			*ext = abs_extent(sm);
		if (sm->kw->type == MK_KWT_BASE64)
			finalize_buffer(r, &((struct mk_base64 *)sm->ctx)->data, NULL, ext);
	}
}

/* The interval of lengths one bsize allows, [*lo, *hi]; 0 when it is not one (!N). */
static int bsize_interval(const struct mk_uint *u, uint64_t *lo, uint64_t *hi)
{
	*lo = 0;
	*hi = UINT64_MAX;
	switch (u->mode) {
	case MK_U_EQ:
		*lo = *hi = u->a;
		return 1;
	case MK_U_LT:
		*hi = u->a - 1; /* the parser refuses <0 */
		return 1;
	case MK_U_LE:
		*hi = u->a;
		return 1;
	case MK_U_GT:
		*lo = u->a + 1;
		return 1;
	case MK_U_GE:
		*lo = u->a;
		return 1;
	case MK_U_RANGE:
		*lo = u->a + 1;
		*hi = u->b - 1;
		return 1;
	default:
		return 0;
	}
}

/*
 * One buffer's bsize keywords and transforms against its contents, as
 * Suricata's checks: bsize values that exclude each other, contents longer
 * (with their distances and the largest offset) than the largest size
 * allowed, contents a transform makes unmatchable.
 */
static int check_bsize_xforms(struct mk_rule_build *rb, uint32_t id)
{
	const struct mk_sm_list *l = &rb->r->bufs[id];
	const struct mk_xform_chain *xf = rb->r->xf ? rb->r->xf[id] : NULL;
	const struct mk_bsize *tight = NULL;
	uint64_t lo = 0, hi = UINT64_MAX, bound = UINT64_MAX, blo, bhi, total = 0, max_off = 0;
	uint32_t i;
	const char *why;

	for (i = 0; i < l->n; i++) {
		const struct mk_sm *sm = &l->sm[i];

		if (sm->kw->type == MK_KWT_CONTENT && xf) {
			const struct mk_content *c = sm->ctx;

			why = mk_xform_content_check(xf, c->pat, c->len);
			if (why) {
				rb->kw = "content";
				return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
						    "content \"%.*s\" can never match after the "
						    "%s transform of %s",
						    (int)(c->len < 40 ? c->len : 40),
						    (const char *)c->pat, why, mk_buf_names[id]);
			}
		}
		if (sm->kw->type == MK_KWT_CONTENT) {
			const struct mk_content *c = sm->ctx;

			if ((c->flags & MK_CF_NEGATED) && (c->flags & MK_CF_WITHIN) &&
			    !(c->flags & MK_CF_WITHIN_VAR) && (uint32_t)c->within == c->len)
				continue;
			total += c->len;
			if ((c->flags & MK_CF_DISTANCE) && !(c->flags & MK_CF_DISTANCE_VAR))
				total += (uint64_t)(int64_t)c->distance;
			if ((c->flags & MK_CF_OFFSET) && !(c->flags & MK_CF_OFFSET_VAR) &&
			    (uint64_t)c->offset > max_off)
				max_off = (uint64_t)c->offset;
		}
		if (sm->kw->type != MK_KWT_BSIZE)
			continue;
		if (!bsize_interval(&((const struct mk_bsize *)sm->ctx)->u, &blo, &bhi))
			continue;
		if (blo > lo)
			lo = blo;
		if (bhi < hi)
			hi = bhi;
		if (lo > hi) {
			rb->kw = "bsize";
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "the bsize values of %s exclude each other: no length "
					    "satisfies them all",
					    mk_buf_names[id]);
		}
		/* Suricata's bound: N of bsize:N and bsize:<N, M of N<>M */
		if (((const struct mk_bsize *)sm->ctx)->u.mode == MK_U_EQ ||
		    ((const struct mk_bsize *)sm->ctx)->u.mode == MK_U_LT ||
		    ((const struct mk_bsize *)sm->ctx)->u.mode == MK_U_RANGE) {
			const struct mk_bsize *b = sm->ctx;
			uint64_t v = b->u.mode == MK_U_RANGE ? b->u.b : b->u.a;

			if (v < bound) {
				bound = v;
				tight = b;
			}
		}
	}
	if (!tight || (int64_t)total < 0)
		return 0;
	if (total > bound || total + max_off > bound) {
		uint64_t need = total > bound ? total : total + max_off;

		rb->kw = "bsize";
		if (tight->u.mode == MK_U_RANGE)
			return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
					    "can't match: the contents of %s need %llu bytes, more "
					    "than the bsize range %llu<>%llu",
					    mk_buf_names[id], (unsigned long long)need,
					    (unsigned long long)tight->u.a,
					    (unsigned long long)tight->u.b);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "can't match: the contents of %s need %llu bytes, more than "
				    "bsize %llu",
				    mk_buf_names[id], (unsigned long long)need,
				    (unsigned long long)tight->u.a);
	}
	return 0;
}

/*
 * A rule reading an application protocol's buffers (or urilen, or an
 * `alert http|tls|dns` rule without payload keywords) is inspected on that
 * protocol's transactions: which parts it waits for (its buffers' sides,
 * flipped by its direction) and in which direction. Its payload keywords
 * read that direction's stream (match/detect.c tx_payload()); packet
 * keywords cannot join it.
 */
static int app_rule(struct mk_rule_build *rb)
{
	struct mk_rule *r = rb->r;
	uint64_t app = r->buf_mask & MK_BUF_APP_MASK;
	uint8_t need = r->app_need, side;
	int to_client = !!(r->flow & MK_FLOW_F_TO_CLIENT);
	const char *name;
	uint32_t id;

	if (!app && !need && !(app_has_tx(r->app_proto) && !(r->flags & MK_RF_PAYLOAD)))
		return 0;
	name = mk_app_proto_name(r->app_proto);
	if (r->app_proto == MK_APP_DNS && r->proto != MK_RP_IP && r->proto != MK_RP_TCP &&
	    r->proto != MK_RP_UDP)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "dns keywords need a rule of protocol dns, udp, tcp or ip");
	if (r->app_proto != MK_APP_DNS && r->proto != MK_RP_IP && r->proto != MK_RP_TCP)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "%s keywords need a rule of protocol %s, tcp or ip", name,
				    name);
	if (r->flags & MK_RF_PKT_KW)
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_KEYWORD,
			"packet keywords (dsize, flags, ttl, ...) in a transaction rule (%s): not "
			"supported",
			name);
	/*
	 * A response buffer makes the rule a to-client one, as Suricata's; with
	 * flow:to_server too the rule could never match: refused, as Suricata does.
	 */
	for (id = 0; id < MK_BUF_COUNT; id++)
		if ((app & MK_BUF_BIT(id)) && !(mk_buf_sides[id] & MK_BUF_SIDE_FLIP) &&
		    (mk_buf_sides[id] & (MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY))) {
			if (r->flow & MK_FLOW_F_TO_SERVER) {
				rb->kw = mk_buf_names[id];
				return mk_rule_fail(
					rb, MK_DETECT_FAIL_VALUE,
					"a response buffer in a flow:to_server rule: it "
					"could never match");
			}
			to_client = 1;
		}
	for (id = 0; id < MK_BUF_COUNT; id++) {
		if (!(app & MK_BUF_BIT(id)))
			continue;
		side = mk_buf_sides[id] & MK_BUF_SIDE_MASK;
		if (mk_buf_sides[id] & MK_BUF_SIDE_FLIP) {
			if (side == MK_BUF_SIDE_REQ && to_client)
				side = MK_BUF_SIDE_RESP;
			else if (side == MK_BUF_SIDE_RESP_BODY && (r->flow & MK_FLOW_F_TO_SERVER))
				side = MK_BUF_SIDE_REQ_BODY;
		}
		need |= side;
	}
	if (!need)
		need = to_client ? MK_BUF_SIDE_RESP : MK_BUF_SIDE_REQ;
	if (need & MK_BUF_SIDE_REQ_BODY)
		need |= MK_BUF_SIDE_REQ;
	if (need & MK_BUF_SIDE_RESP_BODY)
		need |= MK_BUF_SIDE_RESP;
	if (r->app_proto != MK_APP_DNS)
		r->proto = MK_RP_TCP;
	r->app_need = need;
	r->app_to_client =
		(uint8_t)(to_client || (need & (MK_BUF_SIDE_RESP | MK_BUF_SIDE_RESP_BODY)));
	r->flags |= MK_RF_APP_TX;
	return 0;
}

static int finalize(struct mk_rule_build *rb)
{
	struct mk_rule *r = rb->r;
	struct mk_content *best = NULL;
	uint32_t i, ext = 0;
	int tcp_only = 0, icmp_only = 0;

	if (!rb->seen_sid)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "rule has no sid");
	rb->kw = NULL;
	if (!r->gid)
		r->gid = 1;
	if (!rb->seen_priority)
		r->priority = r->cls ? r->cls->priority : 3;
	if (rb->seen_threshold && rb->seen_df) {
		rb->kw = "detection_filter";
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "threshold and detection_filter cannot be used in one rule");
	}

	for (i = 0; i < MK_BUF_COUNT; i++) {
		finalize_buffer(r, &r->bufs[i], i == MK_BUF_PAYLOAD ? &best : NULL, &ext);
		if (check_bsize_xforms(rb, i))
			return -1;
	}
	if (rb->b64 && mk_base64_check(rb))
		return -1;
	r->abs_extent = ext > MK_STREAM_HEAD_MAX ? MK_STREAM_HEAD_MAX : ext;
	r->fp = best;
	if (best && (best->flags & MK_CF_FP_ONLY) &&
	    (best->flags &
	     (MK_CF_DISTANCE | MK_CF_WITHIN | MK_CF_DEPTH | MK_CF_OFFSET | MK_CF_NEGATED))) {
		rb->kw = "fast_pattern";
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "fast_pattern:only cannot be used with a negated, relative or "
				    "depth/offset content");
	}
	if (r->buf_mask)
		r->flags |= MK_RF_PAYLOAD;

	for (i = 0; i < r->nmatch; i++) {
		const struct mk_kw *kw = r->match[i].kw;

		if (!(kw->flags & MK_KWF_STREAM_OK))
			r->flags |= MK_RF_PKT_KW;
		if (!strcmp(kw->name, "flags") || !strcmp(kw->name, "stream_size"))
			tcp_only = 1;
		if (!strncmp(kw->name, "icmp", 4) || !strcmp(kw->name, "itype") ||
		    !strcmp(kw->name, "icode"))
			icmp_only = 1;
	}
	if (tcp_only && r->proto != MK_RP_IP && r->proto != MK_RP_TCP &&
	    r->proto != MK_RP_TCP_PKT && r->proto != MK_RP_TCP_STREAM)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "flags and stream_size need a tcp or ip rule");
	if (icmp_only && r->proto != MK_RP_IP && r->proto != MK_RP_ICMP && r->proto != MK_RP_ICMPV6)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "itype, icode, icmp_id and icmp_seq need an icmp or ip rule");
	if ((r->flow & MK_FLOW_F_ONLY_STREAM) && (r->proto == MK_RP_TCP_PKT || rb->seen_dsize))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "flow:only_stream cannot be combined with tcp-pkt or dsize");
	if ((r->flow & MK_FLOW_F_NO_STREAM) && r->proto == MK_RP_TCP_STREAM)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "flow:no_stream cannot be used in a tcp-stream rule");
	if (r->proto == MK_RP_TCP_STREAM && (r->flags & MK_RF_PKT_KW))
		return mk_rule_fail(
			rb, MK_DETECT_FAIL_VALUE,
			"a tcp-stream rule cannot use packet keywords (flags, ttl, dsize, ...)");

	if (app_rule(rb))
		return -1;

	/* how TCP payload is read: per segment, the reassembled stream, or both */
	if (r->proto == MK_RP_TCP_PKT || (r->flow & MK_FLOW_F_NO_STREAM) ||
	    (r->flags & MK_RF_PKT_KW))
		r->inspect_tcp = MK_INSPECT_PKT;
	else if (r->proto == MK_RP_TCP_STREAM || (r->flow & MK_FLOW_F_ONLY_STREAM))
		r->inspect_tcp = MK_INSPECT_STREAM;
	else if (r->flags & MK_RF_ABS_CONTENT)
		r->inspect_tcp = MK_INSPECT_PKT | MK_INSPECT_STREAM;
	else
		r->inspect_tcp = MK_INSPECT_STREAM;
	if (!(r->flags & MK_RF_PAYLOAD))
		r->inspect_tcp = MK_INSPECT_PKT;
	if (r->flags & MK_RF_APP_TX)
		r->inspect_tcp = 0; /* neither: its transactions */

	/* address-only rules: Suricata's IP-only (first packet of each flow direction) */
	if (!r->buf_mask && !r->flow && !r->app_proto && (r->sp.any && r->dp.any)) {
		int iponly = 1;

		for (i = 0; i < r->nmatch; i++)
			if (!(r->match[i].kw->flags & MK_KWF_IPONLY_OK))
				iponly = 0;
		/* flowint counts every packet (Suricata's is not IP-only compatible) */
		for (i = 0; i < r->npost; i++)
			if (r->post[i].kw == &mk_kw_flowint)
				iponly = 0;
		if (iponly)
			r->flags |= MK_RF_IPONLY;
	}
	r->nbytevars = rb->nbytevars;
	return 0;
}

/* The value of the options' sid keyword, or 0 (@opts from the '(' on; may be NULL). */
static uint32_t prescan_sid(const char *opts)
{
	const char *end;

	for (end = opts; end && (end = strstr(end, "sid")); end += 3) {
		uint32_t v;
		const char *q = end + 3;

		if (isalnum((unsigned char)end[-1]) || end[-1] == '_' || end[-1] == '.')
			continue;
		while (*q == ' ')
			q++;
		if (*q != ':')
			continue;
		q++;
		return sscanf(q, "%u", &v) == 1 ? v : 0;
	}
	return 0;
}

int mk_rule_parse(struct mk_parse_env *env, const char *text, const char *file, uint32_t line,
		  struct mk_rule **out, char *err, size_t errlen, int *reason, uint32_t *sid)
{
	struct mk_rule_build rb;
	const char *p;
	char *opts = NULL;
	size_t n;
	int ret = -1;

	memset(&rb, 0, sizeof(rb));
	*out = NULL;
	*sid = 0;
	rb.env = env;
	rb.r = calloc(1, sizeof(*rb.r));
	if (!rb.r) {
		snprintf(err, errlen, "out of memory");
		*reason = MK_DETECT_FAIL_SYNTAX;
		return -1;
	}
	rb.r->line = line;
	rb.r->file = strdup(file ? file : "");
	if (!rb.r->file) {
		mk_rule_fail(&rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
		goto out;
	}
	/* the sid first, so that every later error (the header's too) can name it */
	*sid = prescan_sid(strchr(text, '('));
	p = text;
	if (parse_header(&rb, &p))
		goto out;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '(') {
		mk_rule_fail(&rb, MK_DETECT_FAIL_SYNTAX, "missing '(' after the rule header");
		goto out;
	}
	opts = strdup(p + 1);
	if (!opts) {
		mk_rule_fail(&rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
		goto out;
	}
	n = strlen(opts);
	while (n && (opts[n - 1] == ' ' || opts[n - 1] == '\t' || opts[n - 1] == '\r' ||
		     opts[n - 1] == '\n'))
		opts[--n] = '\0';
	if (!n || opts[n - 1] != ')') {
		mk_rule_fail(&rb, MK_DETECT_FAIL_SYNTAX, "rule does not end with ')'");
		goto out;
	}
	opts[n - 1] = '\0';
	if (parse_options(&rb, opts))
		goto out;
	if (finalize(&rb))
		goto out;
	*out = rb.r;
	rb.r = NULL;
	ret = 0;
out:
	if (ret) {
		if (rb.kw)
			snprintf(err, errlen, "keyword '%s': %s", rb.kw, rb.err);
		else
			snprintf(err, errlen, "%s", rb.err[0] ? rb.err : "invalid rule");
		*reason = rb.reason;
		if (rb.r && rb.r->sid)
			*sid = rb.r->sid;
	}
	free(opts);
	mk_rule_free(rb.r);
	return ret;
}
