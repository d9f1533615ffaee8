/*
 * delete_lag (issue 27, KAFKA-21098): what the leader's RLMExpirationTask would count in
 * RemoteDeleteLagSegments/Bytes if it ran now (eval/dellag.c), on hand-built remote state,
 * one case per release rule and boundary of RemoteLogManager.cleanupExpiredRemoteLogSegments:
 *  - time retention: maxTimestampMs <= cutoff before 4.3, < from 4.3.0 (a segment exactly
 *    at now - retention.ms); unknown release and a segment on the cutoff: unknown;
 *  - size retention: a segment that brings the breach exactly to 0 goes;
 *  - DELETE_SEGMENT_STARTED: 4.0.0 and later queue it again on every pass, 3.7 to 3.9 only
 *    when retention chooses it again (below the log start offset, past retention.ms);
 *  - segments of epochs older than the oldest local epoch (the unreferenced cleanup);
 *  - DELETE_SEGMENT_FINISHED is never counted;
 *  - null: a follower's row, a release without the gauge (3.6), remote state unknown, not
 *    tiered (which is not "unknown").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

#define NOW  1700000000000LL
#define HOUR 3600000LL

static struct ss_eval_release rel;

static void release(struct fx *f, int major, int minor, int patch)
{
	rel = (struct ss_eval_release){ .known = true, .v = { (int16_t)major, (int16_t)minor, (int16_t)patch } };
	f->in.release = &rel;
}

/* Two remote segments 0..99 and 100..199 (1000 bytes each, epoch 0), local 200..299 closed
 * and 300..309 active (10 bytes each), log start 0, epochs (0, 0). Retention off: each
 * test sets the limit it is about. */
static void base(struct fx *f, int64_t ts0, int64_t ts1)
{
	fx_init(f, "dl");
	f->cfg.remote_storage = 1;
	f->cfg.retention_ms = -1;
	f->cfg.retention_bytes = -1;
	f->in.now_ms = NOW;
	fx_rseg(f, "r0", 0, 99, 0, 1000, ts0, SS_RSEG_COPY_FINISHED, NOW - HOUR);
	fx_rseg(f, "r1", 100, 199, 0, 1000, ts1, SS_RSEG_COPY_FINISHED, NOW - HOUR);
	fx_seg(f, 200, 299, 10, NOW - 10);
	fx_seg(f, 300, 309, 10, NOW - 5);
	fx_epoch(f, 0, 0);
	f->part.has_log_start = true;
	f->part.log_start_ckpt = 0;
}

static void expect_lag(const struct ss_eval *ev, int64_t segs, int64_t bytes)
{
	if (ev->delete_lag_null)
		fail_msg("delete_lag null (%s), want %lld seg / %lld bytes", ev->delete_lag_why ? ev->delete_lag_why : "?",
			 (long long)segs, (long long)bytes);
	assert_int_equal(ev->delete_lag_segments, segs);
	assert_int_equal(ev->delete_lag_bytes, bytes);
}

/* A segment whose max timestamp is exactly now - retention.ms: deleted before 4.3 (<=),
 * kept from 4.3.0 (<); with the release unknown, unknown. */
static void test_time_boundary(void **state)
{
	(void)state;
	struct fx f;
	base(&f, NOW - HOUR, NOW - HOUR + 1);
	f.cfg.retention_ms = HOUR;

	release(&f, 4, 2, 0);
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->time.evaluated);
	assert_int_equal(ev->time.n_delete, 1);
	expect_lag(ev, 1, 1000);

	release(&f, 3, 7, 0);
	expect_lag(fx_eval(&f), 1, 1000);

	release(&f, 4, 3, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->time.n_delete, 0);
	expect_lag(ev, 0, 0);

	f.in.release = NULL;
	ev = fx_eval(&f);
	assert_false(ev->time.evaluated);
	assert_true(ev->time.unknown);
	assert_true(ev->delete_lag_null);
	assert_true(ev->delete_lag_unknown);

	/* one millisecond older: every release deletes it */
	fx_free(&f);
	base(&f, NOW - HOUR - 1, NOW - HOUR + 1);
	f.cfg.retention_ms = HOUR;
	expect_lag(fx_eval(&f), 1, 1000);
	fx_free(&f);
}

/* Size: total = only-local 20 + remote 2000; breach = total - retention.bytes. A segment
 * goes while breach - size >= 0: at breach 1000 the first one (1000 bytes) goes, at 999 none. */
static void test_size_boundary(void **state)
{
	(void)state;
	struct fx f;
	base(&f, NOW, NOW);
	release(&f, 4, 3, 1);
	f.cfg.retention_bytes = 1020;
	expect_lag(fx_eval(&f), 1, 1000);
	f.cfg.retention_bytes = 1021;
	expect_lag(fx_eval(&f), 0, 0);
	f.cfg.retention_bytes = 20;
	expect_lag(fx_eval(&f), 2, 2000);
	fx_free(&f);
}

/* A delete that failed (DELETE_SEGMENT_STARTED) at 100..199 behind a finished 0..99 that
 * is within retention: the log start offset is still 0. */
static void dss(struct fx *f, int64_t lso)
{
	fx_init(f, "dl");
	f->cfg.remote_storage = 1;
	f->cfg.retention_ms = -1;
	f->cfg.retention_bytes = -1;
	f->in.now_ms = NOW;
	fx_rseg(f, "stuck", 0, 99, 0, 700, NOW - 2 * HOUR, SS_RSEG_DELETE_STARTED, NOW - HOUR);
	fx_rseg(f, "kept", 100, 199, 0, 1000, NOW - HOUR, SS_RSEG_COPY_FINISHED, NOW - HOUR);
	fx_seg(f, 200, 299, 10, NOW - 10);
	fx_seg(f, 300, 309, 10, NOW - 5);
	fx_epoch(f, 0, 0);
	f->part.has_log_start = true;
	f->part.log_start_ckpt = lso;
}

static void test_delete_started(void **state)
{
	(void)state;
	struct fx f;
	dss(&f, 0);
	/* 4.0.0 and later queue it again on every pass (KAFKA-17428's retry): counted, its bytes too */
	release(&f, 4, 3, 1);
	expect_lag(fx_eval(&f), 1, 700);
	release(&f, 4, 0, 0);
	expect_lag(fx_eval(&f), 1, 700);
	/* 3.9 does not retry it: retention does not choose it again (not below the log start
	 * offset, no time limit) */
	release(&f, 3, 9, 0);
	expect_lag(fx_eval(&f), 0, 0);
	/* release unknown: the two rules disagree, so the lag is unknown */
	f.in.release = NULL;
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->delete_lag_null);
	assert_true(ev->delete_lag_unknown);
	assert_non_null(strstr(ev->delete_lag_why, "KAFKA-17428"));
	fx_free(&f);

	/* below the log start offset (the pass that chose it raised it before the delete
	 * failed): 3.9 chooses it again too, and the unknown release agrees */
	dss(&f, 100);
	release(&f, 3, 9, 0);
	expect_lag(fx_eval(&f), 1, 700);
	f.in.release = NULL;
	expect_lag(fx_eval(&f), 1, 700);
	fx_free(&f);

	/* 3.8: past retention.ms (<= cutoff) also chooses it again */
	dss(&f, 0);
	release(&f, 3, 8, 0);
	f.cfg.retention_ms = 2 * HOUR;
	expect_lag(fx_eval(&f), 1, 700);
	fx_free(&f);
}

/* DELETE_SEGMENT_FINISHED is gone from the broker's cache: never counted. */
static void test_delete_finished(void **state)
{
	(void)state;
	struct fx f;
	base(&f, NOW, NOW);
	release(&f, 4, 3, 1);
	fx_rseg(&f, "done", 0, 99, 0, 5000, 1, SS_RSEG_DELETE_FINISHED, NOW - HOUR);
	f.cfg.retention_ms = HOUR;
	expect_lag(fx_eval(&f), 0, 0);
	fx_free(&f);
}

/* Remote segments whose epochs all predate the oldest local epoch: the unreferenced
 * cleanup lists them per epoch, whatever retention says, and counts each once per epoch. */
static void test_unreferenced_epochs(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "dl");
	f.cfg.remote_storage = 1;
	f.cfg.retention_ms = -1;
	f.cfg.retention_bytes = -1;
	f.in.now_ms = NOW;
	release(&f, 4, 3, 1);
	fx_rseg(&f, "old", 0, 99, 2, 300, NOW - 2 * HOUR, SS_RSEG_COPY_FINISHED, NOW - HOUR);
	fx_rseg(&f, "old-copy", 100, 149, 3, 40, NOW, SS_RSEG_COPY_STARTED, NOW - HOUR);
	fx_rseg(&f, "cur", 150, 199, 5, 1000, NOW, SS_RSEG_COPY_FINISHED, NOW - HOUR);
	fx_seg(&f, 150, 199, 10, NOW - 10);
	fx_seg(&f, 200, 209, 10, NOW - 5);
	fx_epoch(&f, 5, 150);
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 150;
	expect_lag(fx_eval(&f), 2, 340);
	/* and time retention that would take "old" too does not count it twice */
	f.cfg.retention_ms = HOUR;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->time.n_delete, 1);
	expect_lag(ev, 2, 340);
	fx_free(&f);
}

/* The role: only the leader's expiration task counts; a follower's row is null and not
 * unknown. With the role unknown (no metadata log) this replica's log is used. */
static const int32_t REPLICAS[] = { 1, 2 };

static void test_roles(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster c;
	base(&f, NOW - 2 * HOUR, NOW);
	release(&f, 4, 3, 1);
	f.cfg.retention_ms = HOUR;
	memset(&c, 0, sizeof(c));
	c.image = c.topic_known = c.partition_known = true;
	c.a = (struct ss_assignment){ .replicas = REPLICAS, .isr = REPLICAS, .n_replicas = 2, .n_isr = 2,
				      .leader = 1, .leader_epoch = 0 };
	c.node_id = 1;
	f.in.cluster = &c;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_LEADER);
	expect_lag(ev, 1, 1000);
	c.node_id = 2;
	ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_FOLLOWER);
	assert_true(ev->delete_lag_null);
	assert_false(ev->delete_lag_unknown);
	f.in.cluster = NULL;
	expect_lag(fx_eval(&f), 1, 1000);
	fx_free(&f);
}

/* 3.6 has no RemoteDeleteLag* gauges (KIP-963 came with 3.7.0): nothing to reproduce. */
static void test_release_without_gauge(void **state)
{
	(void)state;
	struct fx f;
	base(&f, NOW - 2 * HOUR, NOW);
	f.cfg.retention_ms = HOUR;
	release(&f, 3, 6, 2);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->time.n_delete, 1);
	assert_true(ev->delete_lag_null);
	assert_false(ev->delete_lag_unknown);
	release(&f, 3, 7, 0);
	expect_lag(fx_eval(&f), 1, 1000);
	fx_free(&f);
}

/* Tiered with no remote state: unknown, never 0. Not tiered: null, not unknown. */
static void test_unknown_and_untiered(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "dl");
	f.cfg.remote_storage = 1;
	fx_seg(&f, 0, 99, 10, NOW - 10);
	fx_seg(&f, 100, 109, 10, NOW - 5);
	fx_epoch(&f, 0, 0);
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->remote_state_unknown);
	assert_true(ev->delete_lag_null);
	assert_true(ev->delete_lag_unknown);
	f.cfg.remote_storage = 0;
	ev = fx_eval(&f);
	assert_false(ev->tiered);
	assert_true(ev->delete_lag_null);
	assert_false(ev->delete_lag_unknown);
	fx_free(&f);

	/* the local epochs decide what the pass lists: without a checkpoint, unknown */
	base(&f, NOW, NOW);
	release(&f, 4, 3, 1);
	f.part.n_epochs = 0;
	f.part.epochs_read = false;
	ev = fx_eval(&f);
	assert_true(ev->delete_lag_null);
	assert_true(ev->delete_lag_unknown);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_boundary),
		cmocka_unit_test(test_size_boundary),
		cmocka_unit_test(test_delete_started),
		cmocka_unit_test(test_delete_finished),
		cmocka_unit_test(test_unreferenced_epochs),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_release_without_gauge),
		cmocka_unit_test(test_unknown_and_untiered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
