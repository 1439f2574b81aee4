// SPDX-License-Identifier: GPL-2.0-only
/* pcap/pcapng input (pcap_source.h): link types, record offsets, damage, filter, -r DIR. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "log.h"
#include "parse.h"
#include "pcap_source.h"

/* Link types by number: the DLT_ names differ between platforms (pcap/dlt.h). */
#define LT_NULL 0
#define LT_EN10MB 1
#define LT_PPP 9
#define LT_RAW 12	  /* DLT_RAW on Linux and most BSDs; OpenBSD's DLT_LOOP */
#define LT_RAW_OPENBSD 14 /* OpenBSD's DLT_RAW */
#define LT_PPP_SERIAL 50
#define LT_RAW_LINKTYPE 101 /* LINKTYPE_RAW, should libpcap ever pass it through */
#define LT_C_HDLC 104
#define LT_LOOP 108
#define LT_LINUX_SLL 113
#define LT_IPV4 228
#define LT_IPV6 229
#define LT_LINUX_SLL2 276

#define SLL_HLEN 16
#define SLL2_HLEN 20
#define LOOP_HLEN 4
#define CHDLC_HLEN 4
#define PCAP_REC_HLEN 16
#define PCAPNG_MAGIC 0x0a0d0d0au

/* BSD address families as loopback headers carry them (AF_INET6 differs by OS). */
#define BSD_AF_INET 2
#define BSD_AF_INET6_NETBSD 24 /* NetBSD, OpenBSD, BSD/OS */
#define BSD_AF_INET6_FREEBSD 28
#define BSD_AF_INET6_DARWIN 30

#define PPP_IPV4 0x0021
#define PPP_IPV6 0x0057

int mk_pcap_link_supported(int dlt)
{
	switch (dlt) {
	case LT_NULL:
	case LT_EN10MB:
	case LT_PPP:
	case LT_RAW:
	case LT_RAW_OPENBSD:
	case LT_PPP_SERIAL:
	case LT_RAW_LINKTYPE:
	case LT_C_HDLC:
	case LT_LOOP:
	case LT_LINUX_SLL:
	case LT_IPV4:
	case LT_IPV6:
	case LT_LINUX_SLL2:
		return 1;
	default:
		return 0;
	}
}

const char *mk_pcap_link_name(int dlt)
{
	if (dlt == LT_RAW_OPENBSD)
		return "RAW (OpenBSD)";
	return pcap_datalink_val_to_name(dlt) ?: "unknown";
}

int mk_pcap_open_msg(struct mk_pcap_source *s, const char *path, const char *filter, char *msg,
		     size_t len)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	uint32_t magic = 0;
	int err;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->file = fopen(path, "rb");
	if (!s->file) {
		err = -errno;
		snprintf(msg, len, "%s: %s", path, strerror(-err));
		return err;
	}
	/* pcapng's section header starts with the same bytes in either byte order */
	if (fread(&magic, 1, sizeof(magic), s->file) == sizeof(magic))
		s->pcapng = magic == PCAPNG_MAGIC;
	rewind(s->file);
	/* microseconds whatever the file holds: EVE timestamps have 6 digits */
	s->pcap = pcap_fopen_offline_with_tstamp_precision(s->file, PCAP_TSTAMP_PRECISION_MICRO,
							   errbuf);
	if (!s->pcap) {
		snprintf(msg, len, "%s: %s", path, errbuf);
		fclose(s->file);
		s->file = NULL;
		return -EINVAL;
	}
	/* from here pcap_close() closes the file */
	s->dlt = pcap_datalink(s->pcap);
	s->snaplen = (uint32_t)pcap_snapshot(s->pcap);
	s->next_off = (uint64_t)ftell(s->file);
	if (!mk_pcap_link_supported(s->dlt)) {
		snprintf(
			msg, len,
			"%s: link type %d (%s) is not supported (EN10MB, NULL, LOOP, PPP, PPP_SERIAL, "
			"C_HDLC, RAW, IPV4, IPV6, LINUX_SLL, LINUX_SLL2 are)",
			path, s->dlt, mk_pcap_link_name(s->dlt));
		err = -EPROTONOSUPPORT;
		goto fail;
	}
	if (filter) {
		if (pcap_compile(s->pcap, &s->filter, filter, 1, PCAP_NETMASK_UNKNOWN)) {
			snprintf(msg, len, "%s: filter '%s': %s", path, filter,
				 pcap_geterr(s->pcap));
			err = -EBADMSG;
			goto fail;
		}
		s->filtering = 1;
	}
	return 0;
fail:
	pcap_close(s->pcap);
	s->pcap = NULL;
	s->file = NULL;
	return err;
}

int mk_pcap_open(struct mk_pcap_source *s, const char *path, const char *filter)
{
	char msg[MK_PCAP_PATH_MAX + 2 * PCAP_ERRBUF_SIZE];
	int err = mk_pcap_open_msg(s, path, filter, msg, sizeof(msg));

	if (err)
		mk_err("%s", msg);
	return err;
}

/* A loopback header's address family, written in either byte order. */
static uint32_t loop_family(const uint8_t *d)
{
	uint32_t v = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
		     (uint32_t)d[3] << 24;

	return v > 0xffff ? __builtin_bswap32(v) : v;
}

static int loop_family_is_ip(uint32_t fam)
{
	return fam == BSD_AF_INET || fam == BSD_AF_INET6_NETBSD || fam == BSD_AF_INET6_FREEBSD ||
	       fam == BSD_AF_INET6_DARWIN;
}

/* PPP (RFC 1661), with or without the HDLC-like 0xff03 of RFC 1662. */
static void link_ppp(const uint8_t *d, uint32_t len, struct mk_pcap_frame *fr)
{
	uint32_t off = 0;
	uint16_t proto;

	if (len >= 2 && d[0] == 0xff && d[1] == 0x03)
		off = 2;
	if (len < off + 1) {
		fr->link_error = 1;
		return;
	}
	if (d[off] & 1) { /* protocol field compression: one byte */
		proto = d[off];
		off += 1;
	} else {
		if (len < off + 2) {
			fr->link_error = 1;
			return;
		}
		proto = mk_rd16(d + off);
		off += 2;
	}
	fr->l2_len = (uint16_t)off;
	fr->non_ip = proto != PPP_IPV4 && proto != PPP_IPV6;
}

/* Cisco HDLC: address, control, then an Ethertype. */
static void link_chdlc(const uint8_t *d, uint32_t len, struct mk_pcap_frame *fr)
{
	uint16_t type;

	if (len < CHDLC_HLEN) {
		fr->link_error = 1;
		return;
	}
	type = mk_rd16(d + 2);
	fr->l2_len = CHDLC_HLEN;
	fr->non_ip = type != MK_ETH_P_IPV4 && type != MK_ETH_P_IPV6;
}

static void link_loop(const uint8_t *d, uint32_t len, struct mk_pcap_frame *fr)
{
	if (len < LOOP_HLEN) {
		fr->link_error = 1;
		return;
	}
	fr->l2_len = LOOP_HLEN;
	fr->non_ip = !loop_family_is_ip(loop_family(d));
}

static void link_cooked(const uint8_t *d, uint32_t len, uint32_t hlen, uint32_t proto_off,
			struct mk_pcap_frame *fr)
{
	uint16_t proto;

	if (len < hlen) {
		fr->link_error = 1;
		return;
	}
	proto = mk_rd16(d + proto_off);
	fr->l2_len = (uint16_t)hlen;
	fr->non_ip = proto != MK_ETH_P_IPV4 && proto != MK_ETH_P_IPV6;
}

/* Where the parse of this frame starts, by link type. */
static void link_classify(const struct mk_pcap_source *s, const uint8_t *d, uint32_t len,
			  struct mk_pcap_frame *fr)
{
	fr->start = MK_START_IP;
	switch (s->dlt) {
	case LT_EN10MB:
		fr->start = MK_START_ETH;
		break;
	case LT_NULL:
	case LT_LOOP:
		link_loop(d, len, fr);
		break;
	case LT_RAW:
		/* OpenBSD wrote its DLT_LOOP as 12: a loopback header, not an IP version */
		if (len >= LOOP_HLEN && (d[0] >> 4) != 4 && (d[0] >> 4) != 6 &&
		    loop_family_is_ip(loop_family(d)))
			link_loop(d, len, fr);
		break;
	case LT_PPP:
		link_ppp(d, len, fr);
		break;
	case LT_PPP_SERIAL:
		/* PPP in HDLC-like framing, or Cisco PPP with HDLC framing (0x0f / 0x8f) */
		if (len >= 1 && (d[0] == 0x0f || d[0] == 0x8f))
			link_chdlc(d, len, fr);
		else
			link_ppp(d, len, fr);
		break;
	case LT_C_HDLC:
		link_chdlc(d, len, fr);
		break;
	case LT_LINUX_SLL:
		link_cooked(d, len, SLL_HLEN, 14, fr);
		break;
	case LT_LINUX_SLL2:
		link_cooked(d, len, SLL2_HLEN, 0, fr);
		break;
	default: /* raw IP: LT_RAW_OPENBSD, LT_RAW_LINKTYPE, LT_IPV4, LT_IPV6 */
		break;
	}
	if (fr->non_ip || fr->link_error)
		fr->l2_len = 0;
}

static uint32_t rd32_order(const uint8_t *p, int swapped)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap32(v) : v;
}

/*
 * libpcap stopped inside a pcapng file somewhere after next_off (blocks
 * other than packets may lie between): walk the block headers from there to
 * the first block that does not fit in the file, which is the damaged one.
 */
static uint64_t pcapng_damaged_block(struct mk_pcap_source *s)
{
	int swapped = pcap_is_swapped(s->pcap);
	uint64_t off = s->next_off, size;
	struct stat sb;
	uint8_t hdr[8];

	if (fstat(fileno(s->file), &sb))
		return off;
	size = (uint64_t)sb.st_size;
	while (off + sizeof(hdr) <= size) {
		uint32_t len;

		if (fseeko(s->file, (off_t)off, SEEK_SET) ||
		    fread(hdr, 1, sizeof(hdr), s->file) != sizeof(hdr))
			break;
		len = rd32_order(hdr + 4, swapped);
		if (len < 12 || (len & 3) || off + len > size)
			break;
		off += len;
	}
	return off;
}

int mk_pcap_next(struct mk_pcap_source *s, struct mk_pcap_frame *fr)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret;

	ret = pcap_next_ex(s->pcap, &h, &data);
	if (ret != 1) {
		if (ret == PCAP_ERROR_BREAK) /* clean end of file */
			return 0;
		/* anything else stops the file here, with everything before it kept */
		s->damaged = 1;
		s->damage_record = s->records + 1;
		s->damage_off = s->pcapng ? pcapng_damaged_block(s) : s->next_off;
		snprintf(s->damage_why, sizeof(s->damage_why), "%s", pcap_geterr(s->pcap));
		return 0;
	}
	s->records++;
	if (s->pcapng) {
		s->next_off = (uint64_t)ftell(s->file);
	} else if (h->caplen >= s->snaplen) {
		/* libpcap cuts a record longer than the snap length and skips the rest */
		uint64_t pos = (uint64_t)ftell(s->file);

		if (pos - s->next_off > PCAP_REC_HLEN + (uint64_t)h->caplen)
			s->oversized++;
		s->next_off = pos;
	} else {
		s->next_off += PCAP_REC_HLEN + (uint64_t)h->caplen;
	}
	memset(fr, 0, sizeof(*fr));
	fr->data = data;
	fr->caplen = h->caplen;
	fr->wirelen = h->len;
	fr->ts_us = (uint64_t)h->ts.tv_sec * 1000000 + (uint64_t)h->ts.tv_usec;
	if (s->filtering && !pcap_offline_filter(&s->filter, h, data)) {
		fr->filtered = 1;
		return 1;
	}
	link_classify(s, data, h->caplen, fr);
	return 1;
}

void mk_pcap_close(struct mk_pcap_source *s)
{
	if (s->filtering)
		pcap_freecode(&s->filter);
	s->filtering = 0;
	if (s->pcap)
		pcap_close(s->pcap); /* closes s->file */
	s->pcap = NULL;
	s->file = NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int mk_pcap_inputs(const char *path, char ***files, size_t *nfiles)
{
	size_t n = 0, cap = 0, bytes = 0, plen = strlen(path), i;
	char **names = NULL, **out, *p;
	struct dirent *de;
	struct stat sb;
	DIR *dir;
	int err = 0;

	*files = NULL;
	*nfiles = 0;
	if (stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
		/* a file, or something open() will say is missing */
		out = malloc(sizeof(*out) + plen + 1);
		if (!out)
			return -ENOMEM;
		out[0] = (char *)(out + 1);
		memcpy(out[0], path, plen + 1);
		*files = out;
		*nfiles = 1;
		return 0;
	}
	dir = opendir(path);
	if (!dir) {
		err = -errno;
		mk_err("%s: %s", path, strerror(-err));
		return err;
	}
	while ((de = readdir(dir))) {
		char full[MK_PCAP_PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		if (stat(full, &sb) || !S_ISREG(sb.st_mode))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*nn));

			if (!nn) {
				err = -ENOMEM;
				goto out;
			}
			names = nn;
		}
		names[n] = strdup(full);
		if (!names[n]) {
			err = -ENOMEM;
			goto out;
		}
		bytes += strlen(full) + 1;
		n++;
	}
	if (!n) {
		mk_err("%s: no files to read in this directory", path);
		err = -ENOENT;
		goto out;
	}
	qsort(names, n, sizeof(*names), name_cmp);
	out = malloc(n * sizeof(*out) + bytes);
	if (!out) {
		err = -ENOMEM;
		goto out;
	}
	p = (char *)(out + n);
	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]) + 1;

		out[i] = p;
		memcpy(p, names[i], l);
		p += l;
	}
	*files = out;
	*nfiles = n;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dir);
	if (err == -ENOMEM)
		mk_err("%s: %s", path, strerror(-err));
	return err;
}
