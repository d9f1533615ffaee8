/*
 * The table as `segscan scan` prints it (issue 11): fitted to COLUMNS on real fixture log
 * dirs, the full table on a pipe without COLUMNS, a LOG DIR column only when more than
 * one log dir is scanned, the topic on every row of a pipe. The writer's own cases (every
 * width, the drop order, cut names, escapes) are in test_out.c on a hand-built view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

#define FIXTURES "tests/fixtures/kafka"

static long long now_of(const char *dir)
{
	char *p = NULL;
	json_error_t e;
	assert_true(asprintf(&p, "%s/%s/case.json", FIXTURES, dir) > 0);
	json_t *c = json_load_file(p, 0, &e);
	if (!c)
		fail_msg("%s: %s", p, e.text);
	free(p);
	long long n = (long long)json_integer_value(json_object_get(c, "capture_time_ms"));
	json_decref(c);
	return n;
}

/* Columns of a line: UTF-8 code points (the fixtures' names and paths are ASCII; the
 * only other character the table writes is the ellipsis). */
static size_t columns_of(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

static size_t widest(const char *out)
{
	size_t m = 0;
	for (const char *p = out; *p;) {
		size_t n = strcspn(p, "\n");
		if (columns_of(p, n) > m)
			m = columns_of(p, n);
		p += n + (p[n] == '\n');
	}
	return m;
}

/* The table's lines: from the header (which starts with `head`) to the blank line. */
static char *table_of(const char *out, const char *head)
{
	char want[64];
	snprintf(want, sizeof(want), "\n%s", head);
	const char *h = strstr(out, want);
	if (!h)
		fail_msg("no table header \"%s\" in:\n%s", head, out);
	h++;
	const char *end = strstr(h, "\n\n");
	return strndup(h, end ? (size_t)(end - h) + 1 : strlen(h));
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Partitions the scan reports (one ndjson line each). */
static int partitions(const char *dirs, long long now)
{
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --now=%lld %s", tu_segscan(), now, dirs), 0);
	int n = count_lines(out);
	free(out);
	return n;
}

static void test_columns_two_logdirs(void **state)
{
	long long now = now_of("multi-broker");
	const char *dirs = FIXTURES "/multi-broker/logdir-1 " FIXTURES "/multi-broker/logdir-2";
	int np = partitions(dirs, now);
	assert_true(np > 4);

	/* COLUMNS=80 on a pipe: fitted, the log dirs numbered, the topic on every row */
	char *out = NULL;
	assert_int_equal(tu_run(&out, "COLUMNS=80 LANG=C.UTF-8 %s scan -q --now=%lld %s", tu_segscan(), now, dirs), 0);
	if (widest(out) > 80)
		fail_msg("a line wider than 80 columns:\n%s", out);
	/* (the line wraps at a space) */
	assert_non_null(strstr(out, "\n  log dirs: [1] " FIXTURES "/multi-broker/logdir-1 (node 1)\n            [2] " FIXTURES
				   "/multi-broker/logdir-2 (node 2)\n"));
	char *t = table_of(out, "LD ");
	assert_non_null(strstr(t, " PART "));
	assert_non_null(strstr(t, " LOCAL "));
	assert_non_null(strstr(t, " COPY LAG "));
	assert_non_null(strstr(t, " FINDINGS"));
	int rows = 0, totals = 0;
	bool in1 = false, in2 = false;
	for (const char *p = strchr(t, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, "   ", 3)) {   /* a topic total: no log dir, no topic */
			totals++;
			continue;
		}
		/* "N  topic ...": a log dir number, then a topic name */
		assert_true(p[0] == '1' || p[0] == '2');
		in1 |= p[0] == '1';
		in2 |= p[0] == '2';
		assert_true(p[1] == ' ' && p[3] != ' ');
		rows++;
	}
	assert_int_equal(rows, np);
	assert_true(in1 && in2);
	free(t);
	free(out);

	/* no COLUMNS on a pipe: the full table, each row with its log dir's path */
	assert_int_equal(tu_run(&out, "env -u COLUMNS %s scan -q --now=%lld %s", tu_segscan(), now, dirs), 0);
	t = table_of(out, "LOG DIR ");
	assert_true(widest(t) > 120);
	assert_non_null(strstr(t, " SEGS "));
	assert_non_null(strstr(t, " BROKER SAYS "));
	assert_non_null(strstr(t, " RETENTION "));
	int with_path = 0;
	for (const char *p = strchr(t, '\n') + 1; *p; p = strchr(p, '\n') + 1)
		with_path += !strncmp(p, FIXTURES "/multi-broker/logdir-", strlen(FIXTURES "/multi-broker/logdir-"));
	assert_int_equal(with_path, np);
	/* a COLUMNS that is not a number is no width: the same table */
	char *junk = NULL, *tj;
	assert_int_equal(tu_run(&junk, "COLUMNS=wide %s scan -q --now=%lld %s", tu_segscan(), now, dirs), 0);
	tj = table_of(junk, "LOG DIR ");
	assert_string_equal(tj, t);
	free(tj);
	free(junk);
	free(t);
	free(out);
}

static void test_columns_one_logdir(void **state)
{
	long long now = now_of("tiered");
	const char *dir = FIXTURES "/tiered/logdir";
	int np = partitions(dir, now);
	assert_true(np > 0);
	for (int w = 60; w <= 200; w += 70) {
		char *out = NULL;
		assert_int_equal(tu_run(&out, "COLUMNS=%d %s scan -q --now=%lld %s", w, tu_segscan(), now, dir), 0);
		if (widest(out) > (size_t)w)
			fail_msg("a line wider than %d columns:\n%s", w, out);
		/* one log dir: no log-dir column, no numbers */
		char *t = table_of(out, "TOPIC ");
		assert_null(strstr(out, "LOG DIR"));
		assert_null(strstr(out, "[1]"));
		assert_non_null(strstr(t, " FINDINGS"));
		free(t);
		free(out);
	}
}

/* On a terminal (a pty from script(1)): its width from TIOCGWINSZ, COLUMNS over it, and
 * the topic named once per group. */
static void test_terminal(void **state)
{
	if (tu_run(NULL, "command -v script >/dev/null && command -v stty >/dev/null") != 0) {
		print_message("no script(1) or stty(1): the terminal case is not checked\n");
		skip();
	}
	long long now = now_of("tiered");
	const char *dir = FIXTURES "/tiered/logdir";
	char *out = NULL;
	assert_int_equal(tu_run(&out, "script -qec 'stty cols 70 rows 50; env -u COLUMNS %s scan -q --now=%lld %s' /dev/null "
				      "| tr -d '\\r'", tu_segscan(), now, dir), 0);
	if (widest(out) > 70)
		fail_msg("a line wider than the terminal's 70 columns:\n%s", out);
	char *t = table_of(out, "TOPIC ");
	int named = 0;
	for (const char *p = t; (p = strstr(p, "\n__remote_log_metadata ")); p++)
		named++;
	assert_int_equal(named, 1);   /* its five partitions, the name on the first */
	assert_true(count_lines(t) > 6);
	free(t);
	free(out);
	/* COLUMNS wins over the terminal's size */
	assert_int_equal(tu_run(&out, "script -qec 'stty cols 70 rows 50; COLUMNS=100 %s scan -q --now=%lld %s' /dev/null "
				      "| tr -d '\\r'", tu_segscan(), now, dir), 0);
	assert_true(widest(out) > 70 && widest(out) <= 100);
	free(out);
}

/* A fitted table says which columns it hid; the full one hides none (issue 20 item 11). */
static void test_hidden_columns_said(void **state)
{
	long long now = now_of("tiered");
	const char *dir = FIXTURES "/tiered/logdir";
	char *out = NULL;
	assert_int_equal(tu_run(&out, "COLUMNS=80 %s scan -q --now=%lld %s", tu_segscan(), now, dir), 0);
	const char *said = strstr(out, "\n  table: ");
	assert_non_null(said);
	char *line = strndup(said, (size_t)(strstr(said, "\n\n") - said));   /* with its wrap */
	assert_non_null(strstr(line, "hidden to fit"));
	char *t = table_of(out, "TOPIC ");
	char *hdr = strndup(t, strcspn(t, "\n"));
	static const char *const cols[] = { "SEGS", "ONLY-LOCAL", "REMOTE ", "BROKER SAYS", "RETENTION" };
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		char c[32];
		snprintf(c, sizeof(c), "%.*s", (int)strcspn(cols[i], " "), cols[i]);
		bool gone = !strstr(hdr, cols[i]) && !(i == 2 && strlen(hdr) >= 6 && !strcmp(hdr + strlen(hdr) - 6, "REMOTE"));
		if (gone != (strstr(line, c) != NULL))
			fail_msg("%s is %s but the table says:\n%s", c, gone ? "hidden" : "shown", line);
	}
	assert_null(strstr(hdr, "SEGS"));   /* at 80 columns SEGS always goes */
	free(hdr);
	free(t);
	free(line);
	free(out);
	assert_int_equal(tu_run(&out, "env -u COLUMNS %s scan -q --now=%lld %s", tu_segscan(), now, dir), 0);
	assert_null(strstr(out, "hidden to fit"));
	free(out);
}

/*
 * A newline in a name from the input forges no line of the table (issue 21 item 9): a
 * directory (listed as a note), the server.properties path (what /proc's command line
 * gives for a running broker) and the log dir's own path, each holding "\nforged".
 */
static void test_no_forged_lines(void **state)
{
	char *root = tu_mkdtemp("lf"), *out = NULL;
	assert_non_null(root);
	assert_int_equal(tu_run(&out, "mkdir -p \"%s/$(printf 'log\\nforged dir')\" && "
				      "cp -r " FIXTURES "/plain/logdir/plain-v2-0 \"%s/$(printf 'log\\nforged dir')/\" && "
				      "mkdir \"%s/$(printf 'log\\nforged dir')/$(printf 'evil\\nforged-0')\" && "
				      "printf 'log.retention.ms=1\\n' > \"%s/$(printf 'server\\nforged.properties')\"",
				root, root, root, root), 0);
	free(out);
	for (int w = 0; w <= 80; w += 80) {
		tu_run(&out, "%s %s scan -q --server-properties=\"%s/$(printf 'server\\nforged.properties')\" "
			     "\"%s/$(printf 'log\\nforged dir')\"", w ? "COLUMNS=80" : "env -u COLUMNS", tu_segscan(),
		       root, root);
		for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
			if (!strncmp(p, "forged", 6))
				fail_msg("a line forged by a newline in a name:\n%s", out);
		assert_non_null(strstr(out, "evil\\x0aforged-0"));
		assert_non_null(strstr(out, "server\\x0aforged.properties"));
		free(out);
	}
	tu_run(NULL, "rm -rf %s", root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns_two_logdirs),
		cmocka_unit_test(test_columns_one_logdir),
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_hidden_columns_said),
		cmocka_unit_test(test_no_forged_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
