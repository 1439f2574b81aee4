// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for EVE alert records (userspace/output/eve_alert.c):
 * a rule whose msg, category, metadata keys and values, and an alert whose
 * interface name, payload, addresses, ports, VLANs and tunnel come from the
 * input. Every record must parse with jansson, the payload must come back
 * from its base64, and valid UTF-8 strings must come back unchanged.
 *
 * Input: four NUL-separated strings (msg, category, metadata key, metadata
 * value), then the interface name, then a block of alert fields (cursor),
 * then the payload.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "community_id.h"
#include "detect_int.h"
#include "eve_alert.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next NUL-terminated string of the input (a copy), or "" at the end. */
static char *next_str(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
	size_t n = z ? (size_t)(z - *p) : (size_t)(end - *p);
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n + (z ? 1 : 0);
	return s;
}

static int valid_utf8_no_ctl(const char *s)
{
	json_t *j = json_string(s); /* NULL when not valid UTF-8 */
	int ok = j != NULL;

	json_decref(j);
	return ok;
}

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static void check_base64(const char *b64, const uint8_t *want, size_t n)
{
	size_t len = strlen(b64), i, o = 0;
	uint8_t *out = malloc(len / 4 * 3 + 3);

	CHECK(out && len % 4 == 0);
	for (i = 0; i < len; i += 4) {
		int v0 = b64val(b64[i]), v1 = b64val(b64[i + 1]), v2 = b64val(b64[i + 2]),
		    v3 = b64val(b64[i + 3]);

		CHECK(v0 >= 0 && v1 >= 0);
		out[o++] = (uint8_t)(v0 << 2 | v1 >> 4);
		if (b64[i + 2] != '=') {
			CHECK(v2 >= 0);
			out[o++] = (uint8_t)(v1 << 4 | v2 >> 2);
		}
		if (b64[i + 3] != '=') {
			CHECK(v3 >= 0);
			out[o++] = (uint8_t)(v2 << 6 | v3);
		}
	}
	CHECK(o == n && !memcmp(out, want, n));
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct mk_rule r = { .gid = 1, .sid = 42, .rev = 1, .priority = 2 };
	struct mk_class cls = { 0 };
	struct mk_kv meta[2];
	struct mk_detect_alert a = { .rule = &r };
	struct mk_eve_alert_opts o = { .payload = 1, .payload_printable = 1 };
	char *iface, *buf;
	struct cursor c;
	size_t bufsize;
	json_t *j, *al, *cid;
	uint8_t v;
	int n;

	if (size > 1 << 16)
		return 0;
	r.msg = next_str(&p, end);
	cls.desc = next_str(&p, end);
	cls.name = (char *)"fuzz";
	r.cls = &cls;
	meta[0].key = next_str(&p, end);
	meta[0].value = next_str(&p, end);
	meta[1].key = meta[0].key;
	meta[1].value = (char *)"second";
	r.meta = meta;
	r.nmeta = 2;
	iface = next_str(&p, end);
	o.in_iface = *iface ? iface : NULL;
	c.p = p;
	c.end = end;
	a.ts_us = (uint64_t)take32(&c) * 1000003u;
	a.flow_id = take32(&c);
	a.flow_start_us = a.ts_us / 2;
	a.family = take8(&c) & 1 ? MK_FAMILY_IPV6 : MK_FAMILY_IPV4;
	a.proto = take8(&c);
	a.src[0] = take32(&c);
	a.src[3] = take32(&c);
	a.dst[0] = take32(&c);
	a.sport = take16(&c);
	a.dport = take16(&c);
	a.has_ports = take8(&c) & 1;
	v = take8(&c);
	a.stream = v & 1;
	o.community_id = !!(v & 2);
	/* an alert with a flow: its community_id is the flow's tuple's, the other way round */
	if (v & 4) {
		a.has_flow_tuple = 1;
		a.flow_family = a.family;
		a.flow_proto = a.proto;
		memcpy(a.flow_src, a.dst, sizeof(a.flow_src));
		memcpy(a.flow_dst, a.src, sizeof(a.flow_dst));
		a.flow_sport = a.dport;
		a.flow_dport = (uint16_t)(a.sport ^ (v >> 3));
	}
	a.blocked = take8(&c) & 1;
	a.has_icmp = take8(&c) & 1;
	a.icmp_type = take8(&c);
	a.vlan[0] = take16(&c) & 0xfff;
	a.vlan[1] = take16(&c) & 0xfff;
	a.tunnel_depth = take8(&c) & 3;
	a.tunnel_type = take8(&c) % 5;
	a.tunnel_id = take32(&c);
	o.community_id_seed = (uint16_t)a.tunnel_id;
	a.outer_family = take8(&c) & 1 ? MK_FAMILY_IPV6 : MK_FAMILY_IPV4;
	a.pkts[0] = take32(&c);
	a.bytes[1] = take32(&c);
	r.flags = take8(&c) & 1 ? MK_RF_TARGET_DST : 0;
	a.payload = c.p;
	a.payload_len = (uint32_t)(end - c.p);

	CHECK(mk_eve_rule_prepare(&r) == 0);
	bufsize = mk_eve_alert_maxlen(&a, &o);
	buf = malloc(bufsize);
	CHECK(buf != NULL);
	n = mk_eve_alert(buf, bufsize, &a, &o);
	CHECK(n > 0 && (size_t)n < bufsize);
	j = json_loadb(buf, (size_t)n, JSON_ALLOW_NUL, NULL);
	CHECK(j != NULL);
	al = json_object_get(j, "alert");
	CHECK(json_integer_value(json_object_get(al, "signature_id")) == 42);
	if (valid_utf8_no_ctl(r.msg))
		CHECK(!strcmp(json_string_value(json_object_get(al, "signature")), r.msg));
	if (valid_utf8_no_ctl(cls.desc))
		CHECK(!strcmp(json_string_value(json_object_get(al, "category")), cls.desc));
	if (o.in_iface && valid_utf8_no_ctl(iface))
		CHECK(!strcmp(json_string_value(json_object_get(j, "in_iface")), iface));
	if (a.payload_len) {
		check_base64(json_string_value(json_object_get(j, "payload")), a.payload,
			     a.payload_len);
		CHECK(json_string_length(json_object_get(j, "payload_printable")) == a.payload_len);
	}
	cid = json_object_get(j, "community_id");
	CHECK(o.community_id ?
		      json_string_length(cid) == 30 && !strncmp(json_string_value(cid), "1:", 2) :
		      cid == NULL);
	if (o.community_id && a.has_flow_tuple) {
		char want[MK_COMMUNITY_ID_LEN];

		mk_community_id(want, o.community_id_seed, a.flow_family, a.flow_src, a.flow_dst,
				a.flow_proto, a.flow_sport, a.flow_dport);
		CHECK(!strcmp(json_string_value(cid), want));
	}
	/* too small a buffer is refused, never overrun */
	CHECK(mk_eve_alert(buf, (size_t)n, &a, &o) == -ENOSPC);
	json_decref(j);
	free(buf);
	free(r.eve);
	free(r.msg);
	free(cls.desc);
	free(meta[0].key);
	free(meta[0].value);
	free(iface);
	return 0;
}
