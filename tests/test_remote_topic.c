/*
 * The remote-topic source (source/remote_topic.h): __remote_log_metadata partitions on
 * disk, segments in base-offset order, records decoded and replayed in offset order,
 * placement checked with
 * metadataPartition, and every bad place a warning while the replay goes on.
 *
 * The segment files are kafka-python-built batches (tests/vectors/rlmm/make_rlmm.py)
 * whose values are the hand-built RLMM vectors of test_rlmm.c:
 *   __remote_log_metadata-38: offset 0 add foo-2 segment, 1 COPY_SEGMENT_FINISHED (gzip),
 *     2 garbage value, 3 DELETE_SEGMENT_STARTED (v1 with tags), 4 update for an unknown
 *     segment, then 30 bytes of a truncated batch;
 *   __remote_log_metadata-0: offset 0 a partition delete for foo-2, which belongs in 38.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "eval/remote.h"
#include "fmt/names.h"
#include "fmt/rlmm.h"
#include "source/remote_topic.h"
#include "segscan.h"
#include "testutil.h"

struct warns {
	int     n;
	char    text[16][512];
	int32_t mpart[16];
	int64_t offset[16];
};

static int on_warn(void *arg, const char *path, int32_t mpart, int64_t offset, int64_t file_pos, int err,
		   const char *msg)
{
	struct warns *w = arg;
	if (w->n < 16) {
		snprintf(w->text[w->n], sizeof(w->text[0]), "%s", msg);
		w->mpart[w->n] = mpart;
		w->offset[w->n] = offset;
	}
	w->n++;
	return 0;
}

static void put(const char *dir, const char *sub, const char *vec, const char *name)
{
	char src[512], dst[1024];
	size_t len = 0;
	snprintf(src, sizeof(src), "tests/vectors/rlmm/%s", vec);
	char *data = tu_read_file(src, &len);
	if (!data)
		fail_msg("cannot read %s (run from the repository root)", src);
	snprintf(dst, sizeof(dst), "%s/%s", dir, sub);
	mkdir(dst, 0755);
	snprintf(dst, sizeof(dst), "%s/%s/%s", dir, sub, name);
	assert_int_equal(tu_write_file(dst, data, len), 0);
	free(data);
}

static char *layout(void)
{
	char *root = tu_mkdtemp("rlmm");
	assert_non_null(root);
	put(root, "__remote_log_metadata-38", "p38_00000000000000000002.log", "00000000000000000002.log");
	put(root, "__remote_log_metadata-38", "p38_00000000000000000000.log", "00000000000000000000.log");
	put(root, "__remote_log_metadata-0", "p0_00000000000000000000.log", "00000000000000000000.log");
	char p[1024];
	snprintf(p, sizeof(p), "%s/__remote_log_metadata-38/00000000000000000000.index", root);
	assert_int_equal(tu_write_file(p, "\0\0\0\0\0\0\0\0", 8), 0);   /* not a .log: ignored */
	return root;
}

static const uint8_t TID[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
				 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };

static bool has_warning(const struct warns *w, int32_t mpart, int64_t offset, const char *what)
{
	for (int i = 0; i < w->n && i < 16; i++)
		if (w->mpart[i] == mpart && w->offset[i] == offset && strstr(w->text[i], what))
			return true;
	return false;
}

static void test_replay(void **state)
{
	(void)state;
	char *root = layout();
	char d38[1024], d0[1024];
	snprintf(d38, sizeof(d38), "%s/__remote_log_metadata-38/", root);   /* a trailing slash is fine */
	snprintf(d0, sizeof(d0), "%s/__remote_log_metadata-0", root);
	const char *dirs[] = { d38, d0 };
	struct ss_remote *r;
	struct ss_remote_topic_stats st;
	struct warns w = { 0 };
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 2, 50, on_warn, &w, &st, NULL), 0);

	assert_int_equal(st.partitions, 2);
	assert_int_equal(st.num_partitions, 50);
	assert_int_equal(st.segments, 3);
	assert_int_equal(st.batches, 5);
	assert_int_equal(st.records, 6);
	assert_int_equal(st.applied, 4);       /* add, finished, delete started, partition delete */
	assert_int_equal(st.undecodable, 1);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.misplaced, 1);
	assert_int_equal(st.corrupt, 1);
	assert_int_equal(st.warnings, 4);
	assert_int_equal(w.n, 4);
	assert_true(has_warning(&w, 0, 0, "metadata partition 38 of 50"));
	assert_true(has_warning(&w, 38, 2, "cannot decode"));
	assert_true(has_warning(&w, 38, 4, "never added"));
	assert_true(has_warning(&w, 38, -1, "incomplete batch"));

	const struct ss_remote_part *p = ss_remote_find(r, "foo", 2, TID);
	assert_non_null(p);
	assert_int_equal(p->n_segs, 1);
	const struct ss_rseg *s = ss_remote_seg(p, 0);
	assert_string_equal(s->id, "ABEiM0RVZneImaq7zN3u_w");
	/* in offset order: add, COPY_SEGMENT_FINISHED, then DELETE_SEGMENT_STARTED */
	assert_int_equal(s->state, SS_RSEG_DELETE_STARTED);
	assert_int_equal(s->size_bytes, 1048576);
	int64_t h;
	assert_true(ss_remote_highest_for_epoch(p, 7, &h));
	assert_int_equal(h, 199);
	assert_int_equal(p->delete_state, SS_RPART_DELETE_STARTED);
	ss_remote_free(r);

	/* without a configured count, partitions {0, 38} are not all of them: no placement check */
	struct warns w2 = { 0 };
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 2, 0, on_warn, &w2, &st, NULL), 0);
	assert_int_equal(st.num_partitions, 0);
	assert_int_equal(st.misplaced, 0);
	assert_int_equal(st.applied, 4);
	ss_remote_free(r);

	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

static void test_missing_and_odd_dirs(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("rlmm");
	char missing[1024], odd[1024];
	snprintf(missing, sizeof(missing), "%s/__remote_log_metadata-3", root);
	snprintf(odd, sizeof(odd), "%s/not-a-partition-x", root);
	const char *dirs[] = { missing, odd };
	struct ss_remote *r;
	struct ss_remote_topic_stats st;
	struct warns w = { 0 };
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 2, 0, on_warn, &w, &st, NULL), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(st.partitions, 1);
	assert_int_equal(st.num_partitions, 0);   /* {3} is not 0..0 */
	assert_int_equal(ss_remote_part_count(r), 0);
	ss_remote_free(r);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* A preallocated tail of zeros after the last batch is not a problem; garbage is. */
static void test_tails(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("rlmm");
	size_t len = 0;
	char *data = tu_read_file("tests/vectors/rlmm/p0_00000000000000000000.log", &len);
	assert_non_null(data);
	char *buf = calloc(1, len + 200);
	assert_non_null(buf);
	memcpy(buf, data, len);
	char dir[1024], path[1100];
	snprintf(dir, sizeof(dir), "%s/__remote_log_metadata-0", root);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/00000000000000000000.log", dir);
	assert_int_equal(tu_write_file(path, buf, len + 200), 0);
	const char *dirs[] = { dir };
	struct ss_remote *r;
	struct ss_remote_topic_stats st;
	struct warns w = { 0 };
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 1, 0, on_warn, &w, &st, NULL), 0);
	assert_int_equal(st.num_partitions, 1);   /* {0} is all of 0..0 */
	assert_int_equal(st.misplaced, 0);        /* of one partition, everything belongs in 0 */
	assert_int_equal(st.applied, 1);
	assert_int_equal(st.corrupt, 0);
	ss_remote_free(r);

	/* the same with garbage after the batch: one warning, the record still applied */
	memset(buf + len, 0x5a, 200);
	assert_int_equal(tu_write_file(path, buf, len + 200), 0);
	memset(&w, 0, sizeof(w));
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 1, 0, on_warn, &w, &st, NULL), 0);
	assert_int_equal(st.applied, 1);
	assert_int_equal(st.corrupt, 1);
	ss_remote_free(r);
	free(buf);
	free(data);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* Issue 14 item 9: a preallocated segment's zeros run far past the 1 MiB read buffer
 * (a 1 GiB default segment); sparse or not they end the data, and only a non-zero byte
 * after them is damage. */
static void replay_one(const char *dir, struct ss_remote_topic_stats *st, struct warns *w)
{
	const char *dirs[] = { dir };
	struct ss_remote *r;
	memset(w, 0, sizeof(*w));
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 1, 0, on_warn, w, st, NULL), 0);
	ss_remote_free(r);
}

static void test_big_zero_tail(void **state)
{
	(void)state;
	const size_t total = (size_t)8 << 20;
	char *root = tu_mkdtemp("rlmm-zero");
	size_t len = 0;
	char *data = tu_read_file("tests/vectors/rlmm/p0_00000000000000000000.log", &len);
	assert_non_null(data);
	char dir[1024], path[1100];
	snprintf(dir, sizeof(dir), "%s/__remote_log_metadata-0", root);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/00000000000000000000.log", dir);
	struct ss_remote_topic_stats st;
	struct warns w;

	/* sparse: the batch, then a hole to 8 MiB (RandomAccessFile.setLength) */
	assert_int_equal(tu_write_file(path, data, len), 0);
	assert_int_equal(truncate(path, (off_t)total), 0);
	replay_one(dir, &st, &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(st.applied, 1);
	assert_int_equal(st.corrupt, 0);

	/* not sparse (copied without --sparse): 8 MiB written, zeros after the batch */
	char *buf = calloc(1, total);
	assert_non_null(buf);
	memcpy(buf, data, len);
	assert_int_equal(tu_write_file(path, buf, total), 0);
	replay_one(dir, &st, &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(st.applied, 1);
	assert_int_equal(st.corrupt, 0);

	/* one non-zero byte 6 MiB in, beyond the first buffer: damage, named where it is */
	buf[(size_t)6 << 20] = 1;
	assert_int_equal(tu_write_file(path, buf, total), 0);
	replay_one(dir, &st, &w);
	assert_int_equal(st.applied, 1);
	assert_int_equal(st.corrupt, 1);
	assert_int_equal(w.n, 1);
	char at[64];
	snprintf(at, sizeof(at), "data at byte %d", 6 << 20);
	assert_non_null(strstr(w.text[0], at));

	/* the same a few KiB after the batch, inside the first read: named the same way (the
	 * one reader's verdict does not depend on where its window happened to end) */
	buf[(size_t)6 << 20] = 0;
	buf[len + 5000] = 1;
	assert_int_equal(tu_write_file(path, buf, total), 0);
	replay_one(dir, &st, &w);
	assert_int_equal(st.corrupt, 1);
	assert_int_equal(w.n, 1);
	snprintf(at, sizeof(at), "zeros, then data at byte %zu", len + 5000);
	if (!strstr(w.text[0], at))
		fail_msg("want \"%s\" in: %s", at, w.text[0]);
	buf[len + 5000] = 0;
	buf[(size_t)6 << 20] = 1;
	snprintf(at, sizeof(at), "data at byte %d", 6 << 20);

	/* the same byte in a sparse file: after the hole, in the data extent written there */
	assert_int_equal(tu_write_file(path, data, len), 0);
	assert_int_equal(truncate(path, (off_t)total), 0);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 6L << 20, SEEK_SET), 0);
	assert_int_equal(fputc(1, f), 1);
	assert_int_equal(fclose(f), 0);
	replay_one(dir, &st, &w);
	assert_int_equal(st.corrupt, 1);
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.text[0], at));
	free(buf);
	free(data);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* ---- issue 21 item 3: a metadata batch is applied only after its CRC-32C checks ----------- */

#define TIERED "tests/fixtures/kafka/tiered"
/* capture time of the fixture (case.json) plus 2 h: a segment stuck in COPY_SEGMENT_STARTED
 * since the capture is past --dangling-after, so a replay without its finish update would
 * report DANGLING_REMOTE_SEGMENT */
#define TIERED_NOW_PLUS_2H "1795981222545"

static void topic_id_of(const char *partdir, uint8_t id[16])
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/partition.metadata", partdir);
	char *t = tu_read_file(p, NULL);
	assert_non_null(t);
	char *q = strstr(t, "topic_id: ");
	assert_non_null(q);
	assert_int_equal(ss_uuid_parse(q + 10, 22, id), 0);
	free(t);
}

/* Flip one bit in the middle of the first batch's records (inside the CRC's range, in the
 * first record of that real broker-written batch). Returns the batch's byte size. */
static size_t flip_first_batch(char *buf, size_t len)
{
	assert_true(len > 61);
	size_t size = 12 + (((size_t)(uint8_t)buf[8] << 24) | ((size_t)(uint8_t)buf[9] << 16) |
			    ((size_t)(uint8_t)buf[10] << 8) | (size_t)(uint8_t)buf[11]);
	assert_true(size > 61 && size <= len);
	buf[61 + (size - 61) / 2] ^= 0x10;
	return size;
}

static char *tiered_copy(bool corrupt)
{
	char *root = tu_mkdtemp("rlmm-crc");
	assert_non_null(root);
	assert_int_equal(tu_run(NULL, "cp -r " TIERED "/logdir '%s/logdir'", root), 0);
	if (corrupt) {
		char p[1024];
		size_t len = 0;
		snprintf(p, sizeof(p), "%s/logdir/__remote_log_metadata-3/00000000000000000000.log", root);
		char *buf = tu_read_file(p, &len);
		assert_non_null(buf);
		flip_first_batch(buf, len);
		assert_int_equal(tu_write_file(p, buf, len), 0);
		free(buf);
	}
	return root;
}

static void test_crc_real_segment(void **state)
{
	(void)state;
	uint8_t tiered[16], single[16];
	topic_id_of(TIERED "/logdir/tiered-0", tiered);
	topic_id_of(TIERED "/logdir/single-record-0", single);
	/* the fixture's placement (5 metadata partitions): tiered-0 in 3, single-record-0 in 2 */
	assert_int_equal(ss_rlmm_metadata_partition(tiered, 0, 5), 3);
	assert_int_equal(ss_rlmm_metadata_partition(single, 0, 5), 2);

	for (int corrupt = 0; corrupt < 2; corrupt++) {
		char *root = tiered_copy(corrupt);
		char d2[1024], d3[1024];
		snprintf(d2, sizeof(d2), "%s/logdir/__remote_log_metadata-2", root);
		snprintf(d3, sizeof(d3), "%s/logdir/__remote_log_metadata-3", root);
		const char *dirs[] = { d2, d3 };
		struct ss_remote *r;
		struct ss_remote_topic_stats st;
		struct ss_remote_taint taint = { 0 };
		struct warns w = { 0 };
		assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
		assert_int_equal(ss_remote_topic_replay(r, dirs, 2, 5, on_warn, &w, &st, &taint), 0);
		assert_int_equal(st.misplaced, 0);
		assert_int_equal(taint.num_partitions, 5);
		if (!corrupt) {
			assert_int_equal(st.crc_errors, 0);
			assert_int_equal(st.corrupt, 0);
			assert_int_equal(w.n, 0);
			assert_int_equal(taint.n_mparts, 0);
			assert_int_equal(st.applied, st.records);
			assert_false(ss_remote_taint_concerns(&taint, tiered, 0, NULL, 0));
			const struct ss_remote_part *p = ss_remote_find(r, "tiered", 0, tiered);
			assert_non_null(p);
			assert_true(p->n_segs > 0);
		} else {
			assert_int_equal(st.crc_errors, 1);
			assert_int_equal(st.corrupt, 1);
			/* the corrupt batch at byte 0 of partition 3 is named with its file and place */
			assert_true(has_warning(&w, 3, 0, "fails its CRC-32C check"));
			for (int i = 0; i < w.n && i < 16; i++)
				assert_null(strstr(w.text[i], "never added"));
			assert_int_equal(taint.n_mparts, 1);
			assert_int_equal(taint.mparts[0].mpart, 3);
			assert_int_equal(taint.mparts[0].file_pos, 0);
			assert_int_equal(taint.mparts[0].offset, 0);
			assert_non_null(strstr(taint.mparts[0].where, "__remote_log_metadata-3/00000000000000000000.log"));
			/* nothing of partition 3 is applied; partition 2 (single-record) is whole */
			assert_null(ss_remote_find(r, "tiered", 0, tiered));
			assert_true(st.not_applied > 0);
			const struct ss_remote_part *p = ss_remote_find(r, "single-record", 0, single);
			assert_non_null(p);
			assert_true(p->n_segs > 0);
			char why[1024];
			assert_true(ss_remote_taint_concerns(&taint, tiered, 0, why, sizeof(why)));
			assert_non_null(strstr(why, "__remote_log_metadata-3"));
			assert_non_null(strstr(why, "byte 0"));
			assert_false(ss_remote_taint_concerns(&taint, single, 0, NULL, 0));
			/* without a topic id or a partition count, the corrupt batch could hold anything */
			assert_true(ss_remote_taint_concerns(&taint, NULL, 0, NULL, 0));
			taint.num_partitions = 0;
			assert_true(ss_remote_taint_concerns(&taint, single, 0, NULL, 0));
		}
		ss_remote_taint_release(&taint);
		ss_remote_free(r);
		tu_run(NULL, "rm -rf '%s'", root);
		free(root);
	}
}

/* A record found in a metadata partition Kafka does not place its partition in (foo-2's
 * partition delete in __remote_log_metadata-0 of 50, where 38 holds it) makes that partition
 * one a corrupt batch of -0 could concern too; partitions placed elsewhere stay known. */
static void test_crc_misplaced(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("rlmm-crc");
	size_t len = 0;
	char *data = tu_read_file("tests/vectors/rlmm/p0_00000000000000000000.log", &len);
	assert_non_null(data);
	/* the batch, then a copy of it at offset 1 with one bit flipped in its record */
	if (len < 62)
		fail_msg("p0 vector too short");
	char *buf = malloc(2 * len);
	assert_non_null(buf);
	memcpy(buf, data, len);
	char *second = buf + len;
	memcpy(second, data, len);
	second[7] = 1;   /* base offset 1 */
	flip_first_batch(second, len);
	char dir[1024], path[1100];
	snprintf(dir, sizeof(dir), "%s/__remote_log_metadata-0", root);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/00000000000000000000.log", dir);
	assert_int_equal(tu_write_file(path, buf, 2 * len), 0);
	const char *dirs[] = { dir };
	struct ss_remote *r;
	struct ss_remote_topic_stats st;
	struct ss_remote_taint taint = { 0 };
	struct warns w = { 0 };
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(ss_remote_topic_replay(r, dirs, 1, 50, on_warn, &w, &st, &taint), 0);
	assert_int_equal(st.misplaced, 1);
	assert_int_equal(st.applied, 1);
	assert_int_equal(st.crc_errors, 1);
	assert_true(has_warning(&w, 0, 1, "fails its CRC-32C check"));
	assert_int_equal(taint.n_mparts, 1);
	assert_int_equal(taint.mparts[0].file_pos, (int64_t)len);
	assert_int_equal(taint.n_named, 1);
	char why[1024];
	assert_int_equal(ss_rlmm_metadata_partition(TID, 2, 50), 38);
	assert_true(ss_remote_taint_concerns(&taint, TID, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "records of it are in __remote_log_metadata-0"));
	assert_int_not_equal(ss_rlmm_metadata_partition(TID, 3, 50), 0);
	assert_false(ss_remote_taint_concerns(&taint, TID, 3, NULL, 0));
	ss_remote_taint_release(&taint);
	ss_remote_free(r);
	free(buf);
	free(data);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

static bool has_code(json_t *part, const char *code)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(part, "findings"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "code")), code))
			return true;
	return false;
}

static json_t *find_part(json_t *o, const char *topic, int partition)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(o, "partitions"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "topic")), topic) &&
		    json_integer_value(json_object_get(p, "partition")) == partition)
			return p;
	return NULL;
}

/* The whole scan, fast path and --verify: the partition whose metadata partition holds the
 * corrupt batch is REMOTE_STATE_UNKNOWN (no false DANGLING_REMOTE_SEGMENT, no "update for a
 * segment never added"), errors[] names the file and byte, exit 1; the other is unharmed. */
static void test_crc_scan(void **state)
{
	(void)state;
	char *root = tiered_copy(true);
	for (int verify = 0; verify < 2; verify++) {
		char *out = NULL;
		int rc = tu_run(&out, "timeout %.0f %s scan -f json --now=" TIERED_NOW_PLUS_2H " %s '%s/logdir' 2>/dev/null",
				tu_guard_s(60), tu_segscan(), verify ? "--verify" : "", root);
		assert_int_equal(rc, 1);
		json_error_t je;
		json_t *o = json_loads(out, 0, &je);
		free(out);
		assert_non_null(o);
		json_t *t = find_part(o, "tiered", 0), *sr = find_part(o, "single-record", 0);
		assert_non_null(t);
		assert_non_null(sr);
		assert_true(has_code(t, "REMOTE_STATE_UNKNOWN"));
		assert_false(has_code(t, "DANGLING_REMOTE_SEGMENT"));
		assert_true(json_is_null(json_object_get(json_object_get(t, "remote"), "highest_offset")));
		assert_false(has_code(sr, "REMOTE_STATE_UNKNOWN"));
		assert_string_equal(json_string_value(json_object_get(json_object_get(sr, "remote"), "source")),
				    "metadata-topic");
		size_t i;
		json_t *e;
		bool named = false;
		json_array_foreach(json_object_get(o, "errors"), i, e) {
			const char *m = json_string_value(json_object_get(e, "message"));
			const char *f = json_string_value(json_object_get(e, "file"));
			assert_null(strstr(m, "never added"));
			if (strstr(m, "fails its CRC-32C check") && f &&
			    strstr(f, "__remote_log_metadata-3/00000000000000000000.log") &&
			    json_integer_value(json_object_get(e, "where")) == 0)
				named = true;
		}
		assert_true(named);
		json_decref(o);
	}
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* A partition known not to be tiered now (a --topic-config line: remote.storage.enable=false)
 * whose metadata partition holds the corrupt batch: it is not REMOTE_STATE_UNKNOWN, but its
 * remote counts are what the lost events would have said, so null with a note naming the
 * batch, segscan_remote_state_known 0 and no segscan_remote_size_bytes; intact, the 8
 * segments the replay finds. */
static void test_crc_not_tiered(void **state)
{
	(void)state;
	for (int corrupt = 0; corrupt < 2; corrupt++) {
		char *root = tiered_copy(corrupt), *out = NULL, tc[1024];
		snprintf(tc, sizeof(tc), "%s/topics.conf", root);
		assert_int_equal(tu_write_file(tc, "tiered remote.storage.enable=false\n", 35), 0);
		int rc = tu_run(&out, "timeout 60 %s scan -f json --topic-config='%s' '%s/logdir' 2>/dev/null", tu_segscan(),
				tc, root);
		assert_int_equal(rc, corrupt ? 1 : 0);
		json_error_t je;
		json_t *o = json_loads(out, 0, &je);
		free(out);
		assert_non_null(o);
		json_t *t = find_part(o, "tiered", 0);
		assert_non_null(t);
		assert_true(json_is_false(json_object_get(t, "remote_storage")));
		assert_false(has_code(t, "REMOTE_STATE_UNKNOWN"));
		json_t *segs = json_object_get(json_object_get(t, "remote"), "segments");
		bool noted = false;
		size_t i;
		json_t *n;
		json_array_foreach(json_object_get(t, "notes"), i, n)
			noted |= strstr(json_string_value(n), "its remote segments are unknown") &&
				 strstr(json_string_value(n), "__remote_log_metadata-3");
		if (corrupt) {
			assert_true(json_is_null(segs));
			assert_true(json_is_null(json_object_get(json_object_get(t, "remote"), "size_bytes")));
			assert_true(noted);
		} else {
			assert_int_equal(json_integer_value(segs), 8);
			assert_false(noted);
		}
		json_decref(o);
		/* segscan_remote_state_known is an extra family (issue 22's series budget) */
		rc = tu_run(&out, "timeout 60 %s scan -f prom --metrics-extra --topic-config='%s' '%s/logdir' 2>/dev/null",
			    tu_segscan(), tc, root);
		assert_int_equal(rc, corrupt ? 1 : 0);
		bool known = false, size = false;
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
			if (!strstr(l, "topic=\"tiered\""))
				continue;
			known |= !strncmp(l, "segscan_remote_state_known{", 27) && l[strlen(l) - 1] == '1';
			size |= !strncmp(l, "segscan_remote_size_bytes{", 26);
		}
		free(out);
		assert_true(known == !corrupt);
		assert_true(size == !corrupt);
		tu_run(NULL, "rm -rf '%s'", root);
		free(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_missing_and_odd_dirs),
		cmocka_unit_test(test_tails),
		cmocka_unit_test(test_big_zero_tail),
		cmocka_unit_test(test_crc_real_segment),
		cmocka_unit_test(test_crc_misplaced),
		cmocka_unit_test(test_crc_scan),
		cmocka_unit_test(test_crc_not_tiered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
