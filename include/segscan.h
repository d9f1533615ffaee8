/*
 * segscan — read Kafka broker log dirs and tell the truth about tiered storage.
 *
 * Public API. Every function returns 0 or a negative error: a negative errno, or one of
 * the SEGSCAN_E* format errors below (a private range that cannot collide with errno).
 * segscan_strerror() names both. Structs are opaque; results are read with accessors.
 *
 * Arguments and state, the same for every entry point (tests/test_api.c calls each):
 *   - a NULL handle, partition or required pointer is refused: -EINVAL from a function
 *     that returns an int, and 0, NULL or -EINVAL (each says which) from one that returns
 *     a count, a pointer or a value. Nothing dereferences a NULL it was given.
 *     segscan_scan_free(NULL) and segscan_cancel(NULL) do nothing.
 *   - a handle is set up (segscan_set, segscan_add_logdir, segscan_reuse,
 *     segscan_reuse_unchanged, segscan_set_log), run once (segscan_run), then read. A
 *     setter called while segscan_run runs, on any thread, returns -EBUSY and changes
 *     nothing; called after the run, -EALREADY. A second segscan_run returns -EBUSY while
 *     the first runs, -EALREADY after it. These refusals leave segscan_last_error() as
 *     it was (it belongs to the run).
 *   - the results are read after segscan_run returns (before it, they are those of an
 *     empty scan). A results function called while the run runs returns -EBUSY (or 0 /
 *     NULL, as it says): the check is exact for a reader that calls during the run; one
 *     that races with the run's start is still the caller's race to avoid.
 *   - segscan_scan_free must not be called while segscan_run runs.
 *
 *   segscan_scan *s;
 *   segscan_scan_new(&s);
 *   segscan_set(s, "threads", "4");          // any scan option by its CLI name
 *   segscan_add_logdir(s, "/var/lib/kafka");
 *   segscan_run(s);                          // discovery, workers, evaluator
 *   for (size_t i = 0; i < segscan_partition_count(s); i++) { ... }
 *   segscan_write(s, SEGSCAN_FMT_JSON, stdout);
 *   segscan_scan_free(s);
 */
#ifndef SEGSCAN_H
#define SEGSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "segscan_version.h" /* SEGSCAN_VERSION_MAJOR/MINOR/PATCH, SEGSCAN_CHECK_VERSION */

#ifdef __cplusplus
extern "C" {
#endif

/* Format errors: -(SEGSCAN_EBASE + n). Kept far above the largest errno (4095). */
#define SEGSCAN_EBASE 10000
enum segscan_err {
	SEGSCAN_ECORRUPT    = -(SEGSCAN_EBASE + 1),  /* record batch framing is corrupt */
	SEGSCAN_ECRC        = -(SEGSCAN_EBASE + 2),  /* batch CRC does not match */
	SEGSCAN_EMAGIC      = -(SEGSCAN_EBASE + 3),  /* unknown record batch magic */
	SEGSCAN_EINDEX      = -(SEGSCAN_EBASE + 4),  /* index inconsistent with its log */
	SEGSCAN_ECHECKPOINT = -(SEGSCAN_EBASE + 5),  /* malformed checkpoint file */
	SEGSCAN_EDIRNAME    = -(SEGSCAN_EBASE + 6),  /* not a <topic>-<partition> directory */
	SEGSCAN_EVARINT     = -(SEGSCAN_EBASE + 7),  /* malformed varint */
	SEGSCAN_ESCHEMA     = -(SEGSCAN_EBASE + 8),  /* message does not fit its schema */
	SEGSCAN_ETRANSITION = -(SEGSCAN_EBASE + 9),  /* illegal remote segment state transition */
	SEGSCAN_EJSON       = -(SEGSCAN_EBASE + 10), /* malformed JSON input */
	SEGSCAN_ECONFIG     = -(SEGSCAN_EBASE + 11), /* malformed config line or value */
	SEGSCAN_ECODEC      = -(SEGSCAN_EBASE + 12), /* compression codec unsupported or stream corrupt */
	SEGSCAN_ETRUNC      = -(SEGSCAN_EBASE + 13), /* input ends inside a structure */
	SEGSCAN_EUNKNOWNSEG = -(SEGSCAN_EBASE + 14), /* update for an unknown remote segment */
	SEGSCAN_EMISMATCH   = -(SEGSCAN_EBASE + 15), /* value contradicts another source */
	SEGSCAN_ENOTREG     = -(SEGSCAN_EBASE + 16), /* a FIFO, device, socket or directory where a file belongs */
	SEGSCAN_EPARTMETA   = -(SEGSCAN_EBASE + 17), /* malformed partition.metadata */
	SEGSCAN_ENOTLOGDIR  = -(SEGSCAN_EBASE + 18), /* a directory that is not a Kafka log dir */
	SEGSCAN_ELAST       = -(SEGSCAN_EBASE + 19),
};

/* Works for negative errno values and SEGSCAN_E* alike. Never returns NULL. */
const char *segscan_strerror(int err);
const char *segscan_version(void);

typedef struct segscan_scan segscan_scan;
typedef struct segscan_partition segscan_partition;

enum segscan_format { SEGSCAN_FMT_TABLE, SEGSCAN_FMT_JSON, SEGSCAN_FMT_NDJSON, SEGSCAN_FMT_PROM };

/* -EINVAL for out NULL, -ENOMEM. */
int  segscan_scan_new(segscan_scan **out);
void segscan_scan_free(segscan_scan *s);

/*
 * Set a scan option by its long CLI name without dashes; `segscan scan --help` documents
 * each (both come from one table, src/lib/options.c, which tests/test_options.c checks
 * this list against):
 *   "verify", "remote-state", "remote-metadata", "seed" (repeatable), "topic-config",
 *   "server-properties", "metadata-dir", "cluster-metadata", "kafka-version",
 *   "bootstrap-server", "kafka-config", "kafka-timeout", "kafka-deadline", "broker-process",
 *   "broker-metrics" ([NODE_ID=]URL, repeatable: one per broker), "broker-metrics-names",
 *   "broker-metrics-timeout", "http.config.file", "proc-root",
 *   "topic", "partition" (repeatable), "findings-only",
 *   "metrics-level" ("partition" or "topic": what the prom format writes), "metrics-extra",
 *   "now", "dangling-after", "stuck-after" (a duration: "5m", "90s", "300000"), "horizon" (a duration: "1d"),
 *   "disable-tiering" (a topic: the what-if of the forecast),
 *   "threads", "io", "queue-depth",
 *   "numa", "stats", "progress", "quiet", "numa-topology", the remote-store audit's
 *   "remote-store" (file:///DIR or s3://BUCKET[/PREFIX]?...), "remote-layout"
 *   ("local-tiered-storage" or "aiven"), "deep" and "rate" (store requests/s, 0 =
 *   unlimited), and the options a polite
 *   background scanner wants: "max-read-rate" (bytes/s over all workers, 0 =
 *   unlimited), "io-priority" ("idle" or "normal": ioprio class of every submission),
 *   "evict" ("true": drop from the page cache exactly the pages this scan brought in,
 *   checked with mincore before reading), "avoid-cpus" (a cpulist the workers must
 *   not run on).
 * Flags ("verify", "stats", "progress", "quiet", "evict") take true/false, 1/0, yes/no,
 * on/off, or NULL for true. "quiet" stops progress events to the log callback
 * (segscan_set_log); "progress" is the CLI's (progress lines off a terminal) and changes
 * nothing in the library.
 * Returns -EINVAL for an unknown name (or s or name NULL) and a SEGSCAN_E* error or a
 * negative errno for a bad value; the message for the last failure is available from
 * segscan_last_error(). -EBUSY during segscan_run, -EALREADY after it.
 */
int segscan_set(segscan_scan *s, const char *name, const char *value);
/* Returns 0, -EINVAL (s or path NULL), -ENOMEM, -EBUSY during segscan_run, -EALREADY after. */
int segscan_add_logdir(segscan_scan *s, const char *path);
/* The message of the last failure; never NULL ("no error", or a fixed text for s NULL). */
const char *segscan_last_error(const segscan_scan *s);

/*
 * Incremental rescans (serve): closed segments are immutable, so a segment of `prev`
 * (same log dir, partition dir and base offset, closed then and now) whose device,
 * inode, size and mtime are unchanged is taken from `prev` after one statx instead of
 * being read again. `prev` must stay alive until segscan_run() returns. Only a scan that
 * was itself set up with segscan_reuse() keeps what a later one compares (about 24 bytes
 * per segment), so a caller that rescans calls it on its first scan too, with prev NULL;
 * a prev without them is still accepted, and its segments are simply read again.
 * Returns 0, -EINVAL (s NULL, prev == s, or a prev that has not finished its run),
 * -EBUSY during s's segscan_run, -EALREADY after it.
 */
int segscan_reuse(segscan_scan *s, const segscan_scan *prev);

/*
 * Partition-level reuse, for a caller that watches the log dirs (serve: inotify, see
 * docs/serve.md). Before segscan_run, name a function that tells whether a partition
 * directory is known unchanged since `prev` (segscan_reuse) started: no entry created,
 * deleted or renamed in it, no file written, truncated or re-attributed. Discovery asks
 * it once per live partition directory it finds (log_dir as given to segscan_add_logdir,
 * dir the directory's name), on the thread that runs segscan_run; it must not call into
 * s. On yes, that directory is not listed and none of its files is opened or statted:
 * the partition's segments and their facts are taken from prev whole, and only its
 * evaluation (time, configs, remote state, the log-dir checkpoints) is made again.
 * Partitions prev did not read completely (an error or problem under the directory) and
 * the metadata topics are read as usual whatever the answer. Without segscan_reuse it
 * has no effect; fn NULL turns it off. Returns 0, -EINVAL (s NULL), -EBUSY during
 * segscan_run, or -EALREADY after it.
 */
typedef bool (*segscan_unchanged_fn)(void *arg, const char *log_dir, const char *dir);
int segscan_reuse_unchanged(segscan_scan *s, segscan_unchanged_fn fn, void *arg);
/* After segscan_run: the partitions taken whole from prev (their segments are counted in
 * segscan_scan_stats.segments_reused too). 0 for s NULL or during the run. */
uint64_t segscan_partitions_reused(const segscan_scan *s);

/* ---- Messages and progress: the log callback ------------------------------------------
 *
 * The library never writes to stderr (an embedder's stderr is the embedder's): every
 * warning, error note and progress report of a scan goes to the callback set here, and
 * without one it is dropped. What it reports is also in the results (a warning that
 * matters to a partition is one of its errors or findings), so dropping loses nothing a
 * report holds. The segscan CLI sets a callback that prints "segscan: warning: ..."
 * lines and draws the progress line.
 *
 * Threads: the callback is called only while segscan_run(s) runs, from the thread that
 * called it or from the threads it starts (discovery listers, the remote-state reader,
 * the evaluator). Calls for one scan are serialized (the library holds a per-scan lock
 * around each call): the callback never runs twice at once for the same scan, and needs
 * no lock of its own for state only that scan's callback touches. Two scans run by two
 * threads may call their callbacks at the same time. The callback must return soon (a
 * pipeline thread waits for it) and must not call into the same scan, except
 * segscan_cancel(), which it may call.
 *
 * Ownership and lifetime: `ev` and every string it points to belong to the library and
 * are valid only during the call; copy what you keep. `user` is passed back untouched;
 * it must stay valid until segscan_run() returns or the callback is replaced.
 *
 * Growth: ev->size is sizeof(struct segscan_log_event) of the library that calls; fields
 * are only ever added in the reserved space (zero until then), so a callback built
 * against an older header reads what it knows.
 */
enum segscan_log_level {
	SEGSCAN_LOG_ERROR,    /* a source could not be used; the scan goes on without it */
	SEGSCAN_LOG_WARNING,  /* something the operator should fix or know (the CLI's "warning:") */
	SEGSCAN_LOG_INFO,     /* what the scan is doing; progress events have this level */
	SEGSCAN_LOG_DEBUG,
};

enum segscan_log_kind {
	SEGSCAN_LOG_MESSAGE,  /* level and message */
	SEGSCAN_LOG_PROGRESS, /* phase, done, total, unit, what, final */
};

/* The stages of segscan_run, in the order they start; a stage with nothing to do (no
 * metadata log, no local __remote_log_metadata) sends no event. SCAN and EVALUATION run
 * at the same time (a partition is evaluated when its last segment is in), and so do
 * DISCOVERY and REMOTE_STATE when the remote state is a --remote-state file (read on a
 * thread beside discovery). Read from the live cluster (--bootstrap-server), the remote
 * state counts records with no total until its final event. */
enum segscan_phase {
	SEGSCAN_PHASE_DISCOVERY = 1,  /* partition directories listed (items) */
	SEGSCAN_PHASE_METADATA_LOG,   /* the KRaft metadata log replayed (bytes) */
	SEGSCAN_PHASE_REMOTE_STATE,   /* the local __remote_log_metadata partitions replayed
					 (bytes), a --remote-state file's events or the live
					 cluster's records (items) */
	SEGSCAN_PHASE_SCAN,           /* segments read (items) */
	SEGSCAN_PHASE_EVALUATION,     /* partitions evaluated (items) */
	SEGSCAN_PHASE_REMOTE_STORE,   /* --remote-store: objects listed (items, no total); runs
					 beside SCAN and EVALUATION */
};

enum segscan_unit { SEGSCAN_UNIT_ITEMS, SEGSCAN_UNIT_BYTES };

struct segscan_log_event {
	size_t                 size;    /* sizeof(struct segscan_log_event), set by the library */
	enum segscan_log_kind  kind;
	enum segscan_log_level level;
	const char            *message; /* MESSAGE: one line, no newline, no "segscan:" prefix;
					   PROGRESS: NULL */
	/* PROGRESS only (zero for a MESSAGE): */
	enum segscan_phase     phase;
	enum segscan_unit      unit;
	const char            *what;    /* plural noun of the items: "partition directories",
					   "segments", "partitions", "bytes" */
	uint64_t               done;    /* never decreases within a phase */
	uint64_t               total;   /* 0: not known yet */
	bool                   final;   /* the phase's last event: done is its end (done ==
					   total when the total was known and it completed) */
	uint64_t               reserved[8];
};

typedef void (*segscan_log_fn)(void *user, const struct segscan_log_event *ev);

/* Sets s's callback (NULL: drop everything, the default). Messages above max_level
 * (SEGSCAN_LOG_WARNING: errors and warnings only) are not delivered. Progress events are
 * delivered when max_level >= SEGSCAN_LOG_INFO and the "quiet" option is off, at most
 * about four a second per phase (the library throttles), plus each phase's first and
 * final event. Call before segscan_run(). Returns 0, -EINVAL for s NULL or a bad level,
 * -EBUSY during segscan_run(), -EALREADY after it. */
int segscan_set_log(segscan_scan *s, segscan_log_fn fn, void *user, enum segscan_log_level max_level);

/* Signals: with "io" = "mmap" (never the default), and with "verify" of a segment
 * larger than 1 MiB (walked in place in a mapping, zero-copy, whatever "io" is),
 * segscan_run installs a process-wide SIGBUS handler (a file Kafka truncates under the
 * mapping faults): it handles faults inside its own accesses to mapped files and passes
 * every other SIGBUS to the action that was installed before it. No other signal
 * disposition is changed by the library (the CLI's Ctrl-C handling is the CLI's own).
 *
 * Runs discovery, the workers and the evaluator. A scan runs once: -EBUSY while another
 * thread runs it, -EALREADY after; -EINVAL for s NULL. Returns -ECANCELED when
 * segscan_cancel() stopped it (its results are then incomplete). */
int segscan_run(segscan_scan *s);

/* Ask a running segscan_run() to stop soon: no segment is started after it, those in
 * flight finish. Safe from any thread and from a signal handler (one atomic store);
 * s must stay alive until segscan_run() returns. */
void segscan_cancel(segscan_scan *s);

/* Exit code for the CLI per the contract: 0 complete, 1 some data unreadable or failed
 * verification, 3 a LOGDIR missing or unreadable. (2, usage, is decided before running.)
 * -EINVAL for s NULL, -EBUSY during the run. */
int segscan_exit_code(const segscan_scan *s);

/* 0 for s NULL or during the run. */
size_t segscan_partition_count(const segscan_scan *s);
/* NULL for s NULL, i out of range, or during the run. */
const segscan_partition *segscan_partition_at(const segscan_scan *s, size_t i);
/* For p NULL: NULL (strings), -EINVAL (id, sizes, offsets), 0 (counts). */
const char *segscan_partition_topic(const segscan_partition *p);
int32_t     segscan_partition_id(const segscan_partition *p);
const char *segscan_partition_log_dir(const segscan_partition *p);
size_t      segscan_partition_segment_count(const segscan_partition *p);
int64_t     segscan_partition_size_bytes(const segscan_partition *p);
int64_t     segscan_partition_log_end_offset(const segscan_partition *p);

/* Writes the report in one of the contract's formats. SEGSCAN_FMT_TABLE fits the table to
 * the environment's COLUMNS when it is a number, else to the width of `out` when that is a
 * terminal (TIOCGWINSZ on fileno(out)); otherwise it writes the full table. Writers
 * return 0, -EIO for a stream error, -EINVAL for a NULL argument or an unknown format,
 * -EBUSY during the run. */
int segscan_write(const segscan_scan *s, enum segscan_format fmt, FILE *out);
/* The Prometheus exposition with the scanner's own counters supplied by the caller
 * (serve keeps them cumulative across scans). */
struct segscan_counters {
	double   duration_seconds;
	uint64_t segments_total;
	uint64_t bytes_read_total;
	uint64_t errors_total;
};
int segscan_write_prom(const segscan_scan *s, const struct segscan_counters *c, FILE *out);
/* This scan's own counters: segments scanned, segments reused, bytes read, errors,
 * and the wall time of discovery + remote state + scan. */
struct segscan_scan_stats {
	double   seconds;
	uint64_t segments;
	uint64_t segments_reused;
	uint64_t bytes_read;
	uint64_t errors;
};
/* 0, -EINVAL (a NULL argument), -EBUSY during the run. (It returned void in earlier
 * versions: a caller that ignores the result is unaffected.) */
int segscan_get_stats(const segscan_scan *s, struct segscan_scan_stats *out);
/* One partition in the json format (the same object as in the json/ndjson reports). */
int segscan_write_partition_json(const segscan_scan *s, const segscan_partition *p, FILE *out);

/* Pipeline statistics (--stats) as text. */
int segscan_write_stats(const segscan_scan *s, FILE *out);

/* ---- Results in detail: what an embedder reads without parsing JSON -----------------
 *
 * Ownership and lifetime: every pointer returned here (strings, partitions) is owned by
 * the scan and valid until segscan_scan_free(s); never free it. Thread safety: the
 * results are read-only after segscan_run() returns: any number of threads may read
 * them at once (no accessor writes to the scan). Reading during segscan_run() is not
 * allowed.
 *
 * Each value is its json report counterpart (docs/contract.md, Output; the names below
 * are the json field names); a value json prints as null is reported as "unknown" by a
 * has-flag, a -1 sentinel or -ENODATA, as each accessor says.
 *
 * Growth: the structs below start with `size`, which the caller sets to
 * sizeof(struct ...) as its header declares it; the library fills only that many bytes,
 * so a program built against an older header keeps working with a newer library. Each
 * ends in reserved space that later versions turn into fields (zero until then); do not
 * read it. An accessor returns -EINVAL when `size` is smaller than the first version of
 * its struct.
 */

/* One segment of a partition (json: partitions[].segments[i]). */
struct segscan_segment {
	size_t   size;               /* caller sets sizeof(struct segscan_segment) */
	int64_t  base_offset;
	int64_t  last_offset;        /* valid with has_last_offset (the segment holds a batch) */
	int64_t  end_offset;         /* valid with has_end_offset (an empty active segment has none) */
	int64_t  size_bytes;         /* valid with has_size_bytes (unknown when it failed before
					its size was read) */
	int64_t  valid_bytes;
	int64_t  max_timestamp_ms;   /* -1: unknown (json null) */
	int32_t  error;              /* 0, or why the segment could not be read: a negative errno or
					SEGSCAN_E* (segscan_strerror; json: the segment's "error"
					and an entry in the partition's errors) */
	int8_t   only_local;         /* 1, 0, or -1 unknown (json null: tiered but unseeded) */
	bool     has_last_offset, has_end_offset, has_size_bytes;
	bool     active;
	bool     preallocated;       /* a zero-filled allocation after the last batch */
	uint64_t reserved[8];
};
/* Fills *out with segment i (0 <= i < segscan_partition_segment_count(p), base-offset
 * order) of p, a partition of s. Returns 0, -ENOENT for i out of range, -EINVAL. */
int segscan_partition_segment(const segscan_scan *s, const segscan_partition *p, size_t i,
			      struct segscan_segment *out);

/* The partition's remote state (json: partitions[].remote). */
struct segscan_remote {
	size_t      size;            /* caller sets sizeof(struct segscan_remote) */
	bool        seeded;          /* the highest remote offset is known */
	bool        remote_state_unknown; /* tiered, but no source gives its remote state (the
					     REMOTE_STATE_UNKNOWN finding) */
	int64_t     highest_offset;  /* valid when seeded */
	const char *source;          /* "remote-state" | "metadata-topic" | "seed" | ... ; NULL none */
	int64_t     segments;        /* remote segments (json: segments) */
	int64_t     size_bytes;      /* their bytes */
	int64_t     dangling_segments;
	int64_t     dangling_bytes;
	bool        counts_unknown;  /* segments, size_bytes, dangling_*: unknown, each -1 (json
					null): tiered without remote state, tiering unknown, or a
					corrupt remote metadata batch concerns the partition */
	uint64_t    reserved[7];
};
/* Returns 0, -ENODATA when json prints remote as null (the partition was not evaluated
 * or its directory could not be read), -EINVAL. */
int segscan_partition_remote(const segscan_partition *p, struct segscan_remote *out);

enum segscan_lag {
	SEGSCAN_LAG_ONLY_LOCAL,      /* json: only_local */
	SEGSCAN_LAG_COPY,            /* json: copy_lag */
	SEGSCAN_LAG_BROKER_COPY,     /* json: broker_copy_lag (what the broker's gauges report) */
};
/* *segments and *bytes (either may be NULL) of one lag. Returns 0, -ENODATA when json
 * prints it as null (e.g. only_local and copy_lag of a tiered partition that is not
 * seeded, broker_copy_lag of a non-tiered topic), -EINVAL for an unknown `which`. */
int segscan_partition_lag(const segscan_partition *p, enum segscan_lag which, int64_t *segments,
			  int64_t *bytes);

enum segscan_retention_kind {
	SEGSCAN_RETENTION_SIZE,      /* json: retention.size (retention.bytes) */
	SEGSCAN_RETENTION_TIME,      /* json: retention.time (retention.ms) */
	SEGSCAN_RETENTION_LOCAL,     /* json: retention.local (local.retention.*) */
};
struct segscan_retention {
	size_t      size;            /* caller sets sizeof(struct segscan_retention) */
	bool        evaluated;
	const char *reason;          /* why not evaluated; NULL when evaluated */
	uint64_t    delete_segments; /* how many segments it would delete (json: the length of
					delete_segments) */
	int64_t     delete_bytes;
	uint64_t    reserved[8];
};
/* Returns 0, -ENODATA when json prints retention as null, -EINVAL. */
int segscan_partition_retention(const segscan_partition *p, enum segscan_retention_kind kind,
				struct segscan_retention *out);

/* What size, time and local retention delete together, each segment once (json:
 * retention.total). Unknown when a kind is unknown for want of an input: evaluated false,
 * reason that kind's, the counts 0 and the byte counts -1 (json null). */
struct segscan_retention_total {
	size_t      size;               /* caller sets sizeof(struct segscan_retention_total) */
	bool        evaluated;
	const char *reason;             /* why unknown; NULL when evaluated */
	uint64_t    delete_segments;    /* distinct segments (json: the length of delete_segments) */
	uint64_t    remote_segments;    /* of them remote (json: delete_segment_ids) */
	uint64_t    local_segments;     /* of them local (json: delete_base_offsets) */
	int64_t     delete_bytes;       /* local_bytes_freed + remote_bytes_freed; -1 unknown */
	int64_t     local_bytes_freed;  /* -1 unknown */
	int64_t     remote_bytes_freed; /* -1 unknown */
	uint64_t    reserved[8];
};
/* Returns 0, -ENODATA when json prints retention as null, -EINVAL. */
int segscan_partition_retention_total(const segscan_partition *p, struct segscan_retention_total *out);

/* Findings (json: partitions[].findings[]), in report order. */
struct segscan_finding {
	size_t      size;            /* caller sets sizeof(struct segscan_finding) */
	const char *code;            /* the contract's finding code */
	const char *ref;             /* "KAFKA-20977", ... or "" */
	const char *message;
	bool        has_amount;      /* segments and bytes are given */
	int64_t     segments;
	int64_t     bytes;
	uint64_t    reserved[8];
};
size_t segscan_partition_finding_count(const segscan_partition *p);
/* Returns 0, -ENOENT for i out of range, -EINVAL. */
int segscan_partition_finding(const segscan_partition *p, size_t i, struct segscan_finding *out);

/* The places of a partition that could not be read (json: partitions[].errors[]): its
 * problems first, then its failed segments. segscan_partition_error copies entry i's
 * file (a path) and message into the caller's buffers (either may be NULL with length
 * 0), NUL-terminated. Returns 0, -ENOENT for i out of range, -ERANGE when a buffer was
 * too small (what fits is copied). */
size_t segscan_partition_error_count(const segscan_scan *s, const segscan_partition *p);
int segscan_partition_error(const segscan_scan *s, const segscan_partition *p, size_t i, char *file,
			    size_t file_len, char *message, size_t message_len);

/* The effective value of a config key ("retention.ms", "remote.storage.enable", ... as
 * in json's partitions[].config) and where it came from, as Kafka's DescribeConfigs
 * names it ("DYNAMIC_TOPIC_CONFIG", "DEFAULT_CONFIG", ...). *source is NULL when only
 * Kafka's default was found while the levels that could override it were not read.
 * *value is NULL where json's value is null (a remote.storage.enable nothing says, a
 * config Kafka sets from the creating broker's config on an internal topic, such as
 * __remote_log_metadata's retention.ms, when the topic's own was not read).
 * Either out pointer may be NULL. Returns 0, -ENOENT when the key is not reported. */
int segscan_partition_config(const segscan_partition *p, const char *key, const char **value,
			     const char **source);

/* The broker the log dirs belong to (json: summary.broker). */
struct segscan_broker {
	size_t      size;            /* caller sets sizeof(struct segscan_broker) */
	int32_t     node_id;         /* -1 unknown */
	const char *cluster_id;      /* NULL unknown */
	const char *kafka_version;   /* "4.3.1", "4.4", ...; NULL unknown */
	const char *kafka_version_source; /* "--kafka-version" | "metadata log" | NULL */
	uint64_t    reserved[8];
};
/* Returns 0 or -EINVAL. */
int segscan_get_broker(const segscan_scan *s, struct segscan_broker *out);

/* The report's own errors[] (json: errors, the table's "Could not read"): every place of
 * the scan that could not be read, a missing or unreadable log dir included, which no
 * partition's errors[] holds. Copied like segscan_partition_error. The CLI prints them on
 * stderr. segscan_error returns 0, -ENOENT for i out of range, -ERANGE (what fits is
 * copied), -EINVAL, -EBUSY during the run; the count is 0 for s NULL. */
size_t segscan_error_count(const segscan_scan *s);
int segscan_error(const segscan_scan *s, size_t i, char *file, size_t file_len, char *message,
		  size_t message_len);

/* The log dirs the scan was given (or took from log.dirs), in order (json:
 * summary.log_dirs), and whether each could be read at all (metric segscan_log_dir_up). */
struct segscan_logdir {
	size_t      size;            /* caller sets sizeof(struct segscan_logdir) */
	const char *path;            /* as given */
	int         error;           /* 0, or why it is missing or unreadable (exit code 3) */
	uint64_t    reserved[8];
};
size_t segscan_logdir_count(const segscan_scan *s);
/* Returns 0, -ENOENT for i out of range, -EINVAL, -EBUSY during the run. */
int segscan_logdir(const segscan_scan *s, size_t i, struct segscan_logdir *out);

#ifdef __cplusplus
}
#endif
#endif /* SEGSCAN_H */
