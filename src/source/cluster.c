/*
 * The live-cluster source's client handle (its errors, bounds and cancellation) and the
 * one-shot read of __remote_log_metadata. See cluster.h; the other jobs are in
 * cluster_describe.c, cluster_tail.c and cluster_conf.c (cluster_int.h).
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
#include "source/cluster_int.h"

/* ---- the client handle --------------------------------------------------------------- */


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

void ss_cluster_last_error(struct ss_cluster *c, rd_kafka_resp_err_t *err, char *reason, size_t len)
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

static int ss_cluster_errno_of(rd_kafka_resp_err_t e)
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

static void ss_cluster_drain_events(struct ss_cluster *c);

int ss_cluster_fail(struct ss_cluster *c, rd_kafka_resp_err_t e, char *err, size_t errlen, const char *fmt, ...)
{
	char what[512], reason[256];
	rd_kafka_resp_err_t le;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ss_cluster_drain_events(c);
	ss_cluster_last_error(c, &le, reason, sizeof(reason));
	if (le && (e == RD_KAFKA_RESP_ERR__TIMED_OUT || e == RD_KAFKA_RESP_ERR__TRANSPORT ||
		   e == RD_KAFKA_RESP_ERR_NO_ERROR || le == RD_KAFKA_RESP_ERR__AUTHENTICATION)) {
		snprintf(err, errlen, "cluster %s: %s within %" PRId64 " ms: %s%s", c->bootstrap, what, c->timeout_ms,
			 le == RD_KAFKA_RESP_ERR__AUTHENTICATION ? "authentication failed: " : "", reason);
		return ss_cluster_errno_of(le);
	}
	snprintf(err, errlen, "cluster %s: %s within %" PRId64 " ms: %s", c->bootstrap, what, c->timeout_ms,
		 e ? rd_kafka_err2str(e) : "no answer");
	return e ? ss_cluster_errno_of(e) : -ETIMEDOUT;
}

/* Between two waits: -ECANCELED when the caller's flag is set, -ETIMEDOUT once the
 * deadline passed (err says which, naming what was being done). */
int ss_cluster_check_stop(struct ss_cluster *c, char *err, size_t errlen, const char *doing)
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
int ss_cluster_slice_ms(const struct ss_cluster *c, double until)
{
	double end = until;
	if (c->t_deadline > 0 && c->t_deadline < end)
		end = c->t_deadline;
	double left = (end - ss_mono()) * 1000.0;
	if (left > 250.0)
		return 250;
	return left > 1.0 ? (int)left : 1;
}


/* The client's properties: segscan's own (why each, below), then --kafka-config's, then
 * the statistics serve's tail reads. -EINVAL with err set when librdkafka refuses one. */
static int client_conf(rd_kafka_conf_t *conf, const struct ss_cluster *c, const struct ss_cluster_opts *o,
		       const struct ss_client_conf *cc, bool tail, char *err, size_t errlen)
{
	char es[512], v[32];
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
			return -EINVAL;
		}
	}
	for (uint32_t i = 0; i < cc->n; i++) {
		if (rd_kafka_conf_set(conf, cc->kv[i].k, cc->kv[i].v, es, sizeof(es)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "--kafka-config=%s line %u: %s: %s", o->config_file, cc->kv[i].line,
				 cc->kv[i].k, es);
			return -EINVAL;
		}
	}
	if (tail) {
		if (rd_kafka_conf_set(conf, "statistics.interval.ms", "1000", es, sizeof(es)) != RD_KAFKA_CONF_OK) {
			snprintf(err, errlen, "librdkafka: statistics.interval.ms: %s", es);
			return -EINVAL;
		}
		rd_kafka_conf_set_stats_cb(conf, ss_cluster_tail_stats_cb);
	}
	return 0;
}

int ss_cluster_new(struct ss_cluster **out, const struct ss_cluster_opts *o, struct ss_cluster_tail *tail,
		       char *err, size_t errlen)
{
	struct ss_client_conf cc = { 0 };
	struct ss_cluster *c = calloc(1, sizeof(*c));
	rd_kafka_conf_t *conf = NULL;
	char es[512];
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
	if ((e = client_conf(conf, c, o, &cc, tail != NULL, err, errlen)))
		goto fail;
	c->tail = tail;
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
static void ss_cluster_drain_events(struct ss_cluster *c)
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
		if ((r = ss_cluster_check_stop(c, err, errlen, "asking for the metadata of the remote log metadata topic")))
			return r;
		/* short requests, so refused credentials end the wait as soon as librdkafka
		 * reports them instead of at the deadline, and a cancel is seen */
		e = rd_kafka_metadata(c->rk, 0, t, &md, ss_cluster_slice_ms(c, end));
		if ((e != RD_KAFKA_RESP_ERR__TRANSPORT && e != RD_KAFKA_RESP_ERR__TIMED_OUT) || ss_mono() >= end)
			break;
		/* a connection closed under the request, or no answer yet: refused credentials
		 * show up as an event; anything else is worth another try until the deadline */
		ss_cluster_drain_events(c);
		rd_kafka_resp_err_t le;
		char reason[8];
		ss_cluster_last_error(c, &le, reason, sizeof(reason));
		if (le == RD_KAFKA_RESP_ERR__AUTHENTICATION)
			break;
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if ((r = ss_cluster_check_stop(c, err, errlen, "asking for the metadata of the remote log metadata topic")))
		return r;
	if (e)
		return ss_cluster_fail(c, e, err, errlen, "no metadata for %s", c->topic);
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
	int e = ss_cluster_new(&c, o, NULL, err, errlen);
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
		int r = ss_cluster_check_stop(c, err, errlen, doing);
		if (r)
			return r;
		rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(c->rk, c->topic, mpart, lo, hi, ss_cluster_slice_ms(c, end));
		if (!e)
			return 0;
		ss_cluster_drain_events(c);
		rd_kafka_resp_err_t le;
		char reason[8];
		ss_cluster_last_error(c, &le, reason, sizeof(reason));
		if ((e != RD_KAFKA_RESP_ERR__TIMED_OUT && e != RD_KAFKA_RESP_ERR__TRANSPORT) || ss_mono() >= end ||
		    le == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
			if ((r = ss_cluster_check_stop(c, err, errlen, doing)))
				return r;
			return ss_cluster_fail(c, e, err, errlen, "no watermarks for %s-%d", c->topic, mpart);
		}
		if (e == RD_KAFKA_RESP_ERR__TRANSPORT) {   /* it failed at once: not a busy loop */
			struct timespec ts = { 0, 50 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
}

/* One message of the read: a record for its metadata partition's sink, that partition's
 * end, a batch check.crcs refused (the partition's read ends there), or an error (final,
 * unless the connection's, which the progress clock judges). 0, or what ends the read:
 * the sink's verdict or the partition's error (err set). */
static int rlmm_message(struct ss_cluster *c, struct rd_part *ps, uint32_t n, const rd_kafka_message_t *m,
			const struct ss_cluster_sink *sink, struct ss_cluster_read_stats *s, uint32_t *left,
			double now, char *err, size_t errlen)
{
	int r = 0;

	struct rd_part *p = NULL;
	for (uint32_t i = 0; i < n; i++)
		if (ps[i].mpart == m->partition)
			p = &ps[i];
	if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		if (p && !p->done && m->offset >= p->hi) {
			p->done = true;
			(*left)--;
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
		(*left)--;
		if (sink->corrupt)
			r = sink->corrupt(sink->arg, p->mpart, m->offset, rd_kafka_message_errstr(m));
	} else if (m->err && p && p->done) {
		/* what the client made of the bytes after a refused batch (see above) */
	} else if (m->err) {
		/* connection trouble is retried by librdkafka and judged by the progress
		 * clock below; anything else about the partition is final */
		if (m->err != RD_KAFKA_RESP_ERR__TRANSPORT && m->err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN &&
		    m->err != RD_KAFKA_RESP_ERR__TIMED_OUT && m->err != RD_KAFKA_RESP_ERR__BAD_MSG) {
			r = ss_cluster_errno_of(m->err);
			snprintf(err, errlen, "cluster %s: cannot read %s-%d: %s%s", c->bootstrap,
				 c->topic, m->partition,
				 m->err == RD_KAFKA_RESP_ERR__AUTHENTICATION ? "authentication failed: " : "",
				 rd_kafka_message_errstr(m));
		}
	} else if (p && !p->done) {
		if (m->offset < p->hi) {
			int64_t ts = rd_kafka_message_timestamp(m, NULL);
			s->records++;
			s->bytes += m->len;
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
			(*left)--;
		}
	}
	return r;
}

/* Each partition still read against its bounds: no progress for --kafka-timeout, or a rate
 * that cannot reach the high watermark before --kafka-deadline (giving up early). 0 or the
 * error, err set. */
static int rlmm_progress(struct ss_cluster *c, const struct rd_part *ps, uint32_t n, double now, char *err,
			 size_t errlen)
{
	int r;

	for (uint32_t i = 0; i < n; i++) {
		const struct rd_part *p = &ps[i];
		if (p->done)
			continue;
		if ((now - p->last_progress) * 1000.0 > (double)c->timeout_ms) {
			r = ss_cluster_fail(c, RD_KAFKA_RESP_ERR__TIMED_OUT, err, errlen,
				 "%s-%d made no progress at offset %" PRId64 " of %" PRId64, c->topic, p->mpart, p->next,
				 p->hi);
			return r;
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
				return r;
			}
		}
	}
	return 0;
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
			r = ss_cluster_fail(c, rd_kafka_last_error(), err, errlen, "cannot start reading %s-%d", c->topic, ps[i].mpart);
			goto out;
		}
		ps[i].started = true;
	}
	double now = ss_mono();
	for (uint32_t i = 0; i < n; i++)
		ps[i].last_progress = now;
	while (left) {
		if ((r = ss_cluster_check_stop(c, err, errlen, "reading the remote log metadata")))
			goto out;
		/* a batch per call: per-message polls cost more than the decode and replay */
		ssize_t got = rd_kafka_consume_batch_queue(q, 100, batch, READ_BATCH);   /* each destroyed below */
		ss_cluster_drain_events(c);   /* error_cb */
		now = ss_mono();
		for (ssize_t bi = 0; bi < got; bi++) {
			rd_kafka_message_t *m = batch[bi];
			r = rlmm_message(c, ps, n, m, sink, &s, &left, now, err, errlen);
			if (r) {
				while (bi < got)
					rd_kafka_message_destroy(batch[bi++]);
				goto out;
			}
			rd_kafka_message_destroy(m);
		}
		if ((r = rlmm_progress(c, ps, n, now, err, errlen)))
			goto out;
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

