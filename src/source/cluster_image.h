/*
 * The cluster's state as the KRaft metadata log describes it, replayed record by record
 * the way Kafka's MetadataLoader / MetadataDelta do (metadata/src/main/java/org/apache/
 * kafka/image/: TopicsDelta, TopicDelta, ConfigurationsDelta, ConfigurationDelta,
 * ClusterDelta, FeaturesDelta; loader/MetadataBatchLoader for transactions;
 * metadata/.../metadata/PartitionRegistration.java for PartitionChangeRecord merges).
 *
 * Pure: no I/O, no threads. The source (metadata_log.c) feeds it record values; tests
 * and fuzzers feed it bytes directly. Every record costs O(1) expected, or O(log n) for a
 * binary search, whatever the shape of the log (issue 21 item 6): topics by name and by
 * id, config resources by type and name, a resource's keys, features and brokers by hash;
 * partitions of a topic and brokers are kept in arrays sorted by id as long as they come
 * in ascending order, found by hash once one comes out of order, and sorted once by
 * ss_cimage_finish. stats.work counts the steps, for the tests that bound them.
 *
 *   struct ss_cimage *img; ss_cimage_new(&img);
 *   ss_cimage_apply(img, value, value_len, &(struct ss_ci_where){ file, pos, offset });
 *   ...                                    // a snapshot: ss_cimage_reset(img) first
 *   ss_cimage_finish(img);                 // drops (and reports) an unfinished transaction
 *   const struct ss_ci_topic *t = ss_cimage_topic(img, "orders");
 *   ss_cimage_free(img);
 */
#ifndef SS_SOURCE_CLUSTER_IMAGE_H
#define SS_SOURCE_CLUSTER_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/kraft.h"

/* ConfigResource.Type ids (clients/.../config/ConfigResource.java). */
#define SS_CI_RES_TOPIC         2
#define SS_CI_RES_BROKER        4
#define SS_CI_RES_BROKER_LOGGER 8
/* The resource name of the cluster-wide default broker config. */
#define SS_CI_DEFAULT_BROKER ""

struct ss_ci_partition {
	int32_t  id;
	int32_t  leader;                 /* -1: no leader */
	int32_t  leader_epoch;
	int32_t  partition_epoch;
	int8_t   leader_recovery_state;  /* 0 recovered, 1 recovering */
	uint32_t n_replicas, n_isr, n_removing, n_adding, n_elr, n_last_known_elr;
	uint32_t n_directories;          /* 0 when the records carry none (before KIP-858) */
	int32_t *replicas, *isr, *removing, *adding, *elr, *last_known_elr;
	uint8_t (*directories)[16];      /* parallel to replicas */
	void    *block_;                 /* one allocation behind every array above */
};

struct ss_ci_topic {
	char                   *name;
	uint8_t                 id[16];
	struct ss_ci_partition *parts;   /* sorted by id once ss_cimage_finish ran */
	uint32_t                n_parts, cap_parts;
	uint32_t                slot_;   /* position in the image's topic array */
};

struct ss_ci_endpoint {
	char    *name, *host;
	uint16_t port;
	int16_t  security_protocol;      /* SecurityProtocol id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL */
};
struct ss_ci_bfeature {
	char   *name;
	int16_t min_version, max_version;
};
struct ss_ci_broker {
	int32_t                id;
	int64_t                epoch;
	uint8_t                incarnation_id[16];
	bool                   fenced, in_controlled_shutdown, is_migrating_zk;
	char                  *rack;     /* NULL: none */
	struct ss_ci_endpoint *endpoints;
	uint32_t               n_endpoints;
	struct ss_ci_bfeature *features; /* supported features: name -> [min, max] */
	uint32_t               n_features;
	uint8_t              (*log_dirs)[16];
	uint32_t               n_log_dirs;
	uint64_t               seq_;     /* when it registered (see ss_cimage_broker_known) */
};

struct ss_ci_config {
	char    *key, *value;
	uint64_t seq_;                   /* when it was last set (see ss_cimage_config_known) */
};
struct ss_ci_resource {
	int8_t               type;
	char                *name;
	struct ss_ci_config *kv;        /* unordered; a deleted key is removed */
	uint32_t             n, cap;
};

struct ss_ci_stats {
	uint64_t records;                        /* every record value offered */
	uint64_t by_key[SS_KRAFT_KEY_SLOTS];     /* decoded frames per api key (last slot: >= 63) */
	uint64_t unknown;                        /* valid frames skipped: type or version not decoded */
	uint64_t malformed;                      /* values that do not decode */
	uint64_t inconsistent;                   /* decoded but contradicting the state (Kafka would fault) */
	uint64_t txn_committed, txn_aborted;     /* transactions */
	uint64_t txn_dropped_records;            /* records of aborted or unfinished transactions */
	uint64_t snapshots;                      /* resets */
	uint64_t warnings_dropped;               /* warnings past the bound */
	/* The replay's cost model, for the complexity tests (tests/test_cluster_image.c):
	 * elements visited by lookups and moved by inserts and removals. Deterministic for
	 * a given input, so a test can bound it without timing anything. */
	uint64_t work;
	uint64_t txn_held_bytes;                 /* memory the open transaction's records hold */
	uint64_t txn_held_peak;                  /* the most it held at once */
	uint64_t txn_overflowed;                 /* transactions that outgrew the limit (not held) */
	uint64_t unapplied;                      /* records whose effect is lost: malformed, of a newer
						    version, of a committed transaction too large to hold */
};

/* Where a record came from, for warnings "FILE: byte POS: problem". */
struct ss_ci_where {
	const char *file;
	int64_t     pos;      /* byte position of the record's batch in the file */
	int64_t     offset;   /* the record's log offset */
};

#define SS_CI_MAX_WARNINGS 200

/*
 * What one metadata transaction may hold until its EndTransactionRecord: its records'
 * values plus 32 bytes each (NoOpRecords and records this replay does not decode are not
 * held). Kafka's controller bounds one user operation at 10,000 records
 * (QuorumController.MAX_RECORDS_PER_USER_OP) in batches of at most 8 MiB; 64 MiB holds a
 * transaction of half a million partitions. A larger one degrades instead of failing:
 * it is not applied, with a warning, and the state from before it stays (a committed one
 * then leaves what it changed unknown).
 */
#define SS_CI_TXN_MAX_BYTES ((uint64_t)64 << 20)

struct ss_cimage;

int  ss_cimage_new(struct ss_cimage **out);
/* The bytes a metadata transaction may hold (SS_CI_TXN_MAX_BYTES by default). */
void ss_cimage_set_txn_limit(struct ss_cimage *img, uint64_t bytes);
void ss_cimage_free(struct ss_cimage *img);

/* A snapshot replaces the image: forget all state (stats and warnings stay). */
void ss_cimage_reset(struct ss_cimage *img);

/*
 * Offer one metadata record value. A record that does not decode, or does not fit the
 * state, is counted and warned about; inside a metadata transaction records are held and
 * applied at EndTransactionRecord, dropped at AbortTransactionRecord (a transaction
 * larger than SS_CI_TXN_MAX_BYTES: see there). Returns 0, or -ENOMEM (the image is then
 * still consistent but missing this record).
 */
int  ss_cimage_apply(struct ss_cimage *img, const uint8_t *value, size_t len, const struct ss_ci_where *w);
/* End of the replay: an unfinished transaction is dropped with a warning (Kafka would not
 * publish it), and the arrays a replay left out of order are sorted by id. */
void ss_cimage_finish(struct ss_cimage *img);

/* Add a warning "FILE: byte POS: message" (file NULL: just the message). -ENOMEM only. */
int  ss_cimage_warn(struct ss_cimage *img, const char *file, int64_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same, first in the list and past the bound (a replay's closing word). */
int  ss_cimage_warn_front(struct ss_cimage *img, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append src's warnings to dst (for a discarded replay attempt). */
int  ss_cimage_take_warnings(struct ss_cimage *dst, const struct ss_cimage *src);

/*
 * What the replay could not apply, and so what is unknown. The source marks a loss where
 * records are missing or could not be read: a batch whose CRC-32C fails, the history
 * before the first segment with no readable snapshot, a gap in the offsets, a file that
 * could not be read to its end. The image marks one itself for a committed transaction
 * too large to hold (the kinds of records it held) and for a record of a kind it applies
 * that does not decode (malformed, or a version newer than the decoder).
 *
 * A fact is known when it was set after the last loss of its kind: the lost records could
 * have changed anything set before, and could have set a key nobody set since. A topic
 * created after a loss is known whole (its configs too: a topic's configs die with it),
 * and so is a key or a topic removed after one. Without a loss everything is known.
 * ss_cimage_reset (a snapshot) forgets the losses with the state.
 */
#define SS_CI_LOST_TOPICS   1u   /* topics, their ids, partitions and assignment */
#define SS_CI_LOST_CONFIGS  2u   /* dynamic configs: ConfigRecords, a RemoveTopicRecord's deleteAll */
#define SS_CI_LOST_BROKERS  4u   /* broker registrations */
#define SS_CI_LOST_FEATURES 8u   /* finalized feature levels */
#define SS_CI_LOST_ALL      15u

/* Mark a loss of the kinds in `what` (SS_CI_LOST_*) at this point of the replay. */
void     ss_cimage_mark_lost(struct ss_cimage *img, unsigned what);
/* The kinds with a loss (0: the image is the cluster's metadata at its last record). */
unsigned ss_cimage_lost(const struct ss_cimage *img);
/* Is ss_cimage_config's answer (a value, or NULL: unset) the current one? */
bool ss_cimage_config_known(const struct ss_cimage *img, int8_t type, const char *resource, const char *key);
/* Is ss_cimage_topic's answer (the topic, its id and partitions, or NULL) the current one? */
bool ss_cimage_topic_known(const struct ss_cimage *img, const char *name);
/* The same for a broker's registration and a finalized feature level. */
bool ss_cimage_broker_known(const struct ss_cimage *img, int32_t id);
bool ss_cimage_feature_known(const struct ss_cimage *img, const char *name);

/* ---- lookups ---------------------------------------------------------------------- */
const struct ss_ci_topic     *ss_cimage_topic(const struct ss_cimage *img, const char *name);
const struct ss_ci_topic     *ss_cimage_topic_by_id(const struct ss_cimage *img, const uint8_t id[16]);
const struct ss_ci_partition *ss_ci_topic_partition(const struct ss_ci_topic *t, int32_t id);
const struct ss_ci_partition *ss_cimage_partition(const struct ss_cimage *img, const char *topic, int32_t id);
size_t                        ss_cimage_topic_count(const struct ss_cimage *img);
const struct ss_ci_topic     *ss_cimage_topic_at(const struct ss_cimage *img, size_t i);  /* unordered */
size_t                        ss_cimage_partition_count(const struct ss_cimage *img);

/* The value of a config key of a resource, or NULL if unset. */
const char                  *ss_cimage_config(const struct ss_cimage *img, int8_t type, const char *resource,
					      const char *key);
const struct ss_ci_resource *ss_cimage_resource(const struct ss_cimage *img, int8_t type, const char *name);

const struct ss_ci_broker   *ss_cimage_broker(const struct ss_cimage *img, int32_t id);
size_t                       ss_cimage_broker_count(const struct ss_cimage *img);
/* by id once ss_cimage_finish ran */
const struct ss_ci_broker   *ss_cimage_broker_at(const struct ss_cimage *img, size_t i);
/* A broker's supported range of a feature: 0, or -ENOENT. */
int ss_ci_broker_feature(const struct ss_ci_broker *b, const char *name, int16_t *min, int16_t *max);

/* Finalized feature level ("metadata.version", "kraft.version", ...): 0 or -ENOENT. */
int ss_cimage_feature_level(const struct ss_cimage *img, const char *name, int16_t *level);
size_t ss_cimage_feature_count(const struct ss_cimage *img);
/* The i-th finalized feature: its name, level in *level. */
const char *ss_cimage_feature_at(const struct ss_cimage *img, size_t i, int16_t *level);

const struct ss_ci_stats *ss_cimage_stats(const struct ss_cimage *img);
size_t      ss_cimage_warning_count(const struct ss_cimage *img);
const char *ss_cimage_warning_at(const struct ss_cimage *img, size_t i);
/* True while a metadata transaction is open (records held, not yet applied). */
bool ss_cimage_in_transaction(const struct ss_cimage *img);

#endif
