/* --remote-store URIs and AWS credentials files: see store_uri.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fmt/store_uri.h"

static int einval(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int einval(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Percent-decode s[0..n) into out (cap bytes with the NUL). -1 when malformed or too long
 * or when it decodes to a NUL. */
static int pct_decode(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			if (i + 2 >= n)
				return -1;
			int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
			if (h < 0 || l < 0 || (h == 0 && l == 0))
				return -1;
			c = (char)(h << 4 | l);
			i += 2;
		}
		if (o + 1 >= cap)
			return -1;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

static bool bucket_ok(const char *b, size_t n)
{
	if (n < 3 || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = b[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'))
			return false;
	}
	return isalnum((unsigned char)b[0]) && isalnum((unsigned char)b[n - 1]);
}

static int parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	if (!*v)
		return -1;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || x < lo || x > hi || v[0] == '+' || v[0] == '-' || v[0] == ' ')
		return -1;
	*out = x;
	return 0;
}

static int parse_query(const char *q, struct ss_store_uri *u, char *err, size_t errlen)
{
	while (*q) {
		const char *amp = strchr(q, '&');
		size_t n = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', n);
		if (!eq)
			return einval(err, errlen, "query parameter '%.*s' has no value", (int)(n > 64 ? 64 : n), q);
		size_t kl = (size_t)(eq - q);
		char val[SS_STORE_URI_MAX];
		if (pct_decode(eq + 1, n - kl - 1, val, sizeof(val)))
			return einval(err, errlen, "query parameter '%.*s': malformed or too long", (int)(kl > 64 ? 64 : kl), q);
		if (kl == 8 && !memcmp(q, "endpoint", 8)) {
			if (strncmp(val, "http://", 7) && strncmp(val, "https://", 8))
				return einval(err, errlen, "endpoint must be an http:// or https:// URL");
			size_t vl = strlen(val);
			while (vl && val[vl - 1] == '/')
				val[--vl] = 0;   /* the bucket is appended as a path */
			if (strchr(val + (val[4] == 's' ? 8 : 7), '?') || strchr(val, '#'))
				return einval(err, errlen, "endpoint must not have a query or fragment");
			snprintf(u->endpoint, sizeof(u->endpoint), "%s", val);
		} else if (kl == 6 && !memcmp(q, "region", 6)) {
			size_t vl = strlen(val);
			if (!vl || vl >= sizeof(u->region))
				return einval(err, errlen, "region must be 1 to %zu characters", sizeof(u->region) - 1);
			for (size_t i = 0; i < vl; i++)
				if (!isalnum((unsigned char)val[i]) && val[i] != '-' && val[i] != '_')
					return einval(err, errlen, "region must be letters, digits, '-' and '_'");
			memcpy(u->region, val, vl + 1);
		} else if (kl == 8 && !memcmp(q, "max-keys", 8)) {
			if (parse_int(val, 1, 1000, &u->max_keys))
				return einval(err, errlen, "max-keys must be from 1 to 1000");
		} else if (kl == 7 && !memcmp(q, "timeout", 7)) {
			if (parse_int(val, 1, 3600000, &u->timeout_ms))
				return einval(err, errlen, "timeout must be milliseconds from 1 to 3600000");
		} else {
			return einval(err, errlen, "unknown query parameter '%.*s' (endpoint, region, max-keys, timeout)",
				      (int)(kl > 64 ? 64 : kl), q);
		}
		if (!amp)
			break;
		q = amp + 1;
	}
	return 0;
}

int ss_store_uri_parse(const char *uri, struct ss_store_uri *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->max_keys = 1000;
	out->timeout_ms = 30000;
	if (!uri)
		return einval(err, errlen, "no URI");
	if (strlen(uri) >= SS_STORE_URI_MAX)
		return einval(err, errlen, "the URI is longer than %d bytes", SS_STORE_URI_MAX - 1);
	if (!strncmp(uri, "file://", 7)) {
		const char *p = uri + 7;
		if (*p != '/')
			return einval(err, errlen, "file:// needs an absolute path (file:///DIR)");
		if (strchr(p, '?') || strchr(p, '#'))
			return einval(err, errlen, "file:// takes no query or fragment");
		out->kind = SS_STORE_FILE;
		if (pct_decode(p, strlen(p), out->path, sizeof(out->path)))
			return einval(err, errlen, "malformed %%-escape in the path");
		size_t n = strlen(out->path);
		while (n > 1 && out->path[n - 1] == '/')
			out->path[--n] = 0;
		return 0;
	}
	if (!strncmp(uri, "s3://", 5)) {
		const char *b = uri + 5, *q = strchr(b, '?');
		if (strchr(b, '#'))
			return einval(err, errlen, "an s3:// URI takes no fragment");
		size_t rest = q ? (size_t)(q - b) : strlen(b);
		const char *slash = memchr(b, '/', rest);
		size_t bl = slash ? (size_t)(slash - b) : rest;
		if (!bucket_ok(b, bl))
			return einval(err, errlen, "'%.*s' is not a bucket name (3 to 63 of a-z, 0-9, '.', '-')",
				      (int)(bl > 80 ? 80 : bl), b);
		out->kind = SS_STORE_S3;
		memcpy(out->bucket, b, bl);
		out->bucket[bl] = 0;
		if (slash) {
			size_t pl = rest - bl - 1;
			if (pct_decode(slash + 1, pl, out->prefix, sizeof(out->prefix)))
				return einval(err, errlen, "the key prefix is malformed or longer than 1024 bytes");
		}
		return q ? parse_query(q + 1, out, err, errlen) : 0;
	}
	return einval(err, errlen, "not a file:///DIR or s3://BUCKET[/PREFIX] URI");
}

/* ---- the credentials file ---- */

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

static int put(char *dst, size_t cap, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);
	if (n >= cap)
		return -E2BIG;
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

int ss_aws_creds_parse(const char *buf, size_t len, const char *profile, struct ss_aws_creds *out, char *err,
		       size_t errlen)
{
	memset(out, 0, sizeof(*out));
	bool in = false, seen = false;
	size_t pl = strlen(profile);
	const char *p = buf, *end = buf + len;
	for (unsigned line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *s = p, *e = nl ? nl : end;
		p = nl ? nl + 1 : end;
		trim(&s, &e);
		if (s == e || *s == '#' || *s == ';')
			continue;
		if (memchr(s, 0, (size_t)(e - s)))
			return einval(err, errlen, "line %u: a NUL byte", line);
		if (*s == '[') {
			if (e[-1] != ']')
				return einval(err, errlen, "line %u: a section header without ']'", line);
			const char *ns = s + 1, *ne = e - 1;
			trim(&ns, &ne);
			in = (size_t)(ne - ns) == pl && !memcmp(ns, profile, pl);
			seen |= in;
			continue;
		}
		const char *eq = memchr(s, '=', (size_t)(e - s));
		if (!eq)
			return einval(err, errlen, "line %u: neither [section] nor key = value", line);
		if (!in)
			continue;
		const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
		trim(&ks, &ke);
		trim(&vs, &ve);
		size_t kl = (size_t)(ke - ks);
		int r = 0;
		if (kl == 17 && !strncasecmp(ks, "aws_access_key_id", 17))
			r = put(out->access_key, sizeof(out->access_key), vs, ve);
		else if (kl == 21 && !strncasecmp(ks, "aws_secret_access_key", 21))
			r = put(out->secret_key, sizeof(out->secret_key), vs, ve);
		else if (kl == 17 && !strncasecmp(ks, "aws_session_token", 17))
			r = put(out->session_token, sizeof(out->session_token), vs, ve);
		if (r) {
			if (err && errlen)
				snprintf(err, errlen, "line %u: the value is too long", line);
			return r;
		}
	}
	if (!seen) {
		if (err && errlen)
			snprintf(err, errlen, "no [%.64s] section", profile);
		return -ENOENT;
	}
	if (!out->access_key[0] || !out->secret_key[0]) {
		if (err && errlen)
			snprintf(err, errlen, "[%.64s] lacks aws_access_key_id or aws_secret_access_key", profile);
		return -ENOENT;
	}
	return 0;
}
