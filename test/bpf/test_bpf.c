// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF program tests (DESIGN 4.2): every frame of the fixture table
 * (test/fixtures) runs through the loaded meerkat program with
 * bpf_prog_test_run_opts, and through the user-space build of common/ with
 * the same configuration. Checked per frame: verdict, delivered bytes,
 * metadata, counter deltas, and that both builds agree byte for byte. Then
 * flow and CIDR bypass, IPS forwarding, worker choice for both directions,
 * and every fixture cut at every length.
 *
 * The program redirects (and decapsulates) only when the worker's XSKMAP slot
 * holds a socket, so each test binds real copy-mode AF_XDP sockets to lo
 * (loader.h, mk_xsk_set). Loading is slow: one load per configuration.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include "fixture.h"
#include "cidr4_dir.h"
#include "hash.h"
#include "loader.h"
#include "manager.h"
#include "log.h"
#include "meta.h"
#include "parse.h"
#include "stats.h"
#include "meerkat.skel.h" /* .bss counters the CIDR test reads (needs the types above) */

#ifdef MK_FIXTURE_SEED
#define TEST_SEED MK_FIXTURE_SEED /* the generator's expected hashes were made with it */
#else
#define TEST_SEED 0x5eed1234u
#endif
#define OUT_MAX 4096

struct run {
	int err;      /* BPF_PROG_RUN's own error, 0 when the program ran */
	__u32 retval; /* XDP verdict */
	__u8 buf[OUT_MAX];
	const __u8 *frame; /* delivered frame, after any metadata */
	__u32 len;
	__u32 meta_len;
	struct mk_meta meta;
	__u64 delta[MK_STAT_MAX];
};

/* What the user-space build of common/ makes of the same bytes. */
struct twin {
	int status;
	struct mk_parse p;
	struct mk_meta meta;
	__u8 buf[OUT_MAX];
	const __u8 *frame;
	__u32 len;
};

/*
 * Only one UMEM may be bound to a (device, queue): every test (Criterion runs
 * them in parallel processes) gets a network namespace and a lo of its own.
 */
static void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("BPF program tests need root (CAP_BPF, CAP_NET_ADMIN, CAP_NET_RAW); "
			     "running as uid %u",
			     (unsigned int)geteuid());
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare(CLONE_NEWNET): %s", strerror(errno));
	mk_log_set_level(MK_LOG_ERROR);
	mk_log_route_libs();
}

static struct mk_parse_cfg fixture_cfg(const struct mk_fixture *fx)
{
	struct mk_parse_cfg cfg = {
		.seed = TEST_SEED,
		.tunnel_depth = fx->tunnel_depth,
		.l2tpv3_cookie_len = fx->l2tpv3_cookie_len,
		.l2tpv3_l2spec = fx->l2tpv3_l2spec,
		.tunnel_off = fx->tunnel_off,
		.vxlan_port = fx->vxlan_port,
		.geneve_port = fx->geneve_port,
	};

	return cfg;
}

static int same_cfg(const struct mk_fixture *a, const struct mk_fixture *b)
{
	return a->tunnel_depth == b->tunnel_depth && a->l2tpv3_cookie_len == b->l2tpv3_cookie_len &&
	       a->l2tpv3_l2spec == b->l2tpv3_l2spec && a->tunnel_off == b->tunnel_off &&
	       a->vxlan_port == b->vxlan_port && a->geneve_port == b->geneve_port;
}

/* The first fixture of each distinct parser configuration leads its group. */
static int leads_group(unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++) {
		if (same_cfg(&mk_fixtures[j], &mk_fixtures[i]))
			return 0;
	}
	return 1;
}

struct harness {
	struct mk_loader l;
	struct mk_xsk_set xsks;
	struct mk_parse_cfg cfg;
};

/* Inline mode's policies for the next harness_up (enum mk_ips_policy). */
static __u32 test_ips_unparsable, test_ips_failure;

static void harness_up_restore(struct harness *h, const struct mk_fixture *fx, __u32 workers,
			       __u32 mode, bool sockets, bool bench_restore, bool rx_stamp)
{
	struct mk_loader_opts o;
	int err;

	memset(h, 0, sizeof(*h));
	mk_loader_opts_default(&o);
	o.seed = TEST_SEED;
	o.workers = workers;
	o.mode = mode;
	o.tunnel_depth = fx->tunnel_depth;
	o.l2tpv3_cookie_len = fx->l2tpv3_cookie_len;
	o.l2tpv3_l2spec = fx->l2tpv3_l2spec;
	o.tunnel_off = fx->tunnel_off;
	o.vxlan_port = fx->vxlan_port;
	o.geneve_port = fx->geneve_port;
	o.bench_restore = bench_restore;
	o.rx_stamp = rx_stamp;
	o.ips_unparsable = test_ips_unparsable;
	o.ips_failure = test_ips_failure;
	h->cfg = fixture_cfg(fx);
	err = mk_loader_open(&h->l, &o);
	cr_assert_eq(err, 0, "loading meerkat (config of %s) failed: %s", fx->name, strerror(-err));
	if (sockets) {
		err = mk_xsk_set_create(&h->xsks, &h->l, "lo", 0);
		cr_assert_eq(err, 0, "AF_XDP sockets on lo failed: %s", strerror(-err));
	}
}

static void harness_up(struct harness *h, const struct mk_fixture *fx, __u32 workers, __u32 mode,
		       bool sockets)
{
	harness_up_restore(h, fx, workers, mode, sockets, false, false);
}

/*
 * The same configuration without the fast path, its XSKMAP holding @fast's
 * sockets (a socket may sit in several maps; only one UMEM may bind to lo's
 * queue 0).
 */
static void harness_up_general(struct harness *h, const struct mk_fixture *fx,
			       const struct harness *fast)
{
	struct mk_loader_opts o;
	unsigned int w;
	int err;

	memset(h, 0, sizeof(*h));
	mk_loader_opts_default(&o);
	o.seed = TEST_SEED;
	o.workers = fast->l.workers;
	o.tunnel_depth = fx->tunnel_depth;
	o.l2tpv3_cookie_len = fx->l2tpv3_cookie_len;
	o.l2tpv3_l2spec = fx->l2tpv3_l2spec;
	o.tunnel_off = fx->tunnel_off;
	o.vxlan_port = fx->vxlan_port;
	o.geneve_port = fx->geneve_port;
	o.general_only = true;
	h->cfg = fixture_cfg(fx);
	h->cfg.parse_flags = MK_PARSE_F_GENERAL_ONLY;
	err = mk_loader_open(&h->l, &o);
	cr_assert_eq(err, 0, "loading meerkat without its fast path (config of %s) failed: %s",
		     fx->name, strerror(-err));
	for (w = 0; w < fast->xsks.count; w++)
		cr_assert_eq(mk_loader_set_xsk(&h->l, w, xsk_socket__fd(fast->xsks.xsks[w])), 0);
}

/* The fast path and the general parser: same verdict, bytes, metadata and counters. */
static void check_same_run(const char *name, const struct run *a, const struct run *b)
{
	cr_assert_eq(a->err, b->err, "%s: BPF_PROG_RUN %d, general parser %d", name, a->err,
		     b->err);
	cr_assert_eq(a->retval, b->retval, "%s: verdict %u, general parser %u", name, a->retval,
		     b->retval);
	cr_assert_eq(a->meta_len, b->meta_len, "%s: metadata length", name);
	cr_assert_eq(a->len, b->len, "%s: delivered %u bytes, general parser %u", name, a->len,
		     b->len);
	cr_assert_arr_eq(a->frame, b->frame, a->len, "%s: delivered bytes differ", name);
	cr_assert_arr_eq(&a->meta, &b->meta, sizeof(a->meta),
			 "%s: metadata differs (hash 0x%08x, general parser 0x%08x)", name,
			 a->meta.hash, b->meta.hash);
	cr_assert_arr_eq(a->delta, b->delta, sizeof(a->delta), "%s: counters differ", name);
}

static void harness_down(struct harness *h)
{
	mk_xsk_set_destroy(&h->xsks);
	mk_loader_close(&h->l);
}

static void read_stats(struct harness *h, __u64 *s)
{
	int err = mk_loader_stats_read(&h->l, s);

	cr_assert_eq(err, 0, "reading mk_stats: %s", strerror(-err));
}

static void run_frame(struct harness *h, const __u8 *frame, __u32 len, struct run *r)
{
	__u64 before[MK_STAT_MAX], after[MK_STAT_MAX];
	struct xdp_md ctx_in = { .data_end = len }, ctx_out = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = len, .data_out = r->buf,
		    .data_size_out = sizeof(r->buf), .ctx_in = &ctx_in,
		    .ctx_size_in = sizeof(ctx_in), .ctx_out = &ctx_out,
		    .ctx_size_out = sizeof(ctx_out), .repeat = 1);
	int i;

	memset(r, 0, sizeof(*r));
	read_stats(h, before);
	r->err = bpf_prog_test_run_opts(mk_loader_prog_fd(&h->l), &o) ? -errno : 0;
	read_stats(h, after);
	for (i = 0; i < MK_STAT_MAX; i++)
		r->delta[i] = after[i] - before[i];
	if (r->err)
		return;
	r->retval = o.retval;
	r->meta_len = ctx_out.data;
	r->frame = r->buf + ctx_out.data;
	r->len = ctx_out.data_end - ctx_out.data;
	cr_assert_leq(ctx_out.data_end, o.data_size_out, "output larger than reported");
	if (r->meta_len == sizeof(r->meta))
		memcpy(&r->meta, r->buf, sizeof(r->meta));
}

static void run_twin(const struct harness *h, const __u8 *frame, __u32 len, struct twin *t)
{
	struct mk_frame f;
	__u32 off;

	memset(t, 0, sizeof(*t));
	cr_assert_leq(len, sizeof(t->buf));
	memcpy(t->buf, frame, len);
	f.data = t->buf;
	f.data_end = t->buf + len;
	t->status = mk_parse_frame(&f, MK_START_ETH, &h->cfg, &t->p);
	t->frame = t->buf;
	t->len = len;
	if (t->status != MK_PARSE_IP)
		return;
	/* the harness does not turn the arrival stamp on: 0 in both builds */
	mk_meta_fill(&t->meta, &t->p, 0);
	off = mk_decap_apply(t->buf, &t->p);
	t->frame = t->buf + off;
	t->len = len - off;
}

static const struct mk_fixture *find_fixture(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < mk_fixture_count; i++) {
		if (!strcmp(mk_fixtures[i].name, name))
			return &mk_fixtures[i];
	}
	return NULL;
}

static int outcome_of(const struct run *r)
{
	int i, found = -1;

	for (i = MK_STAT_OUTCOME_FIRST; i <= MK_STAT_OUTCOME_LAST; i++) {
		if (r->delta[i])
			found = i;
	}
	return found;
}

/* rx +1, exactly one outcome +1, and one reason exactly when the outcome is an error (PASS_ERROR, IPS: FWD_ERROR, DROP_ERROR). */
static void assert_accounting(const struct run *r, const char *what, __u32 len)
{
	struct mk_stat_sums s = mk_stat_sum(r->delta);
	__u64 outcomes = s.outcomes, reasons = s.errors;

	cr_assert_eq(r->delta[MK_STAT_RX], 1, "%s (%u bytes): rx moved by %llu", what, len,
		     (unsigned long long)r->delta[MK_STAT_RX]);
	cr_assert_eq(outcomes, 1, "%s (%u bytes): %llu outcome counters moved", what, len,
		     (unsigned long long)outcomes);
	cr_assert_eq(reasons, mk_stat_error_frames(r->delta),
		     "%s (%u bytes): %llu reason counters for %llu error outcomes", what, len,
		     (unsigned long long)reasons,
		     (unsigned long long)mk_stat_error_frames(r->delta));
	cr_assert_eq(r->delta[MK_STAT_META_FAIL], 0, "%s: bpf_xdp_adjust_meta failed", what);
}

/* The flow as the generator addressed it, hashed by the definition in common/hash.h. */
static int fixture_hash(const struct mk_fixture *fx, __u32 *hash)
{
	struct mk_flow_key key;
	__u32 src[4] = { 0 }, dst[4] = { 0 }, osrc[4] = { 0 }, odst[4] = { 0 };
	__u16 sport = __builtin_bswap16(fx->sport), dport = __builtin_bswap16(fx->dport);
	unsigned int alen = fx->family == 6 ? 16 : 4;

	/* nested tunnels chain contexts the table does not describe */
	if (fx->tunnel_depth_stripped > 1 || (fx->flags & MK_META_F_DEPTH_EXCEEDED))
		return 0;
	memset(&key, 0, sizeof(key));
	memcpy(src, fx->src, alen);
	memcpy(dst, fx->dst, alen);
	if (fx->flags & MK_META_F_FRAGMENT)
		sport = dport = 0;
	mk_flow_key_set_endpoints(&key, src, sport, dst, dport);
	key.vlan[0] = fx->vlan[0];
	key.vlan[1] = fx->vlan[1];
	if (fx->tunnel_depth_stripped) {
		alen = fx->outer_family == 6 ? 16 : 4;
		memcpy(osrc, fx->outer_src, alen);
		memcpy(odst, fx->outer_dst, alen);
		key.tunnel_ctx = mk_tunnel_ctx(0, fx->tunnel_type, fx->outer_family, osrc, odst);
	}
	key.proto = fx->proto;
	key.family = fx->family;
	*hash = mk_flow_hash(&key, TEST_SEED);
	return 1;
}

static void check_meta_vs_fixture(const struct mk_fixture *fx, const struct run *r)
{
	const struct mk_meta *m = &r->meta;
	__u16 flags = fx->flags;
	__u32 hash, osrc[4] = { 0 }, odst[4] = { 0 };

	if (fx->tunnel_depth_stripped && fx->outer_family == 6)
		flags |= MK_META_F_OUTER_V6;
	cr_expect_eq(mk_meta_magic(m), MK_META_MAGIC, "%s: metadata magic", fx->name);
	cr_expect_eq(mk_meta_tunnel_type(m), fx->tunnel_type, "%s: tunnel type %u, want %u",
		     fx->name, mk_meta_tunnel_type(m), fx->tunnel_type);
	cr_expect_eq(m->tunnel_id, fx->tunnel_id, "%s: tunnel id 0x%x, want 0x%x", fx->name,
		     m->tunnel_id, fx->tunnel_id);
	cr_expect_eq(mk_meta_l3_off(m), fx->l3_off, "%s: l3_off %u, want %u", fx->name,
		     mk_meta_l3_off(m), fx->l3_off);
	cr_expect_eq(m->l4_off, fx->l4_off, "%s: l4_off %u, want %u", fx->name, m->l4_off,
		     fx->l4_off);
	cr_expect_eq(m->flags, flags, "%s: flags 0x%x, want 0x%x", fx->name, m->flags, flags);
	cr_expect_eq(mk_meta_vlan(m, 0), fx->vlan[0], "%s: vlan[0] %u, want %u", fx->name,
		     mk_meta_vlan(m, 0), fx->vlan[0]);
	cr_expect_eq(mk_meta_vlan(m, 1), fx->vlan[1], "%s: vlan[1] %u, want %u", fx->name,
		     mk_meta_vlan(m, 1), fx->vlan[1]);
	cr_expect_eq(mk_meta_stamp(m), 0, "%s: stamped without mk_rx_stamp", fx->name);
	cr_expect_eq(mk_meta_proto(m), fx->proto, "%s: proto %u, want %u", fx->name,
		     mk_meta_proto(m), fx->proto);
	if (fx->tunnel_depth_stripped) {
		unsigned int alen = fx->outer_family == 6 ? 16 : 4;

		memcpy(osrc, fx->outer_src, alen);
		memcpy(odst, fx->outer_dst, alen);
		if (fx->outer_family == 6) {
			osrc[0] = mk_fold_addr(osrc);
			odst[0] = mk_fold_addr(odst);
		}
		cr_expect_eq(m->outer_src, osrc[0], "%s: outer_src", fx->name);
		cr_expect_eq(m->outer_dst, odst[0], "%s: outer_dst", fx->name);
	}
#ifdef MK_FIXTURE_SEED
	/* the generator's own NH over the documented key layout */
	cr_expect_eq(m->hash, fx->hash, "%s: hash 0x%08x, the table says 0x%08x", fx->name, m->hash,
		     fx->hash);
	cr_expect_eq(m->tunnel_ctx, fx->tunnel_ctx, "%s: tunnel_ctx 0x%08x, the table says 0x%08x",
		     fx->name, m->tunnel_ctx, fx->tunnel_ctx);
#endif
	if (fixture_hash(fx, &hash))
		cr_expect_eq(m->hash, hash, "%s: hash 0x%08x, want 0x%08x from the fixture's flow",
			     fx->name, m->hash, hash);
}

static void check_counters_vs_fixture(const struct mk_fixture *fx, const struct run *r)
{
	__u64 tunnels = 0;
	int want_outcome, k;

	for (k = MK_STAT_TUNNEL_GTPU; k <= MK_STAT_TUNNEL_IPIP; k++)
		tunnels += r->delta[k];

	assert_accounting(r, fx->name, fx->len);
	if (fx->status == MK_PARSE_IP)
		want_outcome = MK_STAT_REDIRECT_XSK;
	else if (fx->status == MK_PARSE_NON_IP)
		want_outcome = MK_STAT_PASS_NON_IP;
	else
		want_outcome = MK_STAT_PASS_ERROR;
	cr_expect_eq(outcome_of(r), want_outcome, "%s: outcome %s, want %s", fx->name,
		     outcome_of(r) >= 0 ? mk_stat_descs[outcome_of(r)].name : "none",
		     mk_stat_descs[want_outcome].name);
	if (fx->status == MK_PARSE_ERROR)
		cr_expect_eq(r->delta[mk_reason_stat(fx->reason)], 1, "%s: reason %s not counted",
			     fx->name, mk_stat_descs[mk_reason_stat(fx->reason)].name);
	if (fx->status != MK_PARSE_IP) {
		cr_expect_eq(tunnels + r->delta[MK_STAT_FRAGMENT] +
				     r->delta[MK_STAT_TUNNEL_DEPTH_EXCEEDED],
			     0, "%s: info counters moved for a frame that did not parse", fx->name);
		return;
	}
	if (fx->tunnel_depth_stripped) {
		int stat = (int)mk_tunnel_stat(fx->tunnel_type);

		cr_expect_eq(r->delta[stat], 1, "%s: %s did not move", fx->name,
			     mk_stat_descs[stat].name);
	}
	cr_expect(tunnels <= fx->tunnel_depth_stripped &&
			  (tunnels > 0) == (fx->tunnel_depth_stripped > 0),
		  "%s: %llu tunnel counters moved for %u tunnels", fx->name,
		  (unsigned long long)tunnels, fx->tunnel_depth_stripped);
	cr_expect_eq(r->delta[MK_STAT_FRAGMENT], !!(fx->flags & MK_META_F_FRAGMENT),
		     "%s: fragment counter", fx->name);
	cr_expect_eq(r->delta[MK_STAT_TUNNEL_DEPTH_EXCEEDED],
		     !!(fx->flags & MK_META_F_DEPTH_EXCEEDED), "%s: depth exceeded counter",
		     fx->name);
}

/* Kernel and user-space builds of common/ must deliver the same bytes and metadata. */
static void check_twin(const char *name, const struct run *r, const struct twin *t)
{
	int want = t->status == MK_PARSE_IP	? MK_STAT_REDIRECT_XSK :
		   t->status == MK_PARSE_NON_IP ? MK_STAT_PASS_NON_IP :
						  MK_STAT_PASS_ERROR;

	cr_assert_eq(outcome_of(r), want, "%s (%u bytes): program outcome %d, user space parse %d",
		     name, t->len, outcome_of(r), t->status);
	if (t->status == MK_PARSE_ERROR)
		cr_assert_eq(r->delta[mk_reason_stat(t->p.reason)], 1,
			     "%s: user space says %s, the program counted otherwise", name,
			     mk_stat_descs[mk_reason_stat(t->p.reason)].name);
	cr_assert_eq(r->len, t->len, "%s: program delivered %u bytes, user space %u", name, r->len,
		     t->len);
	cr_assert_arr_eq(r->frame, t->frame, t->len, "%s: delivered bytes differ from user space",
			 name);
	if (t->status == MK_PARSE_IP) {
		cr_assert_eq(r->meta_len, sizeof(struct mk_meta), "%s: no metadata", name);
		cr_assert_arr_eq(&r->meta, &t->meta, sizeof(t->meta),
				 "%s: metadata differs from user space (hash 0x%08x vs 0x%08x)",
				 name, r->meta.hash, t->meta.hash);
	} else {
		cr_assert_eq(r->meta_len, 0, "%s: metadata on a passed frame", name);
	}
}

/*
 * Every fixture through the program, checked against the fixture table and
 * against the user-space build; and through the same program with its fast
 * path compiled out, which must deliver the same bytes, metadata and counters.
 */
Test(bpf, fixtures)
{
	unsigned int g, i, ran = 0;

	need_root();
	cr_assert_gt(mk_fixture_count, 0, "empty fixture table");
	for (g = 0; g < mk_fixture_count; g++) {
		struct harness h, hg;

		if (!leads_group(g))
			continue;
		harness_up(&h, &mk_fixtures[g], 1, MK_MODE_IDS, true);
		harness_up_general(&hg, &mk_fixtures[g], &h);
		for (i = g; i < mk_fixture_count; i++) {
			const struct mk_fixture *fx = &mk_fixtures[i];
			static struct run r, rb, rg;
			static struct twin t;
			__u32 want = fx->status == MK_PARSE_IP ? XDP_REDIRECT : XDP_PASS;
			/* a table may leave out unset for frames passed untouched */
			const __u8 *want_out = fx->out ? fx->out : fx->frame;
			__u32 want_len = fx->out ? fx->out_len : fx->len;

			if (!same_cfg(fx, &mk_fixtures[g]))
				continue;
			run_frame(&h, fx->frame, fx->len, &r);
			run_frame(&hg, fx->frame, fx->len, &rg);
			check_same_run(fx->name, &r, &rg);
			if (fx->len < MK_ETH_HLEN) {
				/* BPF_PROG_RUN refuses frames shorter than Ethernet */
				cr_expect_eq(r.err, -EINVAL, "%s: %u bytes ran", fx->name, fx->len);
				continue;
			}
			cr_assert_eq(r.err, 0, "%s: BPF_PROG_RUN: %s", fx->name, strerror(-r.err));
			ran++;
			cr_expect_eq(r.retval, want, "%s: verdict %u, want %u", fx->name, r.retval,
				     want);
			cr_expect_eq(r.len, want_len, "%s: delivered %u bytes, want %u", fx->name,
				     r.len, want_len);
			if (r.len == want_len)
				cr_expect_arr_eq(r.frame, want_out, want_len,
						 "%s: delivered bytes differ from fixture->out",
						 fx->name);
			check_counters_vs_fixture(fx, &r);
			if (fx->status == MK_PARSE_IP)
				check_meta_vs_fixture(fx, &r);
			else
				cr_expect_eq(r.meta_len, 0, "%s: metadata on a passed frame",
					     fx->name);

			run_twin(&h, fx->frame, fx->len, &t);
			check_twin(fx->name, &r, &t);

			/* the user-space key is the program's key: it hits the bypass map */
			if (t.status == MK_PARSE_IP) {
				cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);
				run_frame(&h, fx->frame, fx->len, &rb);
				cr_expect_eq(rb.delta[MK_STAT_DROP_FLOW_BYPASS], 1,
					     "%s: user-space flow key missed the program's",
					     fx->name);
				cr_assert_eq(mk_loader_bypass_del(&h.l, &t.p.key), 0);
			}
		}
		harness_down(&hg);
		harness_down(&h);
	}
	cr_assert_gt(ran, 0, "no fixture ran");
}

/* An IP fixture without tunnels, of @family, that has a reverse fixture. */
static const struct mk_fixture *plain_flow(int family, bool tunnel)
{
	unsigned int i;

	for (i = 0; i < mk_fixture_count; i++) {
		const struct mk_fixture *fx = &mk_fixtures[i];

		if (fx->status == MK_PARSE_IP && fx->family == family &&
		    !!fx->tunnel_depth_stripped == tunnel && !(fx->flags & MK_META_F_FRAGMENT) &&
		    find_fixture(fx->reverse) && same_cfg(fx, find_fixture(fx->reverse)))
			return fx;
	}
	return NULL;
}

static __u64 mono_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

Test(bpf, flow_bypass_ids)
{
	const struct mk_fixture *fx = plain_flow(4, false), *rev, *other = plain_flow(6, false);
	static struct run r;
	static struct twin t;
	struct mk_bypass_value v;
	struct harness h;
	__u64 t0, t1, first_seen;
	unsigned int dir;

	need_root();
	cr_assert_not_null(fx, "the fixture table has no plain IPv4 flow with a reverse");
	rev = find_fixture(fx->reverse);
	harness_up(&h, fx, 2, MK_MODE_IDS, true);
	run_twin(&h, fx->frame, fx->len, &t);
	cr_assert_eq(t.status, MK_PARSE_IP);

	/* miss on an empty map */
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: not redirected before bypass", fx->name);

	cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);
	/* last_seen_ns is CLOCK_MONOTONIC_COARSE: not before the coarse time (give
	 * it a tick of slack for the vDSO's copy), never after the precise one */
	t0 = mono_ns(CLOCK_MONOTONIC_COARSE) - 10000000ull;
	run_frame(&h, fx->frame, fx->len, &r);
	t1 = mono_ns(CLOCK_MONOTONIC);
	cr_assert_eq(r.retval, XDP_DROP, "%s: bypassed flow not dropped", fx->name);
	cr_assert_eq(r.delta[MK_STAT_DROP_FLOW_BYPASS], 1);
	assert_accounting(&r, fx->name, fx->len);
	cr_assert_eq(r.meta_len, 0, "dropped frame got metadata");
	cr_assert_eq(mk_loader_bypass_read(&h.l, &t.p.key, &v), 0);
	/* counted in the frame's direction against the canonical key */
	dir = t.p.flags & MK_META_F_REVERSE;
	cr_assert_eq(v.packets[dir], 1);
	cr_assert_eq(v.bytes[dir], fx->len);
	cr_assert_eq(v.packets[!dir], 0);
	cr_assert_eq(v.bytes[!dir], 0);
	cr_assert(v.last_seen_ns >= t0 && v.last_seen_ns <= t1,
		  "last_seen_ns %llu outside [%llu, %llu]", (unsigned long long)v.last_seen_ns,
		  (unsigned long long)t0, (unsigned long long)t1);

	/* the other direction is the same entry; a few ticks later, so last_seen moves */
	first_seen = v.last_seen_ns;
	usleep(30000);
	run_frame(&h, rev->frame, rev->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: reverse direction not bypassed", rev->name);
	cr_assert_eq(mk_loader_bypass_read(&h.l, &t.p.key, &v), 0);
	cr_assert_eq(v.packets[dir], 1);
	cr_assert_eq(v.packets[!dir], 1, "reverse frame not counted in its own direction");
	cr_assert_eq(v.bytes[dir], (__u64)fx->len);
	cr_assert_eq(v.bytes[!dir], (__u64)rev->len);
	cr_assert_gt(v.last_seen_ns, first_seen, "last_seen_ns not updated by the second packet");
	cr_assert_leq(v.last_seen_ns, mono_ns(CLOCK_MONOTONIC));

	/* another flow misses a non-empty map */
	if (other) {
		run_frame(&h, other->frame, other->len, &r);
		cr_assert_eq(r.retval, XDP_REDIRECT, "%s: hit another flow's entry", other->name);
		cr_assert_eq(r.delta[MK_STAT_REDIRECT_XSK], 1);
	}

	cr_assert_eq(mk_loader_bypass_del(&h.l, &t.p.key), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: still bypassed after delete", fx->name);
	harness_down(&h);
}

static bool bit_is_set(const __u64 *bits, __u32 i)
{
	return (bits[i / 64] >> (i % 64)) & 1;
}

/* A key like @k with other ports (@ports: lo in the low half, hi in the high one). */
static void other_flow(const struct mk_flow_key *k, __u32 ports, struct mk_flow_key *o)
{
	*o = *k;
	o->port_lo = (__u16)ports;
	o->port_hi = (__u16)(ports >> 16);
}

/*
 * The flow bypass prefilter: the loader keeps one bit per hash bucket with
 * the entries behind it; a clear bit skips the map, a set one only says
 * "look". Checked: bits follow inserts and deletes, two flows on one bit
 * keep it until both are gone, a stale bit (an entry gone behind the
 * loader's back) costs a lookup and nothing else, a rebuild clears it, and
 * with the prefilter off every frame is looked up.
 */
Test(bpf, flow_bypass_prefilter)
{
	const struct mk_fixture *fx = plain_flow(4, false);
	static struct run r;
	static struct twin t;
	struct mk_flow_key a, b;
	struct harness h;
	__u64 *bits;
	__u32 bit, i;
	int fd;

	need_root();
	cr_assert_not_null(fx, "the fixture table has no plain IPv4 flow with a reverse");
	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	bits = h.l.skel->data_prefilter->mk_bypass_bits;
	fd = bpf_map__fd(h.l.skel->maps.mk_flow_bypass);
	cr_assert_eq(h.l.skel->bss->mk_prefilter & MK_PREFILTER_BYPASS, MK_PREFILTER_BYPASS);
	run_twin(&h, fx->frame, fx->len, &t);
	bit = mk_bypass_bit(t.p.hash);
	cr_assert_not(bit_is_set(bits, bit));

	cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);
	cr_assert(bit_is_set(bits, bit), "bit %u not set by the insert", bit);
	/* re-adding the same flow is not a second entry */
	cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);
	/* another flow on the same bit (found by search: 2^20 bits, a few thousand tries) */
	for (i = 1; i < 1u << 22; i++) {
		other_flow(&t.p.key, i * 2654435761u, &b);
		if (memcmp(&b, &t.p.key, sizeof(b)) &&
		    mk_bypass_bit(mk_flow_hash(&b, TEST_SEED)) == bit)
			break;
	}
	cr_assert_lt(i, 1u << 22, "no second flow on bit %u", bit);
	cr_assert_eq(mk_loader_bypass_add(&h.l, &b), 0);
	cr_assert_eq(mk_loader_bypass_del(&h.l, &t.p.key), 0);
	cr_assert(bit_is_set(bits, bit), "bit %u cleared while a flow still stands behind it", bit);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: bypassed after its delete", fx->name);
	cr_assert_eq(mk_loader_bypass_del(&h.l, &b), 0);
	cr_assert_not(bit_is_set(bits, bit), "bit %u left set with no flow behind it", bit);

	/* stale bit: the entry goes without the loader (as LRU eviction does to the map's) */
	cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);
	{
		struct mk_bypass_set *set = &h.l.bypass_table[mk_bypass_set_of(t.p.hash)];

		cr_assert_eq(set->way[0].tag, mk_bypass_tag(t.p.hash), "not in the table's way 0");
		set->way[0].tag = 0;
	}
	cr_assert(bit_is_set(bits, bit));
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: a stale bit bypassed the flow", fx->name);
	assert_accounting(&r, fx->name, fx->len);
	cr_assert_eq(mk_loader_bypass_prefilter_rebuild(&h.l), 0);
	cr_assert_not(bit_is_set(bits, bit), "rebuild left the stale bit %u", bit);
	/* the rebuild keeps the bits of entries that are there */
	other_flow(&t.p.key, 4242, &a);
	cr_assert_eq(mk_loader_bypass_add(&h.l, &a), 0);
	memset(bits, 0, MK_BYPASS_PREFILTER_BITS / 8);
	cr_assert_eq(mk_loader_bypass_prefilter_rebuild(&h.l), 0);
	cr_assert(bit_is_set(bits, mk_bypass_bit(mk_flow_hash(&a, TEST_SEED))));
	cr_assert_eq(mk_loader_bypass_del(&h.l, &a), 0);

	/* prefilter off (a control plane that does not keep it): every frame is looked up */
	h.l.skel->bss->mk_prefilter &= ~MK_PREFILTER_BYPASS;
	{
		struct mk_bypass_value zero[512];

		memset(zero, 0, sizeof(zero));
		cr_assert_leq(libbpf_num_possible_cpus(), 512);
		cr_assert_eq(bpf_map_update_elem(fd, &t.p.key, zero, BPF_ANY), 0);
	}
	cr_assert_not(bit_is_set(bits, bit));
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: not bypassed with the prefilter off", fx->name);
	cr_assert_eq(r.delta[MK_STAT_DROP_FLOW_BYPASS], 1);
	harness_down(&h);
}

/* Flows whose hash puts them in one set of the bypass table under TEST_SEED. */
static void same_set_flows(const struct mk_flow_key *k, struct mk_flow_key *out, unsigned int n)
{
	__u32 set = mk_bypass_set_of(mk_flow_hash(k, TEST_SEED)), i, found = 1;

	out[0] = *k;
	for (i = 1; found < n && i < 1u << 24; i++) {
		other_flow(k, i * 2654435761u, &out[found]);
		if (mk_bypass_set_of(mk_flow_hash(&out[found], TEST_SEED)) == set &&
		    memcmp(&out[found], k, sizeof(*k)))
			found++;
	}
	cr_assert_eq(found, n, "only %u flows found in set %u", found, set);
}

/*
 * The fixture's frame (untagged IPv4 without options, key @orig) with the
 * ports of @k, which other_flow() made from @orig.
 */
static void frame_with_ports(const struct mk_fixture *fx, const struct mk_flow_key *k,
			     const struct mk_flow_key *orig, __u8 *buf)
{
	__u32 l4 = MK_ETH_HLEN + 20;

	memcpy(buf, fx->frame, fx->len);
	/* the fixture's frame goes lo -> hi or hi -> lo; keep its direction */
	if (!memcmp(buf + l4, &orig->port_lo, 2)) {
		memcpy(buf + l4, &k->port_lo, 2);
		memcpy(buf + l4 + 2, &k->port_hi, 2);
	} else {
		memcpy(buf + l4, &k->port_hi, 2);
		memcpy(buf + l4 + 2, &k->port_lo, 2);
	}
}

static int count_walk(const struct mk_flow_key *key, const struct mk_bypass_value *sum, void *ctx)
{
	__u64 *c = ctx;

	(void)key;
	c[0]++;
	c[1] += sum->packets[0] + sum->packets[1];
	return 0;
}

/*
 * The bypass table and its overflow: four flows of one set take its four
 * ways, a fifth goes to the LRU map; the program drops all five and counts
 * each on its own entry; a freed way takes the next flow; the walk sees
 * table and map.
 */
Test(bpf, flow_bypass_table)
{
	const struct mk_fixture *fx = plain_flow(4, false);
	struct mk_flow_key k[6];
	static struct run r;
	static struct twin t;
	struct mk_bypass_value v;
	struct harness h;
	__u8 buf[OUT_MAX];
	__u64 walked[2] = { 0, 0 };
	unsigned int i, pass;
	int fd;

	need_root();
	cr_assert_not_null(fx);
	cr_assert_lt(fx->len, sizeof(buf));
	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	fd = bpf_map__fd(h.l.skel->maps.mk_flow_bypass);
	run_twin(&h, fx->frame, fx->len, &t);
	cr_assert_eq(t.p.l3.proto, MK_IPPROTO_TCP);
	cr_assert_eq(t.p.l3.l4_off, MK_ETH_HLEN + 20, "%s: not untagged IPv4 without options",
		     fx->name);
	same_set_flows(&t.p.key, k, 6);
	for (i = 0; i < 5; i++)
		cr_assert_eq(mk_loader_bypass_add(&h.l, &k[i]), 0);
	for (i = 0; i < 4; i++)
		cr_assert_neq(bpf_map_lookup_elem(fd, &k[i], &v), 0, "flow %u in the map", i);
	{
		__u8 vals[512 * sizeof(struct mk_bypass_value)];

		cr_assert_leq(libbpf_num_possible_cpus(), 512);
		cr_assert_eq(bpf_map_lookup_elem(fd, &k[4], vals), 0, "fifth flow not in the map");
	}
	for (pass = 1; pass <= 2; pass++) {
		for (i = 0; i < 6; i++) {
			frame_with_ports(fx, &k[i], &t.p.key, buf);
			run_frame(&h, buf, fx->len, &r);
			cr_assert_eq(r.retval, i < 5 ? XDP_DROP : XDP_REDIRECT, "flow %u, pass %u",
				     i, pass);
			assert_accounting(&r, fx->name, fx->len);
		}
	}
	for (i = 0; i < 5; i++) {
		cr_assert_eq(mk_loader_bypass_read(&h.l, &k[i], &v), 0);
		cr_assert_eq(v.packets[0] + v.packets[1], 2, "flow %u: %llu packets", i,
			     (unsigned long long)(v.packets[0] + v.packets[1]));
		cr_assert_eq(v.bytes[0] + v.bytes[1], 2ull * fx->len);
	}
	cr_assert_eq(mk_loader_bypass_walk(&h.l, count_walk, walked), 0);
	cr_assert_eq(walked[0], 5);
	cr_assert_eq(walked[1], 10);

	/* a freed way: its flow is inspected again, the next flow of the set takes it */
	cr_assert_eq(mk_loader_bypass_del(&h.l, &k[1]), 0);
	frame_with_ports(fx, &k[1], &t.p.key, buf);
	run_frame(&h, buf, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "deleted flow still bypassed");
	cr_assert_eq(mk_loader_bypass_add(&h.l, &k[5]), 0);
	cr_assert_neq(bpf_map_lookup_elem(fd, &k[5], &v), 0,
		      "sixth flow in the map, not the table");
	frame_with_ports(fx, &k[5], &t.p.key, buf);
	run_frame(&h, buf, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP);
	/* the manager's insert never touches a flow that is there: table or map */
	{
		bool in_map = false;

		cr_assert_eq(mk_loader_bypass_insert(&h.l, &k[0], true, &in_map), -EEXIST);
		cr_assert_eq(mk_loader_bypass_insert(&h.l, &k[4], true, &in_map), -EEXIST);
		cr_assert_eq(mk_loader_bypass_read(&h.l, &k[0], &v), 0);
		cr_assert_eq(v.packets[0] + v.packets[1], 2, "insert reset a live entry");
		cr_assert_eq(mk_loader_bypass_table_used(&h.l), 4);
	}
	/* re-adding resets the counters, wherever the flow is */
	cr_assert_eq(mk_loader_bypass_add(&h.l, &k[0]), 0);
	cr_assert_eq(mk_loader_bypass_add(&h.l, &k[4]), 0);
	cr_assert_eq(mk_loader_bypass_read(&h.l, &k[0], &v), 0);
	cr_assert_eq(v.packets[0] + v.packets[1], 0);
	cr_assert_eq(mk_loader_bypass_read(&h.l, &k[4], &v), 0);
	cr_assert_eq(v.packets[0] + v.packets[1], 0);
	cr_assert_eq(mk_loader_bypass_read(&h.l, &k[1], &v), -ENOENT);
	for (i = 0; i < 6; i++) {
		if (i != 1)
			cr_assert_eq(mk_loader_bypass_del(&h.l, &k[i]), 0);
	}
	cr_assert_eq(mk_loader_bypass_prefilter_rebuild(&h.l), 0);
	cr_assert_not(
		bit_is_set(h.l.skel->data_prefilter->mk_bypass_bits, mk_bypass_bit(t.p.hash)));
	harness_down(&h);
}

/*
 * Bypass state survives a restart in a pinned map: the next load finds the
 * previous run's flows, and sets their prefilter bits before relying on
 * them. The bpffs is a private one, mounted in a mount namespace of this
 * test alone, so the pins vanish with the test, pass or fail.
 */
Test(bpf, flow_bypass_pinned_restart)
{
	const struct mk_fixture *fx = plain_flow(4, false);
	static struct run r;
	static struct twin t;
	struct harness h;
	struct mk_loader_opts o;
	struct mk_loader l2;
	struct mk_flow_key k[5];
	struct mk_bypass_value v;
	unsigned int w;

	need_root();
	cr_assert_not_null(fx);
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare(CLONE_NEWNS): %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	cr_assert_eq(mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL), 0, "bpffs: %s", strerror(errno));

	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	run_twin(&h, fx->frame, fx->len, &t);
	mk_loader_close(&h.l);
	mk_loader_opts_default(&o);
	o.seed = TEST_SEED;
	o.pin_dir = "/sys/fs/bpf/meerkat-test";
	cr_assert_eq(mk_loader_open(&h.l, &o), 0);
	for (w = 0; w < h.xsks.count; w++)
		cr_assert_eq(mk_loader_set_xsk(&h.l, w, xsk_socket__fd(h.xsks.xsks[w])), 0);
	cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: not bypassed before the restart", fx->name);
	/* and one flow in the map: the set of the first one, full */
	same_set_flows(&t.p.key, k, 5);
	for (w = 1; w < 5; w++)
		cr_assert_eq(mk_loader_bypass_add(&h.l, &k[w]), 0);

	/* the restart: another seed, so the flow's bit moves; the entry must still be found */
	o.seed = TEST_SEED ^ 0x5a5a5a5a;
	cr_assert_eq(mk_loader_open(&l2, &o), 0);
	mk_loader_close(&h.l);
	h.l = l2;
	for (w = 0; w < h.xsks.count; w++)
		cr_assert_eq(mk_loader_set_xsk(&h.l, w, xsk_socket__fd(h.xsks.xsks[w])), 0);
	cr_assert(h.l.skel->bss->mk_prefilter & MK_PREFILTER_BYPASS);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: the pinned entry was lost to the prefilter",
		     fx->name);
	/* moved to its set under the new seed, with the packet it counted */
	cr_assert_eq(mk_loader_bypass_read(&h.l, &t.p.key, &v), 0);
	cr_assert_eq(v.packets[0] + v.packets[1], 2);
	for (w = 1; w < 5; w++) {
		cr_assert_eq(mk_loader_bypass_read(&h.l, &k[w], &v), 0, "flow %u lost", w);
		cr_assert_eq(mk_loader_bypass_del(&h.l, &k[w]), 0);
	}
	cr_assert_eq(mk_loader_bypass_del(&h.l, &t.p.key), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT);
	harness_down(&h);
}

Test(bpf, flow_bypass_ips)
{
	const struct mk_fixture *fx = plain_flow(4, true);
	static struct run r;
	static struct twin t;
	struct mk_bypass_value v;
	struct harness h;
	int lo = (int)if_nametoindex("lo");

	need_root();
	if (!fx)
		fx = plain_flow(4, false);
	cr_assert_not_null(fx, "the fixture table has no IPv4 flow with a reverse");
	cr_assert_gt(lo, 0, "no lo");
	harness_up(&h, fx, 2, MK_MODE_IPS, true);
	run_twin(&h, fx->frame, fx->len, &t);
	cr_assert_eq(mk_loader_bypass_add(&h.l, &t.p.key), 0);

	/* no peer yet: passed, and counted as such */
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_PASS);
	cr_assert_eq(r.delta[MK_STAT_PASS_NO_PEER], 1);
	assert_accounting(&r, fx->name, fx->len);

	cr_assert_eq(mk_loader_set_peer(&h.l, lo), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: bypassed flow not sent to the peer", fx->name);
	cr_assert_eq(r.delta[MK_STAT_FWD_FLOW_BYPASS], 1);
	assert_accounting(&r, fx->name, fx->len);
	/* forwarded exactly as it arrived: no decapsulation, no metadata */
	cr_assert_eq(r.meta_len, 0);
	cr_assert_eq(r.len, fx->len);
	cr_assert_arr_eq(r.frame, fx->frame, fx->len, "%s: forwarded frame was rewritten",
			 fx->name);
	cr_assert_eq(mk_loader_bypass_read(&h.l, &t.p.key, &v), 0);
	cr_assert_eq(v.packets[0] + v.packets[1], 2);
	cr_assert_eq(mk_loader_set_peer(&h.l, 0), 0);
	harness_down(&h);
}

/*
 * Inline mode: frames nobody inspects (non-IP, malformed, no socket bound:
 * the daemon is gone) follow ips.unparsable and ips.failure, and a flow in
 * the drop map is dropped; each with its outcome counter.
 */
static void ips_policy_case(__u32 policy)
{
	const struct mk_fixture *fx = plain_flow(4, false);
	/* ARP request, and an IPv4 header cut short */
	static const __u8 arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0,
				      1,    0x08, 0x06, 0,    1,    8,	  0, 6, 4, 0, 1 };
	static const __u8 cut[24] = {
		2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45, 0, 0, 40
	};
	static struct run r;
	static struct twin t;
	struct harness h;
	int lo = (int)if_nametoindex("lo");
	int fwd = policy == MK_IPS_FORWARD ? XDP_REDIRECT : XDP_DROP;

	need_root();
	cr_assert_not_null(fx);
	test_ips_unparsable = policy;
	test_ips_failure = policy;
	harness_up(&h, fx, 1, MK_MODE_IPS, false);
	test_ips_unparsable = test_ips_failure = MK_IPS_FORWARD;
	cr_assert_eq(mk_loader_set_peer(&h.l, lo), 0);

	run_frame(&h, arp, sizeof(arp), &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "ARP is forwarded whatever the policy");
	cr_assert_eq(r.delta[MK_STAT_FWD_NON_IP], 1);
	assert_accounting(&r, "arp", sizeof(arp));

	run_frame(&h, cut, sizeof(cut), &r);
	cr_assert_eq(r.retval, fwd);
	cr_assert_eq(r.delta[policy == MK_IPS_FORWARD ? MK_STAT_FWD_ERROR : MK_STAT_DROP_ERROR], 1);
	assert_accounting(&r, "cut", sizeof(cut));

	/* no socket in the slot: what a killed daemon leaves */
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, fwd);
	cr_assert_eq(
		r.delta[policy == MK_IPS_FORWARD ? MK_STAT_FWD_NO_SOCKET : MK_STAT_DROP_NO_SOCKET],
		1);
	assert_accounting(&r, fx->name, fx->len);
	if (policy == MK_IPS_FORWARD)
		cr_assert_arr_eq(r.frame, fx->frame, fx->len, "forwarded frame was rewritten");

	/* a blocked flow */
	run_twin(&h, fx->frame, fx->len, &t);
	cr_assert_eq(mk_loader_drop_add(&h.l, &t.p.key), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP);
	cr_assert_eq(r.delta[MK_STAT_DROP_FLOW_BLOCKED], 1);
	assert_accounting(&r, fx->name, fx->len);
	cr_assert_eq(mk_loader_set_peer(&h.l, 0), 0);
	harness_down(&h);
}

Test(bpf, ips_fail_open_forward)
{
	ips_policy_case(MK_IPS_FORWARD);
}

Test(bpf, ips_fail_closed_drop)
{
	ips_policy_case(MK_IPS_DROP);
}

static void cidr_case(const struct mk_fixture *fx, int af)
{
	static const __u8 elsewhere[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, 0xff, 0xff };
	static const __u8 elsewhere4[4] = { 203, 0, 113, 0 };
	__u32 plen = af == AF_INET ? 24 : 64, *count;
	static struct run r;
	struct harness h;

	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	count = af == AF_INET ? &h.l.skel->bss->mk_cidr_v4_entries :
				&h.l.skel->bss->mk_cidr_v6_entries;

	/* a prefix that matches neither address: the trie is searched and misses */
	cr_assert_eq(mk_loader_cidr_add(&h.l, af, af == AF_INET ? elsewhere4 : elsewhere, plen), 0);
	cr_assert_eq(*count, 1);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: bypassed by a prefix it is not in", fx->name);

	/* source prefix; adding it twice counts once */
	cr_assert_eq(mk_loader_cidr_add(&h.l, af, fx->src, plen), 0);
	cr_assert_eq(mk_loader_cidr_add(&h.l, af, fx->src, plen), 0);
	cr_assert_eq(*count, 2);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: source prefix not bypassed", fx->name);
	cr_assert_eq(r.delta[MK_STAT_DROP_CIDR_BYPASS], 1);
	assert_accounting(&r, fx->name, fx->len);
	cr_assert_eq(mk_loader_cidr_del(&h.l, af, fx->src, plen), 0);
	cr_assert_eq(*count, 1);

	/* destination, full-length prefix */
	cr_assert_eq(mk_loader_cidr_add(&h.l, af, fx->dst, af == AF_INET ? 32 : 128), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: destination address not bypassed", fx->name);
	cr_assert_eq(r.delta[MK_STAT_DROP_CIDR_BYPASS], 1);
	cr_assert_eq(mk_loader_cidr_del(&h.l, af, fx->dst, af == AF_INET ? 32 : 128), 0);

	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: still bypassed after delete", fx->name);
	cr_assert_eq(mk_loader_cidr_del(&h.l, af, af == AF_INET ? elsewhere4 : elsewhere, plen), 0);
	cr_assert_eq(*count, 0);
	harness_down(&h);
}

Test(bpf, cidr_bypass_v4)
{
	const struct mk_fixture *fx = plain_flow(4, false);

	need_root();
	cr_assert_not_null(fx, "the fixture table has no plain IPv4 flow");
	cidr_case(fx, AF_INET);
}

Test(bpf, cidr_bypass_v6)
{
	const struct mk_fixture *fx = plain_flow(6, false);

	need_root();
	cr_assert_not_null(fx, "the fixture table has no plain IPv6 flow");
	cidr_case(fx, AF_INET6);
}

/* Entries of the IPv4 CIDR table's first level that are not MK_CIDR4_NONE. */
static __u32 dir_used(const __u16 *d4)
{
	__u32 i, n = 0;

	for (i = 0; i < MK_CIDR4_DIR_ENTRIES; i++)
		n += d4[i] != MK_CIDR4_NONE;
	return n;
}

/*
 * The quick answers next to the CIDR tries, kept by the loader: the IPv4
 * table (a /8 makes 256 /16s ALL, a /20 gives its /16 a chunk with 16 /24s
 * ALL, a /25 gives its /24 a chunk of address bits; an address next to a
 * prefix is answered without the trie and not bypassed; a /16 or /24 marked
 * TRIE is looked up in the trie), the IPv6 prefilter bits (one per folded
 * /32), and with the prefilter off the tries are searched as before.
 */
Test(bpf, cidr_prefilter)
{
	static const __u8 n8[4] = { 100, 7, 0, 0 }, n20[4] = { 100, 8, 16, 0 };
	static const __u8 v6_20[16] = { 0x20, 0x01, 0x0d, 0xb0 };
	static const __u8 v6_40[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xab };
	const struct mk_fixture *fx = plain_flow(4, false), *fx6 = plain_flow(6, false);
	static struct run r;
	struct harness h;
	__u64 *b6;
	__u16 *d4, e;
	__u32 i, w, set, h16;

	need_root();
	cr_assert_not_null(fx);
	cr_assert_not_null(fx6);
	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	d4 = h.l.skel->data_prefilter->mk_cidr4_dir;
	b6 = h.l.skel->data_prefilter->mk_cidr6_bits;

	/* a /8 makes 256 /16s ALL; a /20 inside one of them adds nothing */
	cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, n8, 8), 0);
	cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, n20, 20), 0);
	cr_assert_eq(dir_used(d4), 256, "%u IPv4 /16s used for a /8 holding a /20", dir_used(d4));
	for (i = 0; i < 256; i++)
		cr_assert_eq(d4[100 << 8 | i], MK_CIDR4_ALL);
	cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET, n8, 8), 0);
	cr_assert_eq(dir_used(d4), 1, "%u IPv4 /16s left for one /20", dir_used(d4));
	e = d4[100 << 8 | 8];
	cr_assert(mk_cidr4_is_chunk(e), "the /20's /16 has no chunk: %#x", e);
	for (i = 0; i < 256; i++)
		cr_assert_eq(h.l.cidr4_l2[e].e[i], i >= 16 && i < 32 ? MK_CIDR4_ALL : MK_CIDR4_NONE,
			     "/24 %u", i);
	cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET, n20, 20), 0);
	cr_assert_eq(dir_used(d4), 0);

	/* the fixture's source shares its /24 with a prefix it is not in: answered, missed */
	h16 = (__u32)fx->src[0] << 8 | fx->src[1];
	{
		__u8 near[4];

		memcpy(near, fx->src, 4);
		near[3] ^= 0x80;
		cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, near, 25), 0);
		e = d4[h16];
		cr_assert(mk_cidr4_is_chunk(e));
		cr_assert(mk_cidr4_is_chunk(h.l.cidr4_l2[e].e[fx->src[2]]));
		run_frame(&h, fx->frame, fx->len, &r);
		cr_assert_eq(r.retval, XDP_REDIRECT, "%s: bypassed by a prefix it is not in",
			     fx->name);
		/* a /24 left to the trie (as when chunks run short): the trie answers, exactly */
		cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, fx->dst, 32), 0);
		{
			__u32 dh = (__u32)fx->dst[0] << 8 | fx->dst[1];
			__u16 *e2 = &h.l.cidr4_l2[d4[dh]].e[fx->dst[2]], saved = *e2;

			*e2 = MK_CIDR4_TRIE;
			run_frame(&h, fx->frame, fx->len, &r);
			cr_assert_eq(r.retval, XDP_DROP, "%s: /24 marked TRIE not looked up",
				     fx->name);
			*e2 = saved;
		}
		cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET, fx->dst, 32), 0);
		/* a /16 left to the trie: missed there too */
		e = d4[h16];
		d4[h16] = MK_CIDR4_TRIE;
		run_frame(&h, fx->frame, fx->len, &r);
		cr_assert_eq(r.retval, XDP_REDIRECT, "%s: the trie found a prefix it is not in",
			     fx->name);
		d4[h16] = e;
		/* prefilter off: the tries are searched as before, and the answer is the same */
		h.l.skel->bss->mk_prefilter &= ~MK_PREFILTER_CIDR;
		cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, fx->dst, 32), 0);
		e = d4[h16];
		memset(d4, 0, MK_CIDR4_DIR_ENTRIES * sizeof(*d4));
		run_frame(&h, fx->frame, fx->len, &r);
		cr_assert_eq(r.retval, XDP_DROP, "%s: not bypassed with the prefilter off",
			     fx->name);
		h.l.skel->bss->mk_prefilter |= MK_PREFILTER_CIDR;
		run_frame(&h, fx->frame, fx->len, &r);
		cr_assert_eq(r.retval, XDP_REDIRECT, "a cleared table is read again once it is on");
		d4[h16] = e;
		cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET, near, 25), 0);
		cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET, fx->dst, 32), 0);
		cr_assert_eq(dir_used(d4), 0);
	}

	/* IPv6: a /20 covers 2^12 folded /32s, a /40 one */
	cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET6, v6_20, 20), 0);
	for (i = 0, set = 0; i < MK_CIDR_PREFILTER_BITS; i++)
		set += bit_is_set(b6, i);
	cr_assert_eq(set, 1u << 12, "%u IPv6 bits set for a /20", set);
	memcpy(&w, v6_40, 4);
	cr_assert(bit_is_set(b6, mk_cidr6_bit(w)), "2001:db8::/32 is inside 2001:db0::/20");
	cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET6, v6_40, 40), 0);
	cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET6, v6_20, 20), 0);
	for (i = 0, set = 0; i < MK_CIDR_PREFILTER_BITS; i++)
		set += bit_is_set(b6, i);
	cr_assert_eq(set, 1, "%u IPv6 bits left for one /40", set);
	cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET6, fx6->src, 128), 0);
	run_frame(&h, fx6->frame, fx6->len, &r);
	cr_assert_eq(r.retval, XDP_DROP, "%s: not bypassed by its own /128", fx6->name);
	cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET6, fx6->src, 128), 0);
	cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET6, v6_40, 40), 0);
	for (i = 0, set = 0; i < MK_CIDR_PREFILTER_BITS; i++)
		set += bit_is_set(b6, i);
	cr_assert_eq(set, 0, "%u IPv6 bits left with no prefix", set);
	harness_down(&h);
}

/* IPS: a CIDR-bypassed frame goes to the peer exactly as it arrived. */
static __u32 rnd32(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (__u32)((*s * 0x2545f4914f6cdd1dull) >> 32);
}

/*
 * The program's IPv4 CIDR answer against brute force: 400 random prefixes
 * (/12 to /32) around the fixture's addresses, then 300 frames with random
 * addresses near them; each is dropped exactly when a prefix covers its
 * source or destination. Half the prefixes go again and 300 more frames run.
 */
Test(bpf, cidr4_table_exact, .timeout = 120)
{
	const struct mk_fixture *fx = plain_flow(4, false);
	static struct {
		__u32 addr, len;
	} pf[400];
	static struct run r;
	__u8 buf[OUT_MAX];
	struct harness h;
	__u64 s = 0x5eed;
	__u32 base, i, k, n = 0, round, drops = 0;

	need_root();
	cr_assert_not_null(fx);
	cr_assert_lt(fx->len, sizeof(buf));
	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	memcpy(&base, fx->src, 4);
	base = ntohl(base);
	while (n < MK_ARRAY_SIZE(pf)) {
		__u32 len = 8 + rnd32(&s) % 25,
		      a = (base ^ (rnd32(&s) & 0x000fffff)) & (~0u << (32 - len));
		__u32 be = htonl(a);

		for (k = 0; k < n && !(pf[k].addr == a && pf[k].len == len); k++)
			;
		if (k < n || len < 12) /* keep much of the space outside the list */
			continue;
		cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, &be, len), 0);
		pf[n].addr = a;
		pf[n++].len = len;
	}
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 300; i++) {
			__u32 a[2], be, want = 0, j;

			for (j = 0; j < 2; j++) {
				a[j] = base ^ (rnd32(&s) & (0x000fffff >> (rnd32(&s) % 20)));
				for (k = 0; k < n; k++)
					want |= ((a[j] ^ pf[k].addr) & (~0u << (32 - pf[k].len))) ==
						0;
			}
			memcpy(buf, fx->frame, fx->len);
			be = htonl(a[0]);
			memcpy(buf + MK_ETH_HLEN + 12, &be, 4);
			be = htonl(a[1]);
			memcpy(buf + MK_ETH_HLEN + 16, &be, 4);
			run_frame(&h, buf, fx->len, &r);
			cr_assert_eq(r.retval, want ? XDP_DROP : XDP_REDIRECT,
				     "%08x -> %08x: verdict %u, %s the list", a[0], a[1], r.retval,
				     want ? "in" : "not in");
			drops += want;
		}
		/* half the list goes: the table is rewritten in place under the program */
		for (k = 0; k < n / 2; k++) {
			__u32 be2 = htonl(pf[k].addr);

			cr_assert_eq(mk_loader_cidr_del(&h.l, AF_INET, &be2, pf[k].len), 0);
		}
		memmove(pf, pf + n / 2, (n - n / 2) * sizeof(pf[0]));
		n -= n / 2;
	}
	cr_log_info("%u of 600 frames in the list", drops);
	cr_assert_gt(drops, 60u, "too few frames in the list to mean anything");
	cr_assert_lt(drops, 540u, "too few frames outside the list to mean anything");
	harness_down(&h);
}

Test(bpf, cidr_bypass_ips)
{
	const struct mk_fixture *fx = plain_flow(4, true);
	static struct run r;
	struct harness h;

	need_root();
	if (!fx)
		fx = plain_flow(4, false);
	cr_assert_not_null(fx, "the fixture table has no IPv4 flow with a reverse");
	harness_up(&h, fx, 1, MK_MODE_IPS, true);
	cr_assert_eq(mk_loader_set_peer(&h.l, (int)if_nametoindex("lo")), 0);
	/* the inner flow's source: tunnels are bypassed on their inner addresses */
	cr_assert_eq(mk_loader_cidr_add(&h.l, AF_INET, fx->src, 32), 0);
	run_frame(&h, fx->frame, fx->len, &r);
	cr_assert_eq(r.retval, XDP_REDIRECT, "%s: not sent to the peer", fx->name);
	cr_assert_eq(r.delta[MK_STAT_FWD_CIDR_BYPASS], 1);
	assert_accounting(&r, fx->name, fx->len);
	cr_assert_eq(r.meta_len, 0);
	cr_assert_eq(r.len, fx->len);
	cr_assert_arr_eq(r.frame, fx->frame, fx->len, "%s: forwarded frame was rewritten",
			 fx->name);
	harness_down(&h);
}

/*
 * The program's NH key as compiled is seed 0's, so a program loaded without
 * meerkat's loader (xdp-loader) still hashes as user space does with seed 0;
 * the loader overwrites it with the expansion of the configured seed.
 */
Test(bpf, hash_key_default)
{
	struct meerkat_bpf *skel = meerkat_bpf__open();
	struct mk_hash_key want;

	cr_assert_not_null(skel, "cannot open the BPF object");
	mk_hash_key_init(&want, 0);
	cr_expect_arr_eq((const void *)&skel->rodata->mk_hash_key, &want, sizeof(want),
			 "xdp/meerkat.bpf.c's initial mk_hash_key is not mk_hash_key_init(0)");
	cr_expect_eq(skel->rodata->mk_cfg.seed, 0);
	meerkat_bpf__destroy(skel);
}

/* Both directions of every flow reach the same worker, whatever the number of workers. */
Test(bpf, both_directions_same_worker)
{
	static const __u32 nworkers[] = { 3, 4, 7 };
	unsigned int g, i, n, pairs = 0;

	need_root();
	for (n = 0; n < MK_ARRAY_SIZE(nworkers); n++) {
		for (g = 0; g < mk_fixture_count; g++) {
			struct harness h;

			/* every configuration once; more worker counts on the default one */
			if (!leads_group(g) || (n && !same_cfg(&mk_fixtures[g], &mk_fixtures[0])))
				continue;
			harness_up(&h, &mk_fixtures[g], nworkers[n], MK_MODE_IDS, true);
			for (i = g; i < mk_fixture_count; i++) {
				const struct mk_fixture *fx = &mk_fixtures[i], *rev;
				static struct run a, b;

				rev = find_fixture(fx->reverse);
				if (!same_cfg(fx, &mk_fixtures[g]) || fx->status != MK_PARSE_IP ||
				    !rev || !same_cfg(rev, fx))
					continue;
				run_frame(&h, fx->frame, fx->len, &a);
				run_frame(&h, rev->frame, rev->len, &b);
				cr_assert_eq(a.retval, XDP_REDIRECT, "%s", fx->name);
				cr_assert_eq(b.retval, XDP_REDIRECT, "%s", rev->name);
				cr_assert_eq(a.meta.hash, b.meta.hash, "%s / %s: hashes differ",
					     fx->name, rev->name);
				cr_assert_neq(a.meta.flags & MK_META_F_REVERSE,
					      b.meta.flags & MK_META_F_REVERSE,
					      "%s / %s: same direction bit", fx->name, rev->name);
				pairs++;
			}
			harness_down(&h);
		}
	}
	cr_assert_gt(pairs, 0, "no fixture has a reverse");
	cr_log_info("%u direction pairs checked", pairs);
}

/*
 * Where the fixture's innermost IP packet ends in the frame as received,
 * read from the delivered frame the fixture expects: bytes stripped in front
 * plus the IP header's own length. 0 when not known.
 */
static __u32 fixture_ip_end(const struct mk_fixture *fx)
{
	const __u8 *ip = fx->out + fx->l3_off;
	__u32 iplen;

	if (!fx->out || fx->status != MK_PARSE_IP || (fx->flags & MK_META_F_DEPTH_EXCEEDED) ||
	    fx->l3_off + 40u > fx->out_len)
		return 0;
	iplen = fx->family == 6 ? 40u + ((ip[4] << 8) | ip[5]) : (__u32)((ip[2] << 8) | ip[3]);
	return (fx->len - fx->out_len) + fx->l3_off + iplen;
}

/* A cut inside the inner IP packet that still parses must say TRUNCATED, and only then. */
static void check_truncated_flag(const struct mk_fixture *fx, __u32 cut, const struct run *r,
				 const struct twin *t, const char *what)
{
	__u32 end = fixture_ip_end(fx);

	if (!end || t->status != MK_PARSE_IP || t->p.tunnel_depth != fx->tunnel_depth_stripped)
		return;
	cr_assert_eq(!!(r->meta.flags & MK_META_F_TRUNCATED), cut < end,
		     "%s: TRUNCATED flag %s, IP packet ends at %u", what,
		     (r->meta.flags & MK_META_F_TRUNCATED) ? "set" : "clear", end);
}

/*
 * Every fixture cut at every length: never XDP_ABORTED, exactly one outcome,
 * a reason when PASS_ERROR, and the same result as the user-space parser.
 * BPF_PROG_RUN refuses frames shorter than an Ethernet header (-EINVAL), so
 * those lengths go through the user-space parser only.
 */
Test(bpf, truncation, .timeout = 600)
{
	unsigned int g, i, runs = 0;
	__u32 cut;

	need_root();
	for (g = 0; g < mk_fixture_count; g++) {
		struct harness h;

		if (!leads_group(g))
			continue;
		harness_up(&h, &mk_fixtures[g], 2, MK_MODE_IDS, true);
		for (i = g; i < mk_fixture_count; i++) {
			const struct mk_fixture *fx = &mk_fixtures[i];
			static struct run r;
			static struct twin t;
			char what[256];

			if (!same_cfg(fx, &mk_fixtures[g]))
				continue;
			for (cut = 0; cut <= fx->len; cut++) {
				snprintf(what, sizeof(what), "%s cut to %u", fx->name, cut);
				run_twin(&h, fx->frame, cut, &t);
				if (cut < MK_ETH_HLEN) {
					cr_assert_eq(t.status, MK_PARSE_ERROR, "%s", what);
					cr_assert_eq(t.p.reason, MK_REASON_ERR_TRUNC_ETH, "%s",
						     what);
					continue;
				}
				run_frame(&h, fx->frame, cut, &r);
				cr_assert_eq(r.err, 0, "%s: BPF_PROG_RUN: %s", what,
					     strerror(-r.err));
				cr_assert_neq(r.retval, XDP_ABORTED, "%s: XDP_ABORTED", what);
				assert_accounting(&r, what, cut);
				check_twin(what, &r, &t);
				check_truncated_flag(fx, cut, &r, &t, what);
				runs++;
			}
		}
		harness_down(&h);
	}
	cr_log_info("%u truncated frames run", runs);
}

/*
 * test/bench relies on mk_bench_restore: with it, every frame must come out
 * exactly as it went in, with the same verdict and counters as without it.
 */
Test(bpf, bench_restore)
{
	unsigned int g, i, checked = 0;

	need_root();
	for (g = 0; g < mk_fixture_count; g++) {
		struct harness h;

		if (!leads_group(g))
			continue;
		harness_up_restore(&h, &mk_fixtures[g], 1, MK_MODE_IDS, true, true, false);
		for (i = g; i < mk_fixture_count; i++) {
			const struct mk_fixture *fx = &mk_fixtures[i];
			static struct run r;

			if (!same_cfg(fx, &mk_fixtures[g]) || fx->len < MK_ETH_HLEN)
				continue;
			run_frame(&h, fx->frame, fx->len, &r);
			cr_assert_eq(r.err, 0, "%s: BPF_PROG_RUN: %s", fx->name, strerror(-r.err));
			cr_assert_eq(r.retval, fx->status == MK_PARSE_IP ? XDP_REDIRECT : XDP_PASS,
				     "%s: verdict %u", fx->name, r.retval);
			assert_accounting(&r, fx->name, fx->len);
			cr_assert_eq(r.meta_len, 0, "%s: metadata left in place", fx->name);
			cr_assert_eq(r.len, fx->len, "%s: %u bytes out of %u", fx->name, r.len,
				     fx->len);
			cr_assert_arr_eq(r.frame, fx->frame, fx->len, "%s: frame not restored",
					 fx->name);
			checked++;
		}
		harness_down(&h);
	}
	cr_assert_gt(checked, 0);
}

/*
 * With mk_rx_stamp the program stamps every redirected frame with the
 * monotonic clock (struct mk_meta, 256 ns ticks): the stamp lies between two
 * clock reads around the run, successive frames never go back in time, and
 * the rest of the metadata is the user-space build's, byte for byte.
 */
static __u32 stamp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return mk_meta_stamp_of_ns((__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec);
}

Test(bpf, rx_stamp)
{
	const struct mk_fixture *fx = find_fixture("ipv4_tcp");
	__u32 before, after, stamp, prev = 0, i;
	struct harness h;
	static struct run r;
	static struct twin t;

	need_root();
	cr_assert_not_null(fx);
	harness_up_restore(&h, fx, 2, MK_MODE_IDS, true, false, true);
	run_twin(&h, fx->frame, fx->len, &t);
	for (i = 0; i < 16; i++) {
		struct mk_meta m;

		before = stamp_now();
		run_frame(&h, fx->frame, fx->len, &r);
		after = stamp_now();
		cr_assert_eq(r.retval, XDP_REDIRECT);
		cr_assert_eq(r.meta_len, sizeof(struct mk_meta));
		stamp = mk_meta_stamp(&r.meta);
		cr_assert_leq(mk_meta_stamp_age(stamp, before), mk_meta_stamp_age(after, before),
			      "stamp %#x outside [%#x, %#x]", stamp, before, after);
		if (i)
			cr_assert_leq(mk_meta_stamp_age(stamp, prev),
				      mk_meta_stamp_age(after, prev));
		prev = stamp;
		m = r.meta;
		m.stamp_proto &= ~MK_META_STAMP_MASK;
		cr_assert_arr_eq(&m, &t.meta, sizeof(m), "metadata beyond the stamp differs");
	}
	harness_down(&h);
}

/* Criterion's own runner, plus exit status 77 so meson shows "SKIP" when not root. */
int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;

	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	if (!result && geteuid() != 0)
		return 77;
	return result;
}

/*
 * The bypass manager over the program's real maps: five flows of one set
 * (four table ways, one in the LRU map), frames of each dropped and
 * counted in the driver per direction, an entry deleted behind the
 * manager's back (as the LRU evicts) reported evicted, the others expired
 * at a zero timeout with the driver's counts in the owner's news.
 */
Test(bpf, bypass_manager_maps)
{
	const struct mk_fixture *fx = plain_flow(4, false);
	struct mk_worker_bypass_msg news[8];
	struct mk_bypass_mgr_stats st;
	struct mk_bypass_cfg bc;
	struct mk_flow_cfg fc;
	struct mk_bypass_mgr *m;
	struct mk_loader *lp;
	struct mk_flow_key k[5];
	static struct run r;
	static struct twin t;
	struct harness h;
	__u8 buf[OUT_MAX];
	unsigned int i, n, dir, evicted = 0, expired = 0;
	int fd;

	need_root();
	cr_assert_not_null(fx);
	harness_up(&h, fx, 1, MK_MODE_IDS, true);
	lp = &h.l;
	fd = bpf_map__fd(h.l.skel->maps.mk_flow_bypass);
	run_twin(&h, fx->frame, fx->len, &t);
	dir = t.p.flags & MK_META_F_REVERSE;
	same_set_flows(&t.p.key, k, 5);
	mk_bypass_cfg_defaults(&bc);
	mk_flow_cfg_defaults(&fc);
	for (i = 0; i < MK_FLOW_PROTO_MAX; i++)
		fc.timeout[i][MK_FLOW_STATE_BYPASSED] = 0; /* expire at the first walk */
	cr_assert_eq(mk_bypass_mgr_new(&m, &bc, &fc, &lp, 1, 1, NULL, 0), 0);
	for (i = 0; i < 5; i++)
		cr_assert_eq(mk_bypass_mgr_request(m, 0, &k[i], 100 + i), 0);
	mk_bypass_mgr_poll(m, 0);
	mk_bypass_mgr_stats(m, &st);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_INSERTED], 5);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_INSERTED_MAP], 1, "the fifth flow in the LRU map");
	cr_expect_eq(mk_loader_bypass_table_used(&h.l), 4);
	cr_expect_eq(st.map_used, 1);
	for (i = 0; i < 5; i++) {
		frame_with_ports(fx, &k[i], &t.p.key, buf);
		run_frame(&h, buf, fx->len, &r);
		cr_assert_eq(r.retval, XDP_DROP, "flow %u not dropped after the manager's insert",
			     i);
		run_frame(&h, buf, fx->len, &r);
	}
	/* the kernel's LRU takes the fifth: the next walk must notice */
	cr_assert_eq(bpf_map_delete_elem(fd, &k[4]), 0);
	usleep(30000);
	mk_bypass_mgr_poll(m, 1);
	n = mk_bypass_mgr_news(m, 0, news, 8);
	for (i = 0; i < n; i++) {
		if (news[i].news == MK_BYPASS_NEWS_EVICTED) {
			evicted++;
			cr_expect(!memcmp(&news[i].key, &k[4], sizeof(k[4])));
			continue;
		}
		cr_expect_eq(news[i].news, MK_BYPASS_NEWS_EXPIRED);
		expired++;
		cr_expect_eq(news[i].pkts[dir], 2, "two frames in the fixture's direction");
		cr_expect_eq(news[i].pkts[!dir], 0);
		cr_expect_eq(news[i].bytes[dir], 2ull * fx->len);
		cr_expect_neq(news[i].last_us, 0);
	}
	cr_expect_eq(expired, 4);
	cr_expect_eq(evicted, 1, "the deleted entry reported evicted");
	mk_bypass_mgr_stats(m, &st);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_EVICTED], 1);
	cr_expect_eq(st.cnt[MK_BYPASS_MGR_EXPIRED], 4);
	cr_expect_eq(st.entries, 0);
	cr_expect_eq(mk_loader_bypass_table_used(&h.l), 0, "expired entries deleted");
	mk_bypass_mgr_free(m);
	harness_down(&h);
}
