// SPDX-License-Identifier: GPL-2.0-only
/* The set of EVE outputs (outputs.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"
#include "outputs.h"

struct mk_outputs {
	/*
	 * Held while a batch goes into every buffer, so that every output
	 * receives the records in one order (the copies are short; a writer
	 * thread never takes it).
	 */
	pthread_mutex_t order;
	unsigned int n;
	uint32_t all; /* every type some output takes */
	struct mk_out_writer *w[MK_EVE_OUTPUTS_MAX];
	unsigned int cfg_index[MK_EVE_OUTPUTS_MAX];
};

static const struct {
	const char *name;
	uint32_t bit;
} type_names[] = {
	{ "alert\"", MK_EVE_TYPE_ALERT }, { "flow\"", MK_EVE_TYPE_FLOW },
	{ "stats\"", MK_EVE_TYPE_STATS }, { "http\"", MK_EVE_TYPE_HTTP },
	{ "ssh\"", MK_EVE_TYPE_SSH },	  { "smtp\"", MK_EVE_TYPE_SMTP },
	{ "ftp\"", MK_EVE_TYPE_FTP },	  { "ftp_data\"", MK_EVE_TYPE_FTP },
};

uint32_t mk_outputs_event_type(const char *rec, size_t len)
{
	static const char key[] = "\"event_type\":\"";
	const char *p = rec, *end = rec + len;
	unsigned int i;

	/* the key comes early in every record (docs/eve.md): a bounded search */
	while ((p = memchr(p, '"', (size_t)(end - p)))) {
		if ((size_t)(end - p) < sizeof(key) - 1)
			return 0;
		if (!memcmp(p, key, sizeof(key) - 1)) {
			p += sizeof(key) - 1;
			for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
				size_t n = strlen(type_names[i].name);

				if ((size_t)(end - p) >= n && !memcmp(p, type_names[i].name, n))
					return type_names[i].bit;
			}
			return 0;
		}
		p++;
	}
	return 0;
}

int mk_outputs_new(struct mk_outputs **out, const struct mk_output_cfg *cfg, const char *log_dir,
		   int truncate, int sync)
{
	struct mk_outputs *o = calloc(1, sizeof(*o));
	unsigned int i;
	int err = 0;

	*out = NULL;
	if (!o)
		return -ENOMEM;
	pthread_mutex_init(&o->order, NULL);
	if (log_dir && mkdir(log_dir, 0755) && errno != EEXIST) {
		err = -errno;
		mk_err("%s: %s", log_dir, strerror(-err));
		goto fail;
	}
	for (i = 0; i < cfg->neve; i++) {
		if (!cfg->eves[i].enabled)
			continue;
		err = mk_out_writer_new(&o->w[o->n], &cfg->eves[i], i, log_dir, truncate, sync);
		if (err)
			goto fail;
		o->cfg_index[o->n] = i;
		o->all |= cfg->eves[i].types;
		o->n++;
	}
	*out = o;
	return 0;
fail:
	mk_outputs_free(o);
	return err;
}

int mk_outputs_start(struct mk_outputs *o)
{
	unsigned int i;
	int err;

	for (i = 0; o && i < o->n; i++) {
		err = mk_out_writer_start(o->w[i]);
		if (err)
			return err;
	}
	return 0;
}

unsigned int mk_outputs_count(const struct mk_outputs *o)
{
	return o ? o->n : 0;
}

/* The records of @lines whose type @w takes, under one lock. */
static void write_some(struct mk_out_writer *w, uint32_t types, const char *lines, size_t len)
{
	const char *p = lines, *end = lines + len, *nl;
	uint32_t t;

	mk_out_writer_lock(w);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end - 1;
		t = mk_outputs_event_type(p, (size_t)(nl - p));

		/* a type no output names goes everywhere: nothing is left out in silence */
		if (!t || (t & types))
			mk_out_writer_add(w, p, (size_t)(nl + 1 - p));
	}
	mk_out_writer_unlock(w);
}

void mk_outputs_write(struct mk_outputs *o, const char *lines, size_t len, uint64_t nrecs)
{
	unsigned int i;

	if (!o || !len)
		return;
	if (o->n > 1)
		pthread_mutex_lock(&o->order);
	for (i = 0; i < o->n; i++) {
		uint32_t t = mk_out_writer_types(o->w[i]);

		if ((t & o->all) == o->all)
			mk_out_writer_push(o->w[i], lines, len, nrecs);
		else
			write_some(o->w[i], t, lines, len);
	}
	if (o->n > 1)
		pthread_mutex_unlock(&o->order);
}

void mk_outputs_reopen(struct mk_outputs *o)
{
	unsigned int i;

	for (i = 0; o && i < o->n; i++)
		mk_out_writer_reopen(o->w[i]);
}

void mk_outputs_first_counts(struct mk_outputs *o, uint64_t *written, uint64_t *lost)
{
	uint64_t cnt[MK_OUT_CNT_MAX];

	*written = *lost = 0;
	if (!o || !o->n)
		return;
	mk_out_writer_counts(o->w[0], cnt);
	*written = cnt[MK_OUT_WRITTEN];
	*lost = cnt[MK_OUT_LOST];
}

json_t *mk_outputs_json(struct mk_outputs *o)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; o && i < o->n; i++)
		json_array_append_new(a, mk_out_writer_json(o->w[i]));
	return a;
}

int mk_outputs_flush(struct mk_outputs *o, unsigned int timeout_ms)
{
	unsigned int i, waited = 0;

	for (i = 0; o && i < o->n; i++) {
		while (!mk_out_writer_idle(o->w[i])) {
			if (waited >= timeout_ms)
				return -ETIMEDOUT;
			usleep(2000);
			waited += 2;
		}
	}
	return 0;
}

void mk_outputs_print(struct mk_outputs *o, FILE *out)
{
	uint64_t cnt[MK_OUT_CNT_MAX], any = 0;
	unsigned int i;

	for (i = 0; o && i < o->n; i++) {
		mk_out_writer_counts(o->w[i], cnt);
		any |= cnt[MK_OUT_DROPPED] | cnt[MK_OUT_LOST] | cnt[MK_OUT_RECONNECTS];
	}
	if (!o || (o->n < 2 && !any))
		return;
	for (i = 0; i < o->n; i++) {
		json_t *j = mk_out_writer_json(o->w[i]);

		mk_out_writer_counts(o->w[i], cnt);
		fprintf(out,
			"meerkat: output %s %s %s: written %llu, dropped %llu, lost %llu, "
			"reconnects %llu, bytes %llu\n",
			json_string_value(json_object_get(j, "name")),
			json_string_value(json_object_get(j, "filetype")),
			json_string_value(json_object_get(j, "target")),
			(unsigned long long)cnt[MK_OUT_WRITTEN],
			(unsigned long long)cnt[MK_OUT_DROPPED],
			(unsigned long long)cnt[MK_OUT_LOST],
			(unsigned long long)cnt[MK_OUT_RECONNECTS],
			(unsigned long long)cnt[MK_OUT_BYTES]);
		json_decref(j);
	}
}

void mk_outputs_stop(struct mk_outputs *o)
{
	unsigned int i;

	/* all at once: the drain times run side by side */
	for (i = 0; o && i < o->n; i++)
		mk_out_writer_stop(o->w[i], MK_OUTPUTS_DRAIN_MS);
	for (i = 0; o && i < o->n; i++)
		mk_out_writer_join(o->w[i]);
}

void mk_outputs_free(struct mk_outputs *o)
{
	unsigned int i;

	if (!o)
		return;
	mk_outputs_stop(o);
	for (i = 0; i < MK_EVE_OUTPUTS_MAX; i++)
		mk_out_writer_free(o->w[i], MK_OUTPUTS_DRAIN_MS);
	pthread_mutex_destroy(&o->order);
	free(o);
}
