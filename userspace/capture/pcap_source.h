/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reads pcap and pcapng files through libpcap and says where each frame's
 * parse starts: Ethernet (EN10MB) at 0 with MK_START_ETH; raw IP
 * (RAW/IPV4/IPV6) at 0 and Linux cooked captures (SLL, SLL2) after their
 * header, both with MK_START_IP, so every link type meets the same parser.
 */
#ifndef MK_PCAP_SOURCE_H
#define MK_PCAP_SOURCE_H

#include <stdint.h>
#include <pcap/pcap.h>

struct mk_pcap_source {
	pcap_t *pcap;
	int dlt;
	char path[256];
};

struct mk_pcap_frame {
	const uint8_t *data; /* the frame as captured; valid until the next call */
	uint32_t caplen;
	uint32_t wirelen;
	uint64_t ts_us;
	uint16_t l2_len; /* bytes before the parse start (SLL/SLL2 header) */
	uint8_t start;	 /* enum mk_parse_start */
	uint8_t non_ip;	 /* cooked header names a non-IP protocol */
};

/* Returns 0 or -errno; an unsupported link type is -EPROTONOSUPPORT. */
int mk_pcap_open(struct mk_pcap_source *s, const char *path);
/* 1 with a frame, 0 at the end of the file, -errno on a read error. */
int mk_pcap_next(struct mk_pcap_source *s, struct mk_pcap_frame *fr);
void mk_pcap_close(struct mk_pcap_source *s);
const char *mk_pcap_link_name(int dlt);

#endif /* MK_PCAP_SOURCE_H */
