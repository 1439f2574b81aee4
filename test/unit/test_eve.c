// SPDX-License-Identifier: GPL-2.0-only
/* EVE JSON: Suricata's timestamp layout and the flow event's shape. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <time.h>
#include "community_id.h"
#include "eve.h"
#include "flow_helpers.h"

static struct mk_flow_table t;

static void setup(void)
{
	struct mk_flow_cfg cfg;

	mk_flow_cfg_defaults(&cfg);
	cfg.max_flows = 16;
	cr_assert_eq(mk_flow_table_init(&t, &cfg, TEST_SEED, NULL, NULL), 0);
}

static void teardown(void)
{
	mk_flow_table_free(&t);
}

TestSuite(eve, .init = setup, .fini = teardown);

static const struct mk_eve_fmt eve_cfg = { .community_id = 1 };

static json_t *format_at(const struct mk_eve_fmt *cfg, const struct mk_flow *f,
			 enum mk_flow_reason r, uint64_t ts)
{
	char buf[MK_EVE_LINE_MAX];
	json_error_t err;
	json_t *j;
	int n = mk_eve_flow(buf, sizeof(buf), cfg, f, r, ts);

	cr_assert_gt(n, 0);
	cr_assert_eq((size_t)n, strlen(buf));
	j = json_loads(buf, 0, &err);
	cr_assert_not_null(j, "not JSON: %s (%s)", buf, err.text);
	return j;
}

/* logged at the flow's last packet, as a flow that ends on its own packet is */
static json_t *format(const struct mk_flow *f, enum mk_flow_reason r)
{
	return format_at(&eve_cfg, f, r, f->last_us);
}

static struct mk_flow *add(struct mk_parse *p, uint64_t ts, uint32_t len, uint8_t flags)
{
	struct mk_flow_pkt fp = { .ts_us = ts, .len = len, .tcp_flags = flags };
	int tc;

	return mk_flow_handle(&t, p, &fp, &tc);
}

Test(eve, timestamp_layout)
{
	char ts[MK_EVE_TS_LEN];

	mk_eve_ts(ts, TEST_T0 + 123456);
	cr_assert_str_eq(ts, "2026-12-03T03:45:00.123456+0000");
	mk_eve_ts(ts, 0);
	cr_assert_str_eq(ts, "1970-01-01T00:00:00.000000+0000");
}

Test(eve, tcp_flow_record)
{
	struct mk_parse c = test_parse("10.0.0.9", 40000, "10.0.0.2", 80, MK_IPPROTO_TCP);
	struct mk_parse s = test_parse("10.0.0.2", 80, "10.0.0.9", 40000, MK_IPPROTO_TCP);
	struct mk_flow *f;
	json_t *j, *fl, *tcp;

	add(&c, TEST_T0, 74, MK_TCP_SYN);
	add(&s, TEST_T0 + 1000, 74, MK_TCP_SYN | MK_TCP_ACK);
	f = add(&c, TEST_T0 + 2 * SEC + 500, 66, MK_TCP_ACK | MK_TCP_PSH);
	j = format_at(&eve_cfg, f, MK_FLOW_END_TIMEOUT, TEST_T0 + 63 * SEC);
	cr_assert_str_eq(json_string_value(json_object_get(j, "timestamp")),
			 "2026-12-03T03:46:03.000000+0000",
			 "timestamp: when the record was logged");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "flow"), "start")),
			 "2026-12-03T03:45:00.000000+0000");
	cr_assert_eq((uint64_t)json_integer_value(json_object_get(j, "flow_id")), f->flow_id);
	cr_assert_lt(f->flow_id, 1ull << 51);
	cr_assert_null(json_object_get(j, "in_iface"));
	cr_assert_null(json_object_get(j, "app_proto"), "never invented");
	cr_assert_str_eq(json_string_value(json_object_get(j, "community_id")),
			 "1:rr+158JW2ift5MrSFUGdGUhXgN4=");
	cr_assert_str_eq(json_string_value(json_object_get(j, "event_type")), "flow");
	cr_assert_str_eq(json_string_value(json_object_get(j, "src_ip")), "10.0.0.9");
	cr_assert_eq(json_integer_value(json_object_get(j, "src_port")), 40000);
	cr_assert_str_eq(json_string_value(json_object_get(j, "dest_ip")), "10.0.0.2");
	cr_assert_eq(json_integer_value(json_object_get(j, "dest_port")), 80);
	cr_assert_str_eq(json_string_value(json_object_get(j, "proto")), "TCP");
	cr_assert_null(json_object_get(j, "vlan"));
	cr_assert_null(json_object_get(j, "tunnel"));
	fl = json_object_get(j, "flow");
	cr_assert_eq(json_integer_value(json_object_get(fl, "pkts_toserver")), 2);
	cr_assert_eq(json_integer_value(json_object_get(fl, "pkts_toclient")), 1);
	cr_assert_eq(json_integer_value(json_object_get(fl, "bytes_toserver")), 140);
	cr_assert_eq(json_integer_value(json_object_get(fl, "bytes_toclient")), 74);
	cr_assert_str_eq(json_string_value(json_object_get(fl, "end")),
			 "2026-12-03T03:45:02.000500+0000");
	cr_assert_eq(json_integer_value(json_object_get(fl, "age")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(fl, "state")), "established");
	cr_assert_str_eq(json_string_value(json_object_get(fl, "reason")), "timeout");
	cr_assert(json_is_false(json_object_get(fl, "alerted")));
	tcp = json_object_get(j, "tcp");
	cr_assert_str_eq(json_string_value(json_object_get(tcp, "tcp_flags")), "1a");
	cr_assert_str_eq(json_string_value(json_object_get(tcp, "tcp_flags_ts")), "1a");
	cr_assert_str_eq(json_string_value(json_object_get(tcp, "tcp_flags_tc")), "12");
	cr_assert(json_is_true(json_object_get(tcp, "syn")));
	cr_assert(json_is_true(json_object_get(tcp, "psh")));
	cr_assert(json_is_true(json_object_get(tcp, "ack")));
	cr_assert_null(json_object_get(tcp, "fin"));
	cr_assert_null(json_object_get(tcp, "rst"));
	cr_assert(json_is_string(json_object_get(tcp, "state")));
	json_decref(j);
}

Test(eve, udp_v6_vlan_tunnel_and_reasons)
{
	struct mk_parse p = test_parse("2001:db8::1", 5000, "2001:db8::2", 53, MK_IPPROTO_UDP);
	struct mk_flow *f;
	json_t *j, *tun;

	p.vlan[0] = p.key.vlan[0] = 100;
	p.vlan[1] = p.key.vlan[1] = 200;
	p.tunnel_depth = 1;
	p.tunnel_type = MK_TUNNEL_GTPU;
	p.tunnel_id = 0x100;
	p.outer_family = MK_FAMILY_IPV4;
	inet_pton(AF_INET, "192.168.1.1", p.outer_src);
	inet_pton(AF_INET, "192.168.1.2", p.outer_dst);
	p.hash = mk_flow_hash(&p.key, TEST_SEED);
	f = add(&p, TEST_T0, 100, 0);
	j = format(f, MK_FLOW_END_SHUTDOWN);
	cr_assert_str_eq(json_string_value(json_object_get(j, "src_ip")), "2001:db8::1");
	cr_assert_str_eq(json_string_value(json_object_get(j, "proto")), "UDP");
	cr_assert_eq(json_array_size(json_object_get(j, "vlan")), 2);
	cr_assert_eq(json_integer_value(json_array_get(json_object_get(j, "vlan"), 1)), 200);
	cr_assert_null(json_object_get(j, "tcp"));
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "flow"), "reason")),
			 "shutdown");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "flow"), "state")),
			 "new");
	tun = json_object_get(j, "tunnel");
	cr_assert_str_eq(json_string_value(json_object_get(tun, "type")), "gtpu");
	cr_assert_str_eq(json_string_value(json_object_get(tun, "src_ip")), "192.168.1.1");
	cr_assert_str_eq(json_string_value(json_object_get(tun, "dest_ip")), "192.168.1.2");
	cr_assert_eq(json_integer_value(json_object_get(tun, "teid")), 256);
	cr_assert_eq(json_integer_value(json_object_get(tun, "depth")), 1);
	json_decref(j);
	f->bypassed = 1;
	j = format(f, MK_FLOW_END_FORCED);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "flow"), "state")),
			 "bypassed");
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "flow"), "reason")),
			 "forced");
	json_decref(j);
}

Test(eve, icmp_and_numeric_proto_have_no_ports)
{
	struct mk_parse p = test_parse("10.0.0.1", 7, "10.0.0.2", 7, MK_IPPROTO_ICMP);
	struct mk_parse g = test_parse("10.0.0.1", 0, "10.0.0.2", 0, 47);
	struct mk_flow_pkt fp = { .ts_us = TEST_T0, .len = 98, .icmp_type = 8 };
	struct mk_flow *f;
	json_t *j;
	int tc;

	f = mk_flow_handle(&t, &p, &fp, &tc);
	j = format(f, MK_FLOW_END_TIMEOUT);
	cr_assert_str_eq(json_string_value(json_object_get(j, "proto")), "ICMP");
	cr_assert_null(json_object_get(j, "src_port"));
	cr_assert_eq(json_integer_value(json_object_get(j, "icmp_type")), 8);
	json_decref(j);
	f = add(&g, TEST_T0, 60, 0);
	j = format(f, MK_FLOW_END_TIMEOUT);
	cr_assert_str_eq(json_string_value(json_object_get(j, "proto")), "GRE");
	json_decref(j);
}

Test(eve, proto_names_as_iana_and_suricata)
{
	static const struct {
		uint8_t proto;
		const char *name;
	} want[] = {
		{ 1, "ICMP" },	     { 2, "IGMP" },	  { 4, "IP-in-IP" }, { 6, "TCP" },
		{ 17, "UDP" },	     { 41, "IPv6" },	  { 47, "GRE" },     { 50, "ESP" },
		{ 51, "AH" },	     { 58, "IPv6-ICMP" }, { 89, "OSPF" },    { 103, "PIM" },
		{ 112, "VRRP" },     { 115, "L2TP" },	  { 132, "SCTP" },   { 136, "UDPLite" },
		{ 143, "Ethernet" }, { 61, "61" },	  { 144, "144" },    { 253, "253" },
	};
	char tmp[8];
	unsigned int i;

	for (i = 0; i < MK_ARRAY_SIZE(want); i++)
		cr_expect_str_eq(mk_eve_proto_name(want[i].proto, tmp, sizeof(tmp)), want[i].name,
				 "proto %u", want[i].proto);
}

Test(eve, tcp_flags_all_eight_bits_and_in_iface)
{
	struct mk_parse c = test_parse("10.0.0.9", 40000, "10.0.0.2", 80, MK_IPPROTO_TCP);
	struct mk_eve_fmt cfg = { .in_iface = "eth7" };
	struct mk_flow *f;
	json_t *j, *tcp;

	f = add(&c, TEST_T0, 74, MK_TCP_SYN | MK_TCP_ECE | MK_TCP_CWR | MK_TCP_URG);
	j = format_at(&cfg, f, MK_FLOW_END_TIMEOUT, TEST_T0);
	cr_assert_str_eq(json_string_value(json_object_get(j, "in_iface")), "eth7");
	cr_assert_null(json_object_get(j, "community_id"), "off in this cfg");
	tcp = json_object_get(j, "tcp");
	cr_assert_str_eq(json_string_value(json_object_get(tcp, "tcp_flags")), "e2");
	cr_assert(json_is_true(json_object_get(tcp, "ecn")));
	cr_assert(json_is_true(json_object_get(tcp, "cwr")));
	cr_assert(json_is_true(json_object_get(tcp, "urg")));
	json_decref(j);
}

Test(eve, short_buffer_is_enospc)
{
	struct mk_parse p = test_parse("10.0.0.1", 1, "10.0.0.2", 2, MK_IPPROTO_UDP);
	struct mk_flow *f = add(&p, TEST_T0, 60, 0);
	char buf[64];

	cr_assert_eq(mk_eve_flow(buf, sizeof(buf), &eve_cfg, f, MK_FLOW_END_TIMEOUT, TEST_T0),
		     -ENOSPC);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[4096];
	size_t n;

	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(eve, merge_orders_by_epoch_time_start_flow_id)
{
	struct mk_eve_buf b[2] = { 0 };
	struct mk_eve_file f;
	char path[] = "/tmp/test_eve.XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(mk_eve_file_open(&f, path, 1), 0);
	cr_assert_eq(mk_eve_buf_add(&b[0], 0, 100, 20, 1, "c", 1), 0);
	cr_assert_eq(mk_eve_buf_add(&b[0], 0, 100, 10, 9, "b", 1), 0);
	cr_assert_eq(mk_eve_buf_add(&b[1], 0, 100, 10, 2, "a", 1), 0);
	cr_assert_eq(mk_eve_buf_add(&b[1], 0, 150, 5, 0, "d", 1), 0);
	cr_assert_eq(mk_eve_buf_add(&b[1], 1, 50, 5, 0, "e", 1), 0);
	cr_assert_eq(mk_eve_merge_write(&f, b, 2), 0);
	cr_assert_eq(mk_eve_file_close(&f), 0);
	cr_assert_eq(f.sink.written, 5);
	cr_assert_str_eq(slurp(path), "a\nb\nc\nd\ne\n",
			 "epoch first, then log time, then start, then flow_id");
	mk_eve_buf_free(&b[0]);
	mk_eve_buf_free(&b[1]);
	unlink(path);
}

Test(eve, file_appends_unless_truncated)
{
	struct mk_eve_file f;
	char path[] = "/tmp/test_eve.XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "old\n", 4), 4);
	close(fd);
	cr_assert_eq(mk_eve_file_open(&f, path, 0), 0);
	mk_eve_file_write(&f, "new", 3);
	cr_assert_eq(mk_eve_file_close(&f), 0);
	cr_assert_str_eq(slurp(path), "old\nnew\n");
	cr_assert_eq(mk_eve_file_open(&f, path, 1), 0);
	mk_eve_file_write(&f, "only", 4);
	cr_assert_eq(mk_eve_file_close(&f), 0);
	cr_assert_str_eq(slurp(path), "only\n");
	unlink(path);
}

Test(eve, full_disk_is_enospc_and_counted)
{
	struct mk_eve_file f;
	int i;

	if (access("/dev/full", W_OK))
		cr_skip_test("no /dev/full");
	cr_assert_eq(mk_eve_file_open(&f, "/dev/full", 0), 0);
	for (i = 0; i < 3; i++)
		mk_eve_file_write(&f, "{}", 2);
	cr_assert_eq(mk_eve_file_flush(&f), -ENOSPC);
	mk_eve_file_write(&f, "{}", 2);
	cr_assert_eq(mk_eve_file_close(&f), -ENOSPC, "the first error of the file's life");
	cr_assert_eq(f.sink.lost, 4);
	cr_assert_eq(f.sink.written, 0);
}

/*
 * The record as the snprintf-based formatter wrote it before the appenders
 * replaced it for speed (docs/security.md): an independent reference that
 * the fast one must match byte for byte.
 */
static void ref_ts(char *buf, uint64_t ts_us)
{
	time_t sec = (time_t)(ts_us / 1000000);
	struct tm tm;
	size_t n;

	gmtime_r(&sec, &tm);
	n = strftime(buf, MK_EVE_TS_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, MK_EVE_TS_LEN - n, ".%06u+0000", (unsigned int)(ts_us % 1000000));
}

#define RP(...) (n += snprintf(out + n, size - n, __VA_ARGS__))

static void ref_addr(char *out, size_t size, int family, const uint32_t *a)
{
	inet_ntop(family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, a, out, size);
}

static void ref_flow(char *out, size_t size, const struct mk_eve_fmt *cfg, const struct mk_flow *f,
		     enum mk_flow_reason reason, uint64_t ts_us)
{
	static const char *const names[] = {
		"syn", "fin", "rst", "psh", "ack", "urg", "ecn", "cwr"
	};
	static const uint8_t bits[] = { MK_TCP_SYN, MK_TCP_FIN, MK_TCP_RST, MK_TCP_PSH,
					MK_TCP_ACK, MK_TCP_URG, MK_TCP_ECE, MK_TCP_CWR };
	const struct mk_flow_key *k = &f->key;
	const uint32_t *src = f->client_hi ? k->addr_hi : k->addr_lo;
	const uint32_t *dst = f->client_hi ? k->addr_lo : k->addr_hi;
	int ports = k->proto == 6 || k->proto == 17 || k->proto == 132;
	char ts[MK_EVE_TS_LEN], t1[MK_EVE_TS_LEN], t2[MK_EVE_TS_LEN], sa[64], da[64], tmp[8];
	size_t n = 0;
	unsigned int i;

	ref_ts(ts, ts_us);
	ref_ts(t1, f->start_us);
	ref_ts(t2, f->last_us);
	ref_addr(sa, sizeof(sa), k->family, src);
	ref_addr(da, sizeof(da), k->family, dst);
	RP("{\"timestamp\":\"%s\",\"flow_id\":%llu", ts, (unsigned long long)f->flow_id);
	if (cfg->in_iface)
		RP(",\"in_iface\":\"%s\"", cfg->in_iface);
	RP(",\"event_type\":\"flow\"");
	if (f->vlan[0]) {
		RP(",\"vlan\":[%u", f->vlan[0]);
		if (f->vlan[1])
			RP(",%u", f->vlan[1]);
		RP("]");
	}
	RP(",\"src_ip\":\"%s\"", sa);
	if (ports)
		RP(",\"src_port\":%u", ntohs(f->client_hi ? k->port_hi : k->port_lo));
	RP(",\"dest_ip\":\"%s\"", da);
	if (ports)
		RP(",\"dest_port\":%u", ntohs(f->client_hi ? k->port_lo : k->port_hi));
	RP(",\"proto\":\"%s\"", mk_eve_proto_name(k->proto, tmp, sizeof(tmp)));
	if (k->proto == 1 || k->proto == 58)
		RP(",\"icmp_type\":%u,\"icmp_code\":%u", f->icmp_type, f->icmp_code);
	RP(",\"flow\":{\"pkts_toserver\":%llu,\"pkts_toclient\":%llu,\"bytes_toserver\":%llu,"
	   "\"bytes_toclient\":%llu,\"start\":\"%s\",\"end\":\"%s\",\"age\":%llu,\"state\":\"%s\","
	   "\"reason\":\"%s\",\"alerted\":%s}",
	   (unsigned long long)f->pkts[0], (unsigned long long)f->pkts[1],
	   (unsigned long long)f->bytes[0], (unsigned long long)f->bytes[1], t1, t2,
	   (unsigned long long)(f->last_us / 1000000 - f->start_us / 1000000),
	   mk_flow_state_name(f), mk_flow_reason_name(reason), f->alerted ? "true" : "false");
	if (cfg->community_id) {
		char cid[MK_COMMUNITY_ID_LEN];

		mk_community_id_flow(cid, cfg->community_id_seed, f);
		RP(",\"community_id\":\"%s\"", cid);
	}
	if (k->proto == 6) {
		uint8_t all = f->tcp_flags[0] | f->tcp_flags[1];

		RP(",\"tcp\":{\"tcp_flags\":\"%02x\",\"tcp_flags_ts\":\"%02x\",\"tcp_flags_tc\":\"%02x\"",
		   all, f->tcp_flags[0], f->tcp_flags[1]);
		for (i = 0; i < 8; i++)
			if (all & bits[i])
				RP(",\"%s\":true", names[i]);
		RP(",\"state\":\"%s\"}", mk_tcp_state_name(mk_tcp_session_state(&f->tcp)));
	}
	if (f->tunnel_depth) {
		static const char *const tnames[] = {
			[MK_TUNNEL_GTPU] = "gtpu",	  [MK_TUNNEL_L2TPV2] = "l2tpv2",
			[MK_TUNNEL_L2TPV3_IP] = "l2tpv3", [MK_TUNNEL_L2TPV3_UDP] = "l2tpv3",
			[MK_TUNNEL_VXLAN] = "vxlan",	  [MK_TUNNEL_GENEVE] = "geneve",
			[MK_TUNNEL_GRE] = "gre",	  [MK_TUNNEL_ERSPAN] = "erspan",
			[MK_TUNNEL_IPIP] = "ipip",
		};
		uint8_t ty = f->tunnel_type;

		RP(",\"tunnel\":{\"type\":\"%s\"",
		   ty < MK_ARRAY_SIZE(tnames) && tnames[ty] ? tnames[ty] : "unknown");
		if (f->outer_family == MK_FAMILY_IPV4 || f->outer_family == MK_FAMILY_IPV6) {
			ref_addr(sa, sizeof(sa), f->outer_family, f->outer_client);
			ref_addr(da, sizeof(da), f->outer_family, f->outer_server);
			RP(",\"src_ip\":\"%s\",\"dest_ip\":\"%s\"", sa, da);
		}
		if (ty == MK_TUNNEL_GTPU)
			RP(",\"teid\":%u", f->tunnel_id);
		else if (ty == MK_TUNNEL_L2TPV2)
			RP(",\"tunnel_id\":%u,\"session_id\":%u", f->tunnel_id >> 16,
			   f->tunnel_id & 0xffff);
		else if (ty == MK_TUNNEL_L2TPV3_IP || ty == MK_TUNNEL_L2TPV3_UDP ||
			 ty == MK_TUNNEL_ERSPAN)
			RP(",\"session_id\":%u", f->tunnel_id);
		else if (ty == MK_TUNNEL_VXLAN || ty == MK_TUNNEL_GENEVE)
			RP(",\"vni\":%u", f->tunnel_id);
		else if (ty == MK_TUNNEL_GRE)
			RP(",\"key\":%u", f->tunnel_id);
		RP(",\"depth\":%u}", f->tunnel_depth);
	}
	RP("}");
}

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

Test(eve, timestamps_equal_strftime)
{
	char a[MK_EVE_TS_LEN], b[MK_EVE_TS_LEN];
	uint64_t ts;
	int i;

	for (i = 0; i < 200000; i++) {
		/* every second of 1970-2100, then any 64-bit microsecond count */
		ts = i < 100000 ? rnd64() % (4102444800ull * 1000000) :
				  rnd64() % 253402300800000000ull;
		mk_eve_ts(a, ts);
		ref_ts(b, ts);
		cr_assert_str_eq(a, b, "ts %llu", (unsigned long long)ts);
	}
	/* a pcapng timestamp past year 9999 is logged as its last microsecond */
	mk_eve_ts(a, UINT64_MAX);
	cr_assert_str_eq(a, "9999-12-31T23:59:59.999999+0000");
	mk_eve_ts(a, 253402300800000000ull);
	cr_assert_str_eq(a, "9999-12-31T23:59:59.999999+0000");
}

Test(eve, records_equal_the_snprintf_reference)
{
	static const uint8_t protos[] = { 6, 17, 1, 58, 132, 47, 61, 0, 255 };
	static const uint8_t tunnels[] = { MK_TUNNEL_GTPU,	MK_TUNNEL_L2TPV2,
					   MK_TUNNEL_L2TPV3_IP, MK_TUNNEL_L2TPV3_UDP,
					   MK_TUNNEL_VXLAN,	MK_TUNNEL_GENEVE,
					   MK_TUNNEL_GRE,	MK_TUNNEL_ERSPAN,
					   MK_TUNNEL_IPIP,	99 };
	char got[MK_EVE_LINE_MAX], want[MK_EVE_LINE_MAX];
	struct mk_flow f;
	uint64_t ts;
	int i, n;

	for (i = 0; i < 20000; i++) {
		struct mk_eve_fmt cfg = { .community_id = i & 1,
					  .community_id_seed = (uint16_t)i,
					  .in_iface = i & 2 ? "eth0" : NULL };
		int v6 = (i >> 2) & 1, j;

		memset(&f, 0, sizeof(f));
		for (j = 0; j < 4; j++) {
			f.key.addr_lo[j] = v6 || !j ? (uint32_t)rnd64() : 0;
			f.key.addr_hi[j] = v6 || !j ? (uint32_t)rnd64() : 0;
		}
		if (i % 7 == 0)
			f.key.addr_lo[0] = 0; /* 0.0.0.0, ::x */
		f.key.family = v6 ? MK_FAMILY_IPV6 : MK_FAMILY_IPV4;
		f.key.proto = protos[i % MK_ARRAY_SIZE(protos)];
		f.key.port_lo = (uint16_t)rnd64();
		f.key.port_hi = (uint16_t)rnd64();
		f.client_hi = (uint8_t)(i >> 3 & 1);
		f.flow_id = rnd64() & 0x0007ffffffffffffull;
		f.start_us = rnd64() % (4102444800ull * 1000000);
		f.last_us = f.start_us + (i & 16 ? rnd64() % 100000000000ull : 0);
		f.pkts[0] = i & 32 ? rnd64() : rnd64() % 10;
		f.pkts[1] = rnd64() % 1000;
		f.bytes[0] = rnd64();
		f.bytes[1] = i & 64 ? 0 : rnd64();
		f.tcp_flags[0] = (uint8_t)rnd64();
		f.tcp_flags[1] = (uint8_t)rnd64();
		f.state = (uint8_t)(rnd64() % MK_FLOW_STATE_MAX);
		f.bypassed = i % 11 == 0;
		f.alerted = i % 13 == 0;
		f.tcp.state = (uint8_t)(rnd64() % MK_TCP_STATE_MAX);
		f.icmp_type = (uint8_t)rnd64();
		f.icmp_code = (uint8_t)rnd64();
		f.vlan[0] = i & 128 ? (uint16_t)(rnd64() % 4096) : 0;
		f.vlan[1] = f.vlan[0] && (i & 256) ? (uint16_t)(rnd64() % 4096) : 0;
		if (i & 512) {
			f.tunnel_depth = (uint8_t)(1 + rnd64() % 3);
			f.tunnel_type = tunnels[i % MK_ARRAY_SIZE(tunnels)];
			f.tunnel_id = (uint32_t)rnd64();
			/* live capture has no outer IPv6 addresses: family none */
			f.outer_family = i & 1024 ? MK_FAMILY_IPV6 :
					 i & 2048 ? MK_FAMILY_NONE :
						    MK_FAMILY_IPV4;
			for (j = 0; j < 4; j++) {
				f.outer_client[j] = f.outer_family == MK_FAMILY_IPV6 || !j ?
							    (uint32_t)rnd64() :
							    0;
				f.outer_server[j] = f.outer_family == MK_FAMILY_IPV6 || !j ?
							    (uint32_t)rnd64() :
							    0;
			}
		}
		ts = rnd64() % (4102444800ull * 1000000);
		ref_flow(want, sizeof(want), &cfg, &f, (enum mk_flow_reason)(i % 4), ts);
		n = mk_eve_flow(got, sizeof(got), &cfg, &f, (enum mk_flow_reason)(i % 4), ts);
		cr_assert_eq(n, (int)strlen(want));
		cr_assert_str_eq(got, want);
		/* the compact form is a subset: valid JSON, never longer */
		n = mk_eve_flow_compact(got, sizeof(got), &cfg, &f, (enum mk_flow_reason)(i % 4),
					ts);
		cr_assert_gt(n, 0);
		cr_assert_leq((size_t)n, strlen(want));
	}
}

Test(eve, every_short_buffer_is_enospc_never_an_overrun)
{
	struct mk_parse p = test_parse("2001:db8::1", 1, "2001:db8::2", 2, MK_IPPROTO_TCP);
	struct mk_eve_fmt cfg = { .community_id = 1, .in_iface = "eth0" };
	struct mk_flow *f = add(&p, TEST_T0, 60, MK_TCP_SYN);
	char full[MK_EVE_LINE_MAX], *buf;
	int n = mk_eve_flow(full, sizeof(full), &cfg, f, MK_FLOW_END_TIMEOUT, TEST_T0), k;

	cr_assert_gt(n, 0);
	/* exact-size heap buffers: ASan sees any byte written past the end */
	for (k = 0; k <= n + 1; k++) {
		buf = malloc(k ? (size_t)k : 1);
		cr_assert_not_null(buf);
		cr_assert_eq(mk_eve_flow(buf, (size_t)k, &cfg, f, MK_FLOW_END_TIMEOUT, TEST_T0),
			     k > n ? n : -ENOSPC, "size %d", k);
		if (k > n)
			cr_assert_str_eq(buf, full);
		free(buf);
	}
}

Test(eve, write_cut_short_by_the_disk_leaves_whole_lines)
{
	struct rlimit rl = { .rlim_cur = 100, .rlim_max = RLIM_INFINITY };
	struct mk_eve_file f;
	char path[] = "/tmp/test_eve.XXXXXX", line[40];
	int fd = mkstemp(path), i;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "old\n", 4), 4);
	close(fd);
	/* the "disk" takes 96 more bytes: the batch below is cut mid-line */
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	cr_assert_eq(mk_eve_file_open(&f, path, 0), 0);
	memset(line, 'r', sizeof(line));
	for (i = 0; i < 3; i++)
		mk_eve_file_write(&f, line, sizeof(line));
	cr_assert_eq(mk_eve_file_flush(&f), -EFBIG);
	cr_assert_eq(f.sink.lost, 3);
	cr_assert_str_eq(slurp(path), "old\n", "the part the disk took was cut off again");
	/* space is back: the next records land on a line of their own */
	rl.rlim_cur = RLIM_INFINITY;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	mk_eve_file_write(&f, "new", 3);
	cr_assert_eq(mk_eve_file_close(&f), -EFBIG, "the first error of the file's life");
	cr_assert_str_eq(slurp(path), "old\nnew\n");
	cr_assert_eq(f.sink.written, 1);
	unlink(path);
}
