/*
 * The output of Kafka's own `kafka-configs.sh --describe [--all]` (ConfigCommand,
 * core/src/main/scala/kafka/admin/ConfigCommand.scala describeResourceConfig), which is
 * what an operator has at hand, accepted as a --topic-config file:
 *
 *   All configs for topic orders are:
 *     cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}
 *     retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000, ...}
 *   Dynamic configs for broker 1 are:
 *     log.retention.bytes=1000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.bytes=1000}
 *   Default configs for brokers in the cluster are:
 *     ...
 *
 * Pure: a parser over bytes. Each entry is handed to a callback with its block's entity
 * (type "topic" or "broker", name; "" for the cluster-wide default), the key, the value
 * (NULL for a sensitive value Kafka prints as null) and the source Kafka names first in
 * the synonyms (the one in effect), or NULL when it prints none.
 */
#ifndef SS_FMT_KAFKA_CONFIGS_H
#define SS_FMT_KAFKA_CONFIGS_H

#include <stdbool.h>
#include <stddef.h>

struct ss_kc_entry {
	const char *entity_type;   /* "topic" | "broker" | other word Kafka printed */
	const char *entity;        /* NUL-terminated; "" = the cluster-wide default */
	const char *key;
	const char *value;         /* NULL: sensitive, printed as null */
	const char *source;        /* "DYNAMIC_TOPIC_CONFIG", ... or NULL */
	unsigned    line;
};

/* Returns 0 to go on, or a negative error to stop (passed back by the parser). */
typedef int (*ss_kc_fn)(void *arg, const struct ss_kc_entry *e);

/* Is this text kafka-configs output? True when its first non-blank line is a block header. */
bool ss_kc_detect(const char *buf, size_t len);

/*
 * Parse the whole text. 0; SEGSCAN_ECONFIG with err = "FILE:LINE: problem" for a line that
 * is neither a header nor an entry of one (an entry before any header included); -ENOMEM;
 * or the callback's negative return.
 */
int ss_kc_parse(const char *buf, size_t len, const char *fname, ss_kc_fn fn, void *arg, char *err, size_t errlen);

#endif
