// SPDX-License-Identifier: GPL-2.0-only
/* EVE JSON formatting and the deterministic merge of the workers' records. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "community_id.h"
#include "eve.h"
#include "log.h"

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

/*
 * IANA protocol keywords (assigned internet protocol numbers), as Suricata
 * writes EVE `proto`. Numbers without a keyword (61, 63, 68, 99, 114: "any
 * host internal protocol" and the like) and unassigned ones print as numbers.
 */
static const char *const iana_proto[144] = {
	"HOPOPT", "ICMP", "IGMP", "GGP", "IP-in-IP", "ST", "TCP", "CBT", "EGP", "IGP",
	"BBN-RCC-MON", "NVP-II", "PUP", "ARGUS", "EMCON", "XNET", "CHAOS", "UDP", "MUX",
	"DCN-MEAS", "HMP", "PRM", "XNS-IDP", "TRUNK-1", "TRUNK-2", "LEAF-1", "LEAF-2", "RDP",
	"IRTP", "ISO-TP4", "NETBLT", "MFE-NSP", "MERIT-INP", "DCCP", "3PC", "IDPR", "XTP", "DDP",
	"IDPR-CMTP", "TP++", "IL", "IPv6", "SDRP", "IPv6-Route", "IPv6-Frag", "IDRP", "RSVP",
	"GRE", "DSR", "BNA", "ESP", "AH", "I-NLSP", "SwIPe", "NARP", "MOBILE", "TLSP", "SKIP",
	"IPv6-ICMP", "IPv6-NoNxt", "IPv6-Opts", NULL, "CFTP", NULL, "SAT-EXPAK", "KRYPTOLAN",
	"RVD", "IPPC", NULL, "SAT-MON", "VISA", "IPCU", "CPNX", "CPHB", "WSN", "PVP",
	"BR-SAT-MON", "SUN-ND", "WB-MON", "WB-EXPAK", "ISO-IP", "VMTP", "SECURE-VMTP", "VINES",
	"TTP", "NSFNET-IGP", "DGP", "TCF", "EIGRP", "OSPF", "Sprite-RPC", "LARP", "MTP", "AX.25",
	"OS", "MICP", "SCC-SP", "ETHERIP", "ENCAP", NULL, "GMTP", "IFMP", "PNNI", "PIM", "ARIS",
	"SCPS", "QNX", "A/N", "IPComp", "SNP", "Compaq-Peer", "IPX-in-IP", "VRRP", "PGM", NULL,
	"L2TP", "DDX", "IATP", "STP", "SRP", "UTI", "SMP", "SM", "PTP", "IS-IS", "FIRE", "CRTP",
	"CRUDP", "SSCOPMCE", "IPLT", "SPS", "PIPE", "SCTP", "FC", "RSVP-E2E-IGNORE", "Mobility",
	"UDPLite", "MPLS-in-IP", "manet", "HIP", "Shim6", "WESP", "ROHC", "Ethernet",
};

const char *mk_eve_proto_name(uint8_t proto, char *tmp, size_t size)
{
	if (proto < MK_ARRAY_SIZE(iana_proto) && iana_proto[proto])
		return iana_proto[proto];
	snprintf(tmp, size, "%u", proto);
	return tmp;
}

const char *mk_eve_tunnel_name(uint8_t type)
{
	switch (type) {
	case MK_TUNNEL_GTPU:
		return "gtpu";
	case MK_TUNNEL_L2TPV2:
		return "l2tpv2";
	case MK_TUNNEL_L2TPV3_IP:
	case MK_TUNNEL_L2TPV3_UDP:
		return "l2tpv3";
	case MK_TUNNEL_VXLAN:
		return "vxlan";
	case MK_TUNNEL_GENEVE:
		return "geneve";
	case MK_TUNNEL_GRE:
		return "gre";
	case MK_TUNNEL_ERSPAN:
		return "erspan";
	case MK_TUNNEL_IPIP:
		return "ipip";
	default:
		return "unknown";
	}
}

int mk_eve_tunnel(char *buf, size_t size, uint8_t type, uint32_t id, uint8_t depth,
		  uint8_t family, const uint32_t *src, const uint32_t *dst)
{
	struct sbuf sb = { .p = buf, .size = size };
	char sa[64], da[64];

	if (!size)
		return -ENOSPC;
	sb_printf(&sb, "\"tunnel\":{\"type\":\"%s\"", mk_eve_tunnel_name(type));
	/*
	 * Live capture knows outer IPv6 addresses only as a 32-bit fold
	 * (common/meta.h, outer_family none): no address beats a made-up one.
	 */
	if (family == MK_FAMILY_IPV4 || family == MK_FAMILY_IPV6) {
		addr_str(sa, sizeof(sa), family, src);
		addr_str(da, sizeof(da), family, dst);
		sb_printf(&sb, ",\"src_ip\":\"%s\",\"dest_ip\":\"%s\"", sa, da);
	}
	switch (type) {
	case MK_TUNNEL_GTPU:
		sb_printf(&sb, ",\"teid\":%u", id);
		break;
	case MK_TUNNEL_L2TPV2:
		sb_printf(&sb, ",\"tunnel_id\":%u,\"session_id\":%u", id >> 16, id & 0xffff);
		break;
	case MK_TUNNEL_L2TPV3_IP:
	case MK_TUNNEL_L2TPV3_UDP:
	case MK_TUNNEL_ERSPAN:
		sb_printf(&sb, ",\"session_id\":%u", id);
		break;
	case MK_TUNNEL_VXLAN:
	case MK_TUNNEL_GENEVE:
		sb_printf(&sb, ",\"vni\":%u", id);
		break;
	case MK_TUNNEL_GRE:
		sb_printf(&sb, ",\"key\":%u", id);
		break;
	default:
		break; /* IP-in-IP has no id */
	}
	sb_printf(&sb, ",\"depth\":%u}", depth);
	if (sb.overflow)
		return -ENOSPC;
	return (int)sb.len;
}

static int has_ports(uint8_t proto)
{
	return proto == MK_IPPROTO_TCP || proto == MK_IPPROTO_UDP || proto == MK_IPPROTO_SCTP;
}

/* The flag booleans of EVE's tcp object, Suricata's names (ECE is "ecn"). */
static void tcp_flag_words(struct sbuf *sb, uint8_t all)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} words[] = {
		{ MK_TCP_SYN, "syn" }, { MK_TCP_FIN, "fin" }, { MK_TCP_RST, "rst" },
		{ MK_TCP_PSH, "psh" }, { MK_TCP_ACK, "ack" }, { MK_TCP_URG, "urg" },
		{ MK_TCP_ECE, "ecn" }, { MK_TCP_CWR, "cwr" },
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(words); i++)
		if (all & words[i].bit)
			sb_printf(sb, ",\"%s\":true", words[i].name);
}

int mk_eve_flow(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		enum mk_flow_reason reason, uint64_t ts_us)
{
	struct sbuf sb = { .p = buf, .size = size };
	const struct mk_flow_key *k = &f->key;
	const uint32_t *src = f->client_hi ? k->addr_hi : k->addr_lo;
	const uint32_t *dst = f->client_hi ? k->addr_lo : k->addr_hi;
	uint16_t sport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
	uint16_t dport = ntohs(f->client_hi ? k->port_lo : k->port_hi);
	char ts[MK_EVE_TS_LEN], tstart[MK_EVE_TS_LEN], tend[MK_EVE_TS_LEN], sa[64], da[64], tmp[8];

	if (!size)
		return -ENOSPC;
	mk_eve_ts(ts, ts_us);
	mk_eve_ts(tstart, f->start_us);
	mk_eve_ts(tend, f->last_us);
	addr_str(sa, sizeof(sa), k->family, src);
	addr_str(da, sizeof(da), k->family, dst);

	sb_printf(&sb, "{\"timestamp\":\"%s\",\"flow_id\":%llu", ts, (unsigned long long)f->flow_id);
	if (cfg && cfg->in_iface)
		sb_printf(&sb, ",\"in_iface\":\"%s\"", cfg->in_iface);
	sb_printf(&sb, ",\"event_type\":\"flow\"");
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
	sb_printf(&sb, ",\"proto\":\"%s\"", mk_eve_proto_name(k->proto, tmp, sizeof(tmp)));
	if (k->proto == MK_IPPROTO_ICMP || k->proto == MK_IPPROTO_ICMPV6)
		sb_printf(&sb, ",\"icmp_type\":%u,\"icmp_code\":%u", f->icmp_type, f->icmp_code);
	sb_printf(&sb,
		  ",\"flow\":{\"pkts_toserver\":%llu,\"pkts_toclient\":%llu,"
		  "\"bytes_toserver\":%llu,\"bytes_toclient\":%llu,"
		  "\"start\":\"%s\",\"end\":\"%s\",\"age\":%llu,"
		  "\"state\":\"%s\",\"reason\":\"%s\",\"alerted\":%s}",
		  (unsigned long long)f->pkts[0], (unsigned long long)f->pkts[1],
		  (unsigned long long)f->bytes[0], (unsigned long long)f->bytes[1], tstart, tend,
		  (unsigned long long)(f->last_us / 1000000 - f->start_us / 1000000),
		  mk_flow_state_name(f), mk_flow_reason_name(reason), f->alerted ? "true" : "false");
	if (cfg && cfg->community_id) {
		char cid[MK_COMMUNITY_ID_LEN];

		mk_community_id_flow(cid, cfg->community_id_seed, f);
		sb_printf(&sb, ",\"community_id\":\"%s\"", cid);
	}
	if (k->proto == MK_IPPROTO_TCP) {
		uint8_t all = f->tcp_flags[0] | f->tcp_flags[1];

		sb_printf(&sb, ",\"tcp\":{\"tcp_flags\":\"%02x\",\"tcp_flags_ts\":\"%02x\",\"tcp_flags_tc\":\"%02x\"",
			  all, f->tcp_flags[0], f->tcp_flags[1]);
		tcp_flag_words(&sb, all);
		sb_printf(&sb, ",\"state\":\"%s\"}",
			  mk_tcp_state_name(mk_tcp_session_state(&f->tcp)));
	}
	if (f->tunnel_depth) {
		char t[MK_EVE_TUNNEL_MAX];
		int n = mk_eve_tunnel(t, sizeof(t), f->tunnel_type, f->tunnel_id, f->tunnel_depth,
				      f->outer_family, f->outer_client, f->outer_server);

		if (n < 0)
			return n;
		sb_printf(&sb, ",%.*s", n, t);
	}
	sb_printf(&sb, "}");
	if (sb.overflow)
		return -ENOSPC;
	return (int)sb.len;
}

int mk_eve_buf_add_key(struct mk_eve_buf *b, uint64_t epoch, uint64_t ts_us, uint64_t start_us,
		       uint64_t flow_id, const char *line, size_t len, const void *key,
		       size_t key_len)
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
		.epoch = epoch, .ts_us = ts_us, .start_us = start_us, .flow_id = flow_id, .off = b->used,
		.len = (uint32_t)len, .key_len = (uint32_t)key_len
	};
	b->used += len + key_len;
	return 0;
}

int mk_eve_buf_add(struct mk_eve_buf *b, uint64_t epoch, uint64_t ts_us, uint64_t start_us,
		   uint64_t flow_id, const char *line, size_t len)
{
	return mk_eve_buf_add_key(b, epoch, ts_us, start_us, flow_id, line, len, NULL, 0);
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
	if (x->ts_us != y->ts_us)
		return x->ts_us < y->ts_us ? -1 : 1;
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

int mk_eve_merge_write(struct mk_eve_file *out, struct mk_eve_buf *bufs, unsigned int n)
{
	return mk_eve_merge_write_filter(out, bufs, n, NULL, NULL);
}

int mk_eve_merge_write_filter(struct mk_eve_file *out, struct mk_eve_buf *bufs, unsigned int n,
			      mk_eve_keep_fn keep, void *ctx)
{
	struct rec_ref *refs;
	size_t total = 0, i, k = 0;
	unsigned int w;

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
		mk_eve_file_write(out, refs[i].arena + r->off, r->len);
	}
	free(refs);
	return 0;
}

/* ---- the file ----------------------------------------------------------- */

#define EVE_FILE_BUF (1u << 20)

int mk_eve_file_open(struct mk_eve_file *f, const char *path, int truncate)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->buf = malloc(EVE_FILE_BUF);
	if (!f->buf) {
		mk_err("%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	f->cap = EVE_FILE_BUF;
	err = mk_eve_sink_open(&f->sink, path, truncate);
	if (err) {
		free(f->buf);
		f->buf = NULL;
		return err;
	}
	f->open = 1;
	return 0;
}

int mk_eve_file_flush(struct mk_eve_file *f)
{
	int err = 0;

	if (f->len)
		err = mk_eve_sink_write(&f->sink, f->buf, f->len, f->buf_recs);
	if (err && !f->err)
		f->err = err;
	f->len = 0;
	f->buf_recs = 0;
	return err;
}

void mk_eve_file_write(struct mk_eve_file *f, const char *line, size_t len)
{
	if (f->len + len + 1 > f->cap)
		mk_eve_file_flush(f);
	if (len + 1 > f->cap) {
		/* cannot happen with MK_EVE_LINE_MAX lines; never write half a record */
		f->sink.lost++;
		return;
	}
	memcpy(f->buf + f->len, line, len);
	f->buf[f->len + len] = '\n';
	f->len += len + 1;
	f->buf_recs++;
}

int mk_eve_file_close(struct mk_eve_file *f)
{
	if (!f->open)
		return f->err;
	mk_eve_file_flush(f);
	mk_eve_sink_close(&f->sink);
	f->open = 0;
	free(f->buf);
	f->buf = NULL;
	return f->err;
}
