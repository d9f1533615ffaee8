/*
 * `segscan serve`: the scanner as a long-running service.
 *
 * Publication model (the lesson of KAFKA-21098: a metric must not outlive its partition,
 * and a late writer must not resurrect it):
 *   - a scan takes its generation number when it STARTS (ss_pub_begin_scan);
 *   - when it finishes, everything a response can show — the Prometheus text, the json
 *     report, one json object per partition — is rendered once into an immutable
 *     snapshot; the snapshot replaces the published one as a whole (one pointer swap),
 *     so a series set is never a mix of two scans;
 *   - a scan publishes only if its generation is newer than the published one, so a scan
 *     that started before a partition disappeared can never bring its series back once
 *     a later scan has published;
 *   - snapshots are reference counted: a response holds a reference until MHD has sent
 *     it, the scan loop holds one on the previous snapshot for segscan_reuse(); the last
 *     release frees the snapshot and the scan behind it.
 */
#ifndef SS_SERVICE_SERVE_H
#define SS_SERVICE_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "segscan.h"

/* One partition's json object inside ss_snapshot.part_json, sorted by (topic, partition,
 * log_dir) for lookups by topic and number. */
struct ss_part_ref {
	const char *topic;    /* owned by the snapshot's scan */
	const char *log_dir;  /* idem */
	int32_t     partition;
	size_t      off, len; /* the object (with its trailing newline) in part_json */
};

struct ss_snapshot {
	atomic_uint   refs;
	uint64_t      generation;
	segscan_scan *scan;            /* owned: freed with the snapshot */
	char         *metrics;         /* Prometheus text 0.0.4 */
	size_t        metrics_len;
	char         *metrics_gz;      /* the same gzip-compressed (service/gzip.h), NULL if
					  compression failed */
	size_t        metrics_gz_len;
	/* The json documents are rendered on first use (ss_snapshot_json), not at publication:
	 * a rescan nobody asks /v1/partitions about renders nothing (issue 15: rendering a
	 * million segments twice cost more than the rescan itself). They come from the
	 * snapshot's own scan, which is immutable, so a lazy render is the same text. */
	pthread_mutex_t json_mu;       /* json_done, json_err and the five fields below */
	bool          json_done;
	int           json_err;
	char         *json;            /* segscan_write(SEGSCAN_FMT_JSON) */
	size_t        json_len;
	char         *part_json;       /* every partition object, back to back */
	size_t        part_json_len;
	struct ss_part_ref *parts;
	size_t        n_parts;         /* set at publication (healthz reads it without rendering) */
	struct segscan_scan_stats stats;  /* this scan's own */
	double        finished_mono;   /* CLOCK_MONOTONIC seconds: /healthz age */
	double        finished_wall;   /* seconds since the epoch */
	int           exit_code;       /* segscan_exit_code() of the scan */
	unsigned      logdirs_down;    /* log dirs the scan could not read (segscan_logdir) */
	char         *down_json;       /* them as a json array for /healthz:
					  [{"log_dir":PATH,"error":TEXT},...] */
};

/* Cumulative counters, folded in by every finished scan (published or refused: the
 * bytes were read either way). */
struct ss_pub_totals {
	struct segscan_counters c;
	uint64_t segments_reused;
	uint64_t partitions_reused; /* taken whole after no inotify event (segscan_reuse_unchanged) */
	uint64_t scans;          /* scans that ran to completion */
	uint64_t failures;       /* failed scans: segscan_run failed, or a log dir could not be
				    read (issue 20 item 5: that scan is published, and failed) */
	uint64_t refused;        /* completed scans whose publication was refused (stale) */
	bool     last_failed;    /* the latest scan failed (cleared by the next publication of
				    a scan that read every log dir) */
	double   last_success_wall; /* when the last published scan that read every log dir
				       finished (Unix time); 0: none yet */
};

struct ss_pub;

int  ss_pub_new(struct ss_pub **out);
/* Drops the published snapshot's reference; snapshots still referenced elsewhere live
 * on until their last release. */
void ss_pub_free(struct ss_pub *pub);

/* The generation of a scan about to start: strictly increasing, never 0. */
uint64_t ss_pub_begin_scan(struct ss_pub *pub);

/* Publishes a finished scan taken with generation `gen`. Takes ownership of `scan` in
 * every case: on success it lives in the new snapshot, otherwise it is freed. A scan that
 * could not read one of its log dirs is published (what it read is true) and counted as
 * a failure: /healthz says "failing" until a scan reads them all. Returns 0,
 * -ESTALE when a scan with the same or a newer generation is already published (the
 * scan's counters are still folded into the totals), or -ENOMEM / -EIO from rendering. */
int  ss_pub_publish(struct ss_pub *pub, segscan_scan *scan, uint64_t gen);
/* Counts a scan that failed to run (shown by the next publication) and marks the
 * service unhealthy (/healthz 503) until a scan publishes again. */
void ss_pub_note_failure(struct ss_pub *pub);
/* /healthz reports 503 "stale" once the published snapshot is older than
 * SS_HEALTH_STALE_INTERVALS intervals plus twice its own scan's duration (a scan that
 * blocks, say on a FIFO, or a scan loop that died). Set before the HTTP server starts. */
#define SS_HEALTH_STALE_INTERVALS 3
void ss_pub_set_interval(struct ss_pub *pub, double interval_s);
double ss_pub_stale_after(const struct ss_pub *pub, const struct ss_snapshot *snap);
void ss_pub_get_totals(struct ss_pub *pub, struct ss_pub_totals *out);
/* The published generation (0 before the first publication). */
uint64_t ss_pub_generation(struct ss_pub *pub);

/* A reference to the published snapshot, or NULL before the first publication. */
struct ss_snapshot *ss_pub_acquire(struct ss_pub *pub);
void ss_snapshot_ref(struct ss_snapshot *snap);
void ss_snapshot_release(struct ss_snapshot *snap);
/* The partition's json object, or NULL. With the same partition in several log dirs
 * (not a state Kafka allows; possible when scanning other brokers' copies), the first
 * log dir in byte order. */
const struct ss_part_ref *ss_snapshot_find(struct ss_snapshot *snap, const char *topic, int32_t partition);
/* The partitions of one topic: returns how many, *first the index of the first in
 * snap->parts (sorted by partition, then log dir). Renders the json on first use (0 on a
 * render error, as for a topic with no partition). */
size_t ss_snapshot_topic(struct ss_snapshot *snap, const char *topic, size_t *first);
/* Renders the json report and the per-partition objects once (the first caller does,
 * the others wait for it); after 0, json and part_json/parts are valid and immutable.
 * Returns 0 or the render's error (-ENOMEM, -EIO), the same for every later call. */
int ss_snapshot_json(struct ss_snapshot *snap);

/* ---- HTTP (http.c) --------------------------------------------------------------- */

/* Percent-decodes one path segment into out (cap bytes with the NUL). '+' is literal
 * (a path, not a form). Returns the decoded length or -EINVAL for a bad escape, an
 * encoded NUL, or output that does not fit. */
int  ss_url_decode(const char *in, size_t len, char *out, size_t cap);
/* "HOST:PORT", "[V6]:PORT": numeric or resolvable host, decimal port 1-65535. */
int  ss_parse_listen(const char *spec, struct sockaddr_storage *sa, socklen_t *len);

struct ss_http;
struct ss_web_config;
/* Binds, listens and starts serving `pub` on an MHD internal thread. On failure err
 * names the problem (for example "bind 127.0.0.1:10405: Address already in use"). */
int  ss_http_start(struct ss_http **out, const struct sockaddr *sa, socklen_t salen, struct ss_pub *pub,
		   char *err, size_t errlen);
/* The same, with TLS and basic auth from a --web.config.file (NULL: plain HTTP, no
 * auth); web must outlive the server. */
int  ss_http_start_web(struct ss_http **out, const struct sockaddr *sa, socklen_t salen, struct ss_pub *pub,
		       struct ss_web_config *web, char *err, size_t errlen);
/* Closes the listening socket and every connection, joins MHD's thread (and the basic
 * auth verifier's, after at most the one bcrypt it runs). */
void ss_http_stop(struct ss_http *h);
/* The port it listens on (listening on port 0 takes one the kernel picks), or -errno. */
int  ss_http_port(const struct ss_http *h);

/* ---- the service (serve.c) ------------------------------------------------------- */

/* The default --listen. The contract wants a port no exporter commonly found on a broker
 * host uses: not 9464 (OpenTelemetry's Prometheus exporter), 9308 (kafka_exporter), 9100
 * (node_exporter), 7071 or 9404 (the JMX exporter); Prometheus' exporter range 9100-9999
 * is fully allocated, so 10405 (KIP-405) lies outside it, away from Kafka's own ports
 * (9092-9094, JMX 9999) and below the kernel's ephemeral range (32768-). tests/test_operate.c
 * checks it against that list. */
#define SS_SERVE_DEFAULT_PORT   "10405"
#define SS_SERVE_DEFAULT_LISTEN "127.0.0.1:" SS_SERVE_DEFAULT_PORT
/* The periodic full check behind inotify change detection (docs/serve.md): events inotify
 * cannot see (a network file system written by another host, writes through a mapping
 * alone, a bug) are caught within ten minutes. */
#define SS_SERVE_DEFAULT_FULL_CHECK 600.0


struct ss_serve_kv {
	char *name;
	char *value;  /* NULL for flag options */
};

struct ss_serve_opts {
	const char *listen;          /* default SS_SERVE_DEFAULT_LISTEN */
	double      interval_s;      /* default 60 */
	double      full_check_s;    /* --full-rescan-interval: a full check at least this often
					(default SS_SERVE_DEFAULT_FULL_CHECK); 0: every scan is one,
					no change detection */
	const char *textfile;        /* NULL: none */
	const char *web_config;      /* --web.config.file (TLS, basic auth), NULL: none */
	bool        once;
	bool        stats;           /* log each scan's pipeline statistics */
	/* scan options applied by name (segscan_set) to every scan, in order */
	struct ss_serve_kv *scan_opts;
	size_t      n_scan_opts;
	char      **logdirs;
	size_t      n_logdirs;
};

/* --server-properties as serve read it, once, at its start (ss_serve_main). */
struct ss_serve_props {
	const char *name;   /* the path given */
	char       *text;   /* its bytes (the process's lifetime) */
	size_t      len;
};

/* Refuses a textfile path inside a scanned log dir (or equal to one), or one whose
 * directory does not exist. Log dirs named through --server-properties are taken from
 * its log.dirs / log.dir (props NULL: none given). Returns 0 or a negative errno with err
 * filled. */
int ss_textfile_check(const char *textfile, char *const *logdirs, size_t n_logdirs,
		      const struct ss_serve_props *props, char *err, size_t errlen);
/* Writes buf to PATH.tmp in PATH's directory, fsyncs it, renames it over PATH and
 * fsyncs the directory, so a reader sees the old file or the new one, never a part. */
int ss_textfile_write(const char *path, const char *buf, size_t len);

/* Runs the service until SIGTERM/SIGINT (or one scan with opts->once). Returns the
 * process exit code. */
int ss_serve_main(const struct ss_serve_opts *o);

#endif
