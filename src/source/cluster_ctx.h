/*
 * Cluster context: what a broker host's own disk says about the cluster, beyond the log
 * dirs' data (docs/contract.md "Cluster context"). Built once per scan from the KRaft
 * metadata log (source/metadata_log.h) and the options, read-only afterwards; the
 * evaluator thread reads it for every partition (no locks: it is never written again).
 *
 *   where the metadata log is    --metadata-dir, else metadata.log.dir of
 *                                --server-properties, else a __cluster_metadata-0 found
 *                                in a scanned log dir (Kafka's default: the first log dir)
 *   this broker                  node.id of the metadata log's meta.properties, else of
 *                                --server-properties
 *   the Kafka release            --kafka-version exactly; else the release line of the
 *                                highest metadata.version this node registered as
 *                                supported (eval/releases.h); else unknown
 */
#ifndef SS_SOURCE_CLUSTER_CTX_H
#define SS_SOURCE_CLUSTER_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "eval/config.h"
#include "eval/releases.h"
#include "source/metadata_log.h"

struct ss_cluster_ctx {
	/* the metadata log */
	bool                 mlog_used;      /* replayed: img and info are valid */
	char                *mlog_why_not;   /* when not used: why (owned), NULL when not looked for */
	struct ss_cimage    *img;
	struct ss_mlog_info  info;
	/* this broker */
	int32_t              node_id;        /* -1 unknown */
	const char          *node_id_source; /* "meta.properties" | "server.properties" | NULL */
	char                *cluster_id;     /* NULL unknown (owned) */
	/* the node a replica is evaluated for when its log dir's meta.properties names none
	 * (ss_cluster_ctx_replica_node); -1 unknown */
	int32_t              dirs_node;
	/* the release */
	bool                 has_version;    /* version is exact or a line */
	struct ss_kver       version;
	const char          *version_source; /* "--kafka-version" | "metadata log" | NULL */
	char                 version_text[48];   /* "4.3.1", "4.4"; "" unknown */
	char                 version_note[96];   /* what the metadata.version level can also mean:
						    "4.3 (or 4.2 with unstable metadata versions)",
						    "newer than 4.4", ...; "" when nothing to add */
	int                  mv_supported_max;   /* this node's RegisterBrokerRecord metadata.version max; 0 */
	int                  mv_finalized;       /* FeatureLevelRecord metadata.version; 0 unknown */
	char                 mv_text[32];        /* the finalized level as Kafka names it: "4.4-IV3" */
	/* without a metadata log: the live cluster's DescribeConfigs (source/cluster_describe.h) */
	struct ss_cluster_cfgs *cfgs;
	char                *cfgs_error;     /* why they could not be fetched, owned */
	const char         **warnings;       /* the image's warnings ("FILE: byte POS: problem"), into img */
	uint32_t             n_warnings;
	/* __remote_log_metadata */
	int32_t              rlmm_partitions;    /* its partition count from the metadata log; -1 */
};

struct ss_catalog;       /* discover/discover.h */
struct ss_cluster_opts;  /* source/cluster.h */
struct ss_config;        /* fmt/config.h */
struct ss_logsink;       /* common/log.h */

/* Where the broker's static configs come from (the scan's options). */
struct ss_static_opts {
	const char   *server_properties; /* --server-properties: already loaded into the config */
	bool          broker_process;    /* --broker-process=auto */
	const char   *proc_root;         /* --proc-root, NULL: /proc */
	char *const  *logdirs;           /* the scanned log dirs, which the broker must serve */
	uint32_t      n_logdirs;
};

/* The broker's static configs when --server-properties is not given: the running broker's
 * server.properties (source/broker_process.h), loaded into config as if given. Sets *path
 * (the file read, or NULL) and *how (how it was found, or why none was read), both owned by
 * the caller, either way; a file that cannot be read or parsed is a note, not an error.
 * 0 or -ENOMEM. */
int ss_cluster_find_static(const struct ss_static_opts *o, struct ss_config *config, char **path, char **how);

/* What the cluster context is built from (the scan's options). */
struct ss_cluster_ctx_opts {
	const char   *metadata_dir;      /* --metadata-dir, NULL */
	bool          cluster_metadata;  /* --cluster-metadata=auto */
	const char   *kafka_version;     /* --kafka-version, NULL */
	/* the live cluster for DescribeConfigs when no metadata log is readable; NULL: none */
	const struct ss_cluster_opts *cluster;
};

/* The cluster context from the options, the configs (NULL: none) and the discovered
 * catalog. *out is set at once and owned by the caller even when this fails (free it with
 * ss_cluster_ctx_free). A metadata log that cannot be read is not an error (the context
 * then says why); only -ENOMEM is. */
int  ss_cluster_ctx_load(const struct ss_cluster_ctx_opts *o, const struct ss_config *config,
			 const struct ss_catalog *cat, struct ss_logsink *log, struct ss_cluster_ctx **out);
/* The broker a partition replica belongs to: its log dir's meta.properties node.id, else,
 * when the scan sees one broker only, that broker (node_id above), else -1 unknown. */
struct ss_part;
int32_t ss_cluster_ctx_replica_node(const struct ss_cluster_ctx *c, const struct ss_part *p,
				    const struct ss_catalog *cat);
void ss_cluster_ctx_free(struct ss_cluster_ctx *c);

/* The dynamic-config face of the metadata log for ss_config_resolve_ctx (eval/config.h).
 * false (and *out untouched) when no metadata log was replayed: the dynamic levels are
 * then unknown, not empty. */
bool ss_cluster_ctx_dynamic(const struct ss_cluster_ctx *c, struct ss_cfg_dynamic *out);

#endif
