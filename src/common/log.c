/* A scan's log sink: see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ss_logsink_init(struct ss_logsink *l, const bool *quiet)
{
	memset(l, 0, sizeof(*l));
	l->max_level = SEGSCAN_LOG_INFO;
	l->quiet = quiet;
	pthread_mutex_init(&l->mu, NULL);   /* destroyed in ss_logsink_destroy */
	ss_logsink_reset(l);
}

void ss_logsink_destroy(struct ss_logsink *l)
{
	pthread_mutex_destroy(&l->mu);      /* initialized in ss_logsink_init */
}

void ss_logsink_reset(struct ss_logsink *l)
{
	for (int i = 0; i < SS_LOG_PHASES; i++) {
		atomic_init(&l->ph[i].next_ns, 0);
		l->ph[i].last_done = 0;
		l->ph[i].ended = false;
	}
}

static void deliver(struct ss_logsink *l, const struct segscan_log_event *ev)
{
	pthread_mutex_lock(&l->mu);      /* unlocked right after the call: calls never overlap */
	l->fn(l->user, ev);
	pthread_mutex_unlock(&l->mu);
}

bool ss_logmsg(struct ss_logsink *l, enum segscan_log_level level, const char *fmt, ...)
{
	if (!l || !l->fn || level > l->max_level)
		return false;
	char stack[1024], *heap = NULL;
	const char *msg = stack;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(stack, sizeof(stack), fmt, ap);
	va_end(ap);
	if (n < 0) {
		msg = fmt;
	} else if ((size_t)n >= sizeof(stack)) {
		/* a long path in a message: the whole of it, or the truncated stack copy when
		 * memory is short */
		va_start(ap, fmt);
		if (vasprintf(&heap, fmt, ap) >= 0)
			msg = heap;
		else
			heap = NULL;
		va_end(ap);
	}
	struct segscan_log_event ev = {
		.size = sizeof(ev), .kind = SEGSCAN_LOG_MESSAGE, .level = level, .message = msg,
	};
	deliver(l, &ev);
	free(heap);
	return true;
}

bool ss_progress_on(const struct ss_logsink *l)
{
	return l && l->fn && l->max_level >= SEGSCAN_LOG_INFO && !(l->quiet && *l->quiet);
}

static void progress_event(struct ss_logsink *l, enum segscan_phase phase, enum segscan_unit unit, const char *what,
			   uint64_t done, uint64_t total, bool final)
{
	struct segscan_log_event ev = {
		.size = sizeof(ev), .kind = SEGSCAN_LOG_PROGRESS, .level = SEGSCAN_LOG_INFO, .phase = phase,
		.unit = unit, .what = what, .total = total, .final = final,
	};
	pthread_mutex_lock(&l->mu);      /* unlocked below on every path */
	if (l->ph[phase].ended || (!final && done < l->ph[phase].last_done)) {
		/* a thread that lost a race with a newer count, or a late event after the end */
		pthread_mutex_unlock(&l->mu);
		return;
	}
	if (done < l->ph[phase].last_done)
		done = l->ph[phase].last_done;  /* the final event never goes backwards either */
	ev.done = done;
	l->ph[phase].last_done = done;
	l->ph[phase].ended = final;
	l->fn(l->user, &ev);
	pthread_mutex_unlock(&l->mu);
}

void ss_progress(struct ss_logsink *l, enum segscan_phase phase, enum segscan_unit unit, const char *what,
		 uint64_t done, uint64_t total)
{
	if (!ss_progress_on(l) || phase <= 0 || phase >= SS_LOG_PHASES)
		return;
	uint64_t t = now_ns();
	uint_fast64_t next = atomic_load_explicit(&l->ph[phase].next_ns, memory_order_relaxed);
	if (t < next)
		return;
	/* relaxed: the slot only decides who emits; the event's data goes through mu */
	if (!atomic_compare_exchange_strong_explicit(&l->ph[phase].next_ns, &next, t + SS_LOG_PROGRESS_NS,
						     memory_order_relaxed, memory_order_relaxed))
		return;
	progress_event(l, phase, unit, what, done, total, false);
}

void ss_progress_end(struct ss_logsink *l, enum segscan_phase phase, enum segscan_unit unit, const char *what,
		     uint64_t done, uint64_t total)
{
	if (!ss_progress_on(l) || phase <= 0 || phase >= SS_LOG_PHASES)
		return;
	progress_event(l, phase, unit, what, done, total, true);
}

void ss_logsink_warn(void *arg, const char *msg)
{
	ss_logmsg(arg, SEGSCAN_LOG_WARNING, "%s", msg);
}
