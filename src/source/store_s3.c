/*
 * s3://BUCKET[/PREFIX]: an S3-compatible bucket as a remote store, over the one HTTP client
 * (source/http.h: libcurl).
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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/file.h"
#include "fmt/s3_list.h"
#include "segscan.h"
#include "source/http.h"
#include "source/store_int.h"

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define CREDS_MAX ((size_t)1 << 20)
#define BODY_MAX ((size_t)64 << 20)   /* one response: a page of 1000 keys is ~300 KB */

struct s3 {
	struct ss_http    *http;      /* the one HTTP client (source/http.h), its connections kept */
	char               base[SS_STORE_URI_MAX + 128];   /* URL of the bucket, no trailing '/' */
	bool               vhost;                          /* https://BUCKET.s3.REGION.amazonaws.com */
	char               region[64];
	char               sigv4[128];
	bool               signed_;
	struct ss_aws_creds creds;
	char               creds_from[SS_STORE_URI_MAX + 64];
	char               hdr_sha[128], hdr_token[sizeof(((struct ss_aws_creds *)0)->session_token) + 32];
	const char        *hdrs[3];
};

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
	/* the page being collected (listing) */
	char              *keys;
	size_t             keys_len, keys_cap;
	struct page_ent   *v;
	uint32_t           n, vcap;
	bool               outside;    /* a key without the URI's prefix */
};

/* a listing's body, any status's (an error is S3's <Error>), to the parser as it arrives */
static int on_list_data(void *arg, const void *p, size_t n)
{
	struct body *b = arg;
	return (b->xr = ss_s3_list_feed(b->xp, p, n, false, b->xerr, sizeof(b->xerr)));
}

static bool cancelled(void *arg)
{
	return ss_store_cancelled(arg);
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

/* One HTTP exchange through the one client, q's body handling (sink, bound, HEAD) given by
 * the caller. Returns 0 (a response came, whatever its status, in resp) or a negative errno
 * for a transfer that failed (err says what curl said; -ECONNRESET: a transient failure). */
static int exchange(struct ss_store *st, const char *url, struct ss_http_req *q, struct ss_http_resp *resp,
		    char *err, size_t errlen)
{
	struct s3 *c = st->impl;
	int r;
	if ((r = ss_store_pace(st)))
		return r;
	long tmo = (long)st->uri.timeout_ms;
	q->url = url;
	q->timeout_ms = tmo;
	q->stall_ms = tmo;   /* a stalled transfer: no byte for as long as the request may take */
	q->headers = c->hdrs;
	q->cancelled = cancelled;
	q->cancel_arg = st;
	if (c->signed_) {
		q->sigv4 = c->sigv4;
		q->sig_user = c->creds.access_key;
		q->sig_password = c->creds.secret_key;
	}
	char herr[512];
	r = ss_http_get(c->http, q, resp, herr, sizeof(herr));
	if (r && r != -EFBIG && r != -ECANCELED) {
		/* the message without the URL: the caller names the key */
		const char *m = strstr(herr, ": ");
		snprintf(err, errlen, "%s", m ? m + 2 : herr);
	}
	return r;
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
		struct ss_http_req q = { .sink = on_list_data, .sink_arg = b, .sink_any_status = true };
		struct ss_http_resp resp;
		r = exchange(st, url, &q, &resp, err, errlen);
		long status = resp.status;
		ss_http_resp_free(&resp);
		if (r == -ECANCELED || r == -ENOMEM)
			return r;
		if (!r && !b->xr)
			b->xr = ss_s3_list_feed(b->xp, "", 0, true, b->xerr, sizeof(b->xerr));
		bool retry = (r && r != -EACCES && r != -EHOSTUNREACH && r != -EFBIG &&
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
	char url[SS_STORE_URI_MAX * 4 + 3 * 1100];
	int r;
	if ((r = object_url(st, key, url, sizeof(url))))
		return r;
	for (int attempt = 0;; attempt++) {
		struct ss_http_req q = { .head = true };
		struct ss_http_resp resp;
		r = exchange(st, url, &q, &resp, err, errlen);
		long status = resp.status;
		int64_t cl = resp.content_length;
		ss_http_resp_free(&resp);
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
		if (cl < 0) {
			snprintf(err, errlen, "HEAD %s: no Content-Length", key);
			return -EPROTO;
		}
		*size = cl;
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

/* What a non-200 answer and its S3 <Error> body (if any) say. */
static int error_body(long status, const struct ss_http_resp *resp, char *err, size_t errlen)
{
	struct ss_s3_list *xp = NULL;
	const struct ss_s3_list_result *res = NULL;
	if (resp->body && !ss_s3_list_new(NULL, NULL, &xp) && !ss_s3_list_feed(xp, resp->body, resp->len, true, NULL, 0))
		res = ss_s3_list_result(xp);
	int r = http_error(status, res, err, errlen);
	ss_s3_list_free(xp);
	return r;
}

static int s3_get(struct ss_store *st, const char *key, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
	char url[SS_STORE_URI_MAX * 4 + 3 * 1100];
	int r;
	if ((r = object_url(st, key, url, sizeof(url))))
		return r;
	for (int attempt = 0;; attempt++) {
		struct ss_http_req q = { .max_bytes = max };
		struct ss_http_resp resp;
		r = exchange(st, url, &q, &resp, err, errlen);
		if (r == -ECANCELED || r == -ENOMEM) {
			ss_http_resp_free(&resp);
			return r;
		}
		if ((r && r != -EACCES && r != -EFBIG && attempt < 1) || (!r && transient_http(resp.status) && attempt < 2)) {
			ss_http_resp_free(&resp);
			if ((r = pause_ms(st, 250L << (2 * attempt))))
				return r;
			continue;
		}
		if (r == -EFBIG) {
			ss_http_resp_free(&resp);
			snprintf(err, errlen, "%s: larger than %zu bytes", key, max);
			return -EFBIG;
		}
		if (!r && resp.status != 200)
			r = error_body(resp.status, &resp, err, errlen);   /* the body of an error is S3's <Error>: its code */
		if (r) {
			ss_http_resp_free(&resp);
			return r;
		}
		if (!resp.body && !(resp.body = calloc(1, 1)))
			return -ENOMEM;
		*out = resp.body;
		*len = resp.len;
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
	/* a 200's body to fn; another status's (S3's <Error>) kept, at most 64 KiB */
	struct ss_http_req q = { .sink = fn, .sink_arg = arg, .max_bytes = 1 << 16 };
	struct ss_http_resp resp;
	r = exchange(st, url, &q, &resp, err, errlen);
	if (!r && resp.sink_r)
		r = resp.sink_r;
	else if ((!r || r == -EFBIG) && resp.status != 200)
		r = error_body(resp.status, &resp, err, errlen);
	ss_http_resp_free(&resp);
	return r;
}

static int s3_open(struct ss_store *st, char *err, size_t errlen)
{
	struct s3 *c = calloc(1, sizeof(*c));
	int r;
	if (!c)
		return -ENOMEM;
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
	snprintf(c->hdr_sha, sizeof(c->hdr_sha), "x-amz-content-sha256: %s", EMPTY_SHA256);
	c->hdrs[0] = c->hdr_sha;
	if (c->creds.session_token[0]) {
		snprintf(c->hdr_token, sizeof(c->hdr_token), "x-amz-security-token: %s", c->creds.session_token);
		c->hdrs[1] = c->hdr_token;
	}
	if ((r = ss_http_open(&c->http, err, errlen))) {
		explicit_bzero(c, sizeof(*c));
		free(c);
		return r;
	}
	st->impl = c;
	return 0;
}

static void s3_close(struct ss_store *st)
{
	struct s3 *c = st->impl;
	if (!c)
		return;
	ss_http_close(c->http);
	/* the secret does not outlive the store (the token is in its header too) */
	explicit_bzero(&c->creds, sizeof(c->creds));
	explicit_bzero(c->hdr_token, sizeof(c->hdr_token));
	free(c);
}

const struct ss_store_ops ss_store_s3_ops = {
	.open = s3_open,
	.list = s3_list,
	.get = s3_get,
	.read = s3_read,
	.close = s3_close,
};
