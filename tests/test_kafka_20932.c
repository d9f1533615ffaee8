/*
 * KAFKA-20932: RemoteLogLeaderEpochState loses a finished segment when a later
 * overlapping upload reuses its start offset while a higher tail segment exists.
 * Worked example from the issue: S0=[0,100], S1=[101,200], then S2=[0,150], all epoch 0.
 * The loop guard `highestLogOffset (200) <= leaderEpochEndOffset (150)` is false, and
 * offsetToId.put(0, S2) overwrites S0 without adding it to unreferencedSegmentIds.
 * segscan keeps S0 listed, counted and reachable by retention, and reports it.
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
	fx_init(f, "events");
	f->cfg.remote_storage = 1;
	fx_rseg(f, "S0", 0, 100, 0, 1000, 1000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "S1", 101, 200, 0, 2000, 3000, SS_RSEG_COPY_FINISHED, 2);
	fx_rseg(f, "S2", 0, 150, 0, 1500, 2000, SS_RSEG_COPY_FINISHED, 3);
	fx_seg(f, 201, 250, 10, 4000);   /* the local log: only the active segment is left */
	fx_epoch(f, 0, 0);
	f->part.has_log_start = true;
	f->part.log_start_ckpt = 0;
	f->in.now_ms = 2500;
	f->cfg.retention_ms = -1;
}

static bool listed(const struct ss_remote_part *p, bool unfixed, const char *id)
{
	const struct ss_rseg **l;
	uint32_t n;
	bool found = false;
	assert_int_equal(ss_remote_list_epoch(p, 0, unfixed, &l, &n), 0);
	for (uint32_t i = 0; i < n; i++)
		found |= strcmp(l[i]->id, id) == 0;
	free(l);
	return found;
}

static const struct ss_rseg *seg(const struct ss_remote_part *p, const char *id)
{
	for (uint32_t i = 0; i < p->n_segs; i++)
		if (strcmp(ss_remote_seg(p, i)->id, id) == 0)
			return ss_remote_seg(p, i);
	return NULL;
}

static void test_index_keeps_s0(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	const struct ss_remote_part *p = ss_remote_find(f.remote, "events", 0, NULL);
	/* fixed listing: all three; Kafka's own: S0 is gone */
	assert_true(listed(p, false, "S0"));
	assert_true(listed(p, false, "S1"));
	assert_true(listed(p, false, "S2"));
	assert_false(listed(p, true, "S0"));
	assert_true(listed(p, true, "S1"));
	assert_true(listed(p, true, "S2"));
	assert_true(ss_remote_seg_lost(p, seg(p, "S0")));
	assert_false(ss_remote_seg_lost(p, seg(p, "S1")));
	assert_false(ss_remote_seg_lost(p, seg(p, "S2")));
	int64_t h;
	assert_true(ss_remote_highest_for_epoch(p, 0, &h));
	assert_int_equal(h, 200);
	fx_free(&f);
}

static void test_counted_and_reported(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 200);
	assert_int_equal(ev->remote_segments, 3);
	assert_int_equal(ev->remote_bytes, 4500);
	assert_int_equal(ev->lost_segments, 1);
	assert_int_equal(ev->lost_bytes, 1000);
	assert_int_equal(fx_count(ev, "LOST_EPOCH_SEGMENT"), 1);
	const struct ss_finding *fd = fx_finding(ev, "LOST_EPOCH_SEGMENT", 0);
	assert_string_equal(fd->ref, "KAFKA-20932");
	assert_int_equal(fd->n_ids, 1);
	assert_string_equal(fd->segment_ids[0], "S0");
	assert_int_equal(fd->segments, 1);
	assert_int_equal(fd->bytes, 1000);
	assert_non_null(strstr(fd->message, "0..100"));
	fx_free(&f);
}

static void test_reached_by_retention(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	/* size: total 10 + 4500 = 4510, limit 3510 -> breach 1000: S0 (start 0, first event) */
	f.cfg.retention_bytes = 3510;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete, 1);
	assert_string_equal(ev->size.delete_ids[0], "S0");
	assert_int_equal(ev->size.delete_bytes, 1000);
	assert_int_equal(ev->size.new_log_start_offset, 101);
	/* time: cutoff 2500 - 1000 = 1500, S0 (1000) expires, S2 (2000) stops the walk */
	f.cfg.retention_bytes = -1;
	f.cfg.retention_ms = 1000;
	ev = fx_eval(&f);
	assert_int_equal(ev->time.n_delete, 1);
	assert_string_equal(ev->time.delete_ids[0], "S0");
	fx_free(&f);
}

/* A DELETE_SEGMENT_STARTED for S0 puts it back into Kafka's unreferenced set. */
static void test_delete_brings_it_back(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	fx_update(&f, "S0", SS_RSEG_DELETE_STARTED, 10);
	const struct ss_remote_part *p = ss_remote_find(f.remote, "events", 0, NULL);
	assert_true(listed(p, true, "S0"));
	assert_false(ss_remote_seg_lost(p, seg(p, "S0")));
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "LOST_EPOCH_SEGMENT"), 0);
	assert_int_equal(ev->remote_segments, 2);
	fx_update(&f, "S0", SS_RSEG_DELETE_FINISHED, 11);
	assert_false(listed(p, false, "S0"));
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_keeps_s0),
		cmocka_unit_test(test_counted_and_reported),
		cmocka_unit_test(test_reached_by_retention),
		cmocka_unit_test(test_delete_brings_it_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
