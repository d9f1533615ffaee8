/*
 * A topic's effective config (struct ss_topic_cfg, eval.h) from the parsed --topic-config
 * and server.properties (fmt/config.h): topic line > '*' line > server.properties >
 * Kafka defaults.
 */
#ifndef SS_EVAL_CONFIG_H
#define SS_EVAL_CONFIG_H

#include "eval/eval.h"
#include "fmt/config.h"

/* Effective config of a topic; c may be NULL (Kafka defaults, remote storage unset). */
void ss_config_resolve(const struct ss_config *c, const char *topic, struct ss_topic_cfg *out);

#endif
