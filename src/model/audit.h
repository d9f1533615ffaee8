/*
 * What the remote-store audit (eval/audit.h) delivers, as the outputs print it: per
 * segment an item, per partition incarnation its counters, per topic and store the
 * totals. The join fills these; the results view (model/results.h) points at them and the
 * writers (out/store.c) read them, so an output sees the model and never the join.
 */
#ifndef SS_MODEL_AUDIT_H
#define SS_MODEL_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

struct ss_remote_part;   /* eval/remote.h: one partition's replayed remote state (opaque here) */

enum ss_audit_code { SS_AUDIT_MISSING, SS_AUDIT_ORPHAN, SS_AUDIT_TORN, SS_AUDIT_SIZE, SS_AUDIT_CODES };

/* What a REMOTE_SIZE_MISMATCH compares. */
enum ss_audit_size_what {
	SS_ASIZE_LOG_META,       /* the .log object against segment_size_in_bytes */
	SS_ASIZE_MANIFEST_META,  /* aiven: the manifest's originalFileSize against segment_size_in_bytes */
	SS_ASIZE_LOG_MANIFEST,   /* aiven: the .log object against the manifest's chunk index */
	SS_ASIZE_INDEXES,        /* aiven: the .indexes object against the manifest's index ranges */
};

#define SS_AUDIT_UNKNOWN_STATE 0xff   /* an item's state: the metadata does not know the id */

/* One segment's problem (compact: a bucket that lost everything has one per segment). */
struct ss_audit_item {
	uint8_t  code;            /* enum ss_audit_code */
	uint8_t  state;           /* the first replay's state of the segment, SS_AUDIT_UNKNOWN_STATE */
	uint8_t  what;            /* SIZE: enum ss_audit_size_what */
	uint8_t  dropped;         /* ss_audit_confirm: the second replay does not confirm it */
	uint16_t present;         /* object kinds in the store (1 << enum ss_obj_kind) */
	uint16_t absent;          /* MISSING: required kinds absent */
	uint32_t objects;         /* ORPHAN, TORN: objects present; MISSING: objects absent */
	uint8_t  seg_id[16];
	int64_t  start_offset, end_offset;   /* end: from the metadata, -1 when unknown */
	int64_t  bytes;           /* ORPHAN, TORN: their bytes; MISSING: the metadata's size; SIZE: found */
	int64_t  expected;        /* SIZE: what it should be */
};

/* One partition incarnation (topic, partition, topic id): of the metadata, of the store, or both. */
struct ss_audit_part {
	char    *topic;                   /* owned */
	int32_t  partition;
	bool     has_topic_id;
	uint8_t  topic_id[16];
	char    *prefix;                  /* its objects' key prefix (owned; NULL if unknown) */
	const struct ss_remote_part *rp;  /* the first replay's state, NULL none */
	bool     in_metadata;             /* rp is set */
	bool     in_store;                /* the listing had objects under its prefix */
	bool     compared;                /* the counters below say what the store holds */
	const char *why_not;              /* static: why not compared */
	int64_t  objects, stored_bytes;   /* listed under its prefix */
	int64_t  accounted_bytes;         /* the metadata's segment_size_in_bytes of its
					     COPY_SEGMENT_FINISHED segments */
	int64_t  finished_segments;       /* ... how many */
	int64_t  orphan_objects, orphan_bytes;
	int64_t  missing_objects;
	int64_t  torn_objects, torn_bytes;
	int64_t  pending_objects, pending_bytes;   /* in flight: not judged */
	int64_t  unrecognised, unrecognised_bytes;
	struct ss_audit_item *items;      /* in key order */
	uint32_t n_items, cap_items;
	char   **unrec_keys;              /* the first SS_AUDIT_LIST_MAX unrecognised keys (owned) */
	uint32_t n_unrec_keys;
	uint64_t m0_events;               /* rp's event count: unchanged in the second replay => confirmed */
	int64_t  ok_objects, ok_bytes;    /* objects of COPY_SEGMENT_FINISHED segments */
};

/* At most this many keys and ids are listed per finding and per unrecognised list (the
 * counts are exact). */
#define SS_AUDIT_LIST_MAX 100

/* A topic's compared partitions, summed (each partition incarnation once). */
struct ss_audit_topic {
	const char *topic;                /* the parts' own string */
	uint32_t    partitions;
	int64_t     objects, stored_bytes, accounted_bytes;
	int64_t     orphan_objects, orphan_bytes, missing_objects, torn_objects, torn_bytes, unrecognised;
};

struct ss_audit_totals {
	bool     complete;                /* the listing reached its end */
	char     last_key[1025];          /* the last key listed ("" none) */
	int64_t  objects, stored_bytes, accounted_bytes;
	int64_t  orphan_objects, orphan_bytes, missing_objects, torn_objects, torn_bytes;
	int64_t  pending_objects, pending_bytes;
	int64_t  unrecognised, unrecognised_bytes;   /* every key that does not parse */
	int64_t  unplaced;                /* ... of them, keys that name no partition */
	int64_t  not_compared_objects, not_compared_bytes;
	uint32_t partitions, partitions_compared;
	char   **unrec_keys;              /* keys that name no partition (owned, capped) */
	uint32_t n_unrec_keys;
	uint64_t manifests, manifest_errors;
	const struct ss_audit_topic *topics;   /* by topic name (after ss_audit_confirm) */
	uint32_t n_topics;
};

#endif
