// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for base64_decode (userspace/detect/kw/base64.c and its
 * inspection in match/payload.c): the first two bytes pick the output room
 * (0 to 65535 bytes), the rest is the encoded text, in an exact-size copy.
 * The decoder never writes past its room nor reads past the text, gives the
 * same bytes twice, uses no more text than it has and gives at most 3 bytes
 * per 4 characters used (plus a last partial group); on text of whole groups
 * of the alphabet alone, with room, it decodes all of it. The same bytes then
 * go through a base64_decode rule's payload inspection.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detect_int.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int alphabet(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/';
}

static struct mk_detect_thread *thread_get(struct mk_rule **r)
{
	static struct mk_detect_engine *e;
	static struct mk_detect_thread *t;
	static struct mk_parse_env env;
	static struct mk_rule *rule;
	struct mk_detect_cfg cfg = { 0 };
	char err[256];
	int reason;
	uint32_t sid;

	if (!t) {
		env.cfg = &cfg;
		if (mk_detect_engine_build(&cfg, NULL, &e) || mk_detect_thread_new_engine(e, &t))
			abort();
		if (mk_rule_parse(&env,
				  "alert tcp any any -> any any (content:\"=\"; "
				  "base64_decode:relative, bytes 100; base64_data; "
				  "content:\"ab\"; byte_extract:1,0,v,relative; "
				  "isdataat:v,relative; sid:1;)",
				  "f", 1, &rule, err, sizeof(err), &reason, &sid))
			abort();
		env.cfg = NULL;
	}
	*r = rule;
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor cur = { data, data + size };
	uint32_t cap = take16(&cur), len, n1, n2, used1, used2, i;
	uint8_t *in, *o1, *o2;
	struct mk_rule *r;
	struct mk_insp insp = { 0 };
	int whole = 1;

	len = (uint32_t)(cur.end - cur.p);
	if (len > 1 << 17)
		return 0;
	in = malloc(len ? len : 1);
	o1 = malloc(cap ? cap : 1);
	o2 = malloc(cap ? cap : 1);
	if (!in || !o1 || !o2)
		abort();
	memcpy(in, cur.p, len);
	n1 = mk_base64_decode(in, len, o1, cap, &used1);
	n2 = mk_base64_decode(in, len, o2, cap, &used2);
	CHECK(n1 == n2 && used1 == used2 && (!n1 || !memcmp(o1, o2, n1)));
	CHECK(n1 <= cap && used1 <= len);
	CHECK(n1 <= used1 / 4 * 3 + 2);
	for (i = 0; i < len; i++)
		whole &= alphabet(in[i]);
	if (whole && len % 4 == 0 && cap >= len / 4 * 3)
		CHECK(n1 == len / 4 * 3 && used1 == len);
	insp.t = thread_get(&r);
	insp.buf = in;
	insp.len = len;
	(void)mk_payload_inspect(&insp, r);
	free(in);
	free(o1);
	free(o2);
	return 0;
}
