/*
 * Per-partition evaluation (docs/contract.md "Definitions", docs/kafka-format.md §5): offsets,
 * the seeded highest remote offset, only-local sets and copy lag, remote totals,
 * dangling segments, findings. Retention is in retention.c.
 *
 * Decisions where the contract leaves room (documented for the writers and the lead):
 *  - tiered: topic remote.storage.enable=true; or unset, and the partition has remote
 *    metadata or a --seed. Never for what Kafka never tiers (internal topics,
 *    compacted topics, remote.log.storage.system.enable=false in server.properties).
 *  - highest_offset: --seed; else, when the remote state has segment metadata for the
 *    partition, Kafka's findHighestRemoteOffset over the local leader-epoch-checkpoint
 *    (-1 when no local epoch has remote data: a real value, everything local is
 *    only-local); without a usable checkpoint, the highest end offset of the finished
 *    remote segments (noted). A partition the remote state does not mention is
 *    unseeded: the metadata partition that would hold its events may live on another
 *    broker, so "nothing" is not evidence of -1.
 *  - broker_copy_lag is clamped at 0 like later Kafka (max(0, ...)).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/assert.h"
#include "common/darray.h"
#include "eval/eval_int.h"
#include "fmt/names.h"

/* ---- findings and notes ---- */
int ss_eval_add_finding(struct ss_eval *ev, const struct ss_finding_spec *spec, const char *fmt, ...)
{
	const char *const *ids = spec->ids;
	uint32_t n_ids = spec->n_ids;
	struct ss_finding f;
	va_list ap;
	int e = -ENOMEM;

	memset(&f, 0, sizeof(f));
	f.code = spec->code;
	f.ref = spec->ref ? spec->ref : "";
	f.has_amount = spec->has_amount;
	f.segments = spec->segments;
	f.bytes = spec->bytes;
	va_start(ap, fmt);
	int r = vasprintf(&f.message, fmt, ap);
	va_end(ap);
	if (r < 0) {
		f.message = NULL;
		goto fail;
	}
	if (n_ids) {
		if (!(f.segment_ids = calloc(n_ids, sizeof(char *))))
			goto fail;
		for (uint32_t i = 0; i < n_ids; i++) {
			if (!(f.segment_ids[i] = strdup(ids[i])))
				goto fail;
			f.n_ids++;
		}
	}
	if (spec->n_keys) {
		if (!(f.object_keys = calloc(spec->n_keys, sizeof(char *))))
			goto fail;
		for (uint32_t i = 0; i < spec->n_keys; i++) {
			if (!(f.object_keys[i] = strdup(spec->keys[i])))
				goto fail;
			f.n_keys++;
		}
	}
	struct ss_finding *slot;
	if (SS_DA_PUSH(&ev->findings, &ev->n_findings, &ev->cap_findings, &slot) < 0)
		goto fail;
	*slot = f;
	return 0;
fail:
	for (uint32_t i = 0; i < f.n_ids; i++)
		free(f.segment_ids[i]);
	free(f.segment_ids);
	for (uint32_t i = 0; i < f.n_keys; i++)
		free(f.object_keys[i]);
	free(f.object_keys);
	free(f.message);
	return e;
}

int ss_eval_add_note(struct ss_eval *ev, const char *fmt, ...)
{
	char *m;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	char **slot;
	if (SS_DA_PUSH(&ev->notes, &ev->n_notes, &ev->cap_notes, &slot) < 0) {
		free(m);
		return -ENOMEM;
	}
	*slot = m;
	return 0;
}

static void retention_free(struct ss_retention *r)
{
	if (r->delete_ids) {
		for (uint32_t i = 0; i < r->n_delete; i++)
			free(r->delete_ids[i]);
		free(r->delete_ids);
	}
	free(r->delete_offsets);
}

void ss_eval_free(struct ss_eval *ev)
{
	if (!ev)
		return;
	for (uint32_t i = 0; i < ev->n_findings; i++) {
		struct ss_finding *f = &ev->findings[i];
		for (uint32_t k = 0; k < f->n_ids; k++)
			free(f->segment_ids[k]);
		free(f->segment_ids);
		for (uint32_t k = 0; k < f->n_keys; k++)
			free(f->object_keys[k]);
		free(f->object_keys);
		if (!f->message_shared)
			free(f->message);
	}
	free(ev->findings);
	for (uint32_t i = 0; i < ev->n_notes; i++)
		free(ev->notes[i]);
	free(ev->notes);
	retention_free(&ev->size);
	retention_free(&ev->time);
	retention_free(&ev->local);
	free(ev);
}

/* ---- helpers ---- */
static bool kafka_never_tiers(const char *topic)
{
	/* UnifiedLog.isRemoteLogEnabled: Topic.isInternal, the RLMM topic, the KRaft log */
	static const char *const t[] = {
		"__consumer_offsets", "__transaction_state", "__share_group_state", "__remote_log_metadata",
		"__cluster_metadata",
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (topic && strcmp(topic, t[i]) == 0)
			return true;
	return false;
}

static int cmp_fin(const void *a, const void *b)
{
	const struct ss_rseg *x = *(const struct ss_rseg *const *)a, *y = *(const struct ss_rseg *const *)b;
	if (x->start_offset != y->start_offset)
		return x->start_offset < y->start_offset ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void seg_name(const struct ss_seg *s, char *buf, size_t len)
{
	/* by hand: this runs for every live segment of every evaluation, and serve's
	 * unchanged rescans are mostly evaluations (issue 15); snprintf was a tenth of one */
	if (s->base_offset < 0 || len < 25) {
		snprintf(buf, len, "%020lld.log", (long long)s->base_offset);
		return;
	}
	uint64_t v = (uint64_t)s->base_offset;
	for (int i = 19; i >= 0; i--, v /= 10)
		buf[i] = (char)('0' + v % 10);
	memcpy(buf + 20, ".log", 5);
}

static const char *plural(int64_t n)
{
	return n == 1 ? "" : "s";
}

/* ---- the broker's release (eval/releases.h) ---- */
enum ss_affect ss_eval_affects(const struct ss_eval_input *in, const char *ticket)
{
	const struct ss_ticket *t = ss_ticket_find(ticket);
	if (!t)
		return SS_AFFECT_UNKNOWN;
	if (in->release && in->release->known)
		return ss_ticket_affects(t, &in->release->v);
	if (in->release && in->release->mv_level > 0)
		return ss_ticket_affects_mv(t, in->release->mv_level);
	return ss_ticket_affects(t, NULL);
}

enum ss_affect ss_eval_release_before(const struct ss_eval_input *in, int major, int minor)
{
	if (in->release && in->release->known)
		return ss_release_before(&in->release->v, 0, major, minor);
	return ss_release_before(NULL, in->release ? in->release->mv_level : 0, major, minor);
}

void ss_eval_release_caveat(const struct ss_eval_input *in, const char *ticket, char *buf, size_t n)
{
	const struct ss_ticket *t = ss_ticket_find(ticket);
	char which[160] = "";
	buf[0] = 0;
	if (!t || ss_eval_affects(in, ticket) != SS_AFFECT_UNKNOWN)
		return;
	ss_ticket_describe(t, which, sizeof(which));
	if (in->release && in->release->text)
		snprintf(buf, n, " (%s affects %s; this broker runs %s, a release line the table cannot settle: give "
			 "--kafka-version=X.Y.Z to be sure)", ticket, which, in->release->text);
	else
		snprintf(buf, n, " (%s affects %s; the broker's release is unknown: give --kafka-version or let "
			 "segscan read the metadata log)", ticket, which);
}

/* "3d 4h", "5m 2s", "750ms": an age an operator reads at a glance */
void ss_eval_human_ms(int64_t ms, char *buf, size_t len)
{
	if (ms < 0) {
		snprintf(buf, len, "in the future");
		return;
	}
	int64_t s = ms / 1000, m = s / 60, h = m / 60, d = h / 24;
	if (d)
		snprintf(buf, len, "%lldd %lldh", (long long)d, (long long)(h % 24));
	else if (h)
		snprintf(buf, len, "%lldh %lldm", (long long)h, (long long)(m % 60));
	else if (m)
		snprintf(buf, len, "%lldm %llds", (long long)m, (long long)(s % 60));
	else if (s)
		snprintf(buf, len, "%llds", (long long)s);
	else
		snprintf(buf, len, "%lldms", (long long)ms);
}

/* A time for humans: ISO 8601 in UTC with milliseconds ("2023-11-14T22:13:20.000Z"),
 * not milliseconds since the epoch (issue 20 item 11); what gmtime cannot render (beyond
 * year 9999) stays a number. */
void ss_eval_iso_ms(int64_t ms, char *buf, size_t len)
{
	int64_t sec = ms / 1000, frac = ms % 1000;
	if (frac < 0) {
		frac += 1000;
		sec--;
	}
	time_t t = (time_t)sec;
	struct tm tm;
	if (sec < -62135596800LL || sec > 253402300799LL || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "%lld ms since the epoch", (long long)ms);
		return;
	}
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03lldZ", (long long)frac);
}

/* findHighestRemoteOffset (docs/kafka-format.md §5.2.4) over the local epoch lineage. */
static int64_t find_highest_remote_offset(const struct ss_part *part, const struct ss_remote_part *rp, int64_t leo,
					  int32_t *epoch_used)
{
	*epoch_used = -1;
	for (uint32_t i = part->n_epochs; i-- > 0;) {
		int64_t h;
		if (!ss_remote_highest_for_epoch(rp, part->epochs[i].epoch, &h))
			continue;
		/* the epoch's exclusive end in the local lineage: next epoch's start, or the LEO */
		int64_t end = i + 1 < part->n_epochs ? part->epochs[i + 1].start_offset : leo;
		*epoch_used = part->epochs[i].epoch;
		return end <= h ? ss_dec_sat(end) : h;
	}
	return -1;
}

/* ---- remote facts ---- */
/* DANGLING_REMOTE_SEGMENT for each dangling or stuck remote segment (KAFKA-17428). */
static int eval_dangling(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_remote_part *rp = x->remote;
	int e;

	/* dangling: DANGLING, or a STARTED state older than dangling_after (KAFKA-17428).
	 * Releases with the fix retry a delete left in DELETE_SEGMENT_STARTED on every cleanup
	 * run, so there a stuck delete is still counted but raises no finding; a copy that
	 * crashed before any cleanup is dangling on every release. */
	bool retries_deletes = ss_eval_affects(in, "KAFKA-17428") == SS_NOT_AFFECTED;
	for (uint32_t i = 0; i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		bool stuck = s->state == SS_RSEG_COPY_STARTED || s->state == SS_RSEG_DELETE_STARTED;
		if (!(s->state == SS_RSEG_DANGLING ||
		      (stuck && ss_older_than(in->now_ms, s->event_ms, in->dangling_after_ms))))
			continue;
		ev->dangling_segments++;
		ev->dangling_bytes += s->size_bytes;
		__int128 age128 = (__int128)in->now_ms - s->event_ms;
		int64_t age = age128 > INT64_MAX ? INT64_MAX : age128 < INT64_MIN ? INT64_MIN : (int64_t)age128;
		char dur[48], when[40];
		ss_eval_human_ms(age, dur, sizeof(dur));
		ss_eval_iso_ms(s->event_ms, when, sizeof(when));
		const char *id = s->id;
		const struct ss_finding_spec spec = {
			.code = "DANGLING_REMOTE_SEGMENT", .ref = "KAFKA-17428", .has_amount = true,
			.segments = 1, .bytes = s->size_bytes, .ids = &id, .n_ids = 1,
		};
		if (s->state == SS_RSEG_DELETE_STARTED && retries_deletes)
			continue;
		if (s->state == SS_RSEG_DANGLING)
			e = ss_eval_add_finding(ev, &spec,
						"remote segment %s (offsets %lld..%lld, %lld bytes) was marked DANGLING "
						"%lld ms (%s) ago (event at %s, broker %d): its data may still occupy "
						"remote storage, and nothing reads it",
						s->id, (long long)s->start_offset, (long long)s->end_offset,
						(long long)s->size_bytes, (long long)age, dur, when, s->broker_id);
		else
			e = ss_eval_add_finding(ev, &spec,
						"remote segment %s (offsets %lld..%lld, %lld bytes) has been in %s for "
						"%lld ms (%s; last event at %s, broker %d), longer than the %lld ms "
						"allowed: %s; its data may still occupy remote storage, and nothing "
						"reads it",
						s->id, (long long)s->start_offset, (long long)s->end_offset,
						(long long)s->size_bytes, ss_rseg_state_name(s->state), (long long)age, dur,
						when, s->broker_id, (long long)in->dangling_after_ms,
						s->state == SS_RSEG_COPY_STARTED ? "a copy that failed or was abandoned"
										 : "a delete that failed");
		if (e)
			return e;
	}

	return 0;
}

/* LOST_EPOCH_SEGMENT for each finished segment the epoch index lost (KAFKA-20932). */
static int eval_lost(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_remote_part *rp = x->remote;
	int e;

	/* KAFKA-20932: finished segments Kafka's epoch index lost (counted whatever the
	 * release; a finding only where the broker's release drops them) */
	char lost_caveat[512];
	bool lost_bug = ss_eval_affects(in, "KAFKA-20932") != SS_NOT_AFFECTED;
	ss_eval_release_caveat(in, "KAFKA-20932", lost_caveat, sizeof(lost_caveat));
	for (uint32_t i = 0; lost_bug && i < x->n_fin; i++) {
		const struct ss_rseg *s = x->fin[i];
		if (!ss_remote_seg_lost(rp, s))
			continue;
		const char *id = s->id;
		const struct ss_finding_spec spec = {
			.code = "LOST_EPOCH_SEGMENT", .ref = "KAFKA-20932", .has_amount = true,
			.segments = 1, .bytes = s->size_bytes, .ids = &id, .n_ids = 1,
		};
		if ((e = ss_eval_add_finding(
			     ev, &spec,
			     "remote segment %s (offsets %lld..%lld, %lld bytes, leader epoch%s %d%s) was displaced from "
			     "Kafka's leader-epoch index by a later overlapping upload with the same start offset: the "
			     "broker no longer lists it, so its retention never deletes it and its size is not counted; "
			     "segscan still counts it and proposes it for retention%s",
			     s->id, (long long)s->start_offset, (long long)s->end_offset, (long long)s->size_bytes,
			     s->n_epochs > 1 ? "s" : "", s->epochs[0].epoch, s->n_epochs > 1 ? " and later" : "",
			     lost_caveat)))
			return e;
	}
	return 0;
}

static int eval_remote(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	const struct ss_remote_part *rp = x->remote;

	if (!rp)
		return 0;
	uint32_t nf = 0;
	for (uint32_t i = 0; i < rp->n_segs; i++)
		if (ss_remote_seg(rp, i)->state == SS_RSEG_COPY_FINISHED)
			nf++;
	if (nf && !(x->fin = malloc((size_t)nf * sizeof(*x->fin))))
		return -ENOMEM;
	for (uint32_t i = 0; i < rp->n_segs; i++) {
		const struct ss_rseg *s = ss_remote_seg(rp, i);
		if (s->state == SS_RSEG_COPY_FINISHED) {
			x->fin[x->n_fin++] = s;
			ev->remote_segments++;
			ev->remote_bytes += s->size_bytes;
			if (ss_remote_seg_lost(rp, s)) {
				ev->lost_segments++;
				ev->lost_bytes += s->size_bytes;
			}
		}
	}
	if (x->n_fin > 1)
		qsort(x->fin, x->n_fin, sizeof(*x->fin), cmp_fin);
	int e = eval_dangling(x);
	return e ? e : eval_lost(x);
}

/* ---- local findings from the scanner's flags ---- */
/* A finding about one segment's worth of bytes, and one with no amount. */
#define ONE_SEGMENT(c, b) (&(struct ss_finding_spec){ .code = (c), .has_amount = true, .segments = 1, .bytes = (b) })
#define NO_AMOUNT(c)      (&(struct ss_finding_spec){ .code = (c) })

static int eval_local_findings(struct ss_evctx *x)
{
	struct ss_eval *ev = x->ev;
	char name[32];
	int e;

	for (uint32_t k = 0; k < x->n_live; k++) {
		const struct ss_seg *s = x->live[k];
		bool active = k + 1 == x->n_live;
		/* most segments have nothing to report: their name is not formatted */
		if (ss_seg_truncated(s) <= 0 && ss_seg_crc_errors(s) <= 0 &&
		    !(s->flags & (SS_SEG_INDEX_BAD | SS_SEG_OFFSETS_BAD | SS_SEG_BASE_MISMATCH)) &&
		    (active || !(s->flags & SS_SEG_HAS_LAST) || s->last_offset < x->live[k + 1]->base_offset))
			continue;
		seg_name(s, name, sizeof(name));
		if (ss_seg_truncated(s) > 0) {
			if (active && (s->flags & SS_SEG_ZERO_TAIL))
				e = ss_eval_add_finding(
					ev, ONE_SEGMENT("TRUNCATED_TAIL", ss_seg_truncated(s)),
					"%s (active segment): the last %lld bytes after byte %lld are zeros, not "
					"batches: space preallocated by the broker (preallocate / log.preallocate) "
					"or left by an unclean shutdown; no record is lost",
					name, (long long)ss_seg_truncated(s), (long long)s->valid_bytes);
			else
				e = ss_eval_add_finding(
					ev, ONE_SEGMENT("TRUNCATED_TAIL", ss_seg_truncated(s)),
					"%s%s: the last %lld bytes after byte %lld do not form a complete batch%s; "
					"Kafka's recovery truncates them, losing whatever they held%s",
					name, active ? " (active segment)" : "", (long long)ss_seg_truncated(s),
					(long long)s->valid_bytes,
					(s->flags & SS_SEG_ZERO_TAIL) ? " (they are zeros)" : "",
					(s->flags & SS_SEG_HAS_LAST) ? " after the last complete batch" : "");
			if (e)
				return e;
		}
		if (ss_seg_crc_errors(s) > 0) {
			/* where the first bad batch is: its base offset and byte position, as
			 * kafka-dump-log prints them (baseOffset, position) */
			const struct ss_segx *sx = ss_seg_x(s);
			char at[96] = "";
			if (sx->crc_first_pos >= 0 && sx->crc_first_base >= 0)
				snprintf(at, sizeof(at), " (the first: the batch at base offset %lld, byte position %lld)",
					 (long long)sx->crc_first_base, (long long)sx->crc_first_pos);
			else if (sx->crc_first_pos >= 0)
				snprintf(at, sizeof(at), " (the first at byte position %lld)", (long long)sx->crc_first_pos);
			if ((e = ss_eval_add_finding(ev, ONE_SEGMENT("CRC_MISMATCH", s->size_bytes),
						     "%s: %lld batch%s fail%s CRC verification%s: the data on disk is corrupt "
						     "(a consumer or a follower reading it gets a CorruptRecordException)",
						     name, (long long)ss_seg_crc_errors(s),
						     ss_seg_crc_errors(s) == 1 ? "" : "es", ss_seg_crc_errors(s) == 1 ? "s" : "",
						     at)))
				return e;
		}
		if ((s->flags & SS_SEG_INDEX_BAD) &&
		    (e = ss_eval_add_finding(ev, NO_AMOUNT("INDEX_INCONSISTENT"),
					     "%s: its offset or time index is missing or does not match the log; the "
					     "broker rebuilds it on unclean recovery (slow startup), lookups may be wrong "
					     "until then",
					     name)))
			return e;
		if ((s->flags & SS_SEG_OFFSETS_BAD) &&
		    (e = ss_eval_add_finding(ev, ONE_SEGMENT("OFFSET_GAP_OR_OVERLAP", s->size_bytes),
					     "%s: offsets go backwards inside the segment", name)))
			return e;
		if (!active && (s->flags & SS_SEG_HAS_LAST) && s->last_offset >= x->live[k + 1]->base_offset &&
		    (e = ss_eval_add_finding(ev, ONE_SEGMENT("OFFSET_GAP_OR_OVERLAP", s->size_bytes),
					     "%s: its last offset %lld overlaps the next segment, which starts at %lld",
					     name, (long long)s->last_offset, (long long)x->live[k + 1]->base_offset)))
			return e;
		/* Below the name is always wrong; above it is normal in a compacted topic (the
		 * cleaner names a cleaned segment after the first segment of its group), so it is
		 * a finding only where cleanup.policy is known and has no compact. */
		bool base_bad = (s->flags & SS_SEG_BASE_MISMATCH) &&
				(ss_seg_first_base(s) < s->base_offset ||
				 (x->in->cfg->policy_known && !x->in->cfg->compact));
		if (base_bad &&
		    (e = ss_eval_add_finding(ev, NO_AMOUNT("BASE_OFFSET_MISMATCH"),
					     "%s: the first batch starts at offset %lld, not at the base offset %lld in "
					     "the file name",
					     name, (long long)ss_seg_first_base(s), (long long)s->base_offset)))
			return e;
	}
	return 0;
}

/* ---- the metadata log's view: configs, assignment, STRAY_PARTITION ---- */
static int eval_cluster(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	const struct ss_eval_cluster *c = in->cluster;
	const struct ss_part *p = in->part;
	struct ss_eval *ev = x->ev;
	char a[23], b[23];

	ev->n_config = in->cfg->n_entries < 9 ? in->cfg->n_entries : 9;
	ev->config = in->cfg->entries;
	/* remote.storage.enable that nothing said is not Kafka's default "false": segscan
	 * does not evaluate with it (the tiering is what settled it, or unknown), so its
	 * value is not a fact to print */
	for (uint32_t i = 0; i < ev->n_config; i++)
		if (in->cfg->remote_storage < 0 && !ev->config[i].source &&
		    strcmp(ev->config[i].key, "remote.storage.enable") == 0)
			ev->config_value_unknown |= 1u << i;
	/* a key Kafka sets from the creating broker's config on an internal topic it creates,
	 * which no source gives (eval/config.c): no value either */
	ev->config_value_unknown |= in->cfg->value_unknown & ((ev->n_config < 32 ? 1u << ev->n_config : 0u) - 1u);
	ev->here = -1;
	if (!c || !c->image || in->metadata_log)
		return 0;
	if (c->partition_known) {
		ev->has_assignment = true;
		ev->assignment = c->a;
		if (c->node_id >= 0) {
			ev->here = 0;
			for (uint32_t i = 0; i < c->a.n_replicas; i++)
				if (c->a.replicas[i] == c->node_id)
					ev->here = 1;
		}
	}
	/* a directory Kafka is deleting or moving between log dirs is not stray */
	if (p->kind == SS_DIR_DELETE || p->kind == SS_DIR_FUTURE)
		return 0;
	const char *why = NULL;
	char buf[256];
	if (!c->topic_known) {
		why = "its topic does not exist in the cluster metadata (deleted, or never created in this cluster)";
	} else if (c->topic_id_mismatch) {
		ss_uuid_format(p->topic_id, a);
		ss_uuid_format(c->topic_id, b);
		snprintf(buf, sizeof(buf), "its partition.metadata names topic id %s, but the cluster's %s has id %s: "
			 "the directory belongs to a deleted incarnation of the topic", a, p->topic, b);
		why = buf;
	} else if (!c->partition_known) {
		why = "the cluster metadata has no such partition of the topic";
	} else if (ev->here == 0) {
		snprintf(buf, sizeof(buf), "the cluster metadata assigns its replicas to other brokers, not this one "
			 "(node %d)", c->node_id);
		why = buf;
	}
	if (!why && p->kind != SS_DIR_STRAY)
		return 0;
	ev->stray = true;
	const struct ss_finding_spec spec = { .code = "STRAY_PARTITION", .has_amount = true,
					      .segments = x->n_live, .bytes = ev->size_bytes };
	return ss_eval_add_finding(ev, &spec, "%s/%s: %s; the broker does not serve this data, and it occupies %lld "
				   "bytes",
				   p->logdir_path ? p->logdir_path : "", p->dir,
				   why ? why : "Kafka itself marked the directory stray (-stray)", (long long)ev->size_bytes);
}

/* Offsets and sizes: each segment's end offset, the log start and end, the size. */
static int eval_offsets(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_part *part = in->part;
	uint32_t n = part->seg_count;
	int e;
	for (uint32_t i = 0; i < n; i++) {
		in->segs[i].flags &= (uint16_t)~SS_SEG_ONLY_LOCAL;
		if (!(in->segs[i].flags & SS_SEG_VANISHED))
			x->live[x->n_live++] = &in->segs[i];
	}
	for (uint32_t i = 0; i < n; i++) {
		/* the range a copy would record: up to the next file's base offset */
		struct ss_seg *s = &in->segs[i];
		/* the partition's segments come sorted by base offset, one file each */
		ss_assert(i == 0 || in->segs[i - 1].base_offset < s->base_offset);
		if (i + 1 < n)
			s->end_offset = ss_dec_sat(in->segs[i + 1].base_offset);
		else
			s->end_offset = (s->flags & SS_SEG_HAS_LAST) ? s->last_offset : ss_dec_sat(s->base_offset);
	}
	for (uint32_t k = 0; k + 1 < x->n_live; k++)
		x->live[k]->end_offset = ss_dec_sat(x->live[k + 1]->base_offset);
	struct ss_seg *active = x->n_live ? x->live[x->n_live - 1] : NULL;
	if (active)
		active->end_offset = (active->flags & SS_SEG_HAS_LAST) ? active->last_offset : ss_dec_sat(active->base_offset);

	if (active)
		ev->log_end_offset = (active->flags & SS_SEG_HAS_LAST) ? ss_inc_sat(active->last_offset) : active->base_offset;
	else
		ev->log_end_offset = part->has_log_start ? part->log_start_ckpt : 0;
	for (uint32_t k = 0; k < x->n_live; k++) {
		ev->size_bytes += ss_seg_kafka_size(x->live[k]); /* Kafka's Size: not a preallocated tail */
		/* a segment that failed before its size was known counts as unknown, never 0 */
		if (ss_seg_size_unknown(x->live[k]))
			ev->size_unknown = true;
	}
	ev->log_start_offset = part->has_log_start ? part->log_start_ckpt : x->n_live ? x->live[0]->base_offset : 0;
	/* A checkpoint beyond the log end cannot be the broker's log start (it would have
	 * nothing to serve): not reported as fact. */
	if (part->has_log_start && part->log_start_ckpt > ev->log_end_offset) {
		int64_t fallback = x->n_live ? x->live[0]->base_offset : ev->log_end_offset;
		if ((e = ss_eval_add_note(ev, "log-start-offset-checkpoint says %lld, beyond the log end offset %lld: "
					      "ignored; the log start offset shown is the first segment's base (%lld)",
					  (long long)part->log_start_ckpt, (long long)ev->log_end_offset,
					  (long long)fallback)))
			return e;
		ev->log_start_offset = fallback;
	}
	ev->remote_storage = in->cfg->remote_storage;
	return 0;
}

/* Tiered? *settled: what settled it when no config did (1 tiered, 0 not, -1 neither). */
static int eval_tiering(struct ss_evctx *x, int *settled)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_part *part = in->part;
	const struct ss_topic_cfg *cfg = in->cfg;
	int e;
	x->remote = in->remote && ss_remote_has_metadata(in->remote) ? in->remote : NULL;
	/* Without a config that says, remote_storage is what settles tiering: Kafka's own
	 * rules (UnifiedLog.isRemoteLogEnabled) or the partition's remote metadata; when
	 * nothing does it stays null, and so does the only-local set (issue 20 item 3). */
	*settled = -1;
	if (kafka_never_tiers(part->topic)) {
		ev->tiered = false;
		*settled = 0;
		ev->tiered_reason = "Kafka never tiers internal topics";
	} else if (cfg->compact) {
		ev->tiered = false;
		*settled = 0;
		ev->tiered_reason = "compacted topics are never tiered";
		/* LogConfig.validateNoRemoteStorageForCompactedTopic refuses this pair, and
		 * isRemoteLogEnabled ignores remote.storage.enable on a compacted topic: only a
		 * --topic-config line (a what-if) can give it */
		if (cfg->remote_storage == 1 &&
		    (e = ss_eval_add_note(ev, "remote.storage.enable=true has no effect: Kafka refuses remote storage on a "
					      "compacted topic and never tiers one")))
			return e;
	} else if (cfg->remote_system_enable < 0) {
		ev->tiered = false;
		*settled = 0;
		ev->tiered_reason = "remote.log.storage.system.enable is false on this broker";
	} else if (cfg->remote_storage == 1) {
		ev->tiered = true;
		ev->tiered_reason = "remote.storage.enable=true";
	} else if (cfg->remote_storage == 0) {
		ev->tiered = false;
		ev->tiered_reason = "remote.storage.enable=false";
	} else if (x->remote) {
		ev->tiered = true;
		*settled = 1;
		ev->tiered_reason = "remote.storage.enable not configured; remote metadata exists for the partition";
	} else if (in->has_seed) {
		ev->tiered = true;
		*settled = 1;
		ev->tiered_reason = "remote.storage.enable not configured; the partition was seeded";
	} else if (part->has_log_start && x->n_live && part->log_start_ckpt < x->live[0]->base_offset) {
		/* only a remote tier holds offsets below the first local segment */
		ev->tiered = true;
		ev->tiered_reason = "remote.storage.enable not known; the log start offset is below the first local "
				    "segment, evidence of a remote tier";
	} else {
		ev->tiered = false;
		ev->tiered_reason = "remote.storage.enable not known and no remote metadata for the partition: it may "
				    "be tiered, its remote metadata elsewhere";
	}
	if (ev->remote_storage < 0)
		ev->remote_storage = *settled;
	return 0;
}

/* The highest offset in remote storage, and where it comes from. */
static int eval_highest(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	const struct ss_part *part = in->part;
	int e;
	if (in->has_seed) {
		ev->seeded = true;
		ev->highest_offset = in->seed;
		ev->source = "seed";
	} else if (x->remote) {
		ev->seeded = true;
		ev->source = in->remote_source;
		if (part->epochs_read && part->n_epochs > 0) {
			int32_t used;
			ev->highest_offset = find_highest_remote_offset(part, x->remote, ev->log_end_offset, &used);
			if (used < 0 && (e = ss_eval_add_note(ev, "no local leader epoch has remote data: highest offset "
							     "in remote storage is -1, as the broker computes it")))
				return e;
		} else {
			int64_t h = -1;
			for (uint32_t i = 0; i < x->remote->n_segs; i++) {
				const struct ss_rseg *s = ss_remote_seg(x->remote, i);
				if (s->state == SS_RSEG_COPY_FINISHED && s->end_offset > h)
					h = s->end_offset;
			}
			ev->highest_offset = h;
			if ((e = ss_eval_add_note(ev, "leader-epoch-checkpoint %s: highest offset in remote storage is "
						      "the highest end offset of the finished remote segments (%lld), "
						      "not the broker's lineage-clipped value",
						  part->epochs_read ? "is empty" : "is missing or unreadable",
						  (long long)h)))
				return e;
		}
	} else if (in->remote_known_empty && ev->tiered) {
		ev->seeded = true;
		ev->highest_offset = -1;
		ev->source = in->remote_empty_source ? in->remote_empty_source : in->remote_source;
		if ((e = ss_eval_add_note(ev, "its remote metadata partition was read whole and holds no segment of it: "
					      "nothing is in remote storage yet (highest offset -1, as the broker "
					      "computes it)")))
			return e;
	} else {
		ev->seeded = false;
		ev->highest_offset = -1;
		ev->source = NULL;
	}
	return 0;
}

/* A tiered partition whose remote state no source gives, and what else makes the remote
 * state unknown. */
static int eval_remote_unknown(struct ss_evctx *x, int settled)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	int e;
	if (ev->tiered && !ev->seeded) {
		ev->remote_state_unknown = true;
		const struct ss_finding_spec spec = { .code = "REMOTE_STATE_UNKNOWN" };
		if ((e = ss_eval_add_finding(
			     ev, &spec,
			     "the partition is tiered (%s) but no source gives its remote state: %s; its remote segments, "
			     "only-local set, copy lag and retention are unknown, not zero",
			     ev->tiered_reason,
			     in->remote_unknown_why ? in->remote_unknown_why : "no remote metadata was read")))
			return e;
	}
	/* What the remote state would say is unknown: tiered without it, tiering unknown (it may
	 * be tiered, its metadata elsewhere), or a corrupt metadata batch could hold its events
	 * (a topic Kafka never tiers has no remote state to lose) */
	ev->remote_unknown = ev->remote_state_unknown || (ev->remote_storage < 0 && !ev->tiered) ||
			     (in->remote_tainted && settled != 0);
	if (in->remote_tainted && !ev->tiered && ev->remote_storage >= 0 && settled != 0 &&
	    (e = ss_eval_add_note(ev, "its remote segments are unknown: %s",
				  in->remote_unknown_why ? in->remote_unknown_why : "a corrupt remote metadata batch")))
		return e;
	if (in->remote && in->remote->delete_state >= 0 &&
	    (e = ss_eval_add_note(ev, "remote partition deletion: %s", ss_rpart_state_name(in->remote->delete_state))))
		return e;
	return 0;
}

/* The replica's role: only the leader copies (issue 22). */
static int eval_role(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	int e;
	const struct ss_eval_cluster *ecl = in->cluster;
	if (ecl && ecl->image && ecl->partition_known && ecl->node_id >= 0 && !in->metadata_log) {
		/* No leader in the metadata (-1: every replica's broker fenced, as after the
		 * cluster was stopped): which replica copies is unknown, not "none of them".
		 * This replica is then evaluated as before, from its own log. */
		if (ecl->a.leader >= 0)
			ev->role = ecl->a.leader == ecl->node_id ? SS_ROLE_LEADER : SS_ROLE_FOLLOWER;
		else if (ev->tiered && (x->remote || in->has_seed || in->remote_known_empty))
			/* (a partition known not to be tiered has no copy lag to say it of) */
			if ((e = ss_eval_add_note(ev, "the cluster metadata names no leader for the partition (its "
						      "replicas' brokers fenced, as when the cluster is stopped): "
						      "which replica copies to remote storage is unknown, so copy lag "
						      "is computed from this replica's log")))
				return e;
	}
	return 0;
}

/* Only-local, copy lag, and the copy lag the broker reports. */
static void eval_copy_lag(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	struct ss_seg *active = x->n_live ? x->live[x->n_live - 1] : NULL;
	int64_t active_size = active ? ss_seg_kafka_size(active) : 0;
	/* KAFKA-20977: releases with the fix count base_offset > highest, the others >= */
	bool strict_broker = ss_eval_affects(in, "KAFKA-20977") == SS_NOT_AFFECTED;
	if (!ev->tiered) {
		ev->copy_lag_null = true;
		ev->broker_copy_lag_null = true;
		/* not known to be untiered (remote_storage null): the segments' only copy may
		 * or may not be here, so the only-local set is unknown, never the whole log */
		if (ev->remote_storage < 0) {
			ev->only_local_null = true;
		} else {
			for (uint32_t k = 0; k < x->n_live; k++) {
				x->live[k]->flags |= SS_SEG_ONLY_LOCAL;
				ev->only_local_segments++;
				ev->only_local_bytes += ss_seg_kafka_size(x->live[k]);
				ev->only_local_null |= ss_seg_size_unknown(x->live[k]);
			}
		}
	} else {
		/* Kafka's RemoteCopyLag*: baseOffset >= highest (-1 while unseeded), minus the active */
		int64_t h = ev->seeded ? ev->highest_offset : -1;
		int64_t bs = 0, bb = 0;
		bool bb_unknown = false;
		for (uint32_t k = 0; k < x->n_live; k++) {
			if (strict_broker ? x->live[k]->base_offset > h : x->live[k]->base_offset >= h) {
				bs++;
				bb += ss_seg_kafka_size(x->live[k]);
				bb_unknown |= ss_seg_size_unknown(x->live[k]) && x->live[k] != active;
			}
		}
		ev->broker_copy_lag_segments = bs - 1 > 0 ? bs - 1 : 0;
		ev->broker_copy_lag_bytes = bb - active_size > 0 ? bb - active_size : 0;
		/* a fixed broker reports the strict count, which needs the highest offset: with
		 * it unknown here, so is the broker's number (an affected one would use -1) */
		if ((!ev->seeded && strict_broker) || bb_unknown)
			ev->broker_copy_lag_null = true;
		if (!ev->seeded) {
			ev->only_local_null = true;
			ev->copy_lag_null = true;
		} else {
			for (uint32_t k = 0; k < x->n_live; k++) {
				struct ss_seg *s = x->live[k];
				if (s->base_offset > ev->highest_offset) {
					s->flags |= SS_SEG_ONLY_LOCAL;
					ev->only_local_segments++;
					ev->only_local_bytes += ss_seg_kafka_size(s);
					/* a size that could not be read is unknown, never 0 */
					ev->only_local_null |= ss_seg_size_unknown(s);
					if (s != active) {
						ev->copy_lag_segments++;
						ev->copy_lag_bytes += ss_seg_kafka_size(s);
						ev->copy_lag_null |= ss_seg_size_unknown(s);
					}
				}
			}
		}
	}
}

static int eval_follower(struct ss_evctx *x)
{
	const struct ss_eval_cluster *ecl = x->in->cluster;
	struct ss_eval *ev = x->ev;
	int e;
	/* A follower's segments above the highest remote offset wait for the leader's copy,
	 * not for this replica's: Kafka's RLMCopyTask (and the RemoteCopyLag* gauges it
	 * updates) runs on the leader only, so on a follower the partition's copy lag is the
	 * leader's to report, and what the broker reports for this replica is nothing. */
	if (ev->tiered && ev->role == SS_ROLE_FOLLOWER) {
		ev->copy_lag_null = true;
		ev->broker_copy_lag_null = true;
		if ((e = ss_eval_add_note(ev, "a follower's replica (node %d; the partition's leader is node %d): only the "
					      "leader copies to remote storage and reports RemoteCopyLagSegments/Bytes, "
					      "so copy lag and the broker's copy lag are the leader's to report, and "
					      "the leader-only findings (PHANTOM_COPY_LAG, UNSEEDED_SIZE_RETENTION) "
					      "are evaluated there",
					  ecl->node_id, ecl->a.leader)))
			return e;
	}
	return 0;
}

/* KAFKA-20977: the broker's copy lag above the true one. */
static int eval_phantom_copy_lag(struct ss_evctx *x)
{
	const struct ss_eval_input *in = x->in;
	struct ss_eval *ev = x->ev;
	int e;
	if (ev->tiered && ev->seeded && ev->role != SS_ROLE_FOLLOWER &&
	    (ev->broker_copy_lag_segments > ev->copy_lag_segments || ev->broker_copy_lag_bytes > ev->copy_lag_bytes)) {
		int64_t xs = ev->broker_copy_lag_segments - ev->copy_lag_segments;
		int64_t xb = ev->broker_copy_lag_bytes - ev->copy_lag_bytes;
		char name[32] = "";
		for (uint32_t k = 0; k + 1 < x->n_live; k++)
			if (x->live[k]->base_offset == ev->highest_offset)
				seg_name(x->live[k], name, sizeof(name));
		const struct ss_finding_spec spec = {
			.code = "PHANTOM_COPY_LAG", .ref = "KAFKA-20977", .has_amount = true, .segments = xs, .bytes = xb,
		};
		char caveat[512];
		ss_eval_release_caveat(in, "KAFKA-20977", caveat, sizeof(caveat));
		if ((e = ss_eval_add_finding(
			     ev, &spec,
			     "the broker's RemoteCopyLagSegments/RemoteCopyLagBytes report %lld segment%s and %lld bytes "
			     "more than are waiting for upload (%lld segment%s, %lld bytes): its test base_offset >= "
			     "highest offset in remote storage (%lld) also counts %s%s, which is already in remote "
			     "storage%s",
			     (long long)xs, plural(xs), (long long)xb, (long long)ev->copy_lag_segments,
			     plural(ev->copy_lag_segments), (long long)ev->copy_lag_bytes, (long long)ev->highest_offset,
			     name[0] ? "the segment " : "the segment starting at that offset", name, caveat)))
			return e;
	}
	return 0;
}

int ss_eval_partition(const struct ss_eval_input *in, struct ss_eval **out)
{
	struct ss_evctx x;
	struct ss_eval *ev;
	int settled, e = -ENOMEM;

	*out = NULL;
	if (!in || !in->part || !in->cfg || (in->part->seg_count && !in->segs))
		return -EINVAL;
	uint32_t n = in->part->seg_count;
	memset(&x, 0, sizeof(x));
	if (!(ev = calloc(1, sizeof(*ev))))
		return -ENOMEM;
	x.in = in;
	x.ev = ev;
	if (n && !(x.live = malloc((size_t)n * sizeof(*x.live))))
		goto fail;
	if ((e = eval_offsets(&x)) || (e = eval_tiering(&x, &settled)) || (e = eval_highest(&x)) ||
	    (e = eval_remote_unknown(&x, settled)) || (e = eval_role(&x)))
		goto fail;
	eval_copy_lag(&x);
	if ((e = eval_follower(&x)))
		goto fail;
	/* copy lag is the only-local set without the active segment, never more */
	ss_assert(ev->only_local_segments <= x.n_live && ev->copy_lag_segments <= ev->only_local_segments &&
		  ev->copy_lag_bytes <= ev->only_local_bytes);
	/* remote totals, dangling, lost */
	if ((e = eval_remote(&x)) || (e = eval_phantom_copy_lag(&x)))
		goto fail;
	if (in->metadata_log) {
		/* Kafka applies no topic retention to its metadata log: snapshots and the
		 * log cleaner of the raft layer decide what goes */
		static const char why[] = "the KRaft metadata log (Kafka applies no topic retention to it)";
		struct ss_retention *rs[3] = { &ev->size, &ev->time, &ev->local };
		for (int i = 0; i < 3; i++) {
			rs[i]->evaluated = false;
			rs[i]->reason = why;
			rs[i]->limit = -1;
			rs[i]->total_bytes = -1;
		}
		ss_eval_retention_total(ev);
	} else if ((e = ss_eval_retention(&x))) {
		goto fail;
	}
	if ((e = ss_eval_delete_lag(&x)))
		goto fail;
	if ((e = eval_local_findings(&x)))
		goto fail;
	if ((e = ss_eval_health(&x)))
		goto fail;
	if ((e = eval_cluster(&x)))
		goto fail;

	free(x.live);
	free(x.fin);
	*out = ev;
	return 0;
fail:
	free(x.live);
	free(x.fin);
	ss_eval_free(ev);
	return e;
}
