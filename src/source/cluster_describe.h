/*
 * The live cluster's topic configs, for a host whose metadata log is not readable: the
 * DescribeConfigs answer (source/cluster.h ss_cluster_describe_configs) kept as the
 * dynamic config levels of eval/config.h.
 */
#ifndef SS_SOURCE_CLUSTER_DESCRIBE_H
#define SS_SOURCE_CLUSTER_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

struct ss_cfg_dynamic;
struct ss_cluster_cfgs;
struct ss_cluster_opts;

/*
 * DescribeConfigs for topics (and broker_id >= 0: that broker), kept as the dynamic levels
 * Kafka reported them at: an entry whose source is DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG
 * or DYNAMIC_DEFAULT_BROKER_CONFIG answers that level's lookup; static and default values are
 * left to the scan's own resolution (server.properties, Kafka's defaults), which then reports
 * the same sources Kafka does. For a host whose metadata log is not readable (ZooKeeper-mode
 * 3.x, another user's metadata.log.dir): the caller passes the result of
 * ss_cluster_cfgs_dynamic() to ss_config_resolve_ctx where it would pass the metadata log's.
 * Errors as ss_cluster_open / ss_cluster_describe_configs, err filled.
 */
int  ss_cluster_cfgs_fetch(const struct ss_cluster_opts *o, const char *const *topics, uint32_t n, int32_t broker_id,
			   struct ss_cluster_cfgs **out, char *err, size_t errlen);
void ss_cluster_cfgs_dynamic(const struct ss_cluster_cfgs *c, struct ss_cfg_dynamic *out);
/* Every entry DescribeConfigs returned, for reports and tests: fn(arg, topic or NULL for the
 * broker, key, value or NULL, source). */
void ss_cluster_cfgs_each(const struct ss_cluster_cfgs *c,
			  void (*fn)(void *arg, const char *topic, const char *key, const char *value, const char *source),
			  void *arg);
void ss_cluster_cfgs_free(struct ss_cluster_cfgs *c);

#endif
