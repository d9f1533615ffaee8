/*
 * A topic's effective config (struct ss_topic_cfg, eval.h), with Kafka's precedence and
 * synonyms (core/src/main/scala/kafka/server/ConfigHelper.scala createTopicConfigEntry,
 * server/.../config/ServerTopicConfigSynonyms.java, DynamicBrokerConfig):
 *
 *   --topic-config line (TOPIC_CONFIG_FILE: what-if questions override everything)
 *   > the topic's dynamic config            (DYNAMIC_TOPIC_CONFIG, metadata log)
 *   > this broker's dynamic config          (DYNAMIC_BROKER_CONFIG, BROKER "<node.id>")
 *   > the cluster-wide dynamic default      (DYNAMIC_DEFAULT_BROKER_CONFIG, BROKER "")
 *   > server.properties                     (STATIC_BROKER_CONFIG, when given)
 *   > Kafka's default                       (DEFAULT_CONFIG)
 *
 * Broker levels use the broker names (log.retention.bytes for retention.bytes, ...).
 * retention.ms takes log.retention.ms, else .minutes, else .hours over the merged broker
 * levels (KafkaConfig.logRetentionTimeMillis over DynamicBrokerConfig's merged props),
 * while the source DescribeConfigs names looks at log.retention.ms alone: a static
 * log.retention.hours=72 gives value 259200000 with source DEFAULT_CONFIG, as Kafka 4.3
 * and 4.4 answer (tests/fixtures/kafka/cluster-meta/cluster.json).
 */
#ifndef SS_EVAL_CONFIG_H
#define SS_EVAL_CONFIG_H

#include "eval/eval.h"
#include "fmt/config.h"

enum ss_cfg_level { SS_CFGL_DYN_TOPIC, SS_CFGL_DYN_BROKER, SS_CFGL_DYN_DEFAULT };

/* The dynamic configs (from the metadata log): the raw value of `key` at `level` for
 * `topic` (DYN_TOPIC) or for this broker / the cluster default, or NULL when unset.
 * `known` (may be NULL: every level was read whole) says whether get's answer for that
 * key is the current one; where it is not (the metadata log was not read whole), the
 * entry's source is NULL, whatever value it shows. Zero the struct before filling it. */
struct ss_cfg_dynamic {
	const char *(*get)(const void *arg, enum ss_cfg_level level, const char *topic, const char *key);
	const void *arg;
	bool (*known)(const void *arg, enum ss_cfg_level level, const char *topic, const char *key);
};

/* Effective config of a topic. c may be NULL (no --topic-config, no server.properties);
 * dyn NULL: no metadata log was read, so dynamic levels are unknown and a value found
 * only as Kafka's default is reported with a NULL source. A dynamic value that does not
 * parse is the entry's value as given, with its level as the source (NULL where that
 * level is not known), while the typed field keeps the lower level's value;
 * remote_storage is then -1 and policy_known false for those keys. */
void ss_config_resolve_ctx(const struct ss_config *c, const struct ss_cfg_dynamic *dyn, const char *topic,
			   struct ss_topic_cfg *out);

/* Whether a dynamic value is one ss_config_resolve_ctx can read: false only when `key`
 * (a topic key, or with broker a broker key such as log.retention.hours) is one segscan
 * evaluates and `raw` does not parse as its type. For the warnings of the metadata log's
 * replay (issue 21 item 12). */
bool ss_config_dynamic_valid(bool broker, const char *key, const char *raw);

/* One integer config that segscan does not report per topic (min.insync.replicas), with
 * the same precedence minus --topic-config: the topic's dynamic value, this broker's,
 * the cluster default, the static one (static_value, -1 absent: server.properties), Kafka's
 * default. *value is what applies, *src its source; false (and *src NULL) when it is not
 * known: the metadata log was not read (whole), a level below the value was not read, or
 * a dynamic value does not parse. */
bool ss_config_resolve_long(const struct ss_config *c, const struct ss_cfg_dynamic *dyn, const char *topic,
			    const char *topic_key, const char *broker_key, int64_t static_value, int64_t deflt,
			    int64_t *value, const char **src);

/* Without dynamic configs (tests, the old callers): ss_config_resolve_ctx(c, NULL, ...). */
void ss_config_resolve(const struct ss_config *c, const char *topic, struct ss_topic_cfg *out);

/* Find one entry of a resolved config by key, or NULL. */
const struct ss_cfg_entry *ss_cfg_entry_find(const struct ss_topic_cfg *t, const char *key);

#endif
