/*
 * The pipeline driver: segscan_run() runs discovery (with a --remote-state file read
 * beside it), the remote state, then the workers and the evaluator, and publishes the
 * results view (model/results.h) that the writers and accessors read. The rest of the
 * public API is glue in src/lib/.
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common/esc.h"
#include "common/clock.h"
#include "common/probes.h"
#include "scan/embed.h"
#include "scan/scan_int.h"
#include "scan/store_job.h"
#include "source/cluster_ctx.h"
#include "source/cluster_image.h"
#include "sched/arena.h"
#include "source/context.h"
#include "source/fsstat.h"
#include "source/remote_topic.h"

static int fail(segscan_scan *s, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return err;
}

/* Match this scan's closed segments with the previous scan's by (log dir path,
 * partition dir, base offset); both catalogs are sorted the same way. */
static int build_reuse(segscan_scan *s)
{
	const struct ss_catalog *pc = &s->prev->cat, *c = &s->cat;
	if (!pc->ids)
		return 0; /* prev kept no identities (not set up for reuse): read everything */
	s->reuse_from = malloc(sizeof(uint32_t) * (c->n_segs ? c->n_segs : 1));
	if (!s->reuse_from)
		return -ENOMEM;
	memset(s->reuse_from, 0xff, sizeof(uint32_t) * (c->n_segs ? c->n_segs : 1));
	uint32_t j = 0;
	for (uint32_t i = 0; i < c->n_parts; i++) {
		const struct ss_part *p = &c->parts[i];
		if (p->reused)
			continue; /* taken whole from prev (ss_dreuse): its segments are not read */
		/* advance j to the first previous partition not before p */
		while (j < pc->n_parts) {
			const struct ss_part *q = &pc->parts[j];
			int cmp = strcmp(q->topic, p->topic);
			if (!cmp)
				cmp = q->partition < p->partition ? -1 : q->partition > p->partition;
			if (cmp >= 0)
				break;
			j++;
		}
		for (uint32_t k = j; k < pc->n_parts; k++) {
			const struct ss_part *q = &pc->parts[k];
			if (strcmp(q->topic, p->topic) || q->partition != p->partition)
				break;
			if (strcmp(q->logdir_path, p->logdir_path) || strcmp(q->dir, p->dir))
				continue;
			/* merge the two base-offset-ordered segment lists */
			uint32_t a = 0, b = 0;
			while (a < p->seg_count && b < q->seg_count) {
				const struct ss_seg *x = &c->segs[p->seg_first + a], *y = &pc->segs[q->seg_first + b];
				if (x->base_offset < y->base_offset)
					a++;
				else if (x->base_offset > y->base_offset)
					b++;
				else {
					if (!(x->flags & SS_SEG_ACTIVE) && !(y->flags & SS_SEG_ACTIVE) && !ss_seg_err(y) &&
					    !(y->flags & (SS_SEG_VANISHED | SS_SEG_CHANGED)))
						s->reuse_from[p->seg_first + a] = q->seg_first + b;
					a++;
					b++;
				}
			}
		}
	}
	return 0;
}

static int64_t wall_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

struct remote_job {
	segscan_scan *s;
	pthread_t     th;
	int           r;
	double        seconds;
	char          err[1024];
};

static void *remote_job_main(void *arg)
{
	struct remote_job *j = arg;
	double t0 = ss_mono();
	pthread_setname_np(pthread_self(), "segscan-remote");
	j->r = ss_scan_load_remote_file(j->s, j->err, sizeof(j->err));
	j->seconds = ss_mono() - t0;
	return NULL;
}

/* --topic compiled as it filters: POSIX extended, anchored to the whole name. A bad one
 * is a usage error naming the option. */
static int topic_regex(segscan_scan *s, regex_t *re)
{
	char *anchored = NULL;
	if (asprintf(&anchored, "^(%s)$", s->opts.topic_regex) < 0)
		return -ENOMEM;
	int rc = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (rc) {
		char m[128];
		regerror(rc, re, m, sizeof(m));
		s->usage_error = true;
		return fail(s, -EINVAL, "--topic=%s: %s", s->opts.topic_regex, m);
	}
	return 0;
}

/* Two places of one scan that meta.properties puts in different clusters: a usage error
 * (exit 2) naming both, escaped. mlog: the first is the metadata log, else a log dir. */
static int clusters_differ(segscan_scan *s, bool mlog, const char *pa, const char *ida, const char *pb,
			   const char *idb)
{
	char *a = ss_esc_line(pa), *b = ss_esc_line(pb), *ia = ss_esc_line(ida), *ib = ss_esc_line(idb);
	int rc = -ENOMEM;
	if (a && b && ia && ib) {
		s->usage_error = true;
		rc = mlog ? fail(s, -EINVAL, "the metadata log %s is of another cluster (cluster.id %s) than the log dir "
				 "%s (cluster.id %s), from their meta.properties", a, ia, b, ib)
			  : fail(s, -EINVAL, "log dirs of different clusters in one scan: %s (cluster.id %s) and %s "
				 "(cluster.id %s), from their meta.properties; scan each cluster's log dirs on their own",
				 a, ia, b, ib);
	}
	free(a);
	free(b);
	free(ia);
	free(ib);
	return rc;
}

/* Log dirs whose meta.properties name different cluster.ids are a usage error naming
 * them: the two clusters' topics, assignments and nodes are unrelated. */
static int check_cluster_ids(segscan_scan *s)
{
	const struct ss_catalog *c = &s->cat;
	int32_t first = -1;
	for (uint32_t i = 0; i < c->n_logdirs; i++) {
		const char *id = c->logdirs[i].cluster_id;
		if (!id)
			continue;
		if (first < 0) {
			first = (int32_t)i;
			continue;
		}
		const char *id0 = c->logdirs[first].cluster_id;
		if (strcmp(id, id0) == 0)
			continue;
		return clusters_differ(s, false, c->logdirs[first].path, id0, c->logdirs[i].path, id);
	}
	return 0;
}

/* The metadata log read (--metadata-dir, metadata.log.dir) belongs to the log dirs'
 * cluster: another cluster's would assign their partitions to unrelated nodes. */
static int check_metadata_cluster(segscan_scan *s)
{
	const struct ss_cluster_ctx *cc = s->cluster;
	if (!cc || !cc->mlog_used || !cc->cluster_id)
		return 0;
	for (uint32_t i = 0; i < s->cat.n_logdirs; i++) {
		const char *id = s->cat.logdirs[i].cluster_id;
		if (!id || strcmp(id, cc->cluster_id) == 0)
			continue;
		return clusters_differ(s, true, cc->info.dir, cc->cluster_id, s->cat.logdirs[i].path, id);
	}
	return 0;
}

static int run_pipeline(segscan_scan *s)
{
	int r;
	double t0, t_run = ss_mono();
	if (!s->opts.has_now)
		s->opts.now_ms = wall_ms();
	s->rate.rate = s->opts.max_read_rate;

	/* Configs first: they may name the log dirs, and a malformed one is a usage error
	 * that must stop us before we touch any disk. */
	if ((r = ss_scan_load_configs(s)))
		return r;
	if (s->n_logdir_paths == 0) {
		s->usage_error = true;
		return fail(s, -EINVAL, "no LOGDIR given (name one, or log.dirs through --server-properties)");
	}
	/* --topic: a bad expression is a usage error before any disk is touched */
	if (s->opts.topic_regex) {
		regex_t re;
		if ((r = topic_regex(s, &re)))
			return r;
		regfree(&re);
	}
	/* --remote-store: a bad URI is a usage error before any disk is touched */
	if ((r = ss_store_job_prepare(s)))
		return r;
	/* the broker's static configs: given, or the running broker's own */
	if ((r = ss_scan_find_static(s)))
		return fail(s, r, "broker config: %s", segscan_strerror(r));

	/* A --remote-state file needs nothing from discovery: replay it on a thread while
	 * discovery walks the directories (a million events take seconds to parse). */
	struct remote_job rj = { .s = s };
	bool rj_started = false;
	t0 = ss_mono();
	if (s->opts.remote_state && strcmp(s->opts.remote_state, "-") != 0)
		rj_started = pthread_create(&rj.th, NULL, remote_job_main, &rj) == 0;
	if (s->prev && s->unchanged) {
		/* partitions the caller knows unchanged since prev are copied, not listed */
		s->dreuse = (struct ss_dreuse){ .prev = &s->prev->cat, .unchanged = s->unchanged,
						.arg = s->unchanged_arg };
		s->cat.reuse = &s->dreuse;
	}
	/* only a scan a later segscan_reuse may read keeps what it compares */
	s->cat.keep_ids = s->reusable;
	r = ss_discover_mt(&s->cat, s->logdir_paths, s->n_logdir_paths,
			   s->opts.threads ? s->opts.threads : ss_default_threads());
	ss_dreuse_release(&s->dreuse);
	s->cat.reuse = NULL;
	/* the catalog's arrays grew by doubling: their old copies are free but still
	 * resident under jemalloc's decay; a million-segment scan would carry ~40 MB of
	 * them through the whole run (issue 15's RSS budget) */
	ss_arena_purge_all();
	s->times.discover = ss_mono() - t0;
	if (rj_started) {
		pthread_join(rj.th, NULL);
		s->times.remote = rj.seconds;
		if (rj.r) {
			snprintf(s->err, sizeof(s->err), "%s", rj.err);
			return rj.r;
		}
	}
	if (r)
		return fail(s, r, "discovery: %s", segscan_strerror(r));
	/* one scan, one cluster: the per-node evaluation (here, STRAY_PARTITION) reads one
	 * cluster's metadata, which says nothing about another's */
	if ((r = check_cluster_ids(s)))
		return r;
	/* a --seed for a partition that is not here is a typo, not a no-op */
	for (uint32_t i = 0; i < s->opts.n_seeds; i++) {
		const struct ss_seed *sd = &s->opts.seeds[i];
		bool found = false;
		for (uint32_t k = 0; k < s->cat.n_parts && !found; k++)
			found = s->cat.parts[k].partition == sd->partition && strcmp(s->cat.parts[k].topic, sd->topic) == 0;
		if (!found) {
			s->usage_error = true;
			return fail(s, -EINVAL, "--seed=%s-%d=%lld: no partition %s-%d in the scanned log dirs", sd->topic,
				    sd->partition, (long long)sd->offset, sd->topic, sd->partition);
		}
	}
	if (s->prev && (r = build_reuse(s)))
		return fail(s, r, "reuse: %s", segscan_strerror(r));
	/* the brokers' own gauges: which endpoint is whose needs the log dirs' node ids */
	if ((r = ss_scan_load_gauges(s)))
		return s->usage_error ? r : fail(s, r, "--broker-metrics: %s", segscan_strerror(r));

	/* The cluster context (the KRaft metadata log) and the remote state are complete
	 * before the workers start and read-only after. */
	t0 = ss_mono();
	if ((r = ss_scan_cluster_ctx(s)))
		return fail(s, r, "cluster metadata: %s", segscan_strerror(r));
	if ((r = check_metadata_cluster(s)))
		return r;
	s->times.cluster = ss_mono() - t0;
	t0 = ss_mono();
	if ((r = ss_scan_load_remote(s)))
		return r;
	s->times.remote += ss_mono() - t0;
	/* the store's listing, joined with the remote state on its own thread while the
	 * workers read the segments (ss_store_job_finish in segscan_run joins it) */
	if ((r = ss_store_job_start(s)))
		return r;

	if (atomic_load_explicit(&s->cancel, memory_order_relaxed))
		return fail(s, -ECANCELED, "cancelled before the segments were read");
	SS_PROBE_SCAN_START(s->cat.n_logdirs, s->opts.threads);
	r = ss_workers_run(s);
	if (!r && atomic_load_explicit(&s->cancel, memory_order_relaxed))
		r = fail(s, -ECANCELED, "cancelled: the segments were not all read, the report would be incomplete");
	/* every partition is evaluated: the brokers' per-topic delete-lag gauges against them */
	if (!r && (r = ss_scan_dellag(s)))
		r = fail(s, r, "delete lag: %s", segscan_strerror(r));
	/* segments of partitions copied whole count as reused (their reads were skipped) */
	s->totals.reused += s->dreuse.reused_segs;
	SS_PROBE_SCAN_DONE(s->cat.n_segs, r);
	s->times.total = ss_mono() - t_run;
	if (r) {
		if (!s->err[0])
			fail(s, r, "scan: %s", segscan_strerror(r));
		return r;
	}
	return 0;
}

/* The scan object's own state lock (scan_int.h): the setters of lib/ and segscan_run take
 * it the same way, so it lives with the object, below them. */
int ss_scan_setup_begin(segscan_scan *s)
{
	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&s->api_mu); /* released by ss_scan_setup_end, or below */
	int st = atomic_load_explicit(&s->state, memory_order_relaxed);
	if (st == SS_SCAN_IDLE)
		return 0;
	pthread_mutex_unlock(&s->api_mu);
	return st == SS_SCAN_RUNNING ? -EBUSY : -EALREADY;
}

void ss_scan_setup_end(segscan_scan *s)
{
	pthread_mutex_unlock(&s->api_mu); /* taken by ss_scan_setup_begin */
}

int ss_scan_logdir_add(segscan_scan *s, const char *path)
{
	char **n = realloc(s->logdir_paths, (s->n_logdir_paths + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->logdir_paths = n;
	if (!(n[s->n_logdir_paths] = strdup(path)))
		return -ENOMEM;
	s->n_logdir_paths++;
	return 0;
}

int ss_scan_use_cluster_tail(segscan_scan *s, struct ss_cluster_tail *t)
{
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	s->cluster_tail = t;
	ss_scan_setup_end(s);
	return 0;
}

int ss_scan_use_server_properties(segscan_scan *s, const char *name, const char *text, size_t len)
{
	if (!name || !text)
		return -EINVAL;
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	char *n = strdup(name);
	if (n) {
		free(s->opts.server_properties);
		s->opts.server_properties = n;
		s->props_text = text;
		s->props_len = len;
	}
	ss_scan_setup_end(s);
	return n ? 0 : -ENOMEM;
}

int segscan_reuse_unchanged(segscan_scan *s, segscan_unchanged_fn fn, void *arg)
{
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	s->unchanged = fn;
	s->unchanged_arg = arg;
	ss_scan_setup_end(s);
	return 0;
}

uint64_t segscan_partitions_reused(const segscan_scan *s)
{
	return ss_scan_readable(s) ? 0 : s->dreuse.reused;
}

void segscan_cancel(segscan_scan *s)
{
	if (s)
		atomic_store_explicit(&s->cancel, true, memory_order_relaxed);
}

int segscan_run(segscan_scan *s)
{
	if (!s)
		return -EINVAL;
	/* IDLE -> RUNNING under api_mu: a setter on another thread has finished or is
	 * refused from here on (scan_int.h) */
	pthread_mutex_lock(&s->api_mu);
	int st = atomic_load_explicit(&s->state, memory_order_relaxed);
	if (st != SS_SCAN_IDLE) {
		pthread_mutex_unlock(&s->api_mu);
		/* s->err is the running scan's: left alone */
		return st == SS_SCAN_RUNNING ? -EBUSY : -EALREADY;
	}
	atomic_store_explicit(&s->state, SS_SCAN_RUNNING, memory_order_relaxed);
	s->ran = true;
	pthread_mutex_unlock(&s->api_mu);
	int r = run_pipeline(s);
	/* --remote-store: joined on every path; its audit is attached to the evaluations only
	 * after a run that succeeded (and needs the remote taint, freed just below) */
	int sj = ss_store_job_finish(s, r == 0);
	if (!r && sj)
		r = fail(s, sj, "remote store: %s", segscan_strerror(sj));
	/* the evaluations that read it are done (the workers and the evaluator are joined) */
	ss_remote_taint_free(s->remote_taint);
	s->remote_taint = NULL;
	/* published on every path: a failed run still reports what it saw and its exit code */
	int p = ss_scan_publish_results(s);
	if (!r && p)
		r = fail(s, p, "results: %s", segscan_strerror(p));
	/* release: the results (and s->err) before DONE; pairs with ss_scan_readable's acquire */
	atomic_store_explicit(&s->state, SS_SCAN_DONE, memory_order_release);
	return r;
}

/* Does the partition have something to say (--findings-only)? */
static bool has_news(const struct ss_results *r, const struct ss_part *p)
{
	if (p->unreadable || (p->eval && p->eval->n_findings))
		return true;
	for (uint32_t k = 0; k < p->seg_count; k++)
		if (ss_res_seg_failed(&r->segs[p->seg_first + k]))
			return true;
	return false;
}

static bool selected(const struct ss_opts *o, const struct ss_part *p, bool *hit)
{
	bool any = false;
	for (uint32_t i = 0; i < o->n_partitions; i++)
		if (o->partitions[i].partition == p->partition && strcmp(o->partitions[i].topic, p->topic) == 0)
			any = hit[i] = true;
	return any;
}

/* --topic, --partition and --findings-only: the report shows a subset, in the same order;
 * the exit code was decided over everything. The copies share the catalog's strings and
 * segments. A --topic or --partition that matches nothing scanned is said on stderr (a
 * warning: a typo must not pass for an empty broker); the exit code still speaks for
 * the scan, as for any subset, so a fleet-wide filter does not fail on a broker that
 * holds none of it. */
static int filter_parts(segscan_scan *s, struct ss_results *r)
{
	regex_t re;
	bool have_re = false, re_hit = false;
	bool *hit = NULL;
	int e;
	if (s->opts.topic_regex) {
		if ((e = topic_regex(s, &re))) {
			r->run.exit_code = 2;
			return e;
		}
		have_re = true;
	}
	free(s->res_parts);
	s->res_parts = r->n_parts ? malloc(r->n_parts * sizeof(*s->res_parts)) : NULL;
	if (s->opts.n_partitions)
		hit = calloc(s->opts.n_partitions, sizeof(*hit));
	if ((r->n_parts && !s->res_parts) || (s->opts.n_partitions && !hit)) {
		if (have_re)
			regfree(&re);
		free(hit);
		return -ENOMEM;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		bool topic_ok = !have_re || regexec(&re, p->topic, 0, NULL, 0) == 0;
		re_hit |= have_re && topic_ok;
		bool part_ok = !s->opts.n_partitions || selected(&s->opts, p, hit);
		if (!topic_ok || !part_ok)
			continue;
		if (s->opts.findings_only && !has_news(r, p))
			continue;
		s->res_parts[n++] = *p;
	}
	if (have_re)
		regfree(&re);
	if (have_re && !re_hit)
		ss_logmsg(&s->log, SEGSCAN_LOG_WARNING, "--topic=%s matches no topic in the scanned log dirs",
			  s->opts.topic_regex);
	for (uint32_t i = 0; i < s->opts.n_partitions; i++)
		if (!hit[i])
			ss_logmsg(&s->log, SEGSCAN_LOG_WARNING, "--partition=%s-%d: no such partition in the scanned log dirs",
				  s->opts.partitions[i].topic, s->opts.partitions[i].partition);
	free(hit);
	r->all_parts = r->parts;
	r->n_all_parts = r->n_parts;
	r->parts = s->res_parts;
	r->n_parts = n;
	return 0;
}

/* --horizon: each log dir's free bytes now, and after the forecast's local deletes of
 * its partitions (unknown when one of them is: a total over unknowns is unknown) */
static void forecast_space(const segscan_scan *s, const struct ss_res_logdir *l, struct ss_res_space *sp, uint32_t n)
{
	const struct ss_catalog *c = &s->cat;
	for (uint32_t i = 0; i < n; i++) {
		int64_t fb;
		sp[i] = (struct ss_res_space){ -1, -1 };
		if (l[i].err || ss_source_free_bytes(l[i].path, &fb) < 0)
			continue;
		sp[i].free_bytes = fb;
		bool known = true;
		__int128 after = fb;
		for (uint32_t k = 0; k < c->n_parts && known; k++) {
			const struct ss_part *p = &c->parts[k];
			if (p->logdir != i)
				continue;
			const struct ss_eval *ev = p->eval;
			if (!ev || p->unreadable || !ev->forecast.evaluated || ev->forecast.unknown) {
				/* the metadata log is not forecast: Kafka applies no retention to it */
				known = ev && !p->unreadable && !ev->forecast.evaluated &&
					strcmp(p->topic, "__cluster_metadata") == 0;
				continue;
			}
			after += ev->forecast.local_delete_bytes;
		}
		if (known)
			sp[i].free_bytes_after = after > INT64_MAX ? INT64_MAX : (int64_t)after;
	}
}

int ss_scan_publish_results(segscan_scan *s)
{
	struct ss_results *r = &s->res;
	const struct ss_catalog *c = &s->cat;
	if (c->n_logdirs) {
		struct ss_res_logdir *l = realloc(s->res_logdirs, c->n_logdirs * sizeof(*l));
		if (!l)
			return -ENOMEM;
		for (uint32_t i = 0; i < c->n_logdirs; i++)
			l[i] = (struct ss_res_logdir){ .path = c->logdirs[i].path, .err = c->logdirs[i].err,
						       .node = c->logdirs[i].node, .node_id = c->logdirs[i].node_id,
						       .cluster_id = c->logdirs[i].cluster_id };
		s->res_logdirs = l;
		if (s->opts.horizon_ms > 0) {
			struct ss_res_space *sp = realloc(s->res_space, c->n_logdirs * sizeof(*sp));
			if (!sp)
				return -ENOMEM;
			s->res_space = sp;
			forecast_space(s, l, sp, c->n_logdirs);
		}
	}
	*r = (struct ss_results){
		.logdirs = s->res_logdirs, .n_logdirs = c->n_logdirs,
		.space = s->opts.horizon_ms > 0 && c->n_logdirs ? s->res_space : NULL,
		.parts = c->parts, .n_parts = c->n_parts,
		.segs = c->segs, .n_segs = c->n_segs,
		.notes = c->notes, .n_notes = c->n_notes,
		.problems = c->problems, .n_problems = c->n_problems,
	};
	r->run = (struct ss_res_run){
		.verify = s->opts.verify,
		.io = s->io_used,
		.io_fell_back = s->io_fell_back,
		.threads = s->threads_used,
		.queue_depth = s->opts.queue_depth,
		.bytes_read = s->bytes_read,
		.remote_source = s->remote_source,
		.remote_warnings = s->remote_warnings,
		.times = s->times,
		.metrics_topic = s->opts.metrics_level && strcmp(s->opts.metrics_level, "topic") == 0,
		.metrics_extra = s->opts.metrics_extra,
		.horizon_ms = s->opts.horizon_ms,
	};
	r->run.exit_code = s->usage_error ? 2 : ss_results_exit_code(r);
	int fe;
	if ((s->opts.topic_regex || s->opts.n_partitions || s->opts.findings_only) && (fe = filter_parts(s, r)))
		return fe;
	r->topic_dellag = s->topic_dellag;
	r->n_topic_dellag = s->n_topic_dellag;
	r->store = ss_store_job_results(s);
	if (s->n_gauges) {
		const struct ss_broker_gauges **g = realloc(s->res_gauges, s->n_gauges * sizeof(*g));
		if (!g)
			return -ENOMEM;
		for (uint32_t i = 0; i < s->n_gauges; i++)
			g[i] = s->gauges[i];
		s->res_gauges = g;
		r->gauges = g;
		r->n_gauges = s->n_gauges;
	}
	struct ss_res_cluster *cl = &r->cluster;
	const struct ss_cluster_ctx *cc = s->cluster;
	*cl = (struct ss_res_cluster){ .node_id = -1, .last_offset = -1, .rlmm_partitions = -1,
				       .rlmm_local = c->n_rlmm_dirs };
	if (cc) {
		cl->node_id = cc->node_id;
		cl->cluster_id = cc->cluster_id;
		cl->kafka_version = cc->version_text[0] ? cc->version_text : NULL;
		cl->kafka_version_known = cc->has_version && cc->version_text[0];
		cl->kafka_version_source = cc->version_source;
		cl->kafka_version_note = cc->version_note[0] ? cc->version_note : NULL;
	}
	cl->static_config = s->static_config;
	cl->configs_from = cc && cc->mlog_used ? "metadata log" : cc && cc->cfgs ? "cluster" : NULL;
	cl->configs_error = cc ? cc->cfgs_error : NULL;
	cl->static_config_how = s->static_config_how;
	if (cc) {
		cl->metadata_version = cc->mv_text[0] ? cc->mv_text : NULL;
		cl->metadata_version_level = cc->mv_finalized;
		cl->supported_metadata_version = cc->mv_supported_max;
		cl->rlmm_partitions = cc->rlmm_partitions;
		cl->metadata_why_not = cc->mlog_why_not;
		if (cc->mlog_used) {
			const struct ss_ci_stats *st = ss_cimage_stats(cc->img);
			cl->metadata_log = true;
			cl->metadata_dir = cc->info.dir;
			cl->snapshot = cc->info.snapshot;
			cl->last_offset = cc->info.last_offset;
			cl->records = st->records;
			cl->warnings = ss_cimage_warning_count(cc->img) + st->warnings_dropped;
			cl->complete = cc->info.complete;
			cl->warning_texts = cc->warnings;
			cl->n_warning_texts = cc->n_warnings;
		}
	}
	for (uint32_t i = 0; i < c->n_parts; i++) {
		const struct ss_eval *ev = c->parts[i].eval;
		if (!ev || !ev->tiered)
			continue;
		cl->tiered_partitions++;
		if (ev->seeded)
			cl->remote_known_partitions++;
	}
	r->pipeline = (struct ss_res_pipeline){
		.syscalls = s->totals.io.syscalls,
		.submissions = s->totals.io.submissions,
		.tasks_peak = s->totals.tasks_peak,
		.ring_stalls = s->totals.ring_stalls,
		.reuse = s->prev != NULL,
		.reused = s->totals.reused,
		.evict = s->opts.evict,
		.evicted_bytes = s->totals.evicted_bytes,
		.workers = s->winfo,
		.n_workers = s->n_winfo,
	};
	return 0;
}
