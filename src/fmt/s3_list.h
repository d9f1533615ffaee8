/*
 * The S3 ListObjectsV2 response (and S3's <Error> body), parsed as it arrives: a push
 * parser over expat fed the HTTP body in chunks, calling back once per <Contents> with
 * its Key and Size. Pure: no I/O (source/store_s3.c does the requests).
 *
 * Schema: https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
 *   <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
 *     <IsTruncated>true</IsTruncated> <KeyCount>2</KeyCount> <NextContinuationToken>..</..>
 *     <Contents><Key>a/b</Key><Size>12</Size><LastModified>..</LastModified>...</Contents>
 *   </ListBucketResult>
 *   <Error><Code>NoSuchBucket</Code><Message>...</Message></Error>
 * Elements are matched by local name (any namespace) at their place in the tree; unknown
 * elements are ignored. A document type declaration is refused (no entity can be defined,
 * so none can be expanded), every text is bounded (a key is at most 1024 bytes in S3), and
 * expat's amplification limits stay on.
 */
#ifndef SS_FMT_S3_LIST_H
#define SS_FMT_S3_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SS_S3_KEY_MAX   1024   /* S3's own limit on a key's UTF-8 bytes */
#define SS_S3_TOKEN_MAX 4096   /* a continuation token (opaque; AWS's are ~100 bytes) */

struct ss_s3_object {
	const char *key;       /* NUL-terminated, key_len bytes (valid during the callback) */
	size_t      key_len;
	int64_t     size;      /* valid with has_size */
	bool        has_size;  /* the listing gave a <Size> (some stores omit it: HEAD it) */
};

/* Called once per <Contents>, in document order. Non-zero stops the parse: returned by
 * ss_s3_list_feed. */
typedef int (*ss_s3_object_fn)(void *arg, const struct ss_s3_object *o);

struct ss_s3_list_result {
	bool     list;          /* the document was a ListBucketResult */
	bool     truncated;     /* IsTruncated: another page follows */
	bool     has_token;
	char     token[SS_S3_TOKEN_MAX + 1];   /* NextContinuationToken */
	uint64_t objects;       /* <Contents> seen */
	bool     has_key_count;
	uint64_t key_count;     /* KeyCount as given */
	bool     error;         /* the document was an <Error> */
	char     code[64];      /* its Code ("NoSuchBucket", "SignatureDoesNotMatch", ...) */
	char     message[512];  /* its Message */
};

struct ss_s3_list;

/* A parser for one response body. 0, or -ENOMEM. Free with ss_s3_list_free. */
int  ss_s3_list_new(ss_s3_object_fn fn, void *arg, struct ss_s3_list **out);
void ss_s3_list_free(struct ss_s3_list *p);

/*
 * Feed the next len bytes of the body (final: that was the last). Returns 0, the
 * callback's non-zero return, -EPROTO for a body that is not well-formed XML, has a
 * DOCTYPE, a text over its bound, a <Size> that is not a non-negative integer, a
 * <Contents> without a <Key>, or (at the end) is neither a ListBucketResult nor an Error;
 * -ENOMEM. On -EPROTO err says what and where ("line 3, column 7: ...").
 */
int ss_s3_list_feed(struct ss_s3_list *p, const char *buf, size_t len, bool final, char *err, size_t errlen);

/* What the document said (complete after a final feed that returned 0). */
const struct ss_s3_list_result *ss_s3_list_result(const struct ss_s3_list *p);

#endif
