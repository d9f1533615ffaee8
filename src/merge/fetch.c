/*
 * The source of `segscan merge`: a report file, or a `segscan serve` endpoint's
 * /v1/partitions (the json format) through libcurl. See merge.h.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "common/file.h"
#include "merge/merge.h"
#include "segscan.h"

#define PASSWORD_FILE_MAX ((size_t)64 << 10)

/* path relative to the config file's directory (Prometheus resolves them so) */
static int resolve(char **p, const char *dir)
{
	if (!*p || (*p)[0] == '/')
		return 0;
	char *n = NULL;
	if (asprintf(&n, "%s/%s", dir, *p) < 0)
		return -ENOMEM;
	free(*p);
	*p = n;
	return 0;
}

int ss_merge_httpconf_load(const char *path, struct ss_httpconf *hc, char *err, size_t errlen)
{
	char *buf = NULL, *dup = NULL;
	size_t len = 0;
	int r = ss_read_file(AT_FDCWD, path, SS_HTTPCONF_MAX, &buf, &len);
	if (r) {
		snprintf(err, errlen, "%s: %s", path, segscan_strerror(r));
		return r;
	}
	if ((r = ss_httpconf_parse(buf, len, path, hc, err, errlen)))
		goto out;
	if (!(dup = strdup(path))) {
		r = -ENOMEM;
		goto out;
	}
	const char *dir = dirname(dup);
	if ((r = resolve(&hc->ca_file, dir)) || (r = resolve(&hc->cert_file, dir)) || (r = resolve(&hc->key_file, dir)) ||
	    (r = resolve(&hc->password_file, dir)))
		goto out;
	if (hc->password_file) {
		/* the password file's first line, as Prometheus reads it (trailing newline dropped) */
		char *pw = NULL;
		size_t pl = 0;
		if ((r = ss_read_file(AT_FDCWD, hc->password_file, PASSWORD_FILE_MAX, &pw, &pl))) {
			snprintf(err, errlen, "%s: basic_auth.password_file %s: %s", path, hc->password_file,
				 segscan_strerror(r));
			goto out;
		}
		char *nl = memchr(pw, '\n', pl);
		if (nl)
			*nl = 0;
		size_t l = strlen(pw);
		if (l && pw[l - 1] == '\r')
			pw[l - 1] = 0;
		hc->password = pw;
	}
	r = 0;
out:
	free(buf);
	free(dup);
	return r;
}

bool ss_merge_is_url(const char *name)
{
	return name && (!strncmp(name, "http://", 7) || !strncmp(name, "https://", 8));
}

struct body {
	char  *buf;
	size_t len, cap, max;
	bool   over;
};

/* libcurl's write callback: the decoded body, bounded (returning short aborts the transfer) */
static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;
	if (n > b->max - b->len) {
		b->over = true;
		return 0;
	}
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 65536;
		while (nc < b->len + n + 1)
			nc *= 2;
		char *nb = realloc(b->buf, nc);
		if (!nb)
			return 0;
		b->buf = nb;
		b->cap = nc;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = 0;
	return n;
}

static int fetch_url(const char *name, const struct ss_httpconf *hc, long timeout_ms, size_t max_bytes,
		     struct ss_report *rep, char **display, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	CURL *h = NULL;
	struct curl_slist *connect_to = NULL;
	struct body b = { .max = max_bytes ? max_bytes : SS_REPORT_MAX_BYTES };
	char *host = NULL, *port = NULL, *path = NULL, *user = NULL, *url = NULL, *shown = NULL, *esc = NULL;
	char cerr[CURL_ERROR_SIZE] = "";
	int r;

	if (!u)
		return -ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, name, 0) != CURLUE_OK) {
		esc = ss_esc_line(name);
		snprintf(err, errlen, "%s: not a valid http(s)://HOST:PORT URL", esc ? esc : "?");
		r = -EINVAL;
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK && user) {
		esc = ss_esc_line(name);
		snprintf(err, errlen, "%s: credentials in a URL show in the process list: give them in "
			 "--http.config.file (basic_auth)", esc ? esc : "?");
		r = -EINVAL;
		goto out;
	}
	/* HOST:PORT alone means serve's report of the whole scan */
	if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK || !path || !strcmp(path, "/"))
		curl_url_set(u, CURLUPART_PATH, "/v1/partitions", 0);
	if (curl_url_get(u, CURLUPART_URL, &shown, 0) != CURLUE_OK) {
		r = -ENOMEM;
		goto out;
	}
	if (!(*display = strdup(shown))) {
		r = -ENOMEM;
		goto out;
	}
	/* tls_config.server_name: connect to the URL's host, but ask for and verify the
	 * certificate of server_name (SNI and the name check follow the URL's host in
	 * libcurl, so the URL names server_name and CONNECT_TO says where it really is) */
	if (hc && hc->server_name) {
		if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
		    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
			r = -ENOMEM;
			goto out;
		}
		char ct[1024];
		snprintf(ct, sizeof(ct), "%s:%s:%s:%s", hc->server_name, port, host, port);
		if (!(connect_to = curl_slist_append(NULL, ct)) ||
		    curl_url_set(u, CURLUPART_HOST, hc->server_name, 0) != CURLUE_OK) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK || !(h = curl_easy_init())) {
		r = -ENOMEM;
		goto out;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""); /* serve gzips when asked; the bound is on the decoded body */
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "segscan-merge/" SEGSCAN_VERSION);
	if (connect_to)
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
	if (hc) {
		if (hc->username) {
			curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
			curl_easy_setopt(h, CURLOPT_USERNAME, hc->username);
			curl_easy_setopt(h, CURLOPT_PASSWORD, hc->password ? hc->password : "");
		}
		if (hc->ca_file)
			curl_easy_setopt(h, CURLOPT_CAINFO, hc->ca_file);
		if (hc->cert_file)
			curl_easy_setopt(h, CURLOPT_SSLCERT, hc->cert_file);
		if (hc->key_file)
			curl_easy_setopt(h, CURLOPT_SSLKEY, hc->key_file);
		if (hc->insecure_skip_verify) {
			curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
			curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
		}
	}
	CURLcode cr = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (b.over) {
		snprintf(err, errlen, "%s: the answer is larger than %zu bytes", *display, b.max);
		r = -EHOSTUNREACH;
		goto out;
	}
	if (cr != CURLE_OK) {
		snprintf(err, errlen, "%s: %s", *display, cerr[0] ? cerr : curl_easy_strerror(cr));
		r = -EHOSTUNREACH;
		goto out;
	}
	if (status != 200) {
		snprintf(err, errlen, "%s: HTTP %ld%s", *display, status,
			 status == 401 ? " (unauthorized: basic_auth in --http.config.file)" :
			 status == 503 ? " (its first scan has not finished)" : "");
		r = -EHOSTUNREACH;
		goto out;
	}
	if ((r = ss_report_parse(b.buf, b.len, *display, rep, err, errlen)) == SEGSCAN_EJSON)
		r = -EHOSTUNREACH; /* a broker that answers garbage is missing, the others still merge */
out:
	free(esc);
	free(b.buf);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(user);
	curl_free(url);
	curl_free(shown);
	curl_slist_free_all(connect_to);
	if (h)
		curl_easy_cleanup(h);
	curl_url_cleanup(u);
	return r;
}

int ss_merge_fetch(const char *name, const struct ss_httpconf *hc, long timeout_ms, size_t max_bytes,
		   struct ss_report *rep, char **display, char *err, size_t errlen)
{
	*display = NULL;
	if (err && errlen)
		err[0] = 0;
	if (ss_merge_is_url(name))
		return fetch_url(name, hc, timeout_ms, max_bytes, rep, display, err, errlen);
	if (!(*display = strdup(name)))
		return -ENOMEM;
	char *buf = NULL;
	size_t len = 0;
	int r = ss_read_file(AT_FDCWD, name, max_bytes ? max_bytes : SS_REPORT_MAX_BYTES, &buf, &len);
	if (r) {
		char *e = ss_esc_line(name);
		snprintf(err, errlen, "%s: %s%s", e ? e : "?", segscan_strerror(r),
			 r == -EFBIG ? " (larger than the bound on a report)" : "");
		free(e);
		return r;
	}
	r = ss_report_parse(buf, len, *display, rep, err, errlen);
	free(buf);
	return r;
}
