/*
 * Prometheus text exposition 0.0.4: the contract's metric names, labels topic, partition
 * and log_dir (kafka_exporter's names), HELP and TYPE once per family, base units.
 * A series is omitted where the contract's value is null (e.g. copy lag of an unseeded
 * tiered partition), never exported as a made-up 0.
 *
 * Levels (issue 22): `partition` (default) writes the default families per partition replica
 * (at most 8 each, labels topic, partition, log_dir and node_id) and, per replica that has
 * them, its findings and read errors; --metrics-extra adds the extra families (every name of
 * the earlier expositions stays available). `topic` writes per-topic sums instead, computed
 * on this broker: local figures over its replicas, remote and lag figures over the
 * partitions it leads, so that summing a topic over every broker counts each partition once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "segscan.h"

void ss_out_prom_label_value(FILE *f, const char *s)
{
	/* the runs between escapes in one fwrite each, not a locked fputc per byte: serve
	 * renders a label pair per series every rescan (issue 15) */
	while (*s) {
		size_t n = strcspn(s, "\\\"\n");
		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		fputs(*s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", f);
		s++;
	}
}

/* The replica's node (its log dir's meta.properties), -1 unknown: the label is then absent. */
static int32_t node_of(const struct ss_results *r, const struct ss_part *p)
{
	return p->logdir < r->n_logdirs ? r->logdirs[p->logdir].node_id : -1;
}

/* topic, partition, log_dir and node_id, without the closing brace (a caller may add more) */
static void labels_open(FILE *f, const struct ss_results *r, const struct ss_part *p)
{
	fputs("{topic=\"", f);
	ss_out_prom_label_value(f, p->topic);
	fprintf(f, "\",partition=\"%d\",log_dir=\"", p->partition);
	ss_out_prom_label_value(f, ss_res_logdir_of(r, p));
	fputc('"', f);
	if (node_of(r, p) >= 0)
		fprintf(f, ",node_id=\"%d\"", node_of(r, p));
}

void ss_out_prom_labels(FILE *f, const struct ss_results *r, const struct ss_part *p)
{
	labels_open(f, r, p);
	fputc('}', f);
}

enum which {
	W_SIZE, W_SEGS, W_OL_SEGS, W_OL_BYTES, W_LAG_SEGS, W_LAG_BYTES, W_BLAG_SEGS, W_DANGLING, W_EXCESS,
	W_LSO, W_LEO, W_REMOTE_SIZE, W_REMOTE_HIGHEST, W_BLAG_BYTES, W_REMOTE_KNOWN, W_DANGLING_BYTES,
	W_LEADER, W_TIERED, W_REMOTE_SEGS, W_DLAG_SEGS, W_DLAG_BYTES,
};

/* Which families a partition has by default (D) and which only with --metrics-extra (X):
 * the default set is what a fleet's rules add up (8 series per replica at most; a test,
 * test_fleet_metrics.c, holds the budget). */
#define D false
#define X true

static const struct family {
	const char *name, *help;
	enum which  which;
	bool        extra;
} families[] = {
	{ "segscan_log_size_bytes", "Sum of the partition's live .log file sizes.", W_SIZE, D },
	{ "segscan_log_segments", "Live local segments of the partition.", W_SEGS, D },
	{ "segscan_only_local_segments",
	  "Local segments not yet in remote storage (base offset > highest remote offset; all for non-tiered topics).",
	  W_OL_SEGS, X },
	{ "segscan_only_local_bytes", "Bytes of the only-local segments.", W_OL_BYTES, D },
	{ "segscan_remote_copy_lag_segments", "Closed local segments waiting to be copied to remote storage.",
	  W_LAG_SEGS, X },
	{ "segscan_remote_copy_lag_bytes", "Bytes of the segments waiting to be copied to remote storage.",
	  W_LAG_BYTES, D },
	{ "segscan_broker_reported_copy_lag_segments",
	  "What the broker's RemoteCopyLagSegments formula reports (>= comparison; KAFKA-20977).", W_BLAG_SEGS, X },
	{ "segscan_remote_dangling_segments",
	  "Remote segments left DANGLING or stuck in a STARTED state past --dangling-after (KAFKA-17428).",
	  W_DANGLING, X },
	{ "segscan_retention_size_excess_bytes",
	  "Bytes over retention.bytes as size retention computes it (0 when within the limit).", W_EXCESS, X },
	{ "segscan_log_start_offset", "The partition's log start offset (the json report's log_start_offset).", W_LSO, X },
	{ "segscan_log_end_offset", "The partition's log end offset: the offset the next record gets.", W_LEO, X },
	{ "segscan_remote_size_bytes",
	  "Bytes of the partition's segments in remote storage (COPY_SEGMENT_FINISHED, not deleted).",
	  W_REMOTE_SIZE, D },
	{ "segscan_remote_highest_offset",
	  "highestOffsetInRemoteStorage: the last offset copied to remote storage (absent when unknown).",
	  W_REMOTE_HIGHEST, X },
	{ "segscan_broker_reported_copy_lag_bytes",
	  "What the broker's RemoteCopyLagBytes formula reports (>= comparison; KAFKA-20977).", W_BLAG_BYTES, D },
	{ "segscan_remote_state_known",
	  "1 when the partition's remote state is known (or it has no remote tier), 0 when it is not: tiered and no "
	  "source gives it (finding REMOTE_STATE_UNKNOWN), tiering unknown, or a corrupt metadata batch concerns it.",
	  W_REMOTE_KNOWN, X },
	/* beyond the contract's list: the bytes beside dangling_segments, for the recording
	 * rules of contrib/prometheus (dangling bytes per topic, broker, cluster) */
	{ "segscan_remote_dangling_bytes", "Bytes of the remote segments counted by segscan_remote_dangling_segments.",
	  W_DANGLING_BYTES, X },
	/* issue 22: the role and the tiering a fleet's rules join on, and the remote segment count */
	{ "segscan_partition_leader",
	  "1 on the replica whose node leads the partition (assignment.leader == node_id), 0 on a follower's; absent "
	  "when the role is unknown (no metadata log, no leader in it, no node id).",
	  W_LEADER, D },
	{ "segscan_partition_tiered",
	  "1 when the partition is evaluated as tiered, 0 when known not to be; absent when unknown.", W_TIERED, D },
	{ "segscan_remote_segments", "Finished remote segments of the partition (remote.segments of the report).",
	  W_REMOTE_SEGS, X },
	/* issue 27: the true delete lag, on the leader's replica only (a follower's is null) */
	{ "segscan_remote_delete_lag_segments",
	  "Remote segments the leader's expiration task would count in RemoteDeleteLagSegments now (due for deletion, "
	  "not yet DELETE_SEGMENT_FINISHED); on the leader's replica only.",
	  W_DLAG_SEGS, X },
	{ "segscan_remote_delete_lag_bytes",
	  "Bytes of the remote segments counted by segscan_remote_delete_lag_segments; on the leader's replica only.",
	  W_DLAG_BYTES, X },
};

static bool value(const struct ss_part *p, enum which w, int64_t *v)
{
	const struct ss_eval *ev = p->eval;
	/* an unreadable directory has no sizes or offsets to publish, only its read errors */
	if (!ev || p->unreadable)
		return false;
	switch (w) {
	case W_SIZE: *v = ev->size_bytes; return !ev->size_unknown;
	case W_SEGS: *v = p->seg_count; return true;
	case W_OL_SEGS: *v = ev->only_local_segments; return !ev->only_local_null;
	case W_OL_BYTES: *v = ev->only_local_bytes; return !ev->only_local_null;
	case W_LAG_SEGS: *v = ev->copy_lag_segments; return !ev->copy_lag_null;
	case W_LAG_BYTES: *v = ev->copy_lag_bytes; return !ev->copy_lag_null;
	case W_BLAG_SEGS: *v = ev->broker_copy_lag_segments; return !ev->broker_copy_lag_null;
	/* the remote tier's facts: omitted where the remote state is unknown (the contract's
	 * REMOTE_STATE_UNKNOWN, tiering unknown, a corrupt metadata batch that concerns it),
	 * whatever is known or not of the local log (an unreadable segment makes only_local
	 * null, not the remote state) */
	case W_DANGLING:
		*v = ev->dangling_segments;
		return !ev->remote_unknown && (ev->tiered || ev->remote_segments || ev->dangling_segments);
	case W_EXCESS:
		if (!ev->size.evaluated || ev->size.limit < 0)
			return false;
		*v = ev->size.total_bytes > ev->size.limit ? ev->size.total_bytes - ev->size.limit : 0;
		return true;
	case W_LSO: *v = ev->log_start_offset; return true;
	case W_LEO: *v = ev->log_end_offset; return true;
	case W_REMOTE_SIZE: *v = ev->remote_bytes; return !ev->remote_unknown;
	case W_REMOTE_HIGHEST: *v = ev->highest_offset; return ev->seeded;
	case W_BLAG_BYTES: *v = ev->broker_copy_lag_bytes; return !ev->broker_copy_lag_null;
	case W_REMOTE_KNOWN: *v = !ev->remote_unknown; return true;
	case W_DANGLING_BYTES:
		*v = ev->dangling_bytes;
		return !ev->remote_unknown && (ev->tiered || ev->remote_segments || ev->dangling_segments);
	case W_LEADER: *v = ev->role == SS_ROLE_LEADER; return ev->role != SS_ROLE_UNKNOWN;
	case W_TIERED: *v = ev->tiered; return ev->tiered || ev->remote_storage >= 0;
	case W_REMOTE_SEGS: *v = ev->remote_segments; return !ev->remote_unknown;
	case W_DLAG_SEGS: *v = ev->delete_lag_segments; return !ev->delete_lag_null;
	case W_DLAG_BYTES: *v = ev->delete_lag_bytes; return !ev->delete_lag_null;
	}
	return false;
}
#undef D
#undef X

/* Places of this partition that could not be read: its failed segments (a vanished one
 * is not an error) and the problems filed under its directory. A partition that was not
 * evaluated still has the series when it has errors: an unreadable partition is still in
 * every format. */
static int64_t part_read_errors(const struct ss_results *r, const struct ss_part *p)
{
	int64_t n = 0;
	for (uint32_t i = 0; i < p->seg_count; i++)
		n += ss_res_seg_failed(&r->segs[p->seg_first + i]);
	for (uint32_t i = 0; i < r->n_problems; i++)
		n += ss_res_problem_of(r, p, r->problems[i].path);
	return n;
}

/* segscan_findings{code}: one series per code a partition has, valued by how many of its
 * findings carry that code; a code it does not have has no series (absent, not 0, so
 * the series set stays as small as the findings). With `bytes`, segscan_findings_bytes
 * (beyond the contract's list): the bytes those findings concern, for the codes whose
 * findings name an amount (UNSEEDED_SIZE_RETENTION's bytes at risk from KAFKA-20732, ...). */
static void write_findings(const struct ss_results *r, FILE *f, bool bytes)
{
	const char *name = bytes ? "segscan_findings_bytes" : "segscan_findings";
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name,
		bytes ? "Bytes the partition's findings with this code concern (findings[].bytes)."
		      : "Findings of the partition with this code (the report's findings[].code).",
		name);
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		const struct ss_eval *ev = p->eval;
		if (!ev)
			continue;
		for (uint32_t k = 0; k < ev->n_findings; k++) {
			const char *code = ev->findings[k].code;
			bool first = true, amount = false;
			int64_t n = 0;
			for (uint32_t j = 0; j < k && first; j++)
				first = strcmp(ev->findings[j].code, code) != 0;
			if (!first)
				continue; /* the code's first finding wrote its series */
			for (uint32_t j = k; j < ev->n_findings; j++) {
				const struct ss_finding *fd = &ev->findings[j];
				if (strcmp(fd->code, code))
					continue;
				amount |= fd->has_amount;
				n += bytes ? (fd->has_amount ? fd->bytes : 0) : 1;
			}
			if (bytes && !amount)
				continue;
			fputs(name, f);
			labels_open(f, r, p);
			fputs(",code=\"", f);
			ss_out_prom_label_value(f, code);
			fprintf(f, "\"} %" PRId64 "\n", n);
		}
	}
}

/* " V\n" without printf: a million series per exposition in serve (issue 15) */
static void put_value(FILE *f, int64_t v)
{
	char b[24];
	int n = sizeof(b);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	b[--n] = '\n';
	do
		b[--n] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		b[--n] = '-';
	b[--n] = ' ';
	fwrite_unlocked(b + n, 1, sizeof(b) - (size_t)n, f); /* the caller holds the lock */
}

/* --horizon (ss_eval.forecast): what retention and the copy task do within the horizon, per
 * partition (absent where the forecast is unknown), and each log dir's free space now and
 * after (absent where unknown). Only written when --horizon was given. */
static void write_forecast(const struct ss_results *r, FILE *f)
{
	static const struct { const char *name, *help; } fam[] = {
		{ "segscan_forecast_local_delete_segments", "Local segments retention deletes within --horizon." },
		{ "segscan_forecast_local_delete_bytes", "Bytes of the local segments retention deletes within --horizon." },
		{ "segscan_forecast_remote_delete_segments",
		  "Remote segments (in remote storage now) retention deletes within --horizon." },
		{ "segscan_forecast_remote_delete_bytes", "Bytes of the remote segments retention deletes within --horizon." },
		{ "segscan_forecast_copy_segments", "Closed local segments the copy task copies within --horizon." },
	};
	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fam[k].name, fam[k].help, fam[k].name);
		for (uint32_t i = 0; i < r->n_parts; i++) {
			const struct ss_part *p = &r->parts[i];
			const struct ss_forecast *fc = p->eval && !p->unreadable ? &p->eval->forecast : NULL;
			if (!fc || !fc->evaluated || fc->unknown)
				continue;
			int64_t v = k == 0 ? fc->local_delete_segments : k == 1 ? fc->local_delete_bytes
				  : k == 2 ? fc->remote_delete_segments : k == 3 ? fc->remote_delete_bytes
							       : fc->copy_segments;
			fputs(fam[k].name, f);
			ss_out_prom_labels(f, r, p);
			put_value(f, v);
		}
	}
	for (int after = 0; after < 2; after++) {
		const char *name = after ? "segscan_log_dir_free_bytes_after" : "segscan_log_dir_free_bytes";
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name,
			after ? "Free bytes of the log dir's filesystem after the local deletes forecast within --horizon."
			      : "Free bytes of the log dir's filesystem (statvfs, for an unprivileged writer).",
			name);
		for (uint32_t i = 0; i < r->n_logdirs; i++) {
			int64_t v = !r->space ? -1 : after ? r->space[i].free_bytes_after : r->space[i].free_bytes;
			bool dup = false;
			for (uint32_t k = 0; k < i && !dup; k++)
				dup = !strcmp(r->logdirs[k].path, r->logdirs[i].path);
			if (dup || v < 0)
				continue;
			fprintf(f, "%s{log_dir=\"", name);
			ss_out_prom_label_value(f, r->logdirs[i].path);
			fputs("\"}", f);
			put_value(f, v);
		}
	}
}

static void write_retention_kinds(const struct ss_results *r, FILE *f);

static int write_partition_level(const struct ss_results *r, FILE *f)
{
	/* each partition's label set formatted once, not once per family (NULL entries, or
	 * no array when memory is short: formatted in place) */
	char **lab = r->n_parts ? calloc(r->n_parts, sizeof(*lab)) : NULL;
	for (uint32_t i = 0; lab && i < r->n_parts; i++) {
		size_t len = 0;
		FILE *m = open_memstream(&lab[i], &len);
		if (!m)
			continue;
		ss_out_prom_labels(m, r, &r->parts[i]);
		if (fclose(m)) {
			free(lab[i]);
			lab[i] = NULL;
		}
	}
	/* one lock for the series lines, not three per line (stdio's locks are recursive:
	 * labels() below takes it again) */
	flockfile(f);
	for (size_t k = 0; k < sizeof(families) / sizeof(families[0]); k++) {
		const struct family *fam = &families[k];
		if (fam->extra && !r->run.metrics_extra)
			continue;
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fam->name, fam->help, fam->name);
		for (uint32_t i = 0; i < r->n_parts; i++) {
			const struct ss_part *p = &r->parts[i];
			int64_t v;
			if (!value(p, fam->which, &v))
				continue;
			fputs_unlocked(fam->name, f);
			if (lab && lab[i])
				fputs_unlocked(lab[i], f);
			else
				ss_out_prom_labels(f, r, p);
			put_value(f, v);
		}
	}
	funlockfile(f);
	for (uint32_t i = 0; lab && i < r->n_parts; i++)
		free(lab[i]);
	free(lab);
	fputs("# HELP segscan_partition_read_errors Places of the partition that could not be read or failed "
	      "verification (its errors[]).\n# TYPE segscan_partition_read_errors gauge\n", f);
	for (uint32_t i = 0; i < r->n_parts; i++) {
		int64_t n = part_read_errors(r, &r->parts[i]);
		if (!r->parts[i].eval && !n)
			continue; /* never evaluated and nothing to report: no series, as above */
		if (!n && !r->run.metrics_extra)
			continue; /* the default level: only a replica with errors has the series */
		fputs("segscan_partition_read_errors", f);
		ss_out_prom_labels(f, r, &r->parts[i]);
		fprintf(f, " %" PRId64 "\n", n);
	}
	write_findings(r, f, false);
	write_findings(r, f, true);
	if (r->run.metrics_extra)
		write_retention_kinds(r, f);
	if (r->run.horizon_ms > 0) {
		flockfile(f);   /* put_value writes unlocked; partner: funlockfile below */
		write_forecast(r, f);
		funlockfile(f);
	}
	ss_out_store_prom(r, f);   /* --remote-store (out/store.c): partition level only */
	return 0;
}

/* segscan_retention_delete_bytes{kind}: what size, time and local retention would delete;
 * absent for a kind that is not evaluated (no limit, unknown, not applicable). */
static void write_retention_kinds(const struct ss_results *r, FILE *f)
{
	fputs("# HELP segscan_retention_delete_bytes Bytes the retention of this kind (size, time, local) would delete "
	      "now (retention.<kind>.delete_bytes; absent where not evaluated).\n"
	      "# TYPE segscan_retention_delete_bytes gauge\n", f);
	static const char *const kinds[] = { "size", "time", "local" };
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		const struct ss_eval *ev = p->eval;
		if (!ev || p->unreadable)
			continue;
		const struct ss_retention *rs[3] = { &ev->size, &ev->time, &ev->local };
		for (int k = 0; k < 3; k++) {
			if (!rs[k]->evaluated)
				continue;
			fputs("segscan_retention_delete_bytes", f);
			labels_open(f, r, p);
			fprintf(f, ",kind=\"%s\"}", kinds[k]);
			put_value(f, rs[k]->delete_bytes);
		}
	}
}

/* ---- --metrics-level=topic ---------------------------------------------------------------
 * One aggregate per (topic, node): local figures over this node's replicas of the topic,
 * remote and lag figures over the partitions the node leads (each partition is led by one
 * node, so a sum over the fleet counts it once). A figure a member does not know is unknown
 * for the topic (a total over unknowns is unknown), and so is a remote or lag figure while
 * a tiered replica's role is unknown: the series is then absent. */

enum tfig { T_REPLICAS, T_LED, T_SIZE, T_OL, T_REMOTE, T_RSEGS, T_LAG_S, T_LAG_B, T_BLAG_S, T_BLAG_B, T_DLAG_S,
	    T_DLAG_B, T_DANGLING, T_ERRORS, T_N };

static const struct tfam {
	const char *name, *help;
} tfams[T_N] = {
	[T_REPLICAS] = { "segscan_topic_partitions", "This node's replicas of the topic in the scanned log dirs." },
	[T_LED] = { "segscan_topic_leader_partitions", "Partitions of the topic this node leads (of its replicas)." },
	[T_SIZE] = { "segscan_topic_log_size_bytes", "Local bytes of this node's replicas of the topic." },
	[T_OL] = { "segscan_topic_only_local_bytes", "Only-local bytes of this node's replicas of the topic." },
	[T_REMOTE] = { "segscan_topic_remote_size_bytes",
		       "Remote bytes of the topic's partitions this node leads (RemoteLogSizeBytes' scope)." },
	[T_RSEGS] = { "segscan_topic_remote_segments", "Finished remote segments of the partitions this node leads." },
	[T_LAG_S] = { "segscan_topic_remote_copy_lag_segments",
		      "Segments waiting to be copied, over the partitions this node leads." },
	[T_LAG_B] = { "segscan_topic_remote_copy_lag_bytes",
		      "Bytes waiting to be copied, over the partitions this node leads." },
	[T_BLAG_S] = { "segscan_topic_broker_reported_copy_lag_segments",
		       "What the broker's RemoteCopyLagSegments reports for the topic (the partitions it leads)." },
	[T_BLAG_B] = { "segscan_topic_broker_reported_copy_lag_bytes",
		       "What the broker's RemoteCopyLagBytes reports for the topic (the partitions it leads)." },
	[T_DLAG_S] = { "segscan_topic_remote_delete_lag_segments",
		       "Remote segments due for deletion (delete_lag), over the partitions this node leads: what its "
		       "RemoteDeleteLagSegments for the topic should report." },
	[T_DLAG_B] = { "segscan_topic_remote_delete_lag_bytes",
		       "Bytes due for deletion (delete_lag), over the partitions this node leads." },
	[T_DANGLING] = { "segscan_topic_remote_dangling_bytes",
			 "Dangling remote bytes (KAFKA-17428) of the partitions this node leads." },
	[T_ERRORS] = { "segscan_topic_read_errors", "Places of this node's replicas of the topic that could not be read." },
};

struct tagg {
	uint32_t first, last;    /* the topic's rows [first, last) */
	int32_t  node;
	int64_t  v[T_N];
	bool     unk[T_N];
};

/* Findings a leader's accounting shows, or that describe the remote state every replica
 * sees alike: counted on the leader's replica only at topic level. */
static bool partition_wide(const char *code)
{
	static const char *const codes[] = { "PHANTOM_COPY_LAG", "UNSEEDED_SIZE_RETENTION", "DANGLING_REMOTE_SEGMENT",
					     "LOST_EPOCH_SEGMENT", "STUCK_REMOTE_COPY", "STUCK_REMOTE_DELETE",
					     "REMOTE_METADATA_AT_RISK" };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(code, codes[i]) == 0)
			return true;
	return false;
}

static void tagg_add(const struct ss_results *r, struct tagg *t, const struct ss_part *p)
{
	const struct ss_eval *ev = p->eval;
	t->v[T_REPLICAS]++;
	t->v[T_ERRORS] += part_read_errors(r, p);
	if (!ev || p->unreadable) {
		for (int k = T_SIZE; k < T_ERRORS; k++)
			t->unk[k] = true;
		return;
	}
	t->v[T_SIZE] += ev->size_bytes;
	t->unk[T_SIZE] |= ev->size_unknown;
	t->v[T_OL] += ev->only_local_bytes;
	t->unk[T_OL] |= ev->only_local_null;
	/* tiering unknown: its remote and lag figures are unknown, not those of no remote tier */
	bool tier_unk = ev->remote_storage < 0 && !ev->tiered;
	bool remote_part = ev->tiered || ev->remote_segments || tier_unk;
	if (ev->role == SS_ROLE_UNKNOWN) {
		if (remote_part)
			for (int k = T_REMOTE; k <= T_DANGLING; k++)
				t->unk[k] = true;
		return;
	}
	if (ev->role != SS_ROLE_LEADER)
		return;
	t->v[T_LED]++;
	t->v[T_REMOTE] += ev->remote_bytes;
	t->v[T_RSEGS] += ev->remote_segments;
	t->unk[T_REMOTE] |= ev->remote_unknown;
	t->unk[T_RSEGS] |= ev->remote_unknown;
	t->v[T_DANGLING] += ev->dangling_bytes;
	t->unk[T_DANGLING] |= ev->remote_unknown;
	if (ev->tiered || tier_unk) {   /* a partition known not to be tiered has no lag (not applicable) */
		t->v[T_LAG_S] += ev->copy_lag_segments;
		t->v[T_LAG_B] += ev->copy_lag_bytes;
		t->unk[T_LAG_S] |= ev->copy_lag_null;
		t->unk[T_LAG_B] |= ev->copy_lag_null;
		t->v[T_BLAG_S] += ev->broker_copy_lag_segments;
		t->v[T_BLAG_B] += ev->broker_copy_lag_bytes;
		t->unk[T_BLAG_S] |= ev->broker_copy_lag_null;
		t->unk[T_BLAG_B] |= ev->broker_copy_lag_null;
		/* a tiered leader's null delete lag is unknown or has no gauge: no sum either way */
		t->v[T_DLAG_S] += ev->delete_lag_segments;
		t->v[T_DLAG_B] += ev->delete_lag_bytes;
		t->unk[T_DLAG_S] |= ev->delete_lag_null;
		t->unk[T_DLAG_B] |= ev->delete_lag_null;
	}
}

static void topic_labels(FILE *f, const struct ss_results *r, const struct tagg *t)
{
	fputs("{topic=\"", f);
	ss_out_prom_label_value(f, r->parts[t->first].topic);
	fputc('"', f);
	if (t->node >= 0)
		fprintf(f, ",node_id=\"%d\"", t->node);
}

static int write_topic_level(const struct ss_results *r, FILE *f)
{
	struct tagg *ag = NULL;
	size_t n = 0, cap = 0;
	for (uint32_t i = 0; i < r->n_parts;) {
		uint32_t j = i;
		while (j < r->n_parts && strcmp(r->parts[j].topic, r->parts[i].topic) == 0)
			j++;
		/* one aggregate per node among the topic's rows (one node per broker's scan) */
		size_t base = n;
		for (uint32_t k = i; k < j; k++) {
			int32_t node = node_of(r, &r->parts[k]);
			size_t a;
			for (a = base; a < n && ag[a].node != node; a++)
				;
			if (a == n) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 64;
					struct tagg *t = realloc(ag, nc * sizeof(*t));
					if (!t) {
						free(ag);
						return -ENOMEM;
					}
					ag = t;
					cap = nc;
				}
				memset(&ag[n], 0, sizeof(ag[n]));
				ag[n].first = i;
				ag[n].last = j;
				ag[n].node = node;
				n++;
			}
			tagg_add(r, &ag[a], &r->parts[k]);
		}
		i = j;
	}
	for (int k = 0; k < T_N; k++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", tfams[k].name, tfams[k].help, tfams[k].name);
		for (size_t a = 0; a < n; a++) {
			if (ag[a].unk[k])
				continue;
			fputs(tfams[k].name, f);
			topic_labels(f, r, &ag[a]);
			fputc('}', f);
			put_value(f, ag[a].v[k]);
		}
	}
	/* segscan_topic_findings{code}: this node's replicas of the topic with a finding of that
	 * code; the partition-wide codes on the leader's replica only */
	fputs("# HELP segscan_topic_findings Partitions of the topic with a finding of this code: this node's replicas, "
	      "for the codes of a partition's remote state and leader (PHANTOM_COPY_LAG, UNSEEDED_SIZE_RETENTION, "
	      "DANGLING_REMOTE_SEGMENT, LOST_EPOCH_SEGMENT, STUCK_REMOTE_COPY, STUCK_REMOTE_DELETE, "
	      "REMOTE_METADATA_AT_RISK) the partitions it leads.\n"
	      "# TYPE segscan_topic_findings gauge\n", f);
	for (size_t a = 0; a < n; a++) {
		const char *codes[32];
		int64_t cnt[32];
		size_t nc = 0;
		for (uint32_t k = ag[a].first; k < ag[a].last; k++) {
			const struct ss_part *p = &r->parts[k];
			const struct ss_eval *ev = p->eval;
			if (!ev || node_of(r, p) != ag[a].node)
				continue;
			for (uint32_t q = 0; q < ev->n_findings; q++) {
				const char *code = ev->findings[q].code;
				bool seen = false;
				for (uint32_t z = 0; z < q && !seen; z++)
					seen = strcmp(ev->findings[z].code, code) == 0;
				if (seen || (partition_wide(code) && ev->role == SS_ROLE_FOLLOWER))
					continue;
				size_t c;
				for (c = 0; c < nc && strcmp(codes[c], code) != 0; c++)
					;
				if (c == nc) {
					if (nc == 32)
						continue;   /* the contract has fewer codes */
					codes[nc] = code;
					cnt[nc++] = 0;
				}
				cnt[c]++;
			}
		}
		for (size_t c = 0; c < nc; c++) {
			fputs("segscan_topic_findings", f);
			topic_labels(f, r, &ag[a]);
			fputs(",code=\"", f);
			ss_out_prom_label_value(f, codes[c]);
			fputs("\"}", f);
			put_value(f, cnt[c]);
		}
	}
	free(ag);
	return 0;
}

/* ---- the scan and the broker: every level ---------------------------------------------- */

/* --broker-metrics (issue 27): per (broker, topic), what its RemoteDeleteLag* gauges report and
 * its per-topic findings (PHANTOM_DELETE_LAG), labels topic and node_id only: the gauge is a
 * per-topic fact, so no partition's series carries it (a sum over partitions would count it
 * once per partition). Absent where the gauge was not read. */
static void write_broker_topics(const struct ss_results *r, FILE *f)
{
	if (!r->n_topic_dellag)
		return;
	static const char *const names[2] = { "segscan_broker_delete_lag_segments", "segscan_broker_delete_lag_bytes" };
	for (int k = 0; k < 2; k++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", names[k],
			k ? "What the broker's RemoteDeleteLagBytes reports for the topic (--broker-metrics)."
			  : "What the broker's RemoteDeleteLagSegments reports for the topic (--broker-metrics).",
			names[k]);
		for (uint32_t i = 0; i < r->n_topic_dellag; i++) {
			const struct ss_topic_dellag *t = &r->topic_dellag[i];
			if (!t->broker_known)
				continue;
			fputs(names[k], f);
			fputs("{topic=\"", f);
			ss_out_prom_label_value(f, t->topic);
			fputc('"', f);
			if (t->node_id >= 0)
				fprintf(f, ",node_id=\"%d\"", t->node_id);
			fputc('}', f);
			put_value(f, k ? t->broker_bytes : t->broker_segments);
		}
	}
	fputs("# HELP segscan_broker_topic_findings Findings about a broker's own gauges for a topic (PHANTOM_DELETE_LAG).\n"
	      "# TYPE segscan_broker_topic_findings gauge\n", f);
	for (uint32_t i = 0; i < r->n_topic_dellag; i++) {
		const struct ss_topic_dellag *t = &r->topic_dellag[i];
		for (uint32_t k = 0; k < t->n_findings; k++) {
			fputs("segscan_broker_topic_findings{topic=\"", f);
			ss_out_prom_label_value(f, t->topic);
			fputc('"', f);
			if (t->node_id >= 0)
				fprintf(f, ",node_id=\"%d\"", t->node_id);
			fputs(",code=\"", f);
			ss_out_prom_label_value(f, t->findings[k].code);
			fputs("\"}", f);
			put_value(f, 1);
		}
	}
}

static void write_broker_info(const struct ss_results *r, FILE *f)
{
	fputs("# HELP segscan_broker_info The broker (node) the scanned log dirs belong to, its cluster and its Kafka "
	      "release (an empty label where unknown).\n# TYPE segscan_broker_info gauge\n", f);
	const struct ss_res_cluster *c = &r->cluster;
	/* one series per node of the scanned log dirs (their meta.properties), or the one the
	 * cluster context names when none says */
	bool any = false;
	for (uint32_t i = 0; i <= r->n_logdirs; i++) {
		int32_t node = i < r->n_logdirs ? r->logdirs[i].node_id : c->node_id;
		const char *cid = i < r->n_logdirs ? r->logdirs[i].cluster_id : c->cluster_id;
		if (i == r->n_logdirs && any)
			break;
		if (i < r->n_logdirs && node < 0)
			continue;
		bool dup = false;
		for (uint32_t k = 0; k < i && i < r->n_logdirs && !dup; k++)
			dup = r->logdirs[k].node_id == node;
		if (dup)
			continue;
		any = true;
		fputs("segscan_broker_info{node_id=\"", f);
		if (node >= 0)
			fprintf(f, "%d", node);
		fputs("\",cluster_id=\"", f);
		ss_out_prom_label_value(f, cid ? cid : c->cluster_id ? c->cluster_id : "");
		fputs("\",kafka_version=\"", f);
		/* the release of the node the context describes, when known for sure (exact, or
		 * one release line): a level two lines share, or another node's, is "" */
		if (c->kafka_version && c->kafka_version_known && node == c->node_id)
			ss_out_prom_label_value(f, c->kafka_version);
		fputs("\"} 1\n", f);
	}
}

int ss_out_prom_counters(const struct ss_results *r, FILE *f, const struct ss_prom_counters *c)
{
	int e = r->run.metrics_topic ? write_topic_level(r, f) : write_partition_level(r, f);
	if (e)
		return e;
	write_broker_topics(r, f);
	write_broker_info(r, f);
	fprintf(f, "# HELP segscan_scan_duration_seconds Wall time of the last complete scan.\n"
		   "# TYPE segscan_scan_duration_seconds gauge\nsegscan_scan_duration_seconds %.6f\n",
		c->duration_seconds);
	fprintf(f, "# HELP segscan_scan_segments_total Segments scanned.\n"
		   "# TYPE segscan_scan_segments_total counter\nsegscan_scan_segments_total %" PRIu64 "\n",
		c->segments_total);
	fprintf(f, "# HELP segscan_scan_bytes_read_total Bytes read from segment and index files.\n"
		   "# TYPE segscan_scan_bytes_read_total counter\nsegscan_scan_bytes_read_total %" PRIu64 "\n",
		c->bytes_read_total);
	fprintf(f, "# HELP segscan_scan_errors_total Files or places that could not be read or failed verification.\n"
		   "# TYPE segscan_scan_errors_total counter\nsegscan_scan_errors_total %" PRIu64 "\n",
		c->errors_total);
	fprintf(f, "# HELP segscan_build_info segscan build information.\n"
		   "# TYPE segscan_build_info gauge\nsegscan_build_info{version=\"%s\",io=\"%s\"} 1\n",
		SEGSCAN_VERSION, r->run.io[0] ? r->run.io : "none");
	/* Whether the scan saw everything it was given (issue 20 item 5): a log dir that is
	 * gone (a JBOD disk that dropped out) is a failed scan, not a broker with fewer
	 * partitions. The exit code is the one `segscan scan` exits with. */
	fprintf(f, "# HELP segscan_scan_exit_code Exit status of the scan as segscan scan gives it: 0 complete, 1 some "
		   "data could not be read, 3 a log dir is missing or unreadable.\n"
		   "# TYPE segscan_scan_exit_code gauge\nsegscan_scan_exit_code %d\n",
		r->run.exit_code);
	fputs("# HELP segscan_log_dir_up 1 when the log dir could be read, 0 when it is missing or unreadable.\n"
	      "# TYPE segscan_log_dir_up gauge\n", f);
	for (uint32_t i = 0; i < r->n_logdirs; i++) {
		bool dup = false; /* a log dir given twice is one series */
		for (uint32_t k = 0; k < i && !dup; k++)
			dup = !strcmp(r->logdirs[k].path, r->logdirs[i].path);
		if (dup)
			continue;
		fputs("segscan_log_dir_up{log_dir=\"", f);
		ss_out_prom_label_value(f, r->logdirs[i].path);
		fprintf(f, "\"} %d\n", r->logdirs[i].err ? 0 : 1);
	}
	return ferror(f) ? -EIO : 0;
}

int ss_out_prom(const struct ss_results *r, FILE *f)
{
	struct ss_summary sum;
	ss_out_summarize(r, &sum);
	struct ss_prom_counters c = {
		.duration_seconds = r->run.times.total,
		.segments_total = r->n_segs,
		.bytes_read_total = (uint64_t)r->run.bytes_read,
		.errors_total = (uint64_t)sum.errors,
	};
	return ss_out_prom_counters(r, f, &c);
}
