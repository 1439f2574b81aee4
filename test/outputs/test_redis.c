// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Redis transport (userspace/output/out_redis.c) against a real
 * redis-server started here (redis_server.h), through its vtable as an
 * output's writer thread drives it:
 *   1. every mode (list, lpush, rpush, channel, publish, xadd, stream), over
 *      the unix socket and over TCP, pipelined and not: the records read
 *      back (LRANGE, a SUBSCRIBE started before sending, XRANGE) equal
 *      those sent, byte for byte and in order;
 *   2. xadd with stream-maxlen trims the stream; publish without a
 *      subscriber is counted `unheard`; a key of the wrong type
 *      makes Redis refuse every record: consumed and counted `rejected`;
 *   3. redis-server killed (SIGKILL) between sends and restarted: sends
 *      fail with -errno while it is down, succeed after with a reconnect
 *      counted, and the list holds every record once, in order (what was
 *      sent = what was confirmed + what the transport did not accept);
 *   4. a server that stops answering (SIGSTOP): a send returns -ETIMEDOUT
 *      after `timeout`, not later.
 * Prints "skipped: <reason>" and exits 77 without redis-server.
 */
#include <jansson.h>
#include <stdbool.h>
#include <sys/uio.h>
#include "out_transport.h"
#include "transport_test.h"
#include "redis_server.h"

static struct redis_server srv;

/* Settings for the server of this run: unix socket unless @tcp. */
static void kv_server(struct kvs *s, bool tcp)
{
	char port[16];

	s->n = 0;
	if (tcp) {
		snprintf(port, sizeof(port), "%u", srv.port);
		kv_add(s, "server", "127.0.0.1");
		kv_add(s, "port", port);
	} else {
		kv_add(s, "socket", srv.sock);
	}
}

/* EVE-like lines of varied length with quotes, a percent sign and UTF-8: byte-exact or not. */
static struct iovec *make_records(size_t n, const char *tag)
{
	struct iovec *v = calloc(n, sizeof(*v));
	size_t i;

	for (i = 0; i < n; i++) {
		char *line;
		int pad = (i * 37) % 300;
		int len = asprintf(
			&line,
			"{\"timestamp\":\"2026-12-04T20:00:%02zu.%06zu+0000\",\"flow_id\":%zu,"
			"\"event_type\":\"alert\",\"community_id\":\"1:%08zx=\",\"tag\":\"%s\","
			"\"i\":%zu,\"text\":\"a \\\"quote\\\" %%s %%n caf\xc3\xa9\",\"pad\":\"%.*s\"}",
			i % 60, i, 1000 + i % 17, (i % 17) * 2654435761u, tag, i, pad,
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		if (len < 0)
			abort();
		v[i].iov_base = line;
		v[i].iov_len = len;
	}
	return v;
}

static redisContext *reader(void)
{
	redisContext *c = redisConnectUnix(srv.sock);

	if (!c || c->err) {
		printf("FAIL: cannot connect to %s\n", srv.sock);
		exit(1);
	}
	return c;
}

/* The list (or stream) of @key, oldest first, as records. */
static struct iovec *read_back(const char *key, bool stream, bool lpush, size_t *n,
			       const char *field)
{
	redisContext *c = reader();
	redisReply *r = redisCommand(c, stream ? "XRANGE %s - +" : "LRANGE %s 0 -1", key);
	struct iovec *v;
	size_t i;

	if (!r || r->type != REDIS_REPLY_ARRAY) {
		printf("FAIL: reading %s: %s\n", key, r ? r->str : c->errstr);
		exit(1);
	}
	*n = r->elements;
	v = calloc(*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++) {
		redisReply *e = r->element[lpush ? *n - 1 - i : i];

		if (stream) {
			/* [id, [field, value]] */
			redisReply *fv = e->element[1];

			CHECK(fv->elements == 2 && !strcmp(fv->element[0]->str, field),
			      "%s: entry %zu is not under field %s", key, i, field);
			e = fv->element[1];
		}
		v[i].iov_base = malloc(e->len);
		memcpy(v[i].iov_base, e->str, e->len);
		v[i].iov_len = e->len;
	}
	freeReplyObject(r);
	redisFree(c);
	return v;
}

static void compare(const char *what, const struct iovec *want, size_t nwant,
		    const struct iovec *got, size_t ngot)
{
	size_t i;

	CHECK(ngot == nwant, "%s: %zu records read back, %zu sent", what, ngot, nwant);
	for (i = 0; i < nwant && i < ngot; i++) {
		if (want[i].iov_len != got[i].iov_len ||
		    memcmp(want[i].iov_base, got[i].iov_base, want[i].iov_len)) {
			CHECK(false, "%s: record %zu differs: sent %.*s got %.*s", what, i,
			      (int)want[i].iov_len, (char *)want[i].iov_base, (int)got[i].iov_len,
			      (char *)got[i].iov_base);
			return;
		}
	}
	if (ngot == nwant)
		printf("ok: %s: %zu records read back byte for byte, in order\n", what, ngot);
}

/* Sends @n records in chunks of @chunk to a healthy server: each send accepts its whole chunk. */
static void send_all(void *priv, const struct iovec *recs, size_t n, size_t chunk, const char *what)
{
	size_t done = 0;

	while (done < n) {
		size_t k = n - done < chunk ? n - done : chunk;
		int ret = mk_out_redis.send(priv, recs + done, k);

		if (ret != (int)k) {
			CHECK(false, "%s: send of %zu records returned %d (%s)", what, k, ret,
			      ret < 0 ? strerror(-ret) : "partial");
			return;
		}
		done += k;
	}
}

static void *create(struct kvs *s)
{
	char why[256] = "";
	void *priv;

	if (mk_out_redis.check(s->kv, s->n, why, sizeof(why))) {
		printf("FAIL: check refuses the settings: %s\n", why);
		exit(1);
	}
	priv = mk_out_redis.create(s->kv, s->n, why, sizeof(why));
	if (!priv) {
		printf("FAIL: create: %s\n", why);
		exit(1);
	}
	return priv;
}

/* 1. a list or stream mode, read back with LRANGE / XRANGE */
static void test_mode(const char *mode, bool tcp, const char *pipelining, const char *batch,
		      size_t chunk)
{
	char key[64], what[160];
	bool stream = !strcmp(mode, "xadd") || !strcmp(mode, "stream");
	bool lpush = !strcmp(mode, "list") || !strcmp(mode, "lpush");
	struct iovec *recs, *got;
	size_t n = 1000, ngot;
	struct kvs s;
	void *priv;

	snprintf(key, sizeof(key), "mk-%s-%s-%s-%s", mode, tcp ? "tcp" : "unix", pipelining,
		 batch ? batch : "dflt");
	snprintf(what, sizeof(what), "mode %s over %s, pipelining %s%s%s, chunks of %zu", mode,
		 tcp ? "TCP" : "the unix socket", pipelining, batch ? " batch-size " : "",
		 batch ? batch : "", chunk);
	kv_server(&s, tcp);
	kv_add(&s, "mode", mode);
	kv_add(&s, "key", key);
	kv_add(&s, "pipelining.enabled", pipelining);
	if (batch)
		kv_add(&s, "pipelining.batch-size", batch);
	if (stream)
		kv_add(&s, "stream-field", "event");
	priv = create(&s);
	recs = make_records(n, key);
	send_all(priv, recs, n, chunk, what);
	CHECK(tr_stat(&mk_out_redis, priv, "sent") == (long long)n,
	      "%s: sent counter %lld, want %zu", what, tr_stat(&mk_out_redis, priv, "sent"), n);
	CHECK(tr_stat(&mk_out_redis, priv, "reconnects") == 0 &&
		      tr_stat(&mk_out_redis, priv, "errors") == 0,
	      "%s: reconnects %lld errors %lld on a healthy server", what,
	      tr_stat(&mk_out_redis, priv, "reconnects"), tr_stat(&mk_out_redis, priv, "errors"));
	mk_out_redis.destroy(priv, 1000);
	got = read_back(key, stream, lpush, &ngot, "event");
	compare(what, recs, n, got, ngot);
	free_records(got, ngot);
	free_records(recs, n);
}

/* Until Redis has seen the subscriber go (PUBSUB NUMSUB), at most 5 s. */
static void wait_no_subscriber(const char *chan)
{
	redisContext *c = reader();
	int i;

	for (i = 0; i < 100; i++) {
		redisReply *r = redisCommand(c, "PUBSUB NUMSUB %s", chan);
		bool gone = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
			    r->element[1]->integer == 0;

		freeReplyObject(r);
		if (gone)
			break;
		usleep(50000);
	}
	redisFree(c);
}

/* 1. publish / channel: a subscriber listening before the first send */
static void test_publish(const char *mode)
{
	struct timeval tv = { 5, 0 };
	redisContext *sub = reader();
	struct iovec *recs;
	size_t n = 1000, i;
	redisReply *r;
	char what[64], chan[64];
	struct kvs s;
	void *priv;

	snprintf(what, sizeof(what), "mode %s (SUBSCRIBE)", mode);
	snprintf(chan, sizeof(chan), "mk-chan-%s", mode);
	r = redisCommand(sub, "SUBSCRIBE %s", chan);
	CHECK(r && r->type == REDIS_REPLY_ARRAY, "%s: SUBSCRIBE failed", what);
	freeReplyObject(r);
	redisSetTimeout(sub, tv);

	kv_server(&s, false);
	kv_add(&s, "mode", mode);
	kv_add(&s, "key", chan);
	priv = create(&s);
	recs = make_records(n, mode);
	send_all(priv, recs, n, 100, what);
	for (i = 0; i < n; i++) {
		if (redisGetReply(sub, (void **)&r) != REDIS_OK || !r) {
			CHECK(false, "%s: message %zu not received: %s", what, i, sub->errstr);
			break;
		}
		/* ["message", channel, payload] */
		if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
		    r->element[2]->len != recs[i].iov_len ||
		    memcmp(r->element[2]->str, recs[i].iov_base, recs[i].iov_len)) {
			CHECK(false, "%s: message %zu differs from the record sent", what, i);
			freeReplyObject(r);
			break;
		}
		freeReplyObject(r);
	}
	if (i == n)
		printf("ok: %s: %zu messages received byte for byte, in order\n", what, n);
	CHECK(tr_stat(&mk_out_redis, priv, "unheard") == 0, "%s: unheard %lld with a subscriber",
	      what, tr_stat(&mk_out_redis, priv, "unheard"));
	redisFree(sub);
	wait_no_subscriber(chan);
	/* nobody listens any more: Redis confirms, and says nobody heard */
	send_all(priv, recs, 10, 10, what);
	CHECK(tr_stat(&mk_out_redis, priv, "unheard") == 10 &&
		      tr_stat(&mk_out_redis, priv, "sent") == (long long)n + 10,
	      "%s: unheard %lld sent %lld after 10 records without a subscriber", what,
	      tr_stat(&mk_out_redis, priv, "unheard"), tr_stat(&mk_out_redis, priv, "sent"));
	mk_out_redis.destroy(priv, 1000);
	free_records(recs, n);
}

/* 2. stream-maxlen with exact trimming keeps the newest entries */
static void test_stream_maxlen(void)
{
	struct iovec *recs, *got;
	size_t n = 500, ngot;
	struct kvs s;
	void *priv;

	kv_server(&s, false);
	kv_add(&s, "mode", "xadd");
	kv_add(&s, "key", "mk-trim");
	kv_add(&s, "stream-maxlen", "100");
	kv_add(&s, "stream-trim-exact", "yes");
	priv = create(&s);
	recs = make_records(n, "trim");
	send_all(priv, recs, n, 64, "xadd stream-maxlen 100");
	mk_out_redis.destroy(priv, 1000);
	got = read_back("mk-trim", true, false, &ngot, "eve");
	compare("xadd with stream-maxlen 100, stream-trim-exact: the newest 100", recs + n - 100,
		100, got, ngot);
	free_records(got, ngot);
	free_records(recs, n);
}

/* 2. a key of another type: Redis refuses each record; consumed and counted */
static void test_rejected(void)
{
	redisContext *c = reader();
	struct iovec *recs = make_records(10, "rej");
	struct kvs s;
	void *priv;
	int ret;

	freeReplyObject(redisCommand(c, "SET mk-string x"));
	redisFree(c);
	kv_server(&s, false);
	kv_add(&s, "mode", "rpush");
	kv_add(&s, "key", "mk-string");
	priv = create(&s);
	ret = mk_out_redis.send(priv, recs, 10);
	CHECK(ret == 10 && tr_stat(&mk_out_redis, priv, "rejected") == 10 &&
		      tr_stat(&mk_out_redis, priv, "sent") == 0,
	      "RPUSH on a string: send %d, rejected %lld, sent %lld (want 10, 10, 0)", ret,
	      tr_stat(&mk_out_redis, priv, "rejected"), tr_stat(&mk_out_redis, priv, "sent"));
	if (ret == 10 && tr_stat(&mk_out_redis, priv, "rejected") == 10)
		printf("ok: RPUSH on a string key: 10 records consumed, counted rejected\n");
	mk_out_redis.destroy(priv, 1000);
	free_records(recs, 10);
}

/*
 * 3. The writer's loop around a server killed and restarted: records not
 * accepted stay pending and are offered again, as the writer thread does.
 */
static void test_kill_restart(bool tcp)
{
	const size_t batches = 40, per = 50, n = batches * per;
	struct iovec *recs = make_records(n, tcp ? "kill-tcp" : "kill-unix"), *got;
	size_t pending_from = 0, produced = 0, accepted = 0, ngot, b;
	int down_fails = 0, down_err = 0;
	const char *key = tcp ? "mk-kill-tcp" : "mk-kill-unix";
	char what[64];
	struct kvs s;
	void *priv;

	snprintf(what, sizeof(what), "redis-server killed and restarted (%s)",
		 tcp ? "TCP" : "unix socket");
	kv_server(&s, tcp);
	kv_add(&s, "mode", "rpush");
	kv_add(&s, "key", key);
	kv_add(&s, "pipelining.batch-size", "16");
	priv = create(&s);
	for (b = 0; b < batches + 20 && accepted < n; b++) {
		int ret;

		if (b == 10)
			redis_server_kill(&srv, SIGKILL);
		if (b == 14 && redis_server_start(&srv)) {
			CHECK(false, "%s: redis-server does not restart", what);
			break;
		}
		if (produced < n)
			produced += per; /* the workers hand over one more batch */
		ret = mk_out_redis.send(priv, recs + pending_from, produced - pending_from);
		if (b >= 10 && b < 14) {
			CHECK(ret < 0, "%s: send while the server is down returned %d", what, ret);
			if (ret < 0) {
				down_fails++;
				down_err = -ret;
			}
		}
		if (ret > 0) {
			accepted += ret;
			pending_from += ret;
		}
	}
	CHECK(accepted == n, "%s: %zu of %zu records accepted", what, accepted, n);
	CHECK(tr_stat(&mk_out_redis, priv, "reconnects") == 1, "%s: reconnects %lld, want 1", what,
	      tr_stat(&mk_out_redis, priv, "reconnects"));
	CHECK(tr_stat(&mk_out_redis, priv, "errors") >= 4, "%s: errors %lld, want at least 4", what,
	      tr_stat(&mk_out_redis, priv, "errors"));
	CHECK(tr_stat(&mk_out_redis, priv, "sent") == (long long)n, "%s: sent %lld, want %zu", what,
	      tr_stat(&mk_out_redis, priv, "sent"), n);
	printf("ok: %s: %d sends refused while down (last: %s), reconnects %lld, errors %lld\n",
	       what, down_fails, strerror(down_err), tr_stat(&mk_out_redis, priv, "reconnects"),
	       tr_stat(&mk_out_redis, priv, "errors"));
	mk_out_redis.destroy(priv, 1000);
	got = read_back(key, false, false, &ngot, NULL);
	compare(what, recs, n, got, ngot);
	free_records(got, ngot);
	free_records(recs, n);
}

/*
 * 4. A stopped server: the send gives up after `timeout`. The records it
 * wrote are not confirmed; Redis may still execute them once it resumes
 * (at least once, docs/outputs.md), so they are counted, not
 * compared.
 */
static void test_timeout(void)
{
	struct iovec *recs = make_records(10, "stop");
	struct kvs s;
	double t0, dt;
	void *priv;
	int ret;

	kv_server(&s, false);
	kv_add(&s, "mode", "rpush");
	kv_add(&s, "key", "mk-stop");
	kv_add(&s, "timeout", "300");
	priv = create(&s);
	ret = mk_out_redis.send(priv, recs, 1);
	CHECK(ret == 1, "timeout: first send %d", ret);
	kill(srv.pid, SIGSTOP);
	t0 = now_s();
	ret = mk_out_redis.send(priv, recs + 1, 9);
	dt = now_s() - t0;
	kill(srv.pid, SIGCONT);
	CHECK(ret == -ETIMEDOUT && dt >= 0.25 && dt < 1.0,
	      "a stopped server: send returned %d (%s) after %.3f s, want -ETIMEDOUT after 0.3 s",
	      ret, ret < 0 ? strerror(-ret) : "", dt);
	if (ret == -ETIMEDOUT)
		printf("ok: a stopped server: send returned -ETIMEDOUT after %.3f s (timeout 300 ms)\n",
		       dt);
	ret = mk_out_redis.send(priv, recs + 1, 9);
	CHECK(ret == 9 && tr_stat(&mk_out_redis, priv, "reconnects") == 1,
	      "after SIGCONT: send %d reconnects %lld", ret,
	      tr_stat(&mk_out_redis, priv, "reconnects"));
	mk_out_redis.destroy(priv, 1000);
	free_records(recs, 10);
}

int main(void)
{
	static const char *const list_modes[] = { "list", "lpush", "rpush", "xadd", "stream" };
	unsigned int i;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!redis_server_available()) {
		printf("skipped: redis-server not installed (run deps.sh)\n");
		return 77;
	}
	redis_server_install_cleanup();
	err = redis_server_new(&srv);
	if (err) {
		printf("skipped: cannot start redis-server: %s (see %s/redis.log)\n",
		       strerror(-err), srv.dir);
		return 77;
	}
	printf("redis-server pid %d, %s and 127.0.0.1:%u\n", (int)srv.pid, srv.sock, srv.port);

	for (i = 0; i < sizeof(list_modes) / sizeof(list_modes[0]); i++)
		test_mode(list_modes[i], false, "yes", NULL, 256);
	test_mode("list", false, "no", NULL, 100);
	test_mode("rpush", true, "yes", "7", 100);
	test_mode("xadd", true, "no", NULL, 33);
	test_publish("publish");
	test_publish("channel");
	test_stream_maxlen();
	test_rejected();
	test_kill_restart(false);
	test_kill_restart(true);
	test_timeout();

	redis_server_cleanup();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;
}
