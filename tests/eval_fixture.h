/*
 * Building evaluator inputs by hand for the eval tests: a partition, its segments, its
 * leader-epoch checkpoint, a topic config, and a STRICT remote store fed event by event.
 * No filesystem. Include after <cmocka.h>.
 */
#ifndef SS_EVAL_FIXTURE_H
#define SS_EVAL_FIXTURE_H

#include <string.h>

#include "eval/eval.h"
#include "eval/remote.h"
#include "segscan.h"

#define FX_MAX_SEGS 32

struct fx {
	struct ss_part        part;
	struct ss_seg         segs[FX_MAX_SEGS];
	struct ss_epoch_entry epochs[16];
	struct ss_topic_cfg   cfg;
	struct ss_remote     *remote;
	struct ss_eval_input  in;
	struct ss_eval       *ev;
	char                  msg[512];
};

static inline void fx_init(struct fx *f, const char *topic)
{
	memset(f, 0, sizeof(*f));
	f->part.topic = (char *)topic;
	f->part.partition = 0;
	f->part.epochs = f->epochs;
	f->cfg.retention_ms = 604800000LL;
	f->cfg.retention_bytes = -1;
	f->cfg.local_retention_ms = -2;
	f->cfg.local_retention_bytes = -2;
	f->cfg.segment_bytes = 1073741824LL;
	f->cfg.remote_storage = 0;   /* known not tiered; -1 (nothing says) is a case of its own */
	f->in.now_ms = 1700000000000LL;
	f->in.dangling_after_ms = 3600000;
	assert_int_equal(ss_remote_new(SS_REMOTE_STRICT, "remote-state", &f->remote), 0);
}

static inline void fx_free(struct fx *f)
{
	ss_eval_free(f->ev);
	ss_remote_free(f->remote);
	ss_segs_free_x(f->segs, f->part.seg_count);
	f->ev = NULL;
	f->remote = NULL;
}

/* A local segment; last < 0 means it holds no batch. */
static inline struct ss_seg *fx_seg(struct fx *f, int64_t base, int64_t last, int64_t size, int64_t max_ts)
{
	assert_true(f->part.seg_count < FX_MAX_SEGS);
	struct ss_seg *s = &f->segs[f->part.seg_count++];
	ss_seg_init(s, base, SS_HAS_LOG | SS_HAS_INDEX | SS_HAS_TIMEINDEX);
	if (last >= 0)
		s->flags |= SS_SEG_FIRST_KNOWN; /* its first batch starts at its name */
	s->last_offset = last;
	if (last >= 0)
		s->flags |= SS_SEG_HAS_LAST;
	s->size_bytes = size;
	s->valid_bytes = size;
	s->max_timestamp_ms = max_ts;
	return s;
}

static inline void fx_epoch(struct fx *f, int32_t epoch, int64_t start)
{
	f->epochs[f->part.n_epochs].epoch = epoch;
	f->epochs[f->part.n_epochs].start_offset = start;
	f->part.n_epochs++;
	f->part.epochs_read = true;
}

/* A remote segment of the fixture's topic-0 with one leader epoch, in state `state`
 * (reached by legal transitions), the last event at event_ms. */
static inline void fx_rseg(struct fx *f, const char *id, int64_t start, int64_t end, int32_t epoch, int64_t size,
			   int64_t max_ts, int state, int64_t event_ms)
{
	struct ss_epoch_entry ep = { epoch, start };
	struct ss_remote_event ev = {
		.type = SS_REV_SEGMENT, .topic = f->part.topic, .topic_len = strlen(f->part.topic),
		.partition = f->part.partition, .segment_id = id, .segment_id_len = strlen(id),
		.start_offset = start, .end_offset = end, .size_bytes = size, .max_timestamp_ms = max_ts,
		.epochs = &ep, .n_epochs = 1, .broker_id = 1, .event_timestamp_ms = event_ms,
		.state = SS_RSEG_COPY_STARTED,
	};
	assert_int_equal(ss_remote_apply(f->remote, &ev, f->msg, sizeof(f->msg)), 0);
	static const int path[5][3] = {
		[SS_RSEG_COPY_STARTED] = { -1 },
		[SS_RSEG_COPY_FINISHED] = { SS_RSEG_COPY_FINISHED, -1 },
		[SS_RSEG_DELETE_STARTED] = { SS_RSEG_DELETE_STARTED, -1 },
		[SS_RSEG_DELETE_FINISHED] = { SS_RSEG_DELETE_STARTED, SS_RSEG_DELETE_FINISHED, -1 },
		[SS_RSEG_DANGLING] = { SS_RSEG_DANGLING, -1 },
	};
	for (int i = 0; i < 3 && path[state][i] >= 0; i++) {
		struct ss_remote_event u = {
			.type = SS_REV_UPDATE, .topic = ev.topic, .topic_len = ev.topic_len, .partition = ev.partition,
			.segment_id = id, .segment_id_len = strlen(id), .broker_id = 1, .event_timestamp_ms = event_ms,
			.state = path[state][i],
		};
		assert_int_equal(ss_remote_apply(f->remote, &u, f->msg, sizeof(f->msg)), 0);
	}
}

static inline void fx_update(struct fx *f, const char *id, int state, int64_t event_ms)
{
	struct ss_remote_event u = {
		.type = SS_REV_UPDATE, .topic = f->part.topic, .topic_len = strlen(f->part.topic),
		.partition = f->part.partition, .segment_id = id, .segment_id_len = strlen(id), .broker_id = 1,
		.event_timestamp_ms = event_ms, .state = state,
	};
	assert_int_equal(ss_remote_apply(f->remote, &u, f->msg, sizeof(f->msg)), 0);
}

/* Evaluate (again): marks the last segment active, looks the partition up in the store. */
static inline struct ss_eval *fx_eval(struct fx *f)
{
	ss_eval_free(f->ev);
	f->ev = NULL;
	for (uint32_t i = 0; i < f->part.seg_count; i++)
		f->segs[i].flags &= (uint16_t)~SS_SEG_ACTIVE;
	if (f->part.seg_count)
		f->segs[f->part.seg_count - 1].flags |= SS_SEG_ACTIVE;
	f->in.part = &f->part;
	f->in.segs = f->segs;
	f->in.cfg = &f->cfg;
	f->in.remote = ss_remote_find(f->remote, f->part.topic, f->part.partition, NULL);
	f->in.remote_source = "remote-state";
	assert_int_equal(ss_eval_partition(&f->in, &f->ev), 0);
	return f->ev;
}

static inline const struct ss_finding *fx_finding(const struct ss_eval *ev, const char *code, uint32_t nth)
{
	for (uint32_t i = 0; i < ev->n_findings; i++)
		if (strcmp(ev->findings[i].code, code) == 0 && nth-- == 0)
			return &ev->findings[i];
	return NULL;
}

static inline uint32_t fx_count(const struct ss_eval *ev, const char *code)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < ev->n_findings; i++)
		n += strcmp(ev->findings[i].code, code) == 0;
	return n;
}

#endif
