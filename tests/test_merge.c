/*
 * segscan merge: the report parser (fmt/report.c) and the pure merge (merge/merge.c) on
 * reports made by hand (RF 1, 2, 3; replicas that disagree; a leader no report has;
 * different clusters and releases), the json writer's totals, and the command end to end:
 * the three brokers of tests/fixtures/kafka/multi-broker scanned one by one and merged,
 * against Kafka's own numbers (its RemoteLogSizeBytes and RemoteLogMetadataCount per
 * topic over JMX, the replicas' sizes from Admin DescribeLogDirs), a real `segscan serve`
 * read over HTTP, and an endpoint nobody answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "merge/merge.h"
#include "out/out.h"
#include "segscan.h"
#include "testutil.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures/kafka"
#endif

/* ---- reports made by hand ------------------------------------------------------------ */

struct rowspec {
	const char *topic;
	int         part;
	int         node;         /* the row's node_id; 0: none (the summary's) */
	int         replicas[4];  /* 0-terminated; replicas[0] == 0: no assignment */
	int         leader;       /* -1: null */
	int64_t     size;
	bool        remote_unknown;
	int64_t     rsegs, rbytes, hi;
	int64_t     lag_segs, lag_bytes;
	int64_t     only_bytes;
};

/* report() writes delete_lag (issue 27) when set: { rsegs, rbytes } on the leader's row, null
 * on a follower's; when clear no delete_lag key, as a report from before it existed. */
static bool g_delete_lag;

/* A scan's json report (the fields the merge reads, as the scan writes them). */
static char *report(const char *cluster, const char *version, int node, const struct rowspec *rows, int n)
{
	json_t *parts = json_array();
	for (int i = 0; i < n; i++) {
		const struct rowspec *s = &rows[i];
		json_t *o = json_pack("{s:s, s:i, s:s, s:b, s:I, s:I}", "topic", s->topic, "partition", s->part, "topic_id",
				      "AAAAAAAAAAAAAAAAAAAAAA", "remote_storage", 1, "size_bytes", (json_int_t)s->size,
				      "log_end_offset", (json_int_t)100);
		if (s->node)
			json_object_set_new(o, "node_id", json_integer(s->node));
		json_object_set_new(o, "remote",
				    json_pack("{s:b, s:o, s:o, s:I, s:I, s:i, s:i}", "seeded", !s->remote_unknown,
					      "highest_offset", s->remote_unknown ? json_null() : json_integer(s->hi),
					      "source", s->remote_unknown ? json_null() : json_string("metadata-topic"),
					      "segments", (json_int_t)s->rsegs, "size_bytes", (json_int_t)s->rbytes,
					      "dangling_segments", 0, "dangling_bytes", 0));
		if (s->remote_unknown) {
			json_object_set_new(o, "only_local", json_null());
			json_object_set_new(o, "copy_lag", json_null());
		} else {
			json_object_set_new(o, "only_local",
					    json_pack("{s:i, s:I}", "segments", 1, "size_bytes", (json_int_t)s->only_bytes));
			json_object_set_new(o, "copy_lag", json_pack("{s:I, s:I}", "segments", (json_int_t)s->lag_segs,
								     "size_bytes", (json_int_t)s->lag_bytes));
		}
		json_object_set_new(o, "broker_copy_lag", json_pack("{s:i, s:i}", "segments", 0, "size_bytes", 0));
		/* as a scan writes it: the leader's row only (a follower's is null) */
		if (g_delete_lag)
			json_object_set_new(o, "delete_lag",
					    s->remote_unknown || (s->node ? s->node : node) != s->leader
						    ? json_null()
						    : json_pack("{s:I, s:I}", "segments", (json_int_t)s->rsegs, "size_bytes",
								(json_int_t)s->rbytes));
		if (s->replicas[0]) {
			json_t *r = json_array();
			for (int k = 0; k < 4 && s->replicas[k]; k++)
				json_array_append_new(r, json_integer(s->replicas[k]));
			json_object_set_new(o, "assignment",
					    json_pack("{s:o, s:o, s:o, s:i, s:b}", "replicas", r, "isr", json_array(), "leader",
						      s->leader < 0 ? json_null() : json_integer(s->leader), "leader_epoch", 0,
						      "here", 1));
		} else {
			json_object_set_new(o, "assignment", json_null());
		}
		json_object_set_new(o, "findings", json_array());
		json_object_set_new(o, "errors", json_array());
		json_array_append_new(parts, o);
	}
	json_t *broker = json_pack("{s:o, s:o, s:s}", "node_id", node ? json_integer(node) : json_null(), "cluster_id",
				   cluster ? json_string(cluster) : json_null(), "kafka_version", "4.1");
	json_t *root = json_pack("{s:o, s:{s:s, s:i, s:o}, s:[]}", "partitions", parts, "summary", "version", version,
				 "exit_code", 0, "broker", broker, "errors");
	char *txt = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return txt;
}

#define MAXIN 4
struct merged {
	struct ss_report      reps[MAXIN];
	struct ss_merge_input in[MAXIN];
	struct ss_cluster     c;
	char                  err[1024];
	int                   rc;
};

/* Parse each text (NULL: a missing input) and merge them. */
static void merge_texts(struct merged *m, char **texts, int n)
{
	char err[512];
	static const char *names[MAXIN] = { "b1.json", "b2.json", "b3.json", "b4.json" };
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < n; i++) {
		m->in[i].name = names[i];
		if (!texts[i]) {
			m->in[i].error = "connection refused";
			continue;
		}
		int r = ss_report_parse(texts[i], strlen(texts[i]), names[i], &m->reps[i], err, sizeof(err));
		if (r)
			fail_msg("%s: %s", names[i], err);
		m->in[i].rep = &m->reps[i];
		free(texts[i]);
	}
	m->rc = ss_merge(m->in, (uint32_t)n, &m->c, m->err, sizeof(m->err));
}

static void merged_free(struct merged *m)
{
	ss_cluster_free(&m->c);
	for (int i = 0; i < MAXIN; i++)
		ss_report_free(&m->reps[i]);
}

static const struct ss_cpart *part(const struct ss_cluster *c, const char *topic, int n)
{
	for (uint32_t i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].topic, topic) && c->parts[i].partition == n)
			return &c->parts[i];
	fail_msg("no partition %s-%d in the merge", topic, n);
	return NULL;
}

static bool has_finding(const struct ss_cpart *p, const char *code)
{
	for (uint32_t i = 0; i < p->n_findings; i++)
		if (!strcmp(p->findings[i].code, code))
			return true;
	return false;
}

static const struct ss_ctotal *topic_total(const struct ss_cluster *c, const char *topic)
{
	for (uint32_t i = 0; i < c->n_topics; i++)
		if (!strcmp(c->topics[i].topic, topic))
			return &c->topics[i];
	fail_msg("no topic %s", topic);
	return NULL;
}

#define CID "aZGOJGpKSfWCYEV0Xc2Y5Q"

/* RF 1: the one replica is the leader; its numbers are the partition's and the totals. */
static void test_rf1(void **state)
{
	struct rowspec r[] = {
		{ "t", 0, 0, { 1 }, 1, 5000, false, 2, 2000, 19, 1, 100, 300 },
		{ "t", 1, 0, { 1 }, 1, 7000, false, 3, 3000, 29, 0, 0, 400 },
	};
	char *t[] = { report(CID, "0.1.0", 1, r, 2) };
	struct merged m;
	merge_texts(&m, t, 1);
	assert_int_equal(m.rc, 0);
	assert_true(m.c.complete);
	assert_int_equal(m.c.exit_code, 0);
	assert_int_equal(m.c.n_parts, 2);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_int_equal(p->leader, 1);
	assert_int_equal(p->leader_replica, 0);
	assert_true(p->remote_known);
	assert_int_equal(p->remote_bytes, 2000);
	assert_true(p->copy_lag.known);
	assert_int_equal(p->copy_lag.bytes, 100);
	assert_int_equal(p->n_findings, 0);
	const struct ss_ctotal *tt = topic_total(&m.c, "t");
	assert_true(tt->remote_bytes.known);
	assert_int_equal(tt->remote_bytes.v, 5000);
	assert_int_equal(tt->remote_segments.v, 5);
	assert_int_equal(tt->copy_lag_bytes.v, 100);
	assert_int_equal(tt->only_local_bytes.v, 700);
	assert_int_equal(tt->replica_size_bytes.v, 12000);
	assert_int_equal(m.c.total.remote_bytes.v, 5000);
	merged_free(&m);
}

/* RF 2: both replicas report the partition's remote state; it is counted once. Copy lag
 * is the leader's (the follower's row says otherwise here, so taking it would show). The
 * disk total is both replicas'. */
static void test_rf2_counted_once(void **state)
{
	struct rowspec b1[] = { { "t", 0, 0, { 2, 1 }, 2, 5000, false, 2, 2000, 19, 3, 333, 900 } };
	struct rowspec b2[] = { { "t", 0, 0, { 2, 1 }, 2, 5100, false, 2, 2000, 19, 1, 100, 300 } };
	char *t[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.1.0", 2, b2, 1) };
	struct merged m;
	merge_texts(&m, t, 2);
	assert_int_equal(m.rc, 0);
	assert_true(m.c.complete);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_int_equal(p->n_replicas, 2);
	assert_int_equal(p->leader, 2);
	assert_true(p->replicas[1].leader);
	assert_false(p->replicas[0].leader);
	assert_int_equal(p->remote_node, 2);
	assert_int_equal(m.c.total.remote_bytes.v, 2000);      /* not 4000 */
	assert_int_equal(m.c.total.remote_segments.v, 2);
	assert_int_equal(m.c.total.copy_lag_segments.v, 1);    /* the leader's, not 3 or 4 */
	assert_int_equal(m.c.total.copy_lag_bytes.v, 100);
	assert_int_equal(m.c.total.only_local_bytes.v, 300);
	assert_int_equal(m.c.total.replica_size_bytes.v, 10100);
	assert_int_equal(m.c.total.replicas, 2);
	assert_int_equal(p->n_findings, 0);
	merged_free(&m);
}

/* delete_lag (issue 27): the leader's row's, each partition once whatever the replication
 * factor; a report that predates the field (no delete_lag key) leaves it unknown. */
static void test_delete_lag(void **state)
{
	(void)state;
	struct rowspec b[3][2];
	for (int n = 0; n < 3; n++) {
		b[n][0] = (struct rowspec){ "t", 0, 0, { 1, 2, 3 }, 1, 1000, false, 3, 300, 39, 0, 0, 5 };
		b[n][1] = (struct rowspec){ "t", 1, 0, { 3, 1, 2 }, 3, 2000, false, 2, 200, 9, 0, 0, 6 };
	}
	g_delete_lag = true;
	char *t[] = { report(CID, "0.1.0", 1, b[0], 2), report(CID, "0.1.0", 2, b[1], 2),
		      report(CID, "0.1.0", 3, b[2], 2) };
	struct merged m;
	merge_texts(&m, t, 3);
	assert_int_equal(m.rc, 0);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_true(p->delete_lag.known);
	assert_int_equal(p->delete_lag.segments, 3);
	assert_int_equal(p->delete_lag.bytes, 300);
	assert_true(m.c.total.delete_lag_segments.known);
	assert_int_equal(m.c.total.delete_lag_segments.v, 3 + 2);   /* not 3 * (3 + 2) */
	assert_int_equal(m.c.total.delete_lag_bytes.v, 500);
	assert_int_equal(m.c.topics[0].delete_lag_segments.v, 5);
	/* and the cluster report carries it */
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(ss_out_cluster_json(&m.c, f, false), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"delete_lag\":{\"segments\":3,\"size_bytes\":300}"));
	assert_non_null(strstr(out, "\"delete_lag_segments\":5"));
	free(out);
	merged_free(&m);

	/* node 3's report is older: partition 1's leader row has no delete_lag */
	char *t2[3];
	t2[0] = report(CID, "0.1.0", 1, b[0], 2);
	t2[1] = report(CID, "0.1.0", 2, b[1], 2);
	g_delete_lag = false;
	t2[2] = report(CID, "0.1.0", 3, b[2], 2);
	merge_texts(&m, t2, 3);
	assert_int_equal(m.rc, 0);
	assert_false(part(&m.c, "t", 1)->delete_lag.known);
	assert_false(m.c.total.delete_lag_segments.known);
	merged_free(&m);
}

/* RF 3 over three brokers, two partitions led by different nodes: once each. */
static void test_rf3(void **state)
{
	struct rowspec b[3][2];
	for (int n = 0; n < 3; n++) {
		b[n][0] = (struct rowspec){ "t", 0, 0, { 1, 2, 3 }, 1, 1000, false, 4, 4096, 39, n == 0 ? 1 : 7, n == 0 ? 10 : 70, 5 };
		b[n][1] = (struct rowspec){ "t", 1, 0, { 3, 1, 2 }, 3, 2000, false, 1, 1024, 9, n == 2 ? 2 : 9, n == 2 ? 20 : 90, 6 };
	}
	char *t[] = { report(CID, "0.1.0", 1, b[0], 2), report(CID, "0.1.0", 2, b[1], 2),
		      report(CID, "0.1.0", 3, b[2], 2) };
	struct merged m;
	merge_texts(&m, t, 3);
	assert_int_equal(m.rc, 0);
	assert_true(m.c.complete);
	assert_int_equal(m.c.n_parts, 2);
	assert_int_equal(m.c.total.replicas, 6);
	assert_int_equal(m.c.total.remote_bytes.v, 4096 + 1024);
	assert_int_equal(m.c.total.remote_segments.v, 5);
	assert_int_equal(m.c.total.copy_lag_segments.v, 1 + 2);
	assert_int_equal(m.c.total.copy_lag_bytes.v, 10 + 20);
	assert_int_equal(m.c.total.replica_size_bytes.v, 3 * 1000 + 3 * 2000);
	assert_int_equal(m.c.n_findings, 0);
	merged_free(&m);
}

/* Two replicas with different remote state: a finding; the leader's is counted. Without
 * a leader's row nothing settles it: unknown, and so is every total over it. */
static void test_disagreeing_replicas(void **state)
{
	struct rowspec b1[] = { { "t", 0, 0, { 1, 2 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	struct rowspec b2[] = { { "t", 0, 0, { 1, 2 }, 1, 5000, false, 1, 1000, 9, 0, 0, 1 } };
	char *t[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.1.0", 2, b2, 1) };
	struct merged m;
	merge_texts(&m, t, 2);
	assert_int_equal(m.rc, 0);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_true(has_finding(p, "REMOTE_STATE_DISAGREEMENT"));
	assert_non_null(strstr(p->findings[0].message, "node 1: highest offset 19, 2 segments, 2000 bytes"));
	assert_non_null(strstr(p->findings[0].message, "node 2: highest offset 9, 1 segments, 1000 bytes"));
	assert_true(p->remote_known);
	assert_int_equal(p->remote_node, 1);
	assert_int_equal(m.c.total.remote_bytes.v, 2000);
	merged_free(&m);

	/* no leader: the metadata says none */
	b1[0].leader = b2[0].leader = -1;
	char *t2[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.1.0", 2, b2, 1) };
	merge_texts(&m, t2, 2);
	assert_int_equal(m.rc, 0);
	p = part(&m.c, "t", 0);
	assert_true(has_finding(p, "REMOTE_STATE_DISAGREEMENT"));
	assert_true(has_finding(p, "LEADER_NOT_REPORTED"));
	assert_false(p->remote_known);
	assert_false(m.c.total.remote_bytes.known);
	assert_false(topic_total(&m.c, "t")->remote_bytes.known);
	assert_false(m.c.total.copy_lag_bytes.known);
	merged_free(&m);

	/* agreement with one replica not knowing: the one that knows is counted */
	struct rowspec c1[] = { { "t", 0, 0, { 1, 2 }, -1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	struct rowspec c2[] = { { "t", 0, 0, { 1, 2 }, -1, 5000, true, 0, 0, 0, 0, 0, 0 } };
	char *t3[] = { report(CID, "0.1.0", 1, c1, 1), report(CID, "0.1.0", 2, c2, 1) };
	merge_texts(&m, t3, 2);
	p = part(&m.c, "t", 0);
	assert_false(has_finding(p, "REMOTE_STATE_DISAGREEMENT"));
	assert_true(p->remote_known);
	assert_int_equal(p->remote_bytes, 2000);
	assert_int_equal(m.c.total.remote_bytes.v, 2000);
	assert_false(m.c.total.copy_lag_bytes.known); /* no leader */
	merged_free(&m);
}

/* The leader is node 3, which no report covers: no scanned broker leads the partition,
 * the replica on 3 is not reported, and no total is shown as complete. */
static void test_missing_leader(void **state)
{
	struct rowspec b1[] = { { "t", 0, 0, { 3, 1 }, 3, 5000, false, 2, 2000, 19, 0, 0, 1 },
				{ "t", 1, 0, { 1 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	char *t[] = { report(CID, "0.1.0", 1, b1, 2) };
	struct merged m;
	merge_texts(&m, t, 1);
	assert_int_equal(m.rc, 0);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_true(has_finding(p, "LEADER_NOT_REPORTED"));
	assert_true(has_finding(p, "REPLICA_NOT_REPORTED"));
	assert_int_equal(p->leader_replica, -1);
	assert_false(p->copy_lag.known);
	assert_true(p->remote_known); /* the follower knows the remote state */
	assert_false(m.c.complete);
	assert_int_equal(m.c.exit_code, 1);
	assert_int_equal(m.c.n_unreported, 1);
	assert_int_equal(m.c.unreported[0], 3);
	assert_false(m.c.total.remote_bytes.known);
	assert_false(topic_total(&m.c, "t")->remote_bytes.known);
	assert_int_equal(part(&m.c, "t", 1)->n_findings, 0);
	merged_free(&m);
}

/* An endpoint that gave no report: listed as missing, the others merged, no total. */
static void test_missing_input(void **state)
{
	struct rowspec b1[] = { { "t", 0, 0, { 1 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	char *t[] = { report(CID, "0.1.0", 1, b1, 1), NULL };
	struct merged m;
	merge_texts(&m, t, 2);
	assert_int_equal(m.rc, 0);
	assert_int_equal(m.c.n_missing, 1);
	assert_null(m.c.brokers[1].rep);
	assert_int_equal(m.c.n_parts, 1);
	assert_true(part(&m.c, "t", 0)->remote_known);
	assert_false(m.c.complete);
	assert_int_equal(m.c.exit_code, 1);
	assert_false(m.c.total.remote_bytes.known);
	assert_non_null(strstr(m.c.why[0], "b2.json is missing: connection refused"));

	/* json: the total is null, the broker listed as missing */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ss_out_cluster_json(&m.c, f, false), 0);
	fclose(f);
	json_error_t je;
	json_t *o = json_loads(buf, 0, &je);
	assert_non_null(o);
	json_t *sum = json_object_get(o, "summary");
	assert_true(json_is_false(json_object_get(sum, "complete")));
	assert_true(json_is_null(json_object_get(sum, "remote_bytes")));
	json_t *b = json_array_get(json_object_get(sum, "brokers"), 1);
	assert_string_equal(json_string_value(json_object_get(b, "status")), "missing");
	assert_string_equal(json_string_value(json_object_get(b, "error")), "connection refused");
	assert_int_equal(json_integer_value(json_object_get(sum, "exit_code")), 1);
	json_decref(o);
	free(buf);
	merged_free(&m);
}

/* Reports of two clusters, or of two releases: a usage error naming both. */
static void test_mismatched_reports(void **state)
{
	struct rowspec b1[] = { { "t", 0, 0, { 1 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	struct rowspec b2[] = { { "t", 1, 0, { 2 }, 2, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	char *t[] = { report(CID, "0.1.0", 1, b1, 1), report("OtherClusterIdxxxxxxxx", "0.1.0", 2, b2, 1) };
	struct merged m;
	merge_texts(&m, t, 2);
	assert_int_equal(m.rc, SEGSCAN_EMISMATCH);
	assert_non_null(strstr(m.err, "different clusters"));
	assert_non_null(strstr(m.err, "b1.json (cluster " CID ")"));
	assert_non_null(strstr(m.err, "b2.json (cluster OtherClusterIdxxxxxxxx)"));
	merged_free(&m);

	char *t2[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.2.0", 2, b2, 1) };
	merge_texts(&m, t2, 2);
	assert_int_equal(m.rc, SEGSCAN_EMISMATCH);
	assert_non_null(strstr(m.err, "b1.json (segscan 0.1.0) and b2.json (segscan 0.2.0)"));
	merged_free(&m);

	/* one with, one without a cluster id: not provably one cluster */
	char *t3[] = { report(CID, "0.1.0", 1, b1, 1), report(NULL, "0.1.0", 2, b2, 1) };
	merge_texts(&m, t3, 2);
	assert_int_equal(m.rc, SEGSCAN_EMISMATCH);
	assert_non_null(strstr(m.err, "b2.json has no cluster id"));
	merged_free(&m);

	/* the same broker twice would count its replicas twice */
	char *t4[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.1.0", 1, b1, 1) };
	merge_texts(&m, t4, 2);
	assert_int_equal(m.rc, SEGSCAN_EMISMATCH);
	assert_non_null(strstr(m.err, "node 1's replica of t-0 is in b1.json and in b2.json"));
	merged_free(&m);

	/* a row that says no node (and neither does its summary) */
	char *t5[] = { report(CID, "0.1.0", 0, b1, 1) };
	merge_texts(&m, t5, 1);
	assert_int_equal(m.rc, SEGSCAN_EMISMATCH);
	assert_non_null(strstr(m.err, "b1.json: partition t-0 has no node id"));
	merged_free(&m);
}

/* A row's own node_id (a scan of several brokers' dirs) wins over the summary's. */
static void test_row_node_id(void **state)
{
	struct rowspec b[] = { { "t", 0, 1, { 1, 2 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 },
			       { "t", 0, 2, { 1, 2 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	char *t[] = { report(CID, "0.1.0", 0, b, 2) };
	struct merged m;
	merge_texts(&m, t, 1);
	assert_int_equal(m.rc, 0);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_int_equal(p->n_replicas, 2);
	assert_int_equal(p->replicas[0].node_id, 1);
	assert_int_equal(p->replicas[1].node_id, 2);
	assert_true(m.c.complete);
	assert_int_equal(m.c.total.remote_bytes.v, 2000);
	merged_free(&m);
}

/* Replicas whose metadata logs were read at different points. */
static void test_assignment_disagreement(void **state)
{
	struct rowspec b1[] = { { "t", 0, 0, { 1, 2 }, 1, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	struct rowspec b2[] = { { "t", 0, 0, { 1, 2 }, 2, 5000, false, 2, 2000, 19, 0, 0, 1 } };
	char *t[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.1.0", 2, b2, 1) };
	struct merged m;
	merge_texts(&m, t, 2);
	assert_int_equal(m.rc, 0);
	const struct ss_cpart *p = part(&m.c, "t", 0);
	assert_true(has_finding(p, "ASSIGNMENT_DISAGREEMENT"));
	assert_int_equal(p->leader_replica, -1);
	assert_false(m.c.complete);
	assert_false(m.c.total.copy_lag_bytes.known);
	merged_free(&m);

	/* the same assignment, two topic ids: two incarnations of the topic */
	b2[0].leader = 1;
	char *t2[] = { report(CID, "0.1.0", 1, b1, 1), report(CID, "0.1.0", 2, b2, 1) };
	json_t *o = json_loads(t2[1], 0, NULL);
	json_object_set_new(json_array_get(json_object_get(o, "partitions"), 0), "topic_id",
			    json_string("BBBBBBBBBBBBBBBBBBBBBB"));
	free(t2[1]);
	t2[1] = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	merge_texts(&m, t2, 2);
	assert_int_equal(m.rc, 0);
	p = part(&m.c, "t", 0);
	assert_true(has_finding(p, "ASSIGNMENT_DISAGREEMENT"));
	assert_non_null(strstr(p->findings[0].message, "different topic ids"));
	assert_int_equal(p->leader_replica, -1);
	assert_false(m.c.complete);
	merged_free(&m);
}

/* ---- the parser ---------------------------------------------------------------------- */

static int parse(const char *txt, char *err, size_t errlen)
{
	struct ss_report rep = { 0 };
	int r = ss_report_parse(txt, strlen(txt), "r.json", &rep, err, errlen);
	ss_report_free(&rep);
	return r;
}

static void test_parse_errors(void **state)
{
	char err[512];
	assert_int_equal(parse("{\"partitions\": [\n  {\"topic\": \"t\",, }\n]}", err, sizeof(err)), SEGSCAN_EJSON);
	assert_non_null(strstr(err, "r.json: line 2, column"));
	assert_non_null(strstr(err, "byte"));
	assert_int_equal(parse("{\"partitions\":[], \"summary\":{\"version\":\"1\"}, \"summary\":{}}", err, sizeof(err)),
			 SEGSCAN_EJSON);
	assert_non_null(strstr(err, "duplicate"));
	assert_int_equal(parse("{\"topic\":\"t\",\"partition\":0}", err, sizeof(err)), SEGSCAN_EJSON);
	assert_non_null(strstr(err, "not ndjson"));
	assert_int_equal(parse("{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"remote\":{\"seeded\":true,"
			       "\"segments\":\"2\",\"size_bytes\":1,\"dangling_segments\":0,\"dangling_bytes\":0}}],"
			       "\"summary\":{\"version\":\"0.1.0\"}}", err, sizeof(err)), SEGSCAN_EJSON);
	assert_string_equal(err, "r.json: partitions[0] (t-0): remote.segments: expected an integer or null");
	/* null counts are unknown; a mixture is not what a scan writes */
	assert_int_equal(parse("{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"remote\":{\"seeded\":false,"
			       "\"segments\":null,\"size_bytes\":null,\"dangling_segments\":null,\"dangling_bytes\":null}}],"
			       "\"summary\":{\"version\":\"0.1.0\"}}", err, sizeof(err)), 0);
	assert_int_equal(parse("{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"remote\":{\"seeded\":true,"
			       "\"segments\":2,\"size_bytes\":null,\"dangling_segments\":0,\"dangling_bytes\":0}}],"
			       "\"summary\":{\"version\":\"0.1.0\"}}", err, sizeof(err)), SEGSCAN_EJSON);
	assert_string_equal(err, "r.json: partitions[0] (t-0): remote.size_bytes: null while the other remote counts are integers");
	assert_int_equal(parse("{\"partitions\":[{\"partition\":0}],\"summary\":{\"version\":\"0.1.0\"}}", err,
			       sizeof(err)), SEGSCAN_EJSON);
	assert_string_equal(err, "r.json: partitions[0]: topic: missing (expected a string)");
	assert_int_equal(parse("{\"partitions\":[{\"topic\":\"t\",\"partition\":-1}],\"summary\":{\"version\":\"0.1.0\"}}",
			       err, sizeof(err)), SEGSCAN_EJSON);
	assert_non_null(strstr(err, "partition: -1 is out of range"));
	assert_int_equal(parse("{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"assignment\":{\"replicas\":[1,1]}}],"
			       "\"summary\":{\"version\":\"0.1.0\"}}", err, sizeof(err)), SEGSCAN_EJSON);
	assert_non_null(strstr(err, "node 1 listed twice"));
	assert_int_equal(parse("", err, sizeof(err)), SEGSCAN_EJSON);
	assert_int_equal(parse("[]", err, sizeof(err)), SEGSCAN_EJSON);
	/* a well-formed minimal report */
	assert_int_equal(parse("{\"partitions\":[],\"summary\":{\"version\":\"0.1.0\"}}", err, sizeof(err)), 0);
}

/* ---- the command --------------------------------------------------------------------- */

static json_t *load_json(const char *path)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je);
	if (!o)
		fail_msg("%s: %s", path, je.text);
	return o;
}

static json_t *load_json_path(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return load_json(p);
}

/* A copy of each broker's log dir of the multi-broker fixture, each with the cluster's
 * metadata log: every node of a KRaft cluster keeps a replica of __cluster_metadata-0
 * (the capture kept node 1's), and a node's identity is the meta.properties of the dir
 * that holds it. Each is scanned alone (-f json), with the fixture's remote state (what
 * __remote_log_metadata held, all five partitions). */
static char *scan_fixture_brokers(void)
{
	char *dir = tu_mkdtemp("merge-mb");
	assert_non_null(dir);
	const char *F = FIXTURES "/multi-broker";
	for (int n = 1; n <= 3; n++) {
		assert_int_equal(tu_run(NULL, "cp -R %s/logdir-%d %s/ && { [ %d = 1 ] || cp -R %s/logdir-1/__cluster_metadata-0 "
				 "%s/logdir-%d/; }", F, n, dir, n, F, dir, n), 0);
		assert_int_equal(tu_run(NULL, "%s scan -q -f json --remote-state=%s/remote-state.ndjson %s/logdir-%d > %s/b%d.json",
					tu_segscan(), F, dir, n, dir, n), 0);
	}
	return dir;
}

/* The three brokers merged: each partition once, and the numbers Kafka's own. */
static void test_fixture_end_to_end(void **state)
{
	char *dir = scan_fixture_brokers();
	char *out = NULL;
	int rc = tu_run(&out, "%s merge -f json %s/b1.json %s/b2.json %s/b3.json", tu_segscan(), dir, dir, dir);
	assert_int_equal(rc, 0);
	json_error_t je;
	json_t *m = json_loads(out, 0, &je);
	assert_non_null(m);
	json_t *sum = json_object_get(m, "summary");
	json_t *cs = load_json(FIXTURES "/multi-broker/case.json");
	assert_true(json_is_true(json_object_get(sum, "complete")));
	assert_string_equal(json_string_value(json_object_get(sum, "cluster_id")),
			    json_string_value(json_object_get(cs, "cluster_id")));

	/* per topic: Kafka's RemoteLogSizeBytes and RemoteLogMetadataCount, reported by each
	 * leader for the partitions it led when read, summed over the three brokers' JMX */
	const char *topics[] = { "mt-a", "mt-b" };
	for (int ti = 0; ti < 2; ti++) {
		int64_t kbytes = 0, ksegs = 0;
		for (int n = 1; n <= 3; n++) {
			char p[256];
			snprintf(p, sizeof(p), FIXTURES "/multi-broker/jmx-%d.json", n);
			json_t *j = load_json(p), *mb;
			size_t i;
			json_array_foreach(json_object_get(j, "mbeans"), i, mb) {
				const char *t = json_string_value(json_object_get(mb, "topic"));
				if (!t || strcmp(t, topics[ti]) || json_is_integer(json_object_get(mb, "partition")))
					continue;
				const char *name = json_string_value(json_object_get(mb, "name"));
				json_int_t v = json_integer_value(json_object_get(json_object_get(mb, "attributes"), "Value"));
				if (!strcmp(name, "RemoteLogSizeBytes"))
					kbytes += v;
				else if (!strcmp(name, "RemoteLogMetadataCount"))
					ksegs += v;
			}
			json_decref(j);
		}
		assert_true(kbytes > 0 && ksegs > 0);
		json_t *tt = NULL, *x;
		size_t i;
		json_array_foreach(json_object_get(m, "topics"), i, x)
			if (!strcmp(json_string_value(json_object_get(x, "topic")), topics[ti]))
				tt = x;
		assert_non_null(tt);
		assert_int_equal(json_integer_value(json_object_get(tt, "remote_bytes")), kbytes);
		assert_int_equal(json_integer_value(json_object_get(tt, "remote_segments")), ksegs);
	}

	/* per partition: each replica's local size is the one Admin DescribeLogDirs gave for
	 * that node, and every replica the assignment lists is there */
	json_t *adm = load_json(FIXTURES "/multi-broker/admin.json"), *ap;
	size_t i;
	int checked = 0;
	json_array_foreach(json_object_get(adm, "partitions"), i, ap) {
		const char *t = json_string_value(json_object_get(ap, "topic"));
		if (strncmp(t, "mt-", 3))
			continue;
		int pn = (int)json_integer_value(json_object_get(ap, "partition"));
		json_t *mp = NULL, *x;
		size_t k;
		json_array_foreach(json_object_get(m, "partitions"), k, x)
			if (!strcmp(json_string_value(json_object_get(x, "topic")), t) &&
			    json_integer_value(json_object_get(x, "partition")) == pn)
				mp = x;
		assert_non_null(mp);
		json_t *rld = json_object_get(ap, "replica_log_dirs"), *rv;
		const char *node;
		assert_int_equal(json_array_size(json_object_get(mp, "replicas")), json_object_size(rld));
		json_object_foreach(rld, node, rv) {
			bool found = false;
			json_t *rep;
			size_t q;
			json_array_foreach(json_object_get(mp, "replicas"), q, rep)
				if (json_integer_value(json_object_get(rep, "node_id")) == atoi(node)) {
					assert_int_equal(json_integer_value(json_object_get(rep, "size_bytes")),
							 json_integer_value(json_object_get(rv, "size_bytes")));
					found = true;
				}
			assert_true(found);
		}
		/* the remote state's highest offset is Kafka's ListOffsets LATEST_TIERED */
		assert_int_equal(json_integer_value(json_object_get(json_object_get(mp, "remote"), "highest_offset")),
				 json_integer_value(json_object_get(ap, "latest_tiered_offset")));
		/* no finding says replicas disagree or are missing */
		json_t *fd;
		json_array_foreach(json_object_get(mp, "findings"), k, fd) {
			const char *code = json_string_value(json_object_get(fd, "code"));
			assert_string_not_equal(code, "REMOTE_STATE_DISAGREEMENT");
			assert_string_not_equal(code, "REPLICA_NOT_REPORTED");
		}
		checked++;
	}
	assert_int_equal(checked, 9);
	json_decref(adm);
	json_decref(cs);
	json_decref(m);
	free(out);

	/* two of the three: node 3's replicas are missing, and no total claims to be whole */
	rc = tu_run(&out, "%s merge -f json %s/b1.json %s/b2.json", tu_segscan(), dir, dir);
	assert_int_equal(rc, 1);
	m = json_loads(out, 0, &je);
	assert_non_null(m);
	sum = json_object_get(m, "summary");
	assert_true(json_is_false(json_object_get(sum, "complete")));
	assert_true(json_is_null(json_object_get(sum, "remote_bytes")));
	assert_int_equal(json_integer_value(json_array_get(json_object_get(sum, "unreported_nodes"), 0)), 3);
	json_decref(m);
	free(out);

	/* the table names the cluster and each report */
	rc = tu_run(&out, "%s merge %s/b1.json %s/b2.json %s/b3.json", tu_segscan(), dir, dir, dir);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "topic mt-b: 3 partitions, remote 6 seg/"));
	assert_null(tu_raw_control(out));
	free(out);

	/* ndjson: one partition a line */
	rc = tu_run(&out, "%s merge -f ndjson %s/b1.json %s/b2.json %s/b3.json | wc -l", tu_segscan(), dir, dir, dir);
	assert_int_equal(rc, 0);
	assert_int_equal(atoi(out), 15);
	free(out);

	/* different clusters: exit 2 naming both */
	assert_int_equal(tu_run(NULL, "sed 's/\"cluster_id\": *\"[^\"]*\"/\"cluster_id\":\"Other\"/' %s/b2.json > %s/other.json",
				dir, dir), 0);
	rc = tu_run(&out, "%s merge %s/b1.json %s/other.json 2>&1 >/dev/null", tu_segscan(), dir, dir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "different clusters"));
	assert_non_null(strstr(out, "other.json (cluster Other)"));
	free(out);

	/* node 1 scanned without the remote state: its tiered partitions' metadata lives in
	 * __remote_log_metadata partitions no scanned dir holds, so the scan writes their remote
	 * counts null (REMOTE_STATE_UNKNOWN); merge reads that as unknown, not as a bad report:
	 * the partitions other replicas report are counted from them, node 1's alone unknown */
	assert_int_equal(tu_run(NULL, "%s scan -q -f json %s/logdir-1 > %s/b1-unknown.json", tu_segscan(), dir, dir), 0);
	json_t *u = load_json_path(dir, "b1-unknown.json"), *ux;
	size_t ui;
	char nulls[16][32];
	int n_nulls = 0;
	json_array_foreach(json_object_get(u, "partitions"), ui, ux) {
		json_t *rm = json_object_get(ux, "remote");
		if (n_nulls < 16 && json_is_object(rm) && json_is_null(json_object_get(rm, "segments"))) {
			assert_true(json_is_null(json_object_get(rm, "size_bytes")));
			snprintf(nulls[n_nulls++], sizeof(nulls[0]), "%s-%lld", json_string_value(json_object_get(ux, "topic")),
				 (long long)json_integer_value(json_object_get(ux, "partition")));
		}
	}
	json_decref(u);
	assert_true(n_nulls >= 2);   /* mt-a-0 (node 1 alone), mt-b-0 and mt-b-2 (with node 2, 3) */
	rc = tu_run(&out, "%s merge -f json %s/b1-unknown.json %s/b2.json %s/b3.json 2>&1", tu_segscan(), dir, dir, dir);
	assert_int_equal(rc, 0);
	assert_null(strstr(out, "expected an integer"));
	m = json_loads(out, 0, &je);
	assert_non_null(m);
	int from_other = 0, alone = 0;
	json_array_foreach(json_object_get(m, "partitions"), ui, ux) {
		char name[32];
		snprintf(name, sizeof(name), "%s-%lld", json_string_value(json_object_get(ux, "topic")),
			 (long long)json_integer_value(json_object_get(ux, "partition")));
		bool was_null = false;
		for (int k = 0; k < n_nulls; k++)
			was_null |= !strcmp(nulls[k], name);
		if (!was_null)
			continue;
		json_t *rm = json_object_get(ux, "remote");
		if (json_array_size(json_object_get(ux, "replicas")) > 1) {
			/* counted from a replica whose scan knows it */
			assert_true(json_is_object(rm));
			assert_int_not_equal(json_integer_value(json_object_get(rm, "from_node")), 1);
			assert_true(json_is_integer(json_object_get(rm, "segments")));
			from_other++;
		} else {
			assert_true(json_is_null(rm));   /* node 1's alone: unknown */
			alone++;
		}
	}
	assert_true(from_other >= 1 && alone >= 1);
	/* a total over an unknown is unknown */
	assert_true(json_is_null(json_object_get(json_object_get(m, "summary"), "remote_bytes")));
	json_decref(m);
	free(out);

	/* a report that does not parse: exit 2 naming the file and the place */
	assert_int_equal(tu_run(NULL, "head -c 300 %s/b1.json > %s/cut.json", dir, dir), 0);
	rc = tu_run(&out, "%s merge %s/cut.json 2>&1 >/dev/null", tu_segscan(), dir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "cut.json: line "));
	free(out);
	tu_run(NULL, "rm -rf '%s'", dir);
	free(dir);
}

/* ---- serve endpoints ------------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A loopback port bound (not listening) by this process: nobody answers on it while fd is
 * open, so a connection is refused at once. */
static int bound_port(int *fd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&sa, &sl), 0);
	return ntohs(sa.sin_port);
}

static pid_t g_serve;

static int kill_serve(void **state)
{
	if (g_serve > 0) {
		kill(g_serve, SIGKILL);
		waitpid(g_serve, NULL, 0);
	}
	g_serve = 0;
	return 0;
}

/* `segscan serve` of one fixture broker's dir on a free loopback port, ready (its first
 * scan published: /healthz answers 200 to `curl PROBE URL/healthz`, URL
 * SCHEME://127.0.0.1:PORT). extra: one more serve option, or NULL. */
static int start_serve_ex(const char *logdir, const char *log, const char *extra, const char *scheme,
			  const char *probe)
{
	for (int attempt = 0; attempt < 10; attempt++) {
		int fd, port = bound_port(&fd);
		close(fd); /* free again: serve binds it (another process may take it first: retried) */
		char listen[64];
		snprintf(listen, sizeof(listen), "--listen=127.0.0.1:%d", port);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int lf = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(lf, 2);
			int nf = open("/dev/null", O_RDWR);
			dup2(nf, 0);
			dup2(nf, 1);
			const char *av[] = { tu_segscan(), "serve", listen, "--interval=3600",
					     "--remote-state=" FIXTURES "/multi-broker/remote-state.ndjson",
					     extra ? extra : logdir, extra ? logdir : NULL, NULL };
			execv(av[0], (char **)av);
			_exit(127);
		}
		g_serve = pid;
		/* bounded generously: a sanitizer build on a loaded machine */
		double deadline = now_s() + 120;
		while (now_s() < deadline) {
			int st;
			if (waitpid(pid, &st, WNOHANG) == pid) {
				g_serve = 0;
				char *l = tu_read_file(log, NULL);
				bool in_use = l && strstr(l, "Address already in use");
				if (!in_use)
					fail_msg("serve exited at start: %s", l ? l : "");
				free(l);
				pid = 0;
				break;
			}
			char *out = NULL;
			int rc = tu_run(&out, "curl -s -o /dev/null -w '%%{http_code}' --max-time 5 %s %s://127.0.0.1:%d/healthz",
					probe, scheme, port);
			bool up = rc == 0 && out && !strcmp(out, "200");
			free(out);
			if (up)
				return port;
			usleep(50 * 1000);
		}
		if (pid)
			fail_msg("serve did not publish its first scan within 120 s");
	}
	fail_msg("no free port for serve after 10 tries");
	return -1;
}

static int start_serve(const char *logdir, const char *log)
{
	return start_serve_ex(logdir, log, NULL, "http", "");
}

/* A real serve's /v1/partitions merged with two report files, the same as three files;
 * an endpoint nobody answers is listed as missing, exit 1, the others merged. */
static void test_serve_endpoint(void **state)
{
	char *dir = scan_fixture_brokers();
	char log[512], ld[512];
	snprintf(log, sizeof(log), "%s/serve.log", dir);
	snprintf(ld, sizeof(ld), "%s/logdir-2", dir);
	int port = start_serve(ld, log);

	char *files = NULL, *mixed = NULL;
	assert_int_equal(tu_run(&files, "%s merge -f json %s/b1.json %s/b2.json %s/b3.json", tu_segscan(), dir, dir, dir), 0);
	assert_int_equal(tu_run(&mixed, "%s merge -f json %s/b1.json http://127.0.0.1:%d %s/b3.json", tu_segscan(), dir, port,
				dir), 0);
	json_t *a = json_loads(files, 0, NULL), *b = json_loads(mixed, 0, NULL);
	assert_non_null(a);
	assert_non_null(b);
	/* the same partitions and totals; only the report names differ */
	json_t *sa = json_object_get(a, "summary"), *sb = json_object_get(b, "summary");
	const char *keys[] = { "partitions", "replicas", "remote_bytes", "remote_segments", "replica_size_bytes" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_true(json_equal(json_object_get(sa, keys[i]), json_object_get(sb, keys[i])));
	assert_true(json_is_true(json_object_get(sb, "complete")));
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/partitions", port);
	json_t *br = json_array_get(json_object_get(sb, "brokers"), 1);
	assert_string_equal(json_string_value(json_object_get(br, "report")), url);
	assert_int_equal(json_integer_value(json_object_get(br, "node_id")), 2);
	assert_true(json_equal(json_object_get(a, "topics"), json_object_get(b, "topics")));
	json_decref(a);
	json_decref(b);
	free(files);
	free(mixed);

	/* nobody answers: missing, exit 1, the others merged, no total */
	int fd, dead = bound_port(&fd);
	char *out = NULL;
	int rc = tu_run(&out, "%s merge -f json %s/b1.json http://127.0.0.1:%d %s/b3.json 2>%s/err.txt", tu_segscan(), dir,
			dead, dir, dir);
	close(fd);
	assert_int_equal(rc, 1);
	json_t *m = json_loads(out, 0, NULL);
	assert_non_null(m);
	json_t *sum = json_object_get(m, "summary");
	br = json_array_get(json_object_get(sum, "brokers"), 1);
	assert_string_equal(json_string_value(json_object_get(br, "status")), "missing");
	assert_non_null(strstr(json_string_value(json_object_get(br, "error")), "127.0.0.1"));
	assert_true(json_is_false(json_object_get(sum, "complete")));
	assert_true(json_is_null(json_object_get(sum, "remote_bytes")));
	assert_true(json_array_size(json_object_get(m, "partitions")) > 0);
	json_decref(m);
	free(out);
	char errp[600];
	snprintf(errp, sizeof(errp), "%s/err.txt", dir);
	char *err = tu_read_file(errp, NULL);
	assert_non_null(err);
	assert_non_null(strstr(err, "segscan: warning: http://127.0.0.1:"));
	free(err);

	/* credentials in a URL are refused (they show in ps): exit 2 */
	rc = tu_run(NULL, "%s merge http://u:p@127.0.0.1:%d 2>/dev/null", tu_segscan(), port);
	assert_int_equal(rc, 2);

	kill_serve(state);
	tu_run(NULL, "rm -rf '%s'", dir);
	free(dir);
}

/* serve behind --web.config.file (TLS, basic auth), read with --http.config.file: the
 * Prometheus client format. Its certificate names only broker-2 (not 127.0.0.1), so the
 * name check passes only with tls_config.server_name; a wrong password or no CA makes the
 * broker missing (exit 1), never a merged total. */
static void test_serve_tls_auth(void **state)
{
	char *dir = scan_fixture_brokers();
	assert_int_equal(tu_run(NULL, "cd '%s' && openssl req -x509 -newkey rsa:2048 -nodes -keyout server.key "
				 "-out server.crt -days 2 -subj /CN=broker-2 -addext subjectAltName=DNS:broker-2 "
				 ">/dev/null 2>&1", dir), 0);
	char salt[64], path[700], text[1024], web[760], log[600], ld[600];
	struct crypt_data cd;
	memset(&cd, 0, sizeof(cd));
	assert_non_null(crypt_gensalt_rn("$2b$", 5, NULL, 0, salt, sizeof(salt)));
	const char *hash = crypt_r("hunter2", salt, &cd);
	assert_non_null(hash);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	int n = snprintf(text, sizeof(text), "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
			 "basic_auth_users:\n  merger: %s\n", hash);
	assert_int_equal(tu_write_file(path, text, (size_t)n), 0);
	snprintf(web, sizeof(web), "--web.config.file=%s", path);
	snprintf(log, sizeof(log), "%s/serve.log", dir);
	snprintf(ld, sizeof(ld), "%s/logdir-2", dir);
	char probe[800];
	snprintf(probe, sizeof(probe), "--cacert '%s/server.crt' --resolve broker-2:0:127.0.0.1 -k -u merger:hunter2", dir);
	int port = start_serve_ex(ld, log, web, "https", probe);

	/* the client side: relative files, a password file */
	snprintf(path, sizeof(path), "%s/pass", dir);
	assert_int_equal(tu_write_file(path, "hunter2\n", 8), 0);
	snprintf(path, sizeof(path), "%s/wrong", dir);
	assert_int_equal(tu_write_file(path, "hunter3\n", 8), 0);
	const char *good = "basic_auth:\n  username: merger\n  password_file: pass\ntls_config:\n  ca_file: server.crt\n"
			   "  server_name: broker-2\n";
	const char *wrong = "basic_auth:\n  username: merger\n  password_file: wrong\ntls_config:\n  ca_file: server.crt\n"
			    "  server_name: broker-2\n";
	const char *noname = "basic_auth:\n  username: merger\n  password_file: pass\ntls_config:\n  ca_file: server.crt\n";
	const char *cfgs[] = { good, wrong, noname };
	const char *names[] = { "good.yml", "wrong.yml", "noname.yml" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_int_equal(tu_write_file(path, cfgs[i], strlen(cfgs[i])), 0);
	}
	char *out = NULL;
	int rc = tu_run(&out, "%s merge -f json --http.config.file=%s/good.yml %s/b1.json https://127.0.0.1:%d %s/b3.json",
			tu_segscan(), dir, dir, port, dir);
	assert_int_equal(rc, 0);
	json_t *m = json_loads(out, 0, NULL);
	assert_non_null(m);
	json_t *sum = json_object_get(m, "summary");
	assert_true(json_is_true(json_object_get(sum, "complete")));
	json_t *br = json_array_get(json_object_get(sum, "brokers"), 1);
	assert_string_equal(json_string_value(json_object_get(br, "status")), "ok");
	assert_int_equal(json_integer_value(json_object_get(br, "node_id")), 2);
	json_decref(m);
	free(out);

	for (int i = 1; i < 3; i++) {
		rc = tu_run(&out, "%s merge -f json --http.config.file=%s/%s %s/b1.json https://127.0.0.1:%d %s/b3.json 2>/dev/null",
			    tu_segscan(), dir, names[i], dir, port, dir);
		assert_int_equal(rc, 1);
		m = json_loads(out, 0, NULL);
		assert_non_null(m);
		sum = json_object_get(m, "summary");
		br = json_array_get(json_object_get(sum, "brokers"), 1);
		assert_string_equal(json_string_value(json_object_get(br, "status")), "missing");
		const char *why = json_string_value(json_object_get(br, "error"));
		if (i == 1)
			assert_non_null(strstr(why, "HTTP 401"));
		else /* the certificate names broker-2, the URL 127.0.0.1 */
			assert_true(strstr(why, "certificate") || strstr(why, "SSL"));
		assert_true(json_is_null(json_object_get(sum, "remote_bytes")));
		json_decref(m);
		free(out);
	}
	/* a config key Prometheus has and this subset does not: a usage error naming it */
	snprintf(path, sizeof(path), "%s/bearer.yml", dir);
	assert_int_equal(tu_write_file(path, "bearer_token: x\n", 16), 0);
	rc = tu_run(&out, "%s merge --http.config.file=%s %s/b1.json 2>&1 >/dev/null", tu_segscan(), path, dir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "bearer.yml:1: unknown or unsupported key \"bearer_token\""));
	free(out);

	kill_serve(state);
	tu_run(NULL, "rm -rf '%s'", dir);
	free(dir);
}

static void test_help_and_usage(void **state)
{
	char *out = NULL;
	assert_int_equal(tu_run(&out, "%s merge --help", tu_segscan()), 0);
	assert_non_null(strstr(out, "Usage: segscan merge [OPTIONS] REPORT..."));
	assert_non_null(strstr(out, "--http.config.file=PATH"));
	free(out);
	assert_int_equal(tu_run(NULL, "%s merge 2>/dev/null", tu_segscan()), 2);
	assert_int_equal(tu_run(NULL, "%s merge --format=prom x.json 2>/dev/null", tu_segscan()), 2);
	assert_int_equal(tu_run(NULL, "%s merge /nonexistent/report.json 2>/dev/null", tu_segscan()), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rf1),
		cmocka_unit_test(test_rf2_counted_once),
		cmocka_unit_test(test_delete_lag),
		cmocka_unit_test(test_rf3),
		cmocka_unit_test(test_disagreeing_replicas),
		cmocka_unit_test(test_missing_leader),
		cmocka_unit_test(test_missing_input),
		cmocka_unit_test(test_mismatched_reports),
		cmocka_unit_test(test_row_node_id),
		cmocka_unit_test(test_assignment_disagreement),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_fixture_end_to_end),
		cmocka_unit_test_teardown(test_serve_endpoint, kill_serve),
		cmocka_unit_test_teardown(test_serve_tls_auth, kill_serve),
		cmocka_unit_test(test_help_and_usage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
