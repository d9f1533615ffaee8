/*
 * The evaluator: offsets, findHighestRemoteOffset (docs/kafka-format.md §5.2.4), only-local
 * and copy lag, retention walks (docs/contract.md "Retention semantics") on both sides of
 * every boundary, tiered and not, local retention as a union, local findings.
 * Expected numbers are worked out by hand from the contract in the comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "eval_fixture.h"

static void test_offsets(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	fx_seg(&f, 0, 7, 100, 1);     /* last 7, but the range runs to the next base - 1 */
	fx_seg(&f, 10, 19, 200, 2);
	fx_seg(&f, 20, 24, 50, 3);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(f.segs[0].end_offset, 9);
	assert_int_equal(f.segs[1].end_offset, 19);
	assert_int_equal(f.segs[2].end_offset, 24);
	assert_int_equal(ev->log_end_offset, 25);
	assert_int_equal(ev->log_start_offset, 0);
	assert_int_equal(ev->size_bytes, 350);
	assert_int_equal(ev->remote_storage, 0);
	assert_false(ev->tiered);
	assert_false(ev->seeded);
	assert_null(ev->source);

	/* an empty active segment: LEO is its base; a checkpointed log start wins */
	fx_seg(&f, 25, -1, 0, -1);
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 5;
	ev = fx_eval(&f);
	assert_int_equal(ev->log_end_offset, 25);
	assert_int_equal(f.segs[3].end_offset, 24);
	assert_int_equal(ev->log_start_offset, 5);

	/* a vanished segment counts nowhere */
	f.segs[1].flags |= SS_SEG_VANISHED;
	ev = fx_eval(&f);
	assert_int_equal(ev->size_bytes, 150);
	assert_int_equal(ev->only_local_segments, 3);
	assert_int_equal(f.segs[0].end_offset, 19);   /* up to the next live segment */
	fx_free(&f);
}

/*
 * A segment deleted between discovery and its read (SS_SEG_VANISHED) is not where the
 * log starts: without a log-start checkpoint, log_start_offset is the base offset of the
 * first segment still there, never that of the one that vanished (the evaluator's
 * re-link of the live segments). Numbers: segments 0..99 (100 B), 100..199 (200 B),
 * 200..249 (50 B).
 */
static void test_vanished_log_start(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	fx_seg(&f, 0, 99, 100, 1);
	fx_seg(&f, 100, 199, 200, 2);
	fx_seg(&f, 200, 249, 50, 3);
	struct ss_eval *ev = fx_eval(&f);
	assert_false(f.part.has_log_start);
	assert_int_equal(ev->log_start_offset, 0);

	f.segs[0].flags |= SS_SEG_VANISHED;
	ev = fx_eval(&f);
	assert_int_equal(ev->log_start_offset, 100);
	assert_int_equal(ev->size_bytes, 250);
	assert_int_equal(ev->log_end_offset, 250);

	/* the first two gone: the active segment alone is the log */
	f.segs[1].flags |= SS_SEG_VANISHED;
	ev = fx_eval(&f);
	assert_int_equal(ev->log_start_offset, 200);
	assert_int_equal(ev->size_bytes, 50);
	assert_int_equal(ev->log_end_offset, 250);

	/* a checkpointed log start still wins over the first live segment */
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 120;
	ev = fx_eval(&f);
	assert_int_equal(ev->log_start_offset, 120);
	fx_free(&f);
}

/* findHighestRemoteOffset across epochs. Local lineage: epoch 0@0, 2@100, 5@200, LEO 300. */
static void test_find_highest_remote_offset(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	f.cfg.remote_storage = 1;
	fx_seg(&f, 0, 149, 10, 1);
	fx_seg(&f, 150, 249, 10, 1);
	fx_seg(&f, 250, 299, 10, 1);
	fx_epoch(&f, 0, 0);
	fx_epoch(&f, 2, 100);
	fx_epoch(&f, 5, 200);

	/* no remote metadata for the partition: unseeded, never -1 */
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->tiered);
	assert_false(ev->seeded);
	assert_true(ev->only_local_null);
	assert_true(ev->copy_lag_null);

	/* remote data only in an epoch the local lineage lacks (3) and one after it (7):
	 * metadata exists, no local epoch has a highest offset -> -1, a real value */
	fx_rseg(&f, "x3", 0, 50, 3, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "x7", 300, 350, 7, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	ev = fx_eval(&f);
	assert_true(ev->seeded);
	assert_int_equal(ev->highest_offset, -1);
	assert_string_equal(ev->source, "remote-state");
	assert_int_equal(ev->only_local_segments, 3);

	/* epoch 0 [0,99] and epoch 2 [100,149]: epoch 5 has nothing, epoch 2's highest is 149,
	 * below its local end (200) -> 149 */
	fx_rseg(&f, "a", 0, 99, 0, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "b", 100, 149, 2, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 149);

	/* a remote epoch-2 segment beyond the local epoch's end (200): clipped to 199 */
	fx_rseg(&f, "c", 150, 250, 2, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 199);

	/* epoch 5 gets remote data: 260, under the LEO (300) */
	fx_rseg(&f, "d", 200, 260, 5, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 260);

	/* ... and at the LEO: end (300) <= h (300) -> 299 */
	fx_rseg(&f, "e", 261, 300, 5, 1, 1, SS_RSEG_COPY_FINISHED, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 299);

	/* a started (not finished) upload in epoch 5 further on changes nothing */
	fx_rseg(&f, "g", 301, 400, 5, 1, 1, SS_RSEG_COPY_STARTED, 1);
	ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 299);

	/* without a checkpoint: the highest finished end offset, with a note */
	f.part.epochs_read = false;
	f.part.n_epochs = 0;
	ev = fx_eval(&f);
	assert_true(ev->seeded);
	assert_int_equal(ev->highest_offset, 350);
	assert_int_equal(ev->n_notes, 1);
	assert_non_null(strstr(ev->notes[0], "leader-epoch-checkpoint"));

	/* --seed wins over everything */
	f.in.has_seed = true;
	f.in.seed = 42;
	ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 42);
	assert_string_equal(ev->source, "seed");
	fx_free(&f);
}

static void test_tiered_decision(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "__consumer_offsets");
	f.cfg.remote_storage = 1;
	fx_seg(&f, 0, 9, 10, 1);
	fx_seg(&f, 10, 19, 10, 1);
	assert_false(fx_eval(&f)->tiered);
	f.part.topic = "t";
	assert_true(fx_eval(&f)->tiered);
	f.cfg.compact = 1;
	assert_false(fx_eval(&f)->tiered);
	f.cfg.compact = 0;
	f.cfg.remote_system_enable = -1;
	assert_false(fx_eval(&f)->tiered);
	f.cfg.remote_system_enable = 1;
	f.cfg.remote_storage = -1;
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->tiered);                   /* unset, no metadata: evaluated as local */
	assert_int_equal(ev->remote_storage, -1);   /* but not known to be untiered */
	f.in.has_seed = true;
	f.in.seed = 9;
	ev = fx_eval(&f);
	assert_true(ev->tiered);                    /* unset, seeded */
	assert_int_equal(ev->remote_storage, 1);    /* the seed settles it */
	f.in.has_seed = false;
	fx_rseg(&f, "a", 0, 9, 0, 10, 1, SS_RSEG_COPY_STARTED, 1);
	ev = fx_eval(&f);
	assert_true(ev->tiered);                    /* unset, metadata exists */
	assert_int_equal(ev->remote_storage, 1);    /* the remote metadata settles it */
	f.cfg.remote_storage = 0;
	assert_false(fx_eval(&f)->tiered);
	/* what Kafka never tiers is settled without a config (UnifiedLog.isRemoteLogEnabled) */
	f.cfg.remote_storage = -1;
	f.cfg.compact = 1;
	assert_int_equal(fx_eval(&f)->remote_storage, 0);
	f.cfg.compact = 0;
	f.part.topic = "__transaction_state";
	assert_int_equal(fx_eval(&f)->remote_storage, 0);
	fx_free(&f);
}

/*
 * Unknown tiering (issue 20 item 3): no config says remote.storage.enable and nothing
 * settles it (no remote metadata, no seed; a copied log dir without its metadata log).
 * The partition may be tiered with its remote metadata on another broker, so its
 * only-local set is unknown (null, never the whole log), as are its lags; the config's
 * remote.storage.enable value is not printed as Kafka's default.
 */
static void test_unknown_tiering(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	f.cfg.remote_storage = -1;
	f.cfg.n_entries = 1;
	f.cfg.entries[0] = (struct ss_cfg_entry){ .key = "remote.storage.enable", .value = "false", .source = NULL };
	fx_seg(&f, 0, 9, 100, 1);
	fx_seg(&f, 10, 19, 50, 1);
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->tiered);
	assert_int_equal(ev->remote_storage, -1);
	assert_true(ev->only_local_null);
	assert_int_equal(ev->only_local_segments, 0);
	assert_true(ev->copy_lag_null);
	assert_true(ev->broker_copy_lag_null);
	for (int i = 0; i < 2; i++)
		assert_false(f.segs[i].flags & SS_SEG_ONLY_LOCAL);
	assert_int_equal(ev->config_value_unknown, 1u);
	/* the same partition known not to be tiered: everything is only-local */
	f.cfg.remote_storage = 0;
	f.cfg.entries[0].source = "DEFAULT_CONFIG";
	ev = fx_eval(&f);
	assert_false(ev->only_local_null);
	assert_int_equal(ev->only_local_segments, 2);
	assert_int_equal(ev->only_local_bytes, 150);
	assert_int_equal(ev->config_value_unknown, 0u);
	fx_free(&f);
}

/* Local segments 0..99, 100..199, 200..299, 300..349 (active), 100/100/100/50 bytes. */
static void four_local(struct fx *f)
{
	fx_seg(f, 0, 99, 100, 1000);
	fx_seg(f, 100, 199, 100, 2000);
	fx_seg(f, 200, 299, 100, 3000);
	fx_seg(f, 300, 349, 50, 4000);
}

static void test_only_local_and_lag(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	four_local(&f);
	/* non-tiered: everything is only-local, lags are null */
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->only_local_segments, 4);
	assert_int_equal(ev->only_local_bytes, 350);
	assert_true(ev->copy_lag_null);
	assert_true(ev->broker_copy_lag_null);
	for (int i = 0; i < 4; i++)
		assert_true(f.segs[i].flags & SS_SEG_ONLY_LOCAL);

	/* tiered, unseeded: only_local/copy_lag null; the broker counts every segment (-1) */
	f.cfg.remote_storage = 1;
	ev = fx_eval(&f);
	assert_true(ev->only_local_null);
	assert_true(ev->copy_lag_null);
	assert_false(ev->broker_copy_lag_null);
	assert_int_equal(ev->broker_copy_lag_segments, 3);
	assert_int_equal(ev->broker_copy_lag_bytes, 300);
	for (int i = 0; i < 4; i++)
		assert_false(f.segs[i].flags & SS_SEG_ONLY_LOCAL);

	/* seeded at 199 (end of the second segment): only-local = {200, 300} */
	f.in.has_seed = true;
	f.in.seed = 199;
	ev = fx_eval(&f);
	assert_int_equal(ev->only_local_segments, 2);
	assert_int_equal(ev->only_local_bytes, 150);
	assert_int_equal(ev->copy_lag_segments, 1);
	assert_int_equal(ev->copy_lag_bytes, 100);
	assert_int_equal(ev->broker_copy_lag_segments, 1);   /* base >= 199: {200, 300} - 1 */
	assert_int_equal(ev->broker_copy_lag_bytes, 100);
	assert_false(f.segs[1].flags & SS_SEG_ONLY_LOCAL);
	assert_true(f.segs[2].flags & SS_SEG_ONLY_LOCAL);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 0);

	/* seeded at 200, the base of the third segment: strict > leaves it out, >= keeps it */
	f.in.seed = 200;
	ev = fx_eval(&f);
	assert_int_equal(ev->only_local_segments, 1);
	assert_int_equal(ev->copy_lag_segments, 0);
	assert_int_equal(ev->broker_copy_lag_segments, 1);
	assert_int_equal(fx_count(ev, "PHANTOM_COPY_LAG"), 1);

	/* seeded beyond the LEO: nothing local-only, the broker's formula clamps at 0 */
	f.in.seed = 1000;
	ev = fx_eval(&f);
	assert_int_equal(ev->only_local_segments, 0);
	assert_int_equal(ev->broker_copy_lag_segments, 0);
	assert_int_equal(ev->broker_copy_lag_bytes, 0);
	fx_free(&f);
}

/* Remote r1 [0,99] r2 [100,199] r3 [200,299], 100 bytes each, max ts 1000/2000/3000;
 * local 200..299 (100 B) and active 300..349 (50 B); seeded at 299: total = 50 + 300. */
static void tiered_setup(struct fx *f)
{
	fx_init(f, "t");
	f->cfg.remote_storage = 1;
	fx_rseg(f, "r1", 0, 99, 0, 100, 1000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "r2", 100, 199, 0, 100, 2000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "r3", 200, 299, 0, 100, 3000, SS_RSEG_COPY_FINISHED, 1);
	fx_seg(f, 200, 299, 100, 3000);
	fx_seg(f, 300, 349, 50, 4000);
	fx_epoch(f, 0, 0);
	f->part.has_log_start = true;
	f->part.log_start_ckpt = 0;
	f->in.now_ms = 10000;
}

static void expect_remote_deletes(const struct ss_retention *r, const char *const *ids, uint32_t n, int64_t bytes,
				  int64_t nlso)
{
	assert_true(r->evaluated);
	assert_true(r->delete_is_remote);
	assert_int_equal(r->n_delete, n);
	for (uint32_t i = 0; i < n; i++)
		assert_string_equal(r->delete_ids[i], ids[i]);
	assert_int_equal(r->delete_bytes, bytes);
	assert_int_equal(r->has_new_log_start, n > 0);
	if (n)
		assert_int_equal(r->new_log_start_offset, nlso);
}

static void test_tiered_size_retention(void **state)
{
	(void)state;
	struct fx f;
	tiered_setup(&f);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 299);
	assert_int_equal(ev->only_local_bytes, 50);
	assert_int_equal(ev->remote_segments, 3);
	assert_int_equal(ev->remote_bytes, 300);

	static const struct { int64_t limit; uint32_t n; int64_t nlso; } cases[] = {
		{ 351, 0, 0 }, { 350, 0, 0 },   /* total 350 is not > limit */
		{ 349, 0, 0 },                  /* breach 1 - 100 < 0 */
		{ 250, 1, 100 },                /* breach 100 - 100 = 0 >= 0 */
		{ 249, 1, 100 },                /* breach 101: one, then 1 - 100 < 0 */
		{ 151, 1, 100 },
		{ 150, 2, 200 },
		{ 0, 3, 300 },                  /* 350 - 300 = 50 left: every remote segment */
	};
	static const char *const ids[] = { "r1", "r2", "r3" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f.cfg.retention_bytes = cases[i].limit;
		ev = fx_eval(&f);
		assert_int_equal(ev->size.limit, cases[i].limit);
		assert_int_equal(ev->size.total_bytes, 350);
		expect_remote_deletes(&ev->size, ids, cases[i].n, 100 * cases[i].n, cases[i].nlso);
	}
	f.cfg.retention_bytes = -1;
	ev = fx_eval(&f);
	assert_false(ev->size.evaluated);
	assert_string_equal(ev->size.reason, "no limit");
	assert_int_equal(ev->size.n_delete, 0);

	/* unseeded: not evaluated, nothing proposed */
	f.part.n_epochs = 0;
	f.part.epochs_read = false;
	ss_remote_free(f.remote);
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &f.remote), 0);
	f.cfg.retention_bytes = 0;
	ev = fx_eval(&f);
	assert_false(ev->seeded);
	assert_false(ev->size.evaluated);
	assert_string_equal(ev->size.reason, "unseeded");
	assert_int_equal(ev->size.n_delete, 0);
	assert_int_equal(fx_count(ev, "UNSEEDED_SIZE_RETENTION"), 0);
	fx_free(&f);
}

static void test_tiered_time_retention(void **state)
{
	(void)state;
	struct fx f;
	tiered_setup(&f);
	static const char *const ids[] = { "r1", "r2", "r3" };
	/* 4.3.0 and later: maxTimestampMs < cleanupUntilMs; before 4.3: <= (n42) */
	static const struct { int64_t limit; uint32_t n, n42; } cases[] = {
		{ 8000, 1, 2 },    /* cutoff 2000: 1000 < 2000, 2000 < 2000 is false (2000 <= 2000 is true) */
		{ 7999, 2, 2 },    /* cutoff 2001 */
		{ 7000, 2, 3 },    /* cutoff 3000: 3000 < 3000 false */
		{ 6999, 3, 3 },
		{ 9000, 0, 1 },    /* cutoff 1000 */
		{ 10001, 0, 0 },   /* cutoff < 0: 4.0 and later skip (earlier: no max timestamp is negative) */
	};
	struct ss_eval_release r431 = { .known = true, .v = { 4, 3, 1 } }, r42 = { .known = true, .v = { 4, 2, 0 } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f.cfg.retention_ms = cases[i].limit;
		f.in.release = &r431;
		struct ss_eval *ev = fx_eval(&f);
		assert_int_equal(ev->time.limit, cases[i].limit);
		expect_remote_deletes(&ev->time, ids, cases[i].n, 100 * cases[i].n, 100 * (int64_t)cases[i].n);
		f.in.release = &r42;
		ev = fx_eval(&f);
		expect_remote_deletes(&ev->time, ids, cases[i].n42, 100 * cases[i].n42, 100 * (int64_t)cases[i].n42);
		/* the release unknown: known where both readings agree, unknown where a segment
		 * sits on the cutoff */
		f.in.release = NULL;
		ev = fx_eval(&f);
		if (cases[i].n == cases[i].n42) {
			expect_remote_deletes(&ev->time, ids, cases[i].n, 100 * cases[i].n, 100 * (int64_t)cases[i].n);
		} else {
			assert_false(ev->time.evaluated);
			assert_true(ev->time.unknown);
			assert_non_null(strstr(ev->time.reason, "4.3.0"));
		}
	}
	f.in.release = &r431;
	f.cfg.retention_ms = -1;
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->time.evaluated);
	assert_string_equal(ev->time.reason, "no limit");

	/* the walk stops at the first young segment even if an older-stamped one follows */
	f.cfg.retention_ms = 7000;
	fx_rseg(&f, "r0", 0, 49, 0, 10, 5000, SS_RSEG_COPY_FINISHED, 1);   /* start 0, later event: after r1 */
	ev = fx_eval(&f);
	expect_remote_deletes(&ev->time, (const char *[]){ "r1" }, 1, 100, 100);
	fx_free(&f);
}

/* Ties by start offset go in event order; new_log_start_offset is the highest end + 1. */
static void test_remote_walk_order(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	f.cfg.remote_storage = 1;
	fx_rseg(&f, "late", 100, 199, 0, 10, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "wide", 0, 150, 0, 10, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(&f, "narrow", 0, 99, 0, 10, 1, SS_RSEG_COPY_FINISHED, 1);
	fx_seg(&f, 200, 210, 5, 1);
	fx_epoch(&f, 0, 0);
	f.part.has_log_start = true;   /* the remote tier starts at 0 */
	f.part.log_start_ckpt = 0;
	f.cfg.retention_ms = 1;
	f.in.now_ms = 100;
	struct ss_eval *ev = fx_eval(&f);
	expect_remote_deletes(&ev->time, (const char *[]){ "wide", "narrow", "late" }, 3, 30, 200);
	f.cfg.retention_ms = -1;
	f.cfg.retention_bytes = 15;   /* total 5 + 30 = 35: breach 20, two go */
	ev = fx_eval(&f);
	expect_remote_deletes(&ev->size, (const char *[]){ "wide", "narrow" }, 2, 20, 151);
	/* never below the current log start offset (Kafka only raises it) */
	f.part.log_start_ckpt = 160;
	ev = fx_eval(&f);
	expect_remote_deletes(&ev->size, (const char *[]){ "wide", "narrow" }, 2, 20, 160);
	fx_free(&f);
}

static void expect_local_deletes(const struct ss_retention *r, const int64_t *bases, uint32_t n, int64_t bytes)
{
	assert_true(r->evaluated);
	assert_false(r->delete_is_remote);
	assert_int_equal(r->n_delete, n);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(r->delete_offsets[i], bases[i]);
	assert_int_equal(r->delete_bytes, bytes);
}

static void test_local_only_retention(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	four_local(&f);   /* 350 bytes, max ts 1000..4000 */
	f.in.now_ms = 10000;
	static const int64_t bases[] = { 0, 100, 200, 300 };
	static const struct { int64_t limit; uint32_t n; } sizes[] = {
		{ 351, 0 },   /* size < limit */
		{ 350, 0 },   /* diff 0: 0 - 100 < 0 */
		{ 250, 1 },   /* diff 100 */
		{ 249, 1 },
		{ 150, 2 },
		{ 0, 3 },     /* never the active segment */
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		f.cfg.retention_bytes = sizes[i].limit;
		struct ss_eval *ev = fx_eval(&f);
		assert_int_equal(ev->size.total_bytes, 350);
		expect_local_deletes(&ev->size, bases, sizes[i].n, 100 * sizes[i].n);
		assert_int_equal(ev->size.has_new_log_start, sizes[i].n > 0);
		if (sizes[i].n)
			assert_int_equal(ev->size.new_log_start_offset, bases[sizes[i].n]);
		assert_false(ev->local.evaluated);
		assert_string_equal(ev->local.reason, "remote storage disabled");
	}
	f.cfg.retention_bytes = -1;
	static const struct { int64_t limit; uint32_t n; } times[] = {
		{ 9000, 0 },   /* 10000 - 1000 = 9000 > 9000 is false */
		{ 8999, 1 },
		{ 8000, 1 },
		{ 7999, 2 },
		{ 0, 3 },
	};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		f.cfg.retention_ms = times[i].limit;
		struct ss_eval *ev = fx_eval(&f);
		expect_local_deletes(&ev->time, bases, times[i].n, 100 * times[i].n);
	}
	fx_free(&f);
}

/*
 * Tiered local retention over segments already in remote storage, union of the walks.
 * Local: 0..99 (ts 1000), 100..199 (ts 5000), 200..299 (ts 1000), 300.. active; 100 B each
 * but the active 50 B; seeded at 199.
 */
static void test_local_retention_union(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	f.cfg.remote_storage = 1;
	fx_seg(&f, 0, 99, 100, 1000);
	fx_seg(&f, 100, 199, 100, 5000);
	fx_seg(&f, 200, 299, 100, 1000);
	fx_seg(&f, 300, 349, 50, 1000);
	f.in.now_ms = 10000;
	f.in.has_seed = true;
	f.in.seed = 199;
	static const int64_t bases[] = { 0, 100, 200 };

	f.cfg.local_retention_ms = 6000;      /* time: 0 (9000 > 6000), stops at 100 (5000) */
	f.cfg.local_retention_bytes = 150;    /* size: diff 200 -> 0, 100, stops at 200 (not uploaded) */
	struct ss_eval *ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 2, 200);
	assert_int_equal(ev->local_limit_ms, 6000);
	assert_int_equal(ev->local_limit_bytes, 150);

	f.cfg.local_retention_bytes = 250;    /* size: diff 100 -> only 0; time gives 0 too */
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 1, 100);

	f.cfg.local_retention_ms = 4999;      /* time: 0 and 100; size: 0 -> union 2 */
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 2, 200);

	f.cfg.local_retention_ms = 0;         /* time would take 200 too, but it is not uploaded */
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 2, 200);
	f.in.seed = 299;                      /* now it is */
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 3, 300);

	/* -2: the total retention limits (none here -> time only from retention.ms), on a
	 * release that resolves -2 (KAFKA-17360 fixed: 3.9.0) */
	struct ss_eval_release rel = { .known = true, .v = { 3, 9, 0 } };
	f.in.release = &rel;
	f.in.seed = 199;
	f.cfg.local_retention_ms = -2;
	f.cfg.local_retention_bytes = -2;
	f.cfg.retention_ms = 8500;            /* 9000 > 8500: segment 0 only */
	f.cfg.retention_bytes = -1;
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 1, 100);
	f.cfg.retention_ms = -1;
	ev = fx_eval(&f);
	assert_false(ev->local.evaluated);
	assert_string_equal(ev->local.reason, "no limit");
	f.cfg.retention_ms = 8500;
	f.in.release = NULL;

	/* unseeded: nothing is known to be uploaded */
	f.cfg.local_retention_ms = 0;
	f.in.has_seed = false;
	ev = fx_eval(&f);
	assert_false(ev->local.evaluated);
	assert_string_equal(ev->local.reason, "unseeded");
	/* and its remote tier is unknown (REMOTE_STATE_UNKNOWN): remote time retention is too,
	 * never the "nothing due" of an empty replay, unless its cutoff is before the epoch */
	assert_true(ev->remote_state_unknown);
	assert_true(ev->time.unknown);
	assert_string_equal(ev->time.reason, "unseeded");
	assert_true(ev->total.unknown);
	int64_t keep_ms = f.cfg.retention_ms;
	f.cfg.retention_ms = f.in.now_ms + 1;
	ev = fx_eval(&f);
	assert_true(ev->time.evaluated);
	assert_int_equal(ev->time.n_delete, 0);
	f.cfg.retention_ms = keep_ms;

	/* remote.log.copy.disable: retention.* applies, without the upload guard */
	f.cfg.remote_copy_disable = 1;
	f.cfg.retention_ms = 8500;
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 1, 100);
	fx_free(&f);
}

static void test_local_findings(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	f.cfg.policy_known = true;   /* cleanup.policy=delete, known: a later first batch is wrong */
	struct ss_seg *a = fx_seg(&f, 0, 120, 1000, 1);       /* overlaps the next (100) */
	ss_seg_xget(a)->crc_errors = 2;
	a->flags |= SS_SEG_INDEX_BAD;
	struct ss_seg *b = fx_seg(&f, 100, 199, 1000, 1);
	ss_seg_xget(b)->truncated_bytes = 37;
	b->valid_bytes = 963;
	b->flags |= SS_SEG_OFFSETS_BAD | SS_SEG_BASE_MISMATCH;
	ss_seg_xget(b)->first_batch_base = 105;
	struct ss_seg *c = fx_seg(&f, 200, 210, 4096, 1);
	ss_seg_xget(c)->truncated_bytes = 4000;
	c->valid_bytes = 96;
	c->flags |= SS_SEG_ZERO_TAIL;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(fx_count(ev, "CRC_MISMATCH"), 1);
	assert_int_equal(fx_count(ev, "INDEX_INCONSISTENT"), 1);
	assert_int_equal(fx_count(ev, "OFFSET_GAP_OR_OVERLAP"), 2);
	assert_int_equal(fx_count(ev, "BASE_OFFSET_MISMATCH"), 1);
	assert_int_equal(fx_count(ev, "TRUNCATED_TAIL"), 2);
	const struct ss_finding *t0 = fx_finding(ev, "TRUNCATED_TAIL", 0);
	assert_int_equal(t0->bytes, 37);
	assert_non_null(strstr(t0->message, "00000000000000000100.log"));
	const struct ss_finding *t1 = fx_finding(ev, "TRUNCATED_TAIL", 1);
	assert_int_equal(t1->bytes, 4000);
	assert_non_null(strstr(t1->message, "preallocated"));
	const struct ss_finding *ov = fx_finding(ev, "OFFSET_GAP_OR_OVERLAP", 0);
	assert_non_null(strstr(ov->message, "120"));
	assert_non_null(strstr(fx_finding(ev, "BASE_OFFSET_MISMATCH", 0)->message, "105"));
	assert_non_null(strstr(fx_finding(ev, "CRC_MISMATCH", 0)->message, "2 batches"));
	fx_free(&f);

	/* a clean partition has no findings; a gap is not a finding */
	fx_init(&f, "t");
	fx_seg(&f, 0, 50, 10, 1);
	fx_seg(&f, 100, 150, 10, 1);
	assert_int_equal(fx_eval(&f)->n_findings, 0);
	fx_free(&f);
}

/* BASE_OFFSET_MISMATCH (docs/contract.md): a first batch below the file name's offset is
 * always wrong; above it is normal in a compacted topic (the cleaner names a cleaned
 * segment after the first segment of its group), so it is raised only where
 * cleanup.policy is known and has no compact. */
static int base_findings(int first_batch, bool known, bool compact)
{
	struct fx f;
	fx_init(&f, "t");
	f.cfg.policy_known = known;
	f.cfg.compact = compact;
	fx_seg(&f, 0, 40, 100, 1);
	struct ss_seg *b = fx_seg(&f, 100, 150, 100, 1);
	b->flags |= SS_SEG_BASE_MISMATCH;
	ss_seg_xget(b)->first_batch_base = first_batch;
	int n = fx_count(fx_eval(&f), "BASE_OFFSET_MISMATCH");
	fx_free(&f);
	return n;
}

static void test_base_offset_policy(void **state)
{
	(void)state;
	assert_int_equal(base_findings(110, false, false), 0);   /* above, policy unknown */
	assert_int_equal(base_findings(110, true, false), 1);    /* above, delete */
	assert_int_equal(base_findings(110, true, true), 0);     /* above, compact: the cleaner */
	assert_int_equal(base_findings(90, true, true), 1);      /* below: always */
	assert_int_equal(base_findings(90, false, false), 1);
}

/*
 * cleanup.policy and retention (issue 20 item 1): UnifiedLog.deleteOldSegments applies
 * retention.ms and retention.bytes only when the policy has delete. Four local segments,
 * 350 bytes, max timestamps 1000..4000, now 10000, limits that would take three.
 */
/* Local segments of a tiered partition for the local-retention cases: 0..99 (ts 1000),
 * 100..199 (ts 5000), 200..299 (ts 1000), 300..349 active; 100 B each but the active 50 B;
 * seeded at 199, now 10000. */
static void local_setup(struct fx *f)
{
	fx_init(f, "t");
	f->cfg.remote_storage = 1;
	fx_seg(f, 0, 99, 100, 1000);
	fx_seg(f, 100, 199, 100, 5000);
	fx_seg(f, 200, 299, 100, 1000);
	fx_seg(f, 300, 349, 50, 1000);
	f->in.now_ms = 10000;
	f->in.has_seed = true;
	f->in.seed = 199;
}

/*
 * KAFKA-17360: on 3.6.0 .. 3.8.0 (fixed in 3.7.2, 3.8.1, 3.9.0) a tiered topic left at
 * local.retention.ms/bytes = -2 gets no local time or size retention: the raw -2 reaches the
 * `< 0: return 0` of deleteRetentionMs/SizeBreachedSegments. The prediction follows the
 * release, and says which releases differ when it is unknown. retention.ms 8500: segment 0
 * (age 9000) is due where -2 means retention.ms.
 */
static void test_kafka_17360_local_retention(void **state)
{
	(void)state;
	struct fx f;
	static const int64_t bases[] = { 0, 100 };
	struct ss_eval_release rel = { .known = true };
	local_setup(&f);
	f.cfg.retention_ms = 8500;
	f.in.release = &rel;
	static const struct { const char *v; bool bug; } rels[] = {
		{ "3.6.2", true }, { "3.7.0", true }, { "3.7.1", true }, { "3.7.2", false }, { "3.8.0", true },
		{ "3.8.1", false }, { "3.9.0", false }, { "4.3.1", false },
	};
	for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
		assert_int_equal(ss_kver_parse(rels[i].v, &rel.v), 0);
		struct ss_eval *ev = fx_eval(&f);
		if (!rels[i].bug) {
			expect_local_deletes(&ev->local, bases, 1, 100);
			assert_int_equal(ev->n_notes, 0);
			continue;
		}
		/* nothing by time or size: not evaluated, known (the total is known: nothing local) */
		assert_false(ev->local.evaluated);
		assert_false(ev->local.unknown);
		assert_non_null(strstr(ev->local.reason, "KAFKA-17360"));
		assert_int_equal(ev->local.n_delete, 0);
		assert_false(ev->total.unknown);
		assert_int_equal(ev->total.n_local, 0);
		assert_int_equal(ev->n_notes, 1);
		assert_non_null(strstr(ev->notes[0], "KAFKA-17360"));
	}

	/* the release unknown, or a line with both (3.8 from the metadata log), or a
	 * metadata.version that means 3.8 or 3.7: unknown, and the reason names the releases
	 * as the table describes them */
	char which[160];
	ss_ticket_describe(ss_ticket_find("KAFKA-17360"), which, sizeof(which));
	struct ss_eval_release line = { .known = true, .v = { 3, 8, SS_KVER_LINE } };
	struct ss_eval_release mv20 = { .mv_level = 20 };
	const struct ss_eval_release *open[] = { NULL, &line, &mv20 };
	for (int i = 0; i < 3; i++) {
		f.in.release = open[i];
		struct ss_eval *ev = fx_eval(&f);
		assert_false(ev->local.evaluated);
		assert_true(ev->local.unknown);
		assert_non_null(strstr(ev->local.reason, which));
		assert_true(ev->total.unknown);
	}
	/* ... unless both readings agree: nothing is old enough either way */
	f.in.release = NULL;
	f.cfg.retention_ms = 9500;
	struct ss_eval *ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 0, 0);
	/* an explicit local.retention.bytes (150: segments 0 and 100 go by size) runs on every
	 * release; only the time half is -2, and the size walk holds it: the same either way */
	f.cfg.retention_ms = 8500;
	f.cfg.local_retention_bytes = 150;
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 2, 200);
	/* remote.log.copy.disable: retention.* apply, -2 is not read at all */
	f.cfg.local_retention_bytes = -2;
	f.cfg.remote_copy_disable = 1;
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 1, 100);
	fx_free(&f);
}

static void policy_setup(struct fx *f, const char *topic)
{
	fx_init(f, topic);
	four_local(f);
	f->in.now_ms = 10000;
	f->cfg.retention_ms = 0;
	f->cfg.retention_bytes = 0;
}

static void test_cleanup_policy_retention(void **state)
{
	(void)state;
	struct fx f;
	/* compact alone: nothing by time or size, and no local tier */
	policy_setup(&f, "t");
	f.cfg.policy_known = true;
	f.cfg.compact = 1;
	f.cfg.no_delete = 1;
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->size.evaluated);
	assert_false(ev->time.evaluated);
	assert_false(ev->size.unknown);
	assert_string_equal(ev->size.reason, "cleanup.policy has no delete");
	assert_string_equal(ev->time.reason, "cleanup.policy has no delete");
	assert_int_equal(ev->size.n_delete + ev->time.n_delete, 0);
	assert_string_equal(ev->local.reason, "compacted topics are never tiered");
	assert_false(ev->total.unknown);
	assert_int_equal(ev->total.n_local + ev->total.n_remote, 0);
	fx_free(&f);

	/* compact,delete: retention runs over the local log (the topic is never tiered) */
	policy_setup(&f, "t");
	f.cfg.policy_known = true;
	f.cfg.compact = 1;
	ev = fx_eval(&f);
	static const int64_t bases[] = { 0, 100, 200 };
	expect_local_deletes(&ev->size, bases, 3, 300);
	expect_local_deletes(&ev->time, bases, 3, 300);
	fx_free(&f);

	/* compact with remote.storage.enable=true (only a --topic-config what-if can say
	 * both: Kafka refuses the pair): never tiered, and a note says so */
	policy_setup(&f, "t");
	f.cfg.policy_known = true;
	f.cfg.compact = 1;
	f.cfg.no_delete = 1;
	f.cfg.remote_storage = 1;
	ev = fx_eval(&f);
	assert_false(ev->tiered);
	assert_false(ev->local.evaluated);
	assert_true(ev->n_notes >= 1 && strstr(ev->notes[0], "compacted"));
	fx_free(&f);

	/* the internal topics Kafka creates compacted: with the policy unknown (no
	 * metadata log, no config line) their retention is unknown, not the default's */
	static const char *const internal[] = { "__consumer_offsets", "__transaction_state" };
	for (int i = 0; i < 2; i++) {
		policy_setup(&f, internal[i]);
		ev = fx_eval(&f);
		assert_false(ev->size.evaluated);
		assert_false(ev->time.evaluated);
		assert_true(ev->time.unknown);
		assert_non_null(strstr(ev->time.reason, "compact"));
		assert_true(ev->total.unknown);
		/* known compact (the metadata log's DYNAMIC_TOPIC_CONFIG): not evaluated, known */
		f.cfg.policy_known = true;
		f.cfg.compact = 1;
		f.cfg.no_delete = 1;
		ev = fx_eval(&f);
		assert_false(ev->time.evaluated);
		assert_false(ev->time.unknown);
		assert_false(ev->total.unknown);
		fx_free(&f);
	}
	/* another internal topic with Kafka's delete (__remote_log_metadata), its retention.ms
	 * known (the metadata log's): as any (unknown, test_internal_created_configs) */
	policy_setup(&f, "__remote_log_metadata");
	ev = fx_eval(&f);
	expect_local_deletes(&ev->time, bases, 3, 300);
	fx_free(&f);

	/* a tiered topic whose policy is the empty list: remote size and time retention run
	 * (RemoteLogManager never looks at cleanup.policy), and on 4.2 and later local
	 * retention too while copying (UnifiedLog.deleteOldSegments' empty-policy branch:
	 * remoteLogEnabledAndRemoteCopyEnabled) */
	struct ss_eval_release r421 = { .known = true, .v = { 4, 2, 1 } };
	policy_setup(&f, "t");
	f.cfg.policy_known = true;
	f.cfg.no_delete = 1;
	f.cfg.remote_storage = 1;
	f.in.has_seed = true;
	f.in.seed = 199;
	f.in.release = &r421;
	ev = fx_eval(&f);
	assert_true(ev->tiered);
	assert_true(ev->size.evaluated);
	assert_true(ev->time.evaluated);
	expect_local_deletes(&ev->local, bases, 2, 200);
	f.cfg.remote_copy_disable = 1;
	ev = fx_eval(&f);
	assert_false(ev->local.evaluated);
	assert_string_equal(ev->local.reason, "cleanup.policy has no delete");
	fx_free(&f);
}

/*
 * An empty cleanup.policy, per release. Not tiered: like compact alone, nothing by time or
 * size (deleteOldSegments runs only the log-start-offset breach). Tiered: remote size and
 * time retention run whatever the policy (RemoteLogManager never reads it); local retention
 * runs from 4.2 on while copying, and not before (the else branch 4.2 added to
 * deleteOldSegments); with the release unknown it is unknown where the two differ.
 */
static void test_empty_policy_per_release(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	four_local(&f);
	f.in.now_ms = 10000;
	f.cfg.retention_ms = 0;
	f.cfg.retention_bytes = 0;
	f.cfg.policy_known = true;
	f.cfg.no_delete = 1;   /* the empty list: no delete, no compact */
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->size.evaluated || ev->time.evaluated || ev->size.unknown || ev->time.unknown);
	assert_string_equal(ev->time.reason, "cleanup.policy has no delete");
	assert_string_equal(ev->local.reason, "remote storage disabled");
	assert_false(ev->total.unknown);
	fx_free(&f);

	static const int64_t bases[] = { 0, 100 };
	struct ss_eval_release rel = { .known = true };
	local_setup(&f);
	f.cfg.policy_known = true;
	f.cfg.no_delete = 1;
	f.cfg.local_retention_ms = 6000;   /* segment 0 (age 9000) is due, 100 (age 5000) is not */
	f.cfg.retention_ms = 8500;
	fx_rseg(&f, "r1", 0, 99, 0, 100, 1000, SS_RSEG_COPY_FINISHED, 1);
	fx_epoch(&f, 0, 0);
	f.in.has_seed = false;
	f.in.release = &rel;
	static const struct { const char *v; int local; } rels[] = { { "4.1.2", 0 }, { "4.2.0", 1 }, { "4.3.1", 1 } };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(ss_kver_parse(rels[i].v, &rel.v), 0);
		ev = fx_eval(&f);
		assert_true(ev->tiered);
		/* remote time retention: r1 (max ts 1000 < 10000 - 8500) whatever the policy */
		expect_remote_deletes(&ev->time, (const char *[]){ "r1" }, 1, 100, 100);
		if (rels[i].local) {
			expect_local_deletes(&ev->local, bases, 1, 100);
		} else {
			assert_false(ev->local.evaluated);
			assert_false(ev->local.unknown);
			assert_non_null(strstr(ev->local.reason, "before Kafka 4.2"));
		}
	}
	/* the release unknown, or a metadata.version that is 4.2 or 4.1 with unstable versions */
	struct ss_eval_release mv29 = { .mv_level = 29 };
	const struct ss_eval_release *open[] = { NULL, &mv29 };
	for (int i = 0; i < 2; i++) {
		f.in.release = open[i];
		ev = fx_eval(&f);
		assert_true(ev->local.unknown);
		assert_non_null(strstr(ev->local.reason, "Kafka 4.2 and later"));
		assert_true(ev->total.unknown);
	}
	/* nothing due either way: known */
	f.cfg.local_retention_ms = 9500;
	ev = fx_eval(&f);
	expect_local_deletes(&ev->local, bases, 0, 0);
	fx_free(&f);
}

/*
 * Tiering unknown (remote_storage null: no config says, nothing settles it): what
 * retention deletes depends on it (a tiered partition's size and time retention walk its
 * remote tier, its local retention only what is uploaded), so each kind is unknown unless
 * both readings give the same answer: a check that does not run either way (no limit, the
 * policy), a time cutoff before the epoch, a local walk that deletes nothing even without
 * the upload guard.
 */
static void test_unknown_tiering_retention(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	four_local(&f);   /* ts 1000 .. 4000, 350 bytes */
	f.in.now_ms = 10000;
	f.cfg.remote_storage = -1;
	f.cfg.retention_ms = 7999;    /* not tiered: segments 0 and 100 go */
	f.cfg.retention_bytes = -1;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->remote_storage, -1);
	assert_true(ev->remote_unknown);
	assert_false(ev->time.evaluated);
	assert_true(ev->time.unknown);
	assert_non_null(strstr(ev->time.reason, "remote.storage.enable"));
	assert_int_equal(ev->time.n_delete, 0);
	assert_false(ev->size.unknown);                       /* no limit: nothing either way */
	assert_string_equal(ev->size.reason, "no limit");
	assert_true(ev->local.unknown);                       /* -2: retention.ms over what is uploaded */
	assert_non_null(strstr(ev->local.reason, "remote.storage.enable"));
	assert_true(ev->total.unknown);
	/* a local.retention.ms of its own (one reading, whatever the release): tiered, it
	 * would delete what is uploaded of the old segments, so unknown, not the local walk */
	f.cfg.local_retention_ms = 5000;
	ev = fx_eval(&f);
	assert_true(ev->local.unknown);
	assert_int_equal(ev->local.n_delete, 0);
	assert_non_null(strstr(ev->local.reason, "remote.storage.enable"));
	f.cfg.local_retention_ms = -2;
	f.cfg.retention_bytes = 250;
	ev = fx_eval(&f);
	assert_true(ev->size.unknown);
	/* known not to be tiered: the local walks as before */
	f.cfg.remote_storage = 0;
	ev = fx_eval(&f);
	assert_false(ev->remote_unknown);
	static const int64_t bases[] = { 0, 100 };
	expect_local_deletes(&ev->time, bases, 2, 200);
	expect_local_deletes(&ev->size, bases, 1, 100);
	assert_string_equal(ev->local.reason, "remote storage disabled");
	/* the same either way: a cutoff before the epoch deletes nothing here or remotely, and
	 * no local segment is that old */
	f.cfg.remote_storage = -1;
	f.cfg.retention_bytes = -1;
	f.cfg.retention_ms = 20000;
	ev = fx_eval(&f);
	expect_local_deletes(&ev->time, bases, 0, 0);
	expect_local_deletes(&ev->local, bases, 0, 0);
	assert_false(ev->total.unknown);
	f.cfg.retention_ms = -1;
	ev = fx_eval(&f);
	assert_string_equal(ev->time.reason, "no limit");
	assert_string_equal(ev->local.reason, "no limit");
	assert_false(ev->total.unknown);
	/* a policy without delete (the empty list: a compacted topic's tiering is settled)
	 * settles nothing: tiered, remote retention runs whatever the policy */
	f.cfg.retention_ms = 0;
	f.cfg.policy_known = true;
	f.cfg.no_delete = 1;
	ev = fx_eval(&f);
	assert_true(ev->time.unknown);
	assert_non_null(strstr(ev->time.reason, "remote.storage.enable"));
	f.cfg.remote_storage = 0;   /* known not tiered: nothing by time or size */
	ev = fx_eval(&f);
	assert_string_equal(ev->time.reason, "cleanup.policy has no delete");
	assert_false(ev->time.unknown);
	fx_free(&f);
}

/* A config entry of the fixture's cfg, optionally marked as of unknown value. */
static void fx_cfg_entry(struct fx *f, const char *key, bool unsure)
{
	uint32_t i = f->cfg.n_entries++;
	f->cfg.entries[i] = (struct ss_cfg_entry){ .key = key, .value = "?", .source = unsure ? NULL : "DEFAULT_CONFIG" };
	if (unsure)
		f->cfg.value_unsure |= 1u << i;
}

/*
 * What Kafka sets when it creates an internal topic, as eval/config.c resolves it without
 * the topic's own level: __remote_log_metadata's retention.ms comes from the creating
 * broker's remote.log.metadata.topic.retention.ms (default -1), so its value is unknown
 * (value_unknown) and so is time retention, never the broker's 7 days; size retention
 * (retention.bytes is not set at creation) as any topic's. __consumer_offsets shows the
 * compact Kafka creates it with, source null: its retention stays unknown, not "no delete".
 */
static void test_internal_created_configs(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "__remote_log_metadata");
	four_local(&f);
	f.in.now_ms = 10000;
	f.cfg.retention_ms = -1;   /* what config.c leaves beside an unknown value */
	f.cfg.retention_bytes = 0;
	fx_cfg_entry(&f, "retention.bytes", false);
	fx_cfg_entry(&f, "retention.ms", false);
	fx_cfg_entry(&f, "cleanup.policy", false);
	f.cfg.entries[1].source = NULL;
	f.cfg.value_unknown = 1u << 1;
	struct ss_eval *ev = fx_eval(&f);
	assert_false(ev->time.evaluated);
	assert_true(ev->time.unknown);
	assert_non_null(strstr(ev->time.reason, "remote.log.metadata.topic.retention.ms"));
	assert_int_equal(ev->time.limit, -1);
	assert_int_equal(ev->time.n_delete, 0);
	assert_true(ev->total.unknown);
	static const int64_t bases[] = { 0, 100, 200 };
	expect_local_deletes(&ev->size, bases, 3, 300);
	/* the value printed as null: config_value_unknown has its bit */
	assert_int_equal(ev->config_value_unknown & (1u << 1), 1u << 1);
	/* the same with the value known (-1 from the metadata log): no limit, known */
	f.cfg.value_unknown = 0;
	ev = fx_eval(&f);
	assert_false(ev->time.unknown);
	assert_string_equal(ev->time.reason, "no limit");
	assert_false(ev->total.unknown);
	fx_free(&f);
	/* one active segment (the usual __remote_log_metadata-N): no limit deletes it, so
	 * nothing is known to be due, the limit still unknown */
	fx_init(&f, "__remote_log_metadata");
	fx_seg(&f, 0, 99, 100, 1000);
	f.in.now_ms = 10000;
	f.cfg.retention_ms = -1;
	fx_cfg_entry(&f, "retention.ms", false);
	f.cfg.entries[0].source = NULL;
	f.cfg.value_unknown = 1;
	ev = fx_eval(&f);
	assert_true(ev->time.evaluated);
	assert_false(ev->time.unknown);
	assert_int_equal(ev->time.n_delete, 0);
	assert_int_equal(ev->time.limit, -1);
	assert_false(ev->total.unknown);
	fx_free(&f);

	fx_init(&f, "__consumer_offsets");
	four_local(&f);
	f.in.now_ms = 10000;
	f.cfg.retention_ms = 0;
	f.cfg.compact = 1;
	f.cfg.no_delete = 1;   /* Kafka's compact, no source: policy_known false */
	ev = fx_eval(&f);
	assert_true(ev->time.unknown);
	assert_true(ev->size.unknown);
	assert_non_null(strstr(ev->time.reason, "Kafka creates this topic with cleanup.policy=compact"));
	fx_free(&f);
}

/*
 * A config whose value may be stale after a loss in the metadata log (value_unsure, source
 * null): a prediction that depends on it is unknown and its reason names the key; one
 * that does not depend on it is not touched.
 */
static void test_unsure_config_retention(void **state)
{
	(void)state;
	struct fx f;
	static const char *const keys[] = { "retention.ms", "retention.bytes", "local.retention.ms",
					    "local.retention.bytes", "cleanup.policy", "remote.log.copy.disable" };
	/* not tiered: time from retention.ms, size from retention.bytes (-1: no limit) */
	for (int k = 0; k < 2; k++) {
		fx_init(&f, "t");
		four_local(&f);
		f.in.now_ms = 10000;
		f.cfg.retention_ms = 7999;
		f.cfg.policy_known = true;
		for (int i = 0; i < 6; i++)
			fx_cfg_entry(&f, keys[i], i == k);
		struct ss_eval *ev = fx_eval(&f);
		const struct ss_retention *hit = k == 0 ? &ev->time : &ev->size, *other = k == 0 ? &ev->size : &ev->time;
		assert_true(hit->unknown);
		assert_non_null(strstr(hit->reason, keys[k]));
		assert_non_null(strstr(hit->reason, "metadata log"));
		assert_false(other->unknown);   /* no limit, or the time walk */
		assert_true(ev->total.unknown);
		fx_free(&f);
	}
	/* the policy's value unknown: size and time unknown where a limit is set, "no limit"
	 * (known, either way) where not */
	fx_init(&f, "t");
	four_local(&f);
	f.in.now_ms = 10000;
	f.cfg.retention_ms = 7999;
	f.cfg.no_delete = 1;   /* the stale value says it has no delete: not trusted */
	for (int i = 0; i < 6; i++)
		fx_cfg_entry(&f, keys[i], i == 4);
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->time.unknown);
	assert_non_null(strstr(ev->time.reason, "cleanup.policy"));
	assert_false(ev->size.unknown);
	assert_string_equal(ev->size.reason, "no limit");
	fx_free(&f);

	/* tiered: retention.ms is remote time retention and, through local.retention.ms=-2,
	 * local retention; retention.bytes size and (-2) local; local.* and the copy switch
	 * only local; the policy nothing here: a tiered topic's is delete or empty, and on
	 * 4.3.1 local retention runs for both while copying */
	for (int k = 0; k < 6; k++) {
		local_setup(&f);
		f.cfg.retention_ms = 8500;
		f.cfg.retention_bytes = 100000;
		f.cfg.policy_known = true;
		struct ss_eval_release rel = { .known = true, .v = { 4, 3, 1 } };
		f.in.release = &rel;
		for (int i = 0; i < 6; i++)
			fx_cfg_entry(&f, keys[i], i == k);
		ev = fx_eval(&f);
		bool time_hit = k == 0, size_hit = k == 1;
		bool local_hit = k != 4;
		if (time_hit != ev->time.unknown || size_hit != ev->size.unknown || local_hit != ev->local.unknown)
			fail_msg("%s unknown: time %d size %d local %d", keys[k], ev->time.unknown, ev->size.unknown,
				 ev->local.unknown);
		if (local_hit)
			assert_non_null(strstr(ev->local.reason, keys[k]));
		else
			assert_true(ev->local.evaluated);
		fx_free(&f);
	}
}

/*
 * retention.total (issue 20 item 2): the distinct segments size, time and local
 * retention delete together. Tiered: r1..r3 remote (100 B each), local 200..299 and the
 * active 300..349, seeded at 299.
 */
static void test_retention_total(void **state)
{
	(void)state;
	struct fx f;
	tiered_setup(&f);
	struct ss_eval_release r431 = { .known = true, .v = { 4, 3, 1 } };   /* time retention's strict < */
	f.in.release = &r431;
	/* size takes r1 (breach 100), time takes r1 and r2 (cutoff 2001): two distinct */
	f.cfg.retention_bytes = 250;
	f.cfg.retention_ms = 7999;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete, 1);
	assert_int_equal(ev->time.n_delete, 2);
	assert_false(ev->total.unknown);
	assert_int_equal(ev->total.n_remote, 2);
	assert_string_equal(ev->total.remote_ids[0], "r1");
	assert_string_equal(ev->total.remote_ids[1], "r2");
	assert_int_equal(ev->total.remote_bytes, 200);
	assert_int_equal(ev->total.n_local, 0);
	/* the same segment by both: counted once */
	f.cfg.retention_ms = 8000;
	ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete + ev->time.n_delete, 2);
	assert_int_equal(ev->total.n_remote, 1);
	assert_int_equal(ev->total.remote_bytes, 100);
	/* local retention too: the uploaded local 200..299 (100 B), a local file freed */
	f.cfg.local_retention_ms = 0;
	ev = fx_eval(&f);
	assert_int_equal(ev->local.n_delete, 1);
	assert_int_equal(ev->total.n_local, 1);
	assert_int_equal(ev->total.local_offsets[0], 200);
	assert_int_equal(ev->total.local_bytes, 100);
	assert_int_equal(ev->total.remote_bytes, 100);
	/* unseeded: size and local retention unknown, so the total is unknown */
	f.part.n_epochs = 0;
	f.part.epochs_read = false;
	ss_remote_free(f.remote);
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &f.remote), 0);
	ev = fx_eval(&f);
	assert_true(ev->size.unknown);
	assert_true(ev->total.unknown);
	assert_string_equal(ev->total.reason, "unseeded");
	fx_free(&f);

	/* not tiered: size and time walk the same local list; the union is the longer */
	fx_init(&f, "t");
	four_local(&f);
	f.in.now_ms = 10000;
	f.cfg.retention_bytes = 250;   /* one */
	f.cfg.retention_ms = 7999;     /* two */
	ev = fx_eval(&f);
	assert_int_equal(ev->total.n_local, 2);
	assert_int_equal(ev->total.local_bytes, 200);
	assert_int_equal(ev->total.n_remote, 0);
	fx_free(&f);
}

/*
 * A segment that could not be read (its open failed: size and time unknown) is never
 * counted as 0 bytes or as old: the only-local set and retention that reach it are
 * unknown (issue 20 item 4).
 */
static void test_unreadable_segment(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	four_local(&f);
	f.in.now_ms = 10000;
	f.cfg.retention_ms = 0;
	struct ss_seg *bad = &f.segs[1];
	bad->size_bytes = 0;
	bad->valid_bytes = 0;
	bad->max_timestamp_ms = -1;
	bad->flags |= SS_SEG_READ_ERROR;
	ss_seg_set_error(bad, -EACCES, SS_HAS_LOG, -1);
	assert_int_equal(ss_seg_err(bad), -EACCES);
	struct ss_eval *ev = fx_eval(&f);
	assert_true(ev->size_unknown);
	assert_true(ev->only_local_null);
	assert_false(ev->time.evaluated);
	assert_true(ev->time.unknown);
	assert_string_equal(ev->time.reason, "a segment could not be read");
	assert_true(ev->total.unknown);
	/* a time walk that stops before it is still known: segment 0 is young */
	f.cfg.retention_ms = 9500;
	ev = fx_eval(&f);
	assert_true(ev->time.evaluated);
	assert_int_equal(ev->time.n_delete, 0);
	f.cfg.retention_bytes = 100;   /* a size breach over an unknown size: unknown */
	ev = fx_eval(&f);
	assert_true(ev->size.unknown);
	fx_free(&f);
}

/* A log-start-offset-checkpoint beyond the log end is not taken as fact. */
static void test_log_start_beyond_end(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "t");
	fx_seg(&f, 100, 149, 100, 1);
	fx_seg(&f, 150, 199, 100, 1);
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 5000;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->log_end_offset, 200);
	assert_int_equal(ev->log_start_offset, 100);
	assert_true(ev->n_notes >= 1);
	assert_non_null(strstr(ev->notes[ev->n_notes - 1], "beyond the log end"));
	fx_free(&f);
	/* within the log: taken as it is */
	fx_init(&f, "t");
	fx_seg(&f, 100, 149, 100, 1);
	f.part.has_log_start = true;
	f.part.log_start_ckpt = 120;
	assert_int_equal(fx_eval(&f)->log_start_offset, 120);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_vanished_log_start),
		cmocka_unit_test(test_find_highest_remote_offset),
		cmocka_unit_test(test_tiered_decision),
		cmocka_unit_test(test_unknown_tiering),
		cmocka_unit_test(test_only_local_and_lag),
		cmocka_unit_test(test_tiered_size_retention),
		cmocka_unit_test(test_tiered_time_retention),
		cmocka_unit_test(test_remote_walk_order),
		cmocka_unit_test(test_local_only_retention),
		cmocka_unit_test(test_local_retention_union),
		cmocka_unit_test(test_kafka_17360_local_retention),
		cmocka_unit_test(test_empty_policy_per_release),
		cmocka_unit_test(test_unknown_tiering_retention),
		cmocka_unit_test(test_unsure_config_retention),
		cmocka_unit_test(test_internal_created_configs),
		cmocka_unit_test(test_local_findings),
		cmocka_unit_test(test_base_offset_policy),
		cmocka_unit_test(test_log_start_beyond_end),
		cmocka_unit_test(test_cleanup_policy_retention),
		cmocka_unit_test(test_retention_total),
		cmocka_unit_test(test_unreadable_segment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
