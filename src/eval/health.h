/*
 * Tiering health: the rules that tell an operator the pipeline between the local log and
 * the remote tier has stalled, before the disk fills (docs/tiered-storage.md "Tiering
 * health", docs/contract.md "Findings"). Pure: the evaluator calls them per partition
 * over the remote state, the segments and the facts below; nothing here touches the
 * filesystem.
 *
 *   STUCK_REMOTE_COPY    the partition's latest copy attempt is still COPY_SEGMENT_STARTED
 *                        after --stuck-after; or, on the leader, the oldest closed local
 *                        segment has waited for its copy longer than that while the copy
 *                        task did nothing
 *   STUCK_REMOTE_DELETE  a remote segment in DELETE_SEGMENT_STARTED after --stuck-after
 *   REMOTE_METADATA_AT_RISK  __remote_log_metadata's own settings put the tiered
 *                        partition's remote segments at risk: its retention shorter than
 *                        the partition's, a size limit, replication factor 1 or
 *                        min.insync.replicas 1 on a cluster of several brokers
 */
#ifndef SS_EVAL_HEALTH_H
#define SS_EVAL_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

/* Kafka's remote.log.manager.task.interval.ms default (RemoteLogManagerConfig
 * DEFAULT_REMOTE_LOG_MANAGER_TASK_INTERVAL_MS, 30 s in every release 3.6 to 4.4) */
#define SS_RLM_TASK_INTERVAL_DEFAULT_MS 30000LL
/* the floor of the derived --stuck-after */
#define SS_STUCK_AFTER_FLOOR_MS 300000LL

/*
 * What the metadata log says of __remote_log_metadata and of the tiered topics, once per
 * scan (scan/evaluator.c builds it from the cluster image and the configs). A source NULL
 * means the value is not known (no metadata log, or one not read whole): no finding rests
 * on it. Strings live as long as the scan.
 */
struct ss_health_rlmm {
	bool        exists;              /* the metadata log knows the topic (else nothing below) */
	int64_t     retention_ms;        /* -1: unlimited */
	const char *retention_ms_src;
	int64_t     retention_bytes;     /* -1: unlimited */
	const char *retention_bytes_src;
	int64_t     min_isr;
	const char *min_isr_src;
	int32_t     rf;                  /* the fewest replicas of any of its partitions; -1 unknown */
	int32_t     partitions;          /* -1 unknown */
	int32_t     brokers;             /* registered brokers; -1 unknown */
	/* the tiered topics (remote.storage.enable=true) the metadata log knows */
	uint32_t    tiered_topics;
	bool        max_tiered_known;    /* every tiered topic's retention.ms is known */
	int64_t     max_tiered_retention_ms; /* -1: unlimited */
	const char *max_tiered_topic;
};

/* --stuck-after's default for a copy task interval (<= 0: Kafka's default): ten missed
 * passes of the task, at least five minutes. */
int64_t ss_health_default_stuck_after(int64_t task_interval_ms);

#endif
