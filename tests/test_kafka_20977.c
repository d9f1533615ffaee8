/*
 * KAFKA-20977: Kafka's RemoteCopyLagSegments/Bytes use baseOffset >= highestOffsetInRemoteStorage,
 * so a copied single-offset segment whose base equals the highest remote offset counts
 * as not yet copied. Scenario from the issue: segments [0,22], [23,24], [25,25], [26,26],
 * active base 27, highest remote offset 26: real copy lag 0, broker lag 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

static void scenario(struct fx *f)
{
	fx_init(f, "payments");
	f->cfg.remote_storage = 1;
	fx_seg(f, 0, 22, 1000, 1);
	fx_seg(f, 23, 24, 200, 1);
	fx_seg(f, 25, 25, 90, 1);
	fx_seg(f, 26, 26, 85, 1);
	fx_seg(f, 27, 27, 80, 1);   /* active */
	fx_epoch(f, 0, 0);
}

static void check_phantom(struct ss_eval *ev)
{
	assert_true(ev->tiered);
	assert_true(ev->seeded);
	assert_int_equal(ev->highest_offset, 26);
	assert_int_equal(ev->only_local_segments, 1);   /* the active segment only */
	assert_int_equal(ev->only_local_bytes, 80);
	assert_false(ev->copy_lag_null);
	assert_int_equal(ev->copy_lag_segments, 0);
	assert_int_equal(ev->copy_lag_bytes, 0);
	assert_int_equal(ev->broker_copy_lag_segments, 1);   /* {26, 27} - 1 */
	assert_int_equal(ev->broker_copy_lag_bytes, 85);     /* 85 + 80 - 80 */
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 1);
	const struct ss_finding *p = fx_finding(ev, "PHANTOM_COPY_LAG", 0);
	assert_string_equal(p->ref, "KAFKA-20977");
	assert_true(p->has_amount);
	assert_int_equal(p->segments, 1);
	assert_int_equal(p->bytes, 85);
	assert_non_null(strstr(p->message, "00000000000000000026.log"));
}

static void test_seeded_by_hand(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	f.in.has_seed = true;
	f.in.seed = 26;
	struct ss_eval *ev = fx_eval(&f);
	check_phantom(ev);
	assert_string_equal(ev->source, "seed");
	/* the segment flags agree: only the active segment is only-local */
	for (int i = 0; i < 4; i++)
		assert_false(f.segs[i].flags & SS_SEG_ONLY_LOCAL);
	assert_true(f.segs[4].flags & SS_SEG_ONLY_LOCAL);
	fx_free(&f);
}

static void test_seeded_from_remote_state(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	/* what the copy task recorded: endOffset = next base - 1 */
	fx_rseg(&f, "s0", 0, 22, 0, 1000, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "s23", 23, 24, 0, 200, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "s25", 25, 25, 0, 90, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "s26", 26, 26, 0, 85, 1, SS_RSEG_COPY_FINISHED, 1);
	struct ss_eval *ev = fx_eval(&f);
	check_phantom(ev);
	assert_string_equal(ev->source, "remote-state");
	fx_free(&f);
}

/* Controls: when the highest offset is not a segment's base, or unknown, no phantom. */
static void test_no_phantom(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	f.in.has_seed = true;
	f.in.seed = 24;   /* end of [23,24]: only-local {25, 26, 27} */
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->copy_lag_segments, 2);
	assert_int_equal(ev->copy_lag_bytes, 175);
	assert_int_equal(ev->broker_copy_lag_segments, 2);
	assert_int_equal(ev->broker_copy_lag_bytes, 175);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 0);

	f.in.has_seed = false;   /* unseeded: copy lag unknown, nothing to compare */
	ev = fx_eval(&f);
	assert_true(ev->copy_lag_null);
	assert_int_equal(ev->broker_copy_lag_segments, 4);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 0);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seeded_by_hand),
		cmocka_unit_test(test_seeded_from_remote_state),
		cmocka_unit_test(test_no_phantom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
