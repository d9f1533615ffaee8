/*
 * The two texts of /proc/PID the running broker's discovery reads
 * (source/broker_process.c), parsed without I/O:
 *
 * ss_procfs_uids: the four uids of status's "Uid:" line (real, effective, saved,
 *   filesystem: proc(5)). false when the line is missing, short, or holds anything but
 *   four decimal uids: an owner not known is not trusted.
 * ss_procfs_kafka_config: the properties file a broker's cmdline (NUL-separated argv,
 *   len bytes) names: the argument right after the main class kafka.Kafka, as
 *   kafka-server-start.sh runs `kafka.Kafka server.properties [--override k=v ...]`.
 *   cmd[len] must be a NUL (ss_read_file gives one): a process that rewrote its argv may
 *   leave the last argument unterminated. A pointer into cmd; NULL when the process is
 *   not a broker.
 */
#ifndef SS_FMT_PROCFS_H
#define SS_FMT_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool        ss_procfs_uids(const char *status, size_t len, uint32_t uid[4]);
const char *ss_procfs_kafka_config(const char *cmd, size_t len);

#endif
