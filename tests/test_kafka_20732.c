/*
 * KAFKA-20732: a new leader runs remote size retention while highestOffsetInRemoteStorage
 * is still -1, so every local byte is added to the remote bytes: a partition exactly at
 * its retention.bytes cap looks 300 bytes over and loses in-retention remote data.
 *
 * Remote (finished): [100,199] [200,299] [300,399] [400,499] [500,599], 100 bytes each.
 * Local: [300,399] [400,499] [500,599] (already copied) and the active [600,649], 50 bytes.
 * Seeded highest = 599: total = 50 only-local + 500 remote = 550.
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
	fx_init(f, "clicks");
	f->cfg.remote_storage = 1;
	f->cfg.retention_ms = -1;
	f->in.now_ms = 100000;
	fx_rseg(f, "r100", 100, 199, 0, 100, 1000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "r200", 200, 299, 0, 100, 2000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "r300", 300, 399, 0, 100, 3000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "r400", 400, 499, 0, 100, 4000, SS_RSEG_COPY_FINISHED, 1);
	fx_rseg(f, "r500", 500, 599, 0, 100, 5000, SS_RSEG_COPY_FINISHED, 1);
	fx_seg(f, 300, 399, 100, 3000);
	fx_seg(f, 400, 499, 100, 4000);
	fx_seg(f, 500, 599, 100, 5000);
	fx_seg(f, 600, 649, 50, 6000);
	fx_epoch(f, 0, 300);
	f->part.has_log_start = true;
	f->part.log_start_ckpt = 100;
}

static void expect_ids(const struct ss_finding *fd, const char *const *ids, uint32_t n)
{
	assert_int_equal(fd->n_ids, n);
	for (uint32_t i = 0; i < n; i++)
		assert_string_equal(fd->segment_ids[i], ids[i]);
}

static void test_at_cap(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	f.cfg.retention_bytes = 550;
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->highest_offset, 599);
	assert_true(ev->size.evaluated);
	assert_int_equal(ev->size.total_bytes, 550);
	assert_int_equal(ev->size.n_delete, 0);      /* at the cap: nothing to delete */
	assert_false(ev->size.has_new_log_start);
	/* the broker's unseeded total: 350 local + 500 remote = 850, breach 300 */
	assert_int_equal(fx_count(ev, "UNSEEDED_SIZE_RETENTION"), 1);
	const struct ss_finding *fd = fx_finding(ev, "UNSEEDED_SIZE_RETENTION", 0);
	assert_string_equal(fd->ref, "KAFKA-20732");
	assert_true(fd->has_amount);
	assert_int_equal(fd->segments, 3);
	assert_int_equal(fd->bytes, 300);
	expect_ids(fd, (const char *[]){ "r100", "r200", "r300" }, 3);
	assert_non_null(strstr(fd->message, "100..399"));
	assert_non_null(strstr(fd->message, "850"));
	fx_free(&f);
}

static void test_partly_over(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	f.cfg.retention_bytes = 450;   /* correct: breach 100 -> r100; broker: breach 400 -> 4 */
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->size.n_delete, 1);
	assert_string_equal(ev->size.delete_ids[0], "r100");
	assert_int_equal(ev->size.new_log_start_offset, 200);
	const struct ss_finding *fd = fx_finding(ev, "UNSEEDED_SIZE_RETENTION", 0);
	assert_non_null(fd);
	assert_int_equal(fd->segments, 3);
	assert_int_equal(fd->bytes, 300);
	expect_ids(fd, (const char *[]){ "r200", "r300", "r400" }, 3);
	fx_free(&f);
}

/* Segments time retention deletes anyway are not "in retention". */
static void test_time_expired_not_counted(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	f.cfg.retention_bytes = 550;
	f.cfg.retention_ms = 98500;   /* cutoff 1500: r100 (1000) expires */
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->time.n_delete, 1);
	const struct ss_finding *fd = fx_finding(ev, "UNSEEDED_SIZE_RETENTION", 0);
	assert_non_null(fd);
	assert_int_equal(fd->segments, 2);
	expect_ids(fd, (const char *[]){ "r200", "r300" }, 2);
	fx_free(&f);
}

static void test_no_finding(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	f.cfg.retention_bytes = 850;   /* even the double count is not over */
	assert_int_equal(fx_count(fx_eval(&f), "UNSEEDED_SIZE_RETENTION"), 0);
	f.cfg.retention_bytes = -1;    /* no size limit */
	assert_int_equal(fx_count(fx_eval(&f), "UNSEEDED_SIZE_RETENTION"), 0);
	f.cfg.retention_bytes = 849;   /* broker breach 1: nothing fits under it */
	assert_int_equal(fx_count(fx_eval(&f), "UNSEEDED_SIZE_RETENTION"), 0);
	f.cfg.retention_bytes = 750;   /* broker breach 100: r100 would go */
	assert_int_equal(fx_finding(fx_eval(&f), "UNSEEDED_SIZE_RETENTION", 0)->segments, 1);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_cap),
		cmocka_unit_test(test_partly_over),
		cmocka_unit_test(test_time_expired_not_counted),
		cmocka_unit_test(test_no_finding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
