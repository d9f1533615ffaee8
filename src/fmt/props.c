/* Java properties files and meta.properties: see props.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ascii.h"
#include "common/darray.h"
#include "fmt/lines.h"
#include "fmt/props.h"
#include "segscan.h"

static int pfail(char *err, size_t errlen, const char *fname, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int pfail(char *err, size_t errlen, const char *fname, unsigned line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (line) {
		ss_line_verror(err, errlen, fname, line, fmt, ap);
	} else if (err && errlen) {   /* about the whole file (a key it lacks) */
		char what[512];
		vsnprintf(what, sizeof(what), fmt, ap);
		snprintf(err, errlen, "%s: %s", fname, what);
	}
	va_end(ap);
	return SEGSCAN_ECONFIG;
}

/* Properties.loadConvert: \uXXXX (to UTF-8), \t \n \r \f, \x -> x. */
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
					return SEGSCAN_ECONFIG;
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

/* One logical line (continuations already joined, leading whitespace skipped). */
static int entry(const char *s, size_t len, const char *fname, unsigned line, ss_props_cb cb, void *arg, char *err,
		 size_t errlen)
{
	size_t i = 0;
	/* the key ends at the first unescaped '=', ':' or whitespace */
	while (i < len) {
		if (s[i] == '\\') {
			i += 2;
			continue;
		}
		if (s[i] == '=' || s[i] == ':' || s[i] == ' ' || s[i] == '\t' || s[i] == '\f')
			break;
		i++;
	}
	if (i > len)
		i = len;
	size_t klen = i;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'))
		i++;
	if (i < len && (s[i] == '=' || s[i] == ':'))
		i++;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'))
		i++;
	char *key = NULL, *val = NULL;
	int e = unescape(s, klen, &key);
	if (e)
		return e == SEGSCAN_ECONFIG ? pfail(err, errlen, fname, line, "malformed \\uxxxx escape in a key") : e;
	/* Java rejects a bad escape anywhere, even in values nobody reads */
	if ((e = unescape(s + i, len - i, &val))) {
		if (e == SEGSCAN_ECONFIG)
			e = pfail(err, errlen, fname, line, "malformed \\uxxxx escape in a value");
		free(key);
		return e;
	}
	e = cb(arg, key, val, line);
	free(key);
	free(val);
	return e;
}

int ss_props_parse(const char *buf, size_t len, const char *fname, ss_props_cb cb, void *arg, char *err,
		   size_t errlen)
{
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_JAVA);   /* natural lines: \n, \r, \r\n */
	char *logical = NULL;
	uint32_t cap = 0;
	const char *s;
	size_t sl;
	int e = 0;

	if (!fname)
		fname = "-";
	if (err && errlen)
		err[0] = '\0';
	while (ss_lines_next(&l, &s, &sl)) {
		const char *a = s, *end = s + sl;
		while (a < end && (*a == ' ' || *a == '\t' || *a == '\f'))
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
			while (a < end && (*a == ' ' || *a == '\t' || *a == '\f'))
				a++;
		}
		if ((e = entry(logical, n, fname, line, cb, arg, err, errlen)))
			goto out;
	}
out:
	free(logical);
	return e;
}

/* ---- meta.properties ------------------------------------------------------------------ */

enum { MK_VERSION, MK_NODE, MK_BROKER, MK_CLUSTER, MK_DIRECTORY, MK_N };
static const char *const meta_keys[MK_N] = { "version", "node.id", "broker.id", "cluster.id", "directory.id" };

struct meta_ctx {
	char    *val[MK_N];
	unsigned line[MK_N];
};

static int meta_cb(void *arg, const char *key, const char *val, unsigned line)
{
	struct meta_ctx *m = arg;
	for (int k = 0; k < MK_N; k++) {
		if (strcmp(key, meta_keys[k]) != 0)
			continue;
		char *v = strdup(val);
		if (!v)
			return -ENOMEM;
		free(m->val[k]);   /* the last occurrence wins, as in Properties */
		m->val[k] = v;
		m->line[k] = line;
	}
	return 0;
}

/* Integer.parseInt: an optional sign and decimal digits, nothing else (no whitespace). */
static bool parse_int(const char *s, int64_t *out)
{
	const char *p = s;
	bool neg = false;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!*p)
		return false;
	int64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > (int64_t)INT32_MAX + 1)
			return false;
	}
	v = neg ? -v : v;
	if (v > INT32_MAX || v < INT32_MIN)
		return false;
	*out = v;
	return true;
}

int ss_meta_props_parse(const char *buf, size_t len, const char *fname, struct ss_meta_props *out, char *err,
			size_t errlen)
{
	struct meta_ctx m;
	int64_t v;
	int e;

	memset(&m, 0, sizeof(m));
	memset(out, 0, sizeof(*out));
	out->node_id = -1;
	if (!fname)
		fname = "meta.properties";
	if ((e = ss_props_parse(buf, len, fname, meta_cb, &m, err, errlen)))
		goto out;
	/* MetaPropertiesVersion.fromNumberString: 0 when absent, else 0 or 1 */
	if (m.val[MK_VERSION]) {
		if (!parse_int(m.val[MK_VERSION], &v) || (v != 0 && v != 1)) {
			e = pfail(err, errlen, fname, m.line[MK_VERSION], "version: not a meta.properties version "
				  "Kafka knows (0 or 1)");
			goto out;
		}
		out->version = (int)v;
	}
	/* version 1 always has node.id; version 0 may have broker.id */
	int k = out->version == 1 ? MK_NODE : MK_BROKER;
	if (m.val[k]) {
		if (!parse_int(m.val[k], &v) || v < 0) {
			e = pfail(err, errlen, fname, m.line[k], "%s: not a node id (a base-10 number, 0 or more)",
				  meta_keys[k]);
			goto out;
		}
		out->node_id = (int32_t)v;
	} else if (out->version == 1) {
		e = pfail(err, errlen, fname, 0, "version 1 without node.id (Kafka requires it)");
		goto out;
	}
	if (m.val[MK_CLUSTER]) {
		out->cluster_id = m.val[MK_CLUSTER];
		m.val[MK_CLUSTER] = NULL;
	} else if (out->version == 1) {
		e = pfail(err, errlen, fname, 0, "version 1 without cluster.id (Kafka requires it)");
		goto out;
	}
	if (m.val[MK_DIRECTORY])
		snprintf(out->directory_id, sizeof(out->directory_id), "%s", m.val[MK_DIRECTORY]);
	e = 0;
out:
	for (int i = 0; i < MK_N; i++)
		free(m.val[i]);
	if (e)
		ss_meta_props_free(out);
	return e;
}

void ss_meta_props_free(struct ss_meta_props *m)
{
	if (!m)
		return;
	free(m->cluster_id);
	m->cluster_id = NULL;
	m->node_id = -1;
}
