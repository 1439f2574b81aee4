// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test tool: renders a stats snapshot (`meerkatctl stats --json`, or an
 * EVE stats event's `stats`) as the metrics endpoint would, and names every
 * numeric leaf no metric reads. The live metrics test runs it on the real
 * daemon's stats.
 *
 * usage: prom_render FILE.json   (the text on stdout; exit 1 when a leaf is unexported)
 *        prom_render --list      (every metric family as a markdown table, docs/metrics.md)
 */
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "prometheus.h"

static void report(const char *path, void *arg)
{
	(void)arg;
	fprintf(stderr, "prom_render: not exported: %s\n", path);
}

static const char *const type_names[] = { "counter", "gauge", "histogram" };

/* One row per family: its first row's help; the labels of all its rows. */
static int list(void)
{
	const struct mk_prom_metric *t;
	unsigned int n, i;
	char labels[128];

	t = mk_prom_metrics(&n);
	if (!t)
		return 2;
	printf("| metric | type | labels | meaning |\n|---|---|---|---|\n");
	for (i = 0; i < n; i++) {
		if (i && !strcmp(t[i - 1].name, t[i].name))
			continue;
		mk_prom_metric_labels(&t[i], labels, sizeof(labels));
		printf("| `%s` | %s | %s | %s |\n", t[i].name, type_names[t[i].type], labels,
		       t[i].help);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct mk_prom_buf b = { 0 };
	json_error_t e;
	json_t *snap;
	unsigned int missing;

	if (argc == 2 && !strcmp(argv[1], "--list"))
		return list();
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
