/*
 * The --remote-state file: NDJSON, one remote metadata event per line (docs/contract.md
 * "Remote state file"), parsed into struct ss_remote_event and handed to a callback in
 * file order; the caller's callback applies them (eval/remote.h: ss_remote_apply_fn into
 * a STRICT-mode store). Pure: no I/O (src/source/local_files.c reads the file). Every
 * problem is an error naming FILE:LINE, never a silent skip.
 */
#ifndef SS_FMT_NDJSON_H
#define SS_FMT_NDJSON_H

#include <stddef.h>

#include "fmt/remote_event.h"

/*
 * Parse buf[0..len) line by line and hand each event to fn. fname is used in messages
 * only. Returns 0, or SEGSCAN_EJSON (malformed line, wrong type, missing field), or the
 * callback's negative return (SEGSCAN_ESCHEMA, SEGSCAN_ETRANSITION, SEGSCAN_EUNKNOWNSEG,
 * SEGSCAN_EMISMATCH from a STRICT store), or -ENOMEM, with "FILE:LINE: problem" in err.
 * A positive callback return (the consumer dropped the event) is not an error.
 * Blank lines are allowed.
 */
/* The longest line accepted (SEGSCAN_EJSON "FILE:LINE: line of N bytes is over the cap"
 * beyond): a segment event with 100k leader epochs is about 3 MiB. A bound, so that one
 * hostile line cannot make the JSON parser allocate a multiple of its size. */
#define SS_NDJSON_LINE_MAX ((size_t)4 << 20)

int ss_ndjson_parse(const char *buf, size_t len, const char *fname, ss_remote_event_fn fn, void *arg, char *err,
		    size_t errlen);

#endif
