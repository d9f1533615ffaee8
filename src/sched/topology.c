/*
 * NUMA topology from a sysfs tree: the nodes and their CPUs, and the node of a log dir's
 * block device. The worker placement built on it is sched/placement.c.
 *
 * sysfs is read directly rather than through libnuma so that tests (and the
 * --numa-topology option) can point the whole module at a fake tree.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/darray.h"
#include "common/file.h"
#include "sched/cpulist.h"
#include "sched/topology.h"

struct ss_node {
	int       id;
	cpu_set_t cpus;
};

struct ss_topo {
	char           *root;      /* realpath of the sysfs root (or as given if it has none) */
	size_t          root_len;
	unsigned        nnodes;
	struct ss_node *nodes;     /* sorted by id */
	cpu_set_t       allowed;   /* affinity mask at load time */
};

/* sysfs attribute files are at most a page; anything much larger is not sysfs */
#define SS_SYSFS_MAX (1u << 20)
/* bounds on the device-tree walk: real sysfs paths are ~15 levels, stacks of dm/md a
 * few deep; the bounds only stop a looping fake tree */
#define SS_WALK_MAX_LEVELS 64
#define SS_SLAVE_MAX_DEPTH 8
/* "no numa_node file found on this path", distinct from a found "-1" */
#define SS_NODE_NOT_FOUND (-2)

/* A sysfs attribute whole, NUL-terminated, malloc'd. 0 or -errno. */
static int read_text(const char *path, char **out)
{
	size_t len;
	return ss_read_file(AT_FDCWD, path, SS_SYSFS_MAX, out, &len);
}

/* ---- loading ------------------------------------------------------------------------ */

static int node_cmp(const void *a, const void *b)
{
	const struct ss_node *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* "node<digits>" → id, else -1 */
static int node_dir_id(const char *name)
{
	if (strncmp(name, "node", 4) != 0 || !isdigit((unsigned char)name[4]))
		return -1;
	long v = 0;
	for (const char *p = name + 4; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX / 2)
			return -1;
	}
	return (int)v;
}

static int read_cpulist_file(const char *path, cpu_set_t *out)
{
	char *text = NULL;
	int err = read_text(path, &text);
	if (err)
		return err;
	err = ss_cpulist_parse(text, out);
	free(text);
	return err;
}

/* The one-node view of a machine without node directories. */
static int load_single_node(struct ss_topo *t)
{
	struct ss_node *n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->id = 0;
	char *path = NULL;
	if (asprintf(&path, "%s/devices/system/cpu/online", t->root) < 0) {
		free(n);
		return -ENOMEM;
	}
	int err = read_cpulist_file(path, &n->cpus);
	free(path);
	if (err == -ENOENT) {
		long nconf = sysconf(_SC_NPROCESSORS_CONF);
		CPU_ZERO(&n->cpus);
		for (long c = 0; c < nconf && c < CPU_SETSIZE; c++)
			CPU_SET((unsigned)c, &n->cpus);
		err = 0;
	}
	if (err) {
		free(n);
		return err;
	}
	/* an affinity mask naming a CPU the lists missed must still be placeable */
	CPU_OR(&n->cpus, &n->cpus, &t->allowed);
	t->nodes = n;
	t->nnodes = 1;
	return 0;
}

static int load_nodes(struct ss_topo *t)
{
	char *dirpath = NULL, *path = NULL;
	DIR *d = NULL;
	int err = 0;
	uint32_t cap = 0;
	if (asprintf(&dirpath, "%s/devices/system/node", t->root) < 0)
		return -ENOMEM;
	d = ss_opendir(AT_FDCWD, dirpath);   /* O_DIRECTORY|O_NONBLOCK (common/file.h) */
	if (!d) {
		err = -errno;
		if (err == -ENOENT || err == -ENOTDIR)
			err = load_single_node(t);
		goto out;
	}
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			if (errno) {
				err = -errno;
				goto out;
			}
			break;
		}
		int id = node_dir_id(de->d_name);
		if (id < 0)
			continue;
		if ((err = SS_DA_RESERVE(&t->nodes, &cap, (uint64_t)t->nnodes + 1)) < 0)
			goto out;
		struct ss_node *n = &t->nodes[t->nnodes];
		n->id = id;
		free(path);
		path = NULL;
		if (asprintf(&path, "%s/%s/cpulist", dirpath, de->d_name) < 0) {
			err = -ENOMEM;
			goto out;
		}
		err = read_cpulist_file(path, &n->cpus);
		if (err)
			goto out;
		t->nnodes++;
	}
	if (t->nnodes == 0)
		err = load_single_node(t);
	else
		qsort(t->nodes, t->nnodes, sizeof(*t->nodes), node_cmp);
out:
	if (d)
		closedir(d);
	free(path);
	free(dirpath);
	return err;
}

int ss_topo_load(const char *sysfs_root, struct ss_topo **out)
{
	struct ss_topo *t = calloc(1, sizeof(*t));
	int err;
	if (!t)
		return -ENOMEM;
	/* resolved once so the device walk can tell when it has climbed out of the tree;
	 * a root that does not exist is a mistyped --numa-topology, not a one-node box */
	t->root = realpath(sysfs_root, NULL);
	if (!t->root) {
		err = -errno;
		goto fail;
	}
	t->root_len = strlen(t->root);
	while (t->root_len > 1 && t->root[t->root_len - 1] == '/')
		t->root[--t->root_len] = '\0';
	if (sched_getaffinity(0, sizeof(t->allowed), &t->allowed) < 0) {
		err = -errno;
		goto fail;
	}
	err = load_nodes(t);
	if (err)
		goto fail;
	*out = t;
	return 0;
fail:
	ss_topo_free(t);
	return err;
}

void ss_topo_free(struct ss_topo *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->root);
	free(t);
}

int ss_topo_set_allowed(struct ss_topo *t, const cpu_set_t *allowed)
{
	if (CPU_COUNT(allowed) == 0)
		return -EINVAL;
	t->allowed = *allowed;
	return 0;
}

const cpu_set_t *ss_topo_allowed(const struct ss_topo *t)
{
	return &t->allowed;
}

unsigned ss_topo_node_count(const struct ss_topo *t)
{
	return t->nnodes;
}

int ss_topo_node_id(const struct ss_topo *t, unsigned i)
{
	return i < t->nnodes ? t->nodes[i].id : -1;
}

const cpu_set_t *ss_topo_node_cpus(const struct ss_topo *t, int node)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == node)
			return &t->nodes[i].cpus;
	return NULL;
}

int ss_topo_node_allowed(const struct ss_topo *t, int node, cpu_set_t *out)
{
	if (node == -1) {
		*out = t->allowed;
		return CPU_COUNT(out);
	}
	const cpu_set_t *cpus = ss_topo_node_cpus(t, node);
	if (!cpus)
		return -ENOENT;
	CPU_AND(out, cpus, &t->allowed);
	return CPU_COUNT(out);
}

/* ---- block device → node ------------------------------------------------------------ */

/* p lies strictly below the sysfs root (the walk stops on reaching the root itself) */
static bool under_root(const struct ss_topo *t, const char *p)
{
	if (t->root_len == 1 && t->root[0] == '/')
		return p[0] == '/' && p[1] != '\0';
	return strncmp(p, t->root, t->root_len) == 0 && p[t->root_len] == '/';
}

/* Cut the last component off an absolute path in place; false at "/". */
static bool path_up(char *p)
{
	char *s = strrchr(p, '/');
	if (!s || s == p)
		return false;
	*s = '\0';
	return true;
}

/* <dir>/<name>, resolved through symlinks; NULL if it does not exist (or no memory,
 * which the walk also treats as "not found": placement is an optimisation) */
static char *resolve_child(const char *dir, const char *name)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	char *real = realpath(path, NULL);
	free(path);
	return real;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <dir>/numa_node: its value (>= 0, or -1 for "-1" / garbage), SS_NODE_NOT_FOUND if the
 * file is absent */
static int read_numa_node(const char *dir)
{
	char *path = NULL, *text = NULL;
	if (asprintf(&path, "%s/numa_node", dir) < 0)
		return SS_NODE_NOT_FOUND;
	int err = read_text(path, &text);
	free(path);
	if (err)
		return SS_NODE_NOT_FOUND;
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	bool ok = !errno && end != text && *end == '\0' && v >= 0 && v <= INT_MAX;
	free(text);
	return ok ? (int)v : -1;
}

/* From a device directory upwards: a virtio or NVMe disk's device/ has no numa_node of
 * its own; the PCI function above it does. */
static int numa_up(const struct ss_topo *t, char *dev)
{
	for (int level = 0; level < SS_WALK_MAX_LEVELS && under_root(t, dev); level++) {
		int node = read_numa_node(dev);
		if (node != SS_NODE_NOT_FOUND)
			return node;
		if (!path_up(dev))
			break;
	}
	return SS_NODE_NOT_FOUND;
}

/* First entry of <dir>/slaves in name order, resolved; NULL when none. Name order keeps
 * the answer stable across runs whatever readdir's order. */
static char *first_slave(const char *dir)
{
	char *sdir = NULL, *best = NULL, *res = NULL;
	if (asprintf(&sdir, "%s/slaves", dir) < 0)
		return NULL;
	DIR *d = ss_opendir(AT_FDCWD, sdir);   /* O_DIRECTORY|O_NONBLOCK (common/file.h) */
	if (!d)
		goto out;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (!best || strcmp(de->d_name, best) < 0) {
			char *nb = strdup(de->d_name);
			if (!nb)
				break;
			free(best);
			best = nb;
		}
	}
	closedir(d);
	if (best)
		res = resolve_child(sdir, best);
out:
	free(best);
	free(sdir);
	return res;
}

/* dir: a resolved block device directory. Walks up through partitions to the disk. */
static int block_dir_node(const struct ss_topo *t, const char *dir, int depth)
{
	char *cur = strdup(dir);
	int node = -1;
	if (!cur)
		return -1;
	for (int level = 0; level < SS_WALK_MAX_LEVELS && under_root(t, cur); level++) {
		char *dev = NULL;
		char *devlink = NULL;
		if (asprintf(&devlink, "%s/device", cur) >= 0) {
			/* a PCI function has a regular file named "device" (its id): only a
			 * directory is the device link */
			if (is_dir(devlink))
				dev = realpath(devlink, NULL);
			free(devlink);
		}
		if (dev) {
			int n = numa_up(t, dev);
			free(dev);
			if (n != SS_NODE_NOT_FOUND) {
				node = n;
				goto out;
			}
		}
		int n = read_numa_node(cur);
		if (n != SS_NODE_NOT_FOUND) {
			node = n;
			goto out;
		}
		if (depth < SS_SLAVE_MAX_DEPTH) {
			char *slave = first_slave(cur);
			if (slave) {
				node = block_dir_node(t, slave, depth + 1);
				free(slave);
				goto out;
			}
		}
		if (!path_up(cur))
			break;
	}
out:
	free(cur);
	return node;
}

int ss_topo_node_of_dev(const struct ss_topo *t, unsigned maj, unsigned min)
{
	/* major 0: anonymous devices (tmpfs, overlay, btrfs subvolumes...) have no disk */
	if (maj == 0)
		return -1;
	char *path = NULL;
	if (asprintf(&path, "%s/dev/block/%u:%u", t->root, maj, min) < 0)
		return -1;
	char *real = realpath(path, NULL);
	free(path);
	if (!real)
		return -1;
	int node = block_dir_node(t, real, 0);
	free(real);
	return node;
}

int ss_topo_node_of_path(const struct ss_topo *t, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	return ss_topo_node_of_dev(t, major(st.st_dev), minor(st.st_dev));
}
