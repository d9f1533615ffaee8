/* `segscan dump`: parse options, dump each FILE through src/dump/, exit per the contract. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
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
"                         implies --records\n"
"      --decode=NAME      decode the records of an internal topic (implies --records):\n"
"                         remote-log-metadata (__remote_log_metadata, as the scanner\n"
"                         replays them), cluster-metadata (__cluster_metadata),\n"
"                         consumer-offsets (offset commits, group metadata),\n"
"                         transaction-state, auto (by the partition directory's name;\n"
"                         none for a user topic), none (the default)\n"
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
"  segscan dump --decode=auto -f json LOGDIR/__consumer_offsets-7/00000000000000000000.log\n";

int ss_cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "records", no_argument, NULL, 'r' },
		{ "print-data", no_argument, NULL, 'd' },
		{ "decode", required_argument, NULL, 'D' },
		{ "verify-index", no_argument, NULL, 'V' },
		{ "offsets", required_argument, NULL, 'O' },
		{ "max-bytes", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ss_dump_opts o = { .fmt = SS_DUMP_TEXT, .max_bytes = -1 };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:rdh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text")) o.fmt = SS_DUMP_TEXT;
			else if (!strcmp(optarg, "json")) o.fmt = SS_DUMP_JSON;
			else if (!strcmp(optarg, "ndjson")) o.fmt = SS_DUMP_NDJSON;
			else {
				fprintf(stderr, "segscan: --format=%s: expected text, json or ndjson\n", optarg);
				return 2;
			}
			break;
		case 'r': o.records = true; break;
		case 'd': o.print_data = o.records = true; break;
		case 'V': o.verify_index = true; break;
		case 'D':
			if (ss_dump_parse_decode(optarg, &o.decode)) {
				fprintf(stderr, "segscan: --decode=%s: expected remote-log-metadata, cluster-metadata, "
					"consumer-offsets, transaction-state, auto or none\n", optarg);
				return 2;
			}
			break;
		case 'O':
			if (ss_dump_parse_offsets(optarg, &o)) {
				fprintf(stderr, "segscan: --offsets=%s: expected FROM..TO, FROM.. or ..TO with FROM <= TO, "
					"non-negative integers\n", optarg);
				return 2;
			}
			break;
		case 'M': {
			char *e;
			errno = 0;
			long long v = strtoll(optarg, &e, 10);
			if (errno || *e || e == optarg || v < 0) {
				fprintf(stderr, "segscan: --max-bytes=%s: expected a non-negative integer\n", optarg);
				return 2;
			}
			o.max_bytes = v;
			break;
		}
		case 'h':
			fputs(usage_dump, stdout);
			return 0;
		default:
			fputs("Try 'segscan dump --help'.\n", stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("segscan: dump: no FILE given\nTry 'segscan dump --help'.\n", stderr);
		return 2;
	}
	struct ss_dump d;
	if (ss_dump_init(&d, &o, stdout)) {
		fputs("segscan: out of memory\n", stderr);
		return 1;
	}
	int worst = 0;
	for (int i = optind; i < argc; i++) {
		int r = ss_dump_file(&d, argv[i]);
		if (r == SS_DUMP_MISSING) {
			fputs("segscan: ", stderr);
			ss_term_write(stderr, argv[i], strlen(argv[i]));   /* a name is any bytes */
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
