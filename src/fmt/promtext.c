/*
 * The Prometheus text exposition format 0.0.4, read (see promtext.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/esc.h"
#include "fmt/lines.h"
#include "fmt/promtext.h"

struct pt {
	const char *fname;
	unsigned    no;
	char       *err;
	size_t      errlen;
	const char *p, *e;             /* the line being read */
	char       *scratch;           /* unescaped label values, line_max + labels_max bytes */
	struct ss_prom_label *labels;
	size_t      labels_max;
};

/* up to 40 bytes of the input at q, escaped (a message never carries raw input bytes) */
struct excerpt {
	char   s[200];
	size_t n;
};
static void put_excerpt(void *arg, const char *p, size_t len)
{
	struct excerpt *x = arg;
	if (len > sizeof(x->s) - 1 - x->n)
		len = sizeof(x->s) - 1 - x->n;
	memcpy(x->s + x->n, p, len);
	x->n += len;
	x->s[x->n] = 0;
}

__attribute__((format(printf, 3, 4))) static int fail(struct pt *t, int r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ss_line_verror(t->err, t->errlen, t->fname, t->no, fmt, ap);
	va_end(ap);
	return r;
}

static int fail_at(struct pt *t, const char *what)
{
	struct excerpt x = { .n = 0 };
	x.s[0] = 0;
	size_t left = (size_t)(t->e - t->p);
	if (left) {
		ss_esc_each(t->p, left > 40 ? 40 : left, SS_ESC_LINE, put_excerpt, &x);
		return fail(t, -EBADMSG, "%s at \"%s%s\"", what, x.s, left > 40 ? "..." : "");
	}
	return fail(t, -EBADMSG, "%s at the end of the line", what);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_blanks(struct pt *t)
{
	while (t->p < t->e && blank(*t->p))
		t->p++;
}

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':'))
		return true;
	return !first && c >= '0' && c <= '9';
}

/* a metric name (colon) or a label name at t->p; its length, 0 when none */
static size_t take_name(struct pt *t, bool colon)
{
	const char *b = t->p;
	while (t->p < t->e && name_char(*t->p, t->p == b, colon))
		t->p++;
	return (size_t)(t->p - b);
}

static bool word_is(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	if (n != wl)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != w[i])
			return false;
	}
	return true;
}

/* The token at t->p up to a blank or the end. */
static size_t take_token(struct pt *t, const char **s)
{
	*s = t->p;
	while (t->p < t->e && !blank(*t->p))
		t->p++;
	return (size_t)(t->p - *s);
}

/* a float as the exporters write it and strconv.ParseFloat reads it (no hex) */
static int parse_value(const char *s, size_t n, double *v)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (word_is(s + i, n - i, "inf") || word_is(s + i, n - i, "infinity")) {
		*v = neg ? -INFINITY : INFINITY;
		return 0;
	}
	if (i == 0 && word_is(s, n, "nan")) {
		*v = NAN;
		return 0;
	}
	size_t digits = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return -EBADMSG;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t ed = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++, ed++;
		if (!ed)
			return -EBADMSG;
	}
	if (i != n || n >= 128)
		return -EBADMSG;
	char tmp[128];
	memcpy(tmp, s, n);
	tmp[n] = 0;
	*v = strtod(tmp, NULL);   /* the syntax is checked above: only the conversion is strtod's */
	return 0;
}

static int parse_ts(const char *s, size_t n, int64_t *ts)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i == n)
		return -EBADMSG;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EBADMSG;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (lim - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ts = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* One "name=\"value\"" at t->p into labels[i], its value unescaped at *out. */
static int take_label(struct pt *t, size_t i, char **out)
{
	struct ss_prom_label *l = &t->labels[i];
	l->name = t->p;
	if (!(l->name_len = take_name(t, false)))
		return fail_at(t, "a label name expected");
	skip_blanks(t);
	if (t->p >= t->e || *t->p != '=')
		return fail_at(t, "'=' expected after a label name");
	t->p++;
	skip_blanks(t);
	if (t->p >= t->e || *t->p != '"')
		return fail_at(t, "a quoted label value expected");
	t->p++;
	char *o = *out;
	l->value = o;
	for (;;) {
		if (t->p >= t->e)
			return fail(t, -EBADMSG, "a label value without its closing quote");
		char c = *t->p++;
		if (c == '"')
			break;
		if (c == '\\' && t->p < t->e) {
			char x = *t->p++;
			if (x == 'n' || x == '\\' || x == '"') {
				*o++ = x == 'n' ? '\n' : x;
				continue;
			}
			*o++ = '\\';   /* another pair stays as written, as Prometheus keeps it */
			c = x;
		}
		*o++ = c;
	}
	l->value_len = (size_t)(o - l->value);
	*o++ = 0;
	*out = o;
	for (size_t j = 0; j < i; j++)
		if (t->labels[j].name_len == l->name_len && !memcmp(t->labels[j].name, l->name, l->name_len))
			return fail(t, -EBADMSG, "the label %.*s twice in one sample", (int)l->name_len, l->name);
	return 0;
}

/* "{...}" at t->p (past the '{'): the labels into t->labels, their count in *n */
static int take_labels(struct pt *t, size_t *n)
{
	char *out = t->scratch;
	*n = 0;
	for (;;) {
		skip_blanks(t);
		if (t->p < t->e && *t->p == '}') {
			t->p++;
			return 0;
		}
		if (*n == t->labels_max)
			return fail(t, -E2BIG, "more than %zu labels in one sample", t->labels_max);
		int r = take_label(t, *n, &out);
		if (r)
			return r;
		(*n)++;
		skip_blanks(t);
		if (t->p < t->e && *t->p == ',')
			t->p++;
		else if (t->p >= t->e || *t->p != '}')
			return fail_at(t, "',' or '}' expected after a label");
	}
}

static int sample(struct pt *t, ss_prom_sample_fn fn, void *arg)
{
	struct ss_prom_sample s = { .name = t->p, .labels = t->labels, .line = t->no };
	int r;
	if (!(s.name_len = take_name(t, true)))
		return fail_at(t, "a metric name expected");
	if (t->p < t->e && !blank(*t->p) && *t->p != '{')
		return fail_at(t, "a blank expected before the value");
	skip_blanks(t);
	if (t->p < t->e && *t->p == '{') {
		t->p++;
		if ((r = take_labels(t, &s.n_labels)))
			return r;
		skip_blanks(t);
	}
	const char *tok;
	size_t tl = take_token(t, &tok);
	if (!tl)
		return fail(t, -EBADMSG, "%.*s: no value", (int)s.name_len, s.name);
	if (parse_value(tok, tl, &s.value)) {
		t->p = tok;
		return fail_at(t, "not a number");
	}
	skip_blanks(t);
	if (t->p < t->e) {
		tl = take_token(t, &tok);
		if ((r = parse_ts(tok, tl, &s.ts_ms))) {
			t->p = tok;
			return fail_at(t, r == -ERANGE ? "a timestamp out of range" : "not a timestamp (integer milliseconds)");
		}
		s.has_ts = true;
		skip_blanks(t);
		if (t->p < t->e)
			return fail_at(t, "the end of the line expected after the timestamp");
	}
	return fn(arg, &s);
}

/* "# HELP name ...", "# TYPE name type", or another comment */
static int comment(struct pt *t)
{
	t->p++;
	skip_blanks(t);
	const char *kw;
	size_t kl = take_token(t, &kw);
	bool help = kl == 4 && !memcmp(kw, "HELP", 4), type = kl == 4 && !memcmp(kw, "TYPE", 4);
	if (!help && !type)
		return 0;
	skip_blanks(t);
	size_t nl = take_name(t, true);
	if (!nl || (t->p < t->e && !blank(*t->p)))
		return fail_at(t, help ? "HELP: a metric name expected" : "TYPE: a metric name expected");
	if (help)
		return 0;   /* the text is free, its escapes (\\ \n) are not needed here */
	skip_blanks(t);
	const char *w;
	size_t wl = take_token(t, &w);
	static const char *const types[] = { "counter", "gauge", "histogram", "summary", "untyped" };
	bool known = false;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		known |= wl == strlen(types[i]) && !memcmp(w, types[i], wl);
	skip_blanks(t);
	if (!known || t->p < t->e) {
		t->p = w;
		return fail_at(t, "TYPE: counter, gauge, histogram, summary or untyped expected");
	}
	return 0;
}

static int each_line(struct pt *t, const char *buf, size_t len, const struct ss_promtext_limits *lim,
		     ss_prom_sample_fn fn, void *arg)
{
	struct ss_lines l = ss_lines_init(buf, len, SS_LINES_LF);
	const char *s;
	size_t n, samples = 0;
	while (ss_lines_next(&l, &s, &n)) {
		t->no = l.no;
		if (n && s[n - 1] == '\r')
			n--;
		if (n > lim->line_max)
			return fail(t, -E2BIG, "a line longer than %zu bytes", lim->line_max);
		t->p = s;
		t->e = s + n;
		skip_blanks(t);
		if (t->p == t->e)
			continue;
		int r;
		if (*t->p == '#')
			r = comment(t);
		else if (++samples > lim->samples_max)
			r = fail(t, -E2BIG, "more than %zu samples", lim->samples_max);
		else
			r = sample(t, fn, arg);
		if (r)
			return r;
	}
	return 0;
}

int ss_promtext_parse(const char *buf, size_t len, const char *fname, const struct ss_promtext_limits *lim,
		      ss_prom_sample_fn fn, void *arg, char *err, size_t errlen)
{
	struct ss_promtext_limits L = lim ? *lim : (struct ss_promtext_limits){ 0 };
	if (!L.line_max)
		L.line_max = SS_PROMTEXT_LINE_MAX;
	if (!L.labels_max)
		L.labels_max = SS_PROMTEXT_LABELS_MAX;
	if (!L.samples_max)
		L.samples_max = SS_PROMTEXT_SAMPLES_MAX;
	if (err && errlen)
		err[0] = 0;
	struct pt t = { .fname = fname ? fname : "metrics", .err = err, .errlen = errlen, .labels_max = L.labels_max };
	/* a value is never longer than its escaped form: one line's values and their NULs fit */
	t.scratch = malloc(L.line_max + L.labels_max);
	t.labels = calloc(L.labels_max, sizeof(*t.labels));
	int r = -ENOMEM;
	if (!t.scratch || !t.labels)
		goto out;
	r = each_line(&t, buf, len, &L, fn, arg);
out:
	free(t.scratch);
	free(t.labels);
	return r;
}

const struct ss_prom_label *ss_prom_label_find(const struct ss_prom_sample *s, const char *name)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i < s->n_labels; i++)
		if (s->labels[i].name_len == nl && !memcmp(s->labels[i].name, name, nl))
			return &s->labels[i];
	return NULL;
}
