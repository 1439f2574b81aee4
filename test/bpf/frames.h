/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny frame builder for the BPF tests' stand-in fixture table and for
 * test/bench: headers are appended front to back and every length field
 * (IP total/payload length, UDP length, GTP-U length) is patched by
 * frame_finish() once the whole frame is known. Written independently of
 * common/parse.h so that it does not share the parser's mistakes.
 */
#ifndef MK_TEST_FRAMES_H
#define MK_TEST_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#define FRAME_MAX 512
#define FRAME_PATCH_MAX 8

struct frame {
	__u8 b[FRAME_MAX];
	__u32 len;
	unsigned int npatch;
	struct {
		__u32 off;
		int kind;
	} patch[FRAME_PATCH_MAX];
};

void frame_init(struct frame *f);
void frame_eth(struct frame *f, const __u8 dst[6], const __u8 src[6], __u16 type);
void frame_vlan(struct frame *f, __u16 tpid, __u16 vid, __u16 type);
/* src/dst: 4 bytes, network order */
void frame_ipv4(struct frame *f, const __u8 *src, const __u8 *dst, __u8 proto);
void frame_ipv6(struct frame *f, const __u8 *src, const __u8 *dst, __u8 next);
void frame_tcp(struct frame *f, __u16 sport, __u16 dport);
void frame_udp(struct frame *f, __u16 sport, __u16 dport);
void frame_icmp_echo(struct frame *f, __u16 id);
void frame_gtpu(struct frame *f, __u32 teid);
/* L2TPv2 data message without length, sequence or offset fields, then PPP 0xff03 + proto */
void frame_l2tpv2_ppp(struct frame *f, __u16 tunnel, __u16 session, __u16 ppp_proto);
/* L2TPv3 over IP: session id, no cookie, no sublayer (an Ethernet pseudowire follows) */
void frame_l2tpv3_ip(struct frame *f, __u32 session);
/* VXLAN header with the I flag (an Ethernet frame follows) */
void frame_vxlan(struct frame *f, __u32 vni);
/* Geneve version 0 with opt_len bytes of options (a multiple of 4) */
void frame_geneve(struct frame *f, __u32 vni, __u16 proto, __u32 opt_len);
/* GRE version 0; with_key adds the key field, with_seq the sequence number */
void frame_gre(struct frame *f, __u16 proto, bool with_key, __u32 key, bool with_seq);
/* ERSPAN type II (version 1) and type III (version 2, no subheader) headers */
void frame_erspan2(struct frame *f, __u16 session);
void frame_erspan3(struct frame *f, __u16 session);
void frame_bytes(struct frame *f, const void *p, __u32 n);
/* Fills every length field from the final frame size. */
void frame_finish(struct frame *f);

#endif /* MK_TEST_FRAMES_H */
