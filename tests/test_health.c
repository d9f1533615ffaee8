/*
 * Tiering health rules (src/eval/health.c) over hand-built remote state: each rule, the
 * healthy cases that must stay silent, and both sides of every threshold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/health.h"
#include "eval_fixture.h"

#define NOW     1700000000000LL
#define STUCK   300000LL          /* --stuck-after in these tests: 5 min */

static const int32_t replicas3[3] = { 1, 2, 3 };

/* A tiered partition with five local segments of 100 offsets (500 bytes each; the last
 * is the active one), the leader-epoch checkpoint at epoch 0, leader node 1 here. */
static void tiered(struct fx *f, struct ss_eval_cluster *ec, int32_t node, int32_t leader)
{
	fx_init(f, "t");
	f->cfg.remote_storage = 1;
	f->in.now_ms = NOW;
	f->in.stuck_after_ms = STUCK;
	f->in.stuck_after_why = "--stuck-after";
	fx_epoch(f, 0, 0);
	for (int i = 0; i < 5; i++)
		fx_seg(f, i * 100, i * 100 + 99, 500, NOW - 3600000 + i * 60000);
	memset(ec, 0, sizeof(*ec));
	ec->image = true;
	ec->topic_known = true;
	ec->partition_known = true;
	ec->node_id = node;
	ec->a = (struct ss_assignment){ .replicas = replicas3, .isr = replicas3, .n_replicas = 3, .n_isr = 3,
					.leader = leader, .leader_epoch = 0 };
	f->in.cluster = ec;
}

static void test_default_stuck_after(void **state)
{
	(void)state;
	assert_int_equal(ss_health_default_stuck_after(-1), 300000);   /* Kafka's 30 s: 10 x 30 s = 5 min */
	assert_int_equal(ss_health_default_stuck_after(0), 300000);
	assert_int_equal(ss_health_default_stuck_after(30000), 300000);
	assert_int_equal(ss_health_default_stuck_after(29999), 300000); /* the floor */
	assert_int_equal(ss_health_default_stuck_after(30001), 300010);
	assert_int_equal(ss_health_default_stuck_after(60000), 600000);
	assert_int_equal(ss_health_default_stuck_after(1000), 300000);
	assert_true(ss_health_default_stuck_after(INT64_MAX) > 0);
}

/* The latest copy attempt still STARTED: stuck exactly when older than --stuck-after. */
static void test_stuck_started(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;
	tiered(&f, &ec, 2, 1);   /* a follower sees it too: the metadata is the cluster's */
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - STUCK - 1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 1);
	const struct ss_finding *fd = fx_finding(ev, "STUCK_REMOTE_COPY", 0);
	assert_true(fd->has_amount);
	assert_int_equal(fd->segments, 1);
	assert_int_equal(fd->bytes, 500);
	assert_int_equal(fd->n_ids, 1);
	assert_string_equal(fd->segment_ids[0], "B");
	assert_non_null(strstr(fd->message, "for 300001 ms"));
	assert_non_null(strstr(fd->message, "by broker 1"));
	assert_non_null(strstr(fd->message, "offsets 100..199"));
	/* a follower's copy lag is the leader's replica's (issue 22): the message says so */
	assert_non_null(strstr(fd->message, "wait for upload is the leader's replica's to tell"));
	fx_free(&f);
	/* on the leader: closed local segments 100..399 wait (highest offset 99) */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - STUCK - 1);
	ev = fx_eval(&f);
	fd = fx_finding(ev, "STUCK_REMOTE_COPY", 0);
	assert_non_null(fd);
	assert_non_null(strstr(fd->message, "3 closed local segments (1500 bytes) wait for upload"));
	fx_free(&f);

	/* exactly --stuck-after old: not yet */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - STUCK);
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 0);
	/* a threshold above its age: none; below: raised */
	f.in.stuck_after_ms = STUCK - 1;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 1);
	f.in.stuck_after_ms = 3600000;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	/* the rules off (0): none */
	f.in.stuck_after_ms = 0;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);
}

/* Healthy: copies that finish; an abandoned attempt retried and finished; copies
 * disabled on purpose; a start in the future (said, not guessed). */
static void test_stuck_started_healthy(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_FINISHED, NOW - 3400000);
	fx_rseg(&f, "C", 200, 299, 0, 500, NOW - 3480000, SS_RSEG_COPY_FINISHED, NOW - 3300000);
	fx_rseg(&f, "D", 300, 399, 0, 500, NOW - 3420000, SS_RSEG_COPY_FINISHED, NOW - 3200000);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 0);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_DELETE"), 0);
	fx_free(&f);

	/* a broker died mid-copy of B1; the next leader copied the same offsets as B2 */
	tiered(&f, &ec, 1, 1);
	f.in.dangling_after_ms = 3000000;
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B1", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - 3400000);
	fx_rseg(&f, "B2", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_FINISHED, NOW - 3300000);
	fx_rseg(&f, "C", 200, 299, 0, 500, NOW - 3480000, SS_RSEG_COPY_FINISHED, NOW - 3200000);
	fx_rseg(&f, "D", 300, 399, 0, 500, NOW - 3420000, SS_RSEG_COPY_FINISHED, NOW - 3100000);
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 0);
	/* ... the abandoned B1 is what DANGLING_REMOTE_SEGMENT reports */
	assert_int_equal(fx_count(ev, "DANGLING_REMOTE_SEGMENT"), 1);
	fx_free(&f);

	/* the latest attempt failed and Kafka 4.x cleaned it up: deleted, not stuck */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B1", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - 3400000);
	fx_rseg(&f, "B2", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_DELETE_FINISHED, NOW - 60000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);

	/* remote.log.copy.disable=true: copies stop on purpose */
	tiered(&f, &ec, 1, 1);
	f.cfg.remote_copy_disable = 1;
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_STARTED, NOW - 3500000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);

	/* started after the scan's clock: no age, a note says so */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_STARTED, NOW + 1);
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 0);
	bool said = false;
	for (uint32_t i = 0; i < ev->n_notes; i++)
		said |= strstr(ev->notes[i], "cannot be told") != NULL;
	assert_true(said);
	fx_free(&f);

	/* not tiered: nothing */
	tiered(&f, &ec, 1, 1);
	f.cfg.remote_storage = 0;
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_STARTED, NOW - 3500000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);
}

static bool has_note(const struct ss_eval *ev, const char *what)
{
	for (uint32_t i = 0; i < ev->n_notes; i++)
		if (strstr(ev->notes[i], what))
			return true;
	return false;
}

/* The leader's copy task wedged without a STARTED: the oldest closed uncopied segment
 * waited longer than --stuck-after, and nothing was copied since. */
static void test_wedged_copy(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;
	/* segments 100.. not copied; the next one after 100 (200) holds records up to
	 * NOW - 3600000 + 2 min */
	int64_t next_ts = NOW - 3600000 + 2 * 60000;
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 1);
	const struct ss_finding *fd = fx_finding(ev, "STUCK_REMOTE_COPY", 0);
	assert_int_equal(fd->segments, 3);   /* 100, 200, 300 wait; 400 is active */
	assert_int_equal(fd->bytes, 1500);
	assert_int_equal(fd->n_ids, 0);
	assert_non_null(strstr(fd->message, "00000000000000000100.log"));
	assert_non_null(strstr(fd->message, "this broker leads the partition"));
	fx_free(&f);

	/* the boundary: waited exactly --stuck-after (the next segment's newest record) */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	f.in.stuck_after_ms = NOW - next_ts;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	f.in.stuck_after_ms = NOW - next_ts - 1;
	/* the last copy event (NOW - 3500000) is older than that too */
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 1);
	fx_free(&f);

	/* the copy task made progress within --stuck-after: a backlog, not a wedge */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - STUCK + 1);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - STUCK - 1);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 1);
	fx_free(&f);

	/* a follower: its closed segments may lie inside the leader's active one */
	tiered(&f, &ec, 2, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);
	/* leadership unknown (no metadata log): nothing */
	tiered(&f, &ec, 1, 1);
	f.in.cluster = NULL;
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);
	/* node id unknown */
	tiered(&f, &ec, -1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);

	/* the high watermark below the next segment's base: not a copy candidate yet */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	f.part.has_high_watermark = true;
	f.part.high_watermark = 199;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	f.part.high_watermark = 200;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 1);
	fx_free(&f);

	/* no timestamp in the next segment: the wait cannot be told, and a note says so */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	f.segs[2].max_timestamp_ms = -1;
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 0);
	assert_true(has_note(ev, "cannot be told"));
	fx_free(&f);

	/* nothing ever copied (the metadata partition read whole and empty): wedged too */
	tiered(&f, &ec, 1, 1);
	f.in.remote_known_empty = true;
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 1);
	assert_int_equal(fx_finding(ev, "STUCK_REMOTE_COPY", 0)->segments, 4);
	assert_non_null(strstr(fx_finding(ev, "STUCK_REMOTE_COPY", 0)->message, "no copy of the partition is recorded"));
	fx_free(&f);

	/* all closed segments copied: nothing waits */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 399, 0, 2000, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_COPY"), 0);
	fx_free(&f);

	/* a stuck STARTED is the one finding, not two */
	tiered(&f, &ec, 1, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - 3400000);
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 1);
	assert_int_equal(fx_finding(ev, "STUCK_REMOTE_COPY", 0)->n_ids, 1);
	fx_free(&f);
}

static void test_stuck_delete(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;
	tiered(&f, &ec, 2, 1);
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_DELETE_STARTED, NOW - STUCK - 1);
	fx_rseg(&f, "B", 100, 399, 0, 1500, NOW - 3500000, SS_RSEG_COPY_FINISHED, NOW - 3400000);
	fx_rseg(&f, "C", 0, 99, 0, 700, NOW - 3600000, SS_RSEG_DELETE_STARTED, NOW - STUCK);
	fx_rseg(&f, "D", 0, 99, 0, 800, NOW - 3600000, SS_RSEG_DELETE_FINISHED, NOW - 3000000);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_DELETE"), 1);
	const struct ss_finding *fd = fx_finding(ev, "STUCK_REMOTE_DELETE", 0);
	assert_string_equal(fd->segment_ids[0], "A");
	assert_int_equal(fd->segments, 1);
	assert_int_equal(fd->bytes, 500);
	assert_non_null(strstr(fd->message, "for 300001 ms"));
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 0);
	/* a threshold above its age: none */
	f.in.stuck_after_ms = STUCK + 1;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_DELETE"), 0);
	f.in.stuck_after_ms = STUCK - 1;
	assert_int_equal(fx_count(fx_eval(&f), "STUCK_REMOTE_DELETE"), 2);
	fx_free(&f);
}

/* __remote_log_metadata's own settings against a tiered partition's */
static struct ss_health_rlmm rlmm_ok(void)
{
	return (struct ss_health_rlmm){
		.exists = true, .retention_ms = -1, .retention_ms_src = "DYNAMIC_TOPIC_CONFIG", .retention_bytes = -1,
		.retention_bytes_src = "DEFAULT_CONFIG", .min_isr = 2, .min_isr_src = "DYNAMIC_TOPIC_CONFIG", .rf = 3,
		.partitions = 50, .brokers = 3, .tiered_topics = 1, .max_tiered_known = true,
		.max_tiered_retention_ms = 604800000, .max_tiered_topic = "t",
	};
}

static void with_retention(struct fx *f, int64_t ms, const char *src)
{
	f->cfg.retention_ms = ms;
	f->cfg.entries[0] = (struct ss_cfg_entry){ .key = "retention.ms", .source = src };
	snprintf(f->cfg.entries[0].value, sizeof(f->cfg.entries[0].value), "%lld", (long long)ms);
	f->cfg.n_entries = 1;
}

static uint32_t at_risk(struct fx *f, const struct ss_health_rlmm *m)
{
	f->in.rlmm = m;
	return fx_count(fx_eval(f), "REMOTE_METADATA_AT_RISK");
}

static void test_metadata_at_risk(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;
	tiered(&f, &ec, 1, 1);
	with_retention(&f, 604800000, "DEFAULT_CONFIG");
	fx_rseg(&f, "A", 0, 399, 0, 2000, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	struct ss_health_rlmm m = rlmm_ok();
	/* Kafka's own settings (4.3: retention.ms=-1, min.insync.replicas=2, RF 3): healthy */
	assert_int_equal(at_risk(&f, &m), 0);
	assert_int_equal(at_risk(&f, NULL), 0);

	/* retention: shorter than the partition's is a risk; equal is not */
	m.retention_ms = 604800000 - 1;
	assert_int_equal(at_risk(&f, &m), 1);
	const struct ss_finding *fd = fx_finding(f.ev, "REMOTE_METADATA_AT_RISK", 0);
	assert_null(fd->ref[0] ? fd->ref : NULL);
	assert_false(fd->has_amount);
	assert_non_null(strstr(fd->message, "retention.ms is 604799999 ms"));
	assert_non_null(strstr(fd->message, "(DYNAMIC_TOPIC_CONFIG)"));
	assert_non_null(strstr(fd->message, "this topic's retention.ms 604800000 ms (7d 0h) (DEFAULT_CONFIG)"));
	m.retention_ms = 604800000;
	assert_int_equal(at_risk(&f, &m), 0);
	/* an unlimited topic outlives any finite metadata retention */
	with_retention(&f, -1, "DYNAMIC_TOPIC_CONFIG");
	m.retention_ms = 365LL * 86400000;
	assert_int_equal(at_risk(&f, &m), 1);
	m.retention_ms = -1;
	assert_int_equal(at_risk(&f, &m), 0);
	/* unknown configs are no finding: the metadata topic's (a note says so), the partition's */
	m.retention_ms = 1000;
	m.retention_ms_src = NULL;
	assert_int_equal(at_risk(&f, &m), 0);
	assert_true(has_note(f.ev, "retention.ms not known"));
	m.retention_ms_src = "DYNAMIC_TOPIC_CONFIG";
	assert_int_equal(at_risk(&f, &m), 1);
	with_retention(&f, -1, NULL);
	assert_int_equal(at_risk(&f, &m), 0);
	with_retention(&f, 604800000, "DEFAULT_CONFIG");
	m = rlmm_ok();

	/* retention.bytes: any limit */
	m.retention_bytes = 0;
	assert_int_equal(at_risk(&f, &m), 1);
	assert_non_null(strstr(fx_finding(f.ev, "REMOTE_METADATA_AT_RISK", 0)->message, "retention.bytes is 0"));
	m.retention_bytes = -1;
	assert_int_equal(at_risk(&f, &m), 0);

	/* replication factor 1 on several brokers; fine on one broker */
	m.rf = 1;
	assert_int_equal(at_risk(&f, &m), 1);
	assert_non_null(strstr(fx_finding(f.ev, "REMOTE_METADATA_AT_RISK", 0)->message, "replication factor is 1"));
	m.brokers = 2;
	assert_int_equal(at_risk(&f, &m), 1);
	m.brokers = 1;
	assert_int_equal(at_risk(&f, &m), 0);
	m.brokers = -1;   /* unknown: no finding, a note */
	assert_int_equal(at_risk(&f, &m), 0);
	assert_true(has_note(f.ev, "the broker count"));
	m = rlmm_ok();
	m.rf = 2;
	assert_int_equal(at_risk(&f, &m), 0);

	/* min.insync.replicas 1 on several brokers */
	m = rlmm_ok();
	m.min_isr = 1;
	m.min_isr_src = "DEFAULT_CONFIG";
	assert_int_equal(at_risk(&f, &m), 1);
	assert_non_null(strstr(fx_finding(f.ev, "REMOTE_METADATA_AT_RISK", 0)->message,
			       "min.insync.replicas is 1 (DEFAULT_CONFIG) on a cluster of 3 brokers"));
	m.brokers = 1;
	assert_int_equal(at_risk(&f, &m), 0);
	m.brokers = 3;
	m.min_isr_src = NULL;
	assert_int_equal(at_risk(&f, &m), 0);
	m.min_isr = 2;
	m.min_isr_src = "STATIC_BROKER_CONFIG";
	assert_int_equal(at_risk(&f, &m), 0);

	/* several risks: one finding naming each */
	m = rlmm_ok();
	m.rf = 1;
	m.retention_ms = 3600000;
	assert_int_equal(at_risk(&f, &m), 1);
	fd = fx_finding(f.ev, "REMOTE_METADATA_AT_RISK", 0);
	assert_non_null(strstr(fd->message, "retention.ms is 3600000"));
	assert_non_null(strstr(fd->message, "replication factor is 1"));
	/* a partition that is not tiered: none */
	f.cfg.remote_storage = 0;
	assert_int_equal(at_risk(&f, &m), 0);
	fx_free(&f);
}

/* A finished remote segment with several leader epochs (pairs epoch, start; n of them) */
static void rseg_epochs(struct fx *f, const char *id, int64_t start, int64_t end, const int64_t *ep, uint32_t n)
{
	struct ss_epoch_entry e[8];
	for (uint32_t i = 0; i < n; i++)
		e[i] = (struct ss_epoch_entry){ (int32_t)ep[2 * i], ep[2 * i + 1] };
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = f->part.topic, .topic_len = strlen(f->part.topic),
		.partition = f->part.partition, .segment_id = id, .segment_id_len = strlen(id),
		.start_offset = start, .end_offset = end, .size_bytes = 500, .max_timestamp_ms = NOW - 3600000,
		.epochs = e, .n_epochs = n, .broker_id = 1, .event_timestamp_ms = NOW - 3500000,
		.state = SS_RSEG_COPY_STARTED,
	};
	assert_int_equal(ss_remote_apply(f->remote, &ev, f->msg, sizeof(f->msg)), 0);
	fx_update(f, id, SS_RSEG_COPY_FINISHED, NOW - 3500000);
}

/* local segments 300.. (log start 0 below them: the rest is remote), epochs as given */
static void lineage_part(struct fx *f, struct ss_eval_cluster *ec, const int64_t *ep, uint32_t n)
{
	fx_init(f, "t");
	f->cfg.remote_storage = 1;
	f->in.now_ms = NOW;
	for (uint32_t i = 0; i < n; i++)
		fx_epoch(f, (int32_t)ep[2 * i], ep[2 * i + 1]);
	fx_seg(f, 300, 399, 500, NOW - 60000);
	fx_seg(f, 400, 449, 250, NOW - 1000);
	f->part.has_log_start = true;
	f->part.log_start_ckpt = 0;
	memset(ec, 0, sizeof(*ec));
	f->in.cluster = NULL;
}

/* One EPOCH_LINEAGE_GAP case: the local lineage (leader-epoch-checkpoint pairs), the remote
 * segments finished (id, offsets, their epochs), the gaps expected and what their messages
 * say. */
struct lineage_seg {
	const char    *id;
	int64_t        start, end;
	const int64_t *ep;
	uint32_t       n;
};
struct lineage_case {
	const char        *what;
	const int64_t     *local;
	uint32_t           n_local;
	int64_t            log_start_ckpt; /* the checkpoint's log start (lineage_part's is 0) */
	bool               no_checkpoint;  /* no leader-epoch-checkpoint read */
	struct lineage_seg segs[5];
	int                gaps;
	int64_t            highest;        /* the evaluation's highest_offset, if checked (not 0) */
	const char        *first_segment;  /* finding 0's first segment id, if checked */
	struct {
		int         finding;
		const char *has;
	} says[6];
};

static const int64_t ln_local[] = { 0, 0, 2, 250 }, ln_local0[] = { 0, 0 }, ln_trunc[] = { 0, 150, 2, 250 };
static const int64_t ln_a[] = { 0, 0 }, ln_b[] = { 0, 100 }, ln_b2[] = { 0, 150 }, ln_c[] = { 0, 200, 2, 250 },
		     ln_c0[] = { 0, 200 };
#define LN_A { "A", 0, 99, ln_a, 1 }
#define LN_B { "B", 100, 199, ln_b, 1 }
#define LN_C { "C", 200, 299, ln_c, 2 }
#define LN_C0 { "C", 200, 299, ln_c0, 1 }

static const struct lineage_case lineage_cases[] = {
	{ "healthy: the remote epochs are the local lineage's, no gap, offset 299 findable",
	  ln_local, 2, 0, false, { LN_A, LN_B, LN_C }, 0, 299, NULL, { { 0, NULL } } },
	{ "C uploaded without epoch 2: it disagrees, and offset 299 (epoch 2 here) is not findable",
	  ln_local, 2, 0, false, { LN_A, LN_B, LN_C0 }, 2, 0, "C",
	  { { 0, "leader epochs {0:200}" }, { 0, "gives {0:200, 2:250}" }, { 1, "offset 299" },
	    { 1, "leader epoch 2" }, { 1, "previous remote log segment metadata was not found" },
	    { 1, "no finished remote segment carries leader epoch 2" } } },
	{ "the local lineage says epoch 0 to the end: C's epoch 2 disagrees, and epoch 0 ends in C "
	  "before offset 299",
	  ln_local0, 1, 0, false, { LN_A, LN_B, LN_C }, 2, 0, NULL, { { 1, "ends that epoch before offset 299" } } },
	{ "a hole between two finished segments: 100..199",
	  ln_local, 2, 0, false, { LN_A, LN_C }, 1, 0, NULL, { { 0, "offsets 100..199" } } },
	{ "a one-offset hole is one too",
	  ln_local, 2, 0, false, { { "A", 0, 98, ln_a, 1 }, LN_B, LN_C }, 1, 0, NULL, { { 0, "offsets 99..99" } } },
	{ "overlapping uploads (a leader change re-copied 150..199) are no gap",
	  ln_local, 2, 0, false, { LN_A, LN_B, { "B2", 150, 199, ln_b2, 1 }, LN_C }, 0, 0, NULL, { { 0, NULL } } },
	{ "before the first finished segment: remote retention (or a checkpoint not yet rewritten), "
	  "not a gap; offset 299 is still found",
	  ln_local, 2, 0, false, { LN_B, LN_C }, 0, 0, NULL, { { 0, NULL } } },
	{ "the checkpoint truncated at the log start (150): segments it does not reach are not compared",
	  ln_trunc, 2, 150, false, { LN_B, LN_C }, 0, 0, NULL, { { 0, NULL } } },
	{ "the local log starts at the log start: no replica needs remote state",
	  ln_local, 2, 300, false, { LN_C0 }, 0, 0, NULL, { { 0, NULL } } },
	{ "no checkpoint: the hole is still one (it needs no lineage); the rest is not compared",
	  ln_local, 0, 0, true, { LN_A, LN_C0 }, 1, 0, NULL, { { 0, "offsets 100..199" } } },
};

static void test_epoch_lineage(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(lineage_cases) / sizeof(lineage_cases[0]); i++) {
		const struct lineage_case *t = &lineage_cases[i];
		struct fx f;
		struct ss_eval_cluster ec;
		print_message("case %zu: %s\n", i, t->what);
		lineage_part(&f, &ec, t->local, t->n_local);
		f.part.log_start_ckpt = t->log_start_ckpt;
		if (t->no_checkpoint)
			f.part.epochs_read = false;
		for (const struct lineage_seg *g = t->segs; g < t->segs + 5 && g->id; g++)
			rseg_epochs(&f, g->id, g->start, g->end, g->ep, g->n);
		struct ss_eval *ev = fx_eval(&f);
		if (t->highest)
			assert_int_equal(ev->highest_offset, t->highest);
		assert_int_equal(fx_count(ev, "EPOCH_LINEAGE_GAP"), t->gaps);
		if (t->first_segment)
			assert_string_equal(fx_finding(ev, "EPOCH_LINEAGE_GAP", 0)->segment_ids[0], t->first_segment);
		for (size_t k = 0; k < 6 && t->says[k].has; k++)
			assert_non_null(strstr(fx_finding(ev, "EPOCH_LINEAGE_GAP", t->says[k].finding)->message,
					       t->says[k].has));
		fx_free(&f);
	}
}

/* --horizon: the evaluation at now + horizon over what exists now */
/*
 * UNDELETABLE_LOCAL_SEGMENT (KAFKA-20609): six local segments of 100 offsets and 500 bytes,
 * local.retention.ms one hour, everything closed copied. Segment 100 holds a record 30
 * minutes after the scan's clock: Kafka's local time walk deletes
 * segment 0 and stops there, and the three closed segments after it, a day old, stay.
 */
#define LRMS 3600000LL
static void undel_setup(struct fx *f, int64_t future_ts, int64_t highest)
{
	fx_init(f, "t");
	f->cfg.remote_storage = 1;
	f->cfg.retention_ms = -1;
	f->cfg.local_retention_ms = LRMS;
	f->in.now_ms = NOW;
	fx_epoch(f, 0, 0);
	static const int64_t age[6] = { 2 * 86400000LL, 0, 86400000LL, 86400000LL - 1000, 7200000, 1000 };
	for (int i = 0; i < 6; i++)
		fx_seg(f, i * 100, i * 100 + 99, 500, i == 1 ? future_ts : NOW - age[i]);
	for (int i = 0; i < 5 && i * 100 + 99 <= highest; i++) {
		char id[16];
		snprintf(id, sizeof(id), "R%d", i);
		fx_rseg(f, id, i * 100, i * 100 + 99, 0, 500, i == 1 ? future_ts : NOW - age[i], SS_RSEG_COPY_FINISHED,
			NOW - 60000);
	}
}

static void test_undeletable_local(void **state)
{
	(void)state;
	struct fx f;
	const struct ss_finding *fd;

	undel_setup(&f, NOW + 1800000, 499);
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->local.evaluated);
	assert_int_equal(ev->local.n_delete, 1);   /* segment 0; the walk stops at 100 */
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 1);
	fd = fx_finding(ev, "UNDELETABLE_LOCAL_SEGMENT", 0);
	assert_string_equal(fd->ref, "KAFKA-20609");
	assert_true(fd->has_amount);
	assert_int_equal(fd->segments, 3);
	assert_int_equal(fd->bytes, 1500);
	assert_non_null(strstr(fd->message, "offsets 200..499: 00000000000000000200.log, 00000000000000000300.log, "
					    "00000000000000000400.log"));
	assert_non_null(strstr(fd->message, "stops at 00000000000000000100.log (offsets 100..199)"));
	assert_non_null(strstr(fd->message, "30m 0s after the scan's clock"));
	/* deletable once now - ts > limit: ts + limit + 1 ms */
	assert_non_null(strstr(fd->message, "before 2023-11-14T23:43:20.001Z"));
	assert_non_null(strstr(fd->message, "highest offset in remote storage 499"));
	assert_non_null(strstr(fd->message, "there is no local size limit"));
	fx_free(&f);

	/* the boundary of "future": a timestamp at the scan's clock is within retention by
	 * an ordinary timestamp (it goes in an hour, with the ones behind it): no finding;
	 * one millisecond later it is in the future */
	undel_setup(&f, NOW, 499);
	ev = fx_eval(&f);
	assert_int_equal(ev->local.n_delete, 1);
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);
	undel_setup(&f, NOW + 1, 499);
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 1);
	fx_free(&f);

	/* the boundary of "past local retention" for the segment behind the blocker:
	 * now - ts == limit is not past it (Kafka: >), so it holds the rest itself */
	undel_setup(&f, NOW + 1800000, 499);
	f.segs[2].max_timestamp_ms = NOW - LRMS;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	f.segs[2].max_timestamp_ms = NOW - LRMS - 1;
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 1);
	assert_int_equal(fx_finding(ev, "UNDELETABLE_LOCAL_SEGMENT", 0)->segments, 3);
	/* an ordinary segment within retention further on ends the run: it holds what
	 * follows by itself (segment 400 is behind segment 300, ten minutes old) */
	f.segs[3].max_timestamp_ms = NOW - 600000;
	ev = fx_eval(&f);
	fd = fx_finding(ev, "UNDELETABLE_LOCAL_SEGMENT", 0);
	assert_non_null(fd);
	assert_int_equal(fd->segments, 1);
	assert_int_equal(fd->bytes, 500);
	/* a second future timestamp on the way: the run goes on, held until the later one ages */
	f.segs[3].max_timestamp_ms = NOW + 7200000;
	ev = fx_eval(&f);
	fd = fx_finding(ev, "UNDELETABLE_LOCAL_SEGMENT", 0);
	assert_int_equal(fd->segments, 2);
	assert_non_null(strstr(fd->message, "offsets 200..499"));
	assert_non_null(strstr(fd->message, "of 1 more such segment between the held ones"));
	assert_non_null(strstr(fd->message, "before 2023-11-15T01:13:20.001Z"));   /* NOW + 2h + 1h + 1 ms */
	fx_free(&f);

	/* only what is copied: highest offset 299 holds segment 200 alone; 199: nothing behind
	 * the blocker is in remote storage (the copy task, not retention, keeps it) */
	undel_setup(&f, NOW + 1800000, 299);
	ev = fx_eval(&f);
	fd = fx_finding(ev, "UNDELETABLE_LOCAL_SEGMENT", 0);
	assert_non_null(fd);
	assert_int_equal(fd->segments, 1);
	assert_non_null(strstr(fd->message, "offsets 200..299"));
	fx_free(&f);
	undel_setup(&f, NOW + 1800000, 199);
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);
	/* the blocker itself not copied: the upload guard stops the walk there */
	undel_setup(&f, NOW + 1800000, 99);
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);

	/* size retention runs first and deletes the blocker: time retention then goes on from
	 * segment 200 and takes the three behind it (UnifiedLog.deleteOldSegments: size, then
	 * time over what is left). 3000 local bytes over 2000: segments 0 and 100 */
	undel_setup(&f, NOW + 1800000, 499);
	f.cfg.local_retention_bytes = 2000;
	ev = fx_eval(&f);
	assert_true(ev->local.evaluated);
	assert_int_equal(ev->local.n_delete, 5);
	assert_int_equal(ev->local.delete_bytes, 2500);
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 0);
	/* a size limit that deletes only segment 0: the blocker stays, and so do the rest */
	f.cfg.local_retention_bytes = 2500;
	ev = fx_eval(&f);
	assert_int_equal(ev->local.n_delete, 1);
	fd = fx_finding(ev, "UNDELETABLE_LOCAL_SEGMENT", 0);
	assert_non_null(fd);
	assert_int_equal(fd->segments, 3);
	assert_non_null(strstr(fd->message, "local size retention (2500 bytes) does not reach them"));
	fx_free(&f);

	/* the log start offset past the blocker (deleteRecords, remote retention) frees it
	 * first in the next pass, and the walk goes on: nothing held */
	undel_setup(&f, NOW + 1800000, 499);
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 200;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	f.part.log_start_ckpt = 199;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 1);
	fx_free(&f);

	/* no local time limit (local.retention.ms -1): time retention does not run at all */
	undel_setup(&f, NOW + 1800000, 499);
	f.cfg.local_retention_ms = -1;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);
	/* copies disabled (remote.log.copy.disable=true): local retention is retention.* */
	undel_setup(&f, NOW + 1800000, 499);
	f.cfg.remote_copy_disable = 1;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);
	/* unseeded (no remote state): what is copied is unknown */
	undel_setup(&f, NOW + 1800000, -1);
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);

	/* local.retention.ms -2 with retention.ms one hour: on a release that resolves -2
	 * (4.3.1) the limit is retention.ms and the finding stands; with the release unknown
	 * KAFKA-17360's reading (no local time retention on 3.6.0 .. 3.8.0) is open too: the
	 * limit is not settled, no finding */
	struct ss_eval_release r431 = { .known = true, .v = { 4, 3, 1 } };
	undel_setup(&f, NOW + 1800000, 499);
	f.cfg.local_retention_ms = -2;
	f.cfg.retention_ms = LRMS;
	f.in.release = &r431;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 1);
	f.in.release = NULL;
	assert_int_equal(fx_count(fx_eval(&f), "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);

	/* a segment behind the blocker that could not be read: a note, no total over it */
	undel_setup(&f, NOW + 1800000, 499);
	ss_seg_set_error(&f.segs[3], -EIO, 0, 0);
	f.segs[3].size_bytes = 0;
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);
}

/* Healthy replicas stay silent: timestamps in order, everything past local retention and
 * copied deleted; a follower whose segment boundaries differ from the leader's uploads
 * (segment.jitter.ms, issue 25): its segments whose last offset is copied go, the one
 * straddling the highest copied offset waits for the next upload, nothing is held. */
static void test_undeletable_local_healthy(void **state)
{
	(void)state;
	struct fx f;
	undel_setup(&f, NOW - 2 * 86400000LL + 1000, 499);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->local.n_delete, 5);
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);

	/* the follower: local segments 0..149, 150..329, 330..449, active 450.., the leader's
	 * uploads 0..99, 100..199, 200..299, 300..399 (highest 399) */
	fx_init(&f, "t");
	f.cfg.remote_storage = 1;
	f.cfg.retention_ms = -1;
	f.cfg.local_retention_ms = LRMS;
	f.in.now_ms = NOW;
	fx_epoch(&f, 0, 0);
	fx_seg(&f, 0, 149, 750, NOW - 86400000);
	fx_seg(&f, 150, 329, 900, NOW - 86300000);
	fx_seg(&f, 330, 449, 600, NOW - 86200000);
	fx_seg(&f, 450, 470, 100, NOW - 1000);
	for (int i = 0; i < 4; i++) {
		char id[16];
		snprintf(id, sizeof(id), "L%d", i);
		fx_rseg(&f, id, i * 100, i * 100 + 99, 0, 500, NOW - 86400000 + i * 1000, SS_RSEG_COPY_FINISHED,
			NOW - 60000);
	}
	ev = fx_eval(&f);
	assert_int_equal(ev->local.n_delete, 2);   /* 0..149 and 150..329; 330..449 waits for 400..449 */
	assert_int_equal(fx_count(ev, "UNDELETABLE_LOCAL_SEGMENT"), 0);
	fx_free(&f);
}

static void test_forecast(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;

	/* not asked: not evaluated */
	fx_init(&f, "plain");
	f.in.now_ms = NOW;
	f.cfg.retention_ms = 3600000;
	fx_seg(&f, 0, 99, 100, NOW - 1800000);      /* expires in 30 min */
	fx_seg(&f, 100, 199, 200, NOW - 600000);    /* in 50 min */
	fx_seg(&f, 200, 299, 300, NOW - 1000);      /* active */
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->forecast.evaluated);
	assert_int_equal(ev->total.n_local, 0);
	/* one hour ahead: time retention takes the first two (the active one never) */
	f.in.horizon_ms = 3600000;
	ev = fx_eval(&f);
	assert_true(ev->forecast.evaluated);
	assert_false(ev->forecast.unknown);
	assert_int_equal(ev->forecast.horizon_ms, 3600000);
	assert_int_equal(ev->forecast.local_delete_segments, 2);
	assert_int_equal(ev->forecast.local_delete_bytes, 300);
	assert_int_equal(ev->forecast.remote_delete_segments, 0);
	assert_int_equal(ev->forecast.copy_segments, 0);
	/* today's numbers are untouched */
	assert_int_equal(ev->total.n_local, 0);
	assert_true(f.segs[0].flags & SS_SEG_ONLY_LOCAL);
	/* the boundary: now + horizon - max_ts == retention.ms is not past it (Kafka: >) */
	f.in.horizon_ms = 1800000;
	assert_int_equal(fx_eval(&f)->forecast.local_delete_segments, 0);
	f.in.horizon_ms = 1800001;
	assert_int_equal(fx_eval(&f)->forecast.local_delete_segments, 1);
	fx_free(&f);

	/* tiered: the copy task copies the closed segments, then local retention (1 h) and
	 * remote time retention (2 h) act on them */
	tiered(&f, &ec, 1, 1);
	f.in.stuck_after_ms = 0;        /* the copy task is not judged here */
	f.cfg.retention_ms = 7200000;
	f.cfg.local_retention_ms = 3600000;
	/* local segments' max timestamps: NOW-3600000+i*60000, i = 0..4 */
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	ev = fx_eval(&f);
	assert_int_equal(ev->copy_lag_segments, 3);
	f.in.horizon_ms = 60000;   /* 1 min: segment 0 is past local retention (copied); 100 becomes too */
	ev = fx_eval(&f);
	assert_int_equal(ev->forecast.copy_segments, 3);
	assert_int_equal(ev->forecast.local_delete_segments, 1);
	assert_int_equal(ev->forecast.remote_delete_segments, 0);
	f.in.horizon_ms = 60001;
	assert_int_equal(fx_eval(&f)->forecast.local_delete_segments, 2);
	f.in.horizon_ms = 3600001; /* remote A: max_ts NOW-3600000 < NOW+3600001-7200000 */
	ev = fx_eval(&f);
	assert_int_equal(ev->forecast.remote_delete_segments, 1);
	assert_int_equal(ev->forecast.remote_delete_bytes, 500);
	assert_int_equal(ev->forecast.local_delete_segments, 4);
	assert_int_equal(ev->forecast.local_delete_bytes, 2000);
	/* still today's: copy lag and only-local flags */
	assert_int_equal(ev->copy_lag_segments, 3);
	assert_true(f.segs[1].flags & SS_SEG_ONLY_LOCAL);
	assert_false(f.segs[0].flags & SS_SEG_ONLY_LOCAL);
	fx_free(&f);

	/* remote size retention counts what the copy task uploads by then: Kafka's total is
	 * only-local + remote bytes (RemoteLogManager.buildRetentionSizeData), and an upload
	 * moves a segment's bytes from one to the other. Remote A (500 bytes) and segments
	 * 100..399 (1500 bytes) waiting for upload, the active 400..499: 2500 bytes */
	tiered(&f, &ec, 1, 1);
	f.in.stuck_after_ms = 0;
	f.cfg.retention_bytes = 2000;   /* breach 500: A goes (500 - 500 >= 0, as Kafka) */
	f.cfg.local_retention_bytes = -1;   /* (-2 on an unknown release: KAFKA-17360 leaves it open) */
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	f.in.horizon_ms = 60000;
	ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete, 1);   /* today, with the same total */
	assert_int_equal(ev->forecast.copy_segments, 3);
	assert_int_equal(ev->forecast.remote_delete_segments, 1);
	assert_int_equal(ev->forecast.remote_delete_bytes, 500);
	f.cfg.retention_bytes = 2001;   /* breach 499: nothing */
	ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete, 0);
	assert_int_equal(ev->forecast.remote_delete_segments, 0);
	fx_free(&f);

	/* a stuck copy copies nothing: only what is in remote storage now can go locally */
	tiered(&f, &ec, 1, 1);
	f.cfg.local_retention_ms = 3600000;
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	fx_rseg(&f, "B", 100, 199, 0, 500, NOW - 3540000, SS_RSEG_COPY_STARTED, NOW - 3400000);
	f.in.horizon_ms = 3600001;
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "STUCK_REMOTE_COPY"), 1);
	assert_int_equal(ev->forecast.copy_segments, 0);
	assert_int_equal(ev->forecast.local_delete_segments, 1);
	fx_free(&f);

	/* --disable-tiering (KIP-950): no copy, local retention falls back to retention.ms (2 h)
	 * over every closed segment, copied or not */
	tiered(&f, &ec, 1, 1);
	f.in.stuck_after_ms = 0;
	f.cfg.retention_ms = 7200000;
	f.cfg.local_retention_ms = 3600000;
	fx_rseg(&f, "A", 0, 99, 0, 500, NOW - 3600000, SS_RSEG_COPY_FINISHED, NOW - 3500000);
	f.in.horizon_ms = 3600001;
	f.in.disable_tiering = true;
	ev = fx_eval(&f);
	assert_true(ev->forecast.disable_tiering);
	assert_int_equal(ev->forecast.copy_segments, 0);
	/* now + 1 h + 1 ms - (NOW - 3600000 + i * 60000) > 7200000 only for segment 0 */
	assert_int_equal(ev->forecast.local_delete_segments, 1);
	assert_int_equal(ev->forecast.remote_delete_segments, 1);
	f.in.horizon_ms = 3600000 + 3 * 60000 + 1;   /* segments 0..3 (the active one never) */
	ev = fx_eval(&f);
	assert_int_equal(ev->forecast.local_delete_segments, 4);
	assert_int_equal(ev->forecast.local_delete_bytes, 2000);
	/* without it, local retention (1 h) over what the copy task uploads deletes the same
	 * four but copies three first */
	f.in.disable_tiering = false;
	ev = fx_eval(&f);
	assert_false(ev->forecast.disable_tiering);
	assert_int_equal(ev->forecast.copy_segments, 3);
	/* and a tighter horizon shows the difference: 1 h local retention vs 2 h total */
	f.in.horizon_ms = 60001;
	assert_int_equal(fx_eval(&f)->forecast.local_delete_segments, 2);
	f.in.disable_tiering = true;
	assert_int_equal(fx_eval(&f)->forecast.local_delete_segments, 0);
	fx_free(&f);

	/* unseeded: unknown */
	tiered(&f, &ec, 1, 1);
	f.in.horizon_ms = 3600000;
	ev = fx_eval(&f);
	assert_true(ev->forecast.evaluated);
	assert_true(ev->forecast.unknown);
	assert_string_equal(ev->forecast.reason, "unseeded");
	fx_free(&f);
}

/*
 * KAFKA-20977 in size retention: onlyLocalLogSegmentsSize counts baseOffset >= highest on 3.6.0
 * to 4.3.1, so a copied segment of one offset at the top (10..10, 300 bytes) is in the
 * broker's total twice. Local 0..9 (500), 10..10 (300), active 11..20 (200); remote A = 0..9,
 * B = 10..10: the strict total is 1000 bytes, the broker's 1300.
 */
static void dup_setup(struct fx *f, struct ss_eval_cluster *ec, const struct ss_eval_release *rel, int64_t limit)
{
	fx_init(f, "t");
	f->cfg.remote_storage = 1;
	f->in.now_ms = NOW;
	fx_epoch(f, 0, 0);
	memset(ec, 0, sizeof(*ec));
	ec->image = ec->topic_known = ec->partition_known = true;
	ec->node_id = 1;
	ec->a = (struct ss_assignment){ .replicas = replicas3, .isr = replicas3, .n_replicas = 3, .n_isr = 3,
					.leader = 1, .leader_epoch = 0 };
	f->in.cluster = ec;
	f->cfg.retention_bytes = limit;
	f->cfg.local_retention_bytes = -1;
	f->in.release = rel;
	fx_seg(f, 0, 9, 500, NOW - 7200000);
	fx_seg(f, 10, 10, 300, NOW - 7100000);
	fx_seg(f, 11, 20, 200, NOW - 1000);
	fx_rseg(f, "A", 0, 9, 0, 500, NOW - 7200000, SS_RSEG_COPY_FINISHED, NOW - 7000000);
	fx_rseg(f, "B", 10, 10, 0, 300, NOW - 7100000, SS_RSEG_COPY_FINISHED, NOW - 6900000);
}

static void test_size_double_count(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster ec;
	struct ss_eval_release r431 = { .known = true, .v = { 4, 3, 1 } }, r440 = { .known = true, .v = { 4, 4, 0 } },
			       r360 = { .known = true, .v = { 3, 6, 0 } };

	/* retention.bytes 600: the strict breach (400) deletes nothing, the broker's (700) A */
	dup_setup(&f, &ec, &r431, 600);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 10);
	assert_true(ev->size.evaluated);
	assert_int_equal(ev->size.n_delete, 1);
	assert_int_equal(ev->size.total_bytes, 1000);   /* the contract's total; the note has Kafka's */
	bool said = false;
	for (uint32_t i = 0; i < ev->n_notes; i++)
		said |= strstr(ev->notes[i], "KAFKA-20977") && strstr(ev->notes[i], "(1300 bytes, not 1000)");
	assert_true(said);
	fx_free(&f);
	dup_setup(&f, &ec, &r360, 600);   /* 3.6 had the >= before the gauges that name it */
	assert_int_equal(fx_eval(&f)->size.n_delete, 1);
	fx_free(&f);
	dup_setup(&f, &ec, &r440, 600);   /* fixed: counted once */
	assert_int_equal(fx_eval(&f)->size.n_delete, 0);
	fx_free(&f);
	/* the release unknown and the two totals deleting differently: unknown */
	dup_setup(&f, &ec, NULL, 600);
	ev = fx_eval(&f);
	assert_false(ev->size.evaluated);
	assert_true(ev->size.unknown);
	assert_non_null(strstr(ev->size.reason, "KAFKA-20977"));
	fx_free(&f);
	/* the boundaries: the broker's breach equal to A's size deletes it (800: 500 - 500 >= 0),
	 * one byte less does not, and then the release does not matter */
	dup_setup(&f, &ec, &r431, 800);
	assert_int_equal(fx_eval(&f)->size.n_delete, 1);
	fx_free(&f);
	dup_setup(&f, &ec, NULL, 801);
	ev = fx_eval(&f);
	assert_true(ev->size.evaluated);
	assert_int_equal(ev->size.n_delete, 0);
	fx_free(&f);

	/* --horizon: what is due now goes by then, even where the uploads end the double count:
	 * 11..20 closed and waiting, active 21..30 (100); retention.bytes 700. Now: the broker's
	 * total 1400 (strict 1100), breach 700, A goes; once 11..20 is copied the top segment
	 * has ten offsets, the total is 1100 and deletes nothing more */
	dup_setup(&f, &ec, &r431, 700);
	fx_seg(&f, 21, 30, 100, NOW - 500);
	f.in.horizon_ms = 60000;
	ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete, 1);
	assert_int_equal(ev->forecast.copy_segments, 1);
	assert_int_equal(ev->forecast.remote_delete_segments, 1);
	assert_int_equal(ev->forecast.remote_delete_bytes, 500);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_stuck_after),
		cmocka_unit_test(test_stuck_started),
		cmocka_unit_test(test_stuck_started_healthy),
		cmocka_unit_test(test_wedged_copy),
		cmocka_unit_test(test_stuck_delete),
		cmocka_unit_test(test_metadata_at_risk),
		cmocka_unit_test(test_epoch_lineage),
		cmocka_unit_test(test_undeletable_local),
		cmocka_unit_test(test_undeletable_local_healthy),
		cmocka_unit_test(test_forecast),
		cmocka_unit_test(test_size_double_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
