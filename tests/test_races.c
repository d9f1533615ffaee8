/*
 * Kafka deletes, truncates and appends to segments while we read them. Deterministic
 * interleavings, no sleeps: a segment task is driven one completion at a time, and the
 * file is mutated after the k-th completion, for every k and every engine. Each run must
 * finish without a crash and report the segment sanely (vanished, shorter, or as it
 * was), never invent offsets beyond what was in the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "discover/discover.h"
#include "io/engine.h"
#include "scan/task.h"
#include "testutil.h"
#include "scanutil.h"

static char *g_logdir, *g_root, *g_pristine;
static bool g_verify;          /* drive() runs --verify tasks */
static uint64_t g_borrowed;    /* bytes the last drive() walked in place */

static int setup(void **state)
{
	/* one topic, one partition: 3 segments of ~96 KiB (the index path) */
	g_logdir = su_gen("races", 1, 1, 3, 96 * 1024, 0, false, &g_root);
	if (!g_logdir)
		return -1;
	if (asprintf(&g_pristine, "%s/pristine", g_root) < 0)
		return -1;
	return tu_run(NULL, "cp -a '%s' '%s'", g_logdir, g_pristine);
}

static int teardown(void **state)
{
	free(g_logdir);
	free(g_root);
	free(g_pristine);
	return 0;
}

static void restore(void)
{
	/* keep the log dir itself: the catalog holds an fd to it */
	assert_int_equal(tu_run(NULL, "rm -rf '%s'/* && cp -a '%s'/. '%s'/", g_logdir, g_pristine, g_logdir), 0);
}

enum mutation { M_DELETE, M_TRUNC_HALF, M_TRUNC_ZERO, M_APPEND, M_NONE };

static void mutate(enum mutation m, const char *path)
{
	int fd;
	struct stat st;
	switch (m) {
	case M_DELETE:
		unlink(path);
		break;
	case M_TRUNC_HALF:
		if (stat(path, &st) == 0)
			assert_int_equal(truncate(path, st.st_size / 2), 0);
		break;
	case M_TRUNC_ZERO:
		assert_int_equal(truncate(path, 0), 0);
		break;
	case M_APPEND:
		fd = open(path, O_WRONLY | O_APPEND);
		assert_true(fd >= 0);
		char junk[10000];
		memset(junk, 0x5a, sizeof(junk));
		assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
		close(fd);
		break;
	case M_NONE:
		break;
	}
}

/* Drive the task for segment `si`, mutating its .log after `after` completions. Returns
 * how many completions the task needed. */
static int drive(const char *engine, struct ss_catalog *cat, uint32_t si, enum mutation m, int after,
		 struct ss_seg *out)
{
	const struct ss_io_ops *ops;
	struct ss_io_engine *eng;
	bool fb;
	char why[128];
	if (ss_io_create(engine, 16, &ops, &eng, &fb, why, sizeof(why)) != 0)
		return -1;
	struct ss_task_env env = { .ops = ops, .eng = eng, .cat = cat, .verify = g_verify, .arena = 0 };
	struct ss_task t;
	assert_int_equal(ss_task_init(&t, &env), 0);
	char path[4096];
	char rel[320];
	ss_seg_relpath(cat, &cat->segs[si], "log", rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", g_logdir, rel);

	int done = 0;
	if (after == 0)
		mutate(m, path);
	assert_int_equal(ss_task_start(&t, si), 0);
	bool fin = false;
	while (!fin) {
		assert_int_equal(ops->flush(eng), 0);
		struct ss_io_req *rq[1];
		int n = ops->reap(eng, rq, 1, 1);
		assert_true(n == 1);
		done++;
		if (done == after)
			mutate(m, path);
		assert_int_equal(ss_task_complete(rq[0]->udata, rq[0], &fin), 0);
		assert_true(done < 10000); /* no livelock */
	}
	assert_int_equal(ops->inflight(eng), 0);
	*out = cat->segs[si];
	g_borrowed = env.borrowed;
	ss_task_destroy(&t);
	ops->destroy(eng);
	return done;
}

/* One mutated run of segment si from a pristine tree and a fresh record (discovery's
 * fields of ref only); whatever happened, never beyond what the file held. */
static struct ss_seg drive_fresh(const char *engine, struct ss_catalog *cat, uint32_t si, const struct ss_seg *ref,
				 enum mutation m, int k)
{
	struct ss_seg got;
	/* the previous run's rare facts (the caller's copy shares them), never ref's */
	if (cat->segs[si].x != ref->x)
		free(cat->segs[si].x);
	ss_seg_init(&cat->segs[si], ref->base_offset, ref->files);
	cat->segs[si].part = ref->part;
	cat->segs[si].flags = ref->flags & SS_SEG_ACTIVE;
	restore();
	assert_true(drive(engine, cat, si, m, k, &got) > 0);
	if (got.flags & SS_SEG_HAS_LAST)
		assert_true(got.last_offset <= ref->last_offset);
	assert_true(got.valid_bytes <= ref->size_bytes);
	return got;
}

static void one_engine(const char *engine)
{
	struct ss_catalog cat = { 0 };
	char *paths[] = { g_logdir };
	restore();
	assert_int_equal(ss_discover(&cat, paths, 1), 0);
	assert_int_equal(cat.n_segs, 3);
	for (uint32_t si = 0; si < cat.n_segs; si++) {
		struct ss_seg ref;
		restore();
		int steps = drive(engine, &cat, si, M_NONE, -1, &ref);
		if (steps < 0) {
			ss_catalog_free(&cat);
			skip();
		}
		assert_true(ref.flags & SS_SEG_HAS_LAST);
		assert_int_equal(ss_seg_err(&ref), 0);
		for (enum mutation m = M_DELETE; m <= M_APPEND; m++) {
			for (int k = 0; k <= steps; k++) {
				struct ss_seg got = drive_fresh(engine, &cat, si, &ref, m, k);
				if (m == M_DELETE && k == 0)
					assert_true(got.flags & SS_SEG_VANISHED);
				if (m == M_APPEND || (m == M_DELETE && k > 0)) {
					/* appended bytes lie past the size we stat'ed; an unlinked file
					 * stays readable through its open descriptor */
					if (!(got.flags & SS_SEG_VANISHED)) {
						assert_int_equal(got.last_offset, ref.last_offset);
						assert_int_equal(got.valid_bytes, ref.valid_bytes);
					}
				}
				if (m == M_TRUNC_ZERO && k == 0) {
					assert_false(got.flags & SS_SEG_HAS_LAST);
					assert_int_equal(got.size_bytes, 0);
				}
			}
		}
		if (cat.segs[si].x != ref.x)
			free(cat.segs[si].x);
		cat.segs[si] = ref;
	}
	ss_catalog_free(&cat);
}

/*
 * --verify of segments above SS_TASK_BORROW_MIN walks the engine's mapping in place
 * (task.h): a truncation between the read's completion and the walk makes the walker
 * touch pages past the new end, a SIGBUS the guard must turn into a re-walk by copies.
 * drive() mutates exactly there (after the k-th reap, before ss_task_complete).
 */
static void one_engine_verify(const char *engine)
{
	char *root = NULL;
	char *saved_dir = g_logdir, *saved_pristine = g_pristine;
	char *dir = su_gen("races-big", 1, 1, 2, 3 * 1024 * 1024, 0, false, &root);
	assert_non_null(dir);
	g_logdir = dir;
	assert_true(asprintf(&g_pristine, "%s/pristine", root) > 0);
	assert_int_equal(tu_run(NULL, "cp -a '%s' '%s'", g_logdir, g_pristine), 0);
	g_verify = true;

	struct ss_catalog cat = { 0 };
	char *paths[] = { g_logdir };
	assert_int_equal(ss_discover(&cat, paths, 1), 0);
	uint32_t si = 0; /* the closed segment */
	assert_true(cat.segs[si].flags & SS_SEG_ACTIVE ? false : true);
	struct ss_seg ref;
	int steps = drive(engine, &cat, si, M_NONE, -1, &ref);
	if (steps < 0) {
		ss_catalog_free(&cat);
		skip();
	}
	assert_true(ref.size_bytes > SS_TASK_BORROW_MIN);
	assert_int_equal(ss_seg_err(&ref), 0);
	assert_int_equal(ss_seg_crc_errors(&ref), 0);
	assert_true(ref.flags & SS_SEG_COUNTS_EXACT);
	assert_int_equal(g_borrowed, (uint64_t)ref.size_bytes); /* walked in place, all of it */
	for (enum mutation m = M_DELETE; m <= M_APPEND; m++) {
		for (int k = 0; k <= steps; k++) {
			struct ss_seg got = drive_fresh(engine, &cat, si, &ref, m, k);
			if ((m == M_TRUNC_HALF || m == M_TRUNC_ZERO) && k > 0 && k < steps)
				assert_true(got.valid_bytes < ref.valid_bytes);
			if ((m == M_TRUNC_HALF || m == M_TRUNC_ZERO) && k == steps - 1) {
				/* the borrowed read had completed (the last completion is the
				 * close): the walk on the mapping faulted, was dropped, and the
				 * copies that followed saw the shorter file */
				assert_true(got.flags & SS_SEG_CHANGED);
				assert_int_equal(g_borrowed, 0);
				assert_true(got.valid_bytes <= ref.size_bytes / 2);
			}
			if (m == M_APPEND && !(got.flags & SS_SEG_VANISHED)) {
				assert_int_equal(got.last_offset, ref.last_offset);
				assert_int_equal(got.valid_bytes, ref.valid_bytes);
			}
		}
	}
	ss_catalog_free(&cat);
	g_verify = false;
	tu_run(NULL, "rm -rf '%s'", root);
	free(dir);
	free(root);
	free(g_pristine);
	g_logdir = saved_dir;
	g_pristine = saved_pristine;
}

static void test_races_pread(void **state) { one_engine("pread"); }
static void test_verify_borrow_pread(void **state) { one_engine_verify("pread"); }
static void test_verify_borrow_mmap(void **state) { one_engine_verify("mmap"); }
static void test_verify_borrow_uring(void **state) { one_engine_verify("uring"); }
static void test_races_mmap(void **state) { one_engine("mmap"); }
static void test_races_uring(void **state) { one_engine("uring"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_races_pread),
		cmocka_unit_test(test_races_mmap),
		cmocka_unit_test(test_races_uring),
		cmocka_unit_test(test_verify_borrow_pread),
		cmocka_unit_test(test_verify_borrow_mmap),
		cmocka_unit_test(test_verify_borrow_uring),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
