// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inline (IPS) verdicts in the worker (pipeline/worker.c): a drop rule drops
 * the frame that matches and every later frame of its flow, and no other
 * flow's; on reassembled data the stream engine in inline mode lets the
 * segment that completes a match be dropped before its ACK; reject carries
 * its directions; in IDS mode the same rules drop nothing.
 */
#include <criterion/criterion.h>
#include "detect_helpers.h"

static const char rules[] =
	"drop tcp any any -> any any (msg:\"evil\"; content:\"EVIL-MARK\"; sid:1;)\n"
	"rejectsrc tcp any any -> any any (msg:\"reset\"; content:\"RESET-ME\"; sid:2;)\n";

static struct harness *up(int inline_mode)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct mk_detect_cfg cfg = test_cfg;

	cr_assert_not_null(h);
	cfg.rules_text = rules;
	cfg.rules_text_name = "ips.rules";
	cfg.inline_mode = inline_mode;
	cr_assert_eq(inline_mode ? h_init_inline(h, &cfg) : h_init_cfg(h, &cfg), 0);
	return h;
}

/* One segment from the client, no ACK from the server: what the sensor must decide on now. */
static void seg(struct conv *c, const char *data)
{
	uint32_t n = (uint32_t)strlen(data);

	conv_send(c, 1, MK_TCP_PSH | MK_TCP_ACK, c->cseq, c->sseq, data, n);
	c->cseq += n;
}

Test(ips_verdict, drop_split_marker_before_its_ack)
{
	struct harness *h = up(1);
	struct conv c, other;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, 1000000);
	cr_assert_eq(h->w.verdict, MK_VERDICT_FORWARD);
	seg(&c, "hello EVIL-");
	cr_assert_eq(h->w.verdict, MK_VERDICT_FORWARD, "half a marker is forwarded");
	seg(&c, "MARK and more");
	cr_assert_eq(h->w.verdict, MK_VERDICT_DROP,
		     "the segment completing the marker is dropped before the server ACKs it");
	cr_assert_eq(h->w.cnt[MK_WORKER_IPS_BLOCKED], 1);
	cr_assert_eq(h->nalerts, 1);
	cr_assert_eq(h->alerts[0].sid, 1);
	/* the flow's later frames, both ways */
	seg(&c, "retransmission or not");
	cr_assert_eq(h->w.verdict, MK_VERDICT_DROP);
	conv_send(&c, 0, MK_TCP_ACK, c.sseq, c.cseq, NULL, 0);
	cr_assert_eq(h->w.verdict, MK_VERDICT_DROP);
	cr_assert_eq(h->w.cnt[MK_WORKER_IPS_BLOCKED_PKT], 2);
	/* another session goes on */
	conv_open(&other, h, "10.0.0.3", 40001, "10.0.0.2", 80, 2000000);
	seg(&other, "innocent");
	cr_assert_eq(h->w.verdict, MK_VERDICT_FORWARD);
	harness_free(h);
}

Test(ips_verdict, reject_directions)
{
	struct harness *h = up(1);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, 1000000);
	seg(&c, "please RESET-ME now");
	cr_assert_eq(h->w.verdict, MK_VERDICT_REJECT);
	cr_assert_eq(h->w.reject_dirs, 1, "rejectsrc: toward the source only");
	harness_free(h);
}

Test(ips_verdict, ids_mode_drops_nothing)
{
	struct harness *h = up(0);
	struct conv c;

	conv_open(&c, h, "10.0.0.1", 40000, "10.0.0.2", 80, 1000000);
	conv_data(&c, 1, "hello EVIL-MARK");
	cr_assert_eq(h->w.verdict, MK_VERDICT_FORWARD);
	cr_assert_eq(h->w.cnt[MK_WORKER_IPS_BLOCKED], 0);
	cr_assert_eq(h->nalerts, 1, "the drop rule alerts");
	conv_data(&c, 1, "more");
	cr_assert_eq(h->w.verdict, MK_VERDICT_FORWARD);
	harness_free(h);
}
