// SPDX-License-Identifier: GPL-2.0-only
/* Frame builder: see frames.h. */
#include <assert.h>
#include <string.h>
#include "frames.h"

enum patch_kind { P_IPV4, P_IPV6, P_UDP, P_GTPU };

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static __u8 *grow(struct frame *f, __u32 n)
{
	__u8 *p = f->b + f->len;

	assert(f->len + n <= FRAME_MAX);
	memset(p, 0, n);
	f->len += n;
	return p;
}

static void mark(struct frame *f, __u32 off, int kind)
{
	assert(f->npatch < FRAME_PATCH_MAX);
	f->patch[f->npatch].off = off;
	f->patch[f->npatch].kind = kind;
	f->npatch++;
}

void frame_init(struct frame *f)
{
	memset(f, 0, sizeof(*f));
}

void frame_eth(struct frame *f, const __u8 dst[6], const __u8 src[6], __u16 type)
{
	__u8 *p = grow(f, 14);

	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	put16(p + 12, type);
}

void frame_vlan(struct frame *f, __u16 tpid, __u16 vid, __u16 type)
{
	__u8 *p;

	/* the previous ethertype becomes the TPID, the tag carries the next type */
	put16(f->b + f->len - 2, tpid);
	p = grow(f, 4);
	put16(p, vid);
	put16(p + 2, type);
}

void frame_ipv4(struct frame *f, const __u8 *src, const __u8 *dst, __u8 proto)
{
	__u32 off = f->len;
	__u8 *p = grow(f, 20);

	p[0] = 0x45;
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	mark(f, off, P_IPV4);
}

void frame_ipv6(struct frame *f, const __u8 *src, const __u8 *dst, __u8 next)
{
	__u32 off = f->len;
	__u8 *p = grow(f, 40);

	p[0] = 0x60;
	p[6] = next;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	mark(f, off, P_IPV6);
}

void frame_tcp(struct frame *f, __u16 sport, __u16 dport)
{
	__u8 *p = grow(f, 20);

	put16(p, sport);
	put16(p + 2, dport);
	p[12] = 5 << 4;
	p[13] = 0x18; /* PSH ACK */
	put16(p + 14, 65535);
}

void frame_udp(struct frame *f, __u16 sport, __u16 dport)
{
	__u32 off = f->len;
	__u8 *p = grow(f, 8);

	put16(p, sport);
	put16(p + 2, dport);
	mark(f, off, P_UDP);
}

void frame_icmp_echo(struct frame *f, __u16 id)
{
	__u8 *p = grow(f, 8);

	p[0] = 8;
	put16(p + 4, id);
	put16(p + 6, 1);
}

void frame_gtpu(struct frame *f, __u32 teid)
{
	__u32 off = f->len;
	__u8 *p = grow(f, 8);

	p[0] = 0x30; /* version 1, PT=1, no optional fields */
	p[1] = 0xff; /* G-PDU */
	put32(p + 4, teid);
	mark(f, off, P_GTPU);
}

void frame_l2tpv2_ppp(struct frame *f, __u16 tunnel, __u16 session, __u16 ppp_proto)
{
	__u8 *p = grow(f, 10);

	p[0] = 0x00;
	p[1] = 0x02; /* version 2, data message */
	put16(p + 2, tunnel);
	put16(p + 4, session);
	p[6] = 0xff;
	p[7] = 0x03;
	put16(p + 8, ppp_proto);
}

void frame_l2tpv3_ip(struct frame *f, __u32 session)
{
	put32(grow(f, 4), session);
}

void frame_vxlan(struct frame *f, __u32 vni)
{
	__u8 *p = grow(f, 8);

	p[0] = 0x08; /* I: the VNI is valid */
	put32(p + 4, vni << 8);
}

void frame_geneve(struct frame *f, __u32 vni, __u16 proto, __u32 opt_len)
{
	__u8 *p = grow(f, 8 + opt_len);

	assert(opt_len % 4 == 0 && opt_len <= 252);
	p[0] = (__u8)(opt_len / 4);
	put16(p + 2, proto);
	put32(p + 4, vni << 8);
}

void frame_gre(struct frame *f, __u16 proto, bool with_key, __u32 key, bool with_seq)
{
	__u8 *p = grow(f, 4 + (with_key ? 4 : 0) + (with_seq ? 4 : 0));

	put16(p, (with_key ? 0x2000 : 0) | (with_seq ? 0x1000 : 0));
	put16(p + 2, proto);
	if (with_key)
		put32(p + 4, key);
	if (with_seq)
		put32(p + (with_key ? 8 : 4), 1);
}

void frame_erspan2(struct frame *f, __u16 session)
{
	__u8 *p = grow(f, 8);

	put16(p, 1 << 12);
	put16(p + 2, session & 0x3ff);
}

void frame_erspan3(struct frame *f, __u16 session)
{
	__u8 *p = grow(f, 12);

	put16(p, 2 << 12);
	put16(p + 2, session & 0x3ff);
}

void frame_bytes(struct frame *f, const void *src, __u32 n)
{
	memcpy(grow(f, n), src, n);
}

void frame_finish(struct frame *f)
{
	unsigned int i;

	for (i = 0; i < f->npatch; i++) {
		__u32 off = f->patch[i].off;
		__u8 *p = f->b + off;

		switch (f->patch[i].kind) {
		case P_IPV4:
			put16(p + 2, f->len - off);
			break;
		case P_IPV6:
			put16(p + 4, f->len - off - 40);
			break;
		case P_UDP:
			put16(p + 4, f->len - off);
			break;
		case P_GTPU:
			put16(p + 2, f->len - off - 8);
			break;
		}
	}
}
