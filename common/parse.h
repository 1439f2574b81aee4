/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The frame parser, tunnel decapsulation plan, key builder and metadata
 * filler: plain C with a bounds check before every header read, compiled into
 * the XDP program and into user space. Offline mode therefore decapsulates and
 * hashes exactly as the driver does, and test/ proves both give the same bytes.
 *
 * The entry point: this file holds the general parser, the tunnel levels
 * after the first, the key and the metadata, and includes the layers, so
 * that including it brings the whole parser:
 *   parse_base.h         constants, the frame, the parse result, the cursor
 *   parse_l2.h           Ethernet and VLAN tags
 *   parse_l3.h           IPv4, IPv6 and its extension headers
 *   parse_l4.h           ports; one IP level, L3 then L4
 *   parse_tunnel.h       the tunnel decoders and the tunnel level
 *   parse_fast.h         the fast path for plain frames
 *   parse_fast_tunnel.h  the fast tunnel level
 */
#ifndef MK_PARSE_H
#define MK_PARSE_H

#include "hash.h"
#include "meta.h"
#include "parse_base.h"
#include "parse_l2.h"
#include "parse_l3.h"
#include "parse_l4.h"
#include "parse_tunnel.h"
#include "parse_fast.h"
#include "parse_fast_tunnel.h"

/*
 * Flags, canonical key and hash of the innermost level, once p->l3 and the
 * tunnels are known; @hk is the NH key of the configured seed.
 */
MK_INLINE void mk_parse_finish(const struct mk_hash_key *hk, struct mk_parse *p)
{
	int rev;

	if (p->l3.frag != MK_FRAG_NONE)
		p->flags |= MK_META_F_FRAGMENT |
			    (p->l3.frag == MK_FRAG_FIRST ? MK_META_F_FIRST_FRAG : 0);
	if (p->tunnel_depth)
		p->flags |= MK_META_F_TUNNEL;
	if (p->l3.truncated)
		p->flags |= MK_META_F_TRUNCATED;
	if (p->l3.family == MK_FAMILY_IPV6)
		p->flags |= MK_META_F_IPV6;

	rev = mk_flow_key_set_endpoints(&p->key, p->l3.src, p->l3.sport, p->l3.dst, p->l3.dport);
	if (rev)
		p->flags |= MK_META_F_REVERSE;
	p->key.vlan[0] = p->vlan[0];
	p->key.vlan[1] = p->vlan[1];
	p->key.tunnel_ctx = p->tunnel_ctx;
	p->key.proto = p->l3.proto;
	p->key.family = p->l3.family;
	/* from the parts, not the key just stored (mk_key_word16) */
	p->hash = mk_flow_hash_from(rev ? p->l3.dst : p->l3.src, rev ? p->l3.src : p->l3.dst,
				    rev ? mk_key_word16(p->l3.dport, p->l3.sport) :
					  mk_key_word16(p->l3.sport, p->l3.dport),
				    mk_key_word16(p->vlan[0], p->vlan[1]), p->tunnel_ctx,
				    mk_key_word8(p->l3.proto, p->l3.family), p->l3.family, hk);
}

/*
 * The general parser: every frame the fast path does not take, from the
 * start, up to and including the first tunnel level; mk_parse_frame() does
 * the deeper levels and the key. In BPF a global subprogram, so the verifier
 * checks it once and the rest of the program once after it, instead of once
 * per path through it: a frame off the fast path pays one call, and a frame
 * with one tunnel no more. Deeper levels are one call each, made by the
 * program itself so that no chain of calls exceeds the 512-byte stack.
 */
MK_SUBPROG int mk_parse_general(struct mk_frame *f, int start, const struct mk_parse_cfg *cfg,
				struct mk_parse *p)
{
	const __u8 *h;
	__u32 off = 0;
	__u16 ethertype;
	int ret;

	if (!cfg || !p)
		return MK_PARSE_ERROR;
	mk_memset(p, 0, sizeof(*p));
	if (start == MK_START_ETH) {
		ret = mk_parse_eth(f, &off, &ethertype, p->vlan, p);
		if (ret != MK_PARSE_IP)
			return ret;
		if (ethertype != MK_ETH_P_IPV4 && ethertype != MK_ETH_P_IPV6)
			return MK_PARSE_NON_IP;
	} else {
		MK_PULL(h, f, off, 1, MK_REASON_ERR_TRUNC_IPV4);
		if (!mk_ip_nibble_type(h, &ethertype))
			return MK_PARSE_NON_IP;
	}
	ret = mk_parse_ip_level(f, off, ethertype, &p->l3, p);
	if (ret != MK_PARSE_IP)
		return ret;

	if (mk_may_be_tunnel(&p->l3, cfg) && mk_tunnel_level(f, cfg, p) == MK_LEVEL_ERROR)
		return MK_PARSE_ERROR;
	return MK_PARSE_IP;
}

/*
 * The tunnel levels from @level on (one call each), then the key. The depth
 * limit holds across any mix of tunnel types: one level per pass, for as
 * long as the level before was stripped.
 */
MK_INLINE int mk_parse_levels(struct mk_frame *f, __u32 first, const struct mk_parse_cfg *cfg,
			      const struct mk_hash_key *hk, struct mk_parse *p)
{
	__u32 level;
	int ret;

	for (level = first; level < MK_TUNNEL_DEPTH_MAX + 1 && p->tunnel_depth == level &&
			    mk_may_be_tunnel(&p->l3, cfg);
	     level++) {
		ret = mk_parse_tunnel_level(f, cfg, p);
		if (ret == MK_LEVEL_ERROR)
			return MK_PARSE_ERROR;
		if (ret != MK_LEVEL_NEXT)
			break;
	}
	mk_parse_finish(hk, p);
	return MK_PARSE_IP;
}

/* Everything but the fast path: the general parser, deeper tunnel levels, the key. */
MK_INLINE int mk_parse_frame_general(struct mk_frame *f, int start, const struct mk_parse_cfg *cfg,
				     const struct mk_hash_key *hk, struct mk_parse *p)
{
	int ret;

	ret = mk_parse_general(f, start, cfg, p);
	if (ret != MK_PARSE_IP)
		return ret;
	return mk_parse_levels(f, 1, cfg, hk, p);
}

#ifndef __bpf__
/*
 * Parses one frame: returns enum mk_parse_status and fills @p. On
 * MK_PARSE_IP, p->key is canonical, p->hash seeded, and the offsets point
 * into the frame as received (before decapsulation). Ethernet frames try
 * the fast path first. (The XDP program makes the same calls with the NH
 * key the loader expanded into its read-only data.)
 */
static inline int mk_parse_frame(struct mk_frame *f, int start, const struct mk_parse_cfg *cfg,
				 struct mk_parse *p)
{
	const struct mk_hash_key *hk = mk_hash_key_of(cfg->seed);
	int fast = MK_FAST_NO;

	if (start == MK_START_ETH && !(cfg->parse_flags & MK_PARSE_F_GENERAL_ONLY))
		fast = mk_parse_fast(f, cfg, hk, p);
	if (fast == MK_FAST_TUNNEL)
		fast = mk_parse_fast_tunnel(f, cfg, hk, p);
	if (fast == MK_FAST_FLOW)
		return MK_PARSE_IP;
	if (fast == MK_FAST_TUNNEL)
		return mk_parse_levels(f, 0, cfg, hk, p);
	return mk_parse_frame_general(f, start, cfg, hk, p);
}
#endif

/* Bytes to strip so the frame starts with an Ethernet header and the inner IP packet. */
MK_INLINE __u32 mk_decap_strip(const struct mk_parse *p)
{
	return p->tunnel_depth ? (__u32)p->l3.l3_off - MK_ETH_HLEN : 0;
}

/* Ethernet header of the decapsulated frame: the innermost MACs and the inner IP type. */
MK_INLINE void mk_decap_eth(__u8 hdr[MK_ETH_HLEN], const __u8 macs[12], const struct mk_parse *p)
{
	mk_memcpy(hdr, macs, 12);
	hdr[12] = p->l3.family == MK_FAMILY_IPV6 ? 0x86 : 0x08;
	hdr[13] = p->l3.family == MK_FAMILY_IPV6 ? 0xdd : 0x00;
}

MK_INLINE __u32 mk_fold_addr(const __u32 *a)
{
	return a[0] ^ a[1] ^ a[2] ^ a[3];
}

/*
 * The metadata for a parsed frame, with offsets as they are after
 * decapsulation; @stamp is mk_meta_stamp_of_ns() of the arrival, 0 unstamped.
 */
MK_INLINE void mk_meta_fill(struct mk_meta *m, const struct mk_parse *p, __u32 stamp)
{
	__u32 strip = mk_decap_strip(p);
	__u32 l3_off = p->l3.l3_off - strip;

	m->hash = p->hash;
	m->tunnel_ctx = p->tunnel_ctx;
	m->tunnel_id = p->tunnel_id;
	m->flags = (__u8)p->flags;
	if (p->outer_family == MK_FAMILY_IPV6) {
		m->outer_src = mk_fold_addr(p->outer_src);
		m->outer_dst = mk_fold_addr(p->outer_dst);
		m->flags |= MK_META_F_OUTER_V6;
	} else {
		m->outer_src = p->outer_src[0];
		m->outer_dst = p->outer_dst[0];
	}
	/* whole words, built in registers: one store each */
	m->vlan_l3 = ((__u32)p->vlan[0] & 0xfff) | ((__u32)p->vlan[1] & 0xfff) << 12 |
		     (l3_off & 0xff) << 24;
	m->stamp_proto = (stamp & MK_META_STAMP_MASK) | (__u32)p->l3.proto << 24;
	m->l4_off = p->l3.l4_off ? (__u16)(p->l3.l4_off - strip) : 0;
	m->type_magic = (__u8)((p->tunnel_type & 0xf) | MK_META_MAGIC << 4);
}

#ifndef __bpf__
/*
 * User-space twin of the program's decapsulation: rewrites @frame in place
 * so that it starts, at the returned offset, with an Ethernet header and the
 * inner IP packet, exactly the bytes the XDP program delivers. Returns the
 * offset of the delivered frame inside @frame (0 when nothing is stripped).
 * Only for frames parsed from MK_START_ETH: a raw IP frame has no MACs to
 * copy (offline mode works from the parsed offsets and never calls this).
 */
static inline __u32 mk_decap_apply(__u8 *frame, const struct mk_parse *p)
{
	__u32 strip = mk_decap_strip(p);
	__u8 macs[12];

	if (!strip)
		return 0;
	memcpy(macs, frame + p->mac_off, sizeof(macs));
	mk_decap_eth(frame + strip, macs, p);
	return strip;
}
#endif

#endif /* MK_PARSE_H */
