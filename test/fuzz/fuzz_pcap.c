// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the whole offline pipeline (what `meerkat -r` runs):
 * the input is written as a pcap/pcapng file into a private temporary
 * directory and mk_offline_run reads it with one worker, EVE output into a
 * temporary log directory, no progress line. The input's size picks
 * checksum validation (bit 0), midstream pickup with a 4 KiB depth
 * (bit 1), a BPF filter (bit 2) and detection with a small rule set
 * (bit 3: stream and packet content, pcre, flowbits, byte_jump, ICMP,
 * threshold; built once, shared read-only by every run). The flow table is small (64 flows) so eviction and emergency
 * mode are reached, and so is the defragmenter's limit (64 KiB memcap, 16
 * fragments). A run returns 0 or a negative errno, never crashes, and frees
 * everything (LeakSanitizer).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "detect.h"
#include "log.h"
#include "offline.h"
#include "fuzz.h"

static char tmp_dir[256], pcap_path[300], log_dir[300], eve_path[320];
static struct mk_detect_master *rules;

static const char rules_text[] =
	"alert tcp any any -> any any (msg:\"f stream\"; flow:established,to_server; content:\"GET \"; depth:4; sid:1;)\n"
	"alert tcp any any -> any any (msg:\"f pcre\"; content:\"HTTP/1.\"; pcre:\"/^[A-Z]+ \\/[^ ]* HTTP/\"; sid:2;)\n"
	"alert udp any any -> any 53 (msg:\"f dns\"; content:\"|01 00 00 01|\"; offset:2; depth:4; flowbits:set,q; sid:3;)\n"
	"alert udp any 53 -> any any (msg:\"f answer\"; flowbits:isset,q; dsize:>12; sid:4;)\n"
	"alert udp any any -> any any (msg:\"f jump\"; byte_jump:1,0,relative; byte_test:1,<,200,0,relative; sid:5;)\n"
	"alert icmp any any -> any any (msg:\"f icmp\"; itype:<9; threshold:type limit,track by_src,count 3,seconds 5; sid:6;)\n"
	"alert ip any any -> any any (msg:\"f ttl\"; ttl:<2; sid:7;)\n"
	"alert tcp any any -> any any (msg:\"f flags\"; flags:S,12; flow:stateless; detection_filter:track by_dst,count 2,seconds 1; sid:8;)\n";

static void cleanup(void)
{
	unlink(eve_path);
	rmdir(log_dir);
	unlink(pcap_path);
	rmdir(tmp_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* tmpfs if there is one: every run truncates and rewrites two files */
	const char *base = getenv("TMPDIR") ?: access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";

	(void)argc;
	(void)argv;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/fuzz_pcap.XXXXXX", base);
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(pcap_path, sizeof(pcap_path), "%s/in.pcap", tmp_dir);
	snprintf(log_dir, sizeof(log_dir), "%s/log", tmp_dir);
	snprintf(eve_path, sizeof(eve_path), "%s/eve.json", log_dir);
	atexit(cleanup);
	/* most inputs are broken files: their one error line is enough */
	mk_log_set_level(MK_LOG_ERROR);
	{
		struct mk_detect_cfg dc;

		mk_detect_cfg_defaults(&dc);
		dc.rules_text = rules_text;
		dc.rules_text_name = "fuzz.rules";
		dc.strict = 1;
		if (mk_detect_master_new(&dc, &rules))
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mk_offline_opts o = { 0 };
	struct mk_offline_stats st;
	struct mk_config conf;
	ssize_t w;
	int fd, err;

	fd = open(pcap_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	w = size ? write(fd, data, size) : 0;
	CHECK(w == (ssize_t)size);
	close(fd);

	/* the input's size picks checksums on/off and midstream with a small depth */
	mk_config_defaults(&conf);
	if (size & 2) {
		conf.stream.midstream = 1;
		conf.stream.depth = 4096;
	}
	conf.flow.max_flows = 64;
	conf.flow.hash_size = 64;
	/* the smallest the config allows: the pool is preallocated on every run */
	conf.defrag.memcap = 1 << 16;
	conf.defrag.max_frags = 16;
	o.pcap_path = pcap_path;
	o.log_dir = log_dir;
	o.workers = 1;
	/* both reader paths: the dispatcher reading itself, and a read thread */
	o.reader_threads = (size & 16) ? 2 : 1;
	o.seed = 0x6d65726bu;
	o.checksum = !(size & 1);
	o.filter = (size & 4) ? "not (udp port 53 or icmp6)" : NULL;
	o.progress = 0;
	o.eve_truncate = 1;
	o.eve.community_id = 1;
	o.alert_opts.payload = 1;
	o.alert_opts.payload_printable = 1;
	o.detect = (size & 8) ? rules : NULL;
	err = mk_offline_run(&o, &conf, &st);
	CHECK(err <= 0);
	/* a damaged or unreadable input is no error: what was read is accounted */
	if (!err) {
		/* every frame read ends in exactly one reader and one worker outcome */
		CHECK(mk_offline_balanced(&st));
		CHECK(st.cnt[MK_OFF_FILES] + st.cnt[MK_OFF_FILES_FAILED] == 1);
		CHECK(st.cnt[MK_OFF_FILES_DAMAGED] <= st.cnt[MK_OFF_FILES]);
		/* an alert is a match that survived noalert and suppress */
		CHECK(st.pipe.detect[MK_DETECT_CNT_ALERTS] <=
		      st.pipe.detect[MK_DETECT_CNT_MATCHES]);
		CHECK(o.detect || !st.pipe.detect[MK_DETECT_CNT_PACKETS]);
	}
	mk_config_free(&conf);
	return 0;
}
