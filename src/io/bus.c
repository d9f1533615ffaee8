/*
 * The process's one SIGBUS hook, for every reader of mapped files: the mmap engine's
 * copies and the bytes it lends (io/mmap.c), and the file window of the synchronous readers
 * (io/fwin.c). Kafka truncates segment files while we read them, and touching a mapped
 * page that lies wholly past the new end of file raises SIGBUS. A process-wide handler
 * recognises faults inside the range this thread is touching (a thread-local guard, armed
 * only around the access) and siglongjmps back; any other SIGBUS goes on to the handler
 * that was there before ours. See engine.h.
 *
 * Its own file, apart from the engines: a reader that maps (io/fwin.c) needs the hook and
 * nothing of the engines, and so does a fuzz target built over it.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "io/engine.h"

/* ---- SIGBUS guard ------------------------------------------------------------------- */

struct ss_bus_guard {
	sigjmp_buf            jb;
	const char           *lo, *hi;   /* the source range being copied */
	volatile sig_atomic_t armed;
};

/* Thread-local: a fault is delivered to the thread that touched the page, so each thread
 * only ever looks at its own guard. */
static __thread struct ss_bus_guard ss_bus_guard;

/*
 * Global mutable state (process-wide by nature, like the signal disposition itself):
 * the SIGBUS action that was installed before ours, to which faults that are not ours
 * are passed on. Written under ss_bus_lock just before our handler is (re)installed;
 * read by the handler.
 */
static pthread_mutex_t  ss_bus_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction ss_bus_prev;

static void ss_bus_handler(int sig, siginfo_t *si, void *uctx)
{
	struct ss_bus_guard *g = &ss_bus_guard;
	const char *a = si->si_addr;

	/* Pairs with the signal fence after arming in ss_io_guarded_copy(): armed, lo and hi
	 * are all visible here once armed reads 1. */
	if (g->armed && si->si_code > 0) {
		atomic_signal_fence(memory_order_acquire);
		if (a >= g->lo && a < g->hi) {
			g->armed = 0;
			/* Leave with the mask the copy ran with (the kernel blocked whatever
			 * the handler's sa_mask said, and a wrapper such as TSan's blocks
			 * everything): a SIGBUS left blocked would kill at the next fault.
			 * Restored here, on the rare fault, rather than saved by
			 * sigsetjmp(.., 1), which costs a syscall on every read. */
			const ucontext_t *uc = uctx;
			pthread_sigmask(SIG_SETMASK, &uc->uc_sigmask, NULL);
			siglongjmp(g->jb, 1);
		}
	}

	struct sigaction *p = &ss_bus_prev;
	bool sent = si->si_code <= 0;   /* kill()/sigqueue(), not a fault */
	if (p->sa_flags & SA_SIGINFO) {
		p->sa_sigaction(sig, si, uctx);
		return;
	}
	if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
		p->sa_handler(sig);
		return;
	}
	if (p->sa_handler == SIG_IGN && sent)
		return;
	/* The default action (a fault cannot be ignored: the kernel would force it). On
	 * return a fault re-executes the access and dies of it; a sent signal is raised
	 * again. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGBUS, &dfl, NULL);
	if (sent)
		raise(SIGBUS);
}

/*
 * Install our handler unless it is already the current one. Done at every engine
 * creation, not once: a program may replace the handler after us (cmocka does around
 * every test), and a guard without its handler would let a truncation kill the process.
 */
int ss_io_bus_install(void)
{
	struct sigaction cur, ours;
	int r = 0;

	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = ss_bus_handler;
	ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&ours.sa_mask);

	pthread_mutex_lock(&ss_bus_lock);
	if (sigaction(SIGBUS, NULL, &cur) < 0) {
		r = -errno;
		goto out;
	}
	if (cur.sa_sigaction == ss_bus_handler) {
		if (cur.sa_flags & SA_SIGINFO)
			goto out;
		/* Ours, put back by signal() (cmocka restores handlers that way) without
		 * SA_SIGINFO: reinstall, but never chain to ourselves. */
	} else {
		ss_bus_prev = cur;
	}
	if (sigaction(SIGBUS, &ours, NULL) < 0)
		r = -errno;
out:
	pthread_mutex_unlock(&ss_bus_lock);
	return r;
}

/*
 * Copy n bytes from a mapping. Returns the bytes copied; *faulted when a SIGBUS stopped
 * the copy. Page by page, so that on a fault every page before the faulting one is known
 * to be copied whole (memcpy itself may copy out of order).
 */
size_t ss_io_guarded_copy(char *dst, const char *src, size_t n, size_t page, bool *faulted)
{
	struct ss_bus_guard *g = &ss_bus_guard;
	volatile size_t done = 0;

	*faulted = false;
	if (!n)
		return 0;
	g->lo = src;
	g->hi = src + n;
	if (sigsetjmp(g->jb, 0)) {
		*faulted = true;
		return done;
	}
	/* Pairs with the acquire fence in ss_bus_handler(): lo, hi and the jump buffer are
	 * written before armed reads 1. */
	atomic_signal_fence(memory_order_release);
	g->armed = 1;
	atomic_signal_fence(memory_order_seq_cst);
	while (done < n) {
		size_t at = done;
		size_t chunk = page - ((uintptr_t)(src + at) & (page - 1));
		if (chunk > n - at)
			chunk = n - at;
		memcpy(dst + at, src + at, chunk);
		done = at + chunk;
	}
	/* Keeps the copies above inside the armed window. */
	atomic_signal_fence(memory_order_seq_cst);
	g->armed = 0;
	return done;
}

int ss_io_guarded(void (*fn)(void *), void *arg, const void *lo, size_t n)
{
	struct ss_bus_guard *g = &ss_bus_guard;

	g->lo = lo;
	g->hi = (const char *)lo + n;
	if (sigsetjmp(g->jb, 0))
		return -EFAULT;  /* the handler disarmed the guard */
	/* Pairs with the acquire fence in ss_bus_handler(), as in ss_io_guarded_copy(). */
	atomic_signal_fence(memory_order_release);
	g->armed = 1;
	atomic_signal_fence(memory_order_seq_cst);
	fn(arg);
	/* Keeps fn's accesses inside the armed window. */
	atomic_signal_fence(memory_order_seq_cst);
	g->armed = 0;
	return 0;
}
