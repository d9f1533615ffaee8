/*
 * --evict: drop from the page cache exactly the pages a read brought in, and leave the
 * pages that were resident before it (the broker's hot data) alone. Before the read,
 * ss_evict_note() records which pages of the range are not resident (mincore over a
 * mapping that is never touched, so it reads nothing); after it, ss_evict_drop() hands
 * those pages back with POSIX_FADV_DONTNEED. Pages are the kernel's (sysconf), not a
 * 4 KiB guess: on a 64 KiB-page kernel a 4 KiB stride would miss or mis-drop ranges.
 */
#ifndef SS_IO_EVICT_H
#define SS_IO_EVICT_H

#include <stddef.h>
#include <stdint.h>

/* Pages one span tracks: a 1 MiB read at an unaligned offset with the smallest page
 * size Linux has (4 KiB). A longer read is tracked for its first pages only. */
#define SS_EVICT_SPAN_BYTES (1024 * 1024)
#define SS_EVICT_SPAN_PAGES (SS_EVICT_SPAN_BYTES / 4096 + 2)

struct ss_evict_span {
	int64_t  off;                        /* page-aligned file offset of cold[0] */
	uint32_t n;                          /* pages tracked; 0: nothing to drop */
	uint8_t  cold[SS_EVICT_SPAN_PAGES];  /* 1: not resident before the read */
};

/* The kernel's page size (sysconf(_SC_PAGESIZE)), looked up once. */
size_t ss_page_size(void);

/* Before reading [off, off+len) of fd: note the pages that are not resident. On any
 * failure the span tracks nothing (and nothing will be dropped). */
void ss_evict_note(struct ss_evict_span *sp, int fd, int64_t off, size_t len);
/* After the read, while fd is still open: drop the pages noted cold. Returns the bytes
 * given back to the kernel, and leaves the span empty. */
uint64_t ss_evict_drop(struct ss_evict_span *sp, int fd);
/* No readahead on fd: it would cache pages no span accounts for. */
void ss_evict_no_readahead(int fd);

#endif
