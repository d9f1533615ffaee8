/*
 * Context source: the remote state from the log dirs' own __remote_log_metadata-N partitions
 * (docs/kafka-format.md §6): every .log segment of each partition in base-offset order,
 * every batch and record decoded by the pure parsers (fmt/batch.h, fmt/rlmm.h) and replayed in offset order into a KAFKA-mode
 * store (eval/remote.h), as the broker's ConsumerTask does.
 *
 * Read-only: files are opened with ss_open_ro (O_NOATIME where permitted) and read with
 * pread. A corrupt batch, an undecodable record, a record in
 * the wrong metadata partition or an event the state machine drops is a warning naming
 * the metadata partition and offset; the replay goes on.
 */
#ifndef SS_SOURCE_REMOTE_TOPIC_H
#define SS_SOURCE_REMOTE_TOPIC_H

#include <stdbool.h>
#include <stdint.h>

struct ss_remote;
struct ss_catalog;

struct ss_remote_topic_stats {
	uint32_t partitions;      /* metadata partition dirs read */
	uint32_t num_partitions;  /* numPartitions used for placement checks, 0 = not checked */
	uint64_t segments, batches, records;
	uint64_t applied;         /* events the store applied */
	uint64_t dropped;         /* events the store dropped (unknown segment, illegal ...) */
	uint64_t undecodable;     /* record values that are not RLMM records */
	uint64_t misplaced;       /* records in another metadata partition than Kafka's */
	uint64_t corrupt;         /* batches or segment tails that could not be read */
	uint64_t warnings;
};

/* A warning: path of the segment file, its metadata partition, the record offset
 * (-1 when about a file position), the file position (-1 when unknown), the text. */
typedef int (*ss_remote_topic_warn_fn)(void *arg, const char *path, int32_t mpart, int64_t offset, int64_t file_pos,
			     int err, const char *msg);

/*
 * dirs: paths of __remote_log_metadata-N directories. num_partitions: the topic's
 * partition count for placement checks; <= 0 derives it from the dirs (n_dirs when they
 * are exactly partitions 0..n_dirs-1; otherwise placement is not checked, since a broker
 * usually hosts only some metadata partitions). warn may be NULL; st may be NULL.
 * Returns 0, or -ENOMEM (or the warn callback's negative return). I/O problems on one
 * file are warnings.
 */
int ss_remote_topic_replay(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, int32_t num_partitions,
			     ss_remote_topic_warn_fn warn, void *warn_arg, struct ss_remote_topic_stats *st);

/*
 * One record value of metadata partition mpart at offset, read some other way (the live
 * cluster, source/cluster.h): decoded, placement-checked when num_partitions > 0, and
 * replayed into r as ss_remote_topic_replay does. value_len < 0: a record without a value.
 * where names the source in warnings (file_pos is -1). st is required (counts add up).
 * Returns 0, -ENOMEM or the warn callback's negative return.
 */
int ss_remote_topic_apply_value(struct ss_remote *r, int32_t mpart, int32_t num_partitions, int64_t offset,
				const uint8_t *value, int32_t value_len, const char *where, ss_remote_topic_warn_fn warn,
				void *warn_arg, struct ss_remote_topic_stats *st);

/*
 * The scan's entry point: warnings become catalog problems (not data loss; the first
 * SS_REMOTE_TOPIC_MAX_PROBLEMS of them, then one summary), *n_warnings counts them all.
 */
#define SS_REMOTE_TOPIC_MAX_PROBLEMS 1000
int ss_remote_topic_load(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, struct ss_catalog *cat,
			   uint64_t *n_warnings);

#endif
