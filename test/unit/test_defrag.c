// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fragment reassembly: orders, overlap policies, limits, counters, and
 * hostile input. Datagrams and fragments are built here byte by byte, and
 * expected results come from the original datagram or from the policy
 * definitions in docs/defrag.md, never from the code under test.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "defrag.h"
#include "parse.h"

#define NS 1000000000ull
#define MAX_PKT 70000

/* What the datagram looks like; fragments are cut from it. */
struct spec {
	int family; /* 4 or 6 */
	int ext;    /* IPv6: destination options of ext * 8 bytes before the fragment header */
	__u32 id;
	__u32 plen; /* payload bytes after the IP header (and ext) */
	__u8 payload[MAX_PKT];
};

static void wr16(__u8 *p, __u16 v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static __u16 csum(const __u8 *h, __u32 len)
{
	__u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static void fill_payload(struct spec *s, __u32 plen, unsigned int seed)
{
	__u32 i;

	s->plen = plen;
	srand(seed);
	for (i = 0; i < plen; i++)
		s->payload[i] = (__u8)rand();
	if (plen >= 8) {
		/* a UDP header, so the reassembled datagram parses with ports */
		wr16(s->payload, 1234);
		wr16(s->payload + 2, 5678);
		wr16(s->payload + 4, (__u16)plen);
		wr16(s->payload + 6, 0);
	}
}

static __u32 v4_header(const struct spec *s, __u8 *out, __u32 tot, __u16 frag)
{
	memset(out, 0, 20);
	out[0] = 0x45;
	wr16(out + 2, (__u16)tot);
	wr16(out + 4, (__u16)s->id);
	wr16(out + 6, frag);
	out[8] = 64;
	out[9] = 17;
	out[12] = 10, out[13] = 0, out[14] = 0, out[15] = 1;
	out[16] = 10, out[17] = 0, out[18] = 0, out[19] = 2;
	wr16(out + 10, csum(out, 20));
	return 20;
}

/* IPv6 header (+ ext); the byte naming what follows is set to @last_nh. */
static __u32 v6_header(const struct spec *s, __u8 *out, __u32 plen, __u8 last_nh)
{
	__u32 i;

	memset(out, 0, 40);
	out[0] = 0x60;
	wr16(out + 4, (__u16)plen);
	out[7] = 64;
	for (i = 0; i < 16; i++) {
		out[8 + i] = (__u8)(0x20 + i);
		out[24 + i] = (__u8)(0x40 + i);
	}
	if (!s->ext) {
		out[6] = last_nh;
		return 40;
	}
	out[6] = 60;
	memset(out + 40, 0, (size_t)s->ext * 8);
	out[40] = last_nh;
	out[41] = (__u8)(s->ext - 1);
	if (s->ext == 1) {
		out[42] = 1; /* PadN, 4 bytes of padding */
		out[43] = 4;
	} /* longer ones are all Pad1 */
	return 40 + (__u32)s->ext * 8;
}

/* The datagram as it was before fragmentation: what reassembly must give back. */
static __u32 whole(const struct spec *s, __u8 *out)
{
	__u32 hl;

	if (s->family == 4)
		hl = v4_header(s, out, 20 + s->plen, 0);
	else
		hl = v6_header(s, out, (__u32)s->ext * 8 + s->plen, 17);
	memcpy(out + hl, s->payload, s->plen);
	return hl + s->plen;
}

/* One fragment carrying @data as payload bytes [off, off + len). */
static __u32 frag_with(const struct spec *s, __u32 off, __u32 len, int more, const __u8 *data,
		       __u8 *out)
{
	__u32 hl;

	if (s->family == 4) {
		hl = v4_header(s, out, 20 + len, (__u16)((off / 8) | (more ? 0x2000 : 0)));
	} else {
		hl = v6_header(s, out, (__u32)s->ext * 8 + 8 + len, 44);
		out[hl] = 17;
		out[hl + 1] = 0;
		wr16(out + hl + 2, (__u16)(off | (more ? 1 : 0)));
		out[hl + 4] = (__u8)(s->id >> 24);
		out[hl + 5] = (__u8)(s->id >> 16);
		out[hl + 6] = (__u8)(s->id >> 8);
		out[hl + 7] = (__u8)s->id;
		hl += 8;
	}
	memcpy(out + hl, data, len);
	return hl + len;
}

static __u32 frag(const struct spec *s, __u32 off, __u32 len, __u8 *out)
{
	return frag_with(s, off, len, off + len < s->plen, s->payload + off, out);
}

static struct mk_defrag *make(enum mk_defrag_policy p)
{
	struct mk_defrag_config cfg;
	struct mk_defrag *d;

	mk_defrag_config_default(&cfg);
	cfg.policy = p;
	cr_assert_eq(mk_defrag_create(&cfg, &d), 0);
	return d;
}

static struct mk_defrag_stats stats(struct mk_defrag *d)
{
	struct mk_defrag_stats st;

	mk_defrag_get_stats(d, &st);
	return st;
}

/* Feeds a copy the exact size of the fragment, so ASan sees any over-read. */
static int feed(struct mk_defrag *d, const __u8 *pkt, __u32 len, __u64 ts,
		const struct mk_defrag_outer *o, struct mk_defrag_datagram *out)
{
	__u8 *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, pkt, len);
	ret = mk_defrag_input(d, copy, len, ts, o, out);
	free(copy);
	return ret;
}

static void check_datagram(const struct spec *s, const struct mk_defrag_datagram *dg)
{
	static __u8 want[MAX_PKT];
	struct mk_parse_cfg pc = { 0 };
	struct mk_frame f;
	struct mk_parse p;
	__u32 n = whole(s, want);

	cr_assert_eq(dg->len, n, "length %u, want %u", dg->len, n);
	cr_assert_eq(memcmp(dg->data, want, n), 0, "reassembled bytes differ");
	f.data = dg->data;
	f.data_end = dg->data + dg->len;
	cr_assert_eq(mk_parse_frame(&f, MK_START_IP, &pc, &p), MK_PARSE_IP);
	cr_assert_eq(p.l3.frag, MK_FRAG_NONE);
	cr_assert_eq(p.l3.proto, 17);
	if (s->plen >= 8) {
		cr_assert_eq(p.l3.sport, htons(1234));
		cr_assert_eq(p.l3.dport, htons(5678));
	}
}

enum order { IN_ORDER, REVERSE, RANDOM };

/* Cuts the datagram into @fsize pieces, feeds them in @ord, checks the result. */
static void run_order(int family, int ext, __u32 plen, __u32 fsize, enum order ord,
		      unsigned int seed)
{
	static struct spec s;
	static __u8 pkt[MAX_PKT];
	struct mk_defrag_datagram dg = { 0 };
	__u32 offs[9000], n = 0, i, off;
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	int ret = -1;

	memset(&s, 0, sizeof(s));
	s.family = family;
	s.ext = ext;
	s.id = 0x1234 + seed;
	fill_payload(&s, plen, seed);
	for (off = 0; off < plen; off += fsize)
		offs[n++] = off;
	if (ord == REVERSE) {
		for (i = 0; i < n / 2; i++) {
			__u32 t = offs[i];

			offs[i] = offs[n - 1 - i];
			offs[n - 1 - i] = t;
		}
	} else if (ord == RANDOM) {
		srand(seed * 7919);
		for (i = n - 1; i > 0; i--) {
			__u32 j = (__u32)rand() % (i + 1), t = offs[i];

			offs[i] = offs[j];
			offs[j] = t;
		}
	}
	for (i = 0; i < n; i++) {
		__u32 len = plen - offs[i] < fsize ? plen - offs[i] : fsize;
		__u32 fl = frag(&s, offs[i], len, pkt);

		ret = feed(d, pkt, fl, i, NULL, &dg);
		cr_assert_eq(ret, i + 1 == n ? MK_DEFRAG_DONE : MK_DEFRAG_HELD,
			     "fragment %u of %u: ret %d", i, n, ret);
	}
	check_datagram(&s, &dg);
	cr_assert_eq(dg.nfrags, n);
	cr_assert_eq(stats(d).dg_reassembled, 1);
	cr_assert_eq(stats(d).trackers_used, 0);
	cr_assert_eq(stats(d).mem_used, 0);
	mk_defrag_datagram_free(&dg);
	mk_defrag_destroy(d);
}

Test(unit, defrag_v4_in_order)
{
	run_order(4, 0, 4000, 1480, IN_ORDER, 1);
	run_order(4, 0, 17, 8, IN_ORDER, 2);
}

Test(unit, defrag_v4_reverse)
{
	run_order(4, 0, 4000, 1480, REVERSE, 3);
	run_order(4, 0, 1001, 64, REVERSE, 4);
}

Test(unit, defrag_v4_random)
{
	unsigned int seed;

	for (seed = 1; seed <= 20; seed++)
		run_order(4, 0, 100 + seed * 397, 8 * (1 + seed % 40), RANDOM, seed);
}

Test(unit, defrag_v4_max_size)
{
	/* 65535 total: the largest legal datagram reassembles */
	run_order(4, 0, 65535 - 20, 1480, RANDOM, 5);
}

Test(unit, defrag_v6_in_order)
{
	run_order(6, 0, 4000, 1448, IN_ORDER, 6);
	run_order(6, 1, 4000, 1448, IN_ORDER, 7);
}

Test(unit, defrag_v6_reverse)
{
	run_order(6, 0, 3000, 512, REVERSE, 8);
	run_order(6, 1, 3001, 24, REVERSE, 9);
}

Test(unit, defrag_v6_random)
{
	unsigned int seed;

	for (seed = 1; seed <= 20; seed++)
		run_order(6, seed & 1, 100 + seed * 397, 8 * (1 + seed % 40), RANDOM, seed);
}

Test(unit, defrag_v6_max_size)
{
	run_order(6, 0, 65535, 1448, RANDOM, 10);
	run_order(6, 1, 65535 - 8, 1448, RANDOM, 11);
	/* an unfragmentable part longer than a storage chunk */
	run_order(6, 100, 65535 - 800, 1448, RANDOM, 12);
	run_order(6, 100, 3000, 8 * 37, REVERSE, 13);
}

/*
 * Overlaps. Payload is 32 bytes in four 8-byte blocks; each fragment is
 * filled with its own letter; the expected strings give the winner of every
 * block under each policy as docs/defrag.md defines them:
 *   FIRST: the byte already held stays;  LAST: the arriving byte replaces it;
 *   BSD: the arriving byte replaces it iff the arriving fragment starts
 *   strictly before the fragment that holds the byte.
 */
struct piece {
	char fill;
	__u32 block; /* offset, in 8-byte blocks */
	__u32 blocks;
	int more;
};

struct overlap_case {
	const char *name;
	struct piece p[5];
	const char *want[MK_DEFRAG_POLICY_REJECT]; /* by policy: BSD, FIRST, LAST */
};

static const struct overlap_case overlap_cases[] = {
	{ "new inside old, starts later",
	  { { 'A', 0, 3, 1 }, { 'B', 1, 1, 1 }, { 'C', 3, 1, 0 } },
	  { "AAAC", "AAAC", "ABAC" } },
	{ "new starts before old",
	  { { 'A', 1, 2, 1 }, { 'B', 0, 2, 1 }, { 'C', 3, 1, 0 } },
	  { "BBAC", "BAAC", "BBAC" } },
	{ "new overlaps the tail of old",
	  { { 'A', 0, 2, 1 }, { 'B', 1, 2, 1 }, { 'C', 3, 1, 0 } },
	  { "AABC", "AABC", "ABBC" } },
	{ "same start, new longer",
	  { { 'A', 0, 2, 1 }, { 'B', 0, 3, 1 }, { 'C', 3, 1, 0 } },
	  { "AABC", "AABC", "BBBC" } },
	{ "new covers old, starts before",
	  { { 'A', 1, 1, 1 }, { 'B', 0, 3, 1 }, { 'C', 3, 1, 0 } },
	  { "BBBC", "BABC", "BBBC" } },
	{ "three-way",
	  { { 'A', 1, 1, 1 }, { 'B', 0, 2, 1 }, { 'D', 1, 2, 1 }, { 'C', 3, 1, 0 } },
	  { "BBDC", "BADC", "BDDC" } },
	{ "last fragment first, then an earlier one over it",
	  { { 'C', 2, 2, 0 }, { 'A', 0, 3, 1 } },
	  { "AAAC", "AACC", "AAAC" } },
};

static void run_overlap(int family, enum mk_defrag_policy pol, const struct overlap_case *c)
{
	static struct spec s;
	__u8 pkt[256], data[64], want[32];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(pol);
	int i, ret = -1;
	__u32 b;

	memset(&s, 0, sizeof(s));
	s.family = family;
	s.id = 77;
	for (i = 0; i < 5 && c->p[i].fill; i++) {
		const struct piece *p = &c->p[i];
		__u32 n;

		memset(data, p->fill, sizeof(data));
		n = frag_with(&s, p->block * 8, p->blocks * 8, p->more, data, pkt);
		ret = feed(d, pkt, n, 1, NULL, &dg);
	}
	cr_assert_eq(ret, MK_DEFRAG_DONE, "%s (%s, v%d): ret %d", c->name,
		     mk_defrag_policy_name(pol), family, ret);
	for (b = 0; b < 32; b++)
		want[b] = (__u8)c->want[pol][b / 8];
	s.plen = 32;
	memcpy(s.payload, want, 32);
	/* the header must be the original one, the payload the policy's choice */
	{
		__u8 whole_pkt[128];
		__u32 n = whole(&s, whole_pkt);

		cr_assert_eq(dg.len, n);
		cr_assert_eq(memcmp(dg.data, whole_pkt, n - 32), 0, "%s: header", c->name);
		cr_assert_eq(memcmp(dg.data + n - 32, want, 32), 0,
			     "%s (%s, v%d): got %.32s want %.32s", c->name,
			     mk_defrag_policy_name(pol), family, dg.data + n - 32, want);
	}
	cr_assert_eq(stats(d).dg_overlap_mismatch, 1);
	cr_assert_geq(stats(d).frags_overlap, 1);
	mk_defrag_datagram_free(&dg);
	mk_defrag_destroy(d);
}

Test(unit, defrag_overlap_policies)
{
	size_t i;
	int pol;

	for (i = 0; i < MK_ARRAY_SIZE(overlap_cases); i++) {
		for (pol = 0; pol < MK_DEFRAG_POLICY_REJECT; pol++) {
			run_overlap(4, (enum mk_defrag_policy)pol, &overlap_cases[i]);
			run_overlap(6, (enum mk_defrag_policy)pol, &overlap_cases[i]);
		}
	}
}

/* RFC 5722: any overlap other than an exact duplicate drops the datagram. */
Test(unit, defrag_overlap_reject)
{
	static struct spec s;
	__u8 pkt[256], data[64];
	struct mk_defrag_datagram dg = { 0 };
	size_t i;
	int fam;

	for (fam = 4; fam <= 6; fam += 2) {
		for (i = 0; i < MK_ARRAY_SIZE(overlap_cases); i++) {
			const struct overlap_case *c = &overlap_cases[i];
			struct mk_defrag *d = make(MK_DEFRAG_POLICY_REJECT);
			int k, ret = 0;

			memset(&s, 0, sizeof(s));
			s.family = fam;
			s.id = 78;
			for (k = 0; k < 5 && c->p[k].fill && ret >= 0; k++) {
				memset(data, c->p[k].fill, sizeof(data));
				ret = feed(d, pkt,
					   frag_with(&s, c->p[k].block * 8, c->p[k].blocks * 8,
						     c->p[k].more, data, pkt),
					   1, NULL, &dg);
			}
			cr_assert_eq(ret, -EEXIST, "%s: ret %d", c->name, ret);
			cr_assert_eq(stats(d).dg_overlap, 1);
			cr_assert_eq(stats(d).trackers_used, 0);
			mk_defrag_destroy(d);
		}
	}
}

/* IPv4 options: the first fragment's header, options and all, heads the datagram. */
Test(unit, defrag_v4_options)
{
	__u8 first[128], second[128];
	__u8 payload[48];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	__u32 i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (__u8)(i * 7);
	/* 24-byte header: one 4-byte option (router alert), as copied options would be */
	memset(first, 0, 24);
	first[0] = 0x46;
	wr16(first + 2, 24 + 32);
	wr16(first + 4, 0xbeef);
	wr16(first + 6, 0x2000);
	first[8] = 64;
	first[9] = 17;
	first[12] = 192, first[13] = 0, first[14] = 2, first[15] = 1;
	first[16] = 192, first[17] = 0, first[18] = 2, first[19] = 2;
	first[20] = 0x94, first[21] = 4;
	wr16(first + 10, csum(first, 24));
	memcpy(first + 24, payload, 32);
	/* later fragment without the option */
	memcpy(second, first, 20);
	second[0] = 0x45;
	wr16(second + 2, 20 + 16);
	wr16(second + 6, 32 / 8);
	wr16(second + 10, 0);
	wr16(second + 10, csum(second, 20));
	memcpy(second + 20, payload + 32, 16);

	cr_assert_eq(feed(d, second, 36, 1, NULL, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, first, 56, 1, NULL, &dg), MK_DEFRAG_DONE);
	cr_assert_eq(dg.len, 24 + 48);
	cr_assert_eq(dg.data[0], 0x46);
	cr_assert_eq(dg.data[2] << 8 | dg.data[3], 72);
	cr_assert_eq(dg.data[6] << 8 | dg.data[7], 0, "MF and offset cleared");
	cr_assert_eq(dg.data[20], 0x94, "option kept");
	cr_assert_eq(csum(dg.data, 24), 0, "header checksum valid");
	cr_assert_eq(memcmp(dg.data + 24, payload, 48), 0);
	mk_defrag_datagram_free(&dg);
	mk_defrag_destroy(d);
}

Test(unit, defrag_default_policy_is_bsd)
{
	struct mk_defrag_config cfg;
	enum mk_defrag_policy p;

	mk_defrag_config_default(&cfg);
	cr_assert_eq(cfg.policy, MK_DEFRAG_POLICY_BSD);
	cr_assert_eq(cfg.timeout_ns, 60 * NS);
	cr_assert_eq(mk_defrag_policy_parse("last", &p), 0);
	cr_assert_eq(p, MK_DEFRAG_POLICY_LAST);
	cr_assert_eq(mk_defrag_policy_parse("linux", &p), -EINVAL);
}

Test(unit, defrag_duplicates)
{
	static struct spec s;
	static __u8 pkt[2048];
	struct mk_defrag_datagram dg = { 0 };
	int pol, ret;

	for (pol = 0; pol < MK_DEFRAG_POLICY_MAX; pol++) {
		struct mk_defrag *d = make((enum mk_defrag_policy)pol);
		__u32 n;

		memset(&s, 0, sizeof(s));
		s.family = pol == 1 ? 6 : 4;
		s.id = 9;
		fill_payload(&s, 3000, 42);
		/* every fragment twice, the last one only once and last */
		n = frag(&s, 1000, 1000, pkt);
		cr_assert_eq(feed(d, pkt, n, 1, NULL, &dg), MK_DEFRAG_HELD);
		cr_assert_eq(feed(d, pkt, n, 1, NULL, &dg), MK_DEFRAG_HELD);
		n = frag(&s, 0, 1000, pkt);
		cr_assert_eq(feed(d, pkt, n, 1, NULL, &dg), MK_DEFRAG_HELD);
		cr_assert_eq(feed(d, pkt, n, 1, NULL, &dg), MK_DEFRAG_HELD);
		n = frag(&s, 2000, 1000, pkt);
		ret = feed(d, pkt, n, 1, NULL, &dg);
		cr_assert_eq(ret, MK_DEFRAG_DONE);
		check_datagram(&s, &dg);
		cr_assert_eq(stats(d).frags_overlap, 2);
		cr_assert_eq(stats(d).dg_overlap_mismatch, 0, "identical copies are no mismatch");
		mk_defrag_datagram_free(&dg);
		/* a late duplicate starts a new datagram, which times out, counted */
		cr_assert_eq(feed(d, pkt, n, 2, NULL, &dg), MK_DEFRAG_HELD);
		cr_assert_eq(mk_defrag_expire(d, 2 + 60 * NS), 1);
		cr_assert_eq(stats(d).dg_timeout, 1);
		mk_defrag_destroy(d);
	}
}

static void two_frag_spec(struct spec *s, int family, __u32 id)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
	s->id = id;
	fill_payload(s, 64, id);
}

Test(unit, defrag_timeout)
{
	static struct spec s;
	__u8 a[256], b[256];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	__u32 na, nb;
	int fam;

	for (fam = 4; fam <= 6; fam += 2) {
		__u64 t0 = fam * 1000 * NS;

		two_frag_spec(&s, fam, 5);
		na = frag(&s, 0, 32, a);
		nb = frag(&s, 32, 32, b);
		cr_assert_eq(feed(d, a, na, t0, NULL, &dg), MK_DEFRAG_HELD);
		/* 59.999 s later it still completes... */
		cr_assert_eq(feed(d, b, nb, t0 + 60 * NS - 1, NULL, &dg), MK_DEFRAG_DONE);
		check_datagram(&s, &dg);
		mk_defrag_datagram_free(&dg);

		/* ...at 60 s it is abandoned, and the late fragment starts afresh */
		cr_assert_eq(feed(d, a, na, t0 + 100 * NS, NULL, &dg), MK_DEFRAG_HELD);
		cr_assert_eq(feed(d, b, nb, t0 + 160 * NS, NULL, &dg), MK_DEFRAG_HELD);
		cr_assert_eq(stats(d).dg_timeout, fam == 4 ? 1 : 2);
		cr_assert_eq(stats(d).trackers_used, 1);
		cr_assert_eq(feed(d, a, na, t0 + 161 * NS, NULL, &dg), MK_DEFRAG_DONE);
		check_datagram(&s, &dg);
		mk_defrag_datagram_free(&dg);
	}
	/* a timestamp that steps back never expires anything */
	cr_assert_eq(feed(d, a, na, 10000 * NS, NULL, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(mk_defrag_expire(d, 5 * NS), 0);
	cr_assert_eq(mk_defrag_expire(d, 10060 * NS), 1);
	cr_assert_eq(stats(d).dg_timeout, 3);
	cr_assert_eq(stats(d).mem_used, 0);
	mk_defrag_destroy(d);
}

Test(unit, defrag_memcap)
{
	static struct spec s;
	static __u8 pkt[2048];
	struct mk_defrag_config cfg;
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d;
	__u32 id, n;

	mk_defrag_config_default(&cfg);
	cfg.memcap = 3000;
	cr_assert_eq(mk_defrag_create(&cfg, &d), 0);

	/* first halves of three datagrams: the third pushes out the oldest */
	for (id = 1; id <= 3; id++) {
		memset(&s, 0, sizeof(s));
		s.family = 4;
		s.id = id;
		fill_payload(&s, 2048, id);
		n = frag(&s, 0, 1024, pkt);
		cr_assert_eq(feed(d, pkt, n, id, NULL, &dg), MK_DEFRAG_HELD);
		cr_assert_leq(stats(d).mem_used, 3000);
	}
	cr_assert_eq(stats(d).dg_memcap, 1);
	cr_assert_eq(stats(d).trackers_used, 2);
	/* id 3 completes: its second half pushes out id 2 */
	n = frag(&s, 1024, 1024, pkt);
	cr_assert_eq(feed(d, pkt, n, 4, NULL, &dg), MK_DEFRAG_DONE);
	check_datagram(&s, &dg);
	mk_defrag_datagram_free(&dg);
	cr_assert_eq(stats(d).dg_memcap, 2);
	cr_assert_eq(stats(d).mem_used, 0);

	/* one datagram bigger than the cap, alone: it goes itself */
	memset(&s, 0, sizeof(s));
	s.family = 6;
	s.id = 99;
	fill_payload(&s, 4096, 99);
	cr_assert_eq(feed(d, pkt, frag(&s, 0, 1024, pkt), 5, NULL, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, pkt, frag(&s, 1024, 1024, pkt), 5, NULL, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, pkt, frag(&s, 2048, 1024, pkt), 5, NULL, &dg), -ENOBUFS);
	cr_assert_eq(stats(d).dg_memcap, 3);
	cr_assert_eq(stats(d).trackers_used, 0);
	cr_assert_eq(stats(d).mem_used, 0);
	mk_defrag_destroy(d);
}

Test(unit, defrag_tracker_eviction)
{
	static struct spec s;
	__u8 pkt[256];
	struct mk_defrag_config cfg;
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d;
	__u32 id;

	mk_defrag_config_default(&cfg);
	cfg.max_trackers = 4;
	cr_assert_eq(mk_defrag_create(&cfg, &d), 0);
	for (id = 1; id <= 6; id++) {
		two_frag_spec(&s, 4, id);
		cr_assert_eq(feed(d, pkt, frag(&s, 0, 32, pkt), id, NULL, &dg), MK_DEFRAG_HELD);
	}
	cr_assert_eq(stats(d).dg_evicted, 2);
	cr_assert_eq(stats(d).trackers_used, 4);
	mk_defrag_destroy(d);
}

Test(unit, defrag_destroy_counts_pending)
{
	static struct spec s;
	__u8 pkt[256];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);

	two_frag_spec(&s, 6, 1);
	cr_assert_eq(feed(d, pkt, frag(&s, 0, 32, pkt), 1, NULL, &dg), MK_DEFRAG_HELD);
	mk_defrag_destroy(d); /* dg_flushed; ASan checks nothing leaks */
}

Test(unit, defrag_frag_limit)
{
	static struct spec s;
	__u8 pkt[256];
	struct mk_defrag_config cfg;
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d;
	__u32 i;

	mk_defrag_config_default(&cfg);
	cfg.max_frags = 4;
	cr_assert_eq(mk_defrag_create(&cfg, &d), 0);
	memset(&s, 0, sizeof(s));
	s.family = 4;
	s.id = 3;
	fill_payload(&s, 80, 3);
	for (i = 0; i < 4; i++)
		cr_assert_eq(feed(d, pkt, frag(&s, i * 8, 8, pkt), 1, NULL, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, pkt, frag(&s, 32, 8, pkt), 1, NULL, &dg), -E2BIG);
	cr_assert_eq(stats(d).dg_too_many_frags, 1);
	cr_assert_eq(stats(d).trackers_used, 0);
	cr_assert_eq(stats(d).mem_used, 0);
	/* a datagram of exactly max_frags fragments is fine */
	s.id = 4;
	fill_payload(&s, 32, 4);
	for (i = 0; i < 4; i++)
		cr_assert_eq(feed(d, pkt, frag(&s, i * 8, 8, pkt), 2, NULL, &dg),
			     i == 3 ? MK_DEFRAG_DONE : MK_DEFRAG_HELD);
	check_datagram(&s, &dg);
	mk_defrag_datagram_free(&dg);
	mk_defrag_destroy(d);
}

Test(unit, defrag_oversize)
{
	static struct spec s;
	__u8 pkt[256], data[64] = { 0 };
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	int fam;

	for (fam = 4; fam <= 6; fam += 2) {
		two_frag_spec(&s, fam, 8);
		cr_assert_eq(feed(d, pkt, frag(&s, 0, 32, pkt), 1, NULL, &dg), MK_DEFRAG_HELD);
		/* the Ping of Death: the last fragment ends past 65535 */
		cr_assert_eq(feed(d, pkt, frag_with(&s, 65528, 16, 0, data, pkt), 1, NULL, &dg),
			     -EMSGSIZE);
		cr_assert_eq(stats(d).trackers_used, 0, "the pending datagram goes too");
	}
	cr_assert_eq(stats(d).dg_oversize, 2);
	cr_assert_eq(stats(d).mem_used, 0);
	mk_defrag_destroy(d);
}

Test(unit, defrag_invalid)
{
	static struct spec s;
	__u8 pkt[256];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);

	two_frag_spec(&s, 4, 1);
	/* non-final fragment whose length is not a multiple of 8 */
	cr_assert_eq(feed(d, pkt, frag_with(&s, 0, 30, 1, s.payload, pkt), 1, NULL, &dg), -EINVAL);
	cr_assert_eq(stats(d).dg_invalid, 1);
	/* two final fragments that disagree on the end */
	cr_assert_eq(feed(d, pkt, frag_with(&s, 32, 32, 0, s.payload, pkt), 1, NULL, &dg),
		     MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, pkt, frag_with(&s, 32, 24, 0, s.payload, pkt), 1, NULL, &dg), -EINVAL);
	cr_assert_eq(stats(d).dg_invalid, 2);
	/* data past a known end */
	cr_assert_eq(feed(d, pkt, frag_with(&s, 32, 32, 0, s.payload, pkt), 1, NULL, &dg),
		     MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, pkt, frag_with(&s, 56, 16, 1, s.payload, pkt), 1, NULL, &dg), -EINVAL);
	/* a final fragment ending before data already held */
	cr_assert_eq(feed(d, pkt, frag_with(&s, 32, 32, 1, s.payload, pkt), 1, NULL, &dg),
		     MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, pkt, frag_with(&s, 8, 16, 0, s.payload, pkt), 1, NULL, &dg), -EINVAL);
	cr_assert_eq(stats(d).dg_invalid, 4);
	/* empty fragment */
	cr_assert_eq(feed(d, pkt, frag_with(&s, 8, 0, 1, s.payload, pkt), 1, NULL, &dg), -EINVAL);
	cr_assert_eq(stats(d).dg_invalid, 5);
	cr_assert_eq(stats(d).trackers_used, 0);
	cr_assert_eq(stats(d).mem_used, 0);
	mk_defrag_destroy(d);
}

Test(unit, defrag_not_fragment_and_atomic)
{
	static struct spec s;
	static __u8 pkt[256];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	__u32 n;

	two_frag_spec(&s, 4, 1);
	n = whole(&s, pkt);
	cr_assert_eq(feed(d, pkt, n, 1, NULL, &dg), -ENOTSUP);
	s.family = 6;
	n = whole(&s, pkt);
	cr_assert_eq(feed(d, pkt, n, 1, NULL, &dg), -ENOTSUP);
	cr_assert_eq(stats(d).frags_not_fragment, 2);

	/* RFC 6946 atomic fragment: delivered at once, without its fragment header */
	s.ext = 1;
	cr_assert_eq(feed(d, pkt, frag_with(&s, 0, 64, 0, s.payload, pkt), 1, NULL, &dg),
		     MK_DEFRAG_DONE);
	check_datagram(&s, &dg);
	mk_defrag_datagram_free(&dg);
	cr_assert_eq(stats(d).trackers_used, 0);
	mk_defrag_destroy(d);
}

/* fuzz_defrag: an atomic fragment bigger than max_datagram was delivered anyway */
Test(unit, defrag_atomic_oversize)
{
	static struct spec s;
	static __u8 pkt[4096];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag_config cfg;
	struct mk_defrag *d;

	mk_defrag_config_default(&cfg);
	cfg.max_datagram = 1500;
	cr_assert_eq(mk_defrag_create(&cfg, &d), 0);
	two_frag_spec(&s, 6, 1);
	cr_assert_eq(feed(d, pkt, frag_with(&s, 0, 1500 - 8, 0, s.payload, pkt), 1, NULL, &dg),
		     MK_DEFRAG_DONE, "payload of exactly max_datagram is delivered");
	cr_assert_eq(dg.len, 40 + 1500 - 8);
	mk_defrag_datagram_free(&dg);
	cr_assert_eq(feed(d, pkt, frag_with(&s, 0, 3168, 0, s.payload, pkt), 1, NULL, &dg),
		     -EMSGSIZE);
	cr_assert_null(dg.data);
	cr_assert_eq(stats(d).dg_oversize, 1);
	cr_assert_eq(stats(d).dg_reassembled, 1);
	cr_assert_eq(stats(d).mem_used, 0);
	mk_defrag_destroy(d);
}

Test(unit, defrag_identity_vlan_tunnel)
{
	static struct spec s;
	__u8 a[256], b[256];
	struct mk_defrag_outer v10 = { { 10, 0 }, 0 }, v20 = { { 20, 0 }, 0 };
	struct mk_defrag_outer t1 = { { 10, 0 }, 0x1111 }, q = { { 10, 7 }, 0 };
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	__u32 na, nb;

	two_frag_spec(&s, 4, 5);
	na = frag(&s, 0, 32, a);
	nb = frag(&s, 32, 32, b);
	cr_assert_eq(feed(d, a, na, 1, &v10, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, b, nb, 1, &v20, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, b, nb, 1, &t1, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, b, nb, 1, &q, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(feed(d, b, nb, 1, NULL, &dg), MK_DEFRAG_HELD);
	cr_assert_eq(stats(d).trackers_used, 5);
	cr_assert_eq(feed(d, a, na, 1, &v20, &dg), MK_DEFRAG_DONE);
	check_datagram(&s, &dg);
	mk_defrag_datagram_free(&dg);
	cr_assert_eq(feed(d, b, nb, 1, &v10, &dg), MK_DEFRAG_DONE);
	mk_defrag_datagram_free(&dg);
	cr_assert_eq(feed(d, a, na, 1, &t1, &dg), MK_DEFRAG_DONE);
	mk_defrag_datagram_free(&dg);
	cr_assert_eq(stats(d).trackers_used, 2);
	mk_defrag_destroy(d);
}

/* Every prefix of a few fragments: dropped and counted, never a crash or over-read. */
Test(unit, defrag_truncation)
{
	static struct spec s;
	static __u8 pkt[512];
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d = make(MK_DEFRAG_POLICY_BSD);
	struct mk_defrag_stats st;
	int fam, ext, which;
	__u32 n, len, fed = 0;

	for (fam = 4; fam <= 6; fam += 2) {
		for (ext = 0; ext <= (fam == 6); ext++) {
			for (which = 0; which < 3; which++) {
				memset(&s, 0, sizeof(s));
				s.family = fam;
				s.ext = ext;
				s.id = (__u32)(fam * 10 + ext * 3 + which);
				fill_payload(&s, 200, 5);
				n = which == 0 ? frag(&s, 0, 96, pkt) :
				    which == 1 ? frag(&s, 96, 48, pkt) :
						 frag(&s, 144, 56, pkt);
				for (len = 0; len < n; len++) {
					int ret = feed(d, pkt, len, 1, NULL, &dg);

					fed++;
					cr_assert_lt(ret, 0, "v%d len %u of %u accepted", fam, len,
						     n);
				}
			}
		}
	}
	st = stats(d);
	cr_assert_eq(st.frags_in, fed);
	cr_assert_eq(st.frags_malformed + st.frags_not_fragment, fed);
	cr_assert_eq(st.trackers_used, 0);
	mk_defrag_destroy(d);
}

/*
 * Random fragments of random datagrams, with bytes flipped, duplicates,
 * losses and jumping timestamps; a small table so every limit is hit.
 * Under ASan/UBSan this is the check that hostile input is safe.
 */
Test(unit, defrag_random_robustness, .timeout = 120)
{
	static struct spec s;
	static __u8 pkt[4096];
	struct mk_defrag_config cfg;
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d;
	struct mk_defrag_stats st;
	__u64 ts = 0, done = 0;
	int iter;

	mk_defrag_config_default(&cfg);
	cfg.memcap = 64 * 1024;
	cfg.max_trackers = 16;
	cfg.max_frags = 12;
	cfg.timeout_ns = 5 * NS;
	cr_assert_eq(mk_defrag_create(&cfg, &d), 0);
	srand(12345);
	for (iter = 0; iter < 20000; iter++) {
		__u32 plen = 8 + (__u32)rand() % 3000, off, len, n, k;
		int ret;

		memset(&s, 0, sizeof(s));
		s.family = rand() & 1 ? 4 : 6;
		s.ext = rand() % 3 == 2 ? 40 : rand() & 1;
		s.id = (__u32)rand() % 8;
		fill_payload(&s, plen, (unsigned int)iter);
		srand(12345 + (unsigned int)iter);
		off = ((__u32)rand() % plen) & ~7u;
		len = 1 + (__u32)rand() % (plen - off);
		if (rand() % 4 && off + len < plen)
			len = (len + 7) & ~7u;
		if (off + len > plen)
			len = plen - off;
		n = frag_with(&s, off, len, off + len < plen || rand() % 8 == 0, s.payload + off,
			      pkt);
		/* flip a few bytes, mostly in the headers */
		for (k = (__u32)rand() % 4; k > 0; k--)
			pkt[(__u32)rand() % (rand() % 2 ? 64 : n)] ^= (__u8)(1 + rand() % 255);
		if (rand() % 16 == 0)
			n = (__u32)rand() % (n + 1);
		ts += (__u64)(rand() % 1000) * 1000000ull;
		if (rand() % 64 == 0)
			ts -= ts / 4;
		ret = feed(d, pkt, n, ts, NULL, &dg);
		if (ret == MK_DEFRAG_DONE) {
			struct mk_parse_cfg pc = { 0 };
			struct mk_frame f = { dg.data, dg.data + dg.len };
			struct mk_parse p;

			mk_parse_frame(&f, MK_START_IP, &pc, &p);
			done++;
			mk_defrag_datagram_free(&dg);
		}
		st = stats(d);
		cr_assert_leq(st.mem_used, cfg.memcap);
		cr_assert_leq(st.trackers_used, cfg.max_trackers);
	}
	st = stats(d);
	cr_assert_eq(st.frags_in, 20000);
	cr_assert_eq(st.dg_reassembled, done);
	cr_assert_gt(st.frags_malformed, 0);
	mk_defrag_destroy(d);
}

/*
 * Several datagrams in flight at once, each cut into random overlapping
 * pieces (duplicates and overlaps included) fed in random order; now and
 * then a piece carries foreign bytes, a flipped header byte or a cut. A
 * datagram that only ever saw genuine pieces must come out byte-exact
 * whatever the policy, since every copy of a byte agrees.
 */
#define SLOTS 6

struct slot {
	struct spec s;
	int tainted;
	__u32 sent;
};

Test(unit, defrag_random_interleaved, .timeout = 120)
{
	static struct slot slots[SLOTS];
	static __u8 pkt[8192], junk[8192];
	struct mk_defrag_config cfg;
	struct mk_defrag_datagram dg = { 0 };
	struct mk_defrag *d;
	struct mk_defrag_stats st;
	__u32 next_id = 1, exact = 0, i;
	__u64 ts = 0;
	int iter, pol;

	for (pol = 0; pol < MK_DEFRAG_POLICY_MAX; pol++) {
		mk_defrag_config_default(&cfg);
		cfg.policy = (enum mk_defrag_policy)pol;
		cfg.memcap = 40 * 1024;
		cfg.max_frags = 24;
		cr_assert_eq(mk_defrag_create(&cfg, &d), 0);
		srand(777 + (unsigned int)pol);
		for (i = 0; i < SLOTS; i++)
			slots[i].sent = 1000; /* forces a fresh datagram */
		for (iter = 0; iter < 30000; iter++) {
			struct slot *sl = &slots[(__u32)rand() % SLOTS];
			__u32 off, len, n, plen;
			const __u8 *data;
			int ret, more;

			if (sl->sent > 40) {
				memset(&sl->s, 0, sizeof(sl->s));
				sl->s.family = rand() & 1 ? 4 : 6;
				sl->s.ext = rand() % 3 == 2 ? 70 : rand() & 1;
				sl->s.id = next_id++;
				fill_payload(&sl->s, 8 + (__u32)rand() % 6000, next_id);
				srand(777 + next_id * 31 + (unsigned int)pol);
				sl->tainted = 0;
				sl->sent = 0;
			}
			plen = sl->s.plen;
			off = ((__u32)rand() % plen) & ~7u;
			if (rand() % 4 == 0)
				off = 0;
			len = 8 * (1 + (__u32)rand() % 200);
			if (off + len >= plen || rand() % 6 == 0)
				len = plen - off; /* the last piece */
			more = off + len < plen;
			data = sl->s.payload + off;
			if (rand() % 50 == 0) {
				for (i = 0; i < len; i++)
					junk[i] = (__u8)rand();
				data = junk;
				sl->tainted = 1;
			}
			n = frag_with(&sl->s, off, len, more, data, pkt);
			if (rand() % 100 == 0) {
				pkt[(__u32)rand() % 48] ^= (__u8)(1 + rand() % 255);
				sl->tainted = 1;
			}
			if (rand() % 100 == 0) {
				n = (__u32)rand() % n;
				sl->tainted = 1;
			}
			sl->sent++;
			ts += (__u64)(rand() % 50) * 1000000ull;
			ret = feed(d, pkt, n, ts, NULL, &dg);
			if (ret == MK_DEFRAG_DONE) {
				if (!sl->tainted) {
					check_datagram(&sl->s, &dg);
					exact++;
				}
				mk_defrag_datagram_free(&dg);
				sl->sent = 1000;
			}
			st = stats(d);
			cr_assert_leq(st.mem_used, cfg.memcap);
		}
		st = stats(d);
		cr_assert_eq(st.frags_in, 30000);
		cr_assert_gt(st.dg_memcap, 0);
		cr_assert_gt(st.frags_overlap, 0);
		if (pol == MK_DEFRAG_POLICY_REJECT)
			cr_assert_gt(st.dg_overlap, 0);
		else
			cr_assert_gt(st.dg_too_many_frags, 0);
		mk_defrag_destroy(d);
	}
	cr_assert_gt(exact, 300, "only %u datagrams checked", exact);
}

static void count_names(const char *name, __u64 value, void *arg)
{
	(void)value;
	cr_assert_not_null(name);
	(*(int *)arg)++;
}

Test(unit, defrag_stats_names)
{
	struct mk_defrag_stats a = { 0 }, b = { 0 };
	struct mk_defrag_config cfg;
	struct mk_defrag *d;
	char buf[4096];
	FILE *f;
	int n = 0;

	a.dg_timeout = 2;
	b.dg_timeout = 3;
	mk_defrag_stats_add(&a, &b);
	cr_assert_eq(a.dg_timeout, 5);
	mk_defrag_stats_foreach(&a, count_names, &n);
	cr_assert_eq(n, (int)(sizeof(a) / sizeof(__u64)), "every field has a name");
	f = fmemopen(buf, sizeof(buf), "w");
	mk_defrag_stats_print(&a, f);
	fclose(f);
	cr_assert_not_null(strstr(buf, "defrag.dg_timeout 5\n"));

	mk_defrag_config_default(&cfg);
	cfg.max_frags = 0;
	cr_assert_eq(mk_defrag_create(&cfg, &d), -EINVAL);
	cr_assert_null(d);
}
