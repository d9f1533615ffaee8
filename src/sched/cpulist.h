/* The cpulist syntax: sysfs's node<N>/cpulist and cpu/online, cpuset(7), --avoid-cpus. */
#ifndef SS_SCHED_CPULIST_H
#define SS_SCHED_CPULIST_H

#include <sched.h>
#include <stddef.h>

/*
 * cpulist syntax of sysfs and cpuset(7): comma-separated ids and inclusive ranges,
 * "0-3,8,10-11", optional trailing newline; "" (a CPU-less node) is the empty set.
 * Ranges with a stride ("0-7:2") are rejected. 0, -EINVAL, -ERANGE (id >= CPU_SETSIZE).
 */
int  ss_cpulist_parse(const char *s, cpu_set_t *out);
/* Writes the canonical cpulist of a set ("" when empty), ranges for runs of two or
 * more as the kernel prints them. 0, or -ENOSPC if it does not fit in len bytes
 * including the NUL (buf then holds the items that fit, NUL-terminated, when len > 0). */
int  ss_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

#endif /* SS_SCHED_CPULIST_H */
