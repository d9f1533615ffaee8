/*
 * The free space of a log dir's filesystem, for --horizon (what the broker can still
 * write there before its disk is full).
 */
#ifndef SS_SOURCE_FSSTAT_H
#define SS_SOURCE_FSSTAT_H

#include <stdint.h>

/* The bytes an unprivileged writer may still allocate on the filesystem holding dir
 * (statvfs f_bavail x f_frsize; a Kafka broker rarely runs as root, so the root reserve is
 * not counted), through the one safe opener (the directory opened O_NONBLOCK and checked
 * on its descriptor, then fstatvfs). 0, or a negative errno (-ENOTDIR for what is not a
 * directory). */
int ss_source_free_bytes(const char *dir, int64_t *out);

#endif
