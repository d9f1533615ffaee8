/*
 * Remote stores as a source: a listing of the remote tier's objects, delivered as a stream
 * of (key, size) in key order, page by page with bounded memory, and reads of small
 * objects (Aiven's manifests). One backend per kind of store:
 *
 *   file:///DIR   source/store_file.c  a directory tree (Kafka's LocalTieredStorage, an
 *                                      Aiven filesystem backend), walked in S3's key order
 *   s3://BUCKET   source/store_s3.c    an S3-compatible bucket: ListObjectsV2 pages
 *                                      (libcurl, SigV4 by CURLOPT_AWS_SIGV4), parsed by
 *                                      fmt/s3_list.c; HEAD only for an object the listing
 *                                      gives no size for
 *
 * Read-only: a store is listed and read, never written, and nothing is fetched of segment
 * data. The URI is fmt/store_uri.h's. Keys are relative to the store's root (file: the
 * directory; s3: the bucket with the URI's prefix removed).
 */
#ifndef SS_SOURCE_STORE_H
#define SS_SOURCE_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/store_uri.h"

struct ss_store;

struct ss_store_env {
	const atomic_bool *cancel;      /* polled between and during requests (may be NULL) */
	const atomic_bool *stop;        /* a second such flag (may be NULL) */
	int64_t            rate;        /* requests per second, 0 = unlimited (--rate) */
	/* the environment of credentials and region (tests pass their own; NULL: getenv) */
	const char      *(*getenv)(const char *name);
};

/* One listed object; return non-zero to stop the listing (returned by ss_store_list). */
typedef int (*ss_store_obj_fn)(void *arg, const char *key, size_t len, int64_t size);
/* After each page: `listed` objects so far. Non-zero stops the listing. */
typedef int (*ss_store_page_fn)(void *arg, uint64_t listed);

/*
 * Open a store. 0, or a negative errno with err saying why: -EINVAL (a URI or a
 * credentials file the operator must fix), -ENOENT (file: no such directory), -EACCES
 * (a credentials file others can write), -ENOMEM.
 */
int  ss_store_open(const struct ss_store_uri *u, const struct ss_store_env *env, struct ss_store **out, char *err,
		   size_t errlen);
void ss_store_close(struct ss_store *st);

/* "s3://bucket/prefix" or "file:///dir": how messages name the store (no credentials). */
const char *ss_store_name(const struct ss_store *st);

/*
 * List every object in key order (S3's: bytewise), calling fn for each and page after
 * each page. Returns 0 when the listing reached its end; fn's or page's non-zero return;
 * -ECANCELED; or a negative errno with err saying what the store answered (-EACCES
 * refused, -ENOENT no such bucket or directory, -ETIMEDOUT no answer in time, -EPROTO a
 * malformed answer, -EIO any other failure). Objects already delivered stay delivered:
 * the caller knows the last key.
 */
int  ss_store_list(struct ss_store *st, ss_store_obj_fn fn, ss_store_page_fn page, void *arg, char *err,
		   size_t errlen);

/* A small object whole (at most max bytes: -EFBIG beyond). *out is malloc'd and
 * NUL-terminated. Errors as ss_store_list's. */
int  ss_store_get(struct ss_store *st, const char *key, size_t max, char **out, size_t *len, char *err,
		  size_t errlen);

/* An object read whole as a stream (--deep): fn gets its bytes in order, in pieces; its
 * non-zero return stops the read and is returned. Errors as ss_store_list's. */
typedef int (*ss_store_data_fn)(void *arg, const void *buf, size_t len);
int  ss_store_read(struct ss_store *st, const char *key, ss_store_data_fn fn, void *arg, char *err, size_t errlen);

/* Requests made so far (LIST pages, HEADs, GETs; file: directories read and files opened). */
uint64_t ss_store_requests(const struct ss_store *st);

#endif
