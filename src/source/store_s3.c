/*
 * s3://BUCKET[/PREFIX]: an S3-compatible bucket as a remote store, over libcurl.
 *
 * ListObjectsV2 page by page (max-keys from the URI, 1000 by default; the
 * continuation token of each page to the next), each response parsed as it arrives by
 * fmt/s3_list.c into one page of (key, size) that is delivered only once the response is
 * whole: a request retried after a transient failure never delivers a key twice, and a
 * page is all the listing holds. HEAD only for an object the listing gives no size for;
 * GET only for what the caller asks (Aiven's manifests): never segment data.
 *
 * Signing is libcurl's CURLOPT_AWS_SIGV4 (since 7.75), with two things curl 7.88 leaves to
 * the caller (docs/architecture.md): the scope is given whole ("aws:amz:REGION:s3", else
 * curl takes region and service from the host name), the query is given sorted by name and
 * percent-encoded as SigV4 encodes it (curl 7.88 signs the query as written), and the
 * payload hash header x-amz-content-sha256 is sent (curl adds it by itself from 8.0 only).
 *
 * Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN), else the
 * shared credentials file (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials; profile
 * AWS_PROFILE, else "default"), read once through common/file.h and refused when owned by
 * another user or writable by group or others; with neither, requests go unsigned (a
 * public bucket). Region: the URI's, else AWS_REGION, AWS_DEFAULT_REGION, else us-east-1.
 *
 * Every request is bounded: connect, the whole request (the URI's timeout, 30 s by
 * default) and a stalled transfer (no byte for that long) all end it; a transient failure
 * (connection refused or reset, HTTP 429/500/502/503/504) is retried twice with a pause, a
 * timeout once. No redirect is followed; only http and https are spoken.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "fmt/s3_list.h"
#include "segscan.h"
#include "source/store_int.h"

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define CREDS_MAX ((size_t)1 << 20)
#define BODY_MAX ((size_t)64 << 20)   /* one response: a page of 1000 keys is ~300 KB */

struct s3 {
	CURL              *h;
	char               base[SS_STORE_URI_MAX + 128];   /* URL of the bucket, no trailing '/' */
	bool               vhost;                          /* https://BUCKET.s3.REGION.amazonaws.com */
	char               region[64];
	char               sigv4[128];
	bool               signed_;
	struct ss_aws_creds creds;
	char               creds_from[SS_STORE_URI_MAX + 64];
	struct curl_slist *hdrs;
	char               cerr[CURL_ERROR_SIZE];
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static void curl_init(void)
{
	/* once per process; libcurl 7.84+ makes it thread-safe too */
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ---- credentials ---- */

static int load_creds(struct ss_store *st, struct s3 *c, char *err, size_t errlen)
{
	const char *ak = ss_store_getenv(st, "AWS_ACCESS_KEY_ID"), *sk = ss_store_getenv(st, "AWS_SECRET_ACCESS_KEY");
	if ((ak && *ak) || (sk && *sk)) {
		if (!ak || !*ak || !sk || !*sk) {
			snprintf(err, errlen, "%s is set without %s", ak && *ak ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
				 ak && *ak ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
			return -EINVAL;
		}
		const char *tok = ss_store_getenv(st, "AWS_SESSION_TOKEN");
		if (strlen(ak) >= sizeof(c->creds.access_key) || strlen(sk) >= sizeof(c->creds.secret_key) ||
		    (tok && strlen(tok) >= sizeof(c->creds.session_token))) {
			snprintf(err, errlen, "AWS credentials in the environment are too long");
			return -EINVAL;
		}
		snprintf(c->creds.access_key, sizeof(c->creds.access_key), "%s", ak);
		snprintf(c->creds.secret_key, sizeof(c->creds.secret_key), "%s", sk);
		snprintf(c->creds.session_token, sizeof(c->creds.session_token), "%s", tok ? tok : "");
		snprintf(c->creds_from, sizeof(c->creds_from), "AWS_ACCESS_KEY_ID");
		c->signed_ = true;
		return 0;
	}
	const char *file = ss_store_getenv(st, "AWS_SHARED_CREDENTIALS_FILE"), *profile = ss_store_getenv(st, "AWS_PROFILE");
	bool explicit_ = (file && *file) || (profile && *profile);
	char path[SS_STORE_URI_MAX];
	if (file && *file) {
		snprintf(path, sizeof(path), "%s", file);
	} else {
		const char *home = ss_store_getenv(st, "HOME");
		if (!home || !*home) {
			snprintf(c->creds_from, sizeof(c->creds_from), "none (no HOME, no AWS_ACCESS_KEY_ID)");
			return 0;
		}
		snprintf(path, sizeof(path), "%s/.aws/credentials", home);
	}
	if (!profile || !*profile)
		profile = "default";
	struct stat sb;
	int fd = ss_open_reg(AT_FDCWD, path, 0, &sb);
	if (fd < 0) {
		if (fd == -ENOENT && !explicit_) {
			snprintf(c->creds_from, sizeof(c->creds_from), "none (no AWS_ACCESS_KEY_ID, no %s)", path);
			return 0;
		}
		snprintf(err, errlen, "the AWS credentials file %s: %s", path, segscan_strerror(fd));
		return fd == -ENOENT ? -EINVAL : fd;
	}
	/* segscan runs as root: a file another user could write would choose whose keys are sent */
	if ((sb.st_uid != geteuid() && sb.st_uid != 0) || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);   /* opened above */
		snprintf(err, errlen, "refusing the AWS credentials file %s: %s", path,
			 sb.st_mode & (S_IWGRP | S_IWOTH) ? "writable by group or others" : "owned by another user");
		return -EACCES;
	}
	char *buf = NULL;
	size_t len = 0;
	int r = ss_read_fd(fd, (size_t)sb.st_size, CREDS_MAX, &buf, &len);
	close(fd);   /* opened above */
	if (r) {
		snprintf(err, errlen, "the AWS credentials file %s: %s", path, segscan_strerror(r));
		return r;
	}
	char perr[160];
	r = ss_aws_creds_parse(buf, len, profile, &c->creds, perr, sizeof(perr));
	free(buf);
	if (r == -ENOENT && !explicit_) {
		snprintf(c->creds_from, sizeof(c->creds_from), "none (%s has no [default] keys)", path);
		return 0;
	}
	if (r) {
		snprintf(err, errlen, "the AWS credentials file %s: %s", path, perr);
		return -EINVAL;
	}
	snprintf(c->creds_from, sizeof(c->creds_from), "%s [%s]", path, profile);
	c->signed_ = true;
	return 0;
}

/* ---- URLs ---- */

static bool unreserved(unsigned char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
	       ch == '_' || ch == '.' || ch == '~';
}

/* SigV4's URI encoding: unreserved bytes kept, '/' too when keep_slash, the rest %XX. */
static int enc(char *out, size_t cap, size_t *at, const char *s, size_t n, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (unreserved(ch) || (keep_slash && ch == '/')) {
			if (*at + 1 >= cap)
				return -ENAMETOOLONG;
			out[(*at)++] = (char)ch;
		} else {
			if (*at + 3 >= cap)
				return -ENAMETOOLONG;
			out[(*at)++] = '%';
			out[(*at)++] = hex[ch >> 4];
			out[(*at)++] = hex[ch & 15];
		}
	}
	out[*at] = 0;
	return 0;
}

static int lit(char *out, size_t cap, size_t *at, const char *s)
{
	size_t n = strlen(s);
	if (*at + n >= cap)
		return -ENAMETOOLONG;
	memcpy(out + *at, s, n + 1);
	*at += n;
	return 0;
}

static int object_url(const struct ss_store *st, const char *key, char *url, size_t cap)
{
	const struct s3 *c = st->impl;
	size_t at = 0;
	int r;
	if ((r = lit(url, cap, &at, c->base)) || (r = lit(url, cap, &at, "/")) ||
	    (r = enc(url, cap, &at, st->uri.prefix, strlen(st->uri.prefix), true)) ||
	    (r = enc(url, cap, &at, key, strlen(key), true)))
		return r;
	return 0;
}

/* ---- one request ---- */

struct page_ent {
	uint32_t off, len;
	int64_t  size;
	bool     has_size;
};

struct body {
	struct ss_store   *st;
	struct ss_s3_list *xp;         /* a listing: the parser fed as the body arrives */
	int                xr;         /* its non-zero return */
	char               xerr[200];
	ss_store_data_fn   sink;       /* else a stream: each piece to it */
	void              *sink_arg;
	int                sink_r;
	char              *buf;        /* else: the body, at most max bytes */
	size_t             len, cap, max;
	bool               too_big;
	bool               status_ok;  /* a stream: the response is a 200 (else the body is kept: an error) */
	/* the page being collected (listing) */
	char              *keys;
	size_t             keys_len, keys_cap;
	struct page_ent   *v;
	uint32_t           n, vcap;
	bool               outside;    /* a key without the URI's prefix */
};

static size_t on_write(char *p, size_t sz, size_t nm, void *ud)
{
	struct body *b = ud;
	size_t n = sz * nm;
	if (b->xp) {
		int r = ss_s3_list_feed(b->xp, p, n, false, b->xerr, sizeof(b->xerr));
		if (r) {
			b->xr = r;
			return 0;   /* stops the transfer: CURLE_WRITE_ERROR */
		}
		return n;
	}
	if (b->sink && b->status_ok) {
		int r = b->sink(b->sink_arg, p, n);
		if (r) {
			b->sink_r = r;
			return 0;
		}
		return n;
	}
	if (b->len + n > b->max) {
		b->too_big = true;
		return 0;
	}
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		while (nc < b->len + n + 1)
			nc *= 2;
		char *nb = realloc(b->buf, nc);
		if (!nb) {
			b->too_big = true;
			return 0;
		}
		b->buf = nb;
		b->cap = nc;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = 0;
	return n;
}

/* A stream's status line: only a 200's body goes to the sink. */
static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
	struct body *b = ud;
	size_t n = sz * nm;
	if (n > 9 && !memcmp(p, "HTTP/", 5)) {
		const char *sp = memchr(p, ' ', n);
		b->status_ok = sp && (size_t)(sp - p) + 4 <= n && !memcmp(sp + 1, "200", 3);
	}
	return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt; (void)dn; (void)ut; (void)un;
	return ss_store_cancelled(ud) ? 1 : 0;
}

/* The page's objects, collected by the parser's callback. */
static int on_object(void *arg, const struct ss_s3_object *o)
{
	struct body *b = arg;
	const char *pre = b->st->uri.prefix;
	size_t pl = strlen(pre);
	if (o->key_len < pl || memcmp(o->key, pre, pl)) {
		b->outside = true;
		return -EPROTO;
	}
	size_t kl = o->key_len - pl;
	if (b->keys_len + kl + 1 > b->keys_cap) {
		size_t nc = b->keys_cap ? b->keys_cap * 2 : 65536;
		while (nc < b->keys_len + kl + 1)
			nc *= 2;
		char *nk = realloc(b->keys, nc);
		if (!nk)
			return -ENOMEM;
		b->keys = nk;
		b->keys_cap = nc;
	}
	if (b->n == b->vcap) {
		uint32_t nc = b->vcap ? b->vcap * 2 : 256;
		struct page_ent *nv = realloc(b->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		b->v = nv;
		b->vcap = nc;
	}
	memcpy(b->keys + b->keys_len, o->key + pl, kl);
	b->keys[b->keys_len + kl] = 0;
	b->v[b->n++] = (struct page_ent){ .off = (uint32_t)b->keys_len, .len = (uint32_t)kl, .size = o->size,
					  .has_size = o->has_size };
	b->keys_len += kl + 1;
	return 0;
}

static bool transient_http(long st)
{
	return st == 429 || st == 500 || st == 502 || st == 503 || st == 504;
}

static bool transient_curl(CURLcode c)
{
	return c == CURLE_COULDNT_CONNECT || c == CURLE_SEND_ERROR || c == CURLE_RECV_ERROR || c == CURLE_GOT_NOTHING ||
	       c == CURLE_PARTIAL_FILE || c == CURLE_OPERATION_TIMEDOUT;
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
	default: return -EIO;
	}
}

/* Sleep ms in slices, polling cancel. */
static int pause_ms(struct ss_store *st, long ms)
{
	while (ms > 0) {
		long s = ms > 100 ? 100 : ms;
		struct timespec ts = { 0, s * 1000000L };
		nanosleep(&ts, NULL);
		if (ss_store_cancelled(st))
			return -ECANCELED;
		ms -= s;
	}
	return 0;
}

/* One HTTP exchange. *status: the HTTP status (0 when none came). Returns 0 (a response
 * came, whatever its status) or a negative errno for a transfer that failed (err says
 * what curl said). */
static int exchange(struct ss_store *st, const char *url, bool head, struct body *b, long *status, char *err,
		    size_t errlen)
{
	struct s3 *c = st->impl;
	int r;
	if ((r = ss_store_pace(st)))
		return r;
	CURL *h = c->h;
	curl_easy_reset(h);   /* options only: the connection cache stays */
	long tmo = (long)st->uri.timeout_ms;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, tmo);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, tmo < 10000 ? tmo : 10000L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, tmo / 1000 > 0 ? tmo / 1000 : 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->cerr);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, c->hdrs);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "segscan/" SEGSCAN_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, st);
	if (head)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	if (b->sink) {
		curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(h, CURLOPT_HEADERDATA, b);
	}
	if (c->signed_) {
		curl_easy_setopt(h, CURLOPT_AWS_SIGV4, c->sigv4);
		curl_easy_setopt(h, CURLOPT_USERNAME, c->creds.access_key);
		curl_easy_setopt(h, CURLOPT_PASSWORD, c->creds.secret_key);
	}
	c->cerr[0] = 0;
	CURLcode cc = curl_easy_perform(h);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	if (cc == CURLE_OK)
		return 0;
	if (cc == CURLE_WRITE_ERROR && (b->xr || b->too_big || b->sink_r))
		return 0;   /* our own stop: the caller reads why from b */
	if (cc == CURLE_ABORTED_BY_CALLBACK)
		return -ECANCELED;
	snprintf(err, errlen, "%s", c->cerr[0] ? c->cerr : curl_easy_strerror(cc));
	return curl_errno(cc) == -EIO && transient_curl(cc) ? -ECONNRESET : curl_errno(cc);
}

/* What an HTTP error status and its S3 <Error> body (if any) say. */
static int http_error(long status, const struct ss_s3_list_result *res, char *err, size_t errlen)
{
	const char *code = res && res->error && res->code[0] ? res->code : NULL;
	const char *msg = res && res->error && res->message[0] ? res->message : NULL;
	snprintf(err, errlen, "HTTP %ld%s%s%s%s", status, code ? " " : "", code ? code : "", msg ? ": " : "",
		 msg ? msg : "");
	if (status == 403 || status == 401)
		return -EACCES;
	if (status == 404)
		return -ENOENT;
	if (status == 301 || status == 307 || status == 400)
		return -EPROTO;
	return -EIO;
}

static int list_page(struct ss_store *st, const char *token, struct body *b, struct ss_s3_list_result *res,
		     char *err, size_t errlen)
{
	struct s3 *c = st->impl;
	char url[SS_STORE_URI_MAX * 4 + SS_S3_TOKEN_MAX * 3 + 256];
	size_t at = 0;
	char mk[32];
	int r;
	snprintf(mk, sizeof(mk), "%lld", (long long)st->uri.max_keys);
	/* the query sorted by name, each value SigV4-encoded: curl 7.88 signs it as written */
	if ((r = lit(url, sizeof(url), &at, c->base)) || (r = lit(url, sizeof(url), &at, c->vhost ? "/?" : "?")))
		return r;
	if (token && *token && ((r = lit(url, sizeof(url), &at, "continuation-token=")) ||
				(r = enc(url, sizeof(url), &at, token, strlen(token), false)) ||
				(r = lit(url, sizeof(url), &at, "&"))))
		return r;
	if ((r = lit(url, sizeof(url), &at, "list-type=2&max-keys=")) || (r = lit(url, sizeof(url), &at, mk)))
		return r;
	if (st->uri.prefix[0] && ((r = lit(url, sizeof(url), &at, "&prefix=")) ||
				  (r = enc(url, sizeof(url), &at, st->uri.prefix, strlen(st->uri.prefix), false))))
		return r;
	for (int attempt = 0;; attempt++) {
		b->n = 0;
		b->keys_len = 0;
		b->xr = 0;
		b->outside = false;
		ss_s3_list_free(b->xp);
		b->xp = NULL;
		if ((r = ss_s3_list_new(on_object, b, &b->xp)))
			return r;
		long status = 0;
		r = exchange(st, url, false, b, &status, err, errlen);
		if (r == -ECANCELED || r == -ENOMEM)
			return r;
		if (!r && !b->xr)
			b->xr = ss_s3_list_feed(b->xp, "", 0, true, b->xerr, sizeof(b->xerr));
		bool retry = (r && r != -EACCES && r != -EHOSTUNREACH &&
			      attempt < (r == -ETIMEDOUT ? 1 : 2)) ||
			     (!r && transient_http(status) && attempt < 2);
		if (retry) {
			if ((r = pause_ms(st, 250L << (2 * attempt))))
				return r;
			continue;
		}
		if (r)
			return r;
		*res = *ss_s3_list_result(b->xp);
		if (status != 200)
			return http_error(status, res->error ? res : NULL, err, errlen);
		if (b->outside) {
			snprintf(err, errlen, "the store returned a key outside the prefix '%s'", st->uri.prefix);
			return -EPROTO;
		}
		if (b->xr) {
			snprintf(err, errlen, "the ListObjectsV2 response: %s", b->xr == -EPROTO ? b->xerr : segscan_strerror(b->xr));
			return b->xr;
		}
		if (!res->list) {
			snprintf(err, errlen, "the answer is not a ListBucketResult");
			return -EPROTO;
		}
		return 0;
	}
}

/* HEAD one key for its size: 0, -ENOENT (gone since it was listed), or an error. */
static int head_size(struct ss_store *st, const char *key, int64_t *size, char *err, size_t errlen)
{
	struct s3 *c = st->impl;
	char url[SS_STORE_URI_MAX * 4 + 3 * 1100];
	int r;
	if ((r = object_url(st, key, url, sizeof(url))))
		return r;
	for (int attempt = 0;; attempt++) {
		struct body b = { .st = st, .max = 0 };
		long status = 0;
		r = exchange(st, url, true, &b, &status, err, errlen);
		free(b.buf);
		if (r == -ECANCELED || r == -ENOMEM)
			return r;
		if ((r && r != -EACCES && attempt < 1) || (!r && transient_http(status) && attempt < 2)) {
			if ((r = pause_ms(st, 250L << (2 * attempt))))
				return r;
			continue;
		}
		if (r)
			return r;
		if (status != 200)
			return http_error(status, NULL, err, errlen);
		curl_off_t cl = -1;
		curl_easy_getinfo(c->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
		if (cl < 0) {
			snprintf(err, errlen, "HEAD %s: no Content-Length", key);
			return -EPROTO;
		}
		*size = (int64_t)cl;
		return 0;
	}
}

static int s3_list(struct ss_store *st, ss_store_obj_fn fn, ss_store_page_fn page, void *arg, char *err,
		   size_t errlen)
{
	struct body b = { .st = st };
	struct ss_s3_list_result *res = malloc(sizeof(*res));
	char *token = calloc(1, SS_S3_TOKEN_MAX + 1), *prev = calloc(1, SS_S3_TOKEN_MAX + 1);
	uint64_t listed = 0;
	int r = -ENOMEM;
	if (!res || !token || !prev)
		goto out;
	for (;;) {
		if ((r = list_page(st, token, &b, res, err, errlen)))
			goto out;
		for (uint32_t i = 0; i < b.n; i++) {
			struct page_ent *e = &b.v[i];
			const char *key = b.keys + e->off;
			if (!e->has_size) {
				int h = head_size(st, key, &e->size, err, errlen);
				if (h == -ENOENT)
					continue;   /* deleted since it was listed */
				if (h) {
					r = h;
					goto out;
				}
			}
			if ((r = fn(arg, key, e->len, e->size)))
				goto out;
			listed++;
		}
		if (page && (r = page(arg, listed)))
			goto out;
		if (!res->truncated)
			break;
		if (!res->has_token) {
			snprintf(err, errlen, "a truncated ListObjectsV2 page without a NextContinuationToken");
			r = -EPROTO;
			goto out;
		}
		if (!strcmp(res->token, token)) {
			snprintf(err, errlen, "the store repeated its continuation token");
			r = -EPROTO;
			goto out;
		}
		memcpy(prev, token, SS_S3_TOKEN_MAX + 1);
		memcpy(token, res->token, SS_S3_TOKEN_MAX + 1);
	}
	r = 0;
out:
	ss_s3_list_free(b.xp);
	free(b.keys);
	free(b.v);
	free(res);
	free(token);
	free(prev);
	return r;
}

static int s3_get(struct ss_store *st, const char *key, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	char url[SS_STORE_URI_MAX * 4 + 3 * 1100];
	int r;
	if ((r = object_url(st, key, url, sizeof(url))))
		return r;
	for (int attempt = 0;; attempt++) {
		struct body b = { .st = st, .max = max };
		long status = 0;
		r = exchange(st, url, false, &b, &status, err, errlen);
		if (r == -ECANCELED || r == -ENOMEM) {
			free(b.buf);
			return r;
		}
		if ((r && r != -EACCES && attempt < 1) || (!r && transient_http(status) && attempt < 2)) {
			free(b.buf);
			if ((r = pause_ms(st, 250L << (2 * attempt))))
				return r;
			continue;
		}
		if (!r && b.too_big) {
			free(b.buf);
			snprintf(err, errlen, "%s: larger than %zu bytes", key, max);
			return -EFBIG;
		}
		if (!r && status != 200) {
			/* the body of an error is S3's <Error>: say its code */
			struct ss_s3_list *xp = NULL;
			const struct ss_s3_list_result *res = NULL;
			if (b.buf && !ss_s3_list_new(NULL, NULL, &xp) && !ss_s3_list_feed(xp, b.buf, b.len, true, NULL, 0))
				res = ss_s3_list_result(xp);
			r = http_error(status, res, err, errlen);
			ss_s3_list_free(xp);
		}
		if (r) {
			free(b.buf);
			return r;
		}
		if (!b.buf && !(b.buf = calloc(1, 1)))
			return -ENOMEM;
		*out = b.buf;
		*len = b.len;
		return 0;
	}
}

/* --deep: a whole object streamed to fn. A retry would deliver bytes twice: none. */
static int s3_read(struct ss_store *st, const char *key, ss_store_data_fn fn, void *arg, char *err, size_t errlen)
{
	char url[SS_STORE_URI_MAX * 4 + 3 * 1100];
	int r;
	if ((r = object_url(st, key, url, sizeof(url))))
		return r;
	struct body b = { .st = st, .sink = fn, .sink_arg = arg, .max = 1 << 16 };
	long status = 0;
	r = exchange(st, url, false, &b, &status, err, errlen);
	if (!r && b.sink_r)
		r = b.sink_r;
	else if (!r && status != 200) {
		struct ss_s3_list *xp = NULL;
		const struct ss_s3_list_result *res = NULL;
		if (b.buf && !ss_s3_list_new(NULL, NULL, &xp) && !ss_s3_list_feed(xp, b.buf, b.len, true, NULL, 0))
			res = ss_s3_list_result(xp);
		r = http_error(status, res, err, errlen);
		ss_s3_list_free(xp);
	}
	free(b.buf);
	return r;
}

static int s3_open(struct ss_store *st, char *err, size_t errlen)
{
	struct s3 *c = calloc(1, sizeof(*c));
	int r;
	if (!c)
		return -ENOMEM;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK) {
		snprintf(err, errlen, "libcurl: %s", curl_easy_strerror(curl_init_rc));
		free(c);
		return -EIO;
	}
	const char *reg = st->uri.region[0] ? st->uri.region : ss_store_getenv(st, "AWS_REGION");
	if (!reg || !*reg)
		reg = ss_store_getenv(st, "AWS_DEFAULT_REGION");
	if (!reg || !*reg)
		reg = "us-east-1";
	snprintf(c->region, sizeof(c->region), "%s", reg);
	for (const char *p = c->region; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_')) {
			snprintf(err, errlen, "region '%s' is not a region name", c->region);
			free(c);
			return -EINVAL;
		}
	/* the whole scope: without region and service curl 7.88 takes them from the host */
	snprintf(c->sigv4, sizeof(c->sigv4), "aws:amz:%s:s3", c->region);
	if (st->uri.endpoint[0]) {
		snprintf(c->base, sizeof(c->base), "%s/%s", st->uri.endpoint, st->uri.bucket);
	} else {
		snprintf(c->base, sizeof(c->base), "https://%s.s3.%s.amazonaws.com", st->uri.bucket, c->region);
		c->vhost = true;
	}
	if ((r = load_creds(st, c, err, errlen))) {
		free(c);
		return r;
	}
	/* curl 7.88 signs with this payload hash when the header is there, and adds none itself */
	c->hdrs = curl_slist_append(NULL, "x-amz-content-sha256: " EMPTY_SHA256);
	if (c->hdrs && c->creds.session_token[0]) {
		char tok[sizeof(c->creds.session_token) + 32];
		snprintf(tok, sizeof(tok), "x-amz-security-token: %s", c->creds.session_token);
		struct curl_slist *n = curl_slist_append(c->hdrs, tok);
		if (!n) {
			curl_slist_free_all(c->hdrs);
			c->hdrs = NULL;
		} else {
			c->hdrs = n;
		}
	}
	if (!c->hdrs || !(c->h = curl_easy_init())) {
		curl_slist_free_all(c->hdrs);
		free(c);
		return -ENOMEM;
	}
	st->impl = c;
	return 0;
}

static void s3_close(struct ss_store *st)
{
	struct s3 *c = st->impl;
	if (!c)
		return;
	curl_easy_cleanup(c->h);
	curl_slist_free_all(c->hdrs);
	/* the secret does not outlive the store */
	explicit_bzero(&c->creds, sizeof(c->creds));
	free(c);
}

const struct ss_store_ops ss_store_s3_ops = {
	.open = s3_open,
	.list = s3_list,
	.get = s3_get,
	.read = s3_read,
	.close = s3_close,
};
