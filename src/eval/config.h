/*
 * Topic configs: the --topic-config file (one topic per line, '*' for every topic) and
 * the broker defaults and log dirs of a server.properties file, resolved per topic into
 * struct ss_topic_cfg (eval.h): topic line > '*' line > server.properties > Kafka
 * defaults. Malformed input is an error naming FILE:LINE (exit 2 upstream).
 */
#ifndef SS_EVAL_CONFIG_H
#define SS_EVAL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "eval/eval.h"

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

struct ss_cfg_vals {
	uint32_t set;
	int64_t  retention_ms, retention_bytes, local_retention_ms, local_retention_bytes, segment_bytes;
	bool     remote_storage, remote_copy_disable, compact;
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
	uint32_t                n_log_dirs;
	char                  **warnings;    /* "FILE:LINE: ..." for ignored keys */
	uint32_t                n_warnings;
};

int  ss_config_new(struct ss_config **out);
void ss_config_free(struct ss_config *c);

/* --topic-config. 0, SEGSCAN_ECONFIG (err = "FILE:LINE: problem"), -EIO, -ENOMEM. Later
 * lines for the same topic override earlier keys. */
int ss_config_load_topics(struct ss_config *c, FILE *f, const char *fname, char *err, size_t errlen);
int ss_config_load_topics_buf(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			      size_t errlen);

/* --server-properties (Java properties syntax). Same returns. */
int ss_config_load_server(struct ss_config *c, FILE *f, const char *fname, char *err, size_t errlen);
int ss_config_load_server_buf(struct ss_config *c, const char *buf, size_t len, const char *fname, char *err,
			      size_t errlen);

/* Effective config of a topic; c may be NULL (Kafka defaults, remote storage unset). */
void ss_config_resolve(const struct ss_config *c, const char *topic, struct ss_topic_cfg *out);

#endif
