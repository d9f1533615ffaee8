/*
 * Prometheus text exposition 0.0.4: the contract's metric names, labels topic, partition
 * and log_dir (kafka_exporter's names), HELP and TYPE once per family, base units.
 * A series is omitted where the contract's value is null (e.g. copy lag of an unseeded
 * tiered partition), never exported as a made-up 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out/out.h"
#include "segscan.h"

static void label_value(FILE *f, const char *s)
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

static void labels(FILE *f, const struct ss_results *r, const struct ss_part *p)
{
	fputs("{topic=\"", f);
	label_value(f, p->topic);
	fprintf(f, "\",partition=\"%d\",log_dir=\"", p->partition);
	label_value(f, ss_res_logdir_of(r, p));
	fputs("\"}", f);
}

enum which {
	W_SIZE, W_SEGS, W_OL_SEGS, W_OL_BYTES, W_LAG_SEGS, W_LAG_BYTES, W_BLAG_SEGS, W_DANGLING, W_EXCESS,
	W_LSO, W_LEO, W_REMOTE_SIZE, W_REMOTE_HIGHEST, W_BLAG_BYTES, W_REMOTE_KNOWN, W_DANGLING_BYTES,
};

static const struct family {
	const char *name, *help;
	enum which  which;
} families[] = {
	{ "segscan_log_size_bytes", "Sum of the partition's live .log file sizes.", W_SIZE },
	{ "segscan_log_segments", "Live local segments of the partition.", W_SEGS },
	{ "segscan_only_local_segments",
	  "Local segments not yet in remote storage (base offset > highest remote offset; all for non-tiered topics).",
	  W_OL_SEGS },
	{ "segscan_only_local_bytes", "Bytes of the only-local segments.", W_OL_BYTES },
	{ "segscan_remote_copy_lag_segments", "Closed local segments waiting to be copied to remote storage.",
	  W_LAG_SEGS },
	{ "segscan_remote_copy_lag_bytes", "Bytes of the segments waiting to be copied to remote storage.",
	  W_LAG_BYTES },
	{ "segscan_broker_reported_copy_lag_segments",
	  "What the broker's RemoteCopyLagSegments formula reports (>= comparison; KAFKA-20977).", W_BLAG_SEGS },
	{ "segscan_remote_dangling_segments",
	  "Remote segments left DANGLING or stuck in a STARTED state past --dangling-after (KAFKA-17428).",
	  W_DANGLING },
	{ "segscan_retention_size_excess_bytes",
	  "Bytes over retention.bytes as size retention computes it (0 when within the limit).", W_EXCESS },
	{ "segscan_log_start_offset", "The partition's log start offset (the json report's log_start_offset).", W_LSO },
	{ "segscan_log_end_offset", "The partition's log end offset: the offset the next record gets.", W_LEO },
	{ "segscan_remote_size_bytes",
	  "Bytes of the partition's segments in remote storage (COPY_SEGMENT_FINISHED, not deleted).",
	  W_REMOTE_SIZE },
	{ "segscan_remote_highest_offset",
	  "highestOffsetInRemoteStorage: the last offset copied to remote storage (absent when unknown).",
	  W_REMOTE_HIGHEST },
	{ "segscan_broker_reported_copy_lag_bytes",
	  "What the broker's RemoteCopyLagBytes formula reports (>= comparison; KAFKA-20977).", W_BLAG_BYTES },
	{ "segscan_remote_state_known",
	  "1 when the partition's remote state is known (or it has no remote tier), 0 when it is not: tiered and no "
	  "source gives it (finding REMOTE_STATE_UNKNOWN), tiering unknown, or a corrupt metadata batch concerns it.",
	  W_REMOTE_KNOWN },
	/* beyond the contract's list: the bytes beside dangling_segments, for the recording
	 * rules of contrib/prometheus (dangling bytes per topic, broker, cluster) */
	{ "segscan_remote_dangling_bytes", "Bytes of the remote segments counted by segscan_remote_dangling_segments.",
	  W_DANGLING_BYTES },
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
	}
	return false;
}

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
			fprintf(f, "%s{topic=\"", name);
			label_value(f, p->topic);
			fprintf(f, "\",partition=\"%d\",log_dir=\"", p->partition);
			label_value(f, ss_res_logdir_of(r, p));
			fputs("\",code=\"", f);
			label_value(f, code);
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
			labels(f, r, p);
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
			label_value(f, r->logdirs[i].path);
			fputs("\"}", f);
			put_value(f, v);
		}
	}
}

int ss_out_prom_counters(const struct ss_results *r, FILE *f, const struct ss_prom_counters *c)
{
	/* each partition's label set formatted once, not once per family (NULL entries, or
	 * no array when memory is short: formatted in place) */
	char **lab = r->n_parts ? calloc(r->n_parts, sizeof(*lab)) : NULL;
	for (uint32_t i = 0; lab && i < r->n_parts; i++) {
		size_t len = 0;
		FILE *m = open_memstream(&lab[i], &len);
		if (!m)
			continue;
		labels(m, r, &r->parts[i]);
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
				labels(f, r, p);
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
		fputs("segscan_partition_read_errors", f);
		labels(f, r, &r->parts[i]);
		fprintf(f, " %" PRId64 "\n", n);
	}
	write_findings(r, f, false);
	write_findings(r, f, true);
	if (r->run.horizon_ms > 0) {
		flockfile(f);   /* put_value writes unlocked; partner: funlockfile below */
		write_forecast(r, f);
		funlockfile(f);
	}
	ss_out_store_prom(r, f);   /* --remote-store (out/store.c) */
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
		label_value(f, r->logdirs[i].path);
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
