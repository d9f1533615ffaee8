/* See fdlimit.h. */
#include "common/fdlimit.h"

#include <sys/resource.h>
#include <time.h>

unsigned ss_fd_soft(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 1024; /* the usual default: a guess that errs low */
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > SS_FD_SOFT_MAX)
		return SS_FD_SOFT_MAX;
	return (unsigned)rl.rlim_cur;
}

unsigned ss_fd_raise_soft(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (rl.rlim_max == RLIM_INFINITY || rl.rlim_cur < rl.rlim_max) && rl.rlim_cur < SS_FD_SOFT_MAX) {
		/* systemd's default is soft 1024 / hard 524288: the hard limit is what the
		 * administrator allows, the soft one only protects select(2) users (we have
		 * none: MHD runs on epoll) */
		rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > SS_FD_SOFT_MAX ? SS_FD_SOFT_MAX : rl.rlim_max;
		rl.rlim_cur = want;
		(void)setrlimit(RLIMIT_NOFILE, &rl); /* a refusal leaves the old limit: sized below */
	}
	return ss_fd_soft();
}

static unsigned usable(void)
{
	unsigned soft = ss_fd_soft();
	return soft > SS_FD_RESERVE ? soft - SS_FD_RESERVE : 0;
}

unsigned ss_fd_threads_cap(unsigned threads)
{
	/* every worker needs at least one task's files and its engine's */
	unsigned cap = usable() / (SS_FD_PER_TASK + 1);
	if (cap < 1)
		cap = 1;
	return threads < cap ? threads : cap;
}

unsigned ss_fd_tasks_cap(unsigned threads, unsigned tasks)
{
	if (threads < 1)
		threads = 1;
	unsigned u = usable(), per = u / threads;
	unsigned cap = per > 1 ? (per - 1) / SS_FD_PER_TASK : 0;
	if (cap < 1)
		cap = 1;
	return tasks < cap ? tasks : cap;
}

bool ss_fd_retry_wait(unsigned attempt)
{
	if (attempt >= 12)
		return false; /* 1+2+...+512 ms (capped at 256): about 2 s in all */
	unsigned ms = 1u << (attempt < 8 ? attempt : 8);
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	return true;
}
