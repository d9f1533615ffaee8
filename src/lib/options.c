/*
 * The scan option table and segscan_set(): see lib/options.h. The rows are in the order
 * of the --help text; getopt_long resolves an abbreviated option to the first row it
 * prefixes, so a new row that shares a prefix with an old one goes after it.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eval/releases.h"
#include "eval/remote.h"
#include "fmt/names.h"
#include "lib/options.h"
#include "scan/scan_int.h"
#include "sched/cpulist.h"
#include "source/http.h"

#define F(field) offsetof(struct ss_opts, field)

const struct ss_optdef ss_optdefs[] = {
	{ .name = "verify", .type = SS_OPT_BOOL, .def = "false", .off = F(verify),
	  .err = "expected true or false",
	  .help = "read every byte: CRC-32C of every v2 batch (CRC-32 for v0/v1),\n"
		  "framing and offset checks, exact batch and record counts\n"
		  "(default: the fast path reads only index tails and log tails)" },
	{ .name = "remote-state", .type = SS_OPT_STRING, .values = "FILE", .off = F(remote_state),
	  .err = "expected a file name or '-'",
	  .help = "remote-tier metadata events as NDJSON, applied in order ('-' for\n"
		  "stdin); an illegal transition or malformed line exits 2" },
	{ .name = "remote-metadata", .type = SS_OPT_CHOICE, .values = "auto|off|local|cluster", .def = "auto",
	  .off = F(remote_metadata), .err = "expected auto, off, local or cluster",
	  .help = "where remote metadata comes from: local decodes the\n"
		  "__remote_log_metadata-N partitions found in the scanned log dirs;\n"
		  "cluster consumes that topic from --bootstrap-server; auto is\n"
		  "cluster with --bootstrap-server, else local (default auto)" },
	/* --remote-store and its companions: after remote-state and remote-metadata, which
	 * they share a prefix with (getopt takes an abbreviation for the first row) */
	{ .name = "remote-store", .type = SS_OPT_STRING, .values = "URI", .off = F(remote_store),
	  .err = "expected file:///DIR or s3://BUCKET[/PREFIX][?endpoint=URL&region=R]",
	  .help = "audit the remote tier's object store against the remote metadata:\n"
		  "file:///DIR (Kafka's LocalTieredStorage dir) or\n"
		  "s3://BUCKET[/PREFIX][?endpoint=URL&region=R&max-keys=N&timeout=MS];\n"
		  "S3 credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or\n"
		  "~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE)" },
	{ .name = "remote-layout", .type = SS_OPT_CHOICE, .values = "local-tiered-storage|aiven",
	  .def = "local-tiered-storage", .off = F(remote_layout),
	  .err = "expected local-tiered-storage or aiven",
	  .help = "how the RSM names its objects: Kafka's LocalTieredStorage, or\n"
		  "Aiven's tiered-storage-for-apache-kafka (default local-tiered-storage)" },
	{ .name = "deep", .type = SS_OPT_BOOL, .def = "false", .off = F(store_deep),
	  .err = "expected true or false",
	  .help = "with --remote-store, also read every finished segment's .log\n"
		  "object whole (local-tiered-storage: check its batches' CRCs and\n"
		  "offsets against the metadata); without it no segment data is read" },
	{ .name = "rate", .type = SS_OPT_RATE, .values = "REQUESTS_PER_S", .off = F(store_rate),
	  .err = "expected requests per second (suffixes k, M, G; 0 = unlimited)",
	  .help = "cap the requests to the remote store (listing pages, HEADs,\n"
		  "manifest reads; default 0: unlimited)" },
	{ .name = "seed", .type = SS_OPT_SEED, .values = "TOPIC-PARTITION=OFFSET",
	  .err = "expected TOPIC-PARTITION=OFFSET (e.g. orders-3=1200)",
	  .help = "set highestOffsetInRemoteStorage of one partition by hand\n"
		  "(repeatable); overrides every other source" },
	{ .name = "topic-config", .type = SS_OPT_STRING, .values = "FILE", .off = F(topic_config),
	  .err = "expected a file name",
	  .help = "per-topic configs: '<topic|*> key=value ...' lines (retention.ms,\n"
		  "retention.bytes, local.retention.ms, local.retention.bytes,\n"
		  "remote.storage.enable, segment.bytes, cleanup.policy, where an\n"
		  "empty value is the empty list, as Kafka takes it)" },
	{ .name = "server-properties", .type = SS_OPT_STRING, .values = "FILE", .off = F(server_properties),
	  .err = "expected a file name",
	  .help = "a broker's server.properties: log.dirs (when no LOGDIR is given)\n"
		  "and the broker-wide retention defaults" },
	{ .name = "metadata-dir", .type = SS_OPT_STRING, .values = "DIR", .off = F(metadata_dir),
	  .err = "expected a directory",
	  .help = "the KRaft metadata log: __cluster_metadata-0 or the directory that\n"
		  "holds it (default: metadata.log.dir of --server-properties, else a\n"
		  "__cluster_metadata-0 inside a scanned log dir)" },
	{ .name = "cluster-metadata", .type = SS_OPT_SWITCH, .values = "auto|off", .def = "auto",
	  .off = F(cluster_metadata), .err = "expected auto or off",
	  .help = "replay the KRaft metadata log for topic configs, topic ids, replica\n"
		  "assignment and the broker's Kafka release (default auto)" },
	{ .name = "kafka-version", .type = SS_OPT_KVER, .values = "X.Y[.Z]", .off = F(kafka_version),
	  .err = "expected a Kafka release such as 4.3.1 or 4.1",
	  .help = "the Kafka release the broker runs; overrides what the metadata log\n"
		  "implies (findings for broker bugs follow it, and local retention\n"
		  "where releases differ: KAFKA-17360, an empty cleanup.policy)" },
	{ .name = "bootstrap-server", .type = SS_OPT_STRING, .values = "HOST:PORT[,...]", .off = F(bootstrap_server),
	  .err = "expected HOST:PORT[,HOST:PORT...]",
	  .help = "the live cluster: consume __remote_log_metadata from it (and topic\n"
		  "configs where no metadata log is readable)" },
	{ .name = "kafka-config", .type = SS_OPT_STRING, .values = "FILE", .off = F(kafka_config),
	  .err = "expected a file name",
	  .help = "client properties for --bootstrap-server (security.protocol,\n"
		  "sasl.*, ssl.*, as librdkafka names them)" },
	{ .name = "kafka-timeout", .type = SS_OPT_INT, .values = "MS", .lo = 1, .hi = 3600000, .def = "10000",
	  .off = F(kafka_timeout_ms), .err = "expected milliseconds from 1 to 3600000",
	  .help = "bound on every wait for the cluster (default 10000)" },
	{ .name = "kafka-deadline", .type = SS_OPT_INT, .values = "MS", .lo = 1, .hi = 86400000, .def = "300000",
	  .off = F(kafka_deadline_ms), .err = "expected milliseconds from 1 to 86400000",
	  .help = "bound on the whole read of remote metadata from the cluster,\n"
		  "and on DescribeConfigs (default 300000); a read that at its rate\n"
		  "so far could not finish in time gives up early; the partitions it\n"
		  "serves are then unknown" },
	{ .name = "broker-process", .type = SS_OPT_SWITCH, .values = "auto|off", .def = "auto",
	  .off = F(broker_process), .err = "expected auto or off",
	  .help = "without --server-properties, read the server.properties of the\n"
		  "running broker whose log.dirs holds a scanned log dir (found\n"
		  "through /proc/PID/cmdline; only a process run by root or the log\n"
		  "dir's owner, a file owned by one of them; default auto)" },
	/* after broker-process, whose prefix "broker-" they share (getopt takes an
	 * abbreviation for the first row) */
	{ .name = "broker-metrics", .type = SS_OPT_BMETRICS, .values = "[NODE_ID=]URL",
	  .err = "expected [NODE_ID=]http(s)://HOST:PORT[/PATH] (no credentials in the URL: basic_auth in "
		 "--http.config.file), one without NODE_ID or one per NODE_ID",
	  .help = "the broker's JMX-exporter endpoint (Prometheus text): its own\n"
		  "RemoteCopyLag*/RemoteDeleteLag* gauges per topic, beside\n"
		  "segscan's numbers; a scan of several brokers' log dirs gives one\n"
		  "per broker as NODE_ID=URL (repeatable); unreadable: unknown,\n"
		  "with a warning" },
	{ .name = "broker-metrics-names", .type = SS_OPT_STRING, .values = "CS,CB,DS,DB[,LABEL]",
	  .off = F(bmetrics_names), .err = "expected four metric names and optionally a label name, comma-separated",
	  .help = "the series of RemoteCopyLagSegments, RemoteCopyLagBytes,\n"
		  "RemoteDeleteLagSegments, RemoteDeleteLagBytes and the topic label\n"
		  "(default: the JMX exporter's example Kafka rules,\n"
		  "kafka_server_brokertopicmetrics_remotecopylagsegments, ...; topic)" },
	{ .name = "broker-metrics-timeout", .type = SS_OPT_INT, .values = "MS", .lo = 1, .hi = 3600000,
	  .def = "10000", .off = F(bmetrics_timeout_ms), .err = "expected milliseconds from 1 to 3600000",
	  .help = "bound on reading each --broker-metrics endpoint, connecting\n"
		  "included (default 10000)" },
	{ .name = "http.config.file", .type = SS_OPT_STRING, .values = "FILE", .off = F(http_config),
	  .err = "expected a file name",
	  .help = "basic_auth and tls_config for --broker-metrics, in the HTTP\n"
		  "client format of the Prometheus tools (as segscan merge's)" },
	{ .name = "proc-root", .type = SS_OPT_STRING, .values = "DIR", .off = F(proc_root),
	  .err = "expected a directory",
	  .help = "read processes from DIR instead of /proc (testing)" },
	{ .name = "topic", .type = SS_OPT_STRING, .values = "REGEX", .off = F(topic_regex),
	  .err = "expected a regular expression",
	  .help = "report only topics matching REGEX (POSIX extended, anchored: the\n"
		  "whole name must match); every format" },
	{ .name = "partition", .type = SS_OPT_PARTITION, .values = "TOPIC-N",
	  .err = "expected TOPIC-N, a topic name and a partition number (e.g. orders-3)",
	  .help = "report only this partition (repeatable); with --topic, a\n"
		  "partition must match both; every format" },
	{ .name = "findings-only", .type = SS_OPT_BOOL, .def = "false", .off = F(findings_only),
	  .err = "expected true or false",
	  .help = "report only partitions with findings or errors; every format" },
	{ .name = "metrics-level", .type = SS_OPT_CHOICE, .values = "partition|topic", .def = "partition",
	  .off = F(metrics_level), .err = "expected partition or topic",
	  .help = "the prom format's (and serve's /metrics) detail: partition, series\n"
		  "per partition replica (at most 8 each, plus its findings); topic,\n"
		  "per-topic sums instead, remote and lag figures over the partitions\n"
		  "this broker leads (default partition)" },
	{ .name = "metrics-extra", .type = SS_OPT_BOOL, .def = "false", .off = F(metrics_extra),
	  .err = "expected true or false",
	  .help = "prom format, partition level: also the extra series per partition\n"
		  "(segment counts, offsets, dangling, retention per kind, ...)" },
	{ .name = "now", .type = SS_OPT_INT, .values = "EPOCH_MS", .lo = 0, .hi = INT64_MAX / 2,
	  .off = F(now_ms), .has_off = SS_OPT_HAS(has_now), .err = "expected milliseconds since the epoch",
	  .help = "the clock for time retention and dangling detection (default: now)" },
	{ .name = "dangling-after", .type = SS_OPT_INT, .values = "MS", .lo = 0, .hi = INT64_MAX / 2,
	  .def = "3600000", .off = F(dangling_after_ms), .err = "expected milliseconds (>= 0)",
	  .help = "a remote segment stuck in a STARTED state this long is dangling\n"
		  "(default 3600000)" },
	{ .name = "stuck-after", .type = SS_OPT_DURATION, .values = "DURATION", .lo = 1, .hi = INT64_MAX / 2,
	  .off = F(stuck_after_ms), .has_off = SS_OPT_HAS(has_stuck_after),
	  .err = "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)",
	  .help = "a remote copy or delete left in its STARTED state this long, or\n"
		  "a closed local segment the leader's copy task has not taken for\n"
		  "this long, is stuck (STUCK_REMOTE_COPY, STUCK_REMOTE_DELETE);\n"
		  "default: 10 x the broker's remote.log.manager.task.interval.ms\n"
		  "(30000 when not known), at least 5m" },
	{ .name = "horizon", .type = SS_OPT_DURATION, .values = "DURATION", .lo = 1, .hi = INT64_MAX / 4,
	  .off = F(horizon_ms), .err = "expected a duration of at least 1 ms (a number with ms, s, m, h or d; no unit: ms)",
	  .help = "forecast what time, size and local retention and the copy task\n"
		  "do within DURATION if nothing else is written (forecast per\n"
		  "partition, free_bytes and free_bytes_after per log dir)" },
	{ .name = "disable-tiering", .type = SS_OPT_STRING, .values = "TOPIC", .off = F(disable_tiering),
	  .err = "expected a topic name",
	  .help = "with --horizon: what if tiering were disabled on TOPIC (KIP-950):\n"
		  "its copies stop and local retention falls back to retention.ms\n"
		  "and retention.bytes; the forecast and free_bytes_after say what\n"
		  "its local log would then keep" },
	{ .name = "threads", .type = SS_OPT_INT, .values = "N", .lo = 1, .hi = 1024, .narrow = true,
	  .off = F(threads), .err = "expected a thread count from 1 to 1024",
	  .help = "worker threads (default: CPUs in the affinity mask)" },
	{ .name = "io", .type = SS_OPT_CHOICE, .values = "uring|mmap|pread", .def = "uring", .off = F(io),
	  .err = "expected uring, mmap or pread",
	  .help = "I/O backend (default uring; falls back to pread with one warning\n"
		  "where io_uring is unavailable, e.g. under Docker's seccomp profile)" },
	{ .name = "queue-depth", .type = SS_OPT_INT, .values = "N", .lo = 1, .hi = 32768, .narrow = true,
	  .def = "128", .off = F(queue_depth), .err = "expected a queue depth from 1 to 32768",
	  .help = "io_uring submissions in flight per worker (default 128)" },
	{ .name = "numa", .type = SS_OPT_SWITCH, .values = "auto|off", .def = "auto", .off = F(numa),
	  .err = "expected auto or off",
	  .help = "pin workers to the NUMA node of each log dir's block device\n"
		  "(default auto)" },
	{ .name = "stats", .type = SS_OPT_BOOL, .def = "false", .off = F(stats),
	  .err = "expected true or false",
	  .help = "pipeline statistics on stderr: per-stage time, bytes read,\n"
		  "syscalls and submissions, ring stalls" },
	{ .name = "progress", .type = SS_OPT_BOOL, .def = "false", .off = F(progress),
	  .err = "expected true or false",
	  .help = "progress lines on stderr even when it is not a terminal" },
	{ .name = "max-read-rate", .type = SS_OPT_RATE, .values = "BYTES_PER_S", .off = F(max_read_rate),
	  .err = "expected bytes per second (suffixes k, M, G; 0 = unlimited)",
	  .help = "cap the read rate over all workers (suffixes k, M, G)" },
	{ .name = "io-priority", .type = SS_OPT_SWITCH, .values = "idle|normal", .def = "normal",
	  .off = F(io_idle), .err = "expected idle or normal",
	  .help = "I/O scheduling class of the workers (default normal; serve: idle)" },
	{ .name = "evict", .type = SS_OPT_BOOL, .def = "false", .off = F(evict),
	  .err = "expected true or false",
	  .help = "drop from the page cache exactly the pages this scan brought in\n"
		  "(checked with mincore before reading), leaving hot pages alone" },
	{ .name = "avoid-cpus", .type = SS_OPT_CPULIST, .values = "LIST", .off = F(avoid_cpus),
	  .has_off = SS_OPT_HAS(has_avoid), .err = "expected a CPU list such as 0-3,8",
	  .help = "never run workers on these CPUs (e.g. the broker's: 0-3)" },
	{ .name = "quiet", .type = SS_OPT_BOOL, .short_name = 'q', .def = "false", .off = F(quiet),
	  .err = "expected true or false",
	  .help = "no progress lines" },
	{ .name = "numa-topology", .type = SS_OPT_STRING, .values = "DIR", .off = F(numa_root),
	  .err = "expected a directory",
	  .help = "read the NUMA topology from DIR instead of /sys (testing)" },
};

const size_t ss_n_optdefs = sizeof(ss_optdefs) / sizeof(ss_optdefs[0]);

const struct ss_optdef *ss_optdef_find(const char *name)
{
	for (size_t i = 0; i < ss_n_optdefs; i++)
		if (!strcmp(ss_optdefs[i].name, name))
			return &ss_optdefs[i];
	return NULL;
}

/* Strict decimal parse: the whole string, within [lo, hi]. */
static int parse_i64(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	if (!v || !*v)
		return -EINVAL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	return 0;
}

/* "1048576", "10M", "512k", "1G" (decimal multiples: a rate, not a file size) */
static int parse_rate(const char *v, int64_t *out)
{
	char *end;
	if (!v || !*v)
		return -EINVAL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || x < 0 || end == v)
		return -EINVAL;
	int64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000;
	else if (*end == 'M')
		mul = 1000000;
	else if (*end == 'G')
		mul = 1000000000;
	if (mul > 1)
		end++;
	if (*end || x > INT64_MAX / mul)
		return -EINVAL;
	*out = x * mul;
	return 0;
}

/* "300000", "300000ms", "90s", "5m", "2h", "7d" -> milliseconds; -EINVAL when malformed
 * or out of int64_t */
static int parse_duration(const char *v, int64_t *out)
{
	static const struct { const char *unit; int64_t ms; } units[] = {
		{ "", 1 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
	};
	char *end;
	if (!v || *v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || x < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (x > INT64_MAX / units[i].ms)
				return -EINVAL;
			*out = x * units[i].ms;
			return 0;
		}
	return -EINVAL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!v || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* Index of v among the '|'-separated words of `words`, or -1. */
static int word_index(const char *words, const char *v)
{
	size_t n = strlen(v);
	int i = 0;
	for (const char *w = words;; i++) {
		const char *bar = strchr(w, '|');
		size_t len = bar ? (size_t)(bar - w) : strlen(w);
		if (n && len == n && !memcmp(w, v, n))
			return i;
		if (!bar)
			return -1;
		w = bar + 1;
	}
}

static int set_str(char **dst, const char *v)
{
	char *n = strdup(v);
	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

/* --seed=TOPIC-PARTITION=OFFSET (lib/options.h) */
int ss_seed_parse(const char *arg, char **topic, int32_t *partition, int64_t *offset)
{
	if (!arg)
		return -EINVAL;
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return -EINVAL;
	const char *dash = NULL;
	for (const char *c = arg; c < eq; c++)
		if (*c == '-')
			dash = c;
	if (!dash || dash == arg || dash + 1 == eq)
		return -EINVAL;
	if (!ss_topic_name_ok(arg, (size_t)(dash - arg)))
		return -EINVAL;
	long long pv = 0;
	for (const char *c = dash + 1; c < eq; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		pv = pv * 10 + (*c - '0');
		if (pv > INT32_MAX)
			return -EINVAL;
	}
	const char *v = eq + 1;
	bool neg = false;
	if (*v == '-') {
		neg = true;
		v++;
	}
	if (!*v)
		return -EINVAL;
	uint64_t ov = 0;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		if (ov > (uint64_t)INT64_MAX / 10)
			return -EINVAL;
		ov = ov * 10 + (uint64_t)(*c - '0');
		if (ov > (uint64_t)INT64_MAX)
			return -EINVAL;
	}
	/* -1 is Kafka's "nothing copied yet"; anything lower means nothing */
	if (neg && ov != 1)
		return -EINVAL;
	char *t = strndup(arg, (size_t)(dash - arg));
	if (!t)
		return -ENOMEM;
	*topic = t;
	*partition = (int32_t)pv;
	*offset = neg ? -1 : (int64_t)ov;
	return 0;
}

static int add_seed(struct ss_opts *o, const char *v)
{
	struct ss_seed sd;
	if (!v || ss_seed_parse(v, &sd.topic, &sd.partition, &sd.offset))
		return -EINVAL;
	struct ss_seed *n = realloc(o->seeds, (o->n_seeds + 1) * sizeof(*n));
	if (!n) {
		free(sd.topic);
		return -ENOMEM;
	}
	o->seeds = n;
	o->seeds[o->n_seeds++] = sd;
	return 0;
}

int ss_bmetrics_parse(const char *arg, int32_t *node_id, char **url)
{
	*node_id = -1;
	*url = NULL;
	if (!arg)
		return -EINVAL;
	const char *eq = strchr(arg, '='), *u = arg;
	size_t digits = eq ? strspn(arg, "0123456789") : 0;
	if (eq && digits && arg + digits == eq) {
		int64_t n;
		char num[16];
		if (digits >= sizeof(num))
			return -EINVAL;
		memcpy(num, arg, digits);
		num[digits] = 0;
		if (parse_i64(num, 0, INT32_MAX, &n))
			return -EINVAL;
		*node_id = (int32_t)n;
		u = eq + 1;
	}
	/* the host part must hold no userinfo: it would show in ps (the client refuses it too) */
	const char *host = ss_http_is_url(u) ? strstr(u, "://") + 3 : NULL;
	if (!host || !*host || memchr(host, '@', strcspn(host, "/?#")))
		return -EINVAL;
	return (*url = strdup(u)) ? 0 : -ENOMEM;
}

/* one URL without NODE_ID, or one per NODE_ID: anything else would be ambiguous */
static int add_bmetrics(struct ss_opts *o, const char *v)
{
	int32_t id;
	char *url;
	int r = ss_bmetrics_parse(v, &id, &url);
	if (r)
		return r;
	for (uint32_t i = 0; i < o->n_bmetrics; i++)
		if (id < 0 || o->bmetrics[i].node_id < 0 || o->bmetrics[i].node_id == id) {
			free(url);
			return -EINVAL;
		}
	struct ss_bm_url *a = realloc(o->bmetrics, (o->n_bmetrics + 1) * sizeof(*a));
	if (!a) {
		free(url);
		return -ENOMEM;
	}
	o->bmetrics = a;
	a[o->n_bmetrics++] = (struct ss_bm_url){ .node_id = id, .url = url };
	return 0;
}

/* --partition=TOPIC-N: the topic is all before the last '-' (topic names hold '-') */
static int add_partition(struct ss_opts *o, const char *v)
{
	const char *dash = v ? strrchr(v, '-') : NULL;
	if (!dash || dash == v || !dash[1] || !ss_topic_name_ok(v, (size_t)(dash - v)))
		return -EINVAL;
	int64_t n;
	if (dash[1] < '0' || dash[1] > '9' || parse_i64(dash + 1, 0, INT32_MAX, &n))
		return -EINVAL;
	struct ss_partsel *a = realloc(o->partitions, (o->n_partitions + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	o->partitions = a;
	if (!(a[o->n_partitions].topic = strndup(v, (size_t)(dash - v))))
		return -ENOMEM;
	a[o->n_partitions++].partition = (int32_t)n;
	return 0;
}

int ss_opt_apply(struct ss_opts *o, const struct ss_optdef *d, const char *v)
{
	char *field = (char *)o + d->off;
	int64_t x;
	bool given = true;
	switch (d->type) {
	case SS_OPT_BOOL:
		return parse_bool(v, (bool *)field);
	case SS_OPT_INT:
		if (parse_i64(v, d->lo, d->hi, &x))
			return -EINVAL;
		if (d->narrow)
			*(unsigned *)field = (unsigned)x;
		else
			*(int64_t *)field = x;
		break;
	case SS_OPT_RATE:
		if (parse_rate(v, &x))
			return -EINVAL;
		*(int64_t *)field = x;
		break;
	case SS_OPT_DURATION:
		if (parse_duration(v, &x) || x < d->lo || x > d->hi)
			return -EINVAL;
		*(int64_t *)field = x;
		break;
	case SS_OPT_CHOICE:
		if (!v || word_index(d->values, v) < 0)
			return -EINVAL;
		return set_str((char **)field, v);
	case SS_OPT_SWITCH: {
		int i = v ? word_index(d->values, v) : -1;
		if (i < 0)
			return -EINVAL;
		*(bool *)field = i == 0;
		break;
	}
	case SS_OPT_STRING:
		if (!v || !*v)
			return -EINVAL;
		return set_str((char **)field, v);
	case SS_OPT_KVER: {
		struct ss_kver kv;
		if (!v || ss_kver_parse(v, &kv))
			return -EINVAL;
		return set_str((char **)field, v);
	}
	case SS_OPT_CPULIST:
		if (!v || ss_cpulist_parse(v, (cpu_set_t *)field) != 0)
			return -EINVAL;
		given = CPU_COUNT((cpu_set_t *)field) > 0;
		break;
	case SS_OPT_SEED:
		return add_seed(o, v);
	case SS_OPT_PARTITION:
		return add_partition(o, v);
	case SS_OPT_BMETRICS:
		return add_bmetrics(o, v);
	}
	if (d->has_off)
		*(bool *)((char *)o + d->has_off - 1) = given;
	return 0;
}

int ss_opts_init(struct ss_opts *o)
{
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		const struct ss_optdef *d = &ss_optdefs[i];
		int r;
		if (d->def && (r = ss_opt_apply(o, d, d->def)))
			return r;
	}
	return 0;
}

void ss_opts_release(struct ss_opts *o)
{
	for (size_t i = 0; i < ss_n_optdefs; i++) {
		const struct ss_optdef *d = &ss_optdefs[i];
		if (d->type == SS_OPT_CHOICE || d->type == SS_OPT_STRING || d->type == SS_OPT_KVER) {
			char **p = (char **)((char *)o + d->off);
			free(*p);
			*p = NULL;
		}
	}
	for (uint32_t i = 0; i < o->n_seeds; i++)
		free(o->seeds[i].topic);
	free(o->seeds);
	o->seeds = NULL;
	o->n_seeds = 0;
	for (uint32_t i = 0; i < o->n_partitions; i++)
		free(o->partitions[i].topic);
	free(o->partitions);
	o->partitions = NULL;
	o->n_partitions = 0;
	for (uint32_t i = 0; i < o->n_bmetrics; i++)
		free(o->bmetrics[i].url);
	free(o->bmetrics);
	o->bmetrics = NULL;
	o->n_bmetrics = 0;
}

#define HELP_COL 25

void ss_opts_write_help(FILE *f)
{
	for (size_t i = 0; i < ss_n_optdefs; i++)
		ss_optdef_write_help(f, &ss_optdefs[i]);
}

void ss_optdef_write_help(FILE *f, const struct ss_optdef *d)
{
	char head[96];
	int n;
	if (d->short_name)
		n = snprintf(head, sizeof(head), "  -%c, --%s", d->short_name, d->name);
	else
		n = snprintf(head, sizeof(head), "      --%s", d->name);
	if (ss_optdef_has_arg(d))
		n += snprintf(head + n, sizeof(head) - (size_t)n, "=%s", d->values);
	/* the description starts on the option's line when two spaces still fit */
	if (n + 2 <= HELP_COL)
		fprintf(f, "%-*s", HELP_COL, head);
	else
		fprintf(f, "%s\n%*s", head, HELP_COL, "");
	for (const char *p = d->help;;) {
		const char *nl = strchr(p, '\n');
		if (!nl) {
			fprintf(f, "%s\n", p);
			break;
		}
		fprintf(f, "%.*s\n%*s", (int)(nl - p), p, HELP_COL, "");
		p = nl + 1;
	}
}

/* ---- the public entry point ------------------------------------------------------------ */

int segscan_set(segscan_scan *s, const char *name, const char *v)
{
	if (!name)
		return -EINVAL;
	/* refused during and after segscan_run: the run reads the options without a lock
	 * (issue 21 item 11: a --topic set under a run freed the regex it compiled) */
	int r = ss_scan_setup_begin(s);
	if (r)
		return r;
	s->err[0] = 0;
	const struct ss_optdef *d = ss_optdef_find(name);
	if (!d) {
		snprintf(s->err, sizeof(s->err), "unknown option");
		r = -EINVAL;
		goto out;
	}
	r = ss_opt_apply(&s->opts, d, v);
	if (r == -EINVAL)
		snprintf(s->err, sizeof(s->err), "%s", d->err);
out:
	ss_scan_setup_end(s);
	return r;
}
