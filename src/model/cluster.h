/*
 * The cluster report of `segscan merge`: several brokers' scan reports (fmt/report.h) put
 * together, each partition once. Filled by ss_merge (merge/merge.h), read-only afterwards;
 * the writers (out/out.h ss_out_cluster_*) read it and nothing else, as the scan's writers
 * read model/results.h.
 *
 * Counting: what the cluster has once whatever the replication factor (remote segments
 * and bytes, dangling ones, copy lag, the only-local set the leader still has to copy) is
 * taken once per partition: from the leader's row, or for the remote state (the same
 * __remote_log_metadata for every replica) from any replica that knows it when those
 * that know it agree. What each replica has on its own disk (its local size, its
 * only-local bytes) stays per replica, and the disk total (replica_size_bytes) is their
 * sum. A value or total that could not be known is unknown (known false: null in json,
 * "?" in the table), never a partial sum shown as whole.
 */
#ifndef SS_MODEL_CLUSTER_H
#define SS_MODEL_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "fmt/report.h"

/* One input: a report file or a serve endpoint. */
struct ss_cbroker {
	const char             *input;   /* as the user named it (a URL without user:password@) */
	const struct ss_report *rep;     /* NULL: missing (error says why) */
	const char             *error;
	int64_t                 node_id; /* the report's broker (summary.broker.node_id); -1 unknown */
};

struct ss_cfinding {
	const char *code;                /* a static string: the codes in docs/contract.md */
	char       *message;
};

/* One partition replica: a row of one report. */
struct ss_creplica {
	int64_t                  node_id;
	uint32_t                 broker; /* index into brokers[] */
	const struct ss_rep_row *row;
	bool                     leader;
};

struct ss_cval {
	bool    known;
	int64_t v;
};

struct ss_cpart {
	const char         *topic;
	int32_t             partition;
	const char         *topic_id;    /* NULL: no report knows it */
	/* the assignment the replicas' reports agree on; has_assignment false: none has one,
	 * or they disagree (an ASSIGNMENT_DISAGREEMENT finding) */
	bool                has_assignment;
	const int32_t      *assigned;
	uint32_t            n_assigned;
	int64_t             leader;      /* -1: no leader, or not known */
	int32_t             leader_replica; /* index into replicas[] of the leader's row; -1 none */
	struct ss_creplica *replicas;    /* sorted by node id */
	uint32_t            n_replicas;
	int8_t              remote_storage; /* -1 unknown (or the replicas disagree), 0, 1 */
	/* the remote state, once: known false when no replica knows it, or they disagree
	 * and no leader's row settles it */
	bool                remote_known;
	int64_t             remote_node; /* whose row it was taken from */
	bool                has_highest;
	int64_t             highest_offset;
	int64_t             remote_segments, remote_bytes, dangling_segments, dangling_bytes;
	/* the leader's (unknown without a leader's row) */
	struct ss_rep_pair  copy_lag, broker_copy_lag, only_local;
	struct ss_rep_pair  delete_lag;   /* the leader's row's (its expiration task's) */
	struct ss_cfinding *findings;
	uint32_t            n_findings;
};

/* Totals of a topic, or of the cluster. */
struct ss_ctotal {
	const char    *topic;            /* NULL: the cluster */
	uint32_t       partitions, replicas, findings;
	struct ss_cval remote_segments, remote_bytes, dangling_segments, dangling_bytes;
	struct ss_cval copy_lag_segments, copy_lag_bytes, only_local_bytes;
	struct ss_cval delete_lag_segments, delete_lag_bytes;
	struct ss_cval replica_size_bytes;  /* every replica's local size: the disk the topic takes */
};

struct ss_cluster {
	const char        *cluster_id;   /* the reports' (they agree); NULL: none says */
	const char        *version;      /* the segscan that wrote them (they agree) */
	struct ss_cbroker *brokers;
	uint32_t           n_brokers, n_missing;
	/* nodes some assignment names that no report covers */
	int64_t           *unreported;
	uint32_t           n_unreported;
	struct ss_cpart   *parts;        /* by topic (bytewise), then partition */
	uint32_t           n_parts;
	struct ss_ctotal  *topics;       /* by topic */
	uint32_t           n_topics;
	struct ss_ctotal   total;
	/* the totals cover every broker: no input missing, every node an assignment names
	 * reported, every partition's assignment known. false: why[] says what is left out,
	 * and every total is unknown */
	bool               complete;
	char             **why;
	uint32_t           n_why;
	uint32_t           n_findings;
	int                exit_code;    /* 0, or 1: not complete, or a report whose own scan was not */
};

#endif
