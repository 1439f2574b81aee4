/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fast path: the shapes most links carry (Ethernet with at most one tag,
 * IPv4 without options or IPv6 without extension headers, TCP or UDP) in a
 * straight line per family with whole-word loads, filling the parse result
 * exactly as the general parser does.
 */
#ifndef MK_PARSE_FAST_H
#define MK_PARSE_FAST_H

#include "hash.h"
#include "parse_tunnel.h"

/* A 32-bit load at any alignment: one load in BPF (the JIT allows it), memcpy in C. */
MK_INLINE __u32 mk_load32(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u32 *)p;
#else
	__u32 v;

	memcpy(&v, p, 4);
	return v;
#endif
}

MK_INLINE __u64 mk_load64(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u64 *)p;
#else
	__u64 v;

	memcpy(&v, p, 8);
	return v;
#endif
}

MK_INLINE __u16 mk_load16(const __u8 *p)
{
#ifdef __bpf__
	return *(const __u16 *)p;
#else
	__u16 v;

	memcpy(&v, p, 2);
	return v;
#endif
}

/* A 64-bit word of the parse result, stored whole (struct mk_parse is 8-byte aligned). */
typedef __u64 __attribute__((may_alias, aligned(8))) mk_word64;

/* Two 32-bit key words as one 64-bit word, @first at the lower address. */
MK_INLINE __u64 mk_key_dword(__u32 first, __u32 second)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u64)second << 32 | first;
#else
	return (__u64)first << 32 | second;
#endif
}

/* ... and back: the 32-bit words of a 64-bit load, in memory order. */
MK_INLINE __u32 mk_dw_first(__u64 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u32)x;
#else
	return (__u32)(x >> 32);
#endif
}

MK_INLINE __u32 mk_dw_second(__u64 x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__u32)(x >> 32);
#else
	return (__u32)x;
#endif
}

/* Is the address half @a above @b by mk_endpoint_cmp() (its first word, then its second)? */
MK_INLINE int mk_dw_above(__u64 a, __u64 b)
{
	return mk_dw_first(a) != mk_dw_first(b) ? mk_dw_first(a) > mk_dw_first(b) :
						  mk_dw_second(a) > mk_dw_second(b);
}

/*
 * The fast path's common tail: the level's fields as the general parser
 * leaves them for a plain IP level (mk_parse_ip_level), and the rest of @p
 * zeroed, except what the fast path writes whole: the key (mk_fast_key_tail()
 * and the address words; MK_FAST_TUNNEL zeroes it) and the level's addresses.
 * The outermost level zeroes (@ctx 0); an inner level finds @p zeroed by the
 * level around it, which wrote nothing the inner level does not overwrite
 * and the tunnel level does not set after it (mk_parse_fast_tunnel()).
 */
MK_INLINE void mk_fast_fill_l3(struct mk_parse *p, __u32 ip_len, __u32 l3_off, __u32 l4_off,
			       __u32 ports, __u8 proto, __u8 family, __u16 vlan, int truncated,
			       __u32 ctx)
{
	_Static_assert(__builtin_offsetof(struct mk_parse, l3) == sizeof(struct mk_flow_key) &&
			       __builtin_offsetof(struct mk_l3, ip_len) == 32,
		       "the key, then the level's addresses, lead struct mk_parse");
	if (!ctx)
		mk_memset(&p->l3.ip_len, 0, sizeof(*p) - sizeof(p->key) - 32);
	p->l3.ip_len = ip_len;
	p->l3.l3_off = (__u16)l3_off;
	p->l3.l4_off = (__u16)l4_off;
	p->l3.sport = (__u16)ports;
	p->l3.dport = (__u16)(ports >> 16);
	p->l3.family = family;
	p->l3.proto = proto;
	p->l3.truncated = (__u8)truncated;
	p->vlan[0] = vlan;
}

/*
 * The key's last two 64-bit words (ports, VLANs; tunnel context, protocol
 * and family), stored whole from the words the hash takes: a word load of
 * the key (the bypass table's compare, the hash map's jhash) then reads one
 * store, where field-by-field stores would make it wait (x86 forwards a store
 * to a load only when one store covers the load).
 */
MK_INLINE void mk_fast_key_tail(struct mk_parse *p, __u32 ports, __u32 vlans, __u32 ctx,
				__u32 proto_family)
{
	mk_word64 *k = (mk_word64 *)&p->key;

	k[4] = mk_key_dword(ports, vlans);
	k[5] = mk_key_dword(ctx, proto_family);
}

enum mk_fast_status {
	MK_FAST_NO = 0,	    /* not a fast-path frame: the general parser takes it */
	MK_FAST_FLOW = 1,   /* a plain flow: @p is complete */
	MK_FAST_TUNNEL = 2, /* a plain outer level that may be a tunnel: @p holds that level */
};

/* What the L4 header of a fast-path frame is (enum mk_fast_status), and its ports. */
MK_INLINE int mk_fast_l4(struct mk_frame *f, const __u8 *l4, __u8 proto,
			 const struct mk_parse_cfg *cfg, __u32 *ports)
{
	*ports = 0;
	switch (proto) {
	case MK_IPPROTO_TCP:
		if ((const void *)(l4 + 20) > MK_FRAME_END(f) || (l4[12] >> 4) < 5)
			return MK_FAST_NO;
		*ports = mk_load32(l4);
		return MK_FAST_FLOW;
	case MK_IPPROTO_UDP:
		if ((const void *)(l4 + 8) > MK_FRAME_END(f))
			return MK_FAST_NO;
		*ports = mk_load32(l4);
		/* as loaded: network byte order kept, as the key stores ports */
		return mk_udp_ports_kind((__u16)*ports, (__u16)(*ports >> 16), cfg) ?
			       MK_FAST_TUNNEL :
			       MK_FAST_FLOW;
	case MK_IPPROTO_L2TP:
		return mk_tunnel_on(cfg, MK_TUN_L2TP) ? MK_FAST_TUNNEL : MK_FAST_NO;
	case MK_IPPROTO_GRE:
		return (cfg->tunnel_off & (MK_TUN_GRE | MK_TUN_ERSPAN)) !=
				       (MK_TUN_GRE | MK_TUN_ERSPAN) ?
			       MK_FAST_TUNNEL :
			       MK_FAST_NO;
	case MK_IPPROTO_IPIP:
	case MK_IPPROTO_IPV6:
		return mk_tunnel_on(cfg, MK_TUN_IPIP) ? MK_FAST_TUNNEL : MK_FAST_NO;
	default:
		return MK_FAST_NO;
	}
}

/*
 * One plain IPv4 level at @ip (@l3_off into the frame); @vlan and the tunnel
 * context @ctx of the levels around it (0: none, the outermost level) go into
 * the key.
 */
MK_INLINE int mk_parse_fast_v4(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			       const struct mk_hash_key *hk, struct mk_parse *p, const __u8 *ip,
			       __u32 l3_off, __u16 vlan, __u32 ctx)
{
	__u32 ip_len, ports, src, dst, lo, hi, vlans, pf;
	__u16 sport, dport;
	int rev, kind, truncated;
	mk_word64 *k;

	if ((const void *)(ip + 20 + 8) > MK_FRAME_END(f))
		return MK_FAST_NO;
	/* version 4, no options, neither a fragment nor more to come */
	if (ip[0] != 0x45 || (mk_load16(ip + 6) & __builtin_bswap16(0x3fff)))
		return MK_FAST_NO;
	ip_len = mk_rd16(ip + 2);
	if (ip_len < 20)
		return MK_FAST_NO;
	kind = mk_fast_l4(f, ip + 20, ip[9], cfg, &ports);
	if (kind == MK_FAST_NO)
		return MK_FAST_NO;
	src = mk_load32(ip + 12);
	dst = mk_load32(ip + 16);
	truncated = (const void *)(ip + ip_len) > MK_FRAME_END(f);
	mk_fast_fill_l3(p, ip_len, l3_off, l3_off + 20, ports, ip[9], MK_FAMILY_IPV4, vlan,
			truncated, ctx);
	k = (mk_word64 *)p->l3.src;
	k[0] = mk_key_dword(src, 0);
	k[1] = 0;
	k[2] = mk_key_dword(dst, 0);
	k[3] = 0;
	if (kind == MK_FAST_TUNNEL) {
		mk_memset(&p->key, 0, sizeof(p->key));
		return kind;
	}

	sport = (__u16)ports;
	dport = (__u16)(ports >> 16);
	/* mk_flow_key_set_endpoints() for one address word */
	rev = src > dst || (src == dst && __builtin_bswap16(sport) > __builtin_bswap16(dport));
	lo = rev ? dst : src;
	hi = rev ? src : dst;
	p->flags = (truncated ? MK_META_F_TRUNCATED : 0) | (rev ? MK_META_F_REVERSE : 0);
	if (rev)
		ports = mk_key_word16(dport, sport);
	k = (mk_word64 *)&p->key;
	k[0] = mk_key_dword(lo, 0);
	k[1] = 0;
	k[2] = mk_key_dword(hi, 0);
	k[3] = 0;
	vlans = mk_key_word16(vlan, 0);
	pf = mk_key_word8(ip[9], MK_FAMILY_IPV4);
	mk_fast_key_tail(p, ports, vlans, ctx, pf);
	p->hash = mk_flow_hash_v4_words(lo, hi, ports, vlans, ctx, pf, hk);
	return MK_FAST_FLOW;
}

MK_INLINE int mk_parse_fast_v6(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			       const struct mk_hash_key *hk, struct mk_parse *p, const __u8 *ip,
			       __u32 l3_off, __u16 vlan, __u32 ctx)
{
	__u32 ip_len, ports, vlans, pf;
	__u64 s01, s23, d01, d23, t;
	int kind, truncated, rev;
	mk_word64 *k;
	__u8 proto;

	if ((const void *)(ip + 40 + 8) > MK_FRAME_END(f) || (ip[0] >> 4) != 6)
		return MK_FAST_NO;
	proto = ip[6];
	kind = mk_fast_l4(f, ip + 40, proto, cfg, &ports);
	if (kind == MK_FAST_NO)
		return MK_FAST_NO;
	ip_len = (__u32)mk_rd16(ip + 4) + 40;
	truncated = (const void *)(ip + ip_len) > MK_FRAME_END(f);
	mk_fast_fill_l3(p, ip_len, l3_off, l3_off + 40, ports, proto, MK_FAMILY_IPV6, vlan,
			truncated, ctx);
	/*
	 * The addresses as four 64-bit words: half the registers of eight
	 * 32-bit words, which BPF's ten could not hold with the rest (the
	 * compiler spilled them to the stack and read them back).
	 */
	s01 = mk_load64(ip + 8);
	s23 = mk_load64(ip + 16);
	d01 = mk_load64(ip + 24);
	d23 = mk_load64(ip + 32);
	k = (mk_word64 *)p->l3.src;
	k[0] = s01;
	k[1] = s23;
	k[2] = d01;
	k[3] = d23;
	if (kind == MK_FAST_TUNNEL) {
		mk_memset(&p->key, 0, sizeof(p->key));
		return kind;
	}

	/*
	 * mk_flow_key_set_endpoints(): the first address word that differs
	 * decides, then the ports (as numbers); the lo side goes to s, the hi
	 * side to d.
	 */
	if (s01 != d01)
		rev = mk_dw_above(s01, d01);
	else if (s23 != d23)
		rev = mk_dw_above(s23, d23);
	else
		rev = __builtin_bswap16((__u16)ports) > __builtin_bswap16((__u16)(ports >> 16));
	if (rev) {
		t = s01, s01 = d01, d01 = t;
		t = s23, s23 = d23, d23 = t;
		ports = ports >> 16 | ports << 16;
	}
	p->flags = MK_META_F_IPV6 | (truncated ? MK_META_F_TRUNCATED : 0) |
		   (rev ? MK_META_F_REVERSE : 0);
	k = (mk_word64 *)&p->key;
	k[0] = s01;
	k[1] = s23;
	k[2] = d01;
	k[3] = d23;
	vlans = mk_key_word16(vlan, 0);
	pf = mk_key_word8(proto, MK_FAMILY_IPV6);
	mk_fast_key_tail(p, ports, vlans, ctx, pf);
	p->hash = mk_flow_hash_v6_words(mk_dw_first(s01), mk_dw_second(s01), mk_dw_first(s23),
					mk_dw_second(s23), mk_dw_first(d01), mk_dw_second(d01),
					mk_dw_first(d23), mk_dw_second(d23), ports, vlans, ctx, pf,
					hk);
	return MK_FAST_FLOW;
}

/*
 * The fast path: the frames most links carry (untagged or single-tagged
 * Ethernet, IPv4 without options or IPv6 without extension headers, not a
 * fragment, TCP or UDP on ports that are not a tunnel's) in a straight line
 * per family, with whole-word loads and every check made before @p is
 * written. Returns MK_FAST_FLOW with @p filled exactly as the general parser
 * fills it (test/unit and test/bpf compare both on every fixture). The same
 * outer headers around a tunnel (UDP on a tunnel port, GRE, IP-in-IP, L2TPv3)
 * give MK_FAST_TUNNEL with that level in @p, as the general parser has it
 * before its first tunnel level, so the tunnel levels go on from there.
 * Anything else is MK_FAST_NO: the general parser takes the frame from the
 * start.
 */
MK_INLINE int mk_parse_fast(struct mk_frame *f, const struct mk_parse_cfg *cfg,
			    const struct mk_hash_key *hk, struct mk_parse *p)
{
	const __u8 *d = (const __u8 *)MK_FRAME_DATA(f);
	__u32 l3_off = MK_ETH_HLEN;
	__u16 type, vlan = 0;

	if ((const void *)(d + MK_ETH_HLEN + 4) > MK_FRAME_END(f))
		return MK_FAST_NO;
	type = mk_load16(d + 12);
	if (type == __builtin_bswap16(MK_ETH_P_8021Q) ||
	    type == __builtin_bswap16(MK_ETH_P_8021AD) ||
	    type == __builtin_bswap16(MK_ETH_P_QINQ1)) {
		vlan = mk_rd16(d + 14) & 0x0fff;
		type = mk_load16(d + 16);
		l3_off = MK_ETH_HLEN + 4;
	}
	if (type == __builtin_bswap16(MK_ETH_P_IPV4))
		return mk_parse_fast_v4(f, cfg, hk, p, d + l3_off, l3_off, vlan, 0);
	if (type == __builtin_bswap16(MK_ETH_P_IPV6))
		return mk_parse_fast_v6(f, cfg, hk, p, d + l3_off, l3_off, vlan, 0);
	return MK_FAST_NO;
}

#endif /* MK_PARSE_FAST_H */
