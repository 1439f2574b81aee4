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

int mk_thresh_parse(const char *value, int kind, struct mk_thresh_spec *sp, char *err,
		    size_t errlen)
{
	char *v = strdup(value), *tok, *save = NULL;
	int have_type = 0, have_track = 0, have_count = 0, have_seconds = 0, have_action = 0;
	int have_timeout = 0, have_unique = 0, have_mult = 0;

	memset(sp, 0, sizeof(*sp));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *k = mk_strtrim(tok), *val = k;
		uint32_t n;

		while (*val && *val != ' ' && *val != '\t')
			val++;
		if (*val)
			*val++ = '\0';
		val = mk_strtrim(val);
		if (!strcmp(k, "type") && kind == 0 && !have_type) {
			have_type = 1;
			if (!strcmp(val, "limit"))
				sp->type = MK_THRESH_LIMIT;
			else if (!strcmp(val, "threshold"))
				sp->type = MK_THRESH_THRESHOLD;
			else if (!strcmp(val, "both"))
				sp->type = MK_THRESH_BOTH;
			else if (!strcmp(val, "backoff"))
				sp->type = MK_THRESH_BACKOFF;
			else
				goto bad;
		} else if (!strcmp(k, "track") && !have_track) {
			have_track = 1;
			if (!strcmp(val, "by_src"))
				sp->track = MK_TRACK_SRC;
			else if (!strcmp(val, "by_dst"))
				sp->track = MK_TRACK_DST;
			else if (!strcmp(val, "by_rule"))
				sp->track = MK_TRACK_RULE;
			else if (!strcmp(val, "by_both"))
				sp->track = MK_TRACK_BOTH;
			else if (!strcmp(val, "by_flow"))
				sp->track = MK_TRACK_FLOW;
			else
				goto bad;
		} else if (!strcmp(k, "count") && !have_count) {
			have_count = 1;
			if (mk_parse_u32(val, &n) || !n)
				goto bad;
			sp->count = n;
		} else if (!strcmp(k, "seconds") && !have_seconds) {
			have_seconds = 1;
			if (mk_parse_u32(val, &n) || !n)
				goto bad;
			sp->seconds = n;
		} else if (!strcmp(k, "multiplier") && kind == 0 && !have_mult) {
			have_mult = 1;
			if (mk_parse_u32(val, &n) || !n)
				goto bad;
			sp->multiplier = n;
		} else if (!strcmp(k, "unique_on") && kind == 1 && !have_unique) {
			have_unique = 1;
			if (!strcmp(val, "src_port"))
				sp->unique_on = MK_UNIQUE_SRC_PORT;
			else if (!strcmp(val, "dst_port"))
				sp->unique_on = MK_UNIQUE_DST_PORT;
			else
				goto bad;
		} else if (!strcmp(k, "new_action") && kind == 2 && !have_action) {
			have_action = 1;
			if (!strcmp(val, "alert"))
				sp->new_action = MK_ACTION_ALERT;
			else if (!strcmp(val, "drop"))
				sp->new_action = MK_ACTION_DROP;
			else if (!strcmp(val, "pass"))
				sp->new_action = MK_ACTION_PASS;
			else if (!strcmp(val, "reject"))
				sp->new_action = MK_ACTION_REJECT;
			else
				goto bad;
		} else if (!strcmp(k, "timeout") && kind == 2 && !have_timeout) {
			have_timeout = 1;
			if (mk_parse_u32(val, &n) || !n)
				goto bad;
			sp->timeout = n;
		} else {
			snprintf(err, errlen, "unexpected '%.40s'", k);
			free(v);
			return -1;
		}
		continue;
bad:
		snprintf(err, errlen, "bad value '%.40s' for '%s'", val, k);
		free(v);
		return -1;
	}
	free(v);
	if (kind == 1)
		sp->type = MK_THRESH_DETECTION;
	if (kind == 2)
		sp->type = MK_THRESH_RATE;
	if (kind == 0 && have_type && sp->type == MK_THRESH_BACKOFF) {
		/* as Suricata: per flow, with a multiplier instead of a window */
		if (have_track && sp->track != MK_TRACK_FLOW) {
			snprintf(err, errlen, "type backoff needs track by_flow");
			return -1;
		}
		if (have_seconds || !have_mult || !have_track || !have_count) {
			snprintf(err, errlen,
				 "type backoff needs track by_flow, count and "
				 "multiplier (no seconds)");
			return -1;
		}
		return 0;
	}
	if (have_mult) {
		snprintf(err, errlen, "multiplier is for type backoff");
		return -1;
	}
	if (!have_track || !have_count || !have_seconds || (kind == 0 && !have_type) ||
	    (kind == 2 && (!have_action || !have_timeout))) {
		snprintf(err, errlen, "needs %s",
			 kind == 0 ? "type, track, count and seconds" :
			 kind == 1 ? "track, count and seconds" :
				     "track, count, seconds, new_action and timeout");
		return -1;
	}
	return 0;
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
