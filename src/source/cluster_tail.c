/* serve's tail of __remote_log_metadata (one consumer thread between scans) and the
 * librdkafka statistics it reads: see cluster.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <librdkafka/rdkafka.h>

#include "common/clock.h"
#include "common/darray.h"
#include "source/cluster.h"
#include "source/cluster_int.h"

/* ---- the tail ------------------------------------------------------------------------ */

struct rec_ref {
	int64_t  offset;
	int64_t  ts;
	uint64_t pos;    /* in the partition's arena */
	uint32_t len;
	bool     has_value;
};

struct tail_part {
	int32_t   mpart;
	int64_t   target;        /* high watermark when added; -1 until known */
	int64_t   next;          /* next offset to read */
	int64_t   hwm;           /* last known; -1 unknown */
	bool      caught_up;     /* reached target once (or as far as a refused batch lets it) */
	bool      started;       /* rd_kafka_consume_start_queue done (stopped in tail_stop) */
	int64_t   bad_first;     /* base offset of the first batch the client refused, reported
				    to every snapshot; -1 none */
	bool      over;          /* its records passed the tail's bound (or could not be kept):
				    dropped, read no further, every snapshot of it fails */
	char      bad_msg[256];  /* the client's words for it; or, when over, why */
	double    last_ok;       /* mono: its last record, or a watermark check it was up to date at */
	struct rec_ref *recs;
	uint32_t  n_recs, cap_recs;
	uint8_t  *arena;
	uint32_t  arena_len, arena_cap;
};

struct ss_cluster_tail {
	struct ss_cluster *c;
	pthread_t          th;
	pthread_mutex_t    mu;       /* guards everything below */
	pthread_cond_t     cv;       /* progress: a partition caught up, or the status changed */
	rd_kafka_queue_t  *q;        /* every tailed partition's messages (simple consumer) */
	bool               stop;
	bool               reassign; /* a partition was added */
	bool               connected;
	bool               ever_connected;
	double             since;
	double             last_answer;
	uint64_t           reconnects;
	char               last_error[256];
	struct tail_part  *parts;
	uint32_t           n_parts, cap_parts;
	double             t_start;
	uint64_t           max_bytes;  /* SS_CLUSTER_TAIL_MAX_BYTES or the option's */
	uint64_t           bytes;      /* kept by every partition: values + SS_CLUSTER_TAIL_REC_BYTES each */
};

static struct tail_part *tail_find(struct ss_cluster_tail *t, int32_t mp)
{
	for (uint32_t i = 0; i < t->n_parts; i++)
		if (t->parts[i].mpart == mp)
			return &t->parts[i];
	return NULL;
}

static int tail_append(struct tail_part *p, const rd_kafka_message_t *m)
{
	struct rec_ref *x;
	int e;
	if (m->len > UINT32_MAX - p->arena_len)
		return -E2BIG;
	if ((e = SS_DA_RESERVE(&p->arena, &p->arena_cap, (uint64_t)p->arena_len + m->len)) < 0)
		return e;
	if ((e = SS_DA_PUSH(&p->recs, &p->n_recs, &p->cap_recs, &x)) < 0)
		return e;
	x->offset = m->offset;
	x->ts = rd_kafka_message_timestamp(m, NULL);
	x->pos = p->arena_len;
	x->len = (uint32_t)m->len;
	x->has_value = m->payload != NULL;
	if (m->len)
		memcpy(p->arena + p->arena_len, m->payload, m->len);
	p->arena_len += (uint32_t)m->len;
	return 0;
}

/* The record m does not fit the bound (or could not be kept, err): the partition's records
 * go, it is read no further, and a snapshot that asks for it says why. Called with t->mu
 * held; returns whether to stop its consumption (outside the lock). */
static bool tail_over(struct ss_cluster_tail *t, struct tail_part *p, const rd_kafka_message_t *m, int err)
{
	t->bytes -= (uint64_t)p->arena_len + (uint64_t)p->n_recs * SS_CLUSTER_TAIL_REC_BYTES;
	free(p->recs);
	free(p->arena);
	p->recs = NULL;
	p->arena = NULL;
	p->n_recs = p->cap_recs = p->arena_len = p->arena_cap = 0;
	p->over = true;
	if (err)
		snprintf(p->bad_msg, sizeof(p->bad_msg), "%s-%d offset %" PRId64 ": cannot keep the record: %s",
			 t->c->topic, p->mpart, m->offset, strerror(-err));
	else
		snprintf(p->bad_msg, sizeof(p->bad_msg),
			 "%s-%d offset %" PRId64 ": the records kept would pass the tail's bound of %" PRIu64
			 " bytes: its remote state is unknown until serve restarts", t->c->topic, p->mpart, m->offset,
			 t->max_bytes);
	snprintf(t->last_error, sizeof(t->last_error), "%s", p->bad_msg);
	if (!p->caught_up) {
		p->caught_up = true;   /* as far as it will get: a snapshot must not wait for it */
		pthread_cond_broadcast(&t->cv);
	}
	bool halt = p->started;
	p->started = false;
	return halt;
}

static void set_connected(struct ss_cluster_tail *t, bool on, double now)
{
	if (t->connected != on) {
		if (on && t->ever_connected)
			t->reconnects++;
		if (on) {
			t->ever_connected = true;
			t->last_error[0] = 0;   /* what made it go away is over */
		}
		t->connected = on;
		t->since = now;
		pthread_cond_broadcast(&t->cv);
	}
}

/* Starts every partition added since the last call at the earliest offset, by
 * assignment (the simple consumer: no group, see cluster.h). Called with mu held; the
 * librdkafka call only enqueues the start, it does not wait on the network. */
static void tail_assign(struct ss_cluster_tail *t)
{
	for (uint32_t i = 0; i < t->n_parts; i++) {
		struct tail_part *p = &t->parts[i];
		if (p->started)
			continue;
		/* partner: rd_kafka_consume_stop in ss_cluster_tail_stop */
		if (rd_kafka_consume_start_queue(t->c->rkt, p->mpart, p->next >= 0 ? p->next : RD_KAFKA_OFFSET_BEGINNING,
						 t->q) == -1) {
			snprintf(t->last_error, sizeof(t->last_error), "cannot start reading %s-%d: %s", t->c->topic,
				 p->mpart, rd_kafka_err2str(rd_kafka_last_error()));
			continue;   /* tried again when the next partition is added */
		}
		p->started = true;
	}
	t->reassign = false;
}

/*
 * librdkafka's statistics (statistics.interval.ms, served from rd_kafka_poll on the tail's
 * own thread) say, without a blocking request, which brokers are UP and each partition's
 * high watermark as of its last fetch: "connected" is a broker UP, and a partition whose
 * leader is UP and which has read up to that watermark is up to date now. A cluster that
 * went away leaves every broker DOWN, so ages grow from there.
 */
int ss_cluster_tail_stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque)
{
	struct ss_cluster *c = opaque;
	struct ss_cluster_tail *t = c->tail;
	json_error_t je;
	json_t *root = json_loadb(json, len, 0, &je);   /* decref'd below */
	if (!t || !root)
		goto out;
	bool up = false;
	int32_t up_ids[64];
	uint32_t n_up = 0;
	const char *k;
	json_t *b;
	json_object_foreach(json_object_get(root, "brokers"), k, b) {
		const char *st = json_string_value(json_object_get(b, "state"));
		if (st && !strcmp(st, "UP")) {
			up = true;
			if (n_up < 64)
				up_ids[n_up++] = (int32_t)json_integer_value(json_object_get(b, "nodeid"));
		}
	}
	json_t *parts = json_object_get(json_object_get(json_object_get(root, "topics"), c->topic),
					"partitions");
	pthread_mutex_lock(&t->mu);   /* released below */
	double now = ss_mono();
	if (up)
		t->last_answer = now;
	set_connected(t, up, now);
	json_t *pj;
	json_object_foreach(parts, k, pj) {
		int32_t id = (int32_t)json_integer_value(json_object_get(pj, "partition"));
		struct tail_part *p = id >= 0 ? tail_find(t, id) : NULL;
		if (!p)
			continue;
		int32_t leader = (int32_t)json_integer_value(json_object_get(pj, "leader"));
		int64_t hi = json_integer_value(json_object_get(pj, "hi_offset"));
		bool leader_up = false;
		for (uint32_t i = 0; i < n_up; i++)
			if (up_ids[i] == leader)
				leader_up = true;
		if (!leader_up || hi < 0)
			continue;
		p->hwm = hi;
		if (p->target < 0)
			p->target = hi;
		if (p->next >= hi) {
			p->last_ok = now;
			if (!p->caught_up && p->next >= p->target) {
				p->caught_up = true;
				pthread_cond_broadcast(&t->cv);
			}
		}
	}
	if (!up) {
		rd_kafka_resp_err_t le;
		char reason[200];
		ss_cluster_last_error(c, &le, reason, sizeof(reason));
		snprintf(t->last_error, sizeof(t->last_error), "no broker up%s%s", reason[0] ? ": " : "", reason);
	}
	pthread_mutex_unlock(&t->mu);
out:
	if (root)
		json_decref(root);
	return 0;   /* librdkafka frees json */
}

/* A partition caught up with its target wakes the snapshot waiters. Under t->mu. */
static void tail_check_caught_up(struct ss_cluster_tail *t, struct tail_part *p)
{
	if (!p->caught_up && p->target >= 0 && p->next >= p->target) {
		p->caught_up = true;
		pthread_cond_broadcast(&t->cv);
	}
}

/* One message of the consume queue into the tail. Under t->mu (the caller holds it).
 * Returns a metadata partition to stop reading (outside the lock), or -1. */
static int32_t tail_take(struct ss_cluster_tail *t, const rd_kafka_message_t *m)
{
	int32_t halt = -1;
	double now = ss_mono();
	struct tail_part *p = tail_find(t, m->partition);
	if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		if (p) {
			if (p->next < m->offset)
				p->next = m->offset;
			p->hwm = m->offset;
			if (p->target < 0)
				p->target = m->offset;   /* the end, as of reaching it */
			p->last_ok = now;
			t->last_answer = now;
			tail_check_caught_up(t, p);
		}
	} else if (m->err == RD_KAFKA_RESP_ERR__BAD_MSG && p && p->bad_first < 0) {
		/* check.crcs refused a batch: every snapshot reports it, and the partition
		 * is read no further (see ss_cluster_read_rlmm): it is as caught up as it
		 * can be */
		p->bad_first = m->offset;
		snprintf(p->bad_msg, sizeof(p->bad_msg), "%s", rd_kafka_message_errstr(m));
		p->last_ok = now;
		if (!p->caught_up) {
			p->caught_up = true;
			pthread_cond_broadcast(&t->cv);
		}
		if (p->started) {
			p->started = false;
			halt = p->mpart;
		}
	} else if (p && (p->bad_first >= 0 || p->over)) {
		/* in flight when it was halted, or the client's reading of the bytes after
		 * the refused batch: nothing of it counts */
	} else if (m->err) {
		snprintf(t->last_error, sizeof(t->last_error), "%s", rd_kafka_message_errstr(m));
	} else if (p && m->offset >= (p->next < 0 ? 0 : p->next)) {
		uint64_t need = (uint64_t)m->len + SS_CLUSTER_TAIL_REC_BYTES;
		/* a record that cannot be kept ends the partition's replay: dropping it
		 * alone would replay a partial state as a whole one */
		int e = t->bytes + need > t->max_bytes ? 1 : tail_append(p, m);
		if (e) {
			if (tail_over(t, p, m, e < 0 ? e : 0))
				halt = p->mpart;
		} else {
			t->bytes += need;
			p->next = m->offset + 1;
			p->last_ok = now;
			t->last_answer = now;
			set_connected(t, true, now);
			tail_check_caught_up(t, p);
		}
	}
	return halt;
}

static void *tail_main(void *arg)
{
	struct ss_cluster_tail *t = arg;
	for (;;) {
		pthread_mutex_lock(&t->mu);   /* released below */
		if (t->stop) {
			pthread_mutex_unlock(&t->mu);
			break;
		}
		if (t->reassign)
			tail_assign(t);
		pthread_mutex_unlock(&t->mu);

		rd_kafka_poll(t->c->rk, 0);   /* stats_cb and error_cb; they take mu themselves */
		rd_kafka_message_t *m = rd_kafka_consume_queue(t->q, 100);   /* destroyed below */
		if (!m)
			continue;
		pthread_mutex_lock(&t->mu);   /* released below */
		int32_t halt = tail_take(t, m);   /* a partition to stop reading, outside the lock */
		pthread_mutex_unlock(&t->mu);
		rd_kafka_message_destroy(m);
		if (halt >= 0)   /* partner of tail_assign's start; waits for librdkafka's own thread */
			rd_kafka_consume_stop(t->c->rkt, halt);
	}
	return NULL;
}

int ss_cluster_tail_start(struct ss_cluster_tail **out, const struct ss_cluster_opts *o, char *err, size_t errlen)
{
	struct ss_cluster_tail *t = calloc(1, sizeof(*t));
	pthread_condattr_t ca;
	int e;
	if (!t)
		return -ENOMEM;
	/* not ss_cluster_open: a service starts while the cluster is down and catches up
	 * when it answers; only a bad configuration stops it here */
	if ((e = ss_cluster_new(&t->c, o, t, err, errlen))) {
		free(t);
		return e;
	}
	if (!(t->q = rd_kafka_queue_new(t->c->rk))) {   /* destroyed in ss_cluster_tail_stop */
		ss_cluster_close(t->c);
		free(t);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&t->mu, NULL);   /* destroyed in ss_cluster_tail_stop */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);     /* destroyed in ss_cluster_tail_stop */
	pthread_condattr_destroy(&ca);
	t->t_start = ss_mono();
	t->max_bytes = o->tail_max_bytes ? o->tail_max_bytes : SS_CLUSTER_TAIL_MAX_BYTES;
	t->connected = false;  /* until the first statistics with a broker UP (stats_cb) */
	t->since = t->t_start;
	t->last_answer = -1e9;
	if ((e = pthread_create(&t->th, NULL, tail_main, t))) {   /* joined in ss_cluster_tail_stop */
		snprintf(err, errlen, "cannot start the cluster consumer thread: %s", strerror(e));
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
		rd_kafka_queue_destroy(t->q);
		ss_cluster_close(t->c);
		free(t);
		return -e;
	}
	*out = t;
	return 0;
}

void ss_cluster_tail_stop(struct ss_cluster_tail *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);   /* partner of pthread_create in ss_cluster_tail_start */
	for (uint32_t i = 0; i < t->n_parts; i++) {
		if (t->parts[i].started)
			rd_kafka_consume_stop(t->c->rkt, t->parts[i].mpart);   /* partner: tail_assign */
		free(t->parts[i].recs);
		free(t->parts[i].arena);
	}
	free(t->parts);
	rd_kafka_queue_destroy(t->q);
	ss_cluster_close(t->c);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

const char *ss_cluster_tail_bootstrap(const struct ss_cluster_tail *t)
{
	return t->c->bootstrap;
}

int ss_cluster_tail_rlmm_partitions(struct ss_cluster_tail *t, int32_t *n, char *err, size_t errlen)
{
	pthread_mutex_lock(&t->mu);   /* the cached count is read and set under it */
	int r = ss_cluster_rlmm_partitions(t->c, n, err, errlen);
	pthread_mutex_unlock(&t->mu);
	return r;
}

int ss_cluster_tail_snapshot(struct ss_cluster_tail *t, const int32_t *mparts, uint32_t n,
			     const struct ss_cluster_sink *sink, const atomic_bool *cancel, char *err, size_t errlen)
{
	int r = 0;
	pthread_mutex_lock(&t->mu);   /* released at out: held during the replay so no append moves the arena */
	for (uint32_t i = 0; i < n; i++) {
		if (tail_find(t, mparts[i]))
			continue;
		struct tail_part *p;
		if ((r = SS_DA_PUSH(&t->parts, &t->n_parts, &t->cap_parts, &p)) < 0)
			goto out;
		memset(p, 0, sizeof(*p));
		p->mpart = mparts[i];
		p->target = -1;
		p->next = -1;
		p->hwm = -1;
		p->bad_first = -1;
		p->last_ok = ss_mono();
		t->reassign = true;
	}
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	double end = (double)dl.tv_sec + (double)dl.tv_nsec / 1e9 + (double)t->c->timeout_ms / 1000.0;
	for (;;) {
		struct tail_part *late = NULL;
		for (uint32_t i = 0; i < n && !late; i++) {
			struct tail_part *p = tail_find(t, mparts[i]);
			if (!p->caught_up)
				late = p;
		}
		if (!late)
			break;
		if (cancel && atomic_load_explicit(cancel, memory_order_relaxed)) {
			snprintf(err, errlen, "cluster %s: cancelled while waiting for %s-%d", t->c->bootstrap, t->c->topic,
				 late->mpart);
			r = -ECANCELED;
			goto out;
		}
		/* in slices of 100 ms, so a cancel is seen */
		clock_gettime(CLOCK_MONOTONIC, &dl);
		double now = (double)dl.tv_sec + (double)dl.tv_nsec / 1e9, until = now + 0.1 < end ? now + 0.1 : end;
		dl.tv_sec = (time_t)until;
		dl.tv_nsec = (long)((until - (double)dl.tv_sec) * 1e9);
		if (pthread_cond_timedwait(&t->cv, &t->mu, &dl) == ETIMEDOUT && until >= end) {
			snprintf(err, errlen,
				 "cluster %s: %s-%d not read up to its high watermark (%" PRId64 ") within %" PRId64
				 " ms (at offset %" PRId64 ")%s%s",
				 t->c->bootstrap, t->c->topic, late->mpart, late->target, t->c->timeout_ms,
				 late->next, t->last_error[0] ? ": " : "", t->last_error);
			r = t->connected ? -ETIMEDOUT : -EHOSTUNREACH;
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct tail_part *p = tail_find(t, mparts[i]);
		if (p->over) {   /* nothing of any partition is replayed: no partial state */
			snprintf(err, errlen, "cluster %s: %s", t->c->bootstrap, p->bad_msg);
			r = -ENOBUFS;
			goto out;
		}
	}
	for (uint32_t i = 0; i < n && !r; i++) {
		struct tail_part *p = tail_find(t, mparts[i]);
		if (p->bad_first >= 0 && sink->corrupt)
			r = sink->corrupt(sink->arg, p->mpart, p->bad_first, p->bad_msg);
		for (uint32_t j = 0; j < p->n_recs && !r; j++) {
			const struct rec_ref *x = &p->recs[j];
			r = sink->record(sink->arg, p->mpart, x->offset, x->ts, x->has_value ? p->arena + x->pos : NULL,
					 x->len, x->has_value);
		}
	}
out:
	pthread_mutex_unlock(&t->mu);
	return r;
}

int ss_cluster_tail_status(struct ss_cluster_tail *t, struct ss_cluster_status **out)
{
	pthread_mutex_lock(&t->mu);   /* released below */
	struct ss_cluster_status *s = calloc(1, sizeof(*s) + t->n_parts * sizeof(s->parts[0]));
	if (!s) {
		pthread_mutex_unlock(&t->mu);
		return -ENOMEM;
	}
	double now = ss_mono();
	s->connected = t->connected;
	s->since_s = now - t->since;
	s->reconnects = t->reconnects;
	s->caught_up = true;
	snprintf(s->last_error, sizeof(s->last_error), "%s", t->last_error);
	s->n_parts = t->n_parts;
	for (uint32_t i = 0; i < t->n_parts; i++) {
		const struct tail_part *p = &t->parts[i];
		struct ss_cluster_part_status *q = &s->parts[i];
		q->partition = p->mpart;
		q->next_offset = p->next;
		q->high_watermark = p->hwm;
		q->lag_records = p->hwm >= 0 && p->next >= 0 ? (p->hwm > p->next ? p->hwm - p->next : 0) : -1;
		q->age_s = now - p->last_ok;
		q->records = p->n_recs;
		q->over_bound = p->over;
		q->last_record_ms = p->n_recs ? p->recs[p->n_recs - 1].ts : -1;
		if (!p->caught_up)
			s->caught_up = false;
	}
	pthread_mutex_unlock(&t->mu);
	*out = s;
	return 0;
}
