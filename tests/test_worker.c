/*
 * Workers, rings and the evaluator thread under contention (this suite also runs under
 * TSan): many small segments, every thread count, tiny and large queue depths, tiny
 * rings relative to the work. The report must be identical to the single-threaded one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

static void test_threads_and_depths_agree(void **state)
{
	char *root = NULL;
	/* 4 x 8 partitions x 12 segments of 8 KiB: 384 segments, many partitions completing
	 * while others are in flight */
	char *logdir = su_gen("worker", 4, 8, 12, 8 * 1024, 3, true, &root);
	assert_non_null(logdir);
	char *rp = NULL;
	assert_true(asprintf(&rp, "%s/remote.ndjson", root) > 0);
	const char *kv1[] = { "threads", "1", "io", "pread", "remote-state", rp, "now", "1700000000000", NULL };
	char *ref = su_scan(logdir, SEGSCAN_FMT_NDJSON, NULL, kv1);
	assert_non_null(ref);
	const char *threads[] = { "2", "3", "4", "8" };
	const char *depths[] = { "1", "5", "8", "128" };  /* 1..5: one task, a ring of its requests */
	const char *ios[] = { "pread", "uring", "mmap" };
	for (size_t t = 0; t < 4; t++)
		for (size_t d = 0; d < 4; d++)
			for (size_t i = 0; i < 3; i++) {
				const char *kv[] = { "threads", threads[t], "queue-depth", depths[d], "io", ios[i],
						     "remote-state", rp, "now", "1700000000000", NULL };
				char *out = su_scan(logdir, SEGSCAN_FMT_NDJSON, NULL, kv);
				assert_non_null(out);
				if (strcmp(out, ref))
					fail_msg("threads=%s depth=%s io=%s differs", threads[t], depths[d], ios[i]);
				free(out);
			}
	free(ref);
	free(rp);
	free(logdir);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_and_depths_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
