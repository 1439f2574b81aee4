// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rule parser (userspace/detect/engine/rule_parse.c and the keyword setups):
 * rules that must parse, with the parsed fields checked, and rules that must
 * be rejected, with the reason and the error text checked.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include "detect_helpers.h"

static const struct mk_content *content_n(const struct mk_rule *r, unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < r->npmatch; i++)
		if (r->pmatch[i].kw == &mk_kw_content && k++ == n)
			return r->pmatch[i].ctx;
	cr_assert_fail("rule has no content #%u", n);
	return NULL;
}

static uint32_t ip4(const char *s)
{
	uint32_t a;

	inet_pton(AF_INET, s, &a);
	return a;
}

static int addr_has(const struct mk_addr_set *set, const char *s)
{
	uint32_t a[4] = { 0 };

	if (strchr(s, ':')) {
		inet_pton(AF_INET6, s, a);
		return mk_addr_match(set, MK_FAMILY_IPV6, a);
	}
	a[0] = ip4(s);
	return mk_addr_match(set, MK_FAMILY_IPV4, a);
}

Test(rule_parse, header_and_meta_fields)
{
	struct mk_rule *r = rule_ok(
		"alert tcp $HOME_NET any -> $EXTERNAL_NET $HTTP_PORTS (msg:\"hello \\\"world\\\" \\; "
		"ok\"; "
		"content:\"GET\"; depth:3; sid:1000001; rev:7; gid:3; classtype:trojan-activity; "
		"reference:url,example.com/x; reference:cve,2024-1; metadata:created_at 2024_01_01, "
		"tag a b; target:dest_ip;)");

	cr_assert_eq(r->action, MK_ACTION_ALERT);
	cr_assert_eq(r->proto, MK_RP_TCP);
	cr_assert_str_eq(r->msg, "hello \"world\" ; ok");
	cr_assert_eq(r->sid, 1000001);
	cr_assert_eq(r->rev, 7);
	cr_assert_eq(r->gid, 3);
	cr_assert_str_eq(r->cls->name, "trojan-activity");
	cr_assert_eq(r->priority, 1, "classtype's priority");
	cr_assert_eq(r->nrefs, 2);
	cr_assert_str_eq(r->refs[0].key, "url");
	cr_assert_str_eq(r->refs[0].value, "example.com/x");
	cr_assert_str_eq(r->refs[1].key, "cve");
	cr_assert_eq(r->nmeta, 2);
	cr_assert_str_eq(r->meta[0].key, "created_at");
	cr_assert_str_eq(r->meta[0].value, "2024_01_01");
	cr_assert_str_eq(r->meta[1].key, "tag");
	cr_assert_str_eq(r->meta[1].value, "a b");
	cr_assert(r->flags & MK_RF_TARGET_DST);
	cr_assert(!(r->flags & MK_RF_BIDIR));
	/* $HOME_NET and !$HOME_NET */
	cr_assert(addr_has(&r->src, "10.1.2.3"));
	cr_assert(addr_has(&r->src, "2001:db8::5"));
	cr_assert(!addr_has(&r->src, "8.8.8.8"));
	cr_assert(addr_has(&r->dst, "8.8.8.8"));
	cr_assert(!addr_has(&r->dst, "192.168.3.4"));
	cr_assert(addr_has(&r->dst, "2001:db9::1"));
	cr_assert(!addr_has(&r->dst, "2001:db8::1"));
	cr_assert(r->sp.any);
	cr_assert(mk_port_match(&r->dp, 80) && mk_port_match(&r->dp, 8080));
	cr_assert(!mk_port_match(&r->dp, 443));
	cr_assert_eq(r->npmatch, 1);
	cr_assert_eq(r->fp, content_n(r, 0));
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_PKT | MK_INSPECT_STREAM,
		     "depth: segment and stream");
	mk_rule_free(r);
}

Test(rule_parse, defaults)
{
	struct mk_rule *r = rule_ok("alert udp any any -> any any (sid:5;)");

	cr_assert_eq(r->gid, 1);
	cr_assert_eq(r->rev, 0);
	cr_assert_eq(r->priority, 3);
	cr_assert_null(r->msg);
	cr_assert_null(r->cls);
	cr_assert(r->flags & MK_RF_IPONLY, "no options, any ports: address-only");
	mk_rule_free(r);
	r = rule_ok("alert tcp any any -> any any (msg:\"p\"; priority:9; "
		    "classtype:trojan-activity; sid:6;)");
	cr_assert_eq(r->priority, 9, "priority overrides the classtype's");
	mk_rule_free(r);
}

Test(rule_parse, actions_and_protocols)
{
	static const struct {
		const char *hdr;
		uint8_t action, proto;
	} t[] = {
		{ "alert ip", MK_ACTION_ALERT, MK_RP_IP },
		{ "pass tcp", MK_ACTION_PASS, MK_RP_TCP },
		{ "drop udp", MK_ACTION_DROP, MK_RP_UDP },
		{ "reject icmp", MK_ACTION_REJECT, MK_RP_ICMP },
		{ "rejectsrc icmpv6", MK_ACTION_REJECT, MK_RP_ICMPV6 },
		{ "alert tcp-pkt", MK_ACTION_ALERT, MK_RP_TCP_PKT },
		{ "alert tcp-stream", MK_ACTION_ALERT, MK_RP_TCP_STREAM },
	};
	char buf[256];
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(t); i++) {
		struct mk_rule *r;

		snprintf(buf, sizeof(buf), "%s any any -> any any (sid:1;)", t[i].hdr);
		r = rule_ok(buf);
		cr_assert_eq(r->action, t[i].action, "%s", t[i].hdr);
		cr_assert_eq(r->proto, t[i].proto, "%s", t[i].hdr);
		mk_rule_free(r);
	}
}

Test(rule_parse, addresses)
{
	struct mk_rule *r =
		rule_ok("alert ip [10.0.0.0/8,!10.1.0.0/16,2001:db8::/32,192.168.1.1-192.168.1.9] "
			"any <> !10.0.0.0/8 any (sid:1;)");

	cr_assert(r->flags & MK_RF_BIDIR);
	cr_assert(addr_has(&r->src, "10.2.3.4"));
	cr_assert(!addr_has(&r->src, "10.1.3.4"));
	cr_assert(addr_has(&r->src, "10.0.255.255"));
	cr_assert(addr_has(&r->src, "10.2.0.0"));
	cr_assert(addr_has(&r->src, "2001:db8:ffff::1"));
	cr_assert(addr_has(&r->src, "192.168.1.1") && addr_has(&r->src, "192.168.1.9"));
	cr_assert(!addr_has(&r->src, "192.168.1.10"));
	cr_assert(!addr_has(&r->src, "11.0.0.0"));
	/* a negated IPv4 network does not match IPv6 */
	cr_assert(addr_has(&r->dst, "11.0.0.1"));
	cr_assert(!addr_has(&r->dst, "10.9.9.9"));
	cr_assert(!addr_has(&r->dst, "2001:db8::1"));
	mk_rule_free(r);

	r = rule_ok("alert ip [!10.0.0.0/8,!2001:db8::/32] any -> [1.2.3.4/255.255.255.0,::1] any "
		    "(sid:1;)");
	cr_assert(addr_has(&r->src, "11.0.0.1") && addr_has(&r->src, "2001:db9::1"));
	cr_assert(!addr_has(&r->src, "10.0.0.1") && !addr_has(&r->src, "2001:db8::1"));
	cr_assert(addr_has(&r->dst, "1.2.3.200") && addr_has(&r->dst, "::1"));
	cr_assert(!addr_has(&r->dst, "1.2.4.0") && !addr_has(&r->dst, "::2"));
	mk_rule_free(r);

	r = rule_ok("alert ip $EXTERNAL_NET any -> ![$V4_HOME,2001:db8::/32] any (sid:1;)");
	cr_assert(addr_has(&r->src, "8.8.8.8") && !addr_has(&r->src, "10.0.0.1"));
	cr_assert(addr_has(&r->dst, "8.8.8.8") && addr_has(&r->dst, "2001:db9::1"));
	cr_assert(!addr_has(&r->dst, "10.0.0.1") && !addr_has(&r->dst, "2001:db8::1"));
	mk_rule_free(r);
}

Test(rule_parse, ports)
{
	struct mk_rule *r =
		rule_ok("alert tcp any [1024:2048,!1500,3000] -> any $WEB_PORTS (sid:1;)");

	cr_assert(mk_port_match(&r->sp, 1024) && mk_port_match(&r->sp, 2048));
	cr_assert(!mk_port_match(&r->sp, 1500) && mk_port_match(&r->sp, 1499));
	cr_assert(mk_port_match(&r->sp, 3000) && !mk_port_match(&r->sp, 2049));
	cr_assert(mk_port_match(&r->dp, 80) && mk_port_match(&r->dp, 8080) &&
		  mk_port_match(&r->dp, 443));
	cr_assert(!mk_port_match(&r->dp, 81));
	mk_rule_free(r);

	r = rule_ok("alert udp any :1023 -> any $HIGH (sid:1;)");
	cr_assert(mk_port_match(&r->sp, 0) && mk_port_match(&r->sp, 1023) &&
		  !mk_port_match(&r->sp, 1024));
	cr_assert(mk_port_match(&r->dp, 65535) && !mk_port_match(&r->dp, 1023));
	mk_rule_free(r);

	r = rule_ok("alert udp any !53 -> any [!80,!443] (sid:1;)");
	cr_assert(!mk_port_match(&r->sp, 53) && mk_port_match(&r->sp, 54) &&
		  mk_port_match(&r->sp, 0));
	cr_assert(!mk_port_match(&r->dp, 80) && !mk_port_match(&r->dp, 443) &&
		  mk_port_match(&r->dp, 81));
	mk_rule_free(r);
}

Test(rule_parse, content_bytes_and_modifiers)
{
	struct mk_rule *r = rule_ok(
		"alert tcp any any -> any any (content:\"A|42 43|\\;\\\"\\\\\\:|0d0a|\"; nocase; "
		"offset:2; "
		"depth:20; content:!\"bad\"; distance:1; within:10; content:\"tail\"; endswith; "
		"content:\"head\"; startswith; fast_pattern; rawbytes; sid:1;)");
	const struct mk_content *c = content_n(r, 0);

	cr_assert_eq(c->len, 9);
	cr_assert(!memcmp(c->pat, "ABC;\"\\:\r\n", 9));
	cr_assert(!memcmp(c->low, "abc;\"\\:\r\n", 9));
	cr_assert_eq(c->flags & (MK_CF_NOCASE | MK_CF_OFFSET | MK_CF_DEPTH),
		     MK_CF_NOCASE | MK_CF_OFFSET | MK_CF_DEPTH);
	cr_assert_eq(c->offset, 2);
	cr_assert_eq(c->depth, 20);
	cr_assert(c->flags & MK_CF_RELATIVE_NEXT, "the next content is relative to it");
	c = content_n(r, 1);
	cr_assert(c->flags & MK_CF_NEGATED);
	cr_assert_eq(c->distance, 1);
	cr_assert_eq(c->within, 10);
	cr_assert(content_n(r, 2)->flags & MK_CF_ENDSWITH);
	c = content_n(r, 3);
	cr_assert(c->flags & MK_CF_STARTSWITH);
	cr_assert(c->flags & MK_CF_RAWBYTES);
	cr_assert_eq(r->fp, c, "explicit fast_pattern wins over the longest content");
	cr_assert(r->flags & MK_RF_ABS_CONTENT);
	mk_rule_free(r);
}

Test(rule_parse, fast_pattern_choice)
{
	struct mk_rule *r = rule_ok(
		"alert tcp any any -> any any (content:\"ab\"; content:!\"longest-negated\"; "
		"content:\"abcdef\"; content:\"xyz\"; sid:1;)");

	cr_assert_eq(r->fp, content_n(r, 2), "the longest positive content");
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_STREAM);
	mk_rule_free(r);

	r = rule_ok(
		"alert tcp any any -> any any (content:\"0123456789\"; fast_pattern:3,4; sid:1;)");
	cr_assert(r->fp->flags & MK_CF_FP_CHOP);
	cr_assert_eq(r->fp->fp_off, 3);
	cr_assert_eq(r->fp->fp_len, 4);
	mk_rule_free(r);

	r = rule_ok("alert tcp any any -> any any (content:\"only\"; fast_pattern:only; sid:1;)");
	cr_assert(r->fp->flags & MK_CF_FP_ONLY);
	mk_rule_free(r);

	r = rule_ok("alert tcp any any -> any any (content:!\"x\"; sid:1;)");
	cr_assert_null(r->fp, "negated contents never are the fast pattern");
	mk_rule_free(r);
}

Test(rule_parse, pcre_options)
{
	struct mk_rule *r =
		rule_ok("alert tcp any any -> any any (content:\"x\"; pcre:\"/^a.b$/smixAEGR\"; "
			"pcre:!\"/c\\;d/\"; sid:1;)");
	const struct mk_pcre *p = r->pmatch[1].ctx;

	cr_assert_eq(r->npmatch, 3);
	cr_assert_eq(r->pmatch[1].kw, &mk_kw_pcre);
	cr_assert(p->flags & MK_PF_RELATIVE);
	cr_assert(p->flags & MK_PF_ANCHORED, "A anchors even with m");
	cr_assert_eq(p->opts, PCRE2_DOTALL | PCRE2_MULTILINE | PCRE2_CASELESS | PCRE2_EXTENDED |
				      PCRE2_ANCHORED | PCRE2_DOLLAR_ENDONLY | PCRE2_UNGREEDY);
	cr_assert(((const struct mk_pcre *)r->pmatch[2].ctx)->flags & MK_PF_NEGATED);
	cr_assert(((const struct mk_content *)r->pmatch[0].ctx)->flags & MK_CF_RELATIVE_NEXT);
	mk_rule_free(r);

	r = rule_ok("alert udp any any -> any any (pcre:\"/^GET/\"; sid:1;)");
	cr_assert(((const struct mk_pcre *)r->pmatch[0].ctx)->flags & MK_PF_ANCHORED);
	mk_rule_free(r);
	r = rule_ok("alert udp any any -> any any (pcre:\"/^GET/m\"; sid:1;)");
	cr_assert(!(((const struct mk_pcre *)r->pmatch[0].ctx)->flags & MK_PF_ANCHORED));
	mk_rule_free(r);
}

Test(rule_parse, byte_keywords)
{
	struct mk_rule *r = rule_ok(
		"alert udp any any -> any any (byte_extract:2,0,len,relative,little,multiplier 2; "
		"byte_test:4,!>=,len,2,relative,string,hex; byte_jump:1,len,relative,align,post_offset "
		"-3,"
		"from_end; byte_test:1,&,0x80,0,bitmask 0xf0; isdataat:!len,relative; sid:1;)");
	const struct mk_byte *b = r->pmatch[0].ctx;

	cr_assert_eq(r->npmatch, 5);
	cr_assert_eq(r->nbytevars, 1);
	cr_assert_eq(b->nbytes, 2);
	cr_assert_eq(b->var, 0);
	cr_assert_eq(b->multiplier, 2);
	cr_assert(b->flags & MK_BF_LITTLE);
	b = r->pmatch[1].ctx;
	cr_assert_eq(b->op, MK_BOP_GE);
	cr_assert(b->flags & MK_BF_NEGATED);
	cr_assert(b->flags & MK_BF_VALUE_VAR);
	cr_assert_eq(b->base, 16);
	b = r->pmatch[2].ctx;
	cr_assert(b->flags & MK_BF_OFFSET_VAR);
	cr_assert(b->flags & MK_BF_ALIGN);
	cr_assert(b->flags & MK_BF_FROM_END);
	cr_assert_eq(b->post_offset, -3);
	b = r->pmatch[3].ctx;
	cr_assert_eq(b->bitmask, 0xf0);
	cr_assert_eq(b->bitmask_shift, 4);
	cr_assert(((const struct mk_isdataat *)r->pmatch[4].ctx)->var);
	mk_rule_free(r);
}

Test(rule_parse, flow_and_packet_keywords)
{
	struct mk_rule *r =
		rule_ok("alert tcp any any -> any any (flow:established,to_server,no_stream; "
			"flags:SA,12; dsize:100<>200; ttl:<10; ip_proto:tcp; sameip; "
			"stream_size:client,>=,5; content:\"x\"; sid:1;)");

	cr_assert_eq(r->flow, MK_FLOW_F_ESTABLISHED | MK_FLOW_F_TO_SERVER | MK_FLOW_F_NO_STREAM);
	cr_assert_eq(r->nmatch, 7);
	cr_assert(r->flags & MK_RF_PKT_KW);
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_PKT);
	cr_assert(!(r->flags & MK_RF_IPONLY));
	mk_rule_free(r);

	r = rule_ok(
		"alert icmp any any -> any any (itype:>3; icode:0; icmp_id:77; icmp_seq:2; sid:1;)");
	cr_assert_eq(r->nmatch, 4);
	mk_rule_free(r);

	r = rule_ok(
		"alert tcp any any -> any any (flow:only_stream; content:\"x\"; depth:4; sid:1;)");
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_STREAM, "only_stream beats depth");
	mk_rule_free(r);
	r = rule_ok("alert tcp-pkt any any -> any any (content:\"x\"; sid:1;)");
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_PKT);
	mk_rule_free(r);
	r = rule_ok("alert tcp any any -> any any (content:\"x\"; dsize:>10; sid:1;)");
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_PKT, "dsize: per packet");
	mk_rule_free(r);
	r = rule_ok("alert tcp any any -> any any (flow:established; content:\"x\"; "
		    "flowbits:isset,a; sid:1;)");
	cr_assert_eq(r->inspect_tcp, MK_INSPECT_STREAM, "flow state keywords hold on streams");
	mk_rule_free(r);
}

Test(rule_parse, flowvars_and_thresholds)
{
	struct mk_rule *r = rule_ok(
		"alert tcp any any -> any any (flowbits:set,a&b; flowbits:noalert; "
		"flowint:cnt,+,1; threshold:type limit,track by_src,count 2,seconds 60; sid:1;)");

	cr_assert(r->flags & MK_RF_NOALERT);
	cr_assert(r->flags & MK_RF_FLOWVAR_SET);
	cr_assert_eq(r->npost, 2, "flowbits:set and flowint:+ act after the match");
	cr_assert_eq(r->thresh.type, MK_THRESH_LIMIT);
	cr_assert_eq(r->thresh.track, MK_TRACK_SRC);
	cr_assert_eq(r->thresh.count, 2);
	cr_assert_eq(r->thresh.seconds, 60);
	mk_rule_free(r);

	r = rule_ok("alert ip any any -> any any (flowbits:isset,a|b; flowint:cnt,>,3; "
		    "detection_filter:track by_rule,count 5,seconds 1; sid:1;)");
	cr_assert(r->flags & MK_RF_FLOWVAR_GET);
	cr_assert_eq(r->nmatch, 2);
	cr_assert_eq(r->thresh.type, MK_THRESH_DETECTION);
	cr_assert_eq(r->thresh.track, MK_TRACK_RULE);
	cr_assert(!(r->flags & MK_RF_IPONLY), "isset is a check");
	mk_rule_free(r);

	r = rule_ok("alert ip any any -> any any (flowbits:set,seen; noalert; bypass; sid:1;)");
	cr_assert(r->flags & MK_RF_IPONLY, "setting flowbits keeps address-only");
	cr_assert(r->flags & MK_RF_BYPASS);
	mk_rule_free(r);
}

Test(rule_parse, multi_line_text_is_one_rule)
{
	/* the engine joins continuation lines; the parser sees spaces and tabs */
	struct mk_rule *r =
		rule_ok("alert\ttcp  any any ->  any any  (  msg : \"x\" ;  content : \"y\" ;"
			" sid : 9 ; )");

	cr_assert_eq(r->sid, 9);
	cr_assert_str_eq(r->msg, "x");
	mk_rule_free(r);
}

struct reject {
	const char *rule;
	int reason;
	const char *text;
};

static const struct reject rejects[] = {
	/* Suricata's error cases */
	{ "alert tcp any any -> any any (msg:\"a;b\"; sid:1;)", MK_DETECT_FAIL_SYNTAX,
	  "must be escaped as '\\;'" },
	{ "alert tcp any any -> any any (content:\"a;b\"; sid:1;)", MK_DETECT_FAIL_SYNTAX,
	  "must be escaped as '\\;'" },
	{ "alert tcp any any -> any any (msg:\"x\"; sid:1)", MK_DETECT_FAIL_SYNTAX,
	  "not terminated by ';'" },
	{ "alert tcp any any -> any any (msg:\"x\";)", MK_DETECT_FAIL_VALUE, "rule has no sid" },
	{ "alert tcp any any -> any any (sid:0;)", MK_DETECT_FAIL_VALUE, "not a number above 0" },
	{ "alert tcp any any -> any any (sid:1; sid:2;)", MK_DETECT_FAIL_VALUE,
	  "keyword 'sid': given twice" },
	{ "alert tcp any any -> any any (content:\"abc\"; depth:2; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "depth 2 is smaller than the content (3 bytes)" },
	{ "alert tcp any any -> any any (content:\"a\"; content:\"abc\"; within:2; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "within 2 is smaller than the content (3 bytes)" },
	{ "alert tcp any any -> any any (content:\"a\"; content:\"b\"; distance:1; depth:4; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "keyword 'depth': cannot be combined with distance" },
	{ "alert tcp any any -> any any (content:\"a\"; offset:1; within:4; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "keyword 'within': cannot be combined with depth, offset" },
	{ "alert tcp any any -> any any (content:\"a\"; startswith; offset:1; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "startswith" },
	{ "alert tcp any any -> any any (nocase; content:\"a\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "keyword 'nocase': needs a preceding content" },
	{ "alert tcp any any -> any any (content:\"a\"; nocase; nocase; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "given twice for one content" },
	{ "alert tcp any any -> any any (content:\"a\"; depth:0; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "0 is outside [1, 65535]" },
	{ "alert tcp any any -> any any (content:\"a\"; fast_pattern; content:\"b\"; fast_pattern; "
	  "sid:1;)",
	  MK_DETECT_FAIL_VALUE, "only one content of a rule can be the fast pattern" },
	{ "alert tcp any any -> any any (content:\"a\"; content:\"b\"; fast_pattern:only; distance:1; "
	  "sid:1;)",
	  MK_DETECT_FAIL_VALUE, "fast_pattern:only cannot be used" },
	{ "alert tcp any any -> any any (content:!\"a\"; fast_pattern; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "negated content cannot be the fast pattern" },
	{ "alert tcp any any -> any any (content:\"ab\"; fast_pattern:1,5; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "goes past the content" },
	{ "alert tcp any any -> any any (content:\"|4|\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "odd number of hex digits" },
	{ "alert tcp any any -> any any (content:\"|4g|\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "'g' is not a hex digit" },
	{ "alert tcp any any -> any any (content:\"|41\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "unterminated hex section" },
	{ "alert tcp any any -> any any (content:\"a\\x\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "'\\x' is not an escape" },
	{ "alert tcp any any -> any any (content:\"\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "empty content" },
	{ "alert tcp any any -> any any (content:abc; sid:1;)", MK_DETECT_FAIL_SYNTAX,
	  "value must be in double quotes" },
	/* app-layer and other unsupported keywords: named, with why */
	{ "alert tcp any any -> any any (http.request_header; content:\"/x\"; sid:1;)",
	  MK_DETECT_FAIL_KEYWORD,
	  "keyword 'http.request_header': not supported (app-layer keyword" },
	{ "alert tcp any any -> any any (content:\"/x\"; http_raw_cookie; sid:1;)",
	  MK_DETECT_FAIL_KEYWORD, "keyword 'http_raw_cookie': not supported (no raw cookie" },
	{ "alert udp any any -> any 88 (krb5.cname; content:\"evil\"; sid:1;)",
	  MK_DETECT_FAIL_KEYWORD, "keyword 'krb5.cname': not supported (app-layer" },
	{ "alert tcp any any -> any any (sip.method; content:\"x\"; sid:1;)",
	  MK_DETECT_FAIL_KEYWORD, "keyword 'sip.method': not supported" },
	{ "alert tcp any any -> any any (file.data; content:\"x\"; dsize:>1; sid:1;)",
	  MK_DETECT_FAIL_KEYWORD,
	  "packet keywords (dsize, flags, ttl, ...) in a transaction rule (http)" },
	{ "alert udp any any -> any any (file.data; content:\"x\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "http keywords need a rule of protocol http, tcp or ip" },
	{ "alert icmp any any -> any any (tls.sni; content:\"x\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "tls keywords need a rule of protocol tls, tcp or ip" },
	{ "alert tls any any -> any any (dns.query; content:\"x\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "a keyword of dns in a rule of another application protocol (tls)" },
	{ "alert tcp any any -> any any (hostbits:set,a; sid:1;)", MK_DETECT_FAIL_KEYWORD,
	  "keyword 'hostbits': not supported (host variables" },
	{ "alert tcp any any -> any any (frobnicate:1; sid:1;)", MK_DETECT_FAIL_KEYWORD,
	  "keyword 'frobnicate': unknown keyword" },
	{ "alert tcp any any -> any any (pcre:\"/(?P<pkt_x>a)/\"; sid:1;)", MK_DETECT_FAIL_KEYWORD,
	  "captures into variables" },
	{ "alert tcp any any -> any any (byte_test:4,=,1,0,dce; sid:1;)", MK_DETECT_FAIL_KEYWORD,
	  "'dce' needs the DCERPC parser" },
	/* header */
	{ "log tcp any any -> any any (sid:1;)", MK_DETECT_FAIL_SYNTAX,
	  "action 'log' is not one of" },
	{ "alert nfs any any -> any any (sid:1;)", MK_DETECT_FAIL_PROTOCOL,
	  "protocol 'nfs' not supported (app-layer" },
	{ "alert foo any any -> any any (sid:1;)", MK_DETECT_FAIL_PROTOCOL,
	  "unknown protocol 'foo'" },
	{ "alert tcp any any <- any any (sid:1;)", MK_DETECT_FAIL_SYNTAX, "direction '<-'" },
	{ "alert tcp any any -> any (sid:1;)", MK_DETECT_FAIL_SYNTAX, "rule header is incomplete" },
	{ "alert tcp any any -> any any sid:1;", MK_DETECT_FAIL_SYNTAX, "missing '('" },
	{ "alert tcp any any -> any any (sid:1;", MK_DETECT_FAIL_SYNTAX, "does not end with ')'" },
	{ "alert tcp $NOPE any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "source address: address variable $NOPE is not defined" },
	{ "alert tcp $LOOP_A any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "too deep (a loop?)" },
	{ "alert tcp 1.2.3.999 any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "'1.2.3.999' is not an address" },
	{ "alert tcp 1.2.3.4/33 any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "bad IPv4 prefix length" },
	{ "alert tcp !any any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "'!any' matches nothing" },
	{ "alert tcp [1.2.3.4,!1.2.3.4] any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "matches nothing" },
	{ "alert tcp [1.2.3.4 any -> any any (sid:1;)", MK_DETECT_FAIL_SYNTAX,
	  "rule header is incomplete" },
	{ "alert tcp [1.2.3.4]] any -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "unexpected ']'" },
	{ "alert tcp any 70000 -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS, "port above 65535" },
	{ "alert tcp any 90:80 -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "port range 90:80 is reversed" },
	{ "alert tcp any any -> any $NOPORT (sid:1;)", MK_DETECT_FAIL_ADDRESS,
	  "port variable $NOPORT is not defined" },
	{ "alert tcp any [80,!80] -> any any (sid:1;)", MK_DETECT_FAIL_ADDRESS, "matches nothing" },
	/* values */
	{ "alert tcp any any -> any any (pcre:\"/a(/\"; sid:1;)", MK_DETECT_FAIL_PCRE,
	  "keyword 'pcre': at offset 2:" },
	{ "alert tcp any any -> any any (pcre:\"abc\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "expected \"/regex/flags\"" },
	{ "alert tcp any any -> any any (pcre:\"/a/q\"; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "unknown flag 'q'" },
	{ "alert tcp any any -> any any (byte_test:9,=,1,0; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "cannot read more than 8 bytes without 'string'" },
	{ "alert tcp any any -> any any (byte_test:24,=,1,0,string; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not 1-23" },
	{ "alert tcp any any -> any any (byte_test:2,~,1,0; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "unknown operator" },
	{ "alert tcp any any -> any any (byte_jump:2,0,from_beginning,from_end; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "exclude each other" },
	{ "alert tcp any any -> any any (byte_jump:2,0,dce; sid:1;)", MK_DETECT_FAIL_KEYWORD,
	  "'dce' needs the DCERPC parser" },
	{ "alert tcp any any -> any any (byte_jump:0,0,string,dec; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "'string' needs at least one byte to read" },
	{ "alert tcp any any -> any any (byte_test:0,=,1,0; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not 1-23" },
	{ "alert tcp any any -> any any (byte_jump:9,0; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "cannot read more than 8 bytes without 'string'" },
	{ "alert tcp any any -> any any (byte_extract:2,0,v; byte_extract:2,2,v; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "variable 'v' defined twice" },
	{ "alert tcp any any -> any any (content:\"a\"; depth:nosuch; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "not a number nor a byte_extract variable" },
	{ "alert tcp any any -> any any (isdataat:abc; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "not a number 0-65535 nor a byte_extract variable" },
	{ "alert tcp any any -> any any (flow:established,not_established; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "established excludes" },
	{ "alert tcp any any -> any any (flow:to_server,to_client; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "exclude each other" },
	{ "alert tcp any any -> any any (flow:sideways; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "unknown option 'sideways'" },
	{ "alert tcp any any -> any any (flow:only_stream; dsize:3; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "only_stream cannot be combined" },
	{ "alert tcp any any -> any any (flags:SX; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not [+*!]FSRPAUCE" },
	{ "alert tcp any any -> any any (flags:+*S; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not [+*!]FSRPAUCE" },
	{ "alert udp any any -> any any (flags:S; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "flags and stream_size need a tcp or ip rule" },
	{ "alert tcp any any -> any any (itype:8; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "need an icmp or ip rule" },
	{ "alert tcp any any -> any any (dsize:10<>11; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not N, <N" },
	{ "alert tcp any any -> any any (dsize:70000; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not N, <N" },
	{ "alert tcp any any -> any any (ttl:300; sid:1;)", MK_DETECT_FAIL_VALUE, "(0-255)" },
	{ "alert tcp any any -> any any (stream_size:up,>,5; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "expected 'server|client|both|either" },
	{ "alert tcp any any -> any any (flowbits:sett,a; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "is not set, unset, toggle" },
	{ "alert tcp any any -> any any (flowbits:set,a|b; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "'|' only with isset or isnotset" },
	{ "alert tcp any any -> any any (flowint:c,+; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "isset and notset take no value" },
	{ "alert tcp any any -> any any (threshold:type limit,count 1,seconds 60; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "needs type, track, count and seconds" },
	{ "alert tcp any any -> any any (threshold:type every,track by_src,count 1,seconds 1; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "bad value 'every' for 'type'" },
	{ "alert tcp any any -> any any (threshold:type limit,track by_src,count 1,seconds 1; "
	  "detection_filter:track by_src,count 1,seconds 1; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "one threshold or one detection_filter" },
	{ "alert tcp any any -> any any (classtype:no-such-class; sid:1;)",
	  MK_DETECT_FAIL_CLASSTYPE, "'no-such-class' is not in classification.config" },
	{ "alert tcp any any -> any any (reference:osvdb,123; sid:1;)", MK_DETECT_FAIL_REFERENCE,
	  "type 'osvdb' is not in reference.config" },
	{ "alert tcp any any -> any any (reference:url; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "expected 'type,value'" },
	{ "alert tcp any any -> any any (target:both; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "expected src_ip or dest_ip" },
	{ "alert tcp any any -> any any (priority:0; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "not a priority 1-255" },
	{ "alert tcp any any -> any any (noalert:1; sid:1;)", MK_DETECT_FAIL_VALUE,
	  "takes no value" },
	{ "alert tcp any any -> any any (content; sid:1;)", MK_DETECT_FAIL_VALUE, "needs a value" },
	{ "alert tcp any any -> any any (sid:1;; msg:\"x\";)", MK_DETECT_FAIL_SYNTAX,
	  "empty option" },
	{ "alert tcp-stream any any -> any any (flow:no_stream; content:\"x\"; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "no_stream cannot be used in a tcp-stream rule" },
	{ "alert tcp-stream any any -> any any (flags:S; content:\"x\"; sid:1;)",
	  MK_DETECT_FAIL_VALUE, "cannot use packet keywords" },
};

Test(rule_parse, rejections_name_the_reason)
{
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(rejects); i++) {
		const char *err;
		int reason;
		struct mk_rule *r = rule_parse(rejects[i].rule, &err, &reason);

		cr_assert_null(r, "should be rejected: %s", rejects[i].rule);
		cr_assert(strstr(err, rejects[i].text),
			  "rule: %s\n  error: '%s'\n  expected text: '%s'", rejects[i].rule, err,
			  rejects[i].text);
		cr_assert_eq(reason, rejects[i].reason, "rule: %s\n  reason %s, expected %s",
			     rejects[i].rule, mk_detect_fail_names[reason],
			     mk_detect_fail_names[rejects[i].reason]);
	}
}

Test(rule_parse, truncations_never_crash)
{
	static const char *const good[] = {
		"alert tcp $HOME_NET any -> $EXTERNAL_NET $HTTP_PORTS (msg:\"a\\;b\"; "
		"flow:established,to_server; "
		"content:\"GET|20|\"; depth:4; content:\"/x\"; distance:0; within:20; "
		"pcre:\"/x+y/iR\"; "
		"byte_test:2,>,5,0,relative; byte_jump:1,0,relative; isdataat:2,relative; "
		"flowbits:set,b; threshold:type limit,track by_src,count 1,seconds 5; sid:2; rev:1;)",
	};
	char buf[1024];
	size_t i, n;

	/* every prefix of a valid rule is rejected (or, once complete, accepted) without a crash */
	for (i = 0; i < MK_ARRAY_SIZE(good); i++) {
		n = strlen(good[i]);
		for (size_t k = 0; k <= n; k++) {
			struct mk_rule *r;

			memcpy(buf, good[i], k);
			buf[k] = '\0';
			r = rule_parse(buf, NULL, NULL);
			cr_assert(k == n ? r != NULL : r == NULL, "prefix %zu of %zu", k, n);
			mk_rule_free(r);
		}
	}
}

Test(rule_parse, keyword_table_names_are_unique)
{
	unsigned int i, k;

	for (i = 0; i < mk_nkeywords; i++) {
		cr_assert_not_null(mk_keywords[i]->setup);
		cr_assert_not_null(mk_keywords[i]->doc);
		cr_assert_eq(mk_kw_lookup(mk_keywords[i]->name), mk_keywords[i]);
		cr_assert_null(mk_kw_unsupported(mk_keywords[i]->name), "%s both supported and not",
			       mk_keywords[i]->name);
		for (k = i + 1; k < mk_nkeywords; k++)
			cr_assert_str_neq(mk_keywords[i]->name, mk_keywords[k]->name);
		if (mk_keywords[i]->type == MK_KWT_MATCH)
			cr_assert_not_null(mk_keywords[i]->match, "%s", mk_keywords[i]->name);
	}
}
