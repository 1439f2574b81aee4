// SPDX-License-Identifier: GPL-2.0-only
/*
 * The worker on the calling thread (detect_harness.h). What the offline run
 * mode does around its workers, for one worker and without threads: parse
 * each frame (common/parse.h), tick the worker when packet time enters a new
 * second, advance it to the last packet time and finish it at the end, and
 * filter alert records through the threshold filters in output order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "detect_harness.h"
#include "eve.h"

#define H_SEED 0x6d65726bu

static const uint8_t one_worker[MK_ITABLE_SIZE]; /* every bucket: worker 0 */

static int write_line(struct harness *h, const char *line, size_t len)
{
	if (h->eve && fprintf(h->eve, "%.*s\n", (int)len, line) < 0)
		return -EIO;
	return 0;
}

static void copy_str(char *out, size_t size, json_t *v)
{
	const char *s = json_string_value(v);

	snprintf(out, size, "%s", s ? s : "");
}

/* The alert's EVE record, read back the way a consumer reads it. */
static void collect(struct harness *h, const char *line, size_t len)
{
	struct h_alert *o;
	json_error_t jerr;
	json_t *j, *a, *v;

	if (h->nalerts == H_ALERTS_MAX)
		return;
	j = json_loadb(line, len, JSON_ALLOW_NUL, &jerr);
	if (!j) {
		h->err = -EINVAL; /* the worker wrote a line that is not JSON */
		return;
	}
	o = &h->alerts[h->nalerts++];
	memset(o, 0, sizeof(*o));
	a = json_object_get(j, "alert");
	o->sid = (uint32_t)json_integer_value(json_object_get(a, "signature_id"));
	o->gid = (uint32_t)json_integer_value(json_object_get(a, "gid"));
	copy_str(o->src, sizeof(o->src), json_object_get(j, "src_ip"));
	copy_str(o->dst, sizeof(o->dst), json_object_get(j, "dest_ip"));
	o->sport = (uint16_t)json_integer_value(json_object_get(j, "src_port"));
	o->dport = (uint16_t)json_integer_value(json_object_get(j, "dest_port"));
	copy_str(o->proto, sizeof(o->proto), json_object_get(j, "proto"));
	o->stream = json_integer_value(json_object_get(j, "stream")) != 0;
	copy_str(o->tunnel, sizeof(o->tunnel),
		 json_object_get(json_object_get(j, "tunnel"), "type"));
	o->vlan = (uint16_t)json_integer_value(json_array_get(json_object_get(j, "vlan"), 0));
	copy_str(o->community_id, sizeof(o->community_id), json_object_get(j, "community_id"));
	v = json_object_get(j, "payload");
	if (json_is_string(v)) {
		size_t n = json_string_length(v);
		const char *s = json_string_value(v);

		o->payload_len =
			(uint32_t)(n / 4 * 3 - (n && s[n - 1] == '=') - (n > 1 && s[n - 2] == '='));
	}
	json_decref(j);
}

/* ops.record: flow records, in the worker's order. */
static int on_record(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
		     size_t len)
{
	(void)f;
	(void)ts_us;
	return write_line(ctx, line, len);
}

/* ops.alert: one worker's records are in output order already, so filter here. */
static int on_alert(void *ctx, const struct mk_flow *f, uint64_t ts_us, const char *line,
		    size_t len, const struct mk_detect_thresh_key *key)
{
	struct harness *h = ctx;

	(void)f;
	(void)ts_us;
	if (key && !mk_detect_thresh_filter(h->thresh, key, NULL))
		return 0;
	h->alert_records++;
	if (!h->no_collect)
		collect(h, line, len);
	return write_line(h, line, len);
}

static const struct mk_worker_ops ops = { .record = on_record, .alert = on_alert };

static int init_with(struct harness *h, const struct mk_detect_cfg *cfg, int midstream,
		     int inline_mode, const struct mk_app_cfg *app)
{
	struct mk_worker_cfg wc = {
		.nworkers = 1,
		.itable = one_worker,
		.seed = H_SEED,
		.log_flows = 1,
		.log_alerts = 1,
	};
	int err;

	memset(h, 0, sizeof(*h));
	mk_config_defaults(&h->conf);
	if (midstream >= 0)
		h->conf.stream.midstream = (uint8_t)midstream;
	h->conf.stream.inline_mode = (uint8_t)inline_mode;
	h->pcfg = h->conf.parse;
	h->pcfg.seed = H_SEED;
	err = mk_detect_master_new(cfg, &h->master);
	if (err)
		return err;
	h->eng = mk_detect_master_engine(h->master);
	err = mk_detect_thresh_new(&h->thresh);
	if (err)
		return err;
	/* frames built by tests carry no checksums */
	wc.parse = &h->conf.parse;
	wc.flow = &h->conf.flow;
	wc.stream = &h->conf.stream;
	wc.defrag = &h->conf.defrag;
	wc.unreplied = h->conf.output.eve.flow_unreplied;
	wc.detect = h->master;
	wc.app = app;
	err = mk_worker_init(&h->w, &wc, &ops, h);
	if (err) {
		mk_worker_free(&h->w);
		return err;
	}
	h->worker_up = 1;
	h->t = h->w.detect;
	return 0;
}

int h_init_master(struct harness *h, const struct mk_detect_cfg *cfg)
{
	return init_with(h, cfg, -1, 0, NULL);
}

int h_init_inline(struct harness *h, const struct mk_detect_cfg *cfg)
{
	return init_with(h, cfg, -1, 1, NULL);
}

int h_init_midstream(struct harness *h, const struct mk_detect_cfg *cfg, int midstream)
{
	return init_with(h, cfg, midstream, 0, NULL);
}

int h_init_cfg(struct harness *h, const struct mk_detect_cfg *cfg)
{
	return h_init_master(h, cfg);
}

int h_init_rules(struct harness *h, const char *rules)
{
	struct mk_detect_cfg cfg = { .rules_text = rules, .rules_text_name = "test.rules" };

	return h_init_cfg(h, &cfg);
}

/* The alert options may be set after init: the worker formats with the current ones. */
static void sync_opts(struct harness *h)
{
	h->w.cfg.alert_opts = h->eve_opts;
	h->w.cfg.eve.community_id = h->eve_opts.community_id;
	h->w.cfg.eve.community_id_seed = h->eve_opts.community_id_seed;
}

void h_set_checksum(struct harness *h, int on)
{
	h->w.cfg.checksum = on;
}

static void after(struct harness *h)
{
	if (h->t)
		h->verdicts |= mk_detect_verdict(h->t);
	if (!h->err && h->w.err)
		h->err = h->w.err;
}

void h_frame(struct harness *h, const uint8_t *frame, uint32_t len, int start, uint64_t ts_us)
{
	struct mk_frame fr = { frame, frame + len };
	struct mk_parse p;
	struct mk_pkt pkt;

	h->packets++;
	if (mk_parse_frame(&fr, start, &h->pcfg, &p) != MK_PARSE_IP)
		return;
	sync_opts(h);
	if (ts_us > h->last_ts_us)
		h->last_ts_us = ts_us;
	if (ts_us / 1000000 > h->last_tick_s) {
		h->last_tick_s = ts_us / 1000000;
		mk_worker_tick(&h->w, ts_us);
	}
	pkt = (struct mk_pkt){
		.parse = &p,
		.ip = frame + p.l3.l3_off,
		.ip_caplen = len - p.l3.l3_off,
		.ts_us = ts_us,
	};
	mk_worker_packet(&h->w, &pkt);
	after(h);
}

void h_finish(struct harness *h)
{
	sync_opts(h);
	mk_worker_advance(&h->w, h->last_ts_us);
	mk_worker_finish(&h->w);
	after(h);
}

void h_free(struct harness *h)
{
	/* flows still open end here, so their detection state is released */
	if (h->worker_up) {
		h_finish(h);
		mk_worker_free(&h->w);
	}
	mk_detect_engine_put(h->eng);
	mk_detect_master_free(h->master);
	mk_detect_thresh_free(h->thresh);
	mk_config_free(&h->conf);
	memset(h, 0, sizeof(*h));
}

unsigned int h_count(const struct harness *h, uint32_t sid)
{
	unsigned int i, n = 0;

	for (i = 0; i < h->nalerts; i++)
		n += h->alerts[i].sid == sid;
	return n;
}

uint64_t h_flows_logged(const struct harness *h)
{
	return h->w.flows_logged;
}

int h_init_app(struct harness *h, const struct mk_detect_cfg *cfg, const struct mk_app_cfg *app)
{
	return init_with(h, cfg, -1, 0, app);
}
