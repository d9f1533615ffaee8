/*
 * The true remote delete lag of a partition (issue 27, KAFKA-21098): what the leader's
 * RLMExpirationTask would count in RemoteDeleteLagSegments/Bytes if its pass ran now over
 * this remote state (RemoteLogManager.cleanupExpiredRemoteLogSegments, 3.7.0 to 4.4.0;
 * docs/kafka-format.md §5.3, docs/contract.md "delete_lag").
 *
 * A pass counts, before it deletes anything, the segments its epoch walk chooses:
 *  - what remote size and time retention delete: retention.c's walks, ev->total's remote
 *    part, taken as they are (no second retention walk here);
 *  - finished segments below the log start offset whose epochs all lie at or below the
 *    first local epoch (isSegmentBreachByLogStartOffset), where retention's walk stopped;
 *  - DELETE_SEGMENT_STARTED segments the walk reaches: 4.0.0 and later queue every one again
 *    (the KAFKA-17428 retry); earlier releases only one that retention chooses again (below
 *    the log start offset, or past retention.ms);
 * and then adds the segments listed under remote epochs older than the first entry of the
 * local leader-epoch cache (the unreferenced-lineage cleanup), once per epoch that lists
 * them, as the broker counts them. The gauge is set to that count before the first delete
 * and lowered after each delete that succeeds, so at the start of a pass it equals this.
 *
 * Kafka 4.0+ adds no bytes for a re-queued DELETE_SEGMENT_STARTED segment when it queues it
 * (and subtracts them when the delete succeeds): size_bytes counts them, so the broker's
 * bytes can be below this, never above it for that reason.
 *
 * Null (delete_lag_null, with why): not tiered; a release known to have no such gauge
 * (before 3.7.0, KIP-963); a follower's replica (only the leader runs the expiration task:
 * its row carries the lag); remote state unknown or unseeded; retention unknown; the local
 * epochs unknown where they decide; a rule the unknown release leaves open.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/dellag.h"
#include "eval/eval_int.h"

static const char WHY_NOT_TIERED[] = "not tiered";
static const char WHY_NO_GAUGE[] =
	"the broker's release has no RemoteDeleteLagSegments/Bytes gauges (Kafka 3.7.0 and later, KIP-963)";
static const char WHY_FOLLOWER[] = "a follower's replica: only the leader's expiration task deletes and counts";
static const char WHY_REMOTE[] = "remote state unknown";
static const char WHY_EPOCHS[] =
	"the leader-epoch-checkpoint is missing, unreadable or empty: the epochs the expiration task walks are unknown";
static const char WHY_DSS_RELEASE[] =
	"the broker's release is unknown, and a remote segment is in DELETE_SEGMENT_STARTED: Kafka 4.0.0 and later "
	"queue it for deletion again on every pass, earlier releases only when retention chooses it again "
	"(KAFKA-17428)";

/* null; unknown: for want of an input (not "does not apply": not tiered, no such gauge, a
 * follower's row) */
static int set_null(struct ss_eval *ev, const char *why, bool unknown)
{
	ev->delete_lag_null = true;
	ev->delete_lag_unknown = unknown;
	ev->delete_lag_why = why;
	ev->delete_lag_segments = 0;
	ev->delete_lag_bytes = 0;
	return 0;
}

static bool epochs_known(const struct ss_part *p)
{
	return p->epochs_read && p->n_epochs > 0;
}

/* The first epoch of buildFilteredLeaderEpochMap: an epoch whose start offset equals the
 * next one's has no records and is dropped. */
static int32_t first_filtered_epoch(const struct ss_part *p)
{
	uint32_t i = 0;
	while (i + 1 < p->n_epochs && p->epochs[i].start_offset == p->epochs[i + 1].start_offset)
		i++;
	return p->epochs[i].epoch;
}

/* isSegmentBreachByLogStartOffset: every epoch of the segment <= the first local epoch and
 * it ends below the log start offset. The caller knows the local epochs. */
static bool lso_breach(const struct ss_evctx *x, const struct ss_rseg *s)
{
	int32_t first = first_filtered_epoch(x->in->part);
	if (s->end_offset >= x->ev->log_start_offset)
		return false;
	for (uint32_t i = 0; i < s->n_epochs; i++)
		if (s->epochs[i].epoch > first)
			return false;
	return true;
}

/* Every epoch of the segment below the oldest local epoch (unfiltered: earliestEntry()). */
static bool below_lineage(const struct ss_part *p, const struct ss_rseg *s)
{
	for (uint32_t i = 0; i < s->n_epochs; i++)
		if (s->epochs[i].epoch >= p->epochs[0].epoch)
			return false;
	return s->n_epochs > 0;
}

/* Has the segment an epoch in the local lineage at all (the main walk lists it)? */
static bool listed_by_walk(const struct ss_part *p, const struct ss_rseg *s)
{
	return !below_lineage(p, s);
}

/* 3.7 to 3.9: does retention choose a DELETE_SEGMENT_STARTED segment again? Below the log
 * start offset, or past retention.ms (those releases' <= cutoff). */
static bool rechosen_pre40(const struct ss_evctx *x, const struct ss_rseg *s)
{
	const struct ss_retention *t = &x->ev->time;
	if (lso_breach(x, s))
		return true;
	return t->evaluated && t->limit >= 0 &&
	       (__int128)s->max_timestamp_ms <= (__int128)x->in->now_ms - t->limit;
}

struct lag {
	int64_t segments, bytes;
};

/*
 * The main walk beyond retention's prefix: the log-start-offset breaches that follow it,
 * then where the walk stops (*stop: the start offset of the first finished segment it keeps,
 * INT64_MAX when it keeps none).
 */
static void walk_rest(const struct ss_evctx *x, struct lag *l, int64_t *stop)
{
	*stop = INT64_MAX;
	for (uint32_t i = x->ev->total.n_remote; i < x->n_fin; i++) {
		if (below_lineage(x->in->part, x->fin[i]))
			continue;   /* not listed by this walk: the unreferenced cleanup's */
		if (!lso_breach(x, x->fin[i])) {
			*stop = x->fin[i]->start_offset;
			return;
		}
		l->segments++;
		l->bytes += x->fin[i]->size_bytes;
	}
}

/* The DELETE_SEGMENT_STARTED segments the walk reaches, by release rule: *post40 as 4.0.0
 * and later count them, *pre40 as 3.7 to 3.9 do. */
static void delete_started(const struct ss_evctx *x, int64_t stop, struct lag *pre40, struct lag *post40)
{
	const struct ss_remote_part *rp = x->remote;
	for (uint32_t i = 0; i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		if (s->state != SS_RSEG_DELETE_STARTED || !listed_by_walk(x->in->part, s) || s->start_offset >= stop)
			continue;
		post40->segments++;
		post40->bytes += s->size_bytes;
		if (rechosen_pre40(x, s)) {
			pre40->segments++;
			pre40->bytes += s->size_bytes;
		}
	}
}

/* The unreferenced-lineage cleanup: every remote epoch older than the oldest local one,
 * each listing its segments (any state the cache holds) through the broker's own index. */
static int unreferenced(const struct ss_evctx *x, struct lag *l)
{
	const struct ss_remote_part *rp = x->remote;
	int32_t earliest = x->in->part->epochs[0].epoch;
	for (uint32_t k = 0; k < rp->n_epochs; k++) {
		int32_t epoch = rp->epochs[k].epoch;
		if (epoch >= earliest)
			break;   /* ascending */
		const struct ss_rseg **list = NULL;
		uint32_t n = 0;
		int e = ss_remote_list_epoch(rp, epoch, true, &list, &n);
		if (e)
			return e;
		for (uint32_t i = 0; i < n; i++) {
			if (list[i]->state == SS_RSEG_DELETE_FINISHED)
				continue;
			l->segments++;
			l->bytes += list[i]->size_bytes;
		}
		free(list);
	}
	return 0;
}

/* What finished deleting within SS_DELLAG_SLACK_MS before now (by the broker's event
 * time): a gauge read then may have counted it still. */
static void recent_finished(const struct ss_evctx *x)
{
	const struct ss_remote_part *rp = x->remote;
	struct ss_eval *ev = x->ev;
	for (uint32_t i = 0; rp && i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		if (s->state == SS_RSEG_DELETE_FINISHED && !ss_older_than(x->in->now_ms, s->event_ms, SS_DELLAG_SLACK_MS)) {
			ev->delete_lag_recent_segments++;
			ev->delete_lag_recent_bytes += s->size_bytes;
		}
	}
}

/* Does the partition have a remote segment the broker's cache still holds (anything but
 * DELETE_SEGMENT_FINISHED)? Then which walk lists it, and how often, needs the local epochs. */
static bool any_live(const struct ss_remote_part *rp)
{
	for (uint32_t i = 0; rp && i < rp->n_segs; i++)
		if (ss_remote_seg(rp, i)->state != SS_RSEG_DELETE_FINISHED)
			return true;
	return false;
}

/* Retention's remote deletions the main walk lists: a segment with no epoch in the local
 * lineage is not among them (the unreferenced cleanup counts it). */
static void retention_part(const struct ss_evctx *x, struct lag *l)
{
	for (uint32_t i = 0; i < x->ev->total.n_remote && i < x->n_fin; i++) {
		if (below_lineage(x->in->part, x->fin[i]))
			continue;
		l->segments++;
		l->bytes += x->fin[i]->size_bytes;
	}
}

int ss_eval_delete_lag(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;

	if (in->metadata_log || !ev->tiered)
		return set_null(ev, WHY_NOT_TIERED, false);
	if (ss_eval_release_before(in, 3, 7) == SS_AFFECTED)
		return set_null(ev, WHY_NO_GAUGE, false);
	if (ev->role == SS_ROLE_FOLLOWER)
		return set_null(ev, WHY_FOLLOWER, false);
	if (ev->remote_unknown || !ev->seeded)
		return set_null(ev, WHY_REMOTE, true);
	if (ev->total.unknown)
		return set_null(ev, ev->total.reason ? ev->total.reason : "retention unknown", true);

	if (!any_live(x->remote)) {
		ev->delete_lag_segments = 0;
		ev->delete_lag_bytes = 0;
		recent_finished(x);
		return 0;
	}
	if (!epochs_known(in->part))
		return set_null(ev, WHY_EPOCHS, true);

	struct lag l = { 0, 0 };
	retention_part(x, &l);
	int64_t stop;
	walk_rest(x, &l, &stop);
	struct lag pre40 = { 0, 0 }, post40 = { 0, 0 };
	delete_started(x, stop, &pre40, &post40);
	switch (ss_eval_affects(in, "KAFKA-17428")) {
	case SS_AFFECTED:
		break;
	case SS_NOT_AFFECTED:
		pre40 = post40;
		break;
	default:
		if (pre40.segments != post40.segments)
			return set_null(ev, WHY_DSS_RELEASE, true);
		break;
	}
	l.segments += pre40.segments;
	l.bytes += pre40.bytes;
	int e = unreferenced(x, &l);
	if (e)
		return e;
	ev->delete_lag_segments = l.segments;
	ev->delete_lag_bytes = l.bytes;
	recent_finished(x);
	return 0;
}

/* ---- one broker's gauge for one topic against the partitions it leads ---------------- */

static const char WHY_NO_NODE[] = "the broker's node id is unknown: which partitions it leads cannot be told";
static const char WHY_NO_IMAGE[] = "no metadata log: which partitions of the topic the broker leads is unknown";
static const char WHY_NOT_SCANNED[] = "a partition the broker leads is not in the scanned log dirs";
static const char WHY_MEMBER[] = "the delete lag of a partition the broker leads is unknown";
static const char WHY_STALE[] =
	"the broker's gauges were read more than 10 minutes away from the scan's clock: not comparable";

void ss_topic_dellag_free(struct ss_topic_dellag *t)
{
	/* a PHANTOM_DELETE_LAG names no segment ids or object keys: its message is all it owns */
	for (uint32_t i = 0; i < t->n_findings; i++)
		free(t->findings[i].message);
	free(t->findings);
	t->findings = NULL;
	t->n_findings = 0;
}

/* The true delete lag over the partitions the broker leads, and the margin of deletes that
 * finished recently; NULL, or why it is unknown. */
static const char *led_sum(const struct ss_dellag_input *in, struct ss_topic_dellag *out, int64_t *slack_s,
			   int64_t *slack_b)
{
	*slack_s = *slack_b = 0;
	if (in->node_id < 0)
		return WHY_NO_NODE;
	if (!in->image)
		return WHY_NO_IMAGE;
	for (uint32_t i = 0; i < in->n_members; i++) {
		const struct ss_dellag_member *m = &in->members[i];
		if (m->leader != in->node_id)
			continue;
		out->led++;
		if (!m->ev)
			return WHY_NOT_SCANNED;
		if (m->ev->delete_lag_null) {
			if (m->ev->delete_lag_unknown || m->ev->tiered)
				return m->ev->delete_lag_why ? m->ev->delete_lag_why : WHY_MEMBER;
			continue;   /* not tiered: no gauge value of its own */
		}
		out->segments += m->ev->delete_lag_segments;
		out->bytes += m->ev->delete_lag_bytes;
		*slack_s += m->ev->delete_lag_recent_segments;
		*slack_b += m->ev->delete_lag_recent_bytes;
	}
	return NULL;
}

/* "0 (led by node 2, leader epoch 7), 3 (no leader)": the partitions it does not lead. */
static void moved_text(const struct ss_dellag_input *in, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < in->n_members && o + 1 < len; i++) {
		const struct ss_dellag_member *m = &in->members[i];
		if (m->leader == in->node_id)
			continue;
		int w = m->leader < 0 ? snprintf(buf + o, len - o, "%s%d (no leader)", o ? ", " : "", m->partition)
				      : snprintf(buf + o, len - o, "%s%d (led by node %d, leader epoch %d)", o ? ", " : "",
						 m->partition, m->leader, m->leader_epoch);
		if (w < 0 || (size_t)w >= len - o) {
			snprintf(buf + (len > 5 ? len - 5 : 0), len > 5 ? 5 : len, " ...");
			return;
		}
		o += (size_t)w;
	}
}

static int phantom(const struct ss_dellag_input *in, struct ss_topic_dellag *out)
{
	struct ss_eval_input ein = { .release = in->release };
	char caveat[512], moved[1024], led[64];
	ss_eval_release_caveat(&ein, "KAFKA-21098", caveat, sizeof(caveat));
	moved_text(in, moved, sizeof(moved));
	if (out->led)
		snprintf(led, sizeof(led), "the %u partition%s of it that it leads", out->led, out->led == 1 ? "" : "s");
	else
		snprintf(led, sizeof(led), "no partition of it: it leads none");
	int64_t xs = out->broker_segments - out->segments, xb = out->broker_bytes - out->bytes;
	const struct ss_finding_spec spec = {
		.code = "PHANTOM_DELETE_LAG", .ref = "KAFKA-21098", .has_amount = true,
		.segments = xs > 0 ? xs : 0, .bytes = xb > 0 ? xb : 0,
	};
	struct ss_eval tmp = { 0 };
	int e = ss_eval_add_finding(
		&tmp, &spec,
		"node %d's RemoteDeleteLagSegments/RemoteDeleteLagBytes for topic %s report %" PRId64 " segments and %" PRId64
		" bytes (read from %s), but the remote segments due for deletion on %s add up to %" PRId64 " segments and "
		"%" PRId64 " bytes%s%s: an expiration pass still running when a partition's leadership moved away "
		"re-registered the gauge after the move removed it, and nothing drains it (KAFKA-21098, fixed in 4.4.0 by "
		"apache/kafka#23471)%s",
		in->node_id, in->topic, out->broker_segments, out->broker_bytes,
		in->gauges->url ? in->gauges->url : "--broker-metrics", led, out->segments, out->bytes,
		moved[0] ? "; partitions it no longer leads: " : "", moved, caveat);
	out->findings = tmp.findings;
	out->n_findings = tmp.n_findings;
	return e;
}

int ss_eval_topic_delete_lag(const struct ss_dellag_input *in, struct ss_topic_dellag *out)
{
	out->topic = in->topic;
	out->node_id = in->node_id;
	const struct ss_topic_gauges *tg = in->gauges && in->gauges->ok ? in->tg : NULL;
	out->broker_known = tg && tg->delete_lag_segments.present && tg->delete_lag_bytes.present;
	if (out->broker_known) {
		out->broker_segments = tg->delete_lag_segments.value;
		out->broker_bytes = tg->delete_lag_bytes.value;
	}
	int64_t ss, sb;
	out->why = led_sum(in, out, &ss, &sb);
	out->known = out->why == NULL;
	if (!out->known) {
		out->segments = out->bytes = 0;
		return 0;
	}
	if (!out->broker_known || (out->broker_segments <= out->segments + ss && out->broker_bytes <= out->bytes + sb))
		return 0;
	/* the gauges and the remote state must be of about the same time */
	if (ss_older_than(in->now_ms, in->gauges->read_at_ms, SS_DELLAG_SLACK_MS) ||
	    ss_older_than(in->gauges->read_at_ms, in->now_ms, SS_DELLAG_SLACK_MS)) {
		out->why = WHY_STALE;
		return 0;
	}
	struct ss_eval_input ein = { .release = in->release };
	if (ss_eval_affects(&ein, "KAFKA-21098") == SS_NOT_AFFECTED)
		return 0;
	return phantom(in, out);
}
