/*
 * The remote-store audit: a listing of the remote tier's objects joined with the replayed
 * remote log metadata (eval/remote.h), per partition and per segment. Pure: it never
 * touches the filesystem or the network; the store sources (source/store.h) feed it the
 * listing and the manifests it asks for.
 *
 * The join is by sorted keys. A store lists keys in byte order (S3's order; the file://
 * source sorts the same way), and under both layouts (fmt/store_key.h) a partition's
 * objects share its prefix and a segment's objects share "<prefix><20-digit offset>-<id>",
 * so each is one contiguous run. The audit holds one partition at a time: the partition's
 * metadata segments, sorted by (start offset, id text) as their keys sort, merged with its
 * objects as they come. Memory is the metadata (already held) plus one partition's sort,
 * plus what is wrong (one compact item per finding's segment), never a copy of every key.
 * A listing out of key order is refused (-EPROTO: the join would be wrong).
 *
 * Per segment, with the metadata's state S and the objects present:
 *   S = COPY_SEGMENT_FINISHED, a required object absent     MISSING_REMOTE_OBJECT
 *   S = COPY_SEGMENT_FINISHED, .log size != metadata size   REMOTE_SIZE_MISMATCH (aiven:
 *       the manifest's original size against the metadata, the .log and .indexes objects
 *       against the sizes the manifest's chunk index and ranges imply)
 *   S = DELETE_SEGMENT_FINISHED, or the id unknown to a metadata that can speak for the
 *       partition, every required object present            ORPHAN_REMOTE_OBJECT
 *   S = COPY_SEGMENT_STARTED (longer ago than dangling_after) or unknown id, some but not
 *       all required objects present                         TORN_REMOTE_UPLOAD
 *   S = COPY_SEGMENT_STARTED (recent), DELETE_SEGMENT_STARTED, DANGLING, or the partition's
 *       delete in progress: in flight, not judged (pending)
 * The metadata is read before the listing, so what changed while the store was listed would
 * look wrong: ss_audit_confirm re-checks every candidate against a second replay taken after
 * the listing (a segment deleted by retention meanwhile is not missing; an upload begun
 * meanwhile is not an orphan).
 *
 * A partition is compared only when the listing covered its whole prefix and the metadata
 * can speak for it (the coverage callback: a partition without remote state is known to be
 * empty only when the metadata partition that would hold it was read whole and clean).
 * Everything else is not compared (its counters are still listed; the report says null).
 */
#ifndef SS_EVAL_AUDIT_H
#define SS_EVAL_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/store_key.h"

struct ss_remote;
struct ss_remote_part;
struct ss_aiven_manifest;
struct ss_eval;

enum ss_audit_code { SS_AUDIT_MISSING, SS_AUDIT_ORPHAN, SS_AUDIT_TORN, SS_AUDIT_SIZE, SS_AUDIT_CODES };
/* "MISSING_REMOTE_OBJECT", ... */
const char *ss_audit_code_name(enum ss_audit_code c);

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

/*
 * Can the metadata speak for this partition? has_state: the first replay has state for it
 * (then: is that state whole, e.g. not behind a corrupt batch). Returns true when it can;
 * else *why is a static reason. Called from ss_audit_* on the caller's thread.
 */
typedef bool (*ss_audit_coverage_fn)(void *arg, const char *topic, int32_t partition, const uint8_t topic_id[16],
				     bool has_state, const char **why);

struct ss_audit_cfg {
	enum ss_store_layout layout;
	const struct ss_remote *remote;   /* the first replay (NULL: no remote metadata) */
	int64_t now_ms;                   /* when the listing started (--now in tests) */
	int64_t dangling_after_ms;        /* a COPY_SEGMENT_STARTED younger than this is in flight */
	ss_audit_coverage_fn coverage;    /* NULL: only partitions with state can be judged */
	void   *coverage_arg;
	bool    deep;                     /* --deep: ask for every finished segment's .log (lts) */
};

struct ss_audit;

int  ss_audit_new(const struct ss_audit_cfg *cfg, struct ss_audit **out);
void ss_audit_free(struct ss_audit *a);

/* The next listed object (key relative to the store root, size >= 0, or -1 when the store
 * gives none). 0, -EPROTO (out of key order or a repeated key: ss_audit_error says which),
 * -ENOMEM. */
int ss_audit_object(struct ss_audit *a, const char *key, size_t len, int64_t size);

/* Manifests the join wants read (aiven): each request names its key; the caller reads it
 * and answers with ss_audit_manifest (m NULL: it could not be read or parsed; why says
 * why). Drain after each page of the listing and after ss_audit_end_listing. */
uint32_t    ss_audit_manifest_count(const struct ss_audit *a);
const char *ss_audit_manifest_key(const struct ss_audit *a, uint32_t i);
int         ss_audit_manifest(struct ss_audit *a, uint32_t i, const struct ss_aiven_manifest *m, const char *why);
void        ss_audit_manifest_clear(struct ss_audit *a);

/* --deep: the .log objects of finished segments to read whole and verify (the local-tiered-
 * storage layout: Aiven's are transformed), with what the metadata says they hold. Drain
 * like the manifests. */
struct ss_audit_deep {
	char   *key;
	int64_t size;                         /* as listed */
	int64_t start_offset, end_offset;     /* the metadata's */
};
uint32_t                    ss_audit_deep_count(const struct ss_audit *a);
const struct ss_audit_deep *ss_audit_deep_at(const struct ss_audit *a, uint32_t i);
void                        ss_audit_deep_clear(struct ss_audit *a);

/* The listing ended: complete (it reached its end) or not (refused or interrupted after
 * the last key given). Closes the partition in progress and every partition the metadata
 * has that the listing never reached. 0 or -ENOMEM. */
int  ss_audit_end_listing(struct ss_audit *a, bool complete);

/* Is anything missing, orphaned or torn (so that a second replay is worth reading)? */
bool ss_audit_suspects(const struct ss_audit *a);

/* Re-check the candidates against a second replay read after the listing (NULL: none was
 * read, the first stands). Then the counters are final. 0 or -ENOMEM. */
int  ss_audit_confirm(struct ss_audit *a, const struct ss_remote *second);

/* ---- results (after ss_audit_confirm) ---- */
const struct ss_audit_totals *ss_audit_totals(const struct ss_audit *a);
enum ss_store_layout          ss_audit_layout(const struct ss_audit *a);
uint32_t                      ss_audit_part_count(const struct ss_audit *a);
/* In (topic, partition, topic id) order. */
const struct ss_audit_part   *ss_audit_part_at(const struct ss_audit *a, uint32_t i);
/* A partition incarnation: topic_id may be NULL (then the one the metadata's first replay
 * would pick, else the only one in the store). NULL when neither has it. */
const struct ss_audit_part   *ss_audit_find(const struct ss_audit *a, const char *topic, int32_t partition,
					    const uint8_t *topic_id);
/* "listing is not in key order: KEY after KEY" (after -EPROTO). */
const char                   *ss_audit_error(const struct ss_audit *a);

/* The key of an item's object of kind k, NUL-terminated into buf. */
int ss_audit_item_key(const struct ss_audit *a, const struct ss_audit_part *ap, const struct ss_audit_item *it,
		      enum ss_obj_kind k, char *buf, size_t len);

/*
 * The audit of a scanned partition (topic_id: its partition.metadata's, may be NULL): its
 * part when compared; a part with nothing in it when neither the metadata nor the store
 * has the partition and the audit can vouch for both (the listing covered its prefix, the
 * coverage callback says its metadata would be known); else NULL with *why.
 */
const struct ss_audit_part *ss_audit_for_partition(const struct ss_audit *a, const char *topic, int32_t partition,
						   const uint8_t *topic_id, const char **why);

/* Raise a compared partition's findings on its evaluation and point ev->remote_store at
 * it; ap NULL: ev->remote_store stays NULL, ev->remote_store_why = why. 0 or -ENOMEM. */
int ss_audit_attach(const struct ss_audit *a, const struct ss_audit_part *ap, const char *why, struct ss_eval *ev);

#endif
