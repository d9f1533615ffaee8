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
#include "model/audit.h"   /* the audit's results: items, parts, totals */

struct ss_remote;
struct ss_aiven_manifest;
struct ss_eval;

/* "MISSING_REMOTE_OBJECT", ... */
const char *ss_audit_code_name(enum ss_audit_code c);

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
