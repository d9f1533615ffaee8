/*
 * Per-partition evaluation: pure computation over segment facts, topic config and the
 * replayed remote state. Never touches the filesystem. The evaluator thread calls
 * ss_eval_partition() once a partition's last segment is back from the workers.
 *
 * Semantics: docs/contract.md (Definitions, Retention semantics) and
 * docs/kafka-format.md §5.
 */
#ifndef SS_EVAL_H
#define SS_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "eval/gauges.h"
#include "eval/releases.h"
#include "model/evaluation.h"   /* what the evaluation delivers: struct ss_eval, ... */
#include "model/model.h"

struct ss_remote_part;   /* eval/remote.h: one user partition's replayed remote state */
struct ss_health_rlmm;   /* eval/health.h: what the metadata log says of __remote_log_metadata */

/* What the KRaft metadata log says about one partition (source/cluster_ctx.h builds it). */
struct ss_eval_cluster {
	bool           image;              /* a metadata log was replayed: the facts below are known */
	bool           topic_known;        /* the topic exists in the metadata */
	uint8_t        topic_id[16];       /* its id there (valid with topic_known) */
	bool           topic_id_mismatch;  /* partition.metadata names another id: another incarnation */
	bool           partition_known;    /* the topic has this partition */
	struct ss_assignment a;            /* valid with partition_known */
	int32_t        node_id;            /* this broker, -1 unknown */
};

/* The broker's Kafka release as far as it is known (eval/releases.h). */
struct ss_eval_release {
	bool           known;              /* v is exact ("4.3.1") or a line ("4.4") */
	struct ss_kver v;
	int            mv_level;           /* this broker's highest supported metadata.version; 0 unknown */
	const char    *text;               /* "4.3.1", "4.4", or what the metadata.version says; NULL */
};

struct ss_eval_input {
	const struct ss_part        *part;
	struct ss_seg               *segs;      /* part->seg_count segments, ascending base offset;
						   the evaluator sets end_offset and SS_SEG_ONLY_LOCAL */
	const struct ss_topic_cfg   *cfg;       /* outlives the evaluation (ss_eval.config) */
	const struct ss_remote_part *remote;    /* NULL: no remote metadata for this partition */
	const char                  *remote_source; /* "remote-state" | "metadata-topic" | NULL */
	bool                         has_seed;  /* --seed for this partition */
	int64_t                      seed;
	int64_t                      now_ms;
	int64_t                      dangling_after_ms;
	/* Remote state known to be empty: the source that would hold this partition's events
	 * was read whole (its __remote_log_metadata partition is in the scanned log dirs) and
	 * has none, so nothing was copied yet and the highest offset is -1, as the broker's
	 * findHighestRemoteOffset answers. */
	bool                         remote_known_empty;
	const char                  *remote_empty_source;
	/* Why no remote state is known when there is none (for REMOTE_STATE_UNKNOWN). */
	const char                  *remote_unknown_why;
	/* A corrupt __remote_log_metadata batch could hold this partition's events: what the
	 * remote state would say of it is unknown (remote is NULL then, remote_unknown_why says
	 * which batch). */
	bool                         remote_tainted;
	const struct ss_eval_cluster *cluster;  /* NULL: no metadata log */
	const struct ss_eval_release *release;  /* NULL: release unknown */
	bool                         metadata_log; /* this is __cluster_metadata-0 itself */
	/* tiering health (eval/health.h): stuck_after_ms 0 turns STUCK_REMOTE_COPY/DELETE
	 * off (tests and callers that predate them); stuck_after_why says where the value
	 * came from, for the messages; rlmm NULL: __remote_log_metadata's configs unknown */
	int64_t                      stuck_after_ms;
	const char                  *stuck_after_why;
	const struct ss_health_rlmm *rlmm;
	/* --horizon: 0 off; else ss_eval.forecast says what acts within it */
	int64_t                      horizon_ms;
	/* The forecast's own evaluation (health.c): the bytes of the closed local segments the
	 * copy task uploads before its clock, which seed already counts as copied but remote
	 * does not hold yet. Kafka counts them in remote storage once copied, so remote size
	 * retention's total counts them (0 everywhere else). */
	int64_t                      copied_bytes;
	/* --disable-tiering names this partition's topic: its forecast is the what-if of
	 * KIP-950 (copies stop, local retention falls back to retention.*) */
	bool                         disable_tiering;
	/* --broker-metrics (eval/gauges.h): the gauges of the broker this replica lives on,
	 * NULL when none were read for it; !broker_gauges->ok: read, but unknown. topic_gauges:
	 * this topic's entry (NULL: the endpoint has none for the topic, or it is unknown).
	 * Per topic, summed by Kafka over the partitions that broker leads: never this
	 * partition's own number. */
	const struct ss_broker_gauges *broker_gauges;
	const struct ss_topic_gauges  *topic_gauges;
};


/*
 * Evaluate one partition. Sets in->segs[i].end_offset (for an active segment without
 * a complete batch: base_offset - 1, i.e. an empty range; writers print end_offset and
 * last_offset as null when SS_SEG_HAS_LAST is clear) and SS_SEG_ONLY_LOCAL (set on every
 * live segment of a non-tiered partition, on none while a tiered one is unseeded).
 * Segments flagged SS_SEG_VANISHED are not live: they count nowhere.
 * Returns 0 or -ENOMEM / -EINVAL.
 */
int  ss_eval_partition(const struct ss_eval_input *in, struct ss_eval **out);
void ss_eval_free(struct ss_eval *ev);

#endif
