/*
 * The Prometheus text exposition format 0.0.4, read: what a broker's JMX exporter
 * (jmx_prometheus_javaagent) answers on /metrics, and what Prometheus's own scraper reads
 * (prometheus/prometheus model/textparse/promparse.go). Pure: no I/O, no threads; the
 * caller gets each sample through a callback, nothing is kept past it.
 *
 *   # HELP name text         checked for a valid name; the text is not kept
 *   # TYPE name counter|gauge|histogram|summary|untyped   anything else is an error
 *   # anything else          a comment
 *   name[{l="v",...}] value [timestamp_ms]
 *
 * Lines end at '\n'; a '\r' before it is dropped (CRLF); empty and blank lines are skipped.
 * Tokens are separated by blanks and tabs. Metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label
 * names [a-zA-Z_][a-zA-Z0-9_]*, a label set may end with a comma, a label name twice in one
 * set is an error. Label values are unescaped: \\ \" \n; any other backslash pair stays as
 * written, as Prometheus's scraper keeps it. Values as Go's strconv.ParseFloat reads the
 * exporters' output: decimal with an optional fraction and exponent (1.0E9, 5e-3),
 * NaN, Inf, +Inf, -Inf (case-insensitive); hex floats are refused. The timestamp is an
 * integer (milliseconds since the epoch), optional.
 *
 * Duplicate series (the same name and labels twice) are delivered as they come: what they
 * mean is the caller's. Bounded: a line longer than limits.line_max, more than
 * limits.labels_max labels in one sample, or more than limits.samples_max samples is an
 * error. The first bad line ends the parse (as Prometheus fails a scrape on it): the
 * return is -EBADMSG with "FNAME:LINE: problem" in err (input bytes escaped), -E2BIG for
 * a bound, -ENOMEM, or the callback's own nonzero return.
 *
 * Fuzzed: tests/fuzz/fuzz_promtext.c.
 */
#ifndef SS_FMT_PROMTEXT_H
#define SS_FMT_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SS_PROMTEXT_LINE_MAX    ((size_t)64 << 10)
#define SS_PROMTEXT_LABELS_MAX  64
#define SS_PROMTEXT_SAMPLES_MAX ((size_t)1 << 20)

struct ss_promtext_limits {
	size_t line_max, labels_max, samples_max;   /* 0: the SS_PROMTEXT_* default */
};

struct ss_prom_label {
	const char *name;      /* in the input, not NUL-terminated */
	size_t      name_len;
	const char *value;     /* unescaped, NUL-terminated, valid during the callback only */
	size_t      value_len;
};

struct ss_prom_sample {
	const char                 *name;      /* in the input, not NUL-terminated */
	size_t                      name_len;
	size_t                      n_labels;
	const struct ss_prom_label *labels;    /* in the order written */
	double                      value;     /* NaN and the infinities as such */
	bool                        has_ts;
	int64_t                     ts_ms;
	unsigned                    line;      /* 1-based */
};

typedef int (*ss_prom_sample_fn)(void *arg, const struct ss_prom_sample *s);

int ss_promtext_parse(const char *buf, size_t len, const char *fname, const struct ss_promtext_limits *lim,
		      ss_prom_sample_fn fn, void *arg, char *err, size_t errlen);

/* The value of label name in s, or NULL. */
const struct ss_prom_label *ss_prom_label_find(const struct ss_prom_sample *s, const char *name);

#endif
