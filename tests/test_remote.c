/*
 * Remote state replay: the segment state machine (contract's legal transitions incl.
 * DANGLING), STRICT vs KAFKA modes, the per-epoch index (docs/kafka-format.md §5.5), the
 * --remote-state NDJSON reader and its FILE:LINE errors, --seed parsing.
 *
 * Expected transitions are written out by hand from docs/contract.md "Remote state file",
 * not derived from the code under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/remote.h"
#include "fmt/ndjson.h"
#include "segscan.h"
#include "source/local_files.h"
#include "lib/options.h"

#include "../bench/remote_synthetic.h"

enum { CS = SS_RSEG_COPY_STARTED, CF = SS_RSEG_COPY_FINISHED, DS = SS_RSEG_DELETE_STARTED,
       DF = SS_RSEG_DELETE_FINISHED, DG = SS_RSEG_DANGLING };

/* legal[src][dst] from the contract: any state to itself except out of DELETE_SEGMENT_FINISHED */
static const bool legal[5][5] = {
	/*            CS     CF     DS     DF     DG  */
	/* CS */ { true,  true,  true,  false, true  },
	/* CF */ { false, true,  true,  false, false },
	/* DS */ { false, false, true,  true,  true  },
	/* DF */ { false, false, false, false, false },
	/* DG */ { false, false, true,  false, true  },
};

static char msg[512];

static int add_seg(struct ss_remote *r, const char *topic, int32_t part, const char *id, int64_t start, int64_t end,
		   const struct ss_epoch_entry *ep, uint32_t n_ep, int64_t size, int64_t ts)
{
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = topic, .topic_len = strlen(topic), .partition = part,
		.segment_id = id, .segment_id_len = strlen(id), .start_offset = start, .end_offset = end,
		.size_bytes = size, .max_timestamp_ms = ts, .epochs = ep, .n_epochs = n_ep, .broker_id = 1,
		.event_timestamp_ms = ts, .state = CS,
	};
	if (ss_remote_mode(r) == SS_REMOTE_KAFKA) {
		ev.has_topic_id = true;
		memset(ev.topic_id, 7, 16);
	}
	return ss_remote_apply(r, &ev, msg, sizeof(msg));
}

static int upd(struct ss_remote *r, const char *topic, int32_t part, const char *id, int state, int64_t ts)
{
	struct ss_remote_event ev = {
		.type = SS_REV_UPDATE, .topic = topic, .topic_len = strlen(topic), .partition = part,
		.segment_id = id, .segment_id_len = strlen(id), .broker_id = 2, .event_timestamp_ms = ts,
		.state = state,
	};
	if (ss_remote_mode(r) == SS_REMOTE_KAFKA) {
		ev.has_topic_id = true;
		memset(ev.topic_id, 7, 16);
	}
	return ss_remote_apply(r, &ev, msg, sizeof(msg));
}

static const struct ss_epoch_entry EP0[] = { { 0, 0 } };

static const struct ss_remote_part *findp(struct ss_remote *r, const char *t, int32_t p)
{
	uint8_t tid[16];
	memset(tid, 7, 16);
	return ss_remote_find(r, t, p, ss_remote_mode(r) == SS_REMOTE_KAFKA ? tid : NULL);
}

static const struct ss_rseg *findseg(const struct ss_remote_part *p, const char *id)
{
	for (uint32_t i = 0; p && i < p->n_segs; i++)
		if (strcmp(ss_remote_seg(p, i)->id, id) == 0)
			return ss_remote_seg(p, i);
	return NULL;
}

/* Bring a fresh segment "s" into state `st` by a legal path. */
static void reach(struct ss_remote *r, int st)
{
	assert_int_equal(add_seg(r, "t", 0, "s", 0, 9, EP0, 1, 100, 1000), 0);
	switch (st) {
	case CS:
		break;
	case CF:
		assert_int_equal(upd(r, "t", 0, "s", CF, 1001), 0);
		break;
	case DS:
		assert_int_equal(upd(r, "t", 0, "s", DS, 1001), 0);
		break;
	case DF:
		assert_int_equal(upd(r, "t", 0, "s", DS, 1001), 0);
		assert_int_equal(upd(r, "t", 0, "s", DF, 1002), 0);
		break;
	case DG:
		assert_int_equal(upd(r, "t", 0, "s", DG, 1001), 0);
		break;
	}
	assert_int_equal(findseg(findp(r, "t", 0), "s")->state, st);
}

static void test_transition_table(void **state)
{
	(void)state;
	for (int s = 0; s < 5; s++) {
		assert_false(ss_rseg_transition_ok(-1, s) != (s == CS));
		for (int d = 0; d < 5; d++)
			assert_true(ss_rseg_transition_ok(s, d) == legal[s][d]);
	}
}

/* Every (src, dst) pair through the store, STRICT: legal applies, illegal is an error. */
static void test_strict_every_transition(void **state)
{
	(void)state;
	for (int s = 0; s < 5; s++) {
		for (int d = 0; d < 5; d++) {
			struct ss_remote *r;
			assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
			reach(r, s);
			int e = upd(r, "t", 0, "s", d, 2000);
			const struct ss_rseg *sg = findseg(findp(r, "t", 0), "s");
			if (legal[s][d]) {
				assert_int_equal(e, 0);
				assert_int_equal(sg->state, d);
				assert_int_equal(sg->event_ms, 2000);
				assert_int_equal(sg->broker_id, 2);
			} else {
				assert_int_equal(e, SEGSCAN_ETRANSITION);
				assert_non_null(strstr(msg, "illegal transition"));
				assert_non_null(strstr(msg, ss_rseg_state_name(s)));
				assert_int_equal(sg->state, s);
				assert_int_equal(sg->event_ms, s == CS ? 1000 : s == DF ? 1002 : 1001);
			}
			ss_remote_free(r);
		}
	}
}

/* KAFKA mode: the same illegal events are counted and dropped; the replay goes on. */
static void test_kafka_every_transition(void **state)
{
	(void)state;
	for (int s = 0; s < 5; s++) {
		for (int d = 0; d < 5; d++) {
			struct ss_remote *r;
			struct ss_remote_counts c;
			assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
			reach(r, s);
			int e = upd(r, "t", 0, "s", d, 2000);
			const struct ss_rseg *sg = findseg(findp(r, "t", 0), "s");
			ss_remote_get_counts(r, &c);
			/* Kafka refuses an update record carrying COPY_SEGMENT_STARTED */
			bool ok = legal[s][d] && d != CS;
			if (ok) {
				assert_int_equal(e, 0);
				assert_int_equal(sg->state, d);
				assert_int_equal(c.dropped_illegal, 0);
			} else {
				assert_int_equal(e, 1);
				assert_int_equal(sg->state, s);
				assert_int_equal(c.dropped_illegal, 1);
			}
			/* and the store still works afterwards */
			assert_int_equal(add_seg(r, "t", 0, "other", 10, 19, (struct ss_epoch_entry[]){ { 0, 10 } }, 1, 5, 3000), 0);
			ss_remote_free(r);
		}
	}
}

static void test_unknown_segment(void **state)
{
	(void)state;
	struct ss_remote *r;
	struct ss_remote_counts c;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	assert_int_equal(upd(r, "t", 0, "ghost", CF, 1), SEGSCAN_EUNKNOWNSEG);
	assert_non_null(strstr(msg, "ghost"));
	assert_int_equal(add_seg(r, "t", 0, "s", 0, 9, EP0, 1, 100, 1000), 0);
	/* same id in another partition is another segment */
	assert_int_equal(upd(r, "t", 1, "s", CF, 1), SEGSCAN_EUNKNOWNSEG);
	ss_remote_free(r);

	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	assert_int_equal(upd(r, "t", 0, "ghost", CF, 1), 1);
	assert_int_equal(upd(r, "t", 0, "ghost", DS, 2), 1);
	ss_remote_get_counts(r, &c);
	assert_int_equal(c.dropped_unknown, 2);
	assert_int_equal(c.applied, 0);
	assert_null(findp(r, "t", 0));
	ss_remote_free(r);
}

/* DELETE_SEGMENT_FINISHED ids are remembered: a later event of any kind is illegal. */
static void test_deleted_ids_remembered(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	reach(r, DF);
	assert_int_equal(add_seg(r, "t", 0, "s", 0, 9, EP0, 1, 100, 1000), SEGSCAN_ETRANSITION);
	assert_int_equal(upd(r, "t", 0, "s", DF, 5000), SEGSCAN_ETRANSITION);
	assert_non_null(strstr(msg, "already deleted"));
	ss_remote_free(r);
}

/* A second add: a self-transition of COPY_SEGMENT_STARTED (metadata replaced), else illegal. */
static void test_readd(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	assert_int_equal(add_seg(r, "t", 0, "s", 0, 9, EP0, 1, 100, 1000), 0);
	assert_int_equal(add_seg(r, "t", 0, "s", 0, 19, EP0, 1, 250, 1500), 0);
	const struct ss_remote_part *p = findp(r, "t", 0);
	assert_int_equal(p->n_segs, 1);
	const struct ss_rseg *s = findseg(p, "s");
	assert_int_equal(s->end_offset, 19);
	assert_int_equal(s->size_bytes, 250);
	assert_int_equal(s->order, 0);   /* event order is the first add's */
	assert_int_equal(upd(r, "t", 0, "s", CF, 2000), 0);
	int64_t h;
	assert_true(ss_remote_highest_for_epoch(p, 0, &h));
	assert_int_equal(h, 19);
	assert_int_equal(add_seg(r, "t", 0, "s", 0, 9, EP0, 1, 100, 1000), SEGSCAN_ETRANSITION);
	assert_non_null(strstr(msg, "COPY_SEGMENT_FINISHED"));
	ss_remote_free(r);
}

static void test_new_segment_must_start(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = "t", .topic_len = 1, .segment_id = "x", .segment_id_len = 1,
		.start_offset = 0, .end_offset = 5, .epochs = EP0, .n_epochs = 1, .state = CF,
	};
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_ETRANSITION);
	/* values Kafka's constructor refuses */
	ev.state = CS;
	ev.n_epochs = 0;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_ESCHEMA);
	ev.n_epochs = 1;
	ev.end_offset = -1;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_ESCHEMA);
	ev.end_offset = 5;
	ev.size_bytes = -3;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_ESCHEMA);
	ev.size_bytes = 3;
	struct ss_epoch_entry bad[] = { { 0, 0 }, { 1, 9 } };   /* epoch 1 starts past the end */
	ev.epochs = bad;
	ev.n_epochs = 2;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_ESCHEMA);
	assert_non_null(strstr(msg, "leader epoch 1"));
	struct ss_epoch_entry back[] = { { 0, 3 }, { 1, 1 } };   /* later epoch starts earlier */
	ev.epochs = back;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_ESCHEMA);
	ev.epochs = EP0;
	ev.n_epochs = 1;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	ss_remote_free(r);
}

/* §5.5: highestOffsetForEpoch per epoch, never decreased by deletion. */
static void test_highest_for_epoch(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	/* a: [0,99] epoch 0; b: [100,249] epochs 0@100, 2@180; c: [250,299] epoch 2, only started */
	assert_int_equal(add_seg(r, "t", 0, "a", 0, 99, EP0, 1, 10, 1), 0);
	assert_int_equal(upd(r, "t", 0, "a", CF, 2), 0);
	struct ss_epoch_entry eb[] = { { 0, 100 }, { 2, 180 } };
	assert_int_equal(add_seg(r, "t", 0, "b", 100, 249, eb, 2, 10, 3), 0);
	const struct ss_remote_part *p = findp(r, "t", 0);
	int64_t h;
	assert_true(ss_remote_highest_for_epoch(p, 0, &h));
	assert_int_equal(h, 99);
	assert_false(ss_remote_highest_for_epoch(p, 2, &h));   /* b not finished yet */
	assert_int_equal(upd(r, "t", 0, "b", CF, 4), 0);
	assert_true(ss_remote_highest_for_epoch(p, 0, &h));
	assert_int_equal(h, 179);   /* epoch 0 ends where epoch 2 starts in b */
	assert_true(ss_remote_highest_for_epoch(p, 2, &h));
	assert_int_equal(h, 249);
	assert_false(ss_remote_highest_for_epoch(p, 1, &h));
	struct ss_epoch_entry ec[] = { { 2, 250 } };
	assert_int_equal(add_seg(r, "t", 0, "c", 250, 299, ec, 1, 10, 5), 0);
	assert_true(ss_remote_highest_for_epoch(p, 2, &h));
	assert_int_equal(h, 249);
	/* delete b entirely: the highest offsets stay */
	assert_int_equal(upd(r, "t", 0, "b", DS, 6), 0);
	assert_int_equal(upd(r, "t", 0, "b", DF, 7), 0);
	assert_true(ss_remote_highest_for_epoch(p, 2, &h));
	assert_int_equal(h, 249);
	assert_true(ss_remote_highest_for_epoch(p, 0, &h));
	assert_int_equal(h, 179);
	assert_true(ss_remote_has_metadata(p));
	ss_remote_free(r);
}

static void expect_list(const struct ss_remote_part *p, int32_t epoch, bool unfixed, const char *const *ids, uint32_t n)
{
	const struct ss_rseg **l;
	uint32_t k;
	assert_int_equal(ss_remote_list_epoch(p, epoch, unfixed, &l, &k), 0);
	assert_int_equal(k, n);
	for (uint32_t i = 0; i < n; i++)
		assert_string_equal(l[i]->id, ids[i]);
	free(l);
}

/* listRemoteLogSegments(epoch): finished, started, delete-started; sorted by start offset. */
static void test_list_epoch(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	const struct ss_remote_part *p;
	assert_int_equal(add_seg(r, "t", 0, "b", 100, 199, (struct ss_epoch_entry[]){ { 0, 100 } }, 1, 1, 1), 0);
	assert_int_equal(upd(r, "t", 0, "b", CF, 2), 0);
	assert_int_equal(add_seg(r, "t", 0, "a", 0, 99, EP0, 1, 1, 3), 0);
	assert_int_equal(add_seg(r, "t", 0, "c", 200, 299, (struct ss_epoch_entry[]){ { 0, 200 } }, 1, 1, 4), 0);
	assert_int_equal(upd(r, "t", 0, "c", CF, 5), 0);
	p = findp(r, "t", 0);
	expect_list(p, 0, false, (const char *[]){ "a", "b", "c" }, 3);
	assert_int_equal(upd(r, "t", 0, "b", DS, 6), 0);
	expect_list(p, 0, false, (const char *[]){ "a", "b", "c" }, 3);
	assert_int_equal(upd(r, "t", 0, "b", DF, 7), 0);
	expect_list(p, 0, false, (const char *[]){ "a", "c" }, 2);
	expect_list(p, 5, false, NULL, 0);

	/* case-1 duplicate upload (Kafka's own comment): S0 [300,399] then S1 [300,499] */
	assert_int_equal(add_seg(r, "t", 0, "s0", 300, 399, (struct ss_epoch_entry[]){ { 1, 300 } }, 1, 1, 8), 0);
	assert_int_equal(upd(r, "t", 0, "s0", CF, 9), 0);
	assert_int_equal(add_seg(r, "t", 0, "s1", 300, 499, (struct ss_epoch_entry[]){ { 1, 300 } }, 1, 1, 10), 0);
	assert_int_equal(upd(r, "t", 0, "s1", CF, 11), 0);
	/* s0 is unreferenced (moved by the loop), not lost: Kafka lists it too, after the
	 * offsetToId entries, since List.sort by start offset is stable */
	expect_list(p, 1, false, (const char *[]){ "s1", "s0" }, 2);
	expect_list(p, 1, true, (const char *[]){ "s1", "s0" }, 2);
	assert_false(ss_remote_seg_lost(p, findseg(p, "s0")));
	ss_remote_free(r);
}

/* DANGLING keeps the segment listed (for cleanup) but never readable/finished. */
static void test_dangling_index(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	assert_int_equal(add_seg(r, "t", 0, "a", 0, 99, EP0, 1, 1, 1), 0);
	assert_int_equal(upd(r, "t", 0, "a", CF, 2), 0);
	assert_int_equal(upd(r, "t", 0, "a", DS, 3), 0);
	assert_int_equal(upd(r, "t", 0, "a", DG, 4), 0);   /* a failed delete */
	const struct ss_remote_part *p = findp(r, "t", 0);
	expect_list(p, 0, false, (const char *[]){ "a" }, 1);
	assert_int_equal(p->epochs[0].n_o2i, 0);
	assert_int_equal(upd(r, "t", 0, "a", DS, 5), 0);
	assert_int_equal(upd(r, "t", 0, "a", DF, 6), 0);
	expect_list(p, 0, false, NULL, 0);
	ss_remote_free(r);
}

static void test_partition_delete_resets(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	assert_int_equal(add_seg(r, "t", 0, "a", 0, 99, EP0, 1, 1, 1), 0);
	assert_int_equal(upd(r, "t", 0, "a", CF, 2), 0);
	struct ss_remote_event pd = { .type = SS_REV_PARTITION_DELETE, .topic = "t", .topic_len = 1,
				      .state = SS_RPART_DELETE_MARKED };
	assert_int_equal(ss_remote_apply(r, &pd, msg, sizeof(msg)), 0);
	const struct ss_remote_part *p = findp(r, "t", 0);
	assert_int_equal(p->delete_state, SS_RPART_DELETE_MARKED);
	assert_int_equal(p->n_segs, 1);
	pd.state = SS_RPART_DELETE_FINISHED;
	assert_int_equal(ss_remote_apply(r, &pd, msg, sizeof(msg)), 0);
	assert_int_equal(p->n_segs, 0);
	assert_false(ss_remote_has_metadata(p));
	/* the old id is forgotten with the old incarnation */
	assert_int_equal(upd(r, "t", 0, "a", DS, 3), SEGSCAN_EUNKNOWNSEG);
	assert_int_equal(add_seg(r, "t", 0, "a", 0, 9, EP0, 1, 1, 4), 0);
	assert_int_equal(p->n_segs, 1);
	ss_remote_free(r);
}

static void test_topic_id(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = "t", .topic_len = 1, .segment_id = "a", .segment_id_len = 1,
		.start_offset = 0, .end_offset = 5, .epochs = EP0, .n_epochs = 1, .state = CS, .has_topic_id = true,
	};
	memset(ev.topic_id, 1, 16);
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	ev.segment_id = "b";
	memset(ev.topic_id, 2, 16);
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), SEGSCAN_EMISMATCH);
	ss_remote_free(r);

	/* KAFKA mode: two incarnations of one name are two partitions */
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	memset(ev.topic_id, 1, 16);
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	memset(ev.topic_id, 2, 16);
	ev.end_offset = 7;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 0);
	uint8_t t1[16], t2[16], t3[16];
	memset(t1, 1, 16);
	memset(t2, 2, 16);
	memset(t3, 3, 16);
	assert_int_equal(ss_remote_seg(ss_remote_find(r, "t", 0, t1), 0)->end_offset, 5);
	assert_int_equal(ss_remote_seg(ss_remote_find(r, "t", 0, t2), 0)->end_offset, 7);
	assert_null(ss_remote_find(r, "t", 0, t3));
	assert_int_equal(ss_remote_seg(ss_remote_find(r, "t", 0, NULL), 0)->end_offset, 7);   /* latest */
	ev.has_topic_id = false;
	assert_int_equal(ss_remote_apply(r, &ev, msg, sizeof(msg)), 1);
	ss_remote_free(r);
}

/* Epochs arrive in any order; like a Java TreeMap, the last value of a repeated epoch wins. */
static void test_epoch_normalize(void **state)
{
	(void)state;
	struct ss_remote *r;
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	struct ss_epoch_entry ep[] = { { 3, 50 }, { 0, 0 }, { 3, 60 } };
	assert_int_equal(add_seg(r, "t", 0, "a", 0, 99, ep, 3, 1, 1), 0);
	const struct ss_rseg *s = findseg(findp(r, "t", 0), "a");
	assert_int_equal(s->n_epochs, 2);
	assert_int_equal(s->epochs[0].epoch, 0);
	assert_int_equal(s->epochs[0].start_offset, 0);
	assert_int_equal(s->epochs[1].epoch, 3);
	assert_int_equal(s->epochs[1].start_offset, 60);
	assert_int_equal(upd(r, "t", 0, "a", CF, 2), 0);
	int64_t h;
	assert_true(ss_remote_highest_for_epoch(findp(r, "t", 0), 0, &h));
	assert_int_equal(h, 59);
	ss_remote_free(r);
}

/* ---- NDJSON ---- */
static int nd(struct ss_remote **r, const char *text, char *err, size_t errlen)
{
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", r), 0);
	return ss_ndjson_parse(text, strlen(text), "state.ndjson", ss_remote_apply_fn, *r, err, errlen);
}

#define SEG(id, s, e, extra)                                                                                     \
	"{\"type\":\"segment\",\"topic\":\"orders.v2-eu\",\"partition\":3,\"segment_id\":\"" id "\","            \
	"\"start_offset\":" #s ",\"end_offset\":" #e ",\"leader_epochs\":{\"0\":" #s "},\"size_bytes\":1048576,"  \
	"\"max_timestamp_ms\":1700000000000,\"broker_id\":1,\"event_timestamp_ms\":1700000000000,"               \
	"\"state\":\"COPY_SEGMENT_STARTED\"" extra "}\n"
#define UPD(id, st)                                                                                              \
	"{\"type\":\"update\",\"topic\":\"orders.v2-eu\",\"partition\":3,\"segment_id\":\"" id "\","             \
	"\"state\":\"" st "\",\"broker_id\":1,\"event_timestamp_ms\":1700000000001}\n"

static void test_ndjson_ok(void **state)
{
	(void)state;
	struct ss_remote *r;
	char err[512];
	const char *text = SEG("seg-a", 0, 22, ",\"unknown_field\":[1,2]") "\n   \n" UPD("seg-a", "COPY_SEGMENT_FINISHED")
		SEG("seg-b", 23, 40, ",\"topic_id\":\"ASNFZ4mrze_-3LqYdlQyEA\"")
		"{\"type\":\"partition_delete\",\"topic\":\"orders.v2-eu\",\"partition\":3,"
		"\"state\":\"DELETE_PARTITION_MARKED\",\"broker_id\":1,\"event_timestamp_ms\":1700000000002}";
	assert_int_equal(nd(&r, text, err, sizeof(err)), 0);
	const struct ss_remote_part *p = ss_remote_find(r, "orders.v2-eu", 3, NULL);
	assert_non_null(p);
	assert_int_equal(p->n_segs, 2);
	const struct ss_rseg *a = findseg(p, "seg-a");
	assert_int_equal(a->state, CF);
	assert_int_equal(a->end_offset, 22);
	assert_int_equal(a->size_bytes, 1048576);
	assert_int_equal(a->max_timestamp_ms, 1700000000000LL);
	assert_int_equal(a->event_ms, 1700000000001LL);
	assert_int_equal(findseg(p, "seg-b")->state, CS);
	assert_true(p->has_topic_id);
	static const uint8_t tid[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	assert_memory_equal(p->topic_id, tid, 16);
	assert_int_equal(p->delete_state, SS_RPART_DELETE_MARKED);
	ss_remote_free(r);

	/* the same through the local-files source, from a pipe (the last line lacks its newline) */
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], text, strlen(text)), (ssize_t)strlen(text));
	close(pfd[1]);
	char pp[64];
	snprintf(pp, sizeof(pp), "/proc/self/fd/%d", pfd[0]);
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &r), 0);
	assert_int_equal(ss_source_remote_state(r, pp, err, sizeof(err)), 0);
	assert_int_equal(ss_remote_find(r, "orders.v2-eu", 3, NULL)->n_segs, 2);
	close(pfd[0]);
	ss_remote_free(r);
}

struct bad_case {
	const char *text;
	int         err;
	const char *where;   /* "state.ndjson:N:" */
	const char *what;    /* a word the message must contain */
};

static void test_ndjson_errors(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{ SEG("a", 0, 9, "") "{\"type\":\"segment\",\n", SEGSCAN_EJSON, "state.ndjson:2:", "malformed" },
		{ "\n\n[1,2]\n", SEGSCAN_EJSON, "state.ndjson:3:", "object" },
		{ "{\"type\":\"segment\",\"topic\":\"t\",\"partition\":\"0\"}", SEGSCAN_EJSON, "state.ndjson:1:",
		  "\"partition\" must be an integer" },
		{ UPD("a", "COPY_SEGMENT_FINISHED"), SEGSCAN_EUNKNOWNSEG, "state.ndjson:1:", "never added" },
		{ SEG("a", 0, 9, "") UPD("a", "DELETE_SEGMENT_FINISHED"), SEGSCAN_ETRANSITION, "state.ndjson:2:",
		  "COPY_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED" },
		{ SEG("a", 0, 9, "") UPD("a", "COPY_SEGMENT_DONE"), SEGSCAN_EJSON, "state.ndjson:2:", "unknown segment state" },
		{ "{\"type\":\"segment\",\"topic\":\"t\",\"partition\":0,\"segment_id\":\"a\",\"start_offset\":0,"
		  "\"end_offset\":9,\"size_bytes\":1,\"max_timestamp_ms\":1,\"broker_id\":1,\"event_timestamp_ms\":1,"
		  "\"state\":\"COPY_SEGMENT_STARTED\"}",
		  SEGSCAN_EJSON, "state.ndjson:1:", "leader_epochs" },
		{ "{\"type\":\"segment\",\"topic\":\"t\",\"partition\":0,\"segment_id\":\"a\",\"start_offset\":0,"
		  "\"end_offset\":9,\"leader_epochs\":{\"x\":0},\"size_bytes\":1,\"max_timestamp_ms\":1,\"broker_id\":1,"
		  "\"event_timestamp_ms\":1,\"state\":\"COPY_SEGMENT_STARTED\"}",
		  SEGSCAN_EJSON, "state.ndjson:1:", "not a leader epoch" },
		{ "{\"type\":\"segment\",\"topic\":\"t\",\"partition\":0,\"segment_id\":\"a\",\"start_offset\":0,"
		  "\"end_offset\":9,\"leader_epochs\":{\"0\":0},\"size_bytes\":1.5,\"max_timestamp_ms\":1,\"broker_id\":1,"
		  "\"event_timestamp_ms\":1,\"state\":\"COPY_SEGMENT_STARTED\"}",
		  SEGSCAN_EJSON, "state.ndjson:1:", "size_bytes" },
		{ "{\"type\":\"snapshot\",\"topic\":\"t\"}", SEGSCAN_EJSON, "state.ndjson:1:", "unknown type" },
		{ "{\"type\":\"update\",\"topic\":\"bad topic\",\"partition\":0}", SEGSCAN_EJSON, "state.ndjson:1:",
		  "topic name" },
		{ SEG("a", 0, 9, ",\"topic_id\":\"short\""), SEGSCAN_EJSON, "state.ndjson:1:", "Uuid" },
		{ "{\"type\":\"update\",\"type\":\"update\"}", SEGSCAN_EJSON, "state.ndjson:1:", "malformed" },
		{ "{\"type\":\"update\",\"topic\":\"t\",\"partition\":0,\"segment_id\":\"a\",\"state\":\"DANGLING\","
		  "\"event_timestamp_ms\":1}",
		  SEGSCAN_EJSON, "state.ndjson:1:", "broker_id" },
		{ SEG("a", 0, 9, "") SEG("b", 10, 5, ""), SEGSCAN_ESCHEMA, "state.ndjson:2:", "not a range" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ss_remote *r;
		char err[512] = "";
		int e = nd(&r, cases[i].text, err, sizeof(err));
		if (e != cases[i].err || strncmp(err, cases[i].where, strlen(cases[i].where)) != 0 ||
		    !strstr(err, cases[i].what))
			fail_msg("case %zu: got %d \"%s\", want %d %s...%s", i, e, err, cases[i].err, cases[i].where,
				 cases[i].what);
		ss_remote_free(r);
	}
}

/* ---- --seed ---- */
static void test_seed_parse(void **state)
{
	(void)state;
	char *t;
	int32_t p;
	int64_t o;
	assert_int_equal(ss_seed_parse("my-topic.v2-3=100", &t, &p, &o), 0);
	assert_string_equal(t, "my-topic.v2");
	assert_int_equal(p, 3);
	assert_int_equal(o, 100);
	free(t);
	assert_int_equal(ss_seed_parse("a-b-c-0=-1", &t, &p, &o), 0);
	assert_string_equal(t, "a-b-c");
	assert_int_equal(p, 0);
	assert_int_equal(o, -1);
	free(t);
	assert_int_equal(ss_seed_parse("t-2147483647=9223372036854775807", &t, &p, &o), 0);
	assert_int_equal(p, INT32_MAX);
	assert_int_equal(o, INT64_MAX);
	free(t);
	static const char *const bad[] = {
		"t=5", "t-x=5", "-3=5", "t-3=", "t-3=abc", "t-3=-2", "t-3", "t-=5", "t-3=9223372036854775808",
		"t-2147483648=1", "bad topic-1=2", "t-3=1=2", "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ss_seed_parse(bad[i], &t, &p, &o) != -EINVAL)
			fail_msg("\"%s\" accepted", bad[i]);
}

/* 1M synthetic events: correct bookkeeping, and fast (printed; asserted loosely). */
static void test_synthetic_replay(void **state)
{
	(void)state;
	struct ss_remote *r;
	struct ss_remote_counts c;
	assert_int_equal(ss_remote_new(SS_REMOTE_KAFKA, "metadata-topic", &r), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(bench_replay_synthetic(r, 1000000, 256, 42), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ss_remote_get_counts(r, &c);
	assert_int_equal(c.events, 1000000);
	assert_int_equal(c.applied, 1000000);
	assert_int_equal(ss_remote_part_count(r), 256);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("replayed 1M synthetic events in %.3f s\n", s);
	/* every partition's finished segments are contiguous and none is lost */
	for (uint32_t i = 0; i < ss_remote_part_count(r); i++) {
		const struct ss_remote_part *p = ss_remote_part_at(r, i);
		for (uint32_t k = 0; k < p->n_segs; k++)
			assert_false(ss_remote_seg_lost(p, ss_remote_seg(p, k)));
	}
	ss_remote_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transition_table),
		cmocka_unit_test(test_strict_every_transition),
		cmocka_unit_test(test_kafka_every_transition),
		cmocka_unit_test(test_unknown_segment),
		cmocka_unit_test(test_deleted_ids_remembered),
		cmocka_unit_test(test_readd),
		cmocka_unit_test(test_new_segment_must_start),
		cmocka_unit_test(test_highest_for_epoch),
		cmocka_unit_test(test_list_epoch),
		cmocka_unit_test(test_dangling_index),
		cmocka_unit_test(test_partition_delete_resets),
		cmocka_unit_test(test_topic_id),
		cmocka_unit_test(test_epoch_normalize),
		cmocka_unit_test(test_ndjson_ok),
		cmocka_unit_test(test_ndjson_errors),
		cmocka_unit_test(test_seed_parse),
		cmocka_unit_test(test_synthetic_replay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
