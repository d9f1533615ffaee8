/*
 * The public API's detailed result accessors (include/segscan.h, "Results in detail"):
 * segments, remote state, lags, retention, findings, errors, config and the broker, read
 * from the results view (model/results.h) that segscan_run publishes. Each value is
 * what out/json.c prints for the same field, with its null cases: tests/test_api.c
 * checks every one against the json the same scan writes.
 *
 * Nothing here writes to the scan, so any number of threads may call these at once
 * after segscan_run returns.
 */
#include <errno.h>
#include <string.h>

#include "model/results.h"
#include "scan/scan_int.h"
#include "segscan.h"

/* The versioned-struct convention: the caller's `size` says how much of our struct it
 * knows; copy only that much and keep its size. Every struct's first version is its
 * current size, so a smaller one is a caller error. */
static int fill(void *out, const void *full, size_t full_size)
{
	size_t want;
	if (!out)
		return -EINVAL;
	memcpy(&want, out, sizeof(want));
	if (want < full_size)
		return -EINVAL;
	memcpy(out, full, full_size);
	memcpy(out, &want, sizeof(want));
	return 0;
}

static const struct ss_part *part_of(const segscan_partition *p)
{
	return p ? &p->p : NULL;
}

/* json prints remote, lags and retention only for an evaluated, readable partition */
static const struct ss_eval *eval_known(const segscan_partition *p)
{
	const struct ss_part *pt = part_of(p);
	return pt && pt->eval && !pt->unreadable ? pt->eval : NULL;
}

/* The evaluation an accessor reads: -EINVAL for a NULL argument, -ENODATA when the
 * partition was not evaluated (unreadable, or not yet). */
static int eval_for(const segscan_partition *p, const void *out, const struct ss_eval **ev)
{
	if (!p || !out)
		return -EINVAL;
	*ev = eval_known(p);
	return *ev ? 0 : -ENODATA;
}

int segscan_partition_segment(const segscan_scan *s, const segscan_partition *p, size_t i,
			      struct segscan_segment *out)
{
	const struct ss_part *pt = part_of(p);
	int rr = ss_scan_readable(s);
	if (rr)
		return rr;
	if (!pt || !out)
		return -EINVAL;
	if (i >= pt->seg_count)
		return -ENOENT;
	const struct ss_seg *sg = &s->res.segs[pt->seg_first + i];
	bool has_last = sg->flags & SS_SEG_HAS_LAST, failed = ss_res_seg_failed(sg);
	struct segscan_segment v = {
		.size = sizeof(v),
		.base_offset = sg->base_offset,
		.last_offset = has_last ? sg->last_offset : -1,
		/* the same null rules as out/json.c's segment object */
		.has_last_offset = has_last,
		.has_end_offset = !(sg->flags & SS_SEG_ACTIVE) || has_last,
		.has_size_bytes = !(failed && ss_seg_size_unknown(sg)),
		.size_bytes = sg->size_bytes,
		.valid_bytes = sg->valid_bytes,
		.max_timestamp_ms = sg->max_timestamp_ms >= 0 ? sg->max_timestamp_ms : -1,
		.error = failed ? ss_seg_err(sg) : 0,
		.only_local = pt->eval && pt->eval->only_local_null ? -1 : !!(sg->flags & SS_SEG_ONLY_LOCAL),
		.active = sg->flags & SS_SEG_ACTIVE,
		.preallocated = sg->flags & SS_SEG_PREALLOCATED,
	};
	v.end_offset = v.has_end_offset ? sg->end_offset : -1;
	return fill(out, &v, sizeof(v));
}

int segscan_partition_remote(const segscan_partition *p, struct segscan_remote *out)
{
	const struct ss_eval *ev;
	int e = eval_for(p, out, &ev);
	if (e)
		return e;
	struct segscan_remote v = {
		.size = sizeof(v),
		.seeded = ev->seeded,
		.remote_state_unknown = ev->remote_state_unknown,
		.highest_offset = ev->seeded ? ev->highest_offset : -1,
		.source = ev->source,
		/* json's nulls: what no source gives is -1 with counts_unknown, never 0 */
		.segments = ev->remote_unknown ? -1 : ev->remote_segments,
		.size_bytes = ev->remote_unknown ? -1 : ev->remote_bytes,
		.dangling_segments = ev->remote_unknown ? -1 : ev->dangling_segments,
		.dangling_bytes = ev->remote_unknown ? -1 : ev->dangling_bytes,
		.counts_unknown = ev->remote_unknown,
	};
	return fill(out, &v, sizeof(v));
}

int segscan_partition_lag(const segscan_partition *p, enum segscan_lag which, int64_t *segments, int64_t *bytes)
{
	const struct ss_eval *ev = eval_known(p);
	bool null;
	int64_t sg, b;
	if (!p)
		return -EINVAL;
	switch (which) {
	case SEGSCAN_LAG_ONLY_LOCAL:
		if (!ev)
			return -ENODATA;
		null = ev->only_local_null, sg = ev->only_local_segments, b = ev->only_local_bytes;
		break;
	case SEGSCAN_LAG_COPY:
		if (!ev)
			return -ENODATA;
		null = ev->copy_lag_null, sg = ev->copy_lag_segments, b = ev->copy_lag_bytes;
		break;
	case SEGSCAN_LAG_BROKER_COPY:
		if (!ev)
			return -ENODATA;
		null = ev->broker_copy_lag_null, sg = ev->broker_copy_lag_segments, b = ev->broker_copy_lag_bytes;
		break;
	default:
		return -EINVAL;
	}
	if (null)
		return -ENODATA;
	if (segments)
		*segments = sg;
	if (bytes)
		*bytes = b;
	return 0;
}

int segscan_partition_retention(const segscan_partition *p, enum segscan_retention_kind kind,
				struct segscan_retention *out)
{
	const struct ss_eval *ev = eval_known(p);
	const struct ss_retention *r;
	if (!p || !out)
		return -EINVAL;
	switch (kind) {
	case SEGSCAN_RETENTION_SIZE: r = ev ? &ev->size : NULL; break;
	case SEGSCAN_RETENTION_TIME: r = ev ? &ev->time : NULL; break;
	case SEGSCAN_RETENTION_LOCAL: r = ev ? &ev->local : NULL; break;
	default: return -EINVAL;
	}
	if (!r)
		return -ENODATA;
	struct segscan_retention v = {
		.size = sizeof(v),
		.evaluated = r->evaluated,
		/* json's reason: null when evaluated, never null otherwise */
		.reason = r->evaluated ? NULL : (r->reason ? r->reason : "not evaluated"),
		.delete_segments = r->n_delete,
		.delete_bytes = r->delete_bytes,
	};
	return fill(out, &v, sizeof(v));
}

int segscan_partition_retention_total(const segscan_partition *p, struct segscan_retention_total *out)
{
	const struct ss_eval *ev;
	int e = eval_for(p, out, &ev);
	if (e)
		return e;
	const struct ss_retention_total *t = &ev->total;
	bool known = !t->unknown;
	/* out/json.c write_total: an unknown total lists nothing and has null amounts */
	struct segscan_retention_total v = {
		.size = sizeof(v),
		.evaluated = known,
		.reason = known ? NULL : (t->reason ? t->reason : "not evaluated"),
		.delete_segments = known ? (uint64_t)t->n_remote + t->n_local : 0,
		.remote_segments = known ? t->n_remote : 0,
		.local_segments = known ? t->n_local : 0,
		.delete_bytes = known ? t->local_bytes + t->remote_bytes : -1,
		.local_bytes_freed = known ? t->local_bytes : -1,
		.remote_bytes_freed = known ? t->remote_bytes : -1,
	};
	return fill(out, &v, sizeof(v));
}

size_t segscan_partition_finding_count(const segscan_partition *p)
{
	/* an unreadable partition's json findings are [] whatever the evaluator said */
	const struct ss_eval *ev = eval_known(p);
	return ev ? ev->n_findings : 0;
}

int segscan_partition_finding(const segscan_partition *p, size_t i, struct segscan_finding *out)
{
	if (!p || !out)
		return -EINVAL;
	if (i >= segscan_partition_finding_count(p))
		return -ENOENT;
	const struct ss_finding *fd = &eval_known(p)->findings[i];
	struct segscan_finding v = {
		.size = sizeof(v),
		.code = fd->code,
		.ref = fd->ref ? fd->ref : "",
		.message = fd->message ? fd->message : "",
		.has_amount = fd->has_amount,
		.segments = fd->has_amount ? fd->segments : 0,
		.bytes = fd->has_amount ? fd->bytes : 0,
	};
	return fill(out, &v, sizeof(v));
}

/* ---- errors: the places out/json.c's write_part_errors lists, in its order ----------- */

static int copy_out(char *buf, size_t len, const char *text)
{
	if (!buf || !len)
		return text[0] ? -ERANGE : 0;
	size_t n = strlen(text);
	if (n >= len) {
		memcpy(buf, text, len - 1);
		buf[len - 1] = 0;
		return -ERANGE;
	}
	memcpy(buf, text, n + 1);
	return 0;
}

/* A failed segment's file (log dir + relative path) and message, as out/json.c's
 * seg_error_text and write_errors write them. */
static void seg_error(const struct ss_results *r, const struct ss_seg *sg, char *rel, size_t rel_len, char *path,
		      size_t path_len, char *msg, size_t msg_len)
{
	ss_res_seg_errfile(r, sg, rel, rel_len);
	snprintf(path, path_len, "%s/%s", ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)), rel);
	if (ss_seg_err_pos(sg) >= 0)
		snprintf(msg, msg_len, "%s at byte %lld: %s", rel, (long long)ss_seg_err_pos(sg),
			 segscan_strerror(ss_seg_err(sg)));
	else
		snprintf(msg, msg_len, "%s: %s", rel, segscan_strerror(ss_seg_err(sg)));
}

size_t segscan_partition_error_count(const segscan_scan *s, const segscan_partition *p)
{
	if (ss_scan_readable(s) || !p)
		return 0;
	const struct ss_results *r = &s->res;
	const struct ss_part *pt = part_of(p);
	size_t n = 0;
	for (uint32_t i = 0; i < r->n_problems; i++)
		if (ss_res_problem_of(r, pt, r->problems[i].path))
			n++;
	for (uint32_t k = 0; k < pt->seg_count; k++)
		if (ss_res_seg_failed(&r->segs[pt->seg_first + k]))
			n++;
	return n;
}

int segscan_partition_error(const segscan_scan *s, const segscan_partition *p, size_t i, char *file,
			    size_t file_len, char *message, size_t message_len)
{
	int rr = ss_scan_readable(s);
	if (rr)
		return rr;
	if (!p)
		return -EINVAL;
	const struct ss_results *r = &s->res;
	const struct ss_part *pt = part_of(p);
	char rel[320], path[4096], msg[512];
	int a, b;

	for (uint32_t k = 0; k < r->n_problems; k++) {
		const struct ss_problem *pr = &r->problems[k];
		if (!ss_res_problem_of(r, pt, pr->path) || i-- != 0)
			continue;
		a = copy_out(file, file_len, pr->path);
		b = copy_out(message, message_len, pr->what ? pr->what : "");
		return a ? a : b;
	}
	for (uint32_t k = 0; k < pt->seg_count; k++) {
		const struct ss_seg *sg = &r->segs[pt->seg_first + k];
		if (!ss_res_seg_failed(sg) || i-- != 0)
			continue;
		seg_error(r, sg, rel, sizeof(rel), path, sizeof(path), msg, sizeof(msg));
		a = copy_out(file, file_len, path);
		b = copy_out(message, message_len, msg);
		return a ? a : b;
	}
	return -ENOENT;
}

int segscan_partition_config(const segscan_partition *p, const char *key, const char **value, const char **source)
{
	if (!p || !key)
		return -EINVAL;
	const struct ss_eval *ev = part_of(p)->eval;  /* json prints config even when unreadable */
	for (uint32_t i = 0; ev && i < ev->n_config; i++) {
		if (strcmp(ev->config[i].key, key))
			continue;
		if (value) /* NULL where json prints null: a value nothing said (eval.h) */
			*value = (ev->config_value_unknown >> i) & 1 ? NULL : ev->config[i].value;
		if (source)
			*source = ev->config[i].source;
		return 0;
	}
	return -ENOENT;
}

int segscan_get_broker(const segscan_scan *s, struct segscan_broker *out)
{
	int rr = ss_scan_readable(s);
	if (rr)
		return rr;
	const struct ss_res_cluster *c = &s->res.cluster;
	struct segscan_broker v = {
		.size = sizeof(v),
		.node_id = c->node_id >= 0 ? c->node_id : -1,
		.cluster_id = c->cluster_id,
		.kafka_version = c->kafka_version,
		.kafka_version_source = c->kafka_version_source,
	};
	return fill(out, &v, sizeof(v));
}

/* ---- the report's own errors[] and log dirs ------------------------------------------ */

/* out/json.c write_errors: every problem, then every failed segment (of every partition,
 * the filtered-out ones too: r->segs holds them all). */
size_t segscan_error_count(const segscan_scan *s)
{
	if (ss_scan_readable(s))
		return 0;
	const struct ss_results *r = &s->res;
	size_t n = r->n_problems;
	for (uint32_t i = 0; i < r->n_segs; i++)
		n += ss_res_seg_failed(&r->segs[i]);
	return n;
}

int segscan_error(const segscan_scan *s, size_t i, char *file, size_t file_len, char *message, size_t message_len)
{
	int rr = ss_scan_readable(s);
	if (rr)
		return rr;
	const struct ss_results *r = &s->res;
	char rel[320], path[4096], msg[512];
	int a, b;
	if (i < r->n_problems) {
		const struct ss_problem *pr = &r->problems[i];
		a = copy_out(file, file_len, pr->path);
		b = copy_out(message, message_len, pr->what ? pr->what : "");
		return a ? a : b;
	}
	i -= r->n_problems;
	for (uint32_t k = 0; k < r->n_segs; k++) {
		const struct ss_seg *sg = &r->segs[k];
		if (!ss_res_seg_failed(sg) || i-- != 0)
			continue;
		seg_error(r, sg, rel, sizeof(rel), path, sizeof(path), msg, sizeof(msg));
		a = copy_out(file, file_len, path);
		b = copy_out(message, message_len, msg);
		return a ? a : b;
	}
	return -ENOENT;
}

size_t segscan_logdir_count(const segscan_scan *s)
{
	return ss_scan_readable(s) ? 0 : s->res.n_logdirs;
}

int segscan_logdir(const segscan_scan *s, size_t i, struct segscan_logdir *out)
{
	int rr = ss_scan_readable(s);
	if (rr)
		return rr;
	if (!out)
		return -EINVAL;
	if (i >= s->res.n_logdirs)
		return -ENOENT;
	const struct ss_res_logdir *l = &s->res.logdirs[i];
	struct segscan_logdir v = {
		.size = sizeof(v),
		.path = l->path,
		.error = l->err,
	};
	return fill(out, &v, sizeof(v));
}
