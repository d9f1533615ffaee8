/*
 * Topic configs: parsers of the --topic-config file (one topic per line, '*' for every
 * topic) and of the broker defaults and log dirs of a server.properties file, into
 * struct ss_config. Pure functions over bytes: src/source/local_files.c reads the files,
 * eval/config.h resolves a topic's effective config (topic line > '*' line >
 * server.properties > Kafka defaults). Malformed input is an error naming FILE:LINE
 * (exit 2 upstream).
 */
#ifndef SS_FMT_CONFIG_H
#define SS_FMT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kafka defaults (LogConfig / ServerLogConfigs). */
#define SS_DEFAULT_RETENTION_MS        604800000LL
#define SS_DEFAULT_RETENTION_BYTES     (-1LL)
#define SS_DEFAULT_LOCAL_RETENTION     (-2LL)
#define SS_DEFAULT_SEGMENT_BYTES       1073741824LL

/* which values a source sets (ss_cfg_vals.set) */
#define SS_CFG_RETENTION_MS        0x001
#define SS_CFG_RETENTION_BYTES     0x002
#define SS_CFG_LOCAL_RETENTION_MS  0x004
#define SS_CFG_LOCAL_RETENTION_BYTES 0x008
#define SS_CFG_SEGMENT_BYTES       0x010
#define SS_CFG_REMOTE_STORAGE      0x020
#define SS_CFG_REMOTE_COPY_DISABLE 0x040
#define SS_CFG_CLEANUP_POLICY      0x080
#define SS_CFG_PREALLOCATE         0x100

struct ss_cfg_vals {
	uint32_t set;
	int64_t  retention_ms, retention_bytes, local_retention_ms, local_retention_bytes, segment_bytes;
	bool     remote_storage, remote_copy_disable, compact, preallocate;
	char     policy[24];   /* cleanup.policy as Kafka prints it: "delete", "compact", "compact,delete" */
};

struct ss_config_topic {
	char              *topic;
	struct ss_cfg_vals v;
	unsigned           line;   /* first line naming the topic */
};

struct ss_config {
	struct ss_cfg_vals      deflt;       /* the '*' line(s) */
	struct ss_config_topic *topics;      /* sorted by name (strcmp), one per topic */
	uint32_t                n_topics, cap_topics;
	bool                    has_server;
	struct ss_cfg_vals      server;      /* broker-wide defaults from server.properties */
	bool                    remote_system_enable; /* valid with has_server (Kafka default false) */
	char                  **log_dirs;    /* log.dirs, else log.dir, split at ',' */
	uint32_t                n_log_dirs, cap_log_dirs;
	/* server.properties' retention synonyms, each as given (KafkaConfig takes
	 * log.retention.ms, else .minutes, else .hours; DescribeConfigs names only the first as
	 * a source): bit i of server_retention_set for [ms, minutes, hours], raw values in
	 * server_retention[i] (not yet scaled to ms) */
	uint8_t                 server_retention_set;
	int64_t                 server_retention[3];
	char                   *metadata_log_dir;  /* metadata.log.dir, NULL when absent */
	int32_t                 node_id;           /* node.id (broker.id), -1 when absent */
	int64_t                 rlm_task_interval_ms; /* remote.log.manager.task.interval.ms, -1 absent */
	int32_t                 min_isr;           /* min.insync.replicas, -1 when absent */
	bool                    kafka_configs_format; /* --topic-config was kafka-configs output */
	char                  **warnings;    /* "FILE:LINE: ..." for ignored keys */
	uint32_t                n_warnings, cap_warnings;
};

int  ss_config_new(struct ss_config **out);
void ss_config_free(struct ss_config *c);

/* --topic-config. 0, SEGSCAN_ECONFIG (err = "FILE:LINE: problem"), -ENOMEM. Later
 * lines for the same topic override earlier keys. */
int ss_config_load_topics_buf(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			      size_t errlen);

/* --server-properties (Java properties syntax, java.util.Properties.load). Same returns. */
int ss_config_load_server_buf(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			      size_t errlen);

/* One topic-level config value (the topic name of a key: "retention.ms", "cleanup.policy",
 * "preallocate", ...) parsed and validated as the --topic-config file does, into v (its bit
 * set in v->set). false: the key is not one segscan reads, or the value does not parse. */
bool ss_cfg_parse_value(const char *key, const char *val, size_t vlen, struct ss_cfg_vals *v);

/* The topic's own entry (merged over all its lines), or NULL. */
struct ss_config_topic *ss_config_find(const struct ss_config *c, const char *topic, size_t len);
/* Overlay the values src sets onto dst. Always 0. */
int ss_cfg_vals_merge(struct ss_cfg_vals *dst, const struct ss_cfg_vals *src);

#endif
