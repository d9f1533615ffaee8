/*
 * A broker with a small index.interval.bytes writes more offset-index entries than the
 * default's 4096-byte rule allows for a segment's size. The fast path reads a small closed
 * segment's indexes whole when that rule bounds them (src/scan/task.c, PH_WHOLE) and must
 * fall back to its fstat path when the read comes back full: same answer, no finding.
 * The index written here is what Kafka writes with index.interval.bytes=1 (an entry
 * before every batch but the first: LogSegment.append adds one once more than the
 * interval was appended since the last).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>

#include "common/endian.h"
#include "fmt/batch.h"
#include "testutil.h"
#include "scanutil.h"

/* Rewrite <dir>/<name>.index with one entry per batch after the first; returns its size. */
static int64_t dense_index(const char *dir, const char *stem)
{
	char *log = NULL, *idx = NULL;
	assert_true(asprintf(&log, "%s/%s.log", dir, stem) > 0);
	assert_true(asprintf(&idx, "%s/%s.index", dir, stem) > 0);
	size_t len = 0;
	uint8_t *buf = (uint8_t *)tu_read_file(log, &len);
	assert_non_null(buf);
	int64_t base = strtoll(stem, NULL, 10);
	uint8_t *out = malloc(len / 8 + 8);
	size_t n = 0;
	for (size_t pos = 0; pos + SS_MAX_HEADER_SIZE <= len;) {
		struct ss_batch_hdr h;
		assert_true(ss_batch_header(buf + pos, len - pos, &h) > 0);
		if (pos > 0) {
			ss_put_be32(out + n, (uint32_t)(h.base_offset - base));
			ss_put_be32(out + n + 4, (uint32_t)pos);
			n += 8;
		}
		pos += (size_t)h.size;
	}
	assert_int_equal(tu_write_file(idx, out, n), 0);
	free(out);
	free(buf);
	free(log);
	free(idx);
	return (int64_t)n;
}

static void test_dense_index_same_answer(void **state)
{
	/* 96 KiB segments (the index path) of small batches: far more batches than the
	 * default rule's entries */
	char *root = tu_mkdtemp("idxint"), *logdir = NULL, err[256];
	assert_non_null(root);
	assert_true(asprintf(&logdir, "%s/logdir", root) > 0);
	struct ss_gen_opts o;
	ss_gen_opts_init(&o);
	o.outdir = logdir;
	o.topics = 1;
	o.partitions = 2;
	o.segments = 4;
	o.segment_bytes = 96 * 1024;
	o.records_per_batch = 2;
	o.value_bytes = 90;
	o.seed = 7;
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), 0);
	const char *kv[] = { "now", "1700000000000", NULL };
	int ec = -1;
	char *before = su_scan(logdir, SEGSCAN_FMT_NDJSON, &ec, kv);
	assert_non_null(before);

	/* every closed segment (all but the highest base offset of each partition) */
	int rewritten = 0;
	DIR *d = opendir(logdir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strchr(e->d_name, '-') || strncmp(e->d_name, "__", 2) == 0)
			continue;
		char *pdir = NULL;
		assert_true(asprintf(&pdir, "%s/%s", logdir, e->d_name) > 0);
		char *list = NULL;
		assert_int_equal(tu_run(&list, "ls '%s' | grep '\\.log$' | sort | head -n -1", pdir), 0);
		for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
			*strrchr(line, '.') = '\0';
			struct stat st;
			char *lp = NULL;
			assert_true(asprintf(&lp, "%s/%s.log", pdir, line) > 0);
			assert_int_equal(stat(lp, &st), 0);
			int64_t bound = 8 * (st.st_size / 4096 + 3); /* task.c's index_bound */
			assert_true(dense_index(pdir, line) > bound);   /* so the fallback runs */
			rewritten++;
			free(lp);
		}
		free(list);
		free(pdir);
	}
	closedir(d);
	assert_true(rewritten >= 6);

	char *after = su_scan(logdir, SEGSCAN_FMT_NDJSON, &ec, kv);
	assert_non_null(after);
	assert_string_equal(after, before);
	assert_null(strstr(after, "INDEX_INCONSISTENT"));
	free(before);
	free(after);
	tu_run(NULL, "rm -rf '%s'", root);
	free(logdir);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense_index_same_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
