// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the whole offline pipeline (what `meerkat -r` runs):
 * the input is written as a pcap/pcapng file into a private temporary
 * directory and mk_offline_run reads it with one worker, EVE output into a
 * temporary log directory, no progress line. The input's size picks
 * checksum validation (bit 0), midstream pickup with a 4 KiB depth
 * (bit 1) and a BPF filter (bit 2). The flow table is small (64 flows) so eviction and emergency
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
#include "log.h"
#include "offline.h"
#include "fuzz.h"


static char tmp_dir[256], pcap_path[300], log_dir[300], eve_path[320];

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
	o.seed = 0x6d65726bu;
	o.checksum = !(size & 1);
	o.filter = (size & 4) ? "not (udp port 53 or icmp6)" : NULL;
	o.progress = 0;
	o.eve_truncate = 1;
	o.eve.community_id = 1;
	err = mk_offline_run(&o, &conf, &st);
	CHECK(err <= 0);
	/* a damaged or unreadable input is no error: what was read is accounted */
	if (!err) {
		/* every frame read ends in exactly one reader and one worker outcome */
		CHECK(mk_offline_balanced(&st));
		CHECK(st.cnt[MK_OFF_FILES] + st.cnt[MK_OFF_FILES_FAILED] == 1);
		CHECK(st.cnt[MK_OFF_FILES_DAMAGED] <= st.cnt[MK_OFF_FILES]);
	}
	mk_config_free(&conf);
	return 0;
}
