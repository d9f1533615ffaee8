/*
 * `segscan dump`: what Kafka's DumpLogSegments (core/src/main/scala/kafka/tools/
 * DumpLogSegments.scala) shows of one file at a time, as text close to its lines, JSON or
 * NDJSON. A source and an output for one file: it reads the file (read-only, never more
 * than one batch or a bounded window in memory) and writes what it decodes; the decoding
 * itself is the pure parsers of src/fmt/. docs/contract.md, "dump", has every field.
 *
 *   struct ss_dump d; ss_dump_init(&d, &opts, stdout);
 *   for each FILE: worst = max(worst, ss_dump_file(&d, path));
 *   ss_dump_finish(&d);   // closes the JSON document, flushes
 */
#ifndef SS_DUMP_DUMP_H
#define SS_DUMP_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dump/dout.h"

enum ss_dump_fmt { SS_DUMP_TEXT = 0, SS_DUMP_JSON, SS_DUMP_NDJSON };

enum ss_dump_decode {
	SS_DEC_NONE = 0,
	SS_DEC_AUTO,            /* by the partition directory's name; none for a user topic */
	SS_DEC_RLMM,            /* __remote_log_metadata: fmt/rlmm.h */
	SS_DEC_KRAFT,           /* __cluster_metadata: fmt/kraft.h */
	SS_DEC_OFFSETS,         /* __consumer_offsets: fmt/group_metadata.h */
	SS_DEC_TXN,             /* __transaction_state: fmt/txn_state.h */
};

struct ss_dump_opts {
	enum ss_dump_fmt    fmt;
	bool                records;       /* one object per record too */
	bool                print_data;    /* keys, values and header values */
	bool                verify_index;  /* .index/.timeindex: Kafka's checks against the .log */
	bool                verify_only;   /* ... and the entries not listed (--verify-index-only) */
	bool                sanity_only;   /* only OffsetIndex/TimeIndex.sanityCheck, nothing listed
					    * (--index-sanity-check) */
	enum ss_dump_decode decode;        /* implies records (as Kafka's decoders imply deep iteration) */
	int64_t             max_bytes;     /* < 0: no limit; else read at most this much of a .log */
	bool                has_from, has_to;
	int64_t             from, to;      /* --offsets=FROM..TO, inclusive */
};

/* Exit codes of one file, worst wins: as `segscan scan`'s. */
#define SS_DUMP_OK      0
#define SS_DUMP_DATA    1   /* corrupt, truncated, CRC mismatch, index mismatch, undecodable */
#define SS_DUMP_MISSING 3   /* the file does not exist or cannot be opened */

struct ss_dump {
	struct ss_dump_opts opts;
	struct ss_dout      out;
	bool                started;       /* JSON: the document's head is written */
	/* the file being dumped, and what the writers counted of it (tests read these) */
	const char         *path;
	bool                path_utf8;     /* path is valid UTF-8 (written as it is in JSON) */
	int                 status;        /* SS_DUMP_* so far */
	int64_t             batches, records, errors, entries, crc_errors;
	int64_t             start_pos;     /* where the .log dump began (--offsets) */
	int64_t             valid_bytes;   /* end of the last whole batch read */
	int64_t             trailing;      /* bytes after it that are not a batch */
	int64_t             zero_tail;     /* of those, all zero (preallocated): not an error */
	int64_t             bytes_read;    /* of a .log: bytes read or looked at (holes are not) */
};

int  ss_dump_init(struct ss_dump *d, const struct ss_dump_opts *opts, FILE *out);  /* 0 / -ENOMEM */
/* Dumps one file; returns SS_DUMP_OK, SS_DUMP_DATA or SS_DUMP_MISSING (reported in the
 * output as an error object/line as well). */
int  ss_dump_file(struct ss_dump *d, const char *path);
/* Ends the output; 0 or a negative errno of writing. Frees what init took. */
int  ss_dump_finish(struct ss_dump *d);

/* --offsets=FROM..TO (either side may be empty): 0 or -EINVAL. */
int  ss_dump_parse_offsets(const char *s, struct ss_dump_opts *o);
/* --decode=NAME: 0 or -EINVAL. */
int  ss_dump_parse_decode(const char *s, enum ss_dump_decode *out);

#endif
