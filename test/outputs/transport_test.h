/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the Redis and Kafka transport tests share: the failure count and its
 * CHECK, a transport's settings built by hand (struct kvs), a counter of
 * the transport's stats(), the records' release and a monotonic clock.
 */
#ifndef MK_TEST_TRANSPORT_TEST_H
#define MK_TEST_TRANSPORT_TEST_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>
#include "out_transport.h"

static int failures;

#define CHECK(cond, ...)                                             \
	do {                                                         \
		if (!(cond)) {                                       \
			failures++;                                  \
			printf("FAIL: %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                         \
			printf("\n");                                \
		}                                                    \
	} while (0)

struct kvs {
	struct mk_out_kv kv[MK_OUT_KV_MAX];
	size_t n;
};

static inline void kv_add(struct kvs *s, const char *key, const char *val)
{
	snprintf(s->kv[s->n].key, sizeof(s->kv[s->n].key), "%s", key);
	snprintf(s->kv[s->n].val, sizeof(s->kv[s->n].val), "%s", val);
	s->kv[s->n].line = 0;
	s->n++;
}

/* Counter @name of @tr's instance @priv (its stats()). */
static inline long long tr_stat(const struct mk_out_transport *tr, void *priv, const char *name)
{
	json_t *o = json_object();
	long long v;

	tr->stats(priv, o);
	v = json_integer_value(json_object_get(o, name));
	json_decref(o);
	return v;
}

static inline void free_records(struct iovec *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].iov_base);
	free(v);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* MK_TEST_TRANSPORT_TEST_H */
