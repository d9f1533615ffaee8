/*
 * The scan options: one table (name, type, default, range, error text, help text) that
 * drives segscan_set(), the defaults of segscan_scan_new(), the CLI's getopt table and
 * the --help text of `scan` and `serve`. Adding an option is one row here plus its field
 * in struct ss_opts (scan/scan_int.h).
 */
#ifndef SS_LIB_OPTIONS_H
#define SS_LIB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ss_opts;

enum ss_opt_type {
	SS_OPT_BOOL,    /* true|false|1|0|yes|no|on|off into a bool; on the CLI a flag (no value = true) */
	SS_OPT_INT,     /* strict decimal within [lo, hi] into an int64_t (or unsigned, see `narrow`) */
	SS_OPT_RATE,    /* decimal with an optional k, M or G suffix (x1000) into an int64_t */
	SS_OPT_CHOICE,  /* one of the words of `values` ("a|b|c"), stored as an owned string */
	SS_OPT_SWITCH,  /* one of the two words of `values`, stored as a bool: true for the first */
	SS_OPT_STRING,  /* non-empty text (a path), stored as an owned string */
	SS_OPT_KVER,    /* a Kafka release "4.3.1" or line "4.1" (eval/releases.h), as an owned string */
	SS_OPT_CPULIST, /* "0-3,8" into a cpu_set_t */
	SS_OPT_SEED,    /* TOPIC-PARTITION=OFFSET, appended to the seeds (repeatable) */
	SS_OPT_PARTITION, /* TOPIC-N, appended to the partition filter (repeatable) */
	SS_OPT_DURATION,/* decimal with an optional unit ms, s, m, h or d (none: ms), within
			   [lo, hi] milliseconds, into an int64_t */
	SS_OPT_BMETRICS,/* [NODE_ID=]http(s)://..., appended to the broker-metrics endpoints
			   (repeatable: one without NODE_ID, or one per NODE_ID) */
};

struct ss_optdef {
	const char      *name;      /* segscan_set() name = the CLI's long option without dashes */
	enum ss_opt_type type;
	char             short_name;/* the CLI's short option, 0 for none */
	const char      *values;    /* CHOICE/SWITCH: the accepted words; otherwise the help's
				       metavar ("N", "FILE"); NULL for a BOOL flag */
	int64_t          lo, hi;    /* INT: the accepted range */
	bool             narrow;    /* INT: the field is an unsigned, not an int64_t */
	const char      *def;       /* default as value text, applied by segscan_scan_new();
				       NULL: zero, or computed at run time (the help says how) */
	size_t           off;       /* the field in struct ss_opts */
	size_t           has_off;   /* SS_OPT_HAS(field): a bool set when the option is given
				       (CPULIST: when the list is not empty); 0 for none */
	const char      *err;       /* the message for a bad value (segscan_last_error) */
	const char      *help;      /* --help description, lines wrapped for column 25 */
};

#define SS_OPT_HAS(field) (offsetof(struct ss_opts, field) + 1)

extern const struct ss_optdef ss_optdefs[];
extern const size_t ss_n_optdefs;

/* The row named `name`, or NULL. */
const struct ss_optdef *ss_optdef_find(const char *name);

/* Does the option take a value on the command line? (BOOL rows are flags.) */
static inline bool ss_optdef_has_arg(const struct ss_optdef *d) { return d->type != SS_OPT_BOOL; }

/* Parse v per d into o. Returns 0, -EINVAL for a bad value (the message is d->err), or
 * -ENOMEM. */
int ss_opt_apply(struct ss_opts *o, const struct ss_optdef *d, const char *v);

/* Apply every row's default to o (zeroed by the caller). Returns 0 or -ENOMEM. */
int ss_opts_init(struct ss_opts *o);
/* Free what ss_opt_apply allocated in o. */
void ss_opts_release(struct ss_opts *o);

/* The help lines of every row, in table order, as `segscan scan --help` prints them. */
void ss_opts_write_help(FILE *f);
/* The help lines of one row (a command that takes only some rows: serve). */
void ss_optdef_write_help(FILE *f, const struct ss_optdef *d);

/* --seed=TOPIC-PARTITION=OFFSET: splits at the first '=' and then at the last '-' before it.
 * *topic is malloc'd. OFFSET may be -1 (nothing in remote storage). -EINVAL when malformed. */
int ss_seed_parse(const char *arg, char **topic, int32_t *partition, int64_t *offset);

/* --broker-metrics=[NODE_ID=]URL: NODE_ID (-1 when not given) and the URL (malloc'd).
 * -EINVAL when malformed: not http(s)://, or credentials in the URL (they would show in
 * the process list: basic_auth in --http.config.file). */
int ss_bmetrics_parse(const char *arg, int32_t *node_id, char **url);

#endif
