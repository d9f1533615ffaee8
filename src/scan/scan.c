/*
 * The public API (include/segscan.h): options, the run (discovery → remote state →
 * workers + evaluator), results and writers.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common/clock.h"
#include "common/probes.h"
#include "eval/config.h"
#include "eval/remote.h"
#include "out/out.h"
#include "scan/load.h"
#include "scan/scan_int.h"
#include "sched/topology.h"

static int fail(segscan_scan *s, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return err;
}

int segscan_scan_new(segscan_scan **out)
{
	segscan_scan *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->opts.io = strdup("uring");
	if (!s->opts.io) {
		free(s);
		return -ENOMEM;
	}
	s->opts.queue_depth = 128;
	s->opts.numa = true;
	s->opts.remote_metadata = true;
	s->opts.dangling_after_ms = 3600000;
	pthread_mutex_init(&s->rate.mu, NULL);
	*out = s;
	return 0;
}

void segscan_scan_free(segscan_scan *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->cat.n_parts; i++)
		if (s->cat.parts[i].eval)
			ss_eval_free(s->cat.parts[i].eval);
	ss_catalog_free(&s->cat);
	for (unsigned i = 0; i < s->n_rings; i++)
		ss_ring_destroy(&s->rings[i]);
	free(s->rings);
	if (s->remote)
		ss_remote_free(s->remote);
	if (s->config)
		ss_config_free(s->config);
	for (uint32_t i = 0; i < s->n_logdir_paths; i++)
		free(s->logdir_paths[i]);
	free(s->logdir_paths);
	for (uint32_t i = 0; i < s->opts.n_seeds; i++)
		free(s->opts.seeds[i].topic);
	free(s->opts.seeds);
	free(s->opts.io);
	free(s->opts.numa_root);
	free(s->opts.remote_state);
	free(s->opts.topic_config);
	free(s->opts.server_properties);
	free(s->reuse_from);
	free(s->winfo);
	pthread_mutex_destroy(&s->rate.mu);
	free(s);
}

const char *segscan_last_error(const segscan_scan *s)
{
	return s->err[0] ? s->err : "no error";
}

/* Strict decimal parse: the whole string, no sign unless allowed, within [lo, hi]. */
static int parse_i64(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	if (!v || !*v)
		return -EINVAL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	return 0;
}

/* "1048576", "10M", "512k", "1G" (decimal multiples: a rate, not a file size) */
static int parse_size(const char *v, int64_t *out)
{
	char *end;
	if (!v || !*v)
		return -EINVAL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || x < 0 || end == v)
		return -EINVAL;
	int64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000;
	else if (*end == 'M')
		mul = 1000000;
	else if (*end == 'G')
		mul = 1000000000;
	if (mul > 1)
		end++;
	if (*end || x > INT64_MAX / mul)
		return -EINVAL;
	*out = x * mul;
	return 0;
}

static int set_str(char **dst, const char *v)
{
	char *n = strdup(v);
	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!v || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

int segscan_set(segscan_scan *s, const char *name, const char *v)
{
	int64_t x;
	s->err[0] = 0;
	if (!strcmp(name, "threads")) {
		if (parse_i64(v, 1, 1024, &x))
			return fail(s, -EINVAL, "expected a thread count from 1 to 1024");
		s->opts.threads = (unsigned)x;
	} else if (!strcmp(name, "io")) {
		if (!v || (strcmp(v, "uring") && strcmp(v, "mmap") && strcmp(v, "pread")))
			return fail(s, -EINVAL, "expected uring, mmap or pread");
		return set_str(&s->opts.io, v);
	} else if (!strcmp(name, "queue-depth")) {
		if (parse_i64(v, 8, 32768, &x))
			return fail(s, -EINVAL, "expected a queue depth from 8 to 32768");
		s->opts.queue_depth = (unsigned)x;
	} else if (!strcmp(name, "verify")) {
		if (parse_bool(v, &s->opts.verify))
			return fail(s, -EINVAL, "expected true or false");
	} else if (!strcmp(name, "stats")) {
		if (parse_bool(v, &s->opts.stats))
			return fail(s, -EINVAL, "expected true or false");
	} else if (!strcmp(name, "progress")) {
		if (parse_bool(v, &s->opts.progress))
			return fail(s, -EINVAL, "expected true or false");
	} else if (!strcmp(name, "quiet")) {
		if (parse_bool(v, &s->opts.quiet))
			return fail(s, -EINVAL, "expected true or false");
	} else if (!strcmp(name, "numa")) {
		if (!v || (strcmp(v, "auto") && strcmp(v, "off")))
			return fail(s, -EINVAL, "expected auto or off");
		s->opts.numa = !strcmp(v, "auto");
	} else if (!strcmp(name, "numa-topology")) {
		if (!v || !*v)
			return fail(s, -EINVAL, "expected a directory");
		return set_str(&s->opts.numa_root, v);
	} else if (!strcmp(name, "remote-metadata")) {
		if (!v || (strcmp(v, "auto") && strcmp(v, "off")))
			return fail(s, -EINVAL, "expected auto or off");
		s->opts.remote_metadata = !strcmp(v, "auto");
	} else if (!strcmp(name, "remote-state")) {
		if (!v || !*v)
			return fail(s, -EINVAL, "expected a file name or '-'");
		return set_str(&s->opts.remote_state, v);
	} else if (!strcmp(name, "topic-config")) {
		if (!v || !*v)
			return fail(s, -EINVAL, "expected a file name");
		return set_str(&s->opts.topic_config, v);
	} else if (!strcmp(name, "server-properties")) {
		if (!v || !*v)
			return fail(s, -EINVAL, "expected a file name");
		return set_str(&s->opts.server_properties, v);
	} else if (!strcmp(name, "now")) {
		if (parse_i64(v, 0, INT64_MAX / 2, &x))
			return fail(s, -EINVAL, "expected milliseconds since the epoch");
		s->opts.has_now = true;
		s->opts.now_ms = x;
	} else if (!strcmp(name, "dangling-after")) {
		if (parse_i64(v, 0, INT64_MAX / 2, &x))
			return fail(s, -EINVAL, "expected milliseconds (>= 0)");
		s->opts.dangling_after_ms = x;
	} else if (!strcmp(name, "max-read-rate")) {
		if (parse_size(v, &x))
			return fail(s, -EINVAL, "expected bytes per second (suffixes k, M, G; 0 = unlimited)");
		s->opts.max_read_rate = x;
		s->rate.rate = x;
	} else if (!strcmp(name, "io-priority")) {
		if (!v || (strcmp(v, "idle") && strcmp(v, "normal")))
			return fail(s, -EINVAL, "expected idle or normal");
		s->opts.io_idle = !strcmp(v, "idle");
	} else if (!strcmp(name, "evict")) {
		if (parse_bool(v, &s->opts.evict))
			return fail(s, -EINVAL, "expected true or false");
	} else if (!strcmp(name, "avoid-cpus")) {
		if (!v || ss_cpulist_parse(v, &s->opts.avoid_cpus) != 0)
			return fail(s, -EINVAL, "expected a CPU list such as 0-3,8");
		s->opts.has_avoid = CPU_COUNT(&s->opts.avoid_cpus) > 0;
	} else if (!strcmp(name, "seed")) {
		struct ss_seed sd;
		if (!v || ss_seed_parse(v, &sd.topic, &sd.partition, &sd.offset))
			return fail(s, -EINVAL, "expected TOPIC-PARTITION=OFFSET (e.g. orders-3=1200)");
		struct ss_seed *n = realloc(s->opts.seeds, (s->opts.n_seeds + 1) * sizeof(*n));
		if (!n) {
			free(sd.topic);
			return -ENOMEM;
		}
		s->opts.seeds = n;
		s->opts.seeds[s->opts.n_seeds++] = sd;
	} else {
		return fail(s, -EINVAL, "unknown option");
	}
	return 0;
}

int segscan_reuse(segscan_scan *s, const segscan_scan *prev)
{
	if (prev && !prev->ran)
		return -EINVAL;
	s->prev = prev;
	return 0;
}

/* Match this scan's closed segments with the previous scan's by (log dir path,
 * partition dir, base offset); both catalogs are sorted the same way. */
static int build_reuse(segscan_scan *s)
{
	const struct ss_catalog *pc = &s->prev->cat, *c = &s->cat;
	s->reuse_from = malloc(sizeof(uint32_t) * (c->n_segs ? c->n_segs : 1));
	if (!s->reuse_from)
		return -ENOMEM;
	memset(s->reuse_from, 0xff, sizeof(uint32_t) * (c->n_segs ? c->n_segs : 1));
	uint32_t j = 0;
	for (uint32_t i = 0; i < c->n_parts; i++) {
		const struct ss_part *p = &c->parts[i];
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
					if (!(x->flags & SS_SEG_ACTIVE) && !(y->flags & SS_SEG_ACTIVE) && !y->err &&
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

int segscan_add_logdir(segscan_scan *s, const char *path)
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
	j->r = ss_load_remote_file(j->s, j->err, sizeof(j->err));
	j->seconds = ss_mono() - t0;
	return NULL;
}

int segscan_run(segscan_scan *s)
{
	int r;
	double t0, t_run = ss_mono();
	if (s->ran)
		return fail(s, -EALREADY, "a scan runs once; create a new one");
	s->ran = true;
	if (!s->opts.has_now)
		s->opts.now_ms = wall_ms();

	/* Configs first: they may name the log dirs, and a malformed one is a usage error
	 * that must stop us before we touch any disk. */
	if ((r = ss_load_configs(s)))
		return r;
	if (s->n_logdir_paths == 0) {
		s->usage_error = true;
		return fail(s, -EINVAL, "no LOGDIR given (name one, or log.dirs through --server-properties)");
	}

	/* A --remote-state file needs nothing from discovery: replay it on a thread while
	 * discovery walks the directories (a million events take seconds to parse). */
	struct remote_job rj = { .s = s };
	bool rj_started = false;
	t0 = ss_mono();
	if (s->opts.remote_state && strcmp(s->opts.remote_state, "-") != 0)
		rj_started = pthread_create(&rj.th, NULL, remote_job_main, &rj) == 0;
	r = ss_discover_mt(&s->cat, s->logdir_paths, s->n_logdir_paths,
			   s->opts.threads ? s->opts.threads : ss_default_threads());
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
	if (s->prev && (r = build_reuse(s)))
		return fail(s, r, "reuse: %s", segscan_strerror(r));

	/* The remote state is complete before the workers start and read-only after. */
	t0 = ss_mono();
	if ((r = ss_load_remote(s)))
		return r;
	s->times.remote += ss_mono() - t0;

	SS_PROBE_SCAN_START(s->cat.n_logdirs, s->opts.threads);
	r = ss_workers_run(s);
	SS_PROBE_SCAN_DONE(s->cat.n_segs, r);
	s->times.total = ss_mono() - t_run;
	if (r) {
		if (!s->err[0])
			fail(s, r, "scan: %s", segscan_strerror(r));
		return r;
	}
	return 0;
}

int segscan_exit_code(const segscan_scan *s)
{
	if (s->usage_error)
		return 2;
	for (uint32_t i = 0; i < s->cat.n_logdirs; i++)
		if (s->cat.logdirs[i].err)
			return 3;
	for (uint32_t i = 0; i < s->cat.n_problems; i++)
		if (s->cat.problems[i].data_loss)
			return 1;
	for (uint32_t i = 0; i < s->cat.n_segs; i++) {
		const struct ss_seg *sg = &s->cat.segs[i];
		if ((sg->err && !(sg->flags & SS_SEG_VANISHED)) || sg->crc_errors)
			return 1;
	}
	return 0;
}

size_t segscan_partition_count(const segscan_scan *s)
{
	return s->cat.n_parts;
}

const segscan_partition *segscan_partition_at(const segscan_scan *s, size_t i)
{
	if (i >= s->cat.n_parts)
		return NULL;
	/* segscan_partition is a view of ss_part (its only member) */
	return (const segscan_partition *)&s->cat.parts[i];
}

const char *segscan_partition_topic(const segscan_partition *p) { return p->p.topic; }
int32_t segscan_partition_id(const segscan_partition *p) { return p->p.partition; }
size_t segscan_partition_segment_count(const segscan_partition *p) { return p->p.seg_count; }
int64_t segscan_partition_size_bytes(const segscan_partition *p) { return p->p.eval ? p->p.eval->size_bytes : 0; }
int64_t segscan_partition_log_end_offset(const segscan_partition *p)
{
	return p->p.eval ? p->p.eval->log_end_offset : 0;
}

const char *segscan_partition_log_dir(const segscan_partition *p)
{
	/* the scan owns the log dir strings; the partition knows only its index */
	return p->p.logdir_path;
}

int segscan_write(const segscan_scan *s, enum segscan_format fmt, FILE *out)
{
	switch (fmt) {
	case SEGSCAN_FMT_TABLE: return ss_out_table(s, out);
	case SEGSCAN_FMT_JSON: return ss_out_json(s, out, false);
	case SEGSCAN_FMT_NDJSON: return ss_out_json(s, out, true);
	case SEGSCAN_FMT_PROM: return ss_out_prom(s, out);
	}
	return -EINVAL;
}

int segscan_write_prom(const segscan_scan *s, const struct segscan_counters *c, FILE *out)
{
	struct ss_prom_counters pc = {
		.duration_seconds = c->duration_seconds,
		.segments_total = c->segments_total,
		.bytes_read_total = c->bytes_read_total,
		.errors_total = c->errors_total,
	};
	return ss_out_prom_counters(s, out, &pc);
}

void segscan_get_stats(const segscan_scan *s, struct segscan_scan_stats *out)
{
	struct ss_summary sum;
	ss_out_summarize(s, &sum);
	out->seconds = s->times.total;
	out->segments = s->cat.n_segs;
	out->segments_reused = s->totals.reused;
	out->bytes_read = (uint64_t)s->bytes_read;
	out->errors = (uint64_t)sum.errors;
}

int segscan_write_partition_json(const segscan_scan *s, const segscan_partition *p, FILE *out)
{
	ss_out_partition_json(s, &p->p, out);
	return ferror(out) ? -EIO : 0;
}

int segscan_write_stats(const segscan_scan *s, FILE *f)
{
	const struct ss_worker_stats *t = &s->totals;
	double total = s->times.total;
	fprintf(f, "segscan stats:\n");
	fprintf(f, "  discover      %9.3f s  %u log dirs, %u partitions, %u segments\n", s->times.discover,
		s->cat.n_logdirs, s->cat.n_parts, s->cat.n_segs);
	fprintf(f, "  remote state  %9.3f s  source %s, %" PRIu64 " events dropped or warned (a file: read beside discovery)\n", s->times.remote,
		s->remote_source ? s->remote_source : "none", s->remote_warnings);
	fprintf(f, "  scan          %9.3f s  io=%s%s, %u workers, queue depth %u, peak %" PRIu64 " segments in flight per worker\n",
		s->times.scan, s->io_used, s->io_fell_back ? " (fallback)" : "", s->threads_used,
		s->opts.queue_depth, t->tasks_peak);
	for (unsigned i = 0; i < s->n_winfo; i++) {
		const struct ss_worker_info *wi = &s->winfo[i];
		char node[16];
		snprintf(node, sizeof(node), "%d", wi->node);
		fprintf(f, "    worker %-3u node %-3s %s%-20s %" PRIu64 " segments\n", i, wi->node >= 0 ? node : "any",
			wi->pinned ? "pinned to cpus " : "not pinned", wi->pinned ? wi->cpus : "", wi->segments);
	}
	for (uint32_t i = 0; i < s->cat.n_logdirs; i++)
		fprintf(f, "    log dir %s on NUMA node %d\n", s->cat.logdirs[i].path, s->cat.logdirs[i].node);
	fprintf(f, "  evaluate      %9.3f s  (on the evaluator thread, overlapping the scan)\n", s->times.evaluate);
	fprintf(f, "  total         %9.3f s  %.0f segments/s\n", total, total > 0 ? s->cat.n_segs / total : 0.0);
	fprintf(f, "  bytes read    %" PRIu64 " (%.1f per segment, %.1f MB/s)\n", t->io.bytes_read,
		s->cat.n_segs ? (double)t->io.bytes_read / s->cat.n_segs : 0.0,
		s->times.scan > 0 ? t->io.bytes_read / s->times.scan / 1e6 : 0.0);
	fprintf(f, "  syscalls      %" PRIu64 " for %" PRIu64 " submissions (%.2f per segment)\n", t->io.syscalls,
		t->io.submissions, s->cat.n_segs ? (double)t->io.syscalls / s->cat.n_segs : 0.0);
	fprintf(f, "  ring stalls   %" PRIu64 " (a full ring made a worker wait for the evaluator)\n", t->ring_stalls);
	if (s->prev)
		fprintf(f, "  reused        %" PRIu64 " unchanged closed segments from the previous scan\n", t->reused);
	if (s->opts.evict)
		fprintf(f, "  evicted       %" PRIu64 " bytes of page cache this scan brought in\n", t->evicted_bytes);
	return ferror(f) ? -EIO : 0;
}
