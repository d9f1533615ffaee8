/*
 * bench/evalbench: the evaluator's two costs that do not depend on the disk, measured
 * through the library (linked with libsegscan.a):
 *
 *   replay_synthetic  bench_replay_synthetic() (bench/remote_synthetic.h): EVENTS remote metadata events
 *                     (adds, finishes, deletes, leader changes) over PARTS partitions,
 *                     straight into the state machine and its epoch index
 *   replay_ndjson     the same kind of stream as --remote-state text: EVENTS NDJSON lines
 *                     parsed by ss_ndjson_parse() and applied by ss_remote_apply_fn, what `scan
 *                     --remote-state` pays before the first segment is read
 *   evaluate          PARTS partitions of SEGS local segments each, evaluated as the
 *                     evaluator thread does it (topic config lookup, remote state lookup,
 *                     ss_eval_partition) against the replayed remote state
 *
 *   evalbench [-e EVENTS] [-p PARTS] [-s SEGS] [-r REPS] [-S SEED] [-m LIST]
 *
 * -m picks measurements (comma-separated names above; default all), e.g. to profile one.
 *
 * Output: one line per repetition, "evalbench NAME REP SECONDS UNITS COUNT", then a
 * human summary per measurement on stderr. Exit 0, 1 on a library error, 2 on usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eval/config.h"
#include "eval/eval.h"
#include "fmt/ndjson.h"
#include "eval/remote.h"
#include "model/model.h"
#include "segscan.h"

#include "remote_synthetic.h"

#define EB_TOPICS 64           /* as bench_replay_synthetic: "bench0".."bench63" */
#define EB_NOW    1700000000000LL
#define EB_SEGLEN 1000         /* offsets per local segment */

struct eb_opts {
	uint64_t events;
	uint32_t parts;
	uint32_t segs;
	unsigned reps;
	uint64_t seed;
	const char *only;      /* -m: comma-separated measurement names, NULL = all */
};

static bool wanted(const struct eb_opts *o, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = o->only; p && *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && memcmp(p, name, n) == 0)
			return true;
		p = c ? c + 1 : p + len;
	}
	return !o->only;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void summary(const char *name, double *t, unsigned n, const char *units, uint64_t count)
{
	qsort(t, n, sizeof(*t), cmp_double);
	double med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	fprintf(stderr, "evalbench: %-17s %10" PRIu64 " %-10s median %.3f s (%.3f..%.3f), %.0f %s/s, %.2f us each\n",
		name, count, units, med, t[0], t[n - 1], med > 0 ? (double)count / med : 0.0, units,
		count ? med * 1e6 / (double)count : 0.0);
}

/* ---- replay_synthetic ---------------------------------------------------------------- */

static int bench_synthetic(const struct eb_opts *o, double *secs)
{
	struct ss_remote *r = NULL;
	int e = ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r);
	if (e)
		return e;
	double t0 = mono();
	e = bench_replay_synthetic(r, o->events, o->parts, o->seed);
	*secs = mono() - t0;
	ss_remote_free(r);
	return e;
}

/* ---- replay_ndjson ------------------------------------------------------------------- */

struct eb_buf {
	char  *p;
	size_t len, cap;
};

static int buf_reserve(struct eb_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1 << 20;
	while (cap < b->len + more)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

struct eb_npart {
	int64_t next_off;
	int32_t epoch;
	bool    pending;       /* a COPY_SEGMENT_STARTED awaits its FINISHED */
	char    id[23];
};

/*
 * A legal --remote-state stream of exactly `events` lines: per partition, a segment add
 * (COPY_SEGMENT_STARTED) followed later by its COPY_SEGMENT_FINISHED, partitions
 * interleaved at random, an epoch bump now and then. Shaped like what a broker publishes.
 */
static int make_ndjson(const struct eb_opts *o, struct eb_buf *b)
{
	struct eb_npart *np = calloc(o->parts, sizeof(*np));
	uint64_t rng = o->seed ? o->seed : 1;
	int e = 0;
	if (!np)
		return -ENOMEM;
	for (uint64_t i = 0; i < o->events; i++) {
		uint32_t pi = (uint32_t)(xorshift(&rng) % o->parts);
		struct eb_npart *q = &np[pi];
		int64_t ts = EB_NOW - (int64_t)(o->events - i);
		if ((e = buf_reserve(b, 512)))
			break;
		char *w = b->p + b->len;
		size_t room = b->cap - b->len;
		int n;
		if (q->pending) {
			n = snprintf(w, room,
				     "{\"type\":\"update\",\"topic\":\"bench%u\",\"partition\":%u,\"segment_id\":\"%s\","
				     "\"state\":\"COPY_SEGMENT_FINISHED\",\"broker_id\":1,\"event_timestamp_ms\":%" PRId64 "}\n",
				     pi % EB_TOPICS, pi / EB_TOPICS, q->id, ts);
			q->pending = false;
		} else {
			uint8_t id[16];
			for (int k = 0; k < 16; k++)
				id[k] = (uint8_t)xorshift(&rng);
			ss_uuid_format(id, q->id);
			if (xorshift(&rng) % 64 == 0)
				q->epoch++;
			int64_t len = 1000 + (int64_t)(xorshift(&rng) % 1000);
			n = snprintf(w, room,
				     "{\"type\":\"segment\",\"topic\":\"bench%u\",\"partition\":%u,\"segment_id\":\"%s\","
				     "\"start_offset\":%" PRId64 ",\"end_offset\":%" PRId64 ",\"leader_epochs\":{\"%d\":%" PRId64 "},"
				     "\"size_bytes\":%" PRId64 ",\"max_timestamp_ms\":%" PRId64 ",\"broker_id\":1,"
				     "\"event_timestamp_ms\":%" PRId64 ",\"state\":\"COPY_SEGMENT_STARTED\"}\n",
				     pi % EB_TOPICS, pi / EB_TOPICS, q->id, q->next_off, q->next_off + len - 1, q->epoch,
				     q->next_off, len * 100, ts, ts);
			q->next_off += len;
			q->pending = true;
		}
		if (n < 0 || (size_t)n >= room) {
			e = -EOVERFLOW;
			break;
		}
		b->len += (size_t)n;
	}
	free(np);
	return e;
}

static int bench_ndjson(const struct eb_buf *b, double *secs, char *err, size_t errlen)
{
	struct ss_remote *r = NULL;
	int e = ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r);
	if (e)
		return e;
	double t0 = mono();
	e = ss_ndjson_parse(b->p, b->len, "evalbench.ndjson", ss_remote_apply_fn, r, err, errlen);
	*secs = mono() - t0;
	ss_remote_free(r);
	return e;
}

/* ---- evaluate ------------------------------------------------------------------------ */

struct eb_part {
	struct ss_part         part;
	struct ss_seg         *segs;
	struct ss_epoch_entry *epochs;
	char                   topic[16];
};

static int add_epoch(struct eb_part *p, uint32_t *cap, int32_t epoch, int64_t start)
{
	if (p->part.n_epochs && p->epochs[p->part.n_epochs - 1].epoch >= epoch)
		return 0;
	if (p->part.n_epochs == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 4;
		struct ss_epoch_entry *ne = realloc(p->epochs, nc * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		p->epochs = ne;
		*cap = nc;
	}
	p->epochs[p->part.n_epochs].epoch = epoch;
	p->epochs[p->part.n_epochs].start_offset = start;
	p->part.n_epochs++;
	return 0;
}

/*
 * The local side of partition pi as a broker would hold it next to its remote state:
 * the leader-epoch lineage taken from the remote segments (so highest_offset derives as
 * on a real broker), then SEGS local segments that start 10 segments below the highest
 * remote offset (those are already copied) and run past it (only local).
 */
static int build_part(const struct eb_opts *o, const struct ss_remote_part *rp, uint32_t pi, struct eb_part *p)
{
	uint32_t cap = 0;
	int64_t hi = -1;
	int e;
	memset(p, 0, sizeof(*p));
	snprintf(p->topic, sizeof(p->topic), "bench%u", pi % EB_TOPICS);
	p->part.topic = p->topic;
	p->part.partition = (int32_t)(pi / EB_TOPICS);
	p->part.epochs_read = true;
	for (uint32_t i = 0; rp && i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		for (uint32_t k = 0; k < s->n_epochs; k++) {
			if ((e = add_epoch(p, &cap, s->epochs[k].epoch, s->epochs[k].start_offset)))
				return e;
		}
		if (s->state == SS_RSEG_COPY_FINISHED && s->end_offset > hi)
			hi = s->end_offset;
	}
	if (p->part.n_epochs == 0 && (e = add_epoch(p, &cap, 0, 0)))
		return e;
	p->part.epochs = p->epochs;
	int64_t start = hi + 1 - 10 * EB_SEGLEN;
	if (start < 0)
		start = 0;
	p->segs = calloc(o->segs, sizeof(*p->segs));
	if (!p->segs)
		return -ENOMEM;
	p->part.seg_count = o->segs;
	for (uint32_t k = 0; k < o->segs; k++) {
		struct ss_seg *s = &p->segs[k];
		s->base_offset = start + (int64_t)k * EB_SEGLEN;
		s->last_offset = s->base_offset + EB_SEGLEN - 1;
		s->flags = SS_SEG_HAS_LAST | (k + 1 == o->segs ? SS_SEG_ACTIVE : 0);
		s->files = SS_HAS_LOG | SS_HAS_INDEX | SS_HAS_TIMEINDEX;
		s->size_bytes = s->valid_bytes = 100 * EB_SEGLEN;
		s->max_timestamp_ms = EB_NOW - (int64_t)(o->segs - k) * 3600000LL;
		s->batches = s->records = -1;
	}
	return 0;
}

static void free_parts(struct eb_part *ps, uint32_t n)
{
	for (uint32_t i = 0; ps && i < n; i++) {
		free(ps[i].segs);
		free(ps[i].epochs);
	}
	free(ps);
}

static int bench_evaluate(const struct eb_opts *o, const struct ss_remote *r, const struct ss_config *cfgs,
			  struct eb_part *ps, struct ss_eval **evs, double *secs)
{
	int e = 0;
	double t0 = mono();
	for (uint32_t i = 0; i < o->parts; i++) {
		struct eb_part *p = &ps[i];
		struct ss_topic_cfg cfg;
		struct ss_eval_input in;
		ss_config_resolve(cfgs, p->part.topic, &cfg);
		memset(&in, 0, sizeof(in));
		in.part = &p->part;
		in.segs = p->segs;
		in.cfg = &cfg;
		in.remote = ss_remote_find(r, p->part.topic, p->part.partition, NULL);
		in.remote_source = "remote-state";
		in.now_ms = EB_NOW;
		in.dangling_after_ms = 3600000;
		if ((e = ss_eval_partition(&in, &evs[i])))
			break;
	}
	*secs = mono() - t0;
	for (uint32_t i = 0; i < o->parts; i++) {
		ss_eval_free(evs[i]);
		evs[i] = NULL;
	}
	return e;
}

static int load_config(struct ss_config **out)
{
	struct eb_buf b = { 0 };
	char err[256];
	int e = ss_config_new(out);
	if (e)
		return e;
	if ((e = buf_reserve(&b, 200 * (EB_TOPICS + 1))))
		goto out;
	b.len += (size_t)sprintf(b.p, "* retention.ms=604800000 retention.bytes=-1 remote.storage.enable=false\n");
	for (unsigned t = 0; t < EB_TOPICS; t++)
		b.len += (size_t)sprintf(b.p + b.len,
					 "bench%u remote.storage.enable=true retention.ms=604800000 "
					 "retention.bytes=2000000 local.retention.ms=86400000 local.retention.bytes=-2\n",
					 t);
	e = ss_config_load_topics_buf(*out, b.p, b.len, "evalbench", err, sizeof(err));
	if (e)
		fprintf(stderr, "evalbench: config: %s\n", err);
out:
	free(b.p);
	return e;
}

static int emit(const char *name, unsigned rep, double secs, const char *units, uint64_t count)
{
	printf("evalbench %s %u %.6f %s %" PRIu64 "\n", name, rep, secs, units, count);
	return fflush(stdout) == 0 ? 0 : -EIO;
}

static void usage(void)
{
	fprintf(stderr, "usage: evalbench [-e EVENTS] [-p PARTS] [-s SEGS] [-r REPS] [-S SEED] [-m LIST]\n"
			"  LIST: replay_synthetic,replay_ndjson,evaluate (default all)\n");
}

int main(int argc, char **argv)
{
	struct eb_opts o = { .events = 1000000, .parts = 100000, .segs = 25, .reps = 5, .seed = 42 };
	struct ss_remote *r = NULL;
	struct ss_config *cfgs = NULL;
	struct eb_part *ps = NULL;
	struct ss_eval **evs = NULL;
	struct eb_buf nd = { 0 };
	double *t = NULL;
	char err[512] = "";
	int opt, e = 0;

	while ((opt = getopt(argc, argv, "e:p:s:r:S:m:h")) != -1) {
		switch (opt) {
		case 'e': o.events = strtoull(optarg, NULL, 10); break;
		case 'p': o.parts = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 's': o.segs = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'r': o.reps = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'S': o.seed = strtoull(optarg, NULL, 10); break;
		case 'm': o.only = optarg; break;
		default: usage(); return 2;
		}
	}
	if (optind != argc || !o.events || !o.parts || !o.segs || !o.reps) {
		usage();
		return 2;
	}
	t = calloc(o.reps, sizeof(*t));
	if (!t) {
		e = -ENOMEM;
		goto out;
	}

	if (wanted(&o, "replay_synthetic")) {
		for (unsigned i = 0; i < o.reps; i++) {
			if ((e = bench_synthetic(&o, &t[i])) ||
			    (e = emit("replay_synthetic", i, t[i], "events", o.events)))
				goto out;
		}
		summary("replay_synthetic", t, o.reps, "events", o.events);
	}

	if (wanted(&o, "replay_ndjson")) {
		if ((e = make_ndjson(&o, &nd)))
			goto out;
		for (unsigned i = 0; i < o.reps; i++) {
			if ((e = bench_ndjson(&nd, &t[i], err, sizeof(err))) ||
			    (e = emit("replay_ndjson", i, t[i], "events", o.events)))
				goto out;
		}
		summary("replay_ndjson", t, o.reps, "events", o.events);
		fprintf(stderr, "evalbench: replay_ndjson input %.1f MiB (%.0f bytes per event)\n",
			(double)nd.len / 1048576.0, (double)nd.len / (double)o.events);
	}

	if (!wanted(&o, "evaluate"))
		goto out;
	/* the state the evaluation runs against: the same synthetic history, replayed once */
	if ((e = ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r)) ||
	    (e = bench_replay_synthetic(r, o.events, o.parts, o.seed)) || (e = load_config(&cfgs)))
		goto out;
	ps = calloc(o.parts, sizeof(*ps));
	evs = calloc(o.parts, sizeof(*evs));
	if (!ps || !evs) {
		e = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < o.parts; i++) {
		char topic[16];
		snprintf(topic, sizeof(topic), "bench%u", i % EB_TOPICS);
		const struct ss_remote_part *rp = ss_remote_find(r, topic, (int32_t)(i / EB_TOPICS), NULL);
		if ((e = build_part(&o, rp, i, &ps[i])))
			goto out;
	}
	for (unsigned i = 0; i < o.reps; i++) {
		if ((e = bench_evaluate(&o, r, cfgs, ps, evs, &t[i])) ||
		    (e = emit("evaluate", i, t[i], "partitions", o.parts)))
			goto out;
	}
	summary("evaluate", t, o.reps, "partitions", o.parts);
out:
	if (e)
		fprintf(stderr, "evalbench: %s%s%s\n", segscan_strerror(e), err[0] ? ": " : "", err);
	free_parts(ps, o.parts);
	free(evs);
	ss_config_free(cfgs);
	ss_remote_free(r);
	free(nd.p);
	free(t);
	return e ? 1 : 0;
}
