/*
 * Output injection from directory names (issue 14 item 6): a directory that is not a legal
 * Kafka topic name is not a partition; every string of every format stays valid (JSON
 * parses, the exposition has no raw control bytes) and nothing a name holds reaches a
 * terminal raw (ESC, OSC title, BEL, CR, malformed UTF-8).
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "testutil.h"

static char *tree(void)
{
	char *root = tu_mkdtemp("inj"), *out = NULL;
	assert_int_equal(tu_run(&out, "cp -r tests/fixtures/kafka/plain/logdir/plain-v2-0 %s/ && "
				      "mkdir \"%s/$(printf 'bad\\377\\376name-0')\" \"%s/$(printf 'esc\\033]0;pwned\\007-0')\" "
				      "\"%s/$(printf 'cr\\rclear\\033[2J-0')\" \"%s/sp ace-0\"",
				root, root, root, root, root),
			 0);
	free(out);
	return root;
}

static void no_raw_controls(const char *what, const char *s)
{
	const char *p = tu_raw_control(s);
	if (p)
		fail_msg("%s: raw control byte 0x%02x at %td", what, (unsigned char)*p, p - s);
}

static void test_names_in_every_format(void **state)
{
	(void)state;
	char *root = tree(), *out = NULL;
	/* json: parses (jansson rejects malformed UTF-8), one partition, the others as notes */
	tu_run(&out, "%s scan -q -f json %s", tu_segscan(), root);
	json_error_t e;
	json_t *j = json_loads(out, 0, &e);
	if (!j)
		fail_msg("json does not parse: %s", e.text);
	assert_int_equal(json_array_size(json_object_get(j, "partitions")), 1);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "summary"), "notes")), 4);
	json_decref(j);
	free(out);
	/* ndjson: each line parses */
	tu_run(&out, "%s scan -q -f ndjson %s", tu_segscan(), root);
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		json_t *o = json_loads(l, 0, &e);
		assert_non_null(o);
		json_decref(o);
	}
	free(out);
	/* table and prom: no raw control byte */
	tu_run(&out, "%s scan -q %s", tu_segscan(), root);
	no_raw_controls("table", out);
	assert_non_null(strstr(out, "\\x1b]0;pwned\\x07"));
	assert_non_null(strstr(out, "bad\\xff\\xfename"));
	free(out);
	tu_run(&out, "%s scan -q -f prom %s", tu_segscan(), root);
	no_raw_controls("prom", out);
	free(out);
	/* stderr: a log dir whose name holds an escape, missing */
	tu_run(&out, "%s scan -q \"%s/$(printf 'nope\\033[2J')\" 2>&1", tu_segscan(), root);
	no_raw_controls("stderr", out);
	free(out);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_in_every_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
