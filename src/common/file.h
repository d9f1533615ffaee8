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
 *   expected size (0 = unknown). A descriptor opened O_NONBLOCK that has nothing yet
 *   (EAGAIN: a pipe whose writer is slow) is waited on with poll. The caller keeps and
 *   closes fd.
 * ss_open_reg: ss_open_ro, then fstat on the descriptor: the fd of a regular file (its
 *   stat in *st, for a caller that checks the owner or the size before it reads), or
 *   SEGSCAN_ENOTREG (closed, *st still filled: ss_file_type_name) for anything else.
 *   ss_read_file is ss_open_reg + ss_read_fd.
 * ss_read_stream: a pipe or a FIFO the user named (opened O_NONBLOCK by ss_open_ro):
 *   waits for its writer (a FIFO opened non-blocking before any writer reads as end of
 *   file, so poll first) and reads it to its end like ss_read_fd. The wait is unbounded,
 *   as a read of stdin is: only for inputs the user names, never for a path found on disk.
 * ss_opendir: a directory to list, as opendir(3) (NULL with errno set, closedir to
 *   release) so that it replaces opendir in place: ss_open_ro(dirfd, path, O_DIRECTORY)
 *   (O_NONBLOCK, and a FIFO or a device there fails with ENOTDIR before it is opened),
 *   then fdopendir, which checks the descriptor with fstat.
 */
#ifndef SS_COMMON_FILE_H
#define SS_COMMON_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>

int ss_open_ro(int dirfd, const char *path, int extra_flags);
int ss_read_file(int dirfd, const char *path, size_t max, char **out, size_t *len);
int ss_read_fd(int fd, size_t hint, size_t max, char **out, size_t *len);
int ss_open_reg(int dirfd, const char *path, int extra_flags, struct stat *st);
int ss_read_stream(int fd, size_t max, char **out, size_t *len);
DIR *ss_opendir(int dirfd, const char *path);
/* "a FIFO", "a directory", ... for a message about a file that is not a regular one. */
const char *ss_file_type_name(mode_t mode);

#endif
