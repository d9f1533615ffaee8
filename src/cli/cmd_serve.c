/*
 * `segscan serve`: parse the serve options and every scan option, check them once
 * against the library (so a bad value is a usage error at startup, not a log line an
 * hour later), and hand over to the service (src/service/).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/options.h"
#include "segscan.h"
#include "service/serve.h"

static const char usage_serve[] =
"Usage: segscan serve [OPTIONS] LOGDIR...\n"
"       segscan serve [OPTIONS] --server-properties=FILE\n"
"\n"
"Run the scan of `segscan scan` again and again as a service on a broker host and expose\n"
"the results over HTTP: per-partition gauges for Prometheus, the json report, one\n"
"partition at a time, and a health check. Each rescan reuses the previous one: a closed\n"
"segment whose device, inode, size and mtime did not change costs one statx instead of a\n"
"read. Scans run at idle I/O priority and evict the pages they brought into the page\n"
"cache, so the broker keeps its cache and its disks.\n"
"\n"
"Endpoints (GET and HEAD; other methods get 405, request bodies 413):\n"
"  /metrics                  Prometheus text exposition 0.0.4: per partition replica\n"
"                            (labels topic, partition, log_dir, node_id; at most 8 each)\n"
"                            segscan_log_size_bytes, segscan_log_segments,\n"
"                            segscan_only_local_bytes, segscan_remote_size_bytes,\n"
"                            segscan_remote_copy_lag_bytes,\n"
"                            segscan_broker_reported_copy_lag_bytes,\n"
"                            segscan_partition_{leader,tiered}, its segscan_findings;\n"
"                            the scan option metrics-extra adds the other partition\n"
"                            families, metrics-level topic writes per-topic sums\n"
"                            instead (segscan-metrics(7)); segscan_broker_info{node_id,\n"
"                            cluster_id,kafka_version}, segscan_scan_duration_seconds,\n"
"                            segscan_scan_{segments,bytes_read,errors}_total (cumulative\n"
"                            over scans), segscan_build_info, segscan_scan_generation,\n"
"                            segscan_scan_exit_code, segscan_log_dir_up{log_dir} (1/0)\n"
"  /v1/partitions            the json report of the last published scan\n"
"  /v1/partitions?topic=TOPIC  {\"partitions\":[...]}: that topic's partition objects\n"
"                            (an empty list when it has none)\n"
"  /v1/partitions/TOPIC      the same, 404 when the topic has no partition\n"
"  /v1/partitions/TOPIC/N    one partition object (TOPIC percent-decoded; 404 if absent,\n"
"                            400 if TOPIC is not a Kafka topic name)\n"
"  /healthz                  503 until the first scan has finished, then 200 and\n"
"                            {\"status\":\"ok\",\"generation\":N,\"age_seconds\":S,...};\n"
"                            503 \"failing\" while the latest scan failed, one that could\n"
"                            not read a log dir included (log_dirs_down names it)\n"
"\n"
"A partition that disappears (deleted, renamed to -delete, moved) loses its series at the\n"
"next publication. Every scan takes a generation number when it starts and publishes only\n"
"if no newer scan has published, so a scan that began before a partition vanished can\n"
"never bring its series back.\n"
"\n"
"Serve options:\n"
"      --listen=HOST:PORT  address to listen on (default " SS_SERVE_DEFAULT_LISTEN "); [::1]:PORT for\n"
"                          IPv6; 0.0.0.0:PORT exposes the service beyond the host\n"
"      --interval=SECONDS  time from the start of one scan to the start of the next\n"
"                          (default 60; fractions allowed, minimum 0.1). A scan that takes\n"
"                          longer is followed by a full interval of rest.\n"
"      --full-rescan-interval=SECONDS  between rescans, inotify tells which partition\n"
"                          directories changed, and the others are taken whole from the\n"
"                          previous scan (no listing, no statx); every SECONDS (default\n"
"                          600) a rescan checks every partition anyway. 0: every rescan\n"
"                          checks every partition (no inotify)\n"
"      --web.config.file=PATH  TLS and basic auth, in the Prometheus exporter-toolkit\n"
"                          format: tls_server_config (cert_file, key_file) and\n"
"                          basic_auth_users (name: bcrypt hash); see docs/serve.md\n"
"      --textfile=PATH     after each publication also write the metrics to PATH for\n"
"                          node_exporter's textfile collector: PATH.tmp in the same\n"
"                          directory, fsync, rename. Refused inside a scanned log dir.\n"
"      --once              scan once, write the textfile (or the metrics to stdout\n"
"                          without --textfile) and exit with the scan's exit status;\n"
"                          --web.config.file is checked as for listening (exit 2)\n"
"      --no-evict          keep the pages the scan read in the page cache (default for\n"
"                          serve: --evict)\n"
"  -h, --help              this text\n"
"\n"
"The scan options below are those of `segscan scan` that serve takes (not --format:\n"
"/metrics is the prom format and /v1/partitions the json format; not --progress or\n"
"--quiet: serve draws no progress). --remote-state=- is refused because every scan\n"
"re-reads the file; --stats logs every scan's statistics as one logfmt line. serve\n"
"changes two defaults: --io-priority=idle and --evict.\n"
"\n";

static const char tail_help[] =
"\n"
"Signals:\n"
"  SIGHUP           rescan now; the scan re-reads --topic-config and --remote-state\n"
"                   (every scan does; SIGHUP only does not wait for the interval);\n"
"                   --server-properties is read once at the start (it may be a FIFO):\n"
"                   a change to it takes a restart\n"
"  SIGTERM, SIGINT  stop within a second: stop accepting, let queued responses finish\n"
"                   (250 ms at most), close every connection, let a scan in flight\n"
"                   finish if it does within 0.7 s of the signal, else exit without it\n"
"                   (a scan only reads, and the textfile is replaced by rename)\n"
"\n"
"Logs: one logfmt line per event on stderr, e.g.\n"
"  ts=2026-11-29T17:24:34.123Z level=info msg=\"scan complete\" generation=3 partitions=12\n"
"  segments=480 reused=468 bytes_read=1212416 errors=0 duration_s=0.042 exit_code=0\n"
"\n"
"Exit status:\n"
"  0  stopped by SIGTERM or SIGINT (--once: the scan was complete)\n"
"  1  the service could not start (e.g. the address is in use); --once: some data could\n"
"     not be read or failed verification, or the textfile could not be written\n"
"  2  usage error: a bad option or value, a textfile inside a log dir, or a malformed\n"
"     config or remote-state file on the first scan\n"
"  3  --once: a LOGDIR is missing or unreadable\n"
"\n"
"Examples:\n"
"  segscan serve /var/lib/kafka/data\n"
"  segscan serve --listen=[::1]:" SS_SERVE_DEFAULT_PORT " --interval=300 --max-read-rate=50M \\\n"
"      --avoid-cpus=0-3 --server-properties=/etc/kafka/server.properties\n"
"  segscan serve --once --textfile=/var/lib/node_exporter/segscan.prom /data/kafka\n"
"  curl -s localhost:" SS_SERVE_DEFAULT_PORT "/v1/partitions/orders/3\n"
"\n"
"A hardened systemd unit is in scripts/segscan.service; see docs/serve.md.\n";

/* Scan options serve does not take (so --help does not list them): --format (/metrics is
 * prom, /v1/partitions json), and the progress switches (serve logs, it draws nothing). */
static const char *const not_serve[] = { "format", "progress", "quiet", NULL };

enum { O_LISTEN = 1000, O_INTERVAL, O_TEXTFILE, O_ONCE, O_NO_EVICT, O_WEB_CONFIG, O_FULL_CHECK };

static const struct option serve_opts[] = {
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "interval", required_argument, NULL, O_INTERVAL },
	{ "textfile", required_argument, NULL, O_TEXTFILE },
	{ "once", no_argument, NULL, O_ONCE },
	{ "no-evict", no_argument, NULL, O_NO_EVICT },
	{ "web.config.file", required_argument, NULL, O_WEB_CONFIG },
	{ "full-rescan-interval", required_argument, NULL, O_FULL_CHECK },
};

static int add_kv(struct ss_serve_opts *o, const char *name, const char *value)
{
	struct ss_serve_kv *n = realloc(o->scan_opts, (o->n_scan_opts + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	o->scan_opts = n;
	n[o->n_scan_opts].name = strdup(name);
	n[o->n_scan_opts].value = value ? strdup(value) : NULL;
	if (!n[o->n_scan_opts].name || (value && !n[o->n_scan_opts].value)) {
		free(n[o->n_scan_opts].name);
		free(n[o->n_scan_opts].value);
		return -ENOMEM;
	}
	o->n_scan_opts++;
	return 0;
}

static void free_kv(struct ss_serve_opts *o)
{
	for (size_t i = 0; i < o->n_scan_opts; i++) {
		free(o->scan_opts[i].name);
		free(o->scan_opts[i].value);
	}
	free(o->scan_opts);
	o->scan_opts = NULL;
	o->n_scan_opts = 0;
}

static int parse_interval(const char *v, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < 0.1 || d > 7 * 86400.0)
		return -EINVAL;
	*out = d;
	return 0;
}

/* One of serve's own options: 1 taken, 0 not serve's (a scan option), -1 stop with *rc
 * (an error said on stderr, or --help). */
static int serve_option(int c, struct ss_serve_opts *o, bool *no_evict, int *rc)
{
	switch (c) {
	case O_LISTEN:
		o->listen = optarg;
		return 1;
	case O_INTERVAL:
		if (parse_interval(optarg, &o->interval_s)) {
			fprintf(stderr, "segscan: --interval=%s: expected seconds from 0.1 to 604800\n", optarg);
			return -1;
		}
		return 1;
	case O_FULL_CHECK:
		if (strcmp(optarg, "0") != 0 && parse_interval(optarg, &o->full_check_s)) {
			fprintf(stderr, "segscan: --full-rescan-interval=%s: expected 0 or seconds from 0.1 to "
				"604800\n", optarg);
			return -1;
		}
		if (!strcmp(optarg, "0"))
			o->full_check_s = 0;
		return 1;
	case O_TEXTFILE:
		if (!*optarg) {
			fputs("segscan: --textfile: expected a file path\n", stderr);
			return -1;
		}
		o->textfile = optarg;
		return 1;
	case O_ONCE:
		o->once = true;
		return 1;
	case O_WEB_CONFIG:
		if (!*optarg) {
			fputs("segscan: --web.config.file: expected a file path\n", stderr);
			return -1;
		}
		o->web_config = optarg;
		return 1;
	case O_NO_EVICT:
		*no_evict = true;
		return 1;
	case 'f':
		fputs("segscan: serve has no --format: /metrics is the prom format, /v1/partitions the json "
		      "format\n", stderr);
		return -1;
	case 'h':
		ss_cli_help_except(usage_serve, tail_help, not_serve);
		*rc = 0;
		return -1;
	}
	return 0;
}

/* A scan option given to serve: kept in order in uo (serve's defaults go in front later).
 * -1: refused (said on stderr; *rc 1 when out of memory). */
static int serve_scan_option(const struct option *longopts, int c, int idx, struct ss_serve_opts *o,
			     struct ss_serve_opts *uo, int *rc)
{
	const struct ss_optdef *d = ss_cli_scan_option("serve", longopts, c, idx);
	if (!d)
		return -1;
	if (ss_cli_skipped(not_serve, d->name)) {
		/* --help does not list them: taking them silently would promise something */
		fprintf(stderr, "segscan: serve has no --%s: it draws no progress (its log on stderr is one logfmt "
			"line per event)\nTry 'segscan serve --help'.\n", d->name);
		return -1;
	}
	const char *name = d->name, *val = ss_optdef_has_arg(d) ? optarg : NULL;
	if (!strcmp(name, "remote-state") && val && !strcmp(val, "-")) {
		fputs("segscan: serve cannot take --remote-state=-: every scan re-reads the file; give a path\n", stderr);
		return -1;
	}
	if (!strcmp(name, "stats"))
		o->stats = true;
	if (add_kv(uo, name, val)) {
		fputs("segscan: out of memory\n", stderr);
		*rc = 1;
		return -1;
	}
	return 0;
}

/* The scan options serve runs with: its polite defaults first, so that the user's own
 * values (uo, in order) override them, then --no-evict. */
static int serve_scan_opts(struct ss_serve_opts *o, const struct ss_serve_opts *uo, bool no_evict)
{
	if (add_kv(o, "io-priority", "idle") || add_kv(o, "evict", "true"))
		return -ENOMEM;
	for (size_t i = 0; i < uo->n_scan_opts; i++)
		if (add_kv(o, uo->scan_opts[i].name, uo->scan_opts[i].value))
			return -ENOMEM;
	if (no_evict && add_kv(o, "evict", "false"))
		return -ENOMEM;
	return 0;
}

int ss_cmd_serve(int argc, char **argv)
{
	struct ss_serve_opts o = { .listen = SS_SERVE_DEFAULT_LISTEN, .interval_s = 60,
				   .full_check_s = SS_SERVE_DEFAULT_FULL_CHECK };
	struct ss_serve_opts uo = { 0 };
	struct option *longopts = NULL;
	segscan_scan *probe = NULL;
	bool no_evict = false;
	size_t n_serve = sizeof(serve_opts) / sizeof(serve_opts[0]);
	char shortopts[32];
	int c, idx, r, rc = 2;

	/* serve's own options first: getopt takes the first entry with a name */
	if (!(longopts = ss_cli_longopts(serve_opts, n_serve))) {
		fputs("segscan: out of memory\n", stderr);
		return 1;
	}
	ss_cli_shortopts(shortopts, sizeof(shortopts));
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		int t = serve_option(c, &o, &no_evict, &rc);
		if (t < 0 || (!t && serve_scan_option(longopts, c, idx, &o, &uo, &rc)))
			goto out;
	}
	if (serve_scan_opts(&o, &uo, no_evict)) {
		fputs("segscan: out of memory\n", stderr);
		rc = 1;
		goto out;
	}

	/* every value checked now, against the library itself */
	if ((r = segscan_scan_new(&probe))) {
		fprintf(stderr, "segscan: %s\n", segscan_strerror(r));
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < o.n_scan_opts; i++)
		if (ss_cli_apply(probe, o.scan_opts[i].name, o.scan_opts[i].value))
			goto out;

	o.logdirs = argv + optind;
	o.n_logdirs = (size_t)(argc - optind);
	bool have_props = false;
	for (size_t i = 0; i < o.n_scan_opts; i++)
		have_props |= !strcmp(o.scan_opts[i].name, "server-properties");
	if (!o.n_logdirs && !have_props) {
		fputs("segscan: serve needs at least one LOGDIR (or --server-properties naming log.dirs)\n"
		      "Try 'segscan serve --help'.\n", stderr);
		goto out;
	}
	rc = ss_serve_main(&o);
out:
	segscan_scan_free(probe);
	free_kv(&o);
	free_kv(&uo);
	free(longopts);
	return rc;
}
