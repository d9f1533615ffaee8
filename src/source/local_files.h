/*
 * Context source: the local input files the user names. Each is read whole (a regular
 * file, a pipe or FIFO read to its end, or stdin for "-"; opened O_NONBLOCK and checked
 * with fstat first, so a device or a directory is refused without a read) and handed to
 * its pure parser in src/fmt/:
 *
 *   --topic-config       fmt/config.h  ss_config_load_topics_buf  -> struct ss_config
 *   --server-properties  fmt/config.h  ss_config_load_server_buf  -> struct ss_config
 *   --remote-state       fmt/ndjson.h  ss_ndjson_parse            -> struct ss_remote (STRICT)
 *
 * Every function returns 0 or what the read or the parser returned, with a message in
 * err: "OPTION PATH: cannot open: ..." / "cannot read: ..." for I/O, the parser's
 * "PATH:LINE: problem" otherwise.
 */
#ifndef SS_SOURCE_LOCAL_FILES_H
#define SS_SOURCE_LOCAL_FILES_H

#include <stddef.h>

struct ss_config;
struct ss_remote;

/* The largest input file accepted (-EFBIG beyond): a bound for an endless stream, far
 * above any real config (one line per topic) or remote-state file (a line per event). */
#define SS_SOURCE_CONFIG_MAX  ((size_t)256 << 20)
#define SS_SOURCE_STATE_MAX   ((size_t)1 << 34)

/* PATH ("-" = stdin) whole into *buf (malloc'd, NUL-terminated, freed by the caller).
 * `what` names the option in messages. */
int ss_source_read_input(const char *what, const char *path, size_t max, char **buf, size_t *len, char *err,
			 size_t errlen);

/* --topic-config PATH into c. */
int ss_source_topic_config(struct ss_config *c, const char *path, char *err, size_t errlen);
/* --server-properties PATH into c (broker defaults, log.dirs). */
int ss_source_server_properties(struct ss_config *c, const char *path, char *err, size_t errlen);
/* --remote-state PATH: every event applied in file order to r (ss_remote_apply). */
int ss_source_remote_state(struct ss_remote *r, const char *path, char *err, size_t errlen);
/* The same, reporting progress in events to a scan's log sink (common/log.h; NULL none). */
struct ss_logsink;
int ss_source_remote_state_log(struct ss_remote *r, const char *path, struct ss_logsink *log, char *err,
			       size_t errlen);

#endif
