/*
 * The scan's call into the live-cluster source (source/cluster.h): the remote state, and the
 * topic configs where no metadata log is readable.
 */
#ifndef SS_SOURCE_CLUSTER_LOAD_H
#define SS_SOURCE_CLUSTER_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ss_catalog;       /* discover/discover.h */
struct ss_cluster_opts;  /* source/cluster.h */
struct ss_cluster_tail;  /* source/cluster.h */
struct ss_logsink;       /* common/log.h */
struct ss_remote;        /* eval/remote.h */
struct ss_remote_taint;  /* source/remote_topic.h */

/* What ss_cluster_load_remote reads from and reports to. */
struct ss_cluster_load_in {
	const struct ss_cluster_opts *cluster;  /* bootstrap (NULL or "": a usage error), timeouts, cancel */
	struct ss_cluster_tail       *tail;     /* serve's live tail to snapshot; NULL: a one-shot read */
	struct ss_catalog            *cat;      /* the partitions to place; problems are added to it */
	struct ss_logsink            *log;      /* progress, and the reason when the cluster fails */
};

/* What it delivers: all NULL / 0 when the cluster could not be read. */
struct ss_cluster_loaded {
	struct ss_remote       *remote;   /* KAFKA mode, source "cluster"; the caller frees it */
	struct ss_remote_taint *taint;    /* metadata partitions with a refused batch; NULL: none */
	uint64_t                warnings;
	bool                    usage_error;  /* the operator's to fix: err says what (exit 2) */
};

/*
 * After discovery: the metadata partitions holding the scanned partitions (by their
 * partition.metadata topic ids), read from the cluster (or from serve's tail), replayed
 * into out->remote (KAFKA mode, source "cluster"). An unreachable cluster, failed
 * authentication or an unreadable partition leaves out->remote NULL (the tiered partitions
 * are then REMOTE_STATE_UNKNOWN), logs the reason as an error and records it as a
 * data-loss problem (exit 1); the scan goes on. No --bootstrap-server or a bad
 * --kafka-config is a usage error: -EINVAL with out->usage_error set and err saying why.
 * -ECANCELED (segscan_cancel) also fills err. Otherwise 0 or -ENOMEM.
 */
int ss_cluster_load_remote(const struct ss_cluster_load_in *in, struct ss_cluster_loaded *out, char *err,
			   size_t errlen);

/* ---- topic configs from the cluster (no readable metadata log) ------------------------ */

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
