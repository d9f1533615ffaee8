/*
 * The public API (include/segscan.h) around the pipeline: the scan handle's life, log
 * dirs, reuse, and the results: accessors and writers read the results view that
 * segscan_run publishes (model/results.h), never the pipeline's state. Options are in
 * lib/options.c, the run in scan/scan.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval/config.h"
#include "eval/remote.h"
#include "lib/options.h"
#include "out/out.h"
#include "scan/scan_int.h"
#include "scan/store_job.h"
#include "source/broker_metrics.h"
#include "source/cluster_ctx.h"

int segscan_scan_new(segscan_scan **out)
{
	if (!out)
		return -EINVAL;
	segscan_scan *s = calloc(1, sizeof(*s));
	int r;
	if (!s)
		return -ENOMEM;
	/* every option's default comes from the option table */
	if ((r = ss_opts_init(&s->opts)) || (r = ss_scan_publish_results(s))) {
		ss_opts_release(&s->opts);
		free(s);
		return r;
	}
	pthread_mutex_init(&s->rate.mu, NULL);  /* destroyed in segscan_scan_free */
	pthread_mutex_init(&s->api_mu, NULL);   /* destroyed in segscan_scan_free */
	atomic_init(&s->state, SS_SCAN_IDLE);
	ss_logsink_init(&s->log, &s->opts.quiet); /* destroyed in segscan_scan_free; no callback yet */
	s->cat.log = &s->log;                   /* discovery reports through the scan's sink */
	*out = s;
	return 0;
}

void segscan_scan_free(segscan_scan *s)
{
	if (!s)
		return;
	ss_store_job_free(s);   /* first: its thread (joined by now) read the remote state */
	ss_scan_dellag_free(s);
	for (uint32_t i = 0; i < s->cat.n_parts; i++)
		if (s->cat.parts[i].eval)
			ss_eval_free(s->cat.parts[i].eval);
	ss_catalog_free(&s->cat);
	ss_cfg_cache_free(s);
	for (unsigned i = 0; i < s->n_rings; i++)
		ss_ring_destroy(&s->rings[i]);
	free(s->rings);
	if (s->remote)
		ss_remote_free(s->remote);
	if (s->config)
		ss_config_free(s->config);
	ss_cluster_ctx_free(s->cluster);
	for (uint32_t i = 0; i < s->n_gauges; i++)
		ss_bm_free(s->gauges[i]);
	free(s->gauges);
	free(s->res_gauges);
	free(s->static_config);
	free(s->static_config_how);
	for (uint32_t i = 0; i < s->n_logdir_paths; i++)
		free(s->logdir_paths[i]);
	free(s->logdir_paths);
	ss_opts_release(&s->opts);
	free(s->reuse_from);
	free(s->winfo);
	free(s->res_logdirs);
	free(s->res_space);
	free(s->res_parts);
	pthread_mutex_destroy(&s->rate.mu);
	pthread_mutex_destroy(&s->api_mu);      /* initialized in segscan_scan_new */
	ss_logsink_destroy(&s->log);            /* initialized in segscan_scan_new */
	free(s);
}

const char *segscan_last_error(const segscan_scan *s)
{
	if (!s)
		return "invalid argument: no scan (NULL)";
	return s->err[0] ? s->err : "no error";
}

int segscan_add_logdir(segscan_scan *s, const char *path)
{
	if (!path)
		return -EINVAL;
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	r = ss_scan_logdir_add(s, path);
	ss_scan_setup_end(s);
	return r;
}

int segscan_set_log(segscan_scan *s, segscan_log_fn fn, void *user, enum segscan_log_level max_level)
{
	if (max_level < SEGSCAN_LOG_ERROR || max_level > SEGSCAN_LOG_DEBUG)
		return -EINVAL;
	/* the pipeline threads read the sink without a lock: it is fixed before they start */
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	s->log.fn = fn;
	s->log.user = user;
	s->log.max_level = max_level;
	ss_scan_setup_end(s);
	return 0;
}

int segscan_reuse(segscan_scan *s, const segscan_scan *prev)
{
	/* prev's results must be complete and stay put: it has run, and is not s */
	if (prev && (prev == s || atomic_load_explicit(&prev->state, memory_order_acquire) != SS_SCAN_DONE))
		return -EINVAL;
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	s->prev = prev;
	s->reusable = true;
	ss_scan_setup_end(s);
	return 0;
}

/* ---- results ------------------------------------------------------------------------- */

int segscan_exit_code(const segscan_scan *s)
{
	int r = ss_scan_readable(s);
	return r ? r : s->res.run.exit_code;
}

size_t segscan_partition_count(const segscan_scan *s)
{
	return ss_scan_readable(s) ? 0 : s->res.n_parts;
}

const segscan_partition *segscan_partition_at(const segscan_scan *s, size_t i)
{
	if (ss_scan_readable(s) || i >= s->res.n_parts)
		return NULL;
	/* segscan_partition is a view of ss_part (its only member) */
	return (const segscan_partition *)&s->res.parts[i];
}

const char *segscan_partition_topic(const segscan_partition *p) { return p ? p->p.topic : NULL; }
int32_t segscan_partition_id(const segscan_partition *p) { return p ? p->p.partition : -EINVAL; }
size_t segscan_partition_segment_count(const segscan_partition *p) { return p ? p->p.seg_count : 0; }
int64_t segscan_partition_size_bytes(const segscan_partition *p)
{
	if (!p)
		return -EINVAL;
	return p->p.eval ? p->p.eval->size_bytes : 0;
}
int64_t segscan_partition_log_end_offset(const segscan_partition *p)
{
	if (!p)
		return -EINVAL;
	return p->p.eval ? p->p.eval->log_end_offset : 0;
}

const char *segscan_partition_log_dir(const segscan_partition *p)
{
	/* the scan owns the log dir strings; the partition knows only its index */
	return p ? p->p.logdir_path : NULL;
}

int segscan_write(const segscan_scan *s, enum segscan_format fmt, FILE *out)
{
	int r = ss_scan_readable(s);
	if (r)
		return r;
	if (!out)
		return -EINVAL;
	switch (fmt) {
	case SEGSCAN_FMT_TABLE: return ss_out_table(&s->res, out);
	case SEGSCAN_FMT_JSON: return ss_out_json(&s->res, out, false);
	case SEGSCAN_FMT_NDJSON: return ss_out_json(&s->res, out, true);
	case SEGSCAN_FMT_PROM: return ss_out_prom(&s->res, out);
	}
	return -EINVAL;
}

int segscan_write_prom(const segscan_scan *s, const struct segscan_counters *c, FILE *out)
{
	int r = ss_scan_readable(s);
	if (r)
		return r;
	if (!c || !out)
		return -EINVAL;
	struct ss_prom_counters pc = {
		.duration_seconds = c->duration_seconds,
		.segments_total = c->segments_total,
		.bytes_read_total = c->bytes_read_total,
		.errors_total = c->errors_total,
	};
	return ss_out_prom_counters(&s->res, out, &pc);
}

int segscan_get_stats(const segscan_scan *s, struct segscan_scan_stats *out)
{
	int r = ss_scan_readable(s);
	if (r)
		return r;
	if (!out)
		return -EINVAL;
	struct ss_summary sum;
	ss_out_summarize(&s->res, &sum);
	out->seconds = s->res.run.times.total;
	out->segments = s->res.n_segs;
	out->segments_reused = s->res.pipeline.reused;
	out->bytes_read = (uint64_t)s->res.run.bytes_read;
	out->errors = (uint64_t)sum.errors;
	return 0;
}

int segscan_write_partition_json(const segscan_scan *s, const segscan_partition *p, FILE *out)
{
	int r = ss_scan_readable(s);
	if (r)
		return r;
	if (!p || !out)
		return -EINVAL;
	ss_out_partition_json(&s->res, &p->p, out);
	return ferror(out) ? -EIO : 0;
}

int segscan_write_stats(const segscan_scan *s, FILE *f)
{
	int r = ss_scan_readable(s);
	if (r)
		return r;
	if (!f)
		return -EINVAL;
	return ss_out_stats(&s->res, f);
}
