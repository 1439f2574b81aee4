// SPDX-License-Identifier: GPL-2.0-only
/* Inline (IPS) mode helpers: reject frames and the fail-open forwarder (ips.h). */
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "forward.skel.h"
#include "ips.h"
#include "log.h"

static uint32_t sum16(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* An IP header from @src to @dst (16 bytes each, IPv4 in the first 4) carrying @l4len bytes. */
static uint32_t ip_header(uint8_t *o, int v6, const uint8_t *src, const uint8_t *dst, uint8_t proto,
			  uint32_t l4len)
{
	if (v6) {
		memset(o, 0, 40);
		o[0] = 0x60;
		put16(o + 4, (uint16_t)l4len);
		o[6] = proto;
		o[7] = 64;
		memcpy(o + 8, src, 16);
		memcpy(o + 24, dst, 16);
		return 40;
	}
	memset(o, 0, 20);
	o[0] = 0x45;
	put16(o + 2, (uint16_t)(20 + l4len));
	o[6] = 0x40; /* DF */
	o[8] = 64;
	o[9] = proto;
	memcpy(o + 12, src, 4);
	memcpy(o + 16, dst, 4);
	put16(o + 10, fold(sum16(0, o, 20)));
	return 20;
}

/* The L4 checksum over the pseudo-header of the IP header at @ip and @l4len bytes at @l4. */
static uint16_t l4_csum(const uint8_t *ip, int v6, const uint8_t *l4, uint32_t l4len, uint8_t proto)
{
	uint32_t sum = v6 ? sum16(0, ip + 8, 32) : sum16(0, ip + 12, 8);

	if (!v6 && proto == MK_IPPROTO_ICMP)
		return fold(sum16(0, l4, l4len)); /* ICMPv4 has no pseudo-header */
	sum += proto + l4len;
	return fold(sum16(sum, l4, l4len));
}

uint32_t mk_ips_reject_build(const uint8_t *frame, uint32_t len, const struct mk_parse *p,
			     int to_src, uint8_t *out, size_t cap)
{
	const uint8_t *ip = frame + p->l3.l3_off, *l4 = frame + p->l3.l4_off;
	int v6 = p->l3.family == MK_FAMILY_IPV6;
	uint8_t src[16], dst[16], *o;
	uint32_t l2 = p->l3.l3_off, iph, n;

	if (p->tunnel_depth || !p->l3.l4_off || l2 > 64 || cap < MK_IPS_REJECT_MAX)
		return 0;
	memcpy(src, v6 ? ip + 8 : ip + 12, v6 ? 16 : 4);
	memcpy(dst, v6 ? ip + 24 : ip + 16, v6 ? 16 : 4);
	/* the Ethernet header (and VLAN tags) as received, the MACs swapped toward the sender */
	memcpy(out, frame, l2);
	if (to_src) {
		memcpy(out, frame + 6, 6);
		memcpy(out + 6, frame, 6);
	}
	o = out + l2;
	if (p->l3.proto == MK_IPPROTO_TCP) {
		uint32_t thl = (uint32_t)(l4[12] >> 4) * 4, ip_end = p->l3.l3_off + p->l3.ip_len;
		uint32_t data = ip_end > p->l3.l4_off + thl && ip_end <= len ?
					ip_end - p->l3.l4_off - thl :
					0;
		uint32_t seq = get32(l4 + 4), ack = get32(l4 + 8);
		uint8_t *t;

		if (l4[13] & 0x04)
			return 0; /* never answer a RST */
		seq += data + ((l4[13] & 0x02) ? 1 : 0) + ((l4[13] & 0x01) ? 1 : 0);
		iph = ip_header(o, v6, to_src ? dst : src, to_src ? src : dst, MK_IPPROTO_TCP, 20);
		t = o + iph;
		memset(t, 0, 20);
		memcpy(t, to_src ? l4 + 2 : l4, 2);
		memcpy(t + 2, to_src ? l4 : l4 + 2, 2);
		/* toward the sender: its next expected byte; onward: where the sender was */
		put32(t + 4, to_src ? ack : seq);
		put32(t + 8, to_src ? seq : ack);
		t[12] = 5 << 4;
		t[13] = 0x14; /* RST, ACK */
		put16(t + 16, l4_csum(o, v6, t, 20, MK_IPPROTO_TCP));
		return l2 + iph + 20;
	}
	if (!to_src)
		return 0;
	/* ICMP port unreachable quoting the IP header and 8 bytes (RFC 792; RFC 4443: more) */
	n = p->l3.l4_off - p->l3.l3_off + 8;
	if (p->l3.l3_off + n > len || l2 + 40 + 8 + n > cap)
		return 0;
	iph = ip_header(o, v6, dst, src, v6 ? MK_IPPROTO_ICMPV6 : MK_IPPROTO_ICMP, 8 + n);
	memset(o + iph, 0, 8);
	o[iph] = v6 ? 1 : 3;	 /* destination unreachable */
	o[iph + 1] = v6 ? 4 : 3; /* port unreachable */
	memcpy(o + iph + 8, ip, n);
	put16(o + iph + 2,
	      l4_csum(o, v6, o + iph, 8 + n, v6 ? MK_IPPROTO_ICMPV6 : MK_IPPROTO_ICMP));
	return l2 + iph + 8 + n;
}

static int forwarder_attach_one(int fd, int ifindex, int skb_mode, int old_fd)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts, .old_prog_fd = old_fd);
	__u32 flags = skb_mode ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	char name[IF_NAMESIZE] = "?";
	int err;

	if_indextoname((unsigned int)ifindex, name);
	err = bpf_xdp_attach(ifindex, fd, flags | (old_fd >= 0 ? XDP_FLAGS_REPLACE : 0),
			     old_fd >= 0 ? &opts : NULL);
	if (err)
		mk_err("%s: cannot attach the fail-open forwarder%s: %s", name,
		       old_fd >= 0 ? " in meerkat's place" : "", strerror(-err));
	return err;
}

int mk_ips_forwarder_attach(int a, int b, int skb_mode, int old_a, int old_b)
{
	struct forward_bpf *skel = forward_bpf__open_and_load();
	__u32 ka = (__u32)a, kb = (__u32)b;
	int fd, done = 0;

	if (!skel) {
		mk_err("cannot load the fail-open forwarder: %s", strerror(errno));
		return 0;
	}
	fd = bpf_map__fd(skel->maps.mk_fwd_peer);
	if (bpf_map_update_elem(fd, &ka, &kb, BPF_ANY) ||
	    bpf_map_update_elem(fd, &kb, &ka, BPF_ANY)) {
		mk_err("cannot fill the fail-open forwarder's map: %s", strerror(errno));
		goto out;
	}
	fd = bpf_program__fd(skel->progs.meerkat_fwd);
	if (!forwarder_attach_one(fd, a, skb_mode, old_a))
		done |= 1;
	if (!forwarder_attach_one(fd, b, skb_mode, old_b))
		done |= 2;
out:
	/* the attached program holds itself and its map: nothing of ours stays open */
	forward_bpf__destroy(skel);
	return done;
}
