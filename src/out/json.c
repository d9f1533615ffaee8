/*
 * json and ndjson reports. Field names are the contract's (interface.md, Output); every
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
	if (sg->err_pos >= 0)
		snprintf(buf, len, "%s at byte %lld: %s", rel, (long long)sg->err_pos, segscan_strerror(sg->err));
	else
		snprintf(buf, len, "%s: %s", rel, segscan_strerror(sg->err));
}

static void write_retention(struct jw *w, const char *name, const struct ss_retention *r, bool is_size,
			    bool is_local)
{
	jw_key(w, name);
	jw_obj(w);
	jw_kbool(w, "evaluated", r->evaluated);
	jw_kstr(w, "reason", r->evaluated ? NULL : (r->reason ? r->reason : "not evaluated"));
	if (!is_local) {
		if (is_size) {
			jw_ki64n(w, "limit_bytes", r->limit >= 0, r->limit);
			jw_ki64n(w, "total_bytes", r->evaluated, r->total_bytes);
		} else {
			jw_ki64n(w, "limit_ms", r->limit >= 0, r->limit);
		}
	}
	jw_key(w, "delete_segments");
	jw_arr(w);
	for (uint32_t i = 0; i < r->n_delete; i++) {
		if (r->delete_is_remote)
			jw_str(w, r->delete_ids[i]);
		else
			jw_i64(w, r->delete_offsets[i]);
	}
	jw_arr_end(w);
	jw_ki64(w, "delete_bytes", r->delete_bytes);
	if (!is_local)
		jw_ki64n(w, "new_log_start_offset", r->has_new_log_start, r->new_log_start_offset);
	jw_obj_end(w);
}

static void write_pair(struct jw *w, const char *name, bool null, int64_t segs, int64_t bytes)
{
	jw_key(w, name);
	if (null) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_ki64(w, "segments", segs);
	jw_ki64(w, "size_bytes", bytes);
	jw_obj_end(w);
}

void ss_out_partition_json(const struct ss_results *r, const struct ss_part *p, FILE *f)
{
	const struct ss_eval *ev = p->eval;
	struct jw w;
	char idtxt[23], errtxt[512];

	jw_init(&w, f);
	jw_obj(&w);
	jw_kstr(&w, "topic", p->topic);
	jw_ki64(&w, "partition", p->partition);
	jw_kstr(&w, "log_dir", ss_res_logdir_of(r, p));
	jw_kstr(&w, "dir", p->dir);
	if (p->has_topic_id) {
		ss_uuid_format(p->topic_id, idtxt);
		jw_kstr(&w, "topic_id", idtxt);
	} else {
		jw_knull(&w, "topic_id");
	}
	jw_key(&w, "remote_storage");
	if (!ev || ev->remote_storage < 0)
		jw_null(&w);
	else
		jw_bool(&w, ev->remote_storage == 1);
	jw_ki64(&w, "log_start_offset", ev ? ev->log_start_offset : 0);
	jw_ki64(&w, "log_end_offset", ev ? ev->log_end_offset : 0);
	jw_ki64(&w, "size_bytes", ev ? ev->size_bytes : 0);

	jw_key(&w, "segments");
	jw_arr(&w);
	for (uint32_t k = 0; k < p->seg_count; k++) {
		const struct ss_seg *sg = &r->segs[p->seg_first + k];
		bool has_last = sg->flags & SS_SEG_HAS_LAST;
		jw_obj(&w);
		jw_ki64(&w, "base_offset", sg->base_offset);
		jw_ki64n(&w, "last_offset", has_last, sg->last_offset);
		/* an empty active segment has no end offset yet */
		jw_ki64n(&w, "end_offset", !(sg->flags & SS_SEG_ACTIVE) || has_last, sg->end_offset);
		jw_ki64(&w, "size_bytes", sg->size_bytes);
		jw_ki64(&w, "valid_bytes", sg->valid_bytes);
		jw_ki64n(&w, "max_timestamp_ms", sg->max_timestamp_ms >= 0, sg->max_timestamp_ms);
		jw_ki64n(&w, "batches", sg->batches >= 0, sg->batches);
		jw_ki64n(&w, "records", sg->records >= 0, sg->records);
		jw_kbool(&w, "active", sg->flags & SS_SEG_ACTIVE);
		jw_key(&w, "only_local");
		if (ev && ev->only_local_null)
			jw_null(&w);
		else
			jw_bool(&w, sg->flags & SS_SEG_ONLY_LOCAL);
		jw_ki64(&w, "truncated_bytes", sg->truncated_bytes);
		jw_ki64(&w, "crc_errors", sg->crc_errors);
		if (sg->flags & SS_SEG_VANISHED)
			jw_kbool(&w, "vanished", true);
		if (ss_res_seg_failed(sg)) {
			seg_error_text(r, sg, errtxt, sizeof(errtxt));
			jw_kstr(&w, "error", errtxt);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);

	if (ev) {
		jw_key(&w, "remote");
		jw_obj(&w);
		jw_kbool(&w, "seeded", ev->seeded);
		jw_ki64n(&w, "highest_offset", ev->seeded, ev->highest_offset);
		jw_kstr(&w, "source", ev->source);
		jw_ki64(&w, "segments", ev->remote_segments);
		jw_ki64(&w, "size_bytes", ev->remote_bytes);
		jw_ki64(&w, "dangling_segments", ev->dangling_segments);
		jw_ki64(&w, "dangling_bytes", ev->dangling_bytes);
		/* extras: what Kafka's own epoch index no longer lists (KAFKA-20932) */
		jw_ki64(&w, "lost_epoch_segments", ev->lost_segments);
		jw_ki64(&w, "lost_epoch_bytes", ev->lost_bytes);
		jw_obj_end(&w);
		write_pair(&w, "only_local", ev->only_local_null, ev->only_local_segments, ev->only_local_bytes);
		write_pair(&w, "copy_lag", ev->copy_lag_null, ev->copy_lag_segments, ev->copy_lag_bytes);
		write_pair(&w, "broker_copy_lag", ev->broker_copy_lag_null, ev->broker_copy_lag_segments,
			   ev->broker_copy_lag_bytes);
		jw_key(&w, "retention");
		jw_obj(&w);
		write_retention(&w, "size", &ev->size, true, false);
		write_retention(&w, "time", &ev->time, false, false);
		write_retention(&w, "local", &ev->local, false, true);
		jw_obj_end(&w);
		/* extras: why the partition was (not) evaluated as tiered, and notes */
		jw_kstr(&w, "tiered_reason", ev->tiered_reason);
		jw_key(&w, "notes");
		jw_arr(&w);
		for (uint32_t i = 0; i < ev->n_notes; i++)
			jw_str(&w, ev->notes[i]);
		jw_arr_end(&w);
		jw_key(&w, "findings");
		jw_arr(&w);
		for (uint32_t i = 0; i < ev->n_findings; i++) {
			const struct ss_finding *fd = &ev->findings[i];
			jw_obj(&w);
			jw_kstr(&w, "code", fd->code);
			jw_kstr(&w, "ref", fd->ref ? fd->ref : "");
			jw_kstr(&w, "message", fd->message ? fd->message : "");
			if (fd->has_amount) {
				jw_ki64(&w, "segments", fd->segments);
				jw_ki64(&w, "bytes", fd->bytes);
			}
			if (fd->n_ids) {
				jw_key(&w, "segment_ids");
				jw_arr(&w);
				for (uint32_t k = 0; k < fd->n_ids; k++)
					jw_str(&w, fd->segment_ids[k]);
				jw_arr_end(&w);
			}
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
	}
	jw_obj_end(&w);
}

static void write_errors(const struct ss_results *r, struct jw *w)
{
	char errtxt[512];
	jw_key(w, "errors");
	jw_arr(w);
	for (uint32_t i = 0; i < r->n_problems; i++) {
		const struct ss_problem *pr = &r->problems[i];
		jw_obj(w);
		jw_kstr(w, "path", pr->path);
		jw_ki64n(w, "where", pr->where >= 0, pr->where);
		jw_kstr(w, "error", segscan_strerror(pr->err));
		jw_kstr(w, "message", pr->what);
		jw_obj_end(w);
	}
	for (uint32_t i = 0; i < r->n_segs; i++) {
		const struct ss_seg *sg = &r->segs[i];
		if (!ss_res_seg_failed(sg))
			continue;
		char rel[320], path[4096];
		ss_res_seg_errfile(r, sg, rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", ss_res_logdir_of(r, &r->parts[sg->part]), rel);
		seg_error_text(r, sg, errtxt, sizeof(errtxt));
		jw_obj(w);
		jw_kstr(w, "path", path);
		jw_ki64n(w, "where", sg->err_pos >= 0, sg->err_pos);
		jw_kstr(w, "error", segscan_strerror(sg->err));
		jw_kstr(w, "message", errtxt);
		jw_obj_end(w);
	}
	jw_arr_end(w);
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
	struct jw w;
	jw_init(&w, f);
	jw_obj(&w);
	jw_key(&w, "partitions");
	jw_arr(&w);
	for (uint32_t i = 0; i < r->n_parts; i++) {
		if (i)
			fputc(',', f);
		fputc('\n', f);
		ss_out_partition_json(r, &r->parts[i], f);
	}
	fputc('\n', f);
	/* the partition objects were written by their own writer: keep ours consistent */
	w.first[w.depth] = r->n_parts == 0;
	jw_arr_end(&w);

	jw_key(&w, "summary");
	jw_obj(&w);
	jw_kstr(&w, "version", SEGSCAN_VERSION);
	jw_key(&w, "log_dirs");
	jw_arr(&w);
	for (uint32_t i = 0; i < r->n_logdirs; i++)
		jw_str(&w, r->logdirs[i].path);
	jw_arr_end(&w);
	jw_ki64(&w, "partitions", r->n_parts);
	jw_ki64(&w, "segments", r->n_segs);
	jw_ki64(&w, "size_bytes", sum.size_bytes);
	jw_ki64(&w, "tiered_partitions", sum.tiered);
	jw_ki64(&w, "remote_segments", sum.remote_segments);
	jw_ki64(&w, "remote_bytes", sum.remote_bytes);
	jw_ki64(&w, "copy_lag_segments", sum.copy_lag_segments);
	jw_ki64(&w, "copy_lag_bytes", sum.copy_lag_bytes);
	jw_ki64(&w, "findings", sum.findings);
	jw_ki64(&w, "errors", sum.errors);
	jw_ki64(&w, "bytes_read", r->run.bytes_read);
	jw_kbool(&w, "verify", r->run.verify);
	jw_kstr(&w, "io", r->run.io);
	jw_ki64(&w, "threads", r->run.threads);
	jw_kstr(&w, "remote_source", r->run.remote_source);
	jw_ki64(&w, "exit_code", r->run.exit_code);
	jw_key(&w, "notes");
	jw_arr(&w);
	for (uint32_t i = 0; i < r->n_notes; i++) {
		jw_obj(&w);
		jw_kstr(&w, "path", r->notes[i].path);
		jw_kstr(&w, "what", r->notes[i].what);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	write_errors(r, &w);
	jw_obj_end(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
