/*
 * A scan of several brokers' log dirs (issue 22): identity per log dir, the per-node
 * evaluation of assignment.here and STRAY_PARTITION, and the meta.properties parser.
 *
 * - tests/fixtures/kafka/multi-broker (three real brokers of one Kafka 4.4.0 cluster, each
 *   logdir-N written by node N): scanned together, every row names its node (node_id from
 *   its log dir's meta.properties), `here` is true for its own node on every row, and no
 *   replica is STRAY_PARTITION (before issue 22 seven were: every dir was taken for node 1's);
 * - the same dirs with one meta.properties saying another node: exactly that node's
 *   misplaced replicas become STRAY_PARTITION, naming the node;
 * - a copy without meta.properties among several brokers: node_id null, here null, no
 *   STRAY_PARTITION (which broker it belongs to cannot be told);
 * - log dirs of two clusters: exit 2 naming both dirs;
 * - meta.properties as Kafka's MetaProperties reads it (fmt/meta_properties.h): version 0 and 1,
 *   escapes, continuation lines, the errors Kafka refuses to start with.
 */
#include <jansson.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fmt/meta_properties.h"
#include "segscan.h"
#include "testutil.h"

#define MB "tests/fixtures/kafka/multi-broker"

static long long now_mb(void)
{
	json_error_t e;
	json_t *c = json_load_file(MB "/case.json", 0, &e);
	assert_non_null(c);
	long long n = (long long)json_integer_value(json_object_get(c, "capture_time_ms"));
	json_decref(c);
	return n;
}

/* segscan scan -f json DIRS; the exit code in *rc */
static json_t *scan_json(const char *dirs, int *rc)
{
	char *out = NULL;
	int r = tu_run(&out, "%s scan -q -f json --now=%lld %s 2>/dev/null", tu_segscan(), now_mb(), dirs);
	if (rc)
		*rc = r;
	json_error_t e;
	json_t *j = json_loads(out ? out : "", 0, &e);
	if (!j)
		fail_msg("not JSON (%s): %.300s", e.text, out ? out : "");
	free(out);
	return j;
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

/* The node a fixture dir belongs to: logdir-N is node N (case.json nodes.N.logdir). */
static int node_of_logdir(const char *ld)
{
	const char *d = strrchr(ld, '-');
	return d ? atoi(d + 1) : -1;
}

static void test_multi_broker_per_node(void **state)
{
	(void)state;
	int rc;
	json_t *rep = scan_json(MB "/logdir-1 " MB "/logdir-2 " MB "/logdir-3", &rc);
	assert_int_equal(rc, 0);
	size_t i;
	json_t *p;
	int rows = 0, assigned = 0, per_node[4] = { 0 };
	json_array_foreach(json_object_get(rep, "partitions"), i, p) {
		const char *ld = json_string_value(json_object_get(p, "log_dir"));
		int want = node_of_logdir(ld);
		json_t *nid = json_object_get(p, "node_id");
		if (!json_is_integer(nid) || json_integer_value(nid) != want)
			fail_msg("%s-%lld in %s: node_id is not %d", json_string_value(json_object_get(p, "topic")),
				 (long long)json_integer_value(json_object_get(p, "partition")), ld, want);
		per_node[want]++;
		rows++;
		if (count_code(p, "STRAY_PARTITION"))
			fail_msg("%s-%lld in %s: STRAY_PARTITION on its own node's replica",
				 json_string_value(json_object_get(p, "topic")),
				 (long long)json_integer_value(json_object_get(p, "partition")), ld);
		json_t *a = json_object_get(p, "assignment");
		if (json_is_null(a))
			continue;   /* the metadata log itself */
		assigned++;
		assert_true(json_is_true(json_object_get(a, "here")));
		/* and its node is among the replicas Kafka assigned */
		bool in = false;
		size_t k;
		json_t *r;
		json_array_foreach(json_object_get(a, "replicas"), k, r)
			in |= json_integer_value(r) == want;
		assert_true(in);
	}
	assert_int_equal(rows, 18);
	assert_int_equal(assigned, 17);
	assert_true(per_node[1] > 0 && per_node[2] > 0 && per_node[3] > 0);

	/* The cluster was stopped before the capture: its metadata log names no leader, so every
	 * role is unknown (null), never "follower", and every tiered row keeps its copy lag. */
	json_array_foreach(json_object_get(rep, "partitions"), i, p) {
		assert_true(json_is_null(json_object_get(p, "leader")));
		if (json_is_true(json_object_get(p, "remote_storage")))
			assert_false(json_is_null(json_object_get(p, "copy_lag")));
	}
	/* Remote bytes counted once per partition, not per replica: the summary equals the sum
	 * of the three brokers' own RemoteLogSizeBytes (each broker counts the partitions it
	 * leads), per topic and in all; before issue 22 the RF 2 topic mt-b counted twice. */
	json_error_t e;
	long long kafka_total = 0, kafka_mtb = 0;
	for (int n = 1; n <= 3; n++) {
		char path[64];
		snprintf(path, sizeof(path), MB "/jmx-%d.json", n);
		json_t *jmx = json_load_file(path, 0, &e);
		assert_non_null(jmx);
		json_t *m;
		size_t k;
		json_array_foreach(json_object_get(jmx, "mbeans"), k, m) {
			if (strcmp(json_string_value(json_object_get(m, "name")), "RemoteLogSizeBytes") != 0)
				continue;
			long long v = json_integer_value(json_object_get(json_object_get(m, "attributes"), "Value"));
			json_t *t = json_object_get(m, "topic");
			if (!t || json_is_null(t))
				kafka_total += v;
			else if (!strcmp(json_string_value(t), "mt-b"))
				kafka_mtb += v;
		}
		json_decref(jmx);
	}
	assert_true(kafka_total > 0 && kafka_mtb > 0);
	json_t *sum = json_object_get(rep, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "remote_bytes")), kafka_total);
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan -q --now=%lld --topic=mt-b " MB "/logdir-1 " MB "/logdir-2 " MB
				"/logdir-3 2>/dev/null", tu_segscan(), now_mb()), 0);
	/* the table's topic total: 6,552 bytes is "6.40 KiB" */
	char want[32];
	snprintf(want, sizeof(want), "%.2f KiB", kafka_mtb / 1024.0);
	const char *tot = strstr(out, "(topic total)");
	assert_non_null(tot);
	if (!strstr(tot, want))
		fail_msg("topic total of mt-b is not %s (%lld bytes):\n%s", want, kafka_mtb, out);
	free(out);
	json_decref(rep);
}

/* Copy a fixture log dir into tmp/NAME (cp -R keeps the data; nothing under tests/ is written). */
static char *copy_dir(const char *tmp, const char *src, const char *name)
{
	char *dst = NULL;
	assert_true(asprintf(&dst, "%s/%s", tmp, name) > 0);
	assert_int_equal(tu_run(NULL, "cp -R '%s' '%s'", src, dst), 0);
	return dst;
}

static void write_meta(const char *dir, const char *text)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/meta.properties", dir) > 0);
	assert_int_equal(tu_write_file(p, text, strlen(text)), 0);
	free(p);
}

/* logdir-2's data under node 3's name: its replicas that Kafka placed on node 2 only
 * (not on node 3) are stray for node 3, and the message names node 3. */
static void test_replica_evaluated_for_its_node(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("fleet");
	assert_non_null(tmp);
	char *d2 = copy_dir(tmp, MB "/logdir-2", "logdir-2");
	write_meta(d2, "#\nnode.id=3\ndirectory.id=5sExaOenpUGrsA1dbeEZQw\nversion=1\ncluster.id=aZGOJGpKSfWCYEV0Xc2Y5Q\n");
	char *dirs = NULL;
	assert_true(asprintf(&dirs, MB "/logdir-1 %s " MB "/logdir-3", d2) > 0);
	int rc;
	json_t *rep = scan_json(dirs, &rc);
	assert_int_equal(rc, 0);
	size_t i;
	json_t *p;
	int stray = 0, want_stray = 0;
	json_array_foreach(json_object_get(rep, "partitions"), i, p) {
		const char *ld = json_string_value(json_object_get(p, "log_dir"));
		bool moved = strcmp(ld, d2) == 0;
		json_t *a = json_object_get(p, "assignment");
		assert_int_equal(json_integer_value(json_object_get(p, "node_id")), moved ? 3 : node_of_logdir(ld));
		if (json_is_null(a))
			continue;
		bool on3 = false;
		size_t k;
		json_t *r;
		json_array_foreach(json_object_get(a, "replicas"), k, r)
			on3 |= json_integer_value(r) == 3;
		int s = count_code(p, "STRAY_PARTITION");
		stray += s;
		if (moved && !on3) {
			want_stray++;
			assert_int_equal(s, 1);
			assert_true(json_is_false(json_object_get(a, "here")));
			size_t q;
			json_t *f;
			bool named = false;
			json_array_foreach(json_object_get(p, "findings"), q, f)
				named |= !strcmp(json_string_value(json_object_get(f, "code")), "STRAY_PARTITION") &&
					 strstr(json_string_value(json_object_get(f, "message")), "(node 3)");
			assert_true(named);
		} else {
			assert_int_equal(s, 0);
		}
	}
	assert_true(want_stray >= 3);   /* __remote_log_metadata-1, -4, mt-a-4, mt-b-0 (RF 1/2 on node 2) */
	assert_int_equal(stray, want_stray);
	json_decref(rep);
	tu_run(NULL, "rm -rf '%s'", tmp);
	free(dirs);
	free(d2);
	free(tmp);
}

/* A copied dir without meta.properties among several brokers' dirs: its broker is unknown,
 * so node_id and here are null and nothing is called stray. */
static void test_dir_without_meta_among_brokers(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("fleet");
	char *d3 = copy_dir(tmp, MB "/logdir-3", "copy");
	char *mp = NULL;
	assert_true(asprintf(&mp, "%s/meta.properties", d3) > 0);
	assert_int_equal(unlink(mp), 0);
	char *dirs = NULL;
	assert_true(asprintf(&dirs, MB "/logdir-1 " MB "/logdir-2 %s", d3) > 0);
	int rc;
	json_t *rep = scan_json(dirs, &rc);
	assert_int_equal(rc, 0);
	size_t i;
	json_t *p;
	int seen = 0;
	json_array_foreach(json_object_get(rep, "partitions"), i, p) {
		assert_int_equal(count_code(p, "STRAY_PARTITION"), 0);
		if (strcmp(json_string_value(json_object_get(p, "log_dir")), d3) != 0)
			continue;
		seen++;
		assert_true(json_is_null(json_object_get(p, "node_id")));
		assert_true(json_is_null(json_object_get(json_object_get(p, "assignment"), "here")));
	}
	assert_true(seen >= 3);
	json_decref(rep);
	tu_run(NULL, "rm -rf '%s'", tmp);
	free(mp);
	free(dirs);
	free(d3);
	free(tmp);
}

/* Two clusters' log dirs in one scan: a usage error naming both. */
static void test_two_clusters_exit_2(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("fleet");
	char *d2 = copy_dir(tmp, MB "/logdir-2", "other");
	write_meta(d2, "node.id=2\nversion=1\ncluster.id=OtherClusterIdAAAAAAAA\n");
	char *err = NULL;
	int rc = tu_run(&err, "%s scan -q -f json %s %s 2>&1 >/dev/null", tu_segscan(), MB "/logdir-1", d2);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, MB "/logdir-1"));
	assert_non_null(strstr(err, d2));
	assert_non_null(strstr(err, "aZGOJGpKSfWCYEV0Xc2Y5Q"));
	assert_non_null(strstr(err, "OtherClusterIdAAAAAAAA"));
	free(err);
	/* and another cluster's metadata log (--metadata-dir) for these log dirs */
	rc = tu_run(&err, "%s scan -q -f json --metadata-dir=tests/fixtures/kafka/cluster-meta/logdir %s 2>&1 >/dev/null",
		    tu_segscan(), MB "/logdir-2");
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "tests/fixtures/kafka/cluster-meta/logdir/__cluster_metadata-0"));
	assert_non_null(strstr(err, MB "/logdir-2"));
	free(err);
	tu_run(NULL, "rm -rf '%s'", tmp);
	free(d2);
	free(tmp);
}

/* A meta.properties Kafka would refuse: the file named in the errors, node unknown, exit 1. */
static void test_bad_meta_properties(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("fleet");
	char *d2 = copy_dir(tmp, MB "/logdir-2", "bad");
	write_meta(d2, "version=1\nnode.id=two\ncluster.id=aZGOJGpKSfWCYEV0Xc2Y5Q\n");
	int rc;
	json_t *rep = scan_json(d2, &rc);
	assert_int_equal(rc, 1);
	json_t *errs = json_object_get(rep, "errors");
	bool named = false;
	size_t i;
	json_t *e;
	json_array_foreach(errs, i, e) {
		const char *path = json_string_value(json_object_get(e, "path"));
		named |= path && strstr(path, "meta.properties") && strstr(json_string_value(json_object_get(e, "message")),
								   "node.id");
	}
	assert_true(named);
	json_t *p;
	json_array_foreach(json_object_get(rep, "partitions"), i, p)
		assert_true(json_is_null(json_object_get(p, "node_id")));
	json_decref(rep);
	tu_run(NULL, "rm -rf '%s'", tmp);
	free(d2);
	free(tmp);
}

static void meta_ok(const char *text, int version, int32_t node, const char *cluster)
{
	struct ss_meta_props m;
	char err[256];
	int r = ss_meta_props_parse(text, strlen(text), "meta.properties", &m, err, sizeof(err));
	if (r)
		fail_msg("%s: %s", text, err);
	assert_int_equal(m.version, version);
	assert_int_equal(m.node_id, node);
	if (cluster)
		assert_string_equal(m.cluster_id, cluster);
	else
		assert_null(m.cluster_id);
	ss_meta_props_free(&m);
}

static void meta_bad(const char *text, const char *want)
{
	struct ss_meta_props m;
	char err[256];
	int r = ss_meta_props_parse(text, strlen(text), "meta.properties", &m, err, sizeof(err));
	assert_int_equal(r, SEGSCAN_ECONFIG);
	if (!strstr(err, want))
		fail_msg("%s: error '%s' does not say '%s'", text, err, want);
	assert_null(m.cluster_id);
	assert_int_equal(m.node_id, -1);
}

static void test_meta_properties_parser(void **state)
{
	(void)state;
	/* what Kafka 4.4 writes (the fixture's own) */
	meta_ok("#\n#Tue Dec 01 09:28:57 UTC 2026\nnode.id=2\ndirectory.id=5sExaOenpUGrsA1dbeEZQw\nversion=1\n"
		"cluster.id=aZGOJGpKSfWCYEV0Xc2Y5Q\n", 1, 2, "aZGOJGpKSfWCYEV0Xc2Y5Q");
	/* version 0 (ZooKeeper-era): broker.id, optional; node.id is not read */
	meta_ok("version=0\nbroker.id=7\ncluster.id=abc\n", 0, 7, "abc");
	meta_ok("broker.id=7\n", 0, 7, NULL);
	meta_ok("version=0\nnode.id=7\n", 0, -1, NULL);
	/* Properties syntax: ':' and spaces as separators, CRLF, continuation, escapes, last wins */
	meta_ok("version : 1\r\nnode.id 1\r\nnode.id=\\\n   4\r\ncluster.id=a\\u0062c\r\n", 1, 4, "abc");
	meta_ok("! comment\nversion=1\n  node.id=0\ncluster.id=x\n", 1, 0, "x");
	/* what MetaProperties refuses */
	meta_bad("version=2\nnode.id=1\ncluster.id=x\n", "version");
	meta_bad("version=1\ncluster.id=x\n", "without node.id");
	meta_bad("version=1\nnode.id=1\n", "without cluster.id");
	meta_bad("version=1\nnode.id=1 \ncluster.id=x\n", "node.id");   /* Integer.parseInt: no trailing space */
	meta_bad("version=1\nnode.id=-1\ncluster.id=x\n", "node.id");
	meta_bad("version=1\nnode.id=99999999999\ncluster.id=x\n", "node.id");
	meta_bad("version=1\nnode.id=1\ncluster.id=\\u00zz\n", "escape");
	/* the server.properties loader reads through the same parser (fmt/config.c) */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_properties_parser),
		cmocka_unit_test(test_multi_broker_per_node),
		cmocka_unit_test(test_replica_evaluated_for_its_node),
		cmocka_unit_test(test_dir_without_meta_among_brokers),
		cmocka_unit_test(test_two_clusters_exit_2),
		cmocka_unit_test(test_bad_meta_properties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
