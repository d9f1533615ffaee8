/* --web.config.file: see webconfig.h. */
#include "service/webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/darray.h"
#include "common/file.h"
#include "fmt/lines.h"
#include "segscan.h"

static int bad(char *err, size_t errlen, const char *fname, unsigned line, const char *fmt, ...)
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

static bool ws(char ch) { return ch == ' ' || ch == '\t'; }

/* A scalar: trimmed, '#' comment dropped (outside quotes), one level of quotes removed.
 * false for an unterminated quote. */
static bool scalar(const char *s, size_t n, const char **v, size_t *vn)
{
	while (n && ws(*s))
		s++, n--;
	if (n && (*s == '\'' || *s == '"')) {
		const char *e = memchr(s + 1, *s, n - 1);
		if (!e)
			return false;
		/* only a comment may follow the closing quote */
		for (const char *p = e + 1; p < s + n; p++) {
			if (*p == '#')
				break;
			if (!ws(*p))
				return false;
		}
		*v = s + 1;
		*vn = (size_t)(e - s - 1);
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i] == '#' && (i == 0 || ws(s[i - 1]))) {
			n = i;
			break;
		}
	while (n && ws(s[n - 1]))
		n--;
	*v = s;
	*vn = n;
	return true;
}

static int set_str(char **dst, const char *v, size_t vn)
{
	char *s = strndup(v, vn);
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int ss_web_config_parse(const char *buf, size_t len, const char *fname, struct ss_web_config *c, char *err,
			size_t errlen)
{
	enum { TOP, TLS, USERS } sect = TOP;
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_LF);
	const char *s;
	size_t n;
	unsigned line = 0;
	int r;
	if (!fname)
		fname = "web config";
	if (memchr(buf, 0, len))
		return bad(err, errlen, fname, 1, "a NUL byte: not a text file");
	while (ss_lines_next(&l, &s, &n)) {
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		size_t ind = 0;
		while (ind < n && ws(s[ind]))
			ind++;
		if (ind == n || s[ind] == '#')
			continue; /* blank or comment */
		if (ind < n && s[ind] == '-')
			return bad(err, errlen, fname, line, "YAML lists are not supported here");
		const char *colon = memchr(s + ind, ':', n - ind);
		if (!colon || (colon + 1 < s + n && !ws(colon[1])))
			return bad(err, errlen, fname, line, "expected \"key: value\"");
		const char *k;
		size_t kn;
		if (!scalar(s + ind, (size_t)(colon - s - ind), &k, &kn) || kn == 0)
			return bad(err, errlen, fname, line, "empty or malformed key");
		const char *v;
		size_t vn;
		if (!scalar(colon + 1, (size_t)(s + n - colon - 1), &v, &vn))
			return bad(err, errlen, fname, line, "unterminated quote");
		if (ind == 0) {
			if (vn == 2 && !memcmp(v, "{}", 2))
				vn = 0; /* an empty mapping written inline */
			if (vn)
				return bad(err, errlen, fname, line, "\"%.*s\" must be a mapping", (int)(kn > 60 ? 60 : kn), k);
			if (kn == 17 && !memcmp(k, "tls_server_config", 17))
				sect = TLS;
			else if (kn == 16 && !memcmp(k, "basic_auth_users", 16))
				sect = USERS;
			else
				return bad(err, errlen, fname, line, "unknown or unsupported key \"%.*s\"",
					   (int)(kn > 60 ? 60 : kn), k);
			continue;
		}
		if (sect == TOP)
			return bad(err, errlen, fname, line, "indented line outside a section");
		if (sect == TLS) {
			char **dst = kn == 9 && !memcmp(k, "cert_file", 9) ? &c->cert_file :
				     kn == 8 && !memcmp(k, "key_file", 8) ? &c->key_file : NULL;
			if (!dst)
				return bad(err, errlen, fname, line, "tls_server_config: unsupported key \"%.*s\" "
					   "(cert_file and key_file only)", (int)(kn > 60 ? 60 : kn), k);
			if (!vn || memchr(v, 0, vn))
				return bad(err, errlen, fname, line, "%.*s: expected a file name", (int)kn, k);
			if ((r = set_str(dst, v, vn)))
				return r;
			continue;
		}
		/* basic_auth_users: NAME: BCRYPT */
		if (vn < 7 || v[0] != '$' || v[1] != '2' || (v[2] != 'a' && v[2] != 'b' && v[2] != 'y') || v[3] != '$')
			return bad(err, errlen, fname, line, "user \"%.*s\": expected a bcrypt hash ($2a$, $2b$ or $2y$)",
				   (int)(kn > 60 ? 60 : kn), k);
		for (uint32_t i = 0; i < c->n_users; i++)
			if (strlen(c->users[i].name) == kn && !memcmp(c->users[i].name, k, kn))
				return bad(err, errlen, fname, line, "user \"%.*s\" given twice", (int)(kn > 60 ? 60 : kn), k);
		struct ss_web_user *u;
		if ((r = SS_DA_PUSH(&c->users, &c->n_users, &c->cap_users, &u)) < 0)
			return r;
		u->name = strndup(k, kn);
		u->hash = strndup(v, vn);
		if (!u->name || !u->hash)
			return -ENOMEM; /* freed by ss_web_config_free */
	}
	if (!c->cert_file != !c->key_file)
		return bad(err, errlen, fname, line ? line : 1, "tls_server_config needs both cert_file and key_file");
	return 0;
}

void ss_web_config_free(struct ss_web_config *c)
{
	if (!c)
		return;
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_pem);
	free(c->key_pem);
	for (uint32_t i = 0; i < c->n_users; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
		free(c->users[i].ok_pass);
	}
	free(c->users);
	memset(c, 0, sizeof(*c));
}

/* A file named in the config: relative to the config file's directory. */
static int read_rel(const char *cfg, const char *name, char **out, char *err, size_t errlen)
{
	char *d = strdup(cfg), *path = NULL;
	size_t len;
	int r;
	if (!d)
		return -ENOMEM;
	if (name[0] == '/')
		path = strdup(name);
	else if (asprintf(&path, "%s/%s", dirname(d), name) < 0)
		path = NULL;
	free(d);
	if (!path)
		return -ENOMEM;
	r = ss_read_file(AT_FDCWD, path, SS_WEB_CONFIG_MAX, out, &len);
	if (r)
		snprintf(err, errlen, "%s: %s: %s", cfg, path, segscan_strerror(r));
	free(path);
	return r;
}

int ss_web_config_load(const char *path, struct ss_web_config *c, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len;
	int r = ss_read_file(AT_FDCWD, path, SS_WEB_CONFIG_MAX, &buf, &len);
	if (r) {
		snprintf(err, errlen, "--web.config.file=%s: %s", path, segscan_strerror(r));
		return r;
	}
	r = ss_web_config_parse(buf, len, path, c, err, errlen);
	free(buf);
	if (r)
		return r;
	if (c->cert_file && ((r = read_rel(path, c->cert_file, &c->cert_pem, err, errlen)) ||
			     (r = read_rel(path, c->key_file, &c->key_pem, err, errlen))))
		return r;
	return 0;
}

/* Equal strings, in a time that does not depend on where they differ. */
static bool same(const char *x, const char *y)
{
	size_t a = strlen(x), b = strlen(y);
	unsigned char d = a != b;
	for (size_t k = 0; k < a && k < b; k++)
		d |= (unsigned char)(x[k] ^ y[k]);
	return d == 0;
}

bool ss_web_auth_ok(struct ss_web_config *c, const char *user, const char *pass)
{
	if (!c || !user || !pass)
		return false;
	for (uint32_t i = 0; i < c->n_users; i++) {
		struct ss_web_user *u = &c->users[i];
		if (strcmp(u->name, user))
			continue;
		if (u->ok_pass && same(u->ok_pass, pass))
			return true;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec != c->bcrypt_sec) {
			c->bcrypt_sec = now.tv_sec;
			c->bcrypt_n = 0;
		}
		if (c->bcrypt_n >= SS_WEB_BCRYPT_PER_SEC)
			return false; /* a flood of guesses: refused without the cost */
		c->bcrypt_n++;
		struct crypt_data cd;
		memset(&cd, 0, sizeof(cd));
		const char *h = crypt_r(pass, u->hash, &cd);
		if (!h || h[0] == '*' || !same(h, u->hash))
			return false; /* "*": crypt(3)'s failure token */
		char *keep = strdup(pass);
		if (keep) { /* without it, the next request just pays the bcrypt again */
			free(u->ok_pass);
			u->ok_pass = keep;
		}
		return true;
	}
	return false;
}
