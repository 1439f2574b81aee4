// SPDX-License-Identifier: GPL-2.0-only
/*
 * Payload inspection: a rule's content, pcre, isdataat and byte_* keywords
 * against one buffer (a packet's payload or a window of a TCP stream), in
 * rule order, with a cursor at the end of the previous match. When a later
 * keyword is relative to an earlier match and fails, the earlier one is
 * tried at its next occurrence (as Suricata's content inspection); a budget
 * of steps bounds the backtracking.
 *
 * Positions, as Suricata: offset/depth count from the start of the buffer
 * (for a stream window, from the first byte of that direction's stream:
 * abs_base is the window's stream offset), depth from offset; distance from
 * the end of the previous match and within from there to the end of this
 * match (within alone means distance 0). Contents without relative
 * modifiers match independently, in any order.
 *
 * Stream windows repeat bytes already inspected; min_end makes a match count
 * only when it ends in new data, so the same bytes never alert twice. With
 * min_end set, every match is retried at later occurrences, since the first
 * occurrence may be one already reported.
 */
#include <string.h>
#include "detect_int.h"

static int inspect(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
		   uint32_t maxend);

/* A failed independent keyword ends the inspection; a relative one lets the caller retry. */
static int miss(const struct mk_insp *in, int relative)
{
	return relative || in->min_end ? 0 : -1;
}

static int64_t cval(const struct mk_insp *in, int32_t v, int is_var)
{
	if (!is_var)
		return v;
	return in->vars[v] > 1000000000ull ? 1000000000ll : (int64_t)in->vars[v];
}

static int insp_content(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
			uint32_t maxend)
{
	const struct mk_content *c = in->sm[i].ctx;
	int rel = !!(c->flags & (MK_CF_DISTANCE | MK_CF_WITHIN));
	int64_t start, end, len = in->len, pos, found;
	int ret;

	if (rel) {
		int64_t dist = c->flags & MK_CF_DISTANCE ?
				       cval(in, c->distance, !!(c->flags & MK_CF_DISTANCE_VAR)) :
				       0;

		start = (int64_t)cur + dist;
		end = len;
		if (c->flags & MK_CF_WITHIN) {
			int64_t e = (int64_t)cur + dist +
				    cval(in, c->within, !!(c->flags & MK_CF_WITHIN_VAR));

			if (e < end)
				end = e;
		}
	} else if (c->flags & MK_CF_STARTSWITH) {
		start = -(int64_t)in->abs_base;
		end = start + c->len;
	} else {
		int64_t off = c->flags & MK_CF_OFFSET ?
				      cval(in, c->offset, !!(c->flags & MK_CF_OFFSET_VAR)) :
				      0;

		start = off - (int64_t)in->abs_base;
		end = c->flags & MK_CF_DEPTH ?
			      off + cval(in, c->depth, !!(c->flags & MK_CF_DEPTH_VAR)) -
				      (int64_t)in->abs_base :
			      len;
	}
	if (start < 0)
		start = 0;
	if (end > len)
		end = len;
	if (c->flags & MK_CF_ENDSWITH) {
		/* only the occurrence that ends the buffer counts */
		if (end < len || len - start < c->len)
			found = -1;
		else
			found = mk_content_find(c, in->buf, (uint32_t)(len - c->len),
						(uint32_t)len);
		if (c->flags & MK_CF_NEGATED)
			return found < 0 ? inspect(in, r, i + 1, cur, maxend) : miss(in, rel);
		if (found < 0)
			return miss(in, rel);
		return inspect(in, r, i + 1, (uint32_t)len,
			       maxend > (uint32_t)len ? maxend : (uint32_t)len);
	}
	for (pos = start;;) {
		found = end - pos >= c->len ?
				mk_content_find(c, in->buf, (uint32_t)pos, (uint32_t)end) :
				-1;
		if (c->flags & MK_CF_NEGATED) {
			if (found < 0)
				return inspect(in, r, i + 1, cur, maxend);
			return rel ? 0 : -1;
		}
		if (found < 0)
			return pos == start ? miss(in, rel) : 0;
		{
			uint32_t mend = (uint32_t)found + c->len;

			ret = inspect(in, r, i + 1, mend, maxend > mend ? maxend : mend);
		}
		if (ret)
			return ret;
		if (!(c->flags & MK_CF_RELATIVE_NEXT) && !in->min_end)
			return -1;
		pos = found + 1;
	}
}

static int insp_pcre(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
		     uint32_t maxend)
{
	const struct mk_pcre *p = in->sm[i].ctx;
	int rel = !!(p->flags & MK_PF_RELATIVE);
	const uint8_t *subj = in->buf;
	uint32_t slen = in->len, shift = 0, pos = 0, ms, me;
	int rc, ret;

	if (rel) {
		/* as Suricata: the subject starts at the cursor, so ^ anchors there */
		if (cur > in->len)
			return 0;
		subj += cur;
		slen -= cur;
		shift = cur;
	} else if ((p->flags & MK_PF_ANCHORED) && in->abs_base) {
		/* ^ is the start of the stream, which this window no longer holds */
		return p->flags & MK_PF_NEGATED ? inspect(in, r, i + 1, cur, maxend) : miss(in, 0);
	}
	for (;;) {
		rc = mk_pcre_exec(in->t, p, subj, slen, pos, &ms, &me);
		if (p->flags & MK_PF_NEGATED) {
			if (rc <= 0)
				return inspect(in, r, i + 1, cur, maxend);
			return rel ? 0 : -1;
		}
		if (rc <= 0)
			return pos ? 0 : miss(in, rel);
		ms += shift;
		me += shift;
		ret = inspect(in, r, i + 1, me, maxend > me ? maxend : me);
		if (ret)
			return ret;
		if (!(p->flags & MK_PF_RELATIVE_NEXT) && !in->min_end)
			return -1;
		pos = ms - shift + 1;
		if (pos > slen)
			return 0;
	}
}

static int insp_isdataat(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
			 uint32_t maxend)
{
	const struct mk_isdataat *d = in->sm[i].ctx;
	uint64_t n = d->var ? in->vars[d->n] : d->n;
	int ok;

	if (d->relative)
		ok = (uint64_t)cur + n <= in->len;
	else
		ok = n < in->abs_base + in->len;
	if (d->negated)
		ok = !ok;
	if (!ok)
		return miss(in, d->relative || d->var);
	return inspect(in, r, i + 1, cur, maxend);
}

/* Where a byte keyword reads: -1 when outside the buffer. */
static int64_t byte_pos(const struct mk_insp *in, const struct mk_byte *b, uint32_t cur)
{
	int64_t off = b->flags & MK_BF_OFFSET_VAR ? cval(in, b->offset, 1) : b->offset;
	int64_t pos = b->flags & MK_BF_RELATIVE ? (int64_t)cur + off : off - (int64_t)in->abs_base;

	if (pos < 0 || pos + b->nbytes > (int64_t)in->len)
		return -1;
	return pos;
}

static int insp_byte(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
		     uint32_t maxend)
{
	const struct mk_sm *sm = &in->sm[i];
	const struct mk_byte *b = sm->ctx;
	int rel = !!(b->flags & (MK_BF_RELATIVE | MK_BF_OFFSET_VAR));
	int64_t pos = byte_pos(in, b, cur), next;
	uint64_t v, want;
	uint32_t used, end;
	int ok = 0;

	if (pos < 0 || mk_byte_read(b, in->buf + pos, in->len - (uint32_t)pos, &v, &used))
		return miss(in, rel);
	end = (uint32_t)pos + used;
	if (end > maxend)
		maxend = end;
	switch (sm->kw->type) {
	case MK_KWT_BYTE_TEST:
		want = b->flags & MK_BF_VALUE_VAR ? in->vars[b->value] : b->value;
		switch (b->op) {
		case MK_BOP_LT:
			ok = v < want;
			break;
		case MK_BOP_GT:
			ok = v > want;
			break;
		case MK_BOP_EQ:
			ok = v == want;
			break;
		case MK_BOP_LE:
			ok = v <= want;
			break;
		case MK_BOP_GE:
			ok = v >= want;
			break;
		case MK_BOP_AND:
			ok = (v & want) != 0;
			break;
		case MK_BOP_XOR:
			ok = (v ^ want) != 0;
			break;
		}
		if (b->flags & MK_BF_NEGATED)
			ok = !ok;
		if (!ok)
			return miss(in, rel);
		return inspect(in, r, i + 1, cur, maxend);
	case MK_KWT_BYTE_JUMP:
		if (v > 0xffffffffull)
			return miss(in, rel);
		v *= b->multiplier;
		if ((b->flags & MK_BF_ALIGN) && (v % 4))
			v += 4 - v % 4;
		next = (int64_t)v + b->post_offset;
		if (b->flags & MK_BF_FROM_BEGINNING)
			;
		else if (b->flags & MK_BF_FROM_END)
			next += in->len;
		else
			next += end;
		/*
		 * As Suricata (7.0.2 on): a jump before the start of the buffer lands
		 * on its first byte; one to the end of the buffer matches (a relative
		 * keyword after it finds nothing, isdataat:!1,relative holds); past
		 * the end fails.
		 */
		if (next < 0)
			next = 0;
		if (next > (int64_t)in->len)
			return miss(in, rel);
		return inspect(in, r, i + 1, (uint32_t)next, maxend);
	default: /* byte_extract */
		v *= b->multiplier ? b->multiplier : 1;
		if (b->align && (v % b->align))
			v += b->align - v % b->align;
		in->vars[b->var] = v;
		return inspect(in, r, i + 1, end, maxend);
	}
}

/*
 * base64_decode: decodes into the thread's scratch (one level: base64_data
 * holds no base64_decode), then runs base64_data's keywords on it. As
 * Suricata, a match there is the buffer's match: the keywords after it in
 * this list are not checked (the parser lets none follow but base64_data's).
 * Every 256 bytes read cost one step of the budget, so that backtracking
 * cannot decode the same 64 KiB thousands of times.
 */
static int insp_base64(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
		       uint32_t maxend)
{
	static __thread uint8_t out[MK_B64_OUT_MAX];
	const struct mk_base64 *b = in->sm[i].ctx;
	struct mk_insp sub;
	int64_t pos = b->relative ? (int64_t)cur : -(int64_t)in->abs_base;
	uint32_t n, used, avail, end;
	int ret;

	pos += b->offset;
	if (pos < 0 || pos >= (int64_t)in->len)
		return miss(in, b->relative);
	avail = in->len - (uint32_t)pos;
	if (avail > b->bytes)
		avail = b->bytes;
	in->steps += avail >> 8;
	n = mk_base64_decode(in->buf + pos, avail, out, sizeof(out), &used);
	if (!n)
		return miss(in, b->relative);
	sub = *in;
	sub.buf = out;
	sub.len = n;
	sub.abs_base = 0;
	sub.min_end = 0;
	sub.sm = b->data.sm;
	sub.nsm = b->data.n;
	ret = inspect(&sub, r, 0, 0, 0);
	in->steps = sub.steps;
	if (ret != 1)
		return ret < 0 && !b->relative && !in->min_end ? -1 : 0;
	/* the match ends where the decoded text did */
	end = (uint32_t)pos + used;
	if (end > maxend)
		maxend = end;
	if (in->min_end && maxend <= in->min_end)
		return 0;
	in->match_end = maxend;
	return 1;
}

/* asn1: Suricata's checks on the BER objects from the chosen position. */
static int insp_asn1(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
		     uint32_t maxend)
{
	const struct mk_asn1 *a = in->sm[i].ctx;
	int rel = !(a->flags & MK_ASN1_ABSOLUTE) && (a->flags & MK_ASN1_RELATIVE);
	int64_t pos;

	if (a->flags & MK_ASN1_ABSOLUTE)
		pos = (int64_t)a->absolute_offset - (int64_t)in->abs_base;
	else if (rel)
		pos = (int64_t)cur + a->relative_offset; /* as Suricata: 0-65535 */
	else
		pos = -(int64_t)in->abs_base;
	if (pos < 0 || pos >= (int64_t)in->len || (rel && pos > 65535) ||
	    !mk_asn1_match(a, in->buf, in->len, (uint32_t)pos))
		return miss(in, rel);
	return inspect(in, r, i + 1, cur, maxend);
}

static int inspect(struct mk_insp *in, const struct mk_rule *r, uint32_t i, uint32_t cur,
		   uint32_t maxend)
{
	if (++in->steps > MK_INSPECT_STEPS)
		return -1;
	if (i == in->nsm) {
		if (in->min_end && maxend <= in->min_end)
			return 0;
		in->match_end = maxend;
		return 1;
	}
	switch (in->sm[i].kw->type) {
	case MK_KWT_CONTENT:
		return insp_content(in, r, i, cur, maxend);
	case MK_KWT_PCRE:
		return insp_pcre(in, r, i, cur, maxend);
	case MK_KWT_ISDATAAT:
		return insp_isdataat(in, r, i, cur, maxend);
	case MK_KWT_BYTE_TEST:
	case MK_KWT_BYTE_JUMP:
	case MK_KWT_BYTE_EXTRACT:
		return insp_byte(in, r, i, cur, maxend);
	case MK_KWT_BASE64:
		return insp_base64(in, r, i, cur, maxend);
	case MK_KWT_ASN1:
		return insp_asn1(in, r, i, cur, maxend);
	default:
		return inspect(in, r, i + 1, cur, maxend);
	}
}

int mk_payload_inspect(struct mk_insp *in, const struct mk_rule *r)
{
	if (!in->len)
		return 0;
	in->sm = r->bufs[in->buf_id].sm;
	in->nsm = r->bufs[in->buf_id].n;
	in->steps = 0;
	in->match_end = 0;
	memset(in->vars, 0, sizeof(in->vars));
	return inspect(in, r, 0, 0, 0) == 1;
}
