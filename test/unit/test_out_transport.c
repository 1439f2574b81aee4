// SPDX-License-Identifier: GPL-2.0-only
/*
 * The settings of the Redis and Kafka transports (userspace/output/
 * out_redis.c, out_kafka.c): check() accepts every documented key at its
 * default and good values, and refuses each mistake with a message naming
 * the key (and its line); create() makes an instance without connecting.
 */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>
#include "out_transport.h"

struct row {
	const char *key, *val;
	const char *want; /* NULL: accepted; else a part of the message */
};

static int check_one(const struct mk_out_transport *t, const char *key, const char *val, char *why,
		     size_t len)
{
	struct mk_out_kv kv = { .line = 12 };

	snprintf(kv.key, sizeof(kv.key), "%s", key);
	snprintf(kv.val, sizeof(kv.val), "%s", val);
	why[0] = 0;
	return t->check(&kv, 1, why, len);
}

static void run(const struct mk_out_transport *t, const struct row *rows, size_t n)
{
	char why[256];
	size_t i;

	for (i = 0; i < n; i++) {
		int err = check_one(t, rows[i].key, rows[i].val, why, sizeof(why));

		if (!rows[i].want) {
			cr_expect_eq(err, 0, "%s %s: '%s' refused: %s", t->name, rows[i].key,
				     rows[i].val, why);
			continue;
		}
		cr_expect_eq(err, -EINVAL, "%s %s: '%s' accepted", t->name, rows[i].key,
			     rows[i].val);
		/* the key first, the line at the end, the reason between */
		cr_expect(!strncmp(why, rows[i].key, strlen(rows[i].key)) &&
				  why[strlen(rows[i].key)] == ':',
			  "%s: '%s' does not start with the key %s", t->name, why, rows[i].key);
		cr_expect(strstr(why, rows[i].want), "%s %s '%s': '%s' lacks '%s'", t->name,
			  rows[i].key, rows[i].val, why, rows[i].want);
		cr_expect(strstr(why, "(line 12)"), "%s: '%s' does not give the line", t->name,
			  why);
	}
}

Test(out_redis, keys)
{
	static const struct row rows[] = {
		{ "server", "127.0.0.1", NULL },
		{ "server", "", "must not be empty" },
		{ "port", "6379", NULL },
		{ "port", "1", NULL },
		{ "port", "65535", NULL },
		{ "port", "70000", "'70000' must be 1-65535" },
		{ "port", "0", "must be 1-65535" },
		{ "port", "-1", "must be 1-65535" },
		{ "port", "12ab", "must be 1-65535" },
		{ "port", "", "must be 1-65535" },
		{ "socket", "/run/redis/redis.sock", NULL },
		{ "socket", "", NULL },
		{ "socket",
		  "/a/very/long/path/that/does/not/fit/in/sun_path/of/a/unix/socket/address/"
		  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		  "longer than 107" },
		{ "mode", "list", NULL },
		{ "mode", "lpush", NULL },
		{ "mode", "rpush", NULL },
		{ "mode", "channel", NULL },
		{ "mode", "publish", NULL },
		{ "mode", "xadd", NULL },
		{ "mode", "stream", NULL },
		{ "mode", "LIST", "'LIST' is not a mode" },
		{ "mode", "set", "'set' is not a mode" },
		{ "key", "meerkat", NULL },
		{ "key", "", "must not be empty" },
		{ "stream-field", "eve", NULL },
		{ "stream-field", "", "must not be empty" },
		{ "stream-maxlen", "0", NULL },
		{ "stream-maxlen", "100000", NULL },
		{ "stream-maxlen", "1e6", "must be 0-" },
		{ "stream-trim-exact", "no", NULL },
		{ "stream-trim-exact", "maybe", "not a boolean" },
		{ "pipelining.enabled", "yes", NULL },
		{ "pipelining.enabled", "off", NULL },
		{ "pipelining.enabled", "2", "not a boolean" },
		{ "pipelining.batch-size", "64", NULL },
		{ "pipelining.batch-size", "0", "must be 1-10000" },
		{ "pipelining.batch-size", "10001", "must be 1-10000" },
		{ "timeout", "1000", NULL },
		{ "timeout", "5", "must be 10-60000" },
		{ "sever", "127.0.0.1", "not a redis key" },
		{ "pipelining.size", "10", "not a redis key" },
		{ "properties.acks", "all", "not a redis key" },
		{ "async", "yes", "Suricata's key is not needed" },
	};

	run(&mk_out_redis, rows, sizeof(rows) / sizeof(rows[0]));
}

Test(out_redis, combinations)
{
	struct mk_out_kv kv[2] = {
		{ .key = "port", .val = "6380", .line = 3 },
		{ .key = "socket", .val = "/run/redis.sock", .line = 4 },
	};
	char why[256];
	void *priv;

	cr_expect_eq(mk_out_redis.check(kv, 2, why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "socket: a unix socket replaces server and port") &&
			  strstr(why, "(line 4)"),
		  "%s", why);
	kv[1] = kv[0];
	kv[1].line = 5;
	cr_expect_eq(mk_out_redis.check(kv, 2, why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "port: given twice (line 5)"), "%s", why);
	/* create() does not connect: a port nobody listens on is fine */
	priv = mk_out_redis.create(kv, 1, why, sizeof(why));
	cr_assert(priv, "%s", why);
	mk_out_redis.destroy(priv, 0);
}

Test(out_kafka, keys)
{
	static const struct row rows[] = {
		{ "brokers", "127.0.0.1:9092", NULL },
		{ "brokers", "k1:9092,k2:9092", NULL },
		{ "brokers", "", "must be host:port" },
		{ "topic", "meerkat", NULL },
		{ "topic", "eve.alerts_v2-x", NULL },
		{ "topic", "", "is not a Kafka topic name" },
		{ "topic", "a topic", "'a topic' is not a Kafka topic name" },
		{ "topic", "..", "is not a Kafka topic name" },
		{ "partition-by", "community_id", NULL },
		{ "partition-by", "flow", NULL },
		{ "partition-by", "none", NULL },
		{ "partition-by", "community-id", "'community-id' is not one of community_id" },
		{ "compression", "none", NULL },
		{ "compression", "gzip", NULL },
		{ "compression", "snappy", NULL },
		{ "compression", "lz4", NULL },
		{ "compression", "zstd", NULL },
		{ "compression", "brotli", "'brotli' is not one of none, gzip" },
		{ "properties.acks", "all", NULL },
		{ "properties.linger.ms", "20", NULL },
		{ "properties.message.timeout.ms", "60000", NULL },
		{ "properties.enable.idempotence", "false", NULL },
		{ "properties.max.in.flight", "1", NULL },
		{ "properties.linger.ms", "fast", "Invalid value" },
		{ "properties.lingr.ms", "5", "No such configuration property" },
		{ "properties.bootstrap.servers", "x:9092", "set by the key `brokers`" },
		{ "properties.compression.codec", "gzip", "set by the key `compression`" },
		{ "properties.acks", "1", "must be all (-1) while enable.idempotence is true" },
		{ "properties.request.required.acks", "-1", NULL },
		{ "properties.max.in.flight", "6", "must be 1-5 while enable.idempotence" },
		{ "properties.retries", "0", "must be at least 1 while enable.idempotence" },
		{ "properties.queuing.strategy", "lifo", "must be fifo" },
		{ "properties.transactional.id", "x", "transactions are not supported" },
		{ "broker", "127.0.0.1:9092", "not a kafka key" },
		{ "mode", "list", "not a kafka key" },
	};

	run(&mk_out_kafka, rows, sizeof(rows) / sizeof(rows[0]));
}

/* without idempotence the constraints are off (docs: then max.in.flight 1 keeps the order) */
Test(out_kafka, idempotence_off)
{
	struct mk_out_kv kv[3] = {
		{ .key = "properties.enable.idempotence", .val = "false", .line = 1 },
		{ .key = "properties.acks", .val = "1", .line = 2 },
		{ .key = "properties.max.in.flight", .val = "1", .line = 3 },
	};
	char why[256] = "";

	cr_expect_eq(mk_out_kafka.check(kv, 3, why, sizeof(why)), 0, "%s", why);
}

Test(out_kafka, create_without_brokers)
{
	struct mk_out_kv kv[3] = {
		{ .key = "brokers", .val = "127.0.0.1:1", .line = 1 },
		{ .key = "topic", .val = "t", .line = 2 },
		{ .key = "topic", .val = "u", .line = 3 },
	};
	char why[256];
	json_t *o;
	void *priv;

	cr_expect_eq(mk_out_kafka.check(kv, 3, why, sizeof(why)), -EINVAL);
	cr_expect(strstr(why, "topic: given twice (line 3)"), "%s", why);
	/* librdkafka connects in the background: create() itself succeeds */
	priv = mk_out_kafka.create(kv, 2, why, sizeof(why));
	cr_assert(priv, "%s", why);
	o = json_object();
	mk_out_kafka.stats(priv, o);
	cr_expect(json_object_get(o, "produced") && json_object_get(o, "delivered") &&
		  json_object_get(o, "failed"));
	json_decref(o);
	mk_out_kafka.destroy(priv, 0);
}
