/*
 * The open-file limit (RLIMIT_NOFILE), so that a low `ulimit -n` costs speed, never data
 * (issue 14 item 7: 256 fds and 16 threads gave 4,380 "Too many open files" errors).
 *
 * ss_fd_raise_soft: raises the soft limit to the hard one (capped at SS_FD_SOFT_MAX),
 *   once at start (the CLI); returns the soft limit in force afterwards.
 * ss_fd_soft: the soft limit now (RLIM_INFINITY as SS_FD_SOFT_MAX).
 * ss_fd_threads_cap / ss_fd_tasks_cap: how many workers, and how many tasks in flight
 *   per worker, the limit can hold open at once: each task keeps up to SS_FD_PER_TASK
 *   files open (.log, .index, .timeindex: src/scan/task.c), each worker one more for its
 *   engine (io_uring's ring), and SS_FD_RESERVE stay free for everything else (log dir
 *   descriptors, the HTTP server, stdio, libraries).
 * ss_fd_retry_wait: for an open that failed with EMFILE/ENFILE: sleeps a little longer
 *   each attempt (another worker closes meanwhile) and returns true while it is worth
 *   trying again (about 2 s in all), false when it is time to report the error.
 */
#ifndef SS_COMMON_FDLIMIT_H
#define SS_COMMON_FDLIMIT_H

#include <stdbool.h>

#define SS_FD_SOFT_MAX  (1u << 20)
#define SS_FD_PER_TASK  3u
#define SS_FD_RESERVE   48u

unsigned ss_fd_raise_soft(void);
unsigned ss_fd_soft(void);
unsigned ss_fd_threads_cap(unsigned threads);
unsigned ss_fd_tasks_cap(unsigned threads, unsigned tasks);
bool     ss_fd_retry_wait(unsigned attempt);

#endif
