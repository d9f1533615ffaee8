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
 * only ever raises it). Remote time retention follows the broker's release: max_timestamp_ms
 * <= now - retention.ms before 4.3, < from 4.3.0 (unknown when the release leaves it open
 * and a segment sits on the cutoff), and nothing when now - retention.ms < 0.
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
static const char WHY_REMOTE_UNKNOWN[] = "remote state unknown";
static const char WHY_TIER_UNKNOWN[] =
	"remote.storage.enable unknown: whether the topic is tiered decides what retention deletes";
static const char WHY_17360[] =
	"this release hands local.retention.ms/local.retention.bytes = -2 on as it is, not as retention.ms/"
	"retention.bytes (KAFKA-17360): no local retention";
/* The release list is ss_ticket_describe's for KAFKA-17360 (tests/test_eval.c holds them equal). */
static const char WHY_17360_UNKNOWN[] =
	"the broker's release is unknown, and local.retention.ms or local.retention.bytes is -2: Kafka 3.6.0 to "
	"3.8.0 (fixed in 3.7.2, 3.8.1, 3.9.0) apply no local retention for -2 (KAFKA-17360), later releases "
	"retention.ms or retention.bytes";
static const char WHY_EMPTY_POLICY[] =
	"cleanup.policy is empty: releases before Kafka 4.2 apply no local retention to it";
static const char WHY_EMPTY_POLICY_UNKNOWN[] =
	"the broker's release is unknown, and cleanup.policy is empty: Kafka 4.2 and later apply "
	"local.retention.* to a tiered topic with an empty cleanup.policy, earlier releases no local retention";

static const char WHY_CREATED_MS[] =
	"retention.ms unknown (Kafka creates this topic with retention.ms from the creating broker's "
	"remote.log.metadata.topic.retention.ms, default -1, and no source read gives the topic's own)";

/*
 * A config whose value may not be the one in force (ss_topic_cfg.value_unsure: the metadata
 * log lost what could have set it): what depends on it is unknown, the reason names it.
 */
static const char *unsure(const struct ss_topic_cfg *cfg, const char *key)
{
	static const struct {
		const char *key, *why;
	} why[] = {
		{ "retention.ms", "retention.ms unknown (the metadata log was not read whole)" },
		{ "retention.bytes", "retention.bytes unknown (the metadata log was not read whole)" },
		{ "local.retention.ms", "local.retention.ms unknown (the metadata log was not read whole)" },
		{ "local.retention.bytes", "local.retention.bytes unknown (the metadata log was not read whole)" },
		{ "cleanup.policy", "cleanup.policy unknown (the metadata log was not read whole)" },
		{ "remote.log.copy.disable", "remote.log.copy.disable unknown (the metadata log was not read whole)" },
	};
	if (!cfg->value_unsure && !cfg->value_unknown)   /* every evaluation but a few */
		return NULL;
	for (uint32_t i = 0; i < cfg->n_entries && i < 32; i++) {
		if (strcmp(cfg->entries[i].key, key))
			continue;
		if ((cfg->value_unsure >> i) & 1) {
			for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++)
				if (!strcmp(why[k].key, key))
					return why[k].why;
		}
		/* the one key an internal topic gets from its creator's config that retention
		 * reads (eval/config.c's table: __remote_log_metadata's retention.ms) */
		if (((cfg->value_unknown >> i) & 1) && !strcmp(key, "retention.ms"))
			return WHY_CREATED_MS;
	}
	return NULL;
}

/*
 * Does cleanup.policy let size and time retention of the local log run?
 * UnifiedLog.deleteOldSegments applies retention.ms and retention.bytes only when the policy
 * has delete (config.delete); compact alone, or the empty list (accepted by every release's
 * ConfigDef: "" is the empty LIST), deletes nothing by time or size. NULL when they run;
 * else the reason, with *unk when the policy itself is unknown: the internal topics Kafka
 * creates compacted (GroupCoordinator's and TransactionStateManager's topic configs) are
 * not predicted from Kafka's default policy (delete) when no source says which one they
 * have. A policy whose value may be stale is not trusted either way (the caller asks
 * unsure()). Remote retention (RemoteLogManager) never looks at the policy.
 */
static const char *policy_blocks(const struct ss_evctx *x, bool *unk)
{
	const struct ss_topic_cfg *cfg = x->in->cfg;
	const char *t = x->in->part->topic;
	*unk = false;
	/* before the value: without a source the value is the compact Kafka creates them with
	 * (eval/config.c), which may have been changed since */
	if (!cfg->policy_known && t && (!strcmp(t, "__consumer_offsets") || !strcmp(t, "__transaction_state"))) {
		*unk = true;
		return "cleanup.policy unknown (Kafka creates this topic with cleanup.policy=compact)";
	}
	if (cfg->no_delete && !unsure(cfg, "cleanup.policy"))
		return WHY_NO_DELETE;
	return NULL;
}

/*
 * Whether size or time retention of the local log (`key`, its `limit`) runs: NULL when it
 * does, else why not, with *unk when that is for want of an input: the policy, the limit's
 * value not known, no limit, the policy's value not known, in that order (a policy known
 * to lack delete settles it whatever the limit; no limit settles it whatever the policy).
 */
static const char *local_gate(const struct ss_evctx *x, const char *key, int64_t limit, bool *unk)
{
	const struct ss_topic_cfg *cfg = x->in->cfg;
	const char *why = policy_blocks(x, unk);
	if (why)
		return why;
	if ((why = unsure(cfg, key))) {
		*unk = true;
		return why;
	}
	if (limit < 0)
		return "no limit";
	if ((why = unsure(cfg, "cleanup.policy"))) {
		*unk = true;
		return why;
	}
	return NULL;
}

/* The same for remote size or time retention: RemoteLogManager applies retention.ms and
 * retention.bytes to the remote tier whatever cleanup.policy says (delete, or the empty
 * list: the only ones a tiered topic can have). */
static const char *remote_gate(const struct ss_evctx *x, const char *key, int64_t limit, bool *unk)
{
	const char *why = unsure(x->in->cfg, key);
	*unk = why != NULL;
	if (why)
		return why;
	return limit < 0 ? "no limit" : NULL;
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

/* How many fin[] remote time retention takes with the cutoff inclusive (releases before 4.3:
 * maxTimestampMs() <= cleanupUntilMs) or strict (4.3.0 and later: <). */
static uint32_t remote_time_count(const struct ss_evctx *x, __int128 cutoff, bool inclusive)
{
	uint32_t k = 0;
	while (k < x->n_fin && ((__int128)x->fin[k]->max_timestamp_ms < cutoff ||
				(inclusive && (__int128)x->fin[k]->max_timestamp_ms == cutoff)))
		k++;
	return k;
}

static const char WHY_TIME_BOUNDARY[] =
	"the broker's release is unknown, and a remote segment's max timestamp is exactly now - retention.ms: Kafka "
	"3.6.0 to 4.2 delete it (maxTimestampMs <= cutoff), 4.3.0 and later keep it (<)";

/* Remote time retention (RLMExpirationTask's isSegmentBreachedByRetentionTime): how many
 * fin[] go; *why set (the count unknown) when the release leaves the boundary open and a
 * segment sits on it. A cutoff before the epoch deletes nothing (4.0 and later check it;
 * earlier releases would delete only a segment with a negative max timestamp). */
static uint32_t remote_time_walk(const struct ss_evctx *x, int64_t limit_ms, const char **why)
{
	__int128 cutoff = (__int128)x->in->now_ms - limit_ms;
	*why = NULL;
	if (cutoff < 0)
		return 0;
	enum ss_affect before43 = ss_eval_release_before(x->in, 4, 3);
	uint32_t strict = remote_time_count(x, cutoff, false);
	if (before43 == SS_NOT_AFFECTED)
		return strict;
	uint32_t incl = remote_time_count(x, cutoff, true);
	if (before43 == SS_AFFECT_UNKNOWN && incl != strict)
		*why = WHY_TIME_BOUNDARY;
	return incl;
}

/* Local walks: `uploaded_only` limits them to segments already in remote storage. *unk:
 * the walk reached a segment it cannot judge (unreadable: its time or size unknown). The
 * time walk starts at live[from] (what an earlier walk of the same pass left) and returns
 * how many it takes from there. */
static uint32_t local_time_walk(const struct ss_evctx *x, uint32_t from, int64_t limit_ms, bool uploaded_only,
				int64_t highest, bool *unk)
{
	uint32_t k = from;
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
	return k - from;
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

/*
 * Local retention of a tiered partition (UnifiedLog.deleteRetentionMs/SizeBreachedSegments
 * with remoteLogEnabledAndRemoteCopyEnabled): local.retention.* (-2: retention.*) over the
 * segments already in remote storage; with remote.log.copy.disable=true retention.* over
 * every segment. What the broker does differs by release in two places, so each reading
 * the release leaves open is walked, and the answer is known only where they agree:
 *  - KAFKA-17360 (3.6.0 .. 3.8.0, fixed in 3.7.2 and 3.8.1): a -2 is handed on raw, and
 *    `< 0` means no retention by that key;
 *  - an empty cleanup.policy (legal in every release, Kafka 4.2 documents it as infinite
 *    retention): 4.2 and later run local retention while copying, earlier releases none
 *    (deleteOldSegments' else branch: the log-start-offset breach only).
 * uploads_unknown: the partition's tiering is unknown (item: it may be tiered, its remote
 * state elsewhere), so which segments are uploaded is too: a walk that would delete
 * anything under the tiered reading is unknown, one that deletes nothing is nothing.
 */
struct local_reading {
	int64_t     ms, bytes;   /* the limits this reading applies, -1: none */
	const char *none_why;    /* why it deletes nothing when both are -1 */
};

/* The local limits of a tiered partition (*lms, *lbytes; -1: none): local.retention.* while
 * it copies (-2: retention.*), retention.* when copying is disabled. Returns why they are
 * unknown (a key a lost metadata log may have changed), or NULL. */
static const char *local_limits(const struct ss_topic_cfg *cfg, bool copy, int64_t *lms, int64_t *lbytes)
{
	const char *why;

	/* the keys this partition's limits come from */
	const char *kms = copy && cfg->local_retention_ms != -2 ? "local.retention.ms" : "retention.ms";
	const char *kbytes = copy && cfg->local_retention_bytes != -2 ? "local.retention.bytes" : "retention.bytes";
	if ((why = unsure(cfg, kms)) || (why = unsure(cfg, kbytes)) ||
	    (copy && ((why = unsure(cfg, "local.retention.ms")) || (why = unsure(cfg, "local.retention.bytes")))))
		return why;
	*lms = copy && cfg->local_retention_ms != -2 ? cfg->local_retention_ms : cfg->retention_ms;
	*lbytes = copy && cfg->local_retention_bytes != -2 ? cfg->local_retention_bytes : cfg->retention_bytes;
	*lms = *lms < 0 ? -1 : *lms;
	*lbytes = *lbytes < 0 ? -1 : *lbytes;
	return NULL;
}

/* The readings of local retention that the inputs leave open (rd[0..*n), at most 4): the
 * policy with delete and the empty one when cleanup.policy is not known, a release with and
 * without KAFKA-17360 when that is not known, before and from 4.2 for the empty policy.
 * *differ: why they differ when more than one is open. 0 or -ENOMEM (a note). */
static int local_readings(struct ss_evctx *x, bool copy, int64_t lms, int64_t lbytes, bool uploads_unknown,
			  struct local_reading rd[4], int *n_out, const char **differ)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_topic_cfg *cfg = in->cfg;
	struct ss_eval *ev = x->ev;

	/* the readings: delete in the policy, empty, or either (its value not known) */
	bool pol_stale = unsure(cfg, "cleanup.policy") != NULL;
	bool may_delete = pol_stale || !cfg->no_delete, may_empty = pol_stale || cfg->no_delete;
	/* what -2 becomes where KAFKA-17360 hands it on raw; whether that changes anything */
	bool raw_ms = copy && cfg->local_retention_ms == -2, raw_bytes = copy && cfg->local_retention_bytes == -2;
	int64_t bug_ms = raw_ms ? -1 : lms, bug_bytes = raw_bytes ? -1 : lbytes;
	bool bug_matters = bug_ms != lms || bug_bytes != lbytes;
	rd[0] = (struct local_reading){ -1, -1, "no limit" };   /* n >= 1 below: delete or empty is possible */
	int n = 0;
	if (may_delete) {
		enum ss_affect bug = bug_matters ? ss_eval_affects(in, "KAFKA-17360") : SS_NOT_AFFECTED;
		if (bug != SS_AFFECTED)
			rd[n++] = (struct local_reading){ lms, lbytes, "no limit" };
		if (bug != SS_NOT_AFFECTED)
			rd[n++] = (struct local_reading){ bug_ms, bug_bytes, WHY_17360 };
		if (bug == SS_AFFECTED && !uploads_unknown &&
		    ss_eval_add_note(ev, "KAFKA-17360: this release hands local.retention.%s=-2 on as it is instead of "
				     "%s, so local retention by %s deletes nothing",
				     bug_ms != lms && bug_bytes != lbytes ? "ms and local.retention.bytes"
				     : bug_ms != lms		       ? "ms" : "bytes",
				     bug_ms != lms && bug_bytes != lbytes ? "retention.ms and retention.bytes"
				     : bug_ms != lms		       ? "retention.ms" : "retention.bytes",
				     bug_ms != lms && bug_bytes != lbytes ? "time or size" : bug_ms != lms ? "time" : "size"))
			return -ENOMEM;
	}
	if (may_empty && !copy) {
		/* empty and not copying: the log-start-offset breach only, in every release */
		rd[n++] = (struct local_reading){ -1, -1, WHY_NO_DELETE };
	} else if (may_empty) {
		/* the releases with KAFKA-17360 are all before 4.2, where an empty policy gets no
		 * local retention anyway: 4.2 and later read -2 as retention.* */
		enum ss_affect before42 = lms >= 0 || lbytes >= 0 ? ss_eval_release_before(in, 4, 2) : SS_NOT_AFFECTED;
		if (before42 != SS_NOT_AFFECTED)
			rd[n++] = (struct local_reading){ -1, -1, WHY_EMPTY_POLICY };
		if (before42 != SS_AFFECTED)
			rd[n++] = (struct local_reading){ lms, lbytes, "no limit" };
	}
	/* why the readings differ, when they do: the one input that leaves more than one open */
	*differ = pol_stale ? unsure(cfg, "cleanup.policy") : may_empty ? WHY_EMPTY_POLICY_UNKNOWN : WHY_17360_UNKNOWN;
	*n_out = n;
	return 0;
}

static int tiered_local(struct ss_evctx *x, bool uploads_unknown)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_topic_cfg *cfg = in->cfg;
	struct ss_eval *ev = x->ev;
	struct ss_retention *r = &ev->local;
	const char *why;
	bool pol_unk;

	r->delete_is_remote = false;
	r->total_bytes = -1;
	r->limit = -1;
	ev->local_limit_ms = ev->local_limit_bytes = -1;
	const char *blocked = policy_blocks(x, &pol_unk);
	if (pol_unk) {
		unknown(r, blocked, -1);
		return 0;
	}
	if ((why = unsure(cfg, "remote.log.copy.disable"))) {
		unknown(r, why, -1);
		return 0;
	}
	bool copy = !cfg->remote_copy_disable;
	int64_t lms, lbytes;
	if ((why = local_limits(cfg, copy, &lms, &lbytes))) {
		unknown(r, why, -1);
		return 0;
	}

	struct local_reading rd[4];
	int n;
	const char *differ;
	if (local_readings(x, copy, lms, lbytes, uploads_unknown, rd, &n, &differ))
		return -ENOMEM;
	ev->local_limit_ms = rd[0].ms;
	ev->local_limit_bytes = rd[0].bytes;
	/* one time limit whatever the release or policy: what health.c's
	 * UNDELETABLE_LOCAL_SEGMENT rests on */
	x->local_ms_settled = true;
	for (int i = 1; i < n; i++)
		x->local_ms_settled &= rd[i].ms == rd[0].ms;

	bool any_runs = false;
	for (int i = 0; i < n; i++)
		any_runs |= rd[i].ms >= 0 || rd[i].bytes >= 0;
	if (!any_runs) {
		/* every reading deletes nothing; "no limit" when one of them is for that */
		const char *w = rd[0].none_why;
		for (int i = 0; i < n; i++)
			if (!strcmp(rd[i].none_why, "no limit"))
				w = rd[i].none_why;
		not_evaluated(r, w, -1);
		return 0;
	}
	if (!uploads_unknown && copy && !ev->seeded) {
		/* nothing is known to be uploaded, so nothing local can go */
		unknown(r, "unseeded", -1);
		return 0;
	}
	int64_t h = ev->seeded ? ev->highest_offset : -1;
	bool upload_guard = copy && !uploads_unknown;
	uint32_t k[4];
	for (int i = 0; i < n; i++) {
		bool unk = false;
		/* in Kafka's order (UnifiedLog.deleteOldSegments: size, then time over what size
		 * left), so a time walk that stops early (a segment with a later timestamp than
		 * the ones after it) restarts where size retention ended */
		uint32_t ks = rd[i].bytes >= 0 ? local_size_walk(x, rd[i].bytes, upload_guard, h, &unk) : 0;
		uint32_t kt = rd[i].ms >= 0 && !unk ? local_time_walk(x, ks, rd[i].ms, upload_guard, h, &unk) : 0;
		if (unk) {
			unknown(r, WHY_UNREADABLE, -1);
			return 0;
		}
		k[i] = ks + kt;
		if (uploads_unknown && k[i]) {
			/* the tiered reading would delete what is uploaded of these: unknown */
			unknown(r, WHY_TIER_UNKNOWN, -1);
			return 0;
		}
	}
	for (int i = 1; i < n; i++) {
		if (k[i] != k[0]) {
			unknown(r, differ, -1);
			return 0;
		}
	}
	r->evaluated = true;
	return take_local(x, r, k[0], false);
}

static const char WHY_20977_UNKNOWN[] =
	"the broker's release is unknown, and the highest segment in remote storage holds one offset: Kafka 3.6.0 "
	"to 4.3.1 count it in the size total a second time, as not yet uploaded (onlyLocalLogSegmentsSize's >=, "
	"KAFKA-20977), 4.4.0 once, and the two totals delete different remote segments";

/*
 * The bytes the broker's size total counts twice: onlyLocalLogSegmentsSize takes the local
 * segments with baseOffset >= highestOffsetInRemoteStorage on 3.6.0 to 4.3.1 (KAFKA-20977;
 * 3.6 already had the >= before the copy-lag gauges that name the ticket), so a copied
 * local segment whose base offset is the highest offset in remote storage (it holds one
 * offset) is in the total as only-local as well as remote. 0: none here, or the release
 * counts it once; -1: whether it does is unknown (the release).
 */
static int64_t size_double_count(const struct ss_evctx *x)
{
	const struct ss_eval *ev = x->ev;
	int64_t dup = 0;
	for (uint32_t k = 0; k < x->n_live; k++)
		if (x->live[k]->base_offset == ev->highest_offset && x->live[k]->end_offset == ev->highest_offset)
			dup = ss_seg_kafka_size(x->live[k]);
	if (!dup)
		return 0;
	enum ss_affect a = ss_eval_affects(x->in, "KAFKA-20977");
	if (a == SS_NOT_AFFECTED && ss_eval_release_before(x->in, 3, 7) == SS_AFFECTED)
		a = SS_AFFECTED;
	return a == SS_AFFECTED ? dup : a == SS_NOT_AFFECTED ? 0 : -dup;
}

/* Remote size retention of a seeded partition whose only-local bytes are known: the walk
 * over the broker's own total (size_double_count), total_bytes the contract's. */
static int tiered_size(struct ss_evctx *x, struct ss_retention *r)
{
	struct ss_eval *ev = x->ev;
	/* a forecast's uploads in the meantime are no longer only-local, and not yet in the
	 * remote state: Kafka counts them as remote bytes then */
	int64_t total = ev->only_local_bytes + ev->remote_bytes + x->in->copied_bytes;
	int64_t dup = size_double_count(x), limit = r->limit;
	uint32_t k = total > limit ? remote_size_walk(x, total - limit) : 0;
	int64_t bt = total + (dup < 0 ? -dup : dup);
	uint32_t kb = bt > limit ? remote_size_walk(x, bt - limit) : 0;
	if (dup < 0 && kb != k) {
		unknown(r, WHY_20977_UNKNOWN, limit);
		return 0;
	}
	if (dup > 0 && kb != k && ss_eval_add_note(ev, "KAFKA-20977: this release counts the copied segment at "
						   "offset %lld (%lld bytes) a second time in its size total (%lld "
						   "bytes, not %lld), so its size retention deletes %u remote "
						   "segment%s, not %u",
						   (long long)ev->highest_offset, (long long)dup, (long long)bt,
						   (long long)total, kb, kb == 1 ? "" : "s", k))
		return -ENOMEM;
	r->evaluated = true;
	r->total_bytes = total;
	return take_remote(x, r, dup > 0 ? kb : k);
}

static int tiered_retention(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	const struct ss_topic_cfg *cfg = x->in->cfg;
	const char *why;
	bool unk;
	int e;

	/* size: only-local + finished remote, walked over remote (RemoteLogManager: whatever
	 * cleanup.policy says) */
	struct ss_retention *r = &ev->size;
	r->limit = cfg->retention_bytes;
	r->delete_is_remote = true;
	if ((why = remote_gate(x, "retention.bytes", cfg->retention_bytes, &unk))) {
		(unk ? unknown : not_evaluated)(r, why, cfg->retention_bytes);
		if (!unk && ev->seeded && !ev->remote_unknown)
			r->total_bytes = ev->only_local_bytes + ev->remote_bytes + x->in->copied_bytes;
	} else if (!ev->seeded) {
		unknown(r, "unseeded", cfg->retention_bytes);
	} else if (ev->only_local_null) {
		unknown(r, WHY_UNREADABLE, cfg->retention_bytes);   /* the local half of the total */
	} else {
		if ((e = tiered_size(x, r)))
			return e;
	}

	/* time: remote segments older than retention.ms (a cutoff before the epoch: nothing,
	 * whatever the remote tier holds) */
	r = &ev->time;
	r->limit = cfg->retention_ms;
	r->delete_is_remote = true;
	r->total_bytes = -1;
	if ((why = remote_gate(x, "retention.ms", cfg->retention_ms, &unk))) {
		(unk ? unknown : not_evaluated)(r, why, cfg->retention_ms);
	} else if (ev->remote_unknown && (__int128)x->in->now_ms - cfg->retention_ms >= 0) {
		unknown(r, ev->seeded ? WHY_REMOTE_UNKNOWN : "unseeded", cfg->retention_ms);
	} else {
		const char *bwhy;
		uint32_t k = remote_time_walk(x, cfg->retention_ms, &bwhy);
		if (bwhy) {
			unknown(r, bwhy, cfg->retention_ms);
		} else {
			r->evaluated = true;
			if ((e = take_remote(x, r, k)))
				return e;
		}
	}

	/* KAFKA-20732: only where the broker's release can run size retention unseeded, and on
	 * the replica whose broker runs the remote expiration: the leader (or one whose role is
	 * unknown); a follower's is evaluated on the leader's row (issue 22) */
	if (ev->size.evaluated && ev->role != SS_ROLE_FOLLOWER && ss_eval_affects(x->in, "KAFKA-20732") != SS_NOT_AFFECTED &&
	    (e = unseeded_size_finding(x, cfg->retention_bytes)))
		return e;

	return tiered_local(x, false);
}

/*
 * Size or time retention of the local log of a partition that is not tiered. With its
 * tiering unknown (remote_storage null: it may be tiered, its remote state elsewhere) the
 * answer is known only where both readings give it: no limit, or a time cutoff before the
 * epoch (nothing is older, here or in a remote tier); else what is deleted depends on the
 * tiering: unknown. The policy settles nothing then: tiered, remote retention runs whatever
 * it says (and one without delete is the empty list: a compacted topic is never tiered, so
 * its tiering is never unknown), hence remote_gate for both readings.
 */
static int local_only_retention(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	const struct ss_topic_cfg *cfg = x->in->cfg;
	bool tier_unk = ev->remote_storage < 0;
	const char *(*gate)(const struct ss_evctx *, const char *, int64_t, bool *) =
		tier_unk ? remote_gate : local_gate;
	const char *why;
	bool unk = false;
	int e;

	struct ss_retention *r = &ev->size;
	r->limit = cfg->retention_bytes;
	r->total_bytes = ev->size_unknown ? -1 : ev->size_bytes;
	if ((why = gate(x, "retention.bytes", cfg->retention_bytes, &unk))) {
		(unk ? unknown : not_evaluated)(r, why, cfg->retention_bytes);
		r->total_bytes = ev->size_unknown ? -1 : ev->size_bytes;
	} else if (tier_unk) {
		unknown(r, WHY_TIER_UNKNOWN, cfg->retention_bytes);
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
	if ((why = gate(x, "retention.ms", cfg->retention_ms, &unk))) {
		bool none = false;
		/* retention.ms an internal topic got from its creator's config: whatever it is,
		 * the walk deletes nothing when even the smallest limit (0) deletes nothing (a
		 * partition of one active segment, the usual __remote_log_metadata-N) */
		if (why == WHY_CREATED_MS) {
			bool u = false;
			none = local_time_walk(x, 0, 0, false, 0, &u) == 0 && !u;
		}
		if (none) {
			r->evaluated = true;
			r->limit = -1;   /* the limit stays unknown: json null */
		} else {
			(unk ? unknown : not_evaluated)(r, why, cfg->retention_ms);
		}
	} else if (tier_unk && (__int128)x->in->now_ms - cfg->retention_ms >= 0) {
		unknown(r, WHY_TIER_UNKNOWN, cfg->retention_ms);
	} else {
		unk = false;
		uint32_t k = local_time_walk(x, 0, cfg->retention_ms, false, 0, &unk);
		if (unk) {
			unknown(r, WHY_UNREADABLE, cfg->retention_ms);
		} else {
			r->evaluated = true;
			if ((e = take_local(x, r, k, true)))
				return e;
		}
	}

	if (tier_unk)
		return tiered_local(x, true);
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
