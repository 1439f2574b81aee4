// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Kafka transport (userspace/output/out_kafka.c) against librdkafka's
 * mock cluster (three brokers in this process, real Kafka protocol on
 * 127.0.0.1), through its vtable as an output's writer thread drives it:
 *   1. records of 30 flows, interleaved, to a topic of 6 partitions: a
 *      librdkafka consumer (and kcat, when installed) reads every record
 *      back once, keyed by its community_id, each flow on one partition and
 *      in the order sent; produced = delivered;
 *   2. the message key of each partition-by setting, on whole and cut
 *      records (community_id, its flow_id fallback, flow, none);
 *   3. broker failures: retriable errors pushed on Produce requests, and
 *      every broker down then up again: delivery completes, in order, with
 *      no duplicate (the idempotent producer); brokers down for longer than
 *      properties.message.timeout.ms: every record counted `failed`; a
 *      fatal error of the idempotent producer: replaced at the next send.
 */
#include <jansson.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "out_transport.h"
#include "transport_test.h"

static rd_kafka_mock_cluster_t *mc;
static char bootstraps[256];

static void *create(const char *topic, const char *partition_by, const char *timeout_ms)
{
	char why[256] = "";
	struct kvs s = { .n = 0 };
	void *priv;

	kv_add(&s, "brokers", bootstraps);
	kv_add(&s, "topic", topic);
	if (partition_by)
		kv_add(&s, "partition-by", partition_by);
	kv_add(&s, "compression", "lz4");
	kv_add(&s, "properties.linger.ms", "5");
	if (timeout_ms)
		kv_add(&s, "properties.message.timeout.ms", timeout_ms);
	if (mk_out_kafka.check(s.kv, s.n, why, sizeof(why))) {
		printf("FAIL: check refuses the settings: %s\n", why);
		exit(1);
	}
	priv = mk_out_kafka.create(s.kv, s.n, why, sizeof(why));
	if (!priv) {
		printf("FAIL: create: %s\n", why);
		exit(1);
	}
	return priv;
}

/* The records of @flows flows, @per each, interleaved; "seq" counts within a flow. */
static struct iovec *make_records(unsigned int flows, unsigned int per, const char *tag)
{
	struct iovec *v = calloc((size_t)flows * per, sizeof(*v));
	unsigned int i;

	for (i = 0; i < flows * per; i++) {
		unsigned int f = i % flows, seq = i / flows;
		char *line;
		int len = asprintf(
			&line,
			"{\"timestamp\":\"2026-12-04T21:00:00.%06u+0000\",\"flow_id\":%u,"
			"\"event_type\":\"flow\",\"src_ip\":\"10.0.0.%u\",\"community_id\":"
			"\"1:%s-flow-%02u=\",\"seq\":%u,\"text\":\"caf\xc3\xa9 \\\"q\\\"\"}",
			i, 7000 + f, f, tag, f, seq);
		if (len < 0)
			abort();
		v[i].iov_base = line;
		v[i].iov_len = len;
	}
	return v;
}

/* The writer's loop: records not accepted (queue full) are offered again after a poll. */
static void send_all(void *priv, const struct iovec *recs, size_t n, size_t chunk)
{
	size_t done = 0;
	double deadline = now_s() + 30;

	while (done < n && now_s() < deadline) {
		size_t k = n - done < chunk ? n - done : chunk;
		int ret = mk_out_kafka.send(priv, recs + done, k);

		if (ret > 0)
			done += ret;
		if (ret != (int)k) {
			mk_out_kafka.poll(priv);
			usleep(10000);
		}
	}
	CHECK(done == n, "%zu of %zu records accepted in 30 s", done, n);
}

/* Polls (as the writer does every 100 ms, faster here) until @want reports came back. */
static void wait_reports(void *priv, long long want, double seconds)
{
	double deadline = now_s() + seconds;

	while (tr_stat(&mk_out_kafka, priv, "delivered") + tr_stat(&mk_out_kafka, priv, "failed") <
		       want &&
	       now_s() < deadline) {
		mk_out_kafka.poll(priv);
		usleep(20000);
	}
}

struct msg {
	char *key, *val;
	size_t klen, vlen;
	int32_t part;
	int64_t off;
};

static void free_msgs(struct msg *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].key);
		free(m[i].val);
	}
	free(m);
}

/* Reads every partition of @topic from the beginning: @want messages, and 0.5 s more for extras. */
static struct msg *consume(const char *topic, int parts, size_t want, size_t *got)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_topic_partition_list_t *tp = rd_kafka_topic_partition_list_new(parts);
	struct msg *m = calloc(want * 2 + 16, sizeof(*m));
	double deadline = now_s() + 30, extra = 0;
	char err[256];
	rd_kafka_t *rk;
	int p;

	*got = 0;
	if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps, err, sizeof(err)) ||
	    rd_kafka_conf_set(conf, "group.id", "meerkat-test", err, sizeof(err)) ||
	    rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof(err))) {
		printf("FAIL: consumer configuration: %s\n", err);
		exit(1);
	}
	rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
	if (!rk) {
		printf("FAIL: consumer: %s\n", err);
		exit(1);
	}
	for (p = 0; p < parts; p++)
		rd_kafka_topic_partition_list_add(tp, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
	rd_kafka_assign(rk, tp);
	rd_kafka_topic_partition_list_destroy(tp);
	while (now_s() < deadline && (!extra || now_s() < extra) && *got < want * 2 + 16) {
		rd_kafka_message_t *km = rd_kafka_consumer_poll(rk, 100);

		if (*got >= want && !extra)
			extra = now_s() + 0.5;
		if (!km)
			continue;
		if (!km->err) {
			struct msg *x = &m[(*got)++];

			x->klen = km->key_len;
			x->key = km->key ? strndup(km->key, km->key_len) : NULL;
			x->vlen = km->len;
			x->val = malloc(km->len + 1);
			memcpy(x->val, km->payload, km->len);
			x->val[km->len] = 0;
			x->part = km->partition;
			x->off = km->offset;
		}
		rd_kafka_message_destroy(km);
	}
	rd_kafka_consumer_close(rk);
	rd_kafka_destroy(rk);
	return m;
}

/*
 * Every record sent came back once: keyed by its community_id, each flow
 * on one partition, in the order sent (its seq 0, 1, 2, ...).
 */
static void check_flows(const char *what, const struct iovec *recs, unsigned int flows,
			unsigned int per, const struct msg *m, size_t got)
{
	int part_of[64], next_seq[64], parts_used = 0, seen_part[64] = { 0 };
	unsigned int f, bad = 0;
	size_t i;

	CHECK(got == (size_t)flows * per, "%s: %zu messages read back, %u sent", what, got,
	      flows * per);
	for (f = 0; f < flows; f++) {
		part_of[f] = -1;
		next_seq[f] = 0;
	}
	for (i = 0; i < got && !bad; i++) {
		const char *k = m[i].key ? strstr(m[i].key, "-flow-") : NULL;
		unsigned int seq;
		size_t idx;

		if (!k || sscanf(k, "-flow-%u=", &f) != 1 || f >= flows) {
			CHECK(false, "%s: message %zu has key %s", what, i,
			      m[i].key ? m[i].key : "(none)");
			bad++;
			break;
		}
		if (part_of[f] < 0) {
			part_of[f] = m[i].part;
			if (!seen_part[m[i].part & 63]++)
				parts_used++;
		}
		seq = next_seq[f]++;
		idx = (size_t)seq * flows + f;
		CHECK(m[i].part == part_of[f], "%s: flow %u on partitions %d and %d", what, f,
		      part_of[f], m[i].part);
		if (idx >= (size_t)flows * per || m[i].vlen != recs[idx].iov_len ||
		    memcmp(m[i].val, recs[idx].iov_base, m[i].vlen)) {
			CHECK(false, "%s: flow %u message %u is not record %zu sent: %s", what, f,
			      seq, idx, m[i].val);
			bad++;
		} else if (strncmp(m[i].key, strstr(recs[idx].iov_base, "\"community_id\":\"") + 16,
				   m[i].klen)) {
			CHECK(false, "%s: message %zu keyed %s", what, i, m[i].key);
			bad++;
		}
	}
	CHECK(parts_used > 1, "%s: the %u flows all landed on one partition", what, flows);
	if (!bad && got == (size_t)flows * per)
		printf("ok: %s: %zu records read back once each, %u flows on %d partitions, each "
		       "flow on one partition in the order sent\n",
		       what, got, flows, parts_used);
}

/* 1. many flows, one topic, a librdkafka consumer and kcat */
static void test_flows(void)
{
	const unsigned int flows = 30, per = 100;
	struct iovec *recs = make_records(flows, per, "a");
	size_t n = (size_t)flows * per, got;
	struct msg *m;
	void *priv;

	rd_kafka_mock_topic_create(mc, "mk-flows", 6, 3);
	priv = create("mk-flows", NULL, NULL);
	send_all(priv, recs, n, 128);
	wait_reports(priv, n, 30);
	CHECK(tr_stat(&mk_out_kafka, priv, "produced") == (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "delivered") == (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "failed") == 0 &&
		      tr_stat(&mk_out_kafka, priv, "unkeyed") == 0,
	      "flows: produced %lld delivered %lld failed %lld unkeyed %lld, want %zu %zu 0 0",
	      tr_stat(&mk_out_kafka, priv, "produced"), tr_stat(&mk_out_kafka, priv, "delivered"),
	      tr_stat(&mk_out_kafka, priv, "failed"), tr_stat(&mk_out_kafka, priv, "unkeyed"), n,
	      n);
	mk_out_kafka.destroy(priv, 5000);
	m = consume("mk-flows", 6, n, &got);
	check_flows("30 flows to 6 partitions (librdkafka consumer)", recs, flows, per, m, got);
	free_msgs(m, got);

	if (system("command -v kcat >/dev/null 2>&1") == 0) {
		char cmd[512], line[1024];
		struct msg *k = calloc(n * 2 + 16, sizeof(*k));
		size_t nk = 0;
		FILE *f;

		/* key, partition, payload: the payloads hold no tab nor newline */
		snprintf(
			cmd, sizeof(cmd),
			"timeout 60 kcat -C -q -e -b '%s' -t mk-flows -o beginning -f '%%k\\t%%p\\t%%s\\n'",
			bootstraps);
		f = popen(cmd, "r");
		while (f && nk < n * 2 + 16 && fgets(line, sizeof(line), f)) {
			char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

			if (!t2)
				continue;
			*t1 = *t2 = 0;
			line[strcspn(t2 + 1, "\n") + (t2 + 1 - line)] = 0;
			k[nk].key = strdup(line);
			k[nk].klen = strlen(line);
			k[nk].part = atoi(t1 + 1);
			k[nk].val = strdup(t2 + 1);
			k[nk].vlen = strlen(t2 + 1);
			nk++;
		}
		CHECK(f && pclose(f) == 0, "kcat -C failed: %s", cmd);
		check_flows("30 flows to 6 partitions (kcat -C)", recs, flows, per, k, nk);
		free_msgs(k, nk);
	} else {
		printf("note: kcat not installed, the librdkafka consumer alone read the topic\n");
	}
	free_records(recs, n);
}

/* 2. the message key of each partition-by setting */
static void test_keys(void)
{
	static const struct {
		const char *rec, *community_id, *flow;
	} t[] = {
		{ "{\"flow_id\":123,\"community_id\":\"1:AAAA=\"}", "1:AAAA=", "123" },
		{ "{\"flow_id\":123}", "123", "123" },			  /* fallback */
		{ "{\"flow_id\":45,\"community_id\":\"\"}", "45", "45" }, /* empty */
		{ "{\"community_id\":\"1:abc", NULL, NULL },		  /* cut in the value */
		{ "{\"flow_id\":12", NULL, NULL },			  /* cut in the number */
		{ "{\"flow_id\":", NULL, NULL },
		{ "{\"event_type\":\"stats\"}", NULL, NULL },
		{ "{\"text\":\"\\\"community_id\\\":\\\"x\\\"\"}", NULL,
		  NULL }, /* inside a string */
		{ "", NULL, NULL },
	};
	static const char *const modes[] = { "community_id", "flow", "none" };
	const size_t n = sizeof(t) / sizeof(t[0]);
	struct iovec recs[sizeof(t) / sizeof(t[0])];
	unsigned int mi, bad = 0;
	size_t i, got;

	for (i = 0; i < n; i++) {
		recs[i].iov_base = (void *)t[i].rec;
		recs[i].iov_len = strlen(t[i].rec);
	}
	for (mi = 0; mi < 3; mi++) {
		char topic[32];
		long long unkeyed = 0;
		struct msg *m;
		void *priv;

		snprintf(topic, sizeof(topic), "mk-keys-%s", modes[mi]);
		rd_kafka_mock_topic_create(mc, topic, 1, 1);
		priv = create(topic, modes[mi], NULL);
		send_all(priv, recs, n, n);
		wait_reports(priv, n, 30);
		for (i = 0; i < n; i++) {
			const char *want = mi == 0 ? t[i].community_id : mi == 1 ? t[i].flow : NULL;

			unkeyed += !want;
		}
		CHECK(tr_stat(&mk_out_kafka, priv, "delivered") == (long long)n &&
			      tr_stat(&mk_out_kafka, priv, "unkeyed") == unkeyed,
		      "partition-by %s: delivered %lld unkeyed %lld, want %zu %lld", modes[mi],
		      tr_stat(&mk_out_kafka, priv, "delivered"),
		      tr_stat(&mk_out_kafka, priv, "unkeyed"), n, unkeyed);
		mk_out_kafka.destroy(priv, 5000);
		m = consume(topic, 1, n, &got);
		CHECK(got == n, "partition-by %s: %zu of %zu read back", modes[mi], got, n);
		for (i = 0; i < got && i < n; i++) {
			const char *want = mi == 0 ? t[i].community_id : mi == 1 ? t[i].flow : NULL;

			if ((want == NULL) != (m[i].key == NULL) ||
			    (want && strcmp(want, m[i].key)) || strcmp(m[i].val, t[i].rec)) {
				CHECK(false, "partition-by %s: %s keyed %s, want %s", modes[mi],
				      t[i].rec, m[i].key ? m[i].key : "(none)",
				      want ? want : "(none)");
				bad++;
			}
		}
		if (!bad && got == n)
			printf("ok: partition-by %s: the keys of %zu whole and cut records\n",
			       modes[mi], n);
		free_msgs(m, got);
	}
}

/* 3a. retriable errors on Produce requests: retried, in order, once */
static void test_request_errors(void)
{
	const unsigned int flows = 10, per = 100;
	struct iovec *recs = make_records(flows, per, "err");
	size_t n = (size_t)flows * per, got;
	struct msg *m;
	void *priv;

	rd_kafka_mock_topic_create(mc, "mk-errors", 3, 3);
	priv = create("mk-errors", NULL, NULL);
	/* ApiKey 0 = Produce */
	rd_kafka_mock_push_request_errors(mc, 0, 6, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
					  RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
					  RD_KAFKA_RESP_ERR__TRANSPORT,
					  RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
					  RD_KAFKA_RESP_ERR__TRANSPORT,
					  RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE);
	send_all(priv, recs, n, 50);
	wait_reports(priv, n, 30);
	CHECK(tr_stat(&mk_out_kafka, priv, "delivered") == (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "failed") == 0,
	      "request errors: delivered %lld failed %lld, want %zu 0",
	      tr_stat(&mk_out_kafka, priv, "delivered"), tr_stat(&mk_out_kafka, priv, "failed"), n);
	mk_out_kafka.destroy(priv, 5000);
	m = consume("mk-errors", 3, n, &got);
	check_flows("6 Produce requests failed (not leader, timeouts, disconnects)", recs, flows,
		    per, m, got);
	free_msgs(m, got);
	free_records(recs, n);
}

/* 3b. every broker down for 1.5 s, then up: delivery completes */
static void test_brokers_down_up(void)
{
	const unsigned int flows = 10, per = 50;
	struct iovec *recs = make_records(flows, per, "down");
	size_t n = (size_t)flows * per, got;
	struct msg *m;
	double t0;
	void *priv;

	rd_kafka_mock_topic_create(mc, "mk-down", 3, 3);
	priv = create("mk-down", NULL, NULL);
	send_all(priv, recs, 100, 100); /* connected, topic known */
	wait_reports(priv, 100, 30);
	rd_kafka_mock_broker_set_down(mc, -1);
	send_all(priv, recs + 100, n - 100, 50);
	t0 = now_s();
	while (now_s() < t0 + 1.5) {
		mk_out_kafka.poll(priv);
		usleep(100000);
	}
	CHECK(tr_stat(&mk_out_kafka, priv, "delivered") == 100,
	      "brokers down: %lld delivered, want 100", tr_stat(&mk_out_kafka, priv, "delivered"));
	rd_kafka_mock_broker_set_up(mc, -1);
	wait_reports(priv, n, 30);
	CHECK(tr_stat(&mk_out_kafka, priv, "delivered") == (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "failed") == 0,
	      "brokers down then up: delivered %lld failed %lld, want %zu 0",
	      tr_stat(&mk_out_kafka, priv, "delivered"), tr_stat(&mk_out_kafka, priv, "failed"), n);
	mk_out_kafka.destroy(priv, 5000);
	m = consume("mk-down", 3, n, &got);
	check_flows("every broker down 1.5 s, then up", recs, flows, per, m, got);
	free_msgs(m, got);
	free_records(recs, n);
}

/* 3c. brokers down past message.timeout.ms: counted failed, none lost silently */
static void test_brokers_down_timeout(void)
{
	struct iovec *recs = make_records(10, 20, "lost");
	size_t n = 200;
	void *priv;

	rd_kafka_mock_topic_create(mc, "mk-lost", 3, 3);
	priv = create("mk-lost", NULL, "1500");
	send_all(priv, recs, 10, 10);
	wait_reports(priv, 10, 30);
	rd_kafka_mock_broker_set_down(mc, -1);
	send_all(priv, recs + 10, n - 10, 50);
	wait_reports(priv, n, 10);
	CHECK(tr_stat(&mk_out_kafka, priv, "produced") == (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "delivered") == 10 &&
		      tr_stat(&mk_out_kafka, priv, "failed") == (long long)n - 10,
	      "brokers down past message.timeout.ms: produced %lld delivered %lld failed %lld, "
	      "want %zu 10 %zu",
	      tr_stat(&mk_out_kafka, priv, "produced"), tr_stat(&mk_out_kafka, priv, "delivered"),
	      tr_stat(&mk_out_kafka, priv, "failed"), n, n - 10);
	if (tr_stat(&mk_out_kafka, priv, "failed") == (long long)n - 10)
		printf("ok: brokers down past properties.message.timeout.ms 1500: produced %lld = "
		       "delivered %lld + failed %lld\n",
		       tr_stat(&mk_out_kafka, priv, "produced"),
		       tr_stat(&mk_out_kafka, priv, "delivered"),
		       tr_stat(&mk_out_kafka, priv, "failed"));
	rd_kafka_mock_broker_set_up(mc, -1);
	mk_out_kafka.destroy(priv, 5000);
	free_records(recs, n);
}

/*
 * 3d. a fatal error of the idempotent producer (the broker reports a gap in
 * its sequence numbers): the next send replaces the producer; every record
 * is delivered or counted failed, none lost silently.
 */
static void test_fatal(void)
{
	struct iovec *recs = make_records(10, 20, "fatal");
	size_t n = 200;
	void *priv;

	rd_kafka_mock_topic_create(mc, "mk-fatal", 1, 1);
	priv = create("mk-fatal", NULL, NULL);
	send_all(priv, recs, 10, 10);
	wait_reports(priv, 10, 30);
	rd_kafka_mock_push_request_errors(mc, 0, 1, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
	send_all(priv, recs + 10, 90, 90);
	wait_reports(priv, 100, 10);
	send_all(priv, recs + 100, 100, 100);
	wait_reports(priv, n, 30);
	CHECK(tr_stat(&mk_out_kafka, priv, "restarts") == 1 &&
		      tr_stat(&mk_out_kafka, priv, "produced") == (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "delivered") +
				      tr_stat(&mk_out_kafka, priv, "failed") ==
			      (long long)n &&
		      tr_stat(&mk_out_kafka, priv, "delivered") >= 110,
	      "fatal error: restarts %lld produced %lld delivered %lld failed %lld",
	      tr_stat(&mk_out_kafka, priv, "restarts"), tr_stat(&mk_out_kafka, priv, "produced"),
	      tr_stat(&mk_out_kafka, priv, "delivered"), tr_stat(&mk_out_kafka, priv, "failed"));
	if (tr_stat(&mk_out_kafka, priv, "restarts") == 1)
		printf("ok: a fatal producer error: restarts %lld, produced %lld = delivered %lld + "
		       "failed %lld\n",
		       tr_stat(&mk_out_kafka, priv, "restarts"),
		       tr_stat(&mk_out_kafka, priv, "produced"),
		       tr_stat(&mk_out_kafka, priv, "delivered"),
		       tr_stat(&mk_out_kafka, priv, "failed"));
	mk_out_kafka.destroy(priv, 5000);
	free_records(recs, n);
}

int main(void)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char err[256];
	rd_kafka_t *owner;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the mock cluster runs on the threads of a handle of its own */
	rd_kafka_conf_set(conf, "log_level", "3", err, sizeof(err));
	owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
	if (!owner) {
		printf("skipped: librdkafka cannot create a handle: %s\n", err);
		return 77;
	}
	mc = rd_kafka_mock_cluster_new(owner, 3);
	if (!mc) {
		printf("skipped: librdkafka's mock cluster cannot start\n");
		return 77;
	}
	snprintf(bootstraps, sizeof(bootstraps), "%s", rd_kafka_mock_cluster_bootstraps(mc));
	printf("mock cluster: 3 brokers at %s\n", bootstraps);

	test_flows();
	test_keys();
	test_request_errors();
	test_brokers_down_up();
	test_brokers_down_timeout();
	test_fatal();

	rd_kafka_mock_cluster_destroy(mc);
	rd_kafka_destroy(owner);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
