/*
 * Where a file holds data: its holes (the unwritten ranges of a sparse file, such as the
 * preallocated tail of an active segment: RandomAccessFile.setLength in Kafka's
 * FileRecords.openChannel, and AbstractIndex's resize) read as zeros without being read,
 * and SEEK_DATA/SEEK_HOLE (lseek(2)) name them. A file system without them answers as if
 * the file were all data, which is what a reader must then assume.
 */
#ifndef SS_COMMON_EXTENT_H
#define SS_COMMON_EXTENT_H

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

/* The first data extent of fd that ends after `pos`, clipped to [pos, end): *start and
 * *stop (start < stop) and 1; or 0 when [pos, end) is a hole to the end. Any other lseek
 * failure (no SEEK_DATA here, EINVAL) gives the whole of [pos, end) as data. */
static inline int ss_next_data(int fd, int64_t pos, int64_t end, int64_t *start, int64_t *stop)
{
	if (pos >= end)
		return 0;
	off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
	if (d < 0 && errno == ENXIO)
		return 0;               /* no data from pos to the end of the file */
	if (d < 0) {
		*start = pos;
		*stop = end;
		return 1;
	}
	if ((int64_t)d >= end)
		return 0;
	off_t h = lseek(fd, d, SEEK_HOLE);
	*start = (int64_t)d;
	*stop = h < 0 || (int64_t)h > end ? end : (int64_t)h;
	return *stop > *start;
}

#endif
