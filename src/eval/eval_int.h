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
	/* retention.c for health.c: every reading of local retention (release, policy) applies
	 * the same local time limit, ev->local_limit_ms */
	bool                        local_ms_settled;
};

/* retention.c: fills ev->size, ev->time, ev->local and the UNSEEDED_SIZE_RETENTION finding. */
int ss_eval_retention(struct ss_evctx *x);
/* Fills ev->total from ev->size, time and local (ss_eval_retention does it too). */
void ss_eval_retention_total(struct ss_eval *ev);

/* dellag.c: ev->delete_lag_* from the remote state and retention's remote deletions (after
 * ss_eval_retention). 0 or -ENOMEM. */
int ss_eval_delete_lag(struct ss_evctx *x);

/* eval.c */
/* What a finding states besides its message (the fields of struct ss_finding). */
struct ss_finding_spec {
	const char        *code;        /* "DANGLING_REMOTE_SEGMENT", ... (static) */
	const char        *ref;         /* "KAFKA-17428", ...; NULL = none (static) */
	bool               has_amount;  /* segments and bytes are meaningful */
	int64_t            segments, bytes;
	const char *const *ids;         /* segment ids it names (copied), n_ids of them */
	uint32_t           n_ids;
	const char *const *keys;        /* remote-store object keys it names (copied), n_keys of them */
	uint32_t           n_keys;
};
/* Append a finding: spec's fields and the printf-formatted message. 0 or -ENOMEM. */
int ss_eval_add_finding(struct ss_eval *ev, const struct ss_finding_spec *spec, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ss_eval_add_note(struct ss_eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Does the broker's release (in->release) have the bug `ticket` ("KAFKA-20977")? Unknown
 * release: SS_AFFECT_UNKNOWN, and a finding for it is raised with a caveat. */
enum ss_affect ss_eval_affects(const struct ss_eval_input *in, const char *ticket);
/* Is the broker's release older than line major.minor (ss_release_before)? */
enum ss_affect ss_eval_release_before(const struct ss_eval_input *in, int major, int minor);
/* "" when the answer is definite; else " (KAFKA-x affects Kafka A to B ...; the broker's
 * release is unknown ...)" for the end of a finding's message. */
void ss_eval_release_caveat(const struct ss_eval_input *in, const char *ticket, char *buf, size_t n);

/* "3d 4h", "5m 2s", "750ms" (negative: "in the future"); and a time as ISO 8601 UTC with
 * milliseconds ("2023-11-14T22:13:20.000Z"), for messages */
void ss_eval_human_ms(int64_t ms, char *buf, size_t len);
void ss_eval_iso_ms(int64_t ms, char *buf, size_t len);

/* health.c: STUCK_REMOTE_COPY, STUCK_REMOTE_DELETE, REMOTE_METADATA_AT_RISK,
 * EPOCH_LINEAGE_GAP, UNDELETABLE_LOCAL_SEGMENT (eval/health.h). Runs after the remote facts and retention. */
int ss_eval_health(struct ss_evctx *x);

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
