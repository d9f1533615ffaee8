/*
 * serve names what it could not read (issue 14 item 12): "errors=1" alone gives an operator
 * nothing to act on, so each place is a warn line with its file and reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "testutil.h"

static void test_errors_named_in_log(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("serr"), *out = NULL;
	assert_int_equal(tu_run(&out, "cp -r tests/fixtures/kafka/plain/logdir %s/ld && rm %s/ld/plain-v2-0/00000000000000000015.log "
				      "&& mkdir %s/ld/plain-v2-0/00000000000000000015.log",
				root, root, root), 0);
	free(out);
	out = NULL;
	/* a free loopback port; the scan runs at start, SIGTERM once its "scan complete" line
	 * is logged (an event: a fixed 3 s was not enough on a loaded machine), bounded */
	for (int attempt = 0; attempt < 5; attempt++) {   /* a port another process took first */
		free(out);
		tu_run(&out, "l=%s/serve.log; %s serve --listen=127.0.0.1:%d --interval=60 %s/ld 2>$l & s=$!; "
			     "end=$(($(date +%%s) + %.0f)); until grep -q 'msg=\"scan complete\"' $l || "
			     "! kill -0 $s 2>/dev/null || [ $(date +%%s) -ge $end ]; do sleep 0.05; done; "
			     "kill -TERM $s; wait $s; cat $l",
		       root, tu_segscan(), tu_free_port(), root, tu_guard_s(120));
		if (!strstr(out, "Address already in use"))
			break;
	}
	assert_non_null(strstr(out, "level=warn msg=\"could not read\""));
	char want[4200];
	snprintf(want, sizeof(want), "file=%s/ld/plain-v2-0/00000000000000000015.log", root);
	if (!strstr(out, want))
		fail_msg("no line names %s: %s", want, out);
	assert_non_null(strstr(out, "errors=1"));
	free(out);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_named_in_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
