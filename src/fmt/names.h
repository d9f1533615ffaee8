/*
 * Names and small text files of a Kafka log dir: partition directory names, segment file
 * names, checkpoint files, partition.metadata, Kafka Uuids. Pure functions over bytes.
 * docs/kafka-format.md §1.
 */
#ifndef SS_FMT_NAMES_H
#define SS_FMT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- partition directory names (§1.4, LocalLog.parseTopicPartitionName) ---- */
enum ss_dir_kind { SS_DIR_LIVE = 0, SS_DIR_DELETE, SS_DIR_FUTURE, SS_DIR_STRAY };
struct ss_dirname {
	const char      *topic;      /* points into the parsed name, not NUL-terminated */
	size_t           topic_len;
	int32_t          partition;
	enum ss_dir_kind kind;
};
/* 0, or SEGSCAN_EDIRNAME when `name` is not a partition directory name. */
int ss_dirname_parse(const char *name, struct ss_dirname *out);

/* ---- topic names: Kafka topic name rules (Topic.validate): 1..249 chars of [a-zA-Z0-9._-], not "." or "..". */
bool ss_topic_name_ok(const char *s, size_t len);

/* ---- files inside a partition directory (§1.7) ---- */
enum ss_file_kind {
	SS_FILE_UNKNOWN = 0,
	SS_FILE_LOG, SS_FILE_INDEX, SS_FILE_TIMEINDEX, SS_FILE_TXNINDEX, SS_FILE_SNAPSHOT,
	SS_FILE_DELETED,   /* any of the above + ".deleted" */
	SS_FILE_CLEANED,   /* + ".cleaned" */
	SS_FILE_SWAP,      /* + ".swap" */
	SS_FILE_PARTITION_METADATA, SS_FILE_LEADER_EPOCH, SS_FILE_TMP, /* <name>.tmp */
};
/* Classifies a file name. For segment-like files *offset receives the 20-digit prefix
 * (Long.parseLong of the part before the first '.'); otherwise -1. For DELETED, CLEANED
 * and SWAP, *inner receives the kind of the name without that suffix. */
enum ss_file_kind ss_file_classify(const char *name, int64_t *offset, enum ss_file_kind *inner);

/* A KRaft snapshot's name as Snapshots.parse (raft/.../snapshot/Snapshots.java) reads it:
 * `<20-digit end offset>-<10-digit epoch>.checkpoint`; true with *offset and *epoch (a value
 * beyond the type's range is held at its maximum). In-progress `.checkpoint.part` and
 * deleted `.checkpoint.deleted` files are not snapshots to read. */
bool ss_snapshot_name_parse(const char *name, int64_t *offset, int32_t *epoch);

/* ---- checkpoint files (§1.2) ---- */
/* Offset checkpoint ("0\nN\n<topic> <partition> <offset>\n"...). cb returns nonzero to
 * stop. On a format error returns SEGSCAN_ECHECKPOINT and sets *err_line (1-based). An
 * empty file is valid with no entries. */
typedef int (*ss_ckpt_offset_cb)(void *arg, const char *topic, size_t topic_len, int32_t partition, int64_t offset);
int ss_ckpt_parse_offsets(const char *buf, size_t len, ss_ckpt_offset_cb cb, void *arg, int *err_line);

struct ss_epoch_entry { int32_t epoch; int64_t start_offset; };
/* leader-epoch-checkpoint. Writes up to cap entries to out, *n = how many the file has
 * (may exceed cap: call again with a larger array). */
int ss_ckpt_parse_epochs(const char *buf, size_t len, struct ss_epoch_entry *out, size_t cap, size_t *n, int *err_line);

/* partition.metadata: "version: 0\ntopic_id: <base64url>" (§1.5). SEGSCAN_EPARTMETA
 * with *err_line (1 or 2) when malformed. */
int ss_partition_metadata_parse(const char *buf, size_t len, uint8_t topic_id[16], int *err_line);

/* ---- Kafka Uuid text form: base64url without padding, 22 chars (§6.3) ---- */
int  ss_uuid_parse(const char *s, size_t len, uint8_t out[16]);
void ss_uuid_format(const uint8_t id[16], char out[23]);

#endif
