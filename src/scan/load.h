/*
 * Loading what the evaluator needs before the workers start: topic configs,
 * server.properties, and the remote state (a --remote-state file or the log dirs'
 * __remote_log_metadata partitions). Everything here is read once, then read-only.
 */
#ifndef SS_SCAN_LOAD_H
#define SS_SCAN_LOAD_H

struct segscan_scan;

/* --topic-config and --server-properties. A bad file sets usage_error (exit 2). */
int ss_load_configs(struct segscan_scan *s);
/* Remote state, after discovery (the metadata topic is found by it). */
int ss_load_remote(struct segscan_scan *s);

#endif
