// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-worker pipeline (worker.h): one instance per worker thread, fed by
 * the offline reader or by AF_XDP sockets, the same code either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "eve.h"
#include "eve_dns.h"
#include "eve_file.h"
#include "eve_drop.h"
#include "eve_packet.h"
#include "eve_http.h"
#include "eve_tls.h"
#include "eve_app.h"
#include "dns_msg.h"
#include "icmp_error.h"
#include "log.h"
#include "worker.h"

#define MK_WORKER_CNT_NAME(name, str, doc) [MK_WORKER_##name] = str,
const char *const mk_worker_counter_names[MK_WORKER_CNT_MAX] = { MK_WORKER_COUNTERS(
	MK_WORKER_CNT_NAME) };
#undef MK_WORKER_CNT_NAME

/* ---- checksums -------------------------------------------------------- */

/*
 * One's-complement sum, 64 bits at a time with end-around carry (RFC 1071:
 * the sum is byte-order independent, so words are summed as loaded and the
 * result swapped once). Checksums are the worker's biggest per-byte cost,
 * hence not the 16-bit textbook loop.
 */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint64_t acc = 0, q;
	uint32_t w;
	uint16_t h;

	while (len >= 8) {
		memcpy(&q, p, 8);
		acc += q;
		acc += acc < q; /* end-around carry */
		p += 8;
		len -= 8;
	}
	acc = (acc & 0xffffffffu) + (acc >> 32);
	if (len >= 4) {
		memcpy(&w, p, 4);
		acc += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		acc += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		h = 0;
		memcpy(&h, p, 1);
		acc += h;
	}
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	/* back to network order to combine with the caller's host-order sum */
	return sum + (uint32_t)__builtin_bswap16((uint16_t)acc);
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t pseudo_sum(const struct mk_l3 *l3, uint32_t l4len)
{
	uint32_t sum = 0;
	int n = l3->family == MK_FAMILY_IPV6 ? 16 : 4;

	sum = csum_add(sum, (const uint8_t *)l3->src, n);
	sum = csum_add(sum, (const uint8_t *)l3->dst, n);
	return sum + l3->proto + (l4len & 0xffff) + (l4len >> 16);
}

/*
 * Validates what can be validated: not on fragments (no whole L4) nor on
 * frames cut by the snap length. Returns 1 when a bad TCP checksum means the
 * segment must not be reassembled.
 */
static int worker_checksums(struct mk_worker *w, const struct mk_parse *p, const uint8_t *ip,
			    uint32_t caplen)
{
	const struct mk_l3 *l3 = &p->l3;
	uint32_t ihl, l4len;
	const uint8_t *l4;

	if (l3->truncated || caplen < l3->ip_len)
		return 0;
	/* the parser checked 20 <= IHL * 4 <= total length for IPv4 */
	if (l3->family == MK_FAMILY_IPV4 &&
	    csum_fold(csum_add(0, ip, (ip[0] & 0x0fu) * 4u)) != 0xffff)
		w->cnt[MK_WORKER_CSUM_BAD_IPV4]++;
	if (!l3->l4_off || l3->frag != MK_FRAG_NONE)
		return 0;
	/* IPv6 extension headers may claim more than the payload length */
	ihl = (uint32_t)(l3->l4_off - l3->l3_off);
	if (ihl > l3->ip_len)
		return 0;
	l4 = ip + ihl;
	l4len = l3->ip_len - ihl;
	switch (l3->proto) {
	case MK_IPPROTO_TCP:
		if (csum_fold(csum_add(pseudo_sum(l3, l4len), l4, l4len)) != 0xffff) {
			w->cnt[MK_WORKER_CSUM_BAD_TCP]++;
			return 1;
		}
		break;
	case MK_IPPROTO_UDP:
		/* IPv4 UDP checksum 0 means "none" */
		if (l4len >= 8 && (l4[6] | l4[7]) == 0 && l3->family == MK_FAMILY_IPV4)
			break;
		if (csum_fold(csum_add(pseudo_sum(l3, l4len), l4, l4len)) != 0xffff)
			w->cnt[MK_WORKER_CSUM_BAD_UDP]++;
		break;
	case MK_IPPROTO_ICMP:
		if (csum_fold(csum_add(0, l4, l4len)) != 0xffff)
			w->cnt[MK_WORKER_CSUM_BAD_ICMP]++;
		break;
	case MK_IPPROTO_ICMPV6:
		if (csum_fold(csum_add(pseudo_sum(l3, l4len), l4, l4len)) != 0xffff)
			w->cnt[MK_WORKER_CSUM_BAD_ICMP]++;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- defrag ------------------------------------------------------------ */

static void worker_flow_packet(struct mk_worker *w, const struct mk_pkt *pkt, int is_frame);

/*
 * A fragment reaches the worker owning its address-pair hash; the worker's
 * defragmenter holds it. A completed datagram is parsed again from its IP
 * header (the fragment's VLAN and tunnel context carried over) and goes to
 * the worker owning its 5-tuple: handled here, or handed to the run mode for
 * that worker. Fragments are not flow packets; the datagram is, once.
 */
static void worker_datagram_done(struct mk_worker *w, const struct mk_pkt *frag,
				 const struct mk_defrag_datagram *dg)
{
	const struct mk_parse *fp = frag->parse;
	struct mk_frame frame = { .data = dg->data, .data_end = dg->data + dg->len };
	struct mk_parse p;
	struct mk_pkt pkt = {
		.parse = &p, .ip = dg->data, .ip_caplen = dg->len, .ts_us = dg->ts_ns / 1000
	};
	unsigned int to;

	if (mk_parse_frame(&frame, MK_START_IP, &w->pcfg, &p) != MK_PARSE_IP ||
	    (p.flags & MK_META_F_FRAGMENT)) {
		w->cnt[MK_WORKER_DGRAM_BAD]++;
		return;
	}
	/* the datagram's identity includes what was stripped around its fragments */
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
	p.hash = mk_flow_hash(&p.key, w->pcfg.seed);
	to = w->cfg.itable[mk_worker_steer_hash(&p, dg->data, dg->len, w->pcfg.seed) %
			   MK_ITABLE_SIZE];
	if (to == w->cfg.id || !w->ops->handoff) {
		worker_flow_packet(w, &pkt, 0);
		return;
	}
	if (w->ops->handoff(w->ops_ctx, to, &pkt)) {
		w->cnt[MK_WORKER_DGRAM_HANDOFF_DROP]++;
		return;
	}
	w->cnt[MK_WORKER_DGRAM_HANDOFF]++;
}

static void worker_defrag(struct mk_worker *w, const struct mk_pkt *pkt)
{
	const struct mk_parse *p = pkt->parse;
	struct mk_defrag_outer outer = {
		.vlan = { p->vlan[0], p->vlan[1] },
		.tunnel_ctx = p->tunnel_ctx,
	};
	struct mk_defrag_datagram dg;
	int ret =
		mk_defrag_input(w->defrag, pkt->ip, pkt->ip_caplen, pkt->ts_us * 1000, &outer, &dg);

	if (ret < 0) {
		w->cnt[MK_WORKER_FRAG_DROPPED]++;
		return;
	}
	w->cnt[MK_WORKER_FRAG_HELD]++;
	if (ret != MK_DEFRAG_DONE)
		return;
	w->cnt[MK_WORKER_DGRAM]++;
	worker_datagram_done(w, pkt, &dg);
	mk_defrag_datagram_free(&dg);
}

/* ---- stream ------------------------------------------------------------ */

static struct mk_flow *flow_of_session(struct mk_tcp_session *ssn)
{
	return (struct mk_flow *)((char *)ssn - offsetof(struct mk_flow, tcp));
}

/*
 * --dump-streams: pwrite() at each released chunk's stream offset makes the
 * file the reassembled byte stream whatever the release order. Files are
 * DIR/<flow_id>.toserver and DIR/<flow_id>.toclient. Debug only: one
 * open/close per chunk.
 */
static void stream_cb_data(void *user, struct mk_tcp_session *ssn, const struct mk_stream_chunk *c)
{
	struct mk_worker *w = user;
	char path[4096];
	int fd;

	struct mk_flow *f = flow_of_session(ssn);

	/* the application layer first: rules on this data may need its protocol */
	if (w->detect)
		mk_detect_stream_app(w->detect, f, c);
	mk_app_stream(w->app, f,
		      (c->dir ^ f->first_to_client ^ mk_tcp_session_swapped(&f->tcp)) & 1, c->data,
		      c->len, c->gap, f->last_us);
	if (w->detect)
		mk_detect_stream(w->detect, f, c);
	if (!w->cfg.dump_streams || !c->len)
		return;
	snprintf(path, sizeof(path), "%s/%llu.%s", w->cfg.dump_streams,
		 (unsigned long long)flow_of_session(ssn)->flow_id,
		 c->dir == MK_STREAM_TO_CLIENT ? "toclient" : "toserver");
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if ((fd < 0 || pwrite(fd, c->data, c->len, (off_t)c->offset) != (ssize_t)c->len) && !w->err)
		w->err = -errno;
	if (fd >= 0)
		close(fd);
}

/*
 * TCP segments go to this worker's stream engine with the flow's embedded
 * session. seg.dir is relative to the flow's first packet, as the engine
 * wants; a bad checksum is passed as csum_ok = 0 so the segment is tracked
 * but never reassembled. Returns 1 when the engine saw port reuse.
 */
static int worker_stream(struct mk_worker *w, struct mk_flow *f, int to_client,
			 const struct mk_pkt *pkt, int bad_csum)
{
	const struct mk_parse *p = pkt->parse;
	uint32_t l4 = (uint32_t)(p->l3.l4_off - p->l3.l3_off);
	uint32_t end = p->l3.ip_len < pkt->ip_caplen ? p->l3.ip_len : pkt->ip_caplen;
	struct mk_tcp_seg seg;

	if (f->pkts[0] + f->pkts[1] == 1)
		mk_tcp_session_init(&f->tcp);
	if (end <= l4 || mk_tcp_seg_parse(&seg, pkt->ip + l4, end - l4)) {
		w->cnt[MK_WORKER_TCP_MALFORMED]++;
		return 0;
	}
	seg.dir = (uint8_t)(to_client ^ f->first_to_client);
	seg.csum_ok = !bad_csum;
	return mk_stream_packet(w->stream, &f->tcp, &seg, pkt->ts_us * 1000) == MK_STREAM_REUSE;
}

/* ---- detection ----------------------------------------------------------- */

/*
 * Inspection of a packet or a flow end runs between worker_detect_begin()
 * and worker_detect_end(); the stream engine's chunks released in between
 * are inspected as they come (stream_cb_data). The alerts become records.
 */
static void worker_detect_begin(struct mk_worker *w, const struct mk_pkt *pkt, struct mk_flow *f,
				int to_client)
{
	struct mk_detect_pkt dp = { .flow = f, .to_client = to_client };

	/* before the stream engine sees the packet: the state it left the flow in */
	if (f->proto_class == MK_FLOW_PROTO_TCP)
		dp.flow_established = mk_tcp_state_established(mk_tcp_session_state(&f->tcp));

	if (pkt) {
		dp.parse = pkt->parse;
		dp.ip = pkt->ip;
		dp.ip_caplen = pkt->ip_caplen;
		dp.ts_us = pkt->ts_us;
	} else {
		dp.ts_us = f->last_us; /* a flow end: its last packet's time */
	}
	w->detect_flow = f;
	mk_detect_begin(w->detect, &dp);
}

/* ---- application layer --------------------------------------------------- */

static void worker_app_tx(void *ctx, struct mk_flow *f, const struct mk_detect_tx *tx)
{
	struct mk_worker *w = ctx;

	if (w->detect)
		mk_detect_tx(w->detect, f, tx);
}

/* A finished HTTP transaction: its `http` record, at the flow's latest packet time. */
static void worker_http_log(void *ctx, struct mk_flow *f, uint64_t tx_id,
			    const struct mk_eve_http *h)
{
	struct mk_worker *w = ctx;
	size_t need = mk_eve_http_maxlen(h) + MK_EVE_LINE_MAX;
	char *line = malloc(need);
	int n, err;

	if (!w->cfg.log_http)
		goto out;
	n = line ? mk_eve_http(line, need, &w->cfg.eve, f, f->last_us, tx_id, h) : -ENOMEM;
	err = n < 0 ? n : w->ops->record(w->ops_ctx, f, f->last_us, line, (size_t)n);
	if (err) {
		w->cnt[MK_WORKER_EVE_LOST]++;
		if (!w->err)
			w->err = err;
	}
out:
	free(line);
}

/* A DNS message: its `dns` record(s), one per question of a query, at the flow's latest time. */
static void worker_dns_log(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_dns_msg *m)
{
	struct mk_worker *w = ctx;
	size_t need = mk_eve_dns_maxlen(m) + MK_EVE_LINE_MAX;
	unsigned int q = 0, nrec = m->flags & MK_DNS_QR || !m->nq ? 1 : m->nq;
	char *line;
	int n, err;

	if (!w->cfg.log_dns)
		return;
	line = malloc(need);
	for (q = 0; q < nrec; q++) {
		n = line ? mk_eve_dns(line, need, &w->cfg.eve, f, f->last_us, m, q, tx_id) :
			   -ENOMEM;
		err = n < 0 ? n : w->ops->record(w->ops_ctx, f, f->last_us, line, (size_t)n);
		if (err) {
			w->cnt[MK_WORKER_EVE_LOST]++;
			if (!w->err)
				w->err = err;
		}
	}
	free(line);
}

/* A TLS session: its `tls` record, at the flow's latest packet time. */
static void worker_tls_log(void *ctx, struct mk_flow *f, const struct mk_tls_info *t)
{
	struct mk_worker *w = ctx;
	size_t need = mk_eve_tls_maxlen(t) + MK_EVE_LINE_MAX;
	char *line;
	int n, err;

	if (!w->cfg.log_tls)
		return;
	line = malloc(need);
	n = line ? mk_eve_tls(line, need, &w->cfg.eve, f, f->last_us, t) : -ENOMEM;
	err = n < 0 ? n : w->ops->record(w->ops_ctx, f, f->last_us, line, (size_t)n);
	if (err) {
		w->cnt[MK_WORKER_EVE_LOST]++;
		if (!w->err)
			w->err = err;
	}
	free(line);
}

/* An application protocol's record (output/eve_app.h), at the flow's latest packet time. */
static void worker_app_record(struct mk_worker *w, struct mk_flow *f, const char *type,
			      int64_t tx_id, size_t maxlen, mk_eve_app_object_fn object,
			      const void *facts)
{
	size_t need = maxlen + MK_EVE_LINE_MAX;
	char *line = malloc(need);
	int n, err;

	n = line ? mk_eve_app_record(line, need, &w->cfg.eve, f, f->last_us, type, tx_id, object,
				     facts) :
		   -ENOMEM;
	err = n < 0 ? n : w->ops->record(w->ops_ctx, f, f->last_us, line, (size_t)n);
	if (err) {
		w->cnt[MK_WORKER_EVE_LOST]++;
		if (!w->err)
			w->err = err;
	}
	free(line);
}

static void worker_ssh_log(void *ctx, struct mk_flow *f, const struct mk_ssh_info *s)
{
	struct mk_worker *w = ctx;

	if (w->cfg.log_app_types & MK_EVE_TYPE_SSH)
		worker_app_record(w, f, "ssh", -1, mk_eve_ssh_maxlen(s), mk_eve_ssh_object, s);
}

static void worker_smtp_log(void *ctx, struct mk_flow *f, uint64_t tx_id,
			    const struct mk_smtp_tx *t)
{
	struct mk_worker *w = ctx;

	if (w->cfg.log_app_types & MK_EVE_TYPE_SMTP)
		worker_app_record(w, f, "smtp", (int64_t)tx_id, mk_eve_smtp_maxlen(t),
				  mk_eve_smtp_object, t);
}

static void worker_ftp_log(void *ctx, struct mk_flow *f, uint64_t tx_id, const struct mk_ftp_tx *t)
{
	struct mk_worker *w = ctx;

	if (w->cfg.log_app_types & MK_EVE_TYPE_FTP)
		worker_app_record(w, f, "ftp", (int64_t)tx_id, mk_eve_ftp_maxlen(t),
				  mk_eve_ftp_object, t);
}

static void worker_ftp_data_log(void *ctx, struct mk_flow *f, const struct mk_ftp_data_info *d)
{
	struct mk_worker *w = ctx;

	if (w->cfg.log_app_types & MK_EVE_TYPE_FTP)
		worker_app_record(w, f, "ftp_data", -1, MK_EVE_FTP_DATA_MAXLEN,
				  mk_eve_ftp_data_object, d);
}

/* A file of a finished HTTP transaction or an SMTP attachment (@h NULL): its `fileinfo` record. */
static void worker_file_log(void *ctx, struct mk_flow *f, const struct mk_eve_http *h,
			    const struct mk_eve_fileinfo *file)
{
	struct mk_worker *w = ctx;
	size_t need = mk_eve_fileinfo_maxlen(h, file);
	char *line;
	int n, err;

	if (!w->cfg.log_files)
		return;
	line = malloc(need);
	n = line ? mk_eve_fileinfo(line, need, &w->cfg.eve, f, f->last_us, h, file) : -ENOMEM;
	err = n < 0 ? n : w->ops->record(w->ops_ctx, f, f->last_us, line, (size_t)n);
	if (err) {
		w->cnt[MK_WORKER_EVE_LOST]++;
		if (!w->err)
			w->err = err;
	}
	free(line);
}

static void worker_detect_end(struct mk_worker *w)
{
	const struct mk_detect_alert *a;
	unsigned int n = mk_detect_end(w->detect, &a), i;

	if (!w->cfg.log_alerts)
		n = 0; /* outputs.eve-log.types without alert; the flow is still marked */
	for (i = 0; i < n; i++) {
		struct mk_eve_alert_opts o = w->cfg.alert_opts;
		struct mk_eve_http http;
		size_t need;

		/* the flow's application protocol, the transaction's facts */
		if (w->detect_flow)
			o.app_proto = mk_app_proto_name(w->detect_flow->app_proto);
		if (a[i].has_tx)
			mk_app_tx_eve(a[i].app_proto, a[i].app_tx, &http, &o);
		need = mk_eve_alert_maxlen(&a[i], &o);
		struct mk_detect_thresh_key key;
		int has_key = mk_detect_alert_thresh_key(&a[i], &key), len, err;

		if (need > w->alert_cap) {
			char *l = realloc(w->alert_line, need);

			if (!l) {
				w->cnt[MK_WORKER_EVE_LOST]++;
				continue;
			}
			w->alert_line = l;
			w->alert_cap = need;
		}
		len = mk_eve_alert(w->alert_line, w->alert_cap, &a[i], &o);
		if (len < 0)
			err = len;
		else if (w->ops->alert)
			err = w->ops->alert(w->ops_ctx, w->detect_flow, a[i].ts_us, w->alert_line,
					    (size_t)len, has_key ? &key : NULL);
		else
			err = w->ops->record(w->ops_ctx, w->detect_flow, a[i].ts_us, w->alert_line,
					     (size_t)len);
		if (err) {
			w->cnt[MK_WORKER_EVE_LOST]++;
			if (!w->err)
				w->err = err;
		} else if (w->ops->advise) {
			w->ops->advise(w->ops_ctx, &a[i]);
		}
	}
	w->detect_flow = NULL;
}

/* A packet a rule's tag covers: its EVE packet record (types.alert.tagged-packets: yes). */
static void worker_tagged_log(struct mk_worker *w, const struct mk_flow *f,
			      const struct mk_pkt *pkt)
{
	size_t need = mk_eve_packet_maxlen(pkt->ip_caplen);
	int n;

	if (need > w->alert_cap) {
		char *l = realloc(w->alert_line, need);

		if (!l) {
			w->cnt[MK_WORKER_EVE_LOST]++;
			return;
		}
		w->alert_line = l;
		w->alert_cap = need;
	}
	n = mk_eve_packet(w->alert_line, w->alert_cap, &w->cfg.eve, f, pkt->ts_us, pkt->ip,
			  pkt->ip_caplen);
	if (n < 0 || w->ops->record(w->ops_ctx, f, pkt->ts_us, w->alert_line, (size_t)n))
		w->cnt[MK_WORKER_EVE_LOST]++;
	else
		w->cnt[MK_WORKER_PACKET_RECORDS]++;
}

/* ---- flow -------------------------------------------------------------- */

/*
 * A TCP flow's state follows its session, as Suricata's does: closed only
 * when the stream engine closed the session (a validated RST, both FINs), and
 * open again if the engine resumes it. Without a session (no handshake seen,
 * midstream off) the table's own new/established rule stands.
 */
static void worker_tcp_flow_state(struct mk_worker *w, struct mk_flow *f)
{
	int st = mk_tcp_session_state(&f->tcp);

	if (st == MK_TCP_NONE)
		return;
	mk_flow_set_state(&w->flows, f,
			  mk_tcp_state_closing(st) ? MK_FLOW_STATE_CLOSED :
			  st == MK_TCP_SYN_SENT || st == MK_TCP_SYN_RECV ?
						     MK_FLOW_STATE_NEW :
						     MK_FLOW_STATE_ESTABLISHED);
}

static void worker_flow_end(void *ctx, struct mk_flow *f, enum mk_flow_reason reason,
			    uint64_t ts_us)
{
	struct mk_worker *w = ctx;
	char line[MK_EVE_LINE_MAX];
	int n, err, unreplied = !f->pkts[0] || !f->pkts[1];

	/* inline: a blocked flow that ended (timed out: the driver dropped all) is forgotten there */
	if (f->ips_drop && w->ops->block)
		w->ops->block(w->ops_ctx, f, 0);
	/* what the stream engine still holds is inspected at the flow's last packet time */
	if (w->detect)
		worker_detect_begin(w, NULL, f, 0);
	if (f->proto_class == MK_FLOW_PROTO_TCP) {
		mk_stream_flow_end(w->stream, &f->tcp);
		mk_tcp_session_free(w->stream, &f->tcp);
	}
	mk_app_flow_end(w->app, f, f->last_us);
	if (w->detect) {
		worker_detect_end(w);
		mk_detect_flow_free(w->detect, f);
	}
	mk_app_flow_free(w->app, f);
	/* packets one way only: what floods, scans and backscatter leave behind */
	if (unreplied)
		w->cnt[MK_WORKER_FLOW_UNREPLIED]++;
	if (!w->cfg.log_flows)
		return;
	/* a flow that raised an alert keeps its full record whatever the setting */
	if (f->alerted)
		unreplied = 0;
	if (unreplied && w->unreplied == MK_EVE_UNREPLIED_NONE) {
		w->cnt[MK_WORKER_FLOW_UNREPLIED_UNLOGGED]++;
		return;
	}
	if (unreplied && w->unreplied == MK_EVE_UNREPLIED_COMPACT) {
		w->cnt[MK_WORKER_FLOW_UNREPLIED_COMPACT]++;
		n = mk_eve_flow_compact(line, sizeof(line), &w->cfg.eve, f, reason, ts_us);
	} else {
		n = mk_eve_flow(line, sizeof(line), &w->cfg.eve, f, reason, ts_us);
	}
	err = n < 0 ? n : w->ops->record(w->ops_ctx, f, ts_us, line, (size_t)n);
	if (err) {
		w->cnt[MK_WORKER_EVE_LOST]++;
		if (!w->err)
			w->err = err;
		return;
	}
	w->flows_logged++;
}

/*
 * What the decoder must reject before anything tracks the packet (Suricata's
 * decoder events *_PKT_TOO_SMALL / *_HLEN_TOO_SMALL): lengths that lie
 * beyond the packet. "The packet" is what was on the wire, so a frame cut by
 * a capture's snap length is still tracked with what was captured. Returns
 * 0, or the decode_* counter that rejects it.
 */
static int worker_decode_check(const struct mk_pkt *pkt)
{
	const struct mk_parse *p = pkt->parse;
	uint32_t wire = pkt->ip_wirelen > pkt->ip_caplen ? pkt->ip_wirelen : pkt->ip_caplen;
	uint32_t l4, plen, hlen, ulen;
	const uint8_t *h;

	if (p->l3.ip_len > wire)
		return MK_WORKER_DECODE_IP_LEN;
	if (!p->l3.l4_off || p->l3.frag != MK_FRAG_NONE)
		return 0;
	l4 = (uint32_t)(p->l3.l4_off - p->l3.l3_off);
	if (l4 > p->l3.ip_len)
		return MK_WORKER_DECODE_IP_LEN; /* IPv6 extension headers past the payload */
	plen = p->l3.ip_len - l4;
	h = pkt->ip + l4; /* the parser checked each header's bytes are captured */
	switch (p->l3.proto) {
	case MK_IPPROTO_TCP:
		if (plen < 20)
			return MK_WORKER_DECODE_L4_SHORT;
		hlen = (uint32_t)(h[12] >> 4) * 4;
		if (hlen > plen)
			return MK_WORKER_DECODE_TCP_HLEN;
		break;
	case MK_IPPROTO_UDP:
		if (plen < 8)
			return MK_WORKER_DECODE_L4_SHORT;
		ulen = mk_rd16(h + 4);
		if (ulen < 8 || ulen > plen)
			return MK_WORKER_DECODE_UDP_LEN;
		break;
	case MK_IPPROTO_SCTP:
		if (plen < 12)
			return MK_WORKER_DECODE_L4_SHORT;
		break;
	case MK_IPPROTO_ICMP:
	case MK_IPPROTO_ICMPV6:
		if (plen < 4 || (p->l3.sport && plen < 8)) /* echo: the identifier is keyed */
			return MK_WORKER_DECODE_L4_SHORT;
		break;
	default:
		break;
	}
	return 0;
}

uint32_t mk_worker_steer_hash(const struct mk_parse *p, const uint8_t *ip, uint32_t ip_caplen,
			      uint32_t seed)
{
	struct mk_icmp_quote q;

	if ((p->l3.proto == MK_IPPROTO_ICMP || p->l3.proto == MK_IPPROTO_ICMPV6) &&
	    mk_icmp_error_quote(p, ip, ip_caplen, seed, &q))
		return q.hash;
	return p->hash;
}

/*
 * An ICMP error goes to the flow it quotes, in the direction of that flow
 * back to the sender of the quoted packet; returns 1 when it did. When the
 * quoted flow is not tracked here, the error forms an ICMP flow of its own,
 * one per quoted flow: @own gets a key whose (invisible) ports hold the
 * quoted flow's hash, never equal to each other, so it cannot meet an echo
 * flow (identifier in both ports) or a plain ICMP flow (ports 0). That keeps
 * the records the same whatever the number of workers, since errors quoting
 * one flow always go to the same worker. @rel, @rel_to_client: the quoted
 * flow and the error's direction in it, when it returns 1.
 */
static int worker_icmp_error(struct mk_worker *w, const struct mk_pkt *pkt,
			     const struct mk_flow_pkt *fp, struct mk_parse *own, int is_frame,
			     struct mk_flow **rel, int *rel_to_client)
{
	const struct mk_parse *p = pkt->parse;
	struct mk_icmp_quote q;
	struct mk_flow *f;
	uint16_t a, b;

	if (!mk_icmp_error_quote(p, pkt->ip, pkt->ip_caplen, w->pcfg.seed, &q))
		return 0;
	f = mk_flow_lookup(&w->flows, &q.key, q.hash);
	if (f) {
		/* the quoted packet came from its client: the error travels to the client */
		mk_flow_account_related(&w->flows, f, fp, q.from_hi == f->client_hi);
		*rel = f;
		*rel_to_client = q.from_hi == f->client_hi;
		w->cnt[MK_WORKER_ICMP_ERR_QUOTED]++;
		w->cnt[is_frame ? MK_WORKER_FLOW_PKT : MK_WORKER_DGRAM_FLOW]++;
		return 1;
	}
	w->cnt[MK_WORKER_ICMP_ERR_OWN]++;
	*own = *p;
	a = (uint16_t)q.hash;
	b = (uint16_t)(q.hash >> 16);
	if (a == b)
		b ^= 1;
	own->flags &= (uint16_t)~MK_META_F_REVERSE;
	if (mk_flow_key_set_endpoints(&own->key, p->l3.src, a, p->l3.dst, b))
		own->flags |= MK_META_F_REVERSE;
	own->hash = mk_flow_hash(&own->key, w->pcfg.seed);
	return 2;
}

/* ---- bypass ------------------------------------------------------------- */

/*
 * Flow @f stops being inspected (docs/bypass.md). What the stream engine
 * still holds is inspected now, nothing of the flow will be later. With a
 * driver (ops.bypass) the flow goes to the bypass manager and waits in state
 * bypassed for its entry to expire; without one, or when the request cannot
 * be queued, the worker skips the flow's packets itself (local bypass).
 */
_Static_assert(MK_WORKER_BYPASS_ENCRYPTED - MK_WORKER_BYPASS_DEPTH == MK_FLOW_BYPASS_WHY_ENCRYPTED,
	       "one bypass counter per reason, in the reasons' order");

static void worker_bypass_start(struct mk_worker *w, struct mk_flow *f, enum mk_flow_bypass_why why)
{
	f->bypassed = 1;
	f->bypass_why = (uint8_t)why;
	w->cnt[MK_WORKER_BYPASS_DEPTH + why]++;
	if (f->proto_class == MK_FLOW_PROTO_TCP) {
		if (w->detect)
			worker_detect_begin(w, NULL, f, 0);
		mk_stream_flow_end(w->stream, &f->tcp);
		if (w->detect)
			worker_detect_end(w);
	}
	if (w->ops->bypass) {
		if (!w->ops->bypass(w->ops_ctx, f)) {
			f->bypass = MK_FLOW_BYPASS_CAPTURE;
			mk_flow_set_state(&w->flows, f, MK_FLOW_STATE_BYPASSED);
			w->cnt[MK_WORKER_BYPASS_CAPTURE]++;
			return;
		}
		w->cnt[MK_WORKER_BYPASS_QUEUE_FULL]++;
	}
	f->bypass = MK_FLOW_BYPASS_LOCAL;
	w->cnt[MK_WORKER_BYPASS_LOCAL]++;
}

/* After a packet's inspection: does one of the triggers bypass its flow? */
static void worker_bypass_check(struct mk_worker *w, struct mk_flow *f, unsigned int verdict)
{
	const struct mk_bypass_cfg *c = &w->bcfg;

	if (f->bypass)
		return;
	if (f->bypassed) /* a rule with `bypass` marked it */
		worker_bypass_start(w, f, MK_FLOW_BYPASS_WHY_RULE);
	else if (c->pass_bypass && (verdict & MK_DETECT_V_PASS))
		worker_bypass_start(w, f, MK_FLOW_BYPASS_WHY_PASS);
	else if (f->app_bypass)
		worker_bypass_start(w, f, MK_FLOW_BYPASS_WHY_ENCRYPTED);
	else if (c->stream_bypass && f->proto_class == MK_FLOW_PROTO_TCP &&
		 mk_tcp_session_bypass_ready(&f->tcp))
		worker_bypass_start(w, f, MK_FLOW_BYPASS_WHY_DEPTH);
	else if ((c->flow_bytes && f->bytes[0] + f->bytes[1] >= c->flow_bytes) ||
		 (c->flow_packets && f->pkts[0] + f->pkts[1] >= c->flow_packets))
		worker_bypass_start(w, f, MK_FLOW_BYPASS_WHY_SIZE);
}

/*
 * A packet of a bypassed flow: accounted (done), then skipped. A TCP flow
 * still closes on a RST or both FINs, as the stream engine would have
 * said, so that it does not wait for the established timeout.
 */
static void worker_bypass_skip(struct mk_worker *w, struct mk_flow *f, int is_frame)
{
	w->cnt[is_frame ? MK_WORKER_BYPASS_SKIPPED : MK_WORKER_BYPASS_DGRAM]++;
	if (f->proto_class == MK_FLOW_PROTO_TCP && f->state != MK_FLOW_STATE_BYPASSED &&
	    (f->rst_seen || f->fin_seen == 3))
		mk_flow_set_state(&w->flows, f, MK_FLOW_STATE_CLOSED);
}

void mk_worker_bypass_news(struct mk_worker *w, const struct mk_worker_bypass_msg *m)
{
	struct mk_flow *f = mk_flow_lookup(&w->flows, &m->key, mk_flow_hash(&m->key, w->pcfg.seed));
	int ts;

	if (!f || f->flow_id != m->flow_id || f->bypass != MK_FLOW_BYPASS_CAPTURE)
		return;
	if (m->news == MK_BYPASS_NEWS_FAILED) {
		f->bypass = MK_FLOW_BYPASS_LOCAL;
		mk_flow_set_state(&w->flows, f, MK_FLOW_STATE_ESTABLISHED);
		w->cnt[MK_WORKER_BYPASS_FALLBACK]++;
		return;
	}
	/* the driver counts by the key's direction; to the server is from the client */
	ts = f->client_hi ? 1 : 0;
	f->bypass_pkts[0] = m->pkts[ts];
	f->bypass_pkts[1] = m->pkts[!ts];
	f->bypass_bytes[0] = m->bytes[ts];
	f->bypass_bytes[1] = m->bytes[!ts];
	if (m->last_us > f->last_us)
		f->last_us = m->last_us;
	switch (m->news) {
	case MK_BYPASS_NEWS_EXPIRED:
		f->bypass_end = MK_FLOW_BYPASS_END_EXPIRED;
		w->cnt[MK_WORKER_BYPASS_EXPIRED]++;
		mk_flow_table_end(&w->flows, f, MK_FLOW_END_TIMEOUT, w->flows.now_us);
		break;
	case MK_BYPASS_NEWS_EVICTED:
		f->bypass_end = MK_FLOW_BYPASS_END_EVICTED;
		w->cnt[MK_WORKER_BYPASS_EVICTED]++;
		mk_flow_table_end(&w->flows, f, MK_FLOW_END_TIMEOUT, w->flows.now_us);
		break;
	case MK_BYPASS_NEWS_DELETED:
		f->bypass_end = MK_FLOW_BYPASS_END_DELETED;
		w->cnt[MK_WORKER_BYPASS_DELETED]++;
		mk_flow_table_end(&w->flows, f, MK_FLOW_END_FORCED, w->flows.now_us);
		break;
	default: /* FINAL: the counts so far, the flush ends the flow */
		break;
	}
}

/*
 * Inline: a drop (or reject) rule matched (detect only says so in inline
 * mode). The frame is dropped, and so is every later frame of the flow: by
 * the driver once the bypass manager put the flow in its drop map, by the
 * worker until then. The flow is never bypassed (a bypassed flow would be
 * forwarded).
 */
static void worker_block(struct mk_worker *w, struct mk_flow *f, unsigned int verdict,
			 const struct mk_pkt *pkt)
{
	char line[MK_EVE_LINE_MAX];
	int n;

	/* the EVE drop record of the frame that blocked the flow (Suricata's drop.flows: start) */
	if (w->cfg.log_alerts) {
		n = mk_eve_drop(line, sizeof(line), &w->cfg.eve, f, pkt->ts_us, pkt->parse, pkt->ip,
				pkt->ip_caplen);
		if (n < 0 || w->ops->record(w->ops_ctx, f, pkt->ts_us, line, (size_t)n))
			w->cnt[MK_WORKER_EVE_LOST]++;
	}
	f->ips_drop = verdict & MK_DETECT_V_REJECT ? 2 : 1;
	w->verdict = verdict & MK_DETECT_V_REJECT ? MK_VERDICT_REJECT : MK_VERDICT_DROP;
	w->reject_dirs = (verdict & MK_DETECT_V_REJECT_SRC ? 1 : 0) |
			 (verdict & MK_DETECT_V_REJECT_DST ? 2 : 0);
	w->cnt[MK_WORKER_IPS_BLOCKED]++;
	if (w->ops->block)
		w->ops->block(w->ops_ctx, f, 1); /* a full queue: the worker drops them itself */
	mk_app_packet_end(w->app);
}

static void worker_flow_packet(struct mk_worker *w, const struct mk_pkt *pkt, int is_frame)
{
	const struct mk_parse *p = pkt->parse;
	const uint8_t *ip = pkt->ip;
	uint32_t l4 = p->l3.l4_off ? (uint32_t)(p->l3.l4_off - p->l3.l3_off) : 0;
	struct mk_flow_pkt fp = { .ts_us = pkt->ts_us, .len = MK_ETH_HLEN + pkt->ip_caplen };
	struct mk_parse own;
	struct mk_flow *f;
	int bad = 0, to_client, why, icmp;
	unsigned int verdict = 0;

	why = worker_decode_check(pkt);
	if (why) {
		w->cnt[why]++;
		w->cnt[is_frame ? MK_WORKER_DECODE_ERROR : MK_WORKER_DGRAM_BAD]++;
		w->verdict = MK_VERDICT_UNPARSABLE;
		return;
	}
	if (w->cfg.checksum)
		bad = worker_checksums(w, p, ip, pkt->ip_caplen);
	/* the parser checked the L4 header bytes are there; all eight flag bits count */
	if (l4 && p->l3.proto == MK_IPPROTO_TCP)
		fp.tcp_flags = ip[l4 + 13];
	else if (l4 && (p->l3.proto == MK_IPPROTO_ICMP || p->l3.proto == MK_IPPROTO_ICMPV6)) {
		fp.icmp_type = ip[l4];
		fp.icmp_code = ip[l4 + 1];
		icmp = worker_icmp_error(w, pkt, &fp, &own, is_frame, &f, &to_client);
		if (icmp == 1) {
			/* rules see the error as a packet of the flow it quotes, as in Suricata */
			if (w->detect) {
				worker_detect_begin(w, pkt, f, to_client);
				mk_detect_packet(w->detect);
				worker_detect_end(w);
			}
			return;
		}
		if (icmp == 2)
			p = &own;
	}
	f = mk_flow_handle(&w->flows, p, &fp, &to_client);
	if (!f) {
		w->cnt[is_frame ? MK_WORKER_NO_FLOW : MK_WORKER_DGRAM_NO_FLOW]++;
		w->verdict = MK_VERDICT_NO_FLOW;
		return;
	}
	w->cnt[is_frame ? MK_WORKER_FLOW_PKT : MK_WORKER_DGRAM_FLOW]++;
	if (f->ips_drop) {
		/* blocked: the frames the driver let through before its entry took effect */
		w->cnt[MK_WORKER_IPS_BLOCKED_PKT]++;
		w->verdict = MK_VERDICT_DROP;
		return;
	}
	if (f->bypass) {
		worker_bypass_skip(w, f, is_frame);
		return;
	}
	if (w->detect)
		worker_detect_begin(w, pkt, f, to_client);
	if (p->l3.proto == MK_IPPROTO_TCP && l4) {
		if (worker_stream(w, f, to_client, pkt, bad)) {
			/* TCP port reuse (the stream engine decides it): this packet opens a new flow */
			w->cnt[MK_WORKER_TCP_REUSE]++;
			mk_flow_unaccount(&w->flows, f, &fp, to_client);
			if (w->detect)
				worker_detect_end(w); /* before the flow end inspects its own */
			mk_flow_table_end(&w->flows, f, MK_FLOW_END_TCP_REUSE, pkt->ts_us);
			f = mk_flow_handle(&w->flows, p, &fp, &to_client);
			if (!f)
				return;
			if (w->detect)
				worker_detect_begin(w, pkt, f, to_client);
			worker_stream(w, f, to_client, pkt, bad);
		}
		worker_tcp_flow_state(w, f);
	}
	if (p->l3.proto == MK_IPPROTO_UDP && l4 && pkt->ip_caplen >= l4 + 8)
		mk_app_udp(w->app, f, to_client, ip + l4 + 8, pkt->ip_caplen - l4 - 8, pkt->ts_us);
	/* as Suricata: the stream first, then the packet's own rules */
	if (w->detect) {
		mk_detect_packet(w->detect);
		worker_detect_end(w);
		verdict = mk_detect_verdict(w->detect);
		if ((verdict & MK_DETECT_V_TAGGED) && w->cfg.alert_opts.tagged_packets &&
		    w->cfg.log_alerts)
			worker_tagged_log(w, f, pkt);
	}
	if (verdict & MK_DETECT_V_DROP) {
		worker_block(w, f, verdict, pkt);
		return;
	}
	worker_bypass_check(w, f, verdict);
	mk_app_packet_end(w->app);
}

/* ---- the worker's interface -------------------------------------------- */

int mk_worker_init(struct mk_worker *w, const struct mk_worker_cfg *cfg,
		   const struct mk_worker_ops *ops, void *ops_ctx)
{
	static const struct mk_stream_cbs cbs = { .data = stream_cb_data };
	static const struct mk_app_ops app_ops = { .tx = worker_app_tx,
						   .http_log = worker_http_log,
						   .dns_log = worker_dns_log,
						   .tls_log = worker_tls_log,
						   .ssh_log = worker_ssh_log,
						   .smtp_log = worker_smtp_log,
						   .ftp_log = worker_ftp_log,
						   .ftp_data_log = worker_ftp_data_log,
						   .file_log = worker_file_log };
	struct mk_defrag_config dcfg = *cfg->defrag;
	int err;

	memset(w, 0, sizeof(*w));
	w->cfg = *cfg;
	if (cfg->bypass)
		w->bcfg = *cfg->bypass;
	else
		mk_bypass_cfg_defaults(&w->bcfg);
	w->cfg.alert_opts.in_iface = cfg->eve.in_iface;
	w->cfg.alert_opts.community_id = cfg->eve.community_id;
	w->cfg.alert_opts.community_id_seed = cfg->eve.community_id_seed;
	w->ops = ops;
	w->ops_ctx = ops_ctx;
	w->pcfg = *cfg->parse;
	w->pcfg.seed = cfg->seed;
	w->unreplied = cfg->unreplied;
	err = mk_flow_table_init(&w->flows, cfg->flow, cfg->seed, worker_flow_end, w);
	if (err)
		goto fail;
	w->flows.stream_owns_tcp = 1;
	w->stream = mk_stream_engine_new(cfg->stream);
	if (!w->stream) {
		err = -errno ?: -ENOMEM;
		goto fail;
	}
	mk_stream_set_callbacks(w->stream, &cbs, w);
	dcfg.seed = cfg->seed;
	err = mk_defrag_create(&dcfg, &w->defrag);
	if (err)
		goto fail;
	if (cfg->detect) {
		err = mk_detect_thread_new(cfg->detect, &w->detect);
		if (err)
			goto fail;
	}
	err = mk_app_thread_new(cfg->app, &app_ops, w, &w->app);
	if (err)
		goto fail;
	mk_app_set_files_logged(w->app, cfg->log_files);
	return 0;
fail:
	mk_err("worker %u: %s", cfg->id, strerror(-err));
	return err;
}

void mk_worker_free(struct mk_worker *w)
{
	mk_flow_table_free(&w->flows);
	if (w->stream)
		mk_stream_engine_free(w->stream);
	w->stream = NULL;
	if (w->defrag)
		mk_defrag_destroy(w->defrag);
	w->defrag = NULL;
	mk_detect_thread_free(w->detect);
	w->detect = NULL;
	mk_app_thread_free(w->app);
	w->app = NULL;
	free(w->alert_line);
	w->alert_line = NULL;
}

void mk_worker_reconfigure(struct mk_worker *w, const struct mk_worker_reload *r)
{
	/* the flow lists are per (protocol, state): a new timeout keeps them in expiry order */
	memcpy(w->flows.cfg.timeout, r->flow->timeout, sizeof(w->flows.cfg.timeout));
	memcpy(w->flows.cfg.emerg_timeout, r->flow->emerg_timeout,
	       sizeof(w->flows.cfg.emerg_timeout));
	w->flows.cfg.emergency_recovery = r->flow->emergency_recovery;
	w->bcfg = *r->bypass;
	w->cfg.log_flows = r->log_flows;
	w->cfg.log_alerts = r->log_alerts;
	w->cfg.log_http = r->log_http;
	w->cfg.log_dns = r->log_dns;
	w->cfg.log_tls = r->log_tls;
	w->cfg.log_files = r->log_files;
	w->cfg.log_app_types = r->log_app_types;
	mk_app_set_files_logged(w->app, r->log_files);
	w->unreplied = r->unreplied;
	w->cfg.alert_opts.payload = r->payload;
	w->cfg.alert_opts.payload_printable = r->payload_printable;
	w->cfg.alert_opts.tagged_packets = r->tagged_packets;
}

void mk_worker_packet(struct mk_worker *w, const struct mk_pkt *pkt)
{
	uint32_t wire = pkt->ip_wirelen > pkt->ip_caplen ? pkt->ip_wirelen : pkt->ip_caplen;

	w->cnt[MK_WORKER_RX]++;
	w->verdict = MK_VERDICT_FORWARD;
	mk_flow_prefetch(&w->flows, pkt->parse->hash);
	/* a fragment whose IP length lies beyond the frame is no fragment to hold either */
	if (pkt->parse->l3.ip_len > wire) {
		w->cnt[MK_WORKER_DECODE_IP_LEN]++;
		w->cnt[MK_WORKER_DECODE_ERROR]++;
		w->verdict = MK_VERDICT_UNPARSABLE;
		return;
	}
	if (pkt->parse->flags & MK_META_F_FRAGMENT)
		worker_defrag(w, pkt);
	else
		worker_flow_packet(w, pkt, 1);
}

void mk_worker_datagram(struct mk_worker *w, const struct mk_pkt *pkt)
{
	worker_flow_packet(w, pkt, 0);
}

void mk_worker_tick(struct mk_worker *w, uint64_t now_us)
{
	mk_flow_table_tick(&w->flows, now_us);
	mk_defrag_expire(w->defrag, now_us * 1000);
}

void mk_worker_advance(struct mk_worker *w, uint64_t now_us)
{
	mk_flow_table_advance(&w->flows, now_us);
}

void mk_worker_finish(struct mk_worker *w)
{
	mk_flow_table_flush(&w->flows);
}

/* ---- statistics -------------------------------------------------------- */

void mk_worker_stats_add(struct mk_worker_stats *sum, const struct mk_worker *w)
{
	struct mk_defrag_stats ds;
	int i;

	for (i = 0; i < MK_WORKER_CNT_MAX; i++)
		sum->cnt[i] += w->cnt[i];
	for (i = 0; i < MK_FLOW_CNT_MAX; i++)
		sum->flow_cnt[i] += w->flows.cnt[i];
	/* a gauge: the deepest chain, not a sum */
	if (w->flows.chain_max > sum->flow_chain_max)
		sum->flow_chain_max = w->flows.chain_max;
	sum->flows_logged += w->flows_logged;
	mk_stream_stats_add(&sum->stream, mk_stream_engine_stats(w->stream));
	mk_defrag_get_stats(w->defrag, &ds);
	mk_defrag_stats_add(&sum->defrag, &ds);
	if (w->detect) {
		const uint64_t *d = mk_detect_thread_counters(w->detect);

		for (i = 0; i < MK_DETECT_CNT_MAX; i++)
			sum->detect[i] += d[i];
	}
	if (w->app) {
		const uint64_t *d = mk_app_thread_counters(w->app);

		for (i = 0; i < MK_APP_CNT_MAX; i++)
			sum->app[i] += d[i];
	}
}

int mk_worker_stats_balanced(const struct mk_worker_stats *st)
{
	const uint64_t *c = st->cnt;

	return c[MK_WORKER_RX] == c[MK_WORKER_FLOW_PKT] + c[MK_WORKER_FRAG_HELD] +
					  c[MK_WORKER_FRAG_DROPPED] + c[MK_WORKER_NO_FLOW] +
					  c[MK_WORKER_DECODE_ERROR] &&
	       c[MK_WORKER_DGRAM] == c[MK_WORKER_DGRAM_FLOW] + c[MK_WORKER_DGRAM_NO_FLOW] +
					     c[MK_WORKER_DGRAM_BAD] +
					     c[MK_WORKER_DGRAM_HANDOFF_DROP];
}

struct foreach_ctx {
	const char *group;
	void (*fn)(const char *group, const char *name, uint64_t value, void *arg);
	void *arg;
};

static void foreach_one(const char *name, __u64 value, void *arg)
{
	struct foreach_ctx *c = arg;

	c->fn(c->group, name, value, c->arg);
}

void mk_worker_stats_foreach(const struct mk_worker_stats *st,
			     void (*fn)(const char *group, const char *name, uint64_t value,
					void *arg),
			     void *arg)
{
	struct foreach_ctx c = { .fn = fn, .arg = arg };
	int i;

	for (i = 0; i < MK_WORKER_CNT_MAX; i++)
		fn("worker", mk_worker_counter_names[i], st->cnt[i], arg);
	fn("worker", "flows_logged", st->flows_logged, arg);
	for (i = 0; i < MK_FLOW_CNT_MAX; i++)
		fn("flow", mk_flow_counter_names[i], st->flow_cnt[i], arg);
	fn("flow", "flow_chain_max", st->flow_chain_max, arg);
	for (i = 0; i < MK_STREAM_STAT_MAX; i++)
		fn("stream", mk_stream_stat_name(i), st->stream.c[i], arg);
	c.group = "defrag";
	mk_defrag_stats_foreach(&st->defrag, foreach_one, &c);
	for (i = 0; i < MK_DETECT_CNT_MAX; i++)
		fn("detect", mk_detect_counter_names[i], st->detect[i], arg);
	for (i = 0; i < MK_APP_CNT_MAX; i++)
		fn("app_layer", mk_app_counter_names[i], st->app[i], arg);
}

static void print_one(const char *group, const char *name, uint64_t value, void *arg)
{
	if (!strcmp(group, "worker") || !strcmp(group, "flow"))
		fprintf(arg, "  %-18s %llu\n", name, (unsigned long long)value);
	else
		fprintf(arg, "  %s.%-18s %llu\n", group, name, (unsigned long long)value);
}

void mk_worker_stats_print(FILE *out, const struct mk_worker_stats *st)
{
	mk_worker_stats_foreach(st, print_one, out);
}
