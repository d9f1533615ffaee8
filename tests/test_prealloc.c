/*
 * Preallocated active segments (preallocate=true / log.preallocate=true): Kafka creates the
 * active .log at segment.bytes (RandomAccessFile.setLength: a sparse hole) and appends from
 * the start. The contract: such a segment carries preallocated:true, its own size_bytes is
 * the file size, its zero tail is neither truncated_bytes nor a TRUNCATED_TAIL finding, the
 * partition's size_bytes is Kafka's Size (appended bytes), and the fast path proves the
 * tail zero without reading it. A closed segment with a zero tail stays a TRUNCATED_TAIL.
 *
 * Trees come from `segscan gen --preallocate`; each case runs every --io engine and
 * thread count and requires the same report from all of them.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <inttypes.h>

#include "testutil.h"
#include "scanutil.h"

#define SEG_BYTES   (256 * 1024)          /* closed segments take the index path */
#define PARTS       3
#define MiB         ((int64_t)1 << 20)

struct tree {
	char   *root, *logdir;
	char   *active[PARTS];                /* path of each partition's active .log */
	char   *closed[PARTS];                /* path of its first (closed) .log */
};

static void tree_gen(struct tree *t, const char *tag, int64_t active_size)
{
	memset(t, 0, sizeof(*t));
	t->root = tu_mkdtemp(tag);
	assert_non_null(t->root);
	assert_true(asprintf(&t->logdir, "%s/logdir", t->root) > 0);
	struct ss_gen_opts o;
	char err[256];
	ss_gen_opts_init(&o);
	o.outdir = t->logdir;
	o.topics = 1;
	o.partitions = PARTS;
	o.segments = 3;
	o.segment_bytes = SEG_BYTES;
	o.seed = 11;
	o.preallocate = true;
	if (ss_gen_run(&o, NULL, err, sizeof(err)) != 0)
		fail_msg("gen: %s", err);
	for (int p = 0; p < PARTS; p++) {
		char *dir = NULL;
		assert_true(asprintf(&dir, "%s/orders.v2-%d", t->logdir, p) > 0);
		DIR *d = opendir(dir);
		assert_non_null(d);
		struct dirent *e;
		char lo[256] = "", hi[256] = "";
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (n != 24 || strcmp(e->d_name + 20, ".log"))
				continue;
			if (!*lo || strcmp(e->d_name, lo) < 0)
				snprintf(lo, sizeof(lo), "%s", e->d_name);
			if (!*hi || strcmp(e->d_name, hi) > 0)
				snprintf(hi, sizeof(hi), "%s", e->d_name);
		}
		closedir(d);
		assert_true(*lo && *hi && strcmp(lo, hi));
		assert_true(asprintf(&t->active[p], "%s/%s", dir, hi) > 0);
		assert_true(asprintf(&t->closed[p], "%s/%s", dir, lo) > 0);
		free(dir);
		/* gen preallocated it to segment.bytes; a broker's default is larger: extend the
		 * hole, as setLength does */
		struct stat st;
		assert_int_equal(stat(t->active[p], &st), 0);
		assert_int_equal(st.st_size, SEG_BYTES);
		assert_int_equal(truncate(t->active[p], (off_t)active_size), 0);
	}
}

static void tree_free(struct tree *t)
{
	tu_run(NULL, "rm -rf '%s'", t->root);
	for (int p = 0; p < PARTS; p++) {
		free(t->active[p]);
		free(t->closed[p]);
	}
	free(t->logdir);
	free(t->root);
}

/* Rewrite a file with every byte written (no holes), as a copy without --sparse is. */
static void make_dense(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	size_t len = 0;
	char *data = tu_read_file(path, &len);
	assert_non_null(data);
	assert_int_equal((off_t)len, st.st_size);
	assert_int_equal(tu_write_file(path, data, len), 0);
	free(data);
	assert_int_equal(stat(path, &st), 0);
	assert_true((int64_t)st.st_blocks * 512 >= (int64_t)st.st_size);
}

static void poke(const char *path, int64_t at, int byte)
{
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	unsigned char b = (unsigned char)byte;
	assert_int_equal(pwrite(fd, &b, 1, (off_t)at), 1);
	close(fd);
}

struct report {
	json_t  *parts;       /* "dir" -> partition object */
	int64_t  bytes_read;  /* the largest over the engines */
	int      exit_code;
};

static void report_free(struct report *r)
{
	json_decref(r->parts);
}

/* Scan with every engine and thread count; all must give the same partitions. */
static void scan_all(const char *logdir, bool verify, struct report *out)
{
	static const char *const ios[] = { "pread", "mmap", "uring" };
	static const char *const threads[] = { "1", "2" };
	char *ref = NULL;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 2; k++) {
			const char *kv[] = { "io", ios[i], "threads", threads[k], "verify", verify ? "true" : "false",
					     "now", "1700000000000", NULL };
			int ec = -1;
			char *txt = su_scan(logdir, SEGSCAN_FMT_JSON, &ec, kv);
			assert_non_null(txt);
			json_error_t e;
			json_t *j = json_loads(txt, 0, &e);
			if (!j)
				fail_msg("bad json: %s", e.text);
			free(txt);
			int64_t br = json_integer_value(json_object_get(json_object_get(j, "summary"), "bytes_read"));
			if (br > out->bytes_read)
				out->bytes_read = br;
			char *parts = json_dumps(json_object_get(j, "partitions"), JSON_SORT_KEYS | JSON_COMPACT);
			assert_non_null(parts);
			if (!ref) {
				ref = parts;
				out->exit_code = ec;
				out->parts = json_object();
				size_t n;
				json_t *p;
				json_array_foreach(json_object_get(j, "partitions"), n, p)
					json_object_set(out->parts, json_string_value(json_object_get(p, "dir")), p);
			} else {
				if (strcmp(ref, parts))
					fail_msg("io=%s threads=%s verify=%d differs from io=pread threads=1", ios[i],
						 threads[k], verify);
				assert_int_equal(ec, out->exit_code);
				free(parts);
			}
			json_decref(j);
		}
	free(ref);
}

static json_t *part_of(struct report *r, int p)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "orders.v2-%d", p);
	json_t *o = json_object_get(r->parts, dir);
	if (!o)
		fail_msg("no partition %s", dir);
	return o;
}

static int64_t ji(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!v)
		fail_msg("missing field %s", k);
	return json_is_null(v) ? -1 : json_integer_value(v);
}

static json_t *last_seg(json_t *part)
{
	json_t *segs = json_object_get(part, "segments");
	assert_true(json_array_size(segs) >= 2);
	return json_array_get(segs, json_array_size(segs) - 1);
}

static size_t count_findings(json_t *part, const char *code)
{
	size_t n = 0, i;
	json_t *f;
	json_array_foreach(json_object_get(part, "findings"), i, f)
		n += !strcmp(json_string_value(json_object_get(f, "code")), code);
	return n;
}

/* Every partition's active segment is a clean preallocated one of file size `size`. */
static void expect_preallocated(struct report *r, int64_t size)
{
	for (int p = 0; p < PARTS; p++) {
		json_t *part = part_of(r, p), *a = last_seg(part);
		assert_true(json_is_true(json_object_get(a, "active")));
		if (!json_is_true(json_object_get(a, "preallocated")))
			fail_msg("partition %d: active segment not preallocated", p);
		assert_int_equal(ji(a, "size_bytes"), size);
		assert_int_equal(ji(a, "truncated_bytes"), 0);
		assert_true(ji(a, "valid_bytes") > 0 && ji(a, "valid_bytes") < SEG_BYTES);
		assert_null(json_object_get(a, "error"));
		assert_int_equal(count_findings(part, "TRUNCATED_TAIL"), 0);
		/* Kafka's Size: closed segments' files plus what was appended to the active one */
		int64_t sum = 0;
		size_t i;
		json_t *s;
		json_array_foreach(json_object_get(part, "segments"), i, s) {
			if (s != a)
				assert_false(json_is_true(json_object_get(s, "preallocated")));
			sum += s == a ? ji(s, "valid_bytes") : ji(s, "size_bytes");
		}
		assert_int_equal(ji(part, "size_bytes"), sum);
		json_t *ol = json_object_get(part, "only_local");   /* null while remote state is unknown */
		if (json_is_object(ol))
			assert_true(ji(ol, "size_bytes") <= sum);
	}
}

/* The fast path and --verify agree on everything but the counts the fast path skips. */
static void expect_same(struct report *f, struct report *v)
{
	for (int p = 0; p < PARTS; p++) {
		json_t *a = part_of(f, p), *b = part_of(v, p);
		assert_int_equal(ji(a, "size_bytes"), ji(b, "size_bytes"));
		assert_int_equal(ji(a, "log_end_offset"), ji(b, "log_end_offset"));
		json_t *sa = json_object_get(a, "segments"), *sb = json_object_get(b, "segments");
		assert_int_equal(json_array_size(sa), json_array_size(sb));
		for (size_t i = 0; i < json_array_size(sa); i++) {
			static const char *const same[] = { "base_offset", "last_offset", "size_bytes", "valid_bytes",
							    "truncated_bytes", "preallocated", "max_timestamp_ms",
							    "error" };
			for (size_t k = 0; k < sizeof(same) / sizeof(*same); k++) {
				json_t *x = json_object_get(json_array_get(sa, i), same[k]);
				json_t *y = json_object_get(json_array_get(sb, i), same[k]);
				if (!(x == y || (x && y && json_equal(x, y))))
					fail_msg("partition %d segment %zu: %s differs between fast path and --verify",
						 p, i, same[k]);
			}
		}
		static const char *const codes[] = { "TRUNCATED_TAIL", "CRC_MISMATCH", "OFFSET_GAP_OR_OVERLAP" };
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(count_findings(a, codes[k]), count_findings(b, codes[k]));
	}
}

/* The same tree with its active segments trimmed to their batches (a clean shutdown):
 * what the fast path reads of it is the bar the preallocated tree must stay near. */
static int64_t bytes_read_trimmed(struct tree *t, struct report *r, int64_t restore)
{
	for (int p = 0; p < PARTS; p++)
		assert_int_equal(truncate(t->active[p], (off_t)ji(last_seg(part_of(r, p)), "valid_bytes")), 0);
	struct report trimmed;
	scan_all(t->logdir, false, &trimmed);
	for (int p = 0; p < PARTS; p++) {
		json_t *a = last_seg(part_of(&trimmed, p));
		assert_false(json_is_true(json_object_get(a, "preallocated")));
		/* the partition's size is the same either way: Kafka's Size ignores the zeros */
		assert_int_equal(ji(part_of(&trimmed, p), "size_bytes"), ji(part_of(r, p), "size_bytes"));
		assert_int_equal(truncate(t->active[p], (off_t)restore), 0);
	}
	int64_t br = trimmed.bytes_read;
	report_free(&trimmed);
	return br;
}

/* A broker's default segment: 1 GiB of which a few KiB are batches; the fast path reads
 * a few KiB more than for the trimmed file, not the gigabyte. */
static void test_sparse_1g(void **state)
{
	(void)state;
	struct tree t;
	struct report f;
	tree_gen(&t, "prealloc-1g", 1024 * MiB);
	scan_all(t.logdir, false, &f);
	assert_int_equal(f.exit_code, 0);
	expect_preallocated(&f, 1024 * MiB);
	int64_t base = bytes_read_trimmed(&t, &f, 1024 * MiB);
	printf("fast path: %" PRId64 " bytes read (trimmed: %" PRId64 ")\n", f.bytes_read, base);
	/* at most one log chunk (64 KiB) and the zero samples more per active segment */
	assert_true(f.bytes_read <= base + PARTS * 128 * 1024);
	report_free(&f);
	tree_free(&t);
}

/* --verify reads every byte of the tail and checks it is zero; it agrees with the fast path. */
static void test_sparse_verify(void **state)
{
	(void)state;
	struct tree t;
	struct report f, v;
	tree_gen(&t, "prealloc-verify", 32 * MiB);
	scan_all(t.logdir, false, &f);
	scan_all(t.logdir, true, &v);
	assert_int_equal(v.exit_code, 0);
	expect_preallocated(&f, 32 * MiB);
	expect_preallocated(&v, 32 * MiB);
	expect_same(&f, &v);
	assert_true(v.bytes_read >= PARTS * 32 * MiB);
	assert_true(f.bytes_read < PARTS * 2 * MiB);
	report_free(&f);
	report_free(&v);
	tree_free(&t);
}

/* A non-sparse copy: no holes to skip, so the fast path samples pages; still bounded. */
static void test_dense_copy(void **state)
{
	(void)state;
	struct tree t;
	struct report f, v;
	tree_gen(&t, "prealloc-dense", 16 * MiB);
	for (int p = 0; p < PARTS; p++)
		make_dense(t.active[p]);
	scan_all(t.logdir, false, &f);
	scan_all(t.logdir, true, &v);
	expect_preallocated(&f, 16 * MiB);
	expect_preallocated(&v, 16 * MiB);
	expect_same(&f, &v);
	int64_t base = bytes_read_trimmed(&t, &f, 16 * MiB);
	for (int p = 0; p < PARTS; p++)
		make_dense(t.active[p]);
	assert_true(f.bytes_read <= base + PARTS * 128 * 1024);
	report_free(&f);
	report_free(&v);

	/* a non-zero byte in the last page (always sampled): not a preallocated segment, and
	 * corruption at the zeros, in both modes */
	poke(t.active[1], 16 * MiB - 100, 0x42);
	scan_all(t.logdir, false, &f);
	scan_all(t.logdir, true, &v);
	expect_same(&f, &v);
	json_t *a = last_seg(part_of(&f, 1));
	assert_false(json_is_true(json_object_get(a, "preallocated")));
	assert_int_equal(ji(a, "truncated_bytes"), 0);
	assert_non_null(json_object_get(a, "error"));
	assert_int_equal(f.exit_code, 1);
	/* the other partitions are untouched */
	assert_true(json_is_true(json_object_get(last_seg(part_of(&f, 0)), "preallocated")));
	assert_true(json_is_true(json_object_get(last_seg(part_of(&f, 2)), "preallocated")));
	report_free(&f);
	report_free(&v);

	/* one in the middle, where the fast path may not sample: --verify, which reads every
	 * byte, must see it */
	poke(t.active[2], 5 * MiB + 12345, 0x42);
	scan_all(t.logdir, true, &v);
	a = last_seg(part_of(&v, 2));
	assert_false(json_is_true(json_object_get(a, "preallocated")));
	assert_non_null(json_object_get(a, "error"));
	report_free(&v);
	tree_free(&t);
}

/* A sparse tail with data far inside it: SEEK_DATA finds the extent and the fast path
 * checks it, so both modes call it damage. */
static void test_sparse_island(void **state)
{
	(void)state;
	struct tree t;
	struct report f, v;
	tree_gen(&t, "prealloc-island", 64 * MiB);
	poke(t.active[0], 40 * MiB + 100, 0x07);
	scan_all(t.logdir, false, &f);
	scan_all(t.logdir, true, &v);
	expect_same(&f, &v);
	json_t *a = last_seg(part_of(&f, 0));
	assert_false(json_is_true(json_object_get(a, "preallocated")));
	assert_non_null(json_object_get(a, "error"));
	assert_true(json_is_true(json_object_get(last_seg(part_of(&f, 1)), "preallocated")));
	assert_true(f.bytes_read < PARTS * 2 * MiB);
	report_free(&f);
	report_free(&v);
	tree_free(&t);
}

/* A closed segment with zeros after its last batch is not preallocated (Kafka trims a
 * segment when it rolls): a TRUNCATED_TAIL of exactly the zeros, in both modes, and still
 * probed rather than read by the fast path. */
static void test_closed_zero_tail(void **state)
{
	(void)state;
	struct tree t;
	struct report f, v;
	tree_gen(&t, "prealloc-closed", 8 * MiB);
	struct stat st;
	assert_int_equal(stat(t.closed[1], &st), 0);
	int64_t was = st.st_size;
	assert_int_equal(truncate(t.closed[1], (off_t)(was + 64 * MiB)), 0);
	scan_all(t.logdir, false, &f);
	scan_all(t.logdir, true, &v);
	expect_same(&f, &v);
	json_t *part = part_of(&f, 1);
	json_t *c = json_array_get(json_object_get(part, "segments"), 0);
	assert_false(json_is_true(json_object_get(c, "active")));
	assert_false(json_is_true(json_object_get(c, "preallocated")));
	assert_int_equal(ji(c, "size_bytes"), was + 64 * MiB);
	assert_int_equal(ji(c, "valid_bytes"), was);
	assert_int_equal(ji(c, "truncated_bytes"), 64 * MiB);
	assert_int_equal(count_findings(part, "TRUNCATED_TAIL"), 1);
	assert_int_equal(count_findings(part_of(&v, 1), "TRUNCATED_TAIL"), 1);
	size_t i;
	json_t *fd;
	json_array_foreach(json_object_get(part, "findings"), i, fd)
		if (!strcmp(json_string_value(json_object_get(fd, "code")), "TRUNCATED_TAIL"))
			assert_int_equal(ji(fd, "bytes"), 64 * MiB);
	/* the active segments are still preallocated ones */
	for (int p = 0; p < PARTS; p++) {
		json_t *a = last_seg(part_of(&f, p));
		assert_true(json_is_true(json_object_get(a, "preallocated")));
		assert_int_equal(ji(a, "truncated_bytes"), 0);
	}
	assert_true(f.bytes_read < PARTS * 2 * MiB);
	report_free(&f);
	report_free(&v);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_1g),
		cmocka_unit_test(test_sparse_verify),
		cmocka_unit_test(test_dense_copy),
		cmocka_unit_test(test_sparse_island),
		cmocka_unit_test(test_closed_zero_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
