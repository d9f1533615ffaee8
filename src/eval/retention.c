/*
 * Retention predictions (docs/contract.md "Retention semantics"; docs/kafka-format.md §5.3).
 *
 * Every walk goes oldest first and stops at the first segment that does not qualify;
 * the active segment is never deleted. Remote walks go over the finished remote
 * segments by start offset, ties in event order, all of them, including the ones
 * Kafka's epoch index lost (KAFKA-20932).
 *
 * new_log_start_offset is the highest end_offset + 1 among the deleted segments (a
 * remote segment list can overlap), never below the current log start offset (Kafka
 * only ever raises it). Remote time retention follows later Kafka: strict
 * max_timestamp_ms < now - retention.ms, and nothing when now - retention.ms < 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_int.h"

static void not_evaluated(struct ss_retention *r, const char *why, int64_t limit)
{
	r->evaluated = false;
	r->reason = why;
	r->limit = limit;
	r->total_bytes = -1;
}

/* Not evaluated because an input is unknown: what it would delete is unknown too. */
static void unknown(struct ss_retention *r, const char *why, int64_t limit)
{
	not_evaluated(r, why, limit);
	r->unknown = true;
}

static const char WHY_UNREADABLE[] = "a segment could not be read";
static const char WHY_NO_DELETE[] = "cleanup.policy has no delete";

/*
 * Does cleanup.policy let size and time retention run? UnifiedLog.deleteOldSegments
 * applies retention.ms and retention.bytes only when the policy has delete (config.delete);
 * compact alone deletes nothing by time or size. NULL when they run; else the reason,
 * with *unk when the policy itself is unknown: the internal topics Kafka creates compacted
 * (GroupCoordinator's and TransactionStateManager's topic configs) are not predicted from
 * Kafka's default policy (delete) when no source says which one they have.
 */
static const char *policy_blocks(const struct ss_evctx *x, bool *unk)
{
	const struct ss_topic_cfg *cfg = x->in->cfg;
	const char *t = x->in->part->topic;
	*unk = false;
	if (cfg->no_delete)
		return WHY_NO_DELETE;
	if (!cfg->policy_known && t && (!strcmp(t, "__consumer_offsets") || !strcmp(t, "__transaction_state"))) {
		*unk = true;
		return "cleanup.policy unknown (Kafka creates this topic with cleanup.policy=compact)";
	}
	return NULL;
}

/* Record the remote segments fin[0..k) as retention's deletions. */
static int take_remote(struct ss_evctx *x, struct ss_retention *r, uint32_t k)
{
	r->delete_is_remote = true;
	if (!k)
		return 0;
	if (!(r->delete_ids = calloc(k, sizeof(char *))))
		return -ENOMEM;
	int64_t nlso = x->ev->log_start_offset;
	for (uint32_t i = 0; i < k; i++) {
		if (!(r->delete_ids[i] = strdup(x->fin[i]->id)))
			return -ENOMEM;   /* ss_eval_free frees the n_delete set so far */
		r->n_delete = i + 1;
		r->delete_bytes += x->fin[i]->size_bytes;
		if (ss_inc_sat(x->fin[i]->end_offset) > nlso)
			nlso = ss_inc_sat(x->fin[i]->end_offset);
	}
	r->has_new_log_start = true;
	r->new_log_start_offset = nlso;
	return 0;
}

/* Record the local segments live[0..k) as deletions. */
static int take_local(struct ss_evctx *x, struct ss_retention *r, uint32_t k, bool new_lso)
{
	r->delete_is_remote = false;
	if (!k)
		return 0;
	if (!(r->delete_offsets = malloc((size_t)k * sizeof(int64_t))))
		return -ENOMEM;
	for (uint32_t i = 0; i < k; i++) {
		r->delete_offsets[i] = x->live[i]->base_offset;
		r->delete_bytes += x->live[i]->size_bytes;
	}
	r->n_delete = k;
	if (new_lso) {
		/* k < n_live: the active segment is never deleted, so a next one exists */
		int64_t nlso = x->live[k]->base_offset;
		r->has_new_log_start = true;
		r->new_log_start_offset = nlso > x->ev->log_start_offset ? nlso : x->ev->log_start_offset;
	}
	return 0;
}

/* The running-difference size walk over remote segments: how many fin[] go. */
static uint32_t remote_size_walk(const struct ss_evctx *x, int64_t breach)
{
	uint32_t k = 0;
	while (k < x->n_fin && breach - x->fin[k]->size_bytes >= 0) {
		breach -= x->fin[k]->size_bytes;
		k++;
	}
	return k;
}

static uint32_t remote_time_walk(const struct ss_evctx *x, int64_t limit_ms)
{
	__int128 cutoff = (__int128)x->in->now_ms - limit_ms;
	if (cutoff < 0)
		return 0;
	uint32_t k = 0;
	while (k < x->n_fin && (__int128)x->fin[k]->max_timestamp_ms < cutoff)
		k++;
	return k;
}

/* Local walks: `uploaded_only` limits them to segments already in remote storage. *unk:
 * the walk reached a segment it cannot judge (unreadable: its time or size unknown). */
static uint32_t local_time_walk(const struct ss_evctx *x, int64_t limit_ms, bool uploaded_only, int64_t highest,
				bool *unk)
{
	uint32_t k = 0;
	while (k + 1 < x->n_live) {
		const struct ss_seg *s = x->live[k];
		if (uploaded_only && s->end_offset > highest)
			break;
		/* a segment whose facts could not be read: where the walk stops is unknown */
		if (ss_seg_size_unknown(s) || s->max_timestamp_ms < 0) {
			*unk = true;
			return 0;
		}
		if (!ss_older_than(x->in->now_ms, s->max_timestamp_ms, limit_ms))
			break;
		k++;
	}
	return k;
}

static uint32_t local_size_walk(const struct ss_evctx *x, int64_t limit_bytes, bool uploaded_only, int64_t highest,
				bool *unk)
{
	int64_t size = x->ev->size_bytes;
	if (x->ev->size_unknown) {   /* the partition's size is a floor: the breach is unknown */
		*unk = true;
		return 0;
	}
	if (size < limit_bytes)
		return 0;
	int64_t diff = size - limit_bytes;
	uint32_t k = 0;
	while (k + 1 < x->n_live) {
		const struct ss_seg *s = x->live[k];
		if (uploaded_only && s->end_offset > highest)
			break;
		if (diff - s->size_bytes < 0)
			break;
		diff -= s->size_bytes;
		k++;
	}
	return k;
}

/* KAFKA-20732: what the broker's unseeded size computation would delete on top. */
static int unseeded_size_finding(struct ss_evctx *x, int64_t limit)
{
	struct ss_eval *ev = x->ev;
	int64_t btotal = ev->size_bytes + ev->remote_bytes;
	if (btotal <= limit)
		return 0;
	uint32_t kb = remote_size_walk(x, btotal - limit);
	uint32_t kc = ev->size.n_delete;
	/* segments time retention deletes anyway are not in retention */
	uint32_t from = kc > ev->time.n_delete ? kc : ev->time.n_delete;
	if (kb <= from)
		return 0;
	uint32_t n = kb - from;
	const char **ids = malloc((size_t)n * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	int64_t bytes = 0, lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		const struct ss_rseg *s = x->fin[from + i];
		ids[i] = s->id;
		bytes += s->size_bytes;
		if (s->start_offset < lo)
			lo = s->start_offset;
		if (s->end_offset > hi)
			hi = s->end_offset;
	}
	char caveat[512];
	ss_eval_release_caveat(x->in, "KAFKA-20732", caveat, sizeof(caveat));
	const struct ss_finding_spec spec = {
		.code = "UNSEEDED_SIZE_RETENTION", .ref = "KAFKA-20732", .has_amount = true,
		.segments = n, .bytes = bytes, .ids = ids, .n_ids = n,
	};
	int e = ss_eval_add_finding(
		ev, &spec,
		"a broker that runs size retention before it knows its highest offset in remote storage (a new "
		"leader, KAFKA-20732) counts all %lld local bytes as not yet uploaded on top of %lld remote bytes: "
		"%lld > retention.bytes %lld, so it would delete %u more remote segment%s (%lld bytes, offsets "
		"%lld..%lld) that are within retention (the correct total is %lld bytes)%s",
		(long long)ev->size_bytes, (long long)ev->remote_bytes, (long long)btotal, (long long)limit, n,
		n == 1 ? "" : "s", (long long)bytes, (long long)lo, (long long)hi, (long long)ev->size.total_bytes,
		caveat);
	free(ids);
	return e;
}

static int tiered_retention(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	const struct ss_topic_cfg *cfg = x->in->cfg;
	bool pol_unk;
	const char *blocked = policy_blocks(x, &pol_unk);
	int e;

	/* size: only-local + finished remote, walked over remote */
	struct ss_retention *r = &ev->size;
	r->limit = cfg->retention_bytes;
	r->delete_is_remote = true;
	if (blocked) {
		(pol_unk ? unknown : not_evaluated)(r, blocked, cfg->retention_bytes);
	} else if (cfg->retention_bytes < 0) {
		not_evaluated(r, "no limit", cfg->retention_bytes);
		if (ev->seeded)
			r->total_bytes = ev->only_local_bytes + ev->remote_bytes;
	} else if (!ev->seeded) {
		unknown(r, "unseeded", cfg->retention_bytes);
	} else if (ev->only_local_null) {
		unknown(r, WHY_UNREADABLE, cfg->retention_bytes);   /* the local half of the total */
	} else {
		r->evaluated = true;
		r->total_bytes = ev->only_local_bytes + ev->remote_bytes;
		uint32_t k = r->total_bytes > r->limit ? remote_size_walk(x, r->total_bytes - r->limit) : 0;
		if ((e = take_remote(x, r, k)))
			return e;
	}

	/* time: remote segments older than retention.ms */
	r = &ev->time;
	r->limit = cfg->retention_ms;
	r->delete_is_remote = true;
	r->total_bytes = -1;
	if (blocked) {
		(pol_unk ? unknown : not_evaluated)(r, blocked, cfg->retention_ms);
	} else if (cfg->retention_ms < 0) {
		not_evaluated(r, "no limit", cfg->retention_ms);
	} else {
		r->evaluated = true;
		if ((e = take_remote(x, r, remote_time_walk(x, cfg->retention_ms))))
			return e;
	}

	/* KAFKA-20732: only where the broker's release can run size retention unseeded, and on
	 * the replica whose broker runs the remote expiration: the leader (or one whose role is
	 * unknown); a follower's is evaluated on the leader's row (issue 22) */
	if (ev->size.evaluated && ev->role != SS_ROLE_FOLLOWER && ss_eval_affects(x->in, "KAFKA-20732") != SS_NOT_AFFECTED &&
	    (e = unseeded_size_finding(x, cfg->retention_bytes)))
		return e;

	/* local tier: local.retention.* (-2: retention.*) over segments already uploaded.
	 * Kafka 4.2's empty cleanup.policy keeps this one while copying to remote storage
	 * (UnifiedLog.deleteOldSegments: remoteLogEnabledAndRemoteCopyEnabled), nothing else. */
	bool copy = !cfg->remote_copy_disable;
	int64_t lms = cfg->local_retention_ms, lbytes = cfg->local_retention_bytes;
	if (!copy || lms == -2)
		lms = cfg->retention_ms;
	if (!copy || lbytes == -2)
		lbytes = cfg->retention_bytes;
	ev->local_limit_ms = lms < 0 ? -1 : lms;
	ev->local_limit_bytes = lbytes < 0 ? -1 : lbytes;
	r = &ev->local;
	r->delete_is_remote = false;
	r->total_bytes = -1;
	r->limit = -1;
	if (blocked && (pol_unk || !copy)) {
		(pol_unk ? unknown : not_evaluated)(r, blocked, -1);
		return 0;
	}
	if (lms < 0 && lbytes < 0) {
		not_evaluated(r, "no limit", -1);
		return 0;
	}
	if (copy && !ev->seeded) {
		/* nothing is known to be uploaded, so nothing local can go */
		unknown(r, "unseeded", -1);
		return 0;
	}
	int64_t h = ev->seeded ? ev->highest_offset : -1;
	bool unk = false;
	uint32_t kt = lms >= 0 ? local_time_walk(x, lms, copy, h, &unk) : 0;
	uint32_t ks = lbytes >= 0 ? local_size_walk(x, lbytes, copy, h, &unk) : 0;
	if (unk) {
		unknown(r, WHY_UNREADABLE, -1);
		return 0;
	}
	r->evaluated = true;
	/* both walks are prefixes of the same list: their union is the longer one */
	return take_local(x, r, kt > ks ? kt : ks, false);
}

static int local_only_retention(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	const struct ss_topic_cfg *cfg = x->in->cfg;
	bool pol_unk, unk = false;
	const char *blocked = policy_blocks(x, &pol_unk);
	int e;

	struct ss_retention *r = &ev->size;
	r->limit = cfg->retention_bytes;
	r->total_bytes = ev->size_unknown ? -1 : ev->size_bytes;
	if (blocked) {
		(pol_unk ? unknown : not_evaluated)(r, blocked, cfg->retention_bytes);
		r->total_bytes = ev->size_unknown ? -1 : ev->size_bytes;
	} else if (cfg->retention_bytes < 0) {
		r->evaluated = false;
		r->reason = "no limit";
	} else {
		uint32_t k = local_size_walk(x, cfg->retention_bytes, false, 0, &unk);
		if (unk) {
			unknown(r, WHY_UNREADABLE, cfg->retention_bytes);
		} else {
			r->evaluated = true;
			if ((e = take_local(x, r, k, true)))
				return e;
		}
	}

	r = &ev->time;
	r->limit = cfg->retention_ms;
	r->total_bytes = -1;
	if (blocked) {
		(pol_unk ? unknown : not_evaluated)(r, blocked, cfg->retention_ms);
	} else if (cfg->retention_ms < 0) {
		not_evaluated(r, "no limit", cfg->retention_ms);
	} else {
		unk = false;
		uint32_t k = local_time_walk(x, cfg->retention_ms, false, 0, &unk);
		if (unk) {
			unknown(r, WHY_UNREADABLE, cfg->retention_ms);
		} else {
			r->evaluated = true;
			if ((e = take_local(x, r, k, true)))
				return e;
		}
	}

	ev->local_limit_ms = -1;
	ev->local_limit_bytes = -1;
	/* Kafka refuses remote storage on a compacted topic: no local tier to retain */
	not_evaluated(&ev->local, cfg->compact ? "compacted topics are never tiered" : "remote storage disabled", -1);
	return 0;
}

/* retention.total: the union of the three kinds (see struct ss_retention_total). */
static void retention_total(struct ss_eval *ev)
{
	struct ss_retention_total *t = &ev->total;
	const struct ss_retention *kinds[3] = { &ev->size, &ev->time, &ev->local };
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 3; i++) {
		const struct ss_retention *r = kinds[i];
		if (r->unknown && !t->unknown) {
			t->unknown = true;
			t->reason = r->reason;
		}
		if (!r->evaluated || !r->n_delete)
			continue;
		/* prefixes of one list each: the longest walk holds the others */
		if (r->delete_is_remote && r->n_delete > t->n_remote) {
			t->n_remote = r->n_delete;
			t->remote_ids = r->delete_ids;
			t->remote_bytes = r->delete_bytes;
		} else if (!r->delete_is_remote && r->n_delete > t->n_local) {
			t->n_local = r->n_delete;
			t->local_offsets = r->delete_offsets;
			t->local_bytes = r->delete_bytes;
		}
	}
}

int ss_eval_retention(struct ss_evctx *x)
{
	int e = x->ev->tiered ? tiered_retention(x) : local_only_retention(x);
	if (!e)
		retention_total(x->ev);
	return e;
}

/* For a partition whose retention is not evaluated at all (the metadata log). */
void ss_eval_retention_total(struct ss_eval *ev)
{
	retention_total(ev);
}
