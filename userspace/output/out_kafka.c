// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Kafka transport (out_transport.h) through librdkafka
 * (docs/outputs.md). Each record is one message on `topic`;
 * its key is the record's community_id (or flow_id), so librdkafka's
 * partitioner puts every event of a flow on one partition, in order. The
 * producer is idempotent by default: retries after a broker failure
 * neither reorder nor duplicate a partition's messages.
 *
 * rd_kafka_produce only queues: a send accepts records until librdkafka's
 * queue is full and returns that count (the writer keeps the rest).
 * Whether a queued record arrived is known later, from its delivery
 * report, served by poll(): `delivered` or `failed`, so that produced =
 * delivered + failed + what is still in flight.
 */
#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "log.h"
#include "out_transport.h"

enum kafka_key {
	KAFKA_KEY_COMMUNITY_ID = 0, /* community_id, else flow_id */
	KAFKA_KEY_FLOW,		    /* flow_id */
	KAFKA_KEY_NONE,
};

static const char *const kafka_key_names[] = { "community_id", "flow", "none" };
static const char *const kafka_codecs[] = { "none", "gzip", "snappy", "lz4", "zstd" };

/* properties that have a key of their own here */
static const struct {
	const char *prop, *key;
} kafka_owned[] = {
	{ "bootstrap.servers", "brokers" },
	{ "metadata.broker.list", "brokers" },
	{ "compression.codec", "compression" },
	{ "compression.type", "compression" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PROPS "properties."

struct kafka_cfg {
	char brokers[256];
	char topic[250]; /* Kafka's limit is 249 characters */
	enum kafka_key key;
	const char *codec;
};

static int pick(const struct mk_out_kv *kv, const char *const *names, size_t n, const char *list,
		char *why, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(kv->val, names[i]))
			return i;
	return mk_out_kv_error(kv, why, len, "'%s' is not one of %s", kv->val, list);
}

/* Kafka's own rule for topic names */
static bool topic_valid(const char *t)
{
	if (!*t || !strcmp(t, ".") || !strcmp(t, ".."))
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
		      (*t >= '0' && *t <= '9') || *t == '.' || *t == '_' || *t == '-'))
			return false;
	return true;
}

static int conf_set(rd_kafka_conf_t *conf, const struct mk_out_kv *kv, const char *prop,
		    const char *val, char *why, size_t len)
{
	char err[256];

	if (rd_kafka_conf_set(conf, prop, val, err, sizeof(err)) == RD_KAFKA_CONF_OK)
		return 0;
	if (kv)
		return mk_out_kv_error(kv, why, len, "%s", err);
	snprintf(why, len, "%s: %s", prop, err);
	return -EINVAL;
}

/*
 * What librdkafka would refuse only when the producer is made: the
 * properties an idempotent producer constrains (its defaults fit), so that
 * `meerkat -T` names them. Transactions are not used.
 */
static int idempotence_check(rd_kafka_conf_t *conf, const struct mk_out_kv *kv, size_t n, char *why,
			     size_t len)
{
	char val[16];
	size_t vlen = sizeof(val), i;
	bool idem;

	if (rd_kafka_conf_get(conf, "enable.idempotence", val, &vlen) != RD_KAFKA_CONF_OK)
		return 0;
	idem = !strcmp(val, "true");
	for (i = 0; i < n; i++) {
		const char *prop = kv[i].key + strlen(PROPS), *v = kv[i].val;

		if (strncmp(kv[i].key, PROPS, strlen(PROPS)))
			continue;
		if (!strcmp(prop, "transactional.id"))
			return mk_out_kv_error(&kv[i], why, len, "transactions are not supported");
		if (!idem)
			continue;
		if ((!strcmp(prop, "acks") || !strcmp(prop, "request.required.acks")) &&
		    strcmp(v, "all") && strcmp(v, "-1"))
			return mk_out_kv_error(
				&kv[i], why, len,
				"must be all (-1) while enable.idempotence is true (meerkat's "
				"default, which keeps each flow's records in order)");
		if ((!strcmp(prop, "max.in.flight") ||
		     !strcmp(prop, "max.in.flight.requests.per.connection")) &&
		    strtoul(v, NULL, 10) > 5)
			return mk_out_kv_error(
				&kv[i], why, len,
				"must be 1-5 while enable.idempotence is true (meerkat's default)");
		if ((!strcmp(prop, "retries") || !strcmp(prop, "message.send.max.retries")) &&
		    strtoul(v, NULL, 10) < 1)
			return mk_out_kv_error(
				&kv[i], why, len,
				"must be at least 1 while enable.idempotence is true (meerkat's "
				"default)");
		if (!strcmp(prop, "queuing.strategy") && strcmp(v, "fifo"))
			return mk_out_kv_error(
				&kv[i], why, len,
				"must be fifo while enable.idempotence is true (meerkat's default)");
	}
	return 0;
}

/*
 * Reads the settings into @c and, when @confp is given, a librdkafka
 * configuration made of meerkat's defaults, the keys and the properties.
 * The properties are set on a scratch configuration even in check(), so
 * that a misspelt property or a bad value is named at configuration time
 * (rd_kafka_conf_set does no I/O).
 */
static int kafka_cfg_parse(const struct mk_out_kv *kv, size_t n, struct kafka_cfg *c,
			   rd_kafka_conf_t **confp, char *why, size_t len)
{
	static const char *const keys[] = { "brokers", "topic", "partition-by", "compression" };
	const struct mk_out_kv *seen[ARRAY_SIZE(keys)] = { 0 };
	rd_kafka_conf_t *conf;
	size_t i, k;
	int err = 0;

	memset(c, 0, sizeof(*c));
	strcpy(c->brokers, "127.0.0.1:9092");
	strcpy(c->topic, "meerkat");
	c->key = KAFKA_KEY_COMMUNITY_ID;
	c->codec = "none";

	conf = rd_kafka_conf_new();
	if (!conf) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	/* ordered and exactly once per partition across retries (docs) */
	err = conf_set(conf, NULL, "enable.idempotence", "true", why, len);
	if (err)
		goto out;
	for (i = 0; i < n && !err; i++) {
		const struct mk_out_kv *e = &kv[i];

		if (!strncmp(e->key, PROPS, strlen(PROPS))) {
			const char *prop = e->key + strlen(PROPS);

			for (k = 0;
			     k < ARRAY_SIZE(kafka_owned) && strcmp(prop, kafka_owned[k].prop); k++)
				;
			if (k < ARRAY_SIZE(kafka_owned))
				err = mk_out_kv_error(e, why, len, "set by the key `%s`",
						      kafka_owned[k].key);
			/* the later rows override these keys */
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(keys) && strcmp(e->key, keys[k]); k++)
			;
		if (k == ARRAY_SIZE(keys)) {
			err = mk_out_kv_error(
				e, why, len,
				"not a kafka key (brokers, topic, partition-by, compression, "
				"properties.<librdkafka property>)");
			break;
		}
		if (seen[k]) {
			err = mk_out_kv_error(e, why, len, "given twice");
			break;
		}
		seen[k] = e;
		if (k == 0) {
			if (!e->val[0] || strlen(e->val) >= sizeof(c->brokers))
				err = mk_out_kv_error(
					e, why, len,
					"must be host:port[,host:port...], %zu characters at most",
					sizeof(c->brokers) - 1);
			else
				strcpy(c->brokers, e->val);
		} else if (k == 1) {
			if (strlen(e->val) >= sizeof(c->topic) || !topic_valid(e->val))
				err = mk_out_kv_error(
					e, why, len,
					"'%s' is not a Kafka topic name (1-249 of a-z A-Z 0-9 . _ -)",
					e->val);
			else
				strcpy(c->topic, e->val);
		} else if (k == 2) {
			int v = pick(e, kafka_key_names, ARRAY_SIZE(kafka_key_names),
				     "community_id, flow, none", why, len);

			if (v < 0)
				err = v;
			else
				c->key = v;
		} else {
			int v = pick(e, kafka_codecs, ARRAY_SIZE(kafka_codecs),
				     "none, gzip, snappy, lz4, zstd", why, len);

			if (v < 0)
				err = v;
			else
				c->codec = kafka_codecs[v];
		}
	}
	if (err)
		goto out;
	err = conf_set(conf, seen[0], "bootstrap.servers", c->brokers, why, len);
	if (!err)
		/* librdkafka may lack a codec (built without zstd): named here */
		err = conf_set(conf, seen[3], "compression.codec", c->codec, why, len);
	for (i = 0; i < n && !err; i++)
		if (!strncmp(kv[i].key, PROPS, strlen(PROPS)))
			err = conf_set(conf, &kv[i], kv[i].key + strlen(PROPS), kv[i].val, why,
				       len);
	if (!err)
		err = idempotence_check(conf, kv, n, why, len);
out:
	if (err || !confp)
		rd_kafka_conf_destroy(conf);
	else
		*confp = conf;
	return err;
}

static int kafka_check(const struct mk_out_kv *kv, size_t n, char *why, size_t len)
{
	struct kafka_cfg c;

	return kafka_cfg_parse(kv, n, &c, NULL, why, len);
}

/* Counters: written by librdkafka's callbacks and the writer thread, read by stats() anywhere. */
struct kafka_out {
	struct kafka_cfg cfg;
	rd_kafka_t *rk;
	rd_kafka_topic_t *rkt;
	int last_logged; /* the last rd_kafka_resp_err_t logged, to log each change once */
	int last_refused;
	unsigned long long produced, delivered, failed, queue_full, unkeyed, restarts;
	rd_kafka_conf_t *conf; /* a copy, for a restart after a fatal error */
};

#define COUNT(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)
#define READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* A delivery report (from rd_kafka_poll, in the writer thread). */
static void kafka_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	struct kafka_out *k = opaque;

	(void)rk;
	if (!m->err) {
		COUNT(k->delivered, 1);
		return;
	}
	COUNT(k->failed, 1);
	if (k->last_logged != m->err) {
		k->last_logged = m->err;
		mk_warn("kafka output %s: a record was not delivered: %s", k->cfg.topic,
			rd_kafka_err2str(m->err));
	}
}

static void kafka_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	struct kafka_out *k = opaque;

	(void)rk;
	if (__atomic_exchange_n(&k->last_logged, err, __ATOMIC_RELAXED) != err)
		mk_warn("kafka output %s: %s", k->cfg.topic, reason);
}

/*
 * librdkafka's own log lines, through meerkat's logger: its warnings about
 * the configuration as warnings, critical ones as errors; the connection
 * errors it logs also reach kafka_error(), which says each once, so they
 * are debug here.
 */
static void kafka_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	enum mk_log_level l = MK_LOG_DEBUG;

	(void)rk;
	if (level <= 2)
		l = MK_LOG_ERROR;
	else if (!strcmp(fac, "CONFWARN"))
		l = MK_LOG_WARN;
	mk_log(l, "kafka: %s: %s", fac, buf);
}

static int kafka_open(struct kafka_out *k, char *why, size_t len)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_dup(k->conf);

	if (!conf) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	rd_kafka_conf_set_opaque(conf, k);
	rd_kafka_conf_set_dr_msg_cb(conf, kafka_dr);
	rd_kafka_conf_set_error_cb(conf, kafka_error);
	rd_kafka_conf_set_log_cb(conf, kafka_log);
	k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, why, len);
	if (!k->rk) {
		rd_kafka_conf_destroy(conf);
		return -EINVAL;
	}
	k->rkt = rd_kafka_topic_new(k->rk, k->cfg.topic, NULL);
	if (!k->rkt) {
		snprintf(why, len, "topic %s: %s", k->cfg.topic,
			 rd_kafka_err2str(rd_kafka_last_error()));
		rd_kafka_destroy(k->rk);
		k->rk = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Waits up to @timeout_ms for what is queued; what is left is purged and counted failed. */
static void kafka_close(struct kafka_out *k, unsigned int timeout_ms)
{
	int left;

	if (!k->rk)
		return;
	rd_kafka_flush(k->rk, timeout_ms);
	if (rd_kafka_outq_len(k->rk) > 0) {
		rd_kafka_purge(k->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT |
					      RD_KAFKA_PURGE_F_NON_BLOCKING);
		/* the purged records' reports count them failed */
		rd_kafka_flush(k->rk, 100);
	}
	left = rd_kafka_outq_len(k->rk);
	if (left > 0) {
		mk_warn("kafka output %s: %d record(s) not delivered at close", k->cfg.topic, left);
		COUNT(k->failed, left);
	}
	rd_kafka_topic_destroy(k->rkt);
	rd_kafka_destroy(k->rk);
	k->rk = NULL;
	k->rkt = NULL;
}

static void *kafka_create(const struct mk_out_kv *kv, size_t n, char *why, size_t len)
{
	struct kafka_out *k = calloc(1, sizeof(*k));

	if (!k) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (kafka_cfg_parse(kv, n, &k->cfg, &k->conf, why, len))
		goto fail;
	if (kafka_open(k, why, len))
		goto fail;
	return k;
fail:
	if (k->conf)
		rd_kafka_conf_destroy(k->conf);
	free(k);
	return NULL;
}

/*
 * The message key of a record: the value of its top-level "community_id"
 * (or "flow_id"). A `"name":` with unescaped quotes can only be a key, as a
 * quote inside a JSON string is escaped; records come from meerkat's own
 * renderer, which writes community_id and flow_id at the top level. A
 * value that is cut short or too long gives no key.
 */
static const char *record_key(const char *p, size_t len, enum kafka_key by, size_t *klen)
{
	static const char cid[] = "\"community_id\":\"", fid[] = "\"flow_id\":";
	const char *v, *end = p + len, *e;

	if (by == KAFKA_KEY_COMMUNITY_ID) {
		v = memmem(p, len, cid, sizeof(cid) - 1);
		if (v) {
			v += sizeof(cid) - 1;
			e = memchr(v, '"', end - v);
			if (e && e > v && e - v <= 64) {
				*klen = e - v;
				return v;
			}
		}
	}
	if (by == KAFKA_KEY_NONE)
		return NULL;
	v = memmem(p, len, fid, sizeof(fid) - 1);
	if (!v)
		return NULL;
	v += sizeof(fid) - 1;
	for (e = v; e < end && e - v <= 20 && *e >= '0' && *e <= '9'; e++)
		;
	/* the number must be whole: a digit run reaching the end may be cut */
	if (e == v || e == end || e - v > 20)
		return NULL;
	*klen = e - v;
	return v;
}

static int kafka_send(void *priv, const struct iovec *recs, size_t n)
{
	struct kafka_out *k = priv;
	char why[256];
	size_t i;

	if (n > INT_MAX)
		n = INT_MAX;
	if (k->rk && rd_kafka_fatal_error(k->rk, why, sizeof(why))) {
		/* an idempotent producer stops for good: a new one replaces it */
		mk_warn("kafka output %s: fatal error, restarting the producer: %s", k->cfg.topic,
			why);
		kafka_close(k, 0);
		COUNT(k->restarts, 1);
	}
	if (!k->rk && kafka_open(k, why, sizeof(why))) {
		mk_warn("kafka output %s: %s", k->cfg.topic, why);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		const char *rec = recs[i].iov_base;
		size_t klen = 0;
		const char *key = record_key(rec, recs[i].iov_len, k->cfg.key, &klen);
		rd_kafka_resp_err_t err;

		err = rd_kafka_producev(k->rk, RD_KAFKA_V_RKT(k->rkt),
					RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
					RD_KAFKA_V_VALUE((void *)rec, recs[i].iov_len),
					RD_KAFKA_V_KEY(key, klen), RD_KAFKA_V_END);
		if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
			/* serve the reports that free the queue; the writer retries the rest */
			COUNT(k->queue_full, 1);
			rd_kafka_poll(k->rk, 0);
			return i ? (int)i : -ENOBUFS;
		}
		if (err == RD_KAFKA_RESP_ERR__FATAL)
			return i ? (int)i : -EIO;
		COUNT(k->produced, 1);
		if (!key)
			COUNT(k->unkeyed, 1);
		if (err) {
			/* refused for good (too large, unknown topic): consumed and counted */
			COUNT(k->failed, 1);
			if (k->last_refused != err) {
				k->last_refused = err;
				mk_warn("kafka output %s: a record was refused: %s", k->cfg.topic,
					rd_kafka_err2str(err));
			}
		}
	}
	return n;
}

static void kafka_poll(void *priv)
{
	struct kafka_out *k = priv;

	if (k->rk)
		rd_kafka_poll(k->rk, 0);
}

static void kafka_stats(void *priv, json_t *obj)
{
	struct kafka_out *k = priv;

	json_object_set_new(obj, "produced", json_integer(READ(k->produced)));
	json_object_set_new(obj, "delivered", json_integer(READ(k->delivered)));
	json_object_set_new(obj, "failed", json_integer(READ(k->failed)));
	json_object_set_new(obj, "queue_full", json_integer(READ(k->queue_full)));
	json_object_set_new(obj, "unkeyed", json_integer(READ(k->unkeyed)));
	json_object_set_new(obj, "restarts", json_integer(READ(k->restarts)));
}

static void kafka_destroy(void *priv, unsigned int timeout_ms)
{
	struct kafka_out *k = priv;

	if (!k)
		return;
	kafka_close(k, timeout_ms);
	rd_kafka_conf_destroy(k->conf);
	free(k);
}

const struct mk_out_transport mk_out_kafka = {
	.name = "kafka",
	.check = kafka_check,
	.create = kafka_create,
	.send = kafka_send,
	.poll = kafka_poll,
	.stats = kafka_stats,
	.destroy = kafka_destroy,
};
