/*
 * `segscan scan --broker-metrics` end to end (the option, the loader, the evaluator's input,
 * json and the table) against tests/tiny_httpd.h on 127.0.0.1 serving JMX-exporter text:
 *   - the gauges per topic in summary.broker_metrics, beside segscan's broker_copy_lag summed
 *     over the same partitions; the partition rows' broker_copy_lag and PHANTOM_COPY_LAG are
 *     what they are without --broker-metrics (a per-topic value on no partition's row);
 *   - an endpoint that fails: exit 0, a warning, the gauges unknown (ok false), never 0;
 *   - whose endpoint is whose: NODE_ID=URL per broker; one URL for two brokers' log dirs,
 *     a NODE_ID no log dir has, two URLs for one node or credentials in a URL: exit 2, and
 *     the credentials in no message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "testutil.h"
#include "tiny_httpd.h"

static const char metrics[] =
	"# HELP kafka_server_brokertopicmetrics_remotecopylagsegments Attribute exposed for management\n"
	"# TYPE kafka_server_brokertopicmetrics_remotecopylagsegments gauge\n"
	"kafka_server_brokertopicmetrics_remotecopylagsegments 5.0\n"
	"kafka_server_brokertopicmetrics_remotecopylagsegments{topic=\"orders.v2\"} 5.0\n"
	"kafka_server_brokertopicmetrics_remotecopylagbytes{topic=\"orders.v2\"} 1464.0\n"
	"kafka_server_brokertopicmetrics_remotedeletelagsegments{topic=\"orders.v2\"} 2.0\n"
	"kafka_server_brokertopicmetrics_remotedeletelagbytes{topic=\"orders.v2\"} 4.0E5\n";

static char *g_dir;
static int g_port;

static int setup(void **state)
{
	(void)state;
	static const struct th_route routes[] = {
		{ "/metrics", "200 OK", metrics, sizeof(metrics) - 1 },
	};
	if (!(g_dir = tu_mkdtemp("bmetrics")))
		return -1;
	/* two brokers' log dirs (nodes 1 and 2) with a remote state and topic configs */
	if (tu_run(NULL, "%s gen %s/n1 --topics=3 --partitions=4 --segments=6 --segment-bytes=256KiB "
		   "--single-record-tail=2 --seed=42 --remote-state=%s/remote.ndjson >/dev/null 2>&1 && "
		   "mkdir -p %s/b2 && %s gen %s/b2/n2 --node-id=2 --topics=1 --partitions=1 --segments=2 --segment-bytes=64KiB --seed=7 "
		   ">/dev/null 2>&1 && "
		   /* one cluster: node 2's meta.properties names node 1's cluster.id */
		   "sed -i \"s/^cluster.id=.*/$(grep ^cluster.id= %s/n1/meta.properties)/\" %s/b2/n2/meta.properties",
		   tu_segscan(), g_dir, g_dir, g_dir, tu_segscan(), g_dir, g_dir, g_dir) != 0)
		return -1;
	return (g_port = th_start(routes, 1)) > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	th_stop();
	tu_run(NULL, "rm -rf '%s'", g_dir);
	free(g_dir);
	return 0;
}

/* `segscan scan -q -f json --now=... EXTRA DIR/n1` into a parsed document; its exit code */
static json_t *scan_json(int *rc, const char *extra)
{
	char *out = NULL;
	*rc = tu_run(&out, "%s scan -q -f json --now=1700000000000 --remote-state=%s/remote.ndjson "
		     "--topic-config=%s/topic-config.txt %s %s/n1 2>%s/err.txt",
		     tu_segscan(), g_dir, g_dir, extra, g_dir, g_dir);
	json_t *d = out ? json_loads(out, 0, NULL) : NULL;
	free(out);
	return d;
}

static json_t *part(json_t *d, const char *topic, int n)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(d, "partitions"), i, p)
		if (!strcmp(json_string_value(json_object_get(p, "topic")), topic) &&
		    json_integer_value(json_object_get(p, "partition")) == n)
			return p;
	return NULL;
}

static bool has_finding(json_t *p, const char *code)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(p, "findings"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "code")), code))
			return true;
	return false;
}

static int64_t ival(json_t *o, const char *a, const char *b)
{
	json_t *x = json_object_get(json_object_get(o, a), b);
	assert_true(json_is_integer(x));
	return json_integer_value(x);
}

static void test_gauges_beside_reproduction(void **state)
{
	(void)state;
	int rc;
	char extra[128];
	json_t *base = scan_json(&rc, "");
	assert_non_null(base);
	assert_null(json_object_get(json_object_get(base, "summary"), "broker_metrics"));
	snprintf(extra, sizeof(extra), "--broker-metrics=http://127.0.0.1:%d/metrics", g_port);
	json_t *d = scan_json(&rc, extra);
	assert_int_equal(rc, 0);
	assert_non_null(d);
	json_t *bm = json_object_get(json_object_get(d, "summary"), "broker_metrics");
	assert_int_equal(json_array_size(bm), 1);
	json_t *b = json_array_get(bm, 0);
	assert_true(json_is_true(json_object_get(b, "ok")));
	assert_int_equal(json_integer_value(json_object_get(b, "node_id")), 1);
	json_t *topics = json_object_get(b, "topics");
	assert_int_equal(json_array_size(topics), 1);
	json_t *t = json_array_get(topics, 0);
	assert_string_equal(json_string_value(json_object_get(t, "topic")), "orders.v2");
	assert_int_equal(ival(t, "copy_lag", "segments"), 5);
	assert_int_equal(ival(t, "copy_lag", "size_bytes"), 1464);
	assert_int_equal(ival(t, "delete_lag", "segments"), 2);
	assert_int_equal(ival(t, "delete_lag", "size_bytes"), 400000);
	/* segscan's side: the partitions' broker_copy_lag summed, each partition once */
	int64_t segs = 0, bytes = 0;
	for (int n = 0; n < 4; n++) {
		json_t *p = part(d, "orders.v2", n), *q = part(base, "orders.v2", n);
		assert_non_null(p);
		assert_true(json_equal(json_object_get(p, "broker_copy_lag"), json_object_get(q, "broker_copy_lag")));
		assert_int_equal(has_finding(p, "PHANTOM_COPY_LAG"), has_finding(q, "PHANTOM_COPY_LAG"));
		segs += ival(p, "broker_copy_lag", "segments");
		bytes += ival(p, "broker_copy_lag", "size_bytes");
	}
	assert_true(has_finding(part(d, "orders.v2", 2), "PHANTOM_COPY_LAG"));
	assert_int_equal(json_integer_value(json_object_get(t, "partitions")), 4);
	assert_int_equal(ival(t, "segscan_copy_lag", "segments"), segs);
	assert_int_equal(ival(t, "segscan_copy_lag", "size_bytes"), bytes);
	/* the summary's totals are the partitions', not the gauge's */
	assert_true(json_equal(json_object_get(json_object_get(d, "summary"), "copy_lag_segments"),
			       json_object_get(json_object_get(base, "summary"), "copy_lag_segments")));
	json_decref(d);
	/* a filter that reports one partition: the gauge still covers all four, and so does the sum */
	snprintf(extra, sizeof(extra), "--broker-metrics=http://127.0.0.1:%d/metrics --partition=orders.v2-1", g_port);
	d = scan_json(&rc, extra);
	assert_int_equal(rc, 0);
	assert_int_equal(json_array_size(json_object_get(d, "partitions")), 1);
	t = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(d, "summary"), "broker_metrics"), 0),
					   "topics"), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "partitions")), 4);
	assert_int_equal(ival(t, "segscan_copy_lag", "segments"), segs);
	json_decref(d);
	json_decref(base);

	/* the table: the gauge next to the reproduction, once, under the rows */
	char *out = NULL;
	rc = tu_run(&out, "%s scan -q --now=1700000000000 --remote-state=%s/remote.ndjson %s %s/n1", tu_segscan(), g_dir,
		    extra, g_dir);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "Broker metrics (node 1, http://127.0.0.1:"));
	assert_non_null(strstr(out, "orders.v2  copy lag 5 seg/1.43 KiB (segscan's reproduction: "));
	assert_non_null(strstr(out, "delete lag 2 seg/391 KiB"));
	free(out);
}

static void test_endpoint_fails(void **state)
{
	(void)state;
	int rc;
	char extra[128];
	snprintf(extra, sizeof(extra), "--broker-metrics=http://127.0.0.1:%d/nothing-here", g_port);
	json_t *d = scan_json(&rc, extra);
	assert_int_equal(rc, 0);
	json_t *b = json_array_get(json_object_get(json_object_get(d, "summary"), "broker_metrics"), 0);
	assert_non_null(b);
	assert_true(json_is_false(json_object_get(b, "ok")));
	assert_non_null(strstr(json_string_value(json_object_get(b, "error")), "HTTP 404"));
	assert_int_equal(json_array_size(json_object_get(b, "topics")), 0);
	json_decref(d);
	char path[600];
	snprintf(path, sizeof(path), "%s/err.txt", g_dir);
	char *err = tu_read_file(path, NULL);
	assert_non_null(err);
	assert_non_null(strstr(err, "segscan: warning: --broker-metrics: http://127.0.0.1:"));
	assert_non_null(strstr(err, "unknown"));
	free(err);
}

static void test_whose_endpoint(void **state)
{
	(void)state;
	char *out = NULL;
	/* NODE_ID=URL: node 2's endpoint for node 2's log dir */
	int rc = tu_run(&out, "%s scan -q -f json --broker-metrics=2=http://127.0.0.1:%d/metrics %s/n1 %s/b2/n2", tu_segscan(),
			g_port, g_dir, g_dir);
	assert_int_equal(rc, 0);
	json_t *d = json_loads(out, 0, NULL);
	free(out);
	json_t *b = json_array_get(json_object_get(json_object_get(d, "summary"), "broker_metrics"), 0);
	assert_int_equal(json_integer_value(json_object_get(b, "node_id")), 2);
	json_decref(d);
	static const char *const bad[] = {
		"--broker-metrics=http://127.0.0.1:%d/metrics %s/n1 %s/b2/n2",               /* one URL, two nodes */
		"--broker-metrics=3=http://127.0.0.1:%d/metrics %s/n1 %s/b2/n2",             /* no node 3 */
		"--broker-metrics=1=http://127.0.0.1:%d/metrics --broker-metrics=1=http://x/ %s/n1 %s/b2/n2",
		"--broker-metrics=http://alice:s3cr3t@127.0.0.1:%d/metrics %s/n1 %s/b2/n2",
		"--broker-metrics=ftp://127.0.0.1:%d/metrics %s/n1 %s/b2/n2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char args[512];
		snprintf(args, sizeof(args), bad[i], g_port, g_dir, g_dir);
		rc = tu_run(&out, "%s scan -q %s 2>&1", tu_segscan(), args);
		if (rc != 2 || strstr(out, "s3cr3t"))
			fail_msg("case %zu: exit %d, output %s", i, rc, out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gauges_beside_reproduction),
		cmocka_unit_test(test_endpoint_fails),
		cmocka_unit_test(test_whose_endpoint),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
