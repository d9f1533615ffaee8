/*
 * --http.config.file: how `segscan merge` authenticates to serve endpoints, in the
 * HTTP client configuration format of the Prometheus tools (what promtool's
 * --http.config.file and a scrape config's tls_config/basic_auth take), the subset a
 * client of `segscan serve --web.config.file` needs:
 *
 *   basic_auth:
 *     username: alice
 *     password_file: /etc/segscan/merge.pass   # first line; or password: (inline)
 *   tls_config:
 *     ca_file: ca.crt        # PEM; default: the system's CAs
 *     cert_file: client.crt  # a client certificate, with key_file
 *     key_file: client.key
 *     server_name: broker-1  # the name the certificate must carry (default: the URL's host)
 *     insecure_skip_verify: false
 *
 * Relative file names are relative to the config file's directory, as Prometheus
 * resolves them. Any other key is an error that names it (Prometheus decodes strictly
 * too), so a file written for promtool never silently means less here. The same YAML
 * subset as --web.config.file: comments, quoted scalars, one level of mappings.
 *
 * Pure (fuzzed: tests/fuzz/fuzz_httpconf.c); reading the files it names is the
 * caller's (merge/fetch.c).
 */
#ifndef SS_FMT_HTTPCONF_H
#define SS_FMT_HTTPCONF_H

#include <stdbool.h>
#include <stddef.h>

struct ss_httpconf {
	char *username, *password, *password_file;
	char *ca_file, *cert_file, *key_file, *server_name;
	bool  insecure_skip_verify;
};

#define SS_HTTPCONF_MAX ((size_t)1 << 20)

/* 0, or SEGSCAN_ECONFIG / -ENOMEM with "FILE:LINE: problem" in err. */
int  ss_httpconf_parse(const char *buf, size_t len, const char *fname, struct ss_httpconf *c, char *err,
		       size_t errlen);
void ss_httpconf_free(struct ss_httpconf *c);

#endif
