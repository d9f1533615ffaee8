/*
 * --web.config.file: TLS and basic auth for serve the way Prometheus exporters take them,
 * a subset of the exporter-toolkit web configuration file
 * (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md):
 *
 *   tls_server_config:
 *     cert_file: server.crt        # PEM, relative to the config file's directory
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...            # bcrypt hashes only ($2a$, $2b$, $2y$), as the toolkit
 *
 * Any other key (client_auth_type, min_version, http_server_config, ...) is an error that
 * names it, as the toolkit's strict YAML decoding refuses unknown fields; so a file
 * written for it never silently means less here. Comments (#), blank lines, quoted
 * scalars ('...' or "...") and any consistent indentation are accepted: no other YAML.
 *
 * ss_web_config_parse is pure (fuzzed: tests/fuzz/fuzz_webconfig.c); ss_web_config_load
 * reads the file and the certificate and key it names.
 */
#ifndef SS_SERVICE_WEBCONFIG_H
#define SS_SERVICE_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ss_web_user {
	char *name;
	char *hash;   /* bcrypt */
	char *ok_pass; /* the password last verified against hash (the success cache), or NULL */
};

struct ss_web_config {
	char   *cert_file, *key_file;   /* as written (parse) */
	char   *cert_pem, *key_pem;     /* their contents, NUL-terminated (load) */
	struct ss_web_user *users;
	uint32_t n_users, cap_users;
	long     bcrypt_sec;      /* CLOCK_MONOTONIC second of the count below */
	unsigned bcrypt_n;        /* verifications in bcrypt_sec */
};

#define SS_WEB_CONFIG_MAX   ((size_t)1 << 20)  /* the file; a certificate chain is KiBs */

/* 0, or SEGSCAN_ECONFIG / -ENOMEM with "FILE:LINE: problem" in err. */
int  ss_web_config_parse(const char *buf, size_t len, const char *fname, struct ss_web_config *c, char *err,
			 size_t errlen);
/* The file at path, then the certificate and key it names. 0 or a negative error with
 * err filled. */
int  ss_web_config_load(const char *path, struct ss_web_config *c, char *err, size_t errlen);
void ss_web_config_free(struct ss_web_config *c);
static inline bool ss_web_tls(const struct ss_web_config *c) { return c && c->cert_pem && c->key_pem; }
/* With users configured: true when user/pass match one (crypt(3) of the bcrypt hash).
 * A bcrypt costs tens of milliseconds on the HTTP thread, so: a password once verified is
 * remembered per user (compared in constant time, no bcrypt), and at most
 * SS_WEB_BCRYPT_PER_SEC other verifications run per second (beyond: refused without one),
 * so wrong passwords cannot stall the scrapes. Called from MHD's one polling thread. */
#define SS_WEB_BCRYPT_PER_SEC 8
bool ss_web_auth_ok(struct ss_web_config *c, const char *user, const char *pass);

#endif
