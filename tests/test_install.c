/*
 * The install and embed path (issue 11): tests/install.sh installs into a temporary
 * DESTDIR, builds examples/ against the installed segscan.pc (shared, and statically
 * against libsegscan.a with only the .pc's private requirements), runs both, checks the
 * shared library's exports and its DT_NEEDED list (the scanner's libraries, none of
 * serve's: issue 23 item 6), that libsegscan.a holds none of serve, dump or gen, and
 * that uninstall leaves nothing. Also the version macros against the library's run-time
 * answer.
 */
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "segscan.h"

static void test_version_macros(void **state)
{
	char want[64];
	snprintf(want, sizeof(want), "%d.%d.%d", SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH);
	/* the Makefile's VERSION (the -D string) is read from the header's macros */
	assert_string_equal(segscan_version(), want);
	assert_int_equal(segscan_version_major(), SEGSCAN_VERSION_MAJOR);
	assert_int_equal(segscan_version_minor(), SEGSCAN_VERSION_MINOR);
	assert_int_equal(segscan_version_patch(), SEGSCAN_VERSION_PATCH);
	assert_true(SEGSCAN_CHECK_VERSION(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH));
	assert_true(SEGSCAN_CHECK_VERSION(0, 0, 0));
	assert_false(SEGSCAN_CHECK_VERSION(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH + 1));
	assert_false(SEGSCAN_CHECK_VERSION(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR + 1, 0));
	assert_false(SEGSCAN_CHECK_VERSION(SEGSCAN_VERSION_MAJOR + 1, 0, 0));
	assert_true(segscan_check_version(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH));
	assert_false(segscan_check_version(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR, SEGSCAN_VERSION_PATCH + 1));
	assert_false(segscan_check_version(SEGSCAN_VERSION_MAJOR + 1, 0, 0));
	if (SEGSCAN_VERSION_MINOR > 0)
		assert_true(segscan_check_version(SEGSCAN_VERSION_MAJOR, SEGSCAN_VERSION_MINOR - 1, 999));
}

static void test_install_destdir(void **state)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* the example links the plain .so; a sanitizer build's library needs the runtime */
	skip();
#endif
	const char *bin = getenv("SEGSCAN");
	if (!bin) {
		print_message("SEGSCAN (the built binary, set by tests/run.sh) is not set\n");
		fail();
	}
	char *copy = strdup(bin), cmd[4096];
	assert_non_null(copy);
	snprintf(cmd, sizeof(cmd), "bash tests/install.sh '%s' release", dirname(copy));
	free(copy);
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_macros),
		cmocka_unit_test(test_install_destdir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
