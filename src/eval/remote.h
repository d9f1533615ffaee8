/*
 * Remote-tier state: a replay of remote log metadata events (the --remote-state NDJSON
 * file or the decoded __remote_log_metadata topic) into one store of user partitions,
 * each with its remote segments and the per-leader-epoch index Kafka keeps
 * (RemoteLogMetadataCache / RemoteLogLeaderEpochState, docs/kafka-format.md §5.4, §5.5).
 *
 * Both sources produce struct ss_remote_event and go through ss_remote_apply(), so
 * there is one state machine and one index.
 *
 * The epoch index is Kafka's with the KAFKA-20932 fix: when a finished segment's epoch
 * start offset is overwritten in offsetToId by an overlapping upload, the displaced id is
 * kept in the epoch's unreferenced set instead of being dropped. The displacement is
 * remembered (SS_REPOCH_LOST) until an event of that segment would have brought it back
 * into Kafka's unfixed index, so the evaluator can report what Kafka itself loses.
 *
 * Not thread-safe: replay once, then read from any number of threads (the evaluator
 * only reads).
 */
#ifndef SS_EVAL_REMOTE_H
#define SS_EVAL_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/names.h"
#include "fmt/remote_event.h"

/* Is src -> dst a legal segment transition (the contract's list; src < 0 = new segment)? */
bool ss_rseg_transition_ok(int src, int dst);

/* Per (segment, epoch) flags. */
#define SS_REPOCH_UNREF 0x01   /* in the epoch's unreferenced set (fixed index) */
#define SS_REPOCH_LOST  0x02   /* Kafka's unfixed index dropped it from this epoch (KAFKA-20932) */

struct ss_rseg_epoch {
	int32_t epoch;
	uint8_t flags;
	int64_t start_offset;
};

/* One remote segment. Kept small (about 100 bytes): a metadata topic can describe
 * millions. */
struct ss_rseg {
	char     *id;             /* NUL-terminated text id (owned by the store): as given, or
				     Kafka's base64url form of id_bytes */
	uint32_t  id_len;
	uint32_t  part;           /* index of its ss_remote_part in the store */
	uint32_t  gen;            /* partition generation (a finished partition delete starts a new one) */
	uint32_t  n_epochs;
	uint8_t   state;          /* ss_rseg_state */
	bool      has_id_bytes;   /* from the metadata topic */
	uint8_t   id_bytes[16];
	int32_t   broker_id;      /* of the latest applied event */
	uint64_t  order;          /* event sequence number of its add event: "event order" */
	int64_t   start_offset, end_offset, size_bytes, max_timestamp_ms;
	int64_t   event_ms;       /* event timestamp of the latest applied event */
	struct ss_rseg_epoch *epochs;   /* ascending epoch, owned by the store */
};

/* Kafka's RemoteLogLeaderEpochState for one epoch of one partition. */
struct ss_repoch_o2i { int64_t off; uint32_t seg; };
struct ss_repoch {
	int32_t  epoch;
	bool     has_highest;     /* highestLogOffset != null */
	int64_t  highest;         /* never decreased on deletion */
	struct ss_repoch_o2i *o2i;/* offsetToId, ascending off (COPY_SEGMENT_FINISHED ids) */
	uint32_t n_o2i, cap_o2i;
	uint32_t n_unref;         /* segments with SS_REPOCH_UNREF for this epoch */
	uint32_t n_lost;          /* ... of which SS_REPOCH_LOST (absent from Kafka's own set) */
};

struct ss_remote;

struct ss_remote_part {
	char     *topic;
	int32_t   partition;
	bool      keyed_by_id;    /* KAFKA mode: the key includes the topic id */
	bool      has_topic_id;
	uint8_t   topic_id[16];
	uint32_t  idx;
	uint32_t  gen;
	uint32_t *segs;           /* store indices of this generation's segments, in add order */
	uint32_t  n_segs, cap_segs;
	struct ss_repoch *epochs; /* ascending epoch; created on demand, never removed (as Kafka) */
	uint32_t  n_epochs, cap_epochs;
	int       delete_state;   /* ss_rpart_state of the latest partition delete event */
	int64_t   delete_event_ms;
	uint64_t  n_events;       /* events applied to this partition (all generations) */
	uint64_t  last_seq;       /* sequence number of the latest event applied to it */
	uint64_t  n_resets;       /* DELETE_PARTITION_FINISHED events seen */
	const struct ss_remote *store;
};

enum ss_remote_mode {
	SS_REMOTE_STRICT = 0,     /* --remote-state: an illegal event is an error */
	SS_REMOTE_KAFKA  = 1,     /* metadata topic: an illegal event is dropped and counted */
};

int  ss_remote_new(enum ss_remote_mode mode, const char *source, struct ss_remote **out);
void ss_remote_free(struct ss_remote *r);
enum ss_remote_mode ss_remote_mode(const struct ss_remote *r);

/*
 * Apply one event in order.
 *   0   applied
 *   1   KAFKA mode only: dropped as Kafka would drop it (unknown segment, illegal
 *       transition, invalid record); msg says why, and the store counts it
 *   <0  STRICT mode: SEGSCAN_ETRANSITION (illegal transition), SEGSCAN_EUNKNOWNSEG
 *       (update for an unknown segment), SEGSCAN_ESCHEMA (values that make no sense,
 *       e.g. end < start or no leader epochs), SEGSCAN_EMISMATCH (two topic ids for one
 *       partition); msg says what. Both modes: -ENOMEM.
 * msg may be NULL.
 */
int ss_remote_apply(struct ss_remote *r, const struct ss_remote_event *ev, char *msg, size_t msglen);
/* The same as an ss_remote_event_fn (fmt/remote_event.h), arg being the store: what
 * the parsers' callers hand them. */
int ss_remote_apply_fn(void *store, const struct ss_remote_event *ev, char *msg, size_t msglen);

struct ss_remote_counts {
	uint64_t events;          /* given to ss_remote_apply */
	uint64_t applied;
	uint64_t dropped_unknown; /* KAFKA: update for an unknown segment */
	uint64_t dropped_illegal; /* KAFKA: illegal transition */
	uint64_t dropped_invalid; /* KAFKA: record that makes no sense (or a snapshot record) */
};
void ss_remote_get_counts(const struct ss_remote *r, struct ss_remote_counts *out);

/* ---- reading the replayed state (pointers stay valid until ss_remote_free; what they
 * point to changes with later events) ---- */

/*
 * The partition's remote state, or NULL. topic_id (may be NULL) is the local partition's
 * id from partition.metadata: in KAFKA mode it selects among incarnations of a topic
 * name; without it the most recently active incarnation is returned. In STRICT mode a
 * partition is keyed by name only and carries the topic_id the file gave, if any, for
 * the caller to check (SEGSCAN_EMISMATCH upstream).
 */
const struct ss_remote_part *ss_remote_find(const struct ss_remote *r, const char *topic, int32_t partition,
					    const uint8_t *topic_id);
uint32_t ss_remote_part_count(const struct ss_remote *r);
const struct ss_remote_part *ss_remote_part_at(const struct ss_remote *r, uint32_t i);

/* Segment i (0 <= i < p->n_segs) of the partition's current generation, in add order. */
const struct ss_rseg *ss_remote_seg(const struct ss_remote_part *p, uint32_t i);

/* Does the partition have remote segment metadata at all (any segment event since its
 * last finished partition delete)? Kafka's cache would answer queries for it. */
bool ss_remote_has_metadata(const struct ss_remote_part *p);

/* RemoteLogMetadataCache.highestOffsetForEpoch: false when empty. */
bool ss_remote_highest_for_epoch(const struct ss_remote_part *p, int32_t epoch, int64_t *out);

/*
 * RemoteLogMetadataCache.listRemoteLogSegments(epoch): COPY_SEGMENT_STARTED, FINISHED,
 * DELETE_SEGMENT_STARTED (and DANGLING) segments with this epoch, offsetToId order, then
 * (if any unreferenced id exists) stably re-sorted by segment start offset; unreferenced
 * ids are appended in event order. kafka_unfixed=true lists what Kafka's code without the
 * KAFKA-20932 fix returns. *out is malloc'd (free it); *n may be 0 with *out NULL.
 */
int ss_remote_list_epoch(const struct ss_remote_part *p, int32_t epoch, bool kafka_unfixed,
			 const struct ss_rseg ***out, uint32_t *n);

/* A finished segment that Kafka's epoch index no longer lists under any of its epochs
 * (KAFKA-20932): invisible to the broker's retention and to its size computation. */
bool ss_remote_seg_lost(const struct ss_remote_part *p, const struct ss_rseg *s);

#endif
