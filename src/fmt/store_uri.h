/*
 * --remote-store=URI and the AWS shared credentials file: pure parsers (no I/O; the store
 * sources in src/source/ read files and the environment).
 *
 *   file:///DIR                  a directory: keys are the paths below DIR
 *   s3://BUCKET[/PREFIX][?endpoint=URL][&region=R][&max-keys=N][&timeout=MS]
 *                                an S3-compatible bucket: keys are those that start with
 *                                PREFIX (taken raw, as Aiven's key.prefix is concatenated),
 *                                PREFIX removed. endpoint: an http(s) URL for a
 *                                non-AWS store, addressed path-style (URL/BUCKET/KEY);
 *                                without it https://BUCKET.s3.REGION.amazonaws.com.
 *                                max-keys: the page size asked for (1..1000, default 1000);
 *                                timeout: per request in ms (default 30000).
 * Query values are percent-decoded. A bucket name follows S3's rules (3..63 of [a-z0-9.-],
 * starting and ending with a letter or digit).
 */
#ifndef SS_FMT_STORE_URI_H
#define SS_FMT_STORE_URI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ss_store_kind { SS_STORE_FILE, SS_STORE_S3 };

#define SS_STORE_URI_MAX 4096

struct ss_store_uri {
	enum ss_store_kind kind;
	char    path[SS_STORE_URI_MAX];    /* file: the directory */
	char    bucket[64];                /* s3 */
	char    prefix[1025];              /* s3: the key prefix ("" none) */
	char    endpoint[SS_STORE_URI_MAX];/* s3: "" for AWS itself */
	char    region[64];                /* s3: "" = not given */
	int64_t max_keys;                  /* s3: 1..1000 */
	int64_t timeout_ms;                /* s3: per request */
};

/* 0, or -EINVAL with err saying what is wrong ("unknown parameter 'x'", ...). */
int ss_store_uri_parse(const char *uri, struct ss_store_uri *out, char *err, size_t errlen);

/* The shared credentials file (~/.aws/credentials): INI sections "[profile]" with
 * aws_access_key_id, aws_secret_access_key and aws_session_token (names case-insensitive,
 * '#' and ';' comment lines, "key = value"). */
struct ss_aws_creds {
	char access_key[256];
	char secret_key[256];
	char session_token[4096];   /* "" none */
};

/*
 * The section named `profile` of a credentials file of len bytes. Returns 0 (both keys
 * found), -ENOENT (no such section, or it lacks a key: err says which), -EINVAL (a line
 * that is neither a section, a comment, blank nor key = value: err names the line), or
 * -E2BIG (a value longer than its field).
 */
int ss_aws_creds_parse(const char *buf, size_t len, const char *profile, struct ss_aws_creds *out, char *err,
		       size_t errlen);

#endif
