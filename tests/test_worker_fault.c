/*
 * Allocation failures in a worker's setup (issue 23): a scan whose worker cannot allocate
 * its task array returns -ENOMEM from segscan_run and tears down cleanly; the teardown
 * must not walk a task array that was never allocated.
 *
 * The failure is injected by interposing calloc (the first call for an array of struct
 * ss_task after arming fails; every other call goes to the next calloc: libc's, jemalloc's
 * or the sanitizer's).
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "scan/task.h"
#include "segscan.h"
#include "testutil.h"

typedef void *(*calloc_fn)(size_t, size_t);
static calloc_fn real_calloc;
static _Atomic int fail_task_arrays; /* how many task-array callocs still to fail */
static _Atomic int failed;           /* how many were failed */

/* dlsym may allocate while it resolves calloc: those few bytes come from here (never freed:
 * glibc keeps them for the process). */
static _Alignas(16) unsigned char boot[4096];
static size_t boot_used;
static _Atomic int resolving;

void *calloc(size_t n, size_t size)
{
	if (!real_calloc) {
		if (atomic_exchange(&resolving, 1)) {
			size_t want = (n * size + 15) & ~(size_t)15;
			if (n && size > SIZE_MAX / n)
				return NULL;
			if (boot_used + want > sizeof(boot))
				return NULL;
			void *p = boot + boot_used;
			boot_used += want;
			return p; /* static storage: already zero */
		}
		real_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
		atomic_store(&resolving, 0);
		if (!real_calloc)
			abort();
	}
	if (size == sizeof(struct ss_task) && n > 0 && atomic_load(&fail_task_arrays) > 0) {
		atomic_fetch_sub(&fail_task_arrays, 1);
		atomic_fetch_add(&failed, 1);
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(n, size);
}

static char *root;

static int setup(void **state)
{
	(void)state;
	char *out = NULL;
	root = tu_mkdtemp("worker-fault");
	assert_non_null(root);
	assert_int_equal(tu_run(&out, "%s gen %s/ld --topics=2 --partitions=2 --segments=3 --segment-bytes=16KiB --seed=5",
				tu_segscan(), root), 0);
	free(out);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char *out = NULL;
	tu_run(&out, "rm -rf %s", root);
	free(out);
	free(root);
	return 0;
}

static int scan_once(const char *threads)
{
	segscan_scan *s;
	char ld[4096];
	snprintf(ld, sizeof(ld), "%s/ld", root);
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "quiet", "true"), 0);
	assert_int_equal(segscan_set(s, "threads", threads), 0);
	assert_int_equal(segscan_add_logdir(s, ld), 0);
	int r = segscan_run(s);
	segscan_scan_free(s);
	return r;
}

/* One worker, its task array not allocated: -ENOMEM, no crash, nothing leaked (ASan). */
static void test_task_array_enomem(void **state)
{
	(void)state;
	atomic_store(&failed, 0);
	atomic_store(&fail_task_arrays, 1);
	int r = scan_once("1");
	atomic_store(&fail_task_arrays, 0);
	assert_int_equal(atomic_load(&failed), 1);
	assert_int_equal(r, -ENOMEM);
}

/* Two workers, one of them without its tasks: the scan fails the same way, and the other
 * worker's tasks are torn down as usual. */
static void test_one_of_two_workers(void **state)
{
	(void)state;
	atomic_store(&failed, 0);
	atomic_store(&fail_task_arrays, 1);
	int r = scan_once("2");
	atomic_store(&fail_task_arrays, 0);
	assert_int_equal(atomic_load(&failed), 1);
	assert_int_equal(r, -ENOMEM);
}

/* The interposer itself changes nothing when not armed: the same scan succeeds. */
static void test_unarmed(void **state)
{
	(void)state;
	atomic_store(&failed, 0);
	assert_int_equal(scan_once("2"), 0);
	assert_int_equal(atomic_load(&failed), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unarmed),
		cmocka_unit_test(test_task_array_enomem),
		cmocka_unit_test(test_one_of_two_workers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
