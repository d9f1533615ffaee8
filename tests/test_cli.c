/*
 * The segscan binary as an operator meets it: exit codes, error messages that name the
 * file and line, bad input of every kind, a tiny file-descriptor limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>

#include "testutil.h"
#include "scanutil.h"

static char *g_logdir, *g_root;

static int setup(void **state)
{
	g_logdir = su_gen("cli", 2, 2, 4, 96 * 1024, 1, true, &g_root);
	return g_logdir ? 0 : -1;
}

static int teardown(void **state)
{
	free(g_logdir);
	free(g_root);
	return 0;
}

static void test_version_and_help(void **state)
{
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s --version", tu_segscan()), 0);
	assert_non_null(strstr(out, "segscan "));
	free(out);
	for (int i = 0; i < 3; i++) {
		static const char *cmds[] = { "scan", "gen", "serve" };
		assert_int_equal(tu_run(&out, "%s %s --help", tu_segscan(), cmds[i]), 0);
		assert_non_null(strstr(out, "Usage: segscan"));
		free(out);
	}
	assert_int_equal(tu_run(&out, "%s scan --help", tu_segscan()), 0);
	assert_non_null(strstr(out, "--remote-state"));
	assert_non_null(strstr(out, "Exit status"));
	free(out);
	assert_int_equal(tu_run(NULL, "%s frobnicate 2>/dev/null", tu_segscan()), 2);
}

static void test_usage_errors(void **state)
{
	char *out = NULL;
	assert_int_equal(tu_run(NULL, "%s scan --threads=0 %s 2>/dev/null", tu_segscan(), g_logdir), 2);
	assert_int_equal(tu_run(NULL, "%s scan --io=aio %s 2>/dev/null", tu_segscan(), g_logdir), 2);
	assert_int_equal(tu_run(NULL, "%s scan --format=xml %s 2>/dev/null", tu_segscan(), g_logdir), 2);
	assert_int_equal(tu_run(NULL, "%s scan --seed=nodash %s 2>/dev/null", tu_segscan(), g_logdir), 2);
	assert_int_equal(tu_run(NULL, "%s scan --bogus %s 2>/dev/null", tu_segscan(), g_logdir), 2);
	assert_int_equal(tu_run(NULL, "%s scan 2>/dev/null", tu_segscan()), 2);

	/* a malformed remote-state line: exit 2 naming file and line */
	char *bad = NULL;
	assert_true(asprintf(&bad, "%s/bad.ndjson", g_root) > 0);
	const char *txt = "{\"type\":\"partition_delete\",\"topic\":\"t\",\"partition\":0,\"state\":\"DELETE_PARTITION_MARKED\","
			  "\"broker_id\":1,\"event_timestamp_ms\":1}\n{not json\n";
	assert_int_equal(tu_write_file(bad, txt, strlen(txt)), 0);
	assert_int_equal(tu_run(&out, "%s scan --remote-state=%s %s 2>&1 >/dev/null", tu_segscan(), bad, g_logdir), 2);
	assert_non_null(strstr(out, "bad.ndjson:2"));
	free(out);
	/* missing state file */
	assert_int_equal(tu_run(&out, "%s scan --remote-state=%s.nope %s 2>&1 >/dev/null", tu_segscan(), bad, g_logdir), 2);
	assert_non_null(strstr(out, "bad.ndjson.nope"));
	free(out);
	/* a malformed topic config line */
	assert_true(asprintf(&bad, "%s/topics.txt", g_root) > 0);
	txt = "# comment\n* retention.ms=1000\norders retention.bytes=lots\n";
	assert_int_equal(tu_write_file(bad, txt, strlen(txt)), 0);
	assert_int_equal(tu_run(&out, "%s scan --topic-config=%s %s 2>&1 >/dev/null", tu_segscan(), bad, g_logdir), 2);
	assert_non_null(strstr(out, "topics.txt:3"));
	free(out);
	free(bad);
}

static void test_missing_logdir_exits_3(void **state)
{
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan %s/does-not-exist 2>&1", tu_segscan(), g_root), 3);
	assert_non_null(strstr(out, "does-not-exist"));
	free(out);
	/* one good and one missing: still 3, and the good one is reported */
	assert_int_equal(tu_run(&out, "%s scan -f ndjson %s %s/does-not-exist 2>/dev/null", tu_segscan(), g_logdir,
				g_root), 3);
	assert_non_null(strstr(out, "\"topic\""));
	free(out);
}

static void test_bad_input_reported(void **state)
{
	char *root = tu_mkdtemp("cli-bad"), *p = NULL, *out = NULL;
	assert_non_null(root);
	/* a log dir of 0-byte files, garbage, and a .log that cannot be read (a directory) */
	assert_true(asprintf(&p, "%s/t-0", root) > 0);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	const char *empties[] = { "t-0/00000000000000000000.log", "t-0/00000000000000000000.index",
				  "t-0/00000000000000000000.timeindex", "t-0/leader-epoch-checkpoint",
				  "t-0/partition.metadata" };
	for (size_t i = 0; i < 5; i++) {
		assert_true(asprintf(&p, "%s/%s", root, empties[i]) > 0);
		assert_int_equal(tu_write_file(p, "", 0), 0);
		free(p);
	}
	assert_int_equal(tu_run(&out, "%s scan -f json %s", tu_segscan(), root), 0);
	assert_non_null(strstr(out, "\"log_end_offset\":0"));
	free(out);

	assert_true(asprintf(&p, "%s/g-1", root) > 0);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	char junk[5000];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	/* an entry size below Kafka's minimum (14): corrupt, not a truncated tail */
	junk[8] = junk[9] = junk[10] = 0;
	junk[11] = 5;
	assert_true(asprintf(&p, "%s/g-1/00000000000000000000.log", root) > 0);
	assert_int_equal(tu_write_file(p, junk, sizeof(junk)), 0);
	free(p);
	assert_int_equal(tu_run(&out, "%s scan -f json %s", tu_segscan(), root), 1);
	assert_non_null(strstr(out, "00000000000000000000.log"));
	free(out);

	assert_true(asprintf(&p, "%s/g-1/00000000000000000000.log", root) > 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0); /* refused by name at discovery (issue 14 item 11) */
	free(p);
	assert_int_equal(tu_run(&out, "%s scan -f json %s 2>/dev/null", tu_segscan(), root), 1);
	assert_non_null(strstr(out, "a directory, not a regular file"));
	free(out);
	free(root);
}

static void test_tiny_fd_limit(void **state)
{
	char *a = NULL, *b = NULL;
	assert_int_equal(tu_run(&a, "%s scan -f ndjson --threads=2 %s", tu_segscan(), g_logdir), 0);
	assert_int_equal(tu_run(&b, "sh -c 'ulimit -n 64 && exec %s scan -f ndjson --threads=2 %s'", tu_segscan(),
				g_logdir), 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_formats(void **state)
{
	char *out = NULL;
	char *rp = NULL;
	assert_true(asprintf(&rp, "%s/remote.ndjson", g_root) > 0);
	assert_int_equal(tu_run(&out, "%s scan --remote-state=%s %s", tu_segscan(), rp, g_logdir), 0);
	assert_non_null(strstr(out, "TOPIC"));
	assert_non_null(strstr(out, "COPY LAG"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -f prom --remote-state=%s %s", tu_segscan(), rp, g_logdir), 0);
	assert_non_null(strstr(out, "# TYPE segscan_log_size_bytes gauge"));
	assert_non_null(strstr(out, "segscan_log_segments{topic=\""));
	assert_non_null(strstr(out, "segscan_remote_copy_lag_bytes{"));   /* segments: --metrics-extra */
	assert_non_null(strstr(out, "segscan_build_info{"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -f json --stats %s 2>&1 >/dev/null", tu_segscan(), g_logdir), 0);
	assert_non_null(strstr(out, "syscalls"));
	assert_non_null(strstr(out, "ring stalls"));
	free(out);
	free(rp);
}


/* Errors reach stderr in every format (issue 20 item 6: `scan /nonexistent` exited 3
 * with stderr empty; with -f ndjson stdout and stderr were both empty), -q does not
 * silence them, and stdout keeps each format's shape. */
static void test_errors_on_stderr(void **state)
{
	char *err = NULL, *out = NULL, missing[600];
	snprintf(missing, sizeof(missing), "%s/no-such-logdir", g_root);
	static const char *fmts[] = { "table", "json", "ndjson", "prom" };
	for (size_t i = 0; i < 4; i++) {
		for (int q = 0; q < 2; q++) {
			assert_int_equal(tu_run(&err, "%s scan %s -f %s %s %s 2>&1 >/dev/null", tu_segscan(), q ? "-q" : "",
						fmts[i], g_logdir, missing), 3);
			/* one line naming the path and why, as an error */
			char want[700];
			snprintf(want, sizeof(want), "segscan: error: %s: ", missing);
			if (!strstr(err, want) || !strstr(err, "No such file or directory"))
				fail_msg("-f %s%s: stderr lacks the missing log dir: \"%s\"", fmts[i], q ? " -q" : "", err);
			free(err);
		}
		/* stdout: the format's own shape, the readable log dir still reported */
		assert_int_equal(tu_run(&out, "%s scan -f %s %s %s 2>/dev/null", tu_segscan(), fmts[i], g_logdir, missing),
				 3);
		if (!strcmp(fmts[i], "json")) {
			json_error_t je;
			json_t *o = json_loads(out, 0, &je);
			if (!o)
				fail_msg("-f json stdout is not one JSON document: %s", je.text);
			assert_true(json_array_size(json_object_get(o, "partitions")) > 0);
			json_decref(o);
		} else if (!strcmp(fmts[i], "ndjson")) {
			size_t lines = 0;
			for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"), lines++) {
				json_t *o = json_loads(l, 0, NULL);
				if (!o || !json_object_get(o, "topic"))
					fail_msg("-f ndjson: a line that is not a partition object: %s", l);
				json_decref(o);
			}
			assert_true(lines > 0);
		} else if (!strcmp(fmts[i], "prom")) {
			assert_non_null(strstr(out, "segscan_log_segments{"));
		}
		free(out);
	}
	/* the missing log dir alone: ndjson prints nothing, stderr still says why */
	assert_int_equal(tu_run(&out, "%s scan -f ndjson %s 2>/dev/null", tu_segscan(), missing), 3);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(tu_run(&err, "%s scan -f ndjson %s 2>&1 >/dev/null", tu_segscan(), missing), 3);
	assert_non_null(strstr(err, missing));
	free(err);

	/* a segment that cannot be read: exit 1, named on stderr with its log dir path */
	char *root = tu_mkdtemp("cli-stderr"), *p = NULL;
	assert_non_null(root);
	assert_int_equal(tu_run(NULL, "cp -R %s %s/ld", g_logdir, root), 0);
	assert_int_equal(tu_run(&out, "ls %s/ld/*/*.log | head -1", root), 0);
	out[strcspn(out, "\n")] = 0;
	p = strdup(out);
	free(out);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(tu_run(&err, "%s scan -q -f ndjson %s/ld 2>&1 >/dev/null", tu_segscan(), root), 1);
	char want[1400];
	snprintf(want, sizeof(want), "segscan: error: %s: ", p);
	if (!strstr(err, want))
		fail_msg("stderr lacks the unreadable segment %s: \"%s\"", p, err);
	free(err);
	free(p);
	assert_int_equal(tu_run(NULL, "rm -rf %s", root), 0);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_and_help),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_missing_logdir_exits_3),
		cmocka_unit_test(test_bad_input_reported),
		cmocka_unit_test(test_tiny_fd_limit),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_errors_on_stderr),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
