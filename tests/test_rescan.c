/*
 * Partition-level reuse (issue 15): segscan_reuse_unchanged() in the library, and serve's
 * inotify change detection end to end (tests/rescan.sh).
 *
 * Library: a partition the callback calls unchanged is taken whole from the previous
 * scan (no reads, the same report); one it calls changed is read again and its report
 * equals a fresh scan's; one the previous scan could not read completely is read again
 * whatever the callback says. A callback that lies about a changed partition yields the
 * previous scan's facts: that is the proof the reuse is real, not a second full read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

struct cb {
	const char *changed;   /* this dir is said changed; NULL: none */
	unsigned    calls;
	char        logdir[4096];
};

static bool cb_unchanged(void *arg, const char *log_dir, const char *dir)
{
	struct cb *c = arg;
	c->calls++;
	snprintf(c->logdir, sizeof(c->logdir), "%s", log_dir);
	return !c->changed || strcmp(dir, c->changed) != 0;
}

static const char *const fixed_now[] = { "now", "1700000000000", NULL };

static segscan_scan *run(const char *logdir, const segscan_scan *prev, struct cb *cb)
{
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "quiet", "true"), 0);
	assert_int_equal(segscan_set(s, fixed_now[0], fixed_now[1]), 0);
	assert_int_equal(segscan_add_logdir(s, logdir), 0);
	if (prev)
		assert_int_equal(segscan_reuse(s, prev), 0);
	if (cb)
		assert_int_equal(segscan_reuse_unchanged(s, cb_unchanged, cb), 0);
	int r = segscan_run(s);
	assert_true(r == 0);
	return s;
}

static char *ndjson(const segscan_scan *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(segscan_write(s, SEGSCAN_FMT_NDJSON, f), 0);
	fclose(f);
	/* the summary line counts bytes read, which reuse changes by design: drop it */
	char *sum = strstr(buf, "\"bytes_read\":");
	if (sum)
		for (char *p = sum + 13; *p && *p != ',' && *p != '}'; p++)
			*p = ' ';
	return buf;
}

static char *fresh(const char *logdir)
{
	segscan_scan *s = run(logdir, NULL, NULL);
	char *j = ndjson(s);
	segscan_scan_free(s);
	return j;
}

/* The active segment's path of partition dir `dir`. */
static char *active_log(const char *logdir, const char *dir)
{
	char *out = NULL;
	assert_int_equal(tu_run(&out, "ls '%s/%s'/*.log | sort | tail -1", logdir, dir), 0);
	out[strcspn(out, "\n")] = 0;
	return out;
}

static void append(const char *path, size_t n)
{
	FILE *f = fopen(path, "ab");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc((int)(i * 37 + 11), f);
	assert_int_equal(fclose(f), 0);
}

static void test_unchanged_taken_whole(void **state)
{
	(void)state;
	char *logdir = su_gen("rescan-a", 2, 3, 5, 16 * 1024, 0, false, NULL);
	assert_non_null(logdir);
	segscan_scan *a = run(logdir, NULL, NULL);
	struct cb cb = { 0 };
	segscan_scan *b = run(logdir, a, &cb);
	struct segscan_scan_stats sa, sb;
	segscan_get_stats(a, &sa);
	segscan_get_stats(b, &sb);
	assert_int_equal(cb.calls, 6);                 /* once per partition directory */
	assert_string_equal(cb.logdir, logdir);        /* the path as given */
	assert_int_equal(segscan_partitions_reused(a), 0);
	assert_int_equal(segscan_partitions_reused(b), 6);
	assert_int_equal(sb.segments, sa.segments);
	assert_int_equal(sb.segments_reused, sa.segments); /* the active ones too */
	assert_int_equal(sb.bytes_read, 0);
	char *ja = ndjson(a), *jb = ndjson(b);
	assert_string_equal(ja, jb);
	/* and again from the copy: a chain of rescans stays exact */
	segscan_scan *c = run(logdir, b, &cb);
	char *jc = ndjson(c);
	assert_string_equal(ja, jc);
	assert_int_equal(segscan_partitions_reused(c), 6);

	/* without segscan_reuse the callback is never asked */
	struct cb none = { 0 };
	segscan_scan *d = run(logdir, NULL, &none);
	assert_int_equal(none.calls, 0);
	assert_int_equal(segscan_partitions_reused(d), 0);
	/* and it cannot be set on a scan that ran */
	assert_int_equal(segscan_reuse_unchanged(d, cb_unchanged, &none), -EALREADY);
	free(ja);
	free(jb);
	free(jc);
	segscan_scan_free(d);
	segscan_scan_free(c);
	segscan_scan_free(b);
	segscan_scan_free(a);
	free(logdir);
}

static void test_changed_partition_read_again(void **state)
{
	(void)state;
	char *logdir = su_gen("rescan-b", 2, 3, 5, 16 * 1024, 0, false, NULL);
	assert_non_null(logdir);
	segscan_scan *a = run(logdir, NULL, NULL);
	char *before = ndjson(a);
	char *act = active_log(logdir, "click-stream-1");
	append(act, 300);        /* a torn batch at the end of the active segment */
	char *want = fresh(logdir);
	assert_string_not_equal(before, want); /* the change shows in a report */

	struct cb cb = { .changed = "click-stream-1" };
	segscan_scan *b = run(logdir, a, &cb);
	assert_int_equal(segscan_partitions_reused(b), 5);
	char *got = ndjson(b);
	assert_string_equal(got, want);

	/* a callback that lies: the previous facts come back, so reuse really skipped it */
	struct cb liar = { 0 };
	segscan_scan *c = run(logdir, a, &liar);
	assert_int_equal(segscan_partitions_reused(c), 6);
	char *lie = ndjson(c);
	assert_string_equal(lie, before);
	free(lie);
	free(got);
	free(want);
	free(before);
	free(act);
	segscan_scan_free(c);
	segscan_scan_free(b);
	segscan_scan_free(a);
	free(logdir);
}

static void test_incomplete_partition_never_copied(void **state)
{
	(void)state;
	char *logdir = su_gen("rescan-c", 1, 3, 4, 16 * 1024, 0, false, NULL);
	assert_non_null(logdir);
	char *out = NULL;
	assert_int_equal(tu_run(&out, "ls '%s' | grep -- '-1$'", logdir), 0);
	out[strcspn(out, "\n")] = 0;
	char *pm = NULL;
	assert_true(asprintf(&pm, "%s/%s/partition.metadata", logdir, out) > 0);
	char *good = tu_read_file(pm, NULL);
	assert_non_null(good);
	assert_int_equal(tu_write_file(pm, "version: x\n", 11), 0); /* malformed: a problem */
	segscan_scan *a = run(logdir, NULL, NULL);
	/* repaired; the callback calls everything unchanged, yet the partition with a
	 * problem in the previous scan is read again and the repair is seen */
	assert_int_equal(tu_write_file(pm, good, strlen(good)), 0);
	struct cb cb = { 0 };
	segscan_scan *b = run(logdir, a, &cb);
	assert_int_equal(segscan_partitions_reused(b), 2);
	char *got = ndjson(b), *want = fresh(logdir);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(good);
	free(pm);
	free(out);
	segscan_scan_free(b);
	segscan_scan_free(a);
	free(logdir);
}

/* ---- serve: tests/rescan.sh ------------------------------------------------------------ */

static void run_check(const char *check)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "bash tests/rescan.sh %s '%s'", check, tu_segscan());
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_serve_changes(void **state) { (void)state; run_check("changes"); }
static void test_serve_watch_limit(void **state) { (void)state; run_check("limit"); }
static void test_serve_full_check(void **state) { (void)state; run_check("full"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged_taken_whole),
		cmocka_unit_test(test_changed_partition_read_again),
		cmocka_unit_test(test_incomplete_partition_never_copied),
		cmocka_unit_test(test_serve_changes),
		cmocka_unit_test(test_serve_watch_limit),
		cmocka_unit_test(test_serve_full_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
