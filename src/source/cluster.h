/*
 * Context source: the live cluster over the Kafka protocol (librdkafka), for the remote
 * state of __remote_log_metadata and for topic configs where no metadata log is readable.
 *
 * What Kafka's own brokers do (TopicBasedRemoteLogMetadataManager's ConsumerTask,
 * storage/src/main/java/org/apache/kafka/server/log/remote/metadata/storage/ConsumerTask.java):
 * assign the metadata partitions that hold the user partitions of interest (placement:
 * RemoteLogMetadataTopicPartitioner, murmur2(topicIdPartition) % N, fmt/rlmm.h), read each
 * from the earliest offset, and replay the records in offset order. A one-shot read stops at
 * the high watermark taken when it started; a tail (serve) keeps going.
 *
 * Read-only towards the cluster: the partitions are read by assignment through librdkafka's
 * simple (legacy) consumer, with no group.id, so no group coordinator is ever looked up (a
 * FindCoordinator would make a fresh cluster create __consumer_offsets), no group is joined
 * and no offset is committed. check.crcs is on: a batch whose CRC-32C does not match is
 * refused by the client and reported to the sink's corrupt callback, never delivered.
 *
 * Every wait for the cluster is bounded by the timeout (--kafka-timeout): a cluster that is
 * unreachable, refuses our credentials, or has a partition that makes no progress ends in an
 * error whose message names the bootstrap servers and the reason; never a hang. A one-shot
 * client's whole work is bounded by the deadline (--kafka-deadline), a read that at its
 * rate so far could not finish before it gives up early, and the cancel flag is polled at
 * least every 250 ms in every wait.
 *
 * The record callback receives the raw record value; the caller decodes it with the RLMM
 * decoder and replays it with the one state machine (ss_remote_topic_apply_value).
 */
#ifndef SS_SOURCE_CLUSTER_H
#define SS_SOURCE_CLUSTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SS_SOURCE_CLUSTER "cluster"
#define SS_CLUSTER_RLMM_TOPIC "__remote_log_metadata"
#define SS_CLUSTER_DEFAULT_TIMEOUT_MS 10000
#define SS_CLUSTER_DEFAULT_DEADLINE_MS 300000
/* A tail keeps every record of the metadata partitions it reads, for the next snapshot:
 * this bounds the bytes kept (record values plus SS_CLUSTER_TAIL_REC_BYTES each), so that a
 * peer that streams for ever cannot grow serve without limit. A partition that would pass it
 * is read no further and its records are dropped: every later snapshot of it fails
 * (-ENOBUFS, remote state unknown) until serve restarts. Kafka's own metadata topic holds a
 * few hundred bytes per remote segment event, so 1 GiB is millions of events. */
#define SS_CLUSTER_TAIL_MAX_BYTES ((uint64_t)1 << 30)
#define SS_CLUSTER_TAIL_REC_BYTES 32

struct ss_cluster;

struct ss_cluster_opts {
	const char *bootstrap;     /* HOST:PORT[,...] */
	const char *config_file;   /* --kafka-config: java-properties, passed to librdkafka; NULL */
	int64_t     timeout_ms;    /* <= 0: SS_CLUSTER_DEFAULT_TIMEOUT_MS */
	const char *topic;         /* NULL: __remote_log_metadata (a benchmark reads a copy) */
	/* one-shot clients: the bound on everything the client does, from ss_cluster_open on
	 * (<= 0: SS_CLUSTER_DEFAULT_DEADLINE_MS); a tail has none */
	int64_t     deadline_ms;
	/* polled in every wait (segscan_cancel's flag); NULL: none. A cancelled call returns
	 * -ECANCELED with err saying so. */
	const atomic_bool *cancel;
	/* warnings (e.g. a config file readable by others); NULL: dropped (a scan passes
	 * ss_logsink_warn and its sink, common/log.h) */
	void      (*warn)(void *arg, const char *msg);
	void       *warn_arg;
	/* a tail: the bound on the bytes it keeps (0: SS_CLUSTER_TAIL_MAX_BYTES; tests set less) */
	uint64_t    tail_max_bytes;
};

/*
 * Reads the config file (a usage error is -EINVAL with err naming file and line; a file
 * readable by group or others is a warning, since it usually holds a password), creates the
 * client and checks that the cluster answers (metadata of __remote_log_metadata) within the
 * timeout. -EHOSTUNREACH (unreachable), -EACCES (authentication failed), -ETIMEDOUT, with
 * err "cluster 127.0.0.1:9092: <reason>".
 */
int  ss_cluster_open(struct ss_cluster **out, const struct ss_cluster_opts *o, char *err, size_t errlen);
void ss_cluster_close(struct ss_cluster *c);
const char *ss_cluster_bootstrap(const struct ss_cluster *c);

/* The partition count of __remote_log_metadata (-ENOENT: the topic does not exist). */
int  ss_cluster_rlmm_partitions(struct ss_cluster *c, int32_t *n, char *err, size_t errlen);

/* A user partition by topic id: where its remote metadata lives. */
struct ss_cluster_tp {
	uint8_t topic_id[16];
	int32_t partition;
};
/* The sorted, distinct metadata partitions holding tps under n_mparts partitions.
 * *out is malloc'd (free it); *n_out may be 0. */
int  ss_cluster_mparts_for(const struct ss_cluster_tp *tps, uint32_t n, int32_t n_mparts, int32_t **out,
			   uint32_t *n_out);

/* One record of a metadata partition. value may be NULL (len 0) for a record without a
 * value. A negative return stops the read and is returned. */
typedef int (*ss_cluster_record_fn)(void *arg, int32_t mpart, int64_t offset, int64_t timestamp_ms,
				    const void *value, size_t len, bool has_value);

/* Where a read delivers: every record, and every batch the client refused (check.crcs:
 * its CRC-32C does not match; offset is the batch's base offset, what the client's
 * message). A refused batch's records are never delivered; records after it are. corrupt
 * may be NULL; a negative return of either stops the read and is returned. */
struct ss_cluster_sink {
	ss_cluster_record_fn record;
	int (*corrupt)(void *arg, int32_t mpart, int64_t offset, const char *what);
	void *arg;
};

struct ss_cluster_read_stats {
	uint64_t records;
	uint64_t bytes;
	double   seconds;
};

/*
 * Reads each of mparts from its earliest offset up to the high watermark taken at the start
 * (partitions already empty need no fetch) and hands each record to the sink in offset
 * order within a partition. Bounded: no progress on a partition for timeout ms, the
 * deadline passed, or a rate so far at which the rest could not be read by the deadline
 * (ten times over: a peer claiming far more records than it serves) is -ETIMEDOUT (err
 * names the partition, the servers and the client's last error); the cancel flag is
 * -ECANCELED. A partition whose batch the client refused is read no further (the refused
 * batch goes to the sink's corrupt callback; what came before it was delivered).
 */
int  ss_cluster_read_rlmm(struct ss_cluster *c, const int32_t *mparts, uint32_t n, const struct ss_cluster_sink *sink,
			  struct ss_cluster_read_stats *st, char *err, size_t errlen);

/* One config entry as DescribeConfigs returns it; source is Kafka's name
 * (DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG, ...). */
typedef int (*ss_cluster_config_fn)(void *arg, const char *topic, const char *key, const char *value,
				    const char *source);
/* DescribeConfigs for the topics (broker_id >= 0: also that broker, reported with topic
 * NULL). A topic the cluster does not know is skipped with its error in err only when no
 * topic succeeds. */
int  ss_cluster_describe_configs(struct ss_cluster *c, const char *const *topics, uint32_t n, int32_t broker_id,
				 ss_cluster_config_fn fn, void *arg, char *err, size_t errlen);

/* ---- the tail (serve): one thread keeps consuming between scans ------------------- */

struct ss_cluster_tail;

struct ss_cluster_part_status {
	int32_t  partition;
	int64_t  next_offset;      /* the offset the tail will read next */
	int64_t  high_watermark;   /* last known; -1 unknown */
	int64_t  lag_records;      /* high_watermark - next_offset; -1 unknown */
	double   age_s;            /* seconds since it was last known to be up to date (or its last
				      record), growing while the cluster does not answer */
	uint64_t records;          /* kept for replay */
	bool     over_bound;       /* passed the tail's bound: dropped, read no further */
	int64_t  last_record_ms;   /* timestamp of its newest record, -1 none */
};

struct ss_cluster_status {
	bool     connected;        /* the last watermark check (within the timeout) answered */
	bool     caught_up;        /* every partition reached the watermark seen when it was added */
	double   since_s;          /* seconds since connected last changed */
	uint64_t reconnects;
	char     last_error[256];
	uint32_t n_parts;
	struct ss_cluster_part_status parts[]; /* n_parts */
};

/* Starts the tail thread on a fresh connection (the same checks as ss_cluster_open, so a
 * bad config or unreachable cluster at startup is an error). The thread reconnects with
 * backoff (0.5 s doubling to 30 s) whenever the cluster stops answering. */
int  ss_cluster_tail_start(struct ss_cluster_tail **out, const struct ss_cluster_opts *o, char *err, size_t errlen);
void ss_cluster_tail_stop(struct ss_cluster_tail *t);
const char *ss_cluster_tail_bootstrap(const struct ss_cluster_tail *t);

/*
 * A scan's consistent snapshot: makes sure mparts are tailed (adds the missing ones, read
 * from their earliest offset), waits up to the timeout until each reached the high watermark
 * seen when it was added, then reports each partition's first refused batch (if any) to
 * the sink's corrupt callback and replays every record kept for them, in offset order per
 * partition, up to the counts taken at one instant. -ETIMEDOUT with err when a partition
 * has not caught up (the records kept so far are not replayed: no partial state); -ENOBUFS
 * with err when one passed the tail's bound (SS_CLUSTER_TAIL_MAX_BYTES: nothing replayed);
 * -ECANCELED when *cancel (may be NULL) is set while it waits (polled every 100 ms).
 */
int  ss_cluster_tail_snapshot(struct ss_cluster_tail *t, const int32_t *mparts, uint32_t n,
			      const struct ss_cluster_sink *sink, const atomic_bool *cancel, char *err, size_t errlen);
int  ss_cluster_tail_rlmm_partitions(struct ss_cluster_tail *t, int32_t *n, char *err, size_t errlen);
/* Current status; *out malloc'd (free it). */
int  ss_cluster_tail_status(struct ss_cluster_tail *t, struct ss_cluster_status **out);

#endif
