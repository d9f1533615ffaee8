/*
 * Tiering health rules (src/eval/health.c) over hand-built remote state: each rule, the
 * healthy cases that must stay silent, and both sides of every threshold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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
	/* closed local segments 100..399 wait (highest offset 99) */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_stuck_after),
		cmocka_unit_test(test_stuck_started),
		cmocka_unit_test(test_stuck_started_healthy),
		cmocka_unit_test(test_wedged_copy),
		cmocka_unit_test(test_stuck_delete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
