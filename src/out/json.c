/*
 * json and ndjson reports. Field names are the contract's (docs/contract.md, Output); every
 * partition object is written by one function so both formats stay identical.
 */
#include <errno.h>
#include <string.h>

#include "fmt/names.h"
#include "out/jw.h"
#include "out/out.h"
#include "segscan.h"

static void seg_error_text(const struct ss_results *r, const struct ss_seg *sg, char *buf, size_t len)
{
	char rel[320];
	ss_res_seg_errfile(r, sg, rel, sizeof(rel));
	if (ss_seg_err_pos(sg) >= 0)
		snprintf(buf, len, "%s at byte %lld: %s", rel, (long long)ss_seg_err_pos(sg), segscan_strerror(ss_seg_err(sg)));
	else
		snprintf(buf, len, "%s: %s", rel, segscan_strerror(ss_seg_err(sg)));
}

/* delete_segment_ids (remote ids) and delete_base_offsets (local segments) */
static void write_typed(struct ss_jw *w, char *const *ids, uint32_t n_ids, const int64_t *offs, uint32_t n_offs)
{
	ss_jw_key(w, "delete_segment_ids");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < n_ids; i++)
		ss_jw_str(w, ids[i]);
	ss_jw_arr_end(w);
	ss_jw_key(w, "delete_base_offsets");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < n_offs; i++)
		ss_jw_i64(w, offs[i]);
	ss_jw_arr_end(w);
}

static void write_retention(struct ss_jw *w, const char *name, const struct ss_retention *r, bool is_size,
			    bool is_local)
{
	ss_jw_key(w, name);
	ss_jw_obj(w);
	ss_jw_kbool(w, "evaluated", r->evaluated);
	ss_jw_kstr(w, "reason", r->evaluated ? NULL : (r->reason ? r->reason : "not evaluated"));
	if (!is_local) {
		if (is_size) {
			ss_jw_ki64n(w, "limit_bytes", r->limit >= 0, r->limit);
			ss_jw_ki64n(w, "total_bytes", r->evaluated, r->total_bytes);
		} else {
			ss_jw_ki64n(w, "limit_ms", r->limit >= 0, r->limit);
		}
	}
	/* delete_segments holds remote ids for the remote tier and local base offsets for the
	 * local tier; its typed twins hold one kind each, for jq */
	ss_jw_key(w, "delete_segments");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < r->n_delete; i++) {
		if (r->delete_is_remote)
			ss_jw_str(w, r->delete_ids[i]);
		else
			ss_jw_i64(w, r->delete_offsets[i]);
	}
	ss_jw_arr_end(w);
	write_typed(w, r->delete_is_remote ? r->delete_ids : NULL, r->delete_is_remote ? r->n_delete : 0,
		    r->delete_is_remote ? NULL : r->delete_offsets, r->delete_is_remote ? 0 : r->n_delete);
	ss_jw_ki64(w, "delete_bytes", r->delete_bytes);
	if (!is_local)
		ss_jw_ki64n(w, "new_log_start_offset", r->has_new_log_start, r->new_log_start_offset);
	ss_jw_obj_end(w);
}

/* retention.total: the distinct segments of every kind, local and remote bytes freed;
 * unknown (a kind could not be evaluated for want of an input) as evaluated:false and
 * null amounts: a total over unknowns is unknown */
static void write_total(struct ss_jw *w, const struct ss_retention_total *t)
{
	ss_jw_key(w, "total");
	ss_jw_obj(w);
	ss_jw_kbool(w, "evaluated", !t->unknown);
	ss_jw_kstr(w, "reason", t->unknown ? (t->reason ? t->reason : "not evaluated") : NULL);
	ss_jw_key(w, "delete_segments");
	ss_jw_arr(w);
	for (uint32_t i = 0; !t->unknown && i < t->n_remote; i++)
		ss_jw_str(w, t->remote_ids[i]);
	for (uint32_t i = 0; !t->unknown && i < t->n_local; i++)
		ss_jw_i64(w, t->local_offsets[i]);
	ss_jw_arr_end(w);
	write_typed(w, t->remote_ids, t->unknown ? 0 : t->n_remote, t->local_offsets, t->unknown ? 0 : t->n_local);
	ss_jw_ki64n(w, "delete_bytes", !t->unknown, t->local_bytes + t->remote_bytes);
	ss_jw_ki64n(w, "local_bytes_freed", !t->unknown, t->local_bytes);
	ss_jw_ki64n(w, "remote_bytes_freed", !t->unknown, t->remote_bytes);
	ss_jw_obj_end(w);
}

static void write_pair(struct ss_jw *w, const char *name, bool null, int64_t segs, int64_t bytes)
{
	ss_jw_key(w, name);
	if (null) {
		ss_jw_null(w);
		return;
	}
	ss_jw_obj(w);
	ss_jw_ki64(w, "segments", segs);
	ss_jw_ki64(w, "size_bytes", bytes);
	ss_jw_obj_end(w);
}

/* config: { "<key>": { value, source } }, source null where only Kafka's default was
 * found and the levels that could override it were not read (no metadata log) */
static void write_config(struct ss_jw *w, const struct ss_eval *ev)
{
	ss_jw_key(w, "config");
	ss_jw_obj(w);
	for (uint32_t i = 0; i < ev->n_config; i++) {
		ss_jw_key(w, ev->config[i].key);
		ss_jw_obj(w);
		ss_jw_kstr(w, "value", (ev->config_value_unknown >> i) & 1 ? NULL : ev->config[i].value);
		ss_jw_kstr(w, "source", ev->config[i].source);
		ss_jw_obj_end(w);
	}
	ss_jw_obj_end(w);
}

static void write_i32s(struct ss_jw *w, const char *k, const int32_t *v, uint32_t n)
{
	ss_jw_key(w, k);
	ss_jw_arr(w);
	for (uint32_t i = 0; i < n; i++)
		ss_jw_i64(w, v[i]);
	ss_jw_arr_end(w);
}

/* assignment: null without a metadata log (or for a partition it does not know) */
static void write_assignment(struct ss_jw *w, const struct ss_eval *ev)
{
	ss_jw_key(w, "assignment");
	if (!ev->has_assignment) {
		ss_jw_null(w);
		return;
	}
	const struct ss_assignment *a = &ev->assignment;
	ss_jw_obj(w);
	write_i32s(w, "replicas", a->replicas, a->n_replicas);
	write_i32s(w, "isr", a->isr, a->n_isr);
	ss_jw_ki64n(w, "leader", a->leader >= 0, a->leader);
	ss_jw_ki64(w, "leader_epoch", a->leader_epoch);
	ss_jw_key(w, "here");
	if (ev->here < 0)
		ss_jw_null(w);
	else
		ss_jw_bool(w, ev->here == 1);
	ss_jw_obj_end(w);
}

/* errors: [ { file, message } ]: every place of this partition that could not be read */
static void write_part_errors(const struct ss_results *r, const struct ss_part *p, struct ss_jw *w)
{
	char errtxt[512], rel[320], path[4096];
	ss_jw_key(w, "errors");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < r->n_problems; i++) {
		const struct ss_problem *pr = &r->problems[i];
		if (!ss_res_problem_of(r, p, pr->path))
			continue;
		ss_jw_obj(w);
		ss_jw_kstr(w, "file", pr->path);
		ss_jw_kstr(w, "message", pr->what);
		ss_jw_obj_end(w);
	}
	for (uint32_t k = 0; k < p->seg_count; k++) {
		const struct ss_seg *sg = &r->segs[p->seg_first + k];
		if (!ss_res_seg_failed(sg))
			continue;
		ss_res_seg_errfile(r, sg, rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", ss_res_logdir_of(r, p), rel);
		seg_error_text(r, sg, errtxt, sizeof(errtxt));
		ss_jw_obj(w);
		ss_jw_kstr(w, "file", path);
		ss_jw_kstr(w, "message", errtxt);
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

static void findings_json(struct ss_jw *w, const struct ss_finding *findings, uint32_t n)
{
	ss_jw_key(w, "findings");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_finding *fd = &findings[i];
		ss_jw_obj(w);
		ss_jw_kstr(w, "code", fd->code);
		/* no ticket: null, not "" (jq's select(.ref) and has() then say it) */
		ss_jw_kstr(w, "ref", fd->ref && fd->ref[0] ? fd->ref : NULL);
		ss_jw_kstr(w, "message", fd->message ? fd->message : "");
		if (fd->has_amount) {
			ss_jw_ki64(w, "segments", fd->segments);
			ss_jw_ki64(w, "bytes", fd->bytes);
		}
		if (fd->n_ids) {
			ss_jw_key(w, "segment_ids");
			ss_jw_arr(w);
			for (uint32_t k = 0; k < fd->n_ids; k++)
				ss_jw_str(w, fd->segment_ids[k]);
			ss_jw_arr_end(w);
		}
		if (fd->n_keys) {
			ss_jw_key(w, "object_keys");
			ss_jw_arr(w);
			for (uint32_t k = 0; k < fd->n_keys; k++)
				ss_jw_str(w, fd->object_keys[k]);
			ss_jw_arr_end(w);
		}
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

void ss_out_findings_json(struct ss_jw *w, const struct ss_eval *ev)
{
	findings_json(w, ev->findings, ev->n_findings);
}

/* summary.broker_topics (--broker-metrics): per (broker, topic) the broker's own delete lag
 * beside the true one of the partitions it leads, and PHANTOM_DELETE_LAG; a per-topic fact,
 * never on a partition's row, so that a sum over rows counts no gauge twice */
static void write_broker_topics(struct ss_jw *w, const struct ss_results *r)
{
	if (!r->n_topic_dellag)
		return;
	ss_jw_key(w, "broker_topics");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < r->n_topic_dellag; i++) {
		const struct ss_topic_dellag *t = &r->topic_dellag[i];
		ss_jw_obj(w);
		ss_jw_kstr(w, "topic", t->topic);
		ss_jw_ki64n(w, "node_id", t->node_id >= 0, t->node_id);
		write_pair(w, "broker_delete_lag", !t->broker_known, t->broker_segments, t->broker_bytes);
		write_pair(w, "delete_lag", !t->known, t->segments, t->bytes);
		ss_jw_kstr(w, "delete_lag_reason", t->why);
		ss_jw_ki64n(w, "led_partitions", t->known, t->led);
		findings_json(w, t->findings, t->n_findings);
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

/* --horizon: forecast {horizon_ms, ...}, null where an input is unknown or the partition
 * is not forecast (the metadata log) */
static void write_forecast(struct ss_jw *w, const struct ss_forecast *fc)
{
	ss_jw_key(w, "forecast");
	if (!fc->evaluated || fc->unknown) {
		ss_jw_null(w);
		return;
	}
	ss_jw_obj(w);
	ss_jw_ki64(w, "horizon_ms", fc->horizon_ms);
	ss_jw_ki64(w, "local_delete_segments", fc->local_delete_segments);
	ss_jw_ki64(w, "local_delete_bytes", fc->local_delete_bytes);
	ss_jw_ki64(w, "remote_delete_segments", fc->remote_delete_segments);
	ss_jw_ki64(w, "remote_delete_bytes", fc->remote_delete_bytes);
	ss_jw_ki64(w, "copy_segments", fc->copy_segments);
	if (fc->disable_tiering)
		ss_jw_kbool(w, "disable_tiering", true);   /* extra: the --disable-tiering what-if */
	ss_jw_obj_end(w);
}

void ss_out_partition_json(const struct ss_results *r, const struct ss_part *p, FILE *f)
{
	const struct ss_eval *ev = p->eval;
	struct ss_jw w;
	char idtxt[23], errtxt[512];

	ss_jw_init(&w, f);
	ss_jw_obj(&w);
	ss_jw_kstr(&w, "topic", p->topic);
	ss_jw_ki64(&w, "partition", p->partition);
	ss_jw_kstr(&w, "log_dir", ss_res_logdir_of(r, p));
	ss_jw_kstr(&w, "dir", p->dir);
	/* the broker this replica belongs to: its log dir's meta.properties node.id */
	ss_jw_ki64n(&w, "node_id", r->logdirs[p->logdir].node_id >= 0, r->logdirs[p->logdir].node_id);
	/* whether that node leads the partition (assignment.leader == node id); null unknown */
	ss_jw_key(&w, "leader");
	if (!ev || ev->role == SS_ROLE_UNKNOWN)
		ss_jw_null(&w);
	else
		ss_jw_bool(&w, ev->role == SS_ROLE_LEADER);
	if (p->has_topic_id) {
		ss_uuid_format(p->topic_id, idtxt);
		ss_jw_kstr(&w, "topic_id", idtxt);
	} else {
		ss_jw_knull(&w, "topic_id");
	}
	ss_jw_key(&w, "remote_storage");
	if (!ev || ev->remote_storage < 0)
		ss_jw_null(&w);
	else
		ss_jw_bool(&w, ev->remote_storage == 1);
	/* values that could not be computed are null, never a made-up 0 */
	bool known = ev && !p->unreadable;
	ss_jw_ki64n(&w, "log_start_offset", known, ev ? ev->log_start_offset : 0);
	ss_jw_ki64n(&w, "log_end_offset", known, ev ? ev->log_end_offset : 0);
	ss_jw_ki64n(&w, "size_bytes", known && !ev->size_unknown, ev ? ev->size_bytes : 0);

	ss_jw_key(&w, "segments");
	ss_jw_arr(&w);
	for (uint32_t k = 0; k < p->seg_count; k++) {
		const struct ss_seg *sg = &r->segs[p->seg_first + k];
		bool has_last = sg->flags & SS_SEG_HAS_LAST;
		ss_jw_obj(&w);
		ss_jw_ki64(&w, "base_offset", sg->base_offset);
		ss_jw_ki64n(&w, "last_offset", has_last, sg->last_offset);
		/* an empty active segment has no end offset yet */
		ss_jw_ki64n(&w, "end_offset", !(sg->flags & SS_SEG_ACTIVE) || has_last, sg->end_offset);
		/* failed before its size was read: unknown, not 0 */
		ss_jw_ki64n(&w, "size_bytes", !(ss_res_seg_failed(sg) && ss_seg_size_unknown(sg)), sg->size_bytes);
		ss_jw_ki64(&w, "valid_bytes", sg->valid_bytes);
		ss_jw_ki64n(&w, "max_timestamp_ms", sg->max_timestamp_ms >= 0, sg->max_timestamp_ms);
		ss_jw_ki64n(&w, "batches", ss_seg_batches(sg) >= 0, ss_seg_batches(sg));
		ss_jw_ki64n(&w, "records", ss_seg_records(sg) >= 0, ss_seg_records(sg));
		ss_jw_kbool(&w, "active", sg->flags & SS_SEG_ACTIVE);
		ss_jw_key(&w, "only_local");
		if (ev && ev->only_local_null)
			ss_jw_null(&w);
		else
			ss_jw_bool(&w, sg->flags & SS_SEG_ONLY_LOCAL);
		ss_jw_ki64(&w, "truncated_bytes", ss_seg_truncated(sg));
		ss_jw_ki64(&w, "crc_errors", ss_seg_crc_errors(sg));
		/* a zero-filled allocation after the last batch (contract: preallocated) */
		ss_jw_kbool(&w, "preallocated", sg->flags & SS_SEG_PREALLOCATED);
		if (sg->flags & SS_SEG_VANISHED)
			ss_jw_kbool(&w, "vanished", true);
		if (ss_res_seg_failed(sg)) {
			seg_error_text(r, sg, errtxt, sizeof(errtxt));
			ss_jw_kstr(&w, "error", errtxt);
		}
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);

	if (ev && p->unreadable) {
		static const char *const nulls[] = { "remote", "only_local", "copy_lag", "broker_copy_lag", "delete_lag",
						     "retention" };
		for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
			ss_jw_knull(&w, nulls[i]);
		ss_jw_key(&w, "findings");
		ss_jw_arr(&w);
		ss_jw_arr_end(&w);
		write_config(&w, ev);
		write_assignment(&w, ev);
	} else if (ev) {
		ss_jw_key(&w, "remote");
		ss_jw_obj(&w);
		ss_jw_kbool(&w, "seeded", ev->seeded);
		ss_jw_ki64n(&w, "highest_offset", ev->seeded, ev->highest_offset);
		ss_jw_kstr(&w, "source", ev->source);
		/* what no source gives (REMOTE_STATE_UNKNOWN, tiering unknown, a corrupt metadata
		 * batch that concerns it) is null, never the 0 of an empty replay */
		bool rk = !ev->remote_unknown;
		ss_jw_ki64n(&w, "segments", rk, ev->remote_segments);
		ss_jw_ki64n(&w, "size_bytes", rk, ev->remote_bytes);
		ss_jw_ki64n(&w, "dangling_segments", rk, ev->dangling_segments);
		ss_jw_ki64n(&w, "dangling_bytes", rk, ev->dangling_bytes);
		/* extras: what Kafka's own epoch index no longer lists (KAFKA-20932) */
		ss_jw_ki64n(&w, "lost_epoch_segments", rk, ev->lost_segments);
		ss_jw_ki64n(&w, "lost_epoch_bytes", rk, ev->lost_bytes);
		ss_jw_obj_end(&w);
		write_pair(&w, "only_local", ev->only_local_null, ev->only_local_segments, ev->only_local_bytes);
		write_pair(&w, "copy_lag", ev->copy_lag_null, ev->copy_lag_segments, ev->copy_lag_bytes);
		write_pair(&w, "broker_copy_lag", ev->broker_copy_lag_null, ev->broker_copy_lag_segments,
			   ev->broker_copy_lag_bytes);
		write_pair(&w, "delete_lag", ev->delete_lag_null, ev->delete_lag_segments, ev->delete_lag_bytes);
		ss_jw_key(&w, "retention");
		ss_jw_obj(&w);
		write_retention(&w, "size", &ev->size, true, false);
		write_retention(&w, "time", &ev->time, false, false);
		write_retention(&w, "local", &ev->local, false, true);
		write_total(&w, &ev->total);
		ss_jw_obj_end(&w);
		if (r->run.horizon_ms > 0)
			write_forecast(&w, &ev->forecast);
		/* extras: why the partition was (not) evaluated as tiered, and notes */
		ss_jw_kstr(&w, "tiered_reason", ev->tiered_reason);
		ss_jw_key(&w, "notes");
		ss_jw_arr(&w);
		for (uint32_t i = 0; i < ev->n_notes; i++)
			ss_jw_str(&w, ev->notes[i]);
		ss_jw_arr_end(&w);
		ss_out_findings_json(&w, ev);
		write_config(&w, ev);
		write_assignment(&w, ev);
		/* --remote-store: the partition's audit (out/store.c) */
		ss_out_store_part_json(&w, r, ev);
	}
	write_part_errors(r, p, &w);
	ss_jw_obj_end(&w);
}

static void write_errors(const struct ss_results *r, struct ss_jw *w)
{
	char errtxt[512];
	ss_jw_key(w, "errors");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < r->n_problems; i++) {
		const struct ss_problem *pr = &r->problems[i];
		ss_jw_obj(w);
		ss_jw_kstr(w, "file", pr->path);
		ss_jw_kstr(w, "path", pr->path);
		ss_jw_ki64n(w, "where", pr->where >= 0, pr->where);
		ss_jw_kstr(w, "error", segscan_strerror(pr->err));
		ss_jw_kstr(w, "message", pr->what);
		ss_jw_obj_end(w);
	}
	for (uint32_t i = 0; i < r->n_segs; i++) {
		const struct ss_seg *sg = &r->segs[i];
		if (!ss_res_seg_failed(sg))
			continue;
		char rel[320], path[4096];
		ss_res_seg_errfile(r, sg, rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)), rel);
		seg_error_text(r, sg, errtxt, sizeof(errtxt));
		ss_jw_obj(w);
		ss_jw_kstr(w, "file", path);
		ss_jw_kstr(w, "path", path);
		ss_jw_ki64n(w, "where", ss_seg_err_pos(sg) >= 0, ss_seg_err_pos(sg));
		ss_jw_kstr(w, "error", segscan_strerror(ss_seg_err(sg)));
		ss_jw_kstr(w, "message", errtxt);
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

/* summary.broker, and where the cluster context came from */
static void write_broker(struct ss_jw *w, const struct ss_res_cluster *c)
{
	ss_jw_key(w, "broker");
	ss_jw_obj(w);
	ss_jw_ki64n(w, "node_id", c->node_id >= 0, c->node_id);
	ss_jw_kstr(w, "cluster_id", c->cluster_id);
	ss_jw_kstr(w, "kafka_version", c->kafka_version);
	ss_jw_kstr(w, "kafka_version_source", c->kafka_version_source);
	ss_jw_kstr(w, "kafka_version_note", c->kafka_version_note);
	ss_jw_kstr(w, "metadata_version", c->metadata_version);
	ss_jw_ki64n(w, "metadata_version_level", c->metadata_version_level > 0, c->metadata_version_level);
	ss_jw_ki64n(w, "supported_metadata_version_level", c->supported_metadata_version > 0,
		    c->supported_metadata_version);
	ss_jw_obj_end(w);
	ss_jw_key(w, "cluster_metadata");
	ss_jw_obj(w);
	ss_jw_kbool(w, "used", c->metadata_log);
	ss_jw_kstr(w, "dir", c->metadata_dir);
	ss_jw_kstr(w, "snapshot", c->snapshot);
	ss_jw_ki64n(w, "last_offset", c->last_offset >= 0, c->last_offset);
	ss_jw_ki64(w, "records", (int64_t)c->records);
	ss_jw_ki64(w, "warnings", (int64_t)c->warnings);
	ss_jw_key(w, "warning_messages");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < c->n_warning_texts; i++)
		ss_jw_str(w, c->warning_texts[i]);
	ss_jw_arr_end(w);
	ss_jw_kbool(w, "complete", c->complete);
	ss_jw_kstr(w, "why_not", c->metadata_log ? NULL : c->metadata_why_not);
	ss_jw_obj_end(w);
	ss_jw_kstr(w, "dynamic_configs_from", c->configs_from);
	ss_jw_kstr(w, "dynamic_configs_error", c->configs_error);
	ss_jw_key(w, "static_config");
	ss_jw_obj(w);
	ss_jw_kstr(w, "file", c->static_config);
	ss_jw_kstr(w, "how", c->static_config_how);
	ss_jw_obj_end(w);
	ss_jw_key(w, "remote_metadata");
	ss_jw_obj(w);
	ss_jw_ki64(w, "tiered_partitions", c->tiered_partitions);
	ss_jw_ki64(w, "known_partitions", c->remote_known_partitions);
	ss_jw_ki64n(w, "metadata_partitions", c->rlmm_partitions >= 0, c->rlmm_partitions);
	ss_jw_ki64(w, "local_metadata_partitions", c->rlmm_local);
	ss_jw_obj_end(w);
}

int ss_out_json(const struct ss_results *r, FILE *f, bool ndjson)
{
	if (ndjson) {
		for (uint32_t i = 0; i < r->n_parts; i++) {
			ss_out_partition_json(r, &r->parts[i], f);
			fputc('\n', f);
		}
		return ferror(f) ? -EIO : 0;
	}
	struct ss_summary sum;
	ss_out_summarize(r, &sum);
	struct ss_jw w;
	ss_jw_init(&w, f);
	ss_jw_obj(&w);
	ss_jw_key(&w, "partitions");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < r->n_parts; i++) {
		if (i)
			fputc(',', f);
		fputc('\n', f);
		ss_out_partition_json(r, &r->parts[i], f);
	}
	fputc('\n', f);
	/* the partition objects were written by their own writer: keep ours consistent */
	w.first[w.depth] = r->n_parts == 0;
	ss_jw_arr_end(&w);

	ss_jw_key(&w, "summary");
	ss_jw_obj(&w);
	ss_jw_kstr(&w, "version", SEGSCAN_VERSION);
	ss_jw_key(&w, "log_dirs");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < r->n_logdirs; i++)
		ss_jw_str(&w, r->logdirs[i].path);
	ss_jw_arr_end(&w);
	ss_jw_ki64(&w, "partitions", r->n_parts);
	ss_jw_ki64(&w, "segments", sum.segments);
	/* a total with an unknown member is null (jq's `add` would take a partial sum for the
	 * whole), and unknown_partitions says how many members each one lacks */
	ss_jw_ki64n(&w, "size_bytes", !sum.size_unknown, sum.size_bytes);
	ss_jw_ki64n(&w, "tiered_partitions", !sum.tiered_unknown, sum.tiered);
	ss_jw_ki64n(&w, "remote_segments", !sum.remote_unknown, sum.remote_segments);
	ss_jw_ki64n(&w, "remote_bytes", !sum.remote_unknown, sum.remote_bytes);
	ss_jw_ki64n(&w, "copy_lag_segments", !sum.copy_lag_unknown, sum.copy_lag_segments);
	ss_jw_ki64n(&w, "copy_lag_bytes", !sum.copy_lag_unknown, sum.copy_lag_bytes);
	ss_jw_ki64n(&w, "delete_lag_segments", !sum.delete_lag_unknown, sum.delete_lag_segments);
	ss_jw_ki64n(&w, "delete_lag_bytes", !sum.delete_lag_unknown, sum.delete_lag_bytes);
	ss_jw_key(&w, "unknown_partitions");
	ss_jw_obj(&w);
	ss_jw_ki64(&w, "size", sum.size_unknown);
	ss_jw_ki64(&w, "tiering", sum.tiered_unknown);
	ss_jw_ki64(&w, "remote", sum.remote_unknown);
	ss_jw_ki64(&w, "copy_lag", sum.copy_lag_unknown);
	ss_jw_ki64(&w, "delete_lag", sum.delete_lag_unknown);
	ss_jw_obj_end(&w);
	ss_jw_ki64(&w, "findings", sum.findings);
	ss_jw_ki64(&w, "errors", sum.errors);
	ss_jw_ki64(&w, "bytes_read", r->run.bytes_read);
	ss_jw_kbool(&w, "verify", r->run.verify);
	ss_jw_kstr(&w, "io", r->run.io);
	ss_jw_ki64(&w, "threads", r->run.threads);
	ss_jw_kstr(&w, "remote_source", r->run.remote_source);
	ss_jw_ki64(&w, "exit_code", r->run.exit_code);
	if (r->run.horizon_ms > 0) {
		/* --horizon: each log dir's free space now and after the forecast's local deletes */
		ss_jw_key(&w, "forecast");
		ss_jw_obj(&w);
		ss_jw_ki64(&w, "horizon_ms", r->run.horizon_ms);
		ss_jw_key(&w, "log_dirs");
		ss_jw_arr(&w);
		for (uint32_t i = 0; i < r->n_logdirs; i++) {
			const struct ss_res_logdir *l = &r->logdirs[i];
			const struct ss_res_space *sp = r->space ? &r->space[i] : NULL;
			ss_jw_obj(&w);
			ss_jw_kstr(&w, "log_dir", l->path);
			ss_jw_ki64n(&w, "free_bytes", sp && sp->free_bytes >= 0, sp ? sp->free_bytes : 0);
			ss_jw_ki64n(&w, "free_bytes_after", sp && sp->free_bytes_after >= 0, sp ? sp->free_bytes_after : 0);
			ss_jw_obj_end(&w);
		}
		ss_jw_arr_end(&w);
		ss_jw_obj_end(&w);
	}
	write_broker(&w, &r->cluster);
	write_broker_topics(&w, r);
	ss_out_store_summary_json(&w, r);   /* --remote-store (out/store.c) */
	ss_out_gauges_json(&w, r);          /* --broker-metrics (out/gauges.c) */
	ss_jw_key(&w, "notes");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < r->n_notes; i++) {
		ss_jw_obj(&w);
		ss_jw_kstr(&w, "path", r->notes[i].path);
		ss_jw_kstr(&w, "what", r->notes[i].what);
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);
	ss_jw_obj_end(&w);
	write_errors(r, &w);
	ss_jw_obj_end(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
