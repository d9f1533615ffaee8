/*
 * The YAML subset of the Prometheus-style config files segscan reads (--web.config.file,
 * service/webconfig.c; --http.config.file, fmt/httpconf.c): "key: value" lines, one level
 * of mappings by indentation, '#' comments, one level of quotes. One copy of the scalar
 * rule for both.
 */
#ifndef SS_FMT_YAMLKV_H
#define SS_FMT_YAMLKV_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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

#endif
