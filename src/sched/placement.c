/*
 * Worker placement (sched/placement.h): which node each worker serves and which CPUs it
 * is pinned to, from the topology (sched/topology.h) and the log dirs' nodes; and the
 * pinning itself.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sched/placement.h"
#include "sched/topology.h"

struct plan_node {
	int      id;
	unsigned logdirs;   /* log dirs on this node */
	unsigned workers;   /* workers given to it */
};

static int plan_cmp_id(const void *a, const void *b)
{
	const struct plan_node *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* most log dirs first, then lower id */
static int plan_cmp_weight(const void *a, const void *b)
{
	const struct plan_node *x = a, *y = b;
	if (x->logdirs != y->logdirs)
		return x->logdirs < y->logdirs ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

void ss_placement_free(struct ss_placement *p)
{
	free(p->workers);
	free(p->logdir_node);
	memset(p, 0, sizeof(*p));
}

bool ss_placement_serves(const struct ss_placement *p, unsigned w, unsigned d)
{
	if (w >= p->nworkers || d >= p->nlogdirs)
		return false;
	return p->logdir_node[d] == -1 || p->logdir_node[d] == p->workers[w].node;
}

/* The distinct known nodes of the log dirs and how many log dirs each has, into pn
 * (room for nlogdirs); *known: the log dirs with a known node. Returns how many nodes. */
static unsigned count_nodes(const int *logdir_nodes, unsigned nlogdirs, struct plan_node *pn, unsigned *known)
{
	unsigned k = 0;
	*known = 0;
	for (unsigned d = 0; d < nlogdirs; d++) {
		int id = logdir_nodes[d];
		if (id < 0)
			continue;
		(*known)++;
		unsigned i;
		for (i = 0; i < k && pn[i].id != id; i++)
			;
		if (i == k)
			pn[k++] = (struct plan_node){ .id = id };
		pn[i].logdirs++;
	}
	return k;
}

/* How many workers each of the k nodes gets; pn ends sorted by id. */
static void share_workers(struct plan_node *pn, unsigned k, unsigned nthreads, unsigned known)
{
	if (nthreads < k) {
		/* not enough workers for one per node: the heaviest nodes get one each */
		qsort(pn, k, sizeof(*pn), plan_cmp_weight);
		for (unsigned i = 0; i < nthreads; i++)
			pn[i].workers = 1;
		qsort(pn, k, sizeof(*pn), plan_cmp_id);
		return;
	}
	qsort(pn, k, sizeof(*pn), plan_cmp_id);
	for (unsigned i = 0; i < k; i++)
		pn[i].workers = 1;
	/* each further worker to the node furthest below its share
	 * nthreads * logdirs / known; compared scaled by `known` to stay in integers */
	for (unsigned extra = nthreads - k; extra; extra--) {
		unsigned best = 0;
		long long best_def = LLONG_MIN;
		for (unsigned i = 0; i < k; i++) {
			long long def = (long long)pn[i].logdirs * nthreads - (long long)pn[i].workers * known;
			if (def > best_def) {
				best_def = def;
				best = i;
			}
		}
		pn[best].workers++;
	}
}

/* Pin each node's workers to its CPUs, and serve each log dir from its node if that node
 * got a worker. */
static void assign_workers(const struct ss_topo *t, const struct plan_node *pn, unsigned k,
			   const int *logdir_nodes, unsigned nlogdirs, struct ss_placement *out)
{
	unsigned w = 0;
	for (unsigned i = 0; i < k; i++) {
		cpu_set_t cpus;
		int n = ss_topo_node_allowed(t, pn[i].id, &cpus);
		/* a node we cannot run on (no allowed CPUs, or absent from the topology):
		 * its log dirs are still worth their own workers, running anywhere */
		if (n <= 0)
			cpus = *ss_topo_allowed(t);
		for (unsigned j = 0; j < pn[i].workers; j++, w++) {
			out->workers[w].node = pn[i].id;
			out->workers[w].pin = true;
			out->workers[w].cpus = cpus;
		}
	}
	for (unsigned d = 0; d < nlogdirs; d++) {
		int id = logdir_nodes[d];
		if (id < 0)
			continue;
		for (unsigned i = 0; i < k; i++)
			if (pn[i].id == id && pn[i].workers)
				out->logdir_node[d] = id;
	}
}

int ss_sched_plan(const struct ss_topo *t, unsigned nthreads, const int *logdir_nodes,
		  unsigned nlogdirs, struct ss_placement *out)
{
	struct plan_node *pn = NULL;
	int err = 0;
	memset(out, 0, sizeof(*out));
	if (nthreads == 0 || (nlogdirs && !logdir_nodes))
		return -EINVAL;
	for (unsigned d = 0; d < nlogdirs; d++)
		if (logdir_nodes[d] < -1)
			return -EINVAL;
	out->workers = calloc(nthreads, sizeof(*out->workers));
	out->logdir_node = calloc(nlogdirs ? nlogdirs : 1, sizeof(*out->logdir_node));
	if (!out->workers || !out->logdir_node) {
		err = -ENOMEM;
		goto fail;
	}
	out->nworkers = nthreads;
	out->nlogdirs = nlogdirs;
	for (unsigned d = 0; d < nlogdirs; d++)
		out->logdir_node[d] = -1;
	for (unsigned w = 0; w < nthreads; w++) {
		out->workers[w].node = -1;
		out->workers[w].pin = false;
		CPU_ZERO(&out->workers[w].cpus);
		if (t)
			out->workers[w].cpus = *ss_topo_allowed(t);
	}
	if (!t)
		return 0; /* numa=off */
	pn = calloc(nlogdirs ? nlogdirs : 1, sizeof(*pn));
	if (!pn) {
		err = -ENOMEM;
		goto fail;
	}
	unsigned known;
	unsigned k = count_nodes(logdir_nodes, nlogdirs, pn, &known);
	if (k) { /* none: nothing to be near, every worker stays unpinned */
		share_workers(pn, k, nthreads, known);
		assign_workers(t, pn, k, logdir_nodes, nlogdirs, out);
	}
	free(pn);
	return 0;
fail:
	free(pn);
	ss_placement_free(out);
	return err;
}

int ss_pin_self(const cpu_set_t *set)
{
	if (CPU_COUNT(set) == 0)
		return -EINVAL;
	int err = pthread_setaffinity_np(pthread_self(), sizeof(*set), set);
	return -err;
}
