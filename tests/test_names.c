/* Partition directory names, file classification, checkpoint files and
 * partition.metadata, as the broker's parsers accept or reject them (§1). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/names.h"
#include "segscan.h"

#define UID "0123456789abcdef0123456789abcdef"

static void dir_ok(const char *name, const char *topic, int32_t part, enum ss_dir_kind kind)
{
	struct ss_dirname d;
	int rc = ss_dirname_parse(name, &d);
	if (rc)
		fail_msg("%s: rejected", name);
	assert_int_equal(d.topic_len, strlen(topic));
	assert_memory_equal(d.topic, topic, d.topic_len);
	assert_ptr_equal(d.topic, name);
	assert_int_equal(d.partition, part);
	assert_int_equal(d.kind, kind);
}

static void dir_bad(const char *name)
{
	struct ss_dirname d;
	if (ss_dirname_parse(name, &d) != SEGSCAN_EDIRNAME)
		fail_msg("%s: accepted", name);
}

static void test_dirnames(void **state)
{
	dir_ok("orders-0", "orders", 0, SS_DIR_LIVE);
	dir_ok("my.topic-with-dashes_and.dots-12", "my.topic-with-dashes_and.dots", 12, SS_DIR_LIVE);
	dir_ok("__consumer_offsets-49", "__consumer_offsets", 49, SS_DIR_LIVE);
	dir_ok("t-2147483647", "t", 2147483647, SS_DIR_LIVE);
	dir_ok("t--1", "t-", 1, SS_DIR_LIVE);            /* split at the last '-' */
	dir_ok("t-007", "t", 7, SS_DIR_LIVE);            /* Integer.parseInt */
	dir_ok("t-+5", "t", 5, SS_DIR_LIVE);             /* Integer.parseInt takes a '+' */
	dir_ok("orders-3." UID "-delete", "orders", 3, SS_DIR_DELETE);
	dir_ok("my.topic-3." UID "-delete", "my.topic", 3, SS_DIR_DELETE);
	dir_ok("a-b.c-17." UID "-future", "a-b.c", 17, SS_DIR_FUTURE);
	dir_ok("orders-3." UID "-stray", "orders", 3, SS_DIR_STRAY);
	dir_ok("orders-3.not-hex-at-all-delete", "orders", 3, SS_DIR_DELETE); /* \S+, not hex */
	dir_ok("x-delete-0", "x-delete", 0, SS_DIR_LIVE); /* a topic named x-delete */

	dir_bad("");
	dir_bad("orders");
	dir_bad("-0");
	dir_bad("orders-");
	dir_bad("orders-x");
	dir_bad("orders-1a");
	dir_bad("orders-1.5");
	dir_bad("t-2147483648");
	dir_bad("t-99999999999999999999");
	dir_bad("t-+");
	dir_bad("orders-delete");                /* the suffix needs <topic>-<p>.<uid> */
	dir_bad("orders-3-delete");
	dir_bad("orders-3.-delete");
	dir_bad("orders.3." UID "-delete");      /* no '-' between topic and partition */
	dir_bad("ord ers-3." UID "-delete");     /* \S+ */
	dir_bad("orders-x." UID "-future");
	dir_bad("remote-log-index-cache");
	dir_bad("lost+found");
	struct ss_dirname d;
	assert_int_equal(ss_dirname_parse(NULL, &d), -EINVAL);
}

static void cls(const char *name, enum ss_file_kind kind, int64_t off, enum ss_file_kind inner)
{
	int64_t o = 12345;
	enum ss_file_kind in = (enum ss_file_kind)99;
	enum ss_file_kind k = ss_file_classify(name, &o, &in);
	if (k != kind || o != off || in != inner)
		fail_msg("%s: kind %d off %lld inner %d, want %d %lld %d", name, k, (long long)o, in, kind,
			 (long long)off, inner);
}

static void test_classify(void **state)
{
	cls("00000000000000000000.log", SS_FILE_LOG, 0, SS_FILE_UNKNOWN);
	cls("00000000000000012345.index", SS_FILE_INDEX, 12345, SS_FILE_UNKNOWN);
	cls("00000000000000012345.timeindex", SS_FILE_TIMEINDEX, 12345, SS_FILE_UNKNOWN);
	cls("09223372036854775807.txnindex", SS_FILE_TXNINDEX, INT64_MAX, SS_FILE_UNKNOWN);
	cls("00000000000000000777.snapshot", SS_FILE_SNAPSHOT, 777, SS_FILE_UNKNOWN);
	cls("00000000000000000100.log.deleted", SS_FILE_DELETED, 100, SS_FILE_LOG);
	cls("00000000000000000100.index.swap", SS_FILE_SWAP, 100, SS_FILE_INDEX);
	cls("00000000000000000100.log.cleaned", SS_FILE_CLEANED, 100, SS_FILE_LOG);
	cls("00000000000000000100.timeindex.cleaned", SS_FILE_CLEANED, 100, SS_FILE_TIMEINDEX);
	cls("00000000000000000100.snapshot.deleted", SS_FILE_DELETED, 100, SS_FILE_SNAPSHOT);
	cls("00000000000000000100.log.swap.deleted", SS_FILE_DELETED, 100, SS_FILE_SWAP);
	cls("partition.metadata", SS_FILE_PARTITION_METADATA, -1, SS_FILE_UNKNOWN);
	cls("leader-epoch-checkpoint", SS_FILE_LEADER_EPOCH, -1, SS_FILE_UNKNOWN);
	cls("leader-epoch-checkpoint.tmp", SS_FILE_TMP, -1, SS_FILE_LEADER_EPOCH);
	cls("partition.metadata.tmp", SS_FILE_TMP, -1, SS_FILE_PARTITION_METADATA);
	cls("foo.tmp", SS_FILE_TMP, -1, SS_FILE_UNKNOWN);
	cls("junk.deleted", SS_FILE_DELETED, -1, SS_FILE_UNKNOWN);
	/* garbage */
	cls("foo", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("foo.log", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls(".log", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls(".deleted", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("00000000000000000000.logx", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("00000000000000000000.log.bak", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("00000000000000000000.foo.log", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("99999999999999999999.log", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("-0000000000000000001.log", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("0000000000000000000a.log", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("00000000000000000000-0000000001.checkpoint", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	cls("meta.properties", SS_FILE_UNKNOWN, -1, SS_FILE_UNKNOWN);
	assert_int_equal(ss_file_classify("00000000000000000005.log", NULL, NULL), SS_FILE_LOG);
}

/* ---- checkpoints ---- */

struct seen {
	int n;
	char topic[8][32];
	int32_t part[8];
	int64_t off[8];
	int stop_at;
};

static int off_cb(void *arg, const char *topic, size_t topic_len, int32_t partition, int64_t offset)
{
	struct seen *s = arg;
	assert_true(s->n < 8 && topic_len < 32);
	memcpy(s->topic[s->n], topic, topic_len);
	s->topic[s->n][topic_len] = 0;
	s->part[s->n] = partition;
	s->off[s->n] = offset;
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 42 : 0;
}

static int parse_off(const char *text, struct seen *s, int *line)
{
	memset(s, 0, sizeof *s);
	*line = -1;
	return ss_ckpt_parse_offsets(text, strlen(text), off_cb, s, line);
}

static void off_bad(const char *text, int want_line)
{
	struct seen s;
	int line;
	int rc = parse_off(text, &s, &line);
	if (rc != SEGSCAN_ECHECKPOINT || line != want_line)
		fail_msg("%s: rc %d line %d, want line %d", text, rc, line, want_line);
}

/* KRaft snapshot names (Snapshots.parse): 20 digits, '-', 10 digits, ".checkpoint" */
static void test_snapshot_names(void **state)
{
	int64_t off = 0;
	int32_t ep = 0;
	assert_true(ss_snapshot_name_parse("00000000000000000108-0000000001.checkpoint", &off, &ep));
	assert_int_equal(off, 108);
	assert_int_equal(ep, 1);
	assert_true(ss_snapshot_name_parse("99999999999999999999-9999999999.checkpoint", &off, &ep));
	assert_int_equal(off, INT64_MAX);   /* held at the maximum */
	assert_int_equal(ep, INT32_MAX);
	assert_false(ss_snapshot_name_parse("00000000000000000108-0000000001.checkpoint.part", &off, &ep));
	assert_false(ss_snapshot_name_parse("00000000000000000108-0000000001.checkpoint.deleted", &off, &ep));
	assert_false(ss_snapshot_name_parse("0000000000000000108-00000000001.checkpoint", &off, &ep));
	assert_false(ss_snapshot_name_parse("00000000000000000108_0000000001.checkpoint", &off, &ep));
	assert_false(ss_snapshot_name_parse("0000000000000000010a-0000000001.checkpoint", &off, &ep));
	assert_false(ss_snapshot_name_parse("00000000000000000108.log", &off, &ep));
	assert_false(ss_snapshot_name_parse(NULL, &off, &ep));
}

static void test_ckpt_offsets(void **state)
{
	struct seen s;
	int line;
	assert_int_equal(parse_off("0\n3\nt1 0 100\nmy.topic-x 12 5\n__consumer_offsets 49 -1\n", &s, &line), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.topic[0], "t1");
	assert_int_equal(s.part[0], 0);
	assert_int_equal(s.off[0], 100);
	assert_string_equal(s.topic[1], "my.topic-x");
	assert_int_equal(s.part[1], 12);
	assert_int_equal(s.off[1], 5);
	assert_int_equal(s.off[2], -1);
	/* CRLF, tabs and repeated blanks, no final newline, a trailing blank */
	assert_int_equal(parse_off("0\r\n2\r\nt\t1\t9223372036854775807\r\nu  2   3 ", &s, &line), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.off[0], INT64_MAX);
	assert_string_equal(s.topic[1], "u");
	/* an empty file, and a file with only the version line, have no entries */
	assert_int_equal(parse_off("", &s, &line), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(parse_off("0\n", &s, &line), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(parse_off("0\n0\n", &s, &line), 0);
	assert_int_equal(s.n, 0);
	/* the callback can stop; its value is returned */
	memset(&s, 0, sizeof s);
	s.stop_at = 1;
	const char *two = "0\n2\na 0 1\nb 0 2\n";
	assert_int_equal(ss_ckpt_parse_offsets(two, strlen(two), off_cb, &s, &line), 42);
	assert_int_equal(s.n, 1);

	off_bad("1\n0\n", 1);                      /* wrong version */
	off_bad("x\n", 1);
	off_bad(" 0\n0\n", 1);
	off_bad("0\nmany\n", 2);
	off_bad("0\n3\nt 0 1\nt 1 2\n", 2);        /* count mismatch */
	off_bad("0\n1\nt 0 1\nt 1 2\n", 2);
	off_bad("0\n-1\n", 2);
	off_bad("0\n2\nt 0 1\nt x 2\n", 4);        /* bad tokens */
	off_bad("0\n1\nt 0\n", 3);
	off_bad("0\n1\nt 0 1 extra\n", 3);
	off_bad("0\n1\n t 0 1\n", 3);              /* a leading blank makes an empty token */
	off_bad("0\n1\nt 0 99999999999999999999\n", 3);
	off_bad("0\n1\nt 2147483648 0\n", 3);
	off_bad("0\n1\nt 0 1x\n", 3);
	off_bad("0\n1\n\n", 3);                    /* an empty entry line */
	off_bad("0\n2\nt 0 1\n\n", 4);
	/* stopping early does not hide a malformed line later on */
	memset(&s, 0, sizeof s);
	s.stop_at = 1;
	const char *bad = "0\n2\na 0 1\nb zero 2\n";
	assert_int_equal(ss_ckpt_parse_offsets(bad, strlen(bad), off_cb, &s, &line), SEGSCAN_ECHECKPOINT);
	assert_int_equal(line, 4);
}

static void test_ckpt_epochs(void **state)
{
	const char *t = "0\n3\n0 0\n1 100\n3 250\n";
	struct ss_epoch_entry e[4];
	size_t n = 99;
	int line = -1;
	assert_int_equal(ss_ckpt_parse_epochs(t, strlen(t), e, 4, &n, &line), 0);
	assert_int_equal(n, 3);
	assert_int_equal(e[0].epoch, 0);
	assert_int_equal(e[0].start_offset, 0);
	assert_int_equal(e[1].epoch, 1);
	assert_int_equal(e[1].start_offset, 100);
	assert_int_equal(e[2].epoch, 3);
	assert_int_equal(e[2].start_offset, 250);
	/* a small array: the count is still the file's */
	memset(e, 0xee, sizeof e);
	assert_int_equal(ss_ckpt_parse_epochs(t, strlen(t), e, 2, &n, &line), 0);
	assert_int_equal(n, 3);
	assert_int_equal(e[1].start_offset, 100);
	assert_int_equal(e[2].epoch, (int32_t)0xeeeeeeee); /* not written past cap */
	assert_int_equal(ss_ckpt_parse_epochs(t, strlen(t), NULL, 0, &n, &line), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ss_ckpt_parse_epochs("", 0, e, 4, &n, &line), 0);
	assert_int_equal(n, 0);

	const char *bad[] = { "0\n1\n0\n", "0\n1\n0 1 2\n", "0\n1\nx 1\n", "0\n2\n0 0\n", "1\n1\n0 0\n" };
	const int lines[] = { 3, 3, 3, 2, 1 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		line = -1;
		assert_int_equal(ss_ckpt_parse_epochs(bad[i], strlen(bad[i]), e, 4, &n, &line), SEGSCAN_ECHECKPOINT);
		assert_int_equal(line, lines[i]);
	}
}

static void test_partition_metadata(void **state)
{
	uint8_t id[16];
	int line = -1;
	/* Uuid.METADATA_TOPIC_ID: 15 zero bytes then 1 */
	const char *t = "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ";
	assert_int_equal(ss_partition_metadata_parse(t, strlen(t), id, &line), 0);
	static const uint8_t meta[16] = { [15] = 1 };
	assert_memory_equal(id, meta, 16);
	/* base64url of 00 01 .. 0f, with a trailing newline and CRLF, and extra blanks */
	t = "version: 0\r\ntopic_id:   AAECAwQFBgcICQoLDA0ODw\r\n";
	assert_int_equal(ss_partition_metadata_parse(t, strlen(t), id, &line), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(id[i], i);
	/* any non-negative version is accepted */
	t = "version: 3\ntopic_id: AAECAwQFBgcICQoLDA0ODw";
	assert_int_equal(ss_partition_metadata_parse(t, strlen(t), id, &line), 0);

	const char *bad[] = {
		"", "version:0\ntopic_id: AAECAwQFBgcICQoLDA0ODw", "version: -1\ntopic_id: AAECAwQFBgcICQoLDA0ODw",
		"version: x\ntopic_id: AAECAwQFBgcICQoLDA0ODw", "version: 0: 1\ntopic_id: AAECAwQFBgcICQoLDA0ODw",
		"version: 0", "version: 0\n", "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA",
		"version: 0\ntopic_id: short", "version: 0\ntopic_id:AAECAwQFBgcICQoLDA0ODw",
		"version: 0\ntopic_id: AAECAwQFBgcICQoLDA0OD!",
	};
	const int lines[] = { 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		line = -1;
		/* its own error, not "malformed checkpoint file" (issue 14 item 11) */
		if (ss_partition_metadata_parse(bad[i], strlen(bad[i]), id, &line) != SEGSCAN_EPARTMETA ||
		    line != lines[i])
			fail_msg("case %zu accepted or wrong line %d", i, line);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirnames),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_snapshot_names),
		cmocka_unit_test(test_ckpt_offsets),
		cmocka_unit_test(test_ckpt_epochs),
		cmocka_unit_test(test_partition_metadata),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
