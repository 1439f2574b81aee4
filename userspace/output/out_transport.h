/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An EVE output's transport: what carries whole records (one JSON line
 * each, no newline) from an output's writer thread to a network service
 * (Redis, Kafka). The writer thread owns buffering, the bound, drop
 * counting and the back-off between failed sends; a transport only
 * connects, sends and reports. Its settings are the mapping under the
 * output's filetype name (`redis:`, `kafka:`), handed over as flat
 * key/value pairs ("server", "pipelining.batch-size", "properties.acks")
 * with their YAML line, so a transport checks its own keys and names the
 * one at fault.
 */
#ifndef MK_OUT_TRANSPORT_H
#define MK_OUT_TRANSPORT_H

#include <jansson.h>
#include <stddef.h>

struct iovec;

#define MK_OUT_KV_MAX 48

struct mk_out_kv {
	char key[64];  /* dotted path below the transport's mapping: "server", "properties.acks" */
	char val[256]; /* the scalar as written */
	unsigned int line; /* in the YAML file, for messages; 0 when unknown */
};

struct mk_out_transport {
	const char *name; /* the filetype: "redis", "kafka" */
	/*
	 * Checks the settings at configuration time (meerkat -T too): 0, or
	 * -EINVAL with a message in @why that names the key ("port: '70000' must
	 * be 1-65535"). No I/O.
	 */
	int (*check)(const struct mk_out_kv *kv, size_t n, char *why, size_t len);
	/* An instance from checked settings; no connection yet. NULL with @why set. */
	void *(*create)(const struct mk_out_kv *kv, size_t n, char *why, size_t len);
	/*
	 * Sends @n records, in order; connects (or reconnects) first when
	 * needed. Returns how many leading records were accepted (0..@n), or
	 * -errno when none were and the service is unreachable: the writer keeps
	 * the rest buffered and calls again after its back-off. Blocks at most
	 * about a second. Records accepted and later lost (a failed Kafka
	 * delivery) are the transport's to count, in stats().
	 */
	int (*send)(void *priv, const struct iovec *recs, size_t n);
	/* Called by the writer thread about every 100 ms (delivery reports, keep-alive). May be NULL. */
	void (*poll)(void *priv);
	/* Adds the transport's own counters to @obj (stats, metrics). May be NULL. */
	void (*stats)(void *priv, json_t *obj);
	/* Delivers what is in flight within @timeout_ms, then closes and frees. */
	void (*destroy)(void *priv, unsigned int timeout_ms);
};

/*
 * A transport's refusal of setting @kv into @why: "<key>: <reason> (line N)"
 * (the caller names the output and the file). Returns -EINVAL.
 */
int mk_out_kv_error(const struct mk_out_kv *kv, char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

extern const struct mk_out_transport mk_out_redis; /* output/out_redis.c (hiredis) */
extern const struct mk_out_transport mk_out_kafka; /* output/out_kafka.c (librdkafka) */

#endif /* MK_OUT_TRANSPORT_H */
