/*
 * KAFKA-17428 (dangling remote segments): a copy that failed after publishing
 * COPY_SEGMENT_STARTED, or a delete that failed after DELETE_SEGMENT_STARTED, leaves a
 * segment nobody cleans up eagerly; DANGLING (byte id 4) marks one explicitly. segscan
 * counts a segment as dangling when it is DANGLING, or stuck in a STARTED state for
 * longer than --dangling-after before --now (by its last event's timestamp).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/ndjson.h"
#include "eval_fixture.h"

#define NOW  1700000000000LL
#define HOUR 3600000LL

static void scenario(struct fx *f)
{
	fx_init(f, "audit");
	f->cfg.remote_storage = 1;
	f->in.now_ms = NOW;
	f->in.dangling_after_ms = HOUR;
	fx_rseg(f, "fine", 0, 99, 0, 1000, 1, SS_RSEG_COPY_FINISHED, NOW - 5 * HOUR);
	fx_rseg(f, "gone", 100, 199, 0, 2000, 1, SS_RSEG_DELETE_FINISHED, NOW - 5 * HOUR);
	fx_rseg(f, "stuck-copy", 200, 299, 0, 500, 1, SS_RSEG_COPY_STARTED, NOW - HOUR - 1);
	fx_rseg(f, "fresh-copy", 300, 399, 0, 400, 1, SS_RSEG_COPY_STARTED, NOW - HOUR);
	fx_rseg(f, "marked", 400, 499, 0, 700, 1, SS_RSEG_DANGLING, NOW - 10);
	fx_rseg(f, "stuck-delete", 500, 599, 0, 300, 1, SS_RSEG_DELETE_STARTED, NOW - 2 * HOUR);
	fx_seg(f, 100, 199, 10, 1);
	fx_seg(f, 200, 250, 10, 1);
	fx_epoch(f, 0, 0);
}

static const struct ss_finding *by_id(const struct ss_eval *ev, const char *id)
{
	for (uint32_t i = 0; i < ev->n_findings; i++)
		if (strcmp(ev->findings[i].code, "DANGLING_REMOTE_SEGMENT") == 0 && ev->findings[i].n_ids == 1 &&
		    strcmp(ev->findings[i].segment_ids[0], id) == 0)
			return &ev->findings[i];
	return NULL;
}

static void test_counted_and_sized(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->remote_segments, 1);
	assert_int_equal(ev->remote_bytes, 1000);
	/* stuck-copy (1 ms past the hour), marked, stuck-delete; fresh-copy is exactly an hour old */
	assert_int_equal(ev->dangling_segments, 3);
	assert_int_equal(ev->dangling_bytes, 1500);
	assert_int_equal(fx_count(ev, "DANGLING_REMOTE_SEGMENT"), 3);
	const struct ss_finding *c = by_id(ev, "stuck-copy");
	assert_non_null(c);
	assert_string_equal(c->ref, "KAFKA-17428");
	assert_int_equal(c->segments, 1);
	assert_int_equal(c->bytes, 500);
	assert_non_null(strstr(c->message, "COPY_SEGMENT_STARTED"));
	assert_non_null(strstr(c->message, "3600001 ms"));
	/* times for humans in ISO 8601 UTC, not epoch milliseconds (issue 20 item 11) */
	assert_non_null(strstr(c->message, "last event at 2023-11-14T21:13:19.999Z,"));
	assert_null(strstr(c->message, "1699996399999"));
	const struct ss_finding *m = by_id(ev, "marked");
	assert_non_null(m);
	assert_int_equal(m->bytes, 700);
	assert_non_null(strstr(m->message, "DANGLING"));
	assert_non_null(strstr(m->message, "event at 2023-11-14T22:13:19.990Z,"));
	const struct ss_finding *d = by_id(ev, "stuck-delete");
	assert_non_null(d);
	assert_int_equal(d->bytes, 300);
	assert_non_null(strstr(d->message, "DELETE_SEGMENT_STARTED"));
	assert_null(by_id(ev, "fresh-copy"));
	assert_null(by_id(ev, "fine"));
	assert_null(by_id(ev, "gone"));

	/* a shorter --dangling-after catches the fresh copy too */
	f.in.dangling_after_ms = HOUR - 1;
	ev = fx_eval(&f);
	assert_int_equal(ev->dangling_segments, 4);
	assert_int_equal(ev->dangling_bytes, 1900);
	fx_free(&f);
}

/* A later event resets the clock: a retried copy that finishes is no longer dangling. */
static void test_finished_later(void **state)
{
	(void)state;
	struct fx f;
	scenario(&f);
	fx_update(&f, "stuck-copy", SS_RSEG_COPY_FINISHED, NOW - 1);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->dangling_segments, 2);
	assert_int_equal(ev->remote_segments, 2);
	assert_null(by_id(ev, "stuck-copy"));
	fx_free(&f);
}

/* The same through the --remote-state file, with an explicit DANGLING update. */
static void test_from_ndjson(void **state)
{
	(void)state;
	struct fx f;
	fx_init(&f, "audit");
	f.cfg.remote_storage = 1;
	f.in.now_ms = NOW;
	f.in.dangling_after_ms = HOUR;
	fx_seg(&f, 0, 10, 10, 1);
	char text[2048];
	snprintf(text, sizeof(text),
		 "{\"type\":\"segment\",\"topic\":\"audit\",\"partition\":0,\"segment_id\":\"a\",\"start_offset\":0,"
		 "\"end_offset\":9,\"leader_epochs\":{\"0\":0},\"size_bytes\":111,\"max_timestamp_ms\":1,"
		 "\"broker_id\":1,\"event_timestamp_ms\":%lld,\"state\":\"COPY_SEGMENT_STARTED\"}\n"
		 "{\"type\":\"update\",\"topic\":\"audit\",\"partition\":0,\"segment_id\":\"a\",\"state\":\"DANGLING\","
		 "\"broker_id\":1,\"event_timestamp_ms\":%lld}\n"
		 "{\"type\":\"segment\",\"topic\":\"audit\",\"partition\":0,\"segment_id\":\"b\",\"start_offset\":10,"
		 "\"end_offset\":19,\"leader_epochs\":{\"0\":10},\"size_bytes\":222,\"max_timestamp_ms\":1,"
		 "\"broker_id\":1,\"event_timestamp_ms\":%lld,\"state\":\"COPY_SEGMENT_STARTED\"}\n",
		 NOW - 1000, NOW - 999, NOW - 2 * HOUR);
	char err[256];
	assert_int_equal(ss_ndjson_parse(text, strlen(text), "s.ndjson", ss_remote_apply_fn, f.remote, err, sizeof(err)), 0);
	struct ss_eval *ev = fx_eval(&f);
	assert_int_equal(ev->dangling_segments, 2);
	assert_int_equal(ev->dangling_bytes, 333);
	assert_non_null(by_id(ev, "a"));
	assert_non_null(by_id(ev, "b"));
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counted_and_sized),
		cmocka_unit_test(test_finished_later),
		cmocka_unit_test(test_from_ndjson),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
