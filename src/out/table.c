/*
 * The human report: one line per partition with per-topic totals, local vs remote,
 * copy lag beside what the broker reports, retention predictions, then every finding,
 * error and note spelled out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/out.h"
#include "segscan.h"

static const char *lag_text(bool null, int64_t segs, int64_t bytes, char *buf, size_t len)
{
	char b[32];
	if (null)
		snprintf(buf, len, "-");
	else if (segs == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%" PRId64 " seg/%s", segs, ss_human_bytes(bytes, b, sizeof(b)));
	return buf;
}

static const char *retention_text(const struct ss_eval *ev, char *buf, size_t len)
{
	char b[32];
	int64_t segs = (int64_t)ev->size.n_delete + ev->time.n_delete;
	int64_t bytes = ev->size.delete_bytes + ev->time.delete_bytes;
	if (!ev->size.evaluated && !ev->time.evaluated && !ev->local.evaluated)
		snprintf(buf, len, "not evaluated");
	else if (segs == 0 && ev->local.n_delete == 0)
		snprintf(buf, len, "nothing due");
	else if (ev->local.n_delete && segs == 0)
		snprintf(buf, len, "local: %u seg/%s", ev->local.n_delete,
			 ss_human_bytes(ev->local.delete_bytes, b, sizeof(b)));
	else
		snprintf(buf, len, "%s%" PRId64 " seg/%s", ev->tiered ? "remote: " : "", segs,
			 ss_human_bytes(bytes, b, sizeof(b)));
	return buf;
}

static void finding_codes(const struct ss_eval *ev, char *buf, size_t len)
{
	buf[0] = 0;
	size_t n = 0;
	for (uint32_t i = 0; i < ev->n_findings && n + 2 < len; i++) {
		/* one mention per code */
		bool seen = false;
		for (uint32_t k = 0; k < i; k++)
			if (strcmp(ev->findings[k].code, ev->findings[i].code) == 0)
				seen = true;
		if (seen)
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", ev->findings[i].code);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	if (!n)
		snprintf(buf, len, "-");
}

static const char *one_line(const char *s, char *buf, size_t len);

/* Which sources the report stands on, and what is missing (the cluster context). */
static void write_sources(const struct ss_results *r, FILE *f)
{
	const struct ss_res_cluster *c = &r->cluster;
	char esc[5 * 4096];   /* the broker config's path: from a command line (one_line) */
	if (c->metadata_log)
		fprintf(f, "  metadata log: yes, to offset %" PRId64 "%s%s%s, %" PRIu64 " records%s", c->last_offset,
			c->snapshot ? " (snapshot " : "", c->snapshot ? c->snapshot : "", c->snapshot ? ")" : "",
			c->records, c->warnings ? " with warnings" : "");
	else
		fprintf(f, "  metadata log: no%s%s%s", c->metadata_why_not ? " (" : "",
			c->metadata_why_not ? c->metadata_why_not : "", c->metadata_why_not ? ")" : "");
	fprintf(f, "; kafka %s%s%s%s", c->kafka_version ? c->kafka_version : "unknown",
		c->kafka_version_source ? " (from " : "", c->kafka_version_source ? c->kafka_version_source : "",
		c->kafka_version_source ? ")" : "");
	if (c->kafka_version_note)
		fprintf(f, " [%s]", c->kafka_version_note);
	if (c->node_id >= 0)
		fprintf(f, ", node %d", c->node_id);
	if (!c->metadata_log && c->configs_from)
		fprintf(f, "\n  topic configs: from the cluster (DescribeConfigs)");
	else if (c->configs_error)
		fprintf(f, "\n  topic configs: unknown (%s)", c->configs_error);
	if (c->static_config)
		fprintf(f, "\n  broker config: %s (%s)", one_line(c->static_config, esc, sizeof(esc)),
			c->static_config_how ? c->static_config_how : "");
	else if (c->static_config_how)
		fprintf(f, "\n  broker config: %s", c->static_config_how);
	fprintf(f, "\n  remote metadata: ");
	if (!c->tiered_partitions)
		fprintf(f, "no tiered partition");
	else
		fprintf(f, "known for %u of %u tiered partitions", c->remote_known_partitions, c->tiered_partitions);
	if (r->run.remote_source)
		fprintf(f, " (from %s", r->run.remote_source);
	if (r->run.remote_source && c->rlmm_partitions > 0)
		fprintf(f, ": %u of %d __remote_log_metadata partitions here", c->rlmm_local, c->rlmm_partitions);
	if (r->run.remote_source)
		fputc(')', f);
	fputc('\n', f);
	/* a torn or corrupt metadata file: the replay used what it could read */
	for (uint32_t i = 0; i < c->n_warning_texts && i < 20; i++)
		fprintf(f, "  metadata log warning: %s\n", c->warning_texts[i]);
	if (c->warnings > 20)
		fprintf(f, "  metadata log: %" PRIu64 " warnings in all (json: summary.cluster_metadata)\n", c->warnings);
}

/* ---- the partition table and its fit to the terminal ------------------------------- */

enum { C_LOGDIR, C_TOPIC, C_PART, C_SEGS, C_LOCAL, C_ONLY, C_REMOTE, C_LAG, C_BROKER, C_RET, C_FIND, NCOL };

/* Titles and widths of the full table; FINDINGS is last and unpadded. LOG DIR is there
 * only when more than one log dir is scanned, as wide as the longest path. */
static const struct {
	const char *title;
	unsigned    w;
	bool        right;
} cols[NCOL] = {
	[C_LOGDIR] = { "LOG DIR", 0, false },     [C_TOPIC] = { "TOPIC", 32, false },
	[C_PART] = { "PART", 5, true },           [C_SEGS] = { "SEGS", 5, true },
	[C_LOCAL] = { "LOCAL", 10, true },        [C_ONLY] = { "ONLY-LOCAL", 10, false },
	[C_REMOTE] = { "REMOTE", 16, false },     [C_LAG] = { "COPY LAG", 16, false },
	[C_BROKER] = { "BROKER SAYS", 16, false }, [C_RET] = { "RETENTION", 22, false },
	[C_FIND] = { "FINDINGS", 0, false },
};

/* Fitting gives a table no narrower than this: below it lines wrap. */
#define SS_TABLE_MIN_WIDTH 40u

struct layout {
	unsigned    width;          /* 0: the full table, nothing fitted */
	unsigned    wrap;           /* the other lines wrap at this width (0: never) */
	bool        on[NCOL];
	unsigned    w[NCOL];
	bool        ld_index;       /* LOG DIR as "LD", the log dir's number on the "log dirs" line */
	bool        lag_short;      /* COPY LAG as bytes only, without the segment count */
	const char *ell;            /* what marks a cut */
};

static int table_body(const struct ss_results *r, FILE *f, bool every_row, const struct layout *L);

/* One row: its cells (NULL past `last`), and a message after the last one. */
struct row {
	const char *c[NCOL];
	int         last;
	const char *msg;
	const char *lag_short;      /* COPY LAG without the segment count */
	char        ld[16];         /* a partition's log dir number ("" on other rows) */
	char        esc_topic[1024], esc_ld[2048];
	char        part[16], segs[16], local[32], only[32], remote[48], lag[48], lag_s[32],
		    broker[48], ret[64], find[256];
};

/* What the measuring pass learns: the widest cell per column, the full table's width. */
struct measure {
	unsigned cell[NCOL];
	unsigned lag_short;
	unsigned natural;
};

/* A name for one cell: a newline in it (ss_term_write passes newlines) would end the row,
 * so it is written as the escape "\x0a" like every other control character. */
static const char *one_line(const char *s, char *buf, size_t len)
{
	if (!strchr(s, '\n'))
		return s;
	size_t n = 0;
	for (; *s && n + 5 < len; s++) {
		if (*s == '\n') {
			memcpy(buf + n, "\\x0a", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = 0;
	return buf;
}

static void part_row(const struct ss_results *r, const struct ss_part *p, const char *tname, struct row *w)
{
	const struct ss_eval *ev = p->eval;
	char b[32];
	memset(w->c, 0, sizeof(w->c));
	w->msg = NULL;
	snprintf(w->ld, sizeof(w->ld), "%u", p->logdir + 1);
	w->c[C_LOGDIR] = one_line(ss_res_logdir_of(r, p), w->esc_ld, sizeof(w->esc_ld));
	w->c[C_TOPIC] = one_line(tname, w->esc_topic, sizeof(w->esc_topic));
	snprintf(w->part, sizeof(w->part), "%d", p->partition);
	w->c[C_PART] = w->part;
	if (p->unreadable) {
		w->c[C_SEGS] = w->c[C_LOCAL] = "?";
		w->msg = "directory unreadable (see below)";
		w->last = C_LOCAL;
		w->lag_short = NULL;
		return;
	}
	snprintf(w->segs, sizeof(w->segs), "%u", p->seg_count);
	w->c[C_SEGS] = w->segs;
	w->c[C_LOCAL] = ss_human_bytes(ev->size_bytes, w->local, sizeof(w->local));
	/* unknown remote state is '?', never the local-only picture */
	bool unk = ev->remote_state_unknown;
	w->c[C_ONLY] = unk ? "?" : ev->only_local_null ? "unknown" : ss_human_bytes(ev->only_local_bytes, w->only,
										     sizeof(w->only));
	if (unk && !ev->remote_segments)
		snprintf(w->remote, sizeof(w->remote), "?");
	else if (ev->tiered || ev->remote_segments)
		snprintf(w->remote, sizeof(w->remote), "%" PRId64 " seg/%s", ev->remote_segments,
			 ss_human_bytes(ev->remote_bytes, b, sizeof(b)));
	else
		snprintf(w->remote, sizeof(w->remote), "-");
	w->c[C_REMOTE] = w->remote;
	w->c[C_LAG] = unk ? "?" : lag_text(ev->copy_lag_null, ev->copy_lag_segments, ev->copy_lag_bytes, w->lag,
					    sizeof(w->lag));
	w->lag_short = unk || ev->copy_lag_null || ev->copy_lag_segments == 0
			       ? w->c[C_LAG]
			       : ss_human_bytes(ev->copy_lag_bytes, w->lag_s, sizeof(w->lag_s));
	w->c[C_BROKER] = unk && ev->broker_copy_lag_null ? "?" :
			 lag_text(ev->broker_copy_lag_null, ev->broker_copy_lag_segments, ev->broker_copy_lag_bytes,
				  w->broker, sizeof(w->broker));
	w->c[C_RET] = retention_text(ev, w->ret, sizeof(w->ret));
	finding_codes(ev, w->find, sizeof(w->find));
	w->c[C_FIND] = w->find;
	w->last = C_FIND;
}

static void total_row(const char *label, int64_t size, int64_t remote, int64_t lag, int64_t lagb, struct row *w)
{
	char b[32];
	memset(w->c, 0, sizeof(w->c));
	w->msg = NULL;
	w->ld[0] = 0;
	w->c[C_LOGDIR] = w->c[C_PART] = w->c[C_SEGS] = w->c[C_ONLY] = "";
	w->c[C_TOPIC] = label;
	w->c[C_LOCAL] = ss_human_bytes(size, w->local, sizeof(w->local));
	w->c[C_REMOTE] = remote ? ss_human_bytes(remote, w->remote, sizeof(w->remote)) : "-";
	snprintf(w->lag, sizeof(w->lag), "%" PRId64 " seg/%s", lag, ss_human_bytes(lagb, b, sizeof(b)));
	w->c[C_LAG] = lag ? w->lag : "0";
	w->lag_short = lag ? ss_human_bytes(lagb, w->lag_s, sizeof(w->lag_s)) : "0";
	w->last = C_LAG;
}

static void header_row(struct row *w)
{
	memset(w->c, 0, sizeof(w->c));
	w->msg = NULL;
	snprintf(w->ld, sizeof(w->ld), "LD");   /* LOG DIR's title when it shows numbers */
	for (int c = 0; c < NCOL; c++)
		w->c[c] = cols[c].title;
	w->lag_short = cols[C_LAG].title;
	w->last = C_FIND;
}

static unsigned swidth(const char *s)
{
	return (unsigned)ss_term_width(s, strlen(s));
}

/* One cell, cut to w when the table is fitted (TOPIC in the middle, LOG DIR at the front,
 * the rest at the end) and padded to w unless it ends the line. */
static void put_cell(FILE *f, const struct layout *L, int c, const char *s, unsigned w, bool pad)
{
	size_t n = strlen(s);
	unsigned dw = (unsigned)ss_term_width(s, n);
	if (L->width && dw > w) {
		size_t ew = w ? 1 : 0;  /* the ellipsis is one column wide */
		if (c == C_TOPIC) {
			size_t head = ss_term_prefix(s, n, (w - ew + 1) / 2);
			size_t hw = ss_term_width(s, head);
			size_t tail = ss_term_suffix(s, n, w - ew - hw);
			fwrite(s, 1, head, f);
			fputs(L->ell, f);
			fwrite(s + tail, 1, n - tail, f);
			dw = (unsigned)(hw + ew + ss_term_width(s + tail, n - tail));
		} else if (c == C_LOGDIR) {
			size_t tail = ss_term_suffix(s, n, w - ew);
			fputs(L->ell, f);
			fwrite(s + tail, 1, n - tail, f);
			dw = (unsigned)(ew + ss_term_width(s + tail, n - tail));
		} else {
			size_t head = ss_term_prefix(s, n, w - ew);
			fwrite(s, 1, head, f);
			fputs(L->ell, f);
			dw = (unsigned)(ss_term_width(s, head) + ew);
		}
		if (pad && dw < w)
			fprintf(f, "%*s", (int)(w - dw), "");
		return;
	}
	if (cols[c].right && dw < w)
		fprintf(f, "%*s", (int)(w - dw), "");
	fputs(s, f);
	if (!cols[c].right && pad && dw < w)
		fprintf(f, "%*s", (int)(w - dw), "");
}

/* The findings codes in `avail` columns: whole codes and ",+N" for those left out. */
static void put_findings(FILE *f, const struct layout *L, const char *s, unsigned avail)
{
	size_t n = strlen(s);
	if (!L->width || ss_term_width(s, n) <= avail) {
		fputs(s, f);
		return;
	}
	unsigned codes = 1;
	for (const char *p = s; *p; p++)
		codes += *p == ',';
	/* keep k codes (ending at a comma), say how many more */
	for (unsigned k = codes - 1; k >= 1; k--) {
		const char *end = s;
		for (unsigned i = 0; i < k; i++)
			end = strchr(end, ',') + 1;
		char more[16];
		int ml = snprintf(more, sizeof(more), "+%u", codes - k);
		if (ss_term_width(s, (size_t)(end - s)) + (size_t)ml <= avail) {
			fwrite(s, 1, (size_t)(end - s), f);
			fputs(more, f);
			return;
		}
	}
	put_cell(f, L, C_FIND, s, avail, false);
}

/* The row's width in layout L (measuring), or the row written to f. */
static unsigned emit(FILE *f, const struct layout *L, const struct row *w)
{
	unsigned used = 0;
	bool first = true;
	int last = -1;
	for (int c = 0; c <= w->last; c++)
		if (L->on[c])
			last = c;
	for (int c = 0; c <= w->last; c++) {
		if (!L->on[c])
			continue;
		const char *s = c == C_LAG && L->lag_short ? w->lag_short : w->c[c];
		if (c == C_LOGDIR && L->ld_index && w->ld[0])
			s = w->ld;
		if (!s)
			s = "";
		if (!first) {
			if (f)
				fputc(' ', f);
			used++;
		}
		first = false;
		unsigned dw = swidth(s);
		if (c == C_FIND) {
			unsigned avail = L->width > used ? L->width - used : 1;
			if (f)
				put_findings(f, L, s, avail);
			used += L->width && dw > avail ? avail : dw;
			continue;
		}
		/* the line's last cell is padded in the full table (as it always was), not when fitted */
		bool pad = !(L->width && c == last && !w->msg);
		if (f)
			put_cell(f, L, c, s, L->w[c], pad);
		/* a cell wider than its column is cut when fitted, else pushes the line on */
		if (dw > L->w[c])
			used += L->width ? L->w[c] : dw;
		else
			used += pad ? L->w[c] : dw;
	}
	if (w->msg) {
		const char *m = w->msg;
		unsigned avail = L->width > used + 1 ? L->width - used - 1 : 1;
		if (L->width && swidth(m) > avail)
			m = "unreadable (see below)";
		if (f) {
			fputc(' ', f);
			put_cell(f, L, C_RET, m, avail, false);
		}
		used += 1 + (L->width && swidth(m) > avail ? avail : swidth(m));
	}
	if (f)
		fputc('\n', f);
	return used;
}

/* One row: its width and the widths of its cells `from`..`to` taken into *ms (f NULL;
 * LOG DIR's cell is measured as its number, fit_layout measures the paths), or the row
 * written to f. */
static void put_row(FILE *f, const struct layout *L, const struct row *w, int from, int to, struct measure *ms)
{
	if (!ms) {
		emit(f, L, w);
		return;
	}
	unsigned u = emit(NULL, L, w);
	if (u > ms->natural)
		ms->natural = u;
	for (int c = from; c <= to; c++) {
		unsigned cw = swidth(c == C_LOGDIR ? w->ld : w->c[c]);
		if (cw > ms->cell[c])
			ms->cell[c] = cw;
	}
	if (w->lag_short && swidth(w->lag_short) > ms->lag_short)
		ms->lag_short = swidth(w->lag_short);
}

/* Every row of the table in order: measured into *ms (f NULL) or written to f. */
static void rows(const struct ss_results *r, const struct layout *L, bool every_row, FILE *f, struct measure *ms)
{
	struct row w;
	if (!r->n_parts)
		return;
	header_row(&w);
	put_row(f, L, &w, 0, C_FIND, ms);
	for (uint32_t i = 0; i < r->n_parts;) {
		/* one topic: its partitions, then a total line when it has several */
		uint32_t j = i;
		int64_t t_size = 0, t_lag = 0, t_lagb = 0, t_remote = 0;
		for (; j < r->n_parts && strcmp(r->parts[j].topic, r->parts[i].topic) == 0; j++) {
			const struct ss_part *p = &r->parts[j];
			const struct ss_eval *ev = p->eval;
			if (!ev)
				continue;
			part_row(r, p, j == i || every_row ? p->topic : "", &w);
			put_row(f, L, &w, 0, w.last, ms);
			if (p->unreadable)
				continue;
			t_size += ev->size_bytes;
			t_remote += ev->remote_bytes;
			if (!ev->copy_lag_null) {
				t_lag += ev->copy_lag_segments;
				t_lagb += ev->copy_lag_bytes;
			}
		}
		if (j - i > 1) {
			const char *label = "  (topic total)";
			if (L->width && L->w[C_TOPIC] < swidth(label))
				label = "  (total)";
			total_row(label, t_size, t_remote, t_lag, t_lagb, &w);
			/* its label does not widen TOPIC: a narrow TOPIC takes "  (total)" */
			put_row(f, L, &w, C_LOCAL, C_LAG, ms);
		}
		i = j;
	}
}

/* The full table's layout: every column at its width, LOG DIR with more than one log dir. */
static void full_layout(const struct ss_results *r, struct layout *L)
{
	memset(L, 0, sizeof(*L));
	for (int c = 0; c < NCOL; c++) {
		L->on[c] = true;
		L->w[c] = cols[c].w;
	}
	L->on[C_LOGDIR] = r->n_logdirs > 1;
	for (uint32_t i = 0; i < r->n_logdirs; i++) {
		char buf[2048];
		unsigned pw = swidth(one_line(r->logdirs[i].path, buf, sizeof(buf)));
		if (pw > L->w[C_LOGDIR])
			L->w[C_LOGDIR] = pw;
	}
	if (L->w[C_LOGDIR] < swidth(cols[C_LOGDIR].title))
		L->w[C_LOGDIR] = swidth(cols[C_LOGDIR].title);
	L->ell = "~";
}

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

static unsigned max_u(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* What the layout asks for: every column but FINDINGS at its width, FINDINGS at `find`. */
static unsigned demand(const struct layout *L, unsigned find)
{
	unsigned t = 0;
	for (int c = 0; c < C_FIND; c++)
		if (L->on[c])
			t += L->w[c] + 1;
	return t + find;
}

/*
 * The table fitted to `width` columns, when the full table is wider: first every column
 * to its widest cell (titles included), TOPIC at most 32 and LOG DIR at most 24, then
 * these steps in turn until the table fits (docs/contract.md, man segscan-scan(1)):
 *   1. LOG DIR becomes LD, the log dir's number on the "log dirs" line
 *   2. TOPIC at most 24 columns (names cut in the middle)
 *   3. SEGS goes             4. BROKER SAYS goes        5. RETENTION goes
 *   6. TOPIC at most 20      7. ONLY-LOCAL goes
 *   8. COPY LAG in bytes only (no segment count)        9. REMOTE goes
 *  10. TOPIC at most 14     11. FINDINGS asks for 10 columns, not 20
 * TOPIC, PART, LOCAL, COPY LAG and FINDINGS always stay; FINDINGS takes what is left and
 * lists the codes that fit with "+N" for the rest (each is spelled out below the table).
 */
static void fit_layout(const struct ss_results *r, unsigned width, bool every_row, struct layout *L)
{
	struct measure ms;
	full_layout(r, L);
	memset(&ms, 0, sizeof(ms));
	rows(r, L, every_row, NULL, &ms);
	L->wrap = width;
	if (ms.natural <= width)
		return;     /* the table fits as it is (longer text lines still wrap) */
	L->width = width;
	L->ell = ss_term_ellipsis();
	for (int c = C_TOPIC; c < C_FIND; c++)
		L->w[c] = max_u(ms.cell[c], swidth(cols[c].title));
	/* at most 32, and at least the "  (total)" of a topic's total line */
	L->w[C_TOPIC] = max_u(min_u(L->w[C_TOPIC], 32), 9);
	L->w[C_LOGDIR] = min_u(L->w[C_LOGDIR], 24);   /* full_layout's: the longest path */
	unsigned fw = max_u(min_u(ms.cell[C_FIND], 20), swidth(cols[C_FIND].title));
	for (int step = 1; step <= 11 && demand(L, fw) > width; step++) {
		switch (step) {
		case 1:
			if (L->on[C_LOGDIR]) {
				L->ld_index = true;
				char n[16];
				L->w[C_LOGDIR] = max_u(2, (unsigned)snprintf(n, sizeof(n), "%u", r->n_logdirs));
			}
			break;
		case 2: L->w[C_TOPIC] = max_u(min_u(L->w[C_TOPIC], 24), 9); break;
		case 3: L->on[C_SEGS] = false; break;
		case 4: L->on[C_BROKER] = false; break;
		case 5: L->on[C_RET] = false; break;
		case 6: L->w[C_TOPIC] = max_u(min_u(L->w[C_TOPIC], 20), 9); break;
		case 7: L->on[C_ONLY] = false; break;
		case 8:
			L->lag_short = true;
			L->w[C_LAG] = max_u(ms.lag_short, swidth(cols[C_LAG].title));
			break;
		case 9: L->on[C_REMOTE] = false; break;
		case 10: L->w[C_TOPIC] = max_u(min_u(L->w[C_TOPIC], 14), 9); break;
		case 11: fw = max_u(min_u(ms.cell[C_FIND], 10), swidth(cols[C_FIND].title)); break;
		}
	}
	/* room left once FINDINGS has all it could show: back to a cut TOPIC */
	unsigned all = demand(L, max_u(ms.cell[C_FIND], swidth(cols[C_FIND].title)));
	if (all < width)
		L->w[C_TOPIC] = max_u(L->w[C_TOPIC], min_u(L->w[C_TOPIC] + (width - all), min_u(ms.cell[C_TOPIC], 32)));
}

/* The table is built in memory and written through ss_term_write: every name and
 * message in it may hold bytes from a directory name. */
int ss_out_table_fit(const struct ss_results *r, FILE *f, unsigned width, bool every_row)
{
	char *buf = NULL;
	size_t len = 0;
	struct layout L;
	if (width && width < SS_TABLE_MIN_WIDTH)
		width = SS_TABLE_MIN_WIDTH;
	if (width)
		fit_layout(r, width, every_row, &L);
	else
		full_layout(r, &L);
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	int e = table_body(r, m, every_row, &L);
	if (fclose(m) != 0 && !e)
		e = -ENOMEM;
	/* the lines the table does not lay out (summary, findings, errors) wrap to the width */
	if (!e)
		ss_term_write_fit(f, buf, len, L.wrap);
	free(buf);
	if (!e && ferror(f))
		e = -EIO;
	return e;
}

int ss_out_table(const struct ss_results *r, FILE *f)
{
	/* on a terminal the topic is named once per group; elsewhere (a pipe, a file) on
	 * every row, so that grep and sort work line by line */
	int fd = fileno(f);
	return ss_out_table_fit(r, f, ss_term_columns(fd), fd < 0 || !isatty(fd));
}

static int table_body(const struct ss_results *r, FILE *f, bool every_row, const struct layout *L)
{
	struct ss_summary sum;
	char b1[32], b2[32];
	ss_out_summarize(r, &sum);

	fprintf(f, "segscan %s: %u partitions in %" PRId64 " topics, %u segments, %s local", SEGSCAN_VERSION,
		r->n_parts, sum.topics, (uint32_t)sum.segments, ss_human_bytes(sum.size_bytes, b1, sizeof(b1)));
	if (sum.remote_segments)
		fprintf(f, ", %" PRId64 " remote segments (%s)", sum.remote_segments,
			ss_human_bytes(sum.remote_bytes, b2, sizeof(b2)));
	fprintf(f, "\n  log dirs:");
	for (uint32_t i = 0; i < r->n_logdirs; i++) {
		/* numbered (a narrow table): one per line, so a wrap never parts a number
		 * from its path */
		if (L->ld_index)
			fprintf(f, "%s [%u]", i ? "\n           " : "", i + 1);
		fprintf(f, " %s", r->logdirs[i].path);
	}
	fprintf(f, "\n  scan: %s, io=%s, %u threads, %.3f s, %s read%s\n", r->run.verify ? "verify (every byte)" : "fast path (index tails)",
		r->run.io, r->run.threads, r->run.times.total,
		ss_human_bytes(r->run.bytes_read, b1, sizeof(b1)), r->run.remote_source ? "" : ", no remote metadata");
	write_sources(r, f);
	fputc('\n', f);

	rows(r, L, every_row, f, NULL);

	if (sum.findings) {
		fprintf(f, "\nFindings (%" PRId64 "):\n", sum.findings);
		for (uint32_t i = 0; i < r->n_parts; i++) {
			const struct ss_part *p = &r->parts[i];
			if (!p->eval)
				continue;
			for (uint32_t k = 0; k < p->eval->n_findings; k++) {
				const struct ss_finding *fd = &p->eval->findings[k];
				fprintf(f, "  %s-%d  %s%s%s%s: %s\n", p->topic, p->partition, fd->code,
					fd->ref && fd->ref[0] ? " (" : "", fd->ref ? fd->ref : "",
					fd->ref && fd->ref[0] ? ")" : "", fd->message ? fd->message : "");
			}
		}
	}
	if (sum.errors) {
		fprintf(f, "\nCould not read (%" PRId64 "):\n", sum.errors);
		for (uint32_t i = 0; i < r->n_problems; i++) {
			const struct ss_problem *pr = &r->problems[i];
			fprintf(f, "  %s: %s\n", pr->path, pr->what);
		}
		for (uint32_t i = 0; i < r->n_segs; i++) {
			const struct ss_seg *sg = &r->segs[i];
			if (!ss_res_seg_failed(sg))
				continue;
			char rel[320];
			ss_res_seg_errfile(r, sg, rel, sizeof(rel));
			if (ss_seg_err_pos(sg) >= 0)
				fprintf(f, "  %s/%s at byte %" PRId64 ": %s\n", ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)),
					rel, ss_seg_err_pos(sg), segscan_strerror(ss_seg_err(sg)));
			else
				fprintf(f, "  %s/%s: %s\n", ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)), rel,
					segscan_strerror(ss_seg_err(sg)));
		}
	}
	if (r->n_notes) {
		fprintf(f, "\nNotes (%u):\n", r->n_notes);
		for (uint32_t i = 0; i < r->n_notes; i++)
			fprintf(f, "  %s: %s\n", r->notes[i].path, r->notes[i].what);
	}
	return ferror(f) ? -EIO : 0;
}
