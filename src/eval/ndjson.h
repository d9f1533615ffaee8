/*
 * The --remote-state file: NDJSON, one remote metadata event per line, applied in order
 * to a STRICT-mode store (interface.md "Remote state file"). Every problem is an error
 * naming FILE:LINE, never a silent skip.
 */
#ifndef SS_EVAL_NDJSON_H
#define SS_EVAL_NDJSON_H

#include <stddef.h>
#include <stdio.h>

#include "eval/remote.h"

/*
 * Read every line of f (the caller opens the file, or passes stdin for "-") and apply it.
 * fname is used in messages only. Returns 0, or SEGSCAN_EJSON (malformed line, wrong type,
 * missing field), SEGSCAN_ESCHEMA, SEGSCAN_ETRANSITION, SEGSCAN_EUNKNOWNSEG,
 * SEGSCAN_EMISMATCH, -EIO or -ENOMEM, with "FILE:LINE: problem" in err.
 * Blank lines are allowed.
 */
int ss_ndjson_read(struct ss_remote *r, FILE *f, const char *fname, char *err, size_t errlen);

/* The same over a buffer (tests, fuzzing). */
int ss_ndjson_read_buf(struct ss_remote *r, const char *buf, size_t len, const char *fname, char *err,
		       size_t errlen);

#endif
