/*
 * ss_assert (src/common/assert.h): in the builds with assertions on (MODE=asan, tsan,
 * debug: -DSS_ASSERTS) a failed one writes "segscan: assertion failed: FILE:LINE: FUNC:
 * EXPR" to stderr and aborts. Death tests in a child process: the macro itself, and two
 * invariants inside the library (a ring overrun, a task completed twice), so the library's
 * own objects are shown to be built with it on. In release the expression is not even
 * evaluated.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/assert.h"
#include "discover/discover.h"
#include "ring/ring.h"
#include "scan/task.h"

/* Runs fn in a child with SIGABRT at its default (cmocka catches signals in the parent);
 * returns the child's wait status, its stderr in err. */
static int in_child(void (*fn)(void), char *err, size_t errlen)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGABRT, SIG_DFL);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		fn();
		_exit(0); /* the assertion did not fire */
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
		n += (size_t)r;
	err[n] = 0;
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void expect_abort(void (*fn)(void), const char *where, const char *expr)
{
	char err[4096];
	int st = in_child(fn, err, sizeof(err));
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT)
		fail_msg("the child did not abort (status %#x), stderr: %s", st, err);
	/* one line: the file, a line number, the function, the expression as written */
	const char *p = strstr(err, "segscan: assertion failed: ");
	if (!p || !strstr(p, where) || !strstr(p, expr))
		fail_msg("stderr does not name %s and '%s': %s", where, expr, err);
}

static int evaluated;
static int side_effect(void)
{
	evaluated++;
	return 0;
}

static void fire_macro(void)
{
	int two = 2;
	ss_assert(two + 2 == 5);
}

static void test_macro(void **state)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the suites `make test` runs under the sanitizers are the ones with assertions on */
	if (!SS_ASSERTS_ON)
		fail_msg("a sanitizer build without -DSS_ASSERTS (the Makefile's MODE flags)");
#endif
	evaluated = 0;
	ss_assert(side_effect() == 0);
	if (!SS_ASSERTS_ON) {
		/* release: compiled out, the expression not evaluated, nothing fires */
		assert_int_equal(evaluated, 0);
		ss_assert(side_effect() == 1);
		char err[256];
		int st = in_child(fire_macro, err, sizeof(err));
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		assert_int_equal(evaluated, 0);
		return;
	}
	assert_int_equal(evaluated, 1);
	expect_abort(fire_macro, "tests/test_assert.c:", "fire_macro: two + 2 == 5");
}

/* A producer that overran the consumer (or a second producer): head more than a ring
 * ahead of tail. ss_ring_pop must refuse to copy slots that were overwritten. */
static void fire_ring(void)
{
	struct ss_ring r;
	if (ss_ring_init(&r, 4))
		_exit(2);
	for (int i = 0; i < 4; i++)
		ss_ring_push(&r, (uint64_t)i);
	ss_ring_publish(&r);
	atomic_store(&r.head, 9); /* 9 - 0 > 4: what an overrun would publish */
	uint64_t out[16];
	ss_ring_pop(&r, out, 16);
}

/* A completion delivered to a task that has nothing in flight (a request reaped twice). */
static void fire_task(void)
{
	struct ss_catalog cat;
	memset(&cat, 0, sizeof(cat));
	struct ss_task_env env = { .cat = &cat };
	static struct ss_task t;
	if (ss_task_init(&t, &env))
		_exit(2);
	bool fin;
	t.req[0].udata = &t;
	ss_task_complete(&t, &t.req[0], &fin);
}

static void test_library_invariants(void **state)
{
	if (!SS_ASSERTS_ON)
		skip(); /* release: the library's assertions are compiled out */
	expect_abort(fire_ring, "src/ring/ring.c:", "avail <= r->capacity");
	expect_abort(fire_task, "src/scan/task.c:", "t->pending > 0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macro),
		cmocka_unit_test(test_library_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
