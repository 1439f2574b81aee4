/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Layer 2 of the frame parser: the Ethernet header and up to two VLAN tags,
 * of the outermost frame and of the Ethernet frames tunnels carry.
 */
#ifndef MK_PARSE_L2_H
#define MK_PARSE_L2_H

#include "parse_base.h"

/* The VLAN tag types Suricata decodes, accepted wherever a tag may appear. */
MK_INLINE int mk_is_vlan_tpid(__u16 type)
{
	return type == MK_ETH_P_8021Q || type == MK_ETH_P_8021AD || type == MK_ETH_P_QINQ1;
}

/*
 * Ethernet and up to two 802.1Q/802.1ad/0x9100 tags at *off, in any order.
 * Leaves *off at the L3 header and returns its ethertype in *ethertype.
 * VLAN ids are recorded only when @vlan is non-NULL (the outermost header).
 */
MK_INLINE int mk_parse_eth(struct mk_frame *f, __u32 *offp, __u16 *ethertype, __u16 *vlan,
			   struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = *offp;
	__u16 type;
	int i;

	MK_PULL(h, f, off, MK_ETH_HLEN, MK_REASON_ERR_TRUNC_ETH);
	type = mk_rd16(h + 12);
	MK_ADVANCE(off, MK_ETH_HLEN);
	for (i = 0; i < MK_VLAN_MAX; i++) {
		if (!mk_is_vlan_tpid(type))
			break;
		MK_PULL(h, f, off, 4, MK_REASON_ERR_TRUNC_VLAN);
		if (vlan)
			vlan[i] = mk_rd16(h) & 0x0fff;
		type = mk_rd16(h + 2);
		MK_ADVANCE(off, 4);
	}
	if (mk_is_vlan_tpid(type)) {
		p->reason = MK_REASON_ERR_VLAN_DEPTH;
		return MK_PARSE_ERROR;
	}
	*offp = off;
	*ethertype = type;
	return MK_PARSE_IP;
}

#endif /* MK_PARSE_L2_H */
