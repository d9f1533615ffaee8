/*
 * The segment record (src/model/model.h, model/seg.c): 72 bytes for every segment, and the rare
 * facts behind ss_seg.x only where a segment has them; the identities per-segment reuse
 * compares only in a scan set up with segscan_reuse. Issue 15's 1M-segment RSS budget
 * rests on both; a build that allocates x for every segment, or keeps identities in every
 * scan, fails here, as does one that loses a fact on the way (the damaged segment's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/scan_int.h"
#include "testutil.h"
#include "scanutil.h"

static segscan_scan *scan(const char *logdir, bool reuse, bool verify)
{
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	segscan_set(s, "quiet", "true");
	if (verify)
		assert_int_equal(segscan_set(s, "verify", "true"), 0);
	assert_int_equal(segscan_add_logdir(s, logdir), 0);
	if (reuse)
		assert_int_equal(segscan_reuse(s, NULL), 0);
	int r = segscan_run(s);
	assert_true(r == 0 || r == 1);
	return s;
}

static uint32_t with_x(const segscan_scan *s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->cat.n_segs; i++)
		n += s->cat.segs[i].x != NULL;
	return n;
}

/* A clean tree: no segment has rare facts, on the fast path or under --verify; counts
 * known from a whole walk are kept exactly. */
static void test_clean_tree_has_no_rare_facts(void **state)
{
	(void)state;
	char *root = NULL;
	char *logdir = su_gen("segrec-clean", 1, 3, 5, 8 * 1024, 0, false, &root);
	assert_non_null(logdir);
	for (int verify = 0; verify <= 1; verify++) {
		segscan_scan *s = scan(logdir, false, verify);
		assert_int_equal(s->cat.n_segs, 15);
		assert_int_equal(with_x(s), 0);
		for (uint32_t i = 0; i < s->cat.n_segs; i++) {
			const struct ss_seg *g = &s->cat.segs[i];
			assert_int_equal(ss_seg_err(g), 0);
			assert_int_equal(ss_seg_truncated(g), 0);
			/* 8 KiB segments are walked whole: their counts are known */
			assert_true(ss_seg_batches(g) > 0);
			assert_true(ss_seg_records(g) >= ss_seg_batches(g));
			assert_int_equal(ss_seg_first_base(g), g->base_offset);
		}
		assert_null(s->cat.ids); /* not set up for reuse: no identities kept */
		segscan_scan_free(s);
	}
	free(logdir);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* A torn closed segment: its record alone gets rare facts, and they say what the file
 * says (the bytes after the last complete batch). */
static void test_torn_segment_keeps_its_facts(void **state)
{
	(void)state;
	char *root = NULL;
	char *logdir = su_gen("segrec-torn", 1, 2, 4, 8 * 1024, 0, false, &root);
	assert_non_null(logdir);
	char *out = NULL;
	assert_int_equal(tu_run(&out, "ls %s/*-0/*.log | head -1", logdir), 0);
	out[strcspn(out, "\n")] = 0;
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	/* cut the first segment inside its last batch */
	assert_int_equal(truncate(out, st.st_size - 7), 0);

	segscan_scan *s = scan(logdir, false, false);
	assert_int_equal(with_x(s), 1);
	const struct ss_seg *g = NULL;
	for (uint32_t i = 0; i < s->cat.n_segs; i++)
		if (s->cat.segs[i].x)
			g = &s->cat.segs[i];
	assert_non_null(g);
	char name[32];
	snprintf(name, sizeof(name), "%020lld.log", (long long)g->base_offset);
	assert_non_null(strstr(out, name)); /* the file we cut */
	assert_int_equal(g->size_bytes, st.st_size - 7);
	assert_true(ss_seg_truncated(g) > 0);
	assert_int_equal(g->valid_bytes + ss_seg_truncated(g), g->size_bytes);
	assert_int_equal(ss_seg_prealloc(g), 0);
	assert_int_equal(ss_seg_err(g), 0);
	/* the report carries it */
	assert_non_null(s->cat.parts[g->part].eval);
	bool found = false;
	const struct ss_eval *ev = s->cat.parts[g->part].eval;
	for (uint32_t k = 0; k < ev->n_findings; k++)
		found |= strcmp(ev->findings[k].code, "TRUNCATED_TAIL") == 0 &&
			 ev->findings[k].bytes == ss_seg_truncated(g);
	assert_true(found);
	segscan_scan_free(s);
	free(out);
	free(logdir);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* segscan_reuse (prev NULL too) keeps every .log's identity, as its fstat saw it. */
static void test_identities_only_for_reuse(void **state)
{
	(void)state;
	char *root = NULL;
	char *logdir = su_gen("segrec-ids", 1, 2, 3, 8 * 1024, 0, false, &root);
	assert_non_null(logdir);
	segscan_scan *s = scan(logdir, true, false);
	assert_non_null(s->cat.ids);
	for (uint32_t i = 0; i < s->cat.n_segs; i++) {
		char rel[256], *path = NULL;
		assert_true(ss_seg_relpath(&s->cat, &s->cat.segs[i], "log", rel, sizeof(rel)) > 0);
		assert_true(asprintf(&path, "%s/%s", logdir, rel) > 0);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(s->cat.ids[i].ino, (uint64_t)st.st_ino);
		assert_int_equal(s->cat.ids[i].dev, (uint64_t)st.st_dev);
		assert_int_equal(s->cat.ids[i].mtime_ns,
				 (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
		free(path);
	}
	segscan_scan_free(s);
	free(logdir);
	tu_run(NULL, "rm -rf '%s'", root);
	free(root);
}

/* The helpers themselves: a copy owns its rare facts; counts saturate to unknown. */
static void test_record_helpers(void **state)
{
	(void)state;
	assert_true(sizeof(struct ss_seg) <= 72);
	struct ss_seg a, b;
	ss_seg_init(&a, 100, SS_HAS_LOG);
	ss_seg_init(&b, 7, SS_HAS_LOG);
	assert_int_equal(ss_seg_err_pos(&a), -1);
	assert_int_equal(ss_seg_first_base(&a), -1);
	assert_int_equal(ss_seg_batches(&a), -1);
	struct ss_segx *x = ss_seg_xget(&a);
	assert_non_null(x);
	assert_ptr_equal(ss_seg_xget(&a), x); /* once */
	x->err = -EIO;
	x->err_pos = 42;
	a.flags |= SS_SEG_READ_ERROR;
	assert_int_equal(ss_seg_copy(&b, &a), 0);
	assert_true(b.x && b.x != a.x);
	ss_segs_free_x(&a, 1);
	assert_null(a.x);
	assert_int_equal(ss_seg_err(&b), -EIO);
	assert_int_equal(ss_seg_err_pos(&b), 42);
	assert_int_equal(b.base_offset, 100);
	ss_segs_free_x(&b, 1);
	/* a read error whose record could not be allocated still reads as an error */
	assert_int_equal(ss_seg_err(&b), -ENOMEM);

	assert_int_equal(ss_seg_count(5), 5);
	assert_int_equal(ss_seg_count(-1), SS_SEG_COUNT_UNKNOWN);
	assert_int_equal(ss_seg_count((int64_t)UINT32_MAX), SS_SEG_COUNT_UNKNOWN);
	assert_int_equal(ss_seg_count((int64_t)1 << 40), SS_SEG_COUNT_UNKNOWN);
	b.batches = ss_seg_count((int64_t)UINT32_MAX - 1);
	assert_int_equal(ss_seg_batches(&b), (int64_t)UINT32_MAX - 1);

	/* a mismatched first batch keeps its offset; a matching one needs no record */
	ss_seg_init(&a, 50, SS_HAS_LOG);
	a.flags |= SS_SEG_FIRST_KNOWN;
	assert_int_equal(ss_seg_first_base(&a), 50);
	a.flags |= SS_SEG_BASE_MISMATCH;
	ss_seg_xget(&a)->first_batch_base = 55;
	assert_int_equal(ss_seg_first_base(&a), 55);
	ss_segs_free_x(&a, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_tree_has_no_rare_facts),
		cmocka_unit_test(test_torn_segment_keeps_its_facts),
		cmocka_unit_test(test_identities_only_for_reuse),
		cmocka_unit_test(test_record_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
