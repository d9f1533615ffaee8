/*
 * Change detection for serve's rescans: inotify watches on each log dir and on each live
 * partition directory in it, so a rescan knows which partitions saw no change since the
 * previous scan began and can take them whole from it (segscan_reuse_unchanged) instead
 * of listing their directories and statting their segments.
 *
 * What counts as a change: any event inotify reports for an entry of a partition
 * directory (IN_CREATE, IN_DELETE, IN_MOVED_FROM/TO: Kafka's rolls, retention's
 * ".deleted" renames and unlinks, the cleaner's .cleaned/.swap files, checkpoints
 * replaced by rename), IN_MODIFY (an append, a truncation: FileChannel.write and
 * truncate; setLength for preallocation), IN_ATTRIB (mode, owner, times, link count), and
 * the directory itself renamed or deleted (a -delete rename, a -future promotion seen on
 * the log dir's watch). Writes through a shared mapping are not reported by inotify:
 * Kafka writes its .index and .timeindex that way, but only next to an append to the
 * .log, which is reported.
 *
 * Epochs: every scan opens one with its generation (ss_watch_begin, before the scan
 * reads anything); a directory's stamp is the epoch in which its last event was seen or
 * its watch was armed. It is unchanged since the scan `prev` began iff it is watched and
 * its stamp is older than prev. ss_watch_begin drains the queue itself, under the lock,
 * so every event of a write that completed before the scan started is stamped before
 * the scan asks; a thread drains it between scans so the kernel queue does not overflow.
 * An overflow (IN_Q_OVERFLOW) marks everything changed; a watch the limit refuses
 * (fs.inotify.max_user_watches) leaves that directory on the full path.
 *
 * Read-only: inotify watches are kernel state; nothing is written in a log dir.
 */
#ifndef SS_SERVICE_WATCH_H
#define SS_SERVICE_WATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

struct ss_watch;

struct ss_watch_info {
	uint64_t watched;     /* partition directories watched now */
	uint64_t refused;     /* partition directories the watch limit refused (not watched) */
	uint64_t newly_refused;/* of those, refused in this ss_watch_begin */
	uint64_t overflows;   /* queue overflows since the previous ss_watch_begin */
	uint64_t events;      /* events read since the previous ss_watch_begin */
	int      limit_err;   /* the error of the first refusal in this begin (-ENOSPC), or 0 */
	char     limit_dir[PATH_MAX]; /* the directory of that first refusal, or "" */
	int      log_err;     /* a log dir's own watch refused in this begin with a new error
			       * (not -ENOENT: a missing log dir is the scan's to report), or 0 */
	char     log_dir[PATH_MAX];   /* that log dir, or "" */
};

/* An inotify instance and its draining thread. max_watches > 0 caps the watches (a test
 * knob standing in for fs.inotify.max_user_watches); 0 = the kernel's limit. Returns 0 or
 * a negative errno (inotify_init1's: -EMFILE at fs.inotify.max_user_instances). */
int  ss_watch_new(struct ss_watch **out, uint64_t max_watches);
/* Stops the thread, closes the instance (the kernel drops every watch). NULL is fine. */
void ss_watch_free(struct ss_watch *w);

/* A log dir to watch, by the path the scan is given (idempotent). Log dirs the scan
 * names itself (log.dirs of --server-properties) are registered by ss_watch_unchanged
 * the first time it is asked about them. Returns 0 or -ENOMEM. */
int  ss_watch_add_logdir(struct ss_watch *w, const char *path);

/* Before the scan `gen` whose previous scan is `prev_gen` (0: none): drains the queue,
 * arms the log dirs and partition directories not yet watched (listing a log dir that
 * was newly armed or lost events), opens epoch gen. full (the periodic safety net):
 * lists every log dir again and retries directories the limit refused. */
int  ss_watch_begin(struct ss_watch *w, uint64_t gen, uint64_t prev_gen, bool full, struct ss_watch_info *info);

/* segscan_unchanged_fn, arg = the ss_watch: log_dir/dir watched without an event since
 * the scan prev_gen (of the last ss_watch_begin) began. */
bool ss_watch_unchanged(void *arg, const char *log_dir, const char *dir);

#endif
