/*
 * segscan against a real Apache Kafka broker (tests/fixtures/kafka, written by Kafka 4.4.0
 * and 4.3.1 and read back by Kafka's own tools; regenerate with `make conformance`):
 * - every segment's offsets, size, batch and record counts and CRC verdict (--verify)
 *   match DumpLogSegments;
 * - the __remote_log_metadata partitions decoded by segscan replay to the same remote
 *   state as Kafka's RemoteLogMetadataSerde decode (given as --remote-state);
 * - the derived highestOffsetInRemoteStorage matches the broker's (Admin LATEST_TIERED),
 *   unless the broker itself is unseeded (KAFKA-20732, where segscan must differ);
 * - wherever segscan's copy lag differs from the broker's RemoteCopyLagSegments gauge,
 *   a PHANTOM_COPY_LAG finding explains exactly the difference;
 * - every partition's size_bytes is the broker's own Size gauge (jmx.json), a
 *   preallocated active segment counting its appended bytes, not its zero allocation.
 * multi-broker/ has one log dir per node (logdir-N, dump-N.json, jmx-N.json): each is
 * compared on its own.
 */
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "testutil.h"
#include "scanutil.h"

#define FIXTURES "tests/fixtures/kafka"

static json_t *load_json(const char *dir, const char *name)
{
	char *p = NULL;
	json_error_t e;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	json_t *j = json_load_file(p, 0, &e);
	if (!j)
		fail_msg("%s: %s", p, e.text);
	free(p);
	return j;
}

static bool file_nonempty(const char *dir, const char *name)
{
	char *p = NULL;
	struct stat st;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	bool r = stat(p, &st) == 0 && st.st_size > 0;
	free(p);
	return r;
}

/* ndjson report -> object keyed by "topic-partition"; sfx: "" for logdir/, "-N" for logdir-N/ */
static json_t *scan_case(const char *dir, const char *sfx, bool verify,
			 int remote_mode /* 0 none-auto, 1 state file, 2 metadata */)
{
	json_t *cs = load_json(dir, "case.json");
	char now[32], *logdir = NULL, *tc = NULL, *rs = NULL;
	snprintf(now, sizeof(now), "%lld", (long long)json_integer_value(json_object_get(cs, "capture_time_ms")));
	json_decref(cs);
	assert_true(asprintf(&logdir, "%s/logdir%s", dir, sfx) > 0);
	assert_true(asprintf(&tc, "%s/topic-config.txt", dir) > 0);
	assert_true(asprintf(&rs, "%s/remote-state.ndjson", dir) > 0);
	const char *kv[16];
	int k = 0;
	kv[k++] = "now";
	kv[k++] = now;
	kv[k++] = "topic-config";
	kv[k++] = tc;
	kv[k++] = "verify";
	kv[k++] = verify ? "true" : "false";
	if (remote_mode == 1) {
		kv[k++] = "remote-state";
		kv[k++] = rs;
	} else {
		kv[k++] = "remote-metadata";
		kv[k++] = remote_mode == 2 ? "auto" : "off";
	}
	kv[k] = NULL;
	int ec = -1;
	char *out = su_scan(logdir, SEGSCAN_FMT_NDJSON, &ec, kv);
	if (!out)
		fail_msg("%s: scan failed", dir);
	if (ec != 0)
		fail_msg("%s/logdir%s: exit code %d", dir, sfx, ec);
	json_t *all = json_object();
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		json_error_t e;
		json_t *o = json_loads(line, 0, &e);
		assert_non_null(o);
		char key[300];
		snprintf(key, sizeof(key), "%s-%lld", json_string_value(json_object_get(o, "topic")),
			 (long long)json_integer_value(json_object_get(o, "partition")));
		json_object_set_new(all, key, o);
	}
	free(out);
	free(logdir);
	free(tc);
	free(rs);
	return all;
}

static int64_t ji(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return !v || json_is_null(v) ? -1 : json_integer_value(v);
}

static size_t n_preallocated; /* preallocated segments compared, over every case */

/* DumpLogSegments stopped at a zero where a batch size belongs (FileLogInputStream's
 * "Found record size 0 smaller than minimum record overhead"): a zero tail. */
static bool dump_stopped_at_zeros(json_t *seg)
{
	const char *x = json_string_value(json_object_get(seg, "exception"));
	return x && strstr(x, "record size 0 smaller than minimum record overhead");
}

static size_t check_segments(const char *dir, const char *sfx, json_t *ours)
{
	char dname[32];
	snprintf(dname, sizeof(dname), "dump%s.json", sfx);
	json_t *dump = load_json(dir, dname);
	json_t *parts = json_object_get(dump, "partitions");
	size_t checked = 0, i, k;
	json_t *p, *seg;
	json_array_foreach(parts, i, p) {
		char key[300];
		snprintf(key, sizeof(key), "%s-%lld", json_string_value(json_object_get(p, "topic")),
			 (long long)ji(p, "partition"));
		json_t *op = json_object_get(ours, key);
		if (!op)
			fail_msg("%s: segscan did not report %s", dir, key);
		json_t *osegs = json_object_get(op, "segments");
		size_t oi = 0;
		json_array_foreach(json_object_get(p, "segments"), k, seg) {
			if (json_is_null(json_object_get(seg, "file_size")))
				continue; /* index files without a .log: not a segment */
			json_t *o = json_array_get(osegs, oi++);
			if (!o)
				fail_msg("%s %s: segscan has fewer segments", dir, key);
			/* Kafka's tool throws at a zero tail and reports what it read before it;
			 * Kafka's recovery truncates such a tail of a closed segment (so it is
			 * segscan's truncated_bytes), while the active segment of a broker with
			 * preallocate=true is that way by design: its size is what was appended
			 * (FileRecords' size, checked against the Size gauge below), no tail. */
			bool zeros = dump_stopped_at_zeros(seg);
			bool active = json_is_true(json_object_get(o, "active"));
			int64_t want_trunc = zeros && !active ? ji(seg, "file_size") - ji(seg, "valid_bytes")
							      : ji(seg, "trailing_invalid_bytes");
			bool want_prealloc = zeros && active && ji(seg, "file_size") > ji(seg, "valid_bytes");
			const char *what = NULL;
			if (json_is_true(json_object_get(o, "preallocated")) != want_prealloc) what = "preallocated";
			else if (ji(o, "base_offset") != ji(seg, "base_offset")) what = "base_offset";
			else if (ji(o, "last_offset") != ji(seg, "last_offset")) what = "last_offset";
			else if (ji(o, "size_bytes") != ji(seg, "file_size")) what = "size_bytes";
			else if (ji(o, "batches") != ji(seg, "batch_count")) what = "batches";
			else if (ji(o, "records") != ji(seg, "record_count")) what = "records";
			else if (ji(o, "valid_bytes") != ji(seg, "valid_bytes")) what = "valid_bytes";
			else if (ji(o, "truncated_bytes") != want_trunc) what = "truncated_bytes";
			else if ((ji(o, "crc_errors") == 0) != json_is_true(json_object_get(seg, "all_batches_valid")))
				what = "crc verdict";
			else if (ji(seg, "max_batch_timestamp") >= 0 &&
				 ji(o, "max_timestamp_ms") != ji(seg, "max_batch_timestamp"))
				what = "max_timestamp_ms";
			if (what)
				fail_msg("%s%s %s segment %lld: %s differs from DumpLogSegments", dir, sfx, key,
					 (long long)ji(seg, "base_offset"), what);
			checked++;
			n_preallocated += want_prealloc;
		}
		if (oi != json_array_size(osegs))
			fail_msg("%s %s: segscan has more segments than DumpLogSegments", dir, key);
	}
	json_decref(dump);
	return checked;
}

/*
 * The broker's Size gauge (UnifiedLog.size(): the sum of its segments' FileRecords sizes)
 * is each partition's size_bytes. The metadata log is left out: the controller appends to
 * it continually, so it grows between the gauge's read and the copy of the files.
 */
static size_t check_kafka_size(const char *dir, const char *sfx, json_t *ours)
{
	char jname[32];
	snprintf(jname, sizeof(jname), "jmx%s.json", sfx);
	json_t *jmx = load_json(dir, jname);
	size_t i, n = 0;
	json_t *m;
	json_array_foreach(json_object_get(jmx, "mbeans"), i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));
		const char *type = json_string_value(json_object_get(m, "type"));
		const char *topic = json_string_value(json_object_get(m, "topic"));
		if (!name || !type || !topic || strcmp(name, "Size") || strcmp(type, "Log") ||
		    !strcmp(topic, "__cluster_metadata"))
			continue;
		char key[300];
		snprintf(key, sizeof(key), "%s-%lld", topic, (long long)ji(m, "partition"));
		json_t *o = json_object_get(ours, key);
		if (!o)
			fail_msg("%s%s: segscan did not report %s", dir, sfx, key);
		int64_t gauge = ji(json_object_get(m, "attributes"), "Value");
		if (ji(o, "size_bytes") != gauge)
			fail_msg("%s%s %s: size_bytes %lld, the broker's Size gauge %lld", dir, sfx, key,
				 (long long)ji(o, "size_bytes"), (long long)gauge);
		n++;
	}
	json_decref(jmx);
	return n;
}

/* Both remote sources must give the same remote view of every partition. */
static void check_remote_sources_agree(const char *dir, json_t *from_state, json_t *from_topic)
{
	const char *key;
	json_t *a;
	json_object_foreach(from_state, key, a) {
		json_t *b = json_object_get(from_topic, key);
		assert_non_null(b);
		json_t *ra = json_object_get(a, "remote"), *rb = json_object_get(b, "remote");
		static const char *fields[] = { "seeded", "highest_offset", "segments", "size_bytes",
						"dangling_segments", "dangling_bytes" };
		for (size_t f = 0; f < 6; f++)
			if (!json_equal(json_object_get(ra, fields[f]), json_object_get(rb, fields[f])))
				fail_msg("%s %s: remote.%s from the metadata topic differs from Kafka's serde decode", dir,
					 key, fields[f]);
		static const char *objs[] = { "only_local", "copy_lag", "broker_copy_lag", "retention" };
		for (size_t f = 0; f < 4; f++)
			if (!json_equal(json_object_get(a, objs[f]), json_object_get(b, objs[f])))
				fail_msg("%s %s: %s differs between the two remote sources", dir, key, objs[f]);
	}
}

/* The true delete lag (issue 27) against the broker's RemoteDeleteLagSegments/Bytes: per topic,
 * the sum over its partitions' delete_lag is what the settled broker's expiration task left
 * in the gauge (a healthy broker: every due segment deleted, both 0). A topic without any
 * known delete_lag (not tiered, or a release without the gauge) is skipped. */
static void check_delete_lag(const char *dir, json_t *ours, json_t *jmx)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(jmx, "mbeans"), i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));
		json_t *topic = json_object_get(p, "topic");
		bool segs = name && !strcmp(name, "RemoteDeleteLagSegments");
		if (!name || (!segs && strcmp(name, "RemoteDeleteLagBytes")) || !json_is_string(topic))
			continue;
		const char *t = json_string_value(topic);
		int64_t gauge = ji(json_object_get(p, "attributes"), "Value"), lag = 0;
		bool any = false;
		const char *key;
		json_t *o;
		json_object_foreach(ours, key, o) {
			if (strcmp(json_string_value(json_object_get(o, "topic")), t))
				continue;
			json_t *dl = json_object_get(o, "delete_lag");
			if (!dl || json_is_null(dl))
				continue;
			any = true;
			lag += ji(dl, segs ? "segments" : "size_bytes");
		}
		if (any && gauge != lag)
			fail_msg("%s topic %s: broker %s %lld, segscan's delete_lag %lld", dir, t, name, (long long)gauge,
				 (long long)lag);
	}
}

static void check_broker_view(const char *dir, json_t *ours)
{
	json_t *admin = load_json(dir, "admin.json"), *jmx = load_json(dir, "jmx.json");
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(admin, "partitions"), i, p) {
		char key[300];
		snprintf(key, sizeof(key), "%s-%lld", json_string_value(json_object_get(p, "topic")),
			 (long long)ji(p, "partition"));
		json_t *o = json_object_get(ours, key);
		if (!o || !json_is_true(json_object_get(o, "remote_storage")))
			continue;
		int64_t broker = ji(p, "latest_tiered_offset");
		json_t *r = json_object_get(o, "remote");
		if (broker >= 0) {
			if (!json_is_true(json_object_get(r, "seeded")) || ji(r, "highest_offset") != broker)
				fail_msg("%s %s: highest offset in remote storage %lld, broker says %lld", dir, key,
					 (long long)ji(r, "highest_offset"), (long long)broker);
		}
	}
	/* copy lag per topic: the gauge is a sum over the topic's partitions */
	json_array_foreach(json_object_get(jmx, "mbeans"), i, p) {
		const char *name = json_string_value(json_object_get(p, "name"));
		json_t *topic = json_object_get(p, "topic");
		if (!name || strcmp(name, "RemoteCopyLagSegments") || !json_is_string(topic))
			continue;
		const char *t = json_string_value(topic);
		int64_t gauge = ji(json_object_get(p, "attributes"), "Value");
		int64_t lag = 0, phantom = 0;
		bool any = false;
		const char *key;
		json_t *o;
		json_object_foreach(ours, key, o) {
			if (strcmp(json_string_value(json_object_get(o, "topic")), t))
				continue;
			json_t *cl = json_object_get(o, "copy_lag");
			if (json_is_null(cl))
				continue;
			any = true;
			lag += ji(cl, "segments");
			size_t k;
			json_t *f;
			json_array_foreach(json_object_get(o, "findings"), k, f)
				if (!strcmp(json_string_value(json_object_get(f, "code")), "PHANTOM_COPY_LAG"))
					phantom += ji(f, "segments");
		}
		if (!any)
			continue;
		if (gauge != lag && gauge != lag + phantom)
			fail_msg("%s topic %s: broker RemoteCopyLagSegments %lld is neither segscan's copy lag %lld "
				 "nor explained by PHANTOM_COPY_LAG (+%lld)", dir, t, (long long)gauge, (long long)lag,
				 (long long)phantom);
	}
	check_delete_lag(dir, ours, jmx);
	json_decref(admin);
	json_decref(jmx);
}

static void test_against_kafka(void **state)
{
	DIR *d = opendir(FIXTURES);
	if (!d)
		skip();
	struct dirent *e;
	size_t cases = 0, segments = 0, logdirs = 0, sized = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *dir = NULL;
		assert_true(asprintf(&dir, FIXTURES "/%s", e->d_name) > 0);
		struct stat st;
		if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			free(dir);
			continue;
		}
		/* one log dir (logdir/), or one per node (multi-broker/: logdir-1, -2, -3) */
		static const char *const sfxs[] = { "", "-1", "-2", "-3" };
		bool multi = false;
		for (size_t l = 0; l < 4; l++) {
			const char *sfx = sfxs[l];
			char *ld = NULL;
			assert_true(asprintf(&ld, "%s/logdir%s", dir, sfx) > 0);
			bool there = stat(ld, &st) == 0 && S_ISDIR(st.st_mode);
			free(ld);
			if (!there)
				continue;
			multi = *sfx != 0;
			json_t *verify = scan_case(dir, sfx, true, 2);
			segments += check_segments(dir, sfx, verify);
			sized += check_kafka_size(dir, sfx, verify);
			/* the remote sources agree only where this log dir holds every metadata
			 * partition: on one node of a cluster the topic's view is partial by design */
			if (!multi && file_nonempty(dir, "remote-state.ndjson")) {
				json_t *a = scan_case(dir, sfx, false, 1), *b = scan_case(dir, sfx, false, 2);
				check_remote_sources_agree(dir, a, b);
				check_broker_view(dir, b);
				json_decref(a);
				json_decref(b);
			}
			/* the fast path agrees with --verify on every offset Kafka reported, and
			 * on what is preallocated and what Kafka's size is */
			json_t *fast = scan_case(dir, sfx, false, 2);
			sized += check_kafka_size(dir, sfx, fast);
			const char *key;
			json_t *o;
			json_object_foreach(verify, key, o) {
				json_t *f = json_object_get(fast, key);
				assert_true(json_equal(json_object_get(o, "log_end_offset"), json_object_get(f, "log_end_offset")));
				assert_true(json_equal(json_object_get(o, "size_bytes"), json_object_get(f, "size_bytes")));
				size_t k;
				json_t *sv;
				json_array_foreach(json_object_get(o, "segments"), k, sv) {
					json_t *sf = json_array_get(json_object_get(f, "segments"), k);
					static const char *const same[] = { "last_offset", "end_offset", "preallocated",
									    "valid_bytes", "truncated_bytes" };
					for (size_t q = 0; q < sizeof(same) / sizeof(*same); q++)
						if (!json_equal(json_object_get(sv, same[q]), json_object_get(sf, same[q])))
							fail_msg("%s%s %s segment %zu: %s differs between the fast path and "
								 "--verify", dir, sfx, key, k, same[q]);
				}
			}
			json_decref(fast);
			json_decref(verify);
			logdirs++;
		}
		free(dir);
		cases++;
	}
	closedir(d);
	printf("conformance: %zu Kafka cases (%zu log dirs), %zu segments compared with DumpLogSegments "
	       "(%zu preallocated), %zu partition sizes with the Size gauge\n",
	       cases, logdirs, segments, n_preallocated, sized);
	assert_true(cases >= 5);
	assert_true(segments >= 50);
	assert_true(sized >= 50);
	assert_true(n_preallocated >= 1); /* cluster-meta-live: prealloc-0 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_kafka),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
