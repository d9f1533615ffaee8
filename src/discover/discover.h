/*
 * Discovery: walk each log dir, parse partition directory names, classify every file,
 * read the small metadata files (partition.metadata, leader-epoch-checkpoint and the
 * log-dir checkpoints). Produces the catalog the workers scan: partitions sorted by
 * (topic bytewise, partition numerically, log dir) and their segments, contiguous per
 * partition in base-offset order.
 *
 * Read-only: every open is O_RDONLY (O_NOATIME where permitted); nothing is created,
 * renamed or locked. Files that vanish between readdir and open are tolerated.
 */
#ifndef SS_DISCOVER_H
#define SS_DISCOVER_H

#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>

#include "model/model.h"

struct ss_logsink;

struct ss_logdir {
	char *path;
	int   fd;        /* O_RDONLY|O_DIRECTORY, kept open for the workers' openat */
	int   err;       /* the log dir itself is missing or unreadable (exit 3) */
	int   node;      /* NUMA node of its block device, -1 unknown */
	/* its meta.properties (fmt/meta_properties.h): the broker that owns it */
	int32_t node_id;     /* node.id (broker.id of a version 0 file); -1 unknown: no file,
				or one that cannot be read or parsed (a problem says which) */
	char   *cluster_id;  /* cluster.id; NULL unknown */
};

struct ss_catalog {
	struct ss_logdir  *logdirs;
	uint32_t           n_logdirs;
	struct ss_part    *parts;
	uint32_t           n_parts;
	struct ss_seg     *segs;
	uint32_t           n_segs;
	struct ss_seg_id  *ids;        /* n_segs, or NULL: the scan does not keep segment
					  identities (only one a later segscan_reuse reads does) */
	struct ss_note    *notes;      /* non-live dirs, leftover and unknown files */
	uint32_t           n_notes;
	struct ss_problem *problems;
	uint32_t           n_problems;
	char             **rlmm_dirs;  /* paths of __remote_log_metadata-N partition dirs */
	uint32_t           n_rlmm_dirs;
	uint32_t           cap_parts, cap_segs, cap_notes, cap_problems, cap_rlmm, cap_ids;
	bool               keep_ids;   /* set by the caller: fill ids (zeroed by discovery,
					  copied from prev with a reused partition) */
	pthread_mutex_t   *mu;         /* set while discovery lists directories on several threads */
	struct ss_logsink *log;        /* common/log.h: progress of the listing; NULL none */
	struct ss_dreuse  *reuse;      /* set by the caller: partitions to take from a previous
					  catalog instead of listing them (NULL: list every one) */
};

/*
 * Partition-level reuse (serve's change detection, segscan_reuse_unchanged): for each
 * live partition directory found in a log dir, discovery asks `unchanged`; when it says
 * yes and `prev` read that partition completely (no problem under its directory, no
 * segment error), the partition and its segments (with the worker's facts) and its notes
 * are copied from prev and marked ss_part.reused: its directory is not listed and no file
 * in it is opened or statted. The log-dir checkpoints are read again for every partition.
 */
struct ss_dreuse {
	const struct ss_catalog *prev;
	bool   (*unchanged)(void *arg, const char *log_dir, const char *dir);
	void    *arg;
	uint32_t reused;               /* out: partitions copied */
	uint32_t reused_segs;          /* out: their segments */
	/* discovery's own, built from prev before the walk (freed by it) */
	uint8_t  *ok;                  /* per prev partition: read completely, may be copied */
	uint32_t *note_first, *note_n; /* per prev partition: its notes in note_idx */
	uint32_t *note_idx;
	int32_t  *prev_li;             /* per log dir: the same path's index in prev, or -1 */
};
/* Frees discovery's own arrays in ru (idempotent; ss_discover_mt calls it on its way out). */
void ss_dreuse_release(struct ss_dreuse *ru);

/* Open the log dirs (a missing or unreadable one is recorded in its err, not fatal) and
 * walk them. Returns 0 or -ENOMEM. */
int  ss_discover(struct ss_catalog *cat, char *const *paths, uint32_t n);
/* The same, listing partition directories on up to nthreads threads (this one included). */
int  ss_discover_mt(struct ss_catalog *cat, char *const *paths, uint32_t n, unsigned nthreads);
void ss_catalog_free(struct ss_catalog *cat);

/* Record a problem (used by every stage after discovery too). */
int  ss_catalog_problem(struct ss_catalog *cat, const char *path, int err, int64_t where,
			bool data_loss, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* "<dir>/<20-digit base>.<ext>" (relative to the partition's log dir fd) into buf;
 * returns the length or -ENAMETOOLONG. */
int  ss_seg_relpath(const struct ss_catalog *cat, const struct ss_seg *s, const char *ext,
		    char *buf, size_t len);

#endif
