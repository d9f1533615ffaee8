/* The CLI's progress line and log callback: see progress.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/progress.h"
#include "common/clock.h"
#include "out/out.h"

/* A terminal line is redrawn at most this often; plain lines at most once a second. */
#define TTY_REDRAW_S   0.1
#define PLAIN_EVERY_S  1.0

void ss_cli_progress_init(struct ss_cli_progress *p, FILE *f, const char *prefix, bool quiet, bool force)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->prefix = prefix;
	p->tty = isatty(fileno(f));
	p->enabled = !quiet && (p->tty || force);
	p->t_drawn = ss_mono();   /* plain lines: the first after a second, as before */
}

/* Columns of the terminal: the line must not wrap, or "\r" rewrites only its last row.
 * Not ss_term_columns (out/term.c), where COLUMNS wins so that a report can be fitted
 * to any width: here the terminal's own size must win, COLUMNS is only a fallback. */
static int columns(FILE *f)
{
	struct winsize ws;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	int n = c ? atoi(c) : 0;
	return n > 0 ? n : 80;
}

static void fmt_duration(double s, char *buf, size_t len)
{
	uint64_t t = (uint64_t)(s + 0.5);
	if (t < 60)
		snprintf(buf, len, "%" PRIu64 "s", t);
	else if (t < 3600)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", t / 60, t % 60);
	else
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", t / 3600, t / 60 % 60);
}

static void fmt_amount(bool bytes, double v, char *buf, size_t len)
{
	if (bytes)
		ss_human_bytes((int64_t)v, buf, len);
	else if (v >= 1e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

void ss_cli_progress_format(const struct ss_cli_progress *p, unsigned slot, double now, char *buf, size_t len)
{
	const __typeof__(p->s[0]) *s = &p->s[slot];
	char d[32], t[32], r[32], eta[32];
	double el = now - s->t0, rate = el > 0 ? (double)s->done / el : 0;
	int n;
	if (s->bytes) {
		ss_human_bytes((int64_t)s->done, d, sizeof(d));
		ss_human_bytes((int64_t)s->total, t, sizeof(t));
	} else {
		snprintf(d, sizeof(d), "%" PRIu64, s->done);
		snprintf(t, sizeof(t), "%" PRIu64, s->total);
	}
	fmt_amount(s->bytes, rate, r, sizeof(r));
	if (s->ended) {
		/* the phase's summary: how long it took instead of how long it will */
		char took[32];
		if (el < 10)
			snprintf(took, sizeof(took), "%.1fs", el > 0 ? el : 0);
		else
			fmt_duration(el, took, sizeof(took));
		n = snprintf(buf, len, "%s %s%s%s%s%s in %s", s->label, d, s->total ? "/" : "", s->total ? t : "",
			     s->bytes ? "" : " ", s->bytes ? "" : s->what, took);
		if (el > 0.05 && n >= 0 && (size_t)n < len)   /* a rate over no time says nothing */
			n += snprintf(buf + n, len - (size_t)n, ", %s/s", r);
	} else if (s->total) {
		uint64_t left = s->total > s->done ? s->total - s->done : 0;
		if (!left)
			snprintf(eta, sizeof(eta), "0s");
		else if (rate > 0 && el >= 0.2)
			fmt_duration((double)left / rate, eta, sizeof(eta));
		else
			snprintf(eta, sizeof(eta), "--");
		double pct = 100.0 * (double)(s->done < s->total ? s->done : s->total) / (double)s->total;
		n = snprintf(buf, len, "%s %.0f%% %s/%s%s%s, %s/s, ETA %s", s->label, pct, d, t, s->bytes ? "" : " ",
			     s->bytes ? "" : s->what, r, eta);
	} else {
		n = snprintf(buf, len, "%s %s%s%s, %s/s", s->label, d, s->bytes ? "" : " ", s->bytes ? "" : s->what, r);
	}
	if (s->extra[0] && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %s", s->extra);
}

/* tty: every active slot on one line, cut to the terminal's width */
static void draw_tty(struct ss_cli_progress *p, double now)
{
	char line[1024], one[256];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s: ", p->prefix);
	bool any = false;
	for (unsigned i = 0; i < SS_CLI_SLOTS; i++) {
		if (!p->s[i].active)
			continue;
		ss_cli_progress_format(p, i, now, one, sizeof(one));
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", any ? " | " : "", one);
		any = true;
	}
	if (!any)
		return;
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	int cols = columns(p->f);
	if (cols > 1 && n > (size_t)cols - 1)
		n = (size_t)cols - 1;   /* the cursor stays on the line */
	fprintf(p->f, "\r%.*s\033[K", (int)n, line);
	fflush(p->f);
	p->shown = true;
	p->t_drawn = now;
}

static void plain_line(struct ss_cli_progress *p, unsigned slot, double now)
{
	char one[256];
	ss_cli_progress_format(p, slot, now, one, sizeof(one));
	fprintf(p->f, "%s: %s\n", p->prefix, one);
	fflush(p->f);
}

void ss_cli_progress_update(struct ss_cli_progress *p, unsigned slot, const char *label, const char *what, bool bytes,
			    uint64_t done, uint64_t total, bool final, const char *extra)
{
	if (!p->enabled || slot >= SS_CLI_SLOTS)
		return;
	double now = ss_mono();
	__typeof__(p->s[0]) *s = &p->s[slot];
	bool started = !s->active && !s->t0;
	if (started)
		s->t0 = now;
	s->active = true;
	s->ended = final;
	s->label = label;
	s->bytes = bytes;
	snprintf(s->what, sizeof(s->what), "%s", what ? what : "");
	snprintf(s->extra, sizeof(s->extra), "%s", extra ? extra : "");
	s->done = done;
	s->total = total;
	if (p->tty) {
		/* a phase that starts or ends is drawn at once, the others at most 10 times a second */
		if (started || final || !p->shown || now - p->t_drawn >= TTY_REDRAW_S)
			draw_tty(p, now);
		if (final)
			s->active = false;   /* gone from the next drawing */
		return;
	}
	/* plain: a line a second of the phase that reports, and each phase's end */
	if (final || now - p->t_drawn >= PLAIN_EVERY_S) {
		plain_line(p, slot, now);
		p->t_drawn = now;
	}
	if (final)
		s->active = false;
}

void ss_cli_progress_clear(struct ss_cli_progress *p)
{
	if (p->tty && p->shown) {
		fputs("\r\033[K", p->f);
		fflush(p->f);
		p->shown = false;
	}
}

void ss_cli_progress_finish(struct ss_cli_progress *p)
{
	ss_cli_progress_clear(p);
	for (unsigned i = 0; i < SS_CLI_SLOTS; i++)
		p->s[i].active = false;
}

static const char *phase_label(enum segscan_phase ph)
{
	switch (ph) {
	case SEGSCAN_PHASE_DISCOVERY: return "discovery";
	case SEGSCAN_PHASE_METADATA_LOG: return "metadata log";
	case SEGSCAN_PHASE_REMOTE_STATE: return "remote state";
	case SEGSCAN_PHASE_SCAN: return "scan";
	case SEGSCAN_PHASE_EVALUATION: return "evaluation";
	case SEGSCAN_PHASE_REMOTE_STORE: return "remote store";
	}
	return "working";
}

void ss_cli_log(void *user, const struct segscan_log_event *ev)
{
	struct ss_cli_progress *p = user;
	if (ev->kind == SEGSCAN_LOG_PROGRESS) {
		/* evaluation trails the scan by a partition: drawn once the scan is done */
		if (ev->phase == SEGSCAN_PHASE_EVALUATION && !ev->final && p->s[SEGSCAN_PHASE_SCAN].active)
			return;
		if ((unsigned)ev->phase < SS_CLI_SLOTS)
			ss_cli_progress_update(p, (unsigned)ev->phase, phase_label(ev->phase), ev->what,
					       ev->unit == SEGSCAN_UNIT_BYTES, ev->done, ev->total, ev->final, NULL);
		return;
	}
	if (ev->kind != SEGSCAN_LOG_MESSAGE || !ev->message)
		return;
	const char *tag = ev->level == SEGSCAN_LOG_ERROR     ? "error: "
			  : ev->level == SEGSCAN_LOG_WARNING ? "warning: "
							     : "";
	/* a warning never shares a line with the progress line: clear it, print, and let the
	 * next update draw it again below */
	ss_cli_progress_clear(p);
	fprintf(p->f, "%s: %s", p->prefix, tag);
	/* a message may name a file whose name holds anything: escaped for the terminal */
	ss_term_write(p->f, ev->message, strlen(ev->message));
	fputc('\n', p->f);
	fflush(p->f);
}
