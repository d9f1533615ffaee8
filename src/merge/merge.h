/*
 * `segscan merge`: several brokers' `segscan scan -f json` reports into one cluster
 * report (model/cluster.h). Two halves:
 *
 *   ss_merge      pure: parsed reports in, the cluster view out. It reads nothing but the
 *                 reports (no log dir, no cluster), so tests hand it reports made by hand.
 *   ss_merge_fetch the source (fetch.c): a report file through common/file.h, or a serve
 *                 endpoint's /v1/partitions through libcurl, bounded in size and time,
 *                 with --http.config.file's TLS and basic auth (fmt/httpconf.h).
 *
 * The merge lives outside libsegscan (build/libss_merge.a, in the binary) because its
 * HTTP client links libcurl, which the scanner does not need.
 */
#ifndef SS_MERGE_H
#define SS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/httpconf.h"
#include "fmt/report.h"
#include "model/cluster.h"

/* One input for ss_merge: a parsed report, or why there is none (an endpoint that could
 * not be read: the broker is listed as missing). */
struct ss_merge_input {
	const char             *name;
	const struct ss_report *rep;    /* NULL: missing */
	const char             *error;  /* rep NULL: why */
};

/*
 * Merge n inputs into *out (zeroed by the caller; ss_cluster_free whatever the result).
 * Returns 0; SEGSCAN_EMISMATCH with err naming the inputs when they cannot be one
 * cluster's reports (different cluster ids or segscan versions; a row with no node id;
 * one node's replica of a partition in two reports): a usage error, exit 2; -EINVAL (no
 * input at all); -ENOMEM.
 */
int  ss_merge(const struct ss_merge_input *in, uint32_t n, struct ss_cluster *out, char *err, size_t errlen);
void ss_cluster_free(struct ss_cluster *c);

/* --http.config.file: the file, its relative paths resolved against its directory, and
 * basic_auth.password_file read into password. 0, or an error with err saying it. */
int ss_merge_httpconf_load(const char *path, struct ss_httpconf *hc, char *err, size_t errlen);

/* Is name an http:// or https:// URL (else a file)? */
bool ss_merge_is_url(const char *name);

/*
 * Read one report. A file: ss_read_file (at most SS_REPORT_MAX_BYTES), then
 * ss_report_parse. An http(s)://HOST:PORT[/PATH] URL: GET PATH (default /v1/partitions),
 * at most max_bytes of body (0: SS_REPORT_MAX_BYTES) within timeout_ms, no redirects,
 * then ss_report_parse.
 *
 * Returns 0 with *rep filled; SEGSCAN_EJSON (a report that does not parse: err says where)
 * or a negative errno (a file that cannot be read) with err naming the input; for a URL,
 * -EHOSTUNREACH with err saying why the endpoint gave no report (refused, a timeout, an
 * HTTP status, TLS, a body over the bound): the broker is then missing, not a usage error.
 * display gets the name to show (the URL without user:password@), malloc'd.
 */
int ss_merge_fetch(const char *name, const struct ss_httpconf *hc, long timeout_ms, size_t max_bytes,
		   struct ss_report *rep, char **display, char *err, size_t errlen);

#endif
