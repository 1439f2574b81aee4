// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test tool: renders a stats snapshot (`meerkatctl stats --json`, or an
 * EVE stats event's `stats`) as the metrics endpoint would, and names every
 * numeric leaf no metric reads. The live metrics test runs it on the real
 * daemon's stats.
 *
 * usage: prom_render FILE.json   (the text on stdout; exit 1 when a leaf is unexported)
 */
#include <stdio.h>
#include <jansson.h>
#include "prometheus.h"

static void report(const char *path, void *arg)
{
	(void)arg;
	fprintf(stderr, "prom_render: not exported: %s\n", path);
}

int main(int argc, char **argv)
{
	struct mk_prom_buf b = { 0 };
	json_error_t e;
	json_t *snap;
	unsigned int missing;

	if (argc != 2) {
		fprintf(stderr, "usage: prom_render FILE.json\n");
		return 2;
	}
	snap = json_load_file(argv[1], 0, &e);
	if (!snap) {
		fprintf(stderr, "prom_render: %s:%d: %s\n", argv[1], e.line, e.text);
		return 2;
	}
	if (mk_prom_render(snap, &b)) {
		fprintf(stderr, "prom_render: out of memory\n");
		return 2;
	}
	fwrite(b.data, 1, b.len, stdout);
	missing = mk_prom_unexported(snap, report, NULL);
	mk_prom_buf_free(&b);
	json_decref(snap);
	return missing ? 1 : 0;
}
