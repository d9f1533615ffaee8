/*
 * Incremental rescans and page-cache politeness:
 * - an unchanged tree rescanned with segscan_reuse gives the same report while reading
 *   only the active segments; a closed segment whose mtime changed is read again;
 * - --evict drops exactly the pages the scan brought in: files that were cold stay cold,
 *   a file the "broker" had hot stays hot.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

static segscan_scan *run(const char *logdir, const segscan_scan *prev, const char *const *kv)
{
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);
	segscan_set(s, "quiet", "true");
	for (; kv && kv[0]; kv += 2)
		assert_int_equal(segscan_set(s, kv[0], kv[1]), 0);
	assert_int_equal(segscan_add_logdir(s, logdir), 0);
	/* a rescanning caller sets reuse up on its first scan too (prev NULL): that scan
	 * then keeps the identities the next one compares (include/segscan.h) */
	assert_int_equal(segscan_reuse(s, prev), 0);
	assert_int_equal(segscan_run(s), 0);
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
	return buf;
}

static void test_unchanged_tree_reads_only_active(void **state)
{
	char *root = NULL;
	char *logdir = su_gen("reuse", 2, 3, 8, 96 * 1024, 1, false, &root);
	assert_non_null(logdir);
	segscan_scan *a = run(logdir, NULL, NULL);
	segscan_scan *b = run(logdir, a, NULL);
	struct segscan_scan_stats sa, sb;
	segscan_get_stats(a, &sa);
	segscan_get_stats(b, &sb);
	char *ja = ndjson(a), *jb = ndjson(b);
	assert_string_equal(ja, jb);
	/* 6 partitions x 8 segments, 7 closed each */
	assert_int_equal(sa.segments_reused, 0);
	assert_int_equal(sb.segments_reused, 6 * 7);
	assert_true(sb.bytes_read * 4 < sa.bytes_read);

	/* a closed segment touched (mtime changes) is read again, nothing else */
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", logdir, "click-stream-0") > 0);
	char *out = NULL;
	assert_int_equal(tu_run(&out, "ls %s/*.log | head -1", p), 0);
	out[strcspn(out, "\n")] = 0;
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, out, ts, 0), 0);
	segscan_scan *c = run(logdir, b, NULL);
	struct segscan_scan_stats sc;
	segscan_get_stats(c, &sc);
	assert_int_equal(sc.segments_reused, 6 * 7 - 1);
	char *jc = ndjson(c);
	/* same facts except that segment's max timestamp could only come from mtime if it
	 * had no timestamps; generated segments have them, so the report is unchanged */
	assert_string_equal(ja, jc);
	free(out);
	free(p);
	free(ja);
	free(jb);
	free(jc);
	segscan_scan_free(c);
	segscan_scan_free(b);
	segscan_scan_free(a);
	free(logdir);
	free(root);
}

/* A prev that was not set up for reuse kept no identities: nothing is taken from it on
 * trust, everything is read again, and the report is the same. */
static void test_prev_without_identities_reads_all(void **state)
{
	(void)state;
	char *root = NULL;
	char *logdir = su_gen("reuse-noid", 1, 2, 4, 96 * 1024, 1, false, &root);
	assert_non_null(logdir);
	segscan_scan *a = NULL;
	assert_int_equal(segscan_scan_new(&a), 0);
	segscan_set(a, "quiet", "true");
	assert_int_equal(segscan_add_logdir(a, logdir), 0);
	assert_int_equal(segscan_run(a), 0); /* no segscan_reuse: a plain scan */
	segscan_scan *b = run(logdir, a, NULL);
	segscan_scan *c = run(logdir, b, NULL);
	struct segscan_scan_stats sb, sc;
	segscan_get_stats(b, &sb);
	segscan_get_stats(c, &sc);
	assert_int_equal(sb.segments_reused, 0);
	assert_int_equal(sc.segments_reused, 2 * 3); /* b kept them: c reuses every closed one */
	char *ja = ndjson(a), *jb = ndjson(b), *jc = ndjson(c);
	assert_string_equal(ja, jb);
	assert_string_equal(ja, jc);
	free(ja);
	free(jb);
	free(jc);
	segscan_scan_free(c);
	segscan_scan_free(b);
	segscan_scan_free(a);
	free(logdir);
	free(root);
}

/* resident pages of a file */
static size_t resident(const char *path)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	size_t n = 0;
	if (st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		assert_true(m != MAP_FAILED);
		size_t pages = ((size_t)st.st_size + 4095) / 4096;
		unsigned char *vec = malloc(pages);
		assert_int_equal(mincore(m, (size_t)st.st_size, vec), 0);
		for (size_t i = 0; i < pages; i++)
			n += vec[i] & 1;
		free(vec);
		munmap(m, (size_t)st.st_size);
	}
	close(fd);
	return n;
}

static void drop(const char *path)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

static void warm(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void test_evict_only_what_we_brought_in(void **state)
{
	char *root = NULL;
	char *logdir = su_gen("evict", 1, 2, 4, 96 * 1024, 0, false, &root);
	assert_non_null(logdir);
	char *list = NULL;
	assert_int_equal(tu_run(&list, "find %s -name '*.log' -o -name '*.index' -o -name '*.timeindex' | sort",
				logdir), 0);
	char *files[64];
	size_t n = 0;
	for (char *tok = strtok(list, "\n"); tok && n < 64; tok = strtok(NULL, "\n"))
		files[n++] = tok;
	assert_true(n >= 8);
	for (size_t i = 0; i < n; i++)
		drop(files[i]);
	size_t cold_before = 0;
	for (size_t i = 0; i < n; i++)
		cold_before += resident(files[i]);
	if (cold_before > 0) {
		/* this filesystem ignores DONTNEED (e.g. tmpfs): nothing to measure here */
		free(list);
		skip();
	}
	/* the "broker" reads the first log whole: its pages are hot */
	const char *hot = NULL;
	for (size_t i = 0; i < n; i++)
		if (strstr(files[i], ".log")) {
			hot = files[i];
			break;
		}
	warm(hot);
	size_t hot_pages = resident(hot);
	assert_true(hot_pages > 0);

	const char *kv[] = { "evict", "true", "io", "pread", "verify", "true", NULL };
	segscan_scan *s = run(logdir, NULL, kv);
	size_t after = 0;
	for (size_t i = 0; i < n; i++)
		if (files[i] != hot)
			after += resident(files[i]);
	assert_int_equal(after, 0);
	assert_int_equal(resident(hot), hot_pages);

	/* without --evict the same scan leaves pages behind: the test can tell */
	segscan_scan *t = run(logdir, NULL, kv + 2);
	after = 0;
	for (size_t i = 0; i < n; i++)
		if (files[i] != hot)
			after += resident(files[i]);
	assert_true(after > 0);
	segscan_scan_free(t);
	segscan_scan_free(s);
	free(list);
	free(logdir);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unchanged_tree_reads_only_active),
		cmocka_unit_test(test_prev_without_identities_reads_all),
		cmocka_unit_test(test_evict_only_what_we_brought_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
