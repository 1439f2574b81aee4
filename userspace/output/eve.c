// SPDX-License-Identifier: GPL-2.0-only
/* EVE JSON formatting and the deterministic merge of the workers' records. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "applayer.h"
#include "community_id.h"
#include "ebuf.h"
#include "eve.h"
#include "outputs.h"
#include "log.h"

/* @v in exactly @width digits, zero padded (@v < 10^width, @width even). */
static void put_digits(char *p, uint32_t v, int width)
{
	while (width > 0) {
		width -= 2;
		memcpy(p + width, digit_pairs + (v % 100) * 2, 2);
		v /= 100;
	}
}

/* Howard Hinnant's days_from_civil inverse: days since 1970-01-01 to a date. */
static void civil_from_days(int64_t z, int64_t *y, unsigned int *m, unsigned int *d)
{
	int64_t era;
	unsigned int doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned int)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* The last microsecond of year 9999: pcapng timestamps are 64 bits, a year is four digits. */
#define MK_EVE_TS_MAX 253402300799999999ull

/* 2026-12-03T03:45:00.123456+0000 into @out (MK_EVE_TS_LEN - 1 bytes or fewer); returns its length. */
static size_t format_ts(char *out, uint64_t ts_us)
{
	uint64_t sec, days;
	uint32_t sod;
	unsigned int m, d;
	int64_t y;
	size_t k = 4;

	/* the date of the last call: flow records come in runs of one day */
	static __thread uint64_t last_days = UINT64_MAX;
	static __thread char date[10];

	if (ts_us > MK_EVE_TS_MAX)
		ts_us = MK_EVE_TS_MAX;
	sec = ts_us / 1000000;
	days = sec / 86400;
	sod = (uint32_t)(sec % 86400);
	if (days != last_days) {
		civil_from_days((int64_t)days, &y, &m, &d);
		put_digits(date, (uint32_t)y, 4);
		date[4] = '-';
		put_digits(date + 5, m, 2);
		date[7] = '-';
		put_digits(date + 8, d, 2);
		last_days = days;
	}
	memcpy(out, date, 10);
	out[k + 6] = 'T';
	put_digits(out + k + 7, sod / 3600, 2);
	out[k + 9] = ':';
	put_digits(out + k + 10, sod / 60 % 60, 2);
	out[k + 12] = ':';
	put_digits(out + k + 13, sod % 60, 2);
	out[k + 15] = '.';
	put_digits(out + k + 16, (uint32_t)(ts_us % 1000000), 6);
	memcpy(out + k + 22, "+0000", 5);
	return k + 27;
}

void mk_eve_ts(char *buf, uint64_t ts_us)
{
	buf[format_ts(buf, ts_us)] = '\0';
}

static void eb_ts(struct ebuf *b, uint64_t ts_us)
{
	char ts[MK_EVE_TS_LEN];

	eb_mem(b, ts, format_ts(ts, ts_us));
}

static void eb_addr(struct ebuf *b, int family, const uint32_t *a)
{
	char s[INET6_ADDRSTRLEN];

	if (family != MK_FAMILY_IPV6) {
		/* dotted quad by hand: glibc's inet_ntop goes through sprintf */
		const uint8_t *q = (const uint8_t *)a;
		char *p = s;
		int i;

		for (i = 0; i < 4; i++) {
			if (q[i] >= 100)
				*p++ = (char)('0' + q[i] / 100);
			if (q[i] >= 10)
				*p++ = (char)('0' + q[i] / 10 % 10);
			*p++ = (char)('0' + q[i] % 10);
			*p++ = '.';
		}
		eb_mem(b, s, (size_t)(p - s - 1));
		return;
	}
	if (!inet_ntop(AF_INET6, a, s, sizeof(s)))
		strcpy(s, "?");
	eb_str(b, s);
}

static void eb_hex2(struct ebuf *b, uint8_t v)
{
	static const char hex[] = "0123456789abcdef";
	char h[2] = { hex[v >> 4], hex[v & 15] };

	eb_mem(b, h, 2);
}

/*
 * IANA protocol keywords (assigned internet protocol numbers), as Suricata
 * writes EVE `proto`. Numbers without a keyword (61, 63, 68, 99, 114: "any
 * host internal protocol" and the like) and unassigned ones print as numbers.
 */
static const char *const iana_proto[144] = {
	"HOPOPT",      "ICMP",	     "IGMP",	    "GGP",	  "IP-in-IP",
	"ST",	       "TCP",	     "CBT",	    "EGP",	  "IGP",
	"BBN-RCC-MON", "NVP-II",     "PUP",	    "ARGUS",	  "EMCON",
	"XNET",	       "CHAOS",	     "UDP",	    "MUX",	  "DCN-MEAS",
	"HMP",	       "PRM",	     "XNS-IDP",	    "TRUNK-1",	  "TRUNK-2",
	"LEAF-1",      "LEAF-2",     "RDP",	    "IRTP",	  "ISO-TP4",
	"NETBLT",      "MFE-NSP",    "MERIT-INP",   "DCCP",	  "3PC",
	"IDPR",	       "XTP",	     "DDP",	    "IDPR-CMTP",  "TP++",
	"IL",	       "IPv6",	     "SDRP",	    "IPv6-Route", "IPv6-Frag",
	"IDRP",	       "RSVP",	     "GRE",	    "DSR",	  "BNA",
	"ESP",	       "AH",	     "I-NLSP",	    "SwIPe",	  "NARP",
	"MOBILE",      "TLSP",	     "SKIP",	    "IPv6-ICMP",  "IPv6-NoNxt",
	"IPv6-Opts",   NULL,	     "CFTP",	    NULL,	  "SAT-EXPAK",
	"KRYPTOLAN",   "RVD",	     "IPPC",	    NULL,	  "SAT-MON",
	"VISA",	       "IPCU",	     "CPNX",	    "CPHB",	  "WSN",
	"PVP",	       "BR-SAT-MON", "SUN-ND",	    "WB-MON",	  "WB-EXPAK",
	"ISO-IP",      "VMTP",	     "SECURE-VMTP", "VINES",	  "TTP",
	"NSFNET-IGP",  "DGP",	     "TCF",	    "EIGRP",	  "OSPF",
	"Sprite-RPC",  "LARP",	     "MTP",	    "AX.25",	  "OS",
	"MICP",	       "SCC-SP",     "ETHERIP",	    "ENCAP",	  NULL,
	"GMTP",	       "IFMP",	     "PNNI",	    "PIM",	  "ARIS",
	"SCPS",	       "QNX",	     "A/N",	    "IPComp",	  "SNP",
	"Compaq-Peer", "IPX-in-IP",  "VRRP",	    "PGM",	  NULL,
	"L2TP",	       "DDX",	     "IATP",	    "STP",	  "SRP",
	"UTI",	       "SMP",	     "SM",	    "PTP",	  "IS-IS",
	"FIRE",	       "CRTP",	     "CRUDP",	    "SSCOPMCE",	  "IPLT",
	"SPS",	       "PIPE",	     "SCTP",	    "FC",	  "RSVP-E2E-IGNORE",
	"Mobility",    "UDPLite",    "MPLS-in-IP",  "manet",	  "HIP",
	"Shim6",       "WESP",	     "ROHC",	    "Ethernet",
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

/* The `tunnel` object (mk_eve_tunnel()) appended to @b. */
static void eb_tunnel(struct ebuf *b, uint8_t type, uint32_t id, uint8_t depth, uint8_t family,
		      const uint32_t *src, const uint32_t *dst)
{
	EB_LIT(b, "\"tunnel\":{\"type\":\"");
	eb_str(b, mk_eve_tunnel_name(type));
	EB_LIT(b, "\"");
	/*
	 * Live capture knows outer IPv6 addresses only as a 32-bit fold
	 * (common/meta.h, outer_family none): no address beats a made-up one.
	 */
	if (family == MK_FAMILY_IPV4 || family == MK_FAMILY_IPV6) {
		EB_LIT(b, ",\"src_ip\":\"");
		eb_addr(b, family, src);
		EB_LIT(b, "\",\"dest_ip\":\"");
		eb_addr(b, family, dst);
		EB_LIT(b, "\"");
	}
	switch (type) {
	case MK_TUNNEL_GTPU:
		EB_LIT(b, ",\"teid\":");
		eb_u64(b, id);
		break;
	case MK_TUNNEL_L2TPV2:
		EB_LIT(b, ",\"tunnel_id\":");
		eb_u64(b, id >> 16);
		EB_LIT(b, ",\"session_id\":");
		eb_u64(b, id & 0xffff);
		break;
	case MK_TUNNEL_L2TPV3_IP:
	case MK_TUNNEL_L2TPV3_UDP:
	case MK_TUNNEL_ERSPAN:
		EB_LIT(b, ",\"session_id\":");
		eb_u64(b, id);
		break;
	case MK_TUNNEL_VXLAN:
	case MK_TUNNEL_GENEVE:
		EB_LIT(b, ",\"vni\":");
		eb_u64(b, id);
		break;
	case MK_TUNNEL_GRE:
		EB_LIT(b, ",\"key\":");
		eb_u64(b, id);
		break;
	default:
		break; /* IP-in-IP has no id */
	}
	EB_LIT(b, ",\"depth\":");
	eb_u64(b, depth);
	EB_LIT(b, "}");
}

int mk_eve_tunnel(char *buf, size_t size, uint8_t type, uint32_t id, uint8_t depth, uint8_t family,
		  const uint32_t *src, const uint32_t *dst)
{
	struct ebuf b = { .p = buf, .end = buf + size };

	if (!size)
		return -ENOSPC;
	b.end--; /* the NUL */
	eb_tunnel(&b, type, id, depth, family, src, dst);
	if (b.overflow)
		return -ENOSPC;
	*b.p = '\0';
	return (int)(b.p - buf);
}

static int has_ports(uint8_t proto)
{
	return proto == MK_IPPROTO_TCP || proto == MK_IPPROTO_UDP || proto == MK_IPPROTO_SCTP;
}

/* The flag booleans of EVE's tcp object, Suricata's names (ECE is "ecn"). */
static void tcp_flag_words(struct ebuf *b, uint8_t all)
{
	static const struct {
		uint8_t bit;
		const char *word; /* ,"name":true */
	} words[] = {
		{ MK_TCP_SYN, ",\"syn\":true" }, { MK_TCP_FIN, ",\"fin\":true" },
		{ MK_TCP_RST, ",\"rst\":true" }, { MK_TCP_PSH, ",\"psh\":true" },
		{ MK_TCP_ACK, ",\"ack\":true" }, { MK_TCP_URG, ",\"urg\":true" },
		{ MK_TCP_ECE, ",\"ecn\":true" }, { MK_TCP_CWR, ",\"cwr\":true" },
	};
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(words); i++)
		if (all & words[i].bit)
			eb_str(b, words[i].word);
}

/* The record's head: time, flow id, interface, VLANs, the 5-tuple as the client sent it. */
static void flow_head(struct ebuf *b, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		      uint64_t ts_us, const char *event_type)
{
	const struct mk_flow_key *k = &f->key;
	const uint32_t *src = f->client_hi ? k->addr_hi : k->addr_lo;
	const uint32_t *dst = f->client_hi ? k->addr_lo : k->addr_hi;
	uint16_t sport = ntohs(f->client_hi ? k->port_hi : k->port_lo);
	uint16_t dport = ntohs(f->client_hi ? k->port_lo : k->port_hi);
	char tmp[8];

	EB_LIT(b, "{\"timestamp\":\"");
	eb_ts(b, ts_us);
	EB_LIT(b, "\",\"flow_id\":");
	eb_u64(b, f->flow_id);
	if (cfg && cfg->in_iface) {
		EB_LIT(b, ",\"in_iface\":\"");
		eb_str(b, cfg->in_iface);
		EB_LIT(b, "\"");
	}
	EB_LIT(b, ",\"event_type\":\"");
	eb_str(b, event_type);
	EB_LIT(b, "\"");
	if (f->vlan[0]) {
		EB_LIT(b, ",\"vlan\":[");
		eb_u64(b, f->vlan[0]);
		if (f->vlan[1]) {
			EB_LIT(b, ",");
			eb_u64(b, f->vlan[1]);
		}
		EB_LIT(b, "]");
	}
	EB_LIT(b, ",\"src_ip\":\"");
	eb_addr(b, k->family, src);
	EB_LIT(b, "\"");
	if (has_ports(k->proto)) {
		EB_LIT(b, ",\"src_port\":");
		eb_u64(b, sport);
	}
	EB_LIT(b, ",\"dest_ip\":\"");
	eb_addr(b, k->family, dst);
	EB_LIT(b, "\"");
	if (has_ports(k->proto)) {
		EB_LIT(b, ",\"dest_port\":");
		eb_u64(b, dport);
	}
	EB_LIT(b, ",\"proto\":\"");
	eb_str(b, mk_eve_proto_name(k->proto, tmp, sizeof(tmp)));
	EB_LIT(b, "\"");
	if (k->proto == MK_IPPROTO_ICMP || k->proto == MK_IPPROTO_ICMPV6) {
		EB_LIT(b, ",\"icmp_type\":");
		eb_u64(b, f->icmp_type);
		EB_LIT(b, ",\"icmp_code\":");
		eb_u64(b, f->icmp_code);
	}
}

/*
 * Where a bypassed flow's bypass started, as Suricata: "bypass": "local" or
 * "capture"; "evicted" when the LRU map dropped the entry before expiry (the
 * driver's counts then stop at the last expiry walk that saw it). A capture
 * bypass adds what the driver counted, so that the record's packets plus
 * these are the flow's packets on the wire.
 */
static void flow_bypass(struct ebuf *b, const struct mk_flow *f)
{
	if (f->bypass == MK_FLOW_BYPASS_NONE)
		return;
	if (f->bypass == MK_FLOW_BYPASS_LOCAL) {
		EB_LIT(b, ",\"bypass\":\"local\"");
		return;
	}
	if (f->bypass_end == MK_FLOW_BYPASS_END_EVICTED)
		EB_LIT(b, ",\"bypass\":\"evicted\"");
	else
		EB_LIT(b, ",\"bypass\":\"capture\"");
	EB_LIT(b, ",\"bypassed\":{\"pkts_toserver\":");
	eb_u64(b, f->bypass_pkts[0]);
	EB_LIT(b, ",\"pkts_toclient\":");
	eb_u64(b, f->bypass_pkts[1]);
	EB_LIT(b, ",\"bytes_toserver\":");
	eb_u64(b, f->bypass_bytes[0]);
	EB_LIT(b, ",\"bytes_toclient\":");
	eb_u64(b, f->bypass_bytes[1]);
	EB_LIT(b, "}");
}

/* The "flow" object: counters per direction, times, state, reason, alerted, bypass. */
static void flow_object(struct ebuf *b, const struct mk_flow *f, enum mk_flow_reason reason,
			int compact)
{
	EB_LIT(b, ",\"flow\":{\"pkts_toserver\":");
	eb_u64(b, f->pkts[0]);
	if (!compact) {
		EB_LIT(b, ",\"pkts_toclient\":");
		eb_u64(b, f->pkts[1]);
	}
	EB_LIT(b, ",\"bytes_toserver\":");
	eb_u64(b, f->bytes[0]);
	if (!compact) {
		EB_LIT(b, ",\"bytes_toclient\":");
		eb_u64(b, f->bytes[1]);
	}
	EB_LIT(b, ",\"start\":\"");
	eb_ts(b, f->start_us);
	EB_LIT(b, "\",\"end\":\"");
	eb_ts(b, f->last_us);
	EB_LIT(b, "\"");
	if (!compact) {
		EB_LIT(b, ",\"age\":");
		eb_u64(b, f->last_us / 1000000 - f->start_us / 1000000);
	}
	EB_LIT(b, ",\"state\":\"");
	eb_str(b, mk_flow_state_name(f));
	EB_LIT(b, "\",\"reason\":\"");
	eb_str(b, mk_flow_reason_name(reason));
	if (f->alerted)
		EB_LIT(b, "\",\"alerted\":true");
	else
		EB_LIT(b, "\",\"alerted\":false");
	flow_bypass(b, f);
	EB_LIT(b, "}");
}

/* The "tcp" object: flags seen (per direction unless @compact), the session's state. */
static void flow_tcp(struct ebuf *b, const struct mk_flow *f, int compact)
{
	uint8_t all = f->tcp_flags[0] | f->tcp_flags[1];

	EB_LIT(b, ",\"tcp\":{\"tcp_flags\":\"");
	eb_hex2(b, all);
	if (compact) {
		EB_LIT(b, "\"}");
		return;
	}
	EB_LIT(b, "\",\"tcp_flags_ts\":\"");
	eb_hex2(b, f->tcp_flags[0]);
	EB_LIT(b, "\",\"tcp_flags_tc\":\"");
	eb_hex2(b, f->tcp_flags[1]);
	EB_LIT(b, "\"");
	tcp_flag_words(b, all);
	EB_LIT(b, ",\"state\":\"");
	eb_str(b, mk_tcp_state_name(mk_tcp_session_state(&f->tcp)));
	EB_LIT(b, "\"}");
}

/*
 * The flow record; @compact leaves out what a flow that never got an answer
 * does not need (docs/eve.md): the to-client counters (0), age,
 * community_id and the tcp object but for its flags.
 */
static int eve_flow(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		    enum mk_flow_reason reason, uint64_t ts_us, int compact)
{
	struct ebuf b = { .p = buf, .end = buf + size };

	if (!size)
		return -ENOSPC;
	/* room for the terminating NUL, which is not part of the record */
	b.end--;
	flow_head(&b, cfg, f, ts_us, "flow");
	if (mk_app_proto_name(f->app_proto)) {
		EB_LIT(&b, ",\"app_proto\":\"");
		eb_str(&b, mk_app_proto_name(f->app_proto));
		EB_LIT(&b, "\"");
	}
	flow_object(&b, f, reason, compact);
	if (cfg && cfg->community_id && !compact) {
		char cid[MK_COMMUNITY_ID_LEN];

		mk_community_id_flow(cid, cfg->community_id_seed, f);
		EB_LIT(&b, ",\"community_id\":\"");
		eb_str(&b, cid);
		EB_LIT(&b, "\"");
	}
	if (f->key.proto == MK_IPPROTO_TCP)
		flow_tcp(&b, f, compact);
	if (f->tunnel_depth) {
		EB_LIT(&b, ",");
		eb_tunnel(&b, f->tunnel_type, f->tunnel_id, f->tunnel_depth, f->outer_family,
			  f->outer_client, f->outer_server);
	}
	EB_LIT(&b, "}");
	if (b.overflow)
		return -ENOSPC;
	*b.p = '\0';
	return (int)(b.p - buf);
}

int mk_eve_head(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		uint64_t ts_us, const char *event_type)
{
	struct ebuf b = { .p = buf, .end = buf + size };

	flow_head(&b, cfg, f, ts_us, event_type);
	return b.overflow ? -ENOSPC : (int)(b.p - buf);
}

int mk_eve_flow(char *buf, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		enum mk_flow_reason reason, uint64_t ts_us)
{
	return eve_flow(buf, size, cfg, f, reason, ts_us, 0);
}

int mk_eve_flow_compact(char *buf, size_t size, const struct mk_eve_fmt *cfg,
			const struct mk_flow *f, enum mk_flow_reason reason, uint64_t ts_us)
{
	return eve_flow(buf, size, cfg, f, reason, ts_us, 1);
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
	if (b->used + len + 1 + key_len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1 << 20;
		char *a;

		while (cap < b->used + len + 1 + key_len)
			cap *= 2;
		a = realloc(b->arena, cap);
		if (!a)
			return -ENOMEM;
		b->arena = a;
		b->cap = cap;
	}
	/* with its newline, so that the merge writes arena bytes as they are */
	memcpy(b->arena + b->used, line, len);
	/* with its newline, so that the merge writes arena bytes as they are; the key after it */
	b->arena[b->used + len] = '\n';
	if (key_len)
		memcpy(b->arena + b->used + len + 1, key, key_len);
	b->recs[b->nrecs++] = (struct mk_eve_rec){ .epoch = epoch,
						   .ts_us = ts_us,
						   .start_us = start_us,
						   .flow_id = flow_id,
						   .off = b->used,
						   .len = (uint32_t)len,
						   .key_len = (uint32_t)key_len };
	b->used += len + 1 + key_len;
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

#define MERGE_IOV 1024 /* IOV_MAX on Linux */

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
	int err;

	for (w = 0; w < n; w++)
		total += bufs[w].nrecs;
	refs = malloc((total ? total : 1) * sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	for (w = 0; w < n; w++)
		for (i = 0; i < bufs[w].nrecs; i++)
			refs[k++] = (struct rec_ref){ &bufs[w].recs[i], bufs[w].arena };
	qsort(refs, total, sizeof(*refs), rec_cmp);
	/* straight from the arenas, in order: no copy into the file's buffer */
	mk_eve_file_flush(out);
	for (i = 0; i < total;) {
		struct iovec iov[MERGE_IOV];
		int nv = 0;

		for (; i < total && nv < MERGE_IOV; i++) {
			const struct mk_eve_rec *r = refs[i].rec;
			const char *line = refs[i].arena + r->off;

			if (keep && r->key_len && !keep(ctx, line + r->len + 1, r->key_len))
				continue;
			if (out->outs) {
				/* several outputs: through the buffer, a megabyte at a time */
				mk_eve_file_write(out, line, r->len);
				continue;
			}
			iov[nv].iov_base = (char *)line;
			iov[nv].iov_len = r->len + 1;
			nv++;
		}
		if (!nv)
			continue;
		err = mk_eve_sink_writev(&out->sink, iov, nv, (uint64_t)nv);
		if (err && !out->err)
			out->err = err;
	}
	if (out->outs)
		mk_eve_file_flush(out);
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

int mk_eve_file_open_outputs(struct mk_eve_file *f, struct mk_outputs *outs)
{
	memset(f, 0, sizeof(*f));
	f->buf = malloc(EVE_FILE_BUF);
	if (!f->buf) {
		mk_err("EVE outputs: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	f->cap = EVE_FILE_BUF;
	f->outs = outs;
	snprintf(f->sink.path, sizeof(f->sink.path), "EVE outputs");
	f->open = 1;
	return 0;
}

int mk_eve_file_flush(struct mk_eve_file *f)
{
	int err = 0;

	if (f->len && f->outs)
		mk_outputs_write(f->outs, f->buf, f->len, f->buf_recs);
	else if (f->len)
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
	if (!f->outs)
		mk_eve_sink_close(&f->sink);
	f->open = 0;
	free(f->buf);
	f->buf = NULL;
	return f->err;
}
