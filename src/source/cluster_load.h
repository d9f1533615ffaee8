/*
 * The context loader's call into the live-cluster source (source/cluster.h).
 */
#ifndef SS_SOURCE_CLUSTER_LOAD_H
#define SS_SOURCE_CLUSTER_LOAD_H

#include <stdbool.h>

struct segscan_scan;

/* Does this scan take its remote state from the cluster? --remote-metadata=cluster, or
 * auto with --bootstrap-server (and no --remote-state file). */
bool ss_cluster_wanted(const struct segscan_scan *s);

/*
 * After discovery: the metadata partitions holding the scanned partitions (by their
 * partition.metadata topic ids), read from the cluster (or from serve's registered tail),
 * replayed into s->remote (KAFKA mode, source "cluster"). An unreachable cluster, failed
 * authentication or an unreadable partition leaves s->remote NULL (the tiered partitions
 * are then REMOTE_STATE_UNKNOWN), prints the reason on stderr and records it as a
 * data-loss problem (exit 1); the scan goes on. A bad --kafka-config is a usage error
 * (exit 2). Returns 0, a usage error, or -ENOMEM.
 */
int ss_cluster_load_remote(struct segscan_scan *s);

#endif
