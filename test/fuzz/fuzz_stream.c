// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for TCP session tracking and reassembly
 * (userspace/tracking/stream.c). The input is a configuration byte, two ISNs, then
 * one record per segment of one session:
 *
 *	ctl, flags, seq_delta(2), ack_delta(2), window, len, payload...
 *
 * ctl bit 0 is the direction relative to the first packet; bit 1 adds a
 * window-scale option; bit 2 makes the TCP header itself raw input bytes
 * (header length and options as given) so mk_tcp_seg_parse meets anything;
 * bit 3 marks a bad checksum; bit 4 doubles the time step; bit 5 makes len
 * count 16-byte units, so payloads span several pooled segments. Sequence and ACK
 * numbers are signed deltas from what each side sent so far, so segments
 * land in-order, retransmitted, overlapping or ahead. Each segment goes
 * through mk_tcp_seg_parse on an exact-size heap copy and mk_stream_packet
 * with a small memcap, depth and out-of-order limit, record mode on.
 * MK_STREAM_REUSE is handled as offline.c does: end the flow, start a new
 * session and re-feed the packet. Released chunks must be in order per
 * direction and match what record mode kept.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "fuzz.h"

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, v);
}

static volatile uint8_t sink;

/* What the callbacks saw, per role direction, to check against record mode. */
struct seen {
	uint64_t next_off[2];
	uint64_t bytes[2];
	int depth_calls[2];
};

static void cb_data(void *user, struct mk_tcp_session *ssn, const struct mk_stream_chunk *ch)
{
	struct seen *s = user;
	uint32_t i;

	(void)ssn;
	CHECK(ch->dir <= 1);
	CHECK(ch->len > 0 && ch->data);
	/* released in stream order, never twice, holes accounted as gaps */
	CHECK(ch->offset == s->next_off[ch->dir] + ch->gap);
	for (i = 0; i < ch->len; i++)
		sink ^= ch->data[i]; /* ASan checks every byte released */
	s->next_off[ch->dir] = ch->offset + ch->len;
	s->bytes[ch->dir] += ch->len;
}

static void cb_depth(void *user, struct mk_tcp_session *ssn, int dir)
{
	struct seen *s = user;

	(void)ssn;
	CHECK(dir == 0 || dir == 1);
	CHECK(++s->depth_calls[dir] == 1);
}

static void check_record(const struct mk_tcp_session *ssn, const struct seen *s)
{
	int dir;

	for (dir = 0; dir < 2; dir++) {
		__u64 len = 0;
		const uint8_t *d = mk_tcp_session_data(ssn, dir, &len);

		CHECK(len == s->bytes[dir]);
		CHECK(!len || d);
		if (len)
			CHECK(d[0] == d[0] && d[len - 1] == d[len - 1]);
	}
	CHECK(mk_tcp_session_state(ssn) >= 0 && mk_tcp_session_state(ssn) < MK_TCP_STATE_MAX);
}

static void end_session(struct mk_stream_engine *eng, struct mk_tcp_session *ssn, struct seen *s)
{
	mk_stream_flow_end(eng, ssn);
	check_record(ssn, s);
	mk_tcp_session_free(eng, ssn);
	memset(s, 0, sizeof(*s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, data + size };
	struct mk_stream_engine *eng;
	struct mk_tcp_session ssn;
	struct mk_stream_cfg cfg;
	struct mk_stream_cbs cbs = { .data = cb_data, .depth = cb_depth };
	struct seen seen = { 0 };
	uint32_t sent[2]; /* next sequence number per packet direction */
	uint64_t ts = 1000000000ull;
	uint8_t b0, flip = 0;

	if (size < 9)
		return 0;
	b0 = take8(&c);
	sent[0] = take32(&c);
	sent[1] = take32(&c);
	mk_stream_cfg_default(&cfg);
	cfg.memcap = b0 & 1 ? 0 : (uint64_t)MK_STREAM_SEG_DATA << (1 + ((b0 >> 1) & 3));
	cfg.depth = b0 & 8 ? 0 : 64u << ((b0 >> 4) & 3);
	cfg.max_ooo_segs = b0 & 0x40 ? 4 : 0;
	cfg.prealloc_segs = 2;
	cfg.midstream = !!(b0 & 0x80);
	cfg.overlap_policy = b0 & 0x20 ? MK_OVERLAP_LAST : MK_OVERLAP_FIRST;
	cfg.record = 1;
	eng = mk_stream_engine_new(&cfg);
	CHECK(eng);
	mk_stream_set_callbacks(eng, &cbs, &seen);
	mk_tcp_session_init(&ssn);

	while (c.p < c.end) {
		uint8_t ctl = take8(&c), flags = take8(&c), hdr[60];
		int16_t sd = (int16_t)take16(&c), ad = (int16_t)take16(&c);
		uint32_t win = take8(&c), len = take8(&c), hlen = 20, n, dir = ctl & 1;
		struct mk_tcp_seg seg;
		uint8_t *pkt;
		int ret;

		if (ctl & 0x20)
			len <<= 4; /* past MK_STREAM_SEG_DATA */
		memset(hdr, 0, sizeof(hdr));
		if (ctl & 4) {
			/* raw header: offset and options straight from the input */
			for (n = 0; n < 20; n++)
				hdr[n] = take8(&c);
			hlen = (hdr[12] >> 4) * 4u;
			for (n = 20; n < hlen && n < sizeof(hdr); n++)
				hdr[n] = take8(&c);
			if (hlen < 20)
				hlen = 20; /* a bad offset: mk_tcp_seg_parse must refuse it */
		} else {
			wr16(hdr, 40000);
			wr16(hdr + 2, 80);
			wr32(hdr + 4, sent[dir] + (uint32_t)(int32_t)sd);
			wr32(hdr + 8, sent[!dir] + (uint32_t)(int32_t)ad);
			hdr[13] = flags;
			wr16(hdr + 14, win << 8 | 0xff);
			if (ctl & 2) {
				hdr[20] = 1, hdr[21] = 3, hdr[22] = 3,
				hdr[23] = (uint8_t)(win & 15);
				hlen = 24;
			}
			hdr[12] = (uint8_t)(hlen / 4 << 4);
		}
		n = (uint32_t)(c.end - c.p) < len ? (uint32_t)(c.end - c.p) : len;
		pkt = malloc(hlen + n);
		if (!pkt)
			break;
		memcpy(pkt, hdr, hlen);
		memcpy(pkt + hlen, c.p, n);
		c.p += n;
		ts += (uint64_t)(ctl & 0x10 ? 2 : 1) * 1000000ull;

		ret = mk_tcp_seg_parse(&seg, pkt, hlen + n);
		if (ret) {
			CHECK(ret == -EINVAL);
			free(pkt);
			continue;
		}
		CHECK(seg.len <= hlen + n);
		CHECK(!seg.len || (seg.payload >= pkt && seg.payload + seg.len == pkt + hlen + n));
		seg.dir = (uint8_t)(dir ^ flip);
		seg.csum_ok = !(ctl & 8);
		if (!(ctl & 4)) {
			uint32_t end = seg.seq + seg.len + !!(seg.flags & MK_TCP_SYN) +
				       !!(seg.flags & MK_TCP_FIN);

			if (SEQ_GT(end, sent[dir]))
				sent[dir] = end;
		}
		ret = mk_stream_packet(eng, &ssn, &seg, ts);
		CHECK(ret == 0 || ret == MK_STREAM_REUSE);
		if (ret == MK_STREAM_REUSE) {
			/* as offline.c: end the flow, this packet opens the next one */
			end_session(eng, &ssn, &seen);
			mk_tcp_session_init(&ssn);
			flip = (uint8_t)dir;
			seg.dir = 0;
			ret = mk_stream_packet(eng, &ssn, &seg, ts);
			CHECK(ret == 0 || ret == MK_STREAM_REUSE);
		}
		free(pkt);
		if (cfg.memcap)
			CHECK(mk_stream_mem_used(eng) <= cfg.memcap);
	}
	end_session(eng, &ssn, &seen);
	mk_stream_engine_free(eng);
	return 0;
}
