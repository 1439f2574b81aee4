// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test driver: runs a capture through one worker of the pipeline on this
 * thread (detect_harness.c) with a rule set and writes EVE alert and flow
 * records. Unlike meerkat -r it can turn the prefilter off (--no-prefilter:
 * every rule of a group verified on every packet), which the end-to-end test
 * uses to check that the prefilter changes no alert.
 *
 * usage: mk_detect_pcap -r FILE [-S RULES]... [-o EVE] [-c CLASSIFICATION]
 *        [-R REFERENCE] [-t THRESHOLD] [-a NAME=VALUE]... [-p NAME=VALUE]...
 *        [--payload] [--no-prefilter] [--strict]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "detect_harness.h"
#include "log.h"
#include "pcap_source.h"

#define VARS_MAX 64
#define FILES_MAX 64

static int add_var(struct mk_detect_var *v, unsigned int *n, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || *n == VARS_MAX)
		return -EINVAL;
	*eq = '\0';
	v[*n].name = arg;
	v[(*n)++].value = eq + 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "payload", no_argument, NULL, 'P' },
		{ "no-prefilter", no_argument, NULL, 'N' },
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct mk_detect_var avars[VARS_MAX], pvars[VARS_MAX];
	const char *files[FILES_MAX], *pcap = NULL, *out = NULL;
	struct mk_detect_cfg cfg = { 0 };
	struct mk_pcap_source src;
	struct mk_pcap_frame fr;
	struct mk_eve_alert_opts opts = { 0 };
	static struct harness h;
	unsigned int na = 0, np = 0, nf = 0;
	int c, err, ret;

	while ((c = getopt_long(argc, argv, "r:S:o:c:R:t:a:p:", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			pcap = optarg;
			break;
		case 'S':
			if (nf == FILES_MAX)
				return 2;
			files[nf++] = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			cfg.classification_file = optarg;
			break;
		case 'R':
			cfg.reference_config_file = optarg;
			break;
		case 't':
			cfg.threshold_file = optarg;
			break;
		case 'a':
			if (add_var(avars, &na, optarg))
				return 2;
			break;
		case 'p':
			if (add_var(pvars, &np, optarg))
				return 2;
			break;
		case 'P':
			opts.payload = 1;
			break;
		case 'N':
			cfg.no_prefilter = 1;
			break;
		case 's':
			cfg.strict = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s -r FILE [-S RULES]... [-o EVE] [-c CLASSIFICATION] "
				"[-R REFERENCE] [-t THRESHOLD] [-a NAME=VALUE]... [-p NAME=VALUE]... "
				"[--payload] [--no-prefilter] [--strict]\n",
				argv[0]);
			return 2;
		}
	}
	if (!pcap) {
		fprintf(stderr, "%s: -r FILE is required\n", argv[0]);
		return 2;
	}
	mk_log_set_level(MK_LOG_WARN);
	{
		struct mk_detect_cfg def;

		/* Suricata's default variables unless -a/-p give their own */
		mk_detect_cfg_defaults(&def);
		cfg.address_vars = na ? avars : def.address_vars;
		cfg.naddress_vars = na ? na : def.naddress_vars;
		cfg.port_vars = np ? pvars : def.port_vars;
		cfg.nport_vars = np ? np : def.nport_vars;
	}
	cfg.rule_files = files;
	cfg.nrule_files = nf;
	err = h_init_cfg(&h, &cfg);
	h.eve_opts = opts;
	h.no_collect = 1;
	if (err) {
		fprintf(stderr, "%s: engine: %s\n", argv[0], strerror(-err));
		return 1;
	}
	if (out) {
		h.eve = fopen(out, "w");
		if (!h.eve) {
			perror(out);
			return 1;
		}
	}
	err = mk_pcap_open(&src, pcap, NULL);
	if (err) {
		fprintf(stderr, "%s: %s\n", pcap, strerror(-err));
		return 1;
	}
	while ((ret = mk_pcap_next(&src, &fr)) == 1) {
		if (fr.non_ip || fr.link_error)
			continue;
		h_frame(&h, fr.data + fr.l2_len, fr.caplen - fr.l2_len, fr.start, fr.ts_us);
	}
	mk_pcap_close(&src);
	h_finish(&h);
	{
		char sum[512];
		const uint64_t *cnt = mk_detect_thread_counters(h.t);
		int i;

		mk_detect_engine_summary(h.eng, sum, sizeof(sum));
		fprintf(stderr, "rules: %s\n", sum);
		fprintf(stderr, "%llu packets, %llu alerts, %llu flows\n",
			(unsigned long long)h.packets, (unsigned long long)h.alert_records,
			(unsigned long long)h_flows_logged(&h));
		for (i = 0; i < MK_DETECT_CNT_MAX; i++)
			fprintf(stderr, "  %-24s %llu\n", mk_detect_counter_names[i],
				(unsigned long long)cnt[i]);
	}
	if (h.eve && fclose(h.eve)) {
		perror(out);
		return 1;
	}
	h.eve = NULL;
	err = h.err;
	h_free(&h);
	return ret < 0 || err ? 1 : 0;
}
