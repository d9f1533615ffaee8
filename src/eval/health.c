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
#include <stdio.h>
#include <string.h>

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
	if (!ev->seeded || ev->copy_lag_null)
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
		"to remote storage (the next segment, %s, holds records from %s), longer than the %lld ms (%s) allowed "
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
	return 0;
}
