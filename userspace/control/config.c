// SPDX-License-Identifier: GPL-2.0-only
/* Configuration file parser: a table of keys, one typed field each. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "log.h"

enum key_type {
	KEY_U32,
	KEY_U64,
	KEY_U8,
	KEY_BOOL,
	KEY_L2SPEC,
	KEY_CIDR,
	KEY_SECONDS_NS,	   /* seconds in the file, nanoseconds in the field */
	KEY_STREAM_POLICY, /* first | last */
	KEY_DEFRAG_POLICY, /* bsd | first | last | reject */
};

struct key_desc {
	const char *name;
	enum key_type type;
	size_t off;
	uint64_t min, max;
};

#define F(field) offsetof(struct mk_config, field)
#define TO(proto, pname, state, sname)                                                              \
	{ "flow.timeout." pname "." sname, KEY_U32, F(flow.timeout[proto][state]), 0, 86400 },     \
	{ "flow.emergency-timeout." pname "." sname, KEY_U32,                                      \
	  F(flow.emerg_timeout[proto][state]), 0, 86400 }
#define TO_PROTO(proto, pname)                                                                     \
	TO(proto, pname, MK_FLOW_STATE_NEW, "new"), TO(proto, pname, MK_FLOW_STATE_ESTABLISHED, "established"), \
	TO(proto, pname, MK_FLOW_STATE_CLOSED, "closed")

static const struct key_desc keys[] = {
	{ "flow.max-flows", KEY_U32, F(flow.max_flows), 1, 1u << 28 },
	{ "flow.hash-size", KEY_U32, F(flow.hash_size), 1, 1u << 30 },
	{ "flow.memcap", KEY_U64, F(flow.memcap), 0, UINT64_MAX },
	{ "flow.emergency-recovery", KEY_U32, F(flow.emergency_recovery), 1, 100 },
	TO_PROTO(MK_FLOW_PROTO_TCP, "tcp"),
	TO_PROTO(MK_FLOW_PROTO_UDP, "udp"),
	TO_PROTO(MK_FLOW_PROTO_ICMP, "icmp"),
	TO_PROTO(MK_FLOW_PROTO_DEFAULT, "default"),
	{ "tunnel.depth", KEY_U8, F(parse.tunnel_depth), 0, MK_TUNNEL_DEPTH_MAX },
	{ "tunnel.l2tpv3-cookie-len", KEY_U8, F(parse.l2tpv3_cookie_len), 0, 8 },
	{ "tunnel.l2tpv3-l2spec", KEY_L2SPEC, F(parse.l2tpv3_l2spec), 0, 1 },
	{ "stream.memcap", KEY_U64, F(stream.memcap), 1 << 20, UINT64_MAX },
	{ "stream.depth", KEY_U64, F(stream.depth), 0, UINT32_MAX },
	{ "stream.midstream", KEY_BOOL, F(stream.midstream), 0, 1 },
	{ "stream.overlap-policy", KEY_STREAM_POLICY, F(stream.overlap_policy), 0, 0 },
	{ "stream.max-ooo-segs", KEY_U32, F(stream.max_ooo_segs), 0, 1u << 24 },
	{ "defrag.memcap", KEY_U64, F(defrag.memcap), 1 << 16, UINT64_MAX },
	{ "defrag.max-frags", KEY_U32, F(defrag.max_frags), 1, 65535 },
	{ "defrag.max-trackers", KEY_U32, F(defrag.max_trackers), 1, 1u << 20 },
	{ "defrag.timeout", KEY_SECONDS_NS, F(defrag.timeout_ns), 1, 3600 },
	{ "defrag.policy", KEY_DEFRAG_POLICY, F(defrag.policy), 0, 0 },
	{ "bypass.cidr", KEY_CIDR, 0, 0, 0 },
};

void mk_config_defaults(struct mk_config *c)
{
	memset(c, 0, sizeof(*c));
	mk_capture_cfg_defaults(&c->capture);
	mk_flow_cfg_defaults(&c->flow);
	c->parse.tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT;
	c->parse.l2tpv3_l2spec = MK_L2SPEC_NONE;
	mk_stream_cfg_default(&c->stream);
	mk_defrag_config_default(&c->defrag);
}

void mk_config_free(struct mk_config *c)
{
	free(c->bypass);
	c->bypass = NULL;
	c->nbypass = 0;
}

int mk_cidr_parse(const char *s, struct mk_cidr *out)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long prefix;
	unsigned int i, maxbits;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	memset(out, 0, sizeof(*out));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, buf, out->addr) == 1) {
		out->family = MK_FAMILY_IPV4;
		maxbits = 32;
	} else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
		out->family = MK_FAMILY_IPV6;
		maxbits = 128;
	} else {
		return -EINVAL;
	}
	prefix = maxbits;
	if (slash) {
		errno = 0;
		prefix = strtoul(slash, &end, 10);
		if (errno || *end || end == slash || prefix > maxbits)
			return -EINVAL;
	}
	out->prefix = (uint8_t)prefix;
	/* clear host bits so matching is a masked compare */
	for (i = 0; i < 4; i++) {
		uint32_t bits = prefix > i * 32 ? (uint32_t)(prefix - i * 32) : 0;
		uint32_t mask = bits >= 32 ? 0xffffffffu : bits ? ~(0xffffffffu >> bits) : 0;

		out->addr[i] &= htonl(mask);
	}
	return 0;
}

int mk_config_bypassed(const struct mk_config *c, uint8_t family, const uint32_t *addr)
{
	unsigned int n, i;

	for (n = 0; n < c->nbypass; n++) {
		const struct mk_cidr *r = &c->bypass[n];
		int hit = r->family == family;

		for (i = 0; hit && i < 4; i++) {
			uint32_t bits = r->prefix > i * 32 ? (uint32_t)(r->prefix - i * 32) : 0;
			uint32_t mask = bits >= 32 ? 0xffffffffu : bits ? ~(0xffffffffu >> bits) : 0;

			hit = (addr[i] & htonl(mask)) == r->addr[i];
		}
		if (hit)
			return 1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int set_value(struct mk_config *c, const struct key_desc *k, const char *v)
{
	char *base = (char *)c + k->off, *end;
	unsigned long long n;
	struct mk_cidr cidr, *nb;
	unsigned int shift = 0;

	switch (k->type) {
	case KEY_BOOL:
		if (!strcmp(v, "yes") || !strcmp(v, "true"))
			*(uint8_t *)base = 1;
		else if (!strcmp(v, "no") || !strcmp(v, "false"))
			*(uint8_t *)base = 0;
		else
			return -EINVAL;
		return 0;
	case KEY_L2SPEC:
		if (!strcmp(v, "none"))
			*(uint8_t *)base = MK_L2SPEC_NONE;
		else if (!strcmp(v, "default"))
			*(uint8_t *)base = MK_L2SPEC_DEFAULT;
		else
			return -EINVAL;
		return 0;
	case KEY_STREAM_POLICY: {
		int pol = mk_stream_overlap_policy_parse(v);

		if (pol < 0)
			return -EINVAL;
		*(__u8 *)base = (__u8)pol;
		return 0;
	}
	case KEY_DEFRAG_POLICY:
		return mk_defrag_policy_parse(v, (enum mk_defrag_policy *)base) ? -EINVAL : 0;
	case KEY_CIDR:
		if (mk_cidr_parse(v, &cidr))
			return -EINVAL;
		nb = realloc(c->bypass, (c->nbypass + 1) * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		c->bypass = nb;
		c->bypass[c->nbypass++] = cidr;
		return 0;
	default:
		break;
	}
	if (!isdigit((unsigned char)*v))
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 0);
	/* size suffixes for memcaps: 64mb, 1gb */
	if (!strcasecmp(end, "kb"))
		shift = 10, end += 2;
	else if (!strcasecmp(end, "mb"))
		shift = 20, end += 2;
	else if (!strcasecmp(end, "gb"))
		shift = 30, end += 2;
	/* a suffix must not wrap the value back into range */
	if (n > UINT64_MAX >> shift)
		return -ERANGE;
	n <<= shift;
	if (errno || *end || n < k->min || n > k->max)
		return -ERANGE;
	/* the parser skips the cookie as 0, 4 or 8 bytes (RFC 3931) */
	if (k->off == F(parse.l2tpv3_cookie_len) && n != 0 && n != 4 && n != 8)
		return -EDOM;
	if (k->type == KEY_SECONDS_NS)
		*(uint64_t *)base = n * 1000000000ull;
	else if (k->type == KEY_U32)
		*(uint32_t *)base = (uint32_t)n;
	else if (k->type == KEY_U64)
		*(uint64_t *)base = n;
	else
		*(uint8_t *)base = (uint8_t)n;
	return 0;
}

/* Parses every line of @f; @path names it in the error messages. */
static int config_parse(struct mk_config *c, FILE *f, const char *path)
{
	char line[512];
	unsigned int lineno = 0, i;
	int err = 0;

	while (fgets(line, sizeof(line), f)) {
		char *s, *colon, *key, *val, *hash;
		const struct key_desc *k = NULL;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			mk_err("%s:%u: line too long", path, lineno);
			err = -EINVAL;
			goto out;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		colon = strchr(s, ':');
		/* IPv6 values contain ':', keys never do: split at the first one */
		if (!colon) {
			mk_err("%s:%u: expected `key: value`", path, lineno);
			err = -EINVAL;
			goto out;
		}
		*colon = '\0';
		key = trim(s);
		val = trim(colon + 1);
		for (i = 0; i < MK_ARRAY_SIZE(keys); i++) {
			if (!strcmp(keys[i].name, key)) {
				k = &keys[i];
				break;
			}
		}
		if (!k) {
			mk_err("%s:%u: unknown key '%s'", path, lineno, key);
			err = -EINVAL;
			goto out;
		}
		err = set_value(c, k, val);
		if (err == -EDOM) {
			mk_err("%s:%u: key '%s': '%s' must be 0, 4 or 8", path, lineno, key, val);
		} else if (err) {
			if (k->type == KEY_U32 || k->type == KEY_U64 || k->type == KEY_U8 ||
			    k->type == KEY_SECONDS_NS)
				mk_err("%s:%u: key '%s': '%s' is not a number in [%llu, %llu]", path, lineno,
				       key, val, (unsigned long long)k->min, (unsigned long long)k->max);
			else
				mk_err("%s:%u: key '%s': invalid value '%s'", path, lineno, key, val);
		}
		if (err)
			goto out;
	}
	if (ferror(f)) {
		err = -EIO;
		mk_err("%s: read error", path);
	}
out:
	return err;
}

int mk_config_load(struct mk_config *c, const char *path)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f) {
		err = -errno;
		mk_err("%s: %s", path, strerror(-err));
		return err;
	}
	err = config_parse(c, f, path);
	fclose(f);
	return err;
}

int mk_config_load_buf(struct mk_config *c, const char *buf, size_t len, const char *name)
{
	FILE *f;
	int err;

	if (!len)
		return 0; /* an empty file sets nothing (glibc < 2.22 fmemopen refuses size 0) */
	f = fmemopen((void *)buf, len, "r");
	if (!f) {
		err = -errno;
		mk_err("%s: %s", name, strerror(-err));
		return err;
	}
	err = config_parse(c, f, name);
	fclose(f);
	return err;
}
