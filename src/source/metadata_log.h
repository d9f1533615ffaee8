/*
 * The KRaft metadata log on disk as a source: finds __cluster_metadata-0, picks the
 * newest complete snapshot, replays it and then the log segments after it into a
 * cluster image (cluster_image.h), the way a broker's MetadataLoader would see it.
 *
 * Layout (raft/src/main/java/org/apache/kafka/snapshot/Snapshots.java,
 * storage/.../log/LogFileUtils): snapshots are `<20-digit end offset>-<10-digit epoch>
 * .checkpoint` (in-progress `.checkpoint.part` and deleted `.checkpoint.deleted` files are
 * ignored), each a sequence of v2 batches from a SnapshotHeader control record to a
 * SnapshotFooter control record holding the state of every record below its end offset;
 * log segments are `<20-digit base offset>.log`.
 *
 * Read-only: files are opened O_RDONLY and read through source/logread.h in bounded
 * windows (segments can be 1 GiB; zeros after the last batch are checked to the end of the
 * file without reading its holes); nothing is written, renamed or locked. A torn or corrupt file is a
 * warning in the image ("FILE: byte POS: problem"), never a failure of the replay: a
 * snapshot is checked whole (framing, every batch's CRC-32C, header and footer) before
 * any of it is applied, and a torn or corrupt one falls back to the next older one; a log
 * batch whose CRC-32C fails is skipped and the replay goes on after it. Whatever could
 * not be applied is marked in the image (ss_cimage_mark_lost), so that the facts it could
 * have changed are reported unknown, and a closing warning (the first of the image's,
 * and one on the log sink) says why and what is unknown.
 */
#ifndef SS_SOURCE_METADATA_LOG_H
#define SS_SOURCE_METADATA_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "source/cluster_image.h"

#define SS_MLOG_DIRNAME "__cluster_metadata-0"

struct ss_mlog_info {
	char    *dir;               /* the __cluster_metadata-0 directory that was read */
	char    *snapshot;          /* file name of the snapshot used; NULL: none */
	int64_t  snapshot_offset;   /* its end offset (it holds every record below); -1: none */
	int32_t  snapshot_epoch;    /* -1: none */
	int64_t  log_start_offset;  /* base offset of the first log segment; -1: no segment */
	int64_t  last_offset;       /* the last offset applied (snapshot end - 1 or a log record); -1 */
	int32_t  last_epoch;        /* leader epoch of that record's batch (or the snapshot's); -1 */
	uint64_t bytes_read;
	uint64_t records_replayed;  /* record values offered to an image, rejected snapshots' included */
	uint32_t segments;          /* log segments found */
	uint32_t snapshots_found;
	uint32_t snapshots_rejected;/* newer snapshots passed over because torn or corrupt */
	bool     history_incomplete;/* the replay could not start at offset 0 or at a snapshot,
				       or the log has a gap: earlier state is missing */
	bool     complete;          /* every file chosen was read to its end without a problem,
				       and every record of them applied (false whenever lost) */
	unsigned lost;              /* what the replay could not apply (SS_CI_LOST_* of
				       cluster_image.h): 0 when the image is the cluster's metadata
				       at last_offset, even if a newer snapshot was unreadable */
	int32_t  node_id;           /* node.id of the log dir's meta.properties; -1 unknown */
	char    *cluster_id;        /* cluster.id of meta.properties; NULL unknown */
};

/*
 * Resolve `path` (the __cluster_metadata-0 directory itself, or a log dir holding it) to
 * the metadata log directory. 0 and *out (malloc'd), or -ENOENT / -ENOMEM.
 */
int ss_mlog_find(const char *path, char **out);

/*
 * Replay the metadata log found at `path` (as for ss_mlog_find). On 0, *img is the
 * replayed image (free with ss_cimage_free) and *info describes what was read (free with
 * ss_mlog_info_free); problems in the files are warnings in the image, not errors.
 * Errors: -ENOENT (no metadata log there), -ENOMEM, or the errno of opening the
 * directory itself.
 */
int  ss_mlog_replay(const char *path, struct ss_cimage **img, struct ss_mlog_info *info);
/* The same, reporting progress (bytes) to a scan's log sink (common/log.h; NULL none). */
struct ss_logsink;
int  ss_mlog_replay_log(const char *path, struct ss_cimage **img, struct ss_mlog_info *info,
			struct ss_logsink *log);
void ss_mlog_info_free(struct ss_mlog_info *info);

#endif
