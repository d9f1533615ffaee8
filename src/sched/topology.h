/*
 * NUMA topology: the nodes, their CPUs, and the node of a block device.
 *
 * Everything is read from a sysfs root given by the caller ("/sys" normally; the
 * --numa-topology option or a test points it at a fake tree), never from libnuma, so a
 * two-node machine can be simulated on a one-node one. Where the workers go is
 * sched/placement.h; the cpulist syntax is sched/cpulist.h.
 *
 *   struct ss_topo *t;
 *   ss_topo_load("/sys", &t);
 *   for each log dir d: nodes[d] = ss_topo_node_of_path(t, logdir[d]);   // -1 unknown
 *   ss_sched_plan(t, nthreads, nodes, nlogdirs, &pl);                   // placement.h
 *   ss_topo_free(t);
 *
 * CPU ids are limited to CPU_SETSIZE (1024): a cpulist naming a higher CPU is -ERANGE.
 */
#ifndef SS_SCHED_TOPOLOGY_H
#define SS_SCHED_TOPOLOGY_H

#include <sched.h>

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

#endif /* SS_SCHED_TOPOLOGY_H */
