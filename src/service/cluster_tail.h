/*
 * serve's live-cluster tail (source/cluster.h): one consumer thread of
 * __remote_log_metadata for the whole service, started before the first scan when the scan
 * options take remote state from the cluster, handed to every scan (ss_serve_cluster_tail,
 * scan/embed.h) so each reads a consistent snapshot from it, and shown live in /healthz and
 * /metrics:
 *
 *   segscan_remote_metadata_connected                       1 or 0
 *   segscan_remote_metadata_lag_records{topic,partition}    high watermark - next offset
 *   segscan_remote_metadata_age_seconds{topic,partition}    since it was last known up to date
 *
 * (topic is "__remote_log_metadata", partition its partition number.)
 */
#ifndef SS_SERVICE_CLUSTER_TAIL_H
#define SS_SERVICE_CLUSTER_TAIL_H

#include <stddef.h>

#include "service/serve.h"

/* Starts the tail when o's scan options want the cluster (--bootstrap-server
 * with --remote-metadata auto or cluster, no --remote-state). 0 when not wanted or started;
 * otherwise a negative errno with err naming the servers and the reason: a usage problem
 * (bad --kafka-config) is -EINVAL. */
int  ss_serve_cluster_start(const struct ss_serve_opts *o, char *err, size_t errlen);
/* Stops it (joins its thread). Harmless when none was started. Called after the last scan. */
void ss_serve_cluster_stop(void);
/* The running tail for the next scan, NULL when none runs. */
struct ss_cluster_tail *ss_serve_cluster_tail(void);

/* The live metrics above as Prometheus text, appended after `head` (the snapshot's own
 * text) into one malloc'd buffer. Returns 0 with *out NULL when no tail runs. */
int  ss_serve_cluster_metrics(const char *head, size_t head_len, char **out, size_t *len);
/* A JSON member for /healthz: `"remote_metadata":{...}` (no leading comma) into buf.
 * Returns its length, 0 when no tail runs, -1 when it does not fit; *connected gets the
 * tail's state (1 when no tail). */
int  ss_serve_cluster_healthz(char *buf, size_t cap, int *connected);

#endif
