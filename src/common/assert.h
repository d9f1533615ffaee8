/*
 * ss_assert(expr): an invariant of segscan's own code, never a check of input (bad input
 * gets an error that names the file and offset, and the scan goes on).
 *
 * Compiled in with -DSS_ASSERTS: the debug build (make MODE=debug) and the sanitizer
 * builds the test suites run (MODE=asan, MODE=tsan). Compiled out of release builds: there
 * the expression is not evaluated (it stays type-checked inside sizeof, so it cannot rot
 * and a variable only an assertion reads is not "unused"). So an expression must have no
 * side effect, and it may cost a little: no release build pays for it.
 *
 * A failure writes one line to stderr,
 *     segscan: assertion failed: src/scan/task.c:829: ss_task_complete: t->pending > 0
 * (file, line, function, the expression as written) with one write(2), no stdio (it may
 * fire in any pipeline thread, with any lock held), then calls abort(): SIGABRT, and a
 * core dump where the system keeps them (run under gdb for the stack). It is the one place
 * the library writes to stderr: a failed invariant is a bug in segscan, and going on would
 * report numbers nobody can trust.
 */
#ifndef SS_COMMON_ASSERT_H
#define SS_COMMON_ASSERT_H

/* Writes the line above and aborts. Defined in every build (common/assert.c), so an
 * object built with SS_ASSERTS links against any build of the library. */
_Noreturn void ss_assert_fail(const char *file, int line, const char *func, const char *expr);

#ifdef SS_ASSERTS
#define SS_ASSERTS_ON 1
#define ss_assert(expr) ((expr) ? (void)0 : ss_assert_fail(__FILE__, __LINE__, __func__, #expr))
#else
#define SS_ASSERTS_ON 0
#define ss_assert(expr) ((void)sizeof((expr) ? 1 : 0))
#endif

#endif /* SS_COMMON_ASSERT_H */
