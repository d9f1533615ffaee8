/*
 * The cluster report of `segscan merge` (model/cluster.h) in the scan's formats: json,
 * ndjson (one partition per line) and the table. Field names follow the scan's where the
 * fact is the same (topic, partition, remote, copy_lag, only_local, findings, assignment);
 * what only a cluster has (replicas[], topics[], summary.brokers) is documented in
 * docs/contract.md ("segscan merge").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "out/jw.h"
#include "out/out.h"
#include "segscan.h"

static void kval(struct ss_jw *w, const char *k, const struct ss_cval *v)
{
	ss_jw_ki64n(w, k, v->known, v->v);
}

static void kpair(struct ss_jw *w, const char *k, const struct ss_rep_pair *p)
{
	ss_jw_key(w, k);
	if (!p->known) {
		ss_jw_null(w);
		return;
	}
	ss_jw_obj(w);
	ss_jw_ki64(w, "segments", p->segments);
	ss_jw_ki64(w, "size_bytes", p->bytes);
	ss_jw_obj_end(w);
}

static void ktri(struct ss_jw *w, const char *k, int8_t v)
{
	ss_jw_key(w, k);
	if (v < 0)
		ss_jw_null(w);
	else
		ss_jw_bool(w, v == 1);
}

static void write_part(const struct ss_cluster *c, const struct ss_cpart *p, FILE *f)
{
	struct ss_jw w;
	ss_jw_init(&w, f);
	ss_jw_obj(&w);
	ss_jw_kstr(&w, "topic", p->topic);
	ss_jw_ki64(&w, "partition", p->partition);
	ss_jw_kstr(&w, "topic_id", p->topic_id);
	ktri(&w, "remote_storage", p->remote_storage);
	ss_jw_ki64n(&w, "leader", p->leader_replica >= 0, p->leader);
	ss_jw_key(&w, "assignment");
	if (p->has_assignment) {
		ss_jw_obj(&w);
		ss_jw_key(&w, "replicas");
		ss_jw_arr(&w);
		for (uint32_t i = 0; i < p->n_assigned; i++)
			ss_jw_i64(&w, p->assigned[i]);
		ss_jw_arr_end(&w);
		ss_jw_ki64n(&w, "leader", p->leader >= 0, p->leader);
		ss_jw_obj_end(&w);
	} else {
		ss_jw_null(&w);
	}
	ss_jw_key(&w, "remote");
	if (p->remote_known) {
		ss_jw_obj(&w);
		ss_jw_ki64n(&w, "highest_offset", p->has_highest, p->highest_offset);
		ss_jw_ki64(&w, "segments", p->remote_segments);
		ss_jw_ki64(&w, "size_bytes", p->remote_bytes);
		ss_jw_ki64(&w, "dangling_segments", p->dangling_segments);
		ss_jw_ki64(&w, "dangling_bytes", p->dangling_bytes);
		ss_jw_ki64(&w, "from_node", p->remote_node);
		ss_jw_obj_end(&w);
	} else {
		ss_jw_null(&w);
	}
	kpair(&w, "copy_lag", &p->copy_lag);
	kpair(&w, "broker_copy_lag", &p->broker_copy_lag);
	kpair(&w, "delete_lag", &p->delete_lag);
	kpair(&w, "only_local", &p->only_local);
	ss_jw_key(&w, "replicas");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < p->n_replicas; i++) {
		const struct ss_creplica *rp = &p->replicas[i];
		const struct ss_rep_row *row = rp->row;
		ss_jw_obj(&w);
		ss_jw_ki64(&w, "node_id", rp->node_id);
		ss_jw_kbool(&w, "leader", rp->leader);
		ss_jw_kstr(&w, "report", c->brokers[rp->broker].input);
		ss_jw_ki64n(&w, "size_bytes", row->has_size, row->size_bytes);
		ss_jw_ki64n(&w, "log_end_offset", row->has_leo, row->log_end_offset);
		kpair(&w, "only_local", &row->only_local);
		ktri(&w, "remote_storage", row->remote_storage);
		ss_jw_ki64(&w, "findings", row->n_findings);
		ss_jw_ki64(&w, "errors", row->n_errors);
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);
	ss_jw_key(&w, "findings");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < p->n_findings; i++) {
		ss_jw_obj(&w);
		ss_jw_kstr(&w, "code", p->findings[i].code);
		ss_jw_knull(&w, "ref");
		ss_jw_kstr(&w, "message", p->findings[i].message);
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);
	ss_jw_obj_end(&w);
}

static void write_total(struct ss_jw *w, const struct ss_ctotal *t)
{
	if (t->topic)
		ss_jw_kstr(w, "topic", t->topic);
	ss_jw_ki64(w, "partitions", t->partitions);
	ss_jw_ki64(w, "replicas", t->replicas);
	kval(w, "remote_segments", &t->remote_segments);
	kval(w, "remote_bytes", &t->remote_bytes);
	kval(w, "dangling_segments", &t->dangling_segments);
	kval(w, "dangling_bytes", &t->dangling_bytes);
	kval(w, "copy_lag_segments", &t->copy_lag_segments);
	kval(w, "copy_lag_bytes", &t->copy_lag_bytes);
	kval(w, "delete_lag_segments", &t->delete_lag_segments);
	kval(w, "delete_lag_bytes", &t->delete_lag_bytes);
	kval(w, "only_local_bytes", &t->only_local_bytes);
	kval(w, "replica_size_bytes", &t->replica_size_bytes);
	ss_jw_ki64(w, "findings", t->findings);
}

int ss_out_cluster_json(const struct ss_cluster *c, FILE *f, bool ndjson)
{
	if (ndjson) {
		for (uint32_t i = 0; i < c->n_parts; i++) {
			write_part(c, &c->parts[i], f);
			fputc('\n', f);
		}
		return ferror(f) ? -EIO : 0;
	}
	struct ss_jw w;
	ss_jw_init(&w, f);
	ss_jw_obj(&w);
	ss_jw_key(&w, "partitions");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < c->n_parts; i++) {
		if (i)
			fputc(',', f);
		fputc('\n', f);
		write_part(c, &c->parts[i], f);
	}
	fputc('\n', f);
	w.first[w.depth] = c->n_parts == 0; /* the objects were written by their own writer */
	ss_jw_arr_end(&w);
	ss_jw_key(&w, "topics");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < c->n_topics; i++) {
		ss_jw_obj(&w);
		write_total(&w, &c->topics[i]);
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);

	ss_jw_key(&w, "summary");
	ss_jw_obj(&w);
	ss_jw_kstr(&w, "version", SEGSCAN_VERSION);
	ss_jw_kstr(&w, "reports_version", c->version);
	ss_jw_kstr(&w, "cluster_id", c->cluster_id);
	ss_jw_kbool(&w, "complete", c->complete);
	ss_jw_key(&w, "incomplete");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < c->n_why; i++)
		ss_jw_str(&w, c->why[i]);
	ss_jw_arr_end(&w);
	ss_jw_key(&w, "brokers");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < c->n_brokers; i++) {
		const struct ss_cbroker *b = &c->brokers[i];
		ss_jw_obj(&w);
		ss_jw_kstr(&w, "report", b->input);
		ss_jw_kstr(&w, "status", b->rep ? "ok" : "missing");
		ss_jw_ki64n(&w, "node_id", b->node_id >= 0, b->node_id);
		ss_jw_kstr(&w, "kafka_version", b->rep ? b->rep->kafka_version : NULL);
		ss_jw_ki64n(&w, "partitions", b->rep != NULL, b->rep ? b->rep->n_rows : 0);
		ss_jw_ki64n(&w, "exit_code", b->rep && b->rep->exit_code >= 0, b->rep ? b->rep->exit_code : 0);
		ss_jw_kstr(&w, "error", b->rep ? NULL : b->error);
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);
	ss_jw_key(&w, "unreported_nodes");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < c->n_unreported; i++)
		ss_jw_i64(&w, c->unreported[i]);
	ss_jw_arr_end(&w);
	ss_jw_ki64(&w, "topics", c->n_topics);
	write_total(&w, &c->total);
	ss_jw_ki64(&w, "exit_code", c->exit_code);
	ss_jw_obj_end(&w);
	ss_jw_key(&w, "errors");
	ss_jw_arr(&w);
	for (uint32_t i = 0; i < c->n_brokers; i++) {
		if (c->brokers[i].rep)
			continue;
		ss_jw_obj(&w);
		ss_jw_kstr(&w, "file", c->brokers[i].input);
		ss_jw_kstr(&w, "message", c->brokers[i].error);
		ss_jw_obj_end(&w);
	}
	ss_jw_arr_end(&w);
	ss_jw_obj_end(&w);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

/* ---- the table ------------------------------------------------------------------- */

/* A name from a report on one line: controls (a newline too) escaped. */
static void put_esc(FILE *f, const char *s)
{
	char *e = ss_esc_line(s ? s : "");
	fputs(e ? e : "?", f);
	free(e);
}

static const char *pair_text(const struct ss_rep_pair *p, bool applies, char *buf, size_t len)
{
	char b[32];
	if (!p->known)
		snprintf(buf, len, applies ? "?" : "-");
	else if (!p->segments)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%" PRId64 " seg/%s", p->segments, ss_human_bytes(p->bytes, b, sizeof(b)));
	return buf;
}

static const char *val_bytes(const struct ss_cval *v, char *buf, size_t len)
{
	if (!v->known)
		snprintf(buf, len, "?");
	else
		ss_human_bytes(v->v, buf, len);
	return buf;
}

static void table_total(FILE *f, const struct ss_ctotal *t)
{
	char a[32], b[32], d[32], e[32];
	if (t->remote_segments.known)
		fprintf(f, "remote %" PRId64 " seg/%s", t->remote_segments.v, val_bytes(&t->remote_bytes, a, sizeof(a)));
	else
		fputs("remote ?", f);
	if (t->copy_lag_segments.known)
		fprintf(f, ", copy lag %" PRId64 " seg/%s", t->copy_lag_segments.v,
			val_bytes(&t->copy_lag_bytes, b, sizeof(b)));
	else
		fputs(", copy lag ?", f);
	if (t->delete_lag_segments.known)
		fprintf(f, ", delete lag %" PRId64 " seg/%s", t->delete_lag_segments.v,
			val_bytes(&t->delete_lag_bytes, d, sizeof(d)));
	else
		fputs(", delete lag ?", f);
	if (t->dangling_segments.known && t->dangling_segments.v)
		fprintf(f, ", dangling %" PRId64 " seg/%s", t->dangling_segments.v,
			val_bytes(&t->dangling_bytes, e, sizeof(e)));
	else if (!t->dangling_segments.known)
		fputs(", dangling ?", f);
	fprintf(f, ", only-local %s, on disk %s (%u replicas)", val_bytes(&t->only_local_bytes, d, sizeof(d)),
		val_bytes(&t->replica_size_bytes, e, sizeof(e)), t->replicas);
}

static void table_body(const struct ss_cluster *c, FILE *f)
{
	char b1[48], b2[48], b3[48];
	uint32_t ok = c->n_brokers - c->n_missing;
	fprintf(f, "segscan %s merge: cluster ", SEGSCAN_VERSION);
	put_esc(f, c->cluster_id ? c->cluster_id : "unknown");
	fprintf(f, ", %u of %u reports", ok, c->n_brokers);
	if (c->version) {
		fputs(" (segscan ", f);
		put_esc(f, c->version);
		fputc(')', f);
	}
	fprintf(f, ", %u partitions in %u topics, %u replicas\n", c->n_parts, c->n_topics, c->total.replicas);
	for (uint32_t i = 0; i < c->n_brokers; i++) {
		const struct ss_cbroker *b = &c->brokers[i];
		fprintf(f, "  [%u] ", i + 1);
		put_esc(f, b->input);
		if (!b->rep) {
			fputs(": MISSING (", f);
			put_esc(f, b->error);
			fputs(")\n", f);
			continue;
		}
		if (b->node_id >= 0)
			fprintf(f, ": node %" PRId64, b->node_id);
		else
			fputs(": node ?", f);
		fputs(", kafka ", f);
		put_esc(f, b->rep->kafka_version ? b->rep->kafka_version : "unknown");
		fprintf(f, ", %u partitions", b->rep->n_rows);
		if (b->rep->exit_code > 0)
			fprintf(f, ", its scan exited %" PRId64 " (some data could not be read)", b->rep->exit_code);
		fputc('\n', f);
	}
	fprintf(f, "\n%-32s %5s %6s  %-24s %-16s %-14s %-12s %s\n", "TOPIC", "PART", "LEADER", "REPLICAS node:local",
		"REMOTE", "COPY LAG", "ONLY-LOCAL", "FINDINGS");
	uint32_t t = 0;
	for (uint32_t i = 0; i < c->n_parts; i++) {
		const struct ss_cpart *p = &c->parts[i];
		char *tn = ss_esc_line(p->topic);
		char reps[512], lead[16], find[256];
		size_t o = 0;
		reps[0] = 0;
		for (uint32_t k = 0; k < p->n_replicas && o < sizeof(reps); k++) {
			const struct ss_rep_row *row = p->replicas[k].row;
			o += (size_t)snprintf(reps + o, sizeof(reps) - o, "%s%" PRId64 ":%s", k ? " " : "",
					      p->replicas[k].node_id,
					      row->has_size ? ss_human_bytes(row->size_bytes, b1, sizeof(b1)) : "?");
		}
		if (p->leader_replica >= 0)
			snprintf(lead, sizeof(lead), "%" PRId64, p->leader);
		else
			snprintf(lead, sizeof(lead), "?");
		const char *remote;
		if (p->remote_known && (p->remote_storage == 1 || p->remote_segments)) {
			snprintf(b2, sizeof(b2), "%" PRId64 " seg/%s", p->remote_segments,
				 ss_human_bytes(p->remote_bytes, b3, sizeof(b3)));
			remote = b2;
		} else {
			remote = p->remote_known ? "-" : "?";
		}
		char lag[48], only[48];
		bool applies = p->remote_storage != 0;
		pair_text(&p->copy_lag, applies, lag, sizeof(lag));
		if (p->only_local.known)
			ss_human_bytes(p->only_local.bytes, only, sizeof(only));
		else
			snprintf(only, sizeof(only), "?");
		o = 0;
		find[0] = 0;
		for (uint32_t k = 0; k < p->n_findings && o < sizeof(find); k++) {
			bool seen = false;
			for (uint32_t j = 0; j < k; j++)
				seen |= !strcmp(p->findings[j].code, p->findings[k].code);
			if (!seen)
				o += (size_t)snprintf(find + o, sizeof(find) - o, "%s%s", o ? "," : "", p->findings[k].code);
		}
		fprintf(f, "%-32s %5d %6s  %-24s %-16s %-14s %-12s %s\n", tn ? tn : "?", p->partition, lead, reps, remote,
			lag, only, o ? find : "-");
		free(tn);
		/* the topic's total after its last partition */
		if (i + 1 == c->n_parts || strcmp(c->parts[i + 1].topic, p->topic)) {
			const struct ss_ctotal *tt = &c->topics[t++];
			fputs("  topic ", f);
			put_esc(f, tt->topic);
			fprintf(f, ": %u partitions, ", tt->partitions);
			table_total(f, tt);
			fputc('\n', f);
		}
	}
	fputs("\ncluster: ", f);
	table_total(f, &c->total);
	fprintf(f, "%s\n", c->complete ? "" : "  [INCOMPLETE: no total is known]");
	if (!c->complete) {
		fputs("\nIncomplete (each partition is counted once, and only over every broker):\n", f);
		for (uint32_t i = 0; i < c->n_why; i++)
			fprintf(f, "  %s\n", c->why[i]);
	}
	if (c->n_findings) {
		fprintf(f, "\nFindings (%u):\n", c->n_findings);
		for (uint32_t i = 0; i < c->n_parts; i++)
			for (uint32_t k = 0; k < c->parts[i].n_findings; k++) {
				fputs("  ", f);
				put_esc(f, c->parts[i].topic);
				fprintf(f, "-%d %s: %s\n", c->parts[i].partition, c->parts[i].findings[k].code,
					c->parts[i].findings[k].message);
			}
	}
}

/* Built in memory, written through ss_term_write: the names come from the reports. */
int ss_out_cluster_table(const struct ss_cluster *c, FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	table_body(c, m);
	int e = fclose(m) ? -ENOMEM : 0;
	if (!e)
		ss_term_write(f, buf, len);
	free(buf);
	if (!e && ferror(f))
		e = -EIO;
	return e;
}
