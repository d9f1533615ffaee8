/*
 * --broker-metrics' source (source/broker_metrics.h): the four per-topic gauges from a real
 * JMX exporter's scrape of a Kafka 4.3.1 broker (tests/fixtures/promtext/) under the
 * default names; absent, never guessed (NaN, a fraction, two series that disagree); the
 * broker-wide aggregate not a topic's; configurable names; and the endpoint read through
 * the one HTTP client against tests/tiny_httpd.h on 127.0.0.1: a failed read or a bad
 * answer is "unknown" with its reason, not zeros.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/file.h"
#include "source/broker_metrics.h"
#include "tiny_httpd.h"

#define FIXTURE "tests/fixtures/promtext/jmx-exporter-1.0.1-kafka-4.3.1.txt"

static struct ss_broker_gauges *from(const char *text, const struct ss_bm_names *names)
{
	struct ss_broker_gauges *g = NULL;
	char err[256];
	assert_int_equal(ss_bm_from_text(text, strlen(text), "m", names, &g, err, sizeof(err)), 0);
	assert_non_null(g);
	assert_true(g->ok);
	return g;
}

static void test_real_scrape(void **state)
{
	(void)state;
	char *buf = NULL, err[256];
	size_t len = 0;
	assert_int_equal(ss_read_file(AT_FDCWD, FIXTURE, 1 << 24, &buf, &len), 0);
	struct ss_broker_gauges *g = NULL;
	assert_int_equal(ss_bm_from_text(buf, len, FIXTURE, NULL, &g, err, sizeof(err)), 0);
	/* the three topics of the scenario, each with its four gauges (all 0: every closed
	 * segment copied when the exporter was read), in strcmp order; no aggregate entry */
	assert_int_equal(g->n, 3);
	assert_string_equal(g->topics[0].topic, "__remote_log_metadata");
	assert_string_equal(g->topics[1].topic, "click.stream_v2");
	assert_string_equal(g->topics[2].topic, "orders");
	const struct ss_topic_gauges *t = ss_bm_topic(g, "orders");
	assert_ptr_equal(t, &g->topics[2]);
	assert_true(t->copy_lag_segments.present && t->copy_lag_segments.value == 0);
	assert_true(t->copy_lag_bytes.present && t->delete_lag_segments.present && t->delete_lag_bytes.present);
	assert_null(ss_bm_topic(g, "nope"));
	ss_bm_free(g);
	free(buf);
}

/* A real broker's phantom (KAFKA-20977 on 4.3.1): tests/broker_metrics_real.sh's scrape of topic
 * single, one record per segment, every closed one copied: the broker counts 1 segment, 134 bytes */
static void test_real_phantom(void **state)
{
	(void)state;
	char *buf = NULL, err[256];
	size_t len = 0;
	const char *path = "tests/fixtures/promtext/jmx-exporter-1.0.1-kafka-4.3.1-phantom.txt";
	assert_int_equal(ss_read_file(AT_FDCWD, path, 1 << 24, &buf, &len), 0);
	struct ss_broker_gauges *g = NULL;
	assert_int_equal(ss_bm_from_text(buf, len, path, NULL, &g, err, sizeof(err)), 0);
	const struct ss_topic_gauges *t = ss_bm_topic(g, "single");
	assert_non_null(t);
	assert_true(t->copy_lag_segments.present && t->copy_lag_segments.value == 1);
	assert_true(t->copy_lag_bytes.present && t->copy_lag_bytes.value == 134);
	assert_true(t->delete_lag_segments.present && t->delete_lag_segments.value == 0);
	t = ss_bm_topic(g, "orders");
	assert_true(t && t->copy_lag_segments.present && t->copy_lag_segments.value == 0);
	ss_bm_free(g);
	free(buf);
}

static void test_values(void **state)
{
	(void)state;
	const char *t = "# TYPE kafka_server_brokertopicmetrics_remotecopylagsegments gauge\n"
			"kafka_server_brokertopicmetrics_remotecopylagsegments 9.0\n"
			"kafka_server_brokertopicmetrics_remotecopylagsegments{topic=\"b\"} 3.0\n"
			"kafka_server_brokertopicmetrics_remotecopylagbytes{topic=\"b\"} 1.0E9\n"
			"kafka_server_brokertopicmetrics_remotedeletelagsegments{topic=\"b\"} NaN\n"
			"kafka_server_brokertopicmetrics_remotedeletelagbytes{topic=\"b\"} 2.5\n"
			"kafka_server_brokertopicmetrics_remotecopylagsegments{topic=\"a\",x=\"1\"} 4\n"
			"kafka_server_brokertopicmetrics_remotecopylagsegments{topic=\"a\",x=\"2\"} 4\n"
			"kafka_server_brokertopicmetrics_remotecopylagbytes{topic=\"a\",x=\"1\"} 10\n"
			"kafka_server_brokertopicmetrics_remotecopylagbytes{topic=\"a\",x=\"2\"} 11\n"
			"kafka_server_brokertopicmetrics_remotedeletelagbytes{topic=\"a\"} +Inf\n"
			"kafka_server_brokertopicmetrics_bytesin_total{topic=\"c\"} 5\n";
	struct ss_broker_gauges *g = from(t, NULL);
	assert_int_equal(g->n, 2);   /* a, b: c has none of the four */
	const struct ss_topic_gauges *a = ss_bm_topic(g, "a"), *b = ss_bm_topic(g, "b");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(b->copy_lag_segments.present && b->copy_lag_segments.value == 3);
	assert_true(b->copy_lag_bytes.present && b->copy_lag_bytes.value == 1000000000);
	assert_false(b->delete_lag_segments.present);   /* NaN */
	assert_false(b->delete_lag_bytes.present);      /* not an integer */
	assert_true(a->copy_lag_segments.present && a->copy_lag_segments.value == 4);   /* agree */
	assert_false(a->copy_lag_bytes.present);        /* disagree */
	assert_false(a->delete_lag_segments.present);   /* no sample */
	assert_false(a->delete_lag_bytes.present);      /* +Inf */
	ss_bm_free(g);
}

static void test_names(void **state)
{
	(void)state;
	struct ss_bm_names n;
	char *store = NULL, err[256];
	assert_int_equal(ss_bm_names_parse("cs,cb,ds,db,t", &n, &store, err, sizeof(err)), 0);
	assert_string_equal(n.copy_segments, "cs");
	assert_string_equal(n.delete_bytes, "db");
	assert_string_equal(n.topic_label, "t");
	struct ss_broker_gauges *g = from("cs{t=\"x\"} 1\ncb{topic=\"x\"} 2\ndb{t=\"x\"} 7\n", &n);
	const struct ss_topic_gauges *x = ss_bm_topic(g, "x");
	assert_non_null(x);
	assert_true(x->copy_lag_segments.present && x->copy_lag_segments.value == 1);
	assert_false(x->copy_lag_bytes.present);   /* labelled topic, not t */
	assert_true(x->delete_lag_bytes.present && x->delete_lag_bytes.value == 7);
	ss_bm_free(g);
	free(store);
	/* four names: the label stays "topic" */
	assert_int_equal(ss_bm_names_parse("a:b,c,d,e", &n, &store, err, sizeof(err)), 0);
	assert_string_equal(n.topic_label, "topic");
	assert_string_equal(n.copy_segments, "a:b");
	free(store);
	assert_int_equal(ss_bm_names_parse("a,b,c", &n, &store, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "four metric names"));
	assert_int_equal(ss_bm_names_parse("a,b,c,d,e,f", &n, &store, err, sizeof(err)), -EINVAL);
	assert_int_equal(ss_bm_names_parse("a,b,9c,d", &n, &store, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'9c' is not a metric name"));
	assert_int_equal(ss_bm_names_parse("a,b,c,d,x:y", &n, &store, err, sizeof(err)), -EINVAL);
	assert_int_equal(ss_bm_names_parse("a,,c,d", &n, &store, err, sizeof(err)), -EINVAL);
}

static void test_parse_error(void **state)
{
	(void)state;
	struct ss_broker_gauges *g = NULL;
	char err[256];
	const char *t = "ok 1\nbad{ 1\n";
	assert_int_equal(ss_bm_from_text(t, strlen(t), "http://b:9404/metrics", NULL, &g, err, sizeof(err)), -EBADMSG);
	assert_null(g);
	assert_non_null(strstr(err, "http://b:9404/metrics:2: "));
}

static char *g_fixture;
static size_t g_fixture_len;

static void test_load(void **state)
{
	(void)state;
	assert_int_equal(ss_read_file(AT_FDCWD, FIXTURE, 1 << 24, &g_fixture, &g_fixture_len), 0);
	static const char garbage[] = "# TYPE x gauge\nx{topic=\"o\" 1\n";
	struct th_route routes[] = {
		{ "/metrics", "200 OK", g_fixture, g_fixture_len },
		{ "/garbage", "200 OK", garbage, sizeof(garbage) - 1 },
		{ "/down", "503 Service Unavailable", "", 0 },
	};
	int port = th_start(routes, 3);
	assert_true(port > 0);
	char url[128];
	struct ss_broker_gauges *g = NULL;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	struct ss_bm_opts o = { .node_id = 2, .url = url, .timeout_ms = 60000, .now_ms = 1234 };
	assert_int_equal(ss_bm_load(&o, &g), 0);
	assert_true(g->ok);
	assert_int_equal(g->node_id, 2);
	assert_int_equal(g->read_at_ms, 1234);
	assert_string_equal(g->url, url);
	assert_int_equal(g->n, 3);
	ss_bm_free(g);

	/* answered, but not with the gauges: unknown, and why */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/garbage", port);
	assert_int_equal(ss_bm_load(&o, &g), 0);
	assert_false(g->ok);
	assert_int_equal(g->n, 0);
	assert_non_null(strstr(g->error, "/garbage:2: "));
	assert_null(ss_bm_topic(g, "o"));
	ss_bm_free(g);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/down", port);
	assert_int_equal(ss_bm_load(&o, &g), 0);
	assert_false(g->ok);
	assert_non_null(strstr(g->error, "HTTP 503"));
	ss_bm_free(g);
	th_stop();

	/* nobody listens any more: unknown, the URL in the reason */
	assert_int_equal(ss_bm_load(&o, &g), 0);
	assert_false(g->ok);
	assert_non_null(strstr(g->error, "127.0.0.1"));
	ss_bm_free(g);
	/* credentials in the URL: refused, never shown */
	snprintf(url, sizeof(url), "http://bob:pw123@127.0.0.1:%d/metrics", port);
	assert_int_equal(ss_bm_load(&o, &g), 0);
	assert_false(g->ok);
	assert_null(strstr(g->error, "pw123"));
	assert_null(strstr(g->url, "pw123"));
	ss_bm_free(g);
	free(g_fixture);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_scrape),
		cmocka_unit_test(test_real_phantom),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse_error),
		cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
