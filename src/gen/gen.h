/*
 * `segscan gen`: writes a synthetic Kafka log dir laid out exactly as a Kafka 3.x/4.x
 * broker leaves it (docs/kafka-format.md §1–4), and optionally the matching remote-tier
 * metadata (NDJSON, docs/contract.md "Remote state file") and topic config.
 *
 * Everything is a pure function of the options: the same options give the same bytes
 * in every file, whatever the machine or the run. Each partition draws from its own
 * random stream (seed, topic, partition), so partitions do not depend on one another.
 *
 * What a partition looks like (V = pre + N segments over the partition's history):
 *   - N = --segments local segments; the last is the active one. Closed segments are
 *     filled until the next batch would exceed --segment-bytes (Kafka's shouldRoll);
 *     the last --single-record-tail closed ones hold one record each (time-based rolls
 *     on a quiet partition: the KAFKA-20977 shape); the active one holds
 *     --active-batches batches (default 1-4, never empty unless asked).
 *   - pre = older segments that no longer exist locally: for a tiered topic they exist
 *     only in remote storage (--remote-only, default 1-3), for other topics they were
 *     deleted by retention (0-2; the log then starts above offset 0).
 *   - every record batch is v2 with CreateTime timestamps that increase over --span-ms
 *     (a few batches arrive late, as with real producers), the partition's leader epoch,
 *     and the topic's idempotent producer id/sequence when the topic has one.
 *   - .index/.timeindex entries follow LogSegment.append (an entry once more than 4096
 *     bytes were appended since the last one; the time index also gets the final max
 *     timestamp entry on roll); closed indexes are trimmed; the active segment's are
 *     preallocated (10485760 / 10485756 bytes, sparse zero tails).
 *   - <base>.snapshot (producer state, version 1) for every local segment base > 0, and
 *     one at the log end offset when the clean-shutdown marker is written.
 *   - leader-epoch-checkpoint holds 1-4 epochs (with gaps in the numbering), truncated
 *     from the start at the log start offset as Kafka does.
 * Remote state (tiered partitions): each remote-only segment and every closed local
 * segment except the newest 1-2 (--uncopied) is copied: COPY_SEGMENT_STARTED then
 * COPY_SEGMENT_FINISHED, end_offset = next base - 1, leader_epochs as
 * epochEntriesInRange computes them. Per seed, about a quarter of the tiered partitions
 * (at least one) have a dangling copy (a STARTED segment whose upload never finished,
 * retried under a new id), and one partition has its oldest remote segment deleted by
 * retention (DELETE_SEGMENT_STARTED/FINISHED; its log start offset moves past it). One
 * non-tiered partition has a log start offset inside its first segment (DeleteRecords),
 * so log-start-offset-checkpoint lists it.
 * Events are written partition by partition; event timestamps increase within each
 * partition (the order in which Kafka's metadata partitions are replayed).
 * The log dir itself does not depend on whether the remote state is asked for.
 *
 * Not modelled: transactions and control batches (.txnindex), compaction, LogAppendTime,
 * legacy v0/v1 batches, offset gaps between segments.
 */
#ifndef SS_GEN_GEN_H
#define SS_GEN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/batch.h"

struct ss_gen_stats {
	uint64_t partitions;
	uint64_t segments;          /* local .log files */
	uint64_t remote_segments;   /* finished remote segments (counted with remote_state only) */
	uint64_t remote_only;       /* of those, segments with no local copy */
	uint64_t batches;           /* in local .log files */
	uint64_t records;
	uint64_t log_bytes;         /* sum of local .log sizes */
	uint64_t files;             /* files created */
	uint64_t remote_events;     /* lines in the remote-state file */
};

/* Called after each partition; the CLI throttles it into a progress line. */
typedef void (*ss_gen_progress_fn)(void *arg, const struct ss_gen_stats *st,
				   uint64_t parts_done, uint64_t parts_total);

struct ss_gen_opts {
	const char   *outdir;              /* created (with parents) if missing */
	uint32_t      topics;              /* >= 1 */
	uint32_t      partitions;          /* per topic, >= 1 */
	uint32_t      segments;            /* local segments per partition, >= 1 */
	int64_t       segment_bytes;       /* Kafka's segment.bytes: <= INT32_MAX */
	uint64_t      seed;                /* default 1 */
	uint32_t      records_per_batch;   /* default 16 */
	enum ss_codec codec;               /* default none */
	uint32_t      single_record_tail;  /* < segments */
	const char   *remote_state;        /* NDJSON output path; NULL: none */
	const char   *topic_config_out;    /* NULL: <dir of remote_state>/topic-config.txt when
					      remote_state is set, else not written */
	const char   *topic_prefix;        /* prepended to every topic name; NULL: none */
	uint32_t      value_bytes;         /* mean record value size; default 200 */
	int64_t       start_time_ms;       /* first timestamp; default 1699136000000 */
	int64_t       span_ms;             /* time covered by a partition; default 10 days */
	double        tiered;              /* fraction of topics with remote storage; 0.5 */
	int32_t       remote_only;         /* remote-only segments per tiered partition; -1: 1-3 */
	int32_t       uncopied;            /* newest closed segments not yet copied; -1: 1-2 */
	int32_t       active_batches;      /* batches in the active segment; -1: 1-4 */
	int32_t       node_id;             /* meta.properties node.id; default 1 */
	bool          preallocate;         /* active .log preallocated to segment_bytes */
	bool          clean_shutdown;      /* write .kafka_cleanshutdown; default true */
	bool          force;               /* write into a non-empty outdir */
	ss_gen_progress_fn progress;
	void         *progress_arg;
};

void ss_gen_opts_init(struct ss_gen_opts *o);

/*
 * Writes the log dir (and the remote state / topic config when asked). Returns 0 or a
 * negative errno: -EINVAL for inconsistent options, -EEXIST for a non-empty outdir
 * without force, or the failing system call's error. On failure err (if not NULL)
 * receives a one-line explanation naming the option or the file. st may be NULL.
 */
int ss_gen_run(const struct ss_gen_opts *o, struct ss_gen_stats *st, char *err, size_t errlen);

/* The name of topic i (0-based) as ss_gen_run writes it. 0, or -ENAMETOOLONG. */
int ss_gen_topic_name(const struct ss_gen_opts *o, uint32_t i, char *buf, size_t len);
/* Is topic i a tiered (remote.storage.enable=true) topic under o->tiered? */
bool ss_gen_topic_tiered(const struct ss_gen_opts *o, uint32_t i);

/* "1048576", "256KiB", "64k", "1MiB", "2g"...: binary multiples; 0 or -EINVAL/-ERANGE. */
int ss_gen_parse_size(const char *s, int64_t *out);

#endif
