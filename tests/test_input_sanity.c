/*
 * What an operator types by mistake (issue 11, input sanity): a directory that is not a
 * Kafka log dir (`segscan scan /etc` used to report "2 partitions"), a partition directory
 * given as the log dir, the same log dir twice, a --seed for a partition that is not there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "testutil.h"

static void test_not_a_logdir(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("sanity"), *out = NULL;
	/* an /etc look-alike: "dbus-1" and "polkit-1" parse as <topic>-<partition> */
	assert_int_equal(tu_run(&out, "mkdir -p %s/etc/dbus-1/system.d %s/etc/polkit-1 %s/empty && echo x > %s/etc/hosts",
				root, root, root, root), 0);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f json %s/etc", tu_segscan(), root), 3);
	assert_non_null(strstr(out, "not a Kafka log dir"));
	assert_non_null(strstr(out, "\"partitions\":0"));   /* summary: none taken for partitions */
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q %s/empty", tu_segscan(), root), 3);
	free(out);
	/* a partition directory: pass its parent */
	assert_int_equal(tu_run(&out, "%s scan -q tests/fixtures/kafka/plain/logdir/plain-v2-0", tu_segscan()), 3);
	assert_non_null(strstr(out, "pass its parent"));
	free(out);
	/* a copied log dir without meta.properties is still one: its partitions look like Kafka's */
	assert_int_equal(tu_run(&out, "cp -r tests/fixtures/kafka/plain/logdir %s/copy && rm %s/copy/meta.properties && "
				      "%s scan -q %s/copy", root, root, tu_segscan(), root), 0);
	free(out);
	assert_int_equal(tu_run(&out, "rm -rf %s", root), 0);
	free(out);
	free(root);
}

static void test_twice_and_seed(void **state)
{
	(void)state;
	char *out = NULL;
	const char *ld = "tests/fixtures/kafka/plain/logdir";
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson %s %s/ | wc -l", tu_segscan(), ld, ld), 0);
	int twice = atoi(out);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson %s | wc -l", tu_segscan(), ld), 0);
	assert_int_equal(twice, atoi(out));   /* scanned once */
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f json %s %s/", tu_segscan(), ld, ld), 0);
	assert_non_null(strstr(out, "given twice"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q --seed=plain-v2-7=5 %s 2>&1", tu_segscan(), ld), 2);
	assert_non_null(strstr(out, "no partition plain-v2-7"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q --seed=plain-v2-0=5 %s", tu_segscan(), ld), 0);
	free(out);
}

/* --topic and --findings-only filter every format; the exit code is the whole scan's. */
static void test_filters(void **state)
{
	(void)state;
	char *out = NULL;
	const char *ld = "tests/fixtures/kafka/multi-broker/logdir-1";
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --topic='mt-b' %s | grep -c '\"topic\":\"mt-b\"'", tu_segscan(),
				ld), 0);
	assert_int_equal(atoi(out), 2);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --topic='mt-b' %s | wc -l", tu_segscan(), ld), 0);
	assert_int_equal(atoi(out), 2);   /* anchored: no other topic */
	free(out);
	/* only node 1's six tiered partitions have findings: REMOTE_METADATA_AT_RISK on each
	 * (__remote_log_metadata has RF 1 on 3 brokers), REMOTE_STATE_UNKNOWN on three */
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --findings-only %s | wc -l", tu_segscan(), ld), 0);
	assert_int_equal(atoi(out), 6);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --findings-only %s | grep -c REMOTE_STATE_UNKNOWN", tu_segscan(),
				ld), 0);
	assert_int_equal(atoi(out), 3);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f prom --findings-only %s | grep -c '^segscan_log_size_bytes{'", tu_segscan(),
				ld), 0);
	assert_int_equal(atoi(out), 6);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q --topic='(' %s 2>&1", tu_segscan(), ld), 2);
	assert_non_null(strstr(out, "--topic=("));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_a_logdir),
		cmocka_unit_test(test_twice_and_seed),
		cmocka_unit_test(test_filters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
