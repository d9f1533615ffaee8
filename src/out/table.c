/*
 * The human report: one line per partition with per-topic totals, local vs remote,
 * copy lag beside what the broker reports, the remote delete lag, retention predictions, then every finding,
 * error and note spelled out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/esc.h"
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

/*
 * Text from the input (a directory or file name, a topic name from the metadata log, a
 * path from /proc, a message quoting one) on one line: a newline in it would end the row
 * or forge a line of the report, because ss_term_write passes newlines (they are the
 * report's own). So each is written as the escape "\x0a" (common/esc.h SS_ESC_NEWLINE);
 * the other controls and malformed UTF-8 stay for ss_term_write to escape when the table
 * goes out, so that a cell is measured and cut unit by unit. The cells take it through a
 * buffer (one_line), the other lines straight (put_text).
 */
static void put_text(FILE *f, const char *s)
{
	if (s)
		ss_esc_fwrite(f, s, strlen(s), SS_ESC_NEWLINE);
}

void ss_out_table_text(FILE *f, const char *s)
{
	put_text(f, s);
}

static const char *one_line(const char *s, char *buf, size_t len)
{
	if (!strchr(s, '\n'))
		return s;
	FILE *m = fmemopen(buf, len, "w");
	if (!m)
		return "?";
	setvbuf(m, NULL, _IONBF, 0);
	put_text(m, s);
	fclose(m);
	buf[len - 1] = 0;   /* a name cut by the buffer is still a string */
	return buf;
}

/* RETENTION: what the next retention run deletes, every kind together (retention.total:
 * a segment size and time retention both delete is counted once), local retention too. */
static const char *retention_text(const struct ss_eval *ev, char *buf, size_t len)
{
	char b[32];
	const struct ss_retention_total *t = &ev->total;
	int64_t segs = (int64_t)t->n_remote + t->n_local;
	if (t->unknown)
		snprintf(buf, len, "?");
	else if (!ev->size.evaluated && !ev->time.evaluated && !ev->local.evaluated)
		snprintf(buf, len, "not evaluated");
	else if (segs == 0)
		snprintf(buf, len, "nothing due");
	else
		snprintf(buf, len, "%s%" PRId64 " seg/%s",
			 !ev->tiered ? "" : !t->n_local ? "remote: " : !t->n_remote ? "local: " : "", segs,
			 ss_human_bytes(t->remote_bytes + t->local_bytes, b, sizeof(b)));
	return buf;
}

/* The partition's places that could not be read (json's errors[], the same rule). */
static unsigned error_count(const struct ss_results *r, const struct ss_part *p)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < r->n_problems; i++)
		n += ss_res_problem_of(r, p, r->problems[i].path);
	for (uint32_t k = 0; k < p->seg_count; k++)
		n += ss_res_seg_failed(&r->segs[p->seg_first + k]);
	return n;
}

/* FINDINGS: the read errors first ("2 errors", spelled out under "Could not read"), then
 * each finding code once. */
static void finding_codes(const struct ss_eval *ev, unsigned errors, char *buf, size_t len)
{
	buf[0] = 0;
	size_t n = 0;
	if (errors) {
		int w = snprintf(buf, len, "%u error%s", errors, errors == 1 ? "" : "s");
		n = w > 0 && (size_t)w < len ? (size_t)w : 0;
	}
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

/* Which sources the report stands on, and what is missing (the cluster context). Every
 * string here may hold bytes from the input (paths, file names, the metadata log's topic
 * names in its warnings, a peer's error text): put_text keeps each on its line. */
static void write_sources(const struct ss_results *r, FILE *f)
{
	const struct ss_res_cluster *c = &r->cluster;
	if (c->metadata_log) {
		fprintf(f, "  metadata log: yes, to offset %" PRId64, c->last_offset);
		if (c->snapshot) {
			fputs(" (snapshot ", f);
			put_text(f, c->snapshot);
			fputc(')', f);
		}
		fprintf(f, ", %" PRIu64 " records%s", c->records, c->warnings ? " with warnings" : "");
	} else {
		fputs("  metadata log: no", f);
		if (c->metadata_why_not) {
			fputs(" (", f);
			put_text(f, c->metadata_why_not);
			fputc(')', f);
		}
	}
	fputs("; kafka ", f);
	put_text(f, c->kafka_version ? c->kafka_version : "unknown");
	if (c->kafka_version_source) {
		fputs(" (from ", f);
		put_text(f, c->kafka_version_source);
		fputc(')', f);
	}
	if (c->kafka_version_note) {
		fputs(" [", f);
		put_text(f, c->kafka_version_note);
		fputc(']', f);
	}
	if (c->node_id >= 0)
		fprintf(f, ", node %d", c->node_id);
	if (!c->metadata_log && c->configs_from) {
		fprintf(f, "\n  topic configs: from the cluster (DescribeConfigs)");
	} else if (c->configs_error) {
		fputs("\n  topic configs: unknown (", f);
		put_text(f, c->configs_error);
		fputc(')', f);
	}
	if (c->static_config) {
		fputs("\n  broker config: ", f);
		put_text(f, c->static_config);
		fputs(" (", f);
		put_text(f, c->static_config_how ? c->static_config_how : "");
		fputc(')', f);
	} else if (c->static_config_how) {
		fputs("\n  broker config: ", f);
		put_text(f, c->static_config_how);
	}
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
	for (uint32_t i = 0; i < c->n_warning_texts && i < 20; i++) {
		fputs("  metadata log warning: ", f);
		put_text(f, c->warning_texts[i]);
		fputc('\n', f);
	}
	if (c->warnings > 20)
		fprintf(f, "  metadata log: %" PRIu64 " warnings in all (json: summary.cluster_metadata)\n", c->warnings);
}

/* ---- the partition table and its fit to the terminal ------------------------------- */

enum { C_LOGDIR, C_TOPIC, C_PART, C_SEGS, C_LOCAL, C_ONLY, C_REMOTE, C_LAG, C_BROKER, C_DLAG, C_RET, C_FIND, NCOL };

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
	[C_BROKER] = { "BROKER SAYS", 16, false }, [C_DLAG] = { "DELETE LAG", 16, false },
	[C_RET] = { "RETENTION", 22, false },
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

/* --horizon: each log dir's free space now and after, then each partition the forecast
 * sees act ("?" where it is unknown) */
static void write_forecast(const struct ss_results *r, FILE *f)
{
	char b1[32], b2[32], b3[32];
	int64_t h = r->run.horizon_ms;
	fprintf(f, "\nForecast (within %" PRId64 " ms, if nothing else is written):\n", h);
	for (uint32_t i = 0; i < r->n_logdirs; i++) {
		const struct ss_res_logdir *l = &r->logdirs[i];
		struct ss_res_space sp = r->space ? r->space[i] : (struct ss_res_space){ -1, -1 };
		fputs("  log dir ", f);
		put_text(f, l->path);
		fprintf(f, ": free %s, after %s\n", sp.free_bytes >= 0 ? ss_human_bytes(sp.free_bytes, b1, sizeof(b1)) : "?",
			sp.free_bytes_after >= 0 ? ss_human_bytes(sp.free_bytes_after, b2, sizeof(b2)) : "?");
	}
	for (uint32_t i = 0; i < r->n_parts; i++) {
		const struct ss_part *p = &r->parts[i];
		const struct ss_forecast *fc = p->eval && !p->unreadable ? &p->eval->forecast : NULL;
		if (!fc || !fc->evaluated)
			continue;
		if (!fc->unknown && !fc->local_delete_segments && !fc->remote_delete_segments && !fc->copy_segments)
			continue;
		fputs("  ", f);
		put_text(f, p->topic);
		if (fc->unknown) {
			fprintf(f, "-%d  ? (%s)\n", p->partition, fc->reason ? fc->reason : "unknown");
			continue;
		}
		fprintf(f, "-%d  local: %" PRId64 " seg/%s deleted; remote: %" PRId64 " seg/%s deleted; copy: %" PRId64
			" seg%s\n",
			p->partition, fc->local_delete_segments, ss_human_bytes(fc->local_delete_bytes, b1, sizeof(b1)),
			fc->remote_delete_segments, ss_human_bytes(fc->remote_delete_bytes, b3, sizeof(b3)),
			fc->copy_segments, fc->disable_tiering ? " (what-if: tiering disabled)" : "");
	}
}

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
		    broker[48], dlag[48], ret[64], find[256];
};

/* What the measuring pass learns: the widest cell per column, the full table's width. */
struct measure {
	unsigned cell[NCOL];
	unsigned lag_short;
	unsigned natural;
};

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
	/* a size that could not be read is unknown ('?'), never the readable part's sum */
	w->c[C_LOCAL] = ev->size_unknown ? "?" : ss_human_bytes(ev->size_bytes, w->local, sizeof(w->local));
	/* unknown is '?', never the local-only picture: remote state no source gives, a
	 * partition nothing says is tiered or not, a size that could not be read */
	bool tier_unk = ev->remote_storage < 0 && !ev->tiered;
	w->c[C_ONLY] = ev->only_local_null ? "?" : ss_human_bytes(ev->only_local_bytes, w->only, sizeof(w->only));
	if (ev->remote_unknown)
		snprintf(w->remote, sizeof(w->remote), "?");
	else if (ev->tiered || ev->remote_segments)
		snprintf(w->remote, sizeof(w->remote), "%" PRId64 " seg/%s", ev->remote_segments,
			 ss_human_bytes(ev->remote_bytes, b, sizeof(b)));
	else
		snprintf(w->remote, sizeof(w->remote), "-");
	w->c[C_REMOTE] = w->remote;
	/* a null lag is '-' where it does not apply (known not tiered), '?' where unknown */
	bool lag_unk = ev->copy_lag_null && (ev->tiered || tier_unk) && ev->role != SS_ROLE_FOLLOWER;
	/* a follower's replica: its copy lag is the leader's row ("follower": not unknown) */
	bool follower = ev->tiered && ev->role == SS_ROLE_FOLLOWER;
	w->c[C_LAG] = follower ? "follower" : lag_unk ? "?" : lag_text(ev->copy_lag_null, ev->copy_lag_segments, ev->copy_lag_bytes, w->lag,
						sizeof(w->lag));
	w->lag_short = ev->copy_lag_null || ev->copy_lag_segments == 0
			       ? w->c[C_LAG]
			       : ss_human_bytes(ev->copy_lag_bytes, w->lag_s, sizeof(w->lag_s));
	w->c[C_BROKER] = follower ? "follower" : ev->broker_copy_lag_null && (ev->tiered || tier_unk) ? "?" :
			 lag_text(ev->broker_copy_lag_null, ev->broker_copy_lag_segments, ev->broker_copy_lag_bytes,
				  w->broker, sizeof(w->broker));
	/* the remote delete lag (issue 27): the leader's row's, '?' where unknown, '-' where it
	 * does not apply (not tiered, a release without the gauge) */
	w->c[C_DLAG] = follower ? "follower" : ev->delete_lag_unknown ? "?" :
		       lag_text(ev->delete_lag_null, ev->delete_lag_segments, ev->delete_lag_bytes, w->dlag, sizeof(w->dlag));
	w->c[C_RET] = retention_text(ev, w->ret, sizeof(w->ret));
	finding_codes(ev, error_count(r, p), w->find, sizeof(w->find));
	w->c[C_FIND] = w->find;
	w->last = C_FIND;
}

/* A topic's total line: each column the sum of its partitions', '?' where one of them is
 * unknown (a total over unknowns is unknown). */
struct topic_total {
	int64_t size, remote, lag, lagb;
	bool    size_unk, remote_unk, lag_unk;
	struct ss_once once;   /* remote and lag: once per partition, not per replica */
};

static void total_add(struct topic_total *t, const struct ss_part *p)
{
	const struct ss_eval *ev = p->eval;
	if (p->unreadable) {   /* nothing of it is known */
		t->size_unk = t->remote_unk = t->lag_unk = true;
		return;
	}
	bool tier_unk = ev->remote_storage < 0 && !ev->tiered;
	ss_once_row(&t->once, p);
	t->size += ev->size_bytes;
	t->size_unk |= ev->size_unknown;
	t->remote += ss_once_add(&t->once, 0, ev->remote_bytes);
	t->remote_unk |= ev->remote_unknown;
	if (!ev->copy_lag_null) {
		t->lag += ss_once_add(&t->once, 1, ev->copy_lag_segments);
		t->lagb += ss_once_add(&t->once, 2, ev->copy_lag_bytes);
	} else if ((ev->tiered || tier_unk) && ev->role != SS_ROLE_FOLLOWER) {
		t->lag_unk = true;   /* a follower's is the leader's to count, not unknown */
	}
}

static void total_row(const char *label, const struct topic_total *t, struct row *w)
{
	char b[32];
	memset(w->c, 0, sizeof(w->c));
	w->msg = NULL;
	w->ld[0] = 0;
	w->c[C_LOGDIR] = w->c[C_PART] = w->c[C_SEGS] = w->c[C_ONLY] = "";
	w->c[C_TOPIC] = label;
	w->c[C_LOCAL] = t->size_unk ? "?" : ss_human_bytes(t->size, w->local, sizeof(w->local));
	w->c[C_REMOTE] = t->remote_unk ? "?" : t->remote ? ss_human_bytes(t->remote, w->remote, sizeof(w->remote)) : "-";
	snprintf(w->lag, sizeof(w->lag), "%" PRId64 " seg/%s", t->lag, ss_human_bytes(t->lagb, b, sizeof(b)));
	w->c[C_LAG] = t->lag_unk ? "?" : t->lag ? w->lag : "0";
	w->lag_short = t->lag_unk ? "?" : t->lag ? ss_human_bytes(t->lagb, w->lag_s, sizeof(w->lag_s)) : "0";
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
		struct topic_total tt = { 0 };
		for (; j < r->n_parts && strcmp(r->parts[j].topic, r->parts[i].topic) == 0; j++) {
			const struct ss_part *p = &r->parts[j];
			if (!p->eval)
				continue;
			part_row(r, p, j == i || every_row ? p->topic : "", &w);
			put_row(f, L, &w, 0, w.last, ms);
			total_add(&tt, p);
		}
		if (j - i > 1) {
			const char *label = "  (topic total)";
			if (L->width && L->w[C_TOPIC] < swidth(label))
				label = "  (total)";
			total_row(label, &tt, &w);
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
 *   3. SEGS goes             4. BROKER SAYS and DELETE LAG go   5. RETENTION goes
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
		case 4: L->on[C_BROKER] = L->on[C_DLAG] = false; break;
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

/* A fitted table says what it left out, so a reader knows a column is gone rather than
 * empty: "  table: SEGS, BROKER SAYS and RETENTION hidden to fit 80 columns". */
static void hidden_columns(const struct ss_results *r, const struct layout *L, FILE *f)
{
	static const int order[] = { C_SEGS, C_ONLY, C_REMOTE, C_BROKER, C_DLAG, C_RET };
	const char *names[6];
	unsigned n = 0;
	if (!L->width || !r->n_parts)
		return;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!L->on[order[i]])
			names[n++] = cols[order[i]].title;
	if (!n && !L->lag_short)
		return;
	fputs("  table: ", f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", names[i]);
	if (n)
		fprintf(f, " hidden");
	if (L->lag_short)
		fprintf(f, "%sCOPY LAG in bytes only", n ? ", " : "");
	fprintf(f, " to fit %u columns (a wider COLUMNS or a pipe shows the full table)\n", L->width);
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

	/* a total with an unknown member is '?', with how many members are unknown */
	fprintf(f, "segscan %s: %u partitions in %" PRId64 " topics, %u segments, ", SEGSCAN_VERSION, r->n_parts,
		sum.topics, (uint32_t)sum.segments);
	if (sum.size_unknown)
		fprintf(f, "? local (%" PRId64 " partition%s of unknown size)", sum.size_unknown,
			sum.size_unknown == 1 ? "" : "s");
	else
		fprintf(f, "%s local", ss_human_bytes(sum.size_bytes, b1, sizeof(b1)));
	if (sum.remote_unknown)
		fprintf(f, ", ? remote segments (%" PRId64 " partition%s whose remote state is unknown)",
			sum.remote_unknown, sum.remote_unknown == 1 ? "" : "s");
	else if (sum.remote_segments)
		fprintf(f, ", %" PRId64 " remote segments (%s)", sum.remote_segments,
			ss_human_bytes(sum.remote_bytes, b2, sizeof(b2)));
	fprintf(f, "\n  log dirs:");
	/* several brokers' log dirs in one scan: each with its node (meta.properties) */
	bool nodes = false;
	for (uint32_t i = 1; i < r->n_logdirs && !nodes; i++)
		nodes = r->logdirs[i].node_id != r->logdirs[0].node_id;
	for (uint32_t i = 0; i < r->n_logdirs; i++) {
		/* numbered (a narrow table): one per line, so a wrap never parts a number
		 * from its path */
		if (L->ld_index)
			fprintf(f, "%s [%u]", i ? "\n           " : "", i + 1);
		fputc(' ', f);
		put_text(f, r->logdirs[i].path);
		if (nodes && r->logdirs[i].node_id >= 0)
			fprintf(f, " (node %d)", r->logdirs[i].node_id);
		else if (nodes)
			fputs(" (node unknown)", f);
	}
	fprintf(f, "\n  scan: %s, io=%s, %u threads, %.3f s, %s read%s\n", r->run.verify ? "verify (every byte)" : "fast path (index tails)",
		r->run.io, r->run.threads, r->run.times.total,
		ss_human_bytes(r->run.bytes_read, b1, sizeof(b1)), r->run.remote_source ? "" : ", no remote metadata");
	write_sources(r, f);
	hidden_columns(r, L, f);
	fputc('\n', f);

	rows(r, L, every_row, f, NULL);
	ss_out_store_table(r, f);   /* --remote-store (out/store.c) */
	ss_out_gauges_table(r, f);  /* --broker-metrics (out/gauges.c) */

	if (sum.findings) {
		fprintf(f, "\nFindings (%" PRId64 "):\n", sum.findings);
		for (uint32_t i = 0; i < r->n_parts; i++) {
			const struct ss_part *p = &r->parts[i];
			if (!p->eval)
				continue;
			for (uint32_t k = 0; k < p->eval->n_findings; k++) {
				const struct ss_finding *fd = &p->eval->findings[k];
				fputs("  ", f);
				put_text(f, p->topic);
				fprintf(f, "-%d  %s%s%s%s: ", p->partition, fd->code, fd->ref && fd->ref[0] ? " (" : "",
					fd->ref ? fd->ref : "", fd->ref && fd->ref[0] ? ")" : "");
				put_text(f, fd->message ? fd->message : "");
				fputc('\n', f);
			}
		}
		/* a broker's, per topic (--broker-metrics: PHANTOM_DELETE_LAG) */
		for (uint32_t i = 0; i < r->n_topic_dellag; i++) {
			const struct ss_topic_dellag *t = &r->topic_dellag[i];
			for (uint32_t k = 0; k < t->n_findings; k++) {
				const struct ss_finding *fd = &t->findings[k];
				fputs("  ", f);
				put_text(f, t->topic);
				fprintf(f, " (node %d)  %s (%s): ", t->node_id, fd->code, fd->ref ? fd->ref : "");
				put_text(f, fd->message ? fd->message : "");
				fputc('\n', f);
			}
		}
	}
	if (r->run.horizon_ms > 0)
		write_forecast(r, f);
	if (sum.errors) {
		fprintf(f, "\nCould not read (%" PRId64 "):\n", sum.errors);
		for (uint32_t i = 0; i < r->n_problems; i++) {
			const struct ss_problem *pr = &r->problems[i];
			fputs("  ", f);
			put_text(f, pr->path);
			fputs(": ", f);
			put_text(f, pr->what);
			fputc('\n', f);
		}
		for (uint32_t i = 0; i < r->n_segs; i++) {
			const struct ss_seg *sg = &r->segs[i];
			if (!ss_res_seg_failed(sg))
				continue;
			char rel[320];
			ss_res_seg_errfile(r, sg, rel, sizeof(rel));
			fputs("  ", f);
			put_text(f, ss_res_logdir_of(r, ss_res_part_of_seg(r, sg)));
			fputc('/', f);
			put_text(f, rel);
			if (ss_seg_err_pos(sg) >= 0)
				fprintf(f, " at byte %" PRId64, ss_seg_err_pos(sg));
			fprintf(f, ": %s\n", segscan_strerror(ss_seg_err(sg)));
		}
	}
	if (r->n_notes) {
		fprintf(f, "\nNotes (%u):\n", r->n_notes);
		for (uint32_t i = 0; i < r->n_notes; i++) {
			fputs("  ", f);
			put_text(f, r->notes[i].path);
			fputs(": ", f);
			put_text(f, r->notes[i].what);
			fputc('\n', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}
