// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Redis transport (out_transport.h) through hiredis, with the keys of
 * Suricata's eve-log `redis:` (docs/outputs.md): each record
 * becomes one LPUSH, RPUSH, PUBLISH or XADD on `key`. A send pipelines its
 * records in batches (append a batch of commands, then read their replies
 * in order), so a reply confirms exactly the record it answers. On any
 * connection error the context is freed and send returns what was
 * confirmed before it; the next send reconnects. A record Redis answers
 * with an error (WRONGTYPE on a key of another type) is consumed and
 * counted as rejected: sending it again would fail again.
 */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <time.h>
#include "log.h"
#include "out_transport.h"

enum redis_mode {
	REDIS_MODE_LPUSH = 0, /* "list" in Suricata */
	REDIS_MODE_RPUSH,
	REDIS_MODE_PUBLISH, /* "channel" */
	REDIS_MODE_XADD,    /* "stream" */
};

static const struct {
	const char *name;
	enum redis_mode mode;
} redis_modes[] = {
	{ "list", REDIS_MODE_LPUSH },	   { "lpush", REDIS_MODE_LPUSH },
	{ "rpush", REDIS_MODE_RPUSH },	   { "channel", REDIS_MODE_PUBLISH },
	{ "publish", REDIS_MODE_PUBLISH }, { "xadd", REDIS_MODE_XADD },
	{ "stream", REDIS_MODE_XADD },
};

struct redis_cfg {
	char server[256];
	unsigned int port;
	char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
	enum redis_mode mode;
	char key[256];
	char stream_field[64];
	unsigned long long stream_maxlen; /* 0: no MAXLEN */
	bool stream_trim_exact;		  /* MAXLEN n instead of MAXLEN ~ n */
	bool pipelining;
	unsigned int batch_size; /* commands per pipelined batch */
	unsigned int timeout_ms; /* connect and each command */
};

/* The keys, in the order of docs/outputs.md. */
static const char *const redis_keys[] = {
	"server",
	"port",
	"socket",
	"mode",
	"key",
	"stream-field",
	"stream-maxlen",
	"stream-trim-exact",
	"pipelining.enabled",
	"pipelining.batch-size",
	"timeout",
};
#define REDIS_NKEYS (sizeof(redis_keys) / sizeof(redis_keys[0]))

static int parse_uint(const struct mk_out_kv *kv, unsigned long long lo, unsigned long long hi,
		      unsigned long long *out, char *why, size_t len)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(kv->val, &end, 10);
	if (kv->val[0] < '0' || kv->val[0] > '9' || *end || errno || v < lo || v > hi)
		return mk_out_kv_error(kv, why, len, "'%s' must be %llu-%llu", kv->val, lo, hi);
	*out = v;
	return 0;
}

static int parse_bool(const struct mk_out_kv *kv, bool *out, char *why, size_t len)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(kv->val, yes[i]) || !strcasecmp(kv->val, no[i])) {
			*out = !strcasecmp(kv->val, yes[i]);
			return 0;
		}
	}
	return mk_out_kv_error(kv, why, len, "'%s' is not a boolean (yes/no, true/false, on/off)",
			       kv->val);
}

static int parse_string(const struct mk_out_kv *kv, char *dst, size_t size, bool empty_ok,
			char *why, size_t len)
{
	if (!empty_ok && !kv->val[0])
		return mk_out_kv_error(kv, why, len, "must not be empty");
	if (strlen(kv->val) >= size)
		return mk_out_kv_error(kv, why, len, "longer than %zu characters", size - 1);
	strcpy(dst, kv->val);
	return 0;
}

static int redis_cfg_parse(const struct mk_out_kv *kv, size_t n, struct redis_cfg *c, char *why,
			   size_t len)
{
	const struct mk_out_kv *seen[REDIS_NKEYS] = { 0 };
	unsigned long long v;
	size_t i, k;
	int err = 0;

	memset(c, 0, sizeof(*c));
	strcpy(c->server, "127.0.0.1");
	c->port = 6379;
	c->mode = REDIS_MODE_LPUSH;
	strcpy(c->key, "meerkat");
	strcpy(c->stream_field, "eve");
	c->stream_maxlen = 100000; /* Suricata's: a stream nobody trims fills Redis */
	c->pipelining = true;
	c->batch_size = 64;
	c->timeout_ms = 1000;

	for (i = 0; i < n; i++) {
		const struct mk_out_kv *e = &kv[i];
		const char *key = e->key;

		for (k = 0; k < REDIS_NKEYS && strcmp(key, redis_keys[k]); k++)
			;
		if (k == REDIS_NKEYS && !strcmp(key, "async"))
			return mk_out_kv_error(
				e, why, len,
				"Suricata's key is not needed: records are always sent from the "
				"output's writer thread, off the packet path");
		if (k == REDIS_NKEYS)
			return mk_out_kv_error(
				e, why, len,
				"not a redis key (server, port, socket, mode, key, stream-field, "
				"stream-maxlen, stream-trim-exact, pipelining.enabled, "
				"pipelining.batch-size, timeout)");
		if (seen[k])
			return mk_out_kv_error(e, why, len, "given twice");
		seen[k] = e;
		if (!strcmp(key, "server")) {
			err = parse_string(e, c->server, sizeof(c->server), false, why, len);
		} else if (!strcmp(key, "port")) {
			err = parse_uint(e, 1, 65535, &v, why, len);
			c->port = v;
		} else if (!strcmp(key, "socket")) {
			err = parse_string(e, c->socket, sizeof(c->socket), true, why, len);
		} else if (!strcmp(key, "mode")) {
			for (k = 0; k < sizeof(redis_modes) / sizeof(redis_modes[0]) &&
				    strcmp(e->val, redis_modes[k].name);
			     k++)
				;
			if (k == sizeof(redis_modes) / sizeof(redis_modes[0]))
				return mk_out_kv_error(
					e, why, len,
					"'%s' is not a mode (list, lpush, rpush, channel, "
					"publish, xadd, stream)",
					e->val);
			c->mode = redis_modes[k].mode;
		} else if (!strcmp(key, "key")) {
			err = parse_string(e, c->key, sizeof(c->key), false, why, len);
		} else if (!strcmp(key, "stream-field")) {
			err = parse_string(e, c->stream_field, sizeof(c->stream_field), false, why,
					   len);
		} else if (!strcmp(key, "stream-maxlen")) {
			err = parse_uint(e, 0, 1ull << 62, &c->stream_maxlen, why, len);
		} else if (!strcmp(key, "stream-trim-exact")) {
			err = parse_bool(e, &c->stream_trim_exact, why, len);
		} else if (!strcmp(key, "pipelining.enabled")) {
			err = parse_bool(e, &c->pipelining, why, len);
		} else if (!strcmp(key, "pipelining.batch-size")) {
			err = parse_uint(e, 1, 10000, &v, why, len);
			c->batch_size = v;
		} else if (!strcmp(key, "timeout")) {
			err = parse_uint(e, 10, 60000, &v, why, len);
			c->timeout_ms = v;
		}
		if (err)
			return err;
	}
	/* a unix socket replaces server and port (seen[0], [1]; socket is [2]): not both */
	if (c->socket[0] && (seen[0] || seen[1]))
		return mk_out_kv_error(seen[2], why, len,
				       "a unix socket replaces server and port: give one");
	return 0;
}

static int redis_check(const struct mk_out_kv *kv, size_t n, char *why, size_t len)
{
	struct redis_cfg c;

	return redis_cfg_parse(kv, n, &c, why, len);
}

/* Counters: read by stats() from any thread, written by the writer thread. */
struct redis_out {
	struct redis_cfg cfg;
	redisContext *ctx;
	bool ever_connected;
	bool down_logged; /* the loss of the connection was logged once */
	unsigned long long sent, rejected, errors, reconnects;
	unsigned long long unheard; /* published while no subscriber listened */
	char target[300];	    /* for messages: "127.0.0.1:6379" or the socket path */
	char maxlen[24];
};

#define COUNT(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)
#define READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

static void *redis_create(const struct mk_out_kv *kv, size_t n, char *why, size_t len)
{
	struct redis_out *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (redis_cfg_parse(kv, n, &r->cfg, why, len)) {
		free(r);
		return NULL;
	}
	if (r->cfg.socket[0])
		snprintf(r->target, sizeof(r->target), "%s", r->cfg.socket);
	else
		snprintf(r->target, sizeof(r->target), "%s:%u", r->cfg.server, r->cfg.port);
	snprintf(r->maxlen, sizeof(r->maxlen), "%llu", r->cfg.stream_maxlen);
	return r;
}

/* -errno of a failed context (hiredis keeps only a message for I/O errors). */
static int ctx_errno(const redisContext *c, int saved_errno)
{
	switch (c->err) {
	case REDIS_ERR_IO:
		if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK)
			return -ETIMEDOUT;
		return saved_errno > 0 ? -saved_errno : -EIO;
	case REDIS_ERR_EOF:
		return -ECONNRESET;
	case REDIS_ERR_OOM:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static void redis_drop(struct redis_out *r, int err)
{
	if (!r->down_logged) {
		if (err == -ETIMEDOUT)
			mk_warn("redis output %s: no reply within %u ms; reconnecting at the next "
				"send",
				r->target, r->cfg.timeout_ms);
		else
			mk_warn("redis output %s: %s; reconnecting at the next send", r->target,
				r->ctx && r->ctx->errstr[0] ? r->ctx->errstr : strerror(-err));
		r->down_logged = true;
	}
	if (r->ctx)
		redisFree(r->ctx);
	r->ctx = NULL;
	COUNT(r->errors, 1);
}

static int redis_connect(struct redis_out *r)
{
	struct timeval tv = { .tv_sec = r->cfg.timeout_ms / 1000,
			      .tv_usec = (r->cfg.timeout_ms % 1000) * 1000 };
	int err;

	errno = 0;
	if (r->cfg.socket[0])
		r->ctx = redisConnectUnixWithTimeout(r->cfg.socket, tv);
	else
		r->ctx = redisConnectWithTimeout(r->cfg.server, r->cfg.port, tv);
	if (!r->ctx) {
		redis_drop(r, -ENOMEM);
		return -ENOMEM;
	}
	if (r->ctx->err) {
		err = ctx_errno(r->ctx, errno);
		redis_drop(r, err);
		return err;
	}
	if (redisSetTimeout(r->ctx, tv) != REDIS_OK) {
		err = ctx_errno(r->ctx, errno);
		redis_drop(r, err);
		return err;
	}
	if (r->ever_connected)
		COUNT(r->reconnects, 1);
	if (r->down_logged)
		mk_info("redis output %s: connected again", r->target);
	r->ever_connected = true;
	r->down_logged = false;
	return 0;
}

/* Appends the command that carries one record. */
static int redis_append(struct redis_out *r, const struct iovec *rec)
{
	const char *argv[8];
	size_t lens[8];
	int argc = 0;

#define ARG(s, l) (argv[argc] = (s), lens[argc] = (l), argc++)
	switch (r->cfg.mode) {
	case REDIS_MODE_LPUSH:
		ARG("LPUSH", 5);
		break;
	case REDIS_MODE_RPUSH:
		ARG("RPUSH", 5);
		break;
	case REDIS_MODE_PUBLISH:
		ARG("PUBLISH", 7);
		break;
	case REDIS_MODE_XADD:
		ARG("XADD", 4);
		break;
	}
	ARG(r->cfg.key, strlen(r->cfg.key));
	if (r->cfg.mode == REDIS_MODE_XADD) {
		if (r->cfg.stream_maxlen) {
			ARG("MAXLEN", 6);
			if (!r->cfg.stream_trim_exact)
				ARG("~", 1);
			ARG(r->maxlen, strlen(r->maxlen));
		}
		ARG("*", 1);
		ARG(r->cfg.stream_field, strlen(r->cfg.stream_field));
	}
	ARG(rec->iov_base, rec->iov_len);
#undef ARG
	return redisAppendCommandArgv(r->ctx, argc, argv, lens);
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static int redis_send_batches(struct redis_out *r, const struct iovec *recs, size_t n)
{
	unsigned long long deadline = now_ms() + r->cfg.timeout_ms;
	size_t done = 0, batch = r->cfg.pipelining ? r->cfg.batch_size : 1;
	int err;

	if (n > INT_MAX)
		n = INT_MAX;
	if (!r->ctx) {
		err = redis_connect(r);
		if (err)
			return err;
	}
	while (done < n) {
		size_t k = n - done < batch ? n - done : batch, i;
		redisReply *reply;

		for (i = 0; i < k; i++) {
			if (redis_append(r, &recs[done + i]) != REDIS_OK) {
				err = -ENOMEM;
				goto fail;
			}
		}
		/* the first read writes the whole batch out */
		for (i = 0; i < k; i++) {
			errno = 0;
			if (redisGetReply(r->ctx, (void **)&reply) != REDIS_OK || !reply) {
				err = ctx_errno(r->ctx, errno);
				goto fail;
			}
			if (reply->type == REDIS_REPLY_ERROR) {
				/* the record is consumed: sending it again would fail again */
				if (!READ(r->rejected))
					mk_warn("redis output %s: %s refused: %s", r->target,
						r->cfg.key, reply->str);
				COUNT(r->rejected, 1);
			} else {
				COUNT(r->sent, 1);
				/* PUBLISH answers how many subscribers got it */
				if (r->cfg.mode == REDIS_MODE_PUBLISH &&
				    reply->type == REDIS_REPLY_INTEGER && !reply->integer)
					COUNT(r->unheard, 1);
			}
			freeReplyObject(reply);
			done++;
		}
		/* a slow server: give the writer its thread back */
		if (done < n && now_ms() > deadline)
			break;
	}
	return done;
fail:
	redis_drop(r, err);
	return done ? (int)done : err;
}

/*
 * hiredis writes with write(): a peer gone away raises SIGPIPE, which would
 * end the daemon. It is blocked in this thread around the I/O and the one
 * our writes raised is taken back, unless one was pending already.
 */
static int redis_send(void *priv, const struct iovec *recs, size_t n)
{
	struct timespec zero = { 0, 0 };
	sigset_t sigpipe, old, pending;
	bool was_pending;
	int ret;

	sigemptyset(&sigpipe);
	sigaddset(&sigpipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigpipe, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	ret = redis_send_batches(priv, recs, n);
	if (!was_pending)
		while (sigtimedwait(&sigpipe, NULL, &zero) == SIGPIPE)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void redis_stats(void *priv, json_t *obj)
{
	struct redis_out *r = priv;

	json_object_set_new(obj, "sent", json_integer(READ(r->sent)));
	json_object_set_new(obj, "rejected", json_integer(READ(r->rejected)));
	json_object_set_new(obj, "errors", json_integer(READ(r->errors)));
	json_object_set_new(obj, "reconnects", json_integer(READ(r->reconnects)));
	if (r->cfg.mode == REDIS_MODE_PUBLISH)
		json_object_set_new(obj, "unheard", json_integer(READ(r->unheard)));
}

/* Every send waits for its replies: nothing is in flight between calls. */
static void redis_destroy(void *priv, unsigned int timeout_ms)
{
	struct redis_out *r = priv;

	(void)timeout_ms;
	if (!r)
		return;
	if (r->ctx)
		redisFree(r->ctx);
	free(r);
}

const struct mk_out_transport mk_out_redis = {
	.name = "redis",
	.check = redis_check,
	.create = redis_create,
	.send = redis_send,
	.poll = NULL,
	.stats = redis_stats,
	.destroy = redis_destroy,
};
