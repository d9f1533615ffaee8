/* Shared between eval.c and retention.c: one partition's evaluation in progress. */
#ifndef SS_EVAL_INT_H
#define SS_EVAL_INT_H

#include "eval/eval.h"
#include "eval/remote.h"

struct ss_evctx {
	const struct ss_eval_input *in;
	struct ss_eval             *ev;
	struct ss_seg             **live;    /* live segments, ascending base offset */
	uint32_t                    n_live;
	const struct ss_rseg      **fin;     /* COPY_SEGMENT_FINISHED, by start offset then event order */
	uint32_t                    n_fin;
	const struct ss_remote_part *remote; /* NULL when the partition has no remote metadata */
};

/* retention.c: fills ev->size, ev->time, ev->local and the UNSEEDED_SIZE_RETENTION finding. */
int ss_eval_retention(struct ss_evctx *x);

/* eval.c */
int ss_eval_add_finding(struct ss_eval *ev, const char *code, const char *ref, bool has_amount, int64_t segments,
			int64_t bytes, const char *const *ids, uint32_t n_ids, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));
int ss_eval_add_note(struct ss_eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* x + 1 and x - 1, saturating: offsets come from files and user input */
static inline int64_t ss_inc_sat(int64_t x)
{
	return x == INT64_MAX ? x : x + 1;
}

static inline int64_t ss_dec_sat(int64_t x)
{
	return x == INT64_MIN ? x : x - 1;
}

/* now - ts > limit, without overflow */
static inline bool ss_older_than(int64_t now, int64_t ts, int64_t limit)
{
	return (__int128)now - (__int128)ts > (__int128)limit;
}

#endif
