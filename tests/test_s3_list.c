/*
 * The ListObjectsV2 response parser (fmt/s3_list.h): AWS's documented response shape
 * (API_ListObjectsV2 "Response Syntax" and its examples), S3's <Error> body, fed whole and
 * byte by byte with the same result; hostile bodies refused with a position.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/s3_list.h"

struct got {
	char     keys[16][1100];
	int64_t  sizes[16];
	bool     has[16];
	unsigned n;
	int      stop_at;   /* return -ECANCELED at this object (0: never) */
};

static int cb(void *arg, const struct ss_s3_object *o)
{
	struct got *g = arg;
	if (g->stop_at && (int)g->n + 1 == g->stop_at)
		return -ECANCELED;
	if (g->n < 16) {
		memcpy(g->keys[g->n], o->key, o->key_len + 1);
		g->sizes[g->n] = o->size;
		g->has[g->n] = o->has_size;
	}
	g->n++;
	return 0;
}

static const char PAGE[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n"
	"  <Name>bucket</Name><Prefix></Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys>\n"
	"  <IsTruncated>true</IsTruncated>\n"
	"  <Contents><Key>a/b&amp;c</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified>"
	"<ETag>&quot;x&quot;</ETag><Size>12</Size><StorageClass>STANDARD</StorageClass></Contents>\n"
	"  <Contents><Key>a/\xc3\xa9</Key><Size> 0 </Size></Contents>\n"
	"  <Contents><Key>z</Key><Owner><ID>o</ID></Owner></Contents>\n"
	"  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>\n"
	"</ListBucketResult>\n";

static void check_page(const struct got *g, const struct ss_s3_list_result *r)
{
	assert_int_equal(g->n, 3);
	assert_string_equal(g->keys[0], "a/b&c");
	assert_int_equal(g->sizes[0], 12);
	assert_true(g->has[0]);
	assert_string_equal(g->keys[1], "a/\xc3\xa9");
	assert_int_equal(g->sizes[1], 0);
	assert_string_equal(g->keys[2], "z");
	assert_false(g->has[2]);
	assert_true(r->list);
	assert_true(r->truncated);
	assert_true(r->has_token);
	assert_string_equal(r->token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
	assert_int_equal(r->key_count, 3);
	assert_int_equal(r->objects, 3);
	assert_false(r->error);
}

static void t_page(void **st)
{
	(void)st;
	struct ss_s3_list *p;
	struct got g = { 0 };
	assert_int_equal(ss_s3_list_new(cb, &g, &p), 0);
	assert_int_equal(ss_s3_list_feed(p, PAGE, sizeof(PAGE) - 1, true, NULL, 0), 0);
	check_page(&g, ss_s3_list_result(p));
	ss_s3_list_free(p);
	/* byte by byte: the same */
	struct got g2 = { 0 };
	assert_int_equal(ss_s3_list_new(cb, &g2, &p), 0);
	for (size_t i = 0; i < sizeof(PAGE) - 1; i++)
		assert_int_equal(ss_s3_list_feed(p, PAGE + i, 1, false, NULL, 0), 0);
	assert_int_equal(ss_s3_list_feed(p, "", 0, true, NULL, 0), 0);
	check_page(&g2, ss_s3_list_result(p));
	ss_s3_list_free(p);
}

static void t_last_page(void **st)
{
	(void)st;
	const char x[] = "<ListBucketResult><IsTruncated>false</IsTruncated><KeyCount>0</KeyCount></ListBucketResult>";
	struct ss_s3_list *p;
	struct got g = { 0 };
	assert_int_equal(ss_s3_list_new(cb, &g, &p), 0);
	assert_int_equal(ss_s3_list_feed(p, x, sizeof(x) - 1, true, NULL, 0), 0);
	const struct ss_s3_list_result *r = ss_s3_list_result(p);
	assert_true(r->list);
	assert_false(r->truncated);
	assert_false(r->has_token);
	assert_int_equal(g.n, 0);
	ss_s3_list_free(p);
}

static void t_error(void **st)
{
	(void)st;
	const char x[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InvalidAccessKeyId</Code>"
			 "<Message>The AWS Access Key Id you provided does not exist in our records.</Message>"
			 "<RequestId>1</RequestId></Error>";
	struct ss_s3_list *p;
	assert_int_equal(ss_s3_list_new(cb, NULL, &p), 0);
	assert_int_equal(ss_s3_list_feed(p, x, sizeof(x) - 1, true, NULL, 0), 0);
	const struct ss_s3_list_result *r = ss_s3_list_result(p);
	assert_true(r->error);
	assert_false(r->list);
	assert_string_equal(r->code, "InvalidAccessKeyId");
	assert_non_null(strstr(r->message, "does not exist"));
	ss_s3_list_free(p);
}

static int feed(const char *x, size_t n, char *err, size_t el, struct got *g)
{
	struct ss_s3_list *p;
	assert_int_equal(ss_s3_list_new(cb, g, &p), 0);
	int r = ss_s3_list_feed(p, x, n, true, err, el);
	ss_s3_list_free(p);
	return r;
}

static void t_hostile(void **st)
{
	(void)st;
	char err[256];
	struct got g = { 0 };
	/* entities cannot be declared */
	const char bomb[] = "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;\">]>"
			    "<ListBucketResult><Contents><Key>&b;</Key></Contents></ListBucketResult>";
	assert_int_equal(feed(bomb, sizeof(bomb) - 1, err, sizeof(err), &g), -EPROTO);
	assert_non_null(strstr(err, "document type"));
	assert_int_equal(g.n, 0);
	/* a key over S3's 1024 bytes */
	char big[3000];
	int n = snprintf(big, sizeof(big), "<ListBucketResult><Contents><Key>");
	memset(big + n, 'k', 1025);
	n += 1025;
	n += snprintf(big + n, sizeof(big) - (size_t)n, "</Key></Contents></ListBucketResult>");
	assert_int_equal(feed(big, (size_t)n, err, sizeof(err), &g), -EPROTO);
	assert_non_null(strstr(err, "1024"));
	/* a size that is not one */
	const char sz[] = "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>";
	assert_int_equal(feed(sz, sizeof(sz) - 1, err, sizeof(err), &g), -EPROTO);
	const char sz2[] = "<ListBucketResult><Contents><Key>k</Key><Size>99999999999999999999</Size></Contents>"
			   "</ListBucketResult>";
	assert_int_equal(feed(sz2, sizeof(sz2) - 1, err, sizeof(err), &g), -EPROTO);
	const char nokey[] = "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>";
	assert_int_equal(feed(nokey, sizeof(nokey) - 1, err, sizeof(err), &g), -EPROTO);
	/* not well-formed, not finished, not S3's */
	const char bad[] = "<ListBucketResult><Contents><Key>k</Contents>";
	assert_int_equal(feed(bad, sizeof(bad) - 1, err, sizeof(err), &g), -EPROTO);
	assert_non_null(strstr(err, "line 1"));
	const char cut[] = "<ListBucketResult><Contents>";
	assert_int_equal(feed(cut, sizeof(cut) - 1, err, sizeof(err), &g), -EPROTO);
	const char html[] = "<html><body>502 Bad Gateway</body></html>";
	assert_int_equal(feed(html, sizeof(html) - 1, err, sizeof(err), &g), -EPROTO);
	assert_int_equal(feed("", 0, err, sizeof(err), &g), -EPROTO);
	/* deep nesting */
	char deep[2000];
	size_t d = 0;
	d += (size_t)snprintf(deep, sizeof(deep), "<ListBucketResult>");
	for (int i = 0; i < 100; i++)
		d += (size_t)snprintf(deep + d, sizeof(deep) - d, "<a>");
	assert_int_equal(feed(deep, d, err, sizeof(err), &g), -EPROTO);
}

static void t_stop(void **st)
{
	(void)st;
	struct got g = { .stop_at = 2 };
	assert_int_equal(feed(PAGE, sizeof(PAGE) - 1, NULL, 0, &g), -ECANCELED);
	assert_int_equal(g.n, 1);
	/* a namespace prefix is the same element */
	const char ns[] = "<s3:ListBucketResult xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\"><s3:Contents>"
			  "<s3:Key>k</s3:Key><s3:Size>3</s3:Size></s3:Contents></s3:ListBucketResult>";
	struct got g2 = { 0 };
	assert_int_equal(feed(ns, sizeof(ns) - 1, NULL, 0, &g2), 0);
	assert_int_equal(g2.n, 1);
	assert_int_equal(g2.sizes[0], 3);
	/* a <Key> elsewhere (Owner, CommonPrefixes) is not an object */
	const char cp[] = "<ListBucketResult><CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes><Key>x</Key>"
			  "</ListBucketResult>";
	struct got g3 = { 0 };
	assert_int_equal(feed(cp, sizeof(cp) - 1, NULL, 0, &g3), 0);
	assert_int_equal(g3.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_page), cmocka_unit_test(t_last_page), cmocka_unit_test(t_error),
		cmocka_unit_test(t_hostile), cmocka_unit_test(t_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
