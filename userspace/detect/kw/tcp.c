// SPDX-License-Identifier: GPL-2.0-only
/*
 * TCP keywords: flags and stream_size.
 *
 * flags:[modifier]FSRPAUCE0[,ignored]: without a modifier the packet's
 * flags (minus the ignored ones) must equal the list exactly, so flags:S
 * does not match a SYN/ACK; '+' means these and any others (F+), '*' any
 * of these, '!' not all of these; 0 means no flag at all. The modifier may
 * stand before or after the letters. 1 and 2 are the old names of C and E.
 *
 * stream_size:server|client|both|either,op,N compares the sequence space
 * used so far in a direction (the SYN counts one, as Suricata).
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

enum { FL_EXACT, FL_PLUS, FL_ANY, FL_NOT };

struct tcp_flags {
	uint8_t flags, ignore, mod;
};

static int flag_bit(char c)
{
	switch (c) {
	case 'F':
	case 'f':
		return MK_TCP_FIN;
	case 'S':
	case 's':
		return MK_TCP_SYN;
	case 'R':
	case 'r':
		return MK_TCP_RST;
	case 'P':
	case 'p':
		return MK_TCP_PSH;
	case 'A':
	case 'a':
		return MK_TCP_ACK;
	case 'U':
	case 'u':
		return MK_TCP_URG;
	case 'C':
	case 'c':
	case '1':
		return MK_TCP_CWR;
	case 'E':
	case 'e':
	case '2':
		return MK_TCP_ECE;
	default:
		return -1;
	}
}

static int setup_flags(struct mk_rule_build *rb, const char *value)
{
	struct tcp_flags *f = calloc(1, sizeof(*f));
	const char *p;
	int zero = 0, nmod = 0, b, inmask = 0;

	if (!f)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	for (p = value; *p; p++) {
		if (*p == ' ')
			continue;
		if (*p == ',') {
			if (inmask)
				goto bad;
			inmask = 1;
			continue;
		}
		if (!inmask && (*p == '+' || *p == '*' || *p == '!')) {
			nmod++;
			f->mod = *p == '+' ? FL_PLUS : *p == '*' ? FL_ANY : FL_NOT;
			continue;
		}
		if (!inmask && *p == '0') {
			zero = 1;
			continue;
		}
		b = flag_bit(*p);
		if (b < 0)
			goto bad;
		if (inmask)
			f->ignore |= (uint8_t)b;
		else
			f->flags |= (uint8_t)b;
	}
	if (nmod > 1 || (zero && (f->flags || nmod)) || (!zero && !f->flags))
		goto bad;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_flags, f);
bad:
	free(f);
	return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			    "'%.40s' is not [+*!]FSRPAUCE (or 0)[,ignored flags]", value);
}

static int match_flags(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct tcp_flags *f = sm->ctx;
	uint8_t pf;

	if (!mc->pi || !mc->pi->is_tcp_seg)
		return 0;
	pf = mc->pi->tcp_flags & (uint8_t)~f->ignore;
	switch (f->mod) {
	case FL_PLUS:
		return (pf & f->flags) == f->flags;
	case FL_ANY:
		return (pf & f->flags) != 0;
	case FL_NOT:
		return (pf & f->flags) != f->flags;
	default:
		return pf == f->flags;
	}
}

enum { SS_SERVER, SS_CLIENT, SS_BOTH, SS_EITHER };

struct stream_size {
	uint8_t which;
	struct mk_uint cmp;
};

static int setup_stream_size(struct mk_rule_build *rb, const char *value)
{
	static const char *const which[] = { "server", "client", "both", "either" };
	char *v = strdup(value), *a[3], *tok, *save = NULL, expr[64];
	struct stream_size *s = calloc(1, sizeof(*s));
	unsigned int n = 0, i;

	if (!v || !s) {
		free(v);
		free(s);
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	}
	for (tok = strtok_r(v, ",", &save); tok && n < 3; tok = strtok_r(NULL, ",", &save))
		a[n++] = mk_strtrim(tok);
	if (n != 3 || tok)
		goto bad;
	for (i = 0; i < MK_ARRAY_SIZE(which); i++)
		if (!strcmp(a[0], which[i]))
			break;
	if (i == MK_ARRAY_SIZE(which))
		goto bad;
	s->which = (uint8_t)i;
	if (strcmp(a[1], "<") && strcmp(a[1], ">") && strcmp(a[1], "=") && strcmp(a[1], "!=") &&
	    strcmp(a[1], "<=") && strcmp(a[1], ">="))
		goto bad;
	snprintf(expr, sizeof(expr), "%s%s", a[1], a[2]);
	if (mk_uint_parse(expr, UINT32_MAX, &s->cmp))
		goto bad;
	free(v);
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_stream_size, s);
bad:
	free(v);
	free(s);
	return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
			    "expected 'server|client|both|either, <|>|=|!=|<=|>=, N'");
}

static int match_stream_size(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	const struct stream_size *s = sm->ctx;
	int c, sv;

	if (!mc->flow || mc->flow->proto_class != MK_FLOW_PROTO_TCP)
		return 0;
	/* role directions: the client's data is MK_STREAM_TO_SERVER */
	c = mk_uint_match(&s->cmp, mk_tcp_session_stream_size(&mc->flow->tcp, MK_STREAM_TO_SERVER));
	sv = mk_uint_match(&s->cmp,
			   mk_tcp_session_stream_size(&mc->flow->tcp, MK_STREAM_TO_CLIENT));
	switch (s->which) {
	case SS_SERVER:
		return sv;
	case SS_CLIENT:
		return c;
	case SS_BOTH:
		return c && sv;
	default:
		return c || sv;
	}
}

MK_KW_DEFINE(flags, MK_KWT_MATCH, 0, setup_flags, match_flags,
	     "TCP flags: [+*!]FSRPAUCE or 0, [,flags to ignore]; without modifier exact");

MK_KW_DEFINE(stream_size, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_stream_size, match_stream_size,
	     "server|client|both|either, <|>|=|!=|<=|>=, N: sequence space used so far");

MK_KW_FAMILY_TABLE(tcp, MK_KW_FAMILY_TCP);
