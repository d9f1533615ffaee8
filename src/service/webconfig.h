/*
 * --web.config.file: TLS and basic auth for serve the way Prometheus exporters take them,
 * a subset of the exporter-toolkit web configuration file
 * (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md):
 *
 *   tls_server_config:
 *     cert_file: server.crt        # PEM, relative to the config file's directory
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...            # bcrypt hashes only ($2a$, $2b$, $2y$), as the toolkit,
 *                                  # of a cost from 4 to SS_WEB_BCRYPT_MAX_COST
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
	char *hash;   /* bcrypt, checked at load: well formed, cost 4..SS_WEB_BCRYPT_MAX_COST */
	char *ok_pass; /* the password last verified against hash (the success cache), or NULL */
};

/* The verification budget of one client address (an IPv4 address, an IPv6 /64). */
struct ss_web_client {
	uint8_t  key[16];
	uint8_t  keylen;
	bool     used;
	bool     busy;            /* a verification of its is queued or running */
	long     sec;             /* CLOCK_MONOTONIC second of the count below */
	unsigned n;               /* verifications started in sec */
};

#define SS_WEB_CLIENTS 256        /* client addresses with a budget at once */

struct ss_web_config {
	char   *cert_file, *key_file;   /* as written (parse) */
	char   *cert_pem, *key_pem;     /* their contents, NUL-terminated (load) */
	struct ss_web_user *users;
	uint32_t n_users, cap_users;
	/* The budgets (issue 21 item 7: one global budget let a guesser lock out the right
	 * password). The HTTP thread's alone: ss_web_auth_begin and ss_web_auth_end. */
	struct ss_web_client clients[SS_WEB_CLIENTS];
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
/*
 * Basic auth. A bcrypt costs 50 ms at cost 10 and doubles with each step, so it never
 * runs on the HTTP thread (service/http.c runs it on its verifier thread while the
 * request's connection is suspended), and:
 *   - a password once verified is remembered per user and compared in constant time:
 *     a known-good client never waits for a bcrypt, whatever else is being verified;
 *   - every other attempt is paid from its client address's budget: at most
 *     SS_WEB_BCRYPT_PER_SEC verifications started a second, one at a time; beyond it the
 *     answer is 401 without a bcrypt. A guesser spends its own address's budget, never
 *     the right user's (issue 21 item 7);
 *   - an unknown user name is verified against another user's hash and refused, so its
 *     answer takes as long as a wrong password's;
 *   - hashes above SS_WEB_BCRYPT_MAX_COST are refused at load: one cost-31 verification
 *     would take days (cost 12 is 0.2 s on a current core, each step doubles it).
 */
#define SS_WEB_BCRYPT_PER_SEC  8
#define SS_WEB_BCRYPT_MIN_COST 4   /* bcrypt's own minimum */
#define SS_WEB_BCRYPT_MAX_COST 12

enum ss_web_auth {
	SS_WEB_DENY,    /* 401 now: no credentials, or the client's budget is spent */
	SS_WEB_OK,      /* the remembered password of the user: no bcrypt */
	SS_WEB_VERIFY,  /* a bcrypt is needed: ss_web_bcrypt(v->hash, pass), then ss_web_auth_end */
};

/* What a verification needs, and what ss_web_auth_end gives back. */
struct ss_web_verify {
	const char *hash;   /* the user's hash (or another user's, for an unknown name) */
	int         user;   /* index into users, -1: an unknown name (refused whatever bcrypt says) */
	int         client; /* index into clients: its busy flag is ours until ss_web_auth_end */
};

/* The HTTP thread's decision for user/pass from the client address key (keylen <= 16;
 * 0 is one anonymous client), at CLOCK_MONOTONIC second `sec`. On SS_WEB_VERIFY the caller
 * must call ss_web_auth_end with *v, once, whatever happens to the request. */
enum ss_web_auth ss_web_auth_begin(struct ss_web_config *c, const char *user, const char *pass, const void *key,
				   size_t keylen, long sec, struct ss_web_verify *v);
/* The bcrypt itself (crypt_r of libxcrypt, compared in constant time): any thread, no
 * shared state. */
bool ss_web_bcrypt(const char *hash, const char *pass);
/* The end of a verification begun with SS_WEB_VERIFY: frees its client's turn and, when ok
 * and the user is known, remembers pass for it. Returns whether the request is authorised. */
bool ss_web_auth_end(struct ss_web_config *c, const struct ss_web_verify *v, const char *pass, bool ok);
/* All three on the calling thread, as one anonymous client (tests, fuzzing). */
bool ss_web_auth_ok(struct ss_web_config *c, const char *user, const char *pass);

#endif
