/*
 * Context sources: everything the evaluator needs besides the log dirs themselves, read
 * once before the workers start and read-only afterwards. Each source does the I/O and
 * hands bytes to a pure parser in src/fmt/; the evaluator (src/eval/) never touches the
 * filesystem.
 *
 *   source                       module                 delivers
 *   --topic-config               source/local_files.h   struct ss_config (fmt/config.h)
 *   --server-properties          source/local_files.h   struct ss_config: defaults, log.dirs
 *   --remote-state               source/local_files.h   struct ss_remote, STRICT (eval/remote.h)
 *   __remote_log_metadata-N dirs source/remote_topic.h  struct ss_remote, KAFKA mode
 *   (next) KRaft metadata log    source/metadata_log.h
 *   (next) a live cluster        source/cluster.h
 *
 * The loaders below fill a scan's context from its options (the scan handle holds the
 * delivered objects: scan/scan_int.h).
 */
#ifndef SS_SOURCE_CONTEXT_H
#define SS_SOURCE_CONTEXT_H

#include <stddef.h>

/* Names of the remote-state sources, as the store and the outputs report them. */
#define SS_SOURCE_REMOTE_STATE   "remote-state"
#define SS_SOURCE_METADATA_TOPIC "metadata-topic"

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
