// SPDX-License-Identifier: GPL-2.0-only
/*
 * EVE records per second through the outputs of a configuration
 * (output/outputs.h), driven by bench_outputs.py (docs/outputs.md):
 *
 *   bench_outputs CONFIG RECORDS N
 *
 * loads CONFIG's outputs (each with its writer thread), reads RECORDS (an
 * eve.json), and hands N records (cycling through them) to the outputs in
 * 64 KB batches, as live workers do, every output waiting for room (as
 * offline mode), so that nothing is dropped and the time is the slowest
 * writer's. The clock stops when every buffer is drained. Prints one JSON
 * line per output: its counters plus "seconds", "records_per_s" and "mb_per_s".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "config.h"
#include "outputs.h"

#define BATCH (64u << 10)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	struct mk_config c;
	struct mk_outputs *o;
	char *recs, *batch, *p, *end, *nl;
	size_t len, blen = 0;
	uint64_t n, done = 0, brecs = 0;
	double t0, t;
	json_t *a, *v;
	size_t i;
	int i_cfg;

	if (argc != 4) {
		fprintf(stderr, "usage: %s CONFIG RECORDS N\n", argv[0]);
		return 2;
	}
	n = strtoull(argv[3], NULL, 10);
	mk_config_defaults(&c);
	if (mk_config_load(&c, argv[1]))
		return 1;
	recs = slurp(argv[2], &len);
	batch = malloc(BATCH + (1 << 20));
	if (!recs || !len || !batch) {
		fprintf(stderr, "%s: cannot read it\n", argv[2]);
		return 1;
	}
	for (i_cfg = 0; i_cfg < (int)c.output.neve; i_cfg++)
		c.output.eves[i_cfg].backpressure = 1;
	if (mk_outputs_new(&o, &c.output, c.output.log_dir, 1, 1) || mk_outputs_start(o))
		return 1;
	t0 = now_s();
	p = recs;
	end = recs + len;
	while (done < n) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			p = recs;
			continue;
		}
		memcpy(batch + blen, p, (size_t)(nl + 1 - p));
		blen += (size_t)(nl + 1 - p);
		brecs++;
		done++;
		p = nl + 1 < end ? nl + 1 : recs;
		if (blen >= BATCH || done == n) {
			mk_outputs_write(o, batch, blen, brecs);
			blen = 0;
			brecs = 0;
		}
	}
	mk_outputs_stop(o);
	t = now_s() - t0;
	a = mk_outputs_json(o);
	json_array_foreach(a, i, v)
	{
		char *s;
		double bytes = (double)json_integer_value(json_object_get(v, "bytes"));

		json_object_set_new(v, "seconds", json_real(t));
		json_object_set_new(v, "records_per_s", json_real((double)n / t));
		json_object_set_new(v, "mb_per_s", json_real(bytes / t / 1e6));
		s = json_dumps(v, JSON_COMPACT);
		puts(s);
		free(s);
	}
	json_decref(a);
	mk_outputs_free(o);
	mk_config_free(&c);
	free(recs);
	free(batch);
	return 0;
}
