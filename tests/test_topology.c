/* NUMA topology: cpulist parsing/formatting, fake sysfs trees (1 and 2+ nodes, block
 * devices in several layouts, keyed by the REAL st_dev of a temp dir so node_of_path is
 * exercised end to end), placement plans, pinning, and a sanity check on the real /sys. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "sched/cpulist.h"
#include "sched/placement.h"
#include "sched/topology.h"
#include "testutil.h"

/* ---- helpers ----------------------------------------------------------------------- */

static void mkdirs(const char *path)
{
	char *p = strdup(path);
	assert_non_null(p);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0)
			assert_int_equal(errno, EEXIST);
		*s = '/';
	}
	if (mkdir(p, 0755) < 0)
		assert_int_equal(errno, EEXIST);
	free(p);
}

static char *join(const char *root, const char *rel)
{
	char *p = NULL;
	assert_true(asprintf(&p, "%s/%s", root, rel) > 0);
	return p;
}

static void mkparent(const char *path)
{
	char *d = strdup(path);
	assert_non_null(d);
	char *slash = strrchr(d, '/');
	assert_non_null(slash);
	*slash = '\0';
	mkdirs(d);
	free(d);
}

/* root/rel with content, creating parent directories */
static void put(const char *root, const char *rel, const char *content)
{
	char *p = join(root, rel);
	mkparent(p);
	assert_int_equal(tu_write_file(p, content, strlen(content)), 0);
	free(p);
}

static void dir(const char *root, const char *rel)
{
	char *p = join(root, rel);
	mkdirs(p);
	free(p);
}

/* root/rel -> target (relative, as in real sysfs) */
static void link_to(const char *root, const char *rel, const char *target)
{
	char *p = join(root, rel);
	mkparent(p);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static void rmtree(const char *path)
{
	char *cmd = NULL;
	assert_true(asprintf(&cmd, "rm -rf '%s'", path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static cpu_set_t set_of(const int *cpus, int n)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (int i = 0; i < n; i++)
		CPU_SET(cpus[i], &s);
	return s;
}
#define SET(...) set_of((const int[]){ __VA_ARGS__ }, sizeof((int[]){ __VA_ARGS__ }) / sizeof(int))

static cpu_set_t range_set(int a, int b)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (int c = a; c <= b; c++)
		CPU_SET(c, &s);
	return s;
}

static void assert_set_eq(const cpu_set_t *a, const cpu_set_t *b)
{
	if (!CPU_EQUAL(a, b)) {
		char x[256], y[256];
		ss_cpulist_format(a, x, sizeof(x));
		ss_cpulist_format(b, y, sizeof(y));
		fail_msg("cpu sets differ: {%s} vs {%s}", x, y);
	}
}

/* A fake sysfs with one node<i> per cpulist, plus the non-node entries real sysfs has. */
static char *fake_nodes(const char *tag, const char *const *cpulists, const int *ids, int n)
{
	char *root = tu_mkdtemp(tag);
	assert_non_null(root);
	put(root, "devices/system/node/online", "0-1\n");
	put(root, "devices/system/node/possible", "0-1\n");
	put(root, "devices/system/node/has_cpu", "0-1\n");
	dir(root, "devices/system/node/power");
	for (int i = 0; i < n; i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpulist", ids ? ids[i] : i);
		put(root, rel, cpulists[i]);
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/meminfo", ids ? ids[i] : i);
		put(root, rel, "Node 0 MemTotal: 1 kB\n");
	}
	return root;
}

static struct ss_topo *load_ok(const char *root)
{
	struct ss_topo *t = NULL;
	assert_int_equal(ss_topo_load(root, &t), 0);
	assert_non_null(t);
	return t;
}

/* ---- cpulist ------------------------------------------------------------------------ */

static void test_cpulist_parse_valid(void **state)
{
	cpu_set_t s, want;

	assert_int_equal(ss_cpulist_parse("0-3,8,10-11\n", &s), 0);
	want = SET(0, 1, 2, 3, 8, 10, 11);
	assert_set_eq(&s, &want);
	assert_int_equal(CPU_COUNT(&s), 7);

	assert_int_equal(ss_cpulist_parse("0", &s), 0);
	want = SET(0);
	assert_set_eq(&s, &want);

	assert_int_equal(ss_cpulist_parse("5-5", &s), 0);
	want = SET(5);
	assert_set_eq(&s, &want);

	assert_int_equal(ss_cpulist_parse("1023", &s), 0);
	want = SET(1023);
	assert_set_eq(&s, &want);

	assert_int_equal(ss_cpulist_parse("0-1023\n", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 1024);

	/* overlapping and unordered pieces are a union */
	assert_int_equal(ss_cpulist_parse("7,2-4,3", &s), 0);
	want = SET(2, 3, 4, 7);
	assert_set_eq(&s, &want);

	/* a memory-only node prints an empty line */
	CPU_ZERO(&want);
	s = SET(1);
	assert_int_equal(ss_cpulist_parse("\n", &s), 0);
	assert_set_eq(&s, &want);
	s = SET(1);
	assert_int_equal(ss_cpulist_parse("", &s), 0);
	assert_set_eq(&s, &want);
}

static void test_cpulist_parse_invalid(void **state)
{
	static const char *const einval[] = {
		"a", "1,,2", "1,", ",1", "3-1", "1-", "-1", "0-7:2", "1 2", "1;2", "0x1",
		"1-2-3", "1,\n,2", "+1", " - ",
	};
	cpu_set_t s;
	for (size_t i = 0; i < sizeof(einval) / sizeof(einval[0]); i++) {
		int r = ss_cpulist_parse(einval[i], &s);
		if (r != -EINVAL)
			fail_msg("\"%s\": %d, want -EINVAL", einval[i], r);
	}
	static const char *const erange[] = { "1024", "0-1024", "1020-2000", "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(erange) / sizeof(erange[0]); i++) {
		int r = ss_cpulist_parse(erange[i], &s);
		if (r != -ERANGE)
			fail_msg("\"%s\": %d, want -ERANGE", erange[i], r);
	}
}

static void test_cpulist_format(void **state)
{
	char buf[64];
	cpu_set_t s = SET(0, 1, 2, 3, 8, 10, 11);
	assert_int_equal(ss_cpulist_format(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3,8,10-11");
	s = SET(0, 1); /* the kernel prints a run of two as a range too */
	assert_int_equal(ss_cpulist_format(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-1");
	s = SET(1023);
	assert_int_equal(ss_cpulist_format(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1023");
	CPU_ZERO(&s);
	assert_int_equal(ss_cpulist_format(&s, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(ss_cpulist_format(&s, buf, 0), -ENOSPC);
	/* "0-3,8,10-11" needs 12 bytes */
	s = SET(0, 1, 2, 3, 8, 10, 11);
	assert_int_equal(ss_cpulist_format(&s, buf, 12), 0);
	assert_int_equal(ss_cpulist_format(&s, buf, 11), -ENOSPC);
	assert_string_equal(buf, "0-3,8");

	/* round trip over pseudo-random sets */
	uint64_t x = 88172645463325252u;
	char big[8192];
	for (int iter = 0; iter < 200; iter++) {
		cpu_set_t a, b;
		CPU_ZERO(&a);
		for (int c = 0; c < CPU_SETSIZE; c++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			if (x % (unsigned)(iter % 7 + 2) == 0)
				CPU_SET(c, &a);
		}
		assert_int_equal(ss_cpulist_format(&a, big, sizeof(big)), 0);
		assert_int_equal(ss_cpulist_parse(big, &b), 0);
		assert_set_eq(&a, &b);
	}
}

/* ---- loading ------------------------------------------------------------------------ */

static void test_load_two_nodes(void **state)
{
	const char *const lists[] = { "0-3\n", "4-7\n" };
	char *root = fake_nodes("topo2", lists, NULL, 2);
	struct ss_topo *t = load_ok(root);
	assert_int_equal(ss_topo_node_count(t), 2);
	assert_int_equal(ss_topo_node_id(t, 0), 0);
	assert_int_equal(ss_topo_node_id(t, 1), 1);
	assert_int_equal(ss_topo_node_id(t, 2), -1);
	cpu_set_t w0 = range_set(0, 3), w1 = range_set(4, 7);
	assert_set_eq(ss_topo_node_cpus(t, 0), &w0);
	assert_set_eq(ss_topo_node_cpus(t, 1), &w1);
	assert_null(ss_topo_node_cpus(t, 2));
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

static void test_load_sparse_ids_sorted(void **state)
{
	/* 16 sparse ids created out of order: readdir (hash or creation order, and
	 * "node10" < "node2" by name) is very unlikely to hand them over numerically */
	const int ids[16] = { 13, 2, 7, 0, 11, 5, 9, 14, 1, 3, 12, 4, 8, 6, 10, 31 };
	const char *lists[16];
	char text[16][16];
	for (int i = 0; i < 16; i++) {
		/* node 3 is memory-only; node i holds CPU 2*id, 2*id+1 */
		if (ids[i] == 3)
			snprintf(text[i], sizeof(text[i]), "\n");
		else
			snprintf(text[i], sizeof(text[i]), "%d-%d\n", 2 * ids[i], 2 * ids[i] + 1);
		lists[i] = text[i];
	}
	char *root = fake_nodes("topos", lists, ids, 16);
	struct ss_topo *t = load_ok(root);
	assert_int_equal(ss_topo_node_count(t), 16);
	static const int sorted[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 31 };
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(ss_topo_node_id(t, i), sorted[i]);
	cpu_set_t w = SET(62, 63);
	assert_set_eq(ss_topo_node_cpus(t, 31), &w);
	assert_int_equal(CPU_COUNT(ss_topo_node_cpus(t, 3)), 0); /* memory-only node */
	assert_null(ss_topo_node_cpus(t, 15));
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

static void test_load_single_node_fallback(void **state)
{
	cpu_set_t aff;
	assert_int_equal(sched_getaffinity(0, sizeof(aff), &aff), 0);

	/* no node directory, cpu/online present */
	char *root = tu_mkdtemp("topo1");
	assert_non_null(root);
	put(root, "devices/system/cpu/online", "1000-1001\n");
	struct ss_topo *t = load_ok(root);
	assert_int_equal(ss_topo_node_count(t), 1);
	assert_int_equal(ss_topo_node_id(t, 0), 0);
	/* ids no real allowed mask here contains, so the union is visible */
	cpu_set_t want = range_set(1000, 1001);
	CPU_OR(&want, &want, &aff);
	assert_true(CPU_COUNT(&want) > 2);
	assert_set_eq(ss_topo_node_cpus(t, 0), &want);
	assert_set_eq(ss_topo_allowed(t), &aff);
	ss_topo_free(t);

	/* a node directory without node<N> entries is the same machine */
	dir(root, "devices/system/node/power");
	t = load_ok(root);
	assert_int_equal(ss_topo_node_count(t), 1);
	assert_set_eq(ss_topo_node_cpus(t, 0), &want);
	ss_topo_free(t);
	rmtree(root);
	free(root);

	/* nothing at all: every configured CPU, and every allowed one */
	root = tu_mkdtemp("topo0");
	assert_non_null(root);
	t = load_ok(root);
	assert_int_equal(ss_topo_node_count(t), 1);
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	for (long c = 0; c < nconf && c < CPU_SETSIZE; c++)
		assert_true(CPU_ISSET(c, ss_topo_node_cpus(t, 0)));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &aff))
			assert_true(CPU_ISSET(c, ss_topo_node_cpus(t, 0)));
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

static void test_load_errors(void **state)
{
	struct ss_topo *t = NULL;
	const char *const bad[] = { "0-3\n", "4-x\n" };
	char *root = fake_nodes("topoe", bad, NULL, 2);
	assert_int_equal(ss_topo_load(root, &t), -EINVAL);
	rmtree(root);
	free(root);

	const char *const big[] = { "0-3\n", "4000\n" };
	root = fake_nodes("topoe", big, NULL, 2);
	assert_int_equal(ss_topo_load(root, &t), -ERANGE);
	rmtree(root);
	free(root);

	/* a root that does not exist (a mistyped --numa-topology) */
	root = tu_mkdtemp("topoe");
	assert_non_null(root);
	char *gone = join(root, "nope");
	t = NULL;
	assert_int_equal(ss_topo_load(gone, &t), -ENOENT);
	assert_null(t);
	free(gone);
	rmtree(root);
	free(root);

	/* node1 without its cpulist */
	const char *const one[] = { "0\n" };
	root = fake_nodes("topoe", one, NULL, 1);
	dir(root, "devices/system/node/node1");
	assert_int_equal(ss_topo_load(root, &t), -ENOENT);
	rmtree(root);
	free(root);
}

static void test_node_allowed(void **state)
{
	const char *const lists[] = { "0-3", "4-7" };
	char *root = fake_nodes("topoa", lists, NULL, 2);
	struct ss_topo *t = load_ok(root);
	cpu_set_t allowed = SET(0, 1, 5), out, want;
	assert_int_equal(ss_topo_set_allowed(t, &allowed), 0);
	assert_set_eq(ss_topo_allowed(t), &allowed);
	assert_int_equal(ss_topo_node_allowed(t, 0, &out), 2);
	want = SET(0, 1);
	assert_set_eq(&out, &want);
	assert_int_equal(ss_topo_node_allowed(t, 1, &out), 1);
	want = SET(5);
	assert_set_eq(&out, &want);
	assert_int_equal(ss_topo_node_allowed(t, -1, &out), 3);
	assert_set_eq(&out, &allowed);
	assert_int_equal(ss_topo_node_allowed(t, 7, &out), -ENOENT);
	allowed = SET(6);
	assert_int_equal(ss_topo_set_allowed(t, &allowed), 0);
	assert_int_equal(ss_topo_node_allowed(t, 0, &out), 0);
	CPU_ZERO(&allowed);
	assert_int_equal(ss_topo_set_allowed(t, &allowed), -EINVAL);
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

/* ---- block device → node ------------------------------------------------------------ */

struct devfix {
	char    *root;    /* fake sysfs */
	char    *data;    /* a real directory whose st_dev keys the fake tree */
	unsigned maj, min;
	char     key[64]; /* "dev/block/M:m" */
};

/* A directory with a real (major != 0) device: the temp dir if it has one, else the
 * current directory; NULL when every candidate is on tmpfs/overlay. */
static char *real_dev_dir(unsigned *maj, unsigned *min)
{
	char *cands[3] = { tu_mkdtemp("topod"), getcwd(NULL, 0), strdup("/") };
	char *pick = NULL;
	for (int i = 0; i < 3; i++) {
		struct stat st;
		if (!pick && cands[i] && stat(cands[i], &st) == 0 && major(st.st_dev) != 0) {
			pick = cands[i];
			*maj = major(st.st_dev);
			*min = minor(st.st_dev);
			continue;
		}
		if (i == 0 && cands[0])
			rmdir(cands[0]);
		free(cands[i]);
	}
	return pick;
}

static int dev_setup(void **state)
{
	struct devfix *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->data = real_dev_dir(&f->maj, &f->min);
	f->root = tu_mkdtemp("sysfs");
	assert_non_null(f->root);
	snprintf(f->key, sizeof(f->key), "dev/block/%u:%u", f->maj, f->min);
	*state = f;
	return 0;
}

static int dev_teardown(void **state)
{
	struct devfix *f = *state;
	rmtree(f->root);
	free(f->root);
	if (f->data && strstr(f->data, "topod."))
		rmdir(f->data);
	free(f->data);
	free(f);
	return 0;
}

static int node_of_data(struct devfix *f)
{
	struct ss_topo *t = load_ok(f->root);
	int node = ss_topo_node_of_path(t, f->data);
	/* the path and the device number must agree */
	assert_int_equal(ss_topo_node_of_dev(t, f->maj, f->min), node);
	ss_topo_free(t);
	return node;
}

#define NEED_REAL_DEV(f) do { if (!(f)->data) { skip(); return; } } while (0)

static void test_dev_flat_dir(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	char rel[128];
	snprintf(rel, sizeof(rel), "%s/device/numa_node", f->key);
	put(f->root, rel, "1\n");
	assert_int_equal(node_of_data(f), 1);
}

/* A plain directory (fake-tree style) whose device/ link leads to a virtio device that
 * has no numa_node: the node is on the PCI function above that device. */
static void test_dev_flat_dir_device_link(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	char rel[128];
	put(f->root, "devices/pci0000:00/0000:00:05.0/numa_node", "1\n");
	put(f->root, "devices/pci0000:00/0000:00:05.0/virtio3/features", "0\n");
	snprintf(rel, sizeof(rel), "%s/device", f->key);
	link_to(f->root, rel, "../../../devices/pci0000:00/0000:00:05.0/virtio3");
	assert_int_equal(node_of_data(f), 1);
}

/* No device/ link at all, but the disk sits below its PCI function in devices/. */
static void test_dev_under_pci_without_link(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	put(f->root, "devices/pci0000:80/0000:80:06.0/numa_node", "1\n");
	put(f->root, "devices/pci0000:80/0000:80:06.0/block/vdz/size", "1\n");
	link_to(f->root, f->key, "../../devices/pci0000:80/0000:80:06.0/block/vdz");
	assert_int_equal(node_of_data(f), 1);
}

/* The real layout: dev/block/M:m is a symlink into devices/; a virtio disk's device/
 * has no numa_node, the PCI function above it does (and has a regular file called
 * "device" that must not be taken for the device link). */
static void test_dev_symlink_virtio(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	const char *pci = "devices/pci0000:00/0000:00:02.0";
	char rel[256];
	snprintf(rel, sizeof(rel), "%s/numa_node", pci);
	put(f->root, rel, "1\n");
	snprintf(rel, sizeof(rel), "%s/device", pci);
	put(f->root, rel, "0x1001\n");
	snprintf(rel, sizeof(rel), "%s/virtio1/block/vda/size", pci);
	put(f->root, rel, "100\n");
	snprintf(rel, sizeof(rel), "%s/virtio1/block/vda/device", pci);
	link_to(f->root, rel, "../../../virtio1");
	link_to(f->root, f->key, "../../devices/pci0000:00/0000:00:02.0/virtio1/block/vda");
	assert_int_equal(node_of_data(f), 1);
}

/* A partition has no device/ of its own: its node is its disk's. */
static void test_dev_partition(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	const char *disk = "devices/pci0000:40/0000:40:01.0/nvme/nvme0/nvme0n1";
	char rel[256];
	put(f->root, "devices/pci0000:40/0000:40:01.0/numa_node", "0\n");
	put(f->root, "devices/pci0000:40/0000:40:01.0/nvme/nvme0/numa_node", "1\n");
	snprintf(rel, sizeof(rel), "%s/nvme0n1p2/partition", disk);
	put(f->root, rel, "2\n");
	snprintf(rel, sizeof(rel), "%s/device", disk);
	link_to(f->root, rel, "../../nvme0");
	link_to(f->root, f->key,
		"../../devices/pci0000:40/0000:40:01.0/nvme/nvme0/nvme0n1/nvme0n1p2");
	/* the controller's own numa_node (1) wins over the PCI function's (0) */
	assert_int_equal(node_of_data(f), 1);
}

static void test_dev_missing_numa_node(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	/* a device dir with a device/ link but no numa_node anywhere */
	put(f->root, "devices/virtual/block/loop0/size", "0\n");
	dir(f->root, "devices/virtual/misc/loopctl");
	link_to(f->root, "devices/virtual/block/loop0/device", "../../misc/loopctl");
	link_to(f->root, f->key, "../../devices/virtual/block/loop0");
	assert_int_equal(node_of_data(f), -1);
}

static void test_dev_no_entry(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	/* numa_node present for some other device only */
	put(f->root, "dev/block/1:77/device/numa_node", "1\n");
	assert_int_equal(node_of_data(f), -1);
}

static void test_dev_minus_one_and_garbage(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	char rel[128];
	snprintf(rel, sizeof(rel), "%s/device/numa_node", f->key);
	put(f->root, rel, "-1\n");
	assert_int_equal(node_of_data(f), -1);
	put(f->root, rel, "zero\n");
	assert_int_equal(node_of_data(f), -1);
	put(f->root, rel, "0\n");
	assert_int_equal(node_of_data(f), 0); /* the same tree does resolve with a value */
}

/* dm/md: the virtual device has no node of its own; its first slave (by name) does. */
static void test_dev_dm_slaves(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	put(f->root, "devices/pci0000:00/0000:00:03.0/numa_node", "0\n");
	put(f->root, "devices/pci0000:80/0000:80:03.0/numa_node", "1\n");
	put(f->root, "devices/pci0000:00/0000:00:03.0/host0/block/sdb/size", "1\n");
	put(f->root, "devices/pci0000:80/0000:80:03.0/host1/block/sda/size", "1\n");
	link_to(f->root, "devices/pci0000:00/0000:00:03.0/host0/block/sdb/device", "../../../host0");
	link_to(f->root, "devices/pci0000:80/0000:80:03.0/host1/block/sda/device", "../../../host1");
	/* slaves: sdb (node 0) created first, sda (node 1) sorts first */
	link_to(f->root, "devices/virtual/block/dm-0/slaves/sdb",
		"../../../../pci0000:00/0000:00:03.0/host0/block/sdb");
	link_to(f->root, "devices/virtual/block/dm-0/slaves/sda",
		"../../../../pci0000:80/0000:80:03.0/host1/block/sda");
	link_to(f->root, f->key, "../../devices/virtual/block/dm-0");
	assert_int_equal(node_of_data(f), 1);
}

/* md on partitions: slave is a partition, whose disk has the node. */
static void test_dev_md_on_partition(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	put(f->root, "devices/pci0000:80/0000:80:04.0/numa_node", "1\n");
	put(f->root, "devices/pci0000:80/0000:80:04.0/ata2/block/sdc/sdc1/partition", "1\n");
	link_to(f->root, "devices/pci0000:80/0000:80:04.0/ata2/block/sdc/device", "../../../ata2");
	link_to(f->root, "devices/virtual/block/md0/slaves/sdc1",
		"../../../../pci0000:80/0000:80:04.0/ata2/block/sdc/sdc1");
	link_to(f->root, f->key, "../../devices/virtual/block/md0");
	assert_int_equal(node_of_data(f), 1);
}

/* A slave cycle in a broken tree must end, not hang. */
static void test_dev_slave_cycle(void **state)
{
	struct devfix *f = *state;
	NEED_REAL_DEV(f);
	dir(f->root, "devices/virtual/block/dm-1/slaves");
	link_to(f->root, "devices/virtual/block/dm-1/slaves/dm-1", "../../dm-1");
	link_to(f->root, f->key, "../../devices/virtual/block/dm-1");
	assert_int_equal(node_of_data(f), -1);
}

static void test_dev_major_zero_and_missing_path(void **state)
{
	struct devfix *f = *state;
	/* a tree that would say "1" for 0:5 if major 0 were looked up */
	put(f->root, "dev/block/0:5/device/numa_node", "1\n");
	put(f->root, "dev/block/8:0/device/numa_node", "1\n");
	struct ss_topo *t = load_ok(f->root);
	assert_int_equal(ss_topo_node_of_dev(t, 8, 0), 1); /* the tree is readable */
	assert_int_equal(ss_topo_node_of_dev(t, 0, 5), -1);
	/* /proc is major 0 whatever the machine */
	assert_int_equal(ss_topo_node_of_path(t, "/proc/self"), -1);
	char *gone = join(f->root, "no/such/path");
	assert_int_equal(ss_topo_node_of_path(t, gone), -1);
	free(gone);
	ss_topo_free(t);
}

/* ---- placement ---------------------------------------------------------------------- */

/* Checks every plan must satisfy, whatever the expected numbers. */
static void plan_invariants(const struct ss_placement *p, unsigned nthreads,
			    const int *nodes, unsigned nlogdirs)
{
	assert_int_equal(p->nworkers, nthreads);
	assert_int_equal(p->nlogdirs, nlogdirs);
	for (unsigned d = 0; d < nlogdirs; d++) {
		unsigned servers = 0;
		for (unsigned w = 0; w < nthreads; w++)
			servers += ss_placement_serves(p, w, d);
		if (servers == 0)
			fail_msg("log dir %u (node %d) has no worker", d, nodes[d]);
		if (nodes[d] == -1)
			assert_int_equal(servers, nthreads);
	}
	for (unsigned w = 0; w < nthreads; w++)
		if (p->workers[w].pin)
			assert_true(CPU_COUNT(&p->workers[w].cpus) > 0);
	assert_false(ss_placement_serves(p, nthreads, 0));
	assert_false(ss_placement_serves(p, 0, nlogdirs));
}

static unsigned workers_on(const struct ss_placement *p, int node)
{
	unsigned n = 0;
	for (unsigned w = 0; w < p->nworkers; w++)
		n += p->workers[w].node == node;
	return n;
}

struct plan_case {
	unsigned    nthreads;
	const int  *nodes;
	unsigned    nlogdirs;
	unsigned    want0, want1, want_any; /* workers on node 0, node 1, unpinned */
};

static void test_plan_two_nodes(void **state)
{
	const char *const lists[] = { "0-3", "4-7" };
	char *root = fake_nodes("topop", lists, NULL, 2);
	struct ss_topo *t = load_ok(root);
	cpu_set_t all = range_set(0, 7), n0 = range_set(0, 3), n1 = range_set(4, 7);
	assert_int_equal(ss_topo_set_allowed(t, &all), 0);

	static const int only0[] = { 0, 0 }, both[] = { 0, 1 }, unknown[] = { -1, -1 };
	static const int skew[] = { 0, 1, 0, 0 }, mixed[] = { -1, 0 };
	/* expectations worked out by hand from the rule: one per node holding log dirs,
	 * then proportional to log dirs per node, ties to the lower node id */
	const struct plan_case cases[] = {
		{ 1, only0, 2, 1, 0, 0 }, { 2, only0, 2, 2, 0, 0 },
		{ 3, only0, 2, 3, 0, 0 }, { 8, only0, 2, 8, 0, 0 },
		{ 1, both, 2, 1, 0, 0 },  { 2, both, 2, 1, 1, 0 },
		{ 3, both, 2, 2, 1, 0 },  { 8, both, 2, 4, 4, 0 },
		{ 1, unknown, 2, 0, 0, 1 }, { 2, unknown, 2, 0, 0, 2 },
		{ 3, unknown, 2, 0, 0, 3 }, { 8, unknown, 2, 0, 0, 8 },
		/* 3 log dirs on node 0, 1 on node 1 */
		{ 1, skew, 4, 1, 0, 0 },  { 2, skew, 4, 1, 1, 0 },
		{ 3, skew, 4, 2, 1, 0 },  { 8, skew, 4, 6, 2, 0 },
		{ 5, skew, 4, 4, 1, 0 },
		/* one unknown, one on node 0: all workers near node 0 */
		{ 1, mixed, 2, 1, 0, 0 }, { 3, mixed, 2, 3, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct plan_case *c = &cases[i];
		struct ss_placement p;
		assert_int_equal(ss_sched_plan(t, c->nthreads, c->nodes, c->nlogdirs, &p), 0);
		plan_invariants(&p, c->nthreads, c->nodes, c->nlogdirs);
		if (workers_on(&p, 0) != c->want0 || workers_on(&p, 1) != c->want1 ||
		    workers_on(&p, -1) != c->want_any)
			fail_msg("case %zu: %u threads: got %u/%u/%u, want %u/%u/%u", i, c->nthreads,
				 workers_on(&p, 0), workers_on(&p, 1), workers_on(&p, -1),
				 c->want0, c->want1, c->want_any);
		for (unsigned w = 0; w < p.nworkers; w++) {
			const struct ss_worker_place *wp = &p.workers[w];
			if (wp->node == 0) {
				assert_true(wp->pin);
				assert_set_eq(&wp->cpus, &n0);
			} else if (wp->node == 1) {
				assert_true(wp->pin);
				assert_set_eq(&wp->cpus, &n1);
			} else {
				assert_false(wp->pin);
			}
			/* a pinned worker serves exactly the log dirs of its node (+ unknown) */
			for (unsigned d = 0; d < c->nlogdirs; d++) {
				bool want = c->nodes[d] == -1 || !wp->pin || c->nodes[d] == wp->node ||
					    workers_on(&p, c->nodes[d]) == 0;
				assert_int_equal(ss_placement_serves(&p, w, d), want);
			}
		}
		ss_placement_free(&p);
	}
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

/* One worker, log dirs on both nodes: node 1 (more log dirs, though node 0 is seen
 * first and has the lower id) gets it and node 0's log dir falls to "any worker". */
static void test_plan_fewer_workers_than_nodes(void **state)
{
	const char *const lists[] = { "0-3", "4-7" };
	char *root = fake_nodes("topof", lists, NULL, 2);
	struct ss_topo *t = load_ok(root);
	cpu_set_t all = range_set(0, 7), n1 = range_set(4, 7);
	assert_int_equal(ss_topo_set_allowed(t, &all), 0);
	static const int nodes[] = { 0, 1, 1 };
	struct ss_placement p;
	assert_int_equal(ss_sched_plan(t, 1, nodes, 3, &p), 0);
	plan_invariants(&p, 1, nodes, 3);
	assert_int_equal(p.workers[0].node, 1);
	assert_set_eq(&p.workers[0].cpus, &n1);
	assert_int_equal(p.logdir_node[0], -1);
	assert_int_equal(p.logdir_node[1], 1);
	assert_int_equal(p.logdir_node[2], 1);
	ss_placement_free(&p);
	/* three nodes, two workers: the two heaviest (2 and 0, node 0 winning the tie
	 * with node 1 by id) */
	const char *const three[] = { "0-3", "4-7", "8-11" };
	ss_topo_free(t);
	rmtree(root);
	free(root);
	root = fake_nodes("topof", three, NULL, 3);
	t = load_ok(root);
	all = range_set(0, 11);
	assert_int_equal(ss_topo_set_allowed(t, &all), 0);
	static const int nodes3[] = { 1, 0, 2, 2 };
	assert_int_equal(ss_sched_plan(t, 2, nodes3, 4, &p), 0);
	plan_invariants(&p, 2, nodes3, 4);
	assert_int_equal(workers_on(&p, 0), 1);
	assert_int_equal(workers_on(&p, 1), 0);
	assert_int_equal(workers_on(&p, 2), 1);
	assert_int_equal(p.logdir_node[0], -1);
	assert_int_equal(p.logdir_node[1], 0);
	assert_int_equal(p.logdir_node[2], 2);
	ss_placement_free(&p);
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

/* Nodes with no allowed CPU (or unknown to the topology) pin to all allowed CPUs. */
static void test_plan_cpu_fallback(void **state)
{
	const char *const lists[] = { "0-1", "2-3", "4-7" };
	char *root = fake_nodes("topoc", lists, NULL, 3);
	struct ss_topo *t = load_ok(root);
	cpu_set_t allowed = SET(0, 1, 2);
	assert_int_equal(ss_topo_set_allowed(t, &allowed), 0);
	static const int nodes[] = { 0, 1, 2, 5 };
	struct ss_placement p;
	assert_int_equal(ss_sched_plan(t, 4, nodes, 4, &p), 0);
	plan_invariants(&p, 4, nodes, 4);
	cpu_set_t w0 = SET(0, 1), w1 = SET(2);
	for (unsigned w = 0; w < 4; w++) {
		const struct ss_worker_place *wp = &p.workers[w];
		assert_true(wp->pin);
		switch (wp->node) {
		case 0: assert_set_eq(&wp->cpus, &w0); break;
		case 1: assert_set_eq(&wp->cpus, &w1); break;
		case 2: /* fall through: no allowed CPU on node 2 */
		case 5: assert_set_eq(&wp->cpus, &allowed); break;
		default: fail_msg("worker %u on node %d", w, wp->node);
		}
	}
	assert_int_equal(workers_on(&p, 0), 1);
	assert_int_equal(workers_on(&p, 1), 1);
	assert_int_equal(workers_on(&p, 2), 1);
	assert_int_equal(workers_on(&p, 5), 1);
	ss_placement_free(&p);
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

static void test_plan_numa_off_and_errors(void **state)
{
	static const int nodes[] = { 0, 1, -1 };
	struct ss_placement p;
	assert_int_equal(ss_sched_plan(NULL, 3, nodes, 3, &p), 0);
	plan_invariants(&p, 3, nodes, 3);
	for (unsigned w = 0; w < 3; w++) {
		assert_false(p.workers[w].pin);
		for (unsigned d = 0; d < 3; d++)
			assert_true(ss_placement_serves(&p, w, d));
	}
	ss_placement_free(&p);

	const char *const lists[] = { "0-3", "4-7" };
	char *root = fake_nodes("topox", lists, NULL, 2);
	struct ss_topo *t = load_ok(root);
	assert_int_equal(ss_sched_plan(t, 0, nodes, 3, &p), -EINVAL);
	assert_int_equal(ss_sched_plan(t, 2, NULL, 3, &p), -EINVAL);
	static const int bad[] = { 0, -2 };
	assert_int_equal(ss_sched_plan(t, 2, bad, 2, &p), -EINVAL);
	/* no log dirs at all is fine: nobody to be near */
	assert_int_equal(ss_sched_plan(t, 2, NULL, 0, &p), 0);
	assert_int_equal(p.nworkers, 2);
	assert_false(p.workers[0].pin);
	ss_placement_free(&p);
	ss_topo_free(t);
	rmtree(root);
	free(root);
}

/* ---- pinning and the real machine --------------------------------------------------- */

struct pin_result {
	int       rc_empty, rc_one, rc_bad;
	int       cpu;
	cpu_set_t after;
	int       ran_on;
};

static void *pin_thread(void *arg)
{
	struct pin_result *r = arg;
	cpu_set_t s, aff;
	CPU_ZERO(&s);
	r->rc_empty = ss_pin_self(&s);
	sched_getaffinity(0, sizeof(aff), &aff);
	/* the last allowed CPU, so that on a multi-CPU machine it is not just CPU 0 */
	r->cpu = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &aff))
			r->cpu = c;
	CPU_ZERO(&s);
	CPU_SET(r->cpu, &s);
	r->rc_one = ss_pin_self(&s);
	pthread_getaffinity_np(pthread_self(), sizeof(r->after), &r->after);
	sched_yield();
	r->ran_on = sched_getcpu();
	/* a CPU the machine does not have */
	CPU_ZERO(&s);
	CPU_SET(CPU_SETSIZE - 1, &s);
	r->rc_bad = sysconf(_SC_NPROCESSORS_CONF) < CPU_SETSIZE ? ss_pin_self(&s) : -EINVAL;
	return NULL;
}

static void test_pin_self(void **state)
{
	struct pin_result r;
	pthread_t th;
	cpu_set_t before, after_main;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	assert_int_equal(pthread_create(&th, NULL, pin_thread, &r), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r.rc_empty, -EINVAL);
	assert_int_equal(r.rc_one, 0);
	assert_int_equal(CPU_COUNT(&r.after), 1);
	assert_true(CPU_ISSET(r.cpu, &r.after));
	assert_int_equal(r.ran_on, r.cpu);
	assert_int_equal(r.rc_bad, -EINVAL);
	/* only the calling thread was pinned */
	assert_int_equal(sched_getaffinity(0, sizeof(after_main), &after_main), 0);
	assert_set_eq(&after_main, &before);
}

static void test_real_sysfs_sanity(void **state)
{
	struct ss_topo *t = NULL;
	int rc = ss_topo_load("/sys", &t);
	if (rc)
		fail_msg("ss_topo_load(/sys): %s", strerror(-rc));
	unsigned n = ss_topo_node_count(t);
	assert_true(n >= 1);
	cpu_set_t aff, seen;
	assert_int_equal(sched_getaffinity(0, sizeof(aff), &aff), 0);
	assert_set_eq(ss_topo_allowed(t), &aff);
	CPU_ZERO(&seen);
	for (unsigned i = 0; i < n; i++) {
		int id = ss_topo_node_id(t, i);
		assert_true(id >= 0);
		if (i)
			assert_true(id > ss_topo_node_id(t, i - 1));
		CPU_OR(&seen, &seen, ss_topo_node_cpus(t, id));
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &aff) && !CPU_ISSET(c, &seen))
			fail_msg("allowed CPU %d is on no node", c);
	/* a real path gives a node that exists, or unknown */
	int node = ss_topo_node_of_path(t, "/");
	assert_true(node == -1 || ss_topo_node_cpus(t, node) != NULL);
	char *cwd = getcwd(NULL, 0);
	node = ss_topo_node_of_path(t, cwd);
	assert_true(node == -1 || ss_topo_node_cpus(t, node) != NULL);
	free(cwd);
	print_message("real /sys: %u node(s), node of / = %d\n", n, ss_topo_node_of_path(t, "/"));
	/* the plan on the real machine for log dirs on "/" */
	int nodes[1] = { ss_topo_node_of_path(t, "/") };
	struct ss_placement p;
	assert_int_equal(ss_sched_plan(t, 2, nodes, 1, &p), 0);
	plan_invariants(&p, 2, nodes, 1);
	ss_placement_free(&p);
	ss_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse_valid),
		cmocka_unit_test(test_cpulist_parse_invalid),
		cmocka_unit_test(test_cpulist_format),
		cmocka_unit_test(test_load_two_nodes),
		cmocka_unit_test(test_load_sparse_ids_sorted),
		cmocka_unit_test(test_load_single_node_fallback),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_node_allowed),
		cmocka_unit_test_setup_teardown(test_dev_flat_dir, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_flat_dir_device_link, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_under_pci_without_link, dev_setup,
						dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_symlink_virtio, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_partition, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_missing_numa_node, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_no_entry, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_minus_one_and_garbage, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_dm_slaves, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_md_on_partition, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_slave_cycle, dev_setup, dev_teardown),
		cmocka_unit_test_setup_teardown(test_dev_major_zero_and_missing_path, dev_setup,
						dev_teardown),
		cmocka_unit_test(test_plan_two_nodes),
		cmocka_unit_test(test_plan_fewer_workers_than_nodes),
		cmocka_unit_test(test_plan_cpu_fallback),
		cmocka_unit_test(test_plan_numa_off_and_errors),
		cmocka_unit_test(test_pin_self),
		cmocka_unit_test(test_real_sysfs_sanity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
