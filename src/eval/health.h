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
 */
#ifndef SS_EVAL_HEALTH_H
#define SS_EVAL_HEALTH_H

#include <stdint.h>

/* Kafka's remote.log.manager.task.interval.ms default (RemoteLogManagerConfig
 * DEFAULT_REMOTE_LOG_MANAGER_TASK_INTERVAL_MS, 30 s in every release 3.6 to 4.4) */
#define SS_RLM_TASK_INTERVAL_DEFAULT_MS 30000LL
/* the floor of the derived --stuck-after */
#define SS_STUCK_AFTER_FLOOR_MS 300000LL

/* --stuck-after's default for a copy task interval (<= 0: Kafka's default): ten missed
 * passes of the task, at least five minutes. */
int64_t ss_health_default_stuck_after(int64_t task_interval_ms);

#endif
