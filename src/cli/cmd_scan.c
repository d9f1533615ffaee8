/* `segscan scan`: parse options, run one scan, print the report, exit per the contract. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "segscan.h"

const char ss_scan_options_help[] =
"Scan options:\n"
"  -f, --format=table|json|ndjson|prom\n"
"                         report format (default table). ndjson: one partition per line,\n"
"                         sorted by topic then partition number; json: {partitions,\n"
"                         summary, errors}; prom: Prometheus text exposition 0.0.4\n"
"      --verify           read every byte: CRC-32C of every v2 batch (CRC-32 for v0/v1),\n"
"                         framing and offset checks, exact batch and record counts\n"
"                         (default: the fast path reads only index tails and log tails)\n"
"      --remote-state=FILE\n"
"                         remote-tier metadata events as NDJSON, applied in order ('-' for\n"
"                         stdin); an illegal transition or malformed line exits 2\n"
"      --remote-metadata=auto|off\n"
"                         decode __remote_log_metadata-N partitions found in the scanned log\n"
"                         dirs (default auto)\n"
"      --seed=TOPIC-PARTITION=OFFSET\n"
"                         set highestOffsetInRemoteStorage of one partition by hand\n"
"                         (repeatable); overrides every other source\n"
"      --topic-config=FILE\n"
"                         per-topic configs: '<topic|*> key=value ...' lines (retention.ms,\n"
"                         retention.bytes, local.retention.ms, local.retention.bytes,\n"
"                         remote.storage.enable, segment.bytes)\n"
"      --server-properties=FILE\n"
"                         a broker's server.properties: log.dirs (when no LOGDIR is given)\n"
"                         and the broker-wide retention defaults\n"
"      --now=EPOCH_MS     the clock for time retention and dangling detection (default: now)\n"
"      --dangling-after=MS\n"
"                         a remote segment stuck in a STARTED state this long is dangling\n"
"                         (default 3600000)\n"
"      --threads=N        worker threads (default: CPUs in the affinity mask)\n"
"      --io=uring|mmap|pread\n"
"                         I/O backend (default uring; falls back to pread with one warning\n"
"                         where io_uring is unavailable, e.g. under Docker's seccomp profile)\n"
"      --queue-depth=N    io_uring submissions in flight per worker (default 128)\n"
"      --numa=auto|off    pin workers to the NUMA node of each log dir's block device\n"
"                         (default auto)\n"
"      --stats            pipeline statistics on stderr: per-stage time, bytes read,\n"
"                         syscalls and submissions, ring stalls\n"
"      --progress         progress lines on stderr even when it is not a terminal\n"
"      --max-read-rate=BYTES_PER_S\n"
"                         cap the read rate over all workers (suffixes k, M, G)\n"
"      --io-priority=idle|normal\n"
"                         I/O scheduling class of the workers (default normal; serve: idle)\n"
"      --evict            drop from the page cache exactly the pages this scan brought in\n"
"                         (checked with mincore before reading), leaving hot pages alone\n"
"      --avoid-cpus=LIST  never run workers on these CPUs (e.g. the broker's: 0-3)\n"
"  -q, --quiet            no progress lines\n"
"      --numa-topology=DIR\n"
"                         read the NUMA topology from DIR instead of /sys (testing)\n";

static const char usage_scan[] =
"Usage: segscan scan [OPTIONS] LOGDIR...\n"
"       segscan scan [OPTIONS] --server-properties=FILE\n"
"\n"
"One pass over one or more Kafka log dirs (each as listed in a broker's log.dirs, holding\n"
"<topic>-<partition> directories). For every partition: its segments with base, last and\n"
"end offsets, sizes and timestamps; the only-local set, copy lag (strict offsets) beside\n"
"what the broker's RemoteCopyLag metrics report; what size, time and local retention would\n"
"delete; and findings that explain where the broker's own numbers are wrong.\n"
"\n";

static const char exit_help[] =
"\n"
"Exit status:\n"
"  0  scan complete (findings, including a truncated tail, do not change this)\n"
"  1  scan complete, but some data could not be read or failed verification (each such\n"
"     place is in the report)\n"
"  2  usage error: a bad option or value, an unreadable or malformed config or remote-state\n"
"     file (the message names the file, line and problem)\n"
"  3  a LOGDIR is missing or unreadable\n"
"\n"
"Examples:\n"
"  segscan scan /var/lib/kafka/data\n"
"  segscan scan --format=ndjson --verify /data/kafka-1 /data/kafka-2\n"
"  segscan scan --server-properties=/etc/kafka/server.properties --topic-config=topics.txt\n"
"  segscan scan --remote-state=remote.ndjson --now=1700000000000 -f json LOGDIR\n";

const struct option ss_scan_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "verify", no_argument, NULL, 0 },
	{ "remote-state", required_argument, NULL, 0 },
	{ "remote-metadata", required_argument, NULL, 0 },
	{ "seed", required_argument, NULL, 0 },
	{ "topic-config", required_argument, NULL, 0 },
	{ "server-properties", required_argument, NULL, 0 },
	{ "now", required_argument, NULL, 0 },
	{ "dangling-after", required_argument, NULL, 0 },
	{ "threads", required_argument, NULL, 0 },
	{ "io", required_argument, NULL, 0 },
	{ "queue-depth", required_argument, NULL, 0 },
	{ "numa", required_argument, NULL, 0 },
	{ "numa-topology", required_argument, NULL, 0 },
	{ "stats", no_argument, NULL, 0 },
	{ "max-read-rate", required_argument, NULL, 0 },
	{ "io-priority", required_argument, NULL, 0 },
	{ "evict", no_argument, NULL, 0 },
	{ "avoid-cpus", required_argument, NULL, 0 },
	{ "progress", no_argument, NULL, 0 },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int ss_cli_apply(segscan_scan *s, const char *name, const char *value)
{
	int r = segscan_set(s, name, value);
	if (r) {
		fprintf(stderr, "segscan: --%s%s%s: %s\n", name, value ? "=" : "", value ? value : "",
			segscan_last_error(s));
		return 2;
	}
	return 0;
}

int ss_cmd_scan(int argc, char **argv)
{
	enum segscan_format fmt = SEGSCAN_FMT_TABLE;
	bool stats = false;
	segscan_scan *s = NULL;
	int r, c, idx, rc = 2;

	if ((r = segscan_scan_new(&s))) {
		fprintf(stderr, "segscan: %s\n", segscan_strerror(r));
		return 1;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:qh", ss_scan_longopts, &idx)) != -1) {
		const char *name = NULL;
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "table")) fmt = SEGSCAN_FMT_TABLE;
			else if (!strcmp(optarg, "json")) fmt = SEGSCAN_FMT_JSON;
			else if (!strcmp(optarg, "ndjson")) fmt = SEGSCAN_FMT_NDJSON;
			else if (!strcmp(optarg, "prom")) fmt = SEGSCAN_FMT_PROM;
			else {
				fprintf(stderr, "segscan: --format=%s: expected table, json, ndjson or prom\n", optarg);
				goto out;
			}
			continue;
		case 'q':
			name = "quiet";
			break;
		case 'h':
			fputs(usage_scan, stdout);
			fputs(ss_scan_options_help, stdout);
			fputs(exit_help, stdout);
			rc = 0;
			goto out;
		case 0:
			name = ss_scan_longopts[idx].name;
			break;
		default:
			fprintf(stderr, "Try 'segscan scan --help'.\n");
			goto out;
		}
		if (!strcmp(name, "stats"))
			stats = true;
		if (ss_cli_apply(s, name, c == 0 && ss_scan_longopts[idx].has_arg ? optarg : NULL))
			goto out;
	}
	for (int i = optind; i < argc; i++) {
		if ((r = segscan_add_logdir(s, argv[i]))) {
			fprintf(stderr, "segscan: %s: %s\n", argv[i], segscan_strerror(r));
			goto out;
		}
	}
	r = segscan_run(s);
	if (r) {
		rc = segscan_exit_code(s);
		fprintf(stderr, "segscan: %s\n", segscan_last_error(s));
		if (rc == 0)
			rc = 1;
		goto out;
	}
	if ((r = segscan_write(s, fmt, stdout))) {
		fprintf(stderr, "segscan: writing the report: %s\n", segscan_strerror(r));
		rc = 1;
		goto out;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "segscan: writing the report: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}
	if (stats)
		segscan_write_stats(s, stderr);
	rc = segscan_exit_code(s);
out:
	segscan_scan_free(s);
	return rc;
}
