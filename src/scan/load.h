/*
 * Loading what the evaluator needs before the workers start: topic configs,
 * server.properties, and the remote state (a --remote-state file or the log dirs'
 * __remote_log_metadata partitions). Everything here is read once, then read-only.
 */
#ifndef SS_SCAN_LOAD_H
#define SS_SCAN_LOAD_H

#include <stddef.h>

struct segscan_scan;

/* --topic-config and --server-properties. A bad file sets usage_error (exit 2). */
int ss_load_configs(struct segscan_scan *s);
/* The --remote-state file alone: needs nothing from discovery, so it can be read on a
 * thread while discovery walks the log dirs. Errors go to err (usage_error is set). */
int ss_load_remote_file(struct segscan_scan *s, char *err, size_t errlen);
/* Remote state after discovery: the file (unless already loaded) and its topic-id
 * check, or the metadata topic found by discovery. */
int ss_load_remote(struct segscan_scan *s);

#endif
