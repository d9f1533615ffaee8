/* Remote stores: the common part of every backend. See store.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "source/store_int.h"

int ss_store_open(const struct ss_store_uri *u, const struct ss_store_env *env, struct ss_store **out, char *err,
		  size_t errlen)
{
	struct ss_store *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->uri = *u;
	if (env)
		st->env = *env;
	st->ops = u->kind == SS_STORE_S3 ? &ss_store_s3_ops : &ss_store_file_ops;
	if (u->kind == SS_STORE_S3)
		snprintf(st->name, sizeof(st->name), "s3://%s/%s", u->bucket, u->prefix);
	else
		snprintf(st->name, sizeof(st->name), "file://%s", u->path);
	int r = st->ops->open(st, err, errlen);
	if (r) {
		free(st);
		return r;
	}
	*out = st;
	return 0;
}

void ss_store_close(struct ss_store *st)
{
	if (!st)
		return;
	st->ops->close(st);
	free(st);
}

const char *ss_store_name(const struct ss_store *st)
{
	return st->name;
}

int ss_store_list(struct ss_store *st, ss_store_obj_fn fn, ss_store_page_fn page, void *arg, char *err, size_t errlen)
{
	return st->ops->list(st, fn, page, arg, err, errlen);
}

int ss_store_get(struct ss_store *st, const char *key, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	return st->ops->get(st, key, max, out, len, err, errlen);
}

int ss_store_read(struct ss_store *st, const char *key, ss_store_data_fn fn, void *arg, char *err, size_t errlen)
{
	return st->ops->read(st, key, fn, arg, err, errlen);
}

uint64_t ss_store_requests(const struct ss_store *st)
{
	return st->requests;
}

bool ss_store_cancelled(const struct ss_store *st)
{
	return (st->env.cancel && atomic_load_explicit(st->env.cancel, memory_order_relaxed)) ||
	       (st->env.stop && atomic_load_explicit(st->env.stop, memory_order_relaxed));
}

const char *ss_store_getenv(const struct ss_store *st, const char *name)
{
	return st->env.getenv ? st->env.getenv(name) : getenv(name);
}

int ss_store_pace(struct ss_store *st)
{
	if (ss_store_cancelled(st))
		return -ECANCELED;
	st->requests++;
	if (st->env.rate <= 0)
		return 0;
	double now = ss_mono();
	if (st->next_at < now)
		st->next_at = now;
	double wait = st->next_at - now;
	st->next_at += 1.0 / (double)st->env.rate;
	/* sleep in slices of at most 100 ms so that a cancel is seen */
	while (wait > 0) {
		double slice = wait > 0.1 ? 0.1 : wait;
		struct timespec ts = { (time_t)slice, (long)((slice - (double)(time_t)slice) * 1e9) };
		nanosleep(&ts, NULL);
		if (ss_store_cancelled(st))
			return -ECANCELED;
		wait -= slice;
	}
	return 0;
}
