/*
 * bench/evict: drop one tree's files from the page cache, nothing else.
 *
 *   evict [-c] [-q] PATH...      (directories are walked; plain files are dropped too)
 *
 * Cold-cache benchmark runs must not touch the rest of the machine (other engineers'
 * builds, a broker's hot segments), so this never uses /proc/sys/vm/drop_caches: it walks
 * each PATH and calls posix_fadvise(POSIX_FADV_DONTNEED) on every regular file. One
 * syncfs() per PATH first, because DONTNEED silently keeps dirty pages (a tree that was
 * just generated is mostly dirty). Dentries and inodes stay cached: "cold" here means
 * cold data pages, which is what a scanner that rereads a log dir hours later sees.
 *
 * -c  count resident bytes (mincore) before and after, to show the eviction worked
 * -q  no summary line
 * Exit 0 when every file was advised, 1 when some could not be, 2 on usage errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct ev_ctx {
	bool     check;
	uint64_t files, bytes, failed;
	uint64_t resident_before, resident_after;
	long     page;
};

/* Resident bytes of an open file, or 0 when it cannot be mapped (empty, special). */
static uint64_t resident(const struct ev_ctx *c, int fd, off_t size)
{
	if (size <= 0)
		return 0;
	size_t len = (size_t)size, npages = (len + (size_t)c->page - 1) / (size_t)c->page;
	uint64_t n = 0;
	unsigned char *vec = NULL;
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 0;
	vec = malloc(npages);
	if (!vec)
		goto out;
	if (mincore(m, len, vec) == 0)
		for (size_t i = 0; i < npages; i++)
			n += vec[i] & 1;
out:
	free(vec);
	munmap(m, len);
	return n * (uint64_t)c->page;
}

static int drop_file(struct ev_ctx *c, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOATIME | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == EPERM) /* O_NOATIME needs ownership */
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) != 0) {
		r = -errno;
		goto out;
	}
	if (c->check)
		c->resident_before += resident(c, fd, st.st_size);
	/* posix_fadvise returns the error instead of setting errno */
	if ((r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) != 0) {
		r = -r;
		goto out;
	}
	if (c->check)
		c->resident_after += resident(c, fd, st.st_size);
	c->files++;
	c->bytes += (uint64_t)st.st_size;
out:
	close(fd);
	return r;
}

/* Takes ownership of dfd. */
static int walk(struct ev_ctx *c, int dfd, const char *where)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		int e = -errno;
		close(dfd);
		return e;
	}
	struct dirent *de;
	int first = 0;
	while ((errno = 0, de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
			continue;
		unsigned char type = de->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
		}
		int r = 0;
		if (type == DT_DIR) {
			int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			r = sub < 0 ? -errno : walk(c, sub, n);
		} else if (type == DT_REG) {
			r = drop_file(c, dirfd(d), n);
		}
		if (r) {
			c->failed++;
			if (!first)
				first = r;
			fprintf(stderr, "evict: %s/%s: %s\n", where, n, strerror(-r));
		}
	}
	int e = errno ? -errno : 0;
	closedir(d);
	return e ? e : first;
}

int main(int argc, char **argv)
{
	struct ev_ctx c = { .page = sysconf(_SC_PAGESIZE) };
	bool quiet = false;
	int opt, rc = 0;
	while ((opt = getopt(argc, argv, "cqh")) != -1) {
		switch (opt) {
		case 'c': c.check = true; break;
		case 'q': quiet = true; break;
		default:
			fprintf(stderr, "usage: evict [-c] [-q] PATH...\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: evict [-c] [-q] PATH...\n");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno == ENOTDIR) {
			/* a single file: the same treatment, without the walk */
			int sfd = open(argv[i], O_RDONLY | O_CLOEXEC);
			if (sfd >= 0) {
				if (syncfs(sfd) != 0)
					fprintf(stderr, "evict: syncfs %s: %s (dirty pages stay cached)\n", argv[i],
						strerror(errno));
				close(sfd);
			}
			int r = drop_file(&c, AT_FDCWD, argv[i]);
			if (r) {
				fprintf(stderr, "evict: %s: %s\n", argv[i], strerror(-r));
				rc = 1;
			}
			continue;
		}
		if (fd < 0) {
			fprintf(stderr, "evict: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		/* write back this file system's dirty pages so DONTNEED can drop them */
		if (syncfs(fd) != 0)
			fprintf(stderr, "evict: syncfs %s: %s (dirty pages stay cached)\n", argv[i], strerror(errno));
		if (walk(&c, fd, argv[i]) != 0)
			rc = 1;
	}
	if (!quiet) {
		printf("evict: %" PRIu64 " files, %.1f MiB advised", c.files, (double)c.bytes / 1048576.0);
		if (c.check)
			printf("; resident before %.1f MiB, after %.1f MiB", (double)c.resident_before / 1048576.0,
			       (double)c.resident_after / 1048576.0);
		if (c.failed)
			printf("; %" PRIu64 " failed", c.failed);
		printf("\n");
	}
	return rc;
}
