/*
 * The detailed result accessors (include/segscan.h, "Results in detail") against the json
 * report of the same scan: for every partition of real Kafka fixtures, every value an
 * accessor exposes must equal its json counterpart, null for null. The json is written
 * by out/json.c from the results view and parsed back with jansson, so a drift between
 * the two (a null rule, an ordering, a field taken from the wrong place) fails here.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "segscan.h"
#include "testutil.h"

#define FIXTURES "tests/fixtures/kafka"

/* What the checks covered, so a fixture that stops exercising a path is noticed. */
struct seen {
	size_t parts, segs, with_last, preallocated, remote, seeded, lags, retention_evaluated;
	size_t findings, findings_amount, errors, seg_errors, configs, config_null_source;
	size_t report_errors, logdirs_down;
	size_t remote_unknown, total_evaluated, total_deletes, total_unknown;
};

static segscan_scan *scan(const char *const *logdirs, const char *const *kv, json_t **root)
{
	segscan_scan *s = NULL;
	char *buf = NULL;
	size_t len = 0;
	json_error_t jerr;
	assert_int_equal(segscan_scan_new(&s), 0);  /* freed by the caller: segscan_scan_free */
	assert_int_equal(segscan_set(s, "quiet", "true"), 0);
	for (; kv && kv[0]; kv += 2)
		assert_int_equal(segscan_set(s, kv[0], kv[1]), 0);
	for (; *logdirs; logdirs++)
		assert_int_equal(segscan_add_logdir(s, *logdirs), 0);
	segscan_run(s);  /* a partial scan still has results to compare */
	FILE *f = open_memstream(&buf, &len);  /* closed below, buf freed below */
	assert_non_null(f);
	assert_int_equal(segscan_write(s, SEGSCAN_FMT_JSON, f), 0);
	fclose(f);
	*root = json_loadb(buf, len, 0, &jerr);
	if (!*root)
		fail_msg("json: %s at %d", jerr.text, jerr.line);
	free(buf);
	return s;
}

static void eq_str(const char *got, json_t *want, const char *what)
{
	if (json_is_null(want) || !want) {
		if (got)
			fail_msg("%s: accessor says \"%s\", json null", what, got);
		return;
	}
	if (!json_is_string(want))
		fail_msg("%s: json is not a string", what);
	if (!got || strcmp(got, json_string_value(want)))
		fail_msg("%s: accessor \"%s\", json \"%s\"", what, got ? got : "(null)", json_string_value(want));
}

static void eq_i64(int64_t got, json_t *want, const char *what)
{
	if (!json_is_integer(want))
		fail_msg("%s: json is not an integer (accessor %lld)", what, (long long)got);
	if (got != (int64_t)json_integer_value(want))
		fail_msg("%s: accessor %lld, json %lld", what, (long long)got, (long long)json_integer_value(want));
}

/* an integer the accessor reports with a has-flag */
static void eq_i64n(bool has, int64_t got, json_t *want, const char *what)
{
	if (json_is_null(want)) {
		if (has)
			fail_msg("%s: accessor has %lld, json null", what, (long long)got);
		return;
	}
	if (!has)
		fail_msg("%s: accessor unknown, json has a value", what);
	eq_i64(got, want, what);
}

static void eq_bool(bool got, json_t *want, const char *what)
{
	if (!json_is_boolean(want))
		fail_msg("%s: json is not a boolean", what);
	if (got != json_is_true(want))
		fail_msg("%s: accessor %d, json %d", what, got, json_is_true(want));
}

static void check_segments(const segscan_scan *s, const segscan_partition *p, json_t *jp, struct seen *n,
			   const char *name)
{
	json_t *jsegs = json_object_get(jp, "segments");
	char what[1024];
	assert_true(json_is_array(jsegs));
	assert_int_equal(segscan_partition_segment_count(p), json_array_size(jsegs));
	struct segscan_segment sg = { .size = sizeof(sg) };
	assert_int_equal(segscan_partition_segment(s, p, json_array_size(jsegs), &sg), -ENOENT);
	for (size_t i = 0; i < json_array_size(jsegs); i++) {
		json_t *js = json_array_get(jsegs, i);
		memset(&sg, 0x5a, sizeof(sg));  /* nothing may be left over from before */
		sg.size = sizeof(sg);
		assert_int_equal(segscan_partition_segment(s, p, i, &sg), 0);
		assert_int_equal(sg.size, sizeof(sg));
#define W(f) (snprintf(what, sizeof(what), "%s seg %zu %s", name, i, f), what)
		eq_i64(sg.base_offset, json_object_get(js, "base_offset"), W("base_offset"));
		eq_i64n(sg.has_last_offset, sg.last_offset, json_object_get(js, "last_offset"), W("last_offset"));
		eq_i64n(sg.has_end_offset, sg.end_offset, json_object_get(js, "end_offset"), W("end_offset"));
		eq_i64n(sg.has_size_bytes, sg.size_bytes, json_object_get(js, "size_bytes"), W("size_bytes"));
		eq_i64(sg.valid_bytes, json_object_get(js, "valid_bytes"), W("valid_bytes"));
		eq_i64n(sg.max_timestamp_ms >= 0, sg.max_timestamp_ms, json_object_get(js, "max_timestamp_ms"),
			W("max_timestamp_ms"));
		eq_bool(sg.active, json_object_get(js, "active"), W("active"));
		eq_bool(sg.preallocated, json_object_get(js, "preallocated"), W("preallocated"));
		json_t *ol = json_object_get(js, "only_local");
		if (json_is_null(ol))
			assert_int_equal(sg.only_local, -1);
		else
			eq_bool(sg.only_local == 1, ol, W("only_local"));
		assert_true(sg.only_local >= -1 && sg.only_local <= 1);
		/* json spells the error out: the accessor's code names the same failure */
		json_t *je = json_object_get(js, "error");
		if (!je) {
			assert_int_equal(sg.error, 0);
		} else {
			assert_int_not_equal(sg.error, 0);
			const char *txt = json_string_value(je), *why = segscan_strerror(sg.error);
			size_t tl = strlen(txt), wl = strlen(why);
			assert_true(tl >= wl && !strcmp(txt + tl - wl, why));
			n->seg_errors++;
		}
		for (size_t k = 0; k < sizeof(sg.reserved) / sizeof(sg.reserved[0]); k++)
			assert_int_equal(sg.reserved[k], 0);
#undef W
		n->segs++;
		n->with_last += sg.has_last_offset;
		n->preallocated += sg.preallocated;
	}
}

static bool has_finding(json_t *jp, const char *code)
{
	json_t *fs = json_object_get(jp, "findings"), *f;
	size_t i;
	json_array_foreach(fs, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "code")), code))
			return true;
	return false;
}

static void check_remote(const segscan_partition *p, json_t *jp, struct seen *n, const char *name)
{
	json_t *jr = json_object_get(jp, "remote");
	struct segscan_remote rm = { .size = sizeof(rm) };
	char what[1024];
	int r = segscan_partition_remote(p, &rm);
	if (!jr || json_is_null(jr)) {
		assert_int_equal(r, -ENODATA);
		return;
	}
	assert_int_equal(r, 0);
#define W(f) (snprintf(what, sizeof(what), "%s remote.%s", name, f), what)
	eq_bool(rm.seeded, json_object_get(jr, "seeded"), W("seeded"));
	eq_i64n(rm.seeded, rm.highest_offset, json_object_get(jr, "highest_offset"), W("highest_offset"));
	eq_str(rm.source, json_object_get(jr, "source"), W("source"));
	/* counts json prints as null (the remote state unknown) are -1 with counts_unknown */
	bool rk = !rm.counts_unknown;
	eq_i64n(rk, rm.segments, json_object_get(jr, "segments"), W("segments"));
	eq_i64n(rk, rm.size_bytes, json_object_get(jr, "size_bytes"), W("size_bytes"));
	eq_i64n(rk, rm.dangling_segments, json_object_get(jr, "dangling_segments"), W("dangling_segments"));
	eq_i64n(rk, rm.dangling_bytes, json_object_get(jr, "dangling_bytes"), W("dangling_bytes"));
	if (!rk)
		assert_true(rm.segments == -1 && rm.size_bytes == -1 && rm.dangling_segments == -1 &&
			    rm.dangling_bytes == -1);
	n->remote_unknown += !rk;
	/* json has no remote_state_unknown field: it is the finding of that name */
	assert_int_equal(rm.remote_state_unknown, has_finding(jp, "REMOTE_STATE_UNKNOWN"));
#undef W
	n->remote++;
	n->seeded += rm.seeded;
}

static void check_lags(const segscan_partition *p, json_t *jp, struct seen *n, const char *name)
{
	static const struct { enum segscan_lag which; const char *key; } lags[] = {
		{ SEGSCAN_LAG_ONLY_LOCAL, "only_local" },
		{ SEGSCAN_LAG_COPY, "copy_lag" },
		{ SEGSCAN_LAG_BROKER_COPY, "broker_copy_lag" },
	};
	char what[1024];
	for (size_t i = 0; i < sizeof(lags) / sizeof(lags[0]); i++) {
		json_t *jl = json_object_get(jp, lags[i].key);
		int64_t segs = -7, bytes = -7;
		int r = segscan_partition_lag(p, lags[i].which, &segs, &bytes);
		if (!jl || json_is_null(jl)) {
			assert_int_equal(r, -ENODATA);
			continue;
		}
		assert_int_equal(r, 0);
		snprintf(what, sizeof(what), "%s %s", name, lags[i].key);
		eq_i64(segs, json_object_get(jl, "segments"), what);
		eq_i64(bytes, json_object_get(jl, "size_bytes"), what);
		n->lags++;
	}
	assert_int_equal(segscan_partition_lag(p, (enum segscan_lag)99, NULL, NULL), -EINVAL);
}

static void check_retention(const segscan_partition *p, json_t *jp, struct seen *n, const char *name)
{
	static const struct { enum segscan_retention_kind kind; const char *key; } kinds[] = {
		{ SEGSCAN_RETENTION_SIZE, "size" },
		{ SEGSCAN_RETENTION_TIME, "time" },
		{ SEGSCAN_RETENTION_LOCAL, "local" },
	};
	json_t *jret = json_object_get(jp, "retention");
	char what[1024];
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct segscan_retention rt = { .size = sizeof(rt) };
		int r = segscan_partition_retention(p, kinds[i].kind, &rt);
		if (!jret || json_is_null(jret)) {
			assert_int_equal(r, -ENODATA);
			continue;
		}
		assert_int_equal(r, 0);
		json_t *jk = json_object_get(jret, kinds[i].key);
		snprintf(what, sizeof(what), "%s retention.%s", name, kinds[i].key);
		eq_bool(rt.evaluated, json_object_get(jk, "evaluated"), what);
		eq_str(rt.reason, json_object_get(jk, "reason"), what);
		assert_int_equal(rt.delete_segments, json_array_size(json_object_get(jk, "delete_segments")));
		eq_i64(rt.delete_bytes, json_object_get(jk, "delete_bytes"), what);
		n->retention_evaluated += rt.evaluated;
	}
	/* retention.total: its own accessor, the same nulls */
	struct segscan_retention_total tt = { .size = sizeof(tt) };
	int r = segscan_partition_retention_total(p, &tt);
	if (!jret || json_is_null(jret)) {
		assert_int_equal(r, -ENODATA);
		return;
	}
	assert_int_equal(r, 0);
	json_t *jt = json_object_get(jret, "total");
	snprintf(what, sizeof(what), "%s retention.total", name);
	eq_bool(tt.evaluated, json_object_get(jt, "evaluated"), what);
	eq_str(tt.reason, json_object_get(jt, "reason"), what);
	assert_int_equal(tt.delete_segments, json_array_size(json_object_get(jt, "delete_segments")));
	assert_int_equal(tt.remote_segments, json_array_size(json_object_get(jt, "delete_segment_ids")));
	assert_int_equal(tt.local_segments, json_array_size(json_object_get(jt, "delete_base_offsets")));
	eq_i64n(tt.evaluated, tt.delete_bytes, json_object_get(jt, "delete_bytes"), what);
	eq_i64n(tt.evaluated, tt.local_bytes_freed, json_object_get(jt, "local_bytes_freed"), what);
	eq_i64n(tt.evaluated, tt.remote_bytes_freed, json_object_get(jt, "remote_bytes_freed"), what);
	if (!tt.evaluated)
		assert_true(tt.delete_bytes == -1 && tt.local_bytes_freed == -1 && tt.remote_bytes_freed == -1);
	n->total_evaluated += tt.evaluated;
	n->total_unknown += !tt.evaluated;
	n->total_deletes += tt.delete_segments;
}

static void check_findings(const segscan_partition *p, json_t *jp, struct seen *n, const char *name)
{
	json_t *jf = json_object_get(jp, "findings");
	size_t want = jf ? json_array_size(jf) : 0;
	char what[1024];
	assert_int_equal(segscan_partition_finding_count(p), want);
	struct segscan_finding fd = { .size = sizeof(fd) };
	assert_int_equal(segscan_partition_finding(p, want, &fd), -ENOENT);
	for (size_t i = 0; i < want; i++) {
		json_t *j = json_array_get(jf, i);
		assert_int_equal(segscan_partition_finding(p, i, &fd), 0);
		snprintf(what, sizeof(what), "%s finding %zu", name, i);
		eq_str(fd.code, json_object_get(j, "code"), what);
		/* no ticket: json null (for jq), the C API's "" (segscan.h) */
		eq_str(fd.ref && fd.ref[0] ? fd.ref : NULL, json_object_get(j, "ref"), what);
		eq_str(fd.message, json_object_get(j, "message"), what);
		json_t *js = json_object_get(j, "segments");
		assert_int_equal(fd.has_amount, js != NULL);
		if (js) {
			eq_i64(fd.segments, js, what);
			eq_i64(fd.bytes, json_object_get(j, "bytes"), what);
			n->findings_amount++;
		}
		n->findings++;
	}
}

static void check_errors(const segscan_scan *s, const segscan_partition *p, json_t *jp, struct seen *n,
			 const char *name)
{
	json_t *je = json_object_get(jp, "errors");
	char file[4096], msg[1024], what[1024];
	assert_true(json_is_array(je));
	assert_int_equal(segscan_partition_error_count(s, p), json_array_size(je));
	assert_int_equal(segscan_partition_error(s, p, json_array_size(je), file, sizeof(file), msg, sizeof(msg)),
			 -ENOENT);
	for (size_t i = 0; i < json_array_size(je); i++) {
		json_t *j = json_array_get(je, i);
		assert_int_equal(segscan_partition_error(s, p, i, file, sizeof(file), msg, sizeof(msg)), 0);
		snprintf(what, sizeof(what), "%s error %zu", name, i);
		eq_str(file, json_object_get(j, "file"), what);
		eq_str(msg, json_object_get(j, "message"), what);
		/* a buffer too small is said, and what fits is NUL-terminated */
		char small[4];
		assert_int_equal(segscan_partition_error(s, p, i, small, sizeof(small), NULL, 0), -ERANGE);
		assert_int_equal(strlen(small), 3);
		n->errors++;
	}
}

static void check_config(const segscan_partition *p, json_t *jp, struct seen *n, const char *name)
{
	json_t *jc = json_object_get(jp, "config"), *v;
	const char *key, *value, *source;
	char what[1024];
	assert_int_equal(segscan_partition_config(p, "no.such.key", &value, &source), -ENOENT);
	if (!jc) {
		assert_int_equal(segscan_partition_config(p, "retention.ms", &value, &source), -ENOENT);
		return;
	}
	json_object_foreach(jc, key, v) {
		value = source = (const char *)1;
		assert_int_equal(segscan_partition_config(p, key, &value, &source), 0);
		snprintf(what, sizeof(what), "%s config %s", name, key);
		eq_str(value, json_object_get(v, "value"), what);
		eq_str(source, json_object_get(v, "source"), what);
		n->configs++;
		n->config_null_source += source == NULL;
	}
}

static void check_broker(const segscan_scan *s, json_t *root)
{
	json_t *jb = json_object_get(json_object_get(root, "summary"), "broker");
	struct segscan_broker b = { .size = sizeof(b) };
	assert_non_null(jb);
	assert_int_equal(segscan_get_broker(s, &b), 0);
	eq_i64n(b.node_id >= 0, b.node_id, json_object_get(jb, "node_id"), "broker.node_id");
	eq_str(b.cluster_id, json_object_get(jb, "cluster_id"), "broker.cluster_id");
	eq_str(b.kafka_version, json_object_get(jb, "kafka_version"), "broker.kafka_version");
	eq_str(b.kafka_version_source, json_object_get(jb, "kafka_version_source"), "broker.kafka_version_source");
	/* a caller that says its struct is smaller than ours is refused, not overrun */
	struct segscan_broker tiny = { .size = 1 };
	assert_int_equal(segscan_get_broker(s, &tiny), -EINVAL);
}

/* The report's own errors[] and summary.log_dirs against segscan_error and segscan_logdir. */
static void check_report_errors(const segscan_scan *s, json_t *root, struct seen *n)
{
	json_t *je = json_object_get(root, "errors"), *jl = json_object_get(json_object_get(root, "summary"), "log_dirs");
	char file[4096], msg[1024], what[64];
	assert_true(json_is_array(je) && json_is_array(jl));
	assert_int_equal(segscan_error_count(s), json_array_size(je));
	for (size_t i = 0; i < json_array_size(je); i++) {
		json_t *e = json_array_get(je, i);
		assert_int_equal(segscan_error(s, i, file, sizeof(file), msg, sizeof(msg)), 0);
		snprintf(what, sizeof(what), "errors[%zu].file", i);
		eq_str(file, json_object_get(e, "file"), what);
		snprintf(what, sizeof(what), "errors[%zu].message", i);
		eq_str(msg, json_object_get(e, "message"), what);
		n->report_errors++;
	}
	assert_int_equal(segscan_error(s, json_array_size(je), file, sizeof(file), msg, sizeof(msg)), -ENOENT);
	assert_int_equal(segscan_logdir_count(s), json_array_size(jl));
	for (size_t i = 0; i < json_array_size(jl); i++) {
		struct segscan_logdir l = { .size = sizeof(l) };
		assert_int_equal(segscan_logdir(s, i, &l), 0);
		eq_str(l.path, json_array_get(jl, i), "summary.log_dirs[i]");
		/* a log dir json lists an error for is the one the accessor says is down */
		bool listed = false;
		for (size_t k = 0; k < json_array_size(je); k++)
			listed |= !strcmp(json_string_value(json_object_get(json_array_get(je, k), "file")), l.path);
		if (l.error)
			assert_true(listed);
		n->logdirs_down += l.error != 0;
	}
	struct segscan_logdir l = { .size = sizeof(l) };
	assert_int_equal(segscan_logdir(s, json_array_size(jl), &l), -ENOENT);
}

static void check_all(const segscan_scan *s, json_t *root, struct seen *n)
{
	json_t *jparts = json_object_get(root, "partitions");
	char name[300];
	assert_true(json_is_array(jparts));
	assert_int_equal(segscan_partition_count(s), json_array_size(jparts));
	for (size_t i = 0; i < json_array_size(jparts); i++) {
		json_t *jp = json_array_get(jparts, i);
		const segscan_partition *p = segscan_partition_at(s, i);
		assert_non_null(p);
		assert_string_equal(segscan_partition_topic(p), json_string_value(json_object_get(jp, "topic")));
		assert_int_equal(segscan_partition_id(p), json_integer_value(json_object_get(jp, "partition")));
		snprintf(name, sizeof(name), "%s-%d", segscan_partition_topic(p), (int)segscan_partition_id(p));
		check_segments(s, p, jp, n, name);
		check_remote(p, jp, n, name);
		check_lags(p, jp, n, name);
		check_retention(p, jp, n, name);
		check_findings(p, jp, n, name);
		check_errors(s, p, jp, n, name);
		check_config(p, jp, n, name);
		n->parts++;
	}
	check_broker(s, root);
	check_report_errors(s, root, n);
}

static void test_cluster_meta(void **state)
{
	(void)state;
	const char *dirs[] = { FIXTURES "/cluster-meta/logdir", NULL };
	const char *kv[] = { "server-properties", FIXTURES "/cluster-meta/server.properties", NULL };
	json_t *root;
	struct seen n = { 0 };
	segscan_scan *s = scan(dirs, kv, &root);  /* freed below */
	check_all(s, root, &n);
	/* the fixture exercises the paths: segments, remote state, findings, config, the broker */
	assert_true(n.parts > 0 && n.segs > 0 && n.with_last > 0);
	assert_true(n.remote > 0 && n.lags > 0);
	assert_true(n.configs > 0);
	assert_true(n.total_evaluated > 0);   /* retention.total's accessor read something known */
	struct segscan_broker b = { .size = sizeof(b) };
	segscan_get_broker(s, &b);
	assert_true(b.node_id >= 0);
	assert_non_null(b.kafka_version);
	fprintf(stderr, "cluster-meta: %zu partitions, %zu segments, %zu remote, %zu seeded, %zu lags, "
			"%zu retention evaluated, %zu findings, %zu errors, %zu configs (%zu with a null source)\n",
		n.parts, n.segs, n.remote, n.seeded, n.lags, n.retention_evaluated, n.findings, n.errors, n.configs,
		n.config_null_source);
	json_decref(root);
	segscan_scan_free(s);
}

static void test_multi_broker(void **state)
{
	(void)state;
	const char *dirs[] = { FIXTURES "/multi-broker/logdir-1", NULL };
	json_t *root;
	struct seen n = { 0 };
	segscan_scan *s = scan(dirs, NULL, &root);  /* freed below */
	check_all(s, root, &n);
	assert_true(n.parts > 0 && n.segs > 0);
	fprintf(stderr, "multi-broker/logdir-1: %zu partitions, %zu segments, %zu remote (%zu unknown), %zu seeded, "
			"%zu lags, %zu findings, %zu errors, %zu configs, %zu totals known (%zu deletes)\n",
		n.parts, n.segs, n.remote, n.remote_unknown, n.seeded, n.lags, n.findings, n.errors, n.configs,
		n.total_evaluated, n.total_deletes);
	json_decref(root);
	segscan_scan_free(s);
}

/* A damaged copy of a fixture, so the errors[] path is compared too: a partition.metadata
 * that is not one (a problem of the partition) and a segment whose .log is a directory
 * (a failed segment). The fixture itself is never touched: the copy is in the test tmp. */
static void test_damaged(void **state)
{
	(void)state;
	char *root_dir = tu_mkdtemp("api");  /* freed below */
	char cmd[8192], logdir[4096], path[4200];
	assert_non_null(root_dir);
	snprintf(logdir, sizeof(logdir), "%s/logdir", root_dir);
	snprintf(cmd, sizeof(cmd), "cp -R %s/multi-broker/logdir-1 '%s'", FIXTURES, logdir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/mt-a-0/partition.metadata", logdir);
	assert_int_equal(tu_write_file(path, "not a partition.metadata\n", 25), 0);
	snprintf(path, sizeof(path), "%s/mt-a-1/00000000000000000000.log", logdir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	/* an unknown record batch magic in mt-a-2's first batch (byte 16 of its header) */
	snprintf(path, sizeof(path), "%s/mt-a-2/00000000000000000000.log", logdir);
	FILE *f = fopen(path, "r+");  /* closed below */
	assert_non_null(f);
	assert_int_equal(fseek(f, 16, SEEK_SET), 0);
	assert_int_equal(fputc(7, f), 7);
	assert_int_equal(fclose(f), 0);

	char missing[4200];
	snprintf(missing, sizeof(missing), "%s/no-such-logdir", root_dir);
	const char *dirs[] = { logdir, missing, NULL };
	json_t *root;
	struct seen n = { 0 };
	segscan_scan *s = scan(dirs, NULL, &root);  /* freed below */
	check_all(s, root, &n);
	assert_int_equal(n.logdirs_down, 1);      /* the missing one, and only it */
	assert_true(n.report_errors >= 3);
	assert_int_equal(segscan_exit_code(s), 3);
	fprintf(stderr, "damaged: %zu partitions, %zu segments, %zu errors (%zu of segments), %zu findings\n",
		n.parts, n.segs, n.errors, n.seg_errors, n.findings);
	assert_true(n.errors >= 3);
	assert_true(n.seg_errors >= 1);  /* both damages are listed, by accessor and json alike */
	json_decref(root);
	segscan_scan_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root_dir);
	assert_int_equal(system(cmd), 0);
	free(root_dir);

	/* a log dir without its metadata log: the user partitions' tiering is unknown, so is
	 * what retention deletes; the accessor's unknown totals (-1 amounts, not a partial
	 * sum) are compared with json's nulls */
	const char *plain[] = { FIXTURES "/plain/logdir", NULL };
	struct seen m = { 0 };
	s = scan(plain, NULL, &root);  /* freed below */
	check_all(s, root, &m);
	assert_true(m.total_unknown >= 1);
	assert_true(m.remote_unknown >= 1);
	json_decref(root);
	segscan_scan_free(s);
}


/* ---- every entry point: NULL and wrong state (issue 21 item 11) --------------------- */

/* The entry points this file has called with bad arguments; test_every_entry_point_listed
 * compares them with every function the public headers declare. */
static char g_called[128][64];
static size_t g_n_called;

static void called(const char *name)
{
	for (size_t i = 0; i < g_n_called; i++)
		if (!strcmp(g_called[i], name))
			return;
	assert_true(g_n_called < 128);
	snprintf(g_called[g_n_called++], sizeof(g_called[0]), "%s", name);
}
#define CALL(fn, ...) (called(#fn), fn(__VA_ARGS__))

static void nop_log(void *user, const struct segscan_log_event *ev) { (void)user; (void)ev; }
static bool nop_unchanged(void *arg, const char *ld, const char *dir) { (void)arg; (void)ld; (void)dir; return false; }

/* NULL for the handle, the partition and every required pointer: refused, never a crash
 * (18 of these crashed: issue 21 item 11). */
static void test_null_arguments(void **state)
{
	(void)state;
	char buf[64];
	FILE *f = fopen("/dev/null", "w");  /* closed below */
	assert_non_null(f);
	struct segscan_counters cnt = { 0 };
	struct segscan_scan_stats st;
	struct segscan_segment sg = { .size = sizeof(sg) };
	struct segscan_remote rm = { .size = sizeof(rm) };
	struct segscan_retention rt = { .size = sizeof(rt) };
	struct segscan_finding fd = { .size = sizeof(fd) };
	struct segscan_broker br = { .size = sizeof(br) };
	struct segscan_logdir ld = { .size = sizeof(ld) };
	int64_t a, b;
	const char *v, *src;

	assert_non_null(CALL(segscan_strerror, 0));
	assert_non_null(CALL(segscan_strerror, -EINVAL));
	assert_non_null(CALL(segscan_version));
	assert_true(CALL(segscan_version_major) >= 0);
	assert_true(CALL(segscan_version_minor) >= 0);
	assert_true(CALL(segscan_version_patch) >= 0);
	assert_true(CALL(segscan_check_version, 0, 0, 0));
	assert_int_equal(CALL(segscan_scan_new, NULL), -EINVAL);
	CALL(segscan_scan_free, NULL);
	CALL(segscan_cancel, NULL);
	assert_int_equal(CALL(segscan_set, NULL, "threads", "1"), -EINVAL);
	assert_int_equal(CALL(segscan_add_logdir, NULL, "/tmp"), -EINVAL);
	assert_non_null(CALL(segscan_last_error, NULL));
	assert_int_equal(CALL(segscan_reuse, NULL, NULL), -EINVAL);
	assert_int_equal(CALL(segscan_reuse_unchanged, NULL, nop_unchanged, NULL), -EINVAL);
	assert_int_equal(CALL(segscan_partitions_reused, NULL), 0);
	assert_int_equal(CALL(segscan_set_log, NULL, nop_log, NULL, SEGSCAN_LOG_INFO), -EINVAL);
	assert_int_equal(CALL(segscan_run, NULL), -EINVAL);
	assert_int_equal(CALL(segscan_exit_code, NULL), -EINVAL);
	assert_int_equal(CALL(segscan_partition_count, NULL), 0);
	assert_null(CALL(segscan_partition_at, NULL, 0));
	assert_null(CALL(segscan_partition_topic, NULL));
	assert_int_equal(CALL(segscan_partition_id, NULL), -EINVAL);
	assert_null(CALL(segscan_partition_log_dir, NULL));
	assert_int_equal(CALL(segscan_partition_segment_count, NULL), 0);
	assert_int_equal(CALL(segscan_partition_size_bytes, NULL), -EINVAL);
	assert_int_equal(CALL(segscan_partition_log_end_offset, NULL), -EINVAL);
	assert_int_equal(CALL(segscan_write, NULL, SEGSCAN_FMT_JSON, f), -EINVAL);
	assert_int_equal(CALL(segscan_write_prom, NULL, &cnt, f), -EINVAL);
	assert_int_equal(CALL(segscan_get_stats, NULL, &st), -EINVAL);
	assert_int_equal(CALL(segscan_write_partition_json, NULL, NULL, f), -EINVAL);
	assert_int_equal(CALL(segscan_write_stats, NULL, f), -EINVAL);
	assert_int_equal(CALL(segscan_partition_segment, NULL, NULL, 0, &sg), -EINVAL);
	assert_int_equal(CALL(segscan_partition_remote, NULL, &rm), -EINVAL);
	assert_int_equal(CALL(segscan_partition_lag, NULL, SEGSCAN_LAG_COPY, &a, &b), -EINVAL);
	assert_int_equal(CALL(segscan_partition_retention, NULL, SEGSCAN_RETENTION_SIZE, &rt), -EINVAL);
	struct segscan_retention_total rtt = { .size = sizeof(rtt) };
	assert_int_equal(CALL(segscan_partition_retention_total, NULL, &rtt), -EINVAL);
	assert_int_equal(CALL(segscan_partition_finding_count, NULL), 0);
	assert_int_equal(CALL(segscan_partition_finding, NULL, 0, &fd), -EINVAL);
	assert_int_equal(CALL(segscan_partition_error_count, NULL, NULL), 0);
	assert_int_equal(CALL(segscan_partition_error, NULL, NULL, 0, buf, sizeof(buf), buf, sizeof(buf)), -EINVAL);
	assert_int_equal(CALL(segscan_partition_config, NULL, "retention.ms", &v, &src), -EINVAL);
	assert_int_equal(CALL(segscan_get_broker, NULL, &br), -EINVAL);
	assert_int_equal(CALL(segscan_error_count, NULL), 0);
	assert_int_equal(CALL(segscan_error, NULL, 0, buf, sizeof(buf), buf, sizeof(buf)), -EINVAL);
	assert_int_equal(CALL(segscan_logdir_count, NULL), 0);
	assert_int_equal(CALL(segscan_logdir, NULL, 0, &ld), -EINVAL);

	/* a real handle, after a real run: NULL for each other argument */
	segscan_scan *s = NULL;
	assert_int_equal(segscan_scan_new(&s), 0);  /* freed below */
	assert_int_equal(segscan_set(s, NULL, "1"), -EINVAL);
	assert_int_equal(segscan_add_logdir(s, NULL), -EINVAL);
	assert_int_equal(segscan_reuse(s, s), -EINVAL);
	assert_int_equal(segscan_set(s, "quiet", NULL), 0);  /* a flag: NULL is true */
	assert_int_equal(segscan_set(s, "threads", NULL), -EINVAL);
	assert_int_equal(segscan_add_logdir(s, FIXTURES "/multi-broker/logdir-1"), 0);
	assert_int_equal(segscan_run(s), 0);
	const segscan_partition *p = segscan_partition_at(s, 0);
	assert_non_null(p);
	assert_int_equal(segscan_write(s, SEGSCAN_FMT_JSON, NULL), -EINVAL);
	assert_int_equal(segscan_write(s, (enum segscan_format)42, f), -EINVAL);
	assert_int_equal(segscan_write_prom(s, NULL, f), -EINVAL);   /* the example */
	assert_int_equal(segscan_write_prom(s, &cnt, NULL), -EINVAL);
	assert_int_equal(segscan_get_stats(s, NULL), -EINVAL);
	assert_int_equal(segscan_write_partition_json(s, NULL, f), -EINVAL);
	assert_int_equal(segscan_write_partition_json(s, p, NULL), -EINVAL);
	assert_int_equal(segscan_write_stats(s, NULL), -EINVAL);
	assert_int_equal(segscan_partition_segment(s, NULL, 0, &sg), -EINVAL);
	assert_int_equal(segscan_partition_segment(s, p, 0, NULL), -EINVAL);
	assert_int_equal(segscan_partition_remote(p, NULL), -EINVAL);
	assert_int_equal(segscan_partition_retention(p, SEGSCAN_RETENTION_SIZE, NULL), -EINVAL);
	assert_int_equal(segscan_partition_retention_total(p, NULL), -EINVAL);
	struct segscan_retention_total small = { .size = sizeof(small) - 1 };
	assert_int_equal(segscan_partition_retention_total(p, &small), -EINVAL);   /* a smaller struct */
	assert_int_equal(segscan_partition_finding(p, 0, NULL), -EINVAL);
	assert_int_equal(segscan_partition_error_count(s, NULL), 0);
	assert_int_equal(segscan_partition_error(s, NULL, 0, buf, sizeof(buf), buf, sizeof(buf)), -EINVAL);
	assert_int_equal(segscan_partition_config(p, NULL, &v, &src), -EINVAL);
	assert_int_equal(segscan_get_broker(s, NULL), -EINVAL);
	assert_int_equal(segscan_logdir(s, 0, NULL), -EINVAL);
	assert_true(segscan_partition_lag(p, SEGSCAN_LAG_COPY, NULL, NULL) != -EINVAL); /* out pointers are optional */
	assert_int_equal(segscan_set_log(s, nop_log, NULL, (enum segscan_log_level)99), -EINVAL);
	segscan_scan_free(s);
	fclose(f);
}

/* A log callback that holds the run inside segscan_run until the test lets it go: while
 * it waits, the scan is provably running, so what the other thread's calls return is the
 * running state's answer, not a matter of timing. */
struct hold {
	pthread_mutex_t mu;
	pthread_cond_t  cv;
	bool            inside, release;
};

static void hold_log(void *user, const struct segscan_log_event *ev)
{
	struct hold *h = user;
	(void)ev;
	pthread_mutex_lock(&h->mu);
	h->inside = true;
	pthread_cond_broadcast(&h->cv);
	while (!h->release)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
}

static void *run_main(void *arg)
{
	return (void *)(intptr_t)segscan_run(arg);
}

/* segscan_set and the other setters from another thread during segscan_run: -EBUSY and
 * nothing changed (a --topic set under the run freed the regex the run compiled: a
 * heap-use-after-free under ASan); after the run: -EALREADY. */
static void test_wrong_state(void **state)
{
	(void)state;
	struct hold h = { .inside = false, .release = false };
	pthread_mutex_init(&h.mu, NULL);  /* destroyed below */
	pthread_cond_init(&h.cv, NULL);   /* destroyed below */
	segscan_scan *s = NULL, *other = NULL;
	FILE *f = fopen("/dev/null", "w"); /* closed below */
	assert_non_null(f);
	assert_int_equal(segscan_scan_new(&s), 0);      /* freed below */
	assert_int_equal(segscan_scan_new(&other), 0);  /* freed below */
	/* a prev that has not run is refused */
	assert_int_equal(segscan_reuse(s, other), -EINVAL);
	assert_int_equal(segscan_set(s, "topic", "mt-.*"), 0);
	assert_int_equal(segscan_add_logdir(s, FIXTURES "/multi-broker/logdir-1"), 0);
	/* progress events on: the run's first one is held in hold_log */
	assert_int_equal(segscan_set_log(s, hold_log, &h, SEGSCAN_LOG_INFO), 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, run_main, s), 0);  /* joined below */
	pthread_mutex_lock(&h.mu);
	while (!h.inside)
		pthread_cond_wait(&h.cv, &h.mu);
	pthread_mutex_unlock(&h.mu);

	/* the run is inside the callback: every setter is refused, so is a second run */
	assert_int_equal(segscan_set(s, "topic", "x"), -EBUSY);
	assert_int_equal(segscan_set(s, "no-such-option", "x"), -EBUSY);
	assert_int_equal(segscan_add_logdir(s, "/tmp"), -EBUSY);
	assert_int_equal(segscan_reuse(s, NULL), -EBUSY);
	assert_int_equal(segscan_reuse_unchanged(s, nop_unchanged, NULL), -EBUSY);
	assert_int_equal(segscan_set_log(s, nop_log, NULL, SEGSCAN_LOG_WARNING), -EBUSY);
	assert_int_equal(segscan_run(s), -EBUSY);
	/* and the results are not there to read yet */
	struct segscan_scan_stats st;
	assert_int_equal(segscan_exit_code(s), -EBUSY);
	assert_int_equal(segscan_partition_count(s), 0);
	assert_null(segscan_partition_at(s, 0));
	assert_int_equal(segscan_write(s, SEGSCAN_FMT_JSON, f), -EBUSY);
	assert_int_equal(segscan_get_stats(s, &st), -EBUSY);
	assert_int_equal(segscan_error_count(s), 0);
	assert_int_equal(segscan_logdir_count(s), 0);

	pthread_mutex_lock(&h.mu);
	h.release = true;
	pthread_cond_broadcast(&h.cv);
	pthread_mutex_unlock(&h.mu);
	void *rv;
	assert_int_equal(pthread_join(th, &rv), 0);
	assert_int_equal((int)(intptr_t)rv, 0);

	/* the refused --topic=x changed nothing: the report holds the mt-* topics */
	assert_true(segscan_partition_count(s) > 0);
	for (size_t i = 0; i < segscan_partition_count(s); i++)
		assert_int_equal(strncmp(segscan_partition_topic(segscan_partition_at(s, i)), "mt-", 3), 0);
	/* after the run: -EALREADY */
	assert_int_equal(segscan_set(s, "threads", "1"), -EALREADY);
	assert_int_equal(segscan_add_logdir(s, "/tmp"), -EALREADY);
	assert_int_equal(segscan_reuse(s, NULL), -EALREADY);
	assert_int_equal(segscan_reuse_unchanged(s, nop_unchanged, NULL), -EALREADY);
	assert_int_equal(segscan_set_log(s, NULL, NULL, SEGSCAN_LOG_WARNING), -EALREADY);
	assert_int_equal(segscan_run(s), -EALREADY);
	assert_int_equal(segscan_exit_code(s), 0);
	assert_int_equal(segscan_get_stats(s, &st), 0);
	/* a finished scan is a valid prev for a new one */
	assert_int_equal(segscan_reuse(other, s), 0);
	segscan_scan_free(other);
	segscan_scan_free(s);
	fclose(f);
	pthread_cond_destroy(&h.cv);
	pthread_mutex_destroy(&h.mu);
}

/* --server-properties with no log dir given: the scan runs over its log.dirs. The run adds
 * them itself, after the handle left IDLE, so it must not go through segscan_add_logdir's
 * state check (which refuses with -EBUSY while the run runs: the scan then failed with
 * "no error"). */
static void test_logdirs_from_server_properties(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp("api-props");   /* freed below */
	char props[4096], cwd[2048], text[4600];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(props, sizeof(props), "%s/server.properties", dir);
	int n = snprintf(text, sizeof(text), "node.id=1\nlog.dirs=%s/%s/plain/logdir\n", cwd, FIXTURES);
	assert_int_equal(tu_write_file(props, text, (size_t)n), 0);
	const char *const none[] = { NULL };
	const char *const kv[] = { "server-properties", props, "broker-process", "off", "now", "1795973959860", NULL };
	json_t *root;
	segscan_scan *s = scan(none, kv, &root);   /* freed below */
	assert_string_equal(segscan_last_error(s), "no error");
	assert_int_equal(segscan_logdir_count(s), 1);
	assert_true(segscan_partition_count(s) > 20);
	assert_true(json_array_size(json_object_get(root, "partitions")) > 20);
	json_decref(root);
	segscan_scan_free(s);
	unlink(props);
	rmdir(dir);
	free(dir);
}

/* Every function the public headers declare was called with bad arguments above: a new
 * entry point without its NULL check fails here. */
static void test_every_entry_point_listed(void **state)
{
	(void)state;
	const char *hdrs[] = { "include/segscan.h", "include/segscan_version.h" };
	size_t declared = 0;
	for (size_t h = 0; h < 2; h++) {
		char *txt = tu_read_file(hdrs[h], NULL);  /* freed below */
		assert_non_null(txt);
		/* comments out (the examples in them are not declarations) */
		for (char *c = txt; (c = strstr(c, "/*"));) {
			char *e = strstr(c + 2, "*/");
			assert_non_null(e);
			memset(c, ' ', (size_t)(e + 2 - c));
		}
		for (char *c = txt; (c = strstr(c, "segscan_"));) {
			if (c > txt && (isalnum((unsigned char)c[-1]) || c[-1] == '_')) {
				c++;
				continue;
			}
			size_t n = strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789_");
			const char *q = c + n;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(') {
				char name[64];
				snprintf(name, sizeof(name), "%.*s", (int)n, c);
				bool seen = false;
				for (size_t i = 0; i < g_n_called; i++)
					seen |= !strcmp(g_called[i], name);
				if (!seen)
					fail_msg("%s is declared in %s but test_null_arguments never calls it", name, hdrs[h]);
				declared++;
			}
			c += n;
		}
		free(txt);
	}
	assert_true(declared >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_meta),
		cmocka_unit_test(test_multi_broker),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_wrong_state),
		cmocka_unit_test(test_logdirs_from_server_properties),
		/* after test_null_arguments: it checks what that test called */
		cmocka_unit_test(test_every_entry_point_listed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
