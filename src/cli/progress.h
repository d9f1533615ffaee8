/*
 * The CLI's one progress renderer and the library log callback that feeds it (scan) or
 * that gen's own progress hook feeds.
 *
 * On a terminal (stderr isatty) one line is rewritten in place ("\r" ... "ESC[K"): each
 * running phase with done/total, a percentage, the rate and an ETA. It is cleared before
 * anything else is printed on stderr (a warning, then the line comes back on the next
 * update) and at the end, so the report and summary that follow start on a clean line.
 * Off a terminal, with --progress, plain lines: at most one a second, and one as each
 * phase ends. --quiet: none.
 *
 * Not thread-safe by itself: the library serializes its callback calls (segscan.h), and
 * gen reports from one thread.
 */
#ifndef SS_CLI_PROGRESS_H
#define SS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "segscan.h"

#define SS_CLI_SLOTS 8

struct ss_cli_progress {
	FILE  *f;
	bool   enabled;      /* progress is drawn at all */
	bool   tty;          /* in place on a terminal; else plain lines */
	bool   shown;        /* tty: a progress line is on the screen now */
	double t_drawn;      /* when the line was last drawn (or a plain line printed) */
	const char *prefix;  /* "segscan" or "segscan gen" */
	struct {
		bool     active, bytes, ended;
		const char *label;
		char     what[32];
		char     extra[64];
		uint64_t done, total;
		double   t0;
	} s[SS_CLI_SLOTS];
};

/* quiet: nothing at all; force (--progress): plain lines off a terminal. */
void ss_cli_progress_init(struct ss_cli_progress *p, FILE *f, const char *prefix, bool quiet, bool force);
/* Slot `slot` (a phase) is at done of total (0: unknown). final: the slot's last call.
 * extra: appended text ("12 segments, 3.1 MiB"), may be NULL. */
void ss_cli_progress_update(struct ss_cli_progress *p, unsigned slot, const char *label, const char *what, bool bytes,
			    uint64_t done, uint64_t total, bool final, const char *extra);
/* Erase the line in flight (tty), before something else is printed on p->f. */
void ss_cli_progress_clear(struct ss_cli_progress *p);
/* The end of the run: the line is erased (tty); nothing is left behind. */
void ss_cli_progress_finish(struct ss_cli_progress *p);

/* The one line of a slot as drawn, into buf (for tests and for the renderer itself). */
void ss_cli_progress_format(const struct ss_cli_progress *p, unsigned slot, double now, char *buf, size_t len);

/* segscan_log_fn for segscan_set_log: user is a struct ss_cli_progress *. Messages are
 * "segscan: warning: ...", "segscan: error: ..." (terminal-escaped), printed on a clean
 * line; progress events go to the renderer. */
void ss_cli_log(void *user, const struct segscan_log_event *ev);

#endif
