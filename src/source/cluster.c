/*
 * The live-cluster source: librdkafka consumer of __remote_log_metadata, DescribeConfigs,
 * and the serve tail. See cluster.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>
#include <librdkafka/rdkafka.h>

#include "common/clock.h"
#include "common/darray.h"
#include "common/file.h"
#include "fmt/rlmm.h"
#include "source/cluster.h"
#include "source/cluster_conf.h"

/* ---- the client handle --------------------------------------------------------------- */

struct ss_cluster {
	rd_kafka_t      *rk;
	rd_kafka_topic_t *rkt;         /* the metadata topic's handle (the simple consumer's) */
	char            *bootstrap;
	int64_t          timeout_ms;
	int64_t          deadline_ms;  /* 0: none (a tail) */
	double           t_deadline;   /* ss_mono() at which it passes; 0: none */
	const atomic_bool *cancel;     /* NULL: none */
	pthread_mutex_t  emu;          /* guards the last error, set from librdkafka's threads */
	rd_kafka_resp_err_t last_err;
	char             last_reason[256];
	int32_t          rlmm_parts;   /* cached, 0 unknown */
	struct ss_cluster_tail *tail;  /* the tail this client serves, for stats_cb; NULL one-shot */
	char            *topic;        /* the metadata topic: __remote_log_metadata (benchmarks: another) */
};

static void error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
	struct ss_cluster *c = opaque;
	pthread_mutex_lock(&c->emu);   /* released below */
	/* an authentication failure explains everything after it: keep it over the
	 * "all brokers down" that follows */
	if (!(c->last_err == RD_KAFKA_RESP_ERR__AUTHENTICATION && err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)) {
		c->last_err = (rd_kafka_resp_err_t)err;
		snprintf(c->last_reason, sizeof(c->last_reason), "%s", reason ? reason : rd_kafka_err2str(err));
	}
	pthread_mutex_unlock(&c->emu);
}

/* librdkafka logs to stderr by default: its connection chatter would bury our one
 * clear message. Errors reach us through error_cb. */
static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
}

static void last_error(struct ss_cluster *c, rd_kafka_resp_err_t *err, char *reason, size_t len)
{
	pthread_mutex_lock(&c->emu);   /* released below */
	*err = c->last_err;
	size_t n = strnlen(c->last_reason, sizeof(c->last_reason));
	if (n >= len)
		n = len - 1;
	memcpy(reason, c->last_reason, n);
	reason[n] = 0;
	pthread_mutex_unlock(&c->emu);
}

static int errno_of(rd_kafka_resp_err_t e)
{
	switch (e) {
	case RD_KAFKA_RESP_ERR__AUTHENTICATION:
	case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
	case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
	case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
		return -EACCES;
	case RD_KAFKA_RESP_ERR__TRANSPORT:
	case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
	case RD_KAFKA_RESP_ERR__RESOLVE:
		return -EHOSTUNREACH;
	case RD_KAFKA_RESP_ERR__TIMED_OUT:
		return -ETIMEDOUT;
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
	case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
	case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
		return -ENOENT;
	default:
		return -EIO;
	}
}

static void drain_events(struct ss_cluster *c);

/* "cluster HOSTS: what (reason)": the reason is the client's last error when the call
 * itself only says it timed out. Returns the errno for it. */
static int fail(struct ss_cluster *c, rd_kafka_resp_err_t e, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int fail(struct ss_cluster *c, rd_kafka_resp_err_t e, char *err, size_t errlen, const char *fmt, ...)
{
	char what[512], reason[256];
	rd_kafka_resp_err_t le;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	drain_events(c);
	last_error(c, &le, reason, sizeof(reason));
	if (le && (e == RD_KAFKA_RESP_ERR__TIMED_OUT || e == RD_KAFKA_RESP_ERR__TRANSPORT ||
		   e == RD_KAFKA_RESP_ERR_NO_ERROR || le == RD_KAFKA_RESP_ERR__AUTHENTICATION)) {
		snprintf(err, errlen, "cluster %s: %s within %" PRId64 " ms: %s%s", c->bootstrap, what, c->timeout_ms,
			 le == RD_KAFKA_RESP_ERR__AUTHENTICATION ? "authentication failed: " : "", reason);
		return errno_of(le);
	}
	snprintf(err, errlen, "cluster %s: %s within %" PRId64 " ms: %s", c->bootstrap, what, c->timeout_ms,
		 e ? rd_kafka_err2str(e) : "no answer");
	return e ? errno_of(e) : -ETIMEDOUT;
}

/* Between two waits: -ECANCELED when the caller's flag is set, -ETIMEDOUT once the
 * deadline passed (err says which, naming what was being done). */
static int check_stop(struct ss_cluster *c, char *err, size_t errlen, const char *doing)
{
	if (c->cancel && atomic_load_explicit(c->cancel, memory_order_relaxed)) {
		snprintf(err, errlen, "cluster %s: cancelled while %s", c->bootstrap, doing);
		return -ECANCELED;
	}
	if (c->t_deadline > 0 && ss_mono() >= c->t_deadline) {
		snprintf(err, errlen, "cluster %s: %s not done within --kafka-deadline=%" PRId64 " ms", c->bootstrap, doing,
			 c->deadline_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

/* How long one blocking librdkafka call may wait: short enough that the cancel flag is
 * seen within 250 ms, and never past the deadline. */
static int slice_ms(const struct ss_cluster *c, double until)
{
	double end = until;
	if (c->t_deadline > 0 && c->t_deadline < end)
		end = c->t_deadline;
	double left = (end - ss_mono()) * 1000.0;
	if (left > 250.0)
		return 250;
	return left > 1.0 ? (int)left : 1;
}

static int stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque);

static int cluster_new(struct ss_cluster **out, const struct ss_cluster_opts *o, struct ss_cluster_tail *tail,
		       char *err, size_t errlen)
{
	struct ss_client_conf cc = { 0 };
	struct ss_cluster *c = calloc(1, sizeof(*c));
	rd_kafka_conf_t *conf = NULL;
	char es[512], v[32];
	int e = -ENOMEM;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&c->emu, NULL);   /* destroyed in ss_cluster_close */
	c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : SS_CLUSTER_DEFAULT_TIMEOUT_MS;
	c->cancel = o->cancel;
	if (!tail) {
		c->deadline_ms = o->deadline_ms > 0 ? o->deadline_ms : SS_CLUSTER_DEFAULT_DEADLINE_MS;
		c->t_deadline = ss_mono() + (double)c->deadline_ms / 1000.0;
	}
	if (!o->bootstrap || !*o->bootstrap) {
		snprintf(err, errlen, "--bootstrap-server: no servers given");
		e = -EINVAL;
		goto fail;
	}
	if (!(c->bootstrap = strdup(o->bootstrap)) || !(c->topic = strdup(o->topic ? o->topic : SS_CLUSTER_RLMM_TOPIC)))
		goto fail;
	if (o->config_file && (e = ss_client_conf_read(&cc, o->config_file, o->warn, o->warn_arg, err, errlen)))
		goto fail;
	conf = rd_kafka_conf_new();   /* owned by rk after rd_kafka_new succeeds */
	snprintf(v, sizeof(v), "%" PRId64, c->timeout_ms);
	const char *base[][2] = {
		{ "bootstrap.servers", o->bootstrap },
		{ "client.id", "segscan" },
		/* No group.id: the partitions are read through the simple consumer
		 * (rd_kafka_consume_start_queue), which needs none, so librdkafka creates no
		 * consumer group and never sends FindCoordinator: a fresh cluster would create
		 * __consumer_offsets for it (issue 20 item 8). Nothing is ever committed. */
		/* a batch whose CRC-32C does not match is refused, as Kafka's consumer does
		 * (check.crcs=true there), and reported as RD_KAFKA_RESP_ERR__BAD_MSG */
		{ "check.crcs", "true" },
		{ "enable.partition.eof", "true" },
		{ "auto.offset.reset", "earliest" },
		/* records produced without transactions: read up to the high watermark */
		{ "isolation.level", "read_uncommitted" },
		{ "socket.timeout.ms", v },
		{ "reconnect.backoff.ms", "500" },
		{ "reconnect.backoff.max.ms", "30000" },
		{ "fetch.wait.max.ms", "100" },
		{ "fetch.max.bytes", "67108864" },
		{ "max.partition.fetch.bytes", "16777216" },
		{ "queued.max.messages.kbytes", "262144" },
		/* librdkafka 2.0 pauses fetching for fetch.error.backoff.ms whenever its queue
		 * holds queued.min.messages: at the defaults (100000, 500 ms) a 1M-record replay
		 * spent 5 of its 6 s in those pauses. The byte bound above still caps memory. */
		{ "queued.min.messages", "10000000" },
		{ "fetch.error.backoff.ms", "50" },
		{ "log.connection.close", "false" },
	};
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		if (rd_kafka_conf_set(conf, base[i][0], base[i][1], es, sizeof(es)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "librdkafka: %s=%s: %s", base[i][0], base[i][1], es);
			e = -EINVAL;
			goto fail;
		}
	}
	for (uint32_t i = 0; i < cc.n; i++) {
		if (rd_kafka_conf_set(conf, cc.kv[i].k, cc.kv[i].v, es, sizeof(es)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "--kafka-config=%s line %u: %s: %s", o->config_file, cc.kv[i].line,
				 cc.kv[i].k, es);
			e = -EINVAL;
			goto fail;
		}
	}
	if (tail) {
		c->tail = tail;
		if (rd_kafka_conf_set(conf, "statistics.interval.ms", "1000", es, sizeof(es)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "librdkafka: statistics.interval.ms: %s", es);
			e = -EINVAL;
			goto fail;
		}
		rd_kafka_conf_set_stats_cb(conf, stats_cb);
	}
	rd_kafka_conf_set_error_cb(conf, error_cb);
	rd_kafka_conf_set_log_cb(conf, log_cb);
	rd_kafka_conf_set_opaque(conf, c);
	if (!(c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, es, sizeof(es)))) {
		snprintf(err, errlen, "cluster %s: cannot create the client: %s", o->bootstrap, es);
		e = -EINVAL;
		goto fail;
	}
	conf = NULL;
	/* a consumer's topic handle never creates the topic (allow.auto.create.topics is off) */
	if (!(c->rkt = rd_kafka_topic_new(c->rk, c->topic, NULL))) {   /* destroyed in ss_cluster_close */
		snprintf(err, errlen, "cluster %s: cannot make a topic handle: %s", o->bootstrap,
			 rd_kafka_err2str(rd_kafka_last_error()));
		e = -ENOMEM;
		goto fail;
	}
	ss_client_conf_free(&cc);
	*out = c;
	return 0;
fail:
	if (conf)
		rd_kafka_conf_destroy(conf);
	ss_client_conf_free(&cc);
	ss_cluster_close(c);
	return e;
}

/*
 * librdkafka hands client-wide errors (a refused SASL handshake among them) to error_cb
 * from its main queue, which rd_kafka_poll serves: a one-shot client takes them here so a
 * message can say why. Not for a tail's client: its own thread polls that queue.
 */
static void drain_events(struct ss_cluster *c)
{
	if (!c->tail)
		rd_kafka_poll(c->rk, 0);
}

int ss_cluster_rlmm_partitions(struct ss_cluster *c, int32_t *n, char *err, size_t errlen)
{
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_topic_t *t;
	rd_kafka_resp_err_t e;
	int r;

	if (c->rlmm_parts > 0) {
		*n = c->rlmm_parts;
		return 0;
	}
	/* the topic handle, so the metadata request names only this topic */
	t = c->rkt;
	double end = ss_mono() + (double)c->timeout_ms / 1000.0;
	for (;;) {
		if ((r = check_stop(c, err, errlen, "asking for the metadata of the remote log metadata topic")))
			return r;
		/* short requests, so refused credentials end the wait as soon as librdkafka
		 * reports them instead of at the deadline, and a cancel is seen */
		e = rd_kafka_metadata(c->rk, 0, t, &md, slice_ms(c, end));
		if ((e != RD_KAFKA_RESP_ERR__TRANSPORT && e != RD_KAFKA_RESP_ERR__TIMED_OUT) || ss_mono() >= end)
			break;
		/* a connection closed under the request, or no answer yet: refused credentials
		 * show up as an event; anything else is worth another try until the deadline */
		drain_events(c);
		rd_kafka_resp_err_t le;
		char reason[8];
		last_error(c, &le, reason, sizeof(reason));
		if (le == RD_KAFKA_RESP_ERR__AUTHENTICATION)
			break;
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if ((r = check_stop(c, err, errlen, "asking for the metadata of the remote log metadata topic")))
		return r;
	if (e)
		return fail(c, e, err, errlen, "no metadata for %s", c->topic);
	r = 0;
	if (md->topic_cnt != 1 || md->topics[0].err || md->topics[0].partition_cnt <= 0) {
		rd_kafka_resp_err_t te = md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
		snprintf(err, errlen, "cluster %s: topic %s: %s (is remote.log.storage.system.enable set on the brokers?)",
			 c->bootstrap, c->topic, rd_kafka_err2str(te ? te : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
		r = -ENOENT;
	} else {
		c->rlmm_parts = md->topics[0].partition_cnt;
		*n = c->rlmm_parts;
	}
	rd_kafka_metadata_destroy(md);
	return r;
}

int ss_cluster_open(struct ss_cluster **out, const struct ss_cluster_opts *o, char *err, size_t errlen)
{
	struct ss_cluster *c;
	int32_t n;
	int e = cluster_new(&c, o, NULL, err, errlen);
	if (e)
		return e;
	/* the first answer proves the servers, the protocol and the credentials */
	if ((e = ss_cluster_rlmm_partitions(c, &n, err, errlen)) && e != -ENOENT) {
		ss_cluster_close(c);
		return e;
	}
	*out = c;
	return 0;
}

void ss_cluster_close(struct ss_cluster *c)
{
	if (!c)
		return;
	if (c->rkt)
		rd_kafka_topic_destroy(c->rkt);   /* partner of rd_kafka_topic_new in cluster_new */
	if (c->rk)   /* no group: nothing to leave, nothing to commit */
		rd_kafka_destroy(c->rk);
	pthread_mutex_destroy(&c->emu);
	free(c->bootstrap);
	free(c->topic);
	free(c);
}

const char *ss_cluster_bootstrap(const struct ss_cluster *c)
{
	return c->bootstrap;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return x < y ? -1 : x > y;
}

int ss_cluster_mparts_for(const struct ss_cluster_tp *tps, uint32_t n, int32_t n_mparts, int32_t **out,
			  uint32_t *n_out)
{
	int32_t *v = NULL;
	uint32_t k = 0;
	*out = NULL;
	*n_out = 0;
	if (n_mparts <= 0)
		return -EINVAL;
	if (n && !(v = malloc(n * sizeof(*v))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		v[i] = ss_rlmm_metadata_partition(tps[i].topic_id, tps[i].partition, n_mparts);
	if (n)
		qsort(v, n, sizeof(*v), cmp_i32);
	for (uint32_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	*n_out = k;
	return 0;
}

/* ---- the one-shot read ---------------------------------------------------------------- */

#define READ_BATCH 4096
/* The early give-up: a read whose rate so far, measured over at least GIVEUP_MIN_S since
 * its first record, would need more than GIVEUP_FACTOR times the time left before the
 * deadline. A wide margin: only a peer claiming far more records than it serves (a high
 * watermark of 2^62) trips it; an honest read that is merely slow runs to the deadline. */
#define GIVEUP_MIN_S  1.0
#define GIVEUP_FACTOR 10.0

struct rd_part {
	int32_t mpart;
	int64_t lo, hi;       /* watermarks at the start */
	int64_t next;         /* next offset expected */
	double  last_progress;
	double  t_first;      /* ss_mono() of its first record; 0 none yet */
	int64_t off_first;    /* that record's offset */
	int64_t bad_first;    /* base offset of the first batch the client refused; -1 none */
	bool    started;      /* rd_kafka_consume_start_queue succeeded: stop it */
	bool    done;
};

/* The watermarks of one partition, in slices of at most 250 ms (the cancel flag and the
 * deadline between them) for up to the timeout: a ListOffsets the cluster has not answered
 * yet is asked again. */
static int watermarks(struct ss_cluster *c, int32_t mpart, int64_t *lo, int64_t *hi, char *err, size_t errlen)
{
	double end = ss_mono() + (double)c->timeout_ms / 1000.0;
	char doing[160];
	snprintf(doing, sizeof(doing), "asking for the watermarks of %s-%d", c->topic, mpart);
	for (;;) {
		int r = check_stop(c, err, errlen, doing);
		if (r)
			return r;
		rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(c->rk, c->topic, mpart, lo, hi, slice_ms(c, end));
		if (!e)
			return 0;
		drain_events(c);
		rd_kafka_resp_err_t le;
		char reason[8];
		last_error(c, &le, reason, sizeof(reason));
		if ((e != RD_KAFKA_RESP_ERR__TIMED_OUT && e != RD_KAFKA_RESP_ERR__TRANSPORT) || ss_mono() >= end ||
		    le == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
			if ((r = check_stop(c, err, errlen, doing)))
				return r;
			return fail(c, e, err, errlen, "no watermarks for %s-%d", c->topic, mpart);
		}
		if (e == RD_KAFKA_RESP_ERR__TRANSPORT) {   /* it failed at once: not a busy loop */
			struct timespec ts = { 0, 50 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
}

int ss_cluster_read_rlmm(struct ss_cluster *c, const int32_t *mparts, uint32_t n, const struct ss_cluster_sink *sink,
			 struct ss_cluster_read_stats *st, char *err, size_t errlen)
{
	struct rd_part *ps = NULL;
	double t0 = ss_mono();
	int r = 0;
	struct ss_cluster_read_stats s = { 0 };
	rd_kafka_message_t **batch = NULL;
	rd_kafka_queue_t *q = NULL;   /* every partition's messages, one queue (destroyed at out) */

	if (n && !(ps = calloc(n, sizeof(*ps)))) {
		r = -ENOMEM;
		goto out;
	}
	uint32_t left = 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t lo, hi;
		if ((r = watermarks(c, mparts[i], &lo, &hi, err, errlen)))
			goto out;
		ps[i] = (struct rd_part){ .mpart = mparts[i], .lo = lo, .hi = hi, .next = lo, .bad_first = -1,
					  .done = hi <= lo };
		if (!ps[i].done)
			left++;
	}
	if (left && (!(batch = malloc(READ_BATCH * sizeof(*batch))) || !(q = rd_kafka_queue_new(c->rk)))) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (ps[i].done)
			continue;
		/* the simple consumer: this partition from this offset, no group (partner:
		 * rd_kafka_consume_stop at out) */
		if (rd_kafka_consume_start_queue(c->rkt, ps[i].mpart, ps[i].lo, q) == -1) {
			r = fail(c, rd_kafka_last_error(), err, errlen, "cannot start reading %s-%d", c->topic, ps[i].mpart);
			goto out;
		}
		ps[i].started = true;
	}
	double now = ss_mono();
	for (uint32_t i = 0; i < n; i++)
		ps[i].last_progress = now;
	while (left) {
		if ((r = check_stop(c, err, errlen, "reading the remote log metadata")))
			goto out;
		/* a batch per call: per-message polls cost more than the decode and replay */
		ssize_t got = rd_kafka_consume_batch_queue(q, 100, batch, READ_BATCH);   /* each destroyed below */
		drain_events(c);   /* error_cb */
		now = ss_mono();
		for (ssize_t bi = 0; bi < got; bi++) {
			rd_kafka_message_t *m = batch[bi];
			struct rd_part *p = NULL;
			for (uint32_t i = 0; i < n; i++)
				if (ps[i].mpart == m->partition)
					p = &ps[i];
			if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
				if (p && !p->done && m->offset >= p->hi) {
					p->done = true;
					left--;
				}
			} else if (m->err == RD_KAFKA_RESP_ERR__BAD_MSG && p && !p->done) {
				/* check.crcs refused a batch; its records never reach us. Its metadata
				 * partition's later records would not be applied (the sink's taint),
				 * and librdkafka 2.0's reader loses its place in the rest of a response
				 * after a CRC failure (its skip_to takes a length for a position), so
				 * what it delivers next cannot be trusted to follow in order: the read
				 * of this partition ends here. */
				p->bad_first = m->offset;
				p->done = true;
				left--;
				if (sink->corrupt)
					r = sink->corrupt(sink->arg, p->mpart, m->offset, rd_kafka_message_errstr(m));
			} else if (m->err && p && p->done) {
				/* what the client made of the bytes after a refused batch (see above) */
			} else if (m->err) {
				/* connection trouble is retried by librdkafka and judged by the progress
				 * clock below; anything else about the partition is final */
				if (m->err != RD_KAFKA_RESP_ERR__TRANSPORT && m->err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN &&
				    m->err != RD_KAFKA_RESP_ERR__TIMED_OUT && m->err != RD_KAFKA_RESP_ERR__BAD_MSG) {
					r = errno_of(m->err);
					snprintf(err, errlen, "cluster %s: cannot read %s-%d: %s%s", c->bootstrap,
						 c->topic, m->partition,
						 m->err == RD_KAFKA_RESP_ERR__AUTHENTICATION ? "authentication failed: " : "",
						 rd_kafka_message_errstr(m));
				}
			} else if (p && !p->done) {
				if (m->offset < p->hi) {
					int64_t ts = rd_kafka_message_timestamp(m, NULL);
					s.records++;
					s.bytes += m->len;
					r = sink->record(sink->arg, p->mpart, m->offset, ts, m->payload, m->len,
							 m->payload != NULL);
				}
				if (p->t_first == 0) {
					p->t_first = now;
					p->off_first = m->offset;
				}
				p->next = m->offset + 1;
				p->last_progress = now;
				if (p->next >= p->hi) {
					p->done = true;
					left--;
				}
			}
			if (r) {
				while (bi < got)
					rd_kafka_message_destroy(batch[bi++]);
				goto out;
			}
			rd_kafka_message_destroy(m);
		}
		for (uint32_t i = 0; i < n; i++) {
			struct rd_part *p = &ps[i];
			if (p->done)
				continue;
			if ((now - p->last_progress) * 1000.0 > (double)c->timeout_ms) {
				r = fail(c, RD_KAFKA_RESP_ERR__TIMED_OUT, err, errlen,
					 "%s-%d made no progress at offset %" PRId64 " of %" PRId64, c->topic, p->mpart, p->next,
					 p->hi);
				goto out;
			}
			double dt = now - p->t_first, time_left = c->t_deadline - now;
			if (c->t_deadline > 0 && p->t_first > 0 && dt >= GIVEUP_MIN_S && p->next > p->off_first) {
				double rate = (double)(p->next - p->off_first) / dt;
				double eta = (double)(p->hi - p->next) / rate;
				if (eta > GIVEUP_FACTOR * time_left) {
					snprintf(err, errlen,
						 "cluster %s: %s-%d cannot be read to its high watermark within "
						 "--kafka-deadline=%" PRId64 " ms: at offset %" PRId64 " of %" PRId64
						 " after %.1f s (%.0f records/s) the rest would take %.3g s; giving up (does "
						 "the peer claim more records than it has?)",
						 c->bootstrap, c->topic, p->mpart, c->deadline_ms, p->next, p->hi, dt, rate, eta);
					r = -ETIMEDOUT;
					goto out;
				}
			}
		}
	}
	r = 0;   /* read whole: a deadline or a cancel from here on is the caller's to see */
out:
	for (uint32_t i = 0; i < n && ps; i++)
		if (ps[i].started)
			rd_kafka_consume_stop(c->rkt, ps[i].mpart);   /* partner of consume_start_queue above */
	if (q)
		rd_kafka_queue_destroy(q);
	free(batch);
	s.seconds = ss_mono() - t0;
	if (st)
		*st = s;
	free(ps);
	return r;
}

/* ---- DescribeConfigs ------------------------------------------------------------------ */

static const char *source_name(rd_kafka_ConfigSource_t s)
{
	switch (s) {
	case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG: return "DYNAMIC_TOPIC_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG: return "DYNAMIC_BROKER_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_DYNAMIC_DEFAULT_BROKER_CONFIG: return "DYNAMIC_DEFAULT_BROKER_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_STATIC_BROKER_CONFIG: return "STATIC_BROKER_CONFIG";
	case RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG: return "DEFAULT_CONFIG";
	default: return "UNKNOWN";
	}
}

int ss_cluster_describe_configs(struct ss_cluster *c, const char *const *topics, uint32_t n, int32_t broker_id,
				ss_cluster_config_fn fn, void *arg, char *err, size_t errlen)
{
	uint32_t nr = n + (broker_id >= 0 ? 1 : 0);
	rd_kafka_ConfigResource_t **rs = NULL;
	rd_kafka_AdminOptions_t *ao = NULL;
	rd_kafka_queue_t *q = NULL;
	rd_kafka_event_t *ev = NULL;
	char es[256], bid[16];
	int r = 0;

	if (!nr)
		return 0;
	if (!(rs = calloc(nr, sizeof(*rs))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		rs[i] = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topics[i]);
	if (broker_id >= 0) {
		snprintf(bid, sizeof(bid), "%d", broker_id);
		rs[n] = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, bid);
	}
	q = rd_kafka_queue_new(c->rk);                                            /* destroyed below */
	ao = rd_kafka_AdminOptions_new(c->rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);  /* destroyed below */
	rd_kafka_AdminOptions_set_request_timeout(ao, (int)c->timeout_ms, es, sizeof(es));
	rd_kafka_DescribeConfigs(c->rk, rs, nr, ao, q);
	double end = ss_mono() + (double)(c->timeout_ms + 1000) / 1000.0;
	while (!(ev = rd_kafka_queue_poll(q, slice_ms(c, end))) && ss_mono() < end) {   /* destroyed below */
		if ((r = check_stop(c, err, errlen, "waiting for DescribeConfigs")))
			goto out;
	}
	if (!ev && (r = check_stop(c, err, errlen, "waiting for DescribeConfigs")))
		goto out;
	if (!ev) {
		r = fail(c, RD_KAFKA_RESP_ERR__TIMED_OUT, err, errlen, "DescribeConfigs not answered");
		goto out;
	}
	if (rd_kafka_event_error(ev)) {
		r = fail(c, rd_kafka_event_error(ev), err, errlen, "DescribeConfigs failed (%s)",
			 rd_kafka_event_error_string(ev));
		goto out;
	}
	const rd_kafka_DescribeConfigs_result_t *res = rd_kafka_event_DescribeConfigs_result(ev);
	size_t cnt = 0;
	const rd_kafka_ConfigResource_t **rr = rd_kafka_DescribeConfigs_result_resources(res, &cnt);
	uint32_t ok = 0;
	for (size_t i = 0; i < cnt && !r; i++) {
		const char *name = rd_kafka_ConfigResource_name(rr[i]);
		bool broker = rd_kafka_ConfigResource_type(rr[i]) == RD_KAFKA_RESOURCE_BROKER;
		if (rd_kafka_ConfigResource_error(rr[i])) {
			snprintf(err, errlen, "cluster %s: DescribeConfigs %s %s: %s", c->bootstrap,
				 broker ? "broker" : "topic", name, rd_kafka_ConfigResource_error_string(rr[i]));
			continue;
		}
		ok++;
		size_t ne = 0;
		const rd_kafka_ConfigEntry_t **es2 = rd_kafka_ConfigResource_configs(rr[i], &ne);
		for (size_t j = 0; j < ne && !r; j++) {
			const char *v = rd_kafka_ConfigEntry_value(es2[j]);
			r = fn(arg, broker ? NULL : name, rd_kafka_ConfigEntry_name(es2[j]), v,
			       source_name(rd_kafka_ConfigEntry_source(es2[j])));
		}
	}
	if (!r && ok == 0)
		r = -ENOENT;
	else if (!r)
		err[0] = 0;
out:
	if (ev)
		rd_kafka_event_destroy(ev);
	rd_kafka_AdminOptions_destroy(ao);
	rd_kafka_queue_destroy(q);
	for (uint32_t i = 0; i < nr; i++)
		rd_kafka_ConfigResource_destroy(rs[i]);
	free(rs);
	return r;
}

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
static int stats_cb(rd_kafka_t *rk, char *json, size_t len, void *opaque)
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
		last_error(c, &le, reason, sizeof(reason));
		snprintf(t->last_error, sizeof(t->last_error), "no broker up%s%s", reason[0] ? ": " : "", reason);
	}
	pthread_mutex_unlock(&t->mu);
out:
	if (root)
		json_decref(root);
	return 0;   /* librdkafka frees json */
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
		int32_t halt = -1;   /* a partition to stop reading, outside the lock */
		pthread_mutex_lock(&t->mu);   /* released below */
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
				if (!p->caught_up && p->target >= 0 && p->next >= p->target) {
					p->caught_up = true;
					pthread_cond_broadcast(&t->cv);
				}
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
				if (!p->caught_up && p->target >= 0 && p->next >= p->target) {
					p->caught_up = true;
					pthread_cond_broadcast(&t->cv);
				}
			}
		}
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
	if ((e = cluster_new(&t->c, o, t, err, errlen))) {
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
