/* The Java-properties reader: see properties.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ascii.h"
#include "common/darray.h"
#include "fmt/lines.h"
#include "fmt/properties.h"

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\f';
}

/* Properties.loadConvert: \uXXXX (to UTF-8), \t \n \r \f, \x -> x. 1: a malformed \uXXXX. */
static int unescape(const char *s, size_t len, char **out)
{
	char *o = malloc(len * 3 + 1);   /* a 6-char \uXXXX becomes at most 3 bytes */
	if (!o)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];
		if (ch != '\\' || i + 1 == len) {
			o[n++] = ch;
			continue;
		}
		ch = s[++i];
		if (ch == 'u') {
			unsigned cp = 0;
			for (int k = 1; k <= 4; k++) {
				int h = i + (size_t)k < len ? ss_hexval(s[i + (size_t)k]) : -1;
				if (h < 0) {
					free(o);
					return 1;
				}
				cp = cp << 4 | (unsigned)h;
			}
			i += 4;
			if (cp < 0x80) {
				o[n++] = (char)cp;
			} else if (cp < 0x800) {
				o[n++] = (char)(0xc0 | cp >> 6);
				o[n++] = (char)(0x80 | (cp & 0x3f));
			} else {
				o[n++] = (char)(0xe0 | cp >> 12);
				o[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				o[n++] = (char)(0x80 | (cp & 0x3f));
			}
		} else {
			o[n++] = ch == 't' ? '\t' : ch == 'n' ? '\n' : ch == 'r' ? '\r' : ch == 'f' ? '\f' : ch;
		}
	}
	o[n] = '\0';
	*out = o;
	return 0;
}

/* One logical line (continuations joined, leading blanks skipped) as an entry. */
static int entry(const char *s, size_t len, unsigned line, ss_props_fn fn, void *arg)
{
	size_t i = 0;
	/* the key ends at the first unescaped '=', ':' or blank */
	while (i < len) {
		if (s[i] == '\\') {
			i += 2;
			continue;
		}
		if (s[i] == '=' || s[i] == ':' || blank(s[i]))
			break;
		i++;
	}
	if (i > len)
		i = len;
	size_t klen = i;
	while (i < len && blank(s[i]))
		i++;
	if (i < len && (s[i] == '=' || s[i] == ':'))
		i++;
	while (i < len && blank(s[i]))
		i++;
	struct ss_props_entry e = { .line = line };
	char *key = NULL, *val = NULL;
	int r = unescape(s, klen, &key);
	if (r < 0)
		return r;
	if (r) {
		e.bad = SS_PROPS_BAD_KEY;
		return fn(arg, &e);
	}
	if ((r = unescape(s + i, len - i, &val)) < 0) {
		free(key);
		return r;
	}
	e.key = key;
	e.val = val;
	e.bad = r ? SS_PROPS_BAD_VALUE : SS_PROPS_OK;
	r = fn(arg, &e);
	free(key);
	free(val);
	return r;
}

int ss_props_parse(const char *buf, size_t len, ss_props_fn fn, void *arg)
{
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_JAVA);   /* natural lines: \n, \r, \r\n */
	char *logical = NULL;
	uint32_t cap = 0;
	const char *s;
	size_t sl;
	int e = 0;

	while (!e && ss_lines_next(&l, &s, &sl)) {
		const char *a = s, *end = s + sl;
		while (a < end && blank(*a))
			a++;
		if (a == end || *a == '#' || *a == '!')
			continue;   /* blank or comment: a trailing backslash does not continue it */
		unsigned line = l.no;
		size_t n = 0;
		for (;;) {
			size_t seg = (size_t)(end - a);
			if (SS_DA_RESERVE(&logical, &cap, (uint64_t)n + seg + 1) < 0) {
				e = -ENOMEM;
				goto out;
			}
			memcpy(logical + n, a, seg);
			n += seg;
			/* an odd number of trailing backslashes continues the line */
			size_t bs = 0;
			while (bs < n && logical[n - 1 - bs] == '\\')
				bs++;
			if (!(bs & 1))
				break;
			n--;   /* drop the continuation backslash */
			if (!ss_lines_next(&l, &s, &sl))
				break;
			a = s;
			end = s + sl;
			while (a < end && blank(*a))
				a++;
		}
		e = entry(logical, n, line, fn, arg);
	}
out:
	free(logical);
	return e;
}
