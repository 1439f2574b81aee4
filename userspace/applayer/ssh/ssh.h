/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SSH over TCP (docs/applayer.md): each side's identification banner
 * ("SSH-protoversion-softwareversion comments", RFC 4253 section 4.2; a
 * server may send other lines before it) and its binary packets until
 * NEWKEYS: the KEXINIT gives HASSH (the client's) and HASSH server
 * (Salesforce's: md5 of "kex;encryption;mac;compression", the client's
 * client-to-server lists, the server's server-to-client ones). After a
 * side's NEWKEYS its bytes are encrypted and not parsed; once both sides
 * are there (or at the flow's end) the session is handed to the EVE writer.
 */
#ifndef MK_SSH_H
#define MK_SSH_H

#include <stdint.h>
#include "applayer_int.h"

#define MK_SSH_VERSION_MAX 256 /* a banner is at most 255 bytes with its CR LF */

struct mk_ssh_side {
	uint8_t has_banner;
	char proto_version[MK_SSH_VERSION_MAX];	   /* "2.0" */
	char software_version[MK_SSH_VERSION_MAX]; /* "OpenSSH_9.2p1" (no comments) */
	char *hassh;				   /* "kex;enc;mac;cmp"; NULL without a KEXINIT */
	char hassh_hash[33];
};

/* What the EVE `ssh` record shows of a session. */
struct mk_ssh_info {
	struct mk_ssh_side client, server;
};

/* Whether @p (@len bytes, the start of a TCP direction) is SSH: 1 yes, 0 no, -1 need more. */
int mk_ssh_probe(const uint8_t *p, uint32_t len);

/* NULL when out of memory (counted). */
struct mk_ssh_flow *mk_ssh_flow_new(struct mk_app_thread *a);
void mk_ssh_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s, int to_client,
		 const uint8_t *data, uint32_t len, int gap);
/* The flow ends: the session is logged if it was not yet. */
void mk_ssh_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_ssh_flow *s);
void mk_ssh_flow_free(struct mk_ssh_flow *s);
/*
 * Buffer @id (detect_buf.h: MK_BUF_SSH_*) of a session (@tx: its struct
 * mk_ssh_info, the one transaction): ssh.proto and ssh.software are the
 * client's, the server's in a to-client rule (@to_client). 1 and the bytes,
 * or 0 when the session does not have it (ssh_detect.c).
 */
int mk_ssh_tx_buffer(const void *tx, unsigned int id, int to_client, const uint8_t **data,
		     uint32_t *len);

/*
 * The HASSH string of a KEXINIT payload @p (@len bytes, from the message
 * type on): the client-to-server lists, or the server-to-client ones for
 * @server. A malloc'd string, or NULL if malformed (or out of memory).
 */
char *mk_ssh_hassh(const uint8_t *p, uint32_t len, int server);

#endif /* MK_SSH_H */
