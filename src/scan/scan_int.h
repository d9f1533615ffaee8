/*
 * The scan object behind the public segscan_scan handle, shared by the pipeline stages
 * (scan.c drives, task.c reads segments, worker.c runs threads, evaluator.c assembles
 * partitions) and the public-API glue (src/lib/). The output writers never see it: they
 * read the results view (model/results.h) that segscan_run fills in `res`.
 */
#ifndef SS_SCAN_INT_H
#define SS_SCAN_INT_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/log.h"
#include "common/strtab.h"
#include "discover/discover.h"
#include "eval/eval.h"
#include "eval/health.h"
#include "io/engine.h"
#include "model/results.h"
#include "ring/ring.h"
#include "segscan.h"

struct ss_remote;      /* eval/remote.h */
struct ss_remote_taint;/* source/remote_topic.h */
struct ss_config;      /* eval/config.h */
struct ss_cluster_ctx; /* source/cluster_ctx.h */
struct ss_store_job;   /* scan/store_job.h */
struct ss_cluster_tail;/* source/cluster.h */

struct ss_seed {
	char   *topic;
	int32_t partition;
	int64_t offset;
};

struct ss_broker_gauges; /* eval/gauges.h */

struct ss_bm_url {
	int32_t node_id;   /* -1: not given (the scan's only broker) */
	char   *url;
};

struct ss_opts {
	char        *io;             /* "uring" | "mmap" | "pread" */
	unsigned     threads;        /* 0 = online CPUs in the affinity mask */
	unsigned     queue_depth;
	bool         verify;
	bool         stats;
	bool         numa;           /* --numa=auto */
	char        *numa_root;      /* sysfs root for the topology ("/sys"; tests inject) */
	char        *remote_state;   /* path or "-" */
	char        *remote_metadata;/* --remote-metadata: "auto" | "off" | "local" | "cluster" */
	char        *metadata_dir;   /* --metadata-dir: the KRaft metadata log (or its parent) */
	bool         cluster_metadata;/* --cluster-metadata=auto */
	char        *kafka_version;  /* --kafka-version=X.Y[.Z], validated by ss_kver_parse */
	char        *bootstrap_server;/* --bootstrap-server=HOST:PORT[,...] */
	char        *kafka_config;   /* --kafka-config=FILE: librdkafka client properties */
	bool         broker_process; /* --broker-process=auto: find the running broker's config in /proc */
	char        *topic_regex;    /* --topic=REGEX: report only matching topics (POSIX ERE) */
	struct ss_partsel {
		char   *topic;
		int32_t partition;
	}           *partitions;     /* --partition=TOPIC-N (repeatable): report only these */
	uint32_t     n_partitions;
	bool         findings_only;  /* --findings-only: report only partitions with findings or errors */
	char        *proc_root;      /* --proc-root: "/proc" (NULL) or a test tree */
	int64_t      kafka_timeout_ms;/* --kafka-timeout: bound on every wait for the cluster */
	int64_t      kafka_deadline_ms;/* --kafka-deadline: bound on the whole read of remote metadata */
	char        *topic_config;
	char        *server_properties;
	bool         has_now;
	int64_t      now_ms;
	int64_t      dangling_after_ms;
	bool         has_stuck_after;/* --stuck-after given; else derived from the task interval */
	int64_t      stuck_after_ms;
	int64_t      horizon_ms;     /* --horizon: 0 off */
	char        *disable_tiering;/* --disable-tiering=TOPIC: the what-if of its forecast */
	struct ss_seed *seeds;
	uint32_t     n_seeds;
	bool         quiet;          /* no progress on stderr */
	int64_t      max_read_rate;  /* bytes/s over all workers, 0 = unlimited */
	bool         io_idle;        /* idle I/O priority for every worker */
	bool         evict;          /* drop the pages this scan brought into the page cache */
	bool         has_avoid;
	cpu_set_t    avoid_cpus;     /* workers never run here (the broker's cores) */
	bool         progress;       /* force progress lines */
	char        *metrics_level;  /* --metrics-level: "partition" | "topic" (out/prom.c) */
	bool         metrics_extra;  /* --metrics-extra: the extra partition series too */
	char        *remote_store;   /* --remote-store=URI (fmt/store_uri.h) */
	char        *remote_layout;  /* --remote-layout: "local-tiered-storage" | "aiven" */
	bool         store_deep;     /* --deep: read the .log objects too */
	int64_t      store_rate;     /* --rate: store requests per second, 0 = unlimited */
	struct ss_bm_url *bmetrics;  /* --broker-metrics=[NODE_ID=]URL (repeatable) */
	uint32_t     n_bmetrics;
	char        *bmetrics_names; /* --broker-metrics-names: the four series[,topic label] */
	int64_t      bmetrics_timeout_ms; /* --broker-metrics-timeout */
	char        *http_config;    /* --http.config.file: basic_auth, tls_config for HTTP reads */
};

struct ss_worker_stats {
	struct ss_io_counters io;
	uint64_t segments;
	uint64_t ring_stalls;
	uint64_t tasks_peak;
	uint64_t reused;        /* segments taken from the previous scan after one statx */
	uint64_t evicted_bytes; /* page cache bytes this scan brought in and dropped */
};

/* A token bucket shared by the workers (--max-read-rate). */
struct ss_rate {
	pthread_mutex_t mu;
	int64_t         rate;      /* bytes per second; 0 = unlimited */
	double          next_free; /* monotonic time at which the budget is back to zero debt */
};

struct segscan_partition {
	/* The public handle is the partition itself; see ss_part. */
	struct ss_part p;
};

struct segscan_scan {
	struct ss_opts       opts;
	char               **logdir_paths;
	uint32_t             n_logdir_paths;
	struct ss_catalog    cat;
	struct ss_remote    *remote;
	struct ss_config    *config;
	struct ss_cluster_ctx *cluster;     /* source/cluster_ctx.h: the metadata log's view; NULL before */
	char                *static_config;    /* the server.properties read (given or found), owned */
	char                *static_config_how;/* "--server-properties", "the running broker's (pid N)", or
						  why none was read; owned */
	const char          *remote_source;  /* "remote-state" | "metadata-topic" | NULL */
	bool                 remote_all_mparts; /* "cluster": every __remote_log_metadata partition was
						   read (--remote-store asks for all of them) */
	struct ss_remote_taint *remote_taint;/* source/remote_topic.h: metadata partitions with a corrupt
						batch, whose partitions the evaluator reports unknown;
						NULL when none (freed at the end of segscan_run) */
	char                 err[1024];      /* last error message (segscan_last_error) */
	struct ss_logsink    log;            /* common/log.h: segscan_set_log's callback */
	bool                 ran;            /* segscan_run has started (the run's own thread) */
	/* The handle's life for the public API's state checks (issue 21 item 11): IDLE until
	 * segscan_run starts, RUNNING while it runs, DONE after. The setters (segscan_set,
	 * segscan_add_logdir, segscan_reuse*, segscan_set_log) check it and change the options
	 * under api_mu, and segscan_run moves IDLE -> RUNNING under api_mu, so a setter on
	 * another thread either finishes before the run reads the options or is refused
	 * (-EBUSY): it can never change them under the run. DONE is stored with release after
	 * the results are published; the accessors' acquire load of it pairs with that. */
	pthread_mutex_t      api_mu;
	atomic_int           state;          /* enum ss_scan_state */
	bool                 usage_error;    /* a config or remote-state file is bad: exit 2 */
	bool                 io_fell_back;
	char                 io_used[16];
	unsigned             threads_used;
	uint64_t             remote_warnings;
	struct ss_res_times  times;
	struct ss_worker_stats totals;
	int64_t              bytes_read;
	struct ss_res_worker *winfo;         /* per worker, for --stats */
	unsigned             n_winfo;
	const struct segscan_scan *prev;     /* segscan_reuse */
	struct ss_cluster_tail *cluster_tail;/* serve's live tail (scan/embed.h), not owned; NULL */
	const char          *props_text;     /* --server-properties' bytes read by serve (scan/embed.h),
						not owned; NULL: the scan reads the file */
	size_t               props_len;
	struct ss_strtab     cfgs;           /* the evaluator's: one resolved config per topic */
	struct ss_health_rlmm rlmm;          /* the evaluator's: __remote_log_metadata's facts, built on
						first use (rlmm_ready) from the cluster image */
	bool                 rlmm_ready;
	struct ss_strtab     msgs;           /* and finding messages held once (evaluator.c) */
	bool                 reusable;       /* segscan_reuse was called: keep segment identities
						for the next scan's (ss_catalog.ids) */
	uint32_t            *reuse_from;     /* per segment: index into prev's segments, or UINT32_MAX */
	bool               (*unchanged)(void *arg, const char *log_dir, const char *dir); /* segscan_reuse_unchanged */
	void                *unchanged_arg;
	struct ss_dreuse     dreuse;         /* discovery's partition-level reuse (discover.h) */
	struct ss_rate       rate;
	/* worker <-> evaluator */
	struct ss_ring      *rings;
	unsigned             n_rings;
	atomic_uint          workers_done;   /* release by each worker after its last publish;
						acquire in the evaluator's termination check */
	/* Evaluator wake-up: workers bump ev_seq after a publish and wake the evaluator
	 * only when it said it sleeps (ev_sleeping), so a busy pipeline makes no futex
	 * calls and an idle evaluator burns no CPU the workers need. */
	/* segscan_cancel(): set (relaxed, from a signal handler too) and polled by the workers
	 * before each claim and by the driver between stages; no ordering is needed, it only
	 * makes the scan stop sooner */
	atomic_bool          cancel;
	atomic_uint          ev_seq;
	atomic_uint          ev_sleeping;
	/* what the writers and accessors read: filled by ss_scan_publish_results */
	struct ss_results    res;
	struct ss_res_logdir *res_logdirs;
	struct ss_res_space  *res_space;     /* --horizon: each log dir's free space (ss_results.space) */
	struct ss_part       *res_parts;     /* the reported partitions when a filter is set (copies) */
	struct ss_store_job  *store_job;     /* --remote-store: the listing and its audit (scan/store_job.h) */
	/* --broker-metrics: each endpoint's gauges (source/broker_metrics.h), read once before
	 * the workers start, read-only after (the evaluator and the results view read them) */
	struct ss_broker_gauges **gauges;
	uint32_t             n_gauges;
	const struct ss_broker_gauges **res_gauges; /* the same, for ss_results.gauges */
	/* --broker-metrics (issue 27): what the scan made of each broker's gauges: one entry per
	 * (broker, topic) with delete-lag gauges (scan/dellag_pass.c, eval/dellag.h; owned,
	 * ss_scan_dellag_free) */
	struct ss_topic_dellag *topic_dellag;
	uint32_t             n_topic_dellag;
};

enum ss_scan_state { SS_SCAN_IDLE, SS_SCAN_RUNNING, SS_SCAN_DONE };

/* A setter's entry (defined in scan.c, called by lib/ and segscan_run): 0 with s->api_mu held while the scan has not started
 * (release it with ss_scan_setup_end), -EINVAL for NULL, -EBUSY while segscan_run runs,
 * -EALREADY after it. */
int  ss_scan_setup_begin(struct segscan_scan *s);
void ss_scan_setup_end(struct segscan_scan *s);
/* Appends a log dir (segscan_add_logdir's work, without the state check: the caller holds
 * api_mu, or is the run itself). 0 or -ENOMEM. */
int  ss_scan_logdir_add(struct segscan_scan *s, const char *path);

/* context.c: the context loaders, stages 1, 3 and 4 (docs/architecture.md).
 * --topic-config and --server-properties into s->config (a bad file is a usage error);
 * log.dirs' entries become the log dirs when none is given. */
int  ss_scan_load_configs(struct segscan_scan *s);
/* The broker's static configs: --server-properties, or the running broker's. */
int  ss_scan_find_static(struct segscan_scan *s);
/* The --remote-state file alone: needs nothing from discovery, so it can be read on a
 * thread while discovery walks the log dirs. Errors go to err (usage_error is set). */
int  ss_scan_load_remote_file(struct segscan_scan *s, char *err, size_t errlen);
/* The cluster context (source/cluster_ctx.h) into s->cluster, after discovery. */
int  ss_scan_cluster_ctx(struct segscan_scan *s);
/* Remote state after discovery: the file (unless already loaded) and its topic-id check,
 * the live cluster, or the metadata topic found by discovery. */
int  ss_scan_load_remote(struct segscan_scan *s);
/* --broker-metrics: every endpoint read (bounded by --broker-metrics-timeout, cancellable),
 * after discovery (the log dirs' node ids say which endpoint is whose). An endpoint that
 * cannot be read leaves its gauges unknown with a warning; a NODE_ID no scanned log dir
 * has, or one URL for log dirs of several nodes, is a usage error. 0 or a negative errno. */
int  ss_scan_load_gauges(struct segscan_scan *s);
/* The gauges of the broker whose log dir holds partition p, NULL when none were read. */
const struct ss_broker_gauges *ss_scan_gauges_of(const struct segscan_scan *s, const struct ss_part *p);
/* One read of the remote state from the live cluster (or serve's tail) into *got, the
 * scan's own state untouched: ss_scan_load_remote's, and the audit's second replay
 * (scan/store_job.c). The caller frees got->remote and got->taint. */
struct ss_cluster_loaded;
int  ss_scan_cluster_read(struct segscan_scan *s, struct ss_cluster_loaded *got, char *err, size_t errlen);
/* A results accessor's check: -EINVAL for NULL, -EBUSY while segscan_run runs (the results
 * are being replaced), else 0. Best effort against a caller that reads while another
 * thread starts the run (that stays the caller's race), exact for one that reads during it. */
static inline int ss_scan_readable(const struct segscan_scan *s)
{
	if (!s)
		return -EINVAL;
	return atomic_load_explicit(&s->state, memory_order_acquire) == SS_SCAN_RUNNING ? -EBUSY : 0;
}

/* worker side: after ss_ring_publish */
void ss_evaluator_kick(struct segscan_scan *s);

/* task.c / worker.c */
int  ss_workers_run(struct segscan_scan *s);
/* online CPUs in the affinity mask */
unsigned ss_default_threads(void);
/* evaluator.c: evaluate one partition now (all its segments are in) */
int  ss_evaluate_partition(struct segscan_scan *s, uint32_t pi);
/* The broker's release as the evaluator sees it, in *rel; NULL when unknown. */
const struct ss_eval_release *ss_scan_release(const struct segscan_scan *s, struct ss_eval_release *rel);
/* dellag_pass.c: the per-(broker, topic) delete-lag comparison once every partition is
 * evaluated (s->topic_dellag), and its release. 0 or -ENOMEM. */
int  ss_scan_dellag(struct segscan_scan *s);
void ss_scan_dellag_free(struct segscan_scan *s);
/* The evaluator's per-topic configs (segscan_scan_free). */
void ss_cfg_cache_free(struct segscan_scan *s);
void *ss_evaluator_main(void *arg);

/* scan.c: (re)fill s->res from the scan's state; at the end of every segscan_run and in
 * segscan_scan_new (an empty view). Returns 0 or -ENOMEM. */
int  ss_scan_publish_results(struct segscan_scan *s);

#endif
