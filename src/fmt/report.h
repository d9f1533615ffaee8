/*
 * A `segscan scan -f json` report read back (what `segscan serve` answers on
 * /v1/partitions is the same document): the facts `segscan merge` needs from each
 * partition row and from the summary. Pure: bytes in, struct out, through jansson.
 *
 * A report is untrusted input (a file anyone could have written, or a network answer):
 * its size is bounded by the caller (SS_REPORT_MAX_BYTES), duplicate keys are refused,
 * every field read is type-checked, and every error names the report, then the line,
 * column and byte of a syntax error, or the JSON path of a field of the wrong type
 * ("partitions[3] (orders-1): remote.size_bytes: expected an integer or null").
 * Fields the merge does not use (segments, retention, config, ...) are not looked at.
 * A field a report of an older segscan lacks is unknown, never 0.
 */
#ifndef SS_FMT_REPORT_H
#define SS_FMT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest report read (a scan of some 100,000 partitions); parsing one of this size
 * takes several times as much memory. */
#define SS_REPORT_MAX_BYTES ((size_t)512 << 20)

/* { segments, size_bytes }, or null */
struct ss_rep_pair {
	bool    known;
	int64_t segments, bytes;
};

/* One partition row: one replica, on one node. */
struct ss_rep_row {
	char    *topic;
	int32_t  partition;
	char    *topic_id;         /* NULL: null */
	int64_t  node_id;          /* the row's node_id, else summary.broker.node_id; -1: unknown */
	int8_t   remote_storage;   /* -1: null, 0, 1 */
	bool     has_size, has_leo;
	int64_t  size_bytes, log_end_offset;
	/* remote: { seeded, highest_offset, source, segments, size_bytes, dangling_* } */
	bool     has_remote;       /* the object is there with its counts (not null: unknown) */
	bool     seeded, has_highest;
	int64_t  highest_offset;
	char    *remote_source;    /* NULL: null */
	int64_t  remote_segments, remote_bytes, dangling_segments, dangling_bytes;
	struct ss_rep_pair only_local, copy_lag, broker_copy_lag;
	struct ss_rep_pair delete_lag;   /* absent in reports before issue 27: unknown */
	/* assignment: { replicas, isr, leader, leader_epoch }, or null */
	bool     has_assignment;
	int32_t *replicas;
	uint32_t n_replicas;
	int64_t  leader;           /* -1: null (no leader) */
	int64_t  leader_epoch;     /* -1: absent */
	uint32_t n_findings, n_errors;
};

struct ss_report {
	char    *name;             /* the input as the user named it (a file or a URL) */
	char    *version;          /* summary.version: the segscan that wrote it */
	char    *cluster_id;       /* summary.broker.cluster_id; NULL: null */
	char    *kafka_version;    /* summary.broker.kafka_version; NULL: null */
	int64_t  node_id;          /* summary.broker.node_id; -1: null */
	int64_t  exit_code;        /* summary.exit_code; -1: absent */
	struct ss_rep_row *rows;
	uint32_t n_rows;
	uint32_t n_errors;         /* the report's top-level errors[] */
};

/*
 * Parse buf[0..len) (a scan's json format) into *rep, which the caller zeroes first and
 * frees with ss_report_free whatever the result. name is what errors are prefixed with.
 * Returns 0; SEGSCAN_EJSON with err filled ("NAME: line 3, column 7, byte 52: ..."
 * or "NAME: partitions[3] (orders-1): ..."); -ENOMEM.
 */
int  ss_report_parse(const char *buf, size_t len, const char *name, struct ss_report *rep, char *err,
		     size_t errlen);
void ss_report_free(struct ss_report *rep);

#endif
