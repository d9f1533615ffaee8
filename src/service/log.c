/* logfmt logger for the service (see log.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "segscan.h"
#include "service/log.h"

static void put(struct ss_logline *l, const char *s, size_t n)
{
	/* keep one byte for the newline that ss_log_end appends */
	size_t room = sizeof(l->buf) - 1 - l->len;
	if (n > room) {
		n = room;
		l->truncated = 1;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

static int needs_quote(const char *v)
{
	if (!*v)
		return 1;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p <= ' ' || *p == '=' || *p == '"' || *p == '\\' || *p == 0x7f)
			return 1;
	return 0;
}

size_t ss_logfmt_value(char *out, size_t cap, const char *value)
{
	size_t n = 0;
#define EMIT(ch) do { if (n + 1 < cap) out[n] = (ch); n++; } while (0)
	if (!needs_quote(value)) {
		for (const char *p = value; *p; p++)
			EMIT(*p);
	} else {
		EMIT('"');
		for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
			if (*p == '"' || *p == '\\') {
				EMIT('\\');
				EMIT((char)*p);
			} else if (*p == '\n') {
				EMIT('\\');
				EMIT('n');
			} else if (*p == '\t') {
				EMIT('\\');
				EMIT('t');
			} else if (*p < ' ' || *p == 0x7f) {
				static const char hex[] = "0123456789abcdef";
				EMIT('\\');
				EMIT('x');
				EMIT(hex[*p >> 4]);
				EMIT(hex[*p & 15]);
			} else {
				EMIT((char)*p);
			}
		}
		EMIT('"');
	}
#undef EMIT
	if (cap)
		out[n < cap ? n : cap - 1] = 0;
	return n;
}

void ss_log_str(struct ss_logline *l, const char *key, const char *value)
{
	char tmp[2048];
	size_t n = ss_logfmt_value(tmp, sizeof(tmp), value ? value : "");
	if (n >= sizeof(tmp)) {
		n = sizeof(tmp) - 1;
		l->truncated = 1;
	}
	put(l, " ", 1);
	put(l, key, strlen(key));
	put(l, "=", 1);
	put(l, tmp, n);
}

void ss_log_fmt(struct ss_logline *l, const char *key, const char *fmt, ...)
{
	char v[1024];
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	if (r < 0)
		v[0] = 0;
	else if ((size_t)r >= sizeof(v))
		l->truncated = 1;
	ss_log_str(l, key, v);
}

void ss_log_begin(struct ss_logline *l, const char *level, const char *msg)
{
	struct timeval tv;
	struct tm tm;
	char ts[64];
	l->len = 0;
	l->truncated = 0;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	size_t n = strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + n, sizeof(ts) - n, ".%03ldZ", (long)(tv.tv_usec / 1000));
	put(l, "ts=", 3);
	put(l, ts, strlen(ts));
	ss_log_str(l, "level", level);
	ss_log_str(l, "msg", msg);
}

void ss_log_end(struct ss_logline *l)
{
	if (l->truncated) {
		/* say so rather than emit a line that silently lost its tail */
		static const char t[] = " truncated=true";
		size_t room = sizeof(l->buf) - 1 - l->len;
		size_t need = sizeof(t) - 1;
		if (room < need)
			l->len = sizeof(l->buf) - 1 - need;
		memcpy(l->buf + l->len, t, need);
		l->len += need;
	}
	l->buf[l->len++] = '\n';
	const char *p = l->buf;
	size_t left = l->len;
	while (left) {
		ssize_t w = write(STDERR_FILENO, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return; /* nowhere left to report a failing stderr */
		}
		p += w;
		left -= (size_t)w;
	}
}

void ss_log(const char *level, const char *msg, const char *err)
{
	struct ss_logline l;
	ss_log_begin(&l, level, msg);
	if (err)
		ss_log_str(&l, "err", err);
	ss_log_end(&l);
}

void ss_log_scan_event(void *user, const struct segscan_log_event *ev)
{
	(void)user;
	if (ev->kind != SEGSCAN_LOG_MESSAGE || !ev->message)
		return;   /* progress lines would break the logfmt stream */
	const char *level = ev->level == SEGSCAN_LOG_ERROR     ? "error"
			    : ev->level == SEGSCAN_LOG_WARNING ? "warn"
			    : ev->level == SEGSCAN_LOG_INFO    ? "info"
							       : "debug";
	ss_log(level, ev->message, NULL);
}
