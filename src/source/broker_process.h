/*
 * The running broker's own configuration, found the way an operator would: its command
 * line. Kafka's kafka-server-start.sh runs `java ... kafka.Kafka <server.properties>`, so
 * /proc/<pid>/cmdline names the file that holds this broker's static configs
 * (STATIC_BROKER_CONFIG), metadata.log.dir and node.id. A candidate is taken only when its
 * log.dirs (or log.dir) lists one of the scanned log dirs, so another broker on the same
 * host never lends its config.
 *
 * Read-only: /proc/<pid>/cmdline, /proc/<pid>/cwd (a relative path) and the properties
 * file are read; nothing is signalled or written. A /proc mounted with hidepid, a process
 * that exits meanwhile, or a file we may not read is skipped (the last says so).
 */
#ifndef SS_SOURCE_BROKER_PROCESS_H
#define SS_SOURCE_BROKER_PROCESS_H

#include <stdint.h>

struct ss_broker_config {
	char *path;   /* the broker's properties file; NULL when none was found */
	int   pid;    /* its process, -1 */
	int   err;    /* 0, or why the file could not be read (path is then a broker's, unverified) */
};

/* proc_root: "/proc" (NULL) or a test tree laid out like it. 0 (found or not: see
 * out->path) or -ENOMEM. Release with ss_broker_config_release. */
int  ss_broker_config_find(const char *proc_root, char *const *logdirs, uint32_t n_logdirs,
			   struct ss_broker_config *out);
void ss_broker_config_release(struct ss_broker_config *b);

#endif
