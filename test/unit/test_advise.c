// SPDX-License-Identifier: GPL-2.0-only
/*
 * The router advisor (userspace/advise/): which rules are chosen (sid,
 * classtype, metadata, from rules the engine parsed), who the offender is
 * (target:src_ip), the ExaBGP route text, the table's announce / extend /
 * refuse / expire / withdraw with its counters and EVE records, the
 * `advise-router` keys and their errors, and the announcer end to end over
 * its unix socket: a pipe gets announcements, a late pipe the active ones,
 * and the withdrawals at stop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include "advise.h"
#include "announcer.h"
#include "config.h"
#include "detect.h"
#include "log.h"

#define CLASSES                                                                    \
	"config classification: trojan-activity,A Network Trojan was detected,1\n" \
	"config classification: misc-activity,Misc activity,3\n"

#define RULES                                                                                 \
	"alert tcp any any -> any any (msg:\"by sid\"; content:\"a\"; sid:100;)\n"            \
	"alert tcp any any -> any any (msg:\"by class\"; content:\"b\"; "                     \
	"classtype:trojan-activity; sid:101;)\n"                                              \
	"alert tcp any any -> any any (msg:\"by meta\"; content:\"c\"; "                      \
	"metadata:former_category MALWARE, block yes; sid:102;)\n"                            \
	"alert tcp any any -> any any (msg:\"other meta\"; content:\"d\"; "                   \
	"metadata:block no; classtype:misc-activity; sid:103;)\n"                             \
	"alert tcp any any -> any any (msg:\"victim is src\"; content:\"e\"; target:src_ip; " \
	"metadata:block yes; sid:104;)\n"

static struct mk_detect_engine *engine;
static char classes_path[64];

static void engine_up(void)
{
	struct mk_detect_cfg cfg;
	FILE *f;

	strcpy(classes_path, "/tmp/mk-advise-classes.XXXXXX");
	f = fdopen(mkstemp(classes_path), "w");
	cr_assert_not_null(f);
	fputs(CLASSES, f);
	fclose(f);
	mk_detect_cfg_defaults(&cfg);
	cfg.classification_file = classes_path;
	cfg.reference_config_file = NULL;
	cfg.rules_text = RULES;
	cfg.rules_text_name = "advise.rules";
	cfg.strict = 1;
	cr_assert_eq(mk_detect_engine_build(&cfg, NULL, &engine), 0);
}

static void engine_down(void)
{
	mk_detect_engine_put(engine);
	unlink(classes_path);
}

static void info_of(uint32_t sid, struct mk_detect_rule_info *ri)
{
	const struct mk_rule *r = mk_detect_engine_rule(engine, 1, sid);

	cr_assert_not_null(r, "sid %u loaded", sid);
	mk_detect_rule_info(r, ri);
}

/* A configuration from YAML text: 0 or the loader's error. */
static int cfg_load(struct mk_config *c, const char *yaml)
{
	mk_config_defaults(c);
	return mk_config_load_buf(c, yaml, strlen(yaml), "t.yaml");
}

TestSuite(advise, .init = engine_up, .fini = engine_down);

Test(advise, selection_by_sid_classtype_and_metadata)
{
	struct mk_config c;
	struct mk_detect_rule_info ri;

	cr_assert_eq(cfg_load(&c, "advise-router:\n  sids: [7, 100]\n"
				  "  classtypes: [trojan-activity]\n"),
		     0);
	info_of(100, &ri);
	cr_expect(mk_advise_select(&c.advise, &ri), "sid 100 is listed");
	info_of(101, &ri);
	cr_expect_str_eq(ri.classtype, "trojan-activity");
	cr_expect(mk_advise_select(&c.advise, &ri), "classtype trojan-activity is listed");
	info_of(102, &ri);
	cr_expect(mk_advise_select(&c.advise, &ri), "metadata block yes, the default selector");
	info_of(103, &ri);
	cr_expect_not(mk_advise_select(&c.advise, &ri), "block no, misc-activity: not chosen");
	mk_config_free(&c);

	/* an empty metadata list drops the default: only the sid is chosen */
	cr_assert_eq(cfg_load(&c, "advise-router:\n  sids: [102]\n  metadata: []\n"), 0);
	info_of(104, &ri);
	cr_expect_not(mk_advise_select(&c.advise, &ri));
	info_of(102, &ri);
	cr_expect(mk_advise_select(&c.advise, &ri));
	mk_config_free(&c);
}

static struct mk_advise_req req4(const char *src, const char *dst, uint16_t sp, uint16_t dp)
{
	struct mk_advise_req r = { .family = MK_FAMILY_IPV4,
				   .proto = 6,
				   .has_ports = 1,
				   .sport = sp,
				   .dport = dp,
				   .gid = 1,
				   .sid = 100,
				   .flow_id = 42 };

	cr_assert_eq(inet_pton(AF_INET, src, r.src), 1);
	cr_assert_eq(inet_pton(AF_INET, dst, r.dst), 1);
	return r;
}

Test(advise, offender_and_route_text)
{
	struct mk_config c;
	struct mk_detect_rule_info ri;
	struct mk_detect_alert a = {
		.family = MK_FAMILY_IPV4, .proto = 6, .has_ports = 1, .sport = 4444, .dport = 80
	};
	struct mk_advise_req r;
	char buf[400];

	cr_assert_eq(cfg_load(&c, "advise-router:\n  communities: [\"65535:666\", no-export]\n"
				  "  next-hop: 192.0.2.66\n"),
		     0);
	inet_pton(AF_INET, "203.0.113.9", a.src);
	inet_pton(AF_INET, "198.51.100.1", a.dst);
	info_of(102, &ri);
	mk_advise_req_fill(&r, &a, &ri);
	cr_assert_gt(mk_advise_route(&c.advise, &r, buf, sizeof(buf)), 0);
	cr_expect_str_eq(
		buf, "route 203.0.113.9/32 next-hop 192.0.2.66 community [65535:666 no-export]");
	/* target:src_ip says the source is the victim: the destination is blocked */
	info_of(104, &ri);
	mk_advise_req_fill(&r, &a, &ri);
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(
		buf, "route 198.51.100.1/32 next-hop 192.0.2.66 community [65535:666 no-export]");
	/* no community at all */
	cr_assert_eq(cfg_load(&c, "advise-router:\n  communities: []\n"), 0);
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "route 198.51.100.1/32 next-hop 192.0.2.1");
	mk_config_free(&c);

	/* IPv6: /128 and the IPv6 next hop */
	cr_assert_eq(cfg_load(&c, "advise-router:\n  next-hop-v6: \"2001:db8:0::1\"\n"), 0);
	memset(&r, 0, sizeof(r));
	r.family = MK_FAMILY_IPV6;
	inet_pton(AF_INET6, "2001:db8:1::5", r.src);
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "route 2001:db8:1::5/128 next-hop 2001:db8::1 community [65535:666]");
	mk_config_free(&c);

	/* flowspec: the 5-tuple oriented from the offender, discard */
	cr_assert_eq(cfg_load(&c, "advise-router:\n  mode: flowspec\n"), 0);
	r = req4("203.0.113.9", "198.51.100.1", 4444, 80);
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "flow route { match { source 203.0.113.9/32; destination "
			      "198.51.100.1/32; protocol tcp; source-port =4444; "
			      "destination-port =80; } then { discard; } }");
	r.offender_dst = 1;
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "flow route { match { source 198.51.100.1/32; destination "
			      "203.0.113.9/32; protocol tcp; source-port =80; "
			      "destination-port =4444; } then { discard; } }");
	r.offender_dst = 0;
	r.proto = 1;
	r.has_ports = 0;
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "flow route { match { source 203.0.113.9/32; destination "
			      "198.51.100.1/32; protocol icmp; } then { discard; } }");
	r.proto = 47;
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "flow route { match { source 203.0.113.9/32; destination "
			      "198.51.100.1/32; protocol =47; } then { discard; } }");
	/* IPv6: next-header instead of protocol */
	memset(&r, 0, sizeof(r));
	r.family = MK_FAMILY_IPV6;
	r.proto = 17;
	r.has_ports = 1;
	r.sport = 1;
	r.dport = 53;
	inet_pton(AF_INET6, "2001:db8:1::5", r.src);
	inet_pton(AF_INET6, "2001:db8:2::6", r.dst);
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "flow route { match { source 2001:db8:1::5/128; destination "
			      "2001:db8:2::6/128; next-header udp; source-port =1; "
			      "destination-port =53; } then { discard; } }");
	r.proto = 58;
	r.has_ports = 0;
	mk_advise_route(&c.advise, &r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "flow route { match { source 2001:db8:1::5/128; destination "
			      "2001:db8:2::6/128; next-header =58; } then { discard; } }");
	mk_config_free(&c);
}

/* ---- the table, with a test clock -------------------------------------------------- */

struct captured {
	char cmds[4096];
	json_t *recs[32];
	unsigned int nrecs;
};

static void cap_command(void *ctx, const char *line, size_t len)
{
	struct captured *k = ctx;

	cr_assert_eq(line[len - 1], '\n');
	if (strlen(k->cmds) + len < sizeof(k->cmds)) /* the first ones are looked at */
		strncat(k->cmds, line, len);
}

static void cap_record(void *ctx, const char *line, size_t len)
{
	struct captured *k = ctx;
	json_error_t e;

	cr_assert_eq(line[len - 1], '\n', "a record is one line");
	json_t *j = json_loadb(line, len, 0, &e);

	cr_assert_not_null(j, "valid JSON: %s", e.text);
	if (k->nrecs < 32)
		k->recs[k->nrecs++] = j; /* the first ones are looked at */
	else
		json_decref(j);
}

static void cap_reset(struct captured *k)
{
	while (k->nrecs)
		json_decref(k->recs[--k->nrecs]);
	k->cmds[0] = '\0';
}

static const char *rec_str(const struct captured *k, unsigned int i, const char *path)
{
	json_t *v = json_object_get(k->recs[i], "bgp_advise");

	v = v ? json_object_get(v, path) : NULL;
	return v ? json_string_value(v) : "";
}

#define S 1000000000ull

Test(advise, table_announce_extend_expire_limit_refusals)
{
	struct mk_config c;
	struct captured k = { 0 };
	struct mk_advise_out out = { cap_command, cap_record, &k };
	struct mk_advise_table t;
	struct mk_advise_req r;
	struct mk_cidr own;

	cr_assert_eq(cfg_load(&c, "advise-router:\n  ttl: 10\n  max-active: 2\n"
				  "  allow: [203.0.113.0/24]\n"),
		     0);
	cr_assert_eq(mk_cidr_parse("198.18.0.1", &own), 0);
	cr_assert_eq(mk_advise_table_init(&t, &c.advise, &own, 1, &out), 0);

	/* announce: the command and a record with the alert's tuple */
	r = req4("198.51.100.7", "198.18.0.1", 5555, 80);
	cr_expect_eq(mk_advise_offer(&t, &r, 100 * S, 1), MK_ADVISE_RES_ANNOUNCED);
	cr_expect_str_eq(k.cmds, "announce route 198.51.100.7/32 next-hop 192.0.2.1 community "
				 "[65535:666]\n");
	cr_assert_eq(k.nrecs, 1);
	cr_expect_str_eq(json_string_value(json_object_get(k.recs[0], "event_type")), "bgp_advise");
	cr_expect_str_eq(json_string_value(json_object_get(k.recs[0], "src_ip")), "198.51.100.7");
	cr_expect_eq(json_integer_value(json_object_get(k.recs[0], "dest_port")), 80);
	cr_expect_str_eq(rec_str(&k, 0, "action"), "announce");
	cr_expect_str_eq(rec_str(&k, 0, "reason"), "alert");
	cr_expect_str_eq(rec_str(&k, 0, "prefix"), "198.51.100.7/32");
	cr_expect_eq(t.active, 1);
	cap_reset(&k);

	/* the same source again, 8 s later: extended to 18 s, nothing said */
	r.sport = 5556;
	cr_expect_eq(mk_advise_offer(&t, &r, 108 * S, 2), MK_ADVISE_RES_EXTENDED);
	cr_expect_str_eq(k.cmds, "");
	cr_expect_eq(k.nrecs, 0);
	cr_expect_eq(mk_advise_expire(&t, 115 * S, 3), 0, "alive until 118 s");

	/* refusals: allow list, the sensor's own address, a multicast source */
	r = req4("203.0.113.50", "198.18.0.1", 1, 2);
	cr_expect_eq(mk_advise_offer(&t, &r, 110 * S, 4), MK_ADVISE_RES_REFUSED_ALLOW);
	r = req4("198.18.0.1", "198.51.100.7", 1, 2);
	cr_expect_eq(mk_advise_offer(&t, &r, 110 * S, 4), MK_ADVISE_RES_REFUSED_OWN);
	r = req4("224.0.0.5", "198.18.0.1", 1, 2);
	cr_expect_eq(mk_advise_offer(&t, &r, 110 * S, 4), MK_ADVISE_RES_REFUSED_SPECIAL);
	r = req4("127.0.0.1", "198.18.0.1", 1, 2);
	cr_expect_eq(mk_advise_offer(&t, &r, 110 * S, 4), MK_ADVISE_RES_REFUSED_SPECIAL);
	cr_expect_str_eq(k.cmds, "", "a refusal is never announced");
	cr_assert_eq(k.nrecs, 4);
	cr_expect_str_eq(rec_str(&k, 0, "action"), "refused");
	cr_expect_str_eq(rec_str(&k, 0, "reason"), "allowlist");
	cr_expect_str_eq(rec_str(&k, 1, "reason"), "own_address");
	cr_expect_str_eq(rec_str(&k, 2, "reason"), "special_address");
	cr_expect_eq(t.cnt[MK_ADVISE_REFUSED_ALLOWLIST], 4);
	cap_reset(&k);

	/* max-active 2: a second is announced, a third refused and counted */
	r = req4("198.51.100.8", "198.18.0.1", 1, 2);
	cr_expect_eq(mk_advise_offer(&t, &r, 111 * S, 5), MK_ADVISE_RES_ANNOUNCED);
	r = req4("198.51.100.9", "198.18.0.1", 1, 2);
	cr_expect_eq(mk_advise_offer(&t, &r, 111 * S, 5), MK_ADVISE_RES_REFUSED_LIMIT);
	cr_expect_eq(t.cnt[MK_ADVISE_REFUSED_LIMIT], 1);
	cr_expect_str_eq(rec_str(&k, 1, "reason"), "limit");
	cap_reset(&k);

	/* 118 s: the first expires and is withdrawn; room again for the third */
	cr_expect_eq(mk_advise_expire(&t, 118 * S, 6), 1);
	cr_expect_str_eq(k.cmds, "withdraw route 198.51.100.7/32 next-hop 192.0.2.1 community "
				 "[65535:666]\n");
	cr_expect_str_eq(rec_str(&k, 0, "action"), "withdraw");
	cr_expect_str_eq(rec_str(&k, 0, "reason"), "expired");
	cap_reset(&k);
	cr_expect_eq(mk_advise_offer(&t, &r, 119 * S, 7), MK_ADVISE_RES_ANNOUNCED);
	cr_expect_eq(t.active, 2);
	cap_reset(&k);

	/* what a pipe that connects now is told, then shutdown */
	mk_advise_foreach_active(&t, cap_command, &k);
	cr_expect(strstr(k.cmds, "announce route 198.51.100.8/32 ") &&
			  strstr(k.cmds, "announce route 198.51.100.9/32 "),
		  "%s", k.cmds);
	k.cmds[0] = '\0';
	cr_expect_eq(mk_advise_withdraw_all(&t, 8), 2);
	cr_expect_eq(t.active, 0);
	cr_expect(strstr(k.cmds, "withdraw route 198.51.100.8/32 ") &&
			  strstr(k.cmds, "withdraw route 198.51.100.9/32 "),
		  "%s", k.cmds);
	cr_expect_str_eq(rec_str(&k, 0, "reason"), "shutdown");
	cr_expect_eq(t.cnt[MK_ADVISE_ANNOUNCED], 3);
	cr_expect_eq(t.cnt[MK_ADVISE_WITHDRAWN], 3);
	cr_expect_eq(t.cnt[MK_ADVISE_EXTENDED], 1);
	cap_reset(&k);
	mk_advise_table_free(&t);
	mk_config_free(&c);
}

Test(advise, table_many_entries_hash_chains)
{
	struct mk_config c;
	struct captured k = { 0 };
	struct mk_advise_out out = { cap_command, cap_record, &k };
	struct mk_advise_table t;
	unsigned int i;
	char a[32];

	cr_assert_eq(cfg_load(&c, "advise-router:\n  ttl: 5\n  max-active: 3000\n"), 0);
	cr_assert_eq(mk_advise_table_init(&t, &c.advise, NULL, 0, &out), 0);
	for (i = 0; i < 3000; i++) {
		struct mk_advise_req r;

		snprintf(a, sizeof(a), "10.1.%u.%u", i >> 8, i & 255);
		r = req4(a, "198.18.0.1", 1, 2);
		cr_assert_eq(mk_advise_offer(&t, &r, i * 1000ull, 0), MK_ADVISE_RES_ANNOUNCED);
		k.cmds[0] = '\0';
		cap_reset(&k);
	}
	for (i = 0; i < 3000; i += 7) {
		struct mk_advise_req r;

		snprintf(a, sizeof(a), "10.1.%u.%u", i >> 8, i & 255);
		r = req4(a, "198.18.0.1", 1, 2);
		cr_assert_eq(mk_advise_offer(&t, &r, 3 * S, 0), MK_ADVISE_RES_EXTENDED, "%s", a);
	}
	/* at 6 s everything but the extended ones (until 8 s) is gone */
	for (i = 0; i < 3000; i++) {
		unsigned int n = mk_advise_expire(&t, 6 * S, 0);

		cap_reset(&k);
		if (!n)
			break;
	}
	cr_expect_eq(t.active, (3000 + 6) / 7);
	mk_advise_withdraw_all(&t, 0);
	cap_reset(&k);
	cr_expect_eq(t.active, 0);
	cr_expect_eq(t.cnt[MK_ADVISE_WITHDRAWN], 3000);
	mk_advise_table_free(&t);
	mk_config_free(&c);
}

/* ---- the keys -------------------------------------------------------------------------- */

static int load_quiet(struct mk_config *c, const char *yaml)
{
	int rc;

	mk_log_set_level(MK_LOG_ERROR - 1);
	rc = cfg_load(c, yaml);
	mk_log_set_level(MK_LOG_INFO);
	mk_config_free(c);
	return rc;
}

Test(advise, config_keys_and_errors)
{
	struct mk_config c;

	cr_assert_eq(cfg_load(&c, "advise-router:\n  enabled: yes\n  socket-mode: \"0600\"\n"
				  "  sids: [3, 1, 2]\n  allow: [10.0.0.0/8, \"2001:db8::/32\"]\n"),
		     0);
	cr_expect_eq(c.advise.socket_mode, 0600);
	cr_assert_eq(c.advise.nsids, 3);
	cr_expect(c.advise.sids[0] == 1 && c.advise.sids[2] == 3, "sorted");
	cr_expect_eq(c.advise.nallow, 2);
	mk_config_free(&c);

	cr_expect_eq(load_quiet(&c, "advise-router:\n  socket-mode: \"0999\"\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  socket-mode: \"01000\"\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  next-hop: \"2001:db8::1\"\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  next-hop-v6: 192.0.2.1\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  communities: [\"65536:1\"]\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  communities: [\"1:\"]\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  communities: \"65535:666\"\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  sids: [0]\n"), -ERANGE);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  sids: [x]\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  metadata: [block]\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  metadata: [\"a b c\"]\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  allow: [10.0.0.0/33]\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  queue-size: 1000\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  mode: nullroute\n"), -EINVAL);
	cr_expect_eq(load_quiet(&c, "advise-router:\n  enabled: yes\n  metadata: []\n"), -EINVAL,
		     "enabled and selecting nothing");
}

/* ---- the announcer over its socket ------------------------------------------------------ */

struct rec_sink {
	char buf[8192];
	size_t len;
};

static void sink_record(void *ctx, const char *line, size_t len)
{
	struct rec_sink *s = ctx;

	if (s->len + len < sizeof(s->buf)) {
		memcpy(s->buf + s->len, line, len);
		s->len += len;
		s->buf[s->len] = '\0';
	}
}

static int pipe_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(sa.sun_path, path);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	return fd;
}

/* Reads from @fd until @want appears (5 s at most); the text read in @buf. */
static int read_until(int fd, const char *want, char *buf, size_t len)
{
	size_t have = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	buf[0] = '\0';
	while (!strstr(buf, want)) {
		ssize_t n;

		if (poll(&p, 1, 5000) <= 0)
			return 0;
		n = read(fd, buf + have, len - 1 - have);
		if (n <= 0)
			return 0;
		have += (size_t)n;
		buf[have] = '\0';
	}
	return 1;
}

Test(advise, announcer_socket_resync_and_shutdown)
{
	struct mk_config c;
	struct mk_advisor *adv;
	struct rec_sink recs = { .len = 0 };
	struct mk_detect_alert a = {
		.family = MK_FAMILY_IPV4, .proto = 6, .has_ports = 1, .sport = 4444, .dport = 80
	};
	char dir[] = "/tmp/mk-advise-sock.XXXXXX", yaml[512], buf[4096];
	json_t *st;
	int p1, p2;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(yaml, sizeof(yaml),
		 "advise-router:\n  enabled: yes\n  socket: %s/sub/exabgp.sock\n  ttl: 60\n", dir);
	cr_assert_eq(cfg_load(&c, yaml), 0);
	cr_assert_eq(mk_advisor_new(&adv, &c.advise, 2, sink_record, &recs), 0);
	cr_assert_eq(mk_advisor_start(adv), 0);
	snprintf(buf, sizeof(buf), "%s/sub/exabgp.sock", dir);
	p1 = pipe_connect(buf);

	inet_pton(AF_INET, "203.0.113.9", a.src);
	inet_pton(AF_INET, "198.51.100.1", a.dst);
	a.rule = mk_detect_engine_rule(engine, 1, 102); /* metadata block yes */
	mk_advisor_alert(adv, 1, &a);
	a.rule = mk_detect_engine_rule(engine, 1, 103); /* not chosen */
	inet_pton(AF_INET, "203.0.113.10", a.src);
	mk_advisor_alert(adv, 0, &a);
	cr_expect(read_until(p1,
			     "announce route 203.0.113.9/32 next-hop 192.0.2.1 community "
			     "[65535:666]\n",
			     buf, sizeof(buf)),
		  "first pipe got: %s", buf);
	cr_expect_null(strstr(buf, "203.0.113.10"));

	/* a pipe connecting later learns the active announcement */
	snprintf(buf, sizeof(buf), "%s/sub/exabgp.sock", dir);
	p2 = pipe_connect(buf);
	cr_expect(read_until(p2, "announce route 203.0.113.9/32 ", buf, sizeof(buf)),
		  "late pipe got: %s", buf);

	st = mk_advisor_stats_json(adv);
	cr_expect_eq(json_integer_value(json_object_get(st, "selected")), 1);
	cr_expect_eq(json_integer_value(json_object_get(st, "announced")), 1);
	cr_expect_eq(json_integer_value(json_object_get(st, "active")), 1);
	cr_expect_eq(json_integer_value(json_object_get(st, "connections")), 2);
	json_decref(st);

	/* a second advisor on the same socket is refused; the first one's socket stays */
	mk_log_set_level(MK_LOG_ERROR - 1);
	{
		struct mk_advisor *second;

		cr_expect_eq(mk_advisor_new(&second, &c.advise, 1, sink_record, &recs),
			     -EADDRINUSE);
	}
	mk_log_set_level(MK_LOG_INFO);
	snprintf(buf, sizeof(buf), "%s/sub/exabgp.sock", dir);
	close(pipe_connect(buf));

	/* stop: both pipes are told to withdraw */
	mk_advisor_stop(adv);
	cr_expect(read_until(p1, "withdraw route 203.0.113.9/32 ", buf, sizeof(buf)), "%s", buf);
	cr_expect(read_until(p2, "withdraw route 203.0.113.9/32 ", buf, sizeof(buf)), "%s", buf);
	cr_expect(strstr(recs.buf, "\"action\":\"announce\"") &&
			  strstr(recs.buf, "\"action\":\"withdraw\",\"reason\":\"shutdown\""),
		  "records: %s", recs.buf);
	close(p1);
	close(p2);
	mk_advisor_free(adv);
	snprintf(buf, sizeof(buf), "%s/sub/exabgp.sock", dir);
	cr_expect_neq(access(buf, F_OK), 0, "the socket is removed");
	snprintf(buf, sizeof(buf), "%s/sub", dir);
	rmdir(buf);
	rmdir(dir);
	mk_config_free(&c);
}

Test(advise, announcer_refuses_a_file_in_the_socket_s_place)
{
	struct mk_config c;
	struct mk_advisor *adv;
	char path[] = "/tmp/mk-advise-file.XXXXXX", yaml[256];
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(yaml, sizeof(yaml), "advise-router:\n  enabled: yes\n  socket: %s\n", path);
	cr_assert_eq(cfg_load(&c, yaml), 0);
	mk_log_set_level(MK_LOG_ERROR - 1);
	cr_expect_eq(mk_advisor_new(&adv, &c.advise, 1, sink_record, NULL), -EEXIST);
	mk_log_set_level(MK_LOG_INFO);
	cr_expect_eq(access(path, F_OK), 0, "the file is left alone");
	unlink(path);
	mk_config_free(&c);

	/* socket-group: a group that does not exist is refused by name */
	snprintf(yaml, sizeof(yaml),
		 "advise-router:\n  enabled: yes\n  socket: %s\n  socket-group: no-such-group-x\n",
		 path);
	cr_assert_eq(cfg_load(&c, yaml), 0);
	mk_log_set_level(MK_LOG_ERROR - 1);
	cr_expect_eq(mk_advisor_new(&adv, &c.advise, 1, sink_record, NULL), -ENOENT);
	mk_log_set_level(MK_LOG_INFO);
	mk_config_free(&c);
}

/* ---- meerkat-exabgp-pipe ------------------------------------------------------------------ */

/*
 * The pipe between a listening socket (the test plays meerkat) and pipes
 * for its stdin and stdout (the test plays ExaBGP): only announce and
 * withdraw lines pass, an overlong line is dropped whole, and what was
 * announced and not withdrawn is withdrawn when the connection ends.
 */
Test(advise, exabgp_pipe_lines_and_withdrawal_on_loss)
{
	const char *bin = getenv("MK_EXABGP_PIPE");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/mk-advise-pipe.XXXXXX", buf[8192], longline[3000];
	int lfd, cfd, in[2], out[2];
	pid_t pid;

	cr_assert_not_null(bin, "MK_EXABGP_PIPE is set by meson");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", dir);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(lfd, 1), 0);
	cr_assert_eq(pipe(in), 0);
	cr_assert_eq(pipe(out), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		close(in[1]); /* or its stdin never ends */
		close(out[0]);
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(bin, bin, sa.sun_path, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	cfd = accept(lfd, NULL, NULL);
	cr_assert_geq(cfd, 0);

	memset(longline, 'x', sizeof(longline) - 2);
	memcpy(longline, "announce ", 9);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	dprintf(cfd, "announce route 198.51.100.1/32 next-hop 192.0.2.1\n"
		     "shutdown\n");
	cr_assert_eq(write(cfd, longline, strlen(longline)), (ssize_t)strlen(longline));
	dprintf(cfd, "announce route 198.51.100.2/32 next-hop 192.0.2.1\n"
		     "announce route 198.51.100.3/32 next-hop 192.0.2.1\n"
		     "withdraw route 198.51.100.2/32 next-hop 192.0.2.1\n");
	/* ExaBGP's acknowledgements are read and dropped */
	cr_assert_eq(write(in[1], "done\ndone\n", 10), 10);
	cr_expect(read_until(out[0], "withdraw route 198.51.100.2/32 next-hop 192.0.2.1\n", buf,
			     sizeof(buf)),
		  "got: %s", buf);
	cr_expect_str_eq(buf, "announce route 198.51.100.1/32 next-hop 192.0.2.1\n"
			      "announce route 198.51.100.2/32 next-hop 192.0.2.1\n"
			      "announce route 198.51.100.3/32 next-hop 192.0.2.1\n"
			      "withdraw route 198.51.100.2/32 next-hop 192.0.2.1\n");

	/* the connection ends without withdrawals: the pipe withdraws .1 and .3 */
	close(cfd);
	cr_expect(read_until(out[0], "withdraw route 198.51.100.3/32 next-hop 192.0.2.1\n", buf,
			     sizeof(buf)),
		  "got: %s", buf);
	cr_expect(strstr(buf, "withdraw route 198.51.100.1/32 next-hop 192.0.2.1\n"), "got: %s",
		  buf);
	cr_expect_null(strstr(buf, "198.51.100.2/"), "got: %s", buf);

	/* and connects again */
	cfd = accept(lfd, NULL, NULL);
	cr_expect_geq(cfd, 0, "the pipe reconnects");
	close(cfd);

	/* ExaBGP closes its stdin: the pipe exits 0 */
	close(in[1]);
	{
		int status = -1;

		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	}
	close(out[0]);
	close(lfd);
	unlink(sa.sun_path);
	rmdir(dir);
}

/* Stats counter @name of @a. */
static long long stat_of(struct mk_advisor *a, const char *name)
{
	json_t *st = mk_advisor_stats_json(a);
	long long v = json_integer_value(json_object_get(st, name));

	json_decref(st);
	return v;
}

/* A running advisor on a fresh socket, selecting sid 102's alerts. */
static struct mk_advisor *advisor_up(struct mk_config *c, char *dir, const char *extra, char *path,
				     size_t len)
{
	static struct rec_sink recs;
	struct mk_advisor *adv;
	char yaml[512];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, len, "%s/s", dir);
	snprintf(yaml, sizeof(yaml), "advise-router:\n  enabled: yes\n  socket: %s\n%s", path,
		 extra);
	cr_assert_eq(cfg_load(c, yaml), 0);
	recs.len = 0;
	cr_assert_eq(mk_advisor_new(&adv, &c->advise, 1, sink_record, &recs), 0);
	cr_assert_eq(mk_advisor_start(adv), 0);
	return adv;
}

/* A full worker queue drops and counts: selected = dropped + what the announcer took. */
Test(advise, announcer_full_queue_counted)
{
	struct mk_config c;
	struct mk_detect_alert a = { .family = MK_FAMILY_IPV4, .proto = 6, .has_ports = 1 };
	char dir[] = "/tmp/mk-advise-queue.XXXXXX", path[256];
	struct mk_advisor *adv = advisor_up(&c, dir, "  queue-size: 16\n", path, sizeof(path));
	unsigned int i;

	a.rule = mk_detect_engine_rule(engine, 1, 102);
	inet_pton(AF_INET, "198.51.100.1", a.dst);
	for (i = 0; i < 64; i++) {
		a.src[0] = htonl(0x0a000000u | (i + 1));
		mk_advisor_alert(adv, 0, &a);
	}
	usleep(200000);
	cr_expect_eq(stat_of(adv, "selected"), 64);
	cr_expect_geq(stat_of(adv, "queue_dropped"), 48, "64 at once into a queue of 16");
	cr_expect_eq(stat_of(adv, "queue_dropped") + stat_of(adv, "announced"), 64);
	cr_expect_eq(stat_of(adv, "undelivered"), stat_of(adv, "announced"), "no pipe yet");
	mk_advisor_free(adv);
	rmdir(dir);
	mk_config_free(&c);
}

/*
 * A pipe that stops reading is closed once it is 1 MiB behind
 * (write_errors), while a pipe that reads gets everything.
 */
Test(advise, announcer_stalled_pipe_closed)
{
	struct mk_config c;
	struct mk_detect_alert a = { .family = MK_FAMILY_IPV4, .proto = 6, .has_ports = 1 };
	char dir[] = "/tmp/mk-advise-stall.XXXXXX", path[256], buf[65536];
	struct mk_advisor *adv = advisor_up(&c, dir, "  max-active: 30000\n  queue-size: 4096\n",
					    path, sizeof(path));
	int stalled = pipe_connect(path), reader = pipe_connect(path);
	size_t got = 0, stalled_bytes = 0;
	unsigned int i;
	ssize_t n;

	a.rule = mk_detect_engine_rule(engine, 1, 102);
	inet_pton(AF_INET, "198.51.100.1", a.dst);
	for (i = 0; i < 24576; i++) {
		a.src[0] = htonl(0x0a000000u | (i + 1));
		mk_advisor_alert(adv, 0, &a);
		if ((i & 4095) != 4095)
			continue;
		while (stat_of(adv, "announced") < (long long)i + 1)
			usleep(1000);
		usleep(100000); /* a tick: the lines are written */
		while ((n = recv(reader, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			got += (size_t)n;
	}
	cr_expect_eq(stat_of(adv, "queue_dropped"), 0);
	cr_expect_eq(stat_of(adv, "write_errors"), 1, "the stalled pipe closed, once");
	cr_expect_eq(stat_of(adv, "pipes"), 1, "the reading pipe still there");
	cr_expect_gt(got, 1u << 20, "the reader got %zu bytes", got);
	/* the stalled pipe reads what the socket holds, then the end */
	while ((n = read(stalled, buf, sizeof(buf))) > 0)
		stalled_bytes += (size_t)n;
	cr_expect_eq(n, 0, "closed by meerkat");
	cr_expect_gt(stalled_bytes, 0);
	close(stalled);
	close(reader);
	mk_advisor_free(adv);
	rmdir(dir);
	mk_config_free(&c);
}
