/*
 * Context source: the remote state from the log dirs' own __remote_log_metadata-N partitions
 * (docs/kafka-format.md §6): every .log segment of each partition in base-offset order,
 * every batch and record decoded by the pure parsers (fmt/batch.h, fmt/rlmm.h) and replayed in offset order into a KAFKA-mode
 * store (eval/remote.h), as the broker's ConsumerTask does.
 *
 * Read-only: files are opened with ss_open_ro (O_NOATIME where permitted) and read with
 * pread. An undecodable record, a record in the wrong metadata partition or an event the
 * state machine drops is a warning naming the metadata partition and offset; the replay
 * goes on.
 *
 * Every batch's CRC-32C is checked before any of its records is applied (ss_batch_verify,
 * as Kafka's consumer does with check.crcs). A batch that fails it is a warning naming the
 * file and byte position; neither its records nor any later record of that metadata
 * partition are applied (their add records may be the ones lost), and the metadata
 * partition is recorded in a struct ss_remote_taint so that the evaluator reports every
 * user partition it could concern as REMOTE_STATE_UNKNOWN instead of a state replayed
 * without it.
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
	uint64_t crc_errors;      /* batches whose CRC-32C does not match (of corrupt) */
	uint64_t not_applied;     /* records read after a corrupt batch of their metadata partition */
	uint64_t warnings;
};

/*
 * What corrupt metadata batches leave unknown: the metadata partitions in which a batch
 * failed its CRC check (on disk) or was refused by the client (check.crcs, the cluster),
 * and the user partitions that records found in one of them name although Kafka places
 * them elsewhere. A user partition is concerned when its own metadata partition is
 * tainted, when a record of it was found in a tainted one, or when its metadata partition
 * cannot be told (no topic id, or the partition count of __remote_log_metadata unknown).
 */
struct ss_remote_taint_mpart {
	int32_t  mpart;
	int64_t  offset;          /* base offset of its first corrupt batch; -1 unknown */
	int64_t  file_pos;        /* its byte position in `where`; -1 when not a file */
	char    *where;           /* the segment file, or the cluster source's name */
	uint64_t batches;         /* corrupt batches seen in it */
};
struct ss_remote_taint_named {
	uint8_t topic_id[16];
	int32_t partition;
	int32_t mpart;            /* where a record of it was found */
};
struct ss_remote_taint {
	int32_t  num_partitions;  /* the count used to place user partitions; <= 0 unknown */
	struct ss_remote_taint_mpart *mparts;
	uint32_t n_mparts, cap_mparts;
	struct ss_remote_taint_named *named;   /* misplaced records' partitions (every metadata
						  partition until the end of the replay, then
						  only the tainted ones') */
	uint32_t n_named, cap_named;
};

/* Record a corrupt batch of metadata partition mpart (the first one's place is kept).
 * 0 or -ENOMEM. */
int  ss_remote_taint_add(struct ss_remote_taint *t, int32_t mpart, int64_t offset, int64_t file_pos,
			 const char *where);
bool ss_remote_taint_has(const struct ss_remote_taint *t, int32_t mpart);
/* Could a corrupt batch concern this user partition (topic_id NULL: unknown)? When it
 * could, why (may be NULL) gets a sentence for REMOTE_STATE_UNKNOWN. */
bool ss_remote_taint_concerns(const struct ss_remote_taint *t, const uint8_t *topic_id, int32_t partition,
			      char *why, size_t whylen);
/* Frees what t holds (not t itself). */
void ss_remote_taint_release(struct ss_remote_taint *t);

/* A warning: path of the segment file, its metadata partition, the record offset
 * (-1 when about a file position), the file position (-1 when unknown), the text. */
typedef int (*ss_remote_topic_warn_fn)(void *arg, const char *path, int32_t mpart, int64_t offset, int64_t file_pos,
			     int err, const char *msg);

/*
 * dirs: paths of __remote_log_metadata-N directories. num_partitions: the topic's
 * partition count for placement checks; <= 0 derives it from the dirs (n_dirs when they
 * are exactly partitions 0..n_dirs-1; otherwise placement is not checked, since a broker
 * usually hosts only some metadata partitions). warn may be NULL; st may be NULL; taint
 * may be NULL (corrupt batches are then only warnings and counts), else it is filled
 * (release it with ss_remote_taint_release). Returns 0, or -ENOMEM (or the warn
 * callback's negative return). I/O problems on one file are warnings.
 */
int ss_remote_topic_replay(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, int32_t num_partitions,
			     ss_remote_topic_warn_fn warn, void *warn_arg, struct ss_remote_topic_stats *st,
			     struct ss_remote_taint *taint);

/*
 * One record value of metadata partition mpart at offset, read some other way (the live
 * cluster, source/cluster.h): decoded, placement-checked when num_partitions > 0, and
 * replayed into r as ss_remote_topic_replay does. value_len < 0: a record without a value.
 * where names the source in warnings (file_pos is -1). st is required (counts add up).
 * taint may be NULL; a record of a metadata partition it holds is decoded (for the
 * partitions it names) but not applied. Returns 0, -ENOMEM or the warn callback's
 * negative return.
 */
int ss_remote_topic_apply_value(struct ss_remote *r, int32_t mpart, int32_t num_partitions, int64_t offset,
				const uint8_t *value, int32_t value_len, const char *where, ss_remote_topic_warn_fn warn,
				void *warn_arg, struct ss_remote_topic_stats *st, struct ss_remote_taint *taint);

/* After the last ss_remote_topic_apply_value: keeps only the named partitions of tainted
 * metadata partitions and sets the count used for placement. */
void ss_remote_taint_finish(struct ss_remote_taint *t, int32_t num_partitions);

/*
 * The scan's entry point: warnings become catalog problems (the first
 * SS_REMOTE_TOPIC_MAX_PROBLEMS of them, then one summary; a CRC failure is data that
 * failed verification, exit 1, the others are not), *n_warnings counts them all.
 * num_partitions as for ss_remote_topic_replay (the metadata log's count when known).
 * *taint_out: NULL when every batch was sound, else a malloc'd taint for the evaluator
 * (ss_remote_taint_free).
 */
#define SS_REMOTE_TOPIC_MAX_PROBLEMS 1000
int ss_remote_topic_load(struct ss_remote *r, const char *const *dirs, uint32_t n_dirs, int32_t num_partitions,
			 struct ss_catalog *cat, uint64_t *n_warnings, struct ss_remote_taint **taint_out);
/* Releases and frees a taint from ss_remote_topic_load or the cluster loader; NULL is fine. */
void ss_remote_taint_free(struct ss_remote_taint *t);

#endif
