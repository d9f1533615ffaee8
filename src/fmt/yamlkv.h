/*
 * The YAML subset of the Prometheus-style config files segscan reads (--web.config.file,
 * service/webconfig.c; --http.config.file, fmt/httpconf.c): "key: value" lines, one level
 * of mappings by indentation, '#' comments, one level of quotes. One copy of the line
 * walk and the scalar rule for both:
 *
 *   struct ss_yaml_lines it = ss_yaml_lines_init(buf, len);
 *   struct ss_yaml_kv kv;
 *   const char *why;
 *   int r;
 *   while ((r = ss_yaml_next(&it, &kv, &why)) > 0) { ... kv.indent == 0: a section ... }
 *   if (r < 0) ... why, at line it.l.no ...
 */
#ifndef SS_FMT_YAMLKV_H
#define SS_FMT_YAMLKV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fmt/lines.h"
#include "segscan.h"

/* Both parsers' error: "FILE:LINE: problem" in err; SEGSCAN_ECONFIG. */
static inline int __attribute__((format(printf, 5, 6)))
ss_yaml_bad(char *err, size_t errlen, const char *fname, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errlen)
		snprintf(err, errlen, "%s:%u: %s", fname, line, msg);
	return SEGSCAN_ECONFIG;
}

static inline bool ss_yaml_ws(char ch) { return ch == ' ' || ch == '\t'; }

/* A scalar: trimmed, '#' comment dropped (outside quotes), one level of quotes removed.
 * false for an unterminated quote, or anything but a comment after the closing one. */
static inline bool ss_yaml_scalar(const char *s, size_t n, const char **v, size_t *vn)
{
	while (n && ss_yaml_ws(*s))
		s++, n--;
	if (n && (*s == '\'' || *s == '"')) {
		const char *e = memchr(s + 1, *s, n - 1);
		if (!e)
			return false;
		for (const char *p = e + 1; p < s + n; p++) {
			if (*p == '#')
				break;
			if (!ss_yaml_ws(*p))
				return false;
		}
		*v = s + 1;
		*vn = (size_t)(e - s - 1);
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i] == '#' && (i == 0 || ss_yaml_ws(s[i - 1]))) {
			n = i;
			break;
		}
	while (n && ss_yaml_ws(s[n - 1]))
		n--;
	*v = s;
	*vn = n;
	return true;
}

struct ss_yaml_lines {
	struct ss_lines l; /* l.no: the number of the line last returned (0 before the first) */
};

/* One "key: value" line: its indentation, key and value (ss_yaml_scalar's), pointing into
 * the caller's buffer. */
struct ss_yaml_kv {
	size_t      indent;
	const char *k, *v;
	size_t      kn, vn;
};

static inline struct ss_yaml_lines ss_yaml_lines_init(const char *buf, size_t len)
{
	struct ss_yaml_lines it = { ss_lines_init(buf, len, SS_LINES_LF) };
	return it;
}

/* The next key/value line, blank and comment lines skipped, a CRLF's '\r' dropped: 1 with
 * *kv set, 0 at the end, -1 for a line the subset does not take, with *why the reason
 * (the caller names the file and line it.l.no). The caller refuses a NUL byte first. */
static inline int ss_yaml_next(struct ss_yaml_lines *it, struct ss_yaml_kv *kv, const char **why)
{
	const char *s;
	size_t n;
	while (ss_lines_next(&it->l, &s, &n)) {
		if (n && s[n - 1] == '\r')
			n--;
		size_t ind = 0;
		while (ind < n && ss_yaml_ws(s[ind]))
			ind++;
		if (ind == n || s[ind] == '#')
			continue; /* blank or comment */
		if (s[ind] == '-')
			return *why = "YAML lists are not supported here", -1;
		const char *colon = memchr(s + ind, ':', n - ind);
		if (!colon || (colon + 1 < s + n && !ss_yaml_ws(colon[1])))
			return *why = "expected \"key: value\"", -1;
		if (!ss_yaml_scalar(s + ind, (size_t)(colon - s - ind), &kv->k, &kv->kn) || kv->kn == 0)
			return *why = "empty or malformed key", -1;
		if (!ss_yaml_scalar(colon + 1, (size_t)(s + n - colon - 1), &kv->v, &kv->vn))
			return *why = "unterminated quote", -1;
		kv->indent = ind;
		return 1;
	}
	return 0;
}

#endif
