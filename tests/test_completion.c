/*
 * Shell completion of scan's option values in bash and zsh (issue 20 item 11):
 * tests/completion.sh drives both shells against the built binary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "testutil.h"

static void test_option_values(void **state)
{
	(void)state;
	char *out = NULL;
	int rc = tu_run(&out, "bash tests/completion.sh '%s' 2>&1", tu_segscan());
	print_message("%s", out ? out : "");
	free(out);
	assert_int_equal(rc, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
