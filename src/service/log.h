/*
 * logfmt lines on stderr for `segscan serve`:
 *   ts=2026-11-29T17:24:34.123Z level=info msg="scan complete" generation=3 segments=120
 * A line is built in a stack buffer and written with one write(2), so lines from the
 * scan thread, the HTTP thread and the main thread never interleave.
 */
#ifndef SS_SERVICE_LOG_H
#define SS_SERVICE_LOG_H

#include <stddef.h>

struct ss_logline {
	char   buf[4096];
	size_t len;
	int    truncated;
};

/* level: "debug" | "info" | "warn" | "error" */
void ss_log_begin(struct ss_logline *l, const char *level, const char *msg);
/* key=value; the value is quoted (with \" \\ \n \t escapes) when it holds a space, '=',
 * a quote, a control byte, or is empty. */
void ss_log_str(struct ss_logline *l, const char *key, const char *value);
void ss_log_fmt(struct ss_logline *l, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends the newline and writes the line to stderr. */
void ss_log_end(struct ss_logline *l);

/* One-shot: a line with only ts, level and msg (plus err= when err is non-NULL). */
void ss_log(const char *level, const char *msg, const char *err);

/* segscan_log_fn (include/segscan.h) for serve's scans: each message of the library a
 * logfmt line (level error/warn/info/debug, msg the text); progress is not logged. */
struct segscan_log_event;
void ss_log_scan_event(void *user, const struct segscan_log_event *ev);

/* The logfmt value quoting on its own (used by the tests): writes at most cap-1 bytes
 * and a NUL; returns the length the full value needs. */
size_t ss_logfmt_value(char *out, size_t cap, const char *value);

#endif
