/*
 * The results of one scan as the outputs (src/out/) and the public API's accessors read
 * them: a read-only view that the scan fills when segscan_run() returns. Writers take
 * `const struct ss_results *` and nothing of the scanner, so a test can build a view by
 * hand and check each format byte for byte.
 *
 * The arrays point into the scan's own storage and live as long as the scan. Partitions
 * are sorted by (topic bytewise, partition numerically, log dir); each partition's
 * segments are contiguous in `segs` (ss_part.seg_first, seg_count) in base-offset order;
 * ss_part.eval is the partition's evaluation, NULL when it was not evaluated.
 *
 * Growth goes here, not into the writers' arguments: per partition (ss_part, ss_eval)
 * its effective config with each value's source, its assignment, its own errors[];
 * per segment (ss_seg) preallocated bytes and remote-state-unknown; in the summary a
 * `broker` object (see the comment in struct ss_results).
 */
#ifndef SS_MODEL_RESULTS_H
#define SS_MODEL_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/evaluation.h"   /* struct ss_eval: a partition's evaluation (ss_part.eval) */
#include "model/gauges.h"       /* struct ss_broker_gauges: --broker-metrics */
#include "model/model.h"

struct ss_res_logdir {
	const char *path;       /* as given (or from log.dirs) */
	int         err;        /* 0, or why the log dir is missing or unreadable (exit 3) */
	int         node;       /* NUMA node of its block device, -1 unknown */
	int32_t     node_id;    /* the broker that owns it (its meta.properties node.id), -1 unknown */
	const char *cluster_id; /* its meta.properties cluster.id, NULL unknown */
};

/* --horizon, per log dir: its filesystem's free bytes (statvfs), and after the forecast's
 * local deletes of its partitions; -1 unknown */
struct ss_res_space {
	int64_t free_bytes, free_bytes_after;
};

/* Wall time of each stage in seconds. Stages overlap: remote state with discovery,
 * evaluation with the scan; total is the wall time of segscan_run. */
struct ss_res_times {
	double discover, remote, scan, evaluate;
	double cluster;          /* replaying the KRaft metadata log */
	double total;
};

/* One worker thread, for --stats. */
struct ss_res_worker {
	int      node;          /* NUMA node served, -1 any */
	bool     pinned;
	char     cpus[96];      /* cpulist it was pinned to */
	uint64_t segments;
};

/* How the scan ran: the summary facts every format prints. */
struct ss_res_run {
	bool        verify;          /* --verify: every byte read */
	const char *io;              /* engine used ("uring", "mmap", "pread"; "" before a run) */
	bool        io_fell_back;    /* the requested engine was unavailable */
	unsigned    threads;         /* worker threads */
	unsigned    queue_depth;
	int64_t     bytes_read;      /* from segment and index files */
	const char *remote_source;   /* "remote-state" | "metadata-topic" | NULL: no remote metadata */
	uint64_t    remote_warnings; /* remote events dropped or warned about */
	int         exit_code;       /* the contract's: 0, 1, 2 or 3 */
	bool        metrics_topic;   /* --metrics-level=topic: prom writes per-topic sums */
	bool        metrics_extra;   /* --metrics-extra: prom writes the extra partition series */
	int64_t     horizon_ms;      /* --horizon, 0 when not given (ss_eval.forecast) */
	struct ss_res_times times;
};

/* The pipeline's own counters (--stats). */
struct ss_res_pipeline {
	uint64_t syscalls, submissions;
	uint64_t tasks_peak;         /* segments in flight in one worker, at most */
	uint64_t ring_stalls;        /* a full ring made a worker wait for the evaluator */
	bool     reuse;              /* an incremental rescan (segscan_reuse) */
	uint64_t reused;             /* closed segments taken from the previous scan */
	bool     evict;              /* --evict */
	uint64_t evicted_bytes;
	const struct ss_res_worker *workers;
	unsigned n_workers;
};

/* What the cluster context says and where it came from (summary.broker, the summary
 * line's sources). Strings live as long as the scan; NULL where unknown. */
struct ss_res_cluster {
	bool        metadata_log;        /* a KRaft metadata log was replayed */
	const char *metadata_dir;        /* the __cluster_metadata-0 that was read */
	const char *metadata_why_not;    /* why none was read */
	const char *snapshot;            /* the snapshot it started from */
	int64_t     last_offset;         /* the last metadata offset applied, -1 */
	uint64_t    records;             /* metadata records read */
	uint64_t    warnings;            /* malformed, unknown or inconsistent records and torn files */
	const char *const *warning_texts;/* the first of them spelled out ("FILE: byte POS: problem") */
	uint32_t    n_warning_texts;
	bool        complete;            /* every chosen file read to its end */
	const char *configs_from;        /* "metadata log" | "cluster" (DescribeConfigs) | NULL: dynamic
					    configs unknown */
	const char *configs_error;       /* why the cluster's could not be fetched */
	const char *static_config;       /* the server.properties read, NULL none */
	const char *static_config_how;   /* "--server-properties", "the running broker's (pid N)", or
					    "not read (why)" */
	int32_t     node_id;             /* -1 unknown */
	const char *cluster_id;
	const char *kafka_version;       /* "4.3.1", "4.4", or what the metadata.version implies */
	bool        kafka_version_known; /* kafka_version is exact or one release line, not a level
					    two lines share */
	const char *kafka_version_source;/* "--kafka-version" | "metadata log" */
	const char *kafka_version_note;  /* what else the metadata.version level can mean */
	const char *metadata_version;    /* the finalized metadata.version as Kafka names it */
	int         metadata_version_level; /* 0 unknown */
	int         supported_metadata_version; /* this node's highest, 0 unknown */
	/* remote metadata: how many of the scanned tiered partitions have it */
	uint32_t    tiered_partitions, remote_known_partitions;
	int32_t     rlmm_partitions;     /* __remote_log_metadata's partition count, -1 */
	uint32_t    rlmm_local;          /* of them in the scanned log dirs */
};

/* --remote-store: the store and what its audit found (model/audit.h has the types; the
 * view only points at them). Per partition the audit is ss_eval.remote_store. */
struct ss_audit_part;
struct ss_audit_totals;
struct ss_res_store_part {
	const struct ss_audit_part *ap;  /* a partition of the store or the metadata that no reported
					    partition is (another broker's, a deleted topic's) */
	const struct ss_eval       *ev;  /* its findings and remote_store (only those fields are set) */
};
struct ss_res_store {
	const char *uri;                 /* the store as messages name it (no credentials) */
	const char *layout;              /* "local-tiered-storage" | "aiven" */
	const struct ss_audit_totals *totals;  /* NULL: the listing never started */
	const char *error;               /* why the listing stopped early, NULL: it completed */
	uint64_t    requests;
	double      seconds;
	const struct ss_res_store_part *others;
	uint32_t    n_others;
};

struct ss_results {
	const struct ss_res_logdir *logdirs;
	uint32_t                    n_logdirs;
	const struct ss_res_space  *space;     /* --horizon: n_logdirs of them; NULL otherwise */
	const struct ss_part       *parts;
	uint32_t                    n_parts;
	const struct ss_part       *all_parts; /* every partition, for ss_seg.part (set when
						  --topic/--findings-only leave parts a subset;
						  NULL: parts is all) */
	uint32_t                    n_all_parts; /* their count (with all_parts) */
	const struct ss_seg        *segs;
	uint32_t                    n_segs;
	const struct ss_note       *notes;     /* non-live dirs, leftover and unknown files */
	uint32_t                    n_notes;
	const struct ss_problem    *problems;  /* places that could not be read; segments with
						  ss_seg.err (not VANISHED) are errors too */
	uint32_t                    n_problems;
	struct ss_res_run           run;
	struct ss_res_pipeline      pipeline;
	struct ss_res_cluster       cluster;
	const struct ss_res_store  *store;     /* --remote-store, NULL without */
	/* --broker-metrics: each endpoint's gauges (model/gauges.h), per broker and topic, in
	 * the order given; listed once, never on a partition's row (a topic's gauge covers the
	 * partitions its broker leads) */
	const struct ss_broker_gauges *const *gauges;
	uint32_t                    n_gauges;
	/* --broker-metrics (issue 27): per (broker, topic) with delete-lag gauges, the broker's
	 * RemoteDeleteLag* beside the true delete lag of the partitions it leads, and
	 * PHANTOM_DELETE_LAG; ordered by broker, then as the broker's gauges list the topics */
	const struct ss_topic_dellag *topic_dellag;
	uint32_t                    n_topic_dellag;
};

/* The log dir a partition lives in. */
static inline const char *ss_res_logdir_of(const struct ss_results *r, const struct ss_part *p)
{
	return r->logdirs[p->logdir].path;
}

/* The partition a segment belongs to (ss_seg.part indexes every partition). */
static inline const struct ss_part *ss_res_part_of_seg(const struct ss_results *r, const struct ss_seg *sg)
{
	return &(r->all_parts ? r->all_parts : r->parts)[sg->part];
}

/* Does this segment carry an error the report lists? (A vanished segment is not one.) */
static inline bool ss_res_seg_failed(const struct ss_seg *sg)
{
	return ss_seg_err(sg) && !(sg->flags & SS_SEG_VANISHED);
}

/* "<dir>/<20-digit base>.<ext>" of the file a segment's error refers to ("log",
 * "index" or "timeindex" per ss_seg.err_file), relative to its log dir. */
int ss_res_seg_errfile(const struct ss_results *r, const struct ss_seg *sg, char *buf, size_t len);

/* Does a problem's path name this partition's directory or a file in it? Problem paths are
 * the log dir's path plus a relative one (ss_problem); a relative path is taken as one.
 * The one rule for json's errors[], the read-errors metric and the public accessors. */
bool ss_res_problem_of(const struct ss_results *r, const struct ss_part *p, const char *path);

/* The contract's exit code from what the scan found: 3 a log dir is missing or
 * unreadable, 1 data unreadable or failing verification, else 0. (2, a usage error, is
 * the scan's to say: it is in run.exit_code.) */
int ss_results_exit_code(const struct ss_results *r);

#endif
