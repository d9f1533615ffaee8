/*
 * The cluster context against real Kafka brokers (tests/fixtures/kafka/cluster-meta*,
 * multi-broker: written by Kafka 4.4.0 and 4.3.1, read back by Kafka's own Admin API):
 * - every topic's effective config (value and source) equals DescribeConfigs;
 * - topic ids and replica assignment equal DescribeTopics, `here` is this node;
 * - summary.broker: node id, cluster id, the release line of the broker that ran, and the
 *   finalized metadata.version equal what the broker said;
 * - the findings differ exactly where the releases differ: 4.3.1 has the KAFKA-20977
 *   phantom lag (its RemoteCopyLagSegments gauge says so), 4.4.0 has not;
 * - a compacted topic after cleaning raises no BASE_OFFSET_MISMATCH; the metadata log is
 *   listed with retention not evaluated;
 * - multi-broker: on node 1, exactly the tiered partitions whose __remote_log_metadata
 *   partition lives on another node are REMOTE_STATE_UNKNOWN (Kafka's own partitioner,
 *   case.json placement), the others have the broker's LATEST_TIERED offset;
 * - a tiered log dir without its remote metadata is never shown as local-only.
 */
#include <jansson.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "testutil.h"

#define FIXTURES "tests/fixtures/kafka"

static json_t *load(const char *dir, const char *name)
{
	char *p = NULL;
	json_error_t e;
	assert_true(asprintf(&p, "%s/%s/%s", FIXTURES, dir, name) > 0);
	json_t *j = json_load_file(p, 0, &e);
	if (!j)
		fail_msg("%s: %s", p, e.text);
	free(p);
	return j;
}

static long long now_of(const char *dir)
{
	json_t *c = load(dir, "case.json");
	long long n = (long long)json_integer_value(json_object_get(c, "capture_time_ms"));
	json_decref(c);
	return n;
}

/* segscan scan -f json over one fixture log dir, with extra options; exit code in *rc */
static json_t *scan(const char *dir, const char *logdir, const char *props, const char *extra, int *rc)
{
	char *out = NULL, *pp = NULL;
	if (props)
		assert_true(asprintf(&pp, "--server-properties=%s/%s/%s", FIXTURES, dir, props) > 0);
	int r = tu_run(&out, "%s scan -q -f json --now=%lld %s %s %s/%s/%s 2>/dev/null", tu_segscan(), now_of(dir),
		       pp ? pp : "", extra ? extra : "", FIXTURES, dir, logdir);
	free(pp);
	if (rc)
		*rc = r;
	json_error_t e;
	json_t *j = json_loads(out, 0, &e);
	if (!j)
		fail_msg("%s: segscan output is not JSON (%s): %.300s", dir, e.text, out);
	free(out);
	return j;
}

static json_t *part(json_t *report, const char *topic, int partition)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(report, "partitions"), i, p) {
		if (!strcmp(json_string_value(json_object_get(p, "topic")), topic) &&
		    json_integer_value(json_object_get(p, "partition")) == partition)
			return p;
	}
	return NULL;
}

static int count_code(json_t *p, const char *code)
{
	size_t i;
	json_t *f;
	int n = 0;
	json_array_foreach(json_object_get(p, "findings"), i, f)
		n += !strcmp(json_string_value(json_object_get(f, "code")), code);
	return n;
}

static const char *finding_message(json_t *p, const char *code)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(p, "findings"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "code")), code))
			return json_string_value(json_object_get(f, "message"));
	return NULL;
}

static const char *const KEYS[] = { "retention.ms", "retention.bytes", "local.retention.ms", "local.retention.bytes",
				    "remote.storage.enable", "cleanup.policy", "segment.bytes" };

/* Every topic Kafka described: each contract key's value and source, and its assignment. */
static void check_configs_and_assignment(const char *dir)
{
	json_t *cl = load(dir, "cluster.json");
	json_t *rep = scan(dir, "logdir", "server.properties", NULL, NULL);
	json_t *dcs = json_object_get(json_object_get(cl, "describe_configs"), "topics");
	json_t *dts = json_object_get(cl, "describe_topics");
	const char *topic;
	json_t *want;
	int compared = 0, parts = 0;
	json_object_foreach(dcs, topic, want) {
		json_t *dt = json_object_get(dts, topic);
		assert_non_null(dt);
		size_t i;
		json_t *dp;
		json_array_foreach(json_object_get(dt, "partitions"), i, dp) {
			int pn = (int)json_integer_value(json_object_get(dp, "partition"));
			json_t *p = part(rep, topic, pn);
			if (!p)
				continue;   /* a topic deleted before the copy (its directory is gone) */
			parts++;
			json_t *cfg = json_object_get(p, "config");
			for (size_t k = 0; k < sizeof(KEYS) / sizeof(KEYS[0]); k++) {
				json_t *ours = json_object_get(cfg, KEYS[k]), *theirs = json_object_get(want, KEYS[k]);
				assert_non_null(theirs);
				if (!ours)
					fail_msg("%s %s-%d: no config %s", dir, topic, pn, KEYS[k]);
				const char *ov = json_string_value(json_object_get(ours, "value"));
				const char *os = json_string_value(json_object_get(ours, "source"));
				const char *tv = json_string_value(json_object_get(theirs, "value"));
				const char *ts = json_string_value(json_object_get(theirs, "source"));
				if (!ov || !os || strcmp(ov, tv) || strcmp(os, ts))
					fail_msg("%s %s-%d %s: segscan %s (%s), DescribeConfigs %s (%s)", dir, topic, pn,
						 KEYS[k], ov ? ov : "null", os ? os : "null", tv, ts);
				compared++;
			}
			/* identity and assignment */
			const char *tid = json_string_value(json_object_get(p, "topic_id"));
			assert_non_null(tid);
			assert_string_equal(tid, json_string_value(json_object_get(dt, "topic_id")));
			json_t *as = json_object_get(p, "assignment");
			if (!json_is_object(as))
				fail_msg("%s %s-%d: no assignment", dir, topic, pn);
			assert_true(json_equal(json_object_get(as, "replicas"), json_object_get(dp, "replicas")));
			assert_true(json_is_true(json_object_get(as, "here")));
			assert_int_equal(count_code(p, "STRAY_PARTITION"), 0);
		}
	}
	assert_true(parts >= 9);
	assert_int_equal(compared, parts * 7);

	/* who and what the broker is */
	json_t *b = json_object_get(json_object_get(rep, "summary"), "broker");
	assert_int_equal(json_integer_value(json_object_get(b, "node_id")), json_integer_value(json_object_get(cl, "node_id")));
	assert_string_equal(json_string_value(json_object_get(b, "cluster_id")),
			    json_string_value(json_object_get(cl, "cluster_id")));
	const char *ran = json_string_value(json_object_get(cl, "broker_version"));   /* "4.4.0" */
	const char *line = json_string_value(json_object_get(b, "kafka_version"));      /* "4.4" */
	assert_non_null(line);
	assert_true(strlen(line) >= 3 && strncmp(ran, line, strlen(line)) == 0 && ran[strlen(line)] == '.');
	assert_string_equal(json_string_value(json_object_get(b, "kafka_version_source")), "metadata log");
	json_t *mv = json_object_get(json_object_get(json_object_get(cl, "features"), "finalized"), "metadata.version");
	assert_int_equal(json_integer_value(json_object_get(b, "metadata_version_level")),
			 json_integer_value(json_object_get(mv, "max_version_level")));

	/* the compacted topic after cleaning: its first batch above the file name is normal */
	json_t *cp = part(rep, "compacted", 0);
	assert_non_null(cp);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(cp, "config"),
									   "cleanup.policy"), "value")), "compact");
	assert_int_equal(count_code(cp, "BASE_OFFSET_MISMATCH"), 0);
	/* the metadata log is disk use, never under topic retention */
	json_t *ml = part(rep, "__cluster_metadata", 0);
	assert_non_null(ml);
	json_t *ret = json_object_get(ml, "retention");
	assert_true(json_is_false(json_object_get(json_object_get(ret, "size"), "evaluated")));
	assert_true(json_is_false(json_object_get(json_object_get(ret, "time"), "evaluated")));
	json_decref(rep);
	json_decref(cl);
}

static void test_configs_4_4(void **state)
{
	(void)state;
	check_configs_and_assignment("cluster-meta");
}

static void test_configs_4_3(void **state)
{
	(void)state;
	check_configs_and_assignment("cluster-meta-4.3.1");
}

/* The broker's own RemoteCopyLagSegments for a topic (jmx.json), -1 if absent. */
static long long jmx_copy_lag(const char *dir, const char *topic)
{
	json_t *j = load(dir, "jmx.json");
	size_t i;
	json_t *m;
	long long v = -1;
	json_array_foreach(json_object_get(j, "mbeans"), i, m) {
		const char *n = json_string_value(json_object_get(m, "name"));
		const char *t = json_string_value(json_object_get(m, "topic"));
		if (n && t && !strcmp(n, "RemoteCopyLagSegments") && !strcmp(t, topic))
			v = (long long)json_integer_value(json_object_get(json_object_get(m, "attributes"), "Value"));
	}
	json_decref(j);
	return v;
}

/* KAFKA-20977: the findings follow the release the metadata log names. */
static void test_findings_follow_release(void **state)
{
	(void)state;
	json_t *r44 = scan("cluster-meta", "logdir", "server.properties", NULL, NULL);
	json_t *r43 = scan("cluster-meta-4.3.1", "logdir", "server.properties", NULL, NULL);
	json_t *p44 = part(r44, "single-record", 0), *p43 = part(r43, "single-record", 0);
	assert_non_null(p44);
	assert_non_null(p43);
	/* the brokers' own gauges: 0 on 4.4.0, the phantom 1 on 4.3.1 */
	assert_int_equal(jmx_copy_lag("cluster-meta", "single-record"), 0);
	assert_int_equal(jmx_copy_lag("cluster-meta-4.3.1", "single-record"), 1);
	/* broker_copy_lag is what each broker reports */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p44, "broker_copy_lag"), "segments")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p43, "broker_copy_lag"), "segments")), 1);
	assert_int_equal(count_code(p44, "PHANTOM_COPY_LAG"), 0);
	/* 4.3 from the metadata log is a line: 4.3.2 is not known to be affected, so the
	 * finding stands with its caveat */
	assert_int_equal(count_code(p43, "PHANTOM_COPY_LAG"), 1);
	assert_non_null(strstr(finding_message(p43, "PHANTOM_COPY_LAG"), "--kafka-version"));
	json_decref(r44);
	json_decref(r43);

	/* the exact release settles it both ways */
	json_t *x = scan("cluster-meta-4.3.1", "logdir", "server.properties", "--kafka-version=4.3.1", NULL);
	json_t *px = part(x, "single-record", 0);
	assert_int_equal(count_code(px, "PHANTOM_COPY_LAG"), 1);
	assert_null(strstr(finding_message(px, "PHANTOM_COPY_LAG"), "--kafka-version"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(x, "summary"), "broker"),
							    "kafka_version_source")), "--kafka-version");
	json_decref(x);
	json_t *y = scan("cluster-meta-4.3.1", "logdir", "server.properties", "--kafka-version=4.4.0", NULL);
	json_t *py = part(y, "single-record", 0);
	assert_int_equal(count_code(py, "PHANTOM_COPY_LAG"), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(py, "broker_copy_lag"), "segments")),
			 json_integer_value(json_object_get(json_object_get(py, "copy_lag"), "segments")));
	json_decref(y);
}

/* Node 1 of a 3-broker cluster: Kafka's partitioner put some of its tiered partitions'
 * metadata on nodes 2 and 3. */
static void test_multi_broker_remote_unknown(void **state)
{
	(void)state;
	json_t *cs = load("multi-broker", "case.json"), *adm = load("multi-broker", "admin.json");
	json_t *rep = scan("multi-broker", "logdir-1", "server-1.properties", NULL, NULL);
	size_t i;
	json_t *pl;
	int unknown = 0, known = 0;
	json_array_foreach(json_object_get(json_object_get(cs, "placement"), "partitions"), i, pl) {
		const char *t = json_string_value(json_object_get(pl, "topic"));
		int pn = (int)json_integer_value(json_object_get(pl, "partition"));
		json_t *p = part(rep, t, pn);
		if (!p)
			continue;   /* not hosted by node 1 */
		bool elsewhere = json_integer_value(json_object_get(pl, "metadata_partition_node")) != 1;
		json_t *remote = json_object_get(p, "remote");
		if (elsewhere) {
			unknown++;
			assert_int_equal(count_code(p, "REMOTE_STATE_UNKNOWN"), 1);
			assert_true(json_is_null(json_object_get(p, "only_local")));
			assert_true(json_is_null(json_object_get(p, "copy_lag")));
			assert_true(json_is_false(json_object_get(remote, "seeded")));
		} else {
			known++;
			assert_int_equal(count_code(p, "REMOTE_STATE_UNKNOWN"), 0);
			size_t k;
			json_t *ap;
			long long want = -2;
			json_array_foreach(json_object_get(adm, "partitions"), k, ap)
				if (!strcmp(json_string_value(json_object_get(ap, "topic")), t) &&
				    json_integer_value(json_object_get(ap, "partition")) == pn)
					want = (long long)json_integer_value(json_object_get(ap, "latest_tiered_offset"));
			assert_int_equal(json_integer_value(json_object_get(remote, "highest_offset")), want);
		}
	}
	assert_true(unknown >= 2);
	assert_true(known >= 2);
	json_decref(rep);

	/* the table shows unknown as '?', never as local-only */
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan -q --now=%lld %s/multi-broker/logdir-1", tu_segscan(), now_of("multi-broker"),
				FIXTURES), 0);
	assert_non_null(strstr(out, "REMOTE_STATE_UNKNOWN"));
	char *row = strstr(out, "\nmt-a ");
	assert_non_null(row);
	char line[512];
	sscanf(row + 1, "%511[^\n]", line);
	/* mt-a-0: ONLY-LOCAL, REMOTE and COPY LAG are '?' */
	assert_non_null(strstr(line, " ? "));
	free(out);
	json_decref(cs);
	json_decref(adm);
}

/* The reproduction: a tiered 4.3.1 log dir without its __remote_log_metadata dirs. */
static void test_tiered_without_remote_metadata(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("ctx"), *out = NULL;
	assert_int_equal(tu_run(&out, "cp -r %s/tiered-4.3.1/logdir %s/ld && rm -rf %s/ld/__remote_log_metadata-*", FIXTURES,
				tmp, tmp), 0);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f json --now=%lld %s/ld", tu_segscan(), now_of("tiered-4.3.1"), tmp), 0);
	json_t *rep = json_loads(out, 0, NULL);
	assert_non_null(rep);
	json_t *p = part(rep, "tiered", 0);
	assert_non_null(p);
	assert_int_equal(count_code(p, "REMOTE_STATE_UNKNOWN"), 1);
	assert_true(json_is_null(json_object_get(p, "only_local")));
	json_t *sg;
	size_t i;
	json_array_foreach(json_object_get(p, "segments"), i, sg)
		assert_true(json_is_null(json_object_get(sg, "only_local")));
	json_decref(rep);
	free(out);
	assert_int_equal(tu_run(&out, "rm -rf %s", tmp), 0);
	free(out);
	free(tmp);
}

/* Directories the metadata log does not assign here: a topic it does not know, and an
 * incarnation with another topic id. */
static void test_stray_partitions(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("stray"), *out = NULL;
	assert_int_equal(tu_run(&out,
				"cp -r %s/cluster-meta/logdir %s/ld && cp -r %s/ld/defaults-0 %s/ghost-0 && mv %s/ghost-0 %s/ld/ && "
				"sed -i 's/^topic_id: .*/topic_id: AAAAAAAAAAAAAAAAAAAAAQ/' %s/ld/defaults-0/partition.metadata",
				FIXTURES, tmp, tmp, tmp, tmp, tmp, tmp),
			 0);
	free(out);
	tu_run(&out, "%s scan -q -f json --now=%lld %s/ld", tu_segscan(), now_of("cluster-meta"), tmp);
	json_t *rep = json_loads(out, 0, NULL);
	assert_non_null(rep);
	json_t *g = part(rep, "ghost", 0), *d = part(rep, "defaults", 0), *t = part(rep, "tiered", 0);
	assert_non_null(g);
	assert_non_null(d);
	assert_int_equal(count_code(g, "STRAY_PARTITION"), 1);
	assert_true(json_is_null(json_object_get(g, "assignment")));
	assert_int_equal(count_code(d, "STRAY_PARTITION"), 1);
	assert_non_null(strstr(finding_message(d, "STRAY_PARTITION"), "incarnation"));
	assert_int_equal(count_code(t, "STRAY_PARTITION"), 0);
	json_decref(rep);
	free(out);
	assert_int_equal(tu_run(&out, "rm -rf %s", tmp), 0);
	free(out);
	free(tmp);
}

/* --cluster-metadata=off: the dynamic levels are unknown, and a default is not a fact */
static void test_metadata_off(void **state)
{
	(void)state;
	json_t *rep = scan("cluster-meta", "logdir", NULL, "--cluster-metadata=off", NULL);
	json_t *p = part(rep, "defaults", 0);
	json_t *rb = json_object_get(json_object_get(p, "config"), "retention.bytes");
	assert_true(json_is_null(json_object_get(rb, "source")));
	assert_true(json_is_null(json_object_get(p, "assignment")));
	json_t *b = json_object_get(json_object_get(rep, "summary"), "broker");
	assert_true(json_is_null(json_object_get(b, "kafka_version")));
	assert_true(json_is_false(json_object_get(json_object_get(json_object_get(rep, "summary"), "cluster_metadata"),
						  "used")));
	json_decref(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_configs_4_4),
		cmocka_unit_test(test_configs_4_3),
		cmocka_unit_test(test_findings_follow_release),
		cmocka_unit_test(test_multi_broker_remote_unknown),
		cmocka_unit_test(test_tiered_without_remote_metadata),
		cmocka_unit_test(test_stray_partitions),
		cmocka_unit_test(test_metadata_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
