// SPDX-License-Identifier: GPL-2.0-only
/*
 * pcre:[!]"/regex/flags", compiled with PCRE2 and its JIT. Flags: i s m x
 * (PCRE's), A (anchored), E (dollar at the very end only), G (ungreedy),
 * R (relative to the previous payload match), B and O (accepted, no
 * effect). The HTTP buffer flags (U, I, P, Q, H, D, M, C, K, S, Y, V, W, Z)
 * and captures into variables are app-layer features and rejected.
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

/* The /regex/FLAGS letters: PCRE2 options, R (relative); HTTP buffer letters are refused. */
static int parse_flags(struct mk_rule_build *rb, struct mk_pcre *p, const char *flags)
{
	p->opts = 0;
	for (; *flags; flags++) {
		switch (*flags) {
		case 'i':
			p->opts |= PCRE2_CASELESS;
			break;
		case 's':
			p->opts |= PCRE2_DOTALL;
			break;
		case 'm':
			p->opts |= PCRE2_MULTILINE;
			break;
		case 'x':
			p->opts |= PCRE2_EXTENDED;
			break;
		case 'A':
			p->opts |= PCRE2_ANCHORED;
			break;
		case 'E':
			p->opts |= PCRE2_DOLLAR_ENDONLY;
			break;
		case 'G':
			p->opts |= PCRE2_UNGREEDY;
			break;
		case 'R':
			p->flags |= MK_PF_RELATIVE;
			break;
		case 'B':
		case 'O':
			break;
		case 'U':
		case 'I':
		case 'P':
		case 'Q':
		case 'H':
		case 'D':
		case 'M':
		case 'C':
		case 'K':
		case 'S':
		case 'Y':
		case 'V':
		case 'W':
		case 'Z':
			mk_rule_fail(rb, MK_DETECT_FAIL_KEYWORD,
				     "flag '%c' selects an HTTP buffer: not supported (app-layer)",
				     *flags);
			return -1;
		default:
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown flag '%c'", *flags);
			return -1;
		}
	}
	return 0;
}

static int setup_pcre(struct mk_rule_build *rb, const char *value)
{
	struct mk_pcre *p;
	const char *v = value;
	char *s = NULL, *re, *flags, *slash;
	PCRE2_SIZE erroff;
	int errcode;

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
	if (parse_flags(rb, p, flags))
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
	if (mk_rule_add_sm(rb, MK_LIST_PMATCH, &mk_kw_pcre, p))
		return -1;
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
	.doc = "Perl regular expression (PCRE2, JIT): [!]\"/regex/ismxAEGR\"",
};

MK_KW_FAMILY_TABLE(pcre, MK_KW_FAMILY_PCRE);
