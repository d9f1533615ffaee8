/*
 * PHANTOM_DELETE_LAG (issue 27, KAFKA-21098; eval/dellag.h): one broker's RemoteDeleteLag*
 * gauges for a topic (struct ss_broker_gauges, filled here by hand as the --broker-metrics
 * source delivers them) against the true delete lag of the topic's partitions it leads by
 * the metadata log. Raised when the gauge reports more, on a release with the bug (3.7.0 to
 * 4.3.1; the message names them when the release is unknown), never on 4.4.0, never without
 * the gauges, never when what it leads is not all known; a delete that finished within the
 * margin before the scan may still be in the gauge and is no phantom.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval/dellag.h"
#include "scan/scan_int.h"
#include "segscan.h"

#define NOW 1700000000000LL

struct case_ {
	struct ss_eval          ev[3];
	struct ss_dellag_member m[3];
	struct ss_topic_gauges  tg;
	struct ss_broker_gauges g;
	struct ss_eval_release  rel;
	struct ss_dellag_input  in;
	struct ss_topic_dellag  out;
};

/* A replica's evaluation as far as the comparison reads it. */
static void leader_row(struct ss_eval *ev, int64_t segs, int64_t bytes)
{
	memset(ev, 0, sizeof(*ev));
	ev->tiered = true;
	ev->role = SS_ROLE_LEADER;
	ev->delete_lag_segments = segs;
	ev->delete_lag_bytes = bytes;
}

static void follower_row(struct ss_eval *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->tiered = true;
	ev->role = SS_ROLE_FOLLOWER;
	ev->delete_lag_null = true;
	ev->delete_lag_why = "a follower's replica";
}

/* Topic "orders", partitions 0..2 all on node 1's disks; node 1's gauge says segs/bytes. */
static void setup(struct case_ *c, int64_t segs, int64_t bytes, int major, int minor, int patch)
{
	memset(c, 0, sizeof(*c));
	c->tg = (struct ss_topic_gauges){ .topic = "orders", .delete_lag_segments = { true, segs },
					  .delete_lag_bytes = { true, bytes } };
	c->g = (struct ss_broker_gauges){ .node_id = 1, .url = "http://b1:7071/metrics", .ok = true,
					  .read_at_ms = NOW - 1000, .n = 1, .topics = &c->tg };
	c->rel = (struct ss_eval_release){ .known = true, .v = { (int16_t)major, (int16_t)minor, (int16_t)patch } };
	for (int i = 0; i < 3; i++) {
		follower_row(&c->ev[i]);
		c->m[i] = (struct ss_dellag_member){ .partition = i, .leader = 2, .leader_epoch = 7, .ev = &c->ev[i] };
	}
	c->in = (struct ss_dellag_input){ .topic = "orders", .node_id = 1, .gauges = &c->g, .tg = &c->tg, .image = true,
					  .members = c->m, .n_members = 3, .release = &c->rel, .now_ms = NOW };
}

static void lead(struct case_ *c, int i, int64_t segs, int64_t bytes)
{
	leader_row(&c->ev[i], segs, bytes);
	c->m[i].leader = 1;
	c->m[i].ev = &c->ev[i];
}

static const struct ss_finding *run(struct case_ *c)
{
	ss_topic_dellag_free(&c->out);
	memset(&c->out, 0, sizeof(c->out));
	assert_int_equal(ss_eval_topic_delete_lag(&c->in, &c->out), 0);
	return c->out.n_findings ? &c->out.findings[0] : NULL;
}

/* The ticket's case: the leadership moved away (every partition led by node 2 now), the
 * old leader's gauge still says 3 segments. */
static void test_leads_none(void **state)
{
	(void)state;
	struct case_ c;
	setup(&c, 3, 300, 4, 3, 1);
	const struct ss_finding *f = run(&c);
	assert_true(c.out.known);
	assert_true(c.out.broker_known);
	assert_int_equal(c.out.broker_segments, 3);
	assert_int_equal(c.out.led, 0);
	assert_int_equal(c.out.segments, 0);
	assert_non_null(f);
	assert_string_equal(f->code, "PHANTOM_DELETE_LAG");
	assert_string_equal(f->ref, "KAFKA-21098");
	assert_int_equal(f->segments, 3);
	assert_int_equal(f->bytes, 300);
	assert_non_null(strstr(f->message, "node 1's RemoteDeleteLagSegments"));
	assert_non_null(strstr(f->message, "it leads none"));
	assert_non_null(strstr(f->message, "0 (led by node 2, leader epoch 7)"));
	assert_non_null(strstr(f->message, "http://b1:7071/metrics"));
	assert_null(strstr(f->message, "unknown"));   /* a known affected release: no caveat */
	/* 3.7.0 has it too (the pass runs on after convertToFollower) */
	ss_topic_dellag_free(&c.out);
	setup(&c, 3, 300, 3, 7, 0);
	assert_non_null(run(&c));
	ss_topic_dellag_free(&c.out);
}

/* A real backlog the broker leads: equal, or less (a pass half done): no finding. */
static void test_real_backlog(void **state)
{
	(void)state;
	struct case_ c;
	setup(&c, 3, 300, 4, 3, 1);
	lead(&c, 0, 2, 200);
	lead(&c, 2, 1, 100);
	assert_null(run(&c));
	assert_int_equal(c.out.led, 2);
	assert_int_equal(c.out.segments, 3);
	assert_int_equal(c.out.bytes, 300);
	c.tg.delete_lag_segments.value = 1;
	c.tg.delete_lag_bytes.value = 100;
	assert_null(run(&c));
	/* Kafka 4.0+ leaves a retried DELETE_SEGMENT_STARTED's bytes out: fewer bytes, not a phantom */
	c.tg.delete_lag_segments.value = 3;
	c.tg.delete_lag_bytes.value = 0;
	assert_null(run(&c));
	ss_topic_dellag_free(&c.out);
}

/* It leads some partitions, and the gauge holds more than they have: the excess. */
static void test_partly_moved(void **state)
{
	(void)state;
	struct case_ c;
	setup(&c, 4, 400, 4, 3, 1);
	lead(&c, 1, 1, 100);
	const struct ss_finding *f = run(&c);
	assert_non_null(f);
	assert_int_equal(f->segments, 3);
	assert_int_equal(f->bytes, 300);
	assert_non_null(strstr(f->message, "the 1 partition of it that it leads"));
	assert_non_null(strstr(f->message, "2 (led by node 2"));
	/* bytes alone over: still a phantom */
	c.tg.delete_lag_segments.value = 1;
	c.tg.delete_lag_bytes.value = 101;
	f = run(&c);
	assert_non_null(f);
	assert_int_equal(f->segments, 0);
	assert_int_equal(f->bytes, 1);
	ss_topic_dellag_free(&c.out);
}

/* Deletes that finished just before the scan may still be in a gauge read then. */
static void test_recent_deletes_margin(void **state)
{
	(void)state;
	struct case_ c;
	setup(&c, 2, 200, 4, 3, 1);
	lead(&c, 0, 0, 0);
	c.ev[0].delete_lag_recent_segments = 2;
	c.ev[0].delete_lag_recent_bytes = 200;
	assert_null(run(&c));
	c.tg.delete_lag_segments.value = 3;
	const struct ss_finding *f = run(&c);
	assert_non_null(f);
	assert_int_equal(f->segments, 3);
	ss_topic_dellag_free(&c.out);
}

/* 4.4.0 has the fix: no finding. Release unknown: raised, naming the affected releases. */
static void test_releases(void **state)
{
	(void)state;
	struct case_ c;
	setup(&c, 3, 300, 4, 4, 0);
	assert_null(run(&c));
	assert_true(c.out.known);
	c.in.release = NULL;
	const struct ss_finding *f = run(&c);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "3.7.0 to 4.3.1"));
	ss_topic_dellag_free(&c.out);
}

/* What is not known raises nothing: no gauges (no --broker-metrics, an endpoint that failed,
 * a topic it has no gauge for), a led partition whose delete lag is unknown or that is not
 * scanned, no metadata log, no node id, gauges read far from the scan's clock. */
static void test_unknowns(void **state)
{
	(void)state;
	struct case_ c;
	setup(&c, 3, 300, 4, 3, 1);
	c.g.ok = false;
	assert_null(run(&c));
	assert_false(c.out.broker_known);
	c.g.ok = true;
	c.in.tg = NULL;
	assert_null(run(&c));
	assert_false(c.out.broker_known);
	c.in.gauges = NULL;
	assert_null(run(&c));
	c.in.gauges = &c.g;
	c.in.tg = &c.tg;
	c.tg.delete_lag_bytes.present = false;
	assert_null(run(&c));
	assert_false(c.out.broker_known);
	c.tg.delete_lag_bytes.present = true;

	lead(&c, 0, 0, 0);
	c.ev[0].delete_lag_null = true;
	c.ev[0].delete_lag_unknown = true;
	c.ev[0].delete_lag_why = "remote state unknown";
	assert_null(run(&c));
	assert_false(c.out.known);
	assert_string_equal(c.out.why, "remote state unknown");
	c.m[0].ev = NULL;
	assert_null(run(&c));
	assert_false(c.out.known);
	assert_non_null(strstr(c.out.why, "not in the scanned log dirs"));
	lead(&c, 0, 0, 0);
	assert_non_null(run(&c));

	c.in.image = false;
	assert_null(run(&c));
	assert_false(c.out.known);
	c.in.image = true;
	c.in.node_id = -1;
	assert_null(run(&c));
	assert_false(c.out.known);
	c.in.node_id = 1;
	c.g.read_at_ms = NOW - SS_DELLAG_SLACK_MS - 1;
	assert_null(run(&c));
	c.g.read_at_ms = NOW - SS_DELLAG_SLACK_MS;
	assert_non_null(run(&c));
	ss_topic_dellag_free(&c.out);
}

/*
 * The scan's step on a real broker's log dir (tests/fixtures/kafka/cluster-meta-live: Kafka
 * 4.4.0, node 1 leading tiered-0 and single-record-0, its expiration task done): the gauges
 * as the --broker-metrics source hands them to the scan (s->broker_gauges), the members from
 * the metadata log, the true delete lag from each replica's evaluation.
 */
#define LIVE "tests/fixtures/kafka/cluster-meta-live/logdir"
#define LIVE_NOW "1796117023699"

static const struct ss_topic_dellag *scan_with(struct ss_broker_gauges *g, const char *version, segscan_scan **out)
{
	static struct ss_broker_gauges *gp;   /* the scan's array of one (not freed: see unscan) */
	segscan_scan *s;
	assert_int_equal(segscan_scan_new(&s), 0);
	assert_int_equal(segscan_set(s, "now", LIVE_NOW), 0);
	if (version)
		assert_int_equal(segscan_set(s, "kafka-version", version), 0);
	assert_int_equal(segscan_add_logdir(s, LIVE), 0);
	/* as ss_scan_load_gauges leaves them for one --broker-metrics=URL (not read here: the
	 * gauges are the test's) */
	static struct ss_bm_url u = { .node_id = -1, .url = "http://b1/metrics" };
	gp = g;
	s->gauges = &gp;
	s->n_gauges = 1;
	s->opts.bmetrics = &u;
	int rc = segscan_run(s);
	if (rc < 0)
		fail_msg("segscan_run: %s", segscan_last_error(s));
	*out = s;
	for (uint32_t i = 0; i < s->res.n_topic_dellag; i++)
		if (!strcmp(s->res.topic_dellag[i].topic, "tiered"))
			return &s->res.topic_dellag[i];
	fail_msg("no broker_topics entry for tiered");
	return NULL;
}

/* The gauges are the test's, not the scan's to free. */
static void unscan(segscan_scan *s)
{
	s->gauges = NULL;
	s->n_gauges = 0;
	s->opts.bmetrics = NULL;
	segscan_scan_free(s);
}

static void test_scan_real_broker(void **state)
{
	(void)state;
	struct ss_topic_gauges tg = { .topic = "tiered", .delete_lag_segments = { true, 0 },
				      .delete_lag_bytes = { true, 0 } };
	struct ss_broker_gauges g = { .node_id = 1, .url = "http://b1/metrics", .ok = true,
				      .read_at_ms = 1796117023699LL - 1000, .n = 1, .topics = &tg };
	segscan_scan *s;
	/* what Kafka's gauge said (jmx.json: 0) is the true delete lag: nothing to say */
	const struct ss_topic_dellag *t = scan_with(&g, "4.3.1", &s);
	assert_true(t->broker_known);
	assert_true(t->known);
	assert_int_equal(t->led, 1);
	assert_int_equal(t->segments, 0);
	assert_int_equal(t->n_findings, 0);
	unscan(s);
	/* the same partition led, a gauge latched at 2 segments: a phantom on 4.3.1 ... */
	tg.delete_lag_segments.value = 2;
	tg.delete_lag_bytes.value = 500;
	t = scan_with(&g, "4.3.1", &s);
	assert_int_equal(t->n_findings, 1);
	assert_int_equal(t->findings[0].segments, 2);
	assert_int_equal(t->findings[0].bytes, 500);
	assert_non_null(strstr(t->findings[0].message, "the 1 partition of it that it leads"));
	unscan(s);
	/* ... none on 4.4.0, the fixed release */
	t = scan_with(&g, "4.4.0", &s);
	assert_true(t->known);
	assert_int_equal(t->n_findings, 0);
	unscan(s);
	/* node 3 leads nothing of it (the metadata log: node 1 leads tiered-0): its gauge is all
	 * phantom */
	g.node_id = 3;
	t = scan_with(&g, "4.3.1", &s);
	assert_int_equal(t->led, 0);
	assert_int_equal(t->n_findings, 1);
	assert_non_null(strstr(t->findings[0].message, "it leads none"));
	assert_non_null(strstr(t->findings[0].message, "0 (led by node 1, leader epoch"));
	unscan(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leads_none),
		cmocka_unit_test(test_real_backlog),
		cmocka_unit_test(test_partly_moved),
		cmocka_unit_test(test_recent_deletes_margin),
		cmocka_unit_test(test_releases),
		cmocka_unit_test(test_unknowns),
		cmocka_unit_test(test_scan_real_broker),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
