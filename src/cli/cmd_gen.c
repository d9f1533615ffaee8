/* `segscan gen`: parse options into ss_gen_opts, run the generator, report. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "common/clock.h"
#include "fmt/codec.h"
#include "gen/gen.h"
#include "segscan.h"

static const char usage_gen[] =
"Usage: segscan gen OUTDIR --topics=N --partitions=N --segments=N --segment-bytes=SIZE\n"
"                   [OPTIONS]\n"
"\n"
"Write a synthetic Kafka log dir into OUTDIR, laid out exactly as a Kafka 3.x/4.x broker\n"
"leaves one: <topic>-<partition> directories with v2 record batches (CRC-32C, leader\n"
"epochs, idempotent producer ids), sparse .index/.timeindex files written by Kafka's\n"
"append rules (the active segment's preallocated to 10 MiB), producer snapshots,\n"
"leader-epoch-checkpoint, partition.metadata, and the log-dir files meta.properties,\n"
"recovery-point-offset-checkpoint, log-start-offset-checkpoint,\n"
"replication-offset-checkpoint, cleaner-offset-checkpoint and .kafka_cleanshutdown.\n"
"The output depends only on the options: the same options give the same bytes.\n"
"\n"
"Each partition has 1 to 4 leader epochs, an idempotent producer on most topics, CreateTime\n"
"stamps rising over --span-ms (a few batches late). Non-tiered partitions may have lost\n"
"1 or 2 old segments to retention; one has its log start offset inside its first segment\n"
"(DeleteRecords), so log-start-offset-checkpoint lists it.\n"
"\n"
"Required:\n"
"      --topics=N             number of topics; names such as orders.v2, click-stream,\n"
"                             payments_eu (then orders.v2-1, ...) exercise '.', '-', '_'\n"
"      --partitions=N         partitions per topic\n"
"      --segments=N           local segments per partition, the active one included\n"
"      --segment-bytes=SIZE   segment.bytes: a segment rolls when the next batch would\n"
"                             exceed it. SIZE is bytes or a binary multiple: 64k, 256KiB,\n"
"                             1m, 1MiB, 1g (at most 2GiB-1, as segment.bytes is an int)\n"
"\n"
"Data:\n"
"      --seed=N               seed of every random choice (default 1)\n"
"      --records-per-batch=N  records in each producer batch (default 16)\n"
"      --value-bytes=SIZE     mean record value size, +-25% (default 200); values and keys\n"
"                             are pseudo-random hex text, about 2:1 compressible\n"
"      --compression=none|gzip|snappy|lz4|zstd\n"
"                             batch codec, Kafka's stream formats (default none)\n"
"      --single-record-tail=N the newest N closed segments of every partition hold one\n"
"                             record each (time-based rolls on a quiet partition, the\n"
"                             shape of KAFKA-20977); N must be less than --segments\n"
"      --active-batches=N     batches in the active segment (default: 1 to 4 per\n"
"                             partition; 0 leaves it empty)\n"
"      --start-time=EPOCH_MS  timestamp of the first record (default 1699136000000)\n"
"      --span-ms=MS           time a partition's history covers, approximately (default\n"
"                             864000000, 10 days: the log ends near 1700000000000)\n"
"      --topic-prefix=STR     prepended to every topic name ([a-zA-Z0-9._-])\n"
"      --node-id=N            node.id in meta.properties (default 1)\n"
"      --preallocate          preallocate the active .log to --segment-bytes, as with\n"
"                             log.preallocate=true (a zero-filled tail)\n"
"      --no-clean-shutdown    leave out .kafka_cleanshutdown and the shutdown snapshot:\n"
"                             the dir of a running or crashed broker\n"
"\n"
"Tiered storage (KIP-405):\n"
"      --tiered=FRACTION      share of topics with remote.storage.enable=true (default\n"
"                             0.5: topics 0, 2, 4, ...). Their partitions start above\n"
"                             offset 0: the older segments exist only remotely\n"
"      --remote-only=N        remote-only segments per tiered partition (default 1 to 3)\n"
"      --remote-state=FILE    also write the remote-tier metadata (NDJSON, the format of\n"
"                             'segscan scan --remote-state') that a broker would have\n"
"                             published for this log dir: remote-only segments and every\n"
"                             closed local segment but the newest --uncopied copied\n"
"                             (COPY_SEGMENT_STARTED, COPY_SEGMENT_FINISHED), some dangling\n"
"                             copies, and one partition whose oldest remote segment\n"
"                             retention deleted\n"
"      --uncopied=N           newest closed segments not copied yet (default 1 or 2)\n"
"      --topic-config-out=FILE\n"
"                             write the topic configs ('segscan scan --topic-config'\n"
"                             format) marking the tiered topics, with retention limits;\n"
"                             default with --remote-state: topic-config.txt beside it\n"
"\n"
"Other:\n"
"      --force                write into OUTDIR even if it is not empty (files of an\n"
"                             earlier run with other options are not removed)\n"
"      --progress             progress lines on stderr even when it is not a terminal\n"
"  -q, --quiet                no progress and no summary line\n"
"  -h, --help                 this help\n"
"\n"
"Exit status: 0 done; 1 a file could not be written; 2 usage error (bad option or value,\n"
"OUTDIR not empty).\n"
"\n"
"Examples:\n"
"  segscan gen /tmp/logdir --topics=3 --partitions=4 --segments=6 --segment-bytes=256KiB \\\n"
"      --single-record-tail=2 --seed=42 --remote-state=/tmp/remote.ndjson\n"
"  segscan scan --remote-state=/tmp/remote.ndjson --topic-config=/tmp/topic-config.txt \\\n"
"      --now=1700000000000 /tmp/logdir\n"
"  segscan gen /data/bench --topics=40 --partitions=1000 --segments=25 --segment-bytes=4k \\\n"
"      --records-per-batch=4 --value-bytes=100      # one million segments\n";

enum {
	O_TOPICS = 256, O_PARTITIONS, O_SEGMENTS, O_SEGMENT_BYTES, O_SEED, O_RPB, O_COMPRESSION,
	O_TAIL, O_REMOTE_STATE, O_TOPIC_CONFIG_OUT, O_TOPIC_PREFIX, O_VALUE_BYTES, O_START_TIME,
	O_SPAN, O_TIERED, O_REMOTE_ONLY, O_UNCOPIED, O_ACTIVE_BATCHES, O_NODE_ID, O_PREALLOCATE,
	O_NO_CLEAN, O_FORCE, O_PROGRESS,
};

static const struct option gen_longopts[] = {
	{ "topics", required_argument, NULL, O_TOPICS },
	{ "partitions", required_argument, NULL, O_PARTITIONS },
	{ "segments", required_argument, NULL, O_SEGMENTS },
	{ "segment-bytes", required_argument, NULL, O_SEGMENT_BYTES },
	{ "seed", required_argument, NULL, O_SEED },
	{ "records-per-batch", required_argument, NULL, O_RPB },
	{ "compression", required_argument, NULL, O_COMPRESSION },
	{ "single-record-tail", required_argument, NULL, O_TAIL },
	{ "remote-state", required_argument, NULL, O_REMOTE_STATE },
	{ "topic-config-out", required_argument, NULL, O_TOPIC_CONFIG_OUT },
	{ "topic-prefix", required_argument, NULL, O_TOPIC_PREFIX },
	{ "value-bytes", required_argument, NULL, O_VALUE_BYTES },
	{ "start-time", required_argument, NULL, O_START_TIME },
	{ "span-ms", required_argument, NULL, O_SPAN },
	{ "tiered", required_argument, NULL, O_TIERED },
	{ "remote-only", required_argument, NULL, O_REMOTE_ONLY },
	{ "uncopied", required_argument, NULL, O_UNCOPIED },
	{ "active-batches", required_argument, NULL, O_ACTIVE_BATCHES },
	{ "node-id", required_argument, NULL, O_NODE_ID },
	{ "preallocate", no_argument, NULL, O_PREALLOCATE },
	{ "no-clean-shutdown", no_argument, NULL, O_NO_CLEAN },
	{ "force", no_argument, NULL, O_FORCE },
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Strict decimal: digits only, within [min, max]. */
static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int bad_value(const char *opt, const char *val, const char *what)
{
	fprintf(stderr, "segscan gen: --%s=%s: %s\n", opt, val, what);
	fprintf(stderr, "Try 'segscan gen --help'.\n");
	return 2;
}

struct progress {
	double start;   /* ss_mono() when the run began */
	bool printed;
	struct ss_cli_progress line;   /* the renderer scan uses too (cli/progress.h) */
};

static void on_progress(void *arg, const struct ss_gen_stats *st, uint64_t done, uint64_t total)
{
	struct progress *pr = arg;
	if (!pr->printed && ss_mono() - pr->start < 1.0)
		return;  /* a run shorter than a second needs no progress at all */
	pr->printed = true;
	char extra[64];
	snprintf(extra, sizeof(extra), "%" PRIu64 " segments, %.1f MiB", st->segments,
		 (double)st->log_bytes / 1048576.0);
	/* the renderer throttles (a tty line 10 times a second, plain lines once a second) */
	ss_cli_progress_update(&pr->line, 0, "writing", "partitions", false, done, total, done == total, extra);
}

/* What the command line gives beside the generator's options. */
struct gen_cli {
	bool have_topics, have_parts, have_segs, have_sb;
	bool quiet, want_progress;
};

#define GEN_GO (-1) /* an option taken: go on (anything else is the exit code) */

#define GEN_NOT (-2) /* not an option of this group */

/* One of gen's numeric options into o and g: GEN_GO, GEN_NOT, or the exit code (its
 * message printed). */
static int gen_number_option(int c, const char *name, struct ss_gen_opts *o, struct gen_cli *g)
{
	uint64_t v;
	int64_t sz;
	int r;

	switch (c) {
	case O_TOPICS:
	case O_PARTITIONS:
	case O_SEGMENTS:
		if (parse_u64(optarg, 1, c == O_PARTITIONS ? INT32_MAX : UINT32_MAX, &v))
			return bad_value(name, optarg, "expected a whole number of at least 1");
		if (c == O_TOPICS) { o->topics = (uint32_t)v; g->have_topics = true; }
		if (c == O_PARTITIONS) { o->partitions = (uint32_t)v; g->have_parts = true; }
		if (c == O_SEGMENTS) { o->segments = (uint32_t)v; g->have_segs = true; }
		return GEN_GO;
	case O_SEGMENT_BYTES:
		if ((r = ss_gen_parse_size(optarg, &sz)))
			return bad_value(name, optarg, r == -ERANGE ? "too large" :
					 "expected a size: bytes, or a number with k, m, g (or KiB, MiB, GiB)");
		if (sz > INT32_MAX)
			return bad_value(name, optarg, "at most 2147483647 (2GiB-1): segment.bytes is an int");
		o->segment_bytes = sz;
		g->have_sb = true;
		return GEN_GO;
	case O_VALUE_BYTES:
		if ((r = ss_gen_parse_size(optarg, &sz)) || sz > (1 << 20))
			return bad_value(name, optarg, "expected a size of at most 1MiB");
		o->value_bytes = (uint32_t)sz;
		return GEN_GO;
	case O_SEED:
		if (parse_u64(optarg, 0, UINT64_MAX, &v))
			return bad_value(name, optarg, "expected a whole number (0 to 18446744073709551615)");
		o->seed = v;
		return GEN_GO;
	case O_RPB:
		if (parse_u64(optarg, 1, 1000000, &v))
			return bad_value(name, optarg, "expected a whole number from 1 to 1000000");
		o->records_per_batch = (uint32_t)v;
		return GEN_GO;
	case O_TAIL:
		if (parse_u64(optarg, 0, UINT32_MAX, &v))
			return bad_value(name, optarg, "expected a whole number");
		o->single_record_tail = (uint32_t)v;
		return GEN_GO;
	case O_START_TIME:
		if (parse_u64(optarg, 0, INT64_MAX / 4, &v))
			return bad_value(name, optarg, "expected milliseconds since the epoch");
		o->start_time_ms = (int64_t)v;
		return GEN_GO;
	case O_SPAN:
		if (parse_u64(optarg, 1, INT64_MAX / 4, &v))
			return bad_value(name, optarg, "expected a positive number of milliseconds");
		o->span_ms = (int64_t)v;
		return GEN_GO;
	case O_REMOTE_ONLY:
	case O_UNCOPIED:
	case O_ACTIVE_BATCHES:
		if (parse_u64(optarg, 0, c == O_REMOTE_ONLY ? 1000 : INT32_MAX, &v))
			return bad_value(name, optarg, c == O_REMOTE_ONLY ? "expected a whole number from 0 to 1000"
									  : "expected a whole number");
		if (c == O_REMOTE_ONLY) o->remote_only = (int32_t)v;
		if (c == O_UNCOPIED) o->uncopied = (int32_t)v;
		if (c == O_ACTIVE_BATCHES) o->active_batches = (int32_t)v;
		return GEN_GO;
	case O_NODE_ID:
		if (parse_u64(optarg, 0, INT32_MAX - 3, &v))
			return bad_value(name, optarg, "expected a whole number");
		o->node_id = (int32_t)v;
		return GEN_GO;
	}
	return GEN_NOT;
}

/* One option of `segscan gen` into o and g: GEN_GO, or the exit code (its message printed). */
static int gen_option(int c, const char *name, struct ss_gen_opts *o, struct gen_cli *g)
{
	int r = gen_number_option(c, name, o, g);
	if (r != GEN_NOT)
		return r;
	switch (c) {
	case O_COMPRESSION: {
		enum ss_codec codec;
		if (ss_codec_parse(optarg, &codec))
			return bad_value(name, optarg, "expected none, gzip, snappy, lz4 or zstd");
		o->codec = codec;
		return GEN_GO;
	}
	case O_REMOTE_STATE:
		if (!*optarg || !strcmp(optarg, "-"))
			return bad_value(name, optarg, "expected a file name");
		o->remote_state = optarg;
		return GEN_GO;
	case O_TOPIC_CONFIG_OUT:
		if (!*optarg)
			return bad_value(name, optarg, "expected a file name");
		o->topic_config_out = optarg;
		return GEN_GO;
	case O_TOPIC_PREFIX:
		o->topic_prefix = optarg;
		return GEN_GO;
	case O_TIERED: {
		char *end;
		errno = 0;
		double f = strtod(optarg, &end);
		if (!*optarg || *end || errno || !(f >= 0 && f <= 1))
			return bad_value(name, optarg, "expected a fraction from 0 to 1 (0.5 = every other topic)");
		o->tiered = f;
		return GEN_GO;
	}
	case O_PREALLOCATE: o->preallocate = true; return GEN_GO;
	case O_NO_CLEAN: o->clean_shutdown = false; return GEN_GO;
	case O_FORCE: o->force = true; return GEN_GO;
	case O_PROGRESS: g->want_progress = true; return GEN_GO;
	case 'q': g->quiet = true; return GEN_GO;
	case 'h':
		fputs(usage_gen, stdout);
		return 0;
	default:  /* getopt_long named the problem already */
		fprintf(stderr, "Try 'segscan gen --help'.\n");
		return 2;
	}
	return GEN_GO;
}

/* The command line: o and g filled, GEN_GO; or the exit code (--help, a bad option). */
static int gen_args(int argc, char **argv, struct ss_gen_opts *o, struct gen_cli *g)
{
	int c, r;
	static char prog[] = "segscan gen";  /* getopt_long names argv[0] in its messages */

	if (argc > 0)
		argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", gen_longopts, NULL)) != -1) {
		const char *name = NULL;
		for (const struct option *lo = gen_longopts; lo->name; lo++)
			if (lo->val == c)
				name = lo->name;
		if ((r = gen_option(c, name, o, g)) != GEN_GO)
			return r;
	}
	if (optind >= argc) {
		fprintf(stderr, "segscan gen: missing OUTDIR\nTry 'segscan gen --help'.\n");
		return 2;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "segscan gen: one OUTDIR only (unexpected '%s')\nTry 'segscan gen --help'.\n", argv[optind + 1]);
		return 2;
	}
	o->outdir = argv[optind];
	const char *missing = !g->have_topics ? "--topics" : !g->have_parts ? "--partitions" : !g->have_segs ? "--segments"
			      : !g->have_sb ? "--segment-bytes" : NULL;
	if (missing) {
		fprintf(stderr, "segscan gen: %s is required\nTry 'segscan gen --help'.\n", missing);
		return 2;
	}

	return GEN_GO;
}

int ss_cmd_gen(int argc, char **argv)
{
	struct ss_gen_opts o;
	struct ss_gen_stats st;
	struct progress pr;
	struct gen_cli g = { 0 };
	char err[1024];
	int r;

	ss_gen_opts_init(&o);
	if ((r = gen_args(argc, argv, &o, &g)) != GEN_GO)
		return r;

	memset(&pr, 0, sizeof(pr));
	ss_cli_progress_init(&pr.line, stderr, "segscan gen", g.quiet, g.want_progress);
	if (pr.line.enabled) {
		o.progress = on_progress;
		o.progress_arg = &pr;
	}
	pr.start = ss_mono();
	pr.line.s[0].t0 = pr.start;   /* rate and ETA from the start, not from the first line */
	r = ss_gen_run(&o, &st, err, sizeof(err));
	ss_cli_progress_finish(&pr.line);   /* the summary below starts on a clean line */
	if (r) {
		fprintf(stderr, "segscan gen: %s\n", err[0] ? err : segscan_strerror(r));
		return r == -EINVAL || r == -EEXIST ? 2 : 1;
	}
	if (!g.quiet) {
		double el = ss_mono() - pr.start;
		fprintf(stderr, "segscan gen: %s: %" PRIu64 " partitions, %" PRIu64 " segments, %" PRIu64 " batches, %.1f MiB"
			" in %.2f s (%.0f segments/s)", o.outdir, st.partitions, st.segments, st.batches,
			(double)st.log_bytes / 1048576.0, el, el > 0 ? (double)st.segments / el : 0.0);
		if (o.remote_state)
			fprintf(stderr, "; %s: %" PRIu64 " remote segments (%" PRIu64 " remote-only), %" PRIu64 " events",
				o.remote_state, st.remote_segments, st.remote_only, st.remote_events);
		fputc('\n', stderr);
	}
	return 0;
}
