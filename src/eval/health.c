/*
 * Tiering health rules (eval/health.h; docs/tiered-storage.md "Tiering health" says what
 * each rule rests on in Kafka's source). Pure: over the evaluation in progress
 * (eval_int.h), the partition's remote state and the input's facts.
 *
 * What Kafka does, which the rules follow (RemoteLogManager, 3.7.0 to 4.4.0):
 *  - the copy task of a partition runs on its leader only, every
 *    remote.log.manager.task.interval.ms after the previous pass ended (fixed delay), and
 *    copies the closed segments one after another in offset order: per segment it
 *    publishes COPY_SEGMENT_STARTED (a new segment id per attempt), calls the
 *    RemoteStorageManager's copyLogSegmentData with no timeout, then publishes
 *    COPY_SEGMENT_FINISHED. So a partition's latest added remote segment is its latest
 *    copy attempt, and one that stays STARTED is an upload that never returned (or
 *    whose broker died: then the next leader's retry adds a newer one).
 *  - a closed segment is a copy candidate once the next segment's base offset is at or
 *    below the last stable offset: an upper bound of when that happened is the newest
 *    record in the next segment (or, with no record, its file's mtime: Kafka's
 *    largestTimestamp).
 *  - the expiration task publishes DELETE_SEGMENT_STARTED, deletes from the RSM, then
 *    DELETE_SEGMENT_FINISHED; from 4.0.0 it retries a DELETE_SEGMENT_STARTED on every
 *    pass (KAFKA-17428), publishing the event again.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/config.h"
#include "eval/eval_int.h"
#include "eval/health.h"
#include "fmt/names.h"

int64_t ss_health_default_stuck_after(int64_t task_interval_ms)
{
	int64_t iv = task_interval_ms > 0 ? task_interval_ms : SS_RLM_TASK_INTERVAL_DEFAULT_MS;
	int64_t x = iv > INT64_MAX / 20 ? INT64_MAX / 2 : iv * 10;
	return x > SS_STUCK_AFTER_FLOOR_MS ? x : SS_STUCK_AFTER_FLOOR_MS;
}

static int64_t age_of(int64_t now, int64_t ts)
{
	__int128 a = (__int128)now - ts;
	return a > INT64_MAX ? INT64_MAX : a < INT64_MIN ? INT64_MIN : (int64_t)a;
}

static const char *plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

static void seg_file(const struct ss_seg *s, char *buf, size_t len)
{
	snprintf(buf, len, "%020lld.log", (long long)s->base_offset);
}

/* What waits behind a stalled copy, for the messages: "7 closed local segments (7340032
 * bytes) wait for upload" */
static void waiting_text(const struct ss_eval *ev, char *buf, size_t len)
{
	if (ev->role == SS_ROLE_FOLLOWER)   /* the copy lag is the leader's replica's (issue 22) */
		snprintf(buf, len, "how many closed local segments wait for upload is the leader's replica's to tell");
	else if (!ev->seeded || ev->copy_lag_null)
		snprintf(buf, len, "how many closed local segments wait for upload is unknown");
	else
		snprintf(buf, len, "%lld closed local segment%s (%lld bytes) wait%s for upload",
			 (long long)ev->copy_lag_segments, plural(ev->copy_lag_segments), (long long)ev->copy_lag_bytes,
			 ev->copy_lag_segments == 1 ? "s" : "");
}

/* KIP-1241 (Kafka 4.4.0): remote.copy.lag.ms/bytes hold uploads back on purpose */
static const char *copy_lag_caveat(const struct ss_eval_input *in)
{
	static const struct ss_kver v44 = { .major = 4, .minor = 4, .patch = 0 };
	if (in->release && in->release->known && ss_kver_cmp(&in->release->v, &v44) < 0)
		return "";
	return " (on Kafka 4.4 and later a topic's remote.copy.lag.ms or remote.copy.lag.bytes, which segscan "
	       "does not read, may hold uploads back on purpose: give --stuck-after above it)";
}

/* The latest copy attempt, still COPY_SEGMENT_STARTED past --stuck-after. 1 when raised. */
static int stuck_started(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_remote_part *rp = x->remote;
	char dur[48], lim[48], when[40], wait[160];
	int e;

	if (!rp || rp->n_segs == 0 || rp->delete_state >= 0)
		return 0;
	/* segments are kept in add order, deleted ones too: the last is the latest attempt */
	const struct ss_rseg *s = ss_remote_seg(rp, rp->n_segs - 1);
	if (s->state != SS_RSEG_COPY_STARTED)
		return 0;
	int64_t age = age_of(in->now_ms, s->event_ms);
	ss_eval_iso_ms(s->event_ms, when, sizeof(when));
	if (age < 0)
		return ss_eval_add_note(ev, "the latest copy attempt, remote segment %s, started at %s, after the scan's "
					"clock: how long it has been running cannot be told",
					s->id, when);
	if (age <= in->stuck_after_ms)
		return 0;
	ss_eval_human_ms(age, dur, sizeof(dur));
	ss_eval_human_ms(in->stuck_after_ms, lim, sizeof(lim));
	waiting_text(ev, wait, sizeof(wait));
	const char *id = s->id;
	const struct ss_finding_spec spec = {
		.code = "STUCK_REMOTE_COPY", .has_amount = true, .segments = 1, .bytes = s->size_bytes,
		.ids = &id, .n_ids = 1,
	};
	if ((e = ss_eval_add_finding(
		     ev, &spec,
		     "remote segment %s (offsets %lld..%lld, %lld bytes), the partition's latest copy attempt, has been "
		     "in COPY_SEGMENT_STARTED for %lld ms (%s; started at %s by broker %d), longer than the %lld ms "
		     "(%s) allowed (%s): no copy of the partition was attempted since, so the upload is blocked in "
		     "the RemoteStorageManager (Kafka sets no timeout on copyLogSegmentData) or its broker stopped "
		     "mid-copy and no leader took over; %s, and the broker's RemoteCopyLagSegments/RemoteCopyLagBytes "
		     "are not updated while the copy is blocked",
		     s->id, (long long)s->start_offset, (long long)s->end_offset, (long long)s->size_bytes,
		     (long long)age, dur, when, s->broker_id, (long long)in->stuck_after_ms, lim,
		     in->stuck_after_why ? in->stuck_after_why : "--stuck-after", wait)))
		return e;
	return 1;
}

/* The leader's oldest closed, uncopied segment, waiting past --stuck-after while the copy
 * task recorded nothing. */
static int wedged_copy(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_eval_cluster *c = in->cluster;
	const struct ss_part *p = in->part;
	struct ss_eval *ev = x->ev;
	const struct ss_remote_part *rp = x->remote;
	char name[32], next[32], dur[48], lim[48], when[40], last[96], wait[160];

	if (!ev->seeded || ev->copy_lag_null || ev->copy_lag_segments <= 0)
		return 0;
	/* only the leader copies: a follower's closed segments may lie inside the leader's
	 * active one (their boundaries differ), so on a follower a wait proves nothing */
	if (!c || !c->partition_known || c->node_id < 0 || c->a.leader != c->node_id)
		return 0;
	const struct ss_seg *sg = NULL, *nx = NULL;
	for (uint32_t k = 0; k + 1 < x->n_live; k++)
		if (x->live[k]->flags & SS_SEG_ONLY_LOCAL) {
			sg = x->live[k];
			nx = x->live[k + 1];
			break;
		}
	if (!sg)
		return 0;
	/* a candidate only once the next segment's base is at or below the last stable offset
	 * (at most the high watermark) */
	if (p->has_high_watermark && p->high_watermark < nx->base_offset)
		return 0;
	seg_file(sg, name, sizeof(name));
	seg_file(nx, next, sizeof(next));
	if (nx->max_timestamp_ms < 0 || ss_seg_size_unknown(nx))
		return ss_eval_add_note(ev, "closed local segment %s is not in remote storage yet; how long it has waited "
					"for its copy cannot be told (the next segment, %s, gives no timestamp)",
					name, next);
	int64_t waited = age_of(in->now_ms, nx->max_timestamp_ms);
	if (waited <= in->stuck_after_ms)
		return 0;
	/* the copy task's last recorded work: the partition's latest added remote segment's
	 * latest event (for one deleted since, later than its copy: an upper bound) */
	if (rp && rp->n_segs) {
		const struct ss_rseg *l = ss_remote_seg(rp, rp->n_segs - 1);
		if (!ss_older_than(in->now_ms, l->event_ms, in->stuck_after_ms))
			return 0;
		ss_eval_iso_ms(l->event_ms, when, sizeof(when));
		snprintf(last, sizeof(last), "the partition's last copy event is from %s", when);
	} else {
		snprintf(last, sizeof(last), "no copy of the partition is recorded at all");
	}
	ss_eval_human_ms(waited, dur, sizeof(dur));
	ss_eval_human_ms(in->stuck_after_ms, lim, sizeof(lim));
	ss_eval_iso_ms(nx->max_timestamp_ms, when, sizeof(when));
	waiting_text(ev, wait, sizeof(wait));
	const struct ss_finding_spec spec = {
		.code = "STUCK_REMOTE_COPY", .has_amount = true, .segments = ev->copy_lag_segments,
		.bytes = ev->copy_lag_bytes,
	};
	return ss_eval_add_finding(
		ev, &spec,
		"closed local segment %s (offsets %lld..%lld, %lld bytes) has waited at least %lld ms (%s) for its copy "
		"to remote storage (the newest record of the next segment, %s, is from %s), longer than the %lld ms (%s) allowed "
		"(%s), and %s: this broker leads the partition, and its copy task does not copy (a copy that fails "
		"before it starts, a task cancelled for good, metadata that is not ready); %s, and the broker's "
		"RemoteCopyLagSegments/RemoteCopyLagBytes may not show them%s",
		name, (long long)sg->base_offset, (long long)sg->end_offset, (long long)ss_seg_kafka_size(sg),
		(long long)waited, dur, next, when, (long long)in->stuck_after_ms, lim,
		in->stuck_after_why ? in->stuck_after_why : "--stuck-after", last, wait, copy_lag_caveat(in));
}

/* Remote segments whose delete started and did not finish within --stuck-after. */
static int stuck_delete(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_remote_part *rp = x->remote;
	char dur[48], lim[48], when[40];
	int e;

	if (!rp)
		return 0;
	bool retries = ss_eval_affects(in, "KAFKA-17428") == SS_NOT_AFFECTED;
	for (uint32_t i = 0; i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		if (s->state != SS_RSEG_DELETE_STARTED)
			continue;
		int64_t age = age_of(in->now_ms, s->event_ms);
		ss_eval_iso_ms(s->event_ms, when, sizeof(when));
		if (age < 0) {
			if ((e = ss_eval_add_note(ev, "remote segment %s entered DELETE_SEGMENT_STARTED at %s, after the "
						      "scan's clock: how long its delete has been running cannot be told",
						  s->id, when)))
				return e;
			continue;
		}
		if (age <= in->stuck_after_ms)
			continue;
		ss_eval_human_ms(age, dur, sizeof(dur));
		ss_eval_human_ms(in->stuck_after_ms, lim, sizeof(lim));
		const char *id = s->id;
		const struct ss_finding_spec spec = {
			.code = "STUCK_REMOTE_DELETE", .has_amount = true, .segments = 1, .bytes = s->size_bytes,
			.ids = &id, .n_ids = 1,
		};
		if ((e = ss_eval_add_finding(
			     ev, &spec,
			     "remote segment %s (offsets %lld..%lld, %lld bytes) has been in DELETE_SEGMENT_STARTED for %lld "
			     "ms (%s; last event at %s, broker %d), longer than the %lld ms (%s) allowed (%s): %s; its "
			     "data may still occupy remote storage",
			     s->id, (long long)s->start_offset, (long long)s->end_offset, (long long)s->size_bytes,
			     (long long)age, dur, when, s->broker_id, (long long)in->stuck_after_ms, lim,
			     in->stuck_after_why ? in->stuck_after_why : "--stuck-after",
			     retries ? "Kafka retries such a delete on every expiration pass and publishes the event again, "
				       "so the partition's expiration task has not run since (no leader, or the task is "
				       "blocked in the RemoteStorageManager)"
				     : "the delete failed or is blocked in the RemoteStorageManager, and releases before "
				       "4.0.0 never retry it (KAFKA-17428) unless retention reaches the segment again")))
			return e;
	}
	return 0;
}

/* "604800000 ms (7d 0h)", "unlimited (-1)" */
static void limit_ms_text(int64_t ms, char *buf, size_t len)
{
	char h[48];
	if (ms < 0) {
		snprintf(buf, len, "unlimited (%lld)", (long long)ms);
		return;
	}
	ss_eval_human_ms(ms, h, sizeof(h));
	snprintf(buf, len, "%lld ms (%s)", (long long)ms, h);
}

/* Append "; " and a formatted clause to a finding's text. */
static void clause(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void clause(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	if (*at >= len)
		return;
	if (*at) {
		int k = snprintf(buf + *at, len - *at, "; ");
		*at += k > 0 ? (size_t)k : 0;
		if (*at >= len)
			return;
	}
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	*at += n > 0 ? (size_t)n : 0;
}

/* __remote_log_metadata's settings against this tiered partition's (KIP-1235: the
 * metadata is the only index of the remote tier; TopicBasedRemoteLogMetadataManager
 * creates the topic with retention.ms=-1 and, from 4.3, min.insync.replicas=2, and never
 * corrects a topic that exists). Only known configs count; unknown ones are a note. */
static int metadata_at_risk(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_health_rlmm *m = in->rlmm;
	struct ss_eval *ev = x->ev;
	char risk[1536], a[96], b[96], unknown[256];
	size_t at = 0, un = 0;

	if (!m || !m->exists)
		return 0;
	risk[0] = unknown[0] = 0;
	const struct ss_cfg_entry *pr = ss_cfg_entry_find(in->cfg, "retention.ms");
	const char *prs = pr ? pr->source : NULL;
	if (!m->retention_ms_src) {
		clause(unknown, sizeof(unknown), &un, "retention.ms");
	} else if (m->retention_ms >= 0 && prs && (in->cfg->retention_ms < 0 || in->cfg->retention_ms > m->retention_ms)) {
		limit_ms_text(m->retention_ms, a, sizeof(a));
		limit_ms_text(in->cfg->retention_ms, b, sizeof(b));
		char big[384] = "", c[96];
		if (m->max_tiered_known && m->max_tiered_topic) {
			limit_ms_text(m->max_tiered_retention_ms, c, sizeof(c));
			snprintf(big, sizeof(big), "; the longest retention.ms of the %u tiered topic%s is %s (%s)",
				 m->tiered_topics, plural(m->tiered_topics), c, m->max_tiered_topic);
		}
		clause(risk, sizeof(risk), &at,
		       "its retention.ms is %s (%s), shorter than this topic's retention.ms %s (%s)%s: the records "
		       "that describe a remote segment are deleted while the segment is still in retention, and "
		       "then no broker finds, serves or deletes it",
		       a, m->retention_ms_src, b, prs, big);
	}
	if (!m->retention_bytes_src)
		clause(unknown, sizeof(unknown), &un, "retention.bytes");
	else if (m->retention_bytes >= 0)
		clause(risk, sizeof(risk), &at,
		       "its retention.bytes is %lld (%s): once one of its partitions holds more, size retention "
		       "deletes that partition's oldest records whatever the segments they describe",
		       (long long)m->retention_bytes, m->retention_bytes_src);
	bool multi = m->brokers > 1;
	if (m->rf < 0 || m->brokers < 0)
		clause(unknown, sizeof(unknown), &un, m->rf < 0 ? "its replication factor" : "the broker count");
	else if (multi && m->rf == 1)
		clause(risk, sizeof(risk), &at,
		       "its replication factor is 1 (the metadata log's assignment of its %d partitions) on a cluster "
		       "of %d brokers: the loss of one disk loses the metadata of every remote segment indexed there",
		       m->partitions, m->brokers);
	if (!m->min_isr_src)
		clause(unknown, sizeof(unknown), &un, "min.insync.replicas");
	else if (multi && m->min_isr == 1 && m->rf != 1)
		clause(risk, sizeof(risk), &at,
		       "its min.insync.replicas is 1 (%s) on a cluster of %d brokers: a metadata write acknowledged by "
		       "one replica alone is lost with it (Kafka 4.3 creates the topic with 2, KIP-1235)",
		       m->min_isr_src, m->brokers);
	int e;
	if (un && (e = ss_eval_add_note(ev, "__remote_log_metadata: %s not known (the metadata log was not read whole, "
					    "or a level that could set it was not read): its risk to this partition's "
					    "remote segments cannot be told",
					unknown)))
		return e;
	if (!at)
		return 0;
	const struct ss_finding_spec spec = { .code = "REMOTE_METADATA_AT_RISK" };
	return ss_eval_add_finding(ev, &spec, "__remote_log_metadata, the only index of this partition's remote "
				   "segments, is at risk: %s", risk);
}

/* ---- EPOCH_LINEAGE_GAP ---- */

/* "{0:0, 3:150}" */
static void epochs_text(const struct ss_epoch_entry *e, uint32_t n, char *buf, size_t len)
{
	size_t at = 0;
	int k = snprintf(buf, len, "{");
	at = k > 0 ? (size_t)k : 0;
	for (uint32_t i = 0; i < n && at < len; i++) {
		k = snprintf(buf + at, len - at, "%s%d:%lld", i ? ", " : "", e[i].epoch, (long long)e[i].start_offset);
		at += k > 0 ? (size_t)k : 0;
	}
	if (at < len)
		snprintf(buf + at, len - at, "}");
}

/*
 * LeaderEpochFileCache.epochEntriesInRange(start, end) over the local checkpoint: what the
 * copy task recorded as the segment's leader epochs (RemoteLogManager.getLeaderEpochEntries
 * with the segment's base offset and the next segment's). truncateFromStart drops the
 * entries at or below start and puts the last of them back at start; truncateFromEnd drops
 * those at or above end. out holds at most n + 1. Returns the count.
 */
static uint32_t epochs_in_range(const struct ss_epoch_entry *e, uint32_t n, int64_t start, int64_t end,
				struct ss_epoch_entry *out)
{
	uint32_t k = 0, i = 0;
	bool removed = false;
	struct ss_epoch_entry last = { 0, 0 };
	for (; i < n && e[i].start_offset <= start; i++) {
		last = e[i];
		removed = true;
	}
	if (removed)
		out[k++] = (struct ss_epoch_entry){ last.epoch, start };
	for (; i < n; i++)
		if (e[i].start_offset < end)
			out[k++] = e[i];
	return k;
}

/* The remote segment's epochs as entries */
static uint32_t rseg_epochs(const struct ss_rseg *s, struct ss_epoch_entry *out, uint32_t cap)
{
	uint32_t n = s->n_epochs < cap ? s->n_epochs : cap;
	for (uint32_t i = 0; i < n; i++)
		out[i] = (struct ss_epoch_entry){ s->epochs[i].epoch, s->epochs[i].start_offset };
	return n;
}

/* RemoteLogMetadataCache.remoteLogSegmentMetadata(epoch, offset) over the finished
 * segments: the floor entry of the epoch's offsetToId (the segment whose start of that
 * epoch is the highest at or below offset; the later upload wins a tie, as the map's put
 * does), then offset within that epoch's part of the segment. NULL: not found; *floor the
 * segment found before the range check (NULL: none). */
static const struct ss_rseg *remote_for_epoch(const struct ss_evctx *x, int32_t epoch, int64_t offset,
					      const struct ss_rseg **floor)
{
	const struct ss_rseg *best = NULL;
	int64_t best_key = 0;
	for (uint32_t i = 0; i < x->n_fin; i++) {
		const struct ss_rseg *s = x->fin[i];
		for (uint32_t k = 0; k < s->n_epochs; k++) {
			if (s->epochs[k].epoch != epoch)
				continue;
			int64_t key = s->epochs[k].start_offset;
			if (key <= offset && (!best || key > best_key || (key == best_key && s->order > best->order))) {
				best = s;
				best_key = key;
			}
		}
	}
	*floor = best;
	if (!best)
		return NULL;
	int64_t epoch_end = best->end_offset;
	for (uint32_t k = 0; k < best->n_epochs; k++)
		if (best->epochs[k].epoch > epoch) {
			epoch_end = best->epochs[k].start_offset - 1;
			break;
		}
	return offset <= epoch_end ? best : NULL;
}

static int lineage_gaps(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	int64_t lso = ev->log_start_offset;
	int e;

	/* 1. offsets inside the remote tier's range that no finished segment holds, from the log
	 * start up to the highest copied offset: they are nowhere below the first local segment,
	 * and local retention treats local ones as copied. Only between two finished segments:
	 * before the first one, remote retention at work and a log-start-offset-checkpoint not
	 * yet rewritten look the same. */
	int64_t top = ev->seeded ? ev->highest_offset : -1;
	bool started = false;
	int64_t covered = 0;
	for (uint32_t i = 0; i < x->n_fin; i++) {
		const struct ss_rseg *s = x->fin[i];
		if (s->end_offset < lso)
			continue;
		if (!started) {
			started = true;
			covered = s->end_offset;
			continue;
		}
		if (covered >= top)
			break;
		if (s->start_offset > ss_inc_sat(covered)) {
			int64_t from = ss_inc_sat(covered), to = s->start_offset - 1;
			if (from < lso)
				from = lso;
			if (to > top)
				to = top;
			if (from <= to) {
				const struct ss_finding_spec spec = { .code = "EPOCH_LINEAGE_GAP" };
				if ((e = ss_eval_add_finding(
					     ev, &spec,
					     "no finished remote segment holds offsets %lld..%lld, between remote segments that "
					     "end at %lld and start at %lld, inside the remote tier (log start offset %lld, "
					     "highest offset in remote storage %lld): its lineage has a gap (metadata lost, for "
					     "example to __remote_log_metadata's retention); readers of those offsets fail, and "
					     "local retention treats local data there as copied",
					     (long long)from, (long long)to, (long long)covered, (long long)s->start_offset,
					     (long long)lso, (long long)top)))
					return e;
			}
		}
		if (s->end_offset > covered)
			covered = s->end_offset;
	}

	return 0;
}

static int lineage_disagrees(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_part *p = in->part;
	struct ss_eval *ev = x->ev;
	int64_t lso = ev->log_start_offset;
	char want[512], got[512];
	int e;

	const struct ss_epoch_entry *le = p->epochs;
	uint32_t nle = p->n_epochs;

	/* 2. each finished segment's epochs against the local lineage over its offsets, where
	 * the local checkpoint reaches (its first entry; it is truncated at the log start) */
	struct ss_epoch_entry *want_e = malloc(((size_t)nle + 1) * sizeof(*want_e));
	if (!want_e)
		return -ENOMEM;
	for (uint32_t i = 0; i < x->n_fin; i++) {
		const struct ss_rseg *s = x->fin[i];
		if (s->end_offset < lso || s->start_offset < le[0].start_offset)
			continue;
		/* beyond the local log end the local lineage does not reach either */
		if (s->end_offset >= ev->log_end_offset)
			continue;
		uint32_t nw = epochs_in_range(le, nle, s->start_offset, ss_inc_sat(s->end_offset), want_e);
		bool same = nw == s->n_epochs;
		for (uint32_t k = 0; same && k < nw; k++)
			same = s->epochs[k].epoch == want_e[k].epoch && s->epochs[k].start_offset == want_e[k].start_offset;
		if (same)
			continue;
		struct ss_epoch_entry got_e[16];
		uint32_t ng = rseg_epochs(s, got_e, 16);
		epochs_text(got_e, ng, got, sizeof(got));
		epochs_text(want_e, nw < 16 ? nw : 16, want, sizeof(want));
		const char *id = s->id;
		const struct ss_finding_spec spec = {
			.code = "EPOCH_LINEAGE_GAP", .has_amount = true, .segments = 1, .bytes = s->size_bytes,
			.ids = &id, .n_ids = 1,
		};
		e = ss_eval_add_finding(
			ev, &spec,
			"remote segment %s (offsets %lld..%lld) was uploaded with leader epochs %s%s, but this replica's "
			"leader-epoch-checkpoint gives %s%s for those offsets: the remote tier and the local log disagree on "
			"who wrote them (an unclean leader election, a truncated or rewritten checkpoint); fetches and "
			"replica builds that look an offset up by its epoch there find the wrong segment or none",
			s->id, (long long)s->start_offset, (long long)s->end_offset, got, s->n_epochs > 16 ? " (the first 16)" : "",
			want, nw > 16 ? " (the first 16)" : "");
		if (e) {
			free(want_e);
			return e;
		}
	}
	free(want_e);

	return 0;
}

static int lineage_aux_state(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_part *p = in->part;
	struct ss_eval *ev = x->ev;
	int64_t lso = ev->log_start_offset;
	const struct ss_epoch_entry *le = p->epochs;
	uint32_t nle = p->n_epochs;

	/* 3. what a new replica fetching from this one needs (TierStateMachine
	 * .buildRemoteLogAuxState): a finished segment holding the offset just below the first
	 * local segment, in the epoch that offset has in this lineage */
	if (!x->n_live)
		return 0;
	int64_t local_start = x->live[0]->base_offset;
	if (local_start <= lso)
		return 0;
	int64_t o = local_start - 1;
	bool claimed = false;   /* the remote tier reaches that low: else it is retention at work */
	for (uint32_t i = 0; i < x->n_fin; i++)
		claimed |= x->fin[i]->start_offset <= o;
	if (!claimed)
		return 0;
	int32_t ep = -1;
	for (uint32_t i = 0; i < nle; i++)
		if (le[i].start_offset <= o)
			ep = le[i].epoch;
	if (ep < 0)
		return 0;   /* the checkpoint does not reach that offset */
	const struct ss_rseg *floor;
	if (remote_for_epoch(x, ep, o, &floor))
		return 0;
	char why[320], name[32];
	seg_file(x->live[0], name, sizeof(name));
	if (!floor)
		snprintf(why, sizeof(why), "no finished remote segment carries leader epoch %d at or below that offset", ep);
	else
		snprintf(why, sizeof(why), "the finished segment holding epoch %d at or below it, %s (offsets %lld..%lld), "
			 "ends that epoch before offset %lld", ep, floor->id, (long long)floor->start_offset,
			 (long long)floor->end_offset, (long long)o);
	const struct ss_finding_spec spec = { .code = "EPOCH_LINEAGE_GAP" };
	return ss_eval_add_finding(
		ev, &spec,
		"offset %lld, just below the first local segment %s, has leader epoch %d in this replica's "
		"leader-epoch-checkpoint, but %s: a new replica that fetches from this one as leader cannot build its "
		"state from remote storage and its reassignment fails with \"previous remote log segment metadata was "
		"not found\" (the symptom of KAFKA-16105)",
		(long long)o, name, ep, why);
}

static int lineage(struct ss_evctx *x)
{
	const struct ss_part *p = x->in->part;
	int e;
	if (!x->remote || !x->n_fin)
		return 0;
	if ((e = lineage_gaps(x)))
		return e;
	if (!p->epochs_read || p->n_epochs == 0)
		return 0;
	if ((e = lineage_disagrees(x)))
		return e;
	return lineage_aux_state(x);
}

/* ---- UNDELETABLE_LOCAL_SEGMENT ---- */

/*
 * KAFKA-20609: local time retention (UnifiedLog.deleteRetentionMsBreachedSegments over
 * deletableSegments, the same from 3.6.0 to 4.4.0) walks the local segments oldest first
 * and stops at the first one with `now - largestTimestamp <= local retention`. A segment
 * whose newest record carries a timestamp after the broker's clock ("contains future
 * timestamp(s), making it ineligible to be deleted", Kafka's own warning) stops the walk
 * for every later segment, already copied and past local retention by its own records,
 * until its timestamp has aged past the limit. retention.c has walked size, then time, as
 * Kafka does: live[0..k) go; the walk stopped at live[k]. The segments it holds are those
 * after it, closed and in remote storage, past local.retention.ms by their own newest
 * record, up to the first one that is within retention by itself (it
 * would hold the rest on its own) or not yet copied. More segments with a future
 * timestamp on the way hold the rest until the latest of them ages.
 */
static int undeletable_local(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_retention *r = &ev->local;
	char name[32], when[40], until[40], ahead[48], lim[48], list[320], first_ts[40], last_ts[40];

	if (!ev->seeded || in->cfg->remote_copy_disable || !r->evaluated || r->unknown || !x->local_ms_settled ||
	    ev->local_limit_ms < 0)
		return 0;
	int64_t lms = ev->local_limit_ms, h = ev->highest_offset, now = in->now_ms;
	uint32_t k = r->n_delete;
	if (k + 2 > x->n_live)   /* the blocker and one closed segment after it, before the active one */
		return 0;
	const struct ss_seg *b = x->live[k];
	if (b->end_offset > h || ss_seg_size_unknown(b) || b->max_timestamp_ms <= now)
		return 0;   /* not copied yet, not judged, or within retention by an ordinary timestamp */
	/* The log start offset (deleteRecords, or remote size or time retention deleting the
	 * remote copies) frees the local segments below it first in every pass
	 * (deleteLogStartOffsetBreachedSegments: those whose next segment starts at or below
	 * it): past the blocker, the time walk goes on. */
	int64_t lso = ev->log_start_offset;
	const struct ss_retention *kinds[2] = { &ev->size, &ev->time };
	for (int i = 0; i < 2; i++) {
		if (kinds[i]->unknown)
			return 0;   /* it may free the blocker: whether anything is held is unknown */
		if (kinds[i]->evaluated && kinds[i]->has_new_log_start && kinds[i]->new_log_start_offset > lso)
			lso = kinds[i]->new_log_start_offset;
	}
	if (b->end_offset < lso)
		return 0;
	int64_t latest = b->max_timestamp_ms, free_at = 0, bytes = 0, lo_ts = INT64_MAX, hi_ts = INT64_MIN;
	uint32_t n = 0, blockers = 1, first = 0, last = 0;
	size_t at = 0;
	list[0] = 0;
	for (uint32_t i = k + 1; i + 1 < x->n_live; i++) {
		const struct ss_seg *s = x->live[i];
		if (s->end_offset > h)
			break;
		if (ss_seg_size_unknown(s) || s->max_timestamp_ms < 0) {
			seg_file(s, name, sizeof(name));
			return ss_eval_add_note(ev, "local segment %s behind %020lld.log, whose newest record is after the "
						"scan's clock, could not be read: whether local retention holds it and the "
						"segments after it cannot be told",
						name, (long long)b->base_offset);
		}
		if (ss_older_than(now, s->max_timestamp_ms, lms)) {
			if (!n)
				first = i;
			last = i;
			n++;
			bytes += s->size_bytes;
			free_at = latest;
			lo_ts = s->max_timestamp_ms < lo_ts ? s->max_timestamp_ms : lo_ts;
			hi_ts = s->max_timestamp_ms > hi_ts ? s->max_timestamp_ms : hi_ts;
			if (n <= 6 && at < sizeof(list)) {
				seg_file(s, name, sizeof(name));
				int m = snprintf(list + at, sizeof(list) - at, "%s%s", n > 1 ? ", " : "", name);
				at += m > 0 ? (size_t)m : 0;
			}
		} else if (s->max_timestamp_ms > now) {
			blockers++;
			latest = s->max_timestamp_ms > latest ? s->max_timestamp_ms : latest;
		} else {
			break;   /* within retention by its own records: it holds the rest itself */
		}
	}
	if (!n)
		return 0;
	if (n > 6 && at < sizeof(list))
		snprintf(list + at, sizeof(list) - at, " and %u more", n - 6);
	seg_file(b, name, sizeof(name));
	ss_eval_iso_ms(b->max_timestamp_ms, when, sizeof(when));
	ss_eval_human_ms(age_of(b->max_timestamp_ms, now), ahead, sizeof(ahead));
	ss_eval_human_ms(lms, lim, sizeof(lim));
	/* deletable once now - latest > lms: at latest + lms + 1 */
	__int128 t = (__int128)free_at + lms + 1;
	ss_eval_iso_ms(t > INT64_MAX ? INT64_MAX : (int64_t)t, until, sizeof(until));
	ss_eval_iso_ms(lo_ts, first_ts, sizeof(first_ts));
	ss_eval_iso_ms(hi_ts, last_ts, sizeof(last_ts));
	char more[160] = "";
	if (blockers > 1)
		snprintf(more, sizeof(more), " (the latest future timestamp of it and of %u more such segment%s between the "
			 "held ones, plus the limit)", blockers - 1, plural(blockers - 1));
	char size_rule[160];
	if (ev->local_limit_bytes >= 0)
		snprintf(size_rule, sizeof(size_rule), "local size retention (%lld bytes) does not reach them",
			 (long long)ev->local_limit_bytes);
	else
		snprintf(size_rule, sizeof(size_rule), "there is no local size limit");
	const struct ss_finding_spec spec = {
		.code = "UNDELETABLE_LOCAL_SEGMENT", .ref = "KAFKA-20609", .has_amount = true, .segments = n, .bytes = bytes,
	};
	return ss_eval_add_finding(
		ev, &spec,
		"%u closed local segment%s (%lld bytes, offsets %lld..%lld: %s) %s already in remote storage (highest "
		"offset in remote storage %lld) and past local retention (%lld ms, %s; their newest records are from %s "
		"to %s), but the broker keeps %s: its local time retention walks the segments oldest first and stops at "
		"%s (offsets %lld..%lld), whose newest record is timestamped %s, %s after the scan's clock, so it "
		"deletes none of the later ones before %s%s; %s, and no log start offset (deleteRecords, remote retention) "
		"reaches past the blocking segment to free it (KAFKA-20609)",
		n, plural(n), (long long)bytes, (long long)x->live[first]->base_offset, (long long)x->live[last]->end_offset,
		list, n == 1 ? "is" : "are", (long long)h, (long long)lms, lim, first_ts, last_ts, n == 1 ? "it" : "them",
		name, (long long)b->base_offset, (long long)b->end_offset, when, ahead, until, more, size_rule);
}

/* ---- --horizon ---- */

/* The forecast's numbers from the evaluation at now + horizon (ev2) and today's (ev). */
static void forecast_take(struct ss_forecast *fc, const struct ss_eval *ev, const struct ss_eval *ev2)
{
	if (ev2->total.unknown) {
		fc->unknown = true;
		fc->reason = ev2->total.reason ? ev2->total.reason : "not evaluated";
	} else {
		fc->local_delete_segments = ev2->total.n_local;
		fc->local_delete_bytes = ev2->total.local_bytes;
		fc->remote_delete_segments = ev2->total.n_remote;
		fc->remote_delete_bytes = ev2->total.remote_bytes;
		/* what is due now goes within the horizon too; today's walk reaches further
		 * only where the broker's size total counts today's highest copied segment
		 * twice (KAFKA-20977) and the uploads end that */
		if (!ev->total.unknown && ev->total.n_remote > fc->remote_delete_segments) {
			fc->remote_delete_segments = ev->total.n_remote;
			fc->remote_delete_bytes = ev->total.remote_bytes;
		}
	}
}

/*
 * The same evaluation at now + horizon: the copy task has copied every closed segment
 * (unless it is stuck, or copies are disabled), and retention of each kind runs at that
 * time over what exists now; remote size retention's total counts those uploads (their
 * bytes move from only-local to remote, the total stays what Kafka sums), its walk goes
 * over the remote segments of now only. No write is assumed in between: what new data would add to
 * size retention, and the segments it would roll, are not predicted (docs/contract.md).
 * The segments' evaluator fields are put back as the evaluation of now left them.
 */
static int forecast(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	struct ss_forecast *fc = &ev->forecast;
	int e;

	fc->evaluated = true;
	fc->horizon_ms = in->horizon_ms;
	/* KIP-950: disabling tiering stops the copies (remote.log.copy.disable=true first) and
	 * local retention falls back to retention.ms/bytes over every local segment */
	struct ss_topic_cfg what_if;
	bool disable = in->disable_tiering && ev->tiered;
	fc->disable_tiering = disable;
	if (disable) {
		what_if = *in->cfg;
		what_if.remote_copy_disable = 1;
	}
	if (ev->tiered && !ev->seeded && !disable) {
		fc->unknown = true;
		fc->reason = "unseeded";
		return 0;
	}
	bool copying = ev->tiered && !in->cfg->remote_copy_disable && !disable;
	for (uint32_t i = 0; copying && i < ev->n_findings; i++)
		if (!strcmp(ev->findings[i].code, "STUCK_REMOTE_COPY"))
			copying = false;
	struct ss_eval_input in2 = *in;
	in2.now_ms = in->now_ms > INT64_MAX - in->horizon_ms ? INT64_MAX : in->now_ms + in->horizon_ms;
	in2.horizon_ms = 0;
	in2.stuck_after_ms = 0;
	in2.rlmm = NULL;
	in2.disable_tiering = false;
	if (disable)
		in2.cfg = &what_if;
	if (ev->tiered && ev->seeded) {
		int64_t h = ev->highest_offset;
		if (copying && !ev->copy_lag_null && ev->copy_lag_segments > 0 && x->n_live >= 2) {
			h = x->live[x->n_live - 2]->end_offset;
			fc->copy_segments = ev->copy_lag_segments;
			in2.copied_bytes = ev->copy_lag_bytes;   /* remote bytes by then */
		} else if (copying && ev->copy_lag_null) {
			fc->unknown = true;
			fc->reason = "a segment could not be read";
			return 0;
		}
		in2.has_seed = true;
		in2.seed = h;
	}
	uint32_t n = in->part->seg_count;
	uint16_t *flags = n ? malloc((size_t)n * sizeof(*flags)) : NULL;
	int64_t *ends = n ? malloc((size_t)n * sizeof(*ends)) : NULL;
	if (n && (!flags || !ends)) {
		free(flags);
		free(ends);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		flags[i] = in->segs[i].flags;
		ends[i] = in->segs[i].end_offset;
	}
	struct ss_eval *ev2 = NULL;
	e = ss_eval_partition(&in2, &ev2);
	for (uint32_t i = 0; i < n; i++) {
		in->segs[i].flags = flags[i];
		in->segs[i].end_offset = ends[i];
	}
	free(flags);
	free(ends);
	if (e)
		return e;
	forecast_take(fc, ev, ev2);
	ss_eval_free(ev2);
	return 0;
}

int ss_eval_health(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	int e;

	if (in->stuck_after_ms > 0 && ev->tiered && !in->metadata_log) {
		/* remote.log.copy.disable=true stops copies on purpose (3.9+) */
		if (!in->cfg->remote_copy_disable) {
			if ((e = stuck_started(x)) < 0)
				return e;
			if (e == 0 && (e = wedged_copy(x)) < 0)
				return e;
		}
		if ((e = stuck_delete(x)) < 0)
			return e;
	}
	if (ev->tiered && !in->metadata_log && (e = metadata_at_risk(x)) < 0)
		return e;
	if (ev->tiered && !in->metadata_log && (e = lineage(x)) < 0)
		return e;
	if (ev->tiered && !in->metadata_log && (e = undeletable_local(x)) < 0)
		return e;
	/* last: it reads the findings above (a stuck copy copies nothing) */
	if (in->horizon_ms > 0 && !in->metadata_log && (e = forecast(x)) < 0)
		return e;
	return 0;
}
