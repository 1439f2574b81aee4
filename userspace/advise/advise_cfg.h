/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The settings of the router advisor (docs/outputs-bgp.md), the top-level
 * `advise-router:` section: which alerts become block announcements (sid
 * list, classtype, rule metadata), what is announced (an RTBH blackhole
 * route for the offending address, or a flowspec discard rule for the
 * alert's 5-tuple), for how long, how many at once, what may never be
 * announced, and the unix socket ExaBGP's process (meerkat-exabgp-pipe)
 * reads the announcements from.
 */
#ifndef MK_ADVISE_CFG_H
#define MK_ADVISE_CFG_H

#include <stdint.h>

struct mk_cidr;

#define MK_ADVISE_PATH_MAX 108 /* sun_path */
#define MK_ADVISE_TEXT_MAX 128

enum mk_advise_mode {
	MK_ADVISE_BLACKHOLE = 0, /* /32 or /128 of the offender, next-hop and RTBH community */
	MK_ADVISE_FLOWSPEC,	 /* flowspec rule for the 5-tuple, action discard */
};

/* A `metadata:` selector: a rule whose metadata holds `key value`. */
struct mk_advise_meta {
	const char *key, *value;
};

struct mk_advise_cfg {
	uint8_t enabled;
	uint8_t mode; /* enum mk_advise_mode */
	uint32_t ttl; /* seconds an announcement lives after its last alert */
	uint32_t max_active;
	uint32_t queue_size;  /* alerts per worker queue, a power of two */
	uint32_t socket_mode; /* permission bits of the socket (octal in the file: 0660) */
	char socket[MK_ADVISE_PATH_MAX];
	char socket_group[64]; /* the socket's group ("" = meerkat's): ExaBGP's user's group */
	char next_hop[MK_ADVISE_TEXT_MAX];    /* IPv4 blackhole next hop */
	char next_hop_v6[MK_ADVISE_TEXT_MAX]; /* IPv6 blackhole next hop */
	char communities[MK_ADVISE_TEXT_MAX]; /* "65535:666 no-export": ExaBGP's list */
	/* selection: an alert is chosen when any one matches; default: metadata "block yes" */
	const uint32_t *sids; /* sorted */
	unsigned int nsids;
	const char *const *classtypes;
	unsigned int nclasstypes;
	const struct mk_advise_meta *meta;
	unsigned int nmeta;
	/* never announced */
	const struct mk_cidr *allow;
	unsigned int nallow;
};

struct mk_cfg_table;
extern const struct mk_cfg_table mk_advise_cfg_table;

#endif /* MK_ADVISE_CFG_H */
