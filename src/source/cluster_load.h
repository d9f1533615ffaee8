/*
 * The scan's call into the live-cluster source (source/cluster.h) for the remote state;
 * the topic configs DescribeConfigs gives are source/cluster_describe.h.
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
	bool                          all_mparts; /* read every __remote_log_metadata partition, not
						     only the scanned partitions' (--remote-store: the
						     audit joins every partition the store holds) */
};

/* What it delivers: all NULL / 0 when the cluster could not be read. */
struct ss_cluster_loaded {
	struct ss_remote       *remote;   /* KAFKA mode, source "cluster"; the caller frees it */
	struct ss_remote_taint *taint;    /* metadata partitions with a refused batch; NULL: none */
	uint64_t                warnings;
	bool                    all_mparts;   /* every metadata partition was read (in->all_mparts) */
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

#endif
