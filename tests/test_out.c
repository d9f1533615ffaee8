/*
 * Every report format (src/out/) straight from a results view built by hand: no scan, no
 * files. The view holds a tiered partition with remote state and findings that name
 * segment ids, a tiered partition nobody seeded, a non-tiered one, one with a read error
 * and a vanished segment, and one that was never evaluated; two log dirs, one with a
 * path that needs escaping. The checks are the contract's: field presence and null
 * handling (json, ndjson), series omitted where the value is null and label escaping
 * (prom), columns and sections (table), and the --stats lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/jw.h"
#include "out/out.h"
#include "segscan.h"

#define WEIRD_DIR "/data/we\"ird\\dir\nx"

static struct ss_res_logdir logdirs[] = {
	{ "/data/a", 0, 0, -1, NULL },
	{ WEIRD_DIR, 0, -1, -1, NULL },
};

/* the segments' rare facts (model.h, struct ss_segx) */
static struct ss_segx x_trunc20 = { .truncated_bytes = 20, .first_batch_base = -1, .err_pos = -1 };
static struct ss_segx x_eio = { .err = -EIO, .err_file = SS_HAS_INDEX, .err_pos = 24, .first_batch_base = -1 };
static struct ss_segx x_enoent = { .err = -ENOENT, .err_pos = -1, .first_batch_base = -1 };
static struct ss_segx x_crc = { .crc_errors = 1, .err_pos = -1, .first_batch_base = -1 };

static struct ss_seg segs[] = {
	/* orders-0: a closed segment (in remote storage) and the active one */
	{ .base_offset = 0, .part = 0, .flags = SS_SEG_HAS_LAST, .last_offset = 99, .end_offset = 99,
	  .size_bytes = 1000, .valid_bytes = 1000, .max_timestamp_ms = 1700000000000, .batches = SS_SEG_COUNT_UNKNOWN,
	  .records = SS_SEG_COUNT_UNKNOWN },
	{ .base_offset = 100, .part = 0, .flags = SS_SEG_ACTIVE | SS_SEG_HAS_LAST | SS_SEG_ONLY_LOCAL,
	  .last_offset = 149, .end_offset = 149, .size_bytes = 500, .valid_bytes = 480, .x = &x_trunc20,
	  .max_timestamp_ms = 1700000001000, .batches = 3, .records = 50 },
	/* orders-1: an empty active segment, no offsets yet */
	{ .base_offset = 0, .part = 1, .flags = SS_SEG_ACTIVE, .end_offset = -1, .size_bytes = 0,
	  .max_timestamp_ms = -1, .batches = SS_SEG_COUNT_UNKNOWN, .records = SS_SEG_COUNT_UNKNOWN },
	/* plain-0 */
	{ .base_offset = 0, .part = 2, .flags = SS_SEG_ACTIVE | SS_SEG_HAS_LAST | SS_SEG_ONLY_LOCAL,
	  .last_offset = 9, .end_offset = 9, .size_bytes = 100, .valid_bytes = 100, .max_timestamp_ms = 5,
	  .batches = 1, .records = 10 },
	/* zbroken-0: its index could not be read; a later segment vanished (not an error) */
	{ .base_offset = 0, .part = 3, .flags = SS_SEG_HAS_LAST | SS_SEG_READ_ERROR | SS_SEG_INDEX_BAD,
	  .last_offset = 4, .end_offset = 4, .size_bytes = 70, .valid_bytes = 70, .max_timestamp_ms = 1,
	  .batches = SS_SEG_COUNT_UNKNOWN, .records = SS_SEG_COUNT_UNKNOWN, .x = &x_eio },
	{ .base_offset = 5, .part = 3, .flags = SS_SEG_ACTIVE | SS_SEG_VANISHED, .end_offset = 4,
	  .max_timestamp_ms = -1, .batches = SS_SEG_COUNT_UNKNOWN, .records = SS_SEG_COUNT_UNKNOWN, .x = &x_enoent },
	/* zz-noeval-0 */
	{ .base_offset = 0, .part = 4, .flags = SS_SEG_ACTIVE, .size_bytes = 10, .max_timestamp_ms = -1,
	  .batches = SS_SEG_COUNT_UNKNOWN, .records = SS_SEG_COUNT_UNKNOWN },
};

static char *ids_dangling[] = { "AAAAAAAAAAAAAAAAAAAAAA", "BBBBBBBBBBBBBBBBBBBBBB" };
static char *ids_delete[] = { "CCCCCCCCCCCCCCCCCCCCCC" };
static char msg_dangling[] = "2 remote segments stuck in COPY_SEGMENT_STARTED";
static char msg_lag[] = "the broker reports 1 segment of copy lag";
static char msg_dup[] = "a second dangling finding";
static char note_seed[] = "highest_offset derived from the remote state";

static struct ss_finding findings0[] = {
	{ .code = "REMOTE_DANGLING", .ref = "KAFKA-17428", .message = msg_dangling, .has_amount = true,
	  .segments = 2, .bytes = 300, .segment_ids = ids_dangling, .n_ids = 2 },
	{ .code = "COPY_LAG_MISREPORTED", .ref = "", .message = msg_lag },
	{ .code = "REMOTE_DANGLING", .ref = NULL, .message = msg_dup },
};
static char *notes0[] = { note_seed };

static const int32_t repl0[] = { 1, 2, 3 }, isr0[] = { 1, 3 };

static struct ss_eval ev_tiered = {
	.log_start_offset = 0, .log_end_offset = 150, .size_bytes = 1500, .remote_storage = 1, .tiered = true,
	.seeded = true, .highest_offset = 99, .source = "remote-state", .remote_segments = 1,
	.remote_bytes = 1000, .dangling_segments = 2, .dangling_bytes = 300,
	.only_local_segments = 1, .only_local_bytes = 500,
	.copy_lag_segments = 0, .copy_lag_bytes = 0,
	.broker_copy_lag_segments = 1, .broker_copy_lag_bytes = 1000,
	.size = { .evaluated = true, .limit = 1000, .total_bytes = 2500, .n_delete = 1, .delete_bytes = 1000,
		  .has_new_log_start = true, .new_log_start_offset = 100, .delete_is_remote = true,
		  .delete_ids = ids_delete },
	.time = { .evaluated = false, .reason = "retention.ms is -1", .limit = -1 },
	.local = { .evaluated = true, .limit = -1 },
	.total = { .n_remote = 1, .remote_ids = ids_delete, .remote_bytes = 1000 },
	.findings = findings0, .n_findings = 3,
	.tiered_reason = "remote.storage.enable=true", .notes = notes0, .n_notes = 1,
	.config = (const struct ss_cfg_entry[]){
		{ .key = "retention.ms", .value = "3600000", .source = "DYNAMIC_TOPIC_CONFIG" },
		{ .key = "cleanup.policy", .value = "delete", .source = NULL } },
	.n_config = 2,
	.has_assignment = true,
	.assignment = { .replicas = repl0, .n_replicas = 3, .isr = isr0, .n_isr = 2, .leader = -1, .leader_epoch = 7 },
	.here = 1,
};

static struct ss_eval ev_unseeded = {
	.log_start_offset = 0, .log_end_offset = 0, .size_bytes = 0, .remote_storage = 1, .tiered = true,
	.only_local_null = true, .copy_lag_null = true, .remote_state_unknown = true, .remote_unknown = true,
	.delete_lag_null = true, .delete_lag_unknown = true,
	.here = -1,
	.size = { .evaluated = false, .reason = NULL, .limit = -1 },
	.time = { .evaluated = false, .reason = "not seeded", .limit = 604800000 },
	.local = { .evaluated = false, .unknown = true, .reason = "unseeded", .limit = -1 },
	.total = { .unknown = true, .reason = "unseeded" },
	.tiered_reason = "remote.storage.enable=true",
};

static int64_t del_plain[] = { 0 };
static struct ss_eval ev_plain = {
	.log_start_offset = 0, .log_end_offset = 10, .size_bytes = 100, .remote_storage = 0,
	.only_local_segments = 1, .only_local_bytes = 100, .copy_lag_null = true, .broker_copy_lag_null = true,
	.delete_lag_null = true,
	.size = { .evaluated = true, .limit = -1, .total_bytes = 100 },
	.time = { .evaluated = true, .limit = 1000, .n_delete = 1, .delete_bytes = 100, .delete_offsets = del_plain },
	.local = { .evaluated = false, .reason = "not tiered", .limit = -1 },
	.total = { .n_local = 1, .local_offsets = del_plain, .local_bytes = 100 },
	.tiered_reason = "remote.storage.enable=false",
	.config = (const struct ss_cfg_entry[]){
		{ .key = "remote.storage.enable", .value = "false", .source = "DEFAULT_CONFIG" } },
	.n_config = 1,
};

static struct ss_eval ev_broken = {
	.log_start_offset = 0, .log_end_offset = 5, .size_bytes = 70, .remote_storage = 0,
	.only_local_segments = 1, .only_local_bytes = 70, .copy_lag_null = true, .broker_copy_lag_null = true,
	.size = { .evaluated = true, .limit = 50, .total_bytes = 70 },
	.time = { .evaluated = true, .limit = -1 },
	.local = { .evaluated = false, .reason = "not tiered", .limit = -1 },
	.tiered_reason = "remote.storage.enable=false",
};

static struct ss_part parts[] = {
	{ .topic = "orders", .dir = "orders-0", .logdir = 0, .logdir_path = "/data/a", .partition = 0,
	  .seg_first = 0, .seg_count = 2, .has_topic_id = true,
	  .topic_id = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }, .eval = &ev_tiered },
	{ .topic = "orders", .dir = "orders-1", .logdir = 1, .logdir_path = WEIRD_DIR, .partition = 1,
	  .seg_first = 2, .seg_count = 1, .eval = &ev_unseeded },
	{ .topic = "plain", .dir = "plain-0", .logdir = 0, .logdir_path = "/data/a", .partition = 0,
	  .seg_first = 3, .seg_count = 1, .eval = &ev_plain },
	{ .topic = "zbroken", .dir = "zbroken-0", .logdir = 0, .logdir_path = "/data/a", .partition = 0,
	  .seg_first = 4, .seg_count = 2, .eval = &ev_broken },
	{ .topic = "zz-noeval", .dir = "zz-noeval-0", .logdir = 0, .logdir_path = "/data/a", .partition = 0,
	  .seg_first = 6, .seg_count = 1, .eval = NULL },
};

static struct ss_note notes[] = { { "old-0.delete", "deleted" } };
static struct ss_problem problems[] = {
	{ "/data/a/zbroken-0/leader-epoch-checkpoint", "line 2: not a number", SEGSCAN_ECHECKPOINT, 2, false },
};
static struct ss_res_worker workers[] = {
	{ .node = 0, .pinned = true, .cpus = "0-3", .segments = 5 },
	{ .node = -1, .pinned = false, .segments = 2 },
};

static struct ss_results view(void)
{
	return (struct ss_results){
		.logdirs = logdirs, .n_logdirs = 2,
		.parts = parts, .n_parts = 5,
		.segs = segs, .n_segs = 7,
		.notes = notes, .n_notes = 1,
		.problems = problems, .n_problems = 1,
		.run = { .verify = false, .io = "pread", .threads = 2, .queue_depth = 64, .bytes_read = 12345,
			 .remote_source = "remote-state", .remote_warnings = 3, .exit_code = 1,
			 .metrics_extra = true,   /* every prom family (the default level: test_fleet_metrics) */
			 .times = { .discover = 0.010, .remote = 0.020, .scan = 0.100, .evaluate = 0.005, .total = 0.125 } },
		/* no metadata log: unknown node, release and metadata partitions */
		.cluster = { .node_id = -1, .last_offset = -1, .rlmm_partitions = -1 },
		.pipeline = { .syscalls = 40, .submissions = 70, .tasks_peak = 4, .ring_stalls = 1,
			      .workers = workers, .n_workers = 2 },
	};
}

/* Run a writer into a string. */
#define CAPTURE(buf, call)                                                 \
	do {                                                               \
		size_t len_ = 0;                                           \
		FILE *f = open_memstream(&(buf), &len_);                   \
		assert_non_null(f);                                        \
		assert_int_equal((call), 0);                               \
		fclose(f);                                                 \
	} while (0)

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &e);
	if (!j)
		fail_msg("invalid JSON at %d: %s\n%s", e.position, e.text, text);
	return j;
}

static json_t *at(json_t *o, const char *path)
{
	/* "a.b.0.c": object keys and array indexes */
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		if (!o)
			return NULL;
		if (json_is_array(o))
			o = json_array_get(o, strtoul(k, NULL, 10));
		else
			o = json_object_get(o, k);
	}
	return o;
}

static void expect_int(json_t *o, const char *path, json_int_t v)
{
	json_t *x = at(o, path);
	if (!json_is_integer(x) || json_integer_value(x) != v)
		fail_msg("%s: want %lld", path, (long long)v);
}

static void expect_str(json_t *o, const char *path, const char *v)
{
	json_t *x = at(o, path);
	if (!json_is_string(x) || strcmp(json_string_value(x), v))
		fail_msg("%s: want \"%s\", got %s", path, v, x ? (json_is_string(x) ? json_string_value(x) : "non-string") : "absent");
}

static void expect_null(json_t *o, const char *path)
{
	json_t *x = at(o, path);
	if (!json_is_null(x))
		fail_msg("%s: want null, got %s", path, x ? "a value" : "absent");
}

static void expect_bool(json_t *o, const char *path, bool v)
{
	json_t *x = at(o, path);
	if (!json_is_boolean(x) || json_is_true(x) != v)
		fail_msg("%s: want %s", path, v ? "true" : "false");
}

static void expect_absent(json_t *o, const char *path)
{
	if (at(o, path))
		fail_msg("%s: want absent", path);
}

static void test_json_partitions(void **state)
{
	struct ss_results r = view();
	char *out = NULL;
	CAPTURE(out, ss_out_json(&r, f, false));
	json_t *j = load(out);
	json_t *ps = json_object_get(j, "partitions");
	assert_int_equal(json_array_size(ps), 5);
	/* the view's order, which is the catalog's sort */
	static const char *order[] = { "orders", "orders", "plain", "zbroken", "zz-noeval" };
	for (int i = 0; i < 5; i++)
		expect_str(json_array_get(ps, i), "topic", order[i]);

	/* tiered, seeded from the remote state; its configs with sources, its assignment */
	json_t *p = json_array_get(ps, 0);
	json_t *cfg = json_object_get(p, "config");   /* keys hold dots: looked up directly */
	expect_str(json_object_get(cfg, "retention.ms"), "value", "3600000");
	expect_str(json_object_get(cfg, "retention.ms"), "source", "DYNAMIC_TOPIC_CONFIG");
	expect_null(json_object_get(cfg, "cleanup.policy"), "source");   /* a default nobody could confirm */
	expect_int(p, "assignment.replicas.2", 3);
	expect_int(p, "assignment.isr.1", 3);
	expect_null(p, "assignment.leader");                /* no leader: null, not -1 */
	expect_int(p, "assignment.leader_epoch", 7);
	expect_bool(p, "assignment.here", true);
	assert_int_equal(json_array_size(json_object_get(p, "errors")), 0);
	expect_null(json_array_get(ps, 1), "assignment");
	expect_int(p, "partition", 0);
	expect_str(p, "log_dir", "/data/a");
	expect_str(p, "dir", "orders-0");
	expect_str(p, "topic_id", "AQIDBAUGBwgJCgsMDQ4PEA");
	expect_bool(p, "remote_storage", true);
	expect_int(p, "log_end_offset", 150);
	expect_int(p, "size_bytes", 1500);
	expect_int(p, "segments.0.last_offset", 99);
	expect_int(p, "segments.0.end_offset", 99);
	expect_bool(p, "segments.0.active", false);
	expect_bool(p, "segments.0.only_local", false);
	expect_null(p, "segments.0.batches");
	expect_bool(p, "segments.1.active", true);
	expect_bool(p, "segments.1.only_local", true);
	expect_int(p, "segments.1.truncated_bytes", 20);
	expect_int(p, "segments.1.records", 50);
	expect_absent(p, "segments.1.error");
	expect_absent(p, "segments.1.vanished");
	expect_bool(p, "remote.seeded", true);
	expect_int(p, "remote.highest_offset", 99);
	expect_str(p, "remote.source", "remote-state");
	expect_int(p, "remote.dangling_segments", 2);
	expect_int(p, "only_local.segments", 1);
	expect_int(p, "only_local.size_bytes", 500);
	expect_int(p, "copy_lag.segments", 0);
	expect_int(p, "broker_copy_lag.segments", 1);
	expect_bool(p, "retention.size.evaluated", true);
	expect_null(p, "retention.size.reason");
	expect_int(p, "retention.size.limit_bytes", 1000);
	expect_int(p, "retention.size.total_bytes", 2500);
	expect_str(p, "retention.size.delete_segments.0", "CCCCCCCCCCCCCCCCCCCCCC");
	expect_int(p, "retention.size.new_log_start_offset", 100);
	expect_bool(p, "retention.time.evaluated", false);
	expect_str(p, "retention.time.reason", "retention.ms is -1");
	expect_null(p, "retention.time.limit_ms");
	expect_absent(p, "retention.local.limit_ms");  /* local retention has no limit fields */
	expect_absent(p, "retention.local.new_log_start_offset");
	expect_str(p, "notes.0", note_seed);
	assert_int_equal(json_array_size(at(p, "findings")), 3);
	expect_str(p, "findings.0.code", "REMOTE_DANGLING");
	expect_str(p, "findings.0.ref", "KAFKA-17428");
	expect_int(p, "findings.0.segments", 2);
	expect_int(p, "findings.0.bytes", 300);
	expect_str(p, "findings.0.segment_ids.0", "AAAAAAAAAAAAAAAAAAAAAA");
	expect_str(p, "findings.0.segment_ids.1", "BBBBBBBBBBBBBBBBBBBBBB");
	expect_null(p, "findings.1.ref");           /* no ticket: null, not "" (issue 20 item 12) */
	expect_absent(p, "findings.1.segments");    /* no amount: no amount fields */
	expect_absent(p, "findings.1.segment_ids"); /* no ids: no array */
	expect_null(p, "findings.2.ref");           /* a NULL ref too */
	/* delete_segments' typed twins: remote ids here, no local base offsets */
	expect_str(p, "retention.size.delete_segment_ids.0", "CCCCCCCCCCCCCCCCCCCCCC");
	assert_int_equal(json_array_size(at(p, "retention.size.delete_segment_ids")), 1);
	assert_int_equal(json_array_size(at(p, "retention.size.delete_base_offsets")), 0);
	assert_int_equal(json_array_size(at(p, "retention.time.delete_segment_ids")), 0);
	/* the union of the kinds */
	expect_bool(p, "retention.total.evaluated", true);
	expect_str(p, "retention.total.delete_segments.0", "CCCCCCCCCCCCCCCCCCCCCC");
	expect_str(p, "retention.total.delete_segment_ids.0", "CCCCCCCCCCCCCCCCCCCCCC");
	assert_int_equal(json_array_size(at(p, "retention.total.delete_base_offsets")), 0);
	expect_int(p, "retention.total.delete_bytes", 1000);
	expect_int(p, "retention.total.remote_bytes_freed", 1000);
	expect_int(p, "retention.total.local_bytes_freed", 0);

	/* tiered, nobody seeded it: the contract's nulls */
	p = json_array_get(ps, 1);
	expect_str(p, "log_dir", WEIRD_DIR);        /* escaped in the text, intact when parsed */
	expect_null(p, "topic_id");
	expect_null(p, "segments.0.last_offset");
	expect_null(p, "segments.0.end_offset");    /* an empty active segment */
	expect_null(p, "segments.0.only_local");
	expect_null(p, "segments.0.max_timestamp_ms");
	expect_bool(p, "remote.seeded", false);
	expect_null(p, "remote.highest_offset");
	expect_null(p, "remote.source");
	/* its remote tier is unknown: null, never the 0 of an empty replay */
	expect_null(p, "remote.segments");
	expect_null(p, "remote.size_bytes");
	expect_null(p, "remote.dangling_segments");
	expect_null(p, "remote.dangling_bytes");
	expect_null(p, "remote.lost_epoch_segments");
	expect_null(p, "remote.lost_epoch_bytes");
	expect_null(p, "only_local");
	expect_null(p, "copy_lag");
	expect_int(p, "broker_copy_lag.segments", 0);
	expect_str(p, "retention.size.reason", "not evaluated");
	expect_null(p, "retention.size.total_bytes");
	expect_int(p, "retention.time.limit_ms", 604800000);
	/* a kind unknown: the total is unknown, its amounts null */
	expect_bool(p, "retention.total.evaluated", false);
	expect_str(p, "retention.total.reason", "unseeded");
	expect_null(p, "retention.total.delete_bytes");
	expect_null(p, "retention.total.local_bytes_freed");
	expect_null(p, "retention.total.remote_bytes_freed");
	assert_int_equal(json_array_size(at(p, "retention.total.delete_segments")), 0);

	/* not tiered */
	p = json_array_get(ps, 2);
	expect_bool(p, "remote_storage", false);
	expect_null(p, "broker_copy_lag");
	expect_null(p, "copy_lag");
	expect_int(p, "only_local.segments", 1);
	expect_int(p, "retention.time.delete_segments.0", 0);  /* local base offsets, as numbers */
	expect_int(p, "retention.time.delete_base_offsets.0", 0);
	assert_int_equal(json_array_size(at(p, "retention.time.delete_segment_ids")), 0);
	expect_int(p, "retention.total.delete_segments.0", 0);
	expect_int(p, "retention.total.delete_base_offsets.0", 0);
	expect_int(p, "retention.total.local_bytes_freed", 100);
	expect_null(p, "retention.size.limit_bytes");
	expect_str(json_object_get(at(p, "config"), "remote.storage.enable"), "value", "false");

	/* a read error, a vanished segment */
	p = json_array_get(ps, 3);
	expect_bool(p, "remote_storage", false);
	expect_str(p, "segments.0.error", "zbroken-0/00000000000000000000.index at byte 24: Input/output error");
	expect_bool(p, "segments.1.vanished", true);
	expect_absent(p, "segments.1.error");

	/* never evaluated: the offsets and size are unknown (null, not a made-up 0) and
	 * there is no evaluation at all */
	p = json_array_get(ps, 4);
	expect_null(p, "log_end_offset");
	expect_null(p, "size_bytes");
	expect_null(p, "remote_storage");
	expect_absent(p, "remote");
	expect_absent(p, "findings");
	expect_bool(p, "segments.0.only_local", false);
	json_decref(j);
	free(out);
}

static void test_json_summary_and_errors(void **state)
{
	struct ss_results r = view();
	char *out = NULL;
	CAPTURE(out, ss_out_json(&r, f, false));
	json_t *j = load(out);
	expect_str(j, "summary.version", SEGSCAN_VERSION);
	expect_str(j, "summary.log_dirs.0", "/data/a");
	expect_str(j, "summary.log_dirs.1", WEIRD_DIR);
	expect_int(j, "summary.partitions", 5);
	expect_int(j, "summary.segments", 7);
	/* a total with an unknown member is null, and how many are unknown is beside it:
	 * zz-noeval was never evaluated (nothing of it is known), orders-1 is tiered without
	 * remote state (its remote tier and copy lag are unknown) */
	expect_null(j, "summary.size_bytes");
	expect_null(j, "summary.tiered_partitions");
	expect_null(j, "summary.remote_segments");
	expect_null(j, "summary.remote_bytes");
	expect_null(j, "summary.copy_lag_segments");
	expect_null(j, "summary.copy_lag_bytes");
	expect_int(j, "summary.unknown_partitions.size", 1);
	expect_int(j, "summary.unknown_partitions.tiering", 1);
	expect_int(j, "summary.unknown_partitions.remote", 2);
	expect_int(j, "summary.unknown_partitions.copy_lag", 2);
	expect_int(j, "summary.findings", 3);
	expect_int(j, "summary.errors", 2);             /* one problem, one segment; vanished is none */
	expect_int(j, "summary.bytes_read", 12345);
	expect_bool(j, "summary.verify", false);
	expect_str(j, "summary.io", "pread");
	expect_int(j, "summary.threads", 2);
	expect_str(j, "summary.remote_source", "remote-state");
	expect_int(j, "summary.exit_code", 1);
	expect_str(j, "summary.notes.0.path", "old-0.delete");
	expect_str(j, "summary.notes.0.what", "deleted");
	json_t *errs = json_object_get(j, "errors");
	assert_int_equal(json_array_size(errs), 2);
	expect_str(errs, "0.path", "/data/a/zbroken-0/leader-epoch-checkpoint");
	expect_int(errs, "0.where", 2);
	expect_str(errs, "0.error", segscan_strerror(SEGSCAN_ECHECKPOINT));
	expect_str(errs, "0.message", "line 2: not a number");
	expect_str(errs, "1.path", "/data/a/zbroken-0/00000000000000000000.index");
	expect_int(errs, "1.where", 24);
	expect_str(errs, "1.error", "Input/output error");
	json_decref(j);
	free(out);

	/* every member known (orders-0, and the non-tiered plain-0 and zbroken-0 whose null
	 * copy lag does not apply): the sums, and no unknown member */
	struct ss_part known[] = { parts[0], parts[2], parts[3] };
	r.parts = known;
	r.n_parts = 3;
	r.all_parts = parts;   /* ss_seg.part indexes every partition */
	CAPTURE(out, ss_out_json(&r, f, false));
	j = load(out);
	expect_int(j, "summary.size_bytes", 1500 + 100 + 70);
	expect_int(j, "summary.tiered_partitions", 1);
	expect_int(j, "summary.remote_segments", 1);
	expect_int(j, "summary.remote_bytes", 1000);
	expect_int(j, "summary.copy_lag_segments", 0);
	expect_int(j, "summary.copy_lag_bytes", 0);
	static const char *const kinds[] = { "size", "tiering", "remote", "copy_lag" };
	for (int i = 0; i < 4; i++) {
		char k[64];
		snprintf(k, sizeof(k), "summary.unknown_partitions.%s", kinds[i]);
		expect_int(j, k, 0);
	}
	json_decref(j);
	free(out);
	/* one partition whose size an unreadable segment leaves open: the size total is null,
	 * the others stand */
	struct ss_eval broken_size = ev_broken;
	broken_size.size_unknown = true;
	known[2].eval = &broken_size;
	CAPTURE(out, ss_out_json(&r, f, false));
	j = load(out);
	expect_null(j, "summary.size_bytes");
	expect_int(j, "summary.unknown_partitions.size", 1);
	expect_int(j, "summary.remote_bytes", 1000);
	json_decref(j);
	free(out);
	/* one whose tiering nothing settles (remote_storage null): the tiered count, the remote
	 * totals and the copy lag lack it; its size stands */
	struct ss_eval tier_unk = ev_broken;
	tier_unk.remote_storage = -1;
	tier_unk.remote_unknown = true;
	tier_unk.copy_lag_null = true;
	known[2].eval = &tier_unk;
	CAPTURE(out, ss_out_json(&r, f, false));
	j = load(out);
	expect_null(j, "summary.tiered_partitions");
	expect_int(j, "summary.unknown_partitions.tiering", 1);
	expect_null(j, "summary.remote_bytes");
	expect_int(j, "summary.unknown_partitions.remote", 1);
	expect_null(j, "summary.copy_lag_bytes");
	expect_int(j, "summary.unknown_partitions.copy_lag", 1);
	expect_int(j, "summary.size_bytes", 1500 + 100 + 70);
	json_decref(j);
	free(out);
	r = view();

	/* no remote metadata, nothing found: nulls and empty arrays, still valid JSON */
	r.run.remote_source = NULL;
	r.n_parts = r.n_segs = r.n_notes = r.n_problems = 0;
	CAPTURE(out, ss_out_json(&r, f, false));
	j = load(out);
	assert_int_equal(json_array_size(json_object_get(j, "partitions")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "errors")), 0);
	expect_null(j, "summary.remote_source");
	expect_int(j, "summary.errors", 0);
	json_decref(j);
	free(out);
}

/* ndjson: one line per partition, each the very object the json report holds. */
static void test_ndjson(void **state)
{
	struct ss_results r = view();
	char *nd = NULL, *js = NULL;
	CAPTURE(nd, ss_out_json(&r, f, true));
	CAPTURE(js, ss_out_json(&r, f, false));
	json_t *all = load(js), *ps = json_object_get(all, "partitions");
	size_t n = 0;
	for (char *line = nd, *nl; *line; line = nl + 1, n++) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = 0;
		json_t *o = load(line);
		assert_true(json_equal(o, json_array_get(ps, n)));
		json_decref(o);
	}
	assert_int_equal(n, 5);
	json_decref(all);
	free(nd);
	free(js);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_prom(void **state)
{
	struct ss_results r = view();
	char *out = NULL;
	CAPTURE(out, ss_out_prom(&r, f));
	/* HELP and TYPE once per family */
	assert_int_equal(count(out, "# HELP segscan_log_size_bytes "), 1);
	assert_int_equal(count(out, "# TYPE segscan_log_size_bytes gauge\n"), 1);
	assert_int_equal(count(out, "# TYPE segscan_scan_segments_total counter\n"), 1);
	assert_non_null(strstr(out, "\nsegscan_log_size_bytes{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\"} 1500\n"));
	assert_non_null(strstr(out, "\nsegscan_log_segments{topic=\"zbroken\",partition=\"0\",log_dir=\"/data/a\"} 2\n"));
	/* label values escape backslash, quote and newline */
	assert_non_null(strstr(out, "\nsegscan_log_size_bytes{topic=\"orders\",partition=\"1\",log_dir=\"/data/we\\\"ird\\\\dir\\nx\"} 0\n"));
	/* null values are omitted, never exported as 0 */
	assert_non_null(strstr(out, "\nsegscan_remote_copy_lag_segments{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\"} 0\n"));
	assert_int_equal(count(out, "\nsegscan_remote_copy_lag_segments{"), 1);   /* orders-1 unseeded; others not tiered */
	assert_int_equal(count(out, "\nsegscan_remote_copy_lag_bytes{"), 1);
	assert_int_equal(count(out, "\nsegscan_only_local_segments{"), 3);        /* not orders-1, not zz-noeval */
	assert_null(strstr(out, "segscan_only_local_bytes{topic=\"orders\",partition=\"1\""));
	assert_int_equal(count(out, "\nsegscan_broker_reported_copy_lag_segments{"), 2); /* the tiered two */
	assert_non_null(strstr(out, "\nsegscan_broker_reported_copy_lag_segments{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\"} 1\n"));
	/* not for orders-1, whose remote state is unknown (null, not 0) */
	assert_int_equal(count(out, "\nsegscan_remote_dangling_segments{"), 1);
	assert_non_null(strstr(out, "\nsegscan_remote_dangling_segments{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\"} 2\n"));
	/* excess over retention.bytes; none without a limit or an evaluation */
	assert_non_null(strstr(out, "\nsegscan_retention_size_excess_bytes{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\"} 1500\n"));
	assert_non_null(strstr(out, "\nsegscan_retention_size_excess_bytes{topic=\"zbroken\",partition=\"0\",log_dir=\"/data/a\"} 20\n"));
	assert_int_equal(count(out, "\nsegscan_retention_size_excess_bytes{"), 2);
	/* a partition without an evaluation has no series at all */
	assert_null(strstr(out, "zz-noeval"));
	/* the scanner's own series */
	assert_non_null(strstr(out, "\nsegscan_scan_duration_seconds 0.125000\n"));
	assert_non_null(strstr(out, "\nsegscan_scan_segments_total 7\n"));
	assert_non_null(strstr(out, "\nsegscan_scan_bytes_read_total 12345\n"));
	assert_non_null(strstr(out, "\nsegscan_scan_errors_total 2\n"));
	assert_non_null(strstr(out, "\nsegscan_build_info{version=\"" SEGSCAN_VERSION "\",io=\"pread\"} 1\n"));
	/* every line is a comment or a sample, and the text ends with a newline */
	assert_int_equal(out[strlen(out) - 1], '\n');
	free(out);

	/* serve's cumulative counters replace the scan's; no engine yet says "none" */
	struct ss_prom_counters c = { 1.5, 700, 99, 4 };
	r.run.io = "";
	CAPTURE(out, ss_out_prom_counters(&r, f, &c));
	assert_non_null(strstr(out, "\nsegscan_scan_duration_seconds 1.500000\n"));
	assert_non_null(strstr(out, "\nsegscan_scan_segments_total 700\n"));
	assert_non_null(strstr(out, "\nsegscan_scan_errors_total 4\n"));
	assert_non_null(strstr(out, "io=\"none\"} 1\n"));
	free(out);
}

#define L0 "{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\"}"
#define L1 "{topic=\"orders\",partition=\"1\",log_dir=\"/data/we\\\"ird\\\\dir\\nx\"}"
#define LP "{topic=\"plain\",partition=\"0\",log_dir=\"/data/a\"}"
#define LB "{topic=\"zbroken\",partition=\"0\",log_dir=\"/data/a\"}"

/* The contract's per-partition series beyond the first nine: offsets, remote size and
 * highest offset, the broker's byte lag, whether remote state is known, read errors,
 * and findings by code. */
static void test_prom_partition_series(void **state)
{
	struct ss_results r = view();
	/* two more problems: one in a directory that only shares a prefix with zbroken-0,
	 * one about zbroken-0 itself */
	struct ss_problem probs[] = {
		problems[0],
		{ "/data/a/zbroken-00/leader-epoch-checkpoint", "not ours", -EIO, -1, false },
		{ "/data/a/zbroken-0", "cannot list", -EACCES, -1, true },
	};
	r.problems = probs;
	r.n_problems = 3;
	char *out = NULL;
	CAPTURE(out, ss_out_prom(&r, f));
	const char *families[] = { "segscan_log_start_offset", "segscan_log_end_offset", "segscan_remote_size_bytes",
				   "segscan_remote_highest_offset", "segscan_broker_reported_copy_lag_bytes",
				   "segscan_remote_state_known", "segscan_partition_read_errors", "segscan_findings",
				   "segscan_findings_bytes", "segscan_remote_dangling_bytes" };
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		char h[128];
		snprintf(h, sizeof(h), "# HELP %s ", families[i]);
		assert_int_equal(count(out, h), 1);
		snprintf(h, sizeof(h), "# TYPE %s gauge\n", families[i]);
		assert_int_equal(count(out, h), 1);
	}
	assert_non_null(strstr(out, "\nsegscan_log_start_offset" L0 " 0\n"));
	assert_non_null(strstr(out, "\nsegscan_log_end_offset" L0 " 150\n"));
	assert_non_null(strstr(out, "\nsegscan_log_end_offset" LB " 5\n"));
	assert_int_equal(count(out, "\nsegscan_log_end_offset{"), 4);
	/* remote size: not for the tiered partition nobody seeded (null, not 0) */
	assert_non_null(strstr(out, "\nsegscan_remote_size_bytes" L0 " 1000\n"));
	assert_null(strstr(out, "\nsegscan_remote_size_bytes" L1));
	assert_non_null(strstr(out, "\nsegscan_remote_size_bytes" LP " 0\n"));
	assert_int_equal(count(out, "\nsegscan_remote_size_bytes{"), 3);
	/* the highest remote offset only where it is known */
	assert_non_null(strstr(out, "\nsegscan_remote_highest_offset" L0 " 99\n"));
	assert_int_equal(count(out, "\nsegscan_remote_highest_offset{"), 1);
	/* the broker's byte lag where its formula applies (tiered topics) */
	assert_non_null(strstr(out, "\nsegscan_broker_reported_copy_lag_bytes" L0 " 1000\n"));
	assert_non_null(strstr(out, "\nsegscan_broker_reported_copy_lag_bytes" L1 " 0\n"));
	assert_int_equal(count(out, "\nsegscan_broker_reported_copy_lag_bytes{"), 2);
	/* known: 0 only for the tiered partition without remote state */
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" L0 " 1\n"));
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" L1 " 0\n"));
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" LP " 1\n"));
	assert_int_equal(count(out, "\nsegscan_remote_state_known{"), 4);
	/* read errors: zbroken-0's failed index, its checkpoint and its directory; the
	 * vanished segment and zbroken-00's problem are not its errors */
	assert_non_null(strstr(out, "\nsegscan_partition_read_errors" LB " 3\n"));
	assert_non_null(strstr(out, "\nsegscan_partition_read_errors" L0 " 0\n"));
	assert_int_equal(count(out, "\nsegscan_partition_read_errors{"), 4);
	/* findings by code, counted; codes a partition does not have have no series */
	assert_non_null(strstr(out, "\nsegscan_findings{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\","
				    "code=\"REMOTE_DANGLING\"} 2\n"));
	assert_non_null(strstr(out, "\nsegscan_findings{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\","
				    "code=\"COPY_LAG_MISREPORTED\"} 1\n"));
	assert_int_equal(count(out, "\nsegscan_findings{"), 2);
	/* their bytes, for the codes whose findings name an amount (one of the two
	 * REMOTE_DANGLING findings does) */
	assert_non_null(strstr(out, "\nsegscan_findings_bytes{topic=\"orders\",partition=\"0\",log_dir=\"/data/a\","
				    "code=\"REMOTE_DANGLING\"} 300\n"));
	assert_int_equal(count(out, "\nsegscan_findings_bytes{"), 1);
	/* dangling bytes beside dangling segments */
	assert_non_null(strstr(out, "\nsegscan_remote_dangling_bytes" L0 " 300\n"));
	assert_int_equal(count(out, "\nsegscan_remote_dangling_bytes{"), 1);
	assert_null(strstr(out, "zz-noeval"));
	free(out);

	/* a partition that was never evaluated but could not be read still reports it */
	struct ss_problem noeval[] = { { "/data/a/zz-noeval-0/00000000000000000000.log", "EIO", -EIO, 0, true } };
	r.problems = noeval;
	r.n_problems = 1;
	CAPTURE(out, ss_out_prom(&r, f));
	assert_non_null(strstr(out, "\nsegscan_partition_read_errors{topic=\"zz-noeval\",partition=\"0\","
				    "log_dir=\"/data/a\"} 1\n"));
	assert_int_equal(count(out, "zz-noeval"), 1);
	free(out);
}

/* The line of the table that starts with `start`, as a new string (NULL if none). */
static char *line_of(const char *text, const char *start)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, start, strlen(start))) {
			size_t n = strcspn(p, "\n");
			return strndup(p, n);
		}
	}
	return NULL;
}

/* The column of the header whose title is `title`: the value in `row` there. */
static void expect_column(const char *header, const char *row, const char *title, const char *want)
{
	const char *h = strstr(header, title);
	assert_non_null(h);
	size_t col = (size_t)(h - header);
	if (strlen(row) < col || strncmp(row + col, want, strlen(want)) || row[col - 1] != ' ')
		fail_msg("column %s of \"%s\": want \"%s\"", title, row, want);
}

/* The same for a right-aligned column: the value ends where the title ends. */
static void expect_rcolumn(const char *header, const char *row, const char *title, const char *want)
{
	const char *h = strstr(header, title);
	assert_non_null(h);
	size_t end = (size_t)(h - header) + strlen(title), n = strlen(want);
	if (strlen(row) < end || strncmp(row + end - n, want, n) || row[end - n - 1] != ' ')
		fail_msg("column %s of \"%s\": want \"%s\"", title, row, want);
}

static void test_table(void **state)
{
	struct ss_results r = view();
	char *out = NULL;
	CAPTURE(out, ss_out_table(&r, f));
	char *first = line_of(out, "segscan ");
	assert_non_null(first);
	/* totals with an unknown member are '?', with the count (zz-noeval was never
	 * evaluated; orders-1's remote state is unknown) */
	assert_string_equal(first, "segscan " SEGSCAN_VERSION ": 5 partitions in 4 topics, 7 segments, ? local (1 "
				   "partition of unknown size), ? remote segments (2 partitions whose remote state "
				   "is unknown)");
	free(first);
	/* the path's newline as an escape: it forges no line (issue 21 item 9) */
	assert_non_null(strstr(out, "\n  log dirs: /data/a /data/we\"ird\\dir\\x0ax\n"));
	assert_non_null(strstr(out, "\n  scan: fast path (index tails), io=pread, 2 threads, 0.125 s, 12.1 KiB read\n"
				    "  metadata log: no; kafka unknown\n"));

	/* two log dirs: a LOG DIR column first, as wide as the longest path (its newline
	 * written as an escape, so the row stays one line) */
	char *hdr = line_of(out, "LOG DIR ");
	assert_non_null(hdr);
	assert_non_null(strstr(hdr, "  TOPIC  "));
#define LD_A "/data/a               "
#define LD_W "/data/we\"ird\\dir\\x0ax "
	/* orders-1 has unknown remote state: '?' in ONLY-LOCAL, REMOTE, COPY LAG, DELETE LAG and
	 * RETENTION */
	char *unk = strstr(out, "\n" LD_W "orders                               1 ");
	assert_non_null(unk);
	char ul[400];
	sscanf(unk + 1, "%399[^\n]", ul);
	int q = 0;
	for (char *c = ul; (c = strstr(c, " ? ")); c++)
		q++;
	assert_int_equal(q, 5);
	char *o0 = line_of(out, LD_A "orders  "), *pl = line_of(out, LD_A "plain "), *br = line_of(out, LD_A "zbroken ");
	assert_non_null(o0);
	assert_non_null(pl);
	assert_non_null(br);
	/* orders-1 follows orders-0, then the topic total; not on a terminal, every row names
	 * its topic (grep and sort work line by line) */
	const char *o1 = strstr(out, o0) + strlen(o0) + 1;
	assert_true(!strncmp(o1, LD_W "orders                               1 ", 22 + 39));
	char *o1l = strndup(o1, strcspn(o1, "\n"));
	char *tot = line_of(out, "                      " "  (topic total)");   /* no log dir */
	assert_non_null(tot);
	assert_ptr_equal(strstr(out, tot), o1 + strlen(o1l) + 1);

	expect_column(hdr, o0, "REMOTE", "1 seg/1000 B ");
	expect_column(hdr, o0, "COPY LAG", "0 ");
	expect_column(hdr, o0, "BROKER SAYS", "1 seg/1000 B ");
	expect_column(hdr, o0, "DELETE LAG", "0 ");
	expect_column(hdr, o0, "RETENTION", "remote: 1 seg/1000 B ");
	/* each code once, in order of first appearance */
	expect_column(hdr, o0, "FINDINGS", "REMOTE_DANGLING,COPY_LAG_MISREPORTED");
	assert_int_equal(o0[strlen(o0) - 1], 'D');
	expect_column(hdr, o1l, "ONLY-LOCAL", "? ");   /* REMOTE_STATE_UNKNOWN: unknown, not local-only */
	expect_column(hdr, o1l, "REMOTE", "? ");
	expect_column(hdr, o1l, "COPY LAG", "? ");
	expect_column(hdr, o1l, "DELETE LAG", "? ");
	expect_column(hdr, o1l, "RETENTION", "? ");   /* its local retention is unknown */
	expect_column(hdr, o1l, "FINDINGS", "-");
	expect_column(hdr, pl, "REMOTE", "- ");
	expect_column(hdr, pl, "BROKER SAYS", "- ");
	expect_column(hdr, pl, "DELETE LAG", "- ");
	expect_column(hdr, pl, "RETENTION", "1 seg/100 B ");  /* not tiered: no "remote: " */
	expect_column(hdr, br, "RETENTION", "nothing due ");
	/* its read errors, counted where the findings are (spelled out under "Could not read") */
	expect_column(hdr, br, "FINDINGS", "2 errors");
	expect_column(hdr, pl, "FINDINGS", "-");
	/* a partition without an evaluation has no row */
	assert_null(strstr(out, "zz-noeval "));

	assert_non_null(strstr(out, "\nFindings (3):\n"
				    "  orders-0  REMOTE_DANGLING (KAFKA-17428): 2 remote segments stuck in COPY_SEGMENT_STARTED\n"
				    "  orders-0  COPY_LAG_MISREPORTED: the broker reports 1 segment of copy lag\n"
				    "  orders-0  REMOTE_DANGLING: a second dangling finding\n"));
	assert_non_null(strstr(out, "\nCould not read (2):\n"
				    "  /data/a/zbroken-0/leader-epoch-checkpoint: line 2: not a number\n"
				    "  /data/a/zbroken-0/00000000000000000000.index at byte 24: Input/output error\n"));
	assert_non_null(strstr(out, "\nNotes (1):\n  old-0.delete: deleted\n"));
	free(hdr);
	free(o0);
	free(o1l);
	free(pl);
	free(br);
	free(tot);
	free(out);

	/* nothing scanned: the summary lines only, no header, no sections */
	r.n_parts = r.n_segs = r.n_notes = r.n_problems = 0;
	r.run.remote_source = NULL;
	r.run.verify = true;
	CAPTURE(out, ss_out_table(&r, f));
	assert_null(strstr(out, "TOPIC"));
	assert_null(strstr(out, "Findings"));
	assert_null(strstr(out, "Could not read"));
	assert_non_null(strstr(out, "scan: verify (every byte), io=pread"));
	assert_non_null(strstr(out, " read, no remote metadata\n"));
	free(out);
}

static void test_stats(void **state)
{
	struct ss_results r = view();
	char *out = NULL;
	CAPTURE(out, ss_out_stats(&r, f));
	assert_true(!strncmp(out, "segscan stats:\n", 15));
	assert_non_null(strstr(out, "\n  discover          0.010 s  2 log dirs, 5 partitions, 7 segments\n"));
	assert_non_null(strstr(out, "source remote-state, 3 events dropped or warned"));
	assert_non_null(strstr(out, "io=pread, 2 workers, queue depth 64, peak 4 segments in flight per worker\n"));
	assert_non_null(strstr(out, "\n    worker 0   node 0   pinned to cpus 0-3                  5 segments\n"));
	assert_non_null(strstr(out, "\n    worker 1   node any not pinned                     2 segments\n"));
	assert_non_null(strstr(out, "\n    log dir /data/a on NUMA node 0\n"));
	assert_non_null(strstr(out, "\n  total             0.125 s  56 segments/s\n"));
	assert_non_null(strstr(out, "\n  bytes read    12345 (1763.6 per segment, 0.1 MB/s)\n"));
	assert_non_null(strstr(out, "\n  syscalls      40 for 70 submissions (5.71 per segment)\n"));
	assert_non_null(strstr(out, "\n  ring stalls   1 "));
	assert_null(strstr(out, "reused"));
	assert_null(strstr(out, "evicted"));
	free(out);
	r.pipeline.reuse = r.pipeline.evict = true;
	r.pipeline.reused = 6;
	r.pipeline.evicted_bytes = 8192;
	r.run.io_fell_back = true;
	CAPTURE(out, ss_out_stats(&r, f));
	assert_non_null(strstr(out, "io=pread (fallback),"));
	assert_non_null(strstr(out, "\n  reused        6 unchanged closed segments from the previous scan\n"));
	assert_non_null(strstr(out, "\n  evicted       8192 bytes of page cache this scan brought in\n"));
	free(out);
}

static void test_exit_code_of_view(void **state)
{
	struct ss_results r = view();
	assert_int_equal(ss_results_exit_code(&r), 1);     /* the index read error */
	r.n_segs = 4;                                       /* without zbroken's segments */
	assert_int_equal(ss_results_exit_code(&r), 0);     /* the problem is not data loss */
	problems[0].data_loss = true;
	assert_int_equal(ss_results_exit_code(&r), 1);
	problems[0].data_loss = false;
	logdirs[1].err = -EACCES;
	assert_int_equal(ss_results_exit_code(&r), 3);
	logdirs[1].err = 0;
	segs[3].x = &x_crc;
	assert_int_equal(ss_results_exit_code(&r), 1);
	segs[3].x = NULL;
}

static void test_human_bytes(void **state)
{
	char b[32];
	assert_string_equal(ss_human_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(ss_human_bytes(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(ss_human_bytes(1024, b, sizeof(b)), "1.00 KiB");
	assert_string_equal(ss_human_bytes(1670, b, sizeof(b)), "1.63 KiB");
	assert_string_equal(ss_human_bytes(15 * 1024 * 1024 + 512 * 1024, b, sizeof(b)), "15.5 MiB");
	assert_string_equal(ss_human_bytes(300LL << 30, b, sizeof(b)), "300 GiB");
	assert_string_equal(ss_human_bytes(-1, b, sizeof(b)), "-");
}

static void test_json_writer(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct ss_jw w;
	ss_jw_init(&w, f);
	ss_jw_obj(&w);
	ss_jw_kstr(&w, "s", "q\"b\\n\n\t\x01\xc3\xa9");
	ss_jw_kstr(&w, "nul", NULL);
	ss_jw_ki64(&w, "min", INT64_MIN);
	ss_jw_ki64n(&w, "no", false, 5);
	ss_jw_key(&w, "a");
	ss_jw_arr(&w);
	ss_jw_i64(&w, 0);
	ss_jw_bool(&w, true);
	ss_jw_arr(&w);
	ss_jw_arr_end(&w);
	ss_jw_arr_end(&w);
	ss_jw_obj_end(&w);
	fclose(f);
	assert_string_equal(out, "{\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\xc3\xa9\",\"nul\":null,\"min\":-9223372036854775808,"
				 "\"no\":null,\"a\":[0,true,[]]}");
	free(out);
}

/* ---- the table fitted to a terminal's width ---------------------------------------- */

/* Columns a line takes on a terminal, counted here without the writer's helpers: UTF-8
 * decoded by hand, CJK (U+2E80..U+9FFF) two columns, combining marks none, the rest one
 * (what ss_term_write prints is printable: its escapes are ASCII). */
static size_t columns_of(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp = c;
		size_t l = 1;
		if (c >= 0xf0) { cp = c & 0x07; l = 4; }
		else if (c >= 0xe0) { cp = c & 0x0f; l = 3; }
		else if (c >= 0xc0) { cp = c & 0x1f; l = 2; }
		for (size_t k = 1; k < l && i + k < n; k++)
			cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
		i += l;
		w += cp >= 0x2e80 && cp <= 0x9fff ? 2 : cp >= 0x300 && cp <= 0x36f ? 0 : 1;
	}
	return w;
}

/* Fails naming the first line of `out` wider than `width`. */
static void lines_fit(const char *out, unsigned width, const char *what)
{
	for (const char *p = out; *p;) {
		size_t n = strcspn(p, "\n");
		if (columns_of(p, n) > width)
			fail_msg("%s at %u: a line %zu wide: \"%.*s\"", what, width, columns_of(p, n), (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* The header line of the table (it starts with LOG DIR, LD or TOPIC). */
static char *header_of(const char *out)
{
	char *h = line_of(out, "LOG DIR ");
	if (!h)
		h = line_of(out, "LD ");
	if (!h)
		h = line_of(out, "TOPIC ");
	assert_non_null(h);
	return h;
}

static bool has_col(const char *hdr, const char *title)
{
	/* a title between spaces or at an end */
	size_t n = strlen(title);
	for (const char *p = hdr; (p = strstr(p, title)); p++)
		if ((p == hdr || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return true;
	return false;
}

#define LONG_TOPIC "payments.settlement.events.eu-west-1.v2-retry"
#define WIDE_DIR "/srv/kafka/\xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf/disk-02/kafka-logs"

static void test_table_fit(void **state)
{
	/* the view with a 45-character topic and a log dir with wide characters */
	struct ss_part lp[5];
	memcpy(lp, parts, sizeof(lp));
	lp[0].topic = lp[1].topic = LONG_TOPIC;
	struct ss_res_logdir ld2[2] = { logdirs[0], { WIDE_DIR, 0, -1, -1, NULL } };
	static const unsigned widths[] = { 200, 120, 80, 60 };
	setenv("LANG", "C.UTF-8", 1);
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	for (int nld = 1; nld <= 2; nld++) {
		struct ss_results r = view();
		r.parts = lp;
		r.logdirs = ld2;
		r.n_logdirs = (uint32_t)nld;
		if (nld == 1)
			for (int i = 0; i < 5; i++)
				lp[i].logdir = 0;
		else
			lp[1].logdir = 1;
		char *full = NULL;
		CAPTURE(full, ss_out_table_fit(&r, f, 0, true));
		char *fh = header_of(full);
		/* the full table: every column, the whole name, the whole path */
		for (int c = 0; c < 11; c++) {
			static const char *const all[] = { "TOPIC", "PART", "SEGS", "LOCAL", "ONLY-LOCAL", "REMOTE",
							   "COPY LAG", "BROKER SAYS", "DELETE LAG", "RETENTION",
							   "FINDINGS" };
			assert_true(has_col(fh, all[c]));
		}
		assert_int_equal(!strncmp(fh, "LOG DIR ", 8), nld == 2);
		assert_non_null(strstr(full, LONG_TOPIC "     0     2   1.46 KiB"));   /* whole, pushing the row on */
		assert_int_equal(strstr(full, "\n" WIDE_DIR " ") != NULL, nld == 2);
		assert_true(columns_of(fh, strlen(fh)) >= 149);   /* 32-column TOPIC ... FINDINGS */
		free(fh);
		for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
			unsigned w = widths[k];
			for (int every = 0; every <= 1; every++) {
				char *out = NULL, what[64];
				snprintf(what, sizeof(what), "%d log dir(s), every_row %d", nld, every);
				CAPTURE(out, ss_out_table_fit(&r, f, w, every));
				lines_fit(out, w, what);
				char *h = header_of(out);
				/* what always stays */
				assert_true(has_col(h, "TOPIC"));
				assert_true(has_col(h, "PART"));
				assert_true(has_col(h, "LOCAL"));
				assert_true(has_col(h, "COPY LAG"));
				assert_true(has_col(h, "FINDINGS"));
				/* the log-dir column with two log dirs only: the path, or its number */
				bool ldcol = !strncmp(h, "LOG DIR ", 8) || !strncmp(h, "LD ", 3);
				assert_int_equal(ldcol, nld == 2);
				if (!strncmp(h, "LD ", 3))
				{
					/* numbered, one log dir per line */
					assert_non_null(strstr(out, "\n  log dirs: [1] /data/a\n            [2] "));
					assert_non_null(strstr(out, WIDE_DIR "\n"));
				}
				else
					assert_null(strstr(out, "[1]"));
				/* the drop order below the full width */
				if (w <= 80) {
					assert_false(has_col(h, "SEGS"));
					assert_false(has_col(h, "BROKER SAYS"));
					assert_false(has_col(h, "DELETE LAG"));
					assert_false(has_col(h, "RETENTION"));
				}
				if (w == 60) {
					assert_false(has_col(h, "ONLY-LOCAL"));
					assert_false(has_col(h, "REMOTE"));
				}
				/* and always in that order: what is gone is a prefix of it */
				static const char *const order[] = { "SEGS", "BROKER SAYS", "DELETE LAG", "RETENTION",
								     "ONLY-LOCAL", "REMOTE" };
				for (int o = 1; o < 6; o++)
					if (!has_col(h, order[o]) && has_col(h, order[o - 1]))
						fail_msg("%s at %u: %s dropped before %s", what, w, order[o], order[o - 1]);
				if (w == 120)
					assert_true(has_col(h, "RETENTION") && has_col(h, "REMOTE"));
				/* each partition's row keeps its partition, size, lag and findings */
				const char *o0 = strstr(out, h);   /* the first row follows the header */
				assert_non_null(o0);
				o0 += strlen(h);
				char *row = strndup(o0 + 1, strcspn(o0 + 1, "\n"));
				assert_non_null(strstr(row, " 0 "));
				assert_non_null(strstr(row, " 1.46 KiB "));
				assert_non_null(strstr(row, "REMOTE_DANGLING"));
				/* the long name cut in the middle: its start, an ellipsis, its end */
				if (w < 120) {
					/* (the findings below the table name it whole) */
					const char *cut = strstr(out, LONG_TOPIC);
					assert_true(!cut || cut > strstr(out, "\nFindings ("));
					assert_non_null(strstr(row, "payment"));
					assert_non_null(strstr(row, "\xe2\x80\xa6"));
					assert_non_null(strstr(row, "retry "));
				}
				free(row);
				/* every row names its topic, or only the first of its topic */
				int named = 0;
				const char *sect = strstr(out, "\nFindings (");
				assert_non_null(sect);
				for (const char *p = out; (p = strstr(p, "payment")) && p < sect; p++)
					named++;
				assert_int_equal(named, every ? 2 : 1);
				/* the sections below the table are all there, wrapped, not cut */
				assert_non_null(strstr(out, "\nFindings (3):\n"));
				assert_non_null(strstr(out, "COPY_SEGMENT_STARTED"));
				assert_non_null(strstr(out, "Input/output error"));
				free(h);
				free(out);
			}
		}
		/* wide enough for the whole table: the same bytes as the full table */
		char *wide = NULL;
		CAPTURE(wide, ss_out_table_fit(&r, f, 1000, true));
		assert_string_equal(wide, full);
		free(wide);
		free(full);
	}
	/* no UTF-8 locale: the cut is marked with '~' */
	setenv("LANG", "C", 1);
	struct ss_results r = view();
	r.parts = lp;
	r.n_logdirs = 1;
	char *out = NULL;
	CAPTURE(out, ss_out_table_fit(&r, f, 80, true));
	assert_null(strstr(out, "\xe2\x80\xa6"));
	assert_non_null(strstr(out, "~"));
	lines_fit(out, 80, "LANG=C");
	free(out);
	setenv("LANG", "C.UTF-8", 1);
}

/* What a terminal shows for the escapes ss_term_write makes, and where the width comes from. */
static void test_term_width(void **state)
{
	assert_int_equal(ss_term_width("abc", 3), 3);
	assert_int_equal(ss_term_width("\x1b", 1), 4);             /* \x1b */
	assert_int_equal(ss_term_width("\xc2\x9b", 2), 6);         /* \u009b */
	assert_int_equal(ss_term_width("\xff", 1), 4);             /* malformed: \xff */
	assert_int_equal(ss_term_width("\xe6\x97\xa5", 3), 2);     /* a CJK ideograph */
	assert_int_equal(ss_term_width("e\xcc\x81", 3), 1);        /* e + combining acute */
	/* prefixes never split a character or an escape */
	assert_int_equal(ss_term_prefix("ab\x1b" "cd", 5, 5), 2);
	assert_int_equal(ss_term_prefix("ab\x1b" "cd", 5, 6), 3);
	assert_int_equal(ss_term_prefix("\xe6\x97\xa5\xe6\x97\xa5", 6, 3), 3);
	assert_int_equal(ss_term_suffix("abcdef", 6, 2), 4);
	assert_int_equal(ss_term_suffix("a\xe6\x97\xa5", 4, 1), 4);
	/* and what it writes is as wide as it says */
	char *out = NULL;
	CAPTURE(out, (ss_term_write(f, "a\x1b\xc2\x9b\xff", 5), 0));
	assert_string_equal(out, "a\\x1b\\u009b\\xff");
	assert_int_equal(strlen(out), ss_term_width("a\x1b\xc2\x9b\xff", 5));
	free(out);

	/* COLUMNS wins when it is a number; a memory stream is no terminal */
	setenv("COLUMNS", "77", 1);
	assert_int_equal(ss_term_columns(-1), 77);
	setenv("COLUMNS", "abc", 1);
	assert_int_equal(ss_term_columns(-1), 0);
	setenv("COLUMNS", "0", 1);
	assert_int_equal(ss_term_columns(-1), 0);
	unsetenv("COLUMNS");
	assert_int_equal(ss_term_columns(-1), 0);
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(ss_term_columns(fd[1]), 0);   /* a pipe: no fitting */
	setenv("COLUMNS", "90", 1);
	assert_int_equal(ss_term_columns(fd[1]), 90);
	unsetenv("COLUMNS");
	close(fd[0]);
	close(fd[1]);

	/* the wrap of a long text line: at spaces, deeper indent, nothing lost */
	CAPTURE(out, (ss_term_write_fit(f, "  aaaa bbbb cccc dddd eeee ffff\nshort\n", 38, 14), 0));
	assert_string_equal(out, "  aaaa bbbb\n      cccc\n      dddd\n      eeee\n      ffff\nshort\n");
	free(out);
	/* never between a number and its unit */
	CAPTURE(out, (ss_term_write_fit(f, "aaaa bbb 1.5 KiB\n", 17, 12), 0));
	assert_string_equal(out, "aaaa bbb\n    1.5 KiB\n");
	free(out);
	CAPTURE(out, (ss_term_write_fit(f, "xxxxxxxxxxxxxxxxxxxx\n", 21, 8), 0));
	assert_string_equal(out, "xxxxxxxx\n    xxxx\n    xxxx\n    xxxx\n");
	free(out);
}

/* ---- what is unknown is '?' (issue 20 items 2-4, issue 21 item 9) -------------------- */

static struct ss_segx x_eacces = { .err = -EACCES, .err_file = SS_HAS_LOG, .err_pos = -1, .first_batch_base = -1 };
static struct ss_seg useg[] = {
	/* t-0: known not tiered */
	{ .base_offset = 0, .part = 0, .flags = SS_SEG_ACTIVE | SS_SEG_HAS_LAST | SS_SEG_ONLY_LOCAL, .last_offset = 9,
	  .end_offset = 9, .size_bytes = 100, .valid_bytes = 100, .max_timestamp_ms = 5, .batches = 1, .records = 10 },
	/* t-1: nothing says whether it is tiered */
	{ .base_offset = 0, .part = 1, .flags = SS_SEG_ACTIVE | SS_SEG_HAS_LAST, .last_offset = 9, .end_offset = 9,
	  .size_bytes = 200, .valid_bytes = 200, .max_timestamp_ms = 5, .batches = 1, .records = 10 },
	/* t-2: a segment another user's mode keeps from us, and a readable active one */
	{ .base_offset = 0, .part = 2, .flags = SS_SEG_READ_ERROR, .end_offset = 9, .max_timestamp_ms = -1,
	  .batches = SS_SEG_COUNT_UNKNOWN, .records = SS_SEG_COUNT_UNKNOWN, .x = &x_eacces },
	{ .base_offset = 10, .part = 2, .flags = SS_SEG_ACTIVE | SS_SEG_HAS_LAST | SS_SEG_ONLY_LOCAL, .last_offset = 19,
	  .end_offset = 19, .size_bytes = 50, .valid_bytes = 50, .max_timestamp_ms = 5, .batches = 1, .records = 10 },
	/* u-0: tiered, size and time retention delete r1 both, local retention one file */
	{ .base_offset = 100, .part = 3, .flags = SS_SEG_HAS_LAST, .last_offset = 199, .end_offset = 199,
	  .size_bytes = 1024, .valid_bytes = 1024, .max_timestamp_ms = 5, .batches = 1, .records = 10 },
	{ .base_offset = 200, .part = 3, .flags = SS_SEG_ACTIVE | SS_SEG_HAS_LAST | SS_SEG_ONLY_LOCAL, .last_offset = 209,
	  .end_offset = 209, .size_bytes = 10, .valid_bytes = 10, .max_timestamp_ms = 5, .batches = 1, .records = 10 },
};
static const struct ss_cfg_entry ucfg[] = {
	{ .key = "retention.ms", .value = "604800000", .source = NULL },
	{ .key = "remote.storage.enable", .value = "false", .source = NULL },
};
static struct ss_eval uev_known = {
	.log_end_offset = 10, .size_bytes = 100, .remote_storage = 0, .only_local_segments = 1, .only_local_bytes = 100,
	.copy_lag_null = true, .broker_copy_lag_null = true, .size = { .limit = -1 }, .time = { .evaluated = true },
	.local = { .reason = "remote storage disabled" }, .here = -1,
};
static struct ss_eval uev_unknown = {
	.log_end_offset = 10, .size_bytes = 200, .remote_storage = -1, .only_local_null = true, .copy_lag_null = true,
	.broker_copy_lag_null = true, .remote_unknown = true, .size = { .limit = -1 }, .time = { .evaluated = true },
	.local = { .reason = "remote storage disabled" }, .config = ucfg, .n_config = 2, .config_value_unknown = 2,
	.here = -1,
};
static struct ss_eval uev_eacces = {
	.log_end_offset = 20, .size_bytes = 50, .size_unknown = true, .remote_storage = 0, .only_local_null = true,
	.copy_lag_null = true, .broker_copy_lag_null = true, .size = { .limit = -1 },
	.time = { .unknown = true, .reason = "a segment could not be read" },
	.local = { .reason = "remote storage disabled" },
	.total = { .unknown = true, .reason = "a segment could not be read" }, .here = -1,
};
static char *uids[] = { "r1" };
static int64_t ulocal[] = { 100 };
static struct ss_eval uev_tiered = {
	.log_end_offset = 210, .size_bytes = 1034, .remote_storage = 1, .tiered = true, .seeded = true,
	.highest_offset = 199, .remote_segments = 1, .remote_bytes = 2048, .only_local_segments = 1,
	.only_local_bytes = 10,
	.size = { .evaluated = true, .n_delete = 1, .delete_bytes = 2048, .delete_is_remote = true, .delete_ids = uids },
	.time = { .evaluated = true, .n_delete = 1, .delete_bytes = 2048, .delete_is_remote = true, .delete_ids = uids },
	.local = { .evaluated = true, .n_delete = 1, .delete_bytes = 1024, .delete_offsets = ulocal },
	.total = { .n_remote = 1, .remote_ids = uids, .remote_bytes = 2048, .n_local = 1, .local_offsets = ulocal,
		   .local_bytes = 1024 },
	.here = -1,
};
static struct ss_part uparts[] = {
	{ .topic = "t", .dir = "t-0", .partition = 0, .seg_first = 0, .seg_count = 1, .eval = &uev_known },
	{ .topic = "t", .dir = "t-1", .partition = 1, .seg_first = 1, .seg_count = 1, .eval = &uev_unknown },
	{ .topic = "t", .dir = "t-2", .partition = 2, .seg_first = 2, .seg_count = 2, .eval = &uev_eacces },
	{ .topic = "u", .dir = "u-0", .partition = 0, .seg_first = 4, .seg_count = 2, .eval = &uev_tiered },
};

static struct ss_results uview(void)
{
	struct ss_results r = view();
	r.logdirs = logdirs;
	r.n_logdirs = 1;
	r.parts = uparts;
	r.n_parts = 4;
	r.segs = useg;
	r.n_segs = 6;
	r.n_notes = r.n_problems = 0;
	return r;
}

static void test_unknown_is_unknown(void **state)
{
	struct ss_results r = uview();
	char *out = NULL;
	CAPTURE(out, ss_out_table(&r, f));
	char *hdr = line_of(out, "TOPIC ");
	char *t0 = line_of(out, "t        "), *t1 = NULL, *t2 = NULL, *u0 = line_of(out, "u   ");
	assert_non_null(hdr);
	assert_non_null(t0);
	assert_non_null(u0);
	const char *p = strstr(out, t0) + strlen(t0) + 1;
	t1 = strndup(p, strcspn(p, "\n"));
	p += strlen(t1) + 1;
	t2 = strndup(p, strcspn(p, "\n"));
	p += strlen(t2) + 1;
	char *tot = strndup(p, strcspn(p, "\n"));
	assert_non_null(strstr(tot, "(topic total)"));
	/* tiering unknown: its only-local set, remote tier and lags are '?', never '-' */
	expect_column(hdr, t0, "ONLY-LOCAL", "100 B ");
	expect_column(hdr, t0, "COPY LAG", "- ");
	expect_column(hdr, t1, "ONLY-LOCAL", "? ");
	expect_column(hdr, t1, "REMOTE", "? ");
	expect_column(hdr, t1, "COPY LAG", "? ");
	expect_column(hdr, t1, "BROKER SAYS", "? ");
	/* a segment that could not be read: the row says '?' and counts the error */
	expect_rcolumn(hdr, t2, "LOCAL", "?");
	expect_column(hdr, t2, "ONLY-LOCAL", "? ");
	expect_column(hdr, t2, "RETENTION", "? ");
	expect_column(hdr, t2, "FINDINGS", "1 error");
	/* a total over unknowns is unknown */
	expect_rcolumn(hdr, tot, "LOCAL", "?");
	expect_column(hdr, tot, "REMOTE", "? ");
	expect_column(hdr, tot, "COPY LAG", "?");
	/* the retention union: r1 once (size and time both delete it) and the local file */
	expect_column(hdr, u0, "RETENTION", "2 seg/3.00 KiB ");
	free(hdr);
	free(t0);
	free(t1);
	free(t2);
	free(tot);
	free(u0);
	free(out);

	/* json: unknown tiering is only_local null, its remote.storage.enable no made-up value */
	CAPTURE(out, ss_out_json(&r, f, false));
	json_t *j = load(out), *ps = json_object_get(j, "partitions");
	json_t *q = json_array_get(ps, 1);
	expect_null(q, "remote_storage");
	expect_null(q, "only_local");
	expect_null(q, "segments.0.only_local");
	expect_null(json_object_get(at(q, "config"), "remote.storage.enable"), "value");
	expect_null(json_object_get(at(q, "config"), "remote.storage.enable"), "source");
	expect_str(json_object_get(at(q, "config"), "retention.ms"), "value", "604800000");
	q = json_array_get(ps, 2);
	expect_null(q, "size_bytes");
	expect_null(q, "only_local");
	expect_str(q, "segments.0.error", "t-2/00000000000000000000.log: Permission denied");
	expect_str(q, "retention.time.reason", "a segment could not be read");
	expect_bool(q, "retention.total.evaluated", false);
	q = json_array_get(ps, 3);
	assert_int_equal(json_array_size(at(q, "retention.total.delete_segments")), 2);
	expect_str(q, "retention.total.delete_segments.0", "r1");
	expect_int(q, "retention.total.delete_segments.1", 100);
	expect_str(q, "retention.total.delete_segment_ids.0", "r1");
	expect_int(q, "retention.total.delete_base_offsets.0", 100);
	expect_int(q, "retention.total.delete_bytes", 3072);
	expect_int(q, "retention.total.remote_bytes_freed", 2048);
	expect_int(q, "retention.total.local_bytes_freed", 1024);
	expect_int(q, "retention.local.delete_base_offsets.0", 100);
	json_decref(j);
	free(out);
}

/*
 * Whether the remote state is known, in every output, from the fact itself (issue 20/21
 * follow-up): a tiered partition without remote state, one whose tiering is unknown and a
 * known-untiered one a corrupt metadata batch concerns have it unknown (json null, table
 * '?', prom segscan_remote_state_known 0 and no remote series); an unreadable segment makes
 * only the only-local set unknown, not the remote state, tiered or not.
 */
#define LT(n) "{topic=\"t\",partition=\"" #n "\",log_dir=\"/data/a\"}"
#define LU "{topic=\"u\",partition=\"0\",log_dir=\"/data/a\"}"
static void test_remote_unknown_everywhere(void **state)
{
	struct ss_results r = uview();
	/* u-0: tiered and seeded, with an only-local segment that could not be read */
	struct ss_eval tiered_eacces = uev_tiered;
	tiered_eacces.only_local_null = true;
	/* t-0: known not tiered, but a corrupt metadata batch could hold its events */
	struct ss_eval tainted = uev_known;
	tainted.remote_unknown = true;
	struct ss_part ps[4] = { uparts[0], uparts[1], uparts[2], uparts[3] };
	ps[3].eval = &tiered_eacces;
	r.parts = ps;
	char *out = NULL;
	CAPTURE(out, ss_out_prom(&r, f));
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" LT(0) " 1\n"));
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" LT(1) " 0\n"));   /* tiering unknown */
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" LT(2) " 1\n"));   /* unreadable, not tiered */
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" LU " 1\n"));      /* unreadable, tiered */
	assert_non_null(strstr(out, "\nsegscan_remote_size_bytes" LT(2) " 0\n"));
	assert_non_null(strstr(out, "\nsegscan_remote_size_bytes" LU " 2048\n"));
	assert_null(strstr(out, "\nsegscan_remote_size_bytes" LT(1)));
	assert_null(strstr(out, "\nsegscan_only_local_bytes" LU));
	free(out);

	ps[0].eval = &tainted;
	CAPTURE(out, ss_out_prom(&r, f));
	assert_non_null(strstr(out, "\nsegscan_remote_state_known" LT(0) " 0\n"));
	assert_null(strstr(out, "\nsegscan_remote_size_bytes" LT(0)));
	assert_null(strstr(out, "\nsegscan_remote_dangling_segments" LT(0)));
	free(out);

	CAPTURE(out, ss_out_json(&r, f, false));
	json_t *j = load(out), *pj = json_object_get(j, "partitions");
	expect_null(json_array_get(pj, 0), "remote.segments");
	expect_null(json_array_get(pj, 0), "remote.dangling_bytes");
	expect_null(json_array_get(pj, 1), "remote.size_bytes");
	expect_int(json_array_get(pj, 2), "remote.segments", 0);
	expect_int(json_array_get(pj, 3), "remote.size_bytes", 2048);
	expect_null(j, "summary.remote_bytes");
	expect_int(j, "summary.unknown_partitions.remote", 2);
	json_decref(j);
	free(out);

	CAPTURE(out, ss_out_table(&r, f));
	char *hdr = line_of(out, "TOPIC "), *t0 = line_of(out, "t        "), *u0 = line_of(out, "u   ");
	expect_column(hdr, t0, "REMOTE", "? ");
	expect_column(hdr, u0, "REMOTE", "1 seg/2.00 KiB ");
	free(hdr);
	free(t0);
	free(u0);
	free(out);
}

/* A scan of several brokers' log dirs has a row per replica: the summary counts a partition's
 * remote state and copy lag once (the largest over its replicas), a follower's null copy lag is
 * the leader's to count (no unknown member), and a partition whose remote state no replica
 * knows is one unknown partition, not one per replica. */
static void test_summary_replicas_once(void **state)
{
	(void)state;
	struct ss_results r = uview();
	struct ss_eval lead = uev_tiered, follow = uev_tiered;
	lead.role = SS_ROLE_LEADER;
	lead.copy_lag_segments = 1;
	lead.copy_lag_bytes = 10;
	lead.broker_copy_lag_segments = 1;
	lead.broker_copy_lag_bytes = 10;
	follow.role = SS_ROLE_FOLLOWER;
	follow.copy_lag_null = follow.broker_copy_lag_null = true;
	struct ss_part ps[3] = { uparts[3], uparts[3], uparts[3] };
	ps[0].eval = &lead;
	ps[1].eval = &follow;
	ps[2].eval = &follow;
	r.parts = ps;
	r.n_parts = 3;
	r.n_segs = 0;
	struct ss_summary sum;
	ss_out_summarize(&r, &sum);
	assert_int_equal(sum.remote_bytes, 2048);
	assert_int_equal(sum.remote_segments, 1);
	assert_int_equal(sum.remote_unknown, 0);
	assert_int_equal(sum.copy_lag_segments, 1);
	assert_int_equal(sum.copy_lag_bytes, 10);
	assert_int_equal(sum.copy_lag_unknown, 0);
	assert_int_equal(sum.broker_copy_lag_bytes, 10);
	assert_int_equal(sum.only_local_bytes, 3 * 10);   /* each replica's own disk */
	/* no replica knows the remote state: one unknown partition */
	struct ss_eval unk_l = lead, unk_f = follow;
	unk_l.remote_unknown = unk_f.remote_unknown = true;
	ps[0].eval = &unk_l;
	ps[1].eval = &unk_f;
	ps[2].eval = &unk_f;
	ss_out_summarize(&r, &sum);
	assert_int_equal(sum.remote_unknown, 1);
}

/* No line of the table starts where a name's newline would have put it. */
static void no_forged_line(const char *out)
{
	for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
		if (!strncmp(p, "forged", 6))
			fail_msg("a line forged by a newline in the input:\n%s", out);
}

static void test_table_newlines(void **state)
{
	struct ss_results r = view();
	static char msg_nl[] = "a topic named evil\nforged finding";
	struct ss_finding fnl[] = { { .code = "STRAY_PARTITION", .ref = "", .message = msg_nl } };
	struct ss_eval ev = ev_plain;
	ev.findings = fnl;
	ev.n_findings = 1;
	struct ss_part ps[5];
	memcpy(ps, parts, sizeof(ps));
	ps[2].eval = &ev;
	r.parts = ps;
	struct ss_note nn[] = { { "evil\nforged note", "directory name is not a legal Kafka topic name" } };
	struct ss_problem pn[] = { { "/data/a/x\nforged problem", "bad\nforged what", -EIO, -1, false } };
	const char *warns[] = { "00000000000000000000.log: byte 10: offset 3: TopicRecord evil\nforged-topic with a "
				"new id while the old one is live; the old one is dropped" };
	r.notes = nn;
	r.problems = pn;
	r.cluster.metadata_log = true;
	r.cluster.snapshot = "x\nforged snapshot";
	r.cluster.warning_texts = warns;
	r.cluster.n_warning_texts = 1;
	r.cluster.warnings = 1;
	r.cluster.static_config = "/proc-said/server\nforged.properties";
	r.cluster.static_config_how = "the running broker's (pid 1)";
	r.cluster.configs_error = "peer says\nforged";
	char *out = NULL;
	for (unsigned w = 0; w <= 80; w += 80) {
		CAPTURE(out, ss_out_table_fit(&r, f, w, true));
		no_forged_line(out);
		assert_non_null(strstr(out, "evil\\x0aforged-topic"));
		assert_non_null(strstr(out, "evil\\x0aforged note"));
		assert_non_null(strstr(out, "server\\x0aforged.properties"));
		free(out);
	}
}

/* A fitted table names the columns it left out; the full one has no such line. */
static void test_table_hidden_columns(void **state)
{
	struct ss_results r = view();
	char *out = NULL;
	CAPTURE(out, ss_out_table_fit(&r, f, 0, true));
	assert_null(strstr(out, "hidden"));
	free(out);
	CAPTURE(out, ss_out_table_fit(&r, f, 1000, true));
	assert_null(strstr(out, "hidden"));
	free(out);
	CAPTURE(out, ss_out_table_fit(&r, f, 80, true));
	assert_non_null(strstr(out, "\n  table: SEGS, BROKER SAYS, DELETE LAG and RETENTION hidden to fit 80 columns"));
	lines_fit(out, 80, "hidden");
	free(out);
	CAPTURE(out, ss_out_table_fit(&r, f, 60, true));
	assert_non_null(strstr(out, "\n  table: SEGS, ONLY-LOCAL, REMOTE, BROKER SAYS, DELETE LAG\n"));
	assert_non_null(strstr(out, "and RETENTION hidden, COPY LAG in bytes only to fit\n      60 columns"));
	free(out);
}

/* --broker-metrics (issue 27): a broker's per-topic delete-lag gauges and PHANTOM_DELETE_LAG
 * sit in summary.broker_topics, in their own prom series (topic and node_id, no partition)
 * and in the table's findings, never on a partition's row. */
static void test_broker_topics(void **state)
{
	(void)state;
	struct ss_finding fd = { .code = "PHANTOM_DELETE_LAG", .ref = "KAFKA-21098", .message = "node 1's gauge",
				 .has_amount = true, .segments = 3, .bytes = 300 };
	struct ss_topic_dellag td[2] = {
		{ .topic = "orders", .node_id = 1, .broker_known = true, .broker_segments = 3, .broker_bytes = 300,
		  .known = true, .led = 0, .findings = &fd, .n_findings = 1 },
		{ .topic = "plain", .node_id = 1, .why = "no metadata log" },
	};
	struct ss_results r = view();
	r.topic_dellag = td;
	r.n_topic_dellag = 2;
	char *out = NULL;
	CAPTURE(out, ss_out_json(&r, f, false));
	json_t *j = load(out);
	json_t *bt = json_object_get(json_object_get(j, "summary"), "broker_topics");
	assert_int_equal(json_array_size(bt), 2);
	json_t *o = json_array_get(bt, 0);
	assert_string_equal(json_string_value(json_object_get(o, "topic")), "orders");
	assert_int_equal(json_integer_value(json_object_get(o, "node_id")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "broker_delete_lag"), "segments")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "delete_lag"), "size_bytes")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "led_partitions")), 0);
	json_t *f0 = json_array_get(json_object_get(o, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "code")), "PHANTOM_DELETE_LAG");
	o = json_array_get(bt, 1);
	assert_true(json_is_null(json_object_get(o, "broker_delete_lag")));
	assert_true(json_is_null(json_object_get(o, "delete_lag")));
	assert_string_equal(json_string_value(json_object_get(o, "delete_lag_reason")), "no metadata log");
	/* counted among the findings, once */
	json_int_t nf = json_integer_value(json_object_get(json_object_get(j, "summary"), "findings"));
	json_decref(j);
	free(out);
	struct ss_results r0 = view();
	CAPTURE(out, ss_out_json(&r0, f, false));
	j = load(out);
	assert_int_equal(nf, json_integer_value(json_object_get(json_object_get(j, "summary"), "findings")) + 1);
	assert_null(json_object_get(json_object_get(j, "summary"), "broker_topics"));
	json_decref(j);
	free(out);

	CAPTURE(out, ss_out_prom(&r, f));
	assert_non_null(strstr(out, "\nsegscan_broker_delete_lag_segments{topic=\"orders\",node_id=\"1\"} 3\n"));
	assert_non_null(strstr(out, "\nsegscan_broker_delete_lag_bytes{topic=\"orders\",node_id=\"1\"} 300\n"));
	assert_null(strstr(out, "segscan_broker_delete_lag_segments{topic=\"plain\""));
	assert_non_null(strstr(out, "\nsegscan_broker_topic_findings{topic=\"orders\",node_id=\"1\",code=\"PHANTOM_DELETE_LAG\"} 1\n"));
	free(out);

	CAPTURE(out, ss_out_table(&r, f));
	assert_non_null(strstr(out, "\n  orders (node 1)  PHANTOM_DELETE_LAG (KAFKA-21098): node 1's gauge\n"));
	free(out);
}

int main(void)
{
	/* ss_out_table reads COLUMNS: the full table whatever the caller's environment */
	unsetenv("COLUMNS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_partitions),
		cmocka_unit_test(test_json_summary_and_errors),
		cmocka_unit_test(test_ndjson),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_prom_partition_series),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_fit),
		cmocka_unit_test(test_term_width),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_exit_code_of_view),
		cmocka_unit_test(test_human_bytes),
		cmocka_unit_test(test_json_writer),
		cmocka_unit_test(test_unknown_is_unknown),
		cmocka_unit_test(test_remote_unknown_everywhere),
		cmocka_unit_test(test_summary_replicas_once),
		cmocka_unit_test(test_table_newlines),
		cmocka_unit_test(test_table_hidden_columns),
		cmocka_unit_test(test_broker_topics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
