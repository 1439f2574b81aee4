// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SSH buffers (detect_buf.h) of a session, its one transaction:
 * ssh.proto and ssh.software of the rule's side, HASSH and HASSH server
 * (hash and string).
 */
#include <string.h>
#include "detect_buf.h"
#include "ssh.h"

static int str_buf(const char *s, const uint8_t **data, uint32_t *len)
{
	if (!s)
		return 0;
	*data = (const uint8_t *)s;
	*len = (uint32_t)strlen(s);
	return 1;
}

int mk_ssh_tx_buffer(const void *tx, unsigned int id, int to_client, const uint8_t **data,
		     uint32_t *len)
{
	const struct mk_ssh_info *s = tx;
	const struct mk_ssh_side *side = to_client ? &s->server : &s->client;

	switch (id) {
	case MK_BUF_SSH_PROTO:
		return side->has_banner && str_buf(side->proto_version, data, len);
	case MK_BUF_SSH_SOFTWARE:
		return side->has_banner && str_buf(side->software_version, data, len);
	case MK_BUF_SSH_HASSH:
		return s->client.hassh && str_buf(s->client.hassh_hash, data, len);
	case MK_BUF_SSH_HASSH_STRING:
		return str_buf(s->client.hassh, data, len);
	case MK_BUF_SSH_HASSH_SERVER:
		return s->server.hassh && str_buf(s->server.hassh_hash, data, len);
	case MK_BUF_SSH_HASSH_SERVER_STRING:
		return str_buf(s->server.hassh, data, len);
	default:
		return 0;
	}
}
