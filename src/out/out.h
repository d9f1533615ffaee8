/*
 * The output writers: every report format over the results view (model/results.h) and
 * nothing else of the scanner, so each format is testable with a view built by hand.
 */
#ifndef SS_OUT_H
#define SS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/cluster.h"
#include "model/results.h"

/* Totals over the partitions, shared by the table, json and prom writers. Each sum is over
 * the partitions where the value is known; the *_unknown counts say over how many it is
 * not (the value json prints as null: an unreadable or unevaluated partition, a size an
 * unreadable segment leaves open, remote state no source gives or tiering unknown, a copy
 * lag unknown). A total with an unknown member is unknown: writers print it as null or '?',
 * with the count beside it, never the partial sum as the total. */
struct ss_summary {
	int64_t size_unknown, tiered_unknown, remote_unknown, copy_lag_unknown, delete_lag_unknown;
	int64_t size_bytes;
	int64_t tiered;
	int64_t remote_segments, remote_bytes;
	int64_t copy_lag_segments, copy_lag_bytes;
	int64_t broker_copy_lag_segments, broker_copy_lag_bytes;
	int64_t delete_lag_segments, delete_lag_bytes;   /* each partition once (the leader's row) */
	int64_t only_local_bytes;
	int64_t dangling_segments;
	int64_t findings;
	int64_t errors;
	int64_t topics;
	int64_t segments;   /* of the reported partitions (a --topic filter shows a subset) */
};

/* The scanner's own counters: one scan's for `scan --format=prom`, cumulative for serve. */
struct ss_prom_counters {
	double   duration_seconds;
	uint64_t segments_total;
	uint64_t bytes_read_total;
	uint64_t errors_total;
};

/* Each returns 0 or -EIO when the stream is in error. */
int ss_out_table(const struct ss_results *r, FILE *f);
/* The table fitted to `width` columns (0: not fitted, the full table); every_row: the
 * topic on every row (else once per topic). ss_out_table is this with the width of f
 * (ss_term_columns) and every_row unless f is a terminal. */
int ss_out_table_fit(const struct ss_results *r, FILE *f, unsigned width, bool every_row);
int ss_out_json(const struct ss_results *r, FILE *f, bool ndjson);
int ss_out_prom(const struct ss_results *r, FILE *f);
int ss_out_prom_counters(const struct ss_results *r, FILE *f, const struct ss_prom_counters *c);
/* Pipeline statistics (--stats) as text. */
int ss_out_stats(const struct ss_results *r, FILE *f);
/* One partition object, as in the json and ndjson reports (no newline). */
void ss_out_partition_json(const struct ss_results *r, const struct ss_part *p, FILE *f);

/* The cluster report of `segscan merge` (model/cluster.h): json (ndjson: one partition a
 * line) and the table. 0 or -EIO / -ENOMEM. */
int ss_out_cluster_json(const struct ss_cluster *c, FILE *f, bool ndjson);
int ss_out_cluster_table(const struct ss_cluster *c, FILE *f);

void ss_out_summarize(const struct ss_results *r, struct ss_summary *sum);

/* Counting each partition once whatever the replication factor (a scan of several brokers'
 * log dirs has a row per replica, adjacent: partitions are sorted by topic, partition, log
 * dir). A partition-wide figure every replica sees the same (remote size, dangling, copy
 * lag) is summed as the largest over its replicas: ss_once_add(&o, i, v) returns what to
 * add to a total for the value v of figure i of the row ss_once_row last named. */
#define SS_ONCE_MAX 10
struct ss_once {
	const struct ss_part *last;
	int64_t               seen[SS_ONCE_MAX];
};
static inline bool ss_same_partition(const struct ss_part *a, const struct ss_part *b)
{
	return a && b && a->partition == b->partition && strcmp(a->topic, b->topic) == 0;
}
/* Call ss_once_row once per row before its ss_once_add calls. */
static inline void ss_once_row(struct ss_once *o, const struct ss_part *p)
{
	if (!ss_same_partition(o->last, p))
		memset(o->seen, 0, sizeof(o->seen));
	o->last = p;
}
static inline int64_t ss_once_add(struct ss_once *o, unsigned i, int64_t v)
{
	int64_t add = v > o->seen[i] ? v - o->seen[i] : 0;
	if (v > o->seen[i])
		o->seen[i] = v;
	return add;
}

/* ---- --remote-store (out/store.c): what every format adds when the view has a store ---- */
struct ss_jw;
/* A partition's findings[] (json.c's writer, shared with the store's other partitions). */
void ss_out_findings_json(struct ss_jw *w, const struct ss_eval *ev);
/* "remote_store": {...} | null (with "remote_store_reason") in a partition object; nothing
 * without a store. */
void ss_out_store_part_json(struct ss_jw *w, const struct ss_results *r, const struct ss_eval *ev);
/* "remote_store": {...} in the summary; nothing without a store. */
void ss_out_store_summary_json(struct ss_jw *w, const struct ss_results *r);
/* Input text on one line of the table (its newlines as "\x0a"; the table is escaped for the
 * terminal as it goes out): table.c's rule, for the store section too. */
void ss_out_table_text(FILE *f, const char *s);
/* The table's store section (after the partition rows, inside the table's buffer: its lines
 * wrap to the table's width); nothing without a store. */
void ss_out_store_table(const struct ss_results *r, FILE *f);
/* ---- --broker-metrics (out/gauges.c): each broker's gauges per topic, once, beside segscan's
 * broker_copy_lag over the partitions the gauge covers; nothing without them ---- */
void ss_out_gauges_json(struct ss_jw *w, const struct ss_results *r);   /* "broker_metrics": [...] in the summary */
void ss_out_gauges_table(const struct ss_results *r, FILE *f);           /* a section after the rows */
/* Prometheus label helpers (prom.c), for every partition series: a label value escaped as the
 * text format wants, and {topic,partition,log_dir,node_id} of a replica (node_id absent where
 * its node is unknown). */
void ss_out_prom_label_value(FILE *f, const char *s);
void ss_out_prom_labels(FILE *f, const struct ss_results *r, const struct ss_part *p);
/* segscan_remote_store_bytes, segscan_remote_orphan_bytes, segscan_remote_missing_objects
 * (and the extras); nothing without a store. */
void ss_out_store_prom(const struct ss_results *r, FILE *f);
/* "1.5 GiB", "512 B": binary units, 3 significant digits */
const char *ss_human_bytes(int64_t b, char *buf, size_t len);
/* n bytes of s for a terminal: controls but the newline and malformed UTF-8 as visible
 * escapes (common/esc.h SS_ESC_CONTROL) */
void ss_term_write(FILE *f, const char *s, size_t n);
/* The columns ss_term_write's output of n bytes of s takes on a terminal (escapes as
 * written, wide characters 2, combining marks 0). */
size_t ss_term_width(const char *s, size_t n);
/* Bytes of the longest prefix of s (whole characters and escapes) at most maxw wide. */
size_t ss_term_prefix(const char *s, size_t n, size_t maxw);
/* Offset of the longest suffix of s at most maxw wide. */
size_t ss_term_suffix(const char *s, size_t n, size_t maxw);
/* "\u2026" (an ellipsis) in a UTF-8 locale (LC_ALL, LC_CTYPE, LANG), else "~". */
const char *ss_term_ellipsis(void);
/* The width to fit fd's output to: COLUMNS when it is a positive number (terminal or
 * not), else the terminal's (TIOCGWINSZ), else 0: no fitting (a pipe or file). */
unsigned ss_term_columns(int fd);
/* ss_term_write, each line wider than `width` wrapped at a space (or mid-word) with a
 * deeper indent; width 0 writes as ss_term_write. */
void ss_term_write_fit(FILE *f, const char *s, size_t n, unsigned width);

#endif
