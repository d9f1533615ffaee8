/*
 * Worker threads: each owns one I/O engine, a set of in-flight segment tasks and one
 * SPSC ring to the evaluator. Workers are placed on the NUMA node of the log dirs they
 * serve (sched/topology.h) and claim segments from their node's queue first, then from
 * the others (so a lone slow device never leaves a core idle).
 */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/assert.h"
#include "common/clock.h"
#include "common/fdlimit.h"
#include "scan/scan_int.h"
#include "common/probes.h"
#include "scan/task.h"
#include "sched/arena.h"
#include "sched/cpulist.h"
#include "sched/placement.h"
#include "sched/topology.h"

#define RING_CAPACITY   4096
#define PUBLISH_EVERY   32

/* Segment indices grouped by the NUMA node that serves them. */
struct ss_queue {
	uint32_t   *idx;    /* NULL: segment i is the catalog's i-th */
	uint32_t    n;
	atomic_uint next;   /* relaxed fetch_add: a claim needs no ordering, the catalog is
			       immutable while workers run */
};

struct ss_worker {
	struct segscan_scan   *s;
	unsigned               id;
	int                    node;      /* -1: serves every queue equally */
	bool                   pin;
	cpu_set_t              cpus;
	struct ss_queue       *queues;
	unsigned               n_queues;
	unsigned               nthreads;
	unsigned               home;      /* index of its node's queue */
	struct ss_ring        *ring;
	const struct ss_io_ops *ops;
	struct ss_io_engine   *eng;
	const char            *engine_name;
	struct ss_task_env     env;
	struct ss_task        *tasks;
	unsigned               n_tasks;
	int                    err;
	char                   errmsg[256];
	struct ss_worker_stats st;
	pthread_t              th;
};

/* Unclaimed segments over all queues (relaxed: a hint for sharing the tail fairly). */
/* --queue-depth bounds the segments in flight (depth / SS_TASK_MAX_REQS tasks, at least
 * one); the ring itself must hold every request one task submits at once, so a depth
 * below that (1 is valid) still gets a ring of SS_TASK_MAX_REQS. */
static unsigned ss_engine_depth(unsigned queue_depth)
{
	return queue_depth < SS_TASK_MAX_REQS ? SS_TASK_MAX_REQS : queue_depth;
}

static uint64_t unclaimed(const struct ss_worker *w)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < w->n_queues; k++) {
		unsigned next = atomic_load_explicit(&w->queues[k].next, memory_order_relaxed);
		if (next < w->queues[k].n)
			n += w->queues[k].n - next;
	}
	return n;
}

static bool claim(struct ss_worker *w, uint32_t *seg)
{
	for (unsigned k = 0; k < w->n_queues; k++) {
		struct ss_queue *q = &w->queues[(w->home + k) % w->n_queues];
		if (atomic_load_explicit(&q->next, memory_order_relaxed) >= q->n)
			continue;
		unsigned i = atomic_fetch_add_explicit(&q->next, 1, memory_order_relaxed);
		if (i < q->n) {
			*seg = q->idx ? q->idx[i] : i;
			/* the queues hold each segment to read once, none of a reused partition */
			ss_assert(*seg < w->s->cat.n_segs && !w->s->cat.parts[w->s->cat.segs[*seg].part].reused);
			return true;
		}
	}
	return false;
}

/* --max-read-rate: every worker charges what it read to one shared budget and sleeps
 * off its debt; a short burst (10 ms worth) passes without sleeping. */
static void rate_charge(struct ss_rate *r, uint64_t bytes)
{
	if (!r->rate || !bytes)
		return;
	pthread_mutex_lock(&r->mu);
	double now = ss_mono();
	if (r->next_free < now)
		r->next_free = now;
	r->next_free += (double)bytes / (double)r->rate;
	double wait = r->next_free - now - 0.010;
	pthread_mutex_unlock(&r->mu);
	if (wait > 0) {
		struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
		nanosleep(&ts, NULL);
	}
}

/* Idle I/O class for this thread (io_uring's inline submissions and pread inherit it),
 * so the broker's own I/O always goes first where the scheduler honours classes. */
static void set_idle_io(void)
{
	const int IOPRIO_CLASS_IDLE = 3, IOPRIO_CLASS_SHIFT = 13, IOPRIO_WHO_PROCESS = 1;
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT);
}

static void emit(struct ss_worker *w, uint32_t seg, unsigned *unpublished)
{
	uint64_t stalls = 0;
	ss_assert(seg < w->s->cat.n_segs);
	ss_ring_push_wait(w->ring, seg, &stalls);
	if (stalls)
		SS_PROBE_RING_FULL(w->id, stalls);
	w->st.ring_stalls += stalls;
	w->st.segments++;
	if (++*unpublished >= PUBLISH_EVERY) {
		/* release: pairs with the acquire in ss_ring_pop (evaluator), which then sees
		 * every ss_seg field this worker wrote for the published segments */
		ss_ring_publish(w->ring);
		*unpublished = 0;
		ss_evaluator_kick(w->s);
	}
}

/* A worker's loop state: its idle tasks, its completion slots and what it has in flight. */
struct wloop {
	struct ss_task   **idle;
	struct ss_io_req **done;
	unsigned           n_idle, busy, unpublished;
	uint64_t           rate_seen;
	bool               more;   /* false once nothing is left to claim, or on cancel */
};

#define MAX_DONE 64u

/* The thread's name, pinning, I/O class, its I/O engine and the task environment. */
static int worker_setup(struct ss_worker *w)
{
	struct segscan_scan *s = w->s;
	bool fb = false;
	char why[256];
	char name[16]; /* so perf and top tell the threads apart */
	int r;

	snprintf(name, sizeof(name), "segscan-w%u", w->id);
	pthread_setname_np(pthread_self(), name);
	if (w->pin && ss_pin_self(&w->cpus) != 0) {
		/* Pinning is an optimisation: a cgroup may forbid it. */
		w->pin = false;
	}
	if (s->opts.io_idle)
		set_idle_io();
	r = ss_io_create(w->engine_name, ss_engine_depth(s->opts.queue_depth), &w->ops, &w->eng, &fb, why, sizeof(why));
	if (r) {
		snprintf(w->errmsg, sizeof(w->errmsg), "cannot set up the %s I/O engine: %s", w->engine_name,
			 segscan_strerror(r));
		return r;
	}
	w->env.ops = w->ops;
	w->env.eng = w->eng;
	w->env.cat = &s->cat;
	w->env.verify = s->opts.verify;
	w->env.evict = s->opts.evict;
	if (s->prev && s->reuse_from) {
		w->env.prev_segs = s->prev->cat.segs;
		w->env.prev_ids = s->prev->cat.ids;
		w->env.reuse_from = s->reuse_from;
	}
	if (ss_arena_create(&w->env.arena) != 0)
		w->env.arena = 0; /* the default arena still works; locality is a bonus */
	return 0;
}

/* The worker's tasks (--queue-depth's share, capped by --verify's buffers and the open-file
 * limit), all idle; ss_task_destroy in worker_teardown is each one's partner. */
static int worker_tasks(struct ss_worker *w, struct wloop *L)
{
	struct segscan_scan *s = w->s;
	int r;

	w->n_tasks = s->opts.queue_depth / SS_TASK_MAX_REQS;
	if (w->n_tasks < 1)
		w->n_tasks = 1;
	if (s->opts.verify && w->n_tasks > 8)
		w->n_tasks = 8; /* 1 MiB buffers each; the device is saturated well before */
	/* what the open-file limit can hold open at once, shared by the workers */
	w->n_tasks = ss_fd_tasks_cap(w->nthreads, w->n_tasks);
	w->tasks = calloc(w->n_tasks, sizeof(*w->tasks));
	L->idle = calloc(w->n_tasks, sizeof(*L->idle));
	L->done = calloc(MAX_DONE, sizeof(*L->done));
	if (!w->tasks || !L->idle || !L->done) {
		w->n_tasks = 0; /* worker_teardown destroys the first n_tasks: none was made */
		return -ENOMEM;
	}
	for (unsigned i = 0; i < w->n_tasks; i++) {
		if ((r = ss_task_init(&w->tasks[i], &w->env))) {
			w->n_tasks = i;
			return r;
		}
		L->idle[L->n_idle++] = &w->tasks[i];
	}
	return 0;
}

/* Start segments on idle tasks while there is work to claim and no more than a fair share
 * is in flight. An error is the engine's (a task that failed with requests pending). */
static int worker_fill(struct ss_worker *w, struct wloop *L)
{
	struct segscan_scan *s = w->s;
	int r;

	while (L->more && L->n_idle > 0) {
		uint32_t seg;
		/* Near the end of the work (few large segments under --verify), do not
		 * hoard: keep at most a fair share in flight so every worker reads. */
		if (L->busy > 0 && L->busy >= unclaimed(w) / w->nthreads + 1)
			break;
		/* segscan_cancel: claim nothing more, finish what is in flight */
		if (atomic_load_explicit(&s->cancel, memory_order_relaxed) || !claim(w, &seg)) {
			L->more = false;
			break;
		}
		struct ss_task *t = L->idle[--L->n_idle];
		if ((r = ss_task_start(t, seg))) {
			/* A path too long for the task buffers: report on the segment. */
			struct ss_seg *sg = &s->cat.segs[seg];
			sg->flags |= SS_SEG_READ_ERROR;
			ss_seg_set_error(sg, r, SS_HAS_LOG, -1);
			L->idle[L->n_idle++] = t;
			if (t->pending)
				return r;
			emit(w, seg, &L->unpublished);
			continue;
		}
		SS_PROBE_SEGMENT_SUBMITTED(seg, w->id);
		L->busy++;
	}
	return 0;
}

/* Wait for at least one completion, charge --max-read-rate, and advance the tasks it
 * completes; a task that finished its segment goes to the ring and back to idle. */
static int worker_reap(struct ss_worker *w, struct wloop *L)
{
	struct segscan_scan *s = w->s;
	int r;

	if (L->unpublished && w->ops->inflight(w->eng) > 0) {
		/* About to wait for the device: let the evaluator have what is ready. */
		ss_ring_publish(w->ring);
		L->unpublished = 0;
		ss_evaluator_kick(s);
	}
	int n = w->ops->reap(w->eng, L->done, MAX_DONE, 1);
	if (n < 0)
		return n;
	if (s->rate.rate) {
		struct ss_io_counters c;
		w->ops->counters(w->eng, &c);
		rate_charge(&s->rate, c.bytes_read - L->rate_seen);
		L->rate_seen = c.bytes_read;
	}
	for (int i = 0; i < n; i++) {
		struct ss_task *t = L->done[i]->udata;
		bool fin = false;
		if ((r = ss_task_complete(t, L->done[i], &fin)))
			return r;
		if (fin) {
			SS_PROBE_SEGMENT_PARSED(t->seg_idx, t->bytes_read);
			L->busy--;
			L->idle[L->n_idle++] = t;
			emit(w, t->seg_idx, &L->unpublished);
		}
	}
	return 0;
}

/* The worker's loop: fill, submit, reap, until every claimed segment is done. */
static int worker_run(struct ss_worker *w, struct wloop *L)
{
	int r;

	L->more = true;
	for (;;) {
		if ((r = worker_fill(w, L)))
			return r;
		if (L->busy > w->st.tasks_peak)
			w->st.tasks_peak = L->busy;
		if ((r = w->ops->flush(w->eng)))
			return r;
		if (L->busy == 0 && !L->more) {
			/* every started task finished: none is still in the engine */
			ss_assert(L->n_idle == w->n_tasks && w->ops->inflight(w->eng) == 0);
			return 0;
		}
		if ((r = worker_reap(w, L)))
			return r;
	}
}

/* Publish the rest, drain and close the engine, free the tasks, and tell the evaluator
 * this worker is done. */
static void worker_teardown(struct ss_worker *w, struct wloop *L)
{
	struct segscan_scan *s = w->s;

	ss_ring_publish(w->ring);
	if (w->eng) {
		w->ops->counters(w->eng, &w->st.io);
		/* drain whatever is still in flight before the task buffers go away */
		while (w->ops->inflight(w->eng) > 0) {
			if (w->ops->reap(w->eng, L->done, MAX_DONE, 1) < 0)
				break;
		}
		w->ops->destroy(w->eng);
	}
	for (unsigned i = 0; i < w->n_tasks; i++)
		ss_task_destroy(&w->tasks[i]);
	if (w->env.arena)
		ss_arena_destroy(w->env.arena); /* serve rescans: arenas must not pile up */
	w->st.reused = w->env.reused;
	w->st.evicted_bytes = w->env.evicted_bytes;
	free(w->tasks);
	free(L->idle);
	free(L->done);
	/* release: pairs with the acquire load of workers_done in the evaluator, so after it
	 * sees every worker done, one more ss_ring_pop drains everything published above */
	atomic_fetch_add_explicit(&s->workers_done, 1, memory_order_release);
	ss_evaluator_kick(s);
}

static void *worker_main(void *arg)
{
	struct ss_worker *w = arg;
	struct wloop L = { 0 };
	int r;

	if ((r = worker_setup(w)) == 0 && (r = worker_tasks(w, &L)) == 0 && (r = worker_run(w, &L)) != 0)
		snprintf(w->errmsg, sizeof(w->errmsg), "I/O engine %s failed: %s", w->ops ? w->ops->name : "?",
			 segscan_strerror(r));
	w->err = r;
	worker_teardown(w, &L);
	return NULL;
}

unsigned ss_default_threads(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}


/* One run of the workers: what ss_workers_run sets up, step by step; wrun_end frees it. */
struct wrun {
	struct segscan_scan *s;
	unsigned             nthreads;
	struct ss_topo      *topo;      /* NULL: --numa off, or no topology */
	int                 *nodes;     /* each log dir's NUMA node, -1 unknown */
	struct ss_queue     *qs;
	int                 *qnode;     /* queue k holds the segments of node qnode[k] */
	unsigned             nq;
	struct ss_placement  plan;
	bool                 have_plan, have_avoid;
	cpu_set_t            avoid_allowed;
	struct ss_worker    *ws;
	pthread_t            ev;
	bool                 ev_started;
	unsigned             started;   /* worker threads running */
};

/* Decide the engine once, in this thread, so the fallback warning is printed once. */
static int pick_engine(struct segscan_scan *s)
{
	const struct ss_io_ops *ops;
	struct ss_io_engine *e;
	bool fb = false;
	char why[256];
	int r;

	why[0] = 0;
	if ((r = ss_io_create(s->opts.io, ss_engine_depth(s->opts.queue_depth), &ops, &e, &fb, why, sizeof(why)))) {
		snprintf(s->err, sizeof(s->err), "cannot set up the %s I/O engine: %s", s->opts.io,
			 segscan_strerror(r));
		return r;
	}
	snprintf(s->io_used, sizeof(s->io_used), "%s", ops->name);
	ops->destroy(e);
	if (fb) {
		s->io_fell_back = true;
		/* once per process, not once per scan: serve scans every interval (its
		 * callback makes it a logfmt line, issue 14 item 11). A scan without a
		 * callback does not use up the once. */
		static atomic_bool warned;
		if (s->log.fn && !atomic_exchange(&warned, true))
			ss_logmsg(&s->log, SEGSCAN_LOG_WARNING, "%s", why);
	}
	return 0;
}

/* --threads (default: the CPUs we may run on), no more than there are segments, and
 * what the open-file limit allows. */
static unsigned thread_count(struct segscan_scan *s)
{
	const struct ss_catalog *cat = &s->cat;
	unsigned nthreads = s->opts.threads ? s->opts.threads : ss_default_threads();

	if (nthreads > cat->n_segs && cat->n_segs > 0)
		nthreads = cat->n_segs; /* idle threads would only cost setup */
	if (nthreads == 0)
		nthreads = 1;
	nthreads = ss_fd_threads_cap(nthreads); /* a tiny `ulimit -n`: fewer workers, not errors */
	s->threads_used = nthreads;
	return nthreads;
}

/* Each log dir's NUMA node under --numa (-1 where unknown, and everywhere without it). */
static int find_nodes(struct wrun *R)
{
	struct segscan_scan *s = R->s;
	struct ss_catalog *cat = &s->cat;

	R->nodes = calloc(cat->n_logdirs ? cat->n_logdirs : 1, sizeof(int));
	if (!R->nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < cat->n_logdirs; i++)
		R->nodes[i] = -1;
	if (s->opts.numa) {
		if (ss_topo_load(s->opts.numa_root ? s->opts.numa_root : "/sys", &R->topo) == 0) {
			for (uint32_t i = 0; i < cat->n_logdirs; i++)
				if (cat->logdirs[i].fd >= 0)
					R->nodes[i] = cat->logdirs[i].node =
						ss_topo_node_of_path(R->topo, cat->logdirs[i].path);
		} else {
			R->topo = NULL;
		}
	}
	return 0;
}

/* One queue per distinct node (and one for unknown), segments in catalog order so
 * partitions complete early and the evaluator works while we read. */
static int build_queues(struct wrun *R)
{
	const struct ss_catalog *cat = &R->s->cat;

	R->qs = calloc(cat->n_logdirs + 1, sizeof(*R->qs));
	R->qnode = calloc(cat->n_logdirs + 1, sizeof(int));
	if (!R->qs || !R->qnode)
		return -ENOMEM;
	for (uint32_t i = 0; i < cat->n_logdirs; i++) {
		unsigned k;
		for (k = 0; k < R->nq && R->qnode[k] != R->nodes[i]; k++)
			;
		if (k == R->nq)
			R->qnode[R->nq++] = R->nodes[i];
	}
	if (R->nq == 0)
		R->qnode[R->nq++] = -1;
	bool any_reused = false;
	for (uint32_t i = 0; i < cat->n_parts && !any_reused; i++)
		any_reused = cat->parts[i].reused;
	if (R->nq == 1 && !any_reused) {
		/* every segment, in catalog order: the queue is the identity, no array (4 bytes
		 * a segment, 4 MB of a million-segment scan's budget) */
		R->qs[0].n = cat->n_segs;
		return 0;
	}
	for (unsigned k = 0; k < R->nq; k++) {
		R->qs[k].idx = malloc(sizeof(uint32_t) * (cat->n_segs ? cat->n_segs : 1));
		if (!R->qs[k].idx)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < cat->n_segs; i++) {
		if (cat->parts[cat->segs[i].part].reused)
			continue; /* taken whole from the previous scan (ss_dreuse): nothing to read */
		int node = R->nodes[cat->parts[cat->segs[i].part].logdir];
		unsigned k;
		for (k = 0; k < R->nq && R->qnode[k] != node; k++)
			;
		R->qs[k].idx[R->qs[k].n++] = i;
	}
	return 0;
}

/* The workers and their rings (struct ss_ring is cache-line aligned: calloc's 16 bytes
 * are not enough). */
static int alloc_workers(struct wrun *R)
{
	struct segscan_scan *s = R->s;

	R->ws = calloc(R->nthreads, sizeof(*R->ws));
	size_t bytes = (R->nthreads * sizeof(*s->rings) + 63) & ~(size_t)63;
	s->rings = aligned_alloc(64, bytes);
	if (s->rings)
		memset(s->rings, 0, bytes);
	if (!R->ws || !s->rings)
		return -ENOMEM;
	return 0;
}

/* --avoid-cpus: the broker's cores, taken out of what any worker may use. */
static int avoid_cpus(struct wrun *R)
{
	struct segscan_scan *s = R->s;
	cpu_set_t allowed;

	if (!s->opts.has_avoid || sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s->opts.avoid_cpus))
			CPU_CLR(c, &allowed);
	if (CPU_COUNT(&allowed) == 0) {
		snprintf(s->err, sizeof(s->err), "--avoid-cpus leaves no CPU to run on");
		s->usage_error = true; /* a bad option value: exit 2 (issue 14 item 11) */
		return -EINVAL;
	}
	if (R->topo)
		ss_topo_set_allowed(R->topo, &allowed);
	R->avoid_allowed = allowed;
	R->have_avoid = true;
	return 0;
}

/* The placement (a NULL topology = numa off: no pinning, every worker serves every log
 * dir) and one ring per worker. */
static int plan_and_rings(struct wrun *R)
{
	struct segscan_scan *s = R->s;
	int r;

	if (ss_sched_plan(R->topo, R->nthreads, R->nodes, s->cat.n_logdirs, &R->plan) == 0)
		R->have_plan = true;
	for (unsigned i = 0; i < R->nthreads; i++) {
		if ((r = ss_ring_init(&s->rings[i], RING_CAPACITY)))
			return r;
		s->n_rings = i + 1;
	}
	return 0;
}

static int start_evaluator(struct wrun *R)
{
	struct segscan_scan *s = R->s;
	int r;

	if ((r = pthread_create(&R->ev, NULL, ss_evaluator_main, s))) {
		r = -r;
		snprintf(s->err, sizeof(s->err), "cannot start the evaluator thread: %s", segscan_strerror(r));
		return r;
	}
	R->ev_started = true;
	return 0;
}

/* Each worker's node, home queue and CPUs, and its thread. */
static int start_workers(struct wrun *R)
{
	struct segscan_scan *s = R->s;
	int r = 0;

	for (unsigned i = 0; i < R->nthreads; i++) {
		struct ss_worker *w = &R->ws[i];
		w->s = s;
		w->id = i;
		w->ring = &s->rings[i];
		w->queues = R->qs;
		w->n_queues = R->nq;
		w->nthreads = R->nthreads;
		w->engine_name = s->io_used;
		w->node = R->have_plan ? R->plan.workers[i].node : -1;
		w->home = 0;
		for (unsigned k = 0; k < R->nq; k++)
			if (R->qnode[k] == w->node)
				w->home = k;
		if (R->have_plan && R->plan.workers[i].pin) {
			w->pin = true;
			w->cpus = R->plan.workers[i].cpus;
		} else if (R->have_avoid) {
			w->pin = true;
			w->cpus = R->avoid_allowed;
		}
		if ((r = pthread_create(&w->th, NULL, worker_main, w))) {
			r = -r;
			/* the evaluator waits for n_rings workers: account for the missing ones */
			atomic_fetch_add_explicit(&s->workers_done, R->nthreads - i, memory_order_release);
			break;
		}
		R->started++;
	}
	if (r && R->started > 0) {
		/* an address-space or thread limit (EAGAIN): the workers share one set of
		 * queues, so the ones that started read everything, only slower */
		r = 0;
	} else if (r) {
		snprintf(s->err, sizeof(s->err), "cannot start a worker thread: %s", segscan_strerror(r));
	}
	return r;
}

/* Join the workers, keep each one's placement (s->winfo) and add up their counters; the
 * first worker's error is the run's, unless the run already has one (r). */
static int join_workers(struct wrun *R, int r)
{
	struct segscan_scan *s = R->s;

	free(s->winfo);
	s->winfo = calloc(R->nthreads, sizeof(*s->winfo));
	s->n_winfo = s->winfo ? R->nthreads : 0;
	for (unsigned i = 0; i < R->started; i++) {
		struct ss_worker *w = &R->ws[i];
		pthread_join(w->th, NULL);
		if (s->winfo) {
			s->winfo[i].node = w->node;
			s->winfo[i].pinned = w->pin;
			s->winfo[i].segments = w->st.segments;
			if (w->pin)
				ss_cpulist_format(&w->cpus, s->winfo[i].cpus, sizeof(s->winfo[i].cpus));
		}
		struct ss_worker_stats *st = &w->st;
		s->totals.io.syscalls += st->io.syscalls;
		s->totals.io.submissions += st->io.submissions;
		s->totals.io.bytes_read += st->io.bytes_read;
		s->totals.segments += st->segments;
		s->totals.ring_stalls += st->ring_stalls;
		s->totals.reused += st->reused;
		s->totals.evicted_bytes += st->evicted_bytes;
		if (st->tasks_peak > s->totals.tasks_peak)
			s->totals.tasks_peak = st->tasks_peak;
		if (w->err && !r) {
			r = w->err;
			/* an error without a message of its own (an allocation) still says what */
			snprintf(s->err, sizeof(s->err), "worker %u: %s", i,
				 w->errmsg[0] ? w->errmsg : segscan_strerror(w->err));
		}
	}
	return r;
}

/* The evaluator, if a step failed after it started (it waits for every ring's worker),
 * and everything the steps allocated. */
static void wrun_end(struct wrun *R)
{
	if (R->ev_started) {
		atomic_store_explicit(&R->s->workers_done, R->s->n_rings, memory_order_release);
		pthread_join(R->ev, NULL);
	}
	for (unsigned k = 0; R->qs && k < R->nq; k++)
		free(R->qs[k].idx);
	free(R->qs);
	free(R->qnode);
	free(R->ws);
	if (R->have_plan)
		ss_placement_free(&R->plan);
	free(R->nodes);
	if (R->topo)
		ss_topo_free(R->topo);
}

/* The scan's read phase: the engine, the threads, the NUMA queues and placement, then the
 * evaluator and the workers, joined; the steps above in order. */
int ss_workers_run(struct segscan_scan *s)
{
	struct ss_catalog *cat = &s->cat;
	struct wrun R = { .s = s };
	int r;

	if ((r = pick_engine(s)))
		return r;
	R.nthreads = thread_count(s);
	if ((r = find_nodes(&R)) || (r = build_queues(&R)) || (r = alloc_workers(&R)) || (r = avoid_cpus(&R)) ||
	    (r = plan_and_rings(&R)))
		goto out;
	atomic_store(&s->workers_done, 0);
	for (uint32_t pi = 0; pi < cat->n_parts; pi++)
		cat->parts[pi].seg_pending = cat->parts[pi].reused ? 0 : cat->parts[pi].seg_count;

	double t0 = ss_mono();
	if ((r = start_evaluator(&R)))
		goto out;
	r = join_workers(&R, start_workers(&R));
	pthread_join(R.ev, NULL);
	R.ev_started = false;
	s->times.scan = ss_mono() - t0;
	s->bytes_read = (int64_t)s->totals.io.bytes_read;
out:
	wrun_end(&R);
	return r;
}
