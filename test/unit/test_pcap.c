// SPDX-License-Identifier: GPL-2.0-only
/*
 * fixtures.pcap (for replay and xdp-test) holds exactly the frames of the
 * fixture table, in its order, readable by libpcap as Ethernet.
 */
#include <stdlib.h>
#include <pcap/pcap.h>
#include <criterion/criterion.h>

#include "helpers.h"

Test(pcap, same_frames_as_table)
{
	const char *path = getenv("MK_FIXTURES_PCAP");
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned int n = 0;
	pcap_t *pc;

	cr_assert_not_null(path, "MK_FIXTURES_PCAP not set");
	pc = pcap_open_offline(path, err);
	cr_assert_not_null(pc, "%s: %s", path, err);
	cr_assert_eq(pcap_datalink(pc), DLT_EN10MB);
	while (pcap_next_ex(pc, &h, &data) == 1) {
		const struct mk_fixture *fx;

		cr_assert_lt(n, mk_fixture_count, "more frames than fixtures");
		fx = &mk_fixtures[n];
		cr_expect_eq(h->caplen, fx->len, "%s: %u bytes in the pcap, %u in the table",
			     fx->name, h->caplen, fx->len);
		cr_expect_eq(h->len, h->caplen, "%s: stored truncated", fx->name);
		if (h->caplen == fx->len)
			cr_expect_arr_eq(data, fx->frame, fx->len, "%s differs", fx->name);
		n++;
	}
	pcap_close(pc);
	cr_expect_eq(n, mk_fixture_count);
}
