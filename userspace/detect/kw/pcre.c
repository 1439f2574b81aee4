// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcre:[!]"/regex/flags", compiled with PCRE2 and its JIT. Flags: i s m x
 * (PCRE's), A (anchored), E (dollar at the very end only), G (ungreedy),
 * R (relative to the previous payload match), B and O (accepted, no
 * effect). The HTTP buffer flags put the pcre in a buffer, as Suricata's:
 * U http.uri, I http.uri.raw, P http.request_body, Q http.response_body,
 * H http.header, D http.header.raw, M http.method, C http.cookie,
 * S http.stat_code, Y http.stat_msg, V http.user_agent, W http.host,
 * Z http.host.raw. Captures into variables are rejected.
 *
 * '^' without m anchors at the start of the buffer: for a TCP stream rule
 * the start of that direction's stream, for UDP the datagram. '$' also
 * matches before a final newline unless E is given (PCRE's default).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

/* Suricata's defaults (detect.pcre.match-limit); JIT ignores the depth limit. */
#define PCRE_MATCH_LIMIT 3500
#define PCRE_DEPTH_LIMIT 1500

static void pcre_free_ctx(void *ctx)
{
	struct mk_pcre *p = ctx;

	if (!p)
		return;
	pcre2_code_free(p->code);
	free(p->src);
	free(p);
}

/* The HTTP buffer flags, as Suricata's (raw variants: I, D, Z). */
static const struct {
	char flag;
	uint8_t buf;
} buf_flags[] = {
	{ 'U', MK_BUF_HTTP_URI },	   { 'I', MK_BUF_HTTP_URI_RAW },
	{ 'P', MK_BUF_HTTP_REQUEST_BODY }, { 'Q', MK_BUF_HTTP_RESPONSE_BODY },
	{ 'H', MK_BUF_HTTP_HEADER },	   { 'D', MK_BUF_HTTP_HEADER_RAW },
	{ 'M', MK_BUF_HTTP_METHOD },	   { 'C', MK_BUF_HTTP_COOKIE },
	{ 'S', MK_BUF_HTTP_STAT_CODE },	   { 'Y', MK_BUF_HTTP_STAT_MSG },
	{ 'V', MK_BUF_HTTP_USER_AGENT },   { 'W', MK_BUF_HTTP_HOST },
	{ 'Z', MK_BUF_HTTP_HOST_RAW },
};

/* The /regex/FLAGS letters: PCRE2 options, R (relative), *@buf an HTTP buffer's or -1. */
static int parse_flags(struct mk_rule_build *rb, struct mk_pcre *p, const char *flags, int *buf)
{
	size_t i;

	p->opts = 0;
	*buf = -1;
	for (; *flags; flags++) {
		switch (*flags) {
		case 'i':
			p->opts |= PCRE2_CASELESS;
			continue;
		case 's':
			p->opts |= PCRE2_DOTALL;
			continue;
		case 'm':
			p->opts |= PCRE2_MULTILINE;
			continue;
		case 'x':
			p->opts |= PCRE2_EXTENDED;
			continue;
		case 'A':
			p->opts |= PCRE2_ANCHORED;
			continue;
		case 'E':
			p->opts |= PCRE2_DOLLAR_ENDONLY;
			continue;
		case 'G':
			p->opts |= PCRE2_UNGREEDY;
			continue;
		case 'R':
			p->flags |= MK_PF_RELATIVE;
			continue;
		case 'B':
		case 'O':
			continue;
		case 'K':
			mk_rule_fail(
				rb, MK_DETECT_FAIL_KEYWORD,
				"flag 'K' (raw cookie): not supported, no such buffer (use C)");
			return -1;
		default:
			break;
		}
		for (i = 0; i < MK_ARRAY_SIZE(buf_flags); i++)
			if (buf_flags[i].flag == *flags)
				break;
		if (i == MK_ARRAY_SIZE(buf_flags)) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown flag '%c'", *flags);
			return -1;
		}
		if (*buf >= 0 && *buf != buf_flags[i].buf) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				     "flag '%c' selects %s, another flag already selected %s",
				     *flags, mk_buf_names[buf_flags[i].buf], mk_buf_names[*buf]);
			return -1;
		}
		*buf = buf_flags[i].buf;
	}
	return 0;
}

/* Q (the response body) also fits file.data, whose response side it is. */
static int flag_fits(int flag_buf, int cur)
{
	return flag_buf == cur ||
	       (flag_buf == MK_BUF_HTTP_RESPONSE_BODY && cur == MK_BUF_FILE_DATA);
}

static int setup_pcre(struct mk_rule_build *rb, const char *value)
{
	struct mk_pcre *p;
	const char *v = value;
	char *s = NULL, *re, *flags, *slash;
	PCRE2_SIZE erroff;
	int errcode, buf;
	uint8_t save;

	while (*v == ' ')
		v++;
	p = calloc(1, sizeof(*p));
	if (!p)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (*v == '!') {
		p->flags |= MK_PF_NEGATED;
		v++;
	}
	s = strdup(v);
	if (!s)
		goto nomem;
	re = mk_unquote(s, 0);
	if (!re) {
		mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX,
			     "value must be in double quotes " MK_QUOTE_HINT);
		goto err;
	}
	p->src = strdup(re);
	if (!p->src)
		goto nomem;
	slash = strrchr(re, '/');
	if (re[0] != '/' || slash == re) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "expected \"/regex/flags\"");
		goto err;
	}
	*slash = '\0';
	flags = slash + 1;
	re++;
	if (parse_flags(rb, p, flags, &buf))
		goto err;
	/* as Suricata: a buffer flag under another sticky buffer is a mistake */
	if (buf >= 0 && rb->cur_buf != MK_BUF_PAYLOAD && !flag_fits(buf, rb->cur_buf)) {
		mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			     "a buffer flag (%s) with the sticky buffer %s still set: select %s "
			     "with its sticky buffer instead",
			     mk_buf_names[buf], mk_buf_names[rb->cur_buf], mk_buf_names[buf]);
		goto err;
	}
	if (buf >= 0 && mk_kw_http_rule(rb))
		goto err;
	if (strstr(re, "?P<pkt_") || strstr(re, "?P<flow_") || strstr(re, "?P<alert_") ||
	    strstr(re, "?<pkt_") || strstr(re, "?<flow_") || strstr(re, "?<alert_")) {
		mk_rule_fail(rb, MK_DETECT_FAIL_KEYWORD,
			     "captures into variables are not supported");
		goto err;
	}
	if ((re[0] == '^' && !(p->opts & PCRE2_MULTILINE)) || (p->opts & PCRE2_ANCHORED))
		p->flags |= MK_PF_ANCHORED;
	p->code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, p->opts, &errcode, &erroff,
				NULL);
	if (!p->code) {
		PCRE2_UCHAR msg[128];

		pcre2_get_error_message(errcode, msg, sizeof(msg));
		mk_rule_fail(rb, MK_DETECT_FAIL_PCRE, "at offset %zu: %s", (size_t)erroff,
			     (char *)msg);
		goto err;
	}
	/* no JIT (unsupported CPU): the interpreter still works, only slower */
	pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);
	free(s);
	save = rb->cur_buf;
	if (buf >= 0 && rb->cur_buf == MK_BUF_PAYLOAD)
		rb->cur_buf = (uint8_t)buf; /* this pcre only: the flag's buffer */
	if (mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_pcre, p)) {
		rb->cur_buf = save;
		return -1;
	}
	rb->cur_buf = save;
	return 0;
nomem:
	mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
err:
	free(s);
	pcre_free_ctx(p);
	return -1;
}

int mk_pcre_exec(struct mk_detect_thread *t, const struct mk_pcre *p, const uint8_t *buf,
		 uint32_t len, uint32_t start, uint32_t *ms, uint32_t *me)
{
	PCRE2_SIZE *ov;
	int rc;

	if (!t->pcre_md) {
		t->pcre_md = pcre2_match_data_create(1, NULL);
		t->pcre_mctx = pcre2_match_context_create(NULL);
		if (!t->pcre_md || !t->pcre_mctx)
			return 0;
		pcre2_set_match_limit(t->pcre_mctx, PCRE_MATCH_LIMIT);
		pcre2_set_depth_limit(t->pcre_mctx, PCRE_DEPTH_LIMIT);
	}
	/* an empty subject still needs a valid pointer */
	rc = pcre2_match(p->code, buf ? buf : (const uint8_t *)"", len, start, 0, t->pcre_md,
			 t->pcre_mctx);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0) {
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_JIT_STACKLIMIT)
			t->cnt[MK_DETECT_CNT_PCRE_LIMIT]++;
		return -1;
	}
	ov = pcre2_get_ovector_pointer(t->pcre_md);
	*ms = (uint32_t)ov[0];
	*me = (uint32_t)ov[1];
	return 1;
}

void mk_pcre_thread_free(struct mk_detect_thread *t)
{
	pcre2_match_data_free(t->pcre_md);
	pcre2_match_context_free(t->pcre_mctx);
	t->pcre_md = NULL;
	t->pcre_mctx = NULL;
}

const struct mk_kw mk_kw_pcre = {
	.name = "pcre",
	.type = MK_KWT_PCRE,
	.flags = MK_KWF_VALUE,
	.setup = setup_pcre,
	.free = pcre_free_ctx,
	.doc = "Perl regular expression (PCRE2, JIT): [!]\"/regex/ismxAEGR\" and HTTP buffer flags UIPQHDMCSYVWZ",
};

MK_KW_FAMILY_TABLE(pcre, MK_KW_FAMILY_PCRE);
