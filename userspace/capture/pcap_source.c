// SPDX-License-Identifier: GPL-2.0-only
/* pcap/pcapng input: link-type dispatch to a parser start and offset. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "parse.h"
#include "pcap_source.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

#define SLL_HLEN 16
#define SLL2_HLEN 20

int mk_pcap_open(struct mk_pcap_source *s, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	/* microseconds whatever the file holds: EVE timestamps have 6 digits */
	s->pcap = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_MICRO, errbuf);
	if (!s->pcap) {
		mk_err("%s: %s", path, errbuf);
		return -EINVAL;
	}
	s->dlt = pcap_datalink(s->pcap);
	switch (s->dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
		return 0;
	default:
		mk_err("%s: link type %d (%s) is not supported (EN10MB, RAW, IPV4, IPV6, LINUX_SLL, LINUX_SLL2 are)",
		       path, s->dlt, pcap_datalink_val_to_name(s->dlt) ?: "unknown");
		pcap_close(s->pcap);
		s->pcap = NULL;
		return -EPROTONOSUPPORT;
	}
}

static int cooked_proto_is_ip(uint16_t proto)
{
	return proto == MK_ETH_P_IPV4 || proto == MK_ETH_P_IPV6;
}

int mk_pcap_next(struct mk_pcap_source *s, struct mk_pcap_frame *fr)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret = pcap_next_ex(s->pcap, &h, &data);

	if (ret == PCAP_ERROR_BREAK)
		return 0;
	if (ret != 1) {
		mk_err("%s: %s", s->path, pcap_geterr(s->pcap));
		return -EIO;
	}
	fr->data = data;
	fr->caplen = h->caplen;
	fr->wirelen = h->len;
	fr->ts_us = (uint64_t)h->ts.tv_sec * 1000000 + (uint64_t)h->ts.tv_usec;
	fr->l2_len = 0;
	fr->non_ip = 0;
	fr->start = MK_START_IP;
	switch (s->dlt) {
	case DLT_EN10MB:
		fr->start = MK_START_ETH;
		break;
	case DLT_LINUX_SLL:
		/* protocol type at bytes 14-15 */
		fr->l2_len = SLL_HLEN;
		fr->non_ip = h->caplen < SLL_HLEN || !cooked_proto_is_ip(mk_rd16(data + 14));
		break;
	case DLT_LINUX_SLL2:
		/* protocol type at bytes 0-1 */
		fr->l2_len = SLL2_HLEN;
		fr->non_ip = h->caplen < SLL2_HLEN || !cooked_proto_is_ip(mk_rd16(data));
		break;
	default:
		break;
	}
	if (fr->non_ip)
		fr->l2_len = 0;
	return 1;
}

void mk_pcap_close(struct mk_pcap_source *s)
{
	if (s->pcap)
		pcap_close(s->pcap);
	s->pcap = NULL;
}

const char *mk_pcap_link_name(int dlt)
{
	return pcap_datalink_val_to_name(dlt) ?: "unknown";
}
