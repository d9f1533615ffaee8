/*
 * The metrics a fleet adds up (issue 22 item 3), on real brokers' log dirs:
 * - cardinality: at --metrics-level=partition (the default) at most 8 series per partition
 *   replica besides its findings and read errors (a healthy replica: at most 8 in all), every
 *   one with the node_id label of its log dir; --metrics-extra brings back every family the
 *   exposition had before (the contract's names); --metrics-level=topic has no partition
 *   label at all and a bounded number of series per topic;
 * - the topic level equals Kafka's own per-topic gauges: RemoteLogSizeBytes,
 *   RemoteLogMetadataCount, RemoteCopyLagSegments/Bytes of the broker that ran
 *   (tests/fixtures/kafka/cluster-meta-live/jmx.json, read over JMX while it led every
 *   partition), and counts only led partitions: the same data under another node's name
 *   leads nothing and sums 0 remote bytes, never the leader's figure a second time;
 * - segscan_partition_leader and segscan_broker_info say who is who; the stopped cluster of
 *   multi-broker names no leader: no segscan_partition_leader series, never a guessed 0 or 1.
 */
#include <jansson.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "testutil.h"

#define FX "tests/fixtures/kafka"
#define LIVE FX "/cluster-meta-live"
#define MB FX "/multi-broker"

struct sample {
	char   name[96];
	char   labels[512];
	double value;
};

struct expo {
	struct sample *s;
	size_t         n;
	char          *text;
};

static void parse(struct expo *e, char *text)
{
	e->text = text;
	e->s = NULL;
	e->n = 0;
	size_t cap = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		if (e->n == cap) {
			cap = cap ? cap * 2 : 256;
			e->s = realloc(e->s, cap * sizeof(*e->s));
			assert_non_null(e->s);
		}
		struct sample *s = &e->s[e->n++];
		memset(s, 0, sizeof(*s));
		size_t nl = strcspn(line, "{ ");
		assert_true(nl < sizeof(s->name));
		memcpy(s->name, line, nl);
		const char *v = line + nl;
		if (*v == '{') {
			const char *end = strstr(v, "} ");
			assert_non_null(end);
			assert_true((size_t)(end - v) < sizeof(s->labels));
			memcpy(s->labels, v + 1, (size_t)(end - v - 1));
			v = end + 1;
		}
		s->value = strtod(v, NULL);
	}
}

static void expo_free(struct expo *e)
{
	free(e->s);
	free(e->text);
}

static struct expo prom(const char *opts, const char *dirs)
{
	char *out = NULL;
	int rc = tu_run(&out, "%s scan -q -f prom %s %s 2>/dev/null", tu_segscan(), opts, dirs);
	assert_true(rc == 0 || rc == 1);
	struct expo e;
	parse(&e, out);
	return e;
}

/* The value of label `k` in a sample's labels ("" when absent). */
static const char *label(const struct sample *s, const char *k, char *buf, size_t n)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "%s=\"", k);
	const char *p = s->labels;
	buf[0] = 0;
	while ((p = strstr(p, pat))) {
		if (p == s->labels || p[-1] == ',') {
			p += strlen(pat);
			size_t l = strcspn(p, "\"");
			snprintf(buf, n, "%.*s", (int)l, p);
			return buf;
		}
		p++;
	}
	return buf;
}

static bool per_finding(const char *name)
{
	return !strcmp(name, "segscan_findings") || !strcmp(name, "segscan_findings_bytes") ||
	       !strcmp(name, "segscan_partition_read_errors");
}

/* Series per partition replica (topic, partition, log_dir): at most 8 besides the
 * per-finding ones, at most 8 in all for a replica without findings or errors. */
static void check_budget(const struct expo *e, int *max_seen)
{
	char t[256], p[16], l[512], t2[256], p2[16], l2[512], nid[16];
	*max_seen = 0;
	for (size_t i = 0; i < e->n; i++) {
		if (!label(&e->s[i], "partition", p, sizeof(p))[0])
			continue;
		label(&e->s[i], "topic", t, sizeof(t));
		label(&e->s[i], "log_dir", l, sizeof(l));
		/* the first sample of this replica counts them all */
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = !(!strcmp(label(&e->s[k], "partition", p2, sizeof(p2)), p) &&
				  !strcmp(label(&e->s[k], "topic", t2, sizeof(t2)), t) &&
				  !strcmp(label(&e->s[k], "log_dir", l2, sizeof(l2)), l));
		if (!first)
			continue;
		int fixed = 0, extra = 0;
		for (size_t k = i; k < e->n; k++) {
			if (strcmp(label(&e->s[k], "partition", p2, sizeof(p2)), p) ||
			    strcmp(label(&e->s[k], "topic", t2, sizeof(t2)), t) ||
			    strcmp(label(&e->s[k], "log_dir", l2, sizeof(l2)), l))
				continue;
			if (per_finding(e->s[k].name))
				extra++;
			else
				fixed++;
			/* every partition series says its node (these log dirs all have meta.properties) */
			assert_true(label(&e->s[k], "node_id", nid, sizeof(nid))[0] != 0);
		}
		if (fixed > 8)
			fail_msg("%s-%s in %s: %d series at the default level (budget 8)", t, p, l, fixed);
		if (fixed > *max_seen)
			*max_seen = fixed;
		(void)extra;
	}
}

static void test_partition_level_budget(void **state)
{
	(void)state;
	const char *sets[] = { LIVE "/logdir", MB "/logdir-1 " MB "/logdir-2 " MB "/logdir-3", FX "/tiered/logdir",
			       FX "/retention-cap/logdir", FX "/compacted/logdir" };
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct expo e = prom("", sets[i]);
		int max_seen;
		check_budget(&e, &max_seen);
		assert_true(max_seen >= 5);   /* the default families are there */
		expo_free(&e);
		/* and the extras, when asked: more series per partition than the budget */
		e = prom("--metrics-extra", sets[i]);
		char t[256];
		size_t extras = 0;
		for (size_t k = 0; k < e.n; k++)
			extras += !strcmp(e.s[k].name, "segscan_log_end_offset") && label(&e.s[k], "topic", t, sizeof(t))[0];
		assert_true(extras > 0);
		expo_free(&e);
	}
}

/* Every family name of the expositions before issue 22 is still there with --metrics-extra. */
static void test_every_old_name_available(void **state)
{
	(void)state;
	static const char *const old[] = {
		"segscan_log_size_bytes", "segscan_log_segments", "segscan_only_local_segments",
		"segscan_only_local_bytes", "segscan_remote_copy_lag_segments", "segscan_remote_copy_lag_bytes",
		"segscan_broker_reported_copy_lag_segments", "segscan_remote_dangling_segments",
		"segscan_retention_size_excess_bytes", "segscan_scan_duration_seconds", "segscan_scan_segments_total",
		"segscan_scan_bytes_read_total", "segscan_scan_errors_total", "segscan_build_info",
		"segscan_log_start_offset", "segscan_log_end_offset", "segscan_remote_size_bytes",
		"segscan_remote_highest_offset", "segscan_broker_reported_copy_lag_bytes", "segscan_remote_state_known",
		"segscan_partition_read_errors", "segscan_findings", "segscan_findings_bytes",
		"segscan_remote_dangling_bytes", "segscan_scan_exit_code", "segscan_log_dir_up",
	};
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s scan -q -f prom --metrics-extra %s/logdir 2>/dev/null", tu_segscan(), LIVE), 0);
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
		char h[160];
		snprintf(h, sizeof(h), "# TYPE %s gauge", old[i]);
		char c[160];
		snprintf(c, sizeof(c), "# TYPE %s counter", old[i]);
		if (!strstr(out, h) && !strstr(out, c))
			fail_msg("%s is not in the exposition with --metrics-extra", old[i]);
	}
	/* and the new ones */
	static const char *const added[] = { "segscan_partition_leader", "segscan_partition_tiered",
					     "segscan_retention_delete_bytes", "segscan_broker_info",
					     "segscan_remote_segments", "segscan_remote_delete_lag_segments",
					     "segscan_remote_delete_lag_bytes" };
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++) {
		char h[160];
		snprintf(h, sizeof(h), "\n%s{", added[i]);
		if (!strstr(out, h))
			fail_msg("%s has no series", added[i]);
	}
	assert_non_null(strstr(out, "kind=\"time\"}"));
	free(out);
}

/* What the broker said over JMX for one topic (tests/fixtures/kafka/.../jmx.json). */
static double jmx(json_t *j, const char *name, const char *topic)
{
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(j, "mbeans"), i, m) {
		json_t *t = json_object_get(m, "topic");
		if (strcmp(json_string_value(json_object_get(m, "name")), name) == 0 && json_is_string(t) &&
		    strcmp(json_string_value(t), topic) == 0)
			return (double)json_integer_value(json_object_get(json_object_get(m, "attributes"), "Value"));
	}
	return -1;
}

static const struct sample *find(const struct expo *e, const char *name, const char *topic)
{
	char t[256];
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->s[i].name, name) && !strcmp(label(&e->s[i], "topic", t, sizeof(t)), topic))
			return &e->s[i];
	return NULL;
}

static void test_topic_level_equals_kafka(void **state)
{
	(void)state;
	json_error_t err;
	json_t *j = json_load_file(LIVE "/jmx.json", 0, &err);
	assert_non_null(j);
	struct expo e = prom("--metrics-level=topic", LIVE "/logdir");
	char buf[64];
	int compared = 0;
	for (size_t i = 0; i < e.n; i++)
		assert_true(label(&e.s[i], "partition", buf, sizeof(buf))[0] == 0);   /* no partition series */
	static const struct { const char *ours, *kafkas; } pairs[] = {
		{ "segscan_topic_remote_size_bytes", "RemoteLogSizeBytes" },
		{ "segscan_topic_remote_segments", "RemoteLogMetadataCount" },
		{ "segscan_topic_broker_reported_copy_lag_segments", "RemoteCopyLagSegments" },
		{ "segscan_topic_broker_reported_copy_lag_bytes", "RemoteCopyLagBytes" },
		/* issue 27: the true delete lag of the partitions it leads, against the gauge of a
		 * broker whose expiration task had nothing left to delete */
		{ "segscan_topic_remote_delete_lag_segments", "RemoteDeleteLagSegments" },
		{ "segscan_topic_remote_delete_lag_bytes", "RemoteDeleteLagBytes" },
	};
	const char *topics[] = { "tiered", "single-record", "defaults", "compacted", "dyn-config", "prealloc" };
	for (size_t t = 0; t < sizeof(topics) / sizeof(topics[0]); t++) {
		for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
			double want = jmx(j, pairs[k].kafkas, topics[t]);
			if (want < 0)
				continue;
			const struct sample *s = find(&e, pairs[k].ours, topics[t]);
			if (!s)
				fail_msg("%s{topic=%s} is absent (Kafka: %s = %.0f)", pairs[k].ours, topics[t], pairs[k].kafkas,
					 want);
			if (s->value != want)
				fail_msg("%s{topic=%s} = %.0f, Kafka's %s = %.0f", pairs[k].ours, topics[t], s->value,
					 pairs[k].kafkas, want);
			compared++;
		}
	}
	assert_true(compared >= 16);
	assert_true(find(&e, "segscan_topic_remote_size_bytes", "tiered")->value > 0);
	/* a bounded number of series per topic: the 14 families and one per finding code */
	size_t per_topic = 0;
	for (size_t i = 0; i < e.n; i++)
		per_topic += !strcmp(label(&e.s[i], "topic", buf, sizeof(buf)), "tiered");
	assert_true(per_topic <= 14 + 4);
	expo_free(&e);
	json_decref(j);
}

/* The leader's data under another node's name (node 2, not among the replicas Kafka
 * assigned): it leads nothing, so the topic level counts no remote bytes for it, and the
 * partition level says leader 0 with no copy lag series. */
static void test_topic_level_counts_led_partitions_only(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("fleetm");
	assert_non_null(tmp);
	assert_int_equal(tu_run(NULL, "cp -R %s/logdir %s/ld", LIVE, tmp), 0);
	char *meta = NULL, *ld = NULL;
	assert_true(asprintf(&meta, "%s/ld/meta.properties", tmp) > 0);
	assert_true(asprintf(&ld, "%s/ld", tmp) > 0);
	char *old = tu_read_file(meta, NULL);
	assert_non_null(old);
	char *p = strstr(old, "node.id=1");
	assert_non_null(p);
	p[8] = '2';
	assert_int_equal(tu_write_file(meta, old, strlen(old)), 0);
	free(old);
	struct expo e = prom("--metrics-level=topic", ld);
	const struct sample *s = find(&e, "segscan_topic_remote_size_bytes", "tiered");
	assert_non_null(s);
	assert_true(s->value == 0);
	s = find(&e, "segscan_topic_leader_partitions", "tiered");
	assert_true(s && s->value == 0);
	s = find(&e, "segscan_topic_log_size_bytes", "tiered");
	assert_true(s && s->value > 0);   /* its own disk still counts */
	expo_free(&e);
	e = prom("", ld);
	s = find(&e, "segscan_partition_leader", "tiered");
	assert_true(s && s->value == 0);
	assert_null(find(&e, "segscan_remote_copy_lag_bytes", "tiered"));
	assert_null(find(&e, "segscan_broker_reported_copy_lag_bytes", "tiered"));
	assert_non_null(find(&e, "segscan_remote_size_bytes", "tiered"));
	expo_free(&e);
	tu_run(NULL, "rm -rf '%s'", tmp);
	free(meta);
	free(ld);
	free(tmp);
}

static void test_roles_and_broker_info(void **state)
{
	(void)state;
	struct expo e = prom("", LIVE "/logdir");
	const struct sample *s = find(&e, "segscan_partition_leader", "tiered");
	assert_true(s && s->value == 1);
	char b[64];
	size_t n = 0;
	for (size_t i = 0; i < e.n; i++) {
		if (strcmp(e.s[i].name, "segscan_broker_info"))
			continue;
		n++;
		assert_string_equal(label(&e.s[i], "node_id", b, sizeof(b)), "1");
		assert_string_equal(label(&e.s[i], "cluster_id", b, sizeof(b)), "Xo3PT4HwSgC8KsMFzv73ng");
		assert_string_equal(label(&e.s[i], "kafka_version", b, sizeof(b)), "4.4");
	}
	assert_int_equal(n, 1);
	expo_free(&e);
	/* the stopped cluster: no leader known, no leader series; one broker_info per node */
	e = prom("", MB "/logdir-1 " MB "/logdir-2 " MB "/logdir-3");
	assert_null(find(&e, "segscan_partition_leader", "mt-b"));
	n = 0;
	for (size_t i = 0; i < e.n; i++)
		n += !strcmp(e.s[i].name, "segscan_broker_info");
	assert_int_equal(n, 3);
	expo_free(&e);
}

/* The remote-store audit's partition series carry the replica's node as every partition
 * series does (an empty store: the finished segments are all missing from it). */
static void test_store_series_have_node_id(void **state)
{
	(void)state;
	char *store = tu_mkdtemp("fleet-store"), opt[600], b[64];
	assert_non_null(store);
	snprintf(opt, sizeof(opt), "--remote-store=file://%s", store);
	struct expo e = prom(opt, LIVE "/logdir");
	size_t n = 0;
	for (size_t i = 0; i < e.n; i++) {
		if (strncmp(e.s[i].name, "segscan_remote_store_bytes", 26) &&
		    strcmp(e.s[i].name, "segscan_remote_missing_objects"))
			continue;
		n++;
		assert_string_equal(label(&e.s[i], "node_id", b, sizeof(b)), "1");
	}
	assert_true(n > 0);
	expo_free(&e);
	tu_run(NULL, "rm -rf '%s'", store);
	free(store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition_level_budget),
		cmocka_unit_test(test_every_old_name_available),
		cmocka_unit_test(test_topic_level_equals_kafka),
		cmocka_unit_test(test_topic_level_counts_led_partitions_only),
		cmocka_unit_test(test_roles_and_broker_info),
		cmocka_unit_test(test_store_series_have_node_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
