/*
 * The one HTTP client, over libcurl (see http.h).
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "common/file.h"
#include "fmt/httpconf.h"
#include "segscan.h"
#include "source/http.h"

#define PASSWORD_FILE_MAX ((size_t)64 << 10)

struct ss_http {
	CURL *h;
	char  cerr[CURL_ERROR_SIZE];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static void curl_init(void)
{
	/* once per process; libcurl 7.84+ makes it thread-safe too */
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int ss_http_open(struct ss_http **out, char *err, size_t errlen)
{
	*out = NULL;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK) {
		snprintf(err, errlen, "libcurl: %s", curl_easy_strerror(curl_init_rc));
		return -EIO;
	}
	struct ss_http *h = calloc(1, sizeof(*h));
	if (!h || !(h->h = curl_easy_init())) {
		free(h);
		snprintf(err, errlen, "libcurl: %s", segscan_strerror(-ENOMEM));
		return -ENOMEM;
	}
	*out = h;
	return 0;
}

void ss_http_close(struct ss_http *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->h);
	free(h);
}

void ss_http_resp_free(struct ss_http_resp *r)
{
	if (!r)
		return;
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

bool ss_http_is_url(const char *s)
{
	return s && (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8));
}

char *ss_http_display(const char *url)
{
	CURLU *u = curl_url();
	char *shown = NULL, *out;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
		curl_url_set(u, CURLUPART_USER, NULL, 0);
		curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
		curl_url_get(u, CURLUPART_URL, &shown, 0);
	}
	/* not a URL curl reads: shown as written, but never its userinfo */
	const char *s = shown ? shown : url ? url : "";
	const char *at = shown ? NULL : strchr(s, '@');
	out = ss_esc_line(at ? "(a URL with credentials)" : s);
	curl_free(shown);
	curl_url_cleanup(u);
	return out;
}

struct xfer {
	const struct ss_http_req *q;
	struct ss_http_resp      *resp;
	CURL                     *h;
	size_t                    max, cap;
	bool                      over, nomem;
};

/* the body, bounded (returning short stops the transfer: CURLE_WRITE_ERROR) */
static size_t on_write(char *p, size_t sz, size_t nm, void *ud)
{
	struct xfer *x = ud;
	struct ss_http_resp *r = x->resp;
	size_t n = sz * nm;
	if (x->q->sink) {
		long st = 0;
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &st);
		if (x->q->sink_any_status || st == 200) {
			if ((r->sink_r = x->q->sink(x->q->sink_arg, p, n)))
				return 0;
			return n;
		}
	}
	if (n > x->max - r->len) {
		x->over = true;
		return 0;
	}
	if (r->len + n + 1 > x->cap) {
		size_t nc = x->cap ? x->cap : 4096;
		while (nc < r->len + n + 1)
			nc *= 2;
		char *nb = realloc(r->body, nc);
		if (!nb) {
			x->nomem = true;
			return 0;
		}
		r->body = nb;
		x->cap = nc;
	}
	memcpy(r->body + r->len, p, n);
	r->len += n;
	r->body[r->len] = 0;
	return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt; (void)dn; (void)ut; (void)un;
	const struct ss_http_req *q = ud;
	return q->cancelled && q->cancelled(q->cancel_arg) ? 1 : 0;
}

static int curl_errno(CURLcode c)
{
	switch (c) {
	case CURLE_OPERATION_TIMEDOUT: return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT: return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST: return -EHOSTUNREACH;
	case CURLE_ABORTED_BY_CALLBACK: return -ECANCELED;
	case CURLE_OUT_OF_MEMORY: return -ENOMEM;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR: return -EACCES;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE: return -ECONNRESET;
	default: return -EIO;
	}
}

/* The URL curl is given: checked (http or https, no userinfo) and, with
 * tls_config.server_name, naming server_name with CONNECT_TO saying where it really is. */
static int target(const struct ss_http_req *q, char **url, struct curl_slist **connect_to, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *user = NULL, *host = NULL, *port = NULL, *shown = NULL;
	int r = -EINVAL;
	if (!u)
		return -ENOMEM;
	if (!q->url || curl_url_set(u, CURLUPART_URL, q->url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		shown = ss_http_display(q->url);
		snprintf(err, errlen, "%s: not an http(s)://HOST[:PORT][/PATH] URL", shown ? shown : "?");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK && user) {
		shown = ss_http_display(q->url);
		snprintf(err, errlen, "%s: credentials in a URL show in the process list: give them in "
			 "--http.config.file (basic_auth)", shown ? shown : "?");
		goto out;
	}
	r = -ENOMEM;
	if (q->conf && q->conf->server_name) {
		if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
		    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK)
			goto out;
		char ct[1024];
		snprintf(ct, sizeof(ct), "%s:%s:%s:%s", q->conf->server_name, port, host, port);
		if (!(*connect_to = curl_slist_append(NULL, ct)) ||
		    curl_url_set(u, CURLUPART_HOST, q->conf->server_name, 0) != CURLUE_OK)
			goto out;
	}
	if (curl_url_get(u, CURLUPART_URL, url, 0) != CURLUE_OK)
		goto out;
	r = 0;
out:
	free(shown);
	curl_free(scheme);
	curl_free(user);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return r;
}

static void set_conf(CURL *h, const struct ss_httpconf *hc)
{
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

static void set_options(struct ss_http *c, const struct ss_http_req *q, const char *url, struct curl_slist *hdrs,
			struct curl_slist *connect_to, struct xfer *x)
{
	CURL *h = c->h;
	long tmo = q->timeout_ms > 0 ? q->timeout_ms : 30000L;
	long ctmo = q->connect_timeout_ms > 0 ? q->connect_timeout_ms : tmo < 10000 ? tmo : 10000L;
	curl_easy_reset(h);   /* options only: the connection cache stays */
	curl_easy_setopt(h, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, tmo);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ctmo < tmo ? ctmo : tmo);
	if (q->stall_ms > 0) {
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, q->stall_ms / 1000 > 0 ? q->stall_ms / 1000 : 1L);
	}
	if (q->accept_encoding)
		curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->cerr);
	curl_easy_setopt(h, CURLOPT_USERAGENT, q->user_agent ? q->user_agent : "segscan/" SEGSCAN_VERSION);
	if (hdrs)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	if (connect_to)
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)q);
	if (q->head)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	if (q->conf)
		set_conf(h, q->conf);
	if (q->sigv4) {
		curl_easy_setopt(h, CURLOPT_AWS_SIGV4, q->sigv4);
		curl_easy_setopt(h, CURLOPT_USERNAME, q->sig_user);
		curl_easy_setopt(h, CURLOPT_PASSWORD, q->sig_password);
	}
}

static int header_list(const char *const *headers, struct curl_slist **out)
{
	*out = NULL;
	for (size_t i = 0; headers && headers[i]; i++) {
		struct curl_slist *n = curl_slist_append(*out, headers[i]);
		if (!n)
			return -ENOMEM;
		*out = n;
	}
	return 0;
}

int ss_http_get(struct ss_http *c, const struct ss_http_req *q, struct ss_http_resp *resp, char *err, size_t errlen)
{
	struct curl_slist *hdrs = NULL, *connect_to = NULL;
	char *url = NULL, *shown = NULL;
	struct xfer x = { .q = q, .resp = resp, .h = c->h, .max = q->max_bytes ? q->max_bytes : SS_HTTP_BODY_MAX };
	int r;
	*resp = (struct ss_http_resp){ .content_length = -1 };
	if (err && errlen)
		err[0] = 0;
	if ((r = target(q, &url, &connect_to, err, errlen)) || (r = header_list(q->headers, &hdrs)))
		goto out;
	set_options(c, q, url, hdrs, connect_to, &x);
	c->cerr[0] = 0;
	CURLcode cc = curl_easy_perform(c->h);
	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &resp->status);
	curl_off_t cl = -1;
	if (curl_easy_getinfo(c->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK && cl >= 0)
		resp->content_length = (int64_t)cl;
	shown = ss_http_display(q->url);
	if (x.over) {
		snprintf(err, errlen, "%s: the answer is larger than %zu bytes", shown ? shown : "?", x.max);
		r = -EFBIG;
	} else if (x.nomem) {
		r = -ENOMEM;
	} else if (cc == CURLE_OK || (cc == CURLE_WRITE_ERROR && resp->sink_r)) {
		r = 0;   /* a response, or the sink's own stop: resp says which */
	} else {
		r = curl_errno(cc);
		if (r != -ECANCELED)
			snprintf(err, errlen, "%s: %s", shown ? shown : "?", c->cerr[0] ? c->cerr : curl_easy_strerror(cc));
	}
out:
	if (r && r != -EFBIG)
		ss_http_resp_free(resp);
	free(shown);
	curl_free(url);
	curl_slist_free_all(hdrs);
	curl_slist_free_all(connect_to);
	return r;
}

int ss_http_get1(const struct ss_http_req *q, struct ss_http_resp *resp, char *err, size_t errlen)
{
	struct ss_http *h;
	*resp = (struct ss_http_resp){ .content_length = -1 };
	int r = ss_http_open(&h, err, errlen);
	if (r)
		return r;
	r = ss_http_get(h, q, resp, err, errlen);
	ss_http_close(h);
	return r;
}

/* ---- --http.config.file ---- */

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

/* the password file's first line, as Prometheus reads it (trailing newline dropped) */
static int read_password(const char *path, struct ss_httpconf *hc, char *err, size_t errlen)
{
	char *pw = NULL;
	size_t pl = 0;
	int r = ss_read_file(AT_FDCWD, hc->password_file, PASSWORD_FILE_MAX, &pw, &pl);
	if (r) {
		snprintf(err, errlen, "%s: basic_auth.password_file %s: %s", path, hc->password_file, segscan_strerror(r));
		return r;
	}
	char *nl = memchr(pw, '\n', pl);
	if (nl)
		*nl = 0;
	size_t l = strlen(pw);
	if (l && pw[l - 1] == '\r')
		pw[l - 1] = 0;
	free(hc->password);
	hc->password = pw;
	return 0;
}

int ss_http_conf_load(const char *path, struct ss_httpconf *hc, char *err, size_t errlen)
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
	if (hc->password_file && (r = read_password(path, hc, err, errlen)))
		goto out;
	r = 0;
out:
	free(buf);
	free(dup);
	return r;
}
