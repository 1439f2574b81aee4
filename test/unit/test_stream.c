// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of TCP session tracking and reassembly (userspace/tracking/stream.c).
 * Each test drives one session through mk_stream_packet() the way a worker
 * would and checks states, counters and the released bytes (record mode).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

#define CISN 1000U
#define SISN 5000U

static struct mk_stream_engine *eng;
static struct mk_tcp_session ssn;
static struct mk_tcp_session ssn2; /* a second session, for memory pressure between sessions */

struct collect {
	int chunks;
	int depth_calls[2];
	__u64 last_off[2];
	__u64 last_gap[2];
	__u64 gap_total[2];
	__u64 next_off[2]; /* offsets must be contiguous modulo reported gaps */
	int bad_off;
};
static struct collect col;

static void on_data(void *user, struct mk_tcp_session *s, const struct mk_stream_chunk *c)
{
	struct collect *co = user;

	co->chunks++;
	/* offsets are per session: tests with a second session check its bytes instead */
	if (s != &ssn)
		return;
	if (c->offset != co->next_off[c->dir] + c->gap)
		co->bad_off++;
	co->next_off[c->dir] = c->offset + c->len;
	co->last_off[c->dir] = c->offset;
	co->last_gap[c->dir] = c->gap;
	co->gap_total[c->dir] += c->gap;
}

static void on_depth(void *user, struct mk_tcp_session *s, int dir)
{
	struct collect *co = user;

	(void)s;
	co->depth_calls[dir & 1]++;
}

static void start(const struct mk_stream_cfg *cfg)
{
	struct mk_stream_cfg def;
	struct mk_stream_cbs cbs = { .data = on_data, .depth = on_depth };

	if (!cfg) {
		mk_stream_cfg_default(&def);
		def.record = 1;
		cfg = &def;
	}
	eng = mk_stream_engine_new(cfg);
	cr_assert_not_null(eng);
	mk_stream_set_callbacks(eng, &cbs, &col);
	memset(&col, 0, sizeof(col));
	mk_tcp_session_init(&ssn);
}

static void fini(void);

static void cfg_start(void (*tweak)(struct mk_stream_cfg *))
{
	struct mk_stream_cfg cfg;

	/* the suite's init already built a default engine: replace it */
	fini();
	mk_stream_cfg_default(&cfg);
	cfg.record = 1;
	tweak(&cfg);
	start(&cfg);
}

static void fini(void)
{
	if (!eng)
		return;
	mk_tcp_session_free(eng, &ssn);
	cr_expect_eq(mk_stream_mem_used(eng), 0, "segments leaked: %llu bytes",
		     (unsigned long long)mk_stream_mem_used(eng));
	cr_expect_eq(col.bad_off, 0, "chunk offsets not contiguous");
	mk_stream_engine_free(eng);
	eng = NULL;
}

static void init_default(void)
{
	start(NULL);
}

static __u64 stat(int id)
{
	return mk_stream_engine_stats(eng)->c[id];
}

static int pktl(int dir, __u8 flags, __u32 seq, __u32 ack, const void *data, __u32 len)
{
	struct mk_tcp_seg seg = {
		.payload = data,
		.len = len,
		.seq = seq,
		.ack = ack,
		.window = 65535,
		.flags = flags,
		.dir = (__u8)dir,
		.wscale = -1,
		.csum_ok = 1,
	};

	return mk_stream_packet(eng, &ssn, &seg, 1);
}

static int pkt(int dir, __u8 flags, __u32 seq, __u32 ack, const char *data)
{
	return pktl(dir, flags, seq, ack, data, data ? (__u32)strlen(data) : 0);
}

#define A MK_TCP_ACK
#define PA (MK_TCP_PSH | MK_TCP_ACK)
#define C2S 0
#define S2C 1

static void handshake(__u32 cisn, __u32 sisn)
{
	pkt(C2S, MK_TCP_SYN, cisn, 0, NULL);
	pkt(S2C, MK_TCP_SYN | A, sisn, cisn + 1, NULL);
	pkt(C2S, A, cisn + 1, sisn + 1, NULL);
	cr_assert_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
}

static void expect_data(int dir, const char *want)
{
	__u64 len;
	const __u8 *d = mk_tcp_session_data(&ssn, dir, &len);

	cr_assert_eq(len, strlen(want), "dir %d: %llu bytes released, want %zu", dir,
		     (unsigned long long)len, strlen(want));
	if (len)
		cr_assert(!memcmp(d, want, len), "dir %d: released '%.*s', want '%s'", dir,
			  (int)len, d, want);
}

TestSuite(unit, .init = init_default, .fini = fini);

Test(unit, stream_in_order)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "hello ");
	pkt(C2S, PA, CISN + 7, SISN + 1, "world");
	expect_data(C2S, "");
	pkt(S2C, A, SISN + 1, CISN + 12, NULL);
	expect_data(C2S, "hello world");
	/* contiguous small segments share one pool segment: one chunk */
	cr_expect_eq(col.chunks, 1);
	cr_expect_eq(col.next_off[C2S], 11);
	pkt(S2C, PA, SISN + 1, CISN + 12, "HTTP/1.1 200");
	pkt(C2S, A, CISN + 12, SISN + 13, NULL);
	expect_data(S2C, "HTTP/1.1 200");
	cr_expect_eq(stat(MK_STREAM_STAT_SESSIONS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_RELEASED_BYTES), 23);
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 0);
	cr_expect_eq(mk_tcp_session_flags(&ssn, C2S), MK_TCP_SYN | PA);
	cr_expect_eq(mk_tcp_session_flags(&ssn, S2C), MK_TCP_SYN | PA);
}

Test(unit, stream_out_of_order)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 9, SISN + 1, "ghi");
	pkt(C2S, PA, CISN + 4, SISN + 1, "def");
	pkt(C2S, PA, CISN + 7, SISN + 1, "--");
	pkt(C2S, PA, CISN + 1, SISN + 1, "abc");
	pkt(S2C, A, SISN + 1, CISN + 12, NULL);
	expect_data(C2S, "abcdef--ghi");
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 0);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP), 0);
}

Test(unit, stream_release_rule)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "0123456789");
	expect_data(C2S, "");
	/* a partial ACK releases only what it covers */
	pkt(S2C, A, SISN + 1, CISN + 5, NULL);
	expect_data(C2S, "0123");
	/* the sender's own ACKs release nothing of its data */
	pkt(C2S, A, CISN + 11, SISN + 1, NULL);
	expect_data(C2S, "0123");
	pkt(S2C, PA, SISN + 1, CISN + 5, "unacked");
	expect_data(S2C, "");
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "0123456789");
	expect_data(S2C, "unacked");
	cr_expect_eq(col.last_off[C2S], 4);
}

static void policy_last(struct mk_stream_cfg *c)
{
	c->overlap_policy = MK_OVERLAP_LAST;
}

Test(unit, stream_overlap_exact_same)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(S2C, A, SISN + 1, CISN + 7, NULL);
	expect_data(C2S, "abcdef");
	cr_expect_eq(stat(MK_STREAM_STAT_RETRANS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0);
}

Test(unit, stream_overlap_exact_diff_first)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(C2S, PA, CISN + 1, SISN + 1, "XXXXXX");
	pkt(S2C, A, SISN + 1, CISN + 7, NULL);
	expect_data(C2S, "abcdef");
	cr_expect_eq(stat(MK_STREAM_STAT_RETRANS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 1);
}

Test(unit, stream_overlap_exact_diff_last)
{
	cfg_start(policy_last);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(C2S, PA, CISN + 1, SISN + 1, "XXXXXX");
	pkt(S2C, A, SISN + 1, CISN + 7, NULL);
	expect_data(C2S, "XXXXXX");
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 1);
}

Test(unit, stream_overlap_partial_first)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(C2S, PA, CISN + 4, SISN + 1, "DEFghi");
	pkt(C2S, PA, CISN + 7, SISN + 1, "ghijkl"); /* same data: no anomaly */
	pkt(S2C, A, SISN + 1, CISN + 13, NULL);
	expect_data(C2S, "abcdefghijkl");
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 1);
}

Test(unit, stream_overlap_partial_last)
{
	cfg_start(policy_last);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(C2S, PA, CISN + 4, SISN + 1, "DEFghi");
	pkt(C2S, PA, CISN + 7, SISN + 1, "ghijkl");
	pkt(S2C, A, SISN + 1, CISN + 13, NULL);
	expect_data(C2S, "abcDEFghijkl");
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 1);
}

/* One segment covering two buffered ones and the hole between them. */
Test(unit, stream_overlap_spanning_first)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "ab");
	pkt(C2S, PA, CISN + 5, SISN + 1, "ef");
	pkt(C2S, PA, CISN + 1, SISN + 1, "ABCDEFG");
	pkt(S2C, A, SISN + 1, CISN + 8, NULL);
	expect_data(C2S, "abCDefG");
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 1);
}

Test(unit, stream_overlap_spanning_last)
{
	cfg_start(policy_last);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "ab");
	pkt(C2S, PA, CISN + 5, SISN + 1, "ef");
	pkt(C2S, PA, CISN + 1, SISN + 1, "ABCDEFG");
	pkt(S2C, A, SISN + 1, CISN + 8, NULL);
	expect_data(C2S, "ABCDEFG");
}

Test(unit, stream_retransmission_after_release)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abc");
	pkt(S2C, A, SISN + 1, CISN + 4, NULL);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abc");
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef"); /* old part trimmed, new part kept */
	pkt(S2C, A, SISN + 1, CISN + 7, NULL);
	expect_data(C2S, "abcdef");
	cr_expect_eq(stat(MK_STREAM_STAT_RETRANS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP), 1);
}

Test(unit, stream_seq_wraparound)
{
	__u32 cisn = 0xfffffff0U, sisn = 0xffffffffU;

	handshake(cisn, sisn);
	/* 0xfffffff1 .. 0x0000000a, with the middle segment late */
	pkt(C2S, PA, cisn + 1, sisn + 1, "0123456789");
	pkt(C2S, PA, cisn + 21, sisn + 1, "klmnopqrst");
	pkt(C2S, PA, cisn + 11, sisn + 1, "abcdefghij");
	pkt(S2C, A, sisn + 1, cisn + 31, NULL);
	expect_data(C2S, "0123456789abcdefghijklmnopqrst");
	cr_expect_eq(col.next_off[C2S], 30);
	pkt(S2C, PA, sisn + 1, cisn + 31, "wrapped");
	pkt(C2S, A, cisn + 31, sisn + 8, NULL);
	expect_data(S2C, "wrapped");
	cr_expect(SEQ_LT(0xfffffff0U, 5U));
	cr_expect(SEQ_GT(5U, 0xfffffff0U));
}

Test(unit, stream_gap_acked_past)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "aaa");
	/* "bbb" at CISN + 4 lost by the capture */
	pkt(C2S, PA, CISN + 7, SISN + 1, "ccc");
	pkt(S2C, A, SISN + 1, CISN + 4, NULL);
	expect_data(C2S, "aaa");
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 0);
	pkt(S2C, A, SISN + 1, CISN + 10, NULL);
	expect_data(C2S, "aaaccc");
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_GAP_BYTES), 3);
	cr_expect_eq(col.last_gap[C2S], 3);
	cr_expect_eq(col.last_off[C2S], 6);
	/* data after the skipped hole keeps flowing in order */
	pkt(C2S, PA, CISN + 10, SISN + 1, "ddd");
	pkt(S2C, A, SISN + 1, CISN + 13, NULL);
	expect_data(C2S, "aaacccddd");
	cr_expect_eq(col.last_off[C2S], 9);
}

Test(unit, stream_gap_at_flow_end)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "aaa");
	pkt(C2S, PA, CISN + 11, SISN + 1, "ccc");
	pkt(S2C, A, SISN + 1, CISN + 4, NULL);
	expect_data(C2S, "aaa");
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "aaaccc");
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_GAP_BYTES), 7);
	cr_expect_eq(col.last_off[C2S], 10);
}

static void depth_10(struct mk_stream_cfg *c)
{
	c->depth = 10;
}

Test(unit, stream_depth_both_directions)
{
	cfg_start(depth_10);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "01234567");
	cr_expect_not(mk_tcp_session_depth_reached(&ssn, C2S));
	pkt(C2S, PA, CISN + 9, SISN + 1, "89abcdef");
	cr_expect(mk_tcp_session_depth_reached(&ssn, C2S));
	cr_expect_not(mk_tcp_session_depth_reached(&ssn, S2C));
	pkt(C2S, PA, CISN + 17, SISN + 1, "ghij");
	pkt(S2C, PA, SISN + 1, CISN + 21, "server-says-hello");
	cr_expect(mk_tcp_session_depth_reached(&ssn, S2C));
	pkt(C2S, A, CISN + 21, SISN + 18, NULL);
	expect_data(C2S, "0123456789");
	expect_data(S2C, "server-say");
	cr_expect_eq(col.depth_calls[C2S], 1);
	cr_expect_eq(col.depth_calls[S2C], 1);
	cr_expect_eq(stat(MK_STREAM_STAT_DEPTH_REACHED), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_DEPTH_SEGS), 3);
}

/* stream.bypass: both directions' contiguous data at the depth */
Test(unit, stream_bypass_ready_both_ways)
{
	cfg_start(depth_10);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "0123456789ab");
	cr_expect_not(mk_tcp_session_bypass_ready(&ssn), "one direction at the depth");
	pkt(S2C, PA, SISN + 1, CISN + 13, "server");
	cr_expect_not(mk_tcp_session_bypass_ready(&ssn), "the server still below it");
	pkt(S2C, PA, SISN + 7, CISN + 13, "-says-hi");
	cr_expect(mk_tcp_session_bypass_ready(&ssn), "both at the depth");
}

/* a download: the client sends nothing after the server's data reached the depth */
Test(unit, stream_bypass_ready_download)
{
	cfg_start(depth_10);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "GET /");
	pkt(S2C, PA, SISN + 1, CISN + 6, "0123456789");
	cr_expect_not(mk_tcp_session_bypass_ready(&ssn), "at the depth, nothing beyond yet");
	pkt(C2S, A, CISN + 6, SISN + 11, NULL);
	pkt(S2C, PA, SISN + 11, CISN + 6, "more");
	cr_expect(mk_tcp_session_bypass_ready(&ssn), "data beyond the depth, client silent");
}

/* an upload whose other side answers with data is not done until that side is */
Test(unit, stream_bypass_not_ready_when_peer_talks)
{
	cfg_start(depth_10);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "0123456789");
	pkt(S2C, PA, SISN + 1, CISN + 11, "ok");
	pkt(C2S, PA, CISN + 11, SISN + 3, "beyond");
	cr_expect_not(mk_tcp_session_bypass_ready(&ssn), "the server sent payload since");
}

/* a segment claiming an offset past the depth out of order does not skip ahead into bypass */
Test(unit, stream_bypass_not_by_skipping_ahead)
{
	cfg_start(depth_10);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "ab");
	pkt(S2C, PA, SISN + 100, CISN + 3, "far-ahead");
	pkt(S2C, PA, SISN + 200, CISN + 3, "further");
	pkt(C2S, PA, CISN + 100, SISN + 1, "x");
	pkt(C2S, PA, CISN + 200, SISN + 1, "y");
	cr_expect_not(mk_tcp_session_bypass_ready(&ssn), "holes before the depth");
}

Test(unit, stream_rst_with_data)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "req");
	pkt(C2S, MK_TCP_RST | A, CISN + 4, SISN + 1, "bye");
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
	expect_data(C2S, "reqbye");
	cr_expect_eq(stat(MK_STREAM_STAT_RST), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_RST_DATA), 1);
	cr_expect(mk_tcp_session_flags(&ssn, C2S) & MK_TCP_RST);
	/* the side that received the RST is closed for us too */
	pkt(S2C, PA, SISN + 1, CISN + 7, "late");
	cr_expect_eq(stat(MK_STREAM_STAT_AFTER_CLOSE), 1);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "reqbye");
	expect_data(S2C, "");
}

Test(unit, stream_rst_out_of_window)
{
	handshake(CISN, SISN);
	pkt(C2S, MK_TCP_RST, CISN + 1 + 10000000, 0, NULL);
	pkt(S2C, MK_TCP_RST, SISN - 100, 0, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_RST), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_RST), 0);
	/* RFC 5961: in the window but not at the expected number is refused too */
	pkt(S2C, MK_TCP_RST, SISN + 1 + 100, 0, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_RST), 3);
	pkt(S2C, MK_TCP_RST, SISN + 1, 0, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
}

Test(unit, stream_rst_answering_syn)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(S2C, MK_TCP_RST | A, 0, CISN + 7, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_RST), 1);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_SENT);
	pkt(S2C, MK_TCP_RST | A, 0, CISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
}

Test(unit, stream_midstream_on)
{
	/* first packet seen is the server's data: it becomes the "client" (noted) */
	pkt(C2S, PA, 7000, 3000, "midstream");
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	cr_expect_eq(ssn.midstream, 1);
	cr_expect_eq(stat(MK_STREAM_STAT_MIDSTREAM), 1);
	pkt(S2C, PA, 3000, 7009, "reply");
	expect_data(C2S, "midstream");
	cr_expect_eq(col.last_off[C2S], 0);
	mk_stream_flow_end(eng, &ssn);
	expect_data(S2C, "reply");
}

Test(unit, stream_midstream_synack)
{
	/* the flow's first packet is a SYN/ACK: roles are swapped */
	pkt(C2S, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	cr_expect_eq(mk_tcp_session_swapped(&ssn), 1);
	pkt(S2C, PA, CISN + 1, SISN + 1, "GET /");
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(C2S, A, SISN + 1, CISN + 6, NULL);
	expect_data(MK_STREAM_TO_SERVER, "GET /");
}

static void no_midstream(struct mk_stream_cfg *c)
{
	c->midstream = 0;
}

Test(unit, stream_midstream_off)
{
	cfg_start(no_midstream);
	pkt(C2S, PA, 7000, 3000, "midstream");
	pkt(S2C, PA, 3000, 7009, "reply");
	pkt(C2S, MK_TCP_SYN | A, 1, 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_NONE);
	cr_expect_eq(stat(MK_STREAM_STAT_NO_SESSION), 3);
	cr_expect_eq(stat(MK_STREAM_STAT_SESSIONS), 0);
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "");
	/* a real handshake still works */
	handshake(CISN, SISN);
}

Test(unit, stream_simultaneous_open)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(S2C, MK_TCP_SYN, SISN, 0, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	pkt(C2S, MK_TCP_SYN | A, CISN, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	cr_expect_eq(stat(MK_STREAM_STAT_SIM_OPEN), 1);
	pkt(C2S, PA, CISN + 1, SISN + 1, "x");
	pkt(S2C, A, SISN + 1, CISN + 2, NULL);
	expect_data(C2S, "x");
}

Test(unit, stream_syn_retransmission)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(S2C, MK_TCP_SYN | A, SISN + 9, CISN + 99, NULL); /* bad ACK */
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_SENT);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL); /* late copy */
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_RETRANS), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_SYNACK_RETRANS), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_SYNACK_BAD_ACK), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_SESSIONS), 1);
}

Test(unit, stream_syn_retransmission_new_isn)
{
	/* the client restarted its connect: the SYN/ACK answers the newer SYN */
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(C2S, MK_TCP_SYN, CISN + 500, 0, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_NEW_ISN), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_RETRANS), 0);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 501, NULL);
	pkt(C2S, A, CISN + 501, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	cr_expect_eq(stat(MK_STREAM_STAT_SYNACK_BAD_ACK), 0);
}

/* Half-closed states are named from the server's side, as Suricata names them. */
Test(unit, stream_fin_client_first)
{
	handshake(CISN, SISN);
	pkt(C2S, MK_TCP_FIN | A, CISN + 1, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSE_WAIT);
	cr_expect_str_eq(mk_tcp_state_name(mk_tcp_session_state(&ssn)), "close_wait");
	pkt(S2C, A, SISN + 1, CISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSE_WAIT);
	pkt(S2C, PA, SISN + 1, CISN + 2, "tail");
	pkt(S2C, MK_TCP_FIN | A, SISN + 5, CISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_LAST_ACK);
	pkt(C2S, A, CISN + 2, SISN + 6, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
	expect_data(S2C, "tail");
	cr_expect_eq(stat(MK_STREAM_STAT_FIN), 2);
	cr_expect_str_eq(mk_tcp_state_name(mk_tcp_session_state(&ssn)), "closed");
}

Test(unit, stream_fin_server_first)
{
	handshake(CISN, SISN);
	pkt(S2C, MK_TCP_FIN | A, SISN + 1, CISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_FIN_WAIT1);
	pkt(C2S, A, CISN + 1, SISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_FIN_WAIT2);
	pkt(C2S, MK_TCP_FIN | A, CISN + 1, SISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_TIME_WAIT);
	pkt(S2C, A, SISN + 2, CISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
}

Test(unit, stream_fin_simultaneous_close)
{
	handshake(CISN, SISN);
	/* the server's FIN first, then the client's that does not ACK it: both closing */
	pkt(S2C, MK_TCP_FIN | A, SISN + 1, CISN + 1, NULL);
	pkt(C2S, MK_TCP_FIN | A, CISN + 1, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSING);
	pkt(S2C, A, SISN + 2, CISN + 2, NULL);
	pkt(C2S, A, CISN + 2, SISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
}

Test(unit, stream_fin_simultaneous_close_client_first)
{
	handshake(CISN, SISN);
	pkt(C2S, MK_TCP_FIN | A, CISN + 1, SISN + 1, NULL);
	pkt(S2C, MK_TCP_FIN | A, SISN + 1, CISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_LAST_ACK);
	pkt(S2C, A, SISN + 2, CISN + 2, NULL);
	pkt(C2S, A, CISN + 2, SISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
}

Test(unit, stream_data_after_fin)
{
	handshake(CISN, SISN);
	pkt(C2S, MK_TCP_FIN | PA, CISN + 1, SISN + 1, "last");
	pkt(C2S, PA, CISN + 5, SISN + 1, "more");
	pkt(S2C, A, SISN + 1, CISN + 6, NULL);
	expect_data(C2S, "last");
	cr_expect_eq(stat(MK_STREAM_STAT_DATA_AFTER_FIN), 1);
}

Test(unit, stream_port_reuse)
{
	handshake(CISN, SISN);
	pkt(C2S, MK_TCP_RST, CISN + 1, 0, NULL);
	cr_expect_eq(pkt(C2S, MK_TCP_SYN, CISN + 100000, 0, NULL), MK_STREAM_REUSE);
	cr_expect_eq(stat(MK_STREAM_STAT_REUSE), 1);
	mk_stream_flow_end(eng, &ssn);
	mk_tcp_session_reset(eng, &ssn);
	handshake(CISN + 100000, SISN);
}

Test(unit, stream_bad_checksum)
{
	struct mk_tcp_seg seg = {
		.payload = (const __u8 *)"evil",
		.len = 4,
		.seq = CISN + 1,
		.ack = SISN + 1,
		.window = 1000,
		.flags = PA,
		.dir = C2S,
		.wscale = -1,
		.csum_ok = 0,
	};

	handshake(CISN, SISN);
	cr_expect_eq(mk_stream_packet(eng, &ssn, &seg, 1), 0);
	pkt(C2S, PA, CISN + 1, SISN + 1, "good");
	pkt(S2C, A, SISN + 1, CISN + 5, NULL);
	expect_data(C2S, "good");
	cr_expect_eq(stat(MK_STREAM_STAT_BAD_CSUM), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0);
	cr_expect_eq(mk_stream_packet(eng, &ssn, NULL, 1), -EINVAL);
}

Test(unit, stream_out_of_window)
{
	handshake(CISN, SISN);
	/* the server advertised 65535 unscaled: 1 MB ahead is outside */
	pkt(C2S, PA, CISN + 1 + (1 << 20), SISN + 1, "far");
	pkt(C2S, PA, CISN + 1, SISN + 1, "near");
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "near");
	cr_expect_eq(stat(MK_STREAM_STAT_OUT_OF_WINDOW), 1);
}

Test(unit, stream_large_segment_spans_pool_segments)
{
	static __u8 big[3 * MK_STREAM_SEG_DATA + 17];
	__u64 len;
	const __u8 *d;
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (__u8)(i * 7);
	handshake(CISN, SISN);
	/* second half first so the spans overlap across segment boundaries */
	pktl(C2S, PA, CISN + 1 + 5000, SISN + 1, big + 5000, sizeof(big) - 5000);
	pktl(C2S, PA, CISN + 1, SISN + 1, big, sizeof(big));
	pkt(S2C, A, SISN + 1, CISN + 1 + sizeof(big), NULL);
	d = mk_tcp_session_data(&ssn, C2S, &len);
	cr_assert_eq(len, sizeof(big));
	cr_expect(!memcmp(d, big, len));
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0);
}

static void small_memcap(struct mk_stream_cfg *c)
{
	c->memcap = 4 * (MK_STREAM_SEG_DATA + 64);
	c->prealloc_segs = 0;
}

Test(unit, stream_memcap_pressure)
{
	char buf[64];
	int i;

	cfg_start(small_memcap);
	handshake(CISN, SISN);
	/* 20 out-of-order segments with holes: nothing can be released */
	for (i = 0; i < 20; i++) {
		snprintf(buf, sizeof(buf), "seg%02d", i);
		pkt(C2S, PA, CISN + 1 + 100 + i * 10, SISN + 1, buf);
	}
	cr_expect_eq(stat(MK_STREAM_STAT_MEMCAP), 16);
	cr_expect_eq(stat(MK_STREAM_STAT_MEMCAP_BYTES), 16 * 5);
	cr_expect_leq(mk_stream_mem_used(eng), 4 * (MK_STREAM_SEG_DATA + 64));
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "seg00seg01seg02seg03");
	cr_expect_eq(mk_stream_mem_used(eng), 0);
	/* memory comes back: the session keeps working */
	pkt(C2S, PA, CISN + 1 + 300, SISN + 1, "after");
	pkt(S2C, A, SISN + 1, CISN + 306, NULL);
	expect_data(C2S, "seg00seg01seg02seg03after");
}

static void ooo_limit(struct mk_stream_cfg *c)
{
	c->max_ooo_segs = 3;
}

Test(unit, stream_ooo_limit)
{
	int i;

	cfg_start(ooo_limit);
	handshake(CISN, SISN);
	for (i = 0; i < 5; i++)
		pkt(C2S, PA, CISN + 11 + i * 2, SISN + 1, "x");
	cr_expect_eq(stat(MK_STREAM_STAT_OOO_LIMIT), 2);
	/* filling the hole makes them in-order and frees the budget */
	pkt(C2S, PA, CISN + 1, SISN + 1, "0123456789abcdef");
	for (i = 0; i < 3; i++)
		pkt(C2S, PA, CISN + 31 + i * 2, SISN + 1, "z");
	cr_expect_eq(stat(MK_STREAM_STAT_OOO_LIMIT), 2);
	mk_stream_flow_end(eng, &ssn);
	expect_data(C2S, "0123456789xbxdxfzzz");
}

Test(unit, stream_wscale)
{
	struct mk_tcp_seg seg = { .seq = CISN,
				  .window = 1000,
				  .flags = MK_TCP_SYN,
				  .dir = C2S,
				  .wscale = 7,
				  .csum_ok = 1 };

	mk_stream_packet(eng, &ssn, &seg, 1);
	seg = (struct mk_tcp_seg){ .seq = SISN,
				   .ack = CISN + 1,
				   .window = 1000,
				   .flags = MK_TCP_SYN | A,
				   .dir = S2C,
				   .wscale = 7,
				   .csum_ok = 1 };
	mk_stream_packet(eng, &ssn, &seg, 1);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	/* server window 65535 << 7 = ~8 MB: 1 MB ahead is in the window */
	pkt(S2C, A, SISN + 1, CISN + 1, NULL);
	pkt(C2S, PA, CISN + 1 + (1 << 20), SISN + 1, "far");
	cr_expect_eq(stat(MK_STREAM_STAT_OUT_OF_WINDOW), 0);
}

static void stat_cb(const char *name, __u64 value, void *arg)
{
	int *n = arg;

	(void)value;
	cr_expect_not_null(name);
	(*n)++;
}

Test(unit, stream_counter_names)
{
	int i, j, n = 0;

	mk_stream_stats_foreach(eng, stat_cb, &n);
	cr_expect_eq(n, MK_STREAM_STAT_MAX);
	for (i = 0; i < MK_STREAM_STAT_MAX; i++) {
		cr_assert_not_null(mk_stream_stat_name(i));
		cr_assert_not_null(mk_stream_stat_desc(i));
		for (j = 0; j < i; j++)
			cr_expect_str_neq(mk_stream_stat_name(i), mk_stream_stat_name(j));
	}
	cr_expect_null(mk_stream_stat_name(MK_STREAM_STAT_MAX));
	struct mk_stream_stats sum = { 0 };
	pkt(C2S, MK_TCP_RST, 1, 1, NULL);
	mk_stream_stats_add(&sum, mk_stream_engine_stats(eng));
	mk_stream_stats_add(&sum, mk_stream_engine_stats(eng));
	cr_expect_eq(sum.c[MK_STREAM_STAT_NO_SESSION], 2);
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);
	mk_stream_stats_print(eng, f);
	fclose(f);
	cr_expect_not_null(strstr(text, "stream.no_session 1\n"));
	free(text);
	for (i = 0; i < MK_TCP_STATE_MAX; i++)
		cr_expect_str_neq(mk_tcp_state_name(i), "unknown");
	cr_expect_str_eq(mk_tcp_state_name(MK_TCP_ESTABLISHED), "established");
	cr_expect_str_eq(mk_tcp_state_name(99), "unknown");
	char hex[3];
	mk_tcp_flags_hex(0x1b, hex);
	cr_expect_str_eq(hex, "1b");
}

static __u32 rnd_state = 12345;

static __u32 rnd(void)
{
	/* xorshift32: reproducible without libc's global rand state */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* MK_STREAM_SEED=n reruns the random tests with another seed. */
static void seed_from_env(void)
{
	const char *e = getenv("MK_STREAM_SEED");

	rnd_state = e ? (__u32)strtoul(e, NULL, 0) : 12345;
	if (!rnd_state)
		rnd_state = 1;
}

static void robust_cfg(struct mk_stream_cfg *c)
{
	c->memcap = 8 * (MK_STREAM_SEG_DATA + 64);
	c->max_ooo_segs = 4;
	c->prealloc_segs = 8;
	c->depth = 0;
}

/* Random segments near and far from the real sequence space, many sessions. */
Test(unit, stream_random_robustness, .timeout = 100)
{
	static __u8 payload[9000];
	int sess, i;

	cfg_start(robust_cfg);
	seed_from_env();
	for (i = 0; i < (int)sizeof(payload); i++)
		payload[i] = (__u8)rnd();
	for (sess = 0; sess < 400; sess++) {
		__u32 base[2] = { rnd(), rnd() };
		int npk = 1 + rnd() % 300;

		if (sess % 3 == 0)
			handshake(base[0], base[1]);
		for (i = 0; i < npk; i++) {
			int dir = rnd() & 1;
			__u32 r = rnd();
			__u32 seq, ack, len;
			__u8 flags;

			if (r % 16 == 0 && i > 2)
				seq = rnd();
			else
				seq = base[dir] + 1 + rnd() % 20000 - (r % 8 == 1 ? 5000 : 0);
			ack = (r % 64 == 0) ? rnd() :
					      base[!dir] + 1 + rnd() % (r % 3 ? 2000 : 30000);
			flags = (rnd() % 32 == 0) ?
					(__u8)rnd() :
					(__u8)(PA | ((rnd() % 300 == 0) ? MK_TCP_FIN : 0));
			len = rnd() % 3 ? rnd() % 1500 : rnd() % sizeof(payload);
			if (pktl(dir, flags, seq, ack,
				 payload + rnd() % (sizeof(payload) - len + 1),
				 len) == MK_STREAM_REUSE) {
				mk_stream_flow_end(eng, &ssn);
				mk_tcp_session_reset(eng, &ssn);
				cr_assert_eq(col.bad_off, 0);
				memset(&col, 0, sizeof(col));
			}
			cr_assert_leq(mk_stream_mem_used(eng), 8 * (MK_STREAM_SEG_DATA + 64));
		}
		if (rnd() % 2)
			mk_stream_flow_end(eng, &ssn);
		mk_tcp_session_reset(eng, &ssn);
		cr_assert_eq(mk_stream_mem_used(eng), 0);
		cr_assert_eq(col.bad_off, 0);
		memset(&col, 0, sizeof(col));
	}
	if (getenv("MK_STREAM_VERBOSE"))
		mk_stream_stats_print(eng, stderr);
	/* the mix must reach the paths it is meant to stress */
	cr_expect_gt(stat(MK_STREAM_STAT_RELEASED_BYTES), 0);
	cr_expect_gt(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0);
	cr_expect_gt(stat(MK_STREAM_STAT_GAPS), 0);
	cr_expect_gt(stat(MK_STREAM_STAT_MEMCAP), 0);
	cr_expect_gt(stat(MK_STREAM_STAT_OOO_LIMIT), 0);
	cr_expect_gt(stat(MK_STREAM_STAT_OUT_OF_WINDOW), 0);
}

/* Data beyond the depth arriving first, then the bytes before it. */
Test(unit, stream_depth_out_of_order)
{
	cfg_start(depth_10);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 13, SISN + 1, "beyond");
	cr_expect(mk_tcp_session_depth_reached(&ssn, C2S));
	pkt(C2S, PA, CISN + 6, SISN + 1, "56789abc");
	pkt(C2S, PA, CISN + 1, SISN + 1, "01234");
	pkt(S2C, A, SISN + 1, CISN + 19, NULL);
	expect_data(C2S, "0123456789");
	cr_expect_eq(col.depth_calls[C2S], 1);
	cr_expect_eq(stat(MK_STREAM_STAT_DEPTH_SEGS), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 0);
}

static void depth_unlimited_ooo(struct mk_stream_cfg *c)
{
	c->depth = 0;
	c->max_ooo_segs = 0;
}

Test(unit, stream_unlimited_depth_and_ooo)
{
	int i;

	cfg_start(depth_unlimited_ooo);
	handshake(CISN, SISN);
	for (i = 2000; i > 0; i--)
		pkt(C2S, PA, CISN + 1 + i, SISN + 1, "x");
	pkt(C2S, PA, CISN + 1, SISN + 1, "x");
	pkt(S2C, A, SISN + 1, CISN + 2002, NULL);
	cr_expect_eq(col.next_off[C2S], 2001);
	cr_expect_eq(stat(MK_STREAM_STAT_OOO_LIMIT), 0);
	cr_expect_eq(stat(MK_STREAM_STAT_DEPTH_REACHED), 0);
}

Test(unit, stream_cfg_parse)
{
	struct mk_stream_cfg cfg;

	cr_expect_eq(mk_stream_overlap_policy_parse("first"), MK_OVERLAP_FIRST);
	cr_expect_eq(mk_stream_overlap_policy_parse("last"), MK_OVERLAP_LAST);
	cr_expect_eq(mk_stream_overlap_policy_parse("bsd"), -EINVAL);
	cr_expect_eq(mk_stream_overlap_policy_parse(NULL), -EINVAL);
	mk_stream_cfg_default(&cfg);
	cr_expect_eq(cfg.depth, 1 << 20);
	cr_expect_eq(cfg.midstream, 1);
	cfg.overlap_policy = 7;
	cr_expect_null(mk_stream_engine_new(&cfg));
	cr_expect_eq(errno, EINVAL);
}

Test(unit, stream_syn_with_data)
{
	/* TCP Fast Open: data on the SYN, accepted by the SYN/ACK */
	pkt(C2S, MK_TCP_SYN, CISN, 0, "GET");
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 4, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	expect_data(C2S, "GET");
	pkt(C2S, PA, CISN + 4, SISN + 1, " /");
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(S2C, A, SISN + 1, CISN + 6, NULL);
	expect_data(C2S, "GET /");
	cr_expect_eq(col.last_off[C2S], 3);
}

Test(unit, stream_syn_new_isn_drops_old_data)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, "old");
	pkt(C2S, MK_TCP_SYN, CISN + 500, 0, "new");
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 504, NULL);
	expect_data(C2S, "new");
}

static void model_cfg_last(struct mk_stream_cfg *c)
{
	c->overlap_policy = MK_OVERLAP_LAST;
	c->depth = 0;
}

static void model_cfg_first(struct mk_stream_cfg *c)
{
	c->depth = 0;
}

struct piece {
	__u32 off, len;
};

/*
 * A random byte stream cut into random pieces, shuffled, some sent twice or
 * overlapping (same bytes), ACKs interleaved, ISNs near 2^32: what is
 * released must be the original stream, byte for byte, without gaps.
 */
static __u32 contiguous_sent(const struct piece *pieces, int n, int pos, __u32 size)
{
	__u32 lo = size;
	int i;

	for (i = pos; i < n; i++)
		if (pieces[i].off < lo)
			lo = pieces[i].off;
	return lo;
}

static void handshake_wscale(__u32 cisn, __u32 sisn, int ws)
{
	struct mk_tcp_seg seg = { .seq = cisn,
				  .window = 65535,
				  .flags = MK_TCP_SYN,
				  .dir = C2S,
				  .wscale = (__s8)ws,
				  .csum_ok = 1 };

	mk_stream_packet(eng, &ssn, &seg, 1);
	seg.seq = sisn;
	seg.ack = cisn + 1;
	seg.flags = MK_TCP_SYN | A;
	seg.dir = S2C;
	mk_stream_packet(eng, &ssn, &seg, 1);
	pkt(C2S, A, cisn + 1, sisn + 1, NULL);
	cr_assert_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
}

static void model_run(void)
{
	static __u8 data[2][200000];
	static struct piece pieces[2][4000];
	int npieces[2], round, d, i;
	__u64 acked_before_end = 0, released_at_start;

	for (round = 0; round < 20; round++) {
		__u32 isn[2] = { 0xffffffffU - rnd() % 100000, rnd() };
		__u32 size[2] = { 1 + rnd() % sizeof(data[0]), rnd() % 20000 };
		int pos[2] = { 0, 0 };

		for (d = 0; d < 2; d++) {
			__u32 off = 0;

			for (i = 0; i < (int)size[d]; i++)
				data[d][i] = (__u8)rnd();
			npieces[d] = 0;
			while (off < size[d] && npieces[d] < 3900) {
				__u32 len = 1 + rnd() % 3000;

				if (len > size[d] - off)
					len = size[d] - off;
				pieces[d][npieces[d]++] = (struct piece){ off, len };
				/* an overlapping copy now and then */
				if (rnd() % 8 == 0)
					pieces[d][npieces[d]++] =
						(struct piece){ off > 100 ? off - 100 : 0,
								len + (off > 100 ? 100 : off) };
				off += len;
			}
			size[d] = off;
			/* local shuffle: out of order within a window of 8 pieces */
			for (i = 0; i < npieces[d]; i++) {
				int j = i + rnd() % 8;
				struct piece t;

				if (j >= npieces[d])
					j = npieces[d] - 1;
				t = pieces[d][i];
				pieces[d][i] = pieces[d][j];
				pieces[d][j] = t;
			}
		}
		mk_tcp_session_reset(eng, &ssn);
		memset(&col, 0, sizeof(col));
		released_at_start = stat(MK_STREAM_STAT_RELEASED_BYTES);
		handshake_wscale(isn[0], isn[1], 4);
		while (pos[0] < npieces[0] || pos[1] < npieces[1]) {
			d = rnd() & 1;
			if (pos[d] >= npieces[d])
				d = !d;
			struct piece *p = &pieces[d][pos[d]++];
			pktl(d, PA, isn[d] + 1 + p->off, isn[!d] + 1, data[d] + p->off, p->len);
			/* the receiver ACKs what it has in order, now and then */
			if (rnd() % 4 == 0)
				pkt(!d, A, isn[!d] + 1,
				    isn[d] + 1 +
					    contiguous_sent(pieces[d], npieces[d], pos[d], size[d]),
				    NULL);
		}
		acked_before_end += stat(MK_STREAM_STAT_RELEASED_BYTES) - released_at_start;
		mk_stream_flow_end(eng, &ssn);
		for (d = 0; d < 2; d++) {
			__u64 len;
			const __u8 *got = mk_tcp_session_data(&ssn, d, &len);

			cr_assert_eq(len, size[d], "round %d dir %d: %llu bytes, want %u", round, d,
				     (unsigned long long)len, size[d]);
			cr_assert(!len || !memcmp(got, data[d], len), "round %d dir %d differs",
				  round, d);
		}
		cr_assert_eq(col.bad_off, 0);
	}
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 0);
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0);
	cr_expect_gt(stat(MK_STREAM_STAT_OVERLAP) + stat(MK_STREAM_STAT_RETRANS), 0);
	cr_expect_eq(stat(MK_STREAM_STAT_OUT_OF_WINDOW), 0);
	/* most data goes out on ACKs, not at flow end */
	cr_expect_gt(acked_before_end, stat(MK_STREAM_STAT_RELEASED_BYTES) / 2,
		     "only %llu of %llu bytes released by ACKs",
		     (unsigned long long)acked_before_end,
		     (unsigned long long)stat(MK_STREAM_STAT_RELEASED_BYTES));
}

Test(unit, stream_model_first, .timeout = 100)
{
	cfg_start(model_cfg_first);
	seed_from_env();
	model_run();
}

Test(unit, stream_model_last, .timeout = 100)
{
	cfg_start(model_cfg_last);
	seed_from_env();
	model_run();
}

/* A spoofed FIN behind the stream or far ahead must not cut the stream short. */
Test(unit, stream_stray_fin)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abc");
	pkt(S2C, A, SISN + 1, CISN + 4, NULL);
	pkt(C2S, MK_TCP_FIN | A, CISN + 2, SISN + 1, NULL);
	pkt(C2S, MK_TCP_FIN | A, CISN + 1 + (1 << 20), SISN + 1, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_FIN), 2);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(C2S, PA, CISN + 4, SISN + 1, "def");
	pkt(S2C, A, SISN + 1, CISN + 7, NULL);
	expect_data(C2S, "abcdef");
	cr_expect_eq(stat(MK_STREAM_STAT_DATA_AFTER_FIN), 0);
}

Test(unit, stream_port_reuse_reversed)
{
	handshake(CISN, SISN);
	pkt(C2S, MK_TCP_FIN | A, CISN + 1, SISN + 1, NULL);
	pkt(S2C, MK_TCP_FIN | A, SISN + 1, CISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_LAST_ACK);
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL); /* old SYN copy: not a new session */
	cr_expect_eq(stat(MK_STREAM_STAT_REUSE), 0);
	cr_expect_eq(pkt(S2C, MK_TCP_SYN, 77, 0, NULL), MK_STREAM_REUSE);
	mk_stream_flow_end(eng, &ssn);
	mk_tcp_session_reset(eng, &ssn);
	/* re-fed as the first packet of the new flow */
	cr_expect_eq(pkt(C2S, MK_TCP_SYN, 77, 0, NULL), 0);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_SENT);
}

/* 1-byte segments in order fill pool segments instead of taking one each. */
Test(unit, stream_small_segments_share_pool)
{
	int i;

	handshake(CISN, SISN);
	for (i = 0; i < 3000; i++)
		pkt(C2S, PA, CISN + 1 + i, SISN + 1, "z");
	cr_expect_leq(mk_stream_mem_used(eng), 2 * (MK_STREAM_SEG_DATA + 64));
	pkt(S2C, A, SISN + 1, CISN + 3001, NULL);
	cr_expect_eq(col.next_off[C2S], 3000);
	cr_expect_eq(mk_stream_mem_used(eng), 0);
}

static const __u8 syn_hdr[] = {
	0x30, 0x39, 0x00, 0x50, /* ports 12345 -> 80 */
	0x00, 0x00, 0x03, 0xe8, /* seq 1000 */
	0x00, 0x00, 0x00, 0x00, /* ack */
	0x80, 0x02, 0xfa, 0xf0, /* doff 8, SYN, window 64240 */
	0x00, 0x00, 0x00, 0x00, /* csum, urg */
	0x02, 0x04, 0x05, 0xb4, /* MSS 1460 */
	0x01, 0x03, 0x03, 0x07, /* NOP, window scale 7 */
	0x04, 0x02, 0x00, 0x00, /* SACK permitted, EOL */
	'h',  'i',		/* payload (TFO) */
};

Test(unit, stream_seg_parse)
{
	struct mk_tcp_seg seg;

	cr_assert_eq(mk_tcp_seg_parse(&seg, syn_hdr, sizeof(syn_hdr)), 0);
	cr_expect_eq(seg.seq, 1000);
	cr_expect_eq(seg.flags, MK_TCP_SYN);
	cr_expect_eq(seg.window, 64240);
	cr_expect_eq(seg.wscale, 7);
	cr_expect_eq(seg.len, 2);
	cr_expect(!memcmp(seg.payload, "hi", 2));
	cr_assert_eq(mk_tcp_seg_parse(&seg, syn_hdr, 32), 0);
	cr_expect_eq(seg.len, 0);
	cr_expect_null(seg.payload);
}

/* Every truncation of a header, and every corruption of its options, stays in bounds. */
Test(unit, stream_seg_parse_truncation)
{
	__u8 buf[sizeof(syn_hdr)];
	struct mk_tcp_seg seg;
	__u32 len, i;
	int v;

	for (len = 0; len < 32; len++) {
		__u8 *copy = malloc(len ? len : 1); /* exact size: ASan sees overreads */

		memcpy(copy, syn_hdr, len);
		cr_expect_eq(mk_tcp_seg_parse(&seg, copy, len), -EINVAL, "len %u", len);
		free(copy);
	}
	for (i = 12; i < 32; i++) {
		for (v = 0; v < 256; v++) {
			__u8 *copy = malloc(sizeof(buf));

			memcpy(copy, syn_hdr, sizeof(buf));
			copy[i] = (__u8)v;
			if (!mk_tcp_seg_parse(&seg, copy, sizeof(buf)))
				cr_assert_leq(seg.len, sizeof(buf) - 20);
			free(copy);
		}
	}
	cr_expect_eq(mk_tcp_seg_parse(NULL, syn_hdr, sizeof(syn_hdr)), -EINVAL);
}

/* ---- evasion: what an attacker on the path sends to end or blind our session ---- */

/* A RST at any sequence number but the expected one, or ACKing unsent bytes, changes nothing. */
Test(unit, stream_evasion_rst_bad_seq)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "GET /a");
	pkt(S2C, MK_TCP_RST | A, SISN + 2, CISN + 7, NULL);	    /* one past */
	pkt(S2C, MK_TCP_RST | A, SISN, CISN + 7, NULL);		    /* one before */
	pkt(S2C, MK_TCP_RST | A, SISN + 1 + 30000, CISN + 7, NULL); /* in the window */
	pkt(S2C, MK_TCP_RST | A, SISN + 1, CISN + 100, NULL);	    /* ACKs bytes never sent */
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_RST), 4);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(C2S, PA, CISN + 7, SISN + 1, "ttack");
	pkt(S2C, A, SISN + 1, CISN + 12, NULL);
	expect_data(C2S, "GET /attack");
}

/* A spoofed RST before the SYN/ACK: the server answering shows it never sent it. */
Test(unit, stream_evasion_rst_before_synack)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(S2C, MK_TCP_RST | A, 77, CISN + 1, NULL); /* not seq 0: not an answer to a SYN */
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_RST), 1);
	pkt(S2C, MK_TCP_RST | A, 0, CISN + 1, NULL); /* looks right: closes */
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_RST_RESUMED), 1);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	pkt(C2S, PA, CISN + 1, SISN + 1, "evil");
	pkt(S2C, A, SISN + 1, CISN + 5, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	expect_data(C2S, "evil");
}

/* A RST with the right sequence number, spoofed: its supposed sender keeps sending. */
Test(unit, stream_evasion_rst_spoofed_exact)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abc");
	pkt(C2S, PA, CISN + 7, SISN + 1, "ghi"); /* after a hole */
	pkt(C2S, MK_TCP_RST | A, CISN + 4, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_CLOSED);
	expect_data(C2S, "abc"); /* released up to the hole, not past it */
	pkt(C2S, PA, CISN + 4, SISN + 1, "def");
	cr_expect_eq(stat(MK_STREAM_STAT_RST_RESUMED), 1);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(S2C, A, SISN + 1, CISN + 10, NULL);
	expect_data(C2S, "abcdefghi");
	cr_expect_eq(stat(MK_STREAM_STAT_GAPS), 0);
}

/* A FIN behind bytes already sent, or beyond the window, does not cut the stream. */
Test(unit, stream_evasion_fin_bad_seq)
{
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "abcdef");
	pkt(C2S, MK_TCP_FIN | A, CISN + 4, SISN + 1, NULL); /* behind "def", not yet ACKed */
	pkt(C2S, MK_TCP_FIN | A, CISN + 7 + 70000, SISN + 1, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_INVALID_FIN), 2);
	cr_expect_eq(stat(MK_STREAM_STAT_FIN), 0);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(C2S, PA, CISN + 7, SISN + 1, "ghi");
	pkt(S2C, A, SISN + 1, CISN + 10, NULL);
	expect_data(C2S, "abcdefghi");
	cr_expect_eq(stat(MK_STREAM_STAT_DATA_AFTER_FIN), 0);
}

/* Data on a SYN the server did not take (no Fast Open) is not the stream. */
Test(unit, stream_evasion_syn_with_data)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, "EVIL");
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_DATA_DROPPED), 1);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	pkt(C2S, PA, CISN + 1, SISN + 1, "GOOD");
	pkt(S2C, A, SISN + 1, CISN + 5, NULL);
	expect_data(C2S, "GOOD");
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0);
}

/* A SYN/ACK before any SYN (spoofed): the real SYN starts the session over. */
Test(unit, stream_evasion_synack_before_syn)
{
	pkt(S2C, MK_TCP_SYN | A, 0x40000000, 12345, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_AFTER_SYNACK), 1);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_SENT);
	cr_expect_eq(ssn.midstream, 0);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	pkt(C2S, PA, CISN + 1, SISN + 1, "GET /");
	pkt(S2C, A, SISN + 1, CISN + 6, NULL);
	expect_data(C2S, "GET /");
}

/* The same, reordered only: the SYN/ACK answers the SYN that comes after it. */
Test(unit, stream_synack_reordered_before_its_syn)
{
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_AFTER_SYNACK), 1);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	cr_expect_eq(ssn.midstream, 0, "the handshake is whole");
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	pkt(C2S, PA, CISN + 1, SISN + 1, "x");
	pkt(S2C, A, SISN + 1, CISN + 2, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	expect_data(C2S, "x");
}

/* A second SYN with another ISN, spoofed after (or before) the real one: the SYN/ACK decides. */
Test(unit, stream_evasion_dup_syn_other_isn)
{
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(C2S, MK_TCP_SYN, 0x70000000, 0, "decoy");
	pkt(C2S, MK_TCP_SYN, 0x50000000, 0, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_SYN_NEW_ISN), 2);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	cr_expect_eq(stat(MK_STREAM_STAT_SYNACK_BAD_ACK), 0);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_SYN_RECV);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	pkt(C2S, PA, CISN + 1, SISN + 1, "real");
	pkt(S2C, A, SISN + 1, CISN + 5, NULL);
	expect_data(C2S, "real");
}

Test(unit, stream_evasion_dup_syn_other_isn_first)
{
	pkt(C2S, MK_TCP_SYN, 0x70000000, 0, NULL);
	pkt(C2S, MK_TCP_SYN, CISN, 0, NULL);
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, NULL);
	pkt(C2S, A, CISN + 1, SISN + 1, NULL);
	pkt(C2S, PA, CISN + 1, SISN + 1, "real");
	pkt(S2C, A, SISN + 1, CISN + 5, NULL);
	cr_expect_eq(mk_tcp_session_state(&ssn), MK_TCP_ESTABLISHED);
	expect_data(C2S, "real");
}

/* ---- under attack (docs/security.md) ---- */

static int pktw(struct mk_tcp_session *s, int dir, __u8 flags, __u32 seq, __u32 ack, __u16 win,
		const void *data, __u32 len)
{
	struct mk_tcp_seg seg = {
		.payload = data,
		.len = len,
		.seq = seq,
		.ack = ack,
		.window = win,
		.flags = flags,
		.dir = (__u8)dir,
		.wscale = -1,
		.csum_ok = 1,
	};

	return mk_stream_packet(eng, s, &seg, 1);
}

static void handshake_of(struct mk_tcp_session *s, __u32 cisn, __u32 sisn)
{
	pktw(s, C2S, MK_TCP_SYN, cisn, 0, 65535, NULL, 0);
	pktw(s, S2C, MK_TCP_SYN | A, sisn, cisn + 1, 65535, NULL, 0);
	pktw(s, C2S, A, cisn + 1, sisn + 1, 65535, NULL, 0);
	cr_assert_eq(mk_tcp_session_state(s), MK_TCP_ESTABLISHED);
}

Test(unit, stream_evasion_zero_window_probe)
{
	handshake(CISN, SISN);
	/* the server's window closes; the client probes it with a byte the server drops */
	pktw(&ssn, S2C, A, SISN + 1, CISN + 1, 0, NULL, 0);
	pktw(&ssn, C2S, PA, CISN + 1, SISN + 1, 65535, "X", 1);
	cr_expect_eq(stat(MK_STREAM_STAT_ZERO_WINDOW), 1);
	/* the window opens; what the server reads is the copy sent now */
	pktw(&ssn, S2C, A, SISN + 1, CISN + 1, 65535, NULL, 0);
	pktw(&ssn, C2S, PA, CISN + 1, SISN + 1, 65535, "Yes", 3);
	pktw(&ssn, S2C, A, SISN + 1, CISN + 4, 65535, NULL, 0);
	expect_data(C2S, "Yes");
	cr_expect_eq(stat(MK_STREAM_STAT_OVERLAP_DIFF), 0, "the probe's byte was never held");
}

Test(unit, stream_memcap_reclaims_out_of_order_data_for_in_order_data)
{
	char seg[MK_STREAM_SEG_DATA];
	int i;

	cfg_start(small_memcap);
	mk_tcp_session_init(&ssn2);
	/* an attacker's session fills the pool with data behind a hole never filled */
	handshake_of(&ssn2, 7000, 9000);
	memset(seg, 'o', sizeof(seg));
	for (i = 0; i < 8; i++)
		pktw(&ssn2, C2S, PA, 7000 + 2 + (__u32)i * sizeof(seg), 9001, 65535, seg,
		     sizeof(seg));
	cr_expect_eq(stat(MK_STREAM_STAT_MEMCAP), 4, "out-of-order data is refused at the cap");
	/* a real session's request still finds room: the attacker's segments go */
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "GET /trigger");
	cr_expect_eq(stat(MK_STREAM_STAT_MEMCAP), 4, "the request was not refused");
	cr_expect_eq(stat(MK_STREAM_STAT_RECLAIM_OOO), 4);
	cr_expect_eq(stat(MK_STREAM_STAT_RECLAIM_OOO_BYTES), 4 * sizeof(seg));
	pkt(S2C, A, SISN + 1, CISN + 13, NULL);
	expect_data(C2S, "GET /trigger");
	/* the attacker's bytes are a gap now, reported as such */
	mk_stream_flow_end(eng, &ssn2);
	cr_expect_eq(mk_tcp_session_data(&ssn2, C2S, &(__u64){ 0 }), NULL);
	mk_tcp_session_free(eng, &ssn2);
}

Test(unit, stream_memcap_releases_unacked_data_early_for_in_order_data)
{
	char seg[MK_STREAM_SEG_DATA], want[4 * MK_STREAM_SEG_DATA];
	const __u8 *got;
	__u64 len;
	int i;

	cfg_start(small_memcap);
	mk_tcp_session_init(&ssn2);
	/* a session whose in-order data is never ACKed holds the whole pool */
	handshake_of(&ssn2, 7000, 9000);
	for (i = 0; i < 4; i++) {
		memset(seg, 'a' + i, sizeof(seg));
		memcpy(want + i * sizeof(seg), seg, sizeof(seg));
		pktw(&ssn2, C2S, PA, 7001 + (__u32)i * sizeof(seg), 9001, 65535, seg, sizeof(seg));
	}
	cr_expect_eq(stat(MK_STREAM_STAT_MEMCAP), 0);
	handshake(CISN, SISN);
	pkt(C2S, PA, CISN + 1, SISN + 1, "GET /trigger");
	cr_expect_eq(stat(MK_STREAM_STAT_MEMCAP), 0, "the request was not refused");
	cr_expect_eq(stat(MK_STREAM_STAT_RECLAIM_EARLY), 1);
	cr_expect_eq(stat(MK_STREAM_STAT_RECLAIM_EARLY_BYTES), sizeof(want));
	/* the other session's data went to detection whole and in order, before its ACK */
	got = mk_tcp_session_data(&ssn2, C2S, &len);
	cr_assert_eq(len, sizeof(want));
	cr_assert(!memcmp(got, want, sizeof(want)));
	pkt(S2C, A, SISN + 1, CISN + 13, NULL);
	expect_data(C2S, "GET /trigger");
	/* its ACK, when it comes, releases nothing twice */
	pktw(&ssn2, S2C, A, 9001, 7001 + sizeof(want), 65535, NULL, 0);
	mk_tcp_session_data(&ssn2, C2S, &len);
	cr_expect_eq(len, sizeof(want));
	mk_tcp_session_free(eng, &ssn2);
}

Test(unit, stream_mem_peak_stays_under_the_cap)
{
	char seg[MK_STREAM_SEG_DATA];
	int i;

	cfg_start(small_memcap);
	handshake(CISN, SISN);
	memset(seg, 'p', sizeof(seg));
	for (i = 0; i < 64; i++)
		pktl(C2S, PA, CISN + 2 + (__u32)i * sizeof(seg), SISN + 1, seg, sizeof(seg));
	cr_expect_gt(stat(MK_STREAM_STAT_MEM_PEAK), 0);
	cr_expect_leq(stat(MK_STREAM_STAT_MEM_PEAK), 4 * (MK_STREAM_SEG_DATA + 64));
}

/*
 * Found by fuzz_stream: a session picked up from a SYN/ACK had released data
 * when a SYN with another ISN came; starting over handed out stream offset
 * 0 again. Once data is out, such a SYN answers nothing and is left out.
 */
Test(unit, stream_late_syn_after_synack_keeps_offsets)
{
	/* the fuzzer's input, in words: a SYN/ACK with data, data on a RST that is
	 * then resumed, then SYNs with other ISNs */
	pkt(S2C, MK_TCP_SYN | A, SISN, CISN + 1, "abcdefghijkl");
	pkt(C2S, MK_TCP_RST | MK_TCP_PSH, CISN + 1, SISN + 13, "hello world!");
	pkt(C2S, 0x20, CISN + 16, SISN + 13, "urgent data!");
	pkt(C2S, MK_TCP_SYN, CISN + 542, 0, "xy");
	pkt(C2S, MK_TCP_SYN, CISN + 1077, 0, "a syn with more data than the first one had");
	mk_stream_flow_end(eng, &ssn);
	cr_expect_eq(col.bad_off, 0, "stream offsets went back");
}
