// SPDX-License-Identifier: GPL-2.0-only
/* Configuration file: keys, values, CIDR lists, and errors that name file, line and key. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include "config.h"

static char path[] = "/tmp/test_config.XXXXXX";

static int load(const char *text, struct mk_config *c)
{
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	int err;

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	mk_config_defaults(c);
	err = mk_config_load(c, path);
	unlink(path);
	strcpy(path, "/tmp/test_config.XXXXXX");
	return err;
}

Test(config, defaults_are_suricatas)
{
	struct mk_config c;

	mk_config_defaults(&c);
	cr_assert_eq(c.flow.timeout[MK_FLOW_PROTO_TCP][MK_FLOW_STATE_ESTABLISHED], 600);
	cr_assert_eq(c.flow.emerg_timeout[MK_FLOW_PROTO_TCP][MK_FLOW_STATE_NEW], 5);
	cr_assert_eq(c.flow.timeout[MK_FLOW_PROTO_UDP][MK_FLOW_STATE_NEW], 30);
	cr_assert_eq(c.parse.tunnel_depth, MK_TUNNEL_DEPTH_DEFAULT);
}

Test(config, keys_values_comments_and_suffixes)
{
	struct mk_config c;

	cr_assert_eq(load("# comment\n\nflow.max-flows: 1000   # trailing\n"
			  "flow.timeout.udp.established: 77\nstream.memcap: 2mb\nstream.midstream: yes\n"
			  "tunnel.l2tpv3-l2spec: default\nbypass.cidr: 10.1.2.3/8\nbypass.cidr: 2001:db8::/32\n",
			  &c), 0);
	cr_assert_eq(c.flow.max_flows, 1000);
	cr_assert_eq(c.flow.timeout[MK_FLOW_PROTO_UDP][MK_FLOW_STATE_ESTABLISHED], 77);
	cr_assert_eq(c.stream.memcap, 2u << 20);
	cr_assert_eq(c.stream.midstream, 1);
	cr_assert_eq(c.parse.l2tpv3_l2spec, MK_L2SPEC_DEFAULT);
	cr_assert_eq(c.nbypass, 2);
	cr_assert_eq(c.bypass[0].addr[0], htonl(0x0a000000), "host bits cleared");
	mk_config_free(&c);
}

Test(config, cidr_matching)
{
	struct mk_config c;
	uint32_t a[4] = { 0 };

	cr_assert_eq(load("bypass.cidr: 192.0.2.0/24\nbypass.cidr: 2001:db8:1::/48\nbypass.cidr: 198.51.100.7\n", &c), 0);
	inet_pton(AF_INET, "192.0.2.200", a);
	cr_assert(mk_config_bypassed(&c, MK_FAMILY_IPV4, a));
	inet_pton(AF_INET, "192.0.3.1", a);
	cr_assert_not(mk_config_bypassed(&c, MK_FAMILY_IPV4, a));
	inet_pton(AF_INET, "198.51.100.7", a);
	cr_assert(mk_config_bypassed(&c, MK_FAMILY_IPV4, a));
	inet_pton(AF_INET6, "2001:db8:1:ffff::1", a);
	cr_assert(mk_config_bypassed(&c, MK_FAMILY_IPV6, a));
	inet_pton(AF_INET6, "2001:db8:2::1", a);
	cr_assert_not(mk_config_bypassed(&c, MK_FAMILY_IPV6, a));
	mk_config_free(&c);
}

Test(config, bad_cidrs)
{
	struct mk_cidr r;

	cr_assert_neq(mk_cidr_parse("10.0.0.0/33", &r), 0);
	cr_assert_neq(mk_cidr_parse("10.0.0.0/", &r), 0);
	cr_assert_neq(mk_cidr_parse("nope/8", &r), 0);
	cr_assert_neq(mk_cidr_parse("2001:db8::/129", &r), 0);
	cr_assert_eq(mk_cidr_parse("::/0", &r), 0);
}

Test(config, errors_name_file_line_and_key, .init = cr_redirect_stderr)
{
	static const char *const want[] = {
		":2: key 'flow.timeout.tcp.new': 'lots' is not a number in [0, 86400]",
		":1: unknown key 'flow.max-flow'",
		":1: key 'tunnel.l2tpv3-cookie-len': '5' must be 0, 4 or 8",
		":1: expected `key: value`",
		":1: key 'flow.max-flows': '0' is not a number",
	};
	struct mk_config c;
	char out[4096];
	size_t n, i;
	FILE *f;

	cr_assert_neq(load("flow.max-flows: 10\nflow.timeout.tcp.new: lots\n", &c), 0);
	cr_assert_neq(load("flow.max-flow: 10\n", &c), 0);
	cr_assert_neq(load("tunnel.l2tpv3-cookie-len: 5\n", &c), 0);
	cr_assert_neq(load("just words\n", &c), 0);
	cr_assert_neq(load("flow.max-flows: 0\n", &c), 0);
	fflush(stderr);
	f = cr_get_redirected_stderr();
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_not_null(strstr(out, want[i]), "missing \"%s\" in:\n%s", want[i], out);
	cr_assert_not_null(strstr(out, "/tmp/test_config."), "the file is named");
}

Test(config, engine_settings_and_policies)
{
	struct mk_config c;
	char path[] = "/tmp/mk_conf_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	cr_assert(f);
	fputs("stream.overlap-policy: last\nstream.max-ooo-segs: 7\nstream.midstream: no\n"
	      "defrag.policy: first\ndefrag.timeout: 5\ndefrag.max-trackers: 9\n",
	      f);
	fclose(f);
	mk_config_defaults(&c);
	cr_assert_eq(c.stream.midstream, 1, "midstream pickup is on by default");
	cr_assert_eq(mk_config_load(&c, path), 0);
	cr_assert_eq(c.stream.overlap_policy, MK_OVERLAP_LAST);
	cr_assert_eq(c.stream.max_ooo_segs, 7);
	cr_assert_eq(c.stream.midstream, 0);
	cr_assert_eq(c.defrag.policy, MK_DEFRAG_POLICY_FIRST);
	cr_assert_eq(c.defrag.timeout_ns, 5000000000ull);
	cr_assert_eq(c.defrag.max_trackers, 9);
	mk_config_free(&c);
	unlink(path);
}

/* Review of the fuzz_config target: a kb/mb/gb suffix wrapped 64 bits back into range. */
Test(config, size_suffix_overflow_is_an_error, .init = cr_redirect_stderr)
{
	struct mk_config c;

	/* (2^54 + 1) << 10 wrapped to 1024 and was accepted */
	cr_assert_eq(load("flow.max-flows: 0x40000000000001kb\n", &c), -ERANGE);
	cr_assert_eq(c.flow.max_flows, 65536, "unchanged");
	/* (2^34 + 1) << 30 wrapped to 1 GiB */
	cr_assert_eq(load("flow.memcap: 17179869185gb\n", &c), -ERANGE);
	cr_assert_eq(c.flow.memcap, 0, "unchanged");
	cr_assert_eq(load("flow.memcap: 17179869183gb\n", &c), 0, "the largest that fits");
	cr_assert_eq(c.flow.memcap, 17179869183ull << 30);
}

/*
 * Truncation: every prefix of a valid file, through the buffer entry point
 * (no NUL terminator), parses or fails with -errno; the whole text gives
 * what the file gives.
 */
Test(config, truncation_and_load_buf, .init = cr_redirect_stderr)
{
	static const char text[] = "flow.max-flows: 1000 # x\nstream.memcap: 2mb\n"
				   "bypass.cidr: 2001:db8::/32\ntunnel.l2tpv3-cookie-len: 8\n";
	struct mk_config c, f;
	size_t n;
	int err;

	for (n = 0; n <= sizeof(text) - 1; n++) {
		char *buf = malloc(n ? n : 1);

		memcpy(buf, text, n);
		mk_config_defaults(&c);
		err = mk_config_load_buf(&c, buf, n, "prefix");
		cr_assert(err == 0 || err == -EINVAL || err == -ERANGE || err == -EDOM,
			  "prefix %zu: %d", n, err);
		mk_config_free(&c);
		free(buf);
	}
	mk_config_defaults(&c);
	cr_assert_eq(mk_config_load_buf(&c, text, sizeof(text) - 1, "whole"), 0);
	cr_assert_eq(load(text, &f), 0);
	cr_assert_eq(c.flow.max_flows, f.flow.max_flows);
	cr_assert_eq(c.stream.memcap, f.stream.memcap);
	cr_assert_eq(c.parse.l2tpv3_cookie_len, 8);
	cr_assert_eq(c.nbypass, 1);
	cr_assert_eq(f.nbypass, 1);
	cr_assert_eq(memcmp(c.bypass, f.bypass, sizeof(*c.bypass)), 0);
	mk_config_free(&c);
	mk_config_free(&f);
}

/* Tunnel decoders: on by default at the standard ports; each can be turned off or moved. */
Test(config, tunnel_decoders)
{
	struct mk_config c;

	mk_config_defaults(&c);
	cr_assert_eq(c.parse.tunnel_off, 0, "every decoder is on by default");
	cr_assert_eq(c.parse.vxlan_port, MK_VXLAN_PORT_DEFAULT);
	cr_assert_eq(c.parse.geneve_port, MK_GENEVE_PORT_DEFAULT);
	cr_assert_eq(load("tunnel.vxlan: no\ntunnel.erspan: false\ntunnel.ipip: no\n"
			  "tunnel.ipip: yes\ntunnel.vxlan-port: 8472\ntunnel.geneve-port: 6082\n",
			  &c), 0);
	cr_assert_eq(c.parse.tunnel_off, MK_TUN_VXLAN | MK_TUN_ERSPAN);
	cr_assert_eq(c.parse.vxlan_port, 8472);
	cr_assert_eq(c.parse.geneve_port, 6082);
	cr_assert_neq(load("tunnel.gre: maybe\n", &c), 0);
	cr_assert_neq(load("tunnel.vxlan-port: 0\n", &c), 0);
	cr_assert_neq(load("tunnel.geneve-port: 65536\n", &c), 0);
}
