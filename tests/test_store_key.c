/*
 * Remote-store keys under both layouts (fmt/store_key.h), --remote-store URIs and the AWS
 * credentials file (fmt/store_uri.h). The keys are written from Kafka's own examples
 * (RemoteTopicPartitionDirectory's and RemoteLogSegmentFileset's javadoc) and Aiven's
 * ObjectKeyFactory javadoc, with Kafka's parse of a topic that holds '-' and digits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/names.h"
#include "fmt/store_key.h"
#include "fmt/store_uri.h"

static enum ss_key_parse parse(enum ss_store_layout l, const char *k, struct ss_store_key *o, const char **why)
{
	return ss_store_key_parse(l, k, strlen(k), o, why);
}

static void t_lts(void **st)
{
	(void)st;
	struct ss_store_key k;
	const char *why;
	/* LocalTieredStorage's own example names */
	const char *key = "kafka-tiered-storage/topic-3-5fEBmixCR5-dMntYSLIr1g/00000000000000000011-oAtiIQ95REujbuzNd_lkLQ.log";
	assert_int_equal(parse(SS_LAYOUT_LTS, key, &k, &why), SS_KEY_OBJECT);
	assert_int_equal(k.topic_len, 5);
	assert_memory_equal(k.topic, "topic", 5);
	assert_int_equal(k.partition, 3);
	assert_true(k.lts_root);
	assert_int_equal(k.start_offset, 11);
	assert_int_equal(k.kind, SS_OBJ_LOG);
	char t[23];
	ss_uuid_format(k.topic_id, t);
	assert_string_equal(t, "5fEBmixCR5-dMntYSLIr1g");
	ss_uuid_format(k.seg_id, t);
	assert_string_equal(t, "oAtiIQ95REujbuzNd_lkLQ");
	assert_int_equal(k.part_len, strlen("kafka-tiered-storage/topic-3-5fEBmixCR5-dMntYSLIr1g/"));
	assert_int_equal(k.seg_len, strlen(key) - 4);
	/* a topic with '-' and digits, a partition of two digits, an id that starts with '-' */
	assert_int_equal(parse(SS_LAYOUT_LTS, "a-1-2-12--5fEBmixCR5-dMntYSLIrg/00000000000000000000-oAtiIQ95REujbuzNd_lkLQ.leader_epoch_checkpoint",
			       &k, &why), SS_KEY_OBJECT);
	assert_int_equal(k.topic_len, 5);
	assert_memory_equal(k.topic, "a-1-2", 5);
	assert_int_equal(k.partition, 12);
	assert_false(k.lts_root);
	assert_int_equal(k.kind, SS_OBJ_EPOCH);
	static const struct { const char *suf; enum ss_obj_kind k; } sufs[] = {
		{ ".index", SS_OBJ_INDEX }, { ".timeindex", SS_OBJ_TIMEINDEX }, { ".txnindex", SS_OBJ_TXNINDEX },
		{ ".snapshot", SS_OBJ_SNAPSHOT },
	};
	for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++) {
		char b[200];
		snprintf(b, sizeof(b), "t-0-5fEBmixCR5-dMntYSLIr1g/00000000000000000000-oAtiIQ95REujbuzNd_lkLQ%s", sufs[i].suf);
		assert_int_equal(parse(SS_LAYOUT_LTS, b, &k, &why), SS_KEY_OBJECT);
		assert_int_equal(k.kind, sufs[i].k);
	}
	/* not the layout's */
	static const char *const part[] = {
		"t-0-5fEBmixCR5-dMntYSLIr1g/README",
		"t-0-5fEBmixCR5-dMntYSLIr1g/00000000000000000000-oAtiIQ95REujbuzNd_lkLQ.log.deleted",
		"t-0-5fEBmixCR5-dMntYSLIr1g/00000000000000000000-oAtiIQ95REujbuzNd_lkLQ.rsm-manifest",
		"t-0-5fEBmixCR5-dMntYSLIr1g/0000000000000000000-oAtiIQ95REujbuzNd_lkLQ.log",
		"t-0-5fEBmixCR5-dMntYSLIr1g/00000000000000000000-oAtiIQ95REujbuzNd_lkLR.log",
		"t-0-5fEBmixCR5-dMntYSLIr1g/00000000000000000000-oAtiIQ95REujbuzNd_lk.log",
		"t-0-5fEBmixCR5-dMntYSLIr1g/sub/00000000000000000000-oAtiIQ95REujbuzNd_lkLQ.log",
		"t-0-5fEBmixCR5-dMntYSLIr1g/99999999999999999999-oAtiIQ95REujbuzNd_lkLQ.log",
	};
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		why = NULL;
		assert_int_equal(parse(SS_LAYOUT_LTS, part[i], &k, &why), SS_KEY_PARTITION);
		assert_non_null(why);
		assert_int_equal(k.partition, 0);
	}
	static const char *const none[] = {
		"", "README", "kafka-tiered-storage/README", "t-5fEBmixCR5-dMntYSLIr1g/x", "t-01-5fEBmixCR5-dMntYSLIr1g/x",
		"-0-5fEBmixCR5-dMntYSLIr1g/x", "t-0-5fEBmixCR5-dMntYSLIr1h/x", "t!-0-5fEBmixCR5-dMntYSLIr1g/x",
		"t-2147483648-5fEBmixCR5-dMntYSLIr1g/x", "t0-5fEBmixCR5-dMntYSLIr1g/x",
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		why = NULL;
		assert_int_equal(parse(SS_LAYOUT_LTS, none[i], &k, &why), SS_KEY_NONE);
		assert_non_null(why);
	}
	char b[128];
	uint8_t id[16];
	assert_int_equal(ss_uuid_parse("5fEBmixCR5-dMntYSLIr1g", 22, id), 0);
	assert_int_equal(ss_store_part_prefix(SS_LAYOUT_LTS, true, "topic", 5, 3, id, b, sizeof(b)),
			 (int)strlen("kafka-tiered-storage/topic-3-5fEBmixCR5-dMntYSLIr1g/"));
	assert_string_equal(b, "kafka-tiered-storage/topic-3-5fEBmixCR5-dMntYSLIr1g/");
	assert_int_equal(ss_store_part_prefix(SS_LAYOUT_LTS, false, "topic", 5, 3, id, b, 10), -ENAMETOOLONG);
	char seg[SS_STORE_SEG_NAME_LEN];
	assert_int_equal(ss_uuid_parse("oAtiIQ95REujbuzNd_lkLQ", 22, id), 0);
	ss_store_seg_name(11, id, seg);
	assert_string_equal(seg, "00000000000000000011-oAtiIQ95REujbuzNd_lkLQ");
	ss_store_seg_name(INT64_MAX, id, seg);
	assert_string_equal(seg, "09223372036854775807-oAtiIQ95REujbuzNd_lkLQ");
}

static void t_aiven(void **st)
{
	(void)st;
	struct ss_store_key k;
	const char *why;
	/* ObjectKeyFactory's javadoc example, prefix removed */
	const char *key = "topic-MWJ6FHTfRYy67jzwZdeqSQ/7/00000000000000001234-tqimKeZwStOEOwRzT3L5oQ.log";
	assert_int_equal(parse(SS_LAYOUT_AIVEN, key, &k, &why), SS_KEY_OBJECT);
	assert_memory_equal(k.topic, "topic", 5);
	assert_int_equal(k.topic_len, 5);
	assert_int_equal(k.partition, 7);
	assert_int_equal(k.start_offset, 1234);
	assert_int_equal(k.kind, SS_OBJ_LOG);
	assert_int_equal(k.part_len, strlen("topic-MWJ6FHTfRYy67jzwZdeqSQ/7/"));
	assert_int_equal(parse(SS_LAYOUT_AIVEN, "a-b-MWJ6FHTfRYy67jzwZdeqSQ/0/00000000000000001234-tqimKeZwStOEOwRzT3L5oQ.indexes",
			       &k, &why), SS_KEY_OBJECT);
	assert_int_equal(k.kind, SS_OBJ_INDEXES);
	assert_int_equal(k.topic_len, 3);
	assert_int_equal(parse(SS_LAYOUT_AIVEN, "t-MWJ6FHTfRYy67jzwZdeqSQ/0/00000000000000001234-tqimKeZwStOEOwRzT3L5oQ.rsm-manifest",
			       &k, &why), SS_KEY_OBJECT);
	assert_int_equal(k.kind, SS_OBJ_MANIFEST);
	/* LocalTieredStorage's suffixes are not Aiven's */
	assert_int_equal(parse(SS_LAYOUT_AIVEN, "t-MWJ6FHTfRYy67jzwZdeqSQ/0/00000000000000001234-tqimKeZwStOEOwRzT3L5oQ.index",
			       &k, &why), SS_KEY_PARTITION);
	assert_int_equal(parse(SS_LAYOUT_AIVEN, "t-MWJ6FHTfRYy67jzwZdeqSQ/x/y", &k, &why), SS_KEY_NONE);
	assert_int_equal(parse(SS_LAYOUT_AIVEN, "t-MWJ6FHTfRYy67jzwZdeqSQ/007/y", &k, &why), SS_KEY_NONE);
	/* an LTS key read as Aiven's: no partition component */
	assert_int_equal(parse(SS_LAYOUT_AIVEN, "t-0-5fEBmixCR5-dMntYSLIr1g/00000000000000000000-oAtiIQ95REujbuzNd_lkLQ.log",
			       &k, &why), SS_KEY_NONE);
	char b[128];
	uint8_t id[16];
	assert_int_equal(ss_uuid_parse("MWJ6FHTfRYy67jzwZdeqSQ", 22, id), 0);
	ss_store_part_prefix(SS_LAYOUT_AIVEN, false, "topic", 5, 7, id, b, sizeof(b));
	assert_string_equal(b, "topic-MWJ6FHTfRYy67jzwZdeqSQ/7/");
	assert_int_equal(ss_store_layout_parse("aiven", 5), SS_LAYOUT_AIVEN);
	assert_int_equal(ss_store_layout_parse("local-tiered-storage", 20), SS_LAYOUT_LTS);
	assert_int_equal(ss_store_layout_parse("lts", 3), -1);
}

static void t_uri(void **st)
{
	(void)st;
	struct ss_store_uri u;
	char err[200];
	assert_int_equal(ss_store_uri_parse("file:///var/lib/kafka/tiered/", &u, err, sizeof(err)), 0);
	assert_int_equal(u.kind, SS_STORE_FILE);
	assert_string_equal(u.path, "/var/lib/kafka/tiered");
	assert_int_equal(ss_store_uri_parse("file:///a%20b", &u, err, sizeof(err)), 0);
	assert_string_equal(u.path, "/a b");
	assert_int_equal(ss_store_uri_parse("s3://my-bucket", &u, err, sizeof(err)), 0);
	assert_int_equal(u.kind, SS_STORE_S3);
	assert_string_equal(u.bucket, "my-bucket");
	assert_string_equal(u.prefix, "");
	assert_int_equal(u.max_keys, 1000);
	assert_int_equal(u.timeout_ms, 30000);
	assert_int_equal(ss_store_uri_parse("s3://b.c1/tiered/prod-?endpoint=http%3A%2F%2F127.0.0.1%3A7070/&region=eu-west-1"
					    "&max-keys=2&timeout=1500", &u, err, sizeof(err)), 0);
	assert_string_equal(u.bucket, "b.c1");
	assert_string_equal(u.prefix, "tiered/prod-");
	assert_string_equal(u.endpoint, "http://127.0.0.1:7070");
	assert_string_equal(u.region, "eu-west-1");
	assert_int_equal(u.max_keys, 2);
	assert_int_equal(u.timeout_ms, 1500);
	assert_int_equal(ss_store_uri_parse("s3://kts?endpoint=http://127.0.0.1:7070", &u, err, sizeof(err)), 0);
	assert_string_equal(u.endpoint, "http://127.0.0.1:7070");
	static const char *const bad[] = {
		"", "http://x", "file://relative", "file:///a?b=c", "s3://", "s3://AB", "s3://ab", "s3://-ab/",
		"s3://abc?region=a/b", "s3://abc?max-keys=0", "s3://abc?max-keys=1001", "s3://abc?x=1",
		"s3://abc?endpoint=ftp://x", "s3://abc?endpoint", "s3://abc/%zz", "s3://abc#f", "file:///a%00b",
		"s3://abc?timeout=-1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(ss_store_uri_parse(bad[i], &u, err, sizeof(err)), -EINVAL);
		assert_true(err[0]);
	}
}

static void t_creds(void **st)
{
	(void)st;
	struct ss_aws_creds c;
	char err[200];
	const char f[] = "# a comment\n[default]\naws_access_key_id = AKDEF\naws_secret_access_key=SKDEF\n\n"
			 "[kafka]\n  AWS_ACCESS_KEY_ID =AKK \r\n; another\naws_secret_access_key = SK/K+1\n"
			 "aws_session_token = TOK\nregion = eu-west-1\n";
	assert_int_equal(ss_aws_creds_parse(f, sizeof(f) - 1, "default", &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "AKDEF");
	assert_string_equal(c.secret_key, "SKDEF");
	assert_string_equal(c.session_token, "");
	assert_int_equal(ss_aws_creds_parse(f, sizeof(f) - 1, "kafka", &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "AKK");
	assert_string_equal(c.secret_key, "SK/K+1");
	assert_string_equal(c.session_token, "TOK");
	assert_int_equal(ss_aws_creds_parse(f, sizeof(f) - 1, "nope", &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "[nope]"));
	const char g[] = "[default]\naws_access_key_id = A\n";
	assert_int_equal(ss_aws_creds_parse(g, sizeof(g) - 1, "default", &c, err, sizeof(err)), -ENOENT);
	const char h[] = "[default]\nthis is not a line\n";
	assert_int_equal(ss_aws_creds_parse(h, sizeof(h) - 1, "default", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 2"));
	const char i[] = "[default\n";
	assert_int_equal(ss_aws_creds_parse(i, sizeof(i) - 1, "default", &c, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_lts), cmocka_unit_test(t_aiven), cmocka_unit_test(t_uri), cmocka_unit_test(t_creds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
