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

static void *worker_main(void *arg)
{
	struct ss_worker *w = arg;
	struct segscan_scan *s = w->s;
	struct ss_task **idle = NULL;
	struct ss_io_req **done = NULL;
	unsigned n_idle = 0, unpublished = 0, busy = 0;
	uint64_t rate_seen = 0;
	const unsigned max_done = 64;
	bool fb = false;
	char why[256];
	int r;

	{
		char name[16]; /* so perf and top tell the threads apart */
		snprintf(name, sizeof(name), "segscan-w%u", w->id);
		pthread_setname_np(pthread_self(), name);
	}
	if (w->pin && (r = ss_pin_self(&w->cpus)) != 0) {
		/* Pinning is an optimisation: a cgroup may forbid it. */
		w->pin = false;
	}
	if (s->opts.io_idle)
		set_idle_io();
	r = ss_io_create(w->engine_name, ss_engine_depth(s->opts.queue_depth), &w->ops, &w->eng, &fb, why, sizeof(why));
	if (r) {
		w->err = r;
		snprintf(w->errmsg, sizeof(w->errmsg), "cannot set up the %s I/O engine: %s", w->engine_name,
			 segscan_strerror(r));
		goto out;
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

	unsigned per_task = SS_TASK_MAX_REQS;
	w->n_tasks = s->opts.queue_depth / per_task;
	if (w->n_tasks < 1)
		w->n_tasks = 1;
	if (s->opts.verify && w->n_tasks > 8)
		w->n_tasks = 8; /* 1 MiB buffers each; the device is saturated well before */
	/* what the open-file limit can hold open at once, shared by the workers */
	w->n_tasks = ss_fd_tasks_cap(w->nthreads, w->n_tasks);
	w->tasks = calloc(w->n_tasks, sizeof(*w->tasks));
	idle = calloc(w->n_tasks, sizeof(*idle));
	done = calloc(max_done, sizeof(*done));
	if (!w->tasks || !idle || !done) {
		w->err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < w->n_tasks; i++) {
		if ((r = ss_task_init(&w->tasks[i], &w->env))) {
			w->n_tasks = i;
			w->err = r;
			goto out;
		}
		idle[n_idle++] = &w->tasks[i];
	}

	bool more = true;
	for (;;) {
		while (more && n_idle > 0) {
			uint32_t seg;
			/* Near the end of the work (few large segments under --verify), do not
			 * hoard: keep at most a fair share in flight so every worker reads. */
			if (busy > 0 && busy >= unclaimed(w) / w->nthreads + 1)
				break;
			/* segscan_cancel: claim nothing more, finish what is in flight */
			if (atomic_load_explicit(&s->cancel, memory_order_relaxed) || !claim(w, &seg)) {
				more = false;
				break;
			}
			struct ss_task *t = idle[--n_idle];
			if ((r = ss_task_start(t, seg))) {
				/* A path too long for the task buffers: report on the segment. */
				struct ss_seg *sg = &s->cat.segs[seg];
				sg->flags |= SS_SEG_READ_ERROR;
				ss_seg_set_error(sg, r, SS_HAS_LOG, -1);
				idle[n_idle++] = t;
				if (t->pending)
					goto engine_fail;
				emit(w, seg, &unpublished);
				continue;
			}
			SS_PROBE_SEGMENT_SUBMITTED(seg, w->id);
			busy++;
		}
		if (busy > w->st.tasks_peak)
			w->st.tasks_peak = busy;
		if ((r = w->ops->flush(w->eng)))
			goto engine_fail;
		if (busy == 0 && !more) {
			/* every started task finished: none is still in the engine */
			ss_assert(n_idle == w->n_tasks && w->ops->inflight(w->eng) == 0);
			break;
		}
		if (unpublished && w->ops->inflight(w->eng) > 0) {
			/* About to wait for the device: let the evaluator have what is ready. */
			ss_ring_publish(w->ring);
			unpublished = 0;
			ss_evaluator_kick(s);
		}
		int n = w->ops->reap(w->eng, done, max_done, 1);
		if (n < 0) {
			r = n;
			goto engine_fail;
		}
		if (s->rate.rate) {
			struct ss_io_counters c;
			w->ops->counters(w->eng, &c);
			rate_charge(&s->rate, c.bytes_read - rate_seen);
			rate_seen = c.bytes_read;
		}
		for (int i = 0; i < n; i++) {
			struct ss_task *t = done[i]->udata;
			bool fin = false;
			if ((r = ss_task_complete(t, done[i], &fin)))
				goto engine_fail;
			if (fin) {
				SS_PROBE_SEGMENT_PARSED(t->seg_idx, t->bytes_read);
				busy--;
				idle[n_idle++] = t;
				emit(w, t->seg_idx, &unpublished);
			}
		}
	}
	goto out;

engine_fail:
	w->err = r;
	snprintf(w->errmsg, sizeof(w->errmsg), "I/O engine %s failed: %s", w->ops ? w->ops->name : "?",
		 segscan_strerror(r));
out:
	ss_ring_publish(w->ring);
	if (w->eng) {
		w->ops->counters(w->eng, &w->st.io);
		/* drain whatever is still in flight before the task buffers go away */
		while (w->ops->inflight(w->eng) > 0) {
			if (w->ops->reap(w->eng, done, max_done, 1) < 0)
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
	free(idle);
	free(done);
	/* release: pairs with the acquire load of workers_done in the evaluator, so after it
	 * sees every worker done, one more ss_ring_pop drains everything published above */
	atomic_fetch_add_explicit(&s->workers_done, 1, memory_order_release);
	ss_evaluator_kick(s);
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


int ss_workers_run(struct segscan_scan *s)
{
	struct ss_catalog *cat = &s->cat;
	struct ss_topo *topo = NULL;
	struct ss_placement plan;
	bool have_plan = false, have_avoid = false;
	cpu_set_t avoid_allowed;
	struct ss_worker *ws = NULL;
	struct ss_queue *qs = NULL;
	int *nodes = NULL, *qnode = NULL;
	unsigned nq = 0, nthreads = s->opts.threads ? s->opts.threads : ss_default_threads();
	pthread_t ev;
	bool ev_started = false;
	char why[256];
	int r;

	/* Decide the engine once, in this thread, so the fallback warning is printed once. */
	{
		const struct ss_io_ops *ops;
		struct ss_io_engine *e;
		bool fb = false;
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
	}

	if (nthreads > cat->n_segs && cat->n_segs > 0)
		nthreads = cat->n_segs; /* idle threads would only cost setup */
	if (nthreads == 0)
		nthreads = 1;
	nthreads = ss_fd_threads_cap(nthreads); /* a tiny `ulimit -n`: fewer workers, not errors */
	s->threads_used = nthreads;

	nodes = calloc(cat->n_logdirs ? cat->n_logdirs : 1, sizeof(int));
	if (!nodes) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < cat->n_logdirs; i++)
		nodes[i] = -1;
	if (s->opts.numa) {
		if ((r = ss_topo_load(s->opts.numa_root ? s->opts.numa_root : "/sys", &topo)) == 0) {
			for (uint32_t i = 0; i < cat->n_logdirs; i++)
				if (cat->logdirs[i].fd >= 0)
					nodes[i] = cat->logdirs[i].node = ss_topo_node_of_path(topo, cat->logdirs[i].path);
		} else {
			topo = NULL;
		}
	}

	/* One queue per distinct node (and one for unknown), segments in catalog order so
	 * partitions complete early and the evaluator works while we read. */
	qs = calloc(cat->n_logdirs + 1, sizeof(*qs));
	qnode = calloc(cat->n_logdirs + 1, sizeof(int));
	if (!qs || !qnode) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < cat->n_logdirs; i++) {
		unsigned k;
		for (k = 0; k < nq && qnode[k] != nodes[i]; k++)
			;
		if (k == nq)
			qnode[nq++] = nodes[i];
	}
	if (nq == 0)
		qnode[nq++] = -1;
	bool any_reused = false;
	for (uint32_t i = 0; i < cat->n_parts && !any_reused; i++)
		any_reused = cat->parts[i].reused;
	if (nq == 1 && !any_reused) {
		/* every segment, in catalog order: the queue is the identity, no array (4 bytes
		 * a segment, 4 MB of a million-segment scan's budget) */
		qs[0].n = cat->n_segs;
		goto queued;
	}
	for (unsigned k = 0; k < nq; k++) {
		qs[k].idx = malloc(sizeof(uint32_t) * (cat->n_segs ? cat->n_segs : 1));
		if (!qs[k].idx) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (uint32_t i = 0; i < cat->n_segs; i++) {
		if (cat->parts[cat->segs[i].part].reused)
			continue; /* taken whole from the previous scan (ss_dreuse): nothing to read */
		int node = nodes[cat->parts[cat->segs[i].part].logdir];
		unsigned k;
		for (k = 0; k < nq && qnode[k] != node; k++)
			;
		qs[k].idx[qs[k].n++] = i;
	}
queued:

	ws = calloc(nthreads, sizeof(*ws));
	{
		/* struct ss_ring is cache-line aligned: calloc's 16 bytes are not enough */
		size_t bytes = (nthreads * sizeof(*s->rings) + 63) & ~(size_t)63;
		s->rings = aligned_alloc(64, bytes);
		if (s->rings)
			memset(s->rings, 0, bytes);
	}
	if (!ws || !s->rings) {
		r = -ENOMEM;
		goto out;
	}
	if (s->opts.has_avoid) {
		/* the broker's cores: take them out of what any worker may use */
		cpu_set_t allowed;
		if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &s->opts.avoid_cpus))
					CPU_CLR(c, &allowed);
			if (CPU_COUNT(&allowed) == 0) {
				r = -EINVAL;
				snprintf(s->err, sizeof(s->err), "--avoid-cpus leaves no CPU to run on");
				s->usage_error = true; /* a bad option value: exit 2 (issue 14 item 11) */
				goto out;
			}
			if (topo)
				ss_topo_set_allowed(topo, &allowed);
			avoid_allowed = allowed;
			have_avoid = true;
		}
	}
	memset(&plan, 0, sizeof(plan));
	/* NULL topology = numa off: no pinning, every worker serves every log dir */
	if (ss_sched_plan(topo, nthreads, nodes, cat->n_logdirs, &plan) == 0)
		have_plan = true;
	for (unsigned i = 0; i < nthreads; i++) {
		if ((r = ss_ring_init(&s->rings[i], RING_CAPACITY)))
			goto out;
		s->n_rings = i + 1;
	}
	atomic_store(&s->workers_done, 0);

	for (uint32_t pi = 0; pi < cat->n_parts; pi++)
		cat->parts[pi].seg_pending = cat->parts[pi].reused ? 0 : cat->parts[pi].seg_count;

	double t0 = ss_mono();
	if ((r = pthread_create(&ev, NULL, ss_evaluator_main, s))) {
		r = -r;
		snprintf(s->err, sizeof(s->err), "cannot start the evaluator thread: %s", segscan_strerror(r));
		goto out;
	}
	ev_started = true;

	unsigned started = 0;
	for (unsigned i = 0; i < nthreads; i++) {
		struct ss_worker *w = &ws[i];
		w->s = s;
		w->id = i;
		w->ring = &s->rings[i];
		w->queues = qs;
		w->n_queues = nq;
		w->nthreads = nthreads;
		w->engine_name = s->io_used;
		w->node = have_plan ? plan.workers[i].node : -1;
		w->home = 0;
		for (unsigned k = 0; k < nq; k++)
			if (qnode[k] == w->node)
				w->home = k;
		if (have_plan && plan.workers[i].pin) {
			w->pin = true;
			w->cpus = plan.workers[i].cpus;
		} else if (have_avoid) {
			w->pin = true;
			w->cpus = avoid_allowed;
		}
		if ((r = pthread_create(&w->th, NULL, worker_main, w))) {
			r = -r;
			/* the evaluator waits for n_rings workers: account for the missing ones */
			atomic_fetch_add_explicit(&s->workers_done, nthreads - i, memory_order_release);
			break;
		}
		started++;
	}
	if (r && started > 0) {
		/* an address-space or thread limit (EAGAIN): the workers share one set of
		 * queues, so the ones that started read everything, only slower */
		r = 0;
	} else if (r) {
		snprintf(s->err, sizeof(s->err), "cannot start a worker thread: %s", segscan_strerror(r));
	}
	free(s->winfo);
	s->winfo = calloc(nthreads, sizeof(*s->winfo));
	s->n_winfo = s->winfo ? nthreads : 0;
	for (unsigned i = 0; i < started; i++) {
		pthread_join(ws[i].th, NULL);
		if (s->winfo) {
			s->winfo[i].node = ws[i].node;
			s->winfo[i].pinned = ws[i].pin;
			s->winfo[i].segments = ws[i].st.segments;
			if (ws[i].pin)
				ss_cpulist_format(&ws[i].cpus, s->winfo[i].cpus, sizeof(s->winfo[i].cpus));
		}
		struct ss_worker_stats *st = &ws[i].st;
		s->totals.io.syscalls += st->io.syscalls;
		s->totals.io.submissions += st->io.submissions;
		s->totals.io.bytes_read += st->io.bytes_read;
		s->totals.segments += st->segments;
		s->totals.ring_stalls += st->ring_stalls;
		s->totals.reused += st->reused;
		s->totals.evicted_bytes += st->evicted_bytes;
		if (st->tasks_peak > s->totals.tasks_peak)
			s->totals.tasks_peak = st->tasks_peak;
		if (ws[i].err && !r) {
			r = ws[i].err;
			/* an error without a message of its own (an allocation) still says what */
			snprintf(s->err, sizeof(s->err), "worker %u: %s", i,
				 ws[i].errmsg[0] ? ws[i].errmsg : segscan_strerror(ws[i].err));
		}
	}
	pthread_join(ev, NULL);
	ev_started = false;
	s->times.scan = ss_mono() - t0;
	s->bytes_read = (int64_t)s->totals.io.bytes_read;
out:
	if (ev_started) {
		atomic_store_explicit(&s->workers_done, s->n_rings, memory_order_release);
		pthread_join(ev, NULL);
	}
	for (unsigned k = 0; qs && k < nq; k++)
		free(qs[k].idx);
	free(qs);
	free(qnode);
	free(ws);
	if (have_plan)
		ss_placement_free(&plan);
	free(nodes);
	if (topo)
		ss_topo_free(topo);
	return r;
}
