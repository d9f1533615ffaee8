/* The monotonic clock in seconds, for stage times, rate limits and service timers. */
#ifndef SS_COMMON_CLOCK_H
#define SS_COMMON_CLOCK_H

#include <time.h>

static inline double ss_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
