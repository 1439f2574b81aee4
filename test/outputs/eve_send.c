// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sends EVE lines read from stdin through a transport (redis or kafka) as
 * an output's writer thread would: batches of 256, what is not accepted
 * offered again after a back-off, poll() between batches; waits for the
 * last delivery reports, then prints the transport's counters as JSON.
 * The records of `meerkat -r` reach Redis or Kafka this way in the worked
 * example of docs/outputs.md and its test (kafka_pipeline.sh).
 *
 * usage: eve_send redis|kafka [KEY=VALUE ...] < eve.json
 *        (KEY as under the output's redis: or kafka: mapping, e.g.
 *        brokers=127.0.0.1:9092 topic=eve properties.acks=all)
 * Exit: 0 when every record was confirmed (redis: sent; kafka: delivered),
 * 1 otherwise, 2 on a usage or settings error.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "out_transport.h"

#define BATCH 256

static long long stat_of(const struct mk_out_transport *t, void *priv, const char *name)
{
	json_t *o = json_object();
	long long v;

	t->stats(priv, o);
	v = json_integer_value(json_object_get(o, name));
	json_decref(o);
	return v;
}

int main(int argc, char **argv)
{
	const struct mk_out_transport *t = NULL;
	struct mk_out_kv kv[MK_OUT_KV_MAX];
	struct iovec *recs = NULL;
	size_t n = 0, cap = 0, done = 0, len = 0, nkv = 0;
	char *line = NULL, why[256];
	const char *confirmed;
	ssize_t got;
	json_t *o;
	void *priv;
	int i, tries = 0;

	if (argc >= 2 && !strcmp(argv[1], "redis"))
		t = &mk_out_redis;
	else if (argc >= 2 && !strcmp(argv[1], "kafka"))
		t = &mk_out_kafka;
	if (!t) {
		fprintf(stderr, "usage: eve_send redis|kafka [KEY=VALUE ...] < eve.json\n");
		return 2;
	}
	for (i = 2; i < argc && nkv < MK_OUT_KV_MAX; i++) {
		const char *eq = strchr(argv[i], '=');

		if (!eq || eq - argv[i] >= (int)sizeof(kv[0].key) ||
		    strlen(eq + 1) >= sizeof(kv[0].val)) {
			fprintf(stderr, "eve_send: %s: expected KEY=VALUE\n", argv[i]);
			return 2;
		}
		snprintf(kv[nkv].key, sizeof(kv[nkv].key), "%.*s", (int)(eq - argv[i]), argv[i]);
		snprintf(kv[nkv].val, sizeof(kv[nkv].val), "%s", eq + 1);
		kv[nkv++].line = 0;
	}
	if (t->check(kv, nkv, why, sizeof(why)) || !(priv = t->create(kv, nkv, why, sizeof(why)))) {
		fprintf(stderr, "eve_send: %s: %s\n", t->name, why);
		return 2;
	}
	while ((got = getline(&line, &len, stdin)) > 0) {
		if (line[got - 1] == '\n')
			line[--got] = 0;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			recs = realloc(recs, cap * sizeof(*recs));
		}
		recs[n].iov_base = strdup(line);
		recs[n++].iov_len = got;
	}
	while (done < n && tries < 600) {
		size_t k = n - done < BATCH ? n - done : BATCH;
		int ret = t->send(priv, recs + done, k);

		if (ret > 0)
			done += ret;
		if (ret != (int)k) {
			tries++;
			usleep(100000); /* the writer's back-off */
		}
		if (t->poll)
			t->poll(priv);
	}
	confirmed = t == &mk_out_kafka ? "delivered" : "sent";
	for (i = 0; i < 300 && t == &mk_out_kafka &&
		    stat_of(t, priv, "delivered") + stat_of(t, priv, "failed") < (long long)done;
	     i++) {
		t->poll(priv);
		usleep(100000);
	}
	o = json_object();
	t->stats(priv, o);
	json_object_set_new(o, "records", json_integer(n));
	json_object_set_new(o, "accepted", json_integer(done));
	json_dumpf(o, stdout, JSON_COMPACT);
	putchar('\n');
	i = json_integer_value(json_object_get(o, confirmed)) == (long long)n ? 0 : 1;
	json_decref(o);
	t->destroy(priv, 5000);
	for (done = 0; done < n; done++)
		free(recs[done].iov_base);
	free(recs);
	free(line);
	return i;
}
