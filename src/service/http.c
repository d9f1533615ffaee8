/*
 * The HTTP face of `segscan serve` on libmicrohttpd.
 *
 * Every response body is a slice of an immutable published snapshot, handed to MHD
 * without a copy; the response holds a snapshot reference that MHD drops (through the
 * free callback) once the body is sent, so a scrape costs a refcount and a send, never a
 * render, and a newer publication can replace the snapshot under a slow reader.
 *
 * Nothing in a request reaches the filesystem: paths are matched against fixed routes
 * and, for /v1/partitions/TOPIC/N, against the in-memory partition index.
 *
 * Bounds: MHD's connection limit, per-connection memory pool (which also caps the
 * request line and headers), idle timeout; our own URL length limit (414); request
 * bodies refused (413) before MHD reads them.
 *
 * Basic auth (service/webconfig.h) never runs a bcrypt on MHD's one polling thread
 * (issue 21 item 7: a guessing flood slowed authenticated scrapes from 0.4 ms to 1-2 s,
 * one cost-16 guess froze every endpoint for 2.7 s). A request whose password is not the
 * one remembered for its user is handed to the verifier thread ("segscan-auth") and its
 * connection suspended (MHD_suspend_connection); the verifier resumes it with the answer
 * and MHD calls the handler again, which finishes the request. Every other request,
 * a known-good scrape included, is answered meanwhile: nothing on the polling thread
 * waits for a bcrypt.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "common/ascii.h"
#include "common/clock.h"
#include "fmt/names.h"
#include "service/gzip.h"
#include "service/log.h"
#include "service/cluster_tail.h"
#include "service/serve.h"
#include "service/webconfig.h"
#include "common/fdlimit.h"

/* Slowloris (issue 14 item 3): 64 idle or trickling sockets used to take every slot,
 * and each trickled byte reset the idle timeout. Now: slots sized from the open-file
 * limit, a per-client cap, and a deadline for a request's headers that no trickle
 * extends (the reaper below). */
#define SS_HTTP_CONN_MIN       64
#define SS_HTTP_CONN_MAX       8192
#define SS_HTTP_PER_CLIENT     64           /* connections from one address */
#define SS_HTTP_HEADER_DEADLINE_S 10.0      /* connect (or the last response) to headers in */
#define SS_HTTP_CONN_MEMORY    (32 * 1024)  /* request line + headers + MHD's buffers */
#define SS_HTTP_TIMEOUT_S      15
#define SS_HTTP_MAX_URL        1024

static const char CT_PROM[] = "text/plain; version=0.0.4; charset=utf-8";
static const char CT_JSON[] = "application/json";
static const char CT_TEXT[] = "text/plain; charset=utf-8";
static const char PREFIX_PARTS[] = "/v1/partitions/";

struct ss_http {
	struct MHD_Daemon *d;
	struct ss_pub     *pub;
	int                fd;
	/* Snapshot responses queued and not yet completed, for the drain at shutdown.
	 * Relaxed: a count to wait on, no data is handed over through it. */
	atomic_uint        inflight;
	/* MHD's log lines (mostly about malformed requests) are capped per second, so a
	 * client sending garbage cannot flood the broker host's journal. */
	pthread_mutex_t    log_mu;
	time_t             log_sec;         /* log_mu */
	unsigned           log_n;           /* log_mu: lines in log_sec */
	unsigned long      log_dropped;     /* log_mu: lines dropped in log_sec */
	struct ss_web_config *web;          /* TLS and basic auth, or NULL (the caller's; its auth cache is ours) */
	/* Open connections, for the header deadline: MHD's own timeout is an idle timeout
	 * that every byte resets. The reaper thread shuts down (never closes: the fd is
	 * MHD's) a connection whose headers are not in by its deadline; MHD then closes it
	 * and tells us (conn_notify CLOSED, under conn_mu, before it closes the fd). */
	pthread_mutex_t    conn_mu;
	struct ss_hconn   *conns;           /* conn_mu: doubly linked */
	bool               reaper_stop;     /* conn_mu */
	pthread_cond_t     reaper_cv;       /* conn_mu */
	pthread_t          reaper;
	bool               reaper_started;
	/* The verifier: jobs queued by the polling thread (each one's connection suspended),
	 * taken in order by auth_main. auth_mu guards the queue, auth_stopping and every job's
	 * state and ok. */
	pthread_mutex_t    auth_mu;
	pthread_cond_t     auth_cv;         /* auth_mu: a job queued, or stop */
	struct ss_auth_job *auth_head, *auth_tail; /* auth_mu */
	unsigned           auth_queued;     /* auth_mu */
	bool               auth_stopping;   /* auth_mu: auth_stop has begun; no job is queued after it */
	pthread_t          auth_th;
	bool               auth_started;
};

/* Verifications queued at once: each is one client address (webconfig.c allows one at a
 * time each); beyond, 401 without one. */
#define SS_HTTP_AUTH_QUEUE 64

enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_CANCELLED };

/* One password to verify. Owned by the connection (ss_hconn.job, the polling thread's)
 * from the moment it is queued; the verifier reads hash, pass and c and writes state
 * and ok (under auth_mu) until it resumes the connection, and never touches it after. */
struct ss_auth_job {
	struct ss_auth_job  *next;    /* auth_mu: the queue */
	struct MHD_Connection *c;
	struct ss_web_verify v;
	char                *pass;
	enum job_state       state;   /* auth_mu */
	bool                 ok;      /* auth_mu */
};

struct ss_hconn {
	struct ss_hconn *prev, *next;
	struct ss_auth_job *job;    /* the polling thread's: a verification of this connection's
				       request, queued (suspended) or answered (resumed) */
	int              fd;
	double           since;     /* CLOCK_MONOTONIC: connect, or the last response done */
	bool             waiting;   /* headers of the next request not in yet */
	bool             reaped;
};

#define SS_HTTP_LOG_PER_SEC 10

/* ---- responses ------------------------------------------------------------------- */

static void release_cb(void *cls)
{
	ss_snapshot_release(cls);
}

static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *resp,
			     const char *ctype, uint64_t gen)
{
	if (!resp)
		return MHD_NO; /* out of memory: MHD closes the connection */
	enum MHD_Result ok = MHD_YES;
	char g[24];
	if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype) != MHD_YES ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store") != MHD_YES)
		ok = MHD_NO;
	if (ok && gen) {
		snprintf(g, sizeof(g), "%" PRIu64, gen);
		if (MHD_add_response_header(resp, "X-Segscan-Generation", g) != MHD_YES)
			ok = MHD_NO;
	}
	if (ok && status == MHD_HTTP_METHOD_NOT_ALLOWED &&
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES)
		ok = MHD_NO;
	if (ok && status == MHD_HTTP_SERVICE_UNAVAILABLE &&
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1") != MHD_YES)
		ok = MHD_NO;
	if (ok)
		ok = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ok;
}

/* Fixed text: persistent, nothing to copy or free. */
static enum MHD_Result send_static(struct MHD_Connection *c, unsigned status, const char *ctype, const char *body)
{
	return queue(c, status, MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT),
		     ctype, 0);
}

/* A slice of a snapshot: the response owns the caller's reference from here on. The
 * request is marked in flight until MHD reports it completed (request_done). */
static enum MHD_Result send_snap(struct ss_http *h, struct MHD_Connection *c, void **con_cls, struct ss_snapshot *s,
				 const char *buf, size_t len, const char *ctype)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer_with_free_callback_cls(len, (void *)buf, release_cb, s);
	if (!resp) {
		ss_snapshot_release(s);
		return MHD_NO;
	}
	enum MHD_Result ok = queue(c, MHD_HTTP_OK, resp, ctype, s->generation);
	if (ok == MHD_YES) {
		atomic_fetch_add_explicit(&h->inflight, 1, memory_order_relaxed);
		*con_cls = &h->inflight;
	}
	return ok;
}

/* /metrics from the snapshot: gzip-compressed (once per publication, snapshot.c) for a
 * client whose Accept-Encoding allows it (Prometheus sends "gzip"), else plain; both say
 * Vary: Accept-Encoding. The response owns the caller's reference, as in send_snap. */
static enum MHD_Result send_metrics(struct ss_http *h, struct MHD_Connection *c, void **con_cls,
				    struct ss_snapshot *s)
{
	bool gz = s->metrics_gz &&
		  ss_accepts_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback_cls(
		gz ? s->metrics_gz_len : s->metrics_len, gz ? s->metrics_gz : s->metrics, release_cb, s);
	if (!resp) {
		ss_snapshot_release(s);
		return MHD_NO;
	}
	if ((gz && MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") != MHD_YES) ||
	    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding") != MHD_YES) {
		MHD_destroy_response(resp); /* runs release_cb */
		return MHD_NO;
	}
	enum MHD_Result ok = queue(c, MHD_HTTP_OK, resp, CT_PROM, s->generation);
	if (ok == MHD_YES) {
		atomic_fetch_add_explicit(&h->inflight, 1, memory_order_relaxed);
		*con_cls = &h->inflight;
	}
	return ok;
}

/* The connection's ss_hconn (conn_notify STARTED), or NULL. */
static struct ss_hconn *hconn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* Headers in (waiting = false) or a response done, the next request's deadline starts
 * now (waiting = true). */
static void hconn_mark(struct ss_http *h, struct MHD_Connection *c, bool waiting)
{
	struct ss_hconn *hc = hconn_of(c);
	if (!hc)
		return;
	pthread_mutex_lock(&h->conn_mu);
	hc->waiting = waiting;
	hc->since = ss_mono();
	pthread_mutex_unlock(&h->conn_mu);
}

/* A verification the handler never took back (the connection closed after its resume):
 * its client's turn is given back all the same. Polling thread only. */
static void job_drop(struct ss_http *h, struct ss_hconn *hc)
{
	struct ss_auth_job *j = hc ? hc->job : NULL;
	if (!j)
		return;
	pthread_mutex_lock(&h->auth_mu);
	bool ok = j->state == JOB_DONE && j->ok; /* resumed only once DONE or CANCELLED */
	pthread_mutex_unlock(&h->auth_mu);
	ss_web_auth_end(h->web, &j->v, j->pass, ok);
	free(j->pass);
	free(j);
	hc->job = NULL;
}

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct ss_http *h = cls;
	if (*con_cls == &h->inflight)
		atomic_fetch_sub_explicit(&h->inflight, 1, memory_order_relaxed);
	*con_cls = NULL;
	job_drop(h, hconn_of(c));
	hconn_mark(h, c, true);
}

/* MHD_OPTION_NOTIFY_CONNECTION: every connection joins h->conns at STARTED and leaves
 * it at CLOSED (the pair). */
static void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
			enum MHD_ConnectionNotificationCode toe)
{
	struct ss_http *h = cls;
	struct ss_hconn *hc = *socket_context;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!ci || !(hc = calloc(1, sizeof(*hc))))
			return; /* untracked: MHD's idle timeout still applies */
		hc->fd = ci->connect_fd;
		hc->since = ss_mono();
		hc->waiting = true;
		pthread_mutex_lock(&h->conn_mu);
		hc->next = h->conns;
		if (h->conns)
			h->conns->prev = hc;
		h->conns = hc;
		pthread_mutex_unlock(&h->conn_mu);
		*socket_context = hc;
		return;
	}
	if (!hc)
		return;
	job_drop(h, hc);
	pthread_mutex_lock(&h->conn_mu);
	if (hc->prev)
		hc->prev->next = hc->next;
	else
		h->conns = hc->next;
	if (hc->next)
		hc->next->prev = hc->prev;
	pthread_mutex_unlock(&h->conn_mu);
	free(hc);
	*socket_context = NULL;
}

static void *reaper_main(void *arg)
{
	struct ss_http *h = arg;
	pthread_mutex_lock(&h->conn_mu);
	while (!h->reaper_stop) {
		double now = ss_mono();
		for (struct ss_hconn *hc = h->conns; hc; hc = hc->next) {
			if (hc->waiting && !hc->reaped && now - hc->since > SS_HTTP_HEADER_DEADLINE_S) {
				/* MHD sees the end of the stream and closes the connection itself */
				shutdown(hc->fd, SHUT_RDWR);
				hc->reaped = true;
			}
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&h->reaper_cv, &h->conn_mu, &ts);
	}
	pthread_mutex_unlock(&h->conn_mu);
	return NULL;
}

static enum MHD_Result healthz(struct ss_http *h, struct MHD_Connection *c)
{
	struct ss_snapshot *s = ss_pub_acquire(h->pub);
	if (!s)
		return send_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, CT_JSON,
				   "{\"status\":\"starting\",\"message\":\"the first scan has not finished yet\"}\n");
	struct ss_pub_totals t;
	ss_pub_get_totals(h->pub, &t);
	double age = ss_mono() - s->finished_mono, stale_after = ss_pub_stale_after(h->pub, s);
	/* Unhealthy (503) when the latest scan failed (it could not run, or could not read a
	 * log dir: issue 20 item 5), or when nothing was published for a few intervals: a
	 * scan loop that blocks or dies must not keep answering "ok". */
	const char *status = t.last_failed ? "failing" : stale_after > 0 && age > stale_after ? "stale" : "ok";
	/* the live __remote_log_metadata consumer, when serve runs one (cluster_tail.h): a
	 * cluster that stopped answering makes the published remote state age */
	char rm[3072];
	int connected = 1;
	int rn = ss_serve_cluster_healthz(rm, sizeof(rm), &connected);
	if (!connected && !strcmp(status, "ok"))
		status = "degraded";
	unsigned code = strcmp(status, "ok") ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK;
	/* the down list names paths of any length: the body is sized to fit */
	char *body = NULL;
	int n = asprintf(&body,
			 "{\"status\":\"%s\",\"generation\":%" PRIu64 ",\"age_seconds\":%.3f,\"stale_after_seconds\":%.3f,"
			 "\"last_scan_duration_seconds\":%.6f,\"last_scan_finished\":%.3f,\"partitions\":%zu,"
			 "\"scan_exit_code\":%d,\"log_dirs_down\":%s,\"scans\":%" PRIu64 ",\"failures\":%" PRIu64 "%s%s}\n",
			 status, s->generation, age < 0 ? 0 : age, stale_after, s->stats.seconds, s->finished_wall, s->n_parts,
			 s->exit_code, s->down_json ? s->down_json : "[]", t.scans, t.failures, rn > 0 ? "," : "",
			 rn > 0 ? rm : "");
	uint64_t gen = s->generation;
	ss_snapshot_release(s);
	if (n < 0)
		return MHD_NO;
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback((size_t)n, body, free);
	if (!resp)
		free(body);
	return queue(c, code, resp, CT_JSON, gen);
}

static enum MHD_Result not_ready(struct MHD_Connection *c, bool json)
{
	return send_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, json ? CT_JSON : CT_TEXT,
			   json ? "{\"error\":\"the first scan has not finished yet\"}\n"
				: "the first scan has not finished yet\n");
}

static enum MHD_Result bad_topic(struct MHD_Connection *c)
{
	return send_static(c, MHD_HTTP_BAD_REQUEST, CT_JSON,
			   "{\"error\":\"not a Kafka topic name (1-249 of [a-zA-Z0-9._-])\"}\n");
}

/* The published snapshot with its JSON rendered (on first use), acquired: the caller
 * releases it (ss_snapshot_release). NULL with *ret the answer sent when there is none yet
 * or it cannot be rendered (out of memory). */
static struct ss_snapshot *json_snapshot(struct ss_http *h, struct MHD_Connection *c, enum MHD_Result *ret)
{
	struct ss_snapshot *s = ss_pub_acquire(h->pub);
	if (!s) {
		*ret = not_ready(c, true);
		return NULL;
	}
	if (ss_snapshot_json(s)) {
		ss_snapshot_release(s);
		*ret = send_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, CT_JSON,
				   "{\"error\":\"the report could not be rendered\"}\n");
		return NULL;
	}
	return s;
}

/* {"partitions":[...]}: the partition objects of one topic (issue 20 item 11), in
 * partition order, copied from the snapshot's rendered ones. A topic with none is 404 for
 * the path /v1/partitions/TOPIC and an empty list for the filter ?topic=TOPIC. */
static enum MHD_Result topic_doc(struct ss_http *h, struct MHD_Connection *c, const char *topic, bool none_404)
{
	static const char head[] = "{\"partitions\":[\n", tail[] = "]}\n";
	enum MHD_Result ret;
	struct ss_snapshot *s = json_snapshot(h, c, &ret);   /* released below */
	if (!s)
		return ret;
	size_t first = 0, n = ss_snapshot_topic(s, topic, &first), len = sizeof(head) - 1 + sizeof(tail) - 1;
	if (!n && none_404) {
		ss_snapshot_release(s);
		return send_static(c, MHD_HTTP_NOT_FOUND, CT_JSON,
				   "{\"error\":\"no partition of this topic in the last published scan\"}\n");
	}
	for (size_t i = 0; i < n; i++)
		len += s->parts[first + i].len + 1; /* its newline becomes ",\n" */
	char *buf = malloc(len + 1), *p = buf;
	if (!buf) {
		ss_snapshot_release(s);
		return MHD_NO;
	}
	memcpy(p, head, sizeof(head) - 1);
	p += sizeof(head) - 1;
	for (size_t i = 0; i < n; i++) {
		const struct ss_part_ref *ref = &s->parts[first + i];
		size_t l = ref->len; /* each object ends with its newline (render_parts) */
		memcpy(p, s->part_json + ref->off, l - 1);
		p += l - 1;
		if (i + 1 < n)
			*p++ = ',';
		*p++ = '\n';
	}
	memcpy(p, tail, sizeof(tail) - 1);
	p += sizeof(tail) - 1;
	uint64_t gen = s->generation;
	ss_snapshot_release(s);
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback((size_t)(p - buf), buf, free);
	if (!resp)
		free(buf);
	return queue(c, MHD_HTTP_OK, resp, CT_JSON, gen);
}

/* ?topic=NAME on /v1/partitions: the only argument it takes, once. */
struct query {
	unsigned    n, n_topic;
	const char *topic;
};

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct query *q = cls;
	q->n++;
	if (key && !strcmp(key, "topic")) {
		q->n_topic++;
		q->topic = value;
	}
	return MHD_YES;
}

static bool has_query(struct MHD_Connection *c)
{
	return MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) > 0;
}

/* /v1/partitions?topic=TOPIC (percent-encoded, as a path segment) */
static enum MHD_Result filtered_parts(struct ss_http *h, struct MHD_Connection *c)
{
	struct query q = { 0 };
	char topic[256];
	int tl;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_arg, &q);
	if (q.n != 1 || q.n_topic != 1)
		return send_static(c, MHD_HTTP_BAD_REQUEST, CT_JSON,
				   "{\"error\":\"the one query argument taken is topic=NAME\"}\n");
	if (!q.topic || (tl = ss_url_decode(q.topic, strlen(q.topic), topic, sizeof(topic))) < 0 ||
	    !ss_topic_name_ok(topic, (size_t)tl))
		return bad_topic(c);
	return topic_doc(h, c, topic, false);
}

/* /v1/partitions/TOPIC/N and /v1/partitions/TOPIC; `rest` is the part after the prefix,
 * still percent-encoded. */
static enum MHD_Result one_partition(struct ss_http *h, struct MHD_Connection *c, void **con_cls, const char *rest)
{
	char topic[256];
	const char *slash = strchr(rest, '/');
	if (!*rest || (slash && strchr(slash + 1, '/')))
		return send_static(c, MHD_HTTP_NOT_FOUND, CT_JSON, "{\"error\":\"not found\"}\n");
	int tl = ss_url_decode(rest, slash ? (size_t)(slash - rest) : strlen(rest), topic, sizeof(topic));
	if (tl < 0 || !ss_topic_name_ok(topic, (size_t)tl))
		return bad_topic(c);
	if (!slash)
		return topic_doc(h, c, topic, true);
	const char *num = slash + 1;
	int32_t pn;
	size_t nl = strlen(num);
	if (nl > 10 || !ss_dec_u31(num, nl, &pn))
		goto bad_partition;

	enum MHD_Result ret;
	struct ss_snapshot *s = json_snapshot(h, c, &ret);   /* released below */
	if (!s)
		return ret;
	const struct ss_part_ref *ref = ss_snapshot_find(s, topic, (int32_t)pn);
	if (!ref) {
		ss_snapshot_release(s);
		return send_static(c, MHD_HTTP_NOT_FOUND, CT_JSON,
				   "{\"error\":\"no such partition in the last published scan\"}\n");
	}
	return send_snap(h, c, con_cls, s, s->part_json + ref->off, ref->len, CT_JSON);
bad_partition:
	return send_static(c, MHD_HTTP_BAD_REQUEST, CT_JSON,
			   "{\"error\":\"partition must be a decimal number from 0 to 2147483647\"}\n");
}

/* ---- basic auth: the verifier thread -------------------------------------------------- */

/* Takes jobs in order, runs each bcrypt, resumes its connection. Ends at auth_stop
 * (ss_http_stop cancels what is still queued). */
static void *auth_main(void *arg)
{
	struct ss_http *h = arg;
	pthread_setname_np(pthread_self(), "segscan-auth");
	pthread_mutex_lock(&h->auth_mu);
	for (;;) {
		while (!h->auth_head && !h->auth_stopping)
			pthread_cond_wait(&h->auth_cv, &h->auth_mu);
		if (h->auth_stopping)
			break;
		struct ss_auth_job *j = h->auth_head;
		if (!(h->auth_head = j->next))
			h->auth_tail = NULL;
		h->auth_queued--;
		j->state = JOB_RUNNING;
		pthread_mutex_unlock(&h->auth_mu);
		/* an unknown user name is verified against another's hash and refused */
		bool ok = ss_web_bcrypt(j->v.hash, j->pass) && j->v.user >= 0;
		struct MHD_Connection *c = j->c;
		pthread_mutex_lock(&h->auth_mu);
		j->ok = ok;
		j->state = JOB_DONE;
		pthread_mutex_unlock(&h->auth_mu);
		/* j is the polling thread's from here (the handler reads it after the resume) */
		MHD_resume_connection(c);
		pthread_mutex_lock(&h->auth_mu);
	}
	pthread_mutex_unlock(&h->auth_mu);
	return NULL;
}

/* The verifier's end, before MHD_stop_daemon (which must not find a suspended
 * connection): no job is queued once auth_stopping is set, those queued are resumed as
 * cancelled, and the join waits for the one running (one bcrypt, of a cost
 * SS_WEB_BCRYPT_MAX_COST at most). */
static void auth_stop(struct ss_http *h)
{
	if (!h->auth_started)
		return;
	pthread_mutex_lock(&h->auth_mu);
	h->auth_stopping = true;
	struct ss_auth_job *q = h->auth_head;
	h->auth_head = h->auth_tail = NULL;
	h->auth_queued = 0;
	for (struct ss_auth_job *j = q; j; j = j->next)
		j->state = JOB_CANCELLED;
	pthread_cond_signal(&h->auth_cv);
	pthread_mutex_unlock(&h->auth_mu);
	while (q) {
		/* read before the resume: the polling thread may free j right after it */
		struct ss_auth_job *next = q->next;
		MHD_resume_connection(q->c);
		q = next;
	}
	pthread_join(h->auth_th, NULL); /* pthread_create in ss_http_start_web */
	h->auth_started = false;
}

/* The client's budget key: an IPv4 address, or an IPv6 address's /64 (one host's
 * allocation: rotating addresses within it buys no budget). */
static size_t client_key(struct MHD_Connection *c, uint8_t key[16])
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa && sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a)) {
			memcpy(key, a->s6_addr + 12, 4);
			return 4;
		}
		memcpy(key, a->s6_addr, 8);
		return 8;
	}
	return 0;
}

static enum MHD_Result auth_fail(struct MHD_Connection *c)
{
	static const char msg[] = "authentication required\n";
	struct MHD_Response *resp = MHD_create_response_from_buffer(sizeof(msg) - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	enum MHD_Result q = MHD_queue_basic_auth_fail_response(c, "segscan", resp);
	MHD_destroy_response(resp);
	return q;
}

/* Is the request authorised? true: go on. false: return *ret (a 401 or 503 queued, or
 * MHD_YES with the connection suspended until the verifier has answered; MHD then calls
 * the handler again and this is asked again). Polling thread only. */
static bool authorised(struct ss_http *h, struct MHD_Connection *c, bool body, enum MHD_Result *ret)
{
	struct ss_hconn *hc = hconn_of(c);
	if (hc && hc->job) {
		/* resumed: the verifier's answer */
		struct ss_auth_job *j = hc->job;
		pthread_mutex_lock(&h->auth_mu);
		enum job_state st = j->state;
		bool ok = j->state == JOB_DONE && j->ok;
		pthread_mutex_unlock(&h->auth_mu);
		job_drop(h, hc); /* remembers the password when ok */
		if (st == JOB_CANCELLED)
			*ret = send_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, CT_TEXT, "shutting down\n");
		else if (!ok)
			*ret = auth_fail(c);
		return ok;
	}
	char *pass = NULL, *user = MHD_basic_auth_get_username_password(c, &pass);
	uint8_t key[16];
	size_t kl = client_key(c, key);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct ss_web_verify v;
	enum ss_web_auth a = ss_web_auth_begin(h->web, user, pass, key, kl, (long)now.tv_sec, &v);
	MHD_free(user);
	if (a == SS_WEB_OK) {
		MHD_free(pass);
		return true;
	}
	struct ss_auth_job *j = NULL;
	/* a request with a body is refused whatever its password (413/405), and a
	 * connection we do not track has nowhere to keep a job: no bcrypt for either */
	if (a == SS_WEB_VERIFY && !body && hc && (j = calloc(1, sizeof(*j))) && !(j->pass = strdup(pass))) {
		free(j);
		j = NULL;
	}
	MHD_free(pass);
	if (!j) {
		if (a == SS_WEB_VERIFY)
			ss_web_auth_end(h->web, &v, NULL, false);
		*ret = auth_fail(c);
		return false;
	}
	j->c = c;
	j->v = v;
	pthread_mutex_lock(&h->auth_mu);
	if (h->auth_stopping || h->auth_queued >= SS_HTTP_AUTH_QUEUE) {
		bool stopping = h->auth_stopping;
		pthread_mutex_unlock(&h->auth_mu);
		ss_web_auth_end(h->web, &v, NULL, false);
		free(j->pass);
		free(j);
		*ret = stopping ? send_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, CT_TEXT, "shutting down\n") : auth_fail(c);
		return false;
	}
	/* suspended before the verifier can see the job: it resumes only what is suspended */
	MHD_suspend_connection(c);
	j->state = JOB_QUEUED;
	if (h->auth_tail)
		h->auth_tail->next = j;
	else
		h->auth_head = j;
	h->auth_tail = j;
	h->auth_queued++;
	pthread_cond_signal(&h->auth_cv);
	pthread_mutex_unlock(&h->auth_mu);
	hc->job = j; /* the handler runs again only after the resume, on this thread */
	*ret = MHD_YES;
	return false;
}

enum route { R_NONE, R_METRICS, R_HEALTHZ, R_PARTS, R_PART };

static enum route route_of(const char *url)
{
	if (!strcmp(url, "/metrics"))
		return R_METRICS;
	if (!strcmp(url, "/healthz"))
		return R_HEALTHZ;
	if (!strcmp(url, "/v1/partitions"))
		return R_PARTS;
	if (!strncmp(url, PREFIX_PARTS, sizeof(PREFIX_PARTS) - 1))
		return R_PART;
	return R_NONE;
}

static bool has_body(struct MHD_Connection *c, size_t upload_size)
{
	if (upload_size)
		return true;
	if (MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return true;
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	return cl && strcmp(cl, "0") != 0;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			       const char *version, const char *upload_data, size_t *upload_data_size,
			       void **con_cls)
{
	struct ss_http *h = cls;
	/* MHD calls us once when the headers are in, and again once it knows the body. A
	 * request that announces a body is answered on that first call, before MHD reads a
	 * byte of the body (MHD then closes the connection rather than read it). Every
	 * other request is answered on the second call: a response queued on the first call
	 * counts as "early" for MHD and would cost the client its keep-alive connection. */
	bool first = *con_cls == NULL;
	*con_cls = h; /* any non-NULL marker */
	if (first)
		hconn_mark(h, c, false); /* the headers are in: no deadline while we answer */
	bool body = has_body(c, *upload_data_size);
	if (first && !body)
		return MHD_YES;
	if (h->web && h->web->n_users) {
		/* basic auth before anything else, /healthz included (exporter-toolkit) */
		enum MHD_Result q;
		if (!authorised(h, c, body, &q))
			return q;
	}
	if (strlen(url) > SS_HTTP_MAX_URL)
		return send_static(c, MHD_HTTP_URI_TOO_LONG, CT_TEXT, "URI too long\n");
	enum route rt = route_of(url);
	if (rt == R_NONE)
		return send_static(c, MHD_HTTP_NOT_FOUND, CT_TEXT,
				   "not found: try /metrics, /v1/partitions[?topic=TOPIC], /v1/partitions/TOPIC[/N] or "
				   "/healthz\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return send_static(c, MHD_HTTP_METHOD_NOT_ALLOWED, CT_TEXT, "method not allowed: use GET or HEAD\n");
	if (body)
		return send_static(c, MHD_HTTP_CONTENT_TOO_LARGE, CT_TEXT, "request bodies are not accepted\n");

	struct ss_snapshot *s;
	switch (rt) {
	case R_METRICS:
		if (!(s = ss_pub_acquire(h->pub)))
			return not_ready(c, false);
		{
			/* with a live __remote_log_metadata consumer its gauges are read now, not at
			 * the last publication: a stalled partition's age keeps growing */
			char *live;
			size_t live_len;
			if (ss_serve_cluster_metrics(s->metrics, s->metrics_len, &live, &live_len) == 0 && live) {
				uint64_t g = s->generation;
				ss_snapshot_release(s);
				return queue(c, MHD_HTTP_OK,
					     MHD_create_response_from_buffer_with_free_callback(live_len, live, free),
					     CT_PROM, g);
			}
		}
		return send_metrics(h, c, con_cls, s);
	case R_PARTS:
		if (has_query(c))
			return filtered_parts(h, c);
		if (!(s = ss_pub_acquire(h->pub)))
			return not_ready(c, true);
		if (ss_snapshot_json(s)) { /* rendered on first use: out of memory */
			ss_snapshot_release(s);
			return send_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, CT_JSON,
					   "{\"error\":\"the report could not be rendered\"}\n");
		}
		return send_snap(h, c, con_cls, s, s->json, s->json_len, CT_JSON);
	case R_PART:
		return one_partition(h, c, con_cls, url + sizeof(PREFIX_PARTS) - 1);
	case R_HEALTHZ:
		return healthz(h, c);
	case R_NONE:
		break;
	}
	return MHD_NO;
}

/* Keep the path percent-encoded: /v1/partitions/ decodes the topic segment itself,
 * after splitting at '/', so an encoded "%2F" can never act as a separator. */
static size_t no_unescape(void *cls, struct MHD_Connection *c, char *s)
{
	return strlen(s);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct ss_http *h = cls;
	struct timespec now;
	unsigned long dropped = 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&h->log_mu);
	if (now.tv_sec != h->log_sec) {
		dropped = h->log_dropped;
		h->log_sec = now.tv_sec;
		h->log_n = 0;
		h->log_dropped = 0;
	}
	bool emit = h->log_n < SS_HTTP_LOG_PER_SEC;
	if (emit)
		h->log_n++;
	else
		h->log_dropped++;
	pthread_mutex_unlock(&h->log_mu);
	if (dropped) {
		struct ss_logline d;
		ss_log_begin(&d, "warn", "http log lines dropped");
		ss_log_fmt(&d, "dropped", "%lu", dropped);
		ss_log_end(&d);
	}
	if (!emit)
		return;

	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = 0;
	struct ss_logline l;
	ss_log_begin(&l, "warn", "http");
	ss_log_str(&l, "err", msg);
	ss_log_end(&l);
}

static void addr_text(const struct sockaddr *sa, socklen_t len, char *out, size_t cap)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];
	if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(out, cap, "?");
		return;
	}
	snprintf(out, cap, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

int ss_http_start(struct ss_http **out, const struct sockaddr *sa, socklen_t salen, struct ss_pub *pub, char *err,
		  size_t errlen)
{
	return ss_http_start_web(out, sa, salen, pub, NULL, err, errlen);
}

/* The handle's locks and condition variables (the reaper's on CLOCK_MONOTONIC); on a
 * failure those made are destroyed again; their partners are the destroys of ss_http_stop
 * and of ss_http_start_web's fail path. 0 or a negative errno, err set. */
static int http_sync_init(struct ss_http *h, char *err, size_t errlen)
{
	int r;

	if ((r = pthread_mutex_init(&h->log_mu, NULL))) {
		snprintf(err, errlen, "pthread_mutex_init: %s", strerror(r));
		return -r;
	}
	pthread_condattr_t ca;
	if ((r = pthread_mutex_init(&h->conn_mu, NULL))) {
		pthread_mutex_destroy(&h->log_mu);
		snprintf(err, errlen, "pthread_mutex_init: %s", strerror(r));
		return -r;
	}
	if ((r = pthread_condattr_init(&ca)) || (r = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) ||
	    (r = pthread_cond_init(&h->reaper_cv, &ca))) {
		pthread_mutex_destroy(&h->conn_mu);
		pthread_mutex_destroy(&h->log_mu);
		snprintf(err, errlen, "pthread_cond_init: %s", strerror(r));
		return -r;
	}
	pthread_condattr_destroy(&ca);
	if ((r = pthread_mutex_init(&h->auth_mu, NULL))) {
		pthread_cond_destroy(&h->reaper_cv);
		pthread_mutex_destroy(&h->conn_mu);
		pthread_mutex_destroy(&h->log_mu);
		snprintf(err, errlen, "pthread_mutex_init: %s", strerror(r));
		return -r;
	}
	if ((r = pthread_cond_init(&h->auth_cv, NULL))) {
		pthread_mutex_destroy(&h->auth_mu);
		pthread_cond_destroy(&h->reaper_cv);
		pthread_mutex_destroy(&h->conn_mu);
		pthread_mutex_destroy(&h->log_mu);
		snprintf(err, errlen, "pthread_cond_init: %s", strerror(r));
		return -r;
	}
	return 0;
}

/* Our own socket rather than MHD's: bind errors get a precise message, and an IPv6
 * listener stays IPv6-only instead of silently taking IPv4 too. h->fd, or a negative errno
 * with err naming the address (at) and the step that failed; the caller closes h->fd. */
static int http_listen_socket(struct ss_http *h, const struct sockaddr *sa, socklen_t salen, const char *at,
			      char *err, size_t errlen)
{
	int r, one = 1;

	h->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (h->fd < 0) {
		r = -errno;
		snprintf(err, errlen, "socket for %s: %s", at, strerror(-r));
		return r;
	}
	if (setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (sa->sa_family == AF_INET6 && setsockopt(h->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))) {
		r = -errno;
		snprintf(err, errlen, "setsockopt for %s: %s", at, strerror(-r));
		return r;
	}
	if (bind(h->fd, sa, salen)) {
		r = -errno;
		snprintf(err, errlen, "bind %s: %s", at, strerror(-r));
		return r;
	}
	if (listen(h->fd, 1024)) {
		r = -errno;
		snprintf(err, errlen, "listen %s: %s", at, strerror(-r));
		return r;
	}
	return 0;
}

/* MHD's flags: an internal thread with ITC (MHD_quiesce_daemon needs it, see ss_http_stop),
 * suspend/resume for the basic-auth verifier, IPv6, TLS. */
static unsigned http_flags(const struct sockaddr *sa, const struct ss_web_config *web)
{
	/* epoll (MHD picks it on Linux): more connections than select(2) could watch */
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	if (web && web->n_users)
		flags |= MHD_ALLOW_SUSPEND_RESUME; /* the verifier's (authorised) */
	if (sa->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (ss_web_tls(web))
		flags |= MHD_USE_TLS;
	return flags;
}

/* MHD's options for h: its logger first, our listening socket, the connection limits and
 * callbacks, the certificate and key under TLS. opts holds 16. */
static void http_options(struct ss_http *h, const struct ss_web_config *web, struct MHD_OptionItem *opts)
{
	/* slots: what the open-file limit leaves after the scan's own share */
	unsigned soft = ss_fd_soft(), limit = soft > 512 ? (soft - 256) / 2 : SS_HTTP_CONN_MIN;
	if (limit > SS_HTTP_CONN_MAX)
		limit = SS_HTTP_CONN_MAX;
	if (limit < SS_HTTP_CONN_MIN)
		limit = SS_HTTP_CONN_MIN;
	int no = 0;
#define OPT(o, v, p) (opts[no++] = (struct MHD_OptionItem){ (o), (intptr_t)(v), (p) })
	/* the logger first: MHD reports options parsed before it on its own */
	OPT(MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, h);
	OPT(MHD_OPTION_LISTEN_SOCKET, h->fd, NULL);
	OPT(MHD_OPTION_CONNECTION_LIMIT, limit, NULL);
	OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT, SS_HTTP_PER_CLIENT, NULL);
	OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, SS_HTTP_CONN_MEMORY, NULL);
	OPT(MHD_OPTION_CONNECTION_TIMEOUT, SS_HTTP_TIMEOUT_S, NULL);
	OPT(MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)no_unescape, NULL);
	OPT(MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)request_done, h);
	OPT(MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)conn_notify, h);
	OPT(MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL);
	if (ss_web_tls(web)) {
		OPT(MHD_OPTION_HTTPS_MEM_CERT, 0, web->cert_pem);
		OPT(MHD_OPTION_HTTPS_MEM_KEY, 0, web->key_pem);
	}
	OPT(MHD_OPTION_END, 0, NULL);
#undef OPT
}

/* The server's own synchronisation and memory, once nothing uses them (the partner of
 * their inits in ss_http_start_web). */
static void http_free(struct ss_http *h)
{
	pthread_cond_destroy(&h->auth_cv);
	pthread_mutex_destroy(&h->auth_mu);
	pthread_cond_destroy(&h->reaper_cv);
	pthread_mutex_destroy(&h->conn_mu);
	pthread_mutex_destroy(&h->log_mu);
	free(h);
}

int ss_http_start_web(struct ss_http **out, const struct sockaddr *sa, socklen_t salen, struct ss_pub *pub,
		      struct ss_web_config *web, char *err, size_t errlen)
{
	char at[NI_MAXHOST + NI_MAXSERV + 4];
	int r;
	struct ss_http *h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->pub = pub;
	h->web = web;
	h->fd = -1;
	atomic_init(&h->inflight, 0);
	if ((r = http_sync_init(h, err, errlen))) {
		free(h);
		return r;
	}
	addr_text(sa, salen, at, sizeof(at));
	if ((r = http_listen_socket(h, sa, salen, at, err, errlen)))
		goto fail;
	unsigned flags = http_flags(sa, web);
	struct MHD_OptionItem opts[16];
	http_options(h, web, opts);
	/* the verifier before MHD: it waits for jobs, and stops in auth_stop */
	if (web && web->n_users) {
		if ((r = pthread_create(&h->auth_th, NULL, auth_main, h))) {
			snprintf(err, errlen, "cannot start the basic auth verifier thread: %s", strerror(r));
			r = -r;
			goto fail;
		}
		h->auth_started = true;
	}
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, h, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (h->d) {
		if ((r = pthread_create(&h->reaper, NULL, reaper_main, h))) {
			auth_stop(h); /* nothing suspended left for MHD_stop_daemon */
			MHD_stop_daemon(h->d);
			h->d = NULL;
			snprintf(err, errlen, "cannot start the HTTP header-deadline thread: %s", strerror(r));
			r = -r;
			goto fail;
		}
		h->reaper_started = true;
	}
	if (!h->d) {
		r = -EIO;
		snprintf(err, errlen, "starting the HTTP server on %s failed (see the http log lines)", at);
		goto fail;
	}
	*out = h;
	return 0;
fail:
	auth_stop(h); /* no MHD: no job was ever queued */
	if (h->fd >= 0)
		close(h->fd);
	http_free(h);
	return r;
}

int ss_http_port(const struct ss_http *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	if (getsockname(h->fd, (struct sockaddr *)&ss, &len))
		return -errno;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return -EAFNOSUPPORT;
}

void ss_http_stop(struct ss_http *h)
{
	if (!h)
		return;
	/* Drain: stop accepting, give the responses already queued up to 250 ms to finish
	 * (a snapshot response is a buffer already rendered: sending it takes microseconds
	 * unless the client is slow), then close every connection, idle keep-alive ones
	 * included. The bound keeps shutdown within serve's one second. */
	MHD_quiesce_daemon(h->d);
	/* every suspended connection resumed before MHD_stop_daemon (its API's rule) */
	auth_stop(h);
	for (int i = 0; i < 50 && atomic_load_explicit(&h->inflight, memory_order_relaxed); i++) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(h->d); /* every connection CLOSED (conn_notify): the list is empty */
	pthread_mutex_lock(&h->conn_mu);
	h->reaper_stop = true;
	pthread_cond_signal(&h->reaper_cv);
	pthread_mutex_unlock(&h->conn_mu);
	if (h->reaper_started)
		pthread_join(h->reaper, NULL); /* pthread_create in ss_http_start_web */
	close(h->fd); /* MHD does not close a listen socket it was given */
	http_free(h);
}
