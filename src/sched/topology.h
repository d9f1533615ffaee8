/*
 * NUMA topology and worker placement.
 *
 * Everything is read from a sysfs root given by the caller ("/sys" normally; the
 * --numa-topology option or a test points it at a fake tree), never from libnuma, so a
 * two-node machine can be simulated on a one-node one.
 *
 *   struct ss_topo *t;
 *   ss_topo_load("/sys", &t);
 *   for each log dir d: nodes[d] = ss_topo_node_of_path(t, logdir[d]);   // -1 unknown
 *   struct ss_placement pl;
 *   ss_sched_plan(t, nthreads, nodes, nlogdirs, &pl);                   // t NULL: numa=off
 *   worker w:  if (pl.workers[w].pin) ss_pin_self(&pl.workers[w].cpus);
 *              scans the segments of log dirs d with ss_placement_serves(&pl, w, d)
 *   ss_placement_free(&pl);
 *   ss_topo_free(t);
 *
 * CPU ids are limited to CPU_SETSIZE (1024): a cpulist naming a higher CPU is -ERANGE.
 */
#ifndef SS_SCHED_TOPOLOGY_H
#define SS_SCHED_TOPOLOGY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

struct ss_topo;

/*
 * Nodes from <root>/devices/system/node/node<N>/cpulist. Without that directory (or
 * with no node<N> in it) the machine is one node, id 0, holding the CPUs of
 * <root>/devices/system/cpu/online, else 0 .. sysconf(_SC_NPROCESSORS_CONF)-1; the
 * CPUs of this process's affinity mask are always added to it.
 * Also records the calling thread's affinity mask (sched_getaffinity) as the allowed
 * CPUs, so call it before pinning anything.
 * 0, -ENOENT when sysfs_root itself does not exist, -EINVAL/-ERANGE for a malformed
 * cpulist, -ENOMEM, -errno from reading sysfs.
 * A caller that cannot load the topology should scan with numa=off.
 */
int  ss_topo_load(const char *sysfs_root, struct ss_topo **out);
void ss_topo_free(struct ss_topo *t);

/* Replace the allowed-CPU mask taken at load time (tests, or a caller that narrowed
 * its own affinity after loading). -EINVAL for an empty mask. */
int  ss_topo_set_allowed(struct ss_topo *t, const cpu_set_t *allowed);
const cpu_set_t *ss_topo_allowed(const struct ss_topo *t);

/* Nodes are kept sorted by id; ids may be sparse (node0, node2). */
unsigned ss_topo_node_count(const struct ss_topo *t);
int      ss_topo_node_id(const struct ss_topo *t, unsigned i);
/* All CPUs of a node, or NULL when the topology has no such node. */
const cpu_set_t *ss_topo_node_cpus(const struct ss_topo *t, int node);
/* The allowed CPUs of a node (affinity ∩ node); node -1 = every allowed CPU.
 * Returns the number of CPUs in *out (0 if none), or -ENOENT for an unknown node. */
int  ss_topo_node_allowed(const struct ss_topo *t, int node, cpu_set_t *out);

/*
 * The NUMA node of the block device holding `path`, or -1 when unknown: tmpfs/overlay
 * and other major-0 devices, no <root>/dev/block/<maj>:<min>, no numa_node file, or a
 * numa_node of -1. The device directory is resolved through its symlinks, then
 * numa_node is looked for under its device/ link (and that device's parents, since a
 * virtio or NVMe disk's node is on the PCI function above it), then in parent
 * directories (a partition's node is its disk's). A dm/md/multipath device with no node
 * of its own follows its first slave (alphabetically). Never fails otherwise: a path
 * that cannot be stat'ed is also -1.
 */
int  ss_topo_node_of_path(const struct ss_topo *t, const char *path);
/* Same for a device number (st_dev). */
int  ss_topo_node_of_dev(const struct ss_topo *t, unsigned maj, unsigned min);

/*
 * cpulist syntax of sysfs and cpuset(7): comma-separated ids and inclusive ranges,
 * "0-3,8,10-11", optional trailing newline; "" (a CPU-less node) is the empty set.
 * Ranges with a stride ("0-7:2") are rejected. 0, -EINVAL, -ERANGE (id >= CPU_SETSIZE).
 */
int  ss_cpulist_parse(const char *s, cpu_set_t *out);
/* Writes the canonical cpulist of a set ("" when empty), ranges for runs of two or
 * more as the kernel prints them. 0, or -ENOSPC if it does not fit in len bytes
 * including the NUL (buf then holds the items that fit, NUL-terminated, when len > 0). */
int  ss_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

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

#endif /* SS_SCHED_TOPOLOGY_H */
