/*
 * The replica's role (issue 22 item 2): only the partition's leader copies to remote
 * storage, reports RemoteCopyLagSegments/Bytes and runs the remote expiration, so copy lag,
 * the broker's copy lag, PHANTOM_COPY_LAG (KAFKA-20977) and UNSEEDED_SIZE_RETENTION
 * (KAFKA-20732) are evaluated on the leader's replica. A follower says so (role FOLLOWER, a
 * note, the lags null) and keeps its own local facts (only-local set, local retention);
 * where the metadata names no leader, or there is none, the role is unknown and the replica
 * is evaluated from its own log as before — never dropped as if it were a follower.
 */
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "eval_fixture.h"

static const int32_t REPLICAS[] = { 1, 2 };

/* The metadata log's view: partition t-0 on nodes 1 and 2, led by `leader`, seen from `node`. */
static void cluster(struct fx *f, struct ss_eval_cluster *c, int32_t node, int32_t leader)
{
	memset(c, 0, sizeof(*c));
	c->image = c->topic_known = c->partition_known = true;
	c->a = (struct ss_assignment){ .replicas = REPLICAS, .isr = REPLICAS, .n_replicas = 2, .n_isr = 2,
				       .leader = leader, .leader_epoch = 3 };
	c->node_id = node;
	f->in.cluster = c;
}

static bool has_note(const struct ss_eval *ev, const char *what)
{
	for (uint32_t i = 0; i < ev->n_notes; i++)
		if (strstr(ev->notes[i], what))
			return true;
	return false;
}

/* KAFKA-20977's phantom: four local segments, seeded at 200 (the third's base). */
static void phantom(struct fx *f)
{
	fx_init(f, "t");
	fx_seg(f, 0, 99, 100, 1000);
	fx_seg(f, 100, 199, 100, 2000);
	fx_seg(f, 200, 200, 100, 3000);
	fx_seg(f, 300, 349, 50, 4000);
	f->cfg.remote_storage = 1;
	f->in.has_seed = true;
	f->in.seed = 200;
}

static void test_copy_lag_on_the_leader(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster c;
	phantom(&f);
	cluster(&f, &c, 1, 1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_LEADER);
	assert_false(ev->copy_lag_null);
	assert_false(ev->broker_copy_lag_null);
	assert_int_equal(ev->copy_lag_segments, 0);
	assert_int_equal(ev->broker_copy_lag_segments, 1);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 1);
	assert_int_equal(ev->here, 1);
	fx_free(&f);
}

static void test_follower_says_so(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster c;
	phantom(&f);
	cluster(&f, &c, 2, 1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_FOLLOWER);
	assert_true(ev->copy_lag_null);
	assert_true(ev->broker_copy_lag_null);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 0);   /* the follower's broker reports none */
	assert_true(has_note(ev, "a follower's replica (node 2; the partition's leader is node 1)"));
	/* its own local facts stay: the only-local set of its disk */
	assert_false(ev->only_local_null);
	assert_int_equal(ev->only_local_segments, 1);
	assert_int_equal(ev->only_local_bytes, 50);
	assert_int_equal(ev->here, 1);
	fx_free(&f);
}

/* No leader in the metadata (a stopped cluster's log), no metadata log, no node id: the
 * role is unknown, and the replica is evaluated as before (no miss on a leader). */
static void test_role_unknown_is_not_follower(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster c;
	phantom(&f);
	cluster(&f, &c, 1, -1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_UNKNOWN);
	assert_false(ev->copy_lag_null);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 1);
	assert_true(has_note(ev, "names no leader"));
	cluster(&f, &c, -1, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_UNKNOWN);
	assert_false(ev->copy_lag_null);
	f.in.cluster = NULL;
	ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_UNKNOWN);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 1);
	fx_free(&f);
}

/* A partition known not to be tiered (an internal topic, whose remote metadata partition was
 * read whole and is empty) has no copy lag: no leader in the metadata is no news about it. */
static void test_no_leader_note_only_where_tiered(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster c;
	fx_init(&f, "t");
	fx_seg(&f, 0, 99, 100, 1000);
	f.cfg.remote_storage = 0;
	f.in.remote_known_empty = true;
	cluster(&f, &c, 1, -1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->role, SS_ROLE_UNKNOWN);
	assert_false(ev->tiered);
	assert_false(has_note(ev, "names no leader"));
	f.cfg.remote_storage = 1;   /* tiered: the note says why copy lag is this replica's */
	ev = fx_eval(&f);
	assert_true(ev->tiered);
	assert_true(has_note(ev, "names no leader"));
	fx_free(&f);
}

/* KAFKA-20732 (test_kafka_20732's scenario at retention.bytes 550): on the leader, not on
 * the follower, whose broker runs no remote expiration; local retention stays per replica. */
static void test_unseeded_size_retention_on_the_leader(void **state)
{
	(void)state;
	struct fx f;
	struct ss_eval_cluster c;
	fx_init(&f, "t");
	f.cfg.remote_storage = 1;
	f.cfg.retention_ms = -1;
	f.cfg.retention_bytes = 550;
	f.cfg.local_retention_bytes = 150;
	f.in.now_ms = 100000;
	fx_rseg(&f, "r100", 100, 199, 0, 100, 1000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "r200", 200, 299, 0, 100, 2000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "r300", 300, 399, 0, 100, 3000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "r400", 400, 499, 0, 100, 4000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "r500", 500, 599, 0, 100, 5000, SS_RSEG_COPY_FINISHED, 1);
	fx_seg(&f, 300, 399, 100, 3000);
	fx_seg(&f, 400, 499, 100, 4000);
	fx_seg(&f, 500, 599, 100, 5000);
	fx_seg(&f, 600, 649, 50, 6000);
	fx_epoch(&f, 0, 300);
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 100;
	cluster(&f, &c, 1, 1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "UNSEEDED_SIZE_RETENTION"), 1);
	uint32_t local_leader = ev->local.n_delete;
	assert_true(ev->local.evaluated);
	cluster(&f, &c, 2, 1);
	ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "UNSEEDED_SIZE_RETENTION"), 0);
	assert_true(ev->local.evaluated);
	assert_int_equal(ev->local.n_delete, local_leader);
	cluster(&f, &c, 2, -1);   /* unknown role: as before */
	assert_int_equal(fx_count(fx_eval(&f), "UNSEEDED_SIZE_RETENTION"), 1);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_lag_on_the_leader),
		cmocka_unit_test(test_follower_says_so),
		cmocka_unit_test(test_role_unknown_is_not_follower),
		cmocka_unit_test(test_unseeded_size_retention_on_the_leader),
		cmocka_unit_test(test_no_leader_note_only_where_tiered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
