// SPDX-License-Identifier: GPL-2.0-only
/*
 * EVE `alert` records in Suricata's shape: timestamp, flow_id, in_iface,
 * event_type, vlan, src/dest, proto, icmp type/code, tunnel, alert {action,
 * gid, signature_id, rev, signature, category, severity, source/target,
 * metadata}, flow {pkts and bytes both ways, start}, payload (base64),
 * payload_printable, stream.
 *
 * Every string that comes from a rule or a packet goes through
 * mk_json_escape() (json.h), so every line is valid JSON whatever the rule
 * file or the traffic hold. The rule's part is escaped once, at load: this
 * file registers mk_eve_rule_prepare() as a detection rule hook.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "community_id.h"
#include "detect.h"
#include "eve.h"
#include "eve_alert.h"
#include "dns.h"
#include "eve_dns.h"
#include "eve_http.h"
#include "eve_tls.h"
#include "tls.h"
#include "json.h"

struct sbuf {
	char *p;
	size_t size, len;
	int overflow;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->p + sb->len, sb->size - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sb->size - sb->len)
		sb->overflow = 1;
	else
		sb->len += (size_t)n;
}

static void sb_mem(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->overflow || sb->len + n >= sb->size) {
		sb->overflow = 1;
		return;
	}
	memcpy(sb->p + sb->len, s, n);
	sb->len += n;
	sb->p[sb->len] = '\0';
}

/* A quoted, escaped JSON string. */
static void sb_str(struct sbuf *sb, const void *s, size_t n)
{
	int w;

	sb_mem(sb, "\"", 1);
	if (sb->overflow)
		return;
	w = mk_json_escape(sb->p + sb->len, sb->size - sb->len, s, n);
	if (w < 0) {
		sb->overflow = 1;
		return;
	}
	sb->len += (size_t)w;
	sb_mem(sb, "\"", 1);
}

static void sb_cstr(struct sbuf *sb, const char *s)
{
	sb_str(sb, s, strlen(s));
}

static void sb_base64(struct sbuf *sb, const uint8_t *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	if (sb->overflow || sb->len + (n + 2) / 3 * 4 + 2 >= sb->size) {
		sb->overflow = 1;
		return;
	}
	sb->p[sb->len++] = '"';
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		sb->p[sb->len++] = tab[v >> 18];
		sb->p[sb->len++] = tab[(v >> 12) & 63];
		sb->p[sb->len++] = tab[(v >> 6) & 63];
		sb->p[sb->len++] = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		sb->p[sb->len++] = tab[v >> 18];
		sb->p[sb->len++] = tab[(v >> 12) & 63];
		sb->p[sb->len++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		sb->p[sb->len++] = '=';
	}
	sb->p[sb->len++] = '"';
	sb->p[sb->len] = '\0';
}

/* Suricata's payload_printable: printable ASCII, CR and LF kept, the rest '.'. */
static void sb_printable(struct sbuf *sb, const uint8_t *p, size_t n)
{
	size_t i;

	sb_mem(sb, "\"", 1);
	for (i = 0; i < n && !sb->overflow; i++) {
		uint8_t c = p[i];

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			sb_mem(sb, e, 2);
		} else if (c == '\n') {
			sb_mem(sb, "\\n", 2);
		} else if (c == '\r') {
			sb_mem(sb, "\\r", 2);
		} else {
			char ch = c >= 0x20 && c < 0x7f ? (char)c : '.';

			sb_mem(sb, &ch, 1);
		}
	}
	sb_mem(sb, "\"", 1);
}

int mk_eve_rule_prepare(struct mk_rule *r)
{
	struct mk_detect_rule_info ri;
	size_t size = 256, i, k;
	struct sbuf sb;
	char *buf;

	mk_detect_rule_info(r, &ri);
	size += strlen(ri.msg) * 6;
	size += strlen(ri.category) * 6;
	for (i = 0; i < ri.nmeta; i++)
		size += (strlen(ri.meta[i].key) + strlen(ri.meta[i].value)) * 6 + 8;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	sb = (struct sbuf){ .p = buf, .size = size };
	sb_printf(&sb, "\"gid\":%u,\"signature_id\":%u,\"rev\":%u,\"signature\":", ri.gid, ri.sid,
		  ri.rev);
	sb_cstr(&sb, ri.msg);
	sb_printf(&sb, ",\"category\":");
	sb_cstr(&sb, ri.category);
	sb_printf(&sb, ",\"severity\":%d", ri.severity);
	if (ri.nmeta) {
		/* Suricata groups values by key, keys in order of first appearance */
		sb_printf(&sb, ",\"metadata\":{");
		for (i = 0; i < ri.nmeta; i++) {
			int first_of_key = 1, first = 1;

			for (k = 0; k < i; k++)
				if (!strcmp(ri.meta[k].key, ri.meta[i].key))
					first_of_key = 0;
			if (!first_of_key)
				continue;
			if (i)
				sb_mem(&sb, ",", 1);
			sb_cstr(&sb, ri.meta[i].key);
			sb_mem(&sb, ":[", 2);
			for (k = i; k < ri.nmeta; k++) {
				if (strcmp(ri.meta[k].key, ri.meta[i].key))
					continue;
				if (!first)
					sb_mem(&sb, ",", 1);
				first = 0;
				sb_cstr(&sb, ri.meta[k].value);
			}
			sb_mem(&sb, "]", 1);
		}
		sb_mem(&sb, "}", 1);
	}
	if (sb.overflow) {
		free(buf);
		return -ENOMEM;
	}
	mk_detect_rule_set_render(r, buf, (uint32_t)sb.len);
	return 0;
}

/*
 * Every program that renders alerts links this file, so the hook is in
 * place before its first engine build.
 */
__attribute__((constructor)) static void eve_alert_register(void)
{
	mk_detect_rule_hook_add(mk_eve_rule_prepare);
}

static void addr_str(char *out, size_t size, int family, const uint32_t *a)
{
	if (!inet_ntop(family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, a, out, (socklen_t)size))
		snprintf(out, size, "?");
}

static const char *proto_name(uint8_t proto, char *tmp, size_t size)
{
	switch (proto) {
	case MK_IPPROTO_TCP:
		return "TCP";
	case MK_IPPROTO_UDP:
		return "UDP";
	case MK_IPPROTO_ICMP:
		return "ICMP";
	case MK_IPPROTO_ICMPV6:
		return "IPv6-ICMP";
	case MK_IPPROTO_SCTP:
		return "SCTP";
	default:
		snprintf(tmp, size, "%u", proto);
		return tmp;
	}
}

size_t mk_eve_alert_maxlen(const struct mk_detect_alert *a, const struct mk_eve_alert_opts *o)
{
	struct mk_detect_rule_info ri = { 0 };
	size_t n;

	if (a->rule)
		mk_detect_rule_info(a->rule, &ri);
	n = 2048 + ri.render_len;
	if (o && o->in_iface)
		n += strlen(o->in_iface) * 6;
	if (o && o->payload)
		n += (a->payload_len + 2) / 3 * 4 + 16;
	if (o && o->payload_printable)
		n += (size_t)a->payload_len * 2 + 32;
	if (o && o->http)
		n += mk_eve_http_maxlen(o->http);
	if (o && o->dns)
		n += mk_eve_dns_alert_maxlen(o->dns->m);
	if (o && o->tls)
		n += mk_eve_tls_maxlen(o->tls);
	return n;
}

int mk_eve_alert(char *buf, size_t size, const struct mk_detect_alert *a,
		 const struct mk_eve_alert_opts *o)
{
	static const struct mk_eve_alert_opts none;
	struct sbuf sb = { .p = buf, .size = size };
	struct mk_detect_rule_info ri = { 0 };
	char ts[MK_EVE_TS_LEN], sa[64], da[64], tmp[8];

	if (!size)
		return -ENOSPC;
	buf[0] = '\0';
	if (!o)
		o = &none;
	if (a->rule)
		mk_detect_rule_info(a->rule, &ri);
	mk_eve_ts(ts, a->ts_us);
	addr_str(sa, sizeof(sa), a->family, a->src);
	addr_str(da, sizeof(da), a->family, a->dst);
	sb_printf(&sb, "{\"timestamp\":\"%s\"", ts);
	if (a->flow_id)
		sb_printf(&sb, ",\"flow_id\":%llu", (unsigned long long)a->flow_id);
	if (o->in_iface) {
		sb_printf(&sb, ",\"in_iface\":");
		sb_cstr(&sb, o->in_iface);
	}
	sb_printf(&sb, ",\"event_type\":\"alert\"");
	if (a->vlan[0]) {
		sb_printf(&sb, ",\"vlan\":[%u", a->vlan[0]);
		if (a->vlan[1])
			sb_printf(&sb, ",%u", a->vlan[1]);
		sb_printf(&sb, "]");
	}
	sb_printf(&sb, ",\"src_ip\":\"%s\"", sa);
	if (a->has_ports)
		sb_printf(&sb, ",\"src_port\":%u", a->sport);
	sb_printf(&sb, ",\"dest_ip\":\"%s\"", da);
	if (a->has_ports)
		sb_printf(&sb, ",\"dest_port\":%u", a->dport);
	sb_printf(&sb, ",\"proto\":\"%s\"", proto_name(a->proto, tmp, sizeof(tmp)));
	if (a->has_icmp)
		sb_printf(&sb, ",\"icmp_type\":%u,\"icmp_code\":%u", a->icmp_type, a->icmp_code);
	if (a->has_tx)
		sb_printf(&sb, ",\"tx_id\":%llu", (unsigned long long)a->tx_id);
	if (o->community_id) {
		char cid[MK_COMMUNITY_ID_LEN];

		/* the flow's, as Suricata's: an ICMP error's alert has the quoted flow's */
		if (a->has_flow_tuple)
			mk_community_id(cid, o->community_id_seed, a->flow_family, a->flow_src,
					a->flow_dst, a->flow_proto, a->flow_sport, a->flow_dport);
		else
			mk_community_id(cid, o->community_id_seed, a->family, a->src, a->dst,
					a->proto, a->has_icmp ? a->icmp_type : a->sport,
					a->has_icmp ? a->icmp_code : a->dport);
		sb_printf(&sb, ",\"community_id\":\"%s\"", cid);
	}
	if (a->tunnel_depth) {
		char t[MK_EVE_TUNNEL_MAX];
		int n = mk_eve_tunnel(t, sizeof(t), a->tunnel_type, a->tunnel_id, a->tunnel_depth,
				      a->outer_family, a->outer_src, a->outer_dst);

		if (n < 0)
			return n;
		sb_printf(&sb, ",%.*s", n, t);
	}
	sb_printf(&sb, ",\"alert\":{\"action\":\"%s\",", a->blocked ? "blocked" : "allowed");
	if (ri.render)
		sb_mem(&sb, ri.render, ri.render_len);
	else
		sb_printf(&sb, "\"gid\":0,\"signature_id\":0,\"rev\":0,\"signature\":\"\","
			       "\"category\":\"\",\"severity\":3");
	if (ri.target != MK_TARGET_NONE) {
		int tsrc = ri.target == MK_TARGET_SRC;
		char s2[64], d2[64];

		addr_str(s2, sizeof(s2), a->family, a->src);
		addr_str(d2, sizeof(d2), a->family, a->dst);
		sb_printf(&sb, ",\"source\":{\"ip\":\"%s\"", tsrc ? d2 : s2);
		if (a->has_ports)
			sb_printf(&sb, ",\"port\":%u", tsrc ? a->dport : a->sport);
		sb_printf(&sb, "},\"target\":{\"ip\":\"%s\"", tsrc ? s2 : d2);
		if (a->has_ports)
			sb_printf(&sb, ",\"port\":%u", tsrc ? a->sport : a->dport);
		sb_printf(&sb, "}");
	}
	sb_printf(&sb, "}");
	/* the transaction's object: http, dns or tls, each by its record's writer */
	if ((o->http || o->dns || o->tls) && !sb.overflow) {
		size_t room;
		int n;

		sb_mem(&sb, ",", 1);
		room = sb.overflow ? 0 : sb.size - sb.len - 1;
		if (sb.overflow)
			n = -ENOSPC;
		else if (o->http)
			n = mk_eve_http_object(sb.p + sb.len, room, o->http);
		else if (o->dns)
			n = mk_eve_dns_alert_object(sb.p + sb.len, room, o->dns->m, o->dns->tx_id);
		else
			n = mk_eve_tls_object(sb.p + sb.len, room, o->tls);
		if (n < 0)
			return -ENOSPC;
		sb.len += (size_t)n;
		sb.p[sb.len] = '\0';
	}
	if (o->app_proto)
		sb_printf(&sb, ",\"app_proto\":\"%s\"", o->app_proto);
	if (a->flow_id) {
		mk_eve_ts(ts, a->flow_start_us);
		sb_printf(&sb,
			  ",\"flow\":{\"pkts_toserver\":%llu,\"pkts_toclient\":%llu,"
			  "\"bytes_toserver\":%llu,\"bytes_toclient\":%llu,\"start\":\"%s\"}",
			  (unsigned long long)a->pkts[0], (unsigned long long)a->pkts[1],
			  (unsigned long long)a->bytes[0], (unsigned long long)a->bytes[1], ts);
	}
	if (o->payload && a->payload_len) {
		sb_printf(&sb, ",\"payload\":");
		sb_base64(&sb, a->payload, a->payload_len);
	}
	if (o->payload_printable && a->payload_len) {
		sb_printf(&sb, ",\"payload_printable\":");
		sb_printable(&sb, a->payload, a->payload_len);
	}
	sb_printf(&sb, ",\"stream\":%u}", a->stream ? 1 : 0);
	if (sb.overflow)
		return -ENOSPC;
	return (int)sb.len;
}
