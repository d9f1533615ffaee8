/*
 * What a new operator hits first (issue 20), on the real brokers' log dirs of
 * tests/fixtures/kafka: every number the report gives is true, and what it cannot know it
 * says is unknown.
 *  - item 1: a compacted topic (cleanup.policy=compact from the metadata log's
 *    DYNAMIC_TOPIC_CONFIG) gets no size or time retention a week on; the internal
 *    topics Kafka creates compacted get no prediction from the default policy either;
 *  - item 2: retention.total counts a segment that size and time retention both delete
 *    once, with local retention, and the table's RETENTION column shows that union;
 *  - item 3: a partition whose tiering nothing settles (no metadata log, no config) has
 *    only_local null, '?' in the table and no made-up remote.storage.enable;
 *  - item 11: a --topic or --partition that matches nothing says so; --partition=TOPIC-N;
 *  - item 12: the typed twins of delete_segments, ref null, and a CRC_MISMATCH naming the
 *    batch's base offset and byte position as Kafka's DumpLogSegments gives them.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

/* ndjson of a scan (the extra arguments given as a string) -> object keyed by "topic-N" */
static json_t *scan(const char *args)
{
	char *out = NULL;
	int rc = tu_run(&out, "%s scan -q -f ndjson %s", tu_segscan(), args);
	if (rc != 0 && rc != 1)
		fail_msg("scan %s: exit %d", args, rc);
	json_t *all = json_object();
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		json_error_t e;
		json_t *o = json_loads(l, 0, &e);
		if (!o)
			fail_msg("not json: %s", l);
		char key[300];
		snprintf(key, sizeof(key), "%s-%lld", json_string_value(json_object_get(o, "topic")),
			 (long long)json_integer_value(json_object_get(o, "partition")));
		json_object_set_new(all, key, o);
	}
	free(out);
	return all;
}

static json_t *get(json_t *o, const char *a, const char *b)
{
	json_t *x = json_object_get(o, a);
	return b ? json_object_get(x, b) : x;
}

static json_t *part(json_t *all, const char *key)
{
	json_t *p = json_object_get(all, key);
	if (!p)
		fail_msg("no partition %s in the report", key);
	return p;
}

/* ---- item 1 ---- */
static void test_compacted_no_retention(void **state)
{
	(void)state;
	char args[512];
	/* a week and a day after the capture: every closed segment is past retention.ms */
	snprintf(args, sizeof(args), "--now=%lld %s/cluster-meta/logdir", now_of("cluster-meta") + 8 * 86400000LL,
		 FIXTURES);
	json_t *all = scan(args);
	json_t *p = part(all, "compacted-0");
	assert_string_equal(json_string_value(get(get(p, "config", "cleanup.policy"), "value", NULL)), "compact");
	assert_string_equal(json_string_value(get(get(p, "config", "cleanup.policy"), "source", NULL)),
			    "DYNAMIC_TOPIC_CONFIG");
	json_t *ret = json_object_get(p, "retention");
	static const char *const kinds[] = { "size", "time" };
	for (int i = 0; i < 2; i++) {
		json_t *k = json_object_get(ret, kinds[i]);
		if (json_is_true(json_object_get(k, "evaluated")))
			fail_msg("compacted-0: retention.%s evaluated on a compact topic", kinds[i]);
		assert_non_null(strstr(json_string_value(json_object_get(k, "reason")), "cleanup.policy"));
		assert_int_equal(json_array_size(json_object_get(k, "delete_segments")), 0);
	}
	assert_int_equal(json_array_size(get(get(ret, "total", NULL), "delete_segments", NULL)), 0);
	/* a topic with delete, the same week on: predicted as before */
	json_t *prealloc = json_object_get(get(part(all, "prealloc-0"), "retention", NULL), "time");
	assert_true(json_is_true(json_object_get(prealloc, "evaluated")));
	json_decref(all);

	/* no metadata log: __consumer_offsets and __transaction_state (compacted by Kafka at
	 * creation) are not predicted from the default cleanup.policy, delete */
	snprintf(args, sizeof(args), "--now=%lld %s/txn/logdir", now_of("txn") + 8 * 86400000LL, FIXTURES);
	all = scan(args);
	static const char *const internal[] = { "__consumer_offsets-0", "__transaction_state-0" };
	for (int i = 0; i < 2; i++) {
		json_t *t = json_object_get(get(part(all, internal[i]), "retention", NULL), "time");
		if (json_is_true(json_object_get(t, "evaluated")))
			fail_msg("%s: time retention predicted from the default cleanup.policy", internal[i]);
		assert_non_null(strstr(json_string_value(json_object_get(t, "reason")), "compact"));
	}
	json_decref(all);
}

/* ---- item 2 ---- */
static void test_retention_union(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("union"), *tc = NULL, args[1024], *out = NULL;
	assert_non_null(root);
	assert_true(asprintf(&tc, "%s/topic-config.txt", root) > 0);
	/* limits that make size and time retention delete the same remote segments, and local
	 * retention (-2: retention.ms) the uploaded local ones */
	const char *cfg = "tiered retention.ms=1 retention.bytes=1 remote.storage.enable=true\n"
			  "single-record remote.storage.enable=true\n* remote.storage.enable=false\n";
	assert_int_equal(tu_write_file(tc, cfg, strlen(cfg)), 0);
	/* no metadata log here: without the release, local retention at -2 is unknown (Kafka
	 * 3.6.0 .. 3.8.0 apply none then, KAFKA-17360), and so is the union */
	snprintf(args, sizeof(args), "--topic-config=%s --now=%lld %s/tiered/logdir", tc, now_of("tiered") + 86400000LL,
		 FIXTURES);
	json_t *all = scan(args);
	json_t *ret = get(part(all, "tiered-0"), "retention", NULL);
	assert_false(json_is_true(get(get(ret, "local", NULL), "evaluated", NULL)));
	assert_non_null(strstr(json_string_value(get(get(ret, "local", NULL), "reason", NULL)), "KAFKA-17360"));
	assert_false(json_is_true(get(get(ret, "total", NULL), "evaluated", NULL)));
	assert_true(json_is_null(get(get(ret, "total", NULL), "delete_bytes", NULL)));
	json_decref(all);
	/* the broker that wrote the fixture was 4.4.0 (case.json): -2 is retention.ms there */
	snprintf(args, sizeof(args), "--kafka-version=4.4.0 --topic-config=%s --now=%lld %s/tiered/logdir", tc,
		 now_of("tiered") + 86400000LL, FIXTURES);
	all = scan(args);
	ret = get(part(all, "tiered-0"), "retention", NULL);
	/* the union, worked out here from the kinds' own lists */
	json_t *ids = json_object(), *offs = json_object();
	size_t per_kind = 0;
	static const char *const kinds[] = { "size", "time", "local" };
	for (int i = 0; i < 3; i++) {
		json_t *k = json_object_get(ret, kinds[i]), *v;
		size_t j;
		per_kind += json_array_size(json_object_get(k, "delete_segments"));
		json_array_foreach(json_object_get(k, "delete_segment_ids"), j, v)
			json_object_set_new(ids, json_string_value(v), json_true());
		json_array_foreach(json_object_get(k, "delete_base_offsets"), j, v) {
			char n[32];
			snprintf(n, sizeof(n), "%lld", (long long)json_integer_value(v));
			json_object_set_new(offs, n, json_true());
		}
	}
	json_t *tot = json_object_get(ret, "total");
	size_t distinct = json_object_size(ids) + json_object_size(offs);
	assert_true(json_object_size(ids) > 0 && json_object_size(offs) > 0);
	assert_true(per_kind > distinct);   /* the shape of the bug: kinds overlap */
	assert_int_equal(json_array_size(json_object_get(tot, "delete_segments")), distinct);
	assert_int_equal(json_array_size(json_object_get(tot, "delete_segment_ids")), json_object_size(ids));
	assert_int_equal(json_array_size(json_object_get(tot, "delete_base_offsets")), json_object_size(offs));
	json_int_t lb = json_integer_value(json_object_get(tot, "local_bytes_freed"));
	json_int_t rb = json_integer_value(json_object_get(tot, "remote_bytes_freed"));
	assert_true(lb > 0 && rb > 0);
	assert_int_equal(json_integer_value(json_object_get(tot, "delete_bytes")), lb + rb);
	/* remote bytes: the longest remote walk's, which holds the other's segments */
	json_int_t sb = json_integer_value(get(get(ret, "size", NULL), "delete_bytes", NULL));
	json_int_t tb = json_integer_value(get(get(ret, "time", NULL), "delete_bytes", NULL));
	assert_int_equal(rb, sb > tb ? sb : tb);
	assert_int_equal(lb, json_integer_value(get(get(ret, "local", NULL), "delete_bytes", NULL)));
	/* the table's RETENTION column: the union, not the sum of the kinds */
	assert_int_equal(tu_run(&out, "%s scan -q %s | grep '^tiered '", tu_segscan(), args), 0);
	char want[32];
	snprintf(want, sizeof(want), " %zu seg/", distinct);
	if (!strstr(out, want))
		fail_msg("RETENTION does not show the %zu distinct segments:\n%s", distinct, out);
	free(out);
	json_decref(ids);
	json_decref(offs);
	json_decref(all);
	tu_run(NULL, "rm -rf %s", root);
	free(tc);
	free(root);
}

/* ---- item 3 ---- */
static void test_unknown_tiering(void **state)
{
	(void)state;
	/* plain/: no metadata log here (metadata.log.dir was elsewhere), no --topic-config */
	json_t *all = scan(FIXTURES "/plain/logdir");
	const char *key;
	json_t *p;
	size_t unknown = 0;
	json_object_foreach(all, key, p) {
		json_t *rs = json_object_get(p, "remote_storage");
		if (!json_is_null(rs))
			continue;
		unknown++;
		if (!json_is_null(json_object_get(p, "only_local")))
			fail_msg("%s: remote_storage null but only_local is given", key);
		size_t i;
		json_t *sg;
		json_array_foreach(json_object_get(p, "segments"), i, sg)
			assert_true(json_is_null(json_object_get(sg, "only_local")));
		json_t *rse = get(get(p, "config", NULL), "remote.storage.enable", NULL);
		assert_true(json_is_null(json_object_get(rse, "source")));
		if (!json_is_null(json_object_get(rse, "value")))
			fail_msg("%s: remote.storage.enable shown as \"%s\" with no source", key,
				 json_string_value(json_object_get(rse, "value")));
	}
	assert_true(unknown >= 20);   /* every user partition; the internal ones are settled */
	assert_true(json_is_false(get(part(all, "__remote_log_metadata-0"), "remote_storage", NULL)));
	assert_false(json_is_null(get(part(all, "__remote_log_metadata-0"), "only_local", NULL)));
	json_decref(all);

	/* the table: '?' where the json has null, and the topic total too */
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan -q %s/plain/logdir", tu_segscan(), FIXTURES), 0);
	const char *row = strstr(out, "\nplain-v2 ");
	assert_non_null(row);
	char line[512];
	sscanf(row + 1, "%511[^\n]", line);
	/* ONLY-LOCAL, REMOTE, COPY LAG, BROKER SAYS, and RETENTION: with the tiering unknown,
	 * what time retention (7 days by default) deletes depends on it */
	int q = 0;
	for (char *c = line; (c = strstr(c, " ? ")); c++)
		q++;
	if (q != 5)
		fail_msg("want ? in ONLY-LOCAL, REMOTE, COPY LAG, BROKER SAYS and RETENTION: \"%s\"", line);
	const char *tot = strstr(strstr(out, "\nmany-partitions "), "(topic total)");
	assert_non_null(tot);
	sscanf(tot, "%511[^\n]", line);
	if (!strstr(line, " ? "))
		fail_msg("the topic total over unknown members is not unknown: \"%s\"", line);
	free(out);
}

/* ---- an internal topic's creation config: __remote_log_metadata's retention.ms ---- */
static void test_rlmm_retention_not_broker_default(void **state)
{
	(void)state;
	/* a real broker's metadata log has what Kafka set at creation: retention.ms=-1
	 * (remote.log.metadata.topic.retention.ms' default) as the topic's own config */
	json_t *all = scan(FIXTURES "/cluster-meta/logdir");
	json_t *p = part(all, "__remote_log_metadata-0");
	json_t *rm = get(get(p, "config", NULL), "retention.ms", NULL);
	assert_string_equal(json_string_value(json_object_get(rm, "value")), "-1");
	assert_string_equal(json_string_value(json_object_get(rm, "source")), "DYNAMIC_TOPIC_CONFIG");
	assert_string_equal(json_string_value(get(get(p, "retention", "time"), "reason", NULL)), "no limit");
	json_decref(all);

	/* without it: unknown, not the broker's 7 days; its one active segment is due under
	 * no limit, so nothing is due (known), with no limit printed */
	all = scan(FIXTURES "/plain/logdir");
	p = part(all, "__remote_log_metadata-0");
	rm = get(get(p, "config", NULL), "retention.ms", NULL);
	assert_true(json_is_null(json_object_get(rm, "value")));
	assert_true(json_is_null(json_object_get(rm, "source")));
	json_t *t = get(p, "retention", "time");
	assert_true(json_is_true(json_object_get(t, "evaluated")));
	assert_true(json_is_null(json_object_get(t, "limit_ms")));
	assert_int_equal(json_array_size(json_object_get(t, "delete_segments")), 0);
	json_decref(all);

	/* a partition of closed segments (a real broker's, under this name), a year on: what
	 * the 7-day default would delete is not predicted */
	char *root = tu_mkdtemp("rlmm"), *out = NULL, args[1024];
	assert_non_null(root);
	assert_int_equal(tu_run(&out, "cp -r %s/plain/logdir/plain-v2-0 %s/__remote_log_metadata-0", FIXTURES, root), 0);
	free(out);
	long long now = now_of("plain") + 365 * 86400000LL;
	snprintf(args, sizeof(args), "--now=%lld %s", now, root);
	all = scan(args);
	p = part(all, "__remote_log_metadata-0");
	t = get(p, "retention", "time");
	assert_true(json_is_false(json_object_get(t, "evaluated")));
	assert_non_null(strstr(json_string_value(json_object_get(t, "reason")), "remote.log.metadata.topic.retention.ms"));
	assert_true(json_is_null(json_object_get(t, "limit_ms")));
	assert_int_equal(json_array_size(json_object_get(t, "delete_segments")), 0);
	assert_true(json_is_false(get(get(p, "retention", "total"), "evaluated", NULL)));
	json_decref(all);
	/* the table says '?' for it */
	snprintf(args, sizeof(args), "%s scan -q --now=%lld %s", tu_segscan(), now, root);
	assert_true(tu_run(&out, "%s", args) <= 1);
	const char *row = strstr(out, "\n__remote_log_metadata ");
	assert_non_null(row);
	char line[512];
	sscanf(row + 1, "%511[^\n]", line);
	assert_non_null(strstr(line, " ? "));
	free(out);
	/* a --topic-config line gives it: evaluated with it */
	char *tc = NULL;
	assert_true(asprintf(&tc, "%s/topics.conf", root) > 0);
	assert_int_equal(tu_write_file(tc, "__remote_log_metadata retention.ms=86400000\n", 44), 0);
	snprintf(args, sizeof(args), "--topic-config=%s --now=%lld %s", tc, now, root);
	all = scan(args);
	t = get(part(all, "__remote_log_metadata-0"), "retention", "time");
	assert_true(json_is_true(json_object_get(t, "evaluated")));
	assert_true(json_array_size(json_object_get(t, "delete_segments")) > 0);
	json_decref(all);
	tu_run(NULL, "rm -rf %s", root);
	free(tc);
	free(root);
}

/* ---- item 12 ---- */
static void test_jq_fields(void **state)
{
	(void)state;
	char *root = tu_mkdtemp("crc"), *out = NULL;
	assert_non_null(root);
	/* one byte inside the second batch of 00000000000000000015.log: DumpLogSegments gives
	 * it baseOffset 20 at position 324 (dump.json), its records start at 324 + 61 */
	assert_int_equal(tu_run(&out, "cp -r %s/plain/logdir/plain-v2-0 %s/ && printf '\\377' | "
				      "dd of=%s/plain-v2-0/00000000000000000015.log bs=1 seek=424 conv=notrunc 2>/dev/null",
				FIXTURES, root, root), 0);
	free(out);
	json_error_t e;
	json_t *dump = json_load_file(FIXTURES "/plain/dump.json", 0, &e);
	assert_non_null(dump);
	json_int_t base = -1, pos = -1;
	size_t i, k;
	json_t *dp, *sg;
	json_array_foreach(json_object_get(dump, "partitions"), i, dp) {
		if (strcmp(json_string_value(json_object_get(dp, "dir")), "plain-v2-0"))
			continue;
		json_array_foreach(json_object_get(dp, "segments"), k, sg) {
			if (json_integer_value(json_object_get(sg, "base_offset")) != 15)
				continue;
			json_t *b = json_array_get(json_object_get(sg, "batches"), 1);
			base = json_integer_value(json_object_get(b, "base_offset"));
			pos = json_integer_value(json_object_get(b, "position"));
			assert_true(pos <= 424 && 424 < pos + json_integer_value(json_object_get(b, "size")));
		}
	}
	json_decref(dump);
	assert_true(base >= 0 && pos >= 0);
	char args[512];
	snprintf(args, sizeof(args), "--verify %s", root);
	json_t *all = scan(args);
	json_t *p = part(all, "plain-v2-0"), *f = NULL, *x;
	json_array_foreach(json_object_get(p, "findings"), i, x)
		if (!strcmp(json_string_value(json_object_get(x, "code")), "CRC_MISMATCH"))
			f = x;
	assert_non_null(f);
	assert_true(json_is_null(json_object_get(f, "ref")));   /* no ticket: null, not "" */
	const char *m = json_string_value(json_object_get(f, "message"));
	char want[96];
	snprintf(want, sizeof(want), "base offset %lld, byte position %lld", (long long)base, (long long)pos);
	if (!strstr(m, want))
		fail_msg("CRC_MISMATCH does not name the batch (%s): %s", want, m);
	/* the typed twins sit beside delete_segments in every kind */
	static const char *const kinds[] = { "size", "time", "local", "total" };
	for (int j = 0; j < 4; j++) {
		json_t *kk = get(get(p, "retention", NULL), kinds[j], NULL);
		assert_true(json_is_array(json_object_get(kk, "delete_segments")));
		assert_true(json_is_array(json_object_get(kk, "delete_segment_ids")));
		assert_true(json_is_array(json_object_get(kk, "delete_base_offsets")));
	}
	json_decref(all);
	tu_run(NULL, "rm -rf %s", root);
	free(root);
}

/* ---- item 11: filters that match nothing say so; --partition ---- */
static void test_filters(void **state)
{
	(void)state;
	char *out = NULL;
	/* --topic matching nothing: no partition, a warning on stderr, exit 0 (the scan) */
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --topic='nope.*' %s/plain/logdir 2>/dev/null", tu_segscan(),
				FIXTURES), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f json --topic='nope.*' %s/plain/logdir 2>&1 >/dev/null",
				tu_segscan(), FIXTURES), 0);
	assert_non_null(strstr(out, "--topic=nope.* matches no topic in the scanned log dirs"));
	free(out);
	/* one that matches: no warning */
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --topic='plain.*' %s/plain/logdir 2>&1 >/dev/null",
				tu_segscan(), FIXTURES), 0);
	assert_null(strstr(out, "matches no"));
	free(out);

	/* --partition, repeatable; with --topic both must match */
	json_t *all = scan("--partition=plain-v2-0 --partition=many-partitions-19 " FIXTURES "/plain/logdir");
	assert_int_equal(json_object_size(all), 2);
	part(all, "plain-v2-0");
	part(all, "many-partitions-19");
	json_decref(all);
	all = scan("--partition=plain-v2-0 --partition=many-partitions-19 --topic='plain.*' " FIXTURES "/plain/logdir");
	assert_int_equal(json_object_size(all), 1);
	part(all, "plain-v2-0");
	json_decref(all);
	assert_int_equal(tu_run(&out, "%s scan -q -f ndjson --partition=plain-v2-0 --partition=plain-v2-7 "
				      "%s/plain/logdir 2>&1 >/dev/null", tu_segscan(), FIXTURES), 0);
	assert_non_null(strstr(out, "--partition=plain-v2-7: no such partition in the scanned log dirs"));
	assert_null(strstr(out, "plain-v2-0:"));
	free(out);
	/* a malformed one is a usage error before any disk is read */
	assert_int_equal(tu_run(&out, "%s scan -q --partition=plain-v2 /nonexistent 2>&1", tu_segscan()), 2);
	assert_non_null(strstr(out, "--partition"));
	free(out);
	/* the table and prom honour it too */
	assert_int_equal(tu_run(&out, "%s scan -q --partition=many-partitions-3 %s/plain/logdir", tu_segscan(),
				FIXTURES), 0);
	assert_non_null(strstr(out, "\nmany-partitions "));
	assert_null(strstr(out, "\nplain-v2 "));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compacted_no_retention),
		cmocka_unit_test(test_retention_union),
		cmocka_unit_test(test_unknown_tiering),
		cmocka_unit_test(test_rlmm_retention_not_broker_default),
		cmocka_unit_test(test_jq_fields),
		cmocka_unit_test(test_filters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
