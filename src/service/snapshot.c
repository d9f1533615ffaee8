/*
 * Snapshots and their publication (see serve.h for the model).
 *
 * Two locks, never held by a reader for more than a pointer copy:
 *   pub->mu      guards cur and published_gen. A reader takes it only to add a reference
 *                to cur, so 500 scrapes/s contend for a few nanoseconds each.
 *   pub->fold_mu serialises publishers: folding a scan's counters into the totals, the
 *                staleness check, rendering and the swap happen in one critical section,
 *                so the cumulative counters of successive publications never go down
 *                and a refused scan cannot slip in between check and swap.
 * Lock order: fold_mu before mu.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/search.h"
#include "out/jw.h"
#include "service/gzip.h"
#include "service/serve.h"

struct ss_pub {
	pthread_mutex_t      mu;
	pthread_mutex_t      fold_mu;
	struct ss_snapshot  *cur;            /* mu */
	uint64_t             published_gen;  /* written under fold_mu and mu; read under either */
	struct ss_pub_totals totals;         /* fold_mu */
	/* A ticket dispenser: relaxed, because no data is handed over through it — only
	 * the order of scan starts, which fetch_add on one atomic gives by itself. */
	atomic_uint_fast64_t next_gen;
	double               interval_s;     /* set before the HTTP thread starts, then read-only */
};

static double now_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ss_pub_new(struct ss_pub **out)
{
	struct ss_pub *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	int r = pthread_mutex_init(&p->mu, NULL);
	if (r) {
		free(p);
		return -r;
	}
	r = pthread_mutex_init(&p->fold_mu, NULL);
	if (r) {
		pthread_mutex_destroy(&p->mu);
		free(p);
		return -r;
	}
	atomic_init(&p->next_gen, 1);
	*out = p;
	return 0;
}

void ss_pub_free(struct ss_pub *pub)
{
	if (!pub)
		return;
	if (pub->cur)
		ss_snapshot_release(pub->cur);
	pthread_mutex_destroy(&pub->fold_mu);
	pthread_mutex_destroy(&pub->mu);
	free(pub);
}

uint64_t ss_pub_begin_scan(struct ss_pub *pub)
{
	return atomic_fetch_add_explicit(&pub->next_gen, 1, memory_order_relaxed);
}

uint64_t ss_pub_generation(struct ss_pub *pub)
{
	pthread_mutex_lock(&pub->mu);
	uint64_t g = pub->published_gen;
	pthread_mutex_unlock(&pub->mu);
	return g;
}

void ss_pub_note_failure(struct ss_pub *pub)
{
	pthread_mutex_lock(&pub->fold_mu);
	pub->totals.failures++;
	pub->totals.last_failed = true;
	pthread_mutex_unlock(&pub->fold_mu);
}

void ss_pub_set_interval(struct ss_pub *pub, double interval_s)
{
	pub->interval_s = interval_s;
}

double ss_pub_stale_after(const struct ss_pub *pub, const struct ss_snapshot *snap)
{
	/* serve rests a full interval after a scan that outlasted it, so a healthy loop
	 * publishes at least every interval + duration; a few of those is the bound */
	if (pub->interval_s <= 0)
		return 0; /* no interval (--once): never stale */
	return SS_HEALTH_STALE_INTERVALS * pub->interval_s + 2 * snap->stats.seconds;
}

void ss_pub_get_totals(struct ss_pub *pub, struct ss_pub_totals *out)
{
	pthread_mutex_lock(&pub->fold_mu);
	*out = pub->totals;
	pthread_mutex_unlock(&pub->fold_mu);
}

struct ss_snapshot *ss_pub_acquire(struct ss_pub *pub)
{
	pthread_mutex_lock(&pub->mu);
	struct ss_snapshot *s = pub->cur;
	if (s)
		ss_snapshot_ref(s); /* pub's own reference keeps s alive while we hold mu */
	pthread_mutex_unlock(&pub->mu);
	return s;
}

void ss_snapshot_ref(struct ss_snapshot *snap)
{
	/* Relaxed: the caller already holds a reference (or pub->mu, which guards the
	 * publisher's), so the count cannot reach zero under us. */
	atomic_fetch_add_explicit(&snap->refs, 1, memory_order_relaxed);
}

static void snapshot_destroy(struct ss_snapshot *s)
{
	free(s->metrics);
	free(s->metrics_gz);
	free(s->down_json);
	free(s->json);
	free(s->part_json);
	free(s->parts);
	pthread_mutex_destroy(&s->json_mu);
	segscan_scan_free(s->scan);
	free(s);
}

void ss_snapshot_release(struct ss_snapshot *snap)
{
	if (!snap)
		return;
	/* acq_rel, paired with itself in the other holders' releases: the release half
	 * orders this holder's reads of the buffers before its decrement, the acquire half
	 * (which matters in the thread that drops the last reference) orders every other
	 * holder's reads before the free. (A release decrement plus an acquire fence would
	 * do the same, but ThreadSanitizer does not model fences.) */
	if (atomic_fetch_sub_explicit(&snap->refs, 1, memory_order_acq_rel) == 1)
		snapshot_destroy(snap);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ss_part_ref *x = a, *y = b;
	int c = strcmp(x->topic, y->topic);
	if (c)
		return c;
	if (x->partition != y->partition)
		return x->partition < y->partition ? -1 : 1;
	return strcmp(x->log_dir, y->log_dir);
}

struct ref_key {
	const char *topic;
	int32_t     partition;
};

/* cmp_ref's order on (topic, partition) alone, for the lower bound below */
static int cmp_ref_key(const void *elem, const void *key)
{
	const struct ss_part_ref *m = elem;
	const struct ref_key *k = key;
	int c = strcmp(m->topic, k->topic);
	if (c)
		return c;
	return m->partition < k->partition ? -1 : m->partition > k->partition;
}

/* cmp_ref's order on the topic alone */
static int cmp_ref_topic(const void *elem, const void *key)
{
	return strcmp(((const struct ss_part_ref *)elem)->topic, key);
}

const struct ss_part_ref *ss_snapshot_find(struct ss_snapshot *snap, const char *topic, int32_t partition)
{
	if (ss_snapshot_json(snap))
		return NULL;
	/* lower bound of (topic, partition): the first log dir in byte order wins */
	const struct ref_key k = { topic, partition };
	size_t lo = ss_lower_bound(snap->parts, snap->n_parts, sizeof(*snap->parts), cmp_ref_key, &k, NULL);
	if (lo < snap->n_parts && !strcmp(snap->parts[lo].topic, topic) && snap->parts[lo].partition == partition)
		return &snap->parts[lo];
	return NULL;
}

size_t ss_snapshot_topic(struct ss_snapshot *snap, const char *topic, size_t *first)
{
	if (ss_snapshot_json(snap))
		return 0;
	/* the topic's first object: parts are sorted by topic first */
	size_t lo = ss_lower_bound(snap->parts, snap->n_parts, sizeof(*snap->parts), cmp_ref_topic, topic, NULL);
	size_t n = 0;
	while (lo + n < snap->n_parts && !strcmp(snap->parts[lo + n].topic, topic))
		n++;
	*first = lo;
	return n;
}

/* A memstream that reports failure from any step; *buf is NULL after a failure. */
static int close_stream(FILE *f, char **buf, int r)
{
	if (ferror(f) && !r)
		r = -EIO;
	if (fclose(f) && !r)
		r = -EIO;
	if (r) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

static int render_metrics(struct ss_snapshot *s, const struct ss_pub_totals *t)
{
	FILE *f = open_memstream(&s->metrics, &s->metrics_len);
	if (!f)
		return -errno;
	int r = segscan_write_prom(s->scan, &t->c, f);
	if (r)
		goto out;
	/* Families beyond the contract's: what an operator needs to see that the service
	 * itself is healthy (Prometheus allows any family order). */
	fprintf(f,
		"# HELP segscan_scan_generation Generation of the published scan (taken when the scan started).\n"
		"# TYPE segscan_scan_generation gauge\n"
		"segscan_scan_generation %" PRIu64 "\n"
		"# HELP segscan_scan_segments_reused_total Closed segments taken unchanged from the previous scan after one statx.\n"
		"# TYPE segscan_scan_segments_reused_total counter\n"
		"segscan_scan_segments_reused_total %" PRIu64 "\n"
		"# HELP segscan_scan_partitions_reused_total Partitions taken whole from the previous scan: no inotify event since it began, so no listing and no statx.\n"
		"# TYPE segscan_scan_partitions_reused_total counter\n"
		"segscan_scan_partitions_reused_total %" PRIu64 "\n"
		"# HELP segscan_scans_total Scans that ran to completion.\n"
		"# TYPE segscan_scans_total counter\n"
		"segscan_scans_total %" PRIu64 "\n"
		"# HELP segscan_scan_failures_total Scans that failed: could not run (for example a malformed config file after a reload) or could not read a log dir.\n"
		"# TYPE segscan_scan_failures_total counter\n"
		"segscan_scan_failures_total %" PRIu64 "\n"
		"# HELP segscan_scan_stale_total Completed scans not published because a newer scan had published first.\n"
		"# TYPE segscan_scan_stale_total counter\n"
		"segscan_scan_stale_total %" PRIu64 "\n",
		s->generation, t->segments_reused, t->partitions_reused, t->scans, t->failures, t->refused);
	/* a scan that could not read a log dir is no success: the timestamp stays where the
	 * last complete one left it, so the scan-age alert sees the failure (absent until a
	 * first scan has read every log dir: no made-up time) */
	if (t->last_success_wall > 0)
		fprintf(f,
			"# HELP segscan_scan_last_success_timestamp_seconds When the last published scan that read every log dir finished (Unix time).\n"
			"# TYPE segscan_scan_last_success_timestamp_seconds gauge\n"
			"segscan_scan_last_success_timestamp_seconds %.3f\n",
			t->last_success_wall);
out:
	return close_stream(f, &s->metrics, r);
}

/* The log dirs the scan could not read, for /healthz: [{"log_dir":..,"error":..},...]. */
static int render_down(struct ss_snapshot *s)
{
	size_t len = 0, n = segscan_logdir_count(s->scan);
	FILE *f = open_memstream(&s->down_json, &len);
	if (!f)
		return -errno;
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		struct segscan_logdir l = { .size = sizeof(l) };
		if (segscan_logdir(s->scan, i, &l) || !l.error)
			continue;
		fprintf(f, "%s{\"log_dir\":\"", s->logdirs_down++ ? "," : "");
		ss_jw_escape(f, l.path);
		fputs("\",\"error\":\"", f);
		ss_jw_escape(f, segscan_strerror(l.error));
		fputs("\"}", f);
	}
	fputc(']', f);
	return close_stream(f, &s->down_json, 0);
}

static int render_json(struct ss_snapshot *s)
{
	FILE *f = open_memstream(&s->json, &s->json_len);
	if (!f)
		return -errno;
	return close_stream(f, &s->json, segscan_write(s->scan, SEGSCAN_FMT_JSON, f));
}

static int render_parts(struct ss_snapshot *s)
{
	int r = 0;
	size_t n = segscan_partition_count(s->scan);
	FILE *f = open_memstream(&s->part_json, &s->part_json_len);
	if (!f)
		return -errno;
	if (n && !(s->parts = calloc(n, sizeof(*s->parts)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const segscan_partition *p = segscan_partition_at(s->scan, i);
		struct ss_part_ref *ref = &s->parts[i];
		ref->topic = segscan_partition_topic(p);
		ref->partition = segscan_partition_id(p);
		ref->log_dir = segscan_partition_log_dir(p);
		if (!ref->log_dir)
			ref->log_dir = "";
		long off = ftell(f);
		if (off < 0) {
			r = -EIO;
			goto out;
		}
		if ((r = segscan_write_partition_json(s->scan, p, f)))
			goto out;
		if (fflush(f)) {
			r = -EIO;
			goto out;
		}
		/* each object is served as a document of its own: end it with a newline */
		if (s->part_json_len == (size_t)off || s->part_json[s->part_json_len - 1] != '\n')
			fputc('\n', f);
		if (fflush(f)) {
			r = -EIO;
			goto out;
		}
		ref->off = (size_t)off;
		ref->len = s->part_json_len - (size_t)off;
	}
	s->n_parts = n;
	if (n)
		qsort(s->parts, n, sizeof(*s->parts), cmp_ref);
out:
	return close_stream(f, &s->part_json, r);
}

int ss_snapshot_json(struct ss_snapshot *snap)
{
	pthread_mutex_lock(&snap->json_mu);
	if (!snap->json_done) {
		snap->json_err = render_json(snap);
		if (!snap->json_err)
			snap->json_err = render_parts(snap);
		snap->json_done = true;
	}
	int r = snap->json_err;
	pthread_mutex_unlock(&snap->json_mu);
	return r;
}

int ss_pub_publish(struct ss_pub *pub, segscan_scan *scan, uint64_t gen)
{
	struct segscan_scan_stats st;
	struct ss_snapshot *snap = NULL, *old = NULL;
	struct ss_pub_totals t;
	bool failed = false;
	int r;

	segscan_get_stats(scan, &st);
	pthread_mutex_lock(&pub->fold_mu);
	pub->totals.scans++;
	pub->totals.c.duration_seconds = st.seconds;
	pub->totals.c.segments_total += st.segments;
	pub->totals.c.bytes_read_total += st.bytes_read;
	pub->totals.c.errors_total += st.errors;
	pub->totals.segments_reused += st.segments_reused;
	pub->totals.partitions_reused += segscan_partitions_reused(scan);
	/* published_gen is only written under fold_mu, which we hold: no race with the swap */
	if (gen <= pub->published_gen) {
		pub->totals.refused++;
		r = -ESTALE;
		goto unlock;
	}

	if (!(snap = calloc(1, sizeof(*snap)))) {
		r = -ENOMEM;
		goto unlock;
	}
	atomic_init(&snap->refs, 1); /* the publisher's reference */
	snap->generation = gen;
	snap->scan = scan;
	scan = NULL;
	snap->stats = st;
	snap->exit_code = segscan_exit_code(snap->scan);
	snap->finished_mono = now_clock(CLOCK_MONOTONIC);
	snap->finished_wall = now_clock(CLOCK_REALTIME);
	pthread_mutex_init(&snap->json_mu, NULL); /* destroyed in snapshot_destroy */
	snap->n_parts = segscan_partition_count(snap->scan);
	if ((r = render_down(snap)))
		goto unlock;
	/* a scan that could not read a log dir is a failure for the counters, /healthz and
	 * the success timestamp, though what it read is published (issue 20 item 5) */
	failed = snap->logdirs_down > 0;
	t = pub->totals;
	/* the gauge is the published scan's own duration, not the latest folded one */
	t.c.duration_seconds = st.seconds;
	if (failed)
		t.failures++;
	else
		t.last_success_wall = snap->finished_wall;
	if ((r = render_metrics(snap, &t)))
		goto unlock;
	/* /metrics gzip-compressed once per publication, not per scrape; a failure only costs
	 * clients the compressed variant */
	if (ss_gzip(snap->metrics, snap->metrics_len, &snap->metrics_gz, &snap->metrics_gz_len))
		snap->metrics_gz = NULL;

	pthread_mutex_lock(&pub->mu);
	old = pub->cur;
	pub->cur = snap;
	pub->published_gen = gen;
	pthread_mutex_unlock(&pub->mu);
	/* fold_mu, held */
	pub->totals.failures = t.failures;
	pub->totals.last_success_wall = t.last_success_wall;
	pub->totals.last_failed = failed;
	snap = NULL;
	r = 0;
unlock:
	pthread_mutex_unlock(&pub->fold_mu);
	if (snap)
		snapshot_destroy(snap); /* never shared: nobody else holds a reference */
	segscan_scan_free(scan);
	ss_snapshot_release(old);
	return r;
}
