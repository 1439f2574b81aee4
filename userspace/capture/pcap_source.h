/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reads pcap and pcapng files through libpcap and says where each frame's
 * parse starts, so that every link type meets the same parser: Ethernet
 * (EN10MB) at 0 with MK_START_ETH; everything else with MK_START_IP after
 * its link header: raw IP (DLT 12, 14, 101, 228, 229) at 0, BSD loopback
 * (NULL, LOOP) after 4 bytes, PPP, PPP_SERIAL and C_HDLC after their 2 to 4
 * bytes, Linux cooked captures (SLL, SLL2) after 16 / 20 (docs/flow.md).
 *
 * Damage: the reader keeps the byte offset of every record, so that when
 * libpcap refuses one (truncated record or header, stray bytes at the end,
 * a length beyond what a record may hold) it can say which record of which
 * file, at which offset, and stop there with everything before it read.
 *
 * An optional BPF filter (libpcap's compiler, per file: it depends on the
 * link type) marks the frames it rejects; the caller counts them.
 */
#ifndef MK_PCAP_SOURCE_H
#define MK_PCAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pcap/pcap.h>

#define MK_PCAP_PATH_MAX 4096

struct mk_pcap_source {
	pcap_t *pcap;
	FILE *file; /* libpcap reads through it; ftell() gives record offsets */
	int dlt;
	int pcapng;
	uint32_t snaplen;
	uint64_t records;   /* records read from this file */
	uint64_t next_off;  /* byte offset of the next record (pcapng: next block) */
	uint64_t oversized; /* records longer than the snap length, cut to it by libpcap */
	struct bpf_program filter;
	int filtering;
	char path[MK_PCAP_PATH_MAX];
	/* reading stopped early on a damaged record */
	int damaged;
	uint64_t damage_record; /* 1-based number of the record that could not be read */
	uint64_t damage_off;	/* its byte offset in the file */
	char damage_why[PCAP_ERRBUF_SIZE];
};

struct mk_pcap_frame {
	const uint8_t *data; /* the frame as captured; valid until the next call */
	uint32_t caplen;
	uint32_t wirelen;
	uint64_t ts_us;
	uint16_t l2_len;    /* bytes before the parse start (link header) */
	uint8_t start;	    /* enum mk_parse_start */
	uint8_t non_ip;	    /* link header names a non-IP protocol (ARP, LCP, ...) */
	uint8_t link_error; /* frame shorter than its link header */
	uint8_t filtered;   /* the BPF filter rejected it */
};

/*
 * Opens @path; @filter (a BPF expression, or NULL) is compiled for its link
 * type. Errors are logged naming the file. Returns 0 or -errno; an
 * unsupported link type is -EPROTONOSUPPORT, a filter that does not
 * compile -EBADMSG.
 */
int mk_pcap_open(struct mk_pcap_source *s, const char *path, const char *filter);
/*
 * The same, but the error goes into @msg (naming the file) instead of the
 * log: a reader that opens files ahead of the one being processed logs it
 * when it gets there, so that messages keep the input order.
 */
int mk_pcap_open_msg(struct mk_pcap_source *s, const char *path, const char *filter, char *msg,
		     size_t len);
/*
 * 1 with a frame; 0 at the end of the file, clean or not: s->damaged says
 * the rest could not be read (damage_* say where and why).
 */
int mk_pcap_next(struct mk_pcap_source *s, struct mk_pcap_frame *fr);
void mk_pcap_close(struct mk_pcap_source *s);
const char *mk_pcap_link_name(int dlt);
/* Is @dlt a link type mk_pcap_open() accepts? */
int mk_pcap_link_supported(int dlt);

/*
 * The inputs of -r PATH: PATH itself, or when it is a directory every
 * regular file in it (dot files left out) in name order (strcmp). The
 * list and its strings are one allocation for free(). 0 or -errno (logged).
 */
int mk_pcap_inputs(const char *path, char ***files, size_t *nfiles);

#endif /* MK_PCAP_SOURCE_H */
