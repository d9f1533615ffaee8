/* The free space of a log dir's filesystem: see fsstat.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/file.h"
#include "source/fsstat.h"

int ss_source_free_bytes(const char *dir, int64_t *out)
{
	struct statvfs v;
	int e = 0;
	/* O_DIRECTORY: a FIFO or a device in the log dir's place fails before it is opened */
	int fd = ss_open_ro(AT_FDCWD, dir, O_DIRECTORY);
	if (fd < 0)
		return fd;
	if (fstatvfs(fd, &v) < 0) {
		e = -errno;
		goto out;
	}
	__int128 b = (__int128)v.f_bavail * (__int128)(v.f_frsize ? v.f_frsize : v.f_bsize);
	*out = b > INT64_MAX ? INT64_MAX : (int64_t)b;
out:
	close(fd); /* partner: ss_open_ro above */
	return e;
}
