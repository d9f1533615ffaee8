/*
 * The one HTTP client of segscan, over libcurl: every request the tool makes goes through
 * ss_http_get. Its users: the s3:// remote store (source/store_s3.c: signed listings, HEADs
 * and GETs), `segscan merge`'s serve endpoints (merge/fetch.c) and --broker-metrics
 * (source/broker_metrics.c, a broker's JMX-exporter endpoint).
 *
 * What every request gets, whoever asks:
 *   - only http and https; no redirect is followed (a 3xx comes back as its status, so a
 *     request never goes to a host the caller did not name);
 *   - a total deadline (timeout_ms, connecting included), a connect bound, and optionally
 *     a stall bound (no byte for stall_ms);
 *   - a bound on the body kept or streamed (max_bytes, after decoding): past it, -EFBIG;
 *   - cancellation: cancelled(arg) is polled while the transfer runs (-ECANCELED);
 *   - basic_auth and tls_config from --http.config.file (fmt/httpconf.h), tls_config.server_name
 *     through CONNECT_TO (the URL names server_name, curl connects where the URL pointed);
 *   - no signal handlers (CURLOPT_NOSIGNAL), curl_global_init once per process.
 * Credentials never reach a message: ss_http_display gives a URL without its userinfo, and
 * the errors name the display form only.
 *
 * An ss_http is one libcurl handle (its connection cache kept between requests): one thread
 * at a time.
 */
#ifndef SS_SOURCE_HTTP_H
#define SS_SOURCE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ss_httpconf;
struct ss_http;

typedef int (*ss_http_data_fn)(void *arg, const void *p, size_t n);

struct ss_http_req {
	const char               *url;
	bool                      head;               /* HEAD: no body */
	long                      timeout_ms;         /* the whole request, connecting included (> 0) */
	long                      connect_timeout_ms; /* 0: min(timeout_ms, 10 s) */
	long                      stall_ms;           /* 0: none; else no byte for that long ends it */
	size_t                    max_bytes;          /* the body's bound (kept or streamed); 0: 64 MiB */
	bool                      accept_encoding;    /* ask for gzip/deflate: the bound is on the decoded body */
	const char               *user_agent;         /* NULL: "segscan/VERSION" */
	const char *const        *headers;            /* extra "Name: value" lines, NULL-terminated, or NULL */
	const struct ss_httpconf *conf;               /* basic_auth, tls_config; or NULL */
	const char               *sigv4;              /* CURLOPT_AWS_SIGV4's provider string, with: */
	const char               *sig_user, *sig_password;
	/* a sink takes the body as it arrives instead of resp->body: a 200's only (the body of
	 * another status is kept in resp->body, bounded), or every status's with sink_any_status */
	ss_http_data_fn           sink;
	void                     *sink_arg;
	bool                      sink_any_status;
	bool                    (*cancelled)(void *arg);
	void                     *cancel_arg;
};

struct ss_http_resp {
	long    status;          /* the HTTP status, 0 when no response came */
	char   *body;            /* malloc'd and NUL-terminated, or NULL when empty (ss_http_resp_free) */
	size_t  len;
	int64_t content_length;  /* the Content-Length header's, -1 when none */
	int     sink_r;          /* the sink's nonzero return, which ended the transfer */
};

#define SS_HTTP_BODY_MAX ((size_t)64 << 20)

int  ss_http_open(struct ss_http **out, char *err, size_t errlen);
void ss_http_close(struct ss_http *h);

/* 0 when a response came, whatever its status (resp->status), or the sink stopped it
 * (resp->sink_r); -EFBIG past max_bytes; else a transfer that failed, err saying what:
 * -ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH (no such host), -ECANCELED, -EACCES (TLS:
 * verification or handshake), -ECONNRESET (a transient failure: reset, nothing received,
 * a partial body), -EINVAL (not an http(s) URL, or credentials in it), -ENOMEM, -EIO. */
int  ss_http_get(struct ss_http *h, const struct ss_http_req *q, struct ss_http_resp *resp, char *err,
		 size_t errlen);
void ss_http_resp_free(struct ss_http_resp *r);

/* One request on a handle of its own (ss_http_open, get, close). */
int  ss_http_get1(const struct ss_http_req *q, struct ss_http_resp *resp, char *err, size_t errlen);

/* The URL as it may be shown (no userinfo, escaped for one line): malloc'd, or NULL when out of
 * memory. A string that is not a URL comes back escaped. */
char *ss_http_display(const char *url);

bool ss_http_is_url(const char *s);

/* --http.config.file: read and parse it (fmt/httpconf.h), its relative paths resolved against
 * its directory, its password_file's first line read (common/file.h). 0, or an error with
 * "PATH: problem" in err. */
int  ss_http_conf_load(const char *path, struct ss_httpconf *hc, char *err, size_t errlen);

#endif
