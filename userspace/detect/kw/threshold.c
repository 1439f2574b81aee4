// SPDX-License-Identifier: GPL-2.0-only
/*
 * threshold (type limit|threshold|both|backoff) and detection_filter: which
 * of a rule's matches become alerts, counted per source, destination, rule,
 * address pair or flow over a time window (backoff: per flow, at count,
 * count * multiplier, ...; detection_filter unique_on: distinct ports). The keywords only record the spec; the
 * counting runs where alerts are merged in output order (match/thresh.c),
 * so results do not depend on the worker count. threshold.config reuses the
 * option parser for its threshold, event_filter and rate_filter lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

/* The words a threshold option takes, and what each sets. */
struct thresh_word {
	const char *word;
	int value;
};

static const struct thresh_word thresh_types[] = {
	{ "limit", MK_THRESH_LIMIT },
	{ "threshold", MK_THRESH_THRESHOLD },
	{ "both", MK_THRESH_BOTH },
	{ "backoff", MK_THRESH_BACKOFF },
	{ NULL, 0 },
};
static const struct thresh_word thresh_tracks[] = {
	{ "by_src", MK_TRACK_SRC },   { "by_dst", MK_TRACK_DST },   { "by_rule", MK_TRACK_RULE },
	{ "by_both", MK_TRACK_BOTH }, { "by_flow", MK_TRACK_FLOW }, { NULL, 0 },
};
static const struct thresh_word thresh_uniques[] = {
	{ "src_port", MK_UNIQUE_SRC_PORT },
	{ "dst_port", MK_UNIQUE_DST_PORT },
	{ NULL, 0 },
};
static const struct thresh_word thresh_actions[] = {
	{ "alert", MK_ACTION_ALERT },
	{ "drop", MK_ACTION_DROP },
	{ "pass", MK_ACTION_PASS },
	{ "reject", MK_ACTION_REJECT },
	{ NULL, 0 },
};

/* Options seen, as bits: each may be given once. */
enum {
	TH_TYPE = 1 << 0,
	TH_TRACK = 1 << 1,
	TH_COUNT = 1 << 2,
	TH_SECONDS = 1 << 3,
	TH_ACTION = 1 << 4,
	TH_TIMEOUT = 1 << 5,
	TH_UNIQUE = 1 << 6,
	TH_MULT = 1 << 7,
};

static int thresh_pick(const struct thresh_word *w, const char *val, int *out)
{
	for (; w->word; w++) {
		if (!strcmp(w->word, val)) {
			*out = w->value;
			return 0;
		}
	}
	return -1;
}

/* A positive number into *@out. */
static int thresh_num(const char *val, uint32_t *out)
{
	uint32_t n;

	if (mk_parse_u32(val, &n) || !n)
		return -1;
	*out = n;
	return 0;
}

/* A word option: its table and the spec byte it sets. */
static int thresh_word(const struct thresh_word *w, const char *val, uint8_t *out)
{
	int v;

	if (thresh_pick(w, val, &v))
		return -1;
	*out = (uint8_t)v;
	return 0;
}

/*
 * One option @k @val of keyword kind @kind (0 threshold, 1 detection_filter,
 * 2 rate_filter): 0, -1 for a bad value, -2 for an option the kind does not
 * take (or one given twice). @seen collects TH_* bits.
 */
static int thresh_option(struct mk_thresh_spec *sp, int kind, const char *k, const char *val,
			 int *seen)
{
	int bit, ret;

	if (!strcmp(k, "type") && kind == 0) {
		bit = TH_TYPE;
		ret = thresh_word(thresh_types, val, &sp->type);
	} else if (!strcmp(k, "track")) {
		bit = TH_TRACK;
		ret = thresh_word(thresh_tracks, val, &sp->track);
	} else if (!strcmp(k, "count")) {
		bit = TH_COUNT;
		ret = thresh_num(val, &sp->count);
	} else if (!strcmp(k, "seconds")) {
		bit = TH_SECONDS;
		ret = thresh_num(val, &sp->seconds);
	} else if (!strcmp(k, "multiplier") && kind == 0) {
		bit = TH_MULT;
		ret = thresh_num(val, &sp->multiplier);
	} else if (!strcmp(k, "unique_on") && kind == 1) {
		bit = TH_UNIQUE;
		ret = thresh_word(thresh_uniques, val, &sp->unique_on);
	} else if (!strcmp(k, "new_action") && kind == 2) {
		bit = TH_ACTION;
		ret = thresh_word(thresh_actions, val, &sp->new_action);
	} else if (!strcmp(k, "timeout") && kind == 2) {
		bit = TH_TIMEOUT;
		ret = thresh_num(val, &sp->timeout);
	} else {
		return -2;
	}
	if (*seen & bit)
		return -2;
	*seen |= bit;
	return ret;
}

/* What the options given make of the spec, or the error: the combinations each kind needs. */
static int thresh_complete(struct mk_thresh_spec *sp, int kind, int seen, char *err, size_t errlen)
{
	if (kind == 1)
		sp->type = MK_THRESH_DETECTION;
	if (kind == 2)
		sp->type = MK_THRESH_RATE;
	if (kind == 0 && (seen & TH_TYPE) && sp->type == MK_THRESH_BACKOFF) {
		/* as Suricata: per flow, with a multiplier instead of a window */
		if ((seen & TH_TRACK) && sp->track != MK_TRACK_FLOW) {
			snprintf(err, errlen, "type backoff needs track by_flow");
			return -1;
		}
		if ((seen & TH_SECONDS) || !(seen & TH_MULT) || !(seen & TH_TRACK) ||
		    !(seen & TH_COUNT)) {
			snprintf(err, errlen,
				 "type backoff needs track by_flow, count and "
				 "multiplier (no seconds)");
			return -1;
		}
		return 0;
	}
	if (seen & TH_MULT) {
		snprintf(err, errlen, "multiplier is for type backoff");
		return -1;
	}
	if (!(seen & TH_TRACK) || !(seen & TH_COUNT) || !(seen & TH_SECONDS) ||
	    (kind == 0 && !(seen & TH_TYPE)) ||
	    (kind == 2 && (!(seen & TH_ACTION) || !(seen & TH_TIMEOUT)))) {
		snprintf(err, errlen, "needs %s",
			 kind == 0 ? "type, track, count and seconds" :
			 kind == 1 ? "track, count and seconds" :
				     "track, count, seconds, new_action and timeout");
		return -1;
	}
	return 0;
}

int mk_thresh_parse(const char *value, int kind, struct mk_thresh_spec *sp, char *err,
		    size_t errlen)
{
	char *v = strdup(value), *tok, *save = NULL;
	int seen = 0;

	memset(sp, 0, sizeof(*sp));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *k = mk_strtrim(tok), *val = k;
		int ret;

		while (*val && *val != ' ' && *val != '\t')
			val++;
		if (*val)
			*val++ = '\0';
		val = mk_strtrim(val);
		ret = thresh_option(sp, kind, k, val, &seen);
		if (ret == -2)
			snprintf(err, errlen, "unexpected '%.40s'", k);
		else if (ret)
			snprintf(err, errlen, "bad value '%.40s' for '%s'", val, k);
		if (ret) {
			free(v);
			return -1;
		}
	}
	free(v);
	return thresh_complete(sp, kind, seen, err, errlen);
}

static int setup_common(struct mk_rule_build *rb, const char *value, int kind)
{
	char err[128];

	if (rb->seen_threshold || rb->seen_df)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "a rule has one threshold or one detection_filter");
	if (mk_thresh_parse(value, kind, &rb->r->thresh, err, sizeof(err)))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "%s", err);
	if (rb->r->thresh.unique_on && rb->r->proto != MK_RP_TCP && rb->r->proto != MK_RP_UDP &&
	    rb->r->proto != MK_RP_TCP_PKT && rb->r->proto != MK_RP_TCP_STREAM)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "unique_on needs a protocol with ports (tcp or udp rules)");
	if (kind == 0)
		rb->seen_threshold = 1;
	else
		rb->seen_df = 1;
	return 0;
}

static int setup_threshold(struct mk_rule_build *rb, const char *value)
{
	return setup_common(rb, value, 0);
}

static int setup_detection_filter(struct mk_rule_build *rb, const char *value)
{
	return setup_common(rb, value, 1);
}

const struct mk_kw mk_kw_threshold = {
	.name = "threshold",
	.type = MK_KWT_META,
	.flags = MK_KWF_VALUE | MK_KWF_IPONLY_OK,
	.setup = setup_threshold,
	.doc = "type limit|threshold|both, track by_src|by_dst|by_rule|by_both|by_flow, count N, "
	       "seconds T; or type backoff, track by_flow, count N, multiplier M",
};

const struct mk_kw mk_kw_detection_filter = {
	.name = "detection_filter",
	.type = MK_KWT_META,
	.flags = MK_KWF_VALUE | MK_KWF_IPONLY_OK,
	.setup = setup_detection_filter,
	.doc = "track by_src|by_dst|by_rule|by_both|by_flow, count N, seconds T[, unique_on "
	       "src_port|dst_port]: alert from the (N+1)th match (or distinct port) on",
};

MK_KW_FAMILY_TABLE(threshold, MK_KW_FAMILY_THRESHOLD);
