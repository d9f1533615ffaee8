/*
 * Context sources: everything the evaluator needs besides the log dirs themselves, read
 * once before the workers start and read-only afterwards. Each source does the I/O and
 * hands bytes to a pure parser in src/fmt/; the evaluator (src/eval/) never touches the
 * filesystem.
 *
 *   source                       module                  delivers
 *   --topic-config               source/local_files.h    struct ss_config (fmt/config.h)
 *   --server-properties          source/local_files.h    struct ss_config: defaults, log.dirs
 *   --remote-state               source/local_files.h    struct ss_remote, STRICT (eval/remote.h)
 *   __remote_log_metadata-N dirs source/remote_topic.h   struct ss_remote, KAFKA mode
 *   the running broker's config  source/broker_process.h its server.properties' bytes
 *   KRaft metadata log           source/metadata_log.h   struct ss_cimage (source/cluster_image.h)
 *                                source/cluster_ctx.h    struct ss_cluster_ctx
 *   a live cluster               source/cluster_load.h   struct ss_remote, KAFKA mode; DescribeConfigs
 *   --broker-metrics endpoints   source/broker_metrics.h struct ss_broker_gauges (eval/gauges.h),
 *                                                        over source/http.h and fmt/promtext.h
 *
 * Each takes a small option struct or plain arguments and returns its object; none knows
 * the scan. The scan's loaders (scan/context.c) map the scan's options to them.
 */
#ifndef SS_SOURCE_CONTEXT_H
#define SS_SOURCE_CONTEXT_H

/* Names of the remote-state sources, as the store and the outputs report them. */
#define SS_SOURCE_REMOTE_STATE   "remote-state"
#define SS_SOURCE_METADATA_TOPIC "metadata-topic"

#endif
