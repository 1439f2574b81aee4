/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The canonical flow key: one definition for the XDP program, the flow bypass
 * map and every user-space table. Both directions of a flow give the same
 * bytes, so one map entry and one flow record cover the whole conversation.
 */
#ifndef MK_FLOW_KEY_H
#define MK_FLOW_KEY_H

#include "compat.h"

enum mk_family {
	MK_FAMILY_NONE = 0,
	MK_FAMILY_IPV4 = 4,
	MK_FAMILY_IPV6 = 6,
};

/*
 * Addresses are stored as they are on the wire (network byte order); an IPv4
 * address occupies addr_*[0] and the other words are zero. "lo" is the
 * (address, port) endpoint that compares lower, "hi" the other one. Ports are
 * in network byte order too. Fragments carry ports 0 (see DESIGN 1.2).
 * Explicit padding and a memset before filling keep hashing and map lookups
 * deterministic: never fill this struct field by field on an unset stack slot.
 */
struct mk_flow_key {
	__u32 addr_lo[4];
	__u32 addr_hi[4];
	__u16 port_lo;
	__u16 port_hi;
	__u16 vlan[2];	  /* 12-bit VLAN ids, outermost first; 0 = untagged */
	__u32 tunnel_ctx; /* mk_tunnel_ctx() of every tunnel stripped; 0 = none */
	__u8 proto;	  /* inner L4 protocol number */
	__u8 family;	  /* enum mk_family */
	__u8 pad[2];
};
_Static_assert(sizeof(struct mk_flow_key) == 48, "mk_flow_key layout is shared with BPF");

/* Compares two (address, port) endpoints; ports compare as numbers. */
MK_INLINE int mk_endpoint_cmp(const __u32 *a, __u16 aport, const __u32 *b, __u16 bport)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	aport = (__u16)((aport >> 8) | (aport << 8));
	bport = (__u16)((bport >> 8) | (bport << 8));
	if (aport != bport)
		return aport < bport ? -1 : 1;
	return 0;
}

/*
 * Fills the address and port fields of @key from one packet's source and
 * destination. Returns 1 when the source became the "hi" side (the packet
 * travels hi -> lo), 0 otherwise: that is the direction bit.
 */
MK_INLINE int mk_flow_key_set_endpoints(struct mk_flow_key *key, const __u32 *src, __u16 sport,
					const __u32 *dst, __u16 dport)
{
	int reverse = mk_endpoint_cmp(src, sport, dst, dport) > 0;
	const __u32 *lo = reverse ? dst : src, *hi = reverse ? src : dst;
	int i;

	for (i = 0; i < 4; i++) {
		key->addr_lo[i] = lo[i];
		key->addr_hi[i] = hi[i];
	}
	key->port_lo = reverse ? dport : sport;
	key->port_hi = reverse ? sport : dport;
	return reverse;
}

#endif /* MK_FLOW_KEY_H */
