/*
 * Object keys of a remote tier (KIP-405 RemoteStorageManager plugins), parsed under a
 * layout. Pure functions over bytes (no I/O): the store sources (source/store.h) deliver
 * keys relative to the store's root and the audit (eval/audit.h) joins them with the
 * remote metadata. docs/kafka-format.md §10 describes both layouts with their sources.
 *
 * local-tiered-storage: Kafka's own LocalTieredStorage (kafka-storage test jar,
 *   org.apache.kafka.server.log.remote.storage.{RemoteTopicPartitionDirectory,
 *   RemoteLogSegmentFileset}):
 *     [kafka-tiered-storage/]<topic>-<partition>-<topicId>/<startOffset 20d>-<segmentId><suffix>
 *   suffix one of .log .index .timeindex .txnindex .leader_epoch_checkpoint .snapshot. The
 *   directory is parsed as Kafka's regex "(<topic chars>+)-(\d+)-([a-zA-Z0-9_-]{22})" does
 *   (the id is the last 22 characters, the partition the digits before it), the file as
 *   "(\d+-)([a-zA-Z0-9_-]{22})(\.[a-z_]+)". The root component is the directory
 *   LocalTieredStorage creates under its `dir` config; keys without it are a store served
 *   from that directory itself.
 * aiven: Aiven's tiered-storage-for-apache-kafka (io.aiven.kafka.tieredstorage.
 *   ObjectKeyFactory.mainPath, Suffix):
 *     <topic>-<topicId>/<partition>/<startOffset 20d>-<segmentId>.<log|indexes|rsm-manifest>
 *   after the RSM's key.prefix, which the store URI's prefix removes.
 *
 * Both layouts name a segment's objects "<20-digit offset>-<id>.<ext>" inside one
 * partition's prefix, so in a listing sorted by key (S3's order) the objects of a partition
 * and those of a segment are contiguous runs: the audit joins by sorted keys.
 *
 * Stricter than Kafka's regexes where Kafka would never have written the key: the offset
 * must have exactly the 20 digits filenamePrefixFromOffset writes, ids must be in
 * Uuid.toString()'s canonical form, the partition a plain decimal. A key that does not
 * parse is unrecognised, never guessed at.
 */
#ifndef SS_FMT_STORE_KEY_H
#define SS_FMT_STORE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ss_store_layout {
	SS_LAYOUT_LTS = 0,     /* local-tiered-storage */
	SS_LAYOUT_AIVEN = 1,   /* aiven */
};
/* "local-tiered-storage" | "aiven"; the word for a layout. */
const char *ss_store_layout_name(enum ss_store_layout l);
/* The layout named by word (len bytes), or -1. */
int ss_store_layout_parse(const char *word, size_t len);

/* The kind of a segment's object (a bit in a presence mask). */
enum ss_obj_kind {
	SS_OBJ_LOG = 0,        /* both layouts: the segment's records */
	SS_OBJ_INDEX,          /* lts: .index */
	SS_OBJ_TIMEINDEX,      /* lts: .timeindex */
	SS_OBJ_TXNINDEX,       /* lts: .txnindex (optional: only when the segment had one) */
	SS_OBJ_EPOCH,          /* lts: .leader_epoch_checkpoint */
	SS_OBJ_SNAPSHOT,       /* lts: .snapshot (the producer snapshot) */
	SS_OBJ_INDEXES,        /* aiven: .indexes (the five indexes concatenated) */
	SS_OBJ_MANIFEST,       /* aiven: .rsm-manifest */
	SS_OBJ_KINDS
};
/* The suffix as the key has it, with its dot: ".log", ".rsm-manifest". */
const char *ss_obj_suffix(enum ss_obj_kind k);
/* The objects a segment's reads need under a layout (a mask of 1 << kind): what
 * LocalTieredStorage's fetchLogSegment/fetchIndex open (every non-optional file type of
 * RemoteLogSegmentFileset), or Aiven's fetchLogSegment/fetchIndex (log, indexes and the
 * manifest they are read through). */
uint32_t ss_store_required(enum ss_store_layout l);
/* Every kind a layout writes (the required ones and the optional .txnindex). */
uint32_t ss_store_kinds(enum ss_store_layout l);

enum ss_key_parse {
	SS_KEY_NONE = 0,       /* not a key of the layout: no partition can be told */
	SS_KEY_PARTITION,      /* a partition's prefix, but not one of its segment objects */
	SS_KEY_OBJECT,         /* a segment object */
};

struct ss_store_key {
	const char      *topic;       /* into the key, not NUL-terminated */
	size_t           topic_len;
	int32_t          partition;
	uint8_t          topic_id[16];
	size_t           part_len;    /* bytes of the key through the partition prefix's last '/' */
	bool             lts_root;    /* lts: the key starts with "kafka-tiered-storage/" */
	/* SS_KEY_OBJECT only */
	int64_t          start_offset;
	uint8_t          seg_id[16];
	enum ss_obj_kind kind;
	size_t           seg_len;     /* bytes through "<offset>-<id>": the segment's objects share them */
};

/*
 * Parse a key (len bytes, relative to the store root) under layout l. Returns what it is;
 * for NONE and PARTITION *why (may be NULL) is a static reason. Never reads past len.
 */
enum ss_key_parse ss_store_key_parse(enum ss_store_layout l, const char *key, size_t len, struct ss_store_key *out,
				     const char **why);

/*
 * The prefix under which a partition's objects are listed, NUL-terminated in buf:
 * "[kafka-tiered-storage/]<topic>-<partition>-<id>/" or "<topic>-<id>/<partition>/".
 * lts_root selects the lts form. Returns its length, or -ENAMETOOLONG when buf is short,
 * -EINVAL for a topic name Kafka refuses.
 */
int ss_store_part_prefix(enum ss_store_layout l, bool lts_root, const char *topic, size_t topic_len, int32_t partition,
			 const uint8_t topic_id[16], char *buf, size_t len);

/* "<20-digit offset>-<id>" of a segment, NUL-terminated (43 characters and the NUL). */
#define SS_STORE_SEG_NAME_LEN 44
void ss_store_seg_name(int64_t start_offset, const uint8_t seg_id[16], char out[SS_STORE_SEG_NAME_LEN]);

#endif
