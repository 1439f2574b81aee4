// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for IP fragment reassembly (userspace/tracking/defrag.c). The input
 * is a byte of configuration (overlap policy, limits) and then records, each
 *
 *	ctl, ts_delta, len, body...
 *
 * ctl & 3 picks what the record is: 0 = raw bytes (len of them) offered as
 * a fragment as they are, 1 = an IPv4 fragment and 2 = an IPv6 fragment built
 * from the body (id, offset, then payload; MF from ctl bit 2, protocol from
 * bit 3, a lying length field from bit 4), 3 = mk_defrag_expire. Fragments
 * sit in exact-size heap copies so ASan sees any read past them. Limits are
 * small (memcap, trackers, fragments) so every abandon path is reachable;
 * every reassembled datagram is parsed from MK_START_IP and freed, and the
 * instance is destroyed at the end: LeakSanitizer must stay quiet.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defrag.h"
#include "parse.h"
#include "fuzz.h"

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Builds the fragment of one record into @buf (64 KiB + headers); returns its length. */
static uint32_t build(struct cursor *c, uint8_t ctl, uint32_t len, uint8_t *buf)
{
	uint32_t n, i, hl, plen;
	uint16_t off, id;
	uint8_t mf = !!(ctl & 4), proto = ctl & 8 ? 6 : 17;

	if ((ctl & 3) == 0) {
		n = (uint32_t)(c->end - c->p) < len ? (uint32_t)(c->end - c->p) : len;
		memcpy(buf, c->p, n);
		c->p += n;
		return n;
	}
	id = take8(c) & 3; /* few ids: datagrams collide and overlap */
	off = take16(c) & 0x1fff;
	plen = len;
	hl = (ctl & 3) == 1 ? 20 : 48;
	memset(buf, 0, hl);
	for (i = 0; i < plen; i++)
		buf[hl + i] = take8(c);
	if ((ctl & 3) == 1) {
		buf[0] = 0x45;
		wr16(buf + 2, ctl & 0x10 ? take16(c) : (uint16_t)(hl + plen));
		wr16(buf + 4, id);
		wr16(buf + 6, (uint16_t)(mf << 13 | off));
		buf[8] = 64;
		buf[9] = proto;
		buf[12] = 10, buf[15] = 1;
		buf[16] = 10, buf[19] = ctl & 0x20 ? 3 : 2;
	} else {
		buf[0] = 0x60;
		wr16(buf + 4, ctl & 0x10 ? take16(c) : (uint16_t)(8 + plen));
		buf[6] = 44; /* fragment header */
		buf[7] = 64;
		buf[8] = 0x20, buf[9] = 0x01, buf[23] = 1;
		buf[24] = 0x20, buf[25] = 0x01, buf[39] = ctl & 0x20 ? 3 : 2;
		buf[40] = proto;
		wr16(buf + 42, (uint16_t)(off << 3 | mf));
		buf[47] = (uint8_t)id;
	}
	return hl + plen;
}

static void check_datagram(const struct mk_defrag_datagram *dg)
{
	struct mk_parse_cfg cfg = { .seed = 1, .tunnel_depth = MK_TUNNEL_DEPTH_DEFAULT };
	struct mk_frame f;
	struct mk_parse p;
	uint8_t *copy;
	int ret;

	CHECK(dg->data && dg->len >= 20 && dg->len <= 65535 + 40);
	CHECK(dg->nfrags >= 1);
	/* exact-size copy: the parser must stay inside what defrag delivered */
	copy = malloc(dg->len);
	if (!copy)
		return;
	memcpy(copy, dg->data, dg->len);
	f.data = copy;
	f.data_end = copy + dg->len;
	ret = mk_parse_frame(&f, MK_START_IP, &cfg, &p);
	CHECK(ret == MK_PARSE_IP || ret == MK_PARSE_NON_IP || ret == MK_PARSE_ERROR);
	/*
	 * An IPv4 datagram is never a fragment again. An IPv6 one may be (a
	 * second fragment header inside the payload survives reassembly of the
	 * first), and so may a packet inside a tunnel the datagram carries;
	 * offline.c drops both (dgram_bad).
	 */
	if (ret == MK_PARSE_IP && p.l3.family == MK_FAMILY_IPV4 && !p.tunnel_depth)
		CHECK(!(p.flags & MK_META_F_FRAGMENT));
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536 + 64];
	static const struct mk_defrag_outer outers[2] = { { { 0, 0 }, 0 }, { { 100, 0 }, 7 } };
	struct cursor c = { data, data + size };
	struct mk_defrag_config cfg;
	struct mk_defrag_stats st;
	struct mk_defrag *d;
	uint64_t ts = 1000000000ull;
	uint8_t b0, b1;
	int ret;

	if (size < 2)
		return 0;
	b0 = take8(&c);
	b1 = take8(&c);
	mk_defrag_config_default(&cfg);
	cfg.policy = (enum mk_defrag_policy)(b0 % MK_DEFRAG_POLICY_MAX);
	cfg.timeout_ns = 1000000000ull * (1 + (b0 >> 6));
	cfg.memcap = 256u << (b1 & 7); /* 256 B .. 32 KiB */
	cfg.max_trackers = 1 + ((b1 >> 3) & 3);
	cfg.max_frags = 1 + ((b1 >> 5) & 7);
	cfg.max_datagram = b0 & 0x20 ? 1500 : 65535;
	cfg.seed = 0x5eed;
	CHECK(mk_defrag_create(&cfg, &d) == 0);

	while (c.p < c.end) {
		uint8_t ctl = take8(&c), dt = take8(&c);
		uint32_t len = take8(&c), n;
		struct mk_defrag_datagram dg;
		uint8_t *frag;

		if (ctl & 0x80)
			len <<= 4;		  /* large fragments, up to 4 KiB */
		ts += (uint64_t)dt * 10000000ull; /* 10 ms units */
		if ((ctl & 3) == 3) {
			mk_defrag_expire(d, ts);
			continue;
		}
		n = build(&c, ctl, len, buf);
		frag = malloc(n ? n : 1);
		if (!frag)
			break;
		memcpy(frag, buf, n);
		memset(&dg, 0, sizeof(dg));
		ret = mk_defrag_input(d, frag, n, ts, ctl & 0x40 ? &outers[1] : NULL, &dg);
		free(frag);
		CHECK(ret == MK_DEFRAG_HELD || ret == MK_DEFRAG_DONE || ret == -EINVAL ||
		      ret == -EEXIST || ret == -ENOTSUP || ret == -EMSGSIZE || ret == -E2BIG ||
		      ret == -ENOBUFS || ret == -ENOMEM);
		if (ret == MK_DEFRAG_DONE) {
			check_datagram(&dg);
			/* IPv4 total length or IPv6 payload length */
			CHECK(dg.len <= cfg.max_datagram + ((dg.data[0] >> 4) == 6 ? 40u : 0u));
			mk_defrag_datagram_free(&dg);
		}
		mk_defrag_get_stats(d, &st);
		CHECK(st.mem_used <= cfg.memcap);
		CHECK(st.trackers_used <= cfg.max_trackers);
	}
	mk_defrag_destroy(d);
	return 0;
}
