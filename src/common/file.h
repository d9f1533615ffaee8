/*
 * Reading small files read-only, the one way the whole tree does it (sources only:
 * parsers never do I/O).
 *
 * ss_open_ro: openat(dirfd, path, O_RDONLY|O_CLOEXEC|O_NONBLOCK|O_NOATIME|extra), retried
 *   without O_NOATIME on EPERM (it needs ownership of the file or CAP_FOWNER), and after a
 *   short wait on EMFILE/ENFILE (the open-file limit: fdlimit.h). O_NONBLOCK
 *   keeps a FIFO or a device from blocking the open; the caller refuses what is not a
 *   regular file. Returns the fd or a negative errno.
 * ss_read_file: the whole regular file, NUL-terminated (the NUL is not counted in *len),
 *   at most `max` bytes: -EFBIG beyond, SEGSCAN_ENOTREG (with no read) for anything that
 *   is not a regular file (a FIFO, a device, a socket, a directory), -ENOENT when it does
 *   not exist. *out is malloc'd, freed by the caller.
 * ss_read_fd: the rest of an open descriptor (a pipe, stdin, a file) up to end of file,
 *   the same way: NUL-terminated, at most `max` bytes (-EFBIG beyond); `hint` is the
 *   expected size (0 = unknown). The caller keeps and closes fd.
 */
#ifndef SS_COMMON_FILE_H
#define SS_COMMON_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int ss_open_ro(int dirfd, const char *path, int extra_flags);
int ss_read_file(int dirfd, const char *path, size_t max, char **out, size_t *len);
int ss_read_fd(int fd, size_t hint, size_t max, char **out, size_t *len);
/* "a FIFO", "a directory", ... for a message about a file that is not a regular one. */
const char *ss_file_type_name(mode_t mode);

#endif
