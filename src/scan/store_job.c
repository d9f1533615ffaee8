/* --remote-store in the pipeline: see store_job.h. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common/clock.h"
#include "common/search.h"
#include "common/log.h"
#include "eval/audit.h"
#include "eval/remote.h"
#include "fmt/aiven_manifest.h"
#include "fmt/batch.h"
#include "fmt/names.h"
#include "fmt/rlmm.h"
#include "fmt/store_key.h"
#include "fmt/store_uri.h"
#include "scan/scan_int.h"
#include "scan/store_job.h"
#include "source/cluster.h"
#include "source/cluster_ctx.h"
#include "source/cluster_load.h"
#include "source/context.h"
#include "source/remote_topic.h"
#include "source/store.h"

/* A manifest is a few KiB; its chunk list is bounded by the deserializer's 10 MiB. */
#define MANIFEST_MAX ((size_t)32 << 20)
/* Problems listed one by one (manifests that could not be read); then one line counts the rest. */
#define MAX_PROBLEMS 100

struct job_problem {
	char *path, *what;
	int   err;
};

struct ss_store_job {
	struct ss_store_uri     uri;
	enum ss_store_layout    layout;
	char                    name[SS_STORE_URI_MAX + 16];
	struct ss_store        *st;
	struct ss_audit        *audit;
	pthread_t               th;
	bool                    started;
	atomic_bool             stop;      /* the pipeline failed: stop listing */
	atomic_bool             any_stop;  /* set from stop or the scan's cancel (polled by the store) */
	struct segscan_scan    *s;
	int                     r;         /* the listing's outcome */
	char                    err[2400];
	uint64_t                listed, requests;
	double                  t0, seconds;
	struct job_problem     *problems;
	uint32_t                n_problems;
	uint64_t                more_problems;
	/* coverage of partitions without state: */
	int32_t                 np;        /* __remote_log_metadata's partition count, -1 unknown */
	bool                    all_mparts;/* every metadata partition was read */
	uint8_t                *mpart_here;/* metadata-topic: np flags */
	char                    why[256];
	/* results */
	struct ss_res_store     res;
	struct ss_res_store_part *others;
	uint32_t                n_others;
	bool                    attached;
};

static int64_t wall_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int ss_store_job_prepare(struct segscan_scan *s)
{
	if (!s->opts.remote_store)
		return 0;
	struct ss_store_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	s->store_job = j;   /* freed by ss_store_job_free */
	j->s = s;
	j->np = -1;
	char err[256];
	if (ss_store_uri_parse(s->opts.remote_store, &j->uri, err, sizeof(err))) {
		s->usage_error = true;
		snprintf(s->err, sizeof(s->err), "--remote-store=%.600s: %.400s", s->opts.remote_store, err);
		return -EINVAL;
	}
	const char *l = s->opts.remote_layout ? s->opts.remote_layout : "local-tiered-storage";
	j->layout = (enum ss_store_layout)ss_store_layout_parse(l, strlen(l));
	if (j->uri.kind == SS_STORE_S3)
		snprintf(j->name, sizeof(j->name), "s3://%s/%s", j->uri.bucket, j->uri.prefix);
	else
		snprintf(j->name, sizeof(j->name), "file://%s", j->uri.path);
	j->res.uri = j->name;
	j->res.layout = ss_store_layout_name(j->layout);
	return 0;
}

/* ---- which partitions the metadata can speak for ---- */

static bool coverage(void *arg, const char *topic, int32_t partition, const uint8_t topic_id[16], bool has_state,
		     const char **why)
{
	struct ss_store_job *j = arg;
	const struct segscan_scan *s = j->s;
	if (!s->remote_source) {
		*why = "no remote metadata was read (a --remote-state file, --bootstrap-server, or the broker's "
		       "__remote_log_metadata partitions in the scanned log dirs give it)";
		return false;
	}
	char twhy[8];
	if (s->remote_taint && ss_remote_taint_concerns(s->remote_taint, topic_id, partition, twhy, sizeof(twhy))) {
		*why = "its metadata partition has a batch that fails its CRC: its remote state is unknown";
		return false;
	}
	(void)topic;
	if (has_state)
		return true;
	if (!strcmp(s->remote_source, SS_SOURCE_REMOTE_STATE)) {
		*why = "the --remote-state file has no event for it";
		return false;
	}
	if (!strcmp(s->remote_source, SS_SOURCE_CLUSTER)) {
		if (j->all_mparts)
			return true;
		*why = "its metadata partition was not read from the cluster";
		return false;
	}
	/* the local metadata topic: known empty only if its metadata partition is here */
	if (j->np <= 0) {
		*why = "the partition count of __remote_log_metadata is unknown, so the metadata partition that "
		       "would hold this partition's events cannot be told";
		return false;
	}
	int32_t m = ss_rlmm_metadata_partition(topic_id, partition, j->np);
	if (m >= 0 && m < j->np && j->mpart_here[m])
		return true;
	*why = "its __remote_log_metadata partition is not in the scanned log dirs (another broker hosts it; "
	       "--bootstrap-server reads the whole topic)";
	return false;
}

/* The local __remote_log_metadata-N dirs: which N, and the partition count (the metadata
 * log's, else 0..n-1 when the dirs are exactly those, as the replay derives it). */
static int local_mparts(struct ss_store_job *j)
{
	const struct segscan_scan *s = j->s;
	int32_t np = s->cluster ? s->cluster->rlmm_partitions : -1;
	int32_t maxp = -1;
	for (uint32_t i = 0; i < s->cat.n_rlmm_dirs; i++) {
		const char *d = s->cat.rlmm_dirs[i], *sl = strrchr(d, '/');
		struct ss_dirname dn;
		if (!ss_dirname_parse(sl ? sl + 1 : d, &dn) && dn.partition > maxp)
			maxp = dn.partition;
	}
	if (np <= 0 && maxp >= 0 && (uint32_t)maxp + 1 == s->cat.n_rlmm_dirs)
		np = maxp + 1;
	if (np <= 0)
		return 0;
	if (!(j->mpart_here = calloc((size_t)np, 1)))
		return -ENOMEM;
	j->np = np;
	for (uint32_t i = 0; i < s->cat.n_rlmm_dirs; i++) {
		const char *d = s->cat.rlmm_dirs[i], *sl = strrchr(d, '/');
		struct ss_dirname dn;
		if (!ss_dirname_parse(sl ? sl + 1 : d, &dn) && dn.partition >= 0 && dn.partition < np)
			j->mpart_here[dn.partition] = 1;
	}
	return 0;
}

/* ---- the listing thread ---- */

/* An object's name in errors: for s3:// the bucket, then the whole key (the prefix is taken
 * raw: j->name already ends in it); for file:// the directory, a slash, the key. */
static void object_path(const struct ss_store_job *j, const char *key, char *out, size_t cap)
{
	snprintf(out, cap, j->uri.kind == SS_STORE_S3 ? "%s%s" : "%s/%s", j->name, key);
}

static void problem(struct ss_store_job *j, const char *path, int err, const char *what)
{
	if (j->n_problems >= MAX_PROBLEMS) {
		j->more_problems++;
		return;
	}
	struct job_problem *n = realloc(j->problems, (j->n_problems + 1) * sizeof(*n));
	if (!n)
		return;
	j->problems = n;
	n[j->n_problems] = (struct job_problem){ .path = strdup(path), .what = strdup(what), .err = err };
	if (n[j->n_problems].path && n[j->n_problems].what)
		j->n_problems++;
	else
		free(n[j->n_problems].path), free(n[j->n_problems].what);
}

static int on_object(void *arg, const char *key, size_t len, int64_t size)
{
	struct ss_store_job *j = arg;
	int r = ss_audit_object(j->audit, key, len, size);
	if (r == -EPROTO)
		snprintf(j->err, sizeof(j->err), "%s", ss_audit_error(j->audit));
	j->listed++;
	return r;
}

/* The manifests the join asked for since the last page (aiven). */
static int read_manifests(struct ss_store_job *j)
{
	uint32_t n = ss_audit_manifest_count(j->audit);
	for (uint32_t i = 0; i < n; i++) {
		const char *key = ss_audit_manifest_key(j->audit, i);
		char *buf = NULL, err[600] = "";
		size_t len = 0;
		int r = ss_store_get(j->st, key, MANIFEST_MAX, &buf, &len, err, sizeof(err));
		if (r == -ECANCELED || r == -ENOMEM) {
			free(buf);
			return r;
		}
		struct ss_aiven_manifest m;
		char path[SS_STORE_URI_MAX + 1100];
		object_path(j, key, path, sizeof(path));
		if (!r) {
			r = ss_aiven_manifest_parse(buf, len, &m, err, sizeof(err));
			if (r)
				problem(j, path, r, err);
		} else {
			problem(j, path, r, err);
		}
		free(buf);
		if ((r = ss_audit_manifest(j->audit, i, r ? NULL : &m, r ? err : NULL)))
			return r;
	}
	ss_audit_manifest_clear(j->audit);
	return 0;
}

/* --deep: one .log object streamed through the segment walker (fmt/batch.h), as --verify
 * reads a local segment: every batch's CRC, the framing, and the offsets it holds against
 * the metadata's. */
struct deep {
	struct ss_walk w;
	uint8_t       *buf;     /* file bytes [at, at + len) */
	int64_t        at;
	size_t         len, cap;
	int64_t        got;     /* bytes streamed */
};

static void deep_run(struct deep *d, bool end)
{
	while (!ss_walk_done(&d->w)) {
		int64_t need = d->w.want_len;
		if (d->w.want_pos + need > d->w.file_size)
			need = d->w.file_size - d->w.want_pos;
		int64_t have = d->at + (int64_t)d->len - d->w.want_pos;
		if (d->w.want_pos < d->at || (!end && have < need))
			break;
		size_t off = (size_t)(d->w.want_pos - d->at);
		ss_walk_feed(&d->w, d->w.want_pos, d->buf + off, (size_t)(have > 0 ? have : 0));
		/* what is before the next position is done with */
		if (!ss_walk_done(&d->w) && d->w.want_pos > d->at) {
			size_t drop = (size_t)(d->w.want_pos - d->at);
			if (drop > d->len)
				drop = d->len;
			memmove(d->buf, d->buf + drop, d->len - drop);
			d->len -= drop;
			d->at += (int64_t)drop;
		}
		if (end && have <= 0)
			break;
	}
}

static int deep_data(void *arg, const void *p, size_t n)
{
	struct deep *d = arg;
	d->got += (int64_t)n;
	if (ss_walk_done(&d->w))
		return 0;   /* the walk has its answer: the rest is only counted */
	if (d->len + n > d->cap) {
		size_t nc = d->cap ? d->cap : (size_t)SS_WALK_WHOLE_MAX * 2;
		while (nc < d->len + n)
			nc *= 2;
		uint8_t *nb = realloc(d->buf, nc);
		if (!nb)
			return -ENOMEM;
		d->buf = nb;
		d->cap = nc;
	}
	memcpy(d->buf + d->len, p, n);
	d->len += n;
	deep_run(d, false);
	return 0;
}

static int read_deep(struct ss_store_job *j)
{
	uint32_t n = ss_audit_deep_count(j->audit);
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_audit_deep *q = ss_audit_deep_at(j->audit, i);
		char path[SS_STORE_URI_MAX + 1100], err[600] = "", what[800];
		object_path(j, q->key, path, sizeof(path));
		struct deep d = { .at = 0 };
		ss_walk_init(&d.w, q->start_offset, q->size, 0, true);
		int r = ss_store_read(j->st, q->key, deep_data, &d, err, sizeof(err));
		if (!r)
			deep_run(&d, true);
		free(d.buf);
		if (r == -ECANCELED || r == -ENOMEM)
			return r;
		if (r) {
			problem(j, path, r, err);
			continue;
		}
		const struct ss_walk *w = &d.w;
		if (d.got != q->size)
			snprintf(what, sizeof(what), "--deep: %lld bytes read where the listing said %lld",
				 (long long)d.got, (long long)q->size);
		else if (w->err)
			snprintf(what, sizeof(what), "--deep: at byte %lld: %s", (long long)w->err_pos, segscan_strerror(w->err));
		else if (w->crc_errors)
			snprintf(what, sizeof(what), "--deep: %lld batches fail their CRC, the first at byte %lld",
				 (long long)w->crc_errors, (long long)w->crc_first_pos);
		else if (w->truncated_bytes)
			snprintf(what, sizeof(what), "--deep: the last %lld bytes are not a whole batch",
				 (long long)w->truncated_bytes);
		else if (w->first_base != q->start_offset || w->last_offset != q->end_offset)
			snprintf(what, sizeof(what), "--deep: the object holds offsets %lld..%lld, the metadata says %lld..%lld",
				 (long long)w->first_base, (long long)w->last_offset, (long long)q->start_offset,
				 (long long)q->end_offset);
		else
			continue;
		problem(j, path, d.got != q->size ? -EIO : w->err ? w->err : SEGSCAN_ECRC, what);
	}
	ss_audit_deep_clear(j->audit);
	return 0;
}

static int on_page(void *arg, uint64_t listed)
{
	struct ss_store_job *j = arg;
	ss_progress(&j->s->log, SEGSCAN_PHASE_REMOTE_STORE, SEGSCAN_UNIT_ITEMS, "objects", listed, 0);
	int r = read_manifests(j);
	return r ? r : read_deep(j);
}

static void *job_main(void *arg)
{
	struct ss_store_job *j = arg;
	pthread_setname_np(pthread_self(), "segscan-store");
	j->r = ss_store_list(j->st, on_object, on_page, j, j->err, sizeof(j->err));
	int e = ss_audit_end_listing(j->audit, j->r == 0);
	if (!e && j->r != -ECANCELED)
		e = read_manifests(j);
	if (!e && j->r != -ECANCELED)
		e = read_deep(j);
	if (e && !j->r)
		j->r = e;
	ss_progress_end(&j->s->log, SEGSCAN_PHASE_REMOTE_STORE, SEGSCAN_UNIT_ITEMS, "objects", j->listed, j->listed);
	j->seconds = ss_mono() - j->t0;
	return NULL;
}

int ss_store_job_start(struct segscan_scan *s)
{
	struct ss_store_job *j = s->store_job;
	int r;
	if (!j)
		return 0;
	if (s->remote_source && !strcmp(s->remote_source, SS_SOURCE_METADATA_TOPIC) && (r = local_mparts(j)))
		return r;
	j->all_mparts = s->remote_source && !strcmp(s->remote_source, SS_SOURCE_CLUSTER) && s->remote_all_mparts;
	const struct ss_audit_cfg cfg = {
		.layout = j->layout,
		.remote = s->remote,
		.now_ms = s->opts.has_now ? s->opts.now_ms : wall_ms(),
		.dangling_after_ms = s->opts.dangling_after_ms,
		.coverage = coverage,
		.coverage_arg = j,
		.deep = s->opts.store_deep,
	};
	if (s->opts.store_deep && j->layout == SS_LAYOUT_AIVEN)
		ss_logmsg(&s->log, SEGSCAN_LOG_WARNING,
			  "--deep reads the .log objects of the local-tiered-storage layout only: Aiven's are chunked and "
			  "may be compressed or encrypted; the audit reads their manifests, not their data");
	if ((r = ss_audit_new(&cfg, &j->audit)))
		return r;
	/* the store polls both: the scan's cancel (a signal) and our stop (the pipeline failed) */
	const struct ss_store_env env = { .cancel = &s->cancel, .stop = &j->stop, .rate = s->opts.store_rate };
	char err[1200] = "";
	j->t0 = ss_mono();
	r = ss_store_open(&j->uri, &env, &j->st, err, sizeof(err));
	if (r == -EINVAL || r == -EACCES) {
		/* the URI's or the credentials file's: the operator's to fix */
		s->usage_error = true;
		snprintf(s->err, sizeof(s->err), "--remote-store=%.400s: %.600s", j->name, err);
		return -EINVAL;
	}
	if (r == -ENOMEM)
		return r;
	if (r) {
		/* the store cannot be read at all: nothing is compared, the scan exits 1 */
		j->r = r;
		snprintf(j->err, sizeof(j->err), "%s", err);
		ss_audit_end_listing(j->audit, false);
		return 0;
	}
	if (pthread_create(&j->th, NULL, job_main, j))
		return -EAGAIN;
	j->started = true;   /* joined by ss_store_job_finish */
	return 0;
}

/* ---- after the pipeline ---- */

static int ignore_warn(void *arg, const char *path, int32_t mpart, int64_t offset, int64_t file_pos, int err,
		       const char *msg)
{
	(void)arg; (void)path; (void)mpart; (void)offset; (void)file_pos; (void)err; (void)msg;
	return 0;   /* the first replay reported them */
}

/* The metadata again, read after the listing: what changed while the store was listed
 * is not taken for a fault. NULL in *out when there is no second source to read. */
static int second_replay(struct segscan_scan *s, struct ss_remote **out)
{
	int r;
	*out = NULL;
	if (!s->remote_source)
		return 0;
	if (!strcmp(s->remote_source, SS_SOURCE_METADATA_TOPIC)) {
		struct ss_remote *m1;
		struct ss_remote_topic_stats st;
		if ((r = ss_remote_new(SS_REMOTE_KAFKA, SS_SOURCE_METADATA_TOPIC, &m1)))
			return r;
		r = ss_remote_topic_replay(m1, (const char *const *)s->cat.rlmm_dirs, s->cat.n_rlmm_dirs,
					   s->cluster ? s->cluster->rlmm_partitions : 0, ignore_warn, NULL, &st, NULL);
		if (r) {
			ss_remote_free(m1);
			return r;
		}
		*out = m1;
		return 0;
	}
	if (!strcmp(s->remote_source, SS_SOURCE_CLUSTER)) {
		/* the same loader again, into its own result (the scan's state untouched) */
		struct ss_cluster_loaded got;
		char err[512];
		r = ss_scan_cluster_read(s, &got, err, sizeof(err));
		ss_remote_taint_free(got.taint);
		struct ss_remote *m1 = got.remote;
		if (r) {
			ss_remote_free(m1);
			return r;
		}
		*out = m1;
	}
	return 0;
}

static int cmp_ptr(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(const void *const *)x, b = (uintptr_t)*(const void *const *)y;
	return a < b ? -1 : a > b;
}

static int attach(struct segscan_scan *s, struct ss_store_job *j)
{
	const struct ss_audit_part **used = NULL;
	uint32_t n_used = 0;
	int r = 0;
	if (s->cat.n_parts && !(used = calloc(s->cat.n_parts, sizeof(*used))))
		return -ENOMEM;
	for (uint32_t i = 0; i < s->cat.n_parts; i++) {
		struct ss_part *p = &s->cat.parts[i];
		if (!p->eval)
			continue;
		const char *why = NULL;
		const struct ss_audit_part *ap = ss_audit_for_partition(j->audit, p->topic, p->partition,
									p->has_topic_id ? p->topic_id : NULL, &why);
		const struct ss_audit_part *any = ap ? ap : ss_audit_find(j->audit, p->topic, p->partition,
									  p->has_topic_id ? p->topic_id : NULL);
		if (any)
			used[n_used++] = any;
		if ((r = ss_audit_attach(j->audit, ap, why, p->eval)))
			goto out;
	}
	if (n_used > 1)
		qsort(used, n_used, sizeof(*used), cmp_ptr);
	/* the store's and the metadata's partitions no reported partition is: said once, at
	 * the store's level (another broker's replicas, a deleted topic's leftovers) */
	uint32_t n = ss_audit_part_count(j->audit);
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_audit_part *ap = ss_audit_part_at(j->audit, i);
		if (ss_sorted_find(used, n_used, sizeof(*used), cmp_ptr, &ap, NULL) >= 0)
			continue;
		if (!ap->in_store && !ap->n_items)
			continue;   /* nothing there and nothing missing: nothing to say */
		struct ss_eval *ev = calloc(1, sizeof(*ev));
		if (!ev) {
			r = -ENOMEM;
			goto out;
		}
		struct ss_res_store_part *o = realloc(j->others, (j->n_others + 1) * sizeof(*o));
		if (!o) {
			free(ev);
			r = -ENOMEM;
			goto out;
		}
		j->others = o;
		o[j->n_others++] = (struct ss_res_store_part){ .ap = ap, .ev = ev };
		if ((r = ss_audit_attach(j->audit, ap, ap->why_not, ev)))
			goto out;
	}
out:
	free(used);
	return r;
}

int ss_store_job_finish(struct segscan_scan *s, bool ok)
{
	struct ss_store_job *j = s->store_job;
	int r = 0;
	if (!j || !j->audit)
		return 0;
	if (!ok)
		atomic_store_explicit(&j->stop, true, memory_order_relaxed);
	if (j->started) {
		pthread_join(j->th, NULL);   /* started by ss_store_job_start */
		j->started = false;
	}
	j->requests = j->st ? ss_store_requests(j->st) : 0;
	ss_store_close(j->st);
	j->st = NULL;
	if (!ok)
		return 0;
	for (uint32_t i = 0; i < j->n_problems; i++)
		if ((r = ss_catalog_problem(&s->cat, j->problems[i].path, j->problems[i].err, -1, true, "%s",
					    j->problems[i].what)))
			return r;
	if (j->more_problems &&
	    (r = ss_catalog_problem(&s->cat, j->name, -EIO, -1, true, "%llu more objects of the store could not be read",
				    (unsigned long long)j->more_problems)))
		return r;
	if (j->r == -ECANCELED)
		return 0;
	if (j->r) {
		const struct ss_audit_totals *t = ss_audit_totals(j->audit);
		char last[1100];
		if (t->last_key[0])
			snprintf(last, sizeof(last), "after the key '%s'", t->last_key);
		else
			snprintf(last, sizeof(last), "before any key");
		if ((r = ss_catalog_problem(&s->cat, j->name, j->r, -1, true,
					    "the listing of the remote store stopped %s: %s; the partitions it had not "
					    "compared are unknown (null)",
					    last, j->err[0] ? j->err : segscan_strerror(j->r))))
			return r;
		snprintf(j->err, sizeof(j->err), "%s", segscan_strerror(j->r));
		j->res.error = j->err;
	}
	struct ss_remote *m1 = NULL;
	if (ss_audit_suspects(j->audit) && (r = second_replay(s, &m1))) {
		if (r == -ENOMEM)
			return r;
		ss_logmsg(&s->log, SEGSCAN_LOG_WARNING,
			  "%s: the remote metadata could not be read again after the listing (%s): what looks wrong "
			  "is reported as the first reading says",
			  j->name, segscan_strerror(r));
		m1 = NULL;
	}
	r = ss_audit_confirm(j->audit, m1);
	ss_remote_free(m1);
	if (r)
		return r;
	j->res.totals = ss_audit_totals(j->audit);
	j->res.requests = j->requests;
	j->res.seconds = j->seconds;
	if ((r = attach(s, j)))
		return r;
	j->res.others = j->others;
	j->res.n_others = j->n_others;
	j->attached = true;
	return 0;
}

const struct ss_res_store *ss_store_job_results(const struct segscan_scan *s)
{
	return s->store_job ? &s->store_job->res : NULL;
}

void ss_store_job_free(struct segscan_scan *s)
{
	struct ss_store_job *j = s->store_job;
	if (!j)
		return;
	if (j->started) {
		atomic_store_explicit(&j->stop, true, memory_order_relaxed);
		pthread_join(j->th, NULL);   /* started by ss_store_job_start */
	}
	ss_store_close(j->st);
	for (uint32_t i = 0; i < j->n_others; i++)
		ss_eval_free((struct ss_eval *)j->others[i].ev);
	free(j->others);
	for (uint32_t i = 0; i < j->n_problems; i++)
		free(j->problems[i].path), free(j->problems[i].what);
	free(j->problems);
	free(j->mpart_here);
	ss_audit_free(j->audit);
	free(j);
	s->store_job = NULL;
}
