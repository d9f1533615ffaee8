/*
 * The human report: one line per partition with per-topic totals, local vs remote,
 * copy lag beside what the broker reports, retention predictions, then every finding,
 * error and note spelled out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/out.h"
#include "segscan.h"

static const char *lag_text(bool null, int64_t segs, int64_t bytes, char *buf, size_t len)
{
	char b[32];
	if (null)
		snprintf(buf, len, "-");
	else if (segs == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%" PRId64 " seg/%s", segs, ss_human_bytes(bytes, b, sizeof(b)));
	return buf;
}

static const char *retention_text(const struct ss_eval *ev, char *buf, size_t len)
{
	char b[32];
	int64_t segs = (int64_t)ev->size.n_delete + ev->time.n_delete;
	int64_t bytes = ev->size.delete_bytes + ev->time.delete_bytes;
	if (!ev->size.evaluated && !ev->time.evaluated && !ev->local.evaluated)
		snprintf(buf, len, "not evaluated");
	else if (segs == 0 && ev->local.n_delete == 0)
		snprintf(buf, len, "nothing due");
	else if (ev->local.n_delete && segs == 0)
		snprintf(buf, len, "local: %u seg/%s", ev->local.n_delete,
			 ss_human_bytes(ev->local.delete_bytes, b, sizeof(b)));
	else
		snprintf(buf, len, "%s%" PRId64 " seg/%s", ev->tiered ? "remote: " : "", segs,
			 ss_human_bytes(bytes, b, sizeof(b)));
	return buf;
}

static void finding_codes(const struct ss_eval *ev, char *buf, size_t len)
{
	buf[0] = 0;
	size_t n = 0;
	for (uint32_t i = 0; i < ev->n_findings && n + 2 < len; i++) {
		/* one mention per code */
		bool seen = false;
		for (uint32_t k = 0; k < i; k++)
			if (strcmp(ev->findings[k].code, ev->findings[i].code) == 0)
				seen = true;
		if (seen)
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", ev->findings[i].code);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	if (!n)
		snprintf(buf, len, "-");
}

/* Which sources the report stands on, and what is missing (the cluster context). */
static void write_sources(const struct ss_results *r, FILE *f)
{
	const struct ss_res_cluster *c = &r->cluster;
	if (c->metadata_log)
		fprintf(f, "  metadata log: yes, to offset %" PRId64 "%s%s%s, %" PRIu64 " records%s", c->last_offset,
			c->snapshot ? " (snapshot " : "", c->snapshot ? c->snapshot : "", c->snapshot ? ")" : "",
			c->records, c->warnings ? " with warnings" : "");
	else
		fprintf(f, "  metadata log: no%s%s%s", c->metadata_why_not ? " (" : "",
			c->metadata_why_not ? c->metadata_why_not : "", c->metadata_why_not ? ")" : "");
	fprintf(f, "; kafka %s%s%s%s", c->kafka_version ? c->kafka_version : "unknown",
		c->kafka_version_source ? " (from " : "", c->kafka_version_source ? c->kafka_version_source : "",
		c->kafka_version_source ? ")" : "");
	if (c->kafka_version_note)
		fprintf(f, " [%s]", c->kafka_version_note);
	if (c->node_id >= 0)
		fprintf(f, ", node %d", c->node_id);
	if (!c->metadata_log && c->configs_from)
		fprintf(f, "\n  topic configs: from the cluster (DescribeConfigs)");
	else if (c->configs_error)
		fprintf(f, "\n  topic configs: unknown (%s)", c->configs_error);
	if (c->static_config)
		fprintf(f, "\n  broker config: %s (%s)", c->static_config, c->static_config_how ? c->static_config_how : "");
	else if (c->static_config_how)
		fprintf(f, "\n  broker config: %s", c->static_config_how);
	fprintf(f, "\n  remote metadata: ");
	if (!c->tiered_partitions)
		fprintf(f, "no tiered partition");
	else
		fprintf(f, "known for %u of %u tiered partitions", c->remote_known_partitions, c->tiered_partitions);
	if (r->run.remote_source)
		fprintf(f, " (from %s", r->run.remote_source);
	if (r->run.remote_source && c->rlmm_partitions > 0)
		fprintf(f, ": %u of %d __remote_log_metadata partitions here", c->rlmm_local, c->rlmm_partitions);
	if (r->run.remote_source)
		fputc(')', f);
	fputc('\n', f);
	/* a torn or corrupt metadata file: the replay used what it could read */
	for (uint32_t i = 0; i < c->n_warning_texts && i < 20; i++)
		fprintf(f, "  metadata log warning: %s\n", c->warning_texts[i]);
	if (c->warnings > 20)
		fprintf(f, "  metadata log: %" PRIu64 " warnings in all (json: summary.cluster_metadata)\n", c->warnings);
}

static int table_body(const struct ss_results *r, FILE *f, bool every_row);

/* The table is built in memory and written through ss_term_write: every name and
 * message in it may hold bytes from a directory name. */
int ss_out_table(const struct ss_results *r, FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	/* on a terminal the topic is named once per group; elsewhere (a pipe, a file) on
	 * every row, so that grep and sort work line by line */
	int fd = fileno(f);
	int e = table_body(r, m, fd < 0 || !isatty(fd));
	if (fclose(m) != 0 && !e)
		e = -ENOMEM;
	if (!e)
		ss_term_write(f, buf, len);
	free(buf);
	if (!e && ferror(f))
		e = -EIO;
	return e;
}

static int table_body(const struct ss_results *r, FILE *f, bool every_row)
{
	struct ss_summary sum;
	char b1[32], b2[32], b3[48], b4[48], b5[64], b6[256];
	ss_out_summarize(r, &sum);

	fprintf(f, "segscan %s: %u partitions in %" PRId64 " topics, %u segments, %s local", SEGSCAN_VERSION,
		r->n_parts, sum.topics, (uint32_t)sum.segments, ss_human_bytes(sum.size_bytes, b1, sizeof(b1)));
	if (sum.remote_segments)
		fprintf(f, ", %" PRId64 " remote segments (%s)", sum.remote_segments,
			ss_human_bytes(sum.remote_bytes, b2, sizeof(b2)));
	fprintf(f, "\n  log dirs:");
	for (uint32_t i = 0; i < r->n_logdirs; i++)
		fprintf(f, " %s", r->logdirs[i].path);
	fprintf(f, "\n  scan: %s, io=%s, %u threads, %.3f s, %s read%s\n", r->run.verify ? "verify (every byte)" : "fast path (index tails)",
		r->run.io, r->run.threads, r->run.times.total,
		ss_human_bytes(r->run.bytes_read, b1, sizeof(b1)), r->run.remote_source ? "" : ", no remote metadata");
	write_sources(r, f);
	fputc('\n', f);

	if (r->n_parts) {
		fprintf(f, "%-32s %5s %5s %10s %-10s %-16s %-16s %-16s %-22s %s\n", "TOPIC", "PART", "SEGS", "LOCAL",
			"ONLY-LOCAL", "REMOTE", "COPY LAG", "BROKER SAYS", "RETENTION", "FINDINGS");
	}
	for (uint32_t i = 0; i < r->n_parts;) {
		/* one topic: its partitions, then a total line when it has several */
		uint32_t j = i;
		int64_t t_size = 0, t_lag = 0, t_lagb = 0, t_remote = 0;
		for (; j < r->n_parts && strcmp(r->parts[j].topic, r->parts[i].topic) == 0; j++) {
			const struct ss_part *p = &r->parts[j];
			const struct ss_eval *ev = p->eval;
			if (!ev)
				continue;
			const char *tname = j == i || every_row ? p->topic : "";
			if (p->unreadable) {
				fprintf(f, "%-32s %5d %5s %10s %s\n", tname, p->partition, "?", "?",
					"directory unreadable (see below)");
				continue;
			}
			char remote[48];
			/* unknown remote state is '?', never the local-only picture */
			bool unk = ev->remote_state_unknown;
			if (unk && !ev->remote_segments)
				snprintf(remote, sizeof(remote), "?");
			else if (ev->tiered || ev->remote_segments)
				snprintf(remote, sizeof(remote), "%" PRId64 " seg/%s", ev->remote_segments,
					 ss_human_bytes(ev->remote_bytes, b2, sizeof(b2)));
			else
				snprintf(remote, sizeof(remote), "-");
			finding_codes(ev, b6, sizeof(b6));
			fprintf(f, "%-32s %5d %5u %10s %-10s %-16s %-16s %-16s %-22s %s\n", tname, p->partition,
				p->seg_count, ss_human_bytes(ev->size_bytes, b1, sizeof(b1)),
				unk ? "?" : ev->only_local_null ? "unknown" : ss_human_bytes(ev->only_local_bytes, b2, sizeof(b2)),
				remote,
				unk ? "?" : lag_text(ev->copy_lag_null, ev->copy_lag_segments, ev->copy_lag_bytes, b3, sizeof(b3)),
				unk && ev->broker_copy_lag_null ? "?" :
				lag_text(ev->broker_copy_lag_null, ev->broker_copy_lag_segments, ev->broker_copy_lag_bytes,
					 b4, sizeof(b4)),
				retention_text(ev, b5, sizeof(b5)), b6);
			t_size += ev->size_bytes;
			t_remote += ev->remote_bytes;
			if (!ev->copy_lag_null) {
				t_lag += ev->copy_lag_segments;
				t_lagb += ev->copy_lag_bytes;
			}
		}
		if (j - i > 1) {
			char lag[48], rem[32];
			snprintf(lag, sizeof(lag), "%" PRId64 " seg/%s", t_lag, ss_human_bytes(t_lagb, b2, sizeof(b2)));
			fprintf(f, "%-32s %5s %5s %10s %-10s %-16s %-16s\n", "  (topic total)", "", "",
				ss_human_bytes(t_size, b1, sizeof(b1)), "", t_remote ? ss_human_bytes(t_remote, rem, sizeof(rem)) : "-",
				t_lag ? lag : "0");
		}
		i = j;
	}

	if (sum.findings) {
		fprintf(f, "\nFindings (%" PRId64 "):\n", sum.findings);
		for (uint32_t i = 0; i < r->n_parts; i++) {
			const struct ss_part *p = &r->parts[i];
			if (!p->eval)
				continue;
			for (uint32_t k = 0; k < p->eval->n_findings; k++) {
				const struct ss_finding *fd = &p->eval->findings[k];
				fprintf(f, "  %s-%d  %s%s%s%s: %s\n", p->topic, p->partition, fd->code,
					fd->ref && fd->ref[0] ? " (" : "", fd->ref ? fd->ref : "",
					fd->ref && fd->ref[0] ? ")" : "", fd->message ? fd->message : "");
			}
		}
	}
	if (sum.errors) {
		fprintf(f, "\nCould not read (%" PRId64 "):\n", sum.errors);
		for (uint32_t i = 0; i < r->n_problems; i++) {
			const struct ss_problem *pr = &r->problems[i];
			fprintf(f, "  %s: %s\n", pr->path, pr->what);
		}
		for (uint32_t i = 0; i < r->n_segs; i++) {
			const struct ss_seg *sg = &r->segs[i];
			if (!ss_res_seg_failed(sg))
				continue;
			char rel[320];
			ss_res_seg_errfile(r, sg, rel, sizeof(rel));
			if (sg->err_pos >= 0)
				fprintf(f, "  %s/%s at byte %" PRId64 ": %s\n", ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)),
					rel, sg->err_pos, segscan_strerror(sg->err));
			else
				fprintf(f, "  %s/%s: %s\n", ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)), rel,
					segscan_strerror(sg->err));
		}
	}
	if (r->n_notes) {
		fprintf(f, "\nNotes (%u):\n", r->n_notes);
		for (uint32_t i = 0; i < r->n_notes; i++)
			fprintf(f, "  %s: %s\n", r->notes[i].path, r->notes[i].what);
	}
	return ferror(f) ? -EIO : 0;
}
