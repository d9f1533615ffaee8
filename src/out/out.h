/* Output writers' shared pieces: the scan summary and human-readable units. */
#ifndef SS_OUT_H
#define SS_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

struct segscan_scan;

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
};

/* The scanner's own counters: one scan's for `scan --format=prom`, cumulative for serve. */
struct ss_prom_counters {
	double   duration_seconds;
	uint64_t segments_total;
	uint64_t bytes_read_total;
	uint64_t errors_total;
};
int ss_out_prom_counters(const struct segscan_scan *s, FILE *f, const struct ss_prom_counters *c);

void ss_out_summarize(const struct segscan_scan *s, struct ss_summary *sum);
void ss_out_partition_json(const struct segscan_scan *s, const struct ss_part *p, FILE *f);
/* "1.5 GiB", "512 B": binary units, 3 significant digits */
const char *ss_human_bytes(int64_t b, char *buf, size_t len);
/* "3d 4h", "12m 5s", "850ms" */
const char *ss_human_ms(int64_t ms, char *buf, size_t len);

#endif
