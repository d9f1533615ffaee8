/* `segscan scan`: parse options, run one scan, print the report, exit per the contract. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "lib/options.h"
#include "out/out.h"
#include "segscan.h"

static const char usage_scan[] =
"Usage: segscan scan [OPTIONS] LOGDIR...\n"
"       segscan scan [OPTIONS] --server-properties=FILE\n"
"\n"
"One pass over one or more Kafka log dirs (each as listed in a broker's log.dirs, holding\n"
"<topic>-<partition> directories). For every partition: its segments with base, last and\n"
"end offsets, sizes and timestamps; the only-local set, copy lag (strict offsets) beside\n"
"what the broker's RemoteCopyLag metrics report; what size, time and local retention would\n"
"delete; and findings that explain where the broker's own numbers are wrong.\n"
"\n"
"Each log dir is read with its own meta.properties: the log dirs of several brokers of one\n"
"cluster can be scanned together, each partition row is that replica's (node_id), and\n"
"assignment.here and STRAY_PARTITION are evaluated for the replica's own node. Only the\n"
"partition's leader copies to remote storage: copy lag and the broker's copy lag are the\n"
"leader's replica's (leader: true); a follower's row has them null and says why.\n"
"\n"
"What cannot be known is said, never guessed: null in json, '?' in the table, no series\n"
"in prom (remote state no source gives, tiering nothing settles, a config no source\n"
"gives, such as a topic config Kafka sets when it creates an internal topic), and a\n"
"total with an unknown member is unknown (json summary.unknown_partitions counts them).\n"
"\n";

static const char exit_help[] =
"\n"
"Exit status:\n"
"  0  scan complete (findings, including a truncated tail, do not change this)\n"
"  1  scan complete, but some data could not be read or failed verification (each such\n"
"     place is in the report)\n"
"  2  usage error: a bad option or value, an unreadable or malformed config or remote-state\n"
"     file (the message names the file, line and problem); log dirs of different clusters\n"
"     (their meta.properties cluster.id) in one scan\n"
"  3  a LOGDIR is missing or unreadable\n"
"  (1 and 3: each place that could not be read is also a line 'segscan: error: PATH: why'\n"
"  on stderr, whatever the format, -q or not)\n"
"  130 interrupted (SIGINT, Ctrl-C) or 143 terminated (SIGTERM): the scan stops starting\n"
"     segments, finishes those in flight, says so on stderr and writes no report\n"
"\n"
"Examples:\n"
"  segscan scan /var/lib/kafka/data\n"
"  segscan scan --format=ndjson --verify /data/kafka-1 /data/kafka-2\n"
"  segscan scan --server-properties=/etc/kafka/server.properties --topic-config=topics.txt\n"
"  segscan scan --remote-state=remote.ndjson --now=1700000000000 -f json LOGDIR\n";

/* Ctrl-C: the scan stops cleanly (segscan_cancel is one atomic store, safe here) */
static segscan_scan *volatile g_scan;
static volatile sig_atomic_t g_signal;

static void on_signal(int sig)
{
	g_signal = sig;
	if (g_scan)
		segscan_cancel(g_scan);
}

/* Every place the scan could not read, on stderr, whatever the format (issue 20 item 6:
 * `scan /nonexistent` said so only inside the table, and with -f ndjson nowhere): the
 * report's own errors[], the missing log dirs first. -q does not silence them. A scan of
 * a broken disk can fail on every segment: past SS_CLI_MAX_ERRORS lines, one line counts
 * the rest, which the report lists. */
#define SS_CLI_MAX_ERRORS 100
static void print_errors(const segscan_scan *s)
{
	size_t n = segscan_error_count(s);
	for (size_t i = 0; i < n && i < SS_CLI_MAX_ERRORS; i++) {
		char file[4096], msg[1024];
		/* -ERANGE still fills what fits: print that */
		if (segscan_error(s, i, file, sizeof(file), msg, sizeof(msg)) == -ENOENT)
			break;
		/* a segment's message starts with its path inside the log dir ("t-0/0...0.log at
		 * byte 12: ..."): said once, as the table says it, "LOGDIR/t-0/0...0.log at byte 12: ..." */
		const char *rest = NULL;
		for (const char *sl = file; !rest && (sl = strchr(sl, '/')); sl++) {
			size_t k = strlen(sl + 1);
			if (k && !strncmp(msg, sl + 1, k) && (msg[k] == ':' || msg[k] == ' '))
				rest = msg + k;
		}
		fputs("segscan: error: ", stderr);
		/* a path holds whatever bytes its name has: escaped for the terminal */
		ss_term_write(stderr, file, strlen(file));
		if (!rest) {
			fputs(": ", stderr);
			rest = msg;
		}
		ss_term_write(stderr, rest, strlen(rest));
		fputc('\n', stderr);
	}
	if (n > SS_CLI_MAX_ERRORS)
		fprintf(stderr, "segscan: error: %zu more places could not be read (the report lists every one)\n",
			n - SS_CLI_MAX_ERRORS);
}

int ss_cmd_scan(int argc, char **argv)
{
	static const struct ss_cli_scan_cmd scan = { .name = "scan", .usage = usage_scan, .tail = exit_help };
	return ss_cli_run_scan(&scan, argc, argv);
}

/* What the command line asked of the CLI itself, beside the scan's options. */
struct scan_args {
	enum segscan_format fmt;
	bool stats, quiet, force_progress, have_store;
};

/* --format's value into a->fmt; -1 when it is none of them (said on stderr). */
static int parse_format(const char *v, struct scan_args *a)
{
	if (!strcmp(v, "table")) a->fmt = SEGSCAN_FMT_TABLE;
	else if (!strcmp(v, "json")) a->fmt = SEGSCAN_FMT_JSON;
	else if (!strcmp(v, "ndjson")) a->fmt = SEGSCAN_FMT_NDJSON;
	else if (!strcmp(v, "prom")) a->fmt = SEGSCAN_FMT_PROM;
	else {
		fprintf(stderr, "segscan: --format=%s: expected table, json, ndjson or prom\n", v);
		return -1;
	}
	return 0;
}

/* The options into the scan and a, the log dirs into the scan. -1: stop with *rc (an
 * error said on stderr, or --help). */
static int parse_scan_args(const struct ss_cli_scan_cmd *cmd, segscan_scan *s, int argc, char **argv,
			   const struct option *longopts, struct scan_args *a, int *rc)
{
	char shortopts[32];
	int c, idx, r;
	ss_cli_shortopts(shortopts, sizeof(shortopts));
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &idx)) != -1) {
		if (c == 'f') {
			if (parse_format(optarg, a))
				return -1;
			continue;
		}
		if (c == 'h') {
			ss_cli_help(cmd->usage, cmd->tail);
			*rc = 0;
			return -1;
		}
		const struct ss_optdef *d = ss_cli_scan_option(cmd->name, longopts, c, idx);
		if (!d)
			return -1;
		a->stats |= !strcmp(d->name, "stats");
		a->quiet |= !strcmp(d->name, "quiet");
		a->force_progress |= !strcmp(d->name, "progress");
		if (ss_cli_apply(s, d->name, ss_optdef_has_arg(d) ? optarg : NULL))
			return -1;
		a->have_store |= !strcmp(d->name, "remote-store");
	}
	if (cmd->need_store && !a->have_store) {
		fprintf(stderr, "segscan %s: --remote-store=URI is required\nTry 'segscan %s --help'.\n", cmd->name,
			cmd->name);
		return -1;
	}
	for (int i = optind; i < argc; i++) {
		if ((r = segscan_add_logdir(s, argv[i]))) {
			fprintf(stderr, "segscan: %s: %s\n", argv[i], segscan_strerror(r));
			return -1;
		}
	}
	return 0;
}

/* segscan_run with SIGINT and SIGTERM cancelling it (on_signal), the progress line ended
 * before anything else is written. */
static int run_cancellable(segscan_scan *s, struct ss_cli_progress *prog)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	g_scan = s;
	sigaction(SIGINT, &sa, &old_int);     /* restored below */
	sigaction(SIGTERM, &sa, &old_term);
	int r = segscan_run(s);
	ss_cli_progress_finish(prog);   /* nothing of the progress line is left for what follows */
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	g_scan = NULL;
	return r;
}

/* The report on stdout; 0, or 1 with the reason on stderr. */
static int write_report(segscan_scan *s, enum segscan_format fmt)
{
	/* A report into a file or a pipe in 1 MiB writes, not stdio's st_blksize (4 KiB):
	 * a million-segment NDJSON report is 300 MB, 75,000 write(2)s otherwise. A
	 * terminal keeps its line buffering. Nothing has been written to stdout yet. */
	/* (glibc ignores the size without a buffer; this one lives until exit's flush) */
	static char outbuf[1 << 20];
	int r;
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	errno = 0;
	if ((r = segscan_write(s, fmt, stdout))) {
		/* the writers say EIO for any stream error; the write(2) underneath said why
		 * (ENOSPC on a full disk or /dev/full, EPIPE, ...): report that */
		if (r == -EIO && ferror(stdout) && errno && errno != EIO)
			r = -errno;
		fprintf(stderr, "segscan: writing the report: %s\n", segscan_strerror(r));
		return 1;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "segscan: writing the report: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int ss_cli_run_scan(const struct ss_cli_scan_cmd *cmd, int argc, char **argv)
{
	struct scan_args a = { .fmt = SEGSCAN_FMT_TABLE };
	struct ss_cli_progress prog;
	segscan_scan *s = NULL;
	struct option *longopts = NULL;
	int r, rc = 2;

	if ((r = segscan_scan_new(&s))) {
		fprintf(stderr, "segscan: %s\n", segscan_strerror(r));
		return 1;
	}
	if (!(longopts = ss_cli_longopts(NULL, 0))) {
		fputs("segscan: out of memory\n", stderr);
		rc = 1;
		goto out;
	}
	if (parse_scan_args(cmd, s, argc, argv, longopts, &a, &rc))
		goto out;
	/* the library's warnings and progress come back through the renderer (cli/progress.h) */
	ss_cli_progress_init(&prog, stderr, "segscan", a.quiet, a.force_progress);
	if ((r = segscan_set_log(s, ss_cli_log, &prog, SEGSCAN_LOG_INFO))) {
		fprintf(stderr, "segscan: %s\n", segscan_strerror(r));
		rc = 1;
		goto out;
	}
	r = run_cancellable(s, &prog);
	if (g_signal) {
		fprintf(stderr, "segscan: %s: the scan stopped early; no report written\n",
			g_signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)");
		rc = 128 + g_signal;
		goto out;
	}
	if (r) {
		rc = segscan_exit_code(s);
		/* the message may name a file whose name holds anything: escape it */
		const char *m = segscan_last_error(s);
		fputs("segscan: ", stderr);
		ss_term_write(stderr, m, strlen(m));
		fputc('\n', stderr);
		if (rc == 0)
			rc = 1;
		goto out;
	}
	print_errors(s);
	if ((rc = write_report(s, a.fmt)))
		goto out;
	if (a.stats)
		segscan_write_stats(s, stderr);
	rc = segscan_exit_code(s);
out:
	free(longopts);
	segscan_scan_free(s);
	return rc;
}
