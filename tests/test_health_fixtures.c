/*
 * Tiering health over log dirs a real Kafka broker wrote (tests/fixtures/kafka, see its
 * README): the numbers a REMOTE_METADATA_AT_RISK finding gives are the ones Kafka's own
 * Admin API read from the same cluster (cluster.json: DescribeConfigs, DescribeTopics,
 * DescribeCluster), and healthy clusters whose copies finished raise no STUCK_* finding,
 * at the capture time or a day later, and no EPOCH_LINEAGE_GAP: their remote segments'
 * leader epochs are what the brokers' own leader-epoch-checkpoints give (epochs/: segments
 * of two epochs), and where local retention deleted copied segments (tiered/: log start 0,
 * local start 40) the offset below the local log is found as a new replica needs it.
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

/* segscan scan -f json over one fixture log dir at `now` */
static json_t *scan(const char *dir, const char *logdir, const char *props, long long now)
{
	char *out = NULL, *pp = NULL;
	if (props)
		assert_true(asprintf(&pp, "--server-properties=%s/%s/%s", FIXTURES, dir, props) > 0);
	int r = tu_run(&out, "%s scan -q -f json --now=%lld %s %s/%s/%s 2>/dev/null", tu_segscan(), now, pp ? pp : "",
		       FIXTURES, dir, logdir);
	free(pp);
	assert_true(r == 0 || r == 1);
	json_error_t e;
	json_t *j = json_loads(out, 0, &e);
	if (!j)
		fail_msg("%s: segscan output is not JSON (%s): %.300s", dir, e.text, out);
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

static const char *message_of(json_t *p, const char *code)
{
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(p, "findings"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "code")), code))
			return json_string_value(json_object_get(f, "message"));
	return NULL;
}

/* Kafka's reading of __remote_log_metadata: a config's value and source, the fewest
 * replicas of its partitions, the brokers */
static const char *rlmm_config(json_t *cl, const char *key, const char **src)
{
	json_t *e = json_object_get(json_object_get(json_object_get(json_object_get(cl, "describe_configs"), "topics"),
						    "__remote_log_metadata"),
				    key);
	assert_non_null(e);
	*src = json_string_value(json_object_get(e, "source"));
	return json_string_value(json_object_get(e, "value"));
}

static int rlmm_rf(json_t *cl)
{
	json_t *dt = json_object_get(json_object_get(cl, "describe_topics"), "__remote_log_metadata");
	size_t i;
	json_t *p;
	int rf = -1;
	json_array_foreach(json_object_get(dt, "partitions"), i, p) {
		int n = (int)json_array_size(json_object_get(p, "replicas"));
		if (rf < 0 || n < rf)
			rf = n;
	}
	return rf;
}

static int brokers(json_t *cl)
{
	return (int)json_array_size(json_object_get(json_object_get(cl, "describe_cluster"), "nodes"));
}

static void no_stuck(json_t *rep, const char *what)
{
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rep, "partitions"), i, p) {
		static const char *const codes[] = { "STUCK_REMOTE_COPY", "STUCK_REMOTE_DELETE", "EPOCH_LINEAGE_GAP" };
		for (int c = 0; c < 3; c++)
			if (count_code(p, codes[c]))
				fail_msg("%s: %s-%lld: %s on a healthy broker: %s", what,
					 json_string_value(json_object_get(p, "topic")),
					 (long long)json_integer_value(json_object_get(p, "partition")), codes[c],
					 message_of(p, codes[c]));
	}
}

/* The 3-broker cluster: __remote_log_metadata with RF 1 (min.insync.replicas 2 as Kafka
 * 4.4 sets it): every tiered partition of node 1 gets the RF clause, nothing else. */
static void test_multi_broker(void **state)
{
	(void)state;
	json_t *cl = load("multi-broker", "cluster.json");
	int rf = rlmm_rf(cl), nb = brokers(cl);
	assert_int_equal(rf, 1);
	assert_int_equal(nb, 3);
	const char *mis_src, *mis = rlmm_config(cl, "min.insync.replicas", &mis_src);
	assert_string_equal(mis, "2");
	json_t *rep = scan("multi-broker", "logdir-1", "server-1.properties", now_of("multi-broker"));
	size_t i;
	json_t *p;
	int tiered = 0;
	char want[128];
	snprintf(want, sizeof(want), "replication factor is %d (the metadata log's assignment of its 5 partitions) on a "
		 "cluster of %d brokers", rf, nb);
	json_array_foreach(json_object_get(rep, "partitions"), i, p) {
		bool t = json_is_true(json_object_get(p, "remote_storage"));
		const char *topic = json_string_value(json_object_get(p, "topic"));
		if (!t) {
			assert_int_equal(count_code(p, "REMOTE_METADATA_AT_RISK"), 0);
			continue;
		}
		tiered++;
		assert_int_equal(count_code(p, "REMOTE_METADATA_AT_RISK"), 1);
		const char *m = message_of(p, "REMOTE_METADATA_AT_RISK");
		if (!strstr(m, want))
			fail_msg("%s: %s", topic, m);
		/* min.insync.replicas 2 and unlimited retention are no risk */
		assert_null(strstr(m, "min.insync.replicas"));
		assert_null(strstr(m, "retention"));
	}
	assert_true(tiered >= 4);
	no_stuck(rep, "multi-broker");
	json_decref(rep);
	/* a day after the capture, the finished copies are still not stuck */
	rep = scan("multi-broker", "logdir-1", "server-1.properties", now_of("multi-broker") + 86400000LL);
	no_stuck(rep, "multi-broker a day later");
	json_decref(rep);
	json_decref(cl);
}

/* One broker (4.3.1): the metadata topic inherits the broker's log.retention.bytes
 * (DescribeConfigs says so), a size limit on the only index of the remote tier; RF 1 on one
 * broker is no risk. */
static void test_single_broker_size_limit(void **state)
{
	(void)state;
	static const char *const dirs[] = { "cluster-meta-4.3.1", "cluster-meta" };
	for (int d = 0; d < 2; d++) {
		json_t *cl = load(dirs[d], "cluster.json");
		assert_int_equal(brokers(cl), 1);
		const char *rb_src, *rb = rlmm_config(cl, "retention.bytes", &rb_src);
		const char *rm_src, *rm = rlmm_config(cl, "retention.ms", &rm_src);
		assert_string_equal(rm, "-1");
		char want[160];
		snprintf(want, sizeof(want), "its retention.bytes is %s (%s)", rb, rb_src);
		json_t *rep = scan(dirs[d], "logdir", "server.properties", now_of(dirs[d]));
		size_t i;
		json_t *p;
		int tiered = 0;
		json_array_foreach(json_object_get(rep, "partitions"), i, p) {
			if (!json_is_true(json_object_get(p, "remote_storage"))) {
				assert_int_equal(count_code(p, "REMOTE_METADATA_AT_RISK"), 0);
				continue;
			}
			tiered++;
			const char *m = message_of(p, "REMOTE_METADATA_AT_RISK");
			if (strcmp(rb, "-1") == 0) {
				assert_null(m);
				continue;
			}
			assert_non_null(m);
			if (!strstr(m, want))
				fail_msg("%s: %s (want \"%s\")", dirs[d], m, want);
			assert_null(strstr(m, "replication factor"));
			assert_null(strstr(m, "retention.ms"));
		}
		assert_true(tiered >= 2);
		no_stuck(rep, dirs[d]);
		json_decref(rep);
		json_decref(cl);
	}
}

/* Without a metadata log nothing is known of __remote_log_metadata: no finding; and the
 * brokers' finished copies and deletes are not stuck, at the capture or a day later. */
static void test_no_metadata_log(void **state)
{
	(void)state;
	static const char *const dirs[] = { "tiered", "tiered-4.3.1", "retention-cap", "retention-cap-4.3.1", "epochs" };
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		for (int later = 0; later < 2; later++) {
			json_t *rep = scan(dirs[d], "logdir", NULL, now_of(dirs[d]) + (later ? 86400000LL : 0));
			size_t i;
			json_t *p;
			json_array_foreach(json_object_get(rep, "partitions"), i, p) {
				assert_int_equal(count_code(p, "REMOTE_METADATA_AT_RISK"), 0);
				/* tiered-0 of tiered/: the aux-state lookup is exercised (local start 40) */
				if (!strcmp(dirs[d], "tiered") &&
				    !strcmp(json_string_value(json_object_get(p, "topic")), "tiered")) {
					json_t *s0 = json_array_get(json_object_get(p, "segments"), 0);
					assert_int_equal(json_integer_value(json_object_get(p, "log_start_offset")), 0);
					assert_true(json_integer_value(json_object_get(s0, "base_offset")) > 0);
				}
			}
			no_stuck(rep, dirs[d]);
			json_decref(rep);
		}
	}
}

/* --horizon over a real broker's tiered topic: the forecast is the retention of a scan at
 * --now + horizon (nothing to copy there), and each log dir's free_bytes_after adds its
 * partitions' forecast local deletes to its free_bytes. Without --horizon: no forecast. */
static void test_horizon(void **state)
{
	(void)state;
	const char *dir = "tiered";
	long long now = now_of(dir), h = 3600000;
	char *out = NULL;
	json_error_t e;
	assert_int_equal(tu_run(&out, "%s scan -q -f json --now=%lld --topic-config=%s/%s/topic-config.txt --horizon=1h "
				"%s/%s/logdir", tu_segscan(), now, FIXTURES, dir, FIXTURES, dir), 0);
	json_t *fc = json_loads(out, 0, &e);
	assert_non_null(fc);
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f json --now=%lld --topic-config=%s/%s/topic-config.txt %s/%s/logdir",
				tu_segscan(), now + h, FIXTURES, dir, FIXTURES, dir), 0);
	json_t *later = json_loads(out, 0, &e);
	assert_non_null(later);
	free(out);
	json_t *sf = json_object_get(json_object_get(fc, "summary"), "forecast");
	assert_int_equal(json_integer_value(json_object_get(sf, "horizon_ms")), h);
	assert_null(json_object_get(json_object_get(later, "summary"), "forecast"));
	size_t i;
	json_t *p;
	long long sum = 0;
	int acting = 0;
	json_array_foreach(json_object_get(fc, "partitions"), i, p) {
		json_t *f = json_object_get(p, "forecast");
		json_t *q = json_array_get(json_object_get(later, "partitions"), i);
		assert_string_equal(json_string_value(json_object_get(p, "topic")),
				    json_string_value(json_object_get(q, "topic")));
		assert_null(json_object_get(q, "forecast"));
		assert_true(json_is_object(f));
		assert_int_equal(json_integer_value(json_object_get(f, "copy_segments")), 0);
		json_t *t = json_object_get(json_object_get(q, "retention"), "total");
		assert_int_equal(json_integer_value(json_object_get(f, "local_delete_bytes")),
				 json_integer_value(json_object_get(t, "local_bytes_freed")));
		assert_int_equal(json_integer_value(json_object_get(f, "remote_delete_bytes")),
				 json_integer_value(json_object_get(t, "remote_bytes_freed")));
		sum += json_integer_value(json_object_get(f, "local_delete_bytes"));
		acting += json_integer_value(json_object_get(f, "local_delete_segments")) > 0;
	}
	assert_true(acting > 0);   /* the fixture's tiered-0 passes its local retention within the hour */
	json_t *ld = json_array_get(json_object_get(sf, "log_dirs"), 0);
	assert_true(json_integer_value(json_object_get(ld, "free_bytes")) > 0);
	assert_int_equal(json_integer_value(json_object_get(ld, "free_bytes_after")) -
				 json_integer_value(json_object_get(ld, "free_bytes")),
			 sum);
	json_decref(fc);
	json_decref(later);

	/* the metrics and the table say the same, only when asked */
	assert_int_equal(tu_run(&out, "%s scan -q -f prom --now=%lld --topic-config=%s/%s/topic-config.txt --horizon=1h "
				"%s/%s/logdir", tu_segscan(), now, FIXTURES, dir, FIXTURES, dir), 0);
	char want[96];
	snprintf(want, sizeof(want), "segscan_forecast_local_delete_bytes{topic=\"tiered\",partition=\"0\"");
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "\nsegscan_log_dir_free_bytes_after{log_dir=\""));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f prom --now=%lld %s/%s/logdir", tu_segscan(), now, FIXTURES, dir), 0);
	assert_null(strstr(out, "segscan_forecast_"));
	assert_null(strstr(out, "segscan_log_dir_free_bytes"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q --now=%lld --topic-config=%s/%s/topic-config.txt --horizon=1h %s/%s/logdir",
				tu_segscan(), now, FIXTURES, dir, FIXTURES, dir), 0);
	assert_non_null(strstr(out, "Forecast (within 3600000 ms, if nothing else is written):"));
	assert_non_null(strstr(out, "  tiered-0  local: "));
	free(out);

	/* --disable-tiering: the what-if needs --horizon (exit 2, saying so); with it, only the
	 * named topic's forecast is the what-if */
	assert_int_equal(tu_run(&out, "%s scan -q --disable-tiering=tiered %s/%s/logdir 2>&1", tu_segscan(), FIXTURES, dir), 2);
	assert_non_null(strstr(out, "--disable-tiering=tiered: a what-if of the forecast, it needs --horizon"));
	free(out);
	assert_int_equal(tu_run(&out, "%s scan -q -f json --now=%lld --topic-config=%s/%s/topic-config.txt --horizon=1h "
				"--disable-tiering=tiered %s/%s/logdir", tu_segscan(), now, FIXTURES, dir, FIXTURES, dir), 0);
	json_t *wi = json_loads(out, 0, &e);
	assert_non_null(wi);
	free(out);
	json_array_foreach(json_object_get(wi, "partitions"), i, p) {
		json_t *f = json_object_get(p, "forecast");
		bool named = !strcmp(json_string_value(json_object_get(p, "topic")), "tiered");
		assert_true(json_is_object(f));
		assert_int_equal(json_is_true(json_object_get(f, "disable_tiering")), named);
		if (named)
			assert_int_equal(json_integer_value(json_object_get(f, "copy_segments")), 0);
	}
	json_decref(wi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multi_broker),
		cmocka_unit_test(test_single_broker_size_limit),
		cmocka_unit_test(test_no_metadata_log),
		cmocka_unit_test(test_horizon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
