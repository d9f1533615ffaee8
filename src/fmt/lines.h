/*
 * The one line splitter of the text parsers: a cursor over buf[0..len) that yields each
 * line without its terminator. A terminator at the very end yields no empty last line.
 *
 *   SS_LINES_LF   lines end at '\n' only; a '\r' stays in the line (NDJSON, --topic-config)
 *   SS_LINES_JAVA lines end at '\n', '\r' or "\r\n", as java.io.BufferedReader.readLine and
 *                 the natural lines of java.util.Properties.load (checkpoint files,
 *                 partition.metadata, server.properties)
 *
 *   struct ss_lines l = ss_lines_init(buf, len, SS_LINES_JAVA);
 *   const char *s; size_t n;
 *   while (ss_lines_next(&l, &s, &n)) { ... l.no is the 1-based number of that line ... }
 */
#ifndef SS_FMT_LINES_H
#define SS_FMT_LINES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum ss_lines_mode { SS_LINES_LF, SS_LINES_JAVA };

struct ss_lines {
	const char        *p, *end;
	unsigned           no;     /* lines returned so far */
	enum ss_lines_mode mode;
};

static inline struct ss_lines ss_lines_init(const char *buf, size_t len, enum ss_lines_mode mode)
{
	struct ss_lines l = { buf, buf ? buf + len : buf, 0, mode };
	return l;
}

static inline bool ss_lines_next(struct ss_lines *l, const char **s, size_t *n)
{
	if (l->p >= l->end)
		return false;
	const char *b = l->p, *e;
	if (l->mode == SS_LINES_LF) {
		e = memchr(b, '\n', (size_t)(l->end - b));
		if (!e)
			e = l->end;
		l->p = e < l->end ? e + 1 : e;
	} else {
		e = b;
		while (e < l->end && *e != '\n' && *e != '\r')
			e++;
		l->p = e;
		if (l->p < l->end) {
			if (*l->p == '\r' && l->p + 1 < l->end && l->p[1] == '\n')
				l->p++;
			l->p++;
		}
	}
	*s = b;
	*n = (size_t)(e - b);
	l->no++;
	return true;
}

/* Every line in order to fn (no: its 1-based number); stops at fn's first nonzero
 * return and returns it. */
typedef int (*ss_line_fn)(void *arg, unsigned no, const char *s, size_t n);
static inline int ss_lines_each(const char *buf, size_t len, enum ss_lines_mode mode, ss_line_fn fn, void *arg)
{
	struct ss_lines l = ss_lines_init(buf, len, mode);
	const char *s;
	size_t n;
	int e;
	while (ss_lines_next(&l, &s, &n))
		if ((e = fn(arg, l.no, s, n)))
			return e;
	return 0;
}

/* The line parsers' one message form, "FILE:LINE: what", into err (if given). */
static inline void ss_line_verror(char *err, size_t errlen, const char *fname, unsigned long line, const char *fmt,
				  va_list ap)
{
	if (!err || !errlen)
		return;
	char what[512];
	vsnprintf(what, sizeof(what), fmt, ap);
	snprintf(err, errlen, "%s:%lu: %s", fname, line, what);
}

#endif
