/*
 * Worker placement on the NUMA topology (sched/topology.h).
 *
 *   struct ss_placement pl;
 *   ss_sched_plan(t, nthreads, nodes, nlogdirs, &pl);                   // t NULL: numa=off
 *   worker w:  if (pl.workers[w].pin) ss_pin_self(&pl.workers[w].cpus);
 *              scans the segments of log dirs d with ss_placement_serves(&pl, w, d)
 *   ss_placement_free(&pl);
 */
#ifndef SS_SCHED_PLACEMENT_H
#define SS_SCHED_PLACEMENT_H

#include <sched.h>
#include <stdbool.h>

struct ss_topo;

struct ss_worker_place {
	int       node;   /* the node this worker serves; -1: no node preference */
	bool      pin;    /* pin to cpus (false for numa=off and when no node is known) */
	cpu_set_t cpus;   /* allowed CPUs of its node, or every allowed CPU as fallback
	                   * and for unpinned workers (empty with numa=off) */
};

struct ss_placement {
	unsigned                nworkers;
	struct ss_worker_place *workers;
	unsigned                nlogdirs;
	/* per log dir: the node whose workers serve it, or -1 when any worker may (its
	 * node is unknown, numa=off, or its node got no worker because there were fewer
	 * workers than nodes holding log dirs) */
	int                    *logdir_node;
};

/*
 * Decide, for each of nthreads workers, the node it serves and the CPUs it is pinned
 * to. Workers are split across the nodes that hold log dirs in proportion to their
 * number of log dirs, at least one per node: every such node gets one, then each
 * further worker goes to the node furthest below its proportional share (ties to the
 * lower id). With fewer workers than such nodes, the nodes with the most log dirs (ties
 * to the lower id) get one worker each and the others' log dirs become "any worker".
 * A worker is pinned to its node's allowed CPUs, or to every allowed CPU when that
 * node has none. Log dirs of unknown node (-1) are served by any worker; with no known
 * node at all, no worker is pinned.
 * t == NULL means numa=off: no pinning, every worker serves every log dir.
 * logdir_nodes may be NULL when nlogdirs is 0.
 * 0, -EINVAL (nthreads 0, or logdir_nodes NULL with nlogdirs > 0, or a node < -1),
 * -ENOMEM. On success free with ss_placement_free().
 */
int  ss_sched_plan(const struct ss_topo *t, unsigned nthreads, const int *logdir_nodes,
		   unsigned nlogdirs, struct ss_placement *out);
void ss_placement_free(struct ss_placement *p);
/* Whether worker w scans the segments of log dir d. */
bool ss_placement_serves(const struct ss_placement *p, unsigned w, unsigned d);

/* pthread_setaffinity_np on the calling thread. 0, -EINVAL (empty set), -errno. */
int  ss_pin_self(const cpu_set_t *set);

#endif /* SS_SCHED_PLACEMENT_H */
