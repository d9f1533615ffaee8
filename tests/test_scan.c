/*
 * End to end through the library on generated log dirs: every backend and thread count
 * gives byte-identical ndjson; the io_uring fallback; the fast path agrees with --verify;
 * and both agree with kafka-python, an decoder nobody here wrote.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

static char *g_logdir, *g_root;

static int setup(void **state)
{
	/* 96 KiB segments: closed ones take the index path (> 64 KiB), tails stay small */
	g_logdir = su_gen("scan", 3, 3, 6, 96 * 1024, 2, true, &g_root);
	return g_logdir ? 0 : -1;
}

static int teardown(void **state)
{
	free(g_logdir);
	free(g_root);
	return 0;
}

static char *remote_path(void)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/remote.ndjson", g_root) > 0);
	return p;
}

static void test_backends_identical(void **state)
{
	char *rp = remote_path();
	const char *ios[] = { "pread", "mmap", "uring" };
	const char *threads[] = { "1", "2", "3" };
	char *ref = NULL;
	for (size_t i = 0; i < 3; i++)
		for (size_t t = 0; t < 3; t++) {
			const char *kv[] = { "io", ios[i], "threads", threads[t], "remote-state", rp, "now",
					     "1700000000000", NULL };
			int ec = -1;
			char *out = su_scan(g_logdir, SEGSCAN_FMT_NDJSON, &ec, kv);
			assert_non_null(out);
			assert_int_equal(ec, 0);
			assert_true(strlen(out) > 1000);
			if (!ref)
				ref = out;
			else {
				if (strcmp(ref, out) != 0)
					fail_msg("io=%s threads=%s differs from io=pread threads=1", ios[i], threads[t]);
				free(out);
			}
		}
	/* one line per partition */
	size_t lines = 0;
	for (char *p = ref; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 9);
	free(ref);
	free(rp);
}

static void test_uring_fallback(void **state)
{
	const char *kv_p[] = { "io", "pread", NULL };
	const char *kv_u[] = { "io", "uring", NULL };
	char *a = su_scan(g_logdir, SEGSCAN_FMT_NDJSON, NULL, kv_p);
	setenv("SEGSCAN_FORCE_URING_FAIL", "1", 1);
	char *b = su_scan(g_logdir, SEGSCAN_FMT_JSON, NULL, kv_u);
	char *c = su_scan(g_logdir, SEGSCAN_FMT_NDJSON, NULL, kv_u);
	unsetenv("SEGSCAN_FORCE_URING_FAIL");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_string_equal(a, c);
	/* the summary says which engine really ran */
	assert_non_null(strstr(b, "\"io\":\"pread\""));
	free(a);
	free(b);
	free(c);
}

/* index the ndjson by "dir" */
static json_t *parse_ndjson(const char *text)
{
	json_t *all = json_object();
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_error_t e;
		json_t *o = json_loadb(p, len, 0, &e);
		if (!o)
			fail_msg("bad ndjson line: %s", e.text);
		json_object_set_new(all, json_string_value(json_object_get(o, "dir")), o);
		p += len + (nl ? 1 : 0);
	}
	return all;
}

static int64_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!v)
		fail_msg("missing field %s", k);
	return json_is_null(v) ? -1 : json_integer_value(v);
}

static void test_fast_path_equals_verify(void **state)
{
	const char *kv_f[] = { "io", "pread", NULL };
	const char *kv_v[] = { "io", "pread", "verify", "true", NULL };
	char *f = su_scan(g_logdir, SEGSCAN_FMT_NDJSON, NULL, kv_f);
	int ec = -1;
	char *v = su_scan(g_logdir, SEGSCAN_FMT_NDJSON, &ec, kv_v);
	assert_non_null(f);
	assert_non_null(v);
	assert_int_equal(ec, 0);
	json_t *jf = parse_ndjson(f), *jv = parse_ndjson(v);
	const char *dir;
	json_t *pf;
	size_t checked = 0;
	json_object_foreach(jf, dir, pf) {
		json_t *pv = json_object_get(jv, dir);
		assert_non_null(pv);
		assert_int_equal(jint(pf, "log_end_offset"), jint(pv, "log_end_offset"));
		assert_int_equal(jint(pf, "size_bytes"), jint(pv, "size_bytes"));
		json_t *sf = json_object_get(pf, "segments"), *sv = json_object_get(pv, "segments");
		assert_int_equal(json_array_size(sf), json_array_size(sv));
		for (size_t i = 0; i < json_array_size(sf); i++) {
			json_t *a = json_array_get(sf, i), *b = json_array_get(sv, i);
			assert_int_equal(jint(a, "base_offset"), jint(b, "base_offset"));
			assert_int_equal(jint(a, "last_offset"), jint(b, "last_offset"));
			assert_int_equal(jint(a, "end_offset"), jint(b, "end_offset"));
			assert_int_equal(jint(a, "valid_bytes"), jint(b, "valid_bytes"));
			assert_int_equal(jint(a, "max_timestamp_ms"), jint(b, "max_timestamp_ms"));
			assert_int_equal(jint(b, "crc_errors"), 0);
			assert_true(jint(b, "records") > 0);
			checked++;
		}
	}
	assert_int_equal(checked, 9 * 6);
	json_decref(jf);
	json_decref(jv);
	free(f);
	free(v);
}

static void test_agrees_with_kafka_python(void **state)
{
	char *kv_out = NULL;
	int rc = tu_run(&kv_out, "/usr/bin/python3 tests/kafka_view.py '%s' 2>/dev/null", g_logdir);
	if (rc == 3 || rc < 0) {
		free(kv_out);
		skip();
	}
	assert_int_equal(rc, 0);
	json_error_t e;
	json_t *kafka = json_loads(kv_out, 0, &e);
	assert_non_null(kafka);
	const char *kv_v[] = { "verify", "true", NULL };
	char *v = su_scan(g_logdir, SEGSCAN_FMT_NDJSON, NULL, kv_v);
	assert_non_null(v);
	json_t *ours = parse_ndjson(v);
	const char *dir;
	json_t *kp;
	size_t checked = 0;
	json_object_foreach(kafka, dir, kp) {
		json_t *op = json_object_get(ours, dir);
		if (!op)
			fail_msg("segscan did not report %s", dir);
		json_t *osegs = json_object_get(op, "segments");
		assert_int_equal(json_array_size(osegs), json_array_size(kp));
		for (size_t i = 0; i < json_array_size(kp); i++) {
			json_t *k = json_array_get(kp, i), *o = json_array_get(osegs, i);
			assert_int_equal(jint(o, "base_offset"), jint(k, "base_offset"));
			assert_int_equal(jint(o, "last_offset"), jint(k, "last_offset"));
			assert_int_equal(jint(o, "size_bytes"), jint(k, "size_bytes"));
			assert_int_equal(jint(o, "valid_bytes"), jint(k, "valid_bytes"));
			assert_int_equal(jint(o, "batches"), jint(k, "batches"));
			assert_int_equal(jint(o, "records"), jint(k, "records"));
			assert_int_equal(jint(o, "max_timestamp_ms"), jint(k, "max_timestamp_ms"));
			assert_true(json_is_true(json_object_get(k, "crc_ok")));
			checked++;
		}
	}
	assert_true(checked >= 9 * 6);
	json_decref(kafka);
	json_decref(ours);
	free(v);
	free(kv_out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backends_identical),
		cmocka_unit_test(test_uring_fallback),
		cmocka_unit_test(test_fast_path_equals_verify),
		cmocka_unit_test(test_agrees_with_kafka_python),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
