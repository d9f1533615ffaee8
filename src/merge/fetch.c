/*
 * The source of `segscan merge`: a report file, or a `segscan serve` endpoint's
 * /v1/partitions (the json format) through the one HTTP client (source/http.h). See merge.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "common/file.h"
#include "fmt/httpconf.h"
#include "merge/merge.h"
#include "source/http.h"
#include "segscan.h"

int ss_merge_httpconf_load(const char *path, struct ss_httpconf *hc, char *err, size_t errlen)
{
	return ss_http_conf_load(path, hc, err, errlen);
}

bool ss_merge_is_url(const char *name)
{
	return ss_http_is_url(name);
}

/* HOST:PORT alone (no path, or "/") means serve's report of the whole scan */
static int with_default_path(const char *name, char **out)
{
	const char *host = strstr(name, "://");
	host = host ? host + 3 : name;
	size_t hl = strcspn(host, "/?#");
	const char *rest = host + hl;
	bool bare = !*rest || *rest == '?' || *rest == '#' || (rest[0] == '/' && (!rest[1] || rest[1] == '?' || rest[1] == '#'));
	if (!bare)
		return (*out = strdup(name)) ? 0 : -ENOMEM;
	int prefix = (int)(rest - name);   /* SCHEME://HOST[:PORT] */
	if (*rest == '/')
		rest++;
	return asprintf(out, "%.*s/v1/partitions%s", prefix, name, rest) < 0 ? -ENOMEM : 0;
}

static int fetch_url(const char *name, const struct ss_httpconf *hc, long timeout_ms, size_t max_bytes,
		     struct ss_report *rep, char **display, char *err, size_t errlen)
{
	struct ss_http_resp resp = { 0 };
	char *url = NULL;
	int r;
	if ((r = with_default_path(name, &url)))
		return r;
	if (!(*display = ss_http_display(url))) {
		r = -ENOMEM;
		goto out;
	}
	struct ss_http_req q = {
		.url = url,
		.timeout_ms = timeout_ms,
		.connect_timeout_ms = timeout_ms,
		.max_bytes = max_bytes ? max_bytes : SS_REPORT_MAX_BYTES,
		.accept_encoding = true,   /* serve gzips when asked; the bound is on the decoded body */
		.user_agent = "segscan-merge/" SEGSCAN_VERSION,
		.conf = hc,
	};
	r = ss_http_get1(&q, &resp, err, errlen);
	if (r == -EINVAL || r == -ENOMEM)
		goto out;   /* a URL refused (credentials in it): a usage error */
	if (r) {
		r = -EHOSTUNREACH;   /* a broker that does not answer is missing, the others still merge */
		goto out;
	}
	if (resp.status != 200) {
		snprintf(err, errlen, "%s: HTTP %ld%s", *display, resp.status,
			 resp.status == 401 ? " (unauthorized: basic_auth in --http.config.file)" :
			 resp.status == 503 ? " (its first scan has not finished)" : "");
		r = -EHOSTUNREACH;
		goto out;
	}
	if ((r = ss_report_parse(resp.body ? resp.body : "", resp.len, *display, rep, err, errlen)) == SEGSCAN_EJSON)
		r = -EHOSTUNREACH; /* a broker that answers garbage is missing, the others still merge */
out:
	ss_http_resp_free(&resp);
	free(url);
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
