/*
 * The detailed result accessors (include/segscan.h, "Results in detail") against the json
 * report of the same scan: for every partition of real Kafka fixtures, every value an
 * accessor exposes must equal its json counterpart, null for null. The json is written
 * by out/json.c from the results view and parsed back with jansson, so a drift between
 * the two (a null rule, an ordering, a field taken from the wrong place) fails here.
 */
#include <errno.h>
#include <jansson.h>
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
	eq_i64(rm.segments, json_object_get(jr, "segments"), W("segments"));
	eq_i64(rm.size_bytes, json_object_get(jr, "size_bytes"), W("size_bytes"));
	eq_i64(rm.dangling_segments, json_object_get(jr, "dangling_segments"), W("dangling_segments"));
	eq_i64(rm.dangling_bytes, json_object_get(jr, "dangling_bytes"), W("dangling_bytes"));
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
	fprintf(stderr, "multi-broker/logdir-1: %zu partitions, %zu segments, %zu remote, %zu seeded, %zu lags, "
			"%zu findings, %zu errors, %zu configs\n",
		n.parts, n.segs, n.remote, n.seeded, n.lags, n.findings, n.errors, n.configs);
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

	const char *dirs[] = { logdir, NULL };
	json_t *root;
	struct seen n = { 0 };
	segscan_scan *s = scan(dirs, NULL, &root);  /* freed below */
	check_all(s, root, &n);
	fprintf(stderr, "damaged: %zu partitions, %zu segments, %zu errors (%zu of segments), %zu findings\n",
		n.parts, n.segs, n.errors, n.seg_errors, n.findings);
	assert_true(n.errors >= 3);
	assert_true(n.seg_errors >= 1);  /* both damages are listed, by accessor and json alike */
	json_decref(root);
	segscan_scan_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root_dir);
	assert_int_equal(system(cmd), 0);
	free(root_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_meta),
		cmocka_unit_test(test_multi_broker),
		cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
