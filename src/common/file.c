/* See file.h. */
#include "common/file.h"
#include "common/fdlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "segscan.h"

int ss_open_ro(int dirfd, const char *path, int extra_flags)
{
	int base = O_RDONLY | O_CLOEXEC | O_NONBLOCK | extra_flags;
	for (unsigned attempt = 0;; attempt++) {
		int fd = openat(dirfd, path, base | O_NOATIME);
		if (fd < 0 && errno == EPERM)
			fd = openat(dirfd, path, base);
		if (fd >= 0)
			return fd;
		/* the open-file limit, not the file: other threads close meanwhile (fdlimit.h) */
		if ((errno != EMFILE && errno != ENFILE) || !ss_fd_retry_wait(attempt))
			return -errno;
	}
}

int ss_read_fd(int fd, size_t hint, size_t max, char **out, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap;
	int r;

	/* The size is a hint: the file may grow or shrink while it is read. */
	cap = hint > 0 && hint < max ? hint + 1 : 4096;
	if (cap > max + 1)
		cap = max + 1;
	if (!(buf = malloc(cap + 1)))
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				r = -EFBIG;
				goto fail;
			}
			size_t nc = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nb = realloc(buf, nc + 1);
			if (!nb) {
				r = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap = nc;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* a non-blocking pipe with nothing yet: wait for data or its end */
				struct pollfd p = { .fd = fd, .events = POLLIN };
				if (poll(&p, 1, -1) >= 0 || errno == EINTR)
					continue;
			}
			r = -errno;
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		r = -EFBIG;
		goto fail;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
fail:
	free(buf);
	return r;
}

int ss_open_reg(int dirfd, const char *path, int extra_flags, struct stat *st)
{
	int fd = ss_open_ro(dirfd, path, extra_flags);   /* the caller's, or closed below */
	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return SEGSCAN_ENOTREG; /* never read a FIFO or a device: it can block forever */
	}
	return fd;
}

int ss_read_file(int dirfd, const char *path, size_t max, char **out, size_t *len)
{
	struct stat st;
	int r, fd = ss_open_reg(dirfd, path, 0, &st);   /* closed below */
	if (fd < 0)
		return fd;
	r = ss_read_fd(fd, st.st_size > 0 ? (size_t)st.st_size : 0, max, out, len);
	close(fd);
	return r;
}

int ss_read_stream(int fd, size_t max, char **out, size_t *len)
{
	/* A FIFO opened O_NONBLOCK before its writer reads as end of file, and poll reports
	 * neither data nor a hang-up until a writer has come: wait for one of those. A pipe
	 * (pipe(2), /proc/self/fd/N) whose writer is gone reports POLLHUP at once. */
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -errno;
	return ss_read_fd(fd, 0, max, out, len);
}

DIR *ss_opendir(int dirfd, const char *path)
{
	int fd = ss_open_ro(dirfd, path, O_DIRECTORY);   /* owned by the DIR, or closed below */
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

const char *ss_file_type_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:  return "a regular file";
	case S_IFDIR:  return "a directory";
	case S_IFIFO:  return "a FIFO";
	case S_IFCHR:  return "a character device";
	case S_IFBLK:  return "a block device";
	case S_IFSOCK: return "a socket";
	case S_IFLNK:  return "a symbolic link";
	default:       return "not a regular file";
	}
}
