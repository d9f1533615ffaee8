/*
 * segscan gen: the encoder against independent vectors (the format reference's worked
 * example, kafka-python's batch builder), and generated log dirs against an independent
 * decoder (tests/gen_check.py on kafka-python) and against hand-written byte parsing here.
 * Nothing below decodes with src/fmt's parsers; compression is undone with
 * ss_codec_decompress only because no other decoder for snappy/lz4/zstd is at hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <sys/wait.h>

#include "testutil.h"
#include "segscan.h"
#include "fmt/codec.h"
#include "gen/encode.h"
#include "gen/gen.h"

#define PY "/usr/bin/python3"

/* ---- helpers ---- */
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

static void rm_rf(const char *path)
{
	if (path)
		nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static bool have_kafka_python(void)
{
	return access(PY, X_OK) == 0 && tu_run(NULL, PY " -c 'import kafka' 2>/dev/null") == 0;
}

static const char *gen_check_path(void)
{
	static char path[4096];
	const char *env = getenv("SEGSCAN_GEN_CHECK");
	if (env)
		return env;
	if (access("tests/gen_check.py", R_OK) == 0)
		return "tests/gen_check.py";
	/* built from elsewhere: next to this source file */
	snprintf(path, sizeof(path), "%s", __FILE__);
	char *slash = strrchr(path, '/');
	if (slash)
		snprintf(slash + 1, sizeof(path) - (size_t)(slash + 1 - path), "gen_check.py");
	return path;
}

struct gen_dir {
	char *root;      /* temp dir holding logdir/, remote.ndjson, topic-config.txt */
	char *logdir;
	char *remote;
	char *config;
	struct ss_gen_stats st;
};

static void small_opts(struct ss_gen_opts *o, struct gen_dir *d)
{
	ss_gen_opts_init(o);
	o->outdir = d->logdir;
	o->topics = 3;
	o->partitions = 2;
	o->segments = 5;
	o->segment_bytes = 32 * 1024;
	o->value_bytes = 100;
	o->records_per_batch = 8;
	o->seed = 7;
	o->single_record_tail = 1;
	o->remote_state = d->remote;
	o->topic_config_out = d->config;
}

static void gen_dir_init(struct gen_dir *d, const char *tag)
{
	memset(d, 0, sizeof(*d));
	d->root = tu_mkdtemp(tag);
	assert_non_null(d->root);
	assert_true(asprintf(&d->logdir, "%s/logdir", d->root) > 0);
	assert_true(asprintf(&d->remote, "%s/remote.ndjson", d->root) > 0);
	assert_true(asprintf(&d->config, "%s/topic-config.txt", d->root) > 0);
}

static void gen_dir_free(struct gen_dir *d)
{
	rm_rf(d->root);
	free(d->root);
	free(d->logdir);
	free(d->remote);
	free(d->config);
}

static void run_gen(const struct ss_gen_opts *o, struct gen_dir *d)
{
	char err[512];
	int r = ss_gen_run(o, &d->st, err, sizeof(err));
	if (r)
		print_error("ss_gen_run: %d %s\n", r, err);
	assert_int_equal(r, 0);
}

/* Runs gen_check.py; returns its exit status and the parsed JSON in *out. A run that is
 * expected to fail keeps quiet. */
static int run_check(const struct gen_dir *d, bool with_remote, bool expect_fail, json_t **out)
{
	char *text = NULL;
	int rc = tu_run(&text, PY " %s %s %s%s --topic-config %s%s", gen_check_path(), d->logdir,
			with_remote ? "--remote-state " : "", with_remote ? d->remote : "", d->config,
			expect_fail ? " 2>/dev/null" : "");
	json_error_t je;
	json_t *j = text ? json_loads(text, 0, &je) : NULL;
	if (!j)
		print_error("gen_check output is not JSON: %s\n", text ? text : "(none)");
	else if (rc != 0 && !expect_fail)
		print_error("gen_check: %s\n", text);
	free(text);
	*out = j;
	return rc;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	return (uint8_t *)tu_read_file(path, len);
}

static char *pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *pathf(const char *fmt, ...)
{
	char *p = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&p, fmt, ap);
	va_end(ap);
	assert_true(r > 0);
	return p;
}

/* Sorted base offsets of the .log files in a partition directory. */
static size_t list_bases(const char *pdir, int64_t *out, size_t cap)
{
	DIR *dd = opendir(pdir);
	assert_non_null(dd);
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(dd))) {
		size_t l = strlen(de->d_name);
		if (l == 24 && !strcmp(de->d_name + 20, ".log") && n < cap)
			out[n++] = strtoll(de->d_name, NULL, 10);
	}
	closedir(dd);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int64_t x = out[j]; out[j] = out[j - 1]; out[j - 1] = x;
		}
	return n;
}

/* ---- encoder ---- */

/* docs/kafka-format.md §2.9: one record, null key, value "hi", base offset 0, epoch 0,
 * CreateTime 1700000000000, no producer; hand-built bytes, CRC from a standard CRC-32C. */
static void test_encode_worked_example(void **state)
{
	(void)state;
	static const uint8_t want[] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x00, 0x00, 0x00, 0x00,
		0x02, 0xbb, 0xcc, 0x41, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00, 0x01, 0x04, 0x68, 0x69, 0x00,
	};
	struct ss_enc e;
	ss_enc_init(&e);
	ss_enc_begin(&e, &(struct ss_enc_batch){ .base_offset = 0, .leader_epoch = 0, .codec = SS_CODEC_NONE,
						  .producer_id = -1, .producer_epoch = -1, .base_sequence = -1 });
	struct ss_enc_record r = { .timestamp = 1700000000000LL, .key_len = -1,
				   .value = (const uint8_t *)"hi", .value_len = 2 };
	assert_int_equal(ss_enc_append(&e, &r), 0);
	const uint8_t *out;
	size_t len;
	assert_int_equal(ss_enc_finish(&e, &out, &len), 0);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));

	/* an empty batch is refused, and begin() resets a failed one */
	ss_enc_begin(&e, &(struct ss_enc_batch){ .codec = SS_CODEC_NONE });
	assert_int_equal(ss_enc_finish(&e, &out, &len), -EINVAL);
	ss_enc_free(&e);
}

/* zig-zag varints against §2.6's examples and the int64 extremes */
static void test_encode_varlong(void **state)
{
	(void)state;
	uint8_t b[10];
	assert_int_equal(ss_enc_varlong(b, -1), 1); assert_int_equal(b[0], 0x01);
	assert_int_equal(ss_enc_varlong(b, 1), 1); assert_int_equal(b[0], 0x02);
	assert_int_equal(ss_enc_varlong(b, 2), 1); assert_int_equal(b[0], 0x04);
	assert_int_equal(ss_enc_varlong(b, 64), 2); assert_int_equal(b[0], 0x80); assert_int_equal(b[1], 0x01);
	assert_int_equal(ss_enc_varlong(b, -65), 2); assert_int_equal(b[0], 0x81); assert_int_equal(b[1], 0x01);
	assert_int_equal(ss_enc_varlong(b, INT64_MIN), 10);
	for (int i = 0; i < 9; i++)
		assert_int_equal(b[i], 0xff);
	assert_int_equal(b[9], 0x01);
	assert_int_equal(ss_enc_varlong_size(INT64_MAX), 10);
	assert_int_equal(ss_enc_varlong_size(63), 1);
	assert_int_equal(ss_enc_varlong_size(-64), 1);
	assert_int_equal(ss_enc_varlong_size(-65), 2);
}

/* A batch with keys, null keys, headers (one with a null value), a negative timestamp
 * delta and a value long enough for multi-byte varints, built by kafka-python's
 * DefaultRecordBatchBuilder, must equal ours byte for byte. */
static void test_encode_matches_kafka_python(void **state)
{
	(void)state;
	if (!have_kafka_python())
		skip();
	static const char script[] =
		PY " -c '\n"
		"from kafka.record.default_records import DefaultRecordBatchBuilder as B\n"
		"b = B(magic=2, compression_type=0, is_transactional=0, producer_id=4242, producer_epoch=3,\n"
		"      base_sequence=17, batch_size=1 << 20)\n"
		"b.append(0, 1700000000000, b\"key-0\", b\"v\" * 200, [])\n"
		"b.append(1, 1700000000005, None, b\"\", [(\"trace-id\", b\"abc\"), (\"h2\", None)])\n"
		"b.append(2, 1699999999998, b\"k2\", b\"value-2\", [])\n"
		"b.append(3, 1700000000020, b\"\", None, [])\n"
		"print(bytes(b.build()).hex())\n'";
	char *hex = NULL;
	assert_int_equal(tu_run(&hex, "%s", script), 0);
	size_t hl = strcspn(hex, "\n");
	uint8_t want[4096];
	size_t wl = hl / 2;
	assert_true(wl < sizeof(want));
	for (size_t i = 0; i < wl; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &want[i]), 1);
	free(hex);

	uint8_t v200[200];
	memset(v200, 'v', sizeof(v200));
	struct ss_enc_header hs[2] = {
		{ .key = "trace-id", .key_len = 8, .value = (const uint8_t *)"abc", .value_len = 3 },
		{ .key = "h2", .key_len = 2, .value = NULL, .value_len = -1 },
	};
	struct ss_enc_record recs[4] = {
		{ .timestamp = 1700000000000LL, .offset_delta = 0, .key = (const uint8_t *)"key-0", .key_len = 5,
		  .value = v200, .value_len = 200 },
		{ .timestamp = 1700000000005LL, .offset_delta = 1, .key_len = -1, .value = (const uint8_t *)"",
		  .value_len = 0, .headers = hs, .n_headers = 2 },
		{ .timestamp = 1699999999998LL, .offset_delta = 2, .key = (const uint8_t *)"k2", .key_len = 2,
		  .value = (const uint8_t *)"value-2", .value_len = 7 },
		{ .timestamp = 1700000000020LL, .offset_delta = 3, .key = (const uint8_t *)"", .key_len = 0,
		  .value_len = -1 },
	};
	struct ss_enc e;
	ss_enc_init(&e);
	/* kafka-python leaves base offset and partition leader epoch at 0 (the broker's job) */
	ss_enc_begin(&e, &(struct ss_enc_batch){ .base_offset = 0, .leader_epoch = 0, .codec = SS_CODEC_NONE,
						  .producer_id = 4242, .producer_epoch = 3, .base_sequence = 17 });
	for (int i = 0; i < 4; i++)
		assert_int_equal(ss_enc_append(&e, &recs[i]), 0);
	const uint8_t *out;
	size_t len;
	assert_int_equal(ss_enc_finish(&e, &out, &len), 0);
	assert_int_equal(len, wl);
	assert_memory_equal(out, want, wl);
	ss_enc_free(&e);
}

/* ---- sizes ---- */
static void test_parse_size(void **state)
{
	(void)state;
	static const struct { const char *s; int rc; int64_t v; } cases[] = {
		{ "4096", 0, 4096 }, { "0", 0, 0 }, { "64k", 0, 65536 }, { "64K", 0, 65536 },
		{ "256KiB", 0, 262144 }, { "256kib", 0, 262144 }, { "1m", 0, 1048576 }, { "1MiB", 0, 1048576 },
		{ "2g", 0, 2147483648LL }, { "1GiB", 0, 1073741824 }, { "1G", 0, 1073741824 },
		{ "", -EINVAL, 0 }, { "k", -EINVAL, 0 }, { "12x", -EINVAL, 0 }, { "1.5m", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 }, { " 1", -EINVAL, 0 }, { "1kb", -EINVAL, 0 }, { "1KiB2", -EINVAL, 0 },
		{ "1 k", -EINVAL, 0 }, { "99999999999999999999", -ERANGE, 0 }, { "9000000000g", -ERANGE, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = -7;
		int rc = ss_gen_parse_size(cases[i].s, &v);
		if (rc != cases[i].rc || (rc == 0 && v != cases[i].v))
			fail_msg("ss_gen_parse_size(\"%s\") = %d, %" PRId64, cases[i].s, rc, v);
	}
}

/* ---- generated dirs through the independent decoder ---- */
static void test_gen_python_check(void **state)
{
	(void)state;
	if (!have_kafka_python())
		skip();
	struct gen_dir d;
	struct ss_gen_opts o;
	gen_dir_init(&d, "gen-py");
	small_opts(&o, &d);
	run_gen(&o, &d);
	json_t *j = NULL;
	assert_int_equal(run_check(&d, true, false, &j), 0);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "ok")));

	json_t *parts = json_object_get(j, "partitions");
	assert_int_equal(json_array_size(parts), 6);
	uint64_t batches = 0, records = 0, bytes = 0, segs = 0;
	size_t i;
	json_t *p;
	json_array_foreach(parts, i, p) {
		json_t *sl = json_object_get(p, "segments");
		assert_int_equal(json_array_size(sl), 5);
		for (size_t k = 0; k < 5; k++) {
			json_t *s = json_array_get(sl, k);
			batches += (uint64_t)json_integer_value(json_object_get(s, "batches"));
			records += (uint64_t)json_integer_value(json_object_get(s, "records"));
			bytes += (uint64_t)json_integer_value(json_object_get(s, "size_bytes"));
			segs++;
		}
		/* --single-record-tail=1: the newest closed segment holds one record */
		assert_int_equal(json_integer_value(json_object_get(json_array_get(sl, 3), "records")), 1);
		/* the active segment is not empty by default, and shorter than a full one */
		json_t *act = json_array_get(sl, 4);
		assert_true(json_is_true(json_object_get(act, "active")));
		assert_true(json_integer_value(json_object_get(act, "batches")) >= 1);
		assert_true(json_integer_value(json_object_get(act, "size_bytes")) < o.segment_bytes);
		/* full segments got sparse index entries */
		assert_true(json_integer_value(json_object_get(json_array_get(sl, 0), "index_entries")) >= 3);
	}
	/* what the generator says it wrote is what the decoder found */
	assert_int_equal(d.st.partitions, 6);
	assert_int_equal(d.st.segments, segs);
	assert_int_equal(d.st.batches, batches);
	assert_int_equal(d.st.records, records);
	assert_int_equal(d.st.log_bytes, bytes);

	json_t *rem = json_object_get(json_object_get(j, "summary"), "remote");
	assert_non_null(rem);
	assert_int_equal(json_integer_value(json_object_get(rem, "deleted")), 1);
	assert_true(json_integer_value(json_object_get(rem, "dangling")) >= 1);
	assert_int_equal((uint64_t)json_integer_value(json_object_get(rem, "segments_finished")), d.st.remote_segments);
	assert_int_equal((uint64_t)json_integer_value(json_object_get(rem, "events")), d.st.remote_events);
	/* 2 of the 3 topics are tiered by default (topics 0 and 2) */
	assert_int_equal(json_integer_value(json_object_get(rem, "partitions")), 4);
	json_decref(j);

	/* and the checker is not a rubber stamp: one flipped byte inside a batch fails it */
	char *pdir = pathf("%s/orders.v2-0", d.logdir);
	int64_t bases[16];
	assert_true(list_bases(pdir, bases, 16) == 5);
	char *lp = pathf("%s/%020" PRId64 ".log", pdir, bases[0]);
	int fd = open(lp, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x5a", 1, 200), 1);
	close(fd);
	assert_int_equal(run_check(&d, false, true, &j), 1);
	json_decref(j);
	free(lp);
	free(pdir);
	gen_dir_free(&d);
}

/* ---- determinism ---- */
static int compare_trees(const char *a, const char *b, int depth)
{
	struct dirent **la = NULL, **lb = NULL;
	int na = scandir(a, &la, NULL, alphasort), nb = scandir(b, &lb, NULL, alphasort);
	int diff = 0;
	if (na < 0 || nb < 0 || na != nb)
		diff = 1;
	for (int i = 0; !diff && i < na; i++) {
		if (strcmp(la[i]->d_name, lb[i]->d_name)) {
			diff = 1;
			break;
		}
		if (!strcmp(la[i]->d_name, ".") || !strcmp(la[i]->d_name, ".."))
			continue;
		char *pa = pathf("%s/%s", a, la[i]->d_name), *pb = pathf("%s/%s", b, lb[i]->d_name);
		struct stat sa, sb;
		assert_int_equal(stat(pa, &sa), 0);
		assert_int_equal(stat(pb, &sb), 0);
		if (S_ISDIR(sa.st_mode) != S_ISDIR(sb.st_mode)) {
			diff = 1;
		} else if (S_ISDIR(sa.st_mode)) {
			diff = depth < 4 ? compare_trees(pa, pb, depth + 1) : 1;
		} else if (sa.st_size != sb.st_size) {
			diff = 1;
		} else {
			size_t l1 = 0, l2 = 0;
			uint8_t *x = slurp(pa, &l1), *y = slurp(pb, &l2);
			assert_non_null(x);
			assert_non_null(y);
			diff = l1 != l2 || memcmp(x, y, l1) != 0;
			free(x);
			free(y);
		}
		free(pa);
		free(pb);
	}
	for (int i = 0; i < na; i++)
		free(la[i]);
	for (int i = 0; i < nb; i++)
		free(lb[i]);
	free(la);
	free(lb);
	return diff;
}

static bool files_equal(const char *a, const char *b)
{
	size_t l1 = 0, l2 = 0;
	uint8_t *x = slurp(a, &l1), *y = slurp(b, &l2);
	assert_non_null(x);
	assert_non_null(y);
	bool eq = l1 == l2 && !memcmp(x, y, l1);
	free(x);
	free(y);
	return eq;
}

static void test_gen_deterministic(void **state)
{
	(void)state;
	struct gen_dir d1, d2, d3;
	struct ss_gen_opts o;
	gen_dir_init(&d1, "gen-det1");
	gen_dir_init(&d2, "gen-det2");
	gen_dir_init(&d3, "gen-det3");
	small_opts(&o, &d1);
	o.codec = SS_CODEC_GZIP;
	run_gen(&o, &d1);
	small_opts(&o, &d2);
	o.codec = SS_CODEC_GZIP;
	o.remote_state = NULL;  /* the log dir must not depend on whether it is asked for */
	run_gen(&o, &d2);
	small_opts(&o, &d3);
	o.codec = SS_CODEC_GZIP;
	o.seed = 8;
	run_gen(&o, &d3);

	assert_int_equal(compare_trees(d1.logdir, d2.logdir, 0), 0);
	assert_int_equal(access(d2.remote, F_OK), -1);
	/* the same seed once more, now with the remote state: the same events */
	char *again = pathf("%s/again", d2.root);
	small_opts(&o, &d2);
	o.codec = SS_CODEC_GZIP;
	o.outdir = again;
	run_gen(&o, &d2);
	assert_true(files_equal(d1.remote, d2.remote));
	assert_int_equal(compare_trees(d1.logdir, again, 0), 0);
	free(again);

	assert_int_equal(compare_trees(d1.logdir, d3.logdir, 0), 1);
	assert_false(files_equal(d1.remote, d3.remote));
	/* a different seed changes the data itself, not only ids */
	char *pa = pathf("%s/click-stream-1", d1.logdir), *pb = pathf("%s/click-stream-1", d3.logdir);
	int64_t ba[8], bb[8];
	assert_int_equal(list_bases(pa, ba, 8), 5);
	assert_int_equal(list_bases(pb, bb, 8), 5);
	char *a = pathf("%s/%020" PRId64 ".log", pa, ba[1]);
	char *b = pathf("%s/%020" PRId64 ".log", pb, bb[1]);
	assert_false(files_equal(a, b));
	free(a);
	free(b);
	free(pa);
	free(pb);
	a = pathf("%s/orders.v2-0/partition.metadata", d1.logdir);
	b = pathf("%s/orders.v2-0/partition.metadata", d3.logdir);
	assert_false(files_equal(a, b));
	free(a);
	free(b);
	gen_dir_free(&d1);
	gen_dir_free(&d2);
	gen_dir_free(&d3);
}

/* ---- index files: preallocated active, trimmed closed ---- */
static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void test_gen_index_files(void **state)
{
	(void)state;
	struct gen_dir d;
	struct ss_gen_opts o;
	gen_dir_init(&d, "gen-idx");
	small_opts(&o, &d);
	o.topics = 2;
	o.active_batches = 12;  /* enough bytes for the active segment to have index entries */
	o.remote_state = NULL;
	run_gen(&o, &d);

	const char *dirs[] = { "orders.v2-0", "orders.v2-1", "click-stream-0", "click-stream-1" };
	for (size_t di = 0; di < 4; di++) {
		char *pdir = pathf("%s/%s", d.logdir, dirs[di]);
		int64_t bases[16];
		size_t n = list_bases(pdir, bases, 16);
		assert_int_equal(n, 5);
		for (size_t k = 0; k < n; k++) {
			bool active = k == n - 1;
			char *ip = pathf("%s/%020" PRId64 ".index", pdir, bases[k]);
			char *tp = pathf("%s/%020" PRId64 ".timeindex", pdir, bases[k]);
			struct stat si, st;
			assert_int_equal(stat(ip, &si), 0);
			assert_int_equal(stat(tp, &st), 0);
			size_t il = 0, tl = 0;
			uint8_t *ib = slurp(ip, &il), *tb = slurp(tp, &tl);
			assert_non_null(ib);
			assert_non_null(tb);
			if (active) {
				assert_int_equal(si.st_size, 10485760);
				assert_int_equal(st.st_size, 10485756);
				/* sparse: ftruncate, not written zeros */
				assert_true((int64_t)si.st_blocks * 512 < 1 << 20);
				assert_true((int64_t)st.st_blocks * 512 < 1 << 20);
				/* valid entries at the front (rel > 0, pos > 0, increasing), zeros after */
				size_t e = 0;
				while (e * 8 < il && be32(ib + e * 8 + 4) != 0) {
					assert_true(be32(ib + e * 8) > 0);
					if (e)
						assert_true(be32(ib + e * 8) > be32(ib + (e - 1) * 8));
					e++;
				}
				assert_true(e >= 1);
				assert_true(all_zero(ib + e * 8, il - e * 8));
				size_t te = 0;
				while (te * 12 < tl && be64(tb + te * 12) != 0)
					te++;
				assert_true(te >= 1);
				assert_true(all_zero(tb + te * 12, tl - te * 12));
			} else {
				/* trimmed to whole, non-zero entries */
				assert_int_equal(si.st_size % 8, 0);
				assert_int_equal(st.st_size % 12, 0);
				for (size_t e = 0; e * 8 < il; e++)
					assert_true(be32(ib + e * 8 + 4) > 0);
				assert_true(tl >= 12);  /* at least the max-timestamp entry of the roll */
				for (size_t e = 0; e * 12 < tl; e++)
					assert_true(be64(tb + e * 12) > 1600000000000ULL);
			}
			free(ib);
			free(tb);
			free(ip);
			free(tp);
		}
		free(pdir);
	}
	gen_dir_free(&d);
}

/* ---- --single-record-tail, checked with hand-written header parsing ---- */
static void test_gen_single_record_tail(void **state)
{
	(void)state;
	struct gen_dir d;
	struct ss_gen_opts o;
	gen_dir_init(&d, "gen-tail");
	small_opts(&o, &d);
	o.segments = 6;
	o.single_record_tail = 3;
	o.remote_state = NULL;
	run_gen(&o, &d);

	DIR *dd = opendir(d.logdir);
	assert_non_null(dd);
	struct dirent *de;
	int parts = 0;
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.' || !strchr(de->d_name, '-') || !strcmp(de->d_name, "meta.properties") ||
		    strstr(de->d_name, "checkpoint"))
			continue;
		char *pdir = pathf("%s/%s", d.logdir, de->d_name);
		int64_t bases[16];
		size_t n = list_bases(pdir, bases, 16);
		assert_int_equal(n, 6);
		for (size_t k = 0; k < n; k++) {
			char *lp = pathf("%s/%020" PRId64 ".log", pdir, bases[k]);
			size_t len = 0;
			uint8_t *b = slurp(lp, &len);
			assert_non_null(b);
			assert_true(len >= 61);
			assert_int_equal((int64_t)be64(b), bases[k]);  /* first batch starts at the base */
			if (k >= 2 && k <= 4) {
				/* exactly one batch of one record, and the next segment starts right after */
				assert_int_equal(be32(b + 8) + 12, len);
				assert_int_equal(be32(b + 23), 0);   /* lastOffsetDelta */
				assert_int_equal(be32(b + 57), 1);   /* recordsCount */
				assert_int_equal(bases[k + 1], bases[k] + 1);
			} else if (k < 2) {
				assert_true(be32(b + 57) > 1);
				assert_true(bases[k + 1] > bases[k] + 1);
			}
			free(b);
			free(lp);
		}
		free(pdir);
		parts++;
	}
	closedir(dd);
	assert_int_equal(parts, 6);
	gen_dir_free(&d);
}

/* ---- codecs ---- */
static int64_t read_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t u = 0;
	int shift = 0;
	while (*p < end && shift < 64) {
		uint8_t c = *(*p)++;
		u |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
		shift += 7;
	}
	fail_msg("bad varint");
	return 0;
}

/* Walks the records of a decompressed batch body; returns how many, checking deltas. */
static int32_t walk_records(const uint8_t *p, size_t len, int32_t count)
{
	const uint8_t *end = p + len;
	int32_t n = 0;
	while (p < end) {
		int64_t l = read_varint(&p, end);
		const uint8_t *rend = p + l;
		assert_true(l > 0 && rend <= end);
		p++;                                  /* attributes */
		read_varint(&p, rend);                /* timestamp delta */
		assert_int_equal(read_varint(&p, rend), n);  /* offset delta */
		int64_t kl = read_varint(&p, rend);
		p += kl > 0 ? kl : 0;
		int64_t vl = read_varint(&p, rend);
		assert_true(vl >= 0);
		p += vl;
		int64_t hc = read_varint(&p, rend);
		for (int64_t h = 0; h < hc; h++) {
			int64_t hk = read_varint(&p, rend);
			p += hk;
			int64_t hv = read_varint(&p, rend);
			p += hv > 0 ? hv : 0;
		}
		assert_ptr_equal(p, rend);
		n++;
	}
	assert_int_equal(n, count);
	return n;
}

static void test_gen_codecs(void **state)
{
	(void)state;
	static const enum ss_codec codecs[] = { SS_CODEC_GZIP, SS_CODEC_SNAPPY, SS_CODEC_LZ4, SS_CODEC_ZSTD };
	bool py = have_kafka_python();
	for (size_t ci = 0; ci < 4; ci++) {
		struct gen_dir d;
		struct ss_gen_opts o;
		gen_dir_init(&d, "gen-codec");
		small_opts(&o, &d);
		o.topics = 2;
		o.partitions = 1;
		o.segments = 3;
		o.segment_bytes = 16 * 1024;
		o.codec = codecs[ci];
		run_gen(&o, &d);

		if (py) {
			json_t *j = NULL;
			assert_int_equal(run_check(&d, true, false, &j), 0);
			json_decref(j);
		}
		/* every batch carries the codec and decompresses to exactly its records */
		const char *pd[] = { "orders.v2-0", "click-stream-0" };
		int64_t total = 0;
		for (size_t di = 0; di < 2; di++) {
			char *pdir = pathf("%s/%s", d.logdir, pd[di]);
			int64_t bases[8];
			size_t n = list_bases(pdir, bases, 8);
			assert_int_equal(n, 3);
			for (size_t k = 0; k < n; k++) {
				char *lp = pathf("%s/%020" PRId64 ".log", pdir, bases[k]);
				size_t len = 0, pos = 0;
				uint8_t *b = slurp(lp, &len);
				assert_non_null(b);
				while (pos + 61 <= len) {
					size_t bl = be32(b + pos + 8) + 12;
					assert_true(pos + bl <= len);
					assert_int_equal(be16(b + pos + 21) & 7, (int)codecs[ci]);
					int32_t cnt = (int32_t)be32(b + pos + 57);
					uint8_t *plain = NULL;
					size_t plen = 0;
					int rc = ss_codec_decompress(codecs[ci], b + pos + 61, bl - 61, &plain, &plen, 64 << 20);
					if (rc)
						fail_msg("%s: %s batch at %zu: %s", lp, ss_codec_name(codecs[ci]), pos, segscan_strerror(rc));
					total += walk_records(plain, plen, cnt);
					free(plain);
					pos += bl;
				}
				assert_int_equal(pos, len);
				free(b);
				free(lp);
			}
			free(pdir);
		}
		assert_int_equal((uint64_t)total, d.st.records);
		gen_dir_free(&d);
	}
}

/* ---- the remote state against the files ---- */
struct rseg {
	char    id[32];
	char    topic[64];
	int     part;
	int64_t start, end, size;
	char    state[32];
};

static void test_gen_remote_state(void **state)
{
	(void)state;
	struct gen_dir d;
	struct ss_gen_opts o;
	gen_dir_init(&d, "gen-remote");
	small_opts(&o, &d);
	o.topics = 4;
	o.partitions = 3;
	o.segments = 6;
	o.single_record_tail = 2;
	o.uncopied = 1;
	run_gen(&o, &d);

	FILE *f = fopen(d.remote, "r");
	assert_non_null(f);
	struct rseg *segs = calloc(4096, sizeof(*segs));
	assert_non_null(segs);
	size_t ns = 0;
	char line[4096];
	char last_key[96] = "";
	int64_t last_ts = -1;
	while (fgets(line, sizeof(line), f)) {
		json_error_t je;
		json_t *ev = json_loads(line, 0, &je);
		assert_non_null(ev);
		const char *type = json_string_value(json_object_get(ev, "type"));
		const char *topic = json_string_value(json_object_get(ev, "topic"));
		int part = (int)json_integer_value(json_object_get(ev, "partition"));
		const char *id = json_string_value(json_object_get(ev, "segment_id"));
		const char *st = json_string_value(json_object_get(ev, "state"));
		int64_t ts = json_integer_value(json_object_get(ev, "event_timestamp_ms"));
		assert_non_null(type);
		assert_non_null(topic);
		assert_non_null(id);
		assert_non_null(st);
		assert_int_equal(strlen(id), 22);
		char key[96];
		snprintf(key, sizeof(key), "%s/%d", topic, part);
		if (!strcmp(key, last_key))
			assert_true(ts > last_ts);  /* increasing within a partition */
		snprintf(last_key, sizeof(last_key), "%s", key);
		last_ts = ts;
		/* only tiered topics have remote segments */
		bool tiered = false;
		for (uint32_t t = 0; t < o.topics; t++) {
			char name[256];
			assert_int_equal(ss_gen_topic_name(&o, t, name, sizeof(name)), 0);
			if (!strcmp(name, topic))
				tiered = ss_gen_topic_tiered(&o, t);
		}
		assert_true(tiered);
		if (!strcmp(type, "segment")) {
			assert_true(ns < 4096);
			struct rseg *s = &segs[ns++];
			snprintf(s->id, sizeof(s->id), "%s", id);
			snprintf(s->topic, sizeof(s->topic), "%s", topic);
			s->part = part;
			s->start = json_integer_value(json_object_get(ev, "start_offset"));
			s->end = json_integer_value(json_object_get(ev, "end_offset"));
			s->size = json_integer_value(json_object_get(ev, "size_bytes"));
			assert_string_equal(st, "COPY_SEGMENT_STARTED");
			snprintf(s->state, sizeof(s->state), "%s", st);
			/* leader_epochs: ascending epochs whose first start is the segment start */
			json_t *le = json_object_get(ev, "leader_epochs");
			assert_true(json_object_size(le) >= 1);
			const char *k;
			json_t *v;
			int64_t min_start = INT64_MAX;
			json_object_foreach(le, k, v) {
				if (json_integer_value(v) < min_start)
					min_start = json_integer_value(v);
				assert_true(json_integer_value(v) <= s->end);
			}
			assert_int_equal(min_start, s->start);
		} else {
			assert_string_equal(type, "update");
			struct rseg *s = NULL;
			for (size_t i = 0; i < ns; i++)
				if (!strcmp(segs[i].id, id))
					s = &segs[i];
			assert_non_null(s);  /* never an update for an unknown segment */
			if (!strcmp(st, "COPY_SEGMENT_FINISHED"))
				assert_string_equal(s->state, "COPY_SEGMENT_STARTED");
			else if (!strcmp(st, "DELETE_SEGMENT_STARTED"))
				assert_string_equal(s->state, "COPY_SEGMENT_FINISHED");
			else if (!strcmp(st, "DELETE_SEGMENT_FINISHED"))
				assert_string_equal(s->state, "DELETE_SEGMENT_STARTED");
			else
				fail_msg("unexpected state %s", st);
			snprintf(s->state, sizeof(s->state), "%s", st);
		}
		json_decref(ev);
	}
	fclose(f);

	int finished_local = 0, dangling = 0, deleted = 0;
	for (size_t i = 0; i < ns; i++) {
		struct rseg *s = &segs[i];
		if (!strcmp(s->state, "COPY_SEGMENT_STARTED"))
			dangling++;
		if (!strcmp(s->state, "DELETE_SEGMENT_FINISHED"))
			deleted++;
		if (strcmp(s->state, "COPY_SEGMENT_FINISHED"))
			continue;
		char *pdir = pathf("%s/%s-%d", d.logdir, s->topic, s->part);
		int64_t bases[16];
		size_t n = list_bases(pdir, bases, 16);
		assert_int_equal(n, 6);
		size_t k = 0;
		while (k < n && bases[k] != s->start)
			k++;
		if (k == n) {
			assert_true(s->end < bases[0]);  /* remote-only: below the local log */
		} else {
			assert_true(k + 1 < n);  /* never the active segment */
			assert_true(k + 1 < n - 1);  /* --uncopied=1: the newest closed one waits */
			assert_int_equal(s->end, bases[k + 1] - 1);
			char *lp = pathf("%s/%020" PRId64 ".log", pdir, bases[k]);
			struct stat sb;
			assert_int_equal(stat(lp, &sb), 0);
			assert_int_equal(s->size, sb.st_size);
			free(lp);
			finished_local++;
		}
		free(pdir);
	}
	/* tiered partitions: 2 topics x 3 partitions, 4 copied local segments each */
	assert_int_equal(finished_local, 6 * 4);
	assert_true(dangling >= 1);
	assert_int_equal(deleted, 1);
	free(segs);

	/* the topic config marks exactly the tiered topics */
	size_t cl = 0;
	char *cfg = tu_read_file(d.config, &cl);
	assert_non_null(cfg);
	assert_non_null(strstr(cfg, "\norders.v2 remote.storage.enable=true"));
	assert_non_null(strstr(cfg, "\npayments_eu remote.storage.enable=true"));
	assert_null(strstr(cfg, "\nclick-stream "));
	assert_null(strstr(cfg, "\nuser-events "));
	free(cfg);
	gen_dir_free(&d);
}

/* ---- options ---- */
static void test_gen_rejects_bad_options(void **state)
{
	(void)state;
	struct gen_dir d;
	struct ss_gen_opts o;
	char err[512];
	gen_dir_init(&d, "gen-bad");

	small_opts(&o, &d);
	o.single_record_tail = 5;  /* == segments */
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--single-record-tail"));

	small_opts(&o, &d);
	o.segment_bytes = 500;  /* smaller than one batch of 8 records of ~100 bytes */
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--segment-bytes"));

	small_opts(&o, &d);
	o.segment_bytes = 3LL << 30;
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), -EINVAL);

	small_opts(&o, &d);
	o.topic_prefix = "bad prefix";
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--topic-prefix"));

	/* nothing was written by the refused runs */
	assert_int_equal(access(d.logdir, F_OK), -1);

	/* a non-empty output dir is refused unless forced */
	small_opts(&o, &d);
	o.remote_state = NULL;
	o.topic_config_out = NULL;
	o.topics = 1;
	o.partitions = 1;
	run_gen(&o, &d);
	assert_int_equal(ss_gen_run(&o, NULL, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, d.logdir));
	o.force = true;
	run_gen(&o, &d);
	gen_dir_free(&d);
}

/* ---- --preallocate and --no-clean-shutdown ---- */
static void test_gen_preallocate(void **state)
{
	(void)state;
	struct gen_dir d;
	struct ss_gen_opts o;
	gen_dir_init(&d, "gen-prealloc");
	small_opts(&o, &d);
	o.topics = 1;
	o.partitions = 2;
	o.preallocate = true;
	o.clean_shutdown = false;
	run_gen(&o, &d);
	char *p = pathf("%s/.kafka_cleanshutdown", d.logdir);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	char *pdir = pathf("%s/orders.v2-1", d.logdir);
	int64_t bases[8];
	assert_int_equal(list_bases(pdir, bases, 8), 5);
	char *lp = pathf("%s/%020" PRId64 ".log", pdir, bases[4]);
	struct stat sb;
	assert_int_equal(stat(lp, &sb), 0);
	assert_int_equal(sb.st_size, o.segment_bytes);
	free(lp);
	free(pdir);
	if (have_kafka_python()) {
		json_t *j = NULL;
		assert_int_equal(run_check(&d, true, false, &j), 0);
		json_decref(j);
	}
	gen_dir_free(&d);
}

/* ---- the CLI, when the binary is there ---- */
static void test_gen_cli(void **state)
{
	(void)state;
	const char *bin = tu_segscan();
	char *out = NULL;
	if (access(bin, X_OK) != 0 || tu_run(&out, "%s gen --help 2>&1", bin) != 0)  {
		free(out);
		skip();
	}
	assert_non_null(strstr(out, "--segment-bytes=SIZE"));
	assert_non_null(strstr(out, "--single-record-tail"));
	free(out);
	char *tmp = tu_mkdtemp("gen-cli");
	assert_non_null(tmp);
	assert_int_equal(tu_run(&out, "%s gen %s/x --topics=abc --partitions=1 --segments=1 --segment-bytes=1m 2>&1", bin, tmp), 2);
	assert_non_null(strstr(out, "--topics=abc"));
	free(out);
	assert_int_equal(tu_run(&out, "%s gen %s/x --topics=1 --partitions=1 --segments=1 --segment-bytes=1q 2>&1", bin, tmp), 2);
	assert_non_null(strstr(out, "--segment-bytes=1q"));
	free(out);
	assert_int_equal(tu_run(&out, "%s gen --topics=1 --partitions=1 --segments=1 --segment-bytes=1m 2>&1", bin), 2);
	assert_non_null(strstr(out, "OUTDIR"));
	free(out);
	assert_int_equal(tu_run(&out, "%s gen %s/x --topics=1 --partitions=1 --segment-bytes=1m 2>&1", bin, tmp), 2);
	assert_non_null(strstr(out, "--segments"));
	free(out);
	assert_int_equal(tu_run(&out, "%s gen %s/x --topics=1 --partitions=2 --segments=2 --segment-bytes=64k -q 2>&1", bin, tmp), 0);
	free(out);
	char *p = pathf("%s/x/click-stream-0", tmp);
	assert_int_equal(access(p, F_OK), -1);  /* one topic: orders.v2 only */
	free(p);
	p = pathf("%s/x/orders.v2-1/partition.metadata", tmp);
	assert_int_equal(access(p, R_OK), 0);
	free(p);
	rm_rf(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_worked_example),
		cmocka_unit_test(test_encode_varlong),
		cmocka_unit_test(test_encode_matches_kafka_python),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_gen_python_check),
		cmocka_unit_test(test_gen_deterministic),
		cmocka_unit_test(test_gen_index_files),
		cmocka_unit_test(test_gen_single_record_tail),
		cmocka_unit_test(test_gen_codecs),
		cmocka_unit_test(test_gen_remote_state),
		cmocka_unit_test(test_gen_rejects_bad_options),
		cmocka_unit_test(test_gen_preallocate),
		cmocka_unit_test(test_gen_cli),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
