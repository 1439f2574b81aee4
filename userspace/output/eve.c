// SPDX-License-Identifier: GPL-2.0-only
/* EVE JSON formatting and the deterministic merge of the workers' records. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "eve.h"

void mk_eve_ts(char *buf, uint64_t ts_us)
{
	time_t sec = (time_t)(ts_us / 1000000);
	struct tm tm;

	size_t n;

	gmtime_r(&sec, &tm);
	n = strftime(buf, MK_EVE_TS_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, MK_EVE_TS_LEN - n, ".%06u+0000", (unsigned int)(ts_us % 1000000));
}

/* Appends to a bounded buffer; remembers overflow instead of failing each call. */
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
		sb->len += n;
}

static void addr_str(char *out, size_t size, int family, const uint32_t *a)
{
	if (!inet_ntop(family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, a, out, size))
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

static const char *tunnel_name(uint8_t type)
{
	switch (type) {
	case MK_TUNNEL_GTPU:
		return "gtpu";
	case MK_TUNNEL_L2TPV2:
		return "l2tpv2";
	case MK_TUNNEL_L2TPV3_IP:
	case MK_TUNNEL_L2TPV3_UDP:
		return "l2tpv3";
	default:
		return "unknown";
	}
}

/* TCP state: the stream engine's when built in, else derived from the flags seen. */
static const char *tcp_state_name(const struct mk_flow *f)
{
	return mk_tcp_state_name(mk_tcp_session_state(&f->tcp));
	if (f->rst_seen || f->fin_seen == 3)
		return "closed";
	if (f->fin_seen)
		return "fin_wait1";
	if (f->state == MK_FLOW_STATE_ESTABLISHED)
		return "established";
	if (f->tcp_flags[1] & MK_TCP_SYN)
		return "syn_recv";
	if (f->tcp_flags[0] & MK_TCP_SYN)
		return "syn_sent";
	return "none";
}

static int has_ports(uint8_t proto)
{
	return proto == MK_IPPROTO_TCP || proto == MK_IPPROTO_UDP || proto == MK_IPPROTO_SCTP;
}

int mk_eve_flow(char *buf, size_t size, const struct mk_flow *f, enum mk_flow_reason reason)
{
	struct sbuf sb = { .p = buf, .size = size };
	const struct mk_flow_key *k = &f->key;
	const uint32_t *src = f->client_hi ? k->addr_hi : k->addr_lo;
	const uint32_t *dst = f->client_hi ? k->addr_lo : k->addr_hi;
	uint16_t sport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
	uint16_t dport = ntohs(f->client_hi ? k->port_lo : k->port_hi);
	char ts[MK_EVE_TS_LEN], te[MK_EVE_TS_LEN], sa[64], da[64], tmp[8];

	if (!size)
		return -ENOSPC;
	mk_eve_ts(ts, f->start_us);
	mk_eve_ts(te, f->last_us);
	addr_str(sa, sizeof(sa), k->family, src);
	addr_str(da, sizeof(da), k->family, dst);

	sb_printf(&sb, "{\"timestamp\":\"%s\",\"flow_id\":%llu,\"event_type\":\"flow\"", ts,
		  (unsigned long long)f->flow_id);
	if (f->vlan[0]) {
		sb_printf(&sb, ",\"vlan\":[%u", f->vlan[0]);
		if (f->vlan[1])
			sb_printf(&sb, ",%u", f->vlan[1]);
		sb_printf(&sb, "]");
	}
	sb_printf(&sb, ",\"src_ip\":\"%s\"", sa);
	if (has_ports(k->proto))
		sb_printf(&sb, ",\"src_port\":%u", sport);
	sb_printf(&sb, ",\"dest_ip\":\"%s\"", da);
	if (has_ports(k->proto))
		sb_printf(&sb, ",\"dest_port\":%u", dport);
	sb_printf(&sb, ",\"proto\":\"%s\"", proto_name(k->proto, tmp, sizeof(tmp)));
	if (k->proto == MK_IPPROTO_ICMP || k->proto == MK_IPPROTO_ICMPV6)
		sb_printf(&sb, ",\"icmp_type\":%u,\"icmp_code\":%u", f->icmp_type, f->icmp_code);
	sb_printf(&sb,
		  ",\"flow\":{\"pkts_toserver\":%llu,\"pkts_toclient\":%llu,"
		  "\"bytes_toserver\":%llu,\"bytes_toclient\":%llu,"
		  "\"start\":\"%s\",\"end\":\"%s\",\"age\":%llu,"
		  "\"state\":\"%s\",\"reason\":\"%s\",\"alerted\":%s}",
		  (unsigned long long)f->pkts[0], (unsigned long long)f->pkts[1],
		  (unsigned long long)f->bytes[0], (unsigned long long)f->bytes[1], ts, te,
		  (unsigned long long)(f->last_us / 1000000 - f->start_us / 1000000),
		  mk_flow_state_name(f), mk_flow_reason_name(reason), f->alerted ? "true" : "false");
	if (k->proto == MK_IPPROTO_TCP) {
		uint8_t all = f->tcp_flags[0] | f->tcp_flags[1];

		sb_printf(&sb, ",\"tcp\":{\"tcp_flags\":\"%02x\",\"tcp_flags_ts\":\"%02x\",\"tcp_flags_tc\":\"%02x\"",
			  all, f->tcp_flags[0], f->tcp_flags[1]);
		if (all & MK_TCP_SYN)
			sb_printf(&sb, ",\"syn\":true");
		if (all & MK_TCP_FIN)
			sb_printf(&sb, ",\"fin\":true");
		if (all & MK_TCP_RST)
			sb_printf(&sb, ",\"rst\":true");
		if (all & MK_TCP_PSH)
			sb_printf(&sb, ",\"psh\":true");
		if (all & MK_TCP_ACK)
			sb_printf(&sb, ",\"ack\":true");
		sb_printf(&sb, ",\"state\":\"%s\"}", tcp_state_name(f));
	}
	if (f->tunnel_depth) {
		addr_str(sa, sizeof(sa), f->outer_family, f->outer_client);
		addr_str(da, sizeof(da), f->outer_family, f->outer_server);
		sb_printf(&sb, ",\"tunnel\":{\"type\":\"%s\",\"src_ip\":\"%s\",\"dest_ip\":\"%s\"",
			  tunnel_name(f->tunnel_type), sa, da);
		if (f->tunnel_type == MK_TUNNEL_GTPU)
			sb_printf(&sb, ",\"teid\":%u", f->tunnel_id);
		else if (f->tunnel_type == MK_TUNNEL_L2TPV2)
			sb_printf(&sb, ",\"tunnel_id\":%u,\"session_id\":%u", f->tunnel_id >> 16,
				  f->tunnel_id & 0xffff);
		else
			sb_printf(&sb, ",\"session_id\":%u", f->tunnel_id);
		sb_printf(&sb, ",\"depth\":%u}", f->tunnel_depth);
	}
	sb_printf(&sb, "}");
	if (sb.overflow)
		return -ENOSPC;
	return (int)sb.len;
}

int mk_eve_buf_add_key(struct mk_eve_buf *b, uint64_t epoch, uint64_t start_us, uint64_t flow_id,
		       const char *line, size_t len, const void *key, size_t key_len)
{
	if (b->nrecs == b->cap_recs) {
		size_t cap = b->cap_recs ? b->cap_recs * 2 : 1024;
		struct mk_eve_rec *r = realloc(b->recs, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		b->recs = r;
		b->cap_recs = cap;
	}
	if (b->used + len + key_len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1 << 20;
		char *a;

		while (cap < b->used + len + key_len)
			cap *= 2;
		a = realloc(b->arena, cap);
		if (!a)
			return -ENOMEM;
		b->arena = a;
		b->cap = cap;
	}
	memcpy(b->arena + b->used, line, len);
	if (key_len)
		memcpy(b->arena + b->used + len, key, key_len);
	b->recs[b->nrecs++] = (struct mk_eve_rec){
		.epoch = epoch, .start_us = start_us, .flow_id = flow_id, .off = b->used,
		.len = (uint32_t)len, .key_len = (uint32_t)key_len
	};
	b->used += len + key_len;
	return 0;
}

int mk_eve_buf_add(struct mk_eve_buf *b, uint64_t epoch, uint64_t start_us, uint64_t flow_id,
		   const char *line, size_t len)
{
	return mk_eve_buf_add_key(b, epoch, start_us, flow_id, line, len, NULL, 0);
}

void mk_eve_buf_free(struct mk_eve_buf *b)
{
	free(b->recs);
	free(b->arena);
	memset(b, 0, sizeof(*b));
}

struct rec_ref {
	const struct mk_eve_rec *rec;
	const char *arena;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct mk_eve_rec *x = ((const struct rec_ref *)a)->rec;
	const struct mk_eve_rec *y = ((const struct rec_ref *)b)->rec;
	const char *xl = ((const struct rec_ref *)a)->arena + x->off;
	const char *yl = ((const struct rec_ref *)b)->arena + y->off;
	int c;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	if (x->flow_id != y->flow_id)
		return x->flow_id < y->flow_id ? -1 : 1;
	/* same id and start: only possible with a hash collision; keep total order */
	c = memcmp(xl, yl, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

int mk_eve_merge_write(FILE *out, struct mk_eve_buf *bufs, unsigned int n)
{
	return mk_eve_merge_write_filter(out, bufs, n, NULL, NULL);
}

int mk_eve_merge_write_filter(FILE *out, struct mk_eve_buf *bufs, unsigned int n,
			      mk_eve_keep_fn keep, void *ctx)
{
	struct rec_ref *refs;
	size_t total = 0, i, k = 0;
	unsigned int w;
	int err = 0;

	for (w = 0; w < n; w++)
		total += bufs[w].nrecs;
	refs = malloc((total ? total : 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (w = 0; w < n; w++)
		for (i = 0; i < bufs[w].nrecs; i++)
			refs[k++] = (struct rec_ref){ &bufs[w].recs[i], bufs[w].arena };
	qsort(refs, total, sizeof(*refs), rec_cmp);
	for (i = 0; i < total; i++) {
		const struct mk_eve_rec *r = refs[i].rec;

		if (keep && r->key_len && !keep(ctx, refs[i].arena + r->off + r->len, r->key_len))
			continue;
		if (fwrite(refs[i].arena + refs[i].rec->off, 1, refs[i].rec->len, out) != refs[i].rec->len ||
		    fputc('\n', out) == EOF) {
			err = -EIO;
			break;
		}
	}
	free(refs);
	return err;
}
