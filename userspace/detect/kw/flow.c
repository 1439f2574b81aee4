// SPDX-License-Identifier: GPL-2.0-only
/*
 * flow: established, not_established, stateless, to_server/from_client,
 * to_client/from_server, only_stream, no_stream.
 *
 * As Suricata's flow flags: a packet is established when both directions of
 * its flow have been seen (UDP: the first datagram is not, the reply is;
 * TCP: the SYN/ACK already is), or when the flow's TCP session was
 * established before it (a session picked up midstream, stream.midstream
 * on: from its second packet, even if only one side is seen); to_server is
 * the direction of the flow's first packet (a flow whose first packet is a
 * SYN/ACK is turned around, as the flow table does). only_stream/no_stream
 * pick how TCP payload is read.
 */
#include <stdlib.h>
#include <string.h>
#include "detect_int.h"

static const struct {
	const char *name;
	uint8_t bit;
} opts[] = {
	{ "established", MK_FLOW_F_ESTABLISHED }, { "not_established", MK_FLOW_F_NOT_ESTABLISHED },
	{ "stateless", MK_FLOW_F_STATELESS },	  { "to_server", MK_FLOW_F_TO_SERVER },
	{ "from_client", MK_FLOW_F_TO_SERVER },	  { "to_client", MK_FLOW_F_TO_CLIENT },
	{ "from_server", MK_FLOW_F_TO_CLIENT },	  { "only_stream", MK_FLOW_F_ONLY_STREAM },
	{ "no_stream", MK_FLOW_F_NO_STREAM },
};

static int setup_flow(struct mk_rule_build *rb, const char *value)
{
	char *v = strdup(value), *tok, *save = NULL;
	uint8_t f = 0, *ctx;
	unsigned int i;

	if (!v)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	if (rb->seen_flow) {
		free(v);
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "given twice");
	}
	for (tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = mk_strtrim(tok);
		for (i = 0; i < MK_ARRAY_SIZE(opts); i++)
			if (!strcmp(tok, opts[i].name))
				break;
		if (i == MK_ARRAY_SIZE(opts)) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "unknown option '%.40s'", tok);
			free(v);
			return -1;
		}
		if (f & opts[i].bit) {
			mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "'%s' given twice", tok);
			free(v);
			return -1;
		}
		f |= opts[i].bit;
	}
	free(v);
	if (!f)
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "needs an option");
	if ((f & MK_FLOW_F_ESTABLISHED) && (f & (MK_FLOW_F_NOT_ESTABLISHED | MK_FLOW_F_STATELESS)))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "established excludes not_established and stateless");
	if ((f & MK_FLOW_F_NOT_ESTABLISHED) && (f & MK_FLOW_F_STATELESS))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE, "not_established excludes stateless");
	if ((f & MK_FLOW_F_TO_SERVER) && (f & MK_FLOW_F_TO_CLIENT))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "to_server and to_client exclude each other");
	if ((f & MK_FLOW_F_ONLY_STREAM) && (f & MK_FLOW_F_NO_STREAM))
		return mk_rule_fail(rb, MK_DETECT_FAIL_VALUE,
				    "only_stream and no_stream exclude each other");
	rb->seen_flow = 1;
	rb->r->flow = f;
	if (f & (MK_FLOW_F_ESTABLISHED | MK_FLOW_F_NOT_ESTABLISHED | MK_FLOW_F_TO_SERVER |
		 MK_FLOW_F_TO_CLIENT))
		rb->r->flags |= MK_RF_NEEDS_FLOW;
	ctx = malloc(1);
	if (!ctx)
		return mk_rule_fail(rb, MK_DETECT_FAIL_SYNTAX, "out of memory");
	*ctx = f;
	return mk_rule_add_sm(rb, MK_LIST_MATCH, &mk_kw_flow, ctx);
}

static int match_flow(const struct mk_match_ctx *mc, const struct mk_sm *sm)
{
	uint8_t f = *(const uint8_t *)sm->ctx;
	int est;

	if (!mc->flow)
		return !(f & (MK_FLOW_F_ESTABLISHED | MK_FLOW_F_TO_SERVER | MK_FLOW_F_TO_CLIENT));
	/* both directions seen, or a TCP session established before this packet */
	est = (mc->flow->pkts[0] && mc->flow->pkts[1]) || mc->t->pkt.flow_established;
	if ((f & MK_FLOW_F_ESTABLISHED) && !est)
		return 0;
	if ((f & MK_FLOW_F_NOT_ESTABLISHED) && est)
		return 0;
	if ((f & MK_FLOW_F_TO_SERVER) && mc->to_client)
		return 0;
	if ((f & MK_FLOW_F_TO_CLIENT) && !mc->to_client)
		return 0;
	return 1;
}

MK_KW_DEFINE(flow, MK_KWT_MATCH, MK_KWF_STREAM_OK, setup_flow, match_flow,
	     "established, not_established, stateless, to_server, to_client, from_server, "
	     "from_client, only_stream, no_stream");

MK_KW_FAMILY_TABLE(flow, MK_KW_FAMILY_FLOW);
