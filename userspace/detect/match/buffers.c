// SPDX-License-Identifier: GPL-2.0-only
/*
 * The named buffers' getters and the one loop that inspects a rule's
 * buffers (detect_buf.h): each buffer fetched, transformed when the rule
 * gives it transforms (kw/transform.c), its length checked against the
 * rule's bsize keywords, then its keyword list walked.
 *
 * A transformed buffer is built once per transaction inspection
 * (mk_detect_tx() resets the cache) and shared by every rule that gives
 * the same buffer the same transforms; the cache keeps its allocations
 * from one transaction to the next.
 */
#include <stdlib.h>
#include <string.h>
#include "applayer.h"
#include "detect_int.h"
#include "dns.h"
#include "ftp.h"
#include "http.h"
#include "smtp.h"
#include "ssh.h"
#include "tls.h"

int mk_buf_get(const struct mk_match_ctx *mc, unsigned int id, uint32_t idx, struct mk_buf *out)
{
	if (id == MK_BUF_PAYLOAD) {
		*out = mc->payload;
		return !idx;
	}
	memset(out, 0, sizeof(*out));
	/* the others: a transaction's, of the buffer's own protocol, through its getter */
	if (!mc->app_tx || mc->app_proto != mk_buf_protos[id])
		return 0;
	switch (mk_buf_protos[id]) {
	case MK_APP_HTTP:
		return !idx &&
		       mk_http_tx_buffer(mc->app_tx, id, mc->to_client, &out->data, &out->len);
	case MK_APP_DNS:
		return mk_dns_tx_buffer(mc->app_tx, id, idx, mc->to_client, &out->data, &out->len);
	case MK_APP_TLS:
		return mk_tls_tx_buffer(mc->app_tx, id, idx, &out->data, &out->len);
	case MK_APP_FTP:
		return !idx && mk_ftp_tx_buffer(mc->app_tx, id, &out->data, &out->len);
	case MK_APP_SMTP:
		return mk_smtp_tx_buffer(mc->app_tx, id, idx, &out->data, &out->len);
	case MK_APP_SSH:
		return !idx &&
		       mk_ssh_tx_buffer(mc->app_tx, id, mc->to_client, &out->data, &out->len);
	default:
		return 0;
	}
}

#define MK_BUF_NAME(id, name, side, proto) [MK_BUF_##id] = name,
const char *const mk_buf_names[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_NAME) };
#undef MK_BUF_NAME

#define MK_BUF_SIDE(id, name, side, proto) [MK_BUF_##id] = (side),
const uint8_t mk_buf_sides[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_SIDE) };
#undef MK_BUF_SIDE

#define MK_BUF_PROTO(id, name, side, proto) [MK_BUF_##id] = MK_APP_##proto,
const uint8_t mk_buf_protos[MK_BUF_COUNT] = { MK_BUFFERS(MK_BUF_PROTO) };
#undef MK_BUF_PROTO

/* One derived buffer of the transaction being inspected. */
struct mk_xform_cached {
	const struct mk_xform_chain *chain; /* a rule's: compared by value */
	uint8_t id, to_client;
	uint32_t idx; /* the instance of a multi-buffer */
	uint8_t *data;
	uint32_t len, cap;
};

void mk_xform_cache_reset(struct mk_detect_thread *t)
{
	t->nxcache = 0;
}

void mk_xform_cache_free(struct mk_detect_thread *t)
{
	uint32_t i;

	for (i = 0; i < t->capxcache; i++)
		free(t->xcache[i].data);
	free(t->xcache);
	t->xcache = NULL;
	t->nxcache = t->capxcache = 0;
}

static int same_chain(const struct mk_xform_chain *a, const struct mk_xform_chain *b)
{
	return a == b || (a->n == b->n && !memcmp(a->x, b->x, a->n * sizeof(a->x[0])));
}

/* @b transformed by @c, from the cache or built into it; 0 when out of memory. */
static int xform_get(const struct mk_match_ctx *mc, uint32_t id, uint32_t idx,
		     const struct mk_xform_chain *c, struct mk_buf *b)
{
	struct mk_detect_thread *t = mc->t;
	struct mk_xform_cached *e;
	uint32_t i;

	for (i = 0; i < t->nxcache; i++) {
		e = &t->xcache[i];
		if (e->id == id && e->idx == idx && e->to_client == mc->to_client &&
		    same_chain(e->chain, c))
			goto found;
	}
	if (t->nxcache == t->capxcache) {
		uint32_t cap = t->capxcache ? t->capxcache * 2 : 8;
		struct mk_xform_cached *n = realloc(t->xcache, cap * sizeof(*n));

		if (!n)
			return 0;
		memset(n + t->capxcache, 0, (cap - t->capxcache) * sizeof(*n));
		t->xcache = n;
		t->capxcache = cap;
	}
	e = &t->xcache[t->nxcache];
	if (mk_xform_apply(c, b->data, b->len, &e->data, &e->cap, &e->len))
		return 0;
	e->chain = c;
	e->id = (uint8_t)id;
	e->idx = idx;
	e->to_client = (uint8_t)mc->to_client;
	t->nxcache++;
	t->cnt[MK_DETECT_CNT_XFORM_BUILT]++;
found:
	b->data = e->data;
	b->len = e->len;
	return 1;
}

/* ---- the transaction prefilter (engine/tx_prefilter.c) ---------------------------------- */

struct tx_hit_ctx {
	const struct mk_detect_engine *e;
	const struct mk_pf_db *pf;
	uint64_t *bits;
};

static void tx_hit(void *arg, uint32_t pattern)
{
	struct tx_hit_ctx *h = arg;
	uint32_t i;

	for (i = h->pf->off[pattern]; i < h->pf->off[pattern + 1]; i++) {
		uint32_t a = h->e->rules[h->pf->rules[i]]->app_idx;

		h->bits[a / 64] |= 1ull << (a % 64);
	}
}

/* Some rule of @s waits for this transaction and has every part it needs now (@want). */
static int slot_wanted(const struct mk_detect_engine *e, const struct mk_tx_pf *s,
		       const uint64_t *want)
{
	uint32_t w;

	for (w = 0; w < e->app_words; w++)
		if (s->rules[w] & want[w])
			return 1;
	return 0;
}

/*
 * A body slot scanned part by part (progressive inspection): no transforms,
 * one instance (a multi-buffer's instances, SMTP's attachments, are each
 * scanned whole).
 */
static int slot_incremental(const struct mk_tx_pf *s, const struct mk_detect_tx_state *st,
			    uint32_t k)
{
	return !s->xf && k < st->nscanned && st->cand && !(mk_buf_sides[s->id] & MK_BUF_MULTI) &&
	       (s->side & (MK_BUF_SIDE_REQ_BODY | MK_BUF_SIDE_RESP_BODY));
}

int mk_tx_prefilter_scan(const struct mk_match_ctx *mc0, uint8_t progress,
			 struct mk_detect_tx_state *st, const uint64_t *want, uint64_t *bits)
{
	struct mk_detect_thread *t = mc0->t;
	const struct mk_detect_engine *e = t->eng;
	struct mk_match_ctx mc = *mc0;
	struct tx_hit_ctx h = { .e = e, .bits = bits };
	struct mk_buf b;
	uint32_t k, idx, w, from;

	for (k = 0; k < e->ntxpf; k++) {
		const struct mk_tx_pf *s = &e->txpf[k];

		if (!s->g->pf || mk_buf_protos[s->id] != mc.app_proto ||
		    (progress & s->side) != s->side || !slot_wanted(e, s, want))
			continue;
		mc.to_client = s->to_client;
		h.pf = s->g->pf;
		if (slot_incremental(s, st, k)) {
			/* the new bytes, and the longest pattern's length less one before them */
			if (!mk_buf_get(&mc, s->id, 0, &b) || b.len <= st->scanned[k])
				continue;
			from = st->scanned[k] > s->g->pf->maxlen ?
				       st->scanned[k] - (s->g->pf->maxlen - 1) :
				       0;
			h.bits = st->cand;
			t->cnt[MK_DETECT_CNT_PREFILTER_SCANS]++;
			if (mk_prefilter_scan(s->g->pf, t->scratch, b.data + from, b.len - from,
					      tx_hit, &h))
				return 0;
			h.bits = bits;
			st->scanned[k] = b.len;
			continue;
		}
		/* every instance of a multi-buffer; a missing buffer: its rules cannot match */
		for (idx = 0; mk_buf_get(&mc, s->id, idx, &b); idx++) {
			if (s->xf && !xform_get(&mc, s->id, idx, s->xf, &b))
				return 0;
			if (!b.len)
				continue;
			t->cnt[MK_DETECT_CNT_PREFILTER_SCANS]++;
			if (mk_prefilter_scan(s->g->pf, t->scratch, b.data, b.len, tx_hit, &h))
				return 0;
		}
	}
	/* what earlier scans of the bodies found */
	if (st->cand)
		for (w = 0; w < st->nwords; w++)
			bits[w] |= st->cand[w];
	return 1;
}

/* The buffer's length against every bsize of its list. */
static int bsize_ok(const struct mk_sm_list *l, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->sm[i].kw->type == MK_KWT_BSIZE &&
		    !mk_uint_match(&((const struct mk_bsize *)l->sm[i].ctx)->u, len))
			return 0;
	return 1;
}

/* An empty buffer matches a list of bsize keywords only (bsize:0). */
static int only_bsize(const struct mk_sm_list *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->sm[i].kw->type != MK_KWT_BSIZE)
			return 0;
	return 1;
}

/* Instance @b of buffer @id through the rule's list: 1 if it matches. */
static int inspect_one(const struct mk_match_ctx *mc, const struct mk_rule *r, uint32_t id,
		       uint32_t idx, struct mk_buf *b, uint32_t *payload_end)
{
	struct mk_insp in;

	if (r->xf && r->xf[id] && !xform_get(mc, id, idx, r->xf[id], b))
		return 0;
	if (!bsize_ok(&r->bufs[id], b->len))
		return 0;
	if (!b->len && only_bsize(&r->bufs[id]))
		return 1;
	memset(&in, 0, sizeof(in));
	in.t = mc->t;
	in.buf = b->data;
	in.len = b->len;
	in.abs_base = b->abs_base;
	in.min_end = b->min_end;
	in.buf_id = id;
	if (!mk_payload_inspect(&in, r))
		return 0;
	if (id == MK_BUF_PAYLOAD && payload_end)
		*payload_end = in.match_end;
	return 1;
}

int mk_buffers_inspect(const struct mk_match_ctx *mc, const struct mk_rule *r,
		       uint32_t *payload_end)
{
	struct mk_buf b;
	uint32_t id, idx;
	int hit;

	for (id = 0; id < MK_BUF_COUNT; id++) {
		if (!(r->buf_mask & MK_BUF_BIT(id)))
			continue;
		/* a multi-buffer matches when one of its instances does */
		hit = 0;
		for (idx = 0; !hit && mk_buf_get(mc, id, idx, &b); idx++) {
			hit = inspect_one(mc, r, id, idx, &b, payload_end);
			if (!(mk_buf_sides[id] & MK_BUF_MULTI))
				break;
		}
		if (!hit)
			return 0;
	}
	return 1;
}
