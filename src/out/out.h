/*
 * The output writers: every report format over the results view (model/results.h) and
 * nothing else of the scanner, so each format is testable with a view built by hand.
 */
#ifndef SS_OUT_H
#define SS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/results.h"

/* Totals over the partitions, shared by the table, json and prom writers. */
struct ss_summary {
	int64_t size_bytes;
	int64_t tiered;
	int64_t remote_segments, remote_bytes;
	int64_t copy_lag_segments, copy_lag_bytes;
	int64_t broker_copy_lag_segments, broker_copy_lag_bytes;
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
int ss_out_json(const struct ss_results *r, FILE *f, bool ndjson);
int ss_out_prom(const struct ss_results *r, FILE *f);
int ss_out_prom_counters(const struct ss_results *r, FILE *f, const struct ss_prom_counters *c);
/* Pipeline statistics (--stats) as text. */
int ss_out_stats(const struct ss_results *r, FILE *f);
/* One partition object, as in the json and ndjson reports (no newline). */
void ss_out_partition_json(const struct ss_results *r, const struct ss_part *p, FILE *f);

void ss_out_summarize(const struct ss_results *r, struct ss_summary *sum);
/* "1.5 GiB", "512 B": binary units, 3 significant digits */
const char *ss_human_bytes(int64_t b, char *buf, size_t len);
/* n bytes of s for a terminal: controls and malformed UTF-8 as visible escapes (term.c) */
void ss_term_write(FILE *f, const char *s, size_t n);

#endif
