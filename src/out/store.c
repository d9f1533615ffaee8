/*
 * --remote-store in every format: the partition's remote_store object, the summary's
 * remote_store (the store's totals, per topic, the partitions no reported partition is),
 * the table's store section and the metrics. Read from the results view only
 * (model/results.h: ss_results.store, ss_eval.remote_store); nothing is written without a
 * store. The field names are docs/contract.md's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/audit.h"
#include "fmt/names.h"
#include "out/jw.h"
#include "out/out.h"

static void counters_json(struct ss_jw *w, const struct ss_audit_part *ap)
{
	ss_jw_ki64(w, "objects", ap->objects);
	ss_jw_ki64(w, "stored_bytes", ap->stored_bytes);
	ss_jw_ki64(w, "accounted_bytes", ap->accounted_bytes);
	ss_jw_ki64(w, "orphan_objects", ap->orphan_objects);
	ss_jw_ki64(w, "orphan_bytes", ap->orphan_bytes);
	ss_jw_ki64(w, "missing_objects", ap->missing_objects);
	ss_jw_ki64(w, "unrecognised", ap->unrecognised);
	/* extras */
	ss_jw_ki64(w, "torn_objects", ap->torn_objects);
	ss_jw_ki64(w, "torn_bytes", ap->torn_bytes);
	ss_jw_ki64(w, "pending_objects", ap->pending_objects);
	ss_jw_ki64(w, "unrecognised_bytes", ap->unrecognised_bytes);
	ss_jw_ki64(w, "finished_segments", ap->finished_segments);
	ss_jw_kstr(w, "prefix", ap->prefix);
	ss_jw_key(w, "unrecognised_keys");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < ap->n_unrec_keys; i++)
		ss_jw_str(w, ap->unrec_keys[i]);
	ss_jw_arr_end(w);
}

void ss_out_store_part_json(struct ss_jw *w, const struct ss_results *r, const struct ss_eval *ev)
{
	if (!r->store)
		return;
	ss_jw_key(w, "remote_store");
	if (!ev || !ev->remote_store) {
		ss_jw_null(w);
		ss_jw_kstr(w, "remote_store_reason",
			   ev && ev->remote_store_why ? ev->remote_store_why
						      : r->store->totals ? "not compared" : "the store was not listed");
		return;
	}
	ss_jw_obj(w);
	counters_json(w, ev->remote_store);
	ss_jw_obj_end(w);
}

/* The audit's per-topic totals, in name order. */
static void topics_json(struct ss_jw *w, const struct ss_audit_totals *t)
{
	ss_jw_key(w, "topics");
	ss_jw_arr(w);
	for (uint32_t i = 0; t && i < t->n_topics; i++) {
		const struct ss_audit_topic *tp = &t->topics[i];
		ss_jw_obj(w);
		ss_jw_kstr(w, "topic", tp->topic);
		ss_jw_ki64(w, "partitions", tp->partitions);
		ss_jw_ki64(w, "objects", tp->objects);
		ss_jw_ki64(w, "stored_bytes", tp->stored_bytes);
		ss_jw_ki64(w, "accounted_bytes", tp->accounted_bytes);
		ss_jw_ki64(w, "orphan_objects", tp->orphan_objects);
		ss_jw_ki64(w, "orphan_bytes", tp->orphan_bytes);
		ss_jw_ki64(w, "missing_objects", tp->missing_objects);
		ss_jw_ki64(w, "unrecognised", tp->unrecognised);
		ss_jw_ki64(w, "torn_objects", tp->torn_objects);
		ss_jw_ki64(w, "torn_bytes", tp->torn_bytes);
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

/* The partitions the store or the metadata holds that no scanned log dir has. */
static void others_json(struct ss_jw *w, const struct ss_results *r, const struct ss_res_store *st)
{
	ss_jw_key(w, "other_partitions");
	ss_jw_arr(w);
	for (uint32_t i = 0; i < st->n_others; i++) {
		const struct ss_audit_part *ap = st->others[i].ap;
		const struct ss_eval *ev = st->others[i].ev;
		char id[23];
		ss_jw_obj(w);
		ss_jw_kstr(w, "topic", ap->topic);
		ss_jw_ki64(w, "partition", ap->partition);
		if (ap->has_topic_id) {
			ss_uuid_format(ap->topic_id, id);
			ss_jw_kstr(w, "topic_id", id);
		} else {
			ss_jw_knull(w, "topic_id");
		}
		ss_jw_kbool(w, "in_metadata", ap->in_metadata);
		ss_jw_kbool(w, "in_store", ap->in_store);
		ss_out_store_part_json(w, r, ev);
		ss_out_findings_json(w, ev);
		ss_jw_obj_end(w);
	}
	ss_jw_arr_end(w);
}

void ss_out_store_summary_json(struct ss_jw *w, const struct ss_results *r)
{
	const struct ss_res_store *st = r->store;
	if (!st)
		return;
	const struct ss_audit_totals *t = st->totals;
	ss_jw_key(w, "remote_store");
	ss_jw_obj(w);
	ss_jw_kstr(w, "uri", st->uri);
	ss_jw_kstr(w, "layout", st->layout);
	ss_jw_kbool(w, "complete", t && t->complete);
	ss_jw_kstr(w, "error", st->error);
	ss_jw_kstr(w, "last_key", t && t->last_key[0] ? t->last_key : NULL);
	bool k = t != NULL;
	/* what was listed is a floor when the listing stopped; what it means is only for the
	 * partitions compared */
	ss_jw_ki64n(w, "objects", k, k ? t->objects : 0);
	ss_jw_ki64n(w, "stored_bytes", k, k ? t->stored_bytes : 0);
	ss_jw_ki64n(w, "accounted_bytes", k, k ? t->accounted_bytes : 0);
	ss_jw_ki64n(w, "orphan_objects", k, k ? t->orphan_objects : 0);
	ss_jw_ki64n(w, "orphan_bytes", k, k ? t->orphan_bytes : 0);
	ss_jw_ki64n(w, "missing_objects", k, k ? t->missing_objects : 0);
	ss_jw_ki64n(w, "unrecognised", k, k ? t->unrecognised : 0);
	ss_jw_ki64n(w, "torn_objects", k, k ? t->torn_objects : 0);
	ss_jw_ki64n(w, "torn_bytes", k, k ? t->torn_bytes : 0);
	ss_jw_ki64n(w, "pending_objects", k, k ? t->pending_objects : 0);
	ss_jw_ki64n(w, "unrecognised_bytes", k, k ? t->unrecognised_bytes : 0);
	ss_jw_ki64n(w, "unplaced", k, k ? t->unplaced : 0);
	ss_jw_ki64n(w, "not_compared_objects", k, k ? t->not_compared_objects : 0);
	ss_jw_ki64n(w, "not_compared_bytes", k, k ? t->not_compared_bytes : 0);
	ss_jw_ki64n(w, "partitions", k, k ? t->partitions : 0);
	ss_jw_ki64n(w, "partitions_compared", k, k ? t->partitions_compared : 0);
	ss_jw_ki64n(w, "manifests", k, k ? (int64_t)t->manifests : 0);
	ss_jw_ki64n(w, "manifest_errors", k, k ? (int64_t)t->manifest_errors : 0);
	ss_jw_ki64(w, "requests", (int64_t)st->requests);
	ss_jw_key(w, "unrecognised_keys");
	ss_jw_arr(w);
	for (uint32_t i = 0; t && i < t->n_unrec_keys; i++)
		ss_jw_str(w, t->unrec_keys[i]);
	ss_jw_arr_end(w);
	topics_json(w, t);
	others_json(w, r, st);
	ss_jw_obj_end(w);
}

/* ---- table ---- */

static void put_clean(FILE *f, const char *s)
{
	ss_out_table_text(f, s);
}

static const char *num(int64_t v, char *b, size_t n)
{
	snprintf(b, n, "%" PRId64, v);
	return b;
}

#define NC 8
static void row(FILE *f, const char *topic, const char *part, const char *c[NC])
{
	fputs("  ", f);
	size_t tw = ss_term_width(topic, strlen(topic));
	put_clean(f, topic);
	fprintf(f, "%*s %5s %9s %10s %10s %9s %10s %8s %6s %8s\n", tw < 28 ? (int)(28 - tw) : 0, "", part, c[0], c[1],
		c[2], c[3], c[4], c[5], c[6], c[7]);
}

static void counters_row(FILE *f, const char *topic, const char *part, const struct ss_audit_part *ap)
{
	char b[NC][32];
	const char *c[NC] = {
		num(ap->objects, b[0], 32), ss_human_bytes(ap->stored_bytes, b[1], 32),
		ss_human_bytes(ap->accounted_bytes, b[2], 32), num(ap->orphan_objects, b[3], 32),
		ss_human_bytes(ap->orphan_bytes, b[4], 32), num(ap->missing_objects, b[5], 32),
		num(ap->torn_objects, b[6], 32), num(ap->unrecognised, b[7], 32),
	};
	row(f, topic, part, c);
}

void ss_out_store_table(const struct ss_results *r, FILE *f)
{
	const struct ss_res_store *st = r->store;
	char b1[32], b2[32], b3[32];
	if (!st)
		return;
	const struct ss_audit_totals *t = st->totals;
	fputs("\nRemote store ", f);
	put_clean(f, st->uri);
	fprintf(f, " (%s): ", st->layout);
	if (!t) {
		fputs("not listed\n", f);
		return;
	}
	fprintf(f, "%" PRId64 " objects, %s stored, %s accounted for by the metadata; %" PRId64 " orphaned (%s), %" PRId64
		   " missing, %" PRId64 " torn, %" PRId64 " unrecognised; %u of %u partitions compared%s\n",
		t->objects, ss_human_bytes(t->stored_bytes, b1, sizeof(b1)), ss_human_bytes(t->accounted_bytes, b2, sizeof(b2)),
		t->orphan_objects, ss_human_bytes(t->orphan_bytes, b3, sizeof(b3)), t->missing_objects, t->torn_objects,
		t->unrecognised, t->partitions_compared, t->partitions, t->complete ? "" : " (the listing stopped early)");
	if (!t->complete && t->last_key[0]) {
		fputs("  last key listed: ", f);
		put_clean(f, t->last_key);
		fputc('\n', f);
	}
	static const char *const unknown[NC] = { "?", "?", "?", "?", "?", "?", "?", "?" };
	fprintf(f, "  %-28s %5s %9s %10s %10s %9s %10s %8s %6s %8s\n", "TOPIC", "PART", "OBJECTS", "STORED", "ACCOUNTED",
		"ORPHANED", "ORPH-SIZE", "MISSING", "TORN", "UNRECOG");
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		char pn[16];
		snprintf(pn, sizeof(pn), "%d", p->partition);
		if (p->eval && p->eval->remote_store) {
			counters_row(f, p->topic, pn, p->eval->remote_store);
		} else {
			row(f, p->topic, pn, (const char **)unknown);
		}
	}
	for (uint32_t i = 0; i < st->n_others; i++) {
		const struct ss_audit_part *ap = st->others[i].ap;
		char pn[16];
		snprintf(pn, sizeof(pn), "%d", ap->partition);
		if (st->others[i].ev->remote_store) {
			counters_row(f, ap->topic, pn, ap);
		} else {
			row(f, ap->topic, pn, (const char **)unknown);
		}
	}
	for (uint32_t i = 0; i < t->n_topics; i++) {
		const struct ss_audit_topic *tp = &t->topics[i];
		struct ss_audit_part sum = { .objects = tp->objects, .stored_bytes = tp->stored_bytes,
					     .accounted_bytes = tp->accounted_bytes, .orphan_objects = tp->orphan_objects,
					     .orphan_bytes = tp->orphan_bytes, .missing_objects = tp->missing_objects,
					     .torn_objects = tp->torn_objects, .unrecognised = tp->unrecognised };
		counters_row(f, tp->topic, "all", &sum);
	}
	/* the others' findings: the reported partitions' are in the Findings list */
	for (uint32_t i = 0; i < st->n_others; i++) {
		const struct ss_audit_part *ap = st->others[i].ap;
		const struct ss_eval *ev = st->others[i].ev;
		for (uint32_t k = 0; k < ev->n_findings; k++) {
			fputs("  ", f);
			put_clean(f, ap->topic);
			fprintf(f, "-%d  %s: ", ap->partition, ev->findings[k].code);
			put_clean(f, ev->findings[k].message ? ev->findings[k].message : "");
			fputc('\n', f);
		}
	}
	if (t->n_unrec_keys) {
		fprintf(f, "  keys of no partition (%" PRId64 "):", t->unplaced);
		for (uint32_t i = 0; i < t->n_unrec_keys && i < 5; i++) {
			fputc(' ', f);
			put_clean(f, t->unrec_keys[i]);
		}
		fputs(t->n_unrec_keys > 5 ? " ...\n" : "\n", f);
	}
}

/* ---- metrics ---- */

void ss_out_store_prom(const struct ss_results *r, FILE *f)
{
	if (!r->store)
		return;
	static const struct {
		const char *name, *help;
		int         which;
	} fam[] = {
		{ "segscan_remote_store_bytes", "Bytes of the partition's objects in the remote store (what is billed).", 0 },
		{ "segscan_remote_orphan_bytes",
		  "Bytes of the partition's remote objects that no live metadata accounts for (ORPHAN_REMOTE_OBJECT).", 1 },
		{ "segscan_remote_missing_objects",
		  "Objects the remote metadata says are in the store (COPY_SEGMENT_FINISHED) and are not "
		  "(MISSING_REMOTE_OBJECT).", 2 },
		{ "segscan_remote_store_objects", "Objects under the partition's prefix in the remote store.", 3 },
		{ "segscan_remote_torn_bytes", "Bytes of the partition's broken-off uploads (TORN_REMOTE_UPLOAD).", 4 },
	};
	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fam[k].name, fam[k].help, fam[k].name);
		for (uint32_t i = 0; i < r->n_parts; i++) {
			const struct ss_part *p = &r->parts[i];
			const struct ss_audit_part *ap = p->eval ? p->eval->remote_store : NULL;
			if (!ap)
				continue;   /* not compared: no series, never a made-up 0 */
			int64_t v = fam[k].which == 0 ? ap->stored_bytes : fam[k].which == 1 ? ap->orphan_bytes
				  : fam[k].which == 2 ? ap->missing_objects : fam[k].which == 3 ? ap->objects
				  : ap->torn_bytes;
			fputs(fam[k].name, f);
			ss_out_prom_labels(f, r, p);   /* with node_id, as every partition series (issue 22) */
			fprintf(f, " %" PRId64 "\n", v);
		}
	}
	fprintf(f, "# HELP segscan_remote_store_listing_complete 1 when the last listing of the remote store reached "
		   "its end, 0 when it stopped early (the report's errors say why).\n"
		   "# TYPE segscan_remote_store_listing_complete gauge\nsegscan_remote_store_listing_complete{store=\"");
	ss_out_prom_label_value(f, r->store->uri);
	fprintf(f, "\"} %d\n", r->store->totals && r->store->totals->complete ? 1 : 0);
}
