// SPDX-License-Identifier: GPL-2.0-only
/*
 * The single-threaded test pipeline (detect_harness.h). The order of work
 * per packet is the worker's: defragment, flow lookup, stream engine (its
 * released chunks go to mk_detect_stream), mk_detect_packet, then the
 * packet's alerts, in order, through the threshold filters to the output.
 * Flow ends release what the stream engine still holds inside their own
 * mk_detect_begin/end pair, stamped with the flow's last packet time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "detect_harness.h"
#include "eve.h"

#define H_SEED 0x6d65726bu

static struct mk_flow *flow_of(struct mk_tcp_session *ssn)
{
	return (struct mk_flow *)((char *)ssn - offsetof(struct mk_flow, tcp));
}

static void cb_data(void *user, struct mk_tcp_session *ssn, const struct mk_stream_chunk *c)
{
	struct harness *h = user;

	mk_detect_stream(h->t, flow_of(ssn), c);
}

static void emit_alerts(struct harness *h)
{
	const struct mk_detect_alert *a;
	unsigned int n, i;

	n = mk_detect_end(h->t, &a);
	h->verdicts |= mk_detect_verdict(h->t);
	for (i = 0; i < n; i++) {
		struct mk_detect_thresh_key k;
		struct h_alert *o;

		if (mk_detect_alert_thresh_key(&a[i], &k) &&
		    !mk_detect_thresh_filter(h->thresh, &k, NULL))
			continue;
		if (h->nalerts < H_ALERTS_MAX) {
			o = &h->alerts[h->nalerts++];
			memset(o, 0, sizeof(*o));
			o->ts_us = a[i].ts_us;
			inet_ntop(a[i].family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, a[i].src,
				  o->src, sizeof(o->src));
			inet_ntop(a[i].family == MK_FAMILY_IPV6 ? AF_INET6 : AF_INET, a[i].dst,
				  o->dst, sizeof(o->dst));
			o->sport = a[i].sport;
			o->dport = a[i].dport;
			o->proto = a[i].proto;
			o->stream = a[i].stream;
			o->tunnel_type = a[i].tunnel_type;
			o->vlan = a[i].vlan[0];
			o->payload_len = a[i].payload_len;
			mk_detect_alert_ids(&a[i], &o->gid, &o->sid);
		}
		if (h->eve) {
			size_t size = mk_eve_alert_maxlen(&a[i], &h->eve_opts);
			char *line = malloc(size);
			int len = line ? mk_eve_alert(line, size, &a[i], &h->eve_opts) : -ENOMEM;

			if (len < 0)
				h->err = len;
			else
				fprintf(h->eve, "%.*s\n", len, line);
			free(line);
		}
	}
}

static void on_flow_end(void *ctx, struct mk_flow *f, enum mk_flow_reason reason, uint64_t ts_us)
{
	struct harness *h = ctx;
	struct mk_detect_pkt pkt = {.flow = f, .ts_us = f->last_us};
	char line[MK_EVE_LINE_MAX];
	int n;

	mk_detect_begin(h->t, &pkt);
	if (f->proto_class == MK_FLOW_PROTO_TCP)
		mk_stream_flow_end(h->stream, &f->tcp);
	emit_alerts(h);
	if (f->proto_class == MK_FLOW_PROTO_TCP)
		mk_tcp_session_free(h->stream, &f->tcp);
	mk_detect_flow_free(h->t, f);
	if (h->eve) {
		n = mk_eve_flow(line, sizeof(line), NULL, f, reason, ts_us);
		if (n > 0)
			fprintf(h->eve, "%.*s\n", n, line);
	}
	h->flows_logged++;
}

static int common_init(struct harness *h)
{
	static const struct mk_stream_cbs cbs = {.data = cb_data};
	int err;

	mk_config_defaults(&h->conf);
	h->pcfg = h->conf.parse;
	h->pcfg.seed = H_SEED;
	err = mk_flow_table_init(&h->flows, &h->conf.flow, H_SEED, on_flow_end, h);
	if (err)
		return err;
	h->stream = mk_stream_engine_new(&h->conf.stream);
	if (!h->stream)
		return -ENOMEM;
	mk_stream_set_callbacks(h->stream, &cbs, h);
	h->conf.defrag.seed = H_SEED;
	err = mk_defrag_create(&h->conf.defrag, &h->defrag);
	if (err)
		return err;
	return mk_detect_thresh_new(&h->thresh);
}

int h_init_cfg(struct harness *h, const struct mk_detect_cfg *cfg)
{
	int err;

	memset(h, 0, sizeof(*h));
	err = mk_detect_engine_build(cfg, NULL, &h->eng);
	if (!err)
		err = mk_detect_thread_new_engine(h->eng, &h->t);
	if (!err)
		err = common_init(h);
	return err;
}

int h_init_rules(struct harness *h, const char *rules)
{
	struct mk_detect_cfg cfg = {.rules_text = rules, .rules_text_name = "test.rules"};

	return h_init_cfg(h, &cfg);
}

int h_init_master(struct harness *h, const struct mk_detect_cfg *cfg)
{
	int err;

	memset(h, 0, sizeof(*h));
	err = mk_detect_master_new(cfg, &h->master);
	if (!err)
		err = mk_detect_thread_new(h->master, &h->t);
	if (!err)
		err = common_init(h);
	return err;
}

void h_finish(struct harness *h)
{
	mk_flow_table_flush(&h->flows);
}

void h_free(struct harness *h)
{
	/* flows still open end here, so their detection state is released */
	if (h->flows.entries && h->t)
		mk_flow_table_flush(&h->flows);
	mk_flow_table_free(&h->flows);
	if (h->stream)
		mk_stream_engine_free(h->stream);
	if (h->defrag)
		mk_defrag_destroy(h->defrag);
	mk_detect_thread_free(h->t);
	mk_detect_engine_put(h->eng);
	mk_detect_master_free(h->master);
	mk_detect_thresh_free(h->thresh);
	mk_config_free(&h->conf);
	memset(h, 0, sizeof(*h));
}

static void packet(struct harness *h, const struct mk_parse *p, const uint8_t *ip, uint32_t caplen,
		   uint64_t ts_us);

/* A completed datagram, parsed again with the fragments' VLAN and tunnel (as offline.c). */
static void datagram(struct harness *h, const struct mk_parse *fp,
		     const struct mk_defrag_datagram *dg)
{
	struct mk_frame frame = {dg->data, dg->data + dg->len};
	struct mk_parse p;

	if (mk_parse_frame(&frame, MK_START_IP, &h->pcfg, &p) != MK_PARSE_IP ||
	    (p.flags & MK_META_F_FRAGMENT))
		return;
	p.vlan[0] = p.key.vlan[0] = fp->vlan[0];
	p.vlan[1] = p.key.vlan[1] = fp->vlan[1];
	if (fp->tunnel_depth && !p.tunnel_depth) {
		p.tunnel_ctx = p.key.tunnel_ctx = fp->tunnel_ctx;
		p.tunnel_id = fp->tunnel_id;
		p.tunnel_type = fp->tunnel_type;
		p.tunnel_depth = fp->tunnel_depth;
		p.tunnel_mask = fp->tunnel_mask;
		p.outer_family = fp->outer_family;
		memcpy(p.outer_src, fp->outer_src, sizeof(p.outer_src));
		memcpy(p.outer_dst, fp->outer_dst, sizeof(p.outer_dst));
		p.flags |= MK_META_F_TUNNEL;
	}
	p.hash = mk_flow_hash(&p.key, h->pcfg.seed);
	packet(h, &p, dg->data, dg->len, dg->ts_ns / 1000);
}

static int feed_stream(struct harness *h, struct mk_flow *f, int to_client, const uint8_t *ip,
		       uint32_t caplen, const struct mk_parse *p, uint64_t ts_us)
{
	uint32_t l4 = (uint32_t)(p->l3.l4_off - p->l3.l3_off);
	uint32_t end = p->l3.ip_len < caplen ? p->l3.ip_len : caplen;
	struct mk_tcp_seg seg;

	if (f->pkts[0] + f->pkts[1] == 1)
		mk_tcp_session_init(&f->tcp);
	if (end <= l4 || mk_tcp_seg_parse(&seg, ip + l4, end - l4))
		return 0;
	seg.dir = (uint8_t)(to_client ^ f->first_to_client);
	seg.csum_ok = 1;
	return mk_stream_packet(h->stream, &f->tcp, &seg, ts_us * 1000) == MK_STREAM_REUSE;
}

static void packet(struct harness *h, const struct mk_parse *p, const uint8_t *ip, uint32_t caplen,
		   uint64_t ts_us)
{
	uint32_t l4 = p->l3.l4_off ? (uint32_t)(p->l3.l4_off - p->l3.l3_off) : 0;
	struct mk_flow_pkt fp = {.ts_us = ts_us, .len = MK_ETH_HLEN + caplen};
	struct mk_detect_pkt dp;
	struct mk_flow *f;
	int to_client;

	if (p->flags & MK_META_F_FRAGMENT) {
		struct mk_defrag_outer outer = {
		    .vlan = {p->vlan[0], p->vlan[1]},
		    .tunnel_ctx = p->tunnel_ctx,
		};
		struct mk_defrag_datagram dg;

		if (mk_defrag_input(h->defrag, ip, caplen, ts_us * 1000, &outer, &dg) ==
		    MK_DEFRAG_DONE) {
			datagram(h, p, &dg);
			mk_defrag_datagram_free(&dg);
		}
		return;
	}
	if (l4 && p->l3.proto == MK_IPPROTO_TCP)
		fp.tcp_flags = ip[l4 + 13] & 0x3f;
	else if (l4 && (p->l3.proto == MK_IPPROTO_ICMP || p->l3.proto == MK_IPPROTO_ICMPV6)) {
		fp.icmp_type = ip[l4];
		fp.icmp_code = ip[l4 + 1];
	}
	f = mk_flow_handle(&h->flows, p, &fp, &to_client);
	if (!f)
		return;
	dp = (struct mk_detect_pkt){.parse = p,
				    .ip = ip,
				    .ip_caplen = caplen,
				    .ts_us = ts_us,
				    .flow = f,
				    .to_client = to_client};
	mk_detect_begin(h->t, &dp);
	if (p->l3.proto == MK_IPPROTO_TCP && l4 &&
	    feed_stream(h, f, to_client, ip, caplen, p, ts_us)) {
		/* port reuse: the packet opens a new flow (as pipeline/worker.c) */
		mk_flow_unaccount(&h->flows, f, &fp, to_client);
		emit_alerts(h);
		mk_flow_table_end(&h->flows, f, MK_FLOW_END_TCP_REUSE, ts_us);
		f = mk_flow_handle(&h->flows, p, &fp, &to_client);
		if (!f)
			return;
		dp.flow = f;
		dp.to_client = to_client;
		mk_detect_begin(h->t, &dp);
		feed_stream(h, f, to_client, ip, caplen, p, ts_us);
	}
	mk_detect_packet(h->t);
	emit_alerts(h);
}

void h_frame(struct harness *h, const uint8_t *frame, uint32_t len, int start, uint64_t ts_us)
{
	struct mk_frame fr = {frame, frame + len};
	struct mk_parse p;
	uint32_t off;

	h->packets++;
	if (mk_parse_frame(&fr, start, &h->pcfg, &p) != MK_PARSE_IP)
		return;
	if (ts_us / 1000000 > h->last_tick_s) {
		h->last_tick_s = ts_us / 1000000;
		mk_flow_table_tick(&h->flows, ts_us);
		mk_defrag_expire(h->defrag, ts_us * 1000);
	}
	off = p.l3.l3_off;
	packet(h, &p, frame + off, len - off, ts_us);
}

unsigned int h_count(const struct harness *h, uint32_t sid)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->nalerts; i++)
		n += h->alerts[i].sid == sid;
	return n;
}
