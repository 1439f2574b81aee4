// SPDX-License-Identifier: GPL-2.0-only
/*
 * The EVE outputs (output/out_writer.c, outputs.c, out_unix.c): a writer's
 * bounded buffer (what fits goes in, the rest is dropped and counted, whole
 * records only), backpressure, the drain at the end, routing by event type,
 * the socket sinks against real listening sockets (a reader that goes away
 * and comes back), the syslog header, and the event type of every prefix
 * of a record.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "out_transport.h"
#include "out_unix.h"
#include "out_writer.h"
#include "outputs.h"

static char dir[] = "/tmp/test_outputs.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(outputs, .init = setup, .fini = teardown);

static struct mk_eve_cfg file_cfg(const char *name, uint32_t types, uint64_t size)
{
	struct mk_eve_cfg c = { .enabled = 1, .append = 1, .types = types, .buffer_size = size };

	snprintf(c.filename, sizeof(c.filename), "%s", name);
	return c;
}

/* A record of exactly @len bytes, newline included: {"event_type":"flow","n":I,"pad":"xx.."} */
static size_t record(char *buf, size_t len, const char *type, unsigned int i)
{
	int n = snprintf(buf, len, "{\"event_type\":\"%s\",\"n\":%u,\"pad\":\"", type, i);

	memset(buf + n, 'x', len - (size_t)n - 3);
	memcpy(buf + len - 3, "\"}\n", 3);
	return len;
}

static char *slurp(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

Test(outputs, full_buffer_drops_whole_records_and_counts_them)
{
	struct mk_eve_cfg c = file_cfg("eve.json", MK_EVE_TYPE_FLOW, 64 << 10);
	struct mk_out_writer *w;
	uint64_t cnt[MK_OUT_CNT_MAX], dropped = 0;
	char rec[1000], *all = malloc(100 * sizeof(rec)), *got;
	size_t len;
	unsigned int i;

	cr_assert_eq(mk_out_writer_new(&w, &c, 0, dir, 1, 0), 0);
	/* no thread yet: nothing leaves the buffer; 65 records of 1000 bytes fit in 64 KiB */
	for (i = 0; i < 100; i++) {
		record(rec, sizeof(rec), "flow", i);
		memcpy(all + i * sizeof(rec), rec, sizeof(rec));
		dropped += mk_out_writer_push(w, rec, sizeof(rec), 1);
	}
	cr_expect_eq(dropped, 35);
	mk_out_writer_counts(w, cnt);
	cr_expect_eq(cnt[MK_OUT_DROPPED], 35);
	cr_expect_eq(cnt[MK_OUT_BUFFERED], 65000);
	cr_expect_eq(cnt[MK_OUT_HIGH_WATER], 65000);
	/* a batch that does not fit whole: the records that fit go in, in order */
	cr_expect_eq(mk_out_writer_push(w, all, 3 * sizeof(rec), 3), 3);
	/* bigger than the whole buffer: dropped */
	{
		size_t big = (64 << 10) + 10;
		char *b = malloc(big);

		record(b, big, "flow", 999);
		cr_expect_eq(mk_out_writer_push(w, b, big, 1), 1);
		free(b);
	}
	cr_assert_eq(mk_out_writer_start(w), 0);
	mk_out_writer_stop(w, 1000);
	mk_out_writer_join(w);
	mk_out_writer_counts(w, cnt);
	cr_expect_eq(cnt[MK_OUT_WRITTEN], 65);
	cr_expect_eq(cnt[MK_OUT_DROPPED], 35 + 3 + 1);
	cr_expect_eq(cnt[MK_OUT_LOST], 0);
	cr_expect_eq(cnt[MK_OUT_BYTES], 65000);
	cr_expect_eq(cnt[MK_OUT_BUFFERED], 0);
	mk_out_writer_free(w, 0);
	got = slurp("eve.json", &len);
	cr_expect_eq(len, 65000);
	cr_expect(!memcmp(got, all, 65000), "the first 65 records, whole and in order");
	free(got);
	free(all);
}

struct producer {
	struct mk_out_writer *w;
	unsigned int n;
	uint64_t dropped;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	char rec[700];
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		record(rec, sizeof(rec), "flow", i);
		p->dropped += mk_out_writer_push(p->w, rec, sizeof(rec), 1);
	}
	return NULL;
}

Test(outputs, backpressure_makes_producers_wait_and_loses_nothing)
{
	struct mk_eve_cfg c = file_cfg("bp.json", MK_EVE_TYPE_FLOW, 64 << 10);
	struct producer p[2];
	pthread_t t[2];
	uint64_t cnt[MK_OUT_CNT_MAX];
	struct mk_out_writer *w;
	char *got;
	size_t len;
	int i;

	c.backpressure = 1;
	cr_assert_eq(mk_out_writer_new(&w, &c, 0, dir, 1, 0), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	for (i = 0; i < 2; i++) {
		p[i] = (struct producer){ .w = w, .n = 20000 };
		pthread_create(&t[i], NULL, produce, &p[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	mk_out_writer_stop(w, 1000);
	mk_out_writer_join(w);
	mk_out_writer_counts(w, cnt);
	cr_expect_eq(p[0].dropped + p[1].dropped, 0);
	cr_expect_eq(cnt[MK_OUT_WRITTEN], 40000);
	cr_expect_eq(cnt[MK_OUT_DROPPED], 0);
	cr_expect_leq(cnt[MK_OUT_HIGH_WATER], 64 << 10);
	mk_out_writer_free(w, 0);
	got = slurp("bp.json", &len);
	cr_expect_eq(len, 40000 * 700, "28 MB through a 64 KiB buffer, nothing lost");
	free(got);
}

Test(outputs, records_go_to_the_outputs_that_take_their_type)
{
	struct mk_output_cfg cfg = { .neve = 3 };
	struct mk_outputs *o;
	char batch[4 * 200], *a, *b, *c;
	size_t la, lb, lc, n = 0;

	cfg.eves[0] = file_cfg("flows.json", MK_EVE_TYPE_FLOW, 1 << 20);
	cfg.eves[1] = file_cfg("alerts.json", MK_EVE_TYPE_ALERT, 1 << 20);
	cfg.eves[2] = file_cfg("off.json", MK_EVE_TYPE_ALERT, 1 << 20);
	cfg.eves[2].enabled = 0;
	n += record(batch + n, 200, "flow", 0);
	n += record(batch + n, 200, "alert", 1);
	n += record(batch + n, 200, "dns", 2); /* no output names it: everywhere */
	n += record(batch + n, 200, "flow", 3);
	cr_assert_eq(mk_outputs_new(&o, &cfg, dir, 1, 0), 0);
	cr_expect_eq(mk_outputs_count(o), 2, "a disabled output is not opened");
	cr_assert_eq(mk_outputs_start(o), 0);
	mk_outputs_write(o, batch, n, 4);
	cr_expect_eq(mk_outputs_flush(o, 5000), 0);
	c = slurp("flows.json", &lc);
	cr_expect_eq(lc, 600, "written once flushed, before the end");
	free(c);
	mk_outputs_free(o);
	a = slurp("flows.json", &la);
	b = slurp("alerts.json", &lb);
	cr_expect_eq(la, 600);
	cr_expect(!memcmp(a, batch, 200) && !memcmp(a + 200, batch + 400, 400));
	cr_expect_eq(lb, 400);
	cr_expect(!memcmp(b, batch + 200, 400));
	cr_expect_eq(access("off.json", F_OK), -1);
	free(a);
	free(b);
}

static int listen_unix(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type, 0);

	cr_assert_geq(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	if (type == SOCK_STREAM)
		cr_assert_eq(listen(fd, 1), 0);
	return fd;
}

/* Reads exactly @len bytes from @fd. */
static void read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		cr_assert_gt(n, 0, "read: %s after %zu of %zu bytes", strerror(errno), got, len);
		got += (size_t)n;
	}
}

static uint64_t counter(struct mk_out_writer *w, enum mk_out_cnt k)
{
	uint64_t cnt[MK_OUT_CNT_MAX];

	mk_out_writer_counts(w, cnt);
	return cnt[k];
}

Test(outputs, unix_stream_reader_goes_away_and_comes_back)
{
	struct mk_eve_cfg c = file_cfg("", MK_EVE_TYPE_FLOW, 1 << 20);
	struct mk_out_writer *w;
	char path[200], rec[300], got[300];
	int l, a, i;

	snprintf(path, sizeof(path), "%s/s.sock", dir);
	snprintf(c.filename, sizeof(c.filename), "%s", path);
	c.filetype = MK_EVE_FILETYPE_UNIX_STREAM;
	l = listen_unix(path, SOCK_STREAM);
	cr_assert_eq(mk_out_writer_new(&w, &c, 1, dir, 0, 0), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	record(rec, sizeof(rec), "flow", 1);
	mk_out_writer_push(w, rec, sizeof(rec), 1);
	a = accept(l, NULL, NULL);
	read_all(a, got, sizeof(got));
	cr_expect(!memcmp(got, rec, sizeof(rec)));
	/* the reader goes: records wait in the buffer until one listens again */
	close(a);
	close(l);
	unlink(path);
	for (i = 0; i < 50 && !counter(w, MK_OUT_LOST) && counter(w, MK_OUT_BUFFERED) < 3 * 300;
	     i++) {
		record(rec, sizeof(rec), "flow", 2);
		mk_out_writer_push(w, rec, sizeof(rec), 1);
		usleep(20000);
	}
	l = listen_unix(path, SOCK_STREAM);
	record(rec, sizeof(rec), "flow", 3);
	mk_out_writer_push(w, rec, sizeof(rec), 1);
	a = accept(l, NULL, NULL);
	cr_assert_geq(a, 0);
	/* whatever was pushed after the peer was seen gone arrives; the last record last */
	for (;;) {
		read_all(a, got, sizeof(got));
		if (!memcmp(got, rec, sizeof(rec)))
			break;
	}
	for (i = 0; i < 100 && !counter(w, MK_OUT_RECONNECTS); i++)
		usleep(10000);
	cr_expect_eq(counter(w, MK_OUT_RECONNECTS), 1);
	cr_expect_eq(counter(w, MK_OUT_DROPPED), 0);
	mk_out_writer_free(w, 500);
	close(a);
	close(l);
}

Test(outputs, a_stalled_socket_drops_and_the_end_is_bounded)
{
	struct mk_eve_cfg c = file_cfg("", MK_EVE_TYPE_FLOW, 64 << 10);
	struct mk_out_writer *w;
	char path[200], rec[1000];
	uint64_t cnt[MK_OUT_CNT_MAX], dropped = 0;
	int l, a = -1, i;

	snprintf(path, sizeof(path), "%s/stall.sock", dir);
	snprintf(c.filename, sizeof(c.filename), "%s", path);
	c.filetype = MK_EVE_FILETYPE_UNIX_STREAM;
	l = listen_unix(path, SOCK_STREAM);
	cr_assert_eq(mk_out_writer_new(&w, &c, 1, NULL, 0, 0), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	/* accepted, never read: the socket fills, then the buffer, then records drop */
	for (i = 0; i < 3000; i++) {
		record(rec, sizeof(rec), "flow", (unsigned int)i);
		dropped += mk_out_writer_push(w, rec, sizeof(rec), 1);
		if (i == 0)
			a = accept(l, NULL, NULL);
	}
	cr_expect_gt(dropped, 0);
	mk_out_writer_stop(w, 300);
	mk_out_writer_join(w);
	mk_out_writer_counts(w, cnt);
	cr_expect_eq(cnt[MK_OUT_DROPPED], dropped);
	cr_expect_eq(cnt[MK_OUT_WRITTEN] + cnt[MK_OUT_DROPPED] + cnt[MK_OUT_LOST], 3000,
		     "every record is written, dropped or lost: %llu + %llu + %llu",
		     (unsigned long long)cnt[MK_OUT_WRITTEN],
		     (unsigned long long)cnt[MK_OUT_DROPPED], (unsigned long long)cnt[MK_OUT_LOST]);
	mk_out_writer_free(w, 0);
	close(a);
	close(l);
}

Test(outputs, syslog_messages_are_rfc5424)
{
	struct mk_eve_cfg c = file_cfg("", 0, 1 << 20);
	struct mk_out_writer *w;
	char path[200], msg[512], hdr[256], rec[100];
	ssize_t n;
	size_t h;
	int l;

	/* 2026-12-04T20:00:00.000042Z */
	h = mk_syslog_header(hdr, sizeof(hdr), 21 * 8 + 6, 1796414400000042ull, "sensor1",
			     "meerkat", 77);
	cr_expect_str_eq(hdr, "<174>1 2026-12-04T20:00:00.000042Z sensor1 meerkat 77 - - ");
	cr_expect_eq(h, strlen(hdr));
	cr_expect_eq(mk_syslog_header(hdr, 10, 1, 0, "h", "i", 1), 9, "cut, never past the buffer");
	snprintf(path, sizeof(path), "%s/log.sock", dir);
	l = listen_unix(path, SOCK_DGRAM);
	c.filetype = MK_EVE_FILETYPE_SYSLOG;
	c.facility = 3;
	c.level = 4;
	strcpy(c.identity, "ids");
	snprintf(c.syslog_socket, sizeof(c.syslog_socket), "%s", path);
	cr_assert_eq(mk_out_writer_new(&w, &c, 0, NULL, 0, 0), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	record(rec, sizeof(rec), "alert", 5);
	mk_out_writer_push(w, rec, sizeof(rec), 1);
	n = recv(l, msg, sizeof(msg) - 1, 0);
	cr_assert_gt(n, 0);
	msg[n] = '\0';
	cr_expect(!strncmp(msg, "<28>1 ", 6), "%s", msg);
	cr_expect(strstr(msg, " ids "), "%s", msg);
	cr_expect(!strcmp(strstr(msg, " - - ") + 5,
			  "{\"event_type\":\"alert\",\"n\":5,\"pad\":\"") ||
			  (size_t)n > sizeof(rec),
		  "%s", msg);
	cr_expect_eq(msg[n - 1], '}', "the record without its newline: %s", msg);
	mk_out_writer_free(w, 200);
	close(l);
}

Test(outputs, event_type_of_every_prefix)
{
	static const char rec[] =
		"{\"timestamp\":\"2026-12-04T20:00:00.000000+0000\",\"flow_id\":1,"
		"\"event_type\":\"alert\",\"src_ip\":\"10.0.0.1\"}";
	size_t i, at = strstr(rec, "alert\"") - rec + 6;

	cr_expect_eq(mk_outputs_event_type(rec, strlen(rec)), MK_EVE_TYPE_ALERT);
	for (i = 0; i < strlen(rec); i++) {
		uint32_t t = mk_outputs_event_type(rec, i);

		cr_expect_eq(t, i >= at ? MK_EVE_TYPE_ALERT : 0, "prefix of %zu bytes: %u", i, t);
	}
	cr_expect_eq(mk_outputs_event_type("{\"event_type\":\"stats\"}", 22), MK_EVE_TYPE_STATS);
	cr_expect_eq(mk_outputs_event_type("{\"event_type\":\"flows\"}", 22), 0);
	cr_expect_eq(mk_outputs_event_type("\"\"\"\"", 4), 0);
}

/*
 * A transport (out_transport.h) as the writer drives it: a fake service
 * that can be down, takes at most `max` records a call, and keeps what it
 * took in memory.
 */
static struct fake {
	pthread_mutex_t lock;
	int down, max;
	char got[1 << 20];
	size_t len;
	unsigned int creates, sends, polls, destroyed, drain_ms;
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int fake_check(const struct mk_out_kv *kv, size_t n, char *why, size_t len)
{
	(void)kv;
	(void)n;
	(void)why;
	(void)len;
	return 0;
}

static void *fake_create(const struct mk_out_kv *kv, size_t n, char *why, size_t len)
{
	(void)kv;
	(void)n;
	(void)why;
	(void)len;
	fake.creates++;
	return &fake;
}

static int fake_send(void *priv, const struct iovec *recs, size_t n)
{
	struct fake *f = priv;
	size_t i;
	int r;

	pthread_mutex_lock(&f->lock);
	f->sends++;
	if (f->down) {
		pthread_mutex_unlock(&f->lock);
		return -ECONNREFUSED;
	}
	for (i = 0; i < n && (!f->max || i < (size_t)f->max); i++) {
		memcpy(f->got + f->len, recs[i].iov_base, recs[i].iov_len);
		f->len += recs[i].iov_len;
		f->got[f->len++] = '\n';
	}
	r = (int)i;
	pthread_mutex_unlock(&f->lock);
	return r;
}

static void fake_poll(void *priv)
{
	((struct fake *)priv)->polls++;
}

static void fake_stats(void *priv, json_t *obj)
{
	json_object_set_new(obj, "fake_sends", json_integer(((struct fake *)priv)->sends));
}

static void fake_destroy(void *priv, unsigned int timeout_ms)
{
	((struct fake *)priv)->destroyed++;
	((struct fake *)priv)->drain_ms = timeout_ms;
}

static const struct mk_out_transport fake_transport = {
	.name = "redis",
	.check = fake_check,
	.create = fake_create,
	.send = fake_send,
	.poll = fake_poll,
	.stats = fake_stats,
	.destroy = fake_destroy,
};

static void set_down(int down)
{
	pthread_mutex_lock(&fake.lock);
	fake.down = down;
	pthread_mutex_unlock(&fake.lock);
}

Test(outputs, a_transport_gets_records_in_order_and_is_retried_when_down)
{
	struct mk_eve_cfg c = file_cfg("", MK_EVE_TYPE_FLOW, 1 << 20);
	struct mk_out_writer *w;
	char *all = malloc(50 * 200);
	json_t *j;
	int i;

	c.filetype = MK_EVE_FILETYPE_REDIS;
	fake.down = 1;
	fake.max = 3; /* a few records a call: the writer sends the rest again */
	cr_assert_eq(mk_out_writer_new_with(&w, &c, 2, NULL, 0, 0, &fake_transport), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	for (i = 0; i < 50; i++) {
		record(all + i * 200, 200, "flow", (unsigned int)i);
		mk_out_writer_push(w, all + i * 200, 200, 1);
	}
	usleep(300000);
	cr_expect_eq(counter(w, MK_OUT_WRITTEN), 0, "the service is down");
	cr_expect_eq(counter(w, MK_OUT_BUFFERED), 0, "the writer holds the batch in hand");
	cr_expect_leq(fake.sends, 4, "with a back-off (100, 200 ms), not in a loop: %u",
		      fake.sends);
	set_down(0);
	for (i = 0; i < 300 && counter(w, MK_OUT_WRITTEN) < 50; i++)
		usleep(10000);
	cr_expect_eq(counter(w, MK_OUT_WRITTEN), 50);
	cr_expect_eq(counter(w, MK_OUT_RECONNECTS), 1);
	cr_expect_eq(counter(w, MK_OUT_BYTES), 50 * 200);
	j = mk_out_writer_json(w);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "redis"), "fake_sends")),
		     fake.sends,
		     "the transport's own counters are in the output's, under its name");
	cr_expect_str_eq(json_string_value(json_object_get(j, "filetype")), "redis");
	json_decref(j);
	mk_out_writer_free(w, 700);
	cr_expect_eq(fake.len, 50 * 200);
	cr_expect(!memcmp(fake.got, all, 50 * 200), "every record once, in order");
	cr_expect_eq(fake.creates, 1);
	cr_expect_eq(fake.destroyed, 1);
	cr_expect_eq(fake.drain_ms, 700);
	free(all);
}

Test(outputs, a_transport_down_at_the_end_loses_what_is_left_counted)
{
	struct mk_eve_cfg c = file_cfg("", MK_EVE_TYPE_FLOW, 1 << 20);
	struct mk_out_writer *w;
	uint64_t cnt[MK_OUT_CNT_MAX];
	char rec[200];
	int i;

	c.filetype = MK_EVE_FILETYPE_KAFKA;
	fake.down = 1;
	cr_assert_eq(mk_out_writer_new_with(&w, &c, 0, NULL, 0, 0, &fake_transport), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	for (i = 0; i < 20; i++) {
		record(rec, sizeof(rec), "flow", (unsigned int)i);
		mk_out_writer_push(w, rec, sizeof(rec), 1);
	}
	mk_out_writer_stop(w, 200);
	mk_out_writer_join(w);
	mk_out_writer_counts(w, cnt);
	cr_expect_eq(cnt[MK_OUT_WRITTEN], 0);
	cr_expect_eq(cnt[MK_OUT_LOST], 20, "the drain time passed: lost, counted");
	mk_out_writer_free(w, 200);
}

Test(outputs, offline_waits_for_room_but_not_for_a_sink_that_is_down, .timeout = 30)
{
	struct mk_eve_cfg c = file_cfg("", MK_EVE_TYPE_FLOW, 64 << 10);
	struct mk_out_writer *w;
	uint64_t cnt[MK_OUT_CNT_MAX], dropped = 0;
	char path[200], rec[1000];
	int i;

	snprintf(path, sizeof(path), "%s/nobody.sock", dir);
	snprintf(c.filename, sizeof(c.filename), "%s", path);
	c.filetype = MK_EVE_FILETYPE_UNIX_STREAM;
	cr_assert_eq(mk_out_writer_new(&w, &c, 1, NULL, 0, 1), 0);
	cr_assert_eq(mk_out_writer_start(w), 0);
	for (i = 0; i < 200; i++) {
		record(rec, sizeof(rec), "flow", (unsigned int)i);
		dropped += mk_out_writer_push(w, rec, sizeof(rec), 1);
	}
	mk_out_writer_stop(w, 200);
	mk_out_writer_join(w);
	mk_out_writer_counts(w, cnt);
	cr_expect_gt(dropped, 0, "nobody listens: records are dropped, the producer goes on");
	cr_expect_eq(cnt[MK_OUT_DROPPED] + cnt[MK_OUT_LOST], 200);
	cr_expect_eq(cnt[MK_OUT_WRITTEN], 0);
	mk_out_writer_free(w, 0);
}
