/*
 * The library's one way out for messages and progress: a scan's log sink wraps the
 * embedder's segscan_log_fn (include/segscan.h, "Messages and progress"). No library
 * code writes to stderr; it calls these, and without a callback they do nothing.
 *
 * Every call into the callback is made under the sink's mutex, so calls for one scan
 * never overlap whatever thread emits (discovery listers, the remote-state thread, the
 * evaluator). Progress is throttled here, per phase, before the lock is taken: a caller
 * may report on every item, the common case costs one clock read and one atomic load.
 *
 * Not to be confused with src/service/log.h, serve's logfmt writer: serve installs a
 * callback that routes a scan's messages into it.
 */
#ifndef SS_COMMON_LOG_H
#define SS_COMMON_LOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "segscan.h"

#define SS_LOG_PHASES          (SEGSCAN_PHASE_REMOTE_STORE + 1)
/* At most this often per phase (ns): about four events a second. */
#define SS_LOG_PROGRESS_NS     250000000ull

struct ss_logsink {
	segscan_log_fn         fn;          /* NULL: everything is dropped */
	void                  *user;
	enum segscan_log_level max_level;
	const bool            *quiet;       /* the scan's "quiet" option: no progress events */
	pthread_mutex_t        mu;          /* held around every fn call (serializes them) */
	struct {
		atomic_uint_fast64_t next_ns; /* earliest time of the next throttled event;
						 claimed by CAS, so one thread of many emits */
		uint64_t             last_done; /* mu: what the last event said (monotonic) */
		bool                 ended;     /* mu: the final event went out */
	} ph[SS_LOG_PHASES];
};

/* init pairs with ss_logsink_destroy (the mutex). quiet may be NULL. */
void ss_logsink_init(struct ss_logsink *l, const bool *quiet);
void ss_logsink_destroy(struct ss_logsink *l);
/* Forget the phases' state (a sink reused for another run). Not while one runs. */
void ss_logsink_reset(struct ss_logsink *l);

/* A message at `level`; l may be NULL. Returns true when a callback received it. */
bool ss_logmsg(struct ss_logsink *l, enum segscan_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Would progress events reach a callback? (Lets a caller skip work, e.g. a stat pass for
 * a total.) */
bool ss_progress_on(const struct ss_logsink *l);

/* Progress of `phase`: done out of total (0 unknown). Throttled; dropped when done is
 * below what was last reported or the phase has ended. l may be NULL. */
void ss_progress(struct ss_logsink *l, enum segscan_phase phase, enum segscan_unit unit, const char *what,
		 uint64_t done, uint64_t total);
/* The phase's final event, never throttled; once per phase. */
void ss_progress_end(struct ss_logsink *l, enum segscan_phase phase, enum segscan_unit unit, const char *what,
		     uint64_t done, uint64_t total);

/* Adapter for the sources' `void (*warn)(void *arg, const char *msg)` hooks: arg is a
 * struct ss_logsink *, msg becomes a warning. */
void ss_logsink_warn(void *arg, const char *msg);

#endif
