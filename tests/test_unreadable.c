/*
 * A partition that cannot be read is still in every format (issue 14 item 12, the
 * contract's errors[]): its directory or segments unreadable to the scanning user, it
 * is listed with errors naming each place, and the values that could not be computed
 * are null, never 0. Run as an unprivileged user (setpriv), since root reads anything;
 * skipped where that cannot be done.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"

static char *root;

static int setup(void **state)
{
	(void)state;
	char *out = NULL;
	if (geteuid() != 0 || tu_run(&out, "command -v setpriv") != 0) {
		free(out);
		return 0;
	}
	free(out);
	/* not under the test run's private (mode 0700) directory: the unprivileged user must
	 * reach it */
	root = strdup("/tmp/segscan-unr.XXXXXX");
	assert_non_null(root);
	assert_non_null(mkdtemp(root));
	/* the binary goes beside the data: the checkout may sit where nobody cannot reach */
	assert_int_equal(tu_run(&out, "cp -r tests/fixtures/kafka/plain/logdir %s/ld && cp %s %s/segscan && "
				      "chmod -R a+rX %s && chmod a+x %s",
				root, tu_segscan(), root, root, root), 0);
	free(out);
	return 0;
}

static json_t *scan_as_nobody(const char *fmt_extra)
{
	char *out = NULL;
	tu_run(&out, "setpriv --reuid=65534 --regid=65534 --clear-groups %s/segscan scan -q -f ndjson %s %s/ld", root,
	       fmt_extra ? fmt_extra : "", root);
	json_t *arr = json_array();
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		json_t *o = json_loads(l, 0, NULL);
		assert_non_null(o);
		json_array_append_new(arr, o);
	}
	free(out);
	return arr;
}

static json_t *find(json_t *arr, const char *dir)
{
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "dir")), dir))
			return o;
	return NULL;
}

static void test_unreadable_dir(void **state)
{
	(void)state;
	if (!root)
		skip();
	char *out = NULL;
	assert_int_equal(tu_run(&out, "chmod 000 %s/ld/plain-v2-0", root), 0);
	free(out);
	json_t *arr = scan_as_nobody(NULL);
	json_t *p = find(arr, "plain-v2-0");
	if (!p)
		fail_msg("an unreadable partition directory is missing from the report");
	assert_true(json_is_null(json_object_get(p, "size_bytes")));
	assert_true(json_is_null(json_object_get(p, "log_end_offset")));
	assert_int_equal(json_array_size(json_object_get(p, "errors")), 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(json_object_get(p, "errors"), 0), "file")),
			       "plain-v2-0"));
	/* the others are clean */
	json_t *q = find(arr, "codec-gzip-0");
	assert_non_null(q);
	assert_int_equal(json_array_size(json_object_get(q, "errors")), 0);
	json_decref(arr);
	/* prom: its read errors, no made-up size */
	tu_run(&out, "setpriv --reuid=65534 --regid=65534 --clear-groups %s/segscan scan -q -f prom %s/ld", root, root);
	assert_non_null(strstr(out, "segscan_partition_read_errors{topic=\"plain-v2\",partition=\"0\""));
	assert_null(strstr(out, "segscan_log_size_bytes{topic=\"plain-v2\""));
	free(out);
	assert_int_equal(tu_run(&out, "chmod 755 %s/ld/plain-v2-0", root), 0);
	free(out);
}

static void test_unreadable_segments(void **state)
{
	(void)state;
	if (!root)
		skip();
	char *out = NULL;
	assert_int_equal(tu_run(&out, "chmod 000 %s/ld/plain-v2-0/*.log", root), 0);
	free(out);
	json_t *arr = scan_as_nobody(NULL);
	json_t *p = find(arr, "plain-v2-0");
	assert_non_null(p);
	assert_true(json_is_null(json_object_get(p, "size_bytes")));   /* never 0 bytes */
	size_t i;
	json_t *sg;
	json_array_foreach(json_object_get(p, "segments"), i, sg)
		assert_true(json_is_null(json_object_get(sg, "size_bytes")));
	assert_true(json_array_size(json_object_get(p, "errors")) >= 1);
	json_decref(arr);
	assert_int_equal(tu_run(&out, "chmod 644 %s/ld/plain-v2-0/*.log", root), 0);
	free(out);
}

/*
 * A segment the scanning user may not read (chmod 600, another owner) is a permission
 * error on every engine, said as such: the open failed with EACCES, and the report said
 * "Cannot allocate memory" (issue 20 item 4).
 */
static void test_permission_denied_every_engine(void **state)
{
	(void)state;
	if (!root)
		skip();
	char *out = NULL;
	assert_int_equal(tu_run(&out, "chmod 600 %s/ld/plain-v2-0/*.log", root), 0);
	free(out);
	static const char *const engines[] = { "--io=uring", "--io=mmap", "--io=pread" };
	for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++) {
		json_t *arr = scan_as_nobody(engines[e]);
		json_t *p = find(arr, "plain-v2-0");
		assert_non_null(p);
		assert_true(json_is_null(json_object_get(p, "size_bytes")));
		size_t i, n = 0;
		json_t *sg;
		json_array_foreach(json_object_get(p, "segments"), i, sg) {
			const char *err = json_string_value(json_object_get(sg, "error"));
			if (!err)
				fail_msg("%s: segment %zu has no error", engines[e], i);
			if (!strstr(err, "Permission denied") || strstr(err, "memory"))
				fail_msg("%s: segment %zu: \"%s\", not a permission error", engines[e], i, err);
			n++;
		}
		assert_int_equal(n, 4);
		json_t *er;
		json_array_foreach(json_object_get(p, "errors"), i, er)
			assert_non_null(strstr(json_string_value(json_object_get(er, "message")), "Permission denied"));
		json_decref(arr);
	}
	/* the table marks the row as it does an unreadable directory's: its size '?', its
	 * errors counted (and listed under "Could not read"), never a clean-looking row */
	tu_run(&out, "setpriv --reuid=65534 --regid=65534 --clear-groups %s/segscan scan -q %s/ld", root, root);
	const char *row = strstr(out, "\nplain-v2 ");
	assert_non_null(row);
	char line[512];
	sscanf(row + 1, "%511[^\n]", line);
	if (!strstr(line, " ? ") || !strstr(line, "4 errors"))
		fail_msg("the row of a partition whose segments could not be read: \"%s\"", line);
	assert_non_null(strstr(out, "00000000000000000000.log: Permission denied\n"));
	assert_null(strstr(out, "Cannot allocate memory"));
	free(out);
	assert_int_equal(tu_run(&out, "chmod 644 %s/ld/plain-v2-0/*.log", root), 0);
	free(out);
}

static int teardown(void **state)
{
	(void)state;
	char *out = NULL;
	if (root) {
		tu_run(&out, "chmod -R u+rwX %s; rm -rf %s", root, root);
		free(out);
		free(root);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unreadable_dir),
		cmocka_unit_test(test_unreadable_segments),
		cmocka_unit_test(test_permission_denied_every_engine),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
