/* `segscan dump`: parse options, dump each FILE through src/dump/, exit per the contract. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/darray.h"
#include "dump/dump.h"
#include "out/out.h"

static const char usage_dump[] =
"Usage: segscan dump [OPTIONS] FILE...\n"
"\n"
"Show what is inside the files of a Kafka partition directory, one file after another, as\n"
"Kafka's kafka-dump-log.sh (DumpLogSegments) shows them, in text close to its lines or as\n"
"JSON / NDJSON for tools. The kind of each FILE comes from its name:\n"
"\n"
"  NNN.log, NNN-EEE.checkpoint   record batches (a KRaft snapshot is a log too): one item\n"
"                                per batch; with --records also one per record\n"
"  NNN.index, NNN.timeindex      index entries; --verify-index checks them against NNN.log\n"
"  NNN.snapshot                  producer state (one item per producer id)\n"
"  NNN.txnindex                  aborted transactions\n"
"  leader-epoch-checkpoint       epoch -> start offset entries\n"
"  *-checkpoint                  the log dir's offset checkpoints (recovery-point-offset-,\n"
"                                replication-offset-, log-start-offset-, cleaner-offset-)\n"
"  partition.metadata            the topic id\n"
"\n"
"A corrupt or truncated batch ends that file's dump with an error item naming the byte\n"
"position and the reason; the dump goes on with the next FILE. Files are only read.\n"
"\n"
"Options:\n"
"  -f, --format=text|json|ndjson\n"
"                         output format (default text). text: DumpLogSegments' lines\n"
"                         (\"baseOffset: 0 lastOffset: 3 count: 4 ...\", records as \"| offset:\n"
"                         ...\"); json: one document {\"files\": [{file, kind, items, status,\n"
"                         ...}]}, records nested in their batch; ndjson: one object per line\n"
"                         (type file, batch, record, index_entry, ..., error, file_end), each\n"
"                         with \"type\" and \"file\", for jq and streaming\n"
"  -r, --records          also each record of each batch (offset, timestamp_ms, key_size,\n"
"                         value_size, sequence, headers); compressed batches are\n"
"                         decompressed; control records decoded (COMMIT/ABORT with their\n"
"                         coordinator epoch, and the KRaft control types)\n"
"  -d, --print-data       with the records, their keys, values and header values: UTF-8\n"
"                         text when valid and free of NUL bytes, else base64, marked\n"
"                         which (key_encoding, value_encoding: \"utf8\" | \"base64\");\n"
"                         implies --records. In the text format a control character, a\n"
"                         newline or a byte that is not UTF-8 is shown escaped (\\x1b,\n"
"                         \\x0a, \\u009b, \\xff), so no byte of a file reaches the terminal\n"
"                         raw; the JSON formats keep the text exact\n"
"      --decode=remote-log-metadata|cluster-metadata|consumer-offsets|transaction-state|auto|none\n"
"                         decode the records of an internal topic (implies --records):\n"
"                         remote-log-metadata (__remote_log_metadata, as the scanner\n"
"                         replays them), cluster-metadata (__cluster_metadata),\n"
"                         consumer-offsets (offset commits, group metadata),\n"
"                         transaction-state, auto (by the partition directory's name;\n"
"                         none for a user topic), none (the default). A decoded string\n"
"                         that is not UTF-8 shows each stray byte as \\xHH (four\n"
"                         characters), so 0xFF and a real U+00FF differ\n"
"      --verify-index     .index/.timeindex: Kafka's checks (a whole number of entries,\n"
"                         increasing entries, positions inside the log, each entry naming\n"
"                         the last offset of the batch it points at, each time entry that\n"
"                         batch's max timestamp); the first mismatch is reported\n"
"      --offsets=FROM..TO only batches and records with offsets in [FROM, TO]; either side\n"
"                         may be left out. The dump starts where the segment's offset index\n"
"                         says FROM is, not at the start of the file\n"
"      --max-bytes=N      read at most N bytes of each .log (from where the dump starts);\n"
"                         a batch cut by the limit is not shown and is not an error\n"
"  -h, --help             this help\n"
"\n"
"kafka-dump-log.sh's own options are accepted too, as what they mean here:\n"
"      --files=FILE,FILE...  the FILEs, comma-separated (dumped before any operand)\n"
"      --deep-iteration      --records\n"
"      --print-data-log      --print-data\n"
"      --offsets-decoder     --decode=consumer-offsets\n"
"      --transaction-log-decoder    --decode=transaction-state\n"
"      --cluster-metadata-decoder   --decode=cluster-metadata\n"
"      --remote-log-metadata-decoder  --decode=remote-log-metadata\n"
"      --verify-index-only   --verify-index without listing the entries\n"
"      --index-sanity-check  only the check a broker runs at startup (OffsetIndex/\n"
"                            TimeIndex.sanityCheck: a whole number of entries, the last\n"
"                            offset not below the base offset, the last timestamp not\n"
"                            below the first); no entry listed, the .log not read\n"
"An unknown option is refused with the nearest real one named.\n"
"\n"
"Exit status:\n"
"  0  every FILE dumped; nothing wrong found\n"
"  1  some FILE has a data problem: a corrupt or truncated batch, a CRC mismatch, an index\n"
"     that fails --verify-index, a record its decoder cannot read, an unknown kind of file\n"
"     (each such place is in the output)\n"
"  2  usage error: a bad option or value, no FILE\n"
"  3  a FILE is missing or unreadable (the others are still dumped)\n"
"\n"
"Examples:\n"
"  segscan dump /var/lib/kafka/data/orders-0/00000000000000000000.log\n"
"  segscan dump -f ndjson --records --print-data LOGDIR/orders-0/*.log | jq .value\n"
"  segscan dump --offsets=1200..1300 --records LOGDIR/orders-0/00000000000000001000.log\n"
"  segscan dump --verify-index LOGDIR/orders-0/*.index LOGDIR/orders-0/*.timeindex\n"
"  segscan dump --decode=auto -f json LOGDIR/__consumer_offsets-7/00000000000000000000.log\n"
"  segscan dump --deep-iteration --print-data-log --files LOGDIR/orders-0/00000000000000000000.log\n";

/* kafka-dump-log's own flags (DumpLogSegments' DumpLogSegmentsOptions), accepted as
 * aliases so that an operator's habits and scripts carry over; each maps to ours. */
enum {
	OPT_DECODE = 0x100, OPT_VERIFY, OPT_OFFSETS, OPT_MAX_BYTES, OPT_FILES, OPT_OFFSETS_DEC,
	OPT_TXN_DEC, OPT_KRAFT_DEC, OPT_RLMM_DEC, OPT_SANITY, OPT_VERIFY_ONLY,
};

static const struct option dump_longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "records", no_argument, NULL, 'r' },
	{ "print-data", no_argument, NULL, 'd' },
	{ "decode", required_argument, NULL, OPT_DECODE },
	{ "verify-index", no_argument, NULL, OPT_VERIFY },
	{ "offsets", required_argument, NULL, OPT_OFFSETS },
	{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
	{ "help", no_argument, NULL, 'h' },
	/* kafka-dump-log's */
	{ "files", required_argument, NULL, OPT_FILES },                 /* FILE,FILE,... */
	{ "deep-iteration", no_argument, NULL, 'r' },                    /* --records */
	{ "print-data-log", no_argument, NULL, 'd' },                    /* --print-data */
	{ "offsets-decoder", no_argument, NULL, OPT_OFFSETS_DEC },       /* --decode=consumer-offsets */
	{ "transaction-log-decoder", no_argument, NULL, OPT_TXN_DEC },   /* --decode=transaction-state */
	{ "cluster-metadata-decoder", no_argument, NULL, OPT_KRAFT_DEC },        /* --decode=cluster-metadata */
	{ "remote-log-metadata-decoder", no_argument, NULL, OPT_RLMM_DEC },      /* --decode=remote-log-metadata */
	{ "index-sanity-check", no_argument, NULL, OPT_SANITY },         /* the sanity check alone */
	{ "verify-index-only", no_argument, NULL, OPT_VERIFY_ONLY },     /* --verify-index, no listing */
	{ NULL, 0, NULL, 0 },
};

/* Levenshtein distance of a[0..al) and b, capped: what "did you mean" ranks by. */
static size_t edit_distance(const char *a, size_t al, const char *b)
{
	size_t bl = strlen(b), row[64];
	if (al >= 63 || bl >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= bl; j++)
		row[j] = j;
	for (size_t i = 1; i <= al; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= bl; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[bl];
}

/* The long option nearest to what was typed (`arg`, dashes and any "=VALUE" included), or
 * NULL when none is near: an abbreviation of one, or a few typos away. */
static const char *nearest_option(const char *arg)
{
	while (*arg == '-')
		arg++;
	size_t n = strcspn(arg, "=");
	const char *best = NULL;
	size_t bd = SIZE_MAX;
	for (const struct option *o = dump_longopts; o->name; o++) {
		size_t dd = strncmp(o->name, arg, n) == 0 ? 0 : edit_distance(arg, n, o->name);
		if (dd < bd) {
			bd = dd;
			best = o->name;
		}
	}
	return bd <= (n < 6 ? 2 : n / 3) ? best : NULL;
}

/* An option getopt_long refused: which, and the nearest real one. */
static void bad_option(int c, const char *arg)
{
	fputs("segscan: dump: ", stderr);
	if (c == ':') {
		fputs("option '", stderr);
		ss_term_write(stderr, arg, strlen(arg));
		fputs("' needs a value", stderr);
	} else {
		fputs("unknown option '", stderr);
		ss_term_write(stderr, arg, strlen(arg));
		fputc('\'', stderr);
		const char *near = arg[0] == '-' && arg[1] == '-' ? nearest_option(arg) : NULL;
		if (near)
			fprintf(stderr, "; did you mean '--%s'?", near);
	}
	fputs("\nTry 'segscan dump --help'.\n", stderr);
}

/* A value of an option refused: the option, the value (escaped: it is any bytes), why. */
static void bad_value(const char *opt, const char *val, const char *expected)
{
	fprintf(stderr, "segscan: %s=", opt);
	ss_term_write(stderr, val, strlen(val));
	fprintf(stderr, ": %s\n", expected);
}

/* The FILEs: --files' names (in copies of its arguments, cut at the commas) in order, then
 * the operands; dump_files_free is the partner of both pushes. */
struct dump_files {
	char   **files, **bufs;
	uint32_t nfiles, cfiles, nbufs, cbufs;
};

#define DUMP_GO (-1) /* go on; anything else is the exit code */

static int oom(void)
{
	fputs("segscan: out of memory\n", stderr);
	return 1;
}

/* The command line into o and fl: DUMP_GO, or the exit code with its message printed
 * (--help: 0). */
/* --files: kafka-dump-log's "comma separated list of data and index log files". */
static int add_files(struct dump_files *fl, const char *arg)
{
	char **slot;
	char *copy = strdup(arg);
	if (!copy || SS_DA_PUSH(&fl->bufs, &fl->nbufs, &fl->cbufs, &slot) < 0) {
		free(copy);
		return -ENOMEM;
	}
	*slot = copy;   /* freed with fl->bufs: the names point into it */
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (SS_DA_PUSH(&fl->files, &fl->nfiles, &fl->cfiles, &slot) < 0)
			return -ENOMEM;
		*slot = t;
	}
	return 0;
}

static int parse_max_bytes(const char *arg, int64_t *out)
{
	char *e;
	errno = 0;
	long long v = strtoll(arg, &e, 10);
	if (errno || *e || e == arg || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* What getopt_long stopped at, said with the nearest option: the argument, or for a
 * short option just "-X". */
static void bad_getopt(int c, int argc, char **argv)
{
	char shortopt[3] = { '-', (char)optopt, 0 };
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (optopt && optopt < 0x100 && !(arg[0] == '-' && arg[1] == '-'))
		arg = shortopt;
	bad_option(c, arg);
}

static int dump_args(int argc, char **argv, struct ss_dump_opts *o, struct dump_files *fl)
{
	char **slot;
	int c;

	optind = 1;
	opterr = 0;   /* bad_option says it, with the nearest option */
	while ((c = getopt_long(argc, argv, ":f:rdh", dump_longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text")) o->fmt = SS_DUMP_TEXT;
			else if (!strcmp(optarg, "json")) o->fmt = SS_DUMP_JSON;
			else if (!strcmp(optarg, "ndjson")) o->fmt = SS_DUMP_NDJSON;
			else {
				bad_value("--format", optarg, "expected text, json or ndjson");
				return 2;
			}
			break;
		case 'r': o->records = true; break;
		case 'd': o->print_data = o->records = true; break;
		case OPT_VERIFY: o->verify_index = true; break;
		case OPT_VERIFY_ONLY: o->verify_index = o->verify_only = true; break;
		case OPT_SANITY: o->verify_index = o->sanity_only = true; break;
		case OPT_OFFSETS_DEC: o->decode = SS_DEC_OFFSETS; break;
		case OPT_TXN_DEC: o->decode = SS_DEC_TXN; break;
		case OPT_KRAFT_DEC: o->decode = SS_DEC_KRAFT; break;
		case OPT_RLMM_DEC: o->decode = SS_DEC_RLMM; break;
		case OPT_FILES:
			if (add_files(fl, optarg))
				return oom();
			break;
		case OPT_DECODE:
			if (ss_dump_parse_decode(optarg, &o->decode)) {
				bad_value("--decode", optarg, "expected remote-log-metadata, cluster-metadata, "
					  "consumer-offsets, transaction-state, auto or none");
				return 2;
			}
			break;
		case OPT_OFFSETS:
			if (ss_dump_parse_offsets(optarg, o)) {
				bad_value("--offsets", optarg, "expected FROM..TO, FROM.. or ..TO with FROM <= TO, "
					  "non-negative integers");
				return 2;
			}
			break;
		case OPT_MAX_BYTES:
			if (parse_max_bytes(optarg, &o->max_bytes)) {
				bad_value("--max-bytes", optarg, "expected a non-negative integer");
				return 2;
			}
			break;
		case 'h':
			fputs(usage_dump, stdout);
			return 0;
		default:
			bad_getopt(c, argc, argv);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (SS_DA_PUSH(&fl->files, &fl->nfiles, &fl->cfiles, &slot) < 0)
			return oom();
		*slot = argv[i];
	}
	if (fl->nfiles == 0) {
		fputs("segscan: dump: no FILE given\nTry 'segscan dump --help'.\n", stderr);
		return 2;
	}
	return DUMP_GO;
}

/* Each FILE dumped in order: the worst file's exit code, or 1 when the output failed. */
static int dump_run(const struct ss_dump_opts *o, const struct dump_files *fl)
{
	struct ss_dump d;
	if (ss_dump_init(&d, o, stdout))
		return oom();
	int worst = 0;
	for (uint32_t i = 0; i < fl->nfiles; i++) {
		int r = ss_dump_file(&d, fl->files[i]);
		if (r == SS_DUMP_MISSING) {
			fputs("segscan: ", stderr);
			ss_term_write(stderr, fl->files[i], strlen(fl->files[i]));   /* a name is any bytes */
			fputs(": cannot be read\n", stderr);
		}
		if (r > worst)
			worst = r;
	}
	if (ss_dump_finish(&d) || fflush(stdout)) {
		fprintf(stderr, "segscan: writing the dump: %s\n", strerror(errno));
		return 1;
	}
	return worst;
}

int ss_cmd_dump(int argc, char **argv)
{
	struct ss_dump_opts o = { .fmt = SS_DUMP_TEXT, .max_bytes = -1 };
	struct dump_files fl = { 0 };
	int rc = dump_args(argc, argv, &o, &fl);
	if (rc == DUMP_GO)
		rc = dump_run(&o, &fl);
	for (uint32_t i = 0; i < fl.nbufs; i++)
		free(fl.bufs[i]);   /* pairs with the strdup of --files */
	free(fl.bufs);
	free(fl.files);         /* pairs with SS_DA_PUSH */
	return rc;
}
